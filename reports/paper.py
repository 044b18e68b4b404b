"""The paper's LaTeX source as data: its lines, labels, sections, figures and macros, and the
list of its *statements* that the claim registry must cover.

The paper is ``src/tasksim/paper/paper.tex`` in this repository (a copy of the source the
registry was written against, shipped as package data), or the file named by
``$TASKSIM_PAPER``. :func:`load_paper` reads it (the only IO here); everything else is a pure
function of the text.

Statements (:meth:`Paper.statements`), found mechanically (:mod:`tasksim.reports.finders`):

- every *display clause*: every display-math environment, ``$$`` and ``\\[``, labelled or
  not, split into its clauses (a chain continued by ``&=`` is one; a new left-hand side, a
  labelled row or an equation beside another after ``\\quad`` starts another);
- every *asserting sentence* of the prose (abstract, main text, captions, appendices): inline
  math with an asserting relation, or a word of
  :data:`~tasksim.reports.finders.ASSERTION_WORDS`; not a sentence that opens as a definition
  or a choice of setting ("where", "Let us", "We set");
- every *figure panel*: the bold letters of the captions, one statement per letter.

Statements are keyed by (line, clause): the clause numbers the statements that start on one
line in the order of the source. What the finders miss, the scope of each statement and the
claims that answer it are joined in :mod:`tasksim.reports.statement_index`.
:meth:`Paper.about_prior_work` tells a sentence about prior work (the Related works section,
or a sentence that cites and refers to no equation of the paper).

Sentences are split at full stops outside math; a statement is located by its first line
(1-based, as editors and ``grep -n`` count). Section numbers follow LaTeX's counters:
``\\section`` 1, 2, ..., letters after ``\\appendix``; subsections ``4.1``, ``B.2``, ...;
figures are numbered in order of their ``figure`` environments (Figs. 1-9).

Examples
--------
>>> text = "\\\\begin{document}\\n\\\\section{Model}\\nIt needs $N_s \\\\ll N_x$. We use it.\\n"
>>> paper = Paper.from_text(text)
>>> [(s.key, s.kind, s.text) for s in paper.statements()]
[('L3.1', 'sentence', 'It needs $N_s \\\\ll N_x$.')]
>>> paper.section_of(3).name
'Sec. 1'
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Optional, Sequence

from .finders import assertion_cue, find_displays, find_panels, panel_letters

__all__ = ["PAPER_ENV", "default_paper_path", "load_paper", "Paper", "Section", "Statement",
           "STATEMENT_KINDS", "MATH_ENVIRONMENTS", "normalize"]

PAPER_ENV = "TASKSIM_PAPER"
"""Environment variable naming another copy of the paper's LaTeX source."""

MATH_ENVIRONMENTS = ("align", "align*", "equation", "equation*", "gather", "multline",
                     "eqnarray")
"""Display-math environments (``subequations`` only groups them)."""

_ABBREVIATIONS = ("e.g", "i.e", "Eq", "Eqs", "Fig", "Figs", "al", "vs", "resp", "cf", "Sec",
                  "etc")
_SKIP_LINE = re.compile(r"^\s*(\\includegraphics|\\centering|\\label\{fig|%|\\bibliography|"
                        r"\\newpage|\\maketitle|\\appendix|\{\\small|\}\s*$)")


@lru_cache(maxsize=None)
def normalize(latex: str) -> str:
    """``latex`` without whitespace: how a quote is compared with the source (memoized: the
    statement index compares every claim's quote with every statement).

    >>> normalize(r"\\rho_a (2 \\rho_b - \\rho_a)")
    '\\\\rho_a(2\\\\rho_b-\\\\rho_a)'
    """
    return re.sub(r"\s+", "", latex)


@dataclass(frozen=True)
class Section:
    """A part of the paper: ``number`` as LaTeX numbers it ("4", "5.1", "B.2", "Abstract"),
    its title and its lines (1-based, inclusive)."""

    number: str
    title: str
    start: int
    end: int

    @property
    def name(self) -> str:
        """"Sec. 5.1", "Appendix B.2" or "Abstract"."""
        if self.number[:1].isdigit():
            return f"Sec. {self.number}"
        if self.number[:1].isupper() and (len(self.number) == 1 or self.number[1] == "."):
            return f"Appendix {self.number}"
        return self.number

    @property
    def top(self) -> str:
        """The top-level part: "Sec. 5" for "Sec. 5.1", "Appendix B" for "Appendix B.2"."""
        head = self.number.split(".")[0]
        return Section(head, "", 0, 0).name


STATEMENT_KINDS = ("display", "sentence", "figure panel")
"""The kinds of statement in :meth:`Paper.statements` (``"equation"`` is the kind of the
labelled rows of :meth:`Paper.equations`)."""


@dataclass(frozen=True)
class Statement:
    """One statement of the paper: its first and last line, its kind (one of
    :data:`STATEMENT_KINDS`, or ``"equation"`` for :meth:`Paper.equations`), its source text,
    its label (a display's ``\\label``, a panel's "Fig. 9E"), its ``clause`` (1, 2, ... among
    the statements that start on its line) and ``cue``: how it was found."""

    line: int
    end: int
    kind: str
    text: str
    label: str = ""
    clause: int = 1
    cue: str = ""

    @property
    def key(self) -> str:
        """``L<line>.<clause>``: the statement's key, stable while the source is."""
        return f"L{self.line}.{self.clause}"


@dataclass(frozen=True)
class _Chunk:
    """A run of prose characters with the line each character came from."""

    text: str
    lines: tuple[int, ...]


@dataclass
class Paper:
    """The paper's source, parsed (see the module docstring)."""

    text: str
    path: Optional[Path] = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_text(cls, text: str, path: Optional[Path] = None) -> "Paper":
        return cls(text, path)

    @cached_property
    def lines(self) -> tuple[str, ...]:
        """The source lines; ``lines[k - 1]`` is line ``k``."""
        return tuple(self.text.split("\n"))

    def line(self, number: int) -> str:
        """Line ``number`` (1-based)."""
        if not 1 <= number <= len(self.lines):
            raise ValueError(f"line must be in 1..{len(self.lines)}, got {number}")
        return self.lines[number - 1]

    @cached_property
    def labels(self) -> dict[str, int]:
        """Every ``\\label{...}`` and its line."""
        found = {}
        for k, text in enumerate(self.lines, 1):
            for name in re.findall(r"\\label\{([^}]*)\}", text):
                found[name] = k
        return found

    @cached_property
    def macros(self) -> dict[str, str]:
        """The argument-free ``\\newcommand``s of the preamble: name (with backslash) ->
        replacement."""
        found = {}
        for name, body in re.findall(r"\\newcommand\{(\\[A-Za-z]+)\}\{(.*)\}\s*$",
                                     self.text, flags=re.MULTILINE):
            found[name] = body
        return found

    def expand_macros(self, latex: str) -> str:
        """``latex`` with the paper's own macros replaced by their definitions, so that any
        TeX-math renderer can show a quote (``\\lla`` -> ``\\left\\langle``, ...).

        >>> Paper.from_text(r"\\newcommand{\\tr}{\\text{tr}}").expand_macros(r"\\tr[A] + \\tri")
        '\\\\text{tr}[A] + \\\\tri'
        """
        macros = self.macros
        if not macros:
            return latex
        pattern = re.compile(r"(\\[A-Za-z]+)(?![A-Za-z])")
        return pattern.sub(lambda m: macros.get(m.group(1), m.group(1)), latex)

    # -- structure ----------------------------------------------------------------------------

    @cached_property
    def _body_range(self) -> tuple[int, int]:
        start = next((k for k, t in enumerate(self.lines, 1) if "\\begin{document}" in t), 1)
        end = next((k for k, t in enumerate(self.lines, 1) if "\\end{document}" in t),
                   len(self.lines))
        return start, end

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        """Abstract, sections, subsections and subsubsections, in order."""
        start, end = self._body_range
        heads: list[tuple[int, str, str]] = []
        counters = [0, 0, 0]
        appendix = False
        for k in range(start, end + 1):
            text = self.lines[k - 1]
            if "\\begin{abstract}" in text:
                heads.append((k, "Abstract", "Abstract"))
            if re.match(r"\s*\\appendix\b", text):
                appendix, counters = True, [0, 0, 0]
            match = re.match(r"\s*\\(section|subsection|subsubsection)\*?\{(.*?)\}", text)
            if not match:
                continue
            depth = ("section", "subsection", "subsubsection").index(match.group(1))
            counters[depth] += 1
            counters[depth + 1:] = [0] * (2 - depth)
            head = chr(ord("A") + counters[0] - 1) if appendix else str(counters[0])
            number = ".".join([head] + [str(c) for c in counters[1:depth + 1]])
            heads.append((k, number, match.group(2).strip()))
        out = []
        for i, (k, number, title) in enumerate(heads):
            last = heads[i + 1][0] - 1 if i + 1 < len(heads) else end
            out.append(Section(number, title, k, last))
        return tuple(out)

    def section_of(self, line: int) -> Section:
        """The innermost section that contains ``line`` (front matter: "Front matter")."""
        best = Section("Front matter", "", 1, self._body_range[0])
        for section in self.sections:
            if section.start <= line <= section.end:
                best = section
        return best

    @cached_property
    def figures(self) -> tuple[tuple[int, int, int], ...]:
        """(number, first line, last line) of every ``figure`` environment, in order."""
        out, begin = [], None
        for k, text in enumerate(self.lines, 1):
            if "\\begin{figure}" in text:
                begin = k
            elif "\\end{figure}" in text and begin is not None:
                out.append((len(out) + 1, begin, k))
                begin = None
        return tuple(out)

    def figure_of(self, line: int) -> Optional[int]:
        """The number of the figure whose environment (caption) contains ``line``, if any."""
        for number, first, last in self.figures:
            if first <= line <= last:
                return number
        return None

    def place(self, line: int) -> str:
        """Where ``line`` stands, for a reader: "Sec. 5.1", "Fig. 2 caption", "Appendix B.3".

        >>> Paper.from_text("\\\\begin{document}\\n\\\\section{A}\\nx\\n").place(3)
        'Sec. 1'
        """
        figure = self.figure_of(line)
        return f"Fig. {figure} caption" if figure else self.section_of(line).name

    # -- math and prose -----------------------------------------------------------------------

    @cached_property
    def _display_math(self) -> tuple[tuple[int, int], ...]:
        """(first, last) line of every display-math environment."""
        names = "|".join(re.escape(n) for n in MATH_ENVIRONMENTS)
        begin = re.compile(r"\\begin\{(" + names + r")\}")
        spans, open_at = [], None
        for k, text in enumerate(self.lines, 1):
            if open_at is None and begin.search(text):
                open_at = k
            if open_at is not None and re.search(r"\\end\{(" + names + r")\}", text):
                spans.append((open_at, k))
                open_at = None
        return tuple(spans)

    def in_display_math(self, line: int) -> bool:
        """True when ``line`` belongs to a display-math environment."""
        return any(a <= line <= b for a, b in self._display_math)

    def label_span(self, label: str) -> tuple[int, int]:
        """The lines of a labelled equation's row: from its label to the line before the next
        row separator ``\\\\`` at the row's end, or the end of the environment."""
        if label not in self.labels:
            raise KeyError(f"no label {label!r} in the paper")
        first = self.labels[label]
        env = next(((a, b) for a, b in self._display_math if a <= first <= b), None)
        if env is None:
            return first, first
        last = env[1]
        for k in range(first, env[1] + 1):
            text = self.lines[k - 1]
            if k > first and ("\\label{" in text or re.match(r"\s*\\\\", text)):
                last = k - 1
                break
        return first, last

    def equations(self) -> tuple[Statement, ...]:
        """Every labelled equation (``eq_*`` labels inside display math)."""
        out = []
        for label, line in sorted(self.labels.items(), key=lambda kv: kv[1]):
            if not label.startswith("eq_") or not self.in_display_math(line):
                continue
            first, last = self.label_span(label)
            body = " ".join(self.lines[k - 1] for k in range(first, last + 1))
            out.append(Statement(first, last, "equation", " ".join(body.split()), label))
        return tuple(out)

    def _prose_chunks(self) -> list[_Chunk]:
        """The body's prose, outside display math, in runs separated by headings and
        environments; comments, graphics and bibliography left out."""
        start, end = self._body_range
        chunks: list[_Chunk] = []
        text: list[str] = []
        lines: list[int] = []
        skip_env = False

        def flush() -> None:
            if "".join(text).strip():
                chunks.append(_Chunk("".join(text), tuple(lines)))
            text.clear()
            lines.clear()

        for k in range(start + 1, end):
            raw = self.lines[k - 1]
            if "\\begin{ack}" in raw:
                skip_env = True
            if skip_env:
                skip_env = "\\end{ack}" not in raw
                flush()
                continue
            if self.in_display_math(k):
                # a display equation ends the prose before it: the equation is a statement
                # of its own when labelled, and the prose after it starts afresh
                flush()
                continue
            if _SKIP_LINE.match(raw) or re.match(r"\s*\\(section|subsection|subsubsection|"
                                                  r"begin|end|paragraph\*?)", raw) and \
                    not re.match(r"\s*\\(paragraph\*?)\{[^}]*\}\s*\S", raw):
                flush()
                continue
            line_text = re.sub(r"(?<!\\)%.*$", "", raw)
            line_text = re.sub(r"^\s*\\paragraph\*?\{[^}]*\}", "", line_text)
            line_text = re.sub(r"\\caption\{", "", line_text)
            line_text = re.sub(r"\\label\{[^}]*\}", "", line_text)
            for ch in line_text + " ":
                text.append(ch)
                lines.append(k)
        flush()
        return chunks

    def sentences(self) -> tuple[Statement, ...]:
        """Every prose sentence (module docstring), with its first and last line (split once
        per paper: the statement index asks for them once per listed miss)."""
        return self._sentences

    @cached_property
    def _sentences(self) -> tuple[Statement, ...]:
        out = []
        for chunk in self._prose_chunks():
            for first, last, sentence in _split_sentences(chunk):
                out.append(Statement(first, last, "sentence", sentence))
        return tuple(out)

    def displays(self) -> tuple[Statement, ...]:
        """Every clause of every display equation, labelled or not
        (:func:`tasksim.reports.finders.find_displays`)."""
        start, end = self._body_range
        return tuple(Statement(d.first_line, d.last_line, "display", d.text,
                               ", ".join(d.labels), cue="display")
                     for d in find_displays(self.text) if start <= d.first_line <= end)

    def figure_panels(self) -> tuple[Statement, ...]:
        """Every panel of every figure ("Fig. 9E"), with the caption sentence that names it
        (:func:`tasksim.reports.finders.find_panels`)."""
        out = []
        line_of = _offset_to_line(self.text)
        sentences = self.sentences()
        for panel in find_panels(self.text):
            line = line_of(panel.offset)
            owner = next((s for s in sentences if s.line <= line <= s.end
                          and normalize(panel.marker) in normalize(s.text)), None)
            text, last = (owner.text, owner.end) if owner else (panel.marker, line)
            out.append(Statement(line, last, "figure panel", text,
                                 f"Fig. {panel.figure}{panel.letter}", cue="panel marker"))
        return tuple(out)

    def asserting_sentences(self) -> tuple[Statement, ...]:
        """The prose sentences that assert a value, comparison, limit or trend
        (:func:`tasksim.reports.finders.assertion_cue`), each with its cue; a caption sentence
        that opens with a panel marker is that panel's statement, not a sentence of its own."""
        out = []
        for s in self.sentences():
            cue = assertion_cue(s.text)
            if cue and not _PANEL_LEAD.match(s.text):
                out.append(Statement(s.line, s.end, s.kind, s.text, cue=cue))
        return tuple(out)

    def statements(self) -> tuple[Statement, ...]:
        """The statements the finders find: every display clause, every asserting sentence,
        every figure panel, ordered as they stand in the source, each with its clause number
        on its line (module docstring)."""
        if "statements" not in self._cache:
            self._cache["statements"] = self.number_clauses(
                self.displays() + self.asserting_sentences() + self.figure_panels())
        return self._cache["statements"]

    def number_clauses(self, found: Sequence[Statement]) -> tuple[Statement, ...]:
        """``found`` in the order of the source, each numbered among those on its line."""
        ordered = sorted(found, key=lambda s: (s.line, self._column(s), s.end))
        out, count = [], {}
        for s in ordered:
            count[s.line] = count.get(s.line, 0) + 1
            out.append(replace(s, clause=count[s.line]))
        return tuple(out)

    def _column(self, statement: Statement) -> int:
        """Where ``statement`` starts on its line (a display owns its line: column 0)."""
        if statement.kind == "display":
            return 0
        text = self.line(statement.line)
        probe = statement.text[:24] if statement.kind == "sentence" else \
            re.sub(r"[^A-Za-z]", "", statement.label)[-1:]
        if statement.kind == "figure panel":
            for m in re.finditer(r"\\textbf\{\(?([A-H\s,-]+)\)?\}", text):
                if probe in panel_letters(m.group(1).strip()):
                    return m.start()
            return 0
        found = re.search(r"\s+".join(map(re.escape, probe.split())), text)
        return found.start() if found else len(text)

    def about_prior_work(self, sentence: Statement) -> bool:
        """True for a sentence of the Related works section, or one that cites prior work and
        no equation of this paper: it states what others found, not a result of this paper.
        Only the sentence itself: the other sentences of its line are judged on their own."""
        section = self.section_of(sentence.line)
        if section.title.lower().startswith("related work"):
            return True
        return "\\cite" in sentence.text and "\\ref{eq_" not in sentence.text

    def contains(self, quote: str, line: int, before: int = 3, after: int = 6) -> bool:
        """True when ``quote`` (whitespace ignored) occurs verbatim in the source between
        ``line - before`` and ``line + after``."""
        lo = max(1, line - before)
        hi = min(len(self.lines), line + after)
        window = normalize(" ".join(self.lines[lo - 1:hi]))
        return normalize(quote) in window


_PANEL_LEAD = re.compile(r"^\s*(\(\\textbf\{[A-H][A-H\s,-]*\}\)|\\textbf\{\([A-H][A-H\s,-]*\)\})")
"""A caption sentence that opens with a panel marker."""


def _offset_to_line(text: str):
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    return lambda offset: bisect.bisect_right(starts, offset)


def _split_sentences(chunk: _Chunk) -> list[tuple[int, int, str]]:
    """Sentences of a prose chunk: split at '. ' (or '.' at the end) outside $...$ math and
    not after a known abbreviation or a single capital (initials)."""
    text, lines = chunk.text, chunk.lines
    out = []
    start, in_math = 0, False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "$" and (i == 0 or text[i - 1] != "\\"):
            in_math = not in_math
        elif ch in ".?!" and not in_math and (i + 1 == len(text) or text[i + 1].isspace()):
            word = re.search(r"([A-Za-z.]+)$", text[start:i])
            previous = word.group(1) if word else ""
            initial = re.fullmatch(r"[A-Z]", previous) and not re.search(
                r"(\band|,|\})\s*[A-Z]$", text[start:i])
            if previous not in _ABBREVIATIONS and not initial \
                    and not previous.endswith(("e.g", "i.e")):
                _append_sentence(out, text, lines, start, i + 1)
                start = i + 1
        i += 1
    _append_sentence(out, text, lines, start, len(text))
    return out


def _append_sentence(out: list, text: str, lines: tuple[int, ...], a: int, b: int) -> None:
    piece = text[a:b]
    stripped = " ".join(piece.split())
    while stripped.endswith("}") and stripped.count("}") > stripped.count("{"):
        stripped = stripped[:-1].rstrip()  # the brace that closes a caption
    if len(stripped) < 3 or not re.search(r"[A-Za-z]", stripped):
        return
    offset = a + (len(piece) - len(piece.lstrip()))
    last = a + len(piece.rstrip()) - 1
    out.append((lines[offset], lines[max(offset, last)], stripped))


def default_paper_path() -> Path:
    """``$TASKSIM_PAPER`` if set, else the copy that ships inside the package as package data
    (``src/tasksim/paper/paper.tex`` in the checkout), found with importlib.resources."""
    named = os.environ.get(PAPER_ENV, "").strip()
    if named:
        return Path(named)
    return Path(str(resources.files("tasksim").joinpath("paper", "paper.tex")))


def load_paper(path: Optional[Path] = None) -> Paper:
    """Read the paper's LaTeX source (:func:`default_paper_path` unless ``path`` is given).

    Raises FileNotFoundError with the places looked at when there is none.
    """
    target = Path(path) if path is not None else default_paper_path()
    if not target.is_file():
        raise FileNotFoundError(f"the paper's LaTeX source is not at {target} (set "
                                f"${PAPER_ENV}, or restore src/tasksim/paper/paper.tex)")
    return Paper.from_text(target.read_text(encoding="utf-8"), target)
