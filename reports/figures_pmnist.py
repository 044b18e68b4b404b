"""Figs. 6 and 9 of the paper (Sec. 7; Appendix E.2, subsec_appendix_pMNIST): the
permuted-digits experiment with a latent, on scikit-learn's 8 x 8 digits (offline), with a
verdict on each prediction of Sec. 7 (:mod:`tasksim.reports.pmnist_predictions`).

Numerics: :func:`tasksim.solvers.pmnist.pmnist_sweep` with paired seeds within each figure
(every point's run j has the same readouts, initial network and mini-batch order), on the
build's executor. Every number in a caption or verdict is computed from the runs drawn.
There is no theory curve: the paper compares these figures with the linear model's
qualitatively (Figs. 1, 3 and 5), and so do the verdicts.

Examples
--------
>>> PmnistPanels.for_mode("paper").similarity
(0.0, 0.25, 0.5, 0.75, 1.0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from tasksim.solvers.pmnist import PROTOCOLS, PmnistResult, pmnist_sweep, resolve_pmnist_params

from .figures_context import FigureContext, FigureResult
from .figures_plot import heatmap, new_figure, numeric_points, palette, panel_label
from .pmnist_predictions import (CONFIDENCE, NEAR_ZERO, PREDICTIONS, best_against_best,
                                 corner_verdicts, fmt_estimate, interior_peak, paired_difference,
                                 regularizer_comparison, retention_dip, threshold)

__all__ = ["PmnistPanels", "figure_6_vanilla", "figure_6_gating", "figure_6_regularization",
           "figure_9"]

METHOD_COLORS = {"euclidean": "0.45", "fisher-layerwise": "tab:red", "fisher-diag": "tab:orange"}
"""The paper's colours in Figs. 6E-H: gray Euclidean, red layer-wise, orange diagonal."""


@dataclass(frozen=True)
class PmnistPanels:
    """What the network figures compute in one build mode: the protocol (the digits
    defaults, :data:`tasksim.solvers.pmnist.PROTOCOLS`, unless ``protocol`` overrides them),
    the similarity grid of the heatmaps and the coarser one of Fig. 9D (task 2 trained
    ``long_epochs``), seeds (every panel), the pair of the learning curves, the similarities and levels of the gating panels,
    the amplitudes and the pairs of the regularization panels."""

    mode: str
    similarity: tuple[float, ...]
    long_similarity: tuple[float, ...]
    seeds: int
    long_epochs: int
    curve_pair: tuple[float, float]
    gating_rho_a: float
    gating_rho_b: tuple[float, ...]
    alphas: tuple[float, ...]
    amplitudes: tuple[float, ...]
    regularizer_pairs: tuple[tuple[float, float], ...]
    protocol: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def for_mode(cls, mode: str) -> "PmnistPanels":
        """``"paper"``: the digits protocol, sized so that the section adds under 3 minutes
        to the report on 2 cores; ``"quick"``: a two-epoch preview."""
        if mode == "quick":
            return cls(mode="quick", similarity=(0.0, 0.5, 1.0), long_similarity=(0.0, 1.0),
                       seeds=2, long_epochs=2,
                       curve_pair=(0.8, 0.2), gating_rho_a=1.0, gating_rho_b=(0.0, 1.0),
                       alphas=(0.3,), amplitudes=(0.1, 10.0), regularizer_pairs=((0.5, 0.5),),
                       protocol={"epochs": 1, "hidden": 16, "retention_epochs": 1})
        return cls(mode="paper", similarity=(0.0, 0.25, 0.5, 0.75, 1.0),
                   long_similarity=(0.0, 0.5, 1.0), seeds=4,
                   long_epochs=100, curve_pair=(0.8, 0.2), gating_rho_a=1.0,
                   gating_rho_b=(0.0, 0.5, 1.0), alphas=(0.1, 0.3, 0.6),
                   amplitudes=(0.01, 0.1, 1.0, 10.0, 100.0),
                   regularizer_pairs=((0.5, 0.5), (0.75, 0.25), (1.0, 0.5)))

    def params(self, method: str, rho_a: float, rho_b: float, *, seeds: int,
               long: bool = False, **options: Any) -> dict[str, Any]:
        """One point, resolved: the protocol, task 2 trained ``long_epochs`` when ``long``
        else only up to the retention measurement."""
        protocol = dict(self.protocol)
        retention = protocol.pop("retention_epochs", PROTOCOLS["digits"].retention_epochs)
        return resolve_pmnist_params(method, rho_a=rho_a, rho_b=rho_b, seeds=seeds,
                                     task2_epochs=self.long_epochs if long else retention,
                                     retention_epochs=retention, **protocol, **options)

    def describe(self) -> str:
        """The protocol in words, for captions."""
        p = self.params("vanilla", 0.5, 0.5, seeds=1)
        return (f"scikit-learn's 8 x 8 digits (Nx = {p['n_pixels']} pixels, {p['n_train']} "
                f"training and {p['n_test']} test images), Nh = {p['hidden']}, batch "
                f"{p['batch']}, eta = {p['learning_rate']:g}, {_epochs(p['epochs'])} of task 1, "
                f"retention after {_epochs(p['retention_epochs'])} of task 2, test errors")


def _epochs(n: int) -> str:
    """``1 epoch``, ``10 epochs``."""
    return f"{n} epoch" + ("" if n == 1 else "s")


def _panels(ctx: FigureContext) -> PmnistPanels:
    return PmnistPanels.for_mode(ctx.config.mode)


ROOT_PANEL = "pmnist"
"""Every network panel draws from one root (:func:`tasksim.reports.figures_config.panel_seed`
of this name), paired: run j of every point of every panel has the same seed, so the panels
compare methods on the same tasks and initial networks, and a process trains each task 1
once (:func:`tasksim.solvers.pmnist.run.first_task`)."""


def _results(ctx: FigureContext, panel: str, points: Sequence[dict[str, Any]]
             ) -> list[PmnistResult]:
    """The paired sweep of ``points`` (seeds from :data:`ROOT_PANEL`); cached by the build."""
    key = ("pmnist", panel, tuple(tuple(sorted((k, str(v)) for k, v in p.items()))
                                  for p in points))
    if key not in ctx.cache:
        runs = len(points) * points[0]["seeds"]
        ctx.progress(f"figures: {panel}: permuted digits, {len(points)} points x "
                     f"{points[0]['seeds']} seeds ({runs} network runs)")
        ctx.cache[key] = pmnist_sweep(points, seed=ctx.root(ROOT_PANEL), executor=ctx.executor,
                                      paired=True)
    return ctx.cache[key]


def _rule(seeds: int) -> str:
    """When a difference counts, for captions."""
    return (f"A difference shows when zero lies outside its {CONFIDENCE:.0%} confidence "
            f"interval from the paired per-seed differences ({threshold(seeds):.2f} standard "
            f"errors for {seeds} seeds, Student's t)")


def _seeds_phrase(ctx: FigureContext, seeds: int) -> str:
    return (f"{seeds} seeds per point, paired across every point of Figs. 6 and 9 (run j has "
            f"the same readouts, initial network and batch order everywhere; mean +- "
            f"standard error), root seed {ctx.seed}")


def _long_positions(p: PmnistPanels) -> list[tuple[float, float]]:
    """Where task 2 trains ``long_epochs`` (Fig. 9C, D): the coarse grid and the top row."""
    top = max(p.similarity)
    coarse = [(a, b) for b in p.long_similarity for a in p.long_similarity]
    return coarse + [(a, top) for a in p.similarity if (a, top) not in coarse]


def _vanilla_grid(ctx: FigureContext) -> dict[tuple[float, float], PmnistResult]:
    """Vanilla on the similarity grid (Figs. 6A, B, 9B); task 2 trained long at
    :func:`_long_positions` (Figs. 9C, D), up to the retention measurement elsewhere. With
    paired seeds a long run's first epochs of task 2 are the short run's, number for number,
    so each position is run once."""
    p = _panels(ctx)
    long = _long_positions(p)
    short = [(a, b) for b in p.similarity for a in p.similarity if (a, b) not in long]
    results = _results(ctx, "fig9.CD", [p.params("vanilla", a, b, seeds=p.seeds, long=True)
                                        for a, b in long])
    if short:
        results += _results(ctx, "fig6.AB", [p.params("vanilla", a, b, seeds=p.seeds)
                                             for a, b in short])
    return {(r.params["rho_a"], r.params["rho_b"]): r for r in results}


def _grid_values(grid: Mapping[tuple[float, float], PmnistResult], axis: Sequence[float],
                 value) -> np.ndarray:
    """``value(result)`` on the grid, rows rho_b, columns rho_a."""
    return np.array([[value(grid[(a, b)]) for a in axis] for b in axis])


def _extent(axis: Sequence[float]) -> tuple[float, float, float, float]:
    step = (axis[-1] - axis[0]) / max(len(axis) - 1, 1)
    lo, hi = axis[0] - step / 2, axis[-1] + step / 2
    return (lo, hi, lo, hi)


def figure_6_vanilla(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6A, B: transfer and retention of the vanilla network on the similarity grid."""
    p = _panels(ctx)
    grid = _vanilla_grid(ctx)
    axis = p.similarity
    fig, ax = new_figure(2, (9.0, 3.8))
    for k, (which, letter, label) in enumerate((("transfer", "A", "$\\Delta\\epsilon_{TF}$"),
                                                ("retention", "B", "$\\Delta\\epsilon_{RT}$"))):
        values = _grid_values(grid, axis, lambda r: getattr(r, which).mean)
        heatmap(fig, ax[k], values, extent=_extent(axis), label=label, centred=True)
        ax[k].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
        panel_label(ax[k], letter, f"{which} (vanilla, test error)")

    samples = {key: r.samples for key, r in grid.items()}
    verdicts = corner_verdicts({k: s[:, 0] for k, s in samples.items()},
                               {k: s[:, 1] for k, s in samples.items()})
    rows = [b for b in axis if 0.2 <= b <= 0.8] or [min(axis, key=lambda v: abs(v - 0.5))]
    peaks = {b: interior_peak(axis, np.array([grid[(a, b)].samples[:, 0] for a in axis]))
             for b in rows}
    shown = [b for b in rows if peaks[b][0] == "holds"]
    p3_word = ("holds" if 0.5 in shown else f"holds at rho_b = {_levels(shown)} only" if shown
               else "not detected")
    p3 = f"P3 {p3_word}: " + "; ".join(f"at rho_b = {b:g}, {peaks[b][1].split(': ', 1)[1]}"
                                        for b in rows)
    verdict = f"P1 {verdicts['P1']}; P2 {verdicts['P2']}; {p3}."
    caption = (
        f"**Fig. 6A, B (permuted digits with a latent, Sec. 7; vanilla network).** The "
        f"one-hidden-layer ReLU network of Appendix E.2 trained by SGD on task 1, then task 2 "
        f"({p.describe()}); {_seeds_phrase(ctx, p.seeds)}; grid {', '.join(f'{v:g}' for v in axis)} "
        f"in rho_a and rho_b. **A**: transfer eps_2[W_o] - eps_2[W_1]; **B**: retention "
        f"eps_1[W_o] - eps_1[W_2] (eq_def_delta_epsilon_TF_RT). The linear model's Fig. 1D, F "
        f"predict P1: {PREDICTIONS['P1']}; P2: {PREDICTIONS['P2']}; P3: {PREDICTIONS['P3']}. "
        f"{_rule(p.seeds)}; transfer is near zero when that interval lies within "
        f"+-{NEAR_ZERO:g}.")
    return [FigureResult("fig6_pmnist_vanilla", "Fig. 6A, B: permuted digits, vanilla network",
                         caption, fig, verdict)]


def _gating(ctx: FigureContext) -> dict[tuple[str, float, float], np.ndarray]:
    """Per-seed (transfer, retention) at rho_a = ``gating_rho_a`` for each rho_b: vanilla
    (key alpha = 1) and both gatings at each alpha."""
    p = _panels(ctx)
    a = p.gating_rho_a
    runs = [("vanilla", 1.0)] + [(m, al) for m in ("random-gating", "adaptive-gating")
                                 for al in p.alphas]
    points = [p.params(m, a, b, seeds=p.seeds, **({} if m == "vanilla" else {"alpha": al}))
              for m, al in runs for b in p.gating_rho_b]
    results = _results(ctx, "fig6.CD", points)
    return {(r.params["method"], r.params["alpha"] or 1.0, r.params["rho_b"]): r.samples
            for r in results}


def figure_6_gating(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6C, D: random (dashed) and adaptive (solid) activity gating against alpha."""
    p = _panels(ctx)
    data = _gating(ctx)
    fig, ax = new_figure(2, (9.0, 3.6))
    levels = np.array(p.alphas + (1.0,))
    styles = {"random-gating": ("--", "s", False), "adaptive-gating": ("-", "o", True)}
    colors = dict(zip(p.gating_rho_b, palette(len(p.gating_rho_b), "plasma")))
    for k, (which, letter) in enumerate((("transfer", "C"), ("retention", "D"))):
        for b, color in colors.items():
            for method, (style, marker, filled) in styles.items():
                rows = [data[(method, al, b)] for al in p.alphas] + [data[("vanilla", 1.0, b)]]
                means = np.array([r[:, k].mean() for r in rows])
                sems = np.array([r[:, k].std(ddof=1) / np.sqrt(len(r)) for r in rows])
                ax[k].plot(levels, means, style, color=color, linewidth=1.0)
                label = f"$\\rho_b$ = {b:g}" if method == "adaptive-gating" else ""
                numeric_points(ax[k], levels, means, sems, color, label=label, marker=marker,
                               filled=filled)
        ax[k].axhline(0, color="0.8", linewidth=0.6)
        ax[k].set(xlabel="gating level $\\alpha$ (1: vanilla)",
                  ylabel=f"$\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        ax[k].legend(fontsize=6.5)
        panel_label(ax[k], letter, f"{which}, $\\rho_a$ = {p.gating_rho_a:g}")

    low_b, high_b = min(p.gating_rho_b), max(p.gating_rho_b)
    vanilla = {b: data[("vanilla", 1.0, b)] for b in p.gating_rho_b}
    gain = {al: paired_difference(data[("random-gating", al, low_b)][:, 1], vanilla[low_b][:, 1])
            for al in p.alphas}
    cost = {al: paired_difference(data[("random-gating", al, high_b)][:, 0], vanilla[high_b][:, 0])
            for al in p.alphas}
    both = [al for al in p.alphas if gain[al].sign() == 1 and cost[al].sign() == -1]
    some = [al for al in p.alphas if gain[al].sign() == 1 or cost[al].sign() == -1]
    p5_word = "holds" if both else ("partly holds" if some else "not detected")
    p5 = (f"P5 {p5_word}: random gating against vanilla, retention at rho_b = {low_b:g} "
          + ", ".join(f"{fmt_estimate(gain[al])} (alpha = {al:g})" for al in p.alphas)
          + f"; transfer at rho_b = {high_b:g} "
          + ", ".join(f"{fmt_estimate(cost[al])}" for al in p.alphas))
    low_levels = [al for al in p.alphas if al < 0.5] or [min(p.alphas)]

    def adaptive_minus_random(al: float, b: float):
        return paired_difference(data[("adaptive-gating", al, b)][:, 0],
                                 data[("random-gating", al, b)][:, 0])

    hi = {al: adaptive_minus_random(al, high_b) for al in p.alphas}
    lo = {al: adaptive_minus_random(al, low_b) for al in p.alphas}
    shown = [al for al in low_levels if hi[al].sign() == 1 and hi[al].mean > lo[al].mean]
    p6_word = ("holds" if shown else
               "partly holds" if any(hi[al].sign() == 1 for al in p.alphas) else "not detected")
    p6 = (f"P6 {p6_word}: adaptive minus random transfer at rho_b = {high_b:g} "
          + ", ".join(f"{fmt_estimate(hi[al])} (alpha = {al:g})" for al in p.alphas)
          + f"; at rho_b = {low_b:g} " + ", ".join(fmt_estimate(lo[al]) for al in p.alphas))
    caption = (
        f"**Fig. 6C, D (permuted digits; random and adaptive activity gating of the input and "
        f"hidden layers, Secs. 5.1, 5.2).** Transfer (**C**) and retention (**D**) against the "
        f"gating level alpha at rho_a = {p.gating_rho_a:g} (as Figs. 2A, C) for each rho_b "
        f"(colours); dashed with open squares: random gating; solid with filled circles: "
        f"adaptive gating (probe trial on task 2's training data, rho_g = 1 - eps_pb/eps_o); "
        f"alpha = 1 is vanilla (the same runs as Fig. 6A, B). {p.describe()}; "
        f"{_seeds_phrase(ctx, p.seeds)}. P5: {PREDICTIONS['P5']} (tested where the linear "
        f"model puts each side: retention where the tasks interfere, rho_b = {low_b:g}; "
        f"transfer where they share readouts, rho_b = {high_b:g}); P6: {PREDICTIONS['P6']} "
        f"(low: alpha < 0.5; 'especially': a larger gain at rho_b = {high_b:g} than at "
        f"{low_b:g}). {_rule(p.seeds)}.")
    return [FigureResult("fig6_pmnist_gating", "Fig. 6C, D: permuted digits, activity gating",
                         caption, fig, f"{p5}; {p6}.")]


def _levels(values: Sequence[float]) -> str:
    return ", ".join(f"{v:g}" for v in sorted(values)) or "none"


def _regularization(ctx: FigureContext) -> dict[tuple[str, float, float, float], PmnistResult]:
    p = _panels(ctx)
    methods = tuple(METHOD_COLORS)
    points = [p.params(m, a, b, seeds=p.seeds, lam=lam)
              for a, b in p.regularizer_pairs for m in methods for lam in p.amplitudes]
    results = _results(ctx, "fig6.EH", points)
    return {(r.params["method"], r.params["rho_a"], r.params["rho_b"], r.params["lam1"]): r
            for r in results}


def figure_6_regularization(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6E-H: Euclidean, layer-wise Fisher and diagonal Fisher against the amplitude."""
    p = _panels(ctx)
    data = _regularization(ctx)
    pairs = p.regularizer_pairs
    fig, ax = new_figure(1 + len(pairs), (4.2 * (1 + len(pairs)), 3.6))
    lams = np.array(p.amplitudes)
    first = pairs[0]
    for k, (axis, which, pair) in enumerate(
            [(ax[0], "transfer", first)] + [(ax[1 + i], "retention", q)
                                           for i, q in enumerate(pairs)]):
        for method, color in METHOD_COLORS.items():
            est = [getattr(data[(method, pair[0], pair[1], lam)], which) for lam in p.amplitudes]
            means = np.array([e.mean for e in est])
            axis.plot(lams, means, color=color, linewidth=1.0)
            numeric_points(axis, lams, means, np.array([e.sem for e in est]), color,
                           label=method)
        axis.set_xscale("log")
        axis.axhline(0, color="0.8", linewidth=0.6)
        axis.set(xlabel="amplitude $\\lambda$ (both layers)",
                 ylabel=f"$\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        panel_label(axis, "EFGH"[k], f"{which}, $(\\rho_a, \\rho_b) = ({pair[0]:g}, {pair[1]:g})$")
    ax[0].legend(fontsize=6.5)

    def retention(method: str) -> list[np.ndarray]:
        return [data[(method, a, b, lam)].samples[:, 1] for a, b in pairs for lam in p.amplitudes]

    lw, euc, diag = retention("fisher-layerwise"), retention("euclidean"), retention("fisher-diag")
    above, below, neither = regularizer_comparison(lw, euc)
    total = above + below + neither
    keys = [(a, b, lam) for a, b in pairs for lam in p.amplitudes]
    signs = [paired_difference(layerwise, euclid).sign() for layerwise, euclid in zip(lw, euc)]
    wins = sorted({key[2] for key, sign in zip(keys, signs) if sign == 1})
    losses = sorted({key[2] for key, sign in zip(keys, signs) if sign == -1})
    best = [best_against_best(
        {lam: data[("fisher-layerwise", a, b, lam)].samples[:, 1] for lam in p.amplitudes},
        {lam: data[("euclidean", a, b, lam)].samples[:, 1] for lam in p.amplitudes})
        for a, b in pairs]
    ahead = [d.sign() for d, _, _ in best]
    p7_word = ("holds" if all(x == 1 for x in ahead) else
               "partly holds" if any(x == 1 for x in ahead) else
               "does not hold" if any(x == -1 for x in ahead) else "not detected")
    p7 = (f"P7 {p7_word}: each at its best amplitude, the layer-wise metric retains "
          + ", ".join(f"{fmt_estimate(d)} more than the Euclidean at ({a:g}, {b:g}) "
                      f"(lambda {lw_lam:g} against {eu_lam:g})"
                      for (d, lw_lam, eu_lam), (a, b) in zip(best, pairs))
          + f"; at equal amplitudes it retains more in {above} of {total} comparisons (at "
          f"lambda in {{{_levels(wins)}}}) and less in {below} (at lambda in "
          f"{{{_levels(losses)}}})")
    # per seed: how much closer the diagonal is to the layer-wise than the Euclidean is,
    # averaged over the (pair, amplitude) comparisons
    closer = np.mean([np.abs(layerwise - e) - np.abs(d - layerwise)
                      for layerwise, e, d in zip(lw, euc, diag)], axis=0)
    closeness = paired_difference(closer, np.zeros_like(closer))
    d_above, d_below, _ = regularizer_comparison(diag, lw)
    p8 = (f"P8 {'holds' if closeness.sign() == 1 else 'not detected'}: |layer-wise - "
          f"Euclidean| exceeds |diagonal - layer-wise| retention by {fmt_estimate(closeness)} "
          f"on average over the {total} comparisons; the diagonal retains more than the "
          f"layer-wise in {d_above} and less in {d_below} of them")
    caption = (
        f"**Fig. 6E-H (permuted digits; weight regularization, Secs. 6.1, 6.2, Appendix "
        f"E.2).** **E**: transfer, **F-H**: retention against the amplitude lambda of both "
        f"layers at the (rho_a, rho_b) in the panel titles; gray: Euclidean (lambda/2 ||dW||^2 "
        f"on both tasks, on task 1 toward the initial weights); red: layer-wise Fisher "
        f"(normalisers Z_1 = ||W_2 W_2^T||_2 ||<x x^T>||_2, Z_2 = ||<phi phi^T>||_2); orange: "
        f"diagonal Fisher (Z_1, Z_2 the largest coefficients). The Fisher regularizers act on "
        f"task 2 only, so their transfer is vanilla's. {p.describe()}; "
        f"{_seeds_phrase(ctx, p.seeds)}. P7: {PREDICTIONS['P7']}; P8: "
        f"{PREDICTIONS['P8']}. {_rule(p.seeds)}.")
    return [FigureResult("fig6_pmnist_regularization",
                         "Fig. 6E-H: permuted digits, weight regularization", caption, fig,
                         f"{p7}; {p8}.")]


def _curves(ctx: FigureContext) -> PmnistResult:
    p = _panels(ctx)
    a, b = p.curve_pair
    return _results(ctx, "fig9.A", [p.params("vanilla", a, b, seeds=p.seeds, long=True)])[0]


def figure_9(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 9A-D: learning curves, transfer lines, retention after 10 and 100 epochs."""
    p = _panels(ctx)
    grid = _vanilla_grid(ctx)
    axis = p.similarity
    curves = _curves(ctx)
    fig, ax = new_figure(4, (17.0, 3.7))

    mean, sem = curves.curve_mean_sem()
    epochs = np.arange(len(mean))
    for k, (name, color) in enumerate((("task 1", "0.2"), ("task 2", "tab:red"))):
        ax[0].plot(epochs, mean[:, k], color=color, label=name)
        ax[0].fill_between(epochs, mean[:, k] - sem[:, k], mean[:, k] + sem[:, k], color=color,
                           alpha=0.25, linewidth=0)
    first = curves.params["epochs"]
    ax[0].axvline(first, color="0.6", linewidth=0.8, linestyle=":")
    ax[0].axvline(first + curves.params["retention_epochs"], color="0.6", linewidth=0.6,
                  linestyle="--")
    ax[0].set(xlabel="epoch", ylabel="test error $\\epsilon_\\mu$", ylim=(0, None))
    ax[0].legend(fontsize=6.5)
    panel_label(ax[0], "A", f"learning curves, $(\\rho_a, \\rho_b) = {p.curve_pair}$")

    colors = palette(len(axis), "plasma")
    for b, color in zip(axis, colors):
        est = [grid[(a, b)].transfer for a in axis]
        ax[1].plot(axis, [e.mean for e in est], color=color, linewidth=1.0)
        numeric_points(ax[1], np.array(axis), np.array([e.mean for e in est]),
                       np.array([e.sem for e in est]), color, label=f"$\\rho_b$ = {b:g}")
    ax[1].axhline(0, color="0.8", linewidth=0.6)
    ax[1].set(xlabel="$\\rho_a$", ylabel="$\\Delta\\epsilon_{TF}$")
    ax[1].legend(fontsize=6)
    panel_label(ax[1], "B", "transfer")

    long = p.long_epochs
    short = curves.params["retention_epochs"]
    top = axis[-1]
    for label, color, value in ((f"after {_epochs(short)}", "0.1", lambda r: r.retention),
                                (f"after {_epochs(long)}", "0.6",
                                 lambda r: r.retention_after(long))):
        est = [value(grid[(a, top)]) for a in axis]
        ax[2].plot(axis, [e.mean for e in est], color=color, linewidth=1.0)
        numeric_points(ax[2], np.array(axis), np.array([e.mean for e in est]),
                       np.array([e.sem for e in est]), color, label=label)
    ax[2].set(xlabel="$\\rho_a$", ylabel="$\\Delta\\epsilon_{RT}$")
    ax[2].legend(fontsize=6.5)
    panel_label(ax[2], "C", f"retention, $\\rho_b$ = {top:g}")

    coarse = p.long_similarity
    values = _grid_values(grid, coarse, lambda r: r.retention_after(long).mean)
    heatmap(fig, ax[3], values, extent=_extent(coarse), label="$\\Delta\\epsilon_{RT}$",
            centred=True)
    ax[3].set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
    panel_label(ax[3], "D", f"retention after {long} epochs of task 2")

    def rt_row(value) -> np.ndarray:
        return np.array([value(grid[(a, top)]) for a in axis])

    short_word, short_gap = retention_dip(axis, rt_row(lambda r: r.samples[:, 1]))
    long_samples = lambda r: r.curves[:, 0, 0] - r.curves[:, r.params["epochs"] + long, 0]
    long_word, long_gap = retention_dip(axis, rt_row(long_samples))
    p4_word = ("holds" if short_word == "dip" and long_word == "no dip" else
               "partly holds (the dip persists)" if short_word == "dip" else
               "does not hold (no dip to disappear)")
    asym_short = paired_difference(grid[(0.0, top)].samples[:, 1], grid[(top, 0.0)].samples[:, 1])
    asym_long = paired_difference(long_samples(grid[(0.0, top)]), long_samples(grid[(top, 0.0)]))
    verdict = (
        f"P4 {p4_word}: at rho_b = {top:g} retention after {_epochs(short)} shows {short_word} (end "
        f"minus lowest interior point {fmt_estimate(short_gap)}), after {_epochs(long)} "
        f"{long_word} ({fmt_estimate(long_gap)}); the asymmetry of Fig. 6B persists: retention "
        f"at (0, 1) minus (1, 0) is {fmt_estimate(asym_short)} after {_epochs(short)} and "
        f"{fmt_estimate(asym_long)} after {long}.")
    caption = (
        f"**Fig. 9A-D (permuted digits, vanilla network, Appendix E.2).** **A**: test error of "
        f"task 1 (dark) and task 2 (red) per epoch at (rho_a, rho_b) = {p.curve_pair}, task 2 "
        f"trained {long} epochs (dotted: the switch; dashed: where retention is measured), "
        f"mean +- standard error over {curves.params['seeds']} seeds; **B**: transfer against "
        f"rho_a for each rho_b; **C**: retention at rho_b = {top:g} after {short} (black) and "
        f"{long} (gray) epochs of task 2; **D**: retention after {long} epochs on the grid "
        f"{', '.join(f'{v:g}' for v in p.long_similarity)} in rho_a and rho_b. Same runs as "
        f"Fig. 6A, B ({p.describe()}; {_seeds_phrase(ctx, p.seeds)}), task 2 trained {long} "
        f"epochs. P4: {PREDICTIONS['P4']} (a dip: the interior point with the lowest mean "
        f"shows below both ends). {_rule(p.seeds)}.")
    return [FigureResult("fig9_pmnist", "Fig. 9A-D: permuted digits, learning curves and long "
                         "training", caption, fig, verdict)]
