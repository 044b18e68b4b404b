"""The finite-size probe's measurement (solvers/probe.py): the same numbers however it is run,
resumable chunk by chunk, every model on both generators, one-line errors for bad input."""
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from tasksim.solvers.api import MODELS
from tasksim.solvers.probe import CHUNK, Moments, ProbeSpec, chunks, probe

SPEC = ProbeSpec("random-gating", rho_a=0.7, rho_b=0.4, alpha=0.6, ns=3)
NXS = [40, 400]


def _numbers(points):
    return [(p.nx, p.transfer, p.retention) for p in points]


def test_serial_threads_and_processes_give_identical_numbers():
    serial = probe(SPEC, NXS, seeds=CHUNK + 7, seed=4)
    with ThreadPoolExecutor(3) as pool:
        threaded = probe(SPEC, NXS, seeds=CHUNK + 7, seed=4, executor=pool, workers=3)
    with ProcessPoolExecutor(2) as pool:
        processes = probe(SPEC, NXS, seeds=CHUNK + 7, seed=4, executor=pool, workers=2)
    assert _numbers(serial) == _numbers(threaded) == _numbers(processes)


def test_a_point_does_not_depend_on_the_other_sizes_measured():
    alone = probe(SPEC, [400], seeds=20, seed=4)
    together = probe(SPEC, [40, 400, 4000], seeds=20, seed=4)
    assert _numbers(alone) == _numbers(together[1:2])


def test_finished_chunks_are_not_run_again_and_the_result_is_unchanged():
    stored = {}
    full = probe(SPEC, NXS, seeds=2 * CHUNK + 3, seed=1,
                 on_chunk=lambda r: stored.__setitem__((r.nx, r.index), r))
    assert len(stored) == 2 * len(chunks(2 * CHUNK + 3))
    kept = {key: value for key, value in stored.items() if key != (400, 1)}  # "interrupted"
    rerun = []
    resumed = probe(SPEC, NXS, seeds=2 * CHUNK + 3, seed=1, done=kept, on_chunk=rerun.append)
    assert [(r.nx, r.index) for r in rerun] == [(400, 1)]
    assert _numbers(resumed) == _numbers(full)


def test_progress_counts_every_sample_once():
    seen = []
    probe(SPEC, NXS, seeds=30, seed=0, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (60, 60) and all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))


@pytest.mark.parametrize("model, parameters", [
    ("vanilla", {}), ("random-gating", {"alpha": 0.5}), ("plasticity-gating", {"alpha": 0.8}),
    ("euclidean", {"gamma": 0.5}), ("fisher", {"gamma": 0.5}),
    ("adaptive-gating", {"alpha": 0.5}), ("soft-threshold", {"alpha": 0.5}),
    ("fisher-diag", {"gamma": 0.5}),
])
@pytest.mark.parametrize("generator", ["gaussian", "appendix"])
def test_every_model_is_measured_on_both_generators(model, parameters, generator):
    spec = ProbeSpec(model, rho_a=0.6, rho_b=0.5, ns=2, ny=2, generator=generator, **parameters)
    (point,) = probe(spec, [24], seeds=3, seed=0)
    assert point.transfer.n == point.retention.n == 3
    assert np.isfinite([point.transfer.mean, point.retention.mean, point.transfer.sem]).all()


def test_every_model_of_the_toolkit_can_be_probed():
    assert {"vanilla", "adaptive-gating", "soft-threshold", "fisher-diag"} <= set(MODELS)


@pytest.mark.parametrize("generator", ["gaussian", "appendix"])
def test_the_gram_path_has_the_law_of_the_generic_solver(generator):
    """The batched path (Wishart or explicit Grams, closed forms) and simulate (the generic
    solver on explicit draws) measure the same means: z below the 1e-3 two-sided level."""
    from tasksim.solvers.api import simulate

    spec = ProbeSpec("euclidean", rho_a=0.5, rho_b=0.2, gamma=0.6, ns=3, generator=generator)
    (point,) = probe(spec, [30], seeds=1500, seed=9)
    reference = simulate("euclidean", rho_a=0.5, rho_b=0.2, gamma=0.6, nx=30, ns=3,
                         seeds=1500, seed=10, generator=generator, gram="explicit")
    for mine, theirs in ((point.transfer, reference.transfer),
                         (point.retention, reference.retention)):
        assert abs(mine.mean - theirs.mean) < 3.3 * np.hypot(mine.sem, theirs.sem)


def test_moments_combine_as_if_pooled():
    x = np.random.default_rng(0).standard_normal(101)
    parts = [Moments.from_samples(x[:50]), Moments.from_samples(x[50:])]
    pooled = parts[0].combine(parts[1]).estimate()
    assert np.isclose(pooled.mean, x.mean()) and np.isclose(
        pooled.sem, x.std(ddof=1) / np.sqrt(101))


@pytest.mark.parametrize("nxs, seeds, spec, message", [
    ([], 10, SPEC, "at least one"),
    ([400, 40], 10, SPEC, "strictly increasing"),
    ([40, 40], 10, SPEC, "strictly increasing"),
    (NXS, 1, SPEC, "seeds must be at least 2"),
    ([3, 40], 10, SPEC, "must exceed ns"),
    ([10, 40], 10, ProbeSpec("plasticity-gating", rho_a=0.5, rho_b=0.5, alpha=0.5, ns=3),
     "alpha \\* nx >= 4 ns"),
    (NXS, 10, ProbeSpec("sparse", rho_a=0.5, rho_b=0.5), "model must be one of"),
    (NXS, 10, ProbeSpec("vanilla", rho_a=1.5, rho_b=0.5), "rho_a"),
    ([10**12], 10, ProbeSpec("vanilla", rho_a=0.5, rho_b=0.5, generator="appendix"),
     "memory"),
    ([10**6], 10, ProbeSpec("vanilla", rho_a=0.5, rho_b=0.5, ns=5000), "memory for a chunk"),
])
def test_bad_input_is_refused_before_any_work(nxs, seeds, spec, message):
    with pytest.raises(ValueError, match=message) as caught:
        probe(spec, nxs, seeds=seeds, seed=0)
    assert "\n" not in str(caught.value)
