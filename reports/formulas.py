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
from typing import Mapping

from tasksim.derivations.latex import GREEK

__all__ = ["Formula", "markdown_formulas", "claims_formulas", "latex_formulas", "bare_greek"]


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


def latex_formulas(text: str, origin: str = "derivations.tex") -> list[Formula]:
    """Every ``\\[ ... \\]`` of a LaTeX fragment."""
    return [Formula(m.group(1).strip(), True, origin)
            for m in re.finditer(r"\\\[(.+?)\\\]", text, re.DOTALL)]


_WORDS = re.compile(r"\\(?:text|operatorname|mathrm|textbf|mathit)\{[^{}]*\}")
_BARE = re.compile(r"(?<![\\A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True))
                   + r")(?![A-Za-z])")


def bare_greek(tex: str) -> list[str]:
    """Greek letter names written as plain letters in ``tex`` (outside ``\\text{}`` and its
    kind)."""
    return _BARE.findall(_WORDS.sub("", tex))
