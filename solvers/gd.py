"""The paper's gradient-descent protocol for the linear models (Appendix D,
subsec_linear_st_implementation), with learning curves as in Fig. 1B.

Zero initialization, full-batch gradient descent on the infinite-sample loss, learning rate
eta = 0.001, N_epoch steps per task: 100 for vanilla and activity gating, 500 for the other
models (:attr:`tasksim.solvers.linear_models.LinearModel.paper_epochs`). Each task is learned from
the weight left by the previous one, on the loss of its :class:`tasksim.solvers.fixed_points.Step`:

- least squares (vanilla, activity gating): W <- W - eta (W F - B) F^T, F = D A;
- plasticity gating: W <- W - eta (W A - B)(D A)^T;
- euclidean: adds lam (W - W_{mu-1}); fisher: lam ((W - W_{mu-1}) A_{mu-1}) A_{mu-1}^T (with
  the accumulated penalty, the sum of that term over every earlier task's A_nu);
  fisher-diag: lam (W - W_{mu-1}) Delta, Delta = diag(sum_n a_{jn}^2) of A_{mu-1}.

Normalization: the gradient is that of 1/2 ||B - W F||_F^2 (+ the regularizer), not of the
1/Ny-normalized error eps, whose gradient is 2/Ny times smaller. The slowest eigenvalue of
A^T A is about (sqrt(Nx/Ns) - 1)^2 = 81 at the paper's Nx/Ns = 100; after 100 epochs the
residual along it shrinks by (1 - 0.001 * 81)^100 = 2e-4 with the unnormalized loss, but only
by (1 - 0.2 * 0.081)^100 = 0.2 with the normalized one at Ny = 10 (4% of the error left):
only the unnormalized loss gives the converged curves of Fig. 1B.

GD works in Nx space with an explicit Ny x Nx weight (O(Ny Nx Ns) per step); it never forms an
Nx x Nx matrix. It is independent of the fixed-point solvers (it shares only the model
specification and the drawing of gates), so it cross-checks them. Errors are recorded on the
sampled readouts after every step. Before each task the step's largest Hessian eigenvalue is
checked: eta times it must be below 2, else GD diverges and a ValueError names eta.

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=300, ns=3, ny=2, rho_a=0.8, rho_b=0.2, seed=0)
>>> curves = gradient_descent("vanilla", t)
>>> curves.errors.shape                  # (2 tasks x 100 epochs + 1 points, 2 tasks)
(201, 2)
>>> bool(curves.errors[100, 0] < 1e-3 * curves.errors[0, 0])   # task 1 learned at epoch 100
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import numpy as np

from .fixed_points import Step
from .linear_models import AdaptiveGating, check_tasks, draw_inputs, make_model
from .rng import Seed, as_generator
from .span import ExplicitBlocks
from .tasks import TaskSequence, next_gate
from .validation import check_positive_int

__all__ = ["PAPER_ETA", "LearningCurves", "gradient_descent", "largest_hessian_eigenvalue"]

PAPER_ETA = 0.001
"""Learning rate of the paper's GD protocol (Appendix D)."""


@dataclass(frozen=True)
class LearningCurves:
    """Learning curves and weights of the GD protocol.

    ``errors[t, nu - 1]`` is eps_nu[W(t)] on the sampled readouts after ``t`` steps (t = 0 is
    W_0 = 0; task mu occupies steps (mu - 1) epochs + 1 .. mu epochs). For adaptive gating the
    gate of a task is drawn at its switch, so its error before then is undefined and recorded
    as NaN. ``weights`` are W_0 .. W_n (Ny x Nx) at the end of each task.
    """

    model: str
    errors: np.ndarray
    weights: tuple[np.ndarray, ...]
    epochs: int
    eta: float
    parameters: Mapping[str, object] = field(default_factory=dict)
    gates: Optional[tuple[np.ndarray, ...]] = None
    probe_errors: Optional[tuple[float, ...]] = None
    gate_correlations: Optional[tuple[float, ...]] = None


def largest_hessian_eigenvalue(step: Step, blocks: ExplicitBlocks, *, iterations: int = 200,
                               seed: Seed = 0) -> float:
    """Largest eigenvalue of the GD iteration matrix of ``step`` (per row of W).

    Exact (from Ns x Ns or 2Ns x 2Ns Grams) for every rule but ``fisher-diag``, whose Hessian
    F F^T + lam Delta is estimated by power iteration in Nx space: a lower bound, so a step
    reported unstable is unstable.

    Examples
    --------
    >>> A = np.vstack([np.eye(2), np.zeros((3, 2))]) * 2.0
    >>> largest_hessian_eigenvalue(Step(1, "euclidean", "A1", lam=1.0), ExplicitBlocks((A,)))
    5.0
    """
    F = blocks.block(step.fit)
    if step.rule == "plasticity-gated":
        PF = blocks.block(step.plastic).T @ F
        return float(np.max(np.abs(np.linalg.eigvals(PF))))
    if step.rule == "fisher":
        ns = F.shape[1]
        Z = np.hstack([np.sqrt(step.lam) * blocks.block(g) for g in step.metric_blocks] + [F])
        return float(np.linalg.eigvalsh(Z.T @ Z)[-1]) if ns else 0.0
    top = float(np.linalg.eigvalsh(F.T @ F)[-1])
    if step.rule == "euclidean":
        return top + step.lam
    if step.rule == "fisher-diag" and step.lam > 0.0:
        d = blocks.metric_diagonal(step.metric)
        v = as_generator(seed).standard_normal(F.shape[0])
        value = 0.0
        for _ in range(iterations):
            v /= np.linalg.norm(v)
            w = F @ (F.T @ v) + step.lam * d * v
            value = float(v @ w)
            v = w
        return max(value, top)
    return top


def _errors(W: np.ndarray, seen: Sequence[Optional[np.ndarray]], readouts: Sequence[np.ndarray]) -> np.ndarray:
    ny = W.shape[0]
    out = np.full(len(readouts), np.nan)
    for i, (X, B) in enumerate(zip(seen, readouts)):
        if X is not None:
            r = B - W @ X
            out[i] = float(np.einsum("ij,ij->", r, r)) / ny
    return out


def gradient_descent(
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
    eta: float = PAPER_ETA,
    epochs: Optional[int] = None,
) -> LearningCurves:
    """Run the paper's GD protocol on explicit tasks (module docstring).

    Parameters as :func:`tasksim.solvers.linear_models.solve` (one ``seed`` draws the same gates and
    A_0 in both); ``epochs`` per task defaults to the model's paper value. Adaptive gating
    draws g_{mu+1} at each switch from the probe error of the GD weight on the sampled
    readouts (``probe="expected"`` is not available here: use ``solve``).

    Examples
    --------
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> t = draw_tasks(nx=300, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
    >>> c = gradient_descent("fisher", t, gamma=0.5, epochs=50)
    >>> c.epochs, c.eta, len(c.weights), c.weights[2].shape
    (50, 0.001, 3, (2, 300))
    """
    tasks = check_tasks(tasks)
    spec = make_model(model, nx=tasks.nx, ns=tasks.ns, alpha=alpha, gamma=gamma, lam=lam,
                      first_task=first_task, probe=probe, penalty=penalty)
    if not (isinstance(eta, (int, float)) and not isinstance(eta, bool) and np.isfinite(eta)
            and eta > 0):
        raise ValueError(f"eta must be a number in (0, inf), got {eta!r}")
    epochs = spec.paper_epochs if epochs is None else check_positive_int("epochs", epochs)
    if isinstance(spec, AdaptiveGating) and spec.probe == "expected" and gates is None:
        raise NotImplementedError("the expected probe error needs the weight as a function of "
                                  "the readouts; GD trains on the sampled ones (use solve)")
    rng = as_generator(seed)
    gates, auxiliary = draw_inputs(spec, tasks, gates, rng)
    gates = None if gates is None else list(gates)
    n, ny = tasks.n_tasks, tasks.ny
    steps = spec.steps(n)

    def explicit() -> ExplicitBlocks:
        return ExplicitBlocks(tasks.A, None if gates is None else tuple(gates), auxiliary)

    W = np.zeros((ny, tasks.nx))
    out_weights = [W.copy()]
    curves = np.empty((n * epochs + 1, n))
    probes: list[float] = []
    rhos: list[float] = []

    def seen_blocks() -> list[Optional[np.ndarray]]:
        blocks = explicit()
        known = n if gates is None else len(gates)
        return [blocks.block(spec.seen(nu)) if nu <= known else None for nu in range(1, n + 1)]

    seen = seen_blocks()
    curves[0] = _errors(W, seen, tasks.B)
    for step in steps:
        mu = step.task
        if isinstance(spec, AdaptiveGating) and mu > 1:
            probe_input = tasks.A[mu - 1] * gates[mu - 2][:, None]
            r = tasks.B[mu - 1] - W @ probe_input
            eps_pb = float(np.einsum("ij,ij->", r, r)) / ny
            eps_o = float(np.einsum("ij,ij->", tasks.B[mu - 1], tasks.B[mu - 1])) / ny
            probes.append(eps_pb)
            rhos.append(max(0.0, 1.0 - eps_pb / eps_o))
            if len(gates) < mu:
                gates.append(next_gate(gates[-1], spec.alpha, rhos[-1], rng))
                seen = seen_blocks()
        blocks = explicit()
        top = largest_hessian_eigenvalue(step, blocks)
        if eta * top >= 2.0:
            raise ValueError(f"eta={eta} is too large: GD on task {mu} of model {spec.name} "
                             f"diverges unless eta < 2 / {top:.4g} = {2.0 / top:.4g}")
        F = blocks.block(step.fit)
        P = blocks.block(step.plastic) if step.plastic is not None else F
        B = tasks.B[mu - 1]
        W_prev = W.copy()
        metrics = ([blocks.block(g) for g in step.metric_blocks] if step.rule == "fisher"
                   else None)
        d = (blocks.metric_diagonal(step.metric)
             if step.rule == "fisher-diag" and step.lam > 0 else None)
        for t in range(epochs):
            grad = (W @ F - B) @ P.T
            if step.rule == "euclidean":
                grad += step.lam * (W - W_prev)
            elif metrics is not None:
                for M in metrics:
                    grad += step.lam * ((W - W_prev) @ M) @ M.T
            elif d is not None:
                grad += step.lam * (W - W_prev) * d[None, :]
            W = W - eta * grad
            curves[(mu - 1) * epochs + t + 1] = _errors(W, seen, tasks.B)
        out_weights.append(W.copy())
    adaptive = isinstance(spec, AdaptiveGating)
    return LearningCurves(
        spec.name, curves, tuple(out_weights), epochs, float(eta), spec.parameters,
        gates=None if gates is None else tuple(gates),
        probe_errors=tuple(probes) if adaptive else None,
        gate_correlations=tuple(rhos) if adaptive else None,
    )
