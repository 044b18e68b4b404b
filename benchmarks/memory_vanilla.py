"""Peak memory and time of one vanilla two-task sample at Nx = 10^6, Ns = 30 (appendix generator).

The exact solver works in the span of the task matrices (tasksim.solvers.span, tasksim.solvers.fixed_points):
beyond the two Nx x Ns task matrices (2 x 240 MB) it holds only (2 Ns) x (2 Ns) Grams, so
the sample must fit in 2 GB. Peak RSS is read from resource.getrusage (ru_maxrss, KiB on
Linux) and printed with the wall time of each phase.

Usage: python benchmarks/memory_vanilla.py [--nx 1000000] [--ns 30] [--ny 10] [--seed 0]
"""
from __future__ import annotations

import argparse
import resource
import sys
import time

from tasksim.solvers.linear_models import solve
from tasksim.solvers.metrics import error_matrix, transfer_retention
from tasksim.solvers.tasks import draw_tasks

LIMIT_MB = 2048.0


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (ru_maxrss is KiB on Linux)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / 1024.0 if sys.platform != "darwin" else kib / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nx", type=int, default=10**6)
    parser.add_argument("--ns", type=int, default=30)
    parser.add_argument("--ny", type=int, default=10)
    parser.add_argument("--rho-a", type=float, default=0.8)
    parser.add_argument("--rho-b", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    print(f"vanilla, 2 tasks, appendix generator: Nx={args.nx}, Ns={args.ns}, Ny={args.ny}, "
          f"rho_a={args.rho_a}, rho_b={args.rho_b}")
    print(f"baseline peak RSS: {peak_rss_mb():.0f} MB")
    t0 = time.perf_counter()
    tasks = draw_tasks(nx=args.nx, ns=args.ns, ny=args.ny, rho_a=args.rho_a, rho_b=args.rho_b,
                       generator="appendix", seed=args.seed)
    t1 = time.perf_counter()
    print(f"draw tasks:  {t1 - t0:6.2f} s, peak RSS {peak_rss_mb():.0f} MB")
    solution = solve("vanilla", tasks)
    t2 = time.perf_counter()
    print(f"solve:       {t2 - t1:6.2f} s, peak RSS {peak_rss_mb():.0f} MB")
    errors = error_matrix(solution, rho_b=args.rho_b)
    transfer, retention = transfer_retention(errors)
    t3 = time.perf_counter()
    print(f"metrics:     {t3 - t2:6.2f} s, peak RSS {peak_rss_mb():.0f} MB")
    print(f"transfer {transfer[0]:.4f} (paper, leading order: "
          f"{args.rho_a * (2 * args.rho_b - args.rho_a):.4f}); retention {retention[0]:.4f} "
          f"(paper: {1 - args.rho_a**2 * (args.rho_a**2 - 2 * args.rho_a * args.rho_b + 1):.4f})")
    peak = peak_rss_mb()
    print(f"total {t3 - t0:.2f} s, peak RSS {peak:.0f} MB (limit {LIMIT_MB:.0f} MB): "
          f"{'OK' if peak < LIMIT_MB else 'OVER LIMIT'}")
    return 0 if peak < LIMIT_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())
