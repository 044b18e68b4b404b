"""Transfer and retention of any model of the paper, in three lines.

>>> from tasksim.solvers.api import simulate
>>> result = simulate("vanilla", rho_a=0.8, rho_b=0.2, seeds=10, seed=0)  # paper sizes
>>> print(f"{result.transfer.mean:.3f} +- {result.transfer.sem:.3f}")
-0.326 +- 0.001

(eq_epsilon_vanilla prints rho_a (2 rho_b - rho_a) = -0.32 at leading order in Ns/Nx.)

Models (the CLI's names): vanilla, random-gating, adaptive-gating, plasticity-gating,
soft-threshold (these four take ``alpha``), euclidean, fisher, fisher-diag (these take
``gamma`` or ``lam``, not both). The regularizer level maps to the amplitude as the paper
parameterizes each model: Euclidean (eq_main_lmu_wreg) lambda = (Nx/Ns)(1/gamma - 1);
Fisher and fisher-diag (Sec. 5.2) lambda = 1/gamma - 1.

Transfer and retention are eq_def_delta_epsilon_TF_RT, one sample per seed, reported as the
mean over seeds with its standard error (:class:`tasksim.solvers.sweep.Estimate`).

Sequences: ``tasks=K`` (default 2) learns K tasks in a row, related by ``structure``:
``"chain"`` (default; task mu + 1 drawn from task mu, correlations rho^|mu - nu|, the paper's
Appendix A) or ``"shared"`` (every pair correlated by rho through a common parent;
:mod:`tasksim.solvers.tasks`). The result then also holds the error matrix
``errors.mean[i][j - 1] = eps_j[W_i]`` (i = 0..K, j = 1..K) with its standard errors and the
field's summaries ``average_error``, ``backward_transfer``, ``forward_transfer``
(:mod:`tasksim.solvers.sequence_metrics`); ``transfer`` and ``retention`` stay those of the
first two tasks, eps_2[W_0] - eps_2[W_1] and eps_1[W_0] - eps_1[W_2]. With K = 2 and the chain
every number is what the two-task toolkit gave for the same seed. ``penalty`` (fisher only):
``"previous"`` (default, the paper's: the previous task's Fisher metric) or ``"accumulated"``
(the sum of every earlier task's metric).

``method="exact"`` solves for the exact fixed point of each task's learning (the gradient-flow
limit), with the expectation over the readouts B taken exactly given A wherever the model
allows it; ``method="gd"`` runs the paper's GD protocol (Appendix D,
subsec_linear_st_implementation). ``gram`` says how the exact method obtains the task
matrices: ``"explicit"`` draws A (Nx x Ns); ``"wishart"`` samples the Gram matrix of the
feature blocks directly (solvers/gram.py, cost independent of Nx; gaussian generator only, and
only for the models whose solution depends on A through that Gram: vanilla, random-gating,
plasticity-gating, euclidean, fisher); ``"auto"`` (default) takes the Wishart path wherever
it applies.

Defaults are the paper's sizes, Nx = 3000, Ns = 30, Ny = 10, 10 seeds, and its appendix
generator.
"""
from __future__ import annotations

import os
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from tasksim.errors import InputError

from .metrics import transfer_retention
from .sequence_metrics import (METRICS, pairwise_retention, pairwise_transfer,
                               sequence_metrics)
from .sweep import Estimate, Progress, sweep
from .resources import check_memory
from .rng import as_generator
from .tasks import check_generator, check_structure, draw_tasks
from .validation import (
    check_nonnegative,
    check_open_unit_interval,
    check_positive_int,
    check_unit_interval,
)

__all__ = [
    "MODELS",
    "GATED_MODELS",
    "REGULARIZED_MODELS",
    "WISHART_MODELS",
    "METHODS",
    "GRAM_MODES",
    "errors_on_tasks",
    "gram_route_solution",
    "PENALTY_MODELS",
    "ErrorMatrix",
    "SimulationResult",
    "resolve_params",
    "simulate",
    "simulate_samples",
]

GATED_MODELS: tuple[str, ...] = ("random-gating", "adaptive-gating", "plasticity-gating",
                                 "soft-threshold")
REGULARIZED_MODELS: tuple[str, ...] = ("euclidean", "fisher", "fisher-diag")
MODELS: tuple[str, ...] = ("vanilla",) + GATED_MODELS + REGULARIZED_MODELS
WISHART_MODELS: tuple[str, ...] = ("vanilla", "random-gating", "plasticity-gating",
                                   "euclidean", "fisher")
METHODS: tuple[str, ...] = ("exact", "gd")
GRAM_MODES: tuple[str, ...] = ("auto", "wishart", "explicit")
PENALTY_MODELS: tuple[str, ...] = ("fisher", "fisher-diag")
"""The models that take ``penalty`` (its values: tasksim.solvers.linear_models.PENALTIES;
fisher-diag has the previous task's metric only)."""


@dataclass(frozen=True)
class ErrorMatrix:
    """The error matrix over seeds, one row per weight: ``mean[i, j - 1]`` is the mean of
    eps_j[W_i] (i = 0..K, j = 1..K), ``sem`` its standard error (nan with one seed), and
    ``samples[s]`` the matrix of seed s."""

    mean: np.ndarray
    sem: np.ndarray
    samples: np.ndarray = field(repr=False)

    @classmethod
    def from_samples(cls, samples: np.ndarray) -> "ErrorMatrix":
        """From per-seed matrices of shape (seeds, K + 1, K)."""
        samples = np.asarray(samples, dtype=float)
        n = samples.shape[0]
        sem = (samples.std(axis=0, ddof=1) / np.sqrt(n) if n > 1
               else np.full(samples.shape[1:], np.nan))
        return cls(samples.mean(axis=0), sem, samples)

    def pairwise(self, which: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error over seeds of the paper's transfer (``"transfer"``) or
        retention (``"retention"``) for every pair of tasks, K x K with NaN where undefined
        (:func:`tasksim.solvers.sequence_metrics.pairwise_transfer`, ``pairwise_retention``).

        Examples
        --------
        >>> m = ErrorMatrix.from_samples(np.array([[[1.0, 1.0], [0.0, 0.6], [0.3, 0.0]]] * 2))
        >>> m.pairwise("retention")[0]          # eps_1[W_0] - eps_1[W_2]
        array([[nan, 0.7],
               [nan, nan]])
        """
        fn = {"transfer": pairwise_transfer, "retention": pairwise_retention}.get(which)
        if fn is None:
            raise InputError(f"which must be transfer or retention, got {which!r}")
        values = np.array([fn(m.T) for m in self.samples])
        n = values.shape[0]
        sem = (values.std(axis=0, ddof=1) / np.sqrt(n) if n > 1
               else np.full(values.shape[1:], np.nan))
        return values.mean(axis=0), sem


@dataclass(frozen=True)
class SimulationResult:
    """Transfer and retention (mean and standard error over seeds), the parameters, samples.

    ``samples`` has one row per seed: (transfer, retention), of the first two tasks.
    ``errors`` is the error matrix of the whole sequence (:class:`ErrorMatrix`, one row per
    weight W_0..W_K) and ``metrics`` its summaries by name
    (:data:`tasksim.solvers.sequence_metrics.METRICS`), each an Estimate over seeds.
    """

    transfer: Estimate
    retention: Estimate
    params: dict[str, Any]
    samples: np.ndarray = field(repr=False)
    errors: Optional[ErrorMatrix] = field(default=None, repr=False)
    metrics: dict[str, Estimate] = field(default_factory=dict)


def _one_of(name: str, value: object, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def resolve_params(
    model: str,
    *,
    rho_a: float,
    rho_b: float,
    alpha: Optional[float] = None,
    gamma: Optional[float] = None,
    lam: Optional[float] = None,
    nx: int = 3000,
    ns: int = 30,
    ny: int = 10,
    seeds: int = 10,
    seed: int = 0,
    generator: str = "appendix",
    method: str = "exact",
    gram: str = "auto",
    tasks: int = 2,
    structure: str = "chain",
    penalty: Optional[str] = None,
) -> dict[str, Any]:
    """Validate the parameters of :func:`simulate` and complete them (gamma <-> lambda, gram,
    penalty).

    ``gram="auto"`` takes the Wishart path wherever it applies, except for a gated model with
    more than two tasks when drawing the matrices is cheaper: the gated Gram is a sum over the
    2^K gate patterns of a row (:mod:`tasksim.solvers.gram`), O(2^K (K Ns)^3) work against
    O(Nx (K Ns)^2) for explicit matrices, so it is used when 2^K K Ns <= Nx.

    Raises ValueError naming the parameter and its allowed range.

    Examples
    --------
    >>> p = resolve_params("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5, nx=3000, ns=30)
    >>> p["lam"], p["gram"]
    (100.0, 'explicit')
    >>> resolve_params("vanilla", rho_a=0.5, rho_b=0.5, alpha=0.3)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: alpha is not a parameter of vanilla (only of random-gating, adaptive-gating, plasticity-gating, soft-threshold)
    """
    model = _one_of("model", model, MODELS)
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    ny = check_positive_int("ny", ny)
    seeds = check_positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    generator = check_generator(generator)
    method = _one_of("method", method, METHODS)
    gram = _one_of("gram", gram, GRAM_MODES)
    if isinstance(tasks, bool) or not isinstance(tasks, (int, np.integer)) or tasks < 2:
        raise InputError(f"tasks must be an integer >= 2, got {tasks!r}")
    tasks = int(tasks)
    structure = check_structure(structure)
    if model in PENALTY_MODELS:
        penalty = "previous" if penalty is None else penalty  # checked by make_model below
    elif penalty is not None:
        raise InputError(f"penalty is not a parameter of {model} (only of "
                         f"{', '.join(PENALTY_MODELS)})")

    if model in GATED_MODELS:
        if alpha is None:
            raise InputError(f"alpha is required for {model}: a number in (0, 1]")
        alpha = check_open_unit_interval("alpha", alpha)
    elif alpha is not None:
        raise InputError(f"alpha is not a parameter of {model} (only of {', '.join(GATED_MODELS)})")

    if model in REGULARIZED_MODELS:
        if gamma is not None and lam is not None:
            raise InputError("give gamma or lam, not both")
        if gamma is None and lam is None:
            raise InputError(f"{model} needs gamma, a number in (0, 1], or lam, a number in [0, inf)")
        scale = nx / ns if model == "euclidean" else 1.0
        if gamma is not None:
            gamma = check_open_unit_interval("gamma", gamma)
            lam = scale * (1.0 / gamma - 1.0)
        else:
            lam = check_nonnegative("lam", lam)
            gamma = 1.0 / (1.0 + lam / scale)
    else:
        for name, value in (("gamma", gamma), ("lam", lam)):
            if value is not None:
                raise InputError(f"{name} is not a parameter of {model} "
                                 f"(only of {', '.join(REGULARIZED_MODELS)})")

    if model != "soft-threshold":  # the linear models' own checks (e.g. a tall A where needed)
        from .linear_models import make_model

        make_model(model, nx=nx, ns=ns, **({} if alpha is None else {"alpha": alpha}),
                   **({} if lam is None else {"lam": lam}),
                   **({} if penalty is None else {"penalty": penalty}))

    wishart_possible = generator == "gaussian" and method == "exact" and model in WISHART_MODELS
    if gram == "wishart" and not wishart_possible:
        raise InputError(
            "gram='wishart' needs generator='gaussian', method='exact' and a model among "
            f"{', '.join(WISHART_MODELS)}; got generator={generator!r}, method={method!r}, "
            f"model={model!r}")
    if gram == "auto":
        gated_cost = model in GATED_MODELS and tasks > 2 and 2**tasks * tasks * ns > nx
        gram = "wishart" if wishart_possible and not gated_cost else "explicit"
    return dict(model=model, rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma, lam=lam,
                nx=nx, ns=ns, ny=ny, seeds=seeds, seed=int(seed), generator=generator,
                method=method, gram=gram, tasks=tasks, structure=structure, penalty=penalty)


def _linear_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the linear-model solvers (tasksim.solvers.linear_models)."""
    out: dict[str, Any] = {}
    if params["alpha"] is not None:
        out["alpha"] = params["alpha"]
    if params["lam"] is not None:
        out["lam"] = params["lam"]
    if params.get("penalty") is not None:
        out["penalty"] = params["penalty"]
    return out


def _gd_errors(curves: Any, tasks: Any, params: Mapping[str, Any]) -> np.ndarray:
    """The error matrix E[mu - 1, nu] = eps_mu[W_nu] of the GD weights on the drawn B.

    eps_mu[W_0] = ||B_mu||^2 / Ny; for nu >= 1 the residual B_mu - W_nu F_mu with F_mu the
    input task mu sees under the final gates (adaptive gating draws g_mu at a switch, so its
    learning curve has no eps_mu before then; the weights and gates give it afterwards).
    """
    from .linear_models import make_model
    from .span import ExplicitBlocks

    spec = make_model(params["model"], nx=tasks.nx, ns=tasks.ns, **_linear_parameters(params))
    blocks = ExplicitBlocks(tasks.A, curves.gates)
    n = tasks.n_tasks
    E = np.empty((n, n + 1))
    for mu in range(1, n + 1):
        B = tasks.B[mu - 1]
        seen = blocks.block(spec.seen(mu))
        E[mu - 1, 0] = float(np.sum(B * B)) / tasks.ny
        for nu in range(1, n + 1):
            residual = B - curves.weights[nu] @ seen
            E[mu - 1, nu] = float(np.einsum("ij,ij->", residual, residual)) / tasks.ny
    return E


def gram_route_solution(params: Mapping[str, Any], rng: np.random.Generator) -> Any:
    """The fixed points of one sample on the Gram route (``params["gram"] == "wishart"``, the
    output of :func:`resolve_params`): the blocks' Gram drawn from ``rng``, then solved. What
    :func:`simulate_samples` draws for such a sample, for a caller that reads fewer errors."""
    from .gram import sample_features
    from .linear_models import required_blocks, solve_features

    model, n = params["model"], params["tasks"]
    names = required_blocks(model, n, penalty=params["penalty"])
    features = sample_features(nx=params["nx"], ns=params["ns"], rho_a=params["rho_a"],
                               names=names, alpha=params["alpha"], rho_g=0.0, n_tasks=n,
                               structure=params["structure"], seed=rng)
    return solve_features(model, features, n_tasks=n, **_linear_parameters(params))


def _sample_errors(params: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
    """The error matrix E[mu - 1, nu] = eps_mu[W_nu] (shape (K, K + 1)) of one sample, drawn
    from ``rng`` (see :func:`simulate_samples` for what is averaged over B)."""
    n = params["tasks"]
    if params["gram"] == "wishart":
        from .metrics import error_matrix

        return error_matrix(gram_route_solution(params, rng), params["rho_b"],
                            params["structure"])

    tasks = draw_tasks(nx=params["nx"], ns=params["ns"], ny=params["ny"],
                       rho_a=params["rho_a"], rho_b=params["rho_b"], n_tasks=n,
                       generator=params["generator"], structure=params["structure"], seed=rng)
    return errors_on_tasks(params, tasks, rng)


def errors_on_tasks(params: Mapping[str, Any], tasks: Any, rng: np.random.Generator
                    ) -> np.ndarray:
    """The error matrix E[mu - 1, nu] = eps_mu[W_nu] of the model of ``params`` (the output
    of :func:`resolve_params`, explicit matrices) learned on the drawn ``tasks``, its own
    random inputs (gates, probes, GD's) drawn from ``rng``: what one sample of
    :func:`simulate_samples` computes after drawing its tasks. The errors are averaged
    exactly over the readouts B given A, except for adaptive gating and where
    ``params["score"]`` is ``"drawn"``: then they are the errors on the drawn B."""
    model = params["model"]
    if model == "soft-threshold":
        from .soft_threshold import soft_threshold_solution

        # "exact": the gradient-flow limit; "gd": the paper's protocol with exact gradients;
        # both averaged exactly over B given A
        result = soft_threshold_solution(tasks, params["alpha"], method=params["method"])
        return result.expected_errors
    if params["method"] == "gd":
        from .gd import gradient_descent

        curves = gradient_descent(model, tasks, seed=rng, **_linear_parameters(params))
        return _gd_errors(curves, tasks, params)

    from .linear_models import solve
    from .metrics import error_matrix, readout_error_matrix

    solution = solve(model, tasks, seed=rng, **_linear_parameters(params))
    if model == "adaptive-gating" or params.get("score") == "drawn":
        # adaptive gating's g_2.. depend on the drawn B through the probes: average over
        # nothing, use that B; "drawn" scores any model so (a comparison paired with it)
        return readout_error_matrix(solution)
    return error_matrix(solution, params["rho_b"], params["structure"])


def error_key(i: int, j: int) -> str:
    """The sweep output holding eps_j[W_i] (:func:`simulate_samples`).

    Examples
    --------
    >>> error_key(0, 1)
    'eps_1[W_0]'
    """
    return f"eps_{j}[W_{i}]"


def simulate_samples(params: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Transfer and retention of one sample per seed (the sweep's vectorized sample function),
    and every entry of the error matrix (outputs :func:`error_key`).

    ``params`` is the output of :func:`resolve_params`; sample j draws everything (tasks or
    their Gram, gates, readouts) from ``seeds[j]`` alone.

    Per sample: ``method="exact"`` averages the errors exactly over B given A (and the gates),
    except for adaptive gating, whose second gate depends on the drawn B through the probe
    trial: there the errors are those of the drawn B. ``method="gd"`` (the paper's protocol,
    tasksim.solvers.gd) records errors on the drawn B; for soft-threshold both methods average over
    B exactly (tasksim.solvers.soft_threshold).

    Examples
    --------
    >>> p = resolve_params("vanilla", rho_a=0.0, rho_b=0.0, nx=2000, ns=5, generator="gaussian")
    >>> out = simulate_samples(p, np.random.SeedSequence(0).spawn(3))
    >>> bool(np.all(np.abs(out["transfer"]) < 0.05)), out["retention"].shape
    (True, (3,))
    >>> out[error_key(1, 1)].shape          # eps_1[W_1] of each sample
    (3,)
    """
    matrices = [_sample_errors(params, as_generator(s)) for s in seeds]
    pairs = [transfer_retention(E) for E in matrices]  # the first pair's: [0] of each
    out = {"transfer": np.array([float(tf[0]) for tf, _ in pairs]),
           "retention": np.array([float(rt[0]) for _, rt in pairs])}
    n = params["tasks"]
    for i in range(n + 1):
        for j in range(1, n + 1):
            out[error_key(i, j)] = np.array([E[j - 1, i] for E in matrices])
    return out


def simulate(
    model: str,
    *,
    rho_a: float,
    rho_b: float,
    alpha: Optional[float] = None,
    gamma: Optional[float] = None,
    lam: Optional[float] = None,
    nx: int = 3000,
    ns: int = 30,
    ny: int = 10,
    seeds: int = 10,
    seed: int = 0,
    generator: str = "appendix",
    method: str = "exact",
    gram: str = "auto",
    tasks: int = 2,
    structure: str = "chain",
    penalty: Optional[str] = None,
    executor: Union[Executor, None, str] = None,
    workers: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> SimulationResult:
    """Transfer and retention of ``model`` at (rho_a, rho_b), over ``seeds`` samples, and the
    error matrix of the whole sequence of ``tasks`` tasks with its summaries.

    See the module docstring for the models, methods, sequences and parameters. ``executor`` (None:
    serial, the default; ``"process"``: a process pool of ``workers``; or any
    ``concurrent.futures.Executor``) and ``progress`` are passed to
    :func:`tasksim.solvers.sweep.sweep`; the numbers do not depend on them. Sample ``j`` uses the
    child seed (0, j) of ``seed``. A request for more memory than the machine has raises
    ValueError before anything is allocated (:func:`tasksim.solvers.resources.check_memory`).

    Examples
    --------
    >>> r = simulate("euclidean", rho_a=1.0, rho_b=1.0, gamma=1.0, nx=200, ns=5, seeds=2)
    >>> round(r.transfer.mean, 9), round(r.retention.mean, 9), r.params["lam"]
    (1.0, 1.0, 0.0)
    >>> r = simulate("vanilla", rho_a=0.0, rho_b=0.0, nx=10**6, ns=5, seeds=3, tasks=4,
    ...              generator="gaussian")
    >>> r.errors.mean.shape, bool(abs(r.metrics["backward_transfer"].mean) < 1e-3)
    ((5, 4), True)
    """
    params = resolve_params(model, rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma,
                            lam=lam, nx=nx, ns=ns, ny=ny, seeds=seeds, seed=seed,
                            generator=generator, method=method, gram=gram, tasks=tasks,
                            structure=structure, penalty=penalty)
    in_flight = 1 if executor is None else (workers or os.cpu_count() or 1)
    check_memory(model=params["model"], nx=params["nx"], ns=params["ns"], ny=params["ny"],
                 gram=params["gram"], method=params["method"], n_tasks=params["tasks"],
                 workers=in_flight,
                 wishart_possible=params["model"] in WISHART_MODELS and params["method"] == "exact")
    result = sweep(simulate_samples, [params], seeds=params["seeds"], seed=params["seed"],
                   executor=executor, workers=workers, vectorized=True, progress=progress,
                   chunk_size=1 if executor is None else None)  # progress after each sample
    transfer, retention = result.column("transfer")[0], result.column("retention")[0]
    n = params["tasks"]
    matrices = np.empty((params["seeds"], n + 1, n))
    for i in range(n + 1):
        for j in range(1, n + 1):
            matrices[:, i, j - 1] = result.column(error_key(i, j))[0]
    per_seed = [sequence_metrics(m.T) for m in matrices]
    metrics = {name: Estimate.from_samples([m[name] for m in per_seed]) for name in METRICS}
    return SimulationResult(Estimate.from_samples(transfer), Estimate.from_samples(retention),
                            params, np.stack([transfer, retention], axis=1),
                            ErrorMatrix.from_samples(matrices), metrics)
