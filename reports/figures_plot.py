"""Drawing helpers for the report's figures: one style, deterministic PNG files.

Figures are ``matplotlib.figure.Figure`` objects on the Agg canvas (no pyplot state). A PNG is
written with fixed size and dpi and ``metadata={"Software": None}``: no version string and no
timestamp, so the same figure gives the same bytes.

Conventions of every panel: lines are theory (leading order of a derived claim), markers with
error bars are numerics (exact finite-N solvers), dashed horizontal lines are the vanilla
model's values.

Examples
--------
>>> import tempfile, pathlib
>>> def drawn():
...     fig, axes = new_figure(2, (4.0, 2.0))
...     _ = axes[0].plot([0, 1], [0, 1])
...     _ = axes[1].plot([0, 1], [1, 0])
...     return fig
>>> with tempfile.TemporaryDirectory() as d:
...     a = save_png(drawn(), pathlib.Path(d) / "a.png", dpi=50)
...     b = save_png(drawn(), pathlib.Path(d) / "b.png", dpi=50)
...     a.read_bytes() == b.read_bytes()
True
"""
from __future__ import annotations

import gzip
import math
from pathlib import Path
from typing import Any, Optional, Sequence

import matplotlib

matplotlib.use("Agg", force=False)  # a no-op when a backend is already chosen

import csv  # noqa: E402
import io  # noqa: E402

import matplotlib.colors as mcolors  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = [
    "STYLE",
    "band_line",
    "new_figure",
    "new_figure_grid",
    "save_png",
    "data_path",
    "gzip_bytes",
    "panel_label",
    "palette",
    "theory_line",
    "numeric_points",
    "heatmap",
    "baseline",
    "figure_data_csv",
]

STYLE: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "errorbar.capsize": 1.5,
    "image.cmap": "viridis",
    "svg.hashsalt": "tasksim",
    "path.simplify": False,
}


def new_figure(n_panels: int, size: tuple[float, float], *, rows: int = 1,
               width_ratios: Optional[Sequence[float]] = None) -> tuple[Figure, list[Axes]]:
    """A figure of fixed ``size`` (inches) with ``n_panels`` axes on ``rows`` rows.

    Uses ``constrained_layout`` so labels and colorbars do not overlap.
    """
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        cols = -(-n_panels // rows)
        grid = fig.add_gridspec(rows, cols, width_ratios=width_ratios)
        axes = [fig.add_subplot(grid[i // cols, i % cols]) for i in range(n_panels)]
    return fig, axes


def new_figure_grid(size: tuple[float, float], rows: int, cols: int,
                    cells: Sequence[tuple[int, slice]]) -> tuple[Figure, list[Axes]]:
    """A figure of fixed ``size`` with one axes per cell (row, column slice) of a grid.

    Examples
    --------
    >>> fig, axes = new_figure_grid((6.0, 4.0), 2, 2, [(0, slice(0, 2)), (1, slice(0, 1))])
    >>> len(axes), axes[0].get_subplotspec().colspan
    (2, range(0, 2))
    """
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(rows, cols)
        axes = [fig.add_subplot(grid[r, c]) for r, c in cells]
    return fig, axes


def data_path(png: Path) -> Path:
    """Where the plotted numbers of the PNG ``png`` are written: ``<stem>.csv.gz`` beside it.

    >>> data_path(Path("figures/fig1_vanilla.png")).as_posix()
    'figures/fig1_vanilla.csv.gz'
    """
    return Path(png).with_name(Path(png).stem + ".csv.gz")


def gzip_bytes(text: str) -> bytes:
    """``text`` as UTF-8, gzip-compressed without a timestamp or file name (same text, same
    bytes), readable by ``gzip``, ``zcat`` and ``pandas.read_csv``.

    >>> import gzip
    >>> gzip.decompress(gzip_bytes("a,b")) == b"a,b" and gzip_bytes("x") == gzip_bytes("x")
    True
    """
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def save_png(fig: Figure, path: Path, *, dpi: int,
             metadata: Optional[dict[str, str]] = None, data: bool = True) -> Path:
    """Write ``fig`` as PNG at ``dpi`` without metadata that changes between runs; ``metadata``
    (PNG text chunks, e.g. the provenance) is written as given. With ``data`` (the default)
    its plotted numbers are written beside it as gzip-compressed CSV (:func:`data_path`,
    :func:`figure_data_csv`): a heatmap's rows repeat their labels, and compressed they take a
    tenth of the space.

    Same figure code, same bytes. (Saving one figure object twice is not idempotent: its
    first draw settles the constrained layout, so build each figure once per file.)
    """
    path = Path(path)
    empty = [i for i, axes in enumerate(fig.axes) if axes.get_visible() and not axes.has_data()]
    if empty:  # REFEREE30 n5: a panel made and never drawn on
        raise ValueError(f"{path.name}: axes {empty} of the figure draw nothing")
    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(STYLE):
        fig.savefig(path, dpi=dpi, format="png", metadata={"Software": None, **(metadata or {})})
    if data:
        data_path(path).write_bytes(gzip_bytes(figure_data_csv(fig)))
    return path


DATA_HEADER = (
    "# The numbers plotted in the PNG of the same name, one row per plotted point.\n"
    "# panel: the panel's title; series: the legend label (an unlabelled curve: the label of "
    "its colour, else kind and index); kind: line (theory, or a line joining numerics), "
    "points (numerics), band (a mean curve with a shaded band), baseline (dashed, across the "
    "panel), reference (a solid line across the panel, y = or x = its value), heatmap, "
    "scatter;\n"
    "# x, y: the point (heatmap: the cell centre, with its value in value); error: the "
    "half-length of the drawn error bar or band (the caption says whether it is the standard "
    "error or the sd over seeds), empty where none is drawn.\n"
)
"""The comment lines at the top of every figure's CSV."""


def _number(x: Optional[float]) -> str:
    return "" if x is None else _numbers([x])[0]


def _numbers(values: np.ndarray) -> list[str]:
    """:func:`_number` of each value (through Python floats: a figure's CSV holds hundreds of
    thousands of numbers, and numpy's scalar tests cost more than the formatting)."""
    return [f"{x:.12g}" if math.isfinite(x) else "" for x in np.asarray(values, float).tolist()]


def _named_by_its_line(ax: Axes, marker_line: Any) -> str:
    """An unlabelled series of markers named after the one labelled curve of its panel drawn
    in its colour (the theory line it is measured against): "rho_b = 0.5 (numerics)"; ""
    when no curve, or more than one, shares the colour (REFEREE30 n6)."""
    colour = mcolors.to_rgba(marker_line.get_color())
    labels = {line.get_label() for line in ax.lines
              if line is not marker_line and not line.get_label().startswith("_")
              and mcolors.to_rgba(line.get_color()) == colour}
    return f"{labels.pop()} (numerics)" if len(labels) == 1 else ""


def _colour_labels(axes: Sequence[Axes]) -> dict[tuple[float, ...], set[str]]:
    """The labels of the labelled curves and error bars of ``axes``, by their colour."""
    out: dict[tuple[float, ...], set[str]] = {}
    for ax in axes:
        for line in ax.lines:
            if not line.get_label().startswith("_"):
                out.setdefault(mcolors.to_rgba(line.get_color()), set()).add(line.get_label())
        for container in ax.containers:
            label = getattr(container, "data_label", "") or container.get_label() or ""
            if isinstance(container, ErrorbarContainer) and label and not label.startswith("_"):
                colour = mcolors.to_rgba(container.lines[0].get_color())
                out.setdefault(colour, set()).add(label)
    return out


def _named_by_its_colour(ax: Axes, line: Any, kind: str) -> str:
    """An unlabelled curve named after the one labelled series drawn in its colour, in its
    panel, else in the whole figure (a legend drawn on one panel names every panel's
    curves): "euclidean (line)"; "" when none, or more than one, shares the colour
    (REFEREE31, REFEREE34 n4: no "line 7" in a figure's data)."""
    colour = mcolors.to_rgba(line.get_color())
    for axes in ([ax], [a for a in ax.figure.axes if a.get_label() != "<colorbar>"]):
        labels = _colour_labels(axes).get(colour, set())
        if len(labels) == 1:
            return f"{labels.pop()} ({kind})"
        if labels:
            return ""
    return ""


def figure_data_csv(fig: Figure) -> str:
    """Every plotted point of ``fig`` as CSV (``DATA_HEADER``; columns panel, x_label,
    y_label, series, kind, x, y, error, value): theory lines, error bars, baselines,
    heatmaps and scatters, read from the drawn artists, so every figure writes its data with
    no code of its own.

    Examples
    --------
    >>> fig, (ax,) = new_figure(1, (2.0, 2.0))
    >>> numeric_points(ax, np.array([0.0, 1.0]), np.array([1.0, 2.0]), np.array([0.1, 0.2]), "k",
    ...                label="numerics")
    >>> theory_line(ax, np.array([0.0, 1.0]), np.array([1.0, 2.0]), "k", label="theory")
    >>> print("\\n".join(figure_data_csv(fig).splitlines()[-4:]))
    axes 1,,,numerics,points,0,1,0.1,
    axes 1,,,numerics,points,1,2,0.2,
    axes 1,,,theory,line,0,1,,
    axes 1,,,theory,line,1,2,,
    """
    out = io.StringIO()
    out.write(DATA_HEADER)
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(["panel", "x_label", "y_label", "series", "kind", "x", "y", "error",
                     "value"])
    for number, ax in enumerate(fig.axes):
        if ax.get_label() == "<colorbar>":
            continue
        panel = " ".join(t for t in (ax.get_title("left"), ax.get_title()) if t).replace(
            "$\\bf{", "").replace("}$", "") or f"axes {number + 1}"
        head = [panel, ax.get_xlabel(), ax.get_ylabel()]
        in_bars = set()
        for i, container in enumerate(ax.containers):
            if not isinstance(container, ErrorbarContainer):
                continue
            line, caps, bars = container.lines
            in_bars.add(id(line))
            in_bars.update(id(c) for c in caps)
            xs, ys = (np.asarray(a, dtype=float) for a in line.get_data())
            errors = np.full(len(xs), np.nan)
            if bars:
                for j, segment in enumerate(bars[-1].get_segments()[:len(xs)]):
                    errors[j] = abs(segment[1][1] - segment[0][1]) / 2
            series = getattr(container, "data_label", "") or container.get_label() or ""
            if not series or series.startswith("_"):
                series = _named_by_its_line(ax, line) or f"points {i + 1}"
            for x, y, e in zip(_numbers(xs), _numbers(ys), _numbers(errors)):
                writer.writerow(head + [series, "points", x, y, e, ""])
        for i, line in enumerate(ax.lines):
            if id(line) in in_bars:
                continue
            xs, ys = (np.atleast_1d(np.asarray(a, dtype=float)) for a in line.get_data())
            spans = line.get_transform() is not ax.transData  # axhline, axvline
            horizontal = spans and len(set(ys.tolist())) == 1
            vertical = spans and not horizontal and len(set(xs.tolist())) == 1
            band = getattr(line, "band_half_width", None)
            kind = ("baseline" if horizontal and line.get_linestyle() == "--" else
                    "reference" if horizontal or vertical else
                    "line" if band is None else "band")
            series = getattr(line, "data_label", "") or line.get_label()
            if not series or series.startswith("_"):
                series = (f"y = {ys[0]:g}" if kind == "reference" and horizontal else
                          f"x = {xs[0]:g}" if kind == "reference" else
                          _named_by_its_colour(ax, line, kind) or f"{kind} {i + 1}")
            if horizontal:
                writer.writerow(head + [series, kind, "", _number(ys[0]), "", ""])
                continue
            if vertical:
                writer.writerow(head + [series, kind, _number(xs[0]), "", "", ""])
                continue
            errors = np.full(len(xs), np.nan) if band is None else np.asarray(band, dtype=float)
            for x, y, e in zip(_numbers(xs), _numbers(ys), _numbers(errors)):
                writer.writerow(head + [series, kind, x, y, e, ""])
        for i, image in enumerate(ax.images):
            values = np.asarray(image.get_array(), dtype=float)
            x0, x1, y0, y1 = image.get_extent()
            rows, cols = values.shape[:2]
            xs = _numbers([x0 + (c + 0.5) * (x1 - x0) / cols for c in range(cols)])
            ys = _numbers([y0 + (r + 0.5) * (y1 - y0) / rows for r in range(rows)])
            cells = _numbers(values.ravel())
            series = head + [f"heatmap {i + 1}", "heatmap"]
            writer.writerows(series + [xs[c], ys[r], "", cells[r * cols + c]]
                             for r in range(rows) for c in range(cols))
        for i, collection in enumerate(ax.collections):
            offsets = np.asarray(collection.get_offsets(), dtype=float)
            if offsets.ndim != 2 or len(offsets) == 0 or type(collection).__name__ != \
                    "PathCollection":
                continue
            series = collection.get_label()
            series = f"scatter {i + 1}" if not series or series.startswith("_") else series
            for x, y in offsets:
                writer.writerow(head + [series, "scatter", _number(x), _number(y), "", ""])
    return out.getvalue()


def band_line(ax: Axes, x: np.ndarray, mean: np.ndarray, half_width: Optional[np.ndarray],
              color: object, *, label: str = "", alpha: float = 0.25) -> None:
    """A mean curve with a shaded band of +- ``half_width`` (none when None), whose
    half-widths the figure's CSV gives in its error column (kind ``band``,
    :func:`figure_data_csv`)."""
    (line,) = ax.plot(x, mean, color=color, label=label)
    if half_width is not None:
        half_width = np.broadcast_to(np.asarray(half_width, dtype=float), np.shape(mean))
        ax.fill_between(x, mean - half_width, mean + half_width, color=color, alpha=alpha,
                        linewidth=0)
        line.band_half_width = half_width  # read back by figure_data_csv


def panel_label(ax: Axes, letter: str, title: str = "") -> None:
    """The panel's letter in bold, and its title, above the axes."""
    ax.set_title(f"$\\bf{{{letter}}}$  {title}", loc="left")


def palette(n: int, name: str = "viridis") -> list[tuple[float, float, float, float]]:
    """``n`` colours from a colormap, avoiding its lightest end (legible on white).

    Examples
    --------
    >>> len(palette(3)), palette(1)[0] == palette(2)[0]
    (3, True)
    """
    cmap = matplotlib.colormaps[name]
    return [cmap(x) for x in np.linspace(0.0, 0.85, max(n, 1))][:n]


def theory_line(ax: Axes, x: np.ndarray, y: np.ndarray, color: object, label: str = "",
                data_label: str = "", **kwargs: object) -> None:
    """A theory curve (solid line); ``data_label`` names its series in the figure's data
    (:func:`figure_data_csv`) when the legend leaves it unlabelled."""
    (line,) = ax.plot(x, y, color=color, label=label or None, **kwargs)
    line.data_label = data_label


def numeric_points(ax: Axes, x: np.ndarray, mean: np.ndarray, spread: Optional[np.ndarray],
                   color: object, label: str = "", marker: str = "o",
                   filled: bool = True, data_label: str = "") -> None:
    """Numerics: markers at the mean with error bars of ``spread`` (sd or sem); ``data_label``
    as in :func:`theory_line`."""
    face = color if filled else "white"
    container = ax.errorbar(x, mean, yerr=spread, fmt=marker, color=color, markerfacecolor=face,
                            markeredgecolor=color, markeredgewidth=0.8, elinewidth=0.8,
                            label=label or None, zorder=3)
    container.data_label = data_label


def heatmap(fig: Figure, ax: Axes, values: np.ndarray, *, extent: tuple[float, float, float, float],
            label: str, vmin: Optional[float] = None, vmax: Optional[float] = None,
            cmap: str = "viridis", centred: bool = False) -> None:
    """``values[i, j]`` at (x_j, y_i) over ``extent`` (x0, x1, y0, y1), with a colorbar.

    ``centred`` uses a diverging colormap symmetric about zero (for differences).
    """
    norm = None
    if centred:
        bound = float(np.nanmax(np.abs(values))) or 1.0
        norm = mcolors.TwoSlopeNorm(vcenter=0.0, vmin=-bound, vmax=bound)
        cmap = "RdBu_r"
    image = ax.imshow(values, origin="lower", extent=extent, aspect="auto", cmap=cmap,
                      vmin=None if centred else vmin, vmax=None if centred else vmax,
                      norm=norm, interpolation="nearest")
    bar = fig.colorbar(image, ax=ax, shrink=0.9, pad=0.02)
    bar.set_label(label)


def baseline(ax: Axes, value: float, color: object, label: str = "",
             data_label: str = "") -> None:
    """A dashed horizontal line (the vanilla model's value); ``data_label`` names it in the
    figure's data when the legend leaves it unlabelled."""
    line = ax.axhline(value, color=color, linestyle="--", linewidth=1.0, label=label or None)
    line.data_label = data_label
