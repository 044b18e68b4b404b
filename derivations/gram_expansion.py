"""The 1/Nx expansion of a Gram-based error at fixed Ns, exact to next-to-leading order.

Every linear model whose fixed points depend on the task matrices through the Gram matrix of a
few feature blocks (vanilla, activity and plasticity gating, Euclidean and Fisher
regularization; Appendices B and C) has errors of the form

    E_B eps = tr Q,   Q a sum of words in Gram blocks X_u^T X_v and inverses (X^T X + lam I)^{-1}

(after the exact readout average of :func:`tasksim.derivations.two_task.readout_average`).
The blocks X are A_mu or D_nu A_mu: the rows of [A_1, A_2, D_1 A_1, ...] are Nx independent,
identically distributed vectors (entries at different rows are independent and each gate acts
on one row), so every Gram block is Nx times a block of the *sample second-moment matrix*

    S = (1/Nx) sum_j x_j x_j^T = Sigma + Delta,   E Delta = 0.

Sigma's blocks are multiples of I_s, sigma_u I_s (entries at different latent positions are
independent with mean zero). A word of Q is *scale-free*: with lam = Nx l (the regularizers
that scale with Nx) the powers of Nx cancel, so tr Q is a rational function of S alone.

Route (the delta method, exact at order 1/Nx)
------------------------------------------------
Each factor is expanded about its mean to second order in Delta:

    X_u^T X_v = Nx (sigma_u + Delta_u),
    (X^T X + Nx l I)^{-1} = (1/Nx) (s^-1 - s^-2 Delta + s^-3 Delta^2 - ...),  s = sigma + l.

Products are truncated at degree 2. Degree 0 is the leading order f(Sigma); degree 1 has mean
zero; degree 2 leaves traces tr(Delta_u Delta_v) between scalar factors, whose means are
*exactly* kappa_uv / Nx because Delta is a mean of Nx i.i.d. centred terms:

    kappa_uv = (E tr(X_u^T X_v X_w^T X_z) - Nx^2 Ns sigma_u sigma_v) / Nx,

with the four-letter trace computed exactly by :mod:`tasksim.derivations.engine` for either
generator (and the gates). Terms of degree k >= 3 have means O(Nx^-2) (third cumulants of a
mean of Nx terms are O(Nx^-2), fourth moments O(Nx^-2)), so

    E tr Q = f(Sigma) + c / Nx + O(Nx^-2)

with c exact at every Ns: no tall-matrix surrogate enters.

Assumptions: the inverted blocks are invertible with the moments the expansion uses (for a
Gram block of an Nx x Ns Gaussian block, E tr (X^T X)^{-k} exists for Nx > Ns + 2k - 1; with
gates, on the event of at least Ns + 2k open inputs, whose complement has probability
exponentially small in alpha Nx); the expansion is asymptotic in 1/Nx at fixed Ns, rho, alpha,
gamma.

Examples
--------
||A_1^+ A_2||_F^2 / Ns under the gaussian generator is rho_a^2 + (1 - rho_a^2) Ns/(Nx - Ns - 1)
exactly (the inverse-Wishart mean behind
:func:`tasksim.derivations.vanilla.exact_gaussian_transfer`): its 1/Nx coefficient is
(1 - rho_a^2) Ns, and the expansion finds it without that closed form:

>>> from tasksim.derivations.matrix_words import task
>>> A1, A2 = task(1), task(2)
>>> inverse = GramInverse(A1)
>>> M = inverse.letter @ A1.T @ A2                     # A_1^+ A_2
>>> e = expand_trace(M.T @ M / Ns, {inverse.letter: inverse}, "gaussian")
>>> e.leading, sp.factor(e.nlo)
(rho_a**2, -N_s*(rho_a - 1)*(rho_a + 1))
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

import sympy as sp

from .engine import GENERATORS, expect_trace
from .matrix_words import Letter, MatrixExpr, Word, opaque
from .symbols import Ns, Nx, rho_g

__all__ = ["GramInverse", "Expansion", "segment_mean", "segment_covariance", "factors",
           "expand_trace"]


@dataclass(frozen=True)
class GramInverse:
    """(X^T X + shift I_s)^{-1} for a feature block X (``task(mu)`` or ``gate(nu) @ task(mu)``).

    ``shift`` is the regularizer amplitude lam (0 for a least-squares fixed point); it may scale
    with Nx (Euclidean: lam = (Nx/Ns)(1/gamma - 1)), which keeps the error scale-free.
    :attr:`letter` is the opaque symmetric Ns x Ns letter that stands for it in a word.

    >>> from tasksim.derivations.matrix_words import gate, task
    >>> " ".join(map(str, GramInverse(gate(1) @ task(1)).gram))
    'A_1^T D_1 A_1'
    >>> GramInverse(task(2)).letter
    (A_2^T A_2)^{-1}
    """

    block: MatrixExpr
    shift: sp.Expr = sp.Integer(0)

    def __post_init__(self) -> None:
        if self.block.shape != ("x", "s"):
            raise ValueError(f"a feature block is Nx x Ns, got shape {self.block.shape}")
        self.block.single_word()  # one word, coefficient 1

    @property
    def gram(self) -> Word:
        """The word X^T X (gates made idempotent)."""
        return (self.block.T @ self.block).single_word()

    @property
    def letter(self) -> MatrixExpr:
        inside = " ".join(str(x) for x in self.gram)
        if self.shift != 0:
            inside += f" + {sp.sstr(self.shift)} I"
        return opaque(f"({inside})^{{-1}}", "s", "s", symmetric=True)


@dataclass(frozen=True)
class Expansion:
    """E tr Q = ``leading`` + ``nlo`` / Nx + O(Nx^-2) at fixed Ns (module docstring)."""

    leading: sp.Expr
    nlo: sp.Expr


def _check_generator(generator: str) -> str:
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {', '.join(GENERATORS)}, got {generator!r}")
    return generator


def _gates(value: sp.Expr, independent_gates: bool) -> sp.Expr:
    return value.subs(rho_g, 0) if independent_gates else value


@lru_cache(maxsize=None)
def _segment_mean(segment: Word, generator: str, independent_gates: bool) -> sp.Expr:
    value = expect_trace(MatrixExpr({segment: sp.Integer(1)}, "s", "s"), generator)
    sigma = sp.cancel(_gates(value, independent_gates) / (Nx * Ns))
    if sigma.has(Nx):
        raise ValueError(f"E[{segment}] is not proportional to Nx")
    return sigma


def segment_mean(segment: MatrixExpr, generator: str = "gaussian", *,
                 independent_gates: bool = True) -> sp.Expr:
    """sigma_u with E[X_u^T X_v] = Nx sigma_u I_s for a segment A_mu^T [D ...] A_nu (engine).

    >>> from tasksim.derivations.matrix_words import gate, task
    >>> segment_mean(task(1).T @ gate(1) @ gate(2) @ task(2))
    alpha**2*rho_a/N_s
    """
    return _segment_mean(segment.single_word(), _check_generator(generator), independent_gates)


@lru_cache(maxsize=None)
def _segment_covariance(u: Word, v: Word, generator: str, independent_gates: bool) -> sp.Expr:
    value = _gates(expect_trace(MatrixExpr({u + v: sp.Integer(1)}, "s", "s"), generator),
                   independent_gates)
    sigmas = _segment_mean(u, generator, independent_gates) * _segment_mean(
        v, generator, independent_gates)
    kappa = sp.expand((value - Nx**2 * Ns * sigmas) / Nx)
    if kappa.has(Nx):
        raise ValueError(f"E tr(Delta Delta) of {u}, {v} is not exactly of order 1/Nx")
    return kappa


def segment_covariance(u: MatrixExpr, v: MatrixExpr, generator: str = "gaussian", *,
                       independent_gates: bool = True) -> sp.Expr:
    """kappa_uv = Nx E tr(Delta_u Delta_v), exact (engine): Delta_u = X_u^T X_v / Nx - sigma_u I.

    >>> from tasksim.derivations.matrix_words import task
    >>> A1 = task(1)
    >>> segment_covariance(A1.T @ A1, A1.T @ A1)        # Wishart: Var of (A^T A)/Nx
    (N_s + 1)/N_s
    >>> segment_covariance(A1.T @ A1, A1.T @ A1, "appendix")   # same: one task alone
    (N_s + 1)/N_s
    """
    return sp.factor(_segment_covariance(u.single_word(), v.single_word(),
                                         _check_generator(generator), independent_gates))


def factors(word: Word, inverses: Mapping[Letter, GramInverse]) -> list[tuple[str, object]]:
    """A word of Ns x Ns factors, split: ``("segment", A_mu^T [D ...] A_nu)`` or
    ``("inverse", GramInverse)``; raises ValueError on anything else.

    >>> from tasksim.derivations.matrix_words import task
    >>> inverse = GramInverse(task(1))
    >>> w = (inverse.letter @ task(1).T @ task(2)).single_word()
    >>> [kind for kind, _ in factors(w, {inverse.letter.single_letter(): inverse})]
    ['inverse', 'segment']
    """
    out: list[tuple[str, object]] = []
    k = 0
    while k < len(word):
        letter = word[k]
        if letter in inverses:
            out.append(("inverse", inverses[letter]))
            k += 1
            continue
        if letter.kind == "A" and letter.transposed:
            end = k + 1
            while end < len(word) and word[end].kind == "D":
                end += 1
            if end < len(word) and word[end].kind == "A" and not word[end].transposed:
                out.append(("segment", word[k:end + 1]))
                k = end + 1
                continue
        raise ValueError(f"word {' '.join(map(str, word))} is not a product of Gram blocks "
                         f"and known inverses (at {letter})")
    return out


def expand_trace(Q: MatrixExpr, inverses: Mapping[MatrixExpr, GramInverse],
                 generator: str = "gaussian", *, independent_gates: bool = True) -> Expansion:
    """E tr Q = leading + nlo / Nx + O(Nx^-2), exactly (module docstring).

    ``Q`` is an Ns x Ns sum of words in Gram segments and the opaque letters of ``inverses``
    (the keys: :attr:`GramInverse.letter`). Gates of different tasks are independent
    (rho_g = 0) unless ``independent_gates=False``. Raises ValueError when Q is not
    scale-free (the result would depend on Nx beyond the expansion).
    """
    _check_generator(generator)
    if Q.shape != ("s", "s"):
        raise ValueError(f"Q must be Ns x Ns, got shape {Q.shape}")
    table = {key.single_letter(): value for key, value in inverses.items()}
    leading = sp.Integer(0)
    nlo = sp.Integer(0)
    for word, coefficient in Q:
        if len(word) == 1 and word[0].kind == "I":
            leading += coefficient * Ns
            continue
        d0, d1, d2, keys = [], [], [], []
        power = 0
        for kind, item in factors(word, table):
            if kind == "segment":
                # X_u^T X_v = Nx (sigma + Delta): degree 0, 1 and 2 coefficients
                sigma = _segment_mean(item, generator, independent_gates)
                d0.append(sigma)
                d1.append(sp.Integer(1))
                d2.append(sp.Integer(0))
                keys.append(item)
                power += 1
            else:
                # (X^T X + Nx l)^{-1} = (1/Nx)(s + Delta)^{-1}, s = sigma + l: Neumann series
                s = _segment_mean(item.gram, generator, independent_gates) + item.shift / Nx
                d0.append(1 / s)
                d1.append(-1 / s**2)
                d2.append(1 / s**3)
                keys.append(item.gram)
                power -= 1
        scale = coefficient * Nx**power
        leading += scale * Ns * sp.Mul(*d0)
        second = sp.Integer(0)
        n = len(keys)
        for i in range(n):
            rest_i = [d0[m] for m in range(n) if m != i]
            if d2[i] != 0:
                second += sp.Mul(*rest_i) * d2[i] * _segment_covariance(
                    keys[i], keys[i], generator, independent_gates)
            for j in range(i + 1, n):
                rest = sp.Mul(*[d0[m] for m in range(n) if m not in (i, j)])
                second += rest * d1[i] * d1[j] * _segment_covariance(
                    keys[i], keys[j], generator, independent_gates)
        nlo += scale * second
    leading, nlo = sp.factor(sp.cancel(leading)), sp.factor(sp.cancel(nlo))
    if leading.has(Nx) or nlo.has(Nx):
        raise ValueError("tr Q is not scale-free: the expansion in 1/Nx does not close")
    return Expansion(leading, nlo)
