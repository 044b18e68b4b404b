"""The one-hidden-layer ReLU network of the permuted-digits experiment and its mini-batch SGD
(Appendix E.2, subsec_appendix_pMNIST, "Model implementation").

y = b_2 + W_2 ReLU(b_1 + W_1 x): Nx inputs, Nh hidden units, Ny = 10 outputs. W_1 and b_1
start with independent N(0, 1/Nh^2) entries, W_2 and b_2 with N(0, 1/Ny^2) (small, for the
rich regime). With activity gating (Sec. 5.1, applied to the input and the hidden layer as
Sec. 7 states) the network is y = b_2 + W_2 (g_h * ReLU(b_1 + W_1 (g_x * x))) with binary
gates g_x, g_h.

The error of a task is the paper's epsilon: the squared error averaged over the Ny outputs
and over the samples, (1/Ny) <||y* - y||^2>. SGD descends exactly that average over a
mini-batch, W <- W - eta (grad epsilon_batch + grad R) for a weight regularizer R
(:mod:`tasksim.solvers.pmnist.penalties`; biases are never regularized). ReLU'(0) = 0.

The arrays are updated in place for speed (one epoch of MNIST at the paper's sizes is
dominated by its matrix products: ``benchmarks/bench_pmnist.py``); the functions that compute
errors and gradients are pure.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> net = init_network(rng, nx=6, nh=8, ny=3)
>>> x, y = rng.random((20, 6)).astype(np.float32), rng.random((20, 3)).astype(np.float32)
>>> before = mean_squared_error(net, x, y)
>>> for _ in range(50):
...     sgd_epoch(net, x, y, batch=5, learning_rate=0.1, order=rng.permutation(20))
>>> bool(mean_squared_error(net, x, y) < before)
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol

import numpy as np

__all__ = ["Network", "Gates", "Penalty", "init_network", "forward", "mean_squared_error",
           "loss_gradients", "sgd_epoch", "augment", "augmented_error",
           "sgd_epoch_augmented"]


@dataclass
class Network:
    """Weights and biases, stored as the augmented matrices [W_1 | b_1] (Nh x (Nx + 1)) and
    [W_2 | b_2] (Ny x (Nh + 1)), one dtype; ``W1``, ``b1``, ``W2``, ``b2`` are views of them.

    (An augmented matrix makes a bias one more column of its weight: one product and one
    update per layer and step instead of two, a third fewer operations per SGD step.)

    Examples
    --------
    >>> net = Network.from_parts(np.ones((2, 3)), np.zeros(2), np.ones((1, 2)), np.ones(1))
    >>> net.layer1.shape, net.b2.tolist(), net.sizes
    ((2, 4), [1.0], (3, 2, 1))
    """

    layer1: np.ndarray
    layer2: np.ndarray

    @classmethod
    def from_parts(cls, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray
                   ) -> "Network":
        return cls(np.ascontiguousarray(np.column_stack([W1, b1])),
                   np.ascontiguousarray(np.column_stack([W2, b2])))

    @property
    def W1(self) -> np.ndarray:
        return self.layer1[:, :-1]

    @W1.setter
    def W1(self, value: np.ndarray) -> None:
        self.layer1[:, :-1] = value

    @property
    def b1(self) -> np.ndarray:
        return self.layer1[:, -1]

    @b1.setter
    def b1(self, value: np.ndarray) -> None:
        self.layer1[:, -1] = value

    @property
    def W2(self) -> np.ndarray:
        return self.layer2[:, :-1]

    @W2.setter
    def W2(self, value: np.ndarray) -> None:
        self.layer2[:, :-1] = value

    @property
    def b2(self) -> np.ndarray:
        return self.layer2[:, -1]

    @b2.setter
    def b2(self, value: np.ndarray) -> None:
        self.layer2[:, -1] = value

    def copy(self) -> "Network":
        return Network(self.layer1.copy(), self.layer2.copy())

    @property
    def sizes(self) -> tuple[int, int, int]:
        """(Nx, Nh, Ny)."""
        return int(self.layer1.shape[1] - 1), int(self.layer1.shape[0]), int(self.layer2.shape[0])


@dataclass(frozen=True)
class Gates:
    """Binary gates of the input (length Nx) and hidden (length Nh) layers; None: all open."""

    input: Optional[np.ndarray] = None
    hidden: Optional[np.ndarray] = None


class Penalty(Protocol):
    """A weight regularizer R(W_1, W_2): its value and its gradient (dR/dW_1, dR/dW_2)."""

    def value(self, net: Network) -> float: ...

    def gradient(self, net: Network) -> tuple[np.ndarray, np.ndarray]: ...


def init_network(rng: np.random.Generator, *, nx: int, nh: int, ny: int,
                 dtype: type = np.float32) -> Network:
    """The paper's small initialisation: W_1, b_1 ~ N(0, 1/Nh^2), W_2, b_2 ~ N(0, 1/Ny^2).

    Examples
    --------
    >>> net = init_network(np.random.default_rng(1), nx=784, nh=1500, ny=10)
    >>> round(float(net.W1.std()) * 1500, 1), round(float(net.W2.std()) * 10, 1), net.sizes
    (1.0, 1.0, (784, 1500, 10))
    """
    W1 = rng.standard_normal((nh, nx)) / nh
    b1 = rng.standard_normal(nh) / nh
    W2 = rng.standard_normal((ny, nh)) / ny
    b2 = rng.standard_normal(ny) / ny
    return Network.from_parts(*(a.astype(dtype) for a in (W1, b1, W2, b2)))


def augment(x: np.ndarray, gates: Optional[Gates] = None) -> np.ndarray:
    """[g_x * x | 1]: the rows of ``x``, gated, with a column of ones for the bias (what
    :func:`augmented_error` and :func:`sgd_epoch_augmented` take).

    Examples
    --------
    >>> augment(np.array([[2.0, 3.0]]), Gates(input=np.array([False, True]))).tolist()
    [[0.0, 3.0, 1.0]]
    """
    out = np.empty((x.shape[0], x.shape[1] + 1), dtype=x.dtype)
    if gates is None or gates.input is None:
        out[:, :-1] = x
    else:
        np.multiply(x, gates.input.astype(x.dtype), out=out[:, :-1])
    out[:, -1] = 1
    return out


def _hidden_gate(net: Network, gates: Optional[Gates]) -> Optional[np.ndarray]:
    return None if gates is None or gates.hidden is None else gates.hidden.astype(net.layer1.dtype)


class _Buffers:
    """The arrays of one SGD step, allocated once per epoch (no allocation per step)."""

    def __init__(self, net: Network, batch: int):
        nx, nh, ny = net.sizes
        dtype = net.layer1.dtype
        self.x = np.empty((batch, nx + 1), dtype)
        self.y = np.empty((batch, ny), dtype)
        self.hidden = np.empty((batch, nh + 1), dtype)
        self.hidden[:, -1] = 1  # the bias column; products write only the other columns
        self.output = np.empty((batch, ny), dtype)
        self.back = np.empty((batch, nh), dtype)
        self.mask = np.empty((batch, nh), bool)
        self.step1 = np.empty_like(net.layer1)
        self.step2 = np.empty_like(net.layer2)


def _propagate(net: Network, x_aug: np.ndarray, hidden_gate: Optional[np.ndarray],
               hidden: Optional[np.ndarray] = None, output: Optional[np.ndarray] = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """([g_h * ReLU(layer1 x_aug) | 1], output) for augmented inputs ``x_aug`` (into
    ``hidden`` and ``output`` when given; ``hidden``'s last column must hold ones)."""
    if hidden is None:
        hidden = np.empty((x_aug.shape[0], net.layer1.shape[0] + 1), dtype=net.layer1.dtype)
        hidden[:, -1] = 1
    active = hidden[:, :-1]
    np.matmul(x_aug, net.layer1.T, out=active)
    np.maximum(active, 0, out=active)
    if hidden_gate is not None:
        active *= hidden_gate
    return hidden, np.matmul(hidden, net.layer2.T, out=output)


def forward(net: Network, x: np.ndarray, gates: Optional[Gates] = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """(hidden activity g_h * ReLU(b_1 + W_1 (g_x * x)), output), one row per sample."""
    hidden, output = _propagate(net, augment(x, gates), _hidden_gate(net, gates))
    return hidden[:, :-1], output


def augmented_error(net: Network, x_aug: np.ndarray, y: np.ndarray,
                    hidden_gate: Optional[np.ndarray] = None, *, chunk: int = 10000) -> float:
    """:func:`mean_squared_error` for augmented inputs (:func:`augment`) and a hidden gate
    given as 0/1 values of the network's dtype (None: all open)."""
    total = 0.0
    for start in range(0, len(x_aug), chunk):
        _, out = _propagate(net, x_aug[start:start + chunk], hidden_gate)
        out -= y[start:start + chunk]
        total += float(np.einsum("ij,ij->", out, out, dtype=np.float64))
    return total / (len(x_aug) * y.shape[1])


def mean_squared_error(net: Network, x: np.ndarray, y: np.ndarray,
                       gates: Optional[Gates] = None, *, chunk: int = 10000) -> float:
    """epsilon = (1/Ny) <||y - network(x)||^2> over the rows of ``x`` (in chunks of rows).

    Examples
    --------
    >>> net = Network.from_parts(np.zeros((2, 3)), np.zeros(2), np.zeros((1, 2)), np.zeros(1))
    >>> mean_squared_error(net, np.ones((4, 3)), np.full((4, 1), 2.0))
    4.0
    """
    total = 0.0
    for start in range(0, len(x), chunk):
        rows = slice(start, start + chunk)
        part = augmented_error(net, augment(x[rows], gates), y[rows], _hidden_gate(net, gates))
        total += part * len(x[rows])
    return total / len(x)


def loss_gradients(net: Network, x: np.ndarray, y: np.ndarray,
                   gates: Optional[Gates] = None) -> Network:
    """Gradients of the batch error (1/(n Ny)) sum ||network(x) - y||^2 with respect to W1, b1,
    W2, b2 (returned as a :class:`Network` of gradients); zero on closed gates.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> net = init_network(rng, nx=3, nh=4, ny=2, dtype=np.float64)
    >>> g = loss_gradients(net, rng.random((5, 3)), rng.random((5, 2)),
    ...                    Gates(input=np.array([True, False, True])))
    >>> g.W1.shape, g.b2.shape, bool((g.W1[:, 1] == 0).all())
    ((4, 3), (2,), True)
    """
    buffers = _Buffers(net, len(x))
    buffers.x[...] = augment(x, gates)
    buffers.y[...] = y
    _gradients(net, buffers, _hidden_gate(net, gates), 1.0)
    return Network(buffers.step1, buffers.step2)


def _gradients(net: Network, b: _Buffers, hidden_gate: Optional[np.ndarray],
               scale: float) -> None:
    """``scale`` times the gradients of the error of the batch in ``b.x``, ``b.y``, into
    ``b.step1`` and ``b.step2``."""
    _propagate(net, b.x, hidden_gate, b.hidden, b.output)
    b.output -= b.y
    b.output *= b.output.dtype.type(2.0 * scale / b.output.size)
    np.matmul(b.output, net.W2, out=b.back)
    np.greater(b.hidden[:, :-1], 0, out=b.mask)  # ReLU' (0 at a <= 0), 0 on closed gates
    b.back *= b.mask
    np.matmul(b.back.T, b.x, out=b.step1)
    np.matmul(b.output.T, b.hidden, out=b.step2)


def sgd_epoch_augmented(net: Network, x_aug: np.ndarray, y: np.ndarray, *, batch: int,
                        learning_rate: float, order: np.ndarray,
                        hidden_gate: Optional[np.ndarray] = None,
                        penalty: Optional[Penalty] = None) -> None:
    """:func:`sgd_epoch` for augmented inputs (:func:`augment`, gated already) and a hidden
    gate of 0/1 values of the network's dtype (None: all open)."""
    buffers = _Buffers(net, batch)
    eta = net.layer1.dtype.type(learning_rate)
    for start in range(0, len(order) - batch + 1, batch):
        rows = order[start:start + batch]
        np.take(x_aug, rows, axis=0, out=buffers.x)
        np.take(y, rows, axis=0, out=buffers.y)
        _gradients(net, buffers, hidden_gate, learning_rate)
        if penalty is not None:
            extra1, extra2 = penalty.gradient(net)
            extra1 *= eta
            extra2 *= eta
            buffers.step1[:, :-1] += extra1
            buffers.step2[:, :-1] += extra2
        net.layer1 -= buffers.step1
        net.layer2 -= buffers.step2


def sgd_epoch(net: Network, x: np.ndarray, y: np.ndarray, *, batch: int,
              learning_rate: float, order: np.ndarray, gates: Optional[Gates] = None,
              penalty: Optional[Penalty] = None) -> None:
    """One epoch of mini-batch SGD on (x, y), updating ``net`` in place.

    ``order`` is the epoch's shuffle of the rows; consecutive slices of ``batch`` rows are
    the mini-batches, and a last incomplete slice is dropped. ``x`` is gated here when
    ``gates.input`` is set (pass ungated inputs). ``penalty`` adds dR/dW to the weights'
    gradients (not to the biases').
    """
    sgd_epoch_augmented(net, augment(x, gates), y, batch=batch, learning_rate=learning_rate,
                        order=order, hidden_gate=_hidden_gate(net, gates), penalty=penalty)
