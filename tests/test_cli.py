"""The ``tasksim`` command (reports/cli.py), in-process through main(argv) and once installed."""
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import tasksim.derivations.registry as registry
from tasksim.derivations.claims import Claim, Derivation
from tasksim.derivations.symbols import Ns, Nx, rho_a
from tasksim.reports import cli
from tasksim.reports.cli import SUBCOMMANDS, main
from tasksim.reports.verdicts import STEP_WORDS


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- tasksim simulate -----------------------------------------------------------------------------

SIM = ["simulate", "vanilla", "--rho-a", "0.8", "--rho-b", "0.2", "--nx", "300", "--ns", "10",
       "--seeds", "3", "--seed", "5"]


def test_simulate_json_is_one_object_with_the_api_numbers():
    from tasksim.solvers.api import simulate

    code, out, err = run(*SIM, "--json")
    assert code == 0
    record = json.loads(out)
    assert set(record) == {"transfer", "retention", "params", "provenance"}
    expected = simulate("vanilla", rho_a=0.8, rho_b=0.2, nx=300, ns=10, seeds=3, seed=5)
    assert record["transfer"] == {"mean": expected.transfer.mean, "sem": expected.transfer.sem}
    assert record["retention"]["mean"] == expected.retention.mean
    assert record["params"]["nx"] == 300 and record["params"]["generator"] == "appendix"


def test_simulate_accepts_sizes_in_scientific_notation_and_workers():
    code, out, _ = run("simulate", "random-gating", "--rho-a", "0.5", "--rho-b", "0.5",
                       "--alpha", "0.5", "--nx", "1e3", "--ns", "10", "--seeds", "2",
                       "--workers", "2", "--generator", "gaussian", "--json")
    record = json.loads(out)
    assert code == 0 and record["params"]["nx"] == 1000 and record["params"]["gram"] == "wishart"


def test_simulate_with_one_seed_writes_an_undefined_standard_error_as_null():
    code, out, _ = run(*SIM[:-4], "--seeds", "1", "--json")
    assert code == 0 and json.loads(out)["transfer"]["sem"] is None


def test_simulate_without_json_prints_a_short_summary():
    code, out, err = run(*SIM)
    assert code == 0 and err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 4 and lines[0].startswith("vanilla: rho_a=0.8, rho_b=0.2")
    assert "Delta eps_TF" in lines[2] and "Delta eps_RT" in lines[3] and "sem" in lines[3]


# --- tasksim bench -------------------------------------------------------------------------------

def test_bench_quick_json_reports_every_required_figure():
    code, out, _ = run("bench", "--quick", "--json")
    assert code == 0
    f = json.loads(out)
    assert {"appendix_scaling", "fig1_exact_vs_gd", "gram_throughput", "gram_throughput_gated",
            "gram_throughput_plasticity", "machine", "probe_scaling", "quick",
            "wishart_scaling"} <= set(f)
    a, w, g = f["appendix_scaling"], f["wishart_scaling"], f["fig1_exact_vs_gd"]
    assert len(a["nx"]) == len(a["seconds_per_sample"]) == len(a["draw_share"]) >= 2
    assert all(0 < share < 1 for share in a["draw_share"])
    assert math.isfinite(a["exponent"]) and math.isfinite(a["solve_exponent"])
    assert w["nx"] == [10**3, 10**6] and w["ratio"] > 0
    for key in ("exact_seconds", "gd_seconds", "speedup", "max_transfer_difference",
                "max_retention_difference", "max_transfer_difference_same_draws"):
        assert math.isfinite(g[key]) and g[key] >= 0, key
    # Nx/Ns = 100: the GD protocol converges, so on its own draws it matches the fixed points
    assert g["max_transfer_difference_same_draws"] < 1e-3
    assert g["max_retention_difference_same_draws"] < 1e-3


def test_bench_without_json_prints_the_figures_as_text():
    code, out, _ = run("bench", "--quick")
    assert code == 0
    for phrase in ("fitted exponent", "drawing the task matrices", "Wishart", "speed-up",
                   "largest |exact - GD|"):
        assert phrase in out


@pytest.mark.parametrize("rho_a, rho_b", [(0.0, 0.0), (0.6, 0.3), (1.0, 0.2), (0.9, 1.0)])
def test_the_benchmarks_vectorized_vanilla_path_equals_the_toolkits_solver(rho_a, rho_b):
    from tasksim.solvers.benchmark import vanilla_transfer_retention_batch
    from tasksim.solvers.gram import sample_features_batch
    from tasksim.solvers.linear_models import solve_features
    from tasksim.solvers.metrics import error_matrix, transfer_retention

    batch = sample_features_batch(size=4, nx=80, ns=5, rho_a=rho_a, seed=3)
    tf, rt = vanilla_transfer_retention_batch(np.array([f.gram for f in batch]), 5, rho_b)
    for k, f in enumerate(batch):
        ref_tf, ref_rt = transfer_retention(error_matrix(solve_features("vanilla", f, n_tasks=2),
                                                         rho_b))
        assert tf[k] == pytest.approx(ref_tf[0], abs=1e-10)
        assert rt[k] == pytest.approx(ref_rt[0], abs=1e-10)


# --- tasksim claims ------------------------------------------------------------------------------

DEMO_CLAIMS = [
    Claim("demo.exact", "Sec. 3, eq_demo", printed=rho_a**2, printed_latex=r"\rho_a^2",
          derive=lambda: Derivation(rho_a * rho_a)),
    Claim("demo.finite", "App. E", printed=rho_a, printed_latex=r"\rho_a",
          derive=lambda: Derivation(rho_a + Ns / Nx)),
    Claim("demo.wrong", "App. B", printed=2 * rho_a, printed_latex=r"2\rho_a",
          derive=lambda: Derivation(3 * rho_a), note="the factor is 3, not 2"),
    Claim("demo.open", "Fig. 9", printed=None, printed_latex="", derive=None,
          note="no derivation: " + "a long explanation " * 10),
]


@pytest.fixture
def demo_registry(monkeypatch):
    monkeypatch.setattr(registry, "all_claims", lambda: list(DEMO_CLAIMS))


def test_claims_json_lists_every_verdict_record_with_its_computed_status(demo_registry):
    code, out, err = run("claims", "--json")
    assert code == 0 and err == ""
    document = json.loads(out)
    assert set(document) == {"provenance", "conventions", "claims", "verdicts", "causes",
                             "findings"}
    records = document["claims"]
    assert [r["id"] for r in records] == [c.id for c in DEMO_CLAIMS]
    # steps carry a neutral status; a statement (headline) its verdict only
    assert [r.get("status") or r["verdict"] for r in records] == [
        r["verdict"] if r["headline"] else STEP_WORDS[s] for r, s in
        zip(records, ["verified", "leading order", "erratum", "open"])]
    assert all("status" not in r for r in records if r["headline"])
    assert {"id", "where", "line", "headline", "printed", "derived", "condition",
            "note"} <= set(records[0])
    assert all(isinstance(r["headline"], bool) for r in records)
    assert records[2]["derived"] == sp.latex(3 * rho_a)


def test_claims_table_has_one_row_per_claim_and_a_count_per_status(demo_registry):
    code, out, _ = run("claims")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].split()[:5] == ["id", "line", "kind", "where", "verdict"]
    assert len(lines) == 1 + len(DEMO_CLAIMS) + 1
    assert ("demo.wrong" in lines[3] and "derived: differs from the print" in lines[3]
            and "factor is 3" in lines[3])
    assert all(len(line) < 200 for line in lines)  # long notes are shortened
    assert lines[-1] == ("4 claims: 1 step derived: differs from the print, 1 step derived: "
                         "equals the print, 1 step derived: equals the print at leading order, "
                         "1 step not derived")


def test_claims_table_shows_a_statements_verdict_not_its_status(monkeypatch):
    from dataclasses import replace

    claims = [replace(DEMO_CLAIMS[1], line=3, headline=True),
              replace(DEMO_CLAIMS[2], line=4, headline=True, cause="demo-factor")]
    monkeypatch.setattr(registry, "all_claims", lambda: claims)
    code, out, _ = run("claims")
    lines = out.strip().splitlines()
    assert "holds in the stated limit" in lines[1] and "wrong" in lines[2]
    assert lines[-1] == "2 claims: 1 holds in the stated limit, 1 wrong (statements)"


def test_claims_headlines_keeps_one_verdict_per_statement(monkeypatch):
    from dataclasses import replace

    claims = [replace(DEMO_CLAIMS[0], line=3, headline=True), replace(DEMO_CLAIMS[2], line=3)]
    monkeypatch.setattr(registry, "all_claims", lambda: claims)
    records = json.loads(run("claims", "--json", "--headlines")[1])["claims"]
    assert [(r["id"], r["line"], r["headline"]) for r in records] == [("demo.exact", 3, True)]


def test_claims_measure_shows_each_measured_verdict_under_its_claim(demo_registry, monkeypatch):
    from tasksim.reports import measurements

    row = measurements.Row(nx=100, ns=10, mean=3.0, sem=0.01, n=10, printed=2.0, derived=3.0)
    found = measurements.MeasuredVerdict("demo.wrong", "demo", (row,), "confirmed", seed=0)

    def fake_measure_all(quick, progress):
        assert quick
        progress("measuring demo.wrong")
        return {"demo.wrong": found, "not.shown": found}

    monkeypatch.setattr(measurements, "measure_all", fake_measure_all)
    code, out, err = run("claims", "--measure")
    assert code == 0 and "measuring demo.wrong" in err
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("demo.wrong"))
    assert lines[at + 1].split()[:2] == ["measured:", "confirmed:"]
    record = json.loads(run("claims", "--json", "--measure")[1])["claims"][2]
    assert record["measured"]["verdict"] == "confirmed" and record["correction"] == "confirmed"


def test_claims_with_an_empty_registry_says_so(monkeypatch):
    monkeypatch.setattr(registry, "all_claims", lambda: [])
    assert run("claims") == (0, "no claims registered\n", "")
    assert json.loads(run("claims", "--json")[1])["claims"] == []


# --- bad input: one line on stderr, exit status 2 ---------------------------------------------

@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "required"),
        (["fly"], "invalid choice"),
        (["simulate", "vanilla", "--rho-a", "0.5"], "--rho-b"),
        (["simulate", "vanilla", "--rho-a", "x", "--rho-b", "0"], "invalid number"),
        (["simulate", "vanilla", "--rho-a", "1.5", "--rho-b", "0"], "rho_a must be a number in [0, 1]"),
        (["simulate", "vanilla", "--rho-a", "nan", "--rho-b", "0"], "rho_a"),
        (["simulate", "ridge", "--rho-a", "0.5", "--rho-b", "0"], "model must be one of"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--alpha", "0.5"],
         "alpha is not a parameter of vanilla"),
        (["simulate", "random-gating", "--rho-a", "0.5", "--rho-b", "0", "--alpha", "0"],
         "alpha must be a number in (0, 1]"),
        (["simulate", "euclidean", "--rho-a", "0.5", "--rho-b", "0", "--gamma", "0.5",
          "--lam", "1"], "not allowed with argument"),
        (["simulate", "fisher", "--rho-a", "0.5", "--rho-b", "0", "--lam", "-1"],
         "lam must be a number in [0, inf)"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--nx", "30.5"],
         "invalid integer"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--ns", "0"], "ns"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--generator", "normal"],
         "generator must be one of"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--method", "adam"],
         "method must be one of"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--workers", "0"], "workers"),
        (["claims", "--verbose"], "unrecognized arguments"),
        (["simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0", "--nx", "100000000000"],
         "needs about 144 TB of memory per sample"),
        (["simulate", "soft-threshold", "--rho-a", "0.5", "--rho-b", "0", "--alpha", "0.5",
          "--nx", "1e6"], "Nx x Nx input covariance"),
    ],
)
def test_bad_input_prints_one_line_to_stderr_and_exits_2(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tasksim: error: "), err
    assert message in err, err


# --- provenance: every --json output says where it came from -----------------------------------

PROVENANCE_KEYS = {"tasksim", "commit", "dirty", "numpy", "scipy", "sympy", "blas", "seed",
                   "command"}


def test_every_json_output_records_its_provenance(demo_registry):
    import numpy

    import tasksim

    for argv, seed in ((SIM + ["--json"], 5), (["claims", "--json"], None),
                       (["bench", "--quick", "--json"], None)):
        code, out, _ = run(*argv)
        record = json.loads(out)["provenance"]
        assert code == 0 and set(record) == PROVENANCE_KEYS, argv
        assert record["tasksim"].split(" (")[0] == tasksim.__version__ and record["numpy"] == numpy.__version__
        assert record["seed"] == seed and record["command"] == "tasksim " + " ".join(argv)
        assert record["blas"] and all(b["library"] and b["threads"] >= 1 for b in record["blas"])


def test_a_checkout_records_its_commit():
    from tasksim.reports.provenance import provenance

    root = Path(cli.__file__).resolve().parent.parent
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode != 0 or not (root / "src" / "tasksim").is_dir():
        pytest.skip("tasksim is not running from a git checkout")
    assert provenance(seed=0, command="x")["commit"] == head.stdout.strip()


def test_memory_is_refused_before_anything_is_allocated():
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, _, err = run("simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0.5", "--nx",
                       "100000000000")
    assert code == 2 and "more than this machine's" in err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB


def test_the_wishart_path_needs_no_memory_in_nx():
    code, out, err = run("simulate", "vanilla", "--rho-a", "0.5", "--rho-b", "0.5", "--nx",
                         "100000000000", "--generator", "gaussian", "--seeds", "2", "--json")
    assert code == 0, err
    assert abs(json.loads(out)["transfer"]["mean"] - 0.25) < 1e-6  # the limit, Ns/Nx ~ 3e-10


def test_help_is_printed_to_stdout_and_exits_0():
    code, out, err = run("--help")
    assert code == 0 and err == ""
    for name in SUBCOMMANDS:
        assert name in out


def test_a_new_subcommand_is_one_entry_in_the_table(monkeypatch):
    def add(parser):
        parser.add_argument("--shout", action="store_true")

    def hello(args, out, err):
        out.write("HELLO\n" if args.shout else "hello\n")
        return 0

    monkeypatch.setitem(SUBCOMMANDS, "hello", cli.Subcommand("say hello", add, hello))
    assert run("hello", "--shout") == (0, "HELLO\n", "")


# --- the installed console script --------------------------------------------------------------

def _console(*argv):
    exe = shutil.which("tasksim")
    command = [exe] if exe else [sys.executable, "-m", "tasksim.reports.cli"]
    return subprocess.run(command + list(argv), capture_output=True, text=True, timeout=120)


def test_installed_console_script_runs_a_simulation():
    done = _console(*SIM, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["params"]["model"] == "vanilla"


def test_installed_console_script_reports_bad_input_without_traceback():
    done = _console("simulate", "vanilla", "--rho-a", "2", "--rho-b", "0")
    assert done.returncode == 2
    assert done.stderr == "tasksim: error: rho_a must be a number in [0, 1], got 2.0\n"


def test_simulate_on_a_dask_cluster_gives_the_serial_numbers():
    distributed = pytest.importorskip("distributed")
    serial = json.loads(run(*SIM, "--json")[1])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        code, out, err = run(*SIM, "--dask", cluster.scheduler_address, "--json")
    assert code == 0, err
    assert json.loads(out)["transfer"] == serial["transfer"]


def test_the_command_leaves_sympys_cache_unbounded_unless_the_user_set_its_size():
    # main() sets the size before sympy is first imported (--version imports none of it)
    script = ("from tasksim.reports.cli import main; main(['--version']); "
              "import sympy.core.cache as c; print(c.SYMPY_CACHE_SIZE)")
    env = {k: v for k, v in os.environ.items() if k != "SYMPY_CACHE_SIZE"}

    def cache_size(**more: str) -> str:
        return subprocess.run([sys.executable, "-c", script], env={**env, **more},
                              capture_output=True, text=True, check=True).stdout.split()[-1]

    assert cache_size() == "None"
    assert cache_size(SYMPY_CACHE_SIZE="500") == "500"


def test_the_command_skips_the_collectors_walk_at_exit_registering_it_once():
    # atexit runs the last registered first: the check registered before main() runs after
    # main's handler, and sees the objects moved to the permanent generation; the handler,
    # wrapped to say when it runs, runs once although main() ran twice
    script = ("import atexit, gc; from tasksim.reports import cli; "
              "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0)); "
              "freeze = cli._skip_the_final_collection; "
              "cli._skip_the_final_collection = lambda: (print('handler'), freeze()); "
              "cli.main(['--version']); cli.main(['--version'])")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out.count("handler") == 1
    assert out[-2:] == ["frozen", "True"]
