"""The resumable store of a finite-size probe: finished chunks, one JSON line each.

``tasksim probe`` appends every chunk it finishes (:class:`tasksim.solvers.probe.ChunkResult`)
to ``<out>/.tasksim-probe/<stem>.jsonl`` as one line, written and flushed at once. A rerun
with the same arguments reads the file back and hands the chunks to
:func:`tasksim.solvers.probe.probe` as already done: an interrupted probe (Ctrl-C, or killed)
loses nothing but the chunks that were running. A line cut short by a kill is ignored.

The file opens with a header line, the probe's identity (model, parameters, generator, seed,
chunk size, format, and the code's: tasksim's version and commit); chunks are only reused
under the same identity, so never after the code changed commit, and a chunk only when its
range of samples is the same (a rerun with more seeds reuses every full chunk).
Floating-point numbers are written with ``repr`` precision, so stored and recomputed chunks
are the same numbers.

Examples
--------
>>> import tempfile
>>> from tasksim.solvers.probe import Moments, ChunkResult, ProbeSpec
>>> spec = ProbeSpec("vanilla", rho_a=0.5, rho_b=0.5, ns=2)
>>> with tempfile.TemporaryDirectory() as folder:
...     store = ProbeStore(Path(folder), spec, seed=0)
...     store.add(ChunkResult(30, 0, Moments(2, 0.1, 0.01), Moments(2, 0.9, 0.02)))
...     store.close()
...     sorted(ProbeStore(Path(folder), spec, seed=0).done(seeds=2))
[(30, 0)]
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Optional, TextIO

import tasksim
from tasksim.solvers.probe import CHUNK, ChunkResult, Moments, ProbeSpec, chunks

from .provenance import checkout_commit

__all__ = ["FORMAT", "STORE_FOLDER", "probe_stem", "code_identity", "ProbeStore"]

FORMAT = 1
"""Version of the line format; a store of another version is set aside, not reused."""
STORE_FOLDER = ".tasksim-probe"


def _number(x: Optional[float]) -> str:
    return "none" if x is None else f"{x:g}"


def probe_stem(spec: ProbeSpec, seed: int) -> str:
    """A file name stem that says which probe it is.

    >>> probe_stem(ProbeSpec("random-gating", rho_a=0.8, rho_b=0.5, alpha=0.5), seed=0)
    'random-gating_rho_a0.8_rho_b0.5_alpha0.5_ns30_ny10_gaussian_seed0'
    """
    parts = [spec.model, f"rho_a{spec.rho_a:g}", f"rho_b{spec.rho_b:g}"]
    parts += [f"{name}{_number(getattr(spec, name))}" for name in ("alpha", "gamma", "lam")
              if getattr(spec, name) is not None]
    parts += [f"ns{spec.ns}", f"ny{spec.ny}", spec.generator, f"seed{seed}"]
    return "_".join(parts)


def code_identity() -> dict[str, Any]:
    """The code that computes a chunk: tasksim's version and commit (provenance's), so that a
    chunk computed by older code is never reused after a fix."""
    commit, _ = checkout_commit()
    return {"tasksim": tasksim.__version__, "commit": commit}


def _identity(spec: ProbeSpec, seed: int) -> dict[str, Any]:
    return {"format": FORMAT, "chunk": CHUNK, "seed": int(seed),
            "spec": dataclasses.asdict(spec), **code_identity()}


def _moments(record: dict[str, Any]) -> Moments:
    return Moments(int(record["n"]), float(record["mean"]), float(record["m2"]))


class ProbeStore:
    """The chunks of one probe under ``folder`` (module docstring). Opening it checks that
    the folder can be written (OSError otherwise) and reads what a previous run finished."""

    def __init__(self, folder: Path, spec: ProbeSpec, seed: int) -> None:
        self.folder = Path(folder) / STORE_FOLDER
        self.folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=self.folder):  # can it be written? (OSError if not)
            pass
        self.path = self.folder / f"{probe_stem(spec, seed)}.jsonl"
        self.identity = _identity(spec, seed)
        self._chunks: dict[tuple[int, int], tuple[int, ChunkResult]] = {}
        self._file: Optional[TextIO] = None
        self._read()

    def _read(self) -> None:
        if not self.path.exists():
            return
        lines = self.path.read_text().splitlines()
        try:
            header = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            header = None
        if header != self.identity:  # another probe, or another format: keep it aside
            os.replace(self.path, self.path.with_suffix(".jsonl.old"))
            return
        for line in lines[1:]:
            try:
                record = json.loads(line)
                result = ChunkResult(int(record["nx"]), int(record["index"]),
                                     _moments(record["transfer"]),
                                     _moments(record["retention"]))
                self._chunks[(result.nx, result.index)] = (int(record["stop"]), result)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a line cut short when the run was killed

    def done(self, seeds: int) -> dict[tuple[int, int], ChunkResult]:
        """The stored chunks that a probe of ``seeds`` samples per Nx can reuse."""
        stops = {index: stop for index, _, stop in chunks(seeds)}
        return {key: result for key, (stop, result) in self._chunks.items()
                if stops.get(key[1]) == stop}

    def add(self, result: ChunkResult) -> None:
        """Append one finished chunk, flushed to disk."""
        stop = result.index * CHUNK + result.transfer.n
        if self._file is None:
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            cut = not fresh and not self.path.read_bytes().endswith(b"\n")
            self._file = self.path.open("a")
            if fresh:
                self._file.write(json.dumps(self.identity, sort_keys=True) + "\n")
            elif cut:  # the last line was cut short by a kill: end it before appending
                self._file.write("\n")
        record = {"nx": result.nx, "index": result.index, "stop": int(stop)}
        for quantity in ("transfer", "retention"):
            m = getattr(result, quantity)
            record[quantity] = {"n": m.n, "mean": m.mean, "m2": m.m2}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._chunks[(result.nx, result.index)] = (int(stop), result)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __len__(self) -> int:
        return len(self._chunks)
