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
``tasksim bench [--quick] [--json]``
    the solver benchmark (:mod:`tasksim.solvers.benchmark`).
``tasksim report [--out DIR] [--quick] [--seed S] [--no-figures] [--no-measurements]``
    regenerate the report (:mod:`tasksim.reports.report`): ``REPORT.md``, ``claims.json``,
    ``derivations.tex`` and ``figures/``.
``tasksim claims [--json] [--headlines] [--measure]``
    the claim registry (:func:`tasksim.derivations.registry.evaluate_all`): a table (line,
    headline or step, status), or JSON ``{"provenance": {...}, "claims": [records]}`` with
    each record's ``line`` and ``headline``; ``--headlines`` keeps the headline verdicts only;
    ``--measure`` adds the measured verdicts at the quick sizes (about 20 s; the report has
    them at full size).

Every ``--json`` output carries ``"provenance"`` (:mod:`tasksim.reports.provenance`): the
tasksim version, the commit when run from a checkout, library versions, seed and command.

Bad input (an unknown model, a value out of range, a malformed option), a request for more
memory than the machine has, a file that cannot be written and an interruption (Ctrl-C) each
print one line to stderr, ``tasksim: error: ...``, and exit with status 2; no traceback.

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
import contextlib
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, TextIO

from .provenance import provenance

__all__ = ["main", "Subcommand", "SUBCOMMANDS", "UsageError"]

EXIT_OK = 0
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input on the command line: reported as one line on stderr, exit status 2."""


class OutputError(Exception):
    """An output that could not be written, or work that was interrupted: one line, exit 2."""


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


class _StderrProgress:
    """Progress on stderr for long runs: silent for the first ``delay`` seconds."""

    def __init__(self, stream: TextIO, label: str, delay: float = 2.0, every: float = 0.5):
        self.stream, self.label, self.delay, self.every = stream, label, delay, every
        self.start = time.monotonic()
        self.last = -math.inf
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        self.show(f"{done}/{total} samples", final=done >= total)

    def show(self, status: str, *, final: bool = False) -> None:
        """Write ``label: status, elapsed`` over the previous line, unless it is too soon."""
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < self.every and not final):
            return
        self.last, self.shown = now, True
        self.stream.write(f"\r{self.label}: {status}, {now - self.start:.1f} s")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


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
        raise ValueError(f"workers must be a positive integer, got {args.workers}")
    values = dict(rho_a=args.rho_a, rho_b=args.rho_b, alpha=args.alpha, gamma=args.gamma,
                  lam=args.lam, nx=args.nx, ns=args.ns, ny=args.ny, seeds=args.seeds,
                  seed=args.seed, generator=args.generator, method=args.method, gram=args.gram,
                  tasks=args.tasks, structure=args.structure, penalty=args.penalty)
    resolve_params(args.model, **values)  # bad input fails before a pool or a cluster starts
    progress = _StderrProgress(err, f"tasksim simulate {args.model}")
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
    progress = _StderrProgress(err, f"tasksim probe {args.model}")
    try:
        result = run_probe(request, progress=progress)
    except OSError as problem:
        raise OutputError(f"cannot write the probe's results to {args.out}: "
                          f"{_os_reason(problem)}") from None
    except KeyboardInterrupt:
        raise OutputError(f"interrupted; the finished chunks are stored in {args.out}: rerun "
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
    p.add_argument("--dataset", default="digits",
                   help="digits (default: scikit-learn's 8 x 8 digits, offline) or mnist")
    p.add_argument("--data-dir", metavar="DIR",
                   help="directory with MNIST's four IDX files, plain or .gz (--dataset mnist)")
    p.add_argument("--epochs", type=_size, help="epochs per task (default 100)")
    p.add_argument("--retention-epochs", type=_size,
                   help="epochs of task 2 after which retention is measured (default 10)")
    p.add_argument("--hidden", type=_size, help="hidden units (default: 128 digits, 1500 mnist)")
    p.add_argument("--batch", type=_size, help="mini-batch size (default: 7 digits, 300 mnist)")
    p.add_argument("--learning-rate", type=_number, help="SGD learning rate (default 0.01)")
    p.add_argument("--seeds", type=_size, default=10, help="runs per point (default 10)")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    p.add_argument("--paired", action="store_true",
                   help="grid points share their seeds (common random numbers)")
    add_executor_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


class _EpochProgress:
    """Progress per epoch of serial pmnist runs, on stderr (silent for short runs)."""

    def __init__(self, stream: TextIO, total_epochs: int, epochs_per_run: int):
        self.bar = _StderrProgress(stream, "tasksim pmnist")
        self.total, self.per_run, self.done = total_epochs, epochs_per_run, 0

    def __call__(self) -> None:
        self.done += 1
        run, epoch = divmod(self.done - 1, self.per_run)
        self.bar.show(f"run {run + 1}/{self.total // self.per_run}, epoch {epoch + 1}/"
                      f"{self.per_run}", final=self.done >= self.total)

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
        raise ValueError(f"workers must be a positive integer, got {args.workers}")
    points = _pmnist_points(args)  # bad input fails before a pool or a cluster starts
    per_run = points[0]["epochs"] + points[0]["task2_epochs"]
    serial = args.workers == 1 and args.dask is None
    epochs = _EpochProgress(err, per_run * len(points) * args.seeds, per_run) if serial else None
    runs = None if serial else _StderrProgress(err, "tasksim pmnist (runs)")
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


# --- tasksim bench ------------------------------------------------------------------------------

def _bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="small sizes (seconds, for tests)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # Multithreaded BLAS on a loaded machine slows the small products of GD by 10x or more
    # (threads wait for cores): time on one BLAS thread unless the caller chose otherwise.
    # This takes effect only if numpy is not loaded yet (as when run from the console).
    if "numpy" not in sys.modules:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    from tasksim.solvers.benchmark import run_benchmark

    figures = run_benchmark(quick=args.quick, log=lambda line: err.write(line + "\n"))
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
    from tasksim.derivations.claims import STATUSES
    from tasksim.derivations.registry import evaluate_all
    from tasksim.reports.report import claims_document

    verdicts = evaluate_all()
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
    records = [v.as_record() for v in verdicts]
    if args.json:
        out.write(claims_document(verdicts, provenance(seed=0 if args.measure else None,
                                                       command=args.command_line),
                                  measured=measured))
        return EXIT_OK
    if not records:
        out.write("no claims registered\n")
        return EXIT_OK
    wid = max(2, max(len(r["id"]) for r in records))
    wwhere = max(5, min(40, max(len(r["where"]) for r in records)))
    wstat = max(len(s) for s in STATUSES)
    out.write(f"{'id':<{wid}}  {'line':>4}  {'kind':<8}  {'where':<{wwhere}}  "
              f"{'status':<{wstat}}  note\n")
    for r in records:
        kind = "headline" if r["headline"] else "step"
        line = "" if r["line"] is None else r["line"]
        out.write(f"{r['id']:<{wid}}  {line:>4}  {kind:<8}  {_short(r['where'], wwhere):<{wwhere}}  "
                  f"{r['status']:<{wstat}}  {_short(r['note'], 70)}\n")
        if r["id"] in measured:
            out.write(f"{'':<{wid}}  measured: {_short(measured[r['id']].sentence(), 140)}\n")
    counts = Counter(r["status"] for r in records)
    order = [s for s in STATUSES if s in counts] + sorted(set(counts) - set(STATUSES))
    out.write(f"{len(records)} claims: " + ", ".join(f"{counts[s]} {s}" for s in order) + "\n")
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


def _run_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tasksim.reports.report import ReportOptions, build_report

    def progress(message: str) -> None:
        err.write(f"tasksim report: {message}\n")
        err.flush()

    from tasksim.reports.report_cache import default_cache_dir

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = args.workers or cores or 1
    cache = None if args.no_cache else Path(args.cache) if args.cache else default_cache_dir()
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
        raise OutputError(f"interrupted; the report in {args.out} is unchanged") from None
    out.write(f"{path}\n")
    return EXIT_OK


# --- the table and the entry point ------------------------------------------------------------

SUBCOMMANDS: dict[str, Subcommand] = {
    "simulate": Subcommand("transfer and retention of one model, by exact solution or GD",
                           _simulate_arguments, _run_simulate),
    "probe": Subcommand("finite-size corrections: measured against the derived 1/Nx term",
                        _probe_arguments, _run_probe),
    "pmnist": Subcommand("the permuted-digits network experiment (Sec. 7): transfer and "
                         "retention by SGD", _pmnist_arguments, _run_pmnist),
    "bench": Subcommand("time the solvers (prints the benchmark's figures)",
                        _bench_arguments, _run_bench),
    "claims": Subcommand("the paper's claims and their computed status",
                         _claims_arguments, _run_claims),
    "report": Subcommand("regenerate the report: claims, errata, derivations, figures",
                         _report_arguments, _run_report),
}


def _parser() -> _Parser:
    parser = _Parser(prog="tasksim", description="Machine verification of the theory of "
                     "'Disentangling and mitigating the impact of task similarity for "
                     "continual learning'.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, command in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help)
        command.add_arguments(p)
        p.set_defaults(_run=command.run)
    return parser


def main(
    argv: Optional[Sequence[str]] = None,
    *,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> int:
    """Run ``tasksim`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    Bad input returns 2 after one line on ``stderr``; ``--help`` prints help and returns 0.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        with contextlib.redirect_stdout(out):  # --help goes where the caller asked
            args = _parser().parse_args(words)
        args.command_line = shlex.join(["tasksim", *words])
        return args._run(args, out, err)
    except SystemExit as stop:  # --help
        return int(stop.code or 0)
    except (UsageError, ValueError, OutputError) as problem:
        return _fail(err, str(problem))
    except MemoryError:
        return _fail(err, "out of memory: ask for smaller sizes or fewer workers")
    except OSError as problem:
        return _fail(err, _os_reason(problem))
    except KeyboardInterrupt:
        return _fail(err, "interrupted")


def _fail(err: TextIO, message: str) -> int:
    err.write(f"tasksim: error: {' '.join(message.split())}\n")
    err.flush()
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
