"""Very tall random matrices: Appendix D (sec_appendix_tall), with the engine.

A is Nx x Ns with N(0, 1/Ns) entries (a single matrix, so both generators agree); D is a
Bernoulli(alpha) gate. Derived exactly at finite Nx, Ns:

- <(1/Nx) A^T A> = I/Ns, element-wise variance (1 + delta_ij)/(Nx Ns^2), and
  <||(1/Nx) A^T A - I/Ns||_F^2> = (1/Nx)(1 + 1/Ns) (eq_AtA_approx);
- the gated versions, <(1/(alpha Nx)) (DA)^T DA> = I/Ns (eq_ap_DAtDA_approx) and its exact
  fluctuation;
- the size of the surrogates: (1/Ns) <||U U^T - Ns/(alpha Nx) D A A^T D||_F^2> (eq_UUt_approx)
  by the engine, and the relative error of (DA)^+ ~ Ns/n (DA)^T (eq_DA+_approx) with n active
  units, (Ns + 1)/n, from the inverse-Wishart mean (Gaussian entries).

>>> sp.factor(concentration())
(N_s + 1)/(N_s*N_x)
"""
from __future__ import annotations

import sympy as sp

from .claims import Claim, Derivation, Step
from .engine import expect_index_sum, expect_trace
from .matrix_words import eye, gate, task
from .symbols import Ns, Nx, alpha
from .vanilla import inverse_wishart_trace

__all__ = [
    "d_ij",
    "gram_mean",
    "gram_element_variance",
    "concentration",
    "gated_concentration",
    "projector_surrogate_error",
    "pinv_surrogate_relative_error",
    "CLAIMS",
]

d_ij = sp.Symbol("delta_ij", nonnegative=True, integer=True)
_SPACES = {"i": "s", "j": "s", "k": "x", "l": "x"}


def _by_pattern(value_of) -> sp.Expr:
    """delta_ij * value(i = j) + (1 - delta_ij) * value(i != j)."""
    return sp.expand(d_ij * value_of("i") + (1 - d_ij) * value_of("j"))


def gram_mean(gated: bool = False) -> sp.Expr:
    """<[(1/(alpha Nx)) (DA)^T DA]_ij> (alpha = 1 and no gate if not ``gated``).

    >>> gram_mean(gated=True)
    delta_ij/N_s
    """
    scale = alpha * Nx if gated else Nx

    def value(j: str) -> sp.Expr:
        entries = [("A", 1, "k", "i"), ("A", 1, "k", j)]
        gates = [(1, "k")] if gated else []
        return expect_index_sum(entries, _SPACES, summed=["k"], gates=gates) / scale

    return _by_pattern(value)


def gram_element_variance() -> sp.Expr:
    """<([(1/Nx) A^T A - I/Ns]_ij)^2>, exact.

    >>> gram_element_variance()
    (delta_ij + 1)/(N_s**2*N_x)
    """

    def value(j: str) -> sp.Expr:
        square = [("A", 1, "k", "i"), ("A", 1, "k", j), ("A", 1, "l", "i"), ("A", 1, "l", j)]
        second = expect_index_sum(square, _SPACES, summed=["k", "l"]) / Nx**2
        first = expect_index_sum(square[:2], _SPACES, summed=["k"]) / Nx
        identity = 1 if j == "i" else 0
        return second - 2 * identity * first / Ns + identity / Ns**2

    return sp.factor(_by_pattern(value))


def concentration() -> sp.Expr:
    """<||(1/Nx) A^T A - I/Ns||_F^2>, exact.

    >>> sp.factor(concentration())
    (N_s + 1)/(N_s*N_x)
    """
    X = task(1).T @ task(1) / Nx - eye("s") / Ns
    return expect_trace(X @ X.T)


def gated_concentration() -> sp.Expr:
    """<||(1/(alpha Nx)) (DA)^T DA - I/Ns||_F^2>, exact (gate fluctuations included).

    >>> sp.factor(gated_concentration())
    (N_s - alpha + 2)/(N_s*N_x*alpha)
    """
    DA = gate(1) @ task(1)
    X = DA.T @ DA / (alpha * Nx) - eye("s") / Ns
    return expect_trace(X @ X.T)


def projector_surrogate_error() -> sp.Expr:
    """(1/Ns) <||U U^T - c D A A^T D||_F^2>, c = Ns/(alpha Nx), exact.

    With DA = U Sigma V^T (rank Ns), U U^T - c DAA^TD = U (I - c Sigma^2) U^T, whose squared
    norm is tr (I - c Sigma^2)^2 = tr (I - c (DA)^T DA)^2: a trace the engine computes.

    >>> sp.factor(projector_surrogate_error())
    (N_s - alpha + 2)/(N_x*alpha)
    """
    DA = gate(1) @ task(1)
    X = eye("s") - (Ns / (alpha * Nx)) * (DA.T @ DA)
    return expect_trace(X @ X) / Ns


def pinv_surrogate_relative_error() -> sp.Expr:
    """<||(DA)^+ - (Ns/n) (DA)^T||^2> / <||(DA)^+||^2> for n active units, Gaussian entries,
    written with n = alpha Nx.

    (DA)^+ = G^{-1} (DA)^T with G = (DA)^T DA ~ Wishart_Ns(n, I/Ns), so the numerator is
    tr G^{-1} - 2 c Ns + c^2 tr G (c = Ns/n) and the denominator tr G^{-1};
    <tr G> = n (engine), <tr G^{-1}> = Ns^2/(n - Ns - 1) (inverse Wishart).

    >>> pinv_surrogate_relative_error()
    (N_s + 1)/(N_x*alpha)
    """
    n = sp.Symbol("n", positive=True, integer=True)
    c = Ns / n
    trace_G = expect_trace(task(1).T @ task(1)).subs(Nx, n)
    trace_G_inverse = inverse_wishart_trace().subs(Nx, n)
    relative = (trace_G_inverse - 2 * c * Ns + c**2 * trace_G) / trace_G_inverse
    return sp.factor(sp.simplify(relative)).subs(n, alpha * Nx)


def _claim(cid: str, where: str, printed: sp.Expr, latex: str, fn, step: str, line: int,
           note: str = "", headline: bool = True, condition: str = "exact",
           restates: tuple[tuple[int, str], ...] = ()) -> Claim:
    def derive() -> Derivation:
        value = fn()
        return Derivation(value, (Step(step, value),), exact=True, note=note)

    return Claim(cid, where, printed, latex, derive, line=line, headline=headline,
                 condition=condition, restates=restates)


CLAIMS: list[Claim] = [
    _claim("tall.gram_mean", "Appendix D: <(1/Nx) A^T A> = I/Ns", d_ij / Ns,
           r"$\lla \frac{1}{N_x} A^T A \rra_{A} = \tfrac{1}{N_s} I_s$", gram_mean,
           "index sum over k", 1279),
    _claim("tall.gram_element_variance", "Appendix D: element-wise deviation",
           (1 + d_ij) / (Nx * Ns**2), r"= \frac{1 + \delta_{ij}}{N_x N_s^2}",
           gram_element_variance, "index sums over k, l", 1282),
    _claim("tall.concentration", "Appendix D: <||(1/Nx) A^T A - I/Ns||_F^2>",
           (1 + 1 / Ns) / Nx, r"$\lla \llv \tfrac{1}{N_x} A^T A - \tfrac{1}{N_s} I_s \rrv_F^2 "
           r"\rra_A = \tfrac{1}{N_x} \left( 1 + \tfrac{1}{N_s} \right)$", concentration,
           "engine trace", 1284),
    _claim("tall.gram_surrogate", "Appendix D, eq_AtA_approx", sp.Integer(0),
           r"\tfrac{1}{N_x} A^T A \approx \tfrac{1}{N_s} I_s",
           lambda: sp.factor(concentration() * Ns), "relative squared error Ns <||(1/Nx) A^T A "
           "- I/Ns||_F^2>", 1287, condition="Nx >> Ns: the relative squared error is "
           "(Ns + 1)/Nx", note="read as: the relative squared error of the surrogate vanishes",
           restates=((1285, r"at $N_x \gg N_s$ limit, $\tfrac{1}{N_x} A^T A$ approximately "
                            r"follows"),
                     (946, r"we further applied $A^T A \approx \tfrac{N_x}{N_s} I_s$"),
                     (930, r"we used $A^T A \approx \tfrac{N_x}{N_s} I_s$"),
                     (1276, r"is very tall (i.e., $N_x \gg N_s$)"),
                     (424, r"$N_s \ll N_x$"))),
    _claim("tall.gated_gram_mean", "Appendix D, eq_ap_DAtDA_approx", d_ij / Ns,
           r"\tfrac{1}{\alpha N_x} (DA)^T DA \approx \tfrac{1}{N_s} I_s",
           lambda: gram_mean(gated=True), "index sum over k with the gate", 1293,
           headline=False, note="a step: the mean of the gated Gram matrix"),
    _claim("tall.gated_concentration", "Appendix D, eq_ap_DAtDA_approx (fluctuation)",
           sp.Integer(0), r"\tfrac{1}{\alpha N_x} (DA)^T DA \approx \tfrac{1}{N_s} I_s",
           gated_concentration, "engine trace", 1293,
           note="read as: the squared deviation from I/Ns vanishes; the exact value is the "
                "correction", condition="alpha Nx >> Ns",
           restates=((1290, r"similar approximations hold"),
                     (1304, r"the eigenspectrum of matrix $\tfrac{1}{\alpha N_x} DA (DA)^T$ is "
                            r"concentrated at $\lambda = \tfrac{1}{N_s}$"))),
    _claim("tall.projector_surrogate", "Appendix D, eq_UUt_approx", sp.Integer(0),
           r"U U^T \approx \tfrac{N_s}{ \alpha N_x} D A A^T D", projector_surrogate_error,
           "(1/Ns) E tr (I - c (DA)^T DA)^2", 1302,
           note="read as: the relative squared error of the surrogate vanishes",
           condition="alpha Nx >> Ns",
           restates=((655, r"$U_2 U_2^T$ is approximated by"),
                     (1300, r"at $\alpha N_x \gg N_s$ limit, we have"))),
    _claim("tall.pinv_surrogate", "Appendix D, eq_DA+_approx", sp.Integer(0),
           r"(DA)^+ \approx \tfrac{N_s}{\alpha N_x} (DA)^T", pinv_surrogate_relative_error,
           "inverse-Wishart mean", 1297, note="read as: the relative squared error vanishes; "
           "computed for exactly n = alpha Nx active units, Gaussian entries",
           condition="alpha Nx >> Ns",
           restates=((540, r"it can be approximated by a scaled transpose, $\frac{N_s}{\alpha "
                           r"N_x} (D A)^T$"),
                     (659, r"$(DA)^+ \approx \frac{N_s}{\alpha N_x} (D A)^T$"))),
]
