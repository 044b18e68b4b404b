"""Task generators (Appendix A) and gates (eq_def_rho_g): moments, determinism, bad input."""
import numpy as np
import pytest

from tasksim.solvers.tasks import draw_gates, draw_tasks


@pytest.mark.parametrize("generator", ["appendix", "gaussian"])
def test_entries_have_variance_one_over_ns_and_correlation_rho(generator):
    t = draw_tasks(nx=40000, ns=10, ny=5, rho_a=0.3, rho_b=0.8, generator=generator, seed=3)
    n = t.A[0].size
    se = 3 * np.sqrt(2.0 / n) * 10  # generous 3-sigma bound on the scaled second moments
    assert abs(np.var(t.A[1]) * 10 - 1) < se
    assert abs(np.mean(t.A[0] * t.A[1]) * 10 - 0.3) < se


def test_appendix_generator_keeps_elements_exactly():
    t = draw_tasks(nx=20000, ns=5, ny=2, rho_a=0.25, rho_b=0.0, generator="appendix", seed=1)
    kept = np.mean(t.A[0] == t.A[1])
    assert abs(kept - 0.25) < 4 * np.sqrt(0.25 * 0.75 / t.A[0].size)


def test_same_seed_same_tasks_and_longer_sequences():
    a = draw_tasks(nx=30, ns=3, ny=2, rho_a=0.5, rho_b=0.5, n_tasks=4, seed=9)
    b = draw_tasks(nx=30, ns=3, ny=2, rho_a=0.5, rho_b=0.5, n_tasks=4, seed=9)
    assert a.n_tasks == 4
    assert all(np.array_equal(x, y) for x, y in zip(a.A + a.B, b.A + b.B))


def test_gate_overlap_is_alpha_times_alpha_tilde():
    alpha, rho_g = 0.3, 0.5
    g1, g2 = draw_gates(nx=200000, alpha=alpha, rho_g=rho_g, seed=4)
    alpha_tilde = rho_g + (1 - rho_g) * alpha
    assert abs(np.mean(g1 & g2) - alpha * alpha_tilde) < 0.005
    assert abs(np.mean(g2) - alpha) < 0.005


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(rho_a=1.2), "rho_a"),
        (dict(rho_b=float("nan")), "rho_b"),
        (dict(nx=0), "nx"),
        (dict(generator="normal"), "generator"),
    ],
)
def test_bad_task_parameters_raise(kwargs, message):
    params = dict(nx=10, ns=2, ny=2, rho_a=0.5, rho_b=0.5)
    params.update(kwargs)
    with pytest.raises(ValueError, match=message):
        draw_tasks(**params)
