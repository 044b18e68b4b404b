"""Where an output came from: the record every file and every ``--json`` output of tasksim
carries.

:func:`provenance` returns a small dict,

``{"tasksim": version, "commit": sha or None, "dirty": bool or None, "numpy": ..., "scipy":
..., "sympy": ..., "seed": root seed or None, "command": "tasksim report ..."}``,

with nothing in it that changes between two runs of the same command on the same checkout
(no time, no host name), so that outputs stay byte-identical on a rerun. ``commit`` is the
checkout's ``HEAD`` when tasksim runs from a git checkout (an editable install), else None;
``dirty`` says whether tracked source files differ from that commit, leaving out the files
``tasksim report`` itself writes (:data:`GENERATED`), so that rebuilding the report does not
change what the next build records.

Examples
--------
>>> p = provenance(seed=3, command=["tasksim", "report", "--quick"])
>>> p["command"], p["seed"], sorted(p)[:3]
('tasksim report --quick', 3, ['command', 'commit', 'dirty'])
"""
from __future__ import annotations

import functools
import shlex
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import tasksim

__all__ = ["provenance", "png_metadata", "checkout_commit", "GENERATED"]

GENERATED = ("reports/REPORT.md", "reports/claims.json", "reports/derivations.tex",
             "reports/figures")
"""The report's outputs inside a checkout: not counted when deciding whether it is dirty."""

_CHECKOUT = Path(__file__).resolve().parent.parent
"""The folder above ``reports/``: the checkout's root when tasksim runs from one."""


def _git(*args: str) -> Optional[str]:
    try:
        done = subprocess.run(["git", "-C", str(_CHECKOUT), *args], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def checkout_commit() -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) of the checkout tasksim runs from, or (None, None) when it was installed
    from a wheel or sdist (its folder is not the top of a git work tree holding tasksim)."""
    top = _git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != _CHECKOUT or not (_CHECKOUT / "src" / "tasksim").is_dir():
        return None, None
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ".",
                  *(f":(exclude){path}" for path in GENERATED))
    return commit, None if status is None else bool(status)


def provenance(*, seed: Optional[int], command: Union[str, Sequence[str]]) -> dict[str, Any]:
    """The provenance record of one output (module docstring): versions, commit, seed, command.

    ``command`` is the command line as a list of words (joined with shell quoting) or as one
    string.
    """
    commit, dirty = checkout_commit()
    line = command if isinstance(command, str) else shlex.join(list(command))
    return {
        "tasksim": tasksim.__version__,
        "commit": commit,
        "dirty": dirty,
        **{name: _installed_version(name) for name in ("numpy", "scipy", "sympy")},
        "seed": seed,
        "command": line,
    }


def _installed_version(distribution: str) -> Optional[str]:
    """The installed version of a library, read without importing it."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def png_metadata(record: dict[str, Any]) -> dict[str, str]:
    """PNG text chunks for a figure: ``Software`` (tasksim and its version), ``Source`` (the
    commit) and ``Comment`` (the whole record, as ``key=value`` pairs)."""
    software = f"tasksim {record['tasksim']}"
    source = record["commit"] or "not a git checkout"
    if record.get("dirty"):
        source += " (with uncommitted changes)"
    comment = "; ".join(f"{key}={value}" for key, value in record.items())
    return {"Software": software, "Source": source, "Comment": comment}
