"""Gradient-flow fixed points of one learning step, solved in the span of the task matrices.

One task is learned by gradient flow from the previous weight W_{mu-1} on a quadratic loss
(a :class:`Step`). Each fixed point is linear in the readouts: the weight change is

    W_mu - W_{mu-1} = R0 M X^T,    R0 = B_mu - W_{mu-1} F

with F the input the network sees on the task, X the blocks of a :class:`tasksim.solvers.span.Span`
and M an Ns x (k Ns) matrix, the step's *readout map*, that depends on the Gram matrix only.
Writing ``W_mu = Y C_mu X^T`` with ``Y = [B_1 .. B_n]`` and replacing B_mu by its selector
E_mu (the mu-th Ns x (n Ns) block row of the identity, transposed) gives the coefficient
recursion ``C_mu = C_{mu-1} + (E_mu - C_{mu-1} X^T F) M`` (:func:`solve_steps`): exact, for
any readouts, at a cost independent of Nx once the Gram matrix is known.

Rules (gradient flow limits; ``K = F^T F``, ``^+`` the pseudo-inverse of :func:`psd_pinv`):

``least-squares`` (eq_gd_fp_vanilla, eq_W_fp_gated_gd)
    loss 1/2 ||B - W F||^2; dW/dt = (B - W F) F^T. Limit W_{mu-1}(I - U U^T) + B F^+ with
    U U^T = F K^+ F^T and F^+ = K^+ F^T, so M = K^+ on block F. F may be rank deficient
    (activity gating with alpha Nx < Ns): eigenvalues of K below ``EIG_RTOL`` times the
    largest count as zero.
``plasticity-gated`` (Appendix "Plasticity gating")
    dW/dt = (B - W F) P^T with P = D F the plastic inputs. W - W_{mu-1} = Q P^T stays in the
    span of P; the fixed point (R0 - Q P^T F) P^T = 0 with P of full column rank gives
    Q = R0 (P^T F)^{-1}, i.e. M = (P^T F)^{-1} on block P. With F = U Lambda V^T this is
    the appendix's (B V Lambda^{-1} - W_{mu-1} U)(U^T D U)^{-1} U^T D. Requires P^T F = A^T D A
    invertible (at least Ns plastic inputs); a ValueError is raised otherwise.
``euclidean`` (eq_main_lmu_wreg, Appendix C.1)
    loss 1/2 ||B - W F||^2 + lam/2 ||W - W_{mu-1}||^2. Push-through form of
    (B F^T + lam W_{mu-1})(F F^T + lam I)^{-1}: M = (K + lam I)^+ on block F.
``fisher`` (Appendix C.2, eq_ap_defQ_wr_fim)
    loss 1/2 ||B - W F||^2 + lam/2 ||(W - W_{mu-1}) G||^2 with G the metric block (A_{mu-1}),
    or G = [G_1 .. G_m] for several metric blocks: lam/2 sum_k ||(W - W_{mu-1}) G_k||^2, the
    sum of their Fisher metrics G_k G_k^T (the accumulated penalty of online consolidation).
    W - W_{mu-1} stays in the span of Z = [G, F]; with H^{1/2} = diag(sqrt(lam) I, I) and
    N = H^{1/2} Z^T Z H^{1/2}, the limit is R0 F^T (Z H Z^T)^+ = R0 e_F^T N^+ H^{1/2} Z^T, so
    M = e_F^T N^+ H^{1/2}. One path for rho_a < 1 and rho_a = 1 (G = F, where it reduces to
    the appendix's W_{mu-1}(I - U U^T/(1 + lam)) + B F^+/(1 + lam)) and for lam = 0 (vanilla).
``fisher-diag`` (Fig. 5D, "diagonal approximation")
    loss 1/2 ||B - W F||^2 + lam/2 ||(W - W_{mu-1}) Delta^{1/2}||^2, Delta = diag(sum_n g_{jn}^2)
    of the metric block G. Stationarity (W - W_{mu-1})(F F^T + lam Delta) = R0 F^T; for lam > 0
    the Hessian is positive definite and push-through gives W - W_{mu-1} = Q F^T Delta^{-1},
    Q (F^T Delta^{-1} F + lam I) = R0: M = (F^T Delta^{-1} F + lam I)^{-1} on block
    Delta^{-1} F. At lam = 0 the loss is unregularized and the limit is least squares: the
    gradient-flow limit is discontinuous at lam = 0 (lam -> 0+ gives the Delta-weighted
    minimum-norm change, lam = 0 the Euclidean one).

Examples
--------
>>> from tasksim.solvers.span import ExplicitBlocks
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=40, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=1)
>>> span = ExplicitBlocks(t.A).span(("A1", "A2"))
>>> C = solve_steps([Step(1, "least-squares", "A1"), Step(2, "least-squares", "A2")], span, 2)
>>> len(C), C[2].shape
(3, (6, 6))
>>> Y = np.hstack(t.B)
>>> W1 = Y @ C[1] @ np.hstack(t.A).T
>>> bool(np.allclose(W1 @ t.A[0], t.B[0]))   # task 1 is learned exactly
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from .span import Span, inverse_diagonal_name

__all__ = ["EIG_RTOL", "RULES", "Step", "psd_pinv", "readout_map", "selector",
           "solve_steps", "solve_step_updates"]

EIG_RTOL = 1e-10
"""Eigenvalues of a Gram matrix (F^T F, ...) at or below EIG_RTOL times the largest count as
zero; for F^T F this treats singular values of F below 1e-5 times the largest as zero. Rounding
puts the exact zeros of a rank-deficient Gram near 1e-16 times the largest eigenvalue."""

RULES: tuple[str, ...] = ("least-squares", "plasticity-gated", "euclidean", "fisher", "fisher-diag")


@dataclass(frozen=True)
class Step:
    """How task ``task`` is learned (gradient flow from W_{task-1}).

    ``fit`` is the block the network sees as input on the task (``"A2"`` or ``"D2A2"``);
    ``plastic`` the block of plastic inputs (plasticity gating only, ``"D2A2"``); ``lam`` the
    regularizer amplitude; ``metric`` the block whose (diagonal) Fisher metric regularizes
    (``fisher`` and ``fisher-diag`` only), or for ``fisher`` a tuple of blocks whose metrics
    are summed.
    """

    task: int
    rule: str
    fit: str
    plastic: Optional[str] = None
    lam: float = 0.0
    metric: Optional[Union[str, tuple[str, ...]]] = None

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, got {self.rule!r}")
        if (self.plastic is None) == (self.rule == "plasticity-gated"):
            raise ValueError("plastic is given exactly for the plasticity-gated rule")
        if (self.metric is None) == (self.rule in ("fisher", "fisher-diag")):
            raise ValueError("metric is given exactly for the fisher and fisher-diag rules")
        if not (self.lam >= 0.0 and np.isfinite(self.lam)):
            raise ValueError(f"lam must be a number in [0, inf), got {self.lam!r}")
        if isinstance(self.metric, tuple) and (self.rule != "fisher" or not self.metric):
            raise ValueError("several metric blocks are summed by the fisher rule only")

    @property
    def metric_blocks(self) -> tuple[str, ...]:
        """The metric blocks as a tuple (empty when the rule has no metric)."""
        if self.metric is None:
            return ()
        return self.metric if isinstance(self.metric, tuple) else (self.metric,)

    def blocks(self) -> tuple[str, ...]:
        """Every block the step needs in the span (the input first)."""
        if self.rule == "plasticity-gated":
            return (self.fit, self.plastic)
        if self.rule == "fisher":
            return (self.fit,) + self.metric_blocks
        if self.rule == "fisher-diag" and self.lam > 0.0:
            return (self.fit, inverse_diagonal_name(self.metric, self.fit))
        return (self.fit,)


def psd_pinv(K: np.ndarray, rtol: float = EIG_RTOL) -> tuple[np.ndarray, int]:
    """Pseudo-inverse and rank of a symmetric positive semi-definite matrix, by eigh.

    Eigenvalues <= ``rtol`` times the largest are treated as zero.

    Examples
    --------
    >>> P, r = psd_pinv(np.diag([4.0, 1e-17, 0.0]))
    >>> r, float(P[0, 0]), float(P[1, 1])
    (1, 0.25, 0.0)
    """
    K = 0.5 * (K + K.T)
    w, V = np.linalg.eigh(K)
    top = w[-1] if w.size else 0.0
    if top <= 0.0:
        return np.zeros_like(K), 0
    keep = w > rtol * top
    Vk = V[:, keep]
    return (Vk / w[keep]) @ Vk.T, int(keep.sum())


def selector(mu: int, n_tasks: int, ns: int) -> np.ndarray:
    """E_mu: the (n Ns) x Ns matrix with Y E_mu = B_mu for Y = [B_1 .. B_n].

    Examples
    --------
    >>> selector(2, 2, 1)
    array([[0.],
           [1.]])
    """
    E = np.zeros((n_tasks * ns, ns))
    E[(mu - 1) * ns:mu * ns] = np.eye(ns)
    return E


def readout_map(step: Step, span: Span) -> np.ndarray:
    """The Ns x (k Ns) matrix M with W_mu - W_{mu-1} = (B_mu - W_{mu-1} F) M X^T.

    See the module docstring for each rule's derivation.

    Examples
    --------
    >>> from tasksim.solvers.span import Span
    >>> span = Span(("A1",), 4.0 * np.eye(2), nx=10, ns=2)    # A_1^T A_1 = 4 I
    >>> readout_map(Step(1, "least-squares", "A1"), span)       # A^+ = A^T / 4
    array([[0.25, 0.  ],
           [0.  , 0.25]])
    >>> readout_map(Step(1, "euclidean", "A1", lam=1.0), span)  # (A^T A + I)^{-1} A^T
    array([[0.2, 0. ],
           [0. , 0.2]])
    """
    ns = span.ns
    M = np.zeros((ns, span.size))
    if step.rule == "least-squares" or (step.rule == "fisher-diag" and step.lam == 0.0):
        M[:, span.index(step.fit)] = psd_pinv(span.block(step.fit, step.fit))[0]
    elif step.rule == "euclidean":
        K = span.block(step.fit, step.fit)
        M[:, span.index(step.fit)] = psd_pinv(K + step.lam * np.eye(ns))[0]
    elif step.rule == "plasticity-gated":
        PF = span.block(step.plastic, step.fit)
        s = np.linalg.svd(PF, compute_uv=False)
        if s[-1] <= np.sqrt(EIG_RTOL) * s[0]:
            rank = int(np.sum(s > np.sqrt(EIG_RTOL) * s[0]))
            raise ValueError(
                f"plasticity gating needs A^T D A (= Lambda V^T (U^T D U) V Lambda) invertible, "
                f"but its rank is {rank} < ns={ns}: fewer than Ns inputs are plastic "
                f"(alpha * nx must be >= ns; nx={span.nx})"
            )
        M[:, span.index(step.plastic)] = np.linalg.inv(PF)
    elif step.rule == "fisher":
        names = step.metric_blocks + (step.fit,)
        Z = np.block([[span.block(a, b) for b in names] for a in names])
        m = len(names) - 1
        h = np.concatenate([np.full(m * ns, np.sqrt(step.lam)), np.ones(ns)])
        N_pinv = psd_pinv(h[:, None] * Z * h[None, :])[0]
        MZ = N_pinv[m * ns:, :] * h[None, :]  # e_F^T N^+ H^{1/2}
        for k, name in enumerate(names):
            M[:, span.index(name)] += MZ[:, k * ns:(k + 1) * ns]
    else:  # fisher-diag, lam > 0
        V = inverse_diagonal_name(step.metric, step.fit)
        K = span.block(step.fit, V)
        K = 0.5 * (K + K.T)
        M[:, span.index(V)] = np.linalg.inv(K + step.lam * np.eye(ns))
    return M


def solve_steps(steps: Sequence[Step], span: Span, n_tasks: int) -> tuple[np.ndarray, ...]:
    """Coefficients C_0 = 0, C_1, .., C_len(steps) with W_mu = Y C_mu X^T (module docstring).

    Each C is (n_tasks Ns) x (k Ns), k the number of blocks of ``span``.

    Examples
    --------
    >>> from tasksim.solvers.span import Span
    >>> span = Span(("A1",), 4.0 * np.eye(1), nx=10, ns=1)
    >>> solve_steps([Step(1, "least-squares", "A1"), Step(2, "least-squares", "A1")], span, 2)[2]
    array([[0.  ],
           [0.25]])
    """
    return solve_step_updates(steps, span, n_tasks)[0]


def solve_step_updates(steps: Sequence[Step], span: Span, n_tasks: int
                       ) -> tuple[tuple[np.ndarray, ...], tuple[tuple[np.ndarray, np.ndarray], ...]]:
    """:func:`solve_steps` and each step's rank-Ns update: C_mu - C_{mu-1} = r_mu M_mu with
    r_mu = E_mu - C_{mu-1} X^T F the residual coefficients ((n Ns) x Ns) and M_mu the readout
    map (Ns x (k Ns)); returns (coefficients, ((r_1, M_1), ..)).

    Examples
    --------
    >>> from tasksim.solvers.span import Span
    >>> span = Span(("A1",), 4.0 * np.eye(1), nx=10, ns=1)
    >>> C, updates = solve_step_updates([Step(1, "least-squares", "A1")], span, 1)
    >>> updates[0][0] @ updates[0][1] == C[1] - C[0]
    array([[ True]])
    """
    ns = span.ns
    C = np.zeros((n_tasks * ns, span.size))
    out = [C]
    updates = []
    learned = np.zeros(n_tasks * ns, dtype=bool)  # rows of C that hold a readout already
    for step in steps:
        rows = np.flatnonzero(learned)  # the others are zero: skip them
        residual = selector(step.task, n_tasks, ns)
        residual[rows] -= C[rows] @ span.column(step.fit)
        M = readout_map(step, span)
        cols = np.flatnonzero(np.any(M != 0.0, axis=0))  # the blocks the step changes
        C = C.copy()
        C[:, cols] += residual @ M[:, cols]
        learned |= np.any(residual != 0.0, axis=1)
        out.append(C)
        updates.append((residual, M))
    return tuple(out), tuple(updates)

