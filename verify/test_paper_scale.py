"""Paper-scale statistics (run with ``pytest verify --paper-scale``; skipped otherwise).

The paper's numerical protocol (Appendix E.1, subsec_linear_st_implementation): Nx = 3000,
Ns = 30, Ny = 10, the appendix generator, zero initialization, full-batch GD with
eta = 0.001 for 100 epochs per task (vanilla, activity gating) or 500 (the other models),
errors on the drawn readouts, 10 seeds per point; averages over 100 uniformly drawn pairs
(rho_a, rho_b). Each mean is compared with the registry's leading-order value under the
``leading`` tolerance at Ns/(alpha Nx) (verify/tolerances.py; 10 seeds use Student's t
threshold, about 12 sems).

- eq_epsilon_vanilla on the full 6 x 6 grid of (rho_a, rho_b) in {0, 0.2, .., 1}, point by
  point and pooled over the grid (10 seeds with the drawn readouts' noise resolve a single
  point to about +-0.3; the pooled deviation to about +-0.05);
- eq_rcg_epsilon_TF/RT (random gating), the adaptive gating of Appendix B.1 with the paper's
  sampled probe, plasticity gating and eq_wr_epsilon_TF (Euclidean) on a 3 x 3 grid, point
  by point and pooled;
- Fisher regularization at the exact fixed point (the GD protocol does not converge in 500
  epochs for weak regularization: tests/test_gd.py), with the appendix generator;
- input soft-thresholding at the exact gradient-flow limit (retention = transfer in mean,
  the erratum soft_threshold.retention_with_diagonal) and with the paper's protocol (5,000
  steps, eta = 0.01, exact expected gradients): the printed alpha-invariance fails there
  (a finding, asserted);
- the averages over a uniform prior (vanilla 1/6 and 43/60, random gating at alpha = 3/4).

The whole module takes about 20 minutes on one core of the development machine.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from tasksim.solvers.api import simulate
from tasksim.solvers.soft_threshold import prepare_soft_threshold, solve_soft_threshold
from tasksim.solvers.tasks import draw_tasks
from verify import estimators as E
from verify import theory
from verify.tolerances import assert_agrees, assert_distinguishes, assert_exceeds

pytestmark = pytest.mark.paper_scale

NX, NS, NY, SEEDS = 3000, 30, 10, 10
FULL_GRID = [(a / 5, b / 5) for a in range(6) for b in range(6)]
COARSE_GRID = [(a, b) for a in (0.2, 0.6, 1.0) for b in (0.2, 0.6, 1.0)]


@lru_cache(maxsize=None)
def _gd_samples(model: str, rho_a: float, rho_b: float, seed: int,
                level: tuple[tuple[str, float], ...] = ()) -> np.ndarray:
    """Per-seed (transfer, retention) of the paper's GD protocol, shape (SEEDS, 2)."""
    return simulate(model, rho_a=rho_a, rho_b=rho_b, nx=NX, ns=NS, ny=NY, seeds=SEEDS,
                    seed=seed, generator="appendix", method="gd", **dict(level)).samples


def _gd(model: str, rho_a: float, rho_b: float, seed: int, **level) -> E.Pair:
    samples = _gd_samples(model, rho_a, rho_b, seed, tuple(sorted(level.items())))
    return E.Pair(E.estimate(samples[:, 0]), E.estimate(samples[:, 1]))


def _check(label: str, measured: E.Pair, predicted: E.Pair, alpha: float = 1.0) -> None:
    scale = E.small_parameter(NX, NS, alpha)
    failures = []
    for name in ("transfer", "retention"):
        try:
            assert_agrees(f"{label} {name}", getattr(measured, name),
                          getattr(predicted, name).mean, kind="leading", scale=scale)
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "; ".join(failures)


@pytest.mark.parametrize("rho_a, rho_b", FULL_GRID)
def test_vanilla_gd_protocol_follows_eq_epsilon_vanilla_on_the_full_grid(rho_a, rho_b):
    measured = _gd("vanilla", rho_a, rho_b, seed=101)
    _check(f"paper-scale vanilla ({rho_a}, {rho_b})", measured,
           E.theory_pair("vanilla.transfer", "vanilla.retention", rho_a=rho_a, rho_b=rho_b))


def test_vanilla_gd_protocol_pooled_over_the_full_grid_follows_eq_epsilon_vanilla():
    """The deviation from eq_epsilon_vanilla pooled over the 36 grid points x 10 seeds: a
    bias of the protocol (e.g. unconverged GD) that single points cannot resolve with 10
    seeds would show here (the per-point test allows about 12 sems)."""
    transfer = theory.function("vanilla.transfer", "leading")
    retention = theory.function("vanilla.retention", "leading")
    deviations = []
    for rho_a, rho_b in FULL_GRID:
        samples = _gd_samples("vanilla", rho_a, rho_b, 101)
        deviations.append(np.stack([samples[:, 0] - transfer(rho_a=rho_a, rho_b=rho_b),
                                    samples[:, 1] - retention(rho_a=rho_a, rho_b=rho_b)], 1))
    pooled = np.concatenate(deviations)
    scale = E.small_parameter(NX, NS)
    for k, name in enumerate(("transfer", "retention")):
        assert_agrees(f"paper-scale vanilla {name}, deviation pooled over the grid",
                      E.estimate(pooled[:, k]), 0.0, kind="leading", scale=scale)


CONFIGS = [("random-gating", (("alpha", 0.25),)), ("random-gating", (("alpha", 0.5),)),
           ("random-gating", (("alpha", 0.75),)), ("adaptive-gating", (("alpha", 0.5),)),
           ("plasticity-gating", (("alpha", 0.3),)), ("plasticity-gating", (("alpha", 0.7),)),
           ("euclidean", (("gamma", 0.3),)), ("euclidean", (("gamma", 0.7),))]
"""Models on the coarse grid: random gating (eq_rcg_epsilon_TF/RT), adaptive gating with the
paper's sampled probe (eq_gated_eTF_full/eRT_full at gating.adaptive_alpha_tilde), plasticity
gating (eq_epsilon_vanilla) and Euclidean regularization (eq_wr_epsilon_TF)."""


def _predicted(model: str, level: dict, rho_a: float, rho_b: float) -> E.Pair:
    if model == "random-gating":
        return E.theory_pair("gating.transfer.random", "gating.retention.random", rho_a=rho_a,
                             rho_b=rho_b, **level)
    if model == "adaptive-gating":
        alpha_t = theory.function("gating.adaptive_alpha_tilde", "derived")(
            rho_a=rho_a, rho_b=rho_b, **level)
        return E.theory_pair("gating.transfer", "gating.retention", rho_a=rho_a, rho_b=rho_b,
                             alpha_t=alpha_t)
    if model == "plasticity-gating":
        return E.theory_pair("plasticity.transfer", "plasticity.retention", rho_a=rho_a,
                             rho_b=rho_b)
    return E.theory_pair("euclidean.transfer", "euclidean.retention", rho_a=rho_a, rho_b=rho_b,
                         **level)


@pytest.mark.parametrize("model, level", CONFIGS)
@pytest.mark.parametrize("rho_a, rho_b", COARSE_GRID)
def test_gd_protocol_follows_the_leading_order_on_the_coarse_grid(model, level, rho_a, rho_b):
    level = dict(level)
    measured = _gd(model, rho_a, rho_b, seed=102, **level)
    _check(f"paper-scale {model} {level} ({rho_a}, {rho_b})", measured,
           _predicted(model, level, rho_a, rho_b), level.get("alpha", 1.0))


@pytest.mark.parametrize("model, level", CONFIGS)
def test_gd_protocol_pooled_over_the_coarse_grid_follows_the_leading_order(model, level):
    """The deviations pooled over the 9 points x 10 seeds (see the vanilla pooled test)."""
    level = dict(level)
    deviations = []
    for rho_a, rho_b in COARSE_GRID:
        samples = _gd_samples(model, rho_a, rho_b, 102, tuple(sorted(level.items())))
        predicted = _predicted(model, level, rho_a, rho_b)
        deviations.append(samples - [predicted.transfer.mean, predicted.retention.mean])
    pooled = np.concatenate(deviations)
    scale = E.small_parameter(NX, NS, level.get("alpha", 1.0))
    for k, name in enumerate(("transfer", "retention")):
        assert_agrees(f"paper-scale {model} {level} {name}, deviation pooled over the grid",
                      E.estimate(pooled[:, k]), 0.0, kind="leading", scale=scale)


@pytest.mark.parametrize("gamma", [0.2, 0.8])
@pytest.mark.parametrize("rho_a, rho_b", [(0.2, 0.6), (0.6, 0.2), (0.9, 0.9)])
def test_fisher_fixed_point_at_paper_size_keeps_task_one_and_transfers_like_vanilla(rho_a,
                                                                                   rho_b, gamma):
    measured = E.transfer_retention("fisher", rho_a=rho_a, rho_b=rho_b, gamma=gamma, nx=NX,
                                    ns=NS, ny=NY, samples=SEEDS, seed=106,
                                    generator="appendix")
    _check(f"paper-scale fisher ({rho_a}, {rho_b}, gamma={gamma})", measured,
           E.theory_pair("fisher.transfer_equals_vanilla.unregularized", "fisher.retention",
                         rho_a=rho_a, rho_b=rho_b))


@lru_cache(maxsize=None)
def _soft_threshold_runs(alpha: float, rho_a: float, rho_b: float) -> dict[str, np.ndarray]:
    """Per seed (transfer, retention) of the soft-thresholding model at paper size, with the
    paper's protocol ("gd": 5,000 steps, eta = 0.01, exact expected gradients) and at the
    exact gradient-flow limit ("exact"), from one preparation of the input moments."""
    rows: dict[str, list] = {"gd": [], "exact": []}
    for seed in range(SEEDS):
        tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=rho_a, rho_b=rho_b, seed=107 + seed)
        problem = prepare_soft_threshold(tasks, alpha)
        for method in rows:
            tr = solve_soft_threshold(problem, method=method).transfer_retention()
            rows[method].append((tr.transfer, tr.retention))
    return {m: np.array(v) for m, v in rows.items()}


SOFT_POINT = (0.5, 0.5)
SOFT_ALPHA = 0.3


def test_soft_thresholding_exact_limit_forgets_task_one_at_paper_size():
    """soft_threshold.retention_with_diagonal at paper size, (rho_a, rho_b) = (0.5, 0.5),
    alpha = 0.3: at the exact gradient-flow limit the mean retention equals the mean transfer
    (derived: W_2 does not depend on task 1), and the printed vanilla retention (0.8125) is
    rejected. (The leading-order values themselves are not compared: measured transfer
    0.166 against 0.25 in a pilot run, a deviation of 8.5 Ns/Nx from the Hermite terms of
    order rho_c^3, rho_c ~ Ns^-1/2, which the section's Ns >> 1 assumption drops. The report
    measures them at three sizes and records the derived values as not confirmed:
    soft_threshold.transfer_with_diagonal, soft_threshold.retention_with_diagonal in
    reports/measurements.py.)"""
    rho_a, rho_b = SOFT_POINT
    exact = _soft_threshold_runs(SOFT_ALPHA, rho_a, rho_b)["exact"]
    point = dict(rho_a=rho_a, rho_b=rho_b)
    derived = theory.function("soft_threshold.retention_with_diagonal", "derived")(**point) - \
        theory.function("soft_threshold.transfer_with_diagonal", "derived")(**point)
    printed = theory.function("soft_threshold.retention_with_diagonal", "printed")(**point) - \
        theory.function("soft_threshold.transfer_with_diagonal", "printed")(**point)
    assert_distinguishes("paper-scale soft-thresholding exact-limit retention minus transfer",
                         E.estimate(exact[:, 1] - exact[:, 0]), derived, printed,
                         kind="leading", scale=2 * NS / NX)


def test_soft_thresholding_paper_protocol_is_not_invariant_to_alpha():
    """A finding against Sec. 5.3 / Fig. 3D ("transfer and retention remain independent of
    alpha"): with the paper's own protocol (5,000 steps of eta = 0.01 per task, exact
    expected gradients) at paper size, (rho_a, rho_b) = (0.5, 0.5), the retention at
    alpha = 0.3 (0.384 +- 0.002 in a 10-seed run) lies far below the retention at alpha = 1
    (phi = identity, the vanilla model: 0.805) on the same tasks. The registry records the
    mechanism (soft_threshold.retention_with_diagonal, the dropped diagonal acting as a ridge
    outside span(A)); this measures it with the protocol the paper used."""
    rho_a, rho_b = SOFT_POINT
    sparse = _soft_threshold_runs(SOFT_ALPHA, rho_a, rho_b)["gd"]
    dense = _soft_threshold_runs(1.0, rho_a, rho_b)["gd"]
    assert_exceeds(
        f"paper-scale soft-thresholding retention, alpha = 1 over alpha = {SOFT_ALPHA}",
        E.estimate(dense[:, 1]), E.estimate(sparse[:, 1]))


def _prior_average(model: str, seed: int, pairs: int = 100, **level) -> E.Pair:
    rng = np.random.default_rng(seed)
    rows = []
    for k, (rho_a, rho_b) in enumerate(rng.random((pairs, 2))):
        result = simulate(model, rho_a=float(rho_a), rho_b=float(rho_b), nx=NX, ns=NS, ny=NY,
                          seeds=1, seed=seed + k, generator="appendix", method="gd", **level)
        rows.append((result.transfer.mean, result.retention.mean))
    v = np.array(rows)
    return E.Pair(E.estimate(v[:, 0]), E.estimate(v[:, 1]))


@pytest.mark.parametrize("model, level, transfer_id, retention_id", [
    ("vanilla", {}, "averages.vanilla.transfer", "averages.vanilla.retention"),
    ("random-gating", {"alpha": 0.75}, "averages.random.transfer", "averages.random.retention"),
])
def test_averages_over_100_uniform_pairs_with_the_gd_protocol(model, level, transfer_id,
                                                              retention_id):
    measured = _prior_average(model, seed=108, **level)
    predicted = E.theory_pair(transfer_id, retention_id, **level)
    _check(f"paper-scale {model} average over 100 pairs", measured, predicted,
           level.get("alpha", 1.0))
