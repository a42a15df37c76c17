"""The step-by-step page with a real head of the embedded model as its weight source.

The expected numbers come straight from transformers (the model's own hidden states,
attention and Linear layers), not from attn_core.models, so the page is checked against
an independent reference.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attn_core import models
from tests.app.test_page_step_by_step import run_page, trace_z
from tests.conftest import ROOT
from tests.support.figdata import figures
from tests.support.lab_checks import assert_never_imports_torch, shown_tokens
from ui.common import PRESETS

pytestmark = pytest.mark.model

PAGE = str(ROOT / "lessons" / "step_by_step" / "page.py")
TIRED, CONGESTED = PRESETS[1], PRESETS[2]


@pytest.fixture(scope="module")
def reference():
    """The embedded model, loaded independently of the page's cache."""
    loaded = models.load_model(device="cpu")
    return loaded.model, loaded.tokenizer


def model_head(reference, text: str, layer: int, head: int) -> dict[str, np.ndarray]:
    """The model's own numbers for one head, in float64: tokens, x, q, k, v and its attention."""
    model, tok = reference
    enc = tok(text, return_tensors="pt")
    with torch.inference_mode():
        out = model(**enc, output_attentions=True, output_hidden_states=True)
    x = out.hidden_states[layer][0].double()  # (T, d_model)
    att = model.encoder.layer[layer].attention.self
    d = att.attention_head_size
    rows = slice(head * d, (head + 1) * d)

    def project(lin: torch.nn.Linear) -> np.ndarray:
        return (x @ lin.weight[rows].double().T + lin.bias[rows].double()).detach().numpy()  # (T, d_k)

    return {
        "tokens": tok.convert_ids_to_tokens(enc["input_ids"][0]),
        "x": x.numpy(),
        "q": project(att.query),
        "k": project(att.key),
        "v": project(att.value),
        "weights": out.attentions[layer][0, head].double().numpy(),
    }


def tokens_shown(at: AppTest) -> list[str]:
    return shown_tokens(at)


@pytest.mark.parametrize(("layer", "head"), [(1, 1), (4, 2), (6, 12)])
def test_a_real_head_shows_the_models_own_numbers(reference, layer, head):
    """?layer=&head= hold the numbers shown, counted from 1: layer 4, head 2 is the model's
    encoder.layer[3], head index 1."""
    at = run_page(weights="real", layer=str(layer), head=str(head), text=TIRED)
    assert (at.selectbox(key="sbs_layer").value, at.selectbox(key="sbs_head").value) == (layer, head)
    assert at.selectbox(key="sbs_layer").format_func(layer) == f"layer {layer}"
    want = model_head(reference, TIRED, layer - 1, head - 1)
    assert tokens_shown(at) == want["tokens"]
    np.testing.assert_allclose(trace_z(at, "X ("), want["x"], atol=1e-6)
    for name in ("Q", "K", "V"):
        np.testing.assert_allclose(trace_z(at, "Q, K, V (", name), want[name.lower()], atol=1e-4)
    weights = trace_z(at, "A = softmax(M)")
    np.testing.assert_allclose(weights, want["weights"], atol=1e-4)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    d_k = want["q"].shape[1]
    np.testing.assert_allclose(trace_z(at, "S̃ ("), want["q"] @ want["k"].T / np.sqrt(d_k), atol=1e-3)
    assert f"{{{len(want['tokens'])} \\times {want['x'].shape[1]}}}" in " ".join(el.value for el in at.latex)
    assert any("b_q" in el.value for el in at.latex)  # the biases are in the formula
    (note,) = at.success
    error = float(re.search(r"max \|Δ\| = (\d\.\de[+−]\d+)", note.value).group(1).replace("−", "-"))
    assert error < 1e-4 and "differ" not in note.value
    assert note.value.startswith(f"Weights: layer {layer}, head {head} of all-MiniLM-L6-v2.")
    assert any(m.value.startswith(f"X is what layer {layer} receives") for m in at.markdown)
    # The random-weight controls do not apply to a real head: the size sliders show the model's
    # own sizes (read here from the reference model's arrays) and cannot move.
    d_model_box, d_k_box = at.slider(key="sbs_d_model_model"), at.slider(key="sbs_d_k_model")
    assert (d_model_box.value, d_k_box.value) == (want["x"].shape[1], d_k) == (384, 32)
    assert d_model_box.disabled and d_k_box.disabled
    assert [s.key for s in at.slider if s.key in ("sbs_d_model", "sbs_d_k")] == []
    assert at.toggle(key="sbs_pos").disabled and not at.toggle(key="sbs_causal").disabled


def test_the_random_heads_sizes_come_back_after_a_real_head():
    """Sizes set for random weights (from the link) survive a visit to a real head."""
    at = run_page(d_model="20", d_k="6")
    at.radio(key="sbs_weights").set_value("real").run()
    assert not at.exception and at.slider(key="sbs_d_model_model").value == 384
    assert at.query_params["d_model"] == "20" and at.query_params["d_k"] == "6"
    at.radio(key="sbs_weights").set_value("random").run()
    assert (at.slider(key="sbs_d_model").value, at.slider(key="sbs_d_k").value) == (20, 6)
    assert not at.slider(key="sbs_d_model").disabled


def test_switches_still_work_on_a_real_head(reference):
    at = run_page(weights="real", layer="4", head="2", text=CONGESTED)
    at.toggle(key="sbs_causal").set_value(True)
    at.run()
    want = model_head(reference, CONGESTED, 3, 1)
    weights = trace_z(at, "A = softmax(M)")
    assert np.all(np.triu(weights, k=1) == 0)
    scaled = want["q"] @ want["k"].T / np.sqrt(want["q"].shape[1])
    masked = np.where(np.tril(np.ones_like(scaled, dtype=bool)), scaled, -np.inf)
    expected = np.exp(masked - masked.max(axis=1, keepdims=True))
    np.testing.assert_allclose(weights, expected / expected.sum(axis=1, keepdims=True), atol=1e-4)
    assert "differ from the model's on purpose" in at.success[0].value


def test_the_suggested_head_shows_it_choosing_between_animal_and_street(reference):
    """The sidebar suggests the head in which "it" weights "animal" most (found here from the model's
    own attentions, named from 1) with the model's own numbers; check them against what the page's
    Step 8 shows for each sentence, on that head."""
    model, tok = reference
    enc = tok(TIRED, return_tensors="pt")
    with torch.inference_mode():
        att = torch.stack(model(**enc, output_attentions=True).attentions)[:, 0]  # (L, H, T, T)
    names = tok.convert_ids_to_tokens(enc["input_ids"][0])
    on_animal = att[:, :, names.index("it"), names.index("animal")]
    layer, head = (int(n) + 1 for n in np.unravel_index(int(on_animal.argmax()), on_animal.shape))
    rows = {}
    for name, text in (("tired", TIRED), ("congested", CONGESTED)):
        at = run_page(weights="real", layer=str(layer), head=str(head), text=text)
        tokens, weights = tokens_shown(at), trace_z(at, "A = softmax(M)")
        row = weights[tokens.index("it")]
        rows[name] = (row[tokens.index("animal")], row[tokens.index("street")], tokens[int(row.argmax())])
        caption = next(c.value for c in at.sidebar.caption if c.value.startswith(f"Try layer {layer}, head {head} "))
    # The caption's numbers are the ones Step 8 shows for each sentence (attn_core on the model's head).
    (ta, ts, t_top), (ca, cs, c_top) = rows["tired"], rows["congested"]
    assert f"with “tired”, “it” puts {ta:.2f} of its weight on “animal” ({ts:.2f} on “street”)" in caption
    assert f"with “congested”, {ca:.2f} on “animal” and {cs:.2f} on “street”" in caption
    assert t_top == c_top == "animal" and "“animal” still gets the most weight" in caption
    assert ta > ts and ta > 1.5 * ca  # the head does change between the two sentences


def test_a_real_head_caps_long_text_at_the_page_limit():
    at = run_page(weights="real", text="word " * 300)
    assert len(tokens_shown(at)) == 64 and tokens_shown(at)[-1] == "[SEP]"
    assert any("only the first 64" in w.value for w in at.warning)


def test_garbage_in_the_url_gives_defaults_and_clamped_indices():
    at = run_page(weights="<script>", layer="99", head="-4")
    assert at.radio(key="sbs_weights").value == "random"
    at.radio(key="sbs_weights").set_value("real")
    at.run()
    assert not at.exception
    assert at.selectbox(key="sbs_layer").value == 6 and at.selectbox(key="sbs_head").value == 1
    assert at.query_params["weights"] == "real" and at.query_params["layer"] == "6" and "head" not in at.query_params


def test_a_missing_model_falls_back_to_random_weights(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "default_model_dir", lambda: tmp_path)
    at = run_page(weights="real", layer="2", head="3")
    assert len(at.error) == 1 and "random weights instead" in at.error[0].value
    assert "Traceback" not in at.error[0].value
    assert figures(at) and not at.success  # the page goes on with the seeded weights
    assert trace_z(at, "X (").shape == (7, 16)


def test_the_default_page_never_imports_torch():
    assert_never_imports_torch(PAGE)
