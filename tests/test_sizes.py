"""Sizes at the paper's sizes (Nx = 3000, Ns = 30, Ny = 10) are in the units of what the
statement is about: an intermediate term's error is carried to the observable, a statement
that holds in a limit is sized by its leading order's error there (the exact 1/Nx
coefficients), and nothing the report's worker processes strip changes a size."""
import pytest
import sympy as sp

from tasksim.derivations.registry import all_claims
from tasksim.derivations.sizes import (LIMIT_TERMS, _erfcinv, NO_LIMIT_TERM, PAPER_SIZES,
                                       leading_order_error, observable_size,
                                       size_at_paper_sizes)
from tasksim.derivations.symbols import Ns, Nx, alpha
from tasksim.reports.report_jobs import picklable
from tasksim.reports.verdicts import _evaluated_one, _size

SCALE = PAPER_SIZES[Ns] / PAPER_SIZES[Nx]  # Ns/Nx = 0.01


def test_an_intermediate_term_is_carried_to_the_observable_not_sized_in_its_own_units():
    """Line 1195's piece is printed as a coefficient of Ns/Nx and enters Delta eps_RT with
    coefficient -1 (the expansion at line 1160): its size is the raw difference times Ns/Nx."""
    v = _evaluated_one("fisher.retention_piece.norm.appendix")
    raw = size_at_paper_sizes(v.derived - v.claim.printed)
    size, how = observable_size(v, "wrong")
    assert size.value == pytest.approx(raw.value * SCALE, rel=1e-12)
    assert size.point == raw.point and "carried" in how


@pytest.mark.parametrize("claim_id", ["fisher.retention_piece.trace.appendix",
                                      "gating.aquad_isserlis[appendix]",
                                      "soft_threshold.alpha_invariance_with_diagonal"])
def test_a_size_survives_the_worker_processes_that_strip_the_carry(claim_id):
    v = _evaluated_one(claim_id)
    stripped = picklable(v)
    assert stripped.claim.carry is None, "the worker strips every callable"
    assert _size(stripped, "wrong", []) == _size(v, "wrong", [])
    assert _size(v, "wrong", [])[0] is not None


def test_soft_thresholding_is_sized_in_fig_3d_average_retention_at_an_alpha_below_one():
    """Line 271: the paper's alpha-free retention against the derived one with the diagonal
    kept, averaged over the uniform prior, at the paper's sizes; alpha = 1 is the vanilla
    model (no change)."""
    from tasksim.derivations.soft_threshold import fig3d_retention_change

    size, point, how = _size(_evaluated_one("soft_threshold.alpha_independence"), "wrong", [])
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
    named = set(LIMIT_TERMS) | set(NO_LIMIT_TERM)
    assert named <= heads, sorted(named - heads)
    assert not set(LIMIT_TERMS) & set(NO_LIMIT_TERM)


def test_a_location_has_no_size_and_says_why():
    size, why = leading_order_error("gating.optimal_alpha")
    assert size is None and "location" in why
    size, why = leading_order_error("gating.probe_error")
    assert size is None and "no exact 1/Nx coefficient" in why
