"""`tasksim sweep ... --out FILE.nc|FILE.csv`: the command-line form of tasksim.sweep."""
import io

import numpy as np
import pytest
import xarray as xr

import tasksim
from tasksim.reports.cli import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_a_netcdf_file_holds_the_dataset_of_the_same_sweep(tmp_path):
    path = tmp_path / "grid.nc"
    status, out, _ = run("sweep", "vanilla", "--rho-a", "0:1:3", "--rho-b", "0,1", "--nx",
                         "400", "--ns", "4", "--seeds", "3", "--generator", "gaussian",
                         "--out", str(path))
    assert status == 0 and "rho_a = 3, rho_b = 2" in out
    stored = xr.open_dataset(path, engine="scipy")
    direct = tasksim.sweep("vanilla", rho_a=[0.0, 0.5, 1.0], rho_b=[0.0, 1.0], nx=400, ns=4,
                           seeds=3, generator="gaussian")
    np.testing.assert_array_equal(stored.transfer.values, direct.transfer.values)
    assert "tasksim sweep vanilla" in stored.attrs["provenance"]


def test_a_csv_file_has_one_row_per_grid_point_after_its_provenance(tmp_path):
    path = tmp_path / "grid.csv"
    status, _, _ = run("sweep", "euclidean", "--rho-a", "0.5", "--rho-b", "0.2,0.8", "--gamma",
                       "0.5,1", "--nx", "400", "--ns", "4", "--seeds", "2", "--tasks", "2,3",
                       "--out", str(path))
    assert status == 0
    lines = path.read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = [line for line in lines if not line.startswith("#")]
    assert any(line.startswith("# command: tasksim sweep euclidean") for line in comments)
    assert rows[0].startswith("rho_b,gamma,tasks,") and len(rows) == 1 + 2 * 2 * 2


@pytest.mark.parametrize("argv, message", [
    (["--rho-a", "0,2", "--rho-b", "0"], "rho_a must be a number in [0, 1]"),
    (["--rho-a", "0,x", "--rho-b", "0"], "invalid value '0,x'"),
    (["--rho-a", "0", "--rho-b", "0", "--nx", "1.5"], "invalid value '1.5'"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path, argv, message):
    status, _, err = run("sweep", "vanilla", *argv, "--out", str(tmp_path / "x.nc"))
    assert status == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "x.nc").exists()


def test_an_unknown_suffix_is_refused_before_any_work(tmp_path):
    status, _, err = run("sweep", "vanilla", "--rho-a", "0", "--rho-b", "0", "--out",
                         str(tmp_path / "x.txt"))
    assert status == 2 and "--out must end in .nc or .csv" in err
