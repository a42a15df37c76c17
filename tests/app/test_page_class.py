"""AppTest of class mode through app.py: a teacher and students are separate AppTest sessions
sharing one real class database (an SQLite file, then a throwaway PostgreSQL), as two
browsers share one server. AppTest does not fire st.fragment's run_every timer, so a student
takes the teacher's view on the student's next run (the browser test covers the timer). The
sentences themselves are checked against their numbers in tests/unit/test_class_room_words.py;
here the pages show them for the numbers of a real class."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sqlalchemy import select
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import walkthrough as wt
from classroom import PollQuestion, UnavailableError, codes, no_room, storage
from classroom.tables import Room
from lessons.class_room import words
from tests.conftest import ROOT
from ui.class_mode import words as class_words
from ui.common import PICK_PLACEHOLDER, md_escape

APP = str(ROOT / "app.py")
STEP = "lessons/step_by_step/page.py"
CLASS = "lessons/class_room/page.py"
DEFAULT_TEXT = "The cat sat on the mat."


@pytest.fixture
def class_db(db_url, monkeypatch) -> str:
    monkeypatch.setenv("CLASS_DB_URL", db_url)
    return db_url


def session(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def texts(at: AppTest) -> list[str]:
    """Every markdown, caption and alert text of the page, markdown escapes undone."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for kind in ("info", "success", "warning", "error"):
        out += [a.value for a in getattr(at, kind)]
    return [unescape(text) for text in out]


def unescape(text: str) -> str:
    """Markdown source as it reads on the page (ui.common.md_escape undone)."""
    return re.sub(r"\\(.)", r"\1", text)


def start_class(at: AppTest) -> tuple[str, str | None]:
    """Open the Class page and start a class; returns (code, the teacher key shown, if it is)."""
    at.switch_page(CLASS).run()
    at.button(key="class_start").click().run()
    assert not at.exception
    code = next(m.value.strip("*") for m in at.markdown if re.fullmatch(r"\*\*[A-Z0-9]{6}\*\*", m.value))
    return code, shown_key(at)


def literals(at: AppTest) -> list[str]:
    """The page's literal text (st.text): the join link, the teacher key, the Secrets line."""
    return [t.value for t in at.text]


def shown_key(at: AppTest) -> str | None:
    return next((t for t in literals(at) if t.count("-") >= 5 and "://" not in t), None)


def answered(at: AppTest) -> list[tuple[int, int]]:
    """Every "N of M answered" the page shows, as (N, M)."""
    found = (re.fullmatch(r"\*\*(?:The class: )?(\d+) of (\d+) answered\*\*", t) for t in texts(at))
    return [(int(m.group(1)), int(m.group(2))) for m in found if m]


def published(at: AppTest) -> tuple[PollQuestion, ...]:
    """The questions the teacher's screen last published to the room."""
    return at.session_state["class_published"].questions


def room_question(at: AppTest, n: int = 0) -> PollQuestion:
    """A student's copy of the room's n-th question."""
    return at.session_state["class_room_state"].view.questions[n]


def answer_lines(at: AppTest) -> list[tuple[str, float | None]]:
    """Each "The answer: …" line as (the option named, the value it states, if any)."""
    out = []
    for text in texts(at):
        if found := re.match(r"The answer: (.+?)(?:, with .+ = (\d+\.\d{3}))?\.(?: |$)", text):
            out.append((found.group(1), None if found.group(2) is None else float(found.group(2))))
    return out


def unavailable_reason(url: str) -> str:
    """What classroom says, in plain words, about a database it cannot open."""
    with pytest.raises(UnavailableError) as err:
        storage.open_engine(url)
    return str(err.value)


def widget(at: AppTest, key: str):
    """The widget with this key, whatever its kind."""
    kinds = ("slider", "number_input", "toggle", "selectbox")
    return next(w for kind in kinds for w in getattr(at, kind) if w.key == key)


def poll_widget(widgets, prefix: str):
    """The class poll's widget whose key starts with ``prefix`` (the rest is the question's signature)."""
    found = [w for w in widgets if w.key and w.key.startswith(prefix)]
    assert len(found) == 1, [w.key for w in widgets]
    return found[0]


def teacher_on_step_by_step(**widgets) -> tuple[AppTest, str]:
    teacher = session()
    code, _ = start_class(teacher)
    teacher.switch_page(STEP).run()
    for key, value in widgets.items():
        widget(teacher, key).set_value(value).run()
    assert not teacher.exception
    return teacher, code


def bars(at: AppTest) -> list[tuple[str, int, int]]:
    """The poll's bars: (option, the picks it states, its length in %)."""
    out = []
    for bar in at.get("progress"):
        label, count = re.fullmatch(r"(.*): (\d+) picks?", unescape(bar.proto.text)).groups()
        out.append((label, int(count), bar.proto.value))
    return out


def banner(at: AppTest) -> str:
    return next((m for m in texts(at) if m.startswith(("**Following class", "**Class "))), "")


# --------------------------------------------------------------------------- the teacher's room


def test_starting_a_class_shows_its_code_join_link_qr_code_and_key_once(class_db):
    teacher = session()
    code, key = start_class(teacher)
    assert codes.is_code(code)
    link = f"http://localhost:8501/?room={code}"  # AppTest has no browser address: the page's fallback
    assert link in literals(teacher) and not teacher.code  # plain text, never st.code (no syntax highlighter)
    assert codes.normalize(key) and len(codes.normalize(key)) * codes.BITS_PER_CHAR >= 128
    assert not any(key in v for v in teacher.query_params.values())  # never in the address bar
    # The key is stored only as its hash.
    engine = storage.make_engine(class_db)
    try:
        with engine.connect() as conn:
            stored = conn.execute(select(Room.key_hash).where(Room.code == code)).scalar()
    finally:
        engine.dispose()
    assert stored == codes.hash_key(key) and codes.normalize(key) not in stored
    # Hidden for good once the teacher says so, and never shown in presenter mode.
    teacher.button(key="class_hide_key").click().run()
    assert shown_key(teacher) is None
    fresh = session(present="1")
    assert start_class(fresh)[1] is None
    assert words.KEY_HIDDEN_PRESENTING in texts(fresh)


def test_the_class_page_says_when_classes_live_in_the_default_file(monkeypatch, tmp_path):
    """No CLASS_DB_URL: the classes live in a file on the server's disk, which Community Cloud
    does not keep. The Class page says so where a teacher starts (and, outside presenter mode,
    teaches) a class, with the Secrets line that points the app at a hosted PostgreSQL."""
    monkeypatch.delenv("CLASS_DB_URL", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))  # the default file, in a folder of this test's
    at = session()
    at.switch_page(CLASS).run()
    assert words.ON_THIS_DISK in [c.value for c in at.caption]
    assert literals(at) == [words.SECRETS_EXAMPLE] and not at.code
    assert (tmp_path / "self-attention-explorer" / "class.sqlite3").exists()
    at.button(key="class_start").click().run()
    assert words.ON_THIS_DISK in [c.value for c in at.caption] and words.SECRETS_EXAMPLE in literals(at)
    presenting = session(present="1")
    start_class(presenting)
    assert words.ON_THIS_DISK not in [c.value for c in presenting.caption]  # not on the class's screen


def test_the_class_page_says_nothing_of_it_with_a_database_of_its_own(class_db):
    at = session()
    at.switch_page(CLASS).run()
    assert words.ON_THIS_DISK not in [c.value for c in at.caption] and not literals(at)
    code, key = start_class(at)
    assert words.ON_THIS_DISK not in [c.value for c in at.caption]
    assert literals(at) == [f"http://localhost:8501/?room={code}", key]


def test_a_teacher_takes_the_class_back_with_the_key(class_db):
    first = session()
    code, key = start_class(first)
    second = session()  # another device
    second.switch_page(CLASS).run()
    second.text_input(key="class_back_code").set_value(code.lower())
    second.text_input(key="class_back_key").set_value("WRONG-KEY")
    second.button(key="FormSubmitter:class_take_back-Take the class back").click().run()
    assert "class_teacher" not in second.session_state and any(code in i.value for i in second.info)
    second.text_input(key="class_back_code").set_value(code)
    second.text_input(key="class_back_key").set_value(key)
    second.button(key="FormSubmitter:class_take_back-Take the class back").click().run()
    assert any(m == f"**{code}**" for m in (x.value for x in second.markdown))
    assert shown_key(second) is None  # the key is not shown again
    first.switch_page(STEP).run()  # the old tab lost control: its next move is refused, said plainly
    first.run()
    assert "class_teacher" not in first.session_state and any(code in i.value for i in first.info)


# --------------------------------------------------------------------------- following


def test_a_student_joins_by_the_link_and_follows_page_and_settings(class_db):
    teacher, code = teacher_on_step_by_step(sbs_d_k=8)
    student = session(room=code)
    assert not student.exception
    assert banner(student) == class_words.following(code)
    assert widget(student, "sbs_d_k").value == 8  # the teacher's d_k, read from the shared URL
    seat = student.session_state["class_session_id"]
    assert dict(student.query_params) == {"d_k": "8", "room": code, "seat": seat}  # the student's own address
    widget(teacher, "sbs_d_k").set_value(5).run()
    student.run()
    assert widget(student, "sbs_d_k").value == 5
    teacher.switch_page("lessons/multi_head/page.py").run()
    student.run()
    assert student.title[0].value == "Multi-head attention" or "Multi-head" in student.title[0].value


def test_a_student_sees_the_presenters_section_at_the_students_own_size(class_db):
    teacher, code = teacher_on_step_by_step(present=True)
    teacher.button(key="sbs_step_next").click().run()
    teacher.button(key="sbs_step_next").click().run()
    student = session(room=code)
    section = teacher.session_state["class_section"]  # the teacher's progress line, as published
    assert re.match(r"Step 3 of \d+", section)  # two Nexts from step 1
    lines = [m.value for m in student.markdown if m.value.startswith("**Step ")]
    assert [line.replace("**", "") for line in lines] == [section]  # the teacher's line, at the student's size
    assert banner(student) == unescape(class_words.following(code, section))
    assert [s.value for s in student.subheader] == [f"Step 3 · {section.split(' · ', 1)[1]}"]
    assert not [b for b in student.button if b.key in ("sbs_step_next", "sbs_step_back")]  # students cannot move it
    assert student.session_state["present"] is False  # presenter mode's sizes stay the teacher's
    assert "present" not in student.query_params


def test_a_student_following_a_presenter_gets_the_teachers_settings_without_their_controls(class_db):
    sentence = "**Bold** <b>tag</b> and the the cat"  # markdown and HTML-looking: shown literally
    teacher, code = teacher_on_step_by_step(sbs_d_k=3)
    teacher.text_input(key="sbs_text").set_value(sentence).run()
    teacher.toggle(key="present").set_value(True).run()
    for _ in range(5):  # step 6: the scaling, whose formula shows d_k
        teacher.button(key="sbs_step_next").click().run()
    student = session(room=code)
    assert not student.exception
    assert [s.key for s in student.sidebar.toggle] == []  # no presenter switch, no settings, no section list
    assert not student.sidebar.radio and not student.sidebar.slider and not student.sidebar.button
    assert not student.text_input and not [s for s in student.selectbox if s.key == "sbs_text_preset"]
    assert f"Sentence: {md_escape(sentence)}" in [c.value for c in student.caption]  # the teacher's, to read
    tex = [x.value for x in student.latex]
    assert tex == [x.value for x in teacher.latex] and any(r"\sqrt{3}" in t for t in tex)  # the teacher's d_k

    student.button(key="class_stop").click().run()  # exploring alone: every control is back, set as the teacher's
    assert widget(student, "sbs_d_k").value == 3 and student.text_input(key="sbs_text").value == sentence
    assert student.sidebar.toggle(key="present").value is False
    assert not [c for c in student.caption if c.value.startswith("Sentence:")]


@pytest.mark.parametrize("presenting", [False, True])
def test_a_teachers_empty_sentence_is_the_followers_too(class_db, presenting):
    """The teacher's address then reads ``text=``; a link with an empty text opens on the example
    sentence, but a follower takes the teacher's address exactly and shows no numbers of another
    sentence."""
    teacher, code = teacher_on_step_by_step()
    teacher.text_input(key="sbs_text").set_value("   ").run()
    if presenting:
        teacher.toggle(key="present").set_value(True).run()
    student = session(room=code)
    assert not student.exception
    assert student.session_state["sbs_text"].strip() == "" and not student.get("plotly_chart")
    empty = [i.value for i in student.info]
    if presenting:  # no box on the follower's page: the message says whose sentence is empty
        assert "Sentence: (empty)" in [c.value for c in student.caption]
        assert any(v.startswith("Your teacher's sentence is empty;") for v in empty), empty
    else:
        assert student.text_input(key="sbs_text").value.strip() == ""
        assert any(v.startswith("Type a sentence above") for v in empty), empty
    teacher.text_input(key="sbs_text").set_value("A dog ran.").run()
    student.run()
    assert student.session_state["sbs_text"] == "A dog ran."
    assert not [i.value for i in student.info if "empty" in i.value]
    assert (not presenting) == bool(student.get("plotly_chart"))  # presenting: step 1, the tokens, no chart


def test_a_students_tab_keeps_its_seat_and_answer_across_a_server_restart(class_db):
    """A new session (a restarted server) opening the student's own address is the same student:
    the answer it sent before is still its own, and the class still counts one student."""
    teacher, code = teacher_on_step_by_step(sbs_predict=True)
    student = session(room=code)
    poll_widget(student.selectbox, "class_pick_").set_value(3)  # one form: the values go with Send
    poll_widget(student.slider, "class_estimate_").set_value(0.7)
    poll_widget(student.button, "class_send_").click().run()
    again = session(**dict(student.query_params))
    assert again.session_state["class_session_id"] == student.session_state["class_session_id"]
    assert unescape(class_words.sent(room_question(again), (3, 0.7))) in texts(again), texts(again)
    teacher.run()
    assert answered(teacher) == [(1, 1)]


def test_a_students_pick_starts_empty_and_send_waits_for_one(class_db):
    """Nothing is picked for the student (option 0 is sometimes the answer, and a student who only
    pressed Send would vote for it): Send without a pick asks for one and sends nothing (a forged
    Send without one is tests/app/test_class_forged.py's empty pick)."""
    teacher, code = teacher_on_step_by_step(sbs_predict=True)
    student = session(room=code)
    pick = poll_widget(student.selectbox, "class_pick_")
    assert pick.value is None and pick.placeholder == PICK_PLACEHOLDER
    assert class_words.PICK_FIRST not in texts(student)
    poll_widget(student.button, "class_send_").click().run()
    assert class_words.PICK_FIRST in texts(student)
    assert "class_sent" not in student.session_state or not any(student.session_state["class_sent"].values())
    teacher.run()
    assert answered(teacher) == [(0, 1)], texts(teacher)
    poll_widget(student.selectbox, "class_pick_").set_value(1)
    poll_widget(student.button, "class_send_").click().run()
    assert class_words.PICK_FIRST not in texts(student)
    teacher.run()
    assert answered(teacher) == [(1, 1)], texts(teacher)


def test_stop_following_and_follow_again(class_db):
    teacher, code = teacher_on_step_by_step(sbs_d_k=8)
    student = session(room=code)
    student.button(key="class_stop").click().run()
    assert banner(student) == unescape(class_words.alone(code))
    assert "room" not in student.query_params and "seat" not in student.query_params
    widget(student, "sbs_d_k").set_value(3).run()
    widget(teacher, "sbs_d_k").set_value(6).run()
    student.run()
    assert widget(student, "sbs_d_k").value == 3  # exploring alone: the teacher's move is not taken
    student.button(key="class_again").click().run()
    assert banner(student) == class_words.following(code)
    assert widget(student, "sbs_d_k").value == 6


@pytest.mark.parametrize("how", ["link", "typed"])
def test_an_unknown_code_says_so_and_the_app_works_as_usual(class_db, how):
    if how == "link":
        at = session(room="ZZZZZZ")
    else:
        at = session()
        at.switch_page(CLASS).run()
        at.text_input(key="class_code").set_value("zz zz zz").run()
    assert not at.exception
    assert no_room("ZZZZZZ") in texts(at)
    assert "room" not in at.query_params
    assert "class_student" not in at.session_state
    at.switch_page(STEP).run()
    assert not at.exception and widget(at, "sbs_d_k").value == 4


# --------------------------------------------------------------------------- the poll


def test_a_poll_goes_to_every_student_and_the_reveal_to_everyone(class_db):
    """Step by step with Predict first in presenter mode on step 8: three students get the
    teacher's question, answer, the teacher sees the count, and the reveal names the key
    attn_core computes."""
    teacher, code = teacher_on_step_by_step(sbs_predict=True, present=True)
    for _ in range(7):
        teacher.button(key="sbs_step_next").click().run()
    students = [session(room=code) for _ in range(3)]
    tokens = ac.tokenize(DEFAULT_TEXT)
    lesson = wt.lesson(wt.seeded_source(tuple(tokens), 16, 4, seed=0, positional=True), scale=True)
    row = lesson.steps.weights[2]  # the question's query: token 2 (the page's default)
    answer = int(np.argmax(row))
    options = None
    for n, student in enumerate(students):
        pick = poll_widget(student.selectbox, "class_pick_")
        options = pick.options
        pick.set_value(n % 2)  # one form: the values go with Send
        poll_widget(student.slider, "class_estimate_").set_value(0.25)
        poll_widget(student.button, "class_send_").click().run()
        assert student.session_state["class_sent"][room_question(student).signature] == (n % 2, 0.25)
        assert not answer_lines(student)
    assert options == [f"{k}: {t}" for k, t in enumerate(tokens)]
    teacher.run()
    assert answered(teacher) == [(3, 3)]
    assert bars(teacher) == [(options[0], 2, 100), (options[1], 1, 50)]  # the answer not marked
    poll_widget(teacher.button, "class_reveal_").click().run()
    assert answer_lines(teacher)[:1] == [(options[answer], round(float(row.max()), 3))], texts(teacher)
    picks = {0: 2, 1: 1}
    shown = []
    for k in sorted({*picks, answer}):
        n = picks.get(k, 0)
        shown.append((f"✓ {options[k]} (the answer)" if k == answer else options[k], n, round(100 * n / 2)))
    assert bars(teacher) == shown
    for student in students:
        student.run()
        assert answer_lines(student)[:1] == answer_lines(teacher)[:1], texts(student)
        assert sorted(bars(student)) == sorted(bars(teacher))
        assert [s for s in student.selectbox if s.key and s.key.startswith("class_pick_")] == []  # closed


# --------------------------------------------------------------------------- without a database


@pytest.fixture
def no_database(postgres, monkeypatch) -> str:
    """CLASS_DB_URL names a PostgreSQL port where nothing listens; returns it."""
    url = f"postgresql://postgres@127.0.0.1:{postgres.port + 1}/gone"
    monkeypatch.setenv("CLASS_DB_URL", url)
    return url


def test_without_its_database_the_class_page_says_so_and_nothing_else_breaks(no_database):
    at = session()
    at.switch_page(CLASS).run()
    assert not at.exception
    assert [e.value for e in at.error] == [words.unavailable(unavailable_reason(no_database))]
    at.switch_page(STEP).run()  # a page in no class never touches the database
    assert not at.exception and not at.warning and widget(at, "sbs_d_k").value == 4


def test_a_join_link_without_its_database_leaves_the_page_working(no_database):
    at = session(room="K7XQ2M")
    assert not at.exception
    assert unavailable_reason(no_database) in texts(at)
    assert at.title[0].value == "Self-Attention Explorer"  # Home, as usual


# --------------------------------------------------------------------------- the other pages' questions


def test_the_softmax_labs_question_goes_to_the_class(class_db):
    """Softmax lab's ×100 question: the student gets the teacher's options; the charts it keeps
    hidden appear on both screens once the teacher reveals, with the outcome attn_core computes."""
    from attn_core import lab_results
    from lessons.softmax_lab import words as lab_words

    teacher = session()
    code, _ = start_class(teacher)
    teacher.switch_page("lessons/softmax_lab/page.py").run()
    widget(teacher, "lab_predict").set_value(True).run()
    student = session(room=code)
    (q,) = published(teacher)
    pick = poll_widget(student.selectbox, "class_pick_")
    assert pick.options == list(q.options) == list(room_question(student).options) == list(lab_words.outcomes(100.0))
    assert lab_words.SATURATION not in texts(student)  # what the question keeps hidden
    assert q.options[q.answer] == lab_words.TAKE_ALL
    pick.set_value(q.options[q.answer])
    poll_widget(student.button, "class_send_").click().run()
    teacher.run()
    assert answered(teacher) == [(1, 1)]
    poll_widget(teacher.button, "class_reveal_").click().run()
    sat = lab_results.softmax_lab(n_scores=8, seed=0, multiplier=100.0, T=8, dk_seed=0, index=0, delta=3.0).saturation
    top = float(sat.scaled_weights.max())
    assert top > 0.9 and answer_lines(teacher) == [(lab_words.TAKE_ALL, round(top, 3))], texts(teacher)
    student.run()
    assert answer_lines(student) == answer_lines(teacher)
    assert any(unescape(class_words.verdict(q, (q.answer, None))) in t for t in texts(student))
    assert lab_words.SATURATION in texts(student)  # drawn now, on the student's screen too


@pytest.mark.model
def test_the_real_models_two_questions_are_polled_and_revealed_one_by_one(class_db):
    """The Real model asks two questions at once (where "it" looks in each sentence): both go to
    the class, and revealing one leaves the other open."""
    from attn_core import models

    teacher = session()
    code, _ = start_class(teacher)
    teacher.switch_page("lessons/real_model/page.py").run()
    widget(teacher, "rm_predict").set_value(True).run()
    assert not teacher.exception
    student = session(room=code)
    assert not student.exception
    picks = [s for s in student.selectbox if s.key.startswith("class_pick_")]
    assert len(picks) == 2 == len(models.IT_SENTENCES)
    for n in range(2):  # each question is its own form: a pick goes with its own Send
        pick = [s for s in student.selectbox if s.key.startswith("class_pick_")][n]
        pick.set_value(pick.options[1])
        [b for b in student.button if b.key.startswith("class_send_")][n].click().run()
    teacher.run()
    assert answered(teacher) == [(1, 1), (1, 1)]
    reveals = [b for b in teacher.button if b.key.startswith("class_reveal_")]
    reveals[0].click().run()
    student.run()
    assert len(answer_lines(student)) == 1
    assert len([s for s in student.selectbox if s.key.startswith("class_pick_")]) == 1  # the other is still open


PREDICT_PAGES = [
    ("lessons/multi_head/page.py", "mh_predict"),
    ("lessons/masks_cost/page.py", "masks_predict"),
    ("lessons/cross_attention/page.py", "cross_predict"),
    ("lessons/decoder/page.py", "dec_predict"),
]


@pytest.mark.parametrize(("script", "toggle"), PREDICT_PAGES, ids=[s.split("/")[1][:-3] for s, _ in PREDICT_PAGES])
def test_every_pages_predict_first_questions_go_to_the_class(script, toggle, monkeypatch, tmp_path):
    """Whatever a page asks through ui.quiz goes to the class: the student's page shows the
    teacher's questions with the same prompts and options, each with Send, none answered yet."""
    monkeypatch.setenv("CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.sqlite3'}")
    teacher = session()
    code, _ = start_class(teacher)
    teacher.switch_page(script).run()
    widget(teacher, toggle).set_value(True).run()
    assert not teacher.exception
    prompts = [unescape(class_words.prompt(q)) for q in published(teacher)]
    assert prompts and all(p in texts(teacher) for p in prompts)
    assert answered(teacher) == [(0, 0)] * len(prompts)
    student = session(room=code)
    assert not student.exception
    assert [t for t in texts(student) if t in prompts] == prompts
    picks = [s for s in student.selectbox if s.key and s.key.startswith("class_pick_")]
    sends = [b for b in student.button if b.key and b.key.startswith("class_send_")]
    assert len(picks) == len(sends) == len(prompts)
    assert [p.options for p in picks] == [list(q.options) for q in published(teacher)]
