"""Sequences of K tasks (beyond the paper's two; Appendix A defines them): the leading-order
error matrices of ``sequences.<remedy>.<structure>.errors`` (remedy with underscores) against the exact solvers.

Every entry eps_mu[W_nu] of the derived K = 4 matrix is compared with the mean over samples of
the exact fixed points (errors averaged exactly over B given A), under the rule of
:mod:`verify.tolerances` for a leading-order formula: Wishart-sampled Grams (gaussian
generator) at Nx = 10^6 Ns, where the first-order allowance is below a standard error; and the
appendix generator with explicit matrices at Nx = 2 10^4 Ns, for the two structures' own
construction (kept entries, the shared parent). The claims that need no sampling (Fisher with
the accumulated metric keeps every task exactly, at any size) are checked per sample.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tasksim.derivations.sequence_algebra import REMEDIES, STRUCTURES
from tasksim.derivations.sequences import claim_id
from tasksim.solvers.api import simulate
from tasksim.solvers.sweep import Estimate
from verify import estimators as E
from verify import theory
from verify.tolerances import ATOL, assert_agrees

K = 4
POINT = {"rho_a": 0.7, "rho_b": 0.4, "alpha": 0.5, "gamma": 0.5}
ASYMPTOTIC = 10**6


def _levels(remedy: str) -> dict:
    spec = REMEDIES[remedy]
    out = {}
    if spec.gated:
        out["alpha"] = POINT["alpha"]
    if spec.rule == "euclidean":
        out["gamma"] = POINT["gamma"]
    if spec.model == "fisher":
        out["gamma"] = POINT["gamma"]  # lambda > 0; the leading order does not depend on it
        out["penalty"] = spec.penalty
    return out


def _predicted(remedy: str, structure: str) -> list[list[float]]:
    """The derived matrix, in the interfaces' convention (rows W_0..W_K, columns tasks)."""
    fn = theory.step_matrix_function(claim_id(remedy, structure, "errors"),
                                     f"E[mu-1, nu] = eps_mu[W_nu], K = {K}")
    by_task = fn(**POINT)
    return [[by_task[j][i] for j in range(K)] for i in range(K + 1)]


def _compare_every_entry(label: str, result, predicted, scale: float) -> None:
    for i in range(K + 1):
        for j in range(K):
            est = Estimate(float(result.errors.mean[i, j]), float(result.errors.sem[i, j]),
                           result.transfer.n)
            assert_agrees(f"{label} eps_{j + 1}[W_{i}]", est, predicted[i][j],
                          kind="leading", scale=scale)


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("remedy", list(REMEDIES))
def test_exact_solvers_converge_to_the_leading_order_error_matrix(remedy, structure):
    """Every eps_mu[W_nu] of K = 4 tasks at (rho_a, rho_b) = (0.7, 0.4), alpha = gamma = 0.5,
    Nx = 10^6 Ns, gaussian generator (Wishart-sampled Grams), 200 samples."""
    spec = REMEDIES[remedy]
    ns = 6
    nx = ASYMPTOTIC * ns
    result = simulate(spec.model, rho_a=POINT["rho_a"], rho_b=POINT["rho_b"], nx=nx, ns=ns,
                      ny=4, seeds=200, seed=91, generator="gaussian", tasks=K,
                      structure=structure, **_levels(remedy))
    assert result.params["gram"] == "wishart"
    scale = E.small_parameter(nx, ns, POINT["alpha"] if spec.gated else None)
    _compare_every_entry(f"{remedy} {structure}", result, _predicted(remedy, structure), scale)


@pytest.mark.parametrize("remedy, structure", [("vanilla", "shared"), ("random-gating", "chain"),
                                               ("fisher-previous", "shared")])
def test_the_appendix_generator_has_the_same_leading_order(remedy, structure):
    """The structures' appendix construction (entries kept along the chain or from the shared
    parent) has the pairs the derivation assumes: explicit matrices, Nx = 2 10^4 Ns, 60
    samples."""
    spec = REMEDIES[remedy]
    ns = 4
    nx = 20_000 * ns
    result = simulate(spec.model, rho_a=POINT["rho_a"], rho_b=POINT["rho_b"], nx=nx, ns=ns,
                      ny=4, seeds=60, seed=92, generator="appendix", tasks=K,
                      structure=structure, **_levels(remedy))
    scale = E.small_parameter(nx, ns, POINT["alpha"] if spec.gated else None)
    _compare_every_entry(f"{remedy} {structure} appendix", result,
                         _predicted(remedy, structure), scale)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_the_accumulated_fisher_metric_keeps_every_task_exactly_at_finite_size(structure):
    """sequences.fisher_accumulated.never_forgets holds per sample at Nx = 12 Ns (K Ns <= Nx),
    not only at leading order: eps_j[W_i] = 0 for every j <= i."""
    assert theory.verdict(claim_id("fisher-accumulated", "never_forgets")).derived == sp.true
    result = simulate("fisher", rho_a=0.6, rho_b=0.3, gamma=0.5, penalty="accumulated",
                      nx=60, ns=5, ny=3, seeds=10, seed=93, generator="appendix", tasks=K,
                      structure=structure)
    samples = result.errors.samples  # (seeds, W_0..W_K, tasks)
    worst = max(float(np.max(np.abs(samples[:, i, j - 1])))
                for i in range(1, K + 1) for j in range(1, i + 1))
    assert worst <= ATOL, f"a learned task was forgotten by {worst:.3g}"


def test_the_previous_fisher_metric_forgets_in_the_shared_structure():
    """The contrast the claims draw: with the previous task's metric only, task 1 is forgotten
    once a task two steps later is learned in the shared structure (derived eps_1[W_3] > 0),
    and the exact solvers agree that it is."""
    predicted = _predicted("fisher-previous", "shared")
    assert predicted[3][0] > 0.01
    result = simulate("fisher", rho_a=POINT["rho_a"], rho_b=POINT["rho_b"], gamma=0.5,
                      nx=ASYMPTOTIC * 6, ns=6, ny=4, seeds=100, seed=94,
                      generator="gaussian", tasks=K, structure="shared")
    assert float(result.errors.mean[3, 0]) > 10 * float(result.errors.sem[3, 0])
