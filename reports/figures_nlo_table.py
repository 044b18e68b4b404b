"""Next-to-leading order at the paper's sizes: leading order, leading + derived 1/Nx term, and
the measurement, on a grid of (rho_a, rho_b) for every Gram-based model of the finite-size
figure, as a table (in the caption) and a plot of measured against predicted deviations.

At Nx = 3000, Ns = 30 (the paper's sizes; paper mode) the finite-size term c/Nx is of the
order of 0.01: is the paper's leading order enough, and does the derived term account for the
rest? Each cell is measured by the finite-size probe's engine
(:func:`tasksim.reports.figures_finite_size.measure_probe`, gaussian generator) and compared
with the derived expressions of the registry: the leading-order claims of
:data:`tasksim.reports.figures_finite_size.CASES` and the claims ``*.nlo[gaussian]``.
"""
from __future__ import annotations

import numpy as np

from tasksim.derivations.symbols import Ns, Nx, alpha, gamma, rho_a, rho_b

from .figures_context import FigureContext, FigureResult, fmt_number
from .figures_finite_size import CASES, measure_probe, nlo_claim
from .figures_plot import new_figure, palette, panel_label
from . import figures_theory as theory

__all__ = ["TABLE_GRID", "nlo_table_figure"]

TABLE_GRID = (0.2, 0.5, 0.8)
"""rho_a and rho_b values of the table (a 3 x 3 grid)."""

_SYMBOLS = {"alpha": alpha, "gamma": gamma}


def _rows(ctx: FigureContext) -> list[dict]:
    c = ctx.config
    rows = []
    for case in CASES:
        names = tuple(_SYMBOLS[k] for k in case.parameters)
        levels = tuple(case.parameters.values())
        for ra in TABLE_GRID:
            for rb in TABLE_GRID:
                ctx.progress(f"figures: NLO table: {case.label}, ({ra}, {rb})")
                (point,) = measure_probe(ctx, f"nlo_table.{case.model}.{ra}.{rb}", case.model,
                                         rho_a=ra, rho_b=rb, ns=c.ns, nxs=[c.nx],
                                         seeds=c.table_seeds, **case.parameters)
                row = {"case": case.label, "rho_a": ra, "rho_b": rb}
                for which in ("transfer", "retention"):
                    lead = float(theory.curve(case.leading[which], (rho_a, rho_b) + names)(
                        ra, rb, *levels))
                    term = float(theory.compile_expression(
                        theory.derived(nlo_claim(case.model, which)),
                        (Nx, Ns, rho_a, rho_b) + names)(c.nx, c.ns, ra, rb, *levels))
                    estimate = getattr(point, which)
                    row[which] = {"leading": lead, "term": term, "mean": estimate.mean,
                                  "sem": estimate.sem}
                rows.append(row)
    return rows


def _z(cell: dict, with_term: bool) -> float:
    predicted = cell["leading"] + (cell["term"] if with_term else 0.0)
    return (cell["mean"] - predicted) / cell["sem"] if cell["sem"] > 0 else 0.0


def _table(rows: list[dict]) -> str:
    lines = ["| case | rho_a | rho_b | TF: leading | TF: + NLO | TF: measured | TF: z | "
             "RT: leading | RT: + NLO | RT: measured | RT: z |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        cells = []
        for which in ("transfer", "retention"):
            cell = row[which]
            cells += [f"{cell['leading']:.5f}", f"{cell['leading'] + cell['term']:.5f}",
                      f"{cell['mean']:.5f} +- {cell['sem']:.2g}", f"{_z(cell, True):.1f}"]
        lines.append(f"| {row['case']} | {row['rho_a']:g} | {row['rho_b']:g} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def nlo_table_figure(ctx: FigureContext) -> list[FigureResult]:
    """Measured deviation from the leading order against the derived 1/Nx term, per model and
    (rho_a, rho_b), at the configured sizes; the table of values in the caption."""
    c = ctx.config
    rows = _rows(ctx)
    fig, axes = new_figure(2, (9.5, 4.0))
    colours = palette(len(CASES))
    for axis, (letter, which) in zip(axes, enumerate(("transfer", "retention"))):
        for colour, case in zip(colours, CASES):
            mine = [r[which] for r in rows if r["case"] == case.label]
            term = np.array([cell["term"] for cell in mine])
            deviation = np.array([cell["mean"] - cell["leading"] for cell in mine])
            axis.errorbar(term, deviation, yerr=[cell["sem"] for cell in mine], fmt="o",
                          color=colour, markersize=3.5, elinewidth=0.8, label=case.label)
        low = min(min(r[which]["term"], r[which]["mean"] - r[which]["leading"]) for r in rows)
        high = max(max(r[which]["term"], r[which]["mean"] - r[which]["leading"]) for r in rows)
        axis.plot([low, high], [low, high], color="tab:orange", label="leading + NLO")
        axis.axhline(0.0, color="0.5", linestyle="--", linewidth=1.0, label="leading order")
        axis.set(xlabel="derived 1/Nx term c/Nx", ylabel=f"measured {which} - leading order")
        axis.legend(loc="upper left", fontsize=6)
        panel_label(axis, "AB"[letter], which)
    cells = [r[which] for r in rows for which in ("transfer", "retention")]
    z_nlo = np.array([_z(cell, True) for cell in cells])
    z_lead = np.array([_z(cell, False) for cell in cells])
    remainder = np.array([cell["mean"] - cell["leading"] - cell["term"] for cell in cells])
    term = np.array([cell["term"] for cell in cells])
    largest = float(np.max(np.abs(remainder)))
    sizable = np.abs(term) > 1e-3
    share = (float(np.max(np.abs(remainder[sizable] / term[sizable]))) if sizable.any()
             else None)
    verdict = (f"at Nx = {c.nx}, Ns = {c.ns}, the leading order alone is within 3 standard "
               f"errors of the measurement in {int(np.sum(np.abs(z_lead) <= 3))} of {len(cells)} "
               f"cells (largest |z| = {fmt_number(float(np.max(np.abs(z_lead))), 2)}), leading "
               f"+ NLO in {int(np.sum(np.abs(z_nlo) <= 3))} (largest |z| = "
               f"{fmt_number(float(np.max(np.abs(z_nlo))), 2)}); what remains (the O(Nx^-2) "
               f"term and noise) is at most {fmt_number(largest, 2)} against 1/Nx terms up to "
               f"{fmt_number(float(np.max(np.abs(term))), 2)}"
               + ("." if share is None else f" ({fmt_number(100 * share, 2)} % of the 1/Nx "
                                            "term at most, where that exceeds 0.001)."))
    caption = (
        f"**Next-to-leading order at Nx = {c.nx}, Ns = {c.ns}.** Transfer (TF) and retention "
        f"(RT) on the grid rho_a, rho_b in {TABLE_GRID} for the cases of the finite-size plots "
        f"(leading orders: their derived claims; NLO: the derived term c/Nx of the claims "
        f"`vanilla.transfer.nlo[gaussian]`, `gating.random.transfer.nlo[gaussian]`, "
        f"`euclidean.transfer.nlo[gaussian]`, `plasticity.transfer.nlo[gaussian]` and their "
        f"retention counterparts). Measured: the finite-size probe's engine (exact fixed "
        f"points, Wishart-sampled Grams, gaussian generator, errors averaged exactly over B), "
        f"{c.table_seeds} seeds per cell, cell seeds from root seed {ctx.seed}. The plot shows "
        f"measured - leading order against c/Nx (orange: leading + NLO; dashed: leading order "
        f"alone); largest |numerics - theory| with the NLO term: {fmt_number(largest)}; z = "
        f"(measured - prediction)/sem.\n\n" + _table(rows) + "\n"
    )
    return [FigureResult("finite_size_paper_sizes", "Next-to-leading order at the paper's sizes",
                         caption, fig, verdict)]
