"""Compiled loops (numba) of the Gram path, one sample at a time, where numpy's stacked calls
spend more on passes over memory than on arithmetic: the fast path of the finite-size probe
at Ns of tens. numba is imported on first use; :data:`AVAILABLE` says whether it can be
(the callers fall back to numpy, which gives the same numbers to rounding).

1. :func:`class_factors` -- the factors F R^T of the gate classes' Grams
   (:func:`tasksim.solvers.gram.sample_gram_seeded`) straight from the drawn normals and
   chi-squares of the Bartlett factors R: one pass, where numpy fills R^T (a scatter) and
   then scales and adds its row blocks.
2. :func:`factor_transfer_retention` -- vanilla transfer and retention from the Gram's
   triangular factor. At Ns = 30 the work of a sample is a few hundred thousand
   floating-point operations on 30 x 30 blocks; numpy runs it as a dozen stacked calls
   (products, a Cholesky, a triangular inverse), here every step of one sample runs on blocks
   that stay in the first-level cache. With G = L L^T, L = [[L_11, 0], [L_21, L_22]] lower
   triangular (:func:`tasksim.solvers.gram.sample_gram_factor_seeded`):

       M = G_11^{-1} G_12 = L_11^{-T} L_21^T                 (one back substitution)
       G_22 = L_21 L_21^T + L_22 L_22^T = C C^T              (Cholesky)
       N = G_22^{-1} G_21 = C^{-T} C^{-1} L_21 L_11^T        (two substitutions)

   and the errors of :func:`tasksim.solvers.two_task_batch.transfer_retention_from_maps` with
   H = I. A sample whose L_11 or G_22 is numerically singular is flagged, and the caller
   solves it by the reference route (the pseudo-inverse of
   :mod:`tasksim.solvers.two_task_batch`).
3. :func:`pair_transfer_retention` -- the same errors from Grams of two blocks (vanilla,
   random gating: M = G_11^{-1} G_12, N = G_22^{-1} G_21), each K = G_11, G_22 by its
   Cholesky factor C and K^{-1} = C^{-T} C^{-1}; with a condition threshold (random gating,
   whose gated blocks may be rank deficient) a sample is flagged unless the reciprocal
   1-norm condition number 1 / (||K||_1 ||K^{-1}||_1) of both exceeds it, as
   :func:`tasksim.solvers.batched_linalg.spd_inverse` decides, and the caller takes the
   pseudo-inverse route for it.
4. :func:`plastic_transfer_retention` -- plasticity gating from the draws of its three gate
   classes (:func:`tasksim.solvers.gram.draw_plastic_seeded`): their factors, the four
   blocks P_mu^T A_nu it needs (not the 4 Ns x 4 Ns Gram of A_1, A_2, D_1 A_1, D_2 A_2), and
   the solve of 3, per sample in the cache.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["AVAILABLE", "class_factors", "factor_transfer_retention", "pair_transfer_retention",
           "draws_transfer_retention", "plastic_transfer_retention"]

try:  # an optional accelerator: the numpy route gives the same numbers, slower
    import numba
except ImportError:  # pragma: no cover - exercised where numba is missing
    numba = None

AVAILABLE = numba is not None
_KERNELS: dict[str, Any] = {}


def _call(source: Any, *args: Any) -> None:
    """Run the compiled ``source`` (compiled on first use, cached on disk beside this file).
    A cache that cannot be loaded (written by this file imported under another module name,
    e.g. by ``pytest --doctest-modules solvers``) is set aside: compiled afresh, not cached."""
    name = source.__name__
    if name not in _KERNELS:
        _KERNELS[name] = numba.njit(cache=True, fastmath=True, nogil=True)(source)
        try:
            return _KERNELS[name](*args)
        except Exception:  # noqa: BLE001 - an unloadable cache entry; compile without it
            _KERNELS[name] = numba.njit(cache=False, fastmath=True, nogil=True)(source)
    return _KERNELS[name](*args)


def _factor_into(normals: np.ndarray, chi: np.ndarray, dof: int, coef: np.ndarray, ns: int,
                 t: int, scale: float, R: np.ndarray, L: np.ndarray
                 ) -> None:  # pragma: no cover - compiled
    """L = F R^T of one class from its draws (:func:`class_factors`); R is scratch."""
    n = coef.shape[0]
    p = n * ns
    if t >= 0:  # an Ns-dimensional factor, scale R^T, in diagonal block t
        for r in range(p):
            for col in range(p):
                L[r, col] = 0.0
        k = 0
        for r in range(ns):
            alive = r < dof
            L[t * ns + r, t * ns + r] = scale * np.sqrt(chi[r]) if alive else 0.0
            for q in range(r + 1, ns):
                L[t * ns + q, t * ns + r] = scale * normals[k] if alive else 0.0
                k += 1
        return
    # R: the strict upper triangle row by row, sqrt(chi) on the diagonal, rows at or beyond
    # the class count zero
    k = 0
    for r in range(p):
        alive = r < dof
        R[r, r] = np.sqrt(chi[r]) if alive else 0.0
        for q in range(r + 1, p):
            R[r, q] = normals[k] if alive else 0.0
            k += 1
    # L = F R^T, F = coef kron I_Ns (coef lower triangular, 1/sqrt(Ns) included):
    # row (i, a), column (t, b): sum over u in [t, i] of coef[i, u] R[(t, b), (u, a)]
    for i in range(n):
        for a in range(ns):
            row = i * ns + a
            for col in range(p):
                L[row, col] = 0.0
            for u in range(i + 1):
                f = coef[i, u]
                if f == 0.0:
                    continue
                for col in range(u * ns + a + 1):
                    L[row, col] += f * R[col, u * ns + a]


if AVAILABLE:  # called from the kernels below: compiled with them (lazily, on first use)
    _factor_into = numba.njit(cache=True, fastmath=True, nogil=True)(_factor_into)


def _fill_source(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray, coef: np.ndarray,
                 ns: int, single: np.ndarray, scale: np.ndarray,
                 out: np.ndarray) -> None:  # pragma: no cover - compiled
    p = coef.shape[0] * ns
    R = np.zeros((p, p))
    for s in range(normals.shape[0]):
        for c in range(normals.shape[1]):
            _factor_into(normals[s, c], chi[s, c], dofs[s, c], coef, ns, single[c], scale[c],
                         R, out[s, c])


def class_factors(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray, coef: np.ndarray,
                  ns: int, single: Optional[np.ndarray] = None,
                  scale: Optional[np.ndarray] = None) -> np.ndarray:
    """F R^T for every sample and class: ``normals`` (S, C, p(p - 1)/2) the strict upper
    triangles of the Bartlett factors R row by row, ``chi`` (S, C, p) their squared
    diagonals, ``dofs`` (S, C) the class counts (rows at or beyond them are zero), ``coef``
    the n x n lower-triangular chain of F = coef kron I_Ns (1/sqrt(Ns) included); p = n Ns.
    A class with ``single`` [c] = t >= 0 has an Ns-dimensional R (the first Ns (Ns - 1)/2
    normals, Ns chi-squares): its factor is ``scale`` [c] R^T in diagonal block t, zero
    elsewhere. Returns (S, C, p, p), lower triangular. Needs numba (:data:`AVAILABLE`).

    Examples
    --------
    >>> R = np.array([[2.0, 1.0], [0.0, 3.0]])        # p = 2: one normal, two chi-squares
    >>> L = class_factors(np.array([[[1.0]]]), np.array([[[4.0, 9.0]]]), np.array([[5]]),
    ...                   np.array([[1.0, 0.0], [0.5, 1.0]]), 1)
    >>> bool(np.allclose(L[0, 0], np.array([[1.0, 0.0], [0.5, 1.0]]) @ R.T))
    True
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    S, C = normals.shape[:2]
    p = coef.shape[0] * int(ns)
    out = np.empty((S, C, p, p))
    single = np.full(C, -1, dtype=np.int64) if single is None else single
    scale = np.zeros(C) if scale is None else scale
    _call(_fill_source, np.ascontiguousarray(normals, dtype=float),
          np.ascontiguousarray(chi, dtype=float), np.ascontiguousarray(dofs, dtype=np.int64),
          np.ascontiguousarray(coef, dtype=float), int(ns),
          np.ascontiguousarray(single, dtype=np.int64), np.ascontiguousarray(scale, dtype=float),
          out)
    return out


def _spd_inverse_into(K: np.ndarray, C: np.ndarray, out: np.ndarray, rcond_min: float
                     ) -> bool:  # pragma: no cover - compiled
    """K^{-1} into ``out`` through the Cholesky factor C (scratch); False when K is not
    numerically positive definite or its reciprocal 1-norm condition is at most rcond_min."""
    n = K.shape[0]
    for j in range(n):
        d = K[j, j]
        for k in range(j):
            d -= C[j, k] * C[j, k]
        if not d > 0.0:
            return False
        d = np.sqrt(d)
        C[j, j] = d
        for i in range(j + 1, n):
            acc = K[i, j]
            for k in range(j):
                acc -= C[i, k] * C[j, k]
            C[i, j] = acc / d
        for i in range(j):
            C[i, j] = 0.0
    # C^{-1} in place (lower triangular), column by column
    for j in range(n):
        C[j, j] = 1.0 / C[j, j]
        for i in range(j + 1, n):
            acc = 0.0
            for k in range(j, i):
                acc -= C[i, k] * C[k, j]
            C[i, j] = acc / C[i, i]
    # K^{-1} = C^{-T} C^{-1}
    for i in range(n):
        for j in range(i + 1):
            acc = 0.0
            for k in range(i, n):
                acc += C[k, i] * C[k, j]
            out[i, j] = acc
            out[j, i] = acc
    if rcond_min > 0.0:
        norm = 0.0
        norm_inv = 0.0
        for j in range(n):
            a = 0.0
            b = 0.0
            for i in range(n):
                a += abs(K[i, j])
                b += abs(out[i, j])
            norm = max(norm, a)
            norm_inv = max(norm_inv, b)
        if not (np.isfinite(norm_inv) and 1.0 / (norm * norm_inv) > rcond_min):
            return False
    return True


if AVAILABLE:  # called from the kernels below: compiled with them (lazily, on first use)
    _spd_inverse_into = numba.njit(cache=True, fastmath=True, nogil=True)(_spd_inverse_into)


def _pair_one(A: np.ndarray, ns: int, rho_b: float, rcond_min: float, K: np.ndarray,
              C: np.ndarray, inverse: np.ndarray, M: np.ndarray, N: np.ndarray, P: np.ndarray,
              out: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Transfer and retention into out[0], out[1] from one Gram A (2 Ns, 2 Ns) of two blocks
    (module docstring, 3); K, C, inverse, M, N, P scratch (Ns, Ns). False: not solved."""
    for side in range(2):
        a0 = side * ns          # the system's block
        b0 = (1 - side) * ns    # the right-hand side's columns
        for i in range(ns):
            for j in range(ns):
                K[i, j] = 0.5 * (A[a0 + i, a0 + j] + A[a0 + j, a0 + i])
        if not _spd_inverse_into(K, C, inverse, rcond_min):
            return False
        X = M if side == 0 else N
        for i in range(ns):
            for c in range(ns):
                X[i, c] = 0.0
            for k in range(ns):
                f = inverse[i, k]
                for c in range(ns):
                    X[i, c] += f * A[a0 + k, b0 + c]
    for i in range(ns):
        for c in range(ns):
            P[i, c] = 0.0
        for k in range(ns):
            f = M[i, k]
            for c in range(ns):
                P[i, c] += f * N[k, c]
    trace = 0.0
    mm = 0.0
    pp = 0.0
    nn = 0.0
    pn = 0.0
    for i in range(ns):
        trace += M[i, i]
        for c in range(ns):
            mm += M[i, c] * M[i, c]
            pp += P[i, c] * P[i, c]
            nn += N[i, c] * N[i, c]
            pn += P[i, c] * N[i, c]
    if not (np.isfinite(mm) and np.isfinite(pp) and np.isfinite(nn) and np.isfinite(pn)):
        return False
    out[0] = (2.0 * rho_b * trace - mm) / ns
    out[1] = 1.0 - (pp + nn - 2.0 * rho_b * pn) / ns
    return True


if AVAILABLE:  # called from the kernels below: compiled with them (lazily, on first use)
    _pair_one = numba.njit(cache=True, fastmath=True, nogil=True)(_pair_one)


def _pair_source(G: np.ndarray, ns: int, rho_b: float, rcond_min: float, transfer: np.ndarray,
                 retention: np.ndarray, ok: np.ndarray) -> None:  # pragma: no cover - compiled
    K = np.empty((ns, ns))
    C = np.empty((ns, ns))
    inverse = np.empty((ns, ns))
    M = np.empty((ns, ns))
    N = np.empty((ns, ns))
    P = np.empty((ns, ns))
    out = np.empty(2)
    for s in range(G.shape[0]):
        ok[s] = _pair_one(G[s], ns, rho_b, rcond_min, K, C, inverse, M, N, P, out)
        transfer[s], retention[s] = out[0], out[1]


def _plastic_cross_into(L: np.ndarray, ns: int, X: np.ndarray) -> None:  # pragma: no cover
    """Plasticity gating's blocks X = [[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]] from the
    lower-triangular factors L (3, 2 Ns, 2 Ns) of the classes (0, 1), (1, 0), (1, 1)
    (:func:`tasksim.solvers.gram.plastic_cross_grams`), only the products the blocks need:
    row by row dot products over the nonzero columns of the triangular blocks."""
    for i in range(ns):
        for j in range(i + 1):
            # P_1^T A_1 = W_11(1, 0) + W_11(1, 1); P_2^T A_2 = W_11(0, 1) + W_22(1, 1)
            k1 = 0.0
            k2 = 0.0
            for k in range(j + 1):
                k1 += L[1, i, k] * L[1, j, k] + L[2, i, k] * L[2, j, k]
                k2 += L[0, i, k] * L[0, j, k] + L[2, ns + i, ns + k] * L[2, ns + j, ns + k]
            for k in range(ns):
                k2 += L[2, ns + i, k] * L[2, ns + j, k]
            X[i, j] = k1
            X[j, i] = k1
            X[ns + i, ns + j] = k2
            X[ns + j, ns + i] = k2
    for i in range(ns):
        for c in range(ns):
            # W_12 = L_11 L_21^T (row i of L_11 is zero beyond column i): class (0, 1)'s is
            # P_2^T A_1 (tasks swapped)
            r2 = 0.0
            for k in range(i + 1):
                r2 += L[0, i, k] * L[0, ns + c, k]
            X[ns + i, c] = r2
    for i in range(ns):
        for c in range(ns):
            # classes (1, 0) and (1, 1) add W_12 to P_1^T A_1; (1, 1) adds W_21 = W_12^T to
            # P_2^T A_1
            r1 = 0.0
            both = 0.0
            for k in range(i + 1):
                r1 += L[1, i, k] * L[1, ns + c, k]
                both += L[2, i, k] * L[2, ns + c, k]
            X[i, ns + c] = r1 + both
            X[ns + c, i] += both


if AVAILABLE:  # called from the kernels below: compiled with them (lazily, on first use)
    _plastic_cross_into = numba.njit(cache=True, fastmath=True, nogil=True)(_plastic_cross_into)


def _plastic_source(normals: np.ndarray, chi: np.ndarray, alive: np.ndarray, coef: np.ndarray,
                    ns: int, rho_b: float, rcond_min: float, transfer: np.ndarray,
                    retention: np.ndarray, ok: np.ndarray) -> None:  # pragma: no cover
    p = 2 * ns
    R = np.zeros((p, p))
    L = np.empty((3, p, p))
    X = np.empty((p, p))
    K = np.empty((ns, ns))
    C = np.empty((ns, ns))
    inverse = np.empty((ns, ns))
    M = np.empty((ns, ns))
    N = np.empty((ns, ns))
    P = np.empty((ns, ns))
    out = np.empty(2)
    for s in range(normals.shape[0]):
        for c in range(3):
            _factor_into(normals[s, c], chi[s, c], alive[s, c], coef, ns, -1, 0.0, R, L[c])
        _plastic_cross_into(L, ns, X)
        ok[s] = _pair_one(X, ns, rho_b, rcond_min, K, C, inverse, M, N, P, out)
        transfer[s], retention[s] = out[0], out[1]


def _vanilla_one(A: np.ndarray, ns: int, rho_b: float, M: np.ndarray, G: np.ndarray,
                 Y: np.ndarray, P: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover
    """Transfer and retention of one sample into out[0], out[1] from its factor A (module
    docstring, 2); M, Y, P scratch of shape (Ns, W), G (Ns, Ns). False: not solved."""
    W = M.shape[1]
    good = True
    # M: L_11^T M = L_21^T, rows of M from the last up
    for j in range(ns - 1, -1, -1):
        d = A[j, j]
        if not d > 0.0:
            good = False
            break
        for c in range(ns):
            M[j, c] = A[ns + c, j]
        for k in range(j + 1, ns):
            f = A[k, j]
            for c in range(W):
                M[j, c] -= f * M[k, c]
        for c in range(W):
            M[j, c] /= d
    if not good:
        return False
    # G_22 = L_21 L_21^T + L_22 L_22^T (lower triangle), then its Cholesky factor in place
    for i in range(ns):
        for j in range(i + 1):
            acc = 0.0
            for k in range(ns):
                acc += A[ns + i, k] * A[ns + j, k]
            for k in range(j + 1):
                acc += A[ns + i, ns + k] * A[ns + j, ns + k]
            G[i, j] = acc
    for j in range(ns):
        d = G[j, j]
        for k in range(j):
            d -= G[j, k] * G[j, k]
        if not d > 0.0:
            good = False
            break
        d = np.sqrt(d)
        G[j, j] = d
        for i in range(j + 1, ns):
            acc = G[i, j]
            for k in range(j):
                acc -= G[i, k] * G[j, k]
            G[i, j] = acc / d
    if not good:
        return False
    # Y = C^{-1} G_21, G_21 = L_21 L_11^T (row i, column j: sum over k <= j)
    for i in range(ns):
        for c in range(ns):
            acc = 0.0
            for k in range(c + 1):
                acc += A[ns + i, k] * A[c, k]
            Y[i, c] = acc
        for k in range(i):
            f = G[i, k]
            for c in range(W):
                Y[i, c] -= f * Y[k, c]
        for c in range(W):
            Y[i, c] /= G[i, i]
    # N = C^{-T} Y, in place in Y, rows from the last up
    for i in range(ns - 1, -1, -1):
        for k in range(i + 1, ns):
            f = G[k, i]
            for c in range(W):
                Y[i, c] -= f * Y[k, c]
        for c in range(W):
            Y[i, c] /= G[i, i]
    # P = M N, and the errors
    for i in range(ns):
        for c in range(W):
            P[i, c] = 0.0
        for k in range(ns):
            f = M[i, k]
            for c in range(W):
                P[i, c] += f * Y[k, c]
    trace = 0.0
    mm = 0.0
    pp = 0.0
    nn = 0.0
    pn = 0.0
    for i in range(ns):
        trace += M[i, i]
        for c in range(W):
            mm += M[i, c] * M[i, c]
            pp += P[i, c] * P[i, c]
            nn += Y[i, c] * Y[i, c]
            pn += P[i, c] * Y[i, c]
    if not (np.isfinite(mm) and np.isfinite(pp) and np.isfinite(nn) and np.isfinite(pn)):
        return False
    out[0] = (2.0 * rho_b * trace - mm) / ns
    out[1] = 1.0 - (pp + nn - 2.0 * rho_b * pn) / ns
    return True


if AVAILABLE:  # called from the kernels below: compiled with them (lazily, on first use)
    _vanilla_one = numba.njit(cache=True, fastmath=True, nogil=True)(_vanilla_one)


def _kernel_source(L: np.ndarray, ns: int, rho_b: float, transfer: np.ndarray,
                   retention: np.ndarray, ok: np.ndarray) -> None:  # pragma: no cover - compiled
    W = (ns + 7) // 8 * 8  # rows padded with zeros to whole vectors of 8: no scalar tails
    M = np.zeros((ns, W))
    G = np.empty((ns, ns))
    Y = np.zeros((ns, W))
    P = np.zeros((ns, W))
    out = np.empty(2)
    for s in range(L.shape[0]):
        ok[s] = _vanilla_one(L[s], ns, rho_b, M, G, Y, P, out)
        transfer[s], retention[s] = out[0], out[1]


def _draws_source(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray, coef: np.ndarray,
                  ns: int, rho_b: float, transfer: np.ndarray, retention: np.ndarray,
                  ok: np.ndarray) -> None:  # pragma: no cover - compiled
    p = 2 * ns
    R = np.zeros((p, p))
    L = np.empty((p, p))
    W = (ns + 7) // 8 * 8
    M = np.zeros((ns, W))
    G = np.empty((ns, ns))
    Y = np.zeros((ns, W))
    P = np.zeros((ns, W))
    out = np.empty(2)
    for s in range(normals.shape[0]):
        _factor_into(normals[s, 0], chi[s, 0], dofs[s, 0], coef, ns, -1, 0.0, R, L)
        ok[s] = _vanilla_one(L, ns, rho_b, M, G, Y, P, out)
        transfer[s], retention[s] = out[0], out[1]


def factor_transfer_retention(L: np.ndarray, ns: int, rho_b: float
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(transfer, retention, ok) of vanilla for factors L (batch, 2 Ns, 2 Ns) (module
    docstring); where not ok the two are meaningless and the caller solves the sample again.
    Needs numba (:data:`AVAILABLE`).

    Examples
    --------
    >>> L = np.eye(4)[None] / np.sqrt(2.0)   # A_1, A_2 orthogonal: no transfer, no forgetting
    >>> tf, rt, ok = factor_transfer_retention(L, 2, 0.5)
    >>> tf.tolist(), rt.tolist(), ok.tolist()
    ([0.0], [1.0], [True])
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    L = np.ascontiguousarray(L, dtype=float)
    transfer = np.empty(L.shape[0])
    retention = np.empty(L.shape[0])
    ok = np.zeros(L.shape[0], dtype=np.bool_)
    _call(_kernel_source, L, int(ns), float(rho_b), transfer, retention, ok)
    return transfer, retention, ok


def pair_transfer_retention(G: np.ndarray, ns: int, rho_b: float, rcond_min: float = 0.0
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(transfer, retention, ok) from Grams G (batch, 2 Ns, 2 Ns) of two blocks (module
    docstring, 3); where not ok the two are meaningless and the caller solves the sample
    again. ``rcond_min`` > 0 demands that condition of both systems. Needs numba.

    Examples
    --------
    >>> G = np.eye(4)[None] / 2.0          # orthogonal blocks: no transfer, no forgetting
    >>> tf, rt, ok = pair_transfer_retention(G, 2, 0.5, 1e-6)
    >>> tf.tolist(), rt.tolist(), ok.tolist()
    ([0.0], [1.0], [True])
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    G = np.ascontiguousarray(G, dtype=float)
    transfer = np.empty(G.shape[0])
    retention = np.empty(G.shape[0])
    ok = np.zeros(G.shape[0], dtype=np.bool_)
    _call(_pair_source, G, int(ns), float(rho_b), float(rcond_min), transfer, retention, ok)
    return transfer, retention, ok


def draws_transfer_retention(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray,
                             coef: np.ndarray, ns: int, rho_b: float
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`factor_transfer_retention` of vanilla straight from the draws of its one class
    (``normals`` (S, 1, p(p - 1)/2), ``chi`` (S, 1, p), ``dofs`` (S, 1), ``coef`` the 2 x 2
    chain with 1/sqrt(Ns), as :func:`class_factors` takes them): each sample's factor is
    built and solved in the cache, never stored. Needs numba.

    Examples
    --------
    >>> normals, chi = np.zeros((1, 1, 6)), np.full((1, 1, 4), 2.0)   # R = sqrt(2) I
    >>> tf, rt, ok = draws_transfer_retention(normals, chi, np.array([[10]]), np.eye(2), 2, 0.5)
    >>> tf.tolist(), rt.tolist(), ok.tolist()      # A_1, A_2 orthogonal
    ([0.0], [1.0], [True])
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    S = normals.shape[0]
    transfer, retention = np.empty(S), np.empty(S)
    ok = np.zeros(S, dtype=np.bool_)
    _call(_draws_source, np.ascontiguousarray(normals, dtype=float),
          np.ascontiguousarray(chi, dtype=float), np.ascontiguousarray(dofs, dtype=np.int64),
          np.ascontiguousarray(coef, dtype=float), int(ns), float(rho_b), transfer, retention,
          ok)
    return transfer, retention, ok


def plastic_transfer_retention(normals: np.ndarray, chi: np.ndarray, alive: np.ndarray,
                               coef: np.ndarray, ns: int, rho_b: float, rcond_min: float
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(transfer, retention, ok) of plasticity gating straight from the draws of
    :func:`tasksim.solvers.gram.draw_plastic_seeded` (``normals`` (S, 3, p(p - 1)/2), ``chi``
    (S, 3, p), ``alive`` (S, 3) the rows of R drawn and nonzero,
    :func:`tasksim.solvers.gram.plastic_alive_rows`; ``coef`` the 2 x 2 chain with
    1/sqrt(Ns)): per sample the three class factors, the blocks P_mu^T A_nu that plasticity
    gating needs (module docstring, 4) and the solve of :func:`pair_transfer_retention`
    (M = (P_1^T A_1)^{-1} P_1^T A_2, N = (P_2^T A_2)^{-1} P_2^T A_1, ``rcond_min`` demanded
    of both systems), all in the cache. Where not ok the caller solves the sample again.
    Needs numba.

    Examples
    --------
    >>> normals, chi = np.zeros((1, 3, 6)), np.full((1, 3, 4), 2.0)   # R = sqrt(2) I
    >>> tf, rt, ok = plastic_transfer_retention(normals, chi, np.array([[2, 2, 4]]), np.eye(2),
    ...                                         2, 0.5, 1e-2)
    >>> tf.tolist(), rt.tolist(), ok.tolist()      # A_1, A_2 orthogonal
    ([0.0], [1.0], [True])
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    S = normals.shape[0]
    transfer, retention = np.empty(S), np.empty(S)
    ok = np.zeros(S, dtype=np.bool_)
    _call(_plastic_source, np.ascontiguousarray(normals, dtype=float),
          np.ascontiguousarray(chi, dtype=float), np.ascontiguousarray(alive, dtype=np.int64),
          np.ascontiguousarray(coef, dtype=float), int(ns), float(rho_b), float(rcond_min),
          transfer, retention, ok)
    return transfer, retention, ok
