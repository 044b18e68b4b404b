"""``tasksim probe``: measure finite-size corrections and set them against the derived theory.

:func:`run_probe` does, in order (each step fails in one line before the next starts):

1. validate the request (:func:`tasksim.solvers.probe.check_probe`: sizes, seeds, parameters,
   memory);
2. evaluate the theory at the request's parameters (:mod:`tasksim.reports.probe_theory`);
3. open the store of finished chunks under ``--out`` (:mod:`tasksim.reports.probe_store`:
   an unwritable folder is refused here, before any work);
4. open the executor (``--workers``, ``--dask``: :func:`tasksim.solvers.executors.open_executor`)
   and measure (:func:`tasksim.solvers.probe.probe`), storing every chunk as it finishes;
5. write ``<stem>.csv`` and ``<stem>.png`` under ``--out`` (each written to a temporary file
   and moved into place) and return the table and the ``--json`` record, both with the
   provenance (:func:`tasksim.reports.provenance.provenance`).

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     outcome = run_probe(ProbeRequest(model="vanilla", rho_a=1.0, rho_b=1.0, ns=3,
...                                      nx=(30, 300), seeds=4, out=Path(folder)))
...     outcome.record["transfer"]["rows"][1]["mean"], outcome.csv.exists()
(1.0, True)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from tasksim.solvers.executors import open_executor
from tasksim.solvers.probe import ProbeSpec, check_probe, probe
from tasksim.solvers.sweep import Progress

from .figures_plot import save_png
from .probe_output import QuantityResult, csv_text, format_table, probe_figure, record, summarize
from .probe_store import ProbeStore, probe_stem
from .probe_theory import probe_theory
from .provenance import png_metadata, provenance

__all__ = ["ProbeRequest", "ProbeOutcome", "run_probe"]

DPI = 110


@dataclass(frozen=True)
class ProbeRequest:
    """Everything ``tasksim probe`` was asked (the CLI's arguments)."""

    model: str
    rho_a: float
    rho_b: float
    alpha: Optional[float] = None
    gamma: Optional[float] = None
    lam: Optional[float] = None
    ns: int = 30
    ny: int = 10
    nx: tuple[int, ...] = (300, 1000, 3000, 10000, 30000, 100000)
    seeds: int = 1000
    seed: int = 0
    generator: str = "gaussian"
    workers: int = 1
    dask: Optional[str] = None
    out: Path = Path("probe")
    command: str = "tasksim probe"

    @property
    def spec(self) -> ProbeSpec:
        return ProbeSpec(self.model, rho_a=self.rho_a, rho_b=self.rho_b, alpha=self.alpha,
                         gamma=self.gamma, lam=self.lam, ns=self.ns, ny=self.ny,
                         generator=self.generator)


@dataclass(frozen=True)
class ProbeOutcome:
    """What a probe produced: the ``--json`` record, the printed table, the files written."""

    record: dict[str, Any]
    table: str
    csv: Path
    png: Path
    results: dict[str, QuantityResult]


def _replace_atomically(path: Path, write: Any) -> Path:
    """Write through a temporary file in the same folder, then move it into place (a reader
    never sees half a file; the permissions are the user's default)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
    return path


def run_probe(request: ProbeRequest, progress: Optional[Progress] = None) -> ProbeOutcome:
    """Measure, compare, write (module docstring). ValueError for bad input, OSError for an
    output that cannot be written; KeyboardInterrupt leaves the finished chunks stored."""
    spec = request.spec
    nxs = check_probe(spec, request.nx, seeds=request.seeds, seed=request.seed,
                      workers=request.workers)
    theory = probe_theory(spec)
    store = ProbeStore(request.out, spec, request.seed)
    try:
        with open_executor(workers=request.workers, dask=request.dask) as executor:
            points = probe(spec, nxs, seeds=request.seeds, seed=request.seed,
                           executor=executor, workers=request.workers, progress=progress,
                           done=store.done(request.seeds), on_chunk=store.add)
    finally:
        store.close()
    results = summarize(spec, points, theory)
    origin = provenance(seed=request.seed, command=request.command)
    stem = probe_stem(spec, request.seed)
    out = Path(request.out)
    csv_path = _replace_atomically(out / f"{stem}.csv",
                                   lambda p: p.write_text(csv_text(results, origin)))
    png_path = _replace_atomically(
        out / f"{stem}.png",
        lambda p: save_png(probe_figure(spec, results), p, dpi=DPI,
                           metadata=png_metadata(origin), data=False))
    document = record(spec, nxs, request.seeds, request.seed, results)
    document["files"] = {"csv": str(csv_path), "png": str(png_path)}
    document["provenance"] = origin
    return ProbeOutcome(document, format_table(spec, request.seeds, request.seed, results),
                        csv_path, png_path, results)
