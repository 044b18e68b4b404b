"""Print the finite-size probe's figures (issue 7's numbers), with the machine's load.

    python benchmarks/bench_probe.py [--quick] [--workers 2]

1. the vanilla probe under the gaussian generator at Nx = 10^3, 10^4, 10^5, 10^6, 2000 seeds
   per Nx: total time (required under a minute on 2 cores) and the cost ratio of
   Nx = 10^6 to Nx = 10^3 (required below 1.5);
2. 10^6 samples of the vanilla two-task Gram path, Ns = 30 (required under 3 minutes on 2
   cores), with the achieved fraction of the 1.2 MFLOP-per-sample arithmetic floor.

Runs on one BLAS thread per process (threadpoolctl; OPENBLAS_NUM_THREADS etc. override it);
see solvers/probe_benchmark.py.
"""
import argparse
import os

from tasksim.reports.figures_blas import blas_summary, timing_blas
from tasksim.solvers.probe_benchmark import gram_throughput, probe_scaling


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    say = print
    say(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}, BLAS: "
        f"{blas_summary()}")
    if args.quick:
        scaling = probe_scaling((10**3, 10**6), seeds=250, workers=args.workers, repeats=1,
                                log=say)
        throughput = gram_throughput(samples=20000, workers=args.workers, log=say)
    else:
        scaling = probe_scaling(workers=args.workers, log=say)
        throughput = gram_throughput(workers=args.workers, log=say)
    say(f"probe, Nx = {scaling['nx'][0]} .. {scaling['nx'][-1]}, {scaling['seeds']} seeds each: "
        f"{scaling['seconds']:.2f} s; cost ratio Nx = {scaling['nx'][-1]} / {scaling['nx'][0]}: "
        f"{scaling['ratio']:.2f}")
    say(f"Gram path: {throughput['samples']} samples in {throughput['seconds']:.1f} s "
        f"({1e6 * throughput['seconds_per_sample_per_process']:.1f} us per sample per process); "
        f"matrix products {throughput['matrix_product_flops'] / 1e9:.1f} GFLOP/s per process; "
        f"floor {throughput['floor_seconds']:.1f} s; fraction of the floor "
        f"{throughput['fraction_of_floor']:.2f}")
    say(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    with timing_blas():  # one BLAS thread per process unless OPENBLAS_NUM_THREADS etc. say so
        main()
