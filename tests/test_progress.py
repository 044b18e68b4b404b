"""Progress on stderr (reports/progress.py): a bar with rate and time left on a terminal, one
plain line per stage in a log (no carriage return), nothing with --quiet; short runs are
silent."""
import functools
import io

import pytest

from tasksim.reports import cli
from tasksim.reports.progress import Progress

SIM = ["simulate", "vanilla", "--rho-a", "0.8", "--rho-b", "0.2", "--nx", "300", "--ns", "10",
       "--seeds", "3", "--seed", "5"]


class Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run(argv, err):
    out = io.StringIO()
    return cli.main(argv, stdout=out, stderr=err), out.getvalue()


@pytest.fixture
def immediate(monkeypatch):
    """Progress shown from the first sample (the commands wait 2 s before showing any)."""
    monkeypatch.setattr(cli, "Progress", functools.partial(Progress, delay=0.0, every=0.0))


def test_a_log_gets_one_plain_line_per_stage(immediate):
    err = io.StringIO()
    code, _ = run(SIM, err)
    text = err.getvalue()
    assert code == 0 and "\r" not in text
    assert text.count("\n") == 1 and text.startswith("tasksim simulate vanilla: 3/3 samples in ")
    assert text.rstrip().endswith("samples/s)")


def test_a_terminal_gets_a_bar_with_rate_and_time_left(immediate):
    err = Terminal()
    code, _ = run(SIM, err)
    text = err.getvalue()
    assert code == 0 and "\r" in text  # redrawn in place
    last = text.split("\r")[-1]
    assert "tasksim simulate vanilla" in last and "3/3" in last
    assert "samples/s" in last and "<" in last, last  # rate and [elapsed<left]


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_nothing_on_stderr_but_the_result_on_stdout(immediate, where):
    err = Terminal()
    argv = ["--quiet", *SIM] if where == "before" else [*SIM, "--quiet"]
    code, out = run(argv, err)
    assert code == 0 and err.getvalue() == "" and "Delta eps_TF" in out


def test_quiet_still_prints_an_error():
    err = io.StringIO()
    code, _ = run(["--quiet", "simulate", "vanilla", "--rho-a", "2", "--rho-b", "0"], err)
    assert code == 2 and err.getvalue().startswith("tasksim: error: rho_a")


def test_a_short_run_is_silent():
    bar = Progress(io.StringIO(), "x", delay=60.0)
    bar(1, 1)
    bar.close()
    assert bar.stream.getvalue() == ""
    assert run(SIM, err := io.StringIO())[0] == 0 and err.getvalue() == ""


def test_a_failed_stage_writes_no_line():
    log = io.StringIO()
    bar = Progress(log, "x", delay=0.0)
    bar.close()  # no sample done: nothing to report
    assert log.getvalue() == ""
