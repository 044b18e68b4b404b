"""Uniform-prior averages (derivations/averages.py) and the phase diagram of Fig. 7
(derivations/phase_diagram.py): exact values, independent quadrature, regions that the check
can tell apart, and the sign statements."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from tasksim.derivations import averages, phase_diagram
from tasksim.derivations.averages import (
    adaptive_gating_average,
    average_by_quadrature,
    average_over_unit_square,
    random_gating_average,
)
from tasksim.derivations.claims import evaluate
from tasksim.derivations.gating import adaptive_alpha_tilde, leading_retention, leading_transfer
from tasksim.derivations.phase_diagram import PRINTED_REGION, rising_region, same_region
from tasksim.derivations.symbols import alpha, alpha_t, rho_a, rho_b


def status(module, cid: str) -> str:
    return evaluate(next(c for c in module.CLAIMS if c.id == cid)).status


# -- averages -------------------------------------------------------------------------------

@pytest.mark.parametrize("cid", [
    "averages.vanilla.transfer", "averages.vanilla.retention", "averages.random.transfer",
    "averages.random.retention", "averages.optimal_alpha.transfer",
    "averages.random.transfer.argmax", "averages.random.retention.decreasing",
    "averages.random.moderate_gating_helps_both", "averages.adaptive.improves_transfer",
])
def test_printed_averages_are_reproduced_from_the_derived_formulas(cid):
    assert status(averages, cid) == "verified"


def test_piecewise_average_of_a_known_function():
    # int int max(0, rho_b - rho_a) over the unit square = 1/6
    assert average_over_unit_square(sp.Max(0, rho_b - rho_a)) == sp.Rational(1, 6)
    assert average_over_unit_square(sp.Min(1, rho_b / rho_a) * rho_a) == sp.Rational(1, 3)


def test_random_gating_at_alpha_one_is_the_vanilla_model():
    assert random_gating_average("transfer").subs(alpha, 1) == sp.Rational(1, 6)
    assert random_gating_average("retention").subs(alpha, 1) == sp.Rational(43, 60)


def test_adaptive_gating_at_alpha_one_is_the_vanilla_model():
    assert adaptive_gating_average("transfer").subs(alpha, 1) == sp.Rational(1, 6)
    assert adaptive_gating_average("retention").subs(alpha, 1) == sp.Rational(43, 60)


def test_adaptive_averages_are_polynomials_in_alpha_confirmed_by_quadrature():
    for which, integrand in (("transfer", leading_transfer()),
                             ("retention", leading_retention())):
        exact = adaptive_gating_average(which)
        assert exact.is_polynomial(alpha) and exact.free_symbols == {alpha}
        f = integrand.subs(alpha_t, adaptive_alpha_tilde())
        a = sp.Rational(1, 2)
        numeric = average_by_quadrature(f, {alpha: a}, digits=15)
        assert abs(numeric - mpmath.mpf(sp.N(exact.subs(alpha, a), 30))) < mpmath.mpf(10) ** -14


def test_optimal_alpha_average_is_confirmed_by_quadrature():
    from tasksim.derivations.gating import optimal_alpha

    f = leading_transfer().subs(alpha_t, optimal_alpha())
    assert abs(average_by_quadrature(f, {}, digits=15) - mpmath.mpf(1) / 4) < 1e-14


def test_adaptive_table_has_fifteen_significant_digits():
    rows = averages.adaptive_table()
    assert [r[0] for r in rows] == list(averages.ADAPTIVE_ALPHAS)
    assert rows[2][1] == "0.211160714285714"  # 473/2240 = 23/210 - 23/448 + 257/1680
    assert sp.Rational(473, 2240) == adaptive_gating_average("transfer").subs(alpha, sp.Rational(1, 2))


def test_adaptive_gatings_retention_cost_stays_below_its_transfer_gain_up_to_a_crossing():
    """Line 266 read against the transfer gain: the cost (at most 0.024, at alpha = 0.161)
    stays below the gain until their crossing; above it the cost exceeds the gain by the
    derived value, so the statement holds under a stronger condition (alpha below it)."""
    v = evaluate(next(c for c in averages.CLAIMS if c.id == "averages.adaptive.retention_cost"))
    steps = {s.name: s.expr for s in v.derivation.steps}
    assert 0.02 < float(steps["alpha of the largest cost"]) < 0.2
    crossing = list(steps["alpha in (0, 1) where the cost equals the gain"])
    assert len(crossing) == 1 and 0.7 < float(crossing[0]) < 0.9
    assert v.status == "erratum" and 0 < float(v.derived) < 0.01
    assert v.derivation.stronger_condition.startswith(f"alpha < {float(crossing[0]):.3f}")


def test_unknown_average_raises():
    with pytest.raises(ValueError, match="which"):
        random_gating_average("forgetting")


# -- phase diagram ------------------------------------------------------------------------

def test_derived_rising_region_equals_the_printed_red_region():
    assert status(phase_diagram, "phase_diagram.rising_region") == "verified"


def test_region_check_tells_apart_regions_that_differ():
    derived = rising_region()
    first_clause_only = rho_b >= 2 * rho_a / 3 + 1 / (3 * rho_a)
    shifted_corner = sp.Or(first_clause_only, sp.And(rho_b >= sp.Rational(19, 20),
                                                      rho_a >= 1 / sp.sqrt(2)))
    assert not same_region(derived, first_clause_only)
    assert not same_region(derived, shifted_corner)
    assert same_region(derived, PRINTED_REGION)


def test_boundary_curve_is_the_printed_one():
    assert sp.simplify(phase_diagram.boundary_curve() - (2 * rho_a / 3 + 1 / (3 * rho_a))) == 0


@pytest.mark.parametrize("point, rises", [
    ((sp.Rational(6, 10), 1), True),  # inside the red region
    ((sp.Rational(99, 100), sp.Rational(95, 100)), True),  # red and rho_b < rho_a
    ((sp.Rational(3, 10), sp.Rational(9, 10)), False),
    ((sp.Rational(9, 10), sp.Rational(2, 10)), False),
])
def test_retention_rises_somewhere_in_alpha_exactly_inside_the_region(point, rises):
    R = leading_retention().subs(alpha_t, alpha).subs({rho_a: point[0], rho_b: point[1]})
    grid = [sp.Rational(k, 400) for k in range(1, 401)]
    values = [R.subs(alpha, a) for a in grid]
    increases = any(b > a for a, b in zip(values, values[1:]))
    assert increases == rises
    assert bool(rising_region().subs({rho_a: point[0], rho_b: point[1]})) == rises


def test_dense_gating_hurts_both_when_rho_b_is_below_rho_a():
    assert status(phase_diagram, "phase_diagram.high_alpha_hurts_both") == "verified"
    assert status(phase_diagram, "phase_diagram.tradeoff") == "verified"


def test_red_region_overlaps_the_rho_b_below_rho_a_phase_on_a_small_triangle():
    v = evaluate(next(c for c in phase_diagram.CLAIMS
                      if c.id == "phase_diagram.overlap_of_phases"))
    assert sp.simplify(v.derived - (1 - 2 * sp.sqrt(2) / 3) ** 2 / 2) == 0


@pytest.mark.paper_scale
def test_region_equality_on_a_fine_grid():
    assert same_region(rising_region(), PRINTED_REGION, n=600)
