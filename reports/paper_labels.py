"""What ``\\ref{label}`` prints in the paper: its labels numbered the way LaTeX numbers them.

A quote of the paper shown to a reader must say "Fig. 7" and "Eq. (5a)", never
"fig_supp_phase". LaTeX prints a reference as the value of the counter last stepped before the
``\\label``; this module replays those counters over the source (a pure function of the text):

- equations: one number per row of ``align``/``gather``/``eqnarray`` (rows split by ``\\\\``
  outside nested ``cases``, ``array``, ``split``, ... ; a row with ``\\nonumber``/``\\notag``
  takes none), one per ``equation``/``multline``; starred environments, ``$$`` and ``\\[``
  none; inside ``subequations`` the rows are ``Na``, ``Nb``, ... and a label outside the rows
  names ``N``; ``\\tag{x}`` prints ``x``;
- figures: one number per ``figure`` environment, in order (a label inside names its figure);
- sections: ``1``, ``4.1``; after ``\\appendix`` ``A``, ``B.2`` (:attr:`Paper.sections`).

Examples
--------
>>> text = "\\n".join([r"\\begin{document}", r"\\section{S}",
...     r"\\begin{align} a \\label{eq_a} \\\\ b \\nonumber \\\\ c \\label{eq_c} \\end{align}",
...     r"\\begin{subequations} \\label{eq_pair}", r"\\begin{align} d \\label{eq_d} \\\\ e",
...     r"\\end{align} \\end{subequations}", r"\\begin{figure} \\caption{x} \\label{fig_x}",
...     r"\\end{figure}", r"\\appendix", r"\\section{T}", r"\\subsection{U} \\label{subsec_u}",
...     r"\\end{document}"])
>>> numbers = label_numbers(Paper.from_text(text))
>>> [numbers[k].text for k in ("eq_a", "eq_c", "eq_pair", "eq_d", "fig_x", "subsec_u")]
['1', '2', '3', '3a', '1', 'A.1']
>>> reference_words(numbers, "eq_d", "eqref"), reference_words(numbers, "fig_x", "cref")
('(3a)', 'Fig. 1')
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from .paper import Paper

__all__ = ["LabelNumber", "label_numbers", "reference_words", "resolve_references",
           "reference_resolver", "name_labels", "label_namer"]


@dataclass(frozen=True)
class LabelNumber:
    """What a label names: ``kind`` ("equation", "figure" or "section") and ``text``, the
    number ``\\ref`` prints ("5a", "7", "B.2")."""

    kind: str
    text: str


_NUMBERED = {"equation": "single", "multline": "single", "align": "rows", "gather": "rows",
             "eqnarray": "rows", "alignat": "rows", "flalign": "rows"}
_UNNUMBERED = {f"{name}*" for name in _NUMBERED}
_TOKEN = re.compile(r"\\begin\{([^}]*)\}|\\end\{([^}]*)\}|\\\\|\\nonumber\b|\\notag\b|"
                    r"\\label\{([^}]*)\}|\\tag\*?\{([^}]*)\}")
_COMMENT = re.compile(r"(?<!\\)%.*")


def _equation_numbers(text: str) -> dict[str, str]:
    """Every label inside a numbered display (or a ``subequations`` group) -> its number."""
    out: dict[str, str] = {}
    count = 0
    parent = None            # the subequations group's number, when inside one
    letters = 0
    env = None               # the numbered or unnumbered display environment we are in
    depth = 0                # nesting of other environments inside the display
    row_labels: list[str] = []
    row_off = False
    row_tag = None

    def close_row() -> None:
        nonlocal count, letters, row_labels, row_off, row_tag
        if env in _NUMBERED and not row_off:
            if row_tag is not None:
                number = row_tag
            elif parent is not None:
                letters += 1
                number = f"{parent}{chr(ord('a') + letters - 1)}"
            else:
                count += 1
                number = str(count)
            for label in row_labels:
                out[label] = number
        elif row_labels:     # a label in an unnumbered row names the last number stepped
            last = f"{parent}{chr(ord('a') + letters - 1)}" if parent and letters else str(count)
            for label in row_labels:
                out[label] = last
        row_labels, row_off, row_tag = [], False, None

    for m in _TOKEN.finditer(_COMMENT.sub("", text)):
        begin, end, label, tag = m.group(1), m.group(2), m.group(3), m.group(4)
        token = m.group(0)
        if begin is not None:
            if env is not None:
                depth += 1
            elif begin == "subequations":
                count += 1
                parent, letters = str(count), 0
            elif begin in _NUMBERED or begin in _UNNUMBERED:
                env, depth = begin, 0
        elif end is not None:
            if env is not None and depth > 0:
                depth -= 1
            elif env is not None and end == env:
                close_row()
                env = None
            elif end == "subequations":
                parent = None
        elif label is not None:
            if env is not None:
                row_labels.append(label)
            elif parent is not None:
                out[label] = parent
        elif tag is not None:
            row_tag = tag
        elif token == "\\\\":
            if env is not None and depth == 0 and _NUMBERED.get(env) == "rows":
                close_row()
        elif env is not None:   # \nonumber or \notag
            row_off = True
    return out


def label_numbers(paper: Paper) -> dict[str, LabelNumber]:
    """Every ``\\label`` of ``paper`` -> what ``\\ref`` prints for it."""
    equations = _equation_numbers(paper.text)
    out = {}
    for label, line in paper.labels.items():
        if label in equations:
            out[label] = LabelNumber("equation", equations[label])
            continue
        figure = paper.figure_of(line)
        if figure is not None:
            out[label] = LabelNumber("figure", str(figure))
            continue
        section = paper.section_of(line)
        if section.number[:1].isalnum() and section.number not in ("Abstract",):
            out[label] = LabelNumber("section", section.number)
    return out


_NAMES = {"equation": "the equation", "figure": "the figure", "section": "the section"}


def reference_words(numbers: Mapping[str, LabelNumber], label: str, command: str = "ref") -> str:
    """What ``\\<command>{label}`` prints: ``ref`` the number, ``eqref`` "(number)", ``cref``
    the number with its name ("Eq. (3)", "Fig. 7", "Sec. 4.1", "Appendix B.2"). A label the
    paper does not define reads "the equation/figure/section cited" by its prefix (never the
    raw label)."""
    found = numbers.get(label)
    if found is None:
        kind = ("figure" if label.startswith("fig") else "section" if "sec" in label[:6]
                else "equation")
        return f"{_NAMES[kind]} cited"
    if command == "eqref" or (command == "cref" and found.kind == "equation"):
        number = f"({found.text})"
        return f"Eq. {number}" if command == "cref" else number
    if command == "cref":
        if found.kind == "figure":
            return f"Fig. {found.text}"
        if found.text[:1].isdigit():
            return f"Sec. {found.text}"
        return f"Appendix {found.text}"
    return found.text


_REFERENCE = re.compile(r"\\(ref|eqref|cref|Cref|autoref)\{([^{}]*)\}")
_INLINE_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)


def resolve_references(text: str, numbers: Mapping[str, LabelNumber]) -> str:
    """``text`` (a quote of the paper) with every ``\\ref``, ``\\eqref`` and ``\\cref`` replaced
    by what LaTeX prints: plain words in prose, ``\\text{...}`` inside ``$...$`` math.

    >>> numbers = {"fig_p": LabelNumber("figure", "7"), "eq_t": LabelNumber("equation", "5a")}
    >>> resolve_references(r"(Fig. \\ref{fig_p}) and $x = \\eqref{eq_t}$", numbers)
    '(Fig. 7) and $x = \\\\text{(5a)}$'
    """
    def words(m: re.Match, math: bool) -> str:
        command = "cref" if m.group(1) in ("Cref", "autoref") else m.group(1)
        said = reference_words(numbers, m.group(2), command)
        return f"\\text{{{said}}}" if math else said

    out, last = [], 0
    for m in _INLINE_MATH.finditer(text):
        out.append(_REFERENCE.sub(lambda r: words(r, False), text[last:m.start()]))
        out.append("$" + _REFERENCE.sub(lambda r: words(r, True), m.group(1)) + "$")
        last = m.end()
    out.append(_REFERENCE.sub(lambda r: words(r, False), text[last:]))
    return "".join(out)


_BARE_LABEL = re.compile(r"(?<![{\w\\])(eq_[A-Za-z0-9_+]+)(?:/([A-Za-z0-9]+))?")


_PLACE_LABEL = re.compile(r"(?<![{\w\\])(?:(?:Appendix|Sec\.|Section|Fig\.|Figure)\s+)?"
                          r"((?:subsec|sec|app|fig)_[A-Za-z0-9_]*[A-Za-z0-9])")


def name_labels(text: str, numbers: Mapping[str, LabelNumber]) -> str:
    """The toolkit's own prose (notes, step names, captions, a claim's ``where``) with each
    bare label named as the paper prints it: "eq_t" -> "Eq. (5a)", a pair "eq_t_TF/RT" ->
    "Eqs. (5a) and (5b)", "Appendix subsec_b" or "subsec_b" -> "Appendix B.3", "fig_p" ->
    "Fig. 7"; math and labels the paper does not have are left alone.

    >>> numbers = {"eq_t_TF": LabelNumber("equation", "5a"),
    ...            "eq_t_RT": LabelNumber("equation", "5b"),
    ...            "subsec_b": LabelNumber("section", "B.3"), "fig_p": LabelNumber("figure", "7")}
    >>> name_labels("as eq_t_TF/RT predict; eq_t_TF at $x_{eq}$; eq_unknown", numbers)
    'as Eqs. (5a) and (5b) predict; Eq. (5a) at $x_{eq}$; eq_unknown'
    >>> name_labels("Appendix subsec_b: the row norm; subsec_b, fig_p and fig_unknown", numbers)
    'Appendix B.3: the row norm; Appendix B.3, Fig. 7 and fig_unknown'
    >>> name_labels("Sec. 5.3 / Appendix B.3 (subsec_b), Fig. 7 (fig_p) red region", numbers)
    'Sec. 5.3 / Appendix B.3, Fig. 7 red region'
    """
    def place(m: re.Match) -> str:
        label = m.group(1)
        if label not in numbers or numbers[label].kind == "equation":
            return m.group(0)
        return reference_words(numbers, label, "cref")

    def named(m: re.Match) -> str:
        first = m.group(1)
        if first not in numbers or numbers[first].kind != "equation":
            return m.group(0)
        if m.group(2):
            second = f"{first.rsplit('_', 1)[0]}_{m.group(2)}"
            if second in numbers:
                return f"Eqs. ({numbers[first].text}) and ({numbers[second].text})"
        return f"Eq. ({numbers[first].text})" + (f"/{m.group(2)}" if m.group(2) else "")

    out, last = [], 0
    for m in _INLINE_MATH.finditer(text):
        out.append(_PLACE_LABEL.sub(place, _BARE_LABEL.sub(named, text[last:m.start()])))
        out.append(m.group(0))
        last = m.end()
    out.append(_PLACE_LABEL.sub(place, _BARE_LABEL.sub(named, text[last:])))
    # a name followed by its own label in parentheses reads it twice once named
    return _REPEATED_NAME.sub(r"\1", "".join(out))


_REPEATED_NAME = re.compile(r"((?:Eqs?\.|Fig\.|Sec\.|Appendix) [^()\s]+) \(\1\)")


def label_namer(paper: Paper):
    """A function text -> text naming ``paper``'s equation labels (:func:`name_labels`)."""
    numbers = label_numbers(paper)
    return lambda text: name_labels(text, numbers)


def reference_resolver(paper: Paper):
    """A function text -> text resolving ``paper``'s references (:func:`resolve_references`)
    against its own labels, numbered once."""
    numbers = label_numbers(paper)
    return lambda text: resolve_references(text, numbers)
