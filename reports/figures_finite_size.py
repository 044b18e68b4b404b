"""Finite-size plots: how fast the exact finite-N transfer and retention approach the paper's
leading-order formulas, |mean(exact) - leading order| against Ns/Nx on log-log axes, with the
derived next-to-leading term on every panel.

For each case the exact fixed points are measured by the finite-size probe's engine
(:func:`tasksim.solvers.probe.probe`: Wishart-sampled Grams under the gaussian generator, cost
independent of Nx; errors averaged exactly over B) from Nx = 4 Ns to 1000 Ns; the exponent of
|deviation| ~ (Ns/Nx)^slope is fitted where the deviation stands out of the noise
(:func:`tasksim.reports.figures_numerics.fit_power_law`). The lines are theory from the
registry: the derived 1/Nx term c/Nx (claims ``*.nlo[gaussian]``, exact at every Ns:
:mod:`tasksim.derivations.finite_size`) on every panel, the exact closed form of the vanilla
transfer (``vanilla.transfer.exact[gaussian]``), and, for contrast, the exact expectation of
the paper's *surrogate* weights where the registry has one (``*.finite_n.gaussian``), which
is not the model's finite-size term.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from tasksim.derivations.symbols import Ns, Nx, alpha, gamma, rho_a, rho_b
from tasksim.solvers.probe import PointResult, ProbeSpec, probe

from .figures_context import FigureContext, FigureResult, fmt_number
from .figures_numerics import PowerLaw, fit_power_law
from .figures_plot import new_figure, panel_label
from . import figures_theory as theory

__all__ = ["FiniteSizeCase", "CASES", "FINITE_SIZE_POINT", "nlo_claim", "measure_probe",
           "finite_size_figure"]

FINITE_SIZE_POINT = (0.8, 0.5)
"""(rho_a, rho_b) of the finite-size measurement (away from zeros of the deviations)."""

NLO_PREFIX = {"vanilla": "vanilla", "random-gating": "gating.random",
              "plasticity-gating": "plasticity", "euclidean": "euclidean", "fisher": "fisher"}


def nlo_claim(model: str, quantity: str, generator: str = "gaussian") -> str:
    """The registry id of a model's next-to-leading claim.

    >>> nlo_claim("random-gating", "transfer")
    'gating.random.transfer.nlo[gaussian]'
    """
    return f"{NLO_PREFIX[model]}.{quantity}.nlo[{generator}]"


@dataclass(frozen=True)
class FiniteSizeCase:
    """One model: its parameters, per quantity the leading-order claim, and the claims of the
    surrogate weights' finite-N expectation shown for contrast (optional)."""

    label: str
    model: str
    parameters: dict
    leading: dict[str, str]
    surrogate: dict[str, str] = field(default_factory=dict)


CASES: tuple[FiniteSizeCase, ...] = (
    FiniteSizeCase("vanilla", "vanilla", {},
                   {"transfer": "vanilla.transfer", "retention": "vanilla.retention"}),
    FiniteSizeCase("random gating, alpha = 0.5", "random-gating", {"alpha": 0.5},
                   {"transfer": "gating.transfer.random", "retention": "gating.retention.random"}),
    FiniteSizeCase("Euclidean, gamma = 0.5", "euclidean", {"gamma": 0.5},
                   {"transfer": "euclidean.transfer", "retention": "euclidean.retention"},
                   {"transfer": "euclidean.transfer.finite_n.gaussian",
                    "retention": "euclidean.retention.finite_n.gaussian"}),
    FiniteSizeCase("plasticity gating, alpha = 0.5", "plasticity-gating", {"alpha": 0.5},
                   {"transfer": "plasticity.transfer", "retention": "plasticity.retention"},
                   {"transfer": "plasticity.transfer.finite_n.gaussian",
                    "retention": "plasticity.retention.finite_n.gaussian"}),
)
"""The measured cases (Fisher is left out: its exact retention is exactly 1 and its transfer
is the vanilla one)."""

_SYMBOLS = {"alpha": alpha, "gamma": gamma}
RESOLVED = 100.0
"""Nx/Ns from which the O(Nx^-2) remainder is small enough to compare c/Nx with the data."""


def measure_probe(ctx: FigureContext, panel: str, model: str, *, rho_a: float, rho_b: float,
                  ns: int, nxs: list[int], seeds: int, **parameters: float
                  ) -> list[PointResult]:
    """The probe's measurement (gaussian generator), seeded by the panel's name."""
    seed = int(ctx.root(panel).generate_state(1)[0])
    spec = ProbeSpec(model, rho_a=rho_a, rho_b=rho_b, ns=ns, generator="gaussian", **parameters)
    return probe(spec, nxs, seeds=seeds, seed=seed, executor=ctx.executor,
                 workers=ctx.config.workers or 1)


def _curve(claim_id: str, case: FiniteSizeCase, nx: np.ndarray, ns: int, *,
           correction: bool = False) -> np.ndarray:
    """The claim's derived expression at (Nx, Ns, FINITE_SIZE_POINT, the case's levels);
    with ``correction``, derived - leading order."""
    names = tuple(_SYMBOLS[k] for k in case.parameters)
    variables = (Nx, Ns, rho_a, rho_b) + names
    args = (nx, float(ns)) + FINITE_SIZE_POINT + tuple(case.parameters.values())
    if correction:
        return theory.correction_curve(claim_id, variables)(*args)
    return theory.compile_expression(theory.derived(claim_id), variables)(*args)


def _ratios(case: FiniteSizeCase, ratios) -> tuple[float, ...]:
    """The Nx/Ns ratios measured for ``case``: with gates, only those with alpha Nx >= 4 Ns
    (plasticity gating needs Ns plastic inputs in every sample)."""
    level = case.parameters.get("alpha", 1.0)
    return tuple(r for r in ratios if level * r >= 4.0)


def _describe(law: Optional[PowerLaw], n_points: int) -> str:
    if law is None:
        return "too few points out of the noise to fit a slope"
    return (f"fitted slope {law.slope:.2f} +- {law.slope_se:.2f} on {int(law.used.sum())} of "
            f"{n_points} points")


@dataclass
class _Panel:
    """One case and quantity: measured deviations and the derived term, and what they say."""

    text: str
    z_resolved: list[float]
    surrogate_ratio: Optional[float]


def _panel(axis, case: FiniteSizeCase, which: str, points: list[PointResult], ns: int
           ) -> _Panel:
    ra, rb = FINITE_SIZE_POINT
    nx = np.array([p.nx for p in points], dtype=float)
    x = ns / nx
    names = tuple(_SYMBOLS[k] for k in case.parameters)
    lead = float(theory.curve(case.leading[which], (rho_a, rho_b) + names)(
        ra, rb, *case.parameters.values()))
    mean = np.array([getattr(p, which).mean for p in points])
    sem = np.array([getattr(p, which).sem for p in points])
    dev = mean - lead
    for mask, face, sign in ((dev > 0, "k", "+"), (dev <= 0, "white", "-")):
        if mask.any():
            axis.errorbar(x[mask], np.abs(dev[mask]), yerr=sem[mask], fmt="o", color="k",
                          markerfacecolor=face, elinewidth=0.8,
                          label=f"|exact - leading|, sign {sign}")
    dense = np.geomspace(nx[0], nx[-1], 120)
    nlo_id = nlo_claim(case.model, which)
    term = _curve(nlo_id, case, nx, ns)
    axis.plot(ns / dense, np.abs(_curve(nlo_id, case, dense, ns)), color="tab:orange",
              label="derived 1/Nx term")
    law = fit_power_law(x, dev, sem)
    if law is not None:
        axis.plot(x, law(x), "k--", linewidth=0.8, label=f"fit: slope {law.slope:.2f}")
    text = f"{case.label}, {which}: {_describe(law, len(x))}"
    if case.model == "vanilla" and which == "transfer":
        exact = _curve("vanilla.transfer.exact[gaussian]", case, dense, ns, correction=True)
        axis.plot(ns / dense, np.abs(exact), color="tab:green", linestyle="--",
                  label="exact closed form")
    surrogate_ratio = None
    if which in case.surrogate:
        surrogate = _curve(case.surrogate[which], case, nx, ns, correction=True)
        axis.plot(x, np.abs(surrogate), color="0.5", linestyle=":",
                  label="surrogate weights")
        surrogate_ratio = float(surrogate[-1] / dev[-1]) if dev[-1] != 0 else math.nan
        text += (f"; the surrogate weights' correction `{case.surrogate[which]}` is "
                 f"{fmt_number(surrogate_ratio, 3)} times the measured deviation at Nx/Ns = "
                 f"{fmt_number(nx[-1] / ns)}")
    resolved = nx / ns >= RESOLVED
    z = [float((d - t) / s) for d, t, s in zip(dev[resolved], term[resolved], sem[resolved])
         if s > 0]
    text += (f"; derived 1/Nx term `{nlo_id}`: measured/derived = "
             f"{fmt_number(float(dev[-1] / term[-1]), 3)} at Nx/Ns = {fmt_number(nx[-1] / ns)}"
             + (f", |z| <= {fmt_number(max(map(abs, z)), 2)} at Nx/Ns >= {RESOLVED:g}"
                if z else ""))
    axis.set_xscale("log")
    axis.set_yscale("log")
    symbol = "TF" if which == "transfer" else "RT"
    axis.set(xlabel="$N_s / N_x$", ylabel=f"|deviation| of $\\Delta\\epsilon_{{{symbol}}}$")
    axis.legend(loc="upper left", fontsize=6)
    return _Panel(text, z, surrogate_ratio)


def _verdict(panels: list[_Panel]) -> str:
    z = [abs(v) for p in panels for v in p.z_resolved]
    within = sum(v <= 3.0 for v in z)
    surrogate = [abs(p.surrogate_ratio) for p in panels if p.surrogate_ratio is not None
                 and math.isfinite(p.surrogate_ratio)]
    verdict = (f"the derived 1/Nx terms match the measured deviations within 3 standard errors "
               f"at {within} of {len(z)} sizes with Nx/Ns >= {RESOLVED:g} on {len(panels)} "
               f"panels (largest |z| = {fmt_number(max(z), 2)})" if z else
               "no size with Nx/Ns >= 100 was measured")
    if surrogate:
        verdict += (f"; the surrogate weights' corrections are {fmt_number(min(surrogate), 2)} "
                    f"to {fmt_number(max(surrogate), 2)} times the measured deviations")
    return verdict + "."


def finite_size_figure(ctx: FigureContext) -> list[FigureResult]:
    """|mean(exact) - leading order| against Ns/Nx for every case and quantity."""
    c = ctx.config
    ra, rb = FINITE_SIZE_POINT
    fig, axes = new_figure(2 * len(CASES), (15.5, 7.4), rows=2)
    panels = []
    for k, case in enumerate(CASES):
        ratios = _ratios(case, c.finite_ratios)
        nxs = sorted({int(round(r * c.finite_ns)) for r in ratios})
        ctx.progress(f"figures: finite size: {case.label}, {len(nxs)} sizes x "
                     f"{c.finite_seeds} seeds")
        points = measure_probe(ctx, f"finite_size.{case.model}", case.model, rho_a=ra,
                               rho_b=rb, ns=c.finite_ns, nxs=nxs, seeds=c.finite_seeds,
                               **case.parameters)
        for row, which in enumerate(("transfer", "retention")):
            axis = axes[row * len(CASES) + k]
            panels.append(_panel(axis, case, which, points, c.finite_ns))
            panel_label(axis, "ABCDEFGHIJKL"[row * len(CASES) + k],
                        f"{case.label}: {which}".replace("alpha", "$\\alpha$").replace(
                            "gamma", "$\\gamma$"))
    verdict = _verdict(panels)
    leading_claims = sorted({v for case in CASES for v in case.leading.values()})
    caption = (
        f"**Finite-size plots.** |mean(exact) - leading order| against Ns/Nx at "
        f"(rho_a, rho_b) = {FINITE_SIZE_POINT}, Ns = {c.finite_ns}, Nx/Ns in "
        f"{{{', '.join(fmt_number(r) for r in c.finite_ratios)}}} (Nx rounded to an integer; "
        f"gated cases: alpha Nx >= 4 Ns only). Numerics: the finite-size probe's engine "
        f"(exact fixed points from Wishart-sampled Gram matrices, gaussian generator; errors "
        f"averaged exactly over B), {c.finite_seeds} seeds per size (error bars: standard "
        f"error), panel seeds from root seed {ctx.seed}; filled markers: exact above leading "
        f"order, open: below. Leading orders: the derived claims "
        f"({', '.join(f'`{v}`' for v in leading_claims)}). "
        f"Orange: the derived next-to-leading term c/Nx (claims `*.nlo[gaussian]`, exact at "
        f"every Ns, no surrogate). Green dashed: the exact closed form of the vanilla transfer "
        f"(`vanilla.transfer.exact[gaussian]`). Grey dotted: the exact expectation of the "
        f"paper's surrogate weights, for contrast. Dashed: least-squares fit of log|deviation| "
        f"on log(Ns/Nx) over the points more than 3 standard errors from zero; z = (deviation "
        f"- c/Nx)/sem. " + "; ".join(p.text for p in panels) + "."
    )
    return [FigureResult("finite_size", "Finite-size deviations", caption, fig, verdict)]
