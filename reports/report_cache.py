"""A small keyed store for the report's expensive parts (claims, measurements, figures), so a
rebuild with nothing changed takes seconds.

A key is the SHA-256 of a JSON list: the *code version* (:func:`code_version`: a digest of
every source file of the tasksim package, so any edit to the code invalidates everything) and
the parameters of the part (quick, seed, figure name, ...). The page's own code
(:data:`PAGE_ONLY`) is not part of the digest: the pages are always rebuilt from the pieces. A value is a pickle, written
atomically (a temporary file renamed into place), so an interrupted build leaves no half
entry. Reading a damaged entry counts as a miss.

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

__all__ = ["KeyedStore", "code_version", "default_cache_dir", "PAGE_ONLY"]

_PACKAGE_DIRS = ("derivations", "solvers", "reports", "src/tasksim")


def default_cache_dir() -> Path:
    """``$TASKSIM_CACHE``, else ``~/.cache/tasksim/report``."""
    env = os.environ.get("TASKSIM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tasksim" / "report"


PAGE_ONLY = ("reports/report.py", "reports/cli.py", "reports/summary.py", "reports/html/")
"""Sources that only arrange the pieces into pages (no piece imports them): editing them
rebuilds the pages from the stored pieces instead of recomputing the pieces."""


@lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of the tasksim package's sources (every ``.py`` and the paper, by path relative
    to the package) but :data:`PAGE_ONLY`: what the stored pieces depend on."""
    import tasksim
    from tasksim import derivations, reports, solvers

    roots = [Path(m.__file__).parent for m in (tasksim, derivations, solvers, reports)]
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            name = f"{root.name}/{path.relative_to(root).as_posix()}"
            if path.suffix != ".py" or "__pycache__" in path.parts or not path.is_file() or \
                    name.startswith(PAGE_ONLY):
                continue
            digest.update(f"{name}\n".encode())
            digest.update(path.read_bytes())
    try:
        from .paper import default_paper_path
        digest.update(default_paper_path().read_bytes())
    except (OSError, ImportError):
        pass
    return digest.hexdigest()


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
