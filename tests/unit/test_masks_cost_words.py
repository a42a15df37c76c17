"""Property tests of Masks and cost's words (lessons/masks_cost/words.py): every sentence,
formula and question the page computes, over many sentences, window radii, dilations and seeds,
checked against the numbers recomputed here (masks counted pair by pair, attention by hand)."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_core as ac
from attn_core import experiments as ex
from attn_core import lab_results
from lessons.masks_cost import words
from tests.support.sentence_numbers import after, numbers
from tests.support.strategies import token_lists
from ui.markup import md_escape

RADII, DILATIONS, SEEDS = st.integers(0, 8), st.integers(1, 4), st.integers(0, 10_000)


@st.composite
def studies(draw) -> tuple[lab_results.MaskStudy, int, int, int]:
    """The page's call on a drawn sentence: (study, radius, dilation, seed)."""
    tokens, radius, dilation, seed = draw(token_lists(max_size=24)), draw(RADII), draw(DILATIONS), draw(SEEDS)
    return words.study(tokens, radius, dilation, seed), radius, dilation, seed


def _allowed(kind: str, T: int, radius: int, dilation: int) -> np.ndarray:
    """Which pairs a mask keeps, decided pair by pair."""
    keep = {
        "global": lambda i, j: True,
        "causal": lambda i, j: j <= i,
        "window": lambda i, j: abs(i - j) <= radius,
        "dilated": lambda i, j: abs(i - j) % dilation == 0 and abs(i - j) <= radius * dilation,
    }[kind]
    return np.array([[keep(i, j) for j in range(T)] for i in range(T)], dtype=bool)


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


# --------------------------------------------------------------------------- 1. the masks


@settings(max_examples=100, deadline=None)
@given(call=studies(), kind=st.sampled_from(ex.MASK_KINDS))
def test_each_mask_states_the_scores_it_keeps(call, kind):
    study, radius, dilation, _ = call
    T = len(study.tokens)
    kept = int(_allowed(kind, T, radius, dilation).sum())
    latex = words.kept_latex(study, kind, radius, dilation)
    assert numbers(latex)[:5] == [T, kept, T, T, T * T]
    assert (r"r = " in latex) == (kind in ("window", "dilated"))
    if kind in ("window", "dilated"):
        assert after(latex, "r = ") == radius
    assert (r"\text{dilation} = " in latex) == (kind == "dilated")
    if kind == "dilated":
        assert numbers(latex)[-1] == dilation


@settings(max_examples=200, deadline=None)
@given(T=st.integers(1, 64), radius=RADII)
def test_the_window_question_answers_the_count(T, radius):
    kept = int(_allowed("window", T, radius, 1).sum())
    q = words.window_question(T, radius, kept)
    if q is None:  # nothing to choose between: every candidate count is the same
        assert T == 1
        return
    assert len(set(q.options)) == len(q.options) >= 2 and all(0 < int(n) <= T * T for n in q.options)
    assert int(q.options[q.answer]) == kept and abs(q.value - kept / T**2) < 1e-15
    assert numbers(q.prompt) == [radius, T, T, T, T * T]
    naive = T * (2 * radius + 1)
    if radius == 0:
        assert q.explain.startswith("Radius 0") and kept == T  # one score per row
    elif kept == T * T:
        assert numbers(q.explain)[:3] == [radius, 1, T - 1] and radius >= T - 1
    else:  # "the rows near either end have fewer neighbours": fewer than the full 2r + 1 each
        assert numbers(q.explain) == [radius, 2, 1, 2 * radius + 1, kept, 2, 1, naive]
        assert kept < naive
    if naive <= T * T and naive != kept:
        assert str(naive) in q.options  # the count that forgets the edges is offered


@settings(max_examples=150, deadline=None)
@given(call=studies())
def test_the_kv_cache_sentence_states_a_generation_step(call):
    study, _, _, seed = call
    tokens, T, d_k = study.tokens, len(study.tokens), study.d_k
    text = words.kv_cache_text(study)
    # The step, by hand: the last token's query against every key, no mask, equals the causal row.
    x = ac.embed(list(tokens), study.d_model, seed=seed)
    w = ac.init_weights(study.d_model, d_k, seed=seed)
    q_last, k, v = x[-1] @ w.w_q, x @ w.w_k, x @ w.w_v
    row = _softmax(q_last @ k.T / np.sqrt(d_k))
    np.testing.assert_allclose(row, study.steps("causal").weights[-1], atol=1e-12)
    np.testing.assert_allclose(row @ v, study.kv_step.output[0], atol=1e-12)
    d_v = v.shape[1]
    assert f"“{md_escape(tokens[-1])}” (token {T - 1})" in text
    assert after(text, "its one query meets ") == T
    assert after(text, "keys: ") == T and after(text, f"keys: {T} × ") == d_k
    assert after(text, f"{T} × {d_k} = ") == T * d_k and after(text, f"{T} × {d_v} = ") == T * d_v
    assert after(text, f"{T} × {T} × {d_k} = ") == T * T * d_k
    gap = np.abs(study.steps("causal").weights[-1] - study.kv_step.weights[0]).max()
    stated = after(text, "largest difference ")
    assert stated == (0 if gap == 0 else float(f"{gap:.1e}")) and stated < 1e-12
    assert after(text, f"{T} × ({d_k} + {d_v}) = ") == T * (d_k + d_v) == k.size + v.size  # one key, one value a token


@settings(max_examples=200, deadline=None)
@given(T=st.integers(1, 64), dilation=DILATIONS)
def test_the_longnet_note_works_out_its_offsets(T, dilation):
    text = words.longnet_text(T, dilation)
    assert "probably LongNet's" in text and "s_j = j mod r" in text  # an inference, and offsets, not rates
    if dilation == 1:
        assert numbers(text.split("With r = ")[1]) == [1, 0, T]
        return
    covered = []
    for s in range(dilation):
        expected = list(range(s, T, dilation))
        said = re.search(rf"offset {s} keeps ([^;.]*)", text).group(1)
        if not expected:
            assert said == "no position"
            continue
        shown = numbers(said)
        if len(expected) == 1:
            assert shown == [expected[0]]
        elif len(expected) <= 5:
            assert shown == [*expected, len(expected)]
        else:
            assert shown == [*expected[:3], expected[-1], len(expected)] and "…" in said
        covered += expected
    assert sorted(covered) == list(range(T))  # every position once
    assert after(text, "Take your ") == T and after(text, "r = ") == dilation
    assert numbers(text.split("Together the ")[1]) == [dilation, len(covered), T]


# --------------------------------------------------------------------------- 2. cost


def _count(kind: str, T: int, radius: int, dilation: int) -> int:
    """Kept pairs at length T, by a closed form for global and causal and by offsets for the others."""
    if kind == "global":
        return T * T
    if kind == "causal":
        return T * (T + 1) // 2
    offsets = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    if kind == "window":
        return int((offsets <= radius).sum())
    return int(((offsets % dilation == 0) & (offsets <= radius * dilation)).sum())


@settings(max_examples=100, deadline=None)
@given(call=studies())
def test_the_cost_sentences_state_the_bill(call):
    study, radius, dilation, _ = call
    T, T_max = len(study.tokens), 512
    assert study.T_values[-1] == T_max
    text = words.cost_text(study)
    kept = T * (T + 1) // 2
    assert after(text, "Causal attention keeps T(T+1)/2 of the T² scores: ") == kept
    assert after(text, f"{kept} of ") == T * T
    saved, saved_max = 1 - kept / T**2, 1 - (T_max + 1) / (2 * T_max)
    assert abs(after(text, "so it saves ") - 100 * saved) <= 0.05 + 1e-9
    assert after(text, "at T = ") == T_max and abs(after(text, f"at T = {T_max} it saves ") - 100 * saved_max) <= 0.05
    assert saved_max < 0.5  # "slightly less than half"
    latex = words.cost_latex(study)
    assert after(latex, r"\text{global} = 512^2 = ") == T_max**2 == _count("global", T_max, radius, dilation)
    assert after(latex, r"\text{window} = ") == _count("window", T_max, radius, dilation)
    assert after(latex, r"4 \times 512^2 = ") == 4 * T_max**2
    caption = words.memory_caption(study)
    L, H = words.BASE_LAYERS, words.BASE_HEADS
    assert numbers(caption)[:3] == [L, H, L * H]
    assert after(caption, "backward pass: ") == L * H * 4 * T_max**2
    assert after(caption, f"one layer's {H} (") == H * 4 * T_max**2
    kv = words.kv_cache_caption(study)
    d_k = words.BASE_D_K
    assert after(kv, "with d_k = ") == d_k
    assert numbers(kv.split("make ")[1])[:6] == [2, L, H, d_k, T_max, 2 * L * H * d_k * T_max]
    assert after(kv, "numbers, ") == 4 * 2 * L * H * d_k * T_max and words.SECTIONS["causal"] in kv


# --------------------------------------------------------------------------- 3. other scores


@settings(max_examples=100, deadline=None)
@given(call=studies())
def test_the_other_scores_sentences(call):
    study, _, _, seed = call
    tokens, T, d_k, d_model = study.tokens, len(study.tokens), study.d_k, study.d_model
    x = ac.embed(list(tokens), d_model, seed=seed)
    w = ac.init_weights(d_model, d_k, seed=seed)
    v_a = ex.init_v_a(d_k, seed=seed)
    q, k = x @ w.w_q, x @ w.w_k
    additive = np.tanh(q[:, None, :] + k[None, :, :]) @ v_a  # (T, T, d_k) @ (d_k,) -> (T, T)
    dot = q @ k.T / np.sqrt(d_k)
    bound = np.abs(v_a).sum()
    text = words.additive_text(study)
    assert abs(after(text, "Σ|v_a| = ") - bound) <= 0.0005 + 1e-12
    assert abs(after(text, "the largest is ") - np.abs(additive).max()) <= 0.0005 + 1e-12
    assert np.abs(additive).max() <= bound  # "no score is larger in size than Σ|v_a|"
    agree = int(np.sum(additive.argmax(axis=1) == dot.argmax(axis=1)))
    text = words.agree_text(study)
    assert after(text, "the same under both in ") == agree and after(text, f"{agree} of ") == T
    assert after(text, "probability 1/") == T and after(text, "so in about ") == 1  # T rows × 1/T
    latex = words.scores_latex(study)
    assert after(latex, r"\sqrt{") == d_k
    assert abs(after(latex, r"e^{\mathrm{additive}}_{00} = ") - additive[0, 0]) <= 0.0005 + 1e-12
    assert abs(after(latex, r"e^{\mathrm{dot}}_{00} = ") - dot[0, 0]) <= 0.0005 + 1e-12
    text = words.bilinear_text(study)
    assert numbers(text)[:3] == [d_model, d_model, d_k]
    assert np.linalg.matrix_rank(w.w_q @ w.w_k.T) <= d_k  # "of rank at most d_k"
    diff = np.abs(x @ (w.w_q @ w.w_k.T) @ x.T - q @ k.T).max()
    stated = numbers(words.bilinear_latex(study))[-1]
    assert np.isclose(stated, float(f"{study.bilinear_diff:.1e}"), rtol=1e-12, atol=0) and diff < 1e-12


# --------------------------------------------------------------------------- what it showed


@settings(max_examples=100, deadline=None)
@given(call=studies(), hidden=st.booleans())
def test_what_it_showed(call, hidden):
    study, radius, dilation, _ = call
    T = len(study.tokens)
    masks, cost, agree = words.what_it_showed(study, radius, hidden)
    kept = {kind: int(_allowed(kind, T, radius, dilation).sum()) for kind in ex.MASK_KINDS}
    if hidden:
        assert numbers(masks) == [T, kept["causal"], T * T, 0]
        assert numbers(cost) == [512**2, 512]
    else:
        assert numbers(masks) == [T, kept["causal"], T * T, radius, kept["window"], kept["dilated"], 0]
        assert numbers(cost) == [512**2, 512, _count("window", 512, radius, dilation)]
    best = int(np.sum(study.additive.argmax(axis=1) == study.dot.argmax(axis=1)))
    assert numbers(agree) == [best, T]
