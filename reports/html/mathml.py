"""TeX to MathML at build time, and the paper's prose to HTML: the page needs no network, no
script and no Node to show its formulas.

- :func:`formula_html`: one formula (the paper's macros expanded, ``align``-like environments
  turned into ``split``, labels and ``\\nonumber`` dropped) as a ``<math>`` element
  (latex2mathml); a formula latex2mathml cannot read is shown as its plain-text reading in a
  ``<code>`` element, never as raw TeX.
- :func:`prose_html`: a sentence of the paper (its inline ``$...$`` math rendered, its text
  commands unwrapped: ``\\emph{x}`` -> x, ``\\ref{eq_x}`` -> the equation's label in words),
  escaped for HTML. Words stay words: prose is never typeset as math.
- :func:`plain_text`: TeX with its commands stripped, for ``title`` attributes and the fallback.

Examples
--------
>>> formula_html("x^2", display=False)[:43]
'<math xmlns="http://www.w3.org/1998/Math/Ma'
>>> prose_html(r"It needs $N_s \\ll N_x$, see \\emph{this}.")[:9]
'It needs '
>>> plain_text(r"\\frac{1}{N_s} \\alpha")
'(1)/(N_s) α'
"""
from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Callable, Mapping

from latex2mathml.converter import convert

from ..plain_math import to_html

__all__ = ["formula_html", "prose_html", "words_html", "plain_text", "clean_formula",
           "markdown_html"]

_ENVIRONMENTS = re.compile(r"\\(begin|end)\{(align\*?|equation\*?|eqnarray\*?|gather\*?|"
                           r"multline\*?|split)\}")
_DROP = re.compile(r"\\(label|tag|vspace|hspace)\*?\{[^{}]*\}|\\nonumber|\\notag|\\displaystyle|"
                   r"\\quad(?![a-zA-Z])|\\qquad|\\,|\\;|\\!|\\:")
_REPLACE = (
    (r"\lVert", r"\|"), (r"\rVert", r"\|"), (r"\lvert", "|"), (r"\rvert", "|"),
    (r"\bm{", r"\boldsymbol{"), (r"\mathbbm{", r"\mathbb{"), (r"\text{tr}", r"\operatorname{tr}"),
    (r"\text{diag}", r"\operatorname{diag}"), (r"\eqref{", r"\text{Eq. }\text{"),
    (r"\ref{", r"\text{"), (r"\dots", r"\ldots"), (r"\tfrac", r"\frac"), (r"\dfrac", r"\frac"),
)

Expand = Callable[[str], str]


def _identity(text: str) -> str:
    return text


def clean_formula(tex: str, expand: Expand = _identity) -> str:
    """``tex`` in the subset latex2mathml reads: macros expanded, display environments as
    ``split`` (with their ``&`` and ``\\\\``), labels, tags and spacing dropped.

    >>> print(clean_formula(r"\\begin{align} \\label{eq_a} x &= 1 \\nonumber \\\\ y &= 2 \\end{align}"))
    \\begin{split} x &= 1 \\\\ y &= 2 \\end{split}
    """
    text = expand(tex)
    aligned = bool(_ENVIRONMENTS.search(text)) or "&" in text
    text = _ENVIRONMENTS.sub("", text)
    text = _DROP.sub(" ", text)
    for old, new in _REPLACE:
        text = text.replace(old, new)
    text = text.strip().strip(",.;").strip()
    text = re.sub(r"^(\\\\\s*)+|(\\\\\s*)+$", "", text).strip()
    text = " ".join(text.split())
    if aligned and ("&" in text or "\\\\" in text):
        text = r"\begin{split} " + text + r" \end{split}"
    return text


@lru_cache(maxsize=None)
def _convert(tex: str, display: bool) -> str:
    return convert(tex, display="block" if display else "inline")


def formula_html(tex: str, *, display: bool, expand: Expand = _identity) -> str:
    """One formula as MathML (module docstring); the plain-text reading in ``<code>`` when
    latex2mathml cannot read it."""
    cleaned = clean_formula(tex, expand)
    if not cleaned:
        return ""
    try:
        return _convert(cleaned, display)
    except Exception:  # latex2mathml raises many kinds on input it does not know
        return f'<code class="tex-fallback">{html.escape(plain_text(cleaned))}</code>'


_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η",
          "theta": "θ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ",
          "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Delta": "Δ",
          "Lambda": "Λ", "Sigma": "Σ", "Omega": "Ω", "ll": "≪", "gg": "≫", "leq": "≤",
          "geq": "≥", "le": "≤", "ge": "≥", "approx": "≈", "to": "→", "infty": "∞",
          "times": "×", "cdot": "·", "pm": "±", "neq": "≠", "sim": "~", "in": "∈",
          "propto": "∝", "langle": "⟨", "rangle": "⟩", "partial": "∂", "equiv": "≡"}


def plain_text(tex: str) -> str:
    """``tex`` read aloud in plain characters: Greek letters and relations as Unicode,
    ``\\frac{a}{b}`` as ``(a)/(b)``, every other command dropped (its argument kept)."""
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", tex)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), " " if m.group(1) in (
        "quad", "qquad") else ""), text)
    text = text.replace("\\\\", "; ").replace("\\", "").replace("{", "").replace("}", "")
    text = text.replace("&", "").replace("~", " ")
    return " ".join(text.split())


_INLINE = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)
_TEXT_COMMANDS = re.compile(r"\\(?:emph|textit|textbf|text|mathrm|underline|textrm|textsc)"
                            r"\{([^{}]*)\}")
_REF = re.compile(r"\\(?:eq)?ref\{([^{}]*)\}")
_CITE = re.compile(r"~?\\cite[tp]?\*?(?:\[[^\]]*\])?\{[^{}]*\}")
_FOOTNOTE = re.compile(r"\\footnote\{[^{}]*\}")


_NOT_IN_A_NAME = r"(?<![\w.])"


_ALPHA_TILDE = re.compile(_NOT_IN_A_NAME + "alpha~")


def _prose_words(text: str, refs: Mapping[str, str]) -> str:
    text = _CITE.sub("", text)
    text = _FOOTNOTE.sub("", text)
    text = _REF.sub(lambda m: refs.get(m.group(1), m.group(1).replace("_", " ")), text)
    for _ in range(3):
        text = _TEXT_COMMANDS.sub(r"\1", text)
    text = _ALPHA_TILDE.sub("\x01", text)  # the toolkit's alpha~, before LaTeX's ~ (a space)
    text = text.replace("~", " ").replace("``", "“").replace("''", "”").replace("--", "–")
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    text = re.sub(r"\\[A-Za-z]+\*?", "", text).replace("\\", "").replace("{", "").replace("}", "")
    return to_html(text.replace("\x01", "alpha~"))


def _math_and_words(text: str, words: Callable[[str], str], expand: Expand) -> str:
    """``text`` with its ``$...$`` math as MathML and the words between converted by ``words``."""
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(words(text[last:m.start()]))
        out.append(formula_html(m.group(1), display=False, expand=expand))
        last = m.end()
    out.append(words(text[last:]))
    return "".join(out)


def prose_html(text: str, *, expand: Expand = _identity,
               refs: Mapping[str, str] | None = None) -> str:
    """A sentence of the paper (or a note) as HTML: inline math as MathML, words escaped, text
    commands unwrapped, references by name (``refs``: label -> words, e.g. "Eq. (3)")."""
    refs = refs or {}
    return _math_and_words(text, lambda words: _prose_words(words, refs), expand)


def words_html(text: str, *, expand: Expand = _identity) -> str:
    """The toolkit's own words (a note, a condition, a step's name) as HTML: its ``$...$``
    math as MathML, the rest plain text with its plain-text math as symbols
    (:func:`tasksim.reports.plain_math.to_html`). Unlike :func:`prose_html` (the paper's
    LaTeX prose), nothing is read as LaTeX: braces, tildes, quotes and primes stay as typed.

    >>> words_html("phi'' = 0 on {2 sqrt2/3 <= rho_b < rho_a}, s ~ N(0, I), gamma~ = $x$")[:60]
    "φ'' = 0 on {2 √2/3 ≤ ρ<sub>b</sub> &lt; ρ<sub>a</sub>}, s ~ "
    >>> words_html("run `tasksim pmnist-grid` for rho_a")
    'run <code>tasksim pmnist-grid</code> for ρ<sub>a</sub>'
    """
    return _math_and_words(text, _words_and_code, expand)


_CODE_LINK = re.compile(r"\[`([^`]+)`\]\((#[\w-]+)\)")
"""A code span linked to an anchor of the page, ``[`vanilla.transfer`](#line-203)``."""


def _words_and_code(text: str) -> str:
    """Plain words with their plain-text math as symbols; a `code span` as <code>; a linked
    code span, ``[`code`](#anchor)``, as <code> inside a link to the anchor.

    >>> _words_and_code("see [`a.b`](#line-3) for rho_a")
    'see <a href="#line-3"><code>a.b</code></a> for ρ<sub>a</sub>'
    >>> _words_and_code("[`x.nlo[gaussian]`](#line-610) (line 610)")
    '<a href="#line-610"><code>x.nlo[gaussian]</code></a> (line 610)'
    """
    out, last = [], 0
    for m in _CODE_LINK.finditer(text):
        out.append(_code_spans(text[last:m.start()]))
        out.append(f'<a href="{html.escape(m.group(2))}"><code>{html.escape(m.group(1))}'
                   "</code></a>")
        last = m.end()
    out.append(_code_spans(text[last:]))
    return "".join(out)


def _code_spans(text: str) -> str:
    """Plain words with their plain-text math as symbols; a `code span` as <code>."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: no code spans
        return to_html(text)
    return "".join(f"<code>{html.escape(p)}</code>" if k % 2 else to_html(p)
                   for k, p in enumerate(parts))


_CODE_SPAN = re.compile(r"`([^`]*)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EMPH = re.compile(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def markdown_html(text: str, *, expand: Expand = _identity) -> str:
    """A line of the report's Markdown (captions, findings) as HTML: code spans, bold, italics,
    links and ``$...$`` math; a leading list dash dropped.

    >>> markdown_html("- **Fig. 1.** `vanilla.transfer` at $N_x$")[:40]
    '<strong>Fig. 1.</strong> <code>vanilla.t'
    """
    text = re.sub(r"^\s*-\s+", "", text)
    held: list[str] = []

    def hold(fragment: str) -> str:
        held.append(fragment)
        return f"\x00{len(held) - 1}\x00"

    text = _CODE_SPAN.sub(lambda m: hold(f"<code>{html.escape(m.group(1))}</code>"), text)
    text = re.sub(r"\$\$(.+?)\$\$", lambda m: hold(formula_html(m.group(1), display=True,
                                                                  expand=expand)), text)
    text = _INLINE.sub(lambda m: hold(formula_html(m.group(1), display=False, expand=expand)),
                       text)
    text = to_html(text)  # the report's own words: plain text, not the paper's LaTeX
    text = _LINK.sub(lambda m: hold(f'<a href="{m.group(2)}">{m.group(1)}</a>'), text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _EMPH.sub(r"<em>\1</em>", text)
    return re.sub("\x00(\\d+)\x00", lambda m: held[int(m.group(1))], text)


_TABLE_RULE = re.compile(r":?-{3,}:?")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_html(lines: list[str], expand: Expand) -> str:
    """A Markdown pipe table (header, rule, rows) as an HTML table; each cell's Markdown
    through :func:`markdown_html`."""
    rows = [_cells(line) for line in lines]
    rows = [r for r in rows if not all(_TABLE_RULE.fullmatch(c) for c in r)]
    head, body = rows[0], rows[1:]
    th = "".join(f"<th>{markdown_html(c, expand=expand)}</th>" for c in head)
    trs = "".join("<tr>" + "".join(f"<td>{markdown_html(c, expand=expand)}</td>" for c in r)
                  + "</tr>" for r in body)
    return f'<table class="caption-table"><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>'


def markdown_blocks_html(text: str, *, expand: Expand = _identity) -> str:
    r"""Markdown of several lines (a figure caption, the findings): a run of lines that begin
    with ``|`` is a pipe table and becomes an HTML table, a run of ``- `` lines a list; every
    other line goes through :func:`markdown_html`.

    >>> out = markdown_blocks_html("Values:\n| a | b |\n|---|---|\n| 1 | `x` |")
    >>> out.count("<tr>"), "<code>x</code>" in out, "---" in out
    (2, True, False)
    """
    out: list[str] = []
    table: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if table:
            out.append(_table_html(table, expand))
            table.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()

    for line in text.split("\n"):
        if line.lstrip().startswith("|"):
            if items:  # a list before the table ends there
                flush()
            table.append(line)
            continue
        if table:
            flush()
        if line.startswith("- "):  # a list item (an indented line continues it)
            items.append(markdown_html(line, expand=expand))
            continue
        if items and (line.startswith("  ") or not line.strip()):
            if line.strip():
                items[-1] += " " + markdown_html(line, expand=expand)
            continue
        flush()
        out.append(markdown_html(line, expand=expand))
    flush()
    return "\n".join(out)
