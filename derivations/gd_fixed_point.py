"""The gradient-flow fixed point of the vanilla and activity-gated models (Sec. 4,
eq_gd_fp_vanilla; Appendix B.1, eq_gated_gd_def_Q, eq_gated_gd_fixed_point, eq_W_fp_gated_gd,
eq_W1_W2_expression), derived from the flow.

The flow of task mu is dW/dt = -(2 eta/Ny)(W D A - B)(D A)^T (eq_ap_epsilonW differentiated);
the constant 2 eta/Ny only sets the time scale. With the thin SVD D A = U Sig V^T (letters
``U``, ``Lambda`` for the paper's Sigma, ``V``; full column rank, so V is square and
V V^T = I_s):

1. *span*: every word of the flow ends in U^T, for any W, so W(t) - W(0) = Q(t) U^T
   (eq_gated_gd_def_Q);
2. *fixed-point equation*: the flow at W = W_{mu-1} + Q U^T reduces, with the exact SVD
   identities only, to ([W_{mu-1} + Q U^T] U Sig - B V) Sig U^T (eq_gated_gd_fixed_point);
3. *solution*: U^T is cancelled (full row rank), the rest solved for Q (Sig positive diagonal:
   one solution), Q = (B V - W_{mu-1} U Sig) Sig^{-1}, and W = W_{mu-1} (I - U U^T) + B V Sig^{-1}
   U^T = W_{mu-1} (I - U U^T) + B (D A)^+ (eq_W_fp_gated_gd; eq_gd_fp_vanilla for D = I);
4. *two tasks* from W_0 = 0 (eq_W1_W2_expression).

Nothing here uses Assumptions I or II: these are exact for any task matrices of full column
rank, as the appendix says.

Examples
--------
>>> fixed_point()
W_{mu-1} + (-1)*W_{mu-1} U U^T + B_mu V Lambda^{-1} U^T
>>> q_solution()
(-1)*W_{mu-1} U + B_mu V Lambda^{-1}
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .claims import Claim, Derivation, Step
from .matrix_words import MatrixExpr, eye, opaque
from .span_algebra import (SVD_LAMBDA, SVD_LAMBDA_INV, SVD_U, SVD_V, reduce_svd,
                           same_matrix_expression, solve_in_svd_span, split_by_last_letter)

__all__ = ["flow", "span_check", "fixed_point_equation", "q_solution", "fixed_point",
           "two_task_weights", "CLAIMS"]

_B = opaque("B_mu", "y", "s")
_W = opaque("W", "y", "x")
_W_PREV = opaque("W_{mu-1}", "y", "x")
_Q = opaque("Q", "y", "s")
_FEATURES = SVD_U @ SVD_LAMBDA @ SVD_V.T  # D_mu A_mu (or A_mu without gates)
_PINV = SVD_V @ SVD_LAMBDA_INV @ SVD_U.T


def flow(W: MatrixExpr = _W) -> MatrixExpr:
    """-(dW/dt) up to its positive time scale: (W D A - B)(D A)^T with D A = U Sig V^T.

    >>> flow()
    (-1)*B_mu V Lambda U^T + W U Lambda V^T V Lambda U^T
    """
    return (W @ _FEATURES - _B) @ _FEATURES.T


def span_check() -> MatrixExpr:
    """The factor X with flow(W) = X U^T for an arbitrary W (raises if a word does not end
    in U^T): the span argument of eq_gated_gd_def_Q.

    >>> span_check()
    (-1)*B_mu V Lambda + W U Lambda V^T V Lambda
    """
    (factor,) = split_by_last_letter(flow(), [SVD_U.T])
    return factor


def fixed_point_equation() -> MatrixExpr:
    """The flow at W = W_{mu-1} + Q U^T, reduced with the exact SVD identities.

    >>> fixed_point_equation()
    (-1)*B_mu V Lambda U^T + Q Lambda Lambda U^T + W_{mu-1} U Lambda Lambda U^T
    """
    return reduce_svd(flow(_W_PREV + _Q @ SVD_U.T))


@lru_cache(maxsize=1)
def q_solution() -> MatrixExpr:
    """Q solving the fixed-point equation (U^T cancelled, then Q Sig^2 = B V Sig - W U Sig^2)."""
    return solve_in_svd_span(flow(_W_PREV + _Q @ SVD_U.T), _Q)


@lru_cache(maxsize=1)
def fixed_point() -> MatrixExpr:
    """W = W_{mu-1} + Q U^T with Q from :func:`q_solution`."""
    return _W_PREV + q_solution() @ SVD_U.T


def _task_letters(mu: int) -> dict[MatrixExpr, MatrixExpr]:
    return {SVD_U: opaque(f"U_{mu}", "x", "s"),
            SVD_LAMBDA: opaque(f"Sigma_{mu}", "s", "s", symmetric=True),
            SVD_LAMBDA_INV: opaque(f"Sigma_{mu}^{{-1}}", "s", "s", symmetric=True),
            SVD_V: opaque(f"V_{mu}", "s", "s")}


def two_task_weights() -> tuple[MatrixExpr, MatrixExpr]:
    """(W_1, W_2) from W_0 = 0, each task with its own SVD letters and readout B_mu.

    >>> two_task_weights()[0]
    B_1 V_1 Sigma_1^{-1} U_1^T
    """
    out, previous = [], MatrixExpr({}, "y", "x")
    for mu in (1, 2):
        W = fixed_point().subs({_W_PREV: previous, _B: opaque(f"B_{mu}", "y", "s"),
                                **_task_letters(mu)})
        out.append(W)
        previous = W
    return out[0], out[1]


# -- claims -------------------------------------------------------------------------------

def _pinv(mu: int) -> MatrixExpr:
    letters = _task_letters(mu)
    return letters[SVD_V] @ letters[SVD_LAMBDA_INV] @ letters[SVD_U].T


def _projector(mu: int) -> MatrixExpr:
    U = _task_letters(mu)[SVD_U]
    return U @ U.T


def _derive_span() -> Derivation:
    factor = span_check()
    return Derivation(sp.true, (
        Step("the flow (W D A - B)(D A)^T with D A = U Sigma V^T", flow().to_sympy()),
        Step("every word ends in U^T: the flow is X U^T with", factor.to_sympy()),
    ), note="exact: W(t) - W(0) stays in the row space spanned by U^T")


def _derive_equation() -> Derivation:
    value = fixed_point_equation()
    return Derivation(value.to_sympy(), (
        Step("flow at W = W_{mu-1} + Q U^T, exact SVD identities (U^T U = V^T V = I)",
             value.to_sympy()),), note="the paper's Sigma is written Lambda here")


def _derive_q() -> Derivation:
    Q = q_solution()
    return Derivation(Q.to_sympy(), (
        Step("U^T cancelled, solved for Q (Sigma positive diagonal: one solution)",
             Q.to_sympy()),), note="the paper's Sigma is written Lambda here")


def _derive_fixed_point() -> Derivation:
    W = fixed_point()
    return Derivation(W.to_sympy(), (
        Step("Q", q_solution().to_sympy()),
        Step("W = W_{mu-1} + Q U^T", W.to_sympy(), "B V Sigma^{-1} U^T = B (D A)^+"),
    ), note="exact for D A of full column rank (alpha Nx >= Ns almost surely suffices); the "
            "paper's Sigma is written Lambda here")


def _derive_weights() -> Derivation:
    W1, W2 = two_task_weights()
    return Derivation(sp.Tuple(W1.to_sympy(), W2.to_sympy()), (
        Step("W_1: the fixed point from W_0 = 0", W1.to_sympy()),
        Step("W_2: the fixed point from W_1", W2.to_sympy()),
    ))


def _same_tuple(a: sp.Basic, b: sp.Basic) -> bool:
    return len(a) == len(b) and all(same_matrix_expression(x, y) for x, y in zip(a, b))


# the printed forms, multiplied out and reduced with the same exact SVD identities
_printed_equation = reduce_svd(((_W_PREV + _Q @ SVD_U.T) @ SVD_U @ SVD_LAMBDA - _B @ SVD_V)
                               @ SVD_LAMBDA @ SVD_U.T)
_printed_q = reduce_svd((_B @ SVD_V - _W_PREV @ SVD_U @ SVD_LAMBDA) @ SVD_LAMBDA_INV)
_printed_fixed_point = _W_PREV @ (eye("x") - SVD_U @ SVD_U.T) + _B @ _PINV
_printed_weights = sp.Tuple(
    (opaque("B_1", "y", "s") @ _pinv(1)).to_sympy(),
    (opaque("B_1", "y", "s") @ _pinv(1) @ (eye("x") - _projector(2))
     + opaque("B_2", "y", "s") @ _pinv(2)).to_sympy())

CLAIMS: list[Claim] = [
    Claim("vanilla.gd_fixed_point", "Sec. 4, eq_gd_fp_vanilla",
          (_W_PREV @ (eye("x") - SVD_U @ SVD_U.T) + _B @ _PINV).to_sympy(),
          r"W_{\mu} = W_{\mu-1} (I - U_{\mu} U_{\mu}^T) + B_{\mu} A_{\mu}^+",
          _derive_fixed_point, equivalent=same_matrix_expression, line=178, headline=True,
          note="the vanilla model is D = I: A = U Lambda V^T and A^+ = V Lambda^{-1} U^T",
          condition="A_mu of full column rank (Nx >= Ns): exact, no surrogate",
          restates=((176, r"The fixed point of this dynamics"),)),
    Claim("gating.gd_span", "Appendix B.1, eq_gated_gd_def_Q", sp.true,
          r"W(t) = W(t=0) + Q(t) U_{\mu}^T", _derive_span, line=488, headline=True,
          condition="exact for any W(0)"),
    Claim("gating.gd_fixed_point_equation", "Appendix B.1, eq_gated_gd_fixed_point",
          _printed_equation.to_sympy(),
          r"\left( \left[ W_{\mu-1} + Q U_{\mu}^T \right] U_{\mu} \Sigma_{\mu} - B_{\mu} "
          r"V_{\mu} \right) \Sigma_{\mu} U_{\mu}^T", _derive_equation,
          equivalent=same_matrix_expression, line=493, headline=True),
    Claim("gating.gd_q", "Appendix B.1, before eq_W_fp_gated_gd", _printed_q.to_sympy(),
          r"\left( B_{\mu} V_{\mu} - W_{\mu-1} U_{\mu} \Sigma_{\mu} \right) "
          r"\Sigma_{\mu}^{-1}", _derive_q, equivalent=same_matrix_expression, line=501,
          headline=True, restates=((498, r"the equation above has a unique solution"),)),
    Claim("gating.gd_fixed_point", "Appendix B.1, eq_W_fp_gated_gd",
          _printed_fixed_point.to_sympy(),
          r"W_{\mu-1} \left( I_x - U_{\mu} U_{\mu}^T \right) + B_{\mu} (D_{\mu} A_{\mu})^+",
          _derive_fixed_point, equivalent=same_matrix_expression, line=503,
          headline=True, condition="D_mu A_mu of full column rank (alpha Nx >= Ns)",
          restates=((539, r"$(DA)^+ = V \Sigma^{-1} U^T$"),)),
    Claim("gating.gd_weights", "Appendix B.1, eq_W1_W2_expression", _printed_weights,
          r"W_1 = B_1 (D_1 A_1)^+, \quad W_2 = B_1 (D_1 A_1)^+ (I_x - U_2 U_2^T) + B_2 "
          r"(D_2 A_2)^+", _derive_weights, equivalent=_same_tuple, line=522, headline=True,
          note="(D_mu A_mu)^+ = V_mu Sigma_mu^{-1} U_mu^T"),
]
