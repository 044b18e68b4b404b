"""The registry against the paper's own words: every claim quotes the paper verbatim at its
line, every statement of the paper carries one headline verdict (never two contradictory
ones), every labelled display is claimed or out of scope with a reason, and every statement of
the index (displays, asserting sentences, figure panels; tests/test_statement_index.py checks
how it is built) is claimed, out of scope with a reason, or listed as not decided.

The paper is ``src/tasksim/paper/paper.tex`` in the repository, so these checks run everywhere."""
from __future__ import annotations

import pytest

from tasksim.derivations.registry import all_claims
from tasksim.derivations.scope import OUT_OF_SCOPE
from tasksim.reports.paper import load_paper, normalize
from tasksim.reports.statements import anchors, coverage, coverage_counts, problems

@pytest.fixture(scope="module")
def paper():
    return load_paper()


@pytest.fixture(scope="module")
def claims():
    return all_claims()


def _only(found: list[str], marker: str) -> list[str]:
    return [p for p in found if marker in p]


def test_the_paper_is_in_the_repository(paper):
    assert paper.path is not None and paper.path.is_file()
    assert len(paper.lines) > 1000 and "eq_epsilon_vanilla" in paper.labels


def test_every_claim_quotes_the_paper_verbatim_at_its_line(paper, claims):
    found = problems(paper, claims, OUT_OF_SCOPE)
    assert not _only(found, "no line"), _only(found, "no line")
    assert not _only(found, "verbatim"), "\n".join(_only(found, "verbatim"))


def test_no_statement_carries_two_headline_verdicts(paper, claims):
    found = _only(problems(paper, claims, OUT_OF_SCOPE), "headline")
    assert not found, "\n".join(found)


def test_every_claim_cites_the_section_its_line_stands_in(paper, claims):
    found = _only(problems(paper, claims, OUT_OF_SCOPE), "'where' cites")
    assert not found, "\n".join(found)


def test_a_statement_answered_twice_on_the_same_words_is_caught(paper, claims):
    """The check itself can fail: two headline claims on one quote are reported."""
    from dataclasses import replace

    base = next(c for c in claims if c.id == "vanilla.transfer")
    twin = replace(base, id="demo.twin")
    found = problems(paper, [base, twin], ())
    assert any("2 headline claims" in p for p in found)
    moved = replace(base, line=base.line + 1)
    assert any("not verbatim" in p for p in problems(paper, [moved], ()))


def test_every_statement_is_claimed_out_of_scope_with_a_reason_or_not_decided(paper, claims):
    """The denominator is the whole index; what no claim answers yet is counted and listed
    ("not decided"), never dropped. Every labelled display is claimed or out of scope."""
    covered = coverage(paper, claims, OUT_OF_SCOPE)
    counts = coverage_counts(covered)
    assert counts["claimed"] + counts["out of scope"] + counts["not decided"] == counts["found"]
    assert all(c.out_of_scope.strip() for c in covered if c.state == "out of scope")
    assert all(e.reason.strip() for e in OUT_OF_SCOPE)
    labelled = [(c.statement.line, c.statement.label) for c in covered
                if c.statement.kind == "display" and c.statement.label
                and c.state == "not decided"]
    assert not labelled, labelled


def test_every_claimed_statement_has_a_headline_verdict(paper, claims):
    covered = coverage(paper, claims, OUT_OF_SCOPE)
    without = [(c.statement.line, c.claimed_by) for c in covered
               if c.state == "claimed" and not c.headlines]
    assert not without, without


def test_the_statements_the_issue_names_are_covered(paper, claims):
    """eq_gd_fp_vanilla, the appendices' weight expressions, the validity condition
    alpha >> Ns/Nx, 'significantly below one', the diagonal-Fisher robustness, the
    discontinuities at rho_a = 1 and lambda -> 0, and the Sec. 7 statements."""
    by_id = {c.id: c for c in claims}
    for claim_id in ("vanilla.gd_fixed_point", "gating.gd_fixed_point", "gating.gd_weights",
                     "gating.validity", "averages.random.retention_below_one",
                     "fisher_diagonal.attenuates_robustness",
                     "fisher.discontinuity_at_rho_a_one", "fisher.discontinuity_at_lambda_zero",
                     "pmnist.below_zero_at_high_feature_low_readout"):
        assert by_id[claim_id].headline, claim_id
    labels = {s.label for s in paper.equations()}
    covered = {c.statement.label for c in coverage(paper, claims, OUT_OF_SCOPE)
               if c.statement.kind == "display" and c.state == "claimed"}
    assert {"eq_gd_fp_vanilla", "eq_W_fp_gated_gd", "eq_W1_W2_expression"} <= covered
    assert labels - covered == {"eq_generative_model", "eq_def_delta_epsilon_TF_RT",
                                "eq_def_rho_g"}, "only the three definitions are out of scope"


def test_restatements_point_at_other_statements_than_their_own(claims):
    for c in claims:
        for line, quote in c.restates:
            assert (line, normalize(quote)) != (c.line, normalize(c.printed_latex)), c.id


def test_headline_anchors_are_unique_per_claim_and_line(claims):
    seen = set()
    for a in anchors(claims):
        key = (a.claim_id, a.line, normalize(a.quote))
        assert key not in seen, key
        seen.add(key)
