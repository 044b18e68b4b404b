"""The solver benchmark behind ``tasksim bench`` and ``benchmarks/bench_solvers.py``.

Three measurements, returned as plain numbers (printing is the CLI's):

1. :func:`appendix_scaling` -- vanilla, exact fixed points, two tasks, appendix generator:
   cost per sample (drawing A_1, A_2, B_1, B_2 and solving) at Nx = 10^3 .. 10^6, Ns = 30,
   the exponent of a least-squares fit of log cost against log Nx, and the share of the time
   spent drawing the task matrices. The solver works in the span of the tasks, O(Nx Ns^2):
   the cost may grow at most linearly in Nx.
2. :func:`wishart_scaling` -- the same model under the gaussian generator through the
   Wishart-sampled Gram (solvers/gram.py): cost per sample at Nx = 10^3 and 10^6, which
   should not grow with Nx.
3. the finite-size probe (:mod:`tasksim.solvers.probe_benchmark`): the vanilla probe at
   Nx = 10^3 .. 10^6 with 2000 seeds per Nx on two processes (time, cost ratio), and 10^6
   samples of the vanilla Gram path against the arithmetic floor (the issue's count, 1.04
   MFLOP per sample at Ns = 30, "about 1.2"), and 10^5 of the random-gating one (four gate
   classes) against its own floor, with where the time goes (the random draws, and the rest
   against the arithmetic the path needs: tasksim.solvers.probe_benchmark).
4. :func:`fig1_exact_vs_gd` -- the Fig. 1 numerics (a 6 x 6 grid of (rho_a, rho_b) in
   {0, 0.2, .., 1}, 10 seeds, Nx = 3000, Ns = 30, Ny = 10, gaussian generator, vanilla) by
   exact fixed points and by the paper's GD protocol (100 epochs per task, eta = 0.001;
   tasksim.solvers.gd), both timed including the drawing of the tasks, side by side in one run; the
   speed-up and the largest difference between the two over the grid.

The exact path of (3) is vectorized over seeds: one batched Wishart draw per grid point and
the closed form of :func:`vanilla_transfer_retention_batch` (batched 30 x 30 solves). The GD
path draws explicit matrices and runs :func:`tasksim.solvers.gd.gradient_descent`; its errors are on
the drawn readouts B, while the exact path averages over B exactly, so their means over 10
seeds differ by sampling noise; the z-scores of the differences are reported with them.
To separate that noise from GD's own error, the exact fixed points are also evaluated on GD's
own draws (A and B; not timed), and the largest per-sample difference is reported.

Timings are wall-clock (``time.perf_counter``) on a shared machine: they vary from run to run.

``run_benchmark(quick=True)`` returns the figures by name: ``appendix_scaling``,
``fig1_exact_vs_gd``, ``gram_throughput``, ``gram_throughput_gated``,
``gram_throughput_plasticity``, ``machine``, ``probe_scaling``, ``quick`` and
``wishart_scaling`` (``tasksim bench --quick``; tests/test_cli.py runs it and checks each).
"""
from __future__ import annotations

import math
import os
import platform
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .gram import sample_features, sample_gram
from .rng import as_generator
from .sweep import sample_seed
from .tasks import draw_tasks
from .validation import check_positive_int, check_unit_interval

__all__ = [
    "vanilla_transfer_retention_batch",
    "appendix_scaling",
    "wishart_scaling",
    "fig1_exact",
    "fig1_exact_vs_gd",
    "run_benchmark",
]

Log = Optional[Callable[[str], None]]


def _say(log: Log, line: str) -> None:
    if log is not None:
        log(line)


def vanilla_transfer_retention_batch(grams: np.ndarray, ns: int, rho_b: float) -> tuple[np.ndarray, np.ndarray]:
    """Vanilla transfer and retention, exact over B, from a batch of Grams of (A_1, A_2).

    With W_1 = B_1 A_1^+ and W_2 = W_1 (I - U_2 U_2^T) + B_2 A_2^+ (eq_gd_fp_vanilla), for
    A_1, A_2 of full column rank (Ns < Nx, almost surely): M = A_1^+ A_2 = G_11^{-1} G_12,
    N = A_2^+ A_1 = G_22^{-1} G_21, B_2 - W_1 A_2 = B_2 - B_1 M and
    B_1 - W_2 A_1 = B_1 M N - B_2 N. With E[B_mu^T B_nu] / Ny = rho_b^{|mu - nu|} I / Ns,

        Delta eps_TF = (2 rho_b tr M - ||M||_F^2) / Ns,
        Delta eps_RT = 1 - (||M N||_F^2 - 2 rho_b tr(N^T M^T N) + ||N||_F^2) / Ns.

    ``grams`` has shape (batch, 2 Ns, 2 Ns), blocks ordered (A1, A2). A vectorized special
    case of tasksim.solvers.linear_models + tasksim.solvers.metrics (tested equal to them), for the benchmark.

    Examples
    --------
    >>> g = sample_gram(nx=10**6, ns=3, rho_a=1.0, size=2, seed=0)
    >>> tf, rt = vanilla_transfer_retention_batch(g, 3, rho_b=1.0)
    >>> np.round(tf, 9).tolist(), np.round(rt, 9).tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    grams = np.asarray(grams, dtype=float)
    ns = check_positive_int("ns", ns)
    rho_b = check_unit_interval("rho_b", rho_b)
    if grams.ndim != 3 or grams.shape[1:] != (2 * ns, 2 * ns):
        raise ValueError(f"grams must have shape (batch, {2 * ns}, {2 * ns}), got {grams.shape}")
    g11, g12 = grams[:, :ns, :ns], grams[:, :ns, ns:]
    g21, g22 = grams[:, ns:, :ns], grams[:, ns:, ns:]
    M = np.linalg.solve(g11, g12)
    N = np.linalg.solve(g22, g21)
    MN = M @ N
    trace_m = np.trace(M, axis1=1, axis2=2)
    transfer = (2.0 * rho_b * trace_m - np.sum(M * M, axis=(1, 2))) / ns
    cross = np.sum(MN * N, axis=(1, 2))  # tr((MN)^T N)
    eps1_w2 = (np.sum(MN * MN, axis=(1, 2)) - 2.0 * rho_b * cross + np.sum(N * N, axis=(1, 2))) / ns
    return transfer, 1.0 - eps1_w2


def _vanilla_exact_explicit(tasks: Any) -> tuple[float, float]:
    from .linear_models import solve
    from .metrics import error_matrix, transfer_retention

    tf, rt = transfer_retention(error_matrix(solve("vanilla", tasks), tasks.rho_b))
    return float(tf[0]), float(rt[0])


def _vanilla_exact_drawn_readouts(tasks: Any) -> tuple[float, float]:
    """Exact fixed points, errors on the drawn B (what GD converges to on the same draw)."""
    from .linear_models import solve
    from .metrics import readout_error_matrix, transfer_retention

    tf, rt = transfer_retention(readout_error_matrix(solve("vanilla", tasks)))
    return float(tf[0]), float(rt[0])


def _fit_exponent(x: Sequence[float], y: Sequence[float]) -> float:
    slope, _ = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
    return float(slope)


def appendix_scaling(
    nxs: Sequence[int] = (10**3, 10**4, 10**5, 10**6),
    *,
    ns: int = 30,
    ny: int = 10,
    budget: float = 1.0,
    min_repeats: int = 2,
    max_repeats: int = 50,
    seed: int = 0,
    log: Log = None,
) -> dict[str, Any]:
    """Cost per sample of vanilla, exact, two tasks, appendix generator, against Nx.

    Each size is repeated until ``budget`` seconds are spent (at least ``min_repeats``, at
    most ``max_repeats`` times), after one untimed warm-up sample. Returns per-sample total
    and drawing times, the drawing share, and fitted exponents of log cost against log Nx:
    of the total (all sizes, and the two largest) and of the solve alone (total - drawing).
    """
    totals, draws, repeats = [], [], []
    _vanilla_exact_explicit(draw_tasks(nx=100, ns=ns, ny=ny, rho_a=0.5, rho_b=0.5, seed=0))
    for nx in nxs:
        spent_draw = spent_total = 0.0
        n = 0
        while n < min_repeats or (spent_total < budget and n < max_repeats):
            t0 = time.perf_counter()
            tasks = draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=0.5, rho_b=0.5,
                               generator="appendix", seed=sample_seed(seed, nx, n))
            t1 = time.perf_counter()
            _vanilla_exact_explicit(tasks)
            t2 = time.perf_counter()
            del tasks
            spent_draw += t1 - t0
            spent_total += t2 - t0
            n += 1
        totals.append(spent_total / n)
        draws.append(spent_draw / n)
        repeats.append(n)
        _say(log, f"appendix generator, Nx = {nx}: {1e3 * totals[-1]:.2f} ms per sample "
                  f"({n} samples)")
    return {
        "ns": ns,
        "nx": list(map(int, nxs)),
        "seconds_per_sample": totals,
        "draw_seconds_per_sample": draws,
        "draw_share": [d / t for d, t in zip(draws, totals)],
        "repeats": repeats,
        "exponent": _fit_exponent(nxs, totals),
        "exponent_largest_two": _fit_exponent(nxs[-2:], totals[-2:]),
        "solve_exponent": _fit_exponent(nxs, [t - d for t, d in zip(totals, draws)]),
    }


def wishart_scaling(
    nxs: Sequence[int] = (10**3, 10**6),
    *,
    ns: int = 30,
    budget: float = 1.0,
    max_repeats: int = 200,
    seed: int = 0,
    log: Log = None,
) -> dict[str, Any]:
    """Cost per sample of vanilla, exact, gaussian generator via the Wishart-sampled Gram
    (tasksim.solvers.gram.sample_features + tasksim.solvers.linear_models.solve_features + the exact error)."""
    from .linear_models import solve_features
    from .metrics import error_matrix, transfer_retention

    costs, repeats = [], []
    solve_features("vanilla", sample_features(nx=100, ns=ns, rho_a=0.5, seed=0), n_tasks=2)
    for nx in nxs:
        n, spent = 0, 0.0
        while n < 1 or (spent < budget and n < max_repeats):
            t0 = time.perf_counter()
            features = sample_features(nx=nx, ns=ns, rho_a=0.5, seed=sample_seed(seed, nx, n))
            transfer_retention(error_matrix(solve_features("vanilla", features, n_tasks=2), 0.5))
            spent += time.perf_counter() - t0
            n += 1
        costs.append(spent / n)
        repeats.append(n)
        _say(log, f"Wishart path, Nx = {nx}: {1e3 * costs[-1]:.3f} ms per sample ({n} samples)")
    return {"ns": ns, "nx": list(map(int, nxs)), "seconds_per_sample": costs,
            "repeats": repeats, "ratio": costs[-1] / costs[0]}


def fig1_exact(*, grid: int = 6, seeds: int = 10, nx: int = 3000, ns: int = 30, seed: int = 0
               ) -> tuple[np.ndarray, float]:
    """The Fig. 1 grid by exact fixed points, the batched benchmark path: one batched Wishart
    draw per grid point and :func:`vanilla_transfer_retention_batch`. Returns the samples
    (grid^2 points, seeds, (transfer, retention)) and the wall-clock seconds."""
    rhos = np.linspace(0.0, 1.0, grid)
    points = [(float(a), float(b)) for a in rhos for b in rhos]
    t0 = time.perf_counter()
    exact = np.empty((len(points), seeds, 2))
    for i, (rho_a, rho_b) in enumerate(points):
        grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, size=seeds, seed=sample_seed(seed, i, 0))
        tf, rt = vanilla_transfer_retention_batch(grams, ns, rho_b)
        exact[i, :, 0], exact[i, :, 1] = tf, rt
    return exact, time.perf_counter() - t0


def fig1_exact_vs_gd(
    *,
    grid: int = 6,
    seeds: int = 10,
    nx: int = 3000,
    ns: int = 30,
    ny: int = 10,
    epochs: int = 100,
    eta: float = 0.001,
    seed: int = 0,
    log: Log = None,
) -> dict[str, Any]:
    """The Fig. 1 sweep by exact fixed points (vectorized) and by the GD protocol, timed."""
    from .gd import gradient_descent

    rhos = np.linspace(0.0, 1.0, grid)
    points = [(float(a), float(b)) for a in rhos for b in rhos]

    exact, exact_seconds = fig1_exact(grid=grid, seeds=seeds, nx=nx, ns=ns, seed=seed)
    _say(log, f"Fig. 1 sweep, exact: {exact_seconds:.3f} s")

    gd = np.empty((len(points), seeds, 2))
    same_draws = np.empty((len(points), seeds, 2))  # exact fixed points on GD's own draws
    gd_seconds = 0.0
    for i, (rho_a, rho_b) in enumerate(points):
        for j in range(seeds):
            t0 = time.perf_counter()
            rng = as_generator(sample_seed(seed + 1, i, j))
            tasks = draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=rho_a, rho_b=rho_b,
                               generator="gaussian", seed=rng)
            curves = gradient_descent("vanilla", tasks, eta=eta, epochs=epochs, seed=rng)
            E = curves.errors  # E[t, nu - 1] = eps_nu[W(t)] on the drawn B; W(0) = 0
            gd[i, j, 0] = E[0, 1] - E[epochs, 1]
            gd[i, j, 1] = E[0, 0] - E[2 * epochs, 0]
            gd_seconds += time.perf_counter() - t0
            same_draws[i, j] = _vanilla_exact_drawn_readouts(tasks)  # untimed cross-check
        _say(log, f"Fig. 1 sweep, GD: {i + 1}/{len(points)} grid points, {gd_seconds:.1f} s")

    difference = np.abs(gd.mean(axis=1) - exact.mean(axis=1))
    sem = np.hypot(gd.std(axis=1, ddof=1), exact.std(axis=1, ddof=1)) / math.sqrt(seeds)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sem > 0, difference / sem, np.where(difference > 1e-12, np.inf, 0.0))
    return {
        "grid": f"{grid} x {grid}",
        "rho_values": rhos.tolist(),
        "seeds": seeds, "nx": nx, "ns": ns, "ny": ny, "epochs": epochs, "eta": eta,
        "exact_seconds": exact_seconds,
        "gd_seconds": gd_seconds,
        "speedup": gd_seconds / exact_seconds,
        "max_transfer_difference": float(difference[:, 0].max()),
        "max_retention_difference": float(difference[:, 1].max()),
        "max_transfer_z": float(z[:, 0].max()),
        "max_retention_z": float(z[:, 1].max()),
        "max_transfer_difference_same_draws": float(np.abs(gd - same_draws)[..., 0].max()),
        "max_retention_difference_same_draws": float(np.abs(gd - same_draws)[..., 1].max()),
    }


def _blas_threads() -> int:
    """The largest thread count of the BLAS libraries loaded here (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return max((pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"),
               default=1)


def run_benchmark(*, quick: bool = False, seed: int = 0, log: Log = None) -> dict[str, Any]:
    """All the measurements (the requirements' sizes, or small ones with ``quick``)."""
    from .probe_benchmark import gram_throughput, matrix_product_rate, probe_scaling

    if quick:
        appendix = appendix_scaling((10**3, 10**4), budget=0.05, min_repeats=1, seed=seed,
                                    log=log)
        wishart = wishart_scaling((10**3, 10**6), budget=0.05, seed=seed, log=log)
        scaling = probe_scaling((10**3, 10**6), seeds=250, repeats=1, log=log)
        throughput = gram_throughput(samples=5000, log=log)
        gated = gram_throughput(samples=2000, model="random-gating", alpha=0.5, log=log)
        plastic = gram_throughput(samples=2000, model="plasticity-gating", alpha=0.5, log=log)
        fig1 = fig1_exact_vs_gd(grid=2, seeds=3, nx=1000, ns=10, ny=5, seed=seed, log=log)
    else:
        appendix = appendix_scaling(seed=seed, log=log)
        wishart = wishart_scaling(seed=seed, log=log)
        scaling = probe_scaling(log=log)
        # one rate for both floors, the best over a longer window (a loaded machine's short
        # measurements scatter)
        rate = matrix_product_rate(seconds=2.0)
        throughput = gram_throughput(rate=rate, log=log)
        gated = gram_throughput(samples=10**5, model="random-gating", alpha=0.5, rate=rate,
                                log=log)
        plastic = gram_throughput(samples=10**5, model="plasticity-gating", alpha=0.5,
                                  rate=rate, log=log)
        fig1 = fig1_exact_vs_gd(seed=seed, log=log)
    return {
        "quick": quick,
        "appendix_scaling": appendix,
        "wishart_scaling": wishart,
        "probe_scaling": scaling,
        "gram_throughput": throughput,
        "gram_throughput_gated": gated,
        "gram_throughput_plasticity": plastic,
        "fig1_exact_vs_gd": fig1,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "numpy": np.__version__,
                    "blas_threads": _blas_threads()},
    }
