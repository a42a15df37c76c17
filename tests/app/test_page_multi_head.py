"""AppTest of the multi-head page: one heatmap per head, concat, W_O and output equal the engine's."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attn_core as ac
from attn_core import lab_results
from lessons.multi_head import words
from tests.support.figdata import figure_by_title, figures, z_matrix
from tests.support.lab_checks import app, drive
from tests.support.quiz_checks import asked, options, prompt, reveal
from tests.support.quiz_checks import page as quiz_page

PAGE = "multi_head.py"
DEFAULT = "The cat sat on the mat."


def _engine(text: str, d_model: int, n_heads: int, d_k: int, seed: int, causal: bool) -> ac.MultiHeadSteps:
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    lesson = lab_results.multi_head_lesson(tokens, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=seed, causal=causal)
    return lesson.steps


def _head_figures(at) -> list[dict]:
    return [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Head ")]


def _check(at, text: str, d_model: int, n_heads: int, d_k: int, seed: int, causal: bool) -> None:
    assert not at.exception
    mh = _engine(text, d_model, n_heads, d_k, seed, causal)
    heads = _head_figures(at)
    assert len(heads) == n_heads
    for h, fig in enumerate(heads):
        assert fig["layout"]["title"]["text"] == f"Head {h + 1} weights"
        assert_allclose(z_matrix(fig["data"][0]), mh.heads[h].weights, atol=1e-12)
    T = mh.output.shape[0]
    concat = z_matrix(figure_by_title(at, "Concat(head_1..head_H)")["data"][0])
    assert concat.shape == (T, n_heads * d_k)
    assert_allclose(concat, mh.concat, atol=1e-12)
    assert_allclose(z_matrix(figure_by_title(at, "W_O:")["data"][0]), mh.w_o, atol=1e-12)
    output = z_matrix(figure_by_title(at, "Output:")["data"][0])
    assert output.shape == (T, d_model)
    assert_allclose(output, mh.output, atol=1e-12)


def test_default_run_matches_engine():
    at = app(PAGE).run()
    _check(at, DEFAULT, d_model=16, n_heads=4, d_k=4, seed=0, causal=False)
    # Different heads really look differently.
    heads = _head_figures(at)
    assert not np.allclose(z_matrix(heads[0]["data"][0]), z_matrix(heads[1]["data"][0]))


@pytest.mark.parametrize("n_heads", [1, 3, 8])
def test_number_of_heads(n_heads):
    at = drive(PAGE, mh_heads=n_heads)
    _check(at, DEFAULT, d_model=16, n_heads=n_heads, d_k=4, seed=0, causal=False)


@pytest.mark.parametrize(("d_model", "d_k", "seed", "causal"), [(4, 1, 0, False), (64, 32, 9, True), (8, 16, 3, True)])
def test_sizes_seed_and_causal(d_model, d_k, seed, causal):
    text = "The animal didn't cross the street because it was too tired."
    at = drive(PAGE, mh_text=text, mh_d_model=d_model, mh_d_k=d_k, mh_seed=seed, mh_causal=causal)
    _check(at, text, d_model=d_model, n_heads=4, d_k=d_k, seed=seed, causal=causal)
    if causal:
        for fig in _head_figures(at):
            assert np.all(np.triu(z_matrix(fig["data"][0]), k=1) == 0)


# --- predict first ---------------------------------------------------------------------------

HEADS_HEADING = f"1. {words.heads_heading(4)}"  # the numbered deck's headers, section 1 and 2
CONCAT_HEADING = f"2. {words.SECTIONS['concat']}"


def _previous_share(text: str, n_heads: int = 4, d_model: int = 16, d_k: int = 4, seed: int = 0) -> np.ndarray:
    """Each head's mean weight on the token just before, from the engine's heads, row by row."""
    tokens = ac.tokenize(text, max_tokens=64)
    heads, w_o = ac.init_multi_head(d_model, n_heads, d_k, seed=seed)
    steps = ac.multi_head_steps(ac.embed(tokens, d_model, seed=seed), heads, w_o)
    return np.array([np.mean([h.weights[t, t - 1] for t in range(1, len(tokens))]) for h in steps.heads])


def _titles(at) -> list[str]:
    return [f["layout"]["title"]["text"] for f in figures(at)]


def test_predict_first_is_off_by_default():
    at = quiz_page(PAGE)
    assert asked(at) == {} and not prompt(at)
    assert "predict" not in at.query_params


def test_predict_first_asks_which_head_looks_back_and_the_shape_of_the_concatenation():
    """Section 1 asks which head puts the most weight on the previous token, with the heads shown
    (they are random: the question is read from them); section 2 hides every shape until its
    question is revealed. Both answers are the engine's."""
    at = quiz_page(PAGE, predict="1")
    assert asked(at) == {"mh_quiz_previous": HEADS_HEADING, "mh_quiz_concat": CONCAT_HEADING}
    T = len(ac.tokenize(DEFAULT))
    share = _previous_share(DEFAULT)
    assert options(at, "mh_quiz_previous") == [f"Head {h + 1}" for h in range(4)]
    assert len(_head_figures(at)) == 4  # the heads stay: the first question is read from them
    hidden = [t for t in _titles(at) if t.startswith(("Concat", "W_O", "Output"))]
    assert not hidden, f"the shapes are shown before the reveal: {hidden}"
    assert not any(f"{T} × 16" in m.value for m in at.markdown) and not any("Concat" in x.value for x in at.latex)

    answer = reveal(at, "mh_quiz_previous", f"Head {int(np.argmax(share)) + 1}")
    assert f"its mean weight on the previous token = {share.max():.3f}" in answer
    assert [t for t in _titles(at) if t.startswith("Concat")] == []  # still hidden: another question

    shapes = options(at, "mh_quiz_concat")
    assert f"{T} × 16" in shapes and f"{4 * T} × 4" in shapes  # the answer and the stacked guess
    reveal(at, "mh_quiz_concat", f"{T} × 16")
    concat = z_matrix(figure_by_title(at, "Concat(head_1..head_H)")["data"][0])
    assert concat.shape == (T, 16)
    _check(at, DEFAULT, d_model=16, n_heads=4, d_k=4, seed=0, causal=False)
    assert [c.value for c in at.caption if c.value.startswith("Your predictions")] == [
        f"Your predictions this session: 2 of 2 right, estimates off by {abs(0.5 - share.max()):.3f} on average."
    ]


@pytest.mark.parametrize(
    ("text", "heads", "asks_previous"),
    [("Hi", 4, False), ("Hi there", 1, False), ("Hi there", 3, True), ("the the the the", 2, True)],
    ids=["one-token", "one-head", "two-tokens", "repeated-words"],
)
def test_predict_first_on_tiny_sentences_and_one_head(text, heads, asks_previous):
    """One token or one head: no head to pick, and the page says why; the shape question still has
    distinct options and the engine's answer. Repeated words are separate rows."""
    at = quiz_page(PAGE, predict="1", text=text, heads=str(heads))
    T = len(ac.tokenize(text))
    assert ("mh_quiz_previous" in asked(at)) == asks_previous
    if asks_previous:
        share = _previous_share(text, n_heads=heads)
        assert options(at, "mh_quiz_previous") == [f"Head {h + 1}" for h in range(heads)]
        reveal(at, "mh_quiz_previous", f"Head {int(np.argmax(share)) + 1}")
    else:
        assert words.NO_PREVIOUS_QUESTION in [c.value for c in at.caption]
    reveal(at, "mh_quiz_concat", f"{T} × {heads * 4}")
    assert z_matrix(figure_by_title(at, "Concat(head_1..head_H)")["data"][0]).shape == (T, heads * 4)


@pytest.mark.parametrize(("step", "expected"), [("1", {"mh_quiz_previous"}), ("2", {"mh_quiz_concat"})])
def test_presenter_mode_asks_each_question_in_its_own_section(step, expected):
    at = quiz_page(PAGE, present=True, predict="1", step=step)
    assert set(asked(at)) == expected
    assert [c.value for c in at.caption if c.value.startswith("Your predictions")] == []  # nothing revealed yet
