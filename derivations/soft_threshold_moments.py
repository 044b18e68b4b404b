"""The latent moments of Appendix B.3 (subsec_appndix_input_soft_thresholding, lines 835-847):
m_i = sum_j A_ij s_j with s ~ N(0, I_s).

<m_i> = 0 and <s_j m_i> = A_ij hold exactly for any row of A (computed here from the latent's
moments, at Ns = 4 with a symbolic row: a polynomial identity in the row's entries);
<m_i^2> = sum_j A_ij^2 ~ 1 is soft_threshold.row_norm_condition's (Ns >> 1). Given A,
(s_j, m_i) is a linear image of the Gaussian s, hence jointly Gaussian at every Ns: its third
and fourth joint cumulants vanish identically (:func:`joint_cumulants`); only the unit
variance of m_i is approximate.

Examples
--------
>>> latent_moments()
(0, A_i1)
"""
from __future__ import annotations

import math

import sympy as sp

from .claims import Claim, Derivation, Step
from .engine import gaussian_moment
from .model import _latent_average
from .symbols import Ns

__all__ = ["latent_moments", "joint_cumulants", "CLAIMS"]

_NS = 4
_S = sp.symbols(f"s1:{_NS + 1}", real=True)
_ROW = sp.symbols(f"A_i1:{_NS + 1}", real=True)
_WHERE = "Appendix subsec_appndix_input_soft_thresholding"


def latent_moments() -> tuple[sp.Expr, sp.Expr]:
    """(<m_i>, <s_1 m_i>) over s ~ N(0, I), m_i = sum_j A_ij s_j, at Ns = 4."""
    m = sum(a * s for a, s in zip(_ROW, _S))
    return _latent_average(m, list(_S)), _latent_average(_S[0] * m, list(_S))


def _derive(which: int) -> callable:
    def derive() -> Derivation:
        value = latent_moments()[which]
        return Derivation(value, (Step("E over s ~ N(0, I) (E s_j = 0, E s_j s_k = delta_jk), "
                                       f"Ns = {_NS}, symbolic row A_i", value),))
    return derive


def _gaussian_average(expr: sp.Expr) -> sp.Expr:
    """E over s ~ N(0, I) of a polynomial in s: term by term, the product of the independent
    coordinates' moments (:func:`tasksim.derivations.engine.gaussian_moment`)."""
    return sp.Add(*[coeff * sp.Mul(*[gaussian_moment(e) for e in exponents])
                    for exponents, coeff in sp.Poly(sp.expand(expr), *_S).terms()])


def joint_cumulants() -> tuple[sp.Matrix, sp.Expr, sp.Expr]:
    """Given the row A_i, the covariance of (s_1, m_i), and the third and fourth joint
    cumulants kappa(s_1, m_i, m_i) and kappa(s_1, m_i, m_i, m_i) - both zero: (s_1, m_i) is a
    linear image of the Gaussian s, so jointly Gaussian at every Ns, with Var m_i = |A_i|^2.

    >>> cov, third, fourth = joint_cumulants()
    >>> third, fourth, cov[1, 1]
    (0, 0, A_i1**2 + A_i2**2 + A_i3**2 + A_i4**2)
    """
    m = sum(a * s for a, s in zip(_ROW, _S))
    s1 = _S[0]
    cov = sp.Matrix([[_gaussian_average(x * y) for y in (s1, m)] for x in (s1, m)])
    third = _gaussian_average(s1 * m * m)
    fourth = sp.expand(_gaussian_average(s1 * m**3) - 3 * cov[0, 1] * cov[1, 1])
    return cov, third, fourth


def _derive_joint_gaussian() -> Derivation:
    cov, third, fourth = joint_cumulants()
    norm_variance = 2 / Ns  # Var |A_i|^2 for Ns entries N(0, 1/Ns): Ns (3 - 1) / Ns^2
    gaussian = bool(third == 0 and fourth == 0)
    return Derivation(sp.true if gaussian else sp.false, (
        Step(f"covariance of (s_1, m_i) over s, Ns = {_NS}, symbolic row A_i", cov),
        Step("third joint cumulant kappa(s_1, m_i, m_i)", third),
        Step("fourth joint cumulant kappa(s_1, m_i, m_i, m_i)", fourth),
        Step("Var |A_i|^2 over the rows (entries N(0, 1/Ns)): the spread of Var m_i about 1",
             norm_variance)),
        exact=False,
        note="given A, (s_j, m_i) is a linear image of the Gaussian s, so jointly Gaussian at "
             "every Ns (its higher joint cumulants vanish); its covariance is [[1, A_ij], "
             "[A_ij, |A_i|^2]], and only the unit variance of m_i, |A_i|^2 = 1 +- "
             f"(2/Ns)^(1/2) ({math.sqrt(2 / 30):.2f} at Ns = 30), needs Ns >> 1; the display's "
             "A_ji is the A_ij of line 837 with its indices swapped")


CLAIMS: list[Claim] = [
    Claim("soft_threshold.latent_mean", f"{_WHERE}: <m_i> = 0", sp.Integer(0),
          r"\lla m_i \rra = 0", _derive(0), line=835, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_cross", f"{_WHERE}: <s_j m_i> = A_ij", _ROW[0],
          r"\lla s_j m_i \rra = A_{ij}", _derive(1), line=837, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_gaussian", f"{_WHERE}: (s_j, m_i) jointly Gaussian", sp.true,
          r"\begin{pmatrix} s_j \\ m_i \end{pmatrix}", _derive_joint_gaussian, line=841,
          headline=True, condition="Ns >> 1 (the unit variance of m_i; the Gaussian law is "
                                   "exact given A)"),
]
