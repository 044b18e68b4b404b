"""The summary's errata rows (tasksim.reports.summary): each cause with its size as claims.json
gives it (grid maximum at its point, the value at parameters 1/2 beside it), the network's
causes apart from those ranked in Delta eps."""
from __future__ import annotations

from dataclasses import replace

from tasksim.reports.summary import cause_line, cause_size, summary_markdown
from tasksim.reports.verdicts import Cause, StatementVerdict, causes


def _statement(cid: str, verdict: str, size: float | None, observable: str,
               point: dict[str, float] | None = None) -> StatementVerdict:
    return StatementVerdict(id=cid, line=12, clause=0, quote="", place="", verdict=verdict,
                            observable=observable, size=size,
                            size_point={"gamma_f": 1.0, "rho_b": 1.0} if point is None else point,
                            size_reason="", cause=cid, confirmation=None, condition="",
                            derived="", note="", typical=None if size is None else 0.375)


def test_a_size_at_the_statements_stated_points_is_not_called_a_grid_maximum():
    """REFEREE33 m2: line 252 is sized at its stated alpha = 3/4 alone, line 193 at its two
    stated corners; neither is a maximum over a grid, and neither ranks errata."""
    from tasksim.derivations.sizes import leading_order_error

    one, two = (leading_order_error(i)[0] for i in ("averages.random.retention_below_one",
                                                    "vanilla.transfer.corners"))
    assert (one.over, one.point) == ("stated point", {"alpha": 0.75})
    assert two.over == "stated points"
    at_one = replace(_statement("a", "holds in the stated limit", one.value, "Delta eps_RT",
                                point=one.point), size_kind=one.over, typical=None)
    # a statement that holds in the stated limit is sized by its leading order's error
    assert at_one.size_phrase() == (f"the leading order's error, {one.value:.3g} (at the "
                                    "stated alpha = 0.75)")
    assert at_one.grid_maximum is None and "grid" not in at_one.size_phrase()
    at_two = replace(at_one, size=two.value, size_point=two.point, size_kind=two.over)
    assert at_two.size_phrase().startswith(
        "the leading order's error, the larger at the stated points, 0.01 (at rho_a = 0")
    gridded = replace(at_one, size_kind="grid")
    assert gridded.size_phrase().startswith("the leading order's error, grid maximum")
    assert gridded.grid_maximum == one.value


def test_an_errata_row_prints_the_grid_maximum_at_its_point_and_the_value_at_one_half():
    cause = causes([_statement("rho1", "wrong", 4.0, "Delta eps_RT")])[0]
    row = cause_line(cause, 1)
    assert row.startswith("1. **rho1**: grid maximum 4 (at gamma_f = 1, rho_b = 1); 0.375 "
                          "with every parameter at 1/2, in Delta eps_RT; lines 12;")
    assert cause.size_phrase in row


def test_a_size_without_a_point_or_a_number_reads_as_such():
    bare = causes([_statement("flat", "wrong", 0.01, "Delta eps_TF", point={})])[0]
    assert cause_size(bare) == "0.01 in Delta eps_TF"
    assert cause_size(Cause("none", "wrong", (), (3,), None, "")) == "no single number"


def test_network_causes_are_listed_apart_from_the_errata_ranked_in_delta_eps():
    rows = causes([_statement("net", "misprint", 0.0, "test error of the network (mnist-5k)",
                              point={}),
                   _statement("typo", "misprint", 0.02, "Delta eps_RT")])
    text = summary_markdown([], rows, part_of=lambda line: "Sec. 1", coverage_line="c")
    misprints = text.split("**Misprints")[1].split("**Network")[0]
    network = text.split("**Network errata and misprints")[1].split("**Holds")[0]
    assert "**typo**" in misprints and "**net**" not in misprints
    assert "**net**" in network and "not ranked with the above" in network


def test_a_shortened_figure_finding_is_cut_at_a_clause_outside_every_bracket():
    """REFEREE3 R27: the Fig. 6E-H bullet was cut inside "(9.6 SE; paired t-test ...)"; a cut
    lands only on a "; " at bracket depth 0, so what is shown has balanced brackets."""
    from tasksim.reports.summary import brief

    finding = ("- Fig. 6E-H: weight regularization: line 366: at (1, 0) -0.063 +- 0.094 "
               "(lambda 100 vs 100); the paper's claim: effect +0.153 +- 0.016 (9.6 SE; "
               "paired t-test with 2 degrees of freedom: p = 0.0036), 3 paired seeds; "
               "layer-wise ahead in 6 of 9")
    cut_inside = finding.index("9.6 SE; ") + len("9.6 SE")
    short = brief(finding, limit=cut_inside + 10)
    shown = short.removesuffix(" (the rest in the caption).")
    assert shown != short and finding.startswith(shown)
    assert shown.endswith("(lambda 100 vs 100)"), shown
    assert shown.count("(") == shown.count(")") and shown.count("[") == shown.count("]")
    whole = brief(finding, limit=len(finding))
    assert whole.count("(") == whole.count(")"), whole
    # a full stop inside a parenthesis ends no sentence
    assert brief("- Fig. 1: a (see Fig. 2. Then b) c. Next.") == \
        "- Fig. 1: a (see Fig. 2. Then b) c (the rest in the caption)."


def test_errata_are_ranked_by_one_measure_the_value_with_every_parameter_at_one_half():
    """REFEREE24 m10, 26 m3: causes are ranked by their statements' value with every parameter
    at 1/2 (a grid maximum may sit at a domain's edge): a cause of grid maximum 4 but 0.375 at
    1/2 ranks below one of 0.6 and 0.55; a deviation measured at one point (0.9) ranks
    nothing, and stays listed with its statement."""
    measured = replace(_statement("point", "wrong", 0.9, "Delta eps_RT"),
                       size_reason="measured at Nx = 3000", typical=None,
                       size_kind="measured")
    gridded = replace(_statement("point", "wrong", 0.6, "Delta eps_RT"), line=13,
                      typical=0.55)
    edge = _statement("edge", "wrong", 4.0, "Delta eps_RT")  # 0.375 at 1/2
    ranked = causes([measured, gridded, edge])
    assert [c.id for c in ranked] == ["point", "edge"]
    assert ranked[0].rank == 0.55 and ranked[0].statements[0] is gridded
    assert ranked[1].rank == 0.375 and ranked[1].size == 4.0
    assert measured in ranked[0].statements
    assert measured.grid_maximum is None and gridded.grid_maximum == 0.6


def test_a_cause_shows_its_largest_grid_maximum_and_the_statement_that_ranks_it():
    """REFEREE27 N3: a cause ranked by one statement's value at 1/2 but with a larger grid
    maximum at another statement reports the larger one (its size), names the line, and says
    which statement ranks it."""
    ranks = replace(_statement("moments", "misprint", 0.00167, "Delta eps_TF"), line=619,
                    typical=0.000333)
    largest = replace(_statement("moments", "misprint", 0.00293, "Delta eps_RT",
                                 point={"rho_a": 0.9, "rho_b": 1.0}), line=1212,
                      typical=0.000145)
    cause = causes([largest, ranks])[0]
    assert cause.statements[0] is ranks and cause.rank == 0.000333 and cause.size == 0.00293
    assert cause.observable == "Delta eps_RT"  # the size's own (REFEREE28 n4)
    assert cause.size_phrase == (
        "ranked by line 619's 0.000333 with every parameter at 1/2, in Delta eps_TF; grid "
        "maximum 0.00293 (at rho_a = 0.9, rho_b = 1; line 1212); 0.000145 with every "
        "parameter at 1/2")
    assert cause_line(cause, 1).startswith(f"1. **moments**: {cause.size_phrase}, in Delta "
                                           "eps_RT; lines 619, 1212;")
    alone = causes([ranks])[0]
    assert alone.size == 0.00167 and "ranked by" not in alone.size_phrase
