"""The gradients the paper's learning rules follow, differentiated from its losses (Sec. 4,
line 176; Appendix B.1, line 470; Appendix C.2, lines 1075 and 1232).

Each printed gradient is compared with ``d loss / d W`` computed by
:func:`~tasksim.derivations.span_algebra.matrix_gradient` from the loss as the paper defines it:

- the mean-squared error eps_mu[W] = (1/Ny) ||B_mu - W D_mu A_mu||_F^2 (eq_ap_epsilonW; D = I
  for the vanilla model), whose flow is dW/dt = -eta d eps / dW;
- the Fisher-metric loss l_mu = 1/2 ||B_mu - W A_mu||_F^2 + lam/2 ||(W - W_{mu-1})
  A_{mu-1}||_F^2 (line 1065), and the same at rho_a = 1, where A_{mu-1} = A_mu = A.

Line 176 writes the vanilla flow without the constant 2 eta/Ny, which only sets the time scale:
it is compared up to a positive factor. The others are compared exactly.

Examples
--------
>>> flow_gradient()
(-2/N_y)*B_mu*F.T + (2/N_y)*W*F*F.T
"""
from __future__ import annotations

import sympy as sp

from .claims import Claim, Derivation, Step
from .span_algebra import frobenius2, matrix_gradient
from .symbols import Ns, Nx, Ny, lam

__all__ = ["flow_gradient", "fisher_gradient", "CLAIMS"]

_W = sp.MatrixSymbol("W", Ny, Nx)
_W0 = sp.MatrixSymbol("W_{mu-1}", Ny, Nx)
_B = sp.MatrixSymbol("B_mu", Ny, Ns)
_F = sp.MatrixSymbol("F", Nx, Ns)          # D_mu A_mu (A_mu for the vanilla model)
_A = sp.MatrixSymbol("A_mu", Nx, Ns)
_APREV = sp.MatrixSymbol("A_{mu-1}", Nx, Ns)


def flow_gradient() -> sp.MatrixExpr:
    """d eps_mu / d W for eps_mu[W] = (1/Ny) ||B_mu - W F||_F^2, F = D_mu A_mu."""
    return matrix_gradient(frobenius2(_B - _W * _F) / Ny, _W)


def fisher_gradient(fixed_features: bool = False) -> sp.MatrixExpr:
    """d l_mu / d W for the Fisher-metric loss of line 1065; ``fixed_features``: at rho_a = 1
    (A_{mu-1} = A_mu)."""
    previous = _A if fixed_features else _APREV
    loss = frobenius2(_B - _W * _A) / 2 + lam / 2 * frobenius2((_W - _W0) * previous)
    return matrix_gradient(loss, _W)


def _zero(expression: sp.MatrixExpr) -> bool:
    value = sp.expand(expression).doit()
    return value == 0 or value == sp.ZeroMatrix(*expression.shape)


def _same(a: sp.Basic, b: sp.Basic) -> bool:
    return _zero(a - b)


def _same_up_to_positive_factor(a: sp.Basic, b: sp.Basic) -> bool:
    """a = c b for the constant c = 2/Ny > 0 that the flow's time scale absorbs."""
    return _zero(a - 2 / Ny * b)


def _derive(gradient, note: str = "") -> callable:
    def derive() -> Derivation:
        value = gradient()
        return Derivation(value, (Step("d loss / d W, differentiated from the loss", value),),
                          note=note)
    return derive


_PRINTED_176 = (_W * _F - _B) * _F.T
_PRINTED_470 = 2 / Ny * (_W * _F - _B) * _F.T
_PRINTED_1075 = -(_B - _W * _A) * _A.T + lam * (_W - _W0) * _APREV * _APREV.T
_PRINTED_1232 = (-(_B - _W * _A) + lam * (_W - _W0) * _A) * _A.T

CLAIMS: list[Claim] = [
    Claim("vanilla.gd_flow", "Sec. 4: the gradient flow of the vanilla model", _PRINTED_176,
          r"learning by gradient descent follows $\dot{W} = - (W A_{\mu} - B_{\mu}) A_{\mu}^T$",
          _derive(flow_gradient, "F = A_mu (psi(x) = x, no gate)"),
          equivalent=_same_up_to_positive_factor, line=176, headline=True,
          condition="exact; the constant 2 eta / Ny of -eta d eps/dW is absorbed in the time "
                    "scale (the paper's eta)",
          observable="dW/dt"),
    Claim("gating.gd_flow", "Appendix B.1: the gradient flow with gates", _PRINTED_470,
          r"= - \frac{2\eta}{N_y} \left( W D_{\mu} A_{\mu} - B_{\mu} \right)",
          _derive(flow_gradient, "F = D_mu A_mu; the printed value is -eta times it"),
          equivalent=_same, line=472, headline=True, condition="exact",
          observable="dW/dt"),
    Claim("fisher.gradient", "Appendix C.2.1 (subsec_appendix_FIM): the gradient of l_mu",
          _PRINTED_1075,
          r"= - (B_{\mu} - W A_{\mu}) A_{\mu}^T + \lambda (W - W_{\mu-1}) A_{\mu-1} "
          r"A_{\mu-1}^T", _derive(fisher_gradient), equivalent=_same, line=1076,
          headline=True, condition="exact", observable="d l_mu / dW"),
    Claim("fisher.rho1.gradient", "Appendix C.2.2 (subsec_appendix_FIM): the gradient at "
          "rho_a = 1", _PRINTED_1232,
          r"= \left[ - \left( B_{\mu} - W A \right) + \lambda (W - W_{\mu-1}) A \right] A^T",
          _derive(lambda: fisher_gradient(fixed_features=True)), equivalent=_same, line=1233,
          headline=True, condition="exact", observable="d l_mu / dW"),
]
