"""The K-task leading order on a grid of (rho_a, rho_b) in one pass: the recursion of
:mod:`tasksim.derivations.sequence_algebra` run elementwise on numpy arrays, one entry per
point, instead of once per point on floats (the sequences figure's heatmaps and prior means:
a few hundred points at K = 30).

The inputs are the derivation's: the tasks' correlations F F^T from its source factor
(:func:`~tasksim.derivations.sequence_algebra.source_factor`) and the block Gram's pair means
at each correlation (:func:`~tasksim.derivations.sequence_algebra.pair_means`), evaluated on
numbers rather than simplified symbolically (which costs seconds at K = 30). The results
equal the point-by-point recursion to rounding.

Examples
--------
>>> a = np.array([0.5, 0.0]); b = np.array([0.5, 0.0])
>>> first_task_error_on_grid("vanilla", "chain", 40, a, b).round(6).tolist()
[0.25, 0.0]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np
import sympy as sp

from tasksim.derivations.sequence_algebra import (REMEDIES, check_structure, pair_means,
                                                  source_factor)
from tasksim.derivations.sequences import first_task_error_of
from tasksim.derivations.symbols import alpha, rho_a

__all__ = ["grid_inputs", "first_task_error_on_grid"]


@lru_cache(maxsize=None)
def _functions(structure: str, K: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(source factor as a function of rho, pair means as a function of (c, alpha))."""
    factor = sp.lambdify(rho_a, source_factor(structure, K).tolist(), "numpy")
    means = sp.lambdify((rho_a, alpha), list(pair_means()), "numpy")
    return factor, means


def _checked(name: str, values: Any, shape: tuple[int, ...], low_open: bool = False
             ) -> np.ndarray:
    """``values`` as float64 of ``shape``; ValueError unless finite and in [0, 1] (or (0, 1])."""
    x = np.broadcast_to(np.asarray(values, dtype=float), shape)
    bad = ~np.isfinite(x) | (x > 1.0) | ((x <= 0.0) if low_open else (x < 0.0))
    if bad.any():
        where = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must lie in {where}, got {x[bad].flat[0]!r}")
    return x


def _correlations(factor: Callable[..., Any], K: int, rho: np.ndarray
                  ) -> list[list[np.ndarray]]:
    """F F^T at every point: the correlations of the derivation's ``correlation_matrix``."""
    F = factor(rho)
    return [[np.broadcast_to(sum(F[p][k] * F[q][k] for k in range(len(F[0]))), rho.shape)
             for q in range(K)] for p in range(K)]


def grid_inputs(remedy: str, structure: str, K: int, rho_a_values: Any, rho_b_values: Any,
                level: float = 0.5) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]],
                                             np.ndarray]:
    """(G, T_b, 1/gamma - 1) of ``remedy`` at every point of a grid (the values broadcast
    together; ``level`` is alpha for a gated remedy and gamma for the Euclidean ridge): the
    derivation's ``numeric_inputs``, elementwise. ValueError for a value out of its range."""
    if remedy not in REMEDIES:
        raise ValueError(f"remedy must be one of {', '.join(REMEDIES)}, got {remedy!r}")
    check_structure(structure)
    shape = np.broadcast_shapes(np.shape(rho_a_values), np.shape(rho_b_values))
    ra = _checked("rho_a", rho_a_values, shape)
    rb = _checked("rho_b", rho_b_values, shape)
    x = _checked("level", level, shape, low_open=True)
    factor, means = _functions(structure, int(K))
    C = _correlations(factor, K, ra)
    if REMEDIES[remedy].gated:
        G = [[np.broadcast_to(means(C[p][q], x)[1 if p == q else 2], shape) for q in range(K)]
             for p in range(K)]
    else:
        G = [[np.broadcast_to(means(C[p][q], x)[0], shape) for q in range(K)] for p in range(K)]
    return G, _correlations(factor, K, rb), 1.0 / x - 1.0


def first_task_error_on_grid(remedy: str, structure: str, K: int, rho_a_values: Any,
                             rho_b_values: Any, level: float = 0.5) -> np.ndarray:
    """eps_1[W_K] at leading order at every point of a grid (:func:`grid_inputs`), in one
    pass of the derivation's recursion."""
    G, Tb, ridge = grid_inputs(remedy, structure, K, rho_a_values, rho_b_values, level)
    return np.asarray(first_task_error_of(remedy, G, Tb, ridge), dtype=float)
