"""Shared pytest configuration for ``tests/`` (the toolkit) and ``verify/`` (the paper).

Hypothesis profiles, chosen with Hypothesis' own ``--hypothesis-profile NAME`` option:

- ``dev``: few examples, for quick local runs (the default outside CI);
- ``ci``: derandomized, a fixed number of examples (the default when ``CI`` is set);
- ``thorough``: many examples, for a release check.

``--paper-scale`` runs the checks marked ``paper_scale`` (paper-size statistics, slow);
without it they are skipped, which keeps the default run short.

Under pytest-xdist (``-n auto``: one worker per core) each worker's BLAS uses one thread,
unless the caller chose a count: the workers are the parallelism, and a BLAS thread per core
in every worker oversubscribes the cores (:mod:`tasksim.reports.figures_blas`). The
variables are set before numpy loads (this file is imported first), and subprocesses
inherit them.

The longest files run first (:data:`LONGEST_FIRST`): with ``--dist loadfile`` a worker takes
whole files in collection order, so a file of minutes started last keeps one core busy alone
at the end. xdist's own reordering (files with most tests first) is turned off for that.
"""
from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                      "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ.setdefault(_variable, "1")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=10, deadline=None)
settings.register_profile(
    "ci", max_examples=25, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=300, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def report_cache(tmp_path_factory: pytest.TempPathFactory):
    """One keyed store (:mod:`tasksim.reports.report_cache`) for the reports the tests build
    in a session: its pieces (claims, figures) are computed once, not once per test module,
    and under pytest-xdist once for all workers (the folder beside the workers' own; the store
    writes atomically). The store's own behaviour (a cold build, then a warm one that computes
    no piece; the same bytes cache or not) is tested with stores of their own."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "report-cache"
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp("report-cache")


LONGEST_FIRST = ("tests/test_packaging.py", "verify/test_pmnist.py", "tests/test_page.py",
                 "tests/test_report.py", "tests/test_figures.py", "tests/test_docstrings.py")
"""The files of the default suite that take minutes (``--durations``: the wheel test alone
about 3.5 min), longest first; every other file follows in collection order."""


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order set below
        config.option.loadscopereorder = False


def _run_order(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--paper-scale", action="store_true", default=False,
        help="also run paper-scale statistical checks (slow)",
    )
    parser.addoption(
        "--skip-fresh-venv", action="store_true", default=False,
        help="skip the tests marked fresh_venv (a wheel installed into a new virtual "
             "environment: minutes); refused in CI, where they always run",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_run_order)  # stable: each file keeps its own order
    if config.getoption("--skip-fresh-venv"):
        if os.environ.get("CI"):
            raise pytest.UsageError("--skip-fresh-venv is refused in CI: the wheel must be "
                                    "tested there")
        skip_venv = pytest.mark.skip(reason="fresh-venv wheel test: skipped by "
                                            "--skip-fresh-venv")
        for item in items:
            if "fresh_venv" in item.keywords:
                item.add_marker(skip_venv)
    if config.getoption("--paper-scale"):
        return
    skip = pytest.mark.skip(reason="paper-scale check: run with --paper-scale")
    for item in items:
        if "paper_scale" in item.keywords:
            item.add_marker(skip)
