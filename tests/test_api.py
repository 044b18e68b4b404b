"""The Python API (solvers/api.py): three-line use, every model and method, limits, bad input.

Statistical comparisons use z-scores of differences of means over seeds with a Bonferroni
threshold for a family-wise false-alarm rate of 1e-3 (seeds are fixed: deterministic).
"""
import math

import numpy as np
import pytest
from scipy.stats import norm

from tasksim.solvers.api import (
    GATED_MODELS,
    MODELS,
    REGULARIZED_MODELS,
    WISHART_MODELS,
    resolve_params,
    simulate,
)
from tasksim.solvers.sweep import Estimate

SMALL = dict(nx=60, ns=4, ny=3, seeds=3, seed=0)
LEVEL = {"alpha": 0.5}
STRENGTH = {"gamma": 0.5}


def _extra(model):
    return LEVEL if model in GATED_MODELS else STRENGTH if model in REGULARIZED_MODELS else {}


def _z(a: Estimate, b: Estimate) -> float:
    return abs(a.mean - b.mean) / math.hypot(a.sem, b.sem)


def test_three_lines_give_transfer_and_retention_with_standard_errors_and_params():
    result = simulate("random-gating", rho_a=0.8, rho_b=0.2, alpha=0.5, nx=300, ns=10,
                      ny=10, seeds=4, seed=0, generator="appendix", method="exact")
    for est in (result.transfer, result.retention):
        assert isinstance(est, Estimate) and est.n == 4
        assert math.isfinite(est.mean) and est.sem > 0
    assert result.params["model"] == "random-gating" and result.params["alpha"] == 0.5
    assert result.params["nx"] == 300 and result.params["gram"] == "explicit"
    assert result.samples.shape == (4, 2)
    assert np.isclose(result.transfer.mean, result.samples[:, 0].mean())


def test_defaults_are_the_paper_sizes_and_generator():
    p = resolve_params("vanilla", rho_a=0.5, rho_b=0.5)
    assert (p["nx"], p["ns"], p["ny"], p["seeds"]) == (3000, 30, 10, 10)
    assert p["generator"] == "appendix" and p["method"] == "exact"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("method", ["exact", "gd"])
def test_every_model_runs_by_both_methods_and_gives_finite_numbers(model, method):
    size = dict(SMALL, nx=40, ns=3) if model == "soft-threshold" else SMALL
    result = simulate(model, rho_a=0.7, rho_b=0.4, method=method, **size, **_extra(model))
    assert np.isfinite(result.samples).all()
    assert result.params["method"] == method


@pytest.mark.parametrize("model", WISHART_MODELS)
def test_gaussian_exact_runs_take_the_wishart_path_unless_told_otherwise(model):
    auto = resolve_params(model, rho_a=0.5, rho_b=0.5, generator="gaussian", **_extra(model))
    assert auto["gram"] == "wishart"
    explicit = resolve_params(model, rho_a=0.5, rho_b=0.5, generator="gaussian",
                              gram="explicit", **_extra(model))
    assert explicit["gram"] == "explicit"


@pytest.mark.parametrize("model", WISHART_MODELS)
def test_wishart_and_explicit_paths_give_the_same_transfer_and_retention_in_distribution(model):
    kwargs = dict(rho_a=0.6, rho_b=0.3, nx=40, ns=4, seeds=300, generator="gaussian",
                  **_extra(model))
    wishart = simulate(model, gram="wishart", seed=1, **kwargs)
    explicit = simulate(model, gram="explicit", seed=2, **kwargs)
    threshold = norm.isf(1e-3 / (2 * 2 * len(WISHART_MODELS)))
    for a, b in ((wishart.transfer, explicit.transfer), (wishart.retention, explicit.retention)):
        if a.sem == 0 and b.sem == 0:  # fisher's retention is exactly 1 on both paths
            assert a.mean == pytest.approx(b.mean, abs=1e-9)
        else:
            assert _z(a, b) < threshold


def test_the_path_comparison_detects_a_different_rho_a():
    kwargs = dict(rho_b=0.3, nx=40, ns=4, seeds=300, generator="gaussian")
    a = simulate("vanilla", rho_a=0.6, gram="wishart", seed=1, **kwargs)
    b = simulate("vanilla", rho_a=0.7, gram="explicit", seed=2, **kwargs)
    assert _z(a.transfer, b.transfer) > norm.isf(1e-3 / 2)


def test_identical_tasks_transfer_and_retain_everything_in_the_vanilla_model():
    result = simulate("vanilla", rho_a=1.0, rho_b=1.0, **SMALL)
    assert np.allclose(result.samples, 1.0, atol=1e-9)


@pytest.mark.parametrize("generator", ["appendix", "gaussian"])
def test_limits_alpha_one_and_gamma_one_reduce_to_vanilla_on_the_same_draws(generator):
    common = dict(rho_a=0.7, rho_b=0.3, generator=generator, gram="explicit", **SMALL)
    vanilla = simulate("vanilla", **common).samples
    assert np.allclose(simulate("random-gating", alpha=1.0, **common).samples, vanilla)
    assert np.allclose(simulate("euclidean", gamma=1.0, **common).samples, vanilla)


def test_gamma_maps_to_lambda_as_the_paper_parameterizes_each_model():
    euclid = resolve_params("euclidean", rho_a=0.5, rho_b=0.5, gamma=0.25, nx=300, ns=10)
    assert euclid["lam"] == pytest.approx((300 / 10) * (1 / 0.25 - 1))
    for model in ("fisher", "fisher-diag"):
        p = resolve_params(model, rho_a=0.5, rho_b=0.5, gamma=0.25, nx=300, ns=10)
        assert p["lam"] == pytest.approx(3.0)
    back = resolve_params("euclidean", rho_a=0.5, rho_b=0.5, lam=90.0, nx=300, ns=10)
    assert back["gamma"] == pytest.approx(0.25)
    common = dict(rho_a=0.5, rho_b=0.5, **SMALL)
    by_gamma = simulate("euclidean", gamma=0.25, **common).samples
    by_lambda = simulate("euclidean", lam=(60 / 4) * 3.0, **common).samples
    assert np.allclose(by_gamma, by_lambda)


def test_same_seed_same_numbers_on_one_worker_or_two_processes():
    common = dict(rho_a=0.5, rho_b=0.2, alpha=0.4, nx=60, ns=4, seeds=5, seed=3)
    serial = simulate("random-gating", **common)
    parallel = simulate("random-gating", executor="process", workers=2, **common)
    assert np.array_equal(serial.samples, parallel.samples)
    other = simulate("random-gating", **dict(common, seed=4))
    assert not np.allclose(serial.samples, other.samples)


def test_the_gd_protocol_agrees_with_the_exact_fixed_points_where_it_converges():
    """Nx/Ns = 100 as in the paper: 100 epochs at eta = 0.001 converge (solvers/gd.py)."""
    common = dict(rho_a=0.8, rho_b=0.2, nx=1000, ns=10, ny=10, seeds=8, generator="gaussian")
    gd = simulate("vanilla", method="gd", seed=0, **common)
    exact = simulate("vanilla", method="exact", seed=1, **common)
    threshold = norm.isf(1e-3 / 4)
    assert _z(gd.transfer, exact.transfer) < threshold
    assert _z(gd.retention, exact.retention) < threshold


@pytest.mark.parametrize(
    "model, kwargs, message",
    [
        ("vanilla", dict(rho_a=-0.1), r"rho_a must be a number in \[0, 1\]"),
        ("vanilla", dict(rho_b=float("nan")), r"rho_b must be a number in \[0, 1\]"),
        ("random-gating", dict(alpha=0.0), r"alpha must be a number in \(0, 1\]"),
        ("random-gating", dict(alpha=1.5), r"alpha must be a number in \(0, 1\]"),
        ("random-gating", dict(), "alpha is required"),
        ("vanilla", dict(alpha=0.5), "alpha is not a parameter of vanilla"),
        ("euclidean", dict(gamma=0.0), r"gamma must be a number in \(0, 1\]"),
        ("euclidean", dict(gamma=1.5), r"gamma must be a number in \(0, 1\]"),
        ("fisher", dict(lam=-1.0), r"lam must be a number in \[0, inf\)"),
        ("fisher", dict(gamma=0.5, lam=1.0), "gamma or lam, not both"),
        ("fisher", dict(), "needs gamma"),
        ("vanilla", dict(gamma=0.5), "gamma is not a parameter of vanilla"),
        ("plasticity-gating", dict(alpha=0.5, nx=30, ns=30), "tall"),
        ("vanilla", dict(nx=100.5), "nx must be a positive integer"),
        ("vanilla", dict(ns=0), "ns must be a positive integer"),
        ("vanilla", dict(ny=-1), "ny must be a positive integer"),
        ("vanilla", dict(seeds=0), "seeds must be a positive integer"),
        ("vanilla", dict(seed=-1), "seed must be a non-negative integer"),
        ("vanilla", dict(generator="normal"), "generator must be one of"),
        ("vanilla", dict(method="adam"), "method must be one of"),
        ("vanilla", dict(gram="dense"), "gram must be one of"),
        ("vanilla", dict(gram="wishart"), "gram='wishart' needs generator='gaussian'"),
        ("fisher-diag", dict(gamma=0.5, gram="wishart", generator="gaussian"),
         "gram='wishart' needs"),
        ("ridge", dict(), "model must be one of"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter_and_its_range(model, kwargs, message):
    params = dict(rho_a=0.5, rho_b=0.5, nx=60, ns=4, seeds=2)
    params.update(kwargs)
    with pytest.raises(ValueError, match=message):
        simulate(model, **params)
