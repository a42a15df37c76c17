"""A way forward (ui/footer.py): every lesson page ends with two or three lines on what it
showed, their numbers checked here against the engine, and a link to the next lesson in the
teaching order, which is the page list's (lessons/pages.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import article_checks as ar
from attn_core import trained_decoder as dc
from lessons import pages
from tests.conftest import ROOT
from tests.support.lab_checks import app as page_alone
from ui.common import PRESETS


def test_the_path_is_the_page_lists_lessons_in_order():
    """The footer's next lesson walks the page list's lessons; the Class page (a tool) is off the path."""
    lessons = [p.script for p in pages.LESSONS]
    assert lessons[0] == pages.HOME.script and "lessons/class_room/page.py" not in lessons
    for before, after in itertools.pairwise(lessons):
        assert pages.next_lesson(before).script == after
        assert pages.next_lesson(str(ROOT / before)).script == after  # a page's __file__
    assert pages.next_lesson(lessons[-1]) is None
    assert pages.next_lesson("lessons/class_room/page.py") is None
    with pytest.raises(KeyError):
        pages.find("articles.py")


def _at(script: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(script).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _footer_lines(at: AppTest) -> str:
    (lines,) = [m.value for m in at.main.markdown if m.value.startswith("- ") and "](#" not in m.value]
    return lines


MODEL_PAGES = {"lessons/in_a_transformer/page.py", "lessons/real_model/page.py"}  # they load the real model
LESSONS = [
    pytest.param(
        p.script,
        pages.next_lesson(p.script).url_path,
        id=p.lesson,
        marks=[pytest.mark.model] if p.script in MODEL_PAGES else [],
    )
    for p in pages.LESSONS[1:-1]
]


@pytest.mark.parametrize(("script", "next_path"), LESSONS)
def test_every_lesson_ends_with_what_it_showed_and_the_next_lesson(script, next_path):
    if script == "lessons/real_model/page.py":
        pytest.importorskip("torch")
    at = _at(script)
    assert [h.value for h in at.main.subheader][-1] == "What this page showed"
    assert 2 <= _footer_lines(at).count("\n- ") + 1 <= 3
    links = [(el.proto.label, el.proto.page) for el in at.main.get("page_link")]
    assert links[-1][1] == next_path and at.main.markdown[-1].value == "**Next lesson**"


def test_the_last_lesson_leads_back_home_and_home_leads_on():
    at = _at("lessons/articles/page.py")
    assert [el.proto.page for el in at.main.get("page_link")][-1] == ""  # Home's path
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert next(el.proto.page for el in home.main.get("page_link")) == "step-by-step"


def test_a_page_run_on_its_own_names_the_next_lesson_without_failing():
    at = page_alone("multi_head.py").run()
    assert not at.exception and at.main.markdown[-1].value == "Next: Masks and cost"


# --------------------------------------------------------------------------- the numbers


def test_step_by_step_states_its_own_run():
    """One seeded head on the first example, computed here from the engine's parts."""
    at = _at("lessons/step_by_step/page.py")
    tokens = ac.tokenize(PRESETS[0])
    w = ac.init_weights(16, 4, seed=0)
    steps = ac.attention_steps(ac.embed(tokens, 16, seed=0), w.w_q, w.w_k, w.w_v)
    T, i = len(tokens), 2
    top = int(np.argmax(steps.weights[i]))
    lines = _footer_lines(at)
    assert f"One head turned your {T} tokens into Z ({T}×4)" in lines
    assert f"a {T}×{T} score matrix, multiplied by 0.5, and the softmax" in lines
    assert f"Token {i} (“{tokens[i]}”) gives its largest weight, {steps.weights[i, top]:.2f}, to token {top}" in lines
    at.toggle(key="sbs_causal").set_value(True).run()
    assert f"multiplied by 0.5, {T * (T - 1) // 2} of {T * T} cells masked" in _footer_lines(at)
    at.toggle(key="sbs_predict").set_value(True).run()
    assert "largest weight" not in _footer_lines(at)  # not before the prediction is revealed


def test_multi_head_states_its_shapes():
    at = _at("lessons/multi_head/page.py")
    T = len(ac.tokenize(PRESETS[0]))
    lines = _footer_lines(at)
    assert f"4 heads turned the same {T} tokens into 4 matrices of {T}×{T} weights" in lines
    assert f"make a {T}×16 matrix, and W_O (16×16) maps it back to {T}×16" in lines


def test_masks_and_cost_count_the_kept_scores():
    at = _at("lessons/masks_cost/page.py")
    T, r, dil = len(ac.tokenize(PRESETS[0])), 2, 2
    offset = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    window, dilated = int((offset <= r).sum()), int(((offset % dil == 0) & (offset <= r * dil)).sum())
    lines = _footer_lines(at)
    assert f"the causal mask keeps {T * (T + 1) // 2} of {T * T} scores" in lines
    assert f"the window (r = {r}) {window} and the dilated mask {dilated}" in lines
    big = 512
    assert f"{big * big:,} at T = {big}, against {big * (2 * r + 1) - r * (r + 1):,} for the window" in lines


def test_cross_attention_states_its_rectangle():
    at = _at("lessons/cross_attention/page.py")
    T_q, T_k = len(ac.tokenize("Le chat s'est assis sur le tapis.")), len(ac.tokenize("The cat sat on the mat."))
    lines = _footer_lines(at)
    assert f"{T_q} queries from the target sentence met {T_k} keys from the source sentence" in lines
    assert f"the scores form a {T_q}×{T_k} rectangle" in lines and f"({T_q}×4)" in lines


@pytest.mark.model
def test_the_transformer_page_states_its_sizes():
    at = _at("lessons/in_a_transformer/page.py")
    T = len(ac.tokenize("The cat sat on the mat."))
    lines = _footer_lines(at)
    assert f"each head works in d_k = {64 // 4} dimensions, so the 4 heads together have {3 * 64 * 64:,}" in lines
    assert f"goes in as {T}×64 and comes out as {T}×64" in lines


def test_the_decoder_states_its_losses():
    at = _at("lessons/decoder/page.py")
    text = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
    lesson = dc.decoder_lesson(dc.load_decoder(), text)
    lines = _footer_lines(at)
    assert f"the largest weight any of them gives a later word is {lesson.max_above_diagonal:g}." in lines
    assert lesson.max_above_diagonal == 0
    loss = np.array(lesson.loss)
    first, repeat = loss[: lesson.period].mean(), loss[lesson.period :].mean()  # loss[t]: guessing word t + 1
    assert f"Before the repeat the mean loss was {first:.2f}; in the repeated part it was {repeat:.2f}" in lines


def test_the_articles_page_states_the_slips():
    at = _at("lessons/articles/page.py")
    d = ar.articles_lesson().dot
    q, k = ar.DEFAULT_VECTORS["q_cat"], ar.DEFAULT_VECTORS["k_mat"]
    score = float(np.dot(q, k))
    assert d.score_mat == pytest.approx(score)
    lines = _footer_lines(at)
    assert f"q_cat · k_mat is {score:.4g}".replace("-", "−") in lines and "not the article's 0.24" in lines


@pytest.mark.parametrize(
    ("script", "prefix", "quiz_key", "answer"),
    [
        ("lessons/multi_head/page.py", "mh", "mh_quiz_concat", "make a 7×16 matrix"),
        ("lessons/masks_cost/page.py", "masks", "masks_quiz_window", "the window (r = 2) 29"),
        ("lessons/cross_attention/page.py", "cross", "cross_quiz_shape", "8×7 rectangle"),
    ],
    ids=["multi-head", "masks", "cross"],
)
def test_a_footer_keeps_a_questions_answer_until_it_is_revealed(script, prefix, quiz_key, answer):
    """With Predict first on, the footer leaves out the shape or count the page asks about;
    once the answer is revealed, it says it (the numbers are the defaults' own, checked above)."""
    at = _at(script)
    assert answer in _footer_lines(at)
    at.toggle(key=f"{prefix}_predict").set_value(True).run()
    assert answer not in _footer_lines(at)
    at.selectbox(key=f"{quiz_key}_pick").select_index(0).run()  # any pick: Reveal waits for one
    at.button(key=f"{quiz_key}_reveal").click().run()
    assert answer in _footer_lines(at)
