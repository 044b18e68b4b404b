"""The grids of Sec. 7 (Figs. 6 and 9; Appendix E.2, subsec_appendix_pMNIST) as data, and the
pure steps of running one: which first tasks to learn, which runs to do, in what order.

A :class:`GridSpec` names a figure's points (method, rho_a, rho_b, alpha, lam1, lam2), its
seeds, how long task 2 trains and the protocol. Every grid uses the same seeds: run j of every
point of every figure has the seed ``sample_seed(root, 0, j)`` (:func:`run_seed`), so that
points and figures are paired (common random numbers: the same readouts B_1, initial network,
task-1 gates and mini-batch order), and task 1, which depends on neither rho_a nor rho_b, is
learned once per seed and regime (:func:`tasksim.solvers.pmnist.run.first_task_regime`) for
all of them.

The work of a grid is split into :class:`FirstTaskJob` (learn task 1 of one regime and seed)
and :class:`ChunkJob` (a few points of that regime and seed, from the learned task 1), both
plain functions of their arguments (:func:`learn_first_task`, :func:`run_chunk`), so that any
``concurrent.futures.Executor`` can run them and their results are the same on 1 worker or 64.
Storing them (and resuming) is the caller's: :mod:`tasksim.reports.pmnist_results`.

Grids of the paper's sizes (:func:`paper_grids`, mnist-5k, measured cost in the report):

========  =================================================================================
fig6AB    vanilla, the paper's 11 x 11 grid rho_a, rho_b in {0, 0.1, ..., 1}, 5 seeds
fig6CD    random and adaptive gating, alpha in {0.1, 0.3, 0.6}, rho_a = 1,
          rho_b in {0, 0.5, 1}, 3 seeds (alpha = 1 is vanilla: fig6AB)
fig6EH    Euclidean, layer-wise and diagonal Fisher, lambda in {0.01, 1, 100} on both
          layers, (rho_a, rho_b) in {(1, 0), (0.5, 0.5), (0.2, 0.8)} (on fig6AB's grid, so
          that vanilla is there with the same seeds), 3 seeds
fig9A     vanilla at (0.8, 0.2), task 2 trained 100 epochs, task 2's error measured during
          task 1 too, 3 seeds
fig9A_task1  task 1 alone, trained 3,000 epochs (39,000 SGD steps on mnist-5k) at (0.8,
          0.2), 3 seeds: how far the stored grids' 100 epochs are from convergence, and
          where the paper's 20,000 steps stand
fig9CD    vanilla, task 2 trained 100 epochs, rho_a in {0, 0.2, ..., 1} at rho_b = 1 (Fig. 9C)
          and rho_a in {0, 0.5, 1} at rho_b in {0, 0.5}, then (0.5, 1) (with rho_b = 1: Fig.
          9D's 3 x 3 grid; a file of the first 12 points grows to 13), 3 seeds (its first 10
          epochs of task 2 are fig6AB's runs, number for number)
fig9EF    layer-wise and diagonal Fisher at (0.5, 0.5), lam1 x lam2 in {0.01, 1, 100}^2,
          3 seeds
fig9CD_steps  line 1361's corners (0, 1) and (1, 0), then line 361's rho_a in {0.2, 0.4,
          ..., 1} at rho_b = 1 (with (0, 1): Fig. 9C's row; a file of the first 2 points
          grows to 7), at the paper's SGD steps, not its epochs (:func:`paper_step_epochs`):
          task 1 trained 20,000 steps (1,539 epochs on mnist-5k), task 2 20,000 steps with
          retention read after 2,000 (154 epochs) and 20,000; 3 seeds, one run per job (about
          9 minutes of one core each on mnist-5k)
fig9EF_steps  fig9EF's 18 points at the paper's SGD steps: task 1 as in fig9CD_steps (the
          same first tasks), task 2 trained 2,000 steps (154 epochs on mnist-5k), where the
          W_2 amplitude acts (line 1434's condition); 3 seeds, 3 points per job
fig6AB_steps  Fig. 6A, B at the paper's SGD steps: vanilla on the 6 x 6 grid rho_a, rho_b
          in {0, 0.2, ..., 1} (fig6AB's every other point), then rho_a in {0, 0.2, ..., 1}
          at rho_b = 0.5 (line 360's row; a file of the first 36 points grows to 42); task 1
          as in fig9CD_steps (the same first tasks), task 2 trained 2,000 steps (154 epochs
          on mnist-5k) and read there; 3 seeds, 3 points per job (about a minute of one core
          per run)
fig6CD_steps  Fig. 6C, D at the paper's SGD steps: fig6CD's 18 points, task 1 trained
          20,000 steps (1,539 epochs on mnist-5k) with its gates (one first task per alpha
          and seed: 9), task 2 trained 2,000 steps (154 epochs) and read there; its vanilla
          reference is fig6AB_steps (the same seeds); 3 seeds, 3 points per job
fig6EH_steps  Fig. 6E-H at the paper's SGD steps: fig6EH's 27 points, task 1 trained
          20,000 steps (plain, shared with fig9CD_steps, or under the Euclidean amplitudes:
          3 more first tasks per seed), task 2 trained 2,000 steps and read there; its
          vanilla reference is fig6AB_steps; 3 seeds, 3 points per job (about 75 minutes of
          one core per seed)
========  =================================================================================

Examples
--------
>>> specs = paper_grids()
>>> len(specs["fig6AB"].points), specs["fig6AB"].seeds
(121, 5)
>>> jobs = plan(tiny_grid(), done=set())
>>> [type(j).__name__ for j in jobs][:2], len(jobs)
(['FirstTaskJob', 'ChunkJob'], 6)
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ..sweep import sample_seed
from . import PROTOCOLS, resolve_pmnist_params
from .data import DIGITS_TRAIN, MNIST5K_TRAIN_PER_DIGIT
from .run import FirstTask, RunRecord, first_task_regime, run_two_tasks, train_first_task

__all__ = ["GridSpec", "FirstTaskJob", "ChunkJob", "paper_grids", "tiny_grid", "run_seed",
           "resolved_points", "plan", "learn_first_task", "run_chunk", "first_task_key",
           "GRID_NAMES", "ROOT_SEED", "TASK1_EPOCHS", "PAPER_SGD_STEPS", "paper_step_epochs"]

ROOT_SEED = 2024
"""The root seed of every stored grid (run j of every point: ``sample_seed(ROOT_SEED, 0, j)``)."""

GRID_NAMES: tuple[str, ...] = ("fig6AB", "fig6CD", "fig6EH", "fig9A", "fig9A_task1", "fig9CD",
                               "fig9EF", "fig9CD_steps", "fig9EF_steps",
                               "fig6AB_steps", "fig6CD_steps", "fig6EH_steps")

TASK1_EPOCHS = 3000
"""How long ``fig9A_task1`` trains task 1: past the paper's 20,000 SGD steps on either data
set (epoch 1,539 of mnist-5k's 13 steps per epoch), with a plateau of 100 epochs after it."""

PAPER_SGD_STEPS = (2_000, 20_000)
"""The paper's training lengths in SGD steps on MNIST (60,000 images, batch 300: 200 steps
per epoch): its short training (10 epochs) and its long one (100 epochs, also task 1's)."""

_TRAIN_IMAGES = {"mnist": 60_000, "mnist-5k": 10 * MNIST5K_TRAIN_PER_DIGIT,
                 "digits": DIGITS_TRAIN}


def paper_step_epochs(dataset: str) -> tuple[int, int]:
    """The epochs of ``dataset``'s protocol that first reach the paper's short and long
    training in SGD steps (:data:`PAPER_SGD_STEPS`; the last partial batch of an epoch is
    dropped).

    >>> paper_step_epochs("mnist-5k"), paper_step_epochs("digits"), paper_step_epochs("mnist")
    ((154, 1539), (10, 98), (10, 100))
    """
    steps = _TRAIN_IMAGES[dataset] // PROTOCOLS[dataset].batch
    short, long = (math.ceil(n / steps) for n in PAPER_SGD_STEPS)
    return short, long


_POINT_KEYS = ("method", "rho_a", "rho_b", "alpha", "lam1", "lam2")


@dataclass(frozen=True)
class GridSpec:
    """One figure's grid: ``points`` (dicts of :data:`_POINT_KEYS`, absent keys None),
    ``seeds`` runs per point, task 2 trained ``task2_epochs`` (retention measured after
    ``retention_epochs``), ``track_task2`` (measure task 2's error during task 1: each run
    learns its own task 1, Fig. 9A), the data set and protocol overrides (``hidden``,
    ``epochs``, ...; empty: the data set's protocol), ``chunk`` points per job."""

    name: str
    title: str
    points: tuple[Mapping[str, Any], ...]
    seeds: int
    task2_epochs: int = 10
    retention_epochs: int = 10
    track_task2: bool = False
    dataset: str = "mnist-5k"
    protocol: Mapping[str, Any] = field(default_factory=dict)
    root_seed: int = ROOT_SEED
    chunk: int = 11

    def settings(self) -> dict[str, Any]:
        """Everything that fixes the grid's numbers (stored with the results; a stored grid
        resumes only under the same settings)."""
        return {"name": self.name, "points": [dict(p) for p in self.points],
                "seeds": self.seeds, "task2_epochs": self.task2_epochs,
                "retention_epochs": self.retention_epochs, "track_task2": self.track_task2,
                "dataset": self.dataset, "protocol": dict(self.protocol),
                "root_seed": self.root_seed}


def _point(method: str, rho_a: float, rho_b: float, **options: float) -> dict[str, Any]:
    return {"method": method, "rho_a": float(rho_a), "rho_b": float(rho_b),
            **{k: (None if options.get(k) is None else float(options[k]))
               for k in ("alpha", "lam1", "lam2")}}


def paper_grids(dataset: str = "mnist-5k", *, seeds: Optional[int] = None) -> dict[str, GridSpec]:
    """The grids of Figs. 6 and 9 at the paper's sizes (module docstring); ``seeds``
    overrides every grid's number of seeds."""
    tenth = [k / 10 for k in range(11)]
    fifth = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    amplitudes = (0.01, 1.0, 100.0)
    pairs = ((1.0, 0.0), (0.5, 0.5), (0.2, 0.8))
    alphas = (0.1, 0.3, 0.6)
    layer_levels = (0.01, 1.0, 100.0)
    specs = [
        GridSpec("fig6AB", "Fig. 6A, B: vanilla transfer and retention",
                 tuple(_point("vanilla", a, b) for b in tenth for a in tenth), seeds=5),
        GridSpec("fig6CD", "Fig. 6C, D: random and adaptive activity gating",
                 tuple(_point(m, 1.0, b, alpha=al) for m in ("random-gating", "adaptive-gating")
                       for al in alphas for b in (0.0, 0.5, 1.0)), seeds=3, chunk=9),
        GridSpec("fig6EH", "Fig. 6E-H: Euclidean, layer-wise and diagonal Fisher",
                 tuple(_point(m, a, b, lam1=lam, lam2=lam) for a, b in pairs
                       for m in ("euclidean", "fisher-layerwise", "fisher-diag")
                       for lam in amplitudes), seeds=3, chunk=9),
        GridSpec("fig9A", "Fig. 9A: learning curves at (0.8, 0.2)",
                 (_point("vanilla", 0.8, 0.2),), seeds=3, task2_epochs=100, track_task2=True),
        GridSpec("fig9A_task1", f"Fig. 9A: task 1 trained {TASK1_EPOCHS:,} epochs at "
                 "(0.8, 0.2)", (_point("vanilla", 0.8, 0.2),), seeds=3, task2_epochs=1,
                 retention_epochs=1, protocol={"epochs": TASK1_EPOCHS}, chunk=1),
        GridSpec("fig9CD", "Fig. 9C, D: retention after 100 epochs of task 2",
                 tuple(_point("vanilla", a, 1.0) for a in fifth)
                 + tuple(_point("vanilla", a, b) for b in (0.0, 0.5) for a in (0.0, 0.5, 1.0))
                 + (_point("vanilla", 0.5, 1.0),),  # Fig. 9D's last cell, added after the rest
                 seeds=3, task2_epochs=100, chunk=6),
        GridSpec("fig9EF", "Fig. 9E, F: layer-wise and diagonal Fisher, one amplitude per layer",
                 tuple(_point(m, 0.5, 0.5, lam1=l1, lam2=l2)
                       for m in ("fisher-layerwise", "fisher-diag")
                       for l1 in layer_levels for l2 in layer_levels), seeds=3, chunk=9),
    ]
    short, long = paper_step_epochs(dataset)
    specs.append(GridSpec(
        "fig9CD_steps", "lines 1361 and 361 at the paper's SGD steps",
        (_point("vanilla", 0.0, 1.0), _point("vanilla", 1.0, 0.0))
        + tuple(_point("vanilla", a, 1.0) for a in fifth[1:]), seeds=3,
        task2_epochs=long, retention_epochs=short, protocol={"epochs": long}, chunk=1))
    specs.append(GridSpec(
        "fig9EF_steps", "line 1434 at the paper's SGD steps",
        tuple(_point(m, 0.5, 0.5, lam1=l1, lam2=l2) for m in ("fisher-layerwise", "fisher-diag")
              for l1 in layer_levels for l2 in layer_levels), seeds=3,
        task2_epochs=short, retention_epochs=short, protocol={"epochs": long}, chunk=3))
    specs.append(GridSpec(
        "fig6AB_steps", "Fig. 6A, B at the paper's SGD steps (every other point)",
        tuple(_point("vanilla", a, b) for b in fifth for a in fifth)
        + tuple(_point("vanilla", a, 0.5) for a in fifth),  # line 360's row, added after
        seeds=3, task2_epochs=short, retention_epochs=short, protocol={"epochs": long},
        chunk=3))
    specs.append(GridSpec(
        "fig6CD_steps", "Fig. 6C, D at the paper's SGD steps",
        tuple(_point(m, 1.0, b, alpha=al) for m in ("random-gating", "adaptive-gating")
              for al in alphas for b in (0.0, 0.5, 1.0)),
        seeds=3, task2_epochs=short, retention_epochs=short, protocol={"epochs": long},
        chunk=3))
    specs.append(GridSpec(
        "fig6EH_steps", "Fig. 6E-H at the paper's SGD steps",
        tuple(_point(m, a, b, lam1=lam, lam2=lam) for a, b in pairs
              for m in ("euclidean", "fisher-layerwise", "fisher-diag") for lam in amplitudes),
        seeds=3, task2_epochs=short, retention_epochs=short, protocol={"epochs": long},
        chunk=3))
    out = {}
    for spec in specs:
        kw = dict(spec.__dict__)
        kw.update(dataset=dataset, seeds=seeds or spec.seeds)
        out[spec.name] = GridSpec(**kw)
    return out


def tiny_grid(name: str = "tiny", *, seeds: int = 2) -> GridSpec:
    """A grid for tests: 3 vanilla points on the 8 x 8 digits, 8 hidden units, 2 epochs."""
    return GridSpec(name, "tiny test grid",
                    tuple(_point("vanilla", a, 0.5) for a in (0.0, 0.5, 1.0)), seeds=seeds,
                    task2_epochs=2, retention_epochs=1, dataset="digits",
                    protocol={"hidden": 8, "epochs": 2}, chunk=2)


def run_seed(spec: GridSpec, j: int) -> np.random.SeedSequence:
    """The seed of run j at every point of every grid with this root seed."""
    return sample_seed(spec.root_seed, 0, j)


def resolved_points(spec: GridSpec) -> list[dict[str, Any]]:
    """Each point's parameters (:func:`tasksim.solvers.pmnist.resolve_pmnist_params`): bad
    points fail here, before any work."""
    lam = ("euclidean", "fisher-layerwise", "fisher-diag")
    out = []
    for p in spec.points:
        options = {k: p.get(k) for k in ("alpha", "lam1", "lam2") if p.get(k) is not None}
        if p["method"] not in lam:
            options.pop("lam1", None), options.pop("lam2", None)
        out.append(resolve_pmnist_params(
            p["method"], rho_a=p["rho_a"], rho_b=p["rho_b"], dataset=spec.dataset,
            seeds=spec.seeds, seed=spec.root_seed, task2_epochs=spec.task2_epochs,
            retention_epochs=spec.retention_epochs, **dict(spec.protocol), **options))
    return out


def first_task_key(params: Mapping[str, Any], j: int, root_seed: int) -> str:
    """A name for task 1 of run j under ``params``' protocol and regime: equal for every
    point (of any grid) that shares that task 1."""
    protocol = {k: params[k] for k in ("dataset", "hidden", "batch", "learning_rate",
                                       "epochs", "dtype", "n_train")}
    text = json.dumps([protocol, list(first_task_regime(params)), j, root_seed],
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class FirstTaskJob:
    """Learn task 1 of run ``j`` for ``params``' regime (stored under ``key``)."""

    key: str
    j: int
    params: Mapping[str, Any]
    root_seed: int


@dataclass(frozen=True)
class ChunkJob:
    """Runs j of points ``indices`` (of the grid), from task 1 ``key`` (None: each run learns
    its own, measuring task 2 during task 1)."""

    key: Optional[str]
    j: int
    indices: tuple[int, ...]
    params: tuple[Mapping[str, Any], ...]
    root_seed: int


def plan(spec: GridSpec, done: set[tuple[int, int]], have_first: Sequence[str] = ()
         ) -> list[FirstTaskJob | ChunkJob]:
    """The jobs still to do, seed by seed (so that an interrupted grid holds whole seeds
    first): for each seed j, the first tasks not in ``have_first``, then the chunks of
    points whose run j is not in ``done`` ((point, j) pairs), each chunk after its first
    task."""
    points = resolved_points(spec)
    jobs: list[FirstTaskJob | ChunkJob] = []
    have = set(have_first)
    for j in range(spec.seeds):
        groups: dict[str, list[int]] = {}
        for i, p in enumerate(points):
            if (i, j) in done:
                continue
            key = "own" if spec.track_task2 else first_task_key(p, j, spec.root_seed)
            groups.setdefault(key, []).append(i)
        for key, indices in groups.items():
            if key != "own" and key not in have:
                jobs.append(FirstTaskJob(key, j, points[indices[0]], spec.root_seed))
                have.add(key)
            for start in range(0, len(indices), spec.chunk):
                part = tuple(indices[start:start + spec.chunk])
                jobs.append(ChunkJob(None if key == "own" else key, j, part,
                                     tuple(points[i] for i in part), spec.root_seed))
    return jobs


def learn_first_task(job: FirstTaskJob) -> FirstTask:
    """Task 1 of the job's run (no snapshots)."""
    return train_first_task(job.params, sample_seed(job.root_seed, 0, job.j))


def run_chunk(job: ChunkJob, learned: Optional[FirstTask]) -> list[RunRecord]:
    """Run j of each of the job's points, from ``learned`` (None when the job's key is
    None: each run learns task 1 itself)."""
    seed = sample_seed(job.root_seed, 0, job.j)
    return [run_two_tasks(p, seed, learned=learned) for p in job.params]
