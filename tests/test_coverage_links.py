"""Coverage (issue 13, item 6): every statement the referee named gets one verdict."""
from tasksim.derivations.claims import evaluate, statement_verdict
from tasksim.derivations.registry import all_claims
from tasksim.reports.statement_index import index_counts, statement_index


def _verdict(claim_id):
    claims = {c.id: c for c in all_claims()}
    c = claims[claim_id]
    intended = evaluate(claims[c.misprint_of]) if c.misprint_of else None
    return statement_verdict(evaluate(c), intended)


def test_no_statement_of_the_paper_is_left_unclaimed():
    index = statement_index()
    assert index_counts(index)["unclaimed"] == 0, \
        [i.key for i in index if i.state == "unclaimed"]


def test_named_statements_get_their_verdicts():
    index = {i.key: i for i in statement_index()}
    # line 903's "preserving its learning proficiency" is about the task just learned, not
    # line 271's retention (REFEREE39 1e); line 902 reads both halves of line 271
    assert index["L903.1"].headline_ids[0] == "soft_threshold.learning_preserved"
    assert set(index["L902.1"].headline_ids) >= {"soft_threshold.alpha_independence",
                                                  "soft_threshold.transfer_alpha_independence"}
    assert _verdict("soft_threshold.alpha_independence") == "wrong"
    assert index["L888.1"].headline_ids[0] == "soft_threshold.weights"
    assert index["L889.1"].headline_ids[0] == "soft_threshold.weights"
    assert index["L1320.1"].headline_ids[0] == "figures.average_panels"
    assert _verdict("figures.average_panels") == "misprint"
    assert _verdict("vanilla.transfer.negative_similarity") == \
        "holds under a stronger condition"
    assert index["L1330.1"].headline_ids[0] == "pmnist.task2_learning_curve"


def test_the_new_checks_can_fail():
    """The derived-vs-printed comparisons reject a wrong print."""
    import sympy as sp

    from tasksim.derivations import gd_fixed_point as gd
    from tasksim.derivations import gradients
    from tasksim.derivations.symbols import lam

    no_penalty = gradients._PRINTED_1075 - lam * (gradients._W - gradients._W0) \
        * gradients._APREV * gradients._APREV.T
    assert gradients._same(gradients.fisher_gradient(), gradients._PRINTED_1075)
    assert not gradients._same(gradients.fisher_gradient(), no_penalty)
    assert not gradients._same_up_to_positive_factor(gradients.flow_gradient(),
                                                     -gradients._PRINTED_176)
    # line 637's reduced row needs (D_1 A_1)^+ D_1 A_1 = I: without full rank it differs
    general = gd.residuals()["eps_1[W_2]"].to_sympy()
    assert not gd._same_norm(general, gd._printed_residuals["eps_1[W_2], second row"].to_sympy())
    assert gd._same_norm(general, -gd._printed_residuals["eps_1[W_2]"].to_sympy())


def test_the_average_panels_are_read_from_the_captions():
    from tasksim.derivations.figure_references import average_panels

    source = ("\\begin{figure}\\caption{\\textbf{(A)} Schematic.}\\end{figure}"
              "\\begin{figure}\\caption{\\textbf{(C)} Retention. \\textbf{(D)} Average "
              "transfer.}\\end{figure}\\begin{figure}\\caption{(\\textbf{C,D}) Average x}"
              "\\end{figure}")
    assert sorted(map(str, average_panels(source))) == ["2D", "3C", "3D"]


def test_a_card_without_its_own_claim_points_to_the_card_it_restates_or_shows():
    """REFEREE3 R5, R15: a figure panel or a restatement links to the card that judges its
    statement and never repeats that card's verdict (a filter on "wrong" finds the wrong
    statements, not every panel that plots one)."""
    from tasksim.reports.html.cards import StatementRow, build_cards

    records = [{"id": "a", "line": 10, "headline": True, "printed": "x = 1", "status": "open",
                "verdict": "wrong", "clause": 0},
               {"id": "b", "line": 12, "headline": True, "printed": "y = 1", "status": "open",
                "verdict": "exact", "clause": 0}]
    rows = [StatementRow(10, 10, "sentence", "x = 1 holds.", "Sec. 1", "Sec. 1",
                         claim_ids=("a",)),
            StatementRow(12, 12, "sentence", "y = 1 holds.", "Sec. 1", "Sec. 1",
                         claim_ids=("b",)),
            StatementRow(20, 20, "figure panel", "(A) x against rho.", "Fig. 1", "Sec. 1",
                         claim_ids=("a", "b"), label="Fig. 1A"),
            StatementRow(30, 30, "sentence", "Something else.", "Sec. 2", "Sec. 2")]
    cards = build_cards(rows, records, {}, [], lambda s: s, lambda line: "Sec. 1",
                        lambda line: "Sec. 1")
    panel = next(c for c in cards if c.line == 20)
    assert panel.verdicts == ["see another line"] and panel.verdict == "see another line"
    assert panel.pointer == ("line-10", 10), "the first claim it shows"
    assert [(c, n) for c, _, n, _ in panel.shows] == [("a", 10), ("b", 12)]
    assert panel.place == "Sec. 1, panel A", "a panel's card names its panel (REFEREE39 5c)"
    assert next(c for c in cards if c.line == 30).verdicts == ["unclaimed"]


def test_line_1320_leaves_out_the_panel_line_266_calls_the_average_transfer():
    """REFEREE3 R16: line 266 puts the average transfer in Fig. 3A, so line 1320's "3B-D"
    misses it; the derived set reads that from the text, not from a typed list."""
    from tasksim.derivations.figure_references import text_average_panels

    assert "3A" in map(str, text_average_panels(
        r"improves the average transfer performance compared to the random gating (solid vs "
        r"dashed lines in Fig. 3A) with only"))
    assert not text_average_panels("the transfer performance (Fig. 3A)")
    from tasksim.derivations.claims import evaluate
    from tasksim.derivations.figure_references import CLAIMS
    derived = evaluate(CLAIMS[0]).derived
    assert {"2D", "3A", "3B"} <= set(map(str, derived)) and "2C" not in map(str, derived)
