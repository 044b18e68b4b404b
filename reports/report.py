"""Build the derivation report: ``tasksim report`` writes it into ``reports/``.

What it writes (all regenerated from the toolkit, nothing typed in):

``REPORT.md``         the claims table with computed statuses, the errata with their
                      corrections, every derivation step in LaTeX, the figures and the
                      finite-size plots, and provenance (versions, seeds, parameters);
``claims.json``       the machine-readable registry: ``{"provenance": {...}, "claims": [...]}``,
                      one object per claim (id, where, printed, derived, status, note, ...);
``derivations.tex``   a LaTeX fragment with every derivation's steps;
``figures/*.png``     the regenerated figures;
``build-info.json``   timings of this build (the only output that changes between builds).

Same inputs, same bytes: everything but ``build-info.json`` is deterministic (seeded sweeps,
sorted records, PNGs written without timestamps). Every output records its provenance
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
import platform
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import sympy as sp

from tasksim.derivations.claims import STATUSES, Verdict
from tasksim.derivations.registry import evaluate_all

from tasksim.derivations.sizes import Size, size_at_paper_sizes

from .provenance import provenance

__all__ = ["ReportOptions", "build_report", "claims_markdown", "claims_document",
           "derivations_latex", "OUTPUTS"]

OUTPUTS = ("claims.json", "derivations.tex", "figures", "build-info.json", "REPORT.md")
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

    def command_line(self) -> str:
        if self.command is not None:
            return self.command
        words = ["tasksim", "report", "--out", str(self.out_dir), "--seed", str(self.seed)]
        words += ["--quick"] if self.quick else []
        words += [] if self.figures else ["--no-figures"]
        return " ".join(words)

    def provenance(self) -> dict[str, Any]:
        return provenance(seed=self.seed, command=self.command_line())


def _escape_cell(text: str) -> str:
    return text.replace("|", r"\|").replace("\n", " ")


def _math(latex: str) -> str:
    return f"${_escape_cell(latex)}$" if latex else ""


LARGE_LATEX = 4000
"""Expressions longer than this many characters of LaTeX (the error matrices of long task
sequences) are named, not shown, in REPORT.md; claims.json and derivations.tex hold them."""


def _shown(latex: str, where: str) -> str:
    """``latex`` in REPORT.md, or a pointer to ``where`` when it is too long to read there."""
    if len(latex) <= LARGE_LATEX:
        return latex
    return rf"\text{{({len(latex)} characters of LaTeX: see {where})}}"


def claims_markdown(verdicts: Sequence[Verdict]) -> str:
    """The claims table and a count per status, as Markdown."""
    lines = [
        "| id | where | status | printed | derived | note |",
        "|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        r = v.as_record()
        lines.append(
            f"| `{r['id']}` | {_escape_cell(r['where'])} | **{r['status']}** | "
            f"{_math(r['printed'])} | {_math(_shown(r['derived'], 'claims.json'))} | "
            f"{_escape_cell(r['note'])} |"
        )
    counts = {s: sum(v.status == s for v in verdicts) for s in STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    return "\n".join(lines) + f"\n\n{len(verdicts)} claims: {summary}.\n"


SECTIONS = (
    ("vanilla", "Sec. 4, vanilla model (transfer and retention)"),
    ("gating", "Sec. 5.1-5.2, activity gating (Appendix B.1)"),
    ("phase_diagram", "Sec. 5.1, phases of the gating level (Fig. 7)"),
    ("averages", "Sec. 5, averages over a uniform prior (Appendix B.1)"),
    ("plasticity", "Sec. 5.3, plasticity gating (Appendix B.2)"),
    ("soft_threshold", "Sec. 5.3, input soft-thresholding (Appendix B.3)"),
    ("euclidean", "Sec. 6.1, Euclidean weight regularization (Appendix C.1)"),
    ("fisher", "Sec. 6.2, Fisher-metric regularization (Appendix C.2)"),
    ("tall", "Appendix D, very tall random matrices"),
    ("sequences", "Appendix A, sequences of K tasks (beyond the paper's two)"),
)
"""The part of the paper each registry module's claims belong to (by claim-id prefix)."""


def _section(claim_id: str) -> str:
    prefix = claim_id.split(".")[0]
    return dict(SECTIONS).get(prefix, prefix)


def _difference_size(v: Verdict) -> Optional[Size]:
    """How far the printed form is from the derived one at the paper's sizes."""
    if v.status == "leading order" and v.correction is not None:
        return size_at_paper_sizes(v.correction)
    if v.status == "erratum" and isinstance(v.claim.printed, sp.Expr) and isinstance(
            v.derived, sp.Expr):
        return size_at_paper_sizes(v.derived - v.claim.printed)
    return None


def _size_phrase(size: Optional[Size]) -> str:
    return "no numeric size (not a scalar formula)" if size is None else f"up to {size}"


def summary_markdown(verdicts: Sequence[Verdict]) -> str:
    """The report's first screen: counts by status per part of the paper, every erratum in one
    line, the leading-order statements ranked by the size of their correction at the paper's
    sizes (Nx = 3000, Ns = 30, Ny = 10; :mod:`tasksim.derivations.sizes`)."""
    order = [title for _, title in SECTIONS]
    counts: dict[str, dict[str, int]] = {}
    for v in verdicts:
        row = counts.setdefault(_section(v.claim.id), {s: 0 for s in STATUSES})
        row[v.status] += 1
    lines = ["| part of the paper | " + " | ".join(STATUSES) + " |",
             "|---|" + "---|" * len(STATUSES)]
    for title in sorted(counts, key=lambda t: (order.index(t) if t in order else len(order), t)):
        lines.append(f"| {title} | " + " | ".join(str(counts[title][s]) for s in STATUSES)
                     + " |")
    totals = {s: sum(v.status == s for v in verdicts) for s in STATUSES}
    lines.append("| **all** | " + " | ".join(f"**{totals[s]}**" for s in STATUSES) + " |")

    sized = [(v, _difference_size(v)) for v in verdicts if v.status in ("erratum",
                                                                        "leading order")]
    by_size = sorted(sized, key=lambda vs: -(vs[1].value if vs[1] else -1.0))
    errata = [
        f"- `{v.claim.id}` ({_escape_cell(v.claim.where)}): printed {_math(v.claim.printed_latex)}, "
        f"derived {_math(sp.latex(v.derived)) if v.derived is not None else '(none)'}; "
        f"{_size_phrase(size)}"
        for v, size in by_size if v.status == "erratum"]
    leading = [
        f"- `{v.claim.id}` ({_escape_cell(v.claim.where)}): correction {_size_phrase(size)}"
        for v, size in by_size if v.status == "leading order"]
    return "\n".join([
        f"{len(verdicts)} claims of the paper, each with a computed status.\n",
        *lines, "",
        f"**Errata ({len(errata)})**, ranked by how far the printed form is from the derived "
        "one at the paper's sizes (Nx = 3000, Ns = 30, Ny = 10), maximised over the "
        "parameters' domains:\n",
        *(errata or ["none"]), "",
        f"**Leading order only ({len(leading)})**: statements that hold as Ns/Nx -> 0; the "
        "size of the finite-size correction at the paper's sizes:\n",
        *(leading or ["none"]), "",
    ])


def claims_document(verdicts: Sequence[Verdict], record: dict[str, Any]) -> str:
    """``claims.json``: ``{"provenance": record, "claims": [one record per claim]}``."""
    document = {"provenance": record, "claims": [v.as_record() for v in verdicts]}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def errata_markdown(verdicts: Sequence[Verdict]) -> str:
    """One paragraph per erratum: where, as printed, as derived, and what is wrong."""
    parts = []
    for v in verdicts:
        if v.status != "erratum":
            continue
        r = v.as_record()
        parts.append(
            f"### `{r['id']}` ({r['where']})\n\n"
            f"As printed:\n\n$$ {r['printed']} $$\n\n"
            f"As derived (the correction):\n\n$$ {r['derived']} $$\n\n"
            f"{r['note']}\n"
        )
    return "\n".join(parts) if parts else "No erratum found.\n"


def _steps(v: Verdict) -> list[tuple[str, str, str]]:
    if v.derivation is None:
        return []
    return [(s.name, sp.latex(s.expr), s.note) for s in v.derivation.steps]


def derivations_markdown(verdicts: Sequence[Verdict]) -> str:
    """Every derivation's named steps, in order, as Markdown with display LaTeX."""
    parts = []
    for v in verdicts:
        steps = _steps(v)
        if not steps:
            continue
        body = "\n".join(
            f"{i}. **{name}**{': ' + note if note else ''}\n\n"
            f"   $$ {_shown(latex, 'derivations.tex')} $$\n"
            for i, (name, latex, note) in enumerate(steps, 1)
        )
        parts.append(f"### `{v.claim.id}`\n\n{body}")
    return "\n".join(parts)


def derivations_latex(verdicts: Sequence[Verdict], record: Optional[dict[str, Any]] = None) -> str:
    """A LaTeX fragment (no preamble) with every derivation's steps; ``record`` (provenance)
    goes into its header comment."""
    out = ["% Generated by `tasksim report`; do not edit."]
    if record is not None:
        out += [f"% {key}: {value}" for key, value in record.items()]
    out.append("")
    for v in verdicts:
        steps = _steps(v)
        if not steps:
            continue
        out.append(f"\\paragraph{{{v.claim.id.replace('_', chr(92) + '_')}}} "
                   f"Status: {v.status}.")
        out.append("\\begin{enumerate}")
        for name, latex, note in steps:
            safe = name.replace("_", "\\_")
            out.append(f"  \\item {safe}: \\[ {latex} \\]")
        out.append("\\end{enumerate}")
        out.append("")
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
    is interrupted.
    """
    say = progress or (lambda message: None)
    out = Path(options.out_dir)
    staging = _staging_folder(out)
    try:
        _build_into(staging, options, say)
        _move_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report = out / "REPORT.md"
    say(f"wrote {report}")
    return report


def _build_into(folder: Path, options: ReportOptions, say: Progress) -> None:
    timings: dict[str, float] = {}
    record = options.provenance()

    start = time.perf_counter()
    say("deriving every claim")
    verdicts = evaluate_all()
    timings["claims"] = time.perf_counter() - start

    (folder / "claims.json").write_text(claims_document(verdicts, record))
    (folder / "derivations.tex").write_text(derivations_latex(verdicts, record) + "\n")

    figure_sections: list[str] = []
    figure_findings: list[str] = []
    if options.figures:
        from .figures import build_figures

        start = time.perf_counter()
        figure_sections, figure_findings = build_figures(
            folder / "figures", quick=options.quick, seed=options.seed, progress=say,
            provenance=record)
        timings["figures"] = time.perf_counter() - start

    sections = [
        "# tasksim report\n",
        "Generated by `tasksim report`; every derived expression and every number below was "
        "computed by the toolkit from the model's definitions (see the README).\n",
        "## Summary\n",
        summary_markdown(verdicts),
        *([f"**What the measurements add** (the figures below):\n", *figure_findings, ""]
          if figure_findings else []),
        "## Claims\n",
        claims_markdown(verdicts),
        "## Errata\n",
        errata_markdown(verdicts),
        "## Figures\n",
        *(figure_sections or ["(figures not built)\n"]),
        "## Derivations\n",
        derivations_markdown(verdicts),
        "## Provenance\n",
        _provenance(options, record),
    ]
    (folder / "REPORT.md").write_text("\n".join(sections))
    (folder / "build-info.json").write_text(json.dumps({"seconds": timings}, indent=2) + "\n")
