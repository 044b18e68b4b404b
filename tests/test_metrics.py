"""Errors, transfer/retention and the probe: exact over B, and cross-checked by sampling.

Monte Carlo comparisons use |estimate - exact| < Z_MAX standard errors (plus an absolute
floor for quantities that are exactly zero); with about 60 such comparisons in this file and
Z_MAX = 4.5 the chance of a false alarm is below 1e-3 (seeds are fixed, so a run is
reproducible).
"""
import numpy as np
import pytest

from tasksim.solvers.linear_models import solve, weights
from tasksim.solvers.metrics import (
    coefficient_error,
    error_matrix,
    probe_error,
    readout_error_matrix,
    readout_second_moment,
    sampled_readout_moment,
    transfer_retention,
)
from tasksim.solvers.sampled import draw_readouts, sampled_error, sampled_error_matrix
from tasksim.solvers.tasks import GENERATORS, draw_tasks

Z_MAX = 4.5
FLOOR = 1e-12
NX, NS, NY = 40, 4, 3


def within(estimate, se, exact):
    return np.all(np.abs(estimate - exact) <= Z_MAX * se + FLOOR)


@pytest.mark.parametrize("generator", GENERATORS)
def test_readout_second_moment_is_rho_b_to_the_lag_kron_identity_over_ns(generator):
    rho_b, ns, ny = 0.6, 2, 40000
    B = draw_readouts(ny=ny, ns=ns, rho_b=rho_b, n_tasks=3, generator=generator, seed=1)
    Y = np.hstack(B)
    products = Y[:, :, None] * Y[:, None, :]          # per-row contributions to Y^T Y
    estimate = products.mean(axis=0)
    se = products.std(axis=0, ddof=1) / np.sqrt(ny)
    exact = readout_second_moment(rho_b, 3, ns)
    assert exact[0, 4] == pytest.approx(rho_b**2 / ns)  # lag 2: rho_b^2
    assert within(estimate, se, exact)


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("model, kwargs", [("vanilla", {}), ("random-gating", dict(alpha=0.5)),
                                           ("fisher", dict(gamma=0.5))])
def test_error_matrix_is_the_mean_over_readout_draws_given_the_features(model, kwargs, generator):
    rho_b = 0.5
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.7, rho_b=rho_b, generator=generator, seed=3)
    solution = solve(model, tasks, seed=4, **kwargs)
    F = [solution.explicit.block(name) for name in solution.seen]
    draws = []
    for i in range(300):
        B = draw_readouts(ny=NY, ns=NS, rho_b=rho_b, generator=generator, seed=7000 + i)
        W = weights(solution, B)
        draws.append([[np.sum((Bm - Wn @ Fm) ** 2) / NY for Wn in W] for Bm, Fm in zip(B, F)])
    draws = np.array(draws)
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
    assert within(mean, se, error_matrix(solution, rho_b))


@pytest.mark.parametrize("model, kwargs", [
    ("vanilla", {}), ("random-gating", dict(alpha=0.5)), ("plasticity-gating", dict(alpha=0.6)),
    ("euclidean", dict(gamma=0.5)), ("fisher-diag", dict(gamma=0.5)),
])
def test_sampled_latent_errors_agree_with_the_exact_errors_on_the_same_readouts(model, kwargs):
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.6, rho_b=0.3, n_tasks=3, seed=5)
    solution = solve(model, tasks, seed=6, **kwargs)
    mean, se = sampled_error_matrix(solution, n_samples=4000, seed=8)
    assert within(mean, se, readout_error_matrix(solution))


def test_sampled_error_is_reproducible_and_validates_its_input():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.6, rho_b=0.3, seed=5)
    W = np.ones((NY, NX)) * 0.01
    assert sampled_error(W, tasks.A[0], tasks.B[0], n_samples=50, seed=2) == \
        sampled_error(W, tasks.A[0], tasks.B[0], n_samples=50, seed=2)
    with pytest.raises(ValueError, match="n_samples"):
        sampled_error(W, tasks.A[0], tasks.B[0], n_samples=0)
    with pytest.raises(ValueError, match="shapes"):
        sampled_error(W[:, :5], tasks.A[0], tasks.B[0], n_samples=10)


def test_readout_error_matrix_uses_the_sampled_readouts_and_w0_is_zero():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.6, rho_b=0.3, seed=5)
    E = readout_error_matrix(solve("vanilla", tasks))
    np.testing.assert_allclose(E[:, 0], [np.sum(B**2) / NY for B in tasks.B], rtol=1e-12)


def test_transfer_and_retention_follow_the_general_mu_definitions():
    # rows: tasks 1..3, columns: W_0..W_3
    E = np.array([[1.0, 0.1, 0.4, 0.5],
                  [0.9, 0.7, 0.0, 0.3],
                  [1.1, 1.0, 0.8, 0.0]])
    transfer, retention = transfer_retention(E)
    np.testing.assert_allclose(transfer, [0.9 - 0.7, 1.1 - 0.8])   # eps_mu[W_0] - eps_mu[W_{mu-1}]
    np.testing.assert_allclose(retention, [1.0 - 0.4, 0.9 - 0.3])  # eps_mu[W_0] - eps_mu[W_{mu+1}]


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (1, 2), (4,)])
def test_transfer_retention_rejects_matrices_that_are_not_n_by_n_plus_one(shape):
    with pytest.raises(ValueError, match="errors must have shape"):
        transfer_retention(np.zeros(shape))


def test_probe_error_is_the_error_of_w1_through_the_old_gate_on_the_new_task():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.8, rho_b=0.6, seed=2)
    s = solve("adaptive-gating", tasks, alpha=0.5, seed=3)
    W1 = weights(s)[1]
    probe = tasks.B[1] - W1 @ (tasks.A[1] * s.gates[0][:, None])
    eps_pb, eps_o = probe_error(s, 1)
    assert eps_pb == pytest.approx(np.sum(probe**2) / NY, rel=1e-10)
    assert eps_o == pytest.approx(np.sum(tasks.B[1] ** 2) / NY, rel=1e-12)
    assert s.gate_correlations[0] == pytest.approx(max(0.0, 1 - eps_pb / eps_o), rel=1e-12)


def test_expected_probe_error_is_its_mean_over_readout_draws_with_baseline_one():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.8, rho_b=0.6, seed=2)
    s = solve("adaptive-gating", tasks, alpha=0.5, seed=3, probe="expected")
    eps_pb, eps_o = probe_error(s, 1, expected=True, rho_b=0.6)
    assert eps_o == pytest.approx(1.0, abs=1e-14)
    draws = np.array([probe_error(s, 1, readouts=draw_readouts(ny=NY, ns=NS, rho_b=0.6,
                                                              seed=9000 + i))[0]
                      for i in range(400)])
    assert within(draws.mean(), draws.std(ddof=1) / np.sqrt(len(draws)), eps_pb)


def test_probe_error_needs_the_probe_block_and_a_valid_switch():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.8, rho_b=0.6, seed=2)
    with pytest.raises(ValueError, match="D1A2"):
        probe_error(solve("random-gating", tasks, alpha=0.5, seed=0), 1)
    s = solve("adaptive-gating", tasks, alpha=0.5, seed=0)
    with pytest.raises(ValueError, match="switch"):
        probe_error(s, 2)
    with pytest.raises(ValueError, match="rho_b"):
        probe_error(s, 1, expected=True)


@pytest.mark.parametrize("rho_b", [-0.1, 1.5, float("nan")])
def test_error_matrix_rejects_rho_b_outside_the_unit_interval(rho_b):
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.5, seed=0)
    with pytest.raises(ValueError, match=r"rho_b must be a number in \[0, 1\]"):
        error_matrix(solve("vanilla", tasks), rho_b=rho_b)


def test_coefficient_error_of_the_zero_weight_is_the_readout_power():
    moment = sampled_readout_moment([np.full((2, 3), 2.0), np.zeros((2, 3))])
    from tasksim.solvers.span import Span
    span = Span(("A1", "A2"), np.eye(6), nx=10, ns=3)
    assert coefficient_error(np.zeros((6, 6)), span, "A1", 1, moment) == pytest.approx(12.0)


def test_expected_probe_error_is_the_same_from_the_gram_of_the_drawn_gates():
    from tasksim.solvers.features import Features
    from tasksim.solvers.linear_models import required_blocks, solve_features

    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.8, rho_b=0.6, n_tasks=3, seed=2)
    explicit = solve("adaptive-gating", tasks, alpha=0.5, seed=3)
    features = Features.from_matrices(tasks.A, explicit.gates, required_blocks("adaptive-gating", 3))
    from_gram = solve_features("adaptive-gating", features, n_tasks=3)
    for switch in (1, 2):
        assert probe_error(from_gram, switch, expected=True, rho_b=0.6) == pytest.approx(
            probe_error(explicit, switch, expected=True, rho_b=0.6), rel=1e-9)
    with pytest.raises(ValueError, match="no sampled readouts"):
        probe_error(from_gram, 1)
