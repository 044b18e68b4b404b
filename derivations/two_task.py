"""The two-task model as matrix words: weights, errors, readout expectation, surrogates.

Everything the vanilla and activity-gating derivations share, each piece an explicit step:

1. *weights* at the gradient-flow fixed point from W_0 = 0 (eq_W_fp_gated_gd,
   eq_W1_W2_expression): W_1 = B_1 (D_1 A_1)^+, W_2 = W_1 (I_x - U_2 U_2^T) + B_2 (D_2 A_2)^+,
   with the pseudo-inverse and the projector U U^T kept as opaque letters;
2. *error* (eq_ap_epsilonW): eps_mu[W] = (1/Ny) ||B_mu - W D_mu A_mu||_F^2, i.e. the squared
   norm of a residual R;
3. *exact identity* (D_mu A_mu)^+ D_mu A_mu = I_s (D_mu A_mu has full column rank, almost
   surely when alpha Nx >= Ns), applied before any approximation, as the appendix does;
4. *readout expectation*: R = sum_mu B_mu M_mu with B independent of A and the gates, and
   E[B_mu^T B_nu] = (Ny/Ns) rho_b^|mu - nu| I_s, so E_B ||R||^2 / Ny = tr Q with
   Q = (1/Ns) sum_{mu nu} rho_b^|mu - nu| M_mu^T M_nu (a lemma of two lines: B enters
   quadratically);
5. *surrogates* of Appendix D: (D A)^+ -> Ns/(alpha Nx) (D A)^T (eq_DA+_approx) and
   U U^T -> Ns/(alpha Nx) D A A^T D (eq_UUt_approx); Ns/Nx without gates;
6. the engine's *exact* expectation of tr Q after the surrogates (finite Nx, Ns), from which
   leading and next-to-leading orders are read.

The vanilla model is the ungated one (D = I, alpha~ = 1).

Examples
--------
>>> from tasksim.derivations.engine import ratio_expansion
>>> d = transfer(TwoTaskModel(gated=False), "appendix")
>>> ratio_expansion(d.value, 0)[0]
rho_a*(-rho_a + 2*rho_b)
>>> [s.name for s in d.steps][:3]
['weights (eq_W1_W2_expression)', 'error eps_2[W_0] (eq_ap_epsilonW)', 'exact identity (DA)^+ DA = I_s']
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import sympy as sp

from .claims import Step
from .engine import expect_trace
from .matrix_words import MatrixExpr, eye, gate, opaque, readout, task
from .symbols import Ns, Nx, alpha, rho_b

__all__ = [
    "Surrogates",
    "TwoTaskModel",
    "ErrorDerivation",
    "readout_parts",
    "readout_average",
    "expected_error",
    "transfer",
    "retention",
    "probe_error",
]


@dataclass(frozen=True)
class Surrogates:
    """Scales of the tall-matrix surrogates (Appendix D); ``None`` means the paper's.

    ``pinv_scale``: (D A)^+ -> pinv_scale (D A)^T (eq_DA+_approx; paper: Ns/(alpha Nx)).
    ``projector_scale``: U U^T -> projector_scale D A A^T D (eq_UUt_approx; same scale).
    ``identities``: apply the exact (D A)^+ D A = I_s before the surrogates (the paper does).

    >>> Surrogates().pinv_scale is None, Surrogates(identities=False).identities
    (True, False)
    """

    pinv_scale: Optional[sp.Expr] = None
    projector_scale: Optional[sp.Expr] = None
    identities: bool = True


@dataclass(frozen=True)
class TwoTaskModel:
    """Two tasks learned in sequence from W_0 = 0, with activity gates if ``gated``.

    >>> TwoTaskModel().weights(1)
    B_1 (D_{1} A_{1})^{+}
    >>> TwoTaskModel(gated=False).residual(2, 1)
    B_2 + (-1)*B_1 A_{1}^{+} A_2
    """

    gated: bool = True

    @property
    def paper_scale(self) -> sp.Expr:
        """Ns/(alpha Nx) with gates, Ns/Nx without (eq_DA+_approx, eq_AtA_approx)."""
        return Ns / (alpha * Nx) if self.gated else Ns / Nx

    def features(self, mu: int, gate_of: Optional[int] = None) -> MatrixExpr:
        """D_nu A_mu (nu = ``gate_of``, default mu), or A_mu without gates."""
        nu = mu if gate_of is None else gate_of
        return gate(nu) @ task(mu) if self.gated else task(mu)

    def pinv(self, mu: int) -> MatrixExpr:
        """(D_mu A_mu)^+ as an opaque Ns x Nx letter."""
        name = rf"(D_{{{mu}}} A_{{{mu}}})^{{+}}" if self.gated else rf"A_{{{mu}}}^{{+}}"
        return opaque(name, "s", "x")

    def projector(self, mu: int) -> MatrixExpr:
        """U_mu U_mu^T (projector on the column space of D_mu A_mu), opaque and symmetric."""
        return opaque(rf"U_{{{mu}}} U_{{{mu}}}^{{T}}", "x", "x", symmetric=True)

    def weights(self, after: int) -> MatrixExpr:
        """W_after: W_0 = 0, W_1, W_2 of eq_W1_W2_expression (Ny x Nx)."""
        if after == 0:
            return MatrixExpr({}, "y", "x")
        if after == 1:
            return readout(1) @ self.pinv(1)
        if after == 2:
            return self.weights(1) @ (eye("x") - self.projector(2)) + readout(2) @ self.pinv(2)
        raise ValueError(f"after must be 0, 1 or 2 (tasks learned), got {after!r}")

    def residual(self, mu: int, after: int, gate_of: Optional[int] = None) -> MatrixExpr:
        """B_mu - W_after D_nu A_mu: its squared norm over Ny is eps_mu (eq_ap_epsilonW)."""
        if mu not in (1, 2):
            raise ValueError(f"mu must be 1 or 2, got {mu!r}")
        return readout(mu) - self.weights(after) @ self.features(mu, gate_of)

    def apply_identities(self, expr: MatrixExpr) -> MatrixExpr:
        """(D_mu A_mu)^+ D_mu A_mu = I_s for mu = 1, 2 (exact: full column rank)."""
        for mu in (1, 2):
            expr = expr.replace(self.pinv(mu) @ self.features(mu), eye("s"))
        return expr

    def surrogate_map(self, surrogates: Surrogates) -> dict[MatrixExpr, MatrixExpr]:
        """The replacements of eq_DA+_approx and eq_UUt_approx at the given scales."""
        p = self.paper_scale if surrogates.pinv_scale is None else surrogates.pinv_scale
        q = self.paper_scale if surrogates.projector_scale is None else surrogates.projector_scale
        table = {}
        for mu in (1, 2):
            F = self.features(mu)
            table[self.pinv(mu)] = p * F.T
            table[self.projector(mu)] = q * (F @ F.T)
        return table


def readout_parts(residual: MatrixExpr) -> dict[int, MatrixExpr]:
    """{mu: M_mu} with residual = sum_mu B_mu M_mu (every word must start with B_mu).

    >>> readout_parts(readout(2) - readout(1) @ task(1).T @ task(2))
    {2: I_s, 1: (-1)*A_1^T A_2}
    """
    if residual.rows != "y":
        raise ValueError(f"a residual has rows in the y space, got {residual.rows!r}")
    parts: dict[int, MatrixExpr] = {}
    for word, coeff in residual:
        head = word[0]
        if head.kind != "B" or head.transposed:
            raise ValueError(f"every word of the residual must start with B_mu, got {word}")
        rest = MatrixExpr({word[1:]: coeff}, "s", residual.cols) if len(word) > 1 else (
            coeff * eye("s"))
        parts[head.task] = parts[head.task] + rest if head.task in parts else rest
    return parts


def readout_average(residual: MatrixExpr, *, normalise: bool = True) -> MatrixExpr:
    """Q with E_B ||residual||_F^2 / Ny = tr Q (without ``/ Ny`` if not ``normalise``).

    The residual must be sum_mu B_mu M_mu (every word starts with B_1 or B_2). Uses
    E[B_mu^T B_nu] = (Ny/Ns) rho_b^|mu-nu| I_s (Appendix A; B independent of A and gates).

    >>> from tasksim.derivations.engine import expect_trace
    >>> Q = readout_average(readout(2) - readout(1) @ task(1).T @ task(2))
    >>> Q.shape
    ('s', 's')
    """
    parts = readout_parts(residual)
    prefactor = 1 / Ns if normalise else sp.Symbol("N_y", positive=True, integer=True) / Ns
    Q = MatrixExpr({}, "s", "s")
    for mu, M in parts.items():
        for nu, N in parts.items():
            Q = Q + (prefactor * rho_b ** abs(mu - nu)) * (M.T @ N)
    return Q


@dataclass(frozen=True)
class ErrorDerivation:
    """An expected error or a difference of errors: its exact value after the named
    surrogates (finite Nx, Ns; in alpha and alpha~) and the steps that produced it.

    >>> expected_error(TwoTaskModel(), 2, 0).value
    1
    """

    value: sp.Expr
    steps: tuple[Step, ...]


def _noncommutative(expr: MatrixExpr) -> sp.Expr:
    return expr.to_sympy()


@lru_cache(maxsize=None)
def expected_error(
    model: TwoTaskModel,
    mu: int,
    after: int,
    generator: str = "appendix",
    surrogates: Surrogates = Surrogates(),
    normalise: bool = True,
    gate_of: Optional[int] = None,
) -> ErrorDerivation:
    """<eps_mu[W_after]> over A, B and gates (gate ``gate_of`` on the input: probe trials).

    Steps: error definition, exact identity, readout expectation, surrogates, engine.

    >>> expected_error(TwoTaskModel(), 2, 0).value  # <eps_2[W_0]> = <||B_2||^2>/Ny
    1
    """
    label = f"eps_{mu}[W_{after}]" if gate_of is None else f"eps_pb (gate {gate_of})"
    R = model.residual(mu, after, gate_of)
    steps = [Step(f"error {label} (eq_ap_epsilonW)", _noncommutative(R),
                  "residual R; the error is ||R||_F^2 / Ny")]
    if surrogates.identities:
        R = model.apply_identities(R)
        steps.append(Step("exact identity (DA)^+ DA = I_s", _noncommutative(R),
                          "full column rank of D_mu A_mu"))
    Q = readout_average(R, normalise=normalise)
    steps.append(Step("readout expectation", _noncommutative(Q),
                      "E_B ||R||^2 / Ny = tr Q, E[B_mu^T B_nu] = (Ny/Ns) rho_b^|mu-nu| I"))
    if Q.has_opaque():
        Q = Q.subs(model.surrogate_map(surrogates))
        steps.append(Step("surrogates (eq_DA+_approx, eq_UUt_approx)", _noncommutative(Q),
                          f"scales {surrogates.pinv_scale or model.paper_scale}, "
                          f"{surrogates.projector_scale or model.paper_scale}"))
    value = expect_trace(Q, generator, alpha_tilde=True)
    steps.append(Step(f"engine expectation ({generator} generator)", value,
                      "exact at finite Nx, Ns given the surrogates"))
    return ErrorDerivation(value, tuple(steps))


def _difference(model: TwoTaskModel, mu: int, before: int, after: int, generator: str,
                surrogates: Surrogates, normalise: bool, name: str) -> ErrorDerivation:
    base = expected_error(model, mu, before, generator, surrogates, normalise)
    trained = expected_error(model, mu, after, generator, surrogates, normalise)
    weights = Step("weights (eq_W1_W2_expression)",
                   sp.Tuple(*[_noncommutative(model.weights(k)) for k in (1, 2)]),
                   "W_1, W_2 from W_0 = 0 (eq_W_fp_gated_gd)")
    value = sp.expand(base.value - trained.value)
    return ErrorDerivation(
        value,
        (weights,) + base.steps + trained.steps + (Step(name, value, "difference"),),
    )


def transfer(model: TwoTaskModel, generator: str = "appendix",
             surrogates: Surrogates = Surrogates(), normalise: bool = True) -> ErrorDerivation:
    """Delta eps_TF = <eps_2[W_0] - eps_2[W_1]> (eq_def_delta_epsilon_TF_RT).

    >>> sp.factor(transfer(TwoTaskModel(gated=False)).value)
    -(N_s + N_x*rho_a**2 - 2*N_x*rho_a*rho_b - rho_a**2 + 2*rho_a)/N_x
    """
    return _difference(model, 2, 0, 1, generator, surrogates, normalise, "Delta eps_TF")


def retention(model: TwoTaskModel, generator: str = "appendix",
              surrogates: Surrogates = Surrogates(), normalise: bool = True) -> ErrorDerivation:
    """Delta eps_RT = <eps_1[W_0] - eps_1[W_2]> (eq_def_delta_epsilon_TF_RT).

    >>> retention(TwoTaskModel()).steps[-1].name
    'Delta eps_RT'
    """
    return _difference(model, 1, 0, 2, generator, surrogates, normalise, "Delta eps_RT")


def probe_error(model: TwoTaskModel, generator: str = "appendix",
                surrogates: Surrogates = Surrogates(), normalise: bool = True
                ) -> ErrorDerivation:
    """<eps_pb> = (1/Ny) <||B_2 - W_1 D_1 A_2||^2>: task 2 solved with the gate of task 1.

    >>> probe_error(TwoTaskModel()).steps[-1].name
    'engine expectation (appendix generator)'
    """
    if not model.gated:
        raise ValueError("the probe trial needs gates (TwoTaskModel(gated=True))")
    return expected_error(model, 2, 1, generator, surrogates, normalise, gate_of=1)
