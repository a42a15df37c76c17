"""The page "The articles, checked": attn_core.article_checks against plain arithmetic and torch, and
the page (AppTest) against the numbers it claims."""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from numpy.testing import assert_allclose, assert_array_equal
from streamlit.testing.v1 import AppTest

from attn_core import article_checks as ar
from attn_core import experiments as ex
from attn_core import lab_results
from lessons.articles import words
from tests.support.figdata import decode, figure_by_title, z_matrix
from tests.support.hostile_corpus import HOSTILE
from ui.reader import SCREEN

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "lessons" / "articles" / "page.py")
SEEDS = Path("/work/shared/seeds")  # the source articles, where this checkout has them


def _torch_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    t = [torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (q, k, v)]
    m = None if mask is None else torch.from_numpy(np.asarray(mask, dtype=bool))
    return F.scaled_dot_product_attention(*t, attn_mask=m).numpy()


# --------------------------------------------------------------------------- the article's own words


def _seed(name_start: str) -> str:
    files = sorted(SEEDS.glob(f"{name_start}*.txt")) if SEEDS.is_dir() else []
    if not files:
        pytest.skip("the source articles are not in this checkout")
    return files[0].read_text(encoding="utf-8")


def test_the_quoted_score_is_the_articles():
    text = _seed("000")
    assert f"results in a score of {ar.ARTICLE_SCORE}." in text
    for name in ar.GIVEN:  # every vector we call "given" is in the article as we give it
        values = ", ".join(f"{v:.1f}".replace("-", "-") for v in ar.DEFAULT_VECTORS[name])
        assert f"[{values}]" in text, name


def test_the_quoted_causal_table_is_the_articles():
    """Read the masked table out of the notes' LaTeX: each row k_j, how many -inf it starts with."""
    text = _seed("003")
    masked_table = text[text.index("Masking") :]
    rows = re.findall(r"k_(\d) & (.*?)\\\\", masked_table[: masked_table.index("Softmax")])
    assert [int(j) for j, _ in rows] == list(range(1, 9))
    leads = []
    for _, cells in rows:
        cells = [c.strip() for c in cells.split("&")]
        leads.append(next(n for n, c in enumerate([*cells, "end"]) if c != r"-\infty"))
    assert tuple(leads) == ar.ARTICLE_CAUSAL_LEAD


def test_the_notes_write_s_and_dim_minus_one_before_column_wise():
    """Section 3 says the notes write S = QKᵀ and softmax(..., dim=-1) before "column-wise"."""
    text = _seed("003")
    s, code, column = text.index("S = QK^T"), text.index("F.softmax(scores, dim=-1)"), text.index("column-wise")
    assert s < code < column


def test_who_writes_tokens_as_columns():
    """Kumar writes the input as d x T (columns); the notes' X is T x d with Q = XW^q (rows), and
    their bilinear form then uses W^q x_i with x_i a column."""
    kumar, notes = _seed("001"), _seed("003")
    assert "‘d x T’ matrix for the input word vector representations" in kumar and "Q — 64 x T" in kumar
    assert r"input embedding matrix of size \(T \times d\)" in notes and r"\[Q = XW^q\]" in notes
    assert r"(W^qx_i)^TW^kx_j" in notes


def test_the_quoted_slips_are_in_the_articles():
    callebaut, notes, overview = _seed("002"), _seed("003"), _seed("004")
    assert "Each token in the input sequence attends to all other tokens, including itself." in callebaut
    assert "This mechanism is used in both the encoder and decoder layers of the transformer." in callebaut
    assert "mask" not in callebaut.lower()  # not a word about it
    assert "Queries and keys occupy typically the same dimensional space" in notes
    assert "no reason to make the dimensionality of the value space the same" in notes
    assert "innovations like Dilated Attention" in overview


# --------------------------------------------------------------------------- 1. the 3-number example


def test_q_cat_dot_k_mat_term_by_term():
    d = ar.dot_example()
    # 0.5 x 0.3 = 0.15, -0.3 x 0.4 = -0.12, 0.8 x -0.2 = -0.16
    assert_allclose(d.terms, [0.15, -0.12, -0.16], atol=1e-15)
    assert d.score_mat == pytest.approx(-0.13, abs=1e-12)
    assert d.article_score == 0.24 and abs(d.score_mat - d.article_score) > 0.3
    assert d.scores[d.mat] == pytest.approx(d.score_mat)


def test_cat_row_equals_torch_sdpa():
    d = ar.dot_example()
    assert_allclose(d.output, _torch_attention(d.q[None], d.k, d.v)[0], atol=1e-12)
    e = np.exp(d.scores / math.sqrt(3))
    assert_allclose(d.weights, e / e.sum(), atol=1e-15)
    article = d.scores.copy()
    article[d.mat] = 0.24
    assert_allclose(d.article_weights, np.exp(article / math.sqrt(3)) / np.exp(article / math.sqrt(3)).sum())


def test_user_vectors_and_bad_text():
    d = ar.dot_example({"k_mat": "0.3, 0.4, 0.2", "v_cat": "banana", "q_cat": "[1 −2 3]"})
    assert_allclose(d.vectors["k_mat"], [0.3, 0.4, 0.2])
    assert_allclose(d.q, [1, -2, 3])
    assert d.score_mat == pytest.approx(0.3 - 0.8 + 0.6)
    assert [name for name, _ in d.problems] == ["v_cat"]
    assert_allclose(d.vectors["v_cat"], ar.DEFAULT_VECTORS["v_cat"])


@pytest.mark.parametrize("text", ["", "1, 2", "1, 2, 3, 4", "1, nan, 2", "1, inf, 2", "1e400, 0, 0", "a, b, c"])
def test_parse_vector_refuses(text):
    with pytest.raises(ValueError, match=r"numbers|finite"):
        ar.parse_vector(text)


# --------------------------------------------------------------------------- 2. the causal table


def test_causal_table_wrong_cells():
    c = ar.causal_check()
    assert c.tokens == ("The", "hiking", "trail", "led", "us", "through", "bear", "country")
    wrong = [(j, i) for j in range(8) for i in range(8) if i >= ar.ARTICLE_CAUSAL_LEAD[j] and j > i]
    assert list(c.wrong) == wrong == [(5, 3), (5, 4)]  # k6 with q4 and q5, counting from 1
    assert_array_equal(c.correct, np.tril(np.ones((8, 8), dtype=bool)).T)
    steps = c.steps_correct
    assert np.all(steps.weights[np.triu_indices(8, 1)] == 0.0) and c.future_weight == 0.0
    assert_allclose(
        steps.output, _torch_attention(steps.q, steps.k, steps.v, np.tril(np.ones((8, 8), bool))), atol=1e-12
    )
    a = c.steps_article
    assert_allclose(a.output, _torch_attention(a.q, a.k, a.v, c.article.T), atol=1e-12)
    assert np.all(c.leaked > 0)
    assert_allclose(c.leaked, [a.weights[3, 5], a.weights[4, 5]])


# --------------------------------------------------------------------------- 3. rows or columns


def test_rows_and_columns():
    r = ar.articles_lesson().rows
    t = torch.from_numpy(r.scaled)
    assert_allclose(r.by_row, torch.softmax(t, dim=-1).numpy(), atol=1e-15)
    assert_allclose(r.by_column, torch.softmax(t, dim=0).numpy(), atol=1e-15)
    assert_allclose(r.row_sums[0], 1.0) and assert_allclose(r.column_sums[1], 1.0)
    assert np.abs(r.row_sums[1] - 1).max() > 0.1 and np.abs(r.column_sums[0] - 1).max() > 0.1
    assert r.transposed_gap == 0.0


# --------------------------------------------------------------------------- 4. shapes


def test_shapes_and_the_full_sum():
    s = ar.shape_check()
    assert s.x.shape == (16, 8) and s.w_q.shape == (8, 4) and s.q.shape == (16, 4)
    by_hand = sum(s.x[0, n] * s.w_q[n, 0] for n in range(8))
    assert s.value == pytest.approx(by_hand, abs=1e-14) == pytest.approx(s.q[0, 0])
    assert s.article_value == pytest.approx(sum(s.x[0, n] * s.w_q[n, 0] for n in range(4)))
    assert abs(s.article_value - s.value) > 1e-3


# --------------------------------------------------------------------------- 5. conventions


def test_column_convention_equals_row_convention():
    cv = ar.articles_lesson().conventions
    assert cv.q_col.shape == cv.q.T.shape
    assert cv.scores_gap < 1e-12 and cv.output_gap < 1e-12
    assert_allclose(cv.output_row, _torch_attention(cv.q, cv.k, cv.v), atol=1e-12)


def test_the_conventions_equation_keeps_x_i_a_row():
    """Section 5's chain writes x_i as a row throughout (the articles' column is x_i^T). Each
    link holds on random rows and weights, with W^q = W_q^T; the section's own head gives the
    same scores both ways; and the page writes that chain."""
    lesson = ar.articles_lesson()
    cv = lesson.conventions
    rng = np.random.default_rng(0)
    x, w_q, w_k = rng.standard_normal((5, 8)), rng.standard_normal((8, 4)), rng.standard_normal((8, 4))
    W_q_col, W_k_col = w_q.T, w_k.T  # the articles' W^q, W^k
    for i, j in ((0, 0), (1, 3), (4, 2)):
        x_i, x_j = x[i : i + 1], x[j : j + 1]  # rows (1, d_model)
        links = [
            (W_q_col @ x_i.T).T @ (W_k_col @ x_j.T),  # (W^q x_i^T)^T (W^k x_j^T)
            x_i @ W_q_col.T @ W_k_col @ x_j.T,  # x_i (W^q)^T W^k x_j^T
            x_i @ w_q @ w_k.T @ x_j.T,  # x_i W_q W_k^T x_j^T
            (x_i @ w_q) @ (x_j @ w_k).T,  # q_i k_j^T
            ((x @ w_q) @ (x @ w_k).T)[i, j],  # (QK^T)_ij
        ]
        for link in links[1:]:
            assert_allclose(np.ravel(link), np.ravel(links[0]), atol=1e-12)
    assert_allclose(cv.scores_col, cv.scores_row, atol=1e-12)
    at = _run(_page())
    chain = words.CONVENTIONS_CHAIN
    assert any(chain in el.value for el in at.latex)
    assert r"x_i\, W_q W_k^\top x_j^\top = q_i k_j^\top = (QK^\top)_{ij}" in chain
    assert r"x_i^\top (W^q)" not in chain and r"W^q x_i)" not in chain  # no column x_i
    text = _text(at)
    assert words.CONVENTIONS_INTRO in text and words.conventions_text(cv) in text


def test_the_notes_w_q_must_be_read_transposed_for_a_column():
    cv = ar.articles_lesson().conventions
    w_q = ar.init_weights(ar.SHAPES_D, ar.SHAPES_D_K, seed=0).w_q
    column = np.ones((ar.SHAPES_D, 1))  # one token as a column of d numbers
    with pytest.raises(ValueError):
        w_q @ column  # (8, 4) @ (8, 1)
    assert (w_q.T @ column).shape == cv.query_column_shape == (4, 1)
    assert cv.w_q_shape == (8, 4) and not cv.w_q_times_column


# --------------------------------------------------------------------------- the slips in words


def test_without_the_mask_a_decoder_sees_the_next_word():
    """Change only the last word: torch's SDPA without a mask moves the earlier outputs, with
    is_causal it does not; the check's numbers are those."""
    dc = ar.decoder_check()
    assert dc.tokens[:-1] == dc.changed[:-1] and dc.tokens[-1] != dc.changed[-1]
    w = ar.init_weights(8, 4, seed=0)
    outs = {}
    for causal in (False, True):
        runs = []
        for sentence in (dc.tokens, dc.changed):
            x = torch.from_numpy(ar.embed(list(sentence), 8, seed=0))
            q, k, v = (x @ torch.from_numpy(m) for m in (w.w_q, w.w_k, w.w_v))
            runs.append(F.scaled_dot_product_attention(q, k, v, is_causal=causal).numpy())
        outs[causal] = float(np.max(np.abs(runs[0][:-1] - runs[1][:-1])))
    assert dc.unmasked_change == pytest.approx(outs[False], abs=1e-12) and dc.unmasked_change > 0.01
    assert outs[True] < 1e-15 and dc.causal_change == 0.0


def test_queries_and_keys_must_match_values_need_not():
    dm = ar.dimension_check()
    assert dm.mismatch_error == "w_k must have shape (d_model=8, d_k=4), got (8, 5)"
    x = ar.embed(list(ar.causal_check().tokens), 8, seed=0)
    w = ar.init_weights(8, 4, seed=0)
    q, k = x @ w.w_q, x @ ar.init_weights(8, 5, 8, seed=0).w_k
    with pytest.raises(ValueError):
        q @ k.T  # (8, 4) @ (5, 8): no dot product
    assert dm.d_v == 8 and dm.output_shape == (8, 8) and dm.weights_gap == 0.0
    v = x @ ar.init_weights(8, 5, 8, seed=0).w_v
    want = _torch_attention(q, x @ w.w_k, v)
    assert want.shape == dm.output_shape


# --------------------------------------------------------------------------- 6. winner takes all?


def test_softmax_lab_entropy_at_m1_is_about_2_4_of_3_bits():
    w = ar.winner_check()
    scores = ex.random_scores(8, seed=0)
    assert_array_equal(w.lab.scores, lab_results.softmax_lab().scores)
    p = np.exp(scores - scores.max())
    p /= p.sum()
    bits = -sum(x * math.log2(x) for x in p)
    assert w.lab.entropy == pytest.approx(bits, abs=1e-12)
    assert w.lab.entropy == pytest.approx(lab_results.softmax_lab().saturation.entropy)
    assert 2.35 < w.lab.entropy < 2.45 and w.max_entropy == 3.0


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_scaling_keeps_learned_scores_large(scale):
    w = ar.winner_check(scale)
    assert w.var_scaled == pytest.approx(scale**4, rel=0.1)
    assert w.var_raw == pytest.approx(w.d_k * scale**4, rel=0.1)
    if scale == 3.0:
        assert w.mean_top > 0.8 and w.mean_entropy < 0.6 and w.row_weights.max() > 0.99
    else:
        assert w.mean_entropy == pytest.approx(w.unit_mean_entropy)
    assert w.unit_mean_entropy > 2.0


# --------------------------------------------------------------------------- the page


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=60)


def _text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [x.value for x in at.latex] + [c.value for c in at.caption])


def _fig(at: AppTest, title: str) -> dict:
    """A figure by its title as the builders write it (HTML-escaped)."""
    return figure_by_title(at, html.escape(title))


def _g(value: float) -> str:
    return f"{value:.4g}".replace("-", "−")


def test_page_shows_the_checks_sentences_and_numbers():
    """The page shows the words module's sentences for the engine's checks (each checked against
    its numbers in tests/unit/test_articles_words.py over many inputs), and its charts hold the
    checks' own arrays."""
    at = _run(_page())
    lesson = ar.articles_lesson()
    text = _text(at)
    d, c, r, s, w = lesson.dot, lesson.causal, lesson.rows, lesson.shapes, lesson.winner
    sentences = [
        words.dot_result(d),
        words.dot_latex(d),
        words.mat_text(d),
        *words.wrong_rows(c),
        words.leak_text(c, SCREEN),
        words.callebaut_text(lesson.decoder),
        words.longnet_caption(),
        words.rows_text(r),
        words.shapes_text(s),
        words.shapes_stop_text(s),
        words.dimensions_text(lesson.dimensions),
        words.conventions_text(lesson.conventions),
        words.softmax_text(w),
        words.SCALING_TEXT,
        words.saturation_text(w, SCREEN),
    ]
    for sentence in sentences:
        assert sentence in text, sentence[:80]
    # the article's slip, as the engine finds it: −0.13, not 0.24; row k6, queries 4 and 5
    assert d.score_mat == pytest.approx(-0.13) and list(c.wrong) == [(5, 3), (5, 4)]
    assert_allclose(decode(_fig(at, "Weights of “cat”")["data"][0]["y"]), d.weights)
    article = _fig(at, "The notes' table")
    assert_array_equal(z_matrix(article["data"][0]), c.article.astype(float))
    assert list(zip(article["data"][1]["y"], article["data"][1]["x"], strict=True)) == [(5, 3), (5, 4)]
    assert_array_equal(z_matrix(_fig(at, "The correct table")["data"][0]), c.correct.astype(float))
    assert_allclose(z_matrix(_fig(at, "Weights with the notes' mask")["data"][0]), c.steps_article.weights)
    assert_allclose(z_matrix(_fig(at, "Softmax over each row")["data"][0]), r.by_row)
    assert_allclose(z_matrix(_fig(at, "Softmax over each column")["data"][0]), r.by_column)
    sums = _fig(at, "Row sums")["data"]
    assert_allclose(decode(sums[0]["y"]), 1.0) and assert_allclose(decode(sums[1]["y"]), r.row_sums[1])
    assert_allclose(decode(_fig(at, "Column sums")["data"][1]["y"]), 1.0)
    assert f"4. Shapes: Q is {s.q.shape[0]} × {s.q.shape[1]}" in [h.value for h in at.header]
    assert_allclose(decode(_fig(at, "Weights softmax(s), m = 1")["data"][0]["y"]), w.lab.weights)
    assert_allclose(decode(_fig(at, "Its softmax weights")["data"][0]["y"]), w.row_weights)
    assert "learned-like" not in text  # s > 1 is an illustration, not a measured value


def test_editing_a_vector_updates_the_page_and_the_url():
    at = _run(_page())
    at.text_input(key="art_k_mat").set_value("0.3, 0.4, 0.2")
    _run(at)
    d = ar.dot_example({"k_mat": "0.3, 0.4, 0.2"})
    assert d.score_mat == pytest.approx(0.19)
    assert f"add up to **{_g(d.score_mat)}**" in _text(at)
    assert_allclose(decode(_fig(at, "Weights of “cat”")["data"][0]["y"]), d.weights)
    assert at.query_params.get("k_mat") in ("0.3, 0.4, 0.2", ["0.3, 0.4, 0.2"])
    at.text_input(key="art_v_cat").set_value("not numbers")
    _run(at)
    assert any("v_cat" in w.value for w in at.warning)


def test_the_url_sets_the_vectors_and_presenter_mode_shows_one_section():
    at = _page()
    at.query_params["q_cat"] = "1, 0, 0"
    at.query_params["scale"] = "2"
    _run(at)
    d = ar.dot_example({"q_cat": "1, 0, 0"})
    assert f"add up to **{_g(d.score_mat)}**" in _text(at)
    assert at.select_slider(key="art_scale").value == 2.0
    at = _page()
    at.session_state["present"] = True
    at.query_params["step"] = "6"
    _run(at)
    headings = [m.value for m in at.markdown if m.value.startswith("## ")]  # the progress line is the heading
    assert not at.header and headings == ["## **Section 6 of 6** · Is softmax winner-takes-all?"]
    assert words.softmax_text(ar.winner_check()) in _text(at)


@pytest.mark.parametrize("text", [*HOSTILE.values(), "**1**, 2, 3"], ids=[*HOSTILE, "markdown_numbers"])
def test_page_with_hostile_vector_text(text):
    at = _run(_page())
    at.text_input(key="art_k_mat").set_value(text)
    _run(at)
    assert any("k_mat" in w.value for w in at.warning)
    assert words.dot_result(ar.dot_example()) in _text(at)  # the article's value stands in
    assert "<script>" not in _text(at) and "href" not in _text(at)
