"""Which panels the paper's own captions call averages, against the panels a sentence cites
for them (Appendix E.1, line 1320).

The captions are read from the paper's source (``paper/paper.tex``, shipped in the package,
the same text every claim quotes): a panel is an *average panel* when its caption's bold
panel letters are followed by "Average" (Fig. 2D, 4D, 5C, 5D), or when a sentence of the
text says a panel shows an average performance ("improves the average transfer performance
... (solid vs dashed lines in Fig. 3A)", line 266). Line 1320 cites "Figs. 2C, 3B-D, 4D, and
5CD" as the average panels: it cites 2C where the caption's average panel is 2D (2C is the
retention at rho_a = 1), and its "3B-D" leaves out 3A, which line 266 calls the average
transfer: misprints in a reference whose statement (the averages are over 100 uniform pairs)
the other panels carry. Fig. 3's caption names no average panel, so 3B-3D are taken as line
1320 cites them (nothing in the paper says otherwise).

Examples
--------
>>> sorted(str(p) for p in average_panels(r"\\begin{figure}\\caption{x \\textbf{(D)} Average y}"))
['1D']
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import sympy as sp

from .claims import Claim, Derivation, Step

__all__ = ["average_panels", "CLAIMS"]

_AVERAGE = re.compile(r"(?:\\textbf\{\(([A-H](?:,\s*[A-H])*)\)\}|\(\\textbf\{([A-H](?:,\s*[A-H])*)"
                      r"\}\))\s*Average")
_TEXT_AVERAGE = re.compile(r"average (?:transfer|retention) performance[^.]*?Figs?\.\s*(\d)([A-H])")
"""A sentence that says a panel shows an average performance."""
_CITED = {2: "C", 3: "BCD", 4: "D", 5: "CD"}
"""Line 1320's panels (from "Figs. 2C, 3B-D, 4D, and 5CD")."""


def average_panels(source: str) -> frozenset:
    """The panels ("2D", ...) whose caption calls them averages, figures numbered in the
    order of their ``\\begin{figure}``."""
    out = set()
    for number, body in enumerate(re.split(r"\\begin\{figure\}", source)[1:], 1):
        caption = body.split(r"\end{figure}")[0]
        for match in _AVERAGE.finditer(caption):
            letters = match.group(1) or match.group(2)
            out |= {sp.Symbol(f"{number}{x.strip()}") for x in letters.split(",")}
    return frozenset(out)


@lru_cache(maxsize=1)
def _paper_source() -> str:
    return resources.files("tasksim").joinpath("paper", "paper.tex").read_text(encoding="utf-8")


def _cited() -> sp.FiniteSet:
    return sp.FiniteSet(*[sp.Symbol(f"{n}{x}") for n, xs in _CITED.items() for x in xs])


def text_average_panels(source: str) -> frozenset:
    """The panels a sentence of the text says show an average performance.

    >>> sorted(str(p) for p in text_average_panels("improves the average transfer "
    ...                                            "performance (lines in Fig. 3A) with"))
    ['3A']
    """
    return frozenset(sp.Symbol(f"{m.group(1)}{m.group(2)}")
                     for m in _TEXT_AVERAGE.finditer(source))


def _derive() -> Derivation:
    source = _paper_source()
    captions, text = average_panels(source), text_average_panels(source)
    named = {p for p in captions | text if int(str(p)[:-1]) in _CITED}
    uncaptioned = {n for n in _CITED if not any(int(str(p)[:-1]) == n for p in captions)}
    as_cited = {sp.Symbol(f"{n}{x}") for n in uncaptioned for x in _CITED[n]}
    judged = sp.FiniteSet(*(named | as_cited))
    return Derivation(judged, (
        Step("panels the captions call averages", sp.FiniteSet(*captions)),
        Step("panels a sentence calls averages", sp.FiniteSet(*text)),
        Step("line 1320's panels on figures whose caption names no average panel (taken as "
             "cited)", sp.FiniteSet(*as_cited)),
        Step("the average panels of the figures line 1320 cites", judged)))


_QUOTE = r"Average performances in Figs. 2C, 3B-D, 4D, and 5CD were estimated"

CLAIMS: list[Claim] = [
    Claim("figures.average_panels", "Appendix E.1: the figures that show averages",
          _cited(), _QUOTE, _derive, equivalent=lambda a, b: a == b, line=1320,
          headline=True,
          misprint_of="figures.average_panels.intended", cause="figure-references-1320",
          observable="the cited panel",
          note="Fig. 2C is cited where the caption's average panel is Fig. 2D (Fig. 2C is the "
               "retention at rho_a = 1), and '3B-D' leaves out Fig. 3A, which line 266 calls "
               "the average transfer; 4D and 5CD agree with their captions"),
    Claim("figures.average_panels.intended", "Appendix E.1: the figures that show averages "
          "(2D for 2C, 3A-D for 3B-D)", sp.FiniteSet(*[sp.Symbol(p) for p in (
              "2D", "3A", "3B", "3C", "3D", "4D", "5C", "5D")]), _QUOTE, _derive,
          equivalent=lambda a, b: a == b, line=1320,
          note="the reference with Fig. 2D for Fig. 2C and 3A-D for 3B-D"),
]
