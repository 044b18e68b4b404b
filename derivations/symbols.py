"""The symbols every derivation shares, so that expressions from different modules compare.

Sizes are positive integers; similarities and levels are positive reals (their ranges,
rho in [0, 1], alpha and gamma in (0, 1], are the paper's and are stated where they matter).
"""
from __future__ import annotations

import sympy as sp

Nx, Ns, Ny = sp.symbols("N_x N_s N_y", positive=True, integer=True)
rho_a, rho_b, rho_g = sp.symbols("rho_a rho_b rho_g", nonnegative=True, real=True)
alpha = sp.Symbol("alpha", positive=True, real=True)
alpha_t = sp.Symbol(r"\tilde{alpha}", positive=True, real=True)  # rho_g + (1 - rho_g) alpha
gamma = sp.Symbol("gamma", positive=True, real=True)
gamma_f = sp.Symbol("gamma_f", positive=True, real=True)  # 1 / (1 + lambda), Fisher, rho_a = 1
lam = sp.Symbol("lambda", positive=True, real=True)
h = sp.Symbol("h", nonnegative=True, real=True)  # soft threshold
eps = sp.Symbol("epsilon", positive=True, real=True)  # the small ratio Ns / Nx

__all__ = ["Nx", "Ns", "Ny", "rho_a", "rho_b", "rho_g", "alpha", "alpha_t", "gamma",
           "gamma_f", "lam", "h", "eps"]
