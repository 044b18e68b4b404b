"""The statement index: every statement of the paper, keyed by (line, clause), with what the
claim registry says about it.

The denominator of the coverage, and how it is built:

1. the mechanical finders (:mod:`tasksim.reports.finders` through
   :meth:`~tasksim.reports.paper.Paper.statements`): every clause of every display equation,
   labelled or not; every prose sentence (abstract, main text, captions, appendices) that
   asserts a value, comparison, limit or trend; every figure panel;
2. the checked-in list of what the finders miss (:data:`MISSES_PATH`,
   ``reports/data/missed_statements.csv``: line, kind, quote, why the finder misses it, and an
   out-of-scope reason when there is one), each entry checked against the source;
3. the join with the registry: a statement is *claimed* when a claim's own anchor or one of its
   restatements (``line``, ``printed_latex``; ``restates``) lies in its lines and, for prose,
   quotes its words; a figure panel also when it is among the claims a panel plots
   (:data:`tasksim.derivations.links.PANELS`, the one it shows first) or a claim's ``where``
   cites it ("Fig. 7D").

A statement that no claim answers is *out of scope* when a stated reason takes it out (a
sentence about prior work, a definition, a schematic, an entry of
:data:`tasksim.derivations.scope.OUT_OF_SCOPE`), else *unclaimed*: listed, never hidden
(a coverage state, not the verdict "not decided").

Examples
--------
>>> from tasksim.derivations.claims import Claim
>>> from tasksim.reports.paper import Paper
>>> paper = Paper.from_text("\\\\begin{document}\\n\\\\section{A}\\n"
...     "Gating helps \\\\citep{x}. It is optimal at $\\\\alpha = 1$.\\n\\\\end{document}\\n")
>>> c = Claim("demo", "Sec. 1", None, "optimal at $\\\\alpha = 1$", None, line=3)
>>> [(s.key, s.state, s.claim_ids) for s in statement_index(paper, [c], (), misses=())]
[('L3.1', 'out of scope', ()), ('L3.2', 'claimed', ('demo',))]
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from tasksim.derivations.claims import Claim
from tasksim.derivations.links import PANELS
from tasksim.derivations.scope import OUT_OF_SCOPE, OutOfScope

from .finders import RELATION, panel_letters
from .paper import Paper, Statement, load_paper, normalize

__all__ = ["Anchor", "anchors", "answers", "claim_line", "Miss", "MISSES_PATH", "load_misses",
           "miss_problems", "IndexedStatement", "statement_index", "index_counts",
           "FOUND_BY"]

MISSES_PATH = Path(__file__).resolve().parent / "data" / "missed_statements.csv"
"""The checked-in list of statements the finders miss."""

FOUND_BY = {
    "display": "display finder: every clause of every display-math environment (`align`, "
               "`equation`, ...) and of every `$$` and `\\[` display, labelled or not",
    "sentence": "sentence finder: an asserting relation in inline math or an assertion word",
    "figure panel": "panel finder: the bold panel letters of each caption",
    "list": "checked-in list (reports/data/missed_statements.csv)",
}
"""How each statement was found, for the report."""


# -- the registry's anchors -----------------------------------------------------------------

@dataclass(frozen=True)
class Anchor:
    """A place a claim answers: (line, verbatim quote), and whether it is the claim's own place
    or a restatement, and whether the claim is a headline."""

    claim_id: str
    line: int
    quote: str
    headline: bool
    restated: bool = False


def claim_line(claim: Claim, paper: Paper) -> Optional[int]:
    """The claim's line; for a claim without one (written before lines existed), the line of
    the first label its ``where`` cites, else None.

    >>> p = Paper.from_text("\\\\begin{document}\\n\\\\begin{align} \\\\label{eq_x}\\nx\\n\\\\end{align}\\n")
    >>> claim_line(Claim("d", "eq_x", None, "x", None, note="n"), p)
    2
    """
    if claim.line is not None:
        return claim.line
    for token in re.findall(r"\b((?:eq|subsec|sec|fig)_[A-Za-z0-9_+]*[A-Za-z0-9+])", claim.where):
        if token in paper.labels:
            return paper.labels[token]
    return None


def anchors(claims: Iterable[Claim], paper: Optional[Paper] = None) -> list[Anchor]:
    """Every claim's own anchor and its restatements."""
    out = []
    for c in claims:
        line = c.line if paper is None else claim_line(c, paper)
        if line is not None:
            out.append(Anchor(c.id, line, c.printed_latex, c.headline))
        out += [Anchor(c.id, l, q, c.headline, restated=True) for l, q in c.restates]
    return out


def answers(anchor_line: int, quote: str, statement: Statement) -> bool:
    """A claim's anchor (line, quote) answers ``statement``: the line is among its lines and,
    for prose, the quote and the statement's words overlap (one contains the other).

    >>> s = Statement(4, 5, "sentence", "It is optimal at $\\\\alpha = 1$.")
    >>> answers(4, "optimal at $\\\\alpha = 1$", s), answers(4, "other words", s)
    (True, False)
    """
    if statement.kind not in ("display", "equation") and \
            not statement.line <= anchor_line <= statement.end:
        return False
    q, text = normalize(quote), normalize(statement.text)
    if statement.kind in ("display", "equation"):
        # a display clause: the anchor is on its lines, or a quote of the whole row that
        # holds it (equations side by side) starts at most a few lines above
        whole_row = statement.line - 3 <= anchor_line <= statement.end and \
            len(text) > 8 and text.rstrip(".,") in q
        return statement.line <= anchor_line <= statement.end or whole_row
    return bool(q) and (q in text or text in q)


_FIGURE_CITE = re.compile(r"\bFigs?\.\s*((?:\d+[A-H](?:-[A-H])?(?:\s*(?:,|and)\s*(?=\d))?)+)")


def cited_panels(where: str) -> set[str]:
    """The panels a claim's ``where`` cites: "Figs. 4B, 4C" -> {"Fig. 4B", "Fig. 4C"}.

    >>> sorted(cited_panels("Sec. 6.1 (Figs. 4B, 4C); Fig. 7D; Fig. 5A-C; Fig. 7"))
    ['Fig. 4B', 'Fig. 4C', 'Fig. 5A', 'Fig. 5B', 'Fig. 5C', 'Fig. 7D']
    """
    out = set()
    for match in _FIGURE_CITE.finditer(where):
        for number, letters in re.findall(r"(\d+)([A-H](?:-[A-H])?)", match.group(1)):
            out |= {f"Fig. {number}{x}" for x in panel_letters(letters)}
    return out


# -- the checked-in list of misses -----------------------------------------------------------

@dataclass(frozen=True)
class Miss:
    """A statement the finders miss: its line, kind, a verbatim quote of it, why the finder
    misses it, and why it is out of scope (empty: in scope)."""

    line: int
    kind: str
    quote: str
    why_missed: str
    out_of_scope: str = ""


def load_misses(path: Optional[Path] = None) -> tuple[Miss, ...]:
    """The checked-in list (:data:`MISSES_PATH` unless ``path``); a malformed row is refused
    in one line naming the file and the row."""
    target = Path(path) if path is not None else MISSES_PATH
    if not target.is_file():
        raise FileNotFoundError(f"the list of missed statements is not at {target}")
    out = []
    with target.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.reader(handle) if r and not r[0].startswith("#")]
    header, body = rows[0], rows[1:]
    if header[:4] != ["line", "kind", "quote", "why_missed"]:
        raise ValueError(f"{target}: header must start line,kind,quote,why_missed; got {header}")
    for number, row in enumerate(body, 2):
        if len(row) < 4 or not row[0].strip().isdigit():
            raise ValueError(f"{target}, row {number}: expected line,kind,quote,why_missed"
                             f"[,out_of_scope], got {row}")
        out.append(Miss(int(row[0]), row[1].strip(), row[2].strip(), row[3].strip(),
                        row[4].strip() if len(row) > 4 else ""))
    return tuple(out)


def miss_problems(paper: Paper, misses: Sequence[Miss]) -> list[str]:
    """What is wrong with the checked-in list against the paper (empty: nothing): a line not
    in the paper, a quote not verbatim at its line (whitespace aside), an unknown kind, an
    entry the finders already find (the list is stale), an entry listed twice."""
    found = []
    finders = paper.statements()
    seen = set()
    for m in misses:
        where = f"missed statement at line {m.line}"
        if m.kind not in ("display", "sentence", "figure panel"):
            found.append(f"{where}: unknown kind {m.kind!r}")
        if not 1 <= m.line <= len(paper.lines):
            found.append(f"{where}: the paper has {len(paper.lines)} lines")
            continue
        if not m.quote.strip() or not (paper.contains(m.quote, m.line, before=0)
                                       and normalize(m.quote)[:12] in normalize(paper.line(m.line))):
            found.append(f"{where}: {m.quote[:60]!r} is not verbatim at that line")
        if any(answers(m.line, m.quote, s) and s.kind == m.kind for s in finders):
            found.append(f"{where}: the finders already find it; remove it from the list")
        key = (m.line, normalize(m.quote))
        if key in seen:
            found.append(f"{where}: listed twice")
        seen.add(key)
    return found


def _miss_statement(paper: Paper, miss: Miss) -> Statement:
    """The statement a listed miss stands for: the prose sentence that holds its quote, else
    the quote itself on its line."""
    owner = next((s for s in paper.sentences() if s.line <= miss.line <= s.end
                  and normalize(miss.quote) in normalize(s.text)), None)
    if owner is not None and miss.kind == "sentence":
        return Statement(owner.line, owner.end, "sentence", owner.text, cue="listed")
    return Statement(miss.line, miss.line, miss.kind, miss.quote, cue="listed")


# -- the index -------------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexedStatement:
    """One statement of the paper and where it stands.

    ``line``, ``clause``: the key (a line may hold several clauses, numbered 1, 2, ... in the
    order of the source); ``end``: its last line; ``kind``: "display", "sentence" or "figure
    panel"; ``quote``: its source text; ``label``: a display's ``\\label``, a panel's "Fig. 9E";
    ``section``: "Sec. 4", "Appendix B.1", "Fig. 2 caption"; ``found_by``: the finder or
    "checked-in list"; ``in_scope`` and ``scope_reason``; ``claim_ids``: the claims that answer
    it (headline first); ``headline_ids``: the headline claims among them.
    """

    line: int
    clause: int
    end: int
    kind: str
    quote: str
    label: str
    section: str
    found_by: str
    in_scope: bool
    scope_reason: str
    claim_ids: tuple[str, ...]
    headline_ids: tuple[str, ...]
    statement: Statement

    @property
    def key(self) -> str:
        """``L<line>.<clause>``, e.g. "L203.2" (the anchor of its card on the page)."""
        return f"L{self.line}.{self.clause}"

    @property
    def state(self) -> str:
        """"claimed" (a claim answers it), "out of scope" (with its reason) or "unclaimed"
        (no claim yet)."""
        if self.claim_ids:
            return "claimed"
        return "unclaimed" if self.in_scope else "out of scope"

    def as_record(self) -> dict[str, Any]:
        """The statement as a JSON-ready record."""
        return {"key": self.key, "line": self.line, "clause": self.clause, "end": self.end,
                "kind": self.kind, "quote": self.quote, "label": self.label,
                "section": self.section, "found_by": self.found_by, "in_scope": self.in_scope,
                "scope_reason": self.scope_reason, "state": self.state,
                "claim_ids": list(self.claim_ids), "headline_ids": list(self.headline_ids)}


_DEFINING = re.compile(r"^\s*[^=<>]*?(\\equiv|\\leftarrow)(?![a-zA-Z])")
_MODEL_LHS = re.compile(r"^\s*(\\ell_?|\\vy|\\vx\s*=|\\rho_g\s*=|\\hat\{\\vy\}|R_\{?[a-z]+\}?\s*\[|\\varphi\s*\(x\)"
                        r"|p\s*\(\s*W\s*\||[A-Za-z_{},\\^+]+\s*=\s*\\begin\{cases\})")


SENTENCE_SCOPE_RULES: tuple[tuple[str, str], ...] = (
    (r"\b(remains? (unclear|unknown)|make us wonder|not (been )?fully understood|"
     r"(is )?an important future direction|it is also important to)\b",
     "an open question or a motivation: asserts no result"),
    (r"\bwe (parameterize|define|denote)\b|\bis a gating vector whose\b",
     "defines notation or a parameter"),
    (r"\b(was|were) (initialized|sampled|trained|generated|constructed)\b|\berror bars\b|"
     r"\bwe (adjusted|estimated|omitted|did not impose|used the following)\b",
     "describes the method or the numerical protocol (a setting)"),
)
"""(pattern, reason): a sentence that no claim answers and that matches the pattern (case
aside) is out of scope for the reason. A sentence that ends without a full stop introduces the
display after it: the display is the statement, counted there (unless the sentence asserts
something of its own first: "..., thus ... is written as")."""


def scope_reason(paper: Paper, statement: Statement,
                 out_of_scope: Sequence[OutOfScope] = OUT_OF_SCOPE) -> str:
    """Why ``statement`` is out of scope when no claim answers it, or "" (module docstring).

    Only the statement itself is judged: a sentence that cites prior work takes no other
    sentence of its line with it."""
    listed = next((e.reason for e in out_of_scope if answers(e.line, e.quote, statement)), "")
    if listed:
        return listed
    if statement.kind == "sentence" and paper.about_prior_work(statement):
        if paper.section_of(statement.line).title.lower().startswith("related work"):
            return "Related works section: what prior work found, or where this paper stands"
        return "cites prior work and states what it found (this sentence only)"
    if statement.kind == "sentence":
        for pattern, reason in SENTENCE_SCOPE_RULES:
            if re.search(pattern, statement.text, flags=re.IGNORECASE):
                return reason
        if _display_after(paper, statement) is not None and \
                not re.search(r",\s*(thus|therefore|hence)\b", statement.text):
            return ("introduces the display that follows, which is the statement (counted "
                    "there, with the condition this sentence states)")
    if statement.kind == "display":
        text = statement.text
        if _MODEL_LHS.match(text):
            return "defines the model, its loss or its regularizer: nothing to derive"
        if _DEFINING.match(text) and not re.search(r"(?<![\\a-zA-Z])=|\\approx", text):
            return "a definition (an identity sign or an assignment arrow): nothing to derive"
    if statement.kind == "figure panel" and re.search(r"\b(schematic|illustration)\b",
                                                      statement.text, flags=re.IGNORECASE):
        return "a schematic or illustration: shows no result"
    return ""


def _display_after(paper: Paper, statement: Statement) -> Optional[int]:
    """The first line of the display a sentence introduces: the sentence ends without a full
    stop and a display-math environment starts on the next non-blank line."""
    if statement.text.rstrip().endswith((".", "?", "!")):
        return None
    k = statement.end + 1
    while k <= len(paper.lines) and not paper.lines[k - 1].strip():
        k += 1
    if k <= len(paper.lines) and re.match(r"\s*(\\begin\{(subequations|align|equation|gather|"
                                          r"multline|eqnarray)|\$\$|\\\[)", paper.lines[k - 1]):
        return k
    return None


def statement_index(paper: Optional[Paper] = None, claims: Optional[Sequence[Claim]] = None,
                    out_of_scope: Sequence[OutOfScope] = OUT_OF_SCOPE,
                    misses: Optional[Sequence[Miss]] = None,
                    panels: Optional[Mapping[str, Sequence[str]]] = None
                    ) -> tuple[IndexedStatement, ...]:
    """Every statement of the paper, in the order of the source, with the claims that answer
    it and its scope (module docstring).

    Defaults: the repository's paper, the registry's claims
    (:func:`tasksim.derivations.registry.all_claims`), the out-of-scope list and the
    checked-in list of misses, and the claims each figure panel plots
    (:data:`tasksim.derivations.links.PANELS`; the first is the one the panel shows).
    """
    paper = paper if paper is not None else load_paper()
    panels = PANELS if panels is None else panels
    if claims is None:
        from tasksim.derivations.registry import all_claims
        claims = all_claims()
    misses = load_misses() if misses is None else misses
    listed = {}
    for m in misses:
        if not (1 <= m.line <= len(paper.lines) and paper.contains(m.quote, m.line, before=0)):
            continue        # the list is about paper/paper.tex; another source has none of it
        s = _miss_statement(paper, m)
        listed[(s.line, normalize(s.text))] = (s, m)
    found = paper.number_clauses(paper.statements() + tuple(s for s, _ in listed.values()))
    every = anchors(claims, paper)
    by_id = {c.id: c for c in claims}
    out = []
    for s in found:
        hits = [a for a in every if answers(a.line, a.quote, s)]
        if s.kind == "figure panel":
            shown = [i for i in panels.get(s.label, ()) if i in by_id]
            hits = [Anchor(i, s.line, "", by_id[i].headline) for i in shown] + hits
            hits += [Anchor(c.id, s.line, "", c.headline) for c in claims
                     if c.headline and s.label in cited_panels(c.where)]
        ids = tuple(dict.fromkeys(a.claim_id for a in sorted(hits, key=lambda a: not a.headline)))
        heads = tuple(i for i in ids if by_id[i].headline)
        miss = listed.get((s.line, normalize(s.text)), (None, None))[1] \
            if s.cue == "listed" else None
        if miss is not None:
            reason, how = miss.out_of_scope, f"checked-in list: {miss.why_missed}"
        else:
            reason, how = scope_reason(paper, s, out_of_scope), s.cue
        out.append(IndexedStatement(s.line, s.clause, s.end, s.kind, s.text, s.label,
                                    paper.place(s.line), how, bool(ids) or not reason,
                                    "" if ids else reason, ids, heads, s))
    return tuple(out)


def index_counts(index: Sequence[IndexedStatement]) -> dict[str, Any]:
    """The coverage in numbers: statements found, by kind and by how (finders, checked-in
    list); claimed (a claim answers it), out of scope (by reason), unclaimed (no claim yet).

    >>> index_counts([])["found"]
    0
    """
    counts: dict[str, Any] = {
        "found": len(index),
        "by kind": {k: sum(i.kind == k for i in index)
                    for k in ("display", "sentence", "figure panel")},
        "labelled displays": sum(i.kind == "display" and bool(i.label) for i in index),
        "from the checked-in list": sum(i.found_by.startswith("checked-in") for i in index),
        "claimed": sum(i.state == "claimed" for i in index),
        "out of scope": sum(i.state == "out of scope" for i in index),
        "unclaimed": sum(i.state == "unclaimed" for i in index),
    }
    reasons: dict[str, int] = {}
    for i in index:
        if i.state == "out of scope":
            reasons[i.scope_reason] = reasons.get(i.scope_reason, 0) + 1
    counts["out of scope by reason"] = dict(sorted(reasons.items(), key=lambda kv: -kv[1]))
    counts["claimed by kind"] = {k: sum(i.kind == k and i.state == "claimed" for i in index)
                                 for k in ("display", "sentence", "figure panel")}
    return counts
