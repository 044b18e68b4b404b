"""Every fixed point equals a brute-force Nx-space solution (small Nx; Nx x Nx allowed here).

The reference solves each task's loss directly: the minimum-norm change of a least-squares
problem stacked over the loss and the regularizer (numpy lstsq: the gradient-flow limit from
W_{mu-1}), explicit (A A^T + lam I)^{-1} for the Euclidean model, and the appendix's
(U^T D U)^{-1} formula for plasticity gating. Also: the finite-N behaviour of the Fisher
model that the paper states only to leading order.
"""
import numpy as np
import pytest

from tasksim.solvers.fixed_points import Step, psd_pinv, readout_map
from tasksim.solvers.linear_models import MODELS, required_blocks, solve, weights
from tasksim.solvers.metrics import error_matrix, readout_error_matrix, transfer_retention
from tasksim.solvers.span import ExplicitBlocks
from tasksim.solvers.tasks import GENERATORS, draw_tasks

NX, NS, NY = 40, 4, 3
EXACT = 1e-10  # relative agreement of two exact computations (rounding only)


def min_norm_change(R0, F, penalty=None):
    """argmin ||R0 - dW F||^2 + ||dW penalty||^2 of least norm, by lstsq in Nx space."""
    Z = F if penalty is None else np.hstack([F, penalty])
    T = R0 if penalty is None else np.hstack([R0, np.zeros((R0.shape[0], penalty.shape[1]))])
    return np.linalg.lstsq(Z.T, T.T, rcond=None)[0].T


def reference_weights(solution, tasks):
    """W_0 .. W_n computed task by task in Nx space from the model's definition."""
    model, p = solution.model, solution.parameters
    lam, first = p.get("lam", 0.0), p.get("first_task")
    gates = solution.gates
    W = [np.zeros((tasks.ny, tasks.nx))]
    for mu in range(1, tasks.n_tasks + 1):
        A, B, Wp = tasks.A[mu - 1], tasks.B[mu - 1], W[-1]
        if model in ("vanilla", "random-gating", "adaptive-gating"):
            F = A if gates is None else A * gates[mu - 1][:, None]
            U = np.linalg.svd(F, full_matrices=False)[0]
            rank = np.linalg.matrix_rank(F)
            U = U[:, :rank]
            W.append(Wp @ (np.eye(tasks.nx) - U @ U.T) + B @ np.linalg.pinv(F))
        elif model == "plasticity-gating":
            U, L, Vt = np.linalg.svd(A, full_matrices=False)
            D = np.diag(gates[mu - 1].astype(float))
            W.append(Wp + (B @ Vt.T @ np.diag(1 / L) - Wp @ U)
                     @ np.linalg.inv(U.T @ D @ U) @ U.T @ D)
        elif model == "euclidean":
            if mu == 1 and first == "unregularized":
                W.append(B @ np.linalg.pinv(A))
            else:
                W.append((B @ A.T + lam * Wp) @ np.linalg.inv(A @ A.T + lam * np.eye(tasks.nx)))
        else:  # fisher, fisher-diag
            if mu == 1 and first == "unregularized":
                W.append(B @ np.linalg.pinv(A))
                continue
            if mu == 1:
                M = solution.explicit.auxiliary if first == "independent-metric" else A
            else:
                M = tasks.A[mu - 2]
            if model == "fisher":
                penalty = np.sqrt(lam) * M
            else:
                penalty = np.sqrt(lam) * np.diag(np.sqrt(np.sum(M**2, axis=1)))
            W.append(Wp + min_norm_change(B - Wp @ A, A, penalty))
    return W


def relative_gap(X, Y):
    return max(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300) for a, b in zip(X, Y))


CASES = [
    ("vanilla", {}),
    ("random-gating", dict(alpha=0.5)),
    ("random-gating", dict(alpha=0.06)),  # alpha Nx ~ 2 < Ns: rank-deficient D A
    ("adaptive-gating", dict(alpha=0.5)),
    ("adaptive-gating", dict(alpha=0.5, probe="expected")),
    ("plasticity-gating", dict(alpha=0.6)),
    ("euclidean", dict(gamma=0.5)),
    ("euclidean", dict(lam=3.0, first_task="unregularized")),
    ("fisher", dict(gamma=0.3)),
    ("fisher", dict(gamma=0.3, first_task="independent-metric")),
    ("fisher", dict(gamma=0.3, first_task="own-metric")),
    ("fisher-diag", dict(gamma=0.3)),
    ("fisher-diag", dict(lam=2.0, first_task="independent-metric")),
    ("fisher-diag", dict(gamma=0.3, first_task="own-metric")),
]


def test_cases_cover_every_model():
    assert {m for m, _ in CASES} == set(MODELS)


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("rho_a", [0.6, 1.0])
@pytest.mark.parametrize("model, kwargs", CASES)
def test_fixed_point_equals_brute_force_nx_space_solution(model, kwargs, rho_a, generator):
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=rho_a, rho_b=0.4, n_tasks=3,
                       generator=generator, seed=11)
    solution = solve(model, tasks, seed=5, **kwargs)
    assert relative_gap(weights(solution), reference_weights(solution, tasks)) < EXACT


def test_rank_deficient_gates_are_really_rank_deficient_in_the_brute_force_case():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.6, rho_b=0.4, n_tasks=3, seed=11)
    solution = solve("random-gating", tasks, alpha=0.06, seed=5)
    ranks = [np.linalg.matrix_rank(A * g[:, None]) for A, g in zip(tasks.A, solution.gates)]
    assert min(ranks) < NS


def test_error_matrix_equals_errors_of_brute_force_weights_on_the_sampled_readouts():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.7, rho_b=0.3, n_tasks=3, seed=2)
    solution = solve("random-gating", tasks, alpha=0.7, seed=1)
    W = reference_weights(solution, tasks)
    expected = np.array([[np.sum((B - Wn @ (A * g[:, None])) ** 2) / NY for Wn in W]
                         for A, B, g in zip(tasks.A, tasks.B, solution.gates)])
    np.testing.assert_allclose(readout_error_matrix(solution), expected, rtol=1e-9, atol=1e-12)


def test_plasticity_gating_fixed_point_is_stationary_and_changes_only_plastic_directions():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.5, seed=3)
    s = solve("plasticity-gating", tasks, alpha=0.5, seed=3)
    W = weights(s)
    for mu in (1, 2):
        A, B, g = tasks.A[mu - 1], tasks.B[mu - 1], s.gates[mu - 1]
        # the fixed point of dW/dt = -(W A - B)(D A)^T: the residual vanishes on a full-rank D A
        np.testing.assert_allclose(W[mu] @ A, B, atol=1e-10)
        # and the synapses from gated-off inputs are untouched
        np.testing.assert_array_equal(W[mu][:, ~g], W[mu - 1][:, ~g])


def test_plasticity_gating_with_fewer_plastic_inputs_than_latents_raises():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.5, seed=3)
    gates = [np.arange(NX) < 2, np.arange(NX) < 30]  # 2 plastic inputs < Ns = 4
    with pytest.raises(ValueError, match="alpha \\* nx must be >= ns"):
        solve("plasticity-gating", tasks, gates=gates)


def test_fisher_at_identical_features_matches_the_appendix_formula():
    # Appendix "Fixed features": W = W_{mu-1}(I - U U^T/(1 + lam)) + B A^+/(1 + lam)
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=1.0, rho_b=0.3, seed=4)
    lam = 1.5
    W = weights(solve("fisher", tasks, lam=lam, first_task="own-metric"))
    A = tasks.A[0]
    U = np.linalg.svd(A, full_matrices=False)[0]
    W1 = tasks.B[0] @ np.linalg.pinv(A) / (1 + lam)
    W2 = W1 @ (np.eye(NX) - U @ U.T / (1 + lam)) + tasks.B[1] @ np.linalg.pinv(A) / (1 + lam)
    assert relative_gap(W[1:], [W1, W2]) < EXACT


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("lam", [1e-3, 1.0, 1e3])
def test_fisher_retention_is_exactly_perfect_at_finite_n_when_features_differ(lam, generator):
    """Paper: Delta eps_RT = 1 - O(Ns / (Nx (1 - rho_a^2))). At finite N with 2 Ns <= Nx the
    exact minimizer meets W_2 A_2 = B_2 and (W_2 - W_1) A_1 = 0 at once: eps_1[W_2] = 0 for
    every lam > 0, so the retention is exactly eps_1[W_0] (mean 1), independent of lam."""
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.9, rho_b=0.2, generator=generator, seed=8)
    s = solve("fisher", tasks, lam=lam)
    W = weights(s)
    np.testing.assert_allclose(W[2] @ tasks.A[0], W[1] @ tasks.A[0], atol=1e-9)
    np.testing.assert_allclose(W[2] @ tasks.A[1], tasks.B[1], atol=1e-9)
    E = error_matrix(s, rho_b=0.2)
    assert E[0, 2] < 1e-18 and E[1, 2] < 1e-18
    _, retention = transfer_retention(E)
    assert retention[0] == pytest.approx(E[0, 0], abs=1e-15)
    assert E[0, 0] == pytest.approx(1.0, abs=1e-15)  # E_B eps_1[W_0] = 1 exactly


def test_fisher_forgets_when_the_stacked_features_are_not_tall():
    # 2 Ns > Nx: [A_1, A_2] cannot have full column rank, both constraints cannot hold
    tasks = draw_tasks(nx=10, ns=8, ny=NY, rho_a=0.5, rho_b=0.2, seed=8)
    E = error_matrix(solve("fisher", tasks, lam=1.0), rho_b=0.2)
    assert E[0, 2] > 1e-3


def test_fisher_diag_differs_from_fisher_and_depends_on_lambda():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.2, seed=9)
    diag = [readout_error_matrix(solve("fisher-diag", tasks, lam=lam))[0, 2] for lam in (0.1, 10)]
    exact = readout_error_matrix(solve("fisher", tasks, lam=1.0))[0, 2]
    assert exact < 1e-18 < min(diag) and diag[1] < diag[0]


def test_fisher_diag_limit_is_discontinuous_at_zero_lambda():
    """lam = 0 is plain least squares (vanilla); lam -> 0+ is the Delta-weighted least-norm
    change, which converges elsewhere."""
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.2, seed=9)
    zero = weights(solve("fisher-diag", tasks, lam=0.0))
    vanilla = weights(solve("vanilla", tasks))
    tiny = weights(solve("fisher-diag", tasks, lam=1e-9))
    assert relative_gap(zero, vanilla) < EXACT
    assert relative_gap(tiny, vanilla) > 1e-3


def test_psd_pinv_drops_eigenvalues_below_the_documented_tolerance():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 4))  # rank 2
    P, rank = psd_pinv(F.T @ F)
    assert rank == 2
    np.testing.assert_allclose(P, np.linalg.pinv(F.T @ F, rcond=1e-10, hermitian=True), atol=1e-10)


def test_readout_map_of_fisher_is_one_code_path_for_equal_and_different_features():
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=1.0, rho_b=0.3, seed=4)
    span = ExplicitBlocks(tasks.A).span(("A1", "A2"))
    same_block = readout_map(Step(2, "fisher", "A1", lam=2.0, metric="A1"), span)
    other_block = readout_map(Step(2, "fisher", "A2", lam=2.0, metric="A1"), span)
    # A_1 == A_2: the weight change M X^T is the same whichever block carries it
    X = np.hstack(tasks.A)
    np.testing.assert_allclose(same_block @ X.T, other_block @ X.T, atol=1e-12)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_required_blocks_are_the_blocks_of_the_solution_span(model):
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=0.5, rho_b=0.5, n_tasks=3, seed=0)
    kwargs = {"alpha": 0.5} if "gating" in model else {"gamma": 0.5} if model != "vanilla" else {}
    s = solve(model, tasks, seed=0, **kwargs)
    assert s.span.names == required_blocks(model, 3)
