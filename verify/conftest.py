"""pytest configuration of the correctness suite (``pytest verify``).

- The claim registry is evaluated once per session: :mod:`verify.theory` keeps every verdict
  it computes; the ``verdicts`` fixture evaluates all of them (the registry tests), numeric
  tests evaluate only the claims they use.
- Every numeric comparison is logged on the ``tasksim.verify`` logger at INFO, pass or fail (the
  log is shown with a failure, or live with ``-o log_cli=true``), and counted: the count is
  printed at the end against the comparison budget of the family-wise false-alarm rate
  (:mod:`verify.tolerances`), followed by the suite's resolution per model
  (:mod:`verify.resolution`): the smallest change in transfer and retention the run detects.
- The paper-size checks against the exact 1/Nx term and the exact-route checks run first
  (:data:`FIRST`): they are the sharpest and fastest, so ``pytest verify -x`` stops early on
  a fault.
- Hypothesis profiles (``dev``, ``ci`` derandomized, ``thorough``) and ``--paper-scale`` come
  from the root conftest.py.
- Under pytest-xdist (``-n auto``) each worker hands its count and its resolution records to the
  controller when it ends, so the summary covers the whole run.
"""
from __future__ import annotations

import dataclasses
import json
import logging

import pytest

from verify import resolution, theory, tolerances

logging.getLogger("tasksim.verify").setLevel(logging.INFO)


FIRST = ("test_exact_routes.py", "test_paper_sizes.py")
"""Modules run before the others, in this order."""


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        name = item.path.name if hasattr(item, "path") else str(item.fspath).rsplit("/", 1)[-1]
        return FIRST.index(name) if name in FIRST else len(FIRST)

    items.sort(key=rank)  # stable: the order inside each module is kept


@pytest.fixture(scope="session")
def verdicts():
    """Every claim's verdict, evaluated once per session."""
    return theory.all_verdicts()


def pytest_sessionfinish(session):
    """An xdist worker: its comparisons' count and resolution records, for the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["tasksim_verify"] = json.dumps({
            "count": tolerances.comparisons_made(),
            "records": [[r.model, r.quantity, dataclasses.asdict(r.comparison)]
                        for r in resolution.records()]})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller of an xdist run: a worker's comparisons join this process's."""
    data = getattr(node, "workeroutput", {}).get("tasksim_verify")
    if data:
        found = json.loads(data)
        tolerances.count_comparisons(found["count"])
        for model, quantity, fields in found["records"]:
            resolution.record(model, quantity, tolerances.Comparison(**fields))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    made = tolerances.comparisons_made()
    if made:
        terminalreporter.write_line(
            f"tasksim verify: {made} numeric comparisons (budget {tolerances.COMPARISON_BUDGET} "
            f"for a family-wise false-alarm rate of {tolerances.FAMILY_WISE_FALSE_ALARM:.0%}, "
            f"z = {tolerances.Z:.2f})")
    lines = resolution.summary()
    if lines:
        terminalreporter.write_line("tasksim verify: resolution, the smallest change this run "
                                    "detects: in transfer and retention at the paper's sizes "
                                    "(Nx = 3000, Ns = 30), in every error at small sizes "
                                    "(brute force)")
        for line in lines:
            terminalreporter.write_line("  " + line)
