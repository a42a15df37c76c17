"""What class mode keeps in a browser session's state, and whether this session is in a class.

Light enough for every run of every session: Streamlit only, no database, no SQLAlchemy.
"""

from __future__ import annotations

import streamlit as st

ROOM_PARAM = "room"  # the join link: <app url>/?room=CODE
# A following student's own address also holds their random id (never the teacher's, never in the
# join link): when the app server restarts, the tab reconnects as a new session and keeps its seat,
# its answers included, instead of joining again as somebody else.
SEAT_PARAM = "seat"
TEACHER = "class_teacher"  # {"code", "key", "holder", "show_key"}
STUDENT = "class_student"  # {"code", "following", "applied": the room version last taken}
NOTICE = "class_notice"  # a message for the next run ("No open class with code …")
SESSION_ID = "class_session_id"  # this browser session's random id (a student, and the rate limits' key)
PUBLISHED = "class_published"  # the View this teacher's tab last published
ROOM = "class_room_state"  # the RoomState this run uses
ASKED = "class_asked"  # this run's questions: the teacher's PollQuestions, a student's question keys


def active() -> bool:
    """Whether this run has anything to do with a class: a teacher, a student (following or
    not), a notice to show, or a join link in the address."""
    state = st.session_state
    return TEACHER in state or STUDENT in state or NOTICE in state or ROOM_PARAM in st.query_params


def teaching() -> bool:
    return TEACHER in st.session_state


def student() -> dict | None:
    return st.session_state.get(STUDENT)


def following() -> bool:
    seat = student()
    return bool(seat and seat["following"])


def notice(text: str) -> None:
    """Show ``text`` (plain, escaped when shown) at the top of the next run."""
    st.session_state[NOTICE] = text
