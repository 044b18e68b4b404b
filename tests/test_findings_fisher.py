"""The finding fisher-retention-exactly-one (REFEREE2 N2): the exact Fisher fixed point keeps
task 1 exactly when rank [A_1, A_2] = 2 Ns, and a rank-deficient draw (the appendix
generator keeps a column of A_1 whole, probability rho_a^Nx) loses exactly d/Ns of the
rho_a = 1 loss; measured on the exact solver at small Nx, where such draws are common."""
from __future__ import annotations

import numpy as np
import pytest

from tasksim.reports.findings import fisher_retention_finding, rank_loss_per_direction
from tasksim.reports.findings_checks import fisher_retention_draws


def test_the_loss_per_shared_direction_is_the_derived_rho_a_one_loss_over_ns():
    # Delta eps_RT at rho_a = 1, task 1 unregularized: 1 - 2 gamma^2 (1 - rho_b) (line 1272)
    assert rank_loss_per_direction(0.1, 0.5) == pytest.approx(2 * 0.25 * 0.9, abs=1e-15)


def test_small_nx_near_rho_a_one_loses_exactly_d_over_ns_of_the_rho_a_one_loss():
    retention, d = fisher_retention_draws(0.99, 0.1, 60, 30, 3, seed=0)
    assert (d > 0).all()  # rho_a^Nx = 0.55 per column: many columns kept whole
    predicted = 1 - d / 30 * rank_loss_per_direction(0.1, 0.5)
    np.testing.assert_allclose(retention, predicted, atol=1e-10)
    assert retention.max() < 0.9


def test_the_finding_is_supported_by_the_rank_condition_at_small_nx():
    f = fisher_retention_finding(lambda ra, rb, nx, ns, n: fisher_retention_draws(
        ra, rb, nx, ns, n, 0), points=((0.99, 0.1), (0.5, 0.5)), sizes=((60, 30), (300, 30)),
        seeds=2)
    assert f.supported == "yes"  # the old rule (Delta eps_RT = 1 whenever Nx >= 2 Ns) said "no"
    assert f.numbers["identity_residual"] < 1e-10
    assert "rank [A_1, A_2] = 2 Ns" in f.statement and "rank-deficient draws" in f.detail


def test_a_loss_without_rank_deficiency_refutes_the_finding():
    def solve(ra, rb, nx, ns, n):
        return np.full(n, 0.9), np.zeros(n, dtype=int)

    f = fisher_retention_finding(solve, points=((0.5, 0.5),), sizes=((60, 30),), seeds=2)
    assert f.supported == "no"
