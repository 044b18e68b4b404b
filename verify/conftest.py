"""pytest configuration of the correctness suite (``pytest verify``).

- The claim registry is evaluated once per session: :mod:`verify.theory` keeps every verdict
  it computes; the ``verdicts`` fixture evaluates all of them (the registry tests), numeric
  tests evaluate only the claims they use.
- Every numeric comparison is logged on the ``tasksim.verify`` logger at INFO, pass or fail (the
  log is shown with a failure, or live with ``-o log_cli=true``), and counted: the count is
  printed at the end against the comparison budget of the family-wise false-alarm rate
  (:mod:`verify.tolerances`).
- Hypothesis profiles (``dev``, ``ci`` derandomized, ``thorough``) and ``--paper-scale`` come
  from the root conftest.py.
"""
from __future__ import annotations

import logging

import pytest

from verify import theory, tolerances

logging.getLogger("tasksim.verify").setLevel(logging.INFO)


@pytest.fixture(scope="session")
def verdicts():
    """Every claim's verdict, evaluated once per session."""
    return theory.all_verdicts()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    made = tolerances.comparisons_made()
    if made:
        terminalreporter.write_line(
            f"tasksim verify: {made} numeric comparisons (budget {tolerances.COMPARISON_BUDGET} "
            f"for a family-wise false-alarm rate of {tolerances.FAMILY_WISE_FALSE_ALARM:.0%}, "
            f"z = {tolerances.Z:.2f})")
