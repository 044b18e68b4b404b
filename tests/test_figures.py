"""The report's figures (reports/figures*.py): a quick build writes every PNG it embeds, twice
gives the same bytes, captions state what was computed; the helpers behind them."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from tasksim.derivations.registry import all_claims
from tasksim.derivations.symbols import gamma, rho_a, rho_b
from tasksim.reports import figures_theory as theory
from tasksim.reports.figures import BUILDERS, build_figures
from tasksim.reports.figures_config import FigureConfig, midpoint_grid, panel_seed
from tasksim.reports.figures_numerics import deviation, fit_power_law
from tasksim.reports.figures_regularization import optimal_gamma_retention_map

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
IMAGE = re.compile(r"!\[[^\]]*\]\((figures/([^)]+\.png))\)")


def _build(directory: Path) -> tuple[list[str], list[str]]:
    messages: list[str] = []
    sections, _ = build_figures(directory, quick=True, seed=0, progress=messages.append)
    return sections, messages


@pytest.fixture(scope="module")
def quick_build(tmp_path_factory) -> tuple[Path, list[str], list[str]]:
    out = tmp_path_factory.mktemp("report") / "figures"  # created by build_figures
    sections, messages = _build(out)
    return out, sections, messages


def _caption(section: str) -> str:
    """A figure section without its heading, image and verdict."""
    return section.split("\n\n", 2)[2].split("** ", 1)[1]


def test_quick_build_writes_every_png_it_embeds_with_its_data_and_nothing_else(quick_build):
    out, sections, _ = quick_build
    embedded = [m.group(2) for s in sections for m in IMAGE.finditer(s)]
    assert len(embedded) == len(set(embedded)) >= len(BUILDERS)
    written = sorted(p.name for p in out.iterdir())
    data_files = [name[:-len(".png")] + ".csv.gz" for name in embedded]
    assert written == sorted(embedded + data_files)
    for name in embedded:
        data = (out / name).read_bytes()
        assert data.startswith(PNG_SIGNATURE)
        assert b"Software" not in data and b"matplotlib" not in data.lower()


def test_every_figure_section_embeds_one_image_by_a_relative_path(quick_build):
    _, sections, _ = quick_build
    figure_sections = [s for s in sections if IMAGE.search(s)]
    assert len(figure_sections) == len(sections) - 1  # the first section is the preamble
    for s in figure_sections:
        assert len(IMAGE.findall(s)) == 1
        assert s.startswith("### ")


def test_building_twice_gives_identical_bytes(quick_build, tmp_path):
    out, sections, _ = quick_build
    again, _ = _build(tmp_path / "figures")
    assert again == sections
    for path in out.iterdir():
        assert (tmp_path / "figures" / path.name).read_bytes() == path.read_bytes(), path.name


def _network(section: str) -> bool:
    """A section of the permuted-MNIST network (Figs. 6, 9): no linear-model generator and no
    registered claim to cite (the Sec. 7 statements are checked by their own test below)."""
    return "permuted MNIST" in section.splitlines()[0]


def test_captions_state_sizes_seeds_and_generator(quick_build):
    _, sections, _ = quick_build
    quick = FigureConfig.quick()
    for s in sections[1:]:
        if "theory only" in _caption(s).split("**")[1] or _network(s):
            continue
        assert re.search(r"Nx = \d+", s) or re.search(r"Nx/Ns", s), s[:80]
        assert "seed" in s, s[:80]
        assert "generator" in s, s[:80]
    joined = "\n".join(sections)
    assert quick.sizes() in joined
    assert f"Nx = {quick.soft_nx}, Ns = {quick.soft_ns}" in joined  # soft-threshold sizes


def test_captions_cite_registered_claims_and_report_deviations(quick_build):
    _, sections, _ = quick_build
    ids = {c.id for c in all_claims()}
    for s in sections[1:]:
        if _network(s):
            continue
        cited = set(re.findall(r"`([a-z_]+(?:\.[A-Za-z0-9_\[\]]+)+)`", s))
        assert cited, s[:80]
        assert cited <= ids, cited - ids
    numeric = [s for s in sections[1:] if "numerics" in s]
    assert all("largest |numerics - theory|" in s or "slope" in s for s in numeric
               if "theory only" not in _caption(s).split("**")[1])


def test_every_figure_leads_its_caption_with_what_it_measures(quick_build):
    """A figure's own numbers lead its caption, labelled as a measurement: the verdicts on the
    paper's statements come from the registry, never from a figure."""
    _, sections, _ = quick_build
    for s in sections[1:]:
        body = s.split("\n\n", 2)[2]
        assert re.match(r"\*\*Measured here: .{40,}?\*\* \*\*", body, re.DOTALL), body[:120]
        assert "**Verdict" not in body


def test_network_sections_state_data_protocol_seeds_and_a_verdict_on_each_statement(quick_build):
    """Figs. 6 and 9 are drawn from the stored grids (results/): each section states the data
    set, the protocol and the seeds, and a verdict word for each Sec. 7 statement it shows, or
    the command that computes a grid not stored."""
    from tasksim.reports.pmnist_predictions import VERDICTS

    _, sections, _ = quick_build
    network = [s for s in sections[1:] if _network(s)]
    assert [s.splitlines()[0] for s in network] == [
        "### Fig. 6A, B: permuted MNIST, vanilla network",
        "### Fig. 6C, D: permuted MNIST, activity gating",
        "### Fig. 6E-H: permuted MNIST, weight regularization",
        "### Fig. 9A-F: permuted MNIST, learning curves, long training, per-layer amplitudes"]
    lines = {0: (357, 358, 359, 360, 372), 1: (363, 364), 2: (366, 371), 3: (361, 1361, 1434)}
    words = "|".join(w.upper() for w in VERDICTS)
    for k, s in enumerate(network):
        verdict = s.split("**Measured here: ")[1].split("** **")[0]
        if "no stored runs (tasksim pmnist-grid" in verdict:
            continue
        for line in lines[k]:
            assert re.search(rf"line {line} \([a-z_]+\), [a-z0-9-]+: ({words}): ", verdict), line
        assert "mnist-5k" in s and "Nh = " in s and "batch" in s and "seeds" in s


def test_progress_reports_every_builder(quick_build):
    _, _, messages = quick_build
    for name, _ in BUILDERS:
        assert f"figures: building {name}" in messages


def test_bad_seed_is_a_value_error_naming_seed(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        build_figures(tmp_path, quick=True, seed=-1, progress=lambda m: None)
    with pytest.raises(ValueError, match="seed"):
        panel_seed(True, "fig1")


def test_panel_seeds_depend_on_root_and_name_only():
    a = panel_seed(3, "fig1.C").generate_state(4)
    assert (a == panel_seed(3, "fig1.C").generate_state(4)).all()
    assert not (a == panel_seed(4, "fig1.C").generate_state(4)).all()
    assert not (a == panel_seed(3, "fig1.E").generate_state(4)).all()


def test_theory_curves_are_the_leading_order_of_the_derived_claims():
    transfer = theory.curve("vanilla.transfer", (rho_a, rho_b))
    derived = sp.lambdify((rho_a, rho_b), theory.leading("vanilla.transfer"))
    a, b = np.meshgrid(np.linspace(0, 1, 7), np.linspace(0, 1, 5))
    assert np.allclose(transfer(a, b), derived(a, b))
    constant = theory.curve("fisher.retention", (rho_a, rho_b))(a, b)
    assert constant.shape == a.shape and (constant == float(theory.leading("fisher.retention"))).all()
    with pytest.raises(KeyError, match="no claim"):
        theory.claim("no.such.claim")


def test_optimal_gamma_map_agrees_with_the_derivation_module():
    from tasksim.derivations.euclidean import optimal_gamma_retention

    for a, b in ((1.0, 0.0), (0.3, 0.7), (0.8, 0.5), (0.0, 0.5)):
        g, best = optimal_gamma_retention_map(np.array([a]), np.array([b]))
        assert g[0] == pytest.approx(optimal_gamma_retention(a, b), abs=1e-9)
        R = theory.curve("euclidean.retention", (rho_a, rho_b, gamma))
        grid = np.linspace(0, 1, 20001)
        assert best[0] >= R(a, b, grid).max() - 1e-12


def test_maximise_polynomial_handles_degree_drops_and_interval_ends():
    x, p = sp.symbols("x p")
    arg, best = theory.maximise_polynomial(p * x**3 - x, x, (p,),
                                           (np.array([0.0, 1.0, -1.0]),), (0.0, 1.0))
    # p = 0: -x, max at 0; p = 1: x^3 - x, max at an end (both 0: the upper end wins);
    # p = -1: -x^3 - x, max at 0
    assert arg.tolist() == [0.0, 1.0, 0.0]
    assert np.allclose(best, [0.0, 0.0, 0.0])


def test_stationary_curves_find_the_retention_extrema_of_fig_1h():
    curves = theory.stationary_curves(theory.leading("vanilla.retention"), rho_a, rho_b)
    at_one = sorted(float(phi(np.array(1.0))) for _, phi in curves)
    assert at_one == pytest.approx([0.5, 1.0])  # minimum at rho_a = 1/2, maximum at 1
    below = [float(phi(np.array(0.9))) for _, phi in curves]
    assert all(np.isnan(v) for v in below)  # no real extremum for 9 rho_b^2 < 8


def test_region_mask_matches_the_derived_region_at_rational_points():
    region = theory.derived("phase_diagram.rising_region")
    mask = theory.region_mask(region, (rho_a, rho_b))
    for a, b in ((sp.Rational(9, 10), 1), (sp.Rational(3, 10), sp.Rational(4, 5)),
                 (sp.Rational(4, 5), sp.Rational(3, 10)), (sp.Rational(1, 2), sp.Rational(99, 100))):
        truth = bool(region.subs({rho_a: a, rho_b: b}))
        assert bool(mask(np.array(float(a)), np.array(float(b)))) == truth


def test_power_law_fit_recovers_the_exponent_and_skips_points_in_the_noise():
    x = np.geomspace(1e-3, 0.25, 9)
    dev = 0.4 * x**1.0
    sem = np.full_like(x, 1e-4)
    noisy = dev.copy()
    noisy[0] = 2e-5  # below 3 standard errors: must not enter the fit
    law = fit_power_law(x, noisy, sem)
    assert law is not None and not law.used[0]
    assert law.slope == pytest.approx(1.0, abs=1e-9)
    assert law.prefactor == pytest.approx(0.4, rel=1e-9)
    assert fit_power_law(x[:2], dev[:2], sem[:2]) is None


def test_deviation_summary_ignores_nan_and_reports_standard_errors():
    d = deviation(np.array([0.0, np.nan, 1.0]), np.array([0.1, 0.0, 0.7]),
                  np.array([0.1, 0.1, 0.1]))
    assert d.where == 2 and d.max_abs == pytest.approx(0.3)
    assert d.z_there == pytest.approx(3.0) and d.max_z == pytest.approx(3.0)
    with pytest.raises(ValueError, match="no finite"):
        deviation(np.array([np.nan]), np.array([0.0]))
    rounding = deviation(np.array([1.0 + 2e-16]), np.array([1.0]), np.array([1e-17]))
    assert rounding.z_there == 0.0  # a rounding-level difference is no deviation


def test_midpoint_grid_averages_polynomials_of_degree_one_exactly():
    a, b = midpoint_grid(5)
    assert len(a) == 25
    assert np.mean(2 * a + 3 * b - 1) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="side"):
        midpoint_grid(0)


def test_fig1b_states_how_far_gd_lies_from_the_theory_in_standard_errors():
    """Referee 19: panel B's transfer 0.213 +- 0.017 against 0.25 is 2.2 standard errors off;
    the caption says so with its numbers instead of quoting the other panels' agreement."""
    from tasksim.reports.figures_vanilla import _gd_phrase

    epochs, seeds = 2, 4
    curves = np.zeros((seeds, 2 * epochs + 1, 2))
    curves[:, 0, :] = 1.0
    transfer = np.array([0.20, 0.22, 0.24, 0.18])  # mean 0.21, se 0.0129
    curves[:, 1:, 1] = (1.0 - transfer)[:, None]
    curves[:, epochs + 1:, 1] = 0.0
    curves[:, 1:epochs + 1, 0] = 0.0
    curves[:, epochs + 1:, 0] = 0.2  # retention 0.8 exactly
    phrase = _gd_phrase(curves, epochs, 0.25, 0.8, None, [])
    se = transfer.std(ddof=1) / 2
    assert f"transfer 0.21 +- {se:.3g} (standard error, 4 seeds), " \
           f"{abs(0.21 - 0.25) / se:.2g} standard errors from the leading order 0.25" in phrase
    assert phrase.startswith("GD has converged within each task (error 0 at its last step)")
    curves[:, epochs, 0] = 0.5  # task 1 still being learned at its last step
    assert _gd_phrase(curves, epochs, 0.25, 0.8, None, []).startswith("GD has not converged")


def test_an_average_panel_draws_each_pairs_tasks_once_for_every_x_value():
    from tasksim.reports.figures_numerics import prior_average_sweep
    from tasksim.solvers.linear_models import solve
    from tasksim.solvers.metrics import error_matrix, transfer_retention
    from tasksim.solvers.rng import as_generator
    from tasksim.solvers.sweep import sample_seed
    from tasksim.solvers.tasks import draw_tasks

    root = panel_seed(0, "averages.test")
    est = prior_average_sweep("euclidean", "gamma", (0.3, 1.0), 2, nx=80, ns=4, ny=3,
                              root=root)
    # gamma = 1 is vanilla learning: on the pair's own tasks (child 0 of pair i's seed) the
    # vanilla fixed point gives the same numbers at every pair
    a, b = midpoint_grid(2)
    for i, (ra, rb) in enumerate(zip(a, b)):
        child = sample_seed(root, i, 0).spawn(1)[0]
        tasks = draw_tasks(nx=80, ns=4, ny=3, rho_a=float(ra), rho_b=float(rb),
                           seed=as_generator(child))
        tf, rt = transfer_retention(error_matrix(solve("vanilla", tasks), float(rb)))
        assert est.mean("transfer")[4 + i] == pytest.approx(float(tf[0]), abs=1e-12)
        assert est.mean("retention")[4 + i] == pytest.approx(float(rt[0]), abs=1e-12)
    # and the two x values differ (gamma = 0.3 regularizes)
    assert not np.allclose(est.mean("transfer")[:4], est.mean("transfer")[4:])


def test_an_average_panel_refuses_an_x_that_is_not_a_level():
    from tasksim.reports.figures_numerics import prior_average_sweep

    with pytest.raises(ValueError, match="x_name"):
        prior_average_sweep("euclidean", "lam", (0.5,), 2, nx=80, ns=4, ny=3, root=0)


def test_adaptive_and_random_gating_are_compared_on_the_same_tasks(quick_build):
    """Fig. 3A: adaptive minus random gating is paired (the same panel seed: the same tasks,
    first gates and drawn readouts at every pair), and its verdict says so (referee 24 m1,
    25 n1): at alpha = 1, where the two are one model, the difference is 0."""
    _, sections, _ = quick_build
    fig3 = next(s for s in sections if "Fig. 3" in s.split("\n", 1)[0])
    assert "standard errors of the paired gain" in fig3
    assert ("both on the same tasks, first gates and drawn readouts at every pair, so that at "
            "alpha = 1, where the two are one model, the difference is 0") in fig3


def test_scored_on_the_drawn_readouts_random_gating_at_alpha_one_is_adaptive_gating():
    """The control of Fig. 3A's comparison: with ``score="drawn"`` random gating is scored on
    the readouts adaptive gating draws, so at alpha = 1 (no gate) the two agree exactly on
    every pair; averaged over B (the default), random gating differs by the readout draw."""
    from tasksim.reports.figures_numerics import prior_average_sweep

    def run(model, score="averaged"):
        return prior_average_sweep(model, "alpha", (0.5, 1.0), 2, nx=80, ns=4, ny=3,
                                   root=panel_seed(0, "averages.test"), score=score)

    adaptive, drawn, averaged = (run("adaptive-gating"), run("random-gating", "drawn"),
                                 run("random-gating"))
    for which in ("transfer", "retention"):
        assert np.array_equal(adaptive.mean(which)[4:], drawn.mean(which)[4:])
        assert not np.allclose(adaptive.mean(which)[4:], averaged.mean(which)[4:])
    with pytest.raises(ValueError, match="score"):
        run("random-gating", "expected")


def test_fig2_says_on_which_lines_the_retention_falls_with_alpha():
    """REFEREE30 m1: at rho_a = 1 the leading-order retention falls with alpha for rho_b < 1,
    while on the line rho_b = 1 it dips and rises back (Fig. 7's region); the sentence is
    computed from the curves, never a fixed 'for every rho_b'."""
    from tasksim.derivations.symbols import alpha
    from tasksim.reports.figures_gating import _retention_trend

    R = theory.curve("gating.retention.random", (rho_a, rho_b, alpha))
    text = _retention_trend(R, np.linspace(0.01, 1, 200))
    assert text.startswith("the retention falls as alpha grows for rho_b = 0, 0.25, 0.5, 0.75,")
    assert "rises again after a dip for rho_b = 1 (lowest at alpha = 0.50)" in text
    falling = _retention_trend(lambda a, b, x: 1.0 - x, np.linspace(0.01, 1, 20))
    assert falling == "the retention falls as alpha grows for every rho_b"


def test_a_figure_with_a_panel_that_draws_nothing_is_not_saved(tmp_path):
    """REFEREE30 n5: Fig. 4 was made with five panels and drew four; saving refuses that."""
    from tasksim.reports.figures_plot import new_figure, save_png

    fig, ax = new_figure(2, (4.0, 2.0))
    ax[0].plot([0, 1], [0, 1])
    with pytest.raises(ValueError, match=r"axes \[1\] of the figure draw nothing"):
        save_png(fig, tmp_path / "f.png", dpi=50)
    ax[1].plot([0, 1], [1, 0])
    assert save_png(fig, tmp_path / "f.png", dpi=50).is_file()


def test_fig3d_states_the_alpha_dependence_paired_over_the_same_pairs():
    """REFEREE30 m6: Fig. 3D's bars are the prior's spread; the caption gives each level
    minus alpha = 1 on the same pairs, whose standard error is that of the differences."""
    from tasksim.reports.figures_gating import _paired_against_alpha_one

    values = np.array([[1.0, 2.0, 3.0, 4.0], [1.1, 2.1, 3.1, 4.3]])  # levels 0.3 and 1
    text = _paired_against_alpha_one(values, np.array([0.3, 1.0]))
    assert text == "-0.15 +- 0.05 at alpha = 0.3"
    assert _paired_against_alpha_one(values, np.array([0.3, 0.5])).startswith("not measured")


def test_fig3d_names_its_reference_lines_that_coincide():
    """REFEREE30 n4: with the diagonal kept the derived retention is rho_a (2 rho_b - rho_a),
    the vanilla transfer: the caption says their lines lie on one another."""
    from tasksim.reports.figures_gating import _coinciding_lines

    a, b = midpoint_grid(4)
    vanilla = {w: theory.curve(f"vanilla.{w}", (rho_a, rho_b))
               for w in ("transfer", "retention")}
    diagonal = {w: theory.curve(f"soft_threshold.{w}_with_diagonal", (rho_a, rho_b))
                for w in ("transfer", "retention")}
    text = _coinciding_lines(vanilla, diagonal, a, b)
    assert "the derived retention with the diagonal kept" in text
    assert "equal the vanilla transfer on these pairs (0.172)" in text
    moved = {"transfer": lambda x, y: 0 * x + 9.0, "retention": diagonal["retention"]}
    assert _coinciding_lines(vanilla, {**diagonal, **moved}, a, b).startswith(
        "the derived retention with the diagonal kept equals the vanilla transfer")
    apart = {"transfer": moved["transfer"], "retention": lambda x, y: 0 * x - 9.0}
    assert _coinciding_lines(vanilla, apart, a, b) == ""


def test_unlabelled_markers_take_the_name_of_their_panel_s_curve_of_the_same_colour():
    """REFEREE30 n6: a CSV row names its series; markers drawn in the colour of one labelled
    theory line are that line's numerics, otherwise they stay 'points k'."""
    from tasksim.reports.figures_plot import (figure_data_csv, new_figure, numeric_points,
                                              theory_line)

    fig, ax = new_figure(1, (3.0, 2.0))
    x = np.array([0.0, 1.0])
    theory_line(ax[0], x, x, "C1", label="rho_b = 0.5")
    theory_line(ax[0], x, 1 - x, "C2", label="rho_b = 1")
    numeric_points(ax[0], x, x, np.array([0.1, 0.1]), "C1")
    numeric_points(ax[0], x, x, np.array([0.1, 0.1]), "C3")
    series = [row.split(",")[3] for row in figure_data_csv(fig).splitlines()
              if row.startswith("axes 1") and ",points," in row]
    assert series == ["rho_b = 0.5 (numerics)"] * 2 + ["points 2"] * 2
