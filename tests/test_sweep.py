"""Seeded sweeps (solvers/sweep.py): numbers independent of executor, workers and chunking."""
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tasksim.solvers.sweep import Estimate, grid, sample_seed, sweep


def _normal_pair(params, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(2)
    return {"a": params["loc"] + x[0], "b": params["loc"] * x[1]}


def _normal_pair_vectorized(params, seeds):
    rows = [_normal_pair(params, s) for s in seeds]
    return {"a": [r["a"] for r in rows], "b": np.array([r["b"] for r in rows])}


POINTS = grid(loc=[0.0, 1.0, 5.0])


def test_one_worker_two_processes_threads_and_any_chunking_give_identical_numbers():
    serial = sweep(_normal_pair, POINTS, seeds=7, seed=3, executor=None)
    processes = sweep(_normal_pair, POINTS, seeds=7, seed=3, executor="process", workers=2)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threads = sweep(_normal_pair, POINTS, seeds=7, seed=3, executor=pool, chunk_size=2)
    one_by_one = sweep(_normal_pair, POINTS, seeds=7, seed=3, executor=None, chunk_size=1)
    for other in (processes, threads, one_by_one):
        assert np.array_equal(serial.samples, other.samples)
        assert other.outputs == ("a", "b") and other.points == serial.points


def test_vectorized_and_scalar_sample_functions_agree():
    scalar = sweep(_normal_pair, POINTS, seeds=5, seed=1, executor=None)
    vector = sweep(_normal_pair_vectorized, POINTS, seeds=5, seed=1, executor="process",
                   workers=2, vectorized=True, chunk_size=3)
    assert np.array_equal(scalar.samples, vector.samples)


def test_sample_seeds_are_children_of_the_root_so_more_seeds_keep_earlier_samples():
    root = np.random.SeedSequence(11)
    assert sample_seed(root, 1, 2).generate_state(4).tolist() == \
        root.spawn(2)[1].spawn(3)[2].generate_state(4).tolist()
    few = sweep(_normal_pair, POINTS[:2], seeds=3, seed=11, executor=None)
    more = sweep(_normal_pair, POINTS, seeds=6, seed=11, executor=None)
    assert np.array_equal(few.samples, more.samples[:2, :3])


def test_different_root_seeds_and_grid_points_give_different_samples():
    a = sweep(_normal_pair, POINTS, seeds=4, seed=0, executor=None)
    b = sweep(_normal_pair, POINTS, seeds=4, seed=1, executor=None)
    assert not np.allclose(a.samples, b.samples)
    # points share no seeds: the noise of "a" differs between grid points
    noise = a.column("a") - np.array([0.0, 1.0, 5.0])[:, None]
    assert not np.allclose(noise[0], noise[1])


def test_progress_is_reported_up_to_the_total_in_increasing_steps():
    calls = []
    sweep(_normal_pair, POINTS, seeds=4, seed=0, executor=None, chunk_size=3,
          progress=lambda done, total: calls.append((done, total)))
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == 12 and {t for _, t in calls} == {12}


def test_mean_and_standard_error_per_grid_point_are_the_sample_statistics():
    result = sweep(_normal_pair, POINTS, seeds=9, seed=2, executor=None)
    b = result.column("b")
    assert np.allclose(result.mean[:, 1], b.mean(axis=1))
    assert np.allclose(result.sem[:, 1], b.std(axis=1, ddof=1) / 3.0)
    est = result.estimate(2, "a")
    assert math.isclose(est.mean, result.column("a")[2].mean()) and est.n == 9


def test_estimate_of_one_sample_has_an_undefined_standard_error():
    single = Estimate.from_samples([2.5])
    assert single.mean == 2.5 and math.isnan(single.sem) and single.n == 1
    with pytest.raises(ValueError, match="at least one sample"):
        Estimate.from_samples([])


def _inconsistent(params, seed):
    return {"a": 1.0} if params["loc"] == 0.0 else {"c": 1.0}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(seeds=0), "seeds"),
        (dict(seeds=2.5), "seeds"),
        (dict(executor="threads"), "executor"),
        (dict(workers=0), "workers"),
        (dict(chunk_size=0), "chunk_size"),
    ],
)
def test_bad_sweep_parameters_raise_value_error_naming_them(kwargs, message):
    params = dict(seeds=2, seed=0, executor=None)
    params.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sweep(_normal_pair, POINTS, **params)


def test_empty_grid_and_inconsistent_outputs_are_rejected():
    with pytest.raises(ValueError, match="points"):
        sweep(_normal_pair, [], seeds=1, executor=None)
    with pytest.raises(ValueError, match="outputs"):
        sweep(_inconsistent, POINTS, seeds=1, executor=None)
