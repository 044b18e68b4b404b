"""The fully sampled path: Monte Carlo estimates of the errors, to cross-check the exact ones.

The exact errors of ``tasksim.solvers.metrics`` use eps_mu[W] = (1/Ny) ||B_mu - W F_mu||_F^2, the
closed form of the mean over the latent s (eq_ap_epsilonW), and the exact second moment of the
readouts. Here nothing is taken in closed form: latents s ~ N(0, I_Ns) are drawn,
x = A_mu s, the network's input psi(x) = g_mu * x under activity gating (x otherwise),
y* = B_mu s and y = W psi(x) with the explicit Ny x Nx weight; the error is the sample mean of
||y* - y||^2 / Ny, reported with its standard error. :func:`draw_readouts` redraws the readouts
with the task generators' rule, to check the expectation over B as well.

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=60, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
>>> mean, se = sampled_error(np.zeros((2, 60)), t.A[0], t.B[0], n_samples=20000, seed=1)
>>> exact = float(np.sum(t.B[0] ** 2) / 2)   # eps_1[W_0] = ||B_1||^2 / Ny
>>> bool(abs(mean - exact) < 4 * se)
True
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .rng import Seed, as_generator
from .solution import Solution, weights
from .span import parse_name
from .tasks import check_generator, correlated_successor
from .validation import check_positive_int, check_unit_interval


__all__ = ["draw_readouts", "sampled_error", "sampled_error_matrix"]

_BATCH = 2048


def draw_readouts(*, ny: int, ns: int, rho_b: float, n_tasks: int = 2,
                  generator: str = "appendix", seed: Seed = None) -> tuple[np.ndarray, ...]:
    """Fresh readouts B_1 .. B_n (Ny x Ns) with the rule of ``tasksim.solvers.tasks`` (Appendix A).

    Examples
    --------
    >>> B = draw_readouts(ny=2, ns=3, rho_b=1.0, seed=0)
    >>> bool((B[0] == B[1]).all()), B[0].shape
    (True, (2, 3))
    """
    ny = check_positive_int("ny", ny)
    ns = check_positive_int("ns", ns)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    rho_b = check_unit_interval("rho_b", rho_b)
    check_generator(generator)
    rng = as_generator(seed)
    B = [rng.standard_normal((ny, ns)) / np.sqrt(ns)]
    for _ in range(n_tasks - 1):
        B.append(correlated_successor(B[-1], rho_b, generator, rng))
    return tuple(B)


def sampled_error(weight: np.ndarray, A: np.ndarray, B: np.ndarray,
                  gate: Optional[np.ndarray] = None, *, n_samples: int,
                  seed: Seed = None) -> tuple[float, float]:
    """(mean, standard error) of ||B s - W psi(A s)||^2 / Ny over ``n_samples`` latents s.

    ``gate`` is the activity gate g (psi(x) = g * x); None for psi(x) = x. Memory
    O(batch Nx) with batches of 2048 latents.

    Examples
    --------
    >>> A, B = np.eye(3)[:, :2], np.ones((1, 2))
    >>> mean, se = sampled_error(np.zeros((1, 3)), A, B, n_samples=4000, seed=0)
    >>> bool(abs(mean - 2.0) < 4 * se)                 # eps[0] = ||B||^2 / Ny = 2
    True
    """
    n_samples = check_positive_int("n_samples", n_samples)
    if n_samples < 2:
        raise ValueError(f"n_samples must be at least 2 for a standard error, got {n_samples}")
    W = np.asarray(weight, dtype=float)
    ny, nx = W.shape
    if A.shape[0] != nx or B.shape != (ny, A.shape[1]):
        raise ValueError(f"shapes do not chain: W {W.shape}, A {A.shape}, B {B.shape}")
    rng = as_generator(seed)
    values = np.empty(n_samples)
    for start in range(0, n_samples, _BATCH):
        m = min(_BATCH, n_samples - start)
        s = rng.standard_normal((m, A.shape[1]))
        x = s @ A.T
        if gate is not None:
            x *= np.asarray(gate, dtype=float)[None, :]
        r = s @ B.T - x @ W.T
        values[start:start + m] = np.einsum("ij,ij->i", r, r) / ny
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(n_samples))


def sampled_error_matrix(solution: Solution, *, n_samples: int, seed: Seed = None,
                         readouts: Optional[Sequence[np.ndarray]] = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """(mean, standard error) matrices estimating eps_mu[W_nu] (shape (n, n + 1)) by sampling.

    The weights are the solution's, formed explicitly (``tasksim.solvers.linear_models.weights``) on
    ``readouts`` (default: the solution's own); the same latents serve every W_nu of a task.
    Compare with ``tasksim.solvers.metrics.readout_error_matrix``.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> from tasksim.solvers.linear_models import solve
    >>> from tasksim.solvers.metrics import readout_error_matrix
    >>> s = solve("vanilla", draw_tasks(nx=40, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0))
    >>> mean, se = sampled_error_matrix(s, n_samples=5000, seed=1)
    >>> bool(np.all(np.abs(mean - readout_error_matrix(s)) <= 4.5 * se + 1e-12))
    True
    """
    if solution.explicit is None:
        raise ValueError("sampling needs explicit matrices; this solution came from Features")
    readouts = solution.readouts if readouts is None else tuple(readouts)
    W = weights(solution, readouts)
    rng = as_generator(seed)
    n = solution.n_tasks
    mean = np.empty((n, n + 1))
    se = np.empty((n, n + 1))
    for mu in range(1, n + 1):
        _, gate_index, task = parse_name(solution.seen[mu - 1])
        A = solution.explicit.task(task)
        gate = None if gate_index is None else solution.explicit.gate(gate_index)
        task_seed = int(rng.integers(2**63))  # common latents for every W_nu of task mu
        for nu, Wnu in enumerate(W):
            mean[mu - 1, nu], se[mu - 1, nu] = sampled_error(
                Wnu, A, readouts[mu - 1], gate, n_samples=n_samples, seed=task_seed)
    return mean, se
