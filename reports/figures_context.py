"""What every figure builder shares: the configuration, the seeds, the numerics runner with
its cache, and the result type (a figure and its caption).

A builder is a function ``build(ctx: FigureContext) -> list[FigureResult]``; it computes its
data through ``ctx`` (theory from :mod:`tasksim.reports.figures_theory`, numerics from
:mod:`tasksim.reports.figures_numerics`) and draws it; saving and Markdown are
:func:`tasksim.reports.figures.build_figures`'s job.

Examples
--------
>>> ctx = FigureContext(FigureConfig.quick(), seed=0)
>>> est = ctx.linear("demo", "vanilla", [{"rho_a": 0.5, "rho_b": 0.5}])
>>> est is ctx.linear("demo", "vanilla", [{"rho_a": 0.5, "rho_b": 0.5}])   # cached
True
>>> fmt_deviation(Deviation(0.01234, 1, 2.5, 3.0, 0.005), [{"rho_a": 0.0}, {"rho_a": 1.0}])
'largest |numerics - theory| = 0.0123 at rho_a = 1 (2.5 standard errors there; at most 3 anywhere), RMS 0.005'
"""
from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np
from matplotlib.figure import Figure

from .figures_config import FigureConfig, panel_seed
from .figures_numerics import (Deviation, PointEstimates, linear_model_sweep, prior_average_sweep,
                               soft_threshold_sweep)

__all__ = ["FigureResult", "FigureContext", "fmt_number", "fmt_point", "fmt_deviation"]


@dataclass
class FigureResult:
    """One figure: its file stem, a title, a Markdown caption, the drawn figure, and its verdict
    (one sentence, computed from the figure's numbers: what it shows about the paper's
    statements; it leads the caption and the report's summary lists it)."""

    name: str
    title: str
    caption: str
    figure: Figure
    verdict: str = ""


@dataclass
class FigureContext:
    """Configuration, root seed, executor (None: serial) and progress of one build."""

    config: FigureConfig
    seed: int
    executor: Optional[Executor] = None
    progress: Callable[[str], None] = lambda message: None
    cache: dict[tuple, Any] = field(default_factory=dict)

    def root(self, panel: str) -> np.random.SeedSequence:
        """The panel's root seed (:func:`tasksim.reports.figures_config.panel_seed`)."""
        return panel_seed(self.seed, panel)

    def linear(self, panel: str, model: str, points: Sequence[Mapping[str, float]], *,
               seeds: Optional[int] = None, nx: Optional[int] = None,
               first_task: Optional[str] = None) -> PointEstimates:
        """:func:`tasksim.reports.figures_numerics.linear_model_sweep` at the configured sizes and
        the paper's (appendix) generator, seeded by ``panel``; cached by its arguments."""
        c = self.config
        seeds = c.seeds if seeds is None else seeds
        key = ("linear", panel, model, _frozen(points), seeds, nx, first_task)
        if key not in self.cache:
            self.progress(f"figures: {panel}: {model}, {len(points)} points x {seeds} seeds")
            self.cache[key] = linear_model_sweep(
                model, points, nx=c.nx if nx is None else nx, ns=c.ns, ny=c.ny, seeds=seeds,
                root=self.root(panel), executor=self.executor, first_task=first_task)
        return self.cache[key]

    def prior_linear(self, panel: str, model: str, x_name: str, x_values: Sequence[float], *,
                     first_task: Optional[str] = None, score: str = "averaged"
                     ) -> PointEstimates:
        """:func:`tasksim.reports.figures_numerics.prior_average_sweep` at the configured sizes
        on the average grid (``average_side``), the paper's (appendix) generator, seeded by
        ``panel`` (a panel's pairs have the same tasks for every model seeded by it); cached
        by its arguments. Points x-major over the midpoint grid, one sample each; ``score``
        as :func:`~tasksim.reports.figures_numerics.prior_average_sweep`'s."""
        c = self.config
        key = ("prior", panel, model, x_name, tuple(float(x) for x in x_values), first_task,
               score)
        if key not in self.cache:
            self.progress(f"figures: {panel}: {model}, {c.average_side ** 2} pairs x "
                          f"{len(x_values)} {x_name} values, one task draw per pair")
            self.cache[key] = prior_average_sweep(
                model, x_name, x_values, c.average_side, nx=c.nx, ns=c.ns, ny=c.ny,
                root=self.root(panel), executor=self.executor, first_task=first_task,
                score=score)
        return self.cache[key]

    def soft_threshold(self, panel: str, points: Sequence[Mapping[str, float]]) -> PointEstimates:
        """:func:`tasksim.reports.figures_numerics.soft_threshold_sweep` at the soft-threshold sizes,
        one seed per point; cached. Fig. 3D's panel (``averages.soft-threshold``) is the stored
        experiment of :mod:`tasksim.reports.soft_threshold_results` (read from ``results/``
        at the paper's sizes, computed here in quick mode): the same numbers."""
        from .soft_threshold_results import FIGURE_PANEL, figure_estimates, report_data

        c = self.config
        key = ("soft", panel, _frozen(points))
        if key not in self.cache:
            self.progress(f"figures: {panel}: soft-threshold, {len(points)} points "
                          f"(Nx = {c.soft_nx}, Ns = {c.soft_ns})")
            if panel == FIGURE_PANEL:
                stored = report_data(quick=c.mode == "quick", seed=self.seed, part="figure",
                                     config=c)
                self.cache[key] = figure_estimates(stored, points)
            else:
                self.cache[key] = soft_threshold_sweep(
                    points, nx=c.soft_nx, ns=c.soft_ns, ny=c.ny, seeds=1,
                    root=self.root(panel), executor=self.executor)
        return self.cache[key]

    def numerics_phrase(self, seeds: Optional[int] = None, *, spread: str = "sd") -> str:
        """How the numerics of a panel were made, for captions."""
        c = self.config
        seeds = c.seeds if seeds is None else seeds
        what = {"sd": "mean +- sd over seeds", "sem": "mean +- standard error"}[spread]
        return (f"exact fixed points (gradient-flow limit; errors averaged exactly over B given "
                f"A), {c.sizes()}, appendix generator, {seeds} seed{'' if seeds == 1 else 's'} per point ({what}), "
                f"root seed {self.seed}")


def _frozen(points: Sequence[Mapping[str, float]]) -> tuple:
    return tuple(tuple(sorted(p.items())) for p in points)


def fmt_number(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits (plain notation where short).

    >>> fmt_number(0.000123456), fmt_number(12.3456), fmt_number(1.0)
    ('0.000123', '12.3', '1')
    """
    if x == 0 or not math.isfinite(x):
        return str(x) if not math.isfinite(x) else "0"
    return f"{x:.{digits}g}"


def fmt_point(point: Mapping[str, float]) -> str:
    """``{"rho_a": 1.0, "rho_b": 0.5}`` -> ``"(rho_a, rho_b) = (1, 0.5)"``.

    >>> fmt_point({"rho_a": 1.0, "rho_b": 0.5})
    '(rho_a, rho_b) = (1, 0.5)'
    """
    names = ", ".join(point)
    values = ", ".join(fmt_number(float(v)) for v in point.values())
    return f"({names}) = ({values})" if len(point) > 1 else f"{names} = {values}"


def fmt_largest_deviation(dev: Deviation) -> str:
    """How far the largest deviation stands out of its own seed noise, and the typical one.

    A largest |numerics - theory| over many points is partly the luckiest seed, so the RMS
    leads and the largest follows with its standard errors.
    """
    z = "" if math.isnan(dev.z_there) else (
        f", {fmt_number(dev.z_there, 2)} standard errors of its seeds")
    return f"RMS {fmt_number(dev.rms)} over the points (largest {fmt_number(dev.max_abs)}{z})"


def fmt_deviation(dev: Deviation, points: Sequence[Mapping[str, float]]) -> str:
    """A caption sentence for :func:`tasksim.reports.figures_numerics.deviation`."""
    where = fmt_point(points[dev.where]) if dev.where < len(points) else ""
    if dev.max_abs <= 1e-12:
        return (f"largest |numerics - theory| = {fmt_number(dev.max_abs)} (rounding level) at "
                f"{where}")
    z = "" if math.isnan(dev.z_there) else (
        f" ({fmt_number(dev.z_there, 2)} standard errors there; at most "
        f"{fmt_number(dev.max_z, 2)} anywhere)")
    return (f"largest |numerics - theory| = {fmt_number(dev.max_abs)} at {where}{z}, "
            f"RMS {fmt_number(dev.rms)}")
