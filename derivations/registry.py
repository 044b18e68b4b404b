"""The claim registry: every module of ``derivations`` that defines ``CLAIMS`` contributes.

A module adds claims by defining a list ``CLAIMS`` of :class:`tasksim.derivations.claims.Claim`;
nothing here needs editing when a module is added.
"""
from __future__ import annotations

import importlib
import pkgutil

from .claims import Claim, Verdict, evaluate

__all__ = ["all_claims", "evaluate_all", "evaluate_once"]


def all_claims() -> list[Claim]:
    """Every registered claim, in module order then as each module lists them, with the
    restatements of :data:`tasksim.derivations.links.RESTATEMENTS` added."""
    claims: list[Claim] = []
    package = importlib.import_module(__package__)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__package__}.{info.name}")
        claims.extend(getattr(module, "CLAIMS", []))
    from .links import with_restatements

    key = tuple(map(id, claims))
    if _RESTATED and _RESTATED[0][0] == key:  # the same modules' claims: the same objects,
        return list(_RESTATED[0][1])          # so each is evaluated once (evaluate_once)
    claims = with_restatements(claims)  # the paper's restatements of claimed statements
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate claim ids: {sorted(duplicates)}")
    _RESTATED[:] = [(key, tuple(claims))]
    return claims


_RESTATED: list[tuple[tuple[int, ...], tuple[Claim, ...]]] = []
"""The last registry built, keyed by the identities of the modules' claims."""


_EVALUATED: dict[int, tuple[Claim, Verdict]] = {}


def evaluate_once(claim: Claim) -> Verdict:
    """:func:`tasksim.derivations.claims.evaluate`, once per claim object and process (a
    derivation is a pure function of its claim; claims hold matrices, so the cache is keyed by
    identity, and a registry replaced in a test is evaluated afresh)."""
    hit = _EVALUATED.get(id(claim))
    if hit is None or hit[0] is not claim:
        hit = (claim, evaluate(claim))
        _EVALUATED[id(claim)] = hit
    return hit[1]


def evaluate_all() -> list[Verdict]:
    """Evaluate every claim (see :func:`tasksim.derivations.claims.evaluate`), each once per
    process (:func:`evaluate_once`)."""
    return [evaluate_once(c) for c in all_claims()]
