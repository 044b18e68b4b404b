"""Where the paper states a claimed statement again, and which claims each figure panel shows.

Two tables that join the paper's statements to claims already in the registry, so that a
statement which asserts nothing new reads the verdict of the one it repeats:

- :data:`RESTATEMENTS`: (claim id, line, verbatim clause): the paper restates, at that line,
  the statement the claim judges (the abstract, the introduction, the discussion, an appendix
  that repeats a main-text result, an explanation that is the claimed result itself).
  :func:`tasksim.derivations.registry.all_claims` adds them to the claims' ``restates``, so the
  statement index, claims.json and the page treat them as every other restatement;
- :data:`PANELS`: figure panel ("Fig. 1C") -> the claims the panel plots, the first one being
  the statement the panel shows (its verdict is the panel's); the statement index joins a
  panel to them, the page links the panel to their cards and the report's figures.

Each entry is checked against ``paper.tex`` by the registry's tests (verbatim at its line) and
by the claims' ids (an unknown id is refused).

Examples
--------
>>> from tasksim.derivations.claims import Claim
>>> c = Claim("vanilla.benign_region", "Sec. 1", None, "x", None, note="n", line=85)
>>> [line for line, _ in with_restatements([c])[0].restates][:1]
[372]
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .claims import Claim

__all__ = ["RESTATEMENTS", "PANELS", "with_restatements"]

RESTATEMENTS: tuple[tuple[str, int, str], ...] = (
    ("vanilla.negative_at_high_rho_a_low_rho_b", 86,
     r"However, the opposite, a combination of high feature similarity and low readout "
     r"similarity is harmful"),
    # both halves of the sentence: each equation's card (REFEREE42 n3.2)
    ("vanilla.transfer", 190,
     r"These two equations, despite their simplicity, capture the transfer"),
    ("vanilla.retention", 190, r"and retention performance in numerical simulations well"),
    ("vanilla.transfer.argmax_rho_a", 196,
     r"However, once the feature similarity exceeds the readout similarity, "
     r"counter-intuitively, high feature similarity worsens the transfer performance"),
    ("vanilla.transfer.asymmetry", 208,
     r"Thus, the continual learning in the vanilla model is sensitive to task similarity"),
    ("euclidean.gamma_definition", 280,
     r"The amplitude of the weight regularization scales with $\tfrac{1}{\gamma} - 1$"),
    ("fisher.regularizer_norm", 320,
     r"Applying it to our model setting, the regularizer term in Eq. \ref{eq_main_lmu_wreg} "
     r"instead becomes"),
    ("fisher_diagonal.transfer_invariance_lost", 333,
     r"This is because the diagonal approximation makes the metric full-rank even when the "
     r"true metric has a low-rank structure"),
    ("pmnist.layerwise_regularizer", 366,
     r"However, an efficient layer-wise approximation exists for fully-connected networks"),
    ("vanilla.negative_at_high_rho_a_low_rho_b", 369,
     r"a combination of high feature similarity and low readout similarity lead to poor "
     r"outcomes in both retention and transfer"),
    ("vanilla.benign_region", 372,
     r"because image permutation belongs to a class of relatively harmless task similarity "
     r"according to our theory"),
    ("gating.gd_fixed_point", 537,
     r"Note that the results so far does not rely on Assumptions I and II"),
    ("tall.projector_surrogate", 657, r"U_2 U_2^T \approx \frac{N_s}{ \alpha N_x}"),
    ("gating.adaptive_alpha_tilde", 757,
     r"meaning that if the transfer performance is positive in the vanilla model, there "
     r"should be an overlap in the gating"),
    ("gating.transfer.dense_gating_helps", 760,
     r"Gating influences the performance differently depending on the feature and readout "
     r"similarity"),
    ("averages.random.retention", 786,
     r"Solid lines in Fig. 2D and dashed lines in Fig. 3B plot the result above"),
    ("plasticity.fixed_point", 812,
     r"Notably, unlike Eq. \ref{eq_W_fp_gated_gd}, gating term $D_{\mu}$ appears both inside "
     r"and outside of the inverse term"),
    ("soft_threshold.weights_with_diagonal", 889, r"W_2 = \frac{1}{\alpha} \widetilde{W}_2"),
    ("euclidean.W2", 947,
     r"Note that, unlike Eq. \ref{eq_W_fp_gated_gd}, the result above holds only under "
     r"Assumptions I \& II"),
    ("euclidean.error_task1_after_task2", 982, r"&\lla \epsilon_1 [W_2] \rra_{A,B}"),
    ("fisher.block_system", 1091, r"&Q \begin{pmatrix}"),
    ("tall.projector_surrogate", 1306,
     r"\tfrac{N_s}{ \alpha N_x} D A A^T D = \tfrac{N_s}{\alpha N_x} U \Sigma^2 U^T"),
    ("pmnist.fisher_regularizer_sums", 1381,
     r"Under the ReLU activation, the second-order derivative $\phi''$ is effectively "
     r"negligible"),
)
"""(claim id, line, verbatim clause): the paper restates the claim's statement there."""

PANELS: dict[str, tuple[str, ...]] = {
    "Fig. 1C": ("vanilla.transfer", "vanilla.transfer.argmax_rho_a"),
    "Fig. 1D": ("vanilla.transfer", "vanilla.transfer.asymmetry", "vanilla.transfer.corners"),
    "Fig. 1E": ("vanilla.retention",),
    "Fig. 1F": ("vanilla.retention", "vanilla.retention.low_rho_a"),
    "Fig. 1G": ("vanilla.retention", "vanilla.retention.intermediate_minimum"),
    "Fig. 2A": ("gating.transfer.random", "gating.transfer.dense_gating_helps"),
    "Fig. 2C": ("gating.retention.random", "gating.retention.optimized_at_alpha_to_zero"),
    "Fig. 3A": ("averages.adaptive.improves_transfer", "averages.random.transfer"),
    "Fig. 3B": ("averages.adaptive.retention_cost", "averages.random.retention"),
    "Fig. 4A": ("euclidean.transfer", "euclidean.transfer_equals_random_gating"),
    "Fig. 4B": ("euclidean.retention", "euclidean.retention_optimum_interior"),
    "Fig. 5A": ("fisher.retention.exact_fixed_point",),
    "Fig. 5B": ("fisher.retention.exact_fixed_point",),
    "Fig. 6A": ("pmnist.asymmetric_non_monotonic", "pmnist.below_zero_at_high_feature_low_readout",
                "pmnist.transfer_non_monotonic", "pmnist.zero_transfer_under_permutation"),
    "Fig. 6B": ("pmnist.asymmetric_non_monotonic", "pmnist.below_zero_at_high_feature_low_readout",
                "pmnist.readout_remapping_forgets_more", "pmnist.high_retention_under_permutation"),
    "Fig. 6C": ("pmnist.adaptive_gating",),
    "Fig. 6D": ("pmnist.adaptive_gating", "pmnist.random_gating_tradeoff"),
    "Fig. 6E": ("pmnist.layerwise_fisher",),
    "Fig. 6F": ("pmnist.layerwise_fisher", "pmnist.diagonal_close_to_layerwise"),
    "Fig. 6G": ("pmnist.layerwise_fisher", "pmnist.diagonal_close_to_layerwise"),
    "Fig. 6H": ("pmnist.layerwise_fisher", "pmnist.diagonal_close_to_layerwise"),
    "Fig. 7C": ("phase_diagram.rising_region",),
    "Fig. 9A": ("pmnist.task2_learning_curve",),
    "Fig. 9B": ("pmnist.asymmetric_non_monotonic", "pmnist.transfer_non_monotonic"),
    "Fig. 9C": ("pmnist.retention_non_monotonic_then_monotonic",
                "pmnist.asymmetry_short_and_long_training"),
    "Fig. 9D": ("pmnist.asymmetry_short_and_long_training",
                "pmnist.retention_non_monotonic_then_monotonic"),
    "Fig. 9E": ("pmnist.layerwise_beats_diagonal",),
    "Fig. 9F": ("pmnist.layerwise_beats_diagonal",),
}
"""Figure panel -> the claims it plots (the first is the statement the panel shows)."""


def with_restatements(claims: Sequence[Claim]) -> list[Claim]:
    """``claims`` with the places of :data:`RESTATEMENTS` added to their ``restates`` (a claim
    not in ``claims`` is skipped: the registry's tests check every id exists)."""
    extra: dict[str, list[tuple[int, str]]] = {}
    for claim_id, line, quote in RESTATEMENTS:
        extra.setdefault(claim_id, []).append((line, quote))
    return [replace(c, restates=tuple(c.restates) + tuple(
                (l, q) for l, q in extra[c.id] if (l, q) not in c.restates))
            if c.id in extra else c for c in claims]
