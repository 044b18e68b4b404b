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

from typing import Any

import numpy as np
import sympy as sp

from tasksim.derivations.latex import inline_math
from tasksim.derivations.symbols import alpha, alpha_t, rho_a, rho_b

from .figures_config import midpoint_grid
from .figures_context import (FigureContext, FigureResult, fmt_deviation,
                              fmt_largest_deviation, fmt_number, fmt_point)
from .figures_averages import (RT_COLOR, TF_COLOR, PriorAverage, average_caption,
                               averages_phrase, draw_average_panel, grid_points, prior_average)
from .figures_numerics import deviation
from .figures_plot import (baseline, heatmap, new_figure, numeric_points, palette, panel_label,
                           theory_line)
from . import figures_theory as theory

__all__ = ["figure_2", "figure_3", "figure_7", "RHO_B_LINES", "LINE_STYLES", "PHASE_POINTS"]

RHO_B_LINES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Readout similarities of the lines of Figs. 2A and 2C (at rho_a = 1, against alpha)."""
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)))
"""Line styles cycled over the lines of a panel, so that coinciding curves stay visible."""
PHASE_POINTS = {"B": (0.3, 0.8), "C": (0.9, 1.0), "D": (0.8, 0.3)}
"""Representative (rho_a, rho_b) of the three phases of Fig. 7 (checked against the derived
region when the figure is built)."""


def _random_gating_average(ctx: FigureContext) -> PriorAverage:
    c = ctx.config
    T = theory.curve("gating.transfer.random", (rho_a, rho_b, alpha))
    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    est = ctx.prior_linear("averages.random-gating", "random-gating", "alpha", c.alphas)
    return prior_average(est, c.alphas, "alpha", c.average_side,
                         {"transfer": T, "retention": R})


def _retention_trend(R: Any, fine: np.ndarray) -> str:
    """How the leading-order retention at rho_a = 1 moves with alpha on each line of Fig. 2C
    (REFEREE30 m1: it falls for small rho_b, while near rho_b = 1 it dips and rises back to
    the vanilla value, inside Fig. 7's region where retention rises with alpha)."""
    falling, dipping = [], []
    for b in RHO_B_LINES:
        values = np.asarray(R(1.0, b, fine), dtype=float)
        if np.all(np.diff(values) < 0):
            falling.append(f"{b:g}")
        else:
            low = float(fine[int(np.argmin(values))])
            dipping.append(f"rho_b = {b:g} (lowest at alpha = {low:.2f})")
    if not dipping:
        return "the retention falls as alpha grows for every rho_b"
    return (f"the retention falls as alpha grows for rho_b = {', '.join(falling)}, and "
            f"rises again after a dip for {', '.join(dipping)}: Fig. 7's region where "
            f"retention rises with alpha")


def _paired_against_alpha_one(values: np.ndarray, alphas: np.ndarray) -> str:
    """Each level's values (``values[level, pair]``) minus the same pairs' values at alpha = 1,
    as mean +- standard error of the paired differences (REFEREE30 m6: Fig. 3D's bars are the
    spread over the prior, which hides an alpha dependence the pairing resolves)."""
    ones = np.flatnonzero(np.isclose(alphas, 1.0))
    if not len(ones) or values.shape[1] < 2:
        return "not measured (no alpha = 1 or one pair)"
    diff = values - values[ones[0]]
    parts = [f"{fmt_number(float(d.mean()))} +- "
             f"{fmt_number(float(d.std(ddof=1) / np.sqrt(len(d))))} at alpha = {x:g}"
             for x, d in zip(alphas, diff) if not np.isclose(x, 1.0)]
    return ", ".join(parts)


def _coinciding_lines(vanilla_fn: Any, diagonal_fn: Any, a: np.ndarray, b: np.ndarray) -> str:
    """A clause naming Fig. 3D's reference lines that lie on one another (REFEREE30 n4: with
    the diagonal kept the derived retention is rho_a (2 rho_b - rho_a), the vanilla transfer,
    so its dotted line hides under the transfer's lines), or ''."""
    lines = {"the vanilla transfer": float(vanilla_fn["transfer"](a, b).mean()),
             "the derived transfer with the diagonal kept":
                 float(diagonal_fn["transfer"](a, b).mean()),
             "the derived retention with the diagonal kept":
                 float(diagonal_fn["retention"](a, b).mean())}
    names = list(lines)
    same = [n for n in names[1:] if abs(lines[n] - lines[names[0]]) < 1e-12]
    if not same:
        return ""
    return (f"{' and '.join(same)} equal{'s' if len(same) == 1 else ''} {names[0]} on these pairs "
            f"({fmt_number(lines[names[0]])}), so their lines lie on one another; ")


def figure_2(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 2: random activity gating (eq_rcg_epsilon_TF, eq_rcg_epsilon_RT). Panels A and C
    as the paper draws them: against the gating level alpha at rho_a = 1, one line per rho_b
    (the line rho_b = 1 is the paper's lime line, rho_b < rho_a its blue lines), the optimum
    alpha* = min(rho_b/rho_a, 1) marked on the transfer lines."""
    c = ctx.config
    T = theory.curve("gating.transfer.random", (rho_a, rho_b, alpha))
    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    fine = np.linspace(0.01, 1, c.theory_points)
    alphas = np.asarray(c.alphas)
    fig, ax = new_figure(4, (16.5, 3.8))

    points = [dict(rho_a=1.0, rho_b=b, alpha=float(a)) for b in RHO_B_LINES for a in alphas]
    est = ctx.linear("fig2.AC", "random-gating", points)
    star = theory.compile_expression(theory.leading("gating.optimal_alpha"), (rho_a, rho_b))
    devs = {}
    for axis, which, fn, letter in ((ax[0], "transfer", T, "A"), (ax[2], "retention", R, "C")):
        for i, (b, col) in enumerate(zip(RHO_B_LINES, palette(len(RHO_B_LINES), "plasma"))):
            rows = slice(i * len(alphas), (i + 1) * len(alphas))
            theory_line(axis, fine, fn(1.0, b, fine), col, label=f"$\\rho_b$ = {b:g}",
                        linestyle=LINE_STYLES[i % len(LINE_STYLES)])
            numeric_points(axis, alphas, est.mean(which)[rows], est.sd(which)[rows], col)
            if which == "transfer" and b > 0:
                a_star = float(star(1.0, b))
                axis.plot([a_star], [float(fn(1.0, b, a_star))], marker="*", color=col,
                          markersize=10, markeredgecolor="k", markeredgewidth=0.5, zorder=4)
        axis.axhline(0, color="0.7", linewidth=0.6)
        axis.set(xlabel="gating level $\\alpha$",
                 ylabel=f"$\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        axis.legend(loc="lower left" if which == "transfer" else "lower left", fontsize=6.5)
        panel_label(axis, letter, f"{which} at $\\rho_a = 1$")
        th = np.array([fn(p["rho_a"], p["rho_b"], p["alpha"]) for p in points])
        devs[which] = deviation(est.mean(which), th, est.sem(which))

    alpha_star = theory.leading("gating.optimal_alpha")
    transfer_at_star = theory.leading("gating.transfer.random").subs(alpha, alpha_star)
    T_star = theory.compile_expression(transfer_at_star, (rho_a, rho_b))
    grid = np.linspace(0, 1, c.theory_points)
    A, B = np.meshgrid(grid[1:], grid)  # rho_a > 0: alpha* = min(1, rho_b/rho_a)
    heatmap(fig, ax[1], T_star(A, B), extent=(grid[1], 1, 0, 1),
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

    best = float(avg.x[int(np.argmax(avg.numeric["transfer"]))])
    at_levels = np.asarray(exact["transfer"](np.asarray(avg.x, dtype=float)), dtype=float)
    top = [fmt_number(float(x)) for x, v in zip(avg.x, at_levels)
           if v >= at_levels.max() - 1e-12]
    falls = bool(np.all(np.diff(avg.numeric["retention"]) < 0))
    worst = max(devs.values(), key=lambda d: d.rms)
    verdict = (
        f"as eq_rcg_epsilon_TF/RT predict, at rho_a = 1 the transfer peaks at alpha* = rho_b "
        f"(stars) and {_retention_trend(R, fine)}; at {c.sizes()} the "
        f"exact solver's deviation from the leading order has {fmt_largest_deviation(worst)}. "
        f"On average over the prior "
        f"the measured transfer is largest at alpha = {fmt_number(best)} of the measured "
        f"levels (derived optimum 3/4; at the measured levels the leading order is largest at "
        f"alpha = {' and '.join(top)}{', a tie' if len(top) > 1 else ''}) and the measured "
        f"retention "
        f"{'falls' if falls else 'does not fall'} monotonically in alpha.")
    caption = (
        f"**Fig. 2 (random activity gating).** **A, C**: transfer and retention at rho_a = 1 "
        f"against the gating level alpha, one line per rho_b in {list(RHO_B_LINES)} (as in "
        f"the paper: rho_b = 1 >= rho_a, the 'lime line', loses transfer with any gating; "
        f"rho_b < rho_a, the 'blue lines', gain transfer for alpha >= rho_b/rho_a, with the "
        f"derived optimum alpha* = {inline_math(alpha_star)} marked by stars); lines: leading "
        f"order of the derived `gating.transfer.random` "
        f"({theory.status('gating.transfer.random')}) and `gating.retention.random` "
        f"({theory.status('gating.retention.random')}); points: {ctx.numerics_phrase()} (at "
        f"rho_a = 1 both generators give A_2 = A_1). Deviations: A "
        f"{fmt_deviation(devs['transfer'], points)}; C "
        f"{fmt_deviation(devs['retention'], points)}. "
        f"**B**: theory only: the derived transfer at the derived optimal gating level "
        f"alpha* (`gating.optimal_alpha`, {theory.status('gating.optimal_alpha')}), rho_a > 0. "
        f"**D**: averages over the uniform prior against alpha; lines: the derived "
        f"`averages.random.transfer` = {inline_math(theory.leading('averages.random.transfer'))} "
        f"and `averages.random.retention` = "
        f"{inline_math(theory.leading('averages.random.retention'))}; dashed: vanilla "
        f"(`averages.vanilla.*` = 1/6, 43/60); {averages_phrase(ctx)}. "
        f"{average_caption('D', avg, exact, 'alpha')}."
    )
    return [FigureResult("fig2_random_gating", "Fig. 2: random activity gating", caption, fig,
                         verdict=verdict)]


def figure_3(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 3: adaptive vs random gating (A, B), plasticity gating (C), soft-thresholding (D)."""
    c = ctx.config
    fig, ax = new_figure(4, (16.5, 3.8))
    vanilla = {w: float(theory.leading(f"averages.vanilla.{w}")) for w in ("transfer",
                                                                              "retention")}
    fine = np.linspace(0.02, 1, 200)

    # A, B: adaptive (solid) vs random (dashed)
    random_avg = _random_gating_average(ctx)
    # the random-gating panel's seed: the same tasks and first gates at every pair, so that
    # adaptive minus random is paired (referee 24 m1)
    adaptive_est = ctx.prior_linear("averages.random-gating", "adaptive-gating", "alpha",
                                    c.alphas)
    # random gating scored on the same drawn readouts as adaptive gating (its plotted curve
    # averages over them): the comparison's control, alpha = 1, is then exactly 0 (referee 25)
    random_drawn = ctx.prior_linear("averages.random-gating", "random-gating", "alpha",
                                    c.alphas, score="drawn")
    alpha_tilde = theory.leading("gating.adaptive_alpha_tilde")
    adaptive_fn = {w: theory.compile_expression(
        theory.leading(f"gating.{w}").subs(alpha_t, alpha_tilde),
        (rho_a, rho_b, alpha)) for w in ("transfer", "retention")}
    adaptive_avg = prior_average(adaptive_est, c.alphas, "alpha", c.average_side, adaptive_fn)
    # the series the gain and cost sentences compare with adaptive gating (drawn in A, B)
    drawn_avg = prior_average(random_drawn, c.alphas, "alpha", c.average_side, {})
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
        drawn = random_drawn.samples[which].reshape(len(drawn_avg.x), -1)
        numeric_points(axis, drawn_avg.x, drawn_avg.numeric[which],
                       drawn.std(axis=1, ddof=1) / np.sqrt(drawn.shape[1]), color, marker="x",
                       label="random, on adaptive's drawn readouts")
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
    plastic_est = ctx.prior_linear("averages.plasticity-gating", "plasticity-gating", "alpha",
                                   c.alphas)
    plastic_avg = prior_average(plastic_est, c.alphas, "alpha", c.average_side,
                                {w: (lambda a, b, x, f=f: f(a, b)) for w, f in plastic.items()})
    plastic_exact = {w: (lambda x, v=v: np.full_like(np.asarray(x, dtype=float), v))
                     for w, v in plastic_average.items()}
    draw_average_panel(ax[2], plastic_avg, plastic_exact, vanilla)
    ax[2].set(xlabel="fraction of plastic synapses $\\alpha$", ylabel="average $\\Delta\\epsilon$")
    panel_label(ax[2], "C", "plasticity gating")

    # D: soft-thresholding (paper protocol and gradient-flow limit), against the paper's
    # prediction (vanilla, independent of alpha) and the derived one with the diagonal kept
    soft_points = grid_points(c.soft_alphas, "alpha", c.soft_side)
    soft = ctx.soft_threshold("averages.soft-threshold", soft_points)
    a, b = midpoint_grid(c.soft_side)
    n = len(a)
    vanilla_fn = {w: theory.curve(f"vanilla.{w}", (rho_a, rho_b)) for w in ("transfer",
                                                                             "retention")}
    diagonal_fn = {w: theory.curve(f"soft_threshold.{w}_with_diagonal", (rho_a, rho_b))
                   for w in ("transfer", "retention")}
    soft_alphas = np.asarray(c.soft_alphas)
    below_one = soft_alphas < 1.0
    soft_text, soft_means, soft_sems = [], {}, {}
    soft_paired: dict[str, str] = {}
    for which, color in (("transfer", TF_COLOR), ("retention", RT_COLOR)):
        paper_value = float(vanilla_fn[which](a, b).mean())
        derived_value = float(diagonal_fn[which](a, b).mean())
        ax[3].axhline(paper_value, color=color, linestyle="--", linewidth=1.0,
                      label=f"{which}: vanilla on these pairs (the paper: any alpha)")
        ax[3].plot([min(soft_alphas.min(), 0.05), 1.0], [derived_value, derived_value],
                   color=color, linestyle=":", linewidth=1.6,
                   label=f"{which}: derived, diagonal kept (alpha < 1)")
        for method, marker, filled in (("gd", "o", True), ("exact", "s", False)):
            values = soft.samples[f"{which}_{method}"][:, 0].reshape(len(soft_alphas), n)
            spread = values.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else None
            numeric_points(ax[3], soft_alphas, values.mean(axis=1), spread, color,
                           marker=marker, filled=filled,
                           label=f"{which}: {'paper protocol' if method == 'gd' else 'flow limit'}")
            soft_means[(which, method)] = values.mean(axis=1)
            soft_sems[(which, method)] = (spread if spread is not None
                                          else np.full(len(soft_alphas), np.nan))
            if method == "exact":
                soft_paired[which] = _paired_against_alpha_one(values, soft_alphas)
            d = deviation(values.mean(axis=1), np.full(len(soft_alphas), paper_value))
            soft_text.append(f"{which}, {'protocol' if method == 'gd' else 'flow limit'} minus "
                             f"the paper's value: "
                             f"{fmt_deviation(d, [{'alpha': x} for x in soft_alphas])}")
    ax[3].set(xlabel="input sparsity $\\alpha$", ylabel="average $\\Delta\\epsilon$")
    means = np.concatenate([m for m in soft_means.values()])
    if np.abs(means).max() > 1.5:  # averages far outside [-1, 1]: keep the rest legible
        ax[3].set_yscale("symlog", linthresh=1.0)
        soft_text.append("the y axis is symmetric-log (linear within +-1) because some "
                         f"averages lie far outside [-1, 1] (extreme: "
                         f"{fmt_number(float(means[np.argmax(np.abs(means))]))})")
    if ax[3].get_yscale() == "linear":  # room above the data for the legend: no curve hidden
        low, high = ax[3].get_ylim()
        ax[3].set_ylim(low, high + 0.6 * (high - low))
        ax[3].legend(loc="upper center", ncol=2, fontsize=5.5)
    else:
        ax[3].legend(loc="best", fontsize=5.5)
    panel_label(ax[3], "D", "soft-thresholding")

    # paired over the pairs (the same tasks, first gates and drawn readouts): adaptive minus
    # random gating, each pair's difference, its mean and the standard error of that mean
    def paired(which: str) -> tuple[np.ndarray, np.ndarray]:
        diff = (adaptive_est.samples[which] - random_drawn.samples[which]).reshape(
            len(adaptive_avg.x), -1)
        return diff.mean(axis=1), diff.std(axis=1, ddof=1) / np.sqrt(diff.shape[1])

    gain, gain_se = paired("transfer")
    retention_gain, cost_se = paired("retention")
    cost = -retention_gain  # random minus adaptive retention
    plastic_spread = {w: float(np.ptp(plastic_avg.numeric[w])) for w in ("transfer",
                                                                           "retention")}
    paper_rt = float(vanilla_fn["retention"](a, b).mean())
    derived_rt = float(diagonal_fn["retention"](a, b).mean())
    flow_rt = soft_means[("retention", "exact")]
    worst_rt = float(flow_rt[below_one].min()) if below_one.any() else float("nan")
    # alpha = 1 gates nothing: adaptive and random gating are one model there, no comparison
    gated = np.asarray(adaptive_avg.x) < 1
    wins = int(np.sum(gain[gated] > 0))
    clear = int(np.sum(gain[gated] > 2 * gain_se[gated]))
    control = "not measured"
    if (~gated).any():  # alpha = 1: one model scored twice; only rounding may separate them
        largest = float(np.max(np.abs(np.concatenate([gain[~gated], cost[~gated]]))))
        control = ("0" if largest == 0 else
                   f"0 to rounding (at most {largest:.1e} in transfer and retention)"
                   if largest < 1e-12 else fmt_number(largest))
    beats = (f"beats random gating on average transfer at {wins} of {int(gated.sum())} "
             f"measured alphas below 1 (by more than 2 standard errors of the paired gain at "
             f"{clear}; both on the same tasks, first gates and drawn readouts at every pair, "
             f"so that at alpha = 1, where the two are one model, the difference is "
             f"{control})")
    worst = int(np.flatnonzero(gated)[np.argmax(cost[gated])]) if gated.any() else 0
    flow_sem = soft_sems[("retention", "exact")]
    worst_at = int(np.argmin(np.where(below_one, flow_rt, np.inf))) if below_one.any() else 0
    resolved = bool(below_one.any()) and (
        abs(worst_rt - paper_rt) > 4 * float(np.nan_to_num(flow_sem[worst_at])))
    soft_phrase = ("soft-thresholding is not independent of alpha" if resolved else
                   "soft-thresholding's alpha dependence is not resolved at these sizes")
    verdict = (
        f"adaptive gating {beats} (gain {fmt_number(float(gain[gated].min()))} to "
        f"{fmt_number(float(gain[gated].max()))}) for a retention cost of at most "
        f"{fmt_number(float(cost[worst]))} +- {fmt_number(float(cost_se[worst]))} (paired "
        f"standard error; at alpha = {float(adaptive_avg.x[worst]):g}) (A, B); plasticity "
        f"gating's averages vary by {fmt_number(plastic_spread['transfer'])} (transfer) and "
        f"{fmt_number(plastic_spread['retention'])} (retention) over alpha at these sizes (C); "
        f"{soft_phrase}: at the gradient-flow limit the average retention for alpha < 1 "
        f"falls to {fmt_number(worst_rt)}, against {fmt_number(paper_rt)}, the vanilla average "
        f"on this grid that the paper's alpha-independence implies (it prints no number), and "
        f"the derived {fmt_number(derived_rt)} with the diagonal kept (D).")
    caption = (
        f"**Fig. 3.** **A, B**: average transfer and retention over the uniform prior against "
        f"alpha, adaptive gating (solid line: the derived `averages.adaptive.transfer` "
        f"(the paper prints no value: {theory.status('averages.adaptive.transfer')}) and its retention step `averages.adaptive.retention`; filled markers) and random gating (dashed line: `averages.random.*`; open "
        f"squares: the numerics of Fig. 2D); grey dashed: vanilla; the gain and its retention "
        f"cost are line 266's (`averages.adaptive.improves_transfer`, "
        f"`averages.adaptive.retention_cost`). Adaptive theory: "
        f"`gating.transfer`/`gating.retention` at `gating.adaptive_alpha_tilde`, with "
        f"`gating.adaptive_rho_g` from the probe error `gating.probe_error`. Adaptive numerics: "
        f"probe trial on the drawn readouts, rho_g = max(0, 1 - eps_pb/eps_o), errors on the drawn "
        f"readouts (random gating's open squares average over the readouts; its crosses are "
        f"scored on adaptive gating's drawn readouts, the series the gain and cost in the "
        f"sentence above compare with, pair by pair); "
        f"{averages_phrase(ctx)}. {'; '.join(texts)}. "
        f"**C**: plasticity gating; lines: the derived `plasticity.transfer` "
        f"({theory.status('plasticity.transfer')}) and `plasticity.retention` "
        f"({theory.status('plasticity.retention')}) averaged exactly "
        f"({fmt_number(plastic_average['transfer'], 4)}, "
        f"{fmt_number(plastic_average['retention'], 4)}: at leading order independent of alpha "
        f"and equal to the vanilla averages, dashed; at finite size the alpha dependence grows "
        f"with Ns/(alpha Nx), `plasticity.alpha_independence`, "
        f"{theory.status('plasticity.alpha_independence')}); numerics as in A, B, on draws "
        f"of their own. "
        f"{average_caption('C', plastic_avg, plastic_exact, 'alpha')}. "
        f"**D**: soft-thresholding, $h = \\sqrt{{2}}\\, \\mathrm{{erfc}}^{{-1}}(\\alpha)$. Dashed: the paper's prediction, "
        f"the vanilla values at every alpha, averaged over the same {n} pairs (transfer: "
        f"`soft_threshold.transfer_alpha_independence`, "
        f"{theory.status('soft_threshold.transfer_alpha_independence')}; retention: "
        f"`soft_threshold.alpha_independence`, "
        f"{theory.status('soft_threshold.alpha_independence')}); dotted: the "
        f"derived prediction with the diagonal of E[phi phi^T] kept "
        f"(`soft_threshold.transfer_with_diagonal`, `soft_threshold.retention_with_diagonal`, "
        f"leading order, alpha < 1; at alpha = 1 the model is the vanilla one). Numerics at the "
        f"paper's Ns with Nx = {c.soft_nx}, Ns = {c.soft_ns} (Nx/Ns = {c.soft_nx // c.soft_ns}; "
        f"the exact input moments cost O(Nx^3) per task), Ny = {c.ny}, appendix generator, the "
        f"{n} centres of a {c.soft_side} x {c.soft_side} grid, one seed each, errors averaged "
        f"exactly over B given A (tasksim.solvers.soft_threshold); error bars: standard error "
        f"over the pairs, which is the spread of the prior's values, not the uncertainty of "
        f"the alpha dependence: paired over the same pairs, the flow limit's value at alpha "
        f"minus its value at alpha = 1 is, in transfer, "
        f"{soft_paired.get('transfer', 'not measured')}, and in retention, "
        f"{soft_paired.get('retention', 'not measured')} (standard errors "
        f"of the paired differences); "
        f"{_coinciding_lines(vanilla_fn, diagonal_fn, a, b)}"
        f"filled: the paper's protocol (5,000 steps, eta = 0.01, exact expected "
        f"gradients), open: its gradient-flow limit. {'; '.join(soft_text)}."
    )
    return [FigureResult("fig3_adaptive_plasticity_soft", "Fig. 3: adaptive gating, plasticity "
                         "gating, soft-thresholding", caption, fig, verdict=verdict)]


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
        (marker,) = ax[0].plot(pa, pb, "ko", markersize=4)
        marker.data_label = f"point {letter} (rho_a, rho_b)"
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
    max_dev = 0.0
    for k, (letter, (pa, pb)) in enumerate(PHASE_POINTS.items()):
        axis = ax[k + 1]
        rows = slice(k * len(alphas), (k + 1) * len(alphas))
        for which, fn, color in (("transfer", T, TF_COLOR), ("retention", R, RT_COLOR)):
            theory_line(axis, fine, fn(pa, pb, fine), color, label=f"{which} (theory)")
            numeric_points(axis, alphas, est.mean(which)[rows], est.sd(which)[rows], color,
                           label=f"{which} (numerics)")
            th = fn(pa, pb, alphas)
            d = deviation(est.mean(which)[rows], th, est.sem(which)[rows])
            max_dev = max(max_dev, d.max_abs)
            texts.append(f"{letter} {which}: "
                         f"{fmt_deviation(d, [{'alpha': float(a)} for a in alphas])}")
        axis.set(xlabel="gating level $\\alpha$", ylabel="$\\Delta\\epsilon$")
        axis.legend(loc="best", fontsize=6.5)
        panel_label(axis, letter, fmt_point({"rho_a": pa, "rho_b": pb}).replace(
            "rho_a", "$\\rho_a$").replace("rho_b", "$\\rho_b$"))

    area = theory.derived("phase_diagram.overlap_of_phases")
    verdict = (
        f"the three phases of the paper's Fig. 7 are derived, but they overlap: the red region "
        f"(retention rising with alpha) meets rho_b < rho_a on an area of exactly "
        f"{inline_math(area)} = {float(area):.5f} of the unit square; at the marked points the "
        f"exact solver follows eq_rcg_epsilon_TF/RT within {fmt_number(max_dev)} at "
        f"{c.sizes()}.")
    caption = (
        f"**Fig. 7.** **A**: the phases of the gating-level dependence, theory "
        f"only: red, where the derived random-gating retention rises with alpha somewhere in "
        f"(0, 1] (`phase_diagram.rising_region`, {theory.status('phase_diagram.rising_region')}"
        f": {inline_math(region)}); blue, rho_b < rho_a (high alpha lowers both, "
        f"`phase_diagram.high_alpha_hurts_both`); grey, the monotonic tradeoff. Purple: the red "
        f"region inside rho_b < rho_a: exactly {inline_math(area)} = {float(area):.5f} of the unit "
        f"square (`phase_diagram.overlap_of_phases`, "
        f"{theory.status('phase_diagram.overlap_of_phases')}; {fmt_number(overlap_area, 3)} on "
        f"this plotting grid), which the paper's text (line 730: 'three different manners') "
        f"does not mention. **B-D**: transfer and retention against alpha at "
        f"the marked points; lines: leading order of the derived `gating.transfer.random` and "
        f"`gating.retention.random`; points: {ctx.numerics_phrase()}. Deviations: "
        f"{'; '.join(texts)}."
    )
    return [FigureResult("fig7_phase_diagram", "Fig. 7: phases of the gating-level dependence",
                         caption, fig, verdict=verdict)]


def _check_phase_points(rising) -> None:
    """The representative points must lie in their phases (of the derived region)."""
    in_red = {k: bool(rising(np.array(a), np.array(b))) for k, (a, b) in PHASE_POINTS.items()}
    ra, rb = PHASE_POINTS["B"]
    ok = (not in_red["B"] and rb >= ra) and in_red["C"] and \
        (not in_red["D"] and PHASE_POINTS["D"][1] < PHASE_POINTS["D"][0])
    if not ok:
        raise ValueError(f"PHASE_POINTS {PHASE_POINTS} are not one per phase of the derived "
                         f"region (in the red region: {in_red})")
