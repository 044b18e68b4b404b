"""The claim registry: every module of ``derivations`` that defines ``CLAIMS`` contributes.

A module adds claims by defining a list ``CLAIMS`` of :class:`tasksim.derivations.claims.Claim`;
nothing here needs editing when a module is added.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, Optional

from .claims import Claim, Verdict, evaluate

__all__ = ["all_claims", "evaluate_all", "evaluate_once", "share_evaluations",
           "without_callables"]


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

_SHARED: list[tuple[Any, str]] = []
"""The store the processes of one report build share evaluated claims through, and its key
prefix (:func:`share_evaluations`); empty: each process evaluates on its own."""


def share_evaluations(store: Optional[Any], version: str = "") -> None:
    """Let :func:`evaluate_once` read and write evaluated claims in ``store`` (an object with
    ``get(key)`` returning the value or None, and ``put(key, value)``: the report's keyed
    store) under ``[version, "evaluated-claim", id]``, so that the worker processes of one
    build evaluate a claim that several of them need once between them. ``version`` must
    change with the code (the report passes its pieces' version). None: stop sharing."""
    _SHARED[:] = [] if store is None else [(store, version)]


def without_callables(verdict: Verdict) -> Verdict:
    """``verdict`` with every callable field of its claim set to None (a claim carries its
    derivation as a closure, which cannot be pickled; nothing downstream of a verdict calls
    it)."""
    claim = verdict.claim
    gone = {f.name: None for f in dataclasses.fields(claim) if callable(getattr(claim, f.name))}
    return dataclasses.replace(verdict, claim=dataclasses.replace(claim, **gone))


def _evaluated_elsewhere(claim: Claim) -> Optional[Verdict]:
    """The verdict another process of the build stored for ``claim``, on this claim object."""
    if not _SHARED:
        return None
    store, version = _SHARED[0]
    found = store.get([version, "evaluated-claim", claim.id])
    if not isinstance(found, Verdict) or found.claim.id != claim.id:
        return None
    return dataclasses.replace(found, claim=claim)


def evaluate_once(claim: Claim) -> Verdict:
    """:func:`tasksim.derivations.claims.evaluate`, once per claim object and process (a
    derivation is a pure function of its claim; claims hold matrices, so the cache is keyed by
    identity, and a registry replaced in a test is evaluated afresh); with
    :func:`share_evaluations`, once per build where the processes' timing allows."""
    hit = _EVALUATED.get(id(claim))
    if hit is None or hit[0] is not claim:
        verdict = _evaluated_elsewhere(claim)
        if verdict is None:
            verdict = evaluate(claim)
            if _SHARED:
                store, version = _SHARED[0]
                store.put([version, "evaluated-claim", claim.id], without_callables(verdict))
        hit = (claim, verdict)
        _EVALUATED[id(claim)] = hit
    return hit[1]


def evaluate_all() -> list[Verdict]:
    """Evaluate every claim (see :func:`tasksim.derivations.claims.evaluate`), each once per
    process (:func:`evaluate_once`)."""
    return [evaluate_once(c) for c in all_claims()]
