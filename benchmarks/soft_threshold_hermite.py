"""Why the soft-thresholding transfer misses the derived value: the input covariance split.

The measured gradient-flow transfer at alpha = 0.3, (rho_a, rho_b) = (0.5, 0.5) is -0.044,
-0.004, +0.165 at (Nx, Ns) = (1000, 10), (2000, 20), (3000, 30), against the derived 0.25
(soft_threshold.transfer_with_diagonal, which keeps the linear Hermite term of E[phi phi^T]
and its diagonal). This script splits the exact input covariance of each task given A
(tasksim.solvers.soft_threshold_moments.input_moments),

    C = X^T X + diag(E[phi_i^2] - (X^T X)_ii) + N,

X = E[s phi^T] (the linear Hermite term, exact per row), the diagonal excess (the ridge the
derivation keeps), and N the off-diagonal Hermite orders >= 3 (the O(rho_c^3) remainder of
line 874; trace 0), and prints, for the same tasks, the transfer (exact average over B) of the
gradient-flow limit W_1 = B_1 X_1 C_1^{-1}, its error on task 2 with task 2's exact
covariance, for C_1

    exact    as it is (the solver's model),
    ridge    with N dropped (the derivation's model: a white ridge),

and N's largest eigenvalue beside the ridge's mean, the smallest eigenvalue of C_1 with and
without N, and ||W_1||_F^2 / Ny for both (for the readouts' covariance (Ny/Ns) I).

Measured (one seed each, 09:50 UTC 2026-11-26 run): exact / ridge transfer +0.010 / +0.209
(1000, 10), +0.037 / +0.215 (2000, 10), +0.034 / +0.218 (4000, 10), +0.109 / +0.206
(1000, 20), +0.188 / +0.200 (1000, 30), +0.003 / +0.221 (2000, 20), +0.165 / +0.226
(3000, 30); N's largest eigenvalue 1.13, 2.11, 4.19 at Ns = 10 (Nx = 1000, 2000, 4000),
0.34 and 0.16 at Nx = 1000 (Ns = 20, 30), against a ridge of 0.047-0.048 per input;
||W_1||_F^2/Ny about 2 at Ns = 10 for every Nx (0.12, 0.062, 0.030 without N).

Run: ``python benchmarks/soft_threshold_hermite.py 1000,10,2 2000,10,2 1000,30,2 3000,30,1``
(each argument Nx,Ns,seeds; O(Nx^3) per task: about 20 s at Nx = 3000 on one core).
Every number is computed; nothing is typed in.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from tasksim.solvers.soft_threshold_moments import input_moments
from tasksim.solvers.tasks import draw_tasks

ALPHA, RHO_A, RHO_B = 0.3, 0.5, 0.5


def transfer(C1: np.ndarray, X1: np.ndarray, C2: np.ndarray, X2: np.ndarray, ns: int
             ) -> tuple[float, float]:
    """(Delta eps_TF averaged exactly over B, ||W_1||_F^2 / Ny) for W_1 = B_1 X_1 C_1^{-1}:
    E_B eps_2[W_1] = 1 + tr(M C_2 M^T)/Ns - 2 rho_b tr(X_2 M^T)/Ns with M = X_1 C_1^{-1}."""
    M = np.linalg.solve(C1, X1.T).T
    value = (2 * RHO_B / ns) * np.sum(X2 * M) - np.sum((M @ C2) * M) / ns
    return float(value), float(np.sum(M * M) / ns)


def split(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(C, ridge model, N, X) of one task (module docstring)."""
    m = input_moments(A, ALPHA)
    linear = m.cross.T @ m.cross
    ridge = linear + np.diag(np.diag(m.second) - np.diag(linear))
    return m.second, ridge, m.second - ridge, m.cross


def main(argv: list[str]) -> None:
    runs = [tuple(int(x) for x in a.split(",")) for a in argv] or [(1000, 10, 2), (1000, 30, 2)]
    print(f"alpha = {ALPHA}, (rho_a, rho_b) = ({RHO_A}, {RHO_B}), appendix generator, "
          "gradient-flow limit, transfer averaged exactly over B")
    print("   Nx  Ns seed | transfer: exact   ridge | max eig N  ridge mean | "
          "min eig C: exact  ridge | ||W1||^2/Ny: exact  ridge")
    for nx, ns, seeds in runs:
        for seed in range(seeds):
            start = time.time()
            tasks = draw_tasks(nx=nx, ns=ns, ny=10, rho_a=RHO_A, rho_b=RHO_B,
                               generator="appendix", seed=seed)
            C1, R1, N1, X1 = split(tasks.A[0])
            C2, _, _, X2 = split(tasks.A[1])
            exact, norm_exact = transfer(C1, X1, C2, X2, ns)
            ridge, norm_ridge = transfer(R1, X1, C2, X2, ns)
            excess = float(np.mean(np.diag(R1) - np.sum(X1 * X1, axis=0)))
            print(f"{nx:5d} {ns:3d} {seed:4d} | {exact:+15.4f} {ridge:+7.4f} | "
                  f"{np.linalg.eigvalsh(N1)[-1]:9.3g} {excess:11.3g} | "
                  f"{np.linalg.eigvalsh(C1)[0]:16.3g} {np.linalg.eigvalsh(R1)[0]:6.3g} | "
                  f"{norm_exact:18.4g} {norm_ridge:6.4g}   ({time.time() - start:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
