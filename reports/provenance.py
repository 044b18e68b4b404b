"""Where an output came from: the record every file and every ``--json`` output of tasksim
carries.

:func:`provenance` returns a small dict,

``{"tasksim": version, "commit": sha or None, "dirty": bool or None, "numpy": ..., "scipy":
..., "sympy": ..., "blas": [{"library", "version", "threads"}], "seed": root seed or None,
"command": "tasksim report ..."}``,

with nothing in it that changes between two runs of the same command on the same checkout
(no time, no host name, no file path), so that outputs stay byte-identical on a rerun.

``tasksim`` is the version setuptools-scm derived from git when tasksim was built or installed
(``tasksim.__version__``). ``commit`` is the checkout's ``HEAD`` when tasksim runs from a git
checkout (an editable install); ``dirty`` says whether tracked source files differ from that
commit, leaving out the files ``tasksim report`` itself writes (:data:`GENERATED`), so that
rebuilding the report does not change what the next build records. Installed from a wheel,
both are those of the commit the wheel was built from, which the build wrote into
``tasksim/_version.py``; None only for a build without git.

``blas`` lists the BLAS libraries numpy and scipy use and their thread counts at the time of
the record (:func:`tasksim.reports.figures_blas.blas_info`; the report's numerics run on one
thread, so the report records them inside that setting).

Examples
--------
>>> p = provenance(seed=3, command=["tasksim", "report", "--quick"])
>>> p["command"], p["seed"], sorted(p)[:4]
('tasksim report --quick', 3, ['blas', 'command', 'commit', 'dirty'])
>>> all(entry["threads"] >= 1 for entry in p["blas"])
True
"""
from __future__ import annotations

import functools
import re
import shlex
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import tasksim

from .figures_blas import blas_info

__all__ = ["provenance", "png_metadata", "checkout_commit", "build_commit", "GENERATED"]

GENERATED = ("reports/REPORT.md", "reports/claims.json", "reports/derivations.tex",
             "reports/index.html", "reports/build-info.json", "reports/figures")
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


def build_commit() -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) that setuptools-scm wrote into ``tasksim/_version.py`` at build time,
    or (None, None) for a build without git (or a source tree never installed)."""
    try:
        from tasksim import _version
    except ImportError:
        return None, None
    node = getattr(_version, "__commit__", None)
    dirty = getattr(_version, "__dirty__", None)
    commit = node[1:] if isinstance(node, str) and node.startswith("g") else node
    return commit or None, dirty if commit else None


@functools.lru_cache(maxsize=1)
def checkout_commit() -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) of the checkout tasksim runs from; installed from a wheel or sdist (its
    folder is not the top of a git work tree holding tasksim), those of the build
    (:func:`build_commit`)."""
    top = _git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != _CHECKOUT or not (_CHECKOUT / "src" / "tasksim").is_dir():
        return build_commit()
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ".",
                  *(f":(exclude){path}" for path in GENERATED))
    return commit, None if status is None else bool(status)


def provenance(*, seed: Optional[int], command: Union[str, Sequence[str]]) -> dict[str, Any]:
    """The provenance record of one output (module docstring): versions, commit, seed, command.

    ``command`` is the command line as a list of words (joined with shell quoting) or as one
    string.
    """
    # numpy's and scipy's BLAS loaded, so that "blas" does not depend on what ran before
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    commit, dirty = checkout_commit()
    line = command if isinstance(command, str) else shlex.join(list(command))
    return {
        "tasksim": version_of_sources(tasksim.__version__, commit),
        "commit": commit,
        "dirty": dirty,
        **{name: _installed_version(name) for name in ("numpy", "scipy", "sympy")},
        "blas": blas_info(),
        "seed": seed,
        "command": line,
    }


def version_of_sources(installed: str, commit: Optional[str]) -> str:
    """The installed version string, flagged when it names another commit than the sources':
    an editable install stamps its version (``+g<sha>``) once, at install time.

    >>> version_of_sources("0.2.1.dev420+gde881e141", "fd399b8aa")
    '0.2.1.dev420+gde881e141 (stamped at install from de881e141; the sources are fd399b8)'
    >>> version_of_sources("0.2.1.dev420+gde881e141", "de881e141ab")
    '0.2.1.dev420+gde881e141'
    """
    stamped = re.search(r"\+g([0-9a-f]{7,40})", installed)
    if commit is None or stamped is None or commit.startswith(stamped.group(1)):
        return installed
    return (f"{installed} (stamped at install from {stamped.group(1)}; the sources are "
            f"{commit[:7]})")


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
