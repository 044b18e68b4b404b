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
``figures/*.png``     the regenerated figures, each with ``figures/*.csv``, its plotted numbers;
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
import os
import re
import platform
import shutil
import tempfile
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import sympy as sp

from tasksim.derivations.claims import STATUSES, Verdict
from tasksim.derivations.latex import latex
from tasksim.derivations.registry import evaluate_all
from tasksim.derivations.scope import OUT_OF_SCOPE

from tasksim.solvers.executors import open_executor

from .formulas import reader_form, short_difference
from .html.cards import ClaimExtras, FigureView
from .html.page import build_page
from .measurements import MeasuredVerdict
from .paper import Paper, load_paper
from .provenance import png_metadata, provenance
from .report_cache import KeyedStore, code_version
from .report_jobs import (FigureOutput, claim_count, claims_job, figure_job, figure_names,
                          measurement_ids, measurement_job, picklable, timed)
from .statements import CoveredStatement, coverage, coverage_counts
from .summary import (correction_state, difference_size, escape_cell, math, quote_markdown,
                      size_phrase)
from .summary import summary_markdown as _headline_summary

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
        return provenance(seed=self.seed, command=self.command_line())


def _identity(text: str) -> str:
    return text


LARGE_LATEX = 4000
"""Expressions longer than this many characters of LaTeX (the error matrices of long task
sequences) are named, not shown, in REPORT.md; claims.json and derivations.tex hold them."""


def _shown(formula: str, where: str) -> str:
    """``formula`` in REPORT.md, or a pointer to ``where`` when it is too long to read there."""
    if len(formula) <= LARGE_LATEX:
        return formula
    return rf"\text{{({len(formula)} characters of LaTeX: see {where})}}"


def claims_markdown(verdicts: Sequence[Verdict], paper: Optional[Paper] = None,
                    measured: Optional[dict[str, MeasuredVerdict]] = None) -> str:
    """The claims table (headline verdicts in bold; the measured verdict, if any, with the
    note) and a count per status, as Markdown."""
    measured = measured or {}
    place = (lambda line: paper.place(line)) if paper is not None else (lambda line: "")
    expand = paper.expand_macros if paper is not None else _identity
    lines = [
        "| id | line | where | verdict | printed (verbatim) | derived | condition; note |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        c = v.claim
        name = f"**`{c.id}`**" if c.headline else f"`{c.id}`"
        kind = f"**{v.status}**" if c.headline else f"{v.status} (step)"
        derived = "" if v.derived is None else math(_shown(latex(v.derived), "claims.json"))
        m = measured.get(c.id)
        detail = "; ".join(x for x in (c.condition, v.exceptions and
                                       f"fails on: {v.exceptions}", v.note,
                                       m and f"measured: {m.verdict} (Measurements)") if x)
        line = "" if c.line is None else str(c.line)
        lines.append(f"| {name} | {line} | {escape_cell(place(c.line) if c.line else c.where)} "
                     f"| {kind} | {quote_markdown(c.printed_latex, expand)} | {derived} | "
                     f"{escape_cell(detail)} |")
    counts = {s: sum(v.status == s for v in verdicts) for s in STATUSES}
    heads = {s: sum(v.status == s for v in verdicts if v.claim.headline) for s in STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    head_summary = ", ".join(f"{n} {s}" for s, n in heads.items())
    return ("\n".join(lines) + f"\n\n{len(verdicts)} claims: {summary}; of them "
            f"{sum(heads.values())} headline verdicts: {head_summary}.\n")


def summary_markdown(verdicts: Sequence[Verdict], paper: Paper,
                     covered: Sequence[CoveredStatement],
                     measured: Optional[dict[str, MeasuredVerdict]] = None,
                     figure_findings: Sequence[str] = ()) -> str:
    """The report's first screen (:func:`tasksim.reports.summary.summary_markdown`)."""
    return _headline_summary(
        verdicts, place=paper.place, part_of=lambda line: _part(paper, line),
        expand=paper.expand_macros, coverage_line=coverage_sentence(covered),
        measured=measured or {}, figure_findings=figure_findings)


def _part(paper: Paper, line: int) -> str:
    section = paper.section_of(line)
    top = next((s for s in paper.sections if s.name == section.top), section)
    return f"{top.name} {top.title}" if top.name != top.title else top.name


def coverage_sentence(covered: Sequence[CoveredStatement]) -> str:
    """One sentence with the coverage counts."""
    c = coverage_counts(covered)
    share = c["claimed"] / c["found"] if c["found"] else 0.0
    return (f"**Coverage.** {c['found']} statements found in the paper's source "
            f"({c['equations']} labelled equations, {c['found'] - c['equations']} quantitative "
            f"sentences): {c['claimed']} claimed ({share:.1%}), {c['out of scope']} out of "
            f"scope with a stated reason, {c['missing']} missing.")


def coverage_markdown(covered: Sequence[CoveredStatement], paper: Paper) -> str:
    """The coverage: the counts, what is out of scope and why, and every statement with the
    claims that answer it (headline first)."""
    lines = [coverage_sentence(covered), "",
             "How statements are found: every labelled equation (`\\label{eq_...}`) and every "
             "prose sentence with an asserting relation in its math or a quantitative word "
             "(`reports/paper.py`); definitions, settings and the related-work section are not "
             "statements.", "", "Out of scope:", ""]
    lines += [f"- line {c.statement.line} ({paper.place(c.statement.line)}): "
              f"{escape_cell(c.out_of_scope)}" for c in covered if c.state == "out of scope"]
    lines += ["", "| line | where | kind | headline verdicts | other claims |",
              "|---|---|---|---|---|"]
    for c in covered:
        others = [i for i in c.claimed_by if i not in c.headlines]
        kind = c.statement.label or c.statement.kind
        heads = ", ".join(f"`{i}`" for i in c.headlines) or (
            "out of scope" if c.state == "out of scope" else "**missing**")
        lines.append(f"| {c.statement.line} | {paper.place(c.statement.line)} | "
                     f"{escape_cell(kind)} | {heads} | "
                     f"{', '.join(f'`{i}`' for i in others)} |")
    return "\n".join(lines) + "\n"


def claim_records(verdicts: Sequence[Verdict], paper: Optional[Paper] = None,
                  measured: Optional[dict[str, MeasuredVerdict]] = None) -> list[dict[str, Any]]:
    """One record per claim: :meth:`Verdict.as_record` plus ``place`` (the part of the paper
    its line stands in), ``reading`` (how the claim reads the quote, LaTeX), ``size`` (leading
    order and errata: the largest difference at the paper's sizes), ``correction`` (errata:
    confirmed, open or not measured) and ``measured`` (when measured)."""
    records = []
    measured = measured or {}
    for v in verdicts:
        r = v.as_record()
        c = v.claim
        r["place"] = paper.place(c.line) if paper is not None and c.line else ""
        r["reading"] = latex(c.printed) if c.printed is not None else ""
        size = difference_size(v) if v.status in ("erratum", "leading order") else None
        r["size"] = None if size is None else {"value": float(f"{size.value:.6g}"),
                                               "at": size.point}
        if v.status == "erratum":
            r["correction"] = correction_state(v, measured)
        if v.claim.id in measured:
            r["measured"] = measured[v.claim.id].as_record()
        records.append(r)
    return records


def claims_document(verdicts: Sequence[Verdict], record: dict[str, Any],
                    paper: Optional[Paper] = None,
                    measured: Optional[dict[str, MeasuredVerdict]] = None) -> str:
    """``claims.json``: ``{"provenance": record, "claims": [one record per claim]}``
    (:func:`claim_records`; without a paper, ``place`` is empty)."""
    document = {"provenance": record, "claims": claim_records(verdicts, paper, measured)}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def errata_markdown(verdicts: Sequence[Verdict], paper: Optional[Paper] = None,
                    measured: Optional[dict[str, MeasuredVerdict]] = None) -> str:
    """One paragraph per erratum (headline and step): where, as printed, as derived, what is
    wrong, and whether a measurement confirms the correction."""
    expand = paper.expand_macros if paper is not None else _identity
    measured = measured or {}
    parts = []
    for v in verdicts:
        if v.status != "erratum":
            continue
        c = v.claim
        kind = "headline" if c.headline else "step"
        where = f"{paper.place(c.line)}, line {c.line}" if paper is not None and c.line else \
            c.where
        state = correction_state(v, measured)
        label = ("the correction, confirmed by measurement" if state == "confirmed" else
                 "printed form wrong, correction open: the derived correction is not "
                 "confirmed by measurement")
        m = measured.get(c.id)
        parts.append(
            f"### `{c.id}` ({where}; {kind})\n\n"
            f"As printed: {quote_markdown(c.printed_latex, expand)}\n\n"
            + (f"Read as:\n\n$$ {latex(c.printed)} $$\n\n" if c.printed is not None else "")
            + f"As derived ({label}):\n\n$$ {latex(v.derived)} $$\n\n"
            f"{escape_cell(v.note)}\n\n"
            f"Measurement: {escape_cell(m.sentence()) if m else state}.\n"
        )
    return "\n".join(parts) if parts else "No erratum found.\n"


def measurements_markdown(measured: dict[str, MeasuredVerdict]) -> str:
    """Every measured verdict: claim, verdict, what was measured, the numbers per size."""
    if not measured:
        return "(measurements not run: `tasksim report --no-measurements`)\n"
    lines = ["| claim | measured verdict | what, and the numbers at each size |", "|---|---|---|"]
    for claim_id, m in measured.items():
        numbers = "; ".join(
            f"Nx = {r.nx}, Ns = {r.ns}: {r.mean:.4g} +- {r.sem:.2g} (n = {r.n})"
            + (f", printed {r.printed:.4g}" if r.printed is not None else "")
            + f", derived {r.derived:.4g}" for r in m.rows)
        lines.append(f"| `{claim_id}` | {m.verdict} | {escape_cell(m.what)}; {numbers} |")
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


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                "#": r"\#", "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}"}
_TEX_INLINE = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)


def tex_text(text: str) -> str:
    """Words for LaTeX's text mode: its own ``$...$`` math kept, every other special character
    escaped, so a note or a step's name never puts ``^`` or ``_`` outside math.

    >>> print(tex_text("c_1 = $x^2$ & 50%"))
    c\\_1 = $x^2$ \\& 50\\%
    """
    out, last = [], 0
    for m in _TEX_INLINE.finditer(text):
        out.append("".join(_TEX_SPECIAL.get(ch, ch) for ch in text[last:m.start()]))
        out.append(f"${m.group(1)}$")
        last = m.end()
    out.append("".join(_TEX_SPECIAL.get(ch, ch) for ch in text[last:]))
    return "".join(out)


TEX_PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=1.8cm]{geometry}
\usepackage{amsmath,amssymb}
\setcounter{MaxMatrixCols}{40}
\allowdisplaybreaks
\sloppy
\title{tasksim: the derivations of every claim}
\date{}
\begin{document}
\maketitle
"""


def derivations_latex(verdicts: Sequence[Verdict], record: Optional[dict[str, Any]] = None) -> str:
    """A LaTeX document (compiles with pdflatex) with every derivation's steps; ``record``
    (provenance) goes into its header comment. Formulas longer than :data:`LARGE_LATEX`
    characters are named, not typeset (claims.json holds them)."""
    out = ["% Generated by `tasksim report`; do not edit."]
    if record is not None:
        out += [f"% {key}: {value}" for key, value in record.items()]
    out.append(TEX_PREAMBLE)
    for v in verdicts:
        steps = _steps(v)
        if not steps:
            continue
        where = f" (line {v.claim.line})" if v.claim.line else ""
        out.append(f"\\paragraph{{{tex_text(v.claim.id)}}}{where} "
                   f"Status: {tex_text(str(getattr(v, 'verdict', '') or v.status))}.")
        out.append("\\begin{enumerate}")
        for name, formula, note in steps:
            shown = formula if len(formula) <= LARGE_LATEX else \
                rf"\text{{({len(formula)} characters of LaTeX: see claims.json)}}"
            text = tex_text(name) + (f" ({tex_text(note)})" if note else "")
            out.append(f"  \\item {text}: \\[ {shown} \\]")
        out.append("\\end{enumerate}")
        out.append("")
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
        return _Stored(self, full, label, self.executor.submit(timed, fn, *args))

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


def _extras(verdicts: Sequence[Verdict]) -> dict[str, ClaimExtras]:
    """What the page shows beyond the records: derived expressions in reader form, their short
    difference from the print, the derivation steps."""
    out = {}
    for v in verdicts:
        derived, printed = v.derived, v.claim.printed
        reader = reader_form(derived, printed) if derived is not None else ""
        difference = short_difference(derived, printed) if v.claim.headline else ""
        out[v.claim.id] = ClaimExtras(reader, difference, tuple(_steps(v)))
    return out


def _claims_with_extras(start: int, stop: int) -> tuple[list[Any], dict[str, ClaimExtras]]:
    verdicts = claims_job(start, stop)
    return verdicts, _extras(verdicts)


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    edges = [round(i * n / parts) for i in range(parts + 1)]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]


def _build_into(folder: Path, options: ReportOptions, paper: Paper, say: Progress) -> None:
    timings: dict[str, float] = {}
    record = options.provenance()
    store = KeyedStore(options.cache) if options.cache is not None else None
    start = time.perf_counter()
    parallel = options.workers > 1 or options.dask is not None
    metadata = png_metadata(record)
    with open_executor(workers=options.workers, dask=options.dask) as executor:
        stage = _Stage(executor, store, code_version() if store is not None else "", say)
        figures_wanted = figure_names() if options.figures else []
        figure_handles = [stage.submit(["figure", name, options.quick, options.seed],
                                       f"figure {name}", figure_job, name, options.quick,
                                       options.seed) for name in figures_wanted]
        ids = measurement_ids() if options.measure else []
        measure_handles = [stage.submit(["measurement", claim_id, options.quick, options.seed],
                                        f"measurement {claim_id}", measurement_job, i,
                                        options.quick, options.seed)
                           for i, claim_id in enumerate(ids)]
        say("deriving every claim")
        if parallel:
            n = claim_count()
            handles = [stage.submit(["claims", a, b], f"claims {a}-{b}", _claims_with_extras,
                                    a, b) for a, b in _chunks(n, 8)]
            verdicts, extras = [], {}
            for h in handles:
                chunk, more = h.result()
                verdicts += chunk
                extras.update(more)
        else:
            key = [stage.version, "claims", "all"]
            value = store.get(key) if store is not None else None
            if value is None:
                cpu = time.process_time()
                every = evaluate_all()
                value = ([picklable(v) for v in every], _extras(every))
                stage.cpu["claims"] = round(time.process_time() - cpu, 2)
                if store is not None:
                    store.put(key, value)
            verdicts, extras = value
        covered = coverage(paper, [v.claim for v in verdicts], OUT_OF_SCOPE)
        timings["claims"] = time.perf_counter() - start
        measured: dict[str, MeasuredVerdict] = dict(h.result() for h in measure_handles)
        timings["measurements"] = time.perf_counter() - start
        outputs: list[FigureOutput] = [o for h in figure_handles for o in h.result()]
        timings["figures"] = time.perf_counter() - start
    say(f"cache: {stage.hits} pieces reused, {stage.runs} computed")

    (folder / "claims.json").write_text(claims_document(verdicts, record, paper, measured))
    (folder / "derivations.tex").write_text(derivations_latex(verdicts, record) + "\n")
    for o in outputs:
        o.write(folder / "figures", metadata)
    figures = [FigureView(o.name, o.title, o.caption, o.verdict) for o in outputs]
    findings = [f"- {o.title}: {o.verdict}" for o in outputs if o.verdict]
    records = json.loads((folder / "claims.json").read_text())["claims"]
    mode = "quick (small sizes, few seeds)" if options.quick else "paper sizes"
    page = build_page(records=records, paper=paper, covered=covered, extras=extras,
                      figures=figures, findings=findings, provenance=record, mode=mode)
    (folder / "index.html").write_text(page)
    (folder / "REPORT.md").write_text(landing_markdown(
        verdicts, paper, covered, measured, findings, records, options, record))
    timings["total"] = time.perf_counter() - start
    info = {"seconds": timings, "cpu_seconds_per_piece": stage.cpu,
            "cpu_seconds_total": round(sum(stage.cpu.values()), 2),
            "pieces_reused": stage.hits, "workers": options.workers, "dask": options.dask}
    (folder / "build-info.json").write_text(json.dumps(info, indent=2) + "\n")


LANDING_LIMIT = 40_000
"""REPORT.md's budget in bytes: a landing page, the full record is index.html."""


def errata_by_cause_markdown(records: Sequence[dict[str, Any]]) -> str:
    """The errata grouped by root cause (``cause``; one group per claim where there is none),
    ranked by size at the paper's sizes, each line linking to its card in index.html."""
    from .html.cards import WRONG, size_text, size_value, verdict_word

    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("headline") and verdict_word(r) in WRONG:
            groups.setdefault(str(r.get("cause") or r["id"]), []).append(r)

    def rank(group: list[dict[str, Any]]) -> tuple[float, int]:
        sizes = [v for v in (size_value(r) for r in group) if v is not None]
        return (-max(sizes) if sizes else float("inf"), min(int(r["line"]) for r in group))

    if not groups:
        return "No statement of the paper is wrong.\n"
    lines = []
    for n, group in enumerate(sorted(groups.values(), key=rank), 1):
        cause = group[0].get("cause") or group[0]["id"]
        lines.append(f"{n}. **{cause}**")
        for r in sorted(group, key=lambda r: r["line"]):
            size = size_text(r)
            lines.append(f"   - [line {r['line']}](index.html#line-{r['line']}) "
                         f"({r.get('place', '')}): `{r['id']}`" + (f"; size {size}" if size
                                                                  else ""))
    misprints = [r for r in records if r.get("headline") and verdict_word(r) == "misprint"]
    if misprints:
        lines += ["", "Misprints (typos in a step whose stated result is right; not ranked):", ""]
        lines += [f"- [line {r['line']}](index.html#line-{r['line']}): `{r['id']}`"
                  for r in misprints]
    return "\n".join(lines) + "\n"


def landing_markdown(verdicts: Sequence[Verdict], paper: Paper,
                     covered: Sequence[CoveredStatement],
                     measured: dict[str, MeasuredVerdict], findings: Sequence[str],
                     records: Sequence[dict[str, Any]], options: ReportOptions,
                     record: dict[str, Any]) -> str:
    """REPORT.md, the landing page: the summary, the errata by cause (each linking to its card
    in index.html), provenance; at most :data:`LANDING_LIMIT` bytes (a summary too long for
    it is cut at a line with a pointer to index.html)."""
    head = ("# tasksim report\n\n"
            "The full record, one card per statement of the paper in its order with the verdict, "
            "the size at the paper's sizes and the evidence, is **[index.html](index.html)** "
            "(link a statement by its line: `index.html#line-1265`); the machine-readable "
            "registry is `claims.json`, the derivations `derivations.tex`, the figures and "
            "their data (CSV) `figures/`.\n")
    tail = "\n".join(["## Errata by cause\n", errata_by_cause_markdown(records),
                      "## Provenance\n", _provenance(options, record)])
    summary = summary_markdown(verdicts, paper, covered, measured, list(findings))
    budget = LANDING_LIMIT - len((head + tail).encode()) - 400
    if len(summary.encode()) > budget:
        kept = summary.encode()[:budget].decode(errors="ignore").rsplit("\n", 1)[0]
        summary = kept + "\n\n(The summary continues in [index.html](index.html).)\n"
    return "\n".join([head, "## Summary\n", summary, tail])
