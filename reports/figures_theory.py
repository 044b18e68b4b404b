"""Theory curves for the figures, taken from the claim registry, never typed in.

Every curve is the *derived* expression of a registered claim
(:mod:`tasksim.derivations.registry`), reduced to its leading order in Ns/Nx by
:func:`tasksim.derivations.claims.leading_order` and compiled by ``sympy.lambdify``. What a figure
needs beyond that (the local extrema of the retention in Fig. 1H, the optimal regularizer of
Figs. 4C and 8, averages over the uniform prior) is computed here from those expressions.

Claims are evaluated one at a time, on demand, and cached for the life of the process
(derivations are deterministic): a figure build evaluates only the few claims it plots.

Examples
--------
>>> from tasksim.derivations.symbols import rho_a, rho_b
>>> transfer = curve("vanilla.transfer", (rho_a, rho_b))   # eq_epsilon_vanilla, derived
>>> float(transfer(0.5, 1.0))
0.75
>>> status("vanilla.transfer")
'holds in the stated limit'
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping, Optional, Sequence

import numpy as np
import sympy as sp

from tasksim.derivations.claims import Claim, Verdict, leading_order
from tasksim.derivations.registry import all_claims

__all__ = [
    "claim",
    "verdict",
    "status",
    "derived",
    "leading",
    "compile_expression",
    "curve",
    "correction_curve",
    "stationary_curves",
    "maximise_polynomial",
    "uniform_average",
    "region_mask",
]

Curve = Callable[..., np.ndarray]


@lru_cache(maxsize=1)
def _claims_by_id() -> dict[str, Claim]:
    return {c.id: c for c in all_claims()}


def claim(claim_id: str) -> Claim:
    """The registered claim ``claim_id`` (KeyError naming the id if there is none)."""
    claims = _claims_by_id()
    if claim_id not in claims:
        raise KeyError(f"no claim {claim_id!r} in the registry (see `tasksim claims`)")
    return claims[claim_id]


def verdict(claim_id: str) -> Verdict:
    """The evaluated claim (derivation run, status computed), cached for the process and
    shared with the captions' verdict words (:func:`tasksim.reports.verdicts.evaluated_claim`)."""
    from .verdicts import evaluated_claim

    claim(claim_id)  # a KeyError that names the id, where there is no such claim
    return evaluated_claim(claim_id)


def status(claim_id: str) -> str:
    """The verdict a caption shows for the claim, read from the registry
    (:func:`tasksim.reports.verdicts.verdict_phrase`): its statement's verdict word, or, for
    a step, the statement it is evidence under. A figure never computes a verdict."""
    from .verdicts import verdict_phrase

    return verdict_phrase(claim_id)


def derived(claim_id: str) -> sp.Basic:
    """The claim's derived expression (exact at finite size where the derivation is)."""
    value = verdict(claim_id).derived
    if value is None:
        raise ValueError(f"claim {claim_id!r} has no derivation to plot")
    return value


@lru_cache(maxsize=None)
def leading(claim_id: str) -> sp.Basic:
    """The derived expression at leading order in Ns/Nx (Nx -> infinity at fixed Ns)."""
    value = derived(claim_id)
    if isinstance(value, sp.Expr):
        return leading_order(value)
    return value


def compile_expression(expr: sp.Basic, variables: Sequence[sp.Symbol],
                       substitutions: Optional[Mapping[sp.Symbol, sp.Basic]] = None) -> Curve:
    """A numpy function of ``variables`` (broadcasting, float output) for ``expr``.

    ``substitutions`` are applied first. Every free symbol left must be among ``variables``
    (ValueError otherwise). A constant expression gives a constant array of the broadcast
    shape of the arguments.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> compile_expression(sp.Integer(1), (x,))(np.zeros(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    expr = sp.sympify(expr)
    if substitutions:
        expr = expr.subs(dict(substitutions))
    extra = expr.free_symbols - set(variables)
    if extra:
        raise ValueError(f"expression {expr} depends on {sorted(map(str, extra))} "
                         f"beyond the variables {[str(v) for v in variables]}")
    fn = sp.lambdify(tuple(variables), expr, "numpy")

    def evaluate_on(*args: object) -> np.ndarray:
        arrays = [np.asarray(a, dtype=float) for a in args]
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.asarray(fn(*arrays), dtype=float)
        return np.broadcast_arrays(value, *arrays)[0].astype(float)

    return evaluate_on


def curve(claim_id: str, variables: Sequence[sp.Symbol],
          substitutions: Optional[Mapping[sp.Symbol, sp.Basic]] = None) -> Curve:
    """The leading order of claim ``claim_id`` as a numpy function of ``variables``."""
    return compile_expression(leading(claim_id), variables, substitutions)


def correction_curve(claim_id: str, variables: Sequence[sp.Symbol]) -> Curve:
    """derived - leading order of ``claim_id``: the derived finite-size correction.

    ``variables`` must include Nx and Ns. The two expressions are compiled separately and
    subtracted in floating point (their symbolic difference is slow to simplify; at the
    sizes plotted the difference is far above rounding). ValueError if the derivation does
    not depend on Nx (then there is no correction to overlay).

    Examples
    --------
    >>> from tasksim.derivations.symbols import Nx, Ns, rho_a, rho_b
    >>> c = correction_curve("vanilla.transfer.exact[gaussian]", (Nx, Ns, rho_a, rho_b))
    >>> round(float(c(3000, 30, 0.8, 0.5)), 8)     # -(1 - rho_a^2) Ns/(Nx - Ns - 1)
    -0.00363759
    """
    from tasksim.derivations.symbols import Nx

    exact = derived(claim_id)
    if not isinstance(exact, sp.Expr) or not exact.has(Nx):
        raise ValueError(f"claim {claim_id!r} has no finite-size correction")
    full = compile_expression(exact, variables)
    limit = compile_expression(leading(claim_id), variables)
    return lambda *args: full(*args) - limit(*args)


def stationary_curves(expr: sp.Expr, variable: sp.Symbol, parameter: sp.Symbol
                      ) -> list[tuple[sp.Expr, Curve]]:
    """Solutions variable = phi(parameter) of d expr / d variable = 0, other than the
    trivial ones independent of ``parameter``, each with a numpy function (nan where not
    real). Used for the local extrema of the retention in rho_a (Fig. 1H).

    Examples
    --------
    >>> x, p = sp.symbols("x p", real=True)
    >>> [str(s) for s, _ in stationary_curves(x**3 / 3 - p * x, x, p)]
    ['-sqrt(p)', 'sqrt(p)']
    """
    solutions = sp.solve(sp.diff(expr, variable), variable)
    out = []
    for s in solutions:
        if not s.has(parameter):
            continue
        fn = sp.lambdify(parameter, s, "numpy")

        def real_part(values: np.ndarray, fn: Callable = fn) -> np.ndarray:
            z = np.asarray(fn(np.asarray(values, dtype=complex)), dtype=complex)
            z = np.broadcast_to(z, np.shape(values))
            return np.where(np.abs(z.imag) < 1e-12, z.real, np.nan)

        out.append((s, real_part))
    return sorted(out, key=lambda item: sp.default_sort_key(item[0]))


def maximise_polynomial(expr: sp.Expr, variable: sp.Symbol, parameters: Sequence[sp.Symbol],
                        values: Sequence[np.ndarray], interval: tuple[float, float]
                        ) -> tuple[np.ndarray, np.ndarray]:
    """argmax and max over ``variable`` in the closed ``interval`` of a polynomial in it,
    at each point of the (broadcast) parameter ``values``.

    The candidates are the interval's ends and the real roots of the derivative inside it
    (companion-matrix eigenvalues, batched, of coefficients compiled from ``expr``); ties go
    to the upper end.

    Examples
    --------
    >>> g, a = sp.symbols("g a")
    >>> arg, best = maximise_polynomial(1 - (g - a)**2, g, (a,), (np.array([0.3, 2.0]),), (0, 1))
    >>> arg.round(6).tolist(), best.round(6).tolist()
    ([0.3, 1.0], [1.0, 0.0])
    """
    poly = sp.Poly(sp.expand(expr), variable)
    coefficient_fns = [compile_expression(c, parameters) for c in poly.all_coeffs()]
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values])
    shape = arrays[0].shape
    coefficients = np.stack([np.broadcast_to(f(*arrays), shape) for f in coefficient_fns],
                            axis=-1).reshape(-1, len(coefficient_fns))
    lo, hi = interval
    candidates = [np.full(len(coefficients), hi), np.full(len(coefficients), lo)]
    roots = _derivative_roots(coefficients)  # (points, degree - 1), nan where none
    for k in range(roots.shape[1]):
        r = roots[:, k]
        candidates.append(np.where((r >= lo) & (r <= hi), r, np.nan))
    xs = np.stack(candidates, axis=1)
    powers = np.arange(coefficients.shape[1] - 1, -1, -1)
    with np.errstate(invalid="ignore"):
        values = np.einsum("pk,pck->pc", coefficients, xs[:, :, None] ** powers)
    values = np.where(np.isnan(xs), -np.inf, values)
    k = np.argmax(values, axis=1)
    rows = np.arange(len(coefficients))
    argmax, best = xs[rows, k], values[rows, k]
    return argmax.reshape(shape), best.reshape(shape)


def _derivative_roots(coefficients: np.ndarray) -> np.ndarray:
    """Real roots of the derivative of each polynomial (rows of highest-first coefficients),
    padded with nan: companion-matrix eigenvalues in one batch, np.roots where the leading
    coefficient vanishes."""
    n, k = coefficients.shape
    degree = k - 1
    d = coefficients[:, :-1] * np.arange(degree, 0, -1)  # derivative, degree - 1
    out = np.full((n, max(degree - 1, 0)), np.nan)
    if degree < 2:
        return out
    scale = np.abs(d).max(axis=1)
    regular = np.abs(d[:, 0]) > 1e-12 * np.where(scale > 0, scale, 1.0)
    if regular.any():
        m = degree - 1
        lead = d[regular, :1]
        companion = np.zeros((int(regular.sum()), m, m))
        companion[:, 0, :] = -d[regular, 1:] / lead
        companion[:, np.arange(1, m), np.arange(m - 1)] = 1.0
        z = np.linalg.eigvals(companion)
        out[regular] = np.where(np.abs(z.imag) < 1e-9, z.real, np.nan)
    for i in np.flatnonzero(~regular):
        trimmed = np.trim_zeros(d[i], "f")
        if trimmed.size > 1:
            z = np.roots(trimmed)
            real = z.real[np.abs(z.imag) < 1e-9]
            out[i, :real.size] = real
    return out


def uniform_average(expr: sp.Expr) -> sp.Expr:
    """The exact average over rho_a, rho_b uniform on [0, 1]^2 of a derived expression
    (:func:`tasksim.derivations.averages.average_over_unit_square`, piecewise integrands split)."""
    from tasksim.derivations.averages import average_over_unit_square

    return average_over_unit_square(expr)


def region_mask(region: sp.Boolean, variables: Sequence[sp.Symbol]) -> Curve:
    """A boolean numpy function for a derived region (a sympy relation or And/Or of them).

    Relations whose sides are not real at a point (a square root of a negative number)
    are false there, as in :mod:`tasksim.derivations.phase_diagram`.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> region_mask(sp.And(x >= 0, sp.sqrt(x) <= 1), (x,))(np.array([-1, 0.5, 4])).tolist()
    [False, True, False]
    """
    if isinstance(region, sp.core.relational.Relational):
        margin = compile_expression(region.lhs - region.rhs, variables)
        greater = isinstance(region, (sp.GreaterThan, sp.StrictGreaterThan))
        strict = isinstance(region, (sp.StrictGreaterThan, sp.StrictLessThan))

        def atom(*args: np.ndarray) -> np.ndarray:
            m = margin(*args)
            signed = m if greater else -m
            inside = signed > 0 if strict else signed >= 0
            return np.isfinite(m) & inside

        return atom
    if isinstance(region, (sp.And, sp.Or)):
        parts = [region_mask(arg, variables) for arg in region.args]
        combine = np.logical_and if isinstance(region, sp.And) else np.logical_or

        def joined(*args: np.ndarray) -> np.ndarray:
            out = parts[0](*args)
            for p in parts[1:]:
                out = combine(out, p(*args))
            return out

        return joined
    if isinstance(region, sp.Not):
        inner = region_mask(region.args[0], variables)
        return lambda *args: ~inner(*args)
    raise NotImplementedError(f"region_mask does not handle {region.func.__name__}")
