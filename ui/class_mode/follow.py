"""Every page's run for a session in a class (ui.class_mode.run_page): the teacher's run
publishes the screen, a student's run takes it, and the follower's loop watches the room.

ui.class_mode imports this module only for a session in a class, so the app's other sessions
never import SQLAlchemy.

- A teacher's run ends by publishing what the screen shows (the page, its URL settings, the
  presenter step's progress line, presenter mode on or off, and the predict-first questions
  asked), only when that changed since the last run.
- A student's run starts with the banner "Following class CODE" and, when the room's version
  moved, takes the teacher's view: the same page (``st.switch_page``) with the same URL
  settings, which the page's widgets then read again (ui.state's OUTSIDE_KEY). While the
  teacher presents, the student sees one section at a time at the student's own screen size
  (ui.present.FOLLOW_KEY).
- The follower's loop, drawn last in a student's run, asks the room's version every POLL_S
  seconds (one primary-key read) and takes the teacher's new view from the tick itself; ui.class_mode.ticker
  says why it is drawn last and how its ticks stay out of the full runs' way. A tick that finds
  no move waits on the server a little (HOLD_S), reading the version again, so that a move made
  just after a tick reaches the student at once rather than at the next tick (``held``).
- For the page's run, ui.quiz asks its questions through the class's poll (ui.class_mode.backend).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

from classroom import RefusedError, RoomState, UnavailableError, View, codes
from ui import present, quiz
from ui.class_mode import backend, poll, roles, store, ticker, words
from ui.class_mode.session import (
    ASKED,
    PUBLISHED,
    ROOM,
    ROOM_PARAM,
    SEAT_PARAM,
    SESSION_ID,
    following,
    student,
    teaching,
)
from ui.markup import md_escape
from ui.state import OUTSIDE_KEY

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.navigation.page import StreamlitPage

NOT_SHARED = {"present", ROOM_PARAM, SEAT_PARAM, "embed", "embed_options"}  # URL parameters followers do not take
BEAT = "class_beat_at"
PAGES = "class_pages"  # url path -> the app's page, from the last full run
ON_PAGE = "class_on_page"  # the url path of this student's last full run
REPAINT = "class_repaint"  # after a switch of page: the follower's next tick opens the page once more
# Followers ask the room's version this often. 0.8 s rather than 1 s: the follow is about 0.2 s
# quicker (bench: class and phone sections) for about one point more of the server's idle CPU
# with 30 followers; each tick is also a frame for a slow phone.
POLL_S = 0.8
# A tick that finds no move asks again every HOLD_STEP_S for HOLD_S more. The browser shows its
# "Running" sign (and a Stop button) once a run has lasted 0.5 s, so the hold stays well under that.
HOLD_S = 0.3
HOLD_STEP_S = 0.1
# The followers of one room on one app server share their reads of its version: a read younger than
# SHARED_S is taken as it is (_version). Thirty followers holding at once read it about 20 times a
# second instead of 120.
SHARED_S = 0.05
_READS: dict[str, tuple[float, int | None]] = {}  # room code -> (time.monotonic() of the read, version)
_READS_LOCK = threading.Lock()
HEARTBEAT_S = 5.0  # and say they are still there this often ("following now" looks back 15 s)


def run_page(page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    """``page.run()`` with the class around it."""
    st.session_state[ASKED] = []
    st.session_state.pop(present.SECTION_KEY, None)
    slot = _before(page, pages)
    try:
        if teaching() or following():
            with quiz.asked_by(backend.POLL):
                page.run()
        else:
            page.run()
        _after(page, slot)
    except Exception:  # the page failed: its error shows, and a follower still follows
        _keep_following(slot)
        raise
    _keep_following(slot)


def _keep_following(slot: DeltaGenerator) -> None:
    """A follower's loop, drawn last in the run (ui.class_mode.ticker says why)."""
    if following():
        with slot:
            ticker.every(POLL_S, "follow_loop", _tick, now=False)


# --------------------------------------------------------------------------- before the page


def _before(page: StreamlitPage, pages: Sequence[StreamlitPage]) -> DeltaGenerator:
    """The banner (and notices), and for a student the teacher's view; returns the banner's
    container for what the run adds at its end (questions the page did not draw, the follower's
    loop)."""
    banner = st.container(key="class_banner")
    try:
        if teaching():
            _teacher_before(banner)
        else:
            _student_before(banner, page, pages)
    except UnavailableError as err:
        banner.warning(words.paused(str(err)))
    if (text := roles.take_notice()) is not None:
        banner.info(md_escape(text))
    return banner.container()


def _teacher_before(banner: DeltaGenerator) -> None:
    held = roles.teacher()
    rooms = store.rooms()
    state = rooms.state(held.code)
    if state is None:
        roles.stop_teaching(words.closed(held.code, rooms.limits.room_ttl_s))
        return
    st.session_state[ROOM] = state
    banner.caption(words.teaching(held.code, rooms.following(held.code)))


def _student_before(banner: DeltaGenerator, page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    wanted = st.query_params.get(ROOM_PARAM)
    seat = student()
    kept = st.query_params.get(SEAT_PARAM, "")
    if seat is None and wanted is not None and re.fullmatch("[0-9a-f]{32}", kept):
        st.session_state[SESSION_ID] = kept  # the same tab after a server restart
    if wanted is not None and (seat is None or codes.normalize(wanted) != seat["code"]) and not roles.join(wanted):
        roles.forget_address()
    seat = student()
    if seat is None:
        return
    state = store.rooms().state(seat["code"])
    if state is None:
        roles.leave()
        roles.notice(words.ended(seat["code"]))
        return
    st.session_state[ROOM] = state
    with banner:
        _student_banner(seat, state)
    if not seat["following"]:
        return
    st.session_state[PAGES] = {p.url_path: p for p in pages}
    if seat["applied"] != state.version:
        _take_view(seat, state, page.url_path)
    st.session_state[ON_PAGE] = page.url_path
    if state.view.single:
        st.session_state[present.FOLLOW_KEY] = True
    else:
        st.session_state.pop(present.FOLLOW_KEY, None)


def _student_banner(seat: dict, state: RoomState) -> None:
    text, button = st.columns([5, 2], vertical_alignment="center")
    if seat["following"]:
        text.markdown(words.following(seat["code"], state.view.section if state.view.single else ""))
        button.button("Stop following", key="class_stop", on_click=roles.stop_following, width="stretch")
    else:
        text.markdown(words.alone(seat["code"]))
        button.button("Follow again", key="class_again", on_click=roles.follow_again, type="primary", width="stretch")


def _take_view(seat: dict, state: RoomState, current: str | None, *, open_page: bool = False) -> None:
    """Go where the teacher is. A full run on the teacher's page (url path ``current``) takes
    the settings into the address and goes on; on another page, or from the follower's loop
    (``open_page``), it opens the teacher's page with them (``st.switch_page``, a new run)."""
    view = state.view
    seat["applied"] = state.version
    st.session_state[OUTSIDE_KEY] = state.version  # the page's widgets read the URL again
    params = {**dict(view.params), ROOM_PARAM: seat["code"], SEAT_PARAM: roles.session_id()}
    target = st.session_state.get(PAGES, {}).get(view.page)
    if target is None:
        return
    if view.page != current:
        st.session_state[REPAINT] = True
    if open_page or view.page != current:
        st.switch_page(target, query_params=params)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


# --------------------------------------------------------------------------- the follower's loop


def _tick() -> None:
    """Every POLL_S seconds: has the room moved? Then open the teacher's view from here.

    After a switch of page the first tick opens the page once more, even when the room has not
    moved: a tick of the page left behind can reach the server after the switch and run for
    that page, which makes the browser clear the new one (an empty page under the banner).
    Ticks reach the server in the order they were sent, and this one was sent after the new
    page's run, so the page it opens comes after any such late one. It opens the page by name
    (``st.switch_page``), since the tick itself may be running for the page left behind."""
    seat = student()
    if not seat or not seat["following"]:
        return
    try:
        rooms = store.rooms()
        version = _version(rooms.version, seat["code"])
        now = time.monotonic()
        if version is not None and now - st.session_state.get(BEAT, 0.0) >= HEARTBEAT_S:
            st.session_state[BEAT] = now
            rooms.heartbeat(seat["code"], roles.session_id())
        repaint = st.session_state.pop(REPAINT, False)
        if not repaint:
            version = held(lambda code: _version(rooms.version, code), seat["code"], seat["applied"], version)
        if version == seat["applied"] and not repaint:
            return
        state = rooms.state(seat["code"])
    except UnavailableError:
        return  # the next tick tries again; the page stays as it is
    if state is None:
        st.rerun(scope="app")  # the class has ended: the full run says so
    _take_view(seat, state, st.session_state.get(ON_PAGE), open_page=True)


def held(read: Callable[[str], int | None], code: str, applied: int | None, version: int | None) -> int | None:
    """The room's version: ``version`` (just read), or while that is still the ``applied`` one,
    ``read(code)`` again every HOLD_STEP_S for up to HOLD_S, until it moves or the room is gone.

    A tick comes every POLL_S, so a move waited half of that on average, and all of it when it
    came just after a tick; held, a move made in the first HOLD_S after a tick is taken within
    HOLD_STEP_S. The tick's run lasts that much longer, which delays a click of this student's (it
    waits for the run to end) by at most HOLD_S."""
    end = time.monotonic() + HOLD_S
    while version is not None and version == applied and time.monotonic() + HOLD_STEP_S <= end:
        time.sleep(HOLD_STEP_S)
        version = read(code)
    return version


def _version(read: Callable[[str], int | None], code: str) -> int | None:
    """The room's version: this server's last read of it when younger than SHARED_S, else
    ``read(code)`` (which may raise UnavailableError: nothing is kept then)."""
    with _READS_LOCK:
        at, version = _READS.get(code, (-1.0, None))
    if at >= 0 and time.monotonic() - at < SHARED_S:
        return version
    version = read(code)
    with _READS_LOCK:
        if len(_READS) > 10_000:  # codes of rooms long closed
            _READS.clear()
        _READS[code] = (time.monotonic(), version)
    return version


# --------------------------------------------------------------------------- after the page


def _after(page: StreamlitPage, slot: DeltaGenerator) -> None:
    try:
        if teaching():
            _publish(page)
        elif following():
            _unasked(slot)
    except UnavailableError as err:
        slot.warning(words.paused(str(err)))


def _publish(page: StreamlitPage) -> None:
    """Share the teacher's screen, when it changed since the last run."""
    params = tuple(sorted((k, v) for k, v in st.query_params.to_dict().items() if k not in NOT_SHARED))
    view = View(
        page=page.url_path,
        params=params,
        section=st.session_state.get(present.SECTION_KEY, ""),
        single=present.paged(),
        questions=tuple(st.session_state.get(ASKED, ())),
    )
    if st.session_state.get(PUBLISHED) == view:
        return
    held = roles.teacher()
    try:
        store.rooms().publish(held, view)
    except RefusedError as err:
        roles.stop_teaching(str(err))
        return
    st.session_state[PUBLISHED] = view


def _unasked(slot: DeltaGenerator) -> None:
    """The teacher's questions that this student's page did not draw (their page is elsewhere,
    or could not build them): shown at the top."""
    state: RoomState | None = st.session_state.get(ROOM)
    seat = student()
    if state is None or seat is None:
        return
    asked = set(st.session_state.get(ASKED, ()))
    for q in state.view.questions:
        if q.key not in asked:
            with slot, st.container(border=True):
                st.caption(words.YOUR_TEACHER_ASKS)
                poll.student_question(store.rooms(), seat["code"], roles.session_id(), q, state.is_revealed(q))
