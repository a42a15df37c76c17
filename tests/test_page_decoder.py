"""The Decoder page and the decoder as Step by step's weight source, through AppTest: every
chart read back and compared with the torch model on the shipped weights, and every number
in the page's sentences with the engine's."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attn_core import decoder as dc
from attn_core.train_decoder import TinyDecoder
from tests.conftest import ROOT
from tests.figdata import decode, figure_by_title, z_matrix

PAGE = str(ROOT / "lessons" / "decoder.py")
STEP_PAGE = str(ROOT / "lessons" / "step_by_step.py")


@pytest.fixture(scope="module")
def decoder() -> dc.Decoder:
    return dc.load_decoder()


@pytest.fixture(scope="module")
def torch_model(decoder) -> TinyDecoder:
    with np.load(dc.default_decoder_dir() / "weights.npz") as npz:
        return TinyDecoder.from_arrays({name: npz[name] for name in npz.files}, dtype=torch.float64)


def _torch_run(model: TinyDecoder, decoder: dc.Decoder, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    ids = torch.tensor([dc.encode(decoder, words)])
    with torch.no_grad():
        logits, attentions = model(ids)
    return logits[0].numpy(), attentions[0].numpy()  # (T, V), (L, H, T, T)


def _run(at: AppTest, **query: str) -> AppTest:
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_repeated_sequence_shows_the_models_heads_scores_and_guesses(decoder, torch_model):
    words = dc.random_repeated(decoder, 20, seed=11)
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=" ".join(words), layer="1", head="2")
    logits, attentions = _torch_run(torch_model, decoder, words)
    shown = z_matrix(figure_by_title(at, "Layer 2, head 2: attention weights")["data"][0])
    np.testing.assert_allclose(shown, attentions[1, 2], atol=1e-6)
    assert np.all(shown[np.triu_indices(len(words), 1)] == 0)  # causal: nothing above the diagonal

    lesson = dc.decoder_lesson(decoder, " ".join(words))
    assert lesson.period == 20
    induction = z_matrix(figure_by_title(at, "Induction score")["data"][0])
    np.testing.assert_allclose(induction, dc.induction_scores(lesson.run, 20), atol=1e-12)
    t = np.arange(20, 40)  # the induction score by hand, from torch's attentions
    np.testing.assert_allclose(induction, attentions[:, :, t, t - 19].mean(axis=-1), atol=1e-6)
    previous = z_matrix(figure_by_title(at, "Previous-token score")["data"][0])
    np.testing.assert_allclose(previous, attentions[:, :, np.arange(1, 40), np.arange(0, 39)].mean(-1), atol=1e-6)

    probs = torch.softmax(torch.from_numpy(logits), -1).numpy()
    expected_loss = -np.log(probs[np.arange(39), dc.encode(decoder, words)[1:]])
    loss = decode(figure_by_title(at, "Loss at each position")["data"][0]["y"]).astype(float)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-6)
    text = " ".join(m.value for m in at.markdown)
    assert f"mean loss of {expected_loss[:20].mean():.2f}" in text
    accuracy = np.mean(probs[20:39].argmax(-1) == np.array(dc.encode(decoder, words)[21:]))  # the predictable words
    assert f"right {accuracy:.0%} of the time" in text
    assert accuracy >= 0.9  # the shipped model copies the repeat
    layer, head = np.unravel_index(np.argmax(induction), induction.shape)
    assert any(f"strongest induction head is layer {layer + 1}, head {head}" in c.value for c in at.caption)


def test_the_training_curve_is_the_training_record():
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    training = dc.load_training()
    fig = figure_by_title(at, "Induction score and repeat accuracy")
    np.testing.assert_array_equal(decode(fig["data"][0]["x"]), training.steps)
    np.testing.assert_allclose(decode(fig["data"][0]["y"]), training.best_induction)
    formed = training.formed_at(0.5)
    assert formed is not None and training.best_induction[training.steps.tolist().index(formed)] > 0.5
    assert any(f"formed around step {formed}" in m.value for m in at.markdown)


def test_the_random_button_repeats_and_unknown_words_are_named(decoder):
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    at.button[0].click()
    _run(at)
    words = at.text_input(key="dec_text").value.split()
    assert len(words) == 40 and words[:20] == words[20:] and set(words) <= set(decoder.vocab)
    at.text_input(key="dec_text").set_value("The zebra sat on the Sofa, the zebra sat")
    _run(at)
    warning = " ".join(w.value for w in at.warning)
    assert "zebra" in warning and "sofa" in warning and "<unk>" in warning


def test_long_and_empty_text(decoder):
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=" ".join(["cat"] * 80))
    assert any("only the first 64" in w.value for w in at.warning)
    at.text_input(key="dec_text").set_value("")
    _run(at)
    assert any("empty" in i.value for i in at.info)


@pytest.mark.parametrize(("layer", "head"), [(0, 3), (1, 1)])
def test_a_decoder_head_on_step_by_step_is_the_models_own(decoder, torch_model, layer, head):
    words = dc.random_repeated(decoder, 8, seed=2)
    at = _run(
        AppTest.from_file(STEP_PAGE, default_timeout=60),
        text=" ".join(words),
        weights="decoder",
        layer=str(layer),
        head=str(head),
    )
    _, attentions = _torch_run(torch_model, decoder, words)
    np.testing.assert_allclose(
        z_matrix(figure_by_title(at, "Step 8: attention weights")["data"][0]), attentions[layer, head], atol=1e-6
    )
    assert at.toggle(key="sbs_causal").value is True and at.toggle(key="sbs_causal").disabled
    assert any("causal mask on because the head was trained with it" in s.value for s in at.success)


def test_the_step_page_clamps_a_real_heads_layer_for_the_decoder():
    at = _run(AppTest.from_file(STEP_PAGE, default_timeout=60), weights="decoder", layer="5", head="11")
    assert at.selectbox(key="sbs_layer").value == 1 and at.selectbox(key="sbs_head").value == 3
