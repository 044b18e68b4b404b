"""Mechanical finders of the paper's statements in its LaTeX source: display equations (every
one, labelled or not, split into clauses), figure panels (from the captions' panel markers),
and the test that tells a sentence asserting something from one that defines or describes.

Pure functions of the source text; :mod:`tasksim.reports.paper` turns what they find into
:class:`~tasksim.reports.paper.Statement` records with their lines.

Displays (:func:`find_displays`)
    every ``align``, ``equation``, ``gather``, ``multline``, ``eqnarray``, ``flalign``,
    ``alignat``, ``displaymath`` environment (starred or not) and every ``$$...$$`` and
    ``\\[...\\]``. A display holds one or more *clauses*: rows (split at ``\\\\`` outside nested
    environments and braces) start a new clause when they carry a label or have something
    left of their first alignment ``&`` (a new left-hand side); a row that starts with ``&``
    (``&= ...``, ``&\\quad + ...``) continues the clause before it. Inside a row, equations
    written side by side and separated by ``\\quad`` (``W_1 = ..., \\quad W_2 = ...``) are
    clauses of their own when each side states a relation.
Figure panels (:func:`find_panels`)
    the bold letters of a caption: ``\\textbf{(A)}``, ``(\\textbf{C, D})``, ``\\textbf{(E-H)}``
    (a range names every letter in it); each letter is one panel.
Sentences (:func:`assertion_cue`)
    a sentence asserts a value, a comparison, a limit or a trend when its inline math holds an
    asserting relation (``=``, ``<``, ``\\approx``, ``\\ll``, ``\\to``, ...) that is not a
    parameter set to numbers, or when it uses a word of :data:`ASSERTION_WORDS`; a sentence that
    opens as a definition or a choice of setting (:data:`DEFINITION_LEADS`) does not.

Examples
--------
>>> src = "x\\n\\\\begin{align}\\n  a &= b \\\\\\\\\\n  &= c, \\\\\\\\\\n  d &= e.\\n\\\\end{align}\\n"
>>> [(d.first_line, d.last_line) for d in find_displays(src)]
[(3, 4), (5, 5)]
>>> find_displays(src)[1].text
'd &= e.'

>>> [p.letter for p in find_panels(r"\\caption{\\textbf{(A)} One. \\textbf{(C-D)} Two.}")]
['A', 'C', 'D']
>>> assertion_cue("the retention performance remains high."), assertion_cue("We use $W$.")
("word 'high'", '')
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["DISPLAY_ENVIRONMENTS", "ASSERTION_WORDS", "DEFINITION_LEADS", "FoundDisplay",
           "FoundPanel", "find_displays", "find_panels", "assertion_cue", "panel_letters",
           "strip_comments"]

DISPLAY_ENVIRONMENTS = tuple(name + star for name in (
    "align", "equation", "gather", "multline", "eqnarray", "flalign", "alignat", "displaymath")
    for star in ("", "*"))
"""Display-math environments; each is found (``subequations`` only groups them)."""

RELATION = re.compile(r"(?<![\\a-zA-Z:])(=|<|>)|\\(leq|geq|le|ge|ll|gg|approx|to|neq|propto|"
                      r"simeq|rightarrow|equiv|leftarrow|sim|in)(?![a-zA-Z])")
"""A relation in display math (definitions included: a display is always a statement)."""

ASSERTING_RELATION = re.compile(r"(?<![\\a-zA-Z:])(=|<|>)|\\(leq|geq|le|ge|ll|gg|approx|to|"
                                r"neq|propto|simeq|rightarrow)(?![a-zA-Z])")
"""Relations that assert something in inline math (``\\equiv``, ``\\in``, ``\\sim``,
``\\leftarrow`` define)."""

SETTING = re.compile(r"^\s*\(?\s*(\\rho_[abc]|\\rho|\\rho_a,\s*\\rho_b|N_[a-z]+|N_\{[a-z]+\}|"
                     r"\\eta|\\alpha|\\gamma|\\lambda|\\mu|h|W_o)\s*\)?\s*=\s*\(?[-0-9.,\sO]+\)?\s*$"
                     r"|^\s*(\\vy|\\vx|\\vs|\\hat\{\\vy\}|\\psi)\b")
"""A parameter set to numbers (``\\rho_a = 1.0``, ``N_s = 30``), or the model's defining
equation (``\\vy = W ...``): a setting or a definition, not a result."""

ASSERTION_WORDS = (
    # values and comparisons
    "than", "compared", "closer", "better", "worse", "higher", "lower", "larger", "smaller",
    "more ", "less ", "high", "low ", "zero", "positive", "negative", "perfect", "optimal",
    "optimum", "optimiz", "optimis", "maximiz", "maximum", "minimum", "minima", "maxima",
    "equal", "equivalent", "the same", "identical", "coincide", "consistent", "capture",
    "significantly", "much ", "modest", "small", "large", "chance level", "non-zero",
    # limits and approximations
    "limit", "leading order", "approximat", "negligible", "vanish", "exact", "holds", "hold ",
    "valid", "unique", "does not rely", "arbitrary", "only when", "as long as", "unless",
    # trends and effects
    "increas", "decreas", "monoton", "depend", "independent", "invariant", "remain", "scale",
    "drops", "shifts", "improv", "impair", "enhanc", "lowers", "reduc", "helps", "help ",
    "aids", "benefit", "harm", "worsen", "mitigat", "outperform", "attenuat", "robust",
    "sensitive", "tradeoff", "trade-off", "at the cost", "expense", "fail", "forget",
    "catastroph", "benign", "detrimental", "difficult", "asymmetr", "exhibit", "observed",
    "predicted", "as expected", "we found", "we show", "reveal", "demonstrate", "indicat",
    "implies", "implying", "implied", "suggest", "non-trivial", "efficient", "expensive", "sparse", "full-rank",
    "low-rank", "not affect", "influence", "doesn't", "does not", "do not", "cannot",
    "disappears", "achieve", "enables", "allows", "contains", "additional", "recover",
)
"""Words with which the paper states a value, a comparison, a limit or a trend in prose
(matched case-insensitively, anywhere in the sentence)."""

DEFINITION_LEADS = ("where ", "we define", "we denote", "let us", "we use ", "we set ",
                    "we used ", "we generate", "we sample", "we construct", "we consider",
                    "we trained", "we initialized", "we initialised", "we estimated",
                    "we scaled", "we controlled", "we introduce", "below, we", "we implement",
                    "we measure", "using the probe", "the goal", "throughout",
                    "suppose", "to this end", "denoting", "with gating of", "here, $",
                    "we evaluate", "we then set", "we sample", "we defined", "we constructed",
                    "we introduced", "source codes", "numerical experiments were conducted",
                    "recall that")
"""How a sentence that defines notation, chooses a setting or describes the method begins
(lower case)."""

_PANEL_MARKER = re.compile(r"\(\\textbf\{([A-H](?:\s*[-,]\s*[A-H])*)\}\)"
                           r"|\\textbf\{\(([A-H](?:\s*[-,]\s*[A-H])*)\)\}")


def strip_comments(text: str) -> str:
    """``text`` with every ``%`` comment blanked by spaces (offsets and lines unchanged).

    >>> strip_comments("a % b\\nc")
    'a    \\nc'
    """
    return re.sub(r"(?<!\\)%[^\n]*", lambda m: " " * len(m.group(0)), text)


class _Lines:
    """Offsets to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


@dataclass(frozen=True)
class FoundDisplay:
    """One clause of a display: its lines, its source text (labels and ``\\nonumber``
    removed, whitespace collapsed), its labels, and the display's own first and last line."""

    first_line: int
    last_line: int
    text: str
    labels: tuple[str, ...]
    display_start: int
    display_end: int


def _display_spans(text: str) -> list[tuple[int, int, int, int]]:
    """(begin of display, begin of body, end of body, end of display) offsets, in order."""
    names = "|".join(re.escape(n) for n in DISPLAY_ENVIRONMENTS)
    spans = []
    for m in re.finditer(r"\\begin\{(" + names + r")\}", text):
        end = text.find("\\end{" + m.group(1) + "}", m.end())
        if end >= 0:
            spans.append((m.start(), m.end(), end, end + len("\\end{" + m.group(1) + "}")))
    for m in re.finditer(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$", text, flags=re.DOTALL):
        spans.append((m.start(), m.start(1), m.end(1), m.end()))
    for m in re.finditer(r"(?<!\\)\\\[(.+?)(?<!\\)\\\]", text, flags=re.DOTALL):
        spans.append((m.start(), m.start(1), m.end(1), m.end()))
    spans.sort()
    out, reach = [], -1
    for span in spans:       # a display inside another (never in this paper) is the outer's
        if span[0] >= reach:
            out.append(span)
            reach = span[3]
    return out


def _top_level(body: str, a: int, b: int, token: str) -> list[int]:
    """Offsets in ``body[a:b]`` where ``token`` occurs outside braces and nested
    environments."""
    found, depth, env, i = [], 0, 0, a
    while i < b:
        if body.startswith("\\begin{", i):
            env += 1
        elif body.startswith("\\end{", i):
            env -= 1
        ch = body[i]
        if ch == "\\" and body.startswith(token, i) and depth == 0 and env == 0 and \
                not (token[-1].isalpha() and i + len(token) < b
                     and body[i + len(token)].isalpha()):
            found.append(i)
            i += len(token)
            continue
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        i += 1
    return found


_NOISE = re.compile(r"\\label\{[^}]*\}|\\nonumber\b|\\notag\b")


def _clean(piece: str) -> str:
    return " ".join(_NOISE.sub(" ", piece).split())


def _content_bounds(text: str, a: int, b: int) -> tuple[int, int]:
    """First and last offsets of ``text[a:b]`` that are neither blank nor a label."""
    mask = [True] * (b - a)
    for m in _NOISE.finditer(text, a, b):
        for k in range(m.start(), min(m.end(), b)):
            mask[k - a] = False
    keep = [k for k in range(a, b) if mask[k - a] and not text[k].isspace()]
    return (keep[0], keep[-1]) if keep else (a, a)


def find_displays(text: str) -> list[FoundDisplay]:
    """Every clause of every display of ``text`` (module docstring), in order."""
    source = strip_comments(text)
    line_of = _Lines(source)
    out = []
    for start, a, b, stop in _display_spans(source):
        rows, cut = [], a
        for k in _top_level(source, a, b, "\\\\") + [b]:
            rows.append((cut, k))
            cut = k + 2
        clauses: list[tuple[list[tuple[int, int]], set[str]]] = []
        for ra, rb in rows:
            piece = source[ra:rb]
            if not _clean(piece):
                continue
            labels = set(re.findall(r"\\label\{([^}]*)\}", piece))
            if not clauses or labels or not _NOISE.sub(" ", piece).lstrip().startswith("&"):
                clauses.append(([], set()))
            clauses[-1][1].update(labels)
            # equations side by side: a \quad with a relation on both sides starts a clause,
            # which carries the row's label (one equation number)
            cuts = [ra] + [q for q in _top_level(source, ra, rb, "\\quad")
                           if RELATION.search(source[ra:q]) and RELATION.search(source[q:rb])]
            cuts.append(rb)
            for i in range(len(cuts) - 1):
                lo = cuts[i] + (len("\\quad") if i else 0)
                if i > 0:
                    clauses.append(([], set(labels)))
                clauses[-1][0].append((lo, cuts[i + 1]))
        for pieces, labels in clauses:
            lo, hi = pieces[0][0], pieces[-1][1]
            first, last = _content_bounds(source, lo, hi)
            body = _clean(source[lo:hi])
            ordered = tuple(sorted(labels, key=lambda name: source.find(name, a)))
            out.append(FoundDisplay(line_of(first), line_of(last), body, ordered,
                                    line_of(start), line_of(stop)))
    return out


@dataclass(frozen=True)
class FoundPanel:
    """A figure panel: its figure's number, its letter, the offset of the marker that first
    names it in the caption."""

    figure: int
    letter: str
    offset: int
    marker: str


def panel_letters(marker: str) -> list[str]:
    """The letters a panel marker names: "A,B" -> A, B; "E-H" -> E, F, G, H.

    >>> panel_letters("E-H"), panel_letters("C, D")
    (['E', 'F', 'G', 'H'], ['C', 'D'])
    """
    out: list[str] = []
    for part in re.split(r"\s*,\s*", marker.strip()):
        if "-" in part:
            lo, hi = (p.strip() for p in part.split("-"))
            out += [chr(c) for c in range(ord(lo), ord(hi) + 1)]
        elif part:
            out.append(part)
    return out


def find_panels(text: str) -> list[FoundPanel]:
    """Every panel of every figure of ``text``, in order: figures are numbered in the order
    of their ``figure`` environments, a panel by the first caption marker that names it.
    A text with a bare ``\\caption`` and no figure environment counts as figure 1."""
    source = strip_comments(text)
    figures = [(m.start(), source.find("\\end{figure}", m.end()))
               for m in re.finditer(r"\\begin\{figure\}", source)]
    if not figures and "\\caption{" in source:
        figures = [(0, len(source))]
    out = []
    for number, (a, b) in enumerate(figures, 1):
        seen: set[str] = set()
        for m in _PANEL_MARKER.finditer(source, a, b if b >= 0 else len(source)):
            for letter in panel_letters(m.group(1) or m.group(2)):
                if letter not in seen:
                    seen.add(letter)
                    out.append(FoundPanel(number, letter, m.start(), m.group(0)))
    return out


def assertion_cue(sentence: str) -> str:
    r"""Why ``sentence`` asserts a value, comparison, limit or trend ("relation in math
    '...'" or "word '...'"), or "" when it does not (a definition, a setting, a description of
    the method, or no cue at all).

    >>> assertion_cue("the optimum is $\\alpha^* = 1$.")
    "relation in math '\\alpha^* = 1'"
    >>> assertion_cue("where $W \\in \\Real^{N}$ is the weight."), assertion_cue("Gating helps.")
    ('', "word 'helps'")
    """
    lowered = " ".join(sentence.lower().split())
    bare = re.sub(r"^\s*(\(\\textbf\{[^}]*\}\)|\\textbf\{\([^}]*\)\})\s*", "", lowered)
    if bare.startswith(DEFINITION_LEADS):
        return ""
    for math in re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", sentence):
        if ASSERTING_RELATION.search(math) and not SETTING.match(math):
            return f"relation in math '{' '.join(math.split())[:40]}'"
    prose = re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", " ", lowered)
    prose = re.sub(r"\\(cite[pt]?|ref|label)\{[^}]*\}", " ", prose)
    prose = re.sub(r"\b(task|input)-dependent\b|\bmean zero\b", " ", prose) + " "
    for word in ASSERTION_WORDS:
        if re.search(r"\b" + re.escape(word), prose):
            return f"word '{word.strip()}'"
    return ""
