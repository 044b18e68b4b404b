"""The predictions of Sec. 7 (permuted MNIST with a latent) and how a verdict on each is
computed from measured transfer and retention.

Every comparison is between paired runs (the same seeds at every point: the same readouts,
initial network and mini-batch order, :func:`tasksim.solvers.pmnist.pmnist_sweep` with
``paired=True``), so its standard error is that of the per-seed differences. A difference
*shows* when it lies outside the 95 % confidence interval of zero: more than
:func:`threshold` (n) standard errors, Student's t quantile with n - 1 degrees of freedom
(3.18 for 4 seeds), one report-level test per comparison with no correction for their
number; "not detected" is not "refuted": the sentence says which, with the numbers. (The
correctness suite, verify/test_pmnist.py, holds the same predictions to a stricter rule.)

Examples
--------
>>> d = paired_difference([1.0, 1.2, 0.9, 1.1], [0.0, 0.1, 0.1, 0.2])
>>> round(d.mean, 3), round(threshold(d.n), 2), d.sign()
(0.95, 3.18, 1)
>>> fmt_estimate(d)
'+0.950 +- 0.065'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from scipy.stats import t as student_t

from tasksim.solvers.sweep import Estimate

__all__ = ["CONFIDENCE", "threshold", "NEAR_ZERO", "PREDICTIONS", "Difference",
           "paired_difference", "fmt_estimate", "near_zero", "corner_verdicts", "interior_peak",
           "retention_dip", "regularizer_comparison", "best_against_best"]

CONFIDENCE = 0.95
"""A difference shows when zero lies outside its two-sided confidence interval at this level."""


def threshold(n: int) -> float:
    """Standard errors a mean of ``n`` paired differences must lie from zero to show:
    Student's t quantile at :data:`CONFIDENCE` with n - 1 degrees of freedom (inf for n < 2).

    Examples
    --------
    >>> round(threshold(4), 3), round(threshold(10**6), 3), threshold(1)
    (3.182, 1.96, inf)
    """
    if n < 2:
        return math.inf
    return float(student_t.isf((1.0 - CONFIDENCE) / 2, n - 1))
NEAR_ZERO = 0.05
"""A mean is near zero when its confidence interval lies within +- NEAR_ZERO (5 % of the
untrained error, which is 1 on average)."""

PREDICTIONS: dict[str, str] = {
    "P1": "(rho_a, rho_b) = (1, 0) gives negative transfer and negative retention",
    "P2": "(rho_a, rho_b) = (0, 1) gives high retention and near-zero transfer",
    "P3": "around rho_b = 0.5 transfer depends non-monotonically on rho_a",
    "P4": "under rho_b ~ 1 retention after 10 epochs of task 2 dips at intermediate rho_a, "
          "and the dip disappears after 100 epochs",
    "P5": "random activity gating of the input and hidden layers improves retention at the "
          "cost of transfer",
    "P6": "adaptive gating (probe trial) improves transfer at low gating levels, especially "
          "when the readout similarity is high",
    "P7": "the layer-wise Fisher metric retains better than the Euclidean metric across "
          "amplitudes and task similarities",
    "P8": "the diagonal approximation retains close to the layer-wise Fisher metric",
}
"""The statements of Sec. 7 (and the captions of Figs. 6 and 9) that the report tests."""


@dataclass(frozen=True)
class Difference:
    """A mean over seeds of paired differences, with its standard error."""

    mean: float
    sem: float
    n: int

    def sign(self) -> int:
        """+1 or -1 when the difference shows (more than :func:`threshold` (n) standard
        errors from zero), else 0."""
        if not math.isfinite(self.sem):
            return 0
        bound = threshold(self.n) * self.sem
        if self.mean > bound:
            return 1
        if self.mean < -bound:
            return -1
        return 0


def paired_difference(a: Sequence[float], b: Sequence[float]) -> Difference:
    """Mean and standard error of a - b over paired seeds."""
    est = Estimate.from_samples(np.asarray(a, float) - np.asarray(b, float))
    return Difference(est.mean, est.sem, est.n)


def fmt_estimate(e: Difference | Estimate) -> str:
    """``+0.123 +- 0.045`` (mean and standard error)."""
    sem = "n/a" if not math.isfinite(e.sem) else f"{e.sem:.3f}"
    return f"{e.mean:+.3f} +- {sem}"


def near_zero(e: Difference) -> str:
    """Whether a mean is shown near zero: ``"near zero"`` when its whole confidence interval
    lies within +- NEAR_ZERO (an equivalence test), ``"not near zero"`` when the interval
    excludes zero, else ``"unresolved"`` (the seeds cannot tell).

    Examples
    --------
    >>> near_zero(Difference(0.01, 0.005, 10)), near_zero(Difference(-0.24, 0.1, 4))
    ('near zero', 'unresolved')
    """
    bound = threshold(e.n) * e.sem
    if abs(e.mean) + bound <= NEAR_ZERO:
        return "near zero"
    return "not near zero" if e.sign() != 0 else "unresolved"


def corner_verdicts(transfer: Mapping[tuple[float, float], np.ndarray],
                    retention: Mapping[tuple[float, float], np.ndarray]) -> dict[str, str]:
    """P1 and P2 from per-seed transfer and retention at the corners (1, 0) and (0, 1)
    (keys (rho_a, rho_b)).

    P1 holds when both show below zero. P2's retention part holds when retention at (0, 1)
    shows above zero and above retention at (1, 0) (paired), its transfer part when transfer
    is shown near zero (:func:`near_zero`); a transfer that is "unresolved" leaves P2 partly
    holding, with the reason.

    Examples
    --------
    >>> t = {(1.0, 0.0): np.array([-0.8, -0.9, -0.7]), (0.0, 1.0): np.array([0.01, -0.01, 0.0])}
    >>> r = {(1.0, 0.0): np.array([-0.5, -0.4, -0.6]), (0.0, 1.0): np.array([0.9, 0.8, 0.85])}
    >>> v = corner_verdicts(t, r)
    >>> v["P1"].split(":")[0], v["P2"].split(":")[0]
    ('holds', 'holds')
    """
    def estimate(values: np.ndarray) -> Difference:
        e = Estimate.from_samples(values)
        return Difference(e.mean, e.sem, e.n)

    tf10, rt10 = estimate(transfer[(1.0, 0.0)]), estimate(retention[(1.0, 0.0)])
    neg = [e.sign() == -1 for e in (tf10, rt10)]
    p1 = "holds" if all(neg) else ("partly holds" if any(neg) else "does not hold")
    out = {"P1": f"{p1}: transfer {fmt_estimate(tf10)}, retention {fmt_estimate(rt10)} at (1, 0)"}

    tf01, rt01 = estimate(transfer[(0.0, 1.0)]), estimate(retention[(0.0, 1.0)])
    above = paired_difference(retention[(0.0, 1.0)], retention[(1.0, 0.0)])
    high = rt01.sign() == 1 and above.sign() == 1
    zero = near_zero(tf01)
    p2 = ("holds" if high and zero == "near zero" else
          "partly holds" if high or zero == "near zero" else "does not hold")
    out["P2"] = (f"{p2}: retention {fmt_estimate(rt01)} at (0, 1) ({fmt_estimate(above)} above "
                 f"(1, 0)), transfer {fmt_estimate(tf01)} ({zero}; near zero: within "
                 f"+-{NEAR_ZERO:g} at {CONFIDENCE:.0%} confidence)")
    return out


def interior_peak(rho_a: Sequence[float], transfer: np.ndarray) -> tuple[str, str]:
    """P3 on one row of fixed rho_b: ``transfer[k, seed]`` at ``rho_a[k]`` (increasing, paired
    seeds). Non-monotonic when the interior rho_a with the largest mean shows above both
    ends (paired differences; the choice of the largest mean makes this lenient). Returns
    (verdict word, sentence).

    Examples
    --------
    >>> t = np.array([[0.0, 0.1, 0.0], [0.5, 0.6, 0.55], [0.0, -0.1, 0.05]])
    >>> interior_peak([0.0, 0.5, 1.0], t)[0]
    'holds'
    """
    means = transfer.mean(axis=1)
    k = 1 + int(np.argmax(means[1:-1]))
    left = paired_difference(transfer[k], transfer[0])
    right = paired_difference(transfer[k], transfer[-1])
    word = "holds" if left.sign() == 1 and right.sign() == 1 else "not detected"
    return word, (f"{word}: the largest mean transfer at an interior rho_a is at rho_a = "
                  f"{rho_a[k]:g}, {fmt_estimate(left)} above rho_a = {rho_a[0]:g} and "
                  f"{fmt_estimate(right)} above rho_a = {rho_a[-1]:g}")


def retention_dip(rho_a: Sequence[float], retention: np.ndarray) -> tuple[str, Difference]:
    """Whether retention along rho_a (``retention[k, seed]``, paired seeds) dips: the interior
    point with the smallest mean shows below both ends.
    Returns ("dip" or "no dip", the smaller of the two paired differences, end minus dip).

    Examples
    --------
    >>> r = np.array([[0.9, 0.8], [0.95, 0.9], [1.0, 1.0]])
    >>> retention_dip([0.0, 0.5, 1.0], r)[0]
    'no dip'
    """
    means = retention.mean(axis=1)
    k = 1 + int(np.argmin(means[1:-1]))
    left = paired_difference(retention[0], retention[k])
    right = paired_difference(retention[-1], retention[k])
    smaller = left if left.mean < right.mean else right
    word = "dip" if left.sign() == 1 and right.sign() == 1 else "no dip"
    return word, smaller


def regularizer_comparison(better: Sequence[np.ndarray], worse: Sequence[np.ndarray]
                           ) -> tuple[int, int, int]:
    """How many paired comparisons (one per amplitude and similarity pair: per-seed
    retention arrays) show ``better`` above ``worse``, below it, and neither."""
    signs = [paired_difference(b, w).sign() for b, w in zip(better, worse)]
    return signs.count(1), signs.count(-1), signs.count(0)


def best_against_best(better: Mapping[float, np.ndarray], worse: Mapping[float, np.ndarray]
                      ) -> tuple[Difference, float, float]:
    """Each method at its own best amplitude (the one with the largest mean retention;
    ``{amplitude: per-seed retention}``): the paired difference ``better - worse`` there, and
    the two amplitudes. The amplitudes of two metrics are not on one scale, so this compares
    what each metric achieves; choosing both maxima on the same runs biases both alike.

    Examples
    --------
    >>> d, a, b = best_against_best({1.0: np.array([0.6, 0.7]), 10.0: np.array([0.8, 0.9])},
    ...                             {1.0: np.array([0.3, 0.2]), 10.0: np.array([0.1, 0.0])})
    >>> round(d.mean, 3), a, b
    (0.6, 10.0, 1.0)
    """
    top_better = max(better, key=lambda lam: float(np.mean(better[lam])))
    top_worse = max(worse, key=lambda lam: float(np.mean(worse[lam])))
    return paired_difference(better[top_better], worse[top_worse]), top_better, top_worse
