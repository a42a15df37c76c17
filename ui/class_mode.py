"""Class mode on every page: a teacher's screen goes to the room, students follow it.

app.py runs each page through ``run_page``. For a session in no class (and no ``?room=`` in
its address) that is just ``page.run()``: no database is touched and SQLAlchemy is not even
imported. Otherwise ui.class_follow does the work:

- A teacher's run ends by publishing what the screen shows (the page, its URL settings,
  the presenter step's progress line, presenter mode on or off, and the predict-first
  questions asked), only when that changed since the last run.
- A student's run starts with the banner "Following class CODE" and, when the room's
  version moved, takes the teacher's view: the same page (``st.switch_page``) with the
  same URL settings, which the page's widgets then read again (ui.state's OUTSIDE_KEY).
  A small fragment asks the room's version every second (one primary-key read) and reruns
  the app when it moved. While the teacher presents, the student sees one section at a time
  at the student's own screen size (ui.present.FOLLOW_KEY).
- ``ask`` and ``revealed`` stand in for ui.quiz's in a class: the question becomes the
  class's poll (ui.class_poll).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

    from ui.quiz import Question

ROOM_PARAM = "room"  # the join link: <app url>/?room=CODE
TEACHER = "class_teacher"  # {"code", "key", "holder", "show_key"}
STUDENT = "class_student"  # {"code", "following", "applied": the version last taken}
NOTICE = "class_notice"  # a message for the next run ("No open class with code …")
FULL_RUNS = "class_full_runs"  # how many full runs this session has had in a class (ui.class_follow counts)


def student() -> dict | None:
    return st.session_state.get(STUDENT)


def following() -> bool:
    seat = student()
    return bool(seat and seat["following"])


def in_class() -> bool:
    """Whether predict-first questions go to a class's poll: a teacher, or a student following."""
    return TEACHER in st.session_state or following()


def ticking(func: Callable[..., None], every: float, name: str) -> Callable[..., None]:
    """``func`` as a fragment that reruns every ``every`` seconds, with a fragment id that is new
    on each full run of the session.

    Streamlit starts a new script runner for a fragment's timed rerun that arrives just after a
    full run ended, and that runner's start drops whatever of the full run the server had not sent
    yet (its last elements, its "finished"): on a busy server a student's page could stay empty
    below the banner. A tick sent for the id of an earlier run is dropped instead (Streamlit
    checks that the fragment still exists), and the browser starts the new id's timer only after
    it has the full run's messages."""

    def tick(*args, **kwargs) -> None:
        func(*args, **kwargs)

    tick.__qualname__ = f"{name}[{st.session_state.get(FULL_RUNS, 0)}]"
    return st.fragment(run_every=every)(tick)


def run_page(page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    """``page.run()``, with the class around it for a session in one."""
    state = st.session_state
    if not (TEACHER in state or STUDENT in state or NOTICE in state or ROOM_PARAM in st.query_params):
        page.run()
        return
    from ui import class_follow  # SQLAlchemy, once per server, only when someone uses a class

    class_follow.run_page(page, pages)


def revealed(q: Question) -> bool | None:
    """Whether the class has seen the answer to ``q``; None when no class polls it."""
    if not in_class():
        return None
    from ui import class_follow

    return class_follow.revealed(q)


def ask(q: Question) -> bool | None:
    """Ask ``q`` as the class's poll; whether its answer is revealed, or None when no class polls it."""
    if not in_class():
        return None
    from ui import class_follow

    return class_follow.ask(q)
