"""``tasksim probe`` (reports/cli.py, reports/probe_command.py): its table, JSON, CSV and PNG,
its theory columns, identical numbers on any executor, resumption after Ctrl-C or a kill, and
one-line errors."""
import functools
import io
import json

import pytest
from PIL import Image

import tasksim.solvers.probe as probe_module
from tasksim.reports import probe_command
from tasksim.reports.cli import main
from tasksim.reports.probe_store import STORE_FOLDER
from tasksim.solvers.executors import open_executor

ARGS = ["probe", "vanilla", "--rho-a", "0.8", "--rho-b", "0.5", "--ns", "4",
        "--nx", "40,160,640", "--seeds", "600", "--seed", "3"]


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def probe_json(folder, *extra):
    code, out, err = run(*ARGS, "--out", str(folder), "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def numbers(record):
    return [(q, row["nx"], row["mean"], row["sem"]) for q in ("transfer", "retention")
            for row in record[q]["rows"]]


def test_json_is_one_object_with_theory_rows_fit_and_provenance(tmp_path):
    record = probe_json(tmp_path)
    assert {"model", "params", "transfer", "retention", "provenance"} <= set(record)
    assert record["model"] == "vanilla" and record["params"]["nx"] == [40, 160, 640]
    for quantity in ("transfer", "retention"):
        part = record[quantity]
        assert set(part) == {"leading", "nlo", "paper_nlo", "rows", "fit"}
        assert [set(r) for r in part["rows"]] == [{"nx", "mean", "sem", "deviation",
                                                   "predicted"}] * 3
        assert part["fit"] is None or set(part["fit"]) == {"c", "p"}
    transfer = record["transfer"]
    assert transfer["leading"] == pytest.approx(0.8 * (2 * 0.5 - 0.8))
    assert transfer["nlo"] == pytest.approx(-(1 - 0.64) * 4)  # -(1 - rho_a^2) Ns, derived
    assert transfer["paper_nlo"] == pytest.approx(-(4 + 0.64))  # -(Ns + rho_a^2), printed
    # the prediction is the exact inverse-Wishart closed form where one exists
    assert transfer["rows"][0]["predicted"] == pytest.approx(0.16 - 0.36 * 4 / (40 - 5))
    assert record["provenance"]["command"].startswith("tasksim probe vanilla")


def test_the_table_the_csv_and_the_png_are_written(tmp_path):
    code, out, err = run(*ARGS, "--out", str(tmp_path))
    assert code == 0, err
    assert "Nx" in out and "deviation" in out and "predicted" in out and "wrote" in out
    csv = next(tmp_path.glob("*.csv")).read_text().splitlines()
    assert csv[0].startswith("# tasksim") and any(line.startswith("quantity,nx") for line in csv)
    assert sum(line.startswith(("transfer,", "retention,")) for line in csv) == 6
    png = Image.open(next(tmp_path.glob("*.png")))
    assert "tasksim" in png.info["Software"]


def test_any_number_of_workers_gives_the_same_numbers(tmp_path):
    serial = probe_json(tmp_path / "a")
    parallel = probe_json(tmp_path / "b", "--workers", "2")
    assert numbers(serial) == numbers(parallel)


def test_a_dask_local_cluster_gives_the_same_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial = probe_json(tmp_path / "a")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        on_cluster = probe_json(tmp_path / "b", "--dask", cluster.scheduler_address)
    assert numbers(serial) == numbers(on_cluster)


def _counting_chunks(monkeypatch, interrupt_after=None):
    calls = []
    original = probe_module.run_chunk

    def counted(*args):
        if interrupt_after is not None and len(calls) == interrupt_after:
            raise KeyboardInterrupt
        calls.append(args[1:4])
        return original(*args)

    monkeypatch.setattr(probe_module, "run_chunk", counted)
    return calls


def test_an_interrupted_probe_resumes_and_loses_nothing(tmp_path, monkeypatch):
    fresh = probe_json(tmp_path / "fresh")
    with monkeypatch.context() as patch:
        _counting_chunks(patch, interrupt_after=4)
        code, out, err = run(*ARGS, "--out", str(tmp_path / "resumed"), "--json")
    assert code == 130 and "interrupted" in err and "resume" in err and err.count("\n") == 1
    calls = _counting_chunks(monkeypatch)
    resumed = probe_json(tmp_path / "resumed")
    assert len(calls) == 3 * 3 - 4  # 3 sizes x 3 chunks of 250, 250, 100; 4 were stored
    assert numbers(resumed) == numbers(fresh)


def test_a_killed_probe_resumes_past_a_line_cut_short(tmp_path, monkeypatch):
    fresh = probe_json(tmp_path)
    store = next((tmp_path / STORE_FOLDER).glob("*.jsonl"))
    text = store.read_text()
    store.write_text(text[:-40])  # the kill cut the last record
    calls = _counting_chunks(monkeypatch)
    again = probe_json(tmp_path)
    assert len(calls) == 1 and numbers(again) == numbers(fresh)


def test_more_seeds_reuse_every_full_chunk(tmp_path, monkeypatch):
    probe_json(tmp_path)
    calls = _counting_chunks(monkeypatch)
    code, out, err = run(*ARGS[:-4], "--seeds", "700", "--seed", "3", "--out", str(tmp_path),
                         "--json")
    assert code == 0, err
    assert sorted(c[2] for c in calls) == [2, 2, 2]  # only the last chunk of each Nx


@pytest.mark.parametrize("change, message", [
    (["--nx", ""], "at least one input size"),
    (["--nx", "160,40"], "strictly increasing"),
    (["--nx", "4,40"], "must exceed ns"),
    (["--seeds", "1"], "seeds must be at least 2"),
    (["--generator", "uniform"], "generator must be one of"),
    (["--alpha", "0.5"], "alpha is not a parameter of vanilla"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, change, message):
    code, out, err = run(*ARGS, "--out", str(tmp_path), *change)
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""
    assert not (tmp_path / STORE_FOLDER).exists()  # refused before any work


def test_an_unwritable_out_is_refused_before_any_work(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = run(*ARGS, "--out", str(blocker))
    assert code == 1 and "cannot write the probe's results" in err and err.count("\n") == 1


def test_an_unreachable_dask_scheduler_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(probe_command, "open_executor",
                        functools.partial(open_executor, timeout=1.0))
    code, out, err = run(*ARGS, "--out", str(tmp_path), "--dask", "tcp://127.0.0.1:9")
    assert code == 1 and "cannot reach the dask scheduler" in err and err.count("\n") == 1


def test_models_without_a_derived_term_are_measured_only(tmp_path):
    code, out, err = run("probe", "adaptive-gating", "--rho-a", "0.5", "--rho-b", "0.5",
                         "--alpha", "0.5", "--ns", "2", "--ny", "2", "--nx", "20,40",
                         "--seeds", "3", "--out", str(tmp_path), "--json")
    record = json.loads(out)
    assert code == 0 and record["transfer"]["leading"] is None
    assert record["transfer"]["nlo"] is None and record["transfer"]["fit"] is None
    assert record["transfer"]["rows"][0]["predicted"] is None
