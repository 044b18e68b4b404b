"""The suite's resolution: the smallest change in transfer and retention its run would detect.

A comparison (:class:`verify.tolerances.Comparison`) of a mean over fixed seeds with a target
fails when |error| > allowed. A fault that changes that mean by delta fails it for every sign
of delta once |delta| > allowed + |error| (:func:`detectable`). The checks that compare a
model's transfer or retention with exact theory at the paper's sizes register their
comparisons here (:func:`record`); :func:`summary` gives, per model and quantity, the smallest
such change over the points checked (a change that moves every point by the same amount is
caught from that size on) and the largest (a change at any single point of the check is
caught from that size on). verify/conftest.py prints it at the end of ``pytest verify``.

Examples
--------
>>> from tasksim.solvers.sweep import Estimate
>>> from verify.tolerances import compare
>>> c = compare("demo", Estimate(0.5004, 1e-4, 1000), 0.5)
>>> round(detectable(c), 6)
0.000903
>>> clear(); _ = record("vanilla", "transfer", c); summary()[0].split(": ")[0]
'vanilla transfer'
>>> clear()
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from verify.tolerances import Comparison

__all__ = ["Record", "record", "records", "detectable", "summary", "clear"]


@dataclass(frozen=True)
class Record:
    """One registered comparison of ``model``'s ``quantity`` at the paper's sizes."""

    model: str
    quantity: str
    comparison: Comparison


_RECORDS: list[Record] = []


def detectable(comparison: Comparison) -> float:
    """The smallest |delta| that fails ``comparison`` for either sign: allowed + |error|."""
    return comparison.allowed + comparison.error


def record(model: str, quantity: str, comparison: Comparison) -> Comparison:
    """Register ``comparison`` as measuring ``model``'s ``quantity``; returns it."""
    _RECORDS.append(Record(model, quantity, comparison))
    return comparison


def records() -> list[Record]:
    """Every registered comparison, in order."""
    return list(_RECORDS)


def clear() -> None:
    """Forget every registered comparison."""
    _RECORDS.clear()


def summary() -> list[str]:
    """One line per (model, quantity): the best and worst detectable change, the number of
    comparisons, and whether they all passed."""
    groups: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    for r in _RECORDS:
        groups[(r.model, r.quantity)].append(r.comparison)
    lines = []
    for (model, quantity), comparisons in sorted(groups.items()):
        sizes = [detectable(c) for c in comparisons]
        best = min(range(len(sizes)), key=sizes.__getitem__)
        failed = sum(not c.agrees for c in comparisons)
        state = "all agree" if not failed else f"{failed} FAILED"
        lines.append(f"{model} {quantity}: detects a change of {sizes[best]:.1e} "
                     f"(everywhere) to {max(sizes):.1e} (at any one point) over "
                     f"{len(sizes)} comparisons, {state}; best at {comparisons[best].label}")
    return lines
