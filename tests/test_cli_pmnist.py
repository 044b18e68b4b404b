"""``tasksim pmnist`` (reports/cli.py): the schema of ``tasksim simulate`` plus learning curves,
grids over the same executors, progress per epoch, and one line for every bad input or file."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from tasksim.reports.cli import main
from tasksim.solvers.pmnist.idx import MNIST_FILES, load_mnist
from tasksim.solvers.pmnist import simulate_pmnist

from test_pmnist_data import write_mnist  # tests/ is on sys.path (pytest rootdir)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


BASE = ["pmnist", "--method", "vanilla", "--rho-a", "0.5", "--rho-b", "0.25", "--epochs", "2",
        "--seeds", "2", "--seed", "3", "--dataset", "digits"]


def test_json_is_the_simulate_schema_plus_learning_curves_with_the_api_numbers():
    code, out, _ = run(*BASE, "--json")
    assert code == 0
    record = json.loads(out)
    assert set(record) == {"transfer", "retention", "params", "curves", "provenance"}
    expected = simulate_pmnist("vanilla", rho_a=0.5, rho_b=0.25, epochs=2, seeds=2, seed=3,
                               dataset="digits")
    assert record["transfer"] == {"mean": expected.transfer.mean, "sem": expected.transfer.sem}
    assert record["retention"]["mean"] == expected.retention.mean
    mean, _ = expected.curve_mean_sem()
    assert record["curves"]["epoch"] == [0, 1, 2, 3, 4]
    assert record["curves"]["task1"]["mean"] == mean[:, 0].tolist()
    assert len(record["curves"]["task2"]["sem"]) == 5
    assert record["params"]["dataset"] == "digits" and record["params"]["hidden"] == 128
    assert record["provenance"]["seed"] == 3 and "tasksim pmnist" in record["provenance"]["command"]


def test_a_list_spans_a_grid_and_workers_do_not_change_its_numbers():
    argv = ["pmnist", "--method", "euclidean", "--rho-a", "0,1", "--rho-b", "0.5",
            "--lam", "0,0.5", "--epochs", "1", "--seeds", "2", "--dataset", "digits", "--json"]
    code, out, _ = run(*argv)
    assert code == 0
    points = json.loads(out)["points"]
    assert [(p["params"]["rho_a"], p["params"]["lam1"]) for p in points] == \
        [(0.0, 0.0), (0.0, 0.5), (1.0, 0.0), (1.0, 0.5)]
    code, parallel, _ = run(*argv, "--workers", "2")
    assert code == 0
    assert [p["transfer"] for p in json.loads(parallel)["points"]] == \
        [p["transfer"] for p in points]


def test_adaptive_gating_reports_the_gate_correlation_and_text_output_is_short():
    code, out, _ = run("pmnist", "--method", "adaptive-gating", "--alpha", "0.5", "--rho-a",
                       "1", "--rho-b", "1", "--epochs", "1", "--seeds", "2", "--dataset", "digits",
                       "--json")
    assert code == 0 and 0.0 <= json.loads(out)["gate_correlation"]["mean"] <= 1.0
    code, out, err = run(*BASE)
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 2 and "Delta eps_TF" in lines[1] and "sem" in lines[1]


def test_progress_is_per_epoch_on_stderr(monkeypatch):
    import functools

    import tasksim.reports.cli as cli
    from tasksim.reports.progress import Progress

    monkeypatch.setattr(cli, "Progress", functools.partial(Progress, delay=0.0, every=0.0))
    code, _, err = run(*BASE)
    assert code == 0
    assert err.startswith("tasksim pmnist: 8/8 epochs in ") and err.count("\n") == 1, err
    assert "\r" not in err


def test_mnist_runs_from_idx_files_in_the_named_directory(tmp_path, monkeypatch):
    (tmp_path / "mnist").mkdir()
    write_mnist(tmp_path / "mnist", gz=True, n_train=30, n_test=10)
    load_mnist.cache_clear()
    monkeypatch.chdir(tmp_path)  # a relative --data-dir is made absolute for the workers
    code, out, err = run("pmnist", "--method", "vanilla", "--rho-a", "0.5", "--rho-b", "0.5",
                         "--dataset", "mnist", "--data-dir", "mnist", "--hidden", "8",
                         "--batch", "10", "--epochs", "1", "--seeds", "2", "--json")
    assert code == 0, err
    params = json.loads(out)["params"]
    assert params["n_pixels"] == 36 and params["n_train"] == 30 and params["pixels_permuted"] == 18
    assert params["data_dir"] == str(tmp_path / "mnist")


@pytest.mark.parametrize("extra, message", [
    (["--method", "sgd"], "method must be one of"),
    (["--rho-a", "1.5"], "rho_a must be a number in [0, 1]"),
    (["--rho-a", "x"], "invalid number"),
    (["--alpha", "0.5"], "alpha is not a parameter of vanilla"),
    (["--lam", "1"], "lam is not a parameter of vanilla"),
    (["--dataset", "mnist"], "needs --data-dir"),
    (["--dataset", "mnist", "--data-dir", "/no/such/dir"], "does not exist"),
    (["--retention-epochs", "9"], "must not exceed"),
    (["--workers", "0"], "workers must be a positive integer"),
])
def test_bad_input_is_one_line_and_exit_2(extra, message):
    argv = list(BASE)
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("tasksim: error: ") and message in err and err.count("\n") == 1


def test_a_corrupt_mnist_file_is_one_line_and_exit_2(tmp_path):
    write_mnist(tmp_path, gz=False)
    target = tmp_path / MNIST_FILES[2]
    target.write_bytes(target.read_bytes()[:100])
    load_mnist.cache_clear()
    code, _, err = run("pmnist", "--method", "vanilla", "--rho-a", "0.5", "--rho-b", "0.5",
                       "--dataset", "mnist", "--data-dir", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "is truncated" in err and MNIST_FILES[2] in err


def test_the_same_seed_gives_the_same_json_twice():
    first, second = run(*BASE, "--json")[1], run(*BASE, "--json")[1]
    strip = lambda text: {k: v for k, v in json.loads(text).items() if k != "provenance"}
    assert strip(first) == strip(second)
    assert np.isfinite(json.loads(first)["transfer"]["mean"])


def test_a_grid_on_a_dask_cluster_gives_the_serial_numbers():
    distributed = pytest.importorskip("distributed")
    argv = ["pmnist", "--method", "fisher-diag", "--lam", "1", "--rho-a", "0,1", "--rho-b", "0.5",
            "--epochs", "1", "--seeds", "2", "--paired", "--dataset", "digits", "--json"]
    _, serial, _ = run(*argv)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        code, remote, err = run(*argv, "--dask", cluster.scheduler_address)
    assert code == 0, err
    assert [p["transfer"] for p in json.loads(remote)["points"]] == \
        [p["transfer"] for p in json.loads(serial)["points"]]
    assert [p["curves"] for p in json.loads(remote)["points"]] == \
        [p["curves"] for p in json.loads(serial)["points"]]


def test_the_default_data_set_is_mlxtends_mnist_sample_at_the_papers_sizes():
    # tiny network and one epoch: the data set and its split are what this checks
    code, out, err = run("pmnist", "--method", "vanilla", "--rho-a", "1", "--rho-b", "0",
                         "--hidden", "4", "--epochs", "1", "--seeds", "1", "--json")
    assert code == 0, err
    params = json.loads(out)["params"]
    assert (params["dataset"], params["n_pixels"], params["n_train"], params["n_test"]) == \
        ("mnist-5k", 784, 4000, 1000)
    assert (params["batch"], params["learning_rate"]) == (300, 0.01)


def test_pmnist_grid_refuses_an_unknown_figure_in_one_line(tmp_path):
    code, out, err = run("pmnist-grid", "fig7", "--out", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "unknown grid 'fig7'" in err


def test_pmnist_grid_runs_a_grid_into_a_results_file_and_reports_progress(tmp_path):
    # the quick data set and one seed: the command's own path (executor, progress, file)
    code, out, err = run("pmnist-grid", "fig9A", "--dataset", "digits", "--seeds", "1",
                         "--out", str(tmp_path))
    assert code == 0, err
    assert out.strip() == str(tmp_path / "fig9A.nc") and (tmp_path / "fig9A.nc").exists()
    assert "fig9A: 1/1 runs" in err


def test_pmnist_grid_refuses_an_unknown_data_set_in_one_line(tmp_path):
    code, out, err = run("pmnist-grid", "fig9A", "--dataset", "cifar", "--out", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "dataset must be mnist-5k or digits" in err


def test_pmnist_grid_interrupted_exits_130_and_the_same_command_continues_it(tmp_path,
                                                                           monkeypatch):
    import xarray as xr

    from tasksim.reports import pmnist_results

    argv = ["pmnist-grid", "fig9A", "--dataset", "digits", "--seeds", "2", "--out"]
    code, _, err = run(*argv, str(tmp_path / "whole"))
    assert code == 0, err
    calls = {"n": 0}
    real = pmnist_results.run_chunk

    def interrupted_after_one(job, learned):  # Ctrl-C during seed 1's run
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real(job, learned)

    monkeypatch.setattr(pmnist_results, "run_chunk", interrupted_after_one)
    code, out, err = run(*argv, str(tmp_path / "cut"))
    assert code == 130 and out == ""
    assert err.strip().endswith("holds the runs that finished, and the same command continues it")
    assert err.strip().count("\n") == err.count("runs, ")  # progress lines, then one error line
    cut = xr.load_dataset(tmp_path / "cut" / "fig9A.nc", engine="scipy")
    assert cut["done"].values.tolist() == [[1, 0]]
    monkeypatch.setattr(pmnist_results, "run_chunk", real)
    code, _, err = run(*argv, str(tmp_path / "cut"))
    assert code == 0, err
    resumed = xr.load_dataset(tmp_path / "cut" / "fig9A.nc", engine="scipy")
    whole = xr.load_dataset(tmp_path / "whole" / "fig9A.nc", engine="scipy")
    assert int(resumed["done"].sum()) == resumed["done"].size
    for name in ("transfer", "retention", "curves"):
        assert np.array_equal(resumed[name].values, whole[name].values, equal_nan=True)


def test_pmnist_grid_into_a_folder_it_cannot_write_is_one_line_before_any_work(tmp_path):
    (tmp_path / "a-file").write_text("")
    code, out, err = run("pmnist-grid", "fig9A", "--dataset", "digits", "--seeds", "1",
                         "--out", str(tmp_path / "a-file" / "results"))
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "cannot store grids in" in err and "a-file" in err and "runs, " not in err


@pytest.mark.skipif(not hasattr(__import__("os"), "geteuid") or __import__("os").geteuid() == 0,
                    reason="root writes into a read-only directory")
def test_pmnist_grid_into_a_read_only_results_folder_is_one_line(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, _, err = run("pmnist-grid", "fig9A", "--dataset", "digits", "--seeds", "1",
                           "--out", str(folder))
    finally:
        folder.chmod(0o700)
    assert code == 1 and err.count("\n") == 1 and "Permission denied" in err


def test_report_rerun_pmnist_recomputes_the_mnist_grids_then_the_digits_row(monkeypatch):
    import argparse

    from tasksim.reports import cli
    from tasksim.solvers.pmnist.grids import GRID_NAMES

    calls = []
    monkeypatch.setattr(cli, "main", lambda argv, **kw: calls.append(argv) or 0)
    cli._rerun_pmnist_grids(argparse.Namespace(), io.StringIO())
    assert calls == [["pmnist-grid", *GRID_NAMES, "--restart"],
                     ["pmnist-grid", *GRID_NAMES, "--restart", "--dataset", "digits"]]
