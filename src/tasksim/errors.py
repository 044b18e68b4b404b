"""The exception for bad input, shared by every part of tasksim.

:class:`InputError` is what validation raises for a value the caller chose: a parameter out
of its range (the message names it and the range), an unknown model or option, a request the
machine cannot hold, an input file that is not what it should be. It subclasses ``ValueError``,
so ``except ValueError`` in code written against the API keeps working; the command line tells
the two apart by type: an InputError is bad input (one line, exit status 2), any other
exception, a ``ValueError`` from inside numpy or a solver included, is a failure at run time
(exit status 1, ``--debug`` shows its traceback).

Examples
--------
>>> issubclass(InputError, ValueError)
True
>>> str(InputError("rho_a must be a number in [0, 1], got 1.5"))
'rho_a must be a number in [0, 1], got 1.5'
"""
from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input, named in one line: the caller's to fix, not a fault of tasksim."""
