"""The report's figures: the paper's Figs. 1-9 regenerated, and finite-size plots.

``build_figures(out_dir, quick=..., seed=..., progress=...)`` (called by
:func:`tasksim.reports.report.build_report`) draws every figure, writes one PNG per figure into
``out_dir`` and returns one Markdown section per figure, embedding it as
``figures/<name>.png`` with a caption that says what is plotted, which curves are theory (the
leading order of a derived claim of :mod:`tasksim.derivations.registry`) and which are numerics (exact
finite-N solvers, with sizes, seeds and generator), and how far they are apart.

Builders (one module per part of the paper):

- :mod:`tasksim.reports.figures_vanilla`: Fig. 1 and its numeric heatmaps;
- :mod:`tasksim.reports.figures_gating`: Figs. 2, 3 and 7;
- :mod:`tasksim.reports.figures_regularization`: Figs. 4, 8 and 5;
- :mod:`tasksim.reports.figures_sequences`: K tasks (retention of task 1, metrics against K);
- :mod:`tasksim.reports.figures_finite_size`: |exact - leading order| against Ns/Nx, with the
  derived 1/Nx term;
- :mod:`tasksim.reports.figures_nlo_table`: leading order, leading + NLO and the measurement at
  the paper's sizes.
- :mod:`tasksim.reports.figures_pmnist`: Figs. 6 and 9, the permuted-digits network (Sec. 7).

Same inputs, same bytes: seeds are fixed per panel (:func:`tasksim.reports.figures_config.panel_seed`),
sweeps give the same numbers on any number of workers, figures have fixed sizes and dpi and are
written without timestamps (:func:`tasksim.reports.figures_plot.save_png`).

Examples
--------
>>> [name for name, _ in BUILDERS][:2]
['fig1', 'fig1_numeric_heatmaps']
"""
from __future__ import annotations

from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable, Optional

import matplotlib

from .figures_blas import single_threaded_blas
from .figures_config import FigureConfig
from .figures_context import FigureContext, FigureResult
from .figures_finite_size import finite_size_figure
from .figures_gating import figure_2, figure_3, figure_7
from .figures_nlo_table import nlo_table_figure
from .figures_plot import STYLE, save_png
from .figures_pmnist import (figure_6_gating, figure_6_regularization, figure_6_vanilla,
                             figure_9)
from .figures_regularization import figure_4, figure_5, figure_8
from .figures_sequences import figure_sequences
from .figures_vanilla import figure_1, figure_1_numeric_heatmaps
from .provenance import png_metadata

__all__ = ["BUILDERS", "build_figures", "figure_section"]

Builder = Callable[[FigureContext], list[FigureResult]]

BUILDERS: tuple[tuple[str, Builder], ...] = (
    ("fig1", figure_1),
    ("fig1_numeric_heatmaps", figure_1_numeric_heatmaps),
    ("fig2", figure_2),
    ("fig3", figure_3),
    ("fig7", figure_7),
    ("fig4", figure_4),
    ("fig8", figure_8),
    ("fig5", figure_5),
    ("fig6_vanilla", figure_6_vanilla),
    ("fig6_gating", figure_6_gating),
    ("fig6_regularization", figure_6_regularization),
    ("fig9", figure_9),
    ("finite_size", finite_size_figure),
    ("finite_size_paper_sizes", nlo_table_figure),
    ("sequences", figure_sequences),
)
"""Every figure builder, in the order of the report."""


def figure_section(result: FigureResult) -> str:
    """The Markdown section of one figure: heading, image (relative path), the verdict (what
    the figure shows about the paper's statements, when the builder states one), caption.

    Examples
    --------
    >>> from tasksim.reports.figures_plot import new_figure
    >>> fig, _ = new_figure(1, (2.0, 2.0))
    >>> print(figure_section(FigureResult("demo", "Demo", "**Demo.** A caption.", fig)))
    ### Demo
    <BLANKLINE>
    ![Demo](figures/demo.png)
    <BLANKLINE>
    **Demo.** A caption.
    <BLANKLINE>
    """
    verdict = f"**Measured here: {result.verdict}** " if result.verdict else ""
    return (f"### {result.title}\n\n"
            f"![{result.title}](figures/{result.name}.png)\n\n"
            f"{verdict}{result.caption}\n")


def build_figures(out_dir: Path, *, quick: bool, seed: int,
                  progress: Callable[[str], None],
                  provenance: Optional[dict[str, Any]] = None) -> tuple[list[str], list[str]]:
    """Draw every figure into ``out_dir`` (created if missing); return the Markdown sections
    and the findings (one Markdown bullet per figure verdict, for the report's summary).

    ``quick`` uses small sizes and few seeds (:meth:`FigureConfig.quick`); otherwise the
    paper's sizes (:meth:`FigureConfig.paper`), with the numerics on a pool of
    ``config.workers`` processes. ``seed`` is the root of every panel's seed. BLAS runs on
    one thread during the build (:mod:`tasksim.reports.figures_blas`). ``provenance``
    (:func:`tasksim.reports.provenance.provenance`) goes into every PNG's text chunks.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config = FigureConfig.for_mode(bool(quick))
    metadata = png_metadata(provenance) if provenance is not None else None
    sections: list[str] = [
        f"Figures built in {config.mode} mode (linear models at {config.sizes()}, "
        f"{config.seeds} seeds per point unless a caption says otherwise; root seed {seed}). "
        "Lines are theory: the leading order in Ns/Nx of a claim's *derived* expression "
        "(claim ids in the captions, `tasksim claims`). Markers are numerics: exact finite-N "
        "solvers (`solvers/`). Dashed horizontal lines are the vanilla model.\n"
    ]
    findings: list[str] = []
    with ExitStack() as stack:
        stack.enter_context(matplotlib.rc_context(STYLE))
        stack.enter_context(single_threaded_blas())  # see reports/figures_blas.py
        executor: Optional[Executor] = None
        if config.workers:
            executor = stack.enter_context(ProcessPoolExecutor(max_workers=config.workers))
        ctx = FigureContext(config, seed, executor, progress)
        for name, builder in BUILDERS:
            progress(f"figures: building {name}")
            for result in builder(ctx):
                path = save_png(result.figure, out / f"{result.name}.png", dpi=config.dpi,
                                metadata=metadata)
                progress(f"figures: wrote {path}")
                sections.append(figure_section(result))
                if result.verdict:
                    findings.append(f"- {result.title}: {result.verdict}")
    return sections, findings
