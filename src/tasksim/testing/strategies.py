"""Hypothesis strategies for valid parameters of the paper's models.

Property tests of tasksim (``verify/``) and of its extensions draw their parameters here, so that
every drawn value is one the solvers accept: similarities rho_a, rho_b, rho_g in [0, 1]; levels
alpha (gating) and gamma (regularization) in (0, 1]; regularizer amplitudes lam >= 0; sizes with
Ns << Nx (tall task matrices, Assumption II of Appendix A); the task generators of
:mod:`tasksim.solvers.tasks`; seeds for :func:`tasksim.solvers.rng.as_generator`.

Each strategy checks its own arguments when it is *built* and raises ``ValueError`` naming the
argument and its allowed range (:mod:`tasksim.solvers.validation`), so a mistaken bound fails at once
rather than at draw time. The strategies need Hypothesis (the ``test`` extra of the package):
this module lives apart from the runtime modules and is imported on purpose by tests.

Strategies
----------
``similarities(min_value=0.0, max_value=1.0)``
    rho_a, rho_b, rho_g: floats in [min_value, max_value] within [0, 1].
``levels(name, min_value=0.0, max_value=1.0)``
    alpha or gamma: floats in (0, 1]; ``min_value`` is excluded when it is 0.
    :func:`gating_levels` and :func:`regularizer_levels` name the two uses.
``regularizer_amplitudes(max_value=100.0)``
    lam: floats in [0, max_value].
``latent_sizes(min_value=1, max_value=8)``
    Ns: integers.
``tall_sizes(ns, min_ratio=8, max_ratio=1024, alpha=1.0)``
    (nx, ns) with min_ratio <= alpha nx / ns <= max_ratio: the effective input width
    alpha Nx is many latent dimensions (the paper's Ns << alpha Nx).
``generators()``, ``seeds()``
    a task generator name; a non-negative 32-bit integer seed.
``model_parameters(model, min_level=0.0, max_level=1.0)``
    a dict (``model``, ``rho_a``, ``rho_b`` and ``alpha`` or ``gamma`` as the model needs)
    accepted by :func:`tasksim.solvers.api.resolve_params`.

Examples
--------
>>> from hypothesis import given
>>> @given(similarities(), gating_levels(min_value=0.25))
... def check(rho, alpha):
...     assert 0.0 <= rho <= 1.0 and 0.25 <= alpha <= 1.0
>>> check()
>>> similarities(min_value=0.5, max_value=0.2)
Traceback (most recent call last):
...
ValueError: similarities needs min_value <= max_value, got 0.5 > 0.2
"""
from __future__ import annotations

import math
from typing import Any, Optional

from hypothesis import strategies as st

from tasksim.solvers.tasks import GENERATORS
from tasksim.solvers.validation import (
    check_nonnegative,
    check_open_unit_interval,
    check_positive_int,
    check_unit_interval,
)

__all__ = [
    "MAX_NX",
    "GATED_MODELS",
    "REGULARIZED_MODELS",
    "similarities",
    "levels",
    "gating_levels",
    "regularizer_levels",
    "regularizer_amplitudes",
    "latent_sizes",
    "tall_sizes",
    "generators",
    "seeds",
    "model_parameters",
]

MAX_NX = 10**9
"""The largest input width :func:`tall_sizes` draws (the Wishart path's cost does not depend on
Nx, but the explicit path allocates Nx x Ns matrices)."""

GATED_MODELS: tuple[str, ...] = ("random-gating", "adaptive-gating", "plasticity-gating",
                                 "soft-threshold")
REGULARIZED_MODELS: tuple[str, ...] = ("euclidean", "fisher", "fisher-diag")


def _ordered(strategy: str, low: float, high: float) -> None:
    if low > high:
        raise ValueError(f"{strategy} needs min_value <= max_value, got {low!r} > {high!r}")


def similarities(min_value: float = 0.0, max_value: float = 1.0) -> st.SearchStrategy[float]:
    """Similarities rho_a, rho_b (and gate correlations rho_g): floats in [0, 1].

    Examples
    --------
    >>> similarities(max_value=1.5)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: max_value must be a number in [0, 1], got 1.5
    """
    low = check_unit_interval("min_value", min_value)
    high = check_unit_interval("max_value", max_value)
    _ordered("similarities", low, high)
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def levels(name: str, min_value: float = 0.0, max_value: float = 1.0) -> st.SearchStrategy[float]:
    """A level in (0, 1] such as alpha (the fraction of open gates) or gamma (Euclidean and
    Fisher regularization, eq_main_lmu_wreg); ``min_value`` = 0 is excluded, never drawn.

    ``name`` is only used in error messages.

    Examples
    --------
    >>> levels("alpha", min_value=-0.1)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: min_value must be a number in [0, 1], got -0.1
    """
    low = check_unit_interval("min_value", min_value)
    high = check_open_unit_interval("max_value", max_value)
    _ordered(f"levels({name!r})", low, high)
    return st.floats(min_value=low, max_value=high, exclude_min=low == 0.0, allow_nan=False,
                     allow_infinity=False)


def gating_levels(min_value: float = 0.0, max_value: float = 1.0) -> st.SearchStrategy[float]:
    """Gating levels alpha in (0, 1] (:func:`levels`).

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(gating_levels(min_value=0.5))
    ... def check(alpha):
    ...     assert 0.5 <= alpha <= 1.0
    >>> check()
    """
    return levels("alpha", min_value, max_value)


def regularizer_levels(min_value: float = 0.0, max_value: float = 1.0) -> st.SearchStrategy[float]:
    """Regularizer levels gamma in (0, 1]: gamma = 1 is no regularization (:func:`levels`).

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(regularizer_levels())
    ... def check(gamma):
    ...     assert 0.0 < gamma <= 1.0
    >>> check()
    """
    return levels("gamma", min_value, max_value)


def regularizer_amplitudes(max_value: float = 100.0) -> st.SearchStrategy[float]:
    """Regularizer amplitudes lam in [0, max_value].

    Examples
    --------
    >>> from hypothesis import find
    >>> find(regularizer_amplitudes(), lambda lam: True)
    0.0
    """
    high = check_nonnegative("max_value", max_value)
    return st.floats(min_value=0.0, max_value=high, allow_nan=False, allow_infinity=False)


def latent_sizes(min_value: int = 1, max_value: int = 8) -> st.SearchStrategy[int]:
    """Latent dimensions Ns: integers in [min_value, max_value].

    Examples
    --------
    >>> latent_sizes(min_value=0)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: min_value must be a positive integer, got 0
    """
    low = check_positive_int("min_value", min_value)
    high = check_positive_int("max_value", max_value)
    _ordered("latent_sizes", low, high)
    return st.integers(min_value=low, max_value=high)


def tall_sizes(ns: int | st.SearchStrategy[int] = 4, *, min_ratio: float = 8.0,
               max_ratio: float = 1024.0, alpha: float = 1.0
               ) -> st.SearchStrategy[tuple[int, int]]:
    """Sizes (nx, ns) of tall task matrices: min_ratio <= alpha nx / ns <= max_ratio.

    ``ns`` is an integer or a strategy of integers (e.g. :func:`latent_sizes`); ``alpha`` the
    fraction of inputs a gated model sees (1 for ungated models), so that the gated matrix
    D A, with about alpha Nx nonzero rows, is tall too. Nx never exceeds :data:`MAX_NX`.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(tall_sizes(4, min_ratio=10, alpha=0.5), lambda size: True)
    (80, 4)
    >>> tall_sizes(4, min_ratio=0.5)
    Traceback (most recent call last):
    ...
    ValueError: min_ratio must be a number >= 1 (a tall matrix), got 0.5
    """
    if isinstance(min_ratio, bool) or not isinstance(min_ratio, (int, float)) \
            or not math.isfinite(min_ratio) or min_ratio < 1.0:
        raise ValueError(f"min_ratio must be a number >= 1 (a tall matrix), got {min_ratio!r}")
    if isinstance(max_ratio, bool) or not isinstance(max_ratio, (int, float)) \
            or not math.isfinite(max_ratio):
        raise ValueError(f"max_ratio must be a finite number >= min_ratio, got {max_ratio!r}")
    _ordered("tall_sizes", float(min_ratio), float(max_ratio))
    alpha = check_open_unit_interval("alpha", alpha)
    if isinstance(ns, st.SearchStrategy):
        ns_strategy = ns
    else:
        ns_strategy = st.just(check_positive_int("ns", ns))

    def widths(n: int) -> st.SearchStrategy[tuple[int, int]]:
        low = max(n + 1, math.ceil(min_ratio * n / alpha))
        high = math.floor(max_ratio * n / alpha)
        if low > MAX_NX:
            raise ValueError(f"min_ratio * ns / alpha = {low} exceeds MAX_NX = {MAX_NX}")
        high = max(low, min(high, MAX_NX))
        return st.integers(min_value=low, max_value=high).map(lambda nx: (nx, n))

    return ns_strategy.flatmap(widths)


def generators() -> st.SearchStrategy[str]:
    """The task generators of :mod:`tasksim.solvers.tasks` ("appendix", "gaussian").

    Examples
    --------
    >>> from hypothesis import find
    >>> find(generators(), lambda g: g != "appendix")
    'gaussian'
    """
    return st.sampled_from(GENERATORS)


def seeds() -> st.SearchStrategy[int]:
    """Seeds for :func:`tasksim.solvers.rng.as_generator`: integers in [0, 2^32 - 1].

    Examples
    --------
    >>> from hypothesis import find
    >>> find(seeds(), lambda s: s > 10)
    11
    """
    return st.integers(min_value=0, max_value=2**32 - 1)


def model_parameters(model: str, *, min_level: float = 0.0, max_level: float = 1.0,
                     min_similarity: float = 0.0, max_similarity: float = 1.0
                     ) -> st.SearchStrategy[dict[str, Any]]:
    """Parameters of one model: a dict with ``model``, ``rho_a``, ``rho_b`` and the model's
    level, ``alpha`` for gated models or ``gamma`` for regularized ones (in
    [min_level, max_level], 0 excluded), as :func:`tasksim.solvers.api.resolve_params` accepts them.

    ``min_similarity`` / ``max_similarity`` bound rho_a and rho_b. ``max_level`` < 1 keeps a
    regularizer switched on (gamma = 1 is lam = 0, no regularization).

    Examples
    --------
    >>> from hypothesis import find
    >>> p = find(model_parameters("euclidean", min_level=0.5), lambda p: True)
    >>> sorted(p), 0.5 <= p["gamma"] <= 1.0
    (['gamma', 'model', 'rho_a', 'rho_b'], True)
    >>> model_parameters("ridge")
    Traceback (most recent call last):
    ...
    ValueError: model must be one of vanilla, random-gating, adaptive-gating, plasticity-gating, soft-threshold, euclidean, fisher, fisher-diag, got 'ridge'
    """
    known = ("vanilla",) + GATED_MODELS + REGULARIZED_MODELS
    if model not in known:
        raise ValueError(f"model must be one of {', '.join(known)}, got {model!r}")
    rho = similarities(min_similarity, max_similarity)
    fields: dict[str, st.SearchStrategy[Any]] = {"model": st.just(model), "rho_a": rho,
                                                  "rho_b": rho}
    level: Optional[str] = ("alpha" if model in GATED_MODELS else
                            "gamma" if model in REGULARIZED_MODELS else None)
    if level is not None:
        fields[level] = levels(level, min_level, max_level)
    return st.fixed_dictionaries(fields)
