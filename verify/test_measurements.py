"""Measured verdicts (reports/measurements.py): an erratum's correction is a finding only when a
measurement at two or more sizes confirms it, and the verdict is computed from the numbers.

The default suite runs every measurement at its quick sizes; ``--paper-scale`` reruns them at
full size and checks that the committed reports/claims.json holds exactly those results.
"""
import json
import math
from pathlib import Path

import pytest

from tasksim.derivations.claims import evaluate
from tasksim.derivations.registry import all_claims
from tasksim.reports.measurements import (MEASUREMENTS, UNMEASURABLE, Row, judge, measure,
                                          measure_all, measurement_for)

COMMITTED = Path(__file__).resolve().parent.parent / "reports" / "claims.json"
STATUS = {c.id: evaluate(c).status for c in all_claims()}


# -- how a verdict follows from the numbers ------------------------------------------------

def _row(mean, sem, printed, derived, nx=100, ns=10):
    return Row(nx=nx, ns=ns, mean=mean, sem=sem, n=10, printed=printed, derived=derived)


def test_a_correction_is_confirmed_when_the_printed_value_is_rejected_and_the_derived_is_not():
    assert judge([_row(0.50, 0.01, 1.0, 0.52)], exact=True) == "confirmed"


def test_a_rejected_printed_value_with_a_rejected_correction_leaves_the_correction_open():
    assert judge([_row(0.50, 0.01, 1.0, 0.60)], exact=True) == (
        "printed form wrong, correction open")


def test_a_measurement_that_cannot_tell_them_apart_agrees_with_both():
    assert judge([_row(0.50, 0.10, 0.60, 0.45)], exact=True) == "agrees with both"


def test_a_printed_value_within_the_measurement_is_not_rejected():
    assert judge([_row(0.50, 0.01, 0.51, 0.90)], exact=True) == "printed form not rejected"


def test_an_exact_measurement_rejects_anything_beyond_rounding():
    assert judge([_row(0.5, 0.0, 0.5 + 1e-6, 0.5)], exact=True) == "confirmed"
    assert judge([_row(0.5, 0.0, 0.5 + 1e-12, 0.5)], exact=True) == "agrees with both"


def test_a_leading_order_correction_must_be_approached_as_fast_as_the_small_parameter():
    far = _row(0.40, 0.001, 1.0, 0.50, nx=100)
    converging, stalling = _row(0.49, 0.001, 1.0, 0.50, nx=1000), _row(0.45, 0.001, 1.0, 0.50,
                                                                         nx=1000)
    assert judge([far, converging], exact=False) == "confirmed"
    assert judge([far, stalling], exact=False) == "printed form wrong, correction open"
    assert judge([stalling], exact=False) == "printed form wrong, correction open"


def test_a_statement_that_only_denies_a_value_is_judged_on_that_value():
    rows = [_row(0.15, 0.001, None, 0.15, nx=3000)]
    assert judge(rows, exact=True, denied=0.0) == "statement confirmed, derived value confirmed"
    rows = [_row(0.001, 0.001, None, 0.15, nx=3000)]
    assert judge(rows, exact=True, denied=0.0) == (
        "statement not confirmed, derived value not confirmed")


def test_a_verdict_needs_a_measurement():
    with pytest.raises(ValueError):
        judge([], exact=True)


# -- what is measured ----------------------------------------------------------------------

def test_every_measurement_names_a_claim_of_the_registry_once():
    ids = [m.claim_id for m in MEASUREMENTS]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(STATUS), sorted(set(ids) - set(STATUS))


@pytest.mark.parametrize("m", MEASUREMENTS, ids=lambda m: m.claim_id)
def test_every_measurement_runs_at_two_or_more_sizes_with_several_samples(m):
    for sizes in (m.sizes, m.quick_sizes):
        assert len(set(sizes)) >= 2, m.claim_id
    assert m.samples >= 8 and m.quick_samples >= 4


def test_every_erratum_correction_is_measured_or_says_why_not():
    errata = {i for i, s in STATUS.items() if s == "erratum"}
    measured = {m.claim_id for m in MEASUREMENTS}
    assert not errata - measured - set(UNMEASURABLE), sorted(errata - measured)
    assert set(UNMEASURABLE) <= errata, "reasons for claims that are no longer errata"


@pytest.fixture(scope="module")
def quick():
    return measure_all(quick=True)


def test_quick_measurements_find_the_same_errata_verdicts_as_the_committed_full_ones(quick):
    """Smaller sizes and other seeds reproduce whether each correction is confirmed."""
    if not COMMITTED.is_file():
        pytest.skip("no committed report in this checkout")
    committed = {r["id"]: r for r in json.loads(COMMITTED.read_text())["claims"]}
    for claim_id, m in quick.items():
        if STATUS[claim_id] == "erratum":
            assert m.verdict == committed[claim_id]["measured"]["verdict"], m.sentence()


def test_errata_corrections_confirmed_by_measurement(quick):
    """The findings of the report, one per erratum (module docstring of measurements.py)."""
    verdicts = {i: m.verdict for i, m in quick.items() if STATUS[i] == "erratum"}
    open_ = {i for i, v in verdicts.items() if v != "confirmed"}
    assert open_ == {"soft_threshold.alpha_independence",
                     "soft_threshold.retention_with_diagonal"}, verdicts
    assert all(verdicts[i] == "printed form wrong, correction open" for i in open_)


def test_a_measurement_is_determined_by_its_seed():
    m = measurement_for("vanilla.transfer.exact[gaussian]")
    first, again = measure(m, quick=True, seed=3), measure(m, quick=True, seed=3)
    other = measure(m, quick=True, seed=4)
    assert first.rows == again.rows
    assert first.rows[0].mean != other.rows[0].mean


# -- the committed report ------------------------------------------------------------------

@pytest.mark.paper_scale
def test_committed_measurements_are_reproduced_at_full_size():
    """About two minutes: every measurement at its full sizes (seed 0)."""
    if not COMMITTED.is_file():
        pytest.skip("no committed report in this checkout")
    committed = {r["id"]: r.get("measured") for r in json.loads(COMMITTED.read_text())["claims"]}
    for claim_id, m in measure_all(quick=False, seed=0).items():
        now, then = m.as_record(), committed[claim_id]
        assert now["verdict"] == then["verdict"], (claim_id, m.sentence())
        for a, b in zip(now["rows"], then["rows"], strict=True):
            for key in ("mean", "sem", "printed", "derived"):
                if a[key] is None or b[key] is None:
                    assert a[key] == b[key], (claim_id, key)
                else:
                    assert math.isclose(a[key], b[key], rel_tol=1e-6, abs_tol=1e-12), (
                        claim_id, key, a[key], b[key])
