"""Averages over the uniform prior on 0 <= rho_a, rho_b <= 1 (Appendix B.1, "Average error
under a uniform prior on task similarity"; Figs. 2D, 3, 4D, 5C-D): numerics on a midpoint grid,
theory averaged exactly and over the same pairs, and their drawing.

The paper estimates each average from 100 uniformly sampled (rho_a, rho_b) pairs with one seed
each; here the pairs are the centres of a side x side grid (a midpoint quadrature, error
O(1/side^2) for smooth integrands), and each pair's tasks are drawn once and shared by every x
value of the panel (:func:`tasksim.reports.figures_numerics.prior_average_sweep`: common
random numbers, so the points along x differ by x, not by a fresh draw). Comparing the
numerics with the theory averaged over the *same* pairs isolates the finite-size deviation
from the quadrature error.

Examples
--------
>>> grid_points((0.5,), "alpha", 1)
[{'rho_a': 0.5, 'rho_b': 0.5, 'alpha': 0.5}]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .figures_config import grid_points, midpoint_grid
from .figures_context import FigureContext, fmt_deviation
from .figures_numerics import PointEstimates, deviation
from .figures_plot import baseline, numeric_points, theory_line

__all__ = ["TF_COLOR", "RT_COLOR", "PriorAverage", "prior_average", "grid_points",
           "average_caption", "averages_phrase", "draw_average_panel"]

TF_COLOR, RT_COLOR = "tab:red", "tab:blue"
"""Colours of transfer and retention in the average panels (Appendix B.1: red and blue)."""


@dataclass(frozen=True)
class PriorAverage:
    """Averages over the midpoint grid at each x value (alpha or gamma) of one model.

    ``numeric[which]`` and ``on_grid[which]`` (theory at the same pairs) have one value per
    x; ``sem[which]`` is the standard error of the mean of numerics - theory over the pairs
    (the quadrature error is not in it: it is ``on_grid`` - the exact average). Without a
    theory both are nan: the spread of the integrand over the pairs is not an uncertainty.
    """

    x: np.ndarray
    numeric: dict[str, np.ndarray]
    on_grid: dict[str, np.ndarray]
    sem: dict[str, np.ndarray]
    pairs: int


def prior_average(estimates: PointEstimates, x_values, x_name: str, side: int,
                  theory_of: dict, names=("transfer", "retention")) -> PriorAverage:
    """Collect per-x averages from a sweep whose points are x-major over the midpoint grid.

    ``theory_of[which]`` is a numpy function of (rho_a, rho_b, x) (None: no theory).

    Examples
    --------
    >>> from tasksim.reports.figures_numerics import PointEstimates
    >>> points = grid_points((0.5, 1.0), "alpha", 2)          # 2 x values x 4 pairs
    >>> samples = {"transfer": np.array([[p["alpha"] * p["rho_a"]] for p in points])}
    >>> avg = prior_average(PointEstimates(tuple(points), samples), (0.5, 1.0), "alpha", 2,
    ...                     {"transfer": lambda a, b, x: x * a}, names=("transfer",))
    >>> avg.numeric["transfer"].tolist(), avg.sem["transfer"].tolist()   # exact: no spread
    ([0.25, 0.5], [0.0, 0.0])
    """
    a, b = midpoint_grid(side)
    n = len(a)
    numeric, on_grid, sem = {}, {}, {}
    for which in names:
        values = estimates.samples[which][:, 0].reshape(len(x_values), n)
        numeric[which] = values.mean(axis=1)
        fn = theory_of.get(which)
        if fn is None:
            on_grid[which] = np.full(len(x_values), np.nan)
            sem[which] = np.full(len(x_values), np.nan)
            continue
        th = np.stack([fn(a, b, x) for x in x_values])
        on_grid[which] = th.mean(axis=1)
        sem[which] = (values - th).std(axis=1, ddof=1) / np.sqrt(n)
    return PriorAverage(np.asarray(x_values, dtype=float), numeric, on_grid, sem, n)


def average_caption(label: str, avg: PriorAverage, exact: dict, x_name: str) -> str:
    """Deviation sentences for an average panel: numerics vs the exact average, and vs the
    theory averaged over the same pairs."""
    parts = []
    for which in avg.numeric:
        fn = exact.get(which)
        if fn is None:
            continue
        ex = fn(avg.x)
        d_exact = deviation(avg.numeric[which], ex, avg.sem[which])
        d_grid = deviation(avg.numeric[which], avg.on_grid[which], avg.sem[which])
        points = [{x_name: float(v)} for v in avg.x]
        parts.append(f"{label} {which}: vs the exact average "
                     f"{fmt_deviation(d_exact, points)}; vs the theory on the same pairs "
                     f"{fmt_deviation(d_grid, points)}")
    return "; ".join(parts)


def averages_phrase(ctx: FigureContext) -> str:
    """How the numerics of an average panel were made, for captions."""
    c = ctx.config
    return (f"numerics: averages over the {c.average_side ** 2} centres of a "
            f"{c.average_side} x {c.average_side} grid of (rho_a, rho_b) in [0, 1]^2, one sample "
            f"each (exact fixed points, {c.sizes()}, appendix generator, root seed {ctx.seed}; "
            f"each pair's task matrices A_1, A_2, B_1, B_2 drawn once and shared by every "
            f"point on the x axis; the gates, or the metric's uncorrelated task, drawn per "
            f"point); "
            f"error bars: standard error of the mean of numerics - theory over the pairs")


def draw_average_panel(axis, avg: PriorAverage, exact: dict, vanilla: dict) -> None:
    """Theory lines (exact averages) over the x range, numerics markers, vanilla dashed."""
    fine = np.linspace(min(avg.x.min(), 0.02), avg.x.max(), 200)
    for which, color in (("transfer", TF_COLOR), ("retention", RT_COLOR)):
        fn = exact.get(which)
        if fn is not None:
            theory_line(axis, fine, fn(fine), color, label=f"{which} (theory)")
        spread = avg.sem[which] if np.isfinite(avg.sem[which]).all() else None
        numeric_points(axis, avg.x, avg.numeric[which], spread, color,
                       label=f"{which} (numerics)")
        if vanilla:
            baseline(axis, vanilla[which], color="0.45" if which == "transfer" else "0.65",
                     data_label=f"vanilla {which}")
    axis.legend(loc="center left", fontsize=6.5)


