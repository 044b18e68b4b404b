"""Sec. 4 (eq_gd_fp_vanilla, eq_epsilon_vanilla): the vanilla model against the exact solvers.

- eq_epsilon_vanilla (claims vanilla.transfer, vanilla.retention, leading order) at
  Nx = 10^6 Ns, where the finite-size term is below the sampling error;
- the exact finite-N transfer for the Gaussian generator (vanilla.transfer.exact[gaussian],
  Delta eps_TF = rho_a (2 rho_b - rho_a) - (1 - rho_a^2) Ns/(Nx - Ns - 1)) at small Nx, where
  the finite-size term is tens of sems: the sharpest test, and the leading order is rejected
  there;
- convergence to eq_epsilon_vanilla as Ns/Nx -> 0 (Hypothesis), for the Gaussian generator
  and, at a fixed point, for the paper's appendix generator;
- the qualitative statements of Sec. 4 (corners, negative transfer and retention at
  (rho_a, rho_b) = (1, 0)) measured.

All derived expressions come from the registry (:mod:`verify.theory`). No erratum of the
registry belongs to this section.
"""
from __future__ import annotations

import pytest
from hypothesis import given

from tasksim.testing import strategies as S
from verify import estimators as E
from verify import theory
from verify.tolerances import (CONVERGENCE, assert_agrees, assert_exceeds, check_convergence,
                               compare)

DEMONSTRATED_ERRATA: tuple[str, ...] = ()

NS = 8
ASYMPTOTIC = 10**6  # Nx / Ns for the leading-order checks
GRID = [(0.0, 0.0), (0.8, 0.2), (0.5, 0.5), (0.3, 0.9), (1.0, 0.0), (1.0, 1.0), (0.9, 0.6)]


@pytest.mark.parametrize("rho_a, rho_b", GRID)
def test_eq_epsilon_vanilla_holds_as_ns_over_nx_vanishes(rho_a, rho_b):
    """vanilla.transfer, vanilla.retention (eq_epsilon_vanilla) at Nx = 10^6 Ns."""
    nx = ASYMPTOTIC * NS
    measured = E.transfer_retention("vanilla", rho_a=rho_a, rho_b=rho_b, nx=nx, ns=NS,
                                    samples=200, seed=11)
    predicted = E.theory_pair("vanilla.transfer", "vanilla.retention", rho_a=rho_a,
                              rho_b=rho_b)
    scale = E.small_parameter(nx, NS)
    assert_agrees(f"vanilla transfer ({rho_a}, {rho_b})", measured.transfer,
                  predicted.transfer.mean, kind="leading", scale=scale)
    assert_agrees(f"vanilla retention ({rho_a}, {rho_b})", measured.retention,
                  predicted.retention.mean, kind="leading", scale=scale)


@pytest.mark.parametrize("ns, nx, rho_a, rho_b", [(2, 12, 0.5, 0.5), (4, 16, 0.9, 0.1),
                                                  (8, 24, 0.3, 0.8), (4, 40, 0.0, 0.0)])
def test_exact_gaussian_transfer_matches_the_solvers_where_the_finite_size_term_is_large(
        ns, nx, rho_a, rho_b):
    """vanilla.transfer.exact[gaussian] (no surrogate) within z sem at Nx - Ns >= 10; the
    leading order eq_epsilon_vanilla is rejected there."""
    measured = E.transfer_retention("vanilla", rho_a=rho_a, rho_b=rho_b, nx=nx, ns=ns,
                                    samples=2000, seed=12)
    exact = theory.function("vanilla.transfer.exact[gaussian]", "derived")(
        nx=nx, ns=ns, rho_a=rho_a, rho_b=rho_b)
    leading = theory.function("vanilla.transfer", "leading")(rho_a=rho_a, rho_b=rho_b)
    assert_agrees(f"exact vanilla transfer Nx={nx} Ns={ns}", measured.transfer, exact)
    rejected = compare(f"leading-order vanilla transfer Nx={nx} Ns={ns}", measured.transfer,
                       leading)
    assert not rejected.agrees, f"the finite-size term is not resolved: {rejected}"


@given(params=S.model_parameters("vanilla"), ns=S.latent_sizes(4, 8), seed=S.seeds())
def test_deviation_from_eq_epsilon_vanilla_vanishes_at_first_order(params, ns, seed):
    """|mean - eq_epsilon_vanilla| at Ns/Nx = 1/8, 1/32, 1/128 (Gaussian generator, Wishart
    Gram): bounded by z sem + K Ns/Nx, and of exponent ~1 where resolved."""
    rho_a, rho_b = params["rho_a"], params["rho_b"]
    scales, pairs = E.convergence_series("vanilla", rho_a=rho_a, rho_b=rho_b, ns=ns,
                                         seed=seed, inverse_scales=CONVERGENCE.inverse_scales,
                                         samples=CONVERGENCE.samples)
    predicted = E.theory_pair("vanilla.transfer", "vanilla.retention", rho_a=rho_a,
                              rho_b=rho_b)
    for name in ("transfer", "retention"):
        result = check_convergence(f"vanilla {name} ({rho_a:.3f}, {rho_b:.3f}) Ns={ns}",
                                   scales, [getattr(p, name) for p in pairs],
                                   getattr(predicted, name).mean)
        assert result.passed, str(result)


@pytest.mark.parametrize("rho_a, rho_b", [(0.7, 0.3), (0.4, 1.0)])
def test_paper_generator_converges_to_the_same_leading_order(rho_a, rho_b):
    """The appendix generator (entries kept or resampled, not jointly Gaussian; explicit
    matrices) converges to eq_epsilon_vanilla at first order too."""
    ns = 8
    predicted = E.theory_pair("vanilla.transfer", "vanilla.retention", rho_a=rho_a,
                              rho_b=rho_b)
    scales, pairs = E.convergence_series("vanilla", rho_a=rho_a, rho_b=rho_b, ns=ns, seed=13,
                                         inverse_scales=CONVERGENCE.inverse_scales,
                                         samples=300, generator="appendix")
    for name in ("transfer", "retention"):
        result = check_convergence(f"vanilla {name} appendix generator ({rho_a}, {rho_b})",
                                   scales, [getattr(p, name) for p in pairs],
                                   getattr(predicted, name).mean)
        assert result.passed, str(result)


def test_transfer_is_zero_for_independent_and_one_for_identical_tasks():
    """vanilla.transfer.corners: Delta eps_TF = 0 at (0, 0) and 1 at (1, 1), measured."""
    corners = theory.expression("vanilla.transfer.corners", "derived")
    nx = ASYMPTOTIC * NS
    for (rho_a, rho_b), expected in zip([(0.0, 0.0), (1.0, 1.0)], corners):
        measured = E.transfer_retention("vanilla", rho_a=rho_a, rho_b=rho_b, nx=nx, ns=NS,
                                        samples=200, seed=14)
        assert_agrees(f"vanilla transfer corner ({rho_a}, {rho_b})", measured.transfer,
                      float(expected), kind="leading", scale=E.small_parameter(nx, NS))


def test_high_feature_and_low_readout_similarity_give_negative_transfer_and_retention():
    """vanilla.negative_at_high_rho_a_low_rho_b: both measured values are negative by more
    than z sem at (rho_a, rho_b) = (1, 0)."""
    measured = E.transfer_retention("vanilla", rho_a=1.0, rho_b=0.0, nx=ASYMPTOTIC * NS,
                                    ns=NS, samples=200, seed=15)
    assert theory.verdict("vanilla.negative_at_high_rho_a_low_rho_b").status == "verified"
    for name in ("transfer", "retention"):
        zero = compare(f"vanilla {name} at (1, 0) against 0", getattr(measured, name), 0.0)
        assert getattr(measured, name).mean < 0 and not zero.agrees, str(zero)


@given(rho_b=S.similarities(0.2, 0.8), seed=S.seeds())
def test_transfer_is_best_at_rho_a_equal_to_rho_b(rho_b, seed):
    """vanilla.transfer.argmax_rho_a: at fixed rho_b, the measured transfer at rho_a = rho_b
    exceeds that at rho_a = rho_b -+ 0.2 (a gap of 0.04 at leading order), resolved."""
    argmax = theory.function("vanilla.transfer.argmax_rho_a", "derived")(rho_b=rho_b)
    nx = ASYMPTOTIC * NS
    values = {}
    for rho_a in (argmax - 0.2, argmax, argmax + 0.2):
        values[rho_a] = E.transfer_retention("vanilla", rho_a=rho_a, rho_b=rho_b, nx=nx, ns=NS,
                                             samples=50, seed=seed).transfer
    for rho_a, other in values.items():
        if rho_a != argmax:
            assert_exceeds(f"vanilla transfer at rho_a = rho_b = {rho_b:.3f} over rho_a = "
                           f"{rho_a:.3f}", values[argmax], other)
