"""The Decoder page's sentences (lessons/decoder/words/) against the numbers they state, over many
word sequences run through the shipped decoder (attn_core.trained_decoder, NumPy). Each test
recomputes the claim from the decoder's own arrays, by loops or plain NumPy, without the lesson's
derived fields, then reads the sentence: the numbers it states, or which of its wordings it chose."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attn_core import trained_decoder as dc
from lessons.decoder import words
from tests.support.hostile_corpus import HOSTILE
from ui.markup import md_escape
from ui.reader import PROJECTOR, SCREEN

DECODER = dc.load_decoder()
TRAINING = dc.load_training()
VOCAB = list(DECODER.vocab[1:])
N_WORDS = len(VOCAB)
MANY = settings(max_examples=60, deadline=None)
NUMBER = r"(\d+(?:\.\d+)?)"


@st.composite
def texts(draw) -> str:
    """Words from the vocabulary, sometimes with unknown words, and often a stretch repeated: a
    whole repeat from the start (an induction head's case), part of one, or none."""
    pool = st.sampled_from(VOCAB) | st.sampled_from(["zebra", "Sofa", "<b>", "**x**", "x1"])
    first = draw(st.lists(st.sampled_from(VOCAB) if draw(st.booleans()) else pool, min_size=1, max_size=32))
    kind = draw(st.sampled_from(["whole", "part", "none"]))
    repeat = first if kind == "whole" else first[: draw(st.integers(0, len(first)))] if kind == "part" else []
    return " ".join(first + repeat)


def _lesson(text: str) -> dc.DecoderLesson:
    return dc.decoder_lesson(DECODER, text)


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _mean_offset(attentions: np.ndarray, offset: int, start: int) -> np.ndarray:
    """(L, H): the mean over t >= start of attentions[l, h, t, t - offset], by loops."""
    L, H, T, _ = attentions.shape
    out = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            out[layer, head] = np.mean([attentions[layer, head, t, t - offset] for t in range(start, T)])
    return out


def _named_head(text: str) -> tuple[int, int]:
    """(layer, head), 0-based, from "layer 2, head 3" in a sentence."""
    layer, head = re.search(r"[Ll]ayer (\d+), head (\d+)", text).groups()
    return int(layer) - 1, int(head) - 1


def _period_by_hand(ws: tuple[str, ...]) -> int | None:
    T = len(ws)
    return next((p for p in range(1, T - 1) if all(ws[t] == ws[t - p] for t in range(p, T))), None)


# --------------------------------------------------------------------------- your words and every head


@MANY
@given(texts())
def test_the_repeat_sentence_names_the_period_the_words_have(text):
    lesson = _lesson(text)
    said = words.repeat_text(lesson, SCREEN)
    period = _period_by_hand(tuple(w.lower() for w in lesson.words))
    if period is None:
        assert "do not repeat" in said and "“Random sequence, repeated”" in said
        return
    p = int(re.search(r"From word (\d+) on", said).group(1))
    assert p == period and f"(period {p})" in said
    assert all(lesson.words[t] == lesson.words[t - p] for t in range(p, lesson.T))


@MANY
@given(texts())
def test_the_causal_caption_states_the_largest_weight_above_the_diagonal(text):
    lesson = _lesson(text)
    a = lesson.run.attentions
    above = max((a[..., i, j].max() for i in range(lesson.T) for j in range(i + 1, lesson.T)), default=0.0)
    assert above == 0.0
    assert float(re.search(r"any head: (\S+)\.$", words.above_diagonal(lesson)).group(1)) == above
    assert f"gives a later word is {above:g}." in words.footer_lines(DECODER, lesson, SCREEN)[0]


# --------------------------------------------------------------------------- the two kinds of head


@MANY
@given(texts())
def test_the_strongest_previous_token_head_is_the_strongest(text):
    lesson = _lesson(text)
    assume(lesson.T >= 2)
    scores = _mean_offset(lesson.run.attentions, offset=1, start=1)
    said = words.previous_caption(lesson.previous_token)
    layer, head = _named_head(said)
    assert scores[layer, head] == pytest.approx(scores.max(), abs=1e-12)
    assert f"({scores.max():.2f})." in said


@MANY
@given(texts())
def test_the_strongest_induction_head_is_the_strongest_and_its_score_is_the_mean_weight_after_the_copy(text):
    lesson = _lesson(text)
    period = _period_by_hand(lesson.words)
    if period is None:
        assert lesson.induction is None and "needs words that repeat" in words.no_induction(SCREEN)
        return
    scores = _mean_offset(lesson.run.attentions, offset=period - 1, start=period)
    said = words.induction_caption(lesson.induction)
    layer, head = _named_head(said)
    assert scores[layer, head] == pytest.approx(scores.max(), abs=1e-12)
    assert f"on average {scores.max():.2f} of its attention" in said
    line = words.footer_lines(DECODER, lesson, SCREEN)[-1]
    assert _named_head(line) == (layer, head) and f"({scores.max():.2f})." in line


@MANY
@given(texts())
def test_the_look_question_asks_about_the_strongest_head_and_its_answer_is_the_last_rows_largest_weight(text):
    lesson = _lesson(text)
    labels = words.labels(lesson)
    found = words.look_question(lesson, labels)
    T, a = lesson.T, lesson.run.attentions
    period = _period_by_hand(lesson.words)
    if T < 2:
        assert found is None
        return
    scores = (
        _mean_offset(a, offset=period - 1, start=period) if period else _mean_offset(a, offset=1, start=1)
    )  # (L, H)
    if found is None:  # only when the head's two largest weights from the last word are (nearly) tied
        layer, head = np.unravel_index(np.argmax(scores), scores.shape)
        top = np.sort(a[layer, head, T - 1])[::-1]
        assert top[0] - top[1] < words.TIE
        return
    q, layer, head = found
    assert scores[layer, head] == pytest.approx(scores.max(), abs=1e-12)
    assert _named_head(q.prompt) == (layer, head)
    assert ("induction" if period else "previous-token") in q.prompt and f"(position {T - 1})" in q.prompt
    row = a[layer, head, T - 1]
    answer = int(q.options[q.answer].split(":")[0])
    assert row[answer] == row.max() and q.value == pytest.approx(row.max())
    assert len(set(q.options)) == len(q.options) >= 2
    if m := re.search(r"right after an earlier “(.*)” \(position (\d+)\)", q.explain):
        p = int(m.group(2))
        ids = lesson.run.ids
        assert answer == p + 1 and ids[p] == ids[T - 1] and p < T - 1 and m.group(1) == lesson.run.tokens[p]
    elif "just before it" in q.explain:
        assert answer == T - 1 - 1


# --------------------------------------------------------------------------- guesses and loss


@MANY
@given(texts())
def test_the_next_word_question_is_the_models_top_guess(text):
    lesson = _lesson(text)
    q = words.next_question(lesson, words.labels(lesson))
    probs = _softmax(lesson.run.logits[-1])
    order = np.argsort(-probs, kind="stable")
    if q is None:
        assert probs[order[0]] - probs[order[1]] < words.TIE
        return
    assert q.options[q.answer] == DECODER.vocab[order[0]] and q.value == pytest.approx(probs[order[0]])
    ids, t = lesson.run.ids, lesson.T - 1
    copies = [s for s in range(t) if ids[s] == ids[t]]
    if m := re.search(r"Last time “(.*)” was followed by “(.*)”", q.explain):
        latest = max(copies)
        assert m.group(1) == lesson.run.tokens[t] and m.group(2) == lesson.run.tokens[latest + 1]
        assert ("does not copy" in q.explain) == (m.group(2) != DECODER.vocab[order[0]])
    else:
        assert not copies and "has not come before" in q.explain


@MANY
@given(texts())
def test_the_loss_sentence_states_the_mean_losses_and_the_accuracy_in_the_repeat(text):
    lesson = _lesson(text)
    said = words.loss_text(lesson)
    period = _period_by_hand(lesson.words)
    if period is None:
        assert said == ""
        return
    ids, T = lesson.run.ids, lesson.T
    probs = _softmax(lesson.run.logits)
    loss = np.array([-math.log(probs[t, ids[t + 1]]) for t in range(T - 1)])
    right = np.array([np.argmax(probs[t]) == ids[t + 1] for t in range(T - 1)])
    assert f"(positions 1–{period})" in said
    assert f"mean loss of {loss[:period].mean():.2f}" in said
    assert f"the mean loss is {loss[period:].mean():.2f}" in said
    assert f"right {right[period:].mean():.0%} of the time" in said
    line = words.footer_lines(DECODER, lesson, SCREEN)[1]
    assert f"mean loss was {loss[:period].mean():.2f}" in line and f"it was {loss[period:].mean():.2f}" in line


@MANY
@given(texts(), st.booleans())
def test_the_guess_table_holds_each_positions_top_five_and_its_loss(text, hide):
    lesson = _lesson(text)
    rows = words.guess_rows(lesson, words.labels(lesson), hide_last=hide)
    probs = _softmax(lesson.run.logits)
    ids = lesson.run.ids
    assert [r["position"] for r in rows] == list(range(lesson.T))
    for t, r in enumerate(rows):
        if hide and t == lesson.T - 1:
            assert r["top 5 guesses (probability)"] == words.HIDDEN_GUESSES
        else:
            pairs = r["top 5 guesses (probability)"].split("  ")
            shown = [float(p.rsplit(" ", 1)[1]) for p in pairs]
            assert shown == sorted(shown, reverse=True)
            assert shown == [round(float(p), 2) for p in np.sort(probs[t])[::-1][:5]]
        if t + 1 < lesson.T:
            assert r["loss"] == f"{-math.log(probs[t, ids[t + 1]]):.2f}" and r["actual next"] == lesson.words[t + 1]


@st.composite
def decoders(draw) -> dc.Decoder:
    """Decoders of other sizes (zero weights: the KV cache's sizes need only their shapes)."""
    L, H, d_model = draw(st.integers(1, 6)), draw(st.integers(1, 8)), draw(st.integers(1, 32))
    d_k, d_v, V = draw(st.integers(1, 16)), draw(st.integers(1, 16)), 3
    weights = dc.DecoderWeights(
        w_e=np.zeros((V, d_model)),
        w_q=np.zeros((L, H, d_model, d_k)),
        w_k=np.zeros((L, H, d_model, d_k)),
        w_v=np.zeros((L, H, d_model, d_v)),
        w_o=np.zeros((L, H * d_v, d_model)),
        w_u=np.zeros((d_model, V)),
        b_u=np.zeros(V),
    )
    return dc.Decoder(vocab=("<unk>", "a", "b"), config={"train_length": draw(st.integers(2, 512))}, weights=weights)


def _kv_numbers(said: str) -> dict[str, float]:
    grab = {
        "per_word": r"× T = ([\d,]+)·T",
        "step": r"which is ([\d,]+) at your T = (\d+)",
        "recompute": r"T\(T \+ 1\)/2 = ([\d,]+) at your T",
        "grows": r"by ([\d,]+) numbers for each word",
        "cache": r"for each word: ([\d,]+) for your (\d+) words",
        "at_max": r"words, ([\d,]+) \(([\d.]+) KB in float32\) at the (\d+) words",
    }
    out = {}
    for name, pattern in grab.items():
        m = re.search(pattern, said)
        assert m, (name, said)
        out[name] = float(m.group(1).replace(",", ""))
        if name == "at_max":
            out["kb"], out["T_max"] = float(m.group(2)), int(m.group(3))
    return out


@MANY
@given(st.one_of(st.just(DECODER), decoders()), st.integers(1, 64))
def test_the_kv_cache_costs_t_times_d_per_step_and_grows_like_t(decoder, T):
    """One new word's attention: L·H·(d_k + d_v)·T multiply-adds against the cached keys and values;
    the cache holds that many numbers and grows by the same amount with every word: like T."""
    said = words.kv_cache_text(decoder, T)
    per_word = decoder.n_layers * decoder.n_heads * (decoder.d_k + decoder.d_v)
    n = _kv_numbers(said)
    assert n["per_word"] == n["grows"] == per_word
    assert n["step"] == n["cache"] == per_word * T  # linear in T: the next word costs per_word more
    assert n["recompute"] == sum(per_word * i for i in range(1, T + 1))  # row i sees i keys
    assert n["T_max"] == decoder.max_tokens and n["at_max"] == per_word * decoder.max_tokens
    assert n["kb"] == pytest.approx(per_word * decoder.max_tokens * 4 / 1024, rel=1e-5)
    assert "no mask is needed" in said and f"(d_k + d_v = {decoder.d_k + decoder.d_v})" in said
    later = _kv_numbers(words.kv_cache_text(decoder, T + 1))
    assert later["cache"] - n["cache"] == per_word


def test_the_kv_cache_of_the_shipped_decoder():
    """2 layers × 4 heads × (16 + 16) = 256 numbers a word, 16,384 (64 KB) at its 64 words."""
    said = words.kv_cache_text(DECODER, 64)
    assert (DECODER.n_layers, DECODER.n_heads, DECODER.d_k, DECODER.d_v, DECODER.max_tokens) == (2, 4, 16, 16, 64)
    n = _kv_numbers(said)
    assert (n["per_word"], n["at_max"], n["kb"]) == (256, 16_384, 64)


# --------------------------------------------------------------------------- training


@st.composite
def trainings(draw) -> dc.Training:
    """Training records of any length and shape: losses, scores and accuracies drawn freely."""
    n = draw(st.integers(1, 12))
    L, H = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    floats = st.floats(0.0, 6.0, allow_nan=False)
    series = st.lists(floats, min_size=n, max_size=n).map(np.array)
    unit = st.lists(st.floats(0.0, 1.0), min_size=n * L * H, max_size=n * L * H).map(
        lambda v: np.array(v).reshape(n, L, H)
    )
    steps = np.cumsum(draw(st.lists(st.integers(1, 500), min_size=n, max_size=n)))
    return dc.Training(
        steps=steps,
        loss=draw(series),
        loss_first=draw(series),
        loss_repeat=draw(series),
        repeat_accuracy=draw(series) / 6,
        induction=draw(unit),
        previous_token=draw(unit),
        period=draw(st.integers(1, 32)),
    )


def _check_learning(training: dc.Training, n_words: int) -> None:
    said = words.learning_text(training, n_words)
    best = training.induction.reshape(len(training.steps), -1).max(axis=1)
    formed = next((int(s) for s, b in zip(training.steps, best, strict=True) if b > dc.INDUCTION_THRESHOLD), None)
    if formed is None:
        assert "No head's induction score passed" in said
    else:
        assert int(re.search(r"formed around step (\d+):", said).group(1)) == formed
    if len(training.steps) > 1:
        fell = np.diff(training.loss_repeat)
        drop, rise = int(np.argmin(fell)), int(np.argmax(np.diff(best)))
        a, b = training.steps[drop], training.steps[drop + 1]
        assert f"fell fastest between steps {a} and {b}" in said
        assert all(fell[drop] <= f for f in fell)
        assert ("in the same stretch" in said) == (drop == rise)
    even = math.log(n_words)
    assert f"ln {n_words} = {even:.2f} nats per word" in said
    k = min(range(len(training.steps)), key=lambda i: training.loss_first[i])
    lowest = training.loss_first[k]
    m = re.search(r"lowest loss there(?: was|,) (\d+\.\d+),? (?:\(at step|at step) (\d+)", said)
    assert m and m.group(1) == f"{lowest:.2f}" and int(m.group(2)) == training.steps[k], said
    if lowest >= even:
        assert "stays slightly worse" in said and f"{lowest - even:.2f} above the even guess" in said
    else:
        assert "luck, not skill" in said and f"{even - lowest:.2f} below ln {n_words}" in said
    assert f"best head scores {best[-1]:.2f}" in said
    assert f"repeat accuracy is {training.repeat_accuracy[-1]:.2f}" in said
    assert f"period {training.period}." in said


@MANY
@given(trainings(), st.integers(2, 500))
def test_how_it_learned_states_the_training_records_numbers(training, n_words):
    _check_learning(training, n_words)


def test_how_it_learned_on_the_shipped_record_nothing_beats_an_even_guess_and_the_model_stays_worse():
    """The held-out words before the repeat are drawn evenly from the model's 100 words: ln 100 = 4.61,
    and the model's lowest loss there stays above it."""
    _check_learning(TRAINING, N_WORDS)
    said = words.learning_text(TRAINING, N_WORDS)
    assert N_WORDS == 100 and "ln 100 = 4.61" in said
    assert np.nanmin(TRAINING.loss_first) > math.log(N_WORDS) and "stays slightly worse" in said


# --------------------------------------------------------------------------- the frame


@pytest.mark.parametrize("formed", [True, False])
def test_the_intro_states_the_decoders_sizes_and_claims_an_induction_head_only_where_training_formed_one(
    formed, monkeypatch
):
    if not formed:
        monkeypatch.setattr(dc.Training, "formed_at", lambda self, threshold=dc.INDUCTION_THRESHOLD: None)
    said = words.intro(DECODER, TRAINING)
    assert f"{DECODER.n_layers} layers of {DECODER.n_heads} causal heads" in said
    assert f"a vocabulary of {N_WORDS} common English words" in said
    assert ("it learned the famous trick" in said) == formed


@MANY
@given(st.lists(st.sampled_from([*VOCAB[:5], *HOSTILE.values(), "zebra", "Zebra", "a.b"]), min_size=1, max_size=40))
def test_the_unknown_words_warning_names_each_unknown_word_once_escaped(parts):
    lesson = _lesson(" ".join(parts))
    assume(lesson.unknown)
    said = words.unknown_words(lesson)
    unknown = list(dict.fromkeys(w for w in lesson.words if w not in DECODER.vocab))
    assert list(lesson.unknown) == unknown
    for w in unknown[:20]:
        assert f"“{md_escape(w)}”" in said
    assert (f" and {len(unknown) - 20} more." in said) == (len(unknown) > 20)


def test_the_random_button_is_named_where_it_is():
    """On a projector the button waits in the sidebar, and every sentence that sends the class to it says so."""
    no_repeat = _lesson("the cat sat on a mat")
    for reader in (SCREEN, PROJECTOR):
        button = words.random_button(reader)
        assert ("sidebar" in button) == reader.presenting
        for said in (words.empty(reader), words.repeat_text(no_repeat, reader), words.no_induction(reader)):
            assert button in said


@MANY
@given(st.integers(0, DECODER.n_layers - 1), st.integers(0, DECODER.n_heads - 1))
def test_heads_are_named_from_1(layer, head):
    assert words.head_title(layer, head) == f"Layer {layer + 1}, head {head + 1}"
    assert words.hidden_square(layer, head).endswith(f"the grey square, layer {layer + 1}, head {head + 1}.")
