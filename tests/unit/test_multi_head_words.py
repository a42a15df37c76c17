"""Property tests of Multi-head's words (lessons/multi_head/words.py): every sentence, title,
formula and question the page computes, over many sentences, head counts, sizes, seeds and
both masks, checked against the numbers recomputed here."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_core import lab_results
from lessons.multi_head import words
from tests.support.sentence_numbers import after, numbers
from tests.support.strategies import token_lists


@st.composite
def lessons(draw, max_tokens: int = 24) -> lab_results.MultiHeadLesson:
    tokens = draw(token_lists(max_size=max_tokens))
    return words.lesson(
        tokens,
        d_model=draw(st.sampled_from(words.D_MODELS)),
        n_heads=draw(st.integers(1, 8)),
        d_k=draw(st.sampled_from(words.D_KS)),
        seed=draw(st.integers(0, 10_000)),
        causal=draw(st.booleans()),
    )


def _shape(text: str, prefix: str) -> tuple[int, int]:
    """The "rows × cols" (or "rows×cols") after ``prefix``, a regular expression ("returns an? ")."""
    rows, cols = re.search(prefix + r"\s*\(?(\d+)\s*(?:×|\\times)\s*(\d+)", text).groups()
    return int(rows), int(cols)


def _previous_share(lesson: lab_results.MultiHeadLesson) -> np.ndarray:
    """Each head's mean weight on the token just before, row by row (rows 1 .. T-1)."""
    T = len(lesson.tokens)
    return np.array([np.mean([head.weights[t, t - 1] for t in range(1, T)]) for head in lesson.steps.heads])


# --------------------------------------------------------------------------- the heads


@settings(max_examples=200, deadline=None)
@given(lesson=lessons())
def test_the_previous_token_question_picks_the_head_that_looks_back_most(lesson):
    q = words.previous_question(lesson)
    T, H = len(lesson.tokens), lesson.n_heads
    if T < 2 or H < 2:
        assert q is None
        return
    share = _previous_share(lesson)
    first, second = np.sort(share)[::-1][:2]
    if first - second < words.TIE:
        assert q is None
        return
    assert q.options == tuple(f"Head {h + 1}" for h in range(H))  # counted from 1, as every page counts
    assert q.options[q.answer] == f"Head {int(np.argmax(share)) + 1}"
    assert abs(q.value - share.max()) < 1e-12
    assert all(share[q.answer] - share[h] >= words.TIE for h in range(H) if h != q.answer)
    assert after(words.NO_PREVIOUS_QUESTION, "by ") == words.TIE


@settings(max_examples=200, deadline=None)
@given(lesson=lessons())
def test_the_heads_sentence_says_what_the_weights_do(lesson):
    causal = lesson.steps.heads[0].mask is not None
    text = words.heads_text(lesson, causal)
    heads = lesson.steps.heads
    equal = all(np.array_equal(heads[0].weights, h.weights) for h in heads[1:])
    if "the heads' weights differ" in text:
        assert len(heads) > 1 and not equal
    if "cannot differ" in text or "happen to be equal" in text:
        assert len(heads) > 1 and equal
    if "one head now" in text:
        assert len(heads) == 1
    assert sum(w in text for w in ("weights differ", "cannot differ", "happen to be equal", "one head now")) == 1
    assert ("With one token" in text) == (len(lesson.tokens) == 1 and len(heads) > 1)
    assert ("causal mask" in text) == causal
    if causal:  # what the clause claims: nothing above the diagonal
        assert all(np.all(np.triu(h.weights, 1) == 0) for h in heads)
    assert all(np.allclose(h.weights.sum(axis=1), 1) for h in heads)  # "each row ... sums to 1"


@settings(max_examples=200, deadline=None)
@given(lesson=lessons(max_tokens=4))
def test_the_usual_d_k_sentence_compares_the_right_way(lesson):
    text = words.usual_d_k_text(lesson)
    d_model, H, d_k = lesson.d_model, lesson.n_heads, lesson.d_k
    assert after(text, "With d_model = ") == d_model and after(text, "and H = ") == H
    if d_model % H == 0:
        assert after(text, f"d_k = {d_model} / {H} = ") == d_model // H
    else:
        assert f"{d_model} / {H}, which is not a whole number" in text and d_model / H != d_model // H
    assert after(text, "H · d_k = ") == H and after(text, f"{H} · ") == d_k
    assert after(text, f"{H} · {d_k} = ") == H * d_k == lesson.steps.heads[0].q.shape[1] * H
    relation = re.search(r"is (equal to|more than|less than) d_model", text).group(1)
    assert relation == {-1: "less than", 0: "equal to", 1: "more than"}[int(np.sign(H * d_k - d_model))]


@settings(max_examples=100, deadline=None)
@given(lesson=lessons())
def test_the_head_formula_and_titles_state_the_shapes(lesson):
    T, d_model, d_k = len(lesson.tokens), lesson.d_model, lesson.d_k
    latex = words.heads_latex(lesson)
    assert numbers(latex.split(r"\quad")[1]) == [T, d_model, d_model, d_k, T, d_k]
    assert lesson.steps.heads[0].q.shape == (T, d_k)
    assert after(latex, r"\sqrt{") == d_k
    for h in range(lesson.n_heads):
        assert words.head_title(h) == f"Head {h + 1} weights"
    assert words.heads_heading(lesson.n_heads).startswith(f"{lesson.n_heads} head")
    assert words.heads_heading(1) == "1 head, each with its own weights"


# --------------------------------------------------------------------------- concat, W_O, output


@settings(max_examples=200, deadline=None)
@given(lesson=lessons())
def test_the_concat_question_answers_the_engine_s_shape(lesson):
    q = words.concat_question(lesson)
    T, H, d_v = len(lesson.tokens), lesson.n_heads, lesson.d_v
    assert len(set(q.options)) == len(q.options) >= 2
    assert q.options[q.answer] == "{} × {}".format(*lesson.steps.concat.shape) == f"{T} × {H * d_v}"
    assert _shape(q.prompt, "returns an? ") == lesson.steps.heads[0].output.shape
    if H > 1:
        assert after(q.prompt, "Each of the ") == H and numbers(q.explain)[:3] == [H, d_v, H * d_v]
    else:
        assert "The one head" in q.prompt


@settings(max_examples=200, deadline=None)
@given(lesson=lessons())
def test_the_concat_sentences_state_the_engine_s_shapes(lesson):
    mh, T = lesson.steps, len(lesson.tokens)
    text = words.concat_text(lesson)
    assert _shape(text, "returns an? ") == mh.heads[0].output.shape == (T, lesson.d_v)
    joined = re.search(r"(?:gives|it is) one (\d+) × (\d+) matrix", text).groups()
    assert tuple(map(int, joined)) == mh.concat.shape
    assert _shape(text, "W_O ") == mh.w_o.shape
    assert after(text, "d_model = ") == mh.output.shape[1] == lesson.d_model
    assert ("side by side" in text) == (lesson.n_heads > 1)
    titles = words.matrix_titles(lesson)
    for title, array in zip(titles, (mh.concat, mh.w_o, mh.output), strict=True):
        assert _shape(title, ": ") == array.shape
    latex = words.concat_latex(lesson)
    assert after(latex, r"\mathrm{head}_{") == lesson.n_heads
    shapes = re.findall(r"_\{(\d+)\\times(\d+)\}", latex)
    assert [tuple(map(int, s)) for s in shapes] == [mh.concat.shape, mh.w_o.shape, mh.output.shape]


@settings(max_examples=100, deadline=None)
@given(lesson=lessons())
def test_the_other_d_v_sentence_states_the_same_weights_and_a_wider_output(lesson):
    text = words.other_v_text(lesson)
    other, head_1 = lesson.other_v, lesson.steps.heads[0]  # "head 1" is the first head
    assert "The values may have any width: head 1 with a W_v" in text.replace("\n", " ")
    assert after(text, "with a W_v of ") == other.v.shape[1] == 2 * lesson.d_k
    assert after(text, "columns instead of ") == lesson.d_v
    assert after(text, "max |Δ| = ") == float(f"{np.abs(other.weights - head_1.weights).max():g}") == 0
    assert _shape(text, "an output of shape ") == other.output.shape == (len(lesson.tokens), 2 * lesson.d_k)
    np.testing.assert_allclose(other.output, head_1.weights @ other.v, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(lesson=lessons(), hidden=st.booleans())
def test_what_it_showed(lesson, hidden):
    mh, T, H = lesson.steps, len(lesson.tokens), lesson.n_heads
    first, second = words.what_it_showed(lesson, hidden)
    assert numbers(first) == [H, T, H, T, T, lesson.d_k]
    assert ("matrices" in first) == (H > 1)
    if hidden:
        assert "×" not in second
    else:
        found = [tuple(map(int, s)) for s in re.findall(r"(\d+)×(\d+)", second)]
        assert found == [mh.concat.shape, mh.w_o.shape, mh.output.shape]
        assert mh.output.shape == lesson.x.shape  # "as wide as the input X"
