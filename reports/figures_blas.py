"""Run the figure numerics with single-threaded BLAS, and put the thread count back after.

The figure numerics are many small products (Nx x 2Ns Grams, 60 x 60 solves). On this 2-core
machine shared by several jobs, OpenBLAS' default of one thread per core made them 10-35 times
slower in wall time than one thread (measured: vanilla, paper sizes, appendix generator,
~10 ms per sample with one thread against 0.2-0.4 s with two under load), and a pool of worker
processes multiplies the oversubscription. Parallelism comes from the worker processes instead.

numpy and scipy bundle their own OpenBLAS builds; the environment variable
OPENBLAS_NUM_THREADS only acts before they are loaded. :func:`single_threaded_blas` finds the
loaded OpenBLAS libraries of this process (Linux: /proc/self/maps) and calls their
``*openblas_set_num_threads*`` entry points through ctypes, restoring the previous counts on
exit. Elsewhere, or if no such library is loaded, it does nothing. Worker processes forked
inside the context inherit the setting (a library they load later would not: hence scipy's is
loaded first).

Examples
--------
>>> with single_threaded_blas() as libraries:
...     all(get() == 1 for get, _ in libraries)
True
"""
from __future__ import annotations

import ctypes
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

__all__ = ["openblas_controls", "single_threaded_blas"]

_SUFFIXES = ("", "64_")
_PREFIXES = ("openblas", "scipy_openblas")


def openblas_controls() -> list[tuple[Callable[[], int], Callable[[int], None]]]:
    """(get, set) of the thread count of every OpenBLAS library loaded in this process.

    Examples
    --------
    >>> all(get() >= 1 for get, _ in openblas_controls())
    True
    """
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return []
    paths = sorted({line.split()[-1] for line in maps.read_text().splitlines()
                    if "openblas" in line.lower() and line.split()[-1].startswith("/")})
    controls = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                set_ = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and set_ is not None:
                    get.restype = ctypes.c_int
                    set_.argtypes = [ctypes.c_int]
                    controls.append((get, set_))
    return controls


@contextmanager
def single_threaded_blas() -> Iterator[list[tuple[Callable[[], int], Callable[[int], None]]]]:
    """Within the block every loaded OpenBLAS uses one thread; the counts are restored after.

    scipy.linalg is imported first: its OpenBLAS is a separate library from numpy's, and one
    loaded later (e.g. by a worker process's first eigendecomposition) would start with the
    default thread count.
    """
    import scipy.linalg  # noqa: F401  (load scipy's OpenBLAS so that it is controlled too)

    controls = openblas_controls()
    before = [get() for get, _ in controls]
    try:
        for _, set_ in controls:
            set_(1)
        yield controls
    finally:
        for (_, set_), n in zip(controls, before):
            set_(max(1, int(n)))
