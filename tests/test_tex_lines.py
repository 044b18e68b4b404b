"""Long displays of derivations.tex broken into lines (tasksim.reports.tex_lines): what fits
stays one display; what does not is broken only where TeX may break, the mathematics kept."""
from __future__ import annotations

import re

from tasksim.reports.tex_lines import LINE_WIDTH, display, width


def _lines(out: str) -> list[str]:
    body = out.split("\\begin{align*}\n")[1].split("\n\\end{align*}")[0]
    return [line.strip().removeprefix("& ").removeprefix("\\qquad {}")
            for line in body.split(" \\\\\n")]


def _balanced(text: str) -> bool:
    depth = 0
    for c in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0 and text.count("\\left") == text.count("\\right")


def test_a_short_formula_stays_one_display():
    assert display(r"\frac{N_{s}}{N_{x}} + \rho_{a}") == r"\[ \frac{N_{s}}{N_{x}} + \rho_{a} \]"


def test_a_long_sum_breaks_at_its_top_level_signs_into_lines_that_fit():
    terms = [rf"{k} N_{{s}} \rho_{{a}}^{{{k}}} \rho_{{b}}" for k in range(1, 40)]
    latex = " + ".join(terms)
    lines = _lines(display(latex))
    assert len(lines) >= 3
    assert all(width(line) <= LINE_WIDTH + 20 for line in lines)
    assert all(line.startswith("+") for line in lines[1:])
    assert re.sub(r"\s", "", "".join(lines)) == re.sub(r"\s", "", latex)


def test_a_long_fraction_and_parenthesis_open_up_with_balanced_lines():
    inner = " - ".join(rf"{k} \gamma^{{{k}}} \rho_{{a}}^{{2}}" for k in range(1, 30))
    latex = rf"- \gamma \left(\gamma - 1\right) - \frac{{\gamma^{{2}} \left({inner}\right)}}{{N_{{x}}}}"
    out = display(latex)
    lines = _lines(out)
    assert len(lines) >= 2 and "resizebox" not in out
    assert all(_balanced(line) for line in lines), "each line of an align* is its own group"
    assert r"\frac{1}{N_{x}} \Bigl(" in out and r"\Bigr)" in out


def test_a_wide_matrix_is_written_one_entry_a_line():
    entry = " + ".join(rf"\rho_{{a}}^{{{k}}}" for k in range(12))
    latex = (r"\left[\begin{matrix}" + " & ".join([entry] * 4) + r"\\"
             + " & ".join(["0"] * 4) + r"\end{matrix}\right]")
    out = display(latex)
    assert r"\text{(1, 1):}" in out and r"\text{(2, 4):}\ 0" in out
