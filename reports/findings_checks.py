"""The exact-solver side of the findings (:mod:`tasksim.reports.findings`): the Fisher
retention at finite size and the K-task ranking's inversions at the paper's sizes.

Seeds derive from the root seed and the check's name only, so a check is determined by its
seed. Gaussian generator for the sequences (Wishart-sampled Grams: cost independent of Nx),
the appendix generator for the Fisher retention (the paper's).
"""
from __future__ import annotations

import zlib
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from tasksim.derivations.sequence_algebra import REMEDIES, STRUCTURES
from tasksim.solvers.linear_models import solve
from tasksim.solvers.metrics import error_matrix, transfer_retention
from tasksim.solvers.tasks import draw_tasks

from .figures_config import midpoint_grid
from .figures_numerics import linear_model_sweep
from .figures_sequences import mean_first_task_retention, remedy_parameters

__all__ = ["fisher_retentions", "fisher_retention_draws", "ranking_check", "PAPER", "QUICK"]

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
    size = QUICK if quick else PAPER

    @lru_cache(maxsize=None)
    def theory(remedy: str, structure: str, K: int) -> float:
        return mean_first_task_retention(remedy, structure, K, size["side"])

    @lru_cache(maxsize=None)
    def per_seed(remedy: str, structure: str, K: int) -> np.ndarray:
        """The prior mean of 1 - eps_1[W_K] per seed (seed j: the same tasks for every
        remedy)."""
        a, b = midpoint_grid(size["side"])
        points = [dict(rho_a=float(x), rho_b=float(y), tasks=K, structure=structure,
                       **remedy_parameters(remedy)) for x, y in zip(a, b)]
        est = linear_model_sweep(REMEDIES[remedy].model, points, nx=size["nx"],
                                 ns=size["ns"], ny=size["ny"], seeds=size["seeds"],
                                 root=_root(seed, f"ranking@{structure},{K}"),
                                 generator="gaussian")
        return 1.0 - np.asarray(est.samples[f"eps_1[W_{K}]"]).mean(axis=0)

    def measure(pair: str, structure: str, K: int) -> tuple[float, float, float]:
        first, second = pair.split("|")
        x, y = per_seed(first, structure, K), per_seed(second, structure, K)
        d = x - y
        se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("inf")
        error = max(abs(float(x.mean()) - theory(first, structure, K)),
                    abs(float(y.mean()) - theory(second, structure, K)))
        return float(d.mean()), se, error

    return theory, measure, tuple(REMEDIES), tuple(STRUCTURES)
