"""The soft-thresholding numerics as a stored experiment: ``results/soft_threshold.nc``.

The exact soft-thresholding solver (:mod:`tasksim.solvers.soft_threshold`; Sec. 4.3,
Appendix B) eigendecomposes the Nx x Nx input moments of every task: at the paper's sizes the
report's two uses of it cost about four minutes of CPU, more than the rest of the report. So
at the paper's sizes they are computed once by ``tasksim report --rerun soft-threshold``
(:func:`run_experiment`, resumable, with progress) and stored; the report reads the file
(:func:`report_data`) and fails with one line (:class:`tasksim.errors.InputError`) when it is
missing or was made with other parameters (:func:`check_stored`). Quick builds compute their
small protocol in process, through the same functions.

The two parts (one :class:`Protocol`, its fields fixed by the report's own specifications,
:func:`Protocol.for_report`):

``measurement`` (dims ``size``, ``sample``)
    the measurements ``soft_threshold.alpha_independence``, ``.retention_with_diagonal``,
    ``.transfer_with_diagonal`` and ``.learning_preserved``
    (:data:`tasksim.reports.measurements.MEASUREMENTS`, one seed key: the same tasks): per
    size (Nx, Ns) and sample, the gradient-flow limit's ``retention``, ``transfer`` and
    ``learned`` (eps_2[W_2], the error on the task just learned) at alpha and
    ``retention_linear`` at alpha = 1, on the tasks the measurement draws (its seed, key and
    size alone fix them);
``figure`` (dim ``point``)
    Fig. 3D (``averages.soft-threshold``): per (rho_a, rho_b, alpha) point of the midpoint
    grid, one seed, ``transfer_gd``, ``retention_gd`` (the paper's protocol, 5,000 steps,
    eta = 0.01, exact gradients) and ``transfer_exact``, ``retention_exact`` (its
    gradient-flow limit), errors averaged exactly over B given A
    (:func:`tasksim.reports.figures_numerics.soft_threshold_samples`), seeded as
    :func:`tasksim.reports.figures_numerics.soft_threshold_sweep` seeds them.

``done_measurement`` and ``done_figure`` mark the finished units (1) of a file being
computed; attributes: ``settings`` (JSON: the protocol; the report compares it with its own),
``code_version`` (:func:`tasksim.reports.report_cache.code_version` of the code that computed
it), ``provenance`` (JSON: versions, commit, command) and ``seconds`` (compute time summed
over workers). netCDF3 through scipy, like the Sec. 7 grids (:mod:`tasksim.reports.pmnist_results`).

Examples
--------
>>> p = Protocol.for_report(quick=True, seed=0)
>>> p.sizes, p.samples, len(p.figure_points())
(((300, 6), (600, 12)), 4, 8)
>>> ds = compute(p)
>>> int(ds.done_measurement.sum()), int(ds.done_figure.sum())
(8, 8)
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from concurrent.futures import Executor, Future, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from tasksim.errors import InputError

from .pmnist_results import RESULTS_DIR
from .soft_threshold_scan import ALPHA_SCAN, TRANSFER_PATH_FILE

__all__ = ["STORED_PATH", "MEASURED_CLAIMS", "FIGURE_PANEL", "RERUN_COMMAND", "Protocol",
           "measurement_unit", "figure_unit", "compute", "run_experiment", "load_stored",
           "check_stored", "report_data", "measured_draws", "figure_estimates",
           "stored_digest", "training_time_note", "transfer_path", "store_transfer_path",
           "transfer_path_note", "TRANSFER_PATH_FILE", "PATHS",
           "path_words", "learned_path_note", "retention_path_note",
           "transfer_path_unit", "alpha_scan", "check_stored_path"]

STORED_PATH = RESULTS_DIR / "soft_threshold.nc"
"""Where the report reads the paper-size experiment."""

RERUN_COMMAND = "tasksim report --rerun soft-threshold"
"""The command that computes :data:`STORED_PATH` (resumable)."""

MEASURED_CLAIMS = ("soft_threshold.alpha_independence", "soft_threshold.retention_with_diagonal",
                   "soft_threshold.transfer_with_diagonal", "soft_threshold.learning_preserved")
"""The measurements whose draws the experiment stores (one seed key: the same tasks)."""

FIGURE_PANEL = "averages.soft-threshold"
"""The panel (seed name) of Fig. 3D whose points the experiment stores."""

_MEASURED = ("retention", "transfer", "retention_linear", "learned")
_FIGURE = ("transfer_gd", "retention_gd", "transfer_exact", "retention_exact")

Progress = Callable[[int, int, float], None]
"""Called after every finished unit with (units done, units in all, compute seconds so far)."""


@dataclass(frozen=True)
class Protocol:
    """Everything that fixes the experiment's numbers (its ``settings``)."""

    seed: int
    sizes: tuple[tuple[int, int], ...]
    samples: int
    rho_a: float
    rho_b: float
    alpha: float
    ny: int
    seed_key: str
    figure_nx: int
    figure_ns: int
    figure_ny: int
    figure_side: int
    figure_alphas: tuple[float, ...]

    @classmethod
    def for_report(cls, *, quick: bool, seed: int, config: Any = None) -> "Protocol":
        """The protocol the report's measurements and Fig. 3D ask for (quick: their quick
        sizes), read from their specifications so that the two cannot drift apart; ``config``:
        the figures' :class:`tasksim.reports.figures_config.FigureConfig` (default: the
        mode's)."""
        from .figures_config import FigureConfig
        from .measurements import measurement_for

        specs = [measurement_for(claim_id) for claim_id in MEASURED_CLAIMS]
        first = specs[0]
        for m in specs[1:]:  # one draw of tasks serves them all
            if (m.sizes, m.quick_sizes, m.samples, m.quick_samples, m.seed_key,
                    dict(m.point)) != (first.sizes, first.quick_sizes, first.samples,
                                       first.quick_samples, first.seed_key, dict(first.point)):
                raise ValueError(f"{m.claim_id} and {first.claim_id} no longer share their "
                                 "tasks: the stored soft-thresholding experiment needs them to")
        c = FigureConfig.for_mode(quick) if config is None else config
        return cls(seed=int(seed),
                   sizes=tuple(tuple(s) for s in (first.quick_sizes if quick else first.sizes)),
                   samples=first.quick_samples if quick else first.samples,
                   rho_a=float(first.point["rho_a"]), rho_b=float(first.point["rho_b"]),
                   alpha=float(first.point["alpha"]), ny=10, seed_key=first.seed_key,
                   figure_nx=c.soft_nx, figure_ns=c.soft_ns, figure_ny=c.ny,
                   figure_side=c.soft_side, figure_alphas=tuple(float(a) for a in c.soft_alphas))

    def settings(self) -> dict[str, Any]:
        """The protocol as JSON values (what a stored file is compared by)."""
        return json.loads(json.dumps(asdict(self)))

    def figure_points(self) -> list[dict[str, float]]:
        """Fig. 3D's points, in its order (every midpoint pair at each alpha, alpha-major)."""
        from .figures_config import grid_points

        return grid_points(self.figure_alphas, "alpha", self.figure_side)

    def units(self) -> list[tuple[str, int, int]]:
        """Every unit of work: ("measurement", size, sample) and ("figure", point, 0),
        the largest first (so that on few workers the longest does not start last)."""
        measured = [("measurement", k, j) for k in reversed(range(len(self.sizes)))
                    for j in range(self.samples)]
        return measured + [("figure", i, 0) for i in range(len(self.figure_points()))]


def measurement_unit(p: Protocol, size: int, sample: int
                     ) -> tuple[float, float, float, float]:
    """(retention at alpha, transfer at alpha, retention at alpha = 1, eps_2[W_2] at alpha)
    of sample ``sample`` at size ``p.sizes[size]``: the tasks
    :func:`tasksim.reports.measurements.measure` draws for the four measurements (same seed
    sequence, same entropy draw), exact flow limit."""
    from tasksim.solvers.rng import as_generator

    from .measurements import measurement_seed_sequence, soft_threshold_errors

    nx, ns = p.sizes[size]
    child = measurement_seed_sequence(p.seed, p.seed_key, (nx, ns)).spawn(p.samples)[sample]
    entropy = int(as_generator(child).integers(2**62))
    rho = (p.rho_a, p.rho_b)
    transfer, retention, learned = soft_threshold_errors(nx, ns, p.alpha, rho, entropy)
    linear = soft_threshold_errors(nx, ns, 1.0, rho, entropy)[1]
    return retention, transfer, linear, learned


def figure_unit(p: Protocol, point: int) -> tuple[float, float, float, float]:
    """Fig. 3D's point ``point``: (transfer_gd, retention_gd, transfer_exact,
    retention_exact), one seed, the seed :func:`soft_threshold_sweep` gives it."""
    from tasksim.solvers.sweep import sample_seed

    from .figures_config import panel_seed
    from .figures_numerics import soft_threshold_samples

    params = dict(p.figure_points()[point], nx=p.figure_nx, ns=p.figure_ns, ny=p.figure_ny)
    seed = sample_seed(panel_seed(p.seed, FIGURE_PANEL), point, 0)
    out = soft_threshold_samples(params, [seed])
    return tuple(float(out[name][0]) for name in _FIGURE)  # type: ignore[return-value]


def _unit(p: Protocol, unit: tuple[str, int, int]) -> tuple[tuple[float, ...], float]:
    """One unit's values and its CPU seconds (for a worker; single-threaded BLAS)."""
    from .figures_blas import single_threaded_blas

    start = time.process_time()
    with single_threaded_blas():
        part, i, j = unit
        values = measurement_unit(p, i, j) if part == "measurement" else figure_unit(p, i)
    return values, time.process_time() - start


def _empty(p: Protocol):
    """The experiment's dataset with no unit done (module docstring)."""
    import xarray as xr

    points = p.figure_points()
    nan_m = np.full((len(p.sizes), p.samples), np.nan)
    nan_f = np.full(len(points), np.nan)
    ds = xr.Dataset(
        {**{name: (("size", "sample"), nan_m.copy()) for name in _MEASURED},
         **{name: ("point", nan_f.copy()) for name in _FIGURE},
         "done_measurement": (("size", "sample"), np.zeros(nan_m.shape, dtype=np.int8)),
         "done_figure": ("point", np.zeros(len(points), dtype=np.int8))},
        coords={"nx": ("size", np.array([s[0] for s in p.sizes], dtype=np.int32)),
                "ns": ("size", np.array([s[1] for s in p.sizes], dtype=np.int32)),
                "sample": np.arange(p.samples, dtype=np.int32),
                **{k: ("point", np.array([q[k] for q in points])) for k in
                   ("rho_a", "rho_b", "alpha")}},
        attrs={"settings": json.dumps(p.settings(), sort_keys=True), "seconds": 0.0})
    ds["retention"].attrs["long_name"] = (f"Delta eps_RT at alpha = {p.alpha:g}, gradient-flow "
                                          "limit, averaged over B given A")
    ds["transfer"].attrs["long_name"] = (f"Delta eps_TF at alpha = {p.alpha:g}, gradient-flow "
                                         "limit, averaged over B given A")
    ds["retention_linear"].attrs["long_name"] = "Delta eps_RT at alpha = 1 on the same tasks"
    ds["learned"].attrs["long_name"] = (f"eps_2[W_2] at alpha = {p.alpha:g}, the error on the "
                                        "task just learned, gradient-flow limit, averaged "
                                        "over B given A")
    for name in _FIGURE:
        method = ("the paper's protocol (5,000 steps, eta = 0.01)" if name.endswith("_gd")
                  else "the gradient-flow limit")
        ds[name].attrs["long_name"] = (f"Delta eps_{'TF' if name.startswith('t') else 'RT'} "
                                       f"of Fig. 3D, {method}")
    return ds


def _record(ds, unit: tuple[str, int, int], values: Sequence[float]) -> None:
    part, i, j = unit
    if part == "measurement":
        for name, value in zip(_MEASURED, values):
            ds[name].values[i, j] = value
        ds["done_measurement"].values[i, j] = 1
    else:
        for name, value in zip(_FIGURE, values):
            ds[name].values[i] = value
        ds["done_figure"].values[i] = 1


def _done(ds, unit: tuple[str, int, int]) -> bool:
    part, i, j = unit
    return bool(ds["done_measurement"].values[i, j] if part == "measurement"
                else ds["done_figure"].values[i])


def _stamp(ds, command: Sequence[str] | str) -> None:
    from .provenance import provenance
    from .report_cache import code_version

    ds.attrs["code_version"] = code_version()
    ds.attrs["provenance"] = json.dumps(provenance(seed=int(json.loads(ds.attrs["settings"])
                                                               ["seed"]), command=command),
                                        sort_keys=True)


def compute(p: Protocol, part: Optional[str] = None):
    """The experiment in memory, serially (``part``: "measurement" or "figure" only; None:
    both): what a quick build uses, and the reference a stored file must reproduce."""
    ds = _empty(p)
    for unit in p.units():
        if part is None or unit[0] == part:
            _record(ds, unit, _unit(p, unit)[0])
    return ds


def _save(ds, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    ds.to_netcdf(tmp, engine="scipy")
    os.replace(tmp, path)


def _read(path: Path):
    import xarray as xr

    try:
        return xr.load_dataset(path, engine="scipy")
    except Exception as problem:  # noqa: BLE001 - any reader error is a damaged file here
        raise InputError(f"{path} is not a readable netCDF file "
                         f"({' '.join(str(problem).split())[:160]}): `{RERUN_COMMAND}` "
                         "computes it again") from None


def run_experiment(p: Protocol, path: Union[str, Path] = STORED_PATH, *,
                   executor: Optional[Executor] = None, progress: Optional[Progress] = None,
                   command: Sequence[str] | str = RERUN_COMMAND, max_units: Optional[int] = None):
    """Compute the experiment into ``path`` (rewritten atomically after every unit) and
    return the dataset. A file there with the same settings and units still to do is
    continued (an interrupted rerun loses only the units in flight); any other file is
    recomputed from scratch. ``executor`` (None: serially here) runs the units;
    ``max_units`` stops after that many (as an interruption would)."""
    path = Path(path)
    ds = None
    if path.is_file():
        try:
            ds = _read(path)
        except InputError:
            ds = None
        if ds is not None and (json.loads(ds.attrs.get("settings", "{}")) != p.settings()
                               or _complete(ds)):
            ds = None
    ds = _empty(p) if ds is None else ds
    _stamp(ds, command)
    _save(ds, path)  # a folder that cannot be written fails before any work
    todo = [u for u in p.units() if not _done(ds, u)]
    if max_units is not None:
        todo = todo[:max_units]
    total = int(ds["done_measurement"].size + ds["done_figure"].size)
    seconds = float(ds.attrs.get("seconds", 0.0))

    def finish(unit: tuple[str, int, int], values: Sequence[float], cpu: float) -> None:
        nonlocal seconds
        _record(ds, unit, values)
        seconds += cpu
        ds.attrs["seconds"] = round(seconds, 2)
        _save(ds, path)
        if progress is not None:
            progress(int(ds["done_measurement"].sum() + ds["done_figure"].sum()), total,
                     seconds)

    if executor is None:
        for unit in todo:
            finish(unit, *_unit(p, unit))
        return ds
    futures: dict[Future, tuple[str, int, int]] = {executor.submit(_unit, p, u): u
                                                   for u in todo}
    for future in as_completed(futures):
        finish(futures[future], *future.result())
    return ds


def _complete(ds) -> bool:
    return bool(ds["done_measurement"].all() and ds["done_figure"].all())


def load_stored(path: Union[str, Path], p: Protocol):
    """The stored experiment at ``path`` made with protocol ``p`` and complete, else one
    :class:`InputError` line saying what is wrong and the command that fixes it."""
    path = Path(path)
    fix = f"`{RERUN_COMMAND}`" + ("" if p.seed == 0 else f" --seed {p.seed}")
    if not path.is_file():
        raise InputError(f"no stored soft-thresholding experiment at {path}: {fix} computes it "
                         "(about 4 minutes of CPU)")
    ds = _read(path)
    missing = [name for name in (*_MEASURED, *_FIGURE) if name not in ds]
    if missing:
        raise InputError(f"{path} holds no {missing[0]!r} (stored by an earlier version): "
                         f"{fix} recomputes it")
    try:
        stored = json.loads(ds.attrs["settings"])
    except (KeyError, ValueError):
        raise InputError(f"{path} records no settings: {fix} computes it again") from None
    wanted = p.settings()
    differ = [k for k in wanted if stored.get(k) != wanted[k]]
    if differ:
        k = differ[0]
        raise InputError(f"{path} was computed with {k} = {stored.get(k)!r}, the report needs "
                         f"{wanted[k]!r}: {fix} recomputes it")
    if not _complete(ds):
        done = int(ds["done_measurement"].sum() + ds["done_figure"].sum())
        total = int(ds["done_measurement"].size + ds["done_figure"].size)
        raise InputError(f"{path} is incomplete ({done} of {total} units): {fix} continues it")
    return ds


def check_stored(*, quick: bool, seed: int, path: Union[str, Path, None] = None) -> None:
    """Fail with one line, before any work, when a paper-size report cannot read the stored
    experiment (quick builds compute theirs)."""
    if not quick:
        load_stored(STORED_PATH if path is None else path, Protocol.for_report(quick=False,
                                                                              seed=seed))
        check_stored_path(seed)


def check_stored_path(seed: int, path: Union[str, Path] = TRANSFER_PATH_FILE) -> None:
    """Fail with one line when the stored path off the paper's sizes and the scan over alpha
    (:func:`store_transfer_path`) are missing or were made with other settings: without them
    a paper-size report would silently lose line 271's and line 903's sizes and notes."""
    fix = f"`{RERUN_COMMAND}`" + ("" if seed == 0 else f" --seed {seed}")
    try:
        settings = json.loads(Path(path).read_text()).get("settings", {})
    except (OSError, ValueError):
        raise InputError(f"no readable soft-thresholding path at {path}: {fix} computes "
                         "it") from None
    wanted = {"seed": int(seed), "sizes": [list(x) for x in TRANSFER_PATH],
              "samples": TRANSFER_PATH_SAMPLES, "alpha_scan": list(ALPHA_SCAN)}
    differ = [k for k in wanted if settings.get(k) != wanted[k]]
    if differ:
        raise InputError(f"{path} was computed with {differ[0]} = {settings.get(differ[0])!r}, "
                         f"the report needs {wanted[differ[0]]!r}: {fix} recomputes it")


def stored_digest(*, quick: bool, path: Union[str, Path, None] = None) -> str:
    """What the report's keyed store keys the readers' pieces by: the stored files' SHA-256
    (the experiment and :data:`TRANSFER_PATH_FILE`: a recomputed file is a new input), or
    "computed" for a quick build."""
    if quick:
        return "computed"
    digest = hashlib.sha256()
    for where in (Path(STORED_PATH if path is None else path), TRANSFER_PATH_FILE):
        try:
            digest.update(where.read_bytes())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def report_data(*, quick: bool, seed: int, part: str, config: Any = None,
                path: Union[str, Path, None] = None):
    """The experiment a build reads: at the paper's protocol :data:`STORED_PATH`
    (:func:`load_stored`); at any other (quick builds, a ``config`` of other sizes) ``part``
    computed in process."""
    p = Protocol.for_report(quick=quick, seed=seed, config=config)
    if quick or p != Protocol.for_report(quick=False, seed=seed):
        return compute(p, part)  # part None: both
    return load_stored(STORED_PATH if path is None else path, p)


def measured_draws(ds, claim_id: str) -> list[np.ndarray]:
    """The draws of measurement ``claim_id`` at each size (the quantity its sampler returns:
    the retention gap to alpha = 1, the retention or the transfer)."""
    if claim_id == "soft_threshold.alpha_independence":
        values = ds["retention"].values - ds["retention_linear"].values
    elif claim_id == "soft_threshold.retention_with_diagonal":
        values = ds["retention"].values
    elif claim_id == "soft_threshold.transfer_with_diagonal":
        values = ds["transfer"].values
    elif claim_id == "soft_threshold.learning_preserved":
        values = ds["learned"].values
    else:
        raise ValueError(f"the soft-thresholding experiment does not store {claim_id!r}")
    return [np.asarray(row, dtype=float) for row in values]


def figure_estimates(ds, points: Sequence[dict[str, float]]):
    """Fig. 3D's :class:`tasksim.reports.figures_numerics.PointEstimates` (one seed per point)
    from the experiment; ``points`` must be the stored ones, in order."""
    from .figures_numerics import PointEstimates

    stored = list(zip(ds["rho_a"].values, ds["rho_b"].values, ds["alpha"].values))
    asked = [(p["rho_a"], p["rho_b"], p["alpha"]) for p in points]
    if len(stored) != len(asked) or not all(
            math.isclose(float(x), float(y), abs_tol=1e-12)
            for s, a in zip(stored, asked) for x, y in zip(s, a)):
        raise InputError("the stored soft-thresholding experiment holds other points than "
                         f"Fig. 3D asks for: `{RERUN_COMMAND}` recomputes it")
    return PointEstimates(tuple(dict(p) for p in points),
                          {name: ds[name].values.reshape(-1, 1).astype(float)
                           for name in _FIGURE})


def training_time_note(ds, p: Protocol) -> str:
    """How the measured alpha dependence of the retention depends on training time, from
    Fig. 3D's points: the largest deviation over alpha of the prior-averaged retention from
    the printed (vanilla, alpha-independent) value, by the paper's 5,000-step protocol and at
    its gradient-flow limit (the numbers Fig. 3D's caption gives)."""
    from tasksim.derivations.symbols import rho_a, rho_b

    from . import figures_theory as theory
    from .figures_numerics import deviation

    points = p.figure_points()
    a = np.array([q["rho_a"] for q in points])
    b = np.array([q["rho_b"] for q in points])
    alphas = np.array(p.figure_alphas)
    n = len(points) // len(alphas)
    paper = float(theory.curve("vanilla.retention", (rho_a, rho_b))(a[:n], b[:n]).mean())
    found = {}
    for method in ("gd", "exact"):
        means = ds[f"retention_{method}"].values.reshape(len(alphas), n).mean(axis=1)
        d = deviation(means, np.full(len(alphas), paper))
        found[method] = (d.max_abs, float(alphas[d.where]))
    (gd, at_gd), (flow, at_flow) = found["gd"], found["exact"]
    return (f"The effect depends on training time (Fig. 3D: Nx = {p.figure_nx}, Ns = "
            f"{p.figure_ns}, retention averaged over the prior): by the paper's protocol (5,000 "
            f"steps, eta = 0.01) the measured retention deviates from the printed value by at "
            f"most {gd:.3g} (at alpha = {at_gd:g}), at its gradient-flow limit by {flow:.3g} (at "
            f"alpha = {at_flow:g}); the measurement above is the gradient-flow limit, the "
            "long-training end.")



TRANSFER_PATH = ((1000, 30), (2000, 60), (1000, 10), (2000, 10), (4000, 10), (1000, 20),
                 (2250, 30), (4000, 40), (4000, 30))
"""Sizes off the paper's Nx = 100 Ns, on the paths of :data:`PATHS`, for line 271's transfer
clause (its derivation drops the off-diagonal Hermite orders >= 3 of E[phi phi^T] and takes
the row norms to be 1) and line 903's error on the task just learned. Each size's draws are
seeded by its index here, so sizes are only ever appended."""
TRANSFER_PATH_SAMPLES = 3

PATHS: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("at fixed Ns = 10", ((1000, 10), (2000, 10), (4000, 10))),
    ("at fixed Ns = 30", ((1000, 30), (2250, 30), (4000, 30))),
    ("along Nx/Ns^2 = 2.5", ((1000, 20), (2250, 30), (4000, 40))),
    ("along Nx = 33 Ns", ((1000, 30), (2000, 60))),
)
"""The paths the notes read the stored sizes along: Nx growing at fixed Ns (the paper's
Ns << Nx), Ns growing at a fixed Nx/Ns^2, and both (Nx/Ns^2 falling)."""


def transfer_path_unit(seed: int, index: int, nx: int, ns: int, samples: int,
                       alpha: float = 0.3, tag: int = 271) -> dict[str, Any]:
    """One size of :func:`transfer_path` (or one alpha of :func:`alpha_scan`): the transfer
    at ``alpha`` minus the transfer at alpha = 1 on the same tasks ("gaps"), the retention
    ("retention") and eps_2[W_2] ("learned") at ``alpha``, per task draw, (rho_a, rho_b) =
    (0.5, 0.5), exact soft-thresholding solver (gradient-flow limit); the draws seeded by
    (seed, tag, index) alone, so that units of one index share their tasks."""
    from .figures_blas import single_threaded_blas
    from .measurements import soft_threshold_errors

    entropies = np.random.SeedSequence([seed, tag, index]).generate_state(samples, np.uint64)
    gaps, retention, learned = [], [], []
    with single_threaded_blas():
        for e in entropies:
            transfer, kept, error = soft_threshold_errors(nx, ns, alpha, (0.5, 0.5), int(e))
            gaps.append(transfer - soft_threshold_errors(nx, ns, 1.0, (0.5, 0.5), int(e))[0])
            retention.append(kept)
            learned.append(error)
    return {"nx": nx, "ns": ns, "alpha": alpha, "gaps": [float(g) for g in gaps],
            "retention": [float(x) for x in retention], "learned": [float(x) for x in learned]}


def alpha_scan(seed: int, samples: int = TRANSFER_PATH_SAMPLES,
               executor: Optional[Executor] = None) -> list[dict[str, Any]]:
    """:func:`transfer_path_unit` at Nx = 3000, Ns = 30 for each alpha of :data:`ALPHA_SCAN`,
    on the same task draws (one index), in that order."""
    units = [(seed, 0, 3000, 30, samples, a, 903) for a in ALPHA_SCAN]
    if executor is None:
        return [transfer_path_unit(*u) for u in units]
    return [f.result() for f in [executor.submit(transfer_path_unit, *u) for u in units]]


def transfer_path(seed: int, sizes: Sequence[tuple[int, int]] = TRANSFER_PATH,
                  samples: int = TRANSFER_PATH_SAMPLES, executor: Optional[Executor] = None
                  ) -> list[dict[str, Any]]:
    """:func:`transfer_path_unit` at each of ``sizes`` (on ``executor`` where given), in their
    order: one row {"nx", "ns", "gaps", "retention", "learned"} per size."""
    units = [(seed, index, nx, ns, samples) for index, (nx, ns) in enumerate(sizes)]
    if executor is None:
        return [transfer_path_unit(*u) for u in units]
    futures = [executor.submit(transfer_path_unit, *u) for u in units]
    return [f.result() for f in futures]


def store_transfer_path(seed: int, command: Sequence[str] | str,
                        path: Union[str, Path] = TRANSFER_PATH_FILE,
                        executor: Optional[Executor] = None) -> None:
    """:func:`transfer_path` at the paper's protocol into ``path`` (JSON), with its settings
    and provenance."""
    from .provenance import provenance

    record = {"settings": {"seed": int(seed), "sizes": [list(x) for x in TRANSFER_PATH],
                           "samples": TRANSFER_PATH_SAMPLES, "alpha": 0.3,
                           "rho_a": 0.5, "rho_b": 0.5, "alpha_scan": list(ALPHA_SCAN),
                           "alpha_scan_size": [3000, 30]},
              "rows": transfer_path(seed, executor=executor),
              "alpha_scan": alpha_scan(seed, executor=executor),
              "provenance": provenance(seed=int(seed), command=command)}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _stored_path_rows(seed: int, path: Union[str, Path]) -> Optional[dict[tuple[int, int],
                                                                          dict[str, Any]]]:
    """The stored rows of :func:`store_transfer_path` by (Nx, Ns), or None when none are
    stored for ``seed``."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    if record.get("settings", {}).get("seed") != seed:
        return None
    return {(row["nx"], row["ns"]): row for row in record["rows"]}


def _trend(first: tuple[float, float], last: tuple[float, float]) -> str:
    """How a magnitude moves from the first size of a path to its last, (mean, se) each:
    beyond 3 combined standard errors it shrinks or grows, else it stays within them."""
    gap = abs(last[0]) - abs(first[0])
    if abs(gap) <= 3 * math.hypot(first[1], last[1]):
        return "stays within its errors"
    return "shrinks" if gap < 0 else "grows"


def _path_trend(stats: Sequence[tuple[float, float]]) -> str:
    """How a magnitude moves along a path of (mean, se): from its first size to its last
    (:func:`_trend`), said only where no step between neighbours moves the other way beyond
    its errors; else "moves both ways"."""
    overall = _trend(stats[0], stats[-1])
    steps = {_trend(a, b) for a, b in zip(stats, stats[1:])}
    against = {"shrinks": "grows", "grows": "shrinks"}.get(overall)
    return "moves both ways" if against in steps else overall


def path_words(rows: dict[tuple[int, int], dict[str, Any]], key: str,
               target: Optional[float] = None) -> str:
    """The stored draws ``key`` along each path of :data:`PATHS` whose sizes are all stored:
    mean +- standard error per size and how the magnitude moves along the path (with
    ``target``: whether the mean approaches it or moves away).

    >>> rows = {(1000, 10): {"gaps": [-0.27, -0.28, -0.27]},
    ...         (2000, 10): {"gaps": [-0.28, -0.27, -0.28]},
    ...         (4000, 10): {"gaps": [-0.21, -0.20, -0.22]}}
    >>> path_words(rows, "gaps")
    'at fixed Ns = 10: -0.273 +- 0.003 (Nx = 1000), -0.277 +- 0.003 (Nx = 2000), -0.21 +- 0.006 (Nx = 4000): shrinks'
    """
    out = []
    for name, sizes in PATHS:
        if not all(size in rows and key in rows[size] for size in sizes):
            continue
        stats = []
        for nx, ns in sizes:
            values = np.asarray(rows[(nx, ns)][key], dtype=float)
            stats.append((float(values.mean()),
                          float(values.std(ddof=1) / math.sqrt(len(values)))))
        varying = "Nx" if "fixed Ns" in name else "Ns"
        at = [f"{m:+.3g} +- {se:.1g} ({varying} = {nx if varying == 'Nx' else ns})"
              for (m, se), (nx, ns) in zip(stats, sizes)]
        centred = stats if target is None else [(m - target, se) for m, se in stats]
        trend = _path_trend(centred)
        if target is not None:
            trend = {"shrinks": f"moves toward {target:g}",
                     "grows": f"moves away from {target:g}"}.get(trend, trend)
            trend += f" (ends {abs(centred[-1][0]):.2g} from it)"
        out.append(f"{name}: {', '.join(at)}: {trend}")
    return "; ".join(out)


def transfer_path_note(seed: int, path: Union[str, Path] = TRANSFER_PATH_FILE) -> str:
    """How the alpha dependence of the transfer moves along the paths of :data:`PATHS`, from
    the stored draws (:func:`store_transfer_path`); empty when none are stored for ``seed``."""
    rows = _stored_path_rows(seed, path)
    if not rows:
        return ""
    return (f"Off the paper's sizes, the transfer at alpha = 0.3 minus the transfer at "
            f"alpha = 1 on the same tasks ({TRANSFER_PATH_SAMPLES} task draws per size, exact "
            f"solver; stored in results/{Path(path).name}), {path_words(rows, 'gaps')}.")


def retention_path_note(seed: int, path: Union[str, Path] = TRANSFER_PATH_FILE) -> str:
    """How line 271's retention at alpha = 0.3 moves along the paths of :data:`PATHS` (the
    same stored solves as :func:`transfer_path_note`), against the corrected and the printed
    values; empty when none are stored."""
    from .measurements import claim_value

    rows = _stored_path_rows(seed, path)
    if not rows or not path_words(rows, "retention"):
        return ""
    corrected, printed = (claim_value("soft_threshold.retention_with_diagonal", which,
                                      rho_a=0.5, rho_b=0.5) for which in ("derived", "printed"))
    return (f"Off the paper's sizes, the retention at alpha = 0.3 (corrected {corrected:.4g}, "
            f"printed {printed:.4g}; {TRANSFER_PATH_SAMPLES} task draws per size, exact solver; "
            f"stored in results/{Path(path).name}), "
            f"{path_words(rows, 'retention', target=corrected)}.")


def learned_path_note(seed: int, path: Union[str, Path] = TRANSFER_PATH_FILE) -> str:
    """How line 903's error on the task just learned moves along the paths of :data:`PATHS`
    (the same stored solves as :func:`transfer_path_note`); empty when none are stored."""
    rows = _stored_path_rows(seed, path)
    if not rows or not path_words(rows, "learned"):
        return ""
    return (f"Off the paper's sizes, eps_2[W_2] at alpha = 0.3 ({TRANSFER_PATH_SAMPLES} task "
            f"draws per size, exact solver; stored in results/{Path(path).name}), "
            f"{path_words(rows, 'learned')}.")
