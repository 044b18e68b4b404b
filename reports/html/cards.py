"""The page's content as plain data: one card per statement of the paper, in the paper's order,
and the summary above them. Pure functions of the claim records (``claims.json``'s
``claims``), the statement index and the figures; :mod:`tasksim.reports.html.page` renders them.

A card is keyed as the verdict records are (``claims.json``'s ``line`` and ``clause``): every
line that carries a headline claim is the card ``id="line-1265"``, with one verdict per clause
of that line, so ``index.html#line-N`` lands on line N's verdicts; a statement of the index
with no verdict of its own on its first line gets a card too (a second one on a line is
``line-1265-2``), pointing to the lines inside it that carry verdicts. A card shows the
paper's words at that line, each headline claim's verdict word with its size and condition,
and the evidence, folded: the derived expression (in the form a
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

import html
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from ..verdicts import STEP_WORDS
from .mathml import formula_html, markdown_html, prose_html, words_html

__all__ = ["StatementRow", "ClaimExtras", "FigureView", "Card", "ClaimView", "Summary",
           "verdict_word", "size_value", "size_text", "build_cards", "build_summary",
           "VERDICTS", "WRONG", "UNDECIDED", "NOT_VERDICTS", "verdict_totals", "card_counts"]

VERDICTS = ("exact", "holds in the stated limit", "holds under a stronger condition", "wrong",
            "misprint", "not decided")
"""The registry's verdict words, in the order the page lists them (DESIGN.md)."""

WRONG = ("wrong", "erratum")
"""Verdict words of an erratum (the second is the older registry's)."""

FORMULA_KINDS = ("equation", "display")
"""Kinds of statement whose words are a formula (typeset as display math); the others are
prose (sentences, figure panels) with their inline math."""

UNDECIDED = ("not decided", "open")
"""Verdict words of a statement nothing decides yet (the second is the older registry's)."""

OUT_OF_SCOPE, SEE_ANOTHER_LINE, SEE_ITS_LINES, UNCLAIMED = (
    "out of scope", "see another line", "see its lines", "unclaimed")
NOT_VERDICTS = (SEE_ANOTHER_LINE, SEE_ITS_LINES, OUT_OF_SCOPE, UNCLAIMED)
"""What a card without a headline claim of its own reads in the verdict filter, in the order
the filter lists them: none of them is a verdict, and none repeats another card's verdict."""


def verdict_totals(words: Iterable[str]) -> tuple[int, int]:
    """(statements with a verdict, decided ones) from their verdict words, one word per
    statement (line, clause): the one definition of "decided" that the page's summary and
    REPORT.md's both read.

    >>> verdict_totals(["exact", "wrong", "not decided"])
    (3, 2)
    """
    words = list(words)
    return len(words), sum(w not in UNDECIDED for w in words)

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
    label: str = ""
    """A figure panel's name ("Fig. 6E"; a caption's "(E-H)" is several panels); else ""."""


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
    difference_label: str = "Derived minus printed"
    """Above the difference: "Derived minus printed" where the line prints the form compared
    with; where it is a sentence, the value its words are read as (REFEREE39 2a: the paper
    prints no 0 at line 248)."""
    printed_label: str = "Printed"
    """"Printed" above a value the paper prints; "The paper's words" above a sentence that
    prints no value (a step the paper states no formula for)."""
    line: Optional[int] = None
    clause: Optional[int] = None
    excerpt: str = ""
    """The opening of the claim's own words (HTML), shown beside its verdict when a line
    holds clauses with different verdicts."""


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
    the lines of its step claims), so ``#line-N`` finds the card from any of them; a line
    with a headline claim is always a card of its own, never an alias."""
    answered_on: list[int] = field(default_factory=list)
    """Lines inside this statement that carry verdicts of their own (their cards follow)."""
    within: Optional[tuple[str, int, int]] = None
    """The longer statement (anchor, first and last line) this line's card lies inside."""
    restates: list[tuple[str, int, str]] = field(default_factory=list)
    """The claimed statements the paper restates here: (anchor, line, claim id)."""
    shows: list[tuple[str, str, int, str]] = field(default_factory=list)
    """(claim id, verdict, line, anchor) of the headline claims on other cards that answer
    this card's statements (a restatement, or the claims a figure panel plots, the one it
    shows first): the card reads the first one's verdict."""
    rows: int = 0
    """How many statements of the index (Coverage) this card shows: 0 for a line inside a
    longer statement that carries a claim of its own, 2 or more for clauses sharing a line."""

    @property
    def pointer(self) -> Optional[tuple[str, int]]:
        """(anchor, line) of the card whose verdict this card's statement reads, for a card
        without a verdict of its own: the statement it restates, else the first claim it
        states (a figure panel: the claim it shows first); None for a card with its own
        verdicts or nothing to point to."""
        if self.headlines or self.out_of_scope:
            return None
        if self.restates:
            return self.restates[0][0], self.restates[0][1]
        if self.shows:
            return self.shows[0][3], self.shows[0][2]
        return None

    @property
    def pointers(self) -> list[tuple[str, int]]:
        """(anchor, line) of every card whose verdict this card's statement reads, the
        :attr:`pointer` first: a sentence restating two statements links both in its header."""
        if self.pointer is None:
            return []
        found = [(a, n) for a, n, _ in self.restates] or [(a, n) for _, _, n, a in self.shows]
        return list(dict.fromkeys([self.pointer, *found]))

    @property
    def verdicts(self) -> list[str]:
        """The card's words for the verdict filter: its headline claims' verdict words (one
        per clause of its line), and only those are verdicts; a card without a claim of its
        own reads one of :data:`NOT_VERDICTS`: "out of scope", "see another line" (it
        restates or shows the statement of another card, whose verdict it never repeats),
        "see its lines" (a statement whose lines carry the verdicts) or "unclaimed" (no claim
        answers it yet)."""
        words = list(dict.fromkeys(c.verdict for c in self.headlines))
        if words:
            return words
        if self.out_of_scope:
            return [OUT_OF_SCOPE]
        if self.pointer is not None and not (self.answered_on and not self.restates
                                             and self.pointer[1] in self.answered_on):
            return [SEE_ANOTHER_LINE]
        # a statement whose verdicts sit on its own lines reads them there (REFEREE39 3e:
        # these were counted as restatements of another line)
        return [SEE_ITS_LINES if self.answered_on else UNCLAIMED]

    @property
    def verdict(self) -> str:
        """The card's one verdict word, or "" when its clauses carry different verdicts
        (then the header shows each clause's verdict beside its words:
        :attr:`clause_verdicts`)."""
        words = self.verdicts
        return words[0] if len(words) == 1 else ""

    @property
    def clause_verdicts(self) -> list[tuple[str, str]]:
        """(verdict, excerpt of the clause's words) per headline clause, when the clauses of
        the line carry different verdicts; empty otherwise."""
        if len(self.verdicts) < 2:
            return []
        return [(c.verdict, c.excerpt) for c in self.headlines]


def card_counts(cards: Sequence[Card]) -> dict[str, int]:
    """How the cards reconcile with the statements Coverage counts and with the headline
    verdicts: the statements the cards show (``statements``: ``statement cards`` cards, of
    which ``shared`` hold several clauses of one line, ``shared statements`` in all), the
    cards of lines without a statement of their own that carry a claim (``own line``: a line
    inside a display or a sentence); and by what they read: ``verdict cards`` carry the
    ``verdicts`` headline verdicts (one per line and clause), each of :data:`NOT_VERDICTS`
    counts the cards that read it.

    >>> c = [Card("line-1", 1, 1, "sentence", "", "", "", "", rows=2),
    ...      Card("line-2", 2, 2, "equation", "", "", "", "", rows=0)]
    >>> n = card_counts(c)
    >>> n["cards"], n["statements"], n["shared"], n["own line"], n["unclaimed"]
    (2, 2, 1, 1, 2)
    """
    out = {"cards": len(cards), "statements": sum(c.rows for c in cards),
           "statement cards": sum(c.rows > 0 for c in cards),
           "shared": sum(c.rows > 1 for c in cards),
           "shared statements": sum(c.rows for c in cards if c.rows > 1),
           "own line": sum(c.rows == 0 for c in cards),
           "verdict cards": sum(bool(c.headlines) for c in cards),
           "verdicts": sum(len(c.headlines) for c in cards)}
    for word in NOT_VERDICTS:
        out[word] = sum(c.verdicts == [word] for c in cards)
    return out


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


def phrase_in_observable(phrase: str, observable: str) -> Optional[str]:
    """A size's phrase in its observable, when the phrase says where it was taken: a grid
    maximum at its point (the value at parameters 1/2 beside), a measured deviation (the
    derived size beside), or a network statement's margin on its data set; None for a bare
    number, which its caller words with its own unit.

    >>> phrase_in_observable("grid maximum 4 (at gamma_f = 1)", "Delta eps_RT")
    'grid maximum 4 (at gamma_f = 1), in Delta eps_RT'
    >>> phrase_in_observable("0.0101", "Delta eps_RT") is None
    True
    """
    if not phrase or ("(at " not in phrase and not phrase.startswith(("margin ", "measured "))):
        return None
    return f"{phrase}, in {observable}" if observable else phrase


def claim_linker(anchors: Mapping[str, str]) -> Callable[[str], str]:
    """A function that writes every claim id of ``anchors`` (id -> the anchor of its card)
    named in running words as a linked code span, ``[`id`](#anchor)``, which
    :func:`~tasksim.reports.html.mathml.words_html` renders as a link to the card (REFEREE33
    n5: ids in prose read as code). An id already in a code span is left as it is.

    >>> link = claim_linker({"a.b": "line-3", "a.b.c": "line-4", "a.n[g]": "line-5"})
    >>> link("as for a.b.c (and a.b), not `a.b`; a.n[g] (line 5)")
    'as for [`a.b.c`](#line-4) (and [`a.b`](#line-3)), not `a.b`; [`a.n[g]`](#line-5) (line 5)'
    """
    if not anchors:
        return lambda text: text
    names = "|".join(re.escape(i) for i in sorted(anchors, key=len, reverse=True))
    pattern = re.compile(rf"(?<![`\w.\[])({names})(?![\w`])")
    return lambda text: pattern.sub(lambda m: f"[`{m.group(1)}`](#{anchors[m.group(1)]})",
                                    text)


def with_paper_regime(condition: str, regime: str) -> str:
    """A verdict's condition with the paper's regime beside it, when the condition is a
    derived stronger one (the regime is empty otherwise)."""
    return f"{condition} (the paper's regime: {regime})" if regime else condition


SIZE_LABELS = ("the leading order's error, ", "the surrogate weights' finite-size correction, ",
               "the row norms' spread about the 1 it takes, ", "at leading order, ")
"""Openings of a size phrase that say what the number measures (:meth:`StatementVerdict
.size_phrase`), kept wherever the size is shown."""


def size_label(phrase: str) -> str:
    """The opening of ``phrase`` that says what its number measures (:data:`SIZE_LABELS`),
    or "".

    >>> size_label("the leading order's error, 0.01")
    "the leading order's error, "
    """
    return next((x for x in SIZE_LABELS if phrase.startswith(x)), "")


def size_text(record: Record) -> str:
    """The size as a phrase: "0.0101 in Delta eps_RT", "up to 4 at gamma_f = 1, rho_b = 1",
    or the reason there is none."""
    if "size_at_paper_sizes" in record:
        value = size_value(record)
        if value is None:
            return str(record.get("size_reason") or "no single number")
        observable = record.get("observable")
        phrase = str(record.get("size_phrase") or "")
        shown = phrase_in_observable(phrase, observable or "")
        if shown is None:
            shown = f"{_fmt(value)} in {observable}" if observable else _fmt(value)
            # what the number is the size of, when the phrase says it (REFEREE40 m5: "the
            # leading order's error" was dropped with the phrase)
            shown = size_label(phrase) + shown
        # a statement not decided whose effect was measured: what would decide it stays
        # beside the number (REFEREE33 m1)
        if record.get("would_decide"):
            shown += f"; not decided: {record['would_decide']}"
        return shown
    size = record.get("size")
    if not size:
        return ""
    at = ", ".join(f"{k} = {_fmt(float(v))}" for k, v in (size.get("at") or {}).items())
    return f"up to {_fmt(float(size['value']))}" + (f" at {at}" if at else "")


_AGREEMENT = {**{word: word for word in STEP_WORDS.values()},
              **{status: word for status, word in STEP_WORDS.items()}}
"""A step's status as the page shows it: the words claims.json carries
(:data:`tasksim.reports.verdicts.STEP_WORDS`), whichever of the two a record holds."""


def _agreement(record: Record) -> str:
    """What a step's status says, in words; a step of a finding beyond the paper (status
    "finding") names the finding and is never called an erratum."""
    if record.get("status") == "finding":
        return (f"the print differs from the model for the reason the finding "
                f"{record.get('finding') or 'beyond the paper'} explains (Findings): not an "
                "erratum of the paper")
    return _AGREEMENT.get(str(record.get("status")), "")


_WORDS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}\s+[A-Za-z]{2,}\s+[A-Za-z]{2,}")
_COMMAND_ARGUMENTS = re.compile(r"\\[A-Za-z]+\*?(\{[^{}]*\})*")


def is_prose(quote: str) -> bool:
    """Whether the paper's words are prose (inline math, or three words in a row outside any
    command) rather than a bare formula: prose is never typeset as math.

    >>> is_prose("the opposite scenario is benign"), is_prose(r"\\frac{1}{N_s} \\text{tr} A")
    (True, False)
    """
    return "$" in quote or bool(_WORDS.search(_COMMAND_ARGUMENTS.sub(" ", quote)))


EXCERPT_WORDS = 9
"""Words of a clause shown beside its verdict in a card's header."""


def excerpt(quote: str, words: int = EXCERPT_WORDS) -> str:
    r"""The opening of a clause's words, for a card's header: prose cut after ``words`` words
    (never inside ``$...$`` math) with "..." when cut; a formula longer than 40 characters up
    to its first relation (its left-hand side and the relation) with "...".

    >>> excerpt("the transfer and retention performance remain independent of the "
    ...         "resultant input sparsity $\alpha$")
    'the transfer and retention performance remain independent of the ...'
    >>> excerpt(r"W_1 \equiv B_1 A_1^+, \quad W_2 \equiv B_1 A_1^+ [I - U_2 U_2^T] + B_2 A_2^+")
    'W_1 \\equiv ...'
    """
    quote = " ".join(quote.split())
    if is_prose(quote):
        tokens, kept, in_math = quote.split(" "), [], False
        for token in tokens:
            if len(kept) >= words and not in_math:
                return " ".join(kept) + " ..."
            kept.append(token)
            in_math ^= token.count("$") % 2 == 1
        return quote
    m = re.search(r"=|\\equiv|\\approx|\\simeq|\\sim\b|\\propto|\\leq|\\geq|<|>", quote)
    if m is None or len(quote) <= 40:
        return quote
    return quote[:m.end()] + " ..."


def excerpt_html(quote: str, expand: Expand) -> str:
    """:func:`excerpt` as HTML: prose with inline MathML, a formula as inline MathML."""
    short = excerpt(quote)
    if not short:
        return ""
    if is_prose(short):
        return prose_html(short, expand=expand)
    tail = " ..." if short.endswith(" ...") and not quote.strip().endswith("...") else ""
    formula = short[:-4] if tail else short
    return formula_html(formula, display=False, expand=expand) + html.escape(tail)


def _difference_label(record: Record, expand: Expand) -> str:
    """"Derived minus printed" where the claim compares with a printed form (a display, a
    sentence with its formula inline, or a form read from another line's print); for a
    sentence that states a sign, a boundary or a truth value (its reading a constant), the
    value its words are read as."""
    quote = str(record.get("printed") or "")
    reading = str(record.get("reading") or "")
    # a sentence that states a sign, a boundary or a truth value (its reading a constant);
    # a sentence with a formula inline, or a form read from another line's print, compares
    # with a print (REFEREE40 n5)
    constant = bool(re.fullmatch(r"-?\d+(\.\d+)?|\\text\{(True|False)\}", reading.strip()))
    if not (is_prose(quote) and constant) or record.get("reading_from"):
        return "Derived minus printed"
    return ("Derived minus the value its words are read as, "
            + formula_html(reading, display=False, expand=expand))


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
    """The confirmation test's outcome as a sentence: its state and the reason, which states
    the numbers (measured, derived, printed, where); without a reason, the numbers in words."""
    c = record.get("confirmation")
    if isinstance(c, Mapping):
        state = str(c.get("state", ""))
        if c.get("reason"):
            return f"{state}: {c['reason']}"
        numbers = [f"{key} {_fmt(float(c[key]))}" for key in ("measured", "derived", "printed")
                   if isinstance(c.get(key), (int, float))]
        if isinstance(c.get("se"), (int, float)) and numbers:
            numbers[0] += f" +- {_fmt(float(c['se']))}"
        at = c.get("size")
        where = (f" at Nx = {at[0]}, Ns = {at[1]}" if isinstance(at, Sequence)
                 and len(at) == 2 else "")
        return f"{state}: {', '.join(numbers)}{where}" if numbers else state
    correction = record.get("correction")
    return f"correction: {correction}" if correction else ""


def evidence_sentence(entry: Mapping[str, Any]) -> str:
    """One evidence entry of claims.json as a sentence: the step (its id and line), what it
    says, and its measurement or network effect.

    >>> evidence_sentence({"id": "a.b", "line": 3, "status": "finding", "measured": "confirmed",
    ...                    "finding": "surrogate-1/Nx-terms"})
    'a.b (line 3): finding (surrogate-1/Nx-terms); measured: confirmed'
    >>> evidence_sentence({"id": "m (measurement)", "line": 9, "status": "measured",
    ...                    "measured": "not confirmed"})
    'm (measurement) (line 9): measured: not confirmed'
    >>> evidence_sentence({"id": "p (network runs)", "line": 357, "effect": 0.0206,
    ...                    "se": 0.0083, "seeds": 5, "dataset": "mnist-5k", "finding": "..."})
    'p (network runs) (line 357): effect 0.0206 +- 0.0083 (5 paired seeds on mnist-5k): ...'
    """
    head = f"{entry.get('id', '')} (line {entry.get('line')})"
    if "effect" in entry:
        effect = f"effect {_fmt(float(entry['effect']))}"
        if entry.get("se") is not None:
            effect += f" +- {_fmt(float(entry['se']))}"
        return (f"{head}: {effect} ({entry.get('seeds')} paired seeds on "
                f"{entry.get('dataset')}): {entry.get('finding', '')}")
    status = str(entry.get("status", ""))
    if entry.get("finding"):
        status += f" ({entry['finding']})"
    if entry.get("measured"):
        measured = f"measured: {entry['measured']}"
        status = measured if status == "measured" else f"{status}; {measured}"
    return f"{head}: {status}"


def parts_table_html(rows: Sequence[Mapping[str, Any]],
                     resolve: Callable[[str], str] = lambda text: text) -> str:
    """A conjunction's parts (claims.json's ``parts`` of a network evidence entry) as a small
    table: part, effect +- SE, seeds, p-value, state (REFEREE24 m11).

    >>> html = parts_table_html([{"part": "a > 0", "effect": 0.2, "se": 0.05, "seeds": 5,
    ...                           "p": 0.016, "state": "shown"}])
    >>> "<td>+0.2 ± 0.05</td>" in html, "<td>0.016</td>" in html
    (True, True)
    """
    def cell(row: Mapping[str, Any]) -> str:
        if row.get("effect") is None:
            return "-"
        return f"{float(row['effect']):+.3g} ± {float(row['se']):.2g}"

    body = "".join(
        f"<tr><td>{words_html(resolve(str(row['part'])))}</td><td>{cell(row)}</td>"
        f"<td>{row.get('seeds')}</td>"
        f"<td>{'-' if row.get('p') is None else format(float(row['p']), '.3f')}</td>"
        f"<td>{row.get('state')}</td><td>{_would_decide(row)}</td></tr>" for row in rows)
    return ('<table class="parts"><thead><tr><th>part (every one must be shown)</th>'
            '<th>effect ± SE</th><th>seeds</th><th>p (paired t-test)</th><th>state</th>'
            '<th>seeds that would resolve it</th></tr>'
            f'</thead><tbody>{body}</tbody></table>')


def _would_decide(row: Mapping[str, Any]) -> str:
    """An unresolved part's projected seeds and the side it would fall on ("" once resolved)."""
    if not str(row.get("state", "")).startswith("not resolved"):
        return ""
    need = row.get("seeds_to_decide")
    return f"about {need}, {row.get('trend')} the claim" if need else "more"


def _evidence(record: Record, resolve: Callable[[str], str] = lambda text: text
              ) -> list[str]:
    out = []
    for entry in record.get("evidence") or []:
        if isinstance(entry, Mapping):
            text = evidence_sentence(entry)
        else:
            text = str(entry)
        html = words_html(resolve(text))
        if isinstance(entry, Mapping) and entry.get("parts"):
            html = parts_table_html(entry["parts"], resolve) + html
        out.append(html)
    return out


EVIDENCE_TEX_LIMIT = 2000
"""The longest LaTeX expression a card typesets as evidence. A longer one (a 1/Nx
coefficient over the whole (rho_a, rho_b, alpha) polynomial, the algebra of a long task
sequence) is named instead, with where it is kept: no card grows past a reader's page
(REFEREE3 R24)."""

PRINTED_TEX_LIMIT = 4000
"""The longest step derivations.tex prints (``tasksim.reports.report.LARGE_LATEX``); a
longer one is kept by the registry only (``tasksim.claims()`` derives it again)."""


def evidence_formula(tex: str, claim_id: str, kept: str = "") -> str:
    """``tex`` as display MathML, or, when longer than :data:`EVIDENCE_TEX_LIMIT`, a sentence
    saying where the expression is kept: ``kept``, else derivations.tex when it prints it
    (:data:`PRINTED_TEX_LIMIT`), else the registry.

    >>> short, long = evidence_formula("x^2", "demo"), evidence_formula("x" * 3000, "demo")
    >>> "<math" in short, "<math" in long, "3,000 characters of LaTeX" in long
    (True, False, True)
    >>> "tasksim.claims()" in evidence_formula("x" * 5000, "demo")
    True
    """
    if len(tex) <= EVIDENCE_TEX_LIMIT:
        return formula_html(tex, display=True)
    kept = kept or ("derivations.tex" if len(tex) <= PRINTED_TEX_LIMIT else
                    "the registry (<code>tasksim.claims()</code> derives it again)")
    return (f'<span class="elided">an expression of {len(tex):,} characters of LaTeX, not '
            f'typeset here: <code>{html.escape(claim_id)}</code> in {kept}</span>')


def claim_view(record: Record, extras: Optional[ClaimExtras], expand: Expand,
               resolve: Callable[[str], str] = lambda text: text) -> ClaimView:
    """A claim record as the card shows it."""
    extras = extras or ClaimExtras()
    derived = extras.reader or str(record.get("derived") or "")
    if record.get("verdict") == "not decided" and record.get("derived_srepr") in ("true",
                                                                                "false"):
        derived = ""  # a truth value under "not decided" would read as a verdict (REFEREE35 A1)
    rows, what = _measured_rows(record)
    return ClaimView(
        id=str(record["id"]), headline=bool(record.get("headline")),
        verdict=verdict_word(record), size=resolve(size_text(record)),
        condition=words_html(resolve(with_paper_regime(str(record.get("condition") or ""),
                                                       str(record.get("paper_regime") or "")))),
        note=words_html(resolve(str(record.get("note") or ""))),
        printed=_printed_html(resolve(str(record.get("printed") or "")), expand),
        derived=evidence_formula(derived, str(record["id"]), "claims.json (its derived form)")
        if derived else "",
        difference=evidence_formula(extras.difference, str(record["id"]),
                                    "claims.json (its derived and printed forms)")
        if extras.difference else "",
        steps=[(words_html(resolve(name)), evidence_formula(tex, str(record["id"])),
                words_html(resolve(note))) for name, tex, note in extras.steps],
        measured=rows, measured_what=words_html(resolve(what)), confirmation=words_html(
            resolve(_confirmation(record))), evidence=_evidence(record, resolve),
        agreement=_agreement(record), difference_label=_difference_label(record, expand),
        printed_label="Printed" if (record.get("printed_srepr") or record.get("headline"))
        and not record.get("reading_from") else "The paper's words",
        line=None if record.get("line") is None else int(record["line"]),
        clause=None if record.get("clause") is None else int(record["clause"]),
        excerpt=excerpt_html(resolve(str(record.get("printed") or "")), expand))


def _anchor(line: int, taken: set[str]) -> str:
    anchor, n = f"line-{line}", 1
    while anchor in taken:
        n += 1
        anchor = f"line-{line}-{n}"
    taken.add(anchor)
    return anchor


@dataclass
class _Slot:
    """A card before it is rendered: the statement rows it shows (none: the claims' own
    words) and whether it is the card of a line's headline claims (the verdict records)."""

    line: int
    rows: list[StatementRow]
    headline: bool
    quote: str = ""

    @property
    def end(self) -> int:
        return max([self.line] + [r.end for r in self.rows])

    def sort_key(self) -> tuple[int, int, int]:
        return (self.line, 0 if self.headline else 1,
                min((r.clause for r in self.rows), default=0))


def _slots(rows: Sequence[StatementRow], heads: Sequence[Record]) -> list[_Slot]:
    """The cards' skeleton: one card per line that carries a headline claim (the verdict
    records' line, all its clauses), showing the in-scope statements of the index that start
    on it; one card per remaining statement of the index (out-of-scope ones included)."""
    head_lines: dict[int, list[Record]] = {}
    for r in heads:
        head_lines.setdefault(int(r["line"]), []).append(r)
    slots = {line: _Slot(line, [], True) for line in head_lines}
    others = []
    for row in sorted(rows, key=lambda r: (r.line, r.clause)):
        if row.line in slots and not row.out_of_scope:
            slots[row.line].rows.append(row)
        else:
            others.append(_Slot(row.line, [row], False))
    for line, slot in slots.items():
        if not slot.rows:  # a line inside a display, or no statement found: the claims' words
            quotes = dict.fromkeys(str(r.get("printed") or "") for r in sorted(
                head_lines[line], key=lambda r: int(r.get("clause") or 0)))
            slot.quote = " ".join(q for q in quotes if q)
    return sorted(list(slots.values()) + others, key=_Slot.sort_key)


BEYOND = -2
"""Where :func:`_home_of_steps` puts a step of a finding that no statement carries."""


def _home_of_steps(steps: Sequence[Record], slots: Sequence[_Slot],
                   card_of_head: Mapping[str, int]) -> dict[str, int]:
    """Where each step claim goes (evidence, no verdict word): under the headline it is
    evidence of (``evidence_of``), else the card of the statement that lists it
    (``claim_ids``), else the card starting on its line, else the card whose lines contain it,
    else the card before it (-1: none before, a card of its own). A step of a finding beyond
    the paper whose line holds no statement (the K-task sequences at Appendix A's "we focus
    on two tasks") is evidence of no card's statement: :data:`BEYOND` (the page lists it with
    the findings)."""
    listed: dict[str, int] = {}
    starts: dict[int, int] = {}
    for i, slot in enumerate(slots):
        starts.setdefault(slot.line, i)
        for row in slot.rows:
            for claim_id in row.claim_ids:
                listed.setdefault(claim_id, i)
    home = {}
    for r in steps:
        claim_id, line = str(r["id"]), r.get("line")
        if line is None:
            continue
        line = int(line)
        head = r.get("evidence_of")
        if head in card_of_head and int(slots[card_of_head[head]].line) == line:
            home[claim_id] = card_of_head[head]
        elif claim_id in listed:
            home[claim_id] = listed[claim_id]
        elif line in starts:
            home[claim_id] = starts[line]
        else:
            inside = [i for i, slot in enumerate(slots) if slot.line <= line <= slot.end]
            before = [i for i, slot in enumerate(slots) if slot.line <= line]
            home[claim_id] = (inside[-1] if inside else BEYOND if r.get("finding") else
                              (before or [-1])[-1])
    return home


def build_cards(rows: Sequence[StatementRow], records: Sequence[Record],
                extras: Mapping[str, ClaimExtras], figures: Sequence[FigureView],
                expand: Expand, place: Callable[[int], str],
                part: Callable[[int], str],
                resolve: Callable[[str], str] = lambda text: text) -> list[Card]:
    """One card per statement, in the paper's order, keyed as the verdict records are.

    Every line that carries a headline claim (its record's ``line``) has the card
    ``id="line-<line>"``, holding all the line's headline claims in the order of their
    ``clause``, with the statements of the index that start on that line as its quote (or
    the claims' own words when none does: a line inside a display); so a link to
    ``#line-<line>`` lands on the verdict of that line's statement, and no (line, clause)
    appears on two cards. The other statements of the index get cards of their own (a second
    one on a line is ``line-<line>-2``), pointing to the lines of their claims and to the
    statement they restate. Step claims are evidence under a card
    (:func:`_home_of_steps`), never a verdict. ``resolve`` turns the paper's ``\\ref``s in a
    quote into what LaTeX prints (:func:`~tasksim.reports.paper_labels.reference_resolver`)."""
    by_id = {str(r["id"]): r for r in records}
    heads = [r for r in records if r.get("headline") and r.get("line") is not None]
    steps = [r for r in records if not r.get("headline") and r.get("line") is not None]
    slots = _slots(rows, heads)
    card_of_line = {slot.line: i for i, slot in enumerate(slots) if slot.headline}
    card_of_head = {str(r["id"]): card_of_line[int(r["line"])] for r in heads}
    home = _home_of_steps(steps, slots, card_of_head)
    orphans: dict[int, str] = {}
    for c, i in home.items():
        if i == -1:  # steps before every statement: a card of their own, at their line
            orphans.setdefault(int(by_id[c]["line"]), str(by_id[c].get("printed") or ""))
    if orphans:
        slots = sorted(slots + [_Slot(line, [], False, q) for line, q in orphans.items()],
                       key=_Slot.sort_key)
        card_of_line = {slot.line: i for i, slot in enumerate(slots) if slot.headline}
        card_of_head = {str(r["id"]): card_of_line[int(r["line"])] for r in heads}
        home = _home_of_steps(steps, slots, card_of_head)

    figure_of: dict[str, list[FigureView]] = {}
    for f in figures:
        for claim_id in f.cites():
            figure_of.setdefault(claim_id, []).append(f)

    taken = {f"line-{slot.line}" for slot in slots if slot.headline}
    cards = []
    for slot in slots:
        anchor = f"line-{slot.line}" if slot.headline else _anchor(slot.line, taken)
        kinds = [row.kind for row in slot.rows]
        if slot.rows:
            quote = " ".join(dict.fromkeys(  # two clauses of one sentence: quoted once
                formula_html(resolve(row.quote), display=True, expand=expand)
                if row.kind in FORMULA_KINDS else prose_html(resolve(row.quote), expand=expand)
                for row in slot.rows))
            kind = kinds[0]
        else:
            kind = "sentence" if is_prose(slot.quote) else "equation"
            quote = (prose_html(resolve(slot.quote), expand=expand) if kind == "sentence" else
                     formula_html(resolve(slot.quote), display=True, expand=expand))
        out = "" if slot.headline else slot.rows[0].out_of_scope if slot.rows else ""
        # a panel's card names its panel: one caption's "(E-H)" makes four cards that
        # would otherwise read the same (REFEREE39 5c)
        panels = [row.label.split()[-1].lstrip("0123456789") for row in slot.rows
                  if row.kind == "figure panel" and row.label]  # "Fig. 6E" -> "E"
        where = place(slot.line) + (f", panel {', '.join(dict.fromkeys(panels))}"
                                    if panels else "")
        cards.append(Card(anchor, slot.line, slot.end, kind, where,
                          part(slot.line), quote, words_html(resolve(out)), rows=len(slot.rows)))

    placed = [(card_of_head[str(r["id"])], int(r.get("clause") or 0), str(r["id"]))
              for r in heads] + [(i, 10**6, c) for c, i in home.items() if i >= 0]
    for i, _, claim_id in sorted(placed):
        view = claim_view(by_id[claim_id], extras.get(claim_id), expand, resolve)
        (cards[i].headlines if view.headline else cards[i].steps).append(view)
        for f in figure_of.get(claim_id, []):
            if f not in cards[i].figures:
                cards[i].figures.append(f)
    _link(cards, slots, heads)
    for card, slot in zip(cards, slots):
        if card.headlines:
            continue
        for row in slot.rows:
            for claim_id in row.claim_ids:
                record = by_id.get(claim_id)
                if record is not None and record.get("headline") and \
                        claim_id not in [c for c, *_ in card.shows]:
                    card.shows.append((claim_id, verdict_word(record), int(record["line"]),
                                       f"line-{record['line']}"))
                    for f in figure_of.get(claim_id, []):
                        if f not in card.figures:
                            card.figures.append(f)
    for i, card in enumerate(cards):
        lines = set(range(card.line + 1, card.end + 1))
        lines |= {int(by_id[c]["line"]) for c, j in home.items() if j == i}
        for line in sorted(lines):
            if f"line-{line}" not in taken:
                taken.add(f"line-{line}")
                card.aliases.append(f"line-{line}")
    return cards


def _link(cards: Sequence[Card], slots: Sequence[_Slot], heads: Sequence[Record]) -> None:
    """The pointers between cards: a statement spanning lines that carry verdicts of their
    own lists them (``answered_on``); a line inside a longer statement names it
    (``within``); a place where the paper restates a claimed statement points to it, on the
    card whose statement the index joined to the claim (the first card of the line, else the
    card whose lines hold it, when none did); a card with its own verdict lists it under
    that verdict, its header never pointing elsewhere."""
    verdict_lines = sorted({c.line for c in cards if c.headlines})
    for card in cards:
        if card.end > card.line:
            card.answered_on = [n for n in verdict_lines if card.line < n <= card.end]
    for card in cards:
        if card.headlines:
            host = next((c for c in cards if not c.headlines and c.line < card.line <= c.end),
                        None)
            if host is not None:
                card.within = (host.anchor, host.line, host.end)
    for r in heads:
        claim_id, home = str(r["id"]), int(r["line"])
        for line in dict.fromkeys(int(n) for n in r.get("restates") or ()):
            at = [(c, s) for c, s in zip(cards, slots) if c.line == line]
            joined = [c for c, s in at if any(claim_id in row.claim_ids for row in s.rows)]
            target = next(iter(joined or [c for c, _ in at] or
                               [c for c in cards if c.line <= line <= c.end]), None)
            entry = (f"line-{home}", home, claim_id)
            # a card with its own verdict also names a clause of its sentence that restates
            # another line's statement (REFEREE41: line 90's second half); its header stays
            # its own verdict (:attr:`Card.pointer` is None when it has headlines)
            if target is not None and target.line != home and entry not in target.restates \
                    and claim_id not in [v.id for v in target.headlines]:
                target.restates.append(entry)


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
    condition: str = ""
    """The verdict's condition as HTML (a derived stronger condition, the paper's regime)."""
    clause: str = ""
    """"clause 2" when the card's line carries several statements (counted from 1)."""
    rank: Optional[float] = None
    """What ranks its cause (:func:`rank_value`, as :func:`tasksim.reports.verdicts.causes`)."""
    network: bool = False
    """Sized in the network's test error: its cause is listed after those in Delta eps."""


@dataclass
class Summary:
    """The first screen: counts by verdict word, the errata ranked by size (grouped by cause),
    the misprints, the statements that hold only under a stronger condition, and what is new
    beyond the paper."""

    counts: list[tuple[str, int]]
    statements: int
    decided: int
    wrong: list[list[SummaryEntry]]
    misprints: list[list[SummaryEntry]]
    stronger: list[SummaryEntry]
    findings: list[str]
    beyond: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    """(finding, its step claims, the anchors of their lines that no card holds) for the
    steps of findings that no statement of the paper carries, so no card shows them: their
    expressions are in derivations.tex and claims.json, and ``#line-N`` of their line lands
    on this list."""
    undecided: list[SummaryEntry] = field(default_factory=list)
    """The statements not decided yet (their cards say what would decide them)."""
    definitions: list[tuple[str, str]] = field(default_factory=list)
    """The six verdict words and their meanings, with the network's legend last."""
    beyond_paper: str = ""
    """The findings beyond the paper (REPORT.md's section of that name), as HTML."""
    cause_sizes: dict[str, str] = field(default_factory=dict)
    """Each erratum cause's size as REPORT.md words it (:func:`tasksim.reports.summary.
    cause_size`: its largest grid maximum, the value that ranks it), by cause id."""


def rank_value(record: Record) -> Optional[float]:
    """The value with every parameter at 1/2 of a size taken over a grid, which ranks an
    erratum's cause as :func:`tasksim.reports.verdicts.causes` ranks it in REPORT.md; None
    for another size (a margin, a deviation measured at one point: the cause then ranks by
    its size).

    >>> rank_value({"size": {"value": 4.0}, "size_at": {"g": 1.0}, "size_typical": 0.375})
    0.375
    >>> rank_value({"size": {"value": 0.1}, "size_at": {}, "size_typical": None}) is None
    True
    """
    typical = record.get("size_typical")
    if typical is not None and record.get("size_at") and record.get("size_derived") is None:
        return float(typical)
    return None


def _entry(card: Card, view: ClaimView, record: Record) -> SummaryEntry:
    several = len(card.headlines) > 1 and view.clause is not None
    return SummaryEntry(card.anchor, card.line, card.place, view.id, view.size,
                        size_value(record), str(record.get("cause") or view.id), view.note,
                        view.condition, f"clause {view.clause + 1}" if several else "",
                        rank_value(record),
                        str(record.get("observable", "")).startswith("test error of the network"))


def build_summary(cards: Sequence[Card], records: Sequence[Record],
                  findings: Iterable[str]) -> Summary:
    """The summary of :class:`Summary` from the cards (anchors) and records (sizes, causes).

    Errata and misprints are grouped by ``cause`` (one group per claim when the records have
    none) and the groups ranked as REPORT.md ranks them (:func:`rank_value`, largest first;
    unknown last; the network's causes, in another unit, after the others)."""
    from ..summary import NETWORK_LIMIT, VERDICT_DEFINITIONS  # summary imports this module

    by_id = {str(r["id"]): r for r in records}
    counts: dict[str, int] = {}
    wrong: dict[str, list[SummaryEntry]] = {}
    misprints: dict[str, list[SummaryEntry]] = {}
    stronger, undecided = [], []
    for card in cards:
        for view in card.headlines:
            counts[view.verdict] = counts.get(view.verdict, 0) + 1
            record = by_id[view.id]
            if view.verdict in WRONG:
                e = _entry(card, view, record)
                wrong.setdefault(e.cause, []).append(e)
            elif view.verdict == "misprint":
                e = _entry(card, view, record)
                misprints.setdefault(e.cause, []).append(e)
            elif view.verdict == "holds under a stronger condition":
                stronger.append(_entry(card, view, record))
            elif view.verdict == "not decided":
                undecided.append(_entry(card, view, record))

    def rank(group: list[SummaryEntry]) -> tuple[bool, float, int]:
        ranks = ([e.rank for e in group if e.rank is not None]
                 or [e.size_value for e in group if e.size_value is not None])
        return (all(e.network for e in group), -max(ranks) if ranks else math.inf,
                group[0].line)

    shown = {v.id for card in cards for v in card.headlines + card.steps}
    taken = {a for card in cards for a in [card.anchor, *card.aliases]}
    beyond: dict[str, tuple[list[str], list[str]]] = {}
    for r in records:
        if r.get("finding") and not r.get("headline") and r.get("line") is not None and \
                str(r["id"]) not in shown:
            ids, anchors = beyond.setdefault(str(r["finding"]), ([], []))
            ids.append(str(r["id"]))
            if f"line-{r['line']}" not in taken:
                taken.add(f"line-{r['line']}")
                anchors.append(f"line-{r['line']}")
    order = [w for w in VERDICTS if w in counts] + sorted(set(counts) - set(VERDICTS))
    statements, decided = verdict_totals(v.verdict for c in cards for v in c.headlines)
    return Summary([(w, counts[w]) for w in order], statements, decided,
                   sorted(wrong.values(), key=rank), sorted(misprints.values(), key=rank),
                   stronger,
                   [markdown_html(f) for f in findings],
                   [(f, ids, anchors) for f, (ids, anchors) in sorted(beyond.items())],
                   undecided, [(w, markdown_html(d)) for w, d in VERDICT_DEFINITIONS]
                   + [("the network's runs", markdown_html(NETWORK_LIMIT))])
