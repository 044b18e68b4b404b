"""Beyond two tasks: how forgetting and transfer accumulate over K tasks, and which remedies
still work (Appendix A defines the sequence; the paper analyses K = 2).

Two figures:

``sequences_retention``
    the first task's retention after :data:`HEATMAP_K` tasks, 1 - eps_1[W_K], over
    (rho_a, rho_b) for each remedy (vanilla, random gating, Euclidean, Fisher with the
    previous or the accumulated metric), in the chain (top) and shared (bottom) structures:
    theory, the leading order of ``sequences.<remedy>.<structure>.errors`` evaluated by its
    recursion on numbers (:func:`tasksim.derivations.sequences.first_task_errors`).
``sequences_metrics``
    the average final error, backward and forward transfer (:mod:`tasksim.solvers.sequence_metrics`)
    against K at one similarity point: theory lines (the same recursion, every entry of the
    error matrix) and numerics from the exact solvers at paper sizes (gaussian generator,
    Wishart-sampled Grams where cheaper than explicit matrices) at a few K.

The verdict of the first figure is computed from the mean retention of task 1 over the
uniform prior on (rho_a, rho_b) (midpoint grid) at K = 2, :data:`HEATMAP_K` and
:data:`FAR_K`: the ranking of the remedies at each K, whether it is the two-task ranking, and
how much the mean still moves between HEATMAP_K and FAR_K (the large-K behaviour).
"""
from __future__ import annotations

import numpy as np

from tasksim.derivations.sequence_algebra import REMEDIES, STRUCTURES
from tasksim.derivations.sequences import claim_id, inversions, leading_errors
from tasksim.solvers.sequence_metrics import METRICS, sequence_metrics

from .figures_config import midpoint_grid
from .figures_context import FigureContext, FigureResult, fmt_deviation, fmt_number
from .figures_numerics import deviation, linear_model_sweep
from .figures_plot import heatmap, new_figure, numeric_points, palette, panel_label, theory_line
from .sequence_grid import first_task_error_on_grid

__all__ = ["HEATMAP_K", "FAR_K", "LEVEL", "CURVE_POINT", "figure_sequences",
           "mean_first_task_retention", "remedy_parameters"]

HEATMAP_K = 10
"""K of the retention heatmaps."""
FAR_K = 30
"""A larger K at which the mean retention is evaluated again, to say whether it settled
(quick builds use :data:`QUICK_FAR_K`)."""
QUICK_FAR_K = 12
CURVE_K = 15
"""The metric curves run from K = 2 to CURVE_K (quick builds: to :data:`QUICK_CURVE_K`)."""
QUICK_CURVE_K = 6
LEVEL = 0.5
"""alpha (random gating) and gamma (Euclidean, and Fisher's lambda = 1/gamma - 1)."""
CURVE_POINT = {"rho_a": 0.8, "rho_b": 0.4}
"""(rho_a, rho_b) of the metric curves: similar features, less similar readouts."""
_LABELS = {"vanilla": "vanilla", "random-gating": f"random gating ($\\alpha$ = {LEVEL:g})",
           "euclidean": f"Euclidean ($\\gamma$ = {LEVEL:g})",
           "fisher-previous": "Fisher, previous metric",
           "fisher-accumulated": "Fisher, accumulated metric"}
_METRIC_LABELS = {"average_error": "average final error",
                  "backward_transfer": "backward transfer (< 0: forgetting)",
                  "forward_transfer": "forward transfer"}


def remedy_parameters(remedy: str) -> dict:
    """The solver's keyword arguments of a remedy at :data:`LEVEL`.

    Examples
    --------
    >>> remedy_parameters("fisher-accumulated")
    {'gamma': 0.5, 'penalty': 'accumulated'}
    """
    spec = REMEDIES[remedy]
    out: dict = {}
    if spec.gated:
        out["alpha"] = LEVEL
    if spec.model in ("euclidean", "fisher"):
        out["gamma"] = LEVEL
    if spec.penalty is not None:
        out["penalty"] = spec.penalty
    return out


def _point(rho_a: float, rho_b: float, remedy: str = "") -> dict:
    """The point of the leading-order recursion; with ``remedy``, only the levels it reads
    (alpha when gated, gamma for the Euclidean ridge): the recursion checks every value it is
    given exactly (a rational per value), and a level a remedy does not read changes nothing
    (:func:`tasksim.derivations.sequence_algebra.numeric_inputs`).

    >>> _point(0.5, 0.25, "vanilla")
    {'rho_a': 0.5, 'rho_b': 0.25}
    """
    point = {"rho_a": float(rho_a), "rho_b": float(rho_b), "alpha": LEVEL, "gamma": LEVEL}
    if remedy:
        spec = REMEDIES[remedy]
        point = {k: v for k, v in point.items() if k in ("rho_a", "rho_b")
                 or (k == "alpha" and spec.gated) or (k == "gamma" and spec.rule == "euclidean")}
    return point


def _retention_map(remedy: str, structure: str, K: int, values: np.ndarray) -> np.ndarray:
    """1 - eps_1[W_K] at every (rho_b, rho_a) of a grid (rows: rho_b), in one pass."""
    a, b = np.meshgrid(values, values)
    return 1.0 - first_task_error_on_grid(remedy, structure, K, a, b, LEVEL)


def mean_first_task_retention(remedy: str, structure: str, K: int, side: int) -> float:
    """The mean of 1 - eps_1[W_K] over the uniform prior on (rho_a, rho_b): the midpoint rule
    on a side x side grid (leading order, the grid in one pass).

    Examples
    --------
    >>> round(mean_first_task_retention("vanilla", "chain", 2, 40), 3)   # exactly 43/60
    0.717
    """
    a, b = midpoint_grid(side)
    return float(np.mean(1.0 - first_task_error_on_grid(remedy, structure, K, a, b, LEVEL)))


def _ranking_text(values: dict[str, float]) -> str:
    """Remedies best first with their values; equal ones (to 1e-9) joined by '='."""
    ordered = sorted(values.items(), key=lambda kv: -kv[1])
    text = f"{ordered[0][0]} ({fmt_number(ordered[0][1])})"
    for (_, before), (name, value) in zip(ordered, ordered[1:]):
        text += (" = " if abs(before - value) <= 1e-9 else " > ") + \
            f"{name} ({fmt_number(value)})"
    return text




def _retention_figure(ctx: FigureContext) -> FigureResult:
    c = ctx.config
    side = max(5, min(11, c.heatmap_side))
    values = np.linspace(0.0, 0.95, side)  # Fisher's forms need rho_a < 1
    fig, axes = new_figure(2 * len(REMEDIES), (17.0, 6.4), rows=2)
    for row, structure in enumerate(STRUCTURES):
        for col, remedy in enumerate(REMEDIES):
            ax = axes[row * len(REMEDIES) + col]
            heatmap(fig, ax, _retention_map(remedy, structure, HEATMAP_K, values),
                    extent=(0, 0.95, 0, 0.95), label=f"1 - $\\epsilon_1[W_{{{HEATMAP_K}}}]$",
                    vmin=-0.5, vmax=1.0)
            ax.set(xlabel="$\\rho_a$", ylabel="$\\rho_b$")
            panel_label(ax, "ABCDEFGHIJ"[row * len(REMEDIES) + col],
                        f"{_LABELS[remedy]}, {structure}")

    averaging_side = max(4, min(10, c.average_side))
    far = FAR_K if c.mode == "paper" else QUICK_FAR_K
    means = {(s, K): {r: mean_first_task_retention(r, s, K, averaging_side) for r in REMEDIES}
             for s in STRUCTURES for K in (2, HEATMAP_K, far)}
    sentences, changed = [], []
    for s in STRUCTURES:
        flips = sorted({pair for K in (HEATMAP_K, far)
                        for pair in inversions(means[(s, 2)], means[(s, K)])})
        if flips:
            changed.append(s)
        drift = max(abs(means[(s, far)][r] - means[(s, HEATMAP_K)][r]) for r in REMEDIES)
        flipped = ("; inverted: " + ", ".join(f"{b} now above {a}" for a, b in flips)
                   if flips else "; no pair inverted")
        sentences.append(
            f"{s}: K = 2: {_ranking_text(means[(s, 2)])}; K = {HEATMAP_K}: "
            f"{_ranking_text(means[(s, HEATMAP_K)])}; K = {far}: "
            f"{_ranking_text(means[(s, far)])} (largest change from K = {HEATMAP_K}: "
            f"{fmt_number(drift, 2)}){flipped}")
    survives = ("survives in both structures" if not changed else
                "does not survive in the " + " and ".join(changed) + " structure"
                + ("s" if len(changed) > 1 else ""))
    verdict = (
        f"(theory only: the leading order; whether the exact solvers at the paper's sizes "
        f"resolve an inversion is the finding k-task-ranking) the two-task ranking of the "
        f"remedies by the first task's retention "
        f"{survives} as "
        f"tasks accumulate (mean over the uniform prior, alpha = gamma = {LEVEL:g}): "
        + "; ".join(sentences) + ".")
    caption = (
        f"**Retention of task 1 after K = {HEATMAP_K} tasks (theory only).** The leading order "
        f"in Ns/Nx of the derived error matrices ({_cited()}), their recursion evaluated on "
        f"numbers for K = {HEATMAP_K}; rho_a <= 0.95 because Fisher's forms need rho_a < 1. "
        "Top: chain (tasks mu and nu correlated by rho^|mu - nu|); bottom: shared parent "
        f"(every pair by rho). Means over the uniform prior on a {averaging_side} x "
        f"{averaging_side} midpoint grid at K = 2, {HEATMAP_K}, {far} give the verdict.")
    return FigureResult("sequences_retention", "Sequences: retention of the first task",
                        caption, fig, verdict)


def _cited() -> str:
    return ", ".join(f"`{claim_id(r, s, 'errors')}`" for s in STRUCTURES for r in REMEDIES)


def _measured(ctx: FigureContext, remedy: str, structure: str, Ks: tuple[int, ...]):
    """Per K: the metrics' means and standard errors from the exact solvers (paper sizes)."""
    c = ctx.config
    spec = REMEDIES[remedy]
    out = {name: ([], []) for name in METRICS}
    for K in Ks:
        point = dict(CURVE_POINT, tasks=K, structure=structure, **remedy_parameters(remedy))
        est = linear_model_sweep(spec.model, [point], nx=c.nx, ns=c.ns, ny=c.ny, seeds=c.seeds,
                                 root=ctx.root(f"sequences.{remedy}.{structure}.{K}"),
                                 generator="gaussian", executor=ctx.executor)
        per_seed = []
        for s in range(c.seeds):
            E = np.array([[est.samples[f"eps_{j}[W_{i}]"][0, s] for i in range(K + 1)]
                          for j in range(1, K + 1)])
            per_seed.append(sequence_metrics(E))
        for name in METRICS:
            x = np.array([m[name] for m in per_seed])
            out[name][0].append(x.mean())
            out[name][1].append(x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else 0.0)
    return {name: (np.array(m), np.array(s)) for name, (m, s) in out.items()}


def _metrics_figure(ctx: FigureContext) -> FigureResult:
    c = ctx.config
    Ks_theory = np.arange(2, (CURVE_K if c.mode == "paper" else QUICK_CURVE_K) + 1)
    Ks_numeric = (2, 4, 7, 10) if c.mode == "paper" else (2, 4)
    fig, axes = new_figure(2 * len(METRICS), (14.0, 7.0), rows=2)
    colors = dict(zip(REMEDIES, palette(len(REMEDIES), "plasma")))
    gaps: dict[int, list[tuple[float, float, str]]] = {K: [] for K in Ks_numeric}
    every_numeric, every_theory, every_sem, labels = [], [], [], []
    for row, structure in enumerate(STRUCTURES):
        for remedy in REMEDIES:
            theory = {name: [] for name in METRICS}
            for K in Ks_theory:
                E = np.array(leading_errors(remedy, structure, int(K),
                                            point=_point(**CURVE_POINT)), dtype=float)
                for name, value in sequence_metrics(E).items():
                    theory[name].append(value)
            measured = _measured(ctx, remedy, structure, Ks_numeric)
            for col, name in enumerate(METRICS):
                ax = axes[row * len(METRICS) + col]
                theory_line(ax, Ks_theory, np.array(theory[name]), colors[remedy],
                            label=_LABELS[remedy] if (row, col) == (0, 0) else "",
                            data_label=f"{_LABELS[remedy]} (theory)")
                mean, sem = measured[name]
                numeric_points(ax, np.array(Ks_numeric), mean, sem, colors[remedy],
                               data_label=f"{_LABELS[remedy]} (numerics)")
                at = [list(Ks_theory).index(K) for K in Ks_numeric]
                every_numeric += list(mean)
                every_theory += list(np.array(theory[name])[at])
                every_sem += list(sem)
                labels += [{"K": float(K)} for K in Ks_numeric]
                for k, K in enumerate(Ks_numeric):
                    dev = deviation(mean[k:k + 1], np.array(theory[name])[at][k:k + 1],
                                    sem[k:k + 1])
                    gaps[K].append((dev.max_abs, dev.z_there,
                                    f"{name}, {remedy}, {structure}"))
    for row, structure in enumerate(STRUCTURES):
        for col, name in enumerate(METRICS):
            ax = axes[row * len(METRICS) + col]
            ax.axhline(0, color="0.7", linewidth=0.6)
            ax.set(xlabel="number of tasks K", ylabel=_METRIC_LABELS[name])
            panel_label(ax, "ABCDEF"[row * len(METRICS) + col], f"{structure}")
    axes[0].legend(loc="best", fontsize=6.5)
    first, last = max(gaps[Ks_numeric[0]]), max(gaps[Ks_numeric[-1]])
    trend = "grows" if last[0] > first[0] else "does not grow"
    verdict = (
        f"at {c.sizes()} the exact solvers' gap to the leading order {trend} with the number "
        f"of tasks: at most {fmt_number(first[0])} at K = {Ks_numeric[0]} ({first[2]}), "
        f"{fmt_number(last[0])} at K = {Ks_numeric[-1]} ({last[2]}, "
        f"{fmt_number(last[1], 2)} standard errors): the leading order is a limit Ns/Nx -> 0 "
        f"at fixed K, and K tasks fill K Ns = {Ks_numeric[-1] * c.ns} of the Nx = {c.nx} "
        "input dimensions")
    overall = fmt_deviation(deviation(np.array(every_numeric), np.array(every_theory),
                                      np.array(every_sem)), labels)
    caption = (
        f"**Metrics against the number of tasks** at (rho_a, rho_b) = "
        f"({CURVE_POINT['rho_a']:g}, {CURVE_POINT['rho_b']:g}), alpha = gamma = {LEVEL:g}. "
        "Lines: leading order (every entry of the derived error matrix, "
        f"{_cited()}, evaluated by its recursion on numbers). Markers: numerics, exact fixed "
        f"points with errors averaged exactly over B, {c.sizes()}, gaussian generator, "
        f"{c.seeds} seeds per K (mean +- standard error), root seed {ctx.seed}; over all "
        f"markers the {overall}. Top: chain; bottom: shared. Backward transfer (eps_j[W_j] - "
        "eps_j[W_K], averaged) is negative when tasks are forgotten; forward transfer is the "
        "mean of the paper's Delta eps^TF_j.")
    return FigureResult("sequences_metrics", "Sequences: metrics against the number of tasks",
                        caption, fig, verdict)


def figure_sequences(ctx: FigureContext) -> list[FigureResult]:
    """Both figures of the sequences section (module docstring)."""
    return [_retention_figure(ctx), _metrics_figure(ctx)]
