"""Finite-size plots: how fast the exact finite-N transfer and retention approach the paper's
leading-order formulas, |mean(exact) - leading order| against Ns/Nx on log-log axes.

For each case the exact fixed points are averaged over many Wishart-sampled Gram matrices
(:mod:`tasksim.solvers.gram`, gaussian generator, cost independent of Nx) from Nx = 4 Ns to 1000 Ns;
the exponent of |deviation| ~ (Ns/Nx)^slope is fitted where the deviation stands out of the
noise (:func:`tasksim.reports.figures_numerics.fit_power_law`). Where the registry holds a finite-N
derivation of the claim (gaussian generator), its correction derived - leading order is drawn
too: for the vanilla transfer it is exact (``vanilla.transfer.exact[gaussian]``, no
surrogate); for Euclidean regularization and plasticity gating it is the exact expectation of
the *surrogate* weights (``*.finite_n.gaussian``), so the plot shows how much of a printed
finite-size term belongs to the surrogate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from tasksim.derivations.symbols import Ns, Nx, alpha, gamma, rho_a, rho_b

from .figures_context import FigureContext, FigureResult, fmt_number
from .figures_numerics import FiniteSizeSeries, PowerLaw, finite_size_sweep, fit_power_law
from .figures_plot import new_figure, panel_label
from . import figures_theory as theory

__all__ = ["FiniteSizeCase", "CASES", "FINITE_SIZE_POINT", "finite_size_figure"]

FINITE_SIZE_POINT = (0.8, 0.5)
"""(rho_a, rho_b) of the finite-size measurement (away from zeros of the deviations)."""


@dataclass(frozen=True)
class FiniteSizeCase:
    """One model: its parameters and, per quantity, the leading-order claim and (optional)
    the finite-N claim whose correction is overlaid, with how that claim was derived."""

    label: str
    model: str
    parameters: dict
    leading: dict[str, str]
    finite: dict[str, str]
    finite_kind: str = ""


CASES: tuple[FiniteSizeCase, ...] = (
    FiniteSizeCase("vanilla", "vanilla", {},
                   {"transfer": "vanilla.transfer", "retention": "vanilla.retention"},
                   {"transfer": "vanilla.transfer.exact[gaussian]"},
                   "exact finite-N derivation, no surrogate"),
    FiniteSizeCase("random gating, alpha = 0.5", "random-gating", {"alpha": 0.5},
                   {"transfer": "gating.transfer.random", "retention": "gating.retention.random"},
                   {}),
    FiniteSizeCase("Euclidean, gamma = 0.5", "euclidean", {"gamma": 0.5},
                   {"transfer": "euclidean.transfer", "retention": "euclidean.retention"},
                   {"transfer": "euclidean.transfer.finite_n.gaussian",
                    "retention": "euclidean.retention.finite_n.gaussian"},
                   "exact expectation of the surrogate weights"),
    FiniteSizeCase("plasticity gating, alpha = 0.5", "plasticity-gating", {"alpha": 0.5},
                   {"transfer": "plasticity.transfer", "retention": "plasticity.retention"},
                   {"transfer": "plasticity.transfer.finite_n.gaussian",
                    "retention": "plasticity.retention.finite_n.gaussian"},
                   "exact expectation of the surrogate weights"),
)
"""The measured cases (Fisher is left out: its exact retention is exactly 1 and its transfer
is the vanilla one)."""

_SYMBOLS = {"alpha": alpha, "gamma": gamma}


def _values(case: FiniteSizeCase, series: FiniteSizeSeries, which: str,
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(deviation mean - leading, its sem, leading, derived correction or None) against Nx."""
    ra, rb = FINITE_SIZE_POINT
    names = tuple(_SYMBOLS[k] for k in case.parameters)
    values = tuple(case.parameters.values())
    lead = float(theory.curve(case.leading[which], (rho_a, rho_b) + names)(ra, rb, *values))
    est = series.estimates
    dev = est.mean(which) - lead
    correction = None
    if which in case.finite:
        fn = theory.correction_curve(case.finite[which], (Nx, Ns, rho_a, rho_b) + names)
        correction = fn(series.nx, float(series.ns), ra, rb, *values)
    return dev, est.sem(which), np.full_like(dev, lead), correction


def _ratios(case: FiniteSizeCase, ratios) -> tuple[float, ...]:
    """The Nx/Ns ratios measured for ``case``: with gates, only those with alpha Nx >= 4 Ns
    (the gated models need at least Ns open inputs; with fewer than about 4 Ns the
    multinomial count of open gates falls below Ns too often)."""
    level = case.parameters.get("alpha", 1.0)
    return tuple(r for r in ratios if level * r >= 4.0)


def _describe(law: Optional[PowerLaw], n_points: int) -> str:
    if law is None:
        return "too few points out of the noise to fit a slope"
    return (f"fitted slope {law.slope:.2f} +- {law.slope_se:.2f} on {int(law.used.sum())} of "
            f"{n_points} points")


def finite_size_figure(ctx: FigureContext) -> list[FigureResult]:
    """|mean(exact) - leading order| against Ns/Nx for every case and quantity."""
    c = ctx.config
    ra, rb = FINITE_SIZE_POINT
    fig, axes = new_figure(2 * len(CASES), (15.5, 7.4), rows=2)
    texts = []
    laws = []
    for k, case in enumerate(CASES):
        ctx.progress(f"figures: finite size: {case.label}, {len(c.finite_ratios)} sizes x "
                     f"{c.finite_seeds} seeds")
        series = finite_size_sweep(case.model, rho_a=ra, rho_b=rb, ns=c.finite_ns, ny=c.ny,
                                   ratios=_ratios(case, c.finite_ratios), seeds=c.finite_seeds,
                                   root=ctx.root(f"finite_size.{case.model}"),
                                   executor=ctx.executor, **case.parameters)
        x = series.ratio
        for row, which in enumerate(("transfer", "retention")):
            axis = axes[row * len(CASES) + k]
            dev, sem, lead, correction = _values(case, series, which)
            positive = dev > 0
            for mask, face, sign in ((positive, "k", "+"), (~positive, "white", "-")):
                if mask.any():
                    axis.errorbar(x[mask], np.abs(dev[mask]), yerr=sem[mask], fmt="o",
                                  color="k", markerfacecolor=face, elinewidth=0.8,
                                  label=f"|exact - leading|, sign {sign}")
            law = fit_power_law(x, dev, sem)
            laws.append(law)
            text = f"{case.label}, {which}: {_describe(law, len(x))}"
            if law is not None:
                axis.plot(x, law(x), "k--", linewidth=0.8,
                          label=f"fit: slope {law.slope:.2f}")
            if correction is not None:
                axis.plot(x, np.abs(correction), color="tab:orange", linewidth=1.4,
                          label="derived correction")
                ratio = dev[-1] / correction[-1] if correction[-1] != 0 else np.nan
                text += (f"; derived correction `{case.finite[which]}` ({case.finite_kind}): "
                         f"{fmt_number(float(correction[-1]))} at Nx/Ns = "
                         f"{fmt_number(1 / x[-1])}, measured/derived = "
                         f"{fmt_number(float(ratio), 3)} there, "
                         f"{fmt_number(float(dev[0] / correction[0]), 3)} at Nx/Ns = "
                         f"{fmt_number(1 / x[0])}")
            texts.append(text)
            axis.set_xscale("log")
            axis.set_yscale("log")
            axis.set(xlabel="$N_s / N_x$",
                     ylabel=f"|deviation| of $\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
            axis.legend(loc="upper left", fontsize=6)
            panel_label(axis, "ABCDEFGHIJKL"[row * len(CASES) + k], f"{case.label}: {which}".replace(
                "alpha", "$\\alpha$").replace("gamma", "$\\gamma$"))
    caption = (
        f"**Finite-size plots.** |mean(exact) - leading order| against Ns/Nx at "
        f"(rho_a, rho_b) = {FINITE_SIZE_POINT}, Ns = {c.finite_ns}, Nx/Ns in "
        f"{{{', '.join(fmt_number(r) for r in c.finite_ratios)}}} (Nx rounded to an integer; "
        f"gated cases: alpha Nx >= 4 Ns only). Numerics: exact fixed points from "
        f"Wishart-sampled Gram matrices (gaussian generator, tasksim.solvers.gram; errors averaged "
        f"exactly over B), {c.finite_seeds} seeds per size (error bars: standard error), root "
        f"seed {ctx.seed}; filled markers: exact above leading order, open: below. Leading "
        f"orders: the derived claims named in the panels' cases ({', '.join(sorted({v for case in CASES for v in case.leading.values()}))}). "
        f"Dashed: least-squares fit of log|deviation| on log(Ns/Nx) over the points more than "
        f"3 standard errors from zero. Orange: a derived finite-size correction (derived - "
        f"leading order), where the registry has one. "
        + "; ".join(texts) + "."
    )
    slopes = [law.slope for law in laws if law is not None]
    verdict = (
        f"the exact models approach the leading-order formulas as Ns/Nx -> 0 with fitted "
        f"exponents {min(slopes):.2f} to {max(slopes):.2f} "
        f"(1 is a correction of order Ns/Nx); the exact vanilla correction is confirmed, the "
        f"surrogates' derived corrections are off by the measured/derived ratios in the caption."
        if slopes else "too few sizes resolved a deviation to fit an exponent.")
    return [FigureResult("finite_size", "Finite-size deviations", caption, fig,
                         verdict=verdict)]
