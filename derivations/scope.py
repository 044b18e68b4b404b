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

SUMMARY = ("a summary of the paper's aims or contributions in general words: the results it "
           "stands for are claimed where the paper states them")

OUT_OF_SCOPE: tuple[OutOfScope, ...] = (
    OutOfScope(1322, r"we estimated the gradient in a sample-based manner because the exact "
               r"gradient is not tractable due to nonlinearity",
               "the paper's numerical method for Fig. 3D and its reason, a judgement of cost "
               "(a setting, not a statement about the model). As a statement about "
               "computation it does not hold here: this replication computes the exact "
               "expected gradient given A (exact input moments, O(Nx^3) per task: "
               "solvers/soft_threshold.py) and its Fig. 3D uses it; the paper's sampled "
               "gradient estimates the same expectation"),
    OutOfScope(58, r"Continual learning of partially similar tasks poses a challenge for "
               r"artificial neural networks", "motivation: it states no result of the paper"),
    OutOfScope(64, r"Overall, this work provides insights into when continual learning is "
               r"difficult and how to mitigate it", SUMMARY),
    OutOfScope(79, r"To gain insight into these questions, in this work, we investigate",
               "states what the paper investigates: no result"),
    OutOfScope(89, r"We further analyze how common algorithms for continual learning, "
               r"activity and plasticity gating", "announces what the paper analyses (its "
               "citations name the algorithms' sources): its results are judged where they are "
               "stated"),
    OutOfScope(102, r"Our theory thus reveals when continual learning is difficult", SUMMARY),
    OutOfScope(130, r"\vs \leftarrow \mathcal{N} \left( 0, I_s \right)",
               f"eq_generative_model is {DEFINITION}"),
    OutOfScope(164, r"\Delta \epsilon_{TF}", f"eq_def_delta_epsilon_TF_RT is {DEFINITION}"),
    OutOfScope(171, r"As illustrated in Fig. 1B, the transfer performance $\Delta \epsilon_{TF}$ "
               r"measures", "defines Delta eps_TF and Delta eps_RT in words (eq_def_delta_"
               "epsilon_TF_RT, line 164): a definition has no truth value"),
    OutOfScope(249, r"This tradeoff between knowledge transfer and retention is especially "
               r"critical when the network doesn't know the task similarities",
               "motivation for the averages over a uniform prior that follow (lines 250-253, "
               "claimed): no result of its own"),
    OutOfScope(264, r"If the error in the probe trial is small, the model should keep using the "
               r"same gating vectors", "the design of the adaptive gating rule (a definition of "
               "the method; its rho_g is claimed at line 748)"),
    OutOfScope(348, r"Our theory so far has revealed when continual learning is difficult",
               SUMMARY),
    OutOfScope(352, r"$\bm{s}_9 = [1, 0, 0, 1]^T$",
               "an example of Sec. 7's task construction (the latent is the digit's 4-bit "
               "binary code): a setting of the experiment, which the toolkit's runs follow "
               "(solvers/pmnist/data.py)"),
    OutOfScope(366, r"In a deep neural network, weight regularization using the Fisher "
               r"information metric is typically computationally expensive",
               "background on deep networks in general (the cost of a full Fisher metric), not "
               "a result of the paper"),
    OutOfScope(371, r"In the context of neuroscience, our results indicate that simple "
               r"non-adaptive activity or plasticity gating mechanisms may not be sufficient",
               "a hedged implication for neuroscience ('may not be sufficient'): the results it "
               "rests on are claimed at lines 241-246 and 269"),
    OutOfScope(375, r"Our theoretical results from a teacher-student model come with limitation "
               r"in direct applicability", "states a limitation: no result"),
    OutOfScope(409, r"Below, we focus on learning of $N_{sess} = 2$ tasks.",
               "a scoping sentence: it states no result; the toolkit's K-task results stand "
               "there as findings beyond the paper (the report's Findings section), not as a "
               "verdict on it"),
    OutOfScope(477, r"D_{\mu} A_{\mu} = U_{\mu} \Sigma_{\mu} V_{\mu}^T",
               "notation: names the singular value decomposition of D A"),
    OutOfScope(548, r"g^{\mu+1}_i", f"eq_def_rho_g (the gate generator) is {DEFINITION}; "
               "the gate overlap it implies is claimed (gating.alpha_tilde)"),
    OutOfScope(555, r"The gating correlation $\rho^g_{\mu}$ is set to zero in the case of random "
               r"task-dependent gating", "defines the random and adaptive gating models by their "
               "gate correlation (a setting)"),
    OutOfScope(675, r"Here, we applied Isserlis' theorem again, then retained the terms up to "
               r"the next-to-leading order", "says how the display above was obtained (a "
               "method); the display is claimed (gating.retention.term2[appendix])"),
    OutOfScope(702, r"The gating level dependence of the transfer and retention performance",
               "a caption's title and panel names: says what Fig. 7 plots; its panels are "
               "counted as panels"),
    OutOfScope(761, r"Thus, ideally the model should adjust the gating level based on the task "
               r"similarity", "a recommendation and a motivation for the averages that follow: "
               "no result"),
    OutOfScope(800, r"\dot{W} (t) = - \eta (W A_{\mu} - B_{\mu} ) (D_{\mu} A_{\mu})^T",
               "defines plasticity gating (the learning rule of the model, not the gradient of "
               "a loss): its fixed point is claimed (plasticity.fixed_point)"),
    OutOfScope(816, r"Input-dependent gating is an another method proposed for efficient "
               r"continual learning", "cites prior work's method (this sentence only)"),
    OutOfScope(829, r"\epsilon[W] = \frac{1}{N_y} \lla \llv B \vs \rrv^2 \rra_{\vs}",
               "the model's mean-squared error (eq_ap_epsilonW's definition) written out for "
               "the student y = W phi(x): a definition"),
    OutOfScope(1357, r"Here, we set the amplitude of the initial weights small to operate the "
               r"learning in the rich regime", "a setting of the network experiment (small "
               "initial weights) with its motivation; the toolkit's runs use it (Figs. 6 and "
               "9's settings table)"),
    OutOfScope(1364, r"From the same argument made in section \ref{subsec_appendix_FIM}, FIM of "
               r"a noise-free model is approximated by the Hessian of the mean squared error",
               "the network experiment's choice of metric (a setting of Sec. 7's method; the "
               "Hessian it uses is derived at lines 1370-1377)"),
    OutOfScope(1418, r"we scaled the regularization term on the weight changes $\Delta W_1$ "
               r"and $\Delta W_2$", "the experiment's normalisation of the regularizer (a "
               "setting); the toolkit's penalties use it (solvers/pmnist/penalties.py: Z_1, "
               "Z_2)"),
    OutOfScope(1433, r"To see the potential effect of different normalization methods used for "
               r"the layer-wise and diagonal approximations",
               "describes what the experiment of Fig. 9E-F varies (a setting); its result is "
               "claimed at line 1434"),
)
"""Every out-of-scope statement, in the order of the paper."""
