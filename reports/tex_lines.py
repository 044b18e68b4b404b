"""Long display formulas of ``derivations.tex`` broken into lines that fit the page.

sympy prints a derived expression on one line; many are several pages wide (an expanded
degree-8 polynomial over N_x^2). :func:`display` keeps a formula that fits as ``\\[ ... \\]``
and breaks one that does not into an ``align*`` whose lines fit: at the top-level ``+``,
``-``, ``=`` and ``,``; a ``\\left( ... \\right)`` too wide for a line becomes
``\\Bigl( ... \\Bigr)`` (which TeX lets a line break cross), a fraction with a long numerator
``\\frac{1}{den} \\Bigl( num \\Bigr)``, a long square root ``\\Bigl( ... \\Bigr)^{1/2}``; the
mathematics is unchanged. Only a piece that no rule can break (a long subscript) leaves the
display too wide, and then the whole display is scaled to the line width, as a last resort.

Widths are estimated from the glyphs (Computer Modern at 10 pt, in points), on the generous
side; ``tests/test_page.py`` compiles the report's ``derivations.tex`` and counts TeX's
overfull boxes.

Examples
--------
>>> display("a + b")
'\\\\[ a + b \\\\]'
>>> long = " + ".join(f"x_{{{k}}}" for k in range(60))
>>> out = display(long)
>>> out.startswith("\\\\begin{align*}") and out.count("\\\\\\\\") >= 2
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["display", "LINE_WIDTH", "width"]

LINE_WIDTH = 400.0
"""Points a line of a broken display may take (the page's list width is about 480 pt: the
margin covers the second lines' indent and the estimate's error)."""

_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_]|\s+|.", re.S)
_TEXT_COMMANDS = {r"\text", r"\operatorname", r"\mathrm", r"\textrm", r"\mathbb", r"\mathcal",
                  r"\mathbf", r"\mathit"}
_ACCENTS = {r"\tilde", r"\hat", r"\bar", r"\widetilde", r"\widehat", r"\overline", r"\vec",
            r"\dot"}
_BIG_OPS = {r"\sum", r"\prod", r"\int"}
_GLYPH = {"+": 12.8, "-": 12.8, "=": 13.9, "<": 13.9, ">": 13.9, ",": 4.5, "(": 3.9,
          ")": 3.9, "[": 2.8, "]": 2.8, "|": 2.8, "/": 5.0, "*": 5.0, "!": 2.8, ".": 2.8,
          "'": 2.8, ";": 4.5, ":": 6.0}


@dataclass
class _Node:
    """One piece of a formula: its source, its kind, its parts (for what can be opened up)
    and its scripts (``^``/``_`` and their arguments, as source)."""

    src: str
    kind: str = "atom"  # atom, group, left, frac, sqrt, op
    parts: list[list["_Node"]] = field(default_factory=list)
    delims: tuple[str, str] = ("", "")
    scripts: str = ""
    script_width: float = 0.0
    base_width: float = 0.0

    @property
    def width(self) -> float:
        return self.base_width + self.script_width


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(text)]
        self.i = 0

    def peek(self, skip_space: bool = True) -> Optional[str]:
        j = self.i
        while skip_space and j < len(self.tokens) and self.tokens[j].isspace():
            j += 1
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> str:
        while self.i < len(self.tokens) and self.tokens[self.i].isspace():
            self.i += 1
        token = self.tokens[self.i]
        self.i += 1
        return token

    def argument(self) -> tuple[str, list[_Node]]:
        """A braced group's source (with braces) and its nodes, or one token."""
        if self.peek() == "{":
            self.take()
            start = self.i
            nodes = self.sequence(stop="}")
            inner = "".join(self.tokens[start:self.i])
            self.take()  # "}"
            return "{" + inner + "}", nodes
        token = self.take()
        return token, [_atom(token)]

    def raw_argument(self) -> str:
        """A braced group's source untouched (its spaces are words: \\text{...})."""
        if self.peek() != "{":
            return self.take()
        self.take()
        depth, start = 1, self.i
        while depth:
            token = self.tokens[self.i]
            depth += {"{": 1, "}": -1}.get(token, 0)
            self.i += 1
        return "{" + "".join(self.tokens[start:self.i - 1]) + "}"

    def sequence(self, stop: Optional[str] = None) -> list[_Node]:
        nodes: list[_Node] = []
        while True:
            token = self.peek()
            if token is None or token == stop or (stop == r"\right" and token == r"\right"):
                return nodes
            if token in ("^", "_") and nodes:
                self.take()
                src, inner = self.argument()
                node = nodes[-1]
                node.scripts += token + src
                node.script_width = max(node.script_width, 0.75 * _sum(inner))
                continue
            nodes.append(self.node())

    def node(self) -> _Node:
        token = self.take()
        if token == "{":
            start = self.i
            inner = self.sequence(stop="}")
            src = "{" + "".join(self.tokens[start:self.i]) + "}"
            self.take()
            return _Node(src, "group", [inner], base_width=_sum(inner))
        if token == r"\left":
            left = self.take()
            start = self.i
            inner = self.sequence(stop=r"\right")
            body = "".join(self.tokens[start:self.i])
            self.take()  # \right
            right = self.take()
            return _Node(rf"\left{left}{body}\right{right}", "left", [inner], (left, right),
                         base_width=_sum(inner) + 8.0)
        if token == r"\frac":
            num_src, num = self.argument()
            den_src, den = self.argument()
            return _Node(rf"\frac{num_src}{den_src}", "frac", [num, den],
                         base_width=max(_sum(num), _sum(den)) + 2.0)
        if token == r"\sqrt":
            arg_src, arg = self.argument()
            return _Node(rf"\sqrt{arg_src}", "sqrt", [arg], base_width=_sum(arg) + 10.0)
        if token in _TEXT_COMMANDS:
            arg = self.raw_argument()
            return _Node(token + arg, base_width=5.0 * max(len(arg) - 2, 1))
        if token in _ACCENTS:
            arg_src, arg = self.argument()
            return _Node(token + arg_src, base_width=_sum(arg))
        return _atom(token)


def _atom(token: str) -> _Node:
    if token in ("+", "-", "="):
        return _Node(token, "op", base_width=_GLYPH[token])
    if token.startswith("\\") and len(token) > 2:
        w = 18.0 if token in _BIG_OPS else 6.5
        if token in (r"\quad",):
            w = 10.0
        elif token in (r"\qquad",):
            w = 20.0
        elif token in (r"\cdot", r"\times", r"\leq", r"\geq", r"\neq", r"\approx"):
            w = 12.8
        return _Node(token, base_width=w)
    if token.startswith("\\"):  # \{ \, \  \|
        return _Node(token, base_width=4.0)
    return _Node(token, base_width=_GLYPH.get(token, 5.6))


def _sum(nodes: list[_Node]) -> float:
    return sum(n.width for n in nodes)


def _src(nodes: list[_Node]) -> str:
    out = ""
    for n in nodes:
        piece = n.src + n.scripts
        if out and re.match(r"[A-Za-z]", piece) and re.search(r"\\[A-Za-z]+$", out):
            out += " "
        out += piece
    return out


def width(latex: str) -> float:
    """The estimated width, in points, of a formula set on one line.

    >>> width("x") < width("x + y") < width("x + y + z")
    True
    """
    return _sum(_Parser(latex).sequence())


_OPEN = 0.6
"""A parenthesis, fraction or root wider than this share of a line is opened up (its inside
broken across lines) when the display does not fit."""


@dataclass
class _Piece:
    text: str
    width: float
    break_before: bool = False


def _big(delim: str, side: str) -> str:
    if delim == ".":
        return ""
    return rf"\Big{side}{delim}"


def _pieces(nodes: list[_Node], limit: float) -> list[_Piece]:
    """The nodes as pieces a line may end between, opening up what is wider than ``limit``."""
    out: list[_Piece] = []
    previous: Optional[_Node] = None
    wide = _OPEN * limit  # a piece this wide leaves too little room beside it: opened up
    for n in nodes:
        start = len(out)
        if n.kind == "op":
            binary = previous is not None and previous.kind != "op"
            out.append(_Piece(n.src + n.scripts, n.width, break_before=binary))
        elif n.width > wide and n.kind == "left" and not n.scripts.startswith("_"):
            left, right = n.delims
            out.append(_Piece(_big(left, "l"), 5.0))
            out += _pieces(n.parts[0], limit)
            out.append(_Piece(_big(right, "r") + n.scripts, 5.0 + n.script_width))
        elif n.width > wide and n.kind == "frac" and not n.scripts:
            num, den = n.parts
            if _sum(den) <= limit / 2:
                out.append(_Piece(rf"\frac{{1}}{{{_src(den)}}} \Bigl(", _sum(den) + 10.0))
                out += _pieces(num, limit)
                out.append(_Piece(r"\Bigr)", 5.0))
            else:
                out.append(_Piece(r"\Bigl(", 5.0))
                out += _pieces(num, limit)
                out.append(_Piece(r"\Bigr) \Bigl(", 10.0))
                out += _pieces(den, limit)
                out.append(_Piece(r"\Bigr)^{-1}", 10.0))
        elif n.width > wide and n.kind == "sqrt" and not n.scripts:
            out.append(_Piece(r"\Bigl(", 5.0))
            out += _pieces(n.parts[0], limit)
            out.append(_Piece(r"\Bigr)^{1/2}", 12.0))
        elif n.width > wide and n.kind == "group" and not n.scripts:
            out += _pieces(n.parts[0], limit)
        else:
            out.append(_Piece(_src([n]), n.width))
        if previous is not None and previous.src == "," and len(out) > start:
            out[start].break_before = True  # a tuple's entries: break after the comma
        previous = n
    return out


def _lines(pieces: list[_Piece], limit: float) -> list[list[_Piece]]:
    """Greedy: each line takes pieces while they fit, and ends only where a break is allowed."""
    lines: list[list[_Piece]] = [[]]
    used = 0.0
    last_break: Optional[int] = None  # index in the current line where it may end
    for p in pieces:
        if p.break_before and lines[-1]:
            last_break = len(lines[-1])
        if used + p.width > limit and last_break:
            line = lines[-1]
            lines[-1], rest = line[:last_break], line[last_break:]
            lines.append(rest)
            used = sum(q.width for q in rest)
            last_break = 0 if p.break_before else None
            if p.break_before and rest:
                last_break = len(rest)
        lines[-1].append(p)
        used += p.width
    return [line for line in lines if line]


def _join(line: list[_Piece]) -> str:
    text = ""
    for p in line:
        if text and not text.endswith(" ") and p.text and re.match(r"[A-Za-z]", p.text) and \
                re.search(r"\\[A-Za-z]+$", text):
            text += " "
        text += p.text if not text else (" " + p.text if p.text[:1] in "+-=" else p.text)
    return text


def display(latex: str, limit: float = LINE_WIDTH) -> str:
    """One display formula that fits the page (module docstring): ``\\[ latex \\]`` when it
    fits on a line, else an ``align*`` broken at top-level operators (second lines indented),
    else (a piece nothing can break) the display scaled to the line width."""
    try:
        nodes = _Parser(latex).sequence()
    except IndexError:  # unbalanced source: scaled whole rather than broken wrongly
        return rf"\[ \resizebox{{\linewidth}}{{!}}{{$\displaystyle {latex}$}} \]"
    if _sum(nodes) <= limit:
        return rf"\[ {latex} \]"
    matrix = _MATRIX.fullmatch(latex.strip())
    if matrix:
        return _entries(matrix.group(1), limit)
    lines = _lines(_pieces(nodes, limit), limit)
    if any(sum(p.width for p in line) > limit + 20.0 for line in lines):
        return (r"\[ \resizebox{\linewidth}{!}{$\displaystyle " + latex + r"$} \]")
    return _align([_join(line) for line in lines])


_MATRIX = re.compile(r"\\left\[\s*\\begin\{matrix\}(.*)\\end\{matrix\}\s*\\right\]", re.S)


def _align(lines: list[str]) -> str:
    """Lines as an ``align*``, second and later lines indented (those starting a new entry,
    marked by a leading ``\x00``, are not)."""
    body = []
    for k, text in enumerate(lines):
        if text.startswith("\x00"):
            text = text[1:]
        elif k:
            text = r"\qquad {}" + text
        body.append("  & " + text)
    return "\\begin{align*}\n" + " \\\\\n".join(body) + "\n\\end{align*}"


def _entries(body: str, limit: float) -> str:
    """A matrix too wide for the page, one entry a line: "(row, column): entry", each entry
    broken like any display."""
    lines = []
    for i, row in enumerate(re.split(r"\\\\", body), 1):
        for j, entry in enumerate(row.split("&"), 1):
            head = rf"\text{{({i}, {j}):}}\ "
            pieces = _pieces(_Parser(entry.strip()).sequence(), limit - 40.0)
            broken = _lines(pieces, limit - 40.0)
            for k, line in enumerate(broken):
                lines.append(("\x00" + head if k == 0 else "") + _join(line))
    return _align(lines)
