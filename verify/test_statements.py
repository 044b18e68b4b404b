"""The registry against the paper's own words: every claim quotes the paper verbatim at its
line, every statement of the paper carries one headline verdict (never two contradictory
ones), every labelled display is claimed or out of scope with a reason, and every statement of
the index (displays, asserting sentences, figure panels; tests/test_statement_index.py checks
how it is built) is claimed, out of scope with a reason, or listed as unclaimed (a coverage
state, not the verdict "not decided").

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


def test_every_statement_is_claimed_out_of_scope_with_a_reason_or_unclaimed(paper, claims):
    """The denominator is the whole index; what no claim answers yet is counted and listed
    ("unclaimed"), never dropped. Every labelled display is claimed or out of scope."""
    covered = coverage(paper, claims, OUT_OF_SCOPE)
    counts = coverage_counts(covered)
    assert counts["claimed"] + counts["out of scope"] + counts["unclaimed"] == counts["found"]
    assert all(c.out_of_scope.strip() for c in covered if c.state == "out of scope")
    assert all(e.reason.strip() for e in OUT_OF_SCOPE)
    labelled = [(c.statement.line, c.statement.label) for c in covered
                if c.statement.kind == "display" and c.statement.label
                and c.state == "unclaimed"]
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


# -- one verdict per statement, everywhere -----------------------------------------------------

import json
import re
from pathlib import Path

from tasksim.derivations.claims import VERDICTS
from tasksim.reports.verdicts import statement_of, statement_verdicts, verdict_phrase

REPORTS = Path(__file__).resolve().parent.parent / "reports"
_WORDS = "|".join(sorted((re.escape(w) for w in VERDICTS), key=len, reverse=True))
_WORD = re.compile(rf"\*\*({_WORDS})\*\*|\(({_WORDS})[),;]|; ({_WORDS});|"
                   rf"whose statement (?:is )?({_WORDS})")
"""A verdict word where the outputs put one: bold (claims table), in parentheses (captions,
summary), between semicolons (Errata), or 'whose statement is ...' (a step's caption)."""
_ID = re.compile(r"`([a-z_]+\.[A-Za-z0-9_.\[\]]+)`")


@pytest.fixture(scope="module")
def records():
    return statement_verdicts(measured={})


def verdict_words_by_statement(text: str, statement_key) -> dict:
    """Every verdict word the text attaches to a claim id: the first verdict word after a
    backticked id and before the next id, keyed by the statement the id answers (None: the
    id answers no statement)."""
    found: dict = {}
    ids = list(_ID.finditer(text))
    for k, m in enumerate(ids):
        end = ids[k + 1].start() if k + 1 < len(ids) else min(len(text), m.end() + 300)
        window = text[m.end():min(end, m.end() + 300)].split("\n")[0]
        word = _WORD.search(window)
        key = statement_key(m.group(1))
        if word and key is not None:
            found.setdefault(key, set()).add(next(g for g in word.groups() if g))
    return found


def _key(records):
    by_id = {r.id: (r.line, r.clause) for r in records}

    def key(claim_id):
        try:
            head = statement_of(claim_id)
        except KeyError:
            return None
        return by_id.get(head)
    return key


def test_every_statement_has_one_verdict_keyed_by_line_and_clause(records):
    keys = [(r.line, r.clause) for r in records]
    assert len(keys) == len(set(keys)), "two verdicts on one (line, clause)"
    assert all(r.verdict in VERDICTS for r in records)


def test_the_text_parser_catches_two_verdicts_on_one_statement(records):
    """The check below can fail: a text naming one statement with two words is caught."""
    text = "`vanilla.transfer` (exact) and later `vanilla.transfer` (wrong)"
    found = verdict_words_by_statement(text, _key(records))
    assert any(len(words) > 1 for words in found.values())


def _check_text(text: str, records, where: str) -> None:
    truth = {(r.line, r.clause): r.verdict for r in records}
    found = verdict_words_by_statement(text, _key(records))
    doubled = {k: w for k, w in found.items() if len(w) > 1}
    assert not doubled, f"{where}: statements with two verdict words: {doubled}"
    wrong = {k: (w, truth[k]) for k, w in found.items() if w != {truth[k]}}
    assert not wrong, f"{where}: verdict words that are not the registry's: {wrong}"


def test_the_report_and_claims_json_give_each_statement_one_verdict(records, tmp_path_factory,
                                                                    report_cache):
    """REPORT.md (summary, claims table, errata, figure captions) and claims.json, as the
    builder writes them now (without figures and measurements, for speed), and the committed
    ones when they were built with today's vocabulary from today's registry (the same
    headline claims: a registry that gained claims since is checked on the builder's output
    until the report is rebuilt)."""
    from tasksim.reports.report import ReportOptions, build_report

    out = tmp_path_factory.mktemp("report13")
    build_report(ReportOptions(out_dir=out, figures=False, measure=False, cache=report_cache))
    texts = [(out / "REPORT.md", out / "claims.json")]
    if (REPORTS / "claims.json").is_file() and '"verdicts"' in (REPORTS / "claims.json"
                                                               ).read_text():
        texts.append((REPORTS / "REPORT.md", REPORTS / "claims.json"))
    from types import SimpleNamespace

    for report, claims in texts:
        document = json.loads(claims.read_text())
        heads = [c for c in document["claims"] if c["headline"]]
        # the committed outputs come from the registry of the commit that built them: they are
        # checked against their own claims.json (one verdict per statement in REPORT.md and
        # claims.json alike); today's statements and words are checked on the fresh build
        own = records if report.parent == out else [SimpleNamespace(
            id=c["id"], line=c["line"], clause=c["clause"], verdict=c["verdict"]) for c in heads]
        _check_text(report.read_text(), own, str(report))
        truth = {r.id: r for r in own}
        assert {(c["line"], c["clause"]) for c in heads} == {(r.line, r.clause) for r in own}
        for c in heads:
            assert c["verdict"] == truth[c["id"]].verdict, (claims, c["id"])
        for c in document["claims"]:
            if not c["headline"] and "evidence_of" in c:
                assert "verdict" not in c, c["id"]


def test_every_caption_reads_its_verdict_from_the_registry(records):
    """Captions name a claim's verdict only through theory.status (verdict_phrase); every id
    they cite gets the registry's word for its statement, and the phrase itself passes the
    text check."""
    figures = Path(__file__).resolve().parent.parent / "reports"
    cited = set()
    for path in figures.glob("figures_*.py"):
        source = path.read_text()
        if path.name == "figures_theory.py":  # the bridge to the registry (theory.status)
            continue
        cited |= set(re.findall(r"theory\.status\('([^']+)'\)", source))
        for word in (w for w in VERDICTS if " " in w or w == "misprint"):
            assert word not in source, f"{path.name} spells the verdict {word!r} itself"
    assert cited, "the captions cite claims"
    text = " ".join(f"`{i}` ({verdict_phrase(i)})" for i in sorted(cited))
    _check_text(text, records, "captions")
