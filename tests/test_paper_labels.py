"""The paper's labels numbered as LaTeX numbers them, so that a quote reads "Fig. 7", not
"fig_supp_phase"."""
import pytest

from tasksim.reports.paper import load_paper
from tasksim.reports.paper_labels import label_numbers, reference_resolver


@pytest.fixture(scope="module")
def numbers():
    return label_numbers(load_paper())


def test_figures_are_numbered_as_the_prose_cites_them(numbers):
    # the prose says "Fig. 3D" for the soft-thresholding panel (line 271), inside the third
    # figure environment; the phase diagram of Appendix B is the seventh figure (Fig. 7), the
    # permuted-MNIST figure the ninth
    paper = load_paper()
    assert "Fig. 3D" in paper.line(271) and paper.figures[2][1] < 271
    assert [numbers[k].text for k in ("fig_supp_phase", "fig_supp_euc", "fig_supp_pmnist")] \
        == ["7", "8", "9"]


def test_equations_count_rows_and_subequations(numbers):
    # Eqs. 1-4 in Sec. 3-4; Sec. 5.1's pair is one subequations group (5a, 5b)
    assert numbers["eq_generative_model"].text == "1"
    assert numbers["eq_epsilon_vanilla"].text == "4"
    assert (numbers["eq_rcg_epsilon_TF"].text, numbers["eq_rcg_epsilon_RT"].text) == ("5a", "5b")
    assert all(n.kind == "equation" for k, n in numbers.items() if k.startswith("eq_"))


def test_sections_of_the_appendix_are_lettered(numbers):
    assert numbers["sec_appendix_prob_set"].text == "A"
    assert numbers["subsec_appndix_input_soft_thresholding"].text == "B.3"
    assert numbers["subsec_appendix_FIM"].text == "C.2"


def test_every_label_the_paper_cites_is_resolved():
    paper = load_paper()
    resolve = reference_resolver(paper)
    import re
    cited = set(re.findall(r"\\(?:eq|c)?ref\{([^{}]*)\}", paper.text))
    assert cited and cited <= set(label_numbers(paper))
    text = resolve(paper.text)
    assert "\\ref{" not in text and "\\eqref{" not in text
    assert "(Fig. 7" in resolve(paper.line(730))
    assert "Appendix B.3" in resolve(paper.line(271))
