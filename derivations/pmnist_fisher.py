"""Appendix E.2, "Weight regularization in the Fisher information metric": the Hessian of the
network's squared error, the regularizer R built from it, its layer-wise approximation R_lw,
their gradients and the diagonal approximation R_diag, derived in sympy from the network's
definition y = b_2 + W_2 phi(b_1 + W_1 x) and l = (1/2) ||y - y*||^2.

Sizes are explicit and small (Nx = Nh = Ny = 2 by default: every index pattern of the paper's
displays occurs, i = k and i != k, j = l and j != l), so each identity is checked entry by
entry, not typed in. The activation is a generic function phi with derivatives phi' and phi''
(:class:`phi`); after differentiation phi(a_k), phi'(a_k), phi''(a_k) become the symbols
named as the paper's phi_k, phi'_k, phi''_k (in LaTeX, as every symbol here is named).

The paper's convention (Sec. 6.2: the Fisher regularizer of the linear model is
(1/2)(1/gamma - 1) ||(W - W_{mu-1}) A_{mu-1}||^2) is the second-order term of the error's
expansion, (1/2) dw^T H dw. R as printed is dw^T H dw, without the 1/2; R_lw has it.

Examples
--------
>>> net = Network.build()
>>> sp.expand(hessian_w2w2(net)[0, 0] - net.phi[0] ** 2)
0
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["Network", "phi", "dphi", "ddphi", "hessian_w2w2", "hessian_w2w1", "hessian_w1w1",
           "printed_w2w2", "printed_w2w1", "printed_w1w1", "quadratic_form",
           "printed_R_sums", "printed_R_traces", "printed_R_lw", "second_order_block_diagonal",
           "printed_gradient_W1", "printed_gradient_W2", "gradient", "printed_R_diag",
           "diagonal_second_order"]


class ddphi(sp.Function):
    """phi'' (not differentiated further)."""


class dphi(sp.Function):
    """phi'."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return ddphi(self.args[0])


class phi(sp.Function):
    """The activation, a generic differentiable function (ReLU: phi'' = 0 almost everywhere)."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return dphi(self.args[0])


@dataclass(frozen=True)
class Network:
    """Symbols of one sample through the network: x (Nx), y* (Ny), W1 (Nh x Nx), b1, W2
    (Ny x Nh), b2, the anchor's deviations dW1, dW2, the loss ``loss`` as a function of the
    weights, and the symbols ``phi``, ``dphi``, ``ddphi`` that replace phi(a_k), phi'(a_k),
    phi''(a_k) (:meth:`plain`)."""

    x: sp.Matrix
    ystar: sp.Matrix
    W1: sp.Matrix
    b1: sp.Matrix
    W2: sp.Matrix
    b2: sp.Matrix
    dW1: sp.Matrix
    dW2: sp.Matrix
    loss: sp.Expr
    y: sp.Matrix
    pre: sp.Matrix
    phi: tuple[sp.Symbol, ...]
    dphi: tuple[sp.Symbol, ...]
    ddphi: tuple[sp.Symbol, ...]

    @classmethod
    def build(cls, nx: int = 2, nh: int = 2, ny: int = 2) -> "Network":
        # named as Appendix E.2 writes them, so that they typeset as the paper's symbols
        # (w^{(2)}_{ik}, y^*_i, phi'_k, delta W_1), never as a product of letters
        x = sp.Matrix(nx, 1, lambda j, _: sp.Symbol(f"x_{j + 1}", real=True))
        ystar = sp.Matrix(ny, 1, lambda i, _: sp.Symbol(f"y^*_{i + 1}", real=True))
        W1, W2, dW1, dW2 = (
            sp.Matrix(rows, cols, lambda i, j, name=name: sp.Symbol(
                f"{name}_{{{i + 1}{j + 1}}}", real=True))
            for rows, cols, name in ((nh, nx, "w^{(1)}"), (ny, nh, "w^{(2)}"),
                                     (nh, nx, r"\delta w^{(1)}"), (ny, nh, r"\delta w^{(2)}")))
        b1, b2 = (sp.Matrix(n, 1, lambda i, _, name=name: sp.Symbol(f"{name}_{i + 1}", real=True))
                  for n, name in ((nh, "b^{(1)}"), (ny, "b^{(2)}")))
        pre = b1 + W1 * x
        y = b2 + W2 * pre.applyfunc(phi)
        loss = sp.Rational(1, 2) * sum((y[i] - ystar[i]) ** 2 for i in range(ny))
        sym = lambda name: tuple(sp.Symbol(f"{name}_{k + 1}", real=True) for k in range(nh))
        return cls(x, ystar, W1, b1, W2, b2, dW1, dW2, loss, y, pre, sym(r"\phi"),
                   sym(r"\phi^{\prime}"), sym(r"\phi^{\prime\prime}"))

    def plain(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with phi(a_k), phi'(a_k), phi''(a_k) replaced by symbols, and y written
        out in them (so that y - y* stays explicit)."""
        table = {}
        for k in range(len(self.phi)):
            a = self.pre[k]
            table.update({phi(a): self.phi[k], dphi(a): self.dphi[k], ddphi(a): self.ddphi[k]})
        return expr.xreplace(table)

    @property
    def residual(self) -> sp.Matrix:
        """y - y*, in the symbols phi_k."""
        return self.plain(self.y - self.ystar)

    @property
    def grad_phi(self) -> sp.Matrix:
        """The diagonal matrix nabla phi of the paper (diag phi'_k)."""
        return sp.diag(*self.dphi)

    @property
    def phi_vector(self) -> sp.Matrix:
        return sp.Matrix(self.phi)


def _entries(m: sp.Matrix) -> list[sp.Symbol]:
    return [m[i, j] for i in range(m.rows) for j in range(m.cols)]


def _hessian(net: Network, first: sp.Matrix, second: sp.Matrix) -> sp.Matrix:
    """d^2 l / (d first_ij d second_kl), rows (ij), columns (kl), in plain symbols."""
    rows, cols = _entries(first), _entries(second)
    return sp.Matrix(len(rows), len(cols),
                     lambda r, c: net.plain(sp.diff(net.loss, rows[r], cols[c])))


def hessian_w2w2(net: Network) -> sp.Matrix:
    return _hessian(net, net.W2, net.W2)


def hessian_w2w1(net: Network) -> sp.Matrix:
    return _hessian(net, net.W2, net.W1)


def hessian_w1w1(net: Network) -> sp.Matrix:
    return _hessian(net, net.W1, net.W1)


def _indexed(first: sp.Matrix, second: sp.Matrix, entry) -> sp.Matrix:
    """A matrix over ((i, j), (k, l)) of ``entry(i, j, k, l)`` (0-based)."""
    pairs = lambda m: [(i, j) for i in range(m.rows) for j in range(m.cols)]
    a, b = pairs(first), pairs(second)
    return sp.Matrix(len(a), len(b), lambda r, c: entry(*a[r], *b[c]))


def _delta(a: int, b: int) -> int:
    return 1 if a == b else 0


def printed_w2w2(net: Network) -> sp.Matrix:
    """The paper's d^2 l/dw2_ij dw2_kl = delta_ik phi_j phi_l."""
    return _indexed(net.W2, net.W2, lambda i, j, k, l: _delta(i, k) * net.phi[j] * net.phi[l])


def printed_w2w1(net: Network) -> sp.Matrix:
    """The paper's d^2 l/dw2_ij dw1_kl = w2_ik phi'_k x_l phi_j + delta_jk (y_i - y*_i)
    phi'_j x_l."""
    r = net.residual
    return _indexed(net.W2, net.W1, lambda i, j, k, l:
                    net.W2[i, k] * net.dphi[k] * net.x[l] * net.phi[j]
                    + _delta(j, k) * r[i] * net.dphi[j] * net.x[l])


def printed_w1w1(net: Network) -> sp.Matrix:
    """The paper's d^2 l/dw1_ij dw1_kl = sum_m w2_mi phi'_i x_j w2_mk phi'_k x_l + delta_ik
    sum_m (y_m - y*_m) w2_mi phi''_i x_j x_l."""
    r, ny = net.residual, net.W2.rows
    return _indexed(net.W1, net.W1, lambda i, j, k, l: sum(
        net.W2[m, i] * net.dphi[i] * net.x[j] * net.W2[m, k] * net.dphi[k] * net.x[l]
        for m in range(ny)) + _delta(i, k) * sum(
        r[m] * net.W2[m, i] * net.ddphi[i] * net.x[j] * net.x[l] for m in range(ny)))


def quadratic_form(net: Network, *, cross: bool = True) -> sp.Expr:
    """dw^T H dw over the weights (W2 then W1, biases excluded), H the derived Hessian;
    without the W2-W1 blocks when ``cross`` is False. phi'' = 0 (ReLU)."""
    d2, d1 = sp.Matrix(_entries(net.dW2)), sp.Matrix(_entries(net.dW1))
    h22, h21, h11 = hessian_w2w2(net), hessian_w2w1(net), hessian_w1w1(net)
    form = (d2.T * h22 * d2)[0] + (d1.T * h11 * d1)[0]
    if cross:
        form += 2 * (d2.T * h21 * d1)[0]
    return sp.expand(form.subs({s: 0 for s in net.ddphi}))


def printed_R_sums(net: Network) -> sp.Expr:
    """The middle line of the paper's R display, with the sum over ijkl that its third term
    lacks supplied (without it the term has free indices): sum H22 dw2 dw2 + 2 sum H21 dw2
    dw1 + sum H11 dw1 dw1, the paper's Hessian entries, phi'' = 0."""
    d2, d1 = sp.Matrix(_entries(net.dW2)), sp.Matrix(_entries(net.dW1))
    form = ((d2.T * printed_w2w2(net) * d2)[0] + 2 * (d2.T * printed_w2w1(net) * d1)[0]
            + (d1.T * printed_w1w1(net) * d1)[0])
    return sp.expand(form.subs({s: 0 for s in net.ddphi}))


def _R_terms(net: Network) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """The four terms of the last line of the paper's R display: ||dW2 phi||^2, 2 tr[dW2^T W2
    nabla phi dW1 x phi^T], 2 tr[dW2 nabla phi dW1 x dy^T], ||W2 nabla phi dW1 x||^2."""
    p, g, x, dy = net.phi_vector, net.grad_phi, net.x, net.residual
    return ((net.dW2 * p).norm() ** 2,
            2 * (net.dW2.T * net.W2 * g * net.dW1 * x * p.T).trace(),
            2 * (net.dW2 * g * net.dW1 * x * dy.T).trace(),
            (net.W2 * g * net.dW1 * x).norm() ** 2)


def printed_R_traces(net: Network) -> sp.Expr:
    """The last line of the paper's R display: the sum of its four terms (:func:`_R_terms`)."""
    return sp.expand(sum(_R_terms(net), sp.Integer(0)))


def R_without_traces(net: Network) -> sp.Expr:
    """The last line of the paper's R display with its two trace terms (the cross terms
    between the layers, and the residual's) omitted, as line 1398 says the layer-wise
    approximation does: ||dW2 phi||^2 + ||W2 nabla phi dW1 x||^2."""
    first, _, _, fourth = _R_terms(net)
    return sp.expand(first + fourth)


def printed_R_lw(net: Network) -> sp.Expr:
    """The paper's R_lw for one sample (the expectation is linear): (1/2) ||dW2 phi||^2 +
    (1/2) ||W2 nabla phi dW1 x||^2."""
    half = sp.Rational(1, 2)
    return sp.expand(half * (net.dW2 * net.phi_vector).norm() ** 2
                     + half * (net.W2 * net.grad_phi * net.dW1 * net.x).norm() ** 2)


def second_order_block_diagonal(net: Network) -> sp.Expr:
    """(1/2) dw^T H dw without the W2-W1 blocks: the second-order term of the error's
    expansion with the cross terms between layers omitted (the paper's convention, module
    docstring)."""
    return sp.expand(sp.Rational(1, 2) * quadratic_form(net, cross=False))


def gradient(expr: sp.Expr, wrt: sp.Matrix) -> sp.Matrix:
    """d expr / d wrt, entry by entry."""
    return wrt.applyfunc(lambda w: sp.expand(sp.diff(expr, w)))


def printed_gradient_W1(net: Network) -> sp.Matrix:
    """The paper's dR_lw/d(dW1) for one sample: nabla phi W2^T W2 nabla phi dW1 x x^T."""
    g = net.grad_phi
    return (g * net.W2.T * net.W2 * g * net.dW1 * net.x * net.x.T).applyfunc(sp.expand)


def printed_gradient_W2(net: Network) -> sp.Matrix:
    """The paper's dR_lw/d(dW2) for one sample: dW2 phi phi^T."""
    return (net.dW2 * net.phi_vector * net.phi_vector.T).applyfunc(sp.expand)


Z1, Z2 = sp.symbols("Z_1 Z_2", positive=True)


def printed_R_diag(net: Network) -> sp.Expr:
    """The paper's R_diag for one sample: 1/(2 Z1) sum_ij sum_k (w2_ki phi'_i x_j)^2
    dw1_ij^2 + 1/(2 Z2) sum_ij phi_j^2 dw2_ij^2."""
    first = sum((net.W2[k, i] * net.dphi[i] * net.x[j]) ** 2 * net.dW1[i, j] ** 2
                for i in range(net.W1.rows) for j in range(net.W1.cols)
                for k in range(net.W2.rows))
    second = sum(net.phi[j] ** 2 * net.dW2[i, j] ** 2
                 for i in range(net.W2.rows) for j in range(net.W2.cols))
    return sp.expand(first / (2 * Z1) + second / (2 * Z2))


def diagonal_second_order(net: Network) -> sp.Expr:
    """(1/2) sum of the diagonal Hessian entries times dw^2, each layer scaled by its Z:
    the diagonal approximation of the second-order term, phi'' = 0."""
    zero = {s: 0 for s in net.ddphi}
    h11, h22 = hessian_w1w1(net).subs(zero), hessian_w2w2(net)
    d1, d2 = _entries(net.dW1), _entries(net.dW2)
    return sp.expand(sum(h11[n, n] * d1[n] ** 2 for n in range(len(d1))) / (2 * Z1)
                     + sum(h22[n, n] * d2[n] ** 2 for n in range(len(d2))) / (2 * Z2))
