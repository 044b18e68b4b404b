"""The three phases of the gating-level dependence (Fig. 7, fig_supp_phase; Appendix B.1,
"Random activity gating").

From the *derived* random-gating retention R(alpha) (:func:`tasksim.derivations.gating.leading_retention`
at alpha~ = alpha) sympy factors dR/dalpha = -2 alpha rho_a^2 q(alpha) with
q = 2 rho_a^2 alpha^2 - 3 rho_a rho_b alpha + 1. Retention rises somewhere in (0, 1] iff q < 0
there, i.e. iff q has real roots (discriminant rho_a^2 (9 rho_b^2 - 8) >= 0) and its smaller root
alpha_- <= 1 (closure). Its boundary is q(1) = 0, i.e. rho_b = 2 rho_a/3 + 1/(3 rho_a), and the
double-root point alpha_- = 1 at (rho_a, rho_b) = (1/sqrt2, 2 sqrt2/3): the paper's red region.

>>> rising_region()
(9*rho_b**2 - 8 >= 0) & (3*rho_b/(4*rho_a) - sqrt(9*rho_b**2 - 8)/(4*rho_a) <= 1)
>>> boundary_curve()
(2*rho_a**2 + 1)/(3*rho_a)
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import sympy as sp

from .claims import Claim, Derivation, Step
from .gating import leading_retention, leading_transfer
from .symbols import alpha, alpha_t, rho_a, rho_b

__all__ = [
    "random_transfer",
    "random_retention",
    "retention_slope_factor",
    "rising_region",
    "boundary_curve",
    "PRINTED_REGION",
    "same_region",
    "CLAIMS",
]

PRINTED_REGION = sp.Or(rho_b >= 2 * rho_a / 3 + 1 / (3 * rho_a),
                       sp.And(rho_b >= 2 * sp.sqrt(2) / 3, rho_a >= 1 / sp.sqrt(2)))


def random_transfer() -> sp.Expr:
    """Derived leading-order transfer with random gating (alpha~ = alpha).

    >>> random_transfer()
    -alpha*rho_a*(alpha*rho_a - 2*rho_b)
    """
    return leading_transfer().subs(alpha_t, alpha)


def random_retention() -> sp.Expr:
    """Derived leading-order retention with random gating (alpha~ = alpha).

    >>> random_retention().subs(alpha, 0)
    1
    """
    return leading_retention().subs(alpha_t, alpha)


@lru_cache(maxsize=None)
def retention_slope_factor() -> sp.Expr:
    """q(alpha) with dR/dalpha = -2 alpha rho_a^2 q(alpha): the one factor quadratic in alpha.

    >>> retention_slope_factor()
    2*alpha**2*rho_a**2 - 3*alpha*rho_a*rho_b + 1
    """
    slope = sp.factor(sp.diff(random_retention(), alpha))
    _, factors = sp.factor_list(slope)
    quadratic = [f for f, _ in factors if sp.degree(f, alpha) == 2]
    if len(quadratic) != 1:
        raise ArithmeticError(f"unexpected form of dR/dalpha: {slope}")
    rest = sp.factor(slope / quadratic[0])
    for sign in (1, -1):
        if sp.expand(rest + sign * 2 * alpha * rho_a**2) == 0:
            return sp.expand(sign * quadratic[0])
    raise ArithmeticError(f"unexpected form of dR/dalpha: {slope}")


@lru_cache(maxsize=None)
def rising_region() -> sp.Boolean:
    """{(rho_a, rho_b): R rises somewhere in alpha in (0, 1]} (closed), derived.

    >>> bool(rising_region().subs({rho_a: sp.Rational(3, 5), rho_b: 1}))
    True
    """
    q = retention_slope_factor()
    disc = sp.factor(sp.discriminant(q, alpha))  # rho_a^2 (9 rho_b^2 - 8)
    disc_sign = sp.factor(disc / rho_a**2)
    roots = sp.solve(q, alpha)
    smaller = [r for r in roots if sp.simplify(
        (r - [s for s in roots if s is not r][0]).subs({rho_a: 1, rho_b: 1})) < 0][0]
    return sp.And(disc_sign >= 0, sp.expand(smaller) <= 1)


def boundary_curve() -> sp.Expr:
    """rho_b on the curve q(alpha = 1) = 0: where R starts to rise at alpha = 1.

    >>> boundary_curve().subs(rho_a, 1)
    1
    """
    (solution,) = sp.solve(retention_slope_factor().subs(alpha, 1), rho_b)
    return sp.factor(solution)


def _compile(region: sp.Boolean):
    """Each relational atom of ``region`` with a float function of its margin lhs - rhs, and
    the region's logic."""
    atoms = sorted(region.atoms(sp.core.relational.Relational), key=sp.default_sort_key)
    return ([(atom, sp.lambdify((rho_a, rho_b), atom.lhs - atom.rhs, "math")) for atom in atoms],
            _logic(region))


def _logic(region: sp.Boolean):
    """``region`` as a Python function of the truth values of its relational atoms."""
    if isinstance(region, sp.core.relational.Relational):
        return lambda truths: truths[region]
    if region in (sp.true, sp.false):
        return lambda truths: bool(region)
    parts = [_logic(arg) for arg in region.args]
    if isinstance(region, sp.And):
        return lambda truths: all(f(truths) for f in parts)
    if isinstance(region, sp.Or):
        return lambda truths: any(f(truths) for f in parts)
    if isinstance(region, sp.Not):
        return lambda truths: not parts[0](truths)
    raise NotImplementedError(f"unsupported connective in a region: {region.func}")


def _truth(region: sp.Boolean, compiled, x: Fraction, y: Fraction) -> bool:
    """Truth of ``region`` at the rational point (rho_a, rho_b) = (x, y): float margins away
    from ties (|margin| > 1e-9), exact sympy at ties. An atom whose margin is not real there (a
    square root of a negative number) is false: it only ever appears beside the condition that
    makes it real."""
    atoms, logic = compiled
    truths = {}
    for atom, margin_of in atoms:
        try:
            margin = margin_of(float(x), float(y))
        except (ValueError, ZeroDivisionError):
            truths[atom] = False
            continue
        if abs(margin) > 1e-9:
            truths[atom] = (margin > 0) == isinstance(atom, (sp.GreaterThan,
                                                             sp.StrictGreaterThan))
            continue
        try:
            point = {rho_a: sp.Rational(x.numerator, x.denominator),
                     rho_b: sp.Rational(y.numerator, y.denominator)}
            truths[atom] = bool(sp.simplify(atom.subs(point)))
        except TypeError:
            truths[atom] = False
    return logic(truths)


def _boundary_points(regions, n: int) -> list[tuple[Fraction, Fraction]]:
    """Rational points just either side of every boundary curve of the regions' atoms,
    rho_b = phi(rho_a) (or rho_a = const), at rho_a = i/n: where two regions that differ only
    in a thin strip along a boundary are told apart."""
    delta = Fraction(1, 50 * n)
    points = []
    for region in regions:
        for atom in region.atoms(sp.core.relational.Relational):
            margin = atom.lhs - atom.rhs
            curves = [(phi, True) for phi in sp.solve(margin, rho_b)] if margin.has(rho_b) else \
                [(phi, False) for phi in sp.solve(margin, rho_a)]
            for phi, along_b in curves:
                phi_of = sp.lambdify(rho_a, phi, "cmath")
                for i in range(1, n + 1):
                    try:
                        value = complex(phi_of(i / n))
                    except ZeroDivisionError:
                        continue
                    if abs(value.imag) > 1e-12:
                        continue
                    centre = Fraction(round(value.real * 50 * n), 50 * n)
                    for side in (centre - delta, centre + delta):
                        if 0 <= side <= 1:
                            points.append((Fraction(i, n), side) if along_b
                                          else (side, Fraction(i, n)))
    return [p for p in points if p[0] > 0]


def same_region(a: sp.Boolean, b: sp.Boolean, n: int = 120) -> bool:
    """The regions agree at every point (i/n, j/n), 0 < i <= n, 0 <= j <= n, and at points
    just either side of every boundary curve of either region (exact at ties).

    (rho_a = 0 is left out: the printed boundary 1/(3 rho_a) is undefined there and the
    retention does not depend on alpha.) The derivation also checks the boundary curve and
    its corner symbolically.

    >>> same_region(rho_b >= rho_a, rho_a <= rho_b), same_region(rho_b >= rho_a, rho_b > rho_a + sp.Rational(1, 1000))
    (True, False)
    """
    ca, cb = _compile(a), _compile(b)
    grid = [(Fraction(i, n), Fraction(j, n)) for i in range(1, n + 1) for j in range(n + 1)]
    return all(_truth(a, ca, x, y) == _truth(b, cb, x, y)
               for x, y in grid + _boundary_points((a, b), n))


def _derive_region() -> Derivation:
    q = retention_slope_factor()
    region = rising_region()
    curve = boundary_curve()
    corner_b = sp.solve(sp.discriminant(q, alpha) / rho_a**2, rho_b)
    corner_b = [c for c in corner_b if c.is_positive][0]
    double_root = sp.solve(q.subs(rho_b, corner_b), alpha)[0]
    corner_a = sp.solve(double_root - 1, rho_a)[0]
    return Derivation(region, (
        Step("dR/dalpha", sp.factor(sp.diff(random_retention(), alpha))),
        Step("q(alpha)", q, "R rises where q < 0"),
        Step("boundary q(1) = 0", sp.Eq(rho_b, curve)),
        Step("equals the printed curve", sp.simplify(curve - (2 * rho_a / 3 + 1 / (3 * rho_a))),
             "zero"),
        Step("discriminant zero", sp.Eq(rho_b, corner_b)),
        Step("double root at alpha = 1", sp.Eq(rho_a, corner_a)),
        Step("derived region (closed)", region),
    ), exact=False, note="compared on a 120 x 121 rational grid and beside every boundary curve "
                         "(exact at ties), and by the boundary curve and corner above")


def _positive_parameters():
    p, v, w = sp.symbols("p v w", nonnegative=True)
    t = sp.Symbol("t", positive=True)
    return p, v, w, t


def _derive_high_alpha_hurts() -> Derivation:
    """rho_b < rho_a, alpha in (rho_b/rho_a, 1]: dT/dalpha < 0 and dR/dalpha < 0.

    Parametrise alpha = 1/(1+w), rho_a = 1/(1+v) (w, v >= 0) and rho_b = alpha rho_a - t
    (t > 0 means alpha > rho_b/rho_a); sympy then reads the signs off sums of positive terms.
    """
    _, v, w, t = _positive_parameters()
    point = {alpha: 1 / (1 + w), rho_a: 1 / (1 + v)}
    dT = sp.diff(random_transfer(), alpha)
    dR = sp.diff(random_retention(), alpha)
    dT_sub = sp.factor(sp.together(dT.subs(rho_b, alpha * rho_a - t).subs(point)))
    dR_sub = sp.factor(sp.together(dR.subs(rho_b, alpha * rho_a - t).subs(point)))
    holds = bool(dT_sub.is_negative) and bool(dR_sub.is_negative)
    return Derivation(sp.true if holds else sp.false, (
        Step("dT/dalpha", sp.factor(dT)), Step("dR/dalpha", sp.factor(dR)),
        Step("dT/dalpha, alpha = 1/(1+w), rho_a = 1/(1+v), rho_b = alpha rho_a - t", dT_sub,
             "negative"),
        Step("dR/dalpha, same parametrisation", dR_sub, "negative"),
    ), exact=False)


def _derive_tradeoff() -> Derivation:
    """rho_b > rho_a: dT/dalpha > 0 on (0, 1]; outside the rising region dR/dalpha <= 0."""
    _, v, w, t = _positive_parameters()
    point = {alpha: 1 / (1 + w), rho_a: 1 / (1 + v)}
    dT = sp.diff(random_transfer(), alpha)
    dT_sub = sp.factor(sp.together(dT.subs(rho_b, rho_a + t).subs(point)))
    q = retention_slope_factor()
    dR = sp.diff(random_retention(), alpha)
    if sp.expand(dR + 2 * alpha * rho_a**2 * q) != 0:
        raise ArithmeticError(f"dR/dalpha is not -2 alpha rho_a^2 q(alpha): {sp.factor(dR)}")
    return Derivation(sp.true if dT_sub.is_positive else sp.false, (
        Step("dT/dalpha, alpha = 1/(1+w), rho_a = 1/(1+v), rho_b = rho_a + t (v, w >= 0, "
             "t > 0)", dT_sub, "positive"),
        Step("dR/dalpha = -2 alpha rho_a^2 q(alpha) (checked)", sp.factor(dR),
             "the rising region is where q < 0 somewhere on (0, 1], so outside it "
             "dR/dalpha <= 0 on all of (0, 1]"),
    ), exact=False)


def _transfer_change() -> sp.Expr:
    """T(alpha) - T(1): random gating's leading-order transfer against the vanilla model's,
    checked to be rho_a (1 - alpha)(rho_a (1 + alpha) - 2 rho_b)."""
    change = sp.factor(random_transfer() - random_transfer().subs(alpha, 1))
    expected = rho_a * (1 - alpha) * (rho_a * (1 + alpha) - 2 * rho_b)
    if sp.expand(change - expected) != 0:
        raise ArithmeticError(f"T(alpha) - T(1) is not {expected}: {change}")
    return change


def _derive_gating_trades_transfer() -> Derivation:
    """Line 248 (and the abstract, line 62), said of random gating without a condition:
    gating (alpha < 1) lowers the transfer while it helps retention. The transfer's change
    against the vanilla model, T(alpha) - T(1) = rho_a (1 - alpha)(rho_a (1 + alpha) - 2
    rho_b), is negative only where rho_a (1 + alpha) < 2 rho_b; where rho_b < rho_a/2 gating
    raises the transfer at every alpha, so the statement needs line 731's condition. The
    derived value is the transfer gating gains where it does (0 where it never does, as
    printed), largest at rho_a = 1, rho_b = 0, alpha -> 0 (REFEREE34 m9)."""
    change = _transfer_change()
    gained = sp.Max(0, change)
    return Derivation(gained, (
        Step("T(alpha) - T(1), random gating's transfer against the vanilla one", change,
             "negative only where rho_a (1 + alpha) < 2 rho_b"),
        Step("the transfer gating gains, where it gains", gained),
    ), exact=False,
        stronger_condition="rho_b > rho_a outside the red region of Fig. 7 (line 731's "
                           "condition): where rho_b < rho_a, gating with alpha >= rho_b/rho_a "
                           "raises the transfer (line 243), and where rho_a (1 + alpha) > 2 "
                           "rho_b it raises it at that alpha")


def _derive_sparse_trades_transfer() -> Derivation:
    """Line 90 (REFEREE40 m6): random gating "when the gating highly sparsifies the activity",
    alpha -> 0. The retention tends to 1 (eq_rcg_epsilon_RT), at least the vanilla model's;
    the transfer's change against the vanilla model tends to rho_a (rho_a - 2 rho_b), a cost
    only where rho_b > rho_a/2: elsewhere sparse gating raises the transfer. The derived value
    is the transfer gained as alpha -> 0 where it is gained."""
    change = _transfer_change()
    sparse = sp.factor(sp.limit(change, alpha, 0))
    retention = sp.limit(random_retention(), alpha, 0)
    gained = sp.Max(0, sparse)
    return Derivation(gained, (
        Step("T(alpha) - T(1), random gating's transfer against the vanilla one", change),
        Step("as alpha -> 0", sparse, "negative only where rho_b > rho_a/2"),
        Step("the retention as alpha -> 0", retention),
        Step("the transfer sparse gating gains, where it gains", gained),
    ), exact=False,
        stronger_condition="rho_b > rho_a/2: where rho_b < rho_a/2 highly sparse gating raises "
                           "the transfer, by rho_a (rho_a - 2 rho_b) as alpha -> 0")


def _derive_overlap() -> Derivation:
    """Area of {rising region} intersected with {rho_b < rho_a}.

    There rho_b >= 2 sqrt2/3 and alpha_- <= 3 rho_b/(4 rho_a) < 3/4, so the intersection should
    be {2 sqrt2/3 <= rho_b < rho_a}; that is checked on the grid before its area is taken.
    """
    c = 2 * sp.sqrt(2) / 3
    overlap = sp.And(rising_region(), rho_b < rho_a)
    triangle = sp.And(rho_b >= c, rho_b < rho_a)
    if not same_region(overlap, triangle):
        raise ArithmeticError("the overlap is not the expected triangle")
    area = sp.integrate(sp.integrate(1, (rho_b, c, rho_a)), (rho_a, c, 1))
    return Derivation(sp.expand(area), (
        Step("rising region and rho_b < rho_a equals", triangle, "checked on the grid"),
        Step("area", area)), exact=False,
        stronger_condition=f"(rho_a, rho_b) outside {{2 sqrt2/3 <= rho_b < rho_a}} (area "
                           f"{float(area):.5f}), where the red region (Fig. 7C) meets "
                           f"rho_b < rho_a (Fig. 7D)",
        note=f"the red region meets rho_b < rho_a (area {float(area):.5f}); there the "
             "retention rises for alpha in (alpha_-, alpha_+) below rho_b/rho_a, so phases C "
             "and D of Fig. 7 overlap")


CLAIMS: list[Claim] = [
    Claim("phase_diagram.rising_region", "Appendix B.1, random gating; Fig. 7 (fig_supp_phase) "
          "red region", PRINTED_REGION,
          r"In the red region where $\rho_b \geq \tfrac{2 \rho_a}{3} + \tfrac{1}{3 \rho_a}$ or "
          r"$\rho_b \geq \tfrac{2\sqrt{2}}{3} \wedge \rho_a \geq \tfrac{1}{\sqrt{2}}$, a large "
          r"gating level above a threshold improves the retention performance",
          _derive_region, equivalent=same_region, line=732, headline=True,
          condition="leading order in Ns/(alpha Nx)",
          note="read as: the region where the retention rises with alpha somewhere in (0, 1]"),
    Claim("phase_diagram.high_alpha_hurts_both", "Appendix B.1, Fig. 7D: rho_b < rho_a, "
          "alpha > rho_b/rho_a lowers transfer and retention", sp.true,
          r"When $\rho_b < \rho_a$, high gating level, $\alpha > \tfrac{\rho_b}{\rho_a}$, "
          r"lower both transfer and retention performance", _derive_high_alpha_hurts,
          line=733, headline=True, condition="leading order in Ns/(alpha Nx)"),
    Claim("phase_diagram.tradeoff", "Appendix B.1, Fig. 7B: rho_b > rho_a, monotonic "
          "tradeoff unless both are large", sp.true,
          r"When $\rho_b > \rho_a$, unless both $\rho_a$ and $\rho_b$ are large, there is a "
          r"monotonic tradeoff between the transfer and retention performance", _derive_tradeoff,
          line=731, headline=True, condition="rho_b > rho_a outside the red region; leading "
          "order in Ns/(alpha Nx)"),
    Claim("gating.random.trades_transfer", "Sec. 5.1: random gating improves retention at the "
          "cost of transfer (no condition stated)", sp.Integer(0),
          r"random activity gating improves the retention at the cost of forward knowledge "
          r"transfer", _derive_gating_trades_transfer, line=248, headline=True,
          condition="leading order in Ns/(alpha Nx), every 0 <= rho_a, rho_b <= 1",
          observable="Delta eps_TF: the transfer random gating gains over the vanilla model",
          note="read as: at every similarity, gating (alpha < 1) does not raise the transfer "
               "(the printed value is the gain, 0); the retention half is line 245's (optimized "
               "at alpha -> 0). Line 731 states the same tradeoff with its condition; line "
               "90 states it for highly sparse gating (its own statement)",
          restates=((62, r"task-dependent activity gating improves knowledge retention at the "
                         r"expense of transfer"),)),
    Claim("gating.random.sparse_trades_transfer", "Sec. 1: activity gating improves retention "
          "at the cost of transfer when it highly sparsifies the activity", sp.Integer(0),
          r"Activity gating improves retention at the cost of transfer when the gating highly "
          r"sparsifies the activity", _derive_sparse_trades_transfer, line=90, headline=True,
          condition="leading order in Ns/(alpha Nx), alpha -> 0 (highly sparse), every "
                    "0 <= rho_a, rho_b <= 1",
          observable="Delta eps_TF: the transfer highly sparse random gating gains over the "
                     "vanilla model",
          note="read as: as alpha -> 0 gating raises the retention (to 1) and does not raise "
               "the transfer, at every similarity (the printed value is the transfer's gain, "
               "0); line 248 says the same without the sparsity"),
    Claim("phase_diagram.overlap_of_phases", "Appendix B.1, Fig. 7A: the red region and "
          "rho_b < rho_a",
          sp.Integer(0), r"the gating level influences the transfer and retention performance "
          r"in three different manners", _derive_overlap, line=730, headline=True,
          observable="area of the (rho_a, rho_b) unit square where two of the three manners "
                     "(Fig. 7C and 7D) are both stated",
          condition="leading order in Ns/(alpha Nx)",
          note="read as: the three manners (lines 731-733) partition the (rho_a, rho_b) "
               "square, so the area where two of them are stated is 0"),
]
