"""What the toolkit predicts for a finite-size probe: the leading order, the derived 1/Nx
coefficient, the coefficient the paper's printed terms imply, and exact closed forms in Nx.

This module joins :mod:`tasksim.derivations` (the formulas) and a
:class:`tasksim.solvers.probe.ProbeSpec` (the parameter point): every number comes from a
derived expression evaluated at the probe's parameters, none is typed in.

Sources
-------
- Gram models (vanilla, random and plasticity gating, Euclidean, Fisher):
  :func:`tasksim.derivations.finite_size.finite_size` (leading order and exact 1/Nx
  coefficient for the probe's generator) and :func:`tasksim.derivations.finite_size.paper_nlo`.
- Exact closed forms: the vanilla transfer under the gaussian generator
  (:func:`tasksim.derivations.vanilla.exact_gaussian_transfer`, Nx > Ns + 1; Fisher's transfer
  is the same, task 1 being learned without regularization); the Fisher retention, exactly 1
  when rank [A_1, A_2] = 2 Ns (:func:`tasksim.derivations.fisher.exact_retention`); Fisher
  at rho_a = 1 (:func:`tasksim.derivations.fisher.transfer_rho1`, ``retention_rho1``: no Nx
  at all).
- Euclidean at a fixed lambda (``--lam``): gamma = Nx/(Nx + lambda Ns) drifts to 1, so the
  limit is gamma = 1's and the 1/Nx coefficient gains -lambda Ns d(leading)/d gamma at 1.
- Fisher at lambda = 0 (gamma = 1) is the vanilla model, and predicted as such.
- Adaptive gating, soft-thresholding and diagonal Fisher: measured only. (Adaptive gating's
  gate correlation comes from the sampled readouts, so even its Nx -> infinity limit is not
  the leading order of the registry, which uses the mean probe error.)

Examples
--------
>>> from tasksim.solvers.probe import ProbeSpec
>>> t = probe_theory(ProbeSpec("vanilla", rho_a=0.8, rho_b=0.5, ns=30))["transfer"]
>>> round(t.leading, 6), round(t.nlo, 6), round(t.paper_nlo, 6)
(0.16, -10.8, -30.64)
>>> round(t.predicted(3000), 8)             # the inverse-Wishart closed form
0.15636241
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import sympy as sp

from tasksim.derivations import finite_size, fisher
from tasksim.derivations.symbols import Ns, Nx, alpha, gamma, gamma_f, rho_a, rho_b
from tasksim.derivations.vanilla import exact_gaussian_transfer
from tasksim.solvers.probe import QUANTITIES, ProbeSpec

__all__ = ["QuantityTheory", "probe_theory"]


@dataclass(frozen=True)
class QuantityTheory:
    """The predictions for one quantity at the probe's parameters (None: not derived).

    ``exact`` is a closed form in Nx, valid for Nx >= ``exact_from``; ``source`` says where
    the numbers come from."""

    leading: Optional[float]
    nlo: Optional[float]
    paper_nlo: Optional[float]
    exact: Optional[Callable[[int], float]] = None
    exact_from: int = 0
    source: str = ""

    def predicted(self, nx: int) -> Optional[float]:
        """The best prediction at ``nx``: the exact closed form where one holds, else
        leading + nlo/Nx, else None."""
        if self.exact is not None and nx >= self.exact_from:
            return self.exact(nx)
        if self.leading is not None and self.nlo is not None:
            return self.leading + self.nlo / nx
        return None


def _number(expr: sp.Expr, values: dict) -> float:
    value = sp.sympify(expr).subs(values)
    if value.free_symbols:
        raise ValueError(f"{expr} still depends on {sorted(map(str, value.free_symbols))}")
    return float(value)


@lru_cache(maxsize=None)
def _exact_vanilla_transfer() -> Callable[..., float]:
    return sp.lambdify((Nx, Ns, rho_a, rho_b), exact_gaussian_transfer().value, "math")


def _values(spec: ProbeSpec) -> dict:
    values = {Ns: spec.ns, rho_a: spec.rho_a, rho_b: spec.rho_b}
    if spec.alpha is not None:
        values[alpha] = spec.alpha
    if spec.gamma is not None:
        values[gamma] = spec.gamma
    return values


def _gram_model(spec: ProbeSpec, quantity: str) -> QuantityTheory:
    values = _values(spec)
    fs = finite_size.finite_size(spec.model, quantity, spec.generator)
    paper = finite_size.paper_nlo(spec.model, quantity)
    paper_value = None if paper is None else _number(paper, values)
    source = f"derivations.finite_size ({spec.model}, {quantity}, {spec.generator})"
    if spec.model == "euclidean" and spec.gamma is None:
        # lambda fixed: gamma = Nx/(Nx + lambda Ns) = 1 - lambda Ns/Nx + O(Nx^-2)
        at_one = {**values, gamma: 1}
        leading = _number(fs.leading, at_one)
        slope = _number(sp.diff(fs.leading, gamma), at_one)
        nlo = _number(fs.nlo, at_one) - spec.lam * spec.ns * slope
        return QuantityTheory(leading, nlo, paper_value, source=source + ", lambda fixed")
    leading, nlo = _number(fs.leading, values), _number(fs.nlo, values)
    if spec.model in ("vanilla", "fisher") and quantity == "transfer" and \
            spec.generator == "gaussian":
        exact = _exact_vanilla_transfer()
        return QuantityTheory(leading, nlo, paper_value,
                              lambda nx: float(exact(nx, spec.ns, spec.rho_a, spec.rho_b)),
                              spec.ns + 2, source + "; exact: vanilla.exact_gaussian_transfer")
    if spec.model == "fisher" and quantity == "retention":
        value, _ = fisher.exact_retention()
        return QuantityTheory(leading, nlo, paper_value, lambda nx: float(value), 2 * spec.ns,
                              source + "; exact: fisher.exact_retention")
    return QuantityTheory(leading, nlo, paper_value, source=source)


def _fisher_fixed_features(spec: ProbeSpec, quantity: str) -> QuantityTheory:
    """rho_a = 1: A_2 = A_1, the fixed point of fisher.fixed_point_rho1, exact at every Nx."""
    lam_value = spec.lam if spec.lam is not None else 1 / spec.gamma - 1
    expr = (fisher.transfer_rho1 if quantity == "transfer" else fisher.retention_rho1)(
        "unregularized")
    value = _number(expr, {gamma_f: 1 / (1 + lam_value), rho_b: spec.rho_b})
    paper = finite_size.paper_nlo("fisher", quantity)
    paper_value = 0.0 if paper is None else _number(paper, _values(spec))
    return QuantityTheory(value, 0.0, paper_value, lambda nx: value, spec.ns + 1,
                          f"derivations.fisher.{quantity}_rho1 (exact, no Nx)")


def probe_theory(spec: ProbeSpec) -> dict[str, QuantityTheory]:
    """{quantity: :class:`QuantityTheory`} for transfer and retention (module docstring)."""
    out = {}
    if spec.model == "fisher" and (spec.lam == 0.0 or spec.gamma == 1.0):
        # lam = 0: no regularizer, the vanilla model (the Fisher coefficients need lam > 0)
        spec = ProbeSpec("vanilla", rho_a=spec.rho_a, rho_b=spec.rho_b, ns=spec.ns,
                         ny=spec.ny, generator=spec.generator)
    for quantity in QUANTITIES:
        if spec.model not in finite_size.MODELS:
            out[quantity] = QuantityTheory(None, None, None, source="measured only")
        elif spec.model == "fisher" and spec.rho_a == 1.0:
            out[quantity] = _fisher_fixed_features(spec, quantity)
        else:
            out[quantity] = _gram_model(spec, quantity)
    return out
