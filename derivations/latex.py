"""LaTeX of derived expressions that any TeX-math renderer shows as intended.

``sympy.latex`` prints a symbol or a matrix letter by its name; names such as ``alpha~``
(:data:`tasksim.derivations.symbols.alpha_t`), ``W_{mu-1}`` or ``Lambda^{-1}`` (letters of
:mod:`tasksim.derivations.matrix_words`) would come out as the Latin letters a-l-p-h-a. Here
every bare Greek name inside an identifier becomes its command.

Examples
--------
>>> import sympy as sp
>>> from tasksim.derivations.symbols import alpha_t, rho_a
>>> latex(alpha_t * rho_a)
'\\\\tilde{\\\\alpha} \\\\rho_{a}'
>>> latex(sp.MatrixSymbol("W_{mu-1}", 2, 2) * sp.MatrixSymbol("Lambda^{-1}", 2, 2))
'W_{\\\\mu-1} \\\\Lambda^{-1}'
"""
from __future__ import annotations

import re

import sympy as sp

__all__ = ["latex", "GREEK", "fix_greek", "group_superscripts", "inline_math", "plain"]

GREEK = ("alpha", "beta", "gamma", "Gamma", "delta", "Delta", "epsilon", "zeta", "eta",
         "theta", "Theta", "kappa", "lambda", "Lambda", "mu", "nu", "xi", "Xi", "pi", "Pi",
         "rho", "sigma", "Sigma", "tau", "phi", "Phi", "chi", "psi", "Psi", "omega", "Omega")
"""Greek letter names that LaTeX spells as commands."""

_BARE = re.compile(r"(?<![\\A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True))
                   + r")(?![A-Za-z])")


def fix_greek(text: str) -> str:
    """Every bare Greek letter name in ``text`` as its LaTeX command (``mu`` -> ``\\\\mu``);
    commands and longer words are left alone.

    >>> fix_greek(r"W_{mu-1} + \\tilde{alpha} + \\alpha + alphabet")
    'W_{\\\\mu-1} + \\\\tilde{\\\\alpha} + \\\\alpha + alphabet'
    """
    return _BARE.sub(lambda m: "\\" + m.group(1), text)


_DOUBLE_SUPERSCRIPT = re.compile(r"((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[^{}]*\})?\^\{[^{}]*\})\^\{")


def group_superscripts(text: str) -> str:
    """``A_{1}^{+}^{T}`` (a transposed letter whose name has a superscript, as sympy prints
    it) as ``{A_{1}^{+}}^{T}``: TeX rejects a double superscript.

    >>> group_superscripts("A_{1}^{+}^{T} B^{T}")
    '{A_{1}^{+}}^{T} B^{T}'
    """
    return _DOUBLE_SUPERSCRIPT.sub(lambda m: "{" + m.group(1) + "}^{", text)


def latex(expr: sp.Basic) -> str:
    """``sympy.latex(expr)`` with Greek names as commands and double superscripts grouped
    (module docstring)."""
    return group_superscripts(fix_greek(sp.latex(expr)))


def inline_math(expr: sp.Basic) -> str:
    """``expr`` as inline math for a note (``$...$``): notes are words or math, never code.

    >>> print(inline_math(sp.Symbol("rho_a") ** 2 / 2))
    $\\frac{\\rho_{a}^{2}}{2}$
    """
    return f"${latex(expr)}$"


def plain(expr: sp.Basic) -> str:
    """``expr`` in the toolkit's plain-text math (``rho_a^2``, products by a space), for a note
    written in plain words and symbols (:mod:`tasksim.reports.plain_math` shows it), so that
    one sentence does not mix ``$...$`` with ``rho_a``.

    >>> import sympy as sp
    >>> g, r = sp.symbols("gamma rho_a")
    >>> plain(-g * (g - 2)), plain(1 - (1 - g) ** 4), plain(-r ** 2)
    ('-gamma (gamma - 2)', '1 - (1 - gamma)^4', '-rho_a^2')
    """
    return sp.sstr(expr).replace("**", "^").replace("*", " ")
