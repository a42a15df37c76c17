"""The sentences of "The articles, checked" (lessons/articles/words/) against the numbers they
state, over many typed vectors, seeds, causal tables and scales: each test recomputes what a
sentence claims, with plain NumPy where it can, and checks it."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_core import article_checks as ar
from lessons.articles import words
from tests.support.hostile_corpus import HOSTILE
from ui.markup import md_escape
from ui.reader import PROJECTOR, SCREEN, Reader

READERS = st.sampled_from([SCREEN, PROJECTOR, Reader(paged=True)])
NUMBER = r"−?\d+(?:\.\d+)?(?:e[−+]?\d+)?"
ENTRY = st.integers(-300, 300).map(lambda n: n / 100)
VECTOR = st.tuples(ENTRY, ENTRY, ENTRY)
FAST = settings(max_examples=100, deadline=None)


def _num(text: str) -> float:
    return float(text.replace("−", "-"))


def _close(stated: str, value: float, digits: int = 3) -> bool:
    return abs(_num(stated) - value) <= 0.5 * 10**-digits + 1e-12


def _latex_numbers(text: str) -> list[float]:
    """The numbers of a LaTeX formula written by walkthrough.latex_num: "0.076", "4.630\\times10^{-4}"."""
    return [float(m) * 10.0 ** int(e or 0) for m, e in re.findall(r"(-?\d+\.\d+)(?:\\times10\^\{(-?\d+)\})?", text)]


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _bits(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


# --------------------------------------------------------------------------- 1. the 3-number example


@settings(max_examples=300, deadline=None)
@given(VECTOR, VECTOR, VECTOR)
def test_the_dot_product_sentences(q, k_mat, v_mat):
    texts = {"q_cat": ar.format_vector(q), "k_mat": ar.format_vector(k_mat), "v_mat": ar.format_vector(v_mat)}
    d = ar.dot_example(texts)
    score = float(np.dot(q, k_mat))
    # the formula: each product, their sum
    latex = words.dot_latex(d)
    assert math.isclose(float(latex.rsplit("= ", 1)[1]), score, rel_tol=5e-4, abs_tol=5e-5)
    terms = [float(t) for t in latex.rsplit("= ", 2)[1].replace(" - ", " + -").split(" + ")]
    assert terms == pytest.approx(np.array(q) * np.array(k_mat), rel=5e-4, abs=5e-5)
    result = words.dot_result(d)
    if abs(score - ar.ARTICLE_SCORE) < 5e-3:
        assert "the article's number" in result
    else:
        stated = re.search(rf"add up to \*\*({NUMBER})\*\*, not the 0\.24", result).group(1)
        assert math.isclose(_num(stated), score, rel_tol=5e-4, abs_tol=5e-5)
        assert ("The score is negative" in result) == (score < 0)
    # the whole row, recomputed: every key of the sentence against q_cat, over √3
    tokens = ar.CAT_TOKENS
    keys = np.array([k_mat if t == "mat" else ar.DEFAULT_VECTORS[f"k_{t}"] for t in tokens])
    values = np.array([v_mat if t == "mat" else ar.DEFAULT_VECTORS[f"v_{t}"] for t in tokens])
    weights = _softmax(keys @ np.array(q) / math.sqrt(3))
    table = words.row_table(d)
    assert all(_close(s, w) for s, w in zip(table["weight"], weights, strict=True))
    assert all(_close(s, x) for s, x in zip(table["÷ √d_k"], keys @ np.array(q) / math.sqrt(3), strict=True))
    assert f"1/√3 = {1 / math.sqrt(3):.3f}" in words.row_intro(d)
    out = _latex_numbers(words.output_latex(d).split("=")[-1])
    assert out == pytest.approx(weights @ values, abs=5e-4)
    assert _latex_numbers(words.first_entry_latex(d).rsplit("= ", 1)[1]) == pytest.approx([out[0]], abs=5e-4)
    # mat: its weight against an even share, and against the article's score
    m = tokens.index("mat")
    text = words.mat_text(d)
    w, relation, share, would = re.search(
        rf"gets weight ({NUMBER}), (less|more|exactly as much) than an even share 1/6 = ({NUMBER})\. .* would have "
        rf"been ({NUMBER}):",
        text,
    ).groups()
    assert _close(w, weights[m]) and _close(share, 1 / 6)
    assert relation == ("less" if weights[m] < 1 / 6 else "more" if weights[m] > 1 / 6 else "exactly as much")
    article = keys @ np.array(q)
    article[m] = ar.ARTICLE_SCORE
    article_weight = _softmax(article / math.sqrt(3))[m]
    assert _close(would, article_weight)
    assert ("changes the result" in text) == (abs(article_weight - weights[m]) >= 5e-4)


def test_the_article_vectors_are_quoted_as_given():
    d = ar.dot_example({"q_cat": "1, 2, 3"})  # the student's q_cat: the quote stays the article's
    intro = words.dot_intro(d)
    assert "q_cat = [0.5, −0.3, 0.8] and mat's key k_mat = [0.3, 0.4, −0.2]" in intro
    assert "x_cat = [0.2, −0.1, 0.9]" in intro and "a score of 0.24." in intro


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_problem_is_escaped(name):
    text = words.problem_text("k_mat", f"expected 3 numbers, got {HOSTILE[name]}")
    assert md_escape(HOSTILE[name]) in text and text.endswith("Using the article's value [0.3, 0.4, −0.2].")


# --------------------------------------------------------------------------- 2. the causal table


def _causal(lead: tuple[int, ...], seed: int) -> ar.CausalCheck:
    """A causal check with another table in the notes' layout (rows k_j start with lead[j] cells of -inf)."""
    base = ar.causal_check(seed)
    article = ar.article_causal_mask(lead)
    wrong = tuple((int(j), int(i)) for j, i in zip(*np.nonzero(article & ~base.correct), strict=True))
    steps = ar.attention_steps(base.steps_correct.x, *_head(seed), mask=article.T)
    return dataclasses.replace(base, article=article, wrong=wrong, steps_article=steps)


def _unmasked(seed: int) -> ar.AttentionSteps:
    """The head of section 2 without a mask, as articles_lesson runs it."""
    return ar.attention_steps(ar.embed(list(ar.causal_check(seed).tokens), 8, seed=seed), *_head(seed))


def _head(seed: int):
    w = ar.init_weights(ar.SHAPES_D, ar.SHAPES_D_K, seed=seed)
    return w.w_q, w.w_k, w.w_v


@FAST
@given(st.lists(st.integers(0, 8), min_size=8, max_size=8), st.integers(0, 1000), READERS)
def test_the_causal_table_sentences(lead, seed, reader):
    lead = tuple(lead)
    c = _causal(lead, seed)
    T = 8
    future = [(j, i) for j in range(T) for i in range(T) if i >= lead[j] and j > i]  # kept, yet in query i's future
    sentences = words.wrong_rows(c)
    assert len(sentences) == len({j for j, _ in future})
    for text in sentences:
        j = int(re.search(r"row k(\d+) starts", text).group(1)) - 1
        starts, needs = (int(n) for n in re.search(r"starts with (\d+) cells of −∞; it needs (\d+)\.", text).groups())
        assert starts == min(lead[j], T) and needs == j  # row k_j must hide the queries i < j
        named = [(int(b) - 1, int(a) - 1) for a, b in re.findall(r"q(\d+)ᵀk(\d+)", text)]
        assert named == [(jj, i) for jj, i in future if jj == j]
    leak = words.leak_text(c, reader)
    stated = [_num(x) for x in re.findall(rf"gives ({NUMBER}) of its weight", leak)]
    weights = c.steps_article.weights
    assert stated == pytest.approx([weights[i, j] for j, i in future], abs=5e-4)
    assert "every weight on a later word is exactly 0:" in leak and np.all(np.triu(c.steps_correct.weights, 1) == 0)
    assert f"charts {'above' if reader.presenting else 'below'} use" in leak
    cells = words.cell_text(c.article)
    assert sum(row.count("−∞") for row in cells) == int((~c.article).sum())


def test_the_notes_table_is_wrong_in_row_6_only():
    sentences = words.wrong_rows(ar.causal_check())
    assert len(sentences) == 1 and "row k6 starts with 3 cells of −∞; it needs 5" in sentences[0]


@FAST
@given(st.integers(0, 10_000))
def test_the_missing_mask_sentence(seed):
    dc = ar.decoder_check(seed)
    w_q, w_k, w_v = _head(seed)
    moved = {}
    for mask in (None, "causal"):
        a, b = (
            ar.attention_steps(ar.embed(list(t), 8, seed=seed), w_q, w_k, w_v, mask=mask).output
            for t in (dc.tokens, dc.changed)
        )
        moved[mask] = float(np.abs(a[:-1] - b[:-1]).max())
    text = words.callebaut_text(dc)
    up_to, causal = re.search(
        rf"move by up to ({NUMBER}); with the causal mask they move by ({NUMBER})\.", text
    ).groups()
    assert _close(up_to, moved[None]) and _num(causal) == moved["causal"] == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.integers(1, 16))
def test_the_longnet_caption(segment, rate):
    """LongNet (Ding et al., 2023, §2.2-2.3): a head keeps every r-th position of each segment from
    its offset j mod r; the heads differ in offset, not rate; the articles' name is probably it."""
    text = words.longnet_caption(segment, rate)
    assert "probably LongNet's" in text and "do not get different rates" in text and "softmax denominator" in text
    covered = set()
    listed = re.findall(r"heads ([\d, ]+), … keep its tokens ([\d, ]*)", text)
    assert len(listed) == rate
    for offset, (heads, kept) in enumerate(listed):
        heads = [int(h) for h in heads.split(", ")]
        assert all((h - 1) % rate == offset for h in heads)  # head h (from 1) is the paper's j = h - 1
        tokens = [int(t) for t in kept.split(", ") if t]
        assert tokens == [p + 1 for p in range(segment) if p % rate == offset]  # every r-th, from the offset
        covered.update(tokens)
    assert covered == set(range(1, segment + 1)) or rate > segment  # together they cover the segment


def test_longnet_rows_is_the_papers_selection():
    for w, r, start in ((8, 2, 0), (16, 4, 16), (6, 3, 12)):
        for j in range(2 * r):
            rows = ar.longnet_rows(w, r, j, start)
            assert rows == tuple(range(start + j % r, start + w, r))
    with pytest.raises(ValueError):
        ar.longnet_rows(8, 0, 1)


# --------------------------------------------------------------------------- 3. rows or columns


@FAST
@given(st.integers(0, 10_000), st.floats(0.01, 20))
def test_the_rows_and_columns_sentence(seed, spread):
    base = ar.rows_columns(_unmasked(seed), ar.causal_check(seed).tokens)
    scaled = base.scaled * spread  # the same layout, scores of any size
    r = dataclasses.replace(base, scaled=scaled, by_row=_softmax(scaled, 1), by_column=_softmax(scaled, 0))
    text = words.rows_text(r)
    spans = [(_num(a), _num(b)) for a, b in re.findall(rf"from ({NUMBER}) to ({NUMBER})", text)]
    by_row, by_col = _softmax(scaled, 1), _softmax(scaled, 0)
    sums = [by_row.sum(1), by_row.sum(0), by_col.sum(1), by_col.sum(0)]  # in the sentence's order
    for (lo, hi), s in zip(spans, sums, strict=True):
        assert lo == pytest.approx(s.min(), abs=5e-4) and hi == pytest.approx(s.max(), abs=5e-4)
    col_rows_one = bool(np.all(np.abs(by_col.sum(1) - 1) < 5e-4))
    assert ("Only the first gives each query" in text) == (not col_rows_one)
    assert ("Here both give each query" in text) == col_rows_one
    assert words.rows_latex(base).endswith("= 0")


# --------------------------------------------------------------------------- 4. shapes


@FAST
@given(st.integers(0, 10_000), st.integers(0, 15), st.integers(0, 3))
def test_the_shapes_sentences(seed, i, j):
    s = ar.shape_check(seed, i, j)
    x, w = ar.embed(list(s.tokens), 8, seed=seed), ar.init_weights(8, 4, seed=seed).w_q
    assert "is **16 × 4**" in words.shapes_text(s) and "the sum has 8 terms, not 4" in words.shapes_text(s)
    assert f"Here is $q_{{{i + 1},{j + 1}}}$ in full" in words.shapes_text(s)
    stop = words.shapes_stop_text(s)
    first4, full = re.search(rf"gives ({NUMBER}) instead of ({NUMBER})\.", stop).groups()
    assert _close(first4, float(x[i, :4] @ w[:4, j]), 4) and _close(full, float(x[i] @ w[:, j]), 4)
    assert words.shapes_latex(s).count("x_{") == 8  # every one of the d = 8 terms
    assert _latex_numbers(words.shapes_latex(s).rsplit("&= ", 1)[1]) == pytest.approx([x[i] @ w[:, j]], abs=5e-5)


def test_the_dimensions_sentence():
    dm = ar.dimension_check()
    text = words.dimensions_text(dm)
    assert f"a W_k with {dm.d_k + 1} columns beside a W_q with {dm.d_k}" in text
    assert f"(max |Δ| = {dm.weights_gap:g}) and an output of shape 8 × {dm.d_v}." in text and dm.weights_gap == 0


# --------------------------------------------------------------------------- 5. conventions


@FAST
@given(st.integers(0, 10_000))
def test_the_conventions_sentences(seed):
    cv = ar.conventions(_unmasked(seed), ar.causal_check(seed).tokens, *_head(seed))
    text = words.conventions_text(cv)
    assert (
        "a $W^q$ of 8 × 4 times a column of 8 numbers is not defined; its transpose gives a query column of 4 × 1"
        in text
    )
    table = words.conventions_table(cv)
    assert table["columns (Kumar's article)"] == ["4 × 8", "4 × 8", "4 × 8", "8 × 8", "8 × 4"]
    assert table["rows (this app)"] == ["8 × 4", "8 × 4", "8 × 4", "8 × 8", "8 × 4"]
    gaps = re.findall(r"\\right\| = ([^,\\]+)", words.conventions_latex(cv))
    assert all(g == "0" or abs(float(g.split("\\times")[0])) < 1e-9 or "10^{-1" in g for g in gaps)
    assert words.conventions_caption(cv).startswith("The head of section 2: T = 8, d_k = 4, d_v = 4.")


# --------------------------------------------------------------------------- 6. winner takes all?


def test_the_softmax_sentence():
    w = ar.winner_check()
    scores = w.lab.scores
    text = words.softmax_text(w)
    top, bits, most, scaled_bits, scaled_top = (
        _num(x)
        for x in re.search(
            rf"largest weight is ({NUMBER}) and the entropy is \*\*({NUMBER}) bits\*\* of a possible ({NUMBER}).*falls "
            rf"to ({NUMBER}) bits, with a top weight of ({NUMBER})\.",
            text,
        ).groups()
    )
    p, p100 = _softmax(scores), _softmax(100 * scores)
    assert top == pytest.approx(p.max(), abs=5e-4) and bits == pytest.approx(_bits(p), abs=5e-3)
    assert most == pytest.approx(math.log2(len(scores)), abs=5e-3)
    assert scaled_bits == pytest.approx(_bits(p100), abs=5e-4) and scaled_top == pytest.approx(p100.max(), abs=5e-4)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ar.LEARNED_SCALES), st.integers(0, 10_000), READERS)
def test_the_saturation_sentences(scale, seed, reader):
    w = ar.winner_check(scale, seed=seed)
    raw = ar._learned_rows(scale, w.d_k, 8, w.rows, seed)  # the scores the check drew
    scaled = raw / math.sqrt(w.d_k)
    p = _softmax(scaled)
    text = words.saturation_text(w, reader)
    m = re.search(
        rf"With (.*?), over (\d+) rows of (\d+) scaled scores, the mean entropy is \*\*({NUMBER}) bits\*\* and the "
        rf"largest weight averages ({NUMBER}); .* The scaled row (above|below) (still saturates|does not saturate): "
        rf"its top weight is ({NUMBER}) and its entropy ({NUMBER}) bits\.",
        text,
    )
    assert m, text
    named, rows, T, mean_bits, mean_top, where, saturates, top, bits = m.groups()
    assert named == ("scores of unit size (s = 1)" if scale == 1 else f"larger scores (s = {scale:g}, an illustration)")
    assert (int(rows), int(T)) == (w.rows, 8)
    assert _close(mean_bits, np.mean([_bits(row) for row in p]), 2) and _close(mean_top, p.max(1).mean(), 2)
    assert where == ("above" if reader.presenting else "below")
    assert _close(top, p[0].max()) and _close(bits, _bits(p[0]))
    assert saturates == ("still saturates" if p[0].max() >= words.SATURATED else "does not saturate")
    latex = words.winner_latex(w)
    var_raw, expected_raw, var_scaled, expected_scaled = re.search(
        r"= ([\d.]+)\\ \(d_k s\^4 = ([\d.e+]+)\).*= ([\d.]+)\\ \(s\^4 = ([\d.e+]+)\)", latex
    ).groups()
    assert float(expected_raw) == pytest.approx(w.d_k * scale**4, rel=1e-5) and float(expected_scaled) == pytest.approx(
        scale**4, rel=1e-5
    )
    assert float(var_raw) == pytest.approx(raw.var(), abs=0.06) and float(var_scaled) == pytest.approx(
        scaled.var(), abs=0.006
    )


def test_the_scaling_claim_names_mean_zero_and_no_learned_label():
    assert "independent entries of mean 0 and standard deviation s, Var(q·k) = d_k·s⁴" in words.SCALING_TEXT
    rng = np.random.default_rng(0)
    for s, d_k in ((1.0, 64), (3.0, 16)):  # the claim, by simulation: Var(q·k) = d_k·s⁴ for mean-0 entries
        qk = (rng.normal(0, s, (40_000, d_k)) * rng.normal(0, s, (40_000, d_k))).sum(1)
        assert qk.var() == pytest.approx(d_k * s**4, rel=0.05)
    for text in (words.SCALE_LABEL, words.SCALING_TEXT, *words.what_it_showed(ar.articles_lesson())):
        assert "learned-like" not in text


# --------------------------------------------------------------------------- what it showed


@settings(max_examples=20, deadline=None)
@given(VECTOR, st.sampled_from(ar.LEARNED_SCALES), st.integers(0, 100))
def test_what_it_showed(k_mat, scale, seed):
    lesson = ar.articles_lesson({"k_mat": ar.format_vector(k_mat)}, scale=scale, seed=seed)
    lines = words.what_it_showed(lesson)
    score = float(np.dot(ar.DEFAULT_VECTORS["q_cat"], k_mat))
    assert f"q_cat · k_mat is {score:.4g}".replace("-", "−") in lines[0] or abs(score) < 1e-12
    assert ("not the article's 0.24" in lines[0]) == (abs(score - 0.24) >= 5e-3)
    assert "keeps 2 scores that look into the future" in lines[1]
    top = float(_softmax(lesson.winner.row_scaled).max())
    assert ("still saturates" in lines[2]) == (top >= words.SATURATED)


@FAST
@given(st.integers(0, 10_000))
def test_the_intros_state_the_sizes(seed):
    c, s = ar.causal_check(seed), ar.shape_check(seed)
    assert f"with T = {len(c.tokens)} (they count the words" in words.causal_intro(c) and len(c.tokens) == 8
    intro = words.shapes_intro(s)
    assert f"an X with {s.x.shape[0]} rows (one per token) and {s.x.shape[1]} columns (d = {s.x.shape[1]})" in intro
    assert f"with {s.w_q.shape[0]} rows and {s.w_q.shape[1]} columns" in intro
    assert words.key_labels(c)[5] == "k6 through" and words.query_labels(c)[3] == "q4"
