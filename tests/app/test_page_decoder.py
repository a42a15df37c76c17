"""The Decoder page and the decoder as Step by step's weight source, through AppTest: every
chart read back and compared with the torch model on the shipped weights, and every number
in the page's sentences with the engine's."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attn_core import trained_decoder as dc
from attn_core.models.train_decoder import TinyDecoder
from tests.conftest import ROOT
from tests.support.figdata import decode, figure_by_title, figures, z_matrix
from tests.support.quiz_checks import asked, options, prompt, reveal
from ui.common import MAX_TOKENS, md_escape

PAGE = str(ROOT / "lessons" / "decoder" / "page.py")
STEP_PAGE = str(ROOT / "lessons" / "step_by_step" / "page.py")


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
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=" ".join(words), layer="2", head="3")  # as shown
    logits, attentions = _torch_run(torch_model, decoder, words)
    shown = z_matrix(figure_by_title(at, "Layer 2, head 3: attention weights")["data"][0])
    np.testing.assert_allclose(shown, attentions[1, 2], atol=1e-6)  # layer 2, head 3: the arrays' [1, 2]
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
    assert any(f"strongest induction head is layer {layer + 1}, head {head + 1}" in c.value for c in at.caption)


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


@pytest.mark.parametrize(("layer", "head"), [(1, 4), (2, 2)])
def test_a_decoder_head_on_step_by_step_is_the_models_own(decoder, torch_model, layer, head):
    """?layer=&head= are the numbers shown, from 1: layer 1, head 4 is attentions[0, 3]."""
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
        z_matrix(figure_by_title(at, "A = softmax(M)")["data"][0]), attentions[layer - 1, head - 1], atol=1e-6
    )
    assert at.toggle(key="sbs_causal").value is True and at.toggle(key="sbs_causal").disabled
    (note,) = at.success
    assert note.value.startswith(f"Weights: layer {layer}, head {head} of our small decoder, with the causal mask on")
    assert (at.selectbox(key="sbs_layer").value, at.selectbox(key="sbs_head").value) == (layer, head)
    # Step 3 says how closely this NumPy decoder matches the torch model, on training.json's numbers.
    step3 = next(m.value for m in at.markdown if m.value.startswith("These are trained numbers"))
    assert f"head {head}'s query, key and value matrices in layer {layer}" in step3
    assert f"against the {dc.load_training().loss[-1]:.6f} torch recorded" in step3


def test_the_step_page_clamps_a_real_heads_layer_for_the_decoder():
    at = _run(AppTest.from_file(STEP_PAGE, default_timeout=60), weights="decoder", layer="5", head="11")
    assert at.selectbox(key="sbs_layer").value == 2 and at.selectbox(key="sbs_head").value == 4  # the last, from 1
    assert at.query_params["layer"] == "2" and at.query_params["head"] == "4"


# --------------------------------------------------------------------------- the sentences


def _config() -> dict:
    return json.loads((dc.default_decoder_dir() / "config.json").read_text())


def test_the_model_description_is_read_from_its_config():
    """Sizes, vocabulary and "attention-only" in the page's text come from config.json."""
    config = _config()
    L, H, n_words = config["n_layers"], config["n_heads"], len(config["vocab"]) - 1
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    intro = at.markdown[0].value
    assert f"{L} layers of {H} causal heads" in intro
    assert f"a vocabulary of {n_words} common English words" in intro
    attention_only = config["layers"].startswith("attention-only") and "no MLP" in config["layers"]
    assert attention_only and "no LayerNorm" in config["layers"]
    assert "an attention-only model" in intro and "no feed-forward network (MLP) and no LayerNorm" in intro
    assert at.text_input(key="dec_text").label == f"Words (from the model's {n_words}-word vocabulary)"
    assert [e.label for e in at.main.expander] == [f"The {n_words} words the model knows"]
    assert at.expander[0].markdown[0].value == " · ".join(config["vocab"][1:])
    figure_by_title(at, f"All {L * H} heads: layers (rows) × heads (columns)")  # raises if absent
    assert at.button[0].help == "20 random words from the vocabulary, then the same 20 again"
    at.button[0].click()
    words = _run(at).text_input(key="dec_text").value.split()
    assert len(words) == 40 and words[:20] == words[20:]


def test_how_it_learned_is_the_training_record():
    """Every number in section 5's paragraph, recomputed from training.json itself."""
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    record = json.loads((dc.default_decoder_dir() / "training.json").read_text())
    history = record["history"]
    steps = [p["step"] for p in history]
    best = np.array([np.max(p["induction_score"]) for p in history])
    repeat = np.array([p["loss_repeat"] for p in history])
    first = np.array([p["loss_first"] for p in history])
    text = next(m.value for m in at.markdown if m.value.startswith("The induction head formed"))
    threshold = dc.INDUCTION_THRESHOLD
    formed = next(s for s, b in zip(steps, best, strict=True) if b > threshold)
    assert (
        f"formed around step {formed}: the first evaluation where a head's induction score passed {threshold:g}."
        in text
    )
    drop = int(np.argmin(np.diff(repeat)))
    rise = int(np.argmax(np.diff(best)))
    assert drop == rise  # the page says "in the same stretch"
    assert (
        f"fell fastest between steps {steps[drop]} and {steps[drop + 1]}, from {repeat[drop]:.2f} to "
        f"{repeat[drop + 1]:.2f}, in the same stretch where the best induction score rose the most, from "
        f"{best[rise]:.2f} to {best[rise + 1]:.2f}"
    ) in text
    assert repeat[drop + 1] < repeat[drop] - 1.0  # a real drop
    assert f"went from {first[drop]:.2f} to {first[drop + 1]:.2f}" in text
    n_words = len(_config()["vocab"]) - 1
    assert "(no <unk>)" in record["eval_batch"]  # held-out words are drawn from the n_words real words
    assert first.min() > np.log(n_words)  # "no trick helps": never better than an even guess
    lowest = int(np.argmin(first))  # the model stays above the even guess; the page says by how much
    assert f"ln {n_words} = {np.log(n_words):.2f}" in text
    assert f"its lowest loss there was {first[lowest]:.2f} (at step {steps[lowest]})" in text
    assert f"{first[lowest] - np.log(n_words):.2f} above the even guess" in text
    last = history[-1]
    assert f"best head scores {np.max(last['induction_score']):.2f}" in text
    assert f"repeat accuracy is {last['repeat_accuracy']:.2f}" in text
    assert f"period {record['eval_period']}." in text


def _sbs(**query: str) -> AppTest:
    return _run(AppTest.from_file(STEP_PAGE, default_timeout=60), weights="decoder", **query)


def _torch_induction(torch_model: TinyDecoder, decoder: dc.Decoder, words: list[str], period: int) -> np.ndarray:
    """Induction scores (L, H) by hand from the torch model's attentions."""
    _, attentions = _torch_run(torch_model, decoder, words)
    t = np.arange(period, len(words))
    return attentions[:, :, t, t - period + 1].mean(axis=-1)


def test_step_by_step_names_the_decoders_induction_heads_from_their_scores(decoder, torch_model):
    at = _sbs(layer="1")
    words = dc.random_repeated(decoder, 20, seed=0)
    scores = _torch_induction(torch_model, decoder, words, 20)
    heads = [(int(layer), int(head)) for layer, head in np.argwhere(scores > dc.INDUCTION_THRESHOLD)]
    assert heads, "the shipped decoder should have an induction head"
    caption = " ".join(c.value for c in at.sidebar.caption)
    names = "; ".join(f"layer {layer + 1}, head {head + 1}" for layer, head in heads)  # counted from 1
    assert f"{len(heads)} of its {scores.size} heads have an induction score above 0.5" in caption
    assert f"These are induction heads: {names}." in caption
    assert "On 20 random words followed by the same 20 again" in caption
    assert np.all(np.abs(scores - dc.INDUCTION_THRESHOLD) > 0.05)  # no head sits on the threshold


def test_step_by_step_says_what_the_decoder_does_after_a_head(decoder):
    """Step 9 follows attn_core.trained_decoder.run: concat, W_O, residual add; then the next layer,
    or the unembedding after the last. No LayerNorm, no feed-forward network."""
    config = _config()
    L, H = config["n_layers"], config["n_heads"]
    for layer in range(L):
        at = _sbs(layer=str(layer + 1), text="the cat sat on the mat")
        text = next(m.value for m in at.markdown if m.value.startswith("Each output row is a blend"))
        assert f"other {H - 1} heads' outputs of layer {layer + 1} ({H * config['d_v']} numbers per token)" in text
        assert f"W_O back to {config['d_model']} numbers and added to the token's own vector" in text
        assert "no normalisation and no feed-forward network" in text and "normalised" not in text
        if layer + 1 < L:
            assert f"Layer {layer + 2} reads the sum as its X." in text and "unembedding" not in text
        else:
            assert f"each of the {len(config['vocab'])} entries of the vocabulary (<unk> included)" in text
    # The other sources keep the transformer's story (LayerNorm and the feed-forward network).
    at = _run(AppTest.from_file(STEP_PAGE, default_timeout=60))
    text = next(m.value for m in at.markdown if m.value.startswith("Each output row is a blend"))
    assert "feed-forward network" in text and "post-LN" in text and "pre-LN" in text


def test_step_by_step_decoder_warnings_and_vocabulary(decoder):
    n_words = len(_config()["vocab"]) - 1
    at = _sbs(text="The zebra sat on the **sofa** <b>")
    warnings = [w.value for w in at.warning]
    unknown = dc.decoder_lesson(decoder, "The zebra sat on the **sofa** <b>").unknown
    assert unknown == ("zebra", "*", "sofa", "<", "b", ">")
    assert warnings == [
        f"Not in the decoder's {n_words}-word vocabulary, so read as <unk>: "
        + ", ".join(f"“{md_escape(w)}”" for w in unknown)
        + "."
    ]
    assert "“\\*”" in warnings[0] and "&lt;" in warnings[0] and "<b>" not in warnings[0]
    assert any(f"its own {n_words}-word vocabulary" in m.value for m in at.markdown)
    at = _sbs(text=" ".join(["cat"] * 80))  # the decoder's limit is the page's: one warning says so
    assert _config()["train_length"] == dc.MAX_TOKENS == MAX_TOKENS
    assert [w.value for w in at.warning] == [
        f"The sentence has more than {MAX_TOKENS} tokens; only the first {MAX_TOKENS} are used."
    ]
    assert z_matrix(figure_by_title(at, "A = softmax(M)")["data"][0]).shape == (64, 64)
    at = _sbs(text=" ".join(f"w{n}" for n in range(25)))
    assert at.warning[0].value.endswith("“w19” and 5 more.")


def test_the_intro_claims_an_induction_head_only_where_training_formed_one(monkeypatch):
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    assert dc.load_training().formed_at(dc.INDUCTION_THRESHOLD) is not None  # the shipped record
    assert any("it learned the famous trick for that: an **induction head**" in m.value for m in at.markdown)
    monkeypatch.setattr(dc.Training, "formed_at", lambda self, threshold=dc.INDUCTION_THRESHOLD: None)
    at = _run(AppTest.from_file(PAGE, default_timeout=60))
    intro = next(m.value for m in at.markdown if m.value.startswith("Everything real on the other pages"))
    assert "learned" not in intro and "the trick for that is an **induction head**" in intro


def test_step_two_names_the_residual_stream_only_for_an_attention_only_decoder(decoder, monkeypatch):
    def x_text(at: AppTest) -> str:
        return next(m.value for m in at.markdown if m.value.startswith("X is what layer 2 of the decoder receives"))

    assert decoder.attention_only
    assert "added to them (the residual stream), so every row" in x_text(_sbs(layer="2"))
    monkeypatch.setattr(dc.Decoder, "attention_only", property(lambda self: False))
    text = x_text(_sbs(layer="2"))
    assert "residual stream" not in text and "the output of layer 1, built from" in text


# --- predict first ---------------------------------------------------------------------------

DEFAULT_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
PLAIN_TEXT = "the cat sat on a red mat and the dog was happy"  # known words, no repeat


def _by_hand(torch_model: TinyDecoder, decoder: dc.Decoder, words: list[str], period: int | None):
    """From torch's forward pass: the head the look question is about (the best induction head, or the
    best previous-token head without a period), the last word's row in it, and the next-word probabilities."""
    logits, attentions = _torch_run(torch_model, decoder, words)
    T = len(words)
    if period is not None:
        t = np.arange(period, T)
        scores = attentions[:, :, t, t - period + 1].mean(axis=-1)
    else:
        scores = attentions[:, :, np.arange(1, T), np.arange(T - 1)].mean(axis=-1)
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    probs = torch.softmax(torch.from_numpy(logits[-1]), -1).numpy()
    return int(layer), int(head), attentions[layer, head, T - 1], probs


def _grid_hidden(at: AppTest) -> tuple[int, int] | None:
    """The (layer, head) whose thumbnail the grid of every head covers (None: all drawn), read from
    the grid's grey "masked" layer; every other thumbnail's cells hold numbers."""
    grid = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("All "))
    main = z_matrix(next(t for t in grid["data"] if t.get("name") != "masked"))
    covers = [t for t in grid["data"] if t.get("name") == "masked" and t["type"] == "heatmap"]
    if not covers:
        return None
    cover = z_matrix(covers[0]) == 1.0
    assert np.isnan(main[cover]).all()  # no numbers under the grey square
    rows, cols = np.nonzero(cover)
    s = rows.max() - rows.min() + 1
    return int(rows.min() // (s + 1)), int(cols.min() // (s + 1))


def _table_last_guesses(at: AppTest) -> str:
    return str(at.table[0].value.iloc[-1]["top 5 guesses (probability)"])


@pytest.mark.parametrize(
    ("words", "period"),
    [(DEFAULT_TEXT.split(), 11), (PLAIN_TEXT.split(), None)],
    ids=["repeated", "no-period"],
)
def test_predict_first_asks_where_the_head_looks_and_the_next_word(decoder, torch_model, words, period):
    """Section 3 asks where the best induction head (previous-token head without a repeat) looks
    from the last word, section 4 what the model guesses next. The answers are torch's; until they
    are revealed the asked head's chart and the last guesses are hidden."""
    layer, head, row, probs = _by_hand(torch_model, decoder, words, period)
    text = " ".join(words)
    shown_at = {"layer": str(layer + 1), "head": str(head + 1)}  # the link names them as the page shows them
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=text, predict="1", **shown_at)
    assert dc.decoder_lesson(decoder, text).period == period
    assert asked(at) == {
        "dec_quiz_look": "3. Previous-token heads and induction heads",
        "dec_quiz_next": "4. The model's next-word guesses",
    }
    kind = "induction" if period else "previous-token"
    T = len(words)
    assert prompt(at)[0] == "**Predict first.** " + md_escape(
        f"Layer {layer + 1}, head {head + 1} is the strongest {kind} head on these words. Which word does the last "
        f"word, “{words[-1]}” (position {T - 1}), give the most weight?"
    )
    assert not [
        f for f in figures(at) if f["layout"]["title"]["text"].startswith(f"Layer {layer + 1}, head {head + 1}:")
    ]
    assert any("reveal your prediction in section 3" in i.value for i in at.info)
    assert _grid_hidden(at) == (layer, head)  # nor its thumbnail in the grid of every head
    assert any(f"the grey square, layer {layer + 1}, head {head + 1}." in c.value for c in at.caption)
    assert _table_last_guesses(at) == "hidden until you reveal your prediction"

    look = options(at, "dec_quiz_look")
    assert all(int(o.split(":")[0]) < T for o in look) and f"{T - 2}: {words[T - 2]}" in look
    best = int(np.argmax(row))
    answer = reveal(at, "dec_quiz_look", f"{best}: {words[best]}")
    assert f"with its weight = {row.max():.3f}" in answer
    if period:
        assert best == T - period  # the word after the earlier copy of the last word
        assert md_escape(f"It is the word right after an earlier “{words[best - 1]}” (position {best - 1})") in answer
    shown = z_matrix(figure_by_title(at, f"Layer {layer + 1}, head {head + 1}: attention weights")["data"][0])
    np.testing.assert_allclose(shown[-1], row, atol=1e-6)
    assert _grid_hidden(at) is None

    top = decoder.vocab[int(np.argmax(probs))]
    nxt = options(at, "dec_quiz_next")
    assert nxt == sorted(nxt) and top in nxt
    answer = reveal(at, "dec_quiz_next", top)
    assert f"with the probability of its top guess = {probs.max():.3f}" in answer
    assert _table_last_guesses(at).startswith(f"{top} {probs.max():.2f}")
    if period:
        copied = words[T - period]
        assert copied == top and md_escape(f"Last time “{words[-1]}” was followed by “{copied}”") in answer


@pytest.mark.parametrize(("text", "look"), [("cat", False), ("cat dog", True), ("the the the the", True)])
def test_predict_first_on_one_or_two_words_and_repeats(decoder, torch_model, text, look):
    """One word: nothing to look back at, so only the next-word question, and the page says why.
    Two words, or one word said four times, still give distinct options and torch's answers."""
    words = text.split()
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=text, predict="1")
    assert ("dec_quiz_look" in asked(at)) == look and "dec_quiz_next" in asked(at)
    period = dc.detect_period(words)
    if look:
        _, _, row, _ = _by_hand(torch_model, decoder, words, period)
        best = int(np.argmax(row))
        reveal(at, "dec_quiz_look", f"{best}: {words[best]}")
    else:
        assert any(c.value.startswith("Predict first has no question here") for c in at.caption)
    probs = torch.softmax(torch.from_numpy(_torch_run(torch_model, decoder, words)[0][-1]), -1).numpy()
    reveal(at, "dec_quiz_next", decoder.vocab[int(np.argmax(probs))])


@pytest.mark.parametrize("step", ["1", "2", "3", "4", "5"])
def test_presenter_mode_asks_each_question_in_its_own_section(step):
    at = _run(AppTest.from_file(PAGE, default_timeout=60), predict="1", step=step)
    expected = {"3": {"dec_quiz_look"}, "4": {"dec_quiz_next"}}.get(step, set())
    at2 = AppTest.from_file(PAGE, default_timeout=60)
    at2.session_state["present"] = True
    at2 = _run(at2, predict="1", step=step)
    assert set(asked(at2)) == expected
    assert set(asked(at)) == {"dec_quiz_look", "dec_quiz_next"}  # outside presenter mode: the whole page


def test_predict_first_shows_markup_and_unknown_words_literally(decoder, torch_model):
    """Tags and markdown typed as words become <unk> tokens: the questions show them escaped, and the
    explanation names the earlier copy as the model reads it (<unk>), not as typed."""
    text = "<b>cat</b> **sat** <b>cat</b>"
    lesson = dc.decoder_lesson(decoder, text)
    words = list(lesson.words)
    labels = [w if k else f"{w} (<unk>)" for w, k in zip(words, lesson.known, strict=True)]
    at = _run(AppTest.from_file(PAGE, default_timeout=60), text=text, predict="1")
    assert all("<" not in p and "&lt;" in p for p in prompt(at))
    _, _, row, probs = _by_hand(torch_model, decoder, words, lesson.period)
    best = int(np.argmax(row))
    answer = reveal(at, "dec_quiz_look", f"{best}: {labels[best]}")
    assert "<" not in answer
    assert lesson.run.tokens[best - 1] == "<unk>" != words[best - 1]  # the shipped model looks after a copy
    assert md_escape(f"right after an earlier “<unk>” (position {best - 1})") in answer
    reveal(at, "dec_quiz_next", decoder.vocab[int(np.argmax(probs))])


# --- one numbering ---------------------------------------------------------------------------


def test_layers_and_heads_are_counted_from_1_in_the_pickers_charts_and_link(decoder):
    """?layer=1&head=4 is layer 1, head 4 as the page shows them: the pickers say so, the charts hold
    the arrays' [0, 3], the grid and the score tables name layers and heads from 1, and a picker writes
    the number it shows back into the link. Out-of-range numbers are clamped to 1..L and 1..H."""
    at = _run(AppTest.from_file(PAGE, default_timeout=60), layer="1", head="4")
    lesson = dc.decoder_lesson(decoder, DEFAULT_TEXT)
    assert (at.selectbox(key="dec_layer").value, at.selectbox(key="dec_head").value) == (1, 4)
    assert at.selectbox(key="dec_head").options == [f"head {h}" for h in range(1, decoder.n_heads + 1)]
    shown = z_matrix(figure_by_title(at, "Layer 1, head 4: attention weights")["data"][0])
    np.testing.assert_allclose(shown, lesson.run.attentions[0, 3], atol=1e-12)
    lines = figure_by_title(at, "Head view, layer 1, head 4")
    assert {t["name"] for t in lines["data"] if isinstance(t.get("meta"), dict)} == {"head 4"}
    grid = figure_by_title(at, "heads: layers (rows) × heads (columns)")
    assert list(grid["layout"]["yaxis"]["ticktext"]) == [f"layer {n}" for n in range(1, decoder.n_layers + 1)]
    assert list(grid["layout"]["xaxis"]["ticktext"]) == [f"head {n}" for n in range(1, decoder.n_heads + 1)]
    layer, head = np.unravel_index(np.argmax(lesson.induction), lesson.induction.shape)
    assert any(f"strongest induction head is layer {layer + 1}, head {head + 1}:" in c.value for c in at.caption)
    at.selectbox(key="dec_head").set_value(2)
    _run(at)
    assert at.query_params["head"] == "2" and at.query_params["layer"] == "1"
    figure_by_title(at, "Layer 1, head 2: attention weights")
    at = _run(AppTest.from_file(PAGE, default_timeout=60), layer="9", head="0")
    assert (at.selectbox(key="dec_layer").value, at.selectbox(key="dec_head").value) == (decoder.n_layers, 1)
    assert "layer" not in at.query_params and "head" not in at.query_params  # the defaults: layer 2, head 1


@pytest.mark.parametrize(("step", "below"), [("2", True), ("5", False)])
def test_presenter_mode_draws_each_section_on_a_stage_in_the_main_column_with_nothing_after_it(step, below):
    """On a projector the section's stage is a child of the page's main column (assets/present.css
    sizes it to the screen only there) and the page writes nothing after it: the text below the
    charts, and on the last section the footer, go into the stage's side."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["present"] = True
    _run(at, step=step)
    ids = [getattr(block.proto, "id", "") for block in at.main.children.values()]
    stage = [n for n, i in enumerate(ids) if i.endswith("-present_stage")]
    assert len(stage) == 1, ids
    assert [i.rsplit("-", 1)[-1] for i in ids[stage[0] + 1 :]] == (["present_stage_below"] if below else []), ids
    last = list(at.main.children.values())[-1]
    headers = [h.value for h in last.subheader]
    assert ("What this page showed" in headers) == (step == "5")  # the footer waits for the last section
