"""tasksim as a new user gets it: a wheel built from this checkout, installed (not editable)
into a fresh virtual environment without the system's packages, run from a folder outside the
checkout. And no runtime module imports a test-only dependency.

The wheel test takes minutes (a venv, its dependencies, ``tasksim report --quick``): it is
marked ``fresh_venv`` and runs by default and always in CI (``CI`` set); skip it locally with
``--skip-fresh-venv`` (or ``-m "not fresh_venv"``), which CI refuses.
"""
import ast
import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_FOLDERS = ("src/tasksim", "derivations", "solvers", "reports")
"""The folders of the package's runtime modules (tasksim.testing, imported by tests, apart)."""
TEST_ONLY = {"hypothesis", "pytest", "_pytest"}
"""Dependencies of the ``test`` extra only: a runtime module must not import them."""


def _head() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the wheel's commit cannot be checked")
    return done.stdout.strip()


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_runtime_module_imports_a_test_only_dependency():
    offenders = {}
    for folder in RUNTIME_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "testing" in path.relative_to(ROOT).parts:
                continue
            if found := _imports(path) & TEST_ONLY:
                offenders[str(path.relative_to(ROOT))] = sorted(found)
    assert not offenders, f"runtime modules importing test-only packages: {offenders}"


def test_importing_tasksim_and_running_it_loads_no_test_only_package():
    code = ("import sys, tasksim.solvers.api, tasksim.reports.cli, tasksim.reports.report; "
            "print(sorted(m for m in {'hypothesis', 'pytest'} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- the wheel, in a fresh virtual environment ----------------------------------------------

def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 1800):
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done


def _clean_env() -> dict[str, str]:
    """The caller's environment without anything that would point Python at this checkout or
    at the test venv (PYTHONPATH, VIRTUAL_ENV, ...) or make it read the repository's paper."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "TASKSIM_PAPER", "PYTHONSTARTUP",
            "PIP_REQUIRE_VIRTUALENV"}
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built as a new user builds it: from a clean clone of this checkout's commit
    (what is committed, no build leftovers), with pip and build isolation."""
    head = _head()
    work = tmp_path_factory.mktemp("wheel")
    clone = work / "clone"
    _run(["git", "clone", "--quiet", str(ROOT), str(clone)], cwd=work, env=_clean_env())
    _run(["git", "-C", str(clone), "checkout", "--quiet", "--detach", head], cwd=work,
         env=_clean_env())
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir",
          str(work), str(clone)], cwd=work, env=_clean_env())
    (built,) = work.glob("tasksim-*.whl")
    return built


def _wheel_version(wheel: Path) -> str:
    """The version in the wheel's metadata (its ``.dist-info`` folder)."""
    (info,) = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()
               if n.split("/")[0].endswith(".dist-info")}
    return info[len("tasksim-"):-len(".dist-info")]


@pytest.mark.fresh_venv
def test_the_wheel_holds_the_package_and_the_paper_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    dist_info = {top for top in tops if top.endswith(".dist-info")}
    assert tops - dist_info == {"tasksim"}, tops
    assert "tasksim/paper/paper.tex" in names
    for module in ("tasksim/__init__.py", "tasksim/_version.py", "tasksim/errors.py",
                   "tasksim/solvers/api.py", "tasksim/derivations/engine.py",
                   "tasksim/reports/cli.py", "tasksim/testing/strategies.py"):
        assert module in names, module
    stored = sorted(p.relative_to(ROOT / "results").as_posix()
                    for pattern in ("*.nc", "*.json") for p in (ROOT / "results").rglob(pattern)
                    if "cache" not in p.parts)
    assert stored, "results/ holds the stored experiments the report reads"
    for name in stored:  # the JSON too: without it a wheel's report lost five cards' numbers
        assert f"tasksim/results/{name}" in names, f"the report reads results/{name}"
    generated = [n for n in names if n.endswith((".png", ".md", ".json")) and "dist-info" not in n
                 and not n.startswith("tasksim/results/")]
    assert not generated, f"the committed report's outputs are not package data: {generated}"
    version_file = zipfile.ZipFile(wheel).read("tasksim/_version.py").decode()
    assert _head() in version_file, "the wheel records the commit it was built from"


@pytest.mark.fresh_venv
def test_the_wheel_runs_the_readme_commands_in_a_bare_venv_outside_the_checkout(wheel,
                                                                                 tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    env = {**_clean_env(), "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], cwd=elsewhere, env=env)

    # a bare environment: no system packages, and tasksim from the wheel, not the checkout
    where = _run([str(python), "-c", "import sys, tasksim; print(sys.flags.no_site, "
                  "tasksim.__file__); print(sys.prefix != sys.base_prefix)"],
                 cwd=elsewhere, env=env).stdout.split()
    assert Path(where[1]).is_relative_to(env_dir) and where[2] == "True", where
    config = (env_dir / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config

    tasksim_exe = str(bin_dir / "tasksim")
    head = _head()
    version = _run([tasksim_exe, "--version"], cwd=elsewhere, env=env).stdout
    assert version.startswith("tasksim ") and f"(commit {head}" in version, version

    done = _run([tasksim_exe, "simulate", "vanilla", "--rho-a", ".5", "--rho-b", ".5",
                 "--json"], cwd=elsewhere, env=env)
    record = json.loads(done.stdout)
    assert abs(record["transfer"]["mean"] - 0.25) < 0.05  # rho_a (2 rho_b - rho_a), Ns/Nx = 1 %
    assert record["provenance"]["commit"] == head, "a wheel's provenance names its commit"
    assert record["provenance"]["tasksim"] == _wheel_version(wheel)
    assert f"tasksim {_wheel_version(wheel)} " in version
    assert record["provenance"]["blas"], "the BLAS and its threads are recorded"

    out = tmp_path / "report"
    # the quick report without its measurements (the claims, the figures and the stored
    # network runs: what a wheel must carry and run; the measurements are tested in process)
    done = _run([tasksim_exe, "report", "--quick", "--no-measurements", "--out", str(out)],
                cwd=elsewhere, env=env)
    assert (out / "REPORT.md").is_file() and (out / "claims.json").is_file()
    claims = json.loads((out / "claims.json").read_text())
    assert claims["provenance"]["commit"] == head
    network = {c["id"]: c["verdict"] for c in claims["claims"] if c["id"].startswith("pmnist.")}
    # the checkout's own judges on the same stored runs (not the committed claims.json, which
    # the integrator rebuilds after a change of the rules)
    from tasksim.reports.pmnist_predictions import sec7_verdicts_with_secondary

    here = {v.claim_id: v.verdict for v in sec7_verdicts_with_secondary()}
    assert here and {k: network.get(k) for k in here} == here, \
        "the wheel's report reads the stored network runs (results/)"
    assert "\r" not in done.stderr, "captured progress is plain lines"
    assert not any(elsewhere.iterdir()), "nothing written outside --out"


@pytest.mark.parametrize("ci, expected", [("true", 4), ("", 0)])
def test_the_wheel_test_can_be_skipped_locally_but_not_in_ci(ci, expected):
    env = {**_clean_env(), "CI": ci}
    done = subprocess.run([sys.executable, "-m", "pytest", "--skip-fresh-venv", "--collect-only",
                           "-q", "-p", "no:cacheprovider", str(Path(__file__))],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == expected, done.stdout + done.stderr
    if ci:
        assert "--skip-fresh-venv is refused in CI" in done.stderr
