"""The feature blocks of a task sequence and their Gram matrix.

Every linear model in the paper (vanilla, activity and plasticity gating, Euclidean and
Fisher-metric regularization) learns weights in the span of a few Nx x Ns *feature blocks*
(A_mu, D_nu A_mu), and its errors depend on the task matrices only through the Gram
matrix of those blocks. :class:`Features` is that Gram matrix with names for its blocks; it
never holds an Nx x Nx matrix.

Block names: ``"A2"`` is A_2; ``"D1A2"`` is D_1 A_2 (gate of task 1 applied to the input of
task 2). Tasks are numbered from 1 as in the paper.

It is built either from explicit matrices (:meth:`Features.from_matrices`, cost
O(Nx k^2 Ns^2)) or sampled directly from its known distribution (``tasksim.solvers.gram``), at a
cost independent of Nx.

Examples
--------
>>> import numpy as np
>>> from tasksim.solvers.tasks import draw_tasks
>>> t = draw_tasks(nx=40, ns=3, ny=2, rho_a=0.5, rho_b=0.5, seed=0)
>>> f = Features.from_matrices(t.A, gates=None, names=("A1", "A2"))
>>> f.block("A1", "A2").shape
(3, 3)
>>> bool(np.allclose(f.block("A2", "A1"), t.A[1].T @ t.A[0]))
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

__all__ = ["Features", "parse_block"]

_BLOCK = re.compile(r"^(?:D(\d+))?A(\d+)$")


def parse_block(name: str) -> tuple[Optional[int], int]:
    """``"D1A2"`` -> (1, 2); ``"A2"`` -> (None, 2). Task numbers start at 1."""
    m = _BLOCK.match(name)
    if m is None:
        raise ValueError(f"not a feature block name: {name!r} (expected 'A<mu>' or 'D<nu>A<mu>')")
    gate = None if m.group(1) is None else int(m.group(1))
    task = int(m.group(2))
    if task < 1 or (gate is not None and gate < 1):
        raise ValueError(f"task numbers start at 1: {name!r}")
    return gate, task


@dataclass(frozen=True)
class Features:
    """Named Nx x Ns feature blocks, represented by their (k Ns) x (k Ns) Gram matrix."""

    names: tuple[str, ...]
    gram: np.ndarray
    nx: int
    ns: int

    def __post_init__(self) -> None:
        k = len(self.names)
        if self.gram.shape != (k * self.ns, k * self.ns):
            raise ValueError(f"gram has shape {self.gram.shape}, expected {(k * self.ns,) * 2}")
        if len(set(self.names)) != k:
            raise ValueError(f"block names repeat: {self.names}")
        if not np.all(np.isfinite(self.gram)):
            raise ValueError("gram must be finite (it contains NaN or inf)")
        for n in self.names:
            self.check_name(n)

    @staticmethod
    def check_name(name: str) -> None:
        """Raise ValueError unless ``name`` is a block name this class accepts."""
        parse_block(name)

    @property
    def size(self) -> int:
        """k Ns, the number of columns of the stacked blocks."""
        return len(self.names) * self.ns

    def index(self, name: str) -> slice:
        """Rows/columns of block ``name`` in :attr:`gram`."""
        try:
            i = self.names.index(name)
        except ValueError:
            raise KeyError(f"block {name!r} not among {self.names}") from None
        return slice(i * self.ns, (i + 1) * self.ns)

    def block(self, left: str, right: str) -> np.ndarray:
        """X_left^T X_right, an Ns x Ns matrix."""
        return self.gram[self.index(left), self.index(right)]

    def column(self, right: str) -> np.ndarray:
        """[X_b^T X_right for every block b], stacked: a (k Ns) x Ns matrix."""
        return self.gram[:, self.index(right)]

    @classmethod
    def from_matrices(
        cls,
        A: Sequence[np.ndarray],
        gates: Optional[Sequence[np.ndarray]],
        names: Sequence[str],
    ) -> "Features":
        """Form the blocks from explicit task matrices (and boolean gates) and their Gram."""
        blocks = []
        for name in names:
            gate, task = parse_block(name)
            if task > len(A):
                raise ValueError(f"block {name!r} names task {task}, only {len(A)} given")
            X = A[task - 1]
            if gate is not None:
                if gates is None or gate > len(gates):
                    raise ValueError(f"block {name!r} needs gate {gate}, not given")
                X = X * gates[gate - 1][:, None]
            blocks.append(X)
        stacked = np.concatenate(blocks, axis=1)
        gram = stacked.T @ stacked
        return cls(tuple(names), 0.5 * (gram + gram.T), A[0].shape[0], A[0].shape[1])
