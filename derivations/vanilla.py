"""The vanilla model: Sec. 3 (eq_gd_fp_vanilla, eq_epsilon_vanilla) and the vanilla paragraph of
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

from .claims import Claim, Derivation, Step
from .engine import ratio_expansion
from .matrix_words import MatrixExpr, eye, opaque, task
from .symbols import Ns, Nx, rho_a, rho_b
from .two_task import ErrorDerivation, TwoTaskModel, readout_average, retention, transfer

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
    steps.append(Step("Gaussian generator: A_2 = rho_a A_1 + sqrt(1-rho_a^2) Z", R.to_sympy()))
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
    return Derivation(critical[0], (Step("dT/drho_a = 0", critical[0]),
                                    Step("d2T/drho_a2", curvature, "negative: a maximum")),
                      exact=False, note="increasing for rho_a < rho_b, decreasing beyond")


def _derive_negative_corner() -> Derivation:
    T, R = leading_vanilla_transfer(), leading_vanilla_retention()
    point = {rho_a: 1, rho_b: 0}
    values = (T.subs(point), R.subs(point))
    return Derivation(sp.And(values[0] < 0, values[1] < 0),
                      (Step("(Delta eps_TF, Delta eps_RT) at (1, 0)", sp.Tuple(*values)),),
                      exact=False)


def _derive_low_rho_a() -> Derivation:
    R = leading_vanilla_retention()
    return Derivation(sp.limit(R, rho_a, 0), (Step("Delta eps_RT", R),), exact=False)


def _derive_intermediate_minimum() -> Derivation:
    R1 = sp.expand(leading_vanilla_retention().subs(rho_b, 1))
    candidates = [c for c in sp.solve(sp.diff(R1, rho_a), rho_a) if 0 <= c <= 1] + [0, 1]
    argmin = min(candidates, key=lambda c: R1.subs(rho_a, c))
    return Derivation(sp.And(sp.Integer(0) < argmin, argmin < 1),
                      (Step("Delta eps_RT at rho_b = 1", sp.factor(R1)),
                       Step("argmin over [0, 1]", argmin)), exact=False)


def _derive_surrogate_versus_exact() -> Derivation:
    """Next-to-leading coefficient (of Ns/Nx) of the transfer: exact versus surrogate."""
    exact = ratio_expansion(exact_gaussian_transfer().value, 1)[1]
    surrogate = ratio_expansion(transfer(VANILLA, "gaussian").value, 1)[1]
    difference = sp.factor(exact - surrogate)
    return Derivation(difference, (
        Step("exact coefficient of Ns/Nx (Gaussian, no surrogate)", exact),
        Step("coefficient after the surrogate A^+ ~ (Ns/Nx) A^T", surrogate),
        Step("exact minus surrogate", difference)), exact=True,
        note=f"exact {sp.sstr(sp.factor(exact))}, surrogate {sp.sstr(sp.factor(surrogate))}: "
             "the surrogate's finite-size term is not the model's")


CLAIMS: list[Claim] = [
    Claim("vanilla.transfer", "Sec. 3, eq_epsilon_vanilla; Appendix B.1 (vanilla model)", _T,
          r"\rho_a (2 \rho_b - \rho_a)", lambda: _derive(leading_vanilla_transfer)),
    Claim("vanilla.retention", "Sec. 3, eq_epsilon_vanilla; Appendix B.1 (vanilla model)", _R,
          r"1 - \rho_a^2 (\rho_a^2 - 2\rho_a \rho_b + 1)",
          lambda: _derive(leading_vanilla_retention)),
    Claim("vanilla.transfer.exact[gaussian]", "Sec. 3, eq_epsilon_vanilla (finite size)", _T,
          r"\rho_a (2 \rho_b - \rho_a)", _derive_exact),
    Claim("vanilla.transfer.surrogate_vs_exact_nlo[gaussian]", "Sec. 3 / Appendix B.1: "
          "finite-size terms of the transfer", None, "(not printed)",
          _derive_surrogate_versus_exact, note="not printed: how much of the surrogate's "
          "O(Ns/Nx) term is real"),
    Claim("vanilla.transfer.corners", "Sec. 3: Delta eps_TF = 0 at (0,0) and 1 at (1,1)",
          sp.Tuple(0, 1), r"\Delta\epsilon_{TF}(0,0) = 0,\ \Delta\epsilon_{TF}(1,1) = 1",
          _derive_corners, equivalent=lambda a, b: a == b),
    Claim("vanilla.transfer.argmax_rho_a", "Sec. 3: transfer non-monotonic in rho_a, best at "
          "rho_a = rho_b", rho_b, r"\arg\max_{\rho_a} \Delta\epsilon_{TF} = \rho_b",
          _derive_argmax),
    Claim("vanilla.negative_at_high_rho_a_low_rho_b", "Sec. 3: negative transfer and "
          "retention at (rho_a, rho_b) = (1, 0)", sp.true,
          r"\Delta\epsilon_{TF}(1,0) < 0,\ \Delta\epsilon_{RT}(1,0) < 0",
          _derive_negative_corner),
    Claim("vanilla.retention.low_rho_a", "Sec. 3: low rho_a barely forgets, for any rho_b",
          sp.Integer(1), r"\Delta\epsilon_{RT} \to 1\ (\rho_a \to 0)", _derive_low_rho_a),
    Claim("vanilla.retention.intermediate_minimum", "Sec. 3: at high rho_b the retention is "
          "lowest at an intermediate rho_a (checked at rho_b = 1)", sp.true,
          r"\arg\min_{\rho_a} \Delta\epsilon_{RT}|_{\rho_b = 1} \in (0, 1)",
          _derive_intermediate_minimum),
]
