"""The claim registry as numbers: every expression the suite compares with is taken from here.

The registry (:mod:`tasksim.derivations.registry`) is evaluated once per process: :func:`verdict`
evaluates one claim on first use and keeps it, :func:`all_verdicts` evaluates the rest. A
claim's printed form, its derived form, the leading order of its derived form
(:func:`tasksim.derivations.claims.leading_order`) or one of its derivation steps become plain
functions of named parameters (:func:`function`), so no formula of the paper is typed in
again by the suite.

Parameter names are those of :data:`PARAMETERS`: ``nx``, ``ns``, ``rho_a``, ``rho_b``,
``rho_g``, ``alpha``, ``alpha_t`` (alpha~), ``gamma``, ``gamma_f``, ``lam``, ``h``; a
symbol's own name for the rest (``delta_ij``, ``sigma``, ...).

Examples
--------
>>> f = function("vanilla.transfer", "leading")
>>> round(f(rho_a=0.8, rho_b=0.2), 6)        # eq_epsilon_vanilla: rho_a (2 rho_b - rho_a)
-0.32
>>> sorted(parameters("vanilla.transfer.exact[gaussian]", "derived"))
['ns', 'nx', 'rho_a', 'rho_b']
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import scipy.special
import sympy as sp

from tasksim.derivations.claims import Verdict, evaluate, leading_order
from tasksim.derivations.registry import all_claims
from tasksim.derivations.symbols import Ns, Nx, alpha, alpha_t, gamma, gamma_f, h, lam, rho_a, rho_b, rho_g

__all__ = ["PARAMETERS", "claim_ids", "verdict", "all_verdicts", "expression", "parameters",
           "function", "step_expression", "step_function", "step_matrix_function"]

PARAMETERS: dict[str, sp.Symbol] = {
    "nx": Nx, "ns": Ns, "rho_a": rho_a, "rho_b": rho_b, "rho_g": rho_g, "alpha": alpha,
    "alpha_t": alpha_t, "gamma": gamma, "gamma_f": gamma_f, "lam": lam, "h": h,
}
_NAME_OF = {symbol: name for name, symbol in PARAMETERS.items()}
_MODULES = [{"erfcinv": scipy.special.erfcinv, "erfc": scipy.special.erfc}, "math"]
_VERDICTS: dict[str, Verdict] = {}


@lru_cache(maxsize=1)
def _claims_by_id() -> dict:
    return {c.id: c for c in all_claims()}


def claim_ids() -> list[str]:
    """Every registered claim id, in registry order (cheap: no claim is evaluated)."""
    return list(_claims_by_id())


def verdict(claim_id: str) -> Verdict:
    """The claim's :class:`tasksim.derivations.claims.Verdict`, evaluated once per process."""
    if claim_id not in _VERDICTS:
        claims = _claims_by_id()
        if claim_id not in claims:
            raise KeyError(f"no claim {claim_id!r} in the registry")
        _VERDICTS[claim_id] = evaluate(claims[claim_id])
    return _VERDICTS[claim_id]


def all_verdicts() -> list[Verdict]:
    """Every claim's verdict (those not yet evaluated are evaluated now), in registry order."""
    return [verdict(i) for i in claim_ids()]


@lru_cache(maxsize=None)
def expression(claim_id: str, which: str = "derived") -> sp.Expr:
    """The claim's ``printed`` or ``derived`` expression, or the ``leading`` order of the
    derived one (limit Ns/Nx -> 0 at fixed Ns)."""
    v = verdict(claim_id)
    if which == "printed":
        expr = v.claim.printed
    elif which == "derived":
        expr = v.derived
    elif which == "leading":
        expr = None if v.derived is None else leading_order(v.derived)
    else:
        raise ValueError(f"which must be one of printed, derived, leading, got {which!r}")
    if expr is None:
        raise ValueError(f"claim {claim_id!r} has no {which} expression")
    return expr


def step_expression(claim_id: str, step_name: str) -> sp.Expr:
    """The expression of the derivation step whose name starts with ``step_name``."""
    v = verdict(claim_id)
    if v.derivation is None:
        raise ValueError(f"claim {claim_id!r} has no derivation")
    for step in v.derivation.steps:
        if step.name.startswith(step_name):
            return step.expr
    names = [s.name for s in v.derivation.steps]
    raise KeyError(f"claim {claim_id!r} has no step {step_name!r}; steps: {names}")


def _name(symbol: sp.Symbol) -> str:
    return _NAME_OF.get(symbol, str(symbol))


def _scalar(expr: sp.Basic, what: str) -> sp.Expr:
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr) \
            or any(isinstance(s, sp.MatrixSymbol) for s in expr.free_symbols):
        raise ValueError(f"{what} is not a scalar expression: {sp.sstr(expr)[:80]}")
    return expr


def parameters(claim_id: str, which: str = "derived") -> set[str]:
    """The parameter names a claim's expression depends on."""
    expr = _scalar(expression(claim_id, which), f"{claim_id} ({which})")
    return {_name(s) for s in expr.free_symbols}


def _lambdify(expr: sp.Expr) -> Callable[..., float]:
    symbols = sorted(expr.free_symbols, key=str)
    names = [_name(s) for s in symbols]
    compiled = sp.lambdify(symbols, expr, modules=_MODULES)

    def evaluate_at(**values: float) -> float:
        missing = [n for n in names if n not in values]
        if missing:
            raise ValueError(f"missing parameters {missing} (the expression needs {names})")
        return float(compiled(*[values[n] for n in names]))

    evaluate_at.parameters = tuple(names)  # type: ignore[attr-defined]
    return evaluate_at


@lru_cache(maxsize=None)
def function(claim_id: str, which: str = "derived") -> Callable[..., float]:
    """The claim's expression (:func:`expression`) as a function of named parameters.

    Parameters the expression does not depend on are accepted and ignored, so one call site
    can pass the same parameters to a claim's printed and derived forms.
    """
    expr = _scalar(expression(claim_id, which), f"{claim_id} ({which})")
    return _lambdify(expr)


@lru_cache(maxsize=None)
def step_function(claim_id: str, step_name: str) -> Callable[..., float]:
    """A derivation step's expression (:func:`step_expression`) as a function of parameters."""
    expr = _scalar(step_expression(claim_id, step_name), f"{claim_id} step {step_name!r}")
    return _lambdify(expr)


@lru_cache(maxsize=None)
def step_matrix_function(claim_id: str, step_name: str) -> Callable[..., list[list[float]]]:
    """A derivation step whose expression is a matrix, as a function of named parameters that
    returns its entries (a list of rows of floats).

    >>> E = step_matrix_function("sequences.vanilla.chain.errors", "E[mu-1, nu] = eps_mu[W_nu], K = 2")
    >>> [round(x, 6) for x in E(rho_a=0.8, rho_b=0.2)[1]]    # eps_2[W_0], eps_2[W_1], eps_2[W_2]
    [1.0, 1.32, 0.0]
    """
    matrix = step_expression(claim_id, step_name)
    if not isinstance(matrix, sp.MatrixBase):
        raise ValueError(f"{claim_id} step {step_name!r} is not a matrix")
    entries = [[_lambdify(sp.sympify(matrix[i, j])) for j in range(matrix.cols)]
               for i in range(matrix.rows)]

    def evaluate_at(**values: float) -> list[list[float]]:
        return [[f(**{n: values[n] for n in f.parameters}) for f in row] for row in entries]

    return evaluate_at
