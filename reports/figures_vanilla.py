"""Fig. 1 of the paper (the vanilla model, eq_epsilon_vanilla) and the numeric heatmaps that
check its panels D and F point by point.

Theory: the leading orders of the derived claims ``vanilla.transfer`` and
``vanilla.retention``; the local extrema line of panel H solves d Delta eps_RT / d rho_a = 0
on that derived expression. Numerics: :func:`tasksim.reports.figures_context.FigureContext.linear`
(exact fixed points, eq_gd_fp_vanilla) and, for panel B, the paper's GD protocol.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from matplotlib.patches import Rectangle

from tasksim.derivations.latex import inline_math
from tasksim.derivations.symbols import rho_a, rho_b

from .figures_context import FigureContext, FigureResult, fmt_deviation, fmt_number
from .figures_numerics import deviation, learning_curves
from .figures_plot import (band_line, heatmap, new_figure, new_figure_grid, numeric_points,
                           palette, panel_label, theory_line)
from . import figures_theory as theory

__all__ = ["figure_1", "figure_1_numeric_heatmaps", "LEARNING_CURVE_POINT", "C_RHO_B",
           "G_RHO_B"]

LEARNING_CURVE_POINT = (0.5, 0.5)
"""(rho_a, rho_b) of the learning curves of Fig. 1B."""
C_RHO_B = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Readout similarities of the lines of Figs. 1C and 1E."""
G_RHO_B = (0.9, 0.95, 1.0)
"""Readout similarities of the lines of Fig. 1G (the high-rho_b regime of panel H)."""


def _grid(n: int, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    return np.linspace(lo, hi, n)


def _away(difference: float, se: float) -> str:
    """How far a mean lies from a value: in standard errors, or as a plain difference where
    there is no spread to measure it in (one seed, or seeds that agree).

    >>> _away(0.3, 0.1), _away(0.0, 0.0)
    ('3 standard errors', '0 (no spread over the seeds)')
    """
    if se > 0:
        return f"{fmt_number(abs(difference) / se, 2)} standard errors"
    return f"{fmt_number(abs(difference))} (no spread over the seeds)"


def figure_1(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 1B-H: learning curves, transfer and retention against the similarities."""
    c = ctx.config
    T = theory.curve("vanilla.transfer", (rho_a, rho_b))
    R = theory.curve("vanilla.retention", (rho_a, rho_b))
    fine = _grid(c.theory_points)
    coarse = _grid(c.line_points)
    # B C D on the first row (B two columns wide), E F G H on the second
    cells = [(0, slice(0, 2)), (0, slice(2, 3)), (0, slice(3, 4))] + \
        [(1, slice(k, k + 1)) for k in range(4)]
    fig, ax = new_figure_grid((15.5, 7.4), 2, 4, cells)

    # B: learning curves of the GD protocol
    ctx.progress("figures: fig1.B: GD learning curves")
    ra, rb = LEARNING_CURVE_POINT
    curves = learning_curves("vanilla", rho_a=ra, rho_b=rb, nx=c.nx, ns=c.ns, ny=c.ny,
                             seeds=c.gd_seeds, root=ctx.root("fig1.B"))
    steps = np.arange(curves.shape[1])
    epochs = (curves.shape[1] - 1) // 2
    colors = {"task 1": "tab:red", "task 2": "tab:blue"}
    for k, name in enumerate(colors):
        mean, sd = curves[:, :, k].mean(axis=0), curves[:, :, k].std(axis=0)
        band_line(ax[0], steps, mean, sd, colors[name], label=f"error on {name}", alpha=0.2)
    tf_gd = curves[:, 0, 1] - curves[:, epochs, 1]
    rt_gd = curves[:, 0, 0] - curves[:, 2 * epochs, 0]
    tf_th, rt_th = float(T(ra, rb)), float(R(ra, rb))
    ax[0].axvline(epochs, color="0.5", linewidth=0.8, linestyle=":")
    ax[0].annotate("", xy=(epochs, curves[:, epochs, 1].mean()), xytext=(epochs, curves[:, 0, 1].mean()),
                   arrowprops=dict(arrowstyle="<->", color="tab:blue"))
    ax[0].annotate("", xy=(2 * epochs, curves[:, 2 * epochs, 0].mean()),
                   xytext=(2 * epochs, curves[:, 0, 0].mean()),
                   arrowprops=dict(arrowstyle="<->", color="tab:red"))
    ax[0].text(epochs + 3, 0.55, f"$\\Delta\\epsilon_{{TF}}$ = {tf_gd.mean():.3f}\n"
               f"(theory {tf_th:.3f})", color="tab:blue", fontsize=7.5)
    ax[0].text(2 * epochs - 3, 0.55, f"$\\Delta\\epsilon_{{RT}}$ = {rt_gd.mean():.3f}\n"
               f"(theory {rt_th:.3f})", color="tab:red", fontsize=7.5, ha="right")
    ax[0].set(xlabel="iteration", ylabel="error $\\epsilon_\\mu$", xlim=(0, 2 * epochs),
              ylim=(0, None))
    ax[0].legend(loc="upper right")
    panel_label(ax[0], "B", f"GD, $(\\rho_a, \\rho_b) = ({ra}, {rb})$")

    # C and E: transfer and retention against rho_a, lines of rho_b
    points = [dict(rho_a=float(a), rho_b=float(b)) for b in C_RHO_B for a in coarse]
    est = ctx.linear("fig1.CE", "vanilla", points)
    colors_b = palette(len(C_RHO_B))
    for panel, (axis, which, fn) in zip("CE", ((ax[1], "transfer", T), (ax[3], "retention", R))):
        for i, (b, col) in enumerate(zip(C_RHO_B, colors_b)):
            rows = slice(i * len(coarse), (i + 1) * len(coarse))
            theory_line(axis, fine, fn(fine, b), col, label=f"$\\rho_b$ = {b}")
            numeric_points(axis, coarse, est.mean(which)[rows], est.sd(which)[rows], col)
        axis.axhline(0, color="0.7", linewidth=0.6)
        axis.set(xlabel="feature similarity $\\rho_a$",
                 ylabel=f"{which} $\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        axis.legend(loc="lower left", ncol=1)
        panel_label(axis, panel, f"{which} vs $\\rho_a$")
    theory_ce = np.array([[T(p["rho_a"], p["rho_b"]), R(p["rho_a"], p["rho_b"])]
                          for p in points])
    dev_c = deviation(est.mean("transfer"), theory_ce[:, 0], est.sem("transfer"))
    dev_e = deviation(est.mean("retention"), theory_ce[:, 1], est.sem("retention"))

    # D and F: heatmaps of the theory
    A, Bm = np.meshgrid(fine, fine)
    heatmap(fig, ax[2], T(A, Bm), extent=(0, 1, 0, 1), label="$\\Delta\\epsilon_{TF}$",
            vmin=-1, vmax=1, cmap="RdBu_r")
    ax[2].contour(A, Bm, T(A, Bm), levels=[0.0], colors="k", linewidths=0.7, linestyles="--")
    ax[2].set(xlabel="$\\rho_a$", ylabel="readout similarity $\\rho_b$")
    panel_label(ax[2], "D", "transfer (theory)")
    heatmap(fig, ax[4], R(A, Bm), extent=(0, 1, 0, 1), label="$\\Delta\\epsilon_{RT}$",
            vmin=-1, vmax=1, cmap="RdBu_r")
    ax[4].contour(A, Bm, R(A, Bm), levels=[0.0], colors="k", linewidths=0.7, linestyles="--")
    ax[4].add_patch(Rectangle((0, 0.9), 1, 0.1, fill=False, edgecolor="w", linestyle="--",
                              linewidth=1.0))
    ax[4].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
    panel_label(ax[4], "F", "retention (theory)")

    # G: retention against rho_a at high rho_b (finer rho_a grid)
    g_grid = _grid(2 * c.line_points - 1)
    g_points = [dict(rho_a=float(a), rho_b=float(b)) for b in G_RHO_B for a in g_grid]
    est_g = ctx.linear("fig1.G", "vanilla", g_points)
    for i, (b, col) in enumerate(zip(G_RHO_B, palette(len(G_RHO_B), "plasma"))):
        rows = slice(i * len(g_grid), (i + 1) * len(g_grid))
        theory_line(ax[5], fine, R(fine, b), col, label=f"$\\rho_b$ = {b}")
        numeric_points(ax[5], g_grid, est_g.mean("retention")[rows],
                       est_g.sd("retention")[rows], col)
    ax[5].set(xlabel="$\\rho_a$", ylabel="$\\Delta\\epsilon_{RT}$")
    ax[5].legend(loc="lower left")
    panel_label(ax[5], "G", "retention at high $\\rho_b$")
    theory_g = np.array([R(p["rho_a"], p["rho_b"]) for p in g_points])
    dev_g = deviation(est_g.mean("retention"), theory_g, est_g.sem("retention"))

    # H: magnification of F with the local extrema in rho_a
    hb = _grid(c.theory_points, 0.9, 1.0)
    Ah, Bh = np.meshgrid(fine, hb)
    heatmap(fig, ax[6], R(Ah, Bh), extent=(0, 1, 0.9, 1.0), label="$\\Delta\\epsilon_{RT}$")
    described = _draw_extrema(ax[6], hb)
    ax[6].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$", xlim=(0, 1), ylim=(0.9, 1.0))
    panel_label(ax[6], "H", "F magnified, extrema in $\\rho_a$")

    gd = _gd_phrase(curves, epochs, tf_th, rt_th, est, points)
    caption = (
        f"**Fig. 1 (vanilla model).** **B**: learning curves of the paper's GD protocol "
        f"(Appendix E.1: eta = 0.001, {epochs} + {epochs} full-batch steps from W = 0) at "
        f"(rho_a, rho_b) = {LEARNING_CURVE_POINT}, mean +- sd over {c.gd_seeds} seeds "
        f"({c.sizes()}, appendix generator, errors on the drawn readouts); the arrows are the "
        f"measured (mean +- sd over seeds) Delta eps_TF = {fmt_number(tf_gd.mean())} +- {fmt_number(tf_gd.std())} and "
        f"Delta eps_RT = {fmt_number(rt_gd.mean())} +- {fmt_number(rt_gd.std())} (theory "
        f"{fmt_number(tf_th)}, {fmt_number(rt_th)}); {gd}. "
        f"**C, E**: transfer and retention against rho_a for rho_b in {list(C_RHO_B)}; "
        f"**G**: retention at rho_b in {list(G_RHO_B)}. Lines are theory: the leading order "
        f"in Ns/Nx of the derived claims `vanilla.transfer` ({theory.status('vanilla.transfer')}) "
        f"and `vanilla.retention` ({theory.status('vanilla.retention')}), eq_epsilon_vanilla. "
        f"Points are numerics: {ctx.numerics_phrase()}. Finite-size deviations: C "
        f"{fmt_deviation(dev_c, points)}; E {fmt_deviation(dev_e, points)}; G "
        f"{fmt_deviation(dev_g, g_points)}. "
        f"**D, F**: the theory as heatmaps (dashed black: zero level; white box in F: the "
        f"region of H); the numeric heatmaps are in the next figure. **H**: F magnified to "
        f"0.9 <= rho_b <= 1; white dashed: the local extrema in rho_a, solved from "
        f"d Delta eps_RT / d rho_a = 0 on the derived retention: "
        f"{'; '.join(described) if described else 'none in this range'}."
    )
    worst = max((dev_c, dev_e, dev_g), key=lambda d: d.max_abs)
    verdict = (
        f"eq_epsilon_vanilla (`vanilla.transfer`, `vanilla.retention`: "
        f"{theory.status('vanilla.transfer')}): the exact fixed points of C, E and G differ "
        f"from its leading order by at most {fmt_number(worst.max_abs)} "
        f"({fmt_number(worst.max_abs / (c.ns / c.nx), 2)} Ns/Nx: the finite-size correction, "
        f"resolved by the seeds), with its asymmetry, the transfer peak at rho_a = rho_b and "
        f"the retention minimum at high rho_b; the paper's GD protocol (B): {gd}.")
    return [FigureResult("fig1_vanilla", "Fig. 1: the vanilla model", caption, fig,
                         verdict=verdict)]


def _gd_phrase(curves: np.ndarray, epochs: int, tf_th: float, rt_th: float, est,
               points: list[dict[str, float]]) -> str:
    """What panel B's numbers say: whether GD converged within each task (the error at its
    last step), the measured transfer and retention (mean +- standard error over seeds), how
    many standard errors each lies from the leading order and from the exact fixed point at
    the same point (panel C's numerics), and the smallest deviation the seeds resolve (3 SE).
    Numbers only: the verdict on eq_epsilon_vanilla is the registry's."""
    n = curves.shape[0]
    end = max(float(curves[:, epochs, 0].mean()), float(curves[:, 2 * epochs, 1].mean()))
    ra, rb = LEARNING_CURVE_POINT
    at = next((i for i, p in enumerate(points) if p["rho_a"] == ra and p["rho_b"] == rb), None)
    parts = []
    for name, which, gd, th in (("transfer", "transfer", curves[:, 0, 1] - curves[:, epochs, 1],
                                 tf_th),
                                ("retention", "retention",
                                 curves[:, 0, 0] - curves[:, 2 * epochs, 0], rt_th)):
        se = float(gd.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        text = (f"{name} {fmt_number(gd.mean())} +- {fmt_number(se)} (standard error, {n} "
                f"seeds), {_away(gd.mean() - th, se)} from the leading order {fmt_number(th)}")
        if at is not None:
            fp = float(est.mean(which)[at])
            text += (f" and {_away(gd.mean() - fp, se)} from the exact fixed point "
                     f"{fmt_number(fp)} (C, E)")
        parts.append(text)
    se_tf = float((curves[:, 0, 1] - curves[:, epochs, 1]).std(ddof=1) / np.sqrt(n)) \
        if n > 1 else float("nan")
    start = float(curves[:, 0, :].mean())
    reached = (f"GD has converged within each task (error {fmt_number(end, 2)} at its last "
               f"step), so B measures the fixed point on the drawn readouts"
               if end <= 1e-3 * start else
               f"GD has not converged within a task (error {fmt_number(end, 2)} at its last "
               f"step, {fmt_number(start, 2)} at the start), so B is not the fixed point")
    return (f"{reached}: {parts[0]}; {parts[1]}; the "
            f"spread over seeds comes from drawing the readouts, and {n} seeds resolve a "
            f"deviation of about {fmt_number(3 * se_tf, 2)} (3 standard errors) in the "
            f"transfer, not the finite-size correction of C, E and G")


def _draw_extrema(axis, rho_b_values: np.ndarray) -> list[str]:
    """Draw the local extrema rho_a*(rho_b) of the derived retention inside [0, 1] (white
    dashed) and describe each: its formula, where it is real, minimum or maximum."""
    retention = theory.leading("vanilla.retention")
    curvature = theory.compile_expression(sp.diff(retention, rho_a, 2), (rho_a, rho_b))
    described = []
    for expr, phi in theory.stationary_curves(retention, rho_a, rho_b):
        a_star = phi(rho_b_values)
        inside = np.isfinite(a_star) & (a_star >= 0) & (a_star <= 1)
        if not inside.any():
            continue
        (curve,) = axis.plot(np.where(inside, a_star, np.nan), rho_b_values, color="w",
                             linestyle="--", linewidth=1.2)
        curve.data_label = "derived extremum in rho_a"
        kinds = {("minimum" if k > 0 else "maximum")
                 for k in curvature(a_star[inside], rho_b_values[inside])}
        described.append(f"rho_a = {inline_math(expr)} ({'/'.join(sorted(kinds))}; inside the unit "
                         f"square for rho_b >= {fmt_number(rho_b_values[inside].min())} on the "
                         f"plotted grid)")
    return described


def figure_1_numeric_heatmaps(ctx: FigureContext) -> list[FigureResult]:
    """The numeric counterparts of Figs. 1D and 1F and their difference from the theory."""
    c = ctx.config
    T = theory.curve("vanilla.transfer", (rho_a, rho_b))
    R = theory.curve("vanilla.retention", (rho_a, rho_b))
    side = _grid(c.heatmap_side)
    points = [dict(rho_a=float(a), rho_b=float(b)) for b in side for a in side]
    est = ctx.linear("fig1.heatmaps", "vanilla", points, seeds=c.heatmap_seeds)
    half = 0.5 / (c.heatmap_side - 1)
    extent = (-half, 1 + half, -half, 1 + half)
    fig, ax = new_figure(4, (15.5, 3.6))
    devs = {}
    for k, (which, fn, label) in enumerate((("transfer", T, "TF"), ("retention", R, "RT"))):
        mean = est.mean(which).reshape(len(side), len(side))
        th = np.array([fn(p["rho_a"], p["rho_b"]) for p in points]).reshape(mean.shape)
        heatmap(fig, ax[2 * k], mean, extent=extent, label=f"$\\Delta\\epsilon_{{{label}}}$",
                vmin=-1, vmax=1, cmap="RdBu_r")
        panel_label(ax[2 * k], "ABCD"[2 * k], f"{which}, numerics")
        heatmap(fig, ax[2 * k + 1], mean - th, extent=extent, centred=True,
                label="numerics - theory")
        panel_label(ax[2 * k + 1], "ABCD"[2 * k + 1], f"{which}, numerics - theory")
        devs[which] = deviation(est.mean(which), th.ravel(), est.sem(which))
    for axis in ax:
        axis.set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
    caption = (
        f"**Fig. 1, numeric heatmaps.** **A, C**: transfer and retention of the vanilla model "
        f"on a {c.heatmap_side} x {c.heatmap_side} grid of (rho_a, rho_b) (each cell centred on "
        f"its grid point); numerics: {ctx.numerics_phrase(c.heatmap_seeds)}. **B, D**: numerics "
        f"minus theory (leading order of the derived `vanilla.transfer` and "
        f"`vanilla.retention`, eq_epsilon_vanilla). Transfer: "
        f"{fmt_deviation(devs['transfer'], points)}. Retention: "
        f"{fmt_deviation(devs['retention'], points)}. The finite-size figure measures how these "
        f"deviations scale with Ns/Nx."
    )
    worst = max(devs.values(), key=lambda d: d.max_abs)
    verdict = (
        f"the numeric heatmaps reproduce Figs. 1D and 1F: numerics minus theory stays within "
        f"{fmt_number(worst.max_abs)} over the {c.heatmap_side} x {c.heatmap_side} grid "
        f"(RMS {fmt_number(worst.rms)}) at {c.sizes()}.")
    return [FigureResult("fig1_numeric_heatmaps", "Fig. 1, numeric heatmaps", caption, fig,
                         verdict=verdict)]
