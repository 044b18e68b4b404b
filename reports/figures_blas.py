"""BLAS threads: how many the loaded BLAS libraries use, and one thread for a block of work.

The figure numerics and the benchmarks are many small products (Nx x 2Ns Grams, 60 x 60
solves). On a 2-core machine shared by several jobs, OpenBLAS' default of one thread per core
made them 10-35 times slower in wall time than one thread (measured: vanilla, paper sizes,
appendix generator, ~10 ms per sample with one thread against 0.2-0.4 s with two under load),
and a pool of worker processes multiplies the oversubscription. Parallelism comes from the
worker processes instead.

numpy and scipy each bundle a BLAS (OpenBLAS in their wheels; MKL, BLIS or Accelerate
elsewhere), and an environment variable such as OPENBLAS_NUM_THREADS only acts before they are
loaded. threadpoolctl (a scikit-learn dependency) finds every loaded BLAS, whichever it is and
on every platform, and sets its thread count at run time:

- :func:`blas_info` lists the loaded BLAS libraries and their thread counts (recorded in every
  provenance record, :mod:`tasksim.reports.provenance`);
- :func:`single_threaded_blas` runs a block with one BLAS thread, in this process and in the
  worker processes started inside the block (fork inherits the libraries' setting; spawn and
  forkserver workers, and dask workers started here, inherit the environment variables it sets
  for the block), and puts everything back after;
- :func:`timing_blas` is the benchmarks' rule: one thread unless the caller chose a count with
  one of :data:`THREAD_VARIABLES`.

Examples
--------
>>> with single_threaded_blas():
...     all(entry["threads"] == 1 for entry in blas_info())
True
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, ContextManager, Iterator

from tasksim.solvers.executors import THREAD_VARIABLES  # re-exported

__all__ = ["THREAD_VARIABLES", "blas_info", "blas_summary", "single_threaded_blas",
           "timing_blas"]



def blas_info() -> list[dict[str, Any]]:
    """Every BLAS library loaded in this process: ``{"library", "version", "threads"}``, one
    entry per distinct triple (numpy's and scipy's bundled copies of one OpenBLAS are one).

    No file paths: they differ between installations, and provenance stays the same on a
    rerun. Empty when nothing has loaded a BLAS yet (e.g. ``tasksim claims``, sympy only).

    >>> all(entry["threads"] >= 1 for entry in blas_info())
    True
    """
    from threadpoolctl import threadpool_info

    entries = {(str(pool.get("internal_api")), str(pool.get("version")), int(pool["num_threads"]))
               for pool in threadpool_info() if pool.get("user_api") == "blas"}
    return [{"library": library, "version": version, "threads": threads}
            for library, version, threads in sorted(entries)]


def blas_summary() -> str:
    """One line for a benchmark's header: ``openblas 0.3.27: 1 thread``, or ``none loaded``."""
    parts = [f"{e['library']} {e['version']}: {e['threads']} thread{'s' * (e['threads'] != 1)}"
             for e in blas_info()]
    return "; ".join(parts) or "none loaded"


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[list[dict[str, Any]]]:
    """Within the block every loaded BLAS uses one thread (yields :func:`blas_info`), and
    processes started in it inherit :data:`THREAD_VARIABLES` set to 1; both are restored after.

    scipy.linalg is imported first: its BLAS can be a separate library from numpy's, and one
    loaded later (e.g. by a worker's first eigendecomposition) would start with the default.
    """
    import scipy.linalg  # noqa: F401  (load scipy's BLAS so that it is limited too)
    from threadpoolctl import threadpool_limits

    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: "1" for name in THREAD_VARIABLES})
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield blas_info()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def timing_blas() -> ContextManager[Any]:
    """One BLAS thread for a benchmark (:func:`single_threaded_blas`), unless one of
    :data:`THREAD_VARIABLES` is set: then the caller's choice stands (a null context)."""
    if any(os.environ.get(name, "").strip() for name in THREAD_VARIABLES):
        return contextlib.nullcontext()
    return single_threaded_blas()
