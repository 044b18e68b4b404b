"""Errors of the linear models, transfer and retention, and the adaptive-gating probe.

The error of weight W on task mu (eq_ap_epsilonW) is
eps_mu[W] = (1/Ny) <||B_mu s - W psi(A_mu s)||^2>_s = (1/Ny) ||B_mu - W F_mu||_F^2 with F_mu
the input the network sees (D_mu A_mu under activity gating, A_mu otherwise). For
W = Y C X^T (``tasksim.solvers.linear_models``) the residual is B_mu - W F_mu = Y R with
R = E_mu - C X^T F_mu, so

    eps_mu[W] = tr(R^T S R),   S = Y^T Y / Ny,

and the expectation over the readouts given A is exact: E_B[Y^T Y] / Ny = T(rho_b) kron I_Ns / Ns
with T the tasks' correlation matrix (:func:`readout_second_moment`): T_{mu nu} =
rho_b^{|mu - nu|} in the ``chain`` structure, rho_b off the diagonal in the ``shared`` one
(``tasksim.solvers.tasks.task_correlation``). Both generators of ``tasksim.solvers.tasks`` have
these second moments: under ``appendix`` an entry of B_nu equals the entry of B_mu (nu > mu)
when it was kept at every step in between (probability rho_b^{nu - mu}) and is independent of
it otherwise; under ``gaussian`` the chain B_nu = rho_b B_{nu-1} + sqrt(1 - rho_b^2) Z gives
the same correlation; the shared parent gives rho_b to every pair.

Two tasks are evaluated entry by entry (the two-task toolkit's numbers, bit for bit). Longer
sequences are evaluated for all tasks at once: for each weight W_nu the residuals of every
task are R = I - Q_nu with Q_nu = C_nu X^T [F_1 .. F_n], updated by each step's rank-Ns change
of C (or, without it, from the rows and columns where C_nu is nonzero), and the Kronecker form
of E_B[Y^T Y] is applied as an n x n product, never as an (n Ns) x (n Ns) one.

Transfer and retention (eq_def_delta_epsilon_TF_RT, general mu): with W_0 = 0,
Delta eps^TF_mu = eps_mu[W_0] - eps_mu[W_{mu-1}] (mu = 2..n) and
Delta eps^RT_mu = eps_mu[W_0] - eps_mu[W_{mu+1}] (mu = 1..n-1); for two tasks these are the
paper's Delta eps_TF = eps_2[W_0] - eps_2[W_1] and Delta eps_RT = eps_1[W_0] - eps_1[W_2].
These are the per-sample quantities; the paper's <.>_{A,B} is their mean over draws.

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> from tasksim.solvers.linear_models import solve
>>> t = draw_tasks(nx=2000, ns=5, ny=2, rho_a=0.0, rho_b=0.0, seed=0)
>>> E = error_matrix(solve("vanilla", t), rho_b=0.0)
>>> np.round(E, 2)                    # rows: tasks 1, 2; columns: W_0, W_1, W_2
array([[1., 0., 0.],
       [1., 1., 0.]])
>>> tf, rt = transfer_retention(E)
>>> bool(abs(tf[0]) < 0.01), bool(abs(rt[0] - 1) < 0.01)   # independent tasks
(True, True)
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from .fixed_points import selector
from .solution import Solution
from .span import Span
from .tasks import task_correlation
from .validation import check_positive_int

__all__ = [
    "readout_second_moment",
    "sampled_readout_moment",
    "coefficient_error",
    "error_matrix",
    "task_error",
    "readout_error_matrix",
    "transfer_retention",
    "probe_error",
]


def readout_second_moment(rho_b: float, n_tasks: int, ns: int,
                          structure: str = "chain") -> np.ndarray:
    """E_B[Y^T Y] / Ny = T(rho_b) kron I_Ns / Ns for Y = [B_1 .. B_n], T the tasks' correlation
    matrix (``chain``: T_{mu nu} = rho_b^|mu-nu|; ``shared``: rho_b off the diagonal).

    Examples
    --------
    >>> readout_second_moment(0.5, 2, 1)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    ns = check_positive_int("ns", ns)
    T = task_correlation(rho_b, n_tasks, structure, name="rho_b")
    return np.kron(T, np.eye(ns)) / ns


def sampled_readout_moment(readouts: Sequence[np.ndarray]) -> np.ndarray:
    """Y^T Y / Ny for the given readouts Y = [B_1 .. B_n].

    Examples
    --------
    >>> sampled_readout_moment([np.ones((2, 1)), np.zeros((2, 1))])
    array([[1., 0.],
           [0., 0.]])
    """
    Y = np.hstack([np.asarray(B, dtype=float) for B in readouts])
    return Y.T @ Y / Y.shape[0]


def coefficient_error(C: np.ndarray, span: Span, block: str, mu: int,
                      moment: np.ndarray) -> float:
    """tr(R^T S R) with R = E_mu - C X^T X_block: the error on task ``mu`` of W = Y C X^T
    when the network sees block ``block`` as input, S = ``moment`` (E[Y^T Y]/Ny or Y^T Y/Ny).

    Examples
    --------
    >>> from tasksim.solvers.span import Span
    >>> span = Span(("A1",), np.eye(2), nx=5, ns=2)
    >>> coefficient_error(np.zeros((2, 2)), span, "A1", 1, readout_second_moment(0.0, 1, 2))
    1.0
    """
    ns = span.ns
    n = C.shape[0] // ns
    R = selector(mu, n, ns) - C @ span.column(block)
    return float(np.einsum("ij,ij->", R, moment @ R))


def _moment(solution: Solution, rho_b: Optional[float]) -> np.ndarray:
    if rho_b is None:
        if solution.readouts is None:
            raise ValueError("this solution has no sampled readouts (Features path): give rho_b")
        return sampled_readout_moment(solution.readouts)
    return readout_second_moment(rho_b, solution.n_tasks, solution.ns)


def _errors_all_tasks(solution: Solution,
                      times_moment: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The error matrix with every task at once; ``times_moment(R)`` is S R (module docstring).

    The products Q_nu = C_nu X^T [F_1 .. F_n] follow the solver's rank-Ns steps when it kept
    them, Q_nu = Q_{nu-1} + r_nu (M_nu X^T [F_1 .. F_n]): O(n Ns (k Ns)(n Ns)) per weight
    instead of O((n Ns)^2 (k Ns)).
    """
    n, ns, span = solution.n_tasks, solution.ns, solution.span
    seen = np.concatenate([span.column(block) for block in solution.seen], axis=1)
    E = np.empty((n, n + 1))
    stepwise = solution.updates is not None and len(solution.updates) == n
    Q = np.zeros((n * ns, n * ns))  # Q_0 = 0: W_0 = 0
    for nu, C in enumerate(solution.coefficients):
        if nu > 0 and stepwise:
            residual, readout = solution.updates[nu - 1]
            rows = np.flatnonzero(np.any(residual != 0.0, axis=1))
            cols = np.flatnonzero(np.any(readout != 0.0, axis=0))
            Q[rows] += residual[rows] @ (readout[:, cols] @ seen[cols])
        elif nu > 0:
            rows = np.flatnonzero(np.any(C != 0.0, axis=1))
            cols = np.flatnonzero(np.any(C != 0.0, axis=0))
            Q = np.zeros((n * ns, n * ns))
            Q[rows] = C[np.ix_(rows, cols)] @ seen[cols]
        R = np.negative(Q)
        R.flat[::n * ns + 1] += 1.0  # R = I - Q
        per_column = np.einsum("ic,ic->c", R, times_moment(R))
        E[:, nu] = per_column.reshape(n, ns).sum(axis=1)
    return E


def _times_kronecker(correlation: np.ndarray, ns: int) -> Callable[[np.ndarray], np.ndarray]:
    """R -> (T kron I_Ns / Ns) R, as an n x n product on the task index."""
    n = correlation.shape[0]
    scaled = correlation / ns

    def apply(R: np.ndarray) -> np.ndarray:
        return (scaled @ R.reshape(n, -1)).reshape(R.shape)

    return apply


def _errors(solution: Solution, moment: np.ndarray) -> np.ndarray:
    n = solution.n_tasks
    E = np.empty((n, n + 1))
    for mu in range(1, n + 1):
        for nu, C in enumerate(solution.coefficients):
            E[mu - 1, nu] = coefficient_error(C, solution.span, solution.seen[mu - 1], mu, moment)
    return E


def error_matrix(solution: Solution, rho_b: float, structure: str = "chain") -> np.ndarray:
    """E[mu - 1, nu] = E_B eps_mu[W_nu] given A (and gates), exact; shape (n, n + 1), W_0 = 0.

    The readouts' correlations follow ``structure`` (``chain`` or ``shared``). For adaptive
    gating with the sampled probe the gates depend on B; this averages over B with the gates
    held at their drawn values (see :func:`readout_error_matrix` for the error on the readouts
    actually drawn).

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> from tasksim.solvers.linear_models import solve
    >>> t = draw_tasks(nx=100, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
    >>> E = error_matrix(solve("vanilla", t), rho_b=0.5)
    >>> E[:, 0]                       # eps_mu[W_0] = E ||B_mu||^2 / Ny = 1
    array([1., 1.])
    """
    if solution.n_tasks == 2:
        return _errors(solution, readout_second_moment(rho_b, 2, solution.ns, structure))
    correlation = task_correlation(rho_b, solution.n_tasks, structure, name="rho_b")
    return _errors_all_tasks(solution, _times_kronecker(correlation, solution.ns))


def task_error(solution: Solution, rho_b: float, mu: int, nu: int,
               structure: str = "chain") -> float:
    """eps_mu[W_nu] alone: the entry [mu - 1, nu] of :func:`error_matrix` (the same to
    rounding), at the cost of one product with the readouts' second moment instead of the
    whole matrix (a check that reads one error of a long sequence).

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> from tasksim.solvers.linear_models import solve
    >>> s = solve("vanilla", draw_tasks(nx=100, ns=3, ny=2, rho_a=0.5, rho_b=0.5, n_tasks=3,
    ...                                 seed=0))
    >>> bool(np.isclose(task_error(s, 0.5, 1, 3), error_matrix(s, 0.5)[0, 3], rtol=1e-12))
    True
    """
    moment = readout_second_moment(rho_b, solution.n_tasks, solution.ns, structure)
    return coefficient_error(solution.coefficients[nu], solution.span, solution.seen[mu - 1],
                             mu, moment)


def readout_error_matrix(solution: Solution) -> np.ndarray:
    """E[mu - 1, nu] = eps_mu[W_nu] on the solution's own sampled readouts (exact in s).

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> from tasksim.solvers.linear_models import solve
    >>> t = draw_tasks(nx=100, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
    >>> E = readout_error_matrix(solve("vanilla", t))
    >>> bool(np.isclose(E[1, 0], np.sum(t.B[1] ** 2) / 2))
    True
    """
    moment = _moment(solution, None)
    if solution.n_tasks == 2:
        return _errors(solution, moment)
    return _errors_all_tasks(solution, lambda R: moment @ R)


def transfer_retention(errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(transfer, retention) from an error matrix E (shape (n, n + 1), :func:`error_matrix`).

    ``transfer[i]`` is Delta eps^TF for task i + 2, ``retention[i]`` Delta eps^RT for task
    i + 1 (eq_def_delta_epsilon_TF_RT); both have length n - 1.

    Examples
    --------
    >>> E = np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]])
    >>> transfer_retention(E)
    (array([0.4]), array([0.7]))
    """
    E = np.asarray(errors, dtype=float)
    if E.ndim != 2 or E.shape[1] != E.shape[0] + 1 or E.shape[0] < 2:
        raise ValueError(f"errors must have shape (n, n + 1) with n >= 2, got {E.shape}")
    n = E.shape[0]
    transfer = np.array([E[mu - 1, 0] - E[mu - 1, mu - 1] for mu in range(2, n + 1)])
    retention = np.array([E[mu - 1, 0] - E[mu - 1, mu + 1] for mu in range(1, n)])
    return transfer, retention


def probe_error(solution: Solution, switch: int, *, expected: bool = False,
                rho_b: Optional[float] = None,
                readouts: Optional[Sequence[np.ndarray]] = None,
                structure: str = "chain") -> tuple[float, float]:
    """(eps_pb, eps_o) at the switch from task ``switch`` to task ``switch + 1`` (Appendix B.1).

    eps_pb = (1/Ny) ||B_{mu+1} - W_mu D_mu A_{mu+1}||^2, eps_o = (1/Ny) ||B_{mu+1}||^2 on the
    sampled readouts (the solution's, or ``readouts``); with ``expected=True`` both are exact
    expectations over B given A and the gates (then eps_o = 1), which needs ``rho_b`` (and the
    readouts' ``structure``). The solution's span must hold the block ``D<mu>A<mu+1>``.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> from tasksim.solvers.linear_models import solve
    >>> t = draw_tasks(nx=400, ns=3, ny=2, rho_a=1.0, rho_b=1.0, seed=0)
    >>> s = solve("adaptive-gating", t, alpha=0.5, seed=0)
    >>> eps_pb, eps_o = probe_error(s, 1)
    >>> bool(eps_pb < 1e-20), s.gate_correlations   # identical tasks: the gate is kept
    (True, (1.0,))
    """
    n = solution.n_tasks
    if not 1 <= switch < n:
        raise ValueError(f"switch must be an integer in [1, {n - 1}], got {switch!r}")
    block = f"D{switch}A{switch + 1}"
    if block not in solution.span.names:
        raise ValueError(f"the solution's span lacks block {block!r} needed by the probe")
    if expected:
        if rho_b is None:
            raise ValueError("the expected probe error needs rho_b")
        moment = readout_second_moment(rho_b, n, solution.ns, structure)
    else:
        readouts = solution.readouts if readouts is None else readouts
        if readouts is None:
            raise ValueError("this solution has no sampled readouts: use expected=True")
        moment = sampled_readout_moment(readouts)
    C = solution.coefficients[switch]
    zero = np.zeros_like(C)
    eps_pb = coefficient_error(C, solution.span, block, switch + 1, moment)
    eps_o = coefficient_error(zero, solution.span, block, switch + 1, moment)
    if not eps_o > 0.0:
        raise ValueError(f"eps_o = ||B_{switch + 1}||^2 / Ny is zero: rho_g is undefined")
    return eps_pb, eps_o
