"""One run of the permuted-digits protocol (Sec. 7; Appendix E.2): task 1, the switch, task 2,
and the learning curves, transfer and retention they give.

The parameters are those of :func:`tasksim.solvers.pmnist.resolve_pmnist_params` (the method,
rho_a, rho_b, alpha, lam1, lam2, the data set and the protocol); all randomness comes from one
``SeedSequence`` through independent streams (readouts, permutation, network, gates, order,
adaptive), so that what a run draws for task 1 does not depend on rho_a or rho_b.

Task 1 is therefore the same at every (rho_a, rho_b) of a seed (task 1 sees the unpermuted
images and B_1, drawn before B_2), and the same for every method that learns it alike: plain
SGD (vanilla and both Fisher regularizers, which start at task 2), gated SGD at one alpha
(random and adaptive gating draw the same g_1), or Euclidean SGD at one amplitude. A process
keeps the last few trained first tasks (:func:`first_task`, least recently used first out) and a
run that finds its own there starts at the switch, with the order stream where task 1 left
it: number for number what it would have computed, in a fraction of the time (a paired grid
over rho_a, rho_b and methods trains task 1 once per seed and regime in each process). The
network after every epoch of task 1 is kept for the task-2 curve, so only networks of at most
:data:`CACHE_LIMIT_BYTES` of snapshots are cached; larger ones (MNIST's) train task 1 in the run.

Examples
--------
>>> from tasksim.solvers.pmnist import resolve_pmnist_params
>>> p = resolve_pmnist_params("random-gating", rho_a=0.5, rho_b=0.5, alpha=0.5, epochs=2,
...                           dataset="digits")
>>> run = run_two_tasks(p, np.random.SeedSequence(0))
>>> run.curves.shape, bool(run.curves[0, 0] > run.curves[2, 0])   # task 1 was learned
((5, 2), True)
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import numpy as np

from .data import draw_readouts, load_images, make_task_pair, task_data
from .network import (Gates, Network, augment, augmented_error, init_network,
                             sgd_epoch_augmented)
from .penalties import (diagonal_fisher_penalty, euclidean_penalty,
                               layerwise_fisher_penalty)

__all__ = ["GATED_METHODS", "REGULARIZED_METHODS", "CACHE_LIMIT_BYTES", "RunRecord",
           "FirstTask", "first_task", "train_first_task", "first_task_regime", "run_two_tasks"]

GATED_METHODS: tuple[str, ...] = ("random-gating", "adaptive-gating")
REGULARIZED_METHODS: tuple[str, ...] = ("euclidean", "fisher-layerwise", "fisher-diag")
CACHE_LIMIT_BYTES = 64 * 2**20
"""Largest snapshots of task 1 a cached first task may hold (the digits': 3.8 MB; a process
keeps at most 32 first tasks)."""

_STREAMS = ("readouts", "permutation", "network", "gates", "order", "adaptive")
_PROTOCOL_KEYS = ("dataset", "data_dir", "hidden", "batch", "learning_rate", "epochs", "dtype",
                  "n_train")

EpochCallback = Callable[[], None]
"""Called after every epoch of a run: progress per epoch."""


@dataclass(frozen=True)
class RunRecord:
    """One run: transfer, retention, the learning curves ``curves[t, nu]`` (test error of
    task nu + 1 after t epochs; t = 0 .. epochs + task2_epochs) and, for adaptive gating,
    the gate correlation rho_g chosen by the probe (nan otherwise)."""

    transfer: float
    retention: float
    curves: np.ndarray
    gate_correlation: float = math.nan


@dataclass(frozen=True)
class FirstTask:
    """Task 1 learned: the initial and final networks, the networks after every epoch
    (``snapshots[t - 1]`` after epoch t), task 1's test errors at t = 0 .. epochs, and the
    state of the order stream after the last epoch."""

    initial: Network
    final: Network
    snapshots: tuple[Network, ...]
    task1_errors: np.ndarray
    order_state: dict


def _streams(seed: np.random.SeedSequence) -> dict[str, np.random.Generator]:
    """Independent generators for each kind of draw, fixed by ``seed`` alone."""
    return {name: np.random.default_rng(np.random.SeedSequence(
                seed.entropy, spawn_key=tuple(seed.spawn_key) + (k,), pool_size=seed.pool_size))
            for k, name in enumerate(_STREAMS)}


def _draw_gates(rng: np.random.Generator, alpha: float, nx: int, nh: int) -> Gates:
    return Gates(rng.random(nx) < alpha, rng.random(nh) < alpha)


def _adaptive_gates(first: Gates, fresh: Gates, rho_g: float, rng: np.random.Generator
                    ) -> Gates:
    """g_2 of adaptive gating: each element of g_1 kept with probability rho_g, else the
    element of ``fresh`` (the Bernoulli(alpha) gates random gating draws for task 2). This
    is the distribution of :func:`tasksim.solvers.tasks.next_gate` (eq_def_rho_g), drawn so
    that adaptive gating at rho_g = 0 is random gating, number for number: their paired
    difference is the probe's doing alone."""
    def keep(g1: np.ndarray, g2: np.ndarray) -> np.ndarray:
        return np.where(rng.random(g1.shape) < rho_g, g1, g2)

    return Gates(keep(first.input, fresh.input), keep(first.hidden, fresh.hidden))


def first_task_regime(params: Mapping[str, Any]) -> tuple:
    """What task 1's learning depends on beyond the protocol and the seed: ``("plain",)``
    (vanilla and the Fisher regularizers), ``("gated", alpha)`` (both gatings) or
    ``("euclidean", lam1, lam2)``.

    Examples
    --------
    >>> first_task_regime({"method": "adaptive-gating", "alpha": 0.3})
    ('gated', 0.3)
    """
    method = params["method"]
    if method in GATED_METHODS:
        return ("gated", params["alpha"])
    if method == "euclidean":
        return ("euclidean", params["lam1"], params["lam2"])
    return ("plain",)


class _Task:
    """One task's data as the network sees it: inputs gated and augmented with the bias
    column once (:func:`tasksim.solvers.pmnist.network.augment`), not every epoch."""

    def __init__(self, data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                 gates: Optional[Gates]):
        self.data = data
        self.set_gates(gates)

    def set_gates(self, gates: Optional[Gates]) -> None:
        x_train, self.y_train, x_test, self.y_test = self.data
        self.gates = gates
        self.x_train = augment(x_train, gates)
        self.x_test = augment(x_test, gates)
        self.hidden_gate = None if gates is None or gates.hidden is None else \
            gates.hidden.astype(x_train.dtype)

    def test_error(self, net: Network) -> float:
        return augmented_error(net, self.x_test, self.y_test, self.hidden_gate)

    def train_error(self, net: Network) -> float:
        return augmented_error(net, self.x_train, self.y_train, self.hidden_gate)

    def train_epoch(self, net: Network, params: Mapping[str, Any], order: np.ndarray,
                    penalty: Any) -> None:
        sgd_epoch_augmented(net, self.x_train, self.y_train, batch=params["batch"],
                            learning_rate=params["learning_rate"], order=order,
                            hidden_gate=self.hidden_gate, penalty=penalty)


def _penalty(params: Mapping[str, Any], anchor: Network, previous_inputs: Optional[np.ndarray]):
    """The regularizer of a task: around ``anchor``, in the metric of the previous task's
    training inputs (None: there is no previous task)."""
    method, lam1, lam2 = params["method"], params["lam1"], params["lam2"]
    if method == "euclidean":
        return euclidean_penalty(anchor, lam1, lam2)
    if method not in REGULARIZED_METHODS or previous_inputs is None:
        return None  # Fisher: task 1 has no previous task, no metric
    build = layerwise_fisher_penalty if method == "fisher-layerwise" else diagonal_fisher_penalty
    return build(anchor, previous_inputs, lam1, lam2)


def train_first_task(params: Mapping[str, Any], seed: np.random.SeedSequence,
                     after_epoch: Optional[Callable[[Network], None]] = None) -> FirstTask:
    """Task 1 from ``seed``: ``after_epoch(net)`` sees the network after every epoch. Draws
    what :func:`run_two_tasks` draws for task 1, from the same streams, so that passing the
    result to :func:`run_two_tasks` (``learned=``) gives the numbers it would compute itself
    (the snapshots are left empty)."""
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    rng = _streams(seed)
    dtype = np.dtype(params["dtype"]).type
    images = load_images(params["dataset"], params["data_dir"])
    B1, _ = draw_readouts(rng["readouts"], 0.0)  # B_1 is the first draw, whatever rho_b
    nx, nh = images.n_pixels, params["hidden"]
    net = init_network(rng["network"], nx=nx, nh=nh, ny=B1.shape[0], dtype=dtype)
    initial = net.copy()
    gates1 = _draw_gates(rng["gates"], params["alpha"], nx, nh) \
        if params["method"] in GATED_METHODS else None
    task1 = _Task(task_data(images, B1, dtype=dtype), gates1)
    penalty = _penalty(params, initial, None)
    errors = [task1.test_error(net)]
    for _ in range(params["epochs"]):
        task1.train_epoch(net, params, rng["order"].permutation(params["n_train"]), penalty)
        errors.append(task1.test_error(net))
        if after_epoch is not None:
            after_epoch(net)
    return FirstTask(initial, net, (), np.array(errors), rng["order"].bit_generator.state)


@functools.lru_cache(maxsize=32)
def _cached_first_task(key: tuple) -> FirstTask:
    protocol, regime, entropy, spawn_key, pool_size = key
    params = dict(protocol)
    method = {"gated": "random-gating", "euclidean": "euclidean", "plain": "vanilla"}[regime[0]]
    params.update(method=method, alpha=regime[1] if regime[0] == "gated" else None,
                  lam1=regime[1] if regime[0] == "euclidean" else None,
                  lam2=regime[2] if regime[0] == "euclidean" else None)
    seed = np.random.SeedSequence(entropy, spawn_key=spawn_key, pool_size=pool_size)
    snapshots: list[Network] = []
    done = train_first_task(params, seed, lambda net: snapshots.append(net.copy()))
    return FirstTask(done.initial, done.final, tuple(snapshots), done.task1_errors,
                     done.order_state)


def _snapshot_bytes(params: Mapping[str, Any], n_pixels: int) -> int:
    size = np.dtype(params["dtype"]).itemsize
    return params["epochs"] * params["hidden"] * (n_pixels + 11) * size


def first_task(params: Mapping[str, Any], seed: np.random.SeedSequence) -> Optional[FirstTask]:
    """Task 1 of a run, with its snapshots, from this process's cache (trained on a miss);
    None when its snapshots would exceed :data:`CACHE_LIMIT_BYTES` (the run trains it then)."""
    images = load_images(params["dataset"], params["data_dir"])
    if _snapshot_bytes(params, images.n_pixels) > CACHE_LIMIT_BYTES:
        return None
    protocol = tuple((k, params[k]) for k in _PROTOCOL_KEYS)
    entropy = seed.entropy if np.isscalar(seed.entropy) else tuple(int(e) for e in seed.entropy)
    return _cached_first_task((protocol, first_task_regime(params), entropy, tuple(seed.spawn_key),
                               seed.pool_size))


def run_two_tasks(params: Mapping[str, Any], seed: np.random.SeedSequence,
                  on_epoch: Optional[EpochCallback] = None, *,
                  learned: Optional[FirstTask] = None) -> RunRecord:
    """One run of the protocol (module docstring) at ``params``, all randomness from
    ``seed``.

    ``learned``: task 1 already learned from this seed and protocol (:func:`train_first_task`,
    e.g. stored by a grid); the run starts at the switch. Without snapshots in it, task 2's
    test error during task 1 (``curves[1:epochs, 1]``) is not measured: nan."""
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    rng = _streams(seed)
    dtype = np.dtype(params["dtype"]).type
    images = load_images(params["dataset"], params["data_dir"])
    pair = make_task_pair(images, rho_a=params["rho_a"], rho_b=params["rho_b"],
                          readout_rng=rng["readouts"], permutation_rng=rng["permutation"],
                          dtype=dtype)
    nx, nh = images.n_pixels, params["hidden"]
    method = params["method"]
    gates1 = gates2 = None
    if method in GATED_METHODS:
        gates1 = _draw_gates(rng["gates"], params["alpha"], nx, nh)
        gates2 = _draw_gates(rng["gates"], params["alpha"], nx, nh)
    adaptive = method == "adaptive-gating"
    task1 = _Task((pair.x_train[0], pair.y_train[0], pair.x_test[0], pair.y_test[0]), gates1)
    task2 = _Task((pair.x_train[1], pair.y_train[1], pair.x_test[1], pair.y_test[1]),
                  gates1 if adaptive else gates2)

    first, second = params["epochs"], params["task2_epochs"]
    curves = np.empty((first + second + 1, 2))
    done = first_task(params, seed) if learned is None else learned
    if done is None:  # too large to cache: train task 1 here, the task-2 curve as it goes
        task2_errors: list[float] = []

        def after_epoch(net: Network) -> None:
            task2_errors.append(task2.test_error(net))
            if on_epoch is not None:
                on_epoch()

        done = train_first_task(params, seed, after_epoch)
        curves[1:first + 1, 1] = task2_errors
    elif not done.snapshots:
        curves[1:first, 1] = np.nan  # not measured; the switch's value is set below
        curves[first, 1] = task2.test_error(done.final)
    else:
        curves[1:first + 1, 1] = [task2.test_error(net) for net in done.snapshots]
        for _ in range(first):
            if on_epoch is not None:
                on_epoch()
    initial, net = done.initial, done.final.copy()
    rng["order"].bit_generator.state = done.order_state
    curves[:first + 1, 0] = done.task1_errors
    curves[0, 1] = task2.test_error(initial)

    gate_correlation = math.nan
    if adaptive:  # the probe trial: task 2's training data, task 1's gates
        probe, baseline = task2.train_error(net), task2.train_error(initial)
        gate_correlation = float(np.clip(1.0 - probe / baseline, 0.0, 1.0))
        gates2 = _adaptive_gates(gates1, gates2, gate_correlation, rng["adaptive"])
        task2.set_gates(gates2)
        curves[first, 1] = task2.test_error(net)
    transfer = task2.test_error(initial) - curves[first, 1]

    penalty = _penalty(params, net.copy(), pair.x_train[0])
    for epoch in range(first + 1, first + second + 1):
        task2.train_epoch(net, params, rng["order"].permutation(params["n_train"]), penalty)
        curves[epoch] = task1.test_error(net), task2.test_error(net)
        if on_epoch is not None:
            on_epoch()
    retention = curves[0, 0] - curves[first + params["retention_epochs"], 0]
    return RunRecord(float(transfer), float(retention), curves, gate_correlation)
