"""Inverses of many small symmetric positive definite matrices at once, by stacked products.

LAPACK factors and solves one small matrix per call: at Ns = 30 a Cholesky solve with Ns
right-hand sides runs at a few GFLOP/s, and a Python loop over the batch adds its own cost
per matrix. Here every step is one call on the whole stack (batch, n, n):

1. the Cholesky factors, K = L L^T (``numpy.linalg.cholesky``, batched; a batch with a
   matrix that is not numerically positive definite is factored matrix by matrix instead, and
   that matrix is reported, not factored);
2. L^{-1} by block doubling (:func:`lower_inverse`): the inverses of the diagonal blocks of
   size b give those of size 2b through [[A, 0], [C, D]]^{-1} = [[A^-1, 0], [-D^-1 C A^-1,
   D^-1]], log2(n) rounds of stacked products;
3. K^{-1} = L^{-T} L^{-1}, one stacked product.

The caller then multiplies by its right-hand sides (one product, as fast as a matrix product
gets on stacks of small matrices). With K^{-1} at hand the 1-norm condition number is exact,
||K||_1 ||K^{-1}||_1, where LAPACK's pocon estimates it.

Rounding: forming the inverse costs one factor of the condition number in the error of
K^{-1} R, as a solve does; the callers use it on Grams of tall random blocks (condition
numbers of order ten) and keep their pseudo-inverse for the ill-conditioned ones.

Examples
--------
>>> K = np.array([[[4.0, 2.0], [2.0, 3.0]], [[1.0, 0.0], [0.0, 2.0]]])
>>> inverse, ok = spd_inverse(K)
>>> bool(np.allclose(inverse @ K, np.eye(2))), ok.tolist()
(True, [True, True])
"""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["lower_inverse", "spd_inverse", "cholesky_factors"]

_SMALL = 1
"""Blocks up to this size are multiplied by broadcasting (numpy's matmul calls the BLAS once
per matrix of a stack: for 1 x 1 .. 4 x 4 blocks the calls cost more than the arithmetic)."""


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape[-1] <= _SMALL:
        return np.einsum("...ij,...jk->...ik", a, b)
    return a @ b


def lower_inverse(L: np.ndarray) -> np.ndarray:
    """The inverses of a stack (..., n, n) of lower-triangular matrices with nonzero diagonals,
    by block doubling (module docstring); n is padded to a power of two with the identity.
    The inverses of the diagonal blocks of one size are kept as one contiguous stack, and the
    coupling blocks of L are read through a diagonal view (no gathering copies).

    Examples
    --------
    >>> L = np.array([[[2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [3.0, -1.0, 4.0]]])
    >>> bool(np.allclose(lower_inverse(L) @ L, np.eye(3)))
    True
    """
    L = np.asarray(L, dtype=float)
    n = L.shape[-1]
    batch = L.shape[:-2]
    m = 1 << max(0, (n - 1).bit_length())
    flat = L.reshape(-1, n, n)
    S = flat.shape[0]
    if m != n:
        padded = np.zeros((S, m, m))
        padded[:, :n, :n] = flat
        steps = np.arange(n, m)
        padded[:, steps, steps] = 1.0
    else:
        padded = np.ascontiguousarray(flat)
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero diagonal: not finite
        blocks = (1.0 / np.diagonal(padded, axis1=1, axis2=2)).reshape(S, m, 1, 1)
    b = 1
    while b < m:
        q = m // (2 * b)  # pairs of b-blocks along the diagonal
        pairs = np.diagonal(padded.reshape(S, q, 2 * b, q, 2 * b), axis1=1, axis2=3)
        C = np.moveaxis(pairs, -1, 1)[:, :, b:, :b]  # (S, q, b, b) coupling blocks, a view
        A_inv, D_inv = blocks[:, 0::2], blocks[:, 1::2]
        joined = np.zeros((S, q, 2 * b, 2 * b))
        joined[:, :, :b, :b] = A_inv
        joined[:, :, b:, b:] = D_inv
        joined[:, :, b:, :b] = -_matmul(D_inv, _matmul(C, A_inv))
        blocks = joined
        b *= 2
    return blocks[:, 0, :n, :n].reshape(*batch, n, n)


def cholesky_factors(K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, ok) for a stack (S, n, n) of symmetric matrices: L L^T = K[j] where ok[j]; where
    not (K[j] numerically not positive definite), L[j] is the identity."""
    try:
        return np.linalg.cholesky(K), np.ones(K.shape[0], dtype=bool)
    except np.linalg.LinAlgError:
        pass
    L = np.broadcast_to(np.eye(K.shape[-1]), K.shape).copy()
    ok = np.zeros(K.shape[0], dtype=bool)
    for j in range(K.shape[0]):  # rare: a rank-deficient gated block
        try:
            L[j] = np.linalg.cholesky(K[j])
            ok[j] = True
        except np.linalg.LinAlgError:
            pass
    return L, ok


def spd_inverse(K: np.ndarray, rcond_min: Optional[float] = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """(K^{-1}, ok) for a stack (S, n, n) of symmetric positive semi-definite matrices (module
    docstring): ok[j] when K[j] is numerically positive definite and, with ``rcond_min``, its
    reciprocal 1-norm condition number exceeds it; K^{-1}[j] is meaningless where not ok.

    Examples
    --------
    >>> K = np.array([np.diag([1.0, 1e-9]), np.diag([1.0, 0.5])])
    >>> spd_inverse(K, rcond_min=1e-6)[1].tolist()
    [False, True]
    """
    K = np.asarray(K, dtype=float)
    L, ok = cholesky_factors(K)
    L_inv = lower_inverse(L)
    inverse = np.swapaxes(L_inv, -1, -2) @ L_inv
    finite = np.isfinite(inverse).all(axis=(-2, -1))
    ok &= finite
    if rcond_min is not None:
        norm = np.abs(K).sum(axis=-2).max(axis=-1)
        norm_inv = np.where(finite[:, None], np.abs(np.where(finite[:, None, None], inverse, 0.0))
                            .sum(axis=-2), np.inf).max(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rcond = 1.0 / (norm * norm_inv)
        ok &= rcond > rcond_min
    return inverse, ok
