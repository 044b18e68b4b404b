"""Figs. 2, 3 and 7 of the paper: random and adaptive activity gating, plasticity gating,
soft-thresholding, and the phase diagram of the gating-level dependence.

Theory (leading order of derived claims): ``gating.transfer.random``,
``gating.retention.random`` (eq_rcg_epsilon_TF, eq_rcg_epsilon_RT), ``gating.optimal_alpha``,
``averages.*`` (uniform prior), ``plasticity.transfer`` / ``plasticity.retention`` and the
region ``phase_diagram.rising_region`` (fig_supp_phase). Numerics: exact fixed points of
``tasksim.solvers.linear_models`` at the configured sizes; soft-thresholding through
:mod:`tasksim.solvers.soft_threshold`.

Averages over the uniform prior are estimated, as in the paper, from 100 (rho_a, rho_b) pairs
with one seed each, here the centres of a 10 x 10 grid (a midpoint quadrature). The theory is
shown both exactly averaged (lines) and averaged over the same pairs, which separates the
quadrature error from the finite-size deviation.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from tasksim.derivations.symbols import alpha, alpha_t, rho_a, rho_b

from .figures_config import midpoint_grid
from .figures_context import FigureContext, FigureResult, fmt_deviation, fmt_number, fmt_point
from .figures_averages import (RT_COLOR, TF_COLOR, PriorAverage, average_caption,
                               averages_phrase, draw_average_panel, grid_points, prior_average)
from .figures_numerics import deviation
from .figures_plot import (baseline, heatmap, new_figure, numeric_points, palette, panel_label,
                           theory_line)
from . import figures_theory as theory

__all__ = ["figure_2", "figure_3", "figure_7", "ALPHA_LINES", "PHASE_POINTS"]

ALPHA_LINES = (0.25, 0.5, 0.75, 1.0)
"""Gating levels of the lines of Figs. 2A and 2C."""
PHASE_POINTS = {"B": (0.3, 0.8), "C": (0.9, 1.0), "D": (0.8, 0.3)}
"""Representative (rho_a, rho_b) of the three phases of Fig. 7 (checked against the derived
region when the figure is built)."""


def _random_gating_average(ctx: FigureContext) -> PriorAverage:
    c = ctx.config
    T = theory.curve("gating.transfer.random", (rho_a, rho_b, alpha))
    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    est = ctx.linear("averages.random-gating", "random-gating",
                     grid_points(c.alphas, "alpha", c.average_side), seeds=1)
    return prior_average(est, c.alphas, "alpha", c.average_side,
                         {"transfer": T, "retention": R})


def figure_2(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 2: random activity gating (eq_rcg_epsilon_TF, eq_rcg_epsilon_RT)."""
    c = ctx.config
    T = theory.curve("gating.transfer.random", (rho_a, rho_b, alpha))
    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    fine = np.linspace(0, 1, c.theory_points)
    coarse = np.linspace(0, 1, c.line_points)
    fig, ax = new_figure(4, (16.5, 3.8))

    points = [dict(rho_a=1.0, rho_b=float(b), alpha=a) for a in ALPHA_LINES for b in coarse]
    est = ctx.linear("fig2.AC", "random-gating", points)
    devs = {}
    for axis, which, fn, letter in ((ax[0], "transfer", T, "A"), (ax[2], "retention", R, "C")):
        for i, (a, col) in enumerate(zip(ALPHA_LINES, palette(len(ALPHA_LINES)))):
            rows = slice(i * len(coarse), (i + 1) * len(coarse))
            theory_line(axis, fine, fn(1.0, fine, a), col, label=f"$\\alpha$ = {a}")
            numeric_points(axis, coarse, est.mean(which)[rows], est.sd(which)[rows], col)
        axis.axhline(0, color="0.7", linewidth=0.6)
        axis.set(xlabel="readout similarity $\\rho_b$",
                 ylabel=f"$\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        axis.legend(loc="upper left" if which == "transfer" else "lower right")
        panel_label(axis, letter, f"{which} at $\\rho_a = 1$")
        th = np.array([fn(p["rho_a"], p["rho_b"], p["alpha"]) for p in points])
        devs[which] = deviation(est.mean(which), th, est.sem(which))

    alpha_star = theory.leading("gating.optimal_alpha")
    transfer_at_star = theory.leading("gating.transfer.random").subs(alpha, alpha_star)
    T_star = theory.compile_expression(transfer_at_star, (rho_a, rho_b))
    A, B = np.meshgrid(fine[1:], fine)  # rho_a > 0: alpha* = min(1, rho_b/rho_a)
    heatmap(fig, ax[1], T_star(A, B), extent=(fine[1], 1, 0, 1),
            label="$\\Delta\\epsilon_{TF}(\\alpha^*)$", vmin=-1, vmax=1, cmap="RdBu_r")
    ax[1].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
    panel_label(ax[1], "B", "transfer at $\\alpha^*$ (theory)")

    avg = _random_gating_average(ctx)
    exact = {"transfer": theory.curve("averages.random.transfer", (alpha,)),
             "retention": theory.curve("averages.random.retention", (alpha,))}
    vanilla = {w: float(theory.leading(f"averages.vanilla.{w}")) for w in exact}
    draw_average_panel(ax[3], avg, exact, vanilla)
    ax[3].set(xlabel="gating level $\\alpha$", ylabel="average $\\Delta\\epsilon$")
    panel_label(ax[3], "D", "averages over the uniform prior")

    caption = (
        f"**Fig. 2 (random activity gating).** **A, C**: transfer and retention at rho_a = 1 "
        f"against rho_b for alpha in {list(ALPHA_LINES)}; lines: leading order of the derived "
        f"`gating.transfer.random` ({theory.status('gating.transfer.random')}) and "
        f"`gating.retention.random` ({theory.status('gating.retention.random')}), "
        f"eq_rcg_epsilon_TF/RT; points: {ctx.numerics_phrase()} (at rho_a = 1 both generators "
        f"give A_2 = A_1). Deviations: A {fmt_deviation(devs['transfer'], points)}; C "
        f"{fmt_deviation(devs['retention'], points)}. "
        f"**B**: theory only: the derived transfer at the derived optimal gating level "
        f"alpha* = {sp.sstr(alpha_star)} (`gating.optimal_alpha`, "
        f"{theory.status('gating.optimal_alpha')}), rho_a > 0. "
        f"**D**: averages over the uniform prior against alpha; lines: the derived "
        f"`averages.random.transfer` = {sp.sstr(theory.leading('averages.random.transfer'))} "
        f"and `averages.random.retention` = "
        f"{sp.sstr(theory.leading('averages.random.retention'))}; dashed: vanilla "
        f"(`averages.vanilla.*` = {vanilla['transfer']:.4f}, {vanilla['retention']:.4f}); "
        f"{averages_phrase(ctx)}. {average_caption('D', avg, exact, 'alpha')}."
    )
    return [FigureResult("fig2_random_gating", "Fig. 2: random activity gating", caption, fig)]


def figure_3(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 3: adaptive vs random gating (A, B), plasticity gating (C), soft-thresholding (D)."""
    c = ctx.config
    fig, ax = new_figure(4, (16.5, 3.8))
    vanilla = {w: float(theory.leading(f"averages.vanilla.{w}")) for w in ("transfer",
                                                                              "retention")}
    fine = np.linspace(0.02, 1, 200)

    # A, B: adaptive (solid) vs random (dashed)
    random_avg = _random_gating_average(ctx)
    adaptive_est = ctx.linear("averages.adaptive-gating", "adaptive-gating",
                              grid_points(c.alphas, "alpha", c.average_side), seeds=1)
    alpha_tilde = theory.leading("gating.adaptive_alpha_tilde")
    adaptive_fn = {w: theory.compile_expression(
        theory.leading(f"gating.{w}").subs(alpha_t, alpha_tilde),
        (rho_a, rho_b, alpha)) for w in ("transfer", "retention")}
    adaptive_avg = prior_average(adaptive_est, c.alphas, "alpha", c.average_side, adaptive_fn)
    texts = []
    for axis, which, letter in ((ax[0], "transfer", "A"), (ax[1], "retention", "B")):
        color = TF_COLOR if which == "transfer" else RT_COLOR
        adaptive_exact = theory.curve(f"averages.adaptive.{which}", (alpha,))
        random_exact = theory.curve(f"averages.random.{which}", (alpha,))
        theory_line(axis, fine, adaptive_exact(fine), color, label="adaptive (theory)")
        theory_line(axis, fine, random_exact(fine), color, label="random (theory)",
                    linestyle="--", alpha=0.7)
        numeric_points(axis, adaptive_avg.x, adaptive_avg.numeric[which],
                       adaptive_avg.sem[which], color, label="adaptive (numerics)")
        numeric_points(axis, random_avg.x, random_avg.numeric[which], random_avg.sem[which],
                       color, marker="s", filled=False, label="random (numerics)")
        baseline(axis, vanilla[which], "0.5", label="vanilla")
        axis.set(xlabel="gating level $\\alpha$",
                 ylabel=f"average $\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        axis.legend(loc="lower right", fontsize=6.5)
        panel_label(axis, letter, f"adaptive vs random gating: {which}")
        texts.append(average_caption(f"{letter} adaptive", adaptive_avg,
                                      {which: adaptive_exact}, "alpha"))

    # C: plasticity gating
    plastic = {w: theory.curve(f"plasticity.{w}", (rho_a, rho_b)) for w in ("transfer",
                                                                             "retention")}
    plastic_average = {w: float(theory.uniform_average(theory.leading(f"plasticity.{w}")))
                       for w in plastic}
    plastic_est = ctx.linear("averages.plasticity-gating", "plasticity-gating",
                             grid_points(c.alphas, "alpha", c.average_side), seeds=1)
    plastic_avg = prior_average(plastic_est, c.alphas, "alpha", c.average_side,
                                {w: (lambda a, b, x, f=f: f(a, b)) for w, f in plastic.items()})
    plastic_exact = {w: (lambda x, v=v: np.full_like(np.asarray(x, dtype=float), v))
                     for w, v in plastic_average.items()}
    draw_average_panel(ax[2], plastic_avg, plastic_exact, vanilla)
    ax[2].set(xlabel="fraction of plastic synapses $\\alpha$", ylabel="average $\\Delta\\epsilon$")
    panel_label(ax[2], "C", "plasticity gating")

    # D: soft-thresholding (paper protocol and gradient-flow limit)
    soft_points = grid_points(c.soft_alphas, "alpha", c.soft_side)
    soft = ctx.soft_threshold("averages.soft-threshold", soft_points)
    a, b = midpoint_grid(c.soft_side)
    n = len(a)
    vanilla_fn = {w: theory.curve(f"vanilla.{w}", (rho_a, rho_b)) for w in ("transfer",
                                                                             "retention")}
    soft_text = []
    for which, color in (("transfer", TF_COLOR), ("retention", RT_COLOR)):
        on_grid = float(vanilla_fn[which](a, b).mean())
        baseline(ax[3], vanilla[which], color, label=f"{which}: vanilla average")
        ax[3].axhline(on_grid, color=color, linestyle=":", linewidth=1.0,
                      label=f"{which}: vanilla on the {n} pairs")
        for method, marker, filled in (("gd", "o", True), ("exact", "s", False)):
            values = soft.samples[f"{which}_{method}"][:, 0].reshape(len(c.soft_alphas), n)
            residual = values - vanilla_fn[which](a, b)  # per pair, against vanilla theory
            numeric_points(ax[3], np.asarray(c.soft_alphas), values.mean(axis=1),
                           residual.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else None, color,
                           marker=marker, filled=filled,
                           label=f"{which}: {'paper protocol' if method == 'gd' else 'flow limit'}")
            d = deviation(values.mean(axis=1), np.full(len(c.soft_alphas), on_grid))
            soft_text.append(f"{which}, {'protocol' if method == 'gd' else 'flow limit'}: "
                             f"{fmt_deviation(d, [{'alpha': x} for x in c.soft_alphas])}")
    ax[3].set(xlabel="input sparsity $\\alpha$", ylabel="average $\\Delta\\epsilon$")
    means = np.concatenate([soft.samples[k][:, 0].reshape(len(c.soft_alphas), n).mean(axis=1)
                            for k in soft.samples])
    if np.abs(means).max() > 1.5:  # averages far outside [-1, 1]: keep the rest legible
        ax[3].set_yscale("symlog", linthresh=1.0)
        soft_text.append("the y axis is symmetric-log (linear within +-1) because some "
                         f"averages lie far outside [-1, 1] (extreme: "
                         f"{fmt_number(float(means[np.argmax(np.abs(means))]))})")
    ax[3].legend(loc="lower right", fontsize=6)
    panel_label(ax[3], "D", "soft-thresholding")

    caption = (
        f"**Fig. 3.** **A, B**: average transfer and retention over the uniform prior against "
        f"alpha, adaptive gating (solid line: the derived `averages.adaptive.transfer` / "
        f"`.retention`, status {theory.status('averages.adaptive.transfer')}: the paper prints "
        f"no value; filled markers) and random gating (dashed line: `averages.random.*`; open "
        f"squares: the numerics of Fig. 2D); grey dashed: vanilla. Adaptive numerics: probe "
        f"trial on the drawn readouts, rho_g = max(0, 1 - eps_pb/eps_o), errors on the drawn "
        f"readouts; {averages_phrase(ctx)}. {'; '.join(texts)}. "
        f"**C**: plasticity gating; lines: the derived `plasticity.transfer` "
        f"({theory.status('plasticity.transfer')}) and `plasticity.retention` "
        f"({theory.status('plasticity.retention')}) averaged exactly "
        f"({fmt_number(plastic_average['transfer'], 4)}, "
        f"{fmt_number(plastic_average['retention'], 4)}: independent of alpha and equal to the "
        f"vanilla averages, dashed); same numerics. "
        f"{average_caption('C', plastic_avg, plastic_exact, 'alpha')}. "
        f"**D**: soft-thresholding, h = sqrt(2) erfcinv(alpha); no derived claim in the "
        f"registry: the paper's claim is that transfer and retention do not depend on alpha, "
        f"i.e. equal the vanilla model's (dashed: vanilla averages; dotted: the vanilla theory "
        f"averaged over the same {n} pairs). Numerics at smaller sizes than the other panels "
        f"(the exact input moments cost O(Nx^3) per task): Nx = {c.soft_nx}, Ns = {c.soft_ns} "
        f"(Nx/Ns = {c.soft_nx // c.soft_ns}), Ny = {c.ny}, appendix generator, the {n} centres of "
        f"a {c.soft_side} x {c.soft_side} grid, one seed each, errors averaged exactly over B "
        f"given A (tasksim.solvers.soft_threshold); error bars: standard error of the mean of numerics - vanilla theory over the pairs; filled: the paper's protocol (5,000 steps, eta = "
        f"0.01, exact expected gradients), open: its gradient-flow limit. Numerics minus the "
        f"vanilla theory on the same pairs: {'; '.join(soft_text)}."
    )
    return [FigureResult("fig3_adaptive_plasticity_soft", "Fig. 3: adaptive gating, plasticity "
                         "gating, soft-thresholding", caption, fig)]


def figure_7(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 7 (fig_supp_phase): the phases of the gating-level dependence."""
    c = ctx.config
    region = theory.derived("phase_diagram.rising_region")
    rising = theory.region_mask(region, (rho_a, rho_b))
    T = theory.curve("gating.transfer.random", (rho_a, rho_b, alpha))
    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    fig, ax = new_figure(4, (16.5, 3.8))

    grid = np.linspace(0, 1, 2 * c.theory_points)[1:]
    A, B = np.meshgrid(grid, grid)
    red = rising(A, B)
    below = B < A
    phase = np.where(red & below, 3, np.where(red, 2, np.where(below, 1, 0)))
    from matplotlib.colors import ListedColormap

    colors = ["#d9d9d9", "#6baed6", "#de2d26", "#8856a7"]
    ax[0].imshow(phase, origin="lower", extent=(grid[0], 1, grid[0], 1), aspect="auto",
                 cmap=ListedColormap(colors), vmin=-0.5, vmax=3.5, interpolation="nearest")
    overlap_area = float((red & below).mean())
    for letter, (pa, pb) in PHASE_POINTS.items():
        ax[0].plot(pa, pb, "ko", markersize=4)
        ax[0].annotate(letter, (pa, pb), xytext=(4, -10), textcoords="offset points",
                       fontweight="bold")
    _check_phase_points(rising)
    from matplotlib.patches import Patch

    ax[0].legend(handles=[Patch(color=colors[0], label="B: tradeoff ($\\rho_b \\geq \\rho_a$)"),
                          Patch(color=colors[1], label="D: $\\rho_b < \\rho_a$"),
                          Patch(color=colors[2], label="C: retention rises (red region)"),
                          Patch(color=colors[3], label="C and D overlap")],
                 loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=6)
    ax[0].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
    panel_label(ax[0], "A", "phase diagram (theory)")

    alphas = np.asarray(c.alphas)
    fine = np.linspace(0.01, 1, c.theory_points)
    points = [dict(rho_a=pa, rho_b=pb, alpha=float(a)) for pa, pb in PHASE_POINTS.values()
              for a in alphas]
    est = ctx.linear("fig7.BCD", "random-gating", points)
    texts = []
    for k, (letter, (pa, pb)) in enumerate(PHASE_POINTS.items()):
        axis = ax[k + 1]
        rows = slice(k * len(alphas), (k + 1) * len(alphas))
        for which, fn, color in (("transfer", T, TF_COLOR), ("retention", R, RT_COLOR)):
            theory_line(axis, fine, fn(pa, pb, fine), color, label=f"{which} (theory)")
            numeric_points(axis, alphas, est.mean(which)[rows], est.sd(which)[rows], color,
                           label=f"{which} (numerics)")
            th = fn(pa, pb, alphas)
            d = deviation(est.mean(which)[rows], th, est.sem(which)[rows])
            texts.append(f"{letter} {which}: "
                         f"{fmt_deviation(d, [{'alpha': float(a)} for a in alphas])}")
        axis.set(xlabel="gating level $\\alpha$", ylabel="$\\Delta\\epsilon$")
        axis.legend(loc="best", fontsize=6.5)
        panel_label(axis, letter, fmt_point({"rho_a": pa, "rho_b": pb}).replace(
            "rho_a", "$\\rho_a$").replace("rho_b", "$\\rho_b$"))

    caption = (
        f"**Fig. 7 (fig_supp_phase).** **A**: the phases of the gating-level dependence, theory "
        f"only: red, where the derived random-gating retention rises with alpha somewhere in "
        f"(0, 1] (`phase_diagram.rising_region`, {theory.status('phase_diagram.rising_region')}"
        f": {sp.sstr(region)}); blue, rho_b < rho_a (high alpha lowers both, "
        f"`phase_diagram.high_alpha_hurts_both`); grey, the monotonic tradeoff. Purple: the red "
        f"region inside rho_b < rho_a (area {fmt_number(overlap_area, 3)} of the unit square on "
        f"this grid), drawn by the paper as if the phases were disjoint "
        f"(`phase_diagram.overlap_of_phases`). **B-D**: transfer and retention against alpha at "
        f"the marked points; lines: leading order of the derived `gating.transfer.random` and "
        f"`gating.retention.random`; points: {ctx.numerics_phrase()}. Deviations: "
        f"{'; '.join(texts)}."
    )
    return [FigureResult("fig7_phase_diagram", "Fig. 7: phases of the gating-level dependence",
                         caption, fig)]


def _check_phase_points(rising) -> None:
    """The representative points must lie in their phases (of the derived region)."""
    in_red = {k: bool(rising(np.array(a), np.array(b))) for k, (a, b) in PHASE_POINTS.items()}
    ra, rb = PHASE_POINTS["B"]
    ok = (not in_red["B"] and rb >= ra) and in_red["C"] and \
        (not in_red["D"] and PHASE_POINTS["D"][1] < PHASE_POINTS["D"][0])
    if not ok:
        raise ValueError(f"PHASE_POINTS {PHASE_POINTS} are not one per phase of the derived "
                         f"region (in the red region: {in_red})")
