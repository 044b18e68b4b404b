"""The report's first screen: headline verdicts only, by part of the paper; the errata one line
each (what is printed, what is true, how large the difference is at the paper's sizes, and
whether a measurement confirms the correction); the leading-order statements with their size
at Nx = 3000, Ns = 30; statements that hold except on a set; what the measurements add.

Markdown only: the numbers come from the verdicts (:mod:`tasksim.derivations.claims`), the
sizes from :mod:`tasksim.derivations.sizes`, the measured verdicts from
:mod:`tasksim.reports.measurements`, the places from :mod:`tasksim.reports.paper`.

Examples
--------
>>> from tasksim.derivations.claims import Claim, evaluate
>>> from tasksim.derivations.symbols import rho_a
>>> c = Claim("demo", "Sec. 1", rho_a, "$x = 1$", None, note="not derived", line=3,
...           headline=True)
>>> print(status_table([evaluate(c)], lambda line: "Sec. 1"))
| part of the paper | verified | leading order | erratum | open |
|---|---|---|---|---|
| Sec. 1 | 0 | 0 | 0 | 1 |
| **all** | **0** | **0** | **0** | **1** |
"""
from __future__ import annotations

import re
from typing import Callable, Mapping, Optional, Sequence

import sympy as sp

from tasksim.derivations.claims import STATUSES, Verdict
from tasksim.derivations.latex import latex
from tasksim.derivations.sizes import PAPER_SIZES, Size, size_at_paper_sizes

from .html.cards import is_prose
from .measurements import UNMEASURABLE, MeasuredVerdict

__all__ = ["difference_size", "size_phrase", "status_table", "quote_markdown", "math",
           "summary_markdown", "correction_state", "brief"]


def difference_size(v: Verdict) -> Optional[Size]:
    """How far the printed form is from the derived one at the paper's sizes (leading-order
    statements: the finite-size correction; errata: derived minus printed)."""
    if v.status == "leading order" and v.correction is not None:
        return size_at_paper_sizes(v.correction)
    if v.status == "erratum" and isinstance(v.claim.printed, sp.Expr) and isinstance(
            v.derived, sp.Expr) and not isinstance(v.derived, sp.logic.boolalg.Boolean):
        return size_at_paper_sizes(v.derived - v.claim.printed)
    return None


def size_phrase(size: Optional[Size]) -> str:
    """"up to 0.0101 at rho_a = 0" or why there is no single number."""
    if size is None:
        return "no single number (a matrix identity or a statement about a set)"
    return f"up to {size}"


def escape_cell(text: str) -> str:
    return text.replace("|", r"\|").replace("\n", " ")


def math(formula: str) -> str:
    """A formula as inline Markdown math (``$...$``); empty stays empty."""
    return f"${escape_cell(formula)}$" if formula else ""


def quote_markdown(quote: str, expand: Callable[[str], str] = lambda s: s) -> str:
    """The paper's words as printed: a bare formula as ``$...$``, prose (with its own inline
    ``$...$`` math) in quotation marks; the paper's macros expanded by ``expand``."""
    text = expand(quote)
    if is_prose(text):  # words stay words: never typeset as math
        return f"“{escape_cell(text)}”"
    return math(text)


def correction_state(v: Verdict, measured: Mapping[str, MeasuredVerdict]) -> str:
    """For an erratum: whether its derived correction is confirmed by measurement, open, or
    not measured (and why)."""
    m = measured.get(v.claim.id)
    if m is not None:
        return m.verdict
    return "not measured: " + UNMEASURABLE.get(v.claim.id, "no measurement in the report")


def status_table(verdicts: Sequence[Verdict], part_of: Callable[[int], str]) -> str:
    """Counts of headline verdicts by status and part of the paper (in order of first line)."""
    counts: dict[str, dict[str, int]] = {}
    first: dict[str, int] = {}
    for v in verdicts:
        if not v.claim.headline or v.claim.line is None:
            continue
        part = part_of(v.claim.line)
        counts.setdefault(part, {s: 0 for s in STATUSES})[v.status] += 1
        first[part] = min(first.get(part, v.claim.line), v.claim.line)
    lines = ["| part of the paper | " + " | ".join(STATUSES) + " |",
             "|---|" + "---|" * len(STATUSES)]
    for part in sorted(counts, key=lambda p: first[p]):
        lines.append(f"| {part} | " + " | ".join(str(counts[part][s]) for s in STATUSES) + " |")
    totals = {s: sum(c[s] for c in counts.values()) for s in STATUSES}
    lines.append("| **all** | " + " | ".join(f"**{totals[s]}**" for s in STATUSES) + " |")
    return "\n".join(lines)


def _where(v: Verdict, place: Callable[[int], str]) -> str:
    return f"{place(v.claim.line)}, line {v.claim.line}"


def _erratum_line(v: Verdict, size: Optional[Size], place: Callable[[int], str],
                  expand: Callable[[str], str], measured: Mapping[str, MeasuredVerdict]) -> str:
    state = correction_state(v, measured)
    head = f"- `{v.claim.id}` ({_where(v, place)}): printed {quote_markdown(v.claim.printed_latex, expand)}"
    derived = (f"it fails on a set ({escape_cell(v.exceptions)})" if v.exceptions
               else math(latex(v.derived)))
    if state == "confirmed":
        truth = f"true: {derived} (confirmed by measurement); size {size_phrase(size)}"
    else:
        truth = (f"printed form wrong, correction open: the derived correction, {derived}, is "
                 f"not confirmed ({escape_cell(_evidence(v, measured, state))}); size of the "
                 f"unconfirmed correction {size_phrase(size)}")
    condition = f"; {escape_cell(v.claim.condition)}" if v.claim.condition else ""
    return f"{head}; {truth}{condition}"


def _evidence(v: Verdict, measured: Mapping[str, MeasuredVerdict], state: str) -> str:
    """What stands against an unconfirmed correction: the measurement at its largest size, or
    why there is none."""
    m = measured.get(v.claim.id)
    if m is None:
        return state
    r = max(m.rows, key=lambda row: (row.nx, row.ns))
    printed = "" if r.printed is None else f", the printed {r.printed:.4g}"
    return (f"measured {r.mean:.4g} +- {r.sem:.2g} at Nx = {r.nx}, Ns = {r.ns} against the "
            f"derived {r.derived:.4g}{printed}; {m.what}")


def _leading_line(v: Verdict, size: Optional[Size], place: Callable[[int], str],
                  measured: Mapping[str, MeasuredVerdict]) -> str:
    condition = v.claim.condition or "Ns << Nx"
    line = (f"- `{v.claim.id}` ({_where(v, place)}): holds when {escape_cell(condition)}; "
            f"finite-size correction {size_phrase(size)}")
    m = measured.get(v.claim.id)
    if m is not None:
        line += f"; measured: {escape_cell(m.sentence())}"
    return line


BRIEF = 260
"""Characters a finding keeps on the first screen; the figure's caption has the rest."""


def brief(finding: str, limit: int = BRIEF) -> str:
    """A finding shortened for the first screen: a list of predictions ("P1 holds: ...;
    P2 partly holds: ...") keeps each prediction's outcome, anything else its first clauses up
    to ``limit`` characters; the full sentence stays in the figure's caption.

    >>> brief("- Fig. 6: permuted digits: P1 holds: t -0.8 +- 0.1; P2 partly holds: r 0.4")
    '- Fig. 6: permuted digits: P1 holds; P2 partly holds (numbers in the caption)'
    >>> brief("- Fig. 1: short.")
    '- Fig. 1: short.'
    """
    outcomes = re.findall(r"\b(P\d+ [a-z ]+?):", finding)
    if outcomes:
        head = finding[:finding.index(outcomes[0])].rstrip()
        return f"{head} {'; '.join(outcomes)} (numbers in the caption)"
    if len(finding) <= limit:
        return finding
    cut = finding.rfind("; ", 0, limit)
    cut = cut if cut > limit // 3 else finding.rfind(" ", 0, limit)
    return finding[:cut].rstrip(",;") + " ... (details below)"


def summary_markdown(verdicts: Sequence[Verdict], *, place: Callable[[int], str],
                     part_of: Callable[[int], str], expand: Callable[[str], str],
                     coverage_line: str, measured: Mapping[str, MeasuredVerdict],
                     figure_findings: Sequence[str]) -> str:
    """The first screen (module docstring). ``place`` names a line ("Sec. 5.1", "Fig. 2
    caption"), ``part_of`` its top-level part for the counts, ``expand`` expands the paper's
    macros in quotes."""
    heads = [v for v in verdicts if v.claim.headline and v.claim.line is not None]
    sized = {v.claim.id: difference_size(v) for v in heads
             if v.status in ("erratum", "leading order")}

    def rank(v: Verdict) -> float:
        size = sized.get(v.claim.id)
        return -(size.value if size else -1.0)

    errata = sorted((v for v in heads if v.status == "erratum"), key=rank)
    leading = sorted((v for v in heads if v.status == "leading order"), key=rank)
    confirmed = sum(correction_state(v, measured) == "confirmed" for v in errata)
    excepted = [v for v in heads if v.exceptions and v.status != "erratum"]
    added = [brief(f"- `{m.claim_id}`: {escape_cell(m.sentence())}")
             for claim_id, m in measured.items()
             if any(v.claim.id == claim_id and v.claim.headline and v.status == "verified"
                    for v in verdicts)]
    sizes = ", ".join(f"{k} = {v}" for k, v in PAPER_SIZES.items()).replace("N_", "N")
    return "\n".join([
        f"{coverage_line}\n",
        f"{len(heads)} headline verdicts, one per statement of the paper, judged against the "
        "model (exact derivations, exact solvers); the step-level claims under them (the "
        "paper's intermediate algebra, the other task generator, finite-N variants) are in the "
        "claims table.\n",
        status_table(verdicts, part_of), "",
        f"**Errata ({len(errata)}; correction confirmed by measurement: {confirmed}, open: "
        f"{len(errata) - confirmed})**, ranked by how far the printed form is from the derived "
        f"one at the paper's sizes ({sizes}), maximised over the parameters' domains:\n",
        *([_erratum_line(v, sized.get(v.claim.id), place, expand, measured) for v in errata]
          or ["none"]), "",
        f"**Leading order only ({len(leading)})**: statements that hold as the small parameter "
        "vanishes, with the size of the finite-size correction at the paper's sizes:\n",
        *([_leading_line(v, sized.get(v.claim.id), place, measured) for v in leading]
          or ["none"]), "",
        *([f"**Holds except on a set ({len(excepted)})**:\n",
           *[f"- `{v.claim.id}` ({_where(v, place)}): {escape_cell(v.exceptions)}"
             for v in excepted], ""] if excepted else []),
        "**What the measurements add** (verified headlines measured with the exact solvers; "
        "the figures below):\n",
        *(added + [brief(f) for f in figure_findings] or ["none"]), "",
    ])
