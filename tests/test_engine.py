"""The expectation engine (derivations/engine.py) and its matrix words (matrix_words.py).

Specifications: textbook Wishart moments, hand-derived correlated moments, agreement of the
set-partition and Wick forms, invariances of the trace, Monte Carlo agreement of every
trace of the appendix's gating derivation (eq_ap_etf_gated1, eq_ap_eRT_gate_expnd) for both
generators, and bad input.

Monte Carlo thresholds: each comparison allows 3 standard errors of the sample mean; there
are 10 such comparisons in the default run with fixed seeds (false-alarm probability of a
fresh seed about 10 * 0.27 % = 2.7 %; the seeds are fixed, so the run is deterministic).
"""
from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

from tasksim.derivations import engine
from tasksim.derivations.engine import (
    expect_frobenius2,
    expect_trace,
    expect_trace_wick,
    joint_moment,
    large_Ns_part,
    ratio_expansion,
    set_partitions,
)
from tasksim.derivations.matrix_words import MatrixExpr, eye, gate, opaque, readout, task
from tasksim.derivations.symbols import Ns, Nx, Ny, alpha, alpha_t, rho_a, rho_b, rho_g
from tasksim.solvers.tasks import draw_gates, draw_tasks

A1, A2, B1, B2, D1, D2 = task(1), task(2), readout(1), readout(2), gate(1), gate(2)


def same(a, b) -> bool:
    return sp.expand(sp.sympify(a) - sp.sympify(b)) == 0


# -- textbook moments ---------------------------------------------------------------------

def test_wishart_first_moment_is_nx():
    assert same(expect_trace(A1.T @ A1), Nx)
    assert same(expect_trace(A1 @ A1.T), Nx)


def test_wishart_second_moment_matches_textbook_formula():
    # W = A^T A with A Nx x Ns, entries N(0, 1/Ns): E tr W^2 = Nx Ns (Nx + Ns + 1) / Ns^2
    assert same(expect_trace(A1.T @ A1 @ A1.T @ A1), Nx * (Nx + Ns + 1) / Ns)


def test_wishart_third_moment_matches_textbook_formula():
    # E tr W^3 = p n (n^2 + p^2 + 3 n p + 3 n + 3 p + 4) for W ~ Wishart_p(n, I);
    # here p = Ns, n = Nx and entries of variance 1/Ns (a factor Ns^-3).
    W = A1.T @ A1
    textbook = Ns * Nx * (Nx**2 + Ns**2 + 3 * Nx * Ns + 3 * Nx + 3 * Ns + 4) / Ns**3
    assert same(expect_trace(W @ W @ W), textbook)
    assert same(expect_trace(W @ W @ W, "appendix"), textbook)  # one matrix: same law


def test_correlated_two_matrix_moments_derived_by_hand():
    # E tr(A1^T A2) = Nx Ns rho_a / Ns
    assert same(expect_trace(A1.T @ A2), Nx * rho_a)
    # E ||A1^T A2||_F^2 by Isserlis: sum_{ijkl} [d_ik rho^2 + d_jl + d_ik d_jl rho^2] / Ns^2
    assert same(expect_frobenius2(A1.T @ A2), (Nx**2 * rho_a**2 + Nx * Ns + Nx * rho_a**2) / Ns)
    # appendix: at j = l, i = k the fourth moment is 1 + 2 rho (mixture), not 1 + 2 rho^2
    assert same(expect_frobenius2(A1.T @ A2, "appendix"),
                (Nx**2 * rho_a**2 + Nx * Ns + Nx * (2 * rho_a - rho_a**2)) / Ns)
    # E tr(A1 A1^T A2 A2^T) = sum E[a1_ji a1_li a2_lk a2_jk]
    assert same(expect_trace(A1 @ A1.T @ A2 @ A2.T),
                (Nx**2 * rho_a**2 + Nx * Ns + Nx * rho_a**2) / Ns)


def test_gate_moments_follow_eq_def_rho_g():
    assert same(expect_trace(D1), Nx * alpha)
    assert same(expect_trace(D1 @ D2), Nx * alpha * (rho_g + (1 - rho_g) * alpha))
    assert same(expect_trace(D1 @ D2, alpha_tilde=True), Nx * alpha * alpha_t)
    assert same(expect_trace(A1.T @ D1 @ A1), Nx * alpha)
    # ||A1^T D1 A2||^2 = sum g_j g_l [d_ik rho^2 + d_jl + d_ik d_jl rho^2] / Ns^2, where
    # E[g_j g_l] = alpha^2 for j != l and alpha for j = l
    expected = (alpha**2 * (Nx**2 - Nx) * rho_a**2 + alpha * Nx * (Ns + 2 * rho_a**2)) / Ns
    assert same(expect_frobenius2(A1.T @ D1 @ A2), expected)


def test_readout_second_moments_are_ny_over_ns_rho_b():
    # E[B_mu^T B_nu] = (Ny/Ns) rho_b^|mu-nu| I_s: its trace is Ny rho_b^|mu-nu|
    assert same(expect_trace(B1.T @ B2), Ny * rho_b)
    assert same(expect_trace(B2.T @ B2), Ny)
    assert same(expect_trace(B1.T @ B2 @ A1.T @ A2), Ny * rho_b * Nx * rho_a / Ns)


def test_identities_contribute_their_dimension():
    assert same(expect_trace(eye("s")), Ns)
    assert same(expect_trace(eye("x")), Nx)
    assert same(expect_trace(eye("y") @ B1 @ B1.T), Ny)


def test_joint_moments_have_the_right_marginals_and_correlation():
    for generator in engine.GENERATORS:
        assert joint_moment(2, 0, generator) == 1
        assert joint_moment(4, 0, generator) == 3
        assert joint_moment(1, 1, generator) == rho_a
        assert joint_moment(3, 1, generator) == 3 * rho_a  # E[a1^3 a2]: linear in the copy
        assert joint_moment(1, 2, generator) == 0
        assert joint_moment(0, 6, generator) == 15


def test_set_partitions_are_counted_by_bell_numbers():
    assert [len(set_partitions(n)) for n in range(7)] == [1, 1, 2, 5, 15, 52, 203]


# -- the two generators -------------------------------------------------------------------

def test_generators_differ_at_finite_size_through_the_mixture_kurtosis():
    # fourth moment at coinciding indices: gaussian 1 + 2 rho^2, appendix 1 + 2 rho
    assert same(joint_moment(2, 2, "appendix") - joint_moment(2, 2, "gaussian"),
                2 * rho_a * (1 - rho_a))
    X = A1.T @ A2 @ A1.T @ A2
    difference = expect_trace(X, "appendix") - expect_trace(X, "gaussian")
    assert same(difference, 2 * Nx * rho_a * (1 - rho_a) / Ns)


def test_generators_agree_at_leading_order():
    X = A1.T @ D1 @ D2 @ A2 @ A2.T @ D2 @ D1 @ A1
    c = Ns / (alpha * Nx)
    by_generator = [
        ratio_expansion(c**4 / Ns * expect_frobenius2(X, g, alpha_tilde=True), 1, gated=True)
        for g in engine.GENERATORS
    ]
    assert same(by_generator[0][0], by_generator[1][0])
    assert same(by_generator[0][0], alpha_t**4 * rho_a**4)


# -- the Wick form and the trace's invariances --------------------------------------------

WORDS_FOR_WICK = [
    A1.T @ A2,
    A1.T @ D1 @ D2 @ A2,
    A1.T @ D1 @ D2 @ A2 @ A2.T @ D2 @ D1 @ A1,
    (A1.T @ D1 @ D2 @ A2) @ (A1.T @ D1 @ D2 @ A2).T @ (A1.T @ D1 @ D2 @ A2),
    B1.T @ B2 @ A2.T @ D1 @ A1,
    (A2 - rho_a * A1).T @ A1 @ A1.T @ (A2 - rho_a * A1),
]


def _square(X: MatrixExpr) -> MatrixExpr:
    return X if X.rows == X.cols else X @ X.T


@pytest.mark.parametrize("k", range(len(WORDS_FOR_WICK)))
def test_wick_pairings_agree_with_set_partitions_for_the_gaussian_generator(k):
    square = _square(WORDS_FOR_WICK[k])
    assert same(expect_trace_wick(square), expect_trace(square, "gaussian"))
    if k != 3:  # twelve gated factors: behind --paper-scale
        assert same(expect_trace_wick(square @ square.T), expect_trace(square @ square.T))


@pytest.mark.paper_scale
def test_wick_and_set_partitions_agree_on_twelve_gated_factors():
    square = _square(WORDS_FOR_WICK[3])
    assert same(expect_trace_wick(square @ square.T), expect_trace(square @ square.T))


def test_trace_is_invariant_under_rotation_and_transposition_of_the_word():
    word = (A1.T @ D1 @ D2 @ A2 @ A2.T @ D1 @ A1 @ A1.T @ A2).single_word()
    raw = engine._trace_of_word.__wrapped__  # bypass the cache and the canonical form
    values = set()
    for t in range(len(word)):
        rotated = word[t:] + word[:t]
        for w in (rotated, tuple(x.T for x in reversed(rotated))):
            values.add(sp.expand(raw(w, "appendix", True)))
    assert len(values) == 1


def test_expectation_is_linear_in_the_expression():
    X, Y = A1.T @ A2, A2.T @ D1 @ A1
    lhs = expect_trace(3 * X - rho_a * Y, "appendix")
    rhs = 3 * expect_trace(X, "appendix") - rho_a * expect_trace(Y, "appendix")
    assert same(lhs, rhs)


def test_eight_factor_retention_norm_takes_at_most_seconds():
    engine._trace_of_word.cache_clear()
    start = time.perf_counter()
    for generator in engine.GENERATORS:
        expect_frobenius2(A1.T @ D1 @ D2 @ A2 @ A2.T @ D2 @ D1 @ A1, generator)
    assert time.perf_counter() - start < 5.0


# -- orders -------------------------------------------------------------------------------

def test_ratio_expansion_reads_leading_and_next_to_leading_orders():
    # (1/Ns) (Ns/Nx)^2 E tr (A^T A)^2 = 1 + (Ns/Nx)(1 + 1/Ns)
    c0, c1 = ratio_expansion(expect_trace(A1.T @ A1 @ A1.T @ A1) * Ns / Nx**2)
    assert c0 == 1 and same(c1, 1 + 1 / Ns)
    # inverse-Wishart mean: a rational function, expanded by series
    c0, c1, c2 = ratio_expansion(Ns / (Nx - Ns - 1), 2)
    assert (c0, same(c1, 1), same(c2, 1 + 1 / Ns)) == (0, True, True)
    assert same(large_Ns_part(3 + 2 / Ns), 3)
    with pytest.raises(ValueError, match="diverges"):
        ratio_expansion(Nx / Ns)


# -- Monte Carlo: the traces of the appendix's gating derivation ---------------------------

def _numeric_trace(X: MatrixExpr, A, gates, values: dict) -> float:
    """tr X for explicit matrices; words are rotated to start in the s space, so no
    Nx x Nx matrix is formed."""
    total = 0.0
    for word, coeff in X:
        start = next(t for t, letter in enumerate(word) if letter.rows != "x")
        word = word[start:] + word[:start]
        current = None
        for letter in word:
            if letter.kind == "D":
                current = current * gates[letter.task - 1][None, :]
                continue
            M = A[letter.task - 1]
            M = M.T if letter.transposed else M
            current = M if current is None else current @ M
        total += float(coeff.subs(values)) * float(np.trace(current))
    return total


def _appendix_traces():
    """The surrogate traces of eq_ap_etf_gated1 and eq_ap_eRT_gate_expnd (no prefactors)."""
    X = A1.T @ D1 @ D2 @ A2
    Y = A1.T @ D1 @ D2 @ A2 @ A2.T @ D2 @ D1 @ A1
    return {
        "transfer tr A1'D1D2A2": X,
        "transfer ||A1'D1D2A2||^2": X @ X.T,
        "retention ||A1'D1D2A2A2'D2D1A1||^2": Y @ Y.T,
        "retention tr A1'D1D2A2A2'D2D1A1": Y,
        "retention cross tr X X' X": X @ X.T @ X,
    }


@pytest.mark.parametrize("generator", ["gaussian", "appendix"])
def test_exact_traces_agree_with_monte_carlo_within_three_standard_errors(generator):
    nx, ns, a, rg, ra = 300, 10, 0.5, 0.3, 0.6
    traces = _appendix_traces()
    rng = np.random.default_rng(20240601 + (generator == "appendix"))
    n_samples = 300
    samples = {k: [] for k in traces}
    for _ in range(n_samples):
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=ra, rho_b=0.0, generator=generator, seed=rng)
        g = [x.astype(float) for x in draw_gates(nx=nx, alpha=a, rho_g=rg, seed=rng)]
        for k, X in traces.items():
            samples[k].append(_numeric_trace(X, t.A, g, {}))
    point = {Nx: nx, Ns: ns, alpha: sp.Rational(1, 2), rho_g: sp.Rational(3, 10),
             rho_a: sp.Rational(3, 5)}
    for k, X in traces.items():
        exact = float(expect_trace(X, generator).subs(point))
        values = np.asarray(samples[k])
        se = values.std(ddof=1) / np.sqrt(n_samples)
        assert abs(values.mean() - exact) < 3 * se, (k, values.mean(), exact, se)


# -- bad input ----------------------------------------------------------------------------

def test_bad_input_raises_value_errors_that_say_what_is_wrong():
    with pytest.raises(ValueError, match="square"):
        expect_trace(A1.T @ D1)
    with pytest.raises(ValueError, match="generator"):
        expect_trace(A1.T @ A1, "normal")
    with pytest.raises(ValueError, match="shape mismatch"):
        A1 @ A2
    with pytest.raises(ValueError, match="opaque"):
        expect_trace(opaque("(D_1A_1)^+", "s", "x") @ A1)
    with pytest.raises(ValueError, match="mu"):
        task(0)
    with pytest.raises(ValueError, match="space"):
        eye("z")
    with pytest.raises(ValueError, match="X must be"):
        expect_trace(sp.Symbol("x"))
    with pytest.raises(TypeError):
        A1 * A2


def test_three_tasks_are_not_implemented_and_say_why():
    with pytest.raises(NotImplementedError, match="tasks 1 and 2"):
        expect_trace(task(3).T @ task(1))


@pytest.mark.paper_scale
@pytest.mark.parametrize("generator", ["gaussian", "appendix"])
def test_monte_carlo_resolves_the_generators_finite_size_difference(generator):
    """With 20000 samples the mean of ||A1^T D1 D2 A2||^2 sits within 3 SE of its own
    generator's exact value and more than 3 SE away from the other generator's."""
    nx, ns, a, rg, ra = 300, 10, 0.5, 0.3, 0.6
    X = A1.T @ D1 @ D2 @ A2
    rng = np.random.default_rng(7 + (generator == "appendix"))
    values = []
    for _ in range(20000):
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=ra, rho_b=0.0, generator=generator, seed=rng)
        g = [x.astype(float) for x in draw_gates(nx=nx, alpha=a, rho_g=rg, seed=rng)]
        values.append(_numeric_trace(X @ X.T, t.A, g, {}))
    values = np.asarray(values)
    se = values.std(ddof=1) / np.sqrt(values.size)
    point = {Nx: nx, Ns: ns, alpha: sp.Rational(1, 2), rho_g: sp.Rational(3, 10),
             rho_a: sp.Rational(3, 5)}
    other = "appendix" if generator == "gaussian" else "gaussian"
    own = float(expect_frobenius2(X, generator).subs(point))
    foreign = float(expect_frobenius2(X, other).subs(point))
    assert abs(values.mean() - own) < 3 * se
    assert abs(values.mean() - foreign) > 3 * se


# -- Appendix D (derivations/tall.py) -------------------------------------------------------

def test_appendix_e_statements_hold_exactly_or_at_leading_order():
    from tasksim.derivations import tall
    from tasksim.derivations.claims import evaluate

    verdicts = {c.id: evaluate(c) for c in tall.CLAIMS}
    for cid in ("tall.gram_mean", "tall.gram_element_variance", "tall.concentration",
                "tall.gated_gram_mean"):
        assert verdicts[cid].status == "verified", cid
    for cid in ("tall.gated_concentration", "tall.projector_surrogate", "tall.pinv_surrogate"):
        assert verdicts[cid].status == "leading order", cid


def test_gated_concentration_reduces_to_the_ungated_one_at_alpha_one():
    from tasksim.derivations import tall

    assert same(tall.gated_concentration().subs(alpha, 1), tall.concentration())


def test_surrogates_err_at_the_same_order_as_the_next_to_leading_terms():
    from tasksim.derivations import tall

    # relative squared errors of eq_UUt_approx and eq_DA+_approx are O(Ns/(alpha Nx))
    assert same(tall.projector_surrogate_error(), (Ns + 2 - alpha) / (alpha * Nx))
    assert same(tall.pinv_surrogate_relative_error(), (Ns + 1) / (alpha * Nx))


def test_projector_surrogate_error_matches_monte_carlo():
    from tasksim.derivations import tall

    nx, ns, a = 200, 8, 0.5
    rng = np.random.default_rng(3)
    values = []
    for _ in range(400):
        t = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=0.0, rho_b=0.0, seed=rng)
        g = draw_gates(nx=nx, alpha=a, seed=rng)[0]
        DA = t.A[0][g]  # rows of the active units
        sigma2 = np.linalg.svd(DA, compute_uv=False) ** 2
        values.append(np.sum((1 - ns / (a * nx) * sigma2) ** 2) / ns)  # ||UU^T - c DAA^TD||^2/Ns
    values = np.asarray(values)
    exact = float(tall.projector_surrogate_error().subs({Nx: nx, Ns: ns, alpha: sp.Rational(1, 2)}))
    assert abs(values.mean() - exact) < 3 * values.std(ddof=1) / np.sqrt(values.size)
