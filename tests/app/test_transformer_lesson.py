"""The page "Attention in a transformer": attn_core.transformer against torch (LayerNorm,
scaled_dot_product_attention, TransformerEncoderLayer), models.word_senses against the model
itself, and the page (AppTest) against the numbers it claims."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from numpy.testing import assert_allclose, assert_array_equal
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import transformer as tr
from lessons.in_a_transformer import words
from tests.support.figdata import decode, figure_by_title, figures, z_matrix
from tests.support.hostile_corpus import HOSTILE
from ui.reader import SCREEN

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "lessons" / "in_a_transformer" / "page.py")
A, B = "The cat sat on the mat.", "Le chat était assis sur le tapis."
BEARS = [sentence for sentence, _ in tr.WORD_SENSES]
# the notes' four sentences: "bears" at different positions, and once the token "bear"
NOTES_BEARS = [
    "I love bears",
    "She bears the pain",
    "Bears won the game",
    "The hiking trail led us through bear country.",
]


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(ac.tokenize(text))


# --------------------------------------------------------------------------- engine


def test_layer_norm_equals_torch():
    x = np.random.default_rng(0).normal(2.0, 3.0, (5, 24))
    ln = torch.nn.LayerNorm(24, eps=tr.LN_EPS, elementwise_affine=False).double()
    assert_allclose(tr.layer_norm(x), ln(torch.from_numpy(x)).detach().numpy(), atol=1e-12)


def test_layer_norm_applies_the_learned_scale_and_shift_as_torch():
    rng = np.random.default_rng(1)
    x, gain, bias = rng.normal(1.0, 2.0, (4, 12)), rng.normal(1.0, 0.5, 12), rng.normal(0.0, 0.5, 12)
    ln = torch.nn.LayerNorm(12, eps=tr.LN_EPS).double()
    with torch.no_grad():
        ln.weight.copy_(torch.from_numpy(gain))
        ln.bias.copy_(torch.from_numpy(bias))
    assert_allclose(tr.layer_norm(x, gain, bias), ln(torch.from_numpy(x)).detach().numpy(), atol=1e-12)
    # torch starts every LayerNorm at gamma = 1 and beta = 0, as init_block does
    fresh = torch.nn.LayerNorm(12)
    w = tr.init_block(12, 3)
    assert_array_equal(w.ln_gain, np.stack([fresh.weight.detach().numpy()] * 2))
    assert_array_equal(w.ln_bias, np.stack([fresh.bias.detach().numpy()] * 2))
    assert w.ln_untrained
    import dataclasses

    assert not dataclasses.replace(w, ln_bias=w.ln_bias + 0.1).ln_untrained


def _torch_layer(w: tr.BlockWeights, d_model: int, H: int) -> torch.nn.TransformerEncoderLayer:
    """torch's own encoder layer (post-LayerNorm, ReLU, no dropout) holding the same weights."""
    layer = (
        torch.nn.TransformerEncoderLayer(
            d_model,
            H,
            dim_feedforward=w.w_1.shape[1],
            dropout=0.0,
            activation="relu",
            batch_first=True,
            norm_first=False,
            layer_norm_eps=tr.LN_EPS,
        )
        .double()
        .eval()
    )

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    w_q = np.hstack([h.w_q for h in w.heads])  # H x (d_model, d_k) -> (d_model, H*d_k)
    w_k = np.hstack([h.w_k for h in w.heads])
    w_v = np.hstack([h.w_v for h in w.heads])
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(t(np.vstack([w_q.T, w_k.T, w_v.T])))  # nn.Linear stores (out, in)
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(t(w.w_o.T))
        layer.self_attn.out_proj.bias.zero_()
        layer.linear1.weight.copy_(t(w.w_1.T))
        layer.linear1.bias.copy_(t(w.b_1))
        layer.linear2.weight.copy_(t(w.w_2.T))
        layer.linear2.bias.copy_(t(w.b_2))
        for n, norm in enumerate((layer.norm1, layer.norm2)):
            norm.weight.copy_(t(w.ln_gain[n]))
            norm.bias.copy_(t(w.ln_bias[n]))
    return layer


@pytest.mark.parametrize(("d_model", "H"), [(16, 4), (64, 8), (384, 12)])
def test_encoder_block_equals_torch_transformer_encoder_layer(d_model, H):
    tokens = _tokens(A)
    x = ac.embed(list(tokens), d_model, seed=3)
    w = tr.init_block(d_model, H, seed=3)
    steps = tr.encoder_block(x, w)
    with torch.no_grad():
        want = _torch_layer(w, d_model, H)(torch.from_numpy(x)[None])[0].numpy()
    assert_allclose(steps.output, want, atol=1e-10)
    T = len(tokens)
    shapes = [s[3] for s in steps.stages()]
    assert shapes == [
        (T, d_model),
        (T, d_model // H),
        (T, d_model),
        (T, d_model),
        (T, d_model),
        (T, d_model),
        (T, 4 * d_model),
        (T, d_model),
        (T, d_model),
        (T, d_model),
    ]
    mean_max, std_mean = steps.output_stats
    assert mean_max < 1e-12 and std_mean == pytest.approx(1.0, abs=1e-3)


def test_encoder_block_with_trained_looking_layer_norms_equals_torch():
    """gamma and beta really enter the block: random ones give torch's output with the same values."""
    import dataclasses

    rng = np.random.default_rng(5)
    x = ac.embed(list(_tokens(A)), 32, seed=1)
    w = tr.init_block(32, 4, seed=1)
    w = dataclasses.replace(w, ln_gain=rng.normal(1.0, 0.3, (2, 32)), ln_bias=rng.normal(0.0, 0.3, (2, 32)))
    steps = tr.encoder_block(x, w)
    with torch.no_grad():
        want = _torch_layer(w, 32, 4)(torch.from_numpy(x)[None])[0].numpy()
    assert_allclose(steps.output, want, atol=1e-10)
    assert steps.weights is w and not w.ln_untrained
    assert abs(steps.output_stats[1] - 1.0) > 1e-3  # no longer rows of std 1


def test_padding_mask_against_torch_and_the_unpadded_sentence():
    p = tr.padding(_tokens(A), _tokens(B))
    assert p.lengths == (7, 8) and p.tokens[0][-1] == tr.PAD and p.padded == 0
    assert p.x.shape == (2, 8, tr.DEMO_D_MODEL) and p.masks.shape == (2, 8, 8)
    assert np.all(p.masked[0].weights[:, 7] == 0.0) and p.pad_weight == 0.0
    assert p.delta_masked[0] < 1e-12 and p.delta_unmasked[0] > 1e-3 and p.changed_unmasked[0] == 7
    assert p.delta_masked[1] == p.delta_unmasked[1] == 0.0  # B has no padding
    # the batch through torch's SDPA with the boolean key padding mask (True = may attend)
    q = torch.from_numpy(np.stack([s.q for s in p.masked]))
    k = torch.from_numpy(np.stack([s.k for s in p.masked]))
    v = torch.from_numpy(np.stack([s.v for s in p.masked]))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.from_numpy(p.masks)).numpy()
    assert_allclose(out, np.stack([s.output for s in p.masked]), atol=1e-12)
    assert_allclose(out[0, :7], p.alone[0].output, atol=1e-12)


def test_dense_weights_are_the_same_attention_weights_differ():
    dv = tr.dense_vs_attention(_tokens(A), _tokens(B))
    c = dv.common
    assert c == 7 and dv.dense_gap == 0.0
    assert_array_equal(dv.dense[0], dv.dense[1][:c, :c])
    assert dv.attention_gap == pytest.approx(np.abs(dv.attention[0].weights - dv.attention[1].weights[:c, :c]).max())
    assert dv.attention_gap > 0.1
    assert_allclose(dv.dense_output[0], dv.dense[0] @ dv.attention[0].v)


def test_head_split_and_minilm_config():
    assert tr.head_split(384, 12).d_k == 32
    odd = tr.head_split(512, 12)
    assert (odd.H, odd.d_k, odd.divides) == (8, 64, False)
    assert tr.head_split(64, 4).qkv_params == 3 * 64**2
    shape = tr.minilm_shape()
    folder = tr.minilm_dir()
    if folder is None:
        pytest.skip("the embedded model package is not installed")
    config = json.loads((folder / "config.json").read_text())
    assert (
        (shape.d_model, shape.n_heads, shape.n_layers)
        == (config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"])
        == (384, 12, 6)
    )
    assert shape.d_k == 32
    assert tr.minilm_shape(ROOT / "no-such-folder") is None
    # where the Real model page says the model comes from: its config.json and its model card
    assert (shape.architecture, shape.base) == (config["architectures"][0], config["_name_or_path"])
    assert shape.architecture == "BertModel" and "MiniLM" in shape.base
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert shape.fine_tuned and "fine-tune" in card and "sentence embedding" in card.lower()


def test_a_model_card_without_fine_tuning_is_not_called_fine_tuned(tmp_path):
    folder = tr.minilm_dir()
    if folder is None:
        pytest.skip("the embedded model package is not installed")
    (tmp_path / "config.json").write_text((folder / "config.json").read_text())
    assert not tr.minilm_shape(tmp_path).fine_tuned  # no card at all
    (tmp_path / "README.md").write_text("A BERT model.")
    assert not tr.minilm_shape(tmp_path).fine_tuned


def test_the_engine_does_not_import_torch():
    code = "import sys, attn_core.transformer, attn_core.article_checks; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_encoder_decoder_masks_and_cost():
    m = tr.encoder_decoder_masks(_tokens(A), _tokens(B))
    assert m.encoder_self.all() and m.cross.all() and m.cross.shape == (8, 7)
    assert_array_equal(m.decoder_self, np.tril(np.ones((8, 8), dtype=bool)))
    co = tr.cost(7, 64)
    assert (co.projection_ops, co.score_ops, co.recurrent_ops, co.recurrent_sequential, co.recurrent_path) == (
        4 * 7 * 64 * 64,
        2 * 7 * 7 * 64,
        2 * 7 * 64 * 64,
        7,
        6,
    )
    assert co.attention_ops == 120_960 and co.recurrent_ops == 57_344
    # the whole attention layer never does fewer multiply-adds than the recurrent one ...
    assert np.all(co.attention_curve > co.recurrent_curve)
    # ... and its pairwise part outgrows the projections exactly when T > 2d
    over = co.T_values[co.score_curve > co.projection_curve]
    assert over.min() >= co.scores_overtake == 129 > co.T_values[co.score_curve <= co.projection_curve].max()
    # ... which is also where it starts to do more than an LSTM (8·T·d²): fewer below T = 2d, more above
    assert co.lstm_ops == 8 * 7 * 64 * 64 == 229_376 and co.lstm_break_even == 128
    assert_array_equal(co.attention_curve < co.lstm_curve, co.T_values < 128)
    assert_array_equal(co.attention_curve > co.lstm_curve, co.T_values > 128)


def _matmul_count(a: np.ndarray, b: np.ndarray) -> int:
    """Multiply-adds of a @ b, from the two shapes: (m, k) @ (k, n) -> m·k·n."""
    (m, k), (k2, n) = a.shape, b.shape
    assert k == k2
    return m * k * n


@pytest.mark.parametrize(("T", "d_model", "H"), [(7, 64, 4), (12, 48, 6), (3, 16, 1)])
def test_the_counts_are_the_matrix_products_of_a_real_run(T, d_model, H):
    """Count the multiply-adds of every product the engine makes in one multi-head layer
    (Q, K, V, QKᵀ, AV for each head, then W_O), and of a simple recurrent layer run step
    by step: they are the Cost's numbers, and the heads' scores cost as much as one wide head."""
    tokens = [f"w{n}" for n in range(T)]
    x = ac.embed(tokens, d_model)
    w = tr.init_block(d_model, H)
    mh = ac.multi_head_steps(x, w.heads, w.w_o)
    counted_projections = _matmul_count(mh.concat, w.w_o)
    counted_scores = 0
    for head, s in zip(w.heads, mh.heads, strict=True):
        counted_projections += sum(_matmul_count(x, m) for m in (head.w_q, head.w_k, head.w_v))
        counted_scores += _matmul_count(s.q, s.k.T) + _matmul_count(s.weights, s.v)
    co = tr.cost(T, d_model)
    assert (counted_projections, counted_scores) == (co.projection_ops, co.score_ops)
    # a simple recurrent layer, h_t = tanh(x_t W_x + h_(t-1) W_h), counted as it runs
    rng = np.random.default_rng(0)
    w_x, w_h = rng.normal(size=(d_model, d_model)), rng.normal(size=(d_model, d_model))
    h, counted = np.zeros((1, d_model)), 0
    for t in range(T):
        counted += _matmul_count(x[t : t + 1], w_x) + _matmul_count(h, w_h)
        h = np.tanh(x[t : t + 1] @ w_x + h @ w_h)
    assert counted == co.recurrent_ops
    # an LSTM (what the transformer replaced), its four gates counted as it runs
    gates = {g: (rng.normal(size=(d_model, d_model)), rng.normal(size=(d_model, d_model))) for g in "ifoc"}
    h, c, counted = np.zeros((1, d_model)), np.zeros((1, d_model)), 0
    for t in range(T):
        z = {}
        for g, (w_xg, w_hg) in gates.items():
            counted += _matmul_count(x[t : t + 1], w_xg) + _matmul_count(h, w_hg)
            z[g] = x[t : t + 1] @ w_xg + h @ w_hg
        sig = {g: 1 / (1 + np.exp(-z[g])) for g in "ifo"}
        c = sig["f"] * c + sig["i"] * np.tanh(z["c"])
        h = sig["o"] * np.tanh(c)
    assert counted == co.lstm_ops == 4 * co.recurrent_ops
    # attention does fewer multiply-adds than the LSTM exactly below T = 2d
    assert (co.attention_ops < co.lstm_ops) == (T < co.lstm_break_even == 2 * d_model)
    split = tr.head_split(d_model, H)
    per_head = sum(_matmul_count(s.q, s.k.T) for s in mh.heads)
    assert per_head == split.score_mult_adds(T) == split.score_mult_adds(T, wide=True)
    assert split.score_cells(T) == sum(s.weights.size for s in mh.heads) == H * split.score_cells(T, wide=True)


# --------------------------------------------------------------------------- the page without the model


def _page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=120)


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [x.value for x in at.latex] + [c.value for c in at.caption])


def _fig(at: AppTest, title: str) -> dict:
    return figure_by_title(at, html.escape(title))


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr("ui.model_cache.try_load", lambda name=None: (None, "switched off for this test"))


def test_page_without_the_model(no_model):
    at = _run(_page())
    lesson = tr.transformer_lesson(_tokens(A), _tokens(B), d_model=64, H=4)
    text = _text(at)
    assert any("switched off for this test" in w.value for w in at.warning)
    # 1. dense vs attention
    dv = lesson.dense
    assert_array_equal(z_matrix(_fig(at, "Dense layer weights, sentence A")["data"][0]), dv.dense[0])
    assert_allclose(z_matrix(_fig(at, "Attention weights, sentence B")["data"][0]), dv.attention[1].weights)
    assert "W^{\\text{dense}}_B\\right| = 0," in text
    assert f"= {dv.attention_gap:.3f}" in text
    # 2. d_k from the model's config.json
    assert r"\frac{384}{12} = 32" in text and "hidden_size = 384" in text
    assert r"d_k = \frac{64}{4} = 16" in text
    # 3. padding
    p = lesson.padding
    assert f"gives a padding key is **{p.pad_weight:g}**" in text and "**0**" in text
    assert f"max |Δ| = **{p.delta_masked[0]:.1e}**".replace("-", "−") in text
    assert f"Without the mask, max |Δ| = **{p.delta_unmasked[0]:.3f}**" in text
    masked = z_matrix(_fig(at, "Weights with the mask")["data"][0])
    assert np.all(masked[:, 7] == 0.0)
    assert_allclose(masked, p.masked[0].weights)
    # 4. the block: the diagram's shapes are the arrays' shapes
    block = _fig(at, "One encoder block")
    shown = [tuple(int(n) for n in s.strip("()").split(", ")) for _, _, s in block["data"][0]["customdata"]]
    assert shown == [s[3] for s in lesson.block.stages()]
    # 5. masks
    assert_array_equal(z_matrix(_fig(at, "Decoder self-attention (causal)")["data"][0]), np.tril(np.ones((8, 8))))
    assert z_matrix(_fig(at, "Cross-attention")["data"][0]).shape == (8, 7)
    # 6. cost
    co = lesson.cost
    table = str(at.table[-1].value.to_dict())
    assert f"4·{co.T}·{co.d}² + 2·{co.T}²·{co.d} = {co.attention_ops:,}" in table
    assert f"2·{co.T}·{co.d}² = {co.recurrent_ops:,}" in table and "multiply-adds per layer" in table
    cost = _fig(at, "Multiply-adds per layer")
    assert_array_equal(decode(cost["data"][0]["y"]), co.attention_curve)
    assert_array_equal(decode(cost["data"][1]["y"]), co.score_curve)
    assert_array_equal(decode(cost["data"][2]["y"]), co.recurrent_curve)
    assert_array_equal(decode(cost["data"][3]["y"]), co.lstm_curve)


def test_the_cost_sentences_are_the_counts(no_model):
    """Section 6 shows the words module's cost sentences for the page's T and d (whose every number
    tests/unit/test_in_a_transformer_words.py checks), both baselines among them: at T = 7 and
    d = 64 attention does more than a tanh RNN and fewer than an LSTM."""
    at = _run(_page())
    co = tr.transformer_lesson(_tokens(A), _tokens(B), d_model=64, H=4).cost
    text = _text(at)
    assert words.cost_text(co) in text and words.why_text(co) in text
    assert co.recurrent_ops < co.attention_ops < co.lstm_ops
    assert "attention does **more** (" in text and "attention does **fewer** (" in text
    table = at.table[-1].value
    assert list(table.columns) == list(words.cost_table(co)) and f"{co.lstm_ops:,}" in str(table.to_dict())


def test_the_head_split_and_block_sentences_are_the_words_modules(no_model):
    """Sections 2 and 4 show the words module's sentences for the page's lesson (their numbers
    are checked in tests/unit/test_in_a_transformer_words.py): the heads' score multiply-adds
    equal one wide head's, and the untrained block's γ and β are still 1 and 0."""
    at = _run(_page())
    lesson = tr.transformer_lesson(_tokens(A), _tokens(B), d_model=64, H=4)
    sp, T = lesson.split, len(_tokens(A))
    text = _text(at)
    assert words.split_cost_text(sp, T) in text and sp.score_mult_adds(T) == sp.score_mult_adds(T, wide=True)
    assert words.block_intro(lesson.block.ffn_hidden.shape[1]) in text
    assert words.block_text(lesson.block, sp, SCREEN) in text and lesson.block.weights.ln_untrained


def test_the_decoder_mask_is_explained_by_teacher_forcing(no_model):
    """Section 5 says the whole target is present in training and the mask stops a token
    seeing the ones it must predict. With every token present, the causal head's output at
    t ignores a change to a later token; without the mask it does not."""
    at = _run(_page())
    assert words.ENC_DEC_INTRO in _text(at)
    tokens = list(_tokens(B))
    changed = [*tokens[:-1], "zebra"]  # only the last token differs
    w = ac.init_weights(16, 4, seed=0)
    for mask, same in (("causal", True), (None, False)):
        outs = [ac.attention_steps(ac.embed(t, 16), w.w_q, w.w_k, w.w_v, mask=mask).output for t in (tokens, changed)]
        assert np.array_equal(outs[0][:-1], outs[1][:-1]) is same


def test_page_heads_that_do_not_divide(no_model):
    at = _page()
    at.query_params["d_model"] = "512"
    at.query_params["heads"] = "12"
    _run(at)
    sp = tr.head_split(512, 12)
    assert (sp.H, sp.d_k) == (8, 64) and words.split_choice(sp) in [w.value for w in at.warning]
    assert r"d_k = \frac{512}{8} = 64" in _text(at)
    assert "H = 8" in _fig(at, "One encoder block")["layout"]["title"]["text"]


def test_page_with_a_blank_sentence(no_model):
    at = _run(_page())
    at.text_input(key="tf_b").set_value("   ")
    _run(at)
    assert any("sentence B" in i.value for i in at.info)
    assert not figures(at)


def test_presenter_mode_shows_one_section(no_model):
    at = _page()
    at.session_state["present"] = True
    at.query_params["step"] = "4"
    _run(at)
    # The progress line is the section's one heading: no numbered header beside it.
    headings = lambda: [m.value for m in at.markdown if m.value.startswith("## ")]  # noqa: E731
    assert not at.header and headings() == ["## **Section 4 of 8** · Where attention sits in a block"]
    at.button(key="tf_step_next").click()
    _run(at)
    assert not at.header and headings() == ["## **Section 5 of 8** · Encoder and decoder"]


# --------------------------------------------------------------------------- the real model


@pytest.fixture(scope="module")
def loaded():
    from attn_core import models

    return models.load_model(device="cpu")


@pytest.mark.model
def test_word_senses_against_the_model(loaded):
    from transformers import AutoModel

    from attn_core import models

    senses = models.word_senses(loaded, BEARS, "bears")
    assert [s.word for s in senses.senses] == ["bears", "bears", "Bears", "bears", "bears"]
    assert senses.pieces == ("bears",) * 5 and senses.positions == (2,) * 5  # like with like
    L, S = loaded.n_layers, len(BEARS)
    assert senses.similarity.shape == (L + 1, S, S) and senses.hidden.shape == (S, L + 1, loaded.d_model)
    # independently: the model's own hidden states for the word's token, and their cosines
    model = AutoModel.from_pretrained(loaded.source, attn_implementation="eager").eval()
    vectors = []
    for sentence, sense in zip(BEARS, senses.senses, strict=True):
        enc = loaded.tokenizer(sentence, return_tensors="pt")
        with torch.no_grad():
            out = model(**enc, output_hidden_states=True, output_attentions=True)
        vectors.append(torch.stack(out.hidden_states)[:, 0, sense.index].double().numpy())
        rows = torch.stack(out.attentions)[:, 0, :, sense.index].mean(dim=1).double().numpy()  # (L, T)
        assert_allclose(sense.attention, rows, atol=1e-5)
    v = np.stack(vectors)  # (S, L+1, d)
    unit = v / np.linalg.norm(v, axis=-1, keepdims=True)
    assert_allclose(senses.similarity, np.einsum("ald,bld->lab", unit, unit), atol=1e-5)
    # the same token at the same position: one layer-0 vector, whatever the sentence
    assert_allclose(senses.similarity[0], np.ones((S, S)), atol=1e-6)
    assert senses.spread(0)[0] > 1 - 1e-6
    # the claims the page makes: at the last layer the two animal sentences are the closest pair,
    # and pairs with one meaning are closer than pairs with two
    a, b, _ = senses.pair(L)
    assert (a, b) == (0, 3)
    meanings = [m for _, m in tr.WORD_SENSES]
    same = [senses.similarity[L, i, j] for i in range(S) for j in range(i + 1, S) if meanings[i] == meanings[j]]
    other = [senses.similarity[L, i, j] for i in range(S) for j in range(i + 1, S) if meanings[i] != meanings[j]]
    groups = tr.sense_groups(senses.similarity[L], tuple(meanings))
    assert (groups.n_same, groups.n_different) == (len(same), len(other)) == (2, 8)
    assert groups.same == pytest.approx(np.mean(same)) and groups.different == pytest.approx(np.mean(other))
    assert groups.same > groups.different + 0.1


@pytest.mark.model
def test_layer_zero_is_token_plus_position_plus_segment_then_layer_norm(loaded):
    """The page's description of layer 0, checked against the model: its own embedding module
    equals LayerNorm(word + position + segment) built here with torch, and word_senses'
    NumPy rebuild agrees with the model's hidden state."""
    from attn_core import models

    emb = loaded.model.embeddings
    for sentence in (BEARS[2], NOTES_BEARS[3]):
        enc = loaded.tokenizer(sentence, return_tensors="pt")
        ids, types = enc["input_ids"][0], enc["token_type_ids"][0]
        with torch.no_grad():
            by_hand = (
                emb.word_embeddings(ids)
                + emb.position_embeddings(torch.arange(len(ids)))
                + (emb.token_type_embeddings(types))
            )
            by_hand = F.layer_norm(
                by_hand, (loaded.d_model,), emb.LayerNorm.weight, emb.LayerNorm.bias, emb.LayerNorm.eps
            )
            hidden0 = loaded.model(**enc, output_hidden_states=True).hidden_states[0][0]
        assert_allclose(by_hand.numpy(), hidden0.numpy(), atol=1e-5)
    senses = models.word_senses(loaded, NOTES_BEARS, "bears")
    assert senses.layer0_error is not None and senses.layer0_error < 1e-5
    # the notes' sentences do not compare like with like: other positions, and once another token
    assert senses.positions == (3, 2, 1, 7) and senses.pieces == ("bears", "bears", "bears", "bear")
    low, high = senses.spread(0)
    assert low < 0.9 and high < 1 - 1e-3


def test_sense_groups_by_hand():
    sim = np.array([[1.0, 0.2, 0.9, 0.5], [0.2, 1.0, 0.4, 0.3], [0.9, 0.4, 1.0, 0.6], [0.5, 0.3, 0.6, 1.0]])
    g = tr.sense_groups(sim, ("a", "b", "a", None))
    assert (g.n_same, g.n_different) == (1, 2)
    assert g.same == pytest.approx(0.9) and g.different == pytest.approx((0.2 + 0.4) / 2)
    assert tr.sense_groups(sim, ("a", "b", "c", None)) is None  # no pair with one meaning
    assert tr.sense_groups(sim, (None,) * 4) is None
    with pytest.raises(ValueError, match="shape"):
        tr.sense_groups(sim, ("a", "b"))


@pytest.mark.model
def test_word_senses_pieces_missing_and_errors(loaded):
    from attn_core import models

    senses = models.word_senses(
        loaded, ["unbearable bearskins", "no word here", "the bearskins were warm"], "bearskins"
    )
    assert senses.missing == (1,)
    assert [s.pieces for s in senses.senses] == [("bears", "##kins"), ("bears", "##kins")]
    assert [s.tokens[s.index] for s in senses.senses] == ["bears", "bears"]
    with pytest.raises(ValueError, match="at least two sentences"):
        models.word_senses(loaded, ["I love bears", "cats"], "bears")
    with pytest.raises(ValueError, match="letter"):
        models.word_senses(loaded, BEARS, "  ")


@pytest.mark.model
def test_page_with_the_model(loaded):
    """The real model's "bears": the page shows the words module's sentences for the model's own
    numbers (tests/unit/test_in_a_transformer_words.py checks each sentence against its numbers
    over many made-up ones), hidden states are named "after layer k", and the charts hold the
    cosines and attention rows."""
    from attn_core import models

    at = _run(_page())
    senses = models.word_senses(loaded, BEARS, "bears")
    L = senses.n_layers
    text = _text(at)
    assert words.similarity_text(senses, L) in text and words.embeddings_text(senses) in text
    assert f"After layer {L}, the most alike are sentences 1 and 4" in text  # the two animal sentences
    assert "layer 0" not in text.lower() and f"layer {L + 1}" not in text  # hidden states: "after layer k", 1..L
    # the same token at the same position: one embedding, rebuilt from the model's own tables
    assert senses.spread(0)[0] > 1 - 1e-6 and senses.layer0_error < 1e-5
    # the meanings: closer within a meaning at the last layer, and why five sentences cannot show it
    meanings = tuple(m for _, m in tr.WORD_SENSES)
    groups = tr.sense_groups(senses.similarity[L], meanings)
    assert groups.same > groups.different and (groups.n_same, groups.n_different, groups.groupings) == (2, 8, 15)
    assert words.meanings_text(senses.word, meanings, groups, L) in text
    assert words.evidence_text(groups, len(BEARS)) in text
    assert groups.as_large >= 1 and "That is an illustration, not evidence" in text
    assert_allclose(
        z_matrix(_fig(at, f"Cosine similarity after layer {L}")["data"][0]), senses.similarity[L], atol=1e-6
    )
    assert_allclose(
        decode(_fig(at, "Mean cross-sentence similarity")["data"][0]["y"]), senses.mean_similarity, atol=1e-6
    )
    for k, sense in enumerate(senses.senses):
        bars = _fig(at, words.bar_title(k, sense.word, sense.index, L))
        assert_allclose(decode(bars["data"][0]["y"]), sense.attention[L - 1], atol=1e-6)
    assert words.looks_text(senses, L, loaded.n_heads) in text
    at.slider(key="tf_layer").set_value(0)
    _run(at)
    assert words.looks_embeddings(senses, SCREEN) in [i.value for i in at.info]
    assert_allclose(
        z_matrix(_fig(at, "Cosine similarity in the embeddings")["data"][0]), senses.similarity[0], atol=1e-6
    )
    assert "In the embeddings, the 2 pairs with the same meaning" in _text(at) and "no difference yet." in _text(at)
    at.text_input(key="tf_word").set_value("dogs")
    _run(at)
    assert any("at least two sentences" in w.value for w in at.warning)


@pytest.mark.model
def test_page_says_when_the_embeddings_do_not_compare_like_with_like(loaded):
    from attn_core import models

    at = _run(_page())
    at.text_area(key="tf_sentences").set_value("\n".join(NOTES_BEARS))
    _run(at)
    senses = models.word_senses(loaded, NOTES_BEARS, "bears")
    text = _text(at)
    assert words.embeddings_text(senses) in text and "Here the embeddings already differ" in text
    assert "(1, 2, 3, 7)" in text and "(“bear”, “bears”)" in text
    assert "pairs with the same meaning" not in text  # these sentences' meanings are not known to the page


@pytest.mark.model
def test_the_layer_link_is_the_hidden_state_shown(loaded):
    """?layer=3 shows the vectors after layer 3 and layer 3's attention; a number past the model's
    layers is clamped to its last."""
    at = _page()
    at.query_params["layer"] = "3"
    _run(at)
    assert at.slider(key="tf_layer").value == 3
    assert any(f["layout"]["title"]["text"] == "Cosine similarity after layer 3" for f in figures(at))
    assert any(h.value.startswith("8. Where the word looks in layer 3") for h in at.header)
    at = _page()
    at.query_params["layer"] = "24"
    _run(at)
    assert at.slider(key="tf_layer").value == loaded.n_layers


@pytest.mark.model
def test_page_with_hostile_model_text(loaded):
    at = _run(_page())
    at.text_area(key="tf_sentences").set_value("<b>bears</b> here\n**Bears** $x$\n[bear](javascript:x)")
    at.text_input(key="tf_word").set_value("bears")
    _run(at)
    text = _text(at)
    assert "<b>" not in text and "[bear](" not in text
    assert "the most alike are sentences" in text
    at.text_input(key="tf_word").set_value(HOSTILE["latex"])
    _run(at)
    assert all("href{" not in w.value for w in at.warning)
