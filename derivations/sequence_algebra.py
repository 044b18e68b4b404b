"""The leading order in Ns/Nx of K tasks learned in a row: the error matrix of vanilla learning
and of the paper's linear remedies, for the ``chain`` and ``shared`` similarity structures.

The paper analyses two tasks (Sec. 3, Appendix A); this module carries its leading-order
analysis to K tasks. Which route was taken, and why it is exact at leading order:

1. *Pairs.* In a K-task sequence the pair (A_mu, A_nu) has the two-task law of Appendix A with a
   correlation c_{mu nu} that the structure fixes (:func:`correlation_matrix`, derived from the
   Gaussian generator's construction: chain A_mu = rho A_{mu-1} + sqrt(1 - rho^2) Z_mu, shared
   A_mu = sqrt(rho) P + sqrt(1 - rho) Z_mu with a parent P; the appendix generator has the
   same pairs: kept at every step in between with probability rho^|mu - nu|, or kept from the
   parent by both with probability sqrt(rho)^2, else independent).
2. *Gram surrogate.* At leading order in Ns/Nx every Gram block (Ns/Nx) X_p^T X_q of the
   feature blocks is its mean g_pq I_s (eq_AtA_approx, eq_ap_DAtDA_approx: the step
   ``span_algebra.gram_surrogate`` takes for two tasks). A mean involves one pair, so g_pq is
   the two-task engine's (``span_algebra.gram_mean``) with rho_a -> c_pq
   (:func:`gram_limit`); the readouts' E[B_mu^T B_nu] / Ny likewise with rho_b
   (:func:`readout_limit`). The engine is not extended to K task matrices: no quantity at this
   order involves more than two of them.
3. *Fixed points in the span.* Every linear model's fixed point is W_mu = Y C_mu X^T with the
   coefficient recursion C_mu = C_{mu-1} + (e_mu - C_{mu-1} G e_mu) m_mu, where m_mu is the
   step's readout map (least squares: e_mu^T / g_mumu; Euclidean, eq_main_lmu_wreg:
   e_mu^T / (g_mumu + 1/gamma - 1), since lambda = (Nx/Ns)(1/gamma - 1); Fisher,
   eq_ap_defQ_wr_fim: the row of Z^{-1} that belongs to the fit block, Z the Gram of
   [metric blocks, fit block], in which lambda cancels for rho_a < 1), and the error
   eps_j[W_i] = u^T T_b u with u = e_j - C_i G e_j (eq_ap_epsilonW averaged over B). With the
   Gram at its mean, I_s factors out of everything and the algebra is over K x K matrices
   (:func:`coefficients`, :func:`leading_errors`): exact rational functions of rho_a, rho_b,
   alpha, gamma.

Remedies (:data:`REMEDIES`): ``vanilla``; ``random-gating`` (blocks D_mu A_mu, independent
Bernoulli(alpha) gates: g = alpha on the diagonal, alpha^2 c off it); ``euclidean`` (the first
task regularized toward W_0 = 0, as the solvers' default); ``fisher-previous`` (the paper's:
task mu >= 2 penalised in the metric of task mu - 1, the first task unregularized);
``fisher-accumulated`` (in the sum of the metrics of tasks 1 .. mu - 1). The Fisher forms
need the correlation matrix of the metric and fit tasks to be invertible (rho_a < 1).

The error matrix uses the solvers' convention: ``E[mu - 1, nu] = eps_mu[W_nu]``, shape
(K, K + 1). Entries are elements of a fraction field (symbolic) or plain numbers
(:func:`leading_errors` with ``point``: exact rationals or floats, fast for large K), or arrays
of floats, one entry per point of a grid (elementwise arithmetic: the report evaluates a grid's
points in one pass, ``tasksim.reports.sequence_grid``).

Examples
--------
>>> E = leading_errors("vanilla", "chain", 2)
>>> sp.expand(1 - E[0, 2])                      # the first task's retention (eq_epsilon_vanilla)
-rho_a**4 + 2*rho_a**3*rho_b - rho_a**2 + 1
>>> leading_errors("fisher-accumulated", "shared", 3)[0, 3]
0
>>> E = leading_errors("vanilla", "chain", 10, point={"rho_a": 0.5, "rho_b": 0.5})
>>> round(float(E[0, 10]), 9)                   # rho^2 (1 - rho^18) when rho_a = rho_b = rho
0.249999046
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Optional, Sequence

import sympy as sp

from .arguments import positive_size, real_in_range
from .matrix_words import gate, task
from .span_algebra import gram_mean
from .symbols import Ns, Nx, alpha, gamma, rho_a, rho_b

__all__ = [
    "STRUCTURES",
    "REMEDIES",
    "Remedy",
    "check_structure",
    "correlation_matrix",
    "source_factor",
    "pair_means",
    "gram_limit",
    "readout_limit",
    "readout_maps",
    "coefficients",
    "numeric_inputs",
    "leading_errors",
    "PARAMETERS",
]

STRUCTURES: tuple[str, ...] = ("chain", "shared")
PARAMETERS: tuple[sp.Symbol, ...] = (rho_a, rho_b, alpha, gamma)
"""The symbols a leading-order error matrix depends on (``point`` keys are their names)."""


@dataclass(frozen=True)
class Remedy:
    """One learning rule over the sequence: which blocks it learns on, how each step reads out.

    ``rule`` is ``"least-squares"``, ``"euclidean"``, ``"fisher-previous"`` or
    ``"fisher-accumulated"``; ``gated`` says the blocks are D_mu A_mu.
    """

    name: str
    rule: str
    gated: bool = False
    model: str = ""
    penalty: Optional[str] = None


REMEDIES: dict[str, Remedy] = {r.name: r for r in (
    Remedy("vanilla", "least-squares", model="vanilla"),
    Remedy("random-gating", "least-squares", gated=True, model="random-gating"),
    Remedy("euclidean", "euclidean", model="euclidean"),
    Remedy("fisher-previous", "fisher-previous", model="fisher", penalty="previous"),
    Remedy("fisher-accumulated", "fisher-accumulated", model="fisher", penalty="accumulated"),
)}
"""The remedies whose K-task leading order is derived here, by name."""


def check_structure(structure: str) -> str:
    """Validate a structure name.

    >>> check_structure("ring")
    Traceback (most recent call last):
    ...
    ValueError: structure must be one of chain, shared, got 'ring'
    """
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {', '.join(STRUCTURES)}, got {structure!r}")
    return structure


def _remedy(name: str) -> Remedy:
    if name not in REMEDIES:
        raise ValueError(f"remedy must be one of {', '.join(REMEDIES)}, got {name!r}")
    return REMEDIES[name]


@lru_cache(maxsize=None)
def correlation_matrix(structure: str, K: int, rho: sp.Symbol = rho_a) -> sp.Matrix:
    """The K x K correlations of the tasks' matrices, from the Gaussian generator's construction.

    Each task is a linear combination of independent unit sources (chain: Z_1 = A_1, Z_2, ..;
    shared: the parent P and Z_1, ..); the correlations are the inner products of the rows of
    that factor, simplified.

    >>> correlation_matrix("chain", 3)
    Matrix([
    [      1, rho_a, rho_a**2],
    [  rho_a,     1,    rho_a],
    [rho_a**2, rho_a,       1]])
    >>> correlation_matrix("shared", 2)
    Matrix([
    [    1, rho_a],
    [rho_a,     1]])
    """
    factor = source_factor(structure, K, rho)
    return (factor * factor.T).applyfunc(lambda x: sp.factor(sp.expand(x)))


def source_factor(structure: str, K: int, rho: sp.Symbol = rho_a) -> sp.Matrix:
    """The factor F of :func:`correlation_matrix` (its correlations are F F^T): row mu holds
    task mu's coefficients on the independent unit sources.

    >>> source_factor("chain", 2)
    Matrix([
    [    1,                 0],
    [rho_a, sqrt(1 - rho_a**2)]])
    """
    check_structure(structure)
    K = positive_size("K", K)
    if structure == "chain":
        fresh = sp.sqrt(1 - rho**2)
        return sp.Matrix(K, K, lambda mu, k: 0 if k > mu else
                         rho**(mu - k) * (1 if k == 0 else fresh))
    return sp.Matrix(K, K + 1, lambda mu, k: sp.sqrt(rho) if k == 0 else
                     (sp.sqrt(1 - rho) if k == mu + 1 else 0))


def pair_means() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(Ns/Nx) E[A_1^T A_2], E[(D_1 A_1)^T D_1 A_1], E[(D_1 A_1)^T D_2 A_2] / I_s as functions
    of rho_a and alpha: what :func:`gram_limit` evaluates at each pair's correlation.

    >>> pair_means()
    (rho_a, alpha, alpha**2*rho_a)
    """
    return _pair_means()


@lru_cache(maxsize=None)
def _pair_means() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(Ns/Nx) E[A_1^T A_2], E[(D_1 A_1)^T D_1 A_1], E[(D_1 A_1)^T D_2 A_2] / I_s: the engine's
    two-task Gram means (independent gates)."""
    scale = Ns / Nx
    ungated = sp.simplify(gram_mean(task(1).T @ task(2)) * scale)
    same = sp.simplify(gram_mean(task(1).T @ gate(1) @ task(1)) * scale)
    cross = sp.simplify(gram_mean(task(1).T @ gate(1) @ gate(2) @ task(2)) * scale)
    return ungated, same, cross


def gram_limit(structure: str, K: int, gated: bool = False) -> sp.Matrix:
    """g_pq = lim (Ns/Nx) E[X_p^T X_q] / I_s for the blocks X_mu = A_mu (or D_mu A_mu): the
    engine's two-task mean with rho_a -> c_pq (module docstring, steps 1-2).

    >>> gram_limit("shared", 2, gated=True)
    Matrix([
    [         alpha, alpha**2*rho_a],
    [alpha**2*rho_a,          alpha]])
    """
    T = correlation_matrix(structure, K)
    ungated, same, cross = _pair_means()
    if not gated:
        return T.applyfunc(lambda c: ungated.subs(rho_a, c))
    return sp.Matrix(K, K, lambda p, q: same if p == q else cross.subs(rho_a, T[p, q]))


def readout_limit(structure: str, K: int) -> sp.Matrix:
    """E[B_mu^T B_nu] (Ns/Ny) / I_s, the readouts' correlations (rho_b in the structure).

    >>> readout_limit("chain", 2)
    Matrix([
    [    1, rho_b],
    [rho_b,     1]])
    """
    return correlation_matrix(structure, K, rho_b)


# -- the algebra, over any field (fraction-field elements, plain numbers, arrays of floats) ---

def _nonzero(x: Any, zero: Any) -> bool:
    """Whether ``x`` is not an exact zero (an array of points: at some point)."""
    differs = x != zero
    return bool(differs.any()) if hasattr(differs, "any") else bool(differs)


def _pivot(x: Any, zero: Any) -> bool:
    """Whether ``x`` can be divided by (an array of points: nonzero at every point)."""
    differs = x != zero
    return bool(differs.all()) if hasattr(differs, "all") else bool(differs)


def _solve_row(Z: list[list[Any]], last: int) -> list[Any]:
    """The row ``last`` of Z^{-1} for a symmetric invertible Z (Gauss-Jordan with a row swap
    on an exact zero only: Z is a correlation matrix, positive definite for rho_a < 1, where
    elimination without pivoting is stable)."""
    n = len(Z)
    A = [list(row) + [1 if i == last else 0] for i, row in enumerate(Z)]  # solve Z x = e_last
    zero = A[0][0] * 0
    for col in range(n):
        pivot = next((r for r in range(col, n) if _pivot(A[r][col], zero)), None)
        if pivot is None:
            raise ZeroDivisionError("the Fisher metric's Gram is singular (rho_a = 1?)")
        A[col], A[pivot] = A[pivot], A[col]
        p = A[col][col]
        A[col] = [x / p for x in A[col]]
        for r in range(n):
            if r != col and _nonzero(A[r][col], zero):
                f = A[r][col]
                A[r] = [x - f * y for x, y in zip(A[r], A[col])]
    return [A[r][n] for r in range(n)]  # Z symmetric: the column of Z^{-1} is its row


def readout_maps(remedy: str, G: Sequence[Sequence[Any]], ridge: Any = None) -> list[list[Any]]:
    """m_mu for mu = 1..K: the Ns-free readout map of each step (module docstring, step 3).

    ``G`` is the K x K block Gram (entries of one field), ``ridge`` = 1/gamma - 1 (euclidean).

    >>> half = sp.Rational(1, 2)
    >>> readout_maps("fisher-previous", [[sp.S(1), half], [half, sp.S(1)]])
    [[1, 0], [-2/3, 4/3]]
    """
    rule = _remedy(remedy).rule
    K = len(G)
    zero = G[0][0] * 0
    maps = []
    for mu in range(K):
        m = [zero] * K
        if rule == "least-squares" or (rule.startswith("fisher") and mu == 0):
            m[mu] = 1 / G[mu][mu]
        elif rule == "euclidean":
            m[mu] = 1 / (G[mu][mu] + ridge)
        else:
            metric = [mu - 1] if rule == "fisher-previous" else list(range(mu))
            blocks = metric + [mu]
            row = _solve_row([[G[p][q] for q in blocks] for p in blocks], len(blocks) - 1)
            for p, value in zip(blocks, row):
                m[p] = value
        maps.append(m)
    return maps


def coefficients(maps: Sequence[Sequence[Any]], G: Sequence[Sequence[Any]]
                 ) -> list[list[list[Any]]]:
    """Q_nu = C_nu G for nu = 0..K (C_0 = 0): the outputs of W_nu on every task's input, as
    combinations of the readouts, from C_nu = C_{nu-1} + r_nu m_nu, r_nu = e_nu - Q_{nu-1} e_nu.

    Only what can be nonzero is computed: the terms of m_nu G where m_nu is nonzero (a map
    reads one block, two for the previous task's metric), the rows k <= nu of Q_nu. On floats
    that is the same arithmetic as the full sums (a dropped term is an exact 0 added to a sum
    that starts at +0, G's diagonal being positive), so the same bits.

    >>> coefficients([[1]], [[1]])
    [[[0]], [[1]]]
    """
    K = len(G)
    zero = G[0][0] * 0
    mG = [[sum((m[p] * G[p][q] for p in support), zero) for q in range(K)]
          for m, support in ((m, [p for p in range(K) if _nonzero(m[p], zero)]) for m in maps)]
    Q = [[zero] * K for _ in range(K)]
    out = [Q]
    for mu in range(K):
        # rows k > mu are zero (W_nu reads out tasks 1..nu only) and r[k] = 0 there: kept
        r = [(1 if k == mu else zero) - Q[k][mu] for k in range(mu + 1)]
        Q = [[Q[k][q] + r[k] * mG[mu][q] for q in range(K)] for k in range(mu + 1)] + Q[mu + 1:]
        out.append(Q)
    return out


def _errors(Qs: Sequence[Sequence[Sequence[Any]]], Tb: Sequence[Sequence[Any]]
            ) -> list[list[Any]]:
    """E[mu][nu] = u^T T_b u with u = e_mu - Q_nu e_mu."""
    K = len(Tb)
    zero = Tb[0][0] * 0
    E = [[zero] * (K + 1) for _ in range(K)]
    for nu, Q in enumerate(Qs):
        for mu in range(K):
            u = [(1 if k == mu else zero) - Q[k][mu] for k in range(K)]
            E[mu][nu] = sum((u[k] * Tb[k][l] * u[l] for k in range(K) for l in range(K)), zero)
    return E


_FIELD = sp.QQ.frac_field(*PARAMETERS)


def _inputs(remedy: str, structure: str, K: int
            ) -> tuple[tuple[tuple[sp.Expr, ...], ...], tuple[tuple[sp.Expr, ...], ...], sp.Expr]:
    """The block Gram, the readout correlations and the ridge 1/gamma - 1, as nested tuples."""
    return _gated_inputs(structure, K, _remedy(remedy).gated)


@lru_cache(maxsize=None)
def _gated_inputs(structure: str, K: int, gated: bool
                  ) -> tuple[tuple[tuple[sp.Expr, ...], ...], tuple[tuple[sp.Expr, ...], ...],
                             sp.Expr]:
    """:func:`_inputs`, which depend on the remedy only through its gating (cached once for
    the four ungated remedies)."""
    G = gram_limit(structure, K, gated)
    Tb = readout_limit(structure, K)
    as_rows = lambda M: tuple(tuple(M[p, q] for q in range(K)) for p in range(K))  # noqa: E731
    return as_rows(G), as_rows(Tb), 1 / gamma - 1


def _compiled(remedy: str, structure: str, K: int):
    """The inputs as one function of (rho_a, rho_b, alpha, gamma) floats (``math`` module)."""
    return _compiled_gated(structure, K, _remedy(remedy).gated)


@lru_cache(maxsize=None)
def _compiled_gated(structure: str, K: int, gated: bool):
    """:func:`_compiled` by gating (:func:`_gated_inputs`): one lambdify per Gram."""
    G, Tb, ridge = _gated_inputs(structure, K, gated)
    fn = sp.lambdify(PARAMETERS, [list(map(list, G)), list(map(list, Tb)), ridge], "math")

    def evaluate(*args: float):
        Gf, Tf, r = fn(*args)
        return ([[float(x) for x in row] for row in Gf],
                [[float(x) for x in row] for row in Tf], float(r))

    return evaluate


def _check_point(point: Mapping[str, Any]) -> dict[sp.Symbol, Any]:
    names = {s.name: s for s in PARAMETERS}
    out = {}
    for key, value in point.items():
        if key not in names:
            raise ValueError(f"point keys must be among {', '.join(names)}, got {key!r}")
        if type(value) is float:
            _check_float(key, value)
        else:
            real_in_range(key, value, 0, 1, open_low=key in ("alpha", "gamma"))
        out[names[key]] = value
    return out


@lru_cache(maxsize=None)
def _check_float(key: str, value: float) -> None:
    """:func:`real_in_range` on a float parameter, once per (name, value): the exact check
    (sympy's nsimplify) costs more than the recursion it guards, and a grid repeats its
    values. A value that fails is not cached (lru_cache keeps no exception): it fails again."""
    real_in_range(key, value, 0, 1, open_low=key in ("alpha", "gamma"))


def numeric_inputs(remedy: str, structure: str, K: int, point: Mapping[str, Any]
                   ) -> tuple[list[list[Any]], list[list[Any]], Any]:
    """(G, T_b, 1/gamma - 1) at ``point`` (names -> numbers): floats if every value is a float,
    else exact rationals. Raises ValueError when the remedy needs a parameter the point lacks.

    >>> numeric_inputs("random-gating", "chain", 2, {"rho_a": 0.5, "rho_b": 0.0, "alpha": 0.5})[0]
    [[0.5, 0.125], [0.125, 0.5]]
    """
    spec = _remedy(remedy)
    values = _check_point(point)
    needed = {rho_a, rho_b} | ({alpha} if spec.gated else set()) | (
        {gamma} if spec.rule == "euclidean" else set())
    missing = sorted(x.name for x in needed - set(values))
    if missing:
        raise ValueError(f"point must give {', '.join(missing)} for remedy {remedy}")
    if all(isinstance(v, float) for v in values.values()):
        # parameters the remedy does not use enter as 1/2; they multiply nothing
        return _compiled(remedy, structure, K)(*[float(values.get(x, 0.5)) for x in PARAMETERS])
    G, Tb, ridge = _inputs(remedy, structure, K)
    exact = {x: sp.nsimplify(v, rational=True) for x, v in values.items()}
    rows = lambda M: [[sp.sympify(x).subs(exact) for x in row] for row in M]  # noqa: E731
    return rows(G), rows(Tb), (ridge.subs(exact) if spec.rule == "euclidean" else None)


def leading_errors(remedy: str, structure: str, K: int, *,
                   point: Optional[Mapping[str, Any]] = None) -> sp.Matrix:
    """The leading-order error matrix E[mu - 1, nu] = eps_mu[W_nu] of K tasks (module
    docstring), shape (K, K + 1).

    Without ``point``: exact rational functions of rho_a, rho_b, alpha, gamma (a sympy
    Matrix). With ``point`` (names -> numbers, e.g. ``{"rho_a": 0.5, "rho_b": 0.2}``): the
    same recursion on the numbers (floats stay floats, fractions stay exact), which is fast
    for large K; parameters a remedy does not use may be left out.

    >>> leading_errors("random-gating", "chain", 2)[1, 1]
    alpha**2*rho_a**2 - 2*alpha*rho_a*rho_b + 1
    """
    _remedy(remedy)  # a bad name fails here, naming the remedies
    check_structure(structure)
    K = positive_size("K", K)
    if K < 2:
        raise ValueError(f"K must be an integer >= 2, got {K}")
    if point is None:
        G, Tb, ridge = _inputs(remedy, structure, K)
        Gf = [[_FIELD.from_sympy(x) for x in row] for row in G]
        Tf = [[_FIELD.from_sympy(x) for x in row] for row in Tb]
        r = _FIELD.from_sympy(ridge)
    else:
        Gf, Tf, r = numeric_inputs(remedy, structure, K, point)
    E = _errors(coefficients(readout_maps(remedy, Gf, r), Gf), Tf)
    if point is None:
        return sp.Matrix(K, K + 1, lambda i, j: sp.factor(_FIELD.to_sympy(E[i][j])))
    return sp.Matrix(E)
