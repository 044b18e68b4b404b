"""The console command ``tasksim`` (entry point ``tasksim.reports.cli:main``).

Subcommands live in one table, :data:`SUBCOMMANDS`: each is a :class:`Subcommand` with a
function that adds its arguments and a function that runs it. Adding one (``tasksim report``)
is a few lines: write the two functions and add an entry.

``tasksim simulate MODEL --rho-a A --rho-b B [--alpha X] [--gamma G | --lam L] [--nx N]
[--ns N] [--ny N] [--seeds K] [--seed S] [--generator appendix|gaussian]
[--method exact|gd] [--gram auto|wishart|explicit] [--workers W] [--json]``
    transfer and retention of one model (:func:`tasksim.solvers.api.simulate`); ``--json`` prints
    ``{"transfer": {"mean": m, "sem": s}, "retention": {...}, "params": {...},
    "provenance": {...}}``.
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
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < self.every and done < total):
            return
        self.last, self.shown = now, True
        self.stream.write(f"\r{self.label}: {done}/{total} samples, {now - self.start:.1f} s")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


# --- tasksim simulate ---------------------------------------------------------------------------

def _simulate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL",
                   help="vanilla, random-gating, adaptive-gating, plasticity-gating, "
                        "soft-threshold, euclidean, fisher or fisher-diag")
    p.add_argument("--rho-a", type=_number, required=True, help="feature similarity in [0, 1]")
    p.add_argument("--rho-b", type=_number, required=True, help="readout similarity in [0, 1]")
    p.add_argument("--alpha", type=_number, help="gating level in (0, 1] (gating models)")
    strength = p.add_mutually_exclusive_group()
    strength.add_argument("--gamma", type=_number, help="regularizer level in (0, 1]")
    strength.add_argument("--lam", type=_number, help="regularizer amplitude lambda >= 0")
    p.add_argument("--nx", type=_size, default=3000, help="input width (default 3000)")
    p.add_argument("--ns", type=_size, default=30, help="latent dimension (default 30)")
    p.add_argument("--ny", type=_size, default=10, help="output width (default 10)")
    p.add_argument("--seeds", type=_size, default=10, help="samples (default 10)")
    p.add_argument("--seed", type=_size, default=0, help="root seed (default 0)")
    p.add_argument("--generator", default="appendix", help="appendix (default) or gaussian")
    p.add_argument("--method", default="exact", help="exact (default) or gd")
    p.add_argument("--gram", default="auto",
                   help="auto (default), wishart or explicit: how the exact method gets A")
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
                  seed=args.seed, generator=args.generator, method=args.method, gram=args.gram)
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
    if args.json:
        out.write(json.dumps(record) + "\n")
        return EXIT_OK
    p = result.params
    strength = "".join(f", {k}={p[k]:g}" for k in ("alpha", "gamma", "lam") if p.get(k) is not None)
    out.write(f"{p['model']}: rho_a={p['rho_a']:g}, rho_b={p['rho_b']:g}{strength}\n")
    out.write(f"  Nx={p['nx']}, Ns={p['ns']}, Ny={p['ny']}, {p['seeds']} seeds from seed "
              f"{p['seed']}, generator={p['generator']}, method={p['method']}, "
              f"gram={p['gram']}\n")
    for label, est in (("transfer  Delta eps_TF", result.transfer),
                       ("retention Delta eps_RT", result.retention)):
        sem = "n/a (one seed)" if not math.isfinite(est.sem) else f"{est.sem:.6f}"
        out.write(f"  {label} = {est.mean:+.6f}  (sem {sem})\n")
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

    options = ReportOptions(out_dir=Path(args.out), quick=args.quick, seed=args.seed,
                            figures=not args.no_figures, command=args.command_line,
                            measure=not args.no_measurements)
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
