"""The exact 1/Nx expansion (derivations/gram_expansion.py, derivations/finite_size.py):
its leading order is the registry's, its coefficient reproduces the one closed form known, the
models reduce to one another where they must, and malformed input is refused."""
import pytest
import sympy as sp

from tasksim.derivations import euclidean, gating, plasticity
from tasksim.derivations.engine import ratio_expansion
from tasksim.derivations.finite_size import (MODELS, QUANTITIES, adaptive_gating_transfer,
                                             correlated_gating, finite_size, paper_nlo)
from tasksim.derivations.gram_expansion import (GramInverse, expand_trace, segment_covariance,
                                                segment_mean)
from tasksim.derivations.matrix_words import gate, opaque, task
from tasksim.derivations.symbols import Ns, Nx, alpha, alpha_t, gamma, rho_a, rho_b, rho_g
from tasksim.derivations.vanilla import (exact_gaussian_transfer, leading_vanilla_retention,
                                         leading_vanilla_transfer)

GENERATORS = ("gaussian", "appendix")


def _same(a, b) -> bool:
    return sp.cancel(sp.together(sp.sympify(a) - sp.sympify(b))) == 0


def _registry_leading(model: str, quantity: str, generator: str) -> sp.Expr:
    """The leading order as each model's own module derives it (surrogates, then the limit)."""
    if model in ("vanilla", "fisher") and quantity == "transfer":
        return leading_vanilla_transfer(generator)
    if model == "vanilla":
        return leading_vanilla_retention(generator)
    if model == "fisher":
        return sp.Integer(1)  # fisher.exact_retention
    if model == "random-gating":
        fn = gating.leading_transfer if quantity == "transfer" else gating.leading_retention
        return fn(generator).subs(alpha_t, alpha)
    module = plasticity if model == "plasticity-gating" else euclidean
    value = getattr(module, quantity)("surrogate")
    return ratio_expansion(value, 0)[0]


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("model", MODELS)
def test_the_expansion_starts_at_the_registry_leading_order(model, quantity, generator):
    assert _same(finite_size(model, quantity, generator).leading,
                 _registry_leading(model, quantity, generator))


def test_the_vanilla_transfer_coefficient_is_that_of_the_inverse_wishart_closed_form():
    exact = exact_gaussian_transfer().value
    coefficient = sp.limit(Nx * (exact - leading_vanilla_transfer("gaussian")), Nx, sp.oo)
    assert _same(finite_size("vanilla", "transfer", "gaussian").nlo, coefficient)


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("model, level", [("random-gating", {alpha: 1}),
                                          ("plasticity-gating", {alpha: 1}),
                                          ("euclidean", {gamma: 1})])
def test_every_model_is_vanilla_at_full_gates_or_no_regularizer(model, level, quantity,
                                                                generator):
    vanilla = finite_size("vanilla", quantity, generator)
    reduced = finite_size(model, quantity, generator)
    assert _same(reduced.leading.subs(level), vanilla.leading)
    assert _same(reduced.nlo.subs(level), vanilla.nlo)


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("generator", GENERATORS)
def test_correlated_gates_run_from_random_gating_to_vanilla_on_the_kept_units(quantity,
                                                                             generator):
    """rho_g = 0: independent gates (random gating); rho_g = 1: one gate for both tasks, the
    vanilla model on the alpha Nx units it keeps (the vanilla coefficient over alpha); between,
    the leading order is eq_rcg's at alpha~ = alpha + (1 - alpha) rho_g."""
    correlated = correlated_gating(quantity, generator)
    random, vanilla = (finite_size(m, quantity, generator) for m in ("random-gating", "vanilla"))
    assert _same(correlated.leading.subs(rho_g, 0), random.leading)
    assert _same(correlated.nlo.subs(rho_g, 0), random.nlo)
    assert _same(correlated.leading.subs(rho_g, 1), vanilla.leading)
    assert _same(correlated.nlo.subs(rho_g, 1), vanilla.nlo / alpha)
    printed = (gating.leading_transfer() if quantity == "transfer"
               else gating.leading_retention())
    assert _same(correlated.leading, printed.subs(alpha_t, alpha + (1 - alpha) * rho_g))


@pytest.mark.parametrize("generator", GENERATORS)
def test_adaptive_gating_is_correlated_gating_at_the_rho_g_of_its_probe(generator):
    """Where rho_a (2 rho_b - rho_a) > 0 the probe sets rho_g to it (plus its own 1/Nx term,
    the vanilla coefficient over alpha); elsewhere the gates stay independent."""
    adaptive = adaptive_gating_transfer(generator)
    correlated = correlated_gating("transfer", generator)
    random = finite_size("random-gating", "transfer", generator)
    inside = {rho_a: sp.Rational(1, 2), rho_b: sp.Rational(3, 5)}    # rho_g = 0.35
    outside = {rho_a: sp.Rational(4, 5), rho_b: sp.Rational(1, 5)}   # rho_a > 2 rho_b
    assert _same(adaptive.nlo.subs(outside), random.nlo.subs(outside))
    assert _same(adaptive.leading.subs(outside), random.leading.subs(outside))
    # inside: put the probe's rho_g at size Nx, t + (its coefficient)/(alpha Nx), into the
    # correlated-gate transfer L + C/Nx and read off the 1/Nx term as a limit (no derivative)
    t = sp.Rational(7, 20)
    probe = finite_size("vanilla", "transfer", generator).nlo.subs(inside) / alpha
    at_size = (correlated.leading + correlated.nlo / Nx).subs(inside).subs(rho_g, t + probe / Nx)
    assert _same(adaptive.leading.subs(inside), correlated.leading.subs(inside).subs(rho_g, t))
    term = sp.limit(sp.expand(Nx * (at_size - adaptive.leading.subs(inside))), Nx, sp.oo)
    assert _same(adaptive.nlo.subs(inside), term)


@pytest.mark.parametrize("generator", GENERATORS)
def test_fisher_transfers_like_vanilla_and_never_forgets(generator):
    assert _same(finite_size("fisher", "transfer", generator).nlo,
                 finite_size("vanilla", "transfer", generator).nlo)
    retention = finite_size("fisher", "retention", generator)
    assert (retention.leading, retention.nlo) == (1, 0)


def test_identical_tasks_have_no_finite_size_term_in_the_vanilla_transfer():
    for generator in GENERATORS:  # A_2 = A_1: A_1^+ A_2 = I exactly
        nlo = finite_size("vanilla", "transfer", generator).nlo
        assert nlo.subs(rho_a, 1) == 0


def test_the_paper_coefficients_come_from_its_printed_terms():
    assert _same(paper_nlo("vanilla", "transfer"), -(Ns + rho_a**2))
    assert _same(paper_nlo("random-gating", "retention"),
                 -Ns * alpha**2 * (4 * rho_a**2 + 2 * rho_a**4) - (Ns + rho_a**2)
                 + 2 * rho_b * Ns * alpha * (2 * rho_a + rho_a**3))
    assert paper_nlo("fisher", "transfer") == paper_nlo("vanilla", "transfer")
    for model in ("plasticity-gating", "euclidean"):
        assert paper_nlo(model, "transfer") is None and paper_nlo(model, "retention") is None
    assert paper_nlo("fisher", "retention") is None


def test_segment_moments_are_those_of_a_wishart_matrix():
    A1 = task(1)
    assert segment_mean(A1.T @ A1) == 1 / Ns
    # Var of the Wishart entries: E tr(Delta^2) = (1/Nx) (Ns^2 + Ns) / Ns^2 for W/Nx
    assert _same(segment_covariance(A1.T @ A1, A1.T @ A1), (Ns + 1) / Ns)
    gated = segment_mean(task(1).T @ gate(1) @ task(1))
    assert gated == alpha / Ns


def test_a_trace_that_depends_on_nx_is_refused():
    inverse = GramInverse(task(1))
    Q = inverse.letter  # (A^T A)^{-1} alone is O(1/Nx): not scale-free
    with pytest.raises(ValueError, match="not scale-free"):
        expand_trace(Q, {inverse.letter: inverse})


def test_a_word_with_an_unknown_letter_is_refused():
    stranger = opaque("K", "s", "s", symmetric=True)
    with pytest.raises(ValueError, match="not a product of Gram blocks"):
        expand_trace(stranger @ task(1).T @ task(1), {})


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="model must be one of"):
        finite_size("adaptive-gating", "transfer")
    with pytest.raises(ValueError, match="generator must be one of"):
        finite_size("vanilla", "transfer", "uniform")
    with pytest.raises(ValueError, match="Nx x Ns"):
        GramInverse(task(1).T)
