"""How fast the finite-size probe runs: the figures behind ``tasksim bench`` and
``benchmarks/bench_probe.py`` (plain numbers; printing is the caller's).

1. :func:`probe_scaling` -- the probe of the vanilla model under the gaussian generator
   (Wishart-sampled Grams, :mod:`tasksim.solvers.probe`) at Nx = 10^3 .. 10^6, ``seeds``
   samples per Nx, on ``workers`` local processes: the time of the whole probe and of each Nx
   alone, and the cost ratio largest / smallest Nx (it should not grow with Nx).
2. :func:`gram_throughput` -- ``samples`` samples of the vanilla two-task Gram path (Ns = 30)
   on ``workers`` processes, against the arithmetic floor of :func:`floor_flop_per_sample`
   (the issue's count, "about 1.2 MFLOP": the Bartlett factor times the covariance factor
   and the 2Ns x 2Ns Gram product as dense products, two Ns x Ns solves, M N; 1.04 MFLOP at
   Ns = 30) at the machine's own matrix-product rate (:func:`matrix_product_rate`, one BLAS
   thread per process). The achieved fraction is floor time / measured time (1 would be the
   floor's arithmetic at full matrix-product speed), by the wall clock and by processor time
   (the machine's other load excluded). The same for random and plasticity gating (four gate
   classes, counted as random gating's whether the path draws them or not), against their
   own floor. Where the time goes: the processor time of the random draws alone
   (seeds, generators, normals, chi-squares: :func:`tasksim.solvers.gram.draw_bartlett_seeded`)
   and the arithmetic the path cannot do without (:func:`necessary_flop_per_sample`, using
   the triangular and symmetric structure; 0.21, 0.27 and 0.32 MFLOP), which is what the rest is
   compared with.

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

from .probe import CHUNK, ProbeSpec, chunks, probe, sample_seed
from .validation import check_positive_int

__all__ = ["FLOOR_FLOP_PER_SAMPLE", "floor_flop_per_sample", "necessary_flop_per_sample",
           "matrix_product_rate", "probe_scaling", "gram_throughput"]

FLOOR_FLOP_PER_SAMPLE = 1.2e6
"""The issue's rounded figure for one vanilla two-task Gram sample at Ns = 30 ("about 1.2
MFLOP"); the benchmark uses the count itself, :func:`floor_flop_per_sample` (1.04 MFLOP)."""

Log = Optional[Callable[[str], None]]


def _say(log: Log, line: str) -> None:
    if log is not None:
        log(line)


def matrix_product_rate(size: int = 512, seconds: float = 0.3) -> float:
    """The best rate of ``size`` x ``size`` matrix products in this process on one BLAS thread
    (one core: the floors are per process, and a second thread on a shared 2-core machine
    makes the wall-clock rate meaningless), in FLOP/s.

    >>> matrix_product_rate(64, 0.01) > 0
    True
    """
    from threadpoolctl import threadpool_limits

    size = check_positive_int("size", size)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    best, spent = np.inf, 0.0
    with threadpool_limits(limits=1, user_api="blas"):
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
    vanilla one ("about 1.2 MFLOP" at Ns = 30, FLOOR_FLOP_PER_SAMPLE): per gate class, the
    Bartlett factor times the covariance factor and the Gram product (2 (2Ns)^3 each, as
    dense products); then two Ns x Ns solves with Ns right-hand sides (2 (Ns^3/3 + 2 Ns^3))
    and the product M N (2 Ns^3). Vanilla has one class, random gating four. This is the
    dense algorithm's count: with the triangular factors, the block-scalar covariance factor
    and the classes that add nothing left out, a sample needs about a fifth of it (vanilla)
    or a thirteenth (random gating): :func:`necessary_flop_per_sample`.

    >>> round(floor_flop_per_sample(30) / 1e6, 2), round(floor_flop_per_sample(30, 4) / 1e6, 2)
    (1.04, 3.64)
    """
    p = 2 * ns
    return gate_classes * 2 * (2.0 * p**3) + 2 * (ns**3 / 3 + 2 * ns**3) + 2.0 * ns**3


def necessary_flop_per_sample(model: str = "vanilla", ns: int = 30) -> float:
    """The arithmetic a two-task Gram sample cannot do without, using the structure (in
    floating-point operations, a multiply-add counting two; O(Ns^2) steps left out).

    ``vanilla``, from the Gram's triangular factor L (kernels of
    :mod:`tasksim.solvers.gram_kernels`): M = L_11^{-T} L_21^T, a triangular solve with Ns
    right-hand sides (Ns^3); G_22 = L_21 L_21^T + L_22 L_22^T, lower triangle
    (Ns^3 + Ns^3/3); its Cholesky factor (Ns^3/3); G_21 = L_21 L_11^T (Ns^3); two triangular
    solves (2 Ns^3); M N (2 Ns^3): 23 Ns^3 / 3.
    ``random-gating``: the class Grams' blocks the gated blocks need (class (1, 0): A_1's
    block, Ns^3/3; (0, 1): A_2's, Ns^3/3; (1, 1): three blocks, Ns^3/3 + Ns^3 + 4 Ns^3/3;
    class (0, 0) none), two Cholesky solves with Ns right-hand sides (2 (Ns^3/3 + 2 Ns^3))
    and M N (2 Ns^3): 10 Ns^3.
    ``plasticity-gating``: the blocks P_mu^T A_nu from the factors of the classes that add to
    them (:func:`tasksim.solvers.gram.draw_plastic_seeded`; (1, 0) and (0, 1): a triangular
    block's lower Gram and its product with the cross block, Ns^3/3 + Ns^3 each; (1, 1):
    Ns^3/3 + Ns^3 + 4 Ns^3/3), then the solves and M N as random gating: 12 Ns^3.

    >>> necessary_flop_per_sample("vanilla", 30), necessary_flop_per_sample("random-gating", 30)
    (207000.0, 270000.0)
    >>> necessary_flop_per_sample("plasticity-gating", 30)
    324000.0
    """
    n3 = float(check_positive_int("ns", ns)) ** 3
    counts = {"vanilla": 23.0 / 3.0, "random-gating": 10.0, "plasticity-gating": 12.0}
    if model not in counts:
        raise ValueError(f"model must be one of {', '.join(counts)}, got {model!r}")
    return round(counts[model] * n3, 6)


def _draw_cpu_seconds(spec: ProbeSpec, nx: int, samples: int) -> float:
    """Processor seconds per sample of the random draws alone, as the probe makes them
    (the seeds, a generator per seed, the class counts, normals and chi-squares)."""
    from .gram import GramPlan, draw_bartlett_seeded, draw_plastic_seeded
    from .two_task_batch import BLOCKS

    plan = GramPlan(BLOCKS[spec.model], nx, spec.ns, spec.rho_a, spec.alpha, 0.0, None)
    start = time.process_time()
    for _, first, stop in chunks(samples):
        seeds = [sample_seed(1, nx, j) for j in range(first, stop)]
        if spec.model == "plasticity-gating" and spec.generator == "gaussian":
            draw_plastic_seeded(seeds, nx=nx, ns=spec.ns, alpha=spec.alpha)
        else:
            draw_bartlett_seeded(seeds, plan)
    return (time.process_time() - start) / samples


def gram_throughput(*, samples: int = 10**6, nx: int = 3000, ns: int = 30, workers: int = 2,
                    model: str = "vanilla", alpha: Optional[float] = None,
                    rate: Optional[float] = None, log: Log = None) -> dict[str, Any]:
    """``samples`` Gram-path samples of ``model`` (vanilla, or ``random-gating`` or
    ``plasticity-gating`` with ``alpha``; one Nx) on ``workers`` processes, timed by the wall
    clock, and their processor time per sample measured in this process (up to 20000
    samples; the machine's other load does not count), with the floor
    (:func:`floor_flop_per_sample`, one gate class for vanilla, four for gated models), the
    achieved fractions, the processor time of the draws alone and the necessary arithmetic
    (:func:`necessary_flop_per_sample`; module docstring). ``rate``: the matrix-product rate
    to count the floors at (default: measured now)."""
    samples = check_positive_int("samples", samples)
    workers = check_positive_int("workers", workers)
    spec = ProbeSpec(model, rho_a=0.8, rho_b=0.5, alpha=alpha, ns=ns)
    classes = 4 if alpha is not None else 1
    flop = floor_flop_per_sample(ns, classes)  # the count, at this Ns
    rate = matrix_product_rate(seconds=1.0) if rate is None else rate
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
    draw_cpu = _draw_cpu_seconds(spec, nx, measured)
    necessary = (necessary_flop_per_sample(model, ns)
                 if model in ("vanilla", "random-gating", "plasticity-gating")
                 else float("nan"))
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
            "fraction_of_floor_cpu": floor_cpu / cpu if cpu > 0 else float("nan"),
            "draw_cpu_seconds_per_sample": draw_cpu,
            "necessary_flop_per_sample": necessary}
