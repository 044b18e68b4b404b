"""Figs. 6 and 9 of the paper (Sec. 7; Appendix E.2, subsec_appendix_pMNIST): the
permuted-MNIST experiment with a latent, drawn from the stored grids in ``results/``
(:mod:`tasksim.reports.pmnist_results`; ``tasksim pmnist-grid`` computes them, ``tasksim
report --rerun pmnist`` recomputes them first), each network panel beside the linear model's
prediction for it (leading order in Ns/Nx of the derived claims, :mod:`tasksim.reports.
figures_theory`). The report never trains a network: a grid that is not stored is drawn empty
with the command that computes it.

The verdicts are :func:`tasksim.reports.pmnist_predictions.sec7_verdicts` (paired seeds:
every point's run j has the same readouts B_1, initial network and batch order).

Examples
--------
>>> rows = settings_rows({"dataset": "mnist-5k", "n_train": 4000, "n_test": 1000, "hidden": 1500,
...                       "batch": 300, "learning_rate": 0.01, "epochs": 100,
...                       "retention_epochs": 10, "n_pixels": 784}, seeds="3-5")
>>> rows[5]
('SGD steps of task 1', '20,000 (200 per epoch)', '1,300 (13 per epoch)')
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from tasksim.derivations.symbols import alpha, alpha_t, gamma, gamma_f, rho_a, rho_b
from tasksim.solvers.pmnist.grids import PAPER_SGD_STEPS

from . import figures_theory as theory
from .figures_context import FigureContext, FigureResult
from .figures_plot import (band_line, heatmap, new_figure, new_figure_grid, numeric_points,
                           palette, panel_label, theory_line)
from .pmnist_predictions import (EF_STEPS_GRID, FIFTHS, GATING_EPOCH_GRIDS, HEATMAP_STEPS_GRID,
                                 REGULARIZED_EPOCH_GRIDS, SECONDARY_DATASET, STEPS_GRID, TENTHS,
                                 StatementVerdict, StoredGrids, ef_steps_lengths, gating_grids,
                                 heatmap_steps, line_1360_at_steps, measured_sizes,
                                 predictions_phrase, regularized_grids, sec7_verdicts,
                                 steps_per_epoch, steps_row, with_secondary)
from .pmnist_results import RESULTS_DIR

__all__ = ["figure_6_vanilla", "figure_6_gating", "figure_6_regularization", "figure_9",
           "settings_rows", "settings_table", "lambda2_spread"]

METHOD_COLORS = {"euclidean": "0.45", "fisher-layerwise": "tab:red", "fisher-diag": "tab:orange"}
"""The paper's colours in Figs. 6E-H: gray Euclidean, red layer-wise, orange diagonal."""

LINEAR_LABELS = {"euclidean": "Euclidean (linear model)",
                 "fisher-layerwise": "exact Fisher (linear model)"}
"""The linear model's curves in Fig. 6E-H's bottom row: the exact Fisher metric, which the
network's layer-wise one approximates (REFEREE31 n1)."""


def _stored(ctx: FigureContext) -> StoredGrids:
    if "pmnist-stored" not in ctx.cache:
        ctx.cache["pmnist-stored"] = StoredGrids.load(RESULTS_DIR)
    return ctx.cache["pmnist-stored"]


def _secondary(ctx: FigureContext) -> StoredGrids:
    if "pmnist-secondary" not in ctx.cache:
        ctx.cache["pmnist-secondary"] = StoredGrids.load(RESULTS_DIR / SECONDARY_DATASET)
    return ctx.cache["pmnist-secondary"]


def _verdicts(ctx: FigureContext) -> list[StatementVerdict]:
    if "pmnist-verdicts" not in ctx.cache:
        verdicts = sec7_verdicts(_stored(ctx))
        digits = _secondary(ctx)
        if digits.datasets:
            verdicts = with_secondary(verdicts, sec7_verdicts(digits))
        ctx.cache["pmnist-verdicts"] = verdicts
    return ctx.cache["pmnist-verdicts"]


def _verdict_text(ctx: FigureContext, lines: Sequence[int]) -> str:
    """The verdicts of the statements at ``lines``, each followed by its secondary row (the
    digits runs, evidence without a verdict word) where one is stored."""
    shown: set[str] = set()

    def once(text: str, v: StatementVerdict) -> str:
        """The protocol (data set, seeds, test, training length) in full the first time a
        caption gives it, then "as above" (REFEREE31 n9, REFEREE34 n5: no caption repeats
        it six times)."""
        protocol = f"measured on {measured_sizes(v)}"
        if protocol in shown:
            return text.replace(protocol, f"measured on {v.dataset} as above")
        shown.add(protocol)
        return text

    def one(v: StatementVerdict) -> str:
        text = (f"line {v.line} ({v.claim_id.split('.', 1)[1]}), {v.dataset}: "
                f"{v.verdict.upper()}: {once(v.evidence, v)}")
        if v.secondary is not None:
            s = v.secondary
            text += (f" [secondary row, {s.dataset} (evidence only): "
                     f"{once(s.as_evidence(), s)}]")
        return text

    return "; ".join(one(v) for v in _verdicts(ctx) if v.line in lines)


def _estimate(series: Mapping[int, float]) -> tuple[float, float, int]:
    x = np.array(list(series.values()), dtype=float)
    if x.size == 0:
        return math.nan, math.nan, 0
    sem = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    return float(x.mean()), sem, int(x.size)


def _protocol(g: StoredGrids, name: str) -> dict[str, Any]:
    return json.loads(g.datasets[name].attrs["protocol"])


def _seeds_done(g: StoredGrids, name: str) -> str:
    done = g.datasets[name]["done"].values
    per_point = done.sum(axis=1)
    lo, hi = int(per_point.min()), int(per_point.max())
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def settings_rows(p: Mapping[str, Any], *, seeds: str) -> list[tuple[str, str, str]]:
    """(setting, the paper's, this run's) for the table beside Fig. 6 (``p``: a stored grid's
    protocol)."""
    steps = (p["n_train"] // p["batch"])
    return [
        ("data", "MNIST, 60,000 train / 10,000 test",
         f"{p['dataset']}, {p['n_train']:,} train / {p['n_test']:,} test"),
        ("Nx - Nh - Ny", "784 - 1500 - 10", f"{p['n_pixels']} - {p['hidden']} - 10"),
        ("batch, eta", "300, 0.01", f"{p['batch']}, {p['learning_rate']:g}"),
        ("initial weights", "variances 1/Nh^2 (W_1, b_1), 1/Ny^2 (W_2, b_2)",
         "the same (the paper's text)"),
        ("epochs of task 1", "100", f"{p['epochs']}"),
        ("SGD steps of task 1", "20,000 (200 per epoch)",
         f"{p['epochs'] * steps:,} ({steps} per epoch)"),
        ("retention measured after", "10 epochs of task 2 (2,000 steps); 100 in Fig. 9C, D",
         f"{p['retention_epochs']} epochs ({p['retention_epochs'] * steps} steps); 100 in "
         f"Fig. 9C, D"),
        ("seeds", "10 (Fig. 9A-C); Fig. 6 not stated", seeds),
    ]


PAPER_STEPS = PAPER_SGD_STEPS[1]
"""SGD steps of task 1 in the paper: 100 epochs of MNIST's 60,000 images in batches of 300."""


def matched_sentence(p: Mapping[str, Any]) -> str:
    """What the stored protocol ``p`` matches of the paper's: epochs, and the SGD steps that
    follow from them.

    Examples
    --------
    >>> text = matched_sentence({"n_train": 4000, "batch": 300, "epochs": 100})
    >>> "1,300 SGD steps instead of 20,000" in text, "15 times more" in text
    (True, True)
    """
    steps = p["epochs"] * (p["n_train"] // p["batch"])
    ratio = PAPER_STEPS / steps
    tail = (f"matching steps would cost {ratio:.0f} times more per run" if ratio > 1.5 else
            "which is close to the paper's number of steps")
    return (f"Epochs are matched, not SGD steps: each image is seen as often as in the paper "
            f"({p['epochs']} epochs of task 1), so task 1 gets {steps:,} SGD steps instead of "
            f"{PAPER_STEPS:,} (Fig. 9A shows how far it is from convergence); {tail}.")


def settings_table(p: Mapping[str, Any], *, seeds: str) -> str:
    """:func:`settings_rows` as a Markdown table."""
    rows = ["| setting | paper (Appendix E.2) | this run |", "|---|---|---|"]
    rows += [f"| {a} | {b} | {c} |" for a, b, c in settings_rows(p, seeds=seeds)]
    return "\n".join(rows)


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=7, wrap=True,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _missing_figure(name: str, title: str, grids: Sequence[str], size) -> FigureResult:
    fig, ax = new_figure(1, size)
    command = f"tasksim pmnist-grid {' '.join(grids)}"
    _empty(ax[0], f"not stored: run `{command}`")
    return FigureResult(name, title, f"**{title}.** Not drawn: {', '.join(grids)} not in "
                        f"results/; `{command}` computes it.", fig,
                        f"no stored runs ({command})")


def _extent(axis: Sequence[float]) -> tuple[float, float, float, float]:
    step = (axis[-1] - axis[0]) / max(len(axis) - 1, 1)
    lo, hi = axis[0] - step / 2, axis[-1] + step / 2
    return (lo, hi, lo, hi)


def _grid_means(g: StoredGrids, name: str, axis_a: Sequence[float], axis_b: Sequence[float],
                which: str, after: Optional[int] = None) -> np.ndarray:
    return np.array([[_estimate(g.values(name, "vanilla", a, b, which, after=after))[0]
                      for a in axis_a] for b in axis_b])


def _stored_mean(g: StoredGrids, name: str, a: float, b: float, which: str = "retention",
                 after: Optional[int] = None) -> float:
    """The mean over finished seeds of the vanilla point (a, b) of grid ``name``; nan where
    the grid has no such point (a file computed before the point was added)."""
    try:
        return _estimate(g.values(name, "vanilla", a, b, which, after=after))[0]
    except KeyError:
        return math.nan


def _linear_map(ax, fig, claim: str, label: str) -> None:
    fine = np.linspace(0, 1, 101)
    fn = theory.curve(claim, (rho_a, rho_b))
    A, B = np.meshgrid(fine, fine)
    heatmap(fig, ax, fn(A, B), extent=(0, 1, 0, 1), label=label, centred=True)
    ax.set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")


def _dataset_phrase(g: StoredGrids, name: str) -> str:
    p = _protocol(g, name)
    return (f"{p['dataset']} ({p['n_train']:,} training and {p['n_test']:,} test images, "
            f"Nx = {p['n_pixels']}), Nh = {p['hidden']}, batch {p['batch']}, eta = "
            f"{p['learning_rate']:g}, {p['epochs']} epochs of task 1, retention after "
            f"{p['retention_epochs']} epochs of task 2; test errors; "
            f"{_seeds_done(g, name)} seeds per point, paired")


def figure_6_vanilla(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6A, B: transfer and retention of the vanilla network on the 11 x 11 grid (epochs
    matched), on every other point at the paper's SGD steps when that grid is stored
    (:data:`HEATMAP_STEPS_GRID`), beside the linear model's Fig. 1D, F
    (``vanilla.transfer``, ``vanilla.retention``)."""
    g = _stored(ctx)
    title = "Fig. 6A, B: permuted MNIST, vanilla network"
    if not g.has("fig6AB"):
        return [_missing_figure("fig6_pmnist_vanilla", title, ["fig6AB"], (9.0, 3.8))]
    steps = heatmap_steps(g)
    columns = 2 if steps is None else 3
    fig, ax = new_figure(2 * columns, (6.0 * columns, 7.6), rows=2)
    for row, (which, letter, label, claim) in enumerate((
            ("transfer", "A", "$\\Delta\\epsilon_{TF}$", "vanilla.transfer"),
            ("retention", "B", "$\\Delta\\epsilon_{RT}$", "vanilla.retention"))):
        maps = [("fig6AB", TENTHS, f"{which}: network, epochs matched")]
        if steps is not None:
            maps.append((HEATMAP_STEPS_GRID, FIFTHS, f"{which}: network, the paper's SGD steps"))
        for k, (grid, axis, text) in enumerate(maps):
            cell = ax[columns * row + k]
            heatmap(fig, cell, _grid_means(g, grid, axis, axis, which), extent=_extent(axis),
                    label=label, centred=True)
            cell.set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
            panel_label(cell, letter, text)
        _linear_map(ax[columns * row + columns - 1], fig, claim, label)
        panel_label(ax[columns * row + columns - 1], letter, f"{which}: linear model ({claim})")
    p = _protocol(g, "fig6AB")
    at_steps = ""
    if steps is not None:
        task1, task2, s = steps
        at_steps = (f" Middle: the same network at the paper's SGD steps "
                    f"(`results/{HEATMAP_STEPS_GRID}.nc`, {_seeds_done(g, HEATMAP_STEPS_GRID)} "
                    f"seeds per point, paired with the left's first seeds): task 1 trained "
                    f"{task1 * s:,} steps ({task1:,} epochs of {s}), task 2 {task2 * s:,} "
                    f"({task2} epochs), on every other point of the grid (rho_a, rho_b in "
                    f"{{0, 0.2, ..., 1}}; line 360's row rho_b = 0.5, also in the file, is "
                    f"drawn in Fig. 9B); lines 357 and 360 are judged on it, the left stays as "
                    f"evidence. The settings table is the left column's; each panel has its "
                    f"own colour scale.")
    caption = (
        f"**Fig. 6A, B (permuted MNIST with a latent, Sec. 7; vanilla network).** Left: the "
        f"one-hidden-layer ReLU network of Appendix E.2 trained by SGD on task 1, then task 2 "
        f"({_dataset_phrase(g, 'fig6AB')}; `results/fig6AB.nc`), on the paper's 11 x 11 grid; "
        f"**A** transfer eps_2[W_o] - eps_2[W_1], **B** retention eps_1[W_o] - eps_1[W_2] "
        f"(eq_def_delta_epsilon_TF_RT).{at_steps} Right: the linear teacher-student model's "
        f"prediction at leading order in Ns/Nx (Fig. 1D, F). "
        + predictions_phrase("P1", "P2", "P3") + ".\n\n"
        + settings_table(p, seeds=_seeds_done(g, "fig6AB")) + "\n\n" + matched_sentence(p)
        + " The initial weights follow the paper's text (standard deviations 1/Nh and 1/Ny), "
        "the specification under test.")
    verdict = _verdict_text(ctx, (357, 358, 359, 360, 372))
    return [FigureResult("fig6_pmnist_vanilla", title, caption, fig, verdict)]


def _gating_linear(which: str, adaptive: bool):
    expr = theory.leading(f"gating.{which}.random") if not adaptive else \
        theory.leading(f"gating.{which}").subs(alpha_t, theory.leading("gating.adaptive_alpha_tilde"))
    return theory.compile_expression(expr, (rho_a, rho_b, alpha))


def figure_6_gating(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6C, D: random (dashed) and adaptive (solid) gating against alpha at rho_a = 1
    (epochs matched; at the paper's SGD steps too when that grid is stored:
    :func:`~tasksim.reports.pmnist_predictions.gating_grids`), beside the linear model's
    Figs. 2 and 3 at the same similarities."""
    g = _stored(ctx)
    title = "Fig. 6C, D: permuted MNIST, activity gating"
    if not (g.has("fig6CD") and g.has("fig6AB")):
        return [_missing_figure("fig6_pmnist_gating", title, ["fig6CD", "fig6AB"], (9.0, 3.6))]
    alphas = (0.1, 0.3, 0.6)
    levels = np.array(alphas + (1.0,))
    rho_bs = (0.0, 0.5, 1.0)
    colors = dict(zip(rho_bs, palette(len(rho_bs), "plasma")))
    fine = np.linspace(0.02, 1, 100)
    sources = [(GATING_EPOCH_GRIDS, "network, epochs matched")]
    if gating_grids(g) != GATING_EPOCH_GRIDS:
        sources.append((gating_grids(g), "network, the paper's SGD steps"))
    columns = len(sources) + 1
    fig, ax = new_figure(2 * columns, (6.0 * columns, 7.4), rows=2)
    for row, (which, letter) in enumerate((("transfer", "C"), ("retention", "D"))):
        lin = ax[columns * row + columns - 1]
        for k, ((gated, vanilla), text) in enumerate(sources):
            net = ax[columns * row + k]
            for b, color in colors.items():
                for method, style, marker, filled in (("random-gating", "--", "s", False),
                                                      ("adaptive-gating", "-", "o", True)):
                    est = [_estimate(g.values(gated, method, 1.0, b, which, alpha=al))
                           for al in alphas] + [_estimate(g.values(vanilla, "vanilla", 1.0, b,
                                                                   which))]
                    means = np.array([e[0] for e in est])
                    (joining,) = net.plot(levels, means, style, color=color, linewidth=1.0)
                    joining.data_label = f"{method}, rho_b = {b:g} (line)"
                    numeric_points(net, levels, means, np.array([e[1] for e in est]), color,
                                   label=f"$\\rho_b$ = {b:g}" if filled else "", marker=marker,
                                   filled=filled, data_label=f"{method}, rho_b = {b:g}")
            panel_label(net, letter, f"{which}, {text}, $\\rho_a$ = 1")
        for b, color in colors.items():
            for method, style in (("random-gating", "--"), ("adaptive-gating", "-")):
                fn = _gating_linear(which, method == "adaptive-gating")
                theory_line(lin, fine, fn(np.ones_like(fine), b * np.ones_like(fine), fine),
                            color, label=f"$\\rho_b$ = {b:g}" if style == "-" else "",
                            data_label=f"{method}, rho_b = {b:g}", linestyle=style)
        sym = "TF" if which == "transfer" else "RT"
        for a in ax[columns * row: columns * row + columns]:
            a.axhline(0, color="0.8", linewidth=0.6)
            a.set(xlabel="gating level $\\alpha$ (1: vanilla)",
                  ylabel=f"$\\Delta\\epsilon_{{{sym}}}$")
            a.legend(fontsize=6.5)
        panel_label(lin, letter, f"{which}, linear model, $\\rho_a$ = 1")
    at_steps = ""
    if len(sources) == 2:
        (gated, vanilla), _ = sources[1]
        task1, task2, s = heatmap_steps(g)
        at_steps = (f" Middle: the same network at the paper's SGD steps (`results/{gated}.nc`, "
                    f"{_seeds_done(g, gated)} seeds per point; alpha = 1 from "
                    f"`results/{vanilla}.nc`, the same seeds): task 1 trained {task1 * s:,} "
                    f"steps ({task1:,} epochs of {s}) with its gates, task 2 {task2 * s:,} "
                    f"({task2} epochs); lines 363 and 364 are judged on it, the left stays as "
                    f"evidence.")
    caption = (
        f"**Fig. 6C, D (permuted MNIST; random and adaptive activity gating of the input and "
        f"hidden layers, Secs. 5.1, 5.2).** Left: transfer (**C**) and retention (**D**) of the "
        f"network against the gating level alpha at rho_a = 1 for rho_b = 0, 0.5, 1 (colours); "
        f"dashed, open squares: random gating; solid, filled circles: adaptive gating (probe "
        f"trial on task 2's training data, rho_g = 1 - eps_pb/eps_o); alpha = 1 is vanilla "
        f"(`results/fig6AB.nc`: its {_seeds_done(g, 'fig6AB')} seeds, of which the gated runs "
        f"share the first {_seeds_done(g, 'fig6CD')}). {_dataset_phrase(g, 'fig6CD')} "
        f"(`results/fig6CD.nc`).{at_steps} Right: the linear model at leading order "
        f"(`gating.transfer.random`, `gating.retention.random`; adaptive: "
        f"`gating.transfer`/`gating.retention` at `gating.adaptive_alpha_tilde`). "
        + predictions_phrase("P5", "P6") + ".")
    return [FigureResult("fig6_pmnist_gating", title, caption, fig,
                         _verdict_text(ctx, (363, 364)))]


PAIRS = ((1.0, 0.0), (0.5, 0.5), (0.2, 0.8))
AMPLITUDES = (0.01, 1.0, 100.0)


def _regularized_linear(which: str, method: str, pair: tuple[float, float], lams: np.ndarray
                        ) -> Optional[np.ndarray]:
    """The linear model's transfer or retention against the amplitude (gamma = 1/(1 +
    lambda), the paper's Fig. 4 scale); None where it has no counterpart (diagonal)."""
    a, b = pair
    g = 1.0 / (1.0 + lams)
    if method == "euclidean":
        fn = theory.curve(f"euclidean.{which}", (rho_a, rho_b, gamma))
        return fn(a + 0 * g, b + 0 * g, g)
    if method == "fisher-layerwise":
        if which == "transfer":
            return theory.curve("vanilla.transfer", (rho_a, rho_b))(a + 0 * g, b + 0 * g)
        if a < 1.0:
            return theory.curve("fisher.retention", (rho_a, rho_b))(a + 0 * g, b + 0 * g)
        return theory.compile_expression(
            theory.leading("fisher.rho1.retention.unregularized_first"), (rho_b, gamma_f))(
                b + 0 * g, g)
    return None


def figure_6_regularization(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 6E-H: Euclidean, layer-wise and diagonal Fisher against the amplitude (both
    layers; epochs matched, and at the paper's SGD steps when that grid is stored:
    :func:`~tasksim.reports.pmnist_predictions.regularized_grids`), beside the linear model's
    Figs. 4 and 5 (Euclidean and exact Fisher)."""
    g = _stored(ctx)
    title = "Fig. 6E-H: permuted MNIST, weight regularization"
    if not g.has("fig6EH"):
        return [_missing_figure("fig6_pmnist_regularization", title, ["fig6EH"], (9.0, 3.6))]
    panels = [("transfer", PAIRS[0])] + [("retention", pair) for pair in PAIRS]
    sources = [("fig6EH", "network, epochs matched")]
    if regularized_grids(g) != REGULARIZED_EPOCH_GRIDS:
        sources.append((regularized_grids(g)[0], "network, the paper's SGD steps"))
    rows = len(sources) + 1
    fig, ax = new_figure(4 * rows, (17.0, 3.7 * rows), rows=rows)
    lams = np.array(AMPLITUDES)
    fine = np.logspace(-2, 2, 60)
    for k, (which, pair) in enumerate(panels):
        lin = ax[4 * (rows - 1) + k]
        for r, (grid, text) in enumerate(sources):
            net = ax[4 * r + k]
            for method, color in METHOD_COLORS.items():
                est = [_estimate(g.values(grid, method, *pair, which, lam1=lam, lam2=lam))
                       for lam in AMPLITUDES]
                means = np.array([e[0] for e in est])
                net.plot(lams, means, color=color, linewidth=1.0)
                numeric_points(net, lams, means, np.array([e[1] for e in est]), color,
                               label=method)
            # two lines: a panel is a quarter of the figure's width (REFEREE31, 34 n4)
            panel_label(net, "EFGH"[k], f"{which}, {text}\n$(\\rho_a, \\rho_b) = "
                                        f"({pair[0]:g}, {pair[1]:g})$")
        for method, color in METHOD_COLORS.items():
            line = _regularized_linear(which, method, pair, fine)
            if line is not None:  # the linear model has the exact metric, not its approximation
                theory_line(lin, fine, line, color, label=LINEAR_LABELS.get(method, method))
        for a in ax[k::4]:
            a.set_xscale("log")
            a.axhline(0, color="0.8", linewidth=0.6)
            a.set(xlabel="amplitude $\\lambda$",
                  ylabel=f"$\\Delta\\epsilon_{{{'TF' if which == 'transfer' else 'RT'}}}$")
        panel_label(lin, "EFGH"[k], f"linear model, $({pair[0]:g}, {pair[1]:g})$")
    ax[0].legend(fontsize=6.5)
    ax[4 * (rows - 1)].legend(fontsize=6.5)
    at_steps = ""
    if len(sources) == 2:
        task1, task2, s = heatmap_steps(g)
        at_steps = (f" Middle row: the same network at the paper's SGD steps "
                    f"(`results/{sources[1][0]}.nc`, {_seeds_done(g, sources[1][0])} seeds per "
                    f"point): task 1 trained {task1 * s:,} steps ({task1:,} epochs of {s}), "
                    f"task 2 {task2 * s:,} ({task2} epochs); line 366 is judged on it, and so "
                    f"is line 371's Fisher half (with Fig. 6C, D's gating runs at the same "
                    f"steps); the top row stays as evidence.")
    caption = (
        f"**Fig. 6E-H (permuted MNIST; weight regularization, Secs. 6.1, 6.2, Appendix E.2).** "
        f"Top: the network's transfer (**E**) and retention (**F-H**) against the amplitude "
        f"lambda of both layers at the (rho_a, rho_b) in the titles; gray: Euclidean "
        f"(lambda/2 ||dW||^2 on both tasks, on task 1 toward the initial weights); red: "
        f"layer-wise Fisher (Z_1 = ||W_2 W_2^T||_2 ||<x x^T>||_2, Z_2 = ||<phi phi^T>||_2); "
        f"orange: diagonal Fisher (Z_1, Z_2 the largest coefficients); the Fisher regularizers "
        f"act on task 2 only, so their transfer is vanilla's. {_dataset_phrase(g, 'fig6EH')} "
        f"(`results/fig6EH.nc`).{at_steps} Bottom: the linear model at leading order against "
        f"gamma = 1/(1 + lambda) (the scale of its Fig. 4; the network's lambda is normalised "
        f"by Z_1, Z_2 and is not the same number): Euclidean `euclidean.{{transfer,retention}}`, "
        f"exact Fisher `fisher.retention` (rho_a < 1) and "
        f"`fisher.rho1.retention.unregularized_first` (rho_a = 1); the linear model has no "
        f"layer-wise or diagonal counterpart of the network's metrics. "
        + predictions_phrase("P7", "P8") + ".")
    return [FigureResult("fig6_pmnist_regularization", title, caption, fig,
                         _verdict_text(ctx, (366, 371)))]


def _steps(p: Mapping[str, Any]) -> int:
    return p["epochs"] * (p["n_train"] // p["batch"])


def task1_fall(curves: np.ndarray, epochs: int) -> tuple[float, float]:
    """Task 1's mean test error at the switch (``curves[seed, epoch, task]``) and its mean
    relative fall over the last 10 epochs of task 1.

    Examples
    --------
    >>> c = np.zeros((2, 21, 2)); c[:, 10, 0], c[:, 20, 0] = 0.22, 0.20
    >>> [round(x, 3) for x in task1_fall(c, 20)]
    [0.2, 0.1]
    """
    t1 = curves[:, :, 0]
    last = t1[:, epochs]
    return float(last.mean()), float(np.mean((t1[:, epochs - 10] - last) / last))


def _converged(drop: float) -> str:
    return ("converged to within 1 % per 10 epochs" if drop < 0.01 else
            "still decreasing: not converged")


def _secondary_fall(digits: StoredGrids) -> str:
    """The same measure on the digits' Fig. 9A, whose epoch 100 is about the paper's number
    of SGD steps (empty when not stored)."""
    if not digits.has("fig9A"):
        return ""
    ds = digits.datasets["fig9A"]
    p = json.loads(ds.attrs["protocol"])
    curves = ds["curves"].values[0][ds["done"].values[0].astype(bool)]
    if len(curves) == 0:
        return ""
    last, drop = task1_fall(curves, p["epochs"])
    return (f"; on {p['dataset']} (`results/digits/fig9A.nc`, {len(curves)} seeds), whose "
            f"epoch {p['epochs']} is {_steps(p):,} SGD steps, about the paper's, it is "
            f"{last:.4f}, {drop:.1%} below 10 epochs earlier: {_converged(drop)}")


@dataclass(frozen=True)
class Task1Convergence:
    """Task 1 trained alone far past the grids' switch (``results/fig9A_task1.nc``): its
    plateau (per seed, the mean test error over the last 100 epochs), and, per seed, how far
    above it the error lies at the grids' switch (``switch``: epoch) and at the paper's
    number of SGD steps (``paper_epoch``), relative to the plateau, and the first epoch
    within 1 % of it."""

    seeds: int
    epochs: int
    steps_per_epoch: int
    switch: int
    paper_epoch: int
    plateau: np.ndarray
    above_at_switch: np.ndarray
    above_at_paper_steps: np.ndarray
    within_one_percent: np.ndarray


def task1_convergence(curves: np.ndarray, steps_per_epoch: int, switch: int
                      ) -> Task1Convergence:
    """:class:`Task1Convergence` of task 1's test error ``curves[seed, epoch]`` (epochs 0 ..
    E, E >= 200), for a grid that switches to task 2 at epoch ``switch``.

    Examples
    --------
    >>> t = np.arange(3001.0)
    >>> c = np.stack([0.1 + 1 / (1 + t), 0.2 + 2 / (1 + t)])
    >>> r = task1_convergence(c, 13, 100)
    >>> r.paper_epoch, [round(float(x), 3) for x in r.above_at_switch]
    (1539, [0.095, 0.095])
    """
    epochs = curves.shape[1] - 1
    paper_epoch = math.ceil(PAPER_STEPS / steps_per_epoch)
    plateau = curves[:, -100:].mean(axis=1)
    above = (curves - plateau[:, None]) / plateau[:, None]
    within = np.array([int(np.flatnonzero(row <= 0.01)[0]) for row in above])
    at_paper = (above[:, paper_epoch] if paper_epoch <= epochs - 100
                else np.full(len(curves), np.nan))
    return Task1Convergence(len(curves), epochs, steps_per_epoch, switch, paper_epoch, plateau,
                            above[:, switch], at_paper, within)


def _range(values: np.ndarray, fmt: str) -> str:
    low, high = float(np.min(values)), float(np.max(values))
    return format(low, fmt) if format(low, fmt) == format(high, fmt) else (
        f"{format(low, fmt)} to {format(high, fmt)}")


def _stored_task1(g: StoredGrids) -> Optional[tuple[np.ndarray, int]]:
    """Task 1's test error per finished seed and epoch in ``g``'s ``fig9A_task1``, with its
    SGD steps per epoch (None when not stored or with no finished run)."""
    if not g.has("fig9A_task1"):
        return None
    ds = g.datasets["fig9A_task1"]
    p = _protocol(g, "fig9A_task1")
    curves = ds["curves"].values[0][ds["done"].values[0].astype(bool)][:, :p["epochs"] + 1, 0]
    return (curves, p["n_train"] // p["batch"]) if len(curves) else None


def _stored_convergence(g: StoredGrids, switch: int) -> Optional[Task1Convergence]:
    """:func:`task1_convergence` of ``g``'s ``fig9A_task1`` (None when it has none)."""
    stored = _stored_task1(g)
    return None if stored is None else task1_convergence(stored[0], stored[1], switch)


def _task1_panel(ax, g: StoredGrids, switch: int, secondary: StoredGrids) -> Optional[str]:
    """Task 1 trained alone far past the switch (``fig9A_task1``), on log epochs, with the
    grids' switch and the paper's number of steps marked: the caption's sentence (None when
    not stored), with the digits' numbers where ``secondary`` holds them."""
    stored = _stored_task1(g)
    if stored is None:
        _empty(ax, "not stored: tasksim pmnist-grid fig9A_task1")
        return None
    curves, steps_per_epoch = stored
    r = task1_convergence(curves, steps_per_epoch, switch)
    epochs = np.arange(1, r.epochs + 1)
    mean = curves[:, 1:].mean(axis=0)
    sem = curves[:, 1:].std(axis=0, ddof=1) / math.sqrt(r.seeds) if r.seeds > 1 else None
    band_line(ax, epochs, mean, sem, "0.2", label="task 1 alone")
    ax.axhline(float(r.plateau.mean()), color="0.5", linewidth=0.8, linestyle="--",
               label="plateau (last 100 epochs)")
    ax.axvline(switch, color="0.6", linewidth=0.8, linestyle=":",
               label=f"A's switch (epoch {switch})")
    ax.axvline(r.paper_epoch, color="tab:blue", linewidth=0.8, linestyle=":",
               label=f"the paper's {PAPER_STEPS:,} steps")
    ax.set_xscale("log")
    ax.set(xlabel="epoch of task 1 (log)", ylabel="test error $\\epsilon_1$", ylim=(0, None))
    ax.legend(fontsize=6.5)
    ax.set_title(f"task 1 alone, {r.epochs:,} epochs", loc="left")
    return (f"right of A: task 1 alone, trained {r.epochs:,} epochs ({r.epochs * r.steps_per_epoch:,} "
            f"SGD steps), {r.seeds} seeds (`results/fig9A_task1.nc`; the same seeds as every "
            f"grid, so its first {switch} epochs are A's), on log epochs. Its plateau (the mean "
            f"test error over the last 100 epochs) is {_range(r.plateau, '.4f')}. At epoch "
            f"{switch}, where the stored grids switch to task 2, task 1's error lies "
            f"{_range(100 * r.above_at_switch, '.0f')} % above it: **not converged**. "
            + _at_paper_steps(r, switch)
            + f"it is first within 1 % of it at epoch {_range(r.within_one_percent, ',.0f')} "
            f"(band: one standard error over the seeds)" + _digits_convergence(secondary))


def _at_paper_steps(r: Task1Convergence, switch: int) -> str:
    """Where the paper's 20,000 SGD steps leave task 1, and what matching them would cost; a
    run too short to hold those steps and a plateau after them says so instead."""
    if not np.all(np.isfinite(r.above_at_paper_steps)):
        return (f"The run is too short to say where the paper's {PAPER_STEPS:,} SGD steps "
                f"(epoch {r.paper_epoch:,}) leave task 1: it ends before that epoch plus its "
                f"100-epoch plateau; ")
    return (f"At the paper's {PAPER_STEPS:,} SGD steps (epoch {r.paper_epoch:,}) it lies "
            f"{_range(100 * r.above_at_paper_steps, '.1f')} % above it; matching the paper's "
            f"steps instead of its epochs would bring task 1 to within "
            f"{math.ceil(100 * float(np.max(r.above_at_paper_steps)))} % of its plateau, at "
            f"{PAPER_STEPS / (switch * r.steps_per_epoch):.0f} times the grids' SGD per run; ")


def _digits_convergence(secondary: StoredGrids) -> str:
    """The digits' counterpart of the long task 1 (``results/digits/fig9A_task1.nc``), whose
    epoch 100 is about the paper's number of steps (empty when not stored)."""
    r = _stored_convergence(secondary, 100)
    if r is None:
        return ""
    return (f"; on digits (`results/digits/fig9A_task1.nc`, {r.seeds} seeds, "
            f"{r.steps_per_epoch} SGD steps per epoch) the paper's {PAPER_STEPS:,} steps "
            f"(epoch {r.paper_epoch}) leave task 1 {_range(100 * r.above_at_paper_steps, '.0f')} "
            f"% above its plateau (first within 1 % of it at epoch "
            f"{_range(r.within_one_percent, ',.0f')})" + (
                ": there the paper's step count does not converge it"
                if float(np.min(r.above_at_paper_steps)) > 0.05 else ""))


FIG9_CELLS = ((0, slice(0, 1)), (0, slice(1, 2)), (0, slice(2, 3)), (0, slice(3, 4)),
              (1, slice(0, 1)), (1, slice(1, 2)), (1, slice(2, 3)), (1, slice(3, 4)),
              (2, slice(0, 2)), (2, slice(2, 4)))
"""Fig. 9's grid (3 rows x 4 columns), in reading order: A, task 1 trained far past A's
switch; B, the linear model's B; C, the linear model's C, D, the linear model's D; E and F
(wide). Every network panel carries the paper's letter, once; the linear model's predictions
and the long task 1 stand beside theirs, unlettered."""
FIG9_LEVELS = (0.01, 1.0, 100.0)
"""The per-layer amplitudes lambda_1, lambda_2 of Figs. 9E, F (`results/fig9EF.nc`)."""
FIG9_D_AXIS = (0.0, 0.5, 1.0)
"""The similarities of Fig. 9D's stored map (`results/fig9CD.nc`)."""


def _linear_title(ax, text: str) -> None:
    """A linear-model panel's title: no letter of its own (the network panel beside it has it)."""
    ax.set_title(f"linear model: {text}", loc="left")


def _grid_ticks(ax, values: Sequence[float]) -> None:
    """Ticks of a heatmap at its data's grid values, nothing else."""
    ax.set_xticks(list(values))
    ax.set_yticks(list(values))
    ax.set_xticklabels([f"{v:g}" for v in values])
    ax.set_yticklabels([f"{v:g}" for v in values])


def lambda2_spread(g: StoredGrids, method: str, levels: Sequence[float] = FIG9_LEVELS,
                   pair: tuple[float, float] = (0.5, 0.5), grid: str = "fig9EF") -> float:
    """The largest change of the mean retention that lambda_2 makes at a fixed lambda_1
    (over the stored amplitudes of ``grid``): how much the second layer's amplitude matters."""
    spreads = []
    for l1 in levels:
        means = [_estimate(g.values(grid, method, *pair, lam1=l1, lam2=l2))[0]
                 for l2 in levels]
        spreads.append(max(means) - min(means))
    return float(max(spreads))


def _steps_row_panel(ax, row) -> str:
    """Fig. 9C's row at the paper's SGD steps (`results/fig9CD_steps.nc`, ``row`` of
    :func:`steps_row`) on ``ax``, in blue, and the caption's words for it; "" when that row is
    not stored (None)."""
    if row is None:
        return ""
    short, long, s, early, late = row
    axis = np.array(FIFTHS)
    for values, color, n in ((early, "tab:blue", short * s), (late, "lightskyblue", long * s)):
        mean = values.mean(axis=1)
        sem = values.std(axis=1, ddof=1) / math.sqrt(values.shape[1])
        ax.plot(axis, mean, color=color, linewidth=1.0)
        numeric_points(ax, axis, mean, sem, color, marker="s",
                       label=f"task 1 {long * s:,}, task 2 {n:,} SGD steps")
    return (f"; in blue the same row at the paper's SGD steps (`results/fig9CD_steps.nc`, "
            f"{early.shape[1]} seeds: task 1 trained {long * s:,} steps), after {short * s:,} "
            f"(dark, the paper's 10 epochs) and {long * s:,} (light, its 100) steps of task 2, "
            f"which judge line 361 (its card)")


def figure_9(ctx: FigureContext) -> list[FigureResult]:
    """Fig. 9A-F as the paper lays it out (its caption, Appendix E.2): learning curves (A),
    transfer (B), retention after 10 and 100 epochs (C) and after 100 epochs on the stored
    map (D), layer-wise (E) and diagonal (F) Fisher with one amplitude per layer; B, C and D
    each beside the linear model's prediction for it (A, E and F have none: the linear model
    is solved at its fixed point and has no per-layer amplitudes)."""
    g = _stored(ctx)
    row = steps_row(g)  # Fig. 9C's row at the paper's SGD steps (None: not stored)
    title = "Fig. 9A-F: permuted MNIST, learning curves, long training, per-layer amplitudes"
    needed = [n for n in ("fig9A", "fig9A_task1", "fig6AB", "fig9CD", "fig9EF")
              if not g.has(n)]
    fig, axes = new_figure_grid((17.0, 11.0), 3, 4, FIG9_CELLS)
    ax_a, ax_t1, ax_b, lin_b, ax_c, lin_c, ax_d, lin_d, ax_e, ax_f = axes
    captions = []

    # A: learning curves (no linear counterpart: the linear model is solved at its fixed point)
    if g.has("fig9A"):
        ds = g.datasets["fig9A"]
        p = _protocol(g, "fig9A")
        curves = ds["curves"].values[0][ds["done"].values[0].astype(bool)]
        epochs = np.arange(curves.shape[1])
        for k, (name, color) in enumerate((("task 1", "0.2"), ("task 2", "tab:red"))):
            mean = curves[:, :, k].mean(axis=0)
            sem = (curves[:, :, k].std(axis=0, ddof=1) / math.sqrt(len(curves))
                   if len(curves) > 1 else None)
            band_line(ax_a, epochs, mean, sem, color, label=name)
        ax_a.axvline(p["epochs"], color="0.6", linewidth=0.8, linestyle=":")
        ax_a.axvline(p["epochs"] + p["retention_epochs"], color="0.6", linewidth=0.6,
                     linestyle="--")
        ax_a.set(xlabel="epoch", ylabel="test error $\\epsilon_\\mu$", ylim=(0, None))
        ax_a.legend(fontsize=6.5)
        last, drop = task1_fall(curves, p["epochs"])
        captions.append(f"**A**: test error of task 1 (dark) and task 2 (red) per epoch at "
                        f"(rho_a, rho_b) = (0.8, 0.2), {len(curves)} seeds (`results/fig9A.nc`); "
                        f"dotted: the switch, dashed: where retention is measured. Task 1's test "
                        f"error at epoch {p['epochs']} ({_steps(p):,} SGD steps; the paper's: "
                        f"{PAPER_STEPS:,}) is {last:.4f}, {drop:.1%} below its value 10 epochs "
                        f"earlier (relative): {_converged(drop)}"
                        + _secondary_fall(_secondary(ctx))
                        + (f". Line 1360 (task 2's fast drop, then a gradual one) is judged "
                           f"at the paper's SGD steps on the task-2 curves of "
                           f"`results/{STEPS_GRID}.nc` (its 7 points), which this panel does "
                           f"not draw; this curve is evidence"
                           if line_1360_at_steps(g) is not None else ""))
    else:
        _empty(ax_a, "not stored: tasksim pmnist-grid fig9A")
    panel_label(ax_a, "A", "learning curves, network, $(\\rho_a, \\rho_b)$ = (0.8, 0.2)")
    switch = _protocol(g, "fig9A")["epochs"] if g.has("fig9A") else 100
    long_task1 = _task1_panel(ax_t1, g, switch, _secondary(ctx))
    if long_task1:
        captions.append(long_task1)

    # B: transfer against rho_a for each rho_b, the linear model's beside it
    rows_b = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    colors = palette(len(rows_b), "plasma")
    fine = np.linspace(0, 1, 101)
    transfer = theory.curve("vanilla.transfer", (rho_a, rho_b))
    retention = theory.curve("vanilla.retention", (rho_a, rho_b))
    for b, color in zip(rows_b, colors):
        theory_line(lin_b, fine, transfer(fine, b + 0 * fine), color, label=f"$\\rho_b$ = {b:g}")
    if g.has("fig6AB"):
        for b, color in zip(rows_b, colors):
            est = [_estimate(g.values("fig6AB", "vanilla", a, b, "transfer")) for a in TENTHS]
            numeric_points(ax_b, np.array(TENTHS), np.array([e[0] for e in est]),
                           np.array([e[1] for e in est]), color, label=f"$\\rho_b$ = {b:g}")
            (joining,) = ax_b.plot(TENTHS, [e[0] for e in est], color=color, linewidth=0.8)
            joining.data_label = f"rho_b = {b:g} (line)"
        steps = heatmap_steps(g)
        at_steps = ""
        if steps is not None:  # the same rows at the paper's SGD steps: open squares, dashed
            # line 360's row rho_b = 0.5 is in the steps grid only: black
            for b, color in (*zip(rows_b, colors), (0.5, "black")):
                est = [_estimate(g.values(HEATMAP_STEPS_GRID, "vanilla", a, b, "transfer"))
                       for a in FIFTHS]
                numeric_points(ax_b, np.array(FIFTHS), np.array([e[0] for e in est]),
                               np.array([e[1] for e in est]), color, marker="s", filled=False,
                               label=("$\\rho_b$ = 0.5, the paper's SGD steps" if b == 0.5
                                      else ""),
                               data_label=f"rho_b = {b:g}, the paper's SGD steps")
                (joining,) = ax_b.plot(FIFTHS, [e[0] for e in est], color=color,
                                       linewidth=0.8, linestyle="--")
                joining.data_label = f"rho_b = {b:g}, the paper's SGD steps (line)"
            task1, task2, s = steps
            at_steps = (f"; open squares, dashed: the same rows at the paper's SGD steps "
                        f"(`results/{HEATMAP_STEPS_GRID}.nc`, "
                        f"{_seeds_done(g, HEATMAP_STEPS_GRID)} seeds: task 1 trained "
                        f"{task1 * s:,} steps, task 2 {task2 * s:,}), with line 360's row "
                        f"rho_b = 0.5 in black; its rows 0.4, 0.5 and 0.6 judge line 360 "
                        f"(its card)")
        ax_b.legend(fontsize=6)
        captions.append("**B**: the network's transfer against rho_a for each rho_b "
                        "(`results/fig6AB.nc`, filled circles, mean +- standard error"
                        f"{at_steps}); beside it the linear "
                        "model's leading-order transfer (eq_epsilon_vanilla, not a claim this "
                        "panel tests)")
    else:
        _empty(ax_b, "not stored: tasksim pmnist-grid fig6AB")
    lin_b.legend(fontsize=6)
    for a in (ax_b, lin_b):
        a.axhline(0, color="0.8", linewidth=0.6)
        a.set(xlabel="$\\rho_a$", ylabel="$\\Delta\\epsilon_{TF}$")
    panel_label(ax_b, "B", "transfer, network")
    _linear_title(lin_b, "transfer (for B)")

    # C: retention at rho_b = 1 after 10 and 100 epochs; D: the stored map after 100 epochs
    axis = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    theory_line(lin_c, fine, retention(fine, 1 + 0 * fine), "0.1", label="$\\rho_b$ = 1")
    lin_c.legend(fontsize=6.5)
    linear_d = np.array([[float(retention(a, b)) for a in FIG9_D_AXIS] for b in FIG9_D_AXIS])
    heatmap(fig, lin_d, linear_d, extent=_extent(FIG9_D_AXIS), label="$\\Delta\\epsilon_{RT}$",
            centred=True)
    if g.has("fig9CD"):
        s = steps_per_epoch(_protocol(g, "fig9CD"))
        first = _protocol(g, "fig9CD")["epochs"] * s
        for color, after in (("0.1", 10), ("0.6", 100)):
            label = (f"task 1 {first:,}, task 2 {after * s:,} SGD steps "
                     f"({after} epochs)")
            est = [_estimate(g.values("fig9CD", "vanilla", a, 1.0, after=after)) for a in axis]
            ax_c.plot(axis, [e[0] for e in est], color=color, linewidth=1.0)
            numeric_points(ax_c, np.array(axis), np.array([e[0] for e in est]),
                           np.array([e[1] for e in est]), color, label=label)
        steps_text = _steps_row_panel(ax_c, row)
        ax_c.legend(fontsize=6.5)
        values = np.array([[_stored_mean(g, "fig9CD", a, b, after=100) for a in FIG9_D_AXIS]
                           for b in FIG9_D_AXIS])
        heatmap(fig, ax_d, values, extent=_extent(FIG9_D_AXIS),
                label="$\\Delta\\epsilon_{RT}$", centred=True)
        blank = [f"({a:g}, {b:g})" for i, b in enumerate(FIG9_D_AXIS)
                 for k, a in enumerate(FIG9_D_AXIS) if not np.isfinite(values[i, k])]
        captions.append("**C**: the network's retention at rho_b = 1 after 10 (black) and 100 "
                        "(gray) epochs of task 2 (mean +- standard error), both from fig9CD's "
                        "runs"
                        + (steps_text or " (line 361's first half, after 10 epochs, is judged "
                           "on fig6AB's, with more seeds: its card)")
                        + "; **D**: after 100 epochs on the stored "
                        "3 x 3 map rho_a, rho_b in {0, 0.5, 1}, one cell per stored point "
                        f"(`results/fig9CD.nc`, "
                        f"{_seeds_done(g, 'fig9CD')} seeds"
                        + (f"; blank, not stored yet: {', '.join(blank)}, which `tasksim "
                           "pmnist-grid fig9CD` adds" if blank else "") + "); "
                        "beside each the linear model's leading-order retention "
                        "(eq_epsilon_vanilla, not a claim this panel tests) "
                        "(its fixed point: no training time), for D at the same nine points")
    else:
        _empty(ax_c, "not stored: tasksim pmnist-grid fig9CD")
        _empty(ax_d, "not stored: tasksim pmnist-grid fig9CD")
    for a in (ax_c, lin_c):
        a.set(xlabel="$\\rho_a$", ylabel="$\\Delta\\epsilon_{RT}$")
    for a in (ax_d, lin_d):
        a.set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
        if a.images:
            _grid_ticks(a, FIG9_D_AXIS)
    panel_label(ax_c, "C", "retention, network, $\\rho_b$ = 1")
    _linear_title(lin_c, "retention at $\\rho_b$ = 1 (for C)")
    panel_label(ax_d, "D", "retention after 100 epochs, network")
    _linear_title(lin_d, "retention (for D)")

    # E, F: layer-wise and diagonal Fisher, lambda_1 on the axis, one line per lambda_2
    methods = (("fisher-layerwise", "E", "layer-wise Fisher", ax_e),
               ("fisher-diag", "F", "diagonal Fisher", ax_f))
    # at the paper's SGD steps when that grid is stored (line 1434 is judged there)
    ef_steps = ef_steps_lengths(g)
    ef = EF_STEPS_GRID if ef_steps is not None else "fig9EF"
    if g.has("fig9EF"):
        shades = palette(len(FIG9_LEVELS), "viridis")
        for method, _, _, ax in methods:
            for l2, color, marker in zip(FIG9_LEVELS, shades, "osD"):
                est = [_estimate(g.values(ef, method, 0.5, 0.5, lam1=l1, lam2=l2))
                       for l1 in FIG9_LEVELS]
                (joining,) = ax.plot(FIG9_LEVELS, [e[0] for e in est], color=color,
                                     linewidth=1.0)
                joining.data_label = f"lambda_2 = {l2:g} (line)"
                numeric_points(ax, np.array(FIG9_LEVELS), np.array([e[0] for e in est]),
                               np.array([e[1] for e in est]), color, marker=marker,
                               label=f"$\\lambda_2$ = {l2:g}")
            ax.legend(fontsize=6.5)
        low = min(min(a.get_ylim()[0] for _, _, _, a in methods), 0.0)
        high = max(a.get_ylim()[1] for _, _, _, a in methods)
        spread = {m: lambda2_spread(g, m, grid=ef) for m, *_ in methods}
        length = ("" if ef_steps is None else
                  f", at the paper's SGD steps: task 1 trained {ef_steps[0] * ef_steps[2]:,} "
                  f"steps, task 2 {ef_steps[1] * ef_steps[2]:,}, which judge line 1434 (its "
                  f"card; the epoch-matched `results/fig9EF.nc`, where lambda_2 moves it by "
                  f"at most {max(lambda2_spread(g, m) for m, *_ in methods):.3g}, is evidence "
                  f"there)")
        captions.append("**E, F**: retention at (0.5, 0.5) under layer-wise (**E**) and "
                        "diagonal (**F**) Fisher against the first layer's amplitude lambda_1, "
                        "one line per second-layer amplitude lambda_2 (mean +- standard error, "
                        f"`results/{ef}.nc`, {_seeds_done(g, ef)} seeds{length}; same y axis; "
                        "the bars are unpaired, while the paired differences that judge line "
                        "1434 are much tighter: its card); "
                        "lambda_2 from 0.01 to 100 moves the mean retention at a fixed lambda_1 "
                        f"by at most {spread['fisher-layerwise']:.3g} (E) and "
                        f"{spread['fisher-diag']:.3g} (F). The linear model has no per-layer "
                        "amplitudes (its exact Fisher retention there is "
                        f"{float(theory.curve('fisher.retention', (rho_a, rho_b))(0.5, 0.5)):g} "
                        "at any amplitude, `fisher.retention`), so E and F stand alone, as in "
                        "the paper")
    else:
        for _, _, _, ax in methods:
            _empty(ax, "not stored: tasksim pmnist-grid fig9EF")
        low = high = None
    for method, letter, name, ax in methods:
        if ax.lines:
            ax.set_xscale("log")
            ax.set_xticks(list(FIG9_LEVELS))
            ax.set_xticklabels([f"{v:g}" for v in FIG9_LEVELS])
            ax.set_ylim(low, high)
        ax.set(xlabel="first-layer amplitude $\\lambda_1$", ylabel="$\\Delta\\epsilon_{RT}$")
        panel_label(ax, letter, f"{name}, network, $(\\rho_a, \\rho_b)$ = (0.5, 0.5)")
    stored = [n for n in ("fig9A", "fig6AB", "fig9CD", "fig9EF") if g.has(n)]
    protocol = (f" Protocol: {_dataset_phrase(g, stored[0])} ({stored[0]}); task 2 trained "
                f"100 epochs in A, C and D" + (
                    f" (C's blue rows: task 1 {row[1] * row[2]:,} SGD steps, task 2 "
                    f"{row[0] * row[2]:,} and {row[1] * row[2]:,})" if row is not None else "")
                + (f" and {ef_steps[1] * ef_steps[2]:,} SGD steps in E and F (task 1: "
                   f"{ef_steps[0] * ef_steps[2]:,})" if ef_steps is not None else "") + "."
                if stored else "")
    caption = ("**Fig. 9A-F (permuted MNIST, Appendix E.2).** " + "; ".join(captions) + "."
               + protocol + " " + predictions_phrase("P4") + "."
               + (f" Not stored yet: {', '.join(needed)}." if needed else ""))
    return [FigureResult("fig9_pmnist", title, caption, fig,
                         _verdict_text(ctx, (361, 1361, 1434)))]
