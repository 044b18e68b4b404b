"""Plasticity gating (Appendix subsec_appendix_plasticity_gating; Sec. 5.3, Fig. 3C).

Only the synapses from a random subset of inputs are plastic during task mu: with
D_mu = diag(g_mu), g_mu Bernoulli(alpha) independent across tasks, the weights follow

    dW/dt = -(W A_mu - B_mu)(D_mu A_mu)^T                     (not the gradient of a loss).

What is derived here, and how
-----------------------------
1. Span: every word of the flow ends in A_mu^T D_mu, so W = W_{mu-1} + Q A_mu^T D_mu.
   D_mu A_mu of full column rank (alpha Nx >= Ns) makes (D_mu A_mu)^T of full row rank, so the
   fixed point satisfies W A_mu = B_mu *exactly*; solved for Q with K = (A^T D A)^{-1}:
   W = W_{mu-1} + (B_mu - W_{mu-1} A_mu) K A_mu^T D_mu (:func:`fixed_point`). With
   A = U Lam V^T this is the appendix's U-form (:func:`fixed_point_svd_form`), checked with
   exact identities only.
2. Surrogate: K -> (Ns / (alpha Nx)) I_s (eq_ap_DAtDA_approx; mean computed by the engine),
   after the exact identity K A^T D A = I_s has been used wherever it applies.
3. Errors are averaged with every Gram block A_mu^T [D] A_nu replaced by its mean
   (leading order) or exactly at finite N by :mod:`tasksim.derivations.engine` (gates independent
   across tasks, rho_g = 0).

Examples
--------
>>> from tasksim.derivations.symbols import rho_a, rho_b
>>> sp.factor(transfer())                 # alpha has cancelled: the vanilla transfer
-rho_a*(rho_a - 2*rho_b)
>>> retention().has(alpha)
False

References
----------
paper.tex: subsec_appendix_plasticity_gating, eq_ap_DAtDA_approx, eq_epsilon_vanilla.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable, Optional

import sympy as sp

from .latex import inline_math
from .claims import Claim, Derivation, Step
from .engine import ratio_expansion
from .span_algebra import (SVD_LAMBDA, SVD_LAMBDA_INV, SVD_U, SVD_V, by_powers_of_nx,
                           expected_error, gram_mean, reduce_svd, same_matrix_expression,
                           solve_right_linear, strip_suffix)
from .matrix_words import MatrixExpr, eye, gate, opaque, readout, task
from .symbols import Ns, Nx, alpha, rho_a, rho_b, rho_g  # noqa: F401 (Ns, Nx: doctests)

PAPER_GENERATOR = "appendix"

__all__ = [
    "flow",
    "fixed_point",
    "fixed_point_svd_form",
    "weights",
    "transfer",
    "retention",
    "CLAIMS",
]

# template letters for task mu (instantiated with task(mu), gate(mu), readout(mu))
_A = opaque("A_mu", "x", "s")
_B = opaque("B_mu", "y", "s")
_D = opaque("D_mu", "x", "x", symmetric=True)
_W_PREV = opaque("W_{mu-1}", "y", "x")
_W = opaque("W", "y", "x")
_Q = opaque("Q", "y", "s")
_K = opaque("K", "s", "s", symmetric=True)  # (A^T D A)^{-1}
_K_U = opaque("(U^T D U)^{-1}", "s", "s", symmetric=True)


def flow(W: MatrixExpr = _W) -> MatrixExpr:
    """-dW/dt = (W A_mu - B_mu)(D_mu A_mu)^T in template letters.

    >>> flow()
    (-1)*B_mu A_mu^T D_mu + W A_mu A_mu^T D_mu
    """
    return (W @ _A - _B) @ (_D @ _A).T


@lru_cache(maxsize=1)
def fixed_point() -> MatrixExpr:
    """W = W_{mu-1} + (B_mu - W_{mu-1} A_mu) K A_mu^T D_mu, K = (A_mu^T D_mu A_mu)^{-1}.

    Derived: the flow ends in A^T D for every W (span); with W = W_{mu-1} + Q A^T D the
    factor (D A)^T of full row rank is cancelled and W A - B = 0 is solved for Q, whose right
    coefficient must be A^T D A (then Q = R K).

    >>> fixed_point()
    W_{mu-1} + B_mu K A_mu^T D_mu + (-1)*W_{mu-1} A_mu K A_mu^T D_mu
    """
    suffix = (_D @ _A).T
    strip_suffix(flow(), suffix)  # the span argument: holds for an arbitrary W
    residual = strip_suffix(flow(_W_PREV + _Q @ suffix), suffix)  # W A - B = 0
    (M,), R = solve_right_linear(residual, [_Q])
    if not (M == _A.T @ _D @ _A):
        raise ValueError(f"unexpected coefficient of Q: {M}")
    return _W_PREV + R @ _K @ suffix


def fixed_point_svd_form() -> tuple[MatrixExpr, MatrixExpr]:
    """The fixed point with A = U Lam V^T and K = V Lam^{-1} (U^T D U)^{-1} Lam^{-1} V^T,
    reduced by exact SVD identities; returns ``(W, check)`` where ``check`` = (A^T D A) K - I
    reduced with (U^T D U)(U^T D U)^{-1} = I (it must vanish, so K is the inverse).

    >>> W, check = fixed_point_svd_form()
    >>> check.terms_count()
    0
    """
    A_svd = SVD_U @ SVD_LAMBDA @ SVD_V.T
    K_svd = SVD_V @ SVD_LAMBDA_INV @ _K_U @ SVD_LAMBDA_INV @ SVD_V.T
    UDU = SVD_U.T @ _D @ SVD_U
    rules = [(UDU @ _K_U, eye("s")), (_K_U @ UDU, eye("s"))]
    check = reduce_svd((A_svd.T @ _D @ A_svd) @ K_svd - eye("s"), rules)
    W = reduce_svd(fixed_point().subs({_A: A_svd, _K: K_svd}), rules)
    return W, check


def _step(previous: MatrixExpr, mu: int, K_mu: MatrixExpr) -> MatrixExpr:
    return fixed_point().subs({_W_PREV: previous, _A: task(mu), _B: readout(mu),
                               _D: gate(mu), _K: K_mu})


@lru_cache(maxsize=1)
def weights() -> tuple[MatrixExpr, MatrixExpr, dict[MatrixExpr, MatrixExpr]]:
    """(W_1, W_2, K) from W_0 = 0, with the inverse K_mu = (A_mu^T D_mu A_mu)^{-1} kept as
    opaque letters (``K`` maps each to its surrogate).

    >>> W1, W2, K = weights()
    >>> W1
    B_1 K_1 A_1^T D_1
    """
    K = {mu: opaque(f"K_{mu}", "s", "s", symmetric=True) for mu in (1, 2)}
    W1 = _step(MatrixExpr({}, "y", "x"), 1, K[1])
    W2 = _step(W1, 2, K[2])
    surrogates = {K[mu]: (1 / gram_mean(task(mu).T @ gate(mu) @ task(mu))) * eye("s")
                  for mu in (1, 2)}
    return W1, W2, surrogates


def _error(residual: MatrixExpr, expectation: str, surrogates: dict[MatrixExpr, MatrixExpr]
           ) -> sp.Expr:
    """Exact identities K_mu A_mu^T D_mu A_mu = I first, then the surrogate for K_mu."""
    for K_mu, mu in zip(surrogates, (1, 2)):
        residual = residual.replace(K_mu @ task(mu).T @ gate(mu) @ task(mu), eye("s"))
    residual = residual.subs(surrogates)
    value = expected_error(residual, expectation)
    return sp.expand(value.subs(rho_g, 0))


def _surrogates(inverse_value: Optional[sp.Expr]) -> dict[MatrixExpr, MatrixExpr]:
    _, _, K = weights()
    if inverse_value is None:
        return K
    return {letter: inverse_value * eye("s") for letter in K}


@lru_cache(maxsize=None)
def transfer(expectation: str = "surrogate", inverse_value: Optional[sp.Expr] = None
             ) -> sp.Expr:
    """Delta eps_TF = <eps_2[0]> - <eps_2[W_1]>.

    ``inverse_value`` replaces the surrogate of K_mu = (A^T D A)^{-1} (default: the inverse
    of the mean, Ns/(alpha Nx)); the tests use it to show what the cancellation of alpha
    rests on.

    >>> sp.factor(transfer("gaussian") - transfer())
    -(N_s - alpha*rho_a**2 + 2*rho_a**2)/(N_x*alpha)
    >>> sp.factor(transfer(inverse_value=Ns / Nx))     # K ~ (Ns/Nx) I: activity gating's
    -alpha*rho_a*(alpha*rho_a - 2*rho_b)
    """
    W1, _, _ = weights()
    K = _surrogates(inverse_value)
    return by_powers_of_nx(_error(readout(2), expectation, K)
                           - _error(readout(2) - W1 @ task(2), expectation, K))


@lru_cache(maxsize=None)
def retention(expectation: str = "surrogate", inverse_value: Optional[sp.Expr] = None
              ) -> sp.Expr:
    """Delta eps_RT = <eps_1[0]> - <eps_1[W_2]> (``inverse_value`` as in :func:`transfer`).

    >>> sp.factor(retention())
    -rho_a**4 + 2*rho_a**3*rho_b - rho_a**2 + 1
    """
    _, W2, _ = weights()
    K = _surrogates(inverse_value)
    return by_powers_of_nx(_error(readout(1), expectation, K)
                           - _error(readout(1) - W2 @ task(1), expectation, K))


# =========================================================================================
# Claims
# =========================================================================================

_WHERE = "Appendix subsec_appendix_plasticity_gating"
_VANILLA_TF = rho_a * (2 * rho_b - rho_a)
_VANILLA_RT = 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1)


def _derive_fixed_point() -> Derivation:
    W, check = fixed_point_svd_form()
    if check.terms_count():
        raise ValueError(f"K is not the inverse of A^T D A: {check}")
    return Derivation(W.to_sympy(), (
        Step("fixed point in A-form (W A = B exactly)", fixed_point().to_sympy()),
        Step("A = U Lam V^T, K = V Lam^-1 (U^T D U)^-1 Lam^-1 V^T (checked inverse)",
             W.to_sympy()),
    ))


def _derive(kind: str, expectation: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = (transfer if kind == "transfer" else retention)(expectation)
        W1, W2, K = weights()
        steps = (Step("W_1", W1.to_sympy()), Step("W_2", W2.to_sympy()),
                 Step("surrogate K_mu -> (A_mu^T D_mu A_mu mean)^-1 (eq_ap_DAtDA_approx)",
                      sp.Tuple(*[v.to_sympy() for v in K.values()])),
                 Step(f"{kind}, {expectation}", value))
        note = ""
        if expectation != "surrogate":
            c1 = sp.factor(ratio_expansion(value, 1, gated=True)[1])
            steps += (Step("coefficient of Ns/(alpha Nx)", c1),)
            note = (f"first-order coefficient in Ns/(alpha Nx): {inline_math(c1)}; the "
                    "finite-size correction depends on alpha")
        return Derivation(value, steps, exact=expectation != "surrogate", note=note)
    return derive


def _derive_alpha_free() -> Derivation:
    derivative = sp.simplify(sp.Abs(sp.diff(transfer(), alpha)) +
                             sp.Abs(sp.diff(retention(), alpha)))
    return Derivation(derivative, (Step("|d transfer/d alpha| + |d retention/d alpha|",
                                        derivative),), exact=False)


# Why the surrogate's alpha-gap measures a finite-size effect of the surrogate, not of the model
# (both readings of the gap, lines 269 and 813, carry it).
_SURROGATE_GAP_IS_NOT_THE_MODELS = (
    "The surrogate's gap is not the model's: at rho_a = 1 (A_2 = A_1) the gated flow reaches "
    "W_2 A_1 = B_2 for every alpha with alpha Nx >= Ns, so the model's gap vanishes there, "
    "where the surrogate's is largest on the grid")


@lru_cache(maxsize=1)
def _derive_alpha_dependence_at_finite_size() -> Derivation:
    """The retention at gating level alpha minus the retention at alpha = 1 (no gating), at
    finite size: the exact expectation of the surrogate weights (appendix generator)."""
    R = retention(PAPER_GENERATOR)
    T = transfer(PAPER_GENERATOR)
    gap_R = by_powers_of_nx(R - R.subs(alpha, 1))
    gap_T = by_powers_of_nx(T - T.subs(alpha, 1))
    c1 = sp.factor(ratio_expansion(gap_R, 1, gated=True)[1])
    return Derivation(gap_R, (
        Step("Delta eps_TF(alpha) - Delta eps_TF(1), finite size", gap_T),
        Step("Delta eps_RT(alpha) - Delta eps_RT(1), finite size", gap_R),
        Step("coefficient of Ns/(alpha Nx) in the retention gap", c1),
    ), exact=False, stronger_condition=_stronger_condition(c1),
        note="exact expectation of the surrogate weights (K -> its mean): the gap is "
             "a series in Ns/(alpha Nx), so alpha-independence needs Ns << alpha Nx, "
             "not only Ns << Nx; measured with the exact solvers in the report. "
             + _SURROGATE_GAP_IS_NOT_THE_MODELS)


def _derive_alpha_dependence_up_to_leading_order() -> Derivation:
    """Line 813's reading of the same finite-size gap: "up to the leading order" at a fixed
    gating level, where Ns << Nx already implies Ns << alpha Nx. So the series in
    Ns/(alpha Nx) is the statement's own finite-size correction, not a narrower regime (line
    269, which leaves alpha free, is judged with the stronger condition)."""
    found = _derive_alpha_dependence_at_finite_size()
    return dataclasses.replace(
        found, stronger_condition="",
        note="at a fixed gating level alpha, leading order in Ns/Nx implies Ns << alpha Nx, "
             "so the gap, a series in Ns/(alpha Nx), vanishes in the stated regime; its size "
             "at the paper's sizes is measured with the exact solvers in the report. "
             + _SURROGATE_GAP_IS_NOT_THE_MODELS)


def _stronger_condition(c1: sp.Expr) -> str:
    """"Ns << alpha Nx" when the gap's first term c1 Ns/(alpha Nx) does not vanish with
    Ns/Nx uniformly in alpha (c1 does not vanish as alpha -> 0, so at any fixed Ns/Nx a small
    enough alpha makes the gap of order one); empty when Ns << Nx suffices (c1 -> 0).

    >>> _stronger_condition(alpha - 1), _stronger_condition(alpha * rho_a)
    ('Ns << alpha Nx', '')
    """
    if sp.simplify(sp.limit(c1, alpha, 0)) == 0:
        return ""
    return "Ns << alpha Nx"


def _claims() -> list[Claim]:
    printed_fp = (_W_PREV + (_B @ SVD_V @ SVD_LAMBDA_INV - _W_PREV @ SVD_U) @ _K_U
                  @ SVD_U.T @ _D)
    leading = "up to the leading order, gating level $\\alpha$ does not affect the transfer and " \
        "retention performance"
    main = (r"both transfer and retention performance are independent of the fraction of "
            r"plastic synapses in the $N_s \ll N_x$ limit")
    claims = [
        Claim("plasticity.fixed_point", f"{_WHERE}: fixed point", printed_fp.to_sympy(),
              r"= W_{\mu-1} + (B_{\mu} V_{\mu} \Lambda_{\mu}^{-1} - W_{\mu-1} U_{\mu}) "
              r"(U_{\mu}^T D_{\mu} U_{\mu})^{-1} U_{\mu}^T D_{\mu}", _derive_fixed_point,
              equivalent=same_matrix_expression, line=810, headline=True,
              condition="exact for D_mu A_mu of full column rank (alpha Nx >= Ns)"),
        Claim("plasticity.alpha_independence", "Sec. 5.3: 'both transfer and retention "
              "performance are independent of the fraction of plastic synapses' (Fig. 3C)",
              sp.Integer(0), main, _derive_alpha_dependence_at_finite_size, line=269,
              headline=True, condition="Ns << Nx, as printed; the alpha dependence is a "
              "series in Ns/(alpha Nx)",
              observable="Delta eps_RT(alpha) - Delta eps_RT(1)",
              note="read as: Delta eps_TF and Delta eps_RT do not change with alpha (the "
                   "retention gap is the derived expression; the transfer gap is in the "
                   "steps). A stronger "
                   "condition here, not at line 813: this sentence states the limit with "
                   "alpha left free (for activity gating, line 233, the paper writes Ns << "
                   "alpha Nx; here only Ns << Nx), so it is judged at small alpha too: at "
                   "alpha = 0.1 the measured gap at the paper's sizes is many standard errors "
                   "from zero (its size); line 813 says 'up to the leading order' at a fixed "
                   "alpha",
              restates=((62, r"task-dependent plasticity gating does not affect either "
                             r"retention or transfer performance at the over-parameterized "
                             r"limit"),
                        (91, r"Plasticity gating"))),
        Claim("plasticity.alpha_independence.leading_order", f"{_WHERE}: 'up to the leading "
              "order, gating level alpha does not affect the transfer and retention'",
              sp.Integer(0), leading, _derive_alpha_dependence_up_to_leading_order, line=813,
              headline=True, condition="leading order in Ns/Nx at a fixed gating level alpha, as "
              "the appendix says; the alpha dependence is a series in Ns/(alpha Nx)",
              observable="Delta eps_RT(alpha) - Delta eps_RT(1)",
              note="a statement of its own, not a restatement of line 269: the same "
                   "finite-size derivation, read as what this sentence says: Delta eps_RT(alpha) "
                   "- Delta eps_RT(1) = 0 up to "
                   "the leading order at a fixed alpha, where Ns << Nx implies Ns << alpha Nx "
                   "(|d transfer/d alpha| + |d retention/d alpha| = 0 at leading order is the "
                   "step plasticity.alpha_free). Line 269 states the limit with alpha left "
                   "free (where line 233 writes Ns << alpha Nx for activity gating), so it "
                   "holds only under Ns << alpha Nx; the gap measured at alpha = 0.1 (this "
                   "statement's size) is the leading order's error at the paper's sizes"),
        Claim("plasticity.alpha_free", f"{_WHERE}: 'up to the leading order, gating level "
              "alpha does not affect the transfer and retention'", sp.Integer(0), leading,
              _derive_alpha_free, line=813, condition="leading order in Ns/(alpha Nx)",
              note="a step: |d transfer/d alpha| + |d retention/d alpha| = 0 at leading order"),
        Claim("plasticity.transfer", f"{_WHERE}: 'up to the leading order, gating level alpha "
              "does not affect the transfer' (= vanilla, eq_epsilon_vanilla)", _VANILLA_TF,
              leading, _derive("transfer", "surrogate"), line=813,
              note="read as: the transfer equals the vanilla one (eq_epsilon_vanilla)"),
        Claim("plasticity.retention", f"{_WHERE}: '... nor the retention' (= vanilla, "
              "eq_epsilon_vanilla)", _VANILLA_RT, leading, _derive("retention", "surrogate"),
              line=813, note="read as: the retention equals the vanilla one "
                             "(eq_epsilon_vanilla)"),
    ]
    for generator in ("gaussian", "appendix"):
        claims += [
            Claim(f"plasticity.transfer.finite_n.{generator}", f"Sec. 5.3 / {_WHERE}: transfer, exact "
                  "expectation of the surrogate weights", _VANILLA_TF, main,
                  _derive("transfer", generator), line=269,
                  note="read as: the transfer equals the vanilla one at every alpha"),
            Claim(f"plasticity.retention.finite_n.{generator}", f"Sec. 5.3 / {_WHERE}: retention, exact "
                  "expectation of the surrogate weights", _VANILLA_RT, main,
                  _derive("retention", generator), line=269,
                  note="read as: the retention equals the vanilla one at every alpha"),
        ]
    return claims


CLAIMS: list[Claim] = _claims()
