"""Benchmark of task sequences (K tasks): the issue's two numbers and the cost against K.

Prints:

1. vanilla, K = 10, the paper's sizes (Nx = 3000, Ns = 30, Ny = 10), gaussian generator,
   100 seeds through ``tasksim.simulate`` (Wishart-sampled Grams): the best of ``--repeat``
   wall-clock times (required: under 2 s), and its ratio to K = 2 under the same conditions;
2. the cost per sample against K = 2, 5, 10, 20 for vanilla and random gating (alpha = 0.5;
   explicit matrices where the 2^K gate patterns cost more than drawing them), and the
   fitted exponent of the cost in K;
3. the time ``tasksim claims`` spends on this issue's claims (derivations/sequences.py): every
   claim of the module evaluated in a fresh process, best of ``--repeat`` (required: under
   60 s).

Run: ``python benchmarks/bench_sequences.py [--repeat 3]``. Timings depend on the machine and
on its load (the load average is printed); BLAS runs on one thread (threadpoolctl) unless
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS say otherwise.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from tasksim import simulate
from tasksim.reports.figures_blas import blas_summary, timing_blas

CLAIMS_SCRIPT = """
import time
start = time.perf_counter()
from tasksim.derivations.claims import evaluate
from tasksim.derivations.sequences import CLAIMS
for claim in CLAIMS:
    evaluate(claim)
print(time.perf_counter() - start)
"""


def best_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (best is kept)")
    args = parser.parse_args()
    print(f"load average before: {load()}; BLAS: {blas_summary()}")

    paper = dict(rho_a=0.5, rho_b=0.5, nx=3000, ns=30, ny=10, seeds=100, seed=0,
                 generator="gaussian")
    k10 = best_time(lambda: simulate("vanilla", tasks=10, **paper), args.repeat)
    k2 = best_time(lambda: simulate("vanilla", tasks=2, **paper), args.repeat)
    print("1. vanilla, paper sizes, gaussian generator, 100 seeds (best of "
          f"{args.repeat}):")
    print(f"   K = 10: {k10:.3f} s (required: under 2 s); K = 2: {k2:.3f} s; "
          f"ratio {k10 / k2:.1f}")

    print("2. cost per sample against K (paper sizes, 20 seeds):")
    for model, extra in (("vanilla", {}), ("random-gating", {"alpha": 0.5})):
        Ks, costs = (2, 5, 10, 20), []
        for K in Ks:
            run = dict(paper, seeds=20)
            t = best_time(lambda: simulate(model, tasks=K, **run, **extra), args.repeat)
            gram = simulate(model, tasks=K, **dict(run, seeds=1), **extra).params["gram"]
            costs.append(t / 20)
            print(f"   {model:13s} K = {K:2d}: {1e3 * t / 20:8.2f} ms per sample ({gram})")
        slope = np.polyfit(np.log(Ks[1:]), np.log(costs[1:]), 1)[0]
        print(f"   {model}: fitted exponent of the cost in K (K = 5..20): {slope:.2f}")

    claims = []
    for _ in range(args.repeat):
        done = subprocess.run([sys.executable, "-c", CLAIMS_SCRIPT], capture_output=True,
                              text=True, check=True)
        claims.append(float(done.stdout.strip()))
    print(f"3. this issue's claims (derivations/sequences.py, fresh process, best of "
          f"{args.repeat}): {min(claims):.2f} s (required: under 60 s)")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    with timing_blas():  # one BLAS thread per process unless OPENBLAS_NUM_THREADS etc. say so
        main()
