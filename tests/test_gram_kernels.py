"""The fast Gram path (stacked linear algebra, compiled per-sample kernels) gives the numbers of
the reference route: the numpy solvers of solvers/two_task_batch.py on the formed Grams, which
the other tests check against the generic fixed-point solvers. Without numba the numpy route
runs alone, with the same numbers to rounding."""
import numpy as np
import pytest

from tasksim.solvers import gram_kernels
from tasksim.solvers.batched_linalg import lower_inverse, spd_inverse
from tasksim.solvers.gram import (GramPlan, _factors_numpy, draw_plastic_seeded, plastic_alive_rows,
                                  plastic_cross_grams, sample_gram_seeded)
from tasksim.solvers.probe import ProbeSpec, chunk_samples, sample_seed
from tasksim.solvers.two_task_batch import (BLOCKS, RCOND_PLASTIC, _sliced_transfer_retention,
                                            gram_transfer_retention, plastic_maps,
                                            transfer_retention_from_maps,
                                            vanilla_factor_transfer_retention,
                                            vanilla_transfer_retention_seeded)

needs_numba = pytest.mark.skipif(not gram_kernels.AVAILABLE, reason="numba is not installed")


@pytest.mark.parametrize("n", [1, 3, 8, 30, 33])
def test_lower_inverse_inverts_a_stack_of_triangular_matrices(n):
    rng = np.random.default_rng(n)
    L = np.tril(rng.standard_normal((5, n, n))) + 3 * np.eye(n)
    assert np.allclose(lower_inverse(L) @ L, np.eye(n), atol=1e-12)


def test_spd_inverse_refuses_what_is_not_invertible_or_ill_conditioned():
    K = np.array([np.diag([2.0, 1.0]), np.diag([1.0, -1.0]), np.diag([1.0, 1e-9])])
    inverse, ok = spd_inverse(K, rcond_min=1e-6)
    assert ok.tolist() == [True, False, False]
    assert np.allclose(inverse[0], np.diag([0.5, 1.0]))
    assert spd_inverse(K[2:])[1].tolist() == [True]       # no threshold: positive definite


@pytest.mark.parametrize("model", ["vanilla", "random-gating", "plasticity-gating"])
def test_only_the_class_grams_the_blocks_need_are_formed_and_they_are_the_full_products(model):
    plan = GramPlan(BLOCKS[model], 100, 3, 0.6, 0.4, 0.3, None)
    rng = np.random.default_rng(1)
    factors = np.tril(rng.standard_normal((4, len(plan.used), 6, 6)))
    every_class = np.zeros((4, len(plan.classes), 6, 6))
    every_class[:, plan.used] = factors @ np.swapaxes(factors, -1, -2)
    assert np.allclose(plan.assemble_from_factors(factors), plan.assemble(every_class))


def test_random_gating_draws_only_the_classes_and_tasks_its_blocks_need():
    plan = GramPlan(BLOCKS["random-gating"], 100, 3, 0.6, 0.4, 0.0, None)
    # classes (g1, g2): (0, 0) adds to no block; (0, 1) to D2A2 only; (1, 0) to D1A1 only
    assert [plan.classes[c] for c in plan.used] == [(0, 1), (1, 0), (1, 1)]
    assert plan.single == [1, 0, -1]
    everything = GramPlan(BLOCKS["plasticity-gating"], 100, 3, 0.6, 0.4, 0.0, None)
    assert everything.single == [-1] * 4


@needs_numba
@pytest.mark.parametrize("model, alpha, nx", [
    ("vanilla", None, 3000), ("vanilla", None, 45), ("random-gating", 0.5, 3000),
    ("random-gating", 0.5, 40)])
def test_the_compiled_route_gives_the_numbers_of_the_numpy_route(monkeypatch, model, alpha, nx):
    spec = ProbeSpec(model, rho_a=0.7, rho_b=0.4, alpha=alpha, ns=6)
    seeds = [sample_seed(5, nx, j) for j in range(60)]
    compiled = chunk_samples(spec, nx, seeds)
    grams = sample_gram_seeded(seeds, nx=nx, ns=6, rho_a=0.7, names=BLOCKS[model], alpha=alpha)
    monkeypatch.setattr(gram_kernels, "AVAILABLE", False)
    numpy_route = chunk_samples(spec, nx, seeds)
    reference = _sliced_transfer_retention(model, grams, ns=6, rho_b=0.4, lam=None)
    for a, b, c in zip(compiled, numpy_route, reference):
        assert np.allclose(a, b, rtol=0, atol=1e-10) and np.allclose(a, c, rtol=0, atol=1e-10)
    assert np.array_equal(sample_gram_seeded(seeds, nx=nx, ns=6, rho_a=0.7,
                                             names=BLOCKS[model], alpha=alpha).round(9),
                          grams.round(9))


def _plastic_reference(seeds, *, nx, ns, rho_a, rho_b, alpha):
    """Plasticity gating by the numpy reference: its blocks by full products of the class
    factors (plastic_cross_grams), then the closed form (plastic_maps, as two_task_maps)."""
    normals, chi, dofs = draw_plastic_seeded(seeds, nx=nx, ns=ns, alpha=alpha)
    cross = plastic_cross_grams(normals, chi, dofs, ns=ns, rho_a=rho_a)
    return transfer_retention_from_maps(*plastic_maps(cross, ns=ns), rho_b)


@needs_numba
@pytest.mark.parametrize("nx, ns, alpha", [(500, 6, 0.7), (3000, 30, 0.5), (60, 6, 0.4)])
def test_the_compiled_plasticity_route_gives_the_numbers_of_the_numpy_route(monkeypatch, nx,
                                                                             ns, alpha):
    spec = ProbeSpec("plasticity-gating", rho_a=0.7, rho_b=0.4, alpha=alpha, ns=ns)
    seeds = [sample_seed(5, nx, j) for j in range(60)]
    compiled = chunk_samples(spec, nx, seeds)
    reference = _plastic_reference(seeds, nx=nx, ns=ns, rho_a=0.7, rho_b=0.4, alpha=alpha)
    monkeypatch.setattr(gram_kernels, "AVAILABLE", False)
    numpy_route = chunk_samples(spec, nx, seeds)
    for a, b, c in zip(compiled, numpy_route, reference):
        assert np.allclose(a, b, rtol=0, atol=1e-10) and np.allclose(a, c, rtol=0, atol=1e-10)


@needs_numba
def test_an_ill_conditioned_plasticity_sample_is_flagged_and_solved_by_numpy():
    # alpha Nx = 15 plastic inputs on average (at least 10 in these samples) for Ns = 6: a
    # P_mu^T A_mu below the condition the compiled route demands, which takes the numpy route
    seeds = [sample_seed(4, 30, j) for j in range(40)]
    normals, chi, dofs = draw_plastic_seeded(seeds, nx=30, ns=6, alpha=0.5)
    coef = GramPlan(("A1", "A2"), 30, 6, 0.5, None, 0.0, 2).chain / np.sqrt(6)
    _, _, ok = gram_kernels.plastic_transfer_retention(
        normals, chi, plastic_alive_rows(dofs, 6), coef, 6, 0.5, RCOND_PLASTIC)
    assert 0 < (~ok).sum() < len(seeds)
    spec = ProbeSpec("plasticity-gating", rho_a=0.5, rho_b=0.5, alpha=0.5, ns=6)
    fast = chunk_samples(spec, 30, seeds)
    slow = _plastic_reference(seeds, nx=30, ns=6, rho_a=0.5, rho_b=0.5, alpha=0.5)
    assert np.allclose(fast, slow, rtol=0, atol=1e-9)


def test_the_plasticity_blocks_are_those_of_the_gram_of_all_four_blocks():
    """Given the factors of classes (0, 1), (1, 0), (1, 1) (class (0, 1) with the tasks in the
    other order), the blocks P_mu^T A_nu are the lower-left quadrant of the Gram the generic
    assembly makes from all four classes (class (0, 0) adds nothing to them)."""
    ns, rng = 3, np.random.default_rng(7)
    normals, chi = rng.standard_normal((5, 3, 15)), rng.chisquare(9, (5, 3, 6))
    dofs = np.array([[9, 9, 9]] * 5)
    normals[:, :2, ns * (3 * ns - 1) // 2:] = 0.0  # R_22 of the first two classes: not drawn
    cross = plastic_cross_grams(normals, chi, dofs, ns=ns, rho_a=0.4)
    plan = GramPlan(BLOCKS["plasticity-gating"], 9, ns, 0.4, 0.5, 0.0, None)
    L = _factors_numpy(normals, chi, np.minimum(dofs, [ns, ns, 2 * ns]), plan)
    swap = np.kron(np.array([[0, 1], [1, 0]]), np.eye(ns))
    every = np.zeros((5, 4, 2 * ns, 2 * ns))  # classes (0, 0), (0, 1), (1, 0), (1, 1)
    every[:, 1] = swap @ L[:, 0] @ np.swapaxes(L[:, 0], -1, -2) @ swap  # tasks back in order
    every[:, 2] = L[:, 1] @ np.swapaxes(L[:, 1], -1, -2)
    every[:, 3] = L[:, 2] @ np.swapaxes(L[:, 2], -1, -2)
    every[:, 0] = np.eye(2 * ns)  # anything: no block of the quadrant reads it
    quadrant = plan.assemble(every)[:, 2 * ns:, :2 * ns]
    assert np.allclose(cross, quadrant, rtol=0, atol=1e-12)


@needs_numba
def test_a_rank_deficient_gated_sample_takes_the_pseudo_inverse_route():
    # alpha Nx = 10 < Ns = 30 open inputs: D1A1's Gram has rank below Ns in every sample
    seeds = [sample_seed(2, 20, j) for j in range(8)]
    grams = sample_gram_seeded(seeds, nx=20, ns=30, rho_a=0.5, names=BLOCKS["random-gating"],
                               alpha=0.5)
    assert not gram_kernels.pair_transfer_retention(grams, 30, 0.5, 1e-6)[2].any()
    fast = gram_transfer_retention("random-gating", grams, ns=30, rho_b=0.5)
    slow = _sliced_transfer_retention("random-gating", grams, ns=30, rho_b=0.5, lam=None)
    assert np.allclose(fast, slow, rtol=0, atol=1e-12)


@needs_numba
def test_a_singular_vanilla_factor_is_flagged_and_solved_by_the_pseudo_inverse():
    L = np.tril(np.random.default_rng(3).standard_normal((3, 4, 4))) + 2 * np.eye(4)
    L[1, 0, 0] = 0.0  # the first task's block singular in sample 1
    assert gram_kernels.factor_transfer_retention(L, 2, 0.5)[2].tolist() == [True, False, True]
    fast = vanilla_factor_transfer_retention(L, ns=2, rho_b=0.5)
    slow = _sliced_transfer_retention("vanilla", L @ np.swapaxes(L, -1, -2), ns=2, rho_b=0.5,
                                      lam=None)
    assert np.allclose(fast, slow, rtol=0, atol=1e-12) and np.isfinite(fast).all()


def test_the_vanilla_fast_path_refuses_bad_input_in_one_line():
    with pytest.raises(ValueError, match="rho_b"):
        vanilla_transfer_retention_seeded([np.random.SeedSequence(0)], nx=50, ns=3,
                                          rho_a=0.5, rho_b=1.5)
