"""The class's poll, drawn where a page asks a predict-first question (ui.quiz.ask, through
ui.class_mode.backend).

The teacher sees the question, "N of M answered" and the picks so far (the right one not
marked), updated every TEACHER_POLL_S seconds, and a "Reveal answers" button. A student
sees the same question with its options and a Send button (an answer can change until the
reveal). Once revealed, both see the picks with the right option marked and "The answer: …".
The picks are drawn as one labelled bar per option: readable on a projector and on a
phone, with the numbers in the text (no colour or chart needed to read them).
"""

from __future__ import annotations

import contextlib

import streamlit as st

from classroom import Classroom, PollQuestion, RefusedError, Tally, Teacher, UnavailableError
from ui.class_mode import ticker, words
from ui.common import PICK_PLACEHOLDER
from ui.markup import md_escape

TEACHER_POLL_S = 1.0
SENT = "class_sent"  # {signature: (option, estimate) or None}: this student's answers, as sent


def histogram(q: PollQuestion, tally: Tally, revealed: bool) -> None:
    """One bar per option that was picked (and, once revealed, the right one), in option order."""
    shown = words.bars(q, tally, revealed)
    if not shown:
        st.caption(words.NO_ANSWERS)
        return
    for text, share in shown:
        st.progress(share, text=text)
    if mean := words.mean_estimate(q, tally):
        st.caption(mean)


def revealed_view(rooms: Classroom, code: str, q: PollQuestion, mine: tuple[int, float | None] | None = None) -> None:
    """After the reveal: the answer, this student's own pick (when ``mine`` is given), the class's picks."""
    line = words.answer_line(q) + (f" {words.verdict(q, mine)}" if mine is not None else "")
    (st.success if mine is not None and mine[0] == q.answer else st.info)(line)
    try:
        tally = rooms.tally(code, q)
    except (RefusedError, UnavailableError) as err:
        st.caption(md_escape(str(err)))
        return
    st.markdown(words.answered(tally, revealed=True))
    histogram(q, tally, revealed=True)


# --------------------------------------------------------------------------- the teacher


def teacher_question(rooms: Classroom, teacher: Teacher, q: PollQuestion, revealed: bool) -> None:
    st.markdown(words.prompt(q))
    if revealed:
        revealed_view(rooms, teacher.code, q)
    else:
        ticker.every(TEACHER_POLL_S, f"live_poll_{q.key}", _live, rooms, teacher, q)


def _live(rooms: Classroom, teacher: Teacher, q: PollQuestion) -> None:
    """The picks so far, without the answer, and the Reveal button: redrawn every second."""
    try:
        tally = rooms.tally(teacher.code, q, teacher)
    except (RefusedError, UnavailableError) as err:
        st.warning(md_escape(str(err)))
        return
    count, button = st.columns([3, 1], vertical_alignment="center")
    count.markdown(words.answered(tally))
    if button.button("Reveal answers", key=f"class_reveal_{q.signature}", type="primary", width="stretch"):
        try:
            rooms.reveal(teacher, q)
        except (RefusedError, UnavailableError) as err:
            st.warning(md_escape(str(err)))
            return
        st.rerun(scope="app")  # the page shows what the question kept hidden
    histogram(q, tally, revealed=False)


# --------------------------------------------------------------------------- a student


def student_question(rooms: Classroom, code: str, student: str, q: PollQuestion, revealed: bool) -> None:
    st.markdown(words.prompt(q))
    sent = st.session_state.setdefault(SENT, {})
    if q.signature not in sent:  # after a server restart this tab is a new session with its old seat
        with contextlib.suppress(UnavailableError):
            sent[q.signature] = rooms.my_answer(code, student, q.signature)
    mine = sent.get(q.signature)
    if revealed:
        revealed_view(rooms, code, q, mine)
    else:
        _answer_form(rooms, code, student, q)


@st.fragment
def _answer_form(rooms: Classroom, code: str, student: str, q: PollQuestion) -> None:
    """The options, the estimate and Send, as one form: the pick travels with the Send, so no
    rerun between picking and sending can leave the two apart. An answer can be sent again
    until the reveal."""
    sent = st.session_state.setdefault(SENT, {})
    mine = sent.get(q.signature)
    with st.form(f"class_answer_{q.signature}", border=False):
        cols = st.columns([3, 2, 1], vertical_alignment="bottom")
        pick = cols[0].selectbox(
            "Your pick",
            range(len(q.options)),
            index=mine[0] if mine else None,  # no pick made for the student: option 0 is sometimes the answer
            placeholder=PICK_PLACEHOLDER,
            format_func=lambda n: q.options[n],
            key=f"class_pick_{q.signature}",
        )
        estimate = None
        if q.value is not None:
            estimate = cols[1].slider(
                f"Your estimate of {q.value_label}",
                0.0,
                1.0,
                value=mine[1] if mine and mine[1] is not None else 0.5,
                step=0.05,
                key=f"class_estimate_{q.signature}",
            )
        send = cols[2].form_submit_button("Send", key=f"class_send_{q.signature}", type="primary", width="stretch")
    if send and pick is None:
        st.warning(words.PICK_FIRST)
    elif send:
        try:  # the values go as they came: the room checks them (a forged message can send anything)
            rooms.answer(code, student, q.signature, pick, estimate)
        except (RefusedError, UnavailableError) as err:
            st.warning(md_escape(str(err)))
            return
        sent[q.signature] = mine = (int(pick), None if estimate is None else float(estimate))
    if mine is not None:
        st.caption(words.sent(q, mine))
