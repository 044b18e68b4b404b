"""Task sequences and gating vectors (Appendix A, "Assumption I"; eq_def_rho_g).

Two generators produce the mixing matrices A_mu (Nx x Ns) and B_mu (Ny x Ns), all entries of
variance 1/Ns:

``appendix``
    As Appendix A states: each element of A_mu is kept from A_{mu-1} with probability rho_a,
    otherwise resampled from N(0, 1/Ns); B_mu likewise with rho_b. Entries of (A_1, A_2) are
    not jointly Gaussian.
``gaussian``
    A_mu = rho_a A_{mu-1} + sqrt(1 - rho_a^2) Z with Z an independent copy; jointly Gaussian.

Both give element-wise correlation rho between subsequent tasks; they agree at leading order
in Ns/Nx, not necessarily beyond.

Two similarity structures arrange a sequence of K tasks (the paper analyses K = 2):

``chain`` (the paper's Appendix A)
    task mu + 1 is drawn from task mu as above, so tasks mu and nu have element-wise
    correlation rho^|mu - nu| (under ``appendix`` an element of A_nu equals that of A_mu when
    it was kept at every step in between, probability rho^|mu - nu|, and is independent of it
    otherwise).
``shared``
    every task is drawn from one common parent P (never a task itself) with correlation
    sqrt(rho): A_mu = sqrt(rho) P + sqrt(1 - rho) Z_mu under ``gaussian``; under ``appendix``
    each element is kept from P with probability sqrt(rho), else resampled. Two tasks are then
    identical at an element with probability sqrt(rho)^2 = rho and independent otherwise, so
    every pair has correlation rho. For K = 2 the pair (A_1, A_2) has exactly the law of the
    chain's, under either generator (a different draw for the same seed).

:func:`task_correlation` gives the K x K matrix of correlations of either structure.

Gates are Bernoulli(alpha) vectors; g_{mu+1} keeps each element of g_mu with probability
rho_g, otherwise redraws it from Bernoulli(alpha) (eq_def_rho_g).

Examples
--------
>>> t = draw_tasks(nx=50, ns=5, ny=3, rho_a=1.0, rho_b=0.0, n_tasks=2, seed=0)
>>> bool((t.A[0] == t.A[1]).all()), t.A[0].shape, t.B[1].shape
(True, (50, 5), (3, 5))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np

from tasksim.errors import InputError

from .rng import Seed, as_generator
from .validation import check_open_unit_interval, check_positive_int, check_unit_interval

Generator = Literal["appendix", "gaussian"]
GENERATORS: tuple[str, ...] = ("appendix", "gaussian")
STRUCTURES: tuple[str, ...] = ("chain", "shared")

__all__ = [
    "GENERATORS",
    "STRUCTURES",
    "TaskSequence",
    "check_generator",
    "check_structure",
    "task_correlation",
    "correlated_successor",
    "draw_tasks",
    "draw_gates",
    "next_gate",
]


def check_generator(generator: str) -> str:
    """Validate a generator name."""
    if generator not in GENERATORS:
        raise InputError(f"generator must be one of {', '.join(GENERATORS)}, got {generator!r}")
    return generator


def check_structure(structure: str) -> str:
    """Validate a similarity-structure name (``chain`` or ``shared``)."""
    if structure not in STRUCTURES:
        raise InputError(f"structure must be one of {', '.join(STRUCTURES)}, got {structure!r}")
    return structure


def task_correlation(rho: float, n_tasks: int, structure: str = "chain", *,
                     name: str = "rho") -> np.ndarray:
    """The n x n element-wise correlations of the tasks' matrices (module docstring).

    ``chain``: T_{mu nu} = rho^|mu - nu|; ``shared``: T_{mu nu} = rho for mu != nu. Both
    generators have these second moments. ``name`` names ``rho`` in error messages.

    Examples
    --------
    >>> task_correlation(0.5, 3)
    array([[1.  , 0.5 , 0.25],
           [0.5 , 1.  , 0.5 ],
           [0.25, 0.5 , 1.  ]])
    >>> task_correlation(0.5, 3, "shared")
    array([[1. , 0.5, 0.5],
           [0.5, 1. , 0.5],
           [0.5, 0.5, 1. ]])
    """
    rho = check_unit_interval(name, rho)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    check_structure(structure)
    if structure == "shared":
        return np.full((n_tasks, n_tasks), rho) + (1.0 - rho) * np.eye(n_tasks)
    lags = np.abs(np.subtract.outer(np.arange(n_tasks), np.arange(n_tasks)))
    return np.power(rho, lags.astype(float))


@dataclass(frozen=True)
class TaskSequence:
    """Mixing matrices of a sequence of tasks: ``A[mu]`` is Nx x Ns, ``B[mu]`` is Ny x Ns."""

    A: tuple[np.ndarray, ...]
    B: tuple[np.ndarray, ...]
    rho_a: float
    rho_b: float
    generator: str
    structure: str = "chain"

    @property
    def n_tasks(self) -> int:
        return len(self.A)

    @property
    def nx(self) -> int:
        return self.A[0].shape[0]

    @property
    def ns(self) -> int:
        return self.A[0].shape[1]

    @property
    def ny(self) -> int:
        return self.B[0].shape[0]


def correlated_successor(
    previous: np.ndarray, rho: float, generator: str, rng: np.random.Generator
) -> np.ndarray:
    """A matrix with element-wise correlation ``rho`` to ``previous`` (same variance 1/Ns).

    Allocates one new matrix of the shape of ``previous`` and works in place on it, so that
    Nx = 10^6 stays within memory.
    """
    ns = previous.shape[1]
    fresh = rng.standard_normal(previous.shape)
    fresh *= 1.0 / np.sqrt(ns)
    if generator == "appendix":
        if rho > 0.0:
            keep = rng.random(previous.shape) < rho
            np.copyto(fresh, previous, where=keep)
    else:  # gaussian
        fresh *= np.sqrt(1.0 - rho * rho)
        if rho > 0.0:
            fresh += rho * previous
    return fresh


def _draw_family(shape: tuple[int, int], rho: float, n_tasks: int, generator: str,
                 structure: str, rng: np.random.Generator) -> list[np.ndarray]:
    """The matrices of one family (A or B) of every task, in the given structure."""
    first = rng.standard_normal(shape) * (1.0 / np.sqrt(shape[1]))
    if structure == "shared":  # ``first`` is the parent; every task is its child
        child = float(np.sqrt(rho))
        return [correlated_successor(first, child, generator, rng) for _ in range(n_tasks)]
    out = [first]
    for _ in range(n_tasks - 1):
        out.append(correlated_successor(out[-1], rho, generator, rng))
    return out


def draw_tasks(
    *,
    nx: int,
    ns: int,
    ny: int,
    rho_a: float,
    rho_b: float,
    n_tasks: int = 2,
    generator: str = "appendix",
    structure: str = "chain",
    seed: Seed = None,
) -> TaskSequence:
    """Draw ``n_tasks`` correlated tasks (Appendix A; ``structure`` as in the module
    docstring). Deterministic for a given ``seed``.

    The A matrices are drawn first (all tasks; the shared parent first), then the B matrices,
    from one stream; the chain draws exactly what it drew before structures existed.

    Examples
    --------
    >>> t = draw_tasks(nx=20, ns=2, ny=2, rho_a=1.0, rho_b=0.0, n_tasks=3,
    ...                structure="shared", seed=0)
    >>> bool((t.A[0] == t.A[2]).all()), t.structure
    (True, 'shared')
    """
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    ny = check_positive_int("ny", ny)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    check_generator(generator)
    check_structure(structure)
    rng = as_generator(seed)
    A = _draw_family((nx, ns), rho_a, n_tasks, generator, structure, rng)
    B = _draw_family((ny, ns), rho_b, n_tasks, generator, structure, rng)
    return TaskSequence(tuple(A), tuple(B), rho_a, rho_b, generator, structure)


def next_gate(
    previous: np.ndarray, alpha: float, rho_g: float, rng: np.random.Generator
) -> np.ndarray:
    """g_{mu+1} from g_mu (eq_def_rho_g): keep each element w.p. rho_g, else Bernoulli(alpha)."""
    fresh = rng.random(previous.shape) < alpha
    if rho_g > 0.0:
        keep = rng.random(previous.shape) < rho_g
        np.copyto(fresh, previous, where=keep)
    return fresh


def draw_gates(
    *,
    nx: int,
    alpha: float,
    n_tasks: int = 2,
    rho_g: float | Sequence[float] = 0.0,
    seed: Seed = None,
) -> tuple[np.ndarray, ...]:
    """Boolean gating vectors g_1..g_n (length Nx), Bernoulli(alpha), correlated by rho_g.

    ``rho_g`` is one number for every transition or a sequence of ``n_tasks - 1`` numbers.
    """
    nx = check_positive_int("nx", nx)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    alpha = check_open_unit_interval("alpha", alpha)
    rhos = [rho_g] * (n_tasks - 1) if np.isscalar(rho_g) else list(rho_g)
    if len(rhos) != n_tasks - 1:
        raise InputError(f"rho_g must be one number or {n_tasks - 1} numbers, got {len(rhos)}")
    rhos = [check_unit_interval("rho_g", r) for r in rhos]
    rng = as_generator(seed)
    gates = [rng.random(nx) < alpha]
    for r in rhos:
        gates.append(next_gate(gates[-1], alpha, r, rng))
    return tuple(gates)
