"""The exact-solver side of the findings (:mod:`tasksim.reports.findings`): the Fisher
retention at finite size and the K-task ranking's inversions at the paper's sizes.

Seeds derive from the root seed and the check's name only, so a check is determined by its
seed. Gaussian generator for the sequences (Wishart-sampled Grams: cost independent of Nx),
the appendix generator for the Fisher retention (the paper's).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from tasksim.derivations.sequence_algebra import REMEDIES, STRUCTURES
from tasksim.derivations.sequences import RANKING_KS, ranking_inversions
from tasksim.solvers.api import gram_route_solution
from tasksim.solvers.linear_models import solve
from tasksim.solvers.metrics import error_matrix, task_error, transfer_retention
from tasksim.solvers.rng import as_generator
from tasksim.solvers.tasks import draw_tasks

from .figures_config import midpoint_grid
from .figures_numerics import linear_model_sweep
from .figures_sequences import mean_first_task_retention, remedy_parameters

__all__ = ["fisher_retentions", "fisher_retention_draws", "ranking_check", "RankingPart",
           "ranking_sweeps", "ranking_part", "ranking_joined", "PAPER", "QUICK"]

PAPER = {"nx": 3000, "ns": 30, "ny": 10, "side": 10, "seeds": 8}
"""The ranking check at the paper's sizes: a side x side midpoint grid of the prior, paired
seeds (about 80 s on one core)."""
QUICK = {"nx": 240, "ns": 6, "ny": 4, "side": 4, "seeds": 2}


def _root(seed: int, name: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), zlib.crc32(name.encode("utf-8"))])


def fisher_retention_draws(rho_a: float, rho_b: float, nx: int, ns: int, n: int,
                           seed: int = 0, gamma: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(Delta eps_RT, d) for n draws of the appendix generator at the exact Fisher fixed point
    (task 1 unregularized, errors averaged exactly over B): the retention and the rank
    deficiency d = 2 Ns - rank [A_1, A_2] of each draw (d > 0 where a column of A_1 is kept
    whole, probability rho_a^Nx per column)."""
    root = _root(seed, f"fisher-retention@{rho_a},{rho_b},{nx}x{ns}")
    retentions, deficiency = [], []
    for child in root.spawn(n):
        rng = np.random.default_rng(child)
        tasks = draw_tasks(nx=nx, ns=ns, ny=4, rho_a=rho_a, rho_b=rho_b, seed=rng)
        _, retention = transfer_retention(error_matrix(solve("fisher", tasks, gamma=gamma,
                                                             seed=rng), rho_b))
        retentions.append(float(retention[0]))
        stacked = np.hstack([tasks.A[0], tasks.A[1]])  # Nx x 2 Ns: never Nx x Nx
        deficiency.append(2 * ns - int(np.linalg.matrix_rank(stacked)))
    return np.array(retentions), np.array(deficiency)


def fisher_retentions(rho_a: float, rho_b: float, nx: int, ns: int, n: int,
                      seed: int = 0) -> np.ndarray:
    """Delta eps_RT of the exact Fisher fixed point (gamma = 0.5, task 1 unregularized), n
    draws of the appendix generator (:func:`fisher_retention_draws` without the ranks)."""
    return fisher_retention_draws(rho_a, rho_b, nx, ns, n, seed)[0]


def ranking_check(*, quick: bool = False, seed: int = 0
                  ) -> tuple[Callable[[str, str, int], float],
                             Optional[Callable[[str, str, int], tuple[float, float, float]]],
                             tuple[str, ...], tuple[str, ...]]:
    """(theory, measure, remedies, structures) for
    :func:`tasksim.reports.findings.ranking_finding`: the leading-order prior mean of the
    first task's retention on the check's grid, and the exact solvers' paired difference of
    two remedies' prior means with its standard error over seeds and the leading order's
    error on those means."""
    theory = lru_cache(maxsize=None)(partial(_ranking_theory, quick))
    per_seed = lru_cache(maxsize=None)(partial(_ranking_per_seed, quick, seed))
    return theory, _paired_measure(theory, per_seed), tuple(REMEDIES), tuple(STRUCTURES)


@dataclass(frozen=True)
class RankingPart:
    """Part of the ranking check, computed in a piece of its own (:func:`ranking_part`): the
    leading order's prior means by (remedy, structure, K) and the exact solvers' per-seed
    prior means of this part's share of the sweeps."""

    theory: dict[tuple[str, str, int], float]
    per_seed: dict[tuple[str, str, int], np.ndarray]


def ranking_sweeps(theory: Callable[[str, str, int], float]) -> list[tuple[str, str, int]]:
    """The solver sweeps (remedy, structure, K) the ranking check measures, in the order
    :func:`tasksim.reports.findings.ranking_finding` asks for them: both remedies of every
    pair the leading order inverts."""
    out: list[tuple[str, str, int]] = []
    for structure, K, above, below, _ in ranking_inversions(theory, tuple(REMEDIES),
                                                            tuple(STRUCTURES)):
        out += [key for key in ((below, structure, K), (above, structure, K)) if key not in out]
    return out


def ranking_part(part: int, parts: int, *, quick: bool = False, seed: int = 0) -> RankingPart:
    """Part ``part`` of ``parts`` of the ranking check: the whole leading-order table (cheap)
    and the sweeps ``part``, ``part + parts``, ... of :func:`ranking_sweeps` (each sweep's
    seeds fixed by its own name, so the numbers do not depend on ``parts``)."""
    theory = lru_cache(maxsize=None)(partial(_ranking_theory, quick))
    table = {(r, s, K): theory(r, s, K)
             for s in STRUCTURES for K in (2, *RANKING_KS) for r in REMEDIES}
    return RankingPart(table, {key: _ranking_per_seed(quick, seed, *key)
                               for key in ranking_sweeps(theory)[part::parts]})


def ranking_joined(parts: Sequence[RankingPart]
                   ) -> tuple[Callable[[str, str, int], float],
                              Callable[[str, str, int], tuple[float, float, float]],
                              tuple[str, ...], tuple[str, ...]]:
    """:func:`ranking_check`'s (theory, measure, remedies, structures) read from the parts
    (:func:`ranking_part`) that together hold every sweep."""
    table = parts[0].theory
    per_seed = {key: value for p in parts for key, value in p.per_seed.items()}
    theory = lambda r, s, K: table[(r, s, K)]  # noqa: E731
    return (theory, _paired_measure(theory, lambda r, s, K: per_seed[(r, s, K)]),
            tuple(REMEDIES), tuple(STRUCTURES))


def _ranking_theory(quick: bool, remedy: str, structure: str, K: int) -> float:
    """The leading-order prior mean of 1 - eps_1[W_K] on the check's grid."""
    return mean_first_task_retention(remedy, structure, K, (QUICK if quick else PAPER)["side"])


def _ranking_per_seed(quick: bool, seed: int, remedy: str, structure: str, K: int
                      ) -> np.ndarray:
    """The prior mean of 1 - eps_1[W_K] per seed (seed j: the same tasks for every remedy)."""
    size = QUICK if quick else PAPER
    a, b = midpoint_grid(size["side"])
    points = [dict(rho_a=float(x), rho_b=float(y), tasks=K, structure=structure,
                   **remedy_parameters(remedy)) for x, y in zip(a, b)]
    est = linear_model_sweep(REMEDIES[remedy].model, points, nx=size["nx"],
                             ns=size["ns"], ny=size["ny"], seeds=size["seeds"],
                             root=_root(seed, f"ranking@{structure},{K}"),
                             generator="gaussian", sample=first_task_error_samples)
    return 1.0 - np.asarray(est.samples[f"eps_1[W_{K}]"]).mean(axis=0)


def first_task_error_samples(params: Mapping[str, Any],
                             seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """eps_1[W_K] of one sample per seed, K = ``params["tasks"]``: the tasks' Gram and the
    fixed points :func:`tasksim.solvers.api.simulate_samples` draws for the same seeds, and
    the one error the ranking reads (:func:`tasksim.solvers.metrics.task_error`) instead of
    the whole error matrix (a third of a sample's time at K = 10)."""
    if params["gram"] != "wishart":
        raise ValueError("the ranking's samples are drawn on the Gram route (generator "
                         "'gaussian'); got gram=" + repr(params["gram"]))
    K = params["tasks"]
    errors = [task_error(gram_route_solution(params, as_generator(s)), params["rho_b"], 1, K,
                         params["structure"]) for s in seeds]
    return {f"eps_1[W_{K}]": np.array(errors)}


def _paired_measure(theory: Callable[[str, str, int], float],
                    per_seed: Callable[[str, str, int], np.ndarray]
                    ) -> Callable[[str, str, int], tuple[float, float, float]]:
    """measure("first|second", structure, K): the paired mean difference of the per-seed
    prior means, its standard error and the leading order's error on the two means."""
    def measure(pair: str, structure: str, K: int) -> tuple[float, float, float]:
        first, second = pair.split("|")
        x, y = per_seed(first, structure, K), per_seed(second, structure, K)
        d = x - y
        se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("inf")
        error = max(abs(float(x.mean()) - theory(first, structure, K)),
                    abs(float(y.mean()) - theory(second, structure, K)))
        return float(d.mean()), se, error

    return measure
