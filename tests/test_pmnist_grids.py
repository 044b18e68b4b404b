"""The Sec. 7 grids as stored data (solvers/pmnist/grids.py, reports/pmnist_results.py): an
interrupted grid resumes with the same numbers, workers do not change them, a file made with
other settings is refused, and each file says where it came from."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tasksim.reports.pmnist_results import grid_path, load_grid, run_grid
from tasksim.solvers.pmnist.grids import (ChunkJob, FirstTaskJob, paper_grids, plan,
                                          resolved_points, tiny_grid)

VALUES = ("transfer", "retention", "gate_correlation", "curves")


def _same(a, b) -> bool:
    return all(np.array_equal(a[v].values, b[v].values, equal_nan=True) for v in VALUES)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    return run_grid(tiny_grid(seeds=3), tmp_path_factory.mktemp("whole"))


def test_an_interrupted_grid_resumes_where_it_stopped_with_the_same_numbers(tmp_path,
                                                                         uninterrupted):
    spec = tiny_grid(seeds=3)
    stopped = run_grid(spec, tmp_path, max_jobs=3)  # as if killed after three jobs
    on_disk = load_grid(grid_path(tmp_path, spec.name))
    assert 0 < int(on_disk["done"].sum()) < on_disk["done"].size
    assert _same(on_disk, stopped)
    resumed = run_grid(spec, tmp_path)
    assert int(resumed["done"].sum()) == resumed["done"].size
    assert _same(resumed, uninterrupted)
    assert _same(load_grid(grid_path(tmp_path, spec.name)), uninterrupted)


def test_workers_do_not_change_the_numbers(tmp_path, uninterrupted):
    from tasksim.solvers.executors import open_executor

    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=2, user_api="blas"), \
            open_executor(workers=2) as pool:  # a parent with two BLAS threads
        parallel = run_grid(tiny_grid(seeds=3), tmp_path, executor=pool, workers=2)
    assert _same(parallel, uninterrupted)
    # the provenance records the BLAS that ran the grid: the workers', one thread each
    blas = json.loads(parallel.attrs["provenance"])["blas"]
    assert blas and all(entry["threads"] == 1 for entry in blas)


def test_a_finished_run_has_every_value_and_an_unfinished_one_none(tmp_path):
    ds = run_grid(tiny_grid(), tmp_path, max_jobs=2)  # task 1 of seed 0, then one chunk
    done = ds["done"].values.astype(bool)
    assert done.sum() == 2 and np.all(done[:2, 0])
    assert np.all(np.isfinite(ds["transfer"].values[done]))
    assert np.all(np.isnan(ds["transfer"].values[~done]))
    # task 2's error during task 1 is not measured from a stored task 1; the rest is
    curves = ds["curves"].values[0, 0]
    epochs = json.loads(ds.attrs["protocol"])["epochs"]
    assert np.all(np.isnan(curves[1:epochs, 1])) and np.all(np.isfinite(curves[:, 0]))


def test_every_point_shares_task_one_of_its_seed(uninterrupted):
    task1 = uninterrupted["curves"].values[:, :, :3, 0]  # epochs 0..2 of task 1
    assert np.all(task1 == task1[:1])
    assert not np.array_equal(task1[0, 0], task1[0, 1])  # seeds differ


def test_a_stored_grid_grows_to_more_seeds_keeping_the_runs_it_has(tmp_path, uninterrupted):
    run_grid(tiny_grid(seeds=2), tmp_path)
    grown = run_grid(tiny_grid(seeds=3), tmp_path)
    assert _same(grown, uninterrupted)
    # asking for fewer seeds runs only the first ones and keeps the file's size
    again = run_grid(tiny_grid(seeds=2), tmp_path)
    assert again.sizes["seed"] == 3 and _same(again, uninterrupted)


def test_fewer_seeds_than_the_file_holds_run_only_the_first(tmp_path):
    run_grid(tiny_grid(seeds=3), tmp_path, max_jobs=2)  # task 1 and a chunk of seed 0
    ds = run_grid(tiny_grid(seeds=2), tmp_path)
    assert ds["done"].values.sum(axis=0).tolist() == [3, 3, 0]


def test_a_stored_grid_with_other_settings_is_refused_unless_restarted(tmp_path):
    run_grid(tiny_grid(), tmp_path, max_jobs=2)
    other = replace(tiny_grid(), task2_epochs=3)
    with pytest.raises(ValueError, match="other settings") as caught:
        run_grid(other, tmp_path)
    assert "\n" not in str(caught.value)
    redone = run_grid(other, tmp_path, restart=True)
    assert redone.sizes["epoch"] == 2 + 3 + 1 and int(redone["done"].sum()) == 6


def test_the_file_records_its_settings_protocol_and_provenance(tmp_path):
    ds = run_grid(tiny_grid(), tmp_path, command=["tasksim", "pmnist-grid", "tiny"])
    stored = load_grid(grid_path(tmp_path, "tiny"))
    assert json.loads(stored.attrs["settings"])["points"][1]["rho_a"] == 0.5
    assert json.loads(stored.attrs["protocol"])["dataset"] == "digits"
    prov = json.loads(stored.attrs["provenance"])
    assert prov["command"] == "tasksim pmnist-grid tiny" and prov["seed"] == 2024
    assert float(stored.attrs["seconds"]) > 0
    assert stored["method"].values.tolist() == ["vanilla"] * 3
    assert np.isnan(stored["alpha"].values).all() and _same(stored, ds)


def test_a_missing_or_corrupt_file_is_a_one_line_error(tmp_path):
    with pytest.raises(ValueError, match="no stored grid"):
        load_grid(tmp_path / "fig6AB.nc")
    (tmp_path / "bad.nc").write_bytes(b"not netcdf")
    with pytest.raises(ValueError, match="not a readable netCDF grid") as caught:
        load_grid(tmp_path / "bad.nc")
    assert "\n" not in str(caught.value)


def test_the_plan_goes_seed_by_seed_with_each_first_task_before_its_runs():
    spec = tiny_grid(seeds=2)
    jobs = plan(spec, done=set())
    assert [type(j) for j in jobs] == [FirstTaskJob, ChunkJob, ChunkJob] * 2
    assert [j.j for j in jobs] == [0, 0, 0, 1, 1, 1]
    assert sorted(i for j in jobs[1:3] for i in j.indices) == [0, 1, 2]
    # what is done or already learned is not planned again
    again = plan(spec, done={(0, 0), (1, 0), (2, 0)}, have_first=[jobs[3].key])
    assert [type(j) for j in again] == [ChunkJob, ChunkJob] and {j.j for j in again} == {1}


def test_the_paper_grids_have_the_stated_sizes():
    specs = paper_grids()
    ab = specs["fig6AB"]
    assert ab.seeds == 5 and len(ab.points) == 121 and ab.dataset == "mnist-5k"
    assert sorted({p["rho_a"] for p in ab.points}) == [k / 10 for k in range(11)]
    assert specs["fig9CD"].task2_epochs == 100 and specs["fig9A"].track_task2
    # the steps grid: line 1361's corners first (a stored file of those grows), then rho_b = 1
    steps = [(p["rho_a"], p["rho_b"]) for p in specs["fig9CD_steps"].points]
    assert steps == [(0.0, 1.0), (1.0, 0.0), (0.2, 1.0), (0.4, 1.0), (0.6, 1.0), (0.8, 1.0),
                     (1.0, 1.0)]
    points = resolved_points(specs["fig6EH"])
    assert {(p["hidden"], p["batch"], p["epochs"], p["learning_rate"]) for p in points} == \
        {(1500, 300, 100, 0.01)}
    # every vanilla grid shares task 1 of its seed: one first task per seed
    firsts = [j for j in plan(ab, set()) if isinstance(j, FirstTaskJob)]
    assert len(firsts) == ab.seeds


def test_a_dask_cluster_gives_the_serial_numbers(tmp_path, uninterrupted):
    distributed = pytest.importorskip("distributed")
    from tasksim.solvers.executors import open_executor

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            open_executor(dask=cluster.scheduler_address) as executor:
        remote = run_grid(tiny_grid(seeds=3), tmp_path, executor=executor, workers=2)
    assert _same(remote, uninterrupted)


def test_a_stored_grid_grows_to_more_points_keeping_the_runs_it_has(tmp_path):
    spec = tiny_grid(seeds=2)
    more = replace(spec, points=spec.points + (dict(spec.points[0], rho_b=1.0),))
    whole = run_grid(more, tmp_path / "whole")
    run_grid(spec, tmp_path / "grown")
    grown = run_grid(more, tmp_path / "grown")
    assert grown.sizes["point"] == 4 and int(grown["done"].sum()) == 8
    assert _same(grown, whole)  # a run depends on its point and seed, not on the grid
    # points that do not continue the stored ones are other settings
    with pytest.raises(ValueError, match="other settings"):
        run_grid(replace(spec, points=spec.points[1:]), tmp_path / "grown")


def test_a_folder_that_cannot_be_written_fails_before_any_work(tmp_path, monkeypatch):
    import tasksim.reports.pmnist_results as results

    learned = []
    monkeypatch.setattr(results, "learn_first_task", lambda job: learned.append(job))
    (tmp_path / "a-file").write_text("")
    with pytest.raises(OSError, match="cannot store grids in .*a-file/results: Not a directory"):
        run_grid(tiny_grid(), tmp_path / "a-file" / "results")
    assert learned == []
