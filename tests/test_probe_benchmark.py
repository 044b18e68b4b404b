"""The probe's benchmark (solvers/probe_benchmark.py) reports the figures issue 7 asks for:
the time of a probe over Nx = 10^3 .. 10^6, its cost ratio, and the Gram path's throughput
against the arithmetic floor; ``tasksim bench`` prints them."""
import io
import math

from tasksim.reports.cli import main
from tasksim.solvers.probe_benchmark import (FLOOR_FLOP_PER_SAMPLE, floor_flop_per_sample,
                                             gram_throughput, matrix_product_rate,
                                             necessary_flop_per_sample, probe_scaling)


def test_probe_scaling_times_every_size_and_their_ratio():
    f = probe_scaling((10**3, 10**6), seeds=20, ns=4, workers=1, repeats=1)
    assert f["nx"] == [10**3, 10**6] and len(f["seconds_per_nx"]) == 2
    assert f["seconds"] > 0 and math.isclose(f["ratio"],
                                             f["seconds_per_nx"][1] / f["seconds_per_nx"][0])


def test_gram_throughput_compares_with_the_floor_at_the_machines_own_rate():
    # the floor is the count at the Ns measured (1.04 MFLOP at Ns = 30, "about 1.2")
    f = gram_throughput(samples=300, nx=200, ns=4, workers=2)
    assert f["floor_flop_per_sample"] == floor_flop_per_sample(4)
    assert floor_flop_per_sample(30) < FLOOR_FLOP_PER_SAMPLE == 1.2e6
    floor = f["floor_flop_per_sample"] * 300 / (f["matrix_product_flops"] * 2)
    assert math.isclose(f["floor_seconds"], floor)
    assert math.isclose(f["fraction_of_floor"], floor / f["seconds"])
    assert matrix_product_rate(32, 0.01) > 1e6  # FLOP/s: any machine does a million


def test_the_draws_and_the_necessary_arithmetic_say_where_the_time_goes():
    f = gram_throughput(samples=300, nx=200, ns=4, workers=1, model="random-gating",
                        alpha=0.5)
    assert 0 < f["draw_cpu_seconds_per_sample"] < 10 * f["cpu_seconds_per_sample"]
    assert f["necessary_flop_per_sample"] == necessary_flop_per_sample("random-gating", 4)
    # the structure leaves a fraction of the dense count: 7.7 Ns^3 and 10 Ns^3 against 53 Ns^3
    # and 161 Ns^3 (one and four gate classes)
    assert necessary_flop_per_sample("vanilla", 30) == 23 * 30**3 / 3
    assert necessary_flop_per_sample("random-gating", 30) == 10 * 30**3
    assert necessary_flop_per_sample("vanilla", 30) < floor_flop_per_sample(30) / 5
    assert necessary_flop_per_sample("random-gating", 30) < floor_flop_per_sample(30, 4) / 13


def test_bench_prints_the_probe_figures():
    out, err = io.StringIO(), io.StringIO()
    assert main(["bench", "--quick"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    for phrase in ("Finite-size probe", "cost ratio", "fraction of the floor",
                   "required: under 60 s", "required: below 1.5"):
        assert phrase in text
