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


def test_step_one_points_to_the_examples_in_the_sidebar():
    """Step 1 sends the class to an example sentence: in presenter mode it is in the sidebar, with
    the sentence box, and the step says so."""
    at = _present("step_by_step.py", text="A dog saw a cat.")
    assert "the cat sat on the mat" in at.sidebar.selectbox(key="sbs_text_preset").options
    assert at.sidebar.text_input(key="sbs_text").value == "A dog saw a cat."
    (step,) = [t for t in _texts(at) if "to see an exact repeat" in t]
    assert "Pick the example “the cat sat on the mat” in the sidebar to see an exact repeat." in step
    assert "every matrix in the steps that follow" in " ".join(_texts(at))  # not "below": one step is shown


def test_the_worked_cell_names_its_steps_not_the_matrices_above():
    at = _present("step_by_step.py", step="10")
    text = " ".join(_texts(at))
    assert "with the real numbers of steps 4 to 9" in text and "above" not in text


def test_the_decoders_button_is_said_to_be_in_the_sidebar():
    at = _present("decoder.py", text="the cat sat on the mat")  # no repeat: the page sends the class to the button
    assert "Random sequence, repeated" in [b.label for b in at.sidebar.button]
    assert any("Press “Random sequence, repeated” (in the sidebar) to see one at work." in t for t in _texts(at))


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
    at = _present("real_model.py")
    examples = at.sidebar.selectbox(key="rm_preset").options
    assert any("The animal" in option and "tired" in option for option in examples)
    assert any(t.startswith("Try the animal sentences (the examples in the sidebar) one at a time") for t in _texts(at))
