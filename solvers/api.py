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

from .sweep import Estimate, Progress, sweep
from .resources import check_memory
from .rng import as_generator
from .tasks import check_generator, draw_tasks
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


@dataclass(frozen=True)
class SimulationResult:
    """Transfer and retention (mean and standard error over seeds), the parameters, samples.

    ``samples`` has one row per seed: (transfer, retention).
    """

    transfer: Estimate
    retention: Estimate
    params: dict[str, Any]
    samples: np.ndarray = field(repr=False)


def _one_of(name: str, value: object, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
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
) -> dict[str, Any]:
    """Validate the parameters of :func:`simulate` and complete them (gamma <-> lambda, gram).

    Raises ValueError naming the parameter and its allowed range.

    Examples
    --------
    >>> p = resolve_params("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.5, nx=3000, ns=30)
    >>> p["lam"], p["gram"]
    (100.0, 'explicit')
    >>> resolve_params("vanilla", rho_a=0.5, rho_b=0.5, alpha=0.3)
    Traceback (most recent call last):
    ...
    ValueError: alpha is not a parameter of vanilla (only of random-gating, adaptive-gating, plasticity-gating, soft-threshold)
    """
    model = _one_of("model", model, MODELS)
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    ny = check_positive_int("ny", ny)
    seeds = check_positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    generator = check_generator(generator)
    method = _one_of("method", method, METHODS)
    gram = _one_of("gram", gram, GRAM_MODES)

    if model in GATED_MODELS:
        if alpha is None:
            raise ValueError(f"alpha is required for {model}: a number in (0, 1]")
        alpha = check_open_unit_interval("alpha", alpha)
    elif alpha is not None:
        raise ValueError(f"alpha is not a parameter of {model} (only of {', '.join(GATED_MODELS)})")

    if model in REGULARIZED_MODELS:
        if gamma is not None and lam is not None:
            raise ValueError("give gamma or lam, not both")
        if gamma is None and lam is None:
            raise ValueError(f"{model} needs gamma, a number in (0, 1], or lam, a number in [0, inf)")
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
                raise ValueError(f"{name} is not a parameter of {model} "
                                 f"(only of {', '.join(REGULARIZED_MODELS)})")

    if model != "soft-threshold":  # the linear models' own checks (e.g. a tall A where needed)
        from .linear_models import make_model

        make_model(model, nx=nx, ns=ns, **({} if alpha is None else {"alpha": alpha}),
                   **({} if lam is None else {"lam": lam}))

    wishart_possible = generator == "gaussian" and method == "exact" and model in WISHART_MODELS
    if gram == "wishart" and not wishart_possible:
        raise ValueError(
            "gram='wishart' needs generator='gaussian', method='exact' and a model among "
            f"{', '.join(WISHART_MODELS)}; got generator={generator!r}, method={method!r}, "
            f"model={model!r}")
    if gram == "auto":
        gram = "wishart" if wishart_possible else "explicit"
    return dict(model=model, rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma, lam=lam,
                nx=nx, ns=ns, ny=ny, seeds=seeds, seed=int(seed), generator=generator,
                method=method, gram=gram)


def _linear_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the linear-model solvers (tasksim.solvers.linear_models)."""
    out: dict[str, Any] = {}
    if params["alpha"] is not None:
        out["alpha"] = params["alpha"]
    if params["lam"] is not None:
        out["lam"] = params["lam"]
    return out


def _gd_transfer_retention(curves: Any, tasks: Any, params: Mapping[str, Any]) -> tuple[float, float]:
    """Transfer and retention from the GD learning curves (errors on the drawn B).

    ``curves.errors[t, nu - 1]`` is eps_nu[W(t)]; eps_mu[W_0] = ||B_mu||^2 / Ny. Adaptive
    gating draws g_2 at the switch, so the curve has no eps_2 at the end of task 1: then
    eps_2[W_1] is computed from W_1 and the input task 2 sees (D_2 A_2).
    """
    from .linear_models import make_model
    from .span import ExplicitBlocks

    E, T = curves.errors, curves.epochs
    baseline = [float(np.sum(B * B)) / tasks.ny for B in tasks.B]
    eps2_w1, eps1_w2 = float(E[T, 1]), float(E[2 * T, 0])
    if not np.isfinite(eps2_w1):
        spec = make_model(params["model"], nx=tasks.nx, ns=tasks.ns,
                          **_linear_parameters(params))
        seen = ExplicitBlocks(tasks.A, curves.gates).block(spec.seen(2))
        residual = tasks.B[1] - curves.weights[1] @ seen
        eps2_w1 = float(np.sum(residual * residual)) / tasks.ny
    return baseline[1] - eps2_w1, baseline[0] - eps1_w2


def _one_sample(params: Mapping[str, Any], rng: np.random.Generator) -> tuple[float, float]:
    """(transfer, retention) of one sample (eq_def_delta_epsilon_TF_RT), drawn from ``rng``."""
    model = params["model"]
    if params["gram"] == "wishart":
        from .gram import sample_features
        from .linear_models import required_blocks, solve_features
        from .metrics import error_matrix, transfer_retention

        features = sample_features(nx=params["nx"], ns=params["ns"], rho_a=params["rho_a"],
                                   names=required_blocks(model, 2), alpha=params["alpha"],
                                   rho_g=0.0, n_tasks=2, seed=rng)
        solution = solve_features(model, features, n_tasks=2, **_linear_parameters(params))
        tf, rt = transfer_retention(error_matrix(solution, params["rho_b"]))
        return float(tf[0]), float(rt[0])

    tasks = draw_tasks(nx=params["nx"], ns=params["ns"], ny=params["ny"],
                       rho_a=params["rho_a"], rho_b=params["rho_b"], n_tasks=2,
                       generator=params["generator"], seed=rng)
    if model == "soft-threshold":
        from .soft_threshold import transfer_retention as soft_transfer_retention

        # "exact": the gradient-flow limit; "gd": the paper's protocol with exact gradients;
        # both averaged exactly over B given A
        tr = soft_transfer_retention(tasks, params["alpha"], method=params["method"])
        return tr.transfer, tr.retention
    if params["method"] == "gd":
        from .gd import gradient_descent

        curves = gradient_descent(model, tasks, seed=rng, **_linear_parameters(params))
        return _gd_transfer_retention(curves, tasks, params)

    from .linear_models import solve
    from .metrics import error_matrix, readout_error_matrix, transfer_retention

    solution = solve(model, tasks, seed=rng, **_linear_parameters(params))
    if model == "adaptive-gating":
        # g_2 depends on the drawn B through the probe: average over nothing, use that B
        errors = readout_error_matrix(solution)
    else:
        errors = error_matrix(solution, params["rho_b"])
    tf, rt = transfer_retention(errors)
    return float(tf[0]), float(rt[0])


def simulate_samples(params: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Transfer and retention of one sample per seed (the sweep's vectorized sample function).

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
    """
    pairs = [_one_sample(params, as_generator(s)) for s in seeds]
    return {"transfer": np.array([p[0] for p in pairs]),
            "retention": np.array([p[1] for p in pairs])}


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
    executor: Union[Executor, None, str] = None,
    workers: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> SimulationResult:
    """Transfer and retention of ``model`` at (rho_a, rho_b), over ``seeds`` samples.

    See the module docstring for the models, methods and parameters. ``executor`` (None:
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
    """
    params = resolve_params(model, rho_a=rho_a, rho_b=rho_b, alpha=alpha, gamma=gamma,
                            lam=lam, nx=nx, ns=ns, ny=ny, seeds=seeds, seed=seed,
                            generator=generator, method=method, gram=gram)
    in_flight = 1 if executor is None else (workers or os.cpu_count() or 1)
    check_memory(model=params["model"], nx=params["nx"], ns=params["ns"], ny=params["ny"],
                 gram=params["gram"], method=params["method"], workers=in_flight,
                 wishart_possible=params["model"] in WISHART_MODELS and params["method"] == "exact")
    result = sweep(simulate_samples, [params], seeds=params["seeds"], seed=params["seed"],
                   executor=executor, workers=workers, vectorized=True, progress=progress,
                   chunk_size=1 if executor is None else None)  # progress after each sample
    transfer, retention = result.column("transfer")[0], result.column("retention")[0]
    return SimulationResult(Estimate.from_samples(transfer), Estimate.from_samples(retention),
                            params, np.stack([transfer, retention], axis=1))
