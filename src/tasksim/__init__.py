"""tasksim: machine verification of the theory of "Disentangling and mitigating the impact of
task similarity for continual learning" (linear teacher-student model with a latent).

The package has three parts, each a subpackage kept in its own folder of the checkout:

- :mod:`tasksim.derivations` (``derivations/``): sympy derivations and the claim registry;
- :mod:`tasksim.solvers` (``solvers/``): exact finite-N solvers, the GD protocol, sweeps;
- :mod:`tasksim.reports` (``reports/``): the command ``tasksim`` and the report builder.

The three-line API:

>>> from tasksim import simulate
>>> r = simulate("vanilla", rho_a=0.8, rho_b=0.2, seeds=4, seed=0)  # the paper's sizes
>>> round(r.transfer.mean, 2), round(r.retention.mean, 2)
(-0.32, 0.15)

(eq_epsilon_vanilla at leading order: rho_a (2 rho_b - rho_a) = -0.32 and
1 - rho_a^2 (rho_a^2 - 2 rho_a rho_b + 1) = 0.155.)

For notebooks (each imported on first use):

- :func:`sweep` (:mod:`tasksim.datasets`): any argument a list, an ``xarray.Dataset`` with the
  mean, standard error and theory of every grid point;
- :func:`theory` (:mod:`tasksim.expressions`): the derived expression (sympy) and its
  vectorized numeric form;
- :func:`claims` (:mod:`tasksim.statements`): the claim registry as objects, with the printed
  and derived forms as sympy objects.
"""
from __future__ import annotations

from typing import Any

try:  # written from git by setuptools-scm when tasksim is built or installed (pyproject.toml)
    from ._version import __version__
except ImportError:  # a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["simulate", "sweep", "theory", "claims", "__version__"]

_LAZY = {"simulate": ("tasksim.solvers.api", "simulate"),
         "sweep": ("tasksim.datasets", "sweep"),
         "theory": ("tasksim.expressions", "theory"),
         "claims": ("tasksim.statements", "claims")}


def __getattr__(name: str) -> Any:
    # Imported on first use, so that ``tasksim.derivations`` (sympy only) does not load numpy.
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'tasksim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
