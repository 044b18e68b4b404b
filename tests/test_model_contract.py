"""One contract, checked for every linear model (scikit-learn's estimator_checks habit).

Each check runs against every model in ``tasksim.solvers.linear_models.MODELS``. A model that
deviates from a check for a mathematical reason declares it in ``DEVIATIONS`` with that
reason; the check then asserts the declared behaviour instead, so a declaration cannot hide a
regression.
"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasksim.solvers.features import Features
from tasksim.solvers.gd import gradient_descent
from tasksim.solvers.gram import GATED_BLOCKS, sample_features
from tasksim.solvers.linear_models import MODELS, make_model, required_blocks, solve, solve_features, weights
from tasksim.solvers.metrics import error_matrix, transfer_retention
from tasksim.solvers.tasks import GENERATORS, TaskSequence, draw_tasks

NX, NS, NY = 48, 4, 3
EXACT = 1e-9

PARAMETERS = {  # a typical valid parameter set per model
    "vanilla": {},
    "random-gating": {"alpha": 0.5},
    "adaptive-gating": {"alpha": 0.5},
    "plasticity-gating": {"alpha": 0.6},
    "euclidean": {"gamma": 0.5},
    "fisher": {"gamma": 0.5},
    "fisher-diag": {"gamma": 0.5},
}
NEUTRAL = {  # the parameter value at which the model is the vanilla model
    "vanilla": [{}],
    "random-gating": [{"alpha": 1.0}],
    "adaptive-gating": [{"alpha": 1.0}, {"alpha": 1.0, "probe": "expected"}],
    "plasticity-gating": [{"alpha": 1.0}],
    "euclidean": [{"gamma": 1.0}, {"lam": 0.0}, {"lam": 0.0, "first_task": "unregularized"}],
    "fisher": [{"gamma": 1.0}, {"lam": 0.0, "first_task": "independent-metric"},
               {"lam": 0.0, "first_task": "own-metric"}],
    "fisher-diag": [{"gamma": 1.0}, {"lam": 0.0, "first_task": "independent-metric"},
                    {"lam": 0.0, "first_task": "own-metric"}],
}
DEVIATIONS = {
    "random-gating": {
        "identical tasks": "g_1 and g_2 are independent, so task 2 is learned through other "
                           "inputs and overwrites task 1 (eq_rcg_epsilon_RT < 1 at rho = 1)",
        "exact fit": "with alpha Nx near Ns, D A may be rank deficient and a task is then not "
                     "fitted exactly (not at the sizes used here)",
    },
    "euclidean": {
        "identical tasks": "the regularized first task is not learned exactly; what holds is "
                           "eps_1[W_2] <= eps_1[W_1] (W_2 minimizes a loss W_1 is feasible for)",
        "exact fit": "lam > 0 trades the fit against the distance to W_{mu-1}",
    },
    "fisher-diag": {
        "features": "its metric diag(sum_n a_jn^2) is row-wise in A_{mu-1}, not a Gram function",
        "exact fit": "the diagonal metric is full rank, so lam > 0 trades the fit against the "
                     "weighted distance to W_{mu-1} (the point of Fig. 5D)",
    },
}
ALL = sorted(MODELS)


def deviation(model, check):
    return DEVIATIONS.get(model, {}).get(check)


def tasks_for(rho_a=0.6, rho_b=0.4, n_tasks=2, generator="appendix", seed=0, nx=NX, ns=NS):
    return draw_tasks(nx=nx, ns=ns, ny=NY, rho_a=rho_a, rho_b=rho_b, n_tasks=n_tasks,
                      generator=generator, seed=seed)


def test_every_model_has_parameters_and_a_neutral_setting():
    assert set(PARAMETERS) == set(NEUTRAL) == set(MODELS)
    assert set(DEVIATIONS) <= set(MODELS)


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("model", ALL)
def test_neutral_parameters_reduce_the_model_to_vanilla(model, generator):
    tasks = tasks_for(generator=generator, n_tasks=3)
    vanilla = weights(solve("vanilla", tasks))
    for params in NEUTRAL[model]:
        solution = solve(model, tasks, seed=1, **params)
        for W, V in zip(weights(solution), vanilla):
            np.testing.assert_allclose(W, V, atol=EXACT * np.abs(V).max() + 1e-300)
        np.testing.assert_allclose(error_matrix(solution, 0.4),
                                   error_matrix(solve("vanilla", tasks), 0.4), atol=EXACT)


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("model", ALL)
def test_identical_tasks_are_not_forgotten(model, generator):
    tasks = tasks_for(rho_a=1.0, rho_b=1.0, generator=generator)
    E = error_matrix(solve(model, tasks, seed=2, **PARAMETERS[model]), rho_b=1.0)
    before, after = E[0, 1], E[0, 2]
    reason = deviation(model, "identical tasks")
    if reason is None:
        assert after < 1e-20
    elif model == "euclidean":
        assert 0 < after <= before
    else:  # random gating: the declared forgetting is really there (leading order 0.0625)
        assert after > before + 0.01


@pytest.mark.parametrize("model", ALL)
def test_every_task_of_a_long_sequence_is_learned(model):
    tasks = tasks_for(n_tasks=4, seed=3)
    solution = solve(model, tasks, seed=3, **PARAMETERS[model])
    E = error_matrix(solution, rho_b=0.4)
    assert E.shape == (4, 5) and len(solution.coefficients) == 5
    learned = np.array([E[mu - 1, mu] for mu in range(1, 5)])
    if deviation(model, "exact fit") is None or model == "random-gating":
        assert learned.max() < 1e-20
    else:
        assert 0 < learned.max() < 1.0


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("model", ALL)
def test_features_path_equals_the_explicit_matrix_path(model, generator):
    tasks = tasks_for(generator=generator, n_tasks=3, seed=4)
    first_tasks = make_model(model, nx=NX, ns=NS, **PARAMETERS[model]).first_tasks or (None,)
    for first in first_tasks:
        params = dict(PARAMETERS[model], **({} if first is None else {"first_task": first}))
        explicit = solve(model, tasks, seed=5, **params)
        names = required_blocks(model, 3, first_task=first)
        A = list(tasks.A)
        metric_block = None
        if "A0" in names:  # the independent metric task rides along as task 4
            A.append(explicit.explicit.auxiliary)
            metric_block = "A4"
            names = tuple(metric_block if n == "A0" else n for n in names)
        if deviation(model, "features"):
            features = Features.from_matrices(A, explicit.gates, ("A1", "A2", "A3"))
            with pytest.raises(NotImplementedError, match="needs explicit task matrices"):
                solve_features(model, features, n_tasks=3, **params)
            continue
        features = Features.from_matrices(A, explicit.gates, names)
        from_gram = solve_features(model, features, n_tasks=3, metric_block=metric_block, **params)
        np.testing.assert_allclose(error_matrix(from_gram, 0.4), error_matrix(explicit, 0.4),
                                   rtol=EXACT, atol=1e-14)


@given(rho_a=st.floats(0.0, 1.0), rho_b=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1),
       model=st.sampled_from(["vanilla", "random-gating", "plasticity-gating", "euclidean",
                              "fisher"]))
def test_features_path_equals_explicit_path_for_any_similarity(rho_a, rho_b, seed, model):
    tasks = tasks_for(rho_a=rho_a, rho_b=rho_b, seed=seed)
    explicit = solve(model, tasks, seed=seed, **PARAMETERS[model])
    features = Features.from_matrices(tasks.A, explicit.gates, required_blocks(model))
    from_gram = solve_features(model, features, n_tasks=2, **PARAMETERS[model])
    np.testing.assert_allclose(error_matrix(from_gram, rho_b), error_matrix(explicit, rho_b),
                               rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("model", [m for m in ALL if MODELS[m].gram_solvable
                                   and m != "adaptive-gating"])  # its gate law is not Wishart
def test_gram_sampled_features_at_a_million_inputs_solve_at_small_cost(model):
    names = GATED_BLOCKS if MODELS[model].gated else ("A1", "A2")
    alpha = 0.5 if MODELS[model].gated else None
    features = sample_features(nx=10**6, ns=3, rho_a=0.8, names=names, alpha=alpha, seed=1)
    params = {k: v for k, v in PARAMETERS[model].items() if k != "alpha"}
    E = error_matrix(solve_features(model, features, n_tasks=2, **params), rho_b=0.2)
    transfer, retention = transfer_retention(E)
    assert np.isfinite(E).all() and np.all(E >= 0)
    if model == "vanilla":  # eq_epsilon_vanilla holds to O(Ns/Nx) = 3e-6 (+ fluctuations)
        assert transfer[0] == pytest.approx(0.8 * (2 * 0.2 - 0.8), abs=0.01)
        assert retention[0] == pytest.approx(1 - 0.64 * (0.64 - 2 * 0.8 * 0.2 + 1), abs=0.01)


@pytest.mark.parametrize("model", ALL)
def test_same_seed_gives_identical_numbers(model):
    tasks = tasks_for(seed=6)
    a = solve(model, tasks, seed=7, **PARAMETERS[model])
    b = solve(model, tasks, seed=7, **PARAMETERS[model])
    np.testing.assert_array_equal(error_matrix(a, 0.4), error_matrix(b, 0.4))
    ga = gradient_descent(model, tasks, seed=7, epochs=3, **PARAMETERS[model])
    gb = gradient_descent(model, tasks, seed=7, epochs=3, **PARAMETERS[model])
    np.testing.assert_array_equal(ga.errors, gb.errors)
    if MODELS[model].gated:
        c = solve(model, tasks, seed=8, **PARAMETERS[model])
        assert any((g != h).any() for g, h in zip(a.gates, c.gates))


def _bad_inputs(model):
    """(keyword arguments, expected message) that ``solve`` must reject for ``model``."""
    cls = MODELS[model]
    base = PARAMETERS[model]
    cases = []
    if "alpha" in cls.accepts:
        for bad in (0.0, -0.2, 1.5, math.nan, "0.5"):
            cases.append((dict(base, alpha=bad), r"alpha must be a number in \(0, 1\]"))
        cases.append((dict(base, gates=[np.ones(NX, bool)]), "gates must hold 2"))
        cases.append((dict(base, gates=[np.ones(NX + 1, bool)] * 2), "length nx=48"))
    else:
        cases.append((dict(base, alpha=0.5), f"alpha is not a parameter of model {model}"))
        cases.append((dict(base, gates=[np.ones(NX, bool)] * 2), "gates is not a parameter"))
    if "lam" in cls.accepts:
        for bad in (0.0, 1.01, math.inf):
            cases.append(({"gamma": bad}, r"gamma must be a number in \(0, 1\]"))
        for bad in (-1e-9, math.nan):
            cases.append(({"lam": bad}, r"lam must be a number in \[0, inf\)"))
        cases.append(({"gamma": 0.5, "lam": 1.0}, "exactly one of gamma, lam"))
        cases.append(({}, "exactly one of gamma, lam"))
        cases.append((dict(base, first_task="frozen"), "first_task must be one of"))
    else:
        cases.append((dict(base, gamma=0.5), f"gamma is not a parameter of model {model}"))
        cases.append((dict(base, lam=1.0), f"lam is not a parameter of model {model}"))
    return cases


@pytest.mark.parametrize("model, kwargs, message",
                         [(m, k, msg) for m in ALL for k, msg in _bad_inputs(m)])
def test_bad_parameters_raise_value_error_naming_the_parameter(model, kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve(model, tasks_for(), seed=0, **kwargs)


@pytest.mark.parametrize("model", ALL)
def test_bad_tasks_and_sizes_raise_value_error(model):
    params = PARAMETERS[model]
    good = tasks_for()
    nan_A = (good.A[0].copy(), good.A[1])
    nan_A[0][3, 1] = math.nan
    with pytest.raises(ValueError, match="contains NaN or inf"):
        solve(model, TaskSequence(nan_A, good.B, 0.6, 0.4, "appendix"), seed=0, **params)
    with pytest.raises(ValueError, match="n_tasks must be an integer >= 2"):
        solve(model, tasks_for(n_tasks=1), seed=0, **params)
    with pytest.raises(ValueError, match="tasks must be a tasksim.solvers.tasks.TaskSequence"):
        solve(model, good.A, seed=0, **params)
    with pytest.raises(ValueError, match="rho_b must be a number in"):
        error_matrix(solve(model, good, seed=0, **params), rho_b=1.2)
    features = Features.from_matrices(good.A, None, ("A1", "A2"))
    for bad in (0, -2, 2.5, 1, math.nan):
        with pytest.raises(ValueError, match="n_tasks must be"):
            solve_features(model, features, n_tasks=bad)
    for bad in (0, 2.5, "40"):
        with pytest.raises(ValueError, match="nx must be a positive integer"):
            make_model(model, nx=bad, ns=3, **params)


def test_models_that_need_a_tall_matrix_reject_ns_at_least_nx():
    tall_models = [m for m in ALL if MODELS[m].needs_tall]
    assert tall_models == ["plasticity-gating"]
    for nx, ns in ((4, 4), (3, 5)):
        with pytest.raises(ValueError, match=f"ns={ns}, nx={nx}: .* must be tall"):
            solve("plasticity-gating", tasks_for(nx=nx, ns=ns), alpha=1.0)


@pytest.mark.parametrize("model", [m for m in ALL if not MODELS[m].needs_tall])
def test_models_without_a_tallness_requirement_solve_wide_tasks_as_their_gradient_flow(model):
    # Ns > Nx: the fixed points are still the gradient-flow limits (pseudo-inverses)
    tasks = tasks_for(nx=6, ns=8)
    E = error_matrix(solve(model, tasks, seed=0, **PARAMETERS[model]), rho_b=0.4)
    assert np.isfinite(E).all()


def test_unknown_models_and_missing_blocks_are_reported():
    tasks = tasks_for()
    with pytest.raises(ValueError, match="model must be one of"):
        solve("ridge", tasks)
    features = Features.from_matrices(tasks.A, None, ("A1", "A2"))
    with pytest.raises(ValueError, match=r"lacks blocks \['D1A1'"):
        solve_features("random-gating", features, n_tasks=2)
    with pytest.raises(ValueError, match="metric_block"):
        solve_features("fisher", features, n_tasks=2, gamma=0.5, first_task="independent-metric")
