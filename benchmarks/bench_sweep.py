"""Print the notebook API's figures (issue 17's numbers), with the machine's load.

    python benchmarks/bench_sweep.py [--quick] [--samples 20000]

1. the Fig. 1 grid (6 x 6 (rho_a, rho_b), 10 seeds, Nx = 3000, Ns = 30, vanilla, gaussian)
   by tasksim.sweep (an xarray.Dataset with the theory), in process, against the batched
   benchmark path on the same grid (required: at most twice its time);
2. the processor time per sample of the vanilla, random-gating and plasticity-gating Gram
   paths (Ns = 30)
   against their arithmetic floors at this machine's matrix-product rate (required: within
   5x), one process; and where it goes: the random draws alone, and the rest against the
   arithmetic the path needs (solvers/probe_benchmark.py).

Runs on one BLAS thread (set before numpy loads); see reports/sweep_command.py and
solvers/probe_benchmark.py.
"""
import argparse
import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads

from tasksim.reports.sweep_command import sweep_benchmark  # noqa: E402
from tasksim.solvers.probe_benchmark import gram_throughput  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--samples", type=int, default=20000, help="Gram-path samples")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}")
    s = sweep_benchmark(quick=args.quick, log=print)
    print(f"sweep / batched path: {s['ratio']:.2f} (required: at most 2)")
    for model, alpha in (("vanilla", None), ("random-gating", 0.5),
                         ("plasticity-gating", 0.5)):
        g = gram_throughput(samples=args.samples, workers=1, model=model, alpha=alpha,
                            ns=10 if args.quick else 30, log=print)
        floor_us = 1e6 * g["floor_flop_per_sample"] / g["matrix_product_flops"]
        print(f"{model}: {1e6 * g['cpu_seconds_per_sample']:.1f} us of processor time per "
              f"sample; floor {g['floor_flop_per_sample'] / 1e6:.2f} MFLOP = {floor_us:.1f} us "
              f"at {g['matrix_product_flops'] / 1e9:.1f} GFLOP/s: "
              f"{1 / g['fraction_of_floor_cpu']:.1f}x (required: within 5x)")
        draw, cpu = g["draw_cpu_seconds_per_sample"], g["cpu_seconds_per_sample"]
        need_us = 1e6 * g["necessary_flop_per_sample"] / g["matrix_product_flops"]
        print(f"  drawing the random numbers {1e6 * draw:.1f} us ({100 * draw / cpu:.0f} %); "
              f"the rest {1e6 * (cpu - draw):.1f} us against the necessary arithmetic "
              f"{g['necessary_flop_per_sample'] / 1e6:.2f} MFLOP = {need_us:.1f} us: "
              f"{1e6 * (cpu - draw) / need_us:.1f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
