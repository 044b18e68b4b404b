"""The latent moments of Appendix B.3 (subsec_appndix_input_soft_thresholding, lines 835-847):
m_i = sum_j A_ij s_j with s ~ N(0, I_s).

<m_i> = 0 and <s_j m_i> = A_ij hold exactly for any row of A (computed here from the latent's
moments, at Ns = 4 with a symbolic row: a polynomial identity in the row's entries);
<m_i^2> = sum_j A_ij^2 ~ 1 is soft_threshold.row_norm_condition's (Ns >> 1). That (s_j, m_i)
is then close to jointly Gaussian is a central-limit statement in Ns, which nothing here
derives.

Examples
--------
>>> latent_moments()
(0, A_i1)
"""
from __future__ import annotations

import sympy as sp

from .claims import Claim, Derivation, Step
from .model import _latent_average

__all__ = ["latent_moments", "CLAIMS"]

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


CLAIMS: list[Claim] = [
    Claim("soft_threshold.latent_mean", f"{_WHERE}: <m_i> = 0", sp.Integer(0),
          r"\lla m_i \rra = 0", _derive(0), line=835, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_cross", f"{_WHERE}: <s_j m_i> = A_ij", _ROW[0],
          r"\lla s_j m_i \rra = A_{ij}", _derive(1), line=837, headline=True,
          condition="exact for any A"),
    Claim("soft_threshold.latent_gaussian", f"{_WHERE}: (s_j, m_i) jointly Gaussian", None,
          r"\begin{pmatrix} s_j \\ m_i \end{pmatrix}", None, line=841, headline=True,
          note="the covariance is the moments above (exact; <m_i^2> -> 1 for Ns >> 1), but "
               "that (s_j, m_i) is then jointly Gaussian is a central-limit statement in Ns "
               "that nothing here derives",
          decide="a bound on the distance of m_i from a Gaussian at the paper's Ns (Berry-"
                 "Esseen for the appendix generator's rows), or the soft-thresholded model's "
                 "error with exact against Gaussian moments at Ns = 30"),
]
