"""reports/paper.py and reports/finders.py: the paper's source parsed into sections, figures,
display clauses, asserting sentences and figure panels; what is and is not a statement."""
from __future__ import annotations

import pytest

from tasksim.reports.finders import assertion_cue
from tasksim.reports.paper import Paper, load_paper

SOURCE = r"""\newcommand{\tr}{\text{tr}}
\begin{document}
\begin{abstract}
Gating helps. Transfer is optimal at $\alpha = 1$.
\end{abstract}
\section{Model}
We define $x \equiv A s$, where $A \in \Real^{N}$.
It holds that $N_s \ll N_x$. See Fig. 1 for details, e.g. the line.
\begin{align} \label{eq_one}
  a &= b, \\ \label{eq_two}
  c &= d.
\end{align}
\begin{figure}
\caption{(\textbf{A}) Transfer under $\rho_a = 1.0$. The optimum is $\alpha^* = 1$.}
\end{figure}
\subsection{Details}
Retention is significantly below one.
\appendix
\section{Proofs}
\subsection{Lemma}
Thus $\tr[A] = 0$ exactly.
\end{document}
"""


@pytest.fixture
def paper() -> Paper:
    return Paper.from_text(SOURCE)


def test_sections_are_numbered_as_latex_numbers_them(paper):
    names = [s.name for s in paper.sections]
    assert names == ["Abstract", "Sec. 1", "Sec. 1.1", "Appendix A", "Appendix A.1"]
    assert paper.section_of(paper.labels["eq_one"]).name == "Sec. 1"
    assert paper.section_of(len(paper.lines) - 2).name == "Appendix A.1"
    assert paper.section_of(len(paper.lines) - 2).top == "Appendix A"


def test_each_labelled_row_is_its_own_equation(paper):
    equations = {s.label: (s.line, s.end) for s in paper.equations()}
    assert equations == {"eq_one": (9, 9), "eq_two": (10, 12)}  # to the end of the align


def test_asserting_sentences_are_statements_and_definitions_are_not(paper):
    texts = [s.text for s in paper.statements() if s.kind == "sentence"]
    assert "Transfer is optimal at $\\alpha = 1$." in texts
    assert "It holds that $N_s \\ll N_x$." in texts        # not split at "Fig." or "e.g."
    assert "Retention is significantly below one." in texts
    assert "Thus $\\tr[A] = 0$ exactly." in texts
    assert "The optimum is $\\alpha^* = 1$." in texts       # a caption's result
    assert "Gating helps." in texts                          # a trend stated in words
    assert not any(t.startswith("We define") for t in texts)
    assert not any("(\\textbf{A})" in t for t in texts)      # the panel's own statement


def test_every_display_clause_is_a_statement_labelled_or_not():
    text = (r"\begin{document}" "\n" r"\begin{align}" "\n" r"  a &= b \\" "\n"
            r"  &= c, \\ \label{eq_d}" "\n" r"  d &= e, \quad f = g." "\n" r"\end{align}" "\n"
            r"and $$ x = y $$ and \[ u \approx v \]" "\n" r"\end{document}")
    paper = Paper.from_text(text)
    displays = [(s.line, s.end, s.label, s.clause) for s in paper.statements()
                if s.kind == "display"]
    # a chain continued by "&=" is one clause; a labelled row and each side of a \quad another;
    # $$ and \[ displays on one line are its clauses 1 and 2
    assert displays == [(3, 4, "", 1), (5, 5, "eq_d", 1), (5, 5, "eq_d", 2), (7, 7, "", 1),
                        (7, 7, "", 2)]


def test_figure_panels_are_statements_one_per_letter(paper):
    panels = [(s.label, s.line) for s in paper.statements() if s.kind == "figure panel"]
    assert panels == [("Fig. 1A", 14)]
    text = (r"\begin{document}" "\n" r"\begin{figure}" "\n"
            r"\caption{Title. \textbf{(A)} One. (\textbf{C-E}) Two (\textbf{B}) three.}" "\n"
            r"\end{figure}" "\n" r"\end{document}")
    labels = [s.label for s in Paper.from_text(text).statements() if s.kind == "figure panel"]
    assert labels == ["Fig. 1A", "Fig. 1C", "Fig. 1D", "Fig. 1E", "Fig. 1B"]


def test_statements_on_one_line_are_numbered_as_clauses(paper):
    keys = [(s.line, s.clause, s.kind) for s in paper.statements() if s.line == 14]
    assert keys == [(14, 1, "figure panel"), (14, 2, "sentence")]
    assert [s.key for s in paper.statements() if s.line == 4] == ["L4.1", "L4.2"]


def test_figures_and_places(paper):
    (number, first, last), = paper.figures
    assert number == 1 and paper.place(first + 1) == "Fig. 1 caption"


def test_quotes_are_found_whitespace_aside_near_their_line(paper):
    line = next(k for k, t in enumerate(paper.lines, 1) if "significantly" in t)
    assert paper.contains("Retention is   significantly below one", line)
    assert not paper.contains("Retention is significantly below one", line + 10, before=0)


def test_the_paper_s_macros_expand_for_renderers(paper):
    assert paper.expand_macros(r"\tr[W]") == r"\text{tr}[W]"


@pytest.mark.parametrize("sentence, expected", [
    ("the optimum is $\\alpha^* = \\min\\{1, x\\}$.", True),
    ("where $W \\in \\Real^{N}$ is the weight.", False),
    ("Let us denote $m_i \\equiv \\sum_j A_{ij} s_j$.", False),
    ("Here, we develop a model and show it is catastrophic.", True),
    ("Under $(\\rho_a, \\rho_b) = (0.8, 0.2)$.", False),
    ("When the input pixels are permuted, the retention performance remains high.", True),
    ("It contains two additional terms compared to Eq. 3.", True),
    ("Random task-dependent activity gating model.", False),   # 'dependent' is no trend here
    ("Thus, the weight after task 1 and 2 follow", False),      # 'low' only inside 'follow'
])
def test_what_asserts_a_value_comparison_limit_or_trend(sentence, expected):
    assert bool(assertion_cue(sentence)) is expected


def test_the_repository_copy_is_the_paper():
    paper = load_paper()
    assert [s.name for s in paper.sections][:3] == ["Abstract", "Sec. 1", "Sec. 2"]
    assert paper.section_of(paper.labels["eq_epsilon_vanilla"]).name == "Sec. 4"
    assert paper.section_of(paper.labels["eq_AtA_approx"]).name == "Appendix D"
    assert len(paper.figures) == 9


def test_a_missing_paper_is_reported_in_one_line(tmp_path):
    with pytest.raises(FileNotFoundError, match="paper/paper.tex"):
        load_paper(tmp_path / "absent.tex")
