"""Statements of the paper that the registry deliberately does not claim, each with the reason.

The list of statements is built from the paper's source (:mod:`tasksim.reports.paper`:
labelled equations and quantitative sentences); each one is either covered by a claim of the
registry or listed here. An entry names the statement by its line and a verbatim clause of it
(checked against ``paper/paper.tex`` by the test suite), so that it cannot drift.

Examples
--------
>>> len({entry.line for entry in OUT_OF_SCOPE}) == len(OUT_OF_SCOPE)
True
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OutOfScope", "OUT_OF_SCOPE"]


@dataclass(frozen=True)
class OutOfScope:
    """A statement at ``line`` (its verbatim ``quote``) that no claim covers, and why."""

    line: int
    quote: str
    reason: str


DEFINITION = ("a definition, nothing to derive or measure: the toolkit implements it "
              "(solvers/tasks.py, solvers/metrics.py) and every claim builds on it")

OUT_OF_SCOPE: tuple[OutOfScope, ...] = (
    OutOfScope(58, r"Continual learning of partially similar tasks poses a challenge for "
               r"artificial neural networks", "motivation: it states no result of the paper"),
    OutOfScope(130, r"\vs \leftarrow \mathcal{N} \left( 0, I_s \right)",
               f"eq_generative_model is {DEFINITION}"),
    OutOfScope(164, r"\Delta \epsilon_{TF}", f"eq_def_delta_epsilon_TF_RT is {DEFINITION}"),
    OutOfScope(249, r"This tradeoff between knowledge transfer and retention is especially "
               r"critical when the network doesn't know the task similarities",
               "motivation for the averages over a uniform prior that follow (lines 250-253, "
               "claimed): no result of its own"),
    OutOfScope(371, r"a previous study reported catastrophic forgetting among rats learning "
               r"timing estimation tasks", "a result of prior work (French et al. 1999)"),
    OutOfScope(409, r"Below, we focus on learning of $N_{sess} = 2$ tasks.",
               "a scoping sentence: it states no result; the toolkit's K-task results stand "
               "there as findings beyond the paper (the report's Findings section), not as a "
               "verdict on it"),
    OutOfScope(548, r"g^{\mu+1}_i", f"eq_def_rho_g (the gate generator) is {DEFINITION}; "
               "the gate overlap it implies is claimed (gating.alpha_tilde)"),
)
"""Every out-of-scope statement, in the order of the paper."""
