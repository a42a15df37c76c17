"""Property tests of the softmax lab's words (lessons/softmax_lab/words.py): every sentence,
formula and question the page computes, over many seeds, multipliers, score vectors, T and
d_k studies, checked against the numbers recomputed here with plain NumPy."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_core import experiments as ex
from attn_core import lab_results
from attn_core.figures.lab import score_labels
from lessons.softmax_lab import words
from tests.support.sentence_numbers import after, numbers
from tests.support.strategies import token_lists
from ui.markup import md_escape

SEEDS = st.integers(0, 10_000)
MULTIPLIERS = st.one_of(st.sampled_from(words.MULTIPLIERS), st.floats(0.01, 200.0))
SCORES = hnp.arrays(np.float64, st.integers(2, 12), elements=st.floats(-10, 10))


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def _bits(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def _saturation(scores: np.ndarray, m: float) -> ex.Saturation:
    return ex.saturation(scores, m)


def _near(shown: float, want: float, digits: int) -> bool:
    """Whether ``shown`` is ``want`` written with ``digits`` decimals."""
    return abs(shown - want) <= 0.5 * 10.0**-digits + 1e-9


def _near_latex(shown: float, want: float, digits: int) -> bool:
    """The same for attn_core.walkthrough.latex_num, which writes a tiny value in scientific
    notation with ``digits`` decimals of the mantissa."""
    fixed = 0.5 * 10.0**-digits
    if want != 0 and abs(want) < fixed:
        return abs(shown - want) <= fixed * abs(want) * 1.001
    return abs(shown - want) <= fixed + 1e-9


# --------------------------------------------------------------------------- the ×m question


def _check_question(sat: ex.Saturation) -> None:
    plain, scaled = _softmax(sat.scores), _softmax(sat.multiplier * sat.scores)
    q = words.saturation_question(sat)
    assert len(set(q.options)) == len(q.options) >= 2
    assert f"multiplied by {sat.multiplier:g}?" in q.prompt and f"these {sat.scores.size} weights" in q.prompt
    assert abs(q.value - scaled.max()) < 1e-12
    said = q.options[q.answer]
    moved = np.abs(scaled - plain).max()
    if moved < words.MOVED:
        assert said == words.STAY
    elif scaled.max() > words.ALMOST_ALL:
        assert said == words.TAKE_ALL
    elif scaled.max() - scaled.min() < words.EVEN:
        assert said == words.EQUAL
    else:  # none of the extremes: the fourth option says which way the largest weight went
        assert said in (words.GROWS, words.SHRINKS)
        assert (said == words.GROWS) == (scaled.max() > plain.max()), (said, plain.max(), scaled.max())
    # What each wording claims, read back: no key "takes almost all" below the threshold, and so on.
    if said == words.STAY:
        assert moved < words.MOVED
    if said == words.TAKE_ALL:
        assert scaled.max() > words.ALMOST_ALL
    if said == words.EQUAL:
        assert scaled.max() - scaled.min() < words.EVEN
    thresholds = numbers(q.explain)
    assert thresholds == [words.MOVED, words.ALMOST_ALL, words.EVEN]


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, m=MULTIPLIERS)
def test_the_question_answers_what_the_page_s_scores_do(seed, m):
    _check_question(_saturation(ex.random_scores(words.N_SCORES, seed=seed), m))


@settings(max_examples=200, deadline=None)
@given(scores=SCORES, m=MULTIPLIERS)
def test_the_question_answers_what_any_scores_do(scores, m):
    _check_question(_saturation(scores, m))


def test_the_questions_wordings_are_all_reached():
    """Over the page's own multipliers and a few seeds, every answer the question can give is given."""
    said = set()
    for m in words.MULTIPLIERS:
        for seed in range(40):
            q = words.saturation_question(_saturation(ex.random_scores(words.N_SCORES, seed=seed), m))
            said.add(q.options[q.answer])
    assert said == {words.STAY, words.TAKE_ALL, words.EQUAL, words.GROWS, words.SHRINKS}


# --------------------------------------------------------------------------- saturation's sentences


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, m=MULTIPLIERS, tokens=token_lists(min_size=0))
def test_the_jacobian_sentence_names_the_largest_score_and_its_bound_holds(seed, m, tokens):
    sat = _saturation(ex.random_scores(words.N_SCORES, seed=seed), m)
    labels = score_labels(list(tokens), words.N_SCORES)
    text = words.jacobian_text(sat, labels)
    w = int(re.search(r"is key (\d+) \(", text).group(1))
    assert w == int(np.argmax(sat.scores))
    assert f"key {w} ({md_escape(labels[w])})" in text
    # "No entry of J is larger in size than 1 − p_w": checked on J built here, at s and at m·s.
    for s in (sat.scores, m * sat.scores):
        p = _softmax(s)
        jac = np.diag(p) - np.outer(p, p)
        assert np.abs(jac).max() <= 1 - p.max() + 1e-12
    plain, scaled = _softmax(sat.scores), _softmax(m * sat.scores)
    plain_j, scaled_j = (np.diag(p) - np.outer(p, p) for p in (plain, scaled))
    shown = numbers(words.jacobian_latex(sat))  # max|J| at s, at m·s, then m, the 1 of (1 - p_w), the slopes
    expected = [np.abs(plain_j).max(), np.abs(scaled_j).max(), plain[w] * (1 - plain[w]), scaled[w] * (1 - scaled[w])]
    for value, want in zip([shown[0], shown[1], shown[-2], shown[-1]], expected, strict=True):
        assert _near_latex(value, want, 3), (value, want)


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, m=MULTIPLIERS)
def test_the_formulas_state_the_scores_and_the_entropies(seed, m):
    sat = _saturation(ex.random_scores(words.N_SCORES, seed=seed), m)
    shown = numbers(words.scores_latex(sat))
    assert len(shown) == sat.scores.size and all(_near(a, b, 2) for a, b in zip(shown, sat.scores, strict=True))
    latex = words.entropy_latex(sat)
    assert _near(after(latex, r"H(\mathrm{softmax}(s)) = "), _bits(_softmax(sat.scores)), 3)
    assert _near(after(latex, rf"H(\mathrm{{softmax}}({m:g}\,s)) = "), _bits(_softmax(m * sat.scores)), 3)


# --------------------------------------------------------------------------- why sqrt(d_k)

D_K = np.array(lab_results.DK_STEPS)


@st.composite
def studies(draw) -> ex.DkStudy:
    """A d_k study with any numbers in it (the wording must follow them, whatever they do)."""
    T = draw(st.integers(2, 64))
    top = float(np.log2(T))
    line = hnp.arrays(np.float64, D_K.size, elements=st.floats(0, top))
    var = hnp.arrays(np.float64, D_K.size, elements=st.floats(0.01, 2000))
    return ex.DkStudy(
        d_k=D_K,
        var_unscaled=draw(var),
        var_scaled=draw(var),
        entropy_unscaled=draw(line),
        entropy_scaled=draw(line),
        T=T,
    )


def _check_entropy_text(study: ex.DkStudy) -> None:
    max_h = float(np.log2(study.T))
    text = words.entropy_text(study, max_h)
    assert after(text, "With T = ") == study.T and _near(after(text, "log₂(T) = "), max_h, 2)
    first, last = study.entropy_unscaled[0], study.entropy_unscaled[-1]
    verb = re.search(r"the mean entropy (\w+) ", text).group(1)
    assert verb == ("falls" if last < first else "rises" if last > first else "is")
    assert _near(after(text, f"the mean entropy {verb} "), first, 2) and after(text, "bits at d_k = ") == study.d_k[0]
    assert _near(after(text, f"at d_k = {study.d_k[0]} "), last, 2)
    assert (": below 1 bit" in text) == (last < 1 and max_h > 1)
    assert _near(after(text, "stays between "), study.entropy_scaled.min(), 2)
    high = study.entropy_scaled.max()
    assert _near(after(text, f"stays between {study.entropy_scaled.min():.2f} and "), high, 2)


@settings(max_examples=150, deadline=None)
@given(study=studies())
def test_the_entropy_sentence_follows_the_numbers(study):
    _check_entropy_text(study)


@settings(max_examples=200, deadline=None)
@given(weights=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(2, 64)), elements=st.floats(0, 50)))
def test_below_one_bit_the_largest_weight_averages_more_than_half(weights):
    """The sentence's reason: a mean row entropy under 1 bit means a mean largest weight over 0.5
    (-log2 of the largest weight is at most the entropy, and -log2 is convex)."""
    p = np.exp(weights - weights.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    if np.mean([_bits(row) for row in p]) < 1:
        assert p.max(axis=1).mean() > 0.5


def test_the_page_s_own_studies():
    """The real studies (few: each is a second of sampling): unscaled entropy falls, scaled it stays."""
    for T, seed in ((2, 1), (8, 0)):
        lab = lab_results.softmax_lab(T=T, dk_seed=seed)
        _check_entropy_text(lab.study)
        assert "falls" in words.entropy_text(lab.study, lab.max_entropy)
        latex = words.variance_latex(lab.study)
        assert after(latex, r"d_k = ") == 512
        assert _near(after(latex, r"\Rightarrow\ "), lab.study.var_unscaled[-1], 1)
        assert _near(after(latex, r"\right) = "), lab.study.var_scaled[-1], 3)


# --------------------------------------------------------------------------- softmax vs sigmoid


@settings(max_examples=200, deadline=None)
@given(
    seed=SEEDS,
    index=st.integers(0, words.N_SCORES - 1),
    delta=st.floats(-10, 20).map(lambda d: round(d * 2) / 2),
    tokens=token_lists(min_size=0),
)
def test_the_raise_caption_and_the_sums(seed, index, delta, tokens):
    scores = ex.random_scores(words.N_SCORES, seed=seed)
    comp = ex.softmax_vs_sigmoid(scores, index, delta)
    labels = score_labels(list(tokens), words.N_SCORES)
    caption = words.raise_caption(index, delta, labels)
    assert caption.startswith("Raising" if delta >= 0 else "Lowering")
    assert after(caption, "score ") == index and md_escape(labels[index]) in caption
    assert numbers(caption)[-1] == abs(delta)
    raised = scores.copy()
    raised[index] += delta
    soft, sig = _softmax(raised).sum(), (1 / (1 + np.exp(-raised))).sum()
    latex = words.sums_latex(comp)
    assert after(latex, r"\sum_i \mathrm{softmax}(s)_i = ") == 1.0 and _near(1.0, soft, 4)
    assert _near(numbers(latex)[-1], sig, 4)


# --------------------------------------------------------------------------- what it showed


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, m=st.sampled_from(words.MULTIPLIERS), hidden=st.booleans(), study=studies())
def test_what_it_showed(seed, m, hidden, study):
    scores = ex.random_scores(words.N_SCORES, seed=seed)
    sat, comp = _saturation(scores, m), ex.softmax_vs_sigmoid(scores, 0, 3.0)
    lab = lab_results.SoftmaxLab(scores, sat, study, float(np.log2(study.T)), comp)
    lines = words.what_it_showed(lab, hidden)
    assert len(lines) == (2 if hidden else 3)
    if not hidden:
        plain, scaled = _softmax(scores), _softmax(m * scores)
        shown = numbers(lines[0])
        assert shown[0] == float(f"{m:g}")
        for value, want in zip(shown[1:], (plain.max(), scaled.max(), _bits(plain), _bits(scaled)), strict=True):
            assert _near(value, want, 2), (value, want)
    variance = lines[-2]
    first, last = study.var_unscaled[0], study.var_unscaled[-1]
    assert (" grows with d_k" in variance) == (last > first)
    assert _near(after(variance, "("), first, 2) and _near(
        after(variance, f"d_k = {study.d_k[0]}, "), last, 0 if last >= 10 else 2
    )
    assert _near(after(variance, "stays between "), study.var_scaled.min(), 2)
    assert _near(numbers(variance)[-1], study.var_scaled.max(), 2)
    sums = numbers(lines[-1])
    assert sums[0] == 1 and _near(sums[1], comp.softmax_sum, 4) and _near(sums[2], comp.sigmoid_sum, 4)
