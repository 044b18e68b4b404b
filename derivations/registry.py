"""The claim registry: every module of ``derivations`` that defines ``CLAIMS`` contributes.

A module adds claims by defining a list ``CLAIMS`` of :class:`tasksim.derivations.claims.Claim`;
nothing here needs editing when a module is added.
"""
from __future__ import annotations

import importlib
import pkgutil

from .claims import Claim, Verdict, evaluate

__all__ = ["all_claims", "evaluate_all"]


def all_claims() -> list[Claim]:
    """Every registered claim, in module order then as each module lists them, with the
    restatements of :data:`tasksim.derivations.links.RESTATEMENTS` added."""
    claims: list[Claim] = []
    package = importlib.import_module(__package__)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__package__}.{info.name}")
        claims.extend(getattr(module, "CLAIMS", []))
    from .links import with_restatements

    claims = with_restatements(claims)  # the paper's restatements of claimed statements
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate claim ids: {sorted(duplicates)}")
    return claims


def evaluate_all() -> list[Verdict]:
    """Evaluate every claim (see :func:`tasksim.derivations.claims.evaluate`)."""
    return [evaluate(c) for c in all_claims()]
