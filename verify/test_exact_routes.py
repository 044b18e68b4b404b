"""Every linear model against brute force in Nx space at small sizes, and every route to its
numbers against the others, sample by sample: exact at finite size, rounding only.

The paper defines each model by its loss and learning rule (Secs. 4-6, Appendices B-D). At
Nx = 60 an Nx x Nx matrix costs nothing, so the fixed point of gradient flow from the previous
weight can be written down directly from those definitions, with none of the solvers' span
algebra (:func:`brute_force_weights`):

- least squares (vanilla, activity gating; eq_gd_fp_vanilla, eq_W_fp_gated_gd):
  W_mu = W_{mu-1} + (B_mu - W_{mu-1} F_mu) F_mu^+, F_mu = D_mu A_mu;
- plasticity gating (Appendix B.2, dW = -(W A - B)(D A)^T):
  W_mu = W_{mu-1} + (B_mu - W_{mu-1} A_mu)(A_mu^T D_mu A_mu)^{-1} A_mu^T D_mu;
- Euclidean (eq_main_lmu_wreg, first task regularized toward W_0 = 0):
  W_mu = (B_mu A_mu^T + lam W_{mu-1})(A_mu A_mu^T + lam I)^{-1},
  lam = (Nx/Ns)(1/gamma - 1) from the registry (derivations.euclidean.LAMBDA_OF_GAMMA);
- Fisher and diagonal Fisher (eq_ap_defQ_wr_fim, Fig. 5D; first task unregularized):
  W_2 = W_1 + (B_2 - W_1 A_2) A_2^T (A_2 A_2^T + lam G)^+, G = A_1 A_1^T or
  diag(sum_n a_jn^2) of A_1, lam = 1/gamma - 1 (the appendix's gamma_f = 1/(1 + lam));
- adaptive gating (Appendix B.1): the gates the solver drew, and the gate correlation it set
  must be max{0, 1 - eps_pb/eps_o} of the brute-force W_1's probe on the sampled readouts.

The errors eps_mu[W_nu] = ||B_mu - W_nu F_mu||^2 / Ny on the drawn readouts must equal the
solver's (:func:`tasksim.solvers.metrics.readout_error_matrix`), called as a user would call
it, with gamma (so the solvers' own gamma -> lam is checked too). Then every route to
transfer and retention must agree on the same draws: :func:`tasksim.solvers.linear_models.solve`
with :func:`tasksim.solvers.metrics.error_matrix`, the public
:func:`tasksim.solvers.api.simulate_samples` (its own gamma -> lam), and the probe engine's
closed forms (:mod:`tasksim.solvers.two_task_batch`) on the Gram of the same blocks with the
registry's lam. The paper's GD protocol (Appendix D: eta = 0.001, 100 or 500 epochs per task)
is brute-forced too, step by step from the gradients of the losses, and must give the weights
of :func:`tasksim.solvers.gd.gradient_descent` after exactly the protocol's epochs.

All comparisons are ``deterministic`` (rounding only, relative to the size of the numbers);
the brute-force comparisons of the errors are registered with :mod:`verify.resolution`, so
the run's closing summary states that every model's errors are checked at rounding level at
these small sizes (the paper-size resolution of the Gram-based models is stated apart).
"""
from __future__ import annotations

import numpy as np
import pytest

from tasksim.derivations.euclidean import LAMBDA_OF_GAMMA
from tasksim.derivations.symbols import Ns, Nx, gamma
from tasksim.solvers.api import resolve_params, simulate_samples
from tasksim.solvers.gd import gradient_descent
from tasksim.solvers.linear_models import solve
from tasksim.solvers.metrics import error_matrix, readout_error_matrix, transfer_retention
from tasksim.solvers.rng import as_generator
from tasksim.solvers.span import ExplicitBlocks
from tasksim.solvers.sweep import Estimate
from tasksim.solvers.tasks import draw_tasks
from tasksim.solvers.two_task_batch import BLOCKS, GRAM_MODELS, gram_transfer_retention
from verify import resolution
from verify.tolerances import assert_agrees

NX, NS, NY = 60, 4, 3
RHO_A, RHO_B = 0.6, 0.4
SAMPLES = 3
LEVELS = {"vanilla": {}, "random-gating": {"alpha": 0.5}, "adaptive-gating": {"alpha": 0.5},
          "plasticity-gating": {"alpha": 0.5}, "euclidean": {"gamma": 0.6},
          "fisher": {"gamma": 0.5}, "fisher-diag": {"gamma": 0.5}}
PAPER_ETA = 0.001
"""Appendix D (paper.tex, subsec_linear_st_implementation): 'learning rate eta = 0.001'."""
PAPER_EPOCHS = {"vanilla": 100, "random-gating": 100, "adaptive-gating": 100}
"""Appendix D: 'N_epoch = 100 for the vanilla model and the activity gating models, but ...
N_epoch = 500 for other models'."""
ROUNDING = 1e-9
"""Relative agreement required of two exact computations (their rounding is near 1e-13)."""


def registry_lam(model: str, level: dict, nx: int, ns: int) -> float:
    """lam of a regularized model from gamma: the registry's for Euclidean, the appendix's
    gamma_f = 1/(1 + lam) for Fisher."""
    if model == "euclidean":
        return float(LAMBDA_OF_GAMMA.subs({Nx: nx, Ns: ns, gamma: level["gamma"]}))
    return 1.0 / level["gamma"] - 1.0


def seen_input(model: str, A: np.ndarray, gate: np.ndarray | None) -> np.ndarray:
    """F_mu: the input the network sees on a task (gated for activity gating)."""
    return A * gate[:, None] if model in ("random-gating", "adaptive-gating") else A


def fisher_metric(model: str, A: np.ndarray) -> np.ndarray:
    """A A^T (fisher) or its row-wise diagonal diag(sum_n a_jn^2) (fisher-diag)."""
    return A @ A.T if model == "fisher" else np.diag(np.sum(A * A, axis=1))


def brute_force_weights(model: str, A: list, B: list, gates, lam: float) -> list[np.ndarray]:
    """W_0 = 0, W_1, W_2 of ``model`` from the definitions in the module docstring."""
    nx = A[0].shape[0]
    W = [np.zeros((B[0].shape[0], nx))]
    for mu in (0, 1):
        previous, a, b = W[-1], A[mu], B[mu]
        g = None if gates is None else gates[mu].astype(float)
        if model in ("vanilla", "random-gating", "adaptive-gating") or (
                model.startswith("fisher") and mu == 0):
            F = seen_input(model, a, g)
            W.append(previous + (b - previous @ F) @ np.linalg.pinv(F))
        elif model == "plasticity-gating":
            P = a * g[:, None]
            W.append(previous + (b - previous @ a) @ np.linalg.solve(a.T @ P, P.T))
        elif model == "euclidean":
            W.append((b @ a.T + lam * previous) @ np.linalg.inv(a @ a.T + lam * np.eye(nx)))
        else:  # fisher, fisher-diag: second task, metric of the first
            M = a @ a.T + lam * fisher_metric(model, A[0])
            W.append(previous + (b - previous @ a) @ a.T @ np.linalg.pinv(M))
    return W


def brute_force_gd(model: str, A: list, B: list, gates, lam: float, epochs: int,
                   eta: float = PAPER_ETA) -> list[np.ndarray]:
    """The paper's GD protocol step by step, from the gradient of each task's loss."""
    nx = A[0].shape[0]
    W = [np.zeros((B[0].shape[0], nx))]
    for mu in (0, 1):
        previous, a, b = W[-1], A[mu], B[mu]
        g = None if gates is None else gates[mu].astype(float)
        w = previous.copy()
        for _ in range(epochs):
            if model == "plasticity-gating":
                grad = (w @ a - b) @ (a * g[:, None]).T
            else:
                F = seen_input(model, a, g)
                grad = (w @ F - b) @ F.T
            if model == "euclidean":
                grad = grad + lam * (w - previous)
            elif model.startswith("fisher") and mu == 1:
                grad = grad + lam * (w - previous) @ fisher_metric(model, A[0])
            w = w - eta * grad
        W.append(w)
    return W


def errors_of(model: str, W: list, A: list, B: list, gates) -> np.ndarray:
    """E[mu - 1, nu] = ||B_mu - W_nu F_mu||^2 / Ny."""
    E = np.empty((2, 3))
    for mu in (0, 1):
        g = None if gates is None else gates[mu].astype(float)
        F = seen_input(model, A[mu], g)
        for nu in range(3):
            R = B[mu] - W[nu] @ F
            E[mu, nu] = np.sum(R * R) / B[mu].shape[0]
    return E


def _same(label: str, value: float, reference: float):
    scale = max(1.0, abs(reference))
    comparison = assert_agrees(label, Estimate(value / scale, 0.0, 1), reference / scale,
                               kind="deterministic")
    assert abs(value - reference) <= ROUNDING * scale, (label, value, reference)
    return comparison


def _draw(model: str, j: int, rho_a: float = RHO_A):
    seed = np.random.SeedSequence(1804, spawn_key=(list(LEVELS).index(model), j))
    rng = as_generator(seed)
    tasks = draw_tasks(nx=NX, ns=NS, ny=NY, rho_a=rho_a, rho_b=RHO_B, generator="appendix",
                       seed=rng)
    return seed, rng, tasks


@pytest.mark.parametrize("model", list(LEVELS))
def test_fixed_points_equal_brute_force_in_nx_space(model):
    level = LEVELS[model]
    lam = registry_lam(model, level, NX, NS) if "gamma" in level else 0.0
    for j in range(SAMPLES):
        _, rng, tasks = _draw(model, j)
        solution = solve(model, tasks, seed=rng, **level)
        W = brute_force_weights(model, list(tasks.A), list(tasks.B), solution.gates, lam)
        expected = errors_of(model, W, list(tasks.A), list(tasks.B), solution.gates)
        measured = readout_error_matrix(solution)
        for (i, k), value in np.ndenumerate(expected):
            c = _same(f"{model} sample {j}: eps_{i + 1}[W_{k}] against brute force",
                      float(measured[i, k]), float(value))
            resolution.record(f"{model} (brute force at Nx={NX}, Ns={NS})", "errors", c)
        if model == "adaptive-gating":
            b2 = tasks.B[1]
            probe = np.sum((b2 - W[1] @ (tasks.A[1] * solution.gates[0][:, None])) ** 2)
            rho_g = max(0.0, 1.0 - probe / np.sum(b2 * b2))
            _same(f"adaptive gating sample {j}: rho_g = max(0, 1 - eps_pb/eps_o)",
                  float(solution.gate_correlations[0]), rho_g)


@pytest.mark.parametrize("rho_a", [RHO_A, 1.0])
@pytest.mark.parametrize("model", list(LEVELS))
def test_every_route_gives_the_same_transfer_and_retention(model, rho_a):
    """At a generic point and at rho_a = 1 (identical features: Fisher's retention depends on
    lam only there)."""
    level = LEVELS[model]
    lam = registry_lam(model, level, NX, NS) if "gamma" in level else None
    params = resolve_params(model, rho_a=rho_a, rho_b=RHO_B, nx=NX, ns=NS, ny=NY, seeds=1,
                            generator="appendix", gram="explicit", **level)
    for j in range(SAMPLES):
        seed, rng, tasks = _draw(model, j, rho_a)
        solution = solve(model, tasks, seed=rng, **level)
        E = readout_error_matrix(solution) if model == "adaptive-gating" else \
            error_matrix(solution, RHO_B)
        (tf,), (rt,) = transfer_retention(E)
        public = simulate_samples(params, [seed])
        _same(f"{model} sample {j}: transfer, simulate against solve",
              float(public["transfer"][0]), float(tf))
        _same(f"{model} sample {j}: retention, simulate against solve",
              float(public["retention"][0]), float(rt))
        if model in GRAM_MODELS:
            gram = ExplicitBlocks(tasks.A, solution.gates).span(BLOCKS[model]).gram
            ftf, frt = gram_transfer_retention(model, gram[None], ns=NS, rho_b=RHO_B, lam=lam)
            _same(f"{model} sample {j}: transfer, probe engine against solve", float(ftf[0]),
                  float(tf))
            _same(f"{model} sample {j}: retention, probe engine against solve",
                  float(frt[0]), float(rt))


@pytest.mark.parametrize("model", [m for m in LEVELS if m != "adaptive-gating"])
def test_the_papers_gd_protocol_equals_brute_force_gradient_descent(model):
    """Appendix D's protocol after exactly its epochs (eta = 0.001; 100 epochs for vanilla and
    activity gating, 500 for the others), brute-forced from the losses' gradients; the
    solver runs with its defaults, which must be the paper's."""
    level = LEVELS[model]
    lam = registry_lam(model, level, NX, NS) if "gamma" in level else 0.0
    epochs = PAPER_EPOCHS.get(model, 500)
    _, rng, tasks = _draw(model, 0)
    curves = gradient_descent(model, tasks, seed=rng, **level)
    assert (curves.epochs, curves.eta) == (epochs, PAPER_ETA), (curves.epochs, curves.eta)
    W = brute_force_gd(model, list(tasks.A), list(tasks.B), curves.gates, lam, epochs)
    for mu in (1, 2):
        scale = max(1.0, float(np.abs(W[mu]).max()))
        difference = float(np.abs(curves.weights[mu] - W[mu]).max()) / scale
        assert_agrees(f"{model}: GD weight W_{mu} against brute force ({epochs} epochs)",
                      Estimate(difference, 0.0, 1), 0.0, kind="deterministic")


@pytest.mark.parametrize("alpha", [0.3, 0.7])
def test_soft_threshold_input_moments_equal_their_monte_carlo(alpha):
    """Input soft-thresholding (Sec. 4.3, subsec_appndix_input_soft_thresholding): the exact
    input moments the solver is built on, cross = E[s phi(A s)^T] and
    second = E[phi(A s) phi(A s)^T] given A, against their definition by Monte Carlo over
    s ~ N(0, I) at Nx = 8, Ns = 3 (every entry; h from the registry, phi written out here)."""
    from tasksim.solvers.soft_threshold_moments import input_moments
    from verify import theory

    nx, ns, draws = 8, 3, 400_000
    A = draw_tasks(nx=nx, ns=ns, ny=1, rho_a=0.0, rho_b=0.0, generator="appendix",
                   seed=1805).A[0]
    h = theory.function("soft_threshold.threshold", "derived")(alpha=alpha)
    moments = input_moments(A, alpha=alpha)
    s = np.random.default_rng(1806).standard_normal((draws, ns))
    m = s @ A.T
    phi = np.sign(m) * np.maximum(0.0, np.abs(m) - h)
    for j in range(ns):
        for i in range(nx):
            assert_agrees(f"soft threshold alpha={alpha}: cross[{j}, {i}]",
                          Estimate.from_samples(s[:, j] * phi[:, i]),
                          float(moments.cross[j, i]))
    for i in range(nx):
        for k in range(i, nx):
            assert_agrees(f"soft threshold alpha={alpha}: second[{i}, {k}]",
                          Estimate.from_samples(phi[:, i] * phi[:, k]),
                          float(moments.second[i, k]))


# -- the Wishart-sampled Grams: exact moments at a few degrees of freedom -------------------

WISHART_NX, WISHART_NS, WISHART_DRAWS = 7, 2, 40_000


def _covariance(rho_a: float, ns: int) -> np.ndarray:
    """The row covariance of [A_1, A_2] under the gaussian generator (A_2 = rho_a A_1 +
    sqrt(1 - rho_a^2) Z; entries of variance 1/Ns): [[I, rho_a I], [rho_a I, I]] / Ns."""
    return np.kron(np.array([[1.0, rho_a], [rho_a, 1.0]]), np.eye(ns)) / ns


@pytest.mark.parametrize("sampler", ["batch", "seeded"])
@pytest.mark.parametrize("gated", [False, True])
def test_wishart_sampled_grams_have_the_exact_mean_at_small_nx(sampler, gated):
    """The Gram of the blocks is a sum of Nx i.i.d. rank-one terms (gates: Bernoulli(alpha),
    independent across tasks), so at every Nx its mean is exactly Nx E[x x^T]: Nx Sigma for
    [A_1, A_2], Nx alpha Sigma_11 for D_1 A_1, Nx alpha^2 Sigma_12 for (D_1 A_1)^T D_2 A_2.
    At Nx = 7 a degree of freedom off by one is a 14 % error. Both samplers: the batched one
    (tasksim.simulate) and the per-seed one (the probe engine)."""
    from tasksim.solvers.gram import sample_gram, sample_gram_seeded

    rho_a, alpha, nx, ns = 0.6, 0.5, WISHART_NX, WISHART_NS
    names = ("D1A1", "D2A2") if gated else ("A1", "A2")
    if sampler == "batch":
        grams = sample_gram(nx=nx, ns=ns, rho_a=rho_a, names=names, alpha=alpha,
                            size=WISHART_DRAWS, seed=1807)
    else:
        seeds = np.random.SeedSequence(1808).spawn(WISHART_DRAWS // 4)
        grams = sample_gram_seeded(seeds, nx=nx, ns=ns, rho_a=rho_a, names=names, alpha=alpha)
    sigma = _covariance(rho_a, ns)
    weight = np.kron(np.array([[alpha, alpha**2], [alpha**2, alpha]]), np.ones((ns, ns))) \
        if gated else 1.0
    expected = nx * sigma * weight
    for (i, k), value in np.ndenumerate(expected):
        if k >= i:
            assert_agrees(f"{sampler} Wishart Gram of {names}, Nx={nx}: mean[{i}, {k}]",
                          Estimate.from_samples(grams[:, i, k]), float(value))


@pytest.mark.parametrize("generator", ["gaussian", "appendix"])
def test_drawn_task_matrices_have_the_exact_gram_mean_at_small_nx(generator):
    """The explicit task generators (Appendix A and the gaussian mixture) give the same
    second moments, E[A_mu^T A_nu] = Nx rho_a^|mu - nu| I / Ns, exactly at every Nx."""
    from verify import estimators as E

    rho_a, nx, ns = 0.6, WISHART_NX, WISHART_NS
    A1, A2 = E.task_batch(samples=WISHART_DRAWS // 4, nx=nx, ns=ns, rho_a=rho_a,
                          generator=generator, seed=1809)
    X = np.concatenate([A1, A2], axis=2)
    grams = np.einsum("sxi,sxj->sij", X, X)
    expected = nx * _covariance(rho_a, ns)
    for (i, k), value in np.ndenumerate(expected):
        if k >= i:
            assert_agrees(f"{generator} generator, Nx={nx}: E[X^T X][{i}, {k}]",
                          Estimate.from_samples(grams[:, i, k]), float(value))


@pytest.mark.parametrize("alpha, rho_g", [(0.3, 0.0), (0.7, 0.5)])
def test_drawn_gates_have_the_exact_level_and_correlation(alpha, rho_g):
    """Gates (eq_def_rho_g): g_1 ~ Bernoulli(alpha) elementwise, g_2 keeps g_1 with
    probability rho_g, else redraws: P(g = 1) = alpha for both and
    P(g_1 = g_2 = 1) = alpha (rho_g + (1 - rho_g) alpha), exactly."""
    from tasksim.solvers.tasks import draw_gates

    g1, g2 = draw_gates(nx=400_000, alpha=alpha, rho_g=rho_g, seed=1810)
    for name, values, target in (("P(g_1 = 1)", g1, alpha), ("P(g_2 = 1)", g2, alpha),
                                 ("P(g_1 = g_2 = 1)", g1 & g2,
                                  alpha * (rho_g + (1 - rho_g) * alpha))):
        assert_agrees(f"{name} at alpha={alpha}, rho_g={rho_g}",
                      Estimate.from_samples(values.astype(float)), target)


def test_the_appendix_generator_keeps_each_entry_with_probability_rho():
    """Appendix A: each entry of A_2 is that of A_1 with probability rho_a, else resampled
    (a continuous draw, equal with probability 0): the fraction of equal entries is rho_a."""
    rho_a = 0.6
    tasks = draw_tasks(nx=100_000, ns=4, ny=1, rho_a=rho_a, rho_b=0.0, generator="appendix",
                       seed=1811)
    kept = (tasks.A[0] == tasks.A[1]).ravel().astype(float)
    assert_agrees("appendix generator: fraction of kept entries", Estimate.from_samples(kept),
                  rho_a)


def test_adaptive_gates_are_drawn_with_the_gate_correlation_the_probe_set():
    """Adaptive gating (Appendix B.1): g_2 keeps g_1 with probability rho_g (the probe's,
    reported by the solver and checked against brute force above), else redraws it, so
    P(g_2 = 1 | g_1 = 1) = rho_g + (1 - rho_g) alpha. Measured over 60 draws at Nx = 40000:
    the mean of (fraction of open g_1 kept open) - (rho_g + (1 - rho_g) alpha) is 0."""
    alpha, differences = 0.5, []
    for j in range(60):
        rng = as_generator(np.random.SeedSequence(1812, spawn_key=(j,)))
        tasks = draw_tasks(nx=40_000, ns=4, ny=NY, rho_a=0.5, rho_b=0.5, generator="appendix",
                           seed=rng)
        solution = solve("adaptive-gating", tasks, alpha=alpha, seed=rng)
        g1, g2 = solution.gates
        rho_g = solution.gate_correlations[0]
        differences.append(float((g1 & g2).sum() / g1.sum()) - (rho_g + (1 - rho_g) * alpha))
    assert_agrees("adaptive gating: P(g_2 = 1 | g_1 = 1) against the reported rho_g",
                  Estimate.from_samples(differences), 0.0)
