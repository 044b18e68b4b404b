"""Build the derivation report: ``tasksim report`` writes it into ``reports/``.

What it writes (all regenerated from the toolkit, nothing typed in):

``index.html``        the full record, one self-contained page (:mod:`tasksim.reports.html`):
                      the summary, then one card per statement of the paper in its order,
                      anchored by line (``#line-1265``), math as MathML;
``REPORT.md``         the landing page (at most :data:`LANDING_LIMIT` bytes): the summary, the
                      errata by cause linking to their cards, provenance;
``claims.json``       the machine-readable registry: ``{"provenance": {...}, "claims": [...]}``,
                      one object per claim (id, line, headline, printed, derived, status, ...;
                      :func:`claim_records`);
``derivations.tex``   a LaTeX document (compiles with pdflatex) with every derivation's steps;
``figures/*.png``     the regenerated figures, each with ``figures/*.csv.gz``, its plotted numbers;
``build-info.json``   timings of this build: wall seconds, CPU seconds per piece (the only
                      output that changes between builds).

How: the claims (in chunks), each measurement and each figure are independent pieces
(:mod:`tasksim.reports.report_jobs`) run on ``workers`` local processes or a dask cluster
(:func:`tasksim.solvers.executors.open_executor`), through a keyed store
(:mod:`tasksim.reports.report_cache`) keyed by the package's source digest and the piece's
parameters; a piece found there is read back, not run.

Same inputs, same bytes: everything but ``build-info.json`` is deterministic (seeded sweeps,
sorted records, PNGs written without timestamps), whether its pieces were computed or read back
and on however many workers. Every output records its provenance
(:mod:`tasksim.reports.provenance`: tasksim's version, the commit, library versions, root seed
and command); the PNGs carry it as text chunks.

A half-written report never replaces a good one: everything is written into a staging folder
inside the output folder first, then moved into place file by file (``os.replace``, atomic on
one file system), and the staging folder is removed whatever happens. An output folder that
cannot be created or written is refused before any work starts.

The mathematics lives in ``derivations`` and ``solvers``; this module only arranges their
results into files.
"""
from __future__ import annotations

import json
import math
import os
import re
import platform
import shutil
import tempfile
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

import sympy as sp

from tasksim.derivations.claims import VERDICTS, Verdict
from tasksim.derivations.latex import latex
from tasksim.derivations.registry import evaluate_all
from tasksim.derivations.scope import OUT_OF_SCOPE

from .figures_blas import single_threaded_blas
from .findings import Finding, findings_markdown
from .paper import Paper, load_paper
from .paper_labels import label_namer, label_numbers, reference_resolver
from .plain_math import tex_escape, to_tex
from .statement_index import FOUND_BY
from tasksim.solvers.executors import open_executor

from .formulas import reader_form, short_difference
from .html.cards import PRINTED_TEX_LIMIT, ClaimExtras, FigureView, with_paper_regime
from .html.page import build_page
from .measurements import MeasuredVerdict
from .provenance import png_metadata, provenance
from .report_cache import KeyedStore, page_version, pieces_version
from .report_jobs import (FINDINGS_CHECKS, FigureOutput, Piece, by_expected_cost, claim_count,
                          claims_job, figure_groups, figure_job, findings_job,
                          findings_joined, findings_labels, known_costs,
                          measurement_group_job, measurement_groups, measurement_ids,
                          picklable, remember_costs, sizes_job, timed,
                          timed_sharing)
from .soft_threshold_results import MEASURED_CLAIMS, check_stored, stored_digest
from .statements import CoveredStatement, coverage, coverage_counts
from .summary import (brief, cause_size, confirmation_text, definitions_markdown, escape_cell,
                      math, quote_markdown, readable, size_text)
from .summary import summary_markdown as _headline_summary
from .tex_lines import display
from .verdicts import (Cause, StatementVerdict, build_statement_verdicts, causes,
                       measured_words, misprint_note, statement_of, step_status,
                       STEP_WORDS)

__all__ = ["ReportOptions", "build_report", "claims_markdown", "claims_document",
           "claim_records", "coverage_markdown", "derivations_latex", "summary_markdown",
           "OUTPUTS"]

OUTPUTS = ("claims.json", "derivations.tex", "figures", "build-info.json", "index.html",
           "REPORT.md")
"""What a build writes into the output folder, in the order it is moved into place."""

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ReportOptions:
    """What to build: ``quick`` uses small sizes and few seeds (for tests and previews).

    ``command`` is recorded as the provenance's command line; by default the ``tasksim
    report`` command that builds these options.
    """

    out_dir: Path
    quick: bool = False
    seed: int = 0
    figures: bool = True
    command: Optional[str] = None
    measure: bool = True
    """Run the measured verdicts (:mod:`tasksim.reports.measurements`; about two minutes at full
    size); without them claims.json has no ``measured`` entries."""
    workers: int = 1
    """Local processes for the claims, measurements and figures (1: serial, in this process;
    the command's default is every core)."""
    dask: Optional[str] = None
    """A dask.distributed scheduler's address to run them on instead (:mod:`tasksim.solvers.executors`)."""
    cache: Optional[Path] = None
    """Folder of the keyed store of claims, measurements and figures
    (:mod:`tasksim.reports.report_cache`); None: no cache."""

    def command_line(self) -> str:
        if self.command is not None:
            return self.command
        words = ["tasksim", "report", "--out", str(self.out_dir), "--seed", str(self.seed)]
        words += ["--quick"] if self.quick else []
        words += [] if self.figures else ["--no-figures"]
        words += [] if self.measure else ["--no-measurements"]
        return " ".join(words)

    def provenance(self) -> dict[str, Any]:
        """The build's record; its BLAS threads are those the figures and measurements use."""
        with single_threaded_blas():
            return provenance(seed=self.seed, command=self.command_line())


def _paper_expand(paper) -> Callable[[str], str]:
    """The paper's macros expanded and its references resolved to what LaTeX prints
    (:mod:`tasksim.reports.paper_labels`); the identity without a paper."""
    if paper is None:
        return _identity
    resolve = reference_resolver(paper)
    return lambda text: paper.expand_macros(resolve(text))


def _identity(text: str) -> str:
    return text


LARGE_LATEX = PRINTED_TEX_LIMIT
"""Expressions longer than this many characters of LaTeX (the error matrices of long task
sequences) are named, not shown, in REPORT.md; claims.json and derivations.tex hold them."""


def _shown(formula: str, where: str) -> str:
    """``formula`` in REPORT.md, or a pointer to ``where`` when it is too long to read there."""
    if len(formula) <= LARGE_LATEX:
        return formula
    return rf"\text{{({len(formula)} characters of LaTeX: see {where})}}"


def _statements(verdicts: Sequence[Verdict], paper: Optional[Paper],
                measured: Optional[dict[str, MeasuredVerdict]],
                sizes: Optional[dict[str, Any]] = None) -> list[StatementVerdict]:
    return build_statement_verdicts(verdicts, paper, measured or {}, limit_sizes=sizes)


def claims_markdown(verdicts: Sequence[Verdict], paper: Optional[Paper] = None,
                    measured: Optional[dict[str, MeasuredVerdict]] = None,
                    statements: Optional[Sequence[StatementVerdict]] = None) -> str:
    """The claims table: each headline claim with its statement's verdict (bold), each step
    as evidence under its statement with its status; the measured verdict, if any, with the
    note; and the count of verdicts."""
    measured = measured or {}
    if statements is None:
        statements = _statements(verdicts, paper, measured)
    by_id = {s.id: s for s in statements}
    place = (lambda line: paper.place(line)) if paper is not None else (lambda line: "")
    expand = _paper_expand(paper)
    lines = [
        "| id | line | where | verdict | printed (verbatim) | derived | condition; note |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        c = v.claim
        record = by_id.get(c.id) if c.headline else None
        name = f"**`{c.id}`**" if record else f"`{c.id}`"
        if record is not None:
            kind = f"**{record.verdict}** (clause {record.clause + 1})"
        elif c.finding:
            kind = f"finding `{c.finding}` (step: {step_status(v)})"
        else:
            kind = f"evidence (step: {step_status(v)})"
        derived = "" if v.derived is None else math(_shown(latex(v.derived), "claims.json"))
        m = measured.get(c.id)
        decide = record.note if record is not None and record.verdict == "not decided" else ""
        detail = "; ".join(x for x in (c.condition, v.exceptions and
                                       f"fails on: {v.exceptions}",
                                       f"would decide: {decide}" if decide else v.note,
                                       m and f"measured: {m.verdict} (Measurements)") if x)
        line = "" if c.line is None else str(c.line)
        lines.append(f"| {name} | {line} | {escape_cell(place(c.line) if c.line else c.where)} "
                     f"| {kind} | {quote_markdown(c.printed_latex, expand)} | {derived} | "
                     f"{escape_cell(detail)} |")
    counts = {w: sum(s.verdict == w for s in statements) for w in VERDICTS}
    summary = ", ".join(f"{n} {w}" for w, n in counts.items())
    return ("\n".join(lines) + f"\n\n{len(verdicts)} claims; {len(statements)} statements "
            f"with a verdict: {summary}; the other {len(verdicts) - len(statements)} claims are "
            "evidence under them or findings.\n")


def summary_markdown(verdicts: Sequence[Verdict], paper: Paper,
                     covered: Sequence[CoveredStatement],
                     measured: Optional[dict[str, MeasuredVerdict]] = None,
                     figure_findings: Sequence[str] = (),
                     found: Sequence[Finding] = (),
                     statements: Optional[Sequence[StatementVerdict]] = None) -> str:
    """The report's first screen (:func:`tasksim.reports.summary.summary_markdown`)."""
    if statements is None:
        statements = _statements(verdicts, paper, measured)
    return label_namer(paper)(_headline_summary(
        statements, causes(statements, verdicts), part_of=lambda line: _part(paper, line),
        coverage_line=coverage_sentence(covered),
        findings=[f"**{f.id}** (supported by the exact solvers: {f.supported})"
                  for f in found],
        figure_findings=figure_findings,
        names={label: f"({n.text})" for label, n in label_numbers(paper).items()
               if n.kind == "equation"}))


def _part(paper: Paper, line: int) -> str:
    section = paper.section_of(line)
    top = next((s for s in paper.sections if s.name == section.top), section)
    return f"{top.name} {top.title}" if top.name != top.title else top.name


def coverage_sentence(covered: Sequence[CoveredStatement]) -> str:
    """One sentence with the coverage counts: the denominator by kind and how it was built,
    claimed (and how many of those by steps only, with no headline verdict), out of scope,
    unclaimed (no claim answers it yet: a coverage state, not a verdict; "none" when there
    is none, never "0 ... listed below")."""
    c = coverage_counts(covered)
    share = c["claimed"] / c["found"] if c["found"] else 0.0
    steps_only = sum(1 for s in covered if s.claimed_by and not s.headlines)
    unclaimed = (f"{c['unclaimed']} unclaimed (no claim answers them yet; listed in "
                 "index.html as unclaimed)" if c["unclaimed"] else
                 "none unclaimed (every statement found is claimed or out of scope; a line "
                 "the finders skip, connective prose or a setting, is not counted, and a "
                 "statement found there goes into the checked-in list)")
    return (f"**Coverage.** {c['found']} statements found in the paper's source "
            f"({c['display']} display clauses, {c['labelled displays']} of them labelled; "
            f"{c['sentence']} sentences; {c['figure panel']} figure panels; "
            f"{c['listed']} of all these from the checked-in list of what the finders miss): "
            f"{c['claimed']} claimed ({share:.1%}; {steps_only} of them by steps only, with no "
            f"headline verdict of their own), {c['out of scope']} out of scope with a stated "
            f"reason, {unclaimed}.")


def coverage_markdown(covered: Sequence[CoveredStatement], paper: Paper) -> str:
    """The coverage: the counts, how the statements were found, what is out of scope and why,
    and every statement by (line, clause) with the claims that answer it (headline first)."""
    lines = [coverage_sentence(covered), "", "How statements are found "
             "(`tasksim.reports.statements.statement_index`):", ""]
    lines += [f"- {how}" for how in FOUND_BY.values()]
    lines += ["", "A statement is claimed when a claim's line (or a restatement's) lies in its "
              "lines and, for prose, its quote is the statement's words; a figure panel also when "
              "a headline claim's `where` cites it. Out of scope, by reason:", ""]
    reasons: dict[str, list[str]] = {}
    for c in covered:
        if c.state == "out of scope":
            reasons.setdefault(c.out_of_scope, []).append(str(c.statement.line))
    lines += [f"- {escape_cell(reason)} (lines {', '.join(where)})"
              for reason, where in sorted(reasons.items(), key=lambda kv: -len(kv[1]))]
    lines += ["", "| line.clause | where | kind | opens with | headline verdicts | other claims |",
              "|---|---|---|---|---|---|"]
    for c in covered:
        others = [i for i in c.claimed_by if i not in c.headlines]
        kind = c.statement.label or c.statement.kind
        if c.statement.kind == "display" and c.statement.label:
            kind = f"display {c.statement.label}"
        heads = ", ".join(f"`{i}`" for i in c.headlines) or (
            "out of scope" if c.state == "out of scope" else
            "claimed (steps only)" if c.claimed_by else "**unclaimed**")
        span = f" (to {c.statement.end})" if c.statement.end > c.statement.line else ""
        lines.append(f"| {c.statement.line}.{c.statement.clause}{span} | "
                     f"{paper.place(c.statement.line)} | {escape_cell(kind)} | "
                     f"{_opening(c.statement.text)} | {heads} | "
                     f"{', '.join(f'`{i}`' for i in others)} |")
    return "\n".join(lines) + "\n"


def _opening(text: str, width: int = 48) -> str:
    """The first words of a statement's source, as code (so that no renderer reads its TeX):
    enough to find it at its line."""
    words = " ".join(text.replace("`", "'").replace("|", "/").split())
    return f"`{words[:width]}{'...' if len(words) > width else ''}`"


def _correction_state(own: Optional[MeasuredVerdict],
                      statement: Optional[StatementVerdict]) -> str:
    """The state of an erratum's correction: its own measurement's confirmation (or, with
    none, its measured verdict), else the test of its statement's correction (the statement's
    cause may have measured it), else "not measured"."""
    if own is not None:
        return own.confirmation.state if own.confirmation else own.verdict
    if statement is not None and statement.confirmation is not None:
        return statement.confirmation.state
    return "not measured"


def _joined(note: str, more: str) -> str:
    """``more`` after ``note`` as a new sentence (``more`` alone when the note is empty: a
    card's note never opens with a stray ". ").

    >>> _joined("", "Measured."), _joined("read as x.", "Measured.")
    ('Measured.', 'read as x. Measured.')
    """
    note = note.rstrip(". ")
    return f"{note}. {more}" if note else more


@dataclass(frozen=True)
class ClaimForms:
    """A claim's formulas as its record writes them (:func:`claim_forms`): the derived form and
    the reading in LaTeX, both forms as sympy ``srepr``. Printing them is most of the pages'
    own time, so a build on several workers prints them where the claims are derived."""

    derived: str
    reading: str
    printed_srepr: str
    derived_srepr: str


def claim_forms(v: Verdict) -> ClaimForms:
    """The formulas of ``v``'s record (empty where a form is absent)."""
    printed, derived = v.claim.printed, v.derived
    return ClaimForms(derived="" if derived is None else latex(derived),
                      reading="" if printed is None else latex(printed),
                      printed_srepr="" if printed is None else sp.srepr(sp.sympify(printed)),
                      derived_srepr="" if derived is None else sp.srepr(sp.sympify(derived)))


def claim_records(verdicts: Sequence[Verdict], paper: Optional[Paper] = None,
                  measured: Optional[dict[str, MeasuredVerdict]] = None,
                  statements: Optional[Sequence[StatementVerdict]] = None,
                  forms: Optional[Mapping[str, ClaimForms]] = None
                  ) -> list[dict[str, Any]]:
    """One record per claim: :meth:`Verdict.as_record` plus ``place`` (the part of the paper
    its line stands in), ``reading`` (how the claim reads the quote, LaTeX), ``size`` (the
    verdict's size in the observable's units, for headline claims), ``correction`` (errata:
    the confirmation state) and ``measured`` (when measured). A headline claim also carries
    its statement's verdict record (:meth:`StatementVerdict.as_record`: ``verdict``,
    ``observable``, ``size_at_paper_sizes``, ``size_reason``, ``cause``, ``clause``,
    ``confirmation``, ``evidence``), ``printed_srepr`` and ``derived_srepr`` (the two forms as
    sympy ``srepr`` strings, empty when absent; :func:`tasksim.statements.parse_form` loads
    them); a step names the statement it is evidence under
    (``evidence_of``) or its ``finding``. ``forms``: :func:`claim_forms` by claim id, where
    already printed."""
    measured = measured or {}
    forms = forms or {}
    if statements is None:
        statements = _statements(verdicts, paper, measured)
    by_id = {s.id: s for s in statements}
    names = label_namer(paper) if paper is not None else (lambda text: text)
    records = []
    for v in verdicts:
        c = v.claim
        form = forms.get(c.id) or claim_forms(v)
        r = v.as_record(derived_latex=form.derived)
        r["status"] = step_status(v)  # a finding's step is never shown as an erratum
        r["place"] = paper.place(c.line) if paper is not None and c.line else ""
        r["reading"] = form.reading
        # the forms re-loadable into sympy (tasksim.statements.parse_form reads them back)
        r["printed_srepr"] = form.printed_srepr
        r["derived_srepr"] = form.derived_srepr
        statement = by_id.get(c.id)
        r["size"] = (None if statement is None or statement.size is None else
                     {"value": statement.size, "at": statement.size_point})
        # a correction belongs to an erratum: a step that differs from the print, or a
        # statement whose verdict is wrong or misprint (a finding's step is no erratum; a
        # statement that holds, even under a stronger condition, has nothing to correct)
        if v.status == "erratum" and not c.finding and (
                statement is None or statement.verdict in ("wrong", "misprint")):
            r["correction"] = _correction_state(measured.get(c.id), statement)
        if c.id in measured:
            r["measured"] = measured[c.id].as_record()
            if measured[c.id].note:  # what the measurement adds to the claim's note
                r["note"] = _joined(r["note"], measured[c.id].note)
        if statement is not None:  # what a step's measurement adds to its statement
            for e in statement.evidence:
                found = measured[e["id"]].note if e.get("id") in measured else ""
                if found and found not in r["note"]:
                    r["note"] = _joined(r["note"], found)
            extra = statement.as_record()
            for key in ("id", "line", "place", "derived", "note"):
                extra.pop(key)  # the statement's condition replaces the claim's: for "holds
            # under a stronger condition" it is the derived condition, part of the verdict;
            # its restatements replace the claim's (its own line's other sentences are not)
            extra.pop("quote")
            r.update(extra)
            del r["status"]  # a statement carries its verdict only, no second vocabulary
            if statement.verdict == "misprint":  # its kind leads the card's note
                r["note"] = misprint_note(statement.cause, r["note"])
            if statement.verdict == "not decided":
                # a measurement said as what it rejects, not as "statement confirmed"
                # (REFEREE33 m1, REFEREE34 m1); the derived form stays (claims.json's forms
                # are re-loadable), the card does not show a truth value
                if c.id in measured:
                    r["measured"]["verdict"] = measured_words(measured[c.id], statement.verdict)
        elif c.finding:
            r["finding"] = c.finding
        else:
            r["evidence_of"] = statement_of(c.id)
        for key in PROSE_KEYS:  # the paper's equations by the numbers it prints
            if isinstance(r.get(key), str):
                r[key] = names(r[key])
        records.append(r)
    return records


PROSE_KEYS = ("where", "note", "condition", "paper_regime", "exceptions", "observable",
              "size_reason", "size_phrase", "would_decide", "reading_from")
"""A record's words (not its formulas): they name the paper's equations as it prints them,
"Eq. (4)", never by their LaTeX labels."""


def claims_document(verdicts: Sequence[Verdict], record: dict[str, Any],
                    paper: Optional[Paper] = None,
                    measured: Optional[dict[str, MeasuredVerdict]] = None,
                    found: Sequence[Finding] = (),
                    statements: Optional[Sequence[StatementVerdict]] = None,
                    forms: Optional[Mapping[str, ClaimForms]] = None) -> str:
    """``claims.json``: ``{"provenance": record, "conventions": {...}, "verdicts": {word:
    meaning}, "claims": [one
    record per claim], "causes": [...], "findings": [...]}`` (:func:`claim_records`, with
    ``forms``; without a paper, ``place`` is empty)."""
    from .summary import VERDICT_DEFINITIONS

    if statements is None:
        statements = _statements(verdicts, paper, measured)
    names = label_namer(paper) if paper is not None else (lambda text: text)
    document = {
        "provenance": record,
        "conventions": {"clause": "a line's clauses counted from 0 here (the first clause is "
                                  "0); the report's pages count them from 1",
                        "condition": "the regime in which the verdict holds: for 'holds under "
                                     "a stronger condition', the derived narrower regime, which "
                                     "is part of the verdict; empty where the verdict needs "
                                     "none beyond its word ('exact' holds at every finite size; "
                                     "every other word is judged in the regime the paper "
                                     "states)",
                        "correction": "on an erratum (a step that differs from the print, a "
                                      "'wrong' or 'misprint' statement): the state of its "
                                      "correction's test, 'confirmed' or 'not confirmed' as "
                                      "'measured' defines them (a statement without a test of "
                                      "its own takes its cause's, as 'confirmation' says), "
                                      "else 'not measured'",
                        "confirmation": "on a 'wrong' statement: the test of its correction at "
                                        "the largest size measured ('size': [Nx, Ns]), with the "
                                        "printed, derived and measured values, the standard "
                                        "error 'se', a 'reason' in words and a 'state', "
                                        "'confirmed' or 'not confirmed' as 'measured' defines "
                                        "them; for a statement judged on the network's runs, "
                                        "which has no correction, 'contradicted' or 'not "
                                        "resolved' (the paired t-test against the paper's "
                                        "claim)",
                        "paper_regime": "present only beside a derived stronger condition: the "
                                        "regime the paper states for the statement",
                        "measured": "on a measured claim, an object: 'what' was measured, "
                                    "the 'rows' (nx, ns, mean, sem, n, printed, derived), the "
                                    "'seed', 'cost', 'denied' (the statement denies a value), "
                                    "'by_rate', the 'confirmation' test, an optional 'note', "
                                    "and under 'verdict' the measurement's state (not a "
                                    "verdict word: one of the states below); under 'evidence' "
                                    "the state alone. The state is the measurement's at its "
                                    "largest size: where the "
                                    "paper prints a value there, 'confirmed' (the derived value "
                                    "within 3 combined SE, the printed one rejected at >= 5 SE, "
                                    "with the power to) or 'not confirmed'; else 'derived value "
                                    "confirmed' or 'derived value not confirmed' (within 3 SE or "
                                    "not), preceded, where the statement denies a value (no "
                                    "change, zero), by 'statement confirmed' or 'statement not "
                                    "confirmed' (that value rejected at >= 5 SE or not); "
                                    "where the derived value is a statement's leading order "
                                    "(the same at every size), 'leading order's error "
                                    "shrinks like Ns/Nx' or 'leading order's error does not "
                                    "shrink like Ns/Nx' (its error at the largest size below "
                                    "that at every smaller size by more than 3 combined SE, "
                                    "and not larger in units of the small parameter Ns/Nx, "
                                    "or Ns/(alpha Nx) with gates, by more than 3 combined SE: "
                                    "an error that falls at least as fast as Ns/Nx; or not). "
                                    "The verdict word comes from the derivation; such a "
                                    "measurement sizes the statement and shows its limit",
                        "id": "the claim's name (a statement's headline claim, or a step)",
                        "line": "the line of paper.tex the quoted statement starts on",
                        "where": "the section, equation or figure the claim is about",
                        "printed": "the paper's words or display, verbatim (LaTeX)",
                        "derived": "the derived form, as LaTeX (empty where nothing is "
                                   "derived)",
                        "derived_srepr": "the derived form as a sympy srepr string (empty "
                                         "when absent)",
                        "note": "how the claim reads the statement, and what its "
                                "evidence adds, in words",
                        "verdict": "on a statement's headline claim only: one of the six "
                                   "words under 'verdicts'",
                        "size_at": "the point of the parameters' grid where "
                                   "'size_at_paper_sizes' is reached",
                        "size_derived_at": "the point of 'size_derived'",
                        "restates": "the other lines where the paper states the same thing "
                                    "again (a statement's own line is not among them)",
                        "observable": "what the statement's size is a change of (its unit)",
                        "size_at_paper_sizes": "the statement's size in its observable's unit "
                                               "at Nx = 3000, Ns = 30, Ny = 10: for an "
                                               "erratum, the change a reader of the printed "
                                               "form gets wrong; for 'holds in the stated "
                                               "limit', the leading order's error there; the "
                                               "largest over the parameters' grid, reached at "
                                               "'size_at'; null with 'size_reason' saying why. "
                                               "For a statement judged on the network's runs "
                                               "(Sec. 7; 'observable' the network's test "
                                               "error): the paired effect by which it is shown "
                                               "or contradicted on the stored runs, its margin, "
                                               "not a grid maximum",
                        "size": "on a headline claim: its statement's size and point, "
                                "{'value': size_at_paper_sizes, 'at': size_at}",
                        "size_reason": "how the size was obtained, or why there is none",
                        "size_typical": "the size's expression with every free parameter at "
                                        "1/2 (alpha~ at 1), beside the grid maximum; null "
                                        "without an expression",
                        "size_derived": "on a statement whose derived value was measured and "
                                        "not confirmed: the derived size at 'size_derived_at' "
                                        "('size_at_paper_sizes' is then the measured "
                                        "deviation from the printed value)",
                        "size_phrase": "the size as the report's pages phrase it",
                        "size_kind": "what 'size_at_paper_sizes' is: 'grid' (the largest "
                                     "over the parameters' grid), 'value' (one value: "
                                     "no free parameter is left, as in an average over the "
                                     "prior or an identity), 'stated point' (the "
                                     "derived value at the statement's stated point), "
                                     "'stated points' (the larger at its stated points), "
                                     "'read point' (the derived value where a range the "
                                     "statement names in words is read, 'rho_a low' at "
                                     "rho_a = 0; 'read points', the larger at several), "
                                     "'measured' (measured at one point), 'measured "
                                     "deviation' (from the printed value: 'size_derived'), "
                                     "'margin' (a network statement's paired effect); null "
                                     "without a size",
                        "would_decide": "on a statement not decided whose effect was "
                                        "measured: what would decide it",
                        "headline": "true for the claim that carries its statement's verdict; "
                                    "false for a step (evidence under a statement)",
                        "place": "the part of the paper the line stands in",
                        "reading": "how the claim reads the quote, as LaTeX",
                        "printed_srepr": "the form the claim compares with, as a sympy "
                                         "srepr string (empty when absent): what the paper "
                                         "prints at the line; for a sentence that prints no "
                                         "value, the value its words are read as ('reading'; "
                                         "a sign's boundary 0, a truth value); where "
                                         "'reading_from' is set, what that other line "
                                         "implies; "
                                         "tasksim.statements.parse_form loads it, as it does "
                                         "'derived_srepr'",
                        "reading_from": "empty when the line prints the form compared with; "
                                        "else the line (and statement) the compared form "
                                        "comes from: a caption that names a quantity without "
                                        "printing its value, or a sentence about a form "
                                        "printed elsewhere (an equation it says holds, "
                                        "equals or is the limit of)",
                        "cause": "on 'wrong' and 'misprint': the id of the root cause its "
                                 "erratum shares with others ('causes' lists them)",
                        "evidence": "the steps and measurements under a statement, never "
                                    "with a verdict: a step with its 'status'; a measurement "
                                    "with status 'measured' and its state under 'measured'; a "
                                    "run of the network (Sec. 7) with its 'dataset', paired "
                                    "'effect', standard error 'se' and 'seeds', and its "
                                    "numbers in words under 'finding'; for a conjunction, "
                                    "'parts': each part's claim ('part'), 'effect', 'se', "
                                    "'seeds', the paired t-test's 'p' against its boundary "
                                    "and 'state' (shown, contradicted, not resolved; 'by its "
                                    "rule' where another rule decides the part: a dip needs "
                                    "both ends), its 'trend' (the side of the claim its "
                                    "effect is on) and, when not resolved, "
                                    "'seeds_to_decide' (if effect and spread stay)",
                        "evidence_of": "on a step: the statement it is evidence under",
                        "finding": "on a step whose print differs from the model for a "
                                   "reason beyond the paper: the finding that explains it",
                        "exceptions": "points of the stated range where the statement does "
                                      "not hold, as the claim's derivation found them",
                        "status": "a step's status (steps carry no verdict), one of: "
                                  + "; ".join(sorted(set(STEP_WORDS.values())))
                                  + " ('finding': the print differs from the model for the "
                                    "reason a finding beyond the paper explains)"},
        "verdicts": dict(VERDICT_DEFINITIONS),
        "claims": claim_records(verdicts, paper, measured, statements, forms),
        "causes": [{"id": c.id, "verdict": c.verdict, "size_at_paper_sizes": c.size,
                    "rank": c.rank, "size_phrase": names(c.size_phrase) or None,
                    "network": c.network, "observable": names(c.observable),
                    "lines": list(c.lines),
                    "restated_at": list(c.restated),
                    "statements": [s.id for s in c.statements]}
                   for c in causes(statements, verdicts)],
        "findings": [f.as_record() for f in found],
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def measurements_markdown(measured: dict[str, MeasuredVerdict]) -> str:
    """Every measured verdict: claim, verdict, what was measured, the numbers per size."""
    if not measured:
        return "(measurements not run: `tasksim report --no-measurements`)\n"
    from .measurements import CONFIRM_Z, POWER, REJECT_Z

    lines = [f"Confirmation is a test with stated power at the largest size measured: the "
             f"derived value within {CONFIRM_Z:g} standard errors, the printed one rejected at "
             f">= {REJECT_Z:g}, and the standard error at most |printed - derived|/{POWER:g}; "
             "anything else is 'not confirmed'. A measurement below the paper's sizes says "
             "why (its cost).", "",
             "| claim | measured | what, the numbers at each size, and the test at the largest "
             "|", "|---|---|---|"]
    for claim_id, m in measured.items():
        numbers = "; ".join(
            f"Nx = {r.nx}, Ns = {r.ns}: {r.mean:.4g} +- {r.sem:.2g} (n = {r.n})"
            + (f", printed {r.printed:.4g}" if r.printed is not None else "")
            + f", derived {r.derived:.4g}" for r in m.rows)
        test = f"; test: {m.confirmation.reason}" if m.confirmation is not None else ""
        cost = f"; size: {m.cost}" if m.cost else ""
        lines.append(f"| `{claim_id}` | {m.verdict} | {escape_cell(m.what)}; {numbers}"
                     f"{escape_cell(test)}{escape_cell(cost)} |")
    return "\n".join(lines) + "\n"


def _steps(v: Verdict) -> list[tuple[str, str, str]]:
    if v.derivation is None:
        return []
    return [(s.name, latex(s.expr), s.note) for s in v.derivation.steps]


def derivations_markdown(verdicts: Sequence[Verdict]) -> str:
    """Every derivation's named steps, in order, as Markdown with display LaTeX."""
    parts = []
    for v in verdicts:
        steps = _steps(v)
        if not steps:
            continue
        body = "\n".join(
            f"{i}. **{name}**{': ' + note if note else ''}\n\n"
            f"   $$ {_shown(formula, 'derivations.tex')} $$\n"
            for i, (name, formula, note) in enumerate(steps, 1)
        )
        parts.append(f"### `{v.claim.id}`\n\n{body}")
    return "\n".join(parts)


_TEX_INLINE = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)


def tex_text(text: str, *, math: bool = True) -> str:
    r"""Words for LaTeX's text mode: its own ``$...$`` math kept, the toolkit's plain-text math
    (``rho_a``, ``W_mu-1``, ``A^T``) typeset as math (:func:`tasksim.reports.plain_math.to_tex`;
    ``math=False`` for a claim id), every other special character escaped, so a note or a
    step's name never puts ``^`` or ``_`` outside math.

    >>> print(tex_text("c_1 = $x^2$ & 50%"))
    \(c_{1}\) = $x^2$ \& 50\%
    >>> print(tex_text("soft_threshold.alpha_free", math=False))
    soft\_threshold.alpha\_free
    """
    words = to_tex if math else tex_escape
    out, last = [], 0
    for m in _TEX_INLINE.finditer(text):
        out.append(words(text[last:m.start()]))
        out.append(f"${m.group(1)}$")
        last = m.end()
    out.append(words(text[last:]))
    return "".join(out)


TEX_PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=1.8cm]{geometry}
\usepackage[T1]{fontenc}
\usepackage{amsmath,amssymb,graphicx}
\setcounter{MaxMatrixCols}{40}
\allowdisplaybreaks
\sloppy
\title{tasksim: the derivations of the claims}
\date{}
\begin{document}
\maketitle
Every claim with derivation steps, in the paper's line order. The statements judged without
derivation steps (by the network's runs, by a check their note states, or not decided) are
listed at the end.
"""


def verdict_with_condition(statement: StatementVerdict) -> str:
    """The verdict word, with the derived condition and the paper's regime where the verdict
    is "holds under a stronger condition" (the condition is part of that verdict); for
    `wrong`, the condition it is judged in and whether a measurement confirms the correction."""
    if statement.verdict == "wrong" and statement.network:
        return "wrong"  # the runs contradict it; there is no derived correction to confirm
    if statement.verdict == "wrong":
        parts = [f"condition: {statement.condition}" if statement.condition else "",
                 f"correction {statement.confirmation.state}"
                 if statement.confirmation is not None else ""]
        shown = "; ".join(p for p in parts if p)
        return f"wrong ({shown})" if shown else "wrong"
    if statement.verdict != "holds under a stronger condition":
        return statement.verdict
    return (f"{statement.verdict} (condition: "
            f"{with_paper_regime(statement.condition, statement.regime)})")


def derivations_latex(verdicts: Sequence[Verdict], record: Optional[dict[str, Any]] = None,
                      steps_of: Optional[dict[str, Sequence[tuple[str, str, str]]]] = None,
                      names: Callable[[str], str] = lambda text: text,
                      verdict_of: Optional[Mapping[str, str]] = None) -> str:
    """A LaTeX document (compiles with pdflatex) with every derivation's steps, in the paper's
    line order (claims without a line last), each headed by its statement's verdict word where
    ``verdict_of`` (claim id -> verdict) has one, else by the step's status; ``record``
    (provenance) goes into its header comment. Formulas longer than :data:`LARGE_LATEX`
    characters are named, not typeset (claims.json holds them); a display too wide for the
    page is broken into lines (:func:`tasksim.reports.tex_lines.display`). ``steps_of`` (claim id ->
    steps as (name, LaTeX, note)) gives steps already printed (the build's pieces print them
    once); a claim not in it has its steps printed here. ``names`` names the paper's
    equations in the steps' words (:func:`~tasksim.reports.paper_labels.label_namer`)."""
    out = ["% Generated by `tasksim report`; do not edit."]
    if record is not None:
        out += [f"% {key}: {value}" for key, value in record.items()]
    out.append(TEX_PREAMBLE)
    verdict_of = verdict_of or {}
    underived: list[Verdict] = []
    for v in sorted(verdicts, key=lambda v: (v.claim.line or math.inf, v.claim.id)):
        steps = steps_of[v.claim.id] if steps_of and v.claim.id in steps_of else _steps(v)
        if not steps:
            if v.claim.id in verdict_of:
                underived.append(v)
            continue
        where = f" (line {v.claim.line})" if v.claim.line else ""
        word = (f"Verdict: {verdict_of[v.claim.id]}" if v.claim.id in verdict_of
                else f"Step: {step_status(v)}")
        out.append(f"\\paragraph{{{tex_text(v.claim.id, math=False)}}}{where} "
                   f"{tex_text(word)}.")
        out.append("\\begin{enumerate}")
        for name, formula, note in steps:
            shown = formula if len(formula) <= LARGE_LATEX else \
                rf"\text{{({len(formula)} characters of LaTeX: see claims.json)}}"
            text = tex_text(names(name)) + (f" ({tex_text(names(note))})" if note else "")
            out.append(f"  \\item {text}: {display(shown)}")
        out.append("\\end{enumerate}")
        out.append("")
    if underived:
        out.append("\\section*{Statements judged without a derivation}")
        out.append(tex_text("These carry a verdict but no derivation steps: they are judged "
                            "by measurements (the network's runs of Sec. 7, stored in "
                            "results/), by a check stated in their note (a symbolic identity "
                            "checked at small sizes), or not decided. Their evidence is in "
                            "claims.json and on their cards in index.html."))
        out.append("\\begin{itemize}")
        for v in underived:
            where = f" (line {v.claim.line})" if v.claim.line else ""
            out.append(f"  \\item {tex_text(v.claim.id, math=False)}{where}: "
                       f"{tex_text('Verdict: ' + verdict_of[v.claim.id])}.")
        out.append("\\end{itemize}")
    out.append("\\end{document}")
    return "\n".join(out)


def _provenance(options: ReportOptions, record: dict[str, Any]) -> str:
    import matplotlib
    import mpmath

    versions = {
        "tasksim": record["tasksim"],
        "python": platform.python_version(),
        "numpy": record["numpy"],
        "scipy": record["scipy"],
        "sympy": record["sympy"],
        "mpmath": mpmath.__version__,
        "matplotlib": matplotlib.__version__,
        "BLAS": "; ".join(f"{b['library']} {b['version']} ({b['threads']} thread)"
                          for b in record.get("blas", [])) or "none loaded",
    }
    rows = "\n".join(f"| {k} | {v} |" for k, v in versions.items())
    mode = "quick (small sizes, few seeds)" if options.quick else "paper sizes"
    commit = record["commit"] or "none (not run from a git checkout)"
    if record["dirty"]:
        commit += ", with uncommitted changes to the sources"
    return (
        f"Built by `{record['command']}` in {mode} mode with root seed {record['seed']}, "
        f"from commit {commit}.\n\n"
        f"| package | version |\n|---|---|\n{rows}\n"
    )


def _staging_folder(out: Path) -> Path:
    """A fresh folder inside ``out`` (created if missing) to build into: refuses an output
    folder that cannot be created or written before any work starts."""
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".tasksim-build-", dir=out))


def _move_into_place(staging: Path, out: Path) -> None:
    """Move every output built in ``staging`` into ``out``, REPORT.md last; a replaced
    ``figures/`` folder goes back to ``staging`` (removed with it)."""
    for name in OUTPUTS:
        built = staging / name
        if not built.exists():
            continue
        target = out / name
        if built.is_dir() and target.exists():
            os.replace(target, staging / f"{name}.replaced")
        os.replace(built, target)


def build_report(options: ReportOptions, progress: Optional[Progress] = None) -> Path:
    """Regenerate the report in ``options.out_dir``; returns the path of ``REPORT.md``.

    Raises OSError when the output folder cannot be written (before any work, or, for a full
    disk, during it): the report already there is then left as it was. So is it when the build
    is interrupted. Raises ValueError, before any work, when the paper's source is missing
    (:func:`tasksim.reports.paper.load_paper`).
    """
    say = progress or (lambda message: None)
    out = Path(options.out_dir)
    try:
        paper = load_paper()
    except FileNotFoundError as missing:
        raise ValueError(str(missing)) from None
    if options.measure or options.figures:  # one line, before any work, if it cannot
        check_stored(quick=options.quick, seed=options.seed)  # read the stored numerics
    staging = _staging_folder(out)
    try:
        _build_into(staging, options, paper, say)
        _move_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report = out / "REPORT.md"
    say(f"wrote {report}")
    return report


class _Stage:
    """Runs pieces of work on the build's executor (or here, serially), through the keyed
    store: a piece found in the store is not run; a piece run is stored."""

    def __init__(self, executor: Optional[Executor], store: Optional[KeyedStore],
                 version: str, say: Progress) -> None:
        self.executor, self.store, self.version, self.say = executor, store, version, say
        self.hits = self.runs = 0
        self.cpu: dict[str, float] = {}
        """CPU seconds of each piece computed in this build (pieces read back cost none)."""

    def submit(self, key: list[Any], label: str, fn: Callable[..., Any], *args: Any) -> Any:
        """A handle whose ``result()`` is ``fn(*args)``, read from the store when there."""
        full = [self.version, *key]
        if self.store is not None:
            value = self.store.get(full)
            if value is not None:
                self.hits += 1
                return _Done(value)
        self.runs += 1
        if self.executor is None:
            return _Later(self, full, label, fn, args)
        # the workers share evaluated claims through the store (a claim a figure and a
        # claims piece both need is evaluated once where their timing allows)
        share = None if self.store is None else (str(self.store.folder), self.version)
        return _Stored(self, full, label, self.executor.submit(timed_sharing, share, fn, *args))

    def keep(self, key: list[Any], label: str, value_and_cpu: tuple[Any, float]) -> Any:
        value, cpu = value_and_cpu
        self.cpu[label] = round(cpu, 2)
        if self.store is not None:
            self.store.put(key, value)
        self.say(f"done: {label} ({cpu:.1f} s CPU)")
        return value


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


class _Later:
    def __init__(self, stage: _Stage, key: list[Any], label: str, fn: Callable[..., Any],
                 args: tuple) -> None:
        self.stage, self.key, self.label, self.fn, self.args = stage, key, label, fn, args

    def result(self) -> Any:
        self.stage.say(f"running: {self.label}")
        return self.stage.keep(self.key, self.label, timed(self.fn, *self.args))


class _Stored:
    def __init__(self, stage: _Stage, key: list[Any], label: str, future: Any) -> None:
        self.stage, self.key, self.label, self.future = stage, key, label, future

    def result(self) -> Any:
        return self.stage.keep(self.key, self.label, self.future.result())


def _extras(verdicts: Sequence[Verdict], forms: Optional[Mapping[str, ClaimForms]] = None
            ) -> dict[str, ClaimExtras]:
    """What the page shows beyond the records: derived expressions in reader form, their short
    difference from the print, the derivation steps (``forms``: the records' formulas, where
    printed already)."""
    out = {}
    for v in verdicts:
        derived, printed = v.derived, v.claim.printed
        plain = forms[v.claim.id].derived if forms and v.claim.id in forms else None
        reader = reader_form(derived, printed, plain) if derived is not None else ""
        difference = short_difference(derived, printed) if v.claim.headline else ""
        out[v.claim.id] = ClaimExtras(reader, difference, tuple(_steps(v)))
    return out


def _claims_with_extras(part: int, parts: int
                        ) -> tuple[list[Any], dict[str, ClaimExtras], dict[str, ClaimForms]]:
    """Part ``part`` of ``parts`` of the registry (:func:`_chunks` of its claims), with the
    page's extras and the records' formulas. Counted here, in the worker: a build whose
    pieces are all stored never loads the registry to count it."""
    chunks = _chunks(claim_count(), parts)
    if part >= len(chunks):
        return [], {}, {}
    start, stop = chunks[part]
    verdicts = claims_job(start, stop)
    return _with_extras(verdicts)


def _with_extras(verdicts: list[Any]
                 ) -> tuple[list[Any], dict[str, ClaimExtras], dict[str, ClaimForms]]:
    """``verdicts`` with the page's extras and the records' formulas, by claim id."""
    forms = {v.claim.id: claim_forms(v) for v in verdicts}
    return verdicts, _extras(verdicts, forms), forms


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    edges = [round(i * n / parts) for i in range(parts + 1)]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]


def _pieces(options: ReportOptions, parallel: bool, costs: dict[str, float]) -> list[Piece]:
    """Every independent piece of this build (figures, measurement groups, findings checks and,
    on several workers, the claims in chunks), longest first (:func:`by_expected_cost`, with
    ``costs`` of earlier builds where known)."""
    soft = stored_digest(quick=options.quick)  # pieces reading it: keyed by its bytes too
    pieces = [Piece(["figure", "+".join(group), options.quick, options.seed]
                    + ([soft] if "fig3" in group else []),
                    f"figure {'+'.join(group)}", figure_job,
                    ("+".join(group), options.quick, options.seed))
              for group in (figure_groups() if options.figures else [])]
    if options.measure:
        for group in measurement_groups():
            ids = [measurement_ids()[i] for i in group]
            pieces.append(Piece(["measurements", *ids, options.quick, options.seed]
                                + ([soft] if set(ids) & set(MEASURED_CLAIMS) else []),
                                "measurement " + " + ".join(ids), measurement_group_job,
                                (tuple(group), options.quick, options.seed)))
        pieces += [Piece(["findings", name, options.quick, options.seed]
                         + ([part, len(labels)] if len(labels) > 1 else []), label,
                         findings_job, (name, options.quick, options.seed, part))
                   for name in FINDINGS_CHECKS
                   for labels in [findings_labels(name)] for part, label in enumerate(labels)]
    if parallel:
        pieces.append(Piece(["sizes"], "sizes", sizes_job, ()))
        pieces += [Piece(["claims", k, CLAIM_CHUNKS], f"claims {k + 1}/{CLAIM_CHUNKS}",
                         _claims_with_extras, (k, CLAIM_CHUNKS)) for k in range(CLAIM_CHUNKS)]
    return by_expected_cost(pieces, costs)


CLAIM_CHUNKS = 8
"""The claim registry is derived in this many pieces on several workers (more than the
workers: its claims differ in cost)."""


def _build_into(folder: Path, options: ReportOptions, paper: Paper, say: Progress) -> None:
    build_start = time.perf_counter()
    timings: dict[str, float] = {}
    record = options.provenance()
    store = KeyedStore(options.cache) if options.cache is not None else None
    version = pieces_version() if store is not None else ""
    pages_key = [version, page_version(), "pages", record, options.quick, options.seed,
                 options.figures, options.measure]
    stored_pages = store.get(pages_key) if store is not None else None
    if stored_pages is not None:  # nothing changed: the outputs of the last such build
        _write_outputs(folder, stored_pages["files"])
        _write_build_info(folder, {"total": time.perf_counter() - build_start}, {},
                          stored_pages["pieces"], options, pages_reused=True)
        say(f"cache: the pages and their {stored_pages['pieces']} pieces reused")
        return
    parallel = options.workers > 1 or options.dask is not None
    if parallel:
        # the registry (every derivations module, its claims built at import: about a
        # second), read by the pages anyway: loaded before the local workers fork, they
        # inherit it instead of each loading it again
        from tasksim.derivations.registry import all_claims

        all_claims()
    metadata = png_metadata(record)
    with open_executor(workers=options.workers, dask=options.dask) as executor:
        stage = _Stage(executor, store, version, say)
        costs = known_costs(store, options.quick) if store is not None else {}
        handles = {p.label: stage.submit(p.key, p.label, p.fn, *p.args)
                   for p in _pieces(options, parallel, costs)}
        # the serial start, before any piece runs (the benchmark's projection to more
        # workers adds it to the pieces' schedule)
        timings["pieces submitted"] = time.perf_counter() - build_start
        say("deriving every claim")
        if parallel:
            verdicts, extras, forms = [], {}, {}
            for k in range(CLAIM_CHUNKS):
                chunk, more, printed = handles[f"claims {k + 1}/{CLAIM_CHUNKS}"].result()
                verdicts += chunk
                extras.update(more)
                forms.update(printed)
        else:
            key = [stage.version, "claims", "all"]
            value = store.get(key) if store is not None else None
            if value is None:
                cpu = time.process_time()
                every = evaluate_all()
                every, more, printed = _with_extras(every)
                value = ([picklable(v) for v in every], more, printed)
                stage.cpu["claims"] = round(time.process_time() - cpu, 2)
                if store is not None:
                    store.put(key, value)
            verdicts, extras, forms = value
        covered = coverage(paper, [v.claim for v in verdicts], OUT_OF_SCOPE)
        timings["claims"] = time.perf_counter() - build_start
        measured: dict[str, MeasuredVerdict] = {}
        for label, h in handles.items():
            if label.startswith("measurement "):
                measured.update(h.result())
        measured = {claim_id: measured[claim_id] for claim_id in measurement_ids()
                    if claim_id in measured}
        timings["measurements"] = time.perf_counter() - build_start
        outputs: list[FigureOutput] = [o for group in figure_groups()
                                       if f"figure {'+'.join(group)}" in handles
                                       for o in handles[f"figure {'+'.join(group)}"].result()]
        timings["figures"] = time.perf_counter() - build_start
        checks = {name: findings_joined(name, [handles[label].result()
                                               for label in findings_labels(name)])
                  for name in FINDINGS_CHECKS if findings_labels(name)[0] in handles}
        timings["findings"] = time.perf_counter() - build_start
        sizes = handles["sizes"].result() if "sizes" in handles else None
    say(f"cache: {stage.hits} pieces reused, {stage.runs} computed")
    found: list[Finding] = []
    if options.measure:
        from .findings import nlo_finding

        found = [nlo_finding(measured), *(checks[name] for name in FINDINGS_CHECKS)]

    statements = _statements(verdicts, paper, measured, sizes)
    (folder / "claims.json").write_text(claims_document(verdicts, record, paper, measured,
                                                        found, statements, forms))
    (folder / "derivations.tex").write_text(derivations_latex(
        verdicts, record, {claim_id: e.steps for claim_id, e in extras.items()},
        label_namer(paper), {st.id: verdict_with_condition(st) for st in statements}) + "\n")
    for o in outputs:
        o.write(folder / "figures", metadata)
    # a figure's finding is evidence: shown without a verdict word or code names (readable)
    names = {label: f"({n.text})" for label, n in label_numbers(paper).items()
             if n.kind == "equation"}
    figures = [FigureView(o.name, o.title, o.caption, readable(o.verdict, names))
               for o in outputs]
    figure_findings = [f"- {o.title}: {o.verdict}" for o in outputs if o.verdict]
    # the page's summary cuts each as REPORT.md's does; the whole text is the figure's caption
    page_findings = [brief(finding, names=names) for finding in figure_findings]
    records = json.loads((folder / "claims.json").read_text())["claims"]
    mode = "quick (small sizes, few seeds)" if options.quick else "paper sizes"
    page = build_page(records=records, paper=paper, covered=covered, extras=extras,
                      figures=figures, findings=page_findings, provenance=record, mode=mode,
                      beyond_paper=findings_markdown(found) if found else "",
                      cause_sizes={c.id: cause_size(c) for c in causes(statements, verdicts)})
    (folder / "index.html").write_text(page)
    (folder / "REPORT.md").write_text(landing_markdown(
        verdicts, paper, covered, measured, figure_findings, records, options, record,
        found=found, statements=statements))
    timings["total"] = time.perf_counter() - build_start
    if store is not None:
        remember_costs(store, stage.cpu, options.quick)
        store.put(pages_key, {"files": _read_outputs(folder), "pieces": stage.hits + stage.runs})
    _write_build_info(folder, timings, stage.cpu, stage.hits, options)


def _write_build_info(folder: Path, timings: dict[str, float], cpu: dict[str, float],
                      reused: int, options: ReportOptions, pages_reused: bool = False) -> None:
    """build-info.json: the build's timings (the only output that differs between builds)."""
    info = {"seconds": {k: round(v, 2) for k, v in timings.items()},
            "cpu_seconds_per_piece": cpu, "cpu_seconds_total": round(sum(cpu.values()), 2),
            "pieces_reused": reused, "pages_reused": pages_reused,
            "workers": options.workers, "dask": options.dask}
    (folder / "build-info.json").write_text(json.dumps(info, indent=2) + "\n")


def _read_outputs(folder: Path) -> dict[str, bytes]:
    """Every output written into ``folder`` (build-info.json aside), by relative path."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != "build-info.json"}


def _write_outputs(folder: Path, files: dict[str, bytes]) -> None:
    """Write what :func:`_read_outputs` read back into ``folder``."""
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


LANDING_LIMIT = 40_000
"""REPORT.md's budget in bytes: a landing page, the full record is index.html."""


def errata_by_cause_markdown(records: Sequence[dict[str, Any]], ranked: Sequence[Cause] = ()
                             ) -> str:
    """The errata grouped by root cause (``cause``; one group per claim where there is none),
    in the order of ``ranked`` (the causes as claims.json and the summary rank them), otherwise
    ranked by size at the paper's sizes, each line linking to its card in index.html. The
    causes of the network experiment (:attr:`Cause.network`: sized in its test error) are
    listed apart, after those of the linear model."""
    from .html.cards import WRONG, size_text, size_value, verdict_word

    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("headline") and verdict_word(r) in WRONG:
            groups.setdefault(str(r.get("cause") or r["id"]), []).append(r)

    order = [c.id for c in ranked]
    network_causes = {c.id for c in ranked if c.network}

    def rank(group: list[dict[str, Any]]) -> tuple[int, float, int]:
        cause = str(group[0].get("cause") or group[0]["id"])
        sizes = [v for v in (size_value(r) for r in group) if v is not None]
        return (list(order).index(cause) if cause in order else len(order),
                -max(sizes) if sizes else float("inf"), min(int(r["line"]) for r in group))

    def network(group: list[dict[str, Any]]) -> bool:  # sized in test error: another unit
        return str(group[0].get("cause") or group[0]["id"]) in network_causes

    def listed(chosen: list[list[dict[str, Any]]]) -> list[str]:
        out = []
        for n, group in enumerate(sorted(chosen, key=rank), 1):
            out.append(f"{n}. **{group[0].get('cause') or group[0]['id']}**")
            for r in sorted(group, key=lambda r: r["line"]):
                size = size_text(r)
                out.append(f"   - [line {r['line']}](index.html#line-{r['line']}) "
                           f"({r.get('place', '')}): `{r['id']}`" + (f"; size {size}" if size
                                                                    else ""))
        return out

    linear = [g for g in groups.values() if not network(g)]
    lines = listed(linear) if linear else ["No statement of the paper is wrong in Delta eps."]
    every_misprint = [r for r in records if r.get("headline") and verdict_word(r) == "misprint"]
    misprints = [r for r in every_misprint if not network([r])]
    if misprints:
        lines += ["", "Misprints (typos in a step whose stated result is right; listed by "
                  "size, counted apart from the errata):", ""]
        for r in sorted(misprints, key=lambda r: rank([r])):  # by size, as claims.json
            size = size_text(r)
            lines.append(f"- **{r.get('cause') or r['id']}**: [line {r['line']}]"
                         f"(index.html#line-{r['line']}): `{r['id']}`"
                         + (f"; size {size}" if size else ""))
    measured_wrong = [g for g in groups.values() if network(g)]
    measured_misprints = [r for r in every_misprint if network([r])]
    if measured_wrong or measured_misprints:
        lines += ["", "The network experiment's errata, then its misprints (sized in its test "
                  "error, not ranked with the above):", "", *listed(measured_wrong)]
        for r in sorted(measured_misprints, key=lambda r: rank([r])):
            size = size_text(r)
            lines.append(f"- **{r.get('cause') or r['id']}** (misprint): [line {r['line']}]"
                         f"(index.html#line-{r['line']}): `{r['id']}`"
                         + (f"; size {size}" if size else ""))
    return "\n".join(lines) + "\n"


def landing_markdown(verdicts: Sequence[Verdict], paper: Paper,
                     covered: Sequence[CoveredStatement],
                     measured: dict[str, MeasuredVerdict], findings: Sequence[str],
                     records: Sequence[dict[str, Any]], options: ReportOptions,
                     record: dict[str, Any], found: Sequence[Finding] = (),
                     statements: Optional[Sequence[StatementVerdict]] = None) -> str:
    """REPORT.md, the landing page: the verdicts' definitions, the summary, the errata by cause
    (each linking to its card in index.html), the findings beyond the paper, provenance; at most :data:`LANDING_LIMIT` bytes (a summary too long for
    it is cut at a line with a pointer to index.html)."""
    head = ("# tasksim report\n\n"
            "The full record, one card per statement of the paper in its order with the verdict, "
            "the size at the paper's sizes and the evidence, is **[index.html](index.html)** "
            "(link a statement by its line: `index.html#line-1265`); the machine-readable "
            "registry is `claims.json`, the derivations `derivations.tex`, the figures and "
            "their data (CSV) `figures/`.\n")
    head += "\n" + definitions_markdown()
    ranked = causes(statements, verdicts) if statements is not None else []
    errata = label_namer(paper)(errata_by_cause_markdown(records, ranked))
    tail = "\n".join(["## Errata by cause\n", errata,
                      "## Findings beyond the paper\n", findings_markdown(found),
                      "## Provenance\n", _provenance(options, record)])
    summary = summary_markdown(verdicts, paper, covered, measured, list(findings), found,
                               statements)
    budget = LANDING_LIMIT - len((head + tail).encode()) - 400
    if len(summary.encode()) > budget:
        kept = summary.encode()[:budget].decode(errors="ignore").rsplit("\n", 1)[0]
        summary = kept + "\n\n(The summary continues in [index.html](index.html).)\n"
    return "\n".join([head, "## Summary\n", summary, tail])
