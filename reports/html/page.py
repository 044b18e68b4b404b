"""``index.html``: the report as one self-contained page (Jinja2 templates in ``templates/``).

:func:`render_page` turns the cards and the summary (:mod:`tasksim.reports.html.cards`) into
HTML: the summary first, then one card per statement in the paper's order, anchored by line
(``#line-1265``), the long evidence folded in ``<details>``, filters by part of the paper and
by verdict (a few lines of inline script), every formula already MathML (no network, no
script needed to read it). Figures are linked beside the page (``figures/<name>.png``, their
data in ``figures/<name>.csv.gz``).

:func:`statement_rows` reads the statement index (:mod:`tasksim.reports.statements`) into
:class:`~tasksim.reports.html.cards.StatementRow`; :func:`build_page` joins everything.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import jinja2

from .cards import (NOT_VERDICTS, Card, ClaimExtras, FigureView, StatementRow, Summary,
                    build_cards, build_summary, card_counts, claim_linker)
from ..paper_labels import label_namer, reference_resolver
from .mathml import markdown_blocks_html, markdown_html, words_html

__all__ = ["render_page", "statement_rows", "build_page", "TEMPLATES"]

TEMPLATES = Path(__file__).with_name("templates")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(("html", "j2")),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["markdown"] = lambda text: jinja2.utils.markupsafe.Markup(markdown_html(text))
    env.filters["markdown_blocks"] = lambda text: jinja2.utils.markupsafe.Markup(
        markdown_blocks_html(text))
    # the toolkit's own words (sizes, conditions): math as symbols, `code spans` as code
    env.filters["words"] = lambda text: jinja2.utils.markupsafe.Markup(words_html(str(text)))
    return env


def statement_rows(paper: Any, covered: Sequence[Any]) -> list[StatementRow]:
    """The statement index as rows: from :func:`tasksim.reports.statements.coverage`'s
    ``CoveredStatement`` (``statement``, ``claimed_by``, ``out_of_scope``) or from records with
    ``line``, ``clause``, ``kind``, ``quote``, ``in_scope``, ``claim_ids``."""
    rows = []
    for c in covered:
        if hasattr(c, "statement"):
            s = c.statement
            line, end, kind, quote = s.line, s.end, s.kind, s.text
            clause, reason, ids = 1, c.out_of_scope if not c.claimed_by else "", c.claimed_by
            label = s.label
        else:
            get = c.get if isinstance(c, Mapping) else (lambda k, d=None: getattr(c, k, d))
            line = int(get("line"))
            end = int(get("end", line) or line)
            kind, quote = str(get("kind", "sentence")), str(get("quote", ""))
            clause = int(get("clause", 1) or 1)
            in_scope = get("in_scope", True)
            reason = "" if in_scope is True else (str(in_scope) if in_scope else
                                                  str(get("reason", "out of scope")))
            ids = tuple(get("claim_ids", ()) or ())
            label = str(get("label", "") or "")
        rows.append(StatementRow(line, end, kind, quote, paper.place(line),
                                 _part(paper, line), clause, reason, tuple(ids), label))
    return rows


def _part(paper: Any, line: int) -> str:
    return paper.section_of(line).top


def render_page(cards: Sequence[Card], summary: Summary, figures: Sequence[FigureView],
                provenance: Mapping[str, Any], *, mode: str) -> str:
    """The HTML of ``index.html``."""
    parts = list(dict.fromkeys(c.part for c in cards))
    counted = card_counts(cards)
    template = _environment().get_template("page.html.j2")
    text = template.render(cards=cards, summary=summary, figures=figures, parts=parts,
                           not_verdicts=[w for w in NOT_VERDICTS if counted[w]],
                           provenance=dict(provenance), mode=mode, counted=counted,
                           css=(TEMPLATES / "style.css").read_text(),
                           script=(TEMPLATES / "filter.js").read_text())
    return text.rstrip() + "\n"


def build_page(*, records: Sequence[Mapping[str, Any]], paper: Any, covered: Sequence[Any],
               extras: Mapping[str, ClaimExtras], figures: Sequence[FigureView],
               findings: Sequence[str], provenance: Mapping[str, Any], mode: str,
               beyond_paper: str = "", cause_sizes: Mapping[str, str] = {}) -> str:
    """Everything joined: the statement index, the claim records, the figures; ``findings``
    are the figures' measurements (evidence), ``beyond_paper`` the findings beyond the paper
    (Markdown, REPORT.md's section), ``cause_sizes`` each erratum cause's size in words (as
    REPORT.md's errata rows)."""
    rows = statement_rows(paper, covered)
    refs, names = reference_resolver(paper), label_namer(paper)
    # the toolkit's prose names the paper's equations as the paper prints them
    figures = [replace(f, caption=names(f.caption), verdict=names(f.verdict)) for f in figures]
    findings = [names(f) for f in findings]
    # a claim named in the toolkit's words links to its card
    link = claim_linker({str(r["id"]): f"line-{r['line']}" for r in records
                         if r.get("line") is not None})
    cards = build_cards(rows, records, extras, figures, paper.expand_macros, paper.place,
                        lambda line: _part(paper, line), lambda text: link(names(refs(text))))
    summary = build_summary(cards, records, findings)
    summary.beyond_paper = markdown_blocks_html(names(beyond_paper)) if beyond_paper else ""
    summary.cause_sizes = {cause: names(size) for cause, size in cause_sizes.items()}
    return render_page(cards, summary, figures, provenance, mode=mode)
