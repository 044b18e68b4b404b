"""The Gram matrix of the feature blocks, sampled without drawing the Nx x Ns task matrices.

Under the ``gaussian`` generator (solvers/tasks.py) the rows of [A_1, ..., A_n] are i.i.d.
N(0, Sigma / Ns) with Sigma = T(rho_a) kron I_Ns, T the tasks' correlation matrix
(``tasksim.solvers.tasks.task_correlation``: rho_a^{|mu - nu|} in the ``chain`` structure,
rho_a off the diagonal in the ``shared`` one; for two tasks both are
[[I, rho_a I], [rho_a I, I]]). The Gram matrix of the stacked blocks is then a
sum of Nx independent rank-one terms, i.e. Wishart(Nx, Sigma / Ns), which this module samples
directly by the Bartlett decomposition: chi and normal draws, O((n Ns)^3) work per sample,
independent of Nx (Nx = 10^6 degrees of freedom is no harder than Nx = 10^3).

With gates (eq_def_rho_g: g_1 ~ Bernoulli(alpha) elementwise, g_{mu+1} keeps g_mu with
probability rho_g, else redraws it), the gate pattern of a row (g_1, ..., g_n) in {0, 1}^n is
its *class*. Class counts are multinomial (Nx trials; for two tasks
P(1,1) = alpha (rho_g + (1 - rho_g) alpha), P(1,0) = P(0,1) = alpha (1 - rho_g)(1 - alpha),
P(0,0) = (1 - alpha)(rho_g + (1 - rho_g)(1 - alpha))); given the counts, the rows of each
class contribute an independent Wishart(n_class, Sigma / Ns). The Gram of blocks such as
"D1A2" (D_1 A_2) is assembled from the class sums: block (D_p A_i, D_q A_j) is the sum of the
(i, j) blocks of the classes whose gates p and q are both open. This is exact, not an
approximation.

Where a model must still draw explicit matrices (this module cannot help):

- the ``appendix`` generator (Appendix A, Assumption I): entries of (A_1, A_2) are mixtures
  (kept with probability rho_a, else resampled), not jointly Gaussian, so the Gram is not
  Wishart;
- adaptive gating: the second gate depends on the probe error eps_pb of the first draw,
  which depends on the sampled B and on the Gram of the first gate, so the class counts of
  (g_1, g_2) are not multinomial with a fixed rho_g;
- fisher-diag: its metric diag(sum_n a_{jn}^2) is a row-wise diagonal of A_{mu-1}, not a
  function of the Gram;
- soft-thresholding: phi(A s) is a nonlinear function of the rows, not of their Gram.

Examples
--------
>>> f = sample_features(nx=10**6, ns=3, rho_a=0.5, seed=0)
>>> f.names, f.gram.shape
(('A1', 'A2'), (6, 6))
>>> bool(abs(f.block("A1", "A2")[0, 0] / (10**6 / 3) - 0.5) < 0.01)
True
"""
from __future__ import annotations

import itertools
from typing import Iterator, Optional, Sequence

import numpy as np

from .features import Features, parse_block
from .rng import Seed, as_generator
from .tasks import check_structure
from .validation import check_open_unit_interval, check_positive_int, check_unit_interval

__all__ = [
    "UNGATED_BLOCKS",
    "GATED_BLOCKS",
    "task_covariance_factor",
    "gate_classes",
    "sample_wishart",
    "bartlett_factors",
    "sample_gram",
    "GramPlan",
    "sample_gram_seeded",
    "sample_gram_factor_seeded",
    "draw_bartlett_seeded",
    "PLASTIC_CLASSES",
    "draw_plastic_seeded",
    "plastic_alive_rows",
    "plastic_cross_grams",
    "sample_plastic_cross_seeded",
    "sample_features",
    "sample_features_batch",
]

SLICE = 32
"""Samples per slice of the stacked arithmetic after the draws (a slice's arrays stay in the
cache: the elementwise passes are memory-bound on whole chunks)."""
UNGATED_BLOCKS: tuple[str, ...] = ("A1", "A2")
GATED_BLOCKS: tuple[str, ...] = ("A1", "A2", "D1A1", "D2A2", "D1A2", "D2A1")


def task_covariance_factor(ns: int, rho_a: float, n_tasks: int = 2,
                           structure: str = "chain") -> np.ndarray:
    """A factor L with L L^T = (T(rho_a) kron I_Ns) / Ns: the row covariance of [A_1 .. A_n].

    Both factors are a recursion written as a matrix (lower block-triangular), so they exist at
    rho_a = 1 too, where the covariance is singular:

    ``chain``: A_mu = rho_a A_{mu-1} + sqrt(1 - rho_a^2) Z_mu (the ``gaussian`` generator);
    ``shared``: A_mu = beta_mu (A_1 + .. + A_{mu-1}) + sqrt(v_mu) Z_mu, the regression of A_mu on
    the tasks before it when every pair has correlation rho_a: beta_mu = rho_a / (1 + (mu - 2)
    rho_a), v_mu = (1 - rho_a)(1 + (mu - 1) rho_a) / (1 + (mu - 2) rho_a). For two tasks the
    two factors are equal.

    Examples
    --------
    >>> L = task_covariance_factor(2, 0.5)
    >>> np.round(L @ L.T * 2, 3)
    array([[1. , 0. , 0.5, 0. ],
           [0. , 1. , 0. , 0.5],
           [0.5, 0. , 1. , 0. ],
           [0. , 0.5, 0. , 1. ]])
    >>> L = task_covariance_factor(1, 0.3, 4, "shared")
    >>> np.round(L @ L.T, 12)
    array([[1. , 0.3, 0.3, 0.3],
           [0.3, 1. , 0.3, 0.3],
           [0.3, 0.3, 1. , 0.3],
           [0.3, 0.3, 0.3, 1. ]])
    """
    ns = check_positive_int("ns", ns)
    return np.kron(_task_chain(rho_a, n_tasks, structure), np.eye(ns)) / np.sqrt(ns)


def _task_chain(rho_a: float, n_tasks: int, structure: str = "chain") -> np.ndarray:
    """The n x n lower-triangular factor C of the tasks' correlation (A = [Z_1 .. Z_n] (C^T kron
    I) with Z i.i.d.; :func:`task_covariance_factor` describes both structures)."""
    n_tasks = check_positive_int("n_tasks", n_tasks)
    rho_a = check_unit_interval("rho_a", rho_a)
    check_structure(structure)
    chain = np.zeros((n_tasks, n_tasks))
    if structure == "shared":
        chain[0, 0] = 1.0
        for mu in range(1, n_tasks):  # 0-based: task mu + 1 of the docstring
            beta = rho_a / (1.0 + (mu - 1) * rho_a)
            chain[mu] = beta * chain[:mu].sum(axis=0)
            chain[mu, mu] = np.sqrt((1.0 - rho_a) * (1.0 + mu * rho_a) / (1.0 + (mu - 1) * rho_a))
    else:
        fresh = np.sqrt(1.0 - rho_a * rho_a)
        for mu in range(n_tasks):
            for nu in range(mu + 1):
                chain[mu, nu] = rho_a ** (mu - nu) * (1.0 if nu == 0 else fresh)
    return chain


def gate_classes(
    alpha: float, rho_g: float | Sequence[float] = 0.0, n_tasks: int = 2
) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """All gate patterns (g_1, ..., g_n) of one input unit and their probabilities.

    g_1 ~ Bernoulli(alpha); g_{mu+1} = g_mu with probability rho_g, otherwise a fresh
    Bernoulli(alpha) draw (eq_def_rho_g). ``rho_g`` is one number or n - 1 numbers.

    Examples
    --------
    >>> classes, p = gate_classes(0.5, 0.5)
    >>> classes
    ((0, 0), (0, 1), (1, 0), (1, 1))
    >>> p.tolist()
    [0.375, 0.125, 0.125, 0.375]
    """
    alpha = check_open_unit_interval("alpha", alpha)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    rhos = [rho_g] * (n_tasks - 1) if np.isscalar(rho_g) else list(rho_g)
    if len(rhos) != n_tasks - 1:
        raise ValueError(f"rho_g must be one number or {n_tasks - 1} numbers, got {len(rhos)}")
    rhos = [check_unit_interval("rho_g", r) for r in rhos]
    classes = tuple(itertools.product((0, 1), repeat=n_tasks))
    probs = np.empty(len(classes))
    for c, pattern in enumerate(classes):
        p = alpha if pattern[0] else 1.0 - alpha
        for step, (before, after) in enumerate(zip(pattern[:-1], pattern[1:])):
            fresh = alpha if after else 1.0 - alpha
            p *= (1.0 - rhos[step]) * fresh + (rhos[step] if before == after else 0.0)
        probs[c] = p
    return classes, probs


def sample_wishart(
    dof: int | np.ndarray, factor: np.ndarray, *, seed: Seed = None
) -> np.ndarray:
    """Wishart(dof, factor factor^T) draws by the Bartlett decomposition, in a batch.

    A draw is factor R^T R factor^T with R (p x p) upper triangular, R_ii ~ chi(dof - i)
    (i = 0..p-1), R_ij ~ N(0, 1) for j > i, independent: R is the triangular factor of the
    QR decomposition of a dof x p standard normal matrix Z, so R^T R = Z^T Z. When dof < p
    (a singular Wishart, e.g. a sparse gate class) rows i >= dof of R are zero, which is
    again the (trapezoidal) QR factor of Z; dof = 0 gives the zero matrix. ``factor`` need
    not be invertible (rho_a = 1 gives a singular scale matrix).

    ``dof`` is an integer (one draw, shape (p, p)) or an array of integers (one draw per
    entry, shape dof.shape + (p, p)). Cost O(p^3) per draw, independent of dof.

    Examples
    --------
    >>> w = sample_wishart(np.array([10**6] * 400), np.eye(2), seed=0)
    >>> w.shape
    (400, 2, 2)
    >>> bool(abs(w[:, 0, 0].mean() / 10**6 - 1) < 1e-3)
    True
    """
    factor = np.asarray(factor, dtype=float)
    if factor.ndim != 2 or factor.shape[0] != factor.shape[1]:
        raise ValueError(f"factor must be a square matrix, got shape {factor.shape}")
    dofs = np.asarray(dof)
    if not np.issubdtype(dofs.dtype, np.integer) or (dofs < 0).any():
        raise ValueError(f"dof must be a non-negative integer or array of them, got {dof!r}")
    M = bartlett_factors(dofs, factor.shape[0], as_generator(seed)) @ factor.T
    return np.swapaxes(M, -1, -2) @ M


def bartlett_factors(dofs: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
    """The Bartlett factors R of :func:`sample_wishart` (R^T R ~ Wishart(dof, I_p)), shape
    dofs.shape + (p, p), drawn from ``rng`` in a fixed order: every normal of the p x p blocks
    (the strict upper triangles kept), then the chi^2(dof - i) of the diagonals.

    Examples
    --------
    >>> R = bartlett_factors(np.array([5, 1]), 3, np.random.default_rng(0))
    >>> R.shape, bool(np.all(np.tril(R[1], -1) == 0)), bool(np.all(R[1, 1:] == 0))
    ((2, 3, 3), True, True)
    """
    dofs = np.asarray(dofs)
    R = np.triu(rng.standard_normal(dofs.shape + (p, p)), k=1)
    rows = np.arange(p)
    chi_dof = dofs[..., None] - rows  # shape + (p,)
    alive = chi_dof > 0
    diag = np.sqrt(rng.chisquare(np.where(alive, chi_dof, 1)))
    R[..., rows, rows] = np.where(alive, diag, 0.0)
    R *= alive[..., :, None]  # a row beyond the rank is zero
    return R


def _block_plan(names: Sequence[str], n_tasks: int) -> tuple[list[int], list[Optional[int]]]:
    tasks, gates = [], []
    for name in names:
        gate, task = parse_block(name)
        if task > n_tasks or (gate is not None and gate > n_tasks):
            raise ValueError(f"block {name!r} names a task beyond n_tasks={n_tasks}")
        tasks.append(task - 1)
        gates.append(None if gate is None else gate - 1)
    return tasks, gates


def sample_gram(
    *,
    nx: int,
    ns: int,
    rho_a: float,
    names: Sequence[str] = UNGATED_BLOCKS,
    alpha: Optional[float] = None,
    rho_g: float | Sequence[float] = 0.0,
    n_tasks: Optional[int] = None,
    size: Optional[int] = None,
    structure: str = "chain",
    seed: Seed = None,
) -> np.ndarray:
    """Gram matrices of the named blocks under the ``gaussian`` generator, in a batch.

    Returns an array of shape (k Ns, k Ns) (``size`` None) or (size, k Ns, k Ns), k the
    number of blocks, ordered as ``names``; it has the distribution of
    ``Features.from_matrices(A, gates, names).gram`` for A from
    ``draw_tasks(generator="gaussian", structure=structure)`` and gates from ``draw_gates``
    (see the module docstring for the construction and for the models that cannot use it).

    ``alpha`` (and ``rho_g``) are required when a block is gated ("D1A2") and ignored
    otherwise. ``n_tasks`` defaults to the largest task or gate number among the names.
    Cost O(size 2^n (n Ns)^3) with gated blocks, O(size (n Ns)^3) without; independent of
    ``nx``. Memory O(size 2^n (n Ns)^2) with gated blocks.

    Examples
    --------
    >>> g = sample_gram(nx=1000, ns=2, rho_a=1.0, size=3, seed=1)
    >>> g.shape, bool(np.allclose(g[:, :2, :2], g[:, 2:, 2:]))
    ((3, 4, 4), True)
    """
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    rho_a = check_unit_interval("rho_a", rho_a)
    names = tuple(names)
    if not names:
        raise ValueError("names must name at least one block")
    plan = GramPlan(names, nx, ns, rho_a, alpha, rho_g, n_tasks, structure)
    batch = 1 if size is None else check_positive_int("size", size)
    rng = as_generator(seed)
    if plan.gated:
        counts = rng.multinomial(nx, plan.probabilities, size=batch)  # (batch, C)
    else:
        counts = np.full((batch, 1), nx)
    class_grams = sample_wishart(counts, plan.factor, seed=rng)  # (batch, C, nNs, nNs)
    gram = plan.assemble(class_grams)
    return gram[0] if size is None else gram


class GramPlan:
    """What a batch of Gram matrices of named blocks needs: the gate classes, their
    probabilities, the covariance factor, and how class sums make the blocks."""

    def __init__(self, names: tuple[str, ...], nx: int, ns: int, rho_a: float,
                 alpha: Optional[float], rho_g: float | Sequence[float],
                 n_tasks: Optional[int], structure: str = "chain") -> None:
        parsed = [parse_block(n) for n in names]
        if n_tasks is None:
            n_tasks = max(max(task, gate or 0) for gate, task in parsed)
        self.n_tasks = check_positive_int("n_tasks", n_tasks)
        self.names, self.nx, self.ns = names, nx, ns
        self.tasks, self.gates = _block_plan(names, self.n_tasks)
        self.chain = _task_chain(rho_a, self.n_tasks, structure)
        self.factor = np.kron(self.chain, np.eye(ns)) / np.sqrt(ns)
        self.gated = any(g is not None for g in self.gates)
        if self.gated:
            if alpha is None:
                raise ValueError(f"alpha must be a number in (0, 1] for gated blocks {names}")
            self.classes, self.probabilities = gate_classes(alpha, rho_g, self.n_tasks)
        else:
            self.classes, self.probabilities = ((1,) * self.n_tasks,), np.ones(1)
        self.used = [c for c, pattern in enumerate(self.classes)
                     if any(self._open(a, pattern) for a in range(len(names)))]
        """The gate classes some named block is open in (the others add nothing to the Gram:
        class (0, 0) of random gating)."""
        self.single = []
        """Per used class, the one task whose blocks alone it adds to (-1: several): gate
        class (1, 0) of random gating adds to D1A1 only, so only A_1's rows of the class
        matter, a Wishart of Ns dimensions instead of n Ns."""
        for c in self.used:
            needed = {self.tasks[a] for a in range(len(names)) if self._open(a, self.classes[c])}
            self.single.append(needed.pop() if len(needed) == 1 and self.n_tasks > 1 else -1)
        self.single_scale = [np.sqrt(np.sum(self.chain[t] ** 2) / ns) if t >= 0 else 0.0
                             for t in self.single]
        """The standard deviation of an entry of A_t (the chain's row t; 1/sqrt(Ns) for
        both structures), which scales the single-task class's Bartlett factor."""

    def times_factor(self, X: np.ndarray, *, inplace: bool = False) -> np.ndarray:
        """F X for (..., nNs, m) X, with F = (C kron I_Ns)/sqrt(Ns) the factor of
        :func:`task_covariance_factor`, by row blocks with the chain's few nonzero
        coefficients (contiguous slabs: far cheaper than a product); ``inplace`` overwrites X
        (block i from the last up: it reads only the blocks before it). With X = R^T, R a
        Bartlett factor, (F R^T)(F R^T)^T is the Gram of M = R F^T."""
        ns = self.ns
        out = X if inplace else X.copy()
        for i in reversed(range(self.n_tasks)):
            rows = out[..., i * ns:(i + 1) * ns, :]
            rows *= self.chain[i, i] / np.sqrt(ns)
            for b in range(i):
                if self.chain[i, b] != 0.0:
                    rows += (self.chain[i, b] / np.sqrt(ns)) * out[..., b * ns:(b + 1) * ns, :]
        return out

    def _open(self, b: int, pattern: tuple[int, ...]) -> bool:
        return self.gates[b] is None or bool(pattern[self.gates[b]])

    def assemble(self, class_grams: np.ndarray) -> np.ndarray:
        """(batch, C, nNs, nNs) Grams of the gate classes -> (batch, k Ns, k Ns) of the blocks:
        block (D_p A_i, D_q A_j) sums the (i, j) blocks of the classes with gates p, q open."""
        batch, n, ns = class_grams.shape[0], self.n_tasks, self.ns
        if not self.gated and self.tasks == list(range(n)):  # the blocks are A_1 .. A_n
            gram = class_grams[:, 0]
            return 0.5 * (gram + np.swapaxes(gram, -1, -2))
        class_grams = class_grams.reshape(batch, len(self.classes), n, ns, n, ns)
        k = len(self.names)
        gram = np.zeros((batch, k, ns, k, ns))
        for a in range(k):
            for b in range(k):
                for c, pattern in enumerate(self.classes):
                    if self._open(a, pattern) and self._open(b, pattern):
                        gram[:, a, :, b, :] += class_grams[:, c, self.tasks[a], :,
                                                           self.tasks[b], :]
        gram = gram.reshape(batch, k * ns, k * ns)
        return 0.5 * (gram + np.swapaxes(gram, -1, -2))

    def assemble_from_factors(self, Mt: np.ndarray) -> np.ndarray:
        """:meth:`assemble` of the class Grams Mt Mt^T, from their factors Mt (batch,
        len(used), nNs, nNs) of the :attr:`used` classes, lower block-triangular (F R^T: both
        factors are), computing only the blocks the named blocks need: block (i, j) of a
        class is the sum over t <= min(i, j) of Mt[i, t] Mt[j, t]^T, an Ns x Ns product each.
        The diagonal blocks are symmetrized, as :meth:`assemble` does the whole Gram."""
        batch, n, ns, k = Mt.shape[0], self.n_tasks, self.ns, len(self.names)
        if not self.gated and self.tasks == list(range(n)):  # every block: one product
            return self.assemble(Mt @ np.swapaxes(Mt, -1, -2))
        products: dict[tuple[int, int, int], np.ndarray] = {}
        gram = np.zeros((batch, k, ns, k, ns))
        for a in range(k):
            for b in range(a, k):
                i, j = self.tasks[a], self.tasks[b]
                low, high = min(i, j), max(i, j)
                for c, pattern in enumerate(self.classes[u] for u in self.used):
                    if not (self._open(a, pattern) and self._open(b, pattern)):
                        continue
                    if (c, low, high) not in products:
                        products[(c, low, high)] = _lower_block(Mt[:, c], low, high, ns)
                    block = products[(c, low, high)]
                    gram[:, a, :, b, :] += block if i <= j else np.swapaxes(block, -1, -2)
                if a == b:
                    diagonal = gram[:, a, :, a, :]
                    diagonal[...] = 0.5 * (diagonal + np.swapaxes(diagonal, -1, -2))
                else:
                    gram[:, b, :, a, :] = np.swapaxes(gram[:, a, :, b, :], -1, -2)
        return gram.reshape(batch, k * ns, k * ns)


def _lower_block(Mt: np.ndarray, i: int, j: int, ns: int) -> np.ndarray:
    """Block (i, j), i <= j, of Mt Mt^T for a stack (batch, p, p) of lower block-triangular Mt:
    row blocks i and j times each other over the first (i + 1) Ns columns (beyond them row
    block i is zero), one stacked product."""
    width = (i + 1) * ns
    return (Mt[:, i * ns:(i + 1) * ns, :width]
            @ np.swapaxes(Mt[:, j * ns:(j + 1) * ns, :width], -1, -2))


def sample_gram_seeded(
    seeds: Sequence[np.random.SeedSequence],
    *,
    nx: int,
    ns: int,
    rho_a: float,
    names: Sequence[str] = UNGATED_BLOCKS,
    alpha: Optional[float] = None,
    rho_g: float | Sequence[float] = 0.0,
    n_tasks: Optional[int] = None,
    structure: str = "chain",
) -> np.ndarray:
    """One Gram matrix per seed, shape (len(seeds), k Ns, k Ns), with the law of
    :func:`sample_gram`; sample j is drawn from ``seeds[j]`` alone.

    So a sample does not depend on the batch it is computed in: a probe split into chunks on
    any number of workers gives the same numbers. The random draws
    (:func:`draw_bartlett_seeded`: gate-class counts, then the strict upper triangle and the
    chi diagonal of the Bartlett factor of each class some block needs, of Ns dimensions
    when the class adds to one task's blocks only; about half the normals of
    :func:`sample_wishart`) are made per seed; the factors F R^T are filled in one compiled
    pass where numba is installed (:func:`tasksim.solvers.gram_kernels.class_factors`), and
    only the Gram blocks the names need are multiplied, in stacks. Cost
    O(len(seeds) 2^n (n Ns)^3), independent of ``nx``.

    Examples
    --------
    >>> seeds = np.random.SeedSequence(0).spawn(3)
    >>> g = sample_gram_seeded(seeds, nx=10**6, ns=2, rho_a=0.5)
    >>> g.shape, bool(np.allclose(sample_gram_seeded(seeds[1:2], nx=10**6, ns=2, rho_a=0.5)[0],
    ...                             g[1]))
    ((3, 4, 4), True)
    """
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    rho_a = check_unit_interval("rho_a", rho_a)
    names = tuple(names)
    if not names:
        raise ValueError("names must name at least one block")
    if not seeds:
        raise ValueError("seeds must hold at least one SeedSequence")
    plan = GramPlan(names, nx, ns, rho_a, alpha, rho_g, n_tasks, structure)
    out = np.empty((len(seeds), len(plan.names) * ns, len(plan.names) * ns))
    for start, stop, Mt in _class_factors_seeded(seeds, plan):
        out[start:stop] = plan.assemble_from_factors(Mt)
    return out


def sample_gram_factor_seeded(
    seeds: Sequence[np.random.SeedSequence],
    *,
    nx: int,
    ns: int,
    rho_a: float,
    n_tasks: int = 2,
    structure: str = "chain",
) -> np.ndarray:
    """Lower-triangular L, shape (len(seeds), n Ns, n Ns), whose L L^T is the Gram of the
    ungated blocks A_1 .. A_n that :func:`sample_gram_seeded` draws from the same seeds (to
    rounding): L = F R^T, F the covariance factor and R the Bartlett factor. L is the
    Cholesky factor of the Gram (up to the signs of its columns when rho_a = 1), so a solver
    can skip forming and factoring the Gram (:func:`tasksim.solvers.two_task_batch.
    vanilla_maps_from_factor`).

    Examples
    --------
    >>> seeds = np.random.SeedSequence(0).spawn(2)
    >>> L = sample_gram_factor_seeded(seeds, nx=100, ns=2, rho_a=0.5)
    >>> bool(np.allclose(L @ np.swapaxes(L, -1, -2),
    ...                  sample_gram_seeded(seeds, nx=100, ns=2, rho_a=0.5)))
    True
    """
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    rho_a = check_unit_interval("rho_a", rho_a)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    if not seeds:
        raise ValueError("seeds must hold at least one SeedSequence")
    names = tuple(f"A{mu}" for mu in range(1, n_tasks + 1))
    plan = GramPlan(names, nx, ns, rho_a, None, 0.0, n_tasks, structure)
    out = np.empty((len(seeds), n_tasks * ns, n_tasks * ns))
    for start, stop, Mt in _class_factors_seeded(seeds, plan):
        out[start:stop] = Mt[:, 0]
    return out


def draw_bartlett_seeded(seeds: Sequence[np.random.SeedSequence], plan: GramPlan
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random numbers of :func:`sample_gram_seeded`, sample j from ``seeds[j]`` alone:
    (normals, chi, dofs) of shapes (S, U, p(p - 1)/2), (S, U, p), (S, U, 1) for the U
    classes of ``plan.used`` (p = n Ns): the strict upper triangle of each class's Bartlett
    factor row by row, the chi-squares of its diagonal, and the class count. A class of
    ``plan.single`` fills only the first Ns (Ns - 1)/2 normals and Ns chi-squares.

    Examples
    --------
    >>> plan = GramPlan(("A1", "A2"), 100, 2, 0.5, None, 0.0, None)
    >>> normals, chi, dofs = draw_bartlett_seeded(np.random.SeedSequence(0).spawn(3), plan)
    >>> normals.shape, chi.shape, dofs[:, 0, 0].tolist()
    ((3, 1, 6), (3, 1, 4), [100, 100, 100])
    """
    nx, ns = plan.nx, plan.ns
    p, n_used = plan.n_tasks * ns, len(plan.used)
    size = p * (p - 1) // 2
    normals = np.empty((len(seeds), n_used, size))
    chi = np.zeros((len(seeds), n_used, p))
    dofs = np.empty((len(seeds), n_used, 1), dtype=np.int64)
    slot = {c: u for u, c in enumerate(plan.used)}
    small = ns * (ns - 1) // 2  # the normals of a single-task class (first in its row)
    steps = np.arange(p)
    half_nx = np.maximum(nx - steps, 1) / 2.0
    for j, seed in enumerate(seeds):
        # per seed: the class counts, then for each class some block needs, the strict upper
        # triangle of its Bartlett factor (row-major) and chi^2(dof - i) for its diagonal:
        # of n Ns dimensions, or of Ns for a class that adds to one task's blocks only.
        # chi^2(k) is drawn as 2 Gamma(k / 2), which is how numpy draws it (the same
        # numbers, and the same stream), into the array
        rng = np.random.Generator(np.random.PCG64(seed))
        counts = rng.multinomial(nx, plan.probabilities) if plan.gated else (nx,)
        for c, count in enumerate(counts):
            u = slot.get(c)
            if u is None:
                continue
            dofs[j, u] = count
            half = half_nx if count == nx else np.maximum(count - steps, 1) / 2.0
            if plan.single[u] >= 0:
                rng.standard_normal(out=normals[j, u, :small])
                rng.standard_gamma(half[:ns], out=chi[j, u, :ns])
            else:
                rng.standard_normal(out=normals[j, u])
                rng.standard_gamma(half, out=chi[j, u])
    chi *= 2.0
    return normals, chi, dofs


def _class_factors_seeded(seeds: Sequence[np.random.SeedSequence], plan: GramPlan
                          ) -> Iterator[tuple[int, int, np.ndarray]]:
    """(start, stop, Mt) for slices of :data:`SLICE` seeds: Mt (stop - start, len(plan.used),
    nNs, nNs) the lower-triangular factors F R^T of the used gate classes' Grams Mt Mt^T, R
    drawn from each seed alone (:func:`draw_bartlett_seeded`)."""
    from . import gram_kernels

    ns = plan.ns
    normals, chi, dofs = draw_bartlett_seeded(seeds, plan)
    if gram_kernels.AVAILABLE:  # F R^T from the draws in one compiled pass
        coef = plan.chain / np.sqrt(ns)
        single = np.array(plan.single, dtype=np.int64)
        scale = np.array(plan.single_scale)
        for start in range(0, len(seeds), SLICE):
            stop = min(len(seeds), start + SLICE)
            yield start, stop, gram_kernels.class_factors(
                normals[start:stop], chi[start:stop], dofs[start:stop, :, 0], coef, ns,
                single, scale)
        return
    # in slices of SLICE samples, so that every pass over the arrays stays in the cache
    for start in range(0, len(seeds), SLICE):
        stop = min(len(seeds), start + SLICE)
        Mt = _factors_numpy(normals[start:stop], chi[start:stop], dofs[start:stop, :, 0], plan)
        for u, t in enumerate(plan.single):  # an Ns-dimensional class: its factor in block t
            if t >= 0:
                Mt[:, u] = 0.0
                Mt[:, u, t * ns:(t + 1) * ns, t * ns:(t + 1) * ns] = plan.single_scale[u] * (
                    _small_bartlett_transposed(normals[start:stop, u], chi[start:stop, u],
                                               dofs[start:stop, u], ns))
        yield start, stop, Mt


def _factors_numpy(normals: np.ndarray, chi: np.ndarray, alive_rows: np.ndarray,
                   plan: GramPlan) -> np.ndarray:
    """The numpy route of :func:`tasksim.solvers.gram_kernels.class_factors` for classes of
    n Ns dimensions: F R^T (S, C, p, p) from the draws (S, C, p(p - 1)/2) and (S, C, p), rows
    of R at or beyond ``alive_rows`` (S, C) zero. R^T is filled directly (its columns beyond
    the count are zero), then multiplied by F by row blocks (:meth:`GramPlan.times_factor`)."""
    p = plan.n_tasks * plan.ns
    batch, n_used = normals.shape[:2]
    rows, cols = np.triu_indices(p, k=1)
    steps = np.arange(p)
    alive = steps < np.asarray(alive_rows)[:, :, None]  # (S, C, p)
    Rt = np.zeros((batch, n_used, p * p))
    Rt[:, :, cols * p + rows] = normals
    Rt[:, :, steps * (p + 1)] = np.sqrt(chi)
    Rt = Rt.reshape(batch, n_used, p, p)
    if not alive.all():
        Rt *= alive[:, :, None, :]
    return plan.times_factor(Rt, inplace=True)


PLASTIC_CLASSES: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1))
"""The gate classes (g_1, g_2) plasticity gating's blocks P_mu^T A_nu = A_mu^T D_mu A_nu add
to, in draw order (class (0, 0) adds to none of them)."""


def draw_plastic_seeded(seeds: Sequence[np.random.SeedSequence], *, nx: int, ns: int,
                        alpha: float, rho_g: float = 0.0
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random numbers of plasticity gating's blocks [[P_1^T A_1, P_1^T A_2],
    [P_2^T A_1, P_2^T A_2]] (P_mu = D_mu A_mu, two tasks, Appendix B.2), sample j from
    ``seeds[j]`` alone: (normals, chi, dofs) of shapes (S, 3, p(p - 1)/2), (S, 3, p), (S, 3)
    for the classes of :data:`PLASTIC_CLASSES` (p = 2 Ns), as :func:`draw_bartlett_seeded`
    lays them out.

    Per seed: the four class counts (the multinomial of :func:`sample_gram_seeded`, the same
    numbers), then per class the rows of its Bartlett factor R that the blocks need. Class
    (1, 1) adds to all four blocks: all of R (p (p - 1)/2 normals, p chi-squares). Class
    (1, 0) adds to P_1^T A_1 and P_1^T A_2 only, blocks (1, 1) and (1, 2) of its Wishart
    W = L L^T, L = F R^T lower block-triangular: L_11 L_11^T and L_11 L_21^T, which read R's
    first Ns rows alone (R_11, R_12: the first Ns (3 Ns - 1)/2 normals of the row-major
    triangle and Ns chi-squares); R_22 is not drawn. Class (0, 1) adds to P_2^T A_2 and
    P_2^T A_1 only: the same draw with the tasks in the other order, which has the same law
    (two tasks' correlation [[1, rho_a], [rho_a, 1]] is symmetric under the swap), so its
    blocks (1, 1) and (1, 2) are A_2^T A_2 and A_2^T A_1 of the class. The unused normals
    are zero. This is the law of the corresponding blocks of :func:`sample_gram_seeded` with
    BLOCKS ("A1", "A2", "D1A1", "D2A2"), not its random stream (which also draws class
    (0, 0) and R_22).

    Examples
    --------
    >>> normals, chi, dofs = draw_plastic_seeded(np.random.SeedSequence(0).spawn(2), nx=100,
    ...                                          ns=2, alpha=0.5)
    >>> normals.shape, chi.shape, bool(np.all(normals[:, :2, 5:] == 0))
    ((2, 3, 6), (2, 3, 4), True)
    """
    nx = check_positive_int("nx", nx)
    ns = check_positive_int("ns", ns)
    if not seeds:
        raise ValueError("seeds must hold at least one SeedSequence")
    classes, probabilities = gate_classes(alpha, rho_g, 2)
    slots = [classes.index(c) for c in PLASTIC_CLASSES]
    p = 2 * ns
    lead = ns * (3 * ns - 1) // 2  # the normals of R's first Ns rows
    normals = np.zeros((len(seeds), len(slots), p * (p - 1) // 2))
    chi = np.zeros((len(seeds), len(slots), p))
    dofs = np.empty((len(seeds), len(slots)), dtype=np.int64)
    steps = np.arange(p)
    half_nx = np.maximum(nx - steps, 1) / 2.0
    for j, seed in enumerate(seeds):
        rng = np.random.Generator(np.random.PCG64(seed))
        counts = rng.multinomial(nx, probabilities)
        for u, c in enumerate(slots):
            count = counts[c]
            dofs[j, u] = count
            half = half_nx if count == nx else np.maximum(count - steps, 1) / 2.0
            if PLASTIC_CLASSES[u] == (1, 1):
                rng.standard_normal(out=normals[j, u])
                rng.standard_gamma(half, out=chi[j, u])
            else:
                rng.standard_normal(out=normals[j, u, :lead])
                rng.standard_gamma(half[:ns], out=chi[j, u, :ns])
    chi *= 2.0  # chi^2(k) = 2 Gamma(k / 2), as numpy draws it
    return normals, chi, dofs


def plastic_alive_rows(dofs: np.ndarray, ns: int) -> np.ndarray:
    """The rows of each class's Bartlett factor that are drawn and nonzero
    (:func:`draw_plastic_seeded`): the count, at most Ns for the classes (0, 1) and (1, 0)."""
    limit = np.array([ns if c != (1, 1) else 2 * ns for c in PLASTIC_CLASSES])
    return np.minimum(dofs, limit)


def plastic_cross_grams(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray, *, ns: int,
                        rho_a: float) -> np.ndarray:
    """[[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]], shape (S, 2 Ns, 2 Ns), from the draws
    of :func:`draw_plastic_seeded`: the numpy reference route, by full products. Each class's
    factor L = F R^T (rows of R beyond :func:`plastic_alive_rows` zero), W = L L^T, and

        P_1^T A_1 = W_11(1, 0) + W_11(1, 1),   P_1^T A_2 = W_12(1, 0) + W_12(1, 1),
        P_2^T A_2 = W_11(0, 1) + W_22(1, 1),   P_2^T A_1 = W_12(0, 1) + W_21(1, 1)

    (class (0, 1) drawn with task 2 first). The P_mu^T A_mu blocks are symmetrized."""
    plan = GramPlan(UNGATED_BLOCKS, 1, ns, rho_a, None, 0.0, 2)
    out = np.empty((normals.shape[0], 2 * ns, 2 * ns))
    alive = plastic_alive_rows(dofs, ns)
    top, bottom = slice(0, ns), slice(ns, 2 * ns)
    for start in range(0, normals.shape[0], SLICE):
        stop = min(normals.shape[0], start + SLICE)
        L = _factors_numpy(normals[start:stop], chi[start:stop], alive[start:stop], plan)
        W = L @ np.swapaxes(L, -1, -2)  # (S, 3, p, p): classes (0, 1), (1, 0), (1, 1)
        cross = out[start:stop]
        cross[:, top, top] = W[:, 1, top, top] + W[:, 2, top, top]
        cross[:, top, bottom] = W[:, 1, top, bottom] + W[:, 2, top, bottom]
        cross[:, bottom, bottom] = W[:, 0, top, top] + W[:, 2, bottom, bottom]
        cross[:, bottom, top] = W[:, 0, top, bottom] + W[:, 2, bottom, top]
        for block in (cross[:, top, top], cross[:, bottom, bottom]):
            block[...] = 0.5 * (block + np.swapaxes(block, -1, -2))
    return out


def sample_plastic_cross_seeded(seeds: Sequence[np.random.SeedSequence], *, nx: int, ns: int,
                                rho_a: float, alpha: float, rho_g: float = 0.0) -> np.ndarray:
    """Plasticity gating's blocks [[P_1^T A_1, P_1^T A_2], [P_2^T A_1, P_2^T A_2]] of one
    sample per seed, gaussian generator (:func:`draw_plastic_seeded`,
    :func:`plastic_cross_grams`): in law, the lower-left quadrant of
    :func:`sample_gram_seeded` with the blocks ("A1", "A2", "D1A1", "D2A2").

    Examples
    --------
    >>> seeds = np.random.SeedSequence(0).spawn(2)
    >>> sample_plastic_cross_seeded(seeds, nx=10**6, ns=2, rho_a=1.0, alpha=0.5).shape
    (2, 4, 4)
    """
    rho_a = check_unit_interval("rho_a", rho_a)
    normals, chi, dofs = draw_plastic_seeded(seeds, nx=nx, ns=ns, alpha=alpha, rho_g=rho_g)
    return plastic_cross_grams(normals, chi, dofs, ns=ns, rho_a=rho_a)


def _small_bartlett_transposed(normals: np.ndarray, chi: np.ndarray, dofs: np.ndarray,
                               ns: int) -> np.ndarray:
    """R^T (batch, Ns, Ns) of Ns-dimensional Bartlett factors from the first Ns (Ns - 1)/2
    normals and Ns chi-squares of each row of ``normals``, ``chi``; rows of R at or beyond
    the count ``dofs`` (batch, 1) zero."""
    rows, cols = np.triu_indices(ns, k=1)
    R = np.zeros((normals.shape[0], ns, ns))
    R[:, rows, cols] = normals[:, :rows.size]
    steps = np.arange(ns)
    R[:, steps, steps] = np.sqrt(chi[:, :ns])
    R *= (steps < dofs)[:, :, None]
    return np.swapaxes(R, -1, -2)


def sample_features(
    *,
    nx: int,
    ns: int,
    rho_a: float,
    names: Sequence[str] = UNGATED_BLOCKS,
    alpha: Optional[float] = None,
    rho_g: float | Sequence[float] = 0.0,
    n_tasks: Optional[int] = None,
    structure: str = "chain",
    seed: Seed = None,
) -> Features:
    """One :class:`tasksim.solvers.features.Features` sampled by :func:`sample_gram` (gaussian generator).

    Examples
    --------
    >>> f = sample_features(nx=500, ns=2, rho_a=0.3, names=GATED_BLOCKS, alpha=0.5, seed=0)
    >>> f.block("D1A2", "D2A1").shape
    (2, 2)
    """
    gram = sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=names, alpha=alpha, rho_g=rho_g,
                       n_tasks=n_tasks, structure=structure, seed=seed)
    return Features(tuple(names), gram, int(nx), int(ns))


def sample_features_batch(
    *,
    size: int,
    nx: int,
    ns: int,
    rho_a: float,
    names: Sequence[str] = UNGATED_BLOCKS,
    alpha: Optional[float] = None,
    rho_g: float | Sequence[float] = 0.0,
    n_tasks: Optional[int] = None,
    structure: str = "chain",
    seed: Seed = None,
) -> list[Features]:
    """``size`` independent :class:`Features`, drawn in one vectorized batch.

    Examples
    --------
    >>> fs = sample_features_batch(size=4, nx=100, ns=2, rho_a=0.0, seed=0)
    >>> len(fs), fs[0].nx
    (4, 100)
    """
    grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=names, alpha=alpha, rho_g=rho_g,
                        n_tasks=n_tasks, size=size, structure=structure, seed=seed)
    return [Features(tuple(names), g, int(nx), int(ns)) for g in grams]
