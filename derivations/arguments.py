"""Checks of the numeric arguments that some derivations accept (a similarity, a level, a
small matrix size), so that a bad value fails with a ValueError naming it.

``derivations`` does not import ``solvers`` (see DESIGN.md); these checks take sympy numbers
as well as Python ones and return exact sympy numbers, which is what the symbolic code wants.

Examples
--------
>>> real_in_range("rho_a", 0.5, 0, 1)
1/2
>>> real_in_range("alpha", 0, 0, 1, open_low=True)
Traceback (most recent call last):
...
ValueError: alpha must be a number in (0, 1], got 0
"""
from __future__ import annotations

import numbers

import sympy as sp

__all__ = ["real_in_range", "positive_size"]


def real_in_range(name: str, value: object, low: sp.Expr, high: sp.Expr, *,
                  open_low: bool = False) -> sp.Rational:
    """``value`` as an exact sympy number in [low, high] (or (low, high] with ``open_low``)."""
    allowed = f"{'(' if open_low else '['}{low}, {high}]"
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, sp.Number)):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    number = sp.nsimplify(value, rational=True) if not isinstance(value, sp.Rational) else value
    if not number.is_finite or not number.is_real:
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    below = number <= low if open_low else number < low
    if below or number > high:
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    return number


def positive_size(name: str, value: object) -> int:
    """A matrix size: a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, sp.Integer)) \
            or int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
