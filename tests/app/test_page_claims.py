"""Sentences on the lab pages that state numbers: each is checked against the numbers it
describes, recomputed here from the page's one attn_core call and plain NumPy (or, where
the sentence is about the engine, by running the engine another way)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import lab_results
from attn_core.figures.lab import score_labels
from attn_core.walkthrough import latex_num
from lessons.masks_cost import words as masks_words
from lessons.multi_head import words as mh_words
from lessons.softmax_lab import words as softmax_words
from tests.support.lab_checks import app, page_script
from ui.common import PRESETS


def _run(page: str, **query: str) -> AppTest:
    at = app(page)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# --------------------------------------------------------------------------- masks and cost
# What each sentence claims is checked against the numbers in tests/unit/test_masks_cost_words.py;
# here, that the page shows those sentences for the study its settings make, where they belong.


def _shown(at: AppTest) -> list[str]:
    return [m.value for m in (*at.markdown, *at.caption)]


@pytest.mark.parametrize(
    ("text", "seed"),
    [
        ("The cat sat on the mat.", 0),
        ("The cat, which was black, sat on the mat.", 1),
        ("The animal didn't cross the street because it was too tired.", 1),
    ],
)
def test_masks_page_places_its_sentences_for_its_settings(text, seed):
    at = _run("masks_cost.py", text=text, seed=str(seed))
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    study = lab_results.mask_study(tokens, radius=2, dilation=2, seed=seed)  # the page's call, its defaults
    shown = _shown(at)
    for sentence in (
        masks_words.kv_cache_text(study),
        masks_words.longnet_text(len(tokens), 2),
        masks_words.cost_text(study),
        masks_words.memory_caption(study),
        masks_words.kv_cache_caption(study),
        masks_words.additive_text(study),
        masks_words.agree_text(study),
        masks_words.bilinear_text(study),
    ):
        assert sentence in shown, sentence
    agree = int(np.sum(study.additive.argmax(axis=1) == study.dot.argmax(axis=1)))
    assert agree == round(study.top_agree * len(tokens))


@pytest.mark.parametrize(("step", "sentence"), [("2", "kv_cache_text"), ("4", "longnet_text"), ("5", "cost_text")])
def test_masks_page_says_each_note_in_its_own_section(step, sentence):
    """One section at a time (presenter mode): the KV cache with the causal mask, LongNet with
    the dilated one, the causal saving with the cost."""
    at = AppTest.from_file(page_script("masks_cost.py"), default_timeout=60)
    at.session_state["present"] = True
    at.query_params["step"] = step
    at.run()
    tokens = tuple(ac.tokenize(PRESETS[0], max_tokens=64))
    study = lab_results.mask_study(tokens)
    expected = {
        "kv_cache_text": masks_words.kv_cache_text(study),
        "longnet_text": masks_words.longnet_text(len(tokens), 2),
        "cost_text": masks_words.cost_text(study),
    }
    assert [name for name, text in expected.items() if text in _shown(at)] == [sentence]


def test_the_dilated_mask_is_a_window_with_gaps():
    mask = ac.dilated_mask(12, 2, 2)  # the page's defaults: a window with gaps, the same offsets in every row
    assert all(set(np.flatnonzero(mask[i]) - i) == {-4, -2, 0, 2, 4} for i in range(4, 8))


# --------------------------------------------------------------------------- multi-head


@pytest.mark.parametrize("query", [{}, {"heads": "3", "d_k": "8"}, {"heads": "2", "d_model": "64", "d_k": "4"}])
def test_multi_head_places_its_sentences_for_its_settings(query):
    """The page shows the words module's sentences for the lesson its settings make (the words
    are checked against the numbers in tests/unit/test_multi_head_words.py)."""
    at = _run("multi_head.py", **query)
    H, d_model, d_k = int(query.get("heads", 4)), int(query.get("d_model", 16)), int(query.get("d_k", 4))
    tokens = tuple(ac.tokenize(PRESETS[0], max_tokens=64))
    lesson = lab_results.multi_head_lesson(tokens, d_model=d_model, n_heads=H, d_k=d_k)
    shown = [m.value for m in at.markdown]
    assert mh_words.usual_d_k_text(lesson) in shown and mh_words.heads_text(lesson, causal=False) in shown
    assert mh_words.INTRO in shown
    assert lesson.heads_width == H * d_k and lesson.usual_d_k == (d_model // H if d_model % H == 0 else None)


def test_multi_head_shows_that_d_v_may_differ():
    """Head 1 with a W_v twice as wide: the same weights, a wider output, both checked here
    against a plain softmax of head 1's own scores."""
    text = "The cat sat on the mat."
    at = _run("multi_head.py", step="2")
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    lesson = lab_results.multi_head_lesson(tokens)
    head = lesson.steps.heads[0]
    s = head.q @ head.k.T / np.sqrt(4)
    weights = np.exp(s - s.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(lesson.other_v.weights, weights, atol=1e-15)
    assert lesson.other_v_gap == 0.0 and lesson.other_v.v.shape == (len(tokens), 8)
    np.testing.assert_allclose(lesson.other_v.output, weights @ lesson.other_v.v, atol=1e-14)
    assert mh_words.other_v_text(lesson) in [m.value for m in at.markdown]


# --------------------------------------------------------------------------- softmax lab


@pytest.mark.parametrize(("seed", "m"), [(0, "100"), (3, "1"), (7, "5")])
def test_softmax_lab_jacobian_numbers_are_the_lessons(seed, m):
    """The saturation section's Jacobian line: max |J| at s and at m·s, and the winner's
    p_w(1 − p_w), against J = diag(p) − p pᵀ built here from the page's own weights."""
    at = _run("softmax_lab.py", seed=str(seed), m=m)
    sat = lab_results.softmax_lab(seed=seed, multiplier=float(m)).saturation
    w = int(np.argmax(sat.scores))
    latex = next(x.value for x in at.latex if r"\max_{ij} |J_{ij}|" in x.value)
    for p, jac in ((sat.weights, sat.jacobian), (sat.scaled_weights, sat.scaled_jacobian)):
        by_hand = np.diag(p) - np.outer(p, p)
        np.testing.assert_allclose(jac, by_hand, atol=1e-15)
        assert by_hand[w, w] == pytest.approx(p[w] * (1 - p[w]), abs=1e-15)
    plain, scaled = np.abs(sat.jacobian).max(), np.abs(sat.scaled_jacobian).max()
    assert f"{latex_num(plain, 3)} \\text{{ at }} s \\ \\to\\ {latex_num(scaled, 3)}" in latex
    assert f"{float(m):g}\\,s" in latex
    assert (
        f"p_w(1 - p_w):\\ {latex_num(sat.weights[w] * (1 - sat.weights[w]), 3)} \\ \\to\\ "
        f"{latex_num(sat.scaled_weights[w] * (1 - sat.scaled_weights[w]), 3)}"
    ) in latex
    labels = score_labels(ac.tokenize(PRESETS[0]), softmax_words.N_SCORES)
    assert softmax_words.jacobian_text(sat, labels) in [x.value for x in at.markdown]  # the words' sentence, placed
