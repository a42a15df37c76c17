"""AppTest of the softmax and scaling lab: every control moves the charts and metrics to the
fields of lab_results.softmax_lab that they show (the page's one call; its numbers are checked
against explicit formulas and torch in tests/unit/test_lab_results.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attn_core import lab_results
from tests.support.figdata import decode, figure_by_title, figures
from tests.support.lab_checks import app, assert_finite_figures, drive

PAGE = "softmax_lab.py"
# The page's controls at their defaults (lessons/softmax_lab/page.py), in lab_results.softmax_lab's names.
DEFAULTS = {"n_scores": 8, "seed": 0, "multiplier": 100.0, "T": 8, "dk_seed": 0, "index": 0, "delta": 3.0}


def _lab(**controls: float) -> lab_results.SoftmaxLab:
    """The page's one call, with the page's arguments."""
    return lab_results.softmax_lab(**(DEFAULTS | controls))


def _bars(at, title: str, trace: int = 0) -> np.ndarray:
    return decode(figure_by_title(at, title)["data"][trace]["y"]).astype(np.float64)


def _metric(at, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def _check_saturation(at, seed: int, multiplier: float) -> None:
    sat = _lab(seed=seed, multiplier=multiplier).saturation
    assert sat.multiplier == multiplier
    assert_allclose(_bars(at, "Weights softmax(s)"), sat.weights, rtol=1e-12)
    assert_allclose(_bars(at, "Weights softmax(m·s)"), sat.scaled_weights, rtol=1e-12, atol=1e-300)
    assert _metric(at, "Entropy of softmax(s)") == f"{sat.entropy:.3f} bits"
    assert _metric(at, f"Entropy of softmax({multiplier:g}·s)") == f"{sat.scaled_entropy:.3f} bits"


def test_default_run_matches_attn_core():
    at = app(PAGE).run()
    assert not at.exception
    _check_saturation(at, seed=0, multiplier=100.0)
    assert len(figures(at)) == 6
    # The default multiplier of 100 saturates: one bar holds nearly everything.
    assert _bars(at, "Weights softmax(m·s)").max() > 0.99


@pytest.mark.parametrize(("seed", "multiplier"), [(7, 0.1), (3, 2.0), (42, 100.0)])
def test_seed_and_multiplier_change_the_bars(seed, multiplier):
    at = drive(PAGE, lab_seed=seed, lab_m=multiplier)
    _check_saturation(at, seed=seed, multiplier=multiplier)


@pytest.mark.parametrize(("T", "seed"), [(8, 0), (2, 5), (64, 1)])
def test_dk_study_lines_equal_the_lesson(T, seed):
    at = drive(PAGE, lab_T=T, lab_dk_seed=seed)
    lab = _lab(T=T, dk_seed=seed)
    study = lab.study
    var_fig = figure_by_title(at, "Variance of the scores against d_k")
    ent_fig = figure_by_title(at, "Mean row entropy of the weights against d_k")
    d_ks = decode(var_fig["data"][0]["x"]).astype(int)
    assert d_ks[0] == 1 and d_ks[-1] == 512 and np.all(np.diff(d_ks) > 0)
    assert np.array_equal(d_ks, study.d_k)
    shown = {
        "var_unscaled": decode(var_fig["data"][0]["y"]),
        "var_scaled": decode(var_fig["data"][1]["y"]),
        "entropy_unscaled": decode(ent_fig["data"][0]["y"]),
        "entropy_scaled": decode(ent_fig["data"][1]["y"]),
    }
    for name, line in shown.items():
        assert_allclose(line, getattr(study, name), err_msg=name)
    assert_allclose(decode(ent_fig["data"][2]["y"]), [lab.max_entropy] * 2)
    assert_allclose(decode(ent_fig["data"][2]["y"]), [np.log2(T)] * 2)
    assert var_fig["layout"]["xaxis"]["type"] == "log"
    # The lesson itself, read off the chart: unscaled variance grows with d_k, scaled stays near 1.
    assert shown["var_unscaled"][-1] > 100 * shown["var_unscaled"][0]
    assert np.all(np.abs(shown["var_scaled"] - 1) < 0.2)


@pytest.mark.parametrize(("index", "delta"), [(0, 3.0), (5, 20.0), (7, -10.0), (2, 0.0)])
def test_softmax_competes_sigmoid_does_not(index, delta):
    at = drive(PAGE, lab_raise=index, lab_delta=delta)
    comp = _lab(index=index, delta=delta).competition
    assert (comp.index, comp.delta) == (index, delta)
    assert_allclose(_bars(at, "Softmax weights, before", 0), comp.softmax_before)
    assert_allclose(_bars(at, "Softmax weights, before", 1), comp.softmax_after)
    assert_allclose(_bars(at, "Sigmoid values, before", 0), comp.sigmoid_before)
    assert_allclose(_bars(at, "Sigmoid values, before", 1), comp.sigmoid_after)
    sig_after = _bars(at, "Sigmoid values, before", 1)
    soft_after = _bars(at, "Softmax weights, before", 1)
    others = np.arange(8) != index
    assert_allclose(sig_after[others], _bars(at, "Sigmoid values, before", 0)[others])  # unchanged
    if delta > 0:
        assert np.all(soft_after[others] < _bars(at, "Softmax weights, before", 0)[others])  # they fall
    assert _metric(at, "Sum of softmax weights") == f"{comp.softmax_sum:.4f}" == "1.0000"
    assert _metric(at, "Sum of sigmoid values") == f"{comp.sigmoid_sum:.4f}"
    assert _metric(at, "Sum of sigmoid values") != "1.0000"


def test_extreme_controls_stay_finite():
    at = drive(PAGE, lab_m=100.0, lab_delta=20.0, lab_T=64)
    assert_finite_figures(at)


@pytest.mark.parametrize("seed", [0, 5])
def test_the_winning_key_is_highlighted_in_both_saturation_charts(seed):
    """The key with the largest score (argmax found here from the scores) is the one bar drawn
    in the highlight colour, with its label in bold, in both charts of section 1."""
    at = drive(PAGE, lab_seed=seed)
    winner = int(np.argmax(_lab(seed=seed).saturation.scores))
    for title in ("Weights softmax(s)", "Weights softmax(m·s)"):
        fig = figure_by_title(at, title)
        colours = fig["data"][0]["marker"]["color"]
        assert [n for n, c in enumerate(colours) if c != colours[0 if winner else 1]] == [winner]
        ticks = fig["layout"]["xaxis"]["ticktext"]
        assert [n for n, t in enumerate(ticks) if t.startswith("<b>")] == [winner]
