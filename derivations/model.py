"""Statements about the model itself (Sec. 3; Appendix A; Appendix B.1 eq_ap_epsilonW): the
error as a Frobenius norm, the baseline error, perfect learning of a task, and the task
generator at rho_a = 1.

Examples
--------
>>> error_identity(ny=2, nx=3, ns=2)
True
>>> baseline_error("appendix")
1
"""
from __future__ import annotations

import sympy as sp

from .claims import Claim, Derivation, Step
from .engine import expect_trace
from .matrix_words import task
from .symbols import rho_a
from .two_task import TwoTaskModel, expected_error

__all__ = ["error_identity", "baseline_error", "feature_difference", "learned_task_error",
           "CLAIMS"]


def _latent_average(expr: sp.Expr, latent: list[sp.Symbol]) -> sp.Expr:
    """E over s ~ N(0, I) of a polynomial of degree <= 2 in s (E s_m s_n = delta_mn)."""
    total = sp.Integer(0)
    for exponents, coeff in sp.Poly(sp.expand(expr), *latent).terms():
        if sum(exponents) == 0 or (sum(exponents) == 2 and max(exponents) == 2):
            total += coeff
        elif sum(exponents) > 2:
            raise ValueError("only polynomials of degree <= 2 in s are supported")
    return total


def error_identity(ny: int = 2, nx: int = 3, ns: int = 2) -> bool:
    """<||B s - W D A s||^2>_s = ||B - W D A||_F^2 (eq_ap_epsilonW), with explicit symbolic
    matrices of the given sizes and a diagonal D.

    >>> error_identity(1, 2, 3)
    True
    """
    B = sp.Matrix(ny, ns, lambda i, j: sp.Symbol(f"b{i}{j}"))
    W = sp.Matrix(ny, nx, lambda i, j: sp.Symbol(f"w{i}{j}"))
    A = sp.Matrix(nx, ns, lambda i, j: sp.Symbol(f"a{i}{j}"))
    D = sp.diag(*[sp.Symbol(f"g{i}") for i in range(nx)])
    s = [sp.Symbol(f"s{j}") for j in range(ns)]
    residual = (B - W * D * A) * sp.Matrix(s)
    averaged = _latent_average((residual.T * residual)[0, 0], s)
    frobenius = sum(x**2 for x in (B - W * D * A))
    return sp.expand(averaged - frobenius) == 0


def baseline_error(generator: str = "appendix") -> sp.Expr:
    """<eps_mu[W_o]>_{A,B} at W_o = 0: (1/Ny) <||B_mu||_F^2>, exact at any size.

    >>> baseline_error("gaussian")
    1
    """
    return sp.simplify(expected_error(TwoTaskModel(gated=False), 1, 0, generator).value)


def feature_difference(generator: str = "appendix") -> sp.Expr:
    """<||A_2 - A_1||_F^2>, exact (0 at rho_a = 1 means A_2 = A_1 almost surely).

    >>> feature_difference("appendix")
    -2*N_x*rho_a + 2*N_x
    """
    X = task(2) - task(1)
    return sp.expand(expect_trace(X.T @ X, generator))


def learned_task_error() -> sp.Expr:
    """<eps_1[W_1]> of the vanilla model after the exact identity A_1^+ A_1 = I_s.

    >>> learned_task_error()
    0
    """
    return sp.simplify(expected_error(TwoTaskModel(gated=False), 1, 1, "appendix").value)


# -- claims -------------------------------------------------------------------------------

def _derive_error_identity() -> Derivation:
    holds = all(error_identity(*n) for n in ((2, 3, 2), (1, 4, 3), (3, 2, 2)))
    return Derivation(sp.true if holds else sp.false, (
        Step("E_s ||(B - W D A) s||^2 with E[s s^T] = I, expanded for sizes (Ny, Nx, Ns) = "
             "(2,3,2), (1,4,3), (3,2,2)", sp.true if holds else sp.false),))


def _derive_baseline() -> Derivation:
    values = sp.Tuple(baseline_error("appendix"), baseline_error("gaussian"))
    return Derivation(values[0], (Step("(1/Ny) <||B_1||^2> (appendix, gaussian generators)",
                                       values),),
                      note="exact at any Nx, Ns, alpha: the condition alpha Nx >> Ns is not "
                           "needed")


def _derive_identical() -> Derivation:
    values = sp.Tuple(*[feature_difference(g).subs(rho_a, 1) for g in ("appendix",
                                                                       "gaussian")])
    return Derivation(values[0], (
        Step("<||A_2 - A_1||_F^2> (appendix generator)", feature_difference("appendix")),
        Step("at rho_a = 1 (appendix, gaussian)", values)),
        note="a zero mean square: A_2 = A_1 almost surely, for both generators")


def _derive_learned() -> Derivation:
    model = TwoTaskModel(gated=False)
    residual = model.apply_identities(model.residual(1, 1))
    value = learned_task_error()
    return Derivation(value, (
        Step("residual B_1 - W_1 A_1 with W_1 = B_1 A_1^+", model.residual(1, 1).to_sympy()),
        Step("exact identity A_1^+ A_1 = I_s", residual.to_sympy()),
        Step("<eps_1[W_1]>", value)),
        note="exact for A_1 of full column rank; with Euclidean regularization the learned "
             "error is (1 - gamma)^2 at leading order (euclidean.impairs_acquisition)")


CLAIMS: list[Claim] = [
    Claim("model.error_identity", "Appendix B.1, eq_ap_epsilonW", sp.true,
          r"\frac{1}{N_y} \lla \llv B_{\mu} \vs - W [\vg_{\mu} \odot (A_{\mu} \vs)] \rrv^2 "
          r"\rra_{\vs} = \frac{1}{N_y} \llv B_{\mu} - W D_{\mu} A_{\mu} \rrv_F^2",
          _derive_error_identity, line=462, headline=True,
          condition="exact; s ~ N(0, I_s)"),
    Claim("model.baseline_error", "Appendix B.1: the baseline error", sp.Integer(1),
          r"At $\alpha N_x \gg N_s$ regime, $\lla \epsilon_1 [W_o] \rra_{A,B} = 1$",
          _derive_baseline, line=631, headline=True, condition="exact at any size"),
    Claim("model.learns_task_exactly", "Appendix A: the network learns a task perfectly "
          "without strong regularization", sp.Integer(0),
          r"the network is able to learn the task perfectly unless strong regularization is "
          r"added to the network", _derive_learned, line=444, headline=True,
          condition="A_mu of full column rank (Nx >= Ns); exact"),
    Claim("model.identical_features_at_rho_a_one", "Appendix C.2.2: rho_a = 1",
          sp.Integer(0), r"When $\rho_a = 1$, $A_{\mu-1} = A_{\mu} = A$", _derive_identical,
          line=1229, headline=True, condition="exact, both generators"),
]
"""Readings: eq_ap_epsilonW's second equality; ``<eps_1[W_o]> = 1``; ``eps_1[W_1] = 0``;
``<||A_2 - A_1||^2> = 0`` at rho_a = 1."""
