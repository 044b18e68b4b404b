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
    assert index_counts(index)["not decided"] == 0, \
        [i.key for i in index if i.state == "not decided"]


def test_named_statements_get_their_verdicts():
    index = {i.key: i for i in statement_index()}
    assert index["L903.1"].headline_ids[0] == "soft_threshold.alpha_independence"
    assert _verdict("soft_threshold.alpha_independence") == "wrong"
    assert index["L888.1"].headline_ids[0] == "soft_threshold.weights_with_diagonal"
    assert index["L889.1"].headline_ids[0] == "soft_threshold.weights_with_diagonal"
    assert index["L1320.1"].headline_ids[0] == "figures.average_panels"
    assert _verdict("figures.average_panels") == "misprint"
    assert _verdict("vanilla.transfer.negative_similarity") == \
        "holds under a stronger condition"
    assert index["L1330.1"].headline_ids[0] == "pmnist.task2_learning_curve"
