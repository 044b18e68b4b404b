"""Gram matrices sampled from their Wishart law (solvers/gram.py) match explicit task draws.

Statistics: each comparison is a family of z-scores (one per Gram entry) of a difference of
sample means divided by its standard error. A family passes when max |z| stays below the
Bonferroni threshold for a family-wise false-alarm rate of 1e-3 (seeds are fixed, so the
outcome is deterministic; the threshold says how surprising a failure would be). A companion
test shows the same check rejects a Gram sampled with the wrong rho_a, so it has power.
"""
import math

import numpy as np
import pytest
from scipy.stats import norm

from tasksim.solvers.features import Features
from tasksim.solvers.gram import (
    GATED_BLOCKS,
    gate_classes,
    sample_features,
    sample_gram,
    sample_gram_seeded,
    sample_plastic_cross_seeded,
    sample_wishart,
    task_covariance_factor,
)
from tasksim.solvers.tasks import draw_gates, draw_tasks

FAMILY_FALSE_ALARM = 1e-3


def _bonferroni(n_tests: int) -> float:
    return float(norm.isf(FAMILY_FALSE_ALARM / (2 * n_tests)))


def _max_z_two_samples(x: np.ndarray, y: np.ndarray) -> float:
    """max over columns of |mean(x) - mean(y)| / standard error of the difference."""
    se = np.sqrt(x.var(axis=0, ddof=1) / len(x) + y.var(axis=0, ddof=1) / len(y))
    diff = np.abs(x.mean(axis=0) - y.mean(axis=0))
    keep = se > 0
    assert np.all(diff[~keep] < 1e-9), "zero-variance entries must agree exactly"
    return float(np.max(diff[keep] / se[keep]))


def _max_z_against(x: np.ndarray, expected: np.ndarray) -> float:
    se = x.std(axis=0, ddof=1) / np.sqrt(len(x))
    return float(np.max(np.abs(x.mean(axis=0) - expected) / se))


def _upper(grams: np.ndarray) -> np.ndarray:
    """Distinct entries (upper triangle) of a batch of symmetric matrices, one row per draw."""
    i, j = np.triu_indices(grams.shape[-1])
    return grams[:, i, j]


def _explicit_grams(n, *, nx, ns, rho_a, names, alpha=None, rho_g=0.0, seed=0):
    children = np.random.SeedSequence(seed).spawn(n)
    grams = []
    for child in children:
        t_seed, g_seed = child.spawn(2)
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=rho_a, rho_b=0.0, generator="gaussian",
                       seed=t_seed)
        gates = None if alpha is None else draw_gates(nx=nx, alpha=alpha, rho_g=rho_g,
                                                      seed=g_seed)
        grams.append(Features.from_matrices(t.A, gates, names).gram)
    return np.array(grams)


# --- the Bartlett sampler ------------------------------------------------------------------

@pytest.mark.parametrize("dof", [3, 50])  # 3 < p = 4: a singular Wishart
def test_bartlett_draws_have_the_wishart_mean_and_entry_variances(dof):
    factor = task_covariance_factor(2, 0.6)  # p = 4, covariance [[I, .6 I], [.6 I, I]] / 2
    scale = factor @ factor.T
    draws = sample_wishart(np.full(20000, dof), factor, seed=11)
    entries = _upper(draws)
    i, j = np.triu_indices(4)
    mean = dof * scale[i, j]
    variance = dof * (scale[i, i] * scale[j, j] + scale[i, j] ** 2)
    assert _max_z_against(entries, mean) < _bonferroni(len(mean))
    squared_deviation = (entries - mean) ** 2
    assert _max_z_against(squared_deviation, variance) < _bonferroni(len(mean))


def test_bartlett_draw_below_full_rank_has_rank_dof():
    draw = sample_wishart(2, np.eye(5), seed=0)
    assert np.linalg.matrix_rank(draw) == 2
    assert np.all(sample_wishart(0, np.eye(3), seed=0) == 0.0)


# --- sampled Gram against its law and against explicit draws -------------------------------

def test_sampled_gram_has_mean_nx_sigma_over_ns_and_wishart_entry_variance():
    nx, ns, rho_a = 200, 3, 0.7
    grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, size=20000, seed=5)
    sigma = np.kron(np.array([[1.0, rho_a], [rho_a, 1.0]]), np.eye(ns))
    i, j = np.triu_indices(2 * ns)
    mean = nx * sigma[i, j] / ns
    variance = nx / ns**2 * (sigma[i, i] * sigma[j, j] + sigma[i, j] ** 2)
    entries = _upper(grams)
    live = variance > 0
    assert _max_z_against(entries, mean) < _bonferroni(len(mean))
    assert _max_z_against((entries - mean)[:, live] ** 2, variance[live]) < _bonferroni(
        int(live.sum()))


@pytest.mark.parametrize("rho_a", [0.0, 0.5, 1.0])
def test_sampled_gram_matches_explicit_gaussian_draws_in_first_and_second_moments(rho_a):
    nx, ns, n = 40, 2, 1500
    names = ("A1", "A2")
    sampled = _upper(sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=names, size=n, seed=1))
    explicit = _upper(_explicit_grams(n, nx=nx, ns=ns, rho_a=rho_a, names=names, seed=2))
    threshold = _bonferroni(2 * sampled.shape[1])
    assert _max_z_two_samples(sampled, explicit) < threshold
    assert _max_z_two_samples(sampled**2, explicit**2) < threshold


@pytest.mark.parametrize("alpha, rho_g", [(0.5, 0.0), (0.3, 0.6), (1.0, 0.0)])
def test_sampled_gated_gram_matches_explicit_draws_with_gates(alpha, rho_g):
    nx, ns, n = 40, 2, 1500
    kwargs = dict(nx=nx, ns=ns, rho_a=0.6, names=GATED_BLOCKS, alpha=alpha, rho_g=rho_g)
    sampled = _upper(sample_gram(**kwargs, size=n, seed=3))
    explicit = _upper(_explicit_grams(n, **kwargs, seed=4))
    threshold = _bonferroni(2 * sampled.shape[1])
    assert _max_z_two_samples(sampled, explicit) < threshold
    assert _max_z_two_samples(sampled**2, explicit**2) < threshold


def test_three_task_gated_gram_matches_explicit_draws():
    """Task chain A_3 ~ rho_a A_2 (correlation rho_a^2 with A_1), gates with two rho_g."""
    nx, ns, n, names = 40, 2, 1500, ("A1", "A3", "D3A1", "D2A3", "D1A2")
    kwargs = dict(nx=nx, ns=ns, rho_a=0.7, names=names, alpha=0.4, rho_g=(0.3, 0.8))
    sampled = _upper(sample_gram(**kwargs, size=n, seed=5))
    children = np.random.SeedSequence(6).spawn(n)
    explicit = []
    for child in children:
        t_seed, g_seed = child.spawn(2)
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=0.7, rho_b=0.0, n_tasks=3,
                       generator="gaussian", seed=t_seed)
        gates = draw_gates(nx=nx, alpha=0.4, n_tasks=3, rho_g=(0.3, 0.8), seed=g_seed)
        explicit.append(Features.from_matrices(t.A, gates, names).gram)
    explicit = _upper(np.array(explicit))
    threshold = _bonferroni(2 * sampled.shape[1])
    assert _max_z_two_samples(sampled, explicit) < threshold
    assert _max_z_two_samples(sampled**2, explicit**2) < threshold


@pytest.mark.parametrize("names, alpha, dof_below_p", [
    (("A1", "A2"), None, False), (GATED_BLOCKS, 0.5, False), (("A1", "A2"), None, True),
    # random gating draws Ns-dimensional Wisharts for the classes that add to one task
    (("D1A1", "D2A2"), 0.5, False), (("D1A1", "D2A2"), 0.5, True)])
def test_per_seed_grams_have_the_law_of_the_batch_sampler(names, alpha, dof_below_p):
    nx = 3 if dof_below_p else 40  # nx < 2 Ns: a singular Wishart, rows of R beyond dof zero
    kwargs = dict(nx=nx, ns=2, rho_a=0.6, names=names, alpha=alpha)
    seeded = _upper(sample_gram_seeded(np.random.SeedSequence(9).spawn(1500), **kwargs))
    batch = _upper(sample_gram(**kwargs, size=1500, seed=10))
    threshold = _bonferroni(2 * seeded.shape[1])
    assert _max_z_two_samples(seeded, batch) < threshold
    assert _max_z_two_samples(seeded**2, batch**2) < threshold


def _with_products(x: np.ndarray) -> np.ndarray:
    """Every entry and every product of two entries, one row per draw (second moments,
    including those that tie one block to another)."""
    i, j = np.triu_indices(x.shape[1])
    return np.concatenate([x, x[:, i] * x[:, j]], axis=1)


@pytest.mark.parametrize("nx", [40, 3])  # 3 < 2 Ns: rows of R beyond the class count zero
def test_plasticity_blocks_drawn_from_three_classes_have_the_law_of_explicit_draws(nx):
    """[[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]] (P_mu = D_mu A_mu) from the gate
    classes (0, 1), (1, 0), (1, 1) alone, R_22 of the first two not drawn and class (0, 1)
    drawn with the tasks swapped: the first and second moments of the explicit draws."""
    n, ns = 2000, 2
    names = ("A1", "A2", "D1A1", "D2A2")
    drawn = sample_plastic_cross_seeded(np.random.SeedSequence(31).spawn(n), nx=nx, ns=ns,
                                        rho_a=0.6, alpha=0.5)
    explicit = _explicit_grams(n, nx=nx, ns=ns, rho_a=0.6, names=names, alpha=0.5,
                               seed=32)[:, 2 * ns:, :2 * ns]
    drawn, explicit = (_with_products(g.reshape(n, -1)) for g in (drawn, explicit))
    assert _max_z_two_samples(drawn, explicit) < _bonferroni(drawn.shape[1])


def test_the_plasticity_blocks_comparison_rejects_a_transposed_cross_block():
    """The check above has power: P_2^T A_1 replaced by its transpose A_1^T P_2 is caught."""
    n, ns = 2000, 2
    drawn = sample_plastic_cross_seeded(np.random.SeedSequence(31).spawn(n), nx=40, ns=ns,
                                        rho_a=0.6, alpha=0.5)
    drawn[:, ns:, :ns] = np.swapaxes(drawn[:, ns:, :ns], -1, -2)
    explicit = _explicit_grams(n, nx=40, ns=ns, rho_a=0.6, names=("A1", "A2", "D1A1", "D2A2"),
                               alpha=0.5, seed=32)[:, 2 * ns:, :2 * ns]
    drawn, explicit = (_with_products(g.reshape(n, -1)) for g in (drawn, explicit))
    assert _max_z_two_samples(drawn, explicit) > _bonferroni(drawn.shape[1])


def test_a_per_seed_gram_does_not_depend_on_the_batch_it_is_drawn_in():
    seeds = np.random.SeedSequence(3).spawn(6)
    kwargs = dict(nx=500, ns=3, rho_a=0.4, names=GATED_BLOCKS, alpha=0.3)
    whole = sample_gram_seeded(seeds, **kwargs)
    parts = np.concatenate([sample_gram_seeded(seeds[:2], **kwargs),
                            sample_gram_seeded(seeds[2:], **kwargs)])
    assert np.array_equal(whole, parts)
    assert not np.allclose(whole[0], whole[1])


def test_the_moment_comparison_rejects_a_gram_with_the_wrong_rho_a():
    nx, ns, n = 40, 2, 1500
    sampled = _upper(sample_gram(nx=nx, ns=ns, rho_a=0.3, size=n, seed=1))
    explicit = _upper(_explicit_grams(n, nx=nx, ns=ns, rho_a=0.5, names=("A1", "A2"), seed=2))
    assert _max_z_two_samples(sampled, explicit) > _bonferroni(sampled.shape[1])


def test_gated_block_means_follow_the_gate_class_probabilities():
    nx, ns, alpha, rho_g, rho_a = 300, 2, 0.4, 0.5, 0.8
    f_grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=GATED_BLOCKS, alpha=alpha,
                          rho_g=rho_g, size=6000, seed=8)
    both_open = alpha * (rho_g + (1 - rho_g) * alpha)  # P(g1 = g2 = 1)
    f = Features(GATED_BLOCKS, f_grams.mean(axis=0), nx, ns)
    expected = {
        ("D1A1", "D2A2"): both_open * rho_a,
        ("D1A2", "D2A1"): both_open * rho_a,
        ("D1A1", "D1A1"): alpha,
        ("A1", "D2A2"): alpha * rho_a,
        ("D1A2", "A2"): alpha,
    }
    for (left, right), value in expected.items():
        diag = np.diag(f.block(left, right)) * ns / nx
        assert np.allclose(diag, value, atol=0.02), (left, right, diag, value)


def test_a_nonlinear_functional_of_the_gram_has_the_same_distribution_as_explicitly():
    """The statistic tr[(A1^T A1)^{-1} A1^T A2] (the transfer's first term) and its square."""
    nx, ns, n = 12, 3, 2000  # small Nx: far from the tall regime, where the law matters most
    names = ("A1", "A2")

    def statistic(grams):
        g11, g12 = grams[:, :ns, :ns], grams[:, :ns, ns:]
        t = np.trace(np.linalg.solve(g11, g12), axis1=1, axis2=2)
        return np.stack([t, t**2], axis=1)

    sampled = statistic(sample_gram(nx=nx, ns=ns, rho_a=0.5, size=n, seed=21))
    explicit = statistic(_explicit_grams(n, nx=nx, ns=ns, rho_a=0.5, names=names, seed=22))
    assert _max_z_two_samples(sampled, explicit) < _bonferroni(2)


# --- structure, determinism, cost ----------------------------------------------------------

def test_gate_class_probabilities_sum_to_one_and_have_alpha_marginals():
    classes, p = gate_classes(0.3, [0.2, 0.7], n_tasks=3)
    assert len(classes) == 8 and math.isclose(p.sum(), 1.0)
    for task in range(3):
        assert math.isclose(sum(q for c, q in zip(classes, p) if c[task]), 0.3)


def test_identical_tasks_give_identical_blocks_and_alpha_one_opens_every_gate():
    g = sample_gram(nx=100, ns=3, rho_a=1.0, names=GATED_BLOCKS, alpha=1.0, seed=0)
    f = Features(GATED_BLOCKS, g, 100, 3)
    for name in GATED_BLOCKS[1:]:
        assert np.allclose(f.block(name, name), f.block("A1", "A1"))


def test_same_seed_same_gram_and_batch_draws_are_independent():
    a = sample_gram(nx=100, ns=3, rho_a=0.4, size=2, seed=7)
    b = sample_gram(nx=100, ns=3, rho_a=0.4, size=2, seed=7)
    assert np.array_equal(a, b)
    assert not np.allclose(a[0], a[1])


def test_huge_nx_costs_no_more_than_small_nx():
    """Nx = 10^12 rows would not fit in memory: only the Wishart path can draw this."""
    f = sample_features(nx=10**12, ns=4, rho_a=0.2, seed=0)
    scaled = f.gram * 4 / 10**12
    assert np.allclose(scaled, np.kron([[1, 0.2], [0.2, 1]], np.eye(4)), atol=1e-4)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(rho_a=1.5), "rho_a"),
        (dict(nx=0), "nx"),
        (dict(ns=2.5), "ns"),
        (dict(names=("D1A2",)), "alpha"),
        (dict(names=("D1A2",), alpha=0.0), "alpha"),
        (dict(names=("D1A2",), alpha=0.5, rho_g=-0.1), "rho_g"),
        (dict(names=("A3",), n_tasks=2), "n_tasks"),
        (dict(names=("B1",)), "block"),
        (dict(size=0), "size"),
    ],
)
def test_bad_gram_parameters_raise_value_error_naming_them(kwargs, message):
    params = dict(nx=10, ns=2, rho_a=0.5)
    params.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sample_gram(**params)
