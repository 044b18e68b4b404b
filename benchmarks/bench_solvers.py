"""Print the solver benchmark's figures (the same as ``tasksim bench``).

    python benchmarks/bench_solvers.py [--quick] [--json]

Measures (solvers/benchmark.py): the cost per sample of the exact vanilla solver against Nx
under the appendix generator (fitted exponent, share spent drawing the task matrices); the
cost of the Wishart path at Nx = 10^3 and 10^6; and the Fig. 1 sweep by exact fixed points
against the paper's GD protocol (timings, speed-up, largest differences). Runs on one BLAS
thread unless OPENBLAS_NUM_THREADS says otherwise (see reports/cli.py).
"""
import os
import sys

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads

from tasksim.reports.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
