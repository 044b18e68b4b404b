"""Shared pytest configuration for ``tests/`` (the toolkit) and ``verify/`` (the paper).

Hypothesis profiles, chosen with Hypothesis' own ``--hypothesis-profile NAME`` option:

- ``dev``: few examples, for quick local runs (the default outside CI);
- ``ci``: derandomized, a fixed number of examples (the default when ``CI`` is set);
- ``thorough``: many examples, for a release check.

``--paper-scale`` runs the checks marked ``paper_scale`` (paper-size statistics, slow);
without it they are skipped, which keeps the default run short.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=10, deadline=None)
settings.register_profile(
    "ci", max_examples=25, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=300, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--paper-scale", action="store_true", default=False,
        help="also run paper-scale statistical checks (slow)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--paper-scale"):
        return
    skip = pytest.mark.skip(reason="paper-scale check: run with --paper-scale")
    for item in items:
        if "paper_scale" in item.keywords:
            item.add_marker(skip)
