"""The report builder: what `tasksim report` writes, that it is reproducible, and that the
committed report is the one the toolkit builds today."""
import json
from pathlib import Path

import pytest

from tasksim.reports.report import ReportOptions, build_report

COMMITTED = Path(__file__).resolve().parent.parent / "reports"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    messages = []
    build_report(ReportOptions(out_dir=out, figures=False), progress=messages.append)
    return out, messages


def test_report_writes_the_claims_the_derivations_and_the_markdown(built):
    out, messages = built
    for name in ("REPORT.md", "claims.json", "derivations.tex", "build-info.json"):
        assert (out / name).is_file(), name
    records = json.loads((out / "claims.json").read_text())
    assert records and all(set(r) == {"id", "where", "printed", "derived", "status", "note"}
                           for r in records)
    report = (out / "REPORT.md").read_text()
    assert "## Claims" in report and "## Errata" in report and "## Derivations" in report
    assert any("deriving" in m for m in messages), "progress is reported"


def test_every_erratum_in_the_registry_appears_in_the_errata_section(built):
    out, _ = built
    records = json.loads((out / "claims.json").read_text())
    errata = [r["id"] for r in records if r["status"] == "erratum"]
    section = (out / "REPORT.md").read_text().split("## Errata")[1].split("## Figures")[0]
    assert errata, "the registry records errata"
    assert all(f"`{i}`" in section for i in errata)


def test_same_inputs_give_the_same_bytes(built, tmp_path):
    out, _ = built
    build_report(ReportOptions(out_dir=tmp_path, figures=False))
    for name in ("REPORT.md", "claims.json", "derivations.tex"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_committed_claims_file_matches_what_the_registry_derives_now(built):
    out, _ = built
    committed = COMMITTED / "claims.json"
    if not committed.is_file():
        pytest.skip("no committed report in this checkout")
    assert json.loads(committed.read_text()) == json.loads((out / "claims.json").read_text()), (
        "reports/claims.json is stale: run `tasksim report` and commit the result")
