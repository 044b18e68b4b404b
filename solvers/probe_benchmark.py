"""How fast the finite-size probe runs: the figures behind ``tasksim bench`` and
``benchmarks/bench_probe.py`` (plain numbers; printing is the caller's).

1. :func:`probe_scaling` -- the probe of the vanilla model under the gaussian generator
   (Wishart-sampled Grams, :mod:`tasksim.solvers.probe`) at Nx = 10^3 .. 10^6, ``seeds``
   samples per Nx, on ``workers`` local processes: the time of the whole probe and of each Nx
   alone, and the cost ratio largest / smallest Nx (it should not grow with Nx).
2. :func:`gram_throughput` -- ``samples`` samples of the vanilla two-task Gram path (Ns = 30)
   on ``workers`` processes, against the arithmetic floor: FLOOR_FLOP_PER_SAMPLE (the
   issue's 1.2 MFLOP: the Bartlett factor times the covariance factor, the 2Ns x 2Ns Gram
   product, two Ns x Ns solves) at the machine's own matrix-product rate
   (:func:`matrix_product_rate`, one BLAS thread per process). The achieved fraction is floor
   time / measured time (1 would be the floor's arithmetic at full matrix-product speed),
   by the wall clock and by processor time (the machine's other load excluded). The same for
   random gating (four gate classes), against its own floor (:func:`floor_flop_per_sample`).

Timings are wall-clock (``time.perf_counter``); run with one BLAS thread per process
(OPENBLAS_NUM_THREADS=1) on a quiet machine and repeat.

Examples
--------
>>> figures = gram_throughput(samples=500, workers=1, nx=100, ns=4)
>>> figures["samples"], figures["seconds"] > 0
(500, True)
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .probe import CHUNK, ProbeSpec, probe
from .validation import check_positive_int

__all__ = ["FLOOR_FLOP_PER_SAMPLE", "floor_flop_per_sample", "matrix_product_rate",
           "probe_scaling", "gram_throughput"]

FLOOR_FLOP_PER_SAMPLE = 1.2e6
"""The arithmetic floor of one vanilla two-task Gram sample at Ns = 30 (issue 7): about 1.2
million floating-point operations."""

Log = Optional[Callable[[str], None]]


def _say(log: Log, line: str) -> None:
    if log is not None:
        log(line)


def matrix_product_rate(size: int = 512, seconds: float = 0.3) -> float:
    """The best rate of ``size`` x ``size`` matrix products in this process, in FLOP/s.

    >>> matrix_product_rate(64, 0.01) > 0
    True
    """
    size = check_positive_int("size", size)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    best, spent = np.inf, 0.0
    while spent < seconds or not np.isfinite(best):
        t0 = time.perf_counter()
        a @ b
        elapsed = time.perf_counter() - t0
        best, spent = min(best, elapsed), spent + elapsed
    return 2.0 * size**3 / best


def _pool(workers: int) -> Any:
    return nullcontext(None) if workers == 1 else ProcessPoolExecutor(max_workers=workers)


def _timed_probe(spec: ProbeSpec, nxs: Sequence[int], seeds: int, executor: Any,
                 workers: int) -> float:
    t0 = time.perf_counter()
    probe(spec, nxs, seeds=seeds, seed=0, executor=executor, workers=workers)
    return time.perf_counter() - t0


def probe_scaling(nxs: Sequence[int] = (10**3, 10**4, 10**5, 10**6), *, seeds: int = 2000,
                  ns: int = 30, workers: int = 2, repeats: int = 2, log: Log = None
                  ) -> dict[str, Any]:
    """The vanilla probe (gaussian generator) at ``nxs``, ``seeds`` per Nx (module docstring):
    total seconds, seconds per Nx alone (best of ``repeats``) and their ratio largest/smallest.
    """
    workers = check_positive_int("workers", workers)
    spec = ProbeSpec("vanilla", rho_a=0.8, rho_b=0.5, ns=ns)
    with _pool(workers) as pool:
        _timed_probe(spec, [nxs[0]], min(seeds, CHUNK) * workers, pool, workers)  # warm up
        total = _timed_probe(spec, nxs, seeds, pool, workers)
        _say(log, f"probe, vanilla, Nx = {nxs[0]} .. {nxs[-1]}, {seeds} seeds each: "
                  f"{total:.2f} s on {workers} processes")
        per_nx = []
        for nx in nxs:
            per_nx.append(min(_timed_probe(spec, [nx], seeds, pool, workers)
                              for _ in range(repeats)))
            _say(log, f"probe, vanilla, Nx = {nx}: {per_nx[-1]:.3f} s")
    return {"ns": ns, "nx": [int(n) for n in nxs], "seeds": seeds, "workers": workers,
            "seconds": total, "seconds_per_nx": per_nx, "ratio": per_nx[-1] / per_nx[0]}


def floor_flop_per_sample(ns: int = 30, gate_classes: int = 1) -> float:
    """The arithmetic floor of one two-task Gram sample, counted as the issue counts the
    vanilla one (FLOOR_FLOP_PER_SAMPLE at Ns = 30): per gate class, the Bartlett factor times
    the covariance factor and the Gram product (2 (2Ns)^3 each); then two Ns x Ns solves with
    Ns right-hand sides (2 (Ns^3/3 + 2 Ns^3)) and the product M N (2 Ns^3). Vanilla has one
    class, random gating four.

    >>> round(floor_flop_per_sample(30) / 1e6, 2), round(floor_flop_per_sample(30, 4) / 1e6, 2)
    (1.04, 3.64)
    """
    p = 2 * ns
    return gate_classes * 2 * (2.0 * p**3) + 2 * (ns**3 / 3 + 2 * ns**3) + 2.0 * ns**3


def gram_throughput(*, samples: int = 10**6, nx: int = 3000, ns: int = 30, workers: int = 2,
                    model: str = "vanilla", alpha: Optional[float] = None,
                    rate: Optional[float] = None, log: Log = None) -> dict[str, Any]:
    """``samples`` Gram-path samples of ``model`` (vanilla, or ``random-gating`` with
    ``alpha``; one Nx) on ``workers`` processes, timed by the wall clock, and their processor
    time per sample measured in this process (up to 20000 samples; the machine's other load
    does not count), with the floor (FLOOR_FLOP_PER_SAMPLE for vanilla, :func:`floor_flop_per_sample`
    for gated models) and the achieved fractions (module docstring). ``rate``: the
    matrix-product rate to count the floor at (default: measured now)."""
    samples = check_positive_int("samples", samples)
    workers = check_positive_int("workers", workers)
    spec = ProbeSpec(model, rho_a=0.8, rho_b=0.5, alpha=alpha, ns=ns)
    classes = 4 if alpha is not None else 1
    # vanilla: the figure (at Ns = 30), as before; gated: the same count, four classes
    flop = FLOOR_FLOP_PER_SAMPLE if classes == 1 else floor_flop_per_sample(ns, classes)
    rate = matrix_product_rate() if rate is None else rate
    with _pool(workers) as pool:
        _timed_probe(spec, [nx], min(samples, CHUNK * workers), pool, workers)  # warm up
        seconds = _timed_probe(spec, [nx], samples, pool, workers)
    # processor time per sample, in this process on one core (the machine's other load
    # does not count): up to 20000 samples, after the warm-up above
    measured = min(samples, 20000)
    probe(spec, [nx], seeds=min(measured, CHUNK), seed=2, executor=None)
    start = time.process_time()
    probe(spec, [nx], seeds=measured, seed=1, executor=None)
    cpu = (time.process_time() - start) * samples / measured
    floor = flop * samples / (rate * workers)
    floor_cpu = flop * samples / rate
    _say(log, f"Gram path, {model}, Ns = {ns}: {samples} samples in {seconds:.1f} s on "
              f"{workers} processes ({1e6 * seconds * workers / samples:.1f} us per sample "
              f"per process, {1e6 * cpu / samples:.1f} us of processor time); floor "
              f"{floor:.1f} s")
    return {"model": model, "samples": samples, "nx": nx, "ns": ns, "workers": workers,
            "seconds": seconds,
            "seconds_per_sample_per_process": seconds * workers / samples,
            "cpu_seconds_per_sample": cpu / samples,
            "matrix_product_flops": rate, "floor_flop_per_sample": flop,
            "floor_seconds": floor, "fraction_of_floor": floor / seconds,
            "fraction_of_floor_cpu": floor_cpu / cpu if cpu > 0 else float("nan")}
