"""Bad input fails early with a ValueError that names the parameter and its range."""
import math

import pytest

from tasksim.solvers.validation import (
    check_nonnegative,
    check_open_unit_interval,
    check_positive_int,
    check_tall,
    check_unit_interval,
)


@pytest.mark.parametrize("bad", [-0.1, 1.0001, math.nan, math.inf, "0.5", None, True])
def test_unit_interval_rejects_values_outside_zero_one(bad):
    with pytest.raises(ValueError, match=r"rho_a must be a number in \[0, 1\]"):
        check_unit_interval("rho_a", bad)


@pytest.mark.parametrize("ok", [0, 0.0, 0.3, 1, 1.0])
def test_unit_interval_accepts_its_closed_range(ok):
    assert check_unit_interval("rho_b", ok) == float(ok)


@pytest.mark.parametrize("bad", [0.0, -1.0, 1.5, math.nan])
def test_levels_exclude_zero_and_values_above_one(bad):
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\]"):
        check_open_unit_interval("alpha", bad)


def test_lambda_must_be_nonnegative():
    assert check_nonnegative("lam", 0.0) == 0.0
    with pytest.raises(ValueError, match=r"lam must be a number in \[0, inf\)"):
        check_nonnegative("lam", -1e-9)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "30", math.nan, True])
def test_sizes_are_positive_integers(bad):
    with pytest.raises(ValueError, match="nx must be a positive integer"):
        check_positive_int("nx", bad)


def test_integral_floats_count_as_sizes():
    assert check_positive_int("ns", 30.0) == 30


def test_tall_matrix_requirement_names_both_sizes():
    check_tall(100, 30)
    with pytest.raises(ValueError, match="ns=30, nx=30"):
        check_tall(30, 30)
    with pytest.raises(ValueError, match=r"2 Ns <= Nx"):
        check_tall(50, 30, factor=2)
