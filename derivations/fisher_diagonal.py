"""Fisher-metric regularization with the diagonal approximation of the metric (Sec. 6.2,
"this invariance no longer holds when the Fisher information metric is approximated by its
diagonal component"; Fig. 5D; the abstract's "much less robust").

The diagonal of the Fisher metric of task nu is Delta_nu = diag(sum_n a_jn^2), and
E[sum_n a_jn^2] = 1 (Ns entries of variance 1/Ns): the surrogate step Delta_nu -> I_x (its
mean) turns the diagonal-Fisher loss

    l_mu = (1/2) ||B_mu - W A_mu||^2 + (lam/2) ||(W - W_{mu-1}) Delta_{mu-1}^{1/2}||^2

into the Euclidean loss of :mod:`tasksim.derivations.euclidean` with amplitude lam itself.
The paper does not say how lam is normalized, and the two readings decide differently
(lines 93 and 333 are not decided on it):

- literal, lam = 1/gamma - 1 = O(1) (the exact metric's amplitude on its diagonal): the
  Euclidean level is gamma_E = Nx/(Nx + lam Ns) -> 1 as Ns/Nx -> 0. The diagonal metric is
  full rank (the paper's reason), but a ridge of size lam against Gram eigenvalues ~ Nx/Ns:
  at leading order it leaves both the transfer and the retention at the vanilla values, so
  the transfer invariance is lost only at finite size, by O(lam Ns/Nx);
- scaled, lam = (Nx/Ns)(1/gamma - 1), as Eq. (6) scales the Euclidean amplitude: the
  diagonal model is the Euclidean model at leading order, whose transfer falls below the
  vanilla one for gamma < 1.

Under either, the retention loses the exact metric's robustness (line 334): it depends on
(rho_a, rho_b) as the vanilla or the Euclidean retention does.

Examples
--------
>>> sp.factor(leading_order(diagonal_transfer()))
-rho_a*(rho_a - 2*rho_b)
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .claims import Claim, Derivation, Step, leading_order
from .sizes import GRIDS, PAPER_SIZES, Size, size_at_paper_sizes
from .euclidean import retention as euclidean_retention
from .euclidean import transfer as euclidean_transfer
from .symbols import Ns, Nx, gamma, lam, rho_a, rho_b
from .vanilla import leading_vanilla_retention, leading_vanilla_transfer

__all__ = ["diagonal_transfer", "diagonal_retention", "CLAIMS"]


@lru_cache(maxsize=1)
def diagonal_transfer() -> sp.Expr:
    """Delta eps_TF when task 1 is regularized in the diagonal metric of an uncorrelated task,
    after the surrogates Delta -> I_x and A^T A -> (Nx/Ns) I_s (every Gram block to its mean).

    >>> sp.factor(diagonal_transfer().subs(lam, 0))
    -rho_a*(rho_a - 2*rho_b)
    """
    return sp.factor(euclidean_transfer("surrogate", lam_value=lam))


@lru_cache(maxsize=1)
def diagonal_retention() -> sp.Expr:
    """Delta eps_RT with the diagonal metric on both tasks (same surrogates).

    >>> sp.expand(leading_order(diagonal_retention()) - leading_vanilla_retention())
    0
    """
    return sp.factor(euclidean_retention("surrogate", lam_value=lam))


def _where(size: Size) -> str:
    """Where a size in lam is reached, with its gamma = 1/(1 + lam): "lambda = 10 (gamma =
    1/11), rho_a = 1, rho_b = 0"."""
    parts = []
    for name, value in size.point.items():
        gamma_there = f" (gamma = {sp.nsimplify(1 / (1 + value))})" if name == "lambda" else ""
        parts.append(f"{name} = {value:g}{gamma_there}")
    return ", ".join(parts)


def _derive_invariance_lost() -> Derivation:
    T = diagonal_transfer()
    gap = sp.factor(T - leading_vanilla_transfer())
    at_leading_order = sp.factor(leading_order(gap))
    size = size_at_paper_sizes(gap)
    at_edge = ", the grid's largest lambda," if size.point.get("lambda") == max(GRIDS[lam]) else ""
    edge = float(gap.subs({rho_a: 1, rho_b: 0, lam: 49, **PAPER_SIZES}))  # gamma = 0.02
    lost = gap.subs({lam: 1, rho_a: 1, rho_b: 0, Nx: 100, Ns: 10}) != 0
    # lost at finite size but not at leading order (fixed lam): true only where lam Ns/Nx is
    # not small, i.e. at the smallest gamma = 1/(1 + lam) for a given Ns/Nx: a narrower part
    # of the paper's regime (Ns << Nx with gamma anywhere in (0, 1], as Figs. 5C-D plot it)
    finite_only = lost and at_leading_order == 0
    # the other normalization (REFEREE30 M1): the paper does not say how Fig. 5D scales the
    # diagonal metric's amplitude; scaled as Eq. (6) scales the Euclidean one, lam ->
    # (Nx/Ns) lam, the diagonal model is the Euclidean model at leading order
    scaled = sp.factor(leading_order(gap.subs(lam, Nx / Ns * lam)).subs(lam, 1 / gamma - 1))
    return Derivation(sp.true if lost else sp.false, (
        Step("metric surrogate: Delta = diag(sum_n a_jn^2) -> its mean I_x", sp.Integer(1),
             "E sum_n a_jn^2 = Ns (1/Ns)"),
        Step("transfer, task 1 regularized with lam Delta (a ridge of size lam)", T),
        Step("minus the vanilla transfer", gap),
        Step("its leading order in Ns/Nx", at_leading_order),
        Step("the other normalization: amplitude (Nx/Ns)(1/gamma - 1), as Eq. (6) scales the "
             "Euclidean regularizer; the gap's leading order", scaled,
             "the Euclidean model's transfer (Eq. (8a)) minus the vanilla one: not zero for "
             "gamma < 1"),
    ), exact=False, note=f"two readings of the diagonal metric's amplitude, which the paper "
                         "does not fix, and the verdict waits on which. Literal: the paper's "
                         "Fisher amplitude 1/gamma - 1 on the metric's diagonal (as elastic "
                         "weight consolidation keeps its amplitude when it drops the "
                         "off-diagonal terms), a ridge of size 1/gamma - 1, weak against Gram "
                         "eigenvalues of order Nx/Ns. The gap is not zero at finite size: "
                         "after the Gram surrogates (whose own error is O(Ns/Nx); the report "
                         f"measures the exact gap) it is {size.value:.3g} at {_where(size)}"
                         f"{at_edge} and it grows with lambda towards 1: "
                         f"{edge:.2f} at Fig. 5D's smallest gamma, 0.02. But it is O(lam "
                         "Ns/Nx), zero at leading order (fourth step), so under this reading "
                         "the statement "
                         "fails in the stated limit. Scaled: the amplitude times Nx/Ns, as "
                         "Eq. (6) scales the Euclidean one; the gap at leading order is the "
                         "last step's, not zero for gamma < 1, so under this reading the "
                         "statement holds in the stated limit",
        stronger_condition=("lam Ns/Nx not small, i.e. gamma = 1/(1 + lam) small for the "
                            "given Ns/Nx (Fig. 5D's smallest gammas at Nx = 3000, Ns = 30), "
                            "under the literal amplitude 1/gamma - 1 on the diagonal metric: "
                            "the gap is O(lam Ns/Nx), so at any fixed gamma it vanishes as "
                            "Ns/Nx -> 0 and the invariance holds at leading order; with the "
                            "amplitude scaled by Nx/Ns as Eq. (6) scales the Euclidean one it "
                            "holds in the stated limit at every gamma < 1 (the last step)"
                            if finite_only else ""))


def _derive_attenuated() -> Derivation:
    R = diagonal_retention()
    R_leading = sp.expand(leading_order(R))
    worst = sp.Tuple(R_leading.subs({rho_a: 1, rho_b: 0}), sp.Integer(1))
    holds = sp.expand(R_leading - leading_vanilla_retention()) == 0
    return Derivation(sp.true if holds and worst[0] < worst[1] else sp.false, (
        Step("retention with the diagonal metric (surrogates as for the transfer)", R),
        Step("its leading order in Ns/Nx", R_leading, "the vanilla retention"),
        Step("at (rho_a, rho_b) = (1, 0): diagonal vs exact metric", worst),
    ), exact=False, note="with the literal amplitude 1/gamma - 1, at leading order the "
                         "diagonal metric gives the vanilla retention, which falls to -1 at "
                         "(rho_a, rho_b) = (1, 0), where the exact metric keeps 1 "
                         "(fisher.retention.exact_fixed_point); with the amplitude scaled by "
                         "Nx/Ns it gives the Euclidean retention, which depends on (rho_a, "
                         "rho_b) too (line 93's Euclidean half): the statement holds under "
                         "either")


def _derive_amplitude_readings() -> Derivation:
    """Line 93's clause on the diagonal approximation and the regularizer amplitude, under
    the two readings of its amplitude (REFEREE30 m4): the diagonal retention's leading order
    with the literal amplitude lam = 1/gamma - 1, and with lam scaled by Nx/Ns (Eq. (6)'s
    Euclidean normalization) against the Euclidean retention of Eq. (8b)."""
    R = diagonal_retention()
    literal = sp.expand(leading_order(R) - leading_vanilla_retention())
    scaled = sp.simplify(leading_order(R.subs(lam, Nx / Ns * lam)).subs(lam, 1 / gamma - 1)
                         - leading_order(euclidean_retention()))
    return Derivation(None, (
        Step("literal amplitude 1/gamma - 1: leading-order diagonal retention minus the "
             "vanilla one", literal, "zero: at leading order the retention is the vanilla "
                                     "one at every gamma, constant in gamma as the exact "
                                     "metric's is"),
        Step("amplitude (Nx/Ns)(1/gamma - 1): leading-order diagonal retention minus the "
             "Euclidean model's at the same gamma (Eq. (8b))", scaled,
             "zero: the Euclidean retention, which varies with gamma (line 93's Euclidean "
             "half)"),
    ), exact=False)


CLAIMS: list[Claim] = [
    Claim("fisher_diagonal.transfer_invariance_lost", "Sec. 6.2: the diagonal approximation "
          "loses the transfer invariance (Figs. 5C, 5D)", None,
          r"this invariance no longer holds when the Fisher information metric is approximated "
          r"by its diagonal component", _derive_invariance_lost, line=333, headline=True,
          condition="Ns << Nx, as throughout Sec. 6, with gamma anywhere in (0, 1] as Figs. 5C-D "
                    "plot it; Fig. 5D at Nx = 3000, Ns = 30",
          observable="Delta eps_TF of the diagonal-Fisher model minus the vanilla model's",
          note="read as: the transfer with the diagonal metric on task 1 differs from the "
               "vanilla transfer (the invariance of line 331: the transfer the same as the "
               "vanilla model's); the other reading, that the diagonal metric loses the "
               "retention's robustness, is line 334's statement "
               "(fisher_diagonal.attenuates_robustness). The size is the gap at one corner of "
               "the prior. Fig. 5's caption and right-hand panel give a related average: the "
               "diagonal metric's transfer minus the exact metric's (panel D minus panel C on "
               "the same tasks), which is the same gap at leading order (line 331: the exact "
               "metric's transfer is the vanilla one) but not at Nx = 3000, where C lies below "
               "the vanilla value by its own finite-size offset",
          decide="how the diagonal metric's amplitude is normalized, which the paper does not "
                 "say (as for line 93's diagonal clause, fisher_diagonal.less_robust_to_"
                 "amplitude): with the literal amplitude 1/gamma - 1 on the "
                 "metric's diagonal, the transfer gap is O(lam Ns/Nx) (its leading order is "
                 "zero at every fixed gamma), so the statement fails in the stated limit and "
                 "holds only where lam Ns/Nx is not small, at Fig. 5D's smallest gammas for the "
                 "paper's sizes (the measured gap is the size); scaled by Nx/Ns as Eq. (6) "
                 "scales the Euclidean amplitude, the gap's leading order is the last step's, "
                 "not zero for gamma < 1, and the statement holds in the stated limit"),
    Claim("fisher_diagonal.less_robust_to_amplitude", "Sec. 1: the diagonal approximation "
          "is much less robust against both task similarity and the regularizer amplitude",
          None, r"its diagonal approximation", _derive_amplitude_readings, line=93,
          headline=True, condition="leading order in Ns/Nx",
          observable="the range of Delta eps_RT over gamma",
          note="the diagonal approximation's half of line 93 ('much less robust against both "
               "task similarity and regularizer amplitude'): against task similarity it is "
               "line 334's statement, which holds under either reading of the amplitude "
               "(fisher_diagonal.attenuates_robustness); against the amplitude it is not "
               "decided",
          decide="how the diagonal metric's amplitude is normalized, which the paper does not "
                 "say: with the literal amplitude 1/gamma - 1 (the exact metric's, on the "
                 "metric's diagonal) the diagonal retention is the vanilla one at every fixed "
                 "gamma (first step), as constant in gamma as the exact metric's and only "
                 "lower, so the clause fails at leading order; scaled by Nx/Ns as Eq. (6) "
                 "scales the Euclidean amplitude it is the Euclidean retention (second step), "
                 "which varies with gamma at every similarity (line 93's Euclidean half, "
                 "euclidean.less_robust_than_fisher), and the clause holds"),
    Claim("fisher_diagonal.attenuates_robustness", "Sec. 6.2: the diagonal approximation "
          "attenuates the robustness of the Fisher metric", sp.true,
          r"diagonal approximation attenuates its robustness", _derive_attenuated, line=334,
          headline=True, condition="leading order in Ns/Nx, under either normalization of the "
          "amplitude (lam = 1/gamma - 1, or scaled by Nx/Ns as Eq. (6) scales the Euclidean "
          "one)",
          note="read as: with the diagonal metric the retention depends on (rho_a, rho_b) as "
               "the vanilla one does (with the literal amplitude 1/gamma - 1; scaled by Nx/Ns "
               "as Eq. (6) scales the Euclidean one, it is the Euclidean retention, which "
               "depends on them too: line 93's Euclidean half)",
          restates=((63, r"its diagonal approximation"),
                    (290, r"and its diagonal approximation (\textbf{D})"))),
]
