"""attn_core.lessons: each page's one call, checked against torch and plain formulas."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import attn_core as ac
from attn_core import experiments as ex
from attn_core import lessons

SENTENCE = tuple(ac.tokenize("The animal didn't cross the street because it was too tired."))


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


@pytest.mark.parametrize(("d_model", "n_heads", "d_k", "causal"), [(16, 4, 4, False), (8, 2, 4, True), (6, 1, 6, True)])
def test_multi_head_lesson_equals_torch_multihead_attention(d_model, n_heads, d_k, causal):
    lesson = lessons.multi_head_lesson(SENTENCE, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=3, causal=causal)
    x = ac.embed(list(SENTENCE), d_model, seed=3)
    heads, w_o = ac.init_multi_head(d_model, n_heads, d_k, seed=3)
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch keeps (out, in) weights: the heads' columns stacked, transposed
        mha.in_proj_weight.copy_(
            _t(
                np.concatenate(
                    [
                        np.concatenate([h.w_q for h in heads], axis=1),
                        np.concatenate([h.w_k for h in heads], axis=1),
                        np.concatenate([h.w_v for h in heads], axis=1),
                    ],
                    axis=1,
                ).T
            )
        )
        mha.out_proj.weight.copy_(_t(w_o.T))
    T = len(SENTENCE)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None  # True = may NOT attend
    out, per_head = mha(_t(x)[None], _t(x)[None], _t(x)[None], attn_mask=mask, average_attn_weights=False)
    np.testing.assert_allclose(lesson.steps.output, out[0].detach().numpy(), atol=1e-12)
    for h in range(n_heads):
        np.testing.assert_allclose(lesson.steps.heads[h].weights, per_head[0, h].detach().numpy(), atol=1e-12)
    assert lesson.n_heads == n_heads and lesson.d_v == d_k and lesson.tokens == SENTENCE


@pytest.mark.parametrize("swap", [False, True])
def test_cross_lesson_equals_sdpa(swap):
    source, target = tuple(ac.tokenize("The cat sat on the mat.")), tuple(ac.tokenize("Le chat est assis."))
    lesson = lessons.cross_lesson(source, target, d_model=8, d_k=4, seed=5, swap=swap)
    q_tokens, kv_tokens = (source, target) if swap else (target, source)
    assert (lesson.q_tokens, lesson.kv_tokens) == (q_tokens, kv_tokens)
    assert (lesson.q_name, lesson.kv_name) == (("source", "target") if swap else ("target", "source"))
    x_q, x_kv = ac.embed(list(q_tokens), 8, seed=5), ac.embed(list(kv_tokens), 8, seed=5)
    w = ac.init_weights(8, 4, seed=5)
    q, k, v = _t(x_q @ w.w_q), _t(x_kv @ w.w_k), _t(x_kv @ w.w_v)
    np.testing.assert_allclose(lesson.steps.output, F.scaled_dot_product_attention(q, k, v).numpy(), atol=1e-12)
    assert lesson.steps.weights.shape == (len(q_tokens), len(kv_tokens))


def test_mask_study_runs_equal_sdpa_with_each_mask():
    study = lessons.mask_study(SENTENCE, radius=1, dilation=3, seed=2)
    T = len(SENTENCE)
    x = ac.embed(list(SENTENCE), 16, seed=2)
    w = ac.init_weights(16, 4, seed=2)
    q, k, v = _t(x @ w.w_q), _t(x @ w.w_k), _t(x @ w.w_v)
    offsets = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    allowed = {
        "global": np.ones((T, T), bool),
        "causal": np.tril(np.ones((T, T), bool)),
        "window": offsets <= 1,
        "dilated": (offsets % 3 == 0) & (offsets <= 3),
    }
    assert [kind for kind, _ in study.runs] == list(ex.MASK_KINDS)
    for kind, mask in allowed.items():
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=_t(mask)).numpy()
        np.testing.assert_allclose(study.steps(kind).output, expected, atol=1e-12, err_msg=kind)
        assert study.kept[kind] == int(mask.sum())
        np.testing.assert_array_equal(
            study.counts[kind][study.T_values == 8],
            [int(ex.make_mask(kind, 8, radius=1, dilation=3).sum()) if kind != "global" else 64],
        )
    np.testing.assert_array_equal(study.memory, 4 * study.T_values.astype(np.int64) ** 2)


def test_mask_study_other_scores_by_their_formulas():
    study = lessons.mask_study(SENTENCE, seed=4)
    x = ac.embed(list(SENTENCE), 16, seed=4)
    w = ac.init_weights(16, 4, seed=4)
    v_a = ex.init_v_a(4, seed=4)
    T = len(SENTENCE)
    additive = np.array([[np.tanh(x[i] @ w.w_q + x[j] @ w.w_k) @ v_a for j in range(T)] for i in range(T)])
    np.testing.assert_allclose(study.additive, additive, atol=1e-12)
    np.testing.assert_allclose(study.dot, (x @ w.w_q) @ (x @ w.w_k).T / 2.0, atol=1e-12)
    np.testing.assert_allclose(study.w_qk, w.w_q @ w.w_k.T)
    assert study.bilinear_diff < 1e-12
    top = np.mean(additive.argmax(axis=1) == study.dot.argmax(axis=1))
    assert study.top_agree == pytest.approx(top) and study.top_agree_chance == pytest.approx(1 / T)


def test_additive_and_dot_agree_about_as_often_as_chance():
    """The page says the top keys of the two scores agree about as often as chance (1 in T):
    averaged over 200 seeds, the agreement stays within a factor 1.5 of 1/T."""
    for text in ("The cat sat on the mat.", "The animal didn't cross the street because it was too tired."):
        tokens = tuple(ac.tokenize(text))
        agree = np.mean([lessons.mask_study(tokens, seed=s).top_agree for s in range(200)])
        assert agree < 1.5 / len(tokens), (text, agree)


def test_softmax_lab_parts_and_jacobian():
    lab = lessons.softmax_lab(seed=7, multiplier=100.0, T=8, dk_seed=1, index=2, delta=-4.0)
    np.testing.assert_array_equal(lab.scores, ex.random_scores(8, seed=7))
    np.testing.assert_allclose(lab.saturation.scaled_weights, ac.softmax(lab.scores * 100.0))
    np.testing.assert_allclose(lab.competition.softmax_after[2], ac.softmax(lab.scores + np.eye(8)[2] * -4.0)[2])
    assert lab.max_entropy == pytest.approx(3.0)
    np.testing.assert_array_equal(lab.study.d_k, lessons.DK_STEPS)
    for scores, jac in ((lab.scores, lab.saturation.jacobian), (lab.scores * 100, lab.saturation.scaled_jacobian)):
        expected = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, 0), _t(scores)).numpy()
        np.testing.assert_allclose(jac, expected, atol=1e-15)
    # No entry of J exceeds the largest p_i (1 - p_i), so when one weight nears 1 all of J collapses.
    for p, jac in (
        (lab.saturation.weights, lab.saturation.jacobian),
        (lab.saturation.scaled_weights, lab.saturation.scaled_jacobian),
    ):
        assert np.abs(jac).max() == pytest.approx((p * (1 - p)).max())
    lab = lessons.softmax_lab(seed=0, multiplier=100.0)  # the page's default: saturated at x100
    w = lab.saturation.winner
    assert np.abs(lab.saturation.scaled_jacobian).max() < 0.01 * np.abs(lab.saturation.jacobian).max()
    assert lab.saturation.scaled_jacobian[w, w] < 1e-3 < lab.saturation.jacobian[w, w]
