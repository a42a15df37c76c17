"""Presenter text that matches the screen (issue #23): presenter mode keeps the sentence boxes,
the examples and the settings in the sidebar and shows one section at a time, so a sentence shown
there that sends the class to a control says where it is, and it never points to a chart that is
not shown. AppTest, page by page, checked against the widgets the page really draws."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from tests.conftest import ROOT

PAGES = ROOT / "lessons"


def _present(page: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / page.removesuffix(".py") / "page.py"), default_timeout=90)
    at.session_state["present"] = True
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in (*at.markdown, *at.caption, *at.info, *at.success)]


def _seeded(text: str):
    """Step by step's run of ``text`` with the page's defaults (d_model 16, d_k 4, seed 0, positions on)."""
    from attn_core import walkthrough as wt

    return wt.lesson(wt.seeded_source(tuple(ac.tokenize(text)), 16, 4, seed=0, positional=True))


def test_step_one_points_to_the_examples_in_the_sidebar():
    """Step 1 sends the class to an example sentence: in presenter mode it is in the sidebar, with
    the sentence box, and the step says so (the words module's text for a projector, not a screen)."""
    from lessons.step_by_step import words
    from ui.reader import PROJECTOR, SCREEN

    at = _present("step_by_step.py", text="A dog saw a cat.")
    assert "the cat sat on the mat" in at.sidebar.selectbox(key="sbs_text_preset").options
    assert at.sidebar.text_input(key="sbs_text").value == "A dog saw a cat."
    stats = _seeded("A dog saw a cat.").stats
    said = words.tokens_text(
        words.Head(), stats, True, PROJECTOR
    )  # the examples "in the sidebar", "in the steps that follow"
    assert said != words.tokens_text(words.Head(), stats, True, SCREEN)  # the two readers are told apart
    assert said in _texts(at)


def test_the_worked_cell_names_its_steps_not_the_matrices_above():
    from lessons.step_by_step import words
    from tests.support.decks import deck

    steps = deck("step-by-step")
    at = _present("step_by_step.py", step="10")
    text = " ".join(_texts(at))
    assert words.cell_intro({name: steps.index(name) + 1 for name in steps.names}) in text
    assert "above" not in text


def test_the_decoders_button_is_said_to_be_in_the_sidebar():
    from attn_core import trained_decoder as dc
    from lessons.decoder import words
    from ui.reader import PROJECTOR, SCREEN

    text = "the cat sat on the mat"  # no repeat: the page sends the class to the button
    at = _present("decoder.py", text=text)
    assert "Random sequence, repeated" in [b.label for b in at.sidebar.button]
    lesson = dc.decoder_lesson(dc.load_decoder(), text)
    said = words.repeat_text(lesson, PROJECTOR)
    assert said != words.repeat_text(lesson, SCREEN)
    assert said in _texts(at)


def test_the_charts_are_said_to_be_where_presenter_mode_draws_them():
    """On a projector the charts of Attention in a transformer's first section stand above its
    text, and the encoder block's diagram beside it: the page hands the words module its reader."""
    from attn_core import transformer as tr
    from lessons.in_a_transformer import words
    from ui.reader import PROJECTOR

    a, b = (tuple(ac.tokenize(s)) for s in ("The cat sat on the mat.", "Le chat était assis sur le tapis."))
    lesson = tr.transformer_lesson(a, b)
    text = " ".join(_texts(_present("in_a_transformer.py", step="1")))
    assert words.dense_text(lesson.dense, PROJECTOR) in text and text.count("Below,") == 0
    text = " ".join(_texts(_present("in_a_transformer.py", step="4")))
    assert words.block_text(lesson.block, lesson.split, PROJECTOR) in text and "Below," not in text


@pytest.mark.model
def test_real_model_sends_the_class_to_the_examples_in_the_sidebar():
    from lessons.real_model import words
    from ui.reader import PROJECTOR, SCREEN

    at = _present("real_model.py")
    examples = at.sidebar.selectbox(key="rm_preset").options
    assert any("The animal" in option and "tired" in option for option in examples)
    # The suggestion's opening, up to the word it names, as the words module says it on a projector
    # and on a screen (the numbers after it are the model's, checked in tests/unit/test_real_model_words.py).
    row = {"animal": 0.5, "street": 0.25, "top": "animal"}
    projector, screen = (
        words.it_caption({"tired": row, "congested": row}, 0, 0, reader).split("“it”")[0]
        for reader in (PROJECTOR, SCREEN)
    )
    assert projector != screen
    assert any(t.startswith(projector) for t in _texts(at))
