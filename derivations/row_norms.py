"""The spread of the row norms: how far the soft-thresholding results that take m_i of unit
variance lie from the model at a finite Ns (Appendix subsec_appndix_input_soft_thresholding,
lines 836-880; the verdicts' sizes of lines 271, 861, 873 and 880).

The subsection puts <m_i^2> = sum_j A_ij^2 "approx 1" (line 836) under its Ns >> 1 (line
822). In the model the entries of A are N(0, 1/Ns) (both generators, marginally) and the rows
are independent, so across neurons i the variance sigma_i^2 = sum_j A_ij^2 of m_i follows
chi^2_Ns / Ns. With a(sigma) = P(|m| > h) = erfc(h / (sqrt2 sigma)) for m ~ N(0, sigma^2):

- the fraction of active inputs (line 880) is the population's mean E[a(sigma)], not
  alpha = erfc(h/sqrt2);
- the threshold that makes that fraction alpha (line 271) solves E[a(sigma)] = alpha, not
  h = sqrt2 erfcinv(alpha);
- <s_j phi(m_i)> = A_ij a(sigma_i) exactly (Stein's lemma for the jointly Gaussian s_j, m_i):
  the coefficient of rho = A_ij (line 861) is a(sigma_i) for neuron i, not alpha;
- the first-order coefficient of <phi(m_j) phi(m_i)> in rho_c = sum_k A_ik A_jk (line 873)
  is a(sigma_i) a(sigma_j) (d/dc E[f(x) g(y)] = E[f'(x) g'(y)] for Gaussian x, y of covariance
  c, at c = 0), not alpha^2.

The neuron average of a(sigma) - alpha is O(1/Ns) (a second-order effect of the spread); each
neuron's own coefficient is O(Ns^-1/2) away (the spread itself). Both are computed here by
quadrature over the chi-square law (mpmath): numbers, not expansions, at any Ns.

Examples
--------
>>> e = row_norm_errors(0.3, 30)
>>> round(e.mean_active - 0.3, 4), round(e.neuron_rms, 3)
(-0.0075, 0.062)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import mpmath

__all__ = ["RowNormErrors", "active_probability_moments", "row_norm_errors"]

_DIGITS = 15


def _threshold(alpha: float) -> mpmath.mpf:
    """h = sqrt2 erfcinv(alpha): the subsection's threshold (mpmath has erfinv only)."""
    return mpmath.sqrt(2) * mpmath.erfinv(1 - mpmath.mpf(alpha))


@lru_cache(maxsize=None)
def active_probability_moments(h: float, ns: int) -> tuple[float, float]:
    """E[a] and E[a^2] of a = erfc(h / (sqrt2 sigma)) over sigma^2 ~ chi^2_ns / ns (the law of
    a row's squared norm when its ns entries are N(0, 1/ns)), by quadrature."""
    if ns < 1 or h < 0:
        raise ValueError(f"need ns >= 1 and h >= 0, got ns={ns!r}, h={h!r}")
    with mpmath.workdps(_DIGITS):
        k = mpmath.mpf(ns)
        shape, scale = k / 2, 2 / k  # sigma^2 ~ Gamma(ns/2, scale 2/ns)
        norm = 1 / (mpmath.gamma(shape) * scale**shape)

        def density(v):
            return norm * v**(shape - 1) * mpmath.exp(-v / scale)

        def a(v):
            return mpmath.erfc(h / mpmath.sqrt(2 * v))

        edges = [0, 1, mpmath.inf]
        first = mpmath.quad(lambda v: a(v) * density(v), edges)
        second = mpmath.quad(lambda v: a(v) ** 2 * density(v), edges)
        return float(first), float(second)


@dataclass(frozen=True)
class RowNormErrors:
    """At one sparsity ``alpha`` and ``ns``: the population's active fraction
    (``mean_active``, against alpha), the root-mean-square over neurons of a(sigma_i) - alpha
    (``neuron_rms``), the root-mean-square over pairs of independent neurons of a(sigma_i)
    a(sigma_j) - alpha^2 (``pair_rms``), and the threshold that makes the population's active
    fraction alpha (``population_threshold``) against sqrt2 erfcinv(alpha) (``threshold``)."""

    alpha: float
    ns: int
    mean_active: float
    neuron_rms: float
    pair_rms: float
    threshold: float
    population_threshold: float


@lru_cache(maxsize=None)
def row_norm_errors(alpha: float, ns: int) -> RowNormErrors:
    """:class:`RowNormErrors` at sparsity ``alpha`` (0 < alpha < 1) and ``ns`` latent
    dimensions."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    h = float(_threshold(alpha))
    mean, second = active_probability_moments(h, ns)
    neuron_rms = (second - 2 * alpha * mean + alpha**2) ** 0.5
    pair_rms = (second**2 - 2 * alpha**2 * mean**2 + alpha**4) ** 0.5
    with mpmath.workdps(15):
        population = mpmath.findroot(
            lambda x: active_probability_moments(float(x), ns)[0] - alpha, h)
    return RowNormErrors(alpha, ns, mean, neuron_rms, pair_rms, h, float(population))
