"""Sizes at the paper's sizes (Nx = 3000, Ns = 30, Ny = 10) are in the units of what the
statement is about: an intermediate term's error is carried to the observable, a statement
that holds in a limit is sized by its leading order's error there (the exact 1/Nx
coefficients), and nothing the report's worker processes strip changes a size."""
from pathlib import Path

import pytest
import sympy as sp

from tasksim.derivations.registry import all_claims
from tasksim.derivations.sizes import (LIMIT_TERMS, LOCATIONS, _erfcinv, NO_LIMIT_TERM,
                                       PAPER_SIZES, UNSIZED_OBSERVABLES, leading_order_error,
                                       limit_observable,
                                       observable_size, size_at_paper_sizes)
from tasksim.derivations.symbols import Ns, Nx, alpha
from tasksim.reports.report_jobs import picklable
from tasksim.reports.verdicts import evaluated_claim, _size

SCALE = PAPER_SIZES[Ns] / PAPER_SIZES[Nx]  # Ns/Nx = 0.01


def test_an_intermediate_term_is_carried_to_the_observable_not_sized_in_its_own_units():
    """Line 1195's piece is printed as a coefficient of Ns/Nx and enters Delta eps_RT with
    coefficient -1 (the expansion at line 1160): its size is the raw difference times Ns/Nx."""
    v = evaluated_claim("fisher.retention_piece.norm.appendix")
    raw = size_at_paper_sizes(v.derived - v.claim.printed)
    size, how = observable_size(v, "wrong")
    assert size.value == pytest.approx(raw.value * SCALE, rel=1e-12)
    assert size.point == raw.point and "carried" in how


@pytest.mark.parametrize("claim_id", ["fisher.retention_piece.trace.appendix",
                                      "gating.aquad_isserlis[appendix]",
                                      "soft_threshold.alpha_invariance_with_diagonal"])
def test_a_size_survives_the_worker_processes_that_strip_the_carry(claim_id):
    v = evaluated_claim(claim_id)
    stripped = picklable(v)
    assert stripped.claim.carry is None, "the worker strips every callable"
    assert _size(stripped, "wrong", []) == _size(v, "wrong", [])
    assert _size(v, "wrong", [])[0] is not None


def test_soft_thresholding_is_sized_in_fig_3d_average_retention_at_an_alpha_below_one():
    """Line 271: the paper's alpha-free retention against the derived one with the diagonal
    kept, averaged over the uniform prior, at the paper's sizes; alpha = 1 is the vanilla
    model (no change)."""
    from tasksim.derivations.soft_threshold import fig3d_retention_change

    size, point, how, *_ = _size(evaluated_claim("soft_threshold.alpha_independence"), "wrong",
                                [])
    def at(alpha_value, sizes=PAPER_SIZES):
        change = fig3d_retention_change().subs(sizes).subs(alpha, alpha_value)
        return float(change.replace(sp.erfcinv, lambda y: sp.Float(_erfcinv(float(y)))))

    # at Nx -> oo the change is 1/6 - 43/60 (the two averages of the leading orders)
    assert at(0.5, {Nx: 10**12, Ns: 30}) == pytest.approx(1 / 6 - 43 / 60, abs=1e-6)
    assert 0 < point["alpha"] < 1
    assert size == pytest.approx(abs(at(point["alpha"])), rel=1e-6)
    assert at(1) == 0
    assert 0.5 < size < 1, "Fig. 3D's averages, not a pointwise corner"


def test_the_leading_orders_error_matches_the_exact_finite_size_value_at_the_papers_sizes():
    """|c|/Nx for the vanilla transfer against the inverse-Wishart closed form's deviation at
    Nx = 3000, Ns = 30 (exact at finite size): equal up to O(Nx^-2)."""
    from tasksim.derivations.vanilla import exact_gaussian_transfer
    from tasksim.derivations.symbols import rho_a, rho_b

    size, how = leading_order_error("vanilla.transfer")
    assert "exact 1/Nx coefficient" in how
    at = {rho_a: size.point.get("rho_a", 0), rho_b: size.point.get("rho_b", 0)}
    exact = exact_gaussian_transfer().value.subs(PAPER_SIZES).subs(at)
    leading = (rho_a * (2 * rho_b - rho_a)).subs(at)
    assert size.value == pytest.approx(abs(float(exact - leading)), rel=0.02)


def test_a_statement_at_stated_points_is_sized_there():
    corners, how = leading_order_error("vanilla.transfer.corners")
    assert "stated points" in how and set(corners.point) >= {"rho_a", "rho_b"}
    # the vanilla retention's 1/Nx coefficient vanishes at rho_a = 1 (the line 200 clause)
    assert leading_order_error("vanilla.retention.sign_at_high_rho_a")[0].value == 0
    three_quarters, _ = leading_order_error("averages.random.retention_below_one")
    assert three_quarters.point == {"alpha": 0.75}


def test_every_limit_statement_named_is_a_headline_claim_of_the_registry():
    heads = {c.id for c in all_claims() if c.headline}
    named = set(LIMIT_TERMS) | set(NO_LIMIT_TERM) | set(LOCATIONS)
    assert named <= heads, sorted(named - heads)
    assert not set(LIMIT_TERMS) & set(NO_LIMIT_TERM)
    assert not (set(LIMIT_TERMS) | set(NO_LIMIT_TERM)) & set(LOCATIONS)


def test_a_location_is_sized_by_the_shift_of_the_optimum_at_the_papers_sizes():
    """Line 244 (alpha* = rho_b/rho_a) and line 251 (the average's alpha = 3/4): the leading
    transfer is quadratic in alpha and its 1/Nx coefficient linear in alpha with slope
    (Ns + 2) rho_a^2 (averaged: (Ns + 2)/3), so the optimum moves by (Ns + 2)/(2 Nx)."""
    expected = (PAPER_SIZES[Ns] + 2) / (2 * PAPER_SIZES[Nx])
    for claim_id in ("gating.optimal_alpha", "averages.random.transfer.argmax"):
        size, why = leading_order_error(claim_id)
        assert size.value == pytest.approx(expected, rel=1e-4), claim_id
        assert "shift of the optimal alpha" in why
        assert limit_observable(claim_id).startswith("the optimal alpha")
    assert "0.75 to 0.755" in leading_order_error("averages.random.transfer.argmax")[1]
    gamma_shift, why = leading_order_error("euclidean.optimal_gamma_transfer")
    assert 0 < gamma_shift.value <= 1 and {"rho_a", "rho_b"} <= set(gamma_shift.point)


def test_a_zero_size_is_a_vanishing_first_order_coefficient_and_says_so():
    """Lines 200 (clause 1) and 206 are stated at rho_a = 1, where the vanilla 1/Nx
    coefficients carry the factor (rho_a - 1)."""
    from tasksim.derivations.finite_size import finite_size
    from tasksim.derivations.symbols import rho_a

    for quantity in ("transfer", "retention"):
        for generator in ("gaussian", "appendix"):
            assert finite_size("vanilla", quantity, generator).nlo.subs(rho_a, 1) == 0
    for claim_id in ("vanilla.retention.sign_at_high_rho_a",
                     "vanilla.negative_at_high_rho_a_low_rho_b"):
        size, why = leading_order_error(claim_id)
        assert size.value == 0 and why.startswith("0 at order 1/Nx")
    nonzero, why = leading_order_error("vanilla.retention")
    assert nonzero.value > 0 and not why.startswith("0 at order")


def test_gating_at_alpha_one_is_vanilla_to_first_order_in_one_over_nx():
    """Line 709 is sized by the difference of the two models' exact 1/Nx coefficients."""
    size, why = leading_order_error("vanilla.is_gating_at_alpha_tilde_one")
    assert size.value == 0 and "difference" in why and size.point["alpha"] == 1
    assert "minus that of the vanilla model" in limit_observable(
        "vanilla.is_gating_at_alpha_tilde_one")


def test_the_sparse_limit_statement_is_sized_at_a_sparse_alpha_not_at_alpha_one():
    """Line 246: eq_rcg_epsilon_RT needs alpha >> Ns/Nx; sized at alpha = 0.1."""
    size, why = leading_order_error("gating.validity")
    assert size.point["alpha"] == 0.1 and "Ns/Nx" in why
    assert size.value != leading_order_error("gating.retention")[0].value


def test_every_sized_limit_statement_names_its_observable_in_delta_eps_units():
    for claim_id in list(LIMIT_TERMS) + list(LOCATIONS):
        name = limit_observable(claim_id)
        named = claim_id in LIMIT_TERMS and LIMIT_TERMS[claim_id].named
        # an observable of its own (the probe error, rho_g) names how it follows from a Delta eps
        assert ("Delta eps" in name or (named and "eps_" in name)), claim_id
        assert "printed expression" not in name, claim_id


def test_every_unsized_limit_statement_still_names_what_it_is_about():
    assert set(UNSIZED_OBSERVABLES) == set(NO_LIMIT_TERM)
    assert (limit_observable("fisher_diagonal.attenuates_robustness")
            == "Delta eps_RT of the diagonal-Fisher model")


def test_a_relation_between_two_closed_forms_is_sized_by_their_coefficients_difference():
    """Line 310: Euclidean transfer = random-gating transfer at alpha = gamma holds at leading
    order only (the 1/Nx coefficients differ); line 331: Fisher transfer = vanilla transfer
    holds at first order too."""
    euclid, why = leading_order_error("euclidean.transfer_equals_random_gating")
    assert euclid.value > 0 and "difference" in why
    fisher, why = leading_order_error("fisher.transfer_equals_vanilla.independent_metric")
    assert fisher.value == 0 and why.startswith("0 at order 1/Nx")


def test_a_gated_or_regularized_statement_is_not_sized_at_the_vanilla_point():
    size, why = leading_order_error("gating.random_scales_rho_a")
    assert size.point["alpha"] < 1 and "alpha = 1 is the vanilla model" in why
    size, _ = leading_order_error("euclidean.retention")
    assert size.point["gamma"] < 1
    assert leading_order_error("gating.retention.alpha_to_zero")[0].point["alpha"] == 0.1


def test_a_statement_without_a_coefficient_has_no_size_and_says_why():
    size, why = leading_order_error("fisher_diagonal.transfer_invariance_lost")
    assert size is None and "no exact 1/Nx coefficient" in why


def test_adaptive_gatings_gain_is_sized_by_its_coefficient_against_random_gatings():
    """Line 266: the average gain of adaptive over random gating. Its 1/Nx coefficient is the
    average of adaptive gating's (correlated gates at the probe's rho_g) minus random gating's;
    at the paper's sizes it is largest at the sparsest alpha, where it is a fifth of the gain,
    and it lowers the gain (the gain stays positive)."""
    from tasksim.derivations.averages import adaptive_gating_average, random_gating_average
    from tasksim.derivations.sizes import _limit_coefficient
    from tasksim.derivations.symbols import Ns as ns, alpha

    size, why = leading_order_error("averages.adaptive.improves_transfer")
    assert size.point == {"alpha": 0.1} and 0.02 < size.value < 0.04
    assert "minus the random-gating model's" in why and "the size is 22% of it" in why
    gain = (adaptive_gating_average("transfer") - random_gating_average("transfer")).subs(
        alpha, sp.Rational(1, 10))
    for generator in ("gaussian", "appendix"):
        c = (_limit_coefficient("adaptive-gating", "transfer", generator, True)
             - _limit_coefficient("random-gating", "transfer", generator, True))
        shift = c.subs({alpha: sp.Rational(1, 10), ns: 30}) / 3000
        assert shift < 0 < gain + shift
    assert (limit_observable("averages.adaptive.improves_transfer")
            == "average Delta eps_TF over rho_a, rho_b of the adaptive-gating model minus "
               "that of the random-gating model")


def test_the_error_on_the_task_just_learned_is_sized_by_its_own_exact_coefficient():
    """Line 313 (REFEREE45 3.2, REFEREE46): <eps_1[W_1]> of the Euclidean model is
    (1 - gamma)^2 + 3 gamma^2 (1 - gamma)^2 (Ns + 1)/Nx + O(Nx^-2) (the Gram's fluctuation
    E tr(Delta^2) = (Ns + 1)/Nx, through (I + gamma Delta)^(-2)), largest at gamma = 1/2."""
    from tasksim.derivations.finite_size import finite_size
    from tasksim.derivations.symbols import Ns as ns, gamma

    for generator in ("gaussian", "appendix"):
        fs = finite_size("euclidean", "learned", generator)
        assert sp.simplify(fs.leading - (1 - gamma)**2) == 0
        assert sp.simplify(fs.nlo - 3 * gamma**2 * (1 - gamma)**2 * (ns + 1)) == 0
    size, _ = leading_order_error("euclidean.impairs_acquisition")
    assert size.point == {"gamma": 0.5} and size.value == pytest.approx(3 / 16 * 31 / 3000,
                                                                      rel=1e-3)
    with pytest.raises(ValueError, match="euclidean model only"):
        finite_size("vanilla", "learned")
    size, why = leading_order_error("fisher.invertibility")
    assert size is None and "invertible" in why


def test_the_probe_error_is_sized_as_the_vanilla_transfer_of_the_alpha_nx_kept_units():
    """Lines 746-752 (REFEREE45 3.1): the probe's 1/Nx term is the vanilla transfer's over
    alpha, largest at the sparsest gating level of the grid: Ns/(alpha Nx) = 0.1 at rho_a = 0;
    rho_g follows through its clamp (no error where both the leading order and the finite
    size are clamped at 0) and alpha~ = alpha + (1 - alpha) rho_g carries (1 - alpha) of it."""
    probe, why = leading_order_error("gating.probe_error")
    assert probe.value == pytest.approx(0.1) and probe.point["alpha"] == 0.1
    assert "units task 1's gates keep" in why
    rho_g, _ = leading_order_error("gating.adaptive_rho_g")
    assert rho_g.point["rho_a"] * (2 * rho_g.point["rho_b"] - rho_g.point["rho_a"]) > 0
    alpha_tilde, _ = leading_order_error("gating.adaptive_alpha_tilde")
    assert alpha_tilde.value == pytest.approx((1 - alpha_tilde.point["alpha"]) * rho_g.value,
                                              rel=0.05)


def test_a_limit_statement_names_the_observable_its_size_is_a_change_of():
    from tasksim.reports.verdicts import load_measured, statement_verdicts

    committed = Path(__file__).resolve().parent.parent / "reports" / "claims.json"
    records = {s.id: s for s in statement_verdicts(measured=load_measured(committed))}
    optimum = records["gating.optimal_alpha"]
    assert optimum.verdict == "holds in the stated limit"
    assert optimum.observable == "the optimal alpha of the random-gating model's Delta eps_TF"
    limits = [s for s in records.values() if s.verdict == "holds in the stated limit"]
    assert not [s.id for s in limits if s.size is not None
                and s.observable == "the printed expression"]


def test_the_average_at_the_pointwise_optimal_alpha_is_sized_with_alpha_star_not_three_quarters():
    """REFEREE2 N8, line 792: the average uses alpha*(rho_a, rho_b) = min(1, rho_b/rho_a)
    at each point; its size is |c|/Nx with c the exact coefficient averaged with alpha* put
    in first, -(19 Ns + 14)/24 for the appendix generator (by hand: the two regions
    rho_b >= rho_a, alpha* = 1, and rho_b < rho_a, alpha* = rho_b/rho_a), not the average
    at the fixed alpha = 3/4 of line 251."""
    size, why = leading_order_error("averages.optimal_alpha.transfer")
    assert size.value == pytest.approx((19 * 30 + 14) / 24 / 3000, rel=1e-12)
    assert "alpha" not in size.point and "min(1, rho_b/rho_a)" in why


def test_fig5c_average_transfer_and_retention_are_two_sized_clauses():
    """REFEREE2 N7, line 290: panel C's average transfer (the vanilla average, its 1/Nx error
    from the exact coefficient) and its average retention (1, up to the rank loss of line 328
    averaged over the prior: gamma_f^2/(Nx + 1))."""
    tf, _ = leading_order_error("fisher.average_transfer")
    # appendix generator: the average of (rho_a - 1)(Ns rho_a + Ns + 2 rho_a) is -(2 Ns + 1)/3
    assert tf.value == pytest.approx((2 * 30 + 1) / 3 / 3000, rel=1e-12)
    rt, why = leading_order_error("fisher.average_retention")
    assert rt.value == pytest.approx(0.9**2 / 3001, rel=1e-9) and "rank" in why
    assert limit_observable("fisher.average_retention").startswith("average Delta eps_RT")


def test_the_unit_variance_statements_are_sized_by_the_spread_of_the_row_norms():
    """Lines 271, 861, 873 and 880 take m_i of unit variance; in the model sigma_i^2 =
    sum_j A_ij^2 ~ chi^2_Ns/Ns. The quadrature's numbers at Ns = 30 agree with a Monte Carlo
    over that law: the population's active fraction is O(1/Ns) below alpha, one neuron's
    active probability O(Ns^-1/2) away from it."""
    import numpy as np
    from scipy.special import erfc, erfcinv

    from tasksim.derivations.row_norms import row_norm_errors
    from tasksim.derivations.sizes import ROW_NORMS, limit_observable

    ns, a = 30, 0.3
    sigma = np.sqrt(np.random.default_rng(0).chisquare(ns, 400_000) / ns)
    active = erfc(np.sqrt(2) * erfcinv(a) / (np.sqrt(2) * sigma))
    e = row_norm_errors(a, ns)
    assert e.mean_active == pytest.approx(active.mean(), abs=5 * active.std() / 632)
    assert e.neuron_rms == pytest.approx(np.sqrt(np.mean((active - a) ** 2)), rel=0.01)
    pairs = active[:200_000] * active[200_000:]
    assert e.pair_rms == pytest.approx(np.sqrt(np.mean((pairs - a * a) ** 2)), rel=0.01)
    assert e.mean_active < a and e.population_threshold < e.threshold  # fewer active: lower h
    for claim_id in ROW_NORMS:
        size, how = leading_order_error(claim_id)
        assert 0 < size.value < 0.1 and 0 < size.point["alpha"] < 1, claim_id
        assert "chi^2_Ns/Ns" in how and limit_observable(claim_id) == ROW_NORMS[claim_id]
    assert leading_order_error("soft_threshold.cross_moment")[0].value == pytest.approx(
        row_norm_errors(0.3, ns).neuron_rms)


def test_a_statement_that_takes_the_row_norms_to_be_1_is_sized_by_their_spread():
    """Lines 822 and 836 take sum_j A_ij^2 = 1 (m_i of unit variance): at Ns = 30 a row's
    squared norm spreads about 1 with the standard deviation a Monte Carlo of the model's
    rows gives (entries N(0, 1/Ns)), and the size is that spread, at a stated point."""
    import numpy as np

    from tasksim.derivations.sizes import ROW_SPREADS, limit_observable

    rows = np.random.default_rng(1).normal(0, 1 / np.sqrt(30), size=(200_000, 30))
    spread = float(np.std(np.sum(rows**2, axis=1)))
    for claim_id in ROW_SPREADS:
        size, how = leading_order_error(claim_id)
        assert size.value == pytest.approx(spread, rel=0.01), claim_id
        assert size.over == "stated point" and not size.point and "Ns = 30" in how
        assert r"\frac{2}{N_{s}}" in how and limit_observable(claim_id) == ROW_SPREADS[claim_id]
