"""Transfer and retention to next-to-leading order in 1/Nx, exact, for every Gram-based model.

For vanilla (Sec. 4), random activity gating (Sec. 5.1, Appendix B.1), plasticity gating
(Sec. 5.3, Appendix B.2), Euclidean (Sec. 6.1, Appendix C.1) and Fisher-metric (Sec. 6.2,
Appendix C.2) regularization, and both task generators:

    Delta eps = leading + c / Nx + O(Nx^-2)      at fixed Ns, rho_a, rho_b, alpha or gamma,

with c exact at every Ns (:func:`finite_size`). The paper prints finite-size terms only through
the tall-matrix surrogates (eq_DA+_approx, eq_UUt_approx, eq_AtA_approx), which are exact for
the surrogate weights but not for the model; :func:`paper_nlo` is the coefficient its printed
terms imply, where it prints them.

Route
-----
1. *Fixed points*, as derived by the model's module: vanilla and activity gating
   (eq_W1_W2_expression, :mod:`tasksim.derivations.two_task`), plasticity gating
   (:func:`tasksim.derivations.plasticity.weights`), Euclidean (the stationary solution and
   its Woodbury inverse, :mod:`tasksim.derivations.euclidean`), Fisher (the exact conditions
   of eq_ap_defQ_wr_fim, :func:`tasksim.derivations.fisher.exact_retention`; the first task is
   learned without regularization, as the appendix assumes, so W_1 = B_1 A_1^+).
2. *Exact identities* (no surrogate): (D A)^+ = (A^T D A)^{-1} (D A)^T and
   U U^T = D A (A^T D A)^{-1} A^T D (full column rank), K_mu = (A_mu^T D_mu A_mu)^{-1}
   (plasticity), (A A^T + lam I_x)^{-1} = (1/lam)(I_x - A (A^T A + lam I_s)^{-1} A^T)
   (Woodbury); every inverse is an Ns x Ns :class:`tasksim.derivations.gram_expansion.GramInverse`.
3. *Readout expectation* (exact: E[B_mu^T B_nu] = (Ny/Ns) rho_b^|mu - nu| I_s).
4. *Expansion about the mean Gram*, to second order, with the engine's exact second moments
   (:func:`tasksim.derivations.gram_expansion.expand_trace`): the coefficient of 1/Nx is exact
   because higher orders are O(Nx^-2). The leading order it returns is checked against the
   registry's leading-order claims by the tests.

Random gating draws independent gates (rho_g = 0, alpha~ = alpha); :func:`correlated_gating`
keeps rho_g, and :func:`adaptive_gating_transfer` puts in the rho_g adaptive gating's probe sets
(Sec. 5.2). Euclidean uses the main
text's amplitude lam = (Nx/Ns)(1/gamma - 1) (eq_main_lmu_wreg) and a regularized first task.
Fisher needs lam > 0 (at lam = 0 it is the vanilla model); at rho_a = 1 it is a different
fixed point (fisher.rho1.*), exact at every Nx, so its 1/Nx term vanishes; the coefficients
here are for lam > 0 and rho_a < 1.

Examples
--------
The vanilla transfer's 1/Nx coefficient under the gaussian generator is that of the
inverse-Wishart closed form (:func:`tasksim.derivations.vanilla.exact_gaussian_transfer`):

>>> fs = finite_size("vanilla", "transfer", "gaussian")
>>> fs.leading, fs.nlo
(-rho_a*(rho_a - 2*rho_b), N_s*(rho_a - 1)*(rho_a + 1))
>>> paper_nlo("vanilla", "transfer")          # from eq_ap_etf_gated1's printed terms
-N_s - rho_a**2
>>> finite_size("fisher", "retention").nlo    # a task learned exactly is never forgotten
0
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import sympy as sp

from . import euclidean, fisher, gating, plasticity
from .latex import inline_math
from .claims import Claim, Derivation, Step
from .gram_expansion import GramInverse, expand_trace
from .matrix_words import MatrixExpr, eye, gate, readout, task
from .span_algebra import substitute_scalar, to_words
from .symbols import Ns, Nx, alpha, alpha_t, gamma, lam, rho_b, rho_g
from .two_task import TwoTaskModel, readout_average

__all__ = ["MODELS", "QUANTITIES", "FiniteSize", "finite_size", "correlated_gating",
           "adaptive_gating_transfer", "paper_nlo", "CLAIMS"]

MODELS = ("vanilla", "random-gating", "plasticity-gating", "euclidean", "fisher")
"""The models whose errors are functions of a Gram matrix (the CLI's names)."""
QUANTITIES = ("transfer", "retention")
LEARNED = "learned"
"""The error on task 1 right after learning it, <eps_1[W_1]> (not a difference): a quantity of
the Euclidean model only (the least-squares models learn a task exactly, eps_1[W_1] = 0);
it sizes line 313 and makes no claims of its own."""
GENERATORS = ("gaussian", "appendix")


@dataclass(frozen=True)
class FiniteSize:
    """``leading`` + ``nlo`` / Nx + O(Nx^-2): a quantity's expansion at fixed Ns, exact to
    order 1/Nx, and the steps that produced it."""

    leading: sp.Expr
    nlo: sp.Expr
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class _Errors:
    """A model's fixed points as residuals: ``residual[quantity]`` is B_mu - W F_mu (mu = 2
    for the transfer after task 1, mu = 1 for the retention after task 2), with its inverses."""

    source: str
    weights: tuple[MatrixExpr, ...]
    residual: dict[str, MatrixExpr]
    inverses: dict[MatrixExpr, GramInverse]


def _check(model: str, quantity: str, generator: str) -> None:
    for name, value, allowed in (("model", model, MODELS),
                                 ("quantity", quantity, QUANTITIES + (LEARNED,)),
                                 ("generator", generator, GENERATORS)):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _least_squares(gated: bool) -> _Errors:
    """eq_W1_W2_expression with (F^T F)^{-1} for the pseudo-inverse and projector (exact)."""
    model = TwoTaskModel(gated=gated)
    inverses, table, identities = {}, {}, []
    for mu in (1, 2):
        F = model.features(mu)
        inverse = GramInverse(F)
        inverses[inverse.letter] = inverse
        table[model.pinv(mu)] = inverse.letter @ F.T
        table[model.projector(mu)] = F @ inverse.letter @ F.T
        identities.append(inverse.letter @ F.T @ F)
    residual = {}
    for quantity, (mu, after) in (("transfer", (2, 1)), ("retention", (1, 2))):
        R = model.residual(mu, after).subs(table)
        for pattern in identities:
            R = R.replace(pattern, eye("s"))
        residual[quantity] = R
    source = ("eq_W1_W2_expression with gates (eq_W_fp_gated_gd)" if gated
              else "eq_W1_W2_expression (vanilla: D = I)")
    return _Errors(source, (model.weights(1), model.weights(2)), residual, inverses)


def _plasticity() -> _Errors:
    W1, W2, surrogates = plasticity.weights()
    inverses, table = {}, {}
    for mu, K in zip((1, 2), surrogates):
        inverse = GramInverse(gate(mu) @ task(mu))  # K_mu = (A^T D A)^{-1} = ((DA)^T DA)^{-1}
        inverses[inverse.letter] = inverse
        table[K] = inverse.letter
    residual = {"transfer": (readout(2) - W1 @ task(2)).subs(table),
                "retention": (readout(1) - W2 @ task(1)).subs(table)}
    return _Errors("plasticity.weights (the appendix on plasticity gating), K_mu = "
                   "(A_mu^T D_mu A_mu)^{-1}", (W1, W2), residual, inverses)


def _euclidean() -> _Errors:
    """W = R (A A^T + lam I_x)^{-1} (euclidean.stationary_solution) with the Woodbury inverse
    (1/lam) I_x + A m(G) A^T, m(G) = c (G + lam I_s)^{-1} (euclidean.woodbury_middle_factor)."""
    _, M, W_star = euclidean.stationary_solution()
    R_sym, inverse_of_M = W_star.args
    symbols = {s.name: s for s in W_star.atoms(sp.MatrixSymbol)}
    middle = euclidean.woodbury_middle_factor()
    g = next(s for s in middle.free_symbols if s.name == "g")
    c = sp.cancel(middle * (g + lam))
    if c.has(g) or inverse_of_M != sp.Inverse(M):
        raise ValueError(f"unexpected Euclidean fixed point {W_star} or middle factor {middle}")
    amplitude = euclidean.LAMBDA_OF_GAMMA
    inverses = {}
    weights = [MatrixExpr({}, "y", "x")]
    for mu in (1, 2):
        inverse = GramInverse(task(mu), amplitude)
        inverses[inverse.letter] = inverse
        R = to_words(R_sym, {symbols["B_mu"]: readout(mu), symbols["A_mu"]: task(mu),
                             symbols["W_{mu-1}"]: weights[-1]})
        R = substitute_scalar(R, lam, amplitude)
        woodbury = (eye("x") / amplitude
                    + c.subs(lam, amplitude) * (task(mu) @ inverse.letter @ task(mu).T))
        weights.append(R @ woodbury)
    residual = {"transfer": readout(2) - weights[1] @ task(2),
                "retention": readout(1) - weights[2] @ task(1),
                LEARNED: readout(1) - weights[1] @ task(1)}
    return _Errors("euclidean.stationary_solution, Woodbury inverse, lam = (Nx/Ns)(1/gamma - 1)",
                   tuple(weights[1:]), residual, inverses)


def _fisher() -> _Errors:
    """Task 1 without regularization (W_1 = B_1 A_1^+, the vanilla W_1); the retention from
    the exact conditions (W_2 - W_1) A_1 = 0, W_1 A_1 = B_1 (fisher.exact_retention)."""
    vanilla = _least_squares(gated=False)
    value, residual = fisher.exact_retention()
    if value != 1:
        raise ValueError(f"unexpected exact Fisher retention {value}")
    return _Errors("first task unregularized (W_1 = B_1 A_1^+); fisher.exact_retention "
                   "(eq_ap_defQ_wr_fim, exact conditions)", vanilla.weights[:1],
                   {"transfer": vanilla.residual["transfer"], "retention": residual},
                   vanilla.inverses)


_ERRORS: dict[str, Callable[[], _Errors]] = {
    "vanilla": lambda: _least_squares(gated=False),
    "random-gating": lambda: _least_squares(gated=True),
    "plasticity-gating": _plasticity,
    "euclidean": _euclidean,
    "fisher": _fisher,
}


@lru_cache(maxsize=None)
def _errors(model: str) -> _Errors:
    return _ERRORS[model]()


def _readout_average(residual: MatrixExpr) -> MatrixExpr:
    if residual.terms_count() == 0:
        return MatrixExpr({}, "s", "s")
    return readout_average(residual)


@lru_cache(maxsize=None)
def finite_size(model: str, quantity: str, generator: str = "gaussian") -> FiniteSize:
    """The leading order and the exact 1/Nx coefficient of ``quantity`` (``"transfer"``,
    Delta eps_TF = <eps_2[W_0]> - <eps_2[W_1]>, or ``"retention"``, Delta eps_RT =
    <eps_1[W_0]> - <eps_1[W_2]>; eq_def_delta_epsilon_TF_RT) for ``model`` (module docstring);
    ``"learned"`` (:data:`LEARNED`), the Euclidean model's <eps_1[W_1]>.

    >>> fs = finite_size("random-gating", "transfer")
    >>> sp.factor(fs.leading)                   # eq_rcg_epsilon_TF
    -alpha*rho_a*(alpha*rho_a - 2*rho_b)
    >>> sp.expand(fs.nlo)
    N_s*alpha*rho_a**2 - N_s + 2*alpha*rho_a**2 - 2*rho_a**2
    >>> learned = finite_size("euclidean", "learned")  # line 313's (1 - gamma)^2, and beyond
    >>> sp.factor(learned.leading), sp.factor(learned.nlo)
    ((gamma - 1)**2, 3*gamma**2*(N_s + 1)*(gamma - 1)**2)
    """
    _check(model, quantity, generator)
    return _expansion(model, quantity, generator, independent_gates=True)


@lru_cache(maxsize=None)
def correlated_gating(quantity: str, generator: str = "gaussian") -> FiniteSize:
    """Random activity gating with *correlated* gates: g_2 keeps g_1 with probability rho_g
    (eq_def_rho_g), the gates independent of A and B; the leading order and the exact 1/Nx
    coefficient of ``quantity`` as functions of alpha and rho_g (:func:`finite_size`'s route,
    with the engine's gate moments E[g_1 g_2] = alpha alpha~, alpha~ = alpha + (1 - alpha)
    rho_g). Adaptive gating (Appendix B.1) is this model at the rho_g its probe sets.

    At rho_g = 0 it is ``finite_size("random-gating", ...)``; at rho_g = 1 both tasks use one
    gate, so it is the vanilla model on the alpha Nx units the gate keeps: the vanilla leading
    order and the vanilla coefficient over alpha (the tests check both).

    >>> fs = correlated_gating("transfer")
    >>> sp.factor(fs.leading.subs(rho_g, 1))
    -rho_a*(rho_a - 2*rho_b)
    >>> sp.factor(fs.nlo.subs(rho_g, 1))
    N_s*(rho_a - 1)*(rho_a + 1)/alpha
    """
    _check("random-gating", quantity, generator)
    return _expansion("random-gating", quantity, generator, independent_gates=False)


@lru_cache(maxsize=None)
def adaptive_gating_transfer(generator: str = "gaussian") -> FiniteSize:
    """Adaptive gating's transfer (Sec. 5.2, Appendix B.1): the correlated-gate transfer
    (:func:`correlated_gating`) at the rho_g its probe sets, rho_g = max{0, 1 - eps_pb}, with
    the probe error in expectation (line 744). The probe is the vanilla model on the alpha Nx
    units task 1's gate keeps, so 1 - eps_pb = t + c_v/(alpha Nx) + O(Nx^-2), with t = rho_a
    (2 rho_b - rho_a) and c_v the vanilla transfer's coefficient. Where t > 0 the 1/Nx
    coefficient is therefore C(t) + (dL/drho_g)(t) c_v/alpha (L, C: the correlated-gate
    leading order and coefficient); where t < 0 the gates stay independent (rho_g = 0, the
    random-gating coefficient). Near the curve t = 0 the expansion is not uniform, over a
    band of width |c_v|/(alpha Nx) where the probe's shift moves the clamp's edge: an average
    over rho_a, rho_b (:func:`tasksim.derivations.averages.average_over_unit_square` splits
    the pieces) is exact to order 1/Nx, but at small alpha the band is wide at the paper's
    sizes (a sixth of the unit square at alpha = 0.1), so the next order is not small there.

    >>> fs = adaptive_gating_transfer()
    >>> fs.nlo.args[1][0] == finite_size("random-gating", "transfer").nlo   # t < 0
    True
    """
    from .vanilla import leading_vanilla_transfer

    correlated = correlated_gating("transfer", generator)
    probe_leading = leading_vanilla_transfer()
    probe_nlo = finite_size("vanilla", "transfer", generator).nlo / alpha
    slope = sp.diff(correlated.leading, rho_g)
    inside = sp.expand(correlated.nlo.subs(rho_g, probe_leading)
                       + slope.subs(rho_g, probe_leading) * probe_nlo)
    outside = sp.expand(correlated.nlo.subs(rho_g, 0))
    positive = sp.StrictGreaterThan(sp.expand(probe_leading), 0)
    leading = correlated.leading.subs(rho_g, sp.Max(0, probe_leading))
    nlo = sp.Piecewise((inside, positive), (outside, True))
    steps = correlated.steps + (
        Step("the probe's transfer 1 - eps_pb: the vanilla model on alpha Nx units",
             sp.Tuple(probe_leading, probe_nlo), "leading order and 1/Nx coefficient"),
        Step("rho_g = max{0, 1 - eps_pb}: the coefficient where rho_g > 0 (C + dL/drho_g times "
             "the probe's coefficient) and where rho_g = 0", sp.Tuple(inside, outside)),
    )
    return FiniteSize(leading, nlo, steps)


def _expansion(model: str, quantity: str, generator: str, *, independent_gates: bool
               ) -> FiniteSize:
    errors = _errors(model)
    if quantity not in errors.residual:
        raise ValueError(f"quantity {quantity!r} is derived for the euclidean model only "
                         f"(the {model} model learns a task exactly)")
    mu = 2 if quantity == "transfer" else 1
    residual = errors.residual[quantity]
    Q = (_readout_average(residual) if quantity == LEARNED  # the error itself
         else _readout_average(readout(mu)) - _readout_average(residual))
    expansion = expand_trace(Q, errors.inverses, generator, independent_gates=independent_gates)
    steps = (
        Step(f"fixed points ({errors.source})", sp.Tuple(*[W.to_sympy() for W in errors.weights])),
        Step(f"residual B_{mu} - W F_{mu} with exact inverses", residual.to_sympy(),
             "(X^T X + lam I)^{-1}: Ns x Ns inverses of Gram blocks, no surrogate"),
        Step(f"leading order, Gram blocks at their means ({generator} generator)",
             expansion.leading),
        Step("coefficient of 1/Nx: second order about the mean Gram, exact second moments",
             expansion.nlo, "E tr(Delta_u Delta_v) = kappa_uv / Nx exactly (engine); "
                            "higher orders are O(Nx^-2)"),
    )
    return FiniteSize(expansion.leading, expansion.nlo, steps)


# -- the paper's finite-size terms --------------------------------------------------------

def _gated_printed(quantity: str) -> sp.Expr:
    """Delta eps from Appendix B.1's printed terms: the last lines of eq_ap_etf_gated1
    (2 rho_b/Ns <tr> - 1/Ns <||.||^2>) and eq_ap_eRT_gate_expnd (1 - term2 - term3 + 2 rho_b
    cross)."""
    t = gating.PRINTED_TERMS
    if quantity == "transfer":
        return 2 * rho_b / Ns * t["transfer.first"] - t["transfer.second"] / Ns
    return 1 - t["retention.term2"] - t["retention.term3"] + 2 * rho_b * t["retention.cross"]


def _coefficient_of_inverse_nx(expr: sp.Expr) -> sp.Expr:
    """c in expr = c0 + c / Nx (expr must be affine in 1/Nx)."""
    x = sp.Symbol("x")
    series = sp.expand(expr.subs(Nx, 1 / x))
    if sp.Poly(series, x).degree() > 1:
        raise ValueError(f"not affine in 1/Nx: {expr}")
    return sp.factor(series.coeff(x, 1))


def paper_nlo(model: str, quantity: str) -> Optional[sp.Expr]:
    """The coefficient of 1/Nx that the paper's printed finite-size terms imply, or None.

    Vanilla and random gating: Appendix B.1's terms (eq_ap_etf_gated1, eq_ap_eRT_gate_expnd) at
    alpha = alpha~ = 1 (the vanilla paragraph) and alpha~ = alpha; the second retention term
    and the cross term are printed up to O(1/(alpha Nx)), which counts as zero here. Fisher
    transfer: "the same with the vanilla model" (W_1 = (Ns/Nx) B_1 A_1^T, Appendix C.2), so
    the vanilla coefficient. Plasticity gating, Euclidean and the Fisher retention: none (the
    paper states O(Ns/Nx), or O(Ns/(Nx(1 - rho_a^2))), without a coefficient).

    >>> paper_nlo("random-gating", "transfer")
    -N_s - rho_a**2
    >>> paper_nlo("euclidean", "retention") is None
    True
    """
    _check(model, quantity, "gaussian")
    levels = {"vanilla": {alpha_t: 1, alpha: 1}, "fisher": {alpha_t: 1, alpha: 1},
              "random-gating": {alpha_t: alpha}}
    if model not in levels or (model == "fisher" and quantity == "retention"):
        return None
    return _coefficient_of_inverse_nx(_gated_printed(quantity).subs(levels[model]))


# -- claims -------------------------------------------------------------------------------

_CLAIM = {
    # model: (claim id prefix, where (the paper's finite-size terms or statement))
    "vanilla": ("vanilla", "Sec. 4 / Appendix B.1 (vanilla paragraph): eq_ap_etf_gated1, "
                           "eq_ap_eRT_gate_expnd at alpha = alpha~ = 1"),
    "random-gating": ("gating.random", "Sec. 5.1 / Appendix B.1: eq_ap_etf_gated1, "
                                       "eq_ap_eRT_gate_expnd at alpha~ = alpha"),
    "plasticity-gating": ("plasticity", "Sec. 5.3 / Appendix B.2 (subsec_appendix_plasticity_"
                                        "gating): 'up to the leading order'"),
    "euclidean": ("euclidean", "Sec. 6.1 / Appendix C.1: eq_wr_epsilon_TF + O(Ns/Nx)"),
    "fisher": ("fisher", "Sec. 6.2 / Appendix C.2 (subsec_appendix_FIM); the transfer's term "
                         "is vanilla's, printed in Appendix B.1"),
}

_ANCHOR = {
    # (model, quantity): the claim whose statement the 1/Nx term belongs to; the 1/Nx claims
    # quote the same words at the same line, as steps under that headline
    ("vanilla", "transfer"): (gating, "gating.transfer.second_term[appendix]"),
    ("vanilla", "retention"): (gating, "gating.retention.term3[appendix]"),
    ("random-gating", "transfer"): (gating, "gating.transfer.second_term[appendix]"),
    ("random-gating", "retention"): (gating, "gating.retention.term3[appendix]"),
    ("plasticity-gating", "transfer"): (plasticity, "plasticity.alpha_independence.leading_order"),
    ("plasticity-gating", "retention"): (plasticity,
                                         "plasticity.alpha_independence.leading_order"),
    ("euclidean", "transfer"): (euclidean, "euclidean.transfer"),
    ("euclidean", "retention"): (euclidean, "euclidean.retention"),
    # Fisher's transfer is vanilla's (task 1 unregularized): its 1/Nx term is the one the
    # printed terms of Appendix B.1 imply at alpha = alpha~ = 1, not a statement of Sec. 6.2
    ("fisher", "transfer"): (gating, "gating.transfer.second_term[appendix]"),
    ("fisher", "retention"): (fisher, "fisher.retention.exact_fixed_point"),
}
"""Where each 1/Nx term stands in the paper: the printed finite-size terms of Appendix B.1
(vanilla, random gating), or the statement that gives the leading order only."""


def _anchor(model: str, quantity: str) -> tuple[int, str]:
    """(line, verbatim quote) of the statement the 1/Nx term of ``model``'s ``quantity``
    belongs to (:data:`_ANCHOR`)."""
    module, claim_id = _ANCHOR[(model, quantity)]
    claim = next(c for c in module.CLAIMS if c.id == claim_id)
    return claim.line, claim.printed_latex


_PAPER_ROUTE = ("the paper's terms are those of the surrogate weights (eq_DA+_approx, "
                "eq_UUt_approx) averaged with Isserlis' theorem, not of the model")


def _note(model: str, quantity: str, generator: str, c: sp.Expr,
          printed: Optional[sp.Expr]) -> str:
    exact = f"{generator} generator: exact coefficient of 1/Nx is {inline_math(c)}"
    if model == "fisher" and quantity == "retention":
        return (exact + "; the paper states a loss of order Ns/(Nx (1 - rho_a^2)) (its "
                "surrogate W_2), but the exact fixed point retains task 1 exactly at every "
                "Nx >= 2 Ns (rho_a < 1)")
    if printed is None:
        return exact + "; the paper gives the leading order only"
    note = (f"read as: the 1/Nx term these printed terms imply, {inline_math(printed)}/Nx; "
            f"{exact}; {_PAPER_ROUTE}")
    if model == "fisher":
        note += "; Fisher's transfer is vanilla's (task 1 unregularized)"
    return note


def _derive(model: str, quantity: str, generator: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        fs = finite_size(model, quantity, generator)
        term = fs.nlo / Nx
        printed = paper_nlo(model, quantity)
        return Derivation(term, fs.steps + (Step("next-to-leading term c/Nx", term),),
                          exact=True, note=_note(model, quantity, generator, fs.nlo, printed))
    return derive


FINDING = "surrogate-1/Nx-terms"
"""Every 1/Nx claim belongs to one finding (the report's Findings section): the paper's
surrogate 1/Nx terms are not the model's; they are evidence under the statements that print
1/Nx terms (Appendix B.1), never errata of their own."""


def _claims() -> list[Claim]:
    claims = []
    for model, (prefix, where) in _CLAIM.items():
        for quantity in QUANTITIES:
            printed = paper_nlo(model, quantity)
            term = None if printed is None else printed / Nx
            line, quote = _anchor(model, quantity)
            for generator in GENERATORS:
                claims.append(Claim(
                    f"{prefix}.{quantity}.nlo[{generator}]", f"{where}: {quantity}, 1/Nx term",
                    term, quote, _derive(model, quantity, generator), line=line,
                    condition="exact coefficient of 1/Nx at fixed Ns; O(Nx^-2) beyond",
                    finding=FINDING))
    return claims


PAPER_NX, PAPER_NS = 3000, 30
"""The paper's sizes (Sec. 4; :data:`tasksim.derivations.sizes.PAPER_SIZES`, which imports
this module, holds the same; a test keeps them equal)."""


def _derive_no_tradeoff_at_paper_sizes() -> Derivation:
    """Line 316's tradeoff at Nx = 3000, Ns = 30 (REFEREE39 2a, REFEREE40 m3): the prior
    averages of Delta eps_TF and Delta eps_RT with their exact 1/Nx terms, their maximisers
    in gamma and the average retention the transfer's maximiser gives up; the larger over the
    two generators. O(Nx^-2) beyond."""
    from .euclidean import (_maximiser, _uniform_average, average_retention,
                            average_transfer)
    nx, ns = PAPER_NX, PAPER_NS
    steps, gains = [], []
    for generator in GENERATORS:
        tf, rt = (sp.expand(base + _uniform_average(
            finite_size("euclidean", quantity, generator).nlo).subs(Ns, ns) / nx)
            for base, quantity in ((average_transfer(), "transfer"),
                                   (average_retention(), "retention")))
        g_tf, g_rt = _maximiser(tf), _maximiser(rt)
        gain = sp.N(rt.subs(gamma, g_rt) - rt.subs(gamma, g_tf), 15)
        gains.append(gain)
        steps.append(Step(f"{generator} generator: argmax of the average transfer, of the "
                          "average retention, and the retention gained between them",
                          sp.Tuple(sp.N(g_tf, 6), sp.N(g_rt, 6), sp.N(gain, 4))))
    worst = max(gains)
    return Derivation(sp.Float(worst, 6), tuple(steps), exact=False,
                      note=f"with the exact 1/Nx terms at Nx = {nx}, Ns = {ns} the window "
                           "narrows and the average retention the tradeoff buys falls to "
                           f"{float(worst):.2g}; O(Nx^-2) terms beyond")


def _claims_at_paper_sizes() -> list[Claim]:
    from .euclidean import _WHERE as EUCLIDEAN

    return [Claim("euclidean.no_tradeoff.at_paper_sizes", f"{EUCLIDEAN}: line 316's tradeoff "
                  "at the paper's sizes (leading order and exact 1/Nx terms)", sp.Integer(0),
                  r"there isn't a tradeoff between knowledge transfer and retention in terms of "
                  r"the average performance over $0 \leq \rho_a, \rho_b \leq 1$",
                  _derive_no_tradeoff_at_paper_sizes, line=316,
                  note="a step: the average retention the tradeoff buys at Nx = 3000, "
                       "Ns = 30")]


CLAIMS: list[Claim] = _claims() + _claims_at_paper_sizes()
