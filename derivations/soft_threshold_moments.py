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
from typing import Sequence

import sympy as sp

from .claims import Claim, Derivation, Step
from .engine import gaussian_moment
from .model import _latent_average
from .symbols import Ns

__all__ = ["latent_moments", "joint_cumulants", "cross_covariance_table", "CLAIMS"]

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


def _gaussian_average(expr: sp.Expr, s: Sequence[sp.Symbol] = _S) -> sp.Expr:
    """E over s ~ N(0, I) of a polynomial in s: term by term, the product of the independent
    coordinates' moments (:func:`tasksim.derivations.engine.gaussian_moment`)."""
    return sp.Add(*[coeff * sp.Mul(*[gaussian_moment(e) for e in exponents])
                    for exponents, coeff in sp.Poly(sp.expand(expr), *s).terms()])


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


_NX_SMALL, _NS_SMALL = 3, 2
"""A tall symbolic A (Nx > Ns, as in the model) on which the display's index is read."""


def _symbolic_a() -> sp.Matrix:
    return sp.Matrix(_NX_SMALL, _NS_SMALL, lambda i, j: sp.Symbol(f"A_{i + 1}{j + 1}", real=True))


def cross_covariance_table() -> sp.Matrix:
    """<s_j m_i> over s ~ N(0, I), m = A s, for a symbolic 3 x 2 A: row i, column j. It is
    A itself: the (i, j) entry is A_ij (line 837), so the display's A_ji (lines 846 and 849)
    has its indices swapped; on a tall A it does not even exist for i > Ns.

    >>> cross_covariance_table()
    Matrix([
    [A_11, A_12],
    [A_21, A_22],
    [A_31, A_32]])
    """
    A = _symbolic_a()
    s = sp.symbols(f"s1:{_NS_SMALL + 1}", real=True)
    m = A * sp.Matrix(s)
    return sp.Matrix(_NX_SMALL, _NS_SMALL, lambda i, j: _gaussian_average(s[j] * m[i], s))


def _derive_index() -> Derivation:
    """The display's covariance read off the model: the off-diagonal entry is A_ij, and the
    law it states (jointly Gaussian given A) holds with it (:func:`joint_cumulants`)."""
    table = cross_covariance_table()
    same = table == _symbolic_a()
    i, j = _NX_SMALL, 1
    cov, third, fourth = joint_cumulants()
    return Derivation(sp.Symbol("A_ij") if same else sp.nan, (
        Step(f"<s_j m_i> over s ~ N(0, I), m = A s, a symbolic {_NX_SMALL} x {_NS_SMALL} A "
             "(row i, column j)", table),
        Step("the table is A: the (i, j) entry is A_ij, as line 837 states",
             sp.true if same else sp.false),
        Step(f"the printed A_ji at (i, j) = ({i}, {j}) is row {j}, column {i} of a "
             f"{_NX_SMALL} x {_NS_SMALL} A: it does not exist", sp.false),
        Step(f"the law with A_ij: covariance of (s_1, m_i) over s, Ns = {_NS}, symbolic row "
             "A_i", cov),
        Step("third and fourth joint cumulants kappa(s_1, m_i, m_i), kappa(s_1, m_i, m_i, "
             "m_i): zero, so jointly Gaussian given A", sp.Tuple(third, fourth)),
        Step("Var |A_i|^2 over the rows (entries N(0, 1/Ns)): the spread of Var m_i about 1, "
             "which needs Ns >> 1", 2 / Ns)))


CLAIMS: list[Claim] = [
    Claim("soft_threshold.latent_mean", f"{_WHERE}: <m_i> = 0", sp.Integer(0),
          r"\lla m_i \rra = 0", _derive(0), line=835, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_cross", f"{_WHERE}: <s_j m_i> = A_ij", _ROW[0],
          r"\lla s_j m_i \rra = A_{ij}", _derive(1), line=837, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_covariance_index",
          f"{_WHERE}: the covariance of (s_j, m_i)", sp.Symbol("A_ji"),
          r"\begin{pmatrix} 1 & A_{ji} \\ A_{ji} & 1 \end{pmatrix}", _derive_index, line=846,
          headline=True,
          misprint_of="soft_threshold.latent_cross",
          cause="soft-threshold-latent-index-typo",
          restates=((849, r"Denoting $A_{ji} = \rho$ for brevity"),),
          observable="the soft-thresholding results "
          "of lines 851-880 (which use rho = A_ij)", carry=lambda d: sp.Integer(0),
          condition="Ns >> 1 (the unit variance of m_i; the Gaussian law is exact given A)",
          note="misprint: the display's off-diagonal A_ji (named rho at line 849) is the A_ij "
               "of line 837 with its indices swapped (m = A s with A of Nx rows and Ns "
               "columns, so <s_j m_i> = A_ij, exactly, as line 837 states); the law the "
               "display states, (s_j, m_i) "
               "jointly Gaussian with that covariance, holds with A_ij: exactly given A, its "
               "unit variance of m_i in the stated limit Ns >> 1 (|A_i|^2 = 1 +- (2/Ns)^(1/2), "
               f"{math.sqrt(2 / 30):.2f} at Ns = 30); so do the results of lines 851-880, "
               "which use rho = A_ij"),
]
