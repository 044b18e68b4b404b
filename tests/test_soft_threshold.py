"""Input soft-thresholding model (Sec. 5.3, Appendix B.3 subsec_appndix_input_soft_thresholding).

Specifications of tasksim.solvers.soft_threshold_moments (exact input moments given A),
tasksim.solvers.soft_threshold (exact limit, closed-form GD, error matrices, expectation over B) and
tasksim.solvers.soft_threshold_sampled (the paper's literal sampled-gradient protocol).
"""
from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate

from tasksim.solvers.soft_threshold import (
    SoftThresholdProblem,
    prepare_soft_threshold,
    soft_threshold_solution,
    solve_soft_threshold,
    task_error,
    task_spectrum,
    transfer_retention,
)
from tasksim.solvers.soft_threshold_moments import (
    CRAMER_K,
    active_fraction,
    diagonal_moment,
    input_moments,
    pair_moment,
    series_coefficients,
    series_remainder_bound,
    soft_threshold,
    threshold_from_sparsity,
)
from tasksim.solvers.soft_threshold_sampled import sampled_gradient, sampled_gradient_descent
from tasksim.solvers.tasks import GENERATORS, correlated_successor, draw_tasks

# Tolerances, in one place. Closed forms are compared with 30-digit mpmath quadrature at
# rounding level; with scipy's 2-D quadrature at its own accuracy; Monte Carlo by z-scores.
ROUNDING = 1e-13
DBLQUAD = 1e-9
Z_MAX = 5.0  # |z| above which a Monte Carlo comparison fails (P ~ 6e-7 per entry)


def _rows_with(sigma_1: float, sigma_2: float, r: float) -> np.ndarray:
    """A 2 x 2 task matrix whose rows have norms sigma_1, sigma_2 and correlation r."""
    return np.array([[sigma_1, 0.0], [sigma_2 * r, sigma_2 * math.sqrt(1.0 - r * r)]])


def _mp_conditional_reference(t: float, u: float, r: float) -> float:
    """F(t, u, r) = E[psi_t(X) psi_u(Y)] as a 1-D mpmath integral over X of
    psi_t(x) E[psi_u(Y) | X = x] (Y | x ~ N(r x, 1 - r^2)); exact also at |r| = 1."""
    with mp.workdps(30):
        t, u, r = mp.mpf(t), mp.mpf(u), mp.mpf(r)
        s = mp.sqrt(1 - r * r)

        def excess(d):  # E[(Z - 0)_+] for Z ~ N(d, s^2)
            return d * mp.ncdf(d / s) + s * mp.npdf(d / s) if s > 0 else max(d, 0)

        def conditional(x):
            return excess(r * x - u) - excess(-r * x - u)

        def psi(x):
            return mp.sign(x) * max(abs(x) - t, 0)

        kinks = sorted({float(t), float(u / abs(r)) if r != 0 else float(t)})
        pts = [mp.mpf(k) for k in kinks]
        right = mp.quad(lambda x: psi(x) * conditional(x) * mp.npdf(x), [t] + [p for p in pts if p > t] + [mp.inf])
        left = mp.quad(lambda x: psi(x) * conditional(x) * mp.npdf(x), [-mp.inf] + [-p for p in reversed(pts) if p > t] + [-t])
        return float(right + left)


# ---------------------------------------------------------------------------------------
# Moments
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.05, 0.3, 0.9, 1.0])
def test_threshold_leaves_fraction_alpha_of_unit_variance_inputs_active(alpha):
    h = threshold_from_sparsity(alpha)
    assert float(active_fraction(1.0, h)) == pytest.approx(alpha, rel=1e-13)
    with mp.workdps(30):
        assert float(2 * mp.ncdf(-mp.mpf(h))) == pytest.approx(alpha, rel=1e-13)


def test_soft_threshold_is_odd_and_identity_at_zero_threshold():
    x = np.linspace(-3, 3, 61)
    assert np.array_equal(soft_threshold(x, 0.0), x)
    assert np.array_equal(soft_threshold(-x, 0.7), -soft_threshold(x, 0.7))
    assert np.all(soft_threshold(x, 0.7)[np.abs(x) <= 0.7] == 0.0)


def test_cross_moment_is_stein_identity_and_matches_quadrature():
    # E[s_j phi(m_i)] = (A_ij / sigma_i^2) E[m_i phi(m_i)] (regression of s on m), by quadrature
    A = np.random.default_rng(0).standard_normal((5, 3)) / np.sqrt(3)
    h = threshold_from_sparsity(0.2)
    mom = input_moments(A, 0.2)
    for i in range(A.shape[0]):
        sigma = float(np.linalg.norm(A[i]))
        with mp.workdps(30):
            e_m_phi = 2 * mp.quad(lambda m: m * (m - h) * mp.npdf(m, 0, sigma), [h, mp.inf])
        expected = A[i] * float(e_m_phi) / sigma**2
        np.testing.assert_allclose(mom.cross[:, i], expected, rtol=ROUNDING, atol=0)


@pytest.mark.parametrize("sigma, alpha", [(1.0, 0.1), (0.7, 0.5), (1.6, 0.9), (0.4, 0.02)])
def test_diagonal_moment_matches_mpmath_quadrature(sigma, alpha):
    h = threshold_from_sparsity(alpha)
    with mp.workdps(30):
        expected = 2 * mp.quad(lambda m: (m - h) ** 2 * mp.npdf(m, 0, sigma), [h, mp.inf])
    assert float(diagonal_moment(sigma, h)) == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.parametrize(
    "sigma_1, sigma_2, r, alpha",
    [(1.0, 1.1, 0.85, 0.1), (0.9, 1.2, -0.6, 0.5), (1.0, 1.0, 0.3, 0.9), (1.3, 0.8, 0.7, 0.3)],
)
def test_pair_moment_matches_scipy_2d_integration(sigma_1, sigma_2, r, alpha):
    h = threshold_from_sparsity(alpha)
    cov = np.array([[sigma_1**2, r * sigma_1 * sigma_2], [r * sigma_1 * sigma_2, sigma_2**2]])
    prec = np.linalg.inv(cov)
    norm = 1.0 / (2 * np.pi * np.sqrt(np.linalg.det(cov)))

    def integrand(y, x):
        q = prec[0, 0] * x * x + 2 * prec[0, 1] * x * y + prec[1, 1] * y * y
        return (x - math.copysign(h, x)) * (y - math.copysign(h, y)) * norm * math.exp(-0.5 * q)

    L = 12.0 * max(sigma_1, sigma_2)
    total = 0.0
    for xa, xb in [(-L, -h), (h, L)]:
        for ya, yb in [(-L, -h), (h, L)]:
            total += integrate.dblquad(integrand, xa, xb, ya, yb, epsabs=1e-12, epsrel=1e-11)[0]
    closed = float(pair_moment(sigma_1, sigma_2, r, h))
    assert closed == pytest.approx(total, abs=DBLQUAD)
    # and the same entry as input_moments computes it for a 2-row task matrix
    mom = input_moments(_rows_with(sigma_1, sigma_2, r), alpha)
    assert mom.second[0, 1] == pytest.approx(closed, abs=ROUNDING)


@pytest.mark.parametrize("r", [0.9, 0.999, 0.999999, 1.0, -1.0, -0.95])
@pytest.mark.parametrize("t, u", [(0.4, 1.3), (1.0, 1.0), (2.2, 0.05)])
def test_closed_form_is_accurate_up_to_perfect_correlation(t, u, r):
    reference = _mp_conditional_reference(t, u, r)
    # sigma = h / t with h = 1: pair_moment(s1, s2, r, h) = s1 s2 F(t, u, r)
    s1, s2 = 1.0 / t, 1.0 / u
    value = float(pair_moment(s1, s2, r, 1.0)) / (s1 * s2)
    assert value == pytest.approx(reference, abs=ROUNDING, rel=1e-11)


@given(
    t=st.floats(0.01, 4.0), u=st.floats(0.01, 4.0), r=st.floats(-0.85, 0.85),
    order=st.sampled_from([1, 3, 7, 15, 35]),
)
def test_series_truncation_error_is_within_the_cramer_bound(t, u, r, order):
    closed = float(pair_moment(1.0 / t, 1.0 / u, r, 1.0)) * t * u
    series = float(pair_moment(1.0 / t, 1.0 / u, r, 1.0, method="series", order=order)) * t * u
    bound = float(series_remainder_bound(t, u, r, order))
    assert abs(closed - series) <= bound + 1e-15


@pytest.mark.parametrize("t", [0.0, 0.3, 1.2, 2.5, 5.0])
def test_cramer_inequality_holds_for_the_series_coefficients(t):
    # c_n / sqrt(n!) = 2 varphi(t) He_{n-2}(t) / sqrt(n!) ; Cramer: |He_k| <= K sqrt(k!) e^{t^2/4}
    c = series_coefficients([t], 401)[1:, 0]
    n = np.arange(3, 402, 2)
    hermite_normalised = c * np.sqrt(n * (n - 1)) / 2.0 / (np.exp(-t * t / 2) / np.sqrt(2 * np.pi))
    assert np.all(np.abs(hermite_normalised) <= CRAMER_K * np.exp(t * t / 4) * (1 + 1e-12))


@pytest.mark.parametrize("n", [1, 3, 5, 9])
def test_series_coefficients_are_hermite_projections_of_the_soft_threshold(n):
    t = 0.8
    with mp.workdps(30):
        integral = 2 * mp.quad(lambda x: (x - t) * mp.hermite(n, x / mp.sqrt(2)) * 2 ** (-mp.mpf(n) / 2)
                               * mp.npdf(x), [t, mp.inf])  # psi odd, He_n odd: twice x > t
        expected = float(integral / mp.sqrt(mp.factorial(n)))
    assert series_coefficients([t], n)[-1, 0] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_series_sums_to_the_diagonal_moment_at_perfect_correlation():
    # Parseval: sum_n c_n^2 / n! = E[psi_t^2]; terms fall like n^-2.5, so the sum converges slowly
    t = 0.9
    c = series_coefficients([t], 40001)[:, 0]
    tail = 2 * CRAMER_K**2 / math.pi * np.exp(-t * t / 2) / 40002  # sum_{n > N} 1/(n(n-1)) / 2
    assert abs(np.sum(c * c) - float(diagonal_moment(1.0, t))) <= tail


@pytest.mark.parametrize("generator", GENERATORS)
def test_input_moments_split_between_series_and_closed_form_is_seamless(generator):
    A = draw_tasks(nx=80, ns=4, ny=1, rho_a=0, rho_b=0, generator=generator, seed=3).A[0]
    default = input_moments(A, 0.25)
    closed_only = input_moments(A, 0.25, series_radius=0.0)
    assert default.closed_form_pairs > 0
    assert closed_only.closed_form_pairs == 80 * 79 // 2  # every pair has |r| > 0
    np.testing.assert_allclose(default.second, closed_only.second, rtol=0,
                               atol=default.truncation_bound + 1e-14)
    assert default.truncation_bound <= 1e-13 * default.second.diagonal().max()
    assert np.array_equal(default.second, default.second.T)


def test_input_moments_match_monte_carlo():
    rng = np.random.default_rng(11)
    A = rng.standard_normal((8, 3)) / np.sqrt(3)
    alpha = 0.4
    mom = input_moments(A, alpha)
    n = 250_000
    S = rng.standard_normal((3, n))
    phi = soft_threshold(A @ S, mom.h)
    products = phi[:, None, :] * phi[None, :, :]
    mean, se = products.mean(axis=2), products.std(axis=2) / np.sqrt(n)
    assert np.max(np.abs(mean - mom.second) / se) < Z_MAX
    cross = S[:, None, :] * phi[None, :, :]
    mean, se = cross.mean(axis=2), cross.std(axis=2) / np.sqrt(n)
    assert np.max(np.abs(mean - mom.cross) / se) < Z_MAX


def test_alpha_one_moments_are_those_of_the_linear_model():
    A = np.random.default_rng(2).standard_normal((15, 3))
    mom = input_moments(A, 1.0)
    assert mom.linear and mom.second is None  # never formed: the model is linear
    np.testing.assert_allclose(mom.times_covariance(np.eye(15)), A @ A.T, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(mom.cross, A.T)


def test_zero_rows_of_A_give_zero_moments():
    A = np.random.default_rng(2).standard_normal((6, 2))
    A[2] = 0.0
    mom = input_moments(A, 0.3)
    assert np.all(mom.second[2] == 0) and np.all(mom.second[:, 2] == 0)
    assert np.all(mom.cross[:, 2] == 0) and np.all(np.isfinite(mom.second))


def test_input_covariance_is_positive_definite_below_alpha_one():
    A = draw_tasks(nx=60, ns=3, ny=1, rho_a=0, rho_b=0, seed=5).A[0]
    assert np.linalg.eigvalsh(input_moments(A, 0.6).second).min() > 0
    assert np.linalg.matrix_rank(input_moments(A, 1.0).times_covariance(np.eye(60))) == 3


# ---------------------------------------------------------------------------------------
# Solutions
# ---------------------------------------------------------------------------------------


def _tasks(generator="appendix", nx=40, ns=3, ny=2, rho_a=0.6, rho_b=0.4, n_tasks=2, seed=0):
    return draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=rho_a, rho_b=rho_b, n_tasks=n_tasks,
                      generator=generator, seed=seed)


@pytest.mark.parametrize("generator", GENERATORS)
def test_alpha_one_exact_limit_is_the_vanilla_pseudo_inverse_solution(generator):
    t = _tasks(generator)
    W1 = t.B[0] @ np.linalg.pinv(t.A[0])
    U2 = np.linalg.svd(t.A[1], full_matrices=False)[0]
    W2 = W1 - (W1 @ U2) @ U2.T + t.B[1] @ np.linalg.pinv(t.A[1])  # eq_gd_fp_vanilla
    res = soft_threshold_solution(t, 1.0, method="exact")
    np.testing.assert_allclose(res.weights[1], W1, atol=1e-12)
    np.testing.assert_allclose(res.weights[2], W2, atol=1e-12)
    assert res.errors[0, 1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("method", ["exact", "gd"])
def test_alpha_one_span_solution_equals_the_full_eigendecomposition_one(method):
    # at alpha = 1 the solver stays in the span of A (thin SVD); forming C = A A^T and
    # eigendecomposing all of it must give the same weights
    t = _tasks(n_tasks=3)
    thin = prepare_soft_threshold(t, 1.0)
    full = dataclasses.replace(thin, spectra=tuple(
        task_spectrum(dataclasses.replace(s.moments, second=A @ A.T))
        for s, A in zip(thin.spectra, t.A)))
    assert thin.spectra[0].eigenvectors.shape == (t.nx, t.ns)
    assert full.spectra[0].eigenvectors.shape == (t.nx, t.nx)
    a = solve_soft_threshold(thin, method=method, n_steps=200)
    b = solve_soft_threshold(full, method=method, n_steps=200)
    for x, y in zip(a.weights, b.weights):
        np.testing.assert_allclose(x, y, atol=1e-10)
    np.testing.assert_allclose(a.expected_errors, b.expected_errors, atol=1e-10)


def test_alpha_one_gd_is_iterated_vanilla_gradient_descent():
    t = _tasks(nx=30)
    eta, n_steps = 0.03, 300
    W = np.zeros((t.ny, t.nx))
    expected = [W]
    for A, B in zip(t.A, t.B):
        for _ in range(n_steps):
            W = W - eta * (W @ A - B) @ A.T
        expected.append(W)
    res = soft_threshold_solution(t, 1.0, method="gd", n_steps=n_steps, eta=eta)
    for got, want in zip(res.weights, expected):
        np.testing.assert_allclose(got, want, atol=1e-11)


@pytest.mark.parametrize("eta_fraction", [0.3, 1.0, 1.5, 1.95])
def test_gd_closed_form_equals_iterating_the_exact_gradient(eta_fraction):
    t = _tasks(nx=30)
    problem = prepare_soft_threshold(t, 0.4)
    eta = eta_fraction / max(s.largest for s in problem.spectra)
    n_steps = 150
    W = np.zeros((t.ny, t.nx))
    expected = [W]
    for spectrum, B in zip(problem.spectra, t.B):
        C, X = spectrum.moments.second, spectrum.moments.cross
        for _ in range(n_steps):
            W = W - eta * (W @ C - B @ X)
        expected.append(W)
    res = solve_soft_threshold(problem, method="gd", n_steps=n_steps, eta=eta)
    for got, want in zip(res.weights, expected):
        np.testing.assert_allclose(got, want, atol=1e-10 * max(1.0, np.abs(want).max()))


def test_gd_with_unboundedly_many_steps_reaches_the_exact_limit():
    problem = prepare_soft_threshold(_tasks(), 0.5)
    gd = solve_soft_threshold(problem, method="gd", n_steps=10**15)
    exact = solve_soft_threshold(problem, method="exact")
    for a, b in zip(gd.weights, exact.weights):
        np.testing.assert_allclose(a, b, atol=1e-7 * np.abs(b).max())
    np.testing.assert_allclose(gd.expected_errors, exact.expected_errors, atol=1e-9)


def test_exact_limit_zeroes_the_expected_gradient():
    problem = prepare_soft_threshold(_tasks(), 0.3)
    res = solve_soft_threshold(problem, method="exact")
    for mu, spectrum in enumerate(problem.spectra):
        W = res.weights[mu + 1]
        gradient = W @ spectrum.moments.second - problem.tasks.B[mu] @ spectrum.moments.cross
        assert np.abs(gradient).max() < 1e-9 * np.abs(problem.tasks.B[mu] @ spectrum.moments.cross).max()


def test_exact_limit_below_alpha_one_forgets_the_previous_weights_entirely():
    # C_2 is positive definite, so P_2 = I and W_2 = B_2 X_2 C_2^{-1}, whatever W_1 was
    t = _tasks(rho_a=0.9, rho_b=0.9)
    problem = prepare_soft_threshold(t, 0.7)
    res = solve_soft_threshold(problem, method="exact")
    m2 = problem.spectra[1].moments
    alone = np.linalg.solve(m2.second, (t.B[1] @ m2.cross).T).T
    np.testing.assert_allclose(res.weights[2], alone, atol=1e-8 * np.abs(alone).max())


@pytest.mark.parametrize("method", ["exact", "gd"])
def test_identical_tasks_lose_nothing(method):
    t = _tasks(rho_a=1.0, rho_b=1.0)
    res = soft_threshold_solution(t, 0.5, method=method, n_steps=500)
    assert res.errors[0, 2] <= res.errors[0, 1] + 1e-12
    if method == "exact":
        np.testing.assert_allclose(res.weights[2], res.weights[1], atol=1e-10)


def test_error_matches_monte_carlo_of_its_definition():
    t = _tasks(nx=20, ns=3, ny=2)
    res = soft_threshold_solution(t, 0.35, method="gd", n_steps=50)
    rng = np.random.default_rng(4)
    n = 200_000
    S = rng.standard_normal((t.ns, n))
    for mu in range(2):
        phi = soft_threshold(t.A[mu] @ S, res.h)
        for nu, W in enumerate(res.weights):
            per_sample = np.sum((t.B[mu] @ S - W @ phi) ** 2, axis=0) / t.ny
            z = (per_sample.mean() - res.errors[mu, nu]) / (per_sample.std() / np.sqrt(n))
            assert abs(z) < Z_MAX


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("method", ["exact", "gd"])
def test_expected_errors_are_the_average_over_redrawn_readouts(generator, method):
    t = _tasks(generator, nx=25, ns=3, ny=2, rho_a=0.7, rho_b=0.6)
    problem = prepare_soft_threshold(t, 0.5)
    rng = np.random.default_rng(8)
    draws = []
    for _ in range(1500):
        B1 = rng.standard_normal(t.B[0].shape) / np.sqrt(t.ns)
        B2 = correlated_successor(B1, t.rho_b, generator, rng)
        redrawn = dataclasses.replace(problem, tasks=dataclasses.replace(t, B=(B1, B2)))
        draws.append(solve_soft_threshold(redrawn, method=method, n_steps=300).errors)
    draws = np.array(draws)
    expected = solve_soft_threshold(problem, method=method, n_steps=300).expected_errors
    se = draws.std(axis=0) / np.sqrt(len(draws))
    z = (draws.mean(axis=0) - expected) / np.where(se > 0, se, 1.0)
    assert np.max(np.abs(z)) < Z_MAX


def test_sampled_protocol_weights_average_to_the_exact_gradient_weights():
    # fresh batches are independent of W, so E[W_T] equals the exact-gradient iterate exactly
    t = _tasks(nx=20, ns=3, ny=2, rho_a=0.5, rho_b=0.5)
    problem = prepare_soft_threshold(t, 0.4)
    kwargs = dict(n_steps=40, eta=0.05)
    exact = solve_soft_threshold(problem, method="gd", **kwargs)
    runs = np.array([
        np.stack(solve_soft_threshold(problem, method="sampled", batch_size=200, seed=s,
                                      **kwargs).weights[1:])
        for s in range(40)
    ])
    mean = runs.mean(axis=0)
    se = runs.std(axis=0, ddof=1) / np.sqrt(len(runs))
    z = (mean - np.stack(exact.weights[1:])) / se
    assert np.max(np.abs(z)) < Z_MAX
    # and the noise is real: single runs differ from the exact iterate by many rounding units
    assert np.abs(runs[0] - np.stack(exact.weights[1:])).max() > 1e-4


def test_sampled_protocol_noise_shrinks_as_one_over_root_batch_size():
    t = _tasks(nx=20, ns=3, ny=2)
    problem = prepare_soft_threshold(t, 0.4)
    exact = np.stack(solve_soft_threshold(problem, method="gd", n_steps=30, eta=0.05).weights[1:])

    def rms_deviation(batch):
        devs = [np.stack(solve_soft_threshold(problem, method="sampled", n_steps=30, eta=0.05,
                                              batch_size=batch, seed=s).weights[1:]) - exact
                for s in range(12)]
        return float(np.sqrt(np.mean(np.square(devs))))

    ratio = rms_deviation(100) / rms_deviation(1600)
    assert 2.5 < ratio < 6.5  # sqrt(16) = 4, with 12-run sampling spread


def test_sampled_gradient_is_chunk_size_independent_and_exact_for_one_sample():
    t = _tasks(nx=12, ns=2, ny=1)
    W = np.random.default_rng(0).standard_normal((1, 12))
    S = np.random.default_rng(1).standard_normal((2, 50))
    a = sampled_gradient(W, t.A[0], t.B[0], 0.3, S)
    b = sampled_gradient(W, t.A[0], t.B[0], 0.3, S, max_chunk_entries=24)  # 2 samples a chunk
    np.testing.assert_allclose(a, b, atol=1e-13)
    phi = soft_threshold(t.A[0] @ S[:, :1], 0.3)
    one = (W @ phi - t.B[0] @ S[:, :1]) @ phi.T
    np.testing.assert_allclose(sampled_gradient(W, t.A[0], t.B[0], 0.3, S[:, :1]), one)


def test_sampled_protocol_is_deterministic_given_its_seed():
    t = _tasks(nx=10, ns=2, ny=1)
    a = soft_threshold_solution(t, 0.5, method="sampled", n_steps=5, batch_size=30, seed=3)
    b = soft_threshold_solution(t, 0.5, method="sampled", n_steps=5, batch_size=30, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights))
    assert a.expected_errors is None
    with pytest.raises(ValueError, match="average_over_b"):
        a.transfer_retention()
    assert a.transfer_retention(average_over_b=False).transfer == a.errors[1, 0] - a.errors[1, 1]


def test_transfer_and_retention_follow_their_definition():
    t = _tasks(n_tasks=3)
    res = soft_threshold_solution(t, 0.6, method="gd", n_steps=200)
    tr = transfer_retention(t, 0.6, method="gd", n_steps=200)
    E = res.expected_errors
    assert E.shape == (3, 4) and np.all(E[:, 0] == 1.0)
    assert tr.transfer == pytest.approx(E[1, 0] - E[1, 1], abs=1e-14)
    assert tr.retention == pytest.approx(E[0, 0] - E[0, 2], abs=1e-14)


@pytest.mark.parametrize("rho_a, rho_b", [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)])
def test_alpha_one_transfer_and_retention_are_the_vanilla_ones_at_large_nx(rho_a, rho_b):
    # eq_epsilon_vanilla holds at leading order in Ns/Nx; here Ns/Nx = 1/100
    vals = [transfer_retention(_tasks(nx=400, ns=4, ny=2, rho_a=rho_a, rho_b=rho_b, seed=s),
                               1.0, method="exact") for s in range(3)]
    transfer = np.mean([v.transfer for v in vals])
    retention = np.mean([v.retention for v in vals])
    assert transfer == pytest.approx(rho_a * (2 * rho_b - rho_a), abs=0.06)
    assert retention == pytest.approx(1 - rho_a**2 * (rho_a**2 - 2 * rho_a * rho_b + 1), abs=0.06)


def test_task_error_of_zero_weights_is_the_readout_power():
    t = _tasks()
    mom = input_moments(t.A[0], 0.3)
    assert task_error(np.zeros((t.ny, t.nx)), t.B[0], mom) == pytest.approx(
        np.sum(t.B[0] ** 2) / t.ny)


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.5, float("nan"), float("inf"), "0.5", True])
def test_alpha_outside_the_unit_interval_raises_naming_alpha(alpha):
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\]"):
        soft_threshold_solution(_tasks(nx=8, ns=2), alpha)
    with pytest.raises(ValueError, match="alpha"):
        input_moments(np.ones((4, 2)), alpha)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(method="newton"), "method"),
        (dict(n_steps=0), "n_steps"),
        (dict(n_steps=2.5), "n_steps"),
        (dict(eta=0.0), "eta"),
        (dict(eta=-0.01), "eta"),
        (dict(eta=float("nan")), "eta"),
        (dict(eta=float("inf")), "eta"),
        (dict(eta=10.0), r"eta must be a number in \(0, 2 / lambda_max"),
        (dict(batch_size=0), "batch_size"),
        (dict(rank_rtol=-1.0), "rank_rtol"),
    ],
)
def test_bad_solver_parameters_raise_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        soft_threshold_solution(_tasks(nx=8, ns=2), 0.5, **kwargs)


def test_bad_task_matrices_raise_naming_the_tasks():
    t = _tasks(nx=8, ns=2)
    bad = dataclasses.replace(t, A=(t.A[0], np.full_like(t.A[1], np.nan)))
    with pytest.raises(ValueError, match="tasks"):
        soft_threshold_solution(bad, 0.5)
    with pytest.raises(ValueError, match="tasks"):
        soft_threshold_solution({"A": t.A}, 0.5)
    with pytest.raises(ValueError, match="tasks must hold as many A as B"):
        soft_threshold_solution(dataclasses.replace(t, B=t.B[:1]), 0.5)
    with pytest.raises(ValueError, match="A must have finite entries"):
        input_moments(np.full((3, 2), np.inf), 0.5)
    with pytest.raises(ValueError, match="problem"):
        solve_soft_threshold(t)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: pair_moment(1.0, 1.0, 1.2, 0.5), "r"),
        (lambda: pair_moment(-1.0, 1.0, 0.2, 0.5), "sigma"),
        (lambda: pair_moment(1.0, 1.0, 0.2, -0.5), "h"),
        (lambda: pair_moment(1.0, 1.0, 0.2, 0.5, method="quad"), "method"),
        (lambda: soft_threshold([1.0], float("nan")), "h"),
        (lambda: series_coefficients([0.5], 4), "order"),
        (lambda: input_moments(np.ones((3, 2)), 0.5, rtol=0.0), "rtol"),
        (lambda: input_moments(np.ones((3, 2)), 0.5, series_radius=1.0), "series_radius"),
        (lambda: input_moments(np.ones((3, 2)), 0.5, block_size=0), "block_size"),
        (lambda: sampled_gradient_descent(np.zeros((1, 3)), np.ones((3, 2)), np.ones((1, 2)),
                                          0.5, n_steps=0, eta=0.1, batch_size=3), "n_steps"),
    ],
)
def test_bad_moment_parameters_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_problem_type_is_exposed_for_reuse_across_methods():
    p = prepare_soft_threshold(_tasks(nx=10, ns=2), 0.5)
    assert isinstance(p, SoftThresholdProblem) and p.truncation_bound < 1e-12


# ---------------------------------------------------------------------------------------
# Paper scale
# ---------------------------------------------------------------------------------------


@pytest.mark.paper_scale
def test_paper_scale_covariance_entries_agree_between_series_and_closed_form():
    A = draw_tasks(nx=3000, ns=30, ny=10, rho_a=0, rho_b=0, seed=0).A[0]
    for alpha in (0.1, 0.6):
        default = input_moments(A, alpha)
        closed = input_moments(A, alpha, series_radius=0.0)
        assert np.abs(default.second - closed.second).max() <= default.truncation_bound + 1e-13
        assert default.truncation_bound <= 1e-13 * default.second.diagonal().max()
