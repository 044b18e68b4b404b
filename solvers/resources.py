"""How much memory a simulation needs, and a refusal before anything is allocated when the
machine does not have it.

The estimate is an upper bound of the peak per sample in flight, from what each path holds:

- the Wishart path (``gram="wishart"``) holds Gram matrices of a few Ns x Ns blocks: a cost
  independent of Nx; with gates, one (n Ns) x (n Ns) Gram per gate pattern, 2^n of them
  (``tasksim.solvers.gram``), which matters for long sequences;
- the explicit path holds the Nx x Ns task matrices, a temporary of the same size while they
  are drawn, and the (gated) feature blocks of the span: at most ``2 n_tasks + 4`` matrices of
  Nx x Ns float64 (measured: 751 MB peak at Nx = 10^6, Ns = 30 for vanilla, against 1.44 GB
  estimated);
- the GD protocol adds a few Ny x Nx weights and gradients;
- soft-thresholding adds the Nx x Nx input covariance, its eigenvectors and LAPACK's workspace
  (four Nx x Nx float64).

The machine's memory is the physical memory, or the control group's limit when that is lower.

Examples
--------
>>> estimate_bytes(model="vanilla", nx=3000, ns=30, ny=10, gram="explicit", method="exact")
4320000
>>> check_memory(model="vanilla", nx=10**11, ns=30, ny=10, gram="explicit", method="exact",
...              available=24 * 2**30)
Traceback (most recent call last):
...
tasksim.errors.InputError: nx=100000000000 needs about 144 TB of memory per sample (explicit Nx x Ns task matrices), more than this machine's 25.8 GB; use smaller sizes, or the gaussian generator (Wishart-sampled Grams, no Nx x Ns matrix)
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from tasksim.errors import InputError

__all__ = ["estimate_bytes", "machine_bytes", "check_memory", "human_bytes"]

_FLOAT = 8  # bytes of a float64
_EXPLICIT_EXTRA_BLOCKS = 4  # at most four feature blocks in the span (gated models)
_GATED = ("random-gating", "adaptive-gating", "plasticity-gating")


def estimate_bytes(*, model: str, nx: int, ns: int, ny: int, gram: str, method: str,
                   n_tasks: int = 2) -> int:
    """An upper bound of the peak memory of one sample, in bytes (module docstring)."""
    if gram == "wishart":
        k = n_tasks * ns * 4
        total = 16 * k * k * _FLOAT
        if model in _GATED:
            total += 4 * 2**n_tasks * (n_tasks * ns) ** 2 * _FLOAT
        return total
    matrices = 2 * n_tasks + _EXPLICIT_EXTRA_BLOCKS if model != "vanilla" else 2 * n_tasks + 2
    total = matrices * nx * ns * _FLOAT
    if method == "gd":
        total += 4 * n_tasks * ny * nx * _FLOAT
    if model == "soft-threshold":
        total += 4 * nx * nx * _FLOAT
    return int(total)


def _cgroup_limit() -> Optional[int]:
    for path in (Path("/sys/fs/cgroup/memory.max"),
                 Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            return int(text)
    return None


def machine_bytes() -> Optional[int]:
    """The memory this process may use: physical memory, or the cgroup limit if lower; None
    where the system does not say."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = None
    limits = [b for b in (physical, _cgroup_limit()) if b]
    return min(limits) if limits else None


def human_bytes(n: float) -> str:
    """``1.5 GB``-style sizes (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB"):
        if abs(n) < 1000 or unit == "EB":
            return f"{n:.0f} {unit}" if unit in ("B", "kB") or n >= 100 else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def check_memory(*, model: str, nx: int, ns: int, ny: int, gram: str, method: str,
                 n_tasks: int = 2, workers: int = 1, available: Optional[int] = None,
                 wishart_possible: bool = True) -> int:
    """Raise ValueError (one line: the estimate and the limit) when ``workers`` samples at
    once need more memory than the machine has; else return the estimate in bytes.

    ``wishart_possible``: whether the model could avoid the Nx x Ns matrices under the
    gaussian generator (the message then says so).
    """
    need = estimate_bytes(model=model, nx=nx, ns=ns, ny=ny, gram=gram, method=method,
                          n_tasks=n_tasks) * max(1, workers)
    limit = machine_bytes() if available is None else available
    if limit is not None and need > limit:
        per = "per sample" if workers <= 1 else f"for {workers} workers"
        if gram == "wishart":
            patterns = f", one per gate pattern (2^{n_tasks})" if model in _GATED else ""
            raise InputError(
                f"tasks={n_tasks} needs about {human_bytes(need)} of memory {per} "
                f"(Wishart-sampled Grams{patterns}), more than this machine's "
                f"{human_bytes(limit)}; use fewer tasks or gram='explicit'")
        what = ("explicit Nx x Ns task matrices" + (" and the Nx x Nx input covariance"
                                                    if model == "soft-threshold" else ""))
        raise InputError(
            f"nx={nx} needs about {human_bytes(need)} of memory {per} ({what}), more than "
            f"this machine's {human_bytes(limit)}; use smaller sizes"
            + (", or the gaussian generator (Wishart-sampled Grams, no Nx x Ns matrix)"
               if wishart_possible and gram != "wishart" else ""))
    return need
