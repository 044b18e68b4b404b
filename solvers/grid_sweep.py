"""Grid sweeps of one model as plain arrays: every list argument is an axis of the grid.

:func:`grid_sweep` measures transfer and retention (eq_def_delta_epsilon_TF_RT), and for
sequences of K > 2 tasks the error matrix, at every point of the Cartesian product of its list
arguments, ``seeds`` samples each, and returns them as arrays indexed (axis 1, ..., axis n,
sample). Labelling them (an ``xarray.Dataset``) and putting the theory beside them is the top
level's job (:func:`tasksim.sweep`); this module knows only numpy.

Seeds
-----
Sample j of *every* grid point is drawn from ``sample_seed(seed, 0, j)``, the seed
:func:`tasksim.solvers.api.simulate` gives its sample j. So a grid point holds the numbers
``simulate`` returns at that point for the same ``seed`` (exactly on the per-sample path, to
float rounding on the batched one), for any ``workers`` or executor, and the points of a grid
share their random numbers (common random numbers: the differences between neighbouring
points are less noisy than the points themselves; each point's mean and standard error are
those of independent samples).

Paths
-----
``batched``
    two tasks, exact fixed points, the Wishart-sampled Gram (``gaussian`` generator;
    vanilla, random and plasticity gating, Euclidean, Fisher: :data:`BATCHED_MODELS`). Per
    sample the Bartlett factors of the gate classes are drawn once, in the order
    :func:`tasksim.solvers.gram.sample_gram` draws them; the Grams of every rho_a come from
    them by the covariance factor's row blocks and one stacked product, the maps M, N, H of every lambda by stacked solves
    (:func:`tasksim.solvers.two_task_batch.two_task_maps`) and the errors of every rho_b from
    those maps (:func:`tasksim.solvers.two_task_batch.transfer_retention_from_maps`).
``samples``
    everything else (the ``appendix`` generator, GD, K > 2 tasks, adaptive gating,
    soft-thresholding, diagonal Fisher): :func:`tasksim.solvers.api.simulate_samples` at each
    point. A grid with any K > 2 runs every point on this path, so that every point has its
    error matrix.

Examples
--------
>>> g = grid_sweep("vanilla", rho_a=[0.0, 1.0], rho_b=[0.0, 0.5, 1.0], nx=2000, ns=5,
...                generator="gaussian", seeds=3)
>>> g.dims, g.samples["transfer"].shape, g.paths[0, 0]
(('rho_a', 'rho_b'), (2, 3, 3), 'batched')
>>> np.round(g.samples["transfer"][1], 9).tolist()[2]       # identical tasks: full transfer
[1.0, 1.0, 1.0]
"""
from __future__ import annotations

import math
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from .api import error_key, resolve_params, simulate_samples
from .gram import GramPlan, bartlett_factors
from .linear_models import required_blocks
from .resources import check_memory
from .sequence_metrics import METRICS, sequence_metrics
from .sweep import sample_seed
from .two_task_batch import BLOCKS, GRAM_MODELS, transfer_retention_from_maps, two_task_maps
from .validation import check_positive_int
from tasksim.errors import InputError

__all__ = ["PARAMETERS", "BATCHED_MODELS", "CHUNK", "GridSamples", "grid_axes", "grid_sweep"]

PARAMETERS: tuple[str, ...] = ("rho_a", "rho_b", "alpha", "gamma", "lam", "nx", "ns", "ny",
                               "generator", "method", "gram", "tasks", "structure", "penalty")
"""The arguments of :func:`tasksim.solvers.api.simulate` that may be lists (grid axes), in the
order the axes take."""
BATCHED_MODELS: tuple[str, ...] = GRAM_MODELS
CHUNK = 250
"""At most this many samples per job (bounds the memory of the stacked Bartlett factors)."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class GridSamples:
    """Samples of a grid: ``samples[name][i_1, ..., i_n, j]`` is output ``name`` (transfer,
    retention, and for sequences the metrics of :data:`tasksim.solvers.sequence_metrics.METRICS`)
    at grid point (i_1, ..., i_n) of the axes ``dims``, sample j. ``errors`` (sequences only)
    has two more axes, weight i = 0..K and task j = 1..K (eps_j[W_i] at ``[..., s, i, j - 1]``,
    NaN beyond a point's own K). ``points`` holds each point's resolved parameters
    (:func:`tasksim.solvers.api.resolve_params`) and ``paths`` the path that computed it."""

    model: str
    dims: tuple[str, ...]
    coords: dict[str, tuple]
    fixed: dict[str, Any]
    points: np.ndarray
    paths: np.ndarray
    samples: dict[str, np.ndarray]
    errors: Optional[np.ndarray]
    seeds: int
    seed: int

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(self.coords[d]) for d in self.dims)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray, range))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def grid_axes(parameters: Mapping[str, Any]) -> tuple[dict[str, tuple], dict[str, Any]]:
    """Split arguments into grid axes (the lists, in :data:`PARAMETERS` order) and fixed
    values; ValueError naming the parameter for an unknown name, an empty or nested list.

    Examples
    --------
    >>> grid_axes({"rho_b": 0.5, "rho_a": np.array([0.0, 1.0])})
    ({'rho_a': (0.0, 1.0)}, {'rho_b': 0.5})
    """
    unknown = sorted(set(parameters) - set(PARAMETERS))
    if unknown:
        raise InputError(f"{unknown[0]} is not a parameter of a sweep (parameters: "
                         f"{', '.join(PARAMETERS)})")
    axes, fixed = {}, {}
    for name in PARAMETERS:
        if name not in parameters:
            continue
        value = parameters[name]
        if _is_list(value):
            values = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
            if values.ndim != 1:
                raise InputError(f"{name} must be a value or a flat list of values, got an "
                                 f"array of shape {values.shape}")
            if values.size == 0:
                raise InputError(f"{name} is an empty list: give at least one value")
            axes[name] = tuple(_plain(v) for v in values.tolist())
        elif value is not None:
            fixed[name] = _plain(value)
    return axes, fixed


def _open(executor: Optional[Executor], jobs: list, progress: Optional[Progress],
          total: int) -> list:
    """Run ``jobs`` ((function, arguments, samples) triples) serially or on ``executor``;
    the results in job order."""
    results: list = [None] * len(jobs)
    done = 0
    if executor is None:
        for k, (fn, args, size) in enumerate(jobs):
            results[k] = fn(*args)
            done += size
            if progress is not None:
                progress(done, total)
        return results
    futures = {executor.submit(fn, *args): (k, size) for k, (fn, args, size) in enumerate(jobs)}
    for future in as_completed(futures):
        k, size = futures[future]
        results[k] = future.result()
        done += size
        if progress is not None:
            progress(done, total)
    return results


def _batched_job(model: str, nx: int, ns: int, alpha: Optional[float], structure: str,
                 penalty: Optional[str], rho_as: Sequence[float], lams: Sequence[Any],
                 rho_bs: Sequence[float], seed: int, start: int, stop: int) -> np.ndarray:
    """Transfer and retention of samples ``start .. stop - 1`` at every (rho_a, lam, rho_b):
    shape (2, len(rho_as), len(lams), len(rho_bs), stop - start) (module docstring)."""
    names = required_blocks(model, 2, penalty=penalty)
    draw = GramPlan(names, nx, ns, 0.0, alpha, 0.0, 2, structure)
    p = 2 * ns
    R = np.empty((stop - start, len(draw.classes), p, p))
    for j in range(start, stop):  # as sample_gram draws them from simulate's generator
        rng = np.random.default_rng(sample_seed(seed, 0, j))
        counts = (rng.multinomial(nx, draw.probabilities, size=1) if draw.gated
                  else np.full((1, 1), nx))
        R[j - start] = bartlett_factors(counts, p, rng)[0]
    Rt = np.ascontiguousarray(np.swapaxes(R, -1, -2))
    order = np.concatenate([np.arange(names.index(b) * ns, (names.index(b) + 1) * ns)
                            for b in BLOCKS[model]])
    out = np.empty((2, len(rho_as), len(lams), len(rho_bs), stop - start))
    for a, rho_a in enumerate(rho_as):
        plan = GramPlan(names, nx, ns, rho_a, alpha, 0.0, 2, structure)
        Mt = plan.times_factor(Rt)  # (R factor^T)^T
        grams = plan.assemble(Mt @ np.swapaxes(Mt, -1, -2))[:, order][:, :, order]
        for m, lam in enumerate(lams):
            maps = two_task_maps(model, grams, ns=ns, lam=lam)
            for b, rho_b in enumerate(rho_bs):
                out[0, a, m, b], out[1, a, m, b] = transfer_retention_from_maps(*maps, rho_b)
    return out


def _samples_job(params: Mapping[str, Any], seed: int, start: int, stop: int
                 ) -> dict[str, np.ndarray]:
    return simulate_samples(params, [sample_seed(seed, 0, j) for j in range(start, stop)])


def _batched(p: Mapping[str, Any], sequences: bool) -> bool:
    return (not sequences and p["gram"] == "wishart" and p["method"] == "exact"
            and p["tasks"] == 2 and p["model"] in BATCHED_MODELS)


def _chunks(seeds: int, parallel: int) -> list[tuple[int, int]]:
    size = min(CHUNK, seeds if parallel <= 1 else max(1, math.ceil(seeds / (2 * parallel))))
    return [(start, min(seeds, start + size)) for start in range(0, seeds, size)]


def grid_sweep(
    model: str,
    *,
    seeds: int = 10,
    seed: int = 0,
    executor: Optional[Executor] = None,
    workers: int = 1,
    progress: Optional[Progress] = None,
    **parameters: Any,
) -> GridSamples:
    """``seeds`` samples of ``model`` at every point of the grid of the list arguments
    (module docstring). ``parameters`` are those of :func:`tasksim.solvers.api.simulate`
    (:data:`PARAMETERS`), each a value or a list; ``rho_a`` and ``rho_b`` are required.
    ``executor`` (None: serial) runs the jobs, ``workers`` (its size) sets how finely they are
    cut; the numbers depend on neither. ``progress(done, total)`` counts samples.

    Raises ValueError naming the parameter for bad input (every point is checked before any
    work starts).

    Examples
    --------
    >>> g = grid_sweep("euclidean", rho_a=0.5, rho_b=0.5, gamma=[0.5, 1.0], nx=400, ns=4,
    ...                generator="gaussian", seeds=2)
    >>> g.dims, [p["lam"] for p in g.points]
    (('gamma',), [100.0, 0.0])
    """
    model = _plain(model)
    seeds = check_positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    workers = check_positive_int("workers", workers)
    for name in ("rho_a", "rho_b"):
        if parameters.get(name) is None:
            raise InputError(f"{name} is required: a number in [0, 1] or a list of them")
    axes, fixed = grid_axes(parameters)
    dims = tuple(axes)
    shape = tuple(len(axes[d]) for d in dims)
    points = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        values = {**fixed, **{d: axes[d][i] for d, i in zip(dims, index)}}
        points[index] = resolve_params(model, seeds=seeds, seed=int(seed), **values)
    sequences = any(p["tasks"] > 2 for p in points.flat)
    paths = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        p = points[index]
        paths[index] = "batched" if _batched(p, sequences) else "samples"
        if paths[index] == "samples":
            check_memory(model=p["model"], nx=p["nx"], ns=p["ns"], ny=p["ny"], gram=p["gram"],
                         method=p["method"], n_tasks=p["tasks"], workers=workers,
                         wishart_possible=p["gram"] == "wishart")

    pieces = _chunks(seeds, workers if executor is not None else 1)
    jobs: list = []
    groups: dict[tuple, dict[str, list]] = {}  # batched: one draw per (nx, ns, alpha, ...)
    for index in np.ndindex(*shape):
        p = points[index]
        if paths[index] == "batched":
            key = (p["nx"], p["ns"], p["alpha"], p["structure"], p["penalty"])
            group = groups.setdefault(key, {"rho_a": [], "lam": [], "rho_b": []})
            for name in group:
                if p[name] not in group[name]:
                    group[name].append(p[name])
        else:
            jobs += [(_samples_job, (p, int(seed), start, stop), stop - start)
                     for start, stop in pieces]
    first_batched = len(jobs)
    for key, group in groups.items():
        jobs += [(_batched_job, (model, *key, tuple(group["rho_a"]), tuple(group["lam"]),
                                 tuple(group["rho_b"]), int(seed), start, stop), stop - start)
                 for start, stop in pieces]
    results = _open(executor, jobs, progress, int(np.prod(shape)) * seeds)

    names = ("transfer", "retention") + (METRICS if sequences else ())
    samples = {name: np.full(shape + (seeds,), np.nan) for name in names}
    k_max = max(p["tasks"] for p in points.flat)
    errors = np.full(shape + (seeds, k_max + 1, k_max), np.nan) if sequences else None
    batched_results = {key: np.concatenate(results[first_batched + g * len(pieces):
                                                   first_batched + (g + 1) * len(pieces)],
                                           axis=-1)
                       for g, key in enumerate(groups)}
    k = 0
    for index in np.ndindex(*shape):
        p = points[index]
        if paths[index] == "batched":
            key = (p["nx"], p["ns"], p["alpha"], p["structure"], p["penalty"])
            group, values = groups[key], batched_results[key]
            at = (group["rho_a"].index(p["rho_a"]), group["lam"].index(p["lam"]),
                  group["rho_b"].index(p["rho_b"]))
            samples["transfer"][index] = values[(0,) + at]
            samples["retention"][index] = values[(1,) + at]
            continue
        outputs = {name: np.concatenate([results[k + c][name] for c in range(len(pieces))])
                   for name in results[k]}
        k += len(pieces)
        samples["transfer"][index] = outputs["transfer"]
        samples["retention"][index] = outputs["retention"]
        if sequences:
            n = p["tasks"]
            for i in range(n + 1):
                for j in range(1, n + 1):
                    errors[index + (slice(None), i, j - 1)] = outputs[error_key(i, j)]
            per_sample = [sequence_metrics(errors[index + (s, slice(0, n + 1), slice(0, n))].T)
                          for s in range(seeds)]
            for name in METRICS:
                samples[name][index] = [m[name] for m in per_sample]
    return GridSamples(model, dims, axes, fixed, points, paths, samples, errors, seeds, int(seed))
