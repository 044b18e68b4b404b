"""Beyond two tasks: the leading-order error matrix of K tasks for vanilla learning and the
paper's linear remedies, registered as claims (Sec. 3 and Appendix A define the sequence; the
paper analyses K = 2 only, so the claims about K tasks are ``open``: nothing is printed to
compare with; the K = 2 checks compare with the printed two-task formulas).

What is derived (:mod:`tasksim.derivations.sequence_algebra` for the route and its steps;
remedy names appear in ids with underscores, :func:`claim_id`):

- ``sequences.<remedy>.<structure>.errors``: the error matrix E[mu - 1, nu] = eps_mu[W_nu] at
  leading order in Ns/Nx for each K = 2 .. :data:`MAX_K` (the claim's value is the last; the
  steps hold every K), for the remedies vanilla, random gating, Euclidean and Fisher with the
  previous task's or the accumulated metric, in the ``chain`` (correlation rho^|mu - nu|) and
  ``shared`` (pairwise rho) structures. No closed form in K is derived here: each K is an
  exact rational function of rho_a, rho_b, alpha, gamma; larger K are evaluated by the same
  recursion on numbers (:func:`first_task_errors`), which is what the report's curves and its
  statement about K -> infinity use.
- ``sequences.<remedy>.<structure>.two_tasks``: the K-task algebra at K = 2 reproduces the
  paper's printed transfer and retention (eq_epsilon_vanilla, eq_rcg_epsilon_TF/RT,
  eq_wr_epsilon_TF, Fisher's Delta eps_RT = 1 for rho_a < 1, Sec. 6.2): a check of the route.
- ``sequences.fisher_accumulated.never_forgets``: with the accumulated metric every task is
  kept exactly, E[j - 1, i] = 0 for all j <= i, for both structures and every K <= MAX_K; the
  reason holds for every K: the step's readout map is the fit row of Z^{-1}, Z the Gram of
  [metric blocks, fit block], so applied to any earlier task's column (a column of Z) it
  gives 0. The same holds for the previous task's metric in the chain
  (``sequences.fisher_previous.chain.never_forgets``): a_mu - rho a_{mu-1} is orthogonal to
  every earlier task there, but not in the shared structure.
- ``sequences.ranking``: the first task's retention after K tasks, 1 - eps_1[W_K], averaged over
  the uniform prior on (rho_a, rho_b) in [0, 1]^2 (the paper's averages, Figs. 2D, 4D, 5C),
  for each remedy at alpha = gamma = 1/2, at K = 2 and K = MAX_K: true when no remedy
  overtakes one that ranked above it at K = 2 (:func:`inversions`).

Examples
--------
>>> half = {rho_a: sp.Rational(1, 2), rho_b: sp.Rational(1, 2)}
>>> [leading_errors("vanilla", s, 3)[0, 2:].subs(half) for s in STRUCTURES]  # eps_1[W_2], eps_1[W_3]
[Matrix([[3/16, 15/64]]), Matrix([[3/16, 19/64]])]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import mpmath
import sympy as sp

from .claims import Claim, Derivation, Step
from .sequence_algebra import (REMEDIES, STRUCTURES, coefficients, correlation_matrix,
                               gram_limit, leading_errors, numeric_inputs, readout_limit,
                               readout_maps)
from .symbols import alpha, gamma, rho_a, rho_b

__all__ = [
    "MAX_K",
    "claim_id",
    "RANKING_LEVEL",
    "leading_errors",
    "first_task_errors",
    "first_task_error",
    "first_task_error_of",
    "error_matrices",
    "two_task_values",
    "prior_average_retention",
    "ranking",
    "inversions",
    "RANKING_KS",
    "ranking_inversions",
    "CLAIMS",
]

MAX_K = 5
"""The largest K derived symbolically for the claims (the issue asks for K <= 5 at least)."""
RANKING_LEVEL = sp.Rational(1, 2)
"""alpha (random gating) and gamma (Euclidean) of the ranking: the middle of (0, 1]."""


def claim_id(remedy: str, *parts: str) -> str:
    """The id of a claim about ``remedy`` (hyphens become underscores, as in every id).

    >>> claim_id("random-gating", "chain", "errors")
    'sequences.random_gating.chain.errors'
    """
    if remedy not in REMEDIES:
        raise ValueError(f"remedy must be one of {', '.join(REMEDIES)}, got {remedy!r}")
    return ".".join(("sequences", remedy.replace("-", "_")) + parts)


def error_matrices(remedy: str, structure: str, max_k: int = MAX_K) -> tuple[sp.Matrix, ...]:
    """The leading-order error matrices for K = 2 .. max_k.

    >>> [E.shape for E in error_matrices("vanilla", "chain", 3)]
    [(2, 3), (3, 4)]

    Cached per (remedy, structure, K), however ``max_k`` is passed (positionally, by name or
    by default), so that the claims that read them share one derivation.
    """
    return tuple(_error_matrix(remedy, structure, K) for K in range(2, max_k + 1))


@lru_cache(maxsize=None)
def _error_matrix(remedy: str, structure: str, K: int) -> sp.Matrix:
    return leading_errors(remedy, structure, K)


def first_task_errors(remedy: str, structure: str, K: int, point: Mapping[str, float]
                      ) -> list[float]:
    """eps_1[W_nu] for nu = 0 .. K at leading order, on numbers (float ``point`` values):
    the recursion of :mod:`tasksim.derivations.sequence_algebra` restricted to the first task,
    O(K^3) operations, so K in the hundreds is quick.

    >>> e = first_task_errors("vanilla", "chain", 40, {"rho_a": 0.5, "rho_b": 0.5})
    >>> round(e[2], 6), round(e[40], 6)        # rho^2 (1 - rho^(2(K - 1))) -> rho^2 = 0.25
    (0.1875, 0.25)
    """
    G, Tb, ridge = numeric_inputs(remedy, structure, K, point)
    return [_first_task_error(Q, Tb) for Q in coefficients(readout_maps(remedy, G, ridge), G)]


def first_task_error(remedy: str, structure: str, K: int, point: Mapping[str, float]) -> float:
    """eps_1[W_K] alone: ``first_task_errors(remedy, structure, K, point)[K]`` (the same
    operations, so the same number) without the K errors before it.

    >>> point = {"rho_a": 0.5, "rho_b": 0.5}
    >>> last = first_task_errors("vanilla", "chain", 40, point)[40]
    >>> first_task_error("vanilla", "chain", 40, point) == last
    True
    """
    return first_task_error_of(remedy, *numeric_inputs(remedy, structure, K, point))


def first_task_error_of(remedy: str, G: Sequence[Sequence[Any]], Tb: Sequence[Sequence[Any]],
                        ridge: Any) -> Any:
    """eps_1[W_K] from the K x K block Gram ``G``, the readouts' correlations ``Tb`` and the
    ridge 1/gamma - 1 (:func:`tasksim.derivations.sequence_algebra.numeric_inputs`): the
    recursion over any field, so also elementwise on arrays holding a grid of points.

    >>> first_task_error_of("vanilla", [[1.0, 0.5], [0.5, 1.0]], [[1.0, 0.5], [0.5, 1.0]], 0.0)
    0.1875
    """
    return _first_task_error(coefficients(readout_maps(remedy, G, ridge), G)[-1], Tb)


def _first_task_error(Q: list[list[float]], Tb: list[list[float]]) -> float:
    """u^T T_b u with u = e_1 - Q e_1: the first task's error of the weights whose
    coefficients are Q (:func:`tasksim.derivations.sequence_algebra.coefficients`)."""
    K = len(Tb)
    u = [(1.0 if k == 0 else 0.0) - Q[k][0] for k in range(K)]
    return sum(u[k] * Tb[k][l] * u[l] for k in range(K) for l in range(K))


# -- two tasks: the paper's printed forms -----------------------------------------------------

_PRINTED_TWO_TASKS: dict[str, tuple[sp.Expr, sp.Expr, str]] = {
    "vanilla": (rho_a * (2 * rho_b - rho_a), 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1),
                "eq_epsilon_vanilla"),
    "random-gating": (alpha * rho_a * (2 * rho_b - alpha * rho_a),
                      1 - alpha**2 * rho_a**2 * (alpha**2 * rho_a**2 - 2 * alpha * rho_a * rho_b
                                                 + 1), "eq_rcg_epsilon_TF, eq_rcg_epsilon_RT"),
    "euclidean": (gamma * rho_a * (2 * rho_b - gamma * rho_a),
                  1 - gamma**2 * rho_a**2 * (1 - 2 * gamma * rho_a * rho_b + gamma**2 * rho_a**2)
                  + 2 * gamma * rho_a * (1 - gamma) * (rho_b - gamma * rho_a) - (1 - gamma)**2,
                  "eq_wr_epsilon_TF"),
    "fisher-previous": (rho_a * (2 * rho_b - rho_a), sp.Integer(1),
                        "Sec. 6.2: transfer as vanilla, Delta eps_RT = 1 for rho_a < 1"),
    "fisher-accumulated": (rho_a * (2 * rho_b - rho_a), sp.Integer(1),
                           "Sec. 6.2 (two tasks: the accumulated metric is the previous one)"),
}
"""(Delta eps_TF, Delta eps_RT) of two tasks as the paper prints them (typed from paper.tex)."""


def two_task_values(remedy: str, structure: str) -> sp.Tuple:
    """(Delta eps_TF, Delta eps_RT) = (eps_2[W_0] - eps_2[W_1], eps_1[W_0] - eps_1[W_2]) from
    the K-task algebra at K = 2.

    >>> two_task_values("euclidean", "chain")[0]
    -gamma*rho_a*(gamma*rho_a - 2*rho_b)
    """
    E = error_matrices(remedy, structure)[0]
    return sp.Tuple(sp.factor(E[1, 0] - E[1, 1]), sp.factor(E[0, 0] - E[0, 2]))


# -- averages over the uniform prior and the ranking -----------------------------------------

def _average(expr: sp.Expr) -> sp.Expr:
    """The mean of expr over (rho_a, rho_b) uniform on [0, 1]^2: exact for polynomials,
    30-digit quadrature otherwise."""
    expr = sp.together(expr)
    if sp.fraction(expr)[1].free_symbols & {rho_a, rho_b}:
        fn = sp.lambdify((rho_a, rho_b), expr, "mpmath")
        with mpmath.workdps(30):
            return sp.Float(mpmath.quad(fn, [0, 1], [0, 1]), 20)
    return sp.integrate(sp.expand(expr), (rho_a, 0, 1), (rho_b, 0, 1))


@lru_cache(maxsize=None)
def prior_average_retention(remedy: str, structure: str, K: int) -> sp.Expr:
    """The first task's retention after K tasks, 1 - eps_1[W_K], averaged over the uniform
    prior on (rho_a, rho_b), at alpha = gamma = :data:`RANKING_LEVEL`.

    >>> prior_average_retention("vanilla", "chain", 2)    # Sec. 4.1: 43/60
    43/60

    Cached: the ranking claim reads each value twice (its steps, then its inversions), and
    the exact average over the prior is most of its cost.
    """
    E = error_matrices(remedy, structure, max(K, MAX_K))[K - 2]
    value = (1 - E[0, K]).subs({alpha: RANKING_LEVEL, gamma: RANKING_LEVEL})
    return _average(value)


def ranking(structure: str, K: int) -> tuple[tuple[str, sp.Expr], ...]:
    """The remedies by their :func:`prior_average_retention`, best first (ties by name).

    >>> [name for name, _ in ranking("chain", 2)]
    ['fisher-accumulated', 'fisher-previous', 'random-gating', 'euclidean', 'vanilla']
    """
    values = [(name, prior_average_retention(name, structure, K)) for name in REMEDIES]
    return tuple(sorted(values, key=lambda item: (-float(item[1]), item[0])))


def inversions(before: Mapping[str, float], after: Mapping[str, float],
               tol: float = 1e-9) -> list[tuple[str, str]]:
    """Pairs (a, b) with a above b ``before`` and b above a ``after``; equal values (to
    ``tol``) have no order, so a tie that splits is not an inversion.

    >>> inversions({"x": 1.0, "y": 0.5, "z": 0.5}, {"x": 0.4, "y": 0.6, "z": 0.7})
    [('x', 'y'), ('x', 'z')]
    """
    return [(a, b) for a in before for b in before
            if float(before[a]) > float(before[b]) + tol
            and float(after[b]) > float(after[a]) + tol]


RANKING_KS: tuple[int, ...] = (5, 10)
"""The numbers of tasks at which the report's K-task ranking finding compares the ranking
with the two-task one (:func:`ranking_inversions`)."""


def ranking_inversions(theory: Callable[[str, str, int], float], remedies: Sequence[str],
                       structures: Sequence[str], Ks: Sequence[int] = RANKING_KS
                       ) -> list[tuple[str, int, str, str, float]]:
    """(structure, K, above, below, margin) for every pair of remedies whose two-task order
    the leading order inverts at K tasks (``below`` now above ``above`` by ``margin``), in
    the order the report's finding lists them: the pairs the exact solvers must decide.

    >>> toy = lambda r, s, K: {"a": 1.0, "b": 0.5 if K == 2 else 2.0}[r]
    >>> ranking_inversions(toy, ("a", "b"), ("chain",), Ks=(5,))
    [('chain', 5, 'a', 'b', 1.0)]
    """
    out = []
    for structure in structures:
        base = {r: theory(r, structure, 2) for r in remedies}
        for K in Ks:
            now = {r: theory(r, structure, K) for r in remedies}
            out += [(structure, K, above, below, now[below] - now[above])
                    for above, below in inversions(base, now)]
    return out


# -- claims ------------------------------------------------------------------------------------

def _route_steps(remedy: str, structure: str) -> tuple[Step, ...]:
    spec = REMEDIES[remedy]
    return (
        Step("task correlations (generator construction, K = 3)",
             correlation_matrix(structure, 3), "pairs of a K-task sequence have the two-task "
             "law with these correlations"),
        Step("Gram surrogate: (Ns/Nx) X^T X -> g (engine's two-task means)",
             gram_limit(structure, 3, spec.gated), "eq_AtA_approx, eq_ap_DAtDA_approx"),
        Step("readout correlations", readout_limit(structure, 3)),
    )


def _derive_errors(remedy: str, structure: str):
    def derive() -> Derivation:
        matrices = error_matrices(remedy, structure)
        steps = _route_steps(remedy, structure) + tuple(
            Step(f"E[mu-1, nu] = eps_mu[W_nu], K = {E.shape[0]}", E) for E in matrices)
        return Derivation(matrices[-1], steps, exact=False,
                          note=f"leading order in Ns/Nx; each K = 2..{MAX_K} derived (steps); "
                               "the paper analyses two tasks")
    return derive


def _derive_two_tasks(remedy: str, structure: str):
    def derive() -> Derivation:
        value = two_task_values(remedy, structure)
        return Derivation(value, _route_steps(remedy, structure) + (
            Step("(Delta eps_TF, Delta eps_RT) at K = 2", value),), exact=False,
            note="the K-task algebra at K = 2")
    return derive


def _two_task_equal(a: sp.Basic, b: sp.Basic) -> bool:
    return all(sp.simplify(x - y) == 0 for x, y in zip(a, b))


def _derive_never_forgets(remedy: str, structures: tuple[str, ...]):
    def derive() -> Derivation:
        steps, kept = [], True
        for structure in structures:
            for E in error_matrices(remedy, structure):
                K = E.shape[0]
                learned = sp.Matrix(K, K, lambda j, i: E[j, i + 1] if j <= i else 0)
                kept = kept and all(sp.simplify(x) == 0 for x in learned)
                steps.append(Step(f"{structure}, K = {K}: eps_j[W_i] for j <= i", learned))
        return Derivation(sp.true if kept else sp.false, tuple(steps), exact=False,
                          note=f"checked for K = 2..{MAX_K}; for every K: the readout map "
                               "annihilates the columns of earlier tasks (module docstring)")
    return derive


def _ordered(ranked: tuple[tuple[str, sp.Expr], ...], values: bool) -> str:
    """``a > b = c``: the names best first, '=' between equal values (to 1e-12)."""
    text = ranked[0][0] + (f" {float(ranked[0][1]):.3f}" if values else "")
    for (_, before), (name, value) in zip(ranked, ranked[1:]):
        text += (" = " if abs(float(before) - float(value)) <= 1e-12 else " > ") + name
        text += f" {float(value):.3f}" if values else ""
    return text


def _derive_ranking() -> Derivation:
    steps, summary = [], []
    for structure in STRUCTURES:
        for K in (2, MAX_K):
            ranked = ranking(structure, K)
            steps.append(Step(f"{structure}, K = {K}: mean retention of task 1",
                              sp.Tuple(*[v for _, v in ranked]), _ordered(ranked, False)))
            summary.append(f"{structure} K={K}: {_ordered(ranked, True)}")
    flips = {s: inversions(dict(ranking(s, 2)), dict(ranking(s, MAX_K))) for s in STRUCTURES}
    same = not any(flips.values())
    summary += [f"{s}: {b} overtakes {a}" for s, pairs in flips.items() for a, b in pairs]
    return Derivation(sp.true if same else sp.false, tuple(steps), exact=False,
                      note="; ".join(summary) + f" (alpha = gamma = {RANKING_LEVEL})")


_WHERE = "Appendix A (K tasks); Sec. 3 model"
_WHERE_OF = {
    "vanilla": "Appendix A, beyond N_sess = 2: Sec. 4 (vanilla) extended to K tasks",
    "random-gating": "Appendix A, beyond N_sess = 2: Sec. 5.1 (random activity gating) "
                     "extended to K tasks (Appendix B.1)",
    "euclidean": "Appendix A, beyond N_sess = 2: Sec. 6.1 (Euclidean regularization) extended "
                 "to K tasks (Appendix C.1)",
    "fisher-previous": "Appendix A, beyond N_sess = 2: Sec. 6.2 (Fisher regularization, "
                       "previous task's metric) extended to K tasks (Appendix C.2)",
    "fisher-accumulated": "Appendix A, beyond N_sess = 2: Sec. 6.2 with the accumulated metric "
                          "(online consolidation), K tasks (Appendix C.2)",
}

ANCHOR_LINE = 409
ANCHOR = r"Below, we focus on learning of $N_{sess} = 2$ tasks."
"""Where the paper restricts itself to two tasks (Appendix A): every claim of this module
stands at that sentence, but none is a verdict on it (a scoping sentence, out of scope in
:mod:`tasksim.derivations.scope`): they are findings beyond the paper (``finding``), which
the report lists in a section of their own."""


def _claims() -> list[Claim]:
    claims = []
    for remedy in REMEDIES:
        transfer, retention, label = _PRINTED_TWO_TASKS[remedy]
        for structure in STRUCTURES:
            claims.append(Claim(
                claim_id(remedy, structure, "errors"), _WHERE_OF[remedy], None, ANCHOR,
                _derive_errors(remedy, structure), line=ANCHOR_LINE, finding="k-task-sequences",
                note=f"not printed (the paper analyses two tasks): the error matrix of K tasks, "
                     f"{structure} structure"))
            claims.append(Claim(
                claim_id(remedy, structure, "two_tasks"), _WHERE_OF[remedy],
                sp.Tuple(transfer, retention), ANCHOR,
                _derive_two_tasks(remedy, structure), equivalent=_two_task_equal,
                line=ANCHOR_LINE, finding="k-task-sequences",
                note=f"read as: the K-task derivation at K = 2 equals the paper's two-task "
                     f"formulas ({label})"))
    claims.append(Claim(
        claim_id("fisher-accumulated", "never_forgets"), _WHERE_OF["fisher-accumulated"], None,
        ANCHOR, _derive_never_forgets("fisher-accumulated", STRUCTURES), line=ANCHOR_LINE,
        finding="k-task-sequences",
        note="not printed: every learned task is kept exactly, any structure"))
    claims.append(Claim(
        claim_id("fisher-previous", "chain", "never_forgets"), _WHERE_OF["fisher-previous"], None,
        ANCHOR, _derive_never_forgets("fisher-previous", ("chain",)), line=ANCHOR_LINE,
        finding="k-task-sequences",
        note="not printed: the previous task's metric suffices in the chain (not in the shared "
             "structure)"))
    claims.append(Claim(
        "sequences.ranking", "Appendix A, beyond N_sess = 2: the comparison of remedies of "
        "Secs. 5-6 at K tasks", None, ANCHOR, _derive_ranking, line=ANCHOR_LINE, finding="k-task-ranking",
        condition="leading order in Ns/Nx; uniform prior over (rho_a, rho_b)",
        note="not printed (the paper analyses two tasks); true when no remedy overtakes one ranked above it at K = 2 (mean retention of "
             f"task 1, K = {MAX_K}, both structures; a tie may split)"))
    return claims


CLAIMS: list[Claim] = _claims()
