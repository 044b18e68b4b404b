"""Leading order plus the exact 1/Nx term, at the paper's sizes, and how far it is from the
exact solvers: the numbers behind verify/test_paper_sizes.py.

For every Gram-based model (vanilla, random and plasticity gating, Euclidean and Fisher
regularization) the registry derives, exactly at every Ns (derivations/finite_size.py),

    Delta eps = leading + c / Nx + O(Nx^-2)

for transfer and retention (claims ``<prefix>.<quantity>.nlo[<generator>]``). The check of
verify/test_paper_sizes.py compares the exact solvers' mean over many seeds at the paper's
sizes (Nx = 3000, Ns = 30, Ny = 10; Ny does not enter: the errors are averaged exactly over
the readouts) with leading + c/Nx, allowing z standard errors plus a bound on the O(Nx^-2)
remainder, ``REMAINDER_BOUND`` (Ns / (alpha Nx))^2 (verify/tolerances.py, rule
``nlo-paper``). The bound is measured, not assumed: ``python -m verify.nlo`` measures the
remainder Nx^2 (mean - leading - c/Nx) / Ns^2 (alpha^2 for gated models) at every point of
:data:`POINTS` and at Nx = 750, 1500, 3000 with many seeds and prints the table that
verify/tolerances.py quotes.

Examples
--------
>>> p = prediction("vanilla", "retention", rho_a=0.5, rho_b=0.9, nx=3000, ns=30)
>>> round(p.leading, 6), round(p.c, 4)
(0.9125, -8.85)
>>> round(small_parameter("random-gating", nx=3000, ns=30, alpha=0.5), 4)
0.02
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from tasksim.solvers.api import simulate
from tasksim.solvers.probe import ProbeSpec, probe
from tasksim.solvers.sweep import Estimate
from verify import theory

__all__ = ["PAPER_NX", "PAPER_NS", "PREFIX", "LEVEL", "POINTS", "Prediction", "prediction",
           "small_parameter", "measure_api", "measure_probe", "remainder_table", "main"]

PAPER_NX, PAPER_NS = 3000, 30
"""The paper's linear-model sizes (Appendix E.1; derivations.sizes.PAPER_SIZES)."""

PREFIX = {"vanilla": "vanilla", "random-gating": "gating.random",
          "plasticity-gating": "plasticity", "euclidean": "euclidean", "fisher": "fisher"}
"""Claim-id prefix of each model's 1/Nx claims."""

LEVEL = {"vanilla": None, "random-gating": "alpha", "plasticity-gating": "alpha",
         "euclidean": "gamma", "fisher": "gamma"}
"""The model's level parameter (gating level alpha, regularizer gamma), or None."""

_PAIRS = ((0.5, 0.5), (0.2, 0.9), (0.9, 0.2), (0.8, 0.8))
POINTS: dict[str, tuple[dict[str, float], ...]] = {
    "vanilla": tuple(dict(rho_a=a, rho_b=b) for a, b in _PAIRS + ((1.0, 0.0), (0.0, 0.0))),
    "random-gating": tuple(dict(rho_a=a, rho_b=b, alpha=g) for a, b in _PAIRS
                           for g in (0.3, 0.7)),
    "plasticity-gating": tuple(dict(rho_a=a, rho_b=b, alpha=g) for a, b in _PAIRS[:2]
                               for g in (0.3, 0.7)),
    "euclidean": tuple(dict(rho_a=a, rho_b=b, gamma=g) for a, b in _PAIRS for g in (0.3, 0.8)),
    "fisher": tuple(dict(rho_a=a, rho_b=b, gamma=0.5) for a, b in _PAIRS[:2]),
}
"""Parameter points of the paper-size check: the (rho_a, rho_b) corners and middle of Fig. 1
and two levels per model (alpha, gamma in 0.3 and 0.7-0.8). Fisher's transfer does not depend
on gamma (task 1 is learned unregularized) and its retention is 1 at every lam > 0, rho_a < 1
(its 1/Nx coefficients are for rho_a < 1), so two points suffice; plasticity gating's transfer
and retention differ from vanilla's only at 1/Nx."""


@dataclass(frozen=True)
class Prediction:
    """leading + c / nx, from the registry."""

    claim: str
    leading: float
    c: float
    nx: int

    @property
    def value(self) -> float:
        return self.leading + self.c / self.nx


def prediction(model: str, quantity: str, *, nx: int, ns: int, generator: str = "gaussian",
               **point: float) -> Prediction:
    """The registry's leading order and exact 1/Nx coefficient of ``quantity`` at ``point``."""
    cid = f"{PREFIX[model]}.{quantity}.nlo[{generator}]"
    values = dict(point, ns=ns)
    leading = theory.step_function(cid, "leading order")(**values)
    c = theory.function(cid, "derived")(nx=1, **values)
    return Prediction(cid, float(leading), float(c), int(nx))


def small_parameter(model: str, *, nx: int, ns: int, alpha: Optional[float] = None,
                    **_: float) -> float:
    """Ns/(alpha Nx) for the gated models, Ns/Nx for the others."""
    level = alpha if LEVEL[model] == "alpha" else 1.0
    return ns / (level * nx)


def measure_api(model: str, *, nx: int, ns: int, seeds: int, seed: int,
                generator: str = "gaussian", **point: float) -> dict[str, Estimate]:
    """Transfer and retention through the public route, :func:`tasksim.solvers.api.simulate`
    (gaussian: Wishart-sampled Grams, ``solve_features``, ``error_matrix``; appendix: explicit
    task matrices and ``solve``)."""
    r = simulate(model, nx=nx, ns=ns, seeds=seeds, seed=seed, generator=generator, **point)
    return {"transfer": r.transfer, "retention": r.retention}


def measure_probe(model: str, *, nx: int, ns: int, seeds: int, seed: int,
                  generator: str = "gaussian", **point: float) -> dict[str, Estimate]:
    """Transfer and retention through the finite-size probe's engine (per-seed Wishart Grams
    and the closed forms of :mod:`tasksim.solvers.two_task_batch`)."""
    spec = ProbeSpec(model, ns=ns, generator=generator, **point)
    p = probe(spec, [nx], seeds=seeds, seed=seed)[0]
    return {"transfer": p.transfer, "retention": p.retention}


def remainder_table(sizes: tuple[int, ...] = (750, 1500, 3000), *, seeds: int = 4000,
                    seed: int = 2026) -> list[dict]:
    """Rows (model, quantity, point, nx, deviation from leading + c/nx, its sem, and the
    remainder coefficient R = deviation / (Ns/(alpha Nx))^2 with its sem) at every point of
    :data:`POINTS` (probe engine, gaussian generator)."""
    rows = []
    for model, points in POINTS.items():
        for point in points:
            for nx in sizes:
                measured = measure_probe(model, nx=nx, ns=PAPER_NS, seeds=seeds, seed=seed,
                                         **point)
                scale = small_parameter(model, nx=nx, ns=PAPER_NS, **point) ** 2
                for quantity, estimate in measured.items():
                    p = prediction(model, quantity, nx=nx, ns=PAPER_NS, **point)
                    deviation = estimate.mean - p.value
                    rows.append(dict(model=model, quantity=quantity, point=point, nx=nx,
                                     deviation=deviation, sem=estimate.sem,
                                     R=deviation / scale, R_sem=estimate.sem / scale))
    return rows


def main(argv: Optional[list[str]] = None) -> None:
    """Print :func:`remainder_table` and the largest |R| + 3 sem(R) per model (the figure
    REMAINDER_BOUND of verify/tolerances.py must exceed)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--seeds", type=int, default=4000)
    parser.add_argument("--nx", default="750,1500,3000")
    args = parser.parse_args(argv)
    rows = remainder_table(tuple(int(n) for n in args.nx.split(",")), seeds=args.seeds)
    worst: dict[str, float] = {}
    print(f"{'model':18} {'quantity':9} {'point':34} {'Nx':>5} {'deviation':>11} "
          f"{'sem':>8} {'R':>8} {'sem(R)':>7}")
    for r in rows:
        point = ", ".join(f"{k}={v:g}" for k, v in r["point"].items())
        print(f"{r['model']:18} {r['quantity']:9} {point:34} {r['nx']:5d} "
              f"{r['deviation']:+11.2e} {r['sem']:8.1e} {r['R']:+8.2f} {r['R_sem']:7.2f}")
        bound = abs(r["R"]) + 3 * r["R_sem"]
        if math.isfinite(bound):
            worst[r["model"]] = max(worst.get(r["model"], 0.0), bound)
    for model, bound in worst.items():
        print(f"largest |R| + 3 sem(R), {model}: {bound:.2f}")


if __name__ == "__main__":
    main()
