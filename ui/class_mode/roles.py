"""This session's part in a class: a teacher holding a room, a student in one (following or
exploring alone), or neither; and the moves between them (the Class page's buttons, a join
link, a room that closed)."""

from __future__ import annotations

import streamlit as st

from classroom import RefusedError, Teacher, UnavailableError, codes
from ui import present
from ui.class_mode import store
from ui.class_mode.session import (
    NOTICE,
    PUBLISHED,
    ROOM,
    ROOM_PARAM,
    SEAT_PARAM,
    SESSION_ID,
    STUDENT,
    TEACHER,
    notice,
    student,
)


def session_id() -> str:
    """This browser session's random id (kept in a student's own address: see SEAT_PARAM)."""
    return st.session_state.setdefault(SESSION_ID, codes.new_id())


def teacher() -> Teacher | None:
    held = st.session_state.get(TEACHER)
    return None if held is None else Teacher(code=held["code"], key=held["key"], holder=held["holder"])


def become_teacher(held: Teacher, show_key: bool) -> None:
    leave()
    st.session_state[TEACHER] = {"code": held.code, "key": held.key, "holder": held.holder, "show_key": show_key}
    st.session_state.pop(PUBLISHED, None)


def stop_teaching(why: str | None = None) -> None:
    for key in (TEACHER, PUBLISHED, ROOM):
        st.session_state.pop(key, None)
    if why:
        notice(why)


def join(code: str) -> bool:
    """Join room ``code`` (as typed) and follow it; False, with a notice, when refused."""
    try:
        state = store.rooms().join(code, session_id())
    except (RefusedError, UnavailableError) as err:
        notice(str(err))
        return False
    stop_teaching()
    st.session_state[STUDENT] = {"code": state.code, "following": True, "applied": None}
    return True


def stop_following() -> None:
    seat = student()
    if seat:
        seat["following"] = False
    st.session_state.pop(present.FOLLOW_KEY, None)
    forget_address()


def follow_again() -> None:
    seat = student()
    if seat:
        seat["following"], seat["applied"] = True, None


def leave() -> None:
    stop_following()
    for key in (STUDENT, ROOM):
        st.session_state.pop(key, None)


def forget_address() -> None:
    """Take the room and the seat out of this session's address."""
    for name in (ROOM_PARAM, SEAT_PARAM):
        if name in st.query_params:
            del st.query_params[name]


def take_notice() -> str | None:
    """The notice left for this run, once."""
    return st.session_state.pop(NOTICE, None)
