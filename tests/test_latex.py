"""Every formula of REPORT.md, claims.json and derivations.tex renders with a real TeX-math
renderer (KaTeX under node, strict mode) and spells Greek letters as commands.

KaTeX is a test-only dependency, pinned in tests/katex/package.json: install it with
``npm ci --prefix tests/katex`` (.ci/run does). Where node or KaTeX is missing the rendering
test is skipped, unless ``TASKSIM_REQUIRE_KATEX`` is set (as .ci/run sets it): then it fails,
so that CI never skips it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tasksim.reports.formulas import (Formula, bare_greek, claims_formulas, latex_formulas,
                                      markdown_formulas)
from tasksim.reports.paper import load_paper
from tasksim.reports.report import ReportOptions, build_report

KATEX_DIR = Path(os.environ.get("TASKSIM_KATEX_DIR", Path(__file__).parent / "katex"))
RENDER = Path(__file__).parent / "katex" / "render.js"


def _katex_available() -> bool:
    return shutil.which("node") is not None and (KATEX_DIR / "node_modules" / "katex").is_dir()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, report_cache):
    """The report's text outputs as the toolkit builds them today (no figures, no
    measurements: neither adds formulas)."""
    out = tmp_path_factory.mktemp("report")
    build_report(ReportOptions(out_dir=out, figures=False, measure=False, cache=report_cache))
    return {name: (out / name).read_text() for name in ("REPORT.md", "claims.json",
                                                        "derivations.tex")}


@pytest.fixture(scope="module")
def formulas(outputs) -> list[Formula]:
    macros = load_paper().macros
    found = (markdown_formulas(outputs["REPORT.md"])
             + claims_formulas(outputs["claims.json"], macros)
             + latex_formulas(outputs["derivations.tex"]))
    assert len(found) > 500, "the outputs are full of formulas: the extraction found few"
    return found


def _render(formulas: list[Formula]) -> list[tuple[Formula, str]]:
    payload = json.dumps([{"tex": f.tex, "display": f.display, "macros": dict(f.macros)}
                          for f in formulas])
    env = dict(os.environ, NODE_PATH=str(KATEX_DIR / "node_modules"))
    result = subprocess.run(["node", str(RENDER)], input=payload, capture_output=True,
                            text=True, env=env, timeout=300, check=True)
    return [(formulas[f["index"]], f["error"]) for f in json.loads(result.stdout)]


def _require_katex() -> None:
    """Skip without node and KaTeX, except where TASKSIM_REQUIRE_KATEX is set (CI): fail."""
    if _katex_available():
        return
    if os.environ.get("TASKSIM_REQUIRE_KATEX"):
        pytest.fail(f"KaTeX is required but not installed in {KATEX_DIR} "
                    "(npm ci --prefix tests/katex)")
    pytest.skip(f"node or KaTeX not installed in {KATEX_DIR}: npm ci --prefix tests/katex")


def test_every_formula_renders_with_katex(formulas):
    _require_katex()
    failures = _render(formulas)
    assert not failures, "\n".join(f"{f.origin}: {error} in {f.tex[:120]!r}"
                                   for f, error in failures[:20])


def test_every_formula_of_the_committed_report_renders_with_katex():
    """The committed report (figures and measurements included) as well as a fresh build."""
    committed = Path(__file__).resolve().parent.parent / "reports"
    if not (committed / "REPORT.md").is_file():
        pytest.skip("no committed report in this checkout")
    _require_katex()
    found = (markdown_formulas((committed / "REPORT.md").read_text())
             + claims_formulas((committed / "claims.json").read_text(), load_paper().macros)
             + latex_formulas((committed / "derivations.tex").read_text()))
    failures = _render(found)
    assert not failures, "\n".join(f"{f.origin}: {error} in {f.tex[:120]!r}"
                                   for f, error in failures[:20])
    assert not [f.tex for f in found if bare_greek(f.tex)]


def test_the_renderer_rejects_broken_latex():
    """The check can fail: an unbalanced brace and an unknown command are reported."""
    _require_katex()
    broken = [Formula(r"\frac{1}{2", False, "demo"), Formula(r"\notacommand x", False, "demo"),
              Formula(r"\lla x \rra", False, "demo")]
    assert len(_render(broken)) == 3
    macros = {r"\lla": r"\left\langle", r"\rra": r"\right\rangle"}
    assert not _render([Formula(r"\lla x \rra", False, "demo", macros)])


def test_no_formula_spells_a_greek_letter_in_latin_letters(formulas):
    bad = [(f.origin, f.tex[:80]) for f in formulas if bare_greek(f.tex)]
    assert not bad, bad[:20]
