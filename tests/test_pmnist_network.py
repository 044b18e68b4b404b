"""The network of the permuted-digits experiment, its regularizers and its protocol
(solvers/pmnist/: network.py, penalties.py, __init__.py): gradients are the derivatives of
what they claim to be, the limits that must reduce to vanilla do so number for number, and the
numbers depend on the seed alone."""
from __future__ import annotations

import numpy as np
import pytest

from tasksim.solvers.pmnist import (METHODS, resolve_pmnist_params, run_two_tasks,
                                    pmnist_sweep, simulate_pmnist)
from tasksim.solvers.pmnist.network import (Gates, Network, forward, init_network,
                                            loss_gradients, mean_squared_error, sgd_epoch)
from tasksim.solvers.pmnist.penalties import (diagonal_fisher_penalty, euclidean_penalty,
                                              layerwise_fisher_penalty)

SHORT = dict(epochs=2, seeds=2, dataset="digits")  # a few hundred SGD steps per run: seconds
DIGITS = dict(dataset="digits")  # the quick data set (the default, mnist-5k, is paper-size)


def _small(seed=0):
    rng = np.random.default_rng(seed)
    net = init_network(rng, nx=5, nh=7, ny=3, dtype=np.float64)
    net.W1 *= 40  # larger than the paper's initialisation, so that units are active
    net.W2 *= 4
    x = rng.random((30, 5))
    y = rng.standard_normal((30, 3))
    return net, x, y


def _numerical_gradient(f, array, eps=1e-6):
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        keep = array[index]
        array[index] = keep + eps
        up = f()
        array[index] = keep - eps
        down = f()
        array[index] = keep
        grad[index] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("gates", [None, Gates(np.array([1, 0, 1, 1, 0], bool),
                                                np.array([1, 1, 0, 1, 0, 1, 1], bool))])
def test_sgd_gradients_are_the_derivatives_of_the_batch_error(gates):
    net, x, y = _small()
    analytic = loss_gradients(net, x, y, gates)
    for name in ("W1", "b1", "W2", "b2"):
        numeric = _numerical_gradient(lambda: mean_squared_error(net, x, y, gates),
                                      getattr(net, name))
        assert np.allclose(getattr(analytic, name), numeric, atol=1e-7), name
    if gates is not None:
        assert not analytic.W1[:, ~gates.input].any()
        assert not analytic.W2[:, ~gates.hidden].any()


@pytest.mark.parametrize("build", [
    lambda anchor, x: euclidean_penalty(anchor, 0.7, 1.3),
    lambda anchor, x: layerwise_fisher_penalty(anchor, x, 0.7, 1.3),
    lambda anchor, x: diagonal_fisher_penalty(anchor, x, 0.7, 1.3),
])
def test_regularizer_gradients_are_the_derivatives_of_their_values(build):
    anchor, x, _ = _small(1)
    penalty = build(anchor, x)
    net = anchor.copy()
    rng = np.random.default_rng(5)
    net.W1 += 0.3 * rng.standard_normal(net.W1.shape)
    net.W2 += 0.3 * rng.standard_normal(net.W2.shape)
    g1, g2 = penalty.gradient(net)
    assert np.allclose(g1, _numerical_gradient(lambda: penalty.value(net), net.W1), atol=1e-7)
    assert np.allclose(g2, _numerical_gradient(lambda: penalty.value(net), net.W2), atol=1e-7)
    assert penalty.value(anchor) == 0.0
    assert penalty.value(net) > 0.0


def test_layerwise_fisher_is_the_decoupled_hessian_with_the_papers_normalisers():
    anchor, x, _ = _small(2)
    p = layerwise_fisher_penalty(anchor, x, 1.0, 1.0)
    phi, _ = forward(anchor, x)
    active = (phi > 0).astype(float)
    # <grad phi W2^T W2 grad phi> averaged sample by sample
    m = np.mean([np.diag(a) @ anchor.W2.T @ anchor.W2 @ np.diag(a) for a in active], axis=0)
    c = x.T @ x / len(x)
    s = phi.T @ phi / len(x)
    z1 = np.linalg.norm(anchor.W2 @ anchor.W2.T, 2) * np.linalg.norm(c, 2)
    z2 = np.linalg.norm(s, 2)
    assert p.normalisers == pytest.approx((z1, z2))
    assert np.allclose(p.m1, m / z1) and np.allclose(p.c, c) and np.allclose(p.s2, s / z2)


def test_diagonal_fisher_coefficients_are_the_papers_with_the_largest_normalised_to_lambda():
    anchor, x, _ = _small(3)
    p = diagonal_fisher_penalty(anchor, x, 2.0, 0.5)
    phi, _ = forward(anchor, x)
    active = (phi > 0).astype(float)
    f1 = np.mean([(anchor.W2 ** 2).sum(0)[:, None] * (a[:, None] * xi[None, :]) ** 2
                  for a, xi in zip(active, x)], axis=0)
    f2 = np.mean(phi ** 2, axis=0)
    assert np.allclose(p.f1, 2.0 * f1 / f1.max()) and np.allclose(p.f2, 0.5 * f2 / f2.max())


def test_a_network_with_no_active_unit_has_a_zero_fisher_penalty_not_a_nan():
    anchor, x, _ = _small(4)
    anchor.b1[:] = -1e3  # every hidden unit off
    for build in (layerwise_fisher_penalty, diagonal_fisher_penalty):
        p = build(anchor, x, 1.0, 1.0)
        net = anchor.copy()
        net.W1 += 1.0
        net.W2 += 1.0
        assert all(np.all(g == 0) for g in p.gradient(net))


def test_one_epoch_takes_one_step_per_full_batch_and_drops_the_remainder():
    net = Network.from_parts(np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1)), np.zeros(1))
    x, y = np.ones((10, 1)), np.ones((10, 1))
    sgd_epoch(net, x, y, batch=3, learning_rate=0.25, order=np.arange(10))
    # the hidden unit is dead at zero weights, so only b2 moves: each step halves 1 - b2
    # (gradient 2 (b2 - 1)); 10 rows in batches of 3 are three steps
    assert net.b2[0] == pytest.approx(1 - 0.5 ** 3)


# --- the protocol --------------------------------------------------------------------------------

def _run(method, **kw):
    return simulate_pmnist(method, rho_a=kw.pop("rho_a", 0.5), rho_b=kw.pop("rho_b", 0.5),
                           seed=11, **SHORT, **kw)


@pytest.mark.parametrize("method, options", [
    ("random-gating", {"alpha": 1.0}),
    ("adaptive-gating", {"alpha": 1.0}),
    ("euclidean", {"lam": 0.0}),
    ("fisher-layerwise", {"lam": 0.0}),
    ("fisher-diag", {"lam1": 0.0, "lam2": 0.0}),
])
def test_limits_that_draw_nothing_more_reproduce_vanilla_number_for_number(method, options):
    vanilla = _run("vanilla")
    other = _run(method, **options)
    assert np.array_equal(other.samples, vanilla.samples)
    assert np.array_equal(other.curves, vanilla.curves)


def test_identical_tasks_have_identical_learning_curves():
    r = _run("vanilla", rho_a=1.0, rho_b=1.0)
    assert np.array_equal(r.curves[:, :, 0], r.curves[:, :, 1])
    first = r.params["epochs"]
    assert np.allclose(r.transfer.mean, np.mean(r.curves[:, 0, 1] - r.curves[:, first, 1]))


def test_transfer_and_retention_are_read_off_the_test_curves():
    r = _run("random-gating", alpha=0.5, rho_a=0.2, rho_b=0.8)
    first, keep = r.params["epochs"], r.params["retention_epochs"]
    assert np.allclose(r.samples[:, 0], r.curves[:, 0, 1] - r.curves[:, first, 1])
    assert np.allclose(r.samples[:, 1], r.curves[:, 0, 0] - r.curves[:, first + keep, 0])
    assert r.retention_after(keep).mean == pytest.approx(r.retention.mean)


def test_a_strong_regularizer_holds_the_weights_of_task_one():
    weak = _run("fisher-layerwise", lam=0.0, rho_a=0.0, rho_b=0.0)
    strong = _run("fisher-layerwise", lam=50.0, rho_a=0.0, rho_b=0.0)
    assert np.all(strong.samples[:, 1] > weak.samples[:, 1])  # it retains more, seed by seed


def test_adaptive_gating_keeps_gates_when_the_probe_finds_task_two_partly_solved():
    same = _run("adaptive-gating", alpha=0.5, rho_a=1.0, rho_b=1.0)
    unrelated = _run("adaptive-gating", alpha=0.5, rho_a=0.0, rho_b=0.0)
    # identical tasks: rho_g = 1 - eps_pb/eps_o is the share of task 1's training error
    # removed (8-18 % after two epochs); unrelated tasks: the probe is no better than W_o
    assert np.all(same.gate_correlation > 0.05)
    assert np.all(unrelated.gate_correlation == 0.0)
    assert np.all(np.isnan(_run("random-gating", alpha=0.5).gate_correlation))


def test_the_same_seed_gives_the_same_numbers_on_any_number_of_workers():
    from tasksim.solvers.executors import open_executor

    points = [resolve_pmnist_params("adaptive-gating", rho_a=a, rho_b=0.5, alpha=0.5, **SHORT)
              for a in (0.25, 1.0)]
    serial = pmnist_sweep(points, seed=4)
    with open_executor(workers=2) as pool:
        parallel = pmnist_sweep(points, seed=4, executor=pool, workers=2)
    for s, p in zip(serial, parallel):
        assert np.array_equal(s.samples, p.samples) and np.array_equal(s.curves, p.curves)
    again = pmnist_sweep(points, seed=4)
    assert np.array_equal(again[0].samples, serial[0].samples)
    assert not np.array_equal(pmnist_sweep(points, seed=5)[0].samples, serial[0].samples)


@pytest.mark.parametrize("method, options", [("vanilla", {}), ("adaptive-gating", {"alpha": 0.5}),
                                             ("euclidean", {"lam": 0.3}),
                                             ("fisher-layerwise", {"lam": 2.0})])
def test_a_first_task_from_the_cache_gives_the_numbers_of_one_trained_in_the_run(
        monkeypatch, method, options):
    import tasksim.solvers.pmnist.run as run_module

    params = resolve_pmnist_params(method, rho_a=0.25, rho_b=0.75, epochs=2, **DIGITS,
                                   **options)
    seed = np.random.SeedSequence([21, 5])  # list entropy, as the report's panel seeds
    run_module._cached_first_task.cache_clear()
    cached = run_two_tasks(params, seed)
    again = run_two_tasks({**params, "rho_a": 0.75}, seed)  # the same task 1, from the cache
    assert run_module._cached_first_task.cache_info().hits >= 1
    monkeypatch.setattr(run_module, "CACHE_LIMIT_BYTES", 0)
    for record, rho_a in ((cached, 0.25), (again, 0.75)):
        trained = run_two_tasks({**params, "rho_a": rho_a}, seed)
        assert np.array_equal(trained.curves, record.curves)
        assert trained.transfer == record.transfer and trained.retention == record.retention


def test_a_paired_grid_shares_task_one_across_similarities():
    points = [resolve_pmnist_params("vanilla", rho_a=a, rho_b=b, epochs=2, seeds=2, **DIGITS)
              for a, b in ((0.0, 0.0), (1.0, 0.5))]
    paired = pmnist_sweep(points, seed=8, paired=True)
    assert np.array_equal(paired[0].curves[:, :3, 0], paired[1].curves[:, :3, 0])
    unpaired = pmnist_sweep(points, seed=8)
    assert not np.array_equal(unpaired[0].curves[:, :3, 0], unpaired[1].curves[:, :3, 0])
    assert np.array_equal(unpaired[0].samples, paired[0].samples)  # point 0: the same seeds


def test_float32_gives_the_numbers_of_float64():
    single = _run("fisher-layerwise", lam=1.0)
    double = _run("fisher-layerwise", lam=1.0, dtype="float64")
    # measured: 6e-4 after 100 + 10 epochs; the spread over seeds is ~0.03-0.1
    assert np.abs(single.samples - double.samples).max() < 2e-3


def test_runs_report_progress_per_epoch_when_serial():
    ticks = []
    simulate_pmnist("vanilla", rho_a=0.5, rho_b=0.5, epochs=2, seeds=2, **DIGITS,
                    on_epoch=lambda: ticks.append(1))
    assert len(ticks) == 2 * (2 + 2)


@pytest.mark.parametrize("method, options, message", [
    ("sgd", {}, "method must be one of"),
    ("vanilla", {"alpha": 0.5}, "alpha is not a parameter of vanilla"),
    ("random-gating", {}, "alpha is required"),
    ("random-gating", {"alpha": 0.0}, "alpha must be a number in \\(0, 1\\]"),
    ("euclidean", {}, "needs lam"),
    ("euclidean", {"lam": 1.0, "lam1": 1.0}, "not both"),
    ("fisher-diag", {"lam1": 1.0}, "needs lam"),
    ("fisher-diag", {"lam": -1.0}, "lam must be a number in \\[0, inf\\)"),
    ("vanilla", {"epochs": 0}, "epochs must be a positive integer"),
    ("vanilla", {"epochs": 5, "retention_epochs": 6}, "must not exceed the epochs of task 2"),
    ("vanilla", {"batch": 5000, **DIGITS}, "exceeds the 1437 training images"),
    ("vanilla", {"batch": 5000}, "exceeds the 4000 training images of mnist-5k"),
    ("vanilla", {"learning_rate": 0.0}, "learning_rate"),
    ("vanilla", {"dataset": "mnist"}, "needs --data-dir"),
    ("vanilla", {"dtype": "float16"}, "dtype must be one of"),
])
def test_bad_parameters_are_one_line_value_errors_naming_them(method, options, message):
    with pytest.raises(ValueError, match=message) as caught:
        resolve_pmnist_params(method, rho_a=0.5, rho_b=0.5, **options)
    assert "\n" not in str(caught.value)


def test_every_method_runs_and_names_its_parameters():
    assert set(METHODS) == {"vanilla", "random-gating", "adaptive-gating", "euclidean",
                            "fisher-layerwise", "fisher-diag"}
    run = run_two_tasks(resolve_pmnist_params("fisher-diag", rho_a=0.0, rho_b=1.0, lam=1.0,
                                              epochs=1, **DIGITS), np.random.SeedSequence(0))
    assert np.all(np.isfinite(run.curves))
