"""How far task 1 of Sec. 7's protocol is from convergence after its 100 epochs (Appendix
E.2; issue 16: "show with the learning curves (Fig. 9A) that task 1 has converged").

Prints:

1. the stored Fig. 9A curves (``results/fig9A.nc``, mnist-5k, and ``results/digits/fig9A.nc``
   if present): task 1's test error at epochs 50, 90 and 100 per seed and its relative fall
   over the last 10 and 20 epochs;
2. task 1 trained much longer (``--dataset``, default digits; ``--epochs``, default 1000;
   the same seeds as the grids, ``sample_seed(2024, 0, j)``, so its first 100 epochs are
   Fig. 9A's curves of that dataset): the error at epochs 100, 200, 500, 1000, ..., the
   "plateau" (mean test error over the last 100 epochs: still falling if the run is too
   short), the error at epoch 100 and at the paper's 20,000 SGD steps against it, and the
   first epoch within 1 % and 5 % (relative) of it. Digits' 205 SGD steps per epoch make its
   epoch 100 the paper's step count (20,500 against 20,000 steps), so this also says whether
   the paper's own step budget converges on a problem of this kind; mnist-5k's 13 steps per
   epoch put the paper's step count at epoch 1,539 (``--dataset mnist-5k --epochs 3000``:
   about 25 minutes per seed on one core);
3. an extrapolation checked on digits, then applied to mnist-5k: err(t) = a + b t^-c fitted
   to epochs 20-100; on digits the fitted a is compared with the measured plateau, on
   mnist-5k (which cannot be trained long here) a is the estimated plateau. A fit, not a
   measurement: read it with the digits check beside it.

Run: ``python benchmarks/pmnist_convergence.py [--dataset digits] [--epochs 1000] [--seeds 3]``
(about 15 s per seed per 1000 epochs of digits on one core). Every number is measured or
fitted here.
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

from tasksim.reports.pmnist_results import RESULTS_DIR, grid_path, load_grid
from tasksim.solvers.pmnist import resolve_pmnist_params
from tasksim.solvers.pmnist.grids import ROOT_SEED
from tasksim.solvers.pmnist.run import train_first_task
from tasksim.solvers.sweep import sample_seed

PAPER_STEPS = 20_000
"""The paper's SGD steps on task 1: 100 epochs of MNIST's 60,000 images in batches of 300."""


def stored_task1(path) -> np.ndarray:
    """Task 1's test error per finished seed and epoch of task 1 (0 .. epochs)."""
    import json

    ds = load_grid(path)
    epochs = json.loads(ds.attrs["protocol"])["epochs"]
    done = ds["done"].values[0].astype(bool)
    return ds["curves"].values[0][done][:, :epochs + 1, 0]


def tail_fall(curve: np.ndarray, span: int) -> float:
    """Relative fall of the error over the last ``span`` epochs."""
    return float((curve[-1 - span] - curve[-1]) / curve[-1])


def power_law(t: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    return a + b * t ** (-c)


def fit_plateau(curve: np.ndarray, start: int = 20, stop: int = 100) -> float:
    """a of err(t) = a + b t^-c (a in [0, 1], b, c >= 0) fitted to epochs start..stop of
    ``curve`` (nan if the fit fails)."""
    t = np.arange(start, stop + 1, dtype=float)
    try:
        (a, _, _), _ = curve_fit(power_law, t, curve[start:stop + 1],
                                 p0=(0.5 * curve[stop], 1.0, 0.5),
                                 bounds=([0.0, 0.0, 0.0], [1.0, np.inf, 5.0]), maxfev=20000)
    except (RuntimeError, ValueError):
        return math.nan
    return float(a)


def within(curve: np.ndarray, plateau: float, share: float) -> int:
    """The first epoch whose error is within ``share`` (relative) of ``plateau``."""
    hits = np.flatnonzero(curve <= plateau * (1 + share))
    return int(hits[0]) if hits.size else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--dataset", choices=("digits", "mnist-5k"), default="digits",
                        help="the images whose task 1 is trained --epochs long (default: "
                             "digits)")
    parser.add_argument("--results", default=str(RESULTS_DIR),
                        help="folder of the stored grids (default: the checkout's results/)")
    args = parser.parse_args()
    if args.epochs < 200 or args.seeds < 1:
        parser.error("--epochs must be at least 200 (epoch 100 and a plateau of the last 100 "
                     "epochs after it) and --seeds at least 1")

    print("1. stored Fig. 9A curves: task 1's test error")
    folder = Path(args.results)
    for label, path in (("mnist-5k", grid_path(folder, "fig9A")),
                        ("digits", grid_path(folder / "digits", "fig9A"))):
        if not path.is_file():
            print(f"   {label}: {path} not stored")
            continue
        for j, curve in enumerate(stored_task1(path)):
            print(f"   {label} seed {j}: epoch 50 {curve[50]:.4f}, 90 {curve[90]:.4f}, "
                  f"100 {curve[100]:.4f}; fall over the last 10 epochs "
                  f"{tail_fall(curve, 10):.1%}, last 20 {tail_fall(curve, 20):.1%}; "
                  f"fitted plateau (epochs 20-100) {fit_plateau(curve):.4f}")

    params = resolve_pmnist_params("vanilla", rho_a=0.8, rho_b=0.2, dataset=args.dataset,
                                   epochs=args.epochs, task2_epochs=1, seeds=args.seeds,
                                   seed=ROOT_SEED)
    per_epoch = params["n_train"] // params["batch"]  # the last partial batch is dropped
    paper_epoch = math.ceil(PAPER_STEPS / per_epoch)
    print(f"\n2. {args.dataset} task 1 trained {args.epochs} epochs ({per_epoch} SGD steps "
          f"each; the paper's {PAPER_STEPS:,} steps at epoch {paper_epoch:,})")
    for j in range(args.seeds):
        start = time.perf_counter()
        curve = train_first_task(params, sample_seed(ROOT_SEED, 0, j)).task1_errors
        spent = time.perf_counter() - start
        plateau = float(curve[-100:].mean())
        fitted = fit_plateau(curve)
        marks = sorted({e for e in (100, 200, 500, 1000, 2000, 5000, paper_epoch)
                        if e < len(curve)})
        print(f"   seed {j}: test error at epochs "
              + ", ".join(f"{e}: {curve[e]:.4f}" for e in marks))
        print(f"   seed {j} ({spent:.0f} s): epoch 100 {curve[100]:.4f}, plateau (last 100 "
              f"epochs) {plateau:.4f} (min {curve.min():.4f} at epoch {int(curve.argmin())}); "
              f"epoch 100 is {(curve[100] - plateau) / plateau:+.1%} above the plateau"
              + (f", epoch {paper_epoch:,} (the paper's steps) "
                 f"{(curve[paper_epoch] - plateau) / plateau:+.1%}"
                 if paper_epoch < len(curve) else "") + "; "
              f"within 5 % from epoch {within(curve, plateau, 0.05)}, within 1 % from "
              f"{within(curve, plateau, 0.01)}; the fit to epochs 20-100 predicts "
              f"{fitted:.4f} ({(fitted - plateau) / plateau:+.1%} of the measured plateau)")


if __name__ == "__main__":
    main()
