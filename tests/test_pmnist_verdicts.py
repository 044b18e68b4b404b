"""The Sec. 7 verdicts from stored grids (reports/pmnist_predictions.sec7_verdicts): each
statement's word follows from paired per-seed numbers as the module documents, a grid that is
not stored leaves its statements "not decided" with the command that computes it, and too few
seeds decide nothing."""
from __future__ import annotations

import numpy as np
import pytest

from tasksim.reports.pmnist_predictions import VERDICTS, StoredGrids, sec7_verdicts
from tasksim.reports.pmnist_results import empty_grid
from tasksim.solvers.pmnist.grids import paper_grids, resolved_points


def _grid(name: str, seeds: int, value) -> object:
    """A stored grid of the paper's points (digits protocol, for speed) whose every run is
    done, transfer and retention ``value(point, which, j)``."""
    spec = paper_grids("digits", seeds=seeds)[name]
    points = resolved_points(spec)
    ds = empty_grid(spec, points)
    rng = np.random.default_rng(0)
    for i, p in enumerate(points):
        for j in range(seeds):
            noise = 0.01 * rng.standard_normal(2)
            ds["transfer"].values[i, j] = value(p, "transfer", j) + noise[0]
            ds["retention"].values[i, j] = value(p, "retention", j) + noise[1]
            ds["curves"].values[i, j] = 0.5
            ds["done"].values[i, j] = 1
    return ds


def _linear_like(p, which, j):
    """The linear model's corners: (1, 0) bad, (0, 1) retained with zero transfer."""
    a, b = p["rho_a"], p["rho_b"]
    if which == "transfer":
        return a * (2 * b - a)
    return 1.0 - a * a * (1 - b) * 1.5


def _by_line(verdicts):
    return {(v.line, v.claim_id): v for v in verdicts}


def test_a_grid_shaped_like_the_linear_model_confirms_the_corners():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, _linear_like)})
    v = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}
    p1 = v["pmnist.below_zero_at_high_feature_low_readout"]
    assert p1.verdict == "holds in the stated limit" and p1.n == 5 and p1.dataset == "digits"
    assert p1.effect == pytest.approx(-0.5, abs=0.02)  # retention -0.5, transfer -1 at (1, 0)
    assert v["pmnist.high_retention_zero_transfer"].verdict == "holds in the stated limit"
    assert v["pmnist.readout_remapping_forgets_more"].verdict == "holds in the stated limit"
    # what fig6CD, fig6EH, fig9CD, fig9EF would decide is not stored: not decided, and says how
    missing = v["pmnist.random_gating_tradeoff"]
    assert missing.verdict == "not decided" and "tasksim pmnist-grid fig6CD" in missing.evidence


def test_positive_transfer_and_retention_at_high_feature_low_readout_make_p1_wrong():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, lambda p, w, j: 0.3)})
    v = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}
    assert v["pmnist.below_zero_at_high_feature_low_readout"].verdict == "wrong"


def test_one_seed_decides_nothing():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 1, _linear_like)})
    assert {v.verdict for v in sec7_verdicts(grids)} == {"not decided"}


def test_every_verdict_is_a_word_of_the_vocabulary_and_records_are_json_ready():
    import json

    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _linear_like)})
    for v in sec7_verdicts(grids):
        assert v.verdict in VERDICTS
        json.dumps(v.as_record())


def _p2_transfer(offset: float, spread: float):
    """The linear model's corners, but transfer at (0, 1) is ``offset`` with a per-seed spread
    of ``spread`` (seeds j = 0..4 at offset + spread (j - 2) / sqrt(2.5): that standard
    deviation)."""
    def value(p, which, j):
        if which == "transfer" and (p["rho_a"], p["rho_b"]) == (0.0, 1.0):
            return offset + spread * (j - 2) / 2.5 ** 0.5
        return _linear_like(p, which, j)
    return value


def test_a_difference_short_of_five_standard_errors_is_not_decided_and_says_how_many_seeds():
    """Line 359 (P2): transfer at (0, 1) shown away from zero at 95 % (about 3.6 SE) but not
    at 5 SE does not make the statement wrong; the record says how many seeds would decide."""
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, _p2_transfer(0.08, 0.05))})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.high_retention_zero_transfer"]
    assert 3 < abs(v.effect) / v.se < 5
    assert v.verdict == "not decided"
    assert "would decide: about 10 paired seeds (now 5)" in v.evidence, v.evidence
    assert "the paper's claim: transfer at (0, 1) near 0" in v.evidence


def test_a_difference_beyond_five_standard_errors_is_wrong_against_a_boundary_not_a_value():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, _p2_transfer(0.3, 0.05))})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.high_retention_zero_transfer"]
    assert v.verdict == "wrong" and abs(v.effect) / v.se >= 5
    assert v.evidence.startswith("the paper's claim: transfer at (0, 1) near 0, rejected at")
    assert "printed" not in v.evidence


def test_a_statement_that_holds_says_so_at_the_measured_sizes_with_its_effect():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, _linear_like)})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.readout_remapping_forgets_more"]
    assert v.verdict == "holds in the stated limit"
    assert v.evidence.startswith("holds at the measured sizes (the paper's protocol): the "
                                 "paper's claim: retention (0, 1) minus (1, 0) > 0, effect +")
    assert "standard errors from 0, with 5 paired seeds on digits" in v.evidence


def test_the_seeds_that_would_decide_follow_the_standard_error_as_one_over_root_n():
    from tasksim.reports.pmnist_predictions import seeds_to_decide

    assert seeds_to_decide(0.079, 0.022, 5, 5.0) == 10
    assert seeds_to_decide(0.1, 0.01, 4, 5.0) == 4, "already decided with the seeds it has"
    assert seeds_to_decide(0.0, 0.01, 4, 5.0) is None
