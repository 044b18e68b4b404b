"""The report's keyed store: what its keys are made of, so that a stored piece or page is never
read back after one of its inputs changed."""
from __future__ import annotations

import pytest

from tasksim.reports.report_cache import code_version, page_version, results_digest


def test_the_stored_experiments_are_part_of_the_pieces_key(tmp_path):
    """A grid recomputed into results/ is a new input: every piece reading it is recomputed;
    the first tasks kept in results/cache/ are not an input."""
    (tmp_path / "fig6AB.nc").write_bytes(b"grid, first version")
    before = results_digest(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "task1.npz").write_bytes(b"a first task")
    assert results_digest(tmp_path) == before
    (tmp_path / "fig6AB.nc").write_bytes(b"grid, rerun")
    assert results_digest(tmp_path) != before
    assert results_digest(tmp_path / "absent") == "none"


def test_the_page_code_and_the_pieces_code_are_digested_apart():
    """An edit of the page's own code (templates included) rebuilds the pages from the stored
    pieces; any other source edit, or of the checked-in data the statement index reads,
    recomputes the pieces."""
    from tasksim.reports import report_cache

    pieces = {name for name, _ in report_cache._package_files(False, (".py", ".csv"))}
    page = {name for name, _ in report_cache._package_files(True, (".py", ".j2", ".js", ".css"))}
    assert "reports/data/missed_statements.csv" in pieces and "derivations/claims.py" in pieces
    assert {"reports/html/templates/page.html.j2", "reports/report.py"} <= page
    assert not pieces & page and not any(n.startswith(report_cache.PAGE_ONLY) for n in pieces)
    assert len(code_version()) == len(page_version()) == 64


def test_a_build_s_processes_evaluate_a_shared_claim_once(tmp_path, monkeypatch):
    """The worker processes of one build share evaluated claims through the keyed store
    (a claim a figure and a claims piece both need): a process that finds a claim stored
    does not derive it again, and gets its verdict on its own claim object; another version
    of the code finds nothing."""
    import tasksim.derivations.registry as registry
    from tasksim.reports.report_cache import KeyedStore

    claim = next(c for c in registry.all_claims() if c.id == "vanilla.transfer")
    store = KeyedStore(tmp_path)
    monkeypatch.setattr(registry, "_EVALUATED", {})
    registry.share_evaluations(store, "v1")
    try:
        first = registry.evaluate_once(claim)  # derived here, and stored
        monkeypatch.setattr(registry, "_EVALUATED", {})  # another process: nothing in memory

        def refuse(c):
            raise AssertionError(f"{c.id} derived again")

        monkeypatch.setattr(registry, "evaluate", refuse)
        again = registry.evaluate_once(claim)
        assert again.claim is claim and again.status == first.status
        assert again.derived == first.derived
        registry.share_evaluations(store, "v2")
        monkeypatch.setattr(registry, "_EVALUATED", {})
        with pytest.raises(AssertionError, match="derived again"):
            registry.evaluate_once(claim)
    finally:
        registry.share_evaluations(None)
