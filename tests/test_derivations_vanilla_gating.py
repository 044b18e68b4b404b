"""Derivations of the vanilla and activity-gating results (derivations/vanilla.py, gating.py,
two_task.py): the derived side reacts to its inputs as the mathematics says, the exact
finite-N vanilla transfer matches Monte Carlo, and the claims' computed statuses."""
from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

from tasksim.derivations import gating, vanilla
from tasksim.derivations.claims import evaluate
from tasksim.derivations.engine import expect_trace, ratio_expansion
from tasksim.derivations.symbols import Ns, Nx, Ny, alpha, alpha_t, rho_a, rho_b
from tasksim.derivations.two_task import (
    Surrogates,
    TwoTaskModel,
    expected_error,
    readout_average,
    retention,
    transfer,
)
from tasksim.solvers.tasks import draw_tasks

GATED, VANILLA = TwoTaskModel(gated=True), TwoTaskModel(gated=False)


def leading(expr, gated=True):
    return sp.expand(ratio_expansion(expr, 0, gated=gated)[0])


def nlo(expr, gated=True):
    return sp.expand(ratio_expansion(expr, 1, gated=gated)[1])


def same(a, b) -> bool:
    return sp.simplify(sp.sympify(a) - sp.sympify(b)) == 0


# -- the derived side reacts to its inputs ------------------------------------------------

def test_dropping_the_one_over_ny_normalisation_scales_every_error_by_ny():
    for mu, after in ((2, 1), (1, 2), (2, 0)):
        normalised = expected_error(GATED, mu, after, "appendix", Surrogates(), True).value
        raw = expected_error(GATED, mu, after, "appendix", Surrogates(), False).value
        assert same(raw, Ny * normalised)


def test_generator_changes_next_to_leading_order_but_not_leading_order():
    for derive in (transfer, retention):
        g = derive(GATED, "gaussian").value
        a = derive(GATED, "appendix").value
        assert same(leading(g), leading(a))
        assert not same(nlo(g), nlo(a))
        # the difference is a mixture-kurtosis effect: it vanishes at rho_a = 0 and 1
        assert same((nlo(g) - nlo(a)).subs(rho_a, 0), 0)
        assert same((nlo(g) - nlo(a)).subs(rho_a, 1), 0)


def test_scaling_the_pseudo_inverse_surrogate_by_kappa_rescales_the_transfer_terms():
    kappa = sp.Symbol("kappa", positive=True)
    scaled = Surrogates(pinv_scale=kappa * Ns / (alpha * Nx))
    T = leading(transfer(GATED, "appendix", scaled).value)
    expected = 2 * rho_b * kappa * alpha_t * rho_a - kappa**2 * alpha_t**2 * rho_a**2
    assert same(T, expected)


def test_dropping_the_projector_removes_the_first_retention_term():
    # U2 U2^T -> 0: W_2 = W_1 + B_2 (D_2 A_2)^+, so eps_1[W_2] keeps only ||(D2A2)^+ D1A1||^2
    R = leading(retention(GATED, "appendix", Surrogates(projector_scale=0)).value)
    assert same(R, 1 - alpha_t**2 * rho_a**2)


def test_skipping_the_exact_identity_changes_only_the_next_to_leading_order():
    with_identity = retention(GATED, "appendix").value
    without = retention(GATED, "appendix", Surrogates(identities=False)).value
    assert same(leading(with_identity), leading(without))
    # B_1 (I - c A1^T D1 A1) survives: (1/Ns) E||I - c A1^T D1 A1||^2 = O(Ns/(alpha Nx))
    assert not same(nlo(with_identity), nlo(without))


def test_readout_lemma_agrees_with_the_engine_averaging_over_b_directly():
    R = GATED.apply_identities(GATED.residual(1, 2)).subs(GATED.surrogate_map(Surrogates()))
    direct = expect_trace(R @ R.T, "appendix", alpha_tilde=True) / Ny
    via_lemma = expect_trace(readout_average(R), "appendix", alpha_tilde=True)
    assert same(direct, via_lemma)


def test_vanilla_is_gating_with_all_gates_open():
    assert same(leading(transfer(GATED).value).subs({alpha_t: 1}),
                leading(transfer(VANILLA).value, gated=False))


# -- exact finite-N vanilla transfer -------------------------------------------------------

def test_exact_gaussian_vanilla_transfer_matches_monte_carlo_with_true_pseudo_inverses():
    nx, ns, ra, rb, n = 30, 10, 0.6, 0.4, 1500
    rng = np.random.default_rng(11)
    values = []
    for _ in range(n):
        t = draw_tasks(nx=nx, ns=ns, ny=4, rho_a=ra, rho_b=rb, generator="gaussian", seed=rng)
        W1 = t.B[0] @ np.linalg.pinv(t.A[0])
        before = np.sum(t.B[1] ** 2) / 4
        after = np.sum((t.B[1] - W1 @ t.A[1]) ** 2) / 4
        values.append(before - after)
    values = np.asarray(values)
    exact = float(vanilla.exact_gaussian_transfer().value.subs(
        {Nx: nx, Ns: ns, rho_a: sp.Rational(3, 5), rho_b: sp.Rational(2, 5)}))
    surrogate_free_leading = ra * (2 * rb - ra)
    se = values.std(ddof=1) / np.sqrt(n)
    assert abs(values.mean() - exact) < 3 * se
    assert abs(values.mean() - surrogate_free_leading) > 3 * se  # the correction is resolved


def test_exact_vanilla_transfer_tends_to_the_printed_formula():
    exact = vanilla.exact_gaussian_transfer().value
    assert same(leading(exact, gated=False), rho_a * (2 * rho_b - rho_a))


# -- claims ---------------------------------------------------------------------------------

def _status(cid: str) -> str:
    claims = {c.id: c for c in vanilla.CLAIMS + gating.CLAIMS}
    return evaluate(claims[cid]).status


@pytest.mark.parametrize("cid", [
    "vanilla.transfer", "vanilla.retention", "gating.transfer", "gating.retention",
    "gating.transfer.random", "gating.retention.random", "gating.optimal_alpha",
    "gating.probe_error", "gating.adaptive_rho_g", "gating.adaptive_alpha_tilde",
    "gating.alpha_tilde", "gating.retention.alpha_to_zero", "vanilla.transfer.corners",
    "vanilla.transfer.argmax_rho_a", "vanilla.negative_at_high_rho_a_low_rho_b",
])
def test_leading_order_results_of_the_paper_are_reproduced(cid):
    assert _status(cid) == "verified"


def test_printed_next_to_leading_ns_over_alpha_nx_terms_hold_for_both_generators():
    for generator in ("gaussian", "appendix"):
        for term in ("term2", "cross"):
            assert _status(f"gating.retention.{term}[{generator}]") == "verified"


def test_printed_one_over_alpha_nx_terms_are_errata_for_gates_or_the_appendix_generator():
    for generator in ("gaussian", "appendix"):
        assert _status(f"gating.transfer.second_term[{generator}]") == "erratum"
        assert _status(f"gating.retention.term3[{generator}]") == "erratum"
    # without gates the Gaussian generator reproduces the printed (1 + rho_a^2/Ns)
    exact = gating.transfer_terms("gaussian")[1].subs({alpha: 1, alpha_t: 1})
    assert same(nlo(exact / Ns, gated=False), 1 + rho_a**2 / Ns)


def test_isserlis_fourth_moment_holds_only_for_the_gaussian_generator():
    assert _status("gating.aquad_isserlis[gaussian]") == "verified"
    assert _status("gating.aquad_isserlis[appendix]") == "erratum"


def test_the_seven_listed_pairings_are_the_ones_up_to_next_to_leading_order():
    assert _status("gating.retention.term2.pairings") == "verified"
    assert _status("gating.retention.cross.pairings") == "verified"


def test_exact_vanilla_transfer_is_the_printed_formula_plus_a_finite_size_correction():
    verdict = evaluate(next(c for c in vanilla.CLAIMS if c.id == "vanilla.transfer.exact[gaussian]"))
    assert verdict.status == "leading order"
    assert same(verdict.correction, -(1 - rho_a**2) * Ns / (Nx - Ns - 1))


def test_all_claims_of_both_modules_evaluate_quickly_and_errata_carry_notes():
    start = time.perf_counter()
    verdicts = [evaluate(c) for c in vanilla.CLAIMS + gating.CLAIMS]
    assert time.perf_counter() - start < 20.0
    for v in verdicts:
        assert v.status in ("verified", "leading order", "erratum", "open")
        if v.status == "erratum":
            assert "printed" in v.note
        if v.status == "open":
            assert v.claim.printed is None  # only claims the paper does not print are open


# -- bad input ------------------------------------------------------------------------------

def test_bad_model_input_raises_value_errors():
    with pytest.raises(ValueError, match="after"):
        GATED.weights(3)
    with pytest.raises(ValueError, match="mu"):
        GATED.residual(3, 1)
    with pytest.raises(ValueError, match="y space"):
        readout_average(GATED.features(1).T)
    with pytest.raises(ValueError, match="gates"):
        from tasksim.derivations.two_task import probe_error
        probe_error(VANILLA)
    with pytest.raises(ValueError, match="generator"):
        transfer(GATED, "normal")


def test_the_surrogates_finite_size_term_is_not_the_models():
    # exact (Gaussian) Ns/Nx coefficient -(1 - rho_a^2); after A^+ ~ (Ns/Nx) A^T it is
    # -(1 + rho_a^2/Ns): they differ by rho_a^2 (1 + 1/Ns)
    v = evaluate(next(c for c in vanilla.CLAIMS
                      if c.id == "vanilla.transfer.surrogate_vs_exact_nlo[gaussian]"))
    assert v.status == "open"
    assert same(v.derived, rho_a**2 * (1 + 1 / Ns))


def test_the_gated_fourth_moment_misprint_is_sized_without_the_appendix_generator_s_error():
    """REFEREE28 m3: the [appendix] statements of lines 610 and 679 differ from the printed
    form by two errors, the gate moment's (this cause's) and the appendix generator's fourth
    moment (line 619's cause); their size carries only the first, the same as the Gaussian
    variant's: alpha~ rho_a^2 (alpha alpha~ - 1)/(alpha Nx) in Delta eps_TF and Delta eps_RT
    (-0.0000833 at alpha = rho_a = 1/2, alpha~ = 1, Nx = 3000)."""
    import sympy as sp

    from tasksim.derivations.gating import CLAIMS, generator_part
    from tasksim.derivations.symbols import Nx, alpha, alpha_t, rho_a

    by_id = {c.id: c for c in CLAIMS}
    own = alpha_t * rho_a**2 * (alpha * alpha_t - 1) / (alpha * Nx)
    for name in ("gating.transfer.second_term", "gating.retention.term3"):
        for generator in ("gaussian", "appendix"):
            claim = by_id[f"{name}[{generator}]"]
            change = claim.carry(claim.derive().derived - claim.printed)
            assert sp.simplify(change - own) == 0, (name, generator)
    # the share taken out is line 619's error, not zero
    assert sp.simplify(generator_part("retention.term3")
                       - 2 * alpha_t * (rho_a - rho_a**2) / (alpha * Nx)) == 0
    assert float(own.subs({alpha_t: 1, alpha: 0.5, rho_a: 0.5, Nx: 3000})) == \
        pytest.approx(-0.125 / 1500)


def test_appendix_b1_expansions_are_identities_of_the_b_average_that_a_wrong_term_breaks():
    """Lines 581 and 649 (REFEREE49 B11): the last lines of eq_ap_etf_gated1 and
    eq_ap_eRT_gate_expnd are the exact average over B of the model's own errors, for every A
    and gates (the retention with D_1 A_1 of full column rank), so their verdicts are exact;
    the trace comparison is not vacuous: half the printed 2 rho_b, or a lost cross term,
    leaves a difference."""
    from tasksim.derivations.gating import _model_b_average, _trace_difference
    from tasksim.derivations.matrix_words import eye
    from tasksim.derivations.symbols import Ns, rho_b

    for cid in ("gating.transfer.expansion", "gating.retention.expansion"):
        derivation = [c for c in gating.CLAIMS if c.id == cid][0].derive()
        assert derivation.derived == 0 and derivation.exact
    Q, parts = _model_b_average(2, 1)
    P = -parts[1]
    assert _trace_difference(Q, (2 * rho_b / Ns) * P - (P.T @ P) / Ns) == 0
    assert _trace_difference(Q, (rho_b / Ns) * P - (P.T @ P) / Ns) != 0
    Q, parts = _model_b_average(1, 2)
    M1, M2 = parts[1], parts[2]
    assert _trace_difference(Q, (eye("s") - M1.T @ M1 - M2.T @ M2) / Ns) != 0
