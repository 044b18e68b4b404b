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
4. *two tasks* from W_0 = 0 (eq_W1_W2_expression);
5. *the errors* of lines 483-537: the flow in the SVD's letters, and the residual B - W D A
   (eps[W] = ||B - W D A||_F^2 / Ny, eq_ap_epsilonW) at W_mu, W_o = 0, W_1 and W_2, reduced
   with the thin-SVD identities and compared with the matrix each display prints inside its
   norm (up to sign).

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


# -- the errors of Appendix B.1 (lines 483-537): residuals of the fixed points, exactly -----------

def _features(mu: int) -> MatrixExpr:
    """D_mu A_mu = U_mu Sigma_mu V_mu^T in task mu's letters."""
    letters = _task_letters(mu)
    return letters[SVD_U] @ letters[SVD_LAMBDA] @ letters[SVD_V].T


def _thin_svd_rules(full_rank: bool = False) -> list[tuple[MatrixExpr, MatrixExpr]]:
    """U_mu^T U_mu = V_mu^T V_mu = Sigma_mu Sigma_mu^{-1} = I for both tasks (any rank: the thin
    SVD); with ``full_rank`` also V_mu V_mu^T = I (D_mu A_mu of full column rank)."""
    rules = []
    for mu in (1, 2):
        t = _task_letters(mu)
        rules += [(t[SVD_U].T @ t[SVD_U], eye("s")), (t[SVD_V].T @ t[SVD_V], eye("s")),
                  (t[SVD_LAMBDA] @ t[SVD_LAMBDA_INV], eye("s")),
                  (t[SVD_LAMBDA_INV] @ t[SVD_LAMBDA], eye("s"))]
        if full_rank:
            rules.append((t[SVD_V] @ t[SVD_V].T, eye("s")))
    return rules


def _reduce(expression: MatrixExpr, full_rank: bool = False) -> MatrixExpr:
    current = expression
    for _ in range(50):
        before = current
        for pattern, by in _thin_svd_rules(full_rank):
            current = current.replace(pattern, by)
        if current == before:
            return current
    raise ValueError("the SVD reduction did not terminate")


def flow_in_svd() -> MatrixExpr:
    """The flow with D A = U Sig V^T and V^T V = I (line 483's rewriting)."""
    return _reduce_generic(flow())


def residuals() -> dict[str, MatrixExpr]:
    """B_mu - W D_mu A_mu (the matrix whose squared norm / Ny is eps_mu[W],
    eq_ap_epsilonW) at the fixed points, reduced with the thin-SVD identities only (no rank
    condition) except ``eps_1[W_2], second row`` (V_1 V_1^T = I: full column rank)."""
    W1, W2 = two_task_weights()
    B1, B2 = opaque("B_1", "y", "s"), opaque("B_2", "y", "s")
    learned = _B - fixed_point() @ _FEATURES
    return {
        "eps_mu[W_mu]": _reduce_generic(learned),
        "eps_mu[W_o]": _B - MatrixExpr({}, "y", "x") @ _FEATURES,
        "eps_2[W_1]": _reduce(B2 - W1 @ _features(2)),
        "eps_1[W_2]": _reduce(B1 - W2 @ _features(1)),
        "eps_1[W_2], second row": _reduce(B1 - W2 @ _features(1), full_rank=True),
    }


def _reduce_generic(expression: MatrixExpr) -> MatrixExpr:
    """The generic letters' thin-SVD identities (U^T U, V^T V, Sig Sig^{-1}), no V V^T = I."""
    return reduce_svd(expression, square_v=False)


def _same_norm(a: sp.Basic, b: sp.Basic) -> bool:
    """||a||_F = ||b||_F because a = b or a = -b (the residual's sign is immaterial)."""
    return same_matrix_expression(a, b) or same_matrix_expression(a, -b)


def _derive_residual(name: str, what: str) -> "callable":
    def derive() -> Derivation:
        value = residuals()[name]
        return Derivation(value.to_sympy(), (
            Step(f"B - W D A at {what}, reduced with the thin-SVD identities", value.to_sympy(),
                 "eps[W] = ||B - W D A||_F^2 / Ny (eq_ap_epsilonW): the displays print this "
                 "matrix inside the norm"),))
    return derive


def _derive_flow_in_svd() -> Derivation:
    value = flow_in_svd()
    return Derivation(value.to_sympy(), (
        Step("the flow (W D A - B)(D A)^T with D A = U Sigma V^T", flow().to_sympy()),
        Step("V^T V = I", value.to_sympy())), note="the paper's Sigma is written Lambda here")


_B1, _B2 = opaque("B_1", "y", "s"), opaque("B_2", "y", "s")
# the printed matrices, multiplied out and reduced with the same thin-SVD identities
_printed_residuals = {
    "eps_mu[W_mu]": _B @ (SVD_V @ SVD_V.T - eye("s")),
    "eps_mu[W_o]": _B,
    "eps_2[W_1]": _B2 - _B1 @ _pinv(1) @ _features(2),
    "eps_1[W_2]": _B1 @ (eye("s") - _pinv(1) @ (eye("x") - _projector(2)) @ _features(1))
    - _B2 @ _pinv(2) @ _features(1),
    "eps_1[W_2], second row": _B1 @ _pinv(1) @ _projector(2) @ _features(1)
    - _B2 @ _pinv(2) @ _features(1),
}
_printed_residuals = {k: _reduce_generic(v) if k == "eps_mu[W_mu]" else _reduce(v)
                      for k, v in _printed_residuals.items()}

CLAIMS += [
    Claim("gating.gd_flow_in_svd", "Appendix B.1: the flow rewritten with the SVD",
          ((_W @ SVD_U @ SVD_LAMBDA - _B @ SVD_V) @ SVD_LAMBDA @ SVD_U.T).to_sympy(),
          r"= - \frac{2\eta}{N_y} \left( W U_{\mu} \Sigma_{\mu} - B_{\mu} V_{\mu} \right) "
          r"\Sigma_{\mu} U_{\mu}^T", _derive_flow_in_svd, equivalent=same_matrix_expression,
          line=484, headline=True, condition="exact (V^T V = I of the thin SVD); the factor "
          "-2 eta / Ny is common to both sides"),
    Claim("gating.error_after_learning", "Appendix B.1: eps_mu[W_mu]",
          _printed_residuals["eps_mu[W_mu]"].to_sympy(),
          r"B_{\mu} \left( V_{\mu} V_{\mu}^T - I_s \right)",
          _derive_residual("eps_mu[W_mu]", "W_mu = W_{mu-1}(I - U U^T) + B (D A)^+"),
          equivalent=_same_norm, line=513, headline=True,
          condition="exact for any D A (thin SVD); 0 when D A has full column rank"),
    Claim("gating.error_at_zero_weight", "Appendix B.1: eps_mu[W_o]",
          _printed_residuals["eps_mu[W_o]"].to_sympy(),
          r"\epsilon_{\mu} [W_o] = \frac{1}{N_y} \llv B_{\mu} \rrv_F^2",
          _derive_residual("eps_mu[W_o]", "W_o = 0"), equivalent=_same_norm, line=518,
          headline=True, condition="exact"),
    Claim("gating.error_2_after_1", "Appendix B.1: eps_2[W_1]",
          _printed_residuals["eps_2[W_1]"].to_sympy(),
          r"\frac{1}{N_y} \llv B_2 - B_1 (D_1 A_1)^+ D_2 A_2 \rrv_F^2",
          _derive_residual("eps_2[W_1]", "W_1 of eq_W1_W2_expression"), equivalent=_same_norm,
          line=528, headline=True, condition="exact for any task matrices"),
    Claim("gating.error_1_after_2", "Appendix B.1: eps_1[W_2]",
          _printed_residuals["eps_1[W_2]"].to_sympy(),
          r"B_1 \left( I_s - (D_1 A_1)^+ (I_x - U_2 U_2^T) D_1 A_1 \right) - B_2 (D_2 A_2)^+ "
          r"D_1 A_1", _derive_residual("eps_1[W_2]", "W_2 of eq_W1_W2_expression"),
          equivalent=_same_norm, line=534, headline=True,
          condition="exact for any task matrices",
          restates=((635, r"= \frac{1}{N_y} \llv B_1 - \left[ B_1 (D_1 A_1)^+ (I_x - U_2 "
                          r"U_2^T) + B_2 (D_2 A_2)^+ \right] D_1 A_1 \rrv_F^2"),)),
    Claim("gating.error_1_after_2.reduced", "Appendix B.1: eps_1[W_2], second row",
          _printed_residuals["eps_1[W_2], second row"].to_sympy(),
          r"= \frac{1}{N_y} \llv B_1 (D_1 A_1)^+ U_2 U_2^T D_1 A_1 - B_2 (D_2 A_2)^+ D_1 A_1 "
          r"\rrv_F^2", _derive_residual("eps_1[W_2], second row",
                                         "W_2 of eq_W1_W2_expression, (D_1 A_1)^+ D_1 A_1 = I"),
          equivalent=_same_norm, line=637, headline=True,
          condition="exact when D_1 A_1 has full column rank (alpha Nx >= Ns: V_1 V_1^T = I)"),
]
