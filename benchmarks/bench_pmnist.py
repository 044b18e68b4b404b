"""Benchmark of the permuted-digits network experiment (Sec. 7; tasksim.solvers.pmnist).

Prints:

1. digits (the offline default protocol: Nx = 64, Nh = 128, batch 7, 205 SGD steps per
   epoch): the time of one training epoch of each method (best of ``--repeats``) and of one
   run of the protocol (100 + 10 epochs). Requirement: an epoch under 0.5 s on 2 cores;
2. MNIST at the paper's sizes (Nx = 784, Nh = 1500, Ny = 10, batch 300, 60000 training and
   10000 test images): the time of one epoch as the protocol runs it (200 SGD steps and the
   test error of both tasks) beside the time of the same epoch's matrix products alone
   (the floor: the same products on preallocated arrays, nothing else), for vanilla in
   float32 and float64 and for the layer-wise Fisher regularizer (whose metric adds the
   products M dW_1 C and dW_2 S to every step). Requirement: an epoch within 1.5x of its
   floor. The images are synthetic (MNIST's shape and about its share of lit pixels: the
   products' cost does not depend on the pixel values) unless ``--data-dir`` names MNIST's
   IDX files;
3. the estimated time of the paper's Fig. 6A/B grid (vanilla, an 11 x 11 grid of
   (rho_a, rho_b) as in Fig. 1D, 10 seeds, 100 epochs of task 1 and 100 of task 2, or 10 of
   task 2 when only retention at 10 is wanted) on 2 cores: two worker processes with one BLAS
   thread each, each run at the measured epoch time;
4. float32 against float64 on the digits protocol: the largest difference in transfer and
   retention over seeds, beside the standard error over seeds.

Run: ``python benchmarks/bench_pmnist.py [--repeats 3] [--steps N] [--data-dir DIR]``.
``--steps N`` times N SGD steps of the MNIST epoch and scales to 200 (faster, noisier).
BLAS runs on one thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say otherwise.
Timings depend on the machine and its load (``uptime`` is printed); every number is measured.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy is imported

import argparse  # noqa: E402
import time  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

from tasksim.solvers.pmnist.idx import load_mnist  # noqa: E402
from tasksim.solvers.pmnist import (PROTOCOLS, resolve_pmnist_params,  # noqa: E402
                                    run_two_tasks, simulate_pmnist)
from tasksim.solvers.pmnist.data import digits_images  # noqa: E402
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
    params = resolve_pmnist_params("vanilla", rho_a=0.5, rho_b=0.5, task2_epochs=10)
    seconds = best_time(lambda: run_two_tasks(params, np.random.SeedSequence(0)), 1)
    print(f"   one run of the protocol (vanilla, 100 + 10 epochs, test errors every epoch): "
          f"{seconds:.2f} s")


def mnist_arrays(data_dir: str | None) -> tuple[np.ndarray, np.ndarray, str]:
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
    protocol = PROTOCOLS["mnist"]
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


def fig6_grid_estimate(epoch_seconds: float) -> None:
    runs = 11 * 11 * 10
    print("3. the paper's Fig. 6A/B grid (vanilla, 11 x 11 (rho_a, rho_b), 10 seeds = "
          f"{runs} runs) on 2 cores (2 processes, 1 BLAS thread each), at "
          f"{epoch_seconds:.2f} s per epoch:")
    for task2, why in ((100, "the paper's 100 epochs of task 2"),
                       (10, "task 2 stopped at 10 epochs, where retention is measured")):
        per_run = (100 + task2) * epoch_seconds
        total = runs * per_run / 2
        print(f"   {why}: {per_run / 60:.1f} min per run, {total / 3600:.0f} h "
              f"({total / 86400:.1f} days) for the grid")


def precision_check(seeds: int) -> None:
    print(f"4. float32 against float64, digits protocol (100 + 10 epochs), {seeds} seeds, "
          "(rho_a, rho_b) = (0.5, 0.5):")
    for method, options in (("vanilla", {}), ("fisher-layerwise", {"lam": 1.0})):
        runs = {d: simulate_pmnist(method, rho_a=0.5, rho_b=0.5, seeds=seeds, seed=0,
                                   task2_epochs=10, dtype=d, **options)
                for d in ("float32", "float64")}
        diff = np.abs(runs["float32"].samples - runs["float64"].samples).max(axis=0)
        ref = runs["float64"]
        print(f"   {method:17s} largest |float32 - float64|: transfer {diff[0]:.1e}, "
              f"retention {diff[1]:.1e}; standard error over seeds: {ref.transfer.sem:.3f}, "
              f"{ref.retention.sem:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200, help="SGD steps timed per MNIST epoch")
    parser.add_argument("--data-dir", help="MNIST's IDX files (default: synthetic images)")
    parser.add_argument("--seeds", type=int, default=4, help="seeds of the precision check")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} (1, 5, 15 min); BLAS threads: "
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}")
    digits_epochs(max(args.repeats, 5))
    train_x, test_x, source = mnist_arrays(args.data_dir)
    steps = min(args.steps, len(train_x) // PROTOCOLS["mnist"].batch)
    print(f"2. MNIST at the paper's sizes ({source}; {steps} of 200 SGD steps timed, best of "
          f"{args.repeats}), one epoch = SGD + test errors of both tasks:")
    vanilla32 = None
    for dtype, name in ((np.float32, "vanilla"), (np.float64, "vanilla"),
                        (np.float32, "fisher-layerwise")):
        epoch, floor = mnist_epoch(train_x, test_x, dtype=dtype, penalty_name=name,
                                   steps=steps, repeats=args.repeats)
        if dtype is np.float32 and name == "vanilla":
            vanilla32 = epoch
        print(f"   {name:17s} {np.dtype(dtype).name}: epoch {epoch:6.2f} s, matrix products "
              f"alone {floor:6.2f} s, ratio {epoch / floor:.2f} (requirement: <= 1.5)")
    fig6_grid_estimate(vanilla32)
    precision_check(args.seeds)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
