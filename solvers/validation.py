"""Input validation shared by every solver, sweep and the CLI.

Every public entry point checks its parameters here, so a bad value fails early with an
:class:`tasksim.errors.InputError` (a ``ValueError``) that names the parameter and its allowed
range, never as a NaN or a traceback from deep inside numpy; the command line reports it as
bad input (exit status 2).

Examples
--------
>>> check_unit_interval("rho_a", 0.5)
0.5
>>> check_unit_interval("rho_a", 1.5)
Traceback (most recent call last):
...
tasksim.errors.InputError: rho_a must be a number in [0, 1], got 1.5
"""
from __future__ import annotations

import math
import numbers

from tasksim.errors import InputError

__all__ = [
    "check_unit_interval",
    "check_open_unit_interval",
    "check_nonnegative",
    "check_positive_int",
    "check_tall",
]


def _finite_real(name: str, value: object, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a number in {allowed}, got {value!r}")
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        raise InputError(f"{name} must be a number in {allowed}, got {value!r}")
    return x


def check_unit_interval(name: str, value: object) -> float:
    """A probability-like parameter (rho_a, rho_b, rho_g): a finite number in [0, 1]."""
    x = _finite_real(name, value, "[0, 1]")
    if not 0.0 <= x <= 1.0:
        raise InputError(f"{name} must be a number in [0, 1], got {value!r}")
    return x


def check_open_unit_interval(name: str, value: object) -> float:
    """A level in (0, 1] (alpha, gamma): zero is excluded, one is allowed."""
    x = _finite_real(name, value, "(0, 1]")
    if not 0.0 < x <= 1.0:
        raise InputError(f"{name} must be a number in (0, 1], got {value!r}")
    return x


def check_nonnegative(name: str, value: object) -> float:
    """A non-negative finite number (lambda)."""
    x = _finite_real(name, value, "[0, inf)")
    if x < 0.0:
        raise InputError(f"{name} must be a number in [0, inf), got {value!r}")
    return x


def check_positive_int(name: str, value: object) -> int:
    """A size or count: a positive integer (an integral float such as 30.0 is accepted)."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        n = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        n = int(value)
    else:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    if n < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return n


def check_tall(nx: int, ns: int, *, factor: int = 1, why: str = "the task matrices") -> None:
    """Require a tall task matrix: ``ns < nx`` and ``factor * ns <= nx``.

    ``factor = 2`` is for models whose solution needs the stacked [A_{mu-1}, A_mu]
    (Nx x 2Ns) to be tall, such as Fisher-metric regularization.
    """
    if not ns < nx or factor * ns > nx:
        need = "Ns < Nx" if factor == 1 else f"{factor} Ns <= Nx and Ns < Nx"
        raise InputError(f"ns={ns}, nx={nx}: {why} must be tall ({need})")
