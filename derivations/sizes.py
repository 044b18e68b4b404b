"""How large a difference between two formulas is at the paper's sizes.

A claim that holds only at leading order, or an erratum, differs from the derived truth by an
expression in the sizes (Nx, Ns, Ny) and the model's parameters. :func:`size_at_paper_sizes`
puts Nx = 3000, Ns = 30, Ny = 10 (the paper's linear-model sizes, Appendix E.1,
subsec_linear_st_implementation) and returns the largest magnitude over a grid of the
parameters' domains, with the point where it is reached: the number a reviewer needs to judge
whether the difference matters.

Domains (the paper's): rho_a, rho_b, rho_g in [0, 1]; alpha, alpha~, gamma, gamma_f in (0, 1];
lambda in [0, 10] (log-spaced); the soft threshold h in [0, 2]. Grids have 11 points per
parameter (alpha-like: 0.1 .. 1), so the maximum is over at most 11^k points for k parameters.

Pure sympy and the standard library: expressions are compiled with ``sympy.lambdify`` to the
``math`` module.

Examples
--------
>>> from tasksim.derivations.symbols import Ns, Nx, rho_a
>>> size = size_at_paper_sizes(rho_a * Ns / Nx)
>>> size.value, size.point
(0.01, {'rho_a': 1.0})
>>> print(size_at_paper_sizes(rho_a))
1 at rho_a = 1
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import sympy as sp

from .symbols import Ns, Nx, Ny, alpha, alpha_t, gamma, gamma_f, h, lam, rho_a, rho_b, rho_g

if TYPE_CHECKING:
    from .claims import Verdict

__all__ = ["PAPER_SIZES", "Size", "size_at_paper_sizes", "GRIDS", "observable_change",
           "observable_size"]

PAPER_SIZES = {Nx: 3000, Ns: 30, Ny: 10}
"""The paper's sizes for the linear models."""

_UNIT = tuple(k / 10 for k in range(11))
_POSITIVE_UNIT = tuple(k / 10 for k in range(1, 11))
GRIDS: dict[sp.Symbol, tuple[float, ...]] = {
    rho_a: _UNIT, rho_b: _UNIT, rho_g: _UNIT,
    alpha: _POSITIVE_UNIT, alpha_t: _POSITIVE_UNIT, gamma: _POSITIVE_UNIT,
    gamma_f: _POSITIVE_UNIT,
    lam: (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
    h: tuple(k / 5 for k in range(11)),
}
"""The grid of each parameter's domain on which a size is maximised."""


@dataclass(frozen=True)
class Size:
    """The largest magnitude of an expression at the paper's sizes, and where it is reached."""

    value: float
    point: dict[str, float]

    def __str__(self) -> str:
        where = ", ".join(f"{k} = {v:g}" for k, v in self.point.items())
        return f"{self.value:.3g}" + (f" at {where}" if where else "")


def _name(symbol: sp.Symbol) -> str:
    return {alpha_t: "alpha~", lam: "lambda"}.get(symbol, str(symbol))


def size_at_paper_sizes(expr: sp.Basic) -> Optional[Size]:
    """max |expr| at Nx = 3000, Ns = 30, Ny = 10 over the parameter grids (module docstring).

    None when ``expr`` is not a scalar expression of the known parameters (a matrix, a
    relation, a symbol without a domain) or is undefined everywhere on the grid.
    """
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr) or expr.has(
            sp.MatrixSymbol):
        return None
    fixed = expr.subs(PAPER_SIZES)
    params = sorted(fixed.free_symbols, key=str)
    if any(p not in GRIDS for p in params):
        return None
    function = sp.lambdify(params, fixed, modules="math")
    best: Optional[tuple[float, tuple[float, ...]]] = None
    for values in itertools.product(*(GRIDS[p] for p in params)):
        try:
            value = abs(complex(function(*values)))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            continue
        if math.isfinite(value) and (best is None or value > best[0]):
            best = (value, values)
    if best is None:
        return None
    return Size(best[0], {_name(p): v for p, v in zip(params, best[1])})


def observable_change(v: "Verdict") -> Optional[sp.Expr]:
    """What a reader who used the printed form would get wrong, as an expression in the
    statement's observable (``Claim.observable``): derived - printed, carried through the
    claim's ``carry`` (the coefficient of an intermediate term in the observable); for a
    statement that holds in a limit, its finite-size correction. None when there is no
    scalar difference (matrices, relations, sets, an open claim)."""
    claim = v.claim
    derived, printed = v.derived, claim.printed
    if v.status == "leading order" and v.correction is not None:
        return v.correction if isinstance(v.correction, sp.Expr) else None
    if v.status == "verified" and v.derivation is not None and v.derivation.stronger_condition:
        return derived if isinstance(derived, sp.Expr) else None
    if v.status != "erratum":
        return None
    if not (isinstance(derived, sp.Expr) and isinstance(printed, sp.Expr)) or any(
            isinstance(x, (sp.MatrixExpr, sp.logic.boolalg.Boolean)) or x.has(sp.MatrixSymbol)
            for x in (derived, printed)):
        return None
    difference = derived - printed
    return claim.carry(difference) if claim.carry is not None else difference


def observable_size(v: "Verdict", verdict: str) -> tuple[Optional[Size], str]:
    """The size of ``verdict`` on ``v``'s statement at the paper's sizes, in the units of the
    statement's observable, and, when there is no number, why (module docstring).

    ``exact`` has size 0 (the printed form is right at every size); ``not decided`` has none.
    """
    if verdict == "exact":
        return Size(0.0, {}), ""
    if verdict == "not decided":
        what = v.claim.decide or v.note
        return None, f"not decided: {what}" if what else "not decided"
    change = observable_change(v)
    if change is None:
        if v.status == "verified":
            return None, ("derived at leading order only (through the paper's surrogate "
                          "steps): the finite-size correction at the paper's sizes is not "
                          "derived for this statement")
        if v.exceptions:
            return None, f"a statement about a set: it fails on {v.exceptions}"
        return None, ("no single number: a matrix identity, a relation or a set (its effect "
                      "on an error is sized by the other statements of its cause)")
    size = size_at_paper_sizes(change)
    if size is None:
        return None, "the difference is not a number on the parameters' grid"
    return size, ""
