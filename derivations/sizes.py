"""How large a difference between two formulas is at the paper's sizes.

A claim that holds only at leading order, or an erratum, differs from the derived truth by an
expression in the sizes (Nx, Ns, Ny) and the model's parameters. :func:`size_at_paper_sizes`
puts Nx = 3000, Ns = 30, Ny = 10 (the paper's linear-model sizes, Appendix E.1,
subsec_linear_st_implementation) and returns the largest magnitude over a grid of the
parameters' domains, with the point where it is reached: the number a reviewer needs to judge
whether the difference matters.

Domains (the paper's): rho_a, rho_b, rho_g in [0, 1]; alpha, alpha~, gamma, gamma_f in (0, 1];
lambda in [0, 10] (log-spaced); the soft threshold h in [0, 2]. Grids have 11 points per
parameter (alpha-like: 0.1 .. 1), so the maximum is over at most 11^k points for k parameters.

Pure sympy and the standard library: expressions are compiled with ``sympy.lambdify`` to the
``math`` module.

Examples
--------
>>> from tasksim.derivations.symbols import Ns, Nx, rho_a
>>> size = size_at_paper_sizes(rho_a * Ns / Nx)
>>> size.value, size.point
(0.01, {'rho_a': 1.0})
>>> print(size_at_paper_sizes(rho_a))
1 at rho_a = 1
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Optional

import sympy as sp

from .symbols import Ns, Nx, Ny, alpha, alpha_t, gamma, gamma_f, h, lam, rho_a, rho_b, rho_g
from .vanilla import interior_minimum_threshold, leading_vanilla_transfer

if TYPE_CHECKING:
    from .claims import Verdict

__all__ = ["PAPER_SIZES", "Size", "size_at_paper_sizes", "GRIDS", "observable_change",
           "observable_size", "LimitTerm", "LIMIT_TERMS", "limit_observable",
           "Location", "LOCATIONS", "location_shift", "UNSIZED_OBSERVABLES", "NO_LIMIT_TERM", "LIMIT_REASON",
           "leading_order_error", "RANK_LOSSES", "rank_loss", "rank_loss_size",
           "ROW_NORMS", "row_norm_size", "ROW_SPREADS", "row_spread_size", "SPREAD_WORDS",
           "AT_PAPER_SIZES"]

PAPER_SIZES = {Nx: 3000, Ns: 30, Ny: 10}
"""The paper's sizes for the linear models."""

_UNIT = tuple(k / 10 for k in range(11))
_POSITIVE_UNIT = tuple(k / 10 for k in range(1, 11))
GRIDS: dict[sp.Symbol, tuple[float, ...]] = {
    rho_a: _UNIT, rho_b: _UNIT, rho_g: _UNIT,
    alpha: _POSITIVE_UNIT, alpha_t: _POSITIVE_UNIT, gamma: _POSITIVE_UNIT,
    gamma_f: _POSITIVE_UNIT,
    lam: (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
    h: tuple(k / 5 for k in range(11)),
}
"""The grid of each parameter's domain on which a size is maximised."""


SIZE_KINDS = ("grid", "stated point", "stated points", "read point", "read points")
"""What a derived size is the largest over (:attr:`Size.over`)."""


@dataclass(frozen=True)
class Size:
    """The largest magnitude of an expression at the paper's sizes, where it is reached, and
    over what it is the largest."""

    value: float
    point: dict[str, float]
    over: str = "grid"
    """What the value is the largest over (:data:`SIZE_KINDS`): "grid", a grid of the free
    parameters' domains; "stated point", none (every parameter is stated); "stated points",
    the statement's stated points (the larger); "read point", none, at the point where a
    range the statement names in words ("low rho_a") is read (:attr:`LimitTerm.read`);
    "read points", the larger at several such points."""

    def __str__(self) -> str:
        where = ", ".join(f"{k} = {v:g}" for k, v in self.point.items())
        return f"{self.value:.3g}" + (f" at {where}" if where else "")


def _erfcinv(y: float) -> float:
    """The inverse of math.erfc on (0, 2) by bisection (the math module has none)."""
    if not 0 < y < 2:
        raise ValueError(f"erfcinv needs 0 < y < 2, got {y}")
    low, high = -10.0, 10.0
    for _ in range(200):
        middle = (low + high) / 2
        if math.erfc(middle) > y:
            low = middle
        else:
            high = middle
    return (low + high) / 2


_SPECIAL = {"erfcinv": _erfcinv, "erfinv": lambda y: _erfcinv(1 - y)}
"""Functions sympy prints that the math module lacks (the soft threshold h(alpha))."""


def _name(symbol: sp.Symbol) -> str:
    return {alpha_t: "alpha~", lam: "lambda"}.get(symbol, str(symbol))


def size_at_paper_sizes(expr: sp.Basic) -> Optional[Size]:
    """max |expr| at Nx = 3000, Ns = 30, Ny = 10 over the parameter grids (module docstring).

    None when ``expr`` is not a scalar expression of the known parameters (a matrix, a
    relation, a symbol without a domain) or is undefined everywhere on the grid.
    """
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr) or expr.has(
            sp.MatrixSymbol):
        return None
    fixed = expr.subs(PAPER_SIZES)
    params = sorted(fixed.free_symbols, key=str)
    if any(p not in GRIDS for p in params):
        return None
    function = sp.lambdify(params, fixed, modules=[_SPECIAL, "math"])
    best: Optional[tuple[float, tuple[float, ...]]] = None
    for values in itertools.product(*(GRIDS[p] for p in params)):
        try:
            value = abs(complex(function(*values)))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            continue
        if math.isfinite(value) and (best is None or value > best[0]):
            best = (value, values)
    if best is None:
        return None
    return Size(best[0], {_name(p): v for p, v in zip(params, best[1])})


def _scalar(x: object) -> bool:
    return (isinstance(x, sp.Expr) and not isinstance(x, sp.MatrixExpr)
            and not x.has(sp.MatrixSymbol))


def observable_change(v: "Verdict") -> Optional[sp.Expr]:
    """What a reader who used the printed form would get wrong, as an expression in the
    statement's observable (``Claim.observable``): derived - printed, carried through the
    claim's ``carry`` (the coefficient of an intermediate term in the observable, or, for a
    statement that is not a number, such as a matrix, the change its error makes in the
    observable; ``carry`` then receives None); for a statement that holds in a limit, its
    finite-size correction. None when there is no scalar difference (matrices, relations,
    sets without a ``carry``, an open claim)."""
    claim = v.claim
    derived, printed = v.derived, claim.printed
    if v.status == "leading order" and v.correction is not None:
        return v.correction if isinstance(v.correction, sp.Expr) else None
    if v.status == "verified" and v.derivation is not None and v.derivation.stronger_condition:
        return derived if isinstance(derived, sp.Expr) else None
    if v.status != "erratum":
        return None
    numbers = _scalar(derived) and _scalar(printed)
    if claim.carry is not None:
        change = claim.carry(derived - printed if numbers else None)
        return change if _scalar(change) else None
    return derived - printed if numbers else None


def _how(v: "Verdict", verdict: str, change: sp.Expr) -> str:
    """How a size was obtained, in words (the record's ``size_reason`` beside its number)."""
    if not change.free_symbols:
        return ("the change the error makes in the observable, which depends on no size or "
                "parameter (the observable or the note says why)")
    grid = ("at Nx = 3000, Ns = 30, Ny = 10, the largest magnitude on the grid of the "
            "parameters left free (sizes.GRIDS; the point is given)")
    if verdict in ("wrong", "misprint"):
        route = ("derived - printed of the term, carried to the observable by its "
                 "coefficient there (or by the change its error makes there)"
                 if v.claim.carry is not None else
                 "the derived form minus the printed form, evaluated")
        return f"{route}, {grid}"
    if v.status == "leading order":
        return f"the derivation's finite-size correction to the printed form, {grid}"
    return f"derived - printed, {grid}"


AT_PAPER_SIZES: dict[str, str] = {
    "euclidean.no_tradeoff": "euclidean.no_tradeoff.at_paper_sizes",
}
"""Statements whose derived size is a leading-order number with a step that computes the same
number at Nx = 3000, Ns = 30 from the exact 1/Nx terms: the size stays the leading order's
(where the condition is derived), and the step's value is said beside it with what the
O(Nx^-2) terms it leaves unbounded do not decide."""


def observable_size(v: "Verdict", verdict: str) -> tuple[Optional[Size], str]:
    """The size of ``verdict`` on ``v``'s statement at the paper's sizes, in the units of the
    statement's observable, and how it was obtained or, when there is no number, why (module
    docstring).

    ``exact`` has size 0 (the printed form is right at every size); ``not decided`` has none.
    """
    if verdict == "exact":
        return Size(0.0, {}), "exact: the printed form holds at every size"
    if verdict == "not decided":
        what = v.claim.decide or v.note
        return None, f"not decided: {what}" if what else "not decided"
    change = observable_change(v)
    if change is None and v.claim.id in NO_NUMBER:
        return None, NO_NUMBER[v.claim.id]
    if change is None:
        if v.status == "verified":
            return None, ("derived at leading order only (through the paper's surrogate "
                          "steps): the finite-size correction at the paper's sizes is not "
                          "derived for this statement")
        if v.exceptions:
            return None, f"a statement about a set: it fails on {v.exceptions}"
        return None, ("no single number: a matrix identity, a relation or a set (its effect "
                      "on an error is sized by the other statements of its cause)")
    if not change.free_symbols and v.claim.id in CONSTANT_AT:  # a maximum the derivation took
        where, words = CONSTANT_AT[v.claim.id]
        return Size(float(abs(change)), where(v)), words
    size = size_at_paper_sizes(change)
    if size is None:
        return None, "the difference is not a number on the parameters' grid"
    return size, _how(v, verdict, change)


def _last_step_alpha(v: "Verdict") -> dict[str, float]:
    """The alpha of a derivation whose last step is (the maximum, its alpha)."""
    return {"alpha": float(v.derivation.steps[-1].expr[1])}


CONSTANT_AT: dict[str, tuple[Callable[["Verdict"], dict[str, float]], str]] = {
    "vanilla.transfer.negative_similarity": (
        lambda v: {"rho_a": -1.0, "rho_b": -1.0},
        "the largest Delta eps_TF over the range the sentence covers (-1 <= rho_a, rho_b <= 1, "
        "one of them negative), which the derivation takes: where the paper says transfer "
        "fails, it is 1 at rho_a = rho_b = -1"),
    "averages.adaptive.retention_cost": (
        _last_step_alpha,
        "the largest excess of adaptive gating's average retention cost over its average "
        "transfer gain, over alpha in (0, 1], which the derivation takes (its last step)"),
}
"""Sizes that the derivation itself maximised over the statement's range (a number with no
free parameter left): where the maximum is reached (read from the derivation) and how it
was taken."""


NO_NUMBER: dict[str, str] = {
    "figures.average_panels": "figure references (Fig. 2C cited for the average panel Fig. "
                              "2D, Fig. 3A left out of '3B-D'): no value of the model changes, "
                              "so there is no number to size",
}
"""Statements whose verdict has no size for a reason more specific than the generic one."""


# -- the leading order's error at the paper's sizes, from the exact 1/Nx coefficients ------

@dataclass(frozen=True)
class LimitTerm:
    """Which exact 1/Nx coefficients (:func:`tasksim.derivations.finite_size.finite_size`)
    size a statement that holds in the stated limit, and where: ``terms`` are (model,
    quantity) pairs in finite_size's names; ``average`` over the uniform prior 0 <= rho_a,
    rho_b <= 1; ``points`` are the statement's stated points (substitutions; empty: none);
    ``region`` the statement's range (a sympy condition; the grid's points outside count 0);
    ``where`` says it in words."""

    terms: tuple[tuple[str, str], ...]
    where: str
    average: bool = False
    points: tuple[tuple[tuple[sp.Symbol, sp.Expr], ...], ...] = ((),)
    region: sp.Basic = sp.true
    generators: tuple[str, ...] = ("gaussian", "appendix")
    read: bool = False
    """The ``points`` are where the toolkit reads a range the statement names in words ("when
    rho_a is low" read as rho_a -> 0), not points it states (REFEREE34 m6)."""
    against: Optional[str] = None
    """A second model whose coefficient is subtracted (a relation between two closed forms:
    the size is that of the difference of their 1/Nx terms)."""
    against_point: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    """The substitution that makes ``against``'s parameters the statement's (alpha = gamma)."""
    pointwise: str = ""
    """A derived pointwise optimum put for alpha at each (rho_a, rho_b) before the average
    (``"optimal_alpha"``: :func:`tasksim.derivations.gating.optimal_alpha`, min(1, rho_b /
    rho_a)); empty: none."""
    through: Optional[Callable[[sp.Expr], sp.Expr]] = None
    """The observable's change given the terms' 1/Nx term delta = c/Nx, where the observable
    is a function of the terms' quantity (the probe error: 1 minus the transfer of alpha Nx
    units, -delta/alpha); None: delta itself."""
    value: Optional[Callable[[], sp.Expr]] = None
    """The observable's leading order, from its derivation (called when a size is said), said
    at the size's point beside the size (a size near the value itself is a large relative
    error); None: not said."""
    named: str = ""
    """The observable in words where the terms' quantity, at the ``points``, is another
    quantity of the statement (the transfer at rho_b = 0 is minus the output power); empty:
    named from the terms."""

    @property
    def observable(self) -> str:
        """What the size is a change of, named from the terms (:func:`limit_observable`), or
        :attr:`named`."""
        if self.named:
            return self.named
        quantities = sorted({q for _, q in self.terms}, key=_BOTH.index)
        models = sorted({m for m, _ in self.terms})
        name = " and ".join(_SYMBOL[q] for q in quantities)
        if self.average:
            name = f"average {name} over rho_a, rho_b"
        what = f"{name} of the {' and '.join(models)} model"
        if self.against is not None:
            what = f"{what} minus that of the {self.against} model"
        return what + (" (the larger)" if len(self.terms) > 1 else "")


def _terms(model: str, *quantities: str) -> tuple[tuple[str, str], ...]:
    return tuple((model, q) for q in quantities)


_BOTH = ("transfer", "retention")
_SYMBOL = {"transfer": "Delta eps_TF", "retention": "Delta eps_RT"}
_DOMAIN = "max over the parameters' grid (the statement's whole range)"
_GATES = ("max over the grid; independent gates (alpha~ = alpha, rho_g = 0), the case the "
          "exact coefficient is derived for")
_ENTERS = ("; the whole observable's leading-order error, which this term builds: its own "
           "share is not separated")
_SURROGATE = ("the error of the leading-order Delta eps this surrogate is used to derive "
              "(all of its surrogates together): ")
_ENTERS_W = "through the Delta eps this step's weights give: "
_FISHER = "max over the grid, lambda > 0 and rho_a < 1 (the fixed point the coefficient is for)"
_THREE_QUARTERS = ((alpha, sp.Rational(3, 4)),)

_PROBE = ("the probe is the vanilla model on the units task 1's gates keep: D_1 zeroes the "
          "other rows, so W_1 D_1 A_2 = B_1 (A_1')^+ A_2' with A' the kept rows "
          "(verify/test_gating.py checks it draw by draw), and eps_pb = 1 - Delta eps_TF of "
          "the vanilla model with alpha Nx units (their count is binomial with mean alpha Nx: "
          "the same at order 1/Nx), so its coefficient is the vanilla one over alpha")


def _rule(transfer: sp.Expr) -> sp.Expr:
    """rho_g = max{0, 1 - eps_pb} = max{0, transfer of the kept units}."""
    return sp.Max(0, transfer)


def _clamped_rule(delta: sp.Expr) -> sp.Expr:
    """The change of rho_g (:func:`_rule`) when the kept units' transfer, at leading order the
    vanilla one (eq_epsilon_vanilla, derived), moves by delta/alpha."""
    leading = leading_vanilla_transfer()
    return _rule(leading + delta / alpha) - _rule(leading)


ADAPTIVE = "adaptive-gating"
"""Adaptive gating (Sec. 5.2) as a term's model: its transfer coefficient is
:func:`tasksim.derivations.finite_size.adaptive_gating_transfer`'s (not a model of
:func:`~tasksim.derivations.finite_size.finite_size`: its rho_g comes from its probe)."""


def _adaptive_gain_leading() -> sp.Expr:
    """Adaptive minus random gating's average transfer at leading order, a polynomial in alpha
    (the derivation of line 266, averages.adaptive.improves_transfer)."""
    from .averages import adaptive_gating_average, random_gating_average

    return adaptive_gating_average("transfer") - random_gating_average("transfer")


def _learned_leading() -> sp.Expr:
    """The Euclidean model's <eps_1[W_1]> at leading order, (1 - gamma)^2 (derived)."""
    from .finite_size import LEARNED, finite_size

    return finite_size("euclidean", LEARNED).leading


LIMIT_TERMS: dict[str, LimitTerm] = {
    # Sec. 4, vanilla (eq_epsilon_vanilla) and its readings
    "vanilla.transfer": LimitTerm(_terms("vanilla", "transfer"), _DOMAIN),
    "vanilla.retention": LimitTerm(_terms("vanilla", "retention"), _DOMAIN),
    "vanilla.transfer.asymmetry": LimitTerm(_terms("vanilla", "transfer"), _DOMAIN),
    "vanilla.retention.asymmetry": LimitTerm(_terms("vanilla", "retention"), _DOMAIN),
    "vanilla.transfer.corners": LimitTerm(
        _terms("vanilla", "transfer"), "at the stated points (rho_a, rho_b) = (0, 0), (1, 1)",
        points=(((rho_a, 0), (rho_b, 0)), ((rho_a, 1), (rho_b, 1)))),
    "vanilla.output_power": LimitTerm(
        _terms("vanilla", "transfer"), "at rho_a = 1, where the statement's 'when the feature "
        "similarity is high' is read (as at line 200), and rho_b = 0, where Delta eps_TF = "
        "2 <tr B_2^T W_1 A_2>/Ny - <||W_1 A_2||^2>/Ny is minus the output power (the power "
        "involves A_1, A_2 and B_1 only: its error is the same at every rho_b; at rho_a = 1, "
        "A_2 = A_1 and the power is exactly 1 for both generators)",
        points=(((rho_a, 1), (rho_b, 0)),), read=True,
        named="the output power <||W_1 A_2||^2>/Ny of the vanilla model (equal to -Delta "
              "eps_TF at rho_b = 0)"),
    "vanilla.transfer.argmax_rho_a": LimitTerm(
        _terms("vanilla", "transfer"), "on the stated line rho_a = rho_b, max over rho_b",
        points=(((rho_a, rho_b),),)),
    "vanilla.retention.low_rho_a": LimitTerm(
        _terms("vanilla", "retention"), "at rho_a = 0, where the statement's 'when rho_a is "
        "low' is read (its limit), max over rho_b", points=(((rho_a, 0),),), read=True),
    "vanilla.retention.sign_at_high_rho_a": LimitTerm(
        _terms("vanilla", "retention"), "at rho_a = 1, where the statement's 'high rho_a' is "
        "read, max over rho_b", points=(((rho_a, 1),),), read=True),
    "vanilla.retention.extrema": LimitTerm(
        _terms("vanilla", "retention"), "where the extrema exist (rho_b >= 2 sqrt2/3), max",
        region=sp.Ge(rho_b, 2 * sp.sqrt(2) / 3)),
    "vanilla.retention.intermediate_minimum": LimitTerm(
        _terms("vanilla", "retention"), "at high rho_b (above the derived 0.963, where the "
        "lowest retention is at an intermediate rho_a), max over the grid",
        region=sp.Gt(rho_b, interior_minimum_threshold()[1])),
    "vanilla.retention.high_at_ends": LimitTerm(
        _terms("vanilla", "retention"), "at the two ends the statement names in words, read "
        "as rho_a = 0 (low interference, max over rho_b) and rho_a = rho_b = 1 (identical "
        "tasks)", points=(((rho_a, 0),), ((rho_a, 1), (rho_b, 1))), read=True),
    "vanilla.benign_region": LimitTerm(
        _terms("vanilla", *_BOTH), "over the stated region rho_a <= rho_b, max",
        region=sp.Le(rho_a, rho_b)),
    "vanilla.negative_at_high_rho_a_low_rho_b": LimitTerm(
        _terms("vanilla", *_BOTH), "at rho_a = 1 (where 'high feature similarity' is read), "
        "rho_b < 1/2 (the stated region), max", points=(((rho_a, 1),),),
        region=sp.Lt(rho_b, sp.Rational(1, 2)), read=True),
    "averages.vanilla.transfer": LimitTerm(
        _terms("vanilla", "transfer"), "the uniform prior's average", average=True),
    "averages.vanilla.retention": LimitTerm(
        _terms("vanilla", "retention"), "the uniform prior's average", average=True),
    "averages.transfer_below_retention": LimitTerm(
        _terms("vanilla", *_BOTH), "the uniform prior's averages (the vanilla model; the "
        "margin is 43/60 - 1/6 = 11/20)", average=True),
    "fisher.average_transfer": LimitTerm(
        _terms("fisher", "transfer"), "the uniform prior's average, lambda > 0", average=True),
    # Sec. 5.1 and Appendix B.1, random activity gating
    **{i: LimitTerm(_terms("random-gating", "transfer"), _GATES) for i in (
        "gating.transfer.random", "gating.transfer.random.appendix", "gating.transfer",
        "gating.transfer.dense_gating_helps")},
    **{i: LimitTerm(_terms("random-gating", "retention"), _GATES) for i in (
        "gating.retention.random", "gating.retention.random.appendix", "gating.retention")},
    **{i: LimitTerm(_terms("random-gating", "retention"), "at alpha = 0.1 (the statement is "
                    "about alpha -> 0; 0.1 is the sparsest grid point, ten times Ns/Nx), max "
                    "over rho_a, rho_b", points=(((alpha, sp.Rational(1, 10)),),)) for i in (
        "gating.retention.optimized_at_alpha_to_zero", "gating.retention.alpha_to_zero")},
    "gating.random_scales_rho_a": LimitTerm(_terms("random-gating", *_BOTH), _GATES),
    "phase_diagram.rising_region": LimitTerm(_terms("random-gating", *_BOTH), _GATES),
    "phase_diagram.tradeoff": LimitTerm(
        _terms("random-gating", *_BOTH), "over the stated region rho_b > rho_a, max",
        region=sp.Gt(rho_b, rho_a)),
    "phase_diagram.high_alpha_hurts_both": LimitTerm(
        _terms("random-gating", *_BOTH), "over the stated region rho_b < rho_a, "
        "alpha > rho_b/rho_a, max", region=sp.And(sp.Lt(rho_b, rho_a),
                                                 sp.Gt(alpha * rho_a, rho_b))),
    "averages.random.transfer": LimitTerm(
        _terms("random-gating", "transfer"), "the uniform prior's average, max over alpha",
        average=True),
    "averages.random.retention": LimitTerm(
        _terms("random-gating", "retention"), "the uniform prior's average, max over alpha",
        average=True),
    "averages.random.retention.decreasing": LimitTerm(
        _terms("random-gating", "retention"), "the uniform prior's average, max over alpha",
        average=True),
    "averages.random.moderate_gating_helps_both": LimitTerm(
        _terms("random-gating", *_BOTH), "the uniform prior's averages at the stated "
        "alpha = 3/4", average=True, points=(_THREE_QUARTERS,)),
    "averages.random.retention_below_one": LimitTerm(
        _terms("random-gating", "retention"), "the uniform prior's average at the stated "
        "alpha = 3/4", average=True, points=(_THREE_QUARTERS,)),
    "averages.optimal_alpha.transfer": LimitTerm(
        _terms("random-gating", "transfer"), "the uniform prior's average with the pointwise "
        "optimum alpha*(rho_a, rho_b) = min(1, rho_b/rho_a) put in before averaging",
        average=True, pointwise="optimal_alpha"),
    "gating.validity": LimitTerm(
        _terms("random-gating", "retention"), "at alpha = 0.1 (ten times Ns/Nx, the sparsest "
        "grid point; the statement is that eq_rcg_epsilon_RT needs alpha >> Ns/Nx), max over "
        "rho_a, rho_b", points=(((alpha, sp.Rational(1, 10)),),)),
    # Appendix B.1's terms after its surrogates: the error of the observable they build (the
    # expansions themselves, lines 581 and 649, are exact identities of the B-average)
    "gating.transfer.first_term": LimitTerm(_terms("random-gating", "transfer"),
                                            _GATES + _ENTERS),
    **{i: LimitTerm(_terms("random-gating", "retention"), _GATES + _ENTERS,
                    generators=("appendix",)) for i in (
        "gating.retention.term2[appendix]", "gating.retention.cross[appendix]")},
    "vanilla.is_gating_at_alpha_tilde_one": LimitTerm(
        _terms("random-gating", *_BOTH), "at alpha = 1, against the vanilla model's: the "
        "difference of the two exact 1/Nx coefficients, max over rho_a, rho_b",
        points=(((alpha, 1),),), against="vanilla"),
    # Appendix E.2's tall-matrix surrogates, through the Delta eps they are used to derive
    "tall.gram_surrogate": LimitTerm(_terms("vanilla", *_BOTH), _SURROGATE + _DOMAIN),
    **{i: LimitTerm(_terms("random-gating", *_BOTH), _SURROGATE + _GATES) for i in (
        "tall.gated_concentration", "tall.pinv_surrogate", "tall.projector_surrogate")},
    # Appendix C.1's steps: the Woodbury surrogate and the weights it gives
    "euclidean.inverse_surrogate": LimitTerm(_terms("euclidean", *_BOTH), _ENTERS_W + _DOMAIN),
    "euclidean.W1": LimitTerm(_terms("euclidean", *_BOTH), _ENTERS_W + _DOMAIN),
    "euclidean.W2": LimitTerm(_terms("euclidean", "retention"), _ENTERS_W + _DOMAIN),
    # Appendix C.2's steps (the first task unregularized)
    "fisher.weight": LimitTerm(_terms("fisher", *_BOTH), _ENTERS_W + _FISHER),
    "fisher.surrogate_block_inverse": LimitTerm(_terms("fisher", "retention"),
                                                _ENTERS_W + _FISHER),
    "fisher.W1.unregularized": LimitTerm(_terms("fisher", "transfer"), _ENTERS_W + _FISHER),
    "fisher.W2": LimitTerm(_terms("fisher", "retention"), _ENTERS_W + _FISHER),
    # Sec. 6.1 and Appendix C.1, Euclidean regularization (lam = (Nx/Ns)(1/gamma - 1))
    "euclidean.transfer": LimitTerm(_terms("euclidean", "transfer"), _DOMAIN),
    "euclidean.transfer_equals_random_gating": LimitTerm(
        _terms("euclidean", "transfer"), "against random gating at alpha = gamma: the "
        "difference of the two exact 1/Nx coefficients, max over the grid",
        against="random-gating", against_point=((alpha, gamma),)),
    **{i: LimitTerm(_terms("euclidean", "retention"), _DOMAIN) for i in (
        "euclidean.retention", "euclidean.retention_optimum_interior",
        "euclidean.retention_extra_terms")},
    "euclidean.error_task1_after_task2": LimitTerm(
        _terms("euclidean", "retention"), "eps_1[W_2] = 1 - Delta eps_RT (eps_o = 1 exactly): "
        + _DOMAIN),
    "euclidean.optimal_average_retention_low": LimitTerm(
        _terms("euclidean", "retention"), "the uniform prior's average, max over gamma",
        average=True),
    "euclidean.less_robust_than_fisher": LimitTerm(
        _terms("euclidean", "retention") + _terms("fisher", "retention"), _DOMAIN),
    # Sec. 6.1: the error on the task just learned, (1 - gamma)^2 at leading order
    "euclidean.impairs_acquisition": LimitTerm(
        _terms("euclidean", "learned"), "max over gamma (rho_a and rho_b do not enter: "
        "eps_1[W_1] involves A_1 and B_1 only)", value=_learned_leading,
        named="eps_1[W_1], the error on task 1 right after learning it (Euclidean model, "
              "W_0 = 0; the paper's (1 - gamma)^2, not a Delta eps)"),
    # Appendix B.1, adaptive gating: the probe is the vanilla model on the units g_1 keeps
    "gating.probe_error": LimitTerm(
        _terms("vanilla", "transfer"), _PROBE + "; max over the grid",
        through=lambda delta: -delta / alpha, value=lambda: 1 - leading_vanilla_transfer(),
        named="the probe error eps_pb of adaptive gating (1 minus the vanilla Delta eps_TF "
              "of the units task 1's gates keep)"),
    "gating.adaptive_rho_g": LimitTerm(
        _terms("vanilla", "transfer"), _PROBE + "; rho_g = max{0, 1 - eps_pb}, so its error is "
        "max{0, L + delta/alpha} - max{0, L} with L = rho_a (2 rho_b - rho_a) and delta the "
        "transfer's 1/Nx term; max over the grid", through=_clamped_rule,
        value=lambda: _rule(leading_vanilla_transfer()),
        named="rho_g of adaptive gating (max{0, 1 - eps_pb}, eps_pb its probe error)"),
    "gating.adaptive_alpha_tilde": LimitTerm(
        _terms("vanilla", "transfer"), _PROBE + "; alpha~ = alpha + (1 - alpha) rho_g (line "
        "595): (1 - alpha) times rho_g's error; max over the grid",
        through=lambda delta: (1 - alpha) * _clamped_rule(delta),
        value=lambda: alpha + (1 - alpha) * _rule(leading_vanilla_transfer()),
        named="alpha~ of adaptive gating (alpha + (1 - alpha) rho_g, rho_g = max{0, 1 - "
              "eps_pb})"),
    # Sec. 5.2, adaptive gating against random gating, averaged over the prior
    "averages.adaptive.improves_transfer": LimitTerm(
        _terms(ADAPTIVE, "transfer"), "the uniform prior's average gain over random gating, "
        "max over alpha; adaptive gating's coefficient is the correlated-gate one at the rho_g "
        "its probe sets, rho_g = max{0, 1 - eps_pb} with the probe error in expectation (line "
        "744), whose own 1/Nx term enters through the slope of the transfer in rho_g "
        "(finite_size.adaptive_gating_transfer); the 1/Nx term alone: at alpha = 0.1 the "
        "probe's own shift is not small and moves the clamp's edge, which this order leaves "
        "out", average=True, against="random-gating",
        value=_adaptive_gain_leading),
    # Sec. 6.2 and Appendix C.2, Fisher metric (the first task unregularized)
    **{i: LimitTerm(_terms("fisher", "transfer"), "against the vanilla model: the difference "
                    "of the two exact 1/Nx coefficients, max over the grid",
                    against="vanilla") for i in (
        "fisher.transfer_equals_vanilla.independent_metric",
        "fisher.transfer_equals_vanilla.unregularized")},
}
"""The statements that hold in the stated limit whose observable has an exact 1/Nx
coefficient: their size at the paper's sizes is the leading order's error there, |c|/Nx."""

NO_LIMIT_TERM: dict[str, str] = {
    "fisher_diagonal.transfer_invariance_lost": "the diagonal Fisher metric: no exact 1/Nx "
                                                "coefficient is derived for it",
    "fisher_diagonal.attenuates_robustness": "the diagonal Fisher metric: no exact 1/Nx "
                                             "coefficient is derived for it",
    "fisher.invertibility": "a statement that two square matrices are almost surely "
                            "invertible (lambda != 0, rho_a < 1): no value of Delta eps_TF or "
                            "Delta eps_RT to size; the fixed point it licenses is sized at lines 1141, 1144",
    "averages.adaptive.tractable": "a statement that the adaptive-gating averages are "
                                   "tractable (both are derived exactly: the steps "
                                   "averages.adaptive.transfer and .retention): no value of "
                                   "Delta eps_TF or Delta eps_RT to size",
}
"""Why a statement that holds in the stated limit has no size, where the reason is more
specific than :data:`LIMIT_REASON`."""

UNSIZED_OBSERVABLES: dict[str, str] = {
    "fisher_diagonal.transfer_invariance_lost": "Delta eps_TF of the diagonal-Fisher model "
                                                "minus the vanilla model's",
    "fisher_diagonal.attenuates_robustness": "Delta eps_RT of the diagonal-Fisher model",
    "fisher.invertibility": "the invertibility of two square matrices (no number)",
    "averages.adaptive.tractable": "the tractability of the adaptive-gating averages (no "
                                   "number)",
}
"""What each statement of :data:`NO_LIMIT_TERM` is about (it has no size)."""

LIMIT_REASON = ("no exact 1/Nx coefficient for this statement's observable: the toolkit "
                "derives those of Delta eps_TF and Delta eps_RT of the vanilla, random-gating "
                "(independent or correlated gates), plasticity-gating, Euclidean and Fisher "
                "models, and adaptive gating's Delta eps_TF; an "
                "intermediate step (a matrix, an expansion's term) enters them through the "
                "statements sized with those")


@lru_cache(maxsize=None)
def _limit_coefficient(model: str, quantity: str, generator: str, average: bool,
                       pointwise: str = "") -> sp.Expr:
    from .finite_size import finite_size  # derivations of the models: imported when used

    if model == ADAPTIVE:
        from .averages import average_over_unit_square
        from .finite_size import adaptive_gating_transfer

        if quantity != "transfer" or pointwise:
            raise ValueError(f"adaptive gating's coefficient is derived for the transfer "
                             f"only, got {quantity!r}{' with ' + pointwise if pointwise else ''}")
        c = adaptive_gating_transfer(generator).nlo  # piecewise: rho_g is clamped at 0
        return sp.factor(average_over_unit_square(c)) if average else c
    c = finite_size(model, quantity, generator).nlo
    if pointwise:
        from .averages import average_over_unit_square
        from .gating import optimal_alpha

        if pointwise != "optimal_alpha":
            raise ValueError(f"unknown pointwise optimum {pointwise!r}")
        c = c.subs(alpha, optimal_alpha())
        return sp.factor(average_over_unit_square(c)) if average else c
    if average:
        c = sp.integrate(sp.expand(c), (rho_a, 0, 1), (rho_b, 0, 1))
    return sp.factor(c)


_PROPER = {"random-gating": alpha, ADAPTIVE: alpha, "euclidean": gamma}
"""The parameter at whose value 1 a model is the vanilla model (no gating, no
regularization): its statements are sized where the parameter is below 1, the vanilla
model's own statements size the point 1 (unless the statement fixes it)."""


def _limit_size(model: str, quantity: str, generator: str, average: bool,
                point: tuple[tuple[sp.Symbol, sp.Expr], ...], region: sp.Basic,
                against: Optional[str] = None,
                against_point: tuple[tuple[sp.Symbol, sp.Expr], ...] = (),
                pointwise: str = "",
                through: Optional[Callable[[sp.Expr], sp.Expr]] = None) -> Optional[Size]:
    c = _limit_coefficient(model, quantity, generator, average, pointwise).subs(dict(point))
    if against is not None:
        other = _limit_coefficient(against, quantity, generator, average)
        c = sp.simplify(c - other.subs(dict(against_point)).subs(dict(point)))
    term = c / Nx if through is None else through(c / Nx)
    proper = _PROPER.get(model)
    if proper is not None and proper not in {s for s, _ in point} and not pointwise:
        region = sp.And(region, sp.Lt(proper, 1))
    if region is not sp.true:
        term = sp.Piecewise((term, region), (0, True))
    size = size_at_paper_sizes(term.subs(dict(point)))
    if size is None:
        return None
    stated = {_name(s): float(v) for s, v in point if sp.sympify(v).is_number}
    # no free parameter left: the value at the stated point, not a maximum over a grid
    over = "grid" if size.point else "stated point"
    return Size(size.value, {**stated, **size.point}, over)


_QUANTITY_WORDS = {"learned": "eps_1[W_1] (the error on task 1 right after learning it)"}
"""How a quantity of :func:`~tasksim.derivations.finite_size.finite_size` that is not a Delta
eps is named in a size's reason."""


def leading_order_error(claim_id: str) -> tuple[Optional[Size], str]:
    """The size at the paper's sizes of a statement that holds in the stated limit: the error
    of its leading order there, |c|/Nx with c the exact 1/Nx coefficient of its observable
    (:data:`LIMIT_TERMS`), the largest over its terms, both task generators and its range,
    with how it was obtained; or None with why there is none.

    >>> size, how = leading_order_error("vanilla.transfer")
    >>> size.value, size.point
    (0.01, {'rho_a': 0.0})
    >>> leading_order_error("fisher_diagonal.transfer_invariance_lost")[0] is None
    True
    """
    if claim_id in LOCATIONS:
        return location_shift(claim_id)
    if claim_id in RANK_LOSSES:
        return rank_loss_size(claim_id)
    if claim_id in ROW_NORMS:
        return row_norm_size(claim_id)
    if claim_id in ROW_SPREADS:
        return row_spread_size(claim_id)
    spec = LIMIT_TERMS.get(claim_id)
    if spec is None:
        return None, NO_LIMIT_TERM.get(claim_id, LIMIT_REASON)
    best: Optional[tuple[Size, str, str, str]] = None
    for model, quantity in spec.terms:
        for generator in spec.generators:
            for point in spec.points:
                size = _limit_size(model, quantity, generator, spec.average, point,
                                   spec.region, spec.against, spec.against_point,
                                   spec.pointwise, spec.through)
                if size is not None and (best is None or size.value > best[0].value):
                    best = (size, model, quantity, generator)
    if best is None:
        return None, "the exact 1/Nx term is not a number on the parameters' grid"
    size, model, quantity, generator = best
    if size.over == "stated point" and len(spec.points) > 1:  # the larger of its points
        size = replace(size, over="stated points")
    if size.over != "grid" and spec.read:  # a range in words, read at a point (or several)
        size = replace(size, over="read points" if len(spec.points) > 1 else "read point")
    which = (f"{generator} generator, the larger of the two" if len(spec.generators) > 1
             else f"{generator} generator, the statement's")
    c = "the difference of the exact 1/Nx coefficients" if spec.against else (
        "the exact 1/Nx coefficient")
    proper = _PROPER.get(model)
    below = (f"; {_name(proper)} < 1 ({_name(proper)} = 1 is the vanilla model, sized at "
             f"the vanilla statements)" if proper is not None and not spec.pointwise and
             _name(proper) not in {_name(x) for p in spec.points for x, _ in p} else "")
    how = (f"the leading order's error at Nx = 3000, Ns = 30: |c|/Nx with c {c} of the "
           f"{model} model's {_QUANTITY_WORDS.get(quantity, quantity)}"
           + (f" minus the {spec.against} model's" if spec.against else "")
           + f" (derivations/finite_size.py; {which}), {spec.where}{below}")
    if spec.value is not None and size.point:
        leading = spec.value()
        there = leading.subs({symbol: size.point[_name(symbol)]
                              for symbol in leading.free_symbols
                              if _name(symbol) in size.point})
        if there.is_number and float(there) != 0:  # free of what the point leaves open
            how += (f"; the leading order there is {float(there):.3g} (the size is "
                    f"{size.value / abs(float(there)):.0%} of it)")
    if size.value == 0:
        how = (f"0 at order 1/Nx: {c} vanishes identically there (the error is O(1/Nx^2) "
               f"or zero); {how}")
    return size, how


def limit_observable(claim_id: str) -> Optional[str]:
    """The observable a statement that holds in the stated limit is sized in (what
    :func:`leading_order_error`'s number is a change of; for a statement without a size,
    :data:`UNSIZED_OBSERVABLES`), or None when it is in none of these tables.

    >>> limit_observable("vanilla.benign_region")
    'Delta eps_TF and Delta eps_RT of the vanilla model (the larger)'
    >>> print(limit_observable("gating.optimal_alpha"))
    the optimal alpha of the random-gating model's Delta eps_TF
    """
    if claim_id in LOCATIONS:
        return LOCATIONS[claim_id].observable
    if claim_id in RANK_LOSSES:
        return RANK_LOSSES[claim_id]
    if claim_id in ROW_NORMS:
        return ROW_NORMS[claim_id]
    if claim_id in ROW_SPREADS:
        return ROW_SPREADS[claim_id]
    spec = LIMIT_TERMS.get(claim_id)
    return UNSIZED_OBSERVABLES.get(claim_id) if spec is None else spec.observable


# -- where a statement is about a location: the 1/Nx shift of the optimum --------------------

@dataclass(frozen=True)
class Location:
    """A statement about the argmax of ``quantity`` of ``model`` over ``variable`` (in (0, 1]),
    at each (rho_a, rho_b) of the grid or, with ``average``, of the uniform prior's average."""

    model: str
    quantity: str
    variable: sp.Symbol
    average: bool = False

    @property
    def observable(self) -> str:
        name = _SYMBOL[self.quantity]
        if self.average:
            name = f"average {name} over rho_a, rho_b"
        return f"the optimal {_name(self.variable)} of the {self.model} model's {name}"


LOCATIONS: dict[str, Location] = {
    "gating.optimal_alpha": Location("random-gating", "transfer", alpha),
    "averages.random.transfer.argmax": Location("random-gating", "transfer", alpha,
                                                average=True),
    "euclidean.optimal_gamma_transfer": Location("euclidean", "transfer", gamma),
}
"""The statements about an optimal alpha or gamma: sized by the shift of the optimum that the
exact 1/Nx term makes at the paper's sizes (:func:`location_shift`)."""

_FINE = 200
"""Points of the grid in (0, 1] on which an optimum is located before refinement."""


def _argmax(f, fine: int = _FINE) -> float:
    """The maximiser of f on (0, 1]: the best point of a grid of ``fine`` points, refined by
    golden-section search in the bracket around it (f unimodal there)."""
    xs = [k / fine for k in range(1, fine + 1)]
    values = [f(x) for x in xs]
    k = max(range(len(xs)), key=values.__getitem__)
    low, high = xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if f(a) >= f(b):
            high = b
        else:
            low = a
    return (low + high) / 2


@lru_cache(maxsize=None)
def location_shift(claim_id: str) -> tuple[Optional[Size], str]:
    """The shift of a stated optimum (:data:`LOCATIONS`) at Nx = 3000, Ns = 30: the argmax
    of leading + c/Nx minus that of the leading order alone (c the exact 1/Nx coefficient),
    the largest over both generators and the (rho_a, rho_b) grid, in the variable's units."""
    from .finite_size import finite_size  # derivations of the models: imported when used

    spec = LOCATIONS[claim_id]
    best: Optional[tuple[float, dict[str, float], str]] = None
    for generator in ("gaussian", "appendix"):
        fs = finite_size(spec.model, spec.quantity, generator)
        leading, nlo = fs.leading, fs.nlo
        if spec.average:
            leading, nlo = (sp.integrate(sp.expand(e), (rho_a, 0, 1), (rho_b, 0, 1))
                            for e in (leading, nlo))
        points = [{}] if spec.average else [
            {rho_a: a, rho_b: b} for a in GRIDS[rho_a] if a > 0 for b in GRIDS[rho_b]]
        args = (spec.variable, rho_a, rho_b)
        g0 = sp.lambdify(args, leading, "math")
        g1 = sp.lambdify(args, (leading + nlo / Nx).subs(PAPER_SIZES), "math")
        for point in points:
            a, b = point.get(rho_a, 0.0), point.get(rho_b, 0.0)
            x0 = _argmax(lambda x: g0(x, a, b))
            x1 = _argmax(lambda x: g1(x, a, b))
            if best is None or abs(x1 - x0) > best[0]:
                best = (abs(x1 - x0), {_name(s): float(v) for s, v in point.items()},
                        generator, x0, x1, g0(x0, a, b) - g0(x1, a, b), g0(x0, a, b),
                        g1(x0, a, b) - g0(x0, a, b))
    shift, where, generator, x0, x1, flat, top, term = best
    # a large shift where the leading order is flat in the variable (REFEREE50 m2): say so
    flatness = (f"; the leading order is nearly flat there, {flat:.2g} lower at "
                f"{x1:.4g} than at {x0:.4g}, and at {x0:.4g} the 1/Nx term is {term:.2g} "
                f"against the leading order's {top:.2g}"
                if shift > 0.1 else "")
    return Size(shift, where), (
        f"the shift of the optimal {_name(spec.variable)} at Nx = 3000, Ns = 30: argmax of "
        f"leading + c/Nx minus argmax of the leading order (c the exact 1/Nx coefficient, "
        f"derivations/finite_size.py; {generator} generator, the larger of the two), "
        + ("of the uniform prior's average" if spec.average else
           "max over the (rho_a, rho_b) grid (rho_a > 0)")
        + f", in units of {_name(spec.variable)}: there it moves from {x0:.4g} to {x1:.4g}"
        + flatness)


# -- the exact Fisher fixed point: retention lost only where [A_1, A_2] is rank-deficient -----

RANK_LOSSES: dict[str, str] = {
    "fisher.retention.exact_fixed_point": "Delta eps_RT of the Fisher model (task 1 "
                                          "unregularized), expected over the appendix "
                                          "generator's draws",
    "fisher.average_retention": "average Delta eps_RT over rho_a, rho_b of the Fisher model "
                                "(task 1 unregularized), expected over the appendix "
                                "generator's draws",
}
"""Statements sized by the exact fixed point's rank loss (:func:`rank_loss`), with their
observable (an average one is sized by the loss averaged over the uniform prior)."""


def _words(expr: sp.Expr) -> str:
    """An expression as words of a sentence: powers as ``^``, products as spaces (never
    sympy's ``**`` or ``*``).

    >>> _words(-2 * gamma_f**2 * (rho_b - 1))
    '-2 gamma_f^2 (rho_b - 1)'
    """
    return sp.sstr(expr).replace("**", "^").replace("*", " ")


def rank_loss() -> sp.Expr:
    """The expected loss of retention of the exact Fisher fixed point at finite size, for the
    appendix generator: (1 - Delta eps_RT at rho_a = 1, task 1 unregularized; derived by
    :func:`tasksim.derivations.fisher.retention_rho1`) times rho_a^Nx, the probability that
    the generator keeps a column of A_1 whole (all Nx entries kept, each with probability
    rho_a). A draw whose [A_1, A_2] has rank deficiency d loses d/Ns of the rho_a = 1 loss
    (checked on every draw by the finding fisher-retention-exactly-one) and d is the number
    of kept columns except with vanishing probability at Nx >> Ns; Gaussian entries give
    d = 0 almost surely (Nx >= 2 Ns), hence no loss.

    >>> rank_loss()
    -2*gamma_f**2*rho_a**N_x*(rho_b - 1)
    """
    from .fisher import retention_rho1  # the model's derivation: imported when used

    return sp.factor(1 - retention_rho1("unregularized")) * rho_a**Nx


def rank_loss_size(claim_id: str) -> tuple[Optional[Size], str]:
    """The size of a :data:`RANK_LOSSES` statement at Nx = 3000, Ns = 30: the largest expected
    loss :func:`rank_loss` over the grid with rho_a < 1 and gamma_f < 1 (lambda > 0), and
    how it was obtained."""
    average = RANK_LOSSES[claim_id].startswith("average")
    if average:  # rho_a = 1 has measure zero: the average needs no exclusion
        term = sp.Piecewise((sp.factor(sp.integrate(rank_loss(), (rho_a, 0, 1), (rho_b, 0, 1))),
                             sp.Lt(gamma_f, 1)), (0, True))
    else:
        term = sp.Piecewise((rank_loss(), sp.And(sp.Lt(rho_a, 1), sp.Lt(gamma_f, 1))),
                            (0, True))
    size = size_at_paper_sizes(term)
    if size is None:
        return None, "the rank loss is not a number on the parameters' grid"
    half = (math.log(2) / PAPER_SIZES[Ns]) ** (1 / PAPER_SIZES[Nx])
    per = _words(sp.factor(rank_loss() / rho_a**Nx))
    return size, (
        "the expected loss of the exact fixed point at Nx = 3000, Ns = 30: Delta eps_RT = 1 "
        "exactly when rank [A_1, A_2] = 2 Ns (almost surely for Gaussian entries, Nx >= 2 "
        "Ns); the appendix generator keeps a column of A_1 whole with probability rho_a^Nx, "
        f"and a draw with d such columns loses d/Ns of the rho_a = 1 loss {per} (finding "
        "fisher-retention-exactly-one), so the expected loss is that times rho_a^Nx"
        + (f", averaged over the uniform prior ({_words(sp.factor(term.args[0][0]))}): max over "
           "lambda > 0; near rho_a = 1 a kept column is likely, whence the 1/(Nx + 1); "
           if average else ": max over the grid with rho_a < 1, lambda > 0; ")
        + "a kept column becomes "
        f"likely (probability 1/2 for some column) only at rho_a >= {half:.5f}")


# -- the soft-thresholding results that take m_i of unit variance: the row norms' spread -------

ROW_NORMS: dict[str, str] = {
    "soft_threshold.active_fraction": "alpha, the fraction of active inputs: the population's "
                                      "mean of P(|m_i| > h) over neurons i",
    "soft_threshold.threshold": "the threshold h that makes a fraction alpha of inputs active",
    "soft_threshold.cross_moment": "the coefficient of rho = A_ij in <s_j phi(m_i)>, for one "
                                   "neuron i",
    "soft_threshold.activity_correlation": "the coefficient of rho_c in <phi(m_j) phi(m_i)> "
                                           "(first order), for one pair of neurons i, j",
}
"""The four statements of Appendix subsec_appndix_input_soft_thresholding that hold for m_i of
unit variance, with their observable: sized by the spread of the row norms sigma_i^2 =
sum_j A_ij^2 ~ chi^2_Ns / Ns at the paper's Ns (:mod:`tasksim.derivations.row_norms`)."""

_ROW_NORM_MEASURES = {
    "soft_threshold.active_fraction": (
        lambda e: e.mean_active - e.alpha,
        "the population's active fraction E[erfc(h/(sqrt2 sigma_i))] minus alpha"),
    "soft_threshold.threshold": (
        lambda e: e.population_threshold - e.threshold,
        "the threshold that makes the population's active fraction alpha minus "
        "sqrt2 erfcinv(alpha)"),
    "soft_threshold.cross_moment": (
        lambda e: e.neuron_rms,
        "the root mean square over neurons of erfc(h/(sqrt2 sigma_i)) - alpha (Stein's lemma "
        "gives <s_j phi(m_i)> = A_ij erfc(h/(sqrt2 sigma_i)) exactly)"),
    "soft_threshold.activity_correlation": (
        lambda e: e.pair_rms,
        "the root mean square over pairs of neurons of erfc(h/(sqrt2 sigma_i)) "
        "erfc(h/(sqrt2 sigma_j)) - alpha^2 (the exact first-order coefficient in the "
        "covariance rho_c)"),
}


def row_norm_size(claim_id: str) -> tuple[Size, str]:
    """The size of a :data:`ROW_NORMS` statement at Ns = 30 (the sizes do not involve Nx):
    its measure (:data:`_ROW_NORM_MEASURES`) over the row norms' chi-square law, largest in
    magnitude over alpha = 0.1 .. 0.9 (alpha = 1, h = 0, is exact), with how it was obtained.

    >>> size, how = row_norm_size("soft_threshold.active_fraction")
    >>> round(size.value, 4), size.point
    (0.0091, {'alpha': 0.5})
    """
    from .row_norms import row_norm_errors  # quadrature (mpmath): imported when used

    measure, words = _ROW_NORM_MEASURES[claim_id]
    ns = int(PAPER_SIZES[Ns])
    rows = [row_norm_errors(a, ns) for a in GRIDS[alpha] if a < 1]
    worst = max(rows, key=lambda e: abs(measure(e)))
    how = (f"the row norms' spread at Ns = {ns}: with entries of A of variance 1/Ns, "
           f"sigma_i^2 = sum_j A_ij^2 follows chi^2_Ns/Ns across neurons, and {words}, by "
           f"quadrature over that law (derivations/row_norms.py), is {measure(worst):+.3g} at "
           f"alpha = {worst.alpha:g}, the largest over alpha = 0.1 .. 0.9 (alpha = 1, h = 0, "
           f"is exact). There the population's active fraction is {worst.mean_active:.4f} "
           f"against alpha (a 1/Ns effect, the neuron average), while one neuron's "
           f"erfc(h/(sqrt2 sigma_i)) lies {worst.neuron_rms:.3f} from alpha in root mean "
           f"square (an Ns^-1/2 effect)")
    if claim_id in _ROW_NORM_RELATIVE:  # a coefficient that scales with alpha (alpha^2)
        power, name = _ROW_NORM_RELATIVE[claim_id]
        sparse = max(rows, key=lambda e: abs(measure(e)) / e.alpha ** power)
        how += (f"; relative to the coefficient {name} itself the error is largest in the "
                f"sparse regime: {abs(measure(sparse)) / sparse.alpha ** power:.0%} of it at "
                f"alpha = {sparse.alpha:g}")
    return Size(abs(measure(worst)), {"alpha": worst.alpha}), how


ROW_SPREADS: dict[str, str] = {
    "soft_threshold.row_norm_condition": "sum_j A_ij^2 - 1, a row's squared norm (the "
                                         "variance of m_i) minus the 1 the appendix takes "
                                         "(its standard deviation across neurons)",
    "soft_threshold.tractable_error": "sum_j A_ij^2 - 1, the variance of m_i minus the unit "
                                      "variance the tractable error rests on (its standard "
                                      "deviation across neurons)",
}
"""The statements that take a row's squared norm to be 1 (the premise m_i ~ N(0, 1)), with
their observable: sized by that norm's standard deviation at the paper's Ns."""


SPREAD_WORDS = "from 1 in standard deviation across neurons"
"""What a :data:`ROW_SPREADS` size is, in its reason (its phrase is labelled by it)."""


def row_spread_size(claim_id: str) -> tuple[Size, str]:
    """The size of a :data:`ROW_SPREADS` statement at Ns = 30: the standard deviation of
    sum_j A_ij^2 across neurons, the square root of its derived variance (no free parameter,
    no point: the reason says Ns = 30), with how it was obtained and what it enters.

    >>> size, how = row_spread_size("soft_threshold.row_norm_condition")
    >>> round(size.value, 4), size.point, size.over
    (0.2582, {}, 'stated point')
    """
    from .latex import inline_math
    from .soft_threshold import row_norm_variance  # the model's derivation: imported when used

    if claim_id not in ROW_SPREADS:
        raise ValueError(f"no row-norm spread for {claim_id!r}")
    variance = row_norm_variance()
    ns = PAPER_SIZES[Ns]
    value = float(sp.sqrt(variance.subs(Ns, ns)))
    how = (f"the row norms' spread at Ns = {ns}: with entries of A of variance 1/Ns, sum_j "
           f"A_ij^2 has variance {inline_math(variance)} (derived), so it lies {value:.3g} "
           f"{SPREAD_WORDS}; what the spread does to the results the "
           f"appendix derives from m_i ~ N(0, 1) is sized at lines 271, 861, 873 and 880")
    return Size(value, {}, "stated point"), how


_ROW_NORM_RELATIVE = {"soft_threshold.cross_moment": (1, "alpha"),
                      "soft_threshold.activity_correlation": (2, "alpha^2")}
"""The row-norm statements whose coefficient scales with alpha (power, name): their absolute
grid maximum is read beside the error relative to the coefficient."""
