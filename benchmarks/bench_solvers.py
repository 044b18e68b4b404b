"""Print the solver benchmark's figures (the same as ``tasksim bench``).

    python benchmarks/bench_solvers.py [--quick] [--json]

Measures (solvers/benchmark.py): the cost per sample of the exact vanilla solver against Nx
under the appendix generator (fitted exponent, share spent drawing the task matrices); the
cost of the Wishart path at Nx = 10^3 and 10^6; and the Fig. 1 sweep by exact fixed points
against the paper's GD protocol (timings, speed-up, largest differences). Runs on one BLAS
thread unless OPENBLAS_NUM_THREADS says otherwise (``tasksim bench`` does it, with
threadpoolctl: reports/figures_blas.py).
"""
import sys

from tasksim.reports.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
