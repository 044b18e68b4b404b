"""Named Nx x Ns blocks that the linear models' weights live in, and their Gram matrix.

Every fixed point of the linear models (vanilla, activity and plasticity gating, Euclidean,
Fisher and diagonal-Fisher regularization) changes the weight only in the span of a few
Nx x Ns *blocks*; the weight after task mu is ``W_mu = Y C_mu X^T`` with ``Y = [B_1 .. B_n]``,
``X`` the blocks side by side and ``C_mu`` a small coefficient matrix (see
``tasksim.solvers.fixed_points``). Everything the solvers need about the inputs is the Gram matrix
``X^T X`` of the blocks, held by :class:`Span`; no Nx x Nx matrix is ever formed.

Block names
-----------
``"A2"``
    A_2 (tasks numbered from 1 as in the paper; ``"A0"`` is an auxiliary task independent of
    all others, used as the Fisher metric of the first task when asked for).
``"D1A2"``
    D_1 A_2, the gate of task 1 applied to the input of task 2 (``tasksim.solvers.features``).
``"inv_diag(A1)*A2"``
    Delta_1^{-1} A_2 with Delta_1 = diag(sum_n a_{jn}^2) the diagonal Fisher metric of A_1
    (Fig. 5D); needed by ``fisher-diag`` only, and only computable from explicit matrices.

A :class:`Span` comes either from a :class:`tasksim.solvers.features.Features` (e.g. Gram matrices
sampled from their Wishart law by ``tasksim.solvers.gram``, cost independent of Nx) or from explicit
task matrices through :class:`ExplicitBlocks`, which also forms weights when they are asked for.
:meth:`ExplicitBlocks.span` forms small stacks of blocks once and takes their Gram in one
product; large ones (Nx of order 10^6) block by block, never copying the ungated task
matrices (memory O(Nx Ns) beyond the tasks themselves).

Examples
--------
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=30, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
>>> s = ExplicitBlocks(t.A).span(("A1", "A2"))
>>> s.names, s.gram.shape
(('A1', 'A2'), (6, 6))
>>> bool(np.allclose(s.block("A1", "A2"), t.A[0].T @ t.A[1]))
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .features import Features

__all__ = ["Span", "ExplicitBlocks", "parse_name", "inverse_diagonal_name"]

_PLAIN = re.compile(r"^(?:D(\d+))?A(\d+)$")
_INV_DIAG = re.compile(r"^inv_diag\((A\d+)\)\*(A\d+)$")

STACK_BYTES = 64 * 2**20
"""Largest stack of blocks (bytes) whose Gram :meth:`ExplicitBlocks.span` forms in one product
(Nx = 3000, Ns = 30, four blocks: 2.9 MB); larger ones go block by block."""


def inverse_diagonal_name(metric: str, block: str) -> str:
    """Name of Delta^{-1} X for the diagonal Fisher metric Delta of block ``metric``.

    Examples
    --------
    >>> inverse_diagonal_name("A1", "A2")
    'inv_diag(A1)*A2'
    """
    return f"inv_diag({metric})*{block}"


def parse_name(name: str) -> tuple[Optional[str], Optional[int], int]:
    """Split a block name into (diagonal metric block or None, gate or None, task).

    Examples
    --------
    >>> parse_name("D1A2"), parse_name("A0"), parse_name("inv_diag(A1)*A2")
    ((None, 1, 2), (None, None, 0), ('A1', None, 2))
    """
    m = _INV_DIAG.match(name)
    if m is not None:
        return m.group(1), None, int(m.group(2)[1:])
    m = _PLAIN.match(name)
    if m is None:
        raise ValueError(
            f"not a block name: {name!r} (expected 'A<mu>', 'D<nu>A<mu>' or 'inv_diag(A<nu>)*A<mu>')"
        )
    gate = None if m.group(1) is None else int(m.group(1))
    if gate is not None and gate < 1:
        raise ValueError(f"gate numbers start at 1: {name!r}")
    return None, gate, int(m.group(2))


@dataclass(frozen=True)
class Span(Features):
    """The Gram matrix ``X^T X`` of named Nx x Ns blocks ``X = [X_1 .. X_k]``.

    A :class:`tasksim.solvers.features.Features` that also accepts the auxiliary task ``"A0"`` and the
    diagonal-Fisher blocks ``"inv_diag(A<nu>)*A<mu>"``. ``gram`` is (k Ns) x (k Ns), symmetric;
    block ``i`` occupies rows and columns ``i Ns .. (i + 1) Ns``.
    """

    @staticmethod
    def check_name(name: str) -> None:
        parse_name(name)

    @classmethod
    def from_features(cls, features: Features) -> "Span":
        """The same Gram matrix, from a :class:`tasksim.solvers.features.Features`."""
        return cls(tuple(features.names), np.asarray(features.gram, dtype=float),
                   int(features.nx), int(features.ns))


@dataclass(frozen=True)
class ExplicitBlocks:
    """Explicit task matrices and gates from which named blocks are formed on demand.

    ``A[mu - 1]`` is A_mu (Nx x Ns); ``gates[nu - 1]`` is the boolean gate g_nu (length Nx);
    ``auxiliary`` holds A_0, the independent task whose Fisher metric may regularize the first
    task. Nothing is copied: blocks are formed when :meth:`block` is called.
    """

    A: tuple[np.ndarray, ...]
    gates: Optional[tuple[np.ndarray, ...]] = None
    auxiliary: Optional[np.ndarray] = None

    @property
    def nx(self) -> int:
        return self.A[0].shape[0]

    @property
    def ns(self) -> int:
        return self.A[0].shape[1]

    def task(self, mu: int) -> np.ndarray:
        """A_mu (``mu = 0`` is the auxiliary independent task)."""
        if mu == 0:
            if self.auxiliary is None:
                raise ValueError("block A0 (the independent metric task) was not given")
            return self.auxiliary
        if not 1 <= mu <= len(self.A):
            raise ValueError(f"task {mu} is not among the {len(self.A)} tasks given")
        return self.A[mu - 1]

    def gate(self, nu: int) -> np.ndarray:
        """g_nu, a boolean vector of length Nx."""
        if self.gates is None or not 1 <= nu <= len(self.gates):
            raise ValueError(f"gate {nu} was not given")
        return self.gates[nu - 1]

    def metric_diagonal(self, metric: str) -> np.ndarray:
        """diag(Delta) = sum_n a_{jn}^2, the diagonal Fisher metric of block ``metric``."""
        M = self.block(metric)
        diagonal = np.einsum("ij,ij->i", M, M)
        if not np.all(diagonal > 0.0):
            raise ValueError(f"the diagonal Fisher metric of {metric} has a zero entry: "
                             "a row of the task matrix vanishes, so Delta^{-1} does not exist")
        return diagonal

    def block(self, name: str, out: Optional[np.ndarray] = None,
              diagonals: Optional[dict[str, np.ndarray]] = None) -> np.ndarray:
        """The Nx x Ns matrix named ``name`` (a view of A_mu when ungated and ``out`` is None;
        else written into ``out``). ``diagonals`` memoizes the diagonal metrics by name."""
        metric, gate, mu = parse_name(name)
        X = self.task(mu)
        if gate is None and metric is None:
            if out is None:
                return X
            out[...] = X
            return out
        if gate is not None:
            X = np.multiply(X, self.gate(gate)[:, None], out=out)
        if metric is not None:
            if diagonals is None:
                diagonal = self.metric_diagonal(metric)
            else:
                if metric not in diagonals:
                    diagonals[metric] = self.metric_diagonal(metric)
                diagonal = diagonals[metric]
            X = np.divide(X, diagonal[:, None], out=out)
        return X

    def span(self, names: Sequence[str]) -> Span:
        """The Gram matrix of the named blocks (O(Nx k^2 Ns^2)).

        Up to :data:`STACK_BYTES` of blocks side by side, each block is formed once into one
        Nx x (k Ns) matrix whose Gram is a single matrix product; beyond it (Nx of order
        10^6), block by block, never copying an ungated task matrix.
        """
        names = tuple(names)
        ns = self.ns
        if self.nx * ns * len(names) * 8 <= STACK_BYTES:
            stacked = np.empty((self.nx, len(names) * ns))
            diagonals: dict[str, np.ndarray] = {}
            for i, name in enumerate(names):
                self.block(name, out=stacked[:, i * ns:(i + 1) * ns], diagonals=diagonals)
            gram = stacked.T @ stacked
            return Span(names, 0.5 * (gram + gram.T), self.nx, ns)
        gram = np.empty((len(names) * ns,) * 2)
        for i, left in enumerate(names):
            Xi = self.block(left)
            for j in range(i, len(names)):
                Xj = Xi if j == i else self.block(names[j])
                g = Xi.T @ Xj
                gram[i * ns:(i + 1) * ns, j * ns:(j + 1) * ns] = g
                gram[j * ns:(j + 1) * ns, i * ns:(i + 1) * ns] = g.T
        gram = 0.5 * (gram + gram.T)
        return Span(names, gram, self.nx, ns)
