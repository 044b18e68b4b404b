"""A finite-size probe's results as the user sees them: the table, the ``--json`` record, the
CSV and the PNG.

:func:`summarize` joins the measured points (:func:`tasksim.solvers.probe.probe`) with the
predictions (:func:`tasksim.reports.probe_theory.probe_theory`): per Nx the mean and its
standard error, the deviation from the leading order, the best prediction and the distance to
it in standard errors (z; 0 for a difference at rounding level,
:data:`tasksim.reports.figures_numerics.ROUNDING`), and a least-squares fit of
|deviation| ~ c (Ns/Nx)^p over the points where the deviation stands out of the noise
(:func:`tasksim.reports.figures_numerics.fit_power_law`: more than 3 standard errors, at
least three points).

Examples
--------
>>> from tasksim.solvers.probe import ProbeSpec, probe
>>> from tasksim.reports.probe_theory import probe_theory
>>> spec = ProbeSpec("vanilla", rho_a=0.8, rho_b=0.5, ns=4)
>>> results = summarize(spec, probe(spec, [40, 400], seeds=50, seed=0), probe_theory(spec))
>>> row = results["transfer"].rows[1]
>>> row.nx, round(row.predicted, 6)         # the inverse-Wishart closed form at Nx = 400
(400, 0.156354)
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np
from matplotlib.figure import Figure

from tasksim.solvers.probe import QUANTITIES, PointResult, ProbeSpec

from .figures_numerics import ROUNDING, PowerLaw, fit_power_law
from .figures_plot import new_figure, panel_label
from .probe_theory import QuantityTheory

__all__ = ["Row", "QuantityResult", "summarize", "record", "format_table", "csv_text",
           "probe_figure"]


@dataclass(frozen=True)
class Row:
    """One Nx of one quantity; ``deviation`` = mean - leading order, ``z`` = (mean -
    predicted)/sem (None where there is no prediction)."""

    nx: int
    mean: float
    sem: float
    deviation: Optional[float]
    predicted: Optional[float]
    z: Optional[float]


@dataclass(frozen=True)
class QuantityResult:
    """A quantity's theory, its rows, and the power-law fit of |deviation| (None: too few
    points resolved from the noise, or no leading order)."""

    theory: QuantityTheory
    rows: list[Row]
    fit: Optional[PowerLaw]


def _row(point: PointResult, quantity: str, theory: QuantityTheory) -> Row:
    estimate = getattr(point, quantity)
    deviation = None if theory.leading is None else estimate.mean - theory.leading
    predicted = theory.predicted(point.nx)
    z = None
    if predicted is not None:
        difference = estimate.mean - predicted
        if abs(difference) <= ROUNDING:  # exact identities agree to rounding: no deviation
            z = 0.0
        elif estimate.sem > 0:
            z = difference / estimate.sem
        else:
            z = math.copysign(math.inf, difference)
    return Row(point.nx, estimate.mean, estimate.sem, deviation, predicted, z)


def summarize(spec: ProbeSpec, points: Sequence[PointResult],
              theory: dict[str, QuantityTheory]) -> dict[str, QuantityResult]:
    """{quantity: :class:`QuantityResult`} (module docstring)."""
    out = {}
    for quantity in QUANTITIES:
        rows = [_row(p, quantity, theory[quantity]) for p in points]
        fit = None
        if theory[quantity].leading is not None:
            x = spec.ns / np.array([r.nx for r in rows], dtype=float)
            deviation = np.array([r.deviation for r in rows])
            deviation[np.abs(deviation) <= ROUNDING] = 0.0  # nothing to fit in rounding
            fit = fit_power_law(x, deviation, np.array([r.sem for r in rows]))
        out[quantity] = QuantityResult(theory[quantity], rows, fit)
    return out


def _finite(x: Optional[float]) -> Optional[float]:
    return None if x is None or not math.isfinite(x) else float(x)


def record(spec: ProbeSpec, nxs: Sequence[int], seeds: int, seed: int,
           results: dict[str, QuantityResult]) -> dict[str, Any]:
    """The ``--json`` object: ``{"model", "params", "transfer": {...}, "retention": {...}}``;
    each quantity ``{"leading", "nlo", "paper_nlo", "rows": [{"nx", "mean", "sem",
    "deviation", "predicted"}], "fit": {"c", "p"} or null}``. The caller adds provenance."""
    params = {"rho_a": spec.rho_a, "rho_b": spec.rho_b, "alpha": spec.alpha,
              "gamma": spec.gamma, "lam": spec.lam, "ns": spec.ns, "ny": spec.ny,
              "generator": spec.generator, "nx": [int(n) for n in nxs], "seeds": int(seeds),
              "seed": int(seed)}
    out: dict[str, Any] = {"model": spec.model, "params": params}
    for quantity, result in results.items():
        t = result.theory
        out[quantity] = {
            "leading": _finite(t.leading), "nlo": _finite(t.nlo),
            "paper_nlo": _finite(t.paper_nlo),
            "rows": [{"nx": r.nx, "mean": r.mean, "sem": _finite(r.sem),
                      "deviation": _finite(r.deviation), "predicted": _finite(r.predicted)}
                     for r in result.rows],
            "fit": None if result.fit is None else {"c": result.fit.prefactor,
                                                    "p": result.fit.slope},
        }
    return out


def _cell(x: Optional[float], width: int = 12, digits: int = 6) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return f"{'-':>{width}}"
    return f"{x:>{width}.{digits}g}"


def format_table(spec: ProbeSpec, seeds: int, seed: int,
                 results: dict[str, QuantityResult]) -> str:
    """The text the command prints: per quantity the theory, a table (Nx, mean, sem,
    deviation from leading order, prediction, z) and the fit."""
    levels = ", ".join(f"{name}={getattr(spec, name):g}" for name in ("alpha", "gamma", "lam")
                       if getattr(spec, name) is not None)
    lines = [f"{spec.model}: rho_a={spec.rho_a:g}, rho_b={spec.rho_b:g}"
             + (f", {levels}" if levels else "")
             + f"; Ns={spec.ns}, {spec.generator} generator, {seeds} seeds per Nx from seed {seed}"]
    for quantity, result in results.items():
        t = result.theory
        lines.append("")
        if t.leading is None:
            lines.append(f"{quantity}: measured only ({t.source})")
        else:
            nlo = "not derived" if t.nlo is None else f"{t.nlo:.6g}"
            paper = "none printed" if t.paper_nlo is None else f"{t.paper_nlo:.6g}"
            lines.append(f"{quantity}: leading order {t.leading:.6g}; coefficient of 1/Nx: "
                         f"derived {nlo}, the paper's terms {paper}")
        lines.append(f"{'Nx':>10} {'mean':>12} {'sem':>12} {'deviation':>12} "
                     f"{'predicted':>12} {'z':>7}")
        for r in result.rows:
            lines.append(f"{r.nx:>10d} {_cell(r.mean)} {_cell(r.sem, digits=3)} "
                         f"{_cell(r.deviation, digits=4)} {_cell(r.predicted)} "
                         f"{_cell(r.z, 7, 3)}")
        if result.fit is not None:
            lines.append(f"fit |deviation| = c (Ns/Nx)^p: c = {result.fit.prefactor:.4g}, "
                         f"p = {result.fit.slope:.3f} +- {result.fit.slope_se:.3f} "
                         f"({int(result.fit.used.sum())} of {len(result.rows)} points)")
        elif t.leading is not None:
            lines.append("fit |deviation| = c (Ns/Nx)^p: fewer than three deviations "
                         "exceed 3 standard errors")
    lines.append("")
    lines.append("predicted: the exact closed form in Nx where one exists, else leading + "
                 "derived/Nx; z = (mean - predicted)/sem")
    return "\n".join(lines) + "\n"


def csv_text(results: dict[str, QuantityResult], provenance: dict[str, Any]) -> str:
    """One row per quantity and Nx; provenance first, as ``#`` comment lines."""
    buffer = io.StringIO()
    for key, value in provenance.items():
        buffer.write(f"# {key}: {value}\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["quantity", "nx", "mean", "sem", "deviation", "predicted", "z",
                     "leading", "nlo", "paper_nlo"])
    for quantity, result in results.items():
        t = result.theory
        for r in result.rows:
            writer.writerow([quantity, r.nx] + [
                "" if v is None else repr(float(v))
                for v in (r.mean, r.sem, r.deviation, r.predicted, r.z, t.leading, t.nlo,
                          t.paper_nlo)])
    return buffer.getvalue()


def probe_figure(spec: ProbeSpec, results: dict[str, QuantityResult]) -> Figure:
    """|deviation from leading order| against Ns/Nx (log-log) per quantity, with the derived
    1/Nx term, the exact closed form, the paper's term and the fit; a quantity without a
    leading order shows its mean against Nx."""
    fig, axes = new_figure(2, (9.0, 3.6))
    for axis, (letter, (quantity, result)) in zip(axes, enumerate(results.items())):
        t = result.theory
        nx = np.array([r.nx for r in result.rows], dtype=float)
        mean = np.array([r.mean for r in result.rows])
        sem = np.array([r.sem for r in result.rows])
        panel_label(axis, "AB"[letter], quantity)
        if t.leading is None:
            axis.errorbar(nx, mean, yerr=sem, fmt="o", color="k", label="measured")
            axis.set(xscale="log", xlabel="$N_x$", ylabel=quantity)
            axis.legend(loc="best")
            continue
        x = spec.ns / nx
        dense = np.geomspace(nx[0], nx[-1], 200)
        deviation = mean - t.leading
        for mask, face, sign in ((deviation > 0, "k", "above"), (deviation <= 0, "white",
                                                                  "below")):
            if mask.any():
                axis.errorbar(x[mask], np.abs(deviation[mask]), yerr=sem[mask], fmt="o",
                              color="k", markerfacecolor=face, elinewidth=0.8,
                              label=f"|mean - leading|, {sign}")
        if t.nlo is not None and t.nlo != 0:
            axis.plot(spec.ns / dense, np.abs(t.nlo) / dense, color="tab:orange",
                      label=f"derived |c|/Nx, c = {t.nlo:.3g}")
        if t.exact is not None:
            valid = dense >= t.exact_from
            exact = np.array([abs(t.exact(int(round(n))) - t.leading) for n in dense[valid]])
            if valid.any() and np.any(exact > 0):
                axis.plot(spec.ns / dense[valid], exact, color="tab:green", linestyle="--",
                          label="exact closed form")
        if t.paper_nlo is not None and t.paper_nlo != 0:
            axis.plot(spec.ns / dense, np.abs(t.paper_nlo) / dense, color="0.5",
                      linestyle=":", label=f"paper's terms, c = {t.paper_nlo:.3g}")
        if result.fit is not None:
            axis.plot(x, result.fit(x), "k--", linewidth=0.8,
                      label=f"fit: p = {result.fit.slope:.2f}")
        axis.set(xscale="log", yscale="log", xlabel="$N_s / N_x$",
                 ylabel=f"|deviation| of {quantity}")
        axis.legend(loc="upper left", fontsize=6)
    fig.suptitle(f"{spec.model}, rho_a = {spec.rho_a:g}, rho_b = {spec.rho_b:g}, "
                 f"Ns = {spec.ns}, {spec.generator} generator", fontsize=9)
    return fig
