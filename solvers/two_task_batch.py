"""Transfer and retention of two tasks from a batch of Gram matrices, in closed form.

For the models whose fixed points depend on the tasks only through the Gram matrix of their
feature blocks (:data:`GRAM_MODELS`), both errors after learning reduce to three Ns x Ns maps,
computed for a whole batch with batched linear algebra:

    B_2 - W_1 F_2 = B_2 - B_1 M,                       (task 2 after task 1)
    B_1 - W_2 F_1 = B_1 (I - H + M N) - B_2 N,          (task 1 after task 2)

with F_mu the input the network sees on task mu. Averaged exactly over the readouts
(E[B_mu^T B_nu] / Ny = rho_b^|mu - nu| I / Ns; eps_mu[W_0] = 1):

    Delta eps_TF = (2 rho_b tr M - ||M||_F^2) / Ns,
    Delta eps_RT = 1 - (||P||_F^2 + ||N||_F^2 - 2 rho_b tr(P^T N)) / Ns,   P = I - H + M N.

Per model, with G_uv = X_u^T X_v the Gram blocks and ^+ the pseudo-inverse of
:func:`tasksim.solvers.fixed_points.psd_pinv` (eigenvalues below EIG_RTOL times the largest
count as zero; for ungated blocks of tall matrices, positive definite with probability one,
a Cholesky solve, stacked: :mod:`tasksim.solvers.batched_linalg`):

``vanilla``, ``random-gating`` (eq_W1_W2_expression; F_mu = A_mu or D_mu A_mu)
    M = G_11^+ G_12, N = G_22^+ G_21, H = G_11^+ G_11 (= I at full rank).
``plasticity-gating`` (Appendix B.2; F_mu = A_mu, plastic P_mu = D_mu A_mu)
    M = (P_1^T A_1)^{-1} P_1^T A_2, N = (P_2^T A_2)^{-1} P_2^T A_1, H = I.
``euclidean`` (eq_main_lmu_wreg, first task regularized)
    M = (G_11 + lam I)^+ G_12, N = (G_22 + lam I)^+ G_21, H = (G_11 + lam I)^+ G_11.
``fisher`` (eq_ap_defQ_wr_fim, first task unregularized)
    M, H as vanilla; N = e_2^T (h Z h)^+ h Z e_1 with Z the Gram of [A_1, A_2] and
    h = diag(sqrt(lam) I, I) (:func:`tasksim.solvers.fixed_points.readout_map`).

These are the fixed points of :mod:`tasksim.solvers.linear_models` written out for two tasks
(the tests check them against :func:`tasksim.solvers.linear_models.solve_features` and
:func:`tasksim.solvers.metrics.error_matrix` sample by sample); the generic solvers stay the
reference, this module is the fast path of the finite-size probe. Vanilla, random and
plasticity gating run, where numba is installed, through the compiled per-sample kernels of
:mod:`tasksim.solvers.gram_kernels` (vanilla from the Gram's triangular factor, never
forming G_11; plasticity gating from the draws of the three gate classes its blocks
P_mu^T A_nu need, :func:`plasticity_transfer_retention_seeded`); a sample a kernel cannot
solve as invertible takes the numpy route here.

Examples
--------
>>> from tasksim.solvers.gram import sample_gram
>>> grams = sample_gram(nx=10**6, ns=3, rho_a=1.0, size=2, seed=0)
>>> tf, rt = gram_transfer_retention("vanilla", grams, ns=3, rho_b=1.0)
>>> np.round(tf, 9).tolist(), np.round(rt, 9).tolist()     # identical tasks: no forgetting
([1.0, 1.0], [1.0, 1.0])
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .batched_linalg import cholesky_factors, lower_inverse, spd_inverse
from .fixed_points import EIG_RTOL
from .gram import (SLICE, GramPlan, draw_bartlett_seeded, draw_plastic_seeded,
                   plastic_alive_rows, plastic_cross_grams, sample_gram_factor_seeded)
from .validation import check_nonnegative, check_positive_int, check_unit_interval

__all__ = ["GRAM_MODELS", "BLOCKS", "psd_pinv_batch", "two_task_maps",
           "transfer_retention_from_maps", "gram_transfer_retention",
           "vanilla_maps_from_factor", "vanilla_factor_transfer_retention",
           "vanilla_transfer_retention_seeded", "plastic_maps",
           "plasticity_transfer_retention_seeded"]

GRAM_MODELS: tuple[str, ...] = ("vanilla", "random-gating", "plasticity-gating", "euclidean",
                                "fisher")
BLOCKS: dict[str, tuple[str, ...]] = {
    "vanilla": ("A1", "A2"),
    "random-gating": ("D1A1", "D2A2"),
    "plasticity-gating": ("A1", "A2", "D1A1", "D2A2"),
    "euclidean": ("A1", "A2"),
    "fisher": ("A1", "A2"),
}
"""The feature blocks of each model's batch of Grams, in order (tasksim.solvers.features names)."""


def psd_pinv_batch(K: np.ndarray, rtol: float = EIG_RTOL) -> np.ndarray:
    """:func:`tasksim.solvers.fixed_points.psd_pinv` for a batch (..., n, n) of symmetric
    positive semi-definite matrices.

    Examples
    --------
    >>> psd_pinv_batch(np.array([np.diag([4.0, 1e-17]), np.diag([2.0, 1.0])]))[:, 1, 1]
    array([0., 1.])
    """
    K = 0.5 * (K + np.swapaxes(K, -1, -2))
    w, V = np.linalg.eigh(K)
    top = w[..., -1:]
    keep = (w > rtol * top) & (top > 0.0)
    inverse = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0)
    return (V * inverse[..., None, :]) @ np.swapaxes(V, -1, -2)


RCOND_CHOLESKY = 1e-6
"""A matrix that may be rank deficient (a gated Gram block, a Fisher metric) is solved by
Cholesky when its reciprocal 1-norm condition number exceeds this, else by the
pseudo-inverse. At this margin the pseudo-inverse would keep every eigenvalue (EIG_RTOL =
1e-10 of the largest, four orders below, more than the factor Ns between the norms), so both
give the inverse, to rounding."""


RCOND_PLASTIC = 1e-2
"""The condition :func:`_plastic_solve` demands before it skips the eigenvalues; the compiled
route flags a sample below it, which then takes that numpy route."""


def _solve_psd(K: np.ndarray, R: np.ndarray, *, full_rank: bool
               ) -> tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(K^+ R, ok, inverse) for a batch of symmetric positive semi-definite K: ok[j] when K[j]
    was solved as invertible (then K^+ K = I); ``inverse`` holds K^+ of the others, in order
    (None when there are none).

    ``full_rank``: every K is positive definite by construction (an ungated Gram block of a
    tall Gaussian block, or one shifted by lam > 0): a Cholesky solve, falling back to the
    pseudo-inverse if a matrix is numerically not positive definite. Otherwise (gated blocks,
    whose rank is the number of open inputs) a Cholesky solve where the condition number
    shows full rank (:data:`RCOND_CHOLESKY`) and the eigenvalue pseudo-inverse, as the
    reference solver has it, for the rest. The Cholesky solves are stacked
    (:func:`tasksim.solvers.batched_linalg.spd_inverse`, then one product with R).
    """
    inverse, ok = spd_inverse(K, None if full_rank else RCOND_CHOLESKY)
    X = inverse @ R
    if ok.all():
        return X, ok, None
    inverse = psd_pinv_batch(K[~ok])
    X[~ok] = inverse @ R[~ok]
    return X, ok, inverse


def _blocks(grams: np.ndarray, ns: int, k: int) -> list[list[np.ndarray]]:
    return [[grams[:, i * ns:(i + 1) * ns, j * ns:(j + 1) * ns] for j in range(k)]
            for i in range(k)]


def two_task_maps(model: str, grams: np.ndarray, *, ns: int, lam: Optional[float] = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, N, H), each (batch, Ns, Ns), of ``model`` (module docstring) from ``grams`` of shape
    (batch, k Ns, k Ns) with blocks ordered as :data:`BLOCKS` [model]. ``lam`` is the
    regularizer amplitude of ``euclidean`` and ``fisher`` (required there).

    Raises ValueError for plasticity gating with fewer than Ns plastic inputs (A^T D A
    singular), as :func:`tasksim.solvers.fixed_points.readout_map` does.
    """
    if model not in GRAM_MODELS:
        raise ValueError(f"model must be one of {', '.join(GRAM_MODELS)}, got {model!r}")
    ns = check_positive_int("ns", ns)
    k = len(BLOCKS[model])
    grams = np.asarray(grams, dtype=float)
    if grams.ndim != 3 or grams.shape[1:] != (k * ns, k * ns):
        raise ValueError(f"grams must have shape (batch, {k * ns}, {k * ns}) for {model}, "
                         f"got {grams.shape}")
    if model in ("euclidean", "fisher"):
        if lam is None:
            raise ValueError(f"{model} needs lam, a number in [0, inf)")
        lam = check_nonnegative("lam", lam)
    G = _blocks(grams, ns, k)
    eye = np.eye(ns)
    if model == "plasticity-gating":
        # blocks A1, A2, D1A1, D2A2: P_mu^T A_nu = (D_mu A_mu)^T A_nu = G[2 + mu][nu]
        return plastic_maps(grams[:, 2 * ns:, :2 * ns], ns=ns)
    shift = lam if model == "euclidean" else 0.0
    full_rank = model != "random-gating"
    K = G[0][0] + shift * eye
    if shift > 0.0:  # one factorization for M = K^{-1} G_12 and H = K^{-1} G_11
        both, _, _ = _solve_psd(K, np.concatenate([G[0][1], G[0][0]], axis=-1),
                                full_rank=True)
        M, H = both[..., :ns], both[..., ns:]
    elif model != "fisher":  # M and N: both systems in one stack
        batch = K.shape[0]
        X, ok, inverse = _solve_psd(np.concatenate([K, G[1][1]]),
                                    np.concatenate([G[0][1], G[1][0]]), full_rank=full_rank)
        M, N = X[:batch], X[batch:]
        return M, N, _projector(eye, M.shape, ok[:batch], inverse, G[0][0])
    else:
        M, ok, inverse = _solve_psd(K, G[0][1], full_rank=full_rank)
        H = _projector(eye, M.shape, ok, inverse, G[0][0])
    if model == "fisher":
        h = np.concatenate([np.full(ns, np.sqrt(lam)), np.ones(ns)])
        Z = grams  # the Gram of [A_1, A_2] (metric block A_1, fit block A_2)
        X, _, _ = _solve_psd(h[:, None] * Z * h[None, :], h[:, None] * Z[:, :, :ns],
                             full_rank=False)
        return M, X[:, ns:, :], H
    N, _, _ = _solve_psd(G[1][1] + shift * eye, G[1][0], full_rank=full_rank)
    return M, N, H


def _projector(eye: np.ndarray, shape: tuple[int, ...], ok: np.ndarray,
               inverse: Optional[np.ndarray], G11: np.ndarray) -> np.ndarray:
    """H = K^+ G_11: the identity where K was solved as invertible, else the projector from
    the pseudo-inverses ``inverse`` (those of the first len(ok) - ok.sum() matrices not ok,
    in order; later rows belong to another system of the same stack)."""
    H = np.broadcast_to(eye, shape)
    if inverse is None or ok.all():
        return H
    H = H.copy()
    H[~ok] = inverse[:int((~ok).sum())] @ G11[~ok]
    return H


def plastic_maps(cross: np.ndarray, *, ns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, N, H) of ``plasticity-gating`` from its blocks ``cross`` (batch, 2 Ns, 2 Ns) =
    [[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]] (the lower-left quadrant of its Gram,
    or :func:`tasksim.solvers.gram.plastic_cross_grams`): M = (P_1^T A_1)^{-1} P_1^T A_2,
    N = (P_2^T A_2)^{-1} P_2^T A_1, H = I (Appendix B.2).

    Examples
    --------
    >>> maps = plastic_maps(np.eye(4)[None], ns=2)    # A_1, A_2 orthogonal
    >>> [float(np.abs(m).max()) for m in maps]
    [0.0, 0.0, 1.0]
    """
    G = _blocks(np.asarray(cross, dtype=float), ns, 2)
    K1, K2 = G[0][0], G[1][1]
    return (_plastic_solve(K1, G[0][1]), _plastic_solve(K2, G[1][0]),
            np.broadcast_to(np.eye(ns), K1.shape))


def _plastic_solve(K: np.ndarray, R: np.ndarray) -> np.ndarray:
    """K^{-1} R for K = A^T D A of plasticity gating; ValueError when a K is singular (fewer
    than Ns plastic inputs): eigenvalues at or below sqrt(EIG_RTOL) times the largest, as
    :func:`tasksim.solvers.fixed_points.readout_map` decides. A condition estimate above 1e-2
    (a condition number below about 1e3, far from that limit) skips the eigenvalues."""
    inverse, ok = spd_inverse(K, RCOND_PLASTIC)
    X = inverse @ R
    if not ok.all():
        doubtful = 0.5 * (K[~ok] + np.swapaxes(K[~ok], -1, -2))
        eigenvalues = np.linalg.eigvalsh(doubtful)
        if np.any(eigenvalues[:, 0] <= np.sqrt(EIG_RTOL) * eigenvalues[:, -1]):
            raise ValueError("plasticity gating needs A^T D A invertible: fewer than Ns inputs "
                             "are plastic in a sample (alpha * nx must exceed ns)")
        X[~ok] = np.linalg.solve(K[~ok], R[~ok])
    return X


def transfer_retention_from_maps(M: np.ndarray, N: np.ndarray, H: np.ndarray, rho_b: float
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """(Delta eps_TF, Delta eps_RT) per sample, exact over the readouts (module docstring).

    Examples
    --------
    >>> I = np.eye(2)[None]
    >>> transfer_retention_from_maps(I, I, I, rho_b=1.0)   # identical tasks, learned exactly
    (array([1.]), array([1.]))
    """
    rho_b = check_unit_interval("rho_b", rho_b)
    ns = M.shape[-1]
    P = np.eye(ns) - H + M @ N
    transfer = (2.0 * rho_b * np.trace(M, axis1=-2, axis2=-1) - np.sum(M * M, axis=(-2, -1))) / ns
    error = (np.sum(P * P, axis=(-2, -1)) + np.sum(N * N, axis=(-2, -1))
             - 2.0 * rho_b * np.sum(P * N, axis=(-2, -1))) / ns
    return transfer, 1.0 - error


def vanilla_maps_from_factor(L: np.ndarray, *, ns: int
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, N, H) of ``vanilla`` from lower-triangular factors L (batch, 2 Ns, 2 Ns) of its Grams,
    G = L L^T (:func:`tasksim.solvers.gram.sample_gram_factor_seeded`), without forming or
    factoring G_11. With L = [[L_11, 0], [L_21, L_22]]:

        M = G_11^{-1} G_12 = L_11^{-T} L_21^T,
        N = G_22^{-1} G_21,  G_22 = L_21 L_21^T + L_22 L_22^T,  G_21 = L_21 L_11^T,

    G_22 by its Cholesky factor C; L_11^{-1} and C^{-1} in one stack
    (:func:`tasksim.solvers.batched_linalg.lower_inverse`); H = I. A sample whose L_11 or
    G_22 is numerically singular goes through :func:`two_task_maps` on its Gram (the
    pseudo-inverse; then H = G_11^+ G_11, a projector).

    Examples
    --------
    >>> from tasksim.solvers.gram import sample_gram_factor_seeded
    >>> L = sample_gram_factor_seeded(np.random.SeedSequence(0).spawn(2), nx=50, ns=3,
    ...                               rho_a=0.5)
    >>> M, N, _ = vanilla_maps_from_factor(L, ns=3)
    >>> M2, N2, _ = two_task_maps("vanilla", L @ np.swapaxes(L, -1, -2), ns=3)
    >>> bool(np.allclose(M, M2) and np.allclose(N, N2))
    True
    """
    ns = check_positive_int("ns", ns)
    L = np.asarray(L, dtype=float)
    if L.ndim != 3 or L.shape[1:] != (2 * ns, 2 * ns):
        raise ValueError(f"L must have shape (batch, {2 * ns}, {2 * ns}), got {L.shape}")
    batch = L.shape[0]
    L11, L21, L22 = L[:, :ns, :ns], L[:, ns:, :ns], L[:, ns:, ns:]
    G22 = L21 @ np.swapaxes(L21, -1, -2) + L22 @ np.swapaxes(L22, -1, -2)
    C, ok = cholesky_factors(0.5 * (G22 + np.swapaxes(G22, -1, -2)))
    inverse = lower_inverse(np.concatenate([L11, C]))
    L11_inv, C_inv = inverse[:batch], inverse[batch:]
    M = np.swapaxes(L21 @ L11_inv, -1, -2)
    N = np.swapaxes(C_inv, -1, -2) @ (C_inv @ (L21 @ np.swapaxes(L11, -1, -2)))
    ok &= np.isfinite(M).all(axis=(-2, -1)) & np.isfinite(N).all(axis=(-2, -1))
    H = np.broadcast_to(np.eye(ns), M.shape)
    if not ok.all():
        bad = L[~ok]
        H = H.copy()
        M[~ok], N[~ok], H[~ok] = two_task_maps("vanilla", bad @ np.swapaxes(bad, -1, -2), ns=ns)
    return M, N, H


def vanilla_factor_transfer_retention(L: np.ndarray, *, ns: int, rho_b: float
                                      ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gram_transfer_retention` of ``vanilla`` from the factors L of its Grams: by the
    compiled kernel of :mod:`tasksim.solvers.gram_kernels` where numba is installed (a
    sample it flags goes through :func:`vanilla_maps_from_factor`), else by
    :func:`vanilla_maps_from_factor` in slices of :data:`tasksim.solvers.gram.SLICE`."""
    from . import gram_kernels

    ns = check_positive_int("ns", ns)
    rho_b = check_unit_interval("rho_b", rho_b)
    L = np.asarray(L, dtype=float)
    if L.ndim != 3 or L.shape[1:] != (2 * ns, 2 * ns):
        raise ValueError(f"L must have shape (batch, {2 * ns}, {2 * ns}), got {L.shape}")
    if gram_kernels.AVAILABLE:
        transfer, retention, ok = gram_kernels.factor_transfer_retention(L, ns, rho_b)
        if not ok.all():
            transfer[~ok], retention[~ok] = transfer_retention_from_maps(
                *vanilla_maps_from_factor(L[~ok], ns=ns), rho_b)
        return transfer, retention
    parts = [transfer_retention_from_maps(*vanilla_maps_from_factor(L[start:start + SLICE],
                                                                    ns=ns), rho_b)
             for start in range(0, max(1, L.shape[0]), SLICE)]
    return (np.concatenate([tf for tf, _ in parts]), np.concatenate([rt for _, rt in parts]))


def vanilla_transfer_retention_seeded(seeds: Sequence[np.random.SeedSequence], *, nx: int,
                                      ns: int, rho_a: float, rho_b: float
                                      ) -> tuple[np.ndarray, np.ndarray]:
    """Vanilla transfer and retention of one sample per seed, gaussian generator: the numbers
    of :func:`gram_transfer_retention` on :func:`tasksim.solvers.gram.sample_gram_seeded`'s
    Grams (to rounding), the fast path of the finite-size probe. With numba, each sample's
    draws go through :func:`tasksim.solvers.gram_kernels.draws_transfer_retention` (factor
    and solve in the cache; a flagged sample through :func:`vanilla_maps_from_factor`);
    without, :func:`vanilla_factor_transfer_retention` on
    :func:`tasksim.solvers.gram.sample_gram_factor_seeded`.

    Examples
    --------
    >>> seeds = np.random.SeedSequence(0).spawn(2)
    >>> tf, rt = vanilla_transfer_retention_seeded(seeds, nx=10**6, ns=3, rho_a=1.0, rho_b=1.0)
    >>> np.round(tf, 6).tolist(), np.round(rt, 6).tolist()     # identical tasks
    ([1.0, 1.0], [1.0, 1.0])
    """
    from . import gram_kernels

    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    if not gram_kernels.AVAILABLE:
        factors = sample_gram_factor_seeded(seeds, nx=nx, ns=ns, rho_a=rho_a)
        return vanilla_factor_transfer_retention(factors, ns=ns, rho_b=rho_b)
    if not seeds:
        raise ValueError("seeds must hold at least one SeedSequence")
    plan = GramPlan(("A1", "A2"), nx, ns, rho_a, None, 0.0, 2)
    normals, chi, dofs = draw_bartlett_seeded(seeds, plan)
    coef = plan.chain / np.sqrt(ns)
    transfer, retention, ok = gram_kernels.draws_transfer_retention(normals, chi, dofs[:, :, 0],
                                                                    coef, ns, rho_b)
    if not ok.all():
        L = gram_kernels.class_factors(normals[~ok], chi[~ok], dofs[~ok, :, 0], coef, ns)
        transfer[~ok], retention[~ok] = transfer_retention_from_maps(
            *vanilla_maps_from_factor(L[:, 0], ns=ns), rho_b)
    return transfer, retention


def plasticity_transfer_retention_seeded(seeds: Sequence[np.random.SeedSequence], *, nx: int,
                                         ns: int, rho_a: float, rho_b: float, alpha: float
                                         ) -> tuple[np.ndarray, np.ndarray]:
    """Plasticity-gating transfer and retention of one sample per seed, gaussian generator
    (random gates, rho_g = 0), from only the blocks it needs: the draws of
    :func:`tasksim.solvers.gram.draw_plastic_seeded` (three gate classes, not four; R_22 of
    two of them not drawn), solved per sample in the cache by
    :func:`tasksim.solvers.gram_kernels.plastic_transfer_retention` where numba is installed
    (a flagged sample, and every sample without numba, through
    :func:`tasksim.solvers.gram.plastic_cross_grams` and :func:`plastic_maps`). The law of
    :func:`gram_transfer_retention` on :func:`tasksim.solvers.gram.sample_gram_seeded`'s
    Grams, not its random stream.

    Examples
    --------
    >>> seeds = np.random.SeedSequence(0).spawn(2)
    >>> tf, rt = plasticity_transfer_retention_seeded(seeds, nx=10**5, ns=3, rho_a=1.0,
    ...                                               rho_b=1.0, alpha=0.5)
    >>> np.round(tf, 6).tolist(), np.round(rt, 6).tolist()     # identical tasks
    ([1.0, 1.0], [1.0, 1.0])
    """
    from . import gram_kernels

    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    rho_a = check_unit_interval("rho_a", rho_a)
    rho_b = check_unit_interval("rho_b", rho_b)
    normals, chi, dofs = draw_plastic_seeded(seeds, nx=nx, ns=ns, alpha=alpha)
    if not gram_kernels.AVAILABLE:
        return _plastic_numpy_route(normals, chi, dofs, ns=ns, rho_a=rho_a, rho_b=rho_b)
    coef = GramPlan(("A1", "A2"), nx, ns, rho_a, None, 0.0, 2).chain / np.sqrt(ns)
    transfer, retention, ok = gram_kernels.plastic_transfer_retention(
        normals, chi, plastic_alive_rows(dofs, ns), coef, ns, rho_b, RCOND_PLASTIC)
    if not ok.all():
        transfer[~ok], retention[~ok] = _plastic_numpy_route(
            normals[~ok], chi[~ok], dofs[~ok], ns=ns, rho_a=rho_a, rho_b=rho_b)
    return transfer, retention


def _plastic_numpy_route(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray, *, ns: int,
                         rho_a: float, rho_b: float) -> tuple[np.ndarray, np.ndarray]:
    cross = plastic_cross_grams(normals, chi, dofs, ns=ns, rho_a=rho_a)
    return transfer_retention_from_maps(*plastic_maps(cross, ns=ns), rho_b)


def gram_transfer_retention(model: str, grams: np.ndarray, *, ns: int, rho_b: float,
                            lam: Optional[float] = None) -> tuple[np.ndarray, np.ndarray]:
    """Transfer and retention of ``model`` for every Gram of the batch (module docstring), in
    cache-sized slices of :data:`tasksim.solvers.gram.SLICE` samples. Vanilla, random and
    plasticity gating go through the compiled kernel of :mod:`tasksim.solvers.gram_kernels`
    where numba is installed (plasticity gating: its systems P_mu^T A_mu, symmetric, and
    right-hand sides P_mu^T A_nu are the lower half of its Gram, and its condition threshold
    that of :func:`_plastic_solve`); a sample the kernel flags (a system not solved as
    invertible) takes the numpy route."""
    from . import gram_kernels

    grams = np.asarray(grams, dtype=float)
    if grams.ndim != 3:
        raise ValueError(f"grams must have shape (batch, k Ns, k Ns), got {grams.shape}")
    k = len(BLOCKS.get(model, ()))
    if (model in ("vanilla", "random-gating", "plasticity-gating") and gram_kernels.AVAILABLE
            and grams.shape[1:] == (k * ns, k * ns) and grams.shape[0] > 0):
        rho_b = check_unit_interval("rho_b", rho_b)
        pair = grams
        if model == "plasticity-gating":  # [[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]]
            pair = grams[:, 2 * ns:, :2 * ns]
        rcond = {"vanilla": 0.0, "random-gating": RCOND_CHOLESKY,
                 "plasticity-gating": RCOND_PLASTIC}
        transfer, retention, ok = gram_kernels.pair_transfer_retention(pair, ns, rho_b,
                                                                       rcond[model])
        if not ok.all():
            transfer[~ok], retention[~ok] = _sliced_transfer_retention(
                model, grams[~ok], ns=ns, rho_b=rho_b, lam=lam)
        return transfer, retention
    return _sliced_transfer_retention(model, grams, ns=ns, rho_b=rho_b, lam=lam)


def _sliced_transfer_retention(model: str, grams: np.ndarray, *, ns: int, rho_b: float,
                               lam: Optional[float]) -> tuple[np.ndarray, np.ndarray]:
    parts = [transfer_retention_from_maps(*two_task_maps(model, grams[start:start + SLICE],
                                                         ns=ns, lam=lam), rho_b)
             for start in range(0, max(1, grams.shape[0]), SLICE)]
    return (np.concatenate([tf for tf, _ in parts]), np.concatenate([rt for _, rt in parts]))
