"""One sentence for the app (ui/sentence.py): a sentence typed on one page is where every
other page that takes a sentence starts, and in its address bar; a link's own sentence wins
and becomes the app's; pages that need something else say what they did with it.

Driven through app.py in one AppTest session, as a student moves between pages. AppTest
keeps the address bar's parameters across switch_page, while the browser starts each page
with an empty one: _go clears them, as the browser does (tests/browser/test_pages.py checks
the browser itself)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attn_core import trained_decoder as dc
from lessons.cross_attention import words as cross_words
from lessons.decoder import words as decoder_words
from lessons.in_a_transformer import words as transformer_words
from tests.conftest import ROOT
from ui.common import PRESETS

SENTENCE = "My dog chased the ball into the garden"
TIMEOUT = 120


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _go(at: AppTest, script: str, **query: str) -> AppTest:
    """Open another page as the sidebar does: the address bar starts empty (or with ``query``,
    a link's parameters)."""
    at.switch_page(script)
    at.query_params.clear()
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def _typed_on_home(text: str = SENTENCE) -> AppTest:
    at = _app()
    at.text_input(key="home_text").set_value(text).run()
    return at


# The pages that take one sentence: (script, the widget's key, its URL parameter).
ONE_SENTENCE = [
    ("lessons/step_by_step/page.py", "sbs_text", "text"),
    ("lessons/softmax_lab/page.py", "lab_text", "text"),
    ("lessons/multi_head/page.py", "mh_text", "text"),
    ("lessons/masks_cost/page.py", "masks_text", "text"),
]


@pytest.mark.parametrize(("script", "key", "param"), ONE_SENTENCE, ids=[s.split("/")[1] for s, _, _ in ONE_SENTENCE])
def test_a_sentence_typed_on_home_is_where_the_next_page_starts(script, key, param):
    at = _go(_typed_on_home(), script)
    assert at.text_input(key=key).value == SENTENCE
    assert at.query_params[param] == SENTENCE  # the address bar is a link to what is shown


def test_the_sentence_carries_on_from_page_to_page_and_back_home():
    at = _go(_typed_on_home(), "lessons/step_by_step/page.py")
    at.text_input(key="sbs_text").set_value("the bear ate honey").run()
    at = _go(at, "lessons/articles/page.py")  # a page without a sentence keeps it too
    at = _go(at, "lessons/multi_head/page.py")
    assert at.text_input(key="mh_text").value == "the bear ate honey"
    at = _go(at, "lessons/home/page.py")
    assert at.text_input(key="home_text").value == "the bear ate honey"


def test_a_picked_example_is_carried_like_a_typed_sentence():
    at = _go(_app(), "lessons/step_by_step/page.py")
    at.selectbox(key="sbs_text_preset").set_value(PRESETS[3]).run()
    at = _go(at, "lessons/masks_cost/page.py")
    assert at.text_input(key="masks_text").value == PRESETS[3]


def test_a_links_own_sentence_wins_and_becomes_the_apps_sentence():
    at = _go(_typed_on_home(), "lessons/step_by_step/page.py", text="a link's own sentence")
    assert at.text_input(key="sbs_text").value == "a link's own sentence"
    at = _go(at, "lessons/multi_head/page.py")
    assert at.text_input(key="mh_text").value == "a link's own sentence"


def test_a_blank_box_is_not_carried():
    at = _typed_on_home()
    at.text_input(key="home_text").set_value("   ").run()
    at = _go(at, "lessons/step_by_step/page.py")
    assert at.text_input(key="sbs_text").value == SENTENCE


def test_without_a_typed_sentence_every_page_keeps_its_own_example():
    at = _go(_app(), "lessons/step_by_step/page.py")
    assert at.text_input(key="sbs_text").value == PRESETS[0]
    assert dict(at.query_params) == {}
    at = _go(at, "lessons/cross_attention/page.py")
    assert cross_words.SOURCE_NOTE not in _captions(at)


def test_cross_attention_takes_it_as_the_source_and_says_so():
    at = _go(_typed_on_home(), "lessons/cross_attention/page.py")
    assert at.text_input(key="cross_source").value == SENTENCE
    assert at.text_input(key="cross_target").value == "Le chat s'est assis sur le tapis."
    assert cross_words.SOURCE_NOTE in _captions(at)
    assert at.query_params["source"] == SENTENCE and "target" not in at.query_params
    at.text_input(key="cross_source").set_value("I like green tea.").run()
    assert cross_words.SOURCE_NOTE not in _captions(at)


@pytest.mark.model  # the page's last section reads the real model
def test_the_transformer_page_takes_it_as_sentence_a_and_says_so():
    at = _go(_typed_on_home(), "lessons/in_a_transformer/page.py")
    assert at.text_input(key="tf_a").value == SENTENCE
    assert at.text_input(key="tf_b").value == "Le chat était assis sur le tapis."
    assert transformer_words.CARRIED_NOTE in _captions(at)


def test_the_decoder_names_the_words_it_does_not_know():
    """The decoder reads only its own vocabulary: the page says the sentence came from another
    page, and its note lists exactly the words the model reads as <unk>."""
    at = _go(_typed_on_home(), "lessons/decoder/page.py")
    assert at.text_input(key="dec_text").value == SENTENCE
    decoder = dc.load_decoder()
    assert decoder_words.carried_note(decoder) in _captions(at)
    lesson = dc.decoder_lesson(decoder, SENTENCE)
    assert lesson.unknown, "the test sentence should hold a word outside the vocabulary"
    note = decoder_words.unknown_words(lesson)
    assert note in [w.value for w in at.warning]
    for word in lesson.unknown:
        assert f"“{word}”" in note


def test_the_decoders_random_sequence_stays_on_the_decoder_page():
    at = _go(_typed_on_home(), "lessons/decoder/page.py")
    next(b for b in at.button if b.label == "Random sequence, repeated").click().run()
    assert at.text_input(key="dec_text").value != SENTENCE
    assert decoder_words.carried_note(dc.load_decoder()) not in _captions(at)
    at = _go(at, "lessons/step_by_step/page.py")
    assert at.text_input(key="sbs_text").value == SENTENCE
