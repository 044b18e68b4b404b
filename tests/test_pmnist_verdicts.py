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
