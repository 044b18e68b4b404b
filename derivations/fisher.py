"""Weight regularization in the Fisher-information metric (Sec. 6.2, eq_main_fim_weight;
Appendix subsec_appendix_FIM, eq_ap_defQ_wr_fim; Fig. 5).

The loss of task mu is

    l_mu = (1/2) ||B_mu - W A_mu||_F^2 + (lam/2) ||(W - W_{mu-1}) A_{mu-1}||_F^2,

the regularizer being the quadratic form of the Fisher information of the previous task.

What is derived here, and how
-----------------------------
1. The Fisher information of the Gaussian likelihood p ~ exp(-||W x - y||^2 / (2 sigma^2)) is
   differentiated twice with explicit symbolic matrices and averaged over s; its quadratic form
   is checked to be ||(W - W_o) A||_F^2 (:func:`fisher_information`).
2. rho_a < 1: the gradient is computed from the loss; every word ends in A_{mu-1}^T or
   A_mu^T (the span argument, W = W_{mu-1} + Q [A_{mu-1}, A_mu]^T); full column rank of
   [A_{mu-1}, A_mu] turns it into the block system Q M = [0, B_mu - W_{mu-1} A_mu]
   (eq_ap_defQ_wr_fim), read off the words (:func:`block_system`). The same system is exactly
   {W A_mu = B_mu, (W - W_{mu-1}) A_{mu-1} = 0}: the fixed point does not depend on lam at
   any finite Nx, Ns, and a task learned exactly is never forgotten.
3. The surrogate (every Gram block -> its mean, eq_AtA_approx) makes M a 2 x 2 matrix of
   scalars; its inverse gives eq_main_fim_weight; errors are averaged with the surrogate
   (leading order) or exactly at finite N by the engine, as in :mod:`tasksim.derivations.euclidean`.
4. rho_a = 1: the fixed point is derived with the SVD A = U Lam V^T as opaque letters and the
   exact identities U^T U = V^T V = V V^T = Lam Lam^{-1} = I_s (:func:`fixed_point_rho1`).

Examples
--------
>>> from tasksim.derivations.symbols import gamma_f, rho_b
>>> sp.factor(transfer_rho1())
-gamma_f*(gamma_f - 2*rho_b)
>>> sp.factor(retention_rho1().subs(gamma_f, 1))      # lam = 0: vanilla at rho_a = 1
2*rho_b - 1

References
----------
paper.tex: eq_main_fim_weight, eq_ap_defQ_wr_fim, eq_AtA_approx, eq_epsilon_vanilla,
subsec_appendix_FIM; Kirkpatrick et al. (2017) for the Fisher penalty.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Callable

import sympy as sp

from .arguments import positive_size
from .claims import Claim, Derivation, Step, annotate
from .engine import expect_frobenius2, expect_trace, ratio_expansion
from .latex import inline_math
from .span_algebra import (SVD_LAMBDA, SVD_LAMBDA_INV, SVD_U, SVD_V, by_powers_of_nx,
                           expected_error, frobenius2, gram_mean, gram_surrogate, matrix_gradient,
                           reduce_svd, same_matrix_expression, solve_in_svd_span,
                           solve_right_linear, split_by_last_letter, substitute_scalar, to_words)
from .matrix_words import MatrixExpr, eye, opaque, readout, task
from .symbols import Ns, Nx, Ny, gamma_f, lam, rho_a, rho_b

__all__ = [
    "sigma",
    "fisher_information",
    "regularizer_is_metric_norm",
    "gradient_words",
    "block_system",
    "exact_conditions",
    "surrogate_block_inverse",
    "surrogate_step",
    "weights",
    "transfer",
    "retention",
    "retention_split",
    "retention_piece",
    "retention_first_order",
    "exact_retention",
    "fixed_point_rho1",
    "weights_rho1",
    "transfer_rho1",
    "retention_rho1",
    "GAMMA_F",
    "CLAIMS",
]

sigma = sp.Symbol("sigma", positive=True)
"""The output-noise standard deviation of the inference model y = W x + sigma xi."""

GAMMA_F = 1 / (1 + lam)
"""gamma_f = 1/(1 + lam), the appendix's name at rho_a = 1."""


# -- 1. the Fisher information and its quadratic form ---------------------------------------

def _gaussian_average(expr: sp.Expr, latent: list[sp.Symbol]) -> sp.Expr:
    """E over s ~ N(0, I) of a polynomial of degree <= 2 in s (E s_m s_n = delta_mn)."""
    poly = sp.Poly(sp.expand(expr), *latent)
    total = sp.Integer(0)
    for exponents, coeff in poly.terms():
        degree = sum(exponents)
        if degree == 0:
            total += coeff
        elif degree == 2 and max(exponents) == 2:
            total += coeff
        elif degree > 2:
            raise ValueError("only polynomials of degree <= 2 in s are supported")
    return total


def fisher_information(ny: int = 2, nx: int = 3, ns: int = 2) -> sp.Expr:
    """The prefactor c of the Fisher information E_s[d^2(-log p)/dw_ij dw_kl] = c delta_ik
    (A A^T)_jl, computed with explicit symbolic matrices of the given sizes.

    -log p = ||W x - y||^2 / (2 sigma^2) + const, x = A s, s ~ N(0, I_s). Raises ValueError
    if the Hessian does not have the form c delta_ik (A A^T)_jl for a single constant c.

    >>> fisher_information()
    sigma**(-2)
    """
    ny, nx, ns = (positive_size(n, v) for n, v in (("ny", ny), ("nx", nx), ("ns", ns)))
    W = sp.Matrix(ny, nx, lambda i, j: sp.Symbol(f"w_{i}{j}"))
    A = sp.Matrix(nx, ns, lambda j, n: sp.Symbol(f"a_{j}{n}"))
    y = sp.Matrix(ny, 1, lambda i, _: sp.Symbol(f"y_{i}"))
    s = [sp.Symbol(f"s_{n}") for n in range(ns)]
    x = A * sp.Matrix(s)
    residual = W * x - y
    nll = (residual.T * residual)[0, 0] / (2 * sigma**2)
    AAt = A * A.T
    ratios = set()
    for i, j, k, l in itertools.product(range(ny), range(nx), range(ny), range(nx)):
        hessian = _gaussian_average(sp.diff(nll, W[i, j], W[k, l]), s)
        if i != k:
            if sp.expand(hessian) != 0:
                raise ValueError(f"Hessian entry ({i}{j},{k}{l}) should vanish, got {hessian}")
            continue
        ratios.add(sp.simplify(hessian / AAt[j, l]))
    if len(ratios) != 1:
        raise ValueError(f"the Hessian is not c delta_ik (A A^T)_jl: ratios {ratios}")
    return ratios.pop()


def regularizer_is_metric_norm(ny: int = 2, nx: int = 3, ns: int = 2) -> bool:
    """sum_{ijkl} delta_ik (A A^T)_jl dw_ij dw_kl == ||dW A||_F^2 for explicit symbolic
    matrices of the given sizes (the appendix's regularizer).

    >>> regularizer_is_metric_norm(), regularizer_is_metric_norm(3, 4, 1)
    (True, True)
    """
    ny, nx, ns = (positive_size(n, v) for n, v in (("ny", ny), ("nx", nx), ("ns", ns)))
    dW = sp.Matrix(ny, nx, lambda i, j: sp.Symbol(f"d_{i}{j}"))
    A = sp.Matrix(nx, ns, lambda j, n: sp.Symbol(f"a_{j}{n}"))
    AAt = A * A.T
    quadratic = sum(AAt[j, l] * dW[i, j] * dW[i, l]
                    for i in range(ny) for j in range(nx) for l in range(nx))
    norm2 = sum(v**2 for v in dW * A)
    return sp.expand(quadratic - norm2) == 0


# -- 2. the span argument and the block system (rho_a < 1) ---------------------------------

_W = sp.MatrixSymbol("W", Ny, Nx)
_W0 = sp.MatrixSymbol("W_{mu-1}", Ny, Nx)
_Aprev = sp.MatrixSymbol("A_{mu-1}", Nx, Ns)
_A = sp.MatrixSymbol("A_mu", Nx, Ns)
_B = sp.MatrixSymbol("B_mu", Ny, Ns)

# words: A_{mu-1} -> task 1, A_mu -> task 2 (correlation rho_a); B_mu and W_{mu-1} opaque
W_PREV = opaque("W_{mu-1}", "y", "x")
B_MU = opaque("B_mu", "y", "s")
W_OPAQUE = opaque("W", "y", "x")
Q0 = opaque("Q_0", "y", "s")
Q1 = opaque("Q_1", "y", "s")


def _loss() -> sp.Expr:
    return frobenius2(_B - _W * _A) / 2 + lam / 2 * frobenius2((_W - _W0) * _Aprev)


@lru_cache(maxsize=None)
def gradient_words(substitute_span: bool = True) -> MatrixExpr:
    """d l_mu / d W (computed from the loss) as words; with ``substitute_span`` the weight is
    W = W_{mu-1} + Q_0 A_{mu-1}^T + Q_1 A_mu^T, else an opaque W.

    >>> split_by_last_letter(gradient_words(False), [task(1).T, task(2).T])
    [(lambda)*W A_1 + (-lambda)*W_{mu-1} A_1, (-1)*B_mu + W A_2]
    """
    gradient = matrix_gradient(_loss(), _W)
    A1, A2 = task(1), task(2)
    W = W_PREV + Q0 @ A1.T + Q1 @ A2.T if substitute_span else W_OPAQUE
    return to_words(gradient, {_W: W, _W0: W_PREV, _Aprev: A1, _A: A2, _B: B_MU})


@lru_cache(maxsize=1)
def block_system() -> tuple[list[list[MatrixExpr]], list[MatrixExpr]]:
    """The system Q M = R of eq_ap_defQ_wr_fim, read off the gradient: ``(M, R)`` with
    ``M[i][c]`` the right coefficient of Q_i in the block that multiplies [A_{mu-1},
    A_mu]^T_c, and ``R[c]`` the free part.

    Every word of the gradient ends in A_{mu-1}^T or A_mu^T, whatever W is (the span
    argument); [A_{mu-1}, A_mu] of full column rank makes both blocks vanish.

    >>> M, R = block_system()
    >>> M[0][0], M[1][0], M[0][1], M[1][1]
    ((lambda)*A_1^T A_1, (lambda)*A_2^T A_1, A_1^T A_2, A_2^T A_2)
    >>> R
    [0[yxs], B_mu + (-1)*W_{mu-1} A_2]
    """
    split_by_last_letter(gradient_words(False), [task(1).T, task(2).T])  # the span argument
    blocks = split_by_last_letter(gradient_words(True), [task(1).T, task(2).T])
    M: list[list[MatrixExpr]] = [[None, None], [None, None]]  # type: ignore[list-item]
    R = []
    for c, block in enumerate(blocks):
        coefficients, free = solve_right_linear(block, [Q0, Q1])
        for i in range(2):
            M[i][c] = coefficients[i]
        R.append(free)
    return M, R


def exact_conditions() -> tuple[MatrixExpr, MatrixExpr]:
    """The two blocks of the stationarity condition with an opaque W: ``(X_0 / lam, X_1)``.

    They are (W - W_{mu-1}) A_{mu-1} and W A_mu - B_mu: free of lam. With [A_{mu-1}, A_mu]
    of full column rank the fixed point solves both, at every finite size (almost surely for
    Gaussian entries when Nx >= 2 Ns; the appendix generator keeps a column of A_{mu-1} whole,
    which breaks the rank, with probability rho_a^Nx per column).

    >>> c0, c1 = exact_conditions()
    >>> c0, c1
    (W A_1 + (-1)*W_{mu-1} A_1, (-1)*B_mu + W A_2)
    """
    X0, X1 = split_by_last_letter(gradient_words(False), [task(1).T, task(2).T])
    return X0 / lam, X1


def _scalar_block(block: MatrixExpr) -> sp.Expr:
    """c for a block equal to c I_s after the Gram surrogate."""
    reduced = gram_surrogate(block)
    if reduced.terms_count() == 0:
        return sp.Integer(0)
    if reduced.terms_count() != 1 or (reduced - next(iter(reduced))[1] * eye("s")).terms_count():
        raise ValueError(f"block {block} is not a multiple of I_s after the surrogate")
    return sp.factor(next(iter(reduced))[1])


@lru_cache(maxsize=1)
def surrogate_block_inverse() -> sp.Matrix:
    """M^{-1} after every Gram block of M is replaced by its mean (eq_AtA_approx).

    >>> sp.simplify(surrogate_block_inverse() * Nx * (1 - rho_a**2) / Ns)
    Matrix([
    [1/lambda, -rho_a/lambda],
    [  -rho_a,             1]])
    """
    M, _ = block_system()
    scalars = sp.Matrix(2, 2, lambda i, c: _scalar_block(M[i][c]))
    return scalars.inv().applyfunc(sp.factor)


@lru_cache(maxsize=1)
def surrogate_step() -> MatrixExpr:
    """W = W_{mu-1} + Q [A_{mu-1}, A_mu]^T with Q = [0, R_1] M^{-1} (surrogate inverse), in
    words of A_{mu-1} = A_1, A_mu = A_2 and the opaque W_{mu-1}, B_mu (eq_main_fim_weight).

    >>> sp.simplify(sp.diff(sum(c for _, c in surrogate_step()), lam))
    0
    """
    _, R = block_system()
    inverse = surrogate_block_inverse()
    if R[0].terms_count():
        raise ValueError("the first block of the right-hand side should vanish")
    Q_0 = inverse[1, 0] * R[1]
    Q_1 = inverse[1, 1] * R[1]
    W = W_PREV + Q_0 @ task(1).T + Q_1 @ task(2).T
    return MatrixExpr({w: sp.factor(c) for w, c in W}, W.rows, W.cols)


def _instantiate(step: MatrixExpr, previous: MatrixExpr, readout_mu: MatrixExpr
                 ) -> MatrixExpr:
    return step.subs({W_PREV: previous, B_MU: readout_mu})


@lru_cache(maxsize=None)
def weights(first_task: str = "unregularized") -> tuple[MatrixExpr, MatrixExpr]:
    """(W_1, W_2) with the surrogate step for task 2.

    ``first_task``: ``"unregularized"`` (W_1 = B_1 A_1^+, with (A_1^T A_1)^{-1} -> its
    surrogate (Ns/Nx) I_s) or ``"independent_metric"`` (the Fisher step from W_0 = 0 in the
    metric of a task uncorrelated with task 1: the surrogate step at rho_a = 0, whose
    A_{mu-1}-term then vanishes).

    >>> weights()[0]
    (N_s/N_x)*B_1 A_1^T
    """
    A1 = task(1)
    if first_task == "unregularized":
        W1 = (1 / gram_mean(A1.T @ A1)) * (readout(1) @ A1.T)
    elif first_task == "independent_metric":
        step0 = substitute_scalar(surrogate_step(), rho_a, 0)
        first = step0.subs({W_PREV: MatrixExpr({}, "y", "x"), B_MU: readout(1)})
        # relabel: in this step the current task is "task 2" of the template; the previous
        # (independent) task's letters carry coefficient 0 and have dropped out
        if any(letter == A1.single_letter() or letter == A1.T.single_letter()
               for letter in first.letters()):
            raise ValueError("the independent task's features did not drop out")
        W1 = MatrixExpr({w: c for w, c in first}, first.rows, first.cols)
        W1 = _relabel_task(W1, 2, 1)
    else:
        raise ValueError(f"first_task must be 'unregularized' or 'independent_metric', got "
                         f"{first_task!r}")
    W2 = _instantiate(surrogate_step(), W1, readout(2))
    return W1, W2


def _relabel_task(expression: MatrixExpr, old: int, new: int) -> MatrixExpr:
    """Rename the task number of every A/B letter ``old`` -> ``new`` (no other task present)."""
    from dataclasses import replace as dc_replace
    terms = {}
    for word, coeff in expression:
        terms[tuple(dc_replace(l, task=new) if l.kind in "AB" and l.task == old else l
                    for l in word)] = coeff
    return MatrixExpr(terms, expression.rows, expression.cols)


@lru_cache(maxsize=None)
def transfer(expectation: str = "surrogate", first_task: str = "unregularized") -> sp.Expr:
    """Delta eps_TF = <eps_2[0]> - <eps_2[W_1]> (eq_def_delta_epsilon_TF_RT).

    >>> sp.factor(transfer())
    -rho_a*(rho_a - 2*rho_b)
    """
    W1, _ = weights(first_task)
    return by_powers_of_nx(expected_error(readout(2), expectation)
                           - expected_error(readout(2) - W1 @ task(2), expectation))


@lru_cache(maxsize=None)
def retention(expectation: str = "surrogate", first_task: str = "unregularized") -> sp.Expr:
    """Delta eps_RT = <eps_1[0]> - <eps_1[W_2]> with the surrogate weights.

    >>> retention()
    1
    >>> retention("gaussian").subs(rho_a, 0)
    N_s/N_x**2 + 1 + (-2*N_s - 1)/N_x + (-N_s**3 - 2*N_s**2 - 3*N_s)/N_x**3
    """
    _, W2 = weights(first_task)
    return by_powers_of_nx(expected_error(readout(1), expectation)
                           - expected_error(readout(1) - W2 @ task(1), expectation))


def retention_first_order(generator: str = "gaussian") -> sp.Expr:
    """c_1 in Delta eps_RT = 1 + c_1 Ns/Nx + O((Ns/Nx)^2), exact expectation of the
    surrogate weights (engine), as a function of rho_a, rho_b and Ns.

    >>> sp.factor(retention_first_order().subs(rho_a, 0))
    -(2*N_s + 1)/N_s
    """
    if generator not in ("gaussian", "appendix"):
        raise ValueError(f"generator must be one of gaussian, appendix, got {generator!r}")
    return sp.factor(ratio_expansion(retention(generator), 1)[1])


_K = Ns / Nx  # W_1 = (Ns/Nx) B_1 A_1^T: the factor the appendix writes


def retention_split() -> dict[str, MatrixExpr]:
    """The appendix's residual B_1 - W_2 A_1 = B_1 (I - k A_1^T A_1) + c (k B_1 A_1^T A_2 - B_2)
    P, P = (A_2^T - rho_a A_1^T) A_1, k = Ns/Nx, c = Ns/(Nx (1 - rho_a^2)); returns the named
    Ns x Ns factors ``first`` = I - k A_1^T A_1, ``P``, ``S`` = k A_1^T A_2, with a check
    that they rebuild the residual of the derived W_2.

    >>> retention_split()["P"]
    (-rho_a)*A_1^T A_1 + A_2^T A_1
    """
    A1, A2, B1, B2 = task(1), task(2), readout(1), readout(2)
    c = surrogate_block_inverse()[1, 1]
    first = eye("s") - _K * (A1.T @ A1)
    P = (A2.T - rho_a * A1.T) @ A1
    S = _K * (A1.T @ A2)
    _, W2 = weights()
    if not (B1 @ first + c * ((B1 @ S - B2) @ P) == B1 - W2 @ A1):
        raise ValueError("the appendix's split does not rebuild B_1 - W_2 A_1")
    return {"first": first, "P": P, "S": S}


@lru_cache(maxsize=None)
def retention_piece(name: str, generator: str = "gaussian") -> sp.Expr:
    """One term of the appendix's expansion of Delta eps_RT, exactly at finite N (engine).

    ``second``      (1/Ns) <||I - k A_1^T A_1||^2>                   printed (Ns + 1)/Nx
    ``norm``        (1/Ns) c^2 <||(A_2^T - rho_a A_1^T) A_1||^2>     printed Ns/(Nx(1-rho_a^2))
    ``trace``       (1/Nx) c^2 <tr[P^T A_2^T A_1 P]>                 printed Ns rho_a/
                                                              (Nx(1-rho_a^2)) (1 + 2/(Nx Ns))
    ``cross``       (c/Ns) <tr[(I - k A_1^T A_1)(S - rho_b I) P]>    printed 0
    ``cross_printed`` the same with (A_2^T - rho_a A_1^T) A_2 as printed   printed 0

    with k = Ns/Nx, c = Ns/(Nx(1 - rho_a^2)), P = (A_2^T - rho_a A_1^T) A_1, S = k A_1^T A_2.

    >>> sp.factor(retention_piece("second"))
    (N_s + 1)/N_x
    """
    if generator not in ("gaussian", "appendix"):
        raise ValueError(f"generator must be one of gaussian, appendix, got {generator!r}")
    split = retention_split()
    first, P, S = split["first"], split["P"], split["S"]
    A1, A2 = task(1), task(2)
    c = surrogate_block_inverse()[1, 1]
    if name == "second":
        value = expect_frobenius2(first, generator) / Ns
    elif name == "norm":
        value = c**2 * expect_frobenius2(P, generator) / Ns
    elif name == "trace":
        value = c**2 * expect_trace(P.T @ A2.T @ A1 @ P, generator) / Nx
    elif name == "cross":
        value = c * expect_trace(first @ (S - rho_b * eye("s")) @ P, generator) / Ns
    elif name == "cross_printed":
        P2 = (A2.T - rho_a * A1.T) @ A2
        value = c * expect_trace(first @ (S - rho_b * eye("s")) @ P2, generator) / Ns
    else:
        raise ValueError(f"name must be one of second, norm, trace, cross, cross_printed, "
                         f"got {name!r}")
    return by_powers_of_nx(value)


def _expansion_as_printed(generator: str) -> sp.Expr:
    """The appendix's expansion of Delta eps_RT (A_1^T A_1^T read as A_1^T A_1), every
    expectation evaluated by the engine."""
    split = retention_split()
    first, P, S = split["first"], split["P"], split["S"]
    A1, A2 = task(1), task(2)
    c = surrogate_block_inverse()[1, 1]
    return sp.factor(
        1 - expect_frobenius2(first, generator) / Ns
        - 2 * c / Ns * expect_trace(first @ (S - rho_b * eye("s")) @ P, generator)
        - c**2 / Ns * (expect_frobenius2(S @ P, generator) + expect_frobenius2(P, generator))
        + 2 * rho_b / Nx * c**2 * expect_trace(P.T @ A2.T @ A1 @ P, generator))


def exact_retention() -> tuple[sp.Expr, MatrixExpr]:
    """Delta eps_RT at the *exact* fixed points (finite Nx >= 2 Ns, rho_a < 1): the residual
    B_1 - W_2 A_1 reduced by the exact conditions of :func:`exact_conditions`
    ((W_2 - W_1) A_1 = 0, then W_1 A_1 = B_1: task 1 learned exactly, unregularized or with
    any Fisher step), and Delta eps_RT = <eps_1[0]> - <eps_1[W_2]>.

    >>> exact_retention()[0]
    1
    """
    c0, c1 = exact_conditions()
    W2, W1 = opaque("W_2", "y", "x"), opaque("W_1", "y", "x")
    # the conditions with W = W_2, W_{mu-1} = W_1, B_mu = B_2 (task 2 after task 1)
    cond_prev = c0.subs({W_OPAQUE: W2, W_PREV: W1})          # (W_2 - W_1) A_1 = 0
    if not (cond_prev == (W2 - W1) @ task(1)):
        raise ValueError(f"unexpected first condition {cond_prev}")
    residual = readout(1) - W2 @ task(1)
    residual = residual.replace(W2 @ task(1), W1 @ task(1))  # from (W_2 - W_1) A_1 = 0
    residual = residual.replace(W1 @ task(1), readout(1))    # task 1 learned exactly
    value = expected_error(readout(1), "gaussian") - (
        expected_error(residual, "gaussian") if residual.terms_count() else 0)
    return sp.factor(value), residual


# -- 4. fixed features (rho_a = 1) -----------------------------------------------------------

_U, _Lam, _LamInv, _V = SVD_U, SVD_LAMBDA, SVD_LAMBDA_INV, SVD_V
_Q = opaque("Q", "y", "s")
_A_SVD = _U @ _Lam @ _V.T
_PINV = _V @ _LamInv @ _U.T  # A^+ for A of full column rank
_svd_identities = reduce_svd


@lru_cache(maxsize=1)
def fixed_point_rho1() -> MatrixExpr:
    """The fixed point for A_{mu-1} = A_mu = A = U Lam V^T (full column rank), W_{mu-1} and
    B_mu opaque. The gradient (from the loss) ends in U^T (span: W = W_{mu-1} + Q U^T); the
    remaining factor is multiplied on the right by Lam^{-1} V^T, then V Lam^{-1} (invertible
    factors), reduced by exact SVD identities and solved for Q.

    >>> fixed_point_rho1()
    W_{mu-1} + (-1/(lambda + 1))*W_{mu-1} U U^T + (1/(lambda + 1))*B_mu V Lambda^{-1} U^T
    """
    loss = frobenius2(_B - _W * _A) / 2 + lam / 2 * frobenius2((_W - _W0) * _A)
    gradient = matrix_gradient(loss, _W)
    W = W_PREV + _Q @ _U.T
    words = to_words(gradient, {_W: W, _W0: W_PREV, _A: _A_SVD, _B: B_MU})
    solution = W_PREV + solve_in_svd_span(words, _Q) @ _U.T
    return MatrixExpr({w: sp.factor(c) for w, c in solution}, solution.rows, solution.cols)


@lru_cache(maxsize=None)
def weights_rho1(first_task: str = "regularized") -> tuple[MatrixExpr, MatrixExpr]:
    """(W_1, W_2) at rho_a = 1 from W_0 = 0: task 2 always with the Fisher step; task 1 with
    it (``"regularized"``: the metric of A itself) or without (``"unregularized"``: the same
    fixed point at lam = 0, W_1 = B_1 A^+).

    >>> weights_rho1()[0]
    (1/(lambda + 1))*B_1 V Lambda^{-1} U^T
    """
    step = fixed_point_rho1()
    zero = MatrixExpr({}, "y", "x")
    if first_task == "regularized":
        first_step = step
    elif first_task == "unregularized":
        first_step = substitute_scalar(step, lam, 0)
    else:
        raise ValueError(f"first_task must be 'regularized' or 'unregularized', got "
                         f"{first_task!r}")
    W1 = first_step.subs({W_PREV: zero, B_MU: readout(1)})
    W2 = step.subs({W_PREV: W1, B_MU: readout(2)})
    return W1, W2


def _in_gamma_f(value: sp.Expr) -> sp.Expr:
    return sp.factor(sp.expand(value.subs(lam, 1 / gamma_f - 1)))


def transfer_rho1(first_task: str = "regularized") -> sp.Expr:
    """Delta eps_TF at rho_a = 1, exact at finite N (A of full column rank), in gamma_f.

    >>> sp.factor(transfer_rho1("unregularized"))
    2*rho_b - 1
    """
    W1, _ = weights_rho1(first_task)
    residual = _svd_identities(readout(2) - W1 @ _A_SVD)
    return _in_gamma_f(expected_error(readout(2), "gaussian")
                       - expected_error(residual, "gaussian"))


def retention_rho1(first_task: str = "regularized") -> sp.Expr:
    """Delta eps_RT at rho_a = 1, exact at finite N (A of full column rank), in gamma_f.

    >>> sp.factor(retention_rho1("unregularized"))
    2*gamma_f**2*rho_b - 2*gamma_f**2 + 1
    """
    _, W2 = weights_rho1(first_task)
    residual = _svd_identities(readout(1) - W2 @ _A_SVD)
    return _in_gamma_f(expected_error(readout(1), "gaussian")
                       - expected_error(residual, "gaussian"))




# =========================================================================================
# Claims
# =========================================================================================

_WHERE = "Sec. 6.2 / Appendix subsec_appendix_FIM"
_CROSS_TERM = (r"\tfrac{1}{ N_x (1 - \rho_a^2)} \lla \tr [(I - \tfrac{N_s}{N_x} A_1^T A_1) "
               r"(\tfrac{N_s}{N_x} A_1^T A_2 - \rho_b I) (A_2^T - \rho_a A_1^T) A_2 ]\rra")
"""The trace term the appendix sets to 0 (line 1222), quoted where it starts."""
_FIG5_CD = (r"Average transfer and retention performance under the regularization with the "
            r"exact Fisher information metric")
_FIG5_CD_LINE = 290
_MAIN_RETENTION = (r"$\Delta \epsilon_{RT} = 1 - \Order ( \tfrac{N_s}{N_x (1 - \rho_a^2)} )$")
_C = Ns / (Nx * (1 - rho_a**2))
_A1, _A2, _B1, _B2 = task(1), task(2), readout(1), readout(2)
_VANILLA_TF = rho_a * (2 * rho_b - rho_a)  # eq_epsilon_vanilla, as printed


def _same_words(a: sp.Basic, b: sp.Basic) -> bool:
    if isinstance(a, sp.Tuple) or isinstance(a, sp.MatrixBase):
        a_items, b_items = list(sp.flatten(a)), list(sp.flatten(b))
        return len(a_items) == len(b_items) and all(
            same_matrix_expression(x, y) for x, y in zip(a_items, b_items))
    return same_matrix_expression(a, b)


def _same_matrix(a: sp.Basic, b: sp.Basic) -> bool:
    return sp.simplify(sp.Matrix(a) - sp.Matrix(b)) == sp.zeros(*sp.Matrix(a).shape)


def _derive_fim() -> Derivation:
    value = fisher_information()
    return Derivation(value, (
        Step("-log p = ||W x - y||^2/(2 sigma^2); Hessian averaged over s (explicit 2x3 W, "
             "3x2 A)", value),
    ), note="the prefactor is 1/sigma^2, not 1/(2 sigma^2): d^2/dw^2 of (w x - y)^2/(2 "
            "sigma^2) is x^2/sigma^2. Harmless for the paper's results: the scale of the "
            "metric is absorbed in lam")


def _derive_regularizer() -> Derivation:
    value = sp.true if all(regularizer_is_metric_norm(*n) for n in ((2, 3, 2), (3, 4, 1),
                                                                   (1, 4, 3))) else sp.false
    return Derivation(value, (Step("expanded for sizes (Ny, Nx, Ns) = (2,3,2), (3,4,1), "
                                   "(1,4,3)", value),))


def _derive_block_system() -> Derivation:
    M, R = block_system()
    value = sp.Tuple(sp.Matrix(2, 2, lambda i, c: M[i][c].to_sympy()),
                     sp.Matrix(1, 2, lambda _, c: R[c].to_sympy()))
    return Derivation(value, (
        Step("gradient with W = W_{mu-1} + Q_0 A_1^T + Q_1 A_2^T (computed from the loss)",
             gradient_words(True).to_sympy()),
        Step("block system Q M = R (A_1 = A_{mu-1}, A_2 = A_mu)", value),
    ))


def _derive_exact_lambda_free() -> Derivation:
    c0, c1 = exact_conditions()
    derivative = sum((sp.Abs(sp.diff(c, lam)) for _, c in list(c0) + list(c1)), sp.Integer(0))
    return Derivation(sp.simplify(derivative), (
        Step("stationarity block 0 divided by lam: (W - W_{mu-1}) A_{mu-1}", c0.to_sympy()),
        Step("stationarity block 1: W A_mu - B_mu", c1.to_sympy()),
        Step("sum of |d coefficient / d lam|", derivative),
    ), note="exact at finite Nx, Ns (not only for the surrogate): with [A_{mu-1}, A_mu] of "
            "full column rank (2 Ns <= Nx) the fixed point solves W A_mu = B_mu and "
            "(W - W_{mu-1}) A_{mu-1} = 0 for every lam > 0")


def _derive_block_inverse() -> Derivation:
    value = surrogate_block_inverse()
    M, _ = block_system()
    return Derivation(value, (
        Step("surrogate blocks of M (eq_AtA_approx)",
             sp.Matrix(2, 2, lambda i, c: _scalar_block(M[i][c]))),
        Step("inverse", value),
    ), exact=False)


def _derive_weight() -> Derivation:
    W = surrogate_step()
    return Derivation(W.to_sympy(), (Step("Q = [0, R_1] M^{-1} (surrogate)", W.to_sympy()),),
                      exact=False)


def _derive_weight_lambda_free() -> Derivation:
    W = surrogate_step()
    derivative = sp.simplify(sum((sp.Abs(sp.diff(c, lam)) for _, c in W), sp.Integer(0)))
    return Derivation(derivative, (Step("sum of |d coefficient / d lam|", derivative),),
                      exact=False)


_FIRST_TASK_WORDS = {"unregularized": "first task unregularized",
                     "independent_metric": "first task in the metric of an independent task"}
"""How a step names the way task 1 was learned (the ``first_task`` names of :func:`weights`)."""


def _derive_W1(first_task: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        W1, _ = weights(first_task)
        return Derivation(W1.to_sympy(), (Step(f"W_1 ({_FIRST_TASK_WORDS[first_task]})",
                                                W1.to_sympy()),),
                          exact=False)
    return derive


def _derive_W2() -> Derivation:
    _, W2 = weights()
    return Derivation(W2.to_sympy(), (Step("surrogate step with W_{mu-1} = W_1",
                                           W2.to_sympy()),), exact=False)


def _derive_transfer(expectation: str, first_task: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = transfer(expectation, first_task)
        return Derivation(value, (Step(f"transfer, W_1 {_FIRST_TASK_WORDS[first_task]}, "
                                       f"{expectation}", value),),
                          exact=expectation != "surrogate")
    return derive


def _derive_retention(expectation: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = retention(expectation)
        steps = [Step(f"retention of the surrogate W_2, {expectation}", value)]
        note = ""
        if expectation != "surrogate":
            c1 = retention_first_order(expectation)
            residue = sp.factor(sp.cancel((1 - rho_a) * c1).subs(rho_a, 1))
            steps += [Step("first-order coefficient c_1 (Delta eps_RT = 1 + c_1 Ns/Nx + ...)",
                           c1),
                      Step("the limit rho_a -> 1 of (1 - rho_a) c_1", residue)]
            note = (f"first-order coefficient c_1 = {inline_math(c1)}, a simple pole at rho_a = 1 "
                    f"with residue {inline_math(residue)}: ~ 1/(1 - rho_a^2) as printed; nonzero "
                    "for rho_b < 1, so the average of c_1 over a uniform rho_a diverges "
                    "(logarithmically): the surrogate's correction is not uniform near "
                    "rho_a = 1")
        return Derivation(value, tuple(steps), exact=expectation != "surrogate", note=note)
    return derive


def _derive_exact_retention() -> Derivation:
    value, residual = exact_retention()
    return Derivation(value, (
        Step("residual B_1 - W_2 A_1 after (W_2 - W_1) A_1 = 0 and W_1 A_1 = B_1",
             residual.to_sympy()),
        Step("Delta eps_RT = <eps_1[0]> - 0", value),
    ), exact=False,
        note="the symbolic fixed point keeps task 1 exactly (the residual vanishes) when "
             "[A_1, A_2] has full column rank 2 Ns (lam > 0): almost surely for Gaussian "
             "entries and Nx >= 2 Ns; the appendix generator keeps a column of A_1 whole with "
             "probability rho_a^Nx, and a draw with rank deficiency d loses exactly d/Ns of "
             "the rho_a = 1 loss (finding fisher-retention-exactly-one), so at finite size the "
             "expected retention is 1 only up to a term of order rho_a^Nx: the statement "
             "holds in the paper's limit, its O(Ns/(Nx (1 - rho_a^2))) term being zero or "
             "exponentially small in Nx (1 - rho_a)")


def _derive_piece(name: str, generator: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = retention_piece(name, generator)
        coefficient = by_powers_of_nx(value * Nx / Ns)
        piece = {"cross_printed": "the cross term as printed (A_2 for A_1)"}.get(
            name, f"the {name} term")
        return Derivation(coefficient, (Step(f"{piece}, exact ({generator})", value),
                                        Step("coefficient of Ns/Nx", coefficient)))
    return derive


def _derive_expansion(generator: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = retention(generator)
        return Derivation(value, (Step("direct <Delta eps_RT> of the surrogate W_2", value),))
    return derive


def _derive_rho1_fixed_point() -> Derivation:
    W = fixed_point_rho1()
    return Derivation(W.to_sympy(), (Step("solved for Q with exact SVD identities",
                                          W.to_sympy()),))


def _derive_rho1_weight(which: int) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        W = weights_rho1()[which - 1]
        return Derivation(W.to_sympy(), (Step(f"W_{which}", W.to_sympy()),))
    return derive


def _derive_rho1(kind: str, first_task: str = "regularized") -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = (transfer_rho1 if kind == "transfer" else retention_rho1)(first_task)
        W1, W2 = weights_rho1(first_task)
        residual = _svd_identities((readout(2) - W1 @ _A_SVD) if kind == "transfer"
                                   else (readout(1) - W2 @ _A_SVD))
        note = ""
        if kind == "retention" and first_task == "regularized":
            note = ("the printed rho_b coefficient 2 gamma_f [(1 - gamma_f)^2 - gamma_f^2] = "
                    "2 gamma_f (1 - 2 gamma_f) is wrong; from the residual "
                    "(1 - gamma_f + gamma_f^2) B_1 - gamma_f B_2 (the appendix's own "
                    "penultimate line) it is 2 gamma_f (1 - gamma_f + gamma_f^2). Check at "
                    "lam = 0 (gamma_f = 1): derived 2 rho_b - 1 = vanilla at rho_a = 1 "
                    "(eq_epsilon_vanilla), printed -1 - 2 rho_b")
        return Derivation(value, (Step("residual (exact SVD identities)", residual.to_sympy()),
                                  Step(kind, value)), note=note)
    return derive


_RHO1_RETENTION_PRINTED = (2 * gamma_f * (1 - gamma_f)**2 - gamma_f**4
                           + 2 * gamma_f * ((1 - gamma_f)**2 - gamma_f**2) * rho_b)
"""The rho_a = 1 retention as printed (line 1265)."""


def _derive_rho1_lambda0() -> Derivation:
    """The derived rho_a = 1 retention at lam = 0 (gamma_f = 1), and, as a check of it, the
    vanilla retention (leading order, derived in :mod:`tasksim.derivations.vanilla`) at
    rho_a = 1: without regularization the model is the vanilla one."""
    from .vanilla import leading_vanilla_retention

    value = sp.factor(retention_rho1().subs(gamma_f, 1))
    vanilla = sp.factor(leading_vanilla_retention().subs(rho_a, 1))
    agree = sp.simplify(value - vanilla) == 0
    return Derivation(value, (
        Step("derived retention at gamma_f = 1 (lam = 0)", value),
        Step("vanilla retention at rho_a = 1 (derived, eq_epsilon_vanilla)", vanilla,
             "equal to the line above" if agree else "differs from the line above")),
        note=("the derived lam = 0 limit is the vanilla retention at rho_a = 1"
              if agree else "the derived lam = 0 limit is NOT the vanilla retention"))


def _vanilla_average_transfer() -> sp.Expr:
    """eq_epsilon_vanilla's transfer averaged over the unit square (what Fig. 5C's average
    transfer is, by Sec. 6.2's "the transfer performance remains the same")."""
    from .vanilla import leading_vanilla_transfer

    return sp.integrate(leading_vanilla_transfer(), (rho_a, 0, 1), (rho_b, 0, 1))


def _derive_average(kind: str) -> Callable[[], Derivation]:
    def derive() -> Derivation:
        value = transfer() if kind == "transfer" else retention()
        avg = sp.integrate(value, (rho_a, 0, 1), (rho_b, 0, 1))
        return Derivation(avg, (Step(f"leading-order {kind}", value),
                                Step("uniform average over [0, 1]^2", avg)), exact=False)
    return derive


def _derive_invertibility() -> Derivation:
    M, _ = block_system()
    scalars = sp.Matrix(2, 2, lambda i, c: _scalar_block(M[i][c]))
    det = sp.factor(scalars.det())
    numerator, _ = sp.fraction(det)
    factors = [f for f, _ in sp.factor_list(numerator)[1] if f.free_symbols - {Nx, Ns}]
    zero_sets = [sp.solve(f, dict=True) for f in factors]
    allowed = ({lam: 0}, {rho_a: 1}, {rho_a: -1})
    holds = all(all(z in allowed for z in zs) for zs in zero_sets)
    return Derivation(sp.true if holds else sp.false, (
        Step("surrogate blocks of M (eq_AtA_approx)", scalars),
        Step("det M", det, "zero iff lambda = 0 or rho_a = 1 (rho_a >= 0)")),
                      exact=False, note=f"det M = {inline_math(det)}: lambda != 0 and "
                                        "rho_a < 1 make M invertible (after the surrogate; "
                                        "exactly, [A_{mu-1}, A_mu] of full column rank is "
                                        "what is needed: almost surely for Gaussian entries "
                                        "when Nx >= 2 Ns, while the appendix generator breaks "
                                        "it with probability 1 - (1 - rho_a^Nx)^Ns)")


def _derive_discontinuity_rho1() -> Derivation:
    below = exact_retention()[0]  # any rho_a < 1, any lam > 0
    at_one = sp.factor(retention_rho1("regularized"))
    gap = sp.factor(below - at_one)
    return Derivation(sp.true if gap != 0 else sp.false, (
        Step("retention at the exact fixed point, rho_a < 1 (any lam > 0)", below),
        Step("retention at rho_a = 1 (first task regularized), exact", at_one),
        Step("jump at rho_a -> 1", gap)), note="the retention jumps from 1 (rho_a < 1) to the "
                                                "rho_a = 1 value, below 1 for gamma_f < 1 or "
                                                "rho_b < 1: the two cases are different "
                                                "solutions, as printed")


def _derive_discontinuity_lambda0() -> Derivation:
    M, _ = block_system()
    scalars = sp.Matrix(2, 2, lambda i, c: _scalar_block(M[i][c]))
    det = sp.factor(scalars.det())
    vanilla = 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1)  # lam = 0: the vanilla model
    exact = exact_retention()[0]
    return Derivation(sp.true if det.subs(lam, 0) == 0 and exact != vanilla else sp.false, (
        Step("det M (surrogate) at lam = 0", det.subs(lam, 0), "singular"),
        Step("retention for every lam > 0 (exact fixed point)", exact),
        Step("retention at lam = 0 (the vanilla model, eq_epsilon_vanilla)", vanilla)),
        note="the lam-free weight of eq_main_fim_weight holds for every lam > 0 and fails at "
             "lam = 0: the retention jumps from 1 to the vanilla value")


def _pieces_printed() -> dict[str, tuple[sp.Expr, str]]:
    return {
        "second": ((Ns + 1) / Nx, r"\tfrac{N_s+1}{N_x}"),
        "norm": (_C, r"\tfrac{ N_s }{ N_x (1 - \rho_a^2) }"),
        "trace": (Ns * rho_a / (Nx * (1 - rho_a**2)) * (1 + 2 / (Nx * Ns)),
                  r"\tfrac{N_s \rho_a}{ N_x (1 - \rho_a^2)} \left( 1 + \tfrac{2}{N_x N_s} \right)"),
        "cross": (sp.Integer(0), r"0"),
        "cross_printed": (sp.Integer(0), r"0"),
    }


_APPENDIX_NOTES = {
    "norm": "under the appendix generator A_2 - rho_a A_1 is uncorrelated with A_1 but not "
            "independent of it: the factorization of the fourth moment the appendix uses "
            "fails and the piece gains 2 rho_a/(Nx (1 - rho_a)(1 + rho_a)^2), a 1/Nx term "
            "(relative order 1/Ns) below the order the paper keeps",
    "trace": "under the appendix generator the Isserlis/factorization step fails; the "
             "coefficient of Ns/Nx differs by O(1/Ns) (relative), below the order the paper "
             "keeps",
}

_PIECE_NOTES = {
    "cross": "the cross term as it occurs in the expansion, with (A_2^T - rho_a A_1^T) A_1",
    "cross_printed": "the cross term as printed, with (A_2^T - rho_a A_1^T) A_2 (a typo: the "
                     "expansion has A_1): as printed it is of order Ns/Nx, the order of the "
                     "pieces the appendix keeps, so not zero there; the A_1 version is "
                     "O((Ns/Nx)^2)",
    "trace": "besides, a typo: the printed factor (A_2^T - rho_a A_1) is read as "
             "(A_2 - rho_a A_1)",
}


def _claims() -> list[Claim]:
    return _typo_claims() + _claims_main()


def _claims_main() -> list[Claim]:
    M_printed = sp.Matrix([[(lam * (_A1.T @ _A1)).to_sympy(), (_A1.T @ _A2).to_sympy()],
                           [(lam * (_A2.T @ _A1)).to_sympy(), (_A2.T @ _A2).to_sympy()]])
    R_printed = sp.Matrix([[0, (B_MU - W_PREV @ _A2).to_sympy()]])
    weight_printed = (W_PREV @ (eye("x") - _C * (_A2 @ (_A2.T - rho_a * _A1.T)))
                      + _C * (B_MU @ (_A2.T - rho_a * _A1.T)))
    W2_printed = (Ns / Nx * (_B1 @ _A1.T @ (eye("x") - _C * (_A2 @ (_A2.T - rho_a * _A1.T))))
                  + _C * (_B2 @ (_A2.T - rho_a * _A1.T)))
    gf = GAMMA_F
    claims = [
        Claim("fisher.fim_prefactor", f"{_WHERE}: (ij,kl) component of the FIM",
              1 / (2 * sigma**2), r"= \frac{1}{2 \sigma^2} \delta_{ik} \sum_n a_{jn} a_{ln}",
              _derive_fim, note="read as: the prefactor of delta_ik (A A^T)_jl", line=1055,
              headline=True, condition="exact"),
        Claim("fisher.regularizer_norm", f"{_WHERE}: quadratic form of the FIM", sp.true,
              r"= \llv (W - W_o) A \rrv_F^2", _derive_regularizer, line=1061, headline=True,
              condition="exact"),
        Claim("fisher.block_system", f"{_WHERE}: system for Q before eq_ap_defQ_wr_fim",
              sp.Tuple(M_printed, R_printed),
              r"Q = \begin{pmatrix} O & B_{\mu} - W_{\mu-1} A_{\mu} \end{pmatrix} "
              r"\begin{pmatrix} \lambda A_{\mu-1}^T A_{\mu-1} & A_{\mu-1}^T A_{\mu} \\ "
              r"\lambda A_{\mu}^T A_{\mu-1} & A_{\mu}^T A_{\mu} \end{pmatrix}^{-1}",
              _derive_block_system, equivalent=_same_words, line=1109, headline=True,
              condition="exact for lambda > 0, rho_a < 1 and [A_{mu-1}, A_mu] of full column "
                        "rank (almost surely for Gaussian entries when Nx >= 2 Ns; the "
                        "appendix generator breaks it with probability 1 - (1 - "
                        "rho_a^Nx)^Ns)",
              note="read as the block system Q M = [O, B_mu - W_{mu-1} A_mu] that it solves",
              restates=((1078, r"$W = W_{\mu-1} + Q \widetilde{A}^T$"),
                        (1079, r"Solving $\frac{\p \ell_{\mu} }{\p W} = 0$, we get"),
                        (1081, r"Q \begin{pmatrix} \lambda A_{\mu-1}^T A_{\mu-1} & "
                               r"A_{\mu-1}^T A_{\mu} \\ \lambda A_{\mu}^T A_{\mu-1} & "
                               r"A_{\mu}^T A_{\mu} \end{pmatrix}"))),
        Claim("fisher.invertibility", f"{_WHERE}: the block matrices are invertible for "
              "lambda != 0, rho_a < 1", sp.true,
              r"If $\lambda \neq 0$ and $\rho_a < 1$, two square matrices in the above "
              r"equations are almost surely invertible", _derive_invertibility, line=1106,
              headline=True, note="read as: det M != 0 for lambda != 0 and rho_a < 1",
              condition="after the surrogate A^T A -> (Nx/Ns) I_s"),
        Claim("fisher.exact_lambda_independence", "Sec. 6.2: 'the weight becomes independent "
              "of the regularizer's amplitude', for the exact fixed point at finite N",
              sp.Integer(0), r"the weight becomes independent of the regularizer's amplitude "
              r"$\gamma$", _derive_exact_lambda_free, line=327, headline=True,
              condition="exact, any lambda > 0, rho_a < 1, [A_1, A_2] of full column rank "
                        "(almost surely for Gaussian entries when Nx >= 2 Ns)",
              note="read as: dW/dlambda = 0",
              restates=((1137, r"the equation above doesn't depend on the regularizer "
                               r"amplitude $\lambda$, except for $\lambda \neq 0$ condition"),)),
        Claim("fisher.surrogate_block_inverse", f"{_WHERE}: surrogate inverse",
              _C * sp.Matrix([[1 / lam, -rho_a / lam], [-rho_a, 1]]),
              r"= \frac{N_s}{N_x (1 - \rho_a^2)} \begin{pmatrix} \tfrac{1}{\lambda} I_s & "
              r"-\tfrac{\rho_a}{\lambda} I_s \\ -\rho_a I_s & I_s \end{pmatrix}",
              _derive_block_inverse, equivalent=_same_matrix, line=1126, headline=True,
              condition="after the surrogate A^T A -> (Nx/Ns) I_s (Nx >> Ns)",
              restates=((1115, r"Under $N_x \gg N_s$, from Eq. \ref{eq_AtA_approx}, the inverse "
                               r"matrix is approximated by"),)),
        Claim("fisher.weight", "Sec. 6.2: eq_main_fim_weight", weight_printed.to_sympy(),
              r"W_{\mu} = W_{\mu-1} \left( I - \tfrac{N_s}{N_x (1 - \rho_a^2)} A_{\mu} "
              r"\left[ A_{\mu}^T - \rho_a A_{\mu-1}^T \right] \right)", _derive_weight,
              equivalent=same_matrix_expression, line=323, headline=True,
              condition="after the surrogate A^T A -> (Nx/Ns) I_s; lambda > 0, rho_a < 1",
              restates=((321, r"If $\rho_a,\gamma < 1$ and $N_s \ll N_x$, optimization of the "
                              r"weight under this regularization yields"),
                        (1134, r"W = W_{\mu-1} \left( I - \frac{N_s}{N_x (1 - \rho_a^2)} "
                               r"A_{\mu} \left[ A_{\mu}^T - \rho_a A_{\mu-1}^T \right] "
                               r"\right)"),
                        (1132, r"Therefore, $W = W_{\mu-1} + Q \widetilde{A}^T$ follows"))),
        Claim("fisher.weight_lambda_independence", "Sec. 6.2: 'the weight becomes "
              "independent of the regularizer's amplitude'", sp.Integer(0),
              r"the weight becomes independent of the regularizer's amplitude $\gamma$",
              _derive_weight_lambda_free, line=327,
              note="a step: the surrogate weight of eq_main_fim_weight has no lambda"),
        Claim("fisher.W1.unregularized", f"{_WHERE}: W_1 (first task without regularization)",
              (Ns / Nx * (_B1 @ _A1.T)).to_sympy(), r"$W_1 = \tfrac{N_s}{N_x} B_1 A_1^T$",
              _derive_W1("unregularized"), equivalent=same_matrix_expression, line=1141,
              headline=True, condition="after the surrogate A^T A -> (Nx/Ns) I_s"),
        Claim("fisher.W1.independent_metric", f"{_WHERE}: W_1 (Fisher metric of an "
              "uncorrelated task)", (Ns / Nx * (_B1 @ _A1.T)).to_sympy(),
              r"$W_1 = \tfrac{N_s}{N_x} B_1 A_1^T$", _derive_W1("independent_metric"),
              equivalent=same_matrix_expression, line=1141,
              note="a step: the same W_1 when task 1 is regularized in the metric of an "
                   "uncorrelated task"),
        Claim("fisher.W2", f"{_WHERE}: W_2", W2_printed.to_sympy(),
              r"W_2 = \frac{N_s}{N_x} B_1 A_1^T \left( I - \frac{N_s}{N_x (1 - \rho_a^2)} "
              r"A_2 [A_2^T - \rho_a A_1^T] \right) + \frac{N_s}{N_x (1 - \rho_a^2)} B_2 "
              r"(A_2^T - \rho_a A_1^T)", _derive_W2, equivalent=same_matrix_expression,
              line=1144, headline=True, condition="after the surrogate A^T A -> (Nx/Ns) I_s"),
        Claim("fisher.transfer_equals_vanilla.unregularized", f"{_WHERE}: 'the transfer "
              "performance becomes the same with the vanilla model'", _VANILLA_TF,
              r"the transfer performance becomes the same with the vanilla model",
              _derive_transfer("surrogate", "unregularized"), line=1141, headline=True,
              condition="leading order in Ns/Nx",
              reading_from="line 183 (eq_epsilon_vanilla's transfer)",
              note="read as: the transfer is eq_epsilon_vanilla's"),
        Claim("fisher.transfer_equals_vanilla.independent_metric", "Sec. 6.2: 'if the first "
              "task is learned with weight regularization in an orthogonal direction, the "
              "transfer performance remains the same with the vanilla model'", _VANILLA_TF,
              r"if the first task is learned with weight regularization in an orthogonal "
              r"direction, the transfer performance remains the same with the vanilla model",
              _derive_transfer("surrogate", "independent_metric"), line=331, headline=True,
              condition="leading order in Ns/Nx",
              reading_from="line 183 (eq_epsilon_vanilla's transfer)",
              note="read as: the transfer is eq_epsilon_vanilla's",
              restates=((63, r"without compromising transfer performance"),
                        (92, r"helps retention without affecting knowledge transfer"))),
        Claim("fisher.retention", "Sec. 6.2: Delta eps_RT = 1 - O(Ns/(Nx(1 - rho_a^2)))",
              sp.Integer(1), _MAIN_RETENTION, _derive_retention("surrogate"), line=328,
              note="a step: the retention of the surrogate weights at leading order"),
        Claim("fisher.retention.exact_fixed_point", "Sec. 6.2: Delta eps_RT = 1 - O(...), at "
              "the exact fixed point (finite N)", sp.Integer(1), _MAIN_RETENTION,
              _derive_exact_retention, line=328, headline=True,
              condition="Ns << Nx (1 - rho_a^2), as printed; at finite size Delta eps_RT = "
                        "1 exactly when rank [A_1, A_2] = 2 Ns, which the appendix generator "
                        "breaks with probability 1 - (1 - rho_a^Nx)^Ns (a column of A_1 kept "
                        "whole; finding fisher-retention-exactly-one)",
              note="read as: Delta eps_RT = 1 up to an O(Ns/(Nx(1 - rho_a^2))) loss",
              restates=((1225, r"$\Delta \epsilon_{RT} = 1 - \Order \left( \tfrac{N_s}{N_x "
                               r"(1 - \rho_a^2)} \right)$"),
                        (329, r"the retention performance is perfect as long as the condition "
                              r"$N_s \ll N_x (1 - \rho_a^2)$ is satisfied"),
                        (1226, r"we have $\Delta \epsilon_{RT} \approx 1$ regardless of task "
                               r"similarity $\rho_a$ and $\rho_b$"),
                        (330, r"the network can freeze the weight changes in a low-dimensional "
                              r"subspace, while maintaining sufficient plasticity for new "
                              r"tasks"),
                        (63, r"weight regularization based on the Fisher information metric "
                             r"significantly improves retention, regardless of task "
                             r"similarity"),
                        (92, r"achieves perfect retention regardless of task similarity"),
                        (334, r"weight regularization in the Fisher information metric robustly "
                              r"helps retention without harming transfer"),
                        (369, r"weight regularization in the Fisher information metric "
                              r"significantly aids retention regardless of task similarity"))),
        Claim("fisher.discontinuity_at_rho_a_one", f"{_WHERE}: different solutions for rho_a < 1 "
              "and rho_a = 1", sp.true, r"this loss function has different forms of solution "
              r"depending on whether $\rho_a < 1$ or $\rho_a = 1$", _derive_discontinuity_rho1,
              line=1070, headline=True, condition="exact",
              note="read as: the retention is discontinuous at rho_a = 1"),
        Claim("fisher.discontinuity_at_lambda_zero", f"{_WHERE}: the lambda -> 0 limit",
              sp.true, r"At $\lambda \to 0$ limit, the inverse matrix term in Eq. "
              r"\ref{eq_ap_defQ_wr_fim} effectively becomes singular, and thus the equation above "
              r"no longer holds", _derive_discontinuity_lambda0, line=1138, headline=True,
              condition="exact", note="read as: the retention is discontinuous at lambda = 0"),
    ]
    piece_places = {
        "second": (1179, r"= \tfrac{N_s+1}{N_x}"),
        "norm": (1195, r"= \tfrac{ N_s }{ N_x (1 - \rho_a^2) }"),
        "trace": (1212, r"= \tfrac{N_s \rho_a}{ N_x (1 - \rho_a^2)} \left( 1 + "
                        r"\tfrac{2}{N_x N_s} \right)"),
        "cross": (1217, _CROSS_TERM),
        "cross_printed": (1217, _CROSS_TERM),
    }
    piece_restates = {
        "norm": ((1181, r"$(A_2^T - \rho_a A_1^T) A_1$ term also cancels out up to the leading "
                        r"order term"),),
        "trace": ((1197, r"the trace terms are also cancelled out up to the leading order "
                         r"term"),),
    }
    for generator in ("gaussian", "appendix"):
        paper = generator == "appendix"  # the paper's own task generator
        claims += [
            Claim(f"fisher.transfer.finite_n.{generator}", f"{_WHERE}: transfer = vanilla, "
                  "exact at finite N", _VANILLA_TF,
                  r"the transfer performance becomes the same with the vanilla model",
                  _derive_transfer(generator, "unregularized"), line=1141,
                  note="a step: the exact finite-N expectation of the surrogate weights; read "
                       "as eq_epsilon_vanilla's transfer"),
            Claim(f"fisher.retention.finite_n.{generator}", "Sec. 6.2: Delta eps_RT = 1 - "
                  "O(Ns/(Nx(1 - rho_a^2))), exact expectation of the surrogate W_2",
                  sp.Integer(1), _MAIN_RETENTION, _derive_retention(generator), line=328,
                  note="a step: the exact finite-N expectation of the surrogate W_2 (the exact "
                       "fixed point loses nothing: fisher.retention.exact_fixed_point)"),
            Claim(f"fisher.retention.expansion.{generator}", f"{_WHERE}: expansion of "
                  "Delta eps_RT over B (A_1^T A_1^T read as A_1^T A_1)",
                  _expansion_as_printed(generator),
                  r"= 1 - \tfrac{1}{N_s} \lla \llv I - \tfrac{N_s}{N_x} A_1^T A_1 \rrv_F^2 "
                  r"\rra", _derive_expansion(generator), line=1160, headline=paper,
                  condition="exact average over B, at the surrogate W_2",
                  note="printed side: the appendix's expansion with every expectation "
                       "evaluated by the engine; derived side: the direct average"),
        ]
        for name, (printed, latex) in _pieces_printed().items():
            note = "; ".join(n for n in (
                "compared as the coefficient of Ns/Nx (every piece is O(Ns/Nx))",
                _PIECE_NOTES.get(name, ""),
                _APPENDIX_NOTES.get(name, "") if generator == "appendix" else "") if n)
            line, quote = piece_places[name]
            headline = paper and name != "cross"  # the printed A_2 version is the statement
            claims.append(Claim(f"fisher.retention_piece.{name}.{generator}",
                                f"{_WHERE}: retention expansion, {name} term",
                                by_powers_of_nx(printed * Nx / Ns), quote,
                                _derive_piece(name, generator), note=note, line=line,
                                headline=headline,
                                condition="exact expectation at the surrogate W_2",
                                restates=piece_restates.get(name, ()) if headline else ()))
    claims += [
        Claim("fisher.rho1.fixed_point", f"{_WHERE}: fixed features (rho_a = 1)",
              (W_PREV @ (eye("x") - (_U @ _U.T) / (1 + lam)) + B_MU @ _PINV / (1 + lam)
               ).to_sympy(),
              r"W = W_{\mu-1} \left( I - \frac{1}{1+\lambda} U U^T \right) + "
              r"\frac{1}{1 + \lambda} B_{\mu} A^+", _derive_rho1_fixed_point,
              equivalent=same_matrix_expression, line=1238, headline=True,
              condition="exact for A of full column rank",
              restates=((1235, r"the weight $W$ is written as $W = W_{\mu-1} + Q U^T$"),
                        (1236, r"Solving $ \frac{\p \ell_{\mu}}{\p W} = 0$, we get"))),
        Claim("fisher.rho1.W1", f"{_WHERE}: W_1 at rho_a = 1",
              (gf * (_B1 @ _PINV)).to_sympy(), r"W_1 = \frac{1}{1 + \lambda} B_1 A^+",
              _derive_rho1_weight(1), equivalent=same_matrix_expression, line=1243,
              headline=True, condition="exact"),
        Claim("fisher.rho1.W2", f"{_WHERE}: W_2 at rho_a = 1",
              (gf * (_B1 @ _PINV @ (eye("x") - gf * (_U @ _U.T))) + gf * (_B2 @ _PINV)
               ).to_sympy(),
              r"W_2 = \frac{1}{1 + \lambda} B_1 A^+ \left( I - \frac{1}{1 + \lambda} U U^T "
              r"\right) + \frac{1}{1 + \lambda} B_2 A^+", _derive_rho1_weight(2),
              equivalent=same_matrix_expression, line=1244, headline=True, condition="exact"),
        Claim("fisher.rho1.transfer", f"{_WHERE}: transfer at rho_a = 1",
              gamma_f * (2 * rho_b - gamma_f), r"= \gamma_f \left( 2\rho_b - \gamma_f \right)",
              _derive_rho1("transfer"), line=1253, headline=True, condition="exact"),
        Claim("fisher.rho1.retention", f"{_WHERE}: retention at rho_a = 1",
              _RHO1_RETENTION_PRINTED,
              r"= 2 \gamma_f (1-\gamma_f)^2 - \gamma_f^4 + 2 \gamma_f \left[(1-\gamma_f)^2 - "
              r"\gamma_f^2\right] \rho_b", _derive_rho1("retention"), line=1265, headline=True,
              condition="exact"),
        Claim("fisher.rho1.retention_no_regularization", "eq_epsilon_vanilla at rho_a = 1 "
              "(the lam -> 0 limit of the rho_a = 1 retention)",
              _RHO1_RETENTION_PRINTED.subs(gamma_f, 1),
              r"= 2 \gamma_f (1-\gamma_f)^2 - \gamma_f^4 + 2 \gamma_f \left[(1-\gamma_f)^2 - "
              r"\gamma_f^2\right] \rho_b", _derive_rho1_lambda0, line=1265,
              note="a step: the printed rho_a = 1 retention evaluated at lam = 0 (gamma_f = "
                   "1) against the derived one there, which is the vanilla retention at "
                   "rho_a = 1"),
        Claim("fisher.rho1.retention.unregularized_first", f"{_WHERE}: retention at rho_a = 1, "
              "first task without regularization", 1 - 2 * gamma_f**2 * (1 - rho_b),
              r"= 1 - 2 \gamma_f^2 (1 - \rho_b)", _derive_rho1("retention", "unregularized"),
              line=1272, headline=True, condition="exact"),
        Claim("fisher.average_transfer", "Fig. 5C: average transfer", _vanilla_average_transfer(),
              r"Average transfer", _derive_average("transfer"), line=_FIG5_CD_LINE,
              headline=True, clause=0, observable="average Delta eps_TF over rho_a, rho_b",
              reading_from="line 331 (the transfer stays the vanilla model's at every "
                           "amplitude), averaged over the unit square",
              condition="leading order in Ns/Nx, uniform prior",
              note="the caption prints no number: the average transfer panel C plots is "
                   "compared with what Sec. 6.2 says it is (line 331: the transfer stays the "
                   "vanilla model's at every amplitude), eq_epsilon_vanilla's transfer "
                   "averaged over the unit square"),
        Claim("fisher.average_retention", "Fig. 5C: average retention", sp.Integer(1),
              r"retention performance under the regularization with the exact Fisher "
              r"information metric (\textbf{C})", _derive_average("retention"),
              line=_FIG5_CD_LINE, headline=True, clause=1,
              observable="average Delta eps_RT over rho_a, rho_b",
              reading_from="line 328 (Delta eps_RT = 1 regardless of rho_a and rho_b), "
                           "averaged over the unit square",
              condition="leading order in Ns/Nx, uniform prior; at finite size 1 up to the "
                        "rank loss of line 328 (a column of A_1 kept whole)",
              note="the caption prints no number: the average retention panel C plots is "
                   "compared with what Sec. 6.2 says it is (line 328: Delta eps_RT = 1 "
                   "regardless of rho_a and rho_b), so its average over the unit square is 1"),
    ]
    return claims


# -- display typos of Appendix C.2: a factor transposed where the product is undefined --------

def _letter(name: int, transposed: bool) -> MatrixExpr:
    return task(name).T if transposed else task(name)


def _defined(build: Callable[[], MatrixExpr]) -> bool:
    try:
        build()
    except ValueError:  # matrix_words refuses a product or a sum of mismatched shapes
        return False
    return True


_TYPOS = {
    # line 1163: (I - (Ns/Nx) A_1^T A_1^T), the first factor of the trace piece of line 1160
    "fisher.retention.expansion.typo_1163": dict(
        line=1163, quote=r"(I - \tfrac{N_s}{N_x} A_1^T A_1^T)",
        letters=((1, True), (1, True)),
        build=lambda a, b: eye("s") - (Ns / Nx) * (a @ b),
        term=lambda: retention_split()["first"],
        misprint_of="fisher.retention.expansion.gaussian",
        what="the first factor of the trace piece of the expansion at line 1160"),
    # line 1200: A_1^T (A_2^T - rho_a A_1), the first factor of the trace piece's trace
    "fisher.retention_piece.trace.typo_1200": dict(
        line=1200, quote=r"A_1^T (A_2^T - \rho_a A_1)",
        letters=((1, True), (2, True), (1, False)),
        build=lambda a, b, c: a @ (b - rho_a * c),
        term=lambda: retention_split()["P"].T,
        misprint_of="fisher.retention_piece.trace.gaussian",
        what="P^T = A_1^T (A_2 - rho_a A_1), the first factor of the trace piece (line 1171)"),
}
"""Typos in displays of Appendix C.2 where the printed product or sum of task matrices is
undefined (mismatched shapes); the correction is derived (:func:`_derive_typo`)."""


def _derive_typo(claim_id: str) -> Callable[[], Derivation]:
    """The correction of a display typo: the readings of the printed words with one letter's
    transpose flipped that are defined, among them the one equal to the term the expansion
    uses (:func:`retention_split`); the derived value is that term, the steps say whether the
    printed words are defined and how many readings are."""
    spec = _TYPOS[claim_id]

    def derive() -> Derivation:
        letters = spec["letters"]
        printed_ok = _defined(lambda: spec["build"](*(_letter(*x) for x in letters)))
        readings = []
        for k in range(len(letters)):
            flipped = [(n, (not t) if i == k else t) for i, (n, t) in enumerate(letters)]
            if _defined(lambda: spec["build"](*(_letter(*x) for x in flipped))):
                readings.append(spec["build"](*(_letter(*x) for x in flipped)))
        term = spec["term"]()
        matching = [r for r in readings if (r - term).terms_count() == 0]
        derived = term.to_sympy() if len(matching) == 1 and not printed_ok else sp.nan
        return Derivation(derived, (
            Step("the printed words are defined", sp.true if printed_ok else sp.false),
            Step("defined readings with one transpose flipped", sp.Integer(len(readings))),
            Step(f"the reading equal to {spec['what']}", derived)))
    return derive


def _typo_claims() -> list[Claim]:
    return [Claim(cid, f"{_WHERE}: display typo at line {spec['line']}",
                  sp.Symbol(spec["quote"]), spec["quote"], _derive_typo(cid),
                  equivalent=lambda derived, printed: False if derived is sp.nan else
                  derived == printed,
                  note=f"misprint: as printed the factor is undefined (mismatched shapes); "
                       f"the only reading with one transpose flipped that is defined and is "
                       f"{spec['what']} is the derived one; the stated result holds with it "
                       f"({spec['misprint_of']})",
                  line=spec["line"], headline=True, misprint_of=spec["misprint_of"],
                  cause="fisher-appendix-display-typos", observable="Delta eps_RT",
                  carry=lambda d: sp.Integer(0))
            for cid, spec in _TYPOS.items()]


_PIECE_SCALE = Ns / Nx
"""The pieces of the retention expansion are compared as coefficients of Ns/Nx."""

CLAIMS: list[Claim] = annotate(_claims(), {
    # 1/(2 sigma^2) for 1/sigma^2: the weight it leads to (eq_main_fim_weight) holds, the
    # metric's scale being absorbed in lambda
    "fisher.fim_prefactor": dict(
        cause="fisher-metric-prefactor", misprint_of="fisher.weight",
        observable="Delta eps_TF and Delta eps_RT at a given gamma_f (the metric's scale is "
                   "absorbed in lambda, so every result stated in gamma_f is unchanged)",
        carry=lambda d: sp.Integer(0)),
    # the expansion of Delta eps_RT (line 1160): - norm piece + 2 rho_b trace piece
    # - 2 cross piece, each piece (Ns/Nx) times the claim's coefficient
    # the appendix generator's fourth moments in an intermediate piece: the stated result
    # (Delta eps_RT ~ 1, fisher.retention) is right, so a misprint, not an erratum
    "fisher.retention_piece.norm.appendix": dict(
        cause="appendix-generator-moments", observable="Delta eps_RT",
        misprint_of="fisher.retention", carry=lambda d: -_PIECE_SCALE * d),
    "fisher.retention_piece.trace.appendix": dict(
        cause="appendix-generator-moments", observable="Delta eps_RT",
        misprint_of="fisher.retention", carry=lambda d: 2 * rho_b * _PIECE_SCALE * d),
    **{f"fisher.retention_piece.cross_printed.{g}": dict(
        # REFEREE30 n2: the stated Delta eps_RT is right; the size is what the printed term,
        # evaluated as printed, would add to it
        cause="fisher-cross-term-typo",
        observable="Delta eps_RT that the printed term would add if evaluated as printed (the "
                   "paper's stated Delta eps_RT is unaffected)",
        misprint_of=f"fisher.retention_piece.cross.{g}",
        # the expansion holds for rho_a < 1 (c = Ns/(Nx(1 - rho_a^2))); rho_a = 1 is another
        # fixed point (fisher.rho1.*), where the piece has no effect
        carry=lambda d: sp.Piecewise((-2 * _PIECE_SCALE * d, rho_a < 1), (0, True)))
       for g in ("appendix", "gaussian")},
    "fisher.rho1.retention": dict(cause="fisher-rho1-retention", observable="Delta eps_RT"),
    "fisher.rho1.retention_no_regularization": dict(cause="fisher-rho1-retention",
                                                    observable="Delta eps_RT"),
})
"""Every claim of this module; errata with their root cause, observable and, for a piece of
an expansion, the coefficient that carries its error into Delta eps_RT."""


# -- line 1149: the retention under W_2, before the average ---------------------------------

def _printed_w2() -> sp.MatrixExpr:
    """W_2 as line 1144 prints it (the rho_a < 1 solution from W_1 = (Ns/Nx) B_1 A_1^T)."""
    A1, A2 = sp.MatrixSymbol("A_1", Nx, Ns), sp.MatrixSymbol("A_2", Nx, Ns)
    B1, B2 = sp.MatrixSymbol("B_1", Ny, Ns), sp.MatrixSymbol("B_2", Ny, Ns)
    c = Ns / (Nx * (1 - rho_a**2))
    return (Ns / Nx * B1 * A1.T * (sp.Identity(Nx) - c * A2 * (A2.T - rho_a * A1.T))
            + c * B2 * (A2.T - rho_a * A1.T))


def _residual_under_w2() -> sp.MatrixExpr:
    """B_1 - W_2 A_1 (eps_1[W_2] = ||B_1 - W_2 A_1||_F^2 / Ny, eq_ap_epsilonW)."""
    A1 = sp.MatrixSymbol("A_1", Nx, Ns)
    B1 = sp.MatrixSymbol("B_1", Ny, Ns)
    return B1 - _printed_w2() * A1


def _derive_residual_under_w2() -> Derivation:
    value = _residual_under_w2()
    return Derivation(value, (Step("W_2 of line 1144", _printed_w2()),
                              Step("B_1 - W_2 A_1", value,
                                   "Delta eps_RT = <||B_1||^2>/Ny - <||B_1 - W_2 A_1||^2>/Ny")))


def _same_matrix(a: sp.Basic, b: sp.Basic) -> bool:
    value = sp.expand(a - b).doit()
    return value == 0 or value == sp.ZeroMatrix(*a.shape)


def _printed_residual() -> sp.MatrixExpr:
    A1, A2 = sp.MatrixSymbol("A_1", Nx, Ns), sp.MatrixSymbol("A_2", Nx, Ns)
    B1, B2 = sp.MatrixSymbol("B_1", Ny, Ns), sp.MatrixSymbol("B_2", Ny, Ns)
    c = Ns / (Nx * (1 - rho_a**2))
    return (B1 * (sp.Identity(Ns) - Ns / Nx * A1.T * A1)
            + c * (Ns / Nx * B1 * A1.T * A2 - B2) * (A2.T - rho_a * A1.T) * A1)


CLAIMS += [
    Claim("fisher.retention.under_w2", "Sec. 6.2 / Appendix subsec_appendix_FIM: retention "
          "under W_2", _printed_residual(),
          r"B_1 \left( I - \tfrac{N_s}{N_x} A_1^T A_1 \right)", _derive_residual_under_w2,
          equivalent=_same_matrix, line=1153, headline=True,
          condition="exact given W_2 of line 1144 (which holds in the stated limit: "
                    "fisher.W2)",
          note="read as: the matrix inside the norm is B_1 - W_2 A_1 for the W_2 printed at "
               "line 1144"),
]
