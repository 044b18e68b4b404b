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
    assert "would decide: about 20 paired seeds (now 5)" in v.evidence, v.evidence
    assert "paired t-test with 4 degrees of freedom" in v.evidence
    assert "the paper's claim: transfer at (0, 1) near 0" in v.evidence


def test_a_difference_beyond_five_standard_errors_is_wrong_against_a_boundary_not_a_value():
    """With 10 seeds the t-test at a normal 5 SE's p-value needs t >= 12.4."""
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 10, _p2_transfer(0.5, 0.05))})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.high_retention_zero_transfer"]
    assert v.verdict == "wrong" and abs(v.effect) / v.se >= 12.4
    assert v.evidence.startswith("the paper's claim: transfer at (0, 1) near 0, rejected by a "
                                 "paired t-test at p <= 6e-07")
    assert "printed" not in v.evidence


def test_five_standard_errors_with_three_seeds_is_not_five_sigma():
    """Line 1434's case: 8.5 SE on 3 paired seeds is p = 0.014 under Student's t with 2
    degrees of freedom, far from a normal 5 SE (5.7e-7): not decided, with the seeds needed."""
    from dataclasses import replace

    from tasksim.reports.pmnist_predictions import (REJECT_P, StatementVerdict, decided,
                                                    rejects, t_test_p)

    assert REJECT_P == pytest.approx(5.733e-7, rel=1e-3)
    assert t_test_p(0.0232, 0.00274, 3) == pytest.approx(0.0137, abs=1e-3)
    assert not rejects(0.0232, 0.00274, 3) and rejects(0.0232, 0.00274 / 20, 30)
    v = StatementVerdict(1434, "pmnist.x", "p", "wrong", -0.0232, 0.00274, 3, "mnist-5k",
                         "numbers", claim="a - b > 0")
    out = decided(v)
    assert out.verdict == "not decided"
    assert "would decide: about" in out.evidence and "(now 3)" in out.evidence
    assert decided(replace(v, n=30, se=0.00274 / 20)).verdict == "wrong"


def test_a_statement_that_holds_names_what_was_measured_with_its_effect():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 5, _linear_like)})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.readout_remapping_forgets_more"]
    assert v.verdict == "holds in the stated limit"
    assert v.evidence.startswith("measured on digits, 5 seeds; the paper: full MNIST, 10 "
                                 "seeds: the paper's claim: retention (0, 1) minus (1, 0) > 0, "
                                 "effect +")
    assert "holds" not in v.evidence.split(":")[0], "the verdict word is the only verdict"
    assert "the paper's protocol" not in v.evidence
    assert "5 paired seeds on digits" in v.evidence


def test_an_unresolved_gating_level_is_a_power_statement_not_a_stronger_condition():
    """Lines 363 and 364 under one significance rule: a level the seeds do not resolve at
    95 % is said to be unresolved with n seeds; the statement is never narrowed to the
    resolved levels."""
    from tasksim.reports.pmnist_predictions import Difference, unresolved

    parts = {0.1: Difference(0.588, 0.144, 3), 0.3: Difference(0.758, 0.134, 3)}
    assert unresolved(parts, "alpha") == ("not resolved at alpha = 0.1 with 3 seeds "
                                          "(95 % two-sided t-test)")
    assert unresolved({0.3: parts[0.3]}, "alpha") == ""


def test_line_363_with_one_gating_level_unresolved_holds_and_names_the_level():
    """Random gating gains retention at rho_b = 0 at every level, but at alpha = 0.1 the
    per-seed spread is too wide for 3 seeds: the statement holds (no level against it) and
    the evidence says alpha = 0.1 is not resolved; never 'holds under a stronger
    condition'."""
    def value(p, which, j):
        if p["method"] == "random-gating":
            spread = 0.6 if p["alpha"] == 0.1 else 0.0
            if which == "retention" and p["rho_b"] == 0.0:
                return 0.7 + spread * (j - 1)
            if which == "transfer" and p["rho_b"] == 1.0:
                return -0.5
        return _linear_like(p, which, j)

    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _linear_like),
                         "fig6CD": _grid("fig6CD", 3, value)})
    v = {x.claim_id: x for x in sec7_verdicts(grids)}["pmnist.random_gating_tradeoff"]
    assert v.verdict == "holds in the stated limit" and v.condition == ""
    assert "not resolved at alpha = 0.1 with 3 seeds" in v.evidence, v.evidence


def test_the_seeds_that_would_decide_follow_the_standard_error_as_one_over_root_n():
    from tasksim.reports.pmnist_predictions import seeds_to_decide

    # the t-test's bar falls as the seeds grow: at 21 seeds t = 7.36 >= 7.35 (20 df)
    assert seeds_to_decide(0.079, 0.022, 5) == 21
    assert seeds_to_decide(0.3, 0.005, 5) == 5, "already decided with the seeds it has"
    assert seeds_to_decide(0.0, 0.01, 4) is None


# --- Fig. 9C, D: retention after 100 epochs of task 2 (P4's second half, line 1361) -----------

def _long_grid(seeds: int, after10, after100, done_seeds: int | None = None) -> object:
    """A stored fig9CD (digits protocol) whose task-1 curve drops to 0.1 at the switch and
    whose retention after 10 and 100 epochs of task 2 is ``after10(point)``,
    ``after100(point)`` (plus a little seed noise), read off the curves as the report does;
    only the first ``done_seeds`` seeds finished."""
    import json

    spec = paper_grids("digits", seeds=seeds)["fig9CD"]
    points = resolved_points(spec)
    ds = empty_grid(spec, points)
    epochs = json.loads(ds.attrs["protocol"])["epochs"]
    rng = np.random.default_rng(1)
    for i, p in enumerate(points):
        for j in range(seeds if done_seeds is None else done_seeds):
            r10, r100 = after10(p) + 0.01 * rng.standard_normal(), after100(p)
            r100 += 0.01 * rng.standard_normal()
            curve = np.full(ds.sizes["epoch"], 1.0 - r10)
            curve[0], curve[1:epochs + 1], curve[epochs + 100] = 1.0, 0.1, 1.0 - r100
            ds["curves"].values[i, j, :, 0] = curve
            ds["retention"].values[i, j] = 1.0 - curve[epochs + 10]
            ds["transfer"].values[i, j] = 0.0
            ds["done"].values[i, j] = 1
    return ds


def _dip(p, which, j):
    """Retention at rho_b = 1 dips in the middle of rho_a (1 at the ends, 0.4 at 0.5)."""
    if which == "transfer":
        return 0.0
    return 1.0 - 2.4 * p["rho_a"] * (1 - p["rho_a"]) if p["rho_b"] == 1.0 else 0.2


def _flat(p):
    return 0.9 if p["rho_b"] == 1.0 else 0.2


def _dipped(p):
    return _dip(p, "retention", 0)


def _long_verdicts(fig9cd):
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _dip), "fig9CD": fig9cd})
    return {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}


def test_a_dip_that_vanishes_after_100_epochs_confirms_p4_from_fig9cd():
    v = _long_verdicts(_long_grid(3, _dipped, _flat))
    p4 = v["pmnist.retention_non_monotonic_then_monotonic"]
    assert p4.verdict == "holds in the stated limit"
    assert "shows dip" in p4.evidence
    # flat after 100 epochs: what is left of the dip is named with its seeds, never "no dip"
    assert "after 100 epochs (3 seeds) a dip of" in p4.evidence and "not resolved with 3 seeds" in \
        p4.evidence
    # the effect is the dip after 10 epochs: an end minus the lowest interior point, with its SE
    assert p4.effect == pytest.approx(0.6, abs=0.03) and 0 < p4.se < 0.02 and p4.n == 3


def test_a_dip_still_there_after_100_epochs_makes_p4_wrong():
    def shallower(p):  # half the dip of _dipped: 0.288 at rho_a = 0.4 and 0.6
        return 1.0 - 0.5 * (1.0 - _dipped(p)) if p["rho_b"] == 1.0 else 0.2

    # 10 seeds: `wrong` needs the t-test at a normal 5 SE's p (t >= 12.4 with 9 df); with 3
    # seeds (t >= 1321) the same dip is not decided
    p4 = _long_verdicts(_long_grid(10, _dipped, shallower))[
        "pmnist.retention_non_monotonic_then_monotonic"]
    assert p4.verdict == "wrong"
    assert "after 100 epochs (10 seeds) dip (end minus lowest interior point +0.2" in p4.evidence
    # the effect is what decides: the dip that is still there after 100 epochs, from fig9CD
    assert p4.effect == pytest.approx(0.288, abs=0.03) and p4.n == 10 and 0 < p4.se < 0.02
    three = _long_verdicts(_long_grid(3, _dipped, shallower))[
        "pmnist.retention_non_monotonic_then_monotonic"]
    assert three.verdict == "not decided" and "(now 3)" in three.evidence


def test_line_1361_compares_the_corners_after_10_and_after_100_epochs_of_fig9cd():
    def corners(gap10, gap100, seeds=3):
        def value(after):
            return lambda p: {(0.0, 1.0): 0.8, (1.0, 0.0): 0.8 - after}.get(
                (p["rho_a"], p["rho_b"]), 0.5)
        return _long_verdicts(_long_grid(seeds, value(gap10), value(gap100)))[
            "pmnist.asymmetry_short_and_long_training"]

    held = corners(0.5, 0.3)
    assert held.verdict == "holds in the stated limit" and held.line == 1361
    assert held.effect == pytest.approx(0.3, abs=0.03) and held.n == 3 and held.se > 0
    assert "+0.5" in held.evidence and "after 10" in held.evidence
    # (1, 0) retains better after long training: wrong once the t-test can reject (10 seeds)
    assert corners(0.5, -0.3, seeds=10).verdict == "wrong"
    assert corners(0.5, -0.3).verdict == "not decided"


def test_fig9cd_with_one_finished_seed_decides_neither_p4_nor_line_1361():
    v = _long_verdicts(_long_grid(3, _dipped, _flat, done_seeds=1))
    p4 = v["pmnist.retention_non_monotonic_then_monotonic"]
    assert p4.verdict == "not decided" and "fewer than 2 finished seeds" in p4.evidence
    assert v["pmnist.asymmetry_short_and_long_training"].verdict == "not decided"


def test_without_fig9cd_p4_and_line_1361_say_which_command_decides_them():
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _dip)})
    v = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}
    assert v["pmnist.retention_non_monotonic_then_monotonic"].verdict == "not decided"
    assert "fig9CD not stored" in v["pmnist.retention_non_monotonic_then_monotonic"].evidence
    assert "tasksim pmnist-grid fig9CD" in v["pmnist.asymmetry_short_and_long_training"].evidence


# --- the secondary row: the digits runs where their verdict differs -----------------------------

def _store(folder, *datasets, dataset: str | None = None):
    """Write grids into ``folder`` as the command does (``dataset`` relabels the protocol)."""
    import json

    from tasksim.reports.pmnist_results import grid_path

    folder.mkdir(parents=True, exist_ok=True)
    for ds in datasets:
        if dataset is not None:
            ds.attrs["protocol"] = json.dumps({**json.loads(ds.attrs["protocol"]),
                                               "dataset": dataset})
        ds.to_netcdf(grid_path(folder, ds.attrs["figure"]), engine="scipy")
    return folder


def test_the_digits_verdict_is_a_secondary_row_only_where_it_differs(tmp_path):
    from tasksim.reports.pmnist_predictions import sec7_verdicts_with_secondary

    main = _store(tmp_path / "main", _grid("fig6AB", 5, lambda p, w, j: 0.3), dataset="mnist-5k")
    digits = _store(tmp_path / "digits", _grid("fig6AB", 5, _linear_like))
    v = {x.claim_id: x for x in sec7_verdicts_with_secondary(main, digits)}
    p1 = v["pmnist.below_zero_at_high_feature_low_readout"]
    # the verdict is the main data set's, naming it; the digits one rides along
    assert (p1.verdict, p1.dataset) == ("wrong", "mnist-5k")
    assert p1.secondary.dataset == "digits"
    record = p1.as_record()["secondary"]
    assert record["dataset"] == "digits" and "verdict" not in record
    # the digits row is evidence only: effect, SE and seeds, no verdict word
    for word in ("holds", "wrong", "not decided", "differs", "stronger"):
        assert word not in record["evidence"] and word not in p1.secondary.as_evidence()
    assert "5 paired seeds on digits" in record["evidence"]
    # where both agree, or the digits grid is missing, there is no secondary row
    assert v["pmnist.random_gating_tradeoff"].secondary is None
    same = {x.claim_id: x for x in sec7_verdicts_with_secondary(main, main)}
    assert all(x.secondary is None for x in same.values())
    alone = sec7_verdicts_with_secondary(main, tmp_path / "nothing")
    assert all(x.secondary is None for x in alone)


def test_the_registry_lists_the_secondary_row_as_a_second_evidence_entry():
    from dataclasses import replace

    from tasksim.reports.pmnist_predictions import StatementVerdict
    from tasksim.reports.verdicts import StatementVerdict as Record, _with_network_verdict

    main = StatementVerdict(358, "pmnist.x", "p", "wrong", 0.3, 0.01, 5, "mnist-5k", "at (1, 0)")
    net = replace(main, secondary=replace(main, verdict="holds in the stated limit",
                                          effect=-0.5, dataset="digits", evidence="on digits",
                                          claim="a < 0"))
    blank = Record(id="pmnist.x", line=358, clause=1, quote="", place="", verdict="not decided",
                   observable="", size=None, size_point={}, size_reason="", cause=None,
                   confirmation=None, condition="", derived="", note="")
    rows = _with_network_verdict(blank, net).evidence
    assert [r["dataset"] for r in rows] == ["mnist-5k", "digits"]
    assert "verdict" not in rows[1] and rows[1]["effect"] == -0.5
    assert rows[1]["finding"].startswith("a < 0: effect -0.500 +- 0.010")
    assert "holds" not in rows[1]["finding"] and "differs" not in rows[1]["finding"]
    assert len(_with_network_verdict(blank, main).evidence) == 1


def test_an_unresolved_dip_after_10_epochs_is_named_a_dip_not_resolved_never_no_dip():
    """REFEREE2 N6: +0.021 +- 0.008 with 5 seeds is a dip the seeds do not resolve (p ~ 0.07):
    the evidence says so and the verdict stays not decided."""
    def shallow(p, which, j):
        if which == "transfer":
            return 0.0
        return 1.0 - 0.06 * p["rho_a"] * (1 - p["rho_a"]) if p["rho_b"] == 1.0 else 0.2

    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, shallow), "fig9CD": _long_grid(
        3, _dipped, _flat)})
    p4 = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}[
        "pmnist.retention_non_monotonic_then_monotonic"]
    assert p4.verdict == "not decided"
    assert "(3 seeds) shows a dip of +0.0" in p4.evidence and "not resolved with 3 seeds" in p4.evidence
    assert "shows no dip" not in p4.evidence


def _regularized_grid(lw, eu, dg):
    """fig6EH whose retention is lw, eu, dg(pair, lam) for the three metrics."""
    table = {"fisher-layerwise": lw, "euclidean": eu, "fisher-diag": dg}

    def value(p, which, j):
        f = table.get(p["method"])
        return 0.0 if f is None or which == "transfer" else f((p["rho_a"], p["rho_b"]),
                                                              p.get("lam1"))
    return _grid("fig6EH", 3, value)


def test_line_366_asks_whether_the_diagonal_is_closer_to_layerwise_than_to_euclidean():
    """REFEREE2 N5: layer-wise 1, Euclidean 0, diagonal 0.4 passes the old test
    (|lw - eu| > |dg - lw|) although the diagonal is closer to the Euclidean retention."""
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _linear_like), "fig6EH": _regularized_grid(
        lambda pair, lam: 1.0, lambda pair, lam: 0.0, lambda pair, lam: 0.4)})
    v = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}
    closer = v["pmnist.diagonal_close_to_layerwise"]
    assert closer.effect == pytest.approx(-0.2, abs=0.02)
    assert closer.verdict != "holds in the stated limit"
    assert "|diagonal - Euclidean| minus |diagonal - layer-wise|" in closer.claim


def test_line_366_second_clause_compares_diagonal_and_layerwise_where_both_retain_poorly():
    poor = lambda pair, lam: -0.3 if pair == (1.0, 0.0) else 0.6
    grids = StoredGrids({"fig6AB": _grid("fig6AB", 3, _linear_like), "fig6EH": _regularized_grid(
        poor, lambda pair, lam: 0.1, lambda pair, lam: poor(pair, lam) + 0.1)})
    v = {k[1]: x for k, x in _by_line(sec7_verdicts(grids)).items()}
    second = v["pmnist.diagonal_better_when_both_poor"]
    assert second.line == 366 and second.effect == pytest.approx(0.1, abs=0.02)
    assert "(1, 0) lambda 0.01" in second.evidence and "(0.5, 0.5)" not in second.evidence


def test_a_positive_dip_shown_smaller_than_the_margin_is_not_called_no_dip():
    """REFEREE2 N6 again: the stored mnist-5k gap is +0.021 +- 0.008 (5 seeds), shown within
    +-0.05; it is "no dip larger than 0.05", with its number, never a bare "no dip"."""
    from tasksim.reports.pmnist_predictions import Difference, dip_phrase, retention_dip

    dip = np.array([0.88, 0.885, 0.88, 0.895, 0.89])
    r = np.array([dip + [0.03, -0.01, 0.02, -0.005, 0.015], dip,
                  dip + [0.025, -0.005, 0.02, -0.01, 0.02]])
    word, gap = retention_dip([0.0, 0.5, 1.0], r)
    assert word == "no dip" and gap.mean > 0
    text = dip_phrase(word, gap)
    assert text.startswith("no dip larger than 0.05 (end minus lowest interior point +0.0")
    assert dip_phrase("no dip", Difference(-0.04, 0.002, 3)).startswith("no dip (end minus")
