"""Property tests of Cross-attention's words (lessons/cross_attention/words.py): every sentence,
formula and question the page computes, over many pairs of sentences, sizes, seeds and both
directions, checked against the numbers recomputed here."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_core import lab_results
from lessons.cross_attention import words
from tests.support.sentence_numbers import after, numbers
from tests.support.strategies import token_lists
from ui.markup import md_escape


@st.composite
def calls(draw) -> tuple[lab_results.CrossLesson, tuple[str, ...], tuple[str, ...], bool]:
    """The page's call on two drawn sentences: (lesson, source, target, swap)."""
    source, target, swap = draw(token_lists(max_size=20)), draw(token_lists(max_size=20)), draw(st.booleans())
    lesson = words.lesson(
        source,
        target,
        d_model=draw(st.sampled_from(words.D_MODELS)),
        d_k=draw(st.sampled_from(words.D_KS)),
        seed=draw(st.integers(0, 10_000)),
        swap=swap,
    )
    return lesson, source, target, swap


def lessons() -> st.SearchStrategy[lab_results.CrossLesson]:
    return calls().map(lambda call: call[0])


def _shapes(text: str) -> list[tuple[int, ...]]:
    """Every "a × b" (or a\\times b, a×b) in ``text``, with "(a × b)(b × c)" read as two."""
    return [(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*(?:×|\\times)\s*(\d+)", text)]


@settings(max_examples=150, deadline=None)
@given(call=calls())
def test_where_q_k_and_v_come_from(call):
    lesson, source, target, swap = call
    steps = lesson.steps
    q_name, kv_name = ("source", "target") if swap else ("target", "source")
    T_q, T_k = (len(source), len(target)) if swap else (len(target), len(source))
    assert steps.x.shape[0] == T_q and steps.x_kv.shape[0] == T_k
    caption = words.setup_caption(lesson)
    assert after(caption, f"from the {q_name} sentence (") == T_q
    assert after(caption, f"from the {kv_name} sentence (") == T_k
    text = words.qkv_text(lesson)
    assert f"W_q is applied to the {q_name} sentence's embeddings and W_k, W_v to the {kv_name}" in text
    # The decoder's queries come from its previous sub-layer: said where the target asks, as here.
    assert ("previous sub-layer, after its masked self-attention" in text) == (q_name == "target")
    assert ("other way round" in text) == (q_name == "source")
    assert _shapes(words.qkv_latex(lesson)) == [steps.q.shape, steps.k.shape, steps.v.shape]


@settings(max_examples=200, deadline=None)
@given(lesson=lessons())
def test_the_shape_question_answers_the_engine_s_shape(lesson):
    T_q, T_k = lesson.steps.weights.shape
    d_k = lesson.steps.q.shape[1]
    q = words.shape_question(lesson)
    candidates = {(T_q, T_k), (T_k, T_q), (T_q, T_q), (T_k, T_k), (T_q, d_k), (1, T_k)}
    if len(candidates) < 2:
        assert q is None and T_q == T_k == d_k == 1 and numbers(words.NO_QUESTION) == [1, 1]
        return
    assert len(set(q.options)) == len(q.options) >= 2
    assert q.options[q.answer] == f"{T_q} × {T_k}" and lesson.steps.weights.shape == (len(lesson.q_tokens), T_k)
    if T_q != T_k:
        assert f"{T_k} × {T_q}" in q.options  # the transpose is always offered
    assert after(q.prompt, "sentence (") == T_q and after(q.prompt, "d_k = ") == d_k
    assert after(q.explain, "over the ") == T_k
    assert np.allclose(lesson.steps.weights.sum(axis=1), 1)  # "spreads one unit of weight"


@settings(max_examples=150, deadline=None)
@given(lesson=lessons())
def test_the_score_sentences_state_the_rectangle(lesson):
    steps = lesson.steps
    T_q, T_k = steps.scores.shape
    d_k = steps.q.shape[1]
    text = words.scores_text(lesson)
    assert _shapes(text) == [(T_q, T_k)]
    assert ("instead of a square" in text) == (T_q != T_k)
    if T_q == T_k:
        assert after(text, "both sentences have ") == len(lesson.q_tokens) == len(lesson.kv_tokens)
    latex = words.scores_latex(lesson)
    assert _shapes(latex) == [(T_q, d_k), (d_k, T_k), (T_q, T_k)]
    assert abs(numbers(latex)[-1] - 1 / np.sqrt(d_k)) <= 0.0005
    caption = words.weights_caption(lesson)
    assert f"query 0 ({md_escape(lesson.q_tokens[0])})" in caption
    assert after(caption, "its ") == T_k and after(caption, "add up to ") == round(steps.weights[0].sum())


@settings(max_examples=100, deadline=None)
@given(lesson=lessons(), hidden=st.booleans(), elsewhere=st.sampled_from(["", " on section 2"]))
def test_the_output_sentences_and_what_it_showed(lesson, hidden, elsewhere):
    steps = lesson.steps
    T_q, T_k = steps.weights.shape
    assert _shapes(words.output_latex(lesson)) == [(T_q, T_k), steps.v.shape, steps.output.shape]
    assert steps.output.shape[0] == len(lesson.q_tokens)  # "one row per {q_name} token"
    assert f"one row per {lesson.q_name} token" in words.output_text(lesson)
    assert words.hidden_note(elsewhere).startswith(f"Hidden until you reveal your prediction{elsewhere} (")
    lines = words.what_it_showed(lesson, hidden)
    if hidden:
        assert lines and not any(_shapes(line) for line in lines)
        return
    first, second = lines
    assert numbers(first)[:2] == [T_q, T_k] and _shapes(first) == [(T_q, T_k)]
    assert ("rectangle" in first) == (T_q != T_k)
    assert _shapes(second) == [steps.output.shape]
