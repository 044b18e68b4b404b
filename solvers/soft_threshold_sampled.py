"""The paper's literal training protocol for the soft-thresholding model: sampled gradients.

Appendix D (Numerical methods), "Implementation of linear teacher-student models": in the
input soft-thresholding model the gradient is estimated from ``batch_size`` = 10,000 fresh
latent samples at every step, and W (zero at the start) takes 5,000 steps of size eta = 0.01
per task. The gradient is that of the per-sample loss 1/2 ||y* - W phi(x)||^2 averaged over the
batch, G = (W Phi - B S) Phi^T / batch_size, the normalisation of the authors' published code
(no 1/Ny, no factor 2), so that eta has the paper's meaning.

This module is the cross-check of :mod:`tasksim.solvers.soft_threshold`, whose ``"gd"`` method
replaces the sampled gradient by its expectation W C_phiphi - B C_sphi and solves the
iteration in closed form. Because every batch is drawn afresh, independently of W, the sampled
iteration is linear in W with an unbiased step: E[W_T] equals the exact-gradient W_T
exactly, for every T.

Cost: O(Nx Ns batch_size + 2 Ny Nx batch_size) per step; memory O(Nx chunk) (the batch is
processed in column chunks of at most ``max_chunk_entries / Nx`` samples).

Examples
--------
>>> import numpy as np
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=20, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
>>> W = sampled_gradient_descent(np.zeros((2, 20)), t.A[0], t.B[0], h=0.5, n_steps=10,
...                              eta=0.01, batch_size=100, seed=1)
>>> W.shape
(2, 20)
"""
from __future__ import annotations

import numpy as np

from .rng import Seed, as_generator
from .validation import check_positive_int

__all__ = ["sampled_gradient", "sampled_gradient_descent"]


def sampled_gradient(
    W: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    h: float,
    latents: np.ndarray,
    *,
    max_chunk_entries: int = 1 << 20,
) -> np.ndarray:
    """The batch gradient (W Phi - B S) Phi^T / n of 1/2 ||y* - W phi(A s)||^2, S = latents.

    ``latents`` is Ns x n (one column per sample). Processed in column chunks so that no
    Nx x chunk block has more than ``max_chunk_entries`` entries.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.eye(3)[:, :2]; B = np.ones((1, 2)); S = np.array([[1.0, -2.0], [3.0, 0.5]])
    >>> sampled_gradient(np.zeros((1, 3)), A, B, 0.0, S).tolist()  # -(B S) X^T / 2 for h = 0
    [[-3.5, -5.625, 0.0]]
    """
    n = latents.shape[1]
    nx = A.shape[0]
    chunk = max(1, int(max_chunk_entries) // max(nx, 1))
    grad = np.zeros_like(W)
    samples = latents.T  # one sample per row: (samples x Ns) @ A^T is the fast BLAS layout
    for c0 in range(0, n, chunk):
        Z = samples[c0:c0 + chunk]
        features = Z @ A.T  # chunk x Nx inputs, thresholded in place below
        features -= np.clip(features, -h, h)  # soft threshold: x - clip(x, -h, h)
        residual = features @ W.T - Z @ B.T  # chunk x Ny: W phi - y*
        grad += residual.T @ features
    grad /= n
    return grad


def sampled_gradient_descent(
    W0: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    h: float,
    *,
    n_steps: int,
    eta: float,
    batch_size: int,
    seed: Seed = None,
    max_chunk_entries: int = 1 << 20,
) -> np.ndarray:
    """``n_steps`` steps W <- W - eta G from ``W0``, each with ``batch_size`` fresh latents.

    Returns the final weights (a new array). Randomness only through ``seed``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.eye(3)[:, :2]; B = np.ones((1, 2))
    >>> W = sampled_gradient_descent(np.zeros((1, 3)), A, B, 0.0, n_steps=200, eta=0.1,
    ...                              batch_size=500, seed=0)
    >>> bool(np.allclose(W, [[1.0, 1.0, 0.0]], atol=0.05))
    True
    """
    n_steps = check_positive_int("n_steps", n_steps)
    batch_size = check_positive_int("batch_size", batch_size)
    rng = as_generator(seed)
    ns = A.shape[1]
    W = np.array(W0, dtype=float, copy=True)
    for _ in range(n_steps):
        latents = rng.standard_normal((ns, batch_size))
        W -= eta * sampled_gradient(W, A, B, h, latents, max_chunk_entries=max_chunk_entries)
    return W
