"""The class's poll as ui.quiz's backend: for a session in a class, ui.class_mode.follow gives
``POLL`` to ui.quiz for the page's run, and a predict-first question the page asks becomes the
class's poll (the teacher's screen asks it, each student answers it).

A page's question (ui.question.Question) becomes the room's (classroom.PollQuestion) in one
place, ``poll_question``, and keeps its signature: the quiz and the class name a question alike.
"""

from __future__ import annotations

import streamlit as st

from classroom import PollQuestion, RoomState, UnavailableError
from ui.class_mode import poll, roles, store
from ui.class_mode.session import ASKED, ROOM, teaching
from ui.question import Question


def poll_question(q: Question) -> PollQuestion | None:
    """``q`` as the class's poll question, or None when it cannot be one (too many options,
    too long a text)."""
    try:
        return PollQuestion(
            key=q.key,
            signature=q.signature,
            prompt=q.prompt,
            options=tuple(q.options),
            answer=int(q.answer),
            value=None if q.value is None else min(max(float(q.value), 0.0), 1.0),
            value_label=q.value_label,
            explain=q.explain,
        )
    except ValueError:
        return None


def _room_question(q: Question) -> tuple[RoomState, PollQuestion] | None:
    """The room's state and its question for ``q``: the teacher's own, or the one with q's key."""
    state: RoomState | None = st.session_state.get(ROOM)
    if state is None:
        return None
    if teaching():
        spec = poll_question(q)
        return None if spec is None else (state, spec)
    spec = state.question(q.key)
    return None if spec is None else (state, spec)


class ClassPoll:
    """ui.quiz's backend for a session in a class (ui.quiz.Backend)."""

    def revealed(self, q: Question) -> bool | None:
        """Whether the class has seen the answer to ``q``; None when the class does not poll it."""
        found = _room_question(q)
        return None if found is None else found[0].is_revealed(found[1])

    def ask(self, q: Question) -> bool | None:
        """Draw ``q`` as the class's poll; returns whether its answer is revealed, or None when
        the class does not poll it (the page then asks it as usual)."""
        found = _room_question(q)
        if found is None:
            return None
        state, spec = found
        shown = state.is_revealed(spec)
        try:
            rooms = store.rooms()
        except UnavailableError:
            return None
        held = roles.teacher()
        if held is not None:
            st.session_state.setdefault(ASKED, []).append(spec)
            poll.teacher_question(rooms, held, spec, shown)
        else:
            st.session_state.setdefault(ASKED, []).append(spec.key)
            poll.student_question(rooms, state.code, roles.session_id(), spec, shown)
        return shown


POLL = ClassPoll()
