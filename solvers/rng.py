"""Randomness enters tasksim through one argument, normalised here.

Every function that draws accepts ``seed``: an int, a ``numpy.random.SeedSequence``, a
``numpy.random.Generator`` or ``None`` (fresh entropy). Sweeps derive one child
``SeedSequence`` per sample with :func:`spawn`, so their results do not depend on how the
samples are split across workers.

Examples
--------
>>> a = as_generator(7).standard_normal(3)
>>> b = as_generator(7).standard_normal(3)
>>> bool((a == b).all())
True
"""
from __future__ import annotations

from typing import Union

import numpy as np

from tasksim.errors import InputError

Seed = Union[int, np.random.SeedSequence, np.random.Generator, None]

__all__ = ["Seed", "as_generator", "spawn"]


def as_generator(seed: Seed) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``seed`` (a Generator is passed through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool):
        raise InputError(f"seed must be an int, a SeedSequence, a Generator or None, got {seed!r}")
    if seed is None or isinstance(seed, (int, np.integer, np.random.SeedSequence)):
        if isinstance(seed, (int, np.integer)) and seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {seed!r}")
        return np.random.default_rng(seed)
    raise InputError(f"seed must be an int, a SeedSequence, a Generator or None, got {seed!r}")


def spawn(seed: int | np.random.SeedSequence | None, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seed sequences of ``seed``, the same on every machine."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return root.spawn(n)
