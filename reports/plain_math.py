r"""The toolkit's plain-text math, shown as the paper's symbols.

Notes, conditions and step names are written in plain text: ``rho_a``, ``Delta eps_RT``,
``alpha~``, ``Ns``, ``kappa``, ``W_mu-1``, ``A^T``, ``(A A^T)^-1``, ``E||W_2||_F^2``, ``->``,
``<<``. One table of rules turns them into HTML sub- and superscripts for the page
(:func:`to_html`) and into LaTeX math for derivations.tex (:func:`to_tex`), so a reader
never meets code notation (REFEREE9 R13). A rule never fires inside a claim id, a file name
or another word (``plasticity.alpha_free``, ``derivations/finite_size.py``).

>>> to_html("(1/alpha) B A^T (A A^T + kappa I)^-1, W_mu-1, E||W_2||_F^2, Ns << Nx")
'(1/α) B A<sup>T</sup> (A A<sup>T</sup> + κ I)<sup>−1</sup>, W<sub>μ−1</sub>, E‖W<sub>2</sub>‖<sub>F</sub><sup>2</sup>, N<sub>s</sub> ≪ N<sub>x</sub>'
>>> print(to_tex("dR/drho_b at rho_a^Nx -> 0, sigma_m^2 = sum_j A_ij^2 (50%)"))
dR/\(\mathrm{d}\)\(\rho_{b}\) at \(\rho_{a}\)\(^{N_{x}}\) \(\to\) 0, \(\sigma_{m}\)\(^{2}\) = \(\sum_{j}\) \(A_{ij}\)\(^{2}\) (50\%)
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["to_html", "to_tex"]

GREEK: dict[str, tuple[str, str]] = {
    "alpha": ("α", r"\alpha"), "gamma": ("γ", r"\gamma"), "lambda": ("λ", r"\lambda"),
    "lam": ("λ", r"\lambda"), "kappa": ("κ", r"\kappa"), "sigma": ("σ", r"\sigma"),
    "mu": ("μ", r"\mu"), "phi": ("φ", r"\phi"), "eta": ("η", r"\eta"),
    "theta": ("θ", r"\theta"), "delta": ("δ", r"\delta"), "Lambda": ("Λ", r"\Lambda"),
    "Sigma": ("Σ", r"\Sigma"), "Delta": ("Δ", r"\Delta"), "eps": ("ε", r"\varepsilon"),
    "rho": ("ρ", r"\rho"), "nu": ("ν", r"\nu"), "sum": ("∑", r"\sum"),
    "int": ("∫", r"\int"), "Lam": ("Λ", r"\Lambda"), "nabla": ("∇", r"\nabla"),
    "pi": ("π", r"\pi"),
}
"""Greek names (and the sum) as the page and LaTeX show them."""

_NOT_IN_A_NAME = r"(?<![\w.])"
_END_OF_NAME = r"(?![\w]|\.\w)"  # not inside a name: claim.id
_SUB = r"(?:\{[^{}\s]{1,10}\}|mu[-+]1|mu|TF|RT|pb|lw|\d+|[a-z]{1,4}|[A-Z]|[-+](?![\w]))"
"""A subscript: braced (``W_{mu-1}``) or one of the toolkit's short forms."""
_GREEK_NAME = "|".join(sorted(GREEK, key=len, reverse=True))
_GREEK_ALONE = "|".join(sorted(set(GREEK) - {"sum", "int"}, key=len, reverse=True))  # words too
_GREEK_TILDE = "alpha|gamma|rho|lambda"
_IN_SCRIPT = re.compile(rf"(?<![a-z])({_GREEK_ALONE})(?![a-z])")


@dataclass(frozen=True)
class Rule:
    """A plain-text pattern and how each target shows a match (HTML: text already escaped
    around it; LaTeX: math, wrapped by the caller)."""

    pattern: re.Pattern
    html: Callable[[re.Match], str]
    tex: Callable[[re.Match], str]


def _script_html(script: str) -> str:
    script = script.removeprefix("{").removesuffix("}")
    script = re.sub(r"N([sxy])", r"N<sub>\1</sub>", script)
    script = _IN_SCRIPT.sub(lambda m: GREEK[m[1]][0], script)
    return script.replace("oo", "∞").replace("-", "−")


def _script_tex(script: str) -> str:
    script = script.removeprefix("{").removesuffix("}")
    if script == "T":
        return r"\top"
    script = re.sub(r"N([sxy])", r"N_{\1}", script)
    script = _IN_SCRIPT.sub(lambda m: GREEK[m[1]][1] + " ", script)
    return script.replace("oo", r"\infty").replace("TF", r"\mathrm{TF}").replace(
        "RT", r"\mathrm{RT}").replace("|", r"\vert ").strip()


def _greek(name: str, which: int) -> str:
    return GREEK[name][which]


def _named(pattern: str) -> re.Pattern:
    return re.compile(_NOT_IN_A_NAME + pattern + _END_OF_NAME)


RULES: tuple[Rule, ...] = (
    # the differential's d before a symbol (dR/drho_b): the d stays a word
    Rule(re.compile(_NOT_IN_A_NAME + r"d(?=(?:rho_[ab]|alpha|gamma|lam)(?!\w))"),
         lambda m: "d\u2009", lambda m: r"\mathrm{d}"),
    Rule(re.compile(r"\^(?:[({]([^(){}]{1,10})[)}]"  # ^(1/2), ^{-1}
                    r"|(-?\d+|T(?![A-Za-z])|\+|N[sxy]|oo|\|[^|]{1,10}\||[a-z](?!\w)))"),
         lambda m: f"<sup>{_script_html(m[1] or m[2])}</sup>",
         lambda m: "^{" + _script_tex(m[1] or m[2]) + "}"),
    Rule(_named(r"Delta eps\^(TF|RT)_(\w{1,2})"),  # the K-task sequences' Delta eps^TF_j
         lambda m: f"Δε<sup>{m[1]}</sup><sub>{m[2]}</sub>",
         lambda m: rf"\Delta\varepsilon^{{\mathrm{{{m[1]}}}}}_{{{m[2]}}}"),
    Rule(_named(r"Delta eps_(TF|RT)"), lambda m: f"Δε<sub>{m[1]}</sub>",
         lambda m: rf"\Delta\varepsilon_{{\mathrm{{{m[1]}}}}}"),
    Rule(_named(rf"({_GREEK_TILDE})~"), lambda m: f"{_greek(m[1], 0)}&#771;",
         lambda m: rf"\tilde{{{_greek(m[1], 1)}}}"),
    Rule(_named(r"gamma_f"), lambda m: "γ<sub>f</sub>", lambda m: r"\gamma_{f}"),
    Rule(_named(r"N([sxyh])(?!-[a-z])"),  # not in the finding id surrogate-1/Nx-terms
         lambda m: f"N<sub>{m[1]}</sub>", lambda m: f"N_{{{m[1]}}}"),
    Rule(_named(rf"({_GREEK_NAME})_({_SUB})"),
         lambda m: f"{_greek(m[1], 0)}<sub>{_script_html(m[2])}</sub>",
         lambda m: f"{_greek(m[1], 1)}_{{{_script_tex(m[2])}}}"),
    Rule(_named(rf"(max|min|argmax|argmin)_({_GREEK_ALONE}|[a-z])"),
         lambda m: f"{m[1]}<sub>{_script_html(m[2])}</sub>",
         lambda m: rf"\operatorname{{{m[1]}}}_{{{_script_tex(m[2])}}}"),
    Rule(_named(rf"([A-Za-z]|dR|dw\d)_({_SUB})"),
         lambda m: f"{m[1]}<sub>{_script_html(m[2])}</sub>",
         lambda m: f"{m[1]}_{{{_script_tex(m[2])}}}"),
    Rule(_named(rf"({_GREEK_ALONE})"), lambda m: _greek(m[1], 0), lambda m: _greek(m[1], 1)),
    Rule(re.compile(_NOT_IN_A_NAME + r"sqrt(?=\d|\()"), lambda m: "√", lambda m: r"\surd"),
    Rule(_named(r"oo"), lambda m: "∞", lambda m: r"\infty"),
    Rule(re.compile(r"(?<=\))_(\w{1,2})(?!\w)"), lambda m: f"<sub>{_script_html(m[1])}</sub>",
         lambda m: f"_{{{_script_tex(m[1])}}}"),  # (A A^T)_ii
    Rule(re.compile(r"\|\|_(F|\d)"), lambda m: f"‖<sub>{m[1]}</sub>",
         lambda m: rf"\|_{{{m[1]}}}"),
    Rule(re.compile(r"\|\|"), lambda m: "‖", lambda m: r"\|"),
    Rule(re.compile(r"(?<=\s)->(?=\s)"), lambda m: "→", lambda m: r"\to"),
    Rule(re.compile(r"<<"), lambda m: "≪", lambda m: r"\ll"),
    Rule(re.compile(r">>"), lambda m: "≫", lambda m: r"\gg"),
    Rule(re.compile(r"<="), lambda m: "≤", lambda m: r"\le"),
    Rule(re.compile(r"!="), lambda m: "≠", lambda m: r"\ne"),
    Rule(re.compile(r">="), lambda m: "≥", lambda m: r"\ge"),
    Rule(re.compile(r"(?<=[\s(])\+-(?=\s|\d)"), lambda m: "±", lambda m: r"\pm"),
)
"""In order: a later rule never sees what an earlier one made (each match is held apart)."""

_TEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                "#": r"\#", "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"$\sim$"}


def _render(text: str, show: Callable[[Rule, re.Match], str],
            escape: Callable[[str], str]) -> str:
    held: list[str] = []

    def hold(fragment: str) -> str:
        held.append(fragment)
        return f"\x02{len(held) - 1}\x03"  # not a caller's own \x00 placeholders

    for rule in RULES:  # a match over an earlier rule's piece is left as it is
        text = rule.pattern.sub(lambda m, rule=rule: m[0] if "\x02" in m[0] else hold(
            show(rule, m)), text)
    pieces = re.split("\x02(\\d+)\x03", text)
    return "".join(held[int(p)] if i % 2 else escape(p) for i, p in enumerate(pieces))


def to_html(text: str) -> str:
    """Plain text as HTML: the words escaped, the toolkit's math as symbols."""
    return _render(text, lambda rule, m: rule.html(m),
                   lambda words: html.escape(words, quote=False))


def tex_escape(text: str) -> str:
    """Words for LaTeX's text mode, every special character escaped."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def to_tex(text: str) -> str:
    """Plain text for LaTeX's text mode: the words escaped, the toolkit's math as inline math
    (``\\(...\\)``, never ``$``, so two pieces side by side never make ``$$``)."""
    def show(rule: Rule, m: re.Match) -> str:
        return rf"\({rule.tex(m)}\)"
    return _render(text, show, tex_escape)
