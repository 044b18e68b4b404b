"""Grid sweeps as labelled arrays: :func:`sweep` returns an ``xarray.Dataset``.

Every list argument becomes a dimension; the measured mean and standard error over seeds
(``transfer``, ``transfer_sem``, ``retention``, ``retention_sem``; for sequences of K > 2
tasks also the error matrix ``errors`` over ("weight", "task") and the metrics
``average_error``, ``backward_transfer``, ``forward_transfer``, each with its ``_sem``) sit
beside the derived theory (``transfer_leading``, ``retention_leading``, ``transfer_nlo``,
``retention_nlo``: :func:`tasksim.theory`, for the models with a derived expression), and the
provenance in ``attrs``. Every parameter is a coordinate (a scalar one when it was not a list),
so ``tasksim.theory(...).numeric()(ds)`` finds its arguments in the Dataset.

The numbers come from :func:`tasksim.solvers.grid_sweep.grid_sweep` (its docstring: the batched
path, and why every point equals :func:`tasksim.simulate` at that point for the same seed).

Examples
--------
>>> import numpy as np
>>> ds = sweep("vanilla", rho_a=[0.0, 0.5, 1.0], rho_b=[0.0, 1.0], nx=3000, ns=30,
...            generator="gaussian", seeds=4)
>>> dict(ds.sizes), float(ds.ns)
({'rho_a': 3, 'rho_b': 2}, 30.0)
>>> bool(abs(ds.transfer - ds.transfer_nlo).max() < 0.01)
True
"""
from __future__ import annotations

import json
from concurrent.futures import Executor
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import xarray as xr

from tasksim.solvers.grid_sweep import PARAMETERS, GridSamples, grid_sweep
from tasksim.solvers.sequence_metrics import METRICS
from tasksim.errors import InputError

__all__ = ["sweep", "to_dataset", "LONG_NAMES"]

LONG_NAMES: dict[str, str] = {
    "rho_a": "feature similarity rho_a",
    "rho_b": "readout similarity rho_b",
    "alpha": "gate density alpha",
    "gamma": "regularizer level gamma",
    "lam": "regularizer amplitude lambda",
    "nx": "input size N_x",
    "ns": "latent size N_s",
    "ny": "output size N_y",
    "seeds": "samples per point",
    "transfer": "transfer eps_2[W_0] - eps_2[W_1]",
    "retention": "retention eps_1[W_0] - eps_1[W_2]",
    "errors": "error eps_task[W_weight]",
    "average_error": "average error after the last task",
    "backward_transfer": "backward transfer",
    "forward_transfer": "forward transfer",
}


def _text(value: Any) -> str:
    """A short, exact text of an argument (a list for an array: numpy's repr is slow)."""
    if isinstance(value, (np.ndarray, range, tuple)):
        value = np.asarray(value).tolist()
    return repr(value)


def _seeds(seeds: Union[int, Sequence[int]]) -> tuple[list[int], bool]:
    if isinstance(seeds, (list, tuple, np.ndarray, range)):
        values = [int(s) if isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                  and s > 0 else s for s in list(seeds)]
        if not values or any(not isinstance(s, int) or s < 1 for s in values):
            raise InputError(f"seeds must be a positive integer or a list of them, got {seeds!r}")
        return values, True
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise InputError(f"seeds must be a positive integer or a list of them, got {seeds!r}")
    return [int(seeds)], False


def _estimate(samples: np.ndarray, n: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error (ddof 1; NaN for one sample) of the first n samples."""
    first = np.take(samples, np.arange(n), axis=axis)
    mean = first.mean(axis=axis)
    sem = (first.std(axis=axis, ddof=1) / np.sqrt(n) if n > 1
           else np.full(mean.shape, np.nan))
    return mean, sem


def _coordinate(values: np.ndarray, dims: tuple[str, ...]) -> Optional[tuple]:
    """A resolved parameter over the grid as a coordinate on the dimensions it varies along
    (scalar when constant); None when it is None everywhere."""
    flat = list(values.flat)
    if all(v is None for v in flat):
        return None
    varying = tuple(i for i in range(values.ndim)
                    if any(np.take(values, [k], axis=i).tolist()
                           != np.take(values, [0], axis=i).tolist()
                           for k in range(values.shape[i])))
    index = tuple(slice(None) if i in varying else 0 for i in range(values.ndim))
    reduced = np.array(np.asarray(values[index], dtype=object).tolist())
    return tuple(dims[i] for i in varying), reduced


def _theory_variables(ds: xr.Dataset, model: str, generators: Sequence[str]) -> dict:
    from tasksim.expressions import theory
    from tasksim.derivations.finite_size import MODELS

    if model not in MODELS:
        return {}
    out = {}
    for quantity in ("transfer", "retention"):
        for order in ("leading", "nlo"):
            combined = None
            for generator in generators:
                t = theory(model, quantity, order, generator)
                value = xr.DataArray(t.numeric()(ds.variables)).astype(float)
                if len(generators) > 1:
                    value = value.where(xr.DataArray(ds.variables["generator"]) == generator)
                combined = value if combined is None else combined.fillna(value)
            combined.attrs = {"long_name": f"{quantity}, theory ({order})",
                              "source": theory(model, quantity, order, generators[0]).source}
            out[f"{quantity}_{order}"] = combined
    return out


def to_dataset(grid: GridSamples, seeds: Sequence[int], seeds_is_dim: bool,
               provenance: Optional[dict[str, Any]] = None) -> xr.Dataset:
    """Label the samples of :func:`tasksim.solvers.grid_sweep.grid_sweep` (module docstring);
    ``seeds`` the sample counts to average (a ``seeds`` dimension when ``seeds_is_dim``)."""
    dims = grid.dims
    sample_axis = len(dims)
    data: dict[str, Any] = {}
    names = list(grid.samples)
    for name in names:
        estimates = [_estimate(grid.samples[name], n, sample_axis) for n in seeds]
        for suffix, k in (("", 0), ("_sem", 1)):
            stacked = np.stack([e[k] for e in estimates], axis=-1)
            var_dims = dims + ("seeds",)
            if not seeds_is_dim:
                stacked, var_dims = stacked[..., 0], dims
            long = LONG_NAMES.get(name, name) + (", standard error" if suffix else ", mean")
            data[name + suffix] = xr.Variable(var_dims, stacked, {"long_name": long})
    if grid.errors is not None:
        estimates = [_estimate(grid.errors, n, sample_axis) for n in seeds]
        for suffix, k in (("", 0), ("_sem", 1)):
            stacked = np.stack([e[k] for e in estimates], axis=sample_axis)
            var_dims = dims + ("seeds", "weight", "task")
            if not seeds_is_dim:
                stacked, var_dims = np.take(stacked, 0, axis=sample_axis), dims + ("weight", "task")
            data["errors" + suffix] = xr.Variable(
                var_dims, stacked,
                {"long_name": "error eps_task[W_weight]" + (", standard error" if suffix else
                                                             ", mean")})
    coords: dict[str, Any] = {d: (d, list(grid.coords[d]), {"long_name": LONG_NAMES.get(d, d)})
                              for d in dims}
    if seeds_is_dim:
        coords["seeds"] = ("seeds", list(seeds), {"long_name": LONG_NAMES["seeds"]})
    if grid.errors is not None:
        coords["weight"] = ("weight", np.arange(grid.errors.shape[-2]))
        coords["task"] = ("task", np.arange(1, grid.errors.shape[-1] + 1))
    for name in PARAMETERS:
        if name in dims:
            continue
        values = np.empty(grid.points.shape, dtype=object)
        for index in np.ndindex(*grid.points.shape):
            values[index] = grid.points[index][name]
        found = _coordinate(values, dims)
        if found is not None:
            coords[name] = found + ({"long_name": LONG_NAMES.get(name, name)},)
    if not seeds_is_dim:
        coords["seeds"] = ((), seeds[0], {"long_name": LONG_NAMES["seeds"]})
    paths = sorted(set(grid.paths.flat))
    attrs = {"model": grid.model, "seed": grid.seed, "path": ", ".join(paths),
             "statistics": "mean over seeds and its standard error (ddof 1); sample j of every "
                           "point is tasksim.simulate's sample j for the same seed"}
    if provenance is not None:
        attrs["provenance"] = json.dumps(provenance, sort_keys=True)
        attrs["tasksim_version"] = str(provenance.get("tasksim", ""))
    labels = xr.Dataset(coords=coords)  # the theory reads its arguments from the coordinates
    generators = list(np.atleast_1d(labels["generator"].values).tolist())
    generators = sorted(set(generators), key=generators.index)
    order = list(data["transfer"].dims)
    for name, value in _theory_variables(labels, grid.model, generators).items():
        value = value.transpose(*[d for d in order if d in value.dims])
        data[name] = xr.Variable(value.dims, value.values, value.attrs)
    return xr.Dataset(data, coords=coords, attrs=attrs)  # built once: one alignment


def sweep(
    model: str,
    *,
    rho_a: Any,
    rho_b: Any,
    alpha: Any = None,
    gamma: Any = None,
    lam: Any = None,
    nx: Any = 3000,
    ns: Any = 30,
    ny: Any = 10,
    seeds: Union[int, Sequence[int]] = 10,
    seed: int = 0,
    generator: Any = "appendix",
    method: Any = "exact",
    gram: Any = "auto",
    tasks: Any = 2,
    structure: Any = "chain",
    penalty: Any = None,
    workers: Optional[int] = None,
    dask: Optional[str] = None,
    executor: Optional[Executor] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> xr.Dataset:
    """Transfer and retention of ``model`` over the grid of the list arguments, as an
    ``xarray.Dataset`` with the theory beside them (module docstring).

    The arguments are those of :func:`tasksim.simulate`, each a value or a list (``seeds`` a
    list: a ``seeds`` dimension, the means over the first n samples). The defaults are
    ``simulate``'s: the paper's sizes and its appendix generator; ``generator="gaussian"``
    takes the batched Wishart path for the Gram models. ``workers`` (local processes) or
    ``dask`` (a scheduler address) or ``executor`` spread the work; the numbers do not
    depend on them. ``progress(done, total)`` counts samples.

    Raises ValueError (one line, naming the parameter) for bad input, before any work.
    """
    from tasksim.solvers.executors import open_executor

    counts, seeds_is_dim = _seeds(seeds)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InputError(f"workers must be a positive integer, got {workers!r}")
    parameters = dict(rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma, lam=lam, nx=nx,
                      ns=ns, ny=ny, generator=generator, method=method, gram=gram, tasks=tasks,
                      structure=structure, penalty=penalty)
    command = f"tasksim.sweep({model!r}, " + ", ".join(
        f"{k}={_text(v)}" for k, v in {**parameters, "seeds": seeds, "seed": seed}.items()
        if v is not None) + ")"
    size = workers or 1
    if executor is not None:
        grid = grid_sweep(model, seeds=max(counts), seed=seed, executor=executor,
                          workers=size, progress=progress, **parameters)
    else:
        with open_executor(workers=size, dask=dask) as pool:
            grid = grid_sweep(model, seeds=max(counts), seed=seed, executor=pool,
                              workers=size, progress=progress, **parameters)
    from tasksim.reports.provenance import provenance

    return to_dataset(grid, counts, seeds_is_dim, provenance(seed=seed, command=command))
