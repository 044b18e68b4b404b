"""The result of a linear model's solver: the fixed points W_0 = 0, W_1, .., W_n in the span of
the task blocks, and the weights they stand for.

:mod:`tasksim.solvers.linear_models` makes a :class:`Solution`; :mod:`tasksim.solvers.metrics`
and :mod:`tasksim.solvers.sampled` read it. It lives here, apart from all three, so that none
imports another to know what a solution is.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import numpy as np

from .span import ExplicitBlocks, Span

__all__ = ["Solution", "weights"]


@dataclass(frozen=True)
class Solution:
    """The fixed points W_0 = 0, W_1, .., W_n of one model on one task sequence.

    ``coefficients[mu]`` is C_mu, (n Ns) x (k Ns), with W_mu = Y C_mu X^T (Y = [B_1 .. B_n],
    X the blocks of ``span``); ``seen[mu - 1]`` names the block the network's input on task mu
    is. ``readouts`` are the sampled B (None on the Features path), ``explicit`` the matrices
    the blocks come from (None on the Features path). For adaptive gating, ``probe_errors``
    and ``probe_baselines`` are eps_pb and eps_o at each switch and ``gate_correlations`` the
    rho_g = max{0, 1 - eps_pb/eps_o} used to draw the next gate. ``updates[mu - 1]`` is the
    rank-Ns step (r_mu, M_mu) with C_mu = C_{mu-1} + r_mu M_mu
    (:func:`tasksim.solvers.fixed_points.solve_step_updates`), when the solver kept it.
    """

    model: str
    n_tasks: int
    span: Span
    seen: tuple[str, ...]
    coefficients: tuple[np.ndarray, ...]
    parameters: Mapping[str, object] = field(default_factory=dict)
    gates: Optional[tuple[np.ndarray, ...]] = None
    readouts: Optional[tuple[np.ndarray, ...]] = None
    explicit: Optional[ExplicitBlocks] = None
    probe_errors: Optional[tuple[float, ...]] = None
    probe_baselines: Optional[tuple[float, ...]] = None
    gate_correlations: Optional[tuple[float, ...]] = None
    updates: Optional[tuple[tuple[np.ndarray, np.ndarray], ...]] = field(default=None,
                                                                        repr=False)

    @property
    def nx(self) -> int:
        return self.span.nx

    @property
    def ns(self) -> int:
        return self.span.ns


def weights(solution: Solution, readouts: Optional[Sequence[np.ndarray]] = None) -> tuple[np.ndarray, ...]:
    """W_0 = 0, W_1, .., W_n as explicit Ny x Nx matrices (never Nx x Nx).

    ``readouts`` (B_1 .. B_n) default to the solution's sampled readouts; since every fixed
    point is linear in them, any other readouts give the weights the model would learn on
    them (except for adaptive gating, whose gates depend on the readouts).

    Examples
    --------
    >>> from tasksim.solvers.linear_models import solve
    >>> from tasksim.solvers.tasks import draw_tasks
    >>> t = draw_tasks(nx=50, ns=3, ny=2, rho_a=0.3, rho_b=0.3, seed=2)
    >>> W = weights(solve("vanilla", t))
    >>> W[2].shape, bool(np.allclose(W[2] @ t.A[1], t.B[1]))
    ((2, 50), True)
    """
    if solution.explicit is None:
        raise ValueError("this solution has no explicit matrices (it was solved from Features); "
                         "weights need them")
    readouts = solution.readouts if readouts is None else tuple(readouts)
    if readouts is None or len(readouts) != solution.n_tasks:
        raise ValueError(f"readouts must hold {solution.n_tasks} matrices B_mu")
    Y = np.hstack([np.asarray(B, dtype=float) for B in readouts])
    if Y.shape[1] != solution.n_tasks * solution.ns:
        raise ValueError(f"readouts must be Ny x Ns with Ns={solution.ns}")
    blocks = [solution.explicit.block(name) for name in solution.span.names]
    out = []
    for C in solution.coefficients:
        YC = Y @ C
        W = np.zeros((Y.shape[0], solution.nx))
        for name, X in zip(solution.span.names, blocks):
            W += YC[:, solution.span.index(name)] @ X.T
        out.append(W)
    return tuple(out)
