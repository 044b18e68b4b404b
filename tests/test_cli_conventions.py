"""The command line's conventions: exit status 2 for bad input, 1 for a failure at run time
(one line ending in "run with --debug for the traceback"; --debug prints it), 130 for
Ctrl-C; --version prints the version and the commit."""
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import tasksim
import tasksim.solvers.api as api
from tasksim.errors import InputError
from tasksim.reports import cli

SIM = ["simulate", "vanilla", "--rho-a", "0.8", "--rho-b", "0.2", "--nx", "300", "--ns", "10",
       "--seeds", "3"]


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def broken_solver(monkeypatch):
    """A solver with a bug: a ValueError from inside the computation, not from validation."""
    def solve(*args, **kwargs):
        raise ValueError("operands could not be broadcast together with shapes (3,) (4,)")

    monkeypatch.setattr(api, "simulate_samples", solve)


def test_a_bug_inside_a_solver_exits_1_with_one_line_not_as_bad_input(broken_solver):
    code, out, err = run(*SIM)
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err
    assert err == ("tasksim: error: tasksim simulate failed (ValueError: operands could not be "
                   "broadcast together with shapes (3,) (4,)): run with --debug for the "
                   "traceback\n")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_traceback_of_the_failure(broken_solver, where):
    argv = ["--debug", *SIM] if where == "before" else [*SIM, "--debug"]
    code, _, err = run(*argv)
    assert code == 1
    assert err.startswith("Traceback (most recent call last):")
    assert "in solve" in err and "ValueError: operands could not be broadcast" in err
    assert err.splitlines()[-1].startswith("tasksim: error: tasksim simulate failed")
    assert "--debug" not in err.splitlines()[-1]


def test_an_error_from_inside_numpy_is_a_failure_at_run_time(monkeypatch):
    def singular(*args, **kwargs):
        return np.linalg.inv(np.zeros((2, 2)))

    monkeypatch.setattr(api, "simulate_samples", singular)
    code, _, err = run(*SIM)
    assert code == 1 and err.count("\n") == 1
    assert "LinAlgError: Singular matrix" in err and err.endswith("--debug for the traceback\n")


def test_bad_input_is_an_input_error_a_value_error_and_exit_2():
    with pytest.raises(InputError, match="rho_a must be a number in"):
        tasksim.simulate("vanilla", rho_a=2.0, rho_b=0.0)
    with pytest.raises(ValueError):  # the API's contract of before holds
        tasksim.simulate("vanilla", rho_a=2.0, rho_b=0.0)
    code, _, err = run("simulate", "vanilla", "--rho-a", "2", "--rho-b", "0")
    assert code == 2 and err == "tasksim: error: rho_a must be a number in [0, 1], got 2.0\n"


def test_ctrl_c_exits_130_in_one_line(monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "simulate_samples", interrupt)
    assert run(*SIM) == (130, "", "tasksim: error: interrupted\n")


def test_an_unwritable_output_is_a_failure_at_run_time(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _, err = run("report", "--quick", "--no-figures", "--no-measurements", "--out",
                       str(blocker))
    assert code == 1 and err.count("\n") == 1 and err.startswith("tasksim: error: cannot write")


def test_version_prints_the_version_and_the_commit():
    code, out, err = run("--version")
    assert code == 0 and err == ""
    assert out.startswith(f"tasksim {tasksim.__version__} (commit ")
    head = subprocess.run(["git", "-C", str(cli.__file__.rsplit("/", 2)[0]), "rev-parse",
                           "HEAD"], capture_output=True, text=True)
    commit = re.search(r"\(commit ([0-9a-f]{7,40})", out)
    assert commit, out
    if head.returncode == 0:
        assert head.stdout.strip() == commit.group(1)


def test_the_version_comes_from_git_not_from_a_typed_number():
    assert tasksim.__version__ != "0+unknown", "tasksim was not installed (pip install -e .)"
    from tasksim import _version  # written by setuptools-scm from git

    assert _version.__version__ == tasksim.__version__
    assert re.fullmatch(r"g?[0-9a-f]{7,40}", _version.__commit__ or ""), _version.__commit__


def test_the_installed_console_script_follows_the_same_conventions():
    done = subprocess.run([sys.executable, "-m", "tasksim.reports.cli", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("tasksim ")
