"""attn_core.walkthrough: the worked cell's numbers agree with the engine, and its LaTeX
helpers write numbers the way the step-by-step page promises."""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac
from attn_core import walkthrough as wt


def run(text: str = "the cat saw the dog", d_k: int = 4, **kwargs) -> wt.Lesson:
    source = wt.seeded_source(tuple(ac.tokenize(text)), 16, d_k, seed=0, positional=True)
    return wt.lesson(source, **kwargs)


def test_lesson_is_the_engine_run_on_the_source():
    lesson = run(causal=True, multiplier=3.0)
    src = lesson.source
    np.testing.assert_array_equal(src.x, ac.embed(list(src.tokens), 16, seed=0, positional=True))
    w = ac.init_weights(16, 4, seed=0)
    expected = ac.attention_steps(src.x, w.w_q, w.w_k, w.w_v, multiplier=3.0, mask="causal")
    np.testing.assert_array_equal(lesson.steps.weights, expected.weights)
    assert lesson.stats.n_masked == 10 and lesson.stats.n_cells == 25
    assert lesson.stats.scaled_std == pytest.approx(lesson.stats.scores_std * 3.0 / 2.0)


@pytest.mark.parametrize(
    "text", ["the cat saw the dog", "The animal didn't cross the street because it was too tired."]
)
def test_order_check_reverses_the_sentence_with_and_without_positions(text):
    """Without positions (and without a mask) reading the sentence backwards only reverses the
    outputs; with the sinusoids added it changes them. Checked by embedding the reversed words."""
    tokens = ac.tokenize(text)
    order = run(text).order
    w = ac.init_weights(16, 4, seed=0)

    def out(words: list[str], positional: bool) -> np.ndarray:
        return ac.attention_steps(ac.embed(words, 16, seed=0, positional=positional), w.w_q, w.w_k, w.w_v).output

    plain, backwards = out(tokens, False), out(tokens[::-1], False)
    assert np.max(np.abs(backwards - plain[::-1])) < 1e-14 and order.set_gap < 1e-14
    moved = np.max(np.abs(out(tokens[::-1], True) - out(tokens, True)[::-1]))
    assert order.order_gap == pytest.approx(moved, rel=1e-9) and moved > 0.1
    # positions off: no positions to take out, and the same answer for the set
    off = wt.lesson(wt.seeded_source(tuple(tokens), 16, 4, seed=0, positional=False)).order
    assert off.order_gap is None and off.set_gap < 1e-14


def test_zero_weights_and_rows_where_length_beats_direction():
    for kwargs in ({}, {"causal": True}, {"causal": True, "multiplier": 100.0}):
        lesson = run("The animal didn't cross the street because it was too tired.", **kwargs)
        s, stats = lesson.steps, lesson.stats
        assert stats.n_zero_weights == int((s.weights == 0).sum()) >= stats.n_masked
        differs = 0
        for i in range(s.q.shape[0]):
            keys = [j for j in range(s.k.shape[0]) if np.isfinite(s.masked[i, j])]
            by_score = max(keys, key=lambda j: s.q[i] @ s.k[j])
            by_cos = max(keys, key=lambda j: s.q[i] @ s.k[j] / (np.linalg.norm(s.q[i]) * np.linalg.norm(s.k[j])))
            differs += by_score != by_cos
        assert stats.top_not_aligned == differs == stats.longer_key_won + stats.shorter_key_won
    assert run().stats.n_zero_weights == 0
    assert run("The animal didn't cross the street because it was too tired.", causal=True).stats.top_not_aligned > 0


def test_a_longer_key_wins_only_on_positive_scores_and_a_shorter_one_on_negative():
    """seed 5: row 1's scores are all negative and its winner is the shorter key; the two counts
    split the rows where the winner is not the best-aimed key by the winner's length."""
    source = wt.seeded_source(tuple(ac.tokenize("The cat sat on the mat.")), 16, 4, seed=5, positional=True)
    lesson = wt.lesson(source)
    s, stats = lesson.steps, lesson.stats
    assert np.all(s.scores[1] < 0)
    k_len = np.linalg.norm(s.k, axis=1)
    cos = s.scores[1] / (np.linalg.norm(s.q[1]) * k_len)
    winner, aimed = int(np.argmax(s.scores[1])), int(np.argmax(cos))
    assert winner != aimed and k_len[winner] < k_len[aimed]
    assert stats.shorter_key_won >= 1 and stats.top_not_aligned == stats.longer_key_won + stats.shorter_key_won


def test_value_shares_are_the_lengths_of_the_parts_of_each_output():
    """z_i = sum_j A_ij v_j: the part A_ij v_j has length A_ij |v_j|, and the norm-based shares
    A_ij |v_j| / sum_l A_il |v_l| add up to 1 in every row."""
    lesson = run(causal=True)
    s, shares = lesson.steps, lesson.shares
    parts = s.weights[:, :, None] * s.v[None, :, :]  # (T_q, T_k, d_v)
    np.testing.assert_allclose(parts.sum(axis=1), s.output, atol=1e-12)
    np.testing.assert_allclose(shares.weighted_norms, np.linalg.norm(parts, axis=2), atol=1e-12)
    np.testing.assert_allclose(shares.value_norms, np.linalg.norm(s.v, axis=1))
    np.testing.assert_allclose(shares.norm_shares.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(shares.norm_shares[np.triu_indices(5, 1)] == 0)  # masked keys hand on nothing


@pytest.mark.parametrize("multiplier", [1.0, 100.0])
@pytest.mark.parametrize(("i", "j"), [(0, 0), (3, 1), (1, 4), (4, 4)])
def test_cell_walkthrough_matches_the_engine(i, j, multiplier):
    steps = run(causal=True, multiplier=multiplier).steps
    cell = wt.cell_walkthrough(steps, i, j)
    assert cell.products.sum() == pytest.approx(steps.scores[i, j], abs=1e-12)
    assert cell.scaled == steps.scaled[i, j]
    assert cell.allowed == (j <= i)
    np.testing.assert_allclose(cell.exps / cell.total, steps.weights[i], atol=1e-12)
    np.testing.assert_allclose(cell.contributions.sum(axis=0), steps.output[i], atol=1e-12)
    assert cell.row_sum == pytest.approx(1.0)
    assert np.all(np.isfinite(cell.exps)) and cell.total > 0
    assert (cell.shift != 0) == (abs(np.max(steps.masked[i][np.isfinite(steps.masked[i])])) > wt.SHIFT_ABOVE)


def test_cell_indices_are_clamped():
    steps = run().steps
    assert (wt.cell_walkthrough(steps, 99, -3).i, wt.cell_walkthrough(steps, 99, -3).j) == (4, 0)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.50"),
        (-0.13, "-0.13"),
        (0.0, "0.00"),
        (-0.004, r"-4.00\times10^{-3}"),
        (123456.0, r"1.23\times10^{5}"),
        (-np.inf, r"-\infty"),
        (np.nan, r"\text{n/a}"),
        (-0.005000001, "-0.01"),
    ],
)
def test_latex_num(value, text):
    assert wt.latex_num(value) == text


def test_shown_indices_keep_the_chosen_one_and_mark_gaps():
    assert wt.shown_indices(5) == [0, 1, 2, 3, 4]
    assert wt.shown_indices(64, (30,)) == [0, 1, 2, None, 30, None, 63]
    assert wt.shown_indices(64, (2,)) == [0, 1, 2, None, 63]


def test_latex_dot_writes_each_term_and_the_exact_total():
    a, b = np.array([0.5, -0.3]), np.array([0.3, 0.4])
    assert wt.latex_dot(a, b, float(a @ b)) == r"0.50\times0.30 + (-0.30)\times0.40 = 0.03"
    long_a, long_b = np.arange(64) / 64, np.ones(64)
    text = wt.latex_dot(long_a, long_b, float(long_a @ long_b))
    assert text.count(r"\times") == 4 and r"\cdots" in text and text.endswith(f"= {long_a.sum():.2f}")


def test_latex_dot_lines_wraps_the_same_terms():
    a, b = np.array([0.5, -0.3, 0.8, 0.1, -0.2]), np.array([0.3, 0.4, -0.2, 1.0, 0.5])
    block = wt.latex_dot_lines(a, b, float(a @ b), lhs="s", per_line=2)
    lines = block.removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}").split(r" \\ ")
    # 5 terms, 2 a line -> 3 lines of terms, then the total on its own line
    assert lines == [
        r"s &= 0.50\times0.30 + (-0.30)\times0.40",
        r"&\quad + 0.80\times(-0.20) + 0.10\times1.00",
        r"&\quad + (-0.20)\times0.50",
        f"&= {a @ b:.2f}",
    ]
    single = wt.latex_dot_lines(a[:2], b[:2], float(a[:2] @ b[:2]), lhs="s")
    assert single.count(r" \\ ") == 1 and r"\quad" not in single


def test_latex_blocks_hold_numbers_only():
    cell = wt.cell_walkthrough(run("<script> $x$ **b**", causal=True).steps, 2, 1)
    for block in (wt.latex_row_table(cell), wt.latex_weighted_sum(cell, lhs="z_{2}"), wt.latex_vec(cell.output)):
        assert "script" not in block and "**" not in block and "nan" not in block
    # 11 rows of V: the first two, the chosen j = 1 and the last one are written, then z_i.
    assert wt.latex_weighted_sum(cell, lhs="z_{2}").count(r"\begin{bmatrix}") == 3 + 1
    short = wt.cell_walkthrough(run("<b> x").steps, 2, 1)
    assert wt.latex_weighted_sum(short, lhs="z_{2}").count(r"\begin{bmatrix}") == len(short.weights) + 1 == 5
