"""The theory of a sweep as objects: sympy expressions and their vectorized numeric form.

:func:`theory` returns the derived transfer or retention of a model (eq_def_delta_epsilon_TF_RT)
at leading order in Ns/Nx, or with the exact 1/Nx term (``order="nlo"``), from
:func:`tasksim.derivations.finite_size.finite_size`: derived mechanically from the model's
fixed points, not typed in. The result is a :class:`Theory`: sympy sees the expression
(``sympy.sympify(t)``, ``t.expr``), and :meth:`Theory.numeric` is a numpy function of the
arguments of :func:`tasksim.sweep` (``rho_a``, ``rho_b``, ``alpha``, ``gamma``, ``nx``,
``ns``), which takes a Dataset (or any mapping) and broadcasts over its coordinates:

>>> t = theory("vanilla", "transfer")
>>> t.expr
-rho_a*(rho_a - 2*rho_b)
>>> t.arguments
('rho_a', 'rho_b')
>>> import numpy as np
>>> t.numeric()(rho_a=np.array([0.0, 0.5, 1.0]), rho_b=1.0)
array([0.  , 0.75, 1.  ])
>>> nlo = theory("vanilla", "transfer", order="nlo", generator="gaussian")
>>> nlo.expr
N_s*(rho_a - 1)*(rho_a + 1)/N_x - rho_a*(rho_a - 2*rho_b)
>>> round(float(nlo.numeric()(rho_a=0.8, rho_b=0.5, nx=3000, ns=30)), 6)
0.1564
>>> round(float(nlo(rho_a=0.8, rho_b=0.5, nx=3000, ns=30)), 6)      # the same, called
0.1564

Models with a Gram-based fixed point only (vanilla, random-gating, plasticity-gating,
euclidean, fisher); for the others :func:`theory` raises NotImplementedError saying why.
Random gating's expression is that of independent gates (rho_g = 0), as the sweep draws them;
Euclidean's is in gamma (lambda = (Nx/Ns)(1/gamma - 1), eq_main_lmu_wreg); Fisher's holds for
lambda > 0 and rho_a < 1 (:attr:`Theory.condition`; outside it the numeric form gives NaN: at
lambda = 0 the model is vanilla, at rho_a = 1 a different fixed point).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping, Optional

import numpy as np
import sympy as sp

from tasksim.derivations import finite_size
from tasksim.derivations.symbols import Ns, Nx, Ny, alpha, gamma, lam, rho_a, rho_b
from tasksim.errors import InputError

__all__ = ["ARGUMENTS", "ORDERS", "Theory", "theory"]

ARGUMENTS: dict[str, sp.Symbol] = {"rho_a": rho_a, "rho_b": rho_b, "alpha": alpha,
                                   "gamma": gamma, "lam": lam, "nx": Nx, "ns": Ns, "ny": Ny}
"""The sweep's argument names and the derivations' symbols they stand for."""
ORDERS = ("leading", "nlo")
GENERATORS = ("appendix", "gaussian")


@dataclass(frozen=True)
class Theory:
    """A derived quantity: ``expr`` (sympy) holds where ``condition`` does; ``source`` names
    the derivation. ``sympy.sympify`` gives ``expr``; :meth:`numeric` evaluates it."""

    model: str
    quantity: str
    order: str
    generator: str
    expr: sp.Expr
    condition: sp.Basic = sp.true
    source: str = ""

    def _sympy_(self) -> sp.Expr:
        return self.expr

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {sp.latex(self.expr)}$"

    def __str__(self) -> str:
        return str(self.expr)

    @property
    def arguments(self) -> tuple[str, ...]:
        """The sweep arguments the expression (and its condition) depend on, in order."""
        symbols = self.expr.free_symbols | getattr(self.condition, "free_symbols", set())
        return tuple(name for name, s in ARGUMENTS.items() if s in symbols)

    def __call__(self, data: Optional[Mapping[str, Any]] = None, **values: Any) -> Any:
        """The numeric form at ``data`` and ``values``: ``ds.transfer - theory(...)(ds)``."""
        return self.numeric()(data, **values)

    def numeric(self) -> Callable[..., Any]:
        """``f(data=None, **values)``: the expression at ``values`` (numbers or arrays, by
        argument name), taking what is missing from ``data``, a Dataset or mapping with those
        names (e.g. a sweep's coordinates); numpy broadcasting (xarray's, by dimension name,
        for a Dataset). ValueError names a missing argument."""
        return _numeric(self)


@lru_cache(maxsize=None)
def _numeric(theory: Theory) -> Callable[..., Any]:
    """The numeric form of ``theory`` (:meth:`Theory.numeric`), compiled once."""
    names = theory.arguments
    value = _lambdified(theory.expr, names)
    # each clause of the condition apart: numpy's logical_and.reduce does not broadcast
    clauses = (() if theory.condition == sp.true else
               theory.condition.args if isinstance(theory.condition, sp.And) else
               (theory.condition,))
    tests = [_lambdified(c, names) for c in clauses]
    label = f"theory({theory.model!r}, {theory.quantity!r}, order={theory.order!r})"

    def evaluate(data: Optional[Mapping[str, Any]] = None, **values: Any) -> Any:
        unknown = sorted(set(values) - set(ARGUMENTS))
        if unknown:
            raise InputError(f"{unknown[0]} is not an argument of {label} (arguments: "
                             f"{', '.join(names) or 'none'})")
        args = []
        for name in names:
            if name in values:
                args.append(values[name])
            elif data is not None and name in data:
                args.append(data[name])
            else:
                raise InputError(f"{label} needs {name}: pass it, or data with a "
                                 f"coordinate or variable {name!r}")
        if any(_is_labelled(a) for a in args):
            return _labelled(lambda *xs: _masked(value, tests, xs), args)
        return _masked(value, tests, args)

    evaluate.__doc__ = f"{label} (arguments: {', '.join(names)}); see its .expr"
    return evaluate


def _masked(value: Callable[..., Any], tests: list, args: Any) -> Any:
    result = value(*args)
    for test in tests:
        result = np.where(test(*args), result, np.nan)
    return result


def _is_labelled(x: Any) -> bool:
    """An xarray DataArray or Variable (named dimensions)."""
    return hasattr(x, "dims") and hasattr(x, "values") and hasattr(x, "transpose")


def _labelled(fn: Callable[..., Any], args: Any) -> Any:
    """``fn`` of xarray arguments (and numbers), broadcast by dimension name on plain numpy
    arrays (one alignment, not one per operation), as a DataArray with their coordinates."""
    import xarray as xr

    dims: list = []
    coords: dict = {}
    for a in args:
        if _is_labelled(a):
            for d in a.dims:
                if d not in dims:
                    dims.append(d)
                    if d in getattr(a, "coords", {}):
                        coords[d] = a.coords[d].values
    arrays = []
    for a in args:
        if not _is_labelled(a):
            arrays.append(a)
            continue
        own = [d for d in dims if d in a.dims]
        values = np.asarray(a.transpose(*own).values)
        sizes = dict(zip(a.dims, np.shape(a.values)))
        arrays.append(values.reshape([sizes.get(d, 1) for d in dims]))
    result = np.asarray(fn(*arrays), dtype=float)
    shape = np.broadcast_shapes(result.shape, *(np.shape(x) for x in arrays))
    return xr.DataArray(np.broadcast_to(result, shape).copy(), dims=dims,
                        coords={d: coords[d] for d in dims if d in coords})


@lru_cache(maxsize=None)
def _lambdified(expr: sp.Basic, names: tuple[str, ...]) -> Callable[..., Any]:
    return sp.lambdify([ARGUMENTS[n] for n in names], expr, "numpy")


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


@lru_cache(maxsize=None)
def theory(model: str, quantity: str, order: str = "leading",
           generator: str = "appendix") -> Theory:
    """Transfer or retention of ``model`` at leading order in Ns/Nx (``order="leading"``) or
    with the exact 1/Nx coefficient (``"nlo"``: leading + c/Nx, c for ``generator``, the
    sweep's; the leading order is the same for both generators). Module docstring: examples.

    Raises ValueError naming a bad argument, NotImplementedError for a model without a
    derived expression.
    """
    quantity = _one_of("quantity", quantity, finite_size.QUANTITIES)
    order = _one_of("order", order, ORDERS)
    generator = _one_of("generator", generator, GENERATORS)
    if not isinstance(model, str):
        raise InputError(f"model must be a model name, got {model!r}")
    if model not in finite_size.MODELS:
        from tasksim.solvers.api import MODELS

        if model not in MODELS:
            raise InputError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
        raise NotImplementedError(
            f"no derived expression for {model}: its fixed point is not a function of the "
            "Gram matrix of the tasks (adaptive gating's gates depend on the drawn readouts, "
            "soft-thresholding is nonlinear in the rows, diagonal Fisher's metric is "
            "row-wise); it is measured only")
    fs = finite_size.finite_size(model, quantity, generator)
    expr = fs.leading if order == "leading" else fs.leading + fs.nlo / Nx
    condition = sp.And(rho_a < 1, gamma < 1) if model == "fisher" else sp.true
    source = (f"derivations.finite_size.finite_size({model!r}, {quantity!r}, {generator!r})"
              + (".leading" if order == "leading" else ": leading + nlo / N_x"))
    return Theory(model, quantity, order, generator, sp.sympify(expr), condition, source)
