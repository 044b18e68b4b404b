"""Specifications of tasksim.derivations.euclidean and tasksim.derivations.fisher (Sec. 5; Appendix
subsec_appendix_wreg_euc, subsec_appendix_FIM).

Each derived result is checked against the paper and against an independent computation
(numpy on explicit matrices, or a different symbolic route), and the derivations are shown to
respond to their inputs: the regularizer's normalisation, the surrogate value, the generator,
the first-task variant.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tasksim.derivations import euclidean as euc
from tasksim.derivations import span_algebra as alg
from tasksim.derivations import fisher as fim
from tasksim.derivations.claims import evaluate, leading_order
from tasksim.derivations.engine import ratio_expansion
from tasksim.derivations.matrix_words import eye, opaque, readout, task
from tasksim.derivations.symbols import Ns, Nx, Ny, gamma, gamma_f, lam, rho_a, rho_b
from tasksim.solvers.tasks import draw_tasks

VANILLA_TF = rho_a * (2 * rho_b - rho_a)
VANILLA_RT = 1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1)


def same(a: sp.Expr, b: sp.Expr) -> bool:
    return sp.simplify(sp.expand(a - b)) == 0


# =========================================================================================
# Euclidean: the solution and the Woodbury step
# =========================================================================================

def test_euclidean_gradient_is_computed_from_the_loss_and_follows_its_weight():
    W, W0 = sp.MatrixSymbol("W", Ny, Nx), sp.MatrixSymbol("W0", Ny, Nx)
    A, B = sp.MatrixSymbol("A", Nx, Ns), sp.MatrixSymbol("B", Ny, Ns)
    for weight in (lam, 3 * lam):
        loss = alg.frobenius2(B - W * A) / 2 + weight / 2 * alg.frobenius2(W - W0)
        M, R = alg.split_linear(alg.matrix_gradient(loss, W), W)
        assert sp.expand(M - (A * A.T + weight * sp.Identity(Nx))).doit() == sp.ZeroMatrix(Nx, Nx)
        assert sp.expand(R - (B * A.T + weight * W0)).doit() == sp.ZeroMatrix(Ny, Nx)


def test_stationary_solution_satisfies_the_stationarity_condition():
    gradient, M, W_star = euc.stationary_solution()
    R = W_star.args[0]
    assert sp.expand(W_star * M - R).doit() == sp.ZeroMatrix(Ny, Nx)


def test_split_linear_rejects_an_expression_that_is_not_right_linear():
    W, C = sp.MatrixSymbol("W", 2, 3), sp.MatrixSymbol("C", 2, 2)
    with pytest.raises(ValueError, match="right-linear"):
        alg.split_linear(C * W, W)


def test_woodbury_form_is_an_exact_two_sided_inverse():
    left, right = euc.woodbury_residuals()
    assert left.terms_count() == 0 and right.terms_count() == 0


def test_woodbury_check_fails_for_a_wrong_middle_factor():
    A = task(1)
    K = opaque("K", "s", "s", symmetric=True)
    M = A @ A.T + lam * eye("x")
    wrong = eye("x") / lam - A @ K @ A.T / lam  # 1/lam instead of 1/lam^2
    residual = (M @ wrong - eye("x")).replace(A.T @ A @ K, lam * (eye("s") - K))
    assert residual.terms_count() > 0


def test_woodbury_middle_factor_agrees_with_a_numeric_inverse():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((7, 3)) / np.sqrt(3)
    lam_value = 0.7
    G = A.T @ A
    m = sp.lambdify(sp.Symbol("g"), euc.woodbury_middle_factor().subs(lam, lam_value))
    # m(G) as a matrix function of the symmetric G: through its eigen-decomposition
    values, vectors = np.linalg.eigh(G)
    middle = vectors @ np.diag([m(v) for v in values]) @ vectors.T
    inverse = np.eye(7) / lam_value + A @ middle @ A.T
    assert np.allclose(inverse @ (A @ A.T + lam_value * np.eye(7)), np.eye(7))


def test_inverse_surrogate_is_gamma_tilde_and_follows_the_gram_value():
    assert same(euc.inverse_surrogate(), Ns / (Nx + lam * Ns))
    m = euc.woodbury_middle_factor()
    doubled = sp.factor(-lam * m.subs(sp.Symbol("g"), 2 * Nx / Ns))
    assert same(doubled, Ns / (2 * Nx + lam * Ns))


def test_gamma_is_the_appendix_definition():
    assert same(euc.gamma_of_lambda(), Nx / (Nx + lam * Ns))


# =========================================================================================
# Euclidean: weights, transfer, retention
# =========================================================================================

def test_weights_are_the_appendix_surrogate_weights():
    W1, W2 = euc.weights()
    gt = Ns / (Nx + lam * Ns)
    A1, A2, B1, B2 = task(1), task(2), readout(1), readout(2)
    assert W1 == gt * (B1 @ A1.T)
    assert W2 == gt * (B1 @ A1.T + B2 @ A2.T) - gt**2 * (B1 @ A1.T @ A2 @ A2.T)


def test_unregularized_first_task_changes_W1_to_the_pseudo_inverse_surrogate():
    W1, _ = euc.weights(first_task="unregularized")
    assert W1 == (Ns / Nx) * (readout(1) @ task(1).T)
    with pytest.raises(ValueError, match="first_task"):
        euc.weights(first_task="other")


def test_euclidean_transfer_and_retention_are_the_printed_eq_wr_epsilon_TF():
    assert same(euc.transfer(), gamma * rho_a * (2 * rho_b - gamma * rho_a))
    printed_rt = (1 - gamma**2 * rho_a**2 * (1 - 2 * gamma * rho_a * rho_b + gamma**2 * rho_a**2)
                  + 2 * gamma * rho_a * (1 - gamma) * (rho_b - gamma * rho_a) - (1 - gamma)**2)
    assert same(euc.retention(), printed_rt)


def test_no_regularization_gives_the_vanilla_model():
    assert same(euc.transfer().subs(gamma, 1), VANILLA_TF)
    assert same(euc.retention().subs(gamma, 1), VANILLA_RT)


def test_an_amplitude_without_the_Nx_over_Ns_scale_has_no_effect_at_leading_order():
    unscaled = 1 / gamma - 1  # lam = O(1), negligible against A A^T ~ Nx/Ns
    assert same(leading_order(euc.transfer(lam_value=unscaled)), VANILLA_TF)
    assert euc.transfer(lam_value=unscaled).has(Nx)


def test_retention_pieces_sum_to_the_error_and_match_the_appendix():
    pieces = euc.retention_pieces()
    assert same(pieces["first"] + 2 * pieces["cross"] + pieces["last"],
                euc.error_task1_after_task2())
    assert same(pieces["first"], (1 - gamma)**2)
    assert same(pieces["cross"], rho_a * gamma * (1 - gamma) * (gamma * rho_a - rho_b))
    assert same(pieces["last"],
                rho_a**2 * gamma**2 * (1 - 2 * rho_a * rho_b * gamma + rho_a**2 * gamma**2))


def test_finite_n_transfer_uses_the_isserlis_fourth_moment_for_the_gaussian_generator():
    # Appendix: (2 g~ rho_b / Ns) E tr[A1^T A2] - (g~^2 / Ns) E ||A1^T A2||^2 with
    # eq_ap_aquad_isserlis: E||A1^T A2||^2 = Nx^2 rho^2/Ns + Nx + Nx rho^2/Ns.
    gt = gamma * Ns / Nx
    isserlis = 2 * gt * rho_b * Nx * rho_a / Ns - gt**2 / Ns * (
        Nx**2 * rho_a**2 / Ns + Nx + Nx * rho_a**2 / Ns)
    assert same(euc.transfer("gaussian"), isserlis)


def test_finite_n_results_depend_on_the_generator_but_not_at_leading_order():
    for quantity in (euc.transfer, euc.retention):
        gaussian, appendix = quantity("gaussian"), quantity("appendix")
        assert not same(gaussian, appendix)
        assert same(ratio_expansion(gaussian, 0)[0], quantity())
        assert same(ratio_expansion(appendix, 0)[0], quantity())
    for name in ("first", "cross", "last"):
        for generator in ("gaussian", "appendix"):
            exact = euc.retention_pieces(generator)[name]
            assert same(ratio_expansion(exact, 0)[0], euc.retention_pieces()[name])


def test_finite_n_transfer_matches_a_monte_carlo_average_over_task_matrices():
    nx, ns, g, ra, rb = 40, 4, 0.6, 0.7, 0.3
    exact = float(euc.transfer("gaussian").subs({Nx: nx, Ns: ns, gamma: g, rho_a: ra,
                                                 rho_b: rb}))
    values = []
    for seed in range(3000):
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=ra, rho_b=rb, generator="gaussian", seed=seed)
        C = t.A[0].T @ t.A[1]
        gt = g * ns / nx
        # exact over B: (1/Ns)[2 gt rho_b tr C - gt^2 ||C||^2]
        values.append((2 * gt * rb * np.trace(C) - gt**2 * np.sum(C * C)) / ns)
    mean, se = np.mean(values), np.std(values) / np.sqrt(len(values))
    assert abs(mean - exact) < 4 * se


def test_expected_error_rejects_unknown_expectation_and_wrong_shapes():
    with pytest.raises(ValueError, match="expectation"):
        alg.expected_error(readout(1), "exact")
    with pytest.raises(ValueError, match="residual"):
        alg.expected_error(task(1), "gaussian")
    with pytest.raises(ValueError, match="expectation"):
        euc.transfer("nope")


# =========================================================================================
# Euclidean: optimal regularization and averages
# =========================================================================================

def test_optimal_gamma_for_transfer_is_the_gating_optimum():
    assert euc.optimal_gamma_transfer() == sp.Min(1, rho_b / rho_a)


@pytest.mark.parametrize("ra, rb", [(1.0, 0.0), (0.8, 0.5), (0.5, 0.9), (0.3, 0.1), (0.0, 0.4)])
def test_optimal_gamma_for_retention_matches_a_grid_search(ra, rb):
    f = sp.lambdify(gamma, euc.retention().subs({rho_a: ra, rho_b: rb}))
    grid = np.linspace(1e-4, 1.0, 20001)
    best = grid[np.argmax(f(grid))]
    assert abs(euc.optimal_gamma_retention(ra, rb) - best) < 1e-3


def test_optimal_gamma_for_retention_validates_its_input():
    with pytest.raises(ValueError, match="rho_a"):
        euc.optimal_gamma_retention(1.5, 0.2)


def test_some_regularization_helps_retention_except_on_the_edges():
    slope = sp.lambdify((rho_a, rho_b), euc.retention_slope_at_no_regularization())
    a, b = np.meshgrid(np.linspace(0.01, 1, 60), np.linspace(0, 1, 60))
    values = slope(a, b)
    interior = ~((a == 1.0) & (b == 1.0))
    assert np.all(values[interior] < 0)
    assert slope(1.0, 1.0) == 0 and slope(0.0, 0.5) == 0


def test_fig4d_averages_and_the_tradeoff_window():
    assert same(euc.average_transfer(), gamma / 2 - gamma**2 / 3)
    assert euc.average_retention().subs(gamma, 1) == sp.Rational(43, 60)
    roots = [r for r in sp.Poly(sp.diff(euc.average_retention(), gamma)).real_roots()
             if 0 < r <= 1]
    assert len(roots) == 1 and 0.73 < float(roots[0]) < 0.735  # below the transfer's 3/4


# =========================================================================================
# Fisher metric: the information matrix and the block system
# =========================================================================================

def test_fisher_information_prefactor_is_one_over_sigma_squared():
    assert fim.fisher_information() == 1 / fim.sigma**2
    assert fim.fisher_information(1, 2, 3) == 1 / fim.sigma**2


def test_fisher_information_prefactor_matches_a_numeric_hessian():
    rng = np.random.default_rng(1)
    x, y, sigma = rng.standard_normal(4), rng.standard_normal(2), 0.8
    W = rng.standard_normal((2, 4))
    nll = lambda M: np.sum((M @ x - y) ** 2) / (2 * sigma**2)  # noqa: E731
    step, (i, j, l) = 1e-4, (1, 2, 3)
    E = lambda a, b: np.eye(1, 8, 4 * a + b).reshape(2, 4)  # noqa: E731
    hess = (nll(W + step * (E(i, j) + E(i, l))) - nll(W + step * E(i, j))
            - nll(W + step * E(i, l)) + nll(W)) / step**2
    assert np.isclose(hess, x[j] * x[l] / sigma**2, rtol=1e-4)


def test_fisher_regularizer_is_the_metric_norm():
    assert fim.regularizer_is_metric_norm()
    assert fim.regularizer_is_metric_norm(1, 5, 2)


def test_gradient_ends_in_the_previous_and_current_features_for_any_weight():
    blocks = alg.split_by_last_letter(fim.gradient_words(False), [task(1).T, task(2).T])
    assert len(blocks) == 2


def test_block_system_is_the_printed_one():
    M, R = fim.block_system()
    A1, A2 = task(1), task(2)
    assert M[0][0] == lam * (A1.T @ A1) and M[0][1] == A1.T @ A2
    assert M[1][0] == lam * (A2.T @ A1) and M[1][1] == A2.T @ A2
    assert R[0].terms_count() == 0 and R[1] == fim.B_MU - fim.W_PREV @ A2


def test_exact_fixed_point_conditions_are_free_of_lambda():
    c0, c1 = fim.exact_conditions()
    A1, A2 = task(1), task(2)
    assert c0 == (fim.W_OPAQUE - fim.W_PREV) @ A1
    assert c1 == fim.W_OPAQUE @ A2 - fim.B_MU
    assert not any(c.has(lam) for _, c in list(c0) + list(c1))


@pytest.mark.parametrize("lam_value", [0.1, 1.0, 25.0])
def test_numeric_fixed_point_learns_task_2_and_keeps_task_1_for_every_lambda(lam_value):
    rng = np.random.default_rng(2)
    t = draw_tasks(nx=30, ns=3, ny=2, rho_a=0.6, rho_b=0.4, seed=3)
    A1, A2, B = t.A[0], t.A[1], t.B[1]
    W0 = rng.standard_normal((2, 3)) @ A1.T  # a previous weight in the span of A_1
    X = np.concatenate([A1, A2], axis=1)
    G = X.T @ X
    # the derived block system Q M = [0, B - W0 A2] with M = [[lam A1^T A1, A1^T A2],
    # [lam A2^T A1, A2^T A2]]
    M = np.block([[lam_value * G[:3, :3], G[:3, 3:]], [lam_value * G[3:, :3], G[3:, 3:]]])
    rhs = np.concatenate([np.zeros((2, 3)), B - W0 @ A2], axis=1)
    Q = np.linalg.solve(M.T, rhs.T).T
    W = W0 + Q @ X.T
    assert np.allclose(W @ A2, B) and np.allclose((W - W0) @ A1, 0)


def test_surrogate_block_inverse_and_weight_are_printed_and_free_of_lambda():
    expected = Ns / (Nx * (1 - rho_a**2)) * sp.Matrix([[1 / lam, -rho_a / lam], [-rho_a, 1]])
    assert sp.simplify(fim.surrogate_block_inverse() - expected) == sp.zeros(2, 2)
    c = Ns / (Nx * (1 - rho_a**2))
    A1, A2 = task(1), task(2)
    printed = (fim.W_PREV @ (eye("x") - c * (A2 @ (A2.T - rho_a * A1.T)))
               + c * (fim.B_MU @ (A2.T - rho_a * A1.T)))
    assert fim.surrogate_step() == printed
    assert all(sp.simplify(sp.diff(coeff, lam)) == 0 for _, coeff in fim.surrogate_step())


def test_first_task_variants_give_the_vanilla_first_weight():
    target = (Ns / Nx) * (readout(1) @ task(1).T)
    assert fim.weights("unregularized")[0] == target
    assert fim.weights("independent_metric")[0] == target


def test_fisher_transfer_is_the_vanilla_transfer_at_every_order_computed():
    for first in ("unregularized", "independent_metric"):
        assert same(fim.transfer(first_task=first), VANILLA_TF)
    # at finite N too, W_1 is the vanilla surrogate weight: compare with Euclidean at gamma = 1
    assert same(fim.transfer("gaussian"), euc.transfer("gaussian").subs(gamma, 1))


# =========================================================================================
# Fisher metric: retention
# =========================================================================================

def test_surrogate_retention_is_one_and_the_exact_fixed_point_retains_exactly():
    assert fim.retention() == 1
    value, residual = fim.exact_retention()
    assert value == 1 and residual.terms_count() == 0


def test_finite_n_retention_loses_order_Ns_over_Nx_with_a_pole_at_rho_a_one():
    for generator in ("gaussian", "appendix"):
        coefficients = ratio_expansion(fim.retention(generator), 1)
        assert coefficients[0] == 1
    c1 = fim.retention_first_order("gaussian")
    assert same(c1, -(2 * (1 - rho_a * rho_b) / (1 - rho_a**2) + 1 / Ns))
    assert same(sp.cancel((1 - rho_a) * c1).subs(rho_a, 1), -(1 - rho_b))


def test_appendix_expansion_of_the_retention_is_algebraically_right():
    for generator in ("gaussian", "appendix"):
        assert same(fim._expansion_as_printed(generator), fim.retention(generator))


def test_retention_pieces_are_exact_for_the_gaussian_generator():
    c = Ns / (Nx * (1 - rho_a**2))
    assert same(fim.retention_piece("second"), (Ns + 1) / Nx)
    assert same(fim.retention_piece("norm"), c)
    assert same(fim.retention_piece("trace"), c * rho_a * (1 + 2 / (Nx * Ns)))
    assert same(fim.retention_piece("cross"), -Ns * (Ns + 1) / Nx**2)


def test_retention_pieces_under_the_appendix_generator_gain_a_1_over_Nx_term():
    c = Ns / (Nx * (1 - rho_a**2))
    assert same(fim.retention_piece("second", "appendix"), (Ns + 1) / Nx)
    extra = fim.retention_piece("norm", "appendix") - c
    assert same(extra, 2 * rho_a / (Nx * (1 - rho_a) * (1 + rho_a)**2))


def test_cross_term_as_printed_is_not_zero_at_order_Ns_over_Nx():
    printed = fim.retention_piece("cross_printed")
    assert same(printed, -rho_a * (Ns + 1) * (Ns + Nx) / Nx**2)
    assert leading_order(sp.expand(printed * Nx / Ns)) != 0
    assert leading_order(sp.expand(fim.retention_piece("cross") * Nx / Ns)) == 0


def test_retention_piece_rejects_an_unknown_name():
    with pytest.raises(ValueError, match="name"):
        fim.retention_piece("fourth")


# =========================================================================================
# Fisher metric: fixed features (rho_a = 1)
# =========================================================================================

def test_rho1_fixed_point_is_the_printed_one():
    U, V, Li = alg.SVD_U, alg.SVD_V, alg.SVD_LAMBDA_INV
    printed = (fim.W_PREV @ (eye("x") - (U @ U.T) / (1 + lam))
               + fim.B_MU @ V @ Li @ U.T / (1 + lam))
    assert fim.fixed_point_rho1() == printed


def test_rho1_transfer_is_printed():
    assert same(fim.transfer_rho1(), gamma_f * (2 * rho_b - gamma_f))


def test_rho1_retention_differs_from_the_printed_one_in_the_rho_b_coefficient():
    derived = fim.retention_rho1()
    printed = (2 * gamma_f * (1 - gamma_f)**2 - gamma_f**4
               + 2 * gamma_f * ((1 - gamma_f)**2 - gamma_f**2) * rho_b)
    assert same(derived.subs(rho_b, 0), printed.subs(rho_b, 0))
    assert same(sp.diff(derived, rho_b), 2 * gamma_f * (1 - gamma_f + gamma_f**2))
    # lam = 0 must give the vanilla retention at rho_a = 1, 2 rho_b - 1
    assert same(derived.subs(gamma_f, 1), 2 * rho_b - 1)
    assert same(printed.subs(gamma_f, 1), -1 - 2 * rho_b)


@pytest.mark.parametrize("first_task", ["regularized", "unregularized"])
def test_rho1_errors_match_numeric_matrices(first_task):
    rng = np.random.default_rng(4)
    A = rng.standard_normal((25, 3)) / np.sqrt(3)
    lam_value, rb = 0.8, 0.35
    gf = 1 / (1 + lam_value)
    pinv = np.linalg.pinv(A)
    U = np.linalg.svd(A, full_matrices=False)[0]
    g1 = gf if first_task == "regularized" else 1.0
    # W_1 = g1 B_1 A^+, W_2 = W_1 (I - gf U U^T) + gf B_2 A^+, written as B_1 X_1 + B_2 X_2
    X1_W2A = g1 * (pinv @ A - gf * pinv @ U @ (U.T @ A))
    X2_W2A = gf * pinv @ A
    R1, R2 = np.eye(3) - X1_W2A, -X2_W2A  # B_1 - W_2 A = B_1 R1 + B_2 R2
    error = (np.sum(R1 * R1) + np.sum(R2 * R2) + 2 * rb * np.sum(R1 * R2)) / 3
    derived = fim.retention_rho1(first_task).subs({gamma_f: gf, rho_b: rb})
    assert np.isclose(1 - error, float(derived))


def test_rho1_first_task_variant_changes_the_retention_as_printed():
    assert same(fim.retention_rho1("unregularized"), 1 - 2 * gamma_f**2 * (1 - rho_b))
    assert not same(fim.retention_rho1("unregularized"), fim.retention_rho1("regularized"))
    with pytest.raises(ValueError, match="first_task"):
        fim.weights_rho1("sometimes")


# =========================================================================================
# The claims
# =========================================================================================

FAST_STATUSES = {
    "euclidean.gamma_definition": "verified",
    "euclidean.stationary_solution": "verified",
    "euclidean.woodbury": "verified",
    "euclidean.inverse_surrogate": "verified",
    "euclidean.W1": "verified",
    "euclidean.W2": "verified",
    "euclidean.transfer": "verified",
    "euclidean.retention": "verified",
    "euclidean.error_task1_after_task2": "verified",
    "euclidean.retention_piece.first": "verified",
    "euclidean.retention_piece.cross": "verified",
    "euclidean.retention_piece.last": "verified",
    "euclidean.transfer_equals_random_gating": "verified",
    "euclidean.optimal_gamma_transfer": "verified",
    "euclidean.retention_optimum_interior": "verified",
    "euclidean.average_transfer": "open",  # the paper prints no average
    "euclidean.average_retention_no_regularization": "verified",
    "euclidean.no_tradeoff": "erratum",  # a tradeoff window gamma in (0.7319, 0.75)
    "euclidean.gamma_limits": "verified",
    "euclidean.impairs_acquisition": "verified",
    "euclidean.retention_extra_terms": "verified",
    "euclidean.W1.exact": "verified",
    "euclidean.W2.exact": "verified",
    "fisher.retention.under_w2": "verified",
    "euclidean.optimal_average_retention_low": "verified",
    "euclidean.less_robust_than_fisher": "verified",
    "fisher.invertibility": "verified",
    "fisher.discontinuity_at_rho_a_one": "verified",
    "fisher.discontinuity_at_lambda_zero": "verified",
    "euclidean.transfer.finite_n.gaussian": "leading order",
    "euclidean.transfer.finite_n.appendix": "leading order",
    "fisher.fim_prefactor": "erratum",
    "fisher.regularizer_norm": "verified",
    "fisher.block_system": "verified",
    "fisher.exact_lambda_independence": "verified",
    "fisher.surrogate_block_inverse": "verified",
    "fisher.weight": "verified",
    "fisher.weight_lambda_independence": "verified",
    "fisher.W1.unregularized": "verified",
    "fisher.W1.independent_metric": "verified",
    "fisher.W2": "verified",
    "fisher.transfer_equals_vanilla.unregularized": "verified",
    "fisher.transfer_equals_vanilla.independent_metric": "verified",
    "fisher.retention": "verified",
    "fisher.retention.exact_fixed_point": "verified",
    "fisher.retention_piece.second.gaussian": "verified",
    "fisher.retention_piece.norm.gaussian": "verified",
    "fisher.retention_piece.trace.gaussian": "verified",
    "fisher.retention_piece.cross.gaussian": "leading order",
    "fisher.retention_piece.cross_printed.gaussian": "erratum",
    "fisher.retention_piece.second.appendix": "verified",
    "fisher.retention_piece.norm.appendix": "erratum",
    "fisher.rho1.fixed_point": "verified",
    "fisher.rho1.W1": "verified",
    "fisher.rho1.W2": "verified",
    "fisher.rho1.transfer": "verified",
    "fisher.rho1.retention": "erratum",
    # the printed line 1265 evaluated at lam = 0 (-1 - 2 rho_b) against the derived 2 rho_b - 1
    "fisher.rho1.retention_no_regularization": "erratum",
    "fisher.rho1.retention.unregularized_first": "verified",
    # the printed value is the vanilla transfer averaged over the unit square (line 331)
    "fisher.average_transfer": "verified",
    "fisher.average_retention": "verified",  # line 290, clause 1: the print is 1 (line 328)
    "fisher.retention.expansion.typo_1163": "erratum",   # a misprint (A_1^T A_1^T)
    "fisher.retention_piece.trace.typo_1200": "erratum",  # a misprint (A_2^T - rho_a A_1)
}

SLOW_STATUSES = {
    "euclidean.retention.finite_n.gaussian": "leading order",
    "euclidean.retention.finite_n.appendix": "leading order",
    **{f"euclidean.retention_piece.{n}.finite_n.{g}": "leading order"
       for n in ("first", "cross", "last") for g in ("gaussian", "appendix")},
    "fisher.transfer.finite_n.gaussian": "leading order",
    "fisher.transfer.finite_n.appendix": "leading order",
    "fisher.retention.finite_n.gaussian": "leading order",
    "fisher.retention.finite_n.appendix": "leading order",
    "fisher.retention.expansion.gaussian": "verified",
    "fisher.retention.expansion.appendix": "verified",
    "fisher.retention_piece.trace.appendix": "erratum",
    "fisher.retention_piece.cross.appendix": "leading order",
    "fisher.retention_piece.cross_printed.appendix": "erratum",
}


def _claims_by_id():
    return {c.id: c for c in euc.CLAIMS + fim.CLAIMS}


def test_every_claim_has_an_expected_status():
    assert set(_claims_by_id()) == set(FAST_STATUSES) | set(SLOW_STATUSES)


@pytest.mark.parametrize("claim_id", sorted(FAST_STATUSES))
def test_claim_status(claim_id):
    verdict = evaluate(_claims_by_id()[claim_id])
    assert verdict.status == FAST_STATUSES[claim_id], verdict.note
    if verdict.status in ("erratum", "open"):
        assert verdict.note


@pytest.mark.paper_scale
@pytest.mark.parametrize("claim_id", sorted(SLOW_STATUSES))
def test_finite_n_claim_status(claim_id):
    verdict = evaluate(_claims_by_id()[claim_id])
    assert verdict.status == SLOW_STATUSES[claim_id], verdict.note


@pytest.mark.parametrize("call, name", [
    (lambda: fim.fisher_information(0, 3, 2), "ny"),
    (lambda: fim.regularizer_is_metric_norm(2, -1, 2), "nx"),
    (lambda: fim.retention_piece("norm", "uniform"), "generator"),
    (lambda: fim.retention_first_order("uniform"), "generator"),
    (lambda: fim.transfer("exact"), "expectation"),
    (lambda: euc.optimal_gamma_retention(0.5, float("nan")), "rho_b"),
])
def test_bad_input_raises_a_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_optimal_gamma_for_retention_is_no_regularization_for_identical_tasks():
    """At (rho_a, rho_b) = (1, 1) the derivative has a multiple root at gamma = 1; the
    optimum must still be found (a floating-point root finder failed to converge there)."""
    from tasksim.derivations.euclidean import optimal_gamma_retention

    assert optimal_gamma_retention(1.0, 1.0) == 1.0


def test_line_316s_tradeoff_at_the_paper_s_sizes_comes_from_the_exact_1_over_nx_terms():
    """REFEREE39 2a, REFEREE40 m3: the tradeoff of line 316 (0.00037 in average retention in
    the stated limit) is taken again with the exact 1/Nx terms at Nx = 3000, Ns = 30: it
    narrows (about 4.5e-5) but stays, a step under the statement; the paper's sizes there are
    sizes.PAPER_SIZES'."""
    from tasksim.derivations import finite_size
    from tasksim.derivations.claims import evaluate
    from tasksim.derivations.sizes import PAPER_SIZES
    from tasksim.derivations.symbols import Ns, Nx

    assert (finite_size.PAPER_NX, finite_size.PAPER_NS) == (PAPER_SIZES[Nx], PAPER_SIZES[Ns])
    claim = next(c for c in finite_size.CLAIMS if c.id == "euclidean.no_tradeoff.at_paper_sizes")
    assert claim.line == 316 and not claim.headline
    gain = float(evaluate(claim).derived)
    assert 3e-5 < gain < 1e-4
