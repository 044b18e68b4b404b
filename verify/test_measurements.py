"""Measured verdicts (reports/measurements.py): an erratum's correction is confirmed only by a
test with stated power at the largest size measured (the derived value within 3 SE, the
printed one rejected at >= 5 SE, SE <= |printed - derived|/3), computed from the numbers.

The default suite runs every measurement at its quick sizes; ``--paper-scale`` reruns them at
full size (about four minutes on one core), checks the power of every erratum's measurement
and the corrections the full-size report confirms.
"""
import json
import math
from pathlib import Path

import pytest

from tasksim.derivations.claims import evaluate
from tasksim.derivations.registry import all_claims
from tasksim.reports.measurements import (CONFIRM_Z, LEADING_SHRINKS, LEADING_STAYS,
                                          MEASUREMENTS, POWER, REJECT_Z, UNMEASURABLE, Row,
                                          confirmation, judge, leading_error_state, measure,
                                          measure_all, measurement_for)

COMMITTED = Path(__file__).resolve().parent.parent / "reports" / "claims.json"
STATUS = {c.id: evaluate(c).status for c in all_claims()}
FINDINGS = {c.id for c in all_claims() if c.finding}


# -- how a verdict follows from the numbers ------------------------------------------------

def _row(mean, sem, printed, derived, nx=100, ns=10):
    return Row(nx=nx, ns=ns, mean=mean, sem=sem, n=10, printed=printed, derived=derived)


def test_a_correction_is_confirmed_when_the_printed_value_is_rejected_and_the_derived_is_not():
    assert judge([_row(0.50, 0.01, 1.0, 0.52)], exact=True) == "confirmed"


def test_a_derived_value_off_by_more_than_three_standard_errors_is_not_confirmed():
    c = confirmation([_row(0.50, 0.01, 1.0, 0.535)])
    assert c.state == "not confirmed" and "derived value off" in c.reason


def test_a_printed_value_within_five_standard_errors_leaves_the_correction_unconfirmed():
    c = confirmation([_row(0.50, 0.01, 0.54, 0.50)])
    assert c.state == "not confirmed" and "printed value not rejected" in c.reason


def test_too_few_samples_for_the_stated_power_is_not_a_confirmation():
    """SE must be at most |printed - derived|/3 even when both z-tests pass by luck."""
    c = confirmation([_row(0.37, 0.05, 0.62, 0.50)])
    assert c.state == "not confirmed" and c.reason.startswith("too few samples")


def test_the_test_is_made_at_the_largest_size_and_no_rate_rescues_a_miss():
    far = _row(0.40, 0.001, 1.0, 0.50, nx=100)
    converging = _row(0.49, 0.001, 1.0, 0.50, nx=1000)
    c = confirmation([far, converging])
    assert c.state == "not confirmed" and c.size == (1000, 10)
    assert confirmation([far, _row(0.499, 0.001, 1.0, 0.50, nx=1000)]).state == "confirmed"


def test_an_exact_derived_value_must_hold_at_every_size():
    rows = [_row(0.40, 0.001, 1.0, 0.50, nx=100), _row(0.50, 0.001, 1.0, 0.50, nx=1000)]
    assert confirmation(rows, exact=False).state == "confirmed"
    assert confirmation(rows, exact=True).state == "not confirmed"


def test_an_exact_measurement_rejects_anything_beyond_rounding():
    assert judge([_row(0.5, 0.0, 0.5 + 1e-6, 0.5)], exact=True) == "confirmed"
    assert judge([_row(0.5, 0.0, 0.5 + 1e-12, 0.5)], exact=True) == "not confirmed"


def test_a_statement_that_only_denies_a_value_is_judged_on_that_value():
    rows = [_row(0.15, 0.001, None, 0.15, nx=3000)]
    assert judge(rows, exact=True, denied=0.0) == "statement confirmed, derived value confirmed"
    rows = [_row(0.001, 0.001, None, 0.15, nx=3000)]
    assert judge(rows, exact=True, denied=0.0) == (
        "statement not confirmed, derived value not confirmed")


def test_a_verdict_needs_a_measurement():
    with pytest.raises(ValueError):
        judge([], exact=True)
    assert confirmation([]).state == "not measured"


# -- what is measured ----------------------------------------------------------------------

def test_every_measurement_names_a_claim_of_the_registry_once():
    ids = [m.claim_id for m in MEASUREMENTS]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(STATUS), sorted(set(ids) - set(STATUS))


@pytest.mark.parametrize("m", MEASUREMENTS, ids=lambda m: m.claim_id)
def test_every_measurement_runs_at_two_or_more_sizes_and_says_why_below_the_papers(m):
    for sizes in (m.sizes, m.quick_sizes):
        assert len(set(sizes)) >= 2, m.claim_id
    assert m.samples >= 8 and m.quick_samples >= 4
    largest = max(m.sizes, key=lambda s: (s[0], s[1]))
    assert largest == (3000, 30) or m.cost, f"{m.claim_id}: below the paper's sizes, no cost"


def test_every_erratum_correction_is_measured_or_says_why_not():
    """Findings (the surrogate 1/Nx terms) are measured too, but they are not errata."""
    errata = {i for i, s in STATUS.items() if s == "erratum"} - FINDINGS
    measured = {m.claim_id for m in MEASUREMENTS}
    unexplained = errata - measured - set(UNMEASURABLE) - _unmeasured_steps()
    assert not unexplained, sorted(unexplained)
    assert set(UNMEASURABLE) <= errata, "reasons for claims that are no longer errata"


def _unmeasured_steps() -> set[str]:
    """Step-level errata whose cause is measured through another statement of it (their
    effect is that statement's), e.g. the Gaussian variants and the lam = 0 check."""
    by_cause: dict[str, set[str]] = {}
    for c in all_claims():
        if c.cause:
            by_cause.setdefault(c.cause, set()).add(c.id)
    measured = {m.claim_id for m in MEASUREMENTS}
    return {i for ids in by_cause.values() if ids & measured for i in ids}


@pytest.fixture(scope="module")
def quick():
    return measure_all(quick=True)


def test_every_quick_confirmation_passes_the_test_at_its_largest_row(quick):
    for claim_id, m in quick.items():
        c = m.confirmation
        if c is None or c.state != "confirmed":
            continue
        gap = abs(c.printed - c.derived)
        assert abs(c.measured - c.derived) <= CONFIRM_Z * c.se + 1e-9 * (1 + abs(c.derived))
        assert c.se == 0 or abs(c.measured - c.printed) >= REJECT_Z * c.se
        assert c.se <= gap / POWER, claim_id


def test_the_confirmations_recorded_in_claims_json_pass_the_test():
    """Every `confirmed` in the committed claims.json passes the test at its largest row
    (when the committed report records confirmations: built with today's rule)."""
    if not COMMITTED.is_file():
        pytest.skip("no committed report in this checkout")
    records = json.loads(COMMITTED.read_text())["claims"]
    checked = 0
    for r in records:
        c = r.get("confirmation")
        if not c or c["state"] != "confirmed":
            continue
        checked += 1
        # an empirical statement (Sec. 7) claims a sign: its printed boundary is 0, and there
        # is no derived correction to match
        printed = 0.0 if c["printed"] is None and c["derived"] is None else c["printed"]
        assert c["se"] == 0 or abs(c["measured"] - printed) >= REJECT_Z * c["se"], r["id"]
        if c["derived"] is None:
            continue
        assert abs(c["measured"] - c["derived"]) <= CONFIRM_Z * c["se"] + 1e-9, r["id"]
        assert c["se"] <= abs(c["printed"] - c["derived"]) / POWER, r["id"]
    if not checked:
        pytest.skip("the committed report predates the confirmation test: rebuild it")


def test_a_measurement_is_determined_by_its_seed():
    m = measurement_for("vanilla.transfer.exact[gaussian]")
    first, again = measure(m, quick=True, seed=3), measure(m, quick=True, seed=3)
    other = measure(m, quick=True, seed=4)
    assert first.rows == again.rows
    assert first.rows[0].mean != other.rows[0].mean


# -- full size -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def full():
    return measure_all(quick=False, seed=0)


@pytest.mark.paper_scale
def test_every_erratum_measurement_has_the_stated_power_at_full_size(full):
    """Seeds sized for the test: SE <= |printed - derived|/3 at the largest row."""
    for claim_id, m in full.items():
        if m.confirmation is None or STATUS[claim_id] != "erratum":
            continue
        assert "too few samples" not in m.confirmation.reason, (claim_id, m.confirmation.reason)


@pytest.mark.paper_scale
def test_errata_corrections_confirmed_at_full_size(full):
    """The report's findings: every correction confirmed but the soft-thresholding ones, whose
    derived leading order misses the exact solver at the paper's sizes."""
    open_ = {i for i, m in full.items() if STATUS[i] == "erratum" and i not in FINDINGS
             and m.confirmation is not None and m.confirmation.state != "confirmed"}
    assert open_ == {"soft_threshold.alpha_independence",
                     "soft_threshold.retention_with_diagonal"}, {
        i: full[i].confirmation.reason for i in open_}
    for claim_id, m in full.items():
        if m.confirmation is not None and m.confirmation.state == "confirmed":
            r = m.confirmation
            assert math.isfinite(r.measured) and r.se <= abs(r.printed - r.derived) / POWER


# -- a leading order measured for its size -------------------------------------------------

def test_a_leading_orders_error_shrinks_only_beyond_three_combined_standard_errors():
    shrinking = [Row(300, 30, 0.27, 0.001, 16, None, 0.25),
                 Row(3000, 30, 0.252, 0.0003, 16, None, 0.25)]
    flat = [Row(300, 30, 0.253, 0.001, 16, None, 0.25),
            Row(3000, 30, 0.252, 0.0003, 16, None, 0.25)]
    assert leading_error_state(shrinking) == LEADING_SHRINKS
    assert leading_error_state(flat) == LEADING_STAYS
    assert leading_error_state(shrinking[1:]) == LEADING_STAYS  # one size: nothing to compare


@pytest.mark.parametrize("m", [m for m in MEASUREMENTS if m.leading], ids=lambda m: m.claim_id)
def test_a_measured_leading_order_has_no_printed_value_and_one_derived_value(m):
    """The paper prints a limit, not a value at a finite size; the derived value is the same
    leading order at every size (what the measured error is taken against)."""
    values = {m.value("derived", nx, ns) for nx, ns in m.sizes + m.quick_sizes}
    assert len(values) == 1
    assert all(m.value("printed", nx, ns) is None for nx, ns in m.sizes)


def test_every_measured_leading_orders_error_shrinks_at_the_quick_sizes(quick):
    for m in MEASUREMENTS:
        if m.leading:
            assert quick[m.claim_id].verdict == LEADING_SHRINKS, quick[m.claim_id].sentence()
