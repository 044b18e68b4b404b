"""The Hypothesis strategies of tasksim.testing.strategies draw only values the solvers accept, within
the bounds they are given, and reject bad bounds with a ValueError naming the argument."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasksim.testing import strategies as S
from tasksim.solvers.api import resolve_params
from tasksim.solvers.linear_models import make_model
from tasksim.solvers.rng import as_generator
from tasksim.solvers.tasks import check_generator
from tasksim.solvers.validation import (
    check_nonnegative,
    check_open_unit_interval,
    check_positive_int,
    check_unit_interval,
)


@given(S.similarities())
def test_similarities_are_valid_correlations(rho):
    assert check_unit_interval("rho_a", rho) == rho


@given(st.data(), st.floats(0, 1), st.floats(0, 1))
def test_similarities_respect_their_bounds(data, a, b):
    low, high = min(a, b), max(a, b)
    rho = data.draw(S.similarities(low, high))
    assert low <= rho <= high


@given(S.gating_levels(), S.regularizer_levels())
def test_levels_exclude_zero_and_never_exceed_one(alpha, gamma):
    assert check_open_unit_interval("alpha", alpha) == alpha
    assert check_open_unit_interval("gamma", gamma) == gamma


@given(S.levels("alpha", min_value=0.3, max_value=0.6))
def test_levels_respect_their_bounds(alpha):
    assert 0.3 <= alpha <= 0.6


@given(S.regularizer_amplitudes(max_value=10.0))
def test_amplitudes_are_nonnegative_and_bounded(lam):
    assert check_nonnegative("lam", lam) == lam and lam <= 10.0


@given(S.latent_sizes(2, 5))
def test_latent_sizes_are_positive_integers_in_range(ns):
    assert check_positive_int("ns", ns) == ns and 2 <= ns <= 5


@given(st.data(), S.gating_levels(min_value=0.05), st.floats(1.0, 50.0))
def test_tall_sizes_keep_the_gated_matrix_tall(data, alpha, min_ratio):
    nx, ns = data.draw(S.tall_sizes(S.latent_sizes(1, 6), min_ratio=min_ratio,
                                    max_ratio=min_ratio * 4, alpha=alpha))
    assert ns < nx <= S.MAX_NX
    assert alpha * nx / ns >= min_ratio * (1 - 1e-12)
    # the models that need a tall matrix accept the drawn sizes
    make_model("plasticity-gating", nx=nx, ns=ns, alpha=alpha)


@given(S.generators(), S.seeds())
def test_generators_and_seeds_are_accepted(generator, seed):
    assert check_generator(generator) == generator
    as_generator(seed)


@pytest.mark.parametrize("model", ["vanilla", *S.GATED_MODELS, *S.REGULARIZED_MODELS])
@given(data=st.data())
def test_model_parameters_are_accepted_by_the_api(model, data):
    params = data.draw(S.model_parameters(model, min_level=0.1))
    resolved = resolve_params(**params, nx=3000, ns=30)
    assert resolved["model"] == model
    level = "alpha" if model in S.GATED_MODELS else "gamma" if model in S.REGULARIZED_MODELS \
        else None
    if level is not None:
        assert 0.1 <= params[level] <= 1.0


@given(S.model_parameters("fisher", min_level=0.2, max_level=0.9, max_similarity=0.5))
def test_model_parameters_respect_level_and_similarity_bounds(params):
    assert 0.2 <= params["gamma"] <= 0.9
    assert params["rho_a"] <= 0.5 and params["rho_b"] <= 0.5


@pytest.mark.parametrize("build, message", [
    (lambda: S.similarities(-0.1), r"min_value must be a number in \[0, 1\]"),
    (lambda: S.similarities(0.0, math.nan), r"max_value must be a number in \[0, 1\]"),
    (lambda: S.similarities(0.7, 0.3), "similarities needs min_value <= max_value"),
    (lambda: S.levels("alpha", 0.0, 0.0), r"max_value must be a number in \(0, 1\]"),
    (lambda: S.gating_levels(1.2), r"min_value must be a number in \[0, 1\]"),
    (lambda: S.regularizer_amplitudes(-1.0), r"max_value must be a number in \[0, inf\)"),
    (lambda: S.latent_sizes(0), "min_value must be a positive integer"),
    (lambda: S.latent_sizes(5, 2), "latent_sizes needs min_value <= max_value"),
    (lambda: S.tall_sizes(4, min_ratio=0.5), "min_ratio must be a number >= 1"),
    (lambda: S.tall_sizes(4, min_ratio=8, max_ratio=2), "tall_sizes needs min_value"),
    (lambda: S.tall_sizes(4, alpha=0.0), r"alpha must be a number in \(0, 1\]"),
    (lambda: S.tall_sizes(0), "ns must be a positive integer"),
    (lambda: S.model_parameters("ridge"), "model must be one of"),
    (lambda: S.model_parameters("fisher", max_level=0.0), r"max_value must be a number in \(0, 1\]"),
    (lambda: S.model_parameters("fisher", min_level=0.8, max_level=0.5),
     "needs min_value <= max_value"),
])
def test_bad_bounds_raise_value_errors_naming_the_argument(build, message):
    with pytest.raises(ValueError, match=message):
        build()
