"""The page's content as plain data: one card per statement of the paper, in the paper's order,
and the summary above them. Pure functions of the claim records (``claims.json``'s
``claims``), the statement index and the figures; :mod:`tasksim.reports.html.page` renders them.

A card is keyed by its line (``id="line-1265"``; a second statement on the same line gets
``line-1265-2``). It shows the paper's words at that line, each headline claim's verdict word
with its size and condition, and the evidence, folded: the derived expression (in the form a
reader compares, :func:`tasksim.reports.formulas.reader_form`), the derivation's steps, the
paper's intermediate algebra (step claims, which carry no verdict word of their own), the
measurements and the figures whose captions cite the claim.

Verdict words are read from the records: ``verdict`` (the registry's vocabulary, DESIGN.md),
else the older ``status``. Sizes: ``size_at_paper_sizes`` with ``observable`` (or
``size_reason`` when null), else the older ``size``.

Examples
--------
>>> r = {"id": "demo", "line": 3, "headline": True, "printed": "$x = 1$", "status": "open",
...      "verdict": "not decided", "size_at_paper_sizes": None, "size_reason": "no model"}
>>> verdict_word(r), size_text(r)
('not decided', 'no model')
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from .mathml import formula_html, markdown_html, prose_html

__all__ = ["StatementRow", "ClaimExtras", "FigureView", "Card", "ClaimView", "Summary",
           "verdict_word", "size_value", "size_text", "build_cards", "build_summary",
           "VERDICTS", "WRONG"]

VERDICTS = ("exact", "holds in the stated limit", "holds under a stronger condition", "wrong",
            "misprint", "not decided")
"""The registry's verdict words, in the order the page lists them (DESIGN.md)."""

WRONG = ("wrong", "erratum")
"""Verdict words of an erratum (the second is the older registry's)."""

Record = Mapping[str, Any]
Expand = Callable[[str], str]


@dataclass(frozen=True)
class StatementRow:
    """One statement of the paper's index: its lines, clause, kind, the verbatim text, where it
    stands, why it is out of scope (empty when in scope) and the claims that answer it."""

    line: int
    end: int
    kind: str
    quote: str
    place: str
    part: str
    clause: int = 1
    out_of_scope: str = ""
    claim_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClaimExtras:
    """What the build knows beyond a claim's record: the derived expression in reader form,
    its short difference from the print, the derivation's steps (name, LaTeX, note)."""

    reader: str = ""
    difference: str = ""
    steps: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class FigureView:
    """A figure of the report: file stem, title, caption (Markdown) and its verdict sentence."""

    name: str
    title: str
    caption: str
    verdict: str = ""

    def cites(self) -> set[str]:
        """The claim ids its caption names (in backticks)."""
        return set(re.findall(r"`([A-Za-z0-9_.\[\]+-]+)`", self.caption + " " + self.verdict))


@dataclass
class ClaimView:
    """One claim as the card shows it (HTML fragments are already rendered)."""

    id: str
    headline: bool
    verdict: str
    size: str
    condition: str
    note: str
    printed: str
    derived: str
    difference: str
    steps: list[tuple[str, str, str]]
    measured: list[dict[str, str]]
    measured_what: str
    confirmation: str
    evidence: list[str]
    agreement: str = ""


@dataclass
class Card:
    """One statement: its anchor, place, the paper's words, and the claims answering it."""

    anchor: str
    line: int
    end: int
    kind: str
    place: str
    part: str
    quote: str
    out_of_scope: str
    headlines: list[ClaimView] = field(default_factory=list)
    steps: list[ClaimView] = field(default_factory=list)
    figures: list[FigureView] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    """Anchors of the other lines this card answers for (the rest of a multi-line equation,
    the lines of its claims), so ``#line-N`` finds the card from any of them."""

    @property
    def verdict(self) -> str:
        """The card's verdict word(s) for the filter: its headline claims' words, or "out of
        scope" / "no claim"."""
        words = list(dict.fromkeys(c.verdict for c in self.headlines))
        if words:
            return " / ".join(words)
        return "out of scope" if self.out_of_scope else "no claim"


def verdict_word(record: Record) -> str:
    """The record's verdict word (``verdict``, else the older ``status``)."""
    return str(record.get("verdict") or record.get("status") or "not decided")


def size_value(record: Record) -> Optional[float]:
    """The record's size at the paper's sizes, as a number (None: none)."""
    if "size_at_paper_sizes" in record:
        value = record["size_at_paper_sizes"]
    else:
        value = (record.get("size") or {}).get("value")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def size_text(record: Record) -> str:
    """The size as a phrase: "0.0101 in Delta eps_RT", "up to 4 at gamma_f = 1, rho_b = 1",
    or the reason there is none."""
    if "size_at_paper_sizes" in record:
        value = size_value(record)
        if value is None:
            return str(record.get("size_reason") or "no single number")
        observable = record.get("observable")
        return f"{_fmt(value)} in {observable}" if observable else _fmt(value)
    size = record.get("size")
    if not size:
        return ""
    at = ", ".join(f"{k} = {_fmt(float(v))}" for k, v in (size.get("at") or {}).items())
    return f"up to {_fmt(float(size['value']))}" + (f" at {at}" if at else "")


_AGREEMENT = {"verified": "the print equals the derivation",
              "leading order": "the print equals the derivation's leading order",
              "erratum": "the print differs from the derivation",
              "open": "not derived"}


_WORDS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}\s+[A-Za-z]{2,}\s+[A-Za-z]{2,}")
_COMMAND_ARGUMENTS = re.compile(r"\\[A-Za-z]+\*?(\{[^{}]*\})*")


def is_prose(quote: str) -> bool:
    """Whether the paper's words are prose (inline math, or three words in a row outside any
    command) rather than a bare formula: prose is never typeset as math.

    >>> is_prose("the opposite scenario is benign"), is_prose(r"\\frac{1}{N_s} \\text{tr} A")
    (True, False)
    """
    return "$" in quote or bool(_WORDS.search(_COMMAND_ARGUMENTS.sub(" ", quote)))


def _printed_html(quote: str, expand: Expand) -> str:
    """The paper's words: prose with its inline math, or a bare formula as display math."""
    if is_prose(quote) or not quote.strip():
        return prose_html(quote, expand=expand)
    return formula_html(quote, display=True, expand=expand)


def _measured_rows(record: Record) -> tuple[list[dict[str, str]], str]:
    m = record.get("measured") or {}
    rows = []
    for r in m.get("rows", []):
        rows.append({"Nx": str(r.get("nx", "")), "Ns": str(r.get("ns", "")),
                     "mean": _fmt(r["mean"]) if r.get("mean") is not None else "",
                     "se": _fmt(r["sem"]) if r.get("sem") is not None else "",
                     "n": str(r.get("n", "")),
                     "printed": _fmt(r["printed"]) if r.get("printed") is not None else "",
                     "derived": _fmt(r["derived"]) if r.get("derived") is not None else ""})
    what = str(m.get("what", ""))
    if m.get("verdict"):
        what = f"{what} (measured: {m['verdict']})" if what else f"measured: {m['verdict']}"
    return rows, what


def _confirmation(record: Record) -> str:
    c = record.get("confirmation")
    if isinstance(c, Mapping):
        parts = [str(c.get("state", ""))]
        for key in ("measured", "se", "derived", "printed", "size"):
            if c.get(key) is not None:
                value = c[key]
                parts.append(f"{key} {_fmt(value) if isinstance(value, float) else value}")
        if c.get("reason"):
            parts.append(str(c["reason"]))
        return "; ".join(p for p in parts if p)
    correction = record.get("correction")
    return f"correction: {correction}" if correction else ""


def _evidence(record: Record) -> list[str]:
    out = []
    for entry in record.get("evidence") or []:
        if isinstance(entry, Mapping):
            text = "; ".join(f"{k}: {v}" for k, v in entry.items() if v not in (None, ""))
        else:
            text = str(entry)
        out.append(prose_html(text))
    return out


def claim_view(record: Record, extras: Optional[ClaimExtras], expand: Expand) -> ClaimView:
    """A claim record as the card shows it."""
    extras = extras or ClaimExtras()
    derived = extras.reader or str(record.get("derived") or "")
    rows, what = _measured_rows(record)
    return ClaimView(
        id=str(record["id"]), headline=bool(record.get("headline")),
        verdict=verdict_word(record), size=size_text(record),
        condition=prose_html(str(record.get("condition") or "")),
        note=prose_html(str(record.get("note") or "")),
        printed=_printed_html(str(record.get("printed") or ""), expand),
        derived=formula_html(derived, display=True) if derived else "",
        difference=formula_html(extras.difference, display=True) if extras.difference else "",
        steps=[(prose_html(name), formula_html(tex, display=True), prose_html(note))
               for name, tex, note in extras.steps],
        measured=rows, measured_what=prose_html(what), confirmation=prose_html(
            _confirmation(record)), evidence=_evidence(record),
        agreement=_AGREEMENT.get(str(record.get("status")), ""))


def _anchor(line: int, taken: set[str]) -> str:
    anchor, n = f"line-{line}", 1
    while anchor in taken:
        n += 1
        anchor = f"line-{line}-{n}"
    taken.add(anchor)
    return anchor


def build_cards(rows: Sequence[StatementRow], records: Sequence[Record],
                extras: Mapping[str, ClaimExtras], figures: Sequence[FigureView],
                expand: Expand, place: Callable[[int], str],
                part: Callable[[int], str]) -> list[Card]:
    """One card per statement, in the paper's order; a headline claim whose line no statement
    holds gets a card of its own (its quote as the statement) so every claimed line has an
    anchor; such a step claim goes under the statement before it.

    A claim joins the card of the statement that lists it (``claim_ids``), else the first
    statement starting on its line, else the statement whose lines contain it."""
    by_id = {str(r["id"]): r for r in records}
    home: dict[str, int] = {}
    ordered = sorted(rows, key=lambda r: (r.line, r.clause))
    for i, row in enumerate(ordered):
        for claim_id in row.claim_ids:
            home.setdefault(claim_id, i)
    starts: dict[int, int] = {}
    for i, row in enumerate(ordered):
        starts.setdefault(row.line, i)
    orphans: list[Record] = []
    for r in records:
        claim_id, line = str(r["id"]), r.get("line")
        if claim_id in home or line is None:
            continue
        if line in starts:
            home[claim_id] = starts[line]
            continue
        inside = next((i for i, row in enumerate(ordered) if row.line <= line <= row.end), None)
        before = [i for i, row in enumerate(ordered) if row.line <= line]
        if inside is not None:
            home[claim_id] = inside
        elif r.get("headline") or not before:
            orphans.append(r)
        else:  # a step of the paper's algebra between statements: under the one before it
            home[claim_id] = before[-1]
    extra_rows = []
    for r in orphans:
        line = int(r["line"])
        kind = "sentence" if is_prose(str(r.get("printed", ""))) else "equation"
        extra_rows.append(StatementRow(line, line, kind, str(r.get("printed", "")), place(line),
                                       part(line), claim_ids=(str(r["id"]),)))
    all_rows = sorted(ordered + extra_rows, key=lambda r: (r.line, r.clause))
    index = {id(row): i for i, row in enumerate(all_rows)}
    home = {claim_id: index[id(ordered[i])] for claim_id, i in home.items()}
    for row in extra_rows:
        home[row.claim_ids[0]] = index[id(row)]

    figure_of: dict[str, list[FigureView]] = {}
    for f in figures:
        for claim_id in f.cites():
            figure_of.setdefault(claim_id, []).append(f)

    taken: set[str] = set()
    cards = []
    for row in all_rows:
        quote = (formula_html(row.quote, display=True, expand=expand) if row.kind == "equation"
                 else prose_html(row.quote, expand=expand))
        cards.append(Card(_anchor(row.line, taken), row.line, row.end, row.kind, row.place,
                          row.part, quote, prose_html(row.out_of_scope)))
    for claim_id, i in sorted(home.items(), key=lambda item: (item[1], item[0])):
        r = by_id.get(claim_id)
        if r is None:
            continue
        view = claim_view(r, extras.get(claim_id), expand)
        (cards[i].headlines if view.headline else cards[i].steps).append(view)
        for f in figure_of.get(claim_id, []):
            if f not in cards[i].figures:
                cards[i].figures.append(f)
    for i, card in enumerate(cards):
        lines = set(range(card.line + 1, card.end + 1))
        lines |= {int(by_id[c]["line"]) for c, j in home.items() if j == i and c in by_id
                  and by_id[c].get("line") is not None}
        for line in sorted(lines):
            if f"line-{line}" not in taken:
                taken.add(f"line-{line}")
                card.aliases.append(f"line-{line}")
    return cards


@dataclass
class SummaryEntry:
    """One line of the summary: the anchor it links to, where, the claim, its size."""

    anchor: str
    line: int
    place: str
    claim_id: str
    size: str
    size_value: Optional[float]
    cause: str
    note: str


@dataclass
class Summary:
    """The first screen: counts by verdict word, the errata ranked by size (grouped by cause),
    the misprints, the statements that hold only under a stronger condition, and what is new
    beyond the paper."""

    counts: list[tuple[str, int]]
    statements: int
    decided: int
    wrong: list[list[SummaryEntry]]
    misprints: list[SummaryEntry]
    stronger: list[SummaryEntry]
    findings: list[str]


def _entry(card: Card, view: ClaimView, record: Record) -> SummaryEntry:
    return SummaryEntry(card.anchor, card.line, card.place, view.id, view.size,
                        size_value(record), str(record.get("cause") or view.id), view.note)


def build_summary(cards: Sequence[Card], records: Sequence[Record],
                  findings: Iterable[str]) -> Summary:
    """The summary of :class:`Summary` from the cards (anchors) and records (sizes, causes).

    Errata are grouped by ``cause`` (one group per claim when the records have none) and the
    groups ranked by their largest size, largest first; unknown sizes last."""
    by_id = {str(r["id"]): r for r in records}
    counts: dict[str, int] = {}
    wrong: dict[str, list[SummaryEntry]] = {}
    misprints, stronger = [], []
    for card in cards:
        for view in card.headlines:
            counts[view.verdict] = counts.get(view.verdict, 0) + 1
            record = by_id[view.id]
            if view.verdict in WRONG:
                e = _entry(card, view, record)
                wrong.setdefault(e.cause, []).append(e)
            elif view.verdict == "misprint":
                misprints.append(_entry(card, view, record))
            elif view.verdict == "holds under a stronger condition":
                stronger.append(_entry(card, view, record))

    def rank(group: list[SummaryEntry]) -> tuple[float, int]:
        sizes = [e.size_value for e in group if e.size_value is not None]
        return (-max(sizes) if sizes else math.inf, group[0].line)

    order = [w for w in VERDICTS if w in counts] + sorted(set(counts) - set(VERDICTS))
    statements = sum(1 for c in cards if not c.out_of_scope)
    decided = sum(1 for c in cards if c.headlines and all(
        v.verdict not in ("not decided", "open") for v in c.headlines))
    return Summary([(w, counts[w]) for w in order], statements, decided,
                   sorted(wrong.values(), key=rank), misprints, stronger,
                   [markdown_html(f) for f in findings])
