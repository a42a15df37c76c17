"""AppTest of the masks-and-cost page: masks, masked weights, score counts and the other scores,
each chart equal to the field of lab_results.mask_study that it shows (the page's one call; its
numbers are checked against explicit masks, formulas and torch in tests/unit/test_lab_results.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import attn_core as ac
from attn_core import experiments as ex
from attn_core import lab_results
from lessons.masks_cost import words
from tests.support.figdata import decode, figure_by_title, figures, z_matrix
from tests.support.lab_checks import app, drive
from tests.support.quiz_checks import asked, options, reveal
from tests.support.quiz_checks import page as quiz_page
from ui.common import md_escape

PAGE = "masks_cost.py"
DEFAULT = "The cat sat on the mat."
LONG = "The animal didn't cross the street because it was too tired and it slept."
TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}


def _z(at, title: str) -> np.ndarray:
    return z_matrix(figure_by_title(at, title)["data"][0])


def _study(text: str, radius: int = 2, dilation: int = 2, seed: int = 0) -> lab_results.MaskStudy:
    """The page's one call, with the page's arguments."""
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    return lab_results.mask_study(tokens, radius=radius, dilation=dilation, seed=seed)


def _check_masks(at, study: lab_results.MaskStudy) -> None:
    assert not at.exception
    T = len(study.tokens)
    assert [kind for kind, _ in study.runs] == list(TITLES)
    for kind, title in TITLES.items():
        steps = study.steps(kind)
        allowed = np.ones((T, T), dtype=bool) if steps.mask is None else steps.mask
        shown_mask = _z(at, f"{title} mask")
        assert_array_equal(shown_mask, allowed.astype(float), err_msg=kind)
        weights = _z(at, f"{title} weights")
        assert_allclose(weights, steps.weights, atol=1e-12)
        assert np.all(weights[~allowed] == 0), kind
        assert_allclose(weights.sum(axis=1), 1.0)  # every mask keeps the diagonal


def test_default_run():
    at = app(PAGE).run()
    _check_masks(at, _study(DEFAULT, radius=2, dilation=2))
    assert not np.all(_z(at, "Causal mask") == 1)  # the masks really differ from global


@pytest.mark.parametrize(("radius", "dilation"), [(0, 1), (1, 3), (3, 2), (8, 4)])
def test_radius_and_dilation(radius, dilation):
    at = drive(PAGE, masks_text=LONG, masks_radius=radius, masks_dilation=dilation)
    study = _study(LONG, radius=radius, dilation=dilation)
    _check_masks(at, study)
    counts_fig = figure_by_title(at, "Scores computed against sequence length T")
    T_values = decode(counts_fig["data"][0]["x"]).astype(int)
    assert T_values[0] == 8 and T_values[-1] == 512
    assert_array_equal(T_values, study.T_values)
    for trace, kind in zip(counts_fig["data"], ex.MASK_KINDS, strict=True):
        assert trace["name"] == TITLES[kind]
        assert_array_equal(decode(trace["x"]), study.T_values)
        assert_array_equal(decode(trace["y"]), study.counts[kind])
    assert_array_equal(decode(counts_fig["data"][0]["y"]), T_values**2)  # global: T²
    memory = figure_by_title(at, "Memory of one float32 score matrix")["data"][0]
    assert_array_equal(decode(memory["y"]), study.memory)
    assert_array_equal(decode(memory["y"]), 4 * T_values.astype(np.int64) ** 2)


@pytest.mark.parametrize("seed", [0, 11])
def test_additive_and_bilinear(seed):
    at = drive(PAGE, masks_seed=seed)
    study = _study(DEFAULT, radius=2, dilation=2, seed=seed)
    _check_masks(at, study)
    assert_allclose(_z(at, "Additive (tanh) scores"), study.additive, atol=1e-12)
    assert_allclose(_z(at, "Scaled dot-product scores"), study.dot, atol=1e-12)
    assert_allclose(_z(at, "Bilinear form W_q W_k"), study.w_qk, atol=1e-12)
    assert study.bilinear_diff < 1e-10
    shown = next(m.value for m in at.metric if m.label.startswith("Max |bilinear"))
    assert shown == f"{study.bilinear_diff:.2e}"


# --- predict first ---------------------------------------------------------------------------


def _window_count(T: int, radius: int) -> int:
    """Pairs (i, j) with |i - j| <= r, counted one by one."""
    return sum(abs(i - j) <= radius for i in range(T) for j in range(T))


def _window_titles(at) -> list[str]:
    return [f["layout"]["title"]["text"] for f in figures(at) if "Sliding window" in f["layout"]["title"]["text"]]


def test_predict_first_is_off_by_default():
    at = quiz_page(PAGE)
    assert asked(at) == {} and len(_window_titles(at)) == 2


@pytest.mark.parametrize(
    ("text", "radius"),
    [(DEFAULT, 2), (LONG, 0), ("a b", 1), ("the the the", 8)],
    ids=["edges", "radius-0", "two-tokens", "repeated-words-wide"],
)
def test_predict_first_asks_how_many_scores_the_window_keeps(text, radius):
    """The window's section asks for its count among distinct wrong counts, and hides the count, its
    mask and its weights until the reveal; the answer is counted pair by pair."""
    at = quiz_page(PAGE, predict="1", text=text, radius=str(radius))
    T = len(ac.tokenize(text))
    kept, naive = _window_count(T, radius), T * (2 * radius + 1)
    assert asked(at) == {"masks_quiz_window": "Sliding window"}
    counts = options(at, "masks_quiz_window")
    assert str(kept) in counts and all(0 < int(n) <= T * T for n in counts)
    if naive <= T * T and naive != kept:
        assert str(naive) in counts  # the count that forgets the edges is offered
    assert _window_titles(at) == []
    assert not any(f"{kept} \\text{{ of }} {T}" in x.value and "r =" in x.value for x in at.latex)
    others = ("Global", "Causal") if radius == 0 else ("Global", "Causal", "Dilated")  # r = 0: dilated = window
    assert [f"{title} mask (1 = may attend)" for title in others] == [
        t for t in (f["layout"]["title"]["text"] for f in figures(at)) if t.endswith("(1 = may attend)")
    ]

    answer = reveal(at, "masks_quiz_window", str(kept))
    assert f"with the share of the scores kept = {kept / (T * T):.3f}" in answer
    assert md_escape(words.window_question(T, radius, kept).explain) in answer  # its numbers: test_masks_cost_words
    assert _window_titles(at) == ["Sliding window mask (1 = may attend)", "Sliding window weights"]
    assert_array_equal(_z(at, "Sliding window mask"), ex.make_mask("window", T, radius=radius).astype(float))
    assert _z(at, "Sliding window mask").sum() == kept


@pytest.mark.parametrize("present", [False, True])
def test_a_dilated_mask_equal_to_the_window_waits_for_the_reveal_too(present):
    """With dilation 1 the dilated mask is the window: its count and charts would answer the
    question, so they wait for the reveal (in presenter mode the note names the window's section)."""
    query = {"predict": "1", "dilation": "1"} | ({"step": "4"} if present else {})
    at = quiz_page(PAGE, present=present, **query)
    assert not [f for f in figures(at) if "Dilated" in f["layout"]["title"]["text"]]
    elsewhere = f" on section {list(words.SECTIONS).index('window') + 1}" if present else ""  # the question's place
    assert words.dilated_hidden_note(elsewhere) in [i.value for i in at.info]
    if not present:
        T = len(ac.tokenize(DEFAULT))
        reveal(at, "masks_quiz_window", str(_window_count(T, 2)))
        assert_array_equal(_z(at, "Dilated mask"), _z(at, "Sliding window mask"))


def test_predict_first_has_no_question_for_one_token():
    at = quiz_page(PAGE, predict="1", text="Hi")
    assert asked(at) == {}
    assert words.NO_WINDOW_QUESTION in [c.value for c in at.caption]
    assert len(_window_titles(at)) == 2  # nothing is hidden when nothing is asked


@pytest.mark.parametrize("step", ["1", "2", "3", "4", "5", "6"])
def test_presenter_mode_asks_only_in_the_window_section(step):
    at = quiz_page(PAGE, present=True, predict="1", step=step)
    expected = {"masks_quiz_window": f"## **Section 3 of 6** · {words.SECTIONS['window']}"}  # the progress line
    assert asked(at) == (expected if step == "3" else {})
