"""Exact input moments of the soft-thresholding model, given the task matrix A.

Sec. 4.3 and Appendix B (subsec_appndix_input_soft_thresholding): the student is
y = W phi(x) with phi(x) = sgn(x) max{0, |x| - h} elementwise, x = A s, s ~ N(0, I_Ns), and
h = sqrt(2) erfcinv(alpha). Its error (and its gradient) depend on A only through

- the cross moment ``cross = E[s phi(A s)^T]`` (Ns x Nx), and
- the input covariance ``second = E[phi(A s) phi(A s)^T]`` (Nx x Nx).

The paper approximates both at leading order (cross ~ alpha A^T, second ~ alpha^2 A A^T,
assuming sum_j A_ij^2 ~ 1 and |r| << 1). Here they are computed exactly given A:
m = A s is exactly Gaussian, m_i ~ N(0, sigma_i^2) with sigma_i^2 = sum_j A_ij^2, and the
correlation of m_i and m_k is r_ik = (A A^T)_ik / (sigma_i sigma_k). With t_i = h / sigma_i
and psi_t the soft threshold at t applied to a standard normal variable:

``cross``
    Stein's lemma: E[s_j phi(m_i)] = A_ij E[phi'(m_i)] = A_ij erfc(t_i / sqrt 2). Exact.
``second``, diagonal
    E[phi(m_i)^2] = sigma_i^2 [(1 + t_i^2) erfc(t_i / sqrt 2) - 2 t_i varphi(t_i)] with
    varphi the standard normal density. Exact.
``second``, off the diagonal
    sigma_i sigma_k F(t_i, t_k, r_ik) with F(t, u, r) = E[psi_t(X) psi_u(Y)] for standard
    normal X, Y of correlation r. Two evaluations of F are implemented:

    * ``"series"``, the Hermite (Mehler) expansion F = sum_n c_n(t) c_n(u) r^n / n! with
      c_1(t) = erfc(t / sqrt 2), c_n(t) = 2 varphi(t) He_{n-2}(t) for odd n >= 3 and c_n = 0
      for even n (psi is odd). Cramér's inequality |He_n(x)| <= K sqrt(n!) exp(x^2 / 4),
      K = 1.086435 (Abramowitz & Stegun 22.14.17), bounds the remainder after the odd order N:
      |remainder| <= (2 K^2 / pi) exp(-(t^2 + u^2) / 4) |r|^(N+2) / ((N+1)(N+2)(1 - r^2)).
    * ``"closed"``, a closed form through bivariate normal probabilities:
      F(t, u, r) = 2 [G(t, u, r) - G(t, u, -r)] with G(t, u, r) = E[(X - t)_+ (Y - u)_+]
      = (r + t u) L - u varphi(t) Phi(a) - t varphi(u) Phi(b) + s varphi(t) varphi(a),
      s = sqrt(1 - r^2), a = (r t - u) / s, b = (r u - t) / s, L = P(X > t, Y > u)
      (derived with Stein's lemma; L through Owen's T function, scipy.special.owens_t).

    :func:`input_moments` uses the series, truncated where its bound is below ``rtol``
    times the largest diagonal entry for all pairs with |r_ik| <= ``series_radius`` (0.5 by
    default), and the closed form for the few pairs with larger |r_ik| (0.4% of pairs at
    Ns = 30; the largest |r_ik| at Nx = 3000 is typically 0.75-0.85).

Cost: O(Nx^2 Ns) time for A A^T plus O(Nx^2 N / 2) for the series, O(Nx^2) memory for the
covariance (this model is nonlinear, so the input covariance is not confined to the span of A;
the toolkit's "never Nx x Nx" rule is for the linear models). alpha = 1 means h = 0 and
phi = identity: then cross = A^T and the covariance is A A^T = cross^T cross exactly; the
model is linear, so that covariance is never formed (``second`` is None) and everything stays
in the span of A (:meth:`InputMoments.times_covariance`).

Examples
--------
>>> import numpy as np
>>> from tasksim.solvers.tasks import draw_tasks
>>> A = draw_tasks(nx=60, ns=4, ny=2, rho_a=0.0, rho_b=0.0, seed=0).A[0]
>>> mom = input_moments(A, alpha=0.5)
>>> mom.second.shape, mom.cross.shape
((60, 60), (4, 60))
>>> bool(mom.truncation_bound < 1e-12)
True
>>> linear = input_moments(A, alpha=1.0)
>>> linear.second is None, bool(np.allclose(linear.times_covariance(np.eye(60)), A @ A.T))
(True, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erfc, erfcinv, ndtr, owens_t

from .validation import check_open_unit_interval, check_positive_int

__all__ = [
    "CRAMER_K",
    "InputMoments",
    "threshold_from_sparsity",
    "soft_threshold",
    "active_fraction",
    "diagonal_moment",
    "pair_moment",
    "series_coefficients",
    "series_remainder_bound",
    "series_order_for",
    "input_moments",
]

#: Cramér's constant: |He_n(x)| <= CRAMER_K sqrt(n!) exp(x^2/4) for all real x, n >= 0
#: (Abramowitz & Stegun 22.14.17, converted from physicists' Hermite polynomials).
CRAMER_K = 1.086435

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _normal_pdf(x: np.ndarray) -> np.ndarray:
    return _INV_SQRT_2PI * np.exp(-0.5 * np.square(x))


def _check_threshold(h: object) -> float:
    if isinstance(h, bool) or not isinstance(h, (int, float, np.integer, np.floating)):
        raise ValueError(f"h must be a number in [0, inf), got {h!r}")
    value = float(h)
    if not math.isfinite(value) or value < 0.0:
        raise ValueError(f"h must be a number in [0, inf), got {h!r}")
    return value


def _check_finite_matrix(name: str, A: object) -> np.ndarray:
    arr = np.asarray(A, dtype=float)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have finite entries (found NaN or inf)")
    return arr


def threshold_from_sparsity(alpha: float) -> float:
    """The threshold h = sqrt(2) erfcinv(alpha) of Sec. 4.3 for the activity level alpha.

    alpha = P(|m| > h) for m ~ N(0, 1): the fraction of active inputs when sum_j A_ij^2 = 1.
    alpha must lie in (0, 1]; alpha = 1 gives h = 0 (no thresholding).

    Examples
    --------
    >>> round(threshold_from_sparsity(0.3173105078629141), 12)
    1.0
    >>> threshold_from_sparsity(1.0)
    0.0
    """
    alpha = check_open_unit_interval("alpha", alpha)
    return 0.0 if alpha == 1.0 else float(_SQRT2 * erfcinv(alpha))


def soft_threshold(x: ArrayLike, h: float) -> np.ndarray:
    """phi(x) = sgn(x) max{0, |x| - h}, elementwise (Sec. 4.3).

    Examples
    --------
    >>> soft_threshold([-2.0, -0.5, 0.0, 0.5, 3.0], 1.0).tolist()
    [-1.0, -0.0, 0.0, 0.0, 2.0]
    """
    h = _check_threshold(h)
    x = np.asarray(x, dtype=float)
    return np.sign(x) * np.maximum(np.abs(x) - h, 0.0)


def _scaled_thresholds(sigma: np.ndarray, h: float) -> np.ndarray:
    """t_i = h / sigma_i, with t_i = 0 where sigma_i = 0 (there phi(m_i) = 0 and every
    moment carries a factor sigma_i = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sigma > 0.0, h / np.where(sigma > 0.0, sigma, 1.0), 0.0)
    return t


def active_fraction(sigma: ArrayLike, h: float) -> np.ndarray:
    """E[phi'(m)] = P(|m| > h) = erfc(h / (sigma sqrt 2)) for m ~ N(0, sigma^2).

    By Stein's lemma E[s_j phi(m_i)] = A_ij * active_fraction(sigma_i, h) exactly.

    Examples
    --------
    >>> round(float(active_fraction(1.0, threshold_from_sparsity(0.25))), 12)
    0.25
    """
    h = _check_threshold(h)
    sigma = np.asarray(sigma, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(sigma > 0.0, erfc(h / (_SQRT2 * np.where(sigma > 0, sigma, 1.0))), 0.0)


def diagonal_moment(sigma: ArrayLike, h: float) -> np.ndarray:
    """E[phi(m)^2] for m ~ N(0, sigma^2): sigma^2 [(1 + t^2) erfc(t/sqrt 2) - 2 t varphi(t)].

    Exact; with t = h / sigma. (For t >~ 5 the bracket loses about log10(t^4 / 2) digits to
    cancellation, relative to a value that is itself below exp(-t^2/2).)

    Examples
    --------
    >>> float(diagonal_moment(2.0, 0.0))
    4.0
    >>> round(float(diagonal_moment(1.0, threshold_from_sparsity(0.1))), 6)
    0.031268
    """
    h = _check_threshold(h)
    sigma = np.asarray(sigma, dtype=float)
    t = _scaled_thresholds(sigma, h)
    bracket = (1.0 + t * t) * erfc(t / _SQRT2) - 2.0 * t * _normal_pdf(t)
    return sigma * sigma * np.maximum(bracket, 0.0)


def series_coefficients(t: ArrayLike, order: int) -> np.ndarray:
    """c_n(t) / sqrt(n!) for odd n = 1, 3, ..., order: shape ((order + 1) // 2, len(t)).

    c_n(t) = E[psi_t(X) He_n(X)] for X ~ N(0, 1) and psi_t the soft threshold at t:
    c_1 = erfc(t / sqrt 2), c_n = 2 varphi(t) He_{n-2}(t) for odd n >= 3 (Gaussian
    integration by parts: psi_t'' = delta(x - t) - delta(x + t)). The products varphi(t)
    He_k(t) / sqrt(k!) are propagated by the three-term recurrence directly, so no factor
    overflows for large t.

    Examples
    --------
    >>> c = series_coefficients([0.0, 1.0], 5)
    >>> c.shape
    (3, 2)
    >>> bool(abs(c[0, 0] - 1.0) < 1e-15 and abs(c[1, 0]) < 1e-15)  # t = 0: psi is identity
    True
    """
    order = check_positive_int("order", order)
    if order % 2 == 0:
        raise ValueError(f"order must be an odd positive integer, got {order}")
    t = np.atleast_1d(np.asarray(t, dtype=float))
    n_terms = (order + 1) // 2
    out = np.empty((n_terms, t.size))
    out[0] = erfc(t / _SQRT2)
    if n_terms == 1:
        return out
    # u_k = varphi(t) He_k(t) / sqrt(k!):  u_{k+1} = (t u_k - sqrt(k) u_{k-1}) / sqrt(k+1)
    u_prev = np.zeros_like(t)
    u = _normal_pdf(t)
    k = 0  # u currently holds u_k
    for idx in range(1, n_terms):
        n = 2 * idx + 1  # odd order of this term; needs u_{n-2}
        while k < n - 2:
            u_prev, u = u, (t * u - math.sqrt(k) * u_prev) / math.sqrt(k + 1)
            k += 1
        out[idx] = 2.0 * u / math.sqrt(n * (n - 1))
    return out


def series_remainder_bound(t: ArrayLike, u: ArrayLike, r: ArrayLike, order: int) -> np.ndarray:
    """Rigorous bound on |F - (Hermite series of F truncated after odd order ``order``)|.

    (2 K^2 / pi) exp(-(t^2 + u^2) / 4) |r|^(order+2) / ((order+1)(order+2)(1 - r^2)), from
    Cramér's inequality (K = :data:`CRAMER_K`); infinite at |r| = 1.

    Examples
    --------
    >>> float(series_remainder_bound(0.0, 0.0, 0.85, 101)) < 2e-11
    True
    """
    order = check_positive_int("order", order)
    t, u, r = (np.asarray(v, dtype=float) for v in (t, u, r))
    absr = np.abs(r)
    with np.errstate(divide="ignore"):
        geometric = np.where(absr < 1.0, absr ** (order + 2) / (1.0 - absr * absr), np.inf)
    prefactor = 2.0 * CRAMER_K**2 / math.pi * np.exp(-0.25 * (t * t + u * u))
    return prefactor * geometric / ((order + 1) * (order + 2))


def series_order_for(radius: float, tolerance: float, weight: float = 1.0) -> int:
    """Smallest odd order N whose remainder bound at |r| = radius (t = u = 0, scaled by
    ``weight``) is at most ``tolerance``.

    Examples
    --------
    >>> series_order_for(0.5, 1e-13)
    33
    """
    if not 0.0 <= radius < 1.0:
        raise ValueError(f"radius must be a number in [0, 1), got {radius!r}")
    if not tolerance > 0.0:
        raise ValueError(f"tolerance must be a number in (0, inf), got {tolerance!r}")
    order = 1
    while weight * float(series_remainder_bound(0.0, 0.0, radius, order)) > tolerance:
        order += 2
    return order


def _upper_orthant(t: np.ndarray, u: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """P(X > t, Y > u) for standard normals of correlation r, t, u > 0, s = sqrt(1 - r^2) > 0.

    Owen (1956): Phi_2(h, k; r) = [Phi(h) + Phi(k)] / 2 - T(h, a_h) - T(k, a_k) for h k > 0,
    a_h = (k - r h) / (h s); here h = -t, k = -u and T is even in its first argument.
    """
    return (0.5 * ndtr(-t) + 0.5 * ndtr(-u)
            - owens_t(t, (u - r * t) / (t * s)) - owens_t(u, (t - r * u) / (u * s)))


def _excess_product(t: np.ndarray, u: np.ndarray, r: np.ndarray) -> np.ndarray:
    """G(t, u, r) = E[(X - t)_+ (Y - u)_+], t, u > 0, |r| < 1 (see the module docstring)."""
    s = np.sqrt((1.0 - r) * (1.0 + r))
    a = (r * t - u) / s
    b = (r * u - t) / s
    orthant = _upper_orthant(t, u, r, s)
    return ((r + t * u) * orthant - u * _normal_pdf(t) * ndtr(a) - t * _normal_pdf(u) * ndtr(b)
            + s * _normal_pdf(t) * _normal_pdf(a))


def _closed_form(t: np.ndarray, u: np.ndarray, r: np.ndarray) -> np.ndarray:
    """F(t, u, r) in closed form, vectorised; t, u > 0, |r| <= 1.

    At |r| = 1 (Y = +-X) the limit F = +-2 [(1 + t u) Phi(-M) - m varphi(M)] with
    m = min(t, u), M = max(t, u) is used.
    """
    t, u, r = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (t, u, r)))
    r = np.clip(r, -1.0, 1.0)
    edge = np.abs(r) >= 1.0
    out = np.empty(t.shape)
    inner = ~edge
    if np.any(inner):
        ti, ui, ri = t[inner], u[inner], r[inner]
        out[inner] = 2.0 * (_excess_product(ti, ui, ri) - _excess_product(ti, ui, -ri))
    if np.any(edge):
        lo, hi = np.minimum(t[edge], u[edge]), np.maximum(t[edge], u[edge])
        same = 2.0 * ((1.0 + lo * hi) * ndtr(-hi) - lo * _normal_pdf(hi))
        out[edge] = np.sign(r[edge]) * same
    return out


def pair_moment(
    sigma_1: ArrayLike,
    sigma_2: ArrayLike,
    r: ArrayLike,
    h: float,
    *,
    method: str = "closed",
    order: int = 101,
) -> np.ndarray:
    """E[phi(m_1) phi(m_2)] for jointly Gaussian m_1, m_2 with standard deviations sigma_1,
    sigma_2 and correlation r; phi the soft threshold at h. Vectorised (broadcasts).

    ``method="closed"`` is exact up to rounding; ``method="series"`` truncates the Hermite
    series after the odd ``order`` (remainder bounded by :func:`series_remainder_bound`).
    h = 0 gives sigma_1 sigma_2 r exactly.

    Examples
    --------
    >>> a = pair_moment(1.0, 1.2, 0.85, 1.0)
    >>> b = pair_moment(1.0, 1.2, 0.85, 1.0, method="series", order=151)
    >>> bool(abs(a - b) < 1e-13)
    True
    >>> float(pair_moment(2.0, 3.0, 0.5, 0.0))
    3.0
    """
    h = _check_threshold(h)
    if method not in ("closed", "series"):
        raise ValueError(f"method must be one of closed, series, got {method!r}")
    sigma_1, sigma_2, r = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (sigma_1, sigma_2, r)))
    if np.any(~np.isfinite(sigma_1)) or np.any(sigma_1 < 0) or np.any(~np.isfinite(sigma_2)) \
            or np.any(sigma_2 < 0):
        raise ValueError("sigma_1 and sigma_2 must be numbers in [0, inf)")
    if np.any(~np.isfinite(r)) or np.any(np.abs(r) > 1.0):
        raise ValueError("r must be a number in [-1, 1]")
    scale = sigma_1 * sigma_2
    if h == 0.0:
        return scale * r
    t1 = _scaled_thresholds(sigma_1, h).ravel()
    t2 = _scaled_thresholds(sigma_2, h).ravel()
    rr = r.ravel()
    live = scale.ravel() > 0.0
    value = np.zeros(rr.shape)
    if method == "closed":
        value[live] = _closed_form(t1[live], t2[live], rr[live])
    else:
        c1 = series_coefficients(t1, order)
        c2 = series_coefficients(t2, order)
        powers = rr[None, :] ** np.arange(1, order + 1, 2)[:, None]
        value = np.sum(c1 * c2 * powers, axis=0)
    return scale * value.reshape(scale.shape)


@dataclass(frozen=True)
class InputMoments:
    """Exact input moments of one task for the soft-thresholding model.

    ``cross`` is E[s phi(A s)^T] (Ns x Nx), ``second`` is E[phi(A s) phi(A s)^T] (Nx x Nx),
    or None at alpha = 1 (h = 0), where it equals cross^T cross = A A^T and is not formed;
    ``sigma`` the row norms of A. ``truncation_bound`` bounds the largest error of any entry
    of ``second`` from the series truncation (entries from the closed form carry only
    rounding error); ``series_order`` is the last odd order kept, ``series_radius`` the |r|
    above which the closed form is used, ``closed_form_pairs`` how many pairs (i < k) used it.
    """

    h: float
    sigma: np.ndarray
    cross: np.ndarray
    second: Optional[np.ndarray]
    series_order: int
    series_radius: float
    truncation_bound: float
    closed_form_pairs: int

    @property
    def nx(self) -> int:
        return self.sigma.size

    @property
    def linear(self) -> bool:
        """True at h = 0: phi is the identity and the covariance is cross^T cross."""
        return self.second is None

    def times_covariance(self, X: np.ndarray) -> np.ndarray:
        """X @ E[phi phi^T] for X with Nx columns (in the span of A when linear)."""
        if self.second is None:
            return (X @ self.cross.T) @ self.cross
        return X @ self.second

    @property
    def ns(self) -> int:
        return self.cross.shape[0]


def input_moments(
    A: np.ndarray,
    alpha: float,
    *,
    rtol: float = 1e-13,
    series_radius: float = 0.5,
    block_size: int = 512,
) -> InputMoments:
    """Exact E[s phi(As)^T] and E[phi(As) phi(As)^T] given A (see the module docstring).

    The series part is truncated at the smallest odd order whose Cramér bound is at most
    ``rtol`` times the largest diagonal entry, for every pair with |r_ik| <= series_radius;
    pairs with larger |r_ik| use the closed form. Rows of A are processed in blocks of
    ``block_size`` (memory O(block_size Nx) beyond the Nx x Nx result); only the upper
    triangle is computed and mirrored.

    Cost: O(Nx^2 Ns + Nx^2 N / 2) time, O(Nx^2) memory.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> A = rng.standard_normal((30, 3)) / np.sqrt(3)
    >>> m = input_moments(A, 0.3)
    >>> bool(np.allclose(m.second, m.second.T)), bool(np.all(np.linalg.eigvalsh(m.second) > 0))
    (True, True)
    """
    A = _check_finite_matrix("A", A)
    h = threshold_from_sparsity(alpha)
    if not (isinstance(rtol, (int, float)) and 0.0 < float(rtol) < 1.0):
        raise ValueError(f"rtol must be a number in (0, 1), got {rtol!r}")
    if not (isinstance(series_radius, (int, float)) and 0.0 <= float(series_radius) < 1.0):
        raise ValueError(f"series_radius must be a number in [0, 1), got {series_radius!r}")
    block_size = check_positive_int("block_size", block_size)
    nx = A.shape[0]
    sigma = np.sqrt(np.einsum("ij,ij->i", A, A))
    cross = A.T * active_fraction(sigma, h)[None, :]
    if h == 0.0:  # phi is the identity: the linear model, kept in the span of A
        return InputMoments(h, sigma, cross, None, 1, 1.0, 0.0, 0)

    t = _scaled_thresholds(sigma, h)
    diagonal = diagonal_moment(sigma, h)
    weight = sigma * np.exp(-0.25 * t * t)  # the per-row factor of the remainder bound
    tolerance = float(rtol) * float(diagonal.max()) if diagonal.max() > 0 else float(rtol)
    order = series_order_for(float(series_radius), tolerance, float(weight.max()) ** 2)
    coefficients = series_coefficients(t, order) * sigma[None, :]

    live = sigma > 0.0
    directions = np.zeros_like(A)
    directions[live] = A[live] / sigma[live, None]
    second = np.empty((nx, nx))
    worst_bound = 0.0
    closed_pairs = 0
    for i0 in range(0, nx, block_size):
        i1 = min(nx, i0 + block_size)
        rows = slice(i0, i1)
        corr = directions[rows] @ directions[i0:].T  # b x (nx - i0): columns i0..nx-1
        np.clip(corr, -1.0, 1.0, out=corr)
        block = _series_block(corr, coefficients[:, rows], coefficients[:, i0:])
        local = np.arange(i1 - i0)
        corr[local, local] = 0.0  # the diagonal is set exactly below
        far_r, far_c = np.nonzero(np.abs(corr) > series_radius)
        upper = far_c > far_r  # pairs i < k (the lower part of the block is mirrored)
        far_r, far_c = far_r[upper], far_c[upper]
        gi, gk = far_r + i0, far_c + i0
        if far_r.size:
            block[far_r, far_c] = sigma[gi] * sigma[gk] * _closed_form(
                t[gi], t[gk], corr[far_r, far_c])
            closed_pairs += far_r.size
        near = np.abs(corr) <= series_radius
        if np.any(near):
            bound = np.outer(weight[rows], weight[i0:]) * series_remainder_bound(
                0.0, 0.0, np.where(near, corr, 0.0), order)
            worst_bound = max(worst_bound, float(bound.max()))
        block[local, local] = diagonal[rows]
        square = block[:, : i1 - i0]  # rows and columns i0..i1-1: keep its upper triangle
        square[:] = np.triu(square) + np.triu(square, 1).T
        second[rows, i0:] = block
        second[i1:, rows] = block[:, i1 - i0:].T
    return InputMoments(h, sigma, cross, second, order, float(series_radius), worst_bound,
                        closed_pairs)


def _series_block(corr: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """sum_n left[n, i] right[n, k] corr[i, k]^(2n+1), in place over the block."""
    squared = corr * corr
    power = corr.copy()
    total = np.zeros_like(corr)
    term = np.empty_like(corr)
    n_terms = left.shape[0]
    for n in range(n_terms):
        np.multiply(power, right[n][None, :], out=term)
        term *= left[n][:, None]
        total += term
        if n + 1 < n_terms:
            power *= squared
    return total
