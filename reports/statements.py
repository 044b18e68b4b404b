"""The registry against the paper: where each claim stands, which statements it answers, and
what is left.

Joins :mod:`tasksim.reports.paper` (the statements found in the source) with the claim
registry (:mod:`tasksim.derivations.registry`) and the out-of-scope list
(:mod:`tasksim.derivations.scope`):

- :func:`anchors`: every place a claim answers, its own (line, verbatim quote) and its
  restatements; a headline claim's anchors carry its verdict;
- :func:`coverage`: each statement of the paper with the claims that answer it (those whose
  anchor lies in its lines and whose quote lies in its text), or its out-of-scope reason;
- :func:`problems`: everything that breaks the registry's promises: a quote that is not in the
  paper at its line, a (line, quote) with no or several headline claims, two headline verdicts
  on overlapping words of one statement, a section cited in ``where`` that is not the one the
  line stands in.

Pure functions of the parsed paper and the claims; the tests and the report call them.

Examples
--------
>>> from tasksim.derivations.claims import Claim
>>> from tasksim.reports.paper import Paper
>>> paper = Paper.from_text("\\\\begin{document}\\n\\\\section{A}\\nWe find $x = 1$.\\n")
>>> c = Claim("demo", "Sec. 1", None, "$x = 1$", None, note="demo", line=3, headline=True)
>>> [(s.statement.line, s.claimed_by) for s in coverage(paper, [c], ())]
[(3, ('demo',))]
>>> problems(paper, [c], ())
[]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from tasksim.derivations.claims import Claim
from tasksim.derivations.scope import OutOfScope

from .statement_index import (Anchor, IndexedStatement, anchors, answers, claim_line,
                              statement_index)
from .paper import STATEMENT_KINDS, Paper, Statement, normalize

__all__ = ["Anchor", "anchors", "CoveredStatement", "coverage", "coverage_counts",
           "problems", "claim_line", "cited_sections", "statement_index", "IndexedStatement"]


@dataclass(frozen=True)
class CoveredStatement:
    """A statement of the paper and what answers it: the claims (headline first), and an
    out-of-scope reason when none does (the legacy view of :class:`IndexedStatement`)."""

    statement: Statement
    claimed_by: tuple[str, ...]
    headlines: tuple[str, ...] = ()
    out_of_scope: str = ""

    @property
    def state(self) -> str:
        """"claimed", "out of scope" or "unclaimed" (no claim yet: a coverage state, not the
        verdict "not decided")."""
        if self.claimed_by:
            return "claimed"
        return "out of scope" if self.out_of_scope else "unclaimed"


def coverage(paper: Paper, claims: Sequence[Claim], out_of_scope: Sequence[OutOfScope]
             ) -> list[CoveredStatement]:
    """Each statement of the index (:func:`statement_index`) with what answers it."""
    return [CoveredStatement(i.statement, i.claim_ids, i.headline_ids,
                             "" if i.in_scope else i.scope_reason)
            for i in statement_index(paper, claims, out_of_scope)]


def coverage_counts(covered: Sequence[CoveredStatement]) -> dict[str, int]:
    """Statements found, claimed, out of scope, unclaimed; displays (and labelled ones among
    them), sentences and figure panels.

    >>> coverage_counts([])["found"]
    0
    """
    counts = {"found": len(covered), "claimed": 0, "out of scope": 0, "unclaimed": 0}
    for c in covered:
        counts[c.state] += 1
    for kind in STATEMENT_KINDS:
        counts[kind] = sum(c.statement.kind == kind for c in covered)
    counts["labelled displays"] = sum(c.statement.kind == "display" and bool(c.statement.label)
                                      for c in covered)
    counts["listed"] = sum(c.statement.cue == "listed" for c in covered)
    return counts


_SECTION_TOKEN = re.compile(r"\b(Sec\.|Appendix|Fig\.)\s*([A-Z]?[0-9]*(?:\.[0-9]+)*[A-Z]?)\b")


def cited_sections(claim: Claim, paper: Paper) -> set[str]:
    """The places ``where`` names: "Sec. 5.1", "Appendix C.2", "Fig. 7" (explicitly or through
    a cited label such as subsec_appendix_FIM)."""
    places = set()
    for kind, number in _SECTION_TOKEN.findall(claim.where):
        if not number:
            continue
        number = number.rstrip("ABCDEFGH") if kind == "Fig." else number
        places.add(f"{kind} {number}" if kind != "Appendix" else f"Appendix {number}")
    for token in re.findall(r"\b((?:subsec|sec)_[A-Za-z0-9_]*[A-Za-z0-9])", claim.where):
        if token in paper.labels:
            places.add(paper.section_of(paper.labels[token]).name)
    for token in re.findall(r"\b(fig_[A-Za-z0-9_]*)", claim.where):
        if token in paper.labels and paper.figure_of(paper.labels[token]):
            places.add(f"Fig. {paper.figure_of(paper.labels[token])}")
    return places


def _within(place: str, cited: str) -> bool:
    """"Appendix C.2.1" is within "Appendix C.2"; "Sec. 5.1" within "Sec. 5"."""
    return place == cited or place.startswith(cited + ".")


def problems(paper: Paper, claims: Sequence[Claim], out_of_scope: Sequence[OutOfScope]
             ) -> list[str]:
    """Every broken promise of the registry against the paper, one line each (empty: none).

    - every claim has a line, and its quote (``printed_latex``) starts on that line and is
      verbatim in the source (whitespace aside); so are its restatements and every
      out-of-scope entry;
    - the claims that share a (line, quote) have exactly one headline among them;
    - on one line, two headline anchors of different claims do not quote overlapping words
      (one statement, one verdict);
    - the sections ``where`` names include the one the line stands in.
    """
    found: list[str] = []

    def check_quote(what: str, line: int, quote: str) -> None:
        if not 1 <= line <= len(paper.lines):
            found.append(f"{what}: line {line} is not in the paper")
        elif not (paper.contains(quote, line, before=0)
                  and normalize(quote)[:12] in normalize(paper.line(line))):
            found.append(f"{what}: {quote[:60]!r} is not verbatim at line {line}")

    for c in claims:
        if c.line is None:
            found.append(f"{c.id}: no line")
            continue
        check_quote(c.id, c.line, c.printed_latex)
        for line, quote in c.restates:
            check_quote(f"{c.id} (restates)", line, quote)
        places = cited_sections(c, paper)
        here = {paper.section_of(c.line).name}
        if paper.figure_of(c.line):
            here.add(f"Fig. {paper.figure_of(c.line)}")
        if places and not any(_within(h, p) for h in here for p in places):
            found.append(f"{c.id}: 'where' cites {sorted(places)} but line {c.line} is in "
                         f"{sorted(here)}")
    for e in out_of_scope:
        check_quote(f"out of scope at {e.line}", e.line, e.quote)

    groups: dict[tuple[int, str], list[Claim]] = {}
    for c in claims:
        if c.line is not None:
            groups.setdefault((c.line, normalize(c.printed_latex)), []).append(c)
    for (line, _), members in groups.items():
        heads = [m.id for m in members if m.headline]
        if all(m.finding for m in members):
            continue  # findings beyond the paper: no verdict on the words they stand at
        if len(heads) != 1:
            found.append(f"line {line}: {len(heads)} headline claims among "
                         f"{[m.id for m in members]} (one statement, one headline)")

    by_line: dict[int, list[Anchor]] = {}
    for a in anchors(claims):
        if a.headline:
            by_line.setdefault(a.line, []).append(a)
    for line, heads in by_line.items():
        for i, a in enumerate(heads):
            for b in heads[i + 1:]:
                if a.claim_id == b.claim_id:
                    continue
                qa, qb = normalize(a.quote), normalize(b.quote)
                if qa in qb or qb in qa:
                    found.append(f"line {line}: headline claims {a.claim_id} and {b.claim_id} "
                                 "give verdicts on the same words")
    return found
