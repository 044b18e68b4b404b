"""The formulas of the report's outputs, found for a TeX-math renderer to check.

``REPORT.md``: every ``$$ ... $$`` (display) and ``$ ... $`` (inline) outside code spans, with
GitHub's table escape ``\\|`` undone inside table rows; ``claims.json``: each record's
``derived``, ``reading`` and ``printed`` (the inline math of a quoted sentence, or the whole
quoted formula; the paper's own macros apply, as in the paper); ``derivations.tex``: every
``\\[ ... \\]``. :func:`bare_greek` finds Greek letters spelled out as Latin letters (``alpha``
where ``\\alpha`` is meant), which a renderer accepts but shows wrongly.

Examples
--------
>>> [f.tex for f in markdown_formulas("a $x^2$ b `$not$` and $$ y $$")]
['x^2', 'y']
>>> bare_greek(r"\\tilde{alpha} + \\text{alpha} + \\alpha")
['alpha']
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

import sympy as sp

from tasksim.derivations.latex import GREEK, latex

__all__ = ["Formula", "markdown_formulas", "claims_formulas", "latex_formulas", "bare_greek",
           "reader_form", "short_difference"]


@dataclass(frozen=True)
class Formula:
    """A formula to render: its TeX, display or inline, the macros it may use, and where it
    comes from (for error messages)."""

    tex: str
    display: bool
    origin: str
    macros: Mapping[str, str] = field(default_factory=dict)


_CODE = re.compile(r"`[^`]*`")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", re.DOTALL)


def markdown_formulas(text: str, origin: str = "REPORT.md") -> list[Formula]:
    """Every formula of a Markdown text (module docstring)."""
    out: list[Formula] = []
    for number, line in enumerate(text.split("\n\n")):
        block = _CODE.sub("", line)
        if block.lstrip().startswith("|"):
            block = block.replace("\\|", "|")
        found = [(m.start(), m.group(1).strip(), True) for m in _DISPLAY.finditer(block)]
        rest = _DISPLAY.sub(lambda m: " " * len(m.group(0)), block)
        found += [(m.start(), m.group(1).strip(), False) for m in _INLINE.finditer(rest)]
        out += [Formula(tex, display, f"{origin}, block {number}")
                for _, tex, display in sorted(found)]
    return out


def _inline_or_whole(text: str) -> list[tuple[str, bool]]:
    if "$" in text:
        return [(m.group(1).strip(), False) for m in _INLINE.finditer(text)]
    return [(text, False)] if text.strip() else []


def claims_formulas(document: str, macros: Mapping[str, str]) -> list[Formula]:
    """The formulas of ``claims.json`` (module docstring)."""
    out = []
    for r in json.loads(document)["claims"]:
        origin = f"claims.json {r['id']}"
        if r.get("derived"):
            out.append(Formula(r["derived"], True, f"{origin} derived"))
        if r.get("reading"):
            out.append(Formula(r["reading"], True, f"{origin} reading"))
        for tex, display in _inline_or_whole(r.get("printed", "")):
            out.append(Formula(tex, display, f"{origin} printed", macros))
    return out


_RESIZED = re.compile(r"\\resizebox\{\\linewidth\}\{!\}\{\$\\displaystyle (.*)\$\}", re.S)


def latex_formulas(text: str, origin: str = "derivations.tex") -> list[Formula]:
    """Every display of a LaTeX fragment: each ``\\[ ... \\]`` (a display scaled to the
    line, :func:`tasksim.reports.tex_lines.display`, as its formula) and each ``align*`` (a
    display broken into lines) as the ``aligned`` block it is."""
    found = []
    for m in re.finditer(r"\\\[(.+?)\\\]|\\begin\{align\*\}(.+?)\\end\{align\*\}", text,
                         re.DOTALL):
        if m.group(1) is not None:
            body = m.group(1).strip()
            resized = _RESIZED.fullmatch(body)
            found.append(Formula(resized.group(1) if resized else body, True, origin))
        else:
            found.append(Formula(r"\begin{aligned}" + m.group(2).strip() + r"\end{aligned}",
                                 True, origin))
    return found


_WORDS = re.compile(r"\\(?:text|operatorname|mathrm|textbf|mathit)\{[^{}]*\}")
_BARE = re.compile(r"(?<![\\A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True))
                   + r")(?![A-Za-z])")


def bare_greek(tex: str) -> list[str]:
    """Greek letter names written as plain letters in ``tex`` (outside ``\\text{}`` and its
    kind)."""
    return _BARE.findall(_WORDS.sub("", tex))


# --- derived expressions in the form a reader compares with the print -------------------------

MAX_OPS = 300
"""Expressions with more operations than this are shown as derived (reshaping them costs more
than it helps a reader)."""


MAX_SYMBOLS = 8
"""In an expression of more symbols than this (the network's regularizers of Appendix E.2,
18), a form collected in any but the first of them (by name) is tried only when a coefficient
agrees with the print: each try factors every coefficient, about half a second apiece."""


def _reshapable(expr: object) -> bool:
    """A commutative scalar expression of modest size (the only kind reshaped)."""
    return (isinstance(expr, sp.Expr) and not isinstance(expr, sp.logic.boolalg.Boolean)
            and not getattr(expr, "is_Matrix", False) and bool(expr.is_commutative)
            and not expr.atoms(sp.MatrixSymbol) and sp.count_ops(expr) <= MAX_OPS)


def _coefficient(coefficient: sp.Expr, printed_coefficient: Optional[sp.Expr]
                 ) -> tuple[sp.Expr, bool]:
    """A coefficient as the paper writes it when it equals the printed one (and True), else
    factored (and False)."""
    if printed_coefficient is not None and sp.expand(coefficient - printed_coefficient) == 0:
        return printed_coefficient, True
    return sp.factor(coefficient), False


def _term(coefficient: sp.Expr, monomial: str) -> str:
    if not monomial:
        return latex(coefficient)
    if coefficient == 1:
        return monomial
    if coefficient == -1:
        return "- " + monomial
    text = latex(coefficient)
    return rf"\left({text}\right) {monomial}" if coefficient.is_Add else f"{text} {monomial}"


def _collected(derived: sp.Expr, printed: sp.Expr, symbol: sp.Symbol,
               agreeing_only: bool = False) -> Optional[tuple[str, int]]:
    """``derived`` collected in powers of ``symbol``, each coefficient in the printed form when
    it agrees with the printed one (``printed`` itself split in the same powers), the others
    factored; and how many coefficients agree. With ``agreeing_only``, None when none agrees
    (then the form would only compete on length, and factoring every coefficient in each of
    many symbols is most of a build's claim time: :data:`MAX_SYMBOLS`)."""
    try:
        mine = sp.Poly(sp.expand(derived), symbol)
        theirs = sp.collect(printed, symbol, evaluate=False)
    except (sp.PolynomialError, sp.GeneratorsNeeded):
        return None
    if mine.degree() < 1:
        return None
    terms = [(power, coefficient, theirs.get(symbol ** power if power else sp.S.One))
             for (power,), coefficient in sorted(mine.terms(), key=lambda t: t[0][0])]
    if agreeing_only and not any(printed_c is not None and sp.expand(c - printed_c) == 0
                                 for _, c, printed_c in terms):
        return None
    parts, agree = [], 0
    for power, coefficient, printed_coefficient in terms:
        monomial = "" if power == 0 else latex(symbol ** power)
        shown, same = _coefficient(coefficient, printed_coefficient)
        agree += same
        parts.append(_term(shown, monomial))
    return " + ".join(parts).replace("+ -", "- "), agree


def reader_form(derived: sp.Basic, printed: Optional[sp.Basic] = None,
                plain: Optional[str] = None) -> str:
    """LaTeX of ``derived`` in the form a reader sets beside the print: collected in one of the
    printed form's symbols with each coefficient factored (or written as printed where it
    agrees), or factored, whichever is shortest (the form with the most agreeing coefficients
    first; :data:`MAX_SYMBOLS`); the plain form when nothing is shorter (``plain``: its
    LaTeX, when the caller has it).

    Examples
    --------
    >>> g, r = sp.symbols("gamma_f rho_b")
    >>> printed = 2*g*(1 - g)**2 - g**4 + 2*g*((1 - g)**2 - g**2)*r
    >>> derived = sp.expand(2*g*(1 - g)**2 - g**4 + 2*g*(1 - g + g**2)*r)
    >>> print(reader_form(derived, printed))
    - \\gamma_{f}^{4} + 2 \\gamma_{f} \\left(1 - \\gamma_{f}\\right)^{2} + 2 \\gamma_{f} \\left(\\gamma_{f}^{2} - \\gamma_{f} + 1\\right) \\rho_{b}
    """
    plain = latex(derived) if plain is None else plain
    if not _reshapable(derived):
        return plain
    candidates = [(plain, 0)]
    try:
        candidates.append((latex(sp.factor(derived)), 0))
        if _reshapable(printed):
            shared = sorted(printed.free_symbols & derived.free_symbols, key=str)
            for k, symbol in enumerate(shared):
                form = _collected(derived, printed, symbol, k > 0 and len(shared) > MAX_SYMBOLS)
                if form:
                    candidates.append(form)
    except Exception:  # sympy raises many kinds on what it cannot factor; keep what we have
        pass
    return min(candidates, key=lambda c: (-c[1], len(c[0])))[0]


def short_difference(derived: sp.Basic, printed: Optional[sp.Basic],
                     limit: int = 160) -> str:
    """LaTeX of derived minus printed, factored, when both are scalar expressions and the
    difference is short (at most ``limit`` characters); else empty.

    >>> x = sp.Symbol("x")
    >>> short_difference(x**2 + 2*x, x**2)
    '2 x'
    """
    if not (_reshapable(derived) and _reshapable(printed)):
        return ""
    try:
        difference = sp.factor(sp.expand(derived - printed))
    except Exception:  # sympy raises many kinds on what it cannot factor
        return ""
    text = latex(difference)
    return text if difference != 0 and len(text) <= limit else ""
