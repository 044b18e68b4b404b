"""Sizes, seeds and grids of the report's figures (paper mode and quick mode).

The paper's numerics (Appendix E.1, subsec_linear_st_implementation) use Nx = 3000, Ns = 30,
Ny = 10, 10 seeds per point and, for the averages over the uniform prior on
0 <= rho_a, rho_b <= 1, 100 (rho_a, rho_b) pairs. :meth:`FigureConfig.paper` keeps those sizes
(the averages use a 10 x 10 midpoint grid: 100 pairs, one seed each, a quadrature instead of
random pairs); :meth:`FigureConfig.quick` shrinks everything for previews and tests.

Every panel draws its randomness from :func:`panel_seed`, a ``SeedSequence`` fixed by the
build's root seed and the panel's name alone, so adding a panel never changes another one.

Examples
--------
>>> c = FigureConfig.paper()
>>> c.nx, c.ns, c.ny, c.seeds
(3000, 30, 10, 10)
>>> panel_seed(0, "fig1.C").entropy == panel_seed(0, "fig2.A").entropy
False
>>> panel_seed(0, "fig1.C").generate_state(1) == panel_seed(0, "fig1.C").generate_state(1)
array([ True])
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from tasksim.solvers.validation import check_positive_int

__all__ = ["FigureConfig", "panel_seed", "midpoint_grid", "grid_points"]


@dataclass(frozen=True)
class FigureConfig:
    """Everything that sets the cost and the look of a figure build.

    Sizes of the linear models (``nx``, ``ns``, ``ny``), seeds per point (``seeds``; the
    numeric heatmaps use ``heatmap_seeds``), the similarity values of line panels
    (``line_points``), the side of the numeric heatmaps (``heatmap_side``) and of the
    midpoint grid of the averages (``average_side``), the gating levels and regularizer
    coefficients on the x axes (``alphas``, ``gammas``), the soft-threshold sizes (their cost
    is O(Nx^3)), the finite-size sweep (``finite_ns``, Nx/Ns ratios, seeds), the GD protocol
    sizes of Fig. 1B, the resolution of theory curves, the output dpi, and the seeds per cell
    of the next-to-leading-order table (``table_seeds``). ``workers`` is the
    number of processes of the numerics (None: serial, in the calling process).
    """

    mode: str
    nx: int
    ns: int
    ny: int
    seeds: int
    line_points: int
    heatmap_side: int
    heatmap_seeds: int
    average_side: int
    alphas: tuple[float, ...]
    gammas: tuple[float, ...]
    soft_nx: int
    soft_ns: int
    soft_side: int
    soft_alphas: tuple[float, ...]
    finite_ns: int
    finite_ratios: tuple[float, ...]
    finite_seeds: int
    gd_seeds: int
    theory_points: int
    dpi: int
    workers: int | None
    table_seeds: int = 2000

    @classmethod
    def paper(cls) -> "FigureConfig":
        """The paper's sizes (Appendix E.1); soft-thresholding at the paper's Ns = 30 with
        Nx = 1500 (the paper's Nx = 3000 costs O(Nx^3), about 9 s, per task and seed)."""
        return cls(
            mode="paper", nx=3000, ns=30, ny=10, seeds=10, line_points=11, heatmap_side=11,
            heatmap_seeds=5, average_side=10,
            alphas=tuple(np.round(np.linspace(0.1, 1.0, 10), 2)),
            gammas=tuple(np.round(np.linspace(0.1, 1.0, 10), 2)),
            soft_nx=1500, soft_ns=30, soft_side=4, soft_alphas=(0.1, 0.3, 0.5, 0.7, 1.0),
            finite_ns=30, finite_ratios=tuple(np.round(np.geomspace(4, 1000, 9), 3)),
            finite_seeds=2000, gd_seeds=10, theory_points=201, dpi=110, workers=2,
            table_seeds=2000,
        )

    @classmethod
    def quick(cls) -> "FigureConfig":
        """Small sizes and few seeds: a preview that runs in seconds."""
        return cls(
            mode="quick", nx=240, ns=4, ny=4, seeds=3, line_points=5, heatmap_side=4,
            heatmap_seeds=2, average_side=3, alphas=(0.25, 0.5, 1.0), gammas=(0.25, 0.5, 1.0),
            soft_nx=100, soft_ns=2, soft_side=2, soft_alphas=(0.3, 1.0),
            finite_ns=4, finite_ratios=(4.0, 10.0, 30.0, 100.0, 1000.0), finite_seeds=60,
            gd_seeds=3, theory_points=101, dpi=60, workers=None, table_seeds=40,
        )

    @classmethod
    def for_mode(cls, quick: bool) -> "FigureConfig":
        """:meth:`quick` if ``quick`` else :meth:`paper`."""
        return cls.quick() if quick else cls.paper()

    def sizes(self) -> str:
        """The linear models' sizes as a phrase for captions."""
        return f"Nx = {self.nx}, Ns = {self.ns}, Ny = {self.ny}"


def panel_seed(seed: int, name: str) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of panel ``name`` in a build with root seed ``seed``.

    Keyed by the CRC-32 of the name (stable across runs and machines, unlike ``hash``).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence([int(seed), zlib.crc32(name.encode("utf-8"))])


def midpoint_grid(side: int) -> tuple[np.ndarray, np.ndarray]:
    """(rho_a, rho_b) at the centres of a side x side grid of [0, 1]^2, flattened.

    Their mean of f is the midpoint rule for the average of f over the uniform prior
    (error O(1/side^2) for smooth f).

    Examples
    --------
    >>> a, b = midpoint_grid(2)
    >>> a.tolist(), b.tolist()
    ([0.25, 0.25, 0.75, 0.75], [0.25, 0.75, 0.25, 0.75])
    """
    side = check_positive_int("side", side)
    centres = (np.arange(side) + 0.5) / side
    a, b = np.meshgrid(centres, centres, indexing="ij")
    return a.ravel(), b.ravel()


def grid_points(x_values, x_name: str, side: int) -> list[dict[str, float]]:
    """The sweep points of an average panel: every midpoint pair at each x, x-major."""
    a, b = midpoint_grid(side)
    return [{"rho_a": float(ra), "rho_b": float(rb), x_name: float(x)}
            for x in x_values for ra, rb in zip(a, b)]
