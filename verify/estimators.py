"""Measurements with tasksim's exact solvers, in the shape the theory answers in.

A claim's value and its measurement share one result type (the neural-tangents habit): a
:class:`Pair` of :class:`tasksim.solvers.sweep.Estimate` (transfer, retention). Theory gives an
estimate with sem 0 and n = 0 (:func:`theory_pair`); a measurement gives the mean over
independent samples and its standard error. Every sample draws its own task matrices (or
their Gram matrix), gates and readouts from its own seed; errors are averaged *exactly* over
the readouts B given A (:func:`tasksim.solvers.metrics.error_matrix`) wherever the model allows it, so
the only sampling noise is that of A and the gates.

Measurements
------------
:func:`transfer_retention`
    :func:`tasksim.solvers.api.simulate` (the public API): Wishart-sampled Gram matrices for the
    Gaussian generator and the models that allow it (cost independent of Nx), explicit
    matrices otherwise, or the paper's GD protocol (``method="gd"``).
:func:`convergence_series`
    the same at several Ns/(alpha Nx), for the convergence property tests.
:func:`explicit_transfer_retention`
    explicit task matrices and :func:`tasksim.solvers.linear_models.solve`, for what ``simulate``
    does not expose: the first task's regularization (``first_task``) and the adaptive
    gate's expected probe (``probe="expected"``), with the probe errors eps_pb.
:func:`uniform_prior_average`
    the average over a uniform prior on (rho_a, rho_b) in [0, 1]^2: each sample draws its
    own similarities and one task pair (a Gram matrix where the model allows it).
:func:`task_batch`, :func:`gate_batch`
    many independent task pairs / gates at once from the toolkit's own generators, for
    Monte Carlo of expressions of the task matrices.

Examples
--------
>>> p = transfer_retention("vanilla", rho_a=0.8, rho_b=0.2, nx=8 * 10**6, ns=8, samples=50,
...                        seed=0)
>>> t = theory_pair("vanilla.transfer", "vanilla.retention", rho_a=0.8, rho_b=0.2)
>>> abs(p.transfer.mean - t.transfer.mean) < 5 * p.transfer.sem + 1e-4
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from tasksim.solvers.api import simulate
from tasksim.solvers.gram import sample_features
from tasksim.solvers.linear_models import required_blocks, solve, solve_features
from tasksim.solvers.metrics import error_matrix, transfer_retention as errors_to_transfer_retention
from tasksim.solvers.rng import Seed, as_generator, spawn
from tasksim.solvers.sweep import Estimate
from tasksim.solvers.tasks import draw_gates, draw_tasks

from . import theory

__all__ = [
    "Pair",
    "theory_pair",
    "small_parameter",
    "transfer_retention",
    "convergence_series",
    "explicit_transfer_retention",
    "AdaptiveMeasurement",
    "adaptive_gating",
    "uniform_prior_average",
    "task_batch",
    "gate_batch",
    "estimate",
]


@dataclass(frozen=True)
class Pair:
    """Transfer and retention (eq_def_delta_epsilon_TF_RT), measured or predicted."""

    transfer: Estimate
    retention: Estimate


def estimate(values: np.ndarray) -> Estimate:
    """Mean and standard error of independent samples."""
    return Estimate.from_samples(np.asarray(values, dtype=float))


def _exact(value: float) -> Estimate:
    return Estimate(float(value), 0.0, 0)


def theory_pair(transfer_id: str, retention_id: str, *, which: str = "leading",
                **params: float) -> Pair:
    """The registry's prediction: claims ``transfer_id`` and ``retention_id`` evaluated at
    ``params`` (``which``: ``"leading"``, ``"derived"`` or ``"printed"``)."""
    return Pair(_exact(theory.function(transfer_id, which)(**params)),
                _exact(theory.function(retention_id, which)(**params)))


def small_parameter(nx: int, ns: int, alpha: Optional[float] = None) -> float:
    """Ns/(alpha Nx), the paper's small parameter (alpha = 1 without gates)."""
    return ns / ((1.0 if alpha is None else alpha) * nx)


def transfer_retention(model: str, *, rho_a: float, rho_b: float, nx: int, ns: int,
                       samples: int, seed: int, alpha: Optional[float] = None,
                       gamma: Optional[float] = None, lam: Optional[float] = None,
                       generator: str = "gaussian", method: str = "exact",
                       ny: int = 10) -> Pair:
    """Transfer and retention of ``model`` through :func:`tasksim.solvers.api.simulate`."""
    result = simulate(model, rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma, lam=lam,
                      nx=nx, ns=ns, ny=ny, seeds=samples, seed=seed, generator=generator,
                      method=method)
    return Pair(result.transfer, result.retention)


def convergence_series(model: str, *, rho_a: float, rho_b: float, ns: int, seed: int,
                       inverse_scales: tuple[int, ...], samples: int,
                       alpha: Optional[float] = None, gamma: Optional[float] = None,
                       generator: str = "gaussian") -> tuple[list[float], list[Pair]]:
    """Transfer and retention at Ns/(alpha Nx) = 1/r for r in ``inverse_scales``
    (Nx = round(r Ns / alpha)); returns the realised small parameters and the measurements."""
    scales, pairs = [], []
    for k, r in enumerate(inverse_scales):
        nx = int(round(r * ns / (1.0 if alpha is None else alpha)))
        scales.append(small_parameter(nx, ns, alpha))
        pairs.append(transfer_retention(model, rho_a=rho_a, rho_b=rho_b, nx=nx, ns=ns,
                                        samples=samples, seed=seed + k, alpha=alpha,
                                        gamma=gamma, generator=generator))
    return scales, pairs


def explicit_transfer_retention(model: str, *, rho_a: float, rho_b: float, nx: int, ns: int,
                                samples: int, seed: int, alpha: Optional[float] = None,
                                gamma: Optional[float] = None, lam: Optional[float] = None,
                                first_task: Optional[str] = None,
                                generator: str = "gaussian", ny: int = 2) -> Pair:
    """Transfer and retention from explicit task matrices and
    :func:`tasksim.solvers.linear_models.solve`, exact over B given A (``first_task`` as there)."""
    rows = []
    for child in spawn(seed, samples):
        rng = as_generator(child)
        tasks = draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=rho_a, rho_b=rho_b, generator=generator,
                           seed=rng)
        solution = solve(model, tasks, alpha=alpha, gamma=gamma, lam=lam, seed=rng,
                         first_task=first_task)
        tf, rt = errors_to_transfer_retention(error_matrix(solution, rho_b))
        rows.append((tf[0], rt[0]))
    values = np.array(rows)
    return Pair(estimate(values[:, 0]), estimate(values[:, 1]))


@dataclass(frozen=True)
class AdaptiveMeasurement:
    """Adaptive activity gating: transfer and retention, the probe error eps_pb and the gate
    correlation rho_g it set (Appendix B.1)."""

    pair: Pair
    probe_error: Estimate
    gate_correlation: Estimate


def adaptive_gating(*, rho_a: float, rho_b: float, alpha: float, nx: int, ns: int,
                    samples: int, seed: int, probe: str = "expected",
                    generator: str = "gaussian", ny: int = 2) -> AdaptiveMeasurement:
    """Adaptive gating from explicit matrices. With ``probe="expected"`` the probe error is
    the exact mean over B given A and the gates, the gates do not depend on the drawn B, and
    the errors are exact over B; with ``"sampled"`` (the paper's rule) everything is on the
    drawn readouts."""
    from tasksim.solvers.metrics import readout_error_matrix

    rows = []
    for child in spawn(seed, samples):
        rng = as_generator(child)
        tasks = draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=rho_a, rho_b=rho_b, generator=generator,
                           seed=rng)
        solution = solve("adaptive-gating", tasks, alpha=alpha, seed=rng, probe=probe)
        E = error_matrix(solution, rho_b) if probe == "expected" else \
            readout_error_matrix(solution)
        tf, rt = errors_to_transfer_retention(E)
        pb = solution.probe_errors[0] / solution.probe_baselines[0]
        rows.append((tf[0], rt[0], pb, solution.gate_correlations[0]))
    v = np.array(rows)
    return AdaptiveMeasurement(Pair(estimate(v[:, 0]), estimate(v[:, 1])), estimate(v[:, 2]),
                               estimate(v[:, 3]))


def uniform_prior_average(model: str, *, nx: int, ns: int, samples: int, seed: int,
                          alpha: Optional[float | Callable[[float, float], float]] = None,
                          lam: Optional[float] = None) -> Pair:
    """The average of transfer and retention over rho_a, rho_b ~ U[0, 1] (Appendix B.1,
    "Average error under a uniform prior"): sample j draws (rho_a, rho_b) from its own seed,
    then one task pair, and averages exactly over B.

    ``alpha`` may be a function of (rho_a, rho_b) (e.g. the optimal gating level alpha*).
    Models solvable from a Gram matrix use one Wishart-sampled Gram (Gaussian generator);
    ``adaptive-gating`` draws explicit matrices and uses the expected probe.
    """
    rows = []
    for child in spawn(seed, samples):
        rng = as_generator(child)
        rho_a_j, rho_b_j = (float(x) for x in rng.random(2))
        level = alpha(rho_a_j, rho_b_j) if callable(alpha) else alpha
        kwargs = {k: v for k, v in (("alpha", level), ("lam", lam)) if v is not None}
        if model == "adaptive-gating":
            tasks = draw_tasks(nx=nx, ns=ns, ny=2, rho_a=rho_a_j, rho_b=rho_b_j,
                               generator="gaussian", seed=rng)
            solution = solve(model, tasks, seed=rng, probe="expected", **kwargs)
        else:
            features = sample_features(nx=nx, ns=ns, rho_a=rho_a_j,
                                       names=required_blocks(model, 2), alpha=level,
                                       n_tasks=2, seed=rng)
            solution = solve_features(model, features, n_tasks=2, **kwargs)
        tf, rt = errors_to_transfer_retention(error_matrix(solution, rho_b_j))
        rows.append((tf[0], rt[0]))
    v = np.array(rows)
    return Pair(estimate(v[:, 0]), estimate(v[:, 1]))


def task_batch(*, samples: int, nx: int, ns: int, rho_a: float, generator: str,
               seed: Seed) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` independent pairs (A_1, A_2), each Nx x Ns, as arrays of shape
    (samples, nx, ns), drawn by :func:`tasksim.solvers.tasks.draw_tasks` (entries are independent
    across rows under both generators, so one draw of samples * nx rows is cut in blocks)."""
    tasks = draw_tasks(nx=samples * nx, ns=ns, ny=1, rho_a=rho_a, rho_b=0.0,
                       generator=generator, seed=seed)
    return (tasks.A[0].reshape(samples, nx, ns), tasks.A[1].reshape(samples, nx, ns))


def gate_batch(*, samples: int, nx: int, alpha: float, rho_g: float,
               seed: Seed) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` independent gate pairs (g_1, g_2) of length Nx (:func:`draw_gates`), as
    float arrays of shape (samples, nx)."""
    g1, g2 = draw_gates(nx=samples * nx, alpha=alpha, n_tasks=2, rho_g=rho_g, seed=seed)
    return (g1.reshape(samples, nx).astype(float), g2.reshape(samples, nx).astype(float))
