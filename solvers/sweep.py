"""Seeded parallel sweeps: a per-sample function over a parameter grid x seeds.

Randomness (DESIGN.md, "Numbers"): the sample at grid point ``i``, seed index ``j`` gets the
``numpy.random.SeedSequence`` with the root's entropy and spawn key ``root.spawn_key + (i, j)``
(:func:`sample_seed`), i.e. ``root.spawn(n_points)[i].spawn(n_seeds)[j]``. It is fixed before
any work is distributed, so the numbers do not depend on the executor, the number of workers
or the chunking, and adding seeds or grid points does not change the samples already there.

Work goes to any ``concurrent.futures.Executor`` (a ``ProcessPoolExecutor`` by default, a
``ThreadPoolExecutor``, or a dask.distributed client's ``get_executor()`` to go past one
machine); ``executor=None`` runs serially in the calling thread. With processes the sample
function must be picklable (defined at module level, or a ``functools.partial`` of one).

A sample function is either scalar, ``fn(params, seed) -> {name: float}`` for one sample,
or vectorized (``vectorized=True``), ``fn(params, seeds) -> {name: array of len(seeds)}``
for several samples of one grid point at once; either way sample ``j`` must depend on its own
seed ``seeds[j]`` only.

Examples
--------
>>> import numpy as np
>>> def draw(params, seed):
...     return {"x": params["scale"] * np.random.default_rng(seed).standard_normal()}
>>> result = sweep(draw, grid(scale=[1.0, 2.0]), seeds=4, seed=0, executor=None)
>>> result.samples.shape, result.outputs
((2, 4, 1), ('x',))
>>> again = sweep(draw, grid(scale=[1.0, 2.0]), seeds=4, seed=0, executor=None)
>>> bool((again.samples == result.samples).all())
True
>>> result.estimate(0, "x").n
4
"""
from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from .validation import check_positive_int

__all__ = ["Estimate", "SweepResult", "Progress", "grid", "sample_seed", "sweep"]

Progress = Callable[[int, int], None]
"""A progress callback: called as ``progress(done, total)`` (samples) in the calling thread."""

SampleFunction = Callable[[Mapping[str, Any], Any], Mapping[str, Any]]


@dataclass(frozen=True)
class Estimate:
    """A mean over samples and its standard error (``sem`` is nan when ``n`` = 1: undefined).

    Examples
    --------
    >>> Estimate.from_samples([1.0, 2.0, 3.0])
    Estimate(mean=2.0, sem=0.5773502691896258, n=3)
    """

    mean: float
    sem: float
    n: int

    @classmethod
    def from_samples(cls, values: Sequence[float] | np.ndarray) -> "Estimate":
        """Sample mean and standard error of the mean (ddof = 1)."""
        x = np.asarray(values, dtype=float).ravel()
        if x.size == 0:
            raise ValueError("an estimate needs at least one sample")
        sem = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
        return cls(float(x.mean()), sem, int(x.size))


@dataclass(frozen=True)
class SweepResult:
    """Samples of a sweep: ``samples[i, j, k]`` is output ``outputs[k]`` at point i, seed j.

    Examples
    --------
    >>> r = SweepResult(({"a": 1},), ("y",), np.array([[[1.0], [3.0]]]))
    >>> r.mean.tolist(), r.sem.tolist(), r.estimate(0, "y").mean
    ([[2.0]], [[1.0]], 2.0)
    """

    points: tuple[dict[str, Any], ...]
    outputs: tuple[str, ...]
    samples: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        """Mean over seeds, shape (n_points, n_outputs)."""
        return self.samples.mean(axis=1)

    @property
    def sem(self) -> np.ndarray:
        """Standard error of the mean over seeds (nan with one seed), (n_points, n_outputs)."""
        n = self.samples.shape[1]
        if n < 2:
            return np.full(self.samples.shape[::2], np.nan)
        return self.samples.std(axis=1, ddof=1) / math.sqrt(n)

    def column(self, output: str) -> np.ndarray:
        """All samples of one output, shape (n_points, n_seeds)."""
        if output not in self.outputs:
            raise KeyError(f"output {output!r} not among {self.outputs}")
        return self.samples[:, :, self.outputs.index(output)]

    def estimate(self, point: int, output: str) -> Estimate:
        """Mean and standard error of ``output`` at grid point ``point``."""
        return Estimate.from_samples(self.column(output)[point])


def grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of named axes, last axis fastest.

    Examples
    --------
    >>> grid(rho_a=[0, 1], rho_b=[0.5])
    [{'rho_a': 0, 'rho_b': 0.5}, {'rho_a': 1, 'rho_b': 0.5}]
    """
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*axes.values())]


def sample_seed(root: int | np.random.SeedSequence | None, point: int, seed: int) -> np.random.SeedSequence:
    """The seed of sample (``point``, ``seed``): ``root.spawn(...)[point].spawn(...)[seed]``.

    Examples
    --------
    >>> root = np.random.SeedSequence(3)
    >>> sample_seed(root, 2, 5).generate_state(2).tolist() == \\
    ...     root.spawn(3)[2].spawn(6)[5].generate_state(2).tolist()
    True
    """
    if not isinstance(root, np.random.SeedSequence):
        root = np.random.SeedSequence(root)
    return np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (point, seed),
                                  pool_size=root.pool_size)


def _run_chunk(
    fn: SampleFunction, params: Mapping[str, Any], seeds: list[np.random.SeedSequence],
    vectorized: bool,
) -> list[dict[str, float]]:
    """Run one chunk (samples of one grid point); returns one dict of floats per sample."""
    if vectorized:
        out = fn(params, seeds)
        columns = {k: np.asarray(v, dtype=float).ravel() for k, v in dict(out).items()}
        for k, v in columns.items():
            if v.shape != (len(seeds),):
                raise ValueError(f"vectorized output {k!r} has {v.size} values for {len(seeds)} seeds")
        return [{k: float(v[j]) for k, v in columns.items()} for j in range(len(seeds))]
    return [{k: float(v) for k, v in dict(fn(params, s)).items()} for s in seeds]


def sweep(
    fn: SampleFunction,
    points: Sequence[Mapping[str, Any]],
    *,
    seeds: int,
    seed: int | np.random.SeedSequence | None = 0,
    executor: Union[Executor, None, str] = "process",
    workers: Optional[int] = None,
    chunk_size: Optional[int] = None,
    vectorized: bool = False,
    progress: Optional[Progress] = None,
) -> SweepResult:
    """Evaluate ``fn`` at every grid point for ``seeds`` seeds each (see the module docstring).

    Parameters
    ----------
    fn : the sample function (scalar or, with ``vectorized=True``, vectorized over seeds).
    points : the grid, a sequence of parameter mappings (see :func:`grid`).
    seeds : number of samples per grid point (a positive integer).
    seed : root seed (an int, a SeedSequence or None for fresh entropy).
    executor : an Executor, ``None`` (serial), or ``"process"`` (the default: a
        ``ProcessPoolExecutor`` with ``workers`` processes, created and shut down here).
    workers : processes for the default executor (default: the number of CPUs); also sets
        the default chunking.
    chunk_size : samples per submitted job (within one grid point); default: about four
        jobs per worker. The numbers do not depend on it.
    progress : ``progress(done, total)``, called after each finished job.

    Examples
    --------
    >>> def one(params, seed):
    ...     return {"y": params["a"]}
    >>> sweep(one, [{"a": 1.0}, {"a": 2.0}], seeds=3, executor=None).mean.ravel().tolist()
    [1.0, 2.0]
    """
    seeds = check_positive_int("seeds", seeds)
    points = tuple(dict(p) for p in points)
    if not points:
        raise ValueError("points must contain at least one grid point")
    if isinstance(executor, str) and executor != "process":
        raise ValueError(f"executor must be an Executor, None or 'process', got {executor!r}")
    if workers is not None:
        workers = check_positive_int("workers", workers)
    n_workers = workers or (os.cpu_count() or 1)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    total = len(points) * seeds
    if chunk_size is None:
        chunk_size = max(1, min(seeds, math.ceil(total / (4 * n_workers))))
    chunk_size = check_positive_int("chunk_size", chunk_size)

    jobs = []  # (point index, first seed index, seed sequences)
    for i, params in enumerate(points):
        for start in range(0, seeds, chunk_size):
            stop = min(seeds, start + chunk_size)
            jobs.append((i, start, [sample_seed(root, i, j) for j in range(start, stop)]))

    results: dict[tuple[int, int], dict[str, float]] = {}
    done = 0

    def collect(i: int, start: int, rows: list[dict[str, float]]) -> None:
        nonlocal done
        for offset, row in enumerate(rows):
            results[(i, start + offset)] = row
        done += len(rows)
        if progress is not None:
            progress(done, total)

    if executor is None:
        for i, start, chunk in jobs:
            collect(i, start, _run_chunk(fn, points[i], chunk, vectorized))
    else:
        owned = executor == "process"
        pool: Executor = ProcessPoolExecutor(max_workers=n_workers) if owned else executor  # type: ignore[assignment]
        try:
            futures: dict[Future, tuple[int, int]] = {
                pool.submit(_run_chunk, fn, points[i], chunk, vectorized): (i, start)
                for i, start, chunk in jobs
            }
            for future in as_completed(futures):
                i, start = futures[future]
                collect(i, start, future.result())
        finally:
            if owned:
                pool.shutdown(wait=True, cancel_futures=True)

    outputs = tuple(results[(0, 0)])
    samples = np.empty((len(points), seeds, len(outputs)))
    for (i, j), row in results.items():
        if tuple(row) != outputs:
            raise ValueError(f"sample ({i}, {j}) returned outputs {tuple(row)}, expected {outputs}")
        samples[i, j] = [row[k] for k in outputs]
    return SweepResult(points, outputs, samples)
