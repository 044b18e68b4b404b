"""The finite-size probe: transfer and retention measured against Nx at fixed Ns.

:func:`probe` measures one model at one parameter point for a list of Nx, ``seeds`` samples
each, with the exact solvers. Theory (leading order, the 1/Nx coefficient) is not here: the
reports join it (``tasksim probe``), so that ``solvers`` knows nothing of ``derivations``.

Paths
-----
``gram`` (vanilla, random and plasticity gating, Euclidean, Fisher: :data:`GRAM_MODELS`)
    batches of Gram matrices and the closed forms of :mod:`tasksim.solvers.two_task_batch`.
    Under the ``gaussian`` generator the Grams are Wishart-sampled
    (:func:`tasksim.solvers.gram.sample_gram_seeded`; plasticity gating draws only the
    blocks it needs, :func:`tasksim.solvers.gram.draw_plastic_seeded`): the cost per sample
    does not depend on Nx. Under ``appendix`` the task matrices are drawn (Appendix A) and
    their Gram formed: the cost is linear in Nx.
``samples`` (adaptive gating, soft-thresholding, diagonal Fisher)
    :func:`tasksim.solvers.api.simulate_samples`, one explicit draw per sample.

Seeds and determinism
---------------------
Sample j at input size Nx is drawn from ``SeedSequence(seed, spawn_key=(Nx, j))`` alone
(:func:`sample_seed`), and the samples are cut into chunks of :data:`CHUNK` (fixed, not
chosen by the number of workers). A chunk reports the count, mean and sum of squared
deviations of its samples (:class:`Moments`), and a point combines its chunks in chunk order.
So the numbers are identical for any executor and number of workers, a point measured in one
run is the same in a run with a different list of Nx, and completed chunks given back to
:func:`probe` (``done``) are not recomputed: an interrupted probe resumes and loses nothing.

Examples
--------
>>> spec = ProbeSpec("vanilla", rho_a=1.0, rho_b=1.0, ns=3)
>>> points = probe(spec, [30, 3000], seeds=4, seed=0)
>>> [(p.nx, round(p.transfer.mean, 9), p.transfer.n) for p in points]  # identical tasks
[(30, 1.0, 4), (3000, 1.0, 4)]
"""
from __future__ import annotations

import math
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from tasksim.errors import InputError

from .api import MODELS, resolve_params, simulate_samples
from .gram import sample_gram_seeded
from .resources import check_memory, human_bytes, machine_bytes
from .span import ExplicitBlocks
from .sweep import Estimate, Progress
from .tasks import draw_gates, draw_tasks
from .two_task_batch import (BLOCKS, GRAM_MODELS, gram_transfer_retention,
                             plasticity_transfer_retention_seeded,
                             vanilla_transfer_retention_seeded)
from .validation import check_positive_int

__all__ = ["CHUNK", "QUANTITIES", "ProbeSpec", "Moments", "ChunkResult", "PointResult",
           "sample_seed", "chunks", "chunk_samples", "run_chunk", "check_probe", "probe"]

CHUNK = 250
"""Samples per job: fixed, so that chunk boundaries (and numbers) never depend on the workers."""

QUANTITIES = ("transfer", "retention")


@dataclass(frozen=True)
class ProbeSpec:
    """One model at one parameter point; Nx varies. ``gamma`` or ``lam`` as in
    :func:`tasksim.solvers.api.resolve_params` (Euclidean: lam = (Nx/Ns)(1/gamma - 1) then
    scales with Nx; Fisher: lam = 1/gamma - 1)."""

    model: str
    rho_a: float
    rho_b: float
    alpha: Optional[float] = None
    gamma: Optional[float] = None
    lam: Optional[float] = None
    ns: int = 30
    ny: int = 10
    generator: str = "gaussian"

    def params(self, nx: int) -> dict[str, Any]:
        """The validated parameters at input size ``nx`` (ValueError naming a bad one)."""
        return resolve_params(self.model, rho_a=self.rho_a, rho_b=self.rho_b, alpha=self.alpha,
                              gamma=self.gamma, lam=self.lam, nx=nx, ns=self.ns, ny=self.ny,
                              seeds=2, generator=self.generator)

    @property
    def path(self) -> str:
        """``"gram"`` for the models of :data:`GRAM_MODELS`, else ``"samples"``."""
        return "gram" if self.model in GRAM_MODELS else "samples"

    def check(self, nx: int) -> dict[str, Any]:
        """:meth:`params`, and the probe's own requirement: tall task matrices (Nx > Ns);
        with plasticity gating at least 4 Ns plastic inputs on average (every sample then has
        Ns of them, but for a probability below 1e-15)."""
        params = self.params(nx)
        if nx <= self.ns:
            raise InputError(f"nx={nx} must exceed ns={self.ns}: the probe measures the "
                             "approach to the tall limit Nx >> Ns")
        if self.model == "plasticity-gating" and params["alpha"] * nx < 4 * self.ns:
            raise InputError(f"plasticity gating needs alpha * nx >= 4 ns (A^T D A invertible "
                             f"in every sample), got alpha * nx = {params['alpha'] * nx:g} at "
                             f"nx={nx}, ns={self.ns}")
        return params


@dataclass(frozen=True)
class Moments:
    """Count, mean and sum of squared deviations of a set of samples; :meth:`combine` merges
    two sets exactly as if pooled (Chan, Golub and LeVeque's update).

    Examples
    --------
    >>> a, b = Moments.from_samples([1.0, 2.0]), Moments.from_samples([3.0])
    >>> a.combine(b) == Moments.from_samples([1.0, 2.0, 3.0])
    True
    >>> e = a.combine(b).estimate()
    >>> e.mean, round(e.sem, 12), e.n
    (2.0, 0.57735026919, 3)
    """

    n: int
    mean: float
    m2: float

    @classmethod
    def from_samples(cls, values: Sequence[float] | np.ndarray) -> "Moments":
        x = np.asarray(values, dtype=float).ravel()
        if x.size == 0:
            raise ValueError("moments need at least one sample")
        mean = float(x.mean())
        return cls(int(x.size), mean, float(np.sum((x - mean) ** 2)))

    def combine(self, other: "Moments") -> "Moments":
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * other.n / n
        return Moments(n, mean, self.m2 + other.m2 + delta * delta * self.n * other.n / n)

    def estimate(self) -> Estimate:
        """Mean and standard error (ddof = 1; nan for one sample)."""
        sem = math.sqrt(self.m2 / (self.n - 1) / self.n) if self.n > 1 else math.nan
        return Estimate(self.mean, sem, self.n)


@dataclass(frozen=True)
class ChunkResult:
    """The moments of chunk ``index`` (samples CHUNK * index ...) at input size ``nx``."""

    nx: int
    index: int
    transfer: Moments
    retention: Moments


@dataclass(frozen=True)
class PointResult:
    """Transfer and retention at one Nx: mean, standard error and count."""

    nx: int
    transfer: Estimate
    retention: Estimate


def sample_seed(seed: int, nx: int, j: int) -> np.random.SeedSequence:
    """The seed of sample ``j`` at input size ``nx`` (module docstring).

    >>> sample_seed(0, 300, 7).spawn_key
    (300, 7)
    """
    return np.random.SeedSequence(seed, spawn_key=(int(nx), int(j)))


def chunks(seeds: int) -> list[tuple[int, int, int]]:
    """(index, first sample, end) of every chunk of ``seeds`` samples.

    >>> chunks(600)
    [(0, 0, 250), (1, 250, 500), (2, 500, 600)]
    """
    seeds = check_positive_int("seeds", seeds)
    return [(k, start, min(seeds, start + CHUNK)) for k, start in enumerate(range(0, seeds, CHUNK))]


def _explicit_gram(spec: ProbeSpec, nx: int, seed: np.random.SeedSequence) -> np.ndarray:
    """The Gram of the model's blocks for task matrices (and gates) drawn explicitly."""
    rng = np.random.default_rng(seed)
    tasks = draw_tasks(nx=nx, ns=spec.ns, ny=1, rho_a=spec.rho_a, rho_b=spec.rho_b,
                       generator=spec.generator, seed=rng)
    gated = any(name.startswith("D") for name in BLOCKS[spec.model])
    gates = draw_gates(nx=nx, alpha=spec.alpha, seed=rng) if gated else None
    return ExplicitBlocks(tasks.A, gates).span(BLOCKS[spec.model]).gram


def chunk_samples(spec: ProbeSpec, nx: int, seeds: Sequence[np.random.SeedSequence]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Transfer and retention of one sample per seed at input size ``nx`` (the measurement of
    :func:`run_chunk`, sample by sample).

    >>> seeds = np.random.SeedSequence(0).spawn(3)
    >>> t, r = chunk_samples(ProbeSpec("vanilla", rho_a=1.0, rho_b=1.0, ns=2), 50, seeds)
    >>> t.round(12).tolist(), r.round(12).tolist()
    ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    """
    params = spec.params(nx)
    if spec.path == "gram":
        if spec.generator == "gaussian" and spec.model == "vanilla":  # the Gram's factor
            return vanilla_transfer_retention_seeded(seeds, nx=nx, ns=spec.ns, rho_a=spec.rho_a,
                                                     rho_b=spec.rho_b)
        if spec.generator == "gaussian" and spec.model == "plasticity-gating":  # its blocks
            return plasticity_transfer_retention_seeded(seeds, nx=nx, ns=spec.ns,
                                                        rho_a=spec.rho_a, rho_b=spec.rho_b,
                                                        alpha=spec.alpha)
        if spec.generator == "gaussian":
            grams = sample_gram_seeded(seeds, nx=nx, ns=spec.ns, rho_a=spec.rho_a,
                                       names=BLOCKS[spec.model], alpha=spec.alpha)
        else:
            grams = np.stack([_explicit_gram(spec, nx, s) for s in seeds])
        return gram_transfer_retention(spec.model, grams, ns=spec.ns, rho_b=spec.rho_b,
                                       lam=params["lam"])
    out = simulate_samples(params, seeds)
    return out["transfer"], out["retention"]


def run_chunk(spec: ProbeSpec, nx: int, seed: int, index: int, start: int, stop: int
              ) -> ChunkResult:
    """Measure samples ``start .. stop - 1`` at input size ``nx`` (one job of :func:`probe`).

    >>> r = run_chunk(ProbeSpec("euclidean", rho_a=0.5, rho_b=0.5, gamma=1.0, ns=2), 200, 0,
    ...               0, 0, 3)
    >>> r.transfer.n, r.retention.n
    (3, 3)
    """
    seeds = [sample_seed(seed, nx, j) for j in range(start, stop)]
    transfer, retention = chunk_samples(spec, nx, seeds)
    return ChunkResult(nx, index, Moments.from_samples(transfer),
                       Moments.from_samples(retention))


def check_probe(spec: ProbeSpec, nxs: Sequence[int], *, seeds: int, seed: int = 0,
                workers: int = 1) -> list[int]:
    """Validate a probe before any work (ValueError, one line) and return the Nx as ints:
    a non-empty, strictly increasing list above Ns, at least 2 seeds, a known model with
    valid parameters at every Nx (:meth:`ProbeSpec.check`), and memory for ``workers`` jobs
    at the largest Nx (:func:`tasksim.solvers.resources.check_memory`).

    >>> check_probe(ProbeSpec("vanilla", rho_a=0.5, rho_b=0.5, ns=3), [30, 10], seeds=5)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: nx must be strictly increasing, got [30, 10]
    """
    if spec.model not in MODELS:
        raise InputError(f"model must be one of {', '.join(MODELS)}, got {spec.model!r}")
    nxs = [check_positive_int("nx", n) for n in nxs]
    if not nxs:
        raise InputError("nx must list at least one input size")
    if any(b <= a for a, b in zip(nxs, nxs[1:])):
        raise InputError(f"nx must be strictly increasing, got {nxs}")
    seeds = check_positive_int("seeds", seeds)
    if seeds < 2:
        raise InputError(f"seeds must be at least 2 (a standard error needs two samples), "
                         f"got {seeds}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    workers = check_positive_int("workers", workers)
    for nx in nxs:
        params = spec.check(nx)
    if spec.path == "samples" or spec.generator == "appendix":  # one explicit draw at a time
        check_memory(model=spec.model, nx=nxs[-1], ns=spec.ns, ny=params["ny"],
                     gram="explicit", method="exact", workers=workers,
                     wishart_possible=spec.model in GRAM_MODELS)
    else:
        need, limit = workers * _wishart_chunk_bytes(spec), machine_bytes()
        if limit is not None and need > limit:
            chunks_at_once = f"{workers} chunks" if workers > 1 else "a chunk"
            raise InputError(f"ns={spec.ns} needs about {human_bytes(need)} of memory for "
                             f"{chunks_at_once} of {CHUNK} Wishart samples, more than this "
                             f"machine's {human_bytes(limit)}; use a smaller ns or fewer workers")
    return nxs


def _wishart_chunk_bytes(spec: ProbeSpec) -> int:
    """An upper bound of the memory of one chunk of Wishart-sampled Grams: per sample, three
    arrays of the gate classes' (2 Ns)^2 Bartlett factors and products and three of the
    blocks' Gram (k Ns)^2, float64."""
    p, k = 2 * spec.ns, len(BLOCKS[spec.model])
    classes = 4 if any(name.startswith("D") for name in BLOCKS[spec.model]) else 1
    return CHUNK * 8 * (3 * classes * p * p + 3 * (k * spec.ns) ** 2)


def probe(
    spec: ProbeSpec,
    nxs: Sequence[int],
    *,
    seeds: int,
    seed: int = 0,
    executor: Optional[Executor] = None,
    workers: int = 1,
    progress: Optional[Progress] = None,
    done: Optional[Mapping[tuple[int, int], ChunkResult]] = None,
    on_chunk: Optional[Callable[[ChunkResult], None]] = None,
) -> list[PointResult]:
    """Transfer and retention of ``spec`` at every Nx of ``nxs`` (module docstring).

    ``nxs``: increasing input sizes above Ns; ``seeds`` >= 2 samples per size (a standard
    error needs two). ``executor`` (None: serial) runs the chunks; ``workers`` is how many
    run at once (for the memory check). ``progress(done, total)`` counts samples;
    ``on_chunk`` is called with every chunk finished here (to store it), ``done`` holds
    chunks finished before, keyed by (nx, index), which are not run again. Bad input raises
    ValueError before any work (:func:`check_probe`).
    """
    nxs = check_probe(spec, nxs, seeds=seeds, seed=seed, workers=workers)
    finished: dict[tuple[int, int], ChunkResult] = dict(done or {})
    jobs = [(nx, k, start, stop) for nx in nxs for k, start, stop in chunks(seeds)
            if (nx, k) not in finished]
    total = len(nxs) * seeds
    count = total - sum(stop - start for _, _, start, stop in jobs)

    def collect(result: ChunkResult, size: int) -> None:
        nonlocal count
        finished[(result.nx, result.index)] = result
        count += size
        if on_chunk is not None:
            on_chunk(result)
        if progress is not None:
            progress(count, total)

    if executor is None:
        for nx, k, start, stop in jobs:
            collect(run_chunk(spec, nx, int(seed), k, start, stop), stop - start)
    else:
        futures: dict[Future, int] = {
            executor.submit(run_chunk, spec, nx, int(seed), k, start, stop): stop - start
            for nx, k, start, stop in jobs}
        try:
            for future in as_completed(futures):
                collect(future.result(), futures[future])
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return [_point(nx, [finished[(nx, k)] for k, _, _ in chunks(seeds)]) for nx in nxs]


def _point(nx: int, parts: Sequence[ChunkResult]) -> PointResult:
    """Combine a point's chunks in chunk order (the same numbers however they were run)."""
    totals = {}
    for quantity in QUANTITIES:
        moments = getattr(parts[0], quantity)
        for part in parts[1:]:
            moments = moments.combine(getattr(part, quantity))
        totals[quantity] = moments.estimate()
    return PointResult(nx, totals["transfer"], totals["retention"])
