"""The probe's benchmark (solvers/probe_benchmark.py) reports the figures issue 7 asks for:
the time of a probe over Nx = 10^3 .. 10^6, its cost ratio, and the Gram path's throughput
against the arithmetic floor; ``tasksim bench`` prints them."""
import io
import math

from tasksim.reports.cli import main
from tasksim.solvers.probe_benchmark import (FLOOR_FLOP_PER_SAMPLE, gram_throughput,
                                             matrix_product_rate, probe_scaling)


def test_probe_scaling_times_every_size_and_their_ratio():
    f = probe_scaling((10**3, 10**6), seeds=20, ns=4, workers=1, repeats=1)
    assert f["nx"] == [10**3, 10**6] and len(f["seconds_per_nx"]) == 2
    assert f["seconds"] > 0 and math.isclose(f["ratio"],
                                             f["seconds_per_nx"][1] / f["seconds_per_nx"][0])


def test_gram_throughput_compares_with_the_floor_at_the_machines_own_rate():
    f = gram_throughput(samples=300, nx=200, ns=4, workers=2)
    assert f["floor_flop_per_sample"] == FLOOR_FLOP_PER_SAMPLE == 1.2e6
    floor = f["floor_flop_per_sample"] * 300 / (f["matrix_product_flops"] * 2)
    assert math.isclose(f["floor_seconds"], floor)
    assert math.isclose(f["fraction_of_floor"], floor / f["seconds"])
    assert matrix_product_rate(32, 0.01) > 1e6  # FLOP/s: any machine does a million


def test_bench_prints_the_probe_figures():
    out, err = io.StringIO(), io.StringIO()
    assert main(["bench", "--quick"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    for phrase in ("Finite-size probe", "cost ratio", "fraction of the floor",
                   "required: under 60 s", "required: below 1.5"):
        assert phrase in text
