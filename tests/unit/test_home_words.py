"""Home's sentences (lessons/home/words.py) against the numbers they state, over many inputs:
each test recomputes what a sentence claims from the arrays, independently, and checks it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_core as ac
from attn_core import trained_decoder as dc
from lessons.home import words
from tests.support.hostile_corpus import HOSTILE
from ui.markup import md_escape

WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def _live_claims(text: str) -> tuple[float, int, str, int, str, int, float]:
    """(largest weight, i, token i, j, token j, T, even share) as the live sentence states them."""
    m = re.search(
        r"The largest weight on your sentence is \*\*([−\d.]+)\*\*: token (\d+) \(“(.*)”\) on token (\d+) "
        r"\(“(.*)”\), against an even share of 1/(\d+) = ([\d.]+)\.",
        text,
        re.S,
    )
    assert m, text
    w, i, ti, j, tj, T, even = m.groups()
    return _number(w), int(i), ti, int(j), tj, int(T), float(even)


def _check_live(weights: np.ndarray, tokens: tuple[str, ...]) -> None:
    text = words.live_text(weights, tokens)
    w, i, ti, j, tj, T, even = _live_claims(text)
    assert T == len(tokens) == weights.shape[0]
    assert weights[i, j] == weights.max()  # the largest weight is where the sentence says
    assert abs(w - weights.max()) <= 0.005 + 1e-12  # and it is that weight, to the digits shown
    assert (ti, tj) == (md_escape(tokens[i]), md_escape(tokens[j]))  # the user's tokens, escaped
    assert abs(even - 1 / T) <= 0.005 + 1e-12
    assert f"d_model = {words.LIVE_D_MODEL}, d_k = {words.LIVE_D_K}, no mask" in text


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=words.MAX_TOKENS))
def test_the_live_sentence_on_the_engines_head(tokens):
    """Over typed words (any characters): the head the page draws, and the sentence about it."""
    tokens = tuple(ac.tokenize(" ".join(tokens), max_tokens=words.MAX_TOKENS)) or ("x",)
    _check_live(words.live_lesson(tokens).steps.weights, tokens)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 16), st.integers(0, 2**32 - 1), st.floats(0.1, 30))
def test_the_live_sentence_on_any_weights(T, seed, spread):
    """Any row-stochastic weights, peaked or flat: the sentence finds the largest one."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(0, spread, (T, T))
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    _check_live(weights, tuple(f"w{k}" for k in range(T)))


@pytest.mark.parametrize("name", list(HOSTILE))
def test_the_live_sentence_escapes_hostile_tokens(name):
    tokens = tuple(ac.tokenize(HOSTILE[name], max_tokens=words.MAX_TOKENS))
    if not tokens:
        return
    text = words.live_text(words.live_lesson(tokens).steps.weights, tokens)
    assert "<script" not in text and "](" not in text and "\\href" not in text.replace("\\\\", "")


# --------------------------------------------------------------------------- what training changes


@pytest.fixture(scope="module")
def decoder() -> dc.Decoder:
    return dc.load_decoder()


def _training_claims(text: str) -> dict[str, object]:
    m = re.search(
        r"read the same (\d+) words, “(.*)” said twice, with the same causal mask and heads of the same size "
        r"\(d_model = (\d+), d_k = (\d+)\).*the second layer (\d+), head (\d+) of our small decoder.*"
        r"the trained head puts on average \*\*([\d.]+)\*\* of each word's attention on the word that followed "
        r"its earlier copy.*the random head puts ([\d.]+) there, (less|more) than the ([\d.]+) an even spread.*"
        r"guesses (\d+)% of the repeated words right\.",
        text,
        re.S,
    )
    assert m, text
    T, phrase, d_model, d_k, layer, head, trained, random, than, even, accuracy = m.groups()
    return {
        "T": int(T),
        "phrase": phrase,
        "sizes": (int(d_model), int(d_k)),
        "head": (int(layer), int(head)),
        "trained": float(trained),
        "random": float(random),
        "than": than,
        "even": float(even),
        "accuracy": int(accuracy),
    }


def _check_training(decoder: dc.Decoder, phrase: list[str]) -> None:
    text_in = " ".join(phrase + phrase)
    head = dc.trained_vs_random(decoder, text_in)
    claims = _training_claims(words.training_text(head))
    T, period = len(head.words), head.period
    # the same words, said twice; both heads causal and of the decoder's size: what the charts show
    assert claims["T"] == T == 2 * period and claims["phrase"] == md_escape(" ".join(head.words[:period]))
    assert head.words[:period] == head.words[period:]
    assert claims["sizes"] == (decoder.d_model, decoder.d_k)
    for w in (head.trained, head.random):
        assert w.shape == (T, T) and np.all(np.triu(w, 1) == 0) and np.allclose(w.sum(axis=1), 1)
    # the stripe, recomputed from the two matrices the page draws
    t = np.arange(period, T)
    stripe_trained = head.trained[t, t - period + 1].mean()
    stripe_random = head.random[t, t - period + 1].mean()
    even = np.mean(1.0 / (t + 1))  # causal: word t sees t + 1 words
    assert abs(claims["trained"] - stripe_trained) <= 0.005 + 1e-12
    assert abs(claims["random"] - stripe_random) <= 0.005 + 1e-12
    assert abs(claims["even"] - even) <= 0.005 + 1e-12
    assert claims["than"] == ("less" if stripe_random < even else "more")
    # the named head is the decoder's best on this stripe, numbered from 1
    lesson = dc.decoder_lesson(decoder, text_in)
    scores = lesson.run.attentions[..., t, t - period + 1].mean(axis=-1)  # (L, H)
    layer, h = np.unravel_index(int(np.argmax(scores)), scores.shape)
    assert claims["head"] == (layer + 1, h + 1)
    np.testing.assert_array_equal(head.trained, lesson.run.attentions[layer, h])
    # the decoder's top guess against the next word, over the repeated part
    right = lesson.top_ids[period : T - 1, 0] == lesson.run.ids[period + 1 : T]
    assert abs(claims["accuracy"] - 100 * right.mean()) <= 0.5 + 1e-9


def test_the_training_sentence_on_homes_phrase(decoder):
    _check_training(decoder, words.PHRASE.split())
    head, problem = words.trained()
    assert problem is None and head.words == tuple(words.PHRASE.split() * 2)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 16), st.integers(0, 10_000), st.booleans())
def test_the_training_sentence_on_any_repeated_phrase(n_words, seed, replace):
    """Random phrases from the decoder's vocabulary, said twice: every number the sentence states
    is the one recomputed from the two heads it describes."""
    decoder = dc.load_decoder()
    phrase = dc.random_repeated(decoder, n_words, seed=seed, replace=replace)[:n_words]
    if dc.detect_period(phrase + phrase) != n_words:  # a phrase that itself repeats has a shorter period
        return
    _check_training(decoder, phrase)


def test_the_trained_title_names_the_head_from_1(decoder):
    head = dc.trained_vs_random(decoder, f"{words.PHRASE} {words.PHRASE}")
    assert words.trained_title(head).endswith(f"layer {head.layer + 1}, head {head.head + 1} of our decoder")
