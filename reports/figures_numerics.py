"""Numerics for the figures: seeded sweeps of the exact finite-N solvers, learning curves of
the paper's GD protocol, and the finite-size measurement with its power-law fit.

Everything here returns arrays; nothing is drawn or written.

Sources
-------
- Linear models (vanilla, random/adaptive/plasticity gating, Euclidean, Fisher, diagonal
  Fisher): :func:`tasksim.solvers.api.simulate_samples` (exact gradient-flow fixed points, errors
  averaged exactly over B given A; eq_def_delta_epsilon_TF_RT) on a grid of parameter points,
  through :func:`tasksim.solvers.sweep.sweep` (one ``SeedSequence`` per sample, so the numbers do not
  depend on the executor).
- Averages over the prior (Figs. 2D, 3A-C, 4D, 5C-D): :func:`prior_average_sweep`, the same
  exact fixed points with one task draw per (rho_a, rho_b) pair shared by every x value
  (alpha or gamma) of the panel: common random numbers, so that the curve's shape against x is
  not blurred by a fresh draw per x, at a tenth of the draws.
- Soft-thresholding: :mod:`tasksim.solvers.soft_threshold` (exact input moments given A), the paper's
  protocol (5,000 steps, eta = 0.01, exact expected gradients) and the gradient-flow limit, both
  from one preparation of the moments (:func:`soft_threshold_samples`).
- Fig. 1B: :func:`tasksim.solvers.gd.gradient_descent` (Appendix E.1: eta = 0.001, 100 + 100 steps).
- Finite size: the Wishart-sampled Gram (:mod:`tasksim.solvers.gram`, gaussian generator), whose cost
  does not depend on Nx, from Nx = 4 Ns to 1000 Ns.

Examples
--------
>>> est = linear_model_sweep("vanilla", [{"rho_a": 1.0, "rho_b": 1.0}], nx=60, ns=3, ny=2,
...                          seeds=2, root=0)
>>> est.mean("transfer").round(12).tolist()          # identical tasks: perfect transfer
[1.0]
"""
from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from tasksim.solvers.api import resolve_params, simulate_samples
from tasksim.solvers.rng import as_generator
from tasksim.solvers.sweep import sweep
from tasksim.solvers.tasks import draw_tasks
from tasksim.solvers.validation import check_positive_int

__all__ = [
    "PointEstimates",
    "linear_model_sweep",
    "first_task_samples",
    "shared_tasks_samples",
    "prior_average_sweep",
    "soft_threshold_samples",
    "soft_threshold_sweep",
    "learning_curves",
    "FiniteSizeSeries",
    "finite_size_sweep",
    "PowerLaw",
    "fit_power_law",
    "Deviation",
    "deviation",
]


@dataclass(frozen=True)
class PointEstimates:
    """Samples at a list of parameter points: ``samples[name]`` has shape (points, seeds)."""

    points: tuple[dict[str, Any], ...]
    samples: dict[str, np.ndarray]

    def mean(self, name: str) -> np.ndarray:
        """Mean over seeds, one value per point."""
        return self.samples[name].mean(axis=1)

    def sd(self, name: str) -> np.ndarray:
        """Standard deviation over seeds (ddof = 1; 0 with one seed), one value per point."""
        x = self.samples[name]
        return x.std(axis=1, ddof=1) if x.shape[1] > 1 else np.zeros(x.shape[0])

    def sem(self, name: str) -> np.ndarray:
        """Standard error of the mean over seeds (0 with one seed)."""
        return self.sd(name) / math.sqrt(self.samples[name].shape[1])

    @property
    def n_seeds(self) -> int:
        return next(iter(self.samples.values())).shape[1]


def linear_model_sweep(
    model: str,
    points: Sequence[Mapping[str, float]],
    *,
    nx: int,
    ns: int,
    ny: int,
    seeds: int,
    root: int | np.random.SeedSequence,
    generator: str = "appendix",
    gram: str = "auto",
    executor: Optional[Executor] = None,
    first_task: Optional[str] = None,
    sample: Optional[Callable[..., dict[str, np.ndarray]]] = None,
) -> PointEstimates:
    """Transfer and retention of a linear model at each point (rho_a, rho_b[, alpha | gamma]).

    Each point is validated by :func:`tasksim.solvers.api.resolve_params` (ValueError naming a bad
    parameter); a point may also set ``nx`` (the finite-size sweep). Sample j of point i uses
    the child seed (i, j) of ``root``. ``first_task`` (Euclidean, Fisher, diagonal Fisher) is
    how task 1 is learned (:func:`tasksim.solvers.linear_models.solve`), e.g.
    ``"independent-metric"``: regularized in the metric of an uncorrelated task (Fig. 5C, D).
    ``sample`` replaces the sample function (a top-level function of (params, seeds), as
    :func:`tasksim.solvers.api.simulate_samples`), for a caller that reads other outputs.
    """
    if not points:
        raise ValueError("points must hold at least one parameter point")
    params = []
    for point in points:
        p = dict(point)
        params.append(resolve_params(model, rho_a=p.pop("rho_a"), rho_b=p.pop("rho_b"),
                                     nx=p.pop("nx", nx), ns=ns, ny=ny, seeds=seeds,
                                     generator=generator, gram=gram, **p))
    if first_task is not None:
        params = [dict(p, first_task=first_task) for p in params]
    if sample is None:
        sample = simulate_samples if first_task is None else first_task_samples
    result = sweep(sample, params, seeds=seeds, seed=root, executor=executor,
                   vectorized=True, chunk_size=seeds)
    return PointEstimates(tuple(dict(p) for p in points),
                          {name: result.column(name) for name in result.outputs})


def first_task_samples(params: Mapping[str, Any],
                       seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Transfer and retention with task 1 learned as ``params["first_task"]`` says, one sample
    per seed (explicit task matrices, exact fixed points, errors averaged exactly over B).

    Examples
    --------
    >>> p = dict(model="fisher", rho_a=0.5, rho_b=0.5, nx=60, ns=3, ny=2, lam=1.0,
    ...          generator="appendix", first_task="independent-metric")
    >>> out = first_task_samples(p, np.random.SeedSequence(0).spawn(2))
    >>> sorted(out), out["transfer"].shape
    (['retention', 'transfer'], (2,))
    """
    from tasksim.solvers.linear_models import solve
    from tasksim.solvers.metrics import error_matrix, transfer_retention

    rows = []
    for s in seeds:
        rng = as_generator(s)
        tasks = draw_tasks(nx=params["nx"], ns=params["ns"], ny=params["ny"],
                           rho_a=params["rho_a"], rho_b=params["rho_b"], n_tasks=2,
                           generator=params["generator"], seed=rng)
        solution = solve(params["model"], tasks, seed=rng, lam=params["lam"],
                         first_task=params["first_task"])
        tf, rt = transfer_retention(error_matrix(solution, params["rho_b"]))
        rows.append((float(tf[0]), float(rt[0])))
    values = np.array(rows)
    return {"transfer": values[:, 0], "retention": values[:, 1]}


def shared_tasks_samples(params: Mapping[str, Any],
                         seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Transfer and retention at every x value of one (rho_a, rho_b) pair, on tasks drawn
    once per seed (a vectorized sample function for :func:`tasksim.solvers.sweep.sweep`).

    ``params``: ``points``, the resolved parameters of each x value
    (:func:`tasksim.solvers.api.resolve_params`, explicit matrices; they differ only in x),
    and ``first_task`` (None, or how task 1 is learned: :func:`first_task_samples`). Seed s
    spawns 1 + len(points) children: the tasks come from the first, x value k's own random
    inputs (gates, the independent metric task) from child k + 1. Outputs ``transfer k`` and
    ``retention k``, one value per seed.

    Examples
    --------
    >>> from tasksim.solvers.api import resolve_params
    >>> points = [resolve_params("random-gating", rho_a=1.0, rho_b=1.0, nx=60, ns=3, ny=2,
    ...                          alpha=a, gram="explicit") for a in (0.5, 1.0)]
    >>> out = shared_tasks_samples({"points": points, "first_task": None},
    ...                            np.random.SeedSequence(0).spawn(2))
    >>> sorted(out), out["transfer 1"].round(12).tolist()   # alpha = 1, same task: TF = 1
    (['retention 0', 'retention 1', 'transfer 0', 'transfer 1'], [1.0, 1.0])
    """
    from tasksim.solvers.api import errors_on_tasks
    from tasksim.solvers.linear_models import solve
    from tasksim.solvers.metrics import error_matrix, transfer_retention

    points, first_task = params["points"], params["first_task"]
    first = points[0]
    rows = []
    for s in seeds:
        children = s.spawn(1 + len(points))
        tasks = draw_tasks(nx=first["nx"], ns=first["ns"], ny=first["ny"],
                           rho_a=first["rho_a"], rho_b=first["rho_b"], n_tasks=2,
                           generator=first["generator"], seed=as_generator(children[0]))
        row = []
        for p, child in zip(points, children[1:]):
            rng = as_generator(child)
            if first_task is None:
                E = errors_on_tasks(p, tasks, rng)
            else:
                E = error_matrix(solve(p["model"], tasks, seed=rng, lam=p["lam"],
                                       first_task=first_task), p["rho_b"])
            tf, rt = transfer_retention(E)
            row.append((float(tf[0]), float(rt[0])))
        rows.append(row)
    values = np.array(rows)  # (seeds, x values, 2)
    out = {}
    for k in range(len(points)):
        out[f"transfer {k}"] = values[:, k, 0]
        out[f"retention {k}"] = values[:, k, 1]
    return out


def prior_average_sweep(
    model: str,
    x_name: str,
    x_values: Sequence[float],
    side: int,
    *,
    nx: int,
    ns: int,
    ny: int,
    root: int | np.random.SeedSequence,
    generator: str = "appendix",
    executor: Optional[Executor] = None,
    first_task: Optional[str] = None,
    score: str = "averaged",
) -> PointEstimates:
    """Transfer and retention at the points of an average panel
    (:func:`tasksim.reports.figures_config.grid_points`: every midpoint pair at each x,
    x-major), one sample per point; pair i's tasks drawn once, from the child seed (i, 0) of
    ``root``, and shared by every x value (:func:`shared_tasks_samples`). ``score``:
    "averaged" (errors averaged exactly over B given A; adaptive gating always uses its
    drawn B) or "drawn" (every model scored on the drawn B, to pair it with adaptive gating:
    :func:`tasksim.solvers.api.errors_on_tasks`).

    Examples
    --------
    >>> est = prior_average_sweep("euclidean", "gamma", (0.5, 1.0), 2, nx=60, ns=3, ny=2,
    ...                           root=0)
    >>> len(est.points), est.n_seeds, est.points[4]
    (8, 1, {'rho_a': 0.25, 'rho_b': 0.25, 'gamma': 1.0})
    """
    from .figures_config import grid_points, midpoint_grid

    if x_name not in ("alpha", "gamma"):
        raise ValueError(f"x_name must be 'alpha' or 'gamma', got {x_name!r}")
    x_values = [float(x) for x in x_values]
    if not x_values:
        raise ValueError("x_values must hold at least one value")
    a, b = midpoint_grid(side)
    if score not in ("averaged", "drawn"):
        raise ValueError(f"score must be 'averaged' or 'drawn', got {score!r}")
    pairs = [{"points": [{**resolve_params(model, rho_a=float(ra), rho_b=float(rb), nx=nx,
                                           ns=ns, ny=ny, seeds=1, generator=generator,
                                           gram="explicit", **{x_name: x}), "score": score}
                         for x in x_values],
              "first_task": first_task} for ra, rb in zip(a, b)]
    result = sweep(shared_tasks_samples, pairs, seeds=1, seed=root, executor=executor,
                   vectorized=True, chunk_size=1)
    samples = {which: np.concatenate([result.column(f"{which} {k}")
                                      for k in range(len(x_values))])
               for which in ("transfer", "retention")}
    return PointEstimates(tuple(grid_points(x_values, x_name, side)), samples)


def soft_threshold_samples(params: Mapping[str, Any],
                           seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Transfer and retention of the soft-thresholding model, one sample per seed
    (a vectorized sample function for :func:`tasksim.solvers.sweep.sweep`).

    ``params``: rho_a, rho_b, alpha, nx, ns, ny. Per sample: draw the tasks (appendix
    generator), prepare the exact input moments once (the O(Nx^3) part), then solve by the
    paper's protocol (``"gd"``: 5,000 steps, eta = 0.01, exact expected gradients) and by the
    gradient-flow limit (``"exact"``); errors averaged exactly over B given A.

    Examples
    --------
    >>> out = soft_threshold_samples(dict(rho_a=1.0, rho_b=1.0, alpha=1.0, nx=40, ns=2, ny=2),
    ...                              np.random.SeedSequence(0).spawn(1))
    >>> sorted(out), round(float(out["transfer_exact"][0]), 9)    # alpha = 1: vanilla, TF = 1
    (['retention_exact', 'retention_gd', 'transfer_exact', 'transfer_gd'], 1.0)
    """
    from tasksim.solvers.soft_threshold import prepare_soft_threshold, solve_soft_threshold

    out: dict[str, list[float]] = {k: [] for k in ("transfer_gd", "retention_gd",
                                                   "transfer_exact", "retention_exact")}
    for s in seeds:
        tasks = draw_tasks(nx=params["nx"], ns=params["ns"], ny=params["ny"],
                           rho_a=params["rho_a"], rho_b=params["rho_b"], n_tasks=2,
                           generator="appendix", seed=as_generator(s))
        problem = prepare_soft_threshold(tasks, params["alpha"])
        for method in ("gd", "exact"):
            tr = solve_soft_threshold(problem, method=method).transfer_retention()
            out[f"transfer_{method}"].append(tr.transfer)
            out[f"retention_{method}"].append(tr.retention)
    return {k: np.array(v) for k, v in out.items()}


def soft_threshold_sweep(
    points: Sequence[Mapping[str, float]],
    *,
    nx: int,
    ns: int,
    ny: int,
    seeds: int,
    root: int | np.random.SeedSequence,
    executor: Optional[Executor] = None,
) -> PointEstimates:
    """:func:`soft_threshold_samples` at each point (rho_a, rho_b, alpha)."""
    from tasksim.solvers.validation import check_open_unit_interval, check_unit_interval

    params = []
    for p in points:
        params.append(dict(rho_a=check_unit_interval("rho_a", p["rho_a"]),
                           rho_b=check_unit_interval("rho_b", p["rho_b"]),
                           alpha=check_open_unit_interval("alpha", p["alpha"]),
                           nx=check_positive_int("nx", nx), ns=check_positive_int("ns", ns),
                           ny=check_positive_int("ny", ny)))
    result = sweep(soft_threshold_samples, params, seeds=seeds, seed=root, executor=executor,
                   vectorized=True, chunk_size=1)
    return PointEstimates(tuple(dict(p) for p in points),
                          {name: result.column(name) for name in result.outputs})


def learning_curves(model: str, *, rho_a: float, rho_b: float, nx: int, ns: int, ny: int,
                    seeds: int, root: int | np.random.SeedSequence) -> np.ndarray:
    """Errors of the paper's GD protocol, shape (seeds, 2 epochs + 1, 2 tasks) (Fig. 1B).

    ``[k, t, nu]`` is eps_{nu+1}[W(t)] on the readouts drawn for seed k (eq_ap_epsilonW);
    task 1 occupies steps 1..epochs, task 2 the rest (:func:`tasksim.solvers.gd.gradient_descent`).

    Examples
    --------
    >>> curves = learning_curves("vanilla", rho_a=1.0, rho_b=1.0, nx=300, ns=3, ny=2, seeds=2,
    ...                          root=0)
    >>> curves.shape, bool((curves[:, -1] < 1e-3 * curves[:, 0]).all())  # both tasks learned
    ((2, 201, 2), True)
    """
    from tasksim.solvers.gd import gradient_descent

    seeds = check_positive_int("seeds", seeds)
    root = root if isinstance(root, np.random.SeedSequence) else np.random.SeedSequence(root)
    curves = []
    for child in root.spawn(seeds):
        rng = as_generator(child)
        tasks = draw_tasks(nx=nx, ns=ns, ny=ny, rho_a=rho_a, rho_b=rho_b, n_tasks=2, seed=rng)
        curves.append(gradient_descent(model, tasks, seed=rng).errors)
    return np.stack(curves)


@dataclass(frozen=True)
class FiniteSizeSeries:
    """Means and standard errors of transfer and retention against Nx at fixed Ns."""

    ns: int
    nx: np.ndarray
    estimates: PointEstimates

    @property
    def ratio(self) -> np.ndarray:
        """Ns / Nx, the small parameter."""
        return self.ns / self.nx


def finite_size_sweep(model: str, *, rho_a: float, rho_b: float, ns: int, ny: int,
                      ratios: Sequence[float], seeds: int, root: int | np.random.SeedSequence,
                      executor: Optional[Executor] = None, **parameters: float
                      ) -> FiniteSizeSeries:
    """Exact finite-N transfer and retention at Nx = round(r Ns) for each ratio r, through
    the Wishart-sampled Gram (gaussian generator; cost independent of Nx; the errors are
    exact expectations over B, so Ny does not enter).

    Examples
    --------
    >>> s = finite_size_sweep("vanilla", rho_a=0.8, rho_b=0.5, ns=3, ny=2, ratios=(10, 1000),
    ...                       seeds=50, root=0)
    >>> s.nx.tolist(), bool(abs(s.estimates.mean("transfer")[1] - 0.16) < 2e-3)
    ([30.0, 3000.0], True)
    """
    ns = check_positive_int("ns", ns)
    nx = np.array(sorted({int(round(r * ns)) for r in ratios}))
    points = [dict(rho_a=rho_a, rho_b=rho_b, nx=int(n), **parameters) for n in nx]
    est = linear_model_sweep(model, points, nx=int(nx[0]), ns=ns, ny=ny, seeds=seeds, root=root,
                             generator="gaussian", gram="wishart", executor=executor)
    return FiniteSizeSeries(ns, nx.astype(float), est)


@dataclass(frozen=True)
class PowerLaw:
    """|deviation| ~ c (Ns/Nx)^slope, fitted on ``used`` of the points."""

    slope: float
    slope_se: float
    prefactor: float
    used: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.prefactor * np.asarray(x, dtype=float) ** self.slope


def fit_power_law(x: np.ndarray, deviation: np.ndarray, sem: np.ndarray,
                  min_z: float = 3.0) -> Optional[PowerLaw]:
    """Least-squares fit of log|deviation| against log x on the points where |deviation|
    exceeds ``min_z`` standard errors (a deviation lost in the noise says nothing about its
    exponent). None when fewer than three points qualify.

    Examples
    --------
    >>> x = np.array([0.1, 0.01, 0.001])
    >>> law = fit_power_law(x, 2 * x, np.zeros(3))
    >>> round(law.slope, 6), round(law.prefactor, 6)
    (1.0, 2.0)
    """
    x, d, s = (np.asarray(v, dtype=float) for v in (x, deviation, sem))
    used = (np.abs(d) > min_z * s) & (np.abs(d) > 0)
    if used.sum() < 3:
        return None
    lx, ly = np.log(x[used]), np.log(np.abs(d[used]))
    design = np.stack([lx, np.ones_like(lx)], axis=1)
    coef, *_ = np.linalg.lstsq(design, ly, rcond=None)
    residual = ly - design @ coef
    dof = max(1, len(lx) - 2)
    cov = (residual @ residual / dof) * np.linalg.inv(design.T @ design)
    return PowerLaw(float(coef[0]), float(math.sqrt(max(cov[0, 0], 0.0))),
                    float(math.exp(coef[1])), used)


ROUNDING = 1e-12
"""Differences up to this size are rounding, not deviations (values are O(1))."""


@dataclass(frozen=True)
class Deviation:
    """Numerics minus theory over a panel: the largest |difference|, at which point, the
    difference there in standard errors (``z_there``), the largest |difference| in standard
    errors anywhere (``max_z``; both nan without standard errors) and the RMS difference.
    Differences at rounding level (|d| <= ``ROUNDING``) count as zero standard errors."""

    max_abs: float
    where: int
    z_there: float
    max_z: float
    rms: float


def deviation(numeric: np.ndarray, theory: np.ndarray,
              sem: Optional[np.ndarray] = None) -> Deviation:
    """Summarise numeric - theory (arrays of one shape; NaN entries are ignored).

    Examples
    --------
    >>> d = deviation(np.array([1.0, 2.5, 3.1]), np.array([1.0, 2.0, 3.0]),
    ...               np.array([0.1, 0.25, 0.01]))
    >>> d.max_abs, d.where, d.z_there, round(d.max_z, 6)
    (0.5, 1, 2.0, 10.0)
    """
    diff = np.asarray(numeric, dtype=float).ravel() - np.asarray(theory, dtype=float).ravel()
    ok = np.isfinite(diff)
    if not ok.any():
        raise ValueError("no finite difference to summarise")
    absolute = np.where(ok, np.abs(diff), -np.inf)
    where = int(np.argmax(absolute))
    z_there = max_z = math.nan
    if sem is not None:
        s = np.asarray(sem, dtype=float).ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(ok & (s > 0), np.abs(diff) / s, np.nan)
            z = np.where(np.abs(diff) <= ROUNDING, 0.0, z)
        if np.isfinite(z).any():
            max_z = float(np.nanmax(z))
        z_there = float(z[where])
    return Deviation(float(absolute[where]), where, z_there, max_z,
                     float(np.sqrt(np.mean(diff[ok] ** 2))))
