"""`tasksim bench` reports the notebook sweep against the batched benchmark path, and the Gram
path's processor time per sample against its arithmetic floor (vanilla and gated)."""
import io
import math

from tasksim.reports.cli import main
from tasksim.reports.sweep_command import sweep_benchmark
from tasksim.solvers.probe_benchmark import floor_flop_per_sample, gram_throughput


def test_the_floor_counts_the_vanilla_arithmetic_as_the_issue_does():
    # per class 2 (2Ns)^3 for the factor product and 2 (2Ns)^3 for the Gram; two solves; M N
    assert floor_flop_per_sample(30) == 4 * 60**3 + 2 * (30**3 / 3 + 2 * 30**3) + 2 * 30**3
    assert 1.0e6 < floor_flop_per_sample(30) < 1.2e6          # "about 1.2 MFLOP"
    assert floor_flop_per_sample(30, 4) > 3 * floor_flop_per_sample(30)


def test_gram_throughput_reports_processor_time_against_the_floor():
    f = gram_throughput(samples=200, nx=300, ns=4, workers=1, model="random-gating", alpha=0.5)
    assert f["model"] == "random-gating" and f["cpu_seconds_per_sample"] > 0
    floor = f["floor_flop_per_sample"] / f["matrix_product_flops"]
    assert math.isclose(f["fraction_of_floor_cpu"], floor / f["cpu_seconds_per_sample"])


def test_the_sweep_benchmark_times_both_paths_on_the_same_grid():
    f = sweep_benchmark(quick=True, repeats=1)
    assert f["grid"] == "3 x 3" and f["batched_seconds"] > 0 and f["sweep_seconds"] > 0
    assert math.isclose(f["ratio"], f["sweep_seconds"] / f["batched_seconds"])
    assert f["grid_sweep_seconds"] <= f["sweep_seconds"]


def test_bench_prints_the_sweep_and_the_floor_figures():
    out, err = io.StringIO(), io.StringIO()
    assert main(["bench", "--quick"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    for phrase in ("tasksim.sweep, Fig. 1 grid", "required: at most 2x",
                   "of processor time per sample", "random-gating", "required: within 5x"):
        assert phrase in text, phrase
