"""The vanilla model: Sec. 4 (eq_gd_fp_vanilla, eq_epsilon_vanilla) and the vanilla paragraph of
Appendix B.1.

Vanilla is activity gating with D = I (alpha~ = 1). The leading-order results are derived as for
gating (:mod:`tasksim.derivations.two_task`: weights, error, exact identity, readout expectation,
surrogates A^+ ~ (Ns/Nx) A^T and U U^T ~ (Ns/Nx) A A^T, exact engine expectation, leading order).

For the Gaussian generator the transfer is also derived *exactly*, without surrogates:
A_2 = rho_a A_1 + sqrt(1 - rho_a^2) Z with Z independent of A_1, so A_1^+ A_2 =
rho_a I_s + sqrt(1 - rho_a^2) A_1^+ Z; averaging over Z leaves tr (A_1^T A_1)^{-1}, whose mean
is the inverse-Wishart mean Ns^2/(Nx - Ns - 1) (A_1^T A_1 ~ Wishart_Ns(Nx, I/Ns); e.g.
Muirhead, *Aspects of Multivariate Statistical Theory*, 1982, Sec. 3.2).

>>> leading_vanilla_transfer(), sp.factor(leading_vanilla_retention() - 1)
(-rho_a*(rho_a - 2*rho_b), -rho_a**2*(rho_a**2 - 2*rho_a*rho_b + 1))
>>> correction = exact_gaussian_transfer().value - leading_vanilla_transfer()
>>> sp.simplify(correction + (1 - rho_a**2) * Ns / (Nx - Ns - 1))
0
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .latex import inline_math, plain
from .claims import Claim, Derivation, Step
from .engine import expect_trace, ratio_expansion
from .matrix_words import MatrixExpr, eye, opaque, readout, task
from .symbols import Ns, Nx, rho_a, rho_b
from .two_task import (ErrorDerivation, Surrogates, TwoTaskModel, readout_average, retention,
                       transfer)

__all__ = [
    "VANILLA",
    "leading_vanilla_transfer",
    "leading_vanilla_retention",
    "exact_gaussian_transfer",
    "inverse_wishart_trace",
    "CLAIMS",
]

VANILLA = TwoTaskModel(gated=False)


@lru_cache(maxsize=None)
def leading_vanilla_transfer(generator: str = "appendix") -> sp.Expr:
    """Delta eps_TF at leading order in Ns/Nx (eq_epsilon_vanilla).

    >>> leading_vanilla_transfer()
    -rho_a*(rho_a - 2*rho_b)
    """
    return sp.factor(ratio_expansion(transfer(VANILLA, generator).value, 0)[0])


@lru_cache(maxsize=None)
def leading_vanilla_retention(generator: str = "appendix") -> sp.Expr:
    """Delta eps_RT at leading order in Ns/Nx (eq_epsilon_vanilla).

    >>> sp.factor(leading_vanilla_retention() - 1)
    -rho_a**2*(rho_a**2 - 2*rho_a*rho_b + 1)
    """
    return sp.expand(ratio_expansion(retention(VANILLA, generator).value, 0)[0])


def inverse_wishart_trace() -> sp.Expr:
    """E tr (A^T A)^{-1} = Ns^2/(Nx - Ns - 1) for A Nx x Ns with N(0, 1/Ns) entries (Nx > Ns + 1).

    Textbook: E W^{-1} = Sigma^{-1}/(n - p - 1) for W ~ Wishart_p(n, Sigma); here p = Ns,
    n = Nx, Sigma = I/Ns.

    >>> inverse_wishart_trace()
    N_s**2/(-N_s + N_x - 1)
    """
    return Ns**2 / (Nx - Ns - 1)


def _average_over_Z(Q: MatrixExpr, Z: MatrixExpr) -> MatrixExpr:
    """E_Z tr(Q) as the trace of an expression without Z: E[Z] = 0, E[Z^T K Z] = tr(K)/Ns I_s.

    In a trace, tr(Z^T K Z R) averages to tr(K) tr(R)/Ns; the words met here have R = I_s, so
    tr(Z^T K Z) -> tr(K). Anything else raises NotImplementedError.
    """
    z = Z.single_letter()
    out = MatrixExpr({}, "x", "x")
    scalars = sp.Integer(0)
    for word, coeff in Q:
        count = sum(1 for letter in word if letter in (z, z.T))
        if count == 0:
            if word != eye("s").single_word():
                raise NotImplementedError(f"unexpected Z-free word {word}")
            scalars += coeff * Ns
        elif count == 1:
            continue  # E[Z] = 0
        elif count == 2 and word[0] == z.T and word[-1] == z:
            out = out + MatrixExpr({word[1:-1]: coeff}, "x", "x")
        else:
            raise NotImplementedError(f"Z-average of {word} is not needed by this derivation")
    return out, scalars


def exact_gaussian_transfer() -> ErrorDerivation:
    """Delta eps_TF of the vanilla model, exact at finite Nx > Ns + 1, Gaussian generator.

    >>> sp.factor(exact_gaussian_transfer().value.subs(rho_a, 1))
    2*rho_b - 1
    """
    P = VANILLA.pinv(1)
    Z = opaque("Z", "x", "s")
    s = sp.sqrt(1 - rho_a**2)
    steps = []
    R = VANILLA.residual(2, 1)  # B_2 - B_1 A_1^+ A_2
    steps.append(Step("error eps_2[W_1] (eq_ap_epsilonW)", R.to_sympy()))
    R = R.replace(task(2), rho_a * task(1) + s * Z)
    steps.append(Step(r"Gaussian generator: $A_2 = \rho_a A_1 + \sqrt{1-\rho_a^2}\, Z$", R.to_sympy()))
    R = R.replace(P @ task(1), eye("s"))
    steps.append(Step("exact identity A_1^+ A_1 = I_s", R.to_sympy()))
    Q = readout_average(R)
    steps.append(Step("readout expectation", Q.to_sympy()))
    K, scalars = _average_over_Z(Q, Z)
    steps.append(Step("average over Z: E[Z] = 0, E tr(Z^T K Z) = tr K", K.to_sympy()))
    inverse = sp.Integer(0)
    for word, coeff in K:
        if [str(x) for x in word] not in (["A_{1}^{+}^T", "A_{1}^{+}"],):
            raise NotImplementedError(f"unexpected word {word}")
        inverse += coeff * inverse_wishart_trace()  # tr(P^T P) = tr (A_1^T A_1)^{-1}
    eps_2_W1 = sp.simplify(scalars + inverse)
    steps.append(Step("inverse-Wishart mean E tr(A^T A)^{-1} = Ns^2/(Nx - Ns - 1)", eps_2_W1))
    value = sp.factor(1 - eps_2_W1)  # <eps_2[W_0]> = 1 exactly
    steps.append(Step("Delta eps_TF = <eps_2[W_0]> - <eps_2[W_1]>", value))
    return ErrorDerivation(value, tuple(steps))


# -- claims -------------------------------------------------------------------------------

_T = rho_a * (2 * rho_b - rho_a)
_R = 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1)


def _derive(fn, generator: str = "appendix") -> Derivation:
    d = (transfer if fn is leading_vanilla_transfer else retention)(VANILLA, generator)
    return Derivation(fn(generator), d.steps + (Step("leading order in Ns/Nx", fn(generator)),),
                      exact=False)


def _derive_exact() -> Derivation:
    d = exact_gaussian_transfer()
    return Derivation(d.value, d.steps, exact=True,
                      note="Gaussian generator, no surrogate; needs Nx > Ns + 1")


def _derive_corners() -> Derivation:
    T = leading_vanilla_transfer()
    values = sp.Tuple(T.subs({rho_a: 0, rho_b: 0}), T.subs({rho_a: 1, rho_b: 1}))
    return Derivation(values, (Step("Delta eps_TF at (0,0) and (1,1)", values),), exact=False)


def _derive_argmax() -> Derivation:
    T = leading_vanilla_transfer()
    critical = sp.solve(sp.diff(T, rho_a), rho_a)
    curvature = sp.diff(T, rho_a, 2)
    if len(critical) != 1 or not curvature.is_negative:
        raise ArithmeticError("expected a single maximum in rho_a")
    # where the maximum is an end of [0, 1], the transfer is monotone in rho_a: the exceptions
    ends = sp.Union(*(sp.solveset(sp.Eq(critical[0], end), rho_b, sp.Interval(0, 1))
                      for end in (0, 1)))
    at_zero = sp.factor(T.subs(rho_b, 0))
    exceptions = (f"rho_b in {{{', '.join(str(e) for e in sorted(ends))}}}: the maximum "
                  f"rho_a = rho_b is then an end of [0, 1], so the transfer is monotone in "
                  f"rho_a (at rho_b = 0 it is {plain(at_zero)}, decreasing; at rho_b = 1, "
                  f"increasing)"
                  if ends else "")
    return Derivation(critical[0], (Step("dT/drho_a = 0", critical[0]),
                                    Step("second derivative of T in rho_a", curvature, "negative: a maximum"),
                                    Step("rho_b in [0, 1] where that maximum is an end of "
                                         "[0, 1]", ends)),
                      exact=False, note="increasing for rho_a < rho_b, decreasing beyond",
                      exceptions=exceptions)


def _derive_negative_corner() -> Derivation:
    """Where both transfer and retention are negative at rho_a = 1: an interval of rho_b that
    reaches above 0 (a positive readout correlation)."""
    T, R = leading_vanilla_transfer(), leading_vanilla_retention()
    both = _negative_interval(T.subs(rho_a, 1), R.subs(rho_a, 1))
    holds = both.measure > 0 and both.sup > 0
    return Derivation(sp.true if holds else sp.false,
                      (Step("(Delta eps_TF, Delta eps_RT) at rho_a = 1",
                            sp.Tuple(sp.factor(T.subs(rho_a, 1)), sp.factor(R.subs(rho_a, 1)))),
                       Step("rho_b in [0, 1] where both are negative (rho_a = 1)", both)),
                      exact=False, note=f"both negative at rho_a = 1 for $\\rho_b \\in "
                                        f"{sp.latex(both)}$: positive readout correlations "
                                        "included")


def _negative_interval(T: sp.Expr, R: sp.Expr) -> sp.Set:
    unit = sp.Interval(0, 1)
    return (sp.solveset(T < 0, rho_b, unit).intersect(sp.solveset(R < 0, rho_b, unit)))


def _derive_benign() -> Derivation:
    """Low feature, high readout similarity (rho_a <= rho_b): the least transfer and the least
    retention over that triangle."""
    T, R = leading_vanilla_transfer(), leading_vanilla_retention()
    t = sp.Symbol("t", nonnegative=True)
    on_diagonal = sp.expand(R.subs(rho_b, rho_a))
    critical = [c for c in sp.solve(sp.diff(on_diagonal, rho_a), rho_a) if 0 < c < 1]
    least_R = min([on_diagonal.subs(rho_a, c) for c in critical + [0, 1]])
    # R increases with rho_b (dR/drho_b = 2 rho_a^3 >= 0): its minimum over rho_b >= rho_a is
    # on the diagonal; T = rho_a (2 rho_b - rho_a) >= rho_a^2 >= 0 there.
    slope_R = sp.factor(sp.diff(R, rho_b))
    T_shift = sp.expand(T.subs(rho_b, rho_a + t))
    holds = bool(slope_R.subs(rho_a, sp.Symbol("p", positive=True)).is_nonnegative
                 and T_shift.subs(rho_a, sp.Symbol("p", positive=True)).is_nonnegative
                 and least_R > 0)
    return Derivation(sp.true if holds else sp.false, (
        Step("dR/drho_b", slope_R, "non-negative: the least R over rho_b >= rho_a is at rho_b = rho_a"),
        Step("R on the diagonal rho_b = rho_a", on_diagonal),
        Step("least retention over rho_a <= rho_b", least_R),
        Step("T at rho_b = rho_a + t", T_shift, "non-negative"),
    ), exact=False, note=f"over rho_a <= rho_b: transfer >= 0, retention >= {least_R} "
                         f"(= {float(least_R):.4g}, at $\\rho_a = \\rho_b = 1/\\sqrt{{2}}$)")


def _derive_transfer_asymmetry() -> Derivation:
    T = leading_vanilla_transfer()
    unit = sp.Interval(0, 1)
    p = sp.Symbol("p", positive=True)
    negative = {a: sp.solveset(T.subs(rho_a, a) < 0, rho_b, unit)
                for a in (sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1))}
    swapped = sp.factor(T - T.subs({rho_a: rho_b, rho_b: rho_a}, simultaneous=True))
    upper_left = sp.expand(T.subs(rho_b, rho_a + sp.Symbol("t", nonnegative=True)))
    holds = all(region == sp.Interval.Ropen(0, a / 2) for a, region in negative.items()) and \
        upper_left.subs(rho_a, p).is_nonnegative
    return Derivation(sp.true if holds else sp.false, (
        Step("T(rho_a, rho_b) - T(rho_b, rho_a)", swapped, "not zero: asymmetric"),
        Step("rho_b where T < 0 at rho_a = 1/4, 1/2, 1", sp.Tuple(*negative.values()),
             "lower right: rho_b < rho_a/2"),
        Step("T at rho_b = rho_a + t", upper_left, "non-negative: upper left"),
    ), exact=False, note="negative exactly where rho_b < rho_a/2; at (1, 0) T = -1, at (0, 1) "
                         "T = 0; on rho_b >= rho_a, 0 <= T <= rho_b^2 (modest)")


def _derive_retention_asymmetry() -> Derivation:
    R = leading_vanilla_retention()
    swapped = sp.factor(R - R.subs({rho_a: rho_b, rho_b: rho_a}, simultaneous=True))
    corners = sp.Tuple(R.subs({rho_a: 1, rho_b: 0}), R.subs({rho_a: 0, rho_b: 1}))
    return Derivation(sp.true if swapped != 0 else sp.false, (
        Step("R(rho_a, rho_b) - R(rho_b, rho_a)", swapped),
        Step("R(1, 0), R(0, 1)", corners)), exact=False)


def _derive_output_power() -> Derivation:
    """<||W_1 A_2||_F^2>/Ny from the model's W_1 = B_1 A_1^+: task 2's inputs through the
    weights of task 1, averaged over B (only B_1 enters, so no rho_b can), then over A with
    the paper's surrogate A_1^+ -> (Ns/Nx) A_1^T; cross-checked against minus the transfer at
    rho_b = 0 (Delta eps_TF = 2 <tr B_2^T W_1 A_2>/Ny - <||W_1 A_2||^2>/Ny), and "large":
    at rho_a = 1 it is the target's own power <||B_2||^2>/Ny."""
    output = VANILLA.weights(1) @ VANILLA.features(2)
    Q = readout_average(output)
    surrogate = Q.subs(VANILLA.surrogate_map(Surrogates()))
    value = expect_trace(surrogate, "appendix")
    power = sp.factor(ratio_expansion(value, 0)[0])
    slope = sp.diff(value, rho_b)
    against = sp.factor(power + leading_vanilla_transfer().subs(rho_b, 0))
    target = expect_trace(readout_average(readout(2)), "appendix")
    return Derivation(slope, (
        Step("output W_1 A_2 = B_1 A_1^+ A_2 (task 2's inputs, task 1's weights)",
             output.to_sympy()),
        Step("readout expectation: E_B ||W_1 A_2||^2/Ny = tr Q", Q.to_sympy(),
             "only B_1 enters: E[B_1^T B_1] = (Ny/Ns) I_s"),
        Step("appendix generator, A_1^+ -> (Ns/Nx) A_1^T: <||W_1 A_2||^2>/Ny (the surrogate's "
             "1/Nx terms, not the exact ones: the size uses the exact 1/Nx coefficient)", value),
        Step("leading order in Ns/Nx", power),
        Step("power + Delta eps_TF at rho_b = 0 (0: the power is the transfer's rho_b-free "
             "part)", against),
        Step("large: the power at rho_a = 1 minus the target's power <||B_2||^2>/Ny",
             sp.simplify(power.subs(rho_a, 1) - target)),
        Step("d/drho_b of the power", slope)), exact=False,
        note=f"the output on task 2's inputs has power {inline_math(power)}: it grows with rho_a, "
             "reaches the target's power 1 at rho_a = 1 and does not depend on rho_b")


def _derive_sign_at_high_rho_a() -> Derivation:
    R1 = sp.factor(leading_vanilla_retention().subs(rho_a, 1))
    values = sp.Tuple(R1.subs(rho_b, 0), R1.subs(rho_b, 1))
    return Derivation(sp.true if values[0] < 0 < values[1] else sp.false, (
        Step("Delta eps_RT at rho_a = 1", R1), Step("at rho_b = 0 and 1", values)),
        exact=False, note="negative for rho_b < 1/2, positive above")


def _derive_extrema() -> Derivation:
    R = leading_vanilla_retention()
    slope = sp.factor(sp.diff(R, rho_a))
    quadratic = sp.cancel(slope / (-2 * rho_a))  # dR/drho_a = -2 rho_a q(rho_a)
    threshold = sp.solve(sp.discriminant(quadratic, rho_a), rho_b)
    threshold = [t for t in threshold if t.is_positive][0]  # real roots for rho_b >= this
    found = []
    for b in (sp.Rational(9, 10), sp.Rational(19, 20), sp.Integer(1)):
        roots = [r for r in sp.Poly(slope.subs(rho_b, b), rho_a).real_roots() if 0 < r < 1]
        found.append(sp.Tuple(b, *[sp.N(r, 6) for r in roots]))
    holds = sp.Rational(9, 10) <= threshold <= 1 and len(found[1]) > 1
    return Derivation(sp.true if holds else sp.false, (
        Step("dR/drho_a", slope),
        Step("interior stationary points exist for rho_b >=", threshold),
        Step("(rho_b, its stationary rho_a in (0, 1)) at rho_b = 0.9, 0.95, 1", sp.Tuple(*found)),
    ), exact=False, note=f"the extrema exist only for rho_b >= {inline_math(threshold)} = "
                         f"{float(threshold):.4f} within the panel's 0.9 <= rho_b <= 1")


def _derive_low_rho_a() -> Derivation:
    R = leading_vanilla_retention()
    return Derivation(sp.limit(R, rho_a, 0), (Step("Delta eps_RT", R),), exact=False)


def _interior_stationary_point() -> tuple[sp.Expr, sp.Expr]:
    """The quadratic factor of d Delta eps_RT / d rho_a (leading order) and its smaller root
    in rho_a: the local minimum in (0, 1) where it is real."""
    R = sp.expand(leading_vanilla_retention())
    _, factors = sp.factor_list(sp.diff(R, rho_a))
    quadratic = next(f for f, _ in factors if sp.degree(f, rho_a) == 2)
    smaller = min(sp.solve(quadratic, rho_a), key=lambda r: r.subs(rho_b, 1))
    return quadratic, smaller


@lru_cache(maxsize=1)
def interior_minimum_threshold() -> tuple[sp.Expr, sp.Float]:
    """(rho_b at which a local minimum of the leading-order retention in rho_a appears,
    rho_b above which the minimum over rho_a in [0, 1] is that interior point rather than
    rho_a = 1): line 201's "high readout similarity regime", derived (Fig. 1G, H).

    >>> local, lowest = interior_minimum_threshold()
    >>> local, round(float(lowest), 4)
    (2*sqrt(2)/3, 0.9631)
    """
    R = sp.expand(leading_vanilla_retention())
    quadratic, smaller = _interior_stationary_point()
    local = next(b for b in sp.solve(sp.discriminant(quadratic, rho_a), rho_b) if b > 0)
    gap = R.subs(rho_a, smaller) - R.subs(rho_a, 1)  # interior minimum minus the edge's value
    lowest = sp.Float(sp.nsolve(gap, rho_b, (float(local) + 1e-9, 1.0), solver="bisect"), 12)
    return sp.nsimplify(local), lowest


def _derive_intermediate_minimum() -> Derivation:
    R1 = sp.expand(leading_vanilla_retention().subs(rho_b, 1))
    candidates = [c for c in sp.solve(sp.diff(R1, rho_a), rho_a) if 0 <= c <= 1] + [0, 1]
    argmin = min(candidates, key=lambda c: R1.subs(rho_a, c))
    quadratic, _ = _interior_stationary_point()
    local, lowest = interior_minimum_threshold()
    return Derivation(sp.And(sp.Integer(0) < argmin, argmin < 1),
                      (Step("Delta eps_RT at rho_b = 1", sp.factor(R1)),
                       Step("argmin over [0, 1]", argmin),
                       Step("interior stationary points: roots in rho_a of", quadratic),
                       Step("the lowest rho_b with a local minimum in (0, 1)", local,
                            "where the discriminant vanishes"),
                       Step("the lowest rho_b whose minimum over [0, 1] is interior", lowest,
                            "below it the lowest retention is at rho_a = 1")), exact=False,
                      stronger_condition=f"rho_b > {float(lowest):.3f}",
                      note=f"the high readout similarity regime, derived: the retention is "
                           f"lowest at an intermediate rho_a only for rho_b above "
                           f"{float(lowest):.3f} (a local minimum appears at 2 sqrt2/3 = "
                           f"{float(local):.3f}); below it, as on Fig. 1G's rho_b = 0.9 curve, "
                           "the lowest retention is at rho_a = 1")


def _derive_surrogate_versus_exact() -> Derivation:
    """Next-to-leading coefficient (of Ns/Nx) of the transfer: exact versus surrogate."""
    exact = ratio_expansion(exact_gaussian_transfer().value, 1)[1]
    surrogate = ratio_expansion(transfer(VANILLA, "gaussian").value, 1)[1]
    difference = sp.factor(exact - surrogate)
    return Derivation(difference, (
        Step("exact coefficient of Ns/Nx (Gaussian, no surrogate)", exact),
        Step("coefficient after the surrogate A^+ ~ (Ns/Nx) A^T", surrogate),
        Step("exact minus surrogate", difference)), exact=True,
        note=f"exact {inline_math(sp.factor(exact))}, surrogate {inline_math(sp.factor(surrogate))}: "
             "the surrogate's finite-size term is not the model's")


CLAIMS: list[Claim] = [
    Claim("vanilla.transfer", "Sec. 4, eq_epsilon_vanilla; Appendix B.1 (vanilla model)", _T,
          r"\Delta \epsilon_{TF} = \rho_a (2 \rho_b - \rho_a)",
          lambda: _derive(leading_vanilla_transfer), line=183, headline=True,
          condition="leading order in Ns/Nx (Ns << Nx)",
          restates=((712, r"\rho_a (2 \rho_b - \rho_a)"),)),
    Claim("vanilla.retention", "Sec. 4, eq_epsilon_vanilla; Appendix B.1 (vanilla model)", _R,
          r"\Delta \epsilon_{RT} = 1 - \rho_a^2 (\rho_a^2 - 2\rho_a \rho_b +1)",
          lambda: _derive(leading_vanilla_retention), line=185, headline=True,
          condition="leading order in Ns/Nx (Ns << Nx)",
          restates=((714, r"1 - \rho_a^2 (\rho_a^2 - 2\rho_a \rho_b +1)"),)),
    Claim("vanilla.transfer.exact[gaussian]", "Sec. 4, eq_epsilon_vanilla (finite size)", _T,
          r"the low-rank latent assumption: $N_s \ll N_x$", _derive_exact, line=189,
          headline=True, reading_from="line 183 (eq_epsilon_vanilla's transfer), the form "
          "said to hold", condition="Ns << Nx: the transfer's correction is exactly "
          "-(1 - rho_a^2) Ns/(Nx - Ns - 1) (Gaussian generator)",
          note="read as: eq_epsilon_vanilla's transfer is the limit Ns/Nx -> 0 of the exact "
               "transfer", restates=((709, r"at $N_s \ll N_x$ limit"),)),
    Claim("vanilla.transfer.surrogate_vs_exact_nlo[gaussian]", "Sec. 4 / Appendix B.1: "
          "finite-size terms of the transfer", None,
          r"the low-rank latent assumption: $N_s \ll N_x$", _derive_surrogate_versus_exact,
          note="not printed: how much of the surrogate's O(Ns/Nx) term is real", line=189),
    Claim("vanilla.transfer.corners", "Sec. 4: Delta eps_TF = 0 at (0,0) and 1 at (1,1)",
          sp.Tuple(0, 1), r"As expected, $\Delta \epsilon_{TF} = 0$ when the two tasks are "
          r"independent (i.e., $(\rho_a, \rho_b) = (0,0)$), and $\Delta \epsilon_{TF} = 1$ "
          r"when the tasks are identical", _derive_corners, equivalent=lambda a, b: a == b,
          line=193, headline=True),
    Claim("vanilla.transfer.asymmetry", "Sec. 4: negative transfer at high rho_a, low rho_b; "
          "modest positive transfer at low rho_a, high rho_b", sp.true,
          r"a combination of high feature similarity and low readout similarity leads to "
          r"negative transfer, while the opposite scenario results in a modest positive "
          r"transfer", _derive_transfer_asymmetry, line=193, headline=True,
          condition="leading order in Ns/Nx",
          restates=((191, r"they reveal asymmetric"),
                    (197, r"under a low readout similarity, performance becomes below zero"),
                    (205, r"in an asymmetric"))),
    Claim("vanilla.transfer.argmax_rho_a", "Sec. 4: transfer non-monotonic in rho_a, best at "
          "rho_a = rho_b", rho_b,
          r"under a fixed readout similarity $\rho_b$, the knowledge transfer depends "
          r"non-monotonically on the feature similarity $\rho_a$", _derive_argmax, line=195,
          headline=True, condition="leading order in Ns/Nx",
          reading_from="line 196 (increasing in rho_a below rho_b, decreasing above it)",
          note="read as: the transfer is largest at rho_a = rho_b",
          restates=((196, r"When $\rho_a < \rho_b$, the higher the feature similarity the "
                          r"better transfer becomes"),
                    (207, r"under a fixed readout similarity, the knowledge transfer "
                          r"performance depends on the feature similarity in a non-monotonic "
                          r"manner"),
                    (87, r"transfer performance depends on the feature similarity "
                         r"non-monotonically"),
                    (191, r"non-monotonic impact"),
                    (205, r"non-monotonic manner"))),
    Claim("vanilla.output_power", "Sec. 4: a large output regardless of readout similarity",
          sp.Integer(0), r"resulting in a large output regardless of readout similarity",
          _derive_output_power, line=197, headline=True, condition="leading order in Ns/Nx",
          note="read as: the output power <||W_1 A_2||^2>/Ny does not depend on rho_b"),
    Claim("vanilla.retention.asymmetry", "Sec. 4: retention asymmetric in rho_a, rho_b", sp.true,
          r"The retention performance also exhibits asymmetric dependence on feature and "
          r"readout similarity", _derive_retention_asymmetry, line=199, headline=True),
    Claim("vanilla.retention.low_rho_a", "Sec. 4: low rho_a barely forgets, for any rho_b",
          sp.Integer(1), r"When feature similarity $\rho_a$ is low, the network barely forgets "
          r"the previous task regardless of readout similarity", _derive_low_rho_a, line=200,
          headline=True, note="read as: Delta eps_RT -> 1 as rho_a -> 0, for every rho_b"),
    Claim("vanilla.retention.sign_at_high_rho_a", "Sec. 4: at high rho_a the retention is "
          "positive or negative depending on rho_b", sp.true,
          r"when the feature similarity is high, the retention performance can either be "
          r"positive or negative depending on the readout similarity",
          _derive_sign_at_high_rho_a, line=200, headline=True),
    Claim("vanilla.retention.intermediate_minimum", "Sec. 4: at high rho_b the retention is "
          "lowest at an intermediate rho_a (derived: for rho_b above 0.963)", sp.true,
          r"in the high readout similarity regime, the retention performance is the lowest at "
          r"an intermediate feature similarity", _derive_intermediate_minimum, line=201,
          headline=True, condition="the high readout similarity regime, as Figs. 1G and 1H "
          "show it (0.9 <= rho_b <= 1), at leading order in Ns/Nx", restates=((203, r"this last point on the non-monotonic dependence on "
                                         r"feature similarity under $\rho_b = 1$"),)),
    Claim("vanilla.retention.extrema", "Fig. 1H: the local extrema of the retention in rho_a",
          sp.true, r"the white dashed line in panel \textbf{H} represents local minima/maxima",
          _derive_extrema, line=147, headline=True,
          note="read as: the panel's region 0.9 <= rho_b <= 1 holds local minima/maxima of "
               "the retention in rho_a (solutions of dR/drho_a = 0 in (0, 1)), which the line "
               "marks where they exist; the caption does not say they exist at every rho_b "
               "of the panel"),
    Claim("vanilla.negative_at_high_rho_a_low_rho_b", "Sec. 4: negative transfer and "
          "retention at high rho_a, low (positive) rho_b", sp.true,
          r"a combination of high feature similarity and low readout similarity is "
          r"detrimental to continual learning, resulting in negative transfer and retention "
          r"performance, even in the presence of a positive correlation between the two tasks",
          _derive_negative_corner, line=206, headline=True,
          restates=((60, r"high input feature similarity coupled with low readout similarity "
                         r"is catastrophic for both knowledge transfer and retention"),
                    (86, r"both transfer and retention performance become below the chance "
                         r"level even when the two subsequent tasks are positively "
                         r"correlated"))),
    Claim("vanilla.benign_region", "Sec. 1: low rho_a with high rho_b is benign", sp.true,
          r"a combination of low feature similarity and high readout similarity is relatively "
          r"benign for continual learning, as the retention performance remains high and the "
          r"transfer performance remains non-negative", _derive_benign, line=85,
          headline=True, note="read as: on rho_a <= rho_b the transfer is >= 0 and the "
          "retention stays high (its least value is in the derivation)",
          restates=((61, r"Conversely, the opposite scenario is relatively benign"),)),
]


# -- line 157: negative similarities; line 202: where retention is high ---------------------------

def _box_maximum(expr: sp.Expr, box: tuple[tuple, tuple]) -> tuple[sp.Expr, tuple]:
    """The maximum of a polynomial in (rho_a, rho_b) over a closed box and where it is reached:
    among the corners, the edges' stationary points and the interior's."""
    (a0, a1), (b0, b1) = box
    points = {(a, b) for a in (a0, a1) for b in (b0, b1)}
    for fixed, var, (lo, hi) in ((rho_a, rho_b, (b0, b1)), (rho_b, rho_a, (a0, a1))):
        for value in ((a0, a1) if fixed == rho_a else (b0, b1)):
            for c in sp.solve(sp.diff(expr.subs(fixed, value), var), var):
                if c.is_real and lo <= c <= hi:
                    points.add((value, c) if fixed == rho_a else (c, value))
    for s in sp.solve([sp.diff(expr, rho_a), sp.diff(expr, rho_b)], [rho_a, rho_b], dict=True):
        if a0 <= s.get(rho_a, a0) <= a1 and b0 <= s.get(rho_b, b0) <= b1:
            points.add((s.get(rho_a, a0), s.get(rho_b, b0)))
    best = max(points, key=lambda p: expr.subs({rho_a: p[0], rho_b: p[1]}))
    return expr.subs({rho_a: best[0], rho_b: best[1]}), best


def _derive_negative_similarity() -> Derivation:
    T = leading_vanilla_transfer("gaussian")
    boxes = {"rho_a < 0 <= rho_b": ((-1, 0), (0, 1)), "rho_b < 0 <= rho_a": ((0, 1), (-1, 0)),
             "both negative": ((-1, 0), (-1, 0))}
    steps = [Step("Delta eps_TF, Gaussian generator (the one defined for rho < 0)", T)]
    best = sp.Integer(-1)
    for name, box in boxes.items():
        value, at = _box_maximum(T, box)
        steps.append(Step(f"max over {name}", value, f"at (rho_a, rho_b) = {at}"))
        best = sp.Max(best, value)
    b = sp.Symbol("rho_b", real=True)  # rho_b of the registry is declared in [0, 1]
    positive = sp.solve_univariate_inequality(T.subs(rho_a, -1).subs(rho_b, b) > 0, b,
                                              relational=False).intersect(sp.Interval(-1, 1))
    steps.append(Step("rho_b where the transfer is positive at rho_a = -1", positive,
                      "both negative with rho_b < rho_a / 2: task 2 is task 1 with the latent's "
                      "sign flipped, which the model transfers"))
    return Derivation(best, tuple(steps), exact=False,
                      stronger_condition="exactly one of rho_a, rho_b negative (rho_a rho_b <= "
                                         "0), or both negative with rho_b >= rho_a / 2")


def _derive_high_retention_ends() -> Derivation:
    R = leading_vanilla_retention()
    low, same = sp.limit(R, rho_a, 0), R.subs({rho_a: 1, rho_b: 1})
    return Derivation(sp.Tuple(low, same), (
        Step("Delta eps_RT", R), Step("at rho_a -> 0 (no interference), any rho_b", low),
        Step("at rho_a = rho_b = 1 (identical tasks)", same)), exact=False)


CLAIMS += [
    Claim("vanilla.transfer.negative_similarity", "Sec. 3: negative similarities (reversal "
          "learning)", sp.Integer(0),
          r"This is because when either $\rho_a$ or $\rho_b$ is negative (i.e., in a reversal "
          r"learning setting), the network fails to achieve knowledge transfer rather trivially",
          _derive_negative_similarity, line=157, headline=True,
          condition="leading order in Ns/Nx",
          observable="Delta eps_TF",
          note="read as: the largest Delta eps_TF over -1 <= rho_a, rho_b <= 1 with rho_a < 0 "
               "or rho_b < 0 is at most 0 (the printed claim: no transfer). It is 1, at "
               "rho_a = rho_b = -1: with both similarities negative and rho_b < rho_a / 2 the "
               "transfer is positive"),
    Claim("vanilla.retention.high_at_ends", "Sec. 4: retention is high at low interference or "
          "high similarity", sp.Tuple(1, 1),
          r"This is because high retention is possible when either interference is low, or "
          r"similarity between two tasks is high", _derive_high_retention_ends,
          equivalent=lambda a, b: a == b, line=202, headline=True,
          condition="leading order in Ns/Nx",
          note="read as: Delta eps_RT -> 1 as rho_a -> 0 (the features of the two tasks do not "
               "overlap) and Delta eps_RT = 1 at rho_a = rho_b = 1; between them, at rho_b = 1, "
               "it dips (vanilla.retention.intermediate_minimum)"),
    Claim("vanilla.retention.matches_evron2024", "Sec. 4: the retention at rho_b = 1 against "
          "prior work", None,
          r"Indeed, at $\rho_b=1$, $\Delta \epsilon_{RT}$ in Eq. \ref{eq_epsilon_vanilla} "
          r"coincides with Eq. (5) in \citep{evron2024joint}", None, line=203, headline=True,
          note="compares eq_epsilon_vanilla's retention at rho_b = 1 (derived: 1 - rho_a^2 "
               "(1 - rho_a)^2, vanilla.retention) with a formula of Evron et al. (2024), which "
               "the toolkit does not hold: typing it in would not be a derivation",
          decide="Evron et al. (2024) Eq. (5) written in this model's variables (their "
                 "forgetting of two tasks with principal angles set by rho_a at the paper's "
                 "Ns << Nx) and compared with 1 - rho_a^2 (1 - rho_a)^2"),
]
