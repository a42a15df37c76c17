"""attn_core's NumPy engine: invariants, parity with torch, properties, a worked example."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attn_core as ac
from attn_core import engine
from tests.conftest import ROOT
from tests.support.strategies import attention_sizes

SENTENCE = "The cat sat on the mat."


def _setup(text=SENTENCE, d_model=16, d_k=4, seed=0, **kw):
    tokens = ac.tokenize(text)
    x = ac.embed(tokens, d_model, seed=seed)
    w = ac.init_weights(d_model, d_k, seed=seed)
    return tokens, x, w, ac.attention_steps(x, w.w_q, w.w_k, w.w_v, **kw)


# ----------------------------------------------------------------------------- tokenize


def test_tokenize_words_punctuation_case_and_repeats():
    assert ac.tokenize("The cat sat on the mat.") == ["The", "cat", "sat", "on", "the", "mat", "."]
    assert ac.tokenize("the the the") == ["the", "the", "the"]
    assert ac.tokenize("didn't stop, did it?") == ["didn't", "stop", ",", "did", "it", "?"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t  ", "\u200b\u200b", "\x00"])
def test_tokenize_blank_is_empty(text):
    assert ac.tokenize(text) == []


def test_tokenize_truncates_to_max_tokens():
    text = " ".join(f"w{i}" for i in range(200))
    assert ac.tokenize(text, max_tokens=64) == [f"w{i}" for i in range(64)]
    assert len(ac.tokenize(text)) == 64


def test_tokenize_emoji_cjk_controls():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert ac.tokenize(f"hi {family}!") == ["hi", family, "!"]
    assert ac.tokenize("我爱你") == ["我", "爱", "你"]
    assert ac.tokenize("a\x00b\u202ec") == ["a", "b", "c"]
    assert ac.tokenize("<script>") == ["<", "script", ">"]


# ----------------------------------------------------------------------------- embed


def test_embed_same_word_same_vector_and_positions_differ_only_by_position():
    tokens = ac.tokenize("the cat sat on the mat")
    raw = ac.embed(tokens, 8, positional=False)
    np.testing.assert_array_equal(raw[0], raw[4])
    x = ac.embed(tokens, 8)
    pe = ac.positional_encoding(len(tokens), 8)
    np.testing.assert_allclose(x[0] - x[4], pe[0] - pe[4], atol=1e-12)
    assert not np.allclose(x[0], x[4])


def test_positional_encoding_matches_formula():
    pe = ac.positional_encoding(5, 6)
    for p in range(5):
        for i in range(3):
            angle = p / 10000 ** (2 * i / 6)
            assert pe[p, 2 * i] == pytest.approx(math.sin(angle))
            assert pe[p, 2 * i + 1] == pytest.approx(math.cos(angle))


def test_embed_is_stable_across_processes():
    code = "import attn_core as ac; print(repr(ac.embed(['cat','mat'], 4, seed=3).round(12).tolist()))"
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1
    assert outs.pop().strip() == repr(ac.embed(["cat", "mat"], 4, seed=3).round(12).tolist())


def test_embed_seed_changes_vectors():
    assert not np.allclose(ac.embed(["cat"], 8, seed=0), ac.embed(["cat"], 8, seed=1))


# ----------------------------------------------------------------------------- weights


def test_init_weights_shapes_determinism_and_scale():
    w = ac.init_weights(16, 4, 6, seed=5)
    assert (w.w_q.shape, w.w_k.shape, w.w_v.shape) == ((16, 4), (16, 4), (16, 6))
    w2 = ac.init_weights(16, 4, 6, seed=5)
    np.testing.assert_array_equal(w.w_q, w2.w_q)
    assert not np.allclose(w.w_q, ac.init_weights(16, 4, 6, seed=6).w_q)
    with pytest.raises(Exception):  # noqa: B017 - frozen dataclass
        w.w_q = None
    # Unit-variance inputs give q entries of variance ~1 and scaled scores of variance ~1.
    big = ac.init_weights(256, 64, seed=1)
    x = np.random.default_rng(0).standard_normal((400, 256))
    q, k = x @ big.w_q, x @ big.w_k
    assert 0.7 < q.var() < 1.3
    assert 0.6 < ((q @ k.T) / 8).var() < 1.5


# ----------------------------------------------------------------------------- softmax


def test_softmax_rows_sum_to_one_and_survive_huge_inputs():
    x = np.array([[1e6, -1e6, 0.0], [1e6, 1e6 - 1, 1e6 - 2], [-1e6, -1e6, -1e6]])
    p = ac.softmax(x)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(-1), 1.0)
    np.testing.assert_allclose(p[1], np.exp([0, -1, -2]) / np.exp([0, -1, -2]).sum())


def test_softmax_fully_masked_row_is_zero_not_nan():
    p = ac.softmax(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    np.testing.assert_array_equal(p, [[0.0, 0.0], [1.0, 0.0]])


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=8), elements=st.floats(-1e6, 1e6, allow_nan=False)
    )
)
def test_softmax_properties(x):
    p = ac.softmax(x)
    assert p.shape == x.shape
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(ac.softmax(x + 123.0), p, atol=1e-12)  # shift invariance
    order = np.argsort(x, axis=-1, kind="stable")  # larger score, larger weight
    assert (np.diff(np.take_along_axis(p, order, -1), axis=-1) >= -1e-15).all()


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=st.floats(-50, 50)), st.data())
def test_softmax_with_masks_matches_torch_safe_softmax(x, data):
    mask = data.draw(hnp.arrays(bool, x.shape))
    p = ac.softmax(np.where(mask, x, -np.inf))
    ref = torch.softmax(torch.from_numpy(np.where(mask, x, -np.inf)), -1).nan_to_num(0.0).numpy()
    np.testing.assert_allclose(p, ref, atol=1e-12)
    assert (p[~mask] == 0).all()


def test_entropy_in_bits():
    assert ac.entropy(np.full(8, 1 / 8)) == pytest.approx(3.0)
    assert ac.entropy(np.array([1.0, 0.0, 0.0])) == 0.0


# ----------------------------------------------------------------------------- masks


@settings(max_examples=100, deadline=None)
@given(T=st.integers(1, 40), radius=st.integers(0, 10), dilation=st.integers(1, 5))
def test_mask_properties(T, radius, dilation):
    causal, window, dilated = ac.causal_mask(T), ac.window_mask(T, radius), ac.dilated_mask(T, radius, dilation)
    for m in (causal, window, dilated):
        assert m.dtype == bool and m.shape == (T, T) and m.diagonal().all()
    i, j = np.indices((T, T))
    np.testing.assert_array_equal(causal, j <= i)
    np.testing.assert_array_equal(window, np.abs(i - j) <= radius)
    off = np.abs(i - j)
    np.testing.assert_array_equal(dilated, (off % dilation == 0) & (off <= radius * dilation))
    np.testing.assert_array_equal(ac.dilated_mask(T, radius, 1), window)
    assert (window == window.T).all() and (dilated == dilated.T).all()


def test_mask_argument_errors():
    with pytest.raises(ValueError, match="radius"):
        ac.window_mask(4, -1)
    with pytest.raises(ValueError, match="dilation"):
        ac.dilated_mask(4, 2, 0)


# ----------------------------------------------------------------------------- attention invariants


@pytest.mark.parametrize("mask", [None, "causal"])
@pytest.mark.parametrize("scale", [True, False])
def test_attention_invariants(mask, scale):
    _, _, _, s = _setup(mask=mask, scale=scale)
    np.testing.assert_allclose(s.weights.sum(-1), 1.0)
    np.testing.assert_array_equal(s.output, s.weights @ s.v)
    np.testing.assert_array_equal(s.scores, s.q @ s.k.T)
    assert s.factor == (1 / math.sqrt(4) if scale else 1.0)
    np.testing.assert_array_equal(s.scaled, s.scores * s.factor)
    if mask == "causal":
        T = s.weights.shape[0]
        assert (s.weights[np.triu_indices(T, 1)] == 0.0).all()
        assert np.isneginf(s.masked[np.triu_indices(T, 1)]).all()
        np.testing.assert_array_equal(s.mask, ac.causal_mask(T))
    else:
        assert s.mask is None
        np.testing.assert_array_equal(s.masked, s.scaled)


def test_fully_masked_row_gives_zero_weights_and_zero_output():
    _, x, w, _ = _setup()
    T = x.shape[0]
    mask = np.ones((T, T), dtype=bool)
    mask[2] = False
    s = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=mask)
    assert (s.weights[2] == 0).all() and (s.output[2] == 0).all()
    np.testing.assert_allclose(np.delete(s.weights, 2, 0).sum(-1), 1.0)
    assert np.isfinite(s.weights).all()


def test_multiplier_100_lowers_row_entropy():
    _, x, w, plain = _setup()
    hot = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, multiplier=100)
    assert hot.factor == pytest.approx(100 / 2)
    assert (ac.entropy(hot.weights) < ac.entropy(plain.weights)).all()
    assert ac.entropy(hot.weights).mean() < 0.5 * ac.entropy(plain.weights).mean()


@pytest.mark.parametrize("magnitude", [1.0, 1e3, 1e6])
def test_no_nan_for_huge_inputs(magnitude):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 16)) * magnitude
    w = ac.init_weights(16, 64, seed=2)
    for mask in (None, "causal"):
        s = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, multiplier=100, mask=mask)
        assert np.isfinite(s.weights).all()
        np.testing.assert_allclose(s.weights.sum(-1), 1.0)


def test_biases_are_added():
    _, x, w, _ = _setup()
    b = np.arange(4.0)
    s = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, b_q=b, b_k=-b, b_v=2 * b)
    np.testing.assert_allclose(s.q, x @ w.w_q + b)
    np.testing.assert_allclose(s.k, x @ w.w_k - b)
    np.testing.assert_allclose(s.v, x @ w.w_v + 2 * b)


# ----------------------------------------------------------------------------- shapes


def test_wrong_shapes_raise_value_errors_naming_the_expected_shape():
    x = np.zeros((5, 8))
    w = ac.init_weights(8, 4)
    with pytest.raises(ValueError, match=r"x must have shape \(T_q, d_model\)"):
        ac.attention_steps(np.zeros(8), w.w_q, w.w_k, w.w_v)
    with pytest.raises(ValueError, match=r"w_q must have shape \(d_model=8, d_k\)"):
        ac.attention_steps(x, np.zeros((7, 4)), w.w_k, w.w_v)
    with pytest.raises(ValueError, match=r"w_k must have shape \(d_model=8, d_k=4\)"):
        ac.attention_steps(x, w.w_q, np.zeros((8, 3)), w.w_v)
    with pytest.raises(ValueError, match=r"x_kv must have shape \(T_k, d_model=8\)"):
        ac.attention_steps(x, w.w_q, w.w_k, w.w_v, x_kv=np.zeros((3, 6)))
    with pytest.raises(ValueError, match=r"mask must have shape \(T_q=5, T_k=5\)"):
        ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=np.ones((4, 5), bool))
    with pytest.raises(ValueError, match="bool"):
        ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=np.ones((5, 5)))
    with pytest.raises(ValueError, match="causal"):
        ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask="upper")
    heads, w_o = ac.init_multi_head(8, 2, 4)
    with pytest.raises(ValueError, match=r"w_o must have shape \(H\*d_v=8, d_model=8\)"):
        ac.multi_head_steps(x, heads, w_o[:6])
    with pytest.raises(ValueError, match="d_k must be a positive integer"):
        ac.init_weights(8, 0)


# ----------------------------------------------------------------------------- parity with torch


def _sdpa(x, x_kv, w, *, mask=None, scale=True, multiplier=1.0):
    q = torch.from_numpy(x @ w.w_q)
    k = torch.from_numpy(x_kv @ w.w_k)
    v = torch.from_numpy(x_kv @ w.w_v)
    d_k = q.shape[-1]
    factor = multiplier / math.sqrt(d_k) if scale else multiplier
    attn_mask = None if mask is None else torch.from_numpy(mask)
    out = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=attn_mask, scale=factor)[0]
    return out.numpy()


@settings(max_examples=60, deadline=None)
@given(
    **attention_sizes(max_T=12, max_d_model=24, max_d_k=16),
    d_v=st.integers(1, 16),
    seed=st.integers(0, 10_000),
    mask_kind=st.sampled_from(["none", "causal", "bool"]),
    multiplier=st.sampled_from([1.0, 0.5, 100.0]),
)
def test_parity_with_torch_sdpa(T_q, T_k, d_model, d_k, d_v, seed, cross, scale, mask_kind, multiplier):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T_q, d_model))
    x_kv = rng.standard_normal((T_k, d_model)) if cross else x
    T_k = x_kv.shape[0]
    w = ac.init_weights(d_model, d_k, d_v, seed=seed)
    if mask_kind == "causal":
        mask = np.tril(np.ones((T_q, T_k), dtype=bool))
    elif mask_kind == "bool":
        mask = rng.random((T_q, T_k)) < 0.6
        mask[np.arange(T_q), rng.integers(0, T_k, T_q)] = True  # torch gives NaN on empty rows
    else:
        mask = None
    s = ac.attention_steps(
        x,
        w.w_q,
        w.w_k,
        w.w_v,
        x_kv=None if not cross else x_kv,
        scale=scale,
        multiplier=multiplier,
        mask="causal" if mask_kind == "causal" else mask,
    )
    ref = _sdpa(x, x_kv, w, mask=mask, scale=scale, multiplier=multiplier)
    np.testing.assert_allclose(s.output, ref, atol=1e-10, rtol=0)
    assert s.weights.shape == (T_q, T_k) and s.output.shape == (T_q, d_v)


def test_causal_parity_with_torch_is_causal_flag():
    _, x, w, s = _setup(mask="causal")
    q, k, v = (torch.from_numpy(a)[None] for a in (x @ w.w_q, x @ w.w_k, x @ w.w_v))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)[0].numpy()
    np.testing.assert_allclose(s.output, ref, atol=1e-10, rtol=0)


@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("mask", [None, "causal"])
def test_multi_head_matches_a_torch_reference(cross, mask):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 12))
    x_kv = rng.standard_normal((4, 12)) if cross else None
    heads, w_o = ac.init_multi_head(12, 3, 4, seed=7)
    mh = ac.multi_head_steps(x, heads, w_o, x_kv=x_kv, mask=mask)
    # Reference: stack every head's projections into one (d_model, H*d_k) matrix, as
    # torch's MultiheadAttention does, split into heads, attend, merge, project.
    xt = torch.from_numpy(x)
    kvt = xt if x_kv is None else torch.from_numpy(x_kv)
    W = {n: torch.from_numpy(np.concatenate([getattr(h, n) for h in heads], axis=1)) for n in ("w_q", "w_k", "w_v")}

    def split(t):  # (T, H*d_k) -> (H, T, d_k)
        return t.view(t.shape[0], 3, 4).transpose(0, 1)

    q, k, v = split(xt @ W["w_q"]), split(kvt @ W["w_k"]), split(kvt @ W["w_v"])
    attn_mask = None if mask is None else torch.ones(6, k.shape[1], dtype=torch.bool).tril()
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)  # (H, T, d_k)
    merged = out.transpose(0, 1).reshape(6, 12)  # (H, T, d_k) -> (T, H*d_k)
    ref = (merged @ torch.from_numpy(w_o)).numpy()
    np.testing.assert_allclose(mh.output, ref, atol=1e-10, rtol=0)
    np.testing.assert_allclose(mh.concat, merged.numpy(), atol=1e-10, rtol=0)
    for h, head_steps in zip(heads, mh.heads, strict=True):
        alone = ac.attention_steps(x, h.w_q, h.w_k, h.w_v, x_kv=x_kv, mask=mask)
        np.testing.assert_array_equal(head_steps.weights, alone.weights)
        np.testing.assert_array_equal(head_steps.output, alone.output)


# ----------------------------------------------------------------------------- other scores


def test_bilinear_scores_equal_q_dot_k():
    _, x, w, s = _setup(d_k=5)
    np.testing.assert_allclose(ac.bilinear_scores(x, w.w_q, w.w_k), s.scores, atol=1e-12)
    assert ac.bilinear_form(w.w_q, w.w_k).shape == (16, 16)
    x2 = ac.embed(["a", "b", "c"], 16)
    np.testing.assert_allclose(ac.bilinear_scores(x, w.w_q, w.w_k, x_kv=x2), (x @ w.w_q) @ (x2 @ w.w_k).T, atol=1e-12)


def test_additive_scores_match_a_loop():
    rng = np.random.default_rng(4)
    x, x_kv = rng.standard_normal((3, 5)), rng.standard_normal((4, 5))
    w_q, w_k, v_a = rng.standard_normal((5, 6)), rng.standard_normal((5, 6)), rng.standard_normal(6)
    got = ac.additive_scores(x, w_q, w_k, v_a, x_kv=x_kv)
    ref = [[v_a @ np.tanh(x[i] @ w_q + x_kv[j] @ w_k) for j in range(4)] for i in range(3)]
    np.testing.assert_allclose(got, ref, atol=1e-12)
    with pytest.raises(ValueError, match=r"v_a must have shape \(d_a=6,\)"):
        ac.additive_scores(x, w_q, w_k, v_a[:5])


# ----------------------------------------------------------------------------- worked example


def test_worked_example_cat_query_mat_key():
    """cat's query [0.5, -0.3, 0.8] against mat's key [0.3, 0.4, -0.2].

    By hand: 0.5*0.3 + (-0.3)*0.4 + 0.8*(-0.2) = 0.15 - 0.12 - 0.16 = -0.13,
    and scaled by 1/sqrt(3): -0.13 / 1.7320508 = -0.0750555.
    """
    x = np.eye(3)  # token 0 = "cat", token 1 = "mat": one-hot inputs pick rows of W
    w_q = np.array([[0.5, -0.3, 0.8], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    w_k = np.array([[0.0, 0.0, 0.0], [0.3, 0.4, -0.2], [0.0, 0.0, 0.0]])
    s = ac.attention_steps(x, w_q, w_k, np.eye(3))
    assert s.q[0].tolist() == [0.5, -0.3, 0.8]
    assert s.k[1].tolist() == [0.3, 0.4, -0.2]
    assert s.scores[0, 1] == pytest.approx(-0.13, abs=1e-15)
    assert s.scaled[0, 1] == pytest.approx(-0.0750555, abs=1e-7)
    assert f"{s.scaled[0, 1]:.4f}" == "-0.0751"
    # Row 0 scores against [cat, mat, third token]: [0, -0.13, 0] scaled; softmax by hand.
    e = np.exp([0.0, -0.13 / math.sqrt(3), 0.0])
    np.testing.assert_allclose(s.weights[0], e / e.sum())


# ----------------------------------------------------------------------------- import hygiene


def test_importing_attn_core_imports_numpy_only():
    code = (
        "import attn_core, attn_core.experiments, sys; "
        "bad = {'torch', 'streamlit', 'plotly', 'transformers'} & set(sys.modules); "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_dim_reads_a_size_from_the_array_it_names():
    w = ac.init_weights(6, 4, 3, seed=1)
    assert (w.d_model, w.d_k, w.d_v) == (6, 4, 3)
    assert isinstance(w.d_k, int)

    @dataclass(frozen=True)
    class Outer:
        inner: ac.Weights
        d_v = engine.dim("inner.w_v", -1)

    assert Outer(w).d_v == 3
    with pytest.raises(AttributeError):
        w.d_k = 5  # read-only, as the frozen fields
