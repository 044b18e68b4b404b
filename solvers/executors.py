"""Where the samples of a sweep run: serially, on local processes, or on a dask.distributed
cluster.

:func:`open_executor` is the one place a command turns ``--workers N`` and ``--dask ADDRESS``
into a ``concurrent.futures.Executor`` for :func:`tasksim.solvers.sweep.sweep` (and every
function built on it). The numbers never depend on the choice: every sample's seed is fixed
before any work is distributed (:mod:`tasksim.solvers.sweep`).

- ``workers=1`` and no address: ``None``, i.e. serial in the calling process;
- ``workers=N > 1``: a ``ProcessPoolExecutor`` of N processes, each with one BLAS thread
  (:func:`one_blas_thread`: the parallelism is the processes'; N workers whose BLAS each
  start a thread per core oversubscribe the machine, and a network run of Sec. 7 took more
  than twice its time alone with 2 workers on 2 cores);
- ``dask="tcp://host:8786"`` (or a ``LocalCluster``'s address): the executor of a
  ``distributed.Client`` connected to that scheduler. Its workers must have tasksim installed.
  dask is an optional dependency (``pip install 'tasksim[dask]'``).

Errors are one line each (ValueError): a bad worker count, dask missing, a scheduler that
cannot be reached within ``timeout`` seconds.

Examples
--------
>>> with open_executor(workers=1) as executor:
...     print(executor)
None
"""
from __future__ import annotations

import contextlib
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Iterator, Optional

from tasksim.errors import InputError

from .validation import check_positive_int

__all__ = ["open_executor", "one_blas_thread", "THREAD_VARIABLES"]

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
"""Environment variables that set a BLAS's thread count when it loads."""


@contextlib.contextmanager
def open_executor(*, workers: int = 1, dask: Optional[str] = None,
                  timeout: float = 10.0) -> Iterator[Optional[Executor]]:
    """The executor for ``workers`` local processes or the dask scheduler at ``dask``
    (module docstring); shut down (or disconnected) on exit."""
    workers = check_positive_int("workers", workers)
    if dask is not None:
        with _dask_client(dask, timeout) as client:
            yield client.get_executor()
        return
    if workers == 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=one_blas_thread) as pool:
        yield pool


def one_blas_thread() -> None:
    """Limit this process's BLAS to one thread, for good: every BLAS already loaded (through
    threadpoolctl, whichever library it is) and any loaded later (the environment variables
    they read when they load). A pool worker's initializer."""
    import os

    from threadpoolctl import threadpool_limits

    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    threadpool_limits(limits=1, user_api="blas")


@contextlib.contextmanager
def _dask_client(address: str, timeout: float) -> Iterator[object]:
    if not isinstance(address, str) or not address.strip():
        raise InputError(f"dask must be a scheduler address such as tcp://host:8786, "
                         f"got {address!r}")
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--dask needs dask.distributed: pip install 'tasksim[dask]'") from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as problem:
        reason = " ".join(str(problem).split()) or type(problem).__name__
        raise ValueError(f"cannot reach the dask scheduler at {address} within {timeout:g} s: "
                         f"{reason}") from None
    try:
        yield client
    finally:
        client.close()
