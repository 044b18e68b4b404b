"""A small keyed store for the report's expensive parts (claims, measurements, figures), so a
rebuild with nothing changed takes seconds.

A key is the SHA-256 of a JSON list: the *pieces' version* (:func:`pieces_version`: a digest
of every source and data file of the tasksim package, so any edit to the code invalidates
everything, and of the stored experiments in ``results/`` that pieces read) and the
parameters of the part (quick, seed, figure name, ...). The page's own code
(:data:`PAGE_ONLY`) is not part of it: editing it rebuilds the pages from the stored pieces.
The assembled outputs are stored too, keyed by both versions (:func:`page_version`) and the
build's provenance, so that a rebuild with nothing changed only writes them. A value is a
pickle, written atomically (a temporary file renamed into place), so an interrupted build
leaves no half entry. Reading a damaged entry counts as a miss.

The store lives in ``$TASKSIM_CACHE`` or ``~/.cache/tasksim/report``; ``tasksim report
--no-cache`` bypasses it. Cached or not, the outputs are the same bytes: what is stored is the
outputs themselves (or the data they are written from), never a timing.

Examples
--------
>>> import tempfile
>>> store = KeyedStore(tempfile.mkdtemp())
>>> store.get(["a", 1]) is None
True
>>> store.put(["a", 1], {"x": 2}); store.get(["a", 1])
{'x': 2}
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

__all__ = ["KeyedStore", "code_version", "page_version", "results_digest", "pieces_version",
           "default_cache_dir", "PAGE_ONLY", "RESULTS_DIR"]

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
"""The checkout's ``results/`` folder (DESIGN.md: stored results of long experiments)."""

_SOURCE_SUFFIXES = (".py", ".csv")
"""What the code version reads beyond the paper: the sources and their checked-in data
(``reports/data/missed_statements.csv``); not the report's outputs that sit in reports/."""


def default_cache_dir() -> Path:
    """``$TASKSIM_CACHE``, else ``~/.cache/tasksim/report``."""
    env = os.environ.get("TASKSIM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tasksim" / "report"


PAGE_ONLY = ("reports/report.py", "reports/cli.py", "reports/summary.py", "reports/html/")
"""Sources that only arrange the pieces into pages (no piece imports them): editing them
rebuilds the pages from the stored pieces instead of recomputing the pieces."""


def _package_files(page_only: bool, suffixes: tuple[str, ...]):
    """(name relative to the package, path) of the package's files with one of ``suffixes``,
    in a fixed order: those of :data:`PAGE_ONLY` (``page_only``) or all the others."""
    import tasksim
    from tasksim import derivations, reports, solvers

    for root in [Path(m.__file__).parent for m in (tasksim, derivations, solvers, reports)]:
        for path in sorted(root.rglob("*")):
            name = f"{root.name}/{path.relative_to(root).as_posix()}"
            if path.suffix in suffixes and "__pycache__" not in path.parts and \
                    path.is_file() and name.startswith(PAGE_ONLY) == page_only:
                yield name, path


@lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of the tasksim package's sources and data (every ``.py``, the checked-in CSV
    and the paper, by path relative to the package) but :data:`PAGE_ONLY`: what the stored
    pieces depend on."""
    digest = hashlib.sha256()
    for name, path in _package_files(False, _SOURCE_SUFFIXES):
        digest.update(f"{name}\n".encode())
        digest.update(path.read_bytes())
    try:
        from .paper import default_paper_path
        digest.update(default_paper_path().read_bytes())
    except (OSError, ImportError):
        pass
    return digest.hexdigest()


@lru_cache(maxsize=1)
def page_version() -> str:
    """SHA-256 of :data:`PAGE_ONLY`: the code and templates that arrange pieces into pages."""
    digest = hashlib.sha256()
    for name, path in _package_files(True, (".py", ".j2", ".js", ".css")):
        digest.update(f"{name}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def results_digest(folder: Optional[Path] = None) -> str:
    """SHA-256 of the stored experiments (every file under ``results/`` but its ``cache/`` of
    first tasks, by relative path): the network's grids and the soft-thresholding numerics
    that figures, measurements and verdicts read. "none" where there is no such folder."""
    root = RESULTS_DIR if folder is None else Path(folder)
    if not root.is_dir():
        return "none"
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and relative.parts[0] != "cache":
            digest.update(f"{relative.as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def pieces_version() -> str:
    """What every stored piece is keyed by: the code version and the stored experiments."""
    return hashlib.sha256(f"{code_version()} {results_digest()}".encode()).hexdigest()


class KeyedStore:
    """Pickled values under keys (lists of JSON values), in one folder."""

    def __init__(self, folder: os.PathLike | str) -> None:
        self.folder = Path(folder)

    def _path(self, key: list[Any]) -> Path:
        text = json.dumps(key, sort_keys=True, default=str)
        name = hashlib.sha256(text.encode()).hexdigest()
        return self.folder / name[:2] / f"{name}.pickle"

    def get(self, key: list[Any]) -> Optional[Any]:
        """The value stored under ``key``, or None (missing or unreadable)."""
        try:
            with open(self._path(key), "rb") as f:
                return pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError,
                TypeError, ValueError):
            return None

    def put(self, key: list[Any], value: Any) -> None:
        """Store ``value`` under ``key`` (atomically); a store that cannot be written is
        skipped silently (the cache is an optimisation, never a requirement)."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
            with os.fdopen(handle, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            try:
                os.unlink(temporary)  # type: ignore[possibly-undefined]
            except (OSError, NameError):
                pass
