"""AppTest of the cross-attention page: T_q x T_k heatmaps equal attention_steps(x_q, ..., x_kv=x_kv)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attn_core as ac
from attn_core import lab_results
from attn_core.figures import token_labels
from lessons.cross_attention import words
from tests.support.figdata import figure_by_title, figures, z_matrix
from tests.support.lab_checks import app, drive, ticks
from tests.support.quiz_checks import asked, options, reveal
from tests.support.quiz_checks import page as quiz_page
from ui.common import md_escape

PAGE = "cross_attention.py"
SOURCE = "The cat sat on the mat."
TARGET = "Le chat s'est assis sur le tapis."


def _engine(q_text: str, kv_text: str, d_model: int = 16, d_k: int = 4, seed: int = 0) -> ac.AttentionSteps:
    q, kv = tuple(ac.tokenize(q_text, max_tokens=64)), tuple(ac.tokenize(kv_text, max_tokens=64))
    return lab_results.cross_lesson(kv, q, d_model=d_model, d_k=d_k, seed=seed).steps


def _z(at, title: str) -> np.ndarray:
    return z_matrix(figure_by_title(at, title)["data"][0])


def _check(at, q_text: str, kv_text: str, **sizes: int) -> None:
    assert not at.exception
    steps = _engine(q_text, kv_text, **sizes)
    T_q, T_k = len(ac.tokenize(q_text)), len(ac.tokenize(kv_text))
    for title, expected in (
        ("Cross-attention scores", steps.scaled),
        ("Cross-attention weights", steps.weights),
        ("Queries Q", steps.q),
        ("Keys K", steps.k),
        ("Values V", steps.v),
        ("Cross-attention output", steps.output),
    ):
        assert_allclose(_z(at, title), expected, atol=1e-12, err_msg=title)
    assert _z(at, "Cross-attention weights").shape == (T_q, T_k)
    assert_allclose(_z(at, "Cross-attention weights").sum(axis=1), 1.0)
    weights = figure_by_title(at, "Cross-attention weights")
    assert ticks(weights, "y") == token_labels(ac.tokenize(q_text))  # rows = query tokens
    assert ticks(weights, "x") == token_labels(ac.tokenize(kv_text))  # cols = key tokens


def test_default_queries_from_target():
    at = app(PAGE).run()
    _check(at, TARGET, SOURCE)
    T_q, T_k = _z(at, "Cross-attention weights").shape
    assert (T_q, T_k) == (len(ac.tokenize(TARGET)), len(ac.tokenize(SOURCE))) and T_q != T_k  # rectangular


def test_changing_either_sentence_and_swapping():
    at = app(PAGE).run()
    at.text_input(key="cross_source").input("I like green tea very much.")
    at.run()
    _check(at, TARGET, "I like green tea very much.")
    at.text_input(key="cross_target").input("J'aime le thé.")
    at.run()
    _check(at, "J'aime le thé.", "I like green tea very much.")
    assert _z(at, "Cross-attention scores").shape == (4, 7)
    at.toggle(key="cross_swap").set_value(True)
    at.run()
    _check(at, "I like green tea very much.", "J'aime le thé.")
    assert _z(at, "Cross-attention scores").shape == (7, 4)


def test_presets_fill_both_boxes():
    at = drive(PAGE, cross_source_preset="Where is the train station?", cross_target_preset="Où est la gare ?")
    _check(at, "Où est la gare ?", "Where is the train station?")


@pytest.mark.parametrize(("d_model", "d_k", "seed"), [(4, 1, 0), (64, 32, 7), (8, 16, 2)])
def test_sizes_and_seed(d_model, d_k, seed):
    at = drive(PAGE, cross_d_model=d_model, cross_d_k=d_k, cross_seed=seed)
    _check(at, TARGET, SOURCE, d_model=d_model, d_k=d_k, seed=seed)


@pytest.mark.parametrize("emptied", ["cross_source", "cross_target"])
def test_an_empty_box_hides_no_other_input(emptied):
    """Clearing one sentence (to type a new one) shows its message under that box, and every
    other widget stays on the page: the other box, the swap switch and the sliders."""

    def inputs(at) -> set[str]:  # the page's own widgets (a chart's table switch goes with its chart)
        kinds = ("text_input", "toggle", "select_slider", "number_input", "selectbox")
        return {w.key for kind in kinds for w in getattr(at, kind) if not w.key.endswith("_table")}

    at = app(PAGE).run()
    keys = inputs(at)
    assert {"cross_source", "cross_target", "cross_swap", "cross_d_model", "cross_d_k", "cross_seed"} <= keys
    at.text_input(key=emptied).set_value("").run()
    assert not at.exception
    assert any("empty" in i.value for i in at.info)
    assert inputs(at) == keys
    assert not figures(at)


# --- predict first ---------------------------------------------------------------------------

HIDDEN_TITLES = ("Cross-attention scores", "Cross-attention weights", "Cross-attention output")


def _titles(at) -> list[str]:
    return [f["layout"]["title"]["text"] for f in figures(at)]


def test_predict_first_is_off_by_default():
    at = quiz_page(PAGE)
    assert asked(at) == {} and len([t for t in _titles(at) if t.startswith(HIDDEN_TITLES)]) == 3


@pytest.mark.parametrize(
    ("source", "target", "swap"),
    [(SOURCE, TARGET, False), (SOURCE, TARGET, True), ("Hi there", "Yo", False), ("the the the", "le le", False)],
    ids=["default", "swapped", "two-and-one-token", "repeated-words"],
)
def test_predict_first_asks_the_shape_of_the_weights(source, target, swap):
    """Section 2 asks for the weights' shape among distinct wrong shapes (its transpose among them)
    and hides the scores, the weights and the output until the reveal; the answer is the shape of
    the engine's weights."""
    query = {"predict": "1", "source": source, "target": target} | ({"swap": "1"} if swap else {})
    at = quiz_page(PAGE, **query)
    q_text, kv_text = (source, target) if swap else (target, source)
    steps = _engine(q_text, kv_text)
    T_q, T_k = steps.weights.shape
    assert (T_q, T_k) == (len(ac.tokenize(q_text)), len(ac.tokenize(kv_text)))
    assert asked(at) == {"cross_quiz_shape": f"2. {words.SECTIONS['scores']}"}
    shapes = options(at, "cross_quiz_shape")
    assert f"{T_q} × {T_k}" in shapes
    if T_q != T_k:
        assert f"{T_k} × {T_q}" in shapes
    assert not [t for t in _titles(at) if t.startswith(HIDDEN_TITLES)]
    assert _titles(at) == ["Queries Q", "Keys K", "Values V"]  # what the answer is reasoned from stays
    assert not any(f"{T_q}\\times{T_k}" in x.value for x in at.latex)

    answer = reveal(at, "cross_quiz_shape", f"{T_q} × {T_k}")
    lesson = lab_results.cross_lesson(tuple(ac.tokenize(source)), tuple(ac.tokenize(target)), swap=swap)
    assert lesson.q_name == ("source" if swap else "target")
    assert md_escape(words.shape_question(lesson).explain) in answer
    _check(at, q_text, kv_text)


def test_predict_first_has_no_question_when_every_shape_is_one_by_one():
    at = quiz_page(PAGE, predict="1", source="Hi", target="Yo", d_k="1")
    assert asked(at) == {}
    assert words.NO_QUESTION in [c.value for c in at.caption]
    _check(at, "Yo", "Hi", d_k=1)  # nothing is hidden when nothing is asked


@pytest.mark.parametrize(
    ("step", "expected"),
    [("1", {}), ("2", {"cross_quiz_shape": f"## **Section 2 of 3** · {words.SECTIONS['scores']}"})],
)
def test_presenter_mode_asks_in_the_score_section(step, expected):
    at = quiz_page(PAGE, present=True, predict="1", step=step)
    assert asked(at) == expected


def test_presenter_mode_keeps_the_output_hidden_until_the_reveal():
    at = quiz_page(PAGE, present=True, predict="1", step="3")
    assert asked(at) == {} and not figures(at)
    question_at = list(words.SECTIONS).index("scores") + 1  # where the question is: section 2
    assert words.hidden_note(f" on section {question_at}") in [i.value for i in at.info]
