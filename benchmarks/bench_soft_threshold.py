"""Benchmark and measurements for the input soft-thresholding model (Sec. 4.3, Appendix B).

Prints, at the paper's sizes (Nx = 3000, Ns = 30, Ny = 10, two tasks; Appendix D: 5,000
steps per task, eta = 0.01):

1. the time per seed of the paper's protocol with exact expected gradients (closed-form GD),
   with a breakdown: covariance, eigendecomposition, GD (+ errors);
2. the cost of the literal protocol (10,000 sampled latents per step), measured on a few
   steps and extrapolated to a seed; ``--literal`` runs one full seed and compares it with
   the exact-gradient result;
3. the error of replacing sampling by exact moments: the Hermite-series truncation bound
   and the measured largest difference between the series and the closed form;
4. Delta eps_TF and Delta eps_RT (eq_def_delta_epsilon_TF_RT, exact mean over B given A,
   mean over seeds of A) for alpha in {0.1, 0.3, 0.6, 0.9} against alpha = 1 (vanilla, same
   tasks), for the exact gradient-flow limit and for the paper's GD protocol;
5. a diagnosis of the deviation: the same with the input covariance cut to its linear
   Hermite term, and to the linear term plus the diagonal excess E[phi^2] - (first term)
   that the paper drops (the "ridge-like" term).

Run: ``python benchmarks/bench_soft_threshold.py [--seeds 2] [--quick] [--literal]``.
Timings depend on the machine and on its load; every number is computed, none typed in.
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Callable

import numpy as np

from solvers.soft_threshold import (
    SoftThresholdProblem,
    prepare_soft_threshold,
    solve_soft_threshold,
    task_spectrum,
)
from solvers.soft_threshold_moments import (
    diagonal_moment,
    input_moments,
    soft_threshold,
    threshold_from_sparsity,
)
from solvers.soft_threshold_sampled import sampled_gradient
from solvers.tasks import draw_tasks

NX, NS, NY = 3000, 30, 10
N_STEPS, ETA, BATCH = 5000, 0.01, 10000
ALPHAS = (0.1, 0.3, 0.6, 0.9)


def _timed(fn: Callable, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def _paper_tasks(rho_a: float, rho_b: float, seed: int, generator: str = "appendix"):
    return draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=rho_a, rho_b=rho_b, generator=generator,
                      seed=seed)


def time_one_seed(alpha: float, seed: int) -> None:
    tasks = _paper_tasks(0.5, 0.5, seed)
    moments, spectra = [], []
    t_cov = t_eig = 0.0
    for A in tasks.A:
        m, dt = _timed(input_moments, A, alpha)
        t_cov += dt
        s, dt = _timed(task_spectrum, m)
        t_eig += dt
        moments.append(m)
        spectra.append(s)
    problem = SoftThresholdProblem(tasks, alpha, tuple(spectra))
    gd, t_gd = _timed(solve_soft_threshold, problem, method="gd", n_steps=N_STEPS, eta=ETA)
    exact, t_exact = _timed(solve_soft_threshold, problem, method="exact")
    total = t_cov + t_eig + t_gd
    print(f"  seed {seed}, alpha = {alpha}: {total:6.2f} s per seed "
          f"(covariance {t_cov:5.2f} s, eigendecomposition {t_eig:5.2f} s, "
          f"GD + errors {t_gd:5.2f} s); exact limit from the same spectra +{t_exact:.2f} s")
    lam = [s.eigenvalues for s in spectra]
    print(f"    eigenvalues of C_phiphi: task 1 in [{lam[0][0]:.3g}, {lam[0][-1]:.4g}], "
          f"task 2 in [{lam[1][0]:.3g}, {lam[1][-1]:.4g}]; eta * T * lambda_min = "
          f"{ETA * N_STEPS * min(l[0] for l in lam):.3g}")


def time_sampled_protocol(alpha: float, n_probe: int = 5) -> None:
    tasks = _paper_tasks(0.5, 0.5, 0)
    h = threshold_from_sparsity(alpha)
    rng = np.random.default_rng(0)
    W = np.zeros((NY, NX))
    A, B = tasks.A[0], tasks.B[0]
    sampled_gradient(W, A, B, h, rng.standard_normal((NS, BATCH)))  # warm-up
    t0 = time.perf_counter()
    for _ in range(n_probe):
        latents = rng.standard_normal((NS, BATCH))
        W = W - ETA * sampled_gradient(W, A, B, h, latents)
    per_step = (time.perf_counter() - t0) / n_probe

    def sampled_error(chunk: int = (1 << 20) // NX):  # the published code also estimates
        S = rng.standard_normal((BATCH, NS))       # both errors every step (same layout and
        total = 0.0                                # chunking as sampled_gradient)
        for c0 in range(0, BATCH, chunk):
            Z = S[c0:c0 + chunk]
            phi = soft_threshold(Z @ A.T, h)
            total += float(np.sum((Z @ B.T - phi @ W.T) ** 2))
        return total / BATCH / NY

    _, per_eval = _timed(sampled_error)
    steps = 2 * N_STEPS
    print(f"  literal protocol, {BATCH} latents per step: {per_step:.3f} s per step (mean of "
          f"{n_probe}) -> {per_step * steps / 60:.1f} min per seed for {steps} steps "
          f"({per_step * steps / 3600:.2f} h); with the published code's per-step sampled "
          f"evaluation of both errors (+{2 * per_eval:.3f} s per step): "
          f"{(per_step + 2 * per_eval) * steps / 60:.1f} min per seed")


def replacement_error(alpha_values=(0.1, 0.3, 0.6, 0.9)) -> None:
    A = _paper_tasks(0.0, 0.0, 0).A[0]
    directions = A / np.linalg.norm(A, axis=1, keepdims=True)
    corr = directions @ directions.T
    np.fill_diagonal(corr, 0.0)
    print(f"  max |r_ik| over {NX * (NX - 1) // 2} pairs: {np.abs(corr).max():.3f}")
    for alpha in alpha_values:
        default = input_moments(A, alpha)
        closed = input_moments(A, alpha, series_radius=0.0)
        diff = float(np.abs(default.second - closed.second).max())
        scale = float(default.second.diagonal().max())
        print(f"  alpha = {alpha}: series order {default.series_order} for |r| <= "
              f"{default.series_radius}, closed form for {default.closed_form_pairs} pairs "
              f"({default.closed_form_pairs / (NX * (NX - 1) / 2):.2%}); truncation bound "
              f"{default.truncation_bound:.2e}, measured max |series - closed| {diff:.2e} "
              f"(largest entry {scale:.3g})")


def _mean_tr(results):
    tr = [r.transfer_retention() for r in results]
    return (np.mean([x.transfer for x in tr]), np.mean([x.retention for x in tr]),
            np.std([x.transfer for x in tr]), np.std([x.retention for x in tr]))


def invariance(pairs, seeds, generator: str) -> None:
    print(f"  generator {generator!r}, {len(seeds)} seeds of A; Delta = value(alpha) - value(1) "
          "on the same tasks (mean over seeds +- sd of the paired difference)")
    for rho_a, rho_b in pairs:
        tf0 = rho_a * (2 * rho_b - rho_a)
        rt0 = 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1)
        print(f"  rho_a = {rho_a}, rho_b = {rho_b}: eq_epsilon_vanilla TF = {tf0:.4f}, "
              f"RT = {rt0:.4f}")
        rows = {m: {a: [] for a in (1.0,) + ALPHAS} for m in ("exact", "gd")}
        residual = {a: [] for a in (1.0,) + ALPHAS}
        for seed in seeds:
            tasks = _paper_tasks(rho_a, rho_b, seed, generator)
            for alpha in (1.0,) + ALPHAS:
                problem = prepare_soft_threshold(tasks, alpha)
                for method in ("exact", "gd"):
                    res = solve_soft_threshold(problem, method=method, n_steps=N_STEPS, eta=ETA)
                    tr = res.transfer_retention()
                    rows[method][alpha].append((tr.transfer, tr.retention))
                    if method == "gd":
                        residual[alpha].append(res.expected_errors[0, 1])
        for method in ("exact", "gd"):
            base = np.array(rows[method][1.0])
            print(f"    {method:5s} alpha = 1.0: TF {base[:, 0].mean():+.4f}  "
                  f"RT {base[:, 1].mean():+.4f}")
            for alpha in ALPHAS:
                vals = np.array(rows[method][alpha])
                d = vals - base
                print(f"    {method:5s} alpha = {alpha}: TF {vals[:, 0].mean():+.4f} "
                      f"(Delta {d[:, 0].mean():+.4f} +- {d[:, 0].std():.4f})  "
                      f"RT {vals[:, 1].mean():+.4f} (Delta {d[:, 1].mean():+.4f} +- "
                      f"{d[:, 1].std():.4f})")
        print("    E_B eps_1[W_1] after the paper's protocol (0 at leading order): "
              + ", ".join(f"alpha {a}: {np.mean(residual[a]):.4f}" for a in (1.0,) + ALPHAS))


def _variant(problem: SoftThresholdProblem, keep: str) -> SoftThresholdProblem:
    """The same tasks with C_phiphi cut to its linear Hermite term (``"linear"``) or to the
    linear term plus the diagonal excess (``"linear+diagonal"``)."""
    spectra = []
    for spectrum in problem.spectra:
        m = spectrum.moments
        # first Hermite term: c1_i c1_k (A A^T)_ik = (X^T X)_ik, since X = A^T diag(c1)
        second = m.cross.T @ m.cross
        if keep == "linear+diagonal":
            second[np.diag_indices_from(second)] = diagonal_moment(m.sigma, m.h)
        spectra.append(task_spectrum(dataclasses.replace(m, second=second)))
    return dataclasses.replace(problem, spectra=tuple(spectra))


def diagnosis(rho_a: float, rho_b: float, seed: int) -> None:
    tasks = _paper_tasks(rho_a, rho_b, seed)
    print(f"  rho_a = {rho_a}, rho_b = {rho_b}, seed {seed}: TF / RT by the input covariance "
          "used for training and evaluation")
    for alpha in (1.0,) + ALPHAS:
        full = prepare_soft_threshold(tasks, alpha)
        cells = []
        for name, problem in (("linear", _variant(full, "linear")),
                              ("linear+diag", _variant(full, "linear+diagonal")),
                              ("full", full)):
            for method in ("exact", "gd"):
                tr = solve_soft_threshold(problem, method=method, n_steps=N_STEPS,
                                          eta=ETA).transfer_retention()
                cells.append(f"{name}/{method} {tr.transfer:+.3f}/{tr.retention:+.3f}")
        print(f"    alpha = {alpha}: " + "  ".join(cells))


def literal_seed(alpha: float, rho_a: float, rho_b: float, seed: int) -> None:
    tasks = _paper_tasks(rho_a, rho_b, seed)
    problem = prepare_soft_threshold(tasks, alpha)
    gd = solve_soft_threshold(problem, method="gd", n_steps=N_STEPS, eta=ETA)
    sampled, dt = _timed(solve_soft_threshold, problem, method="sampled", n_steps=N_STEPS,
                         eta=ETA, batch_size=BATCH, seed=seed)
    a = gd.transfer_retention(average_over_b=False)
    b = sampled.transfer_retention(average_over_b=False)
    rel = max(np.linalg.norm(x - y) / max(np.linalg.norm(y), 1e-300)
              for x, y in zip(sampled.weights[1:], gd.weights[1:]))
    print(f"  literal seed at alpha = {alpha}, rho_a = {rho_a}, rho_b = {rho_b} took "
          f"{dt / 60:.1f} min: drawn-B TF / RT sampled {b.transfer:+.4f} / {b.retention:+.4f}"
          f" vs exact-gradient {a.transfer:+.4f} / {a.retention:+.4f}; max relative weight "
          f"difference {rel:.2e}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds of A per (rho_a, rho_b)")
    parser.add_argument("--quick", action="store_true", help="timings and errors only")
    parser.add_argument("--literal", action="store_true",
                        help="also run one full seed of the literal sampled protocol (slow)")
    parser.add_argument("--generator", default="appendix", choices=("appendix", "gaussian"))
    args = parser.parse_args(argv)

    print(f"Paper sizes: Nx = {NX}, Ns = {NS}, Ny = {NY}, two tasks, {N_STEPS} steps per "
          f"task, eta = {ETA}")
    print("\n1. The paper's protocol with exact expected gradients (closed-form GD)")
    for seed in range(max(1, min(args.seeds, 2))):
        time_one_seed(0.3, seed)
    print("\n2. The literal protocol (sampled gradients)")
    time_sampled_protocol(0.3)
    print("\n3. Error of the exact-moment replacement (entries of C_phiphi)")
    replacement_error()
    if args.quick:
        return
    print("\n4. Transfer and retention against alpha = 1 (vanilla), exact mean over B")
    pairs = [(1.0, 0.0), (0.5, 0.5), (0.8, 0.9), (0.3, 1.0)]
    invariance(pairs, list(range(args.seeds)), args.generator)
    print("\n5. Which part of C_phiphi makes the difference")
    diagnosis(0.5, 0.5, 0)
    if args.literal:
        print("\n6. One full seed of the literal protocol")
        literal_seed(0.3, 0.5, 0.5, 0)


if __name__ == "__main__":
    main()
