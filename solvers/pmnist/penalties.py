"""Weight regularizers of the permuted-digits network (Sec. 7; Appendix E.2, "Weight
regularization in the Fisher information metric").

Each keeps the weights near the anchor (W_1^o, W_2^o), the weights at the end of the previous
task: dW_l = W_l - W_l^o. The biases are not regularized. Two amplitudes, lam_1 for the first
layer and lam_2 for the second (equal unless chosen apart, as in Fig. 9E, F).

``euclidean``
    R = (lam_1/2) ||dW_1||_F^2 + (lam_2/2) ||dW_2||_F^2 (the network's eq_main_lmu_wreg).
``fisher-layerwise``
    The layer-wise approximation of the Fisher metric, the Hessian of the squared error with
    the cross terms between layers dropped and the expectations decoupled:
    R = lam_1/(2 Z_1) tr(dW_1^T M dW_1 C) + lam_2/(2 Z_2) tr(dW_2 S dW_2^T), with
    M = <grad phi W_2^T W_2 grad phi> = (W_2^T W_2) * <phi' phi'^T> (elementwise product),
    C = <x x^T>, S = <phi phi^T>, phi = ReLU(b_1 + W_1 x) and phi' = ReLU'(.) at the anchor,
    <.> the mean over the previous task's training inputs. Normalisers:
    Z_1 = ||W_2 W_2^T||_2 ||C||_2 and Z_2 = ||S||_2 (spectral norms).
    dR/dW_1 = (lam_1/Z_1) M dW_1 C, dR/dW_2 = (lam_2/Z_2) dW_2 S.
``fisher-diag``
    The diagonal approximation: R = lam_1/(2 Z_1) sum_ij F1_ij dW1_ij^2 +
    lam_2/(2 Z_2) sum_ij F2_ij dW2_ij^2 with F1_ij = <sum_k (W2_ki phi'_i x_j)^2> =
    (sum_k W2_ki^2) <phi'_i x_j^2>, F2_ij = <phi_j^2>, Z_1 = max_ij F1_ij, Z_2 = max_j <phi_j^2>.

Assumptions: the expectation of the gate product in M is kept, <phi'_i phi'_k>, not replaced
by <phi'_i><phi'_k>; a normaliser that is zero (a metric that is zero, e.g. no active hidden
unit) gives a zero penalty. The statistics are computed once, at the anchor.

Amplitudes. Each normaliser makes the largest curvature of a layer's term lam_l (the
largest eigenvalue of (lam_2/Z_2) S is lam_2; the largest coefficient (lam_2/Z_2) <phi_j^2>
is lam_2), so plain SGD with step eta holds the stiffest direction harder as lam_l grows up to
eta lam_l = 1 (one step resets it to the anchor) and diverges at eta lam_l >= 2
(:func:`tasksim.solvers.pmnist.resolve_pmnist_params` refuses it). A direction of S with
eigenvalue s_k is pulled back by eta lam_2 s_k / ||S||_2 per step: the Fisher penalties hold
W_2 on the span of task 1's hidden activity and leave it free off it
(``tests/test_pmnist_readout_penalty.py``).

What lam_2 does at the paper's protocol (issue 16, measured on mnist-5k, seed 0 of the stored
grids, (rho_a, rho_b) = (0.5, 0.5), 10 epochs = 130 steps of task 2 at eta = 0.01): W_2
hardly moves whatever lam_2 is. Unregularized, ||dW_2||_F = 0.071 against ||W_2^o||_F = 12.3
(W_1: 0.61 against 1.73); the error's gradient on W_2 at the switch has norm 0.18, on W_1 3.9
(the rich-regime initialisation: hidden activity is small, ||S||_2 = 1.02, the error's
curvature along W_2 is at most (2/Ny) ||S||_2 = 0.20 and 130 steps give eta 0.20 130 =
0.26: too short for W_2 to relax even along its stiffest direction). Putting W_2 back to its task-1 value after task 2 (the limit
lam_2 -> inf with W_1's path kept) lowers task 1's test error by only 0.0058 (0.4111 ->
0.4053; 0.0022 at diagonal lam_1 = 100), which bounds what any W_2 penalty can add to
retention there; the layer-wise lam_2 = 100 penalty (gradient norm 0.05 on average, a third
of the error's at the switch) cuts <||dW_2 phi||^2> over task 1 from 1.0e-3 to 9.2e-5 and
gains 0.0024 of retention. After 100 epochs of task 2 (fig9CD's length) W_2 has moved
(||dW_2|| = 0.41) and the bound is 0.039 (0.5145 -> 0.4754): lam_2 would matter there. On
the digits (128 hidden units, 2050 steps of task 2) W_2 moves
(||dW_2|| = 1.65 against 5.7) and lam_2 from 0.01 to 100 raises retention by 0.08-0.20
(every lam_1, both metrics and seeds of ``results/digits/fig9EF.nc``).

Examples
--------
>>> from tasksim.solvers.pmnist.network import init_network
>>> rng = np.random.default_rng(0)
>>> anchor = init_network(rng, nx=5, nh=6, ny=3, dtype=np.float64)
>>> x = rng.random((40, 5))
>>> for penalty in (euclidean_penalty(anchor, 1.0, 1.0), layerwise_fisher_penalty(anchor, x, 1.0, 1.0),
...                 diagonal_fisher_penalty(anchor, x, 1.0, 1.0)):
...     print(type(penalty).__name__, penalty.value(anchor))
EuclideanPenalty 0.0
LayerwiseFisherPenalty 0.0
DiagonalFisherPenalty 0.0
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .network import Network, forward
from ..validation import check_nonnegative

__all__ = ["EuclideanPenalty", "LayerwiseFisherPenalty", "DiagonalFisherPenalty",
           "euclidean_penalty", "layerwise_fisher_penalty", "diagonal_fisher_penalty",
           "anchor_statistics", "hessian_regularizer"]


def _deltas(net: Network, anchor: Network) -> tuple[np.ndarray, np.ndarray]:
    return net.W1 - anchor.W1, net.W2 - anchor.W2


def _scale(lam: float, normaliser: float) -> float:
    return 0.0 if normaliser <= 0.0 else lam / normaliser


@dataclass(frozen=True)
class EuclideanPenalty:
    """(lam_1/2) ||W_1 - W_1^o||^2 + (lam_2/2) ||W_2 - W_2^o||^2."""

    anchor: Network
    lam1: float
    lam2: float

    def value(self, net: Network) -> float:
        d1, d2 = _deltas(net, self.anchor)
        return 0.5 * (self.lam1 * float(np.sum(d1 * d1)) + self.lam2 * float(np.sum(d2 * d2)))

    def gradient(self, net: Network) -> tuple[np.ndarray, np.ndarray]:
        d1, d2 = _deltas(net, self.anchor)
        d1 *= d1.dtype.type(self.lam1)
        d2 *= d2.dtype.type(self.lam2)
        return d1, d2


@dataclass(frozen=True)
class LayerwiseFisherPenalty:
    """The layer-wise Fisher regularizer (module docstring) with its metric factors already
    scaled: ``m1`` = (lam_1/Z_1) M, ``c`` = C, ``s2`` = (lam_2/Z_2) S."""

    anchor: Network
    m1: np.ndarray
    c: np.ndarray
    s2: np.ndarray
    normalisers: tuple[float, float]

    def value(self, net: Network) -> float:
        d1, d2 = _deltas(net, self.anchor)
        first = float(np.sum(d1 * (self.m1 @ d1 @ self.c)))
        second = float(np.sum(d2 * (d2 @ self.s2)))
        return 0.5 * (first + second)

    def gradient(self, net: Network) -> tuple[np.ndarray, np.ndarray]:
        d1, d2 = _deltas(net, self.anchor)
        return self.m1 @ d1 @ self.c, d2 @ self.s2


@dataclass(frozen=True)
class DiagonalFisherPenalty:
    """The diagonal Fisher regularizer (module docstring) with its coefficients scaled:
    ``f1`` = (lam_1/Z_1) F1 (Nh x Nx), ``f2`` = (lam_2/Z_2) <phi^2> (Nh, the same for every
    output)."""

    anchor: Network
    f1: np.ndarray
    f2: np.ndarray
    normalisers: tuple[float, float]

    def value(self, net: Network) -> float:
        d1, d2 = _deltas(net, self.anchor)
        return 0.5 * (float(np.sum(self.f1 * d1 * d1)) + float(np.sum(self.f2 * d2 * d2)))

    def gradient(self, net: Network) -> tuple[np.ndarray, np.ndarray]:
        d1, d2 = _deltas(net, self.anchor)
        d1 *= self.f1
        d2 *= self.f2
        return d1, d2


def euclidean_penalty(anchor: Network, lam1: float, lam2: float) -> EuclideanPenalty:
    """The Euclidean regularizer around ``anchor`` (copied)."""
    return EuclideanPenalty(anchor.copy(), check_nonnegative("lam1", lam1),
                            check_nonnegative("lam2", lam2))


def anchor_statistics(anchor: Network, x: np.ndarray, *, chunk: int = 10000
                      ) -> dict[str, np.ndarray]:
    """Means over the rows of ``x`` at the anchor: ``xx`` = <x x^T>, ``phiphi`` =
    <phi phi^T>, ``gates`` = <phi' phi'^T>, ``gate_x2`` = <phi'_i x_j^2>, accumulated in
    float64 over chunks of rows.

    Examples
    --------
    >>> net = Network.from_parts(np.eye(2), np.zeros(2), np.ones((1, 2)), np.zeros(1))
    >>> stats = anchor_statistics(net, np.array([[1.0, -1.0], [2.0, 0.0]]))
    >>> stats["gates"].tolist(), stats["phiphi"].tolist()
    ([[1.0, 0.0], [0.0, 0.0]], [[2.5, 0.0], [0.0, 0.0]])
    """
    nx, nh, _ = anchor.sizes
    sums = {"xx": np.zeros((nx, nx)), "phiphi": np.zeros((nh, nh)),
            "gates": np.zeros((nh, nh)), "gate_x2": np.zeros((nh, nx))}
    for start in range(0, len(x), chunk):
        rows = x[start:start + chunk]
        phi, _ = forward(anchor, rows)
        active = (phi > 0).astype(rows.dtype)
        sums["xx"] += rows.T @ rows
        sums["phiphi"] += phi.T @ phi
        sums["gates"] += active.T @ active
        sums["gate_x2"] += active.T @ (rows * rows)
    return {name: total / len(x) for name, total in sums.items()}


def layerwise_fisher_penalty(anchor: Network, x: np.ndarray, lam1: float, lam2: float
                             ) -> LayerwiseFisherPenalty:
    """The layer-wise Fisher regularizer around ``anchor``, its metric from the inputs ``x``
    of the previous task (module docstring).

    Examples
    --------
    >>> from tasksim.solvers.pmnist.network import init_network
    >>> rng = np.random.default_rng(0)
    >>> anchor = init_network(rng, nx=5, nh=6, ny=3, dtype=np.float64)
    >>> p = layerwise_fisher_penalty(anchor, rng.random((40, 5)), 2.0, 3.0)
    >>> z1, z2 = p.normalisers
    >>> round(float(np.linalg.norm(p.s2, 2)), 12)       # lam_2 S / ||S||_2 has norm lam_2
    3.0
    """
    lam1, lam2 = check_nonnegative("lam1", lam1), check_nonnegative("lam2", lam2)
    stats = anchor_statistics(anchor, x)
    w2 = anchor.W2.astype(np.float64)
    m = (w2.T @ w2) * stats["gates"]
    z1 = float(np.linalg.norm(w2 @ w2.T, 2) * np.linalg.norm(stats["xx"], 2))
    z2 = float(np.linalg.norm(stats["phiphi"], 2))
    dtype = anchor.W1.dtype
    return LayerwiseFisherPenalty(anchor.copy(), (_scale(lam1, z1) * m).astype(dtype),
                                  stats["xx"].astype(dtype),
                                  (_scale(lam2, z2) * stats["phiphi"]).astype(dtype), (z1, z2))


def diagonal_fisher_penalty(anchor: Network, x: np.ndarray, lam1: float, lam2: float
                            ) -> DiagonalFisherPenalty:
    """The diagonal Fisher regularizer around ``anchor``, its coefficients from the inputs
    ``x`` of the previous task (module docstring).

    Examples
    --------
    >>> from tasksim.solvers.pmnist.network import init_network
    >>> rng = np.random.default_rng(0)
    >>> anchor = init_network(rng, nx=5, nh=6, ny=3, dtype=np.float64)
    >>> p = diagonal_fisher_penalty(anchor, rng.random((40, 5)), 2.0, 3.0)
    >>> float(p.f1.max()), float(p.f2.max())           # lam / Z: the largest coefficient is lam
    (2.0, 3.0)
    """
    lam1, lam2 = check_nonnegative("lam1", lam1), check_nonnegative("lam2", lam2)
    stats = anchor_statistics(anchor, x)
    w2 = anchor.W2.astype(np.float64)
    f1 = np.sum(w2 * w2, axis=0)[:, None] * stats["gate_x2"]
    f2 = np.diag(stats["phiphi"]).copy()
    z1, z2 = float(f1.max(initial=0.0)), float(f2.max(initial=0.0))
    dtype = anchor.W1.dtype
    return DiagonalFisherPenalty(anchor.copy(), (_scale(lam1, z1) * f1).astype(dtype),
                                 (_scale(lam2, z2) * f2).astype(dtype), (z1, z2))


def hessian_regularizer(net: Network, anchor: Network, x: np.ndarray, y: np.ndarray) -> float:
    """The paper's R of Appendix E.2 as printed (its trace form), averaged over the rows of
    (``x``, ``y``) at the anchor, for the deviation dW = W(net) - W(anchor):

    <||dW_2 phi||^2 + 2 tr[dW_2^T W_2 nabla phi dW_1 x phi^T]
     + 2 tr[dW_2 nabla phi dW_1 x dy^T] + ||W_2 nabla phi dW_1 x||^2>,

    dy = y(anchor) - y*. It equals dw^T H dw, H the Hessian of (1/2) ||y - y*||^2 at the anchor
    (ReLU: phi'' = 0), so it is twice the second-order term that R_lw (line 1401) and
    :class:`LayerwiseFisherPenalty` approximate (:mod:`tasksim.derivations.pmnist_fisher`).
    Not a training penalty (it needs a pass over the data per evaluation): the reference
    the layer-wise and diagonal approximations drop terms from.

    Examples
    --------
    >>> from tasksim.solvers.pmnist.network import init_network
    >>> rng = np.random.default_rng(0)
    >>> anchor = init_network(rng, nx=4, nh=5, ny=2, dtype=np.float64)
    >>> hessian_regularizer(anchor, anchor, rng.random((6, 4)), rng.random((6, 2)))
    0.0
    """
    d1, d2 = _deltas(net, anchor)
    phi, out = forward(anchor, x)
    gate = (phi > 0).astype(phi.dtype)
    moved = gate * (x @ d1.T)                   # nabla phi dW_1 x, per row
    first_layer = moved @ anchor.W2.T           # W_2 nabla phi dW_1 x
    second_layer = phi @ d2.T                   # dW_2 phi
    residual = out - y                          # dy
    per_row = (np.sum(second_layer ** 2, axis=1) + 2 * np.sum(second_layer * first_layer, axis=1)
               + 2 * np.sum(moved * (residual @ d2), axis=1) + np.sum(first_layer ** 2, axis=1))
    return float(np.mean(per_row))
