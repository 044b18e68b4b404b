"""Continual-learning metrics of a sequence of K tasks, from its error matrix.

Two conventions meet here. The solvers' error matrix (:func:`tasksim.solvers.metrics.error_matrix`)
has one row per task and one column per weight, ``E[mu - 1, nu] = eps_mu[W_nu]`` (shape
(K, K + 1)); every function of this module takes that one. The interfaces (``tasksim simulate
--json``, :class:`tasksim.solvers.api.SimulationResult`) show its transpose, one row per weight:
``errors[i][j - 1] = eps_j[W_i]``, i = 0..K, j = 1..K (:func:`by_weight`).

The field's usual summaries (Lopez-Paz and Ranzato, "Gradient episodic memory for continual
learning", 2017; Chaudhry et al., "Riemannian walk for incremental learning", 2018) are
defined on accuracies; here they are written for errors, with signs chosen so that a positive
value is good, as it is for accuracies:

``average_error``
    (1/K) sum_j eps_j[W_K]: the error on every task after the last one (the field's average
    final accuracy, with errors).
``backward_transfer``
    (1/(K - 1)) sum_{j < K} (eps_j[W_j] - eps_j[W_K]): how much the later tasks lowered the
    error of each task after it was learned; negative is forgetting.
``forward_transfer``
    (1/(K - 1)) sum_{j >= 2} (eps_j[W_0] - eps_j[W_{j-1}]): how much the earlier tasks lowered
    the error of each task before it was learned, against the untrained W_0 = 0; it is the
    mean of the paper's Delta eps^TF_j (Appendix A).

The paper's transfer and retention (eq_def_delta_epsilon_TF_RT; per task in Appendix A) extend
to every pair of tasks (:func:`pairwise_transfer`, :func:`pairwise_retention`): the transfer
from tasks 1..mu to a later task nu is eps_nu[W_0] - eps_nu[W_mu], the retention of task mu
after the tasks up to nu > mu is eps_mu[W_0] - eps_mu[W_nu]. For two tasks these are the
paper's Delta eps_TF and Delta eps_RT; Delta eps^TF_nu is the transfer from nu - 1 to nu and
Delta eps^RT_mu the retention of mu after mu + 1.

All of them are linear in the error matrix, so the mean of a metric over samples is the
metric of the mean error matrix; its standard error comes from the per-sample values.

Examples
--------
>>> E = np.array([[1.0, 0.0, 0.3, 0.5],
...               [1.0, 0.6, 0.0, 0.2],
...               [1.0, 0.9, 0.7, 0.0]])     # K = 3 tasks, weights W_0 .. W_3
>>> m = sequence_metrics(E)
>>> round(m["average_error"], 6), round(m["backward_transfer"], 6), round(m["forward_transfer"], 6)
(0.233333, -0.35, 0.35)
>>> by_weight(E)[3].tolist()                  # eps_1, eps_2, eps_3 after the last task
[0.5, 0.2, 0.0]
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "METRICS",
    "check_error_matrix",
    "by_weight",
    "average_error",
    "backward_transfer",
    "forward_transfer",
    "pairwise_transfer",
    "pairwise_retention",
    "sequence_metrics",
]

METRICS: tuple[str, ...] = ("average_error", "backward_transfer", "forward_transfer")
"""The summaries of :func:`sequence_metrics`, in the order the interfaces show them."""


def check_error_matrix(errors: object) -> np.ndarray:
    """An error matrix of K >= 2 tasks as a float array of shape (K, K + 1).

    Examples
    --------
    >>> check_error_matrix(np.zeros((2, 2)))
    Traceback (most recent call last):
    ...
    ValueError: errors must have shape (K, K + 1) with K >= 2 (rows: tasks, columns: W_0 .. W_K), got (2, 2)
    """
    E = np.asarray(errors, dtype=float)
    if E.ndim != 2 or E.shape[1] != E.shape[0] + 1 or E.shape[0] < 2:
        raise ValueError(f"errors must have shape (K, K + 1) with K >= 2 (rows: tasks, "
                         f"columns: W_0 .. W_K), got {E.shape}")
    return E


def by_weight(errors: np.ndarray) -> np.ndarray:
    """The interfaces' convention: ``out[i, j - 1] = eps_j[W_i]``, shape (K + 1, K).

    Examples
    --------
    >>> by_weight(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    array([[1. , 1. ],
           [0. , 0.6],
           [0.3, 0. ]])
    """
    return check_error_matrix(errors).T.copy()


def average_error(errors: np.ndarray) -> float:
    """(1/K) sum_j eps_j[W_K], the average error after the last task.

    Examples
    --------
    >>> average_error(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    0.15
    """
    E = check_error_matrix(errors)
    return float(E[:, -1].mean())


def backward_transfer(errors: np.ndarray) -> float:
    """(1/(K - 1)) sum_{j < K} (eps_j[W_j] - eps_j[W_K]); negative is forgetting.

    Examples
    --------
    >>> backward_transfer(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    -0.3
    """
    E = check_error_matrix(errors)
    K = E.shape[0]
    learned = E[np.arange(K - 1), np.arange(1, K)]
    return float(np.mean(learned - E[:K - 1, -1]))


def forward_transfer(errors: np.ndarray) -> float:
    """(1/(K - 1)) sum_{j >= 2} (eps_j[W_0] - eps_j[W_{j-1}]), the mean Delta eps^TF_j.

    Examples
    --------
    >>> forward_transfer(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    0.4
    """
    E = check_error_matrix(errors)
    K = E.shape[0]
    before = E[np.arange(1, K), np.arange(1, K)]  # eps_j[W_{j-1}], j = 2..K
    return float(np.mean(E[1:, 0] - before))


def pairwise_transfer(errors: np.ndarray) -> np.ndarray:
    """``out[mu - 1, nu - 1] = eps_nu[W_0] - eps_nu[W_mu]`` for mu < nu (NaN elsewhere): the
    transfer from learning tasks 1..mu to task nu.

    Examples
    --------
    >>> pairwise_transfer(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    array([[nan, 0.4],
           [nan, nan]])
    """
    E = check_error_matrix(errors)
    K = E.shape[0]
    out = np.full((K, K), np.nan)
    for mu in range(1, K):
        for nu in range(mu + 1, K + 1):
            out[mu - 1, nu - 1] = E[nu - 1, 0] - E[nu - 1, mu]
    return out


def pairwise_retention(errors: np.ndarray) -> np.ndarray:
    """``out[mu - 1, nu - 1] = eps_mu[W_0] - eps_mu[W_nu]`` for nu > mu (NaN elsewhere): the
    retention of task mu after learning the tasks up to nu.

    Examples
    --------
    >>> pairwise_retention(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]]))
    array([[nan, 0.7],
           [nan, nan]])
    """
    E = check_error_matrix(errors)
    K = E.shape[0]
    out = np.full((K, K), np.nan)
    for mu in range(1, K):
        for nu in range(mu + 1, K + 1):
            out[mu - 1, nu - 1] = E[mu - 1, 0] - E[mu - 1, nu]
    return out


def sequence_metrics(errors: np.ndarray) -> dict[str, float]:
    """The three summaries of the module docstring, by name (:data:`METRICS`).

    Examples
    --------
    >>> sorted(sequence_metrics(np.array([[1.0, 0.0, 0.3], [1.0, 0.6, 0.0]])))
    ['average_error', 'backward_transfer', 'forward_transfer']
    """
    return {"average_error": average_error(errors),
            "backward_transfer": backward_transfer(errors),
            "forward_transfer": forward_transfer(errors)}
