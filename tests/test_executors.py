"""open_executor: serial, local processes, or a dask.distributed cluster (a LocalCluster here),
with the same numbers on each, and one-line errors."""
import numpy as np
import pytest

from tasksim.solvers.executors import open_executor
from tasksim.solvers.sweep import sweep


def _draw(params, seed):
    return {"x": params["scale"] * np.random.default_rng(seed).standard_normal()}


POINTS = [{"scale": 1.0}, {"scale": 2.0}]


def _samples(executor):
    return sweep(_draw, POINTS, seeds=6, seed=3, executor=executor).samples


def test_one_worker_runs_serially():
    with open_executor(workers=1) as executor:
        assert executor is None


def test_local_processes_give_the_serial_numbers():
    with open_executor(workers=2) as executor:
        assert np.array_equal(_samples(executor), _samples(None))


def test_a_dask_local_cluster_gives_the_serial_numbers():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with open_executor(dask=cluster.scheduler_address) as executor:
            assert np.array_equal(_samples(executor), _samples(None))


@pytest.mark.parametrize("kwargs, message", [
    ({"workers": 0}, "workers must be"),
    ({"dask": ""}, "scheduler address"),
    ({"dask": "tcp://127.0.0.1:9", "timeout": 1.0}, "cannot reach the dask scheduler"),
])
def test_bad_requests_are_one_line_errors(kwargs, message):
    if "dask" in kwargs and kwargs["dask"]:
        pytest.importorskip("distributed")
    with pytest.raises(ValueError, match=message) as caught:
        with open_executor(**kwargs):
            pass
    assert "\n" not in str(caught.value)


def _blas_threads(_: int) -> list[int]:
    from tasksim.reports.figures_blas import blas_info

    return [entry["threads"] for entry in blas_info()]


def test_each_local_worker_has_one_blas_thread():
    """N workers whose BLAS each start a thread per core oversubscribe the machine: the
    parallelism is the processes', every worker's BLAS runs one thread."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=2, user_api="blas"):  # the suite runs one thread: a
        assert set(_blas_threads(0)) == {2}            # parent with two, as outside it
        with open_executor(workers=2) as executor:
            counts = list(executor.map(_blas_threads, range(2)))
    assert counts and all(c and set(c) == {1} for c in counts)
