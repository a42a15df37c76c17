"""attn_core.lab_results: each page's one call, checked against torch and plain formulas."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import attn_core as ac
from attn_core import experiments as ex
from attn_core import lab_results

SENTENCE = tuple(ac.tokenize("The animal didn't cross the street because it was too tired."))


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


@pytest.mark.parametrize(("d_model", "n_heads", "d_k", "causal"), [(16, 4, 4, False), (8, 2, 4, True), (6, 1, 6, True)])
def test_multi_head_lesson_equals_torch_multihead_attention(d_model, n_heads, d_k, causal):
    lesson = lab_results.multi_head_lesson(SENTENCE, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=3, causal=causal)
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
    # previous_token: each head's mean weight on the token before, from torch's weights row by row
    weights = per_head[0].detach().numpy()  # (H, T, T)
    by_hand = [np.mean([weights[h, t, t - 1] for t in range(1, T)]) for h in range(n_heads)]
    np.testing.assert_allclose(lesson.previous_token, by_hand, atol=1e-12)


def test_previous_token_needs_two_tokens():
    assert lab_results.multi_head_lesson(("Hi",), n_heads=2).previous_token is None
    two = lab_results.multi_head_lesson(("Hi", "there"), n_heads=2)
    np.testing.assert_array_equal(two.previous_token, [h.weights[1, 0] for h in two.steps.heads])


@pytest.mark.parametrize("swap", [False, True])
def test_cross_lesson_equals_sdpa(swap):
    source, target = tuple(ac.tokenize("The cat sat on the mat.")), tuple(ac.tokenize("Le chat est assis."))
    lesson = lab_results.cross_lesson(source, target, d_model=8, d_k=4, seed=5, swap=swap)
    q_tokens, kv_tokens = (source, target) if swap else (target, source)
    assert (lesson.q_tokens, lesson.kv_tokens) == (q_tokens, kv_tokens)
    assert (lesson.q_name, lesson.kv_name) == (("source", "target") if swap else ("target", "source"))
    x_q, x_kv = ac.embed(list(q_tokens), 8, seed=5), ac.embed(list(kv_tokens), 8, seed=5)
    w = ac.init_weights(8, 4, seed=5)
    q, k, v = _t(x_q @ w.w_q), _t(x_kv @ w.w_k), _t(x_kv @ w.w_v)
    np.testing.assert_allclose(lesson.steps.output, F.scaled_dot_product_attention(q, k, v).numpy(), atol=1e-12)
    assert lesson.steps.weights.shape == (len(q_tokens), len(kv_tokens))


def _kept_by_counting(kind: str, T: int, radius: int, dilation: int) -> int:
    """Scores a mask keeps at length T, counted key by key from its definition (no matrix)."""
    if kind == "global":
        return T * T
    if kind == "causal":
        return sum(i + 1 for i in range(T))  # query i sees keys 0..i
    if kind == "window":
        return sum(min(i + radius, T - 1) - max(i - radius, 0) + 1 for i in range(T))
    # dilated: keys i + m * dilation for m in -radius..radius that lie inside the sentence
    return sum(1 for i in range(T) for m in range(-radius, radius + 1) if 0 <= i + m * dilation < T)


MASKS_TOKENS = tuple(ac.tokenize("The animal didn't cross the street because it was too tired and it slept."))


@pytest.mark.parametrize(
    ("tokens", "radius", "dilation", "seed"),
    [
        (SENTENCE, 1, 3, 2),
        (tuple(ac.tokenize("The cat sat on the mat.")), 2, 2, 0),  # the masks page's defaults
        (tuple(ac.tokenize("The cat sat on the mat.")), 2, 2, 11),
        (MASKS_TOKENS, 0, 1, 0),
        (MASKS_TOKENS, 3, 2, 0),
        (MASKS_TOKENS, 8, 4, 0),
    ],
)
def test_mask_study_runs_equal_sdpa_with_each_mask(tokens, radius, dilation, seed):
    study = lab_results.mask_study(tokens, radius=radius, dilation=dilation, seed=seed)
    T = len(tokens)
    x = ac.embed(list(tokens), 16, seed=seed)
    w = ac.init_weights(16, 4, seed=seed)
    q, k, v = _t(x @ w.w_q), _t(x @ w.w_k), _t(x @ w.w_v)
    offsets = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    allowed = {
        "global": np.ones((T, T), bool),
        "causal": np.tril(np.ones((T, T), bool)),
        "window": offsets <= radius,
        "dilated": (offsets % dilation == 0) & (offsets <= radius * dilation),
    }
    assert study.tokens == tokens
    assert [kind for kind, _ in study.runs] == list(ex.MASK_KINDS)
    scaled = (x @ w.w_q) @ (x @ w.w_k).T / 2.0  # sqrt(d_k = 4)
    for kind, mask in allowed.items():
        steps = study.steps(kind)
        shown = np.ones((T, T), bool) if steps.mask is None else steps.mask  # what the page draws
        np.testing.assert_array_equal(shown, mask, err_msg=kind)
        e = np.where(mask, np.exp(scaled - scaled.max(axis=1, keepdims=True)), 0.0)
        np.testing.assert_allclose(steps.weights, e / e.sum(axis=1, keepdims=True), atol=1e-12, err_msg=kind)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=_t(mask)).numpy()
        np.testing.assert_allclose(steps.output, expected, atol=1e-12, err_msg=kind)
        assert study.kept[kind] == int(mask.sum())
        np.testing.assert_array_equal(
            study.counts[kind][study.T_values == 8],
            [int(ex.make_mask(kind, 8, radius=radius, dilation=dilation).sum()) if kind != "global" else 64],
        )
        counted = [_kept_by_counting(kind, int(n), radius, dilation) for n in study.T_values]
        np.testing.assert_array_equal(study.counts[kind], counted, err_msg=kind)
    np.testing.assert_array_equal(study.T_values, [8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512])
    np.testing.assert_array_equal(study.counts["global"], study.T_values.astype(np.int64) ** 2)
    np.testing.assert_array_equal(study.memory, 4 * study.T_values.astype(np.int64) ** 2)


@pytest.mark.parametrize(
    ("tokens", "seed"), [(SENTENCE, 4), (tuple(ac.tokenize("The cat sat on the mat.")), 0), (SENTENCE, 11)]
)
def test_mask_study_other_scores_by_their_formulas(tokens, seed):
    study = lab_results.mask_study(tokens, seed=seed)
    x = ac.embed(list(tokens), 16, seed=seed)
    w = ac.init_weights(16, 4, seed=seed)
    v_a = ex.init_v_a(4, seed=seed)
    T = len(tokens)
    additive = np.array([[np.tanh(x[i] @ w.w_q + x[j] @ w.w_k) @ v_a for j in range(T)] for i in range(T)])
    np.testing.assert_allclose(study.additive, additive, atol=1e-12)
    q, k = x @ w.w_q, x @ w.w_k
    np.testing.assert_allclose(study.dot, q @ k.T / 2.0, atol=1e-12)
    np.testing.assert_allclose(study.w_qk, w.w_q @ w.w_k.T)
    assert (study.d_model, study.d_k) == (16, 4)
    # The same scores through the bilinear form, pair by pair: x_i W_q W_k^T x_j^T.
    bilinear = np.array([[x[i] @ study.w_qk @ x[j] for j in range(T)] for i in range(T)])
    np.testing.assert_allclose(bilinear, q @ k.T, atol=1e-12)
    assert study.bilinear_diff < 1e-12
    assert study.bilinear_diff == pytest.approx(np.max(np.abs(x @ (w.w_q @ w.w_k.T) @ x.T - q @ k.T)), abs=1e-15)
    top = np.mean(additive.argmax(axis=1) == study.dot.argmax(axis=1))
    assert study.top_agree == pytest.approx(top) and study.top_agree_chance == pytest.approx(1 / T)


def test_additive_and_dot_agree_about_as_often_as_chance():
    """The page says the top keys of the two scores agree about as often as chance (1 in T):
    averaged over 200 seeds, the agreement stays within a factor 1.5 of 1/T."""
    for text in ("The cat sat on the mat.", "The animal didn't cross the street because it was too tired."):
        tokens = tuple(ac.tokenize(text))
        agree = np.mean([lab_results.mask_study(tokens, seed=s).top_agree for s in range(200)])
        assert agree < 1.5 / len(tokens), (text, agree)


def test_softmax_lab_parts_and_jacobian():
    lab = lab_results.softmax_lab(seed=7, multiplier=100.0, T=8, dk_seed=1, index=2, delta=-4.0)
    np.testing.assert_array_equal(lab.scores, ex.random_scores(8, seed=7))
    np.testing.assert_allclose(lab.saturation.scaled_weights, ac.softmax(lab.scores * 100.0))
    np.testing.assert_allclose(lab.competition.softmax_after[2], ac.softmax(lab.scores + np.eye(8)[2] * -4.0)[2])
    assert lab.max_entropy == pytest.approx(3.0)
    np.testing.assert_array_equal(lab.study.d_k, lab_results.DK_STEPS)
    for scores, jac in ((lab.scores, lab.saturation.jacobian), (lab.scores * 100, lab.saturation.scaled_jacobian)):
        expected = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, 0), _t(scores)).numpy()
        np.testing.assert_allclose(jac, expected, atol=1e-15)
    # No entry of J exceeds the largest p_i (1 - p_i), so when one weight nears 1 all of J collapses.
    for p, jac in (
        (lab.saturation.weights, lab.saturation.jacobian),
        (lab.saturation.scaled_weights, lab.saturation.scaled_jacobian),
    ):
        assert np.abs(jac).max() == pytest.approx((p * (1 - p)).max())
    lab = lab_results.softmax_lab(seed=0, multiplier=100.0)  # the page's default: saturated at x100
    w = lab.saturation.winner
    assert np.abs(lab.saturation.scaled_jacobian).max() < 0.01 * np.abs(lab.saturation.jacobian).max()
    assert lab.saturation.scaled_jacobian[w, w] < 1e-3 < lab.saturation.jacobian[w, w]


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def _bits(p: np.ndarray) -> float:
    return float(-sum(x * np.log2(x) for x in p if x > 0))


@pytest.mark.parametrize(("seed", "multiplier"), [(0, 100.0), (7, 0.1), (3, 2.0), (42, 100.0)])
def test_softmax_lab_saturation_by_its_formulas(seed, multiplier):
    lab = lab_results.softmax_lab(n_scores=8, seed=seed, multiplier=multiplier)
    sat = lab.saturation
    np.testing.assert_array_equal(lab.scores, ex.random_scores(8, seed=seed))
    np.testing.assert_array_equal(sat.scores, lab.scores)
    assert sat.multiplier == multiplier
    np.testing.assert_allclose(sat.weights, _softmax(lab.scores), rtol=1e-12)
    np.testing.assert_allclose(sat.scaled, lab.scores * multiplier, rtol=1e-15)
    np.testing.assert_allclose(sat.scaled_weights, _softmax(lab.scores * multiplier), rtol=1e-12, atol=1e-300)
    assert sat.entropy == pytest.approx(_bits(_softmax(lab.scores)), abs=1e-12)
    assert sat.scaled_entropy == pytest.approx(_bits(_softmax(lab.scores * multiplier)), abs=1e-12)
    assert sat.winner == int(np.argmax(lab.scores))


@pytest.mark.parametrize(("T", "dk_seed"), [(8, 0), (2, 5), (64, 1)])
def test_softmax_lab_dk_study_for_each_T_and_seed(T, dk_seed):
    """The study is the d_k experiment for these T and seed (not a cached one for others), and
    shows what the page says: Var(q.k) grows like d_k, dividing by sqrt(d_k) keeps it near 1."""
    lab = lab_results.softmax_lab(T=T, dk_seed=dk_seed)
    study = lab.study
    direct = ex.dk_study(list(lab_results.DK_STEPS), T=T, seed=dk_seed)
    np.testing.assert_array_equal(study.d_k, lab_results.DK_STEPS)
    assert study.d_k[0] == 1 and study.d_k[-1] == 512 and np.all(np.diff(study.d_k) > 0)
    for name in ("var_unscaled", "var_scaled", "entropy_unscaled", "entropy_scaled"):
        np.testing.assert_allclose(getattr(study, name), getattr(direct, name), rtol=1e-12, err_msg=name)
    assert study.T == T
    assert lab.max_entropy == pytest.approx(np.log2(T))
    np.testing.assert_allclose(study.var_unscaled / study.d_k, 1.0, atol=0.15)  # Var(q.k) = d_k
    np.testing.assert_allclose(study.var_scaled, study.var_unscaled / study.d_k, rtol=1e-9)
    assert study.var_unscaled[-1] > 100 * study.var_unscaled[0]
    assert np.all(np.abs(study.var_scaled - 1) < 0.2)
    assert np.all(np.diff(study.entropy_unscaled) < 0) and study.entropy_unscaled[-1] < 0.1 * np.log2(T)
    assert np.all(study.entropy_scaled <= np.log2(T)) and np.all(study.entropy_scaled > 0.7 * np.log2(T))


@pytest.mark.parametrize(("index", "delta"), [(0, 3.0), (5, 20.0), (7, -10.0), (2, 0.0), (2, -4.0)])
def test_softmax_lab_competition_by_its_formulas(index, delta):
    lab = lab_results.softmax_lab(seed=0, index=index, delta=delta)
    comp = lab.competition
    scores = ex.random_scores(8, seed=0)
    raised = scores.copy()
    raised[index] += delta
    np.testing.assert_array_equal(comp.scores, scores)
    np.testing.assert_array_equal(comp.raised, raised)
    assert (comp.index, comp.delta) == (index, delta)
    np.testing.assert_allclose(comp.softmax_before, _softmax(scores), rtol=1e-12)
    np.testing.assert_allclose(comp.softmax_after, _softmax(raised), rtol=1e-12)
    np.testing.assert_allclose(comp.sigmoid_before, 1 / (1 + np.exp(-scores)), rtol=1e-12)
    np.testing.assert_allclose(comp.sigmoid_after, 1 / (1 + np.exp(-raised)), rtol=1e-12)
    assert comp.softmax_sum == pytest.approx(1.0, abs=1e-12)
    assert comp.sigmoid_sum == pytest.approx(float(np.sum(1 / (1 + np.exp(-raised)))), rel=1e-12)


@pytest.mark.parametrize(("tokens", "seed"), [(SENTENCE, 0), (MASKS_TOKENS, 5), (("one",), 0)])
def test_mask_study_kv_step_is_the_causal_last_row(tokens, seed):
    """Generating the last token from a KV cache: its query against every cached key and value,
    no mask, gives the causal weights' last row and output row (torch's SDPA on the one row)."""
    study = lab_results.mask_study(tokens, seed=seed)
    x = ac.embed(list(tokens), 16, seed=seed)
    w = ac.init_weights(16, 4, seed=seed)
    q, k, v = _t(x[-1:] @ w.w_q), _t(x @ w.w_k), _t(x @ w.w_v)
    expected = F.scaled_dot_product_attention(q, k, v).numpy()  # (1, d_v), no mask
    np.testing.assert_allclose(study.kv_step.output, expected, atol=1e-12)
    np.testing.assert_allclose(study.kv_step.weights[0], study.steps("causal").weights[-1], atol=1e-15)
    np.testing.assert_allclose(study.kv_step.output[0], study.steps("causal").output[-1], atol=1e-12)
    assert study.kv_step.mask is None and study.kv_step.k.shape == (len(tokens), 4)
    assert study.kv_gap == float(np.abs(study.kv_step.weights[0] - study.steps("causal").weights[-1]).max())
