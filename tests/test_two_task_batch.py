"""The batched closed forms of solvers/two_task_batch.py are the generic solvers' fixed points:
sample by sample, transfer and retention equal those of solve_features + error_matrix."""
import numpy as np
import pytest

from tasksim.solvers.features import Features
from tasksim.solvers.gram import sample_gram
from tasksim.solvers.linear_models import solve_features
from tasksim.solvers.metrics import error_matrix, transfer_retention
from tasksim.solvers.two_task_batch import (BLOCKS, GRAM_MODELS, gram_transfer_retention,
                                            psd_pinv_batch, two_task_maps)
from tasksim.solvers.fixed_points import psd_pinv


def _reference(model, grams, *, nx, ns, rho_b, **parameters):
    out = []
    for g in grams:
        solution = solve_features(model, Features(BLOCKS[model], g, nx, ns), n_tasks=2,
                                  **parameters)
        tf, rt = transfer_retention(error_matrix(solution, rho_b))
        out.append((tf[0], rt[0]))
    return np.array(out).T


CASES = [
    ("vanilla", {}, {}, 0.6),
    ("vanilla", {}, {}, 1.0),
    ("random-gating", {"alpha": 0.5}, {}, 0.6),
    ("random-gating", {"alpha": 0.05}, {}, 0.6),       # alpha Nx < Ns: rank-deficient D A
    ("plasticity-gating", {"alpha": 0.5}, {}, 0.6),
    ("euclidean", {}, {"lam": 7.0}, 0.6),
    ("euclidean", {}, {"lam": 0.0}, 0.6),
    ("fisher", {}, {"lam": 1.5}, 0.6),
    ("fisher", {}, {"lam": 1.5}, 1.0),                   # A_2 = A_1: singular block system
]


@pytest.mark.parametrize("model, gates, regularizer, rho_a", CASES)
def test_batched_closed_forms_equal_the_generic_solver(model, gates, regularizer, rho_a):
    nx, ns, rho_b = 60, 4, 0.3
    alpha = gates.get("alpha")
    grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=BLOCKS[model], alpha=alpha, size=12,
                        seed=1)
    tf, rt = gram_transfer_retention(model, grams, ns=ns, rho_b=rho_b, **regularizer)
    ref_tf, ref_rt = _reference(model, grams, nx=nx, ns=ns, rho_b=rho_b, **gates, **regularizer)
    np.testing.assert_allclose(tf, ref_tf, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rt, ref_rt, rtol=1e-9, atol=1e-9)


def test_every_gram_model_has_a_block_list():
    assert set(BLOCKS) == set(GRAM_MODELS)


def test_the_batched_pseudo_inverse_is_the_reference_one():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 6, 3))
    K = X @ np.swapaxes(X, 1, 2)  # rank 3 of 6
    np.testing.assert_allclose(psd_pinv_batch(K), np.array([psd_pinv(k)[0] for k in K]),
                               atol=1e-10)


def test_plasticity_with_too_few_plastic_inputs_is_refused():
    grams = sample_gram(nx=20, ns=4, rho_a=0.5, names=BLOCKS["plasticity-gating"], alpha=0.05,
                        size=3, seed=0)
    with pytest.raises(ValueError, match="plastic"):
        two_task_maps("plasticity-gating", grams, ns=4)


@pytest.mark.parametrize("kwargs, message", [
    (dict(model="fisher-diag"), "model must be one of"),
    (dict(model="euclidean"), "needs lam"),
    (dict(model="vanilla", grams=np.zeros((2, 5, 5))), "shape"),
])
def test_bad_input_is_refused_with_a_message(kwargs, message):
    call = dict(model="vanilla", grams=np.zeros((2, 8, 8)), ns=4)
    call.update(kwargs)
    with pytest.raises(ValueError, match=message):
        two_task_maps(call.pop("model"), call.pop("grams"), **call)
