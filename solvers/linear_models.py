"""Exact finite-N solutions of every linear model of the paper, for any number of tasks.

Models (the CLI's names): ``vanilla``, ``random-gating``, ``adaptive-gating``,
``plasticity-gating``, ``euclidean``, ``fisher``, ``fisher-diag``. Each is a small subclass of
:class:`LinearModel` that states which input the network sees on task mu (:meth:`seen`) and how
each task is learned (:meth:`steps`, a list of :class:`tasksim.solvers.fixed_points.Step`); the shared
machinery turns that into the gradient-flow fixed points W_1 .. W_n (W_0 = 0), all linear in
the readouts: ``W_mu = Y C_mu X^T`` with ``Y = [B_1 .. B_n]``, ``X`` the blocks of the
solution's :class:`tasksim.solvers.span.Span` (``tasksim.solvers.fixed_points``). No Nx x Nx matrix is formed;
an Ny x Nx weight only when :func:`weights` is called.

Public API
----------
``solve(model, tasks, *, alpha=None, gamma=None, lam=None, gates=None, seed=None,
first_task=None, probe=None) -> Solution``
    from explicit task matrices (a :class:`tasksim.solvers.tasks.TaskSequence`); gates are drawn from
    ``seed`` unless given.
``solve_features(model, features, *, n_tasks, alpha=None, gamma=None, lam=None,
first_task=None, metric_block=None, probe=None) -> Solution``
    from the Gram matrix of named blocks alone (:class:`tasksim.solvers.features.Features`, e.g.
    sampled by ``tasksim.solvers.gram`` at a cost independent of Nx); :func:`required_blocks` lists
    the blocks a model needs. ``fisher-diag`` needs explicit matrices and raises
    NotImplementedError here; ``adaptive-gating`` takes the gates inside the Gram as given.
``weights(solution, readouts=None) -> tuple of W_0 .. W_n`` (Ny x Nx each).
Errors, transfer and retention: ``tasksim.solvers.metrics``; the paper's GD protocol: ``tasksim.solvers.gd``.

Parameters
----------
``alpha`` (gating models)
    fraction of open gates, in (0, 1]. Gates are Bernoulli(alpha), independent across tasks
    (rho_g = 0) for random activity gating and for plasticity gating.
``gamma`` or ``lam`` (regularized models, one of the two)
    euclidean: lam = (Nx / Ns)(1 / gamma - 1) (eq_main_lmu_wreg); fisher and fisher-diag:
    lam = 1 / gamma - 1 (Section "Weight regularization in Fisher information metric").
``penalty`` (fisher)
    ``"previous"`` (default, the paper's): the penalty of task mu is the Fisher metric of task
    mu - 1 alone; ``"accumulated"``: the sum of the metrics of tasks 1 .. mu - 1, as online
    consolidation methods accumulate them (lam/2 sum_nu ||(W - W_{mu-1}) A_nu||^2). The first
    task is regularized as ``first_task`` says in both (A_0 does not enter later penalties).
    ``fisher-diag`` takes the previous task's metric only.
``first_task``
    euclidean: ``"regularized"`` (default; toward W_0 = 0, as the appendix's W_1) or
    ``"unregularized"``. fisher and fisher-diag: ``"unregularized"`` (default, the paper's
    main assumption), ``"independent-metric"`` (regularized toward W_0 = 0 in the metric of an
    independent task A_0, "imposed by an uncorrelated task"; A_0 is drawn from ``seed``) or
    ``"own-metric"`` (toward W_0 = 0 in the metric of A_1 itself, the appendix's rho_a = 1
    case W_1 = B_1 A^+ / (1 + lam)).
``probe`` (adaptive gating)
    ``"sampled"`` (default): at each switch mu -> mu + 1 the probe error
    eps_pb = (1/Ny) ||B_{mu+1} - W_mu D_mu A_{mu+1}||^2 on the sampled readouts, eps_o =
    (1/Ny) ||B_{mu+1}||^2, rho_g = max{0, 1 - eps_pb / eps_o}, then
    g_{mu+1} = next_gate(g_mu, alpha, rho_g) (Appendix B.1). Because rho_g depends on the
    sampled B, this model samples B. ``"expected"``: eps_pb and eps_o replaced by their exact
    expectations over B given A and the gates (eps_o -> 1).

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> from tasksim.solvers.metrics import error_matrix, transfer_retention
>>> t = draw_tasks(nx=400, ns=4, ny=3, rho_a=1.0, rho_b=1.0, seed=0)
>>> s = solve("vanilla", t)
>>> E = error_matrix(s, rho_b=1.0)     # E[mu - 1, nu] = eps_mu[W_nu]
>>> E.shape, bool(abs(E[0, 2]) < 1e-12)  # identical tasks: nothing is forgotten
((2, 3), True)
"""
from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Optional, Sequence

import numpy as np

from .features import Features
from .fixed_points import Step, solve_step_updates, solve_steps
from .metrics import probe_error
from .rng import Seed, as_generator
from .solution import Solution, weights
from .span import ExplicitBlocks, Span
from .tasks import TaskSequence, draw_gates, next_gate
from .validation import (
    check_nonnegative,
    check_open_unit_interval,
    check_positive_int,
    check_tall,
)

__all__ = [
    "MODELS",
    "PENALTIES",
    "PROBES",
    "LinearModel",
    "Solution",
    "check_tasks",
    "draw_inputs",
    "make_model",
    "required_blocks",
    "solve",
    "solve_features",
    "weights",
]

PROBES: tuple[str, ...] = ("sampled", "expected")
PENALTIES: tuple[str, ...] = ("previous", "accumulated")


class LinearModel:
    """One linear model with its parameters resolved (the protocol every model implements).

    Subclasses set the class attributes and implement :meth:`seen` and :meth:`steps`.
    """

    name: ClassVar[str]
    accepts: ClassVar[tuple[str, ...]] = ()
    first_tasks: ClassVar[tuple[str, ...]] = ()
    penalties: ClassVar[tuple[str, ...]] = ()
    gated: ClassVar[bool] = False
    gram_solvable: ClassVar[bool] = True
    needs_tall: ClassVar[bool] = False
    paper_epochs: ClassVar[int] = 500
    """N_epoch of the paper's GD protocol (Appendix D): 100 for vanilla and activity gating."""

    def __init__(self, *, nx: int, ns: int, alpha: Optional[float] = None,
                 lam: Optional[float] = None, gamma: Optional[float] = None,
                 first_task: Optional[str] = None, probe: Optional[str] = None,
                 penalty: Optional[str] = None) -> None:
        given = {"alpha": alpha, "gamma": gamma, "lam": lam, "first_task": first_task,
                 "probe": probe, "penalty": penalty}
        for key, value in given.items():
            if value is not None and key not in self.accepts:
                raise ValueError(f"{key} is not a parameter of model {self.name}")
        self.nx, self.ns = nx, ns
        self.alpha = None if alpha is None else check_open_unit_interval("alpha", alpha)
        self.gamma = None if gamma is None else check_open_unit_interval("gamma", gamma)
        if lam is not None:
            lam = check_nonnegative("lam", lam)
        if "lam" in self.accepts:
            if (gamma is None) == (lam is None):
                raise ValueError(f"model {self.name} needs exactly one of gamma, lam")
            self.lam = self.lam_from_gamma(self.gamma) if lam is None else lam
        else:
            self.lam = 0.0
        if self.first_tasks:
            first_task = self.first_tasks[0] if first_task is None else first_task
            if first_task not in self.first_tasks:
                raise ValueError(f"first_task must be one of {', '.join(self.first_tasks)} "
                                 f"for model {self.name}, got {first_task!r}")
        self.first_task = first_task
        if "probe" in self.accepts:
            probe = PROBES[0] if probe is None else probe
            if probe not in PROBES:
                raise ValueError(f"probe must be one of {', '.join(PROBES)}, got {probe!r}")
        self.probe = probe
        if self.penalties:
            penalty = self.penalties[0] if penalty is None else penalty
            if penalty not in self.penalties:
                raise ValueError(f"penalty must be one of {', '.join(self.penalties)} for model "
                                 f"{self.name}, got {penalty!r}")
        self.penalty = penalty
        if self.needs_tall:
            check_tall(nx, ns, why=f"the task matrices of model {self.name}")

    def lam_from_gamma(self, gamma: float) -> float:
        raise NotImplementedError  # pragma: no cover - only regularized models accept gamma

    @property
    def parameters(self) -> dict[str, object]:
        """The resolved parameters (for the record)."""
        out: dict[str, object] = {}
        for key in ("alpha", "gamma", "lam", "first_task", "probe", "penalty"):
            if key in self.accepts:
                out[key] = getattr(self, key)
        return out

    def seen(self, mu: int) -> str:
        """The block the network's input on task ``mu`` is (``"A2"`` or ``"D2A2"``)."""
        return f"A{mu}"

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        """How each task 1 .. n_tasks is learned."""
        raise NotImplementedError  # pragma: no cover

    def blocks(self, n_tasks: int) -> tuple[str, ...]:
        """Every block the solution lives in or is evaluated on, in a fixed order."""
        names: list[str] = []
        for step in self.steps(n_tasks):
            names.extend(step.blocks())
        names.extend(self.seen(mu) for mu in range(1, n_tasks + 1))
        return tuple(dict.fromkeys(names))


class Vanilla(LinearModel):
    """y = W x, gradient flow to eq_gd_fp_vanilla: W_mu = W_{mu-1}(I - U U^T) + B_mu A_mu^+."""

    name = "vanilla"
    paper_epochs = 100

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        return tuple(Step(mu, "least-squares", f"A{mu}") for mu in range(1, n_tasks + 1))


class ActivityGating(LinearModel):
    """y = W (g_mu * x): eq_W_fp_gated_gd, W_mu = W_{mu-1}(I - U U^T) + B_mu (D_mu A_mu)^+.

    D A may be rank deficient (alpha Nx < Ns): the pseudo-inverse drops singular values below
    sqrt(EIG_RTOL) times the largest (``tasksim.solvers.fixed_points``).
    """

    accepts = ("alpha",)
    gated = True
    paper_epochs = 100

    def seen(self, mu: int) -> str:
        return f"D{mu}A{mu}"

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        return tuple(Step(mu, "least-squares", f"D{mu}A{mu}") for mu in range(1, n_tasks + 1))


class RandomGating(ActivityGating):
    """Random activity gating: g_mu ~ Bernoulli(alpha), independent across tasks (rho_g = 0)."""

    name = "random-gating"


class AdaptiveGating(ActivityGating):
    """Adaptive activity gating (Appendix B.1): rho_g set by a probe trial at every switch.

    Drawing g_{mu+1} samples the readouts B (the gate depends on them) and needs explicit
    matrices (:func:`solve`). Once the gates are fixed, the fixed points are those of activity
    gating, so :func:`solve_features` accepts a Gram whose gates were drawn by the probe rule
    (the caller's responsibility: ``tasksim.solvers.gram`` samples fixed-rho_g gates only); the probe
    blocks ``D<mu>A<mu+1>`` let ``tasksim.solvers.metrics.probe_error`` evaluate the probes.
    """

    name = "adaptive-gating"
    accepts = ("alpha", "probe")

    def blocks(self, n_tasks: int) -> tuple[str, ...]:
        probes = tuple(f"D{mu}A{mu + 1}" for mu in range(1, n_tasks))
        return super().blocks(n_tasks) + probes


class PlasticityGating(LinearModel):
    """Plasticity gating (Appendix "Plasticity gating"): y = W x, dW/dt = -(W A - B)(D A)^T.

    Fixed point W_mu = W_{mu-1} + (B_mu V Lambda^{-1} - W_{mu-1} U)(U^T D U)^{-1} U^T D;
    needs at least Ns plastic inputs (A^T D A invertible).
    """

    name = "plasticity-gating"
    accepts = ("alpha",)
    gated = True
    needs_tall = True

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        return tuple(Step(mu, "plasticity-gated", f"A{mu}", plastic=f"D{mu}A{mu}")
                     for mu in range(1, n_tasks + 1))


class Euclidean(LinearModel):
    """Euclidean weight regularization (eq_main_lmu_wreg, Appendix C.1).

    Loss 1/2 ||B_mu - W A_mu||^2 + lam/2 ||W - W_{mu-1}||^2, lam = (Nx/Ns)(1/gamma - 1).
    """

    name = "euclidean"
    accepts = ("gamma", "lam", "first_task")
    first_tasks = ("regularized", "unregularized")

    def lam_from_gamma(self, gamma: float) -> float:
        return (self.nx / self.ns) * (1.0 / gamma - 1.0)

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        first = (Step(1, "least-squares", "A1") if self.first_task == "unregularized"
                 else Step(1, "euclidean", "A1", lam=self.lam))
        return (first,) + tuple(Step(mu, "euclidean", f"A{mu}", lam=self.lam)
                                for mu in range(2, n_tasks + 1))


class Fisher(LinearModel):
    """Weight regularization in the Fisher metric of the previous task (eq_ap_defQ_wr_fim).

    Loss 1/2 ||B_mu - W A_mu||^2 + lam/2 ||(W - W_{mu-1}) A_{mu-1}||^2, lam = 1/gamma - 1;
    with ``penalty="accumulated"`` the penalty sums the metrics of every earlier task,
    lam/2 sum_{nu < mu} ||(W - W_{mu-1}) A_nu||^2.
    """

    name = "fisher"
    accepts = ("gamma", "lam", "first_task", "penalty")
    first_tasks = ("unregularized", "independent-metric", "own-metric")
    penalties = PENALTIES
    rule: ClassVar[str] = "fisher"

    def lam_from_gamma(self, gamma: float) -> float:
        return 1.0 / gamma - 1.0

    def steps(self, n_tasks: int) -> tuple[Step, ...]:
        if self.first_task == "unregularized":
            first = Step(1, "least-squares", "A1")
        else:
            metric = "A0" if self.first_task == "independent-metric" else "A1"
            first = Step(1, self.rule, "A1", lam=self.lam, metric=metric)
        return (first,) + tuple(Step(mu, self.rule, f"A{mu}", lam=self.lam,
                                     metric=self.metric_of(mu))
                                for mu in range(2, n_tasks + 1))

    def metric_of(self, mu: int) -> str | tuple[str, ...]:
        """The metric block(s) of task ``mu`` >= 2's penalty (``penalty``)."""
        if self.penalty == "accumulated" and mu > 2:
            return tuple(f"A{nu}" for nu in range(1, mu))
        return f"A{mu - 1}"


class FisherDiag(Fisher):
    """Fisher regularization with the diagonal metric Delta = diag(sum_n a_{jn}^2) (Fig. 5D).

    Needs explicit matrices (Delta is a row-wise function of A_{mu-1}, not of the Gram).
    """

    name = "fisher-diag"
    rule = "fisher-diag"
    penalties = ("previous",)
    gram_solvable = False


MODELS: dict[str, type[LinearModel]] = {
    cls.name: cls
    for cls in (Vanilla, RandomGating, AdaptiveGating, PlasticityGating, Euclidean, Fisher,
                FisherDiag)
}


def make_model(model: str, *, nx: int, ns: int, **parameters: object) -> LinearModel:
    """The :class:`LinearModel` named ``model`` with its parameters validated and resolved.

    Examples
    --------
    >>> m = make_model("euclidean", nx=300, ns=30, gamma=0.5)
    >>> m.lam, m.first_task
    (10.0, 'regularized')
    >>> make_model("fisher", nx=300, ns=30, gamma=0.5).lam
    1.0
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    return MODELS[model](nx=nx, ns=ns, **parameters)


def required_blocks(model: str, n_tasks: int = 2, *, first_task: Optional[str] = None,
                    penalty: Optional[str] = None) -> tuple[str, ...]:
    """The Features block names :func:`solve_features` needs for ``model`` and ``n_tasks``.

    ``"A0"`` (the independent metric task of ``first_task="independent-metric"``) is listed
    as is; :func:`solve_features` maps it to the block named by ``metric_block``.

    Examples
    --------
    >>> required_blocks("plasticity-gating")
    ('A1', 'D1A1', 'A2', 'D2A2')
    >>> required_blocks("fisher", 3)
    ('A1', 'A2', 'A3')
    """
    n_tasks = _check_n_tasks(n_tasks)
    parameters: dict[str, object] = {"first_task": first_task} if first_task is not None else {}
    if penalty is not None:
        parameters["penalty"] = penalty
    if "lam" in MODELS.get(model, LinearModel).accepts:
        parameters["lam"] = 1.0  # the block list does not depend on lam > 0
    return make_model(model, nx=2, ns=1, **parameters).blocks(n_tasks)


def _check_n_tasks(n_tasks: object) -> int:
    n = check_positive_int("n_tasks", n_tasks)
    if n < 2:
        raise ValueError(f"n_tasks must be an integer >= 2, got {n_tasks!r}")
    return n


def check_tasks(tasks: object) -> TaskSequence:
    """Check a task sequence: at least 2 tasks, consistent shapes, finite entries."""
    if not isinstance(tasks, TaskSequence):
        raise ValueError(f"tasks must be a tasksim.solvers.tasks.TaskSequence, got {type(tasks).__name__}")
    _check_n_tasks(tasks.n_tasks)
    if len(tasks.B) != tasks.n_tasks:
        raise ValueError(f"tasks has {tasks.n_tasks} A matrices but {len(tasks.B)} B matrices")
    nx, ns = tasks.A[0].shape
    ny = tasks.B[0].shape[0]
    for mu, (A, B) in enumerate(zip(tasks.A, tasks.B), start=1):
        if A.shape != (nx, ns) or B.shape != (ny, ns):
            raise ValueError(f"tasks.A[{mu - 1}] / tasks.B[{mu - 1}] have shapes {A.shape}, "
                             f"{B.shape}; expected {(nx, ns)}, {(ny, ns)}")
        if not (np.isfinite(A).all() and np.isfinite(B).all()):
            raise ValueError(f"tasks.A[{mu - 1}] or tasks.B[{mu - 1}] contains NaN or inf")
    return tasks


def _check_gates(gates: Sequence[np.ndarray], n: int, nx: int) -> tuple[np.ndarray, ...]:
    gates = tuple(np.asarray(g) for g in gates)
    if len(gates) != n:
        raise ValueError(f"gates must hold {n} gate vectors (one per task), got {len(gates)}")
    out = []
    for g in gates:
        if g.shape != (nx,) or not np.isin(g, (0, 1)).all():
            raise ValueError(f"each gate must be a 0/1 vector of length nx={nx}")
        out.append(g.astype(bool))
    return tuple(out)


def _solution(spec: LinearModel, span: Span, n_tasks: int, **extra: object) -> Solution:
    coefficients, updates = solve_step_updates(spec.steps(n_tasks), span, n_tasks)
    seen = tuple(spec.seen(mu) for mu in range(1, n_tasks + 1))
    return Solution(spec.name, n_tasks, span, seen, coefficients, spec.parameters,
                    updates=updates, **extra)


def draw_inputs(spec: LinearModel, tasks: TaskSequence, gates: Optional[Sequence[np.ndarray]],
                rng: np.random.Generator) -> tuple[Optional[tuple[np.ndarray, ...]], Optional[np.ndarray]]:
    """The random inputs a model draws besides the tasks: (gates, A_0), in a fixed order.

    Gates given are checked and used as is. Otherwise random and plasticity gating draw
    g_1 .. g_n ~ Bernoulli(alpha) independently; adaptive gating draws g_1 only (the rest
    follow the probe trials, drawn by the caller from the same ``rng``). A_0 ~ N(0, 1/Ns),
    independent of the tasks, is drawn for ``first_task="independent-metric"``. Shared by
    :func:`solve` and ``tasksim.solvers.gd`` so that one seed gives both the same inputs.
    """
    n = tasks.n_tasks
    if gates is not None and not spec.gated:
        raise ValueError(f"gates is not a parameter of model {spec.name}")
    if spec.gated and gates is None and spec.alpha is None:
        raise ValueError(f"model {spec.name} needs alpha (or explicit gates)")
    if spec.gated:
        if gates is not None:
            gates = _check_gates(gates, n, tasks.nx)
        else:
            count = 1 if isinstance(spec, AdaptiveGating) else n
            gates = draw_gates(nx=tasks.nx, alpha=spec.alpha, n_tasks=count, rho_g=0.0, seed=rng)
    auxiliary = None
    if getattr(spec, "first_task", None) == "independent-metric":
        auxiliary = rng.standard_normal((tasks.nx, tasks.ns)) / np.sqrt(tasks.ns)
    return gates, auxiliary


def _adaptive_gates(spec: LinearModel, tasks: TaskSequence, first_gate: np.ndarray,
                    rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Draw g_2 .. g_n by the probe trial at every switch (Appendix B.1)."""
    gates = [first_gate]
    for mu in range(1, tasks.n_tasks):
        # tasks 1..mu learned with the gates drawn so far; the probe needs task mu + 1's readout
        blocks = ExplicitBlocks(tasks.A, tuple(gates))
        names = tuple(f"D{nu}A{nu}" for nu in range(1, mu + 1)) + (f"D{mu}A{mu + 1}",)
        span = blocks.span(names)
        learned = solve_steps(spec.steps(mu + 1)[:mu], span, mu + 1)
        partial = Solution(spec.name, mu + 1, span, (), learned, readouts=tasks.B[:mu + 1])
        eps_pb, eps_o = probe_error(partial, mu, expected=spec.probe == "expected",
                                    rho_b=tasks.rho_b, structure=tasks.structure)
        rho_g = max(0.0, 1.0 - eps_pb / eps_o)
        gates.append(next_gate(gates[-1], spec.alpha, rho_g, rng))
    return tuple(gates)


def solve(
    model: str,
    tasks: TaskSequence,
    *,
    alpha: Optional[float] = None,
    gamma: Optional[float] = None,
    lam: Optional[float] = None,
    gates: Optional[Sequence[np.ndarray]] = None,
    seed: Seed = None,
    first_task: Optional[str] = None,
    probe: Optional[str] = None,
    penalty: Optional[str] = None,
) -> Solution:
    """Fixed points W_1 .. W_n of ``model`` on explicit task matrices (module docstring).

    ``gates`` (gating models only): one 0/1 vector of length Nx per task, used as given;
    otherwise drawn from ``seed`` (as is A_0 for ``first_task="independent-metric"``).
    Cost O(Nx k^2 Ns^2) for k blocks; memory O(Nx Ns) beyond the tasks.

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> t = draw_tasks(nx=200, ns=4, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
    >>> s = solve("random-gating", t, alpha=0.5, seed=1)
    >>> s.seen, [g.shape for g in s.gates]
    (('D1A1', 'D2A2'), [(200,), (200,)])
    """
    tasks = check_tasks(tasks)
    spec = make_model(model, nx=tasks.nx, ns=tasks.ns, alpha=alpha, gamma=gamma, lam=lam,
                      first_task=first_task, probe=probe, penalty=penalty)
    n = tasks.n_tasks
    rng = as_generator(seed)
    gates, auxiliary = draw_inputs(spec, tasks, gates, rng)
    if isinstance(spec, AdaptiveGating) and len(gates) == 1:
        gates = _adaptive_gates(spec, tasks, gates[0], rng)
    explicit = ExplicitBlocks(tasks.A, gates, auxiliary)
    span = explicit.span(spec.blocks(n))
    solution = _solution(spec, span, n, gates=gates, readouts=tasks.B, explicit=explicit)
    if isinstance(spec, AdaptiveGating):
        solution = _with_probes(solution, spec, tasks.rho_b, tasks.structure)
    return solution


def _with_probes(solution: Solution, spec: LinearModel, rho_b: float,
                 structure: str) -> Solution:
    pb, base = [], []
    for mu in range(1, solution.n_tasks):
        e, o = probe_error(solution, mu, expected=spec.probe == "expected", rho_b=rho_b,
                           structure=structure)
        pb.append(e)
        base.append(o)
    rho = tuple(max(0.0, 1.0 - e / o) for e, o in zip(pb, base))
    return replace(solution, probe_errors=tuple(pb), probe_baselines=tuple(base),
                   gate_correlations=rho)


def solve_features(
    model: str,
    features: Features,
    *,
    n_tasks: int,
    alpha: Optional[float] = None,
    gamma: Optional[float] = None,
    lam: Optional[float] = None,
    first_task: Optional[str] = None,
    metric_block: Optional[str] = None,
    probe: Optional[str] = None,
    penalty: Optional[str] = None,
) -> Solution:
    """Fixed points of ``model`` from the Gram matrix of its blocks alone.

    ``features`` must hold :func:`required_blocks` (more blocks are fine). ``alpha`` is
    optional here (the gates are inside the Gram, for adaptive gating too: they must have
    been drawn by its probe rule) and only recorded. For
    ``first_task="independent-metric"``, ``metric_block`` names the block that plays the
    independent task A_0 (its Gram with the others must be that of an independent draw).

    Examples
    --------
    >>> from tasksim.solvers.gram import sample_features
    >>> f = sample_features(nx=10**6, ns=3, rho_a=0.5, seed=0)
    >>> s = solve_features("vanilla", f, n_tasks=2)
    >>> s.span.nx, s.coefficients[2].shape
    (1000000, (6, 6))
    """
    if not isinstance(features, Features):
        raise ValueError(f"features must be a tasksim.solvers.features.Features, got {type(features).__name__}")
    n_tasks = _check_n_tasks(n_tasks)
    spec = make_model(model, nx=features.nx, ns=features.ns, alpha=alpha, gamma=gamma, lam=lam,
                      first_task=first_task, probe=probe, penalty=penalty)
    if not spec.gram_solvable:
        raise NotImplementedError(
            f"model {model} needs explicit task matrices: its metric diag(sum_n a_jn^2) is "
            "row-wise in A_{mu-1}, not a function of the Gram matrix")
    span = Span.from_features(features)
    if getattr(spec, "first_task", None) == "independent-metric":
        if metric_block is None or metric_block not in span.names:
            raise ValueError(f"metric_block must name the independent task's block among "
                             f"{span.names}, got {metric_block!r}")
        span = Span(tuple("A0" if n == metric_block else n for n in span.names), span.gram,
                    span.nx, span.ns)
    elif metric_block is not None:
        raise ValueError("metric_block is only used with first_task='independent-metric'")
    missing = [b for b in spec.blocks(n_tasks) if b not in span.names]
    if missing:
        raise ValueError(f"features lacks blocks {missing} needed by model {model} "
                         f"for {n_tasks} tasks (has {features.names})")
    return _solution(spec, span, n_tasks)
