"""Which panels the paper's own captions call averages, against the panels a sentence cites
for them (Appendix E.1, line 1320).

The captions are read from the paper's source (``paper/paper.tex``, shipped in the package,
the same text every claim quotes): a panel is an *average panel* when its caption's bold
panel letters are followed by "Average" (Fig. 2D, 4D, 5C, 5D). Line 1320 cites "Figs. 2C,
3B-D, 4D, and 5CD" as the average panels; on the figures whose captions name one (2, 4, 5),
it cites 2C where the caption's average panel is 2D (2C is the retention at rho_a = 1): a
misprint in a reference whose statement (the averages are over 100 uniform pairs) the other
panels carry. Fig. 3's caption names no average panel, so it is not compared.

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
_CITED = {2: "C", 4: "D", 5: "CD"}
"""Line 1320's panels on the figures whose captions name an average panel (from "Figs. 2C,
3B-D, 4D, and 5CD")."""


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


def _derive() -> Derivation:
    found = average_panels(_paper_source())
    judged = sp.FiniteSet(*[p for p in found if int(str(p)[:-1]) in _CITED])
    return Derivation(judged, (Step("panels the captions call averages", sp.FiniteSet(*found)),
                               Step("on the figures line 1320 cites for them (2, 4, 5)",
                                    judged)))


_QUOTE = r"Average performances in Figs. 2C, 3B-D, 4D, and 5CD were estimated"

CLAIMS: list[Claim] = [
    Claim("figures.average_panels", "Appendix E.1: the figures that show averages",
          _cited(), _QUOTE, _derive, equivalent=lambda a, b: a == b, line=1320,
          headline=True,
          misprint_of="figures.average_panels.intended", cause="figure-reference-2C",
          observable="the cited panel",
          note="Fig. 2C is cited where the caption's average panel is Fig. 2D (Fig. 2C is the "
               "retention at rho_a = 1); 4D and 5CD agree with their captions"),
    Claim("figures.average_panels.intended", "Appendix E.1: the figures that show averages "
          "(2D for 2C)", sp.FiniteSet(sp.Symbol("2D"), sp.Symbol("4D"), sp.Symbol("5C"),
                                      sp.Symbol("5D")), _QUOTE, _derive,
          equivalent=lambda a, b: a == b, line=1320,
          note="the reference with Fig. 2D for Fig. 2C"),
]
