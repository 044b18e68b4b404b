"""The input soft-thresholding model solved exactly, and by the paper's protocol, given A.

Sec. 4.3 and Appendix B (subsec_appndix_input_soft_thresholding). Student y = W phi(x),
phi(x) = sgn(x) max{0, |x| - h}, h = sqrt(2) erfcinv(alpha); task mu has x = A_mu s,
y* = B_mu s, s ~ N(0, I_Ns). With C_mu = E[phi phi^T] and X_mu = E[s phi^T] computed exactly
given A_mu (:mod:`tasksim.solvers.soft_threshold_moments`), the error is exact and quadratic in W:

    eps_mu[W] = (1/Ny) (||B_mu||_F^2 + tr(W C_mu W^T) - 2 tr(B_mu X_mu W^T)).

Training minimises 1/2 E||y* - W phi||^2 whose gradient is W C_mu - B_mu X_mu (the
normalisation of the authors' published code and of the vanilla flow dW/dt = -(WA - B)A^T;
the paper's eps has an extra 2/Ny, which would only rescale eta). Three methods, all from
W_0 = 0, one task after another:

``"exact"``
    The gradient-flow limit from W_{mu-1}: W_mu = W_{mu-1} (I - P_mu) + B_mu X_mu C_mu^+,
    with P_mu the projector on the range of C_mu: eigenvalues above ``rank_rtol`` times the
    largest (default Nx * machine epsilon, numpy's matrix_rank rule). The paper's
    eq for W after soft-thresholding is this with C ~ alpha^2 A A^T, X ~ alpha A^T.
``"gd"``
    The paper's protocol (Appendix D: 5,000 steps, eta = 0.01 per task) with the exact
    expected gradient, in closed form through C_mu = V diag(lambda) V^T:
    W_T V = W_0 V diag((1 - eta lambda)^T) + B X V diag((1 - (1 - eta lambda)^T) / lambda)
    (the second factor is eta T where lambda = 0). Requires eta lambda_max < 2.
``"sampled"``
    The paper's literal protocol: each step's gradient from ``batch_size`` fresh latents
    (:mod:`tasksim.solvers.soft_threshold_sampled`). For small sizes and cross-checks.

For alpha < 1, C_mu is positive definite in practice: beyond its linear Hermite term
X_mu^T X_mu (rank Ns), its diagonal carries the excess E[phi(m_i)^2] - (X_mu^T X_mu)_ii
(0.049 at alpha = 0.3, sigma_i = 1), a ridge-like term that the paper's leading order drops,
and its Hermite terms r^3, r^5, ... span R^Nx. So the ``"exact"`` limit forgets the part of
W_{mu-1} outside the span of A_mu entirely, and ``"gd"`` shrinks it by about
(1 - eta * excess)^T; along the smallest eigenvalues (~3e-4 at alpha = 0.1 and paper
sizes) 5,000 steps at eta = 0.01 barely move W, so ``"exact"`` and ``"gd"`` differ.

The result carries errors for the drawn B and, for ``"exact"`` and ``"gd"``, their exact
expectation over B given A: W_nu is linear in B_1..B_nu, W_nu = sum_k B_k M_{k nu}, and
E[B_k^T B_l] = (Ny / Ns) T_kl I for both task generators (T_kl = rho_b^|k - l| in the
``chain`` structure, rho_b for k != l in the ``shared`` one), so

    E_B eps_mu[W_nu] = 1 + (1/Ns) sum_{k,l} T_kl tr(M_k C_mu M_l^T)
                         - (2/Ns) sum_k T_k mu tr(X_mu M_k^T).

Cost per task: the covariance (O(Nx^2 Ns)), one symmetric eigendecomposition (O(Nx^3)),
and O((Ny + n_tasks Ns) Nx^2) for the updates and errors; memory O(Nx^2) per task.

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=60, ns=3, ny=2, rho_a=1.0, rho_b=1.0, seed=0)
>>> res = soft_threshold_solution(t, 0.5, method="exact")
>>> res.errors.shape                      # errors[mu, nu] = eps_{mu+1}[W_nu], nu = 0, 1, 2
(2, 3)
>>> bool(0 < res.errors[0, 1] < 0.05 * res.errors[0, 0])  # phi is nonlinear: not exact
True
>>> tr = res.transfer_retention()         # identical tasks: W_2 = W_1, nothing forgotten
>>> bool(abs(tr.transfer - tr.retention) < 1e-9)
True
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Optional

import numpy as np
import scipy.linalg

from .rng import Seed, as_generator
from .soft_threshold_moments import InputMoments, input_moments
from .soft_threshold_sampled import sampled_gradient_descent
from .tasks import TaskSequence, task_correlation
from .validation import check_open_unit_interval, check_positive_int

__all__ = [
    "METHODS",
    "TaskSpectrum",
    "SoftThresholdProblem",
    "SoftThresholdResult",
    "TransferRetention",
    "task_spectrum",
    "prepare_soft_threshold",
    "task_error",
    "solve_soft_threshold",
    "soft_threshold_solution",
    "transfer_retention",
]

METHODS: tuple[str, ...] = ("exact", "gd", "sampled")


@dataclass(frozen=True)
class TaskSpectrum:
    """The exact moments of one task and the eigendecomposition of its input covariance.

    ``eigenvalues`` are ascending and clipped at 0 (C is positive semi-definite; rounding
    makes some of its zero eigenvalues slightly negative, down to ``smallest_raw``).
    ``eigenvectors`` is Nx x k: all Nx of them for alpha < 1; for the linear model
    (alpha = 1) the k = Ns left singular vectors of A, the orthogonal complement being C's
    null space (never formed).
    """

    moments: InputMoments
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    smallest_raw: float

    @property
    def largest(self) -> float:
        return float(self.eigenvalues[-1]) if self.eigenvalues.size else 0.0


def task_spectrum(moments: InputMoments) -> TaskSpectrum:
    """Eigendecompose C = E[phi phi^T] (LAPACK ``syevd``; O(Nx^3) time, O(Nx^2) memory).

    For the linear model (alpha = 1), C = A A^T: the thin SVD of A gives its nonzero part in
    O(Nx Ns^2) time and O(Nx Ns) memory.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).standard_normal((20, 2)) / np.sqrt(2)
    >>> s = task_spectrum(input_moments(A, 1.0))     # phi = identity: C = A A^T, rank 2
    >>> int(np.sum(s.eigenvalues > 1e-10 * s.largest))
    2
    """
    if moments.linear:
        U, singular, _ = np.linalg.svd(moments.cross.T, full_matrices=False)
        order = np.argsort(singular)
        values = singular[order] ** 2
        smallest = float(values[0]) if U.shape[1] == moments.nx else 0.0
        return TaskSpectrum(moments, values, U[:, order], smallest)
    values, vectors = scipy.linalg.eigh(moments.second, driver="evd")
    return TaskSpectrum(moments, np.maximum(values, 0.0), vectors, float(values[0]))


@dataclass(frozen=True)
class SoftThresholdProblem:
    """A task sequence at sparsity ``alpha`` with every task's spectrum computed."""

    tasks: TaskSequence
    alpha: float
    spectra: tuple[TaskSpectrum, ...]

    @property
    def h(self) -> float:
        return self.spectra[0].moments.h

    @property
    def truncation_bound(self) -> float:
        """Largest truncation bound on an entry of any task's covariance."""
        return max(s.moments.truncation_bound for s in self.spectra)


def _check_tasks(tasks: object) -> TaskSequence:
    if not isinstance(tasks, TaskSequence):
        raise ValueError(f"tasks must be a TaskSequence (tasksim.solvers.tasks.draw_tasks), got "
                         f"{type(tasks).__name__}")
    if len(tasks.A) != len(tasks.B) or not tasks.A:
        raise ValueError(f"tasks must hold as many A as B matrices (at least one), got "
                         f"{len(tasks.A)} and {len(tasks.B)}")
    for mu, (A, B) in enumerate(zip(tasks.A, tasks.B), start=1):
        if A.shape != tasks.A[0].shape or B.shape != tasks.B[0].shape or A.shape[1] != B.shape[1]:
            raise ValueError(f"tasks: A_{mu} is {A.shape} and B_{mu} is {B.shape}; every A must "
                             "be Nx x Ns and every B Ny x Ns")
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
            raise ValueError(f"tasks: A_{mu} and B_{mu} must have finite entries")
    return tasks


def prepare_soft_threshold(
    tasks: TaskSequence, alpha: float, *, rtol: float = 1e-13
) -> SoftThresholdProblem:
    """Moments (:func:`input_moments`) and spectra (:func:`task_spectrum`) of every task.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> p = prepare_soft_threshold(draw_tasks(nx=30, ns=2, ny=1, rho_a=0.5, rho_b=0.5,
    ...                                       seed=0), 0.4)
    >>> len(p.spectra), round(p.h, 6)
    (2, 0.841621)
    """
    tasks = _check_tasks(tasks)
    alpha = check_open_unit_interval("alpha", alpha)
    spectra = tuple(task_spectrum(input_moments(A, alpha, rtol=rtol)) for A in tasks.A)
    return SoftThresholdProblem(tasks, alpha, spectra)


def task_error(W: np.ndarray, B: np.ndarray, moments: InputMoments) -> float:
    """eps[W] = (1/Ny) E_s ||B s - W phi(A s)||^2, exact given A (Appendix B).

    (1/Ny) (||B||_F^2 + tr(W C W^T) - 2 tr(B X W^T)), X = E[s phi^T], C = E[phi phi^T].

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).standard_normal((10, 2)); B = np.ones((3, 2))
    >>> m = input_moments(A, 1.0)
    >>> task_error(np.zeros((3, 10)), B, m)                   # ||B||^2 / Ny
    2.0
    >>> abs(task_error(B @ np.linalg.pinv(A), B, m)) < 1e-12  # phi = identity: B A^+ is exact
    True
    """
    ny = B.shape[0]
    quadratic = float(np.einsum("ij,ij->", moments.times_covariance(W), W))
    linear = float(np.einsum("ij,ij->", B @ moments.cross, W))
    return (float(np.sum(B * B)) + quadratic - 2.0 * linear) / ny


def _expected_task_error(
    M: list[np.ndarray], mu: int, moments: InputMoments, correlation: np.ndarray
) -> float:
    """E_B eps_mu[W] for W = sum_k B_k M[k] (k = 0..len(M)-1; task index mu is 0-based);
    ``correlation[k, l]`` is the readouts' correlation T_kl."""
    ns = moments.ns
    value = 1.0
    projected = [moments.times_covariance(Mk) for Mk in M]
    for k, Mk in enumerate(M):
        for l, Ml in enumerate(M):
            value += correlation[k, l] * float(np.einsum("ij,ij->", projected[k], Ml)) / ns
        value -= 2.0 * correlation[k, mu] * float(np.einsum("ij,ij->", moments.cross, Mk)) / ns
    return value


@dataclass(frozen=True)
class TransferRetention:
    """Delta eps_TF = eps_2[W_0] - eps_2[W_1], Delta eps_RT = eps_1[W_0] - eps_1[W_2]
    (eq_def_delta_epsilon_TF_RT, before the average over tasks)."""

    transfer: float
    retention: float


@dataclass(frozen=True)
class SoftThresholdResult:
    """Weights after each task and the error matrix of the soft-thresholding model.

    ``weights[nu]`` is W_nu (Ny x Nx), nu = 0 (the zero initial weights) .. n_tasks.
    ``errors[mu, nu]`` = eps_{mu+1}[W_nu] for the drawn B (shape n_tasks x (n_tasks + 1)).
    ``expected_errors`` is the same averaged exactly over B given A (None for ``"sampled"``).
    """

    alpha: float
    h: float
    method: str
    n_steps: Optional[int]
    eta: Optional[float]
    weights: tuple[np.ndarray, ...]
    errors: np.ndarray
    expected_errors: Optional[np.ndarray]
    truncation_bound: float

    def transfer_retention(self, *, average_over_b: bool = True) -> TransferRetention:
        """Transfer and retention between tasks 1 and 2 (eq_def_delta_epsilon_TF_RT).

        With ``average_over_b`` (the default) from :attr:`expected_errors`, the exact mean
        over B given A; else from :attr:`errors`, for the drawn B.
        """
        if self.errors.shape[0] < 2:
            raise ValueError("transfer and retention need n_tasks >= 2")
        E = self.errors
        if average_over_b:
            if self.expected_errors is None:
                raise ValueError(f"average_over_b=True is not available for method "
                                 f"{self.method!r}; use average_over_b=False")
            E = self.expected_errors
        return TransferRetention(float(E[1, 0] - E[1, 1]), float(E[0, 0] - E[0, 2]))


def _check_positive_real(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(float(value)) or float(value) <= 0.0:
        raise ValueError(f"{name} must be a number in (0, inf), got {value!r}")
    return float(value)


def _gd_factors(lam: np.ndarray, eta: float, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(1 - eta lam)^T and (1 - (1 - eta lam)^T) / lam (= eta T at lam = 0), stably."""
    x = eta * lam
    keep = np.empty_like(lam)
    gain = np.empty_like(lam)
    small = x < 1.0
    log_q = np.log1p(-x[small])
    keep[small] = np.exp(n_steps * log_q)
    positive = small & (lam > 0.0)
    gain[small] = eta * n_steps  # lam = 0
    lp = np.log1p(-x[positive])
    gain[positive] = -np.expm1(n_steps * lp) / lam[positive]
    large = ~small  # 1 <= eta lam < 2: q in (-1, 0]
    keep[large] = np.power(1.0 - x[large], n_steps)
    gain[large] = (1.0 - keep[large]) / lam[large]
    return keep, gain


def _task_factors(
    spectrum: TaskSpectrum, method: str, n_steps: int, eta: float, rank_rtol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per-eigendirection factors (keep, gain): W V <- W V diag(keep) + B X V diag(gain)."""
    lam = spectrum.eigenvalues
    if method == "gd":
        return _gd_factors(lam, eta, n_steps)
    in_range = lam > rank_rtol * spectrum.largest
    gain = np.zeros_like(lam)
    gain[in_range] = 1.0 / lam[in_range]
    return (~in_range).astype(float), gain


def _advance(previous: np.ndarray, readout: Optional[np.ndarray], spectrum: TaskSpectrum,
             keep: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """previous + [previous V diag(keep - 1) + readout X V diag(gain)] V^T (readout None: no
    drive). Equal to previous V diag(keep) V^T + ... when V is complete; when V is thin
    (alpha = 1), directions outside it have lambda = 0, keep = 1 and X V_perp = 0."""
    V = spectrum.eigenvectors
    rotated = previous @ V
    change = rotated * (keep - 1.0)
    if readout is not None:
        change += ((readout @ spectrum.moments.cross) @ V) * gain
    return previous + change @ V.T


def solve_soft_threshold(
    problem: SoftThresholdProblem,
    *,
    method: str = "gd",
    n_steps: int = 5000,
    eta: float = 0.01,
    batch_size: int = 10000,
    seed: Seed = None,
    rank_rtol: Optional[float] = None,
) -> SoftThresholdResult:
    """Train on the tasks in order from W_0 = 0 (see the module docstring for the methods).

    ``n_steps`` and ``eta`` are used by ``"gd"`` and ``"sampled"``, ``batch_size`` and
    ``seed`` by ``"sampled"``, ``rank_rtol`` by ``"exact"``.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> p = prepare_soft_threshold(draw_tasks(nx=40, ns=3, ny=2, rho_a=0.5, rho_b=0.5,
    ...                                       seed=0), 0.6)
    >>> gd = solve_soft_threshold(p, method="gd", n_steps=10**12)
    >>> ex = solve_soft_threshold(p, method="exact")
    >>> bool(abs(gd.errors - ex.errors).max() < 1e-8)   # the gradient-flow limit
    True
    """
    if not isinstance(problem, SoftThresholdProblem):
        raise ValueError("problem must be a SoftThresholdProblem (see prepare_soft_threshold)")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    n_steps = check_positive_int("n_steps", n_steps)
    eta = _check_positive_real("eta", eta)
    batch_size = check_positive_int("batch_size", batch_size)
    tasks, spectra = problem.tasks, problem.spectra
    nx = tasks.nx
    if rank_rtol is None:
        rank_rtol = nx * np.finfo(float).eps
    rank_rtol = _check_positive_real("rank_rtol", rank_rtol)
    if method in ("gd", "sampled"):
        largest = max(s.largest for s in spectra)
        if eta * largest >= 2.0:
            raise ValueError(f"eta must be a number in (0, 2 / lambda_max(C_phiphi)) = "
                             f"(0, {2.0 / largest:.6g}) for gradient descent to converge, "
                             f"got {eta!r}")
    rng = as_generator(seed) if method == "sampled" else None

    n_tasks, ns = tasks.n_tasks, tasks.ns
    W = np.zeros((tasks.ny, nx))
    weights = [W]
    M: list[np.ndarray] = []  # W_nu = sum_k B_k M[k]: for the exact expectation over B
    coefficients: list[list[np.ndarray]] = []  # M after each task
    for mu in range(n_tasks):
        spectrum, B = spectra[mu], tasks.B[mu]
        if method == "sampled":
            W = sampled_gradient_descent(W, tasks.A[mu], B, problem.h, n_steps=n_steps,
                                         eta=eta, batch_size=batch_size, seed=rng)
        else:
            keep, gain = _task_factors(spectrum, method, n_steps, eta, rank_rtol)
            W = _advance(W, B, spectrum, keep, gain)
            if M:
                carried = _advance(np.vstack(M), None, spectrum, keep, gain)
                M = [carried[k * ns:(k + 1) * ns] for k in range(mu)]
            M.append(_advance(np.zeros((ns, nx)), np.eye(ns), spectrum, keep, gain))
            coefficients.append(list(M))
        weights.append(W)

    errors = np.array([[task_error(Wn, tasks.B[mu], spectra[mu].moments) for Wn in weights]
                       for mu in range(n_tasks)])
    expected = None
    if method != "sampled":
        expected = np.ones((n_tasks, n_tasks + 1))  # E_B eps_mu[W_0 = 0] = 1
        correlation = task_correlation(tasks.rho_b, n_tasks, tasks.structure, name="rho_b")
        for mu in range(n_tasks):
            for nu in range(1, n_tasks + 1):
                expected[mu, nu] = _expected_task_error(coefficients[nu - 1], mu,
                                                        spectra[mu].moments, correlation)
    return SoftThresholdResult(
        alpha=problem.alpha, h=problem.h, method=method,
        n_steps=None if method == "exact" else n_steps,
        eta=None if method == "exact" else eta,
        weights=tuple(weights), errors=errors, expected_errors=expected,
        truncation_bound=problem.truncation_bound,
    )



def soft_threshold_solution(
    tasks: TaskSequence,
    alpha: float,
    *,
    method: str = "gd",
    n_steps: int = 5000,
    eta: float = 0.01,
    batch_size: int = 10000,
    seed: Seed = None,
    rank_rtol: Optional[float] = None,
    rtol: float = 1e-13,
) -> SoftThresholdResult:
    """:func:`prepare_soft_threshold` then :func:`solve_soft_threshold`; defaults are the
    paper's protocol (Appendix D: 5,000 steps per task, eta = 0.01) with exact gradients.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> t = draw_tasks(nx=50, ns=3, ny=2, rho_a=0.0, rho_b=0.0, seed=2)
    >>> r = soft_threshold_solution(t, 0.3, n_steps=100)
    >>> r.method, r.n_steps, len(r.weights)
    ('gd', 100, 3)
    """
    problem = prepare_soft_threshold(tasks, alpha, rtol=rtol)
    return solve_soft_threshold(problem, method=method, n_steps=n_steps, eta=eta,
                                batch_size=batch_size, seed=seed, rank_rtol=rank_rtol)


def transfer_retention(
    tasks: TaskSequence,
    alpha: float,
    *,
    method: str = "gd",
    n_steps: int = 5000,
    eta: float = 0.01,
    average_over_b: bool = True,
    batch_size: int = 10000,
    seed: Seed = None,
    rank_rtol: Optional[float] = None,
) -> TransferRetention:
    """Delta eps_TF and Delta eps_RT (eq_def_delta_epsilon_TF_RT) for one draw of A, exactly
    averaged over B given A by default (``average_over_b``); the average over A is the
    caller's (a mean over seeds).

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> t = draw_tasks(nx=200, ns=4, ny=2, rho_a=1.0, rho_b=0.0, seed=0)
    >>> tr = transfer_retention(t, 1.0, method="exact")   # vanilla: rho_a (2 rho_b - rho_a)
    >>> round(tr.transfer, 6)
    -1.0
    """
    result = soft_threshold_solution(tasks, alpha, method=method, n_steps=n_steps, eta=eta,
                                     batch_size=batch_size, seed=seed, rank_rtol=rank_rtol)
    return result.transfer_retention(average_over_b=average_over_b)
