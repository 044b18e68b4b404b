"""The Sec. 7 grids as stored data: run a grid (:mod:`tasksim.solvers.pmnist.grids`) with
resume, and read it back.

One netCDF file per figure, ``results/<name>.nc`` (netCDF3 through scipy: no extra library),
an ``xarray.Dataset`` with dimensions ``point``, ``seed``, ``epoch`` (0 .. epochs +
task2_epochs) and ``task`` (1, 2):

- coordinates along ``point``: ``method``, ``rho_a``, ``rho_b``, ``alpha``, ``lam1``, ``lam2``
  (nan where the method has no such parameter);
- ``transfer`` and ``retention`` (point, seed): eq_def_delta_epsilon_TF_RT on test data,
  retention after ``retention_epochs`` of task 2; ``gate_correlation`` (adaptive gating's
  rho_g, else nan); ``curves`` (point, seed, epoch, task): test error of each task after each
  epoch (task 2's error during task 1 is nan unless the grid tracks it, Fig. 9A);
  ``done`` (point, seed): 1 for a finished run, 0 for one still to do (its values are nan);
- attributes: ``settings`` (JSON: the grid's points, seeds, protocol, root seed; a stored grid
  resumes only under the same settings), ``protocol`` (JSON: the resolved sizes, n_train,
  n_test, ...), ``provenance`` (JSON: versions, commit, command), ``seconds`` (the compute
  time of the finished runs, summed over workers).

The file is rewritten (atomically) after every finished job, so an interrupted grid loses at
most the jobs in flight, and :func:`run_grid` on the same file continues where it stopped,
with the same numbers (every run's seed is fixed by the grid, not by the order of work).
Task 1 of each seed and regime is kept in ``results/cache/`` (not committed: ~10 MB each)
and shared by every grid that needs it.

Examples
--------
>>> import tempfile
>>> from tasksim.solvers.pmnist.grids import tiny_grid
>>> with tempfile.TemporaryDirectory() as folder:
...     ds = run_grid(tiny_grid(), folder)
...     int(ds.done.sum()), ds.transfer.dims, load_grid(grid_path(folder, "tiny")).sizes["seed"]
(6, ('point', 'seed'), 2)
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from tasksim.errors import InputError
from tasksim.solvers.pmnist.grids import (ChunkJob, FirstTaskJob, GridSpec, learn_first_task,
                                          plan, resolved_points, run_chunk)
from tasksim.solvers.pmnist.network import Network
from tasksim.solvers.pmnist.run import FirstTask, RunRecord

from .figures_blas import blas_info
from .provenance import provenance
from .report_cache import RESULTS_DIR

__all__ = ["RESULTS_DIR", "grid_path", "load_grid", "run_grid", "GridProgress",
           "empty_grid", "stored_settings", "check_writable"]


GridProgress = Callable[[int, int, float], None]
"""Called after every finished job with (runs done, runs in the grid, compute seconds so far)."""


def grid_path(folder: Union[str, Path], name: str) -> Path:
    return Path(folder) / f"{name}.nc"


def _nan_or(value: Optional[float]) -> float:
    return float("nan") if value is None else float(value)


def empty_grid(spec: GridSpec, points: Sequence[dict[str, Any]]):
    """The dataset of ``spec`` with no run done (module docstring)."""
    import xarray as xr

    n, s = len(points), spec.seeds
    steps = points[0]["epochs"] + spec.task2_epochs + 1
    nan = np.full((n, s), np.nan)
    coords = {"method": ("point", [p["method"] for p in points]),
              **{k: ("point", [_nan_or(p[k]) for p in points])
                 for k in ("rho_a", "rho_b", "alpha", "lam1", "lam2")},
              "seed": np.arange(s, dtype=np.int32), "epoch": np.arange(steps, dtype=np.int32),
              "task": np.array([1, 2], dtype=np.int32)}
    protocol = {k: points[0][k] for k in ("dataset", "hidden", "batch", "learning_rate",
                                          "epochs", "task2_epochs", "retention_epochs",
                                          "n_pixels", "n_train", "n_test", "dtype")}
    ds = xr.Dataset(
        {"transfer": (("point", "seed"), nan.copy()),
         "retention": (("point", "seed"), nan.copy()),
         "gate_correlation": (("point", "seed"), nan.copy()),
         "curves": (("point", "seed", "epoch", "task"), np.full((n, s, steps, 2), np.nan)),
         "done": (("point", "seed"), np.zeros((n, s), dtype=np.int8))},
        coords=coords,
        attrs={"figure": spec.name, "title": spec.title,
               "settings": json.dumps(spec.settings(), sort_keys=True),
               "protocol": json.dumps(protocol, sort_keys=True), "seconds": 0.0})
    ds["transfer"].attrs["long_name"] = "eps_2[W_o] - eps_2[W_1] (test)"
    ds["retention"].attrs["long_name"] = (f"eps_1[W_o] - eps_1[W_2] (test, after "
                                          f"{spec.retention_epochs} epochs of task 2)")
    ds["curves"].attrs["long_name"] = "test error of each task after each epoch"
    return ds


def load_grid(path: Union[str, Path]):
    """The stored grid at ``path`` (an ``xarray.Dataset``, loaded into memory). One-line
    ValueError for a missing or unreadable file."""
    import xarray as xr

    path = Path(path)
    if not path.is_file():
        raise InputError(f"no stored grid at {path}: run `tasksim pmnist-grid "
                         f"{path.stem}` to compute it")
    try:
        return xr.load_dataset(path, engine="scipy")
    except Exception as problem:  # noqa: BLE001 - any reader error is a corrupt file here
        raise InputError(f"{path} is not a readable netCDF grid: "
                         f"{' '.join(str(problem).split())[:200]}") from None


def stored_settings(ds) -> dict[str, Any]:
    return json.loads(ds.attrs["settings"])


def check_writable(folder: Path) -> None:
    """Make ``folder`` (and ``folder/cache``) and write a file there, so that a folder the
    grid cannot be stored in fails before any work (an OSError naming the folder), not after
    task 1 has been learned."""
    try:
        (folder / "cache").mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as problem:
        reason = problem.strerror or type(problem).__name__
        raise OSError(problem.errno, f"cannot store grids in {folder}: {reason}") from None


def _save(ds, path: Path) -> None:
    tmp = path.with_name(path.name + ".part")
    ds.to_netcdf(tmp, engine="scipy")
    os.replace(tmp, path)


def _cache_file(folder: Path, key: str) -> Path:
    return folder / "cache" / f"task1-{key}.npz"


def _store_first(path: Path, first: FirstTask) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part.npz")
    np.savez(tmp, initial1=first.initial.layer1, initial2=first.initial.layer2,
             final1=first.final.layer1, final2=first.final.layer2, errors=first.task1_errors,
             order_state=np.array(json.dumps(first.order_state)))
    os.replace(tmp, path)


def _read_first(path: Path) -> FirstTask:
    with np.load(path) as z:
        return FirstTask(Network(z["initial1"], z["initial2"]), Network(z["final1"], z["final2"]),
                         (), z["errors"], json.loads(str(z["order_state"])))


def _record(ds, i: int, j: int, run: RunRecord) -> None:
    ds["transfer"].values[i, j] = run.transfer
    ds["retention"].values[i, j] = run.retention
    ds["gate_correlation"].values[i, j] = run.gate_correlation
    ds["curves"].values[i, j] = run.curves
    ds["done"].values[i, j] = 1


def _timed_first(job: FirstTaskJob) -> tuple[FirstTask, float]:
    start = time.perf_counter()
    return learn_first_task(job), time.perf_counter() - start


def _timed_chunk(job: ChunkJob, learned: Optional[FirstTask]) -> tuple[list[RunRecord], float]:
    start = time.perf_counter()
    return run_chunk(job, learned), time.perf_counter() - start


def _open_grid(spec: GridSpec, path: Path, points: list[dict[str, Any]], restart: bool):
    """The stored grid to continue, or a new one. It grows to more seeds when ``spec`` asks
    for more (the runs of the first seeds do not depend on how many follow; with fewer, only
    its first seeds are run, and the file keeps its size), and to more points when ``spec``'s
    points continue the stored ones (a run depends on its point and seed only)."""
    if not path.exists() or restart:
        return empty_grid(spec, points)
    ds = load_grid(path)
    stored, wanted = stored_settings(ds), json.loads(json.dumps(spec.settings(), sort_keys=True))
    have, had = stored.pop("seeds"), stored.pop("points")
    rest = {k: v for k, v in wanted.items() if k not in ("seeds", "points")}
    if stored != rest or had != wanted["points"][:len(had)]:
        raise InputError(f"{path} holds a grid with other settings than {spec.name}'s; "
                         "pass --restart to discard it, or --out another folder")
    if have < spec.seeds or len(had) < len(points):
        grown = empty_grid(replace(spec, seeds=max(have, spec.seeds)), points)
        for name in ("transfer", "retention", "gate_correlation", "curves", "done"):
            grown[name].values[:len(had), :have] = ds[name].values
        grown.attrs["seconds"] = ds.attrs.get("seconds", 0.0)
        return grown
    return ds


def run_grid(spec: GridSpec, folder: Union[str, Path] = RESULTS_DIR, *,
             executor: Optional[Executor] = None, workers: int = 1,
             progress: Optional[GridProgress] = None, restart: bool = False,
             max_jobs: Optional[int] = None, command: Sequence[str] = ("tasksim",)):
    """Run what is missing of ``spec``'s grid into ``folder/<name>.nc`` (module docstring)
    and return the dataset. ``executor`` (None: serial here) runs the jobs, at most
    ``workers`` at a time; ``max_jobs`` stops after that many jobs (as an interruption
    would: the file holds what finished)."""
    folder = Path(folder)
    check_writable(folder)
    path = grid_path(folder, spec.name)
    points = resolved_points(spec)
    ds = _open_grid(spec, path, points, restart)
    record = provenance(seed=spec.root_seed, command=list(command))
    if executor is not None:  # the BLAS of the processes that run the grid, not this one's
        record["blas"] = executor.submit(blas_info).result()
    ds.attrs["provenance"] = json.dumps(record, sort_keys=True)
    done = {(int(i), int(j)) for i, j in zip(*np.nonzero(ds["done"].values))}
    # restart: learn task 1 again too (a stored one may predate a change of the code)
    have = [] if restart else [p.stem[len("task1-"):]
                               for p in (folder / "cache").glob("task1-*.npz")]
    queue = plan(spec, done, have)  # the spec's seeds: the first ones of a larger file
    total = ds["done"].size
    seconds = float(ds.attrs.get("seconds", 0.0))
    finished_jobs = 0

    def finish_chunk(job: ChunkJob, runs: list[RunRecord], spent: float) -> None:
        nonlocal seconds
        for i, run in zip(job.indices, runs):
            _record(ds, i, job.j, run)
        seconds += spent
        ds.attrs["seconds"] = seconds
        _save(ds, path)
        if progress is not None:
            progress(int(ds["done"].sum()), total, seconds)

    def finish_first(job: FirstTaskJob, first: FirstTask, spent: float) -> None:
        nonlocal seconds
        _store_first(_cache_file(folder, job.key), first)
        seconds += spent

    def learned(job: ChunkJob) -> Optional[FirstTask]:
        return None if job.key is None else _read_first(_cache_file(folder, job.key))

    if not queue:
        _save(ds, path)
        return ds
    if executor is None:
        for job in queue:
            if max_jobs is not None and finished_jobs >= max_jobs:
                break
            if isinstance(job, FirstTaskJob):
                finish_first(job, *_timed_first(job))
            else:
                finish_chunk(job, *_timed_chunk(job, learned(job)))
            finished_jobs += 1
        return ds

    ready = set(have)
    running: dict[Future, Union[FirstTaskJob, ChunkJob]] = {}
    submitted = 0
    while queue or running:
        while queue and len(running) < max(1, workers) and \
                (max_jobs is None or submitted < max_jobs):
            pick = next((k for k, job in enumerate(queue)
                         if isinstance(job, FirstTaskJob) or job.key is None
                         or job.key in ready), None)
            if pick is None:
                break
            job = queue.pop(pick)
            future = (executor.submit(_timed_first, job) if isinstance(job, FirstTaskJob)
                      else executor.submit(_timed_chunk, job, learned(job)))
            running[future] = job
            submitted += 1
        if not running:
            break
        finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
        for future in finished:
            job = running.pop(future)
            if isinstance(job, FirstTaskJob):
                finish_first(job, *future.result())
                ready.add(job.key)
            else:
                finish_chunk(job, *future.result())
    return ds
