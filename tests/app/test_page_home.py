"""Home: a live example at the top (the heatmap is the engine's head on the typed sentence),
the pages in teaching order, and no torch."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from lessons.home import words
from tests.conftest import ROOT
from tests.support.browser.waits import PAGES
from tests.support.figdata import figure_by_title, figures, z_matrix
from tests.support.lab_checks import assert_never_imports_torch

APP = str(ROOT / "app.py")


def _home() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()  # the app opens on Home
    assert not at.exception, [e.value for e in at.exception]
    return at


def _live(at: AppTest) -> dict:
    """The live example's chart (the head with random weights, on the typed sentence)."""
    return figure_by_title(at, words.LIVE_TITLE)


def _reference(text: str) -> np.ndarray:
    """One seeded head (d_model 16, d_k 4, seed 0, positions on) computed from the engine's parts."""
    tokens = ac.tokenize(text, max_tokens=16)
    x = ac.embed(tokens, 16, seed=0)
    w = ac.init_weights(16, 4, seed=0)
    return ac.attention_steps(x, w.w_q, w.w_k, w.w_v).weights


def test_the_live_example_follows_the_sentence():
    at = _home()
    fig = _live(at)
    np.testing.assert_allclose(z_matrix(fig["data"][0]), _reference(at.text_input(key="home_text").value))
    at.text_input(key="home_text").set_value("a red fox jumps over a red dog").run()
    fig = _live(at)
    np.testing.assert_allclose(z_matrix(fig["data"][0]), _reference("a red fox jumps over a red dog"))
    assert fig["layout"]["yaxis"]["ticktext"][1] == "red" and fig["layout"]["yaxis"]["ticktext"][6] == "red"


def test_a_long_sentence_is_cut_to_16_tokens_with_a_note():
    at = _home()
    at.text_input(key="home_text").set_value(" ".join(f"w{i}" for i in range(30))).run()
    assert z_matrix(_live(at)["data"][0]).shape == (16, 16)
    assert any("first 16 tokens" in c.value for c in at.caption)


def test_start_here_links_every_other_page_in_the_navigations_order():
    """The path names every page but Home, in the order of the sidebar (the browser suite's
    PAGES, which test_pages checks against the real navigation), each with its sentence; the
    lessons are numbered, the Class page (a tool for teachers) comes last without a number."""
    at = _home()
    links = [(el.proto.label, el.proto.page) for el in at.get("page_link")]
    assert links == [(title, path) for title, path, _ in PAGES if path]
    numbers = [m.value for m in at.markdown if m.value.startswith("**") and m.value[2:3].isdigit()]
    lessons = [link for link in links if link != ("Class", "class")]  # the teacher's tool comes last, unnumbered
    assert links[-1] == ("Class", "class") and len(lessons) == len(links) - 1
    assert [n.split("**")[1] for n in numbers] == [f"{k}." for k in range(1, len(lessons) + 1)]


def test_home_never_imports_torch():
    assert_never_imports_torch(APP)


def test_the_paths_lines_are_the_page_lists_and_the_long_sentence_note_names_step_by_steps_limit():
    """Each entry of the path says what the page list says of that page, and the long-sentence
    note names Step by step's own token limit."""
    from lessons import pages
    from ui.common import MAX_TOKENS

    at = _home()
    lines = [m.value for m in at.markdown if m.value.startswith("**") and m.value[2:3].isdigit()]
    assert lines == [f"**{k}.** {p.blurb}" for k, p in enumerate(pages.LESSONS[1:], start=1)]
    at.text_input(key="home_text").set_value(" ".join(f"w{i}" for i in range(30))).run()
    assert any(c.value.endswith(f"Step by step takes up to {MAX_TOKENS}.") for c in at.caption)


def test_the_live_sentence_is_the_charts():
    """The sentence beside the live chart is the words module's for the weights the chart holds."""
    at = _home()
    at.text_input(key="home_text").set_value("a red fox jumps over a red dog").run()
    weights = z_matrix(_live(at)["data"][0])
    tokens = tuple(ac.tokenize("a red fox jumps over a red dog"))
    assert words.live_text(weights, tokens) in [m.value for m in at.markdown]


def test_home_compares_a_random_and_a_trained_head_on_the_same_phrase():
    """Training is shown like with like: the random head and our decoder's best induction head
    read the same phrase said twice, both causal and of one size, and the stripe's numbers in the
    sentence are read back from the two charts on the screen (tests/unit/test_home_words.py checks
    the sentence over many phrases)."""
    from attn_core import trained_decoder as dc

    at = _home()
    decoder = dc.load_decoder()
    lesson = dc.decoder_lesson(decoder, f"{words.PHRASE} {words.PHRASE}")
    period = lesson.period
    T = 2 * period
    t = np.arange(period, T)  # the repeated words
    scores = lesson.run.attentions[..., t, t - period + 1].mean(
        axis=-1
    )  # (L, H): weight on the earlier copy's next word
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    after = figure_by_title(at, f"After training: layer {layer + 1}, head {head + 1} of our decoder")
    before = figure_by_title(at, words.RANDOM_TITLE)
    trained, random = z_matrix(after["data"][0]), z_matrix(before["data"][0])
    np.testing.assert_allclose(trained, lesson.run.attentions[layer, head], atol=1e-12)
    x = ac.embed(words.PHRASE.split() * 2, decoder.d_model, seed=0)
    w = ac.init_weights(decoder.d_model, decoder.d_k, seed=0)
    np.testing.assert_allclose(random, ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask="causal").weights, atol=1e-12)
    for fig, z in ((after, trained), (before, random)):  # the same words, the same mask
        assert fig["layout"]["yaxis"]["ticktext"] == fig["layout"]["xaxis"]["ticktext"] == words.PHRASE.split() * 2
        assert np.all(np.triu(z, 1) == 0)
    (text,) = [m.value for m in at.markdown if m.value.startswith("**What training changes.**")]
    stated = [float(n) for n in re.findall(r"puts (?:on average \*\*)?([\d.]+)", text)]
    assert stated == pytest.approx([trained[t, t - period + 1].mean(), random[t, t - period + 1].mean()], abs=0.005)
    assert f"layer {layer + 1}, head {head + 1} of our small decoder" in text
    assert trained[t, t - period + 1].mean() > 0.5 > 0.1 > random[t, t - period + 1].mean()


def test_presenter_mode_draws_the_three_charts_on_the_stage():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["present"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert titles[0] == words.LIVE_TITLE and titles[1] == words.RANDOM_TITLE and titles[2].startswith("After training")
