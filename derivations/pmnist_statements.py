"""The statements of Sec. 7 (numerical experiments, permuted MNIST with a latent) and of
Appendix E.2 and Fig. 9, registered so that the coverage of the paper is complete.

They are about a one-hidden-layer ReLU network trained by SGD, not about the linear model:
there is nothing to derive, so every claim here is ``open``; the permuted-MNIST experiment
(``tasksim pmnist``, built separately) is what measures them. Each note says what would be
measured. The statements of the abstract and the introduction that summarise them are
recorded as restatements.

Examples
--------
>>> sorted({c.headline for c in CLAIMS}), {evaluate(c).status for c in CLAIMS}
([True], {'open'})
"""
from __future__ import annotations

from .claims import Claim, evaluate

__all__ = ["CLAIMS", "MEASURED_BY"]

MEASURED_BY = ("measured by the permuted-MNIST experiment (`tasksim pmnist`): a nonlinear "
               "network trained by SGD, no derivation")
"""The note every claim of this module carries."""


def _claim(name: str, line: int, quote: str, what: str,
           restates: tuple[tuple[int, str], ...] = ()) -> Claim:
    return Claim(f"pmnist.{name}", "Sec. 7" if line < 395 else "Appendix E.2", None, quote,
                 None, note=f"{MEASURED_BY}; to measure: {what}", line=line, headline=True,
                 restates=restates, decide=f"{what}, from `tasksim pmnist` at the paper's "
                 "setting (MNIST from its IDX files, Appendix E.2's network, epochs and seeds); "
                 "the report's figures run 8 x 8 digits at reduced sizes: evidence, not the "
                 "paper's experiment")


CLAIMS: list[Claim] = [
    _claim("latent", 352, r"$\bm{s}_9 = [1, 0, 0, 1]^T$",
           "the task construction itself (a setting of the experiment)"),
    _claim("asymmetric_non_monotonic", 357,
           r"both transfer and retention performance, measured by the test error, exhibited "
           r"asymmetric and non-monotonic dependence on the task similarity",
           "transfer and retention on a (rho_a, rho_b) grid"),
    _claim("below_zero_at_high_feature_low_readout", 358,
           r"When $(\rho_a, \rho_b) = (1.0, 0.0)$, both transfer and retention performance "
           r"were below zero", "transfer and retention at (rho_a, rho_b) = (1, 0) below 0",
           restates=((97, r"both the retention and transfer performance go below the chance "
                          r"level, as predicted"),)),
    _claim("transfer_non_monotonic", 360,
           r"around $\rho_b = 0.5$, the transfer performance exhibited a non-monotonic "
           r"dependence on $\rho_a$", "transfer against rho_a at rho_b = 0.5"),
    _claim("retention_non_monotonic_then_monotonic", 361,
           r"The retention performance also exhibited non-monotonic dependence on $\rho_a$ "
           r"under $\rho_b \approx 1$, but the dependence became monotonic after a long "
           r"training", "retention against rho_a at rho_b ~ 1 after 10 and 100 epochs",
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
                          r"regularization in the Fisher information metric, which outperforms "
                          r"its diagonal approximation and the regularization in the Euclidean "
                          r"metric"),)),
    _claim("protocol", 1359,
           r"The retention performance was measured after $10$ epochs of training with task 2",
           "the protocol itself (a setting of the experiment)"),
    _claim("asymmetry_short_and_long_training", 1361,
           r"the asymmetric task similarity dependence of the retention performance was "
           r"observed consistently both after a short and long training on the second task",
           "retention after 10 and 100 epochs on a (rho_a, rho_b) grid",
           restates=((1333, r"the system still exhibits strong asymmetric dependence on the "
                            r"feature and readout similarities"),)),
    _claim("regularizer_scaling", 1418,
           r"we scaled the regularization term on the weight changes $\Delta W_1$ and "
           r"$\Delta W_2$", "the normalisation itself (a setting of the experiment)"),
    _claim("layerwise_beats_diagonal", 1434,
           r"the layer-wise approximation of the Fisher-information metric robustly "
           r"outperformed the diagonal approximation",
           "retention under layer-wise and diagonal Fisher with separate amplitudes per layer"),
]
