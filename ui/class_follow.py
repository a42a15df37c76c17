"""Class mode for a session in a class, as ui.class_mode describes it: the teacher's run
publishes the screen, a student's run takes it, the follower's fragment watches the room's
version, and ``ask``/``revealed`` turn ui.quiz's questions into the class's poll.
ui.class_mode imports this module only for a session in a class, so the app's other
sessions never import SQLAlchemy.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from classroom import PollQuestion, RefusedError, RoomState, Teacher, UnavailableError, View, codes
from ui import class_poll, class_store, present
from ui.class_mode import FULL_RUNS, NOTICE, ROOM_PARAM, STUDENT, TEACHER, following, student, ticking
from ui.common import md_escape
from ui.state import OUTSIDE_KEY

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

    from ui.quiz import Question

# A following student's own address also holds their random id (never the teacher's, never in the
# join link): when the app server restarts, the tab reconnects as a new session and keeps its seat,
# its answers included, instead of joining again as somebody else.
SEAT_PARAM = "seat"
NOT_SHARED = {"present", ROOM_PARAM, SEAT_PARAM, "embed", "embed_options"}  # URL parameters followers do not take
SESSION_ID = "class_session_id"  # this browser session's random id (a student, and the rate limits' key)
PUBLISHED = "class_published"  # the View this teacher's tab last published
ROOM = "class_room_state"  # the RoomState this run uses
ASKED = "class_asked"  # this run's questions: the teacher's PollQuestions, a student's question keys
BEAT = "class_beat_at"
PAGES = "class_pages"  # url path -> the app's page, from the last full run
CURRENT_HASH = "class_current_page"  # the page script hash of this session's last full run
REPAINT = "class_repaint"  # after a switch of page: the follower's next tick draws the whole page once more
POLL_S = 1.0  # followers ask the room's version this often
HEARTBEAT_S = 5.0  # and say they are still there this often ("following now" looks back 15 s)


# --------------------------------------------------------------------------- who this session is


def session_id() -> str:
    return st.session_state.setdefault(SESSION_ID, codes.new_id())


def teacher() -> Teacher | None:
    held = st.session_state.get(TEACHER)
    return None if held is None else Teacher(code=held["code"], key=held["key"], holder=held["holder"])


def notice(text: str) -> None:
    st.session_state[NOTICE] = text


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
        state = class_store.rooms().join(code, session_id())
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
    for name in (ROOM_PARAM, SEAT_PARAM):
        if name in st.query_params:
            del st.query_params[name]


def follow_again() -> None:
    seat = student()
    if seat:
        seat["following"], seat["applied"] = True, None


def leave() -> None:
    stop_following()
    for key in (STUDENT, ROOM):
        st.session_state.pop(key, None)


# --------------------------------------------------------------------------- every page's run


def run_page(page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    """``page.run()`` with the class around it (see ui.class_mode)."""
    st.session_state[ASKED] = []
    st.session_state[FULL_RUNS] = st.session_state.get(FULL_RUNS, 0) + 1
    st.session_state.pop(present.SECTION_KEY, None)
    slot = _before(page, pages)
    try:
        page.run()
    except StopException:  # st.stop(): the run ends normally, the view is what it showed
        _after(page, slot)
        raise
    _after(page, slot)


def _before(page: StreamlitPage, pages: Sequence[StreamlitPage]):
    """The banner (and notices), and for a student the teacher's view; returns a container for
    questions the page itself does not draw."""
    banner = st.container(key="class_banner")
    try:
        if TEACHER in st.session_state:
            _teacher_before(banner)
        else:
            _student_before(banner, page, pages)
    except UnavailableError as err:
        banner.warning(f"{md_escape(str(err))} The class is paused; this page works on its own.")
    if NOTICE in st.session_state:
        banner.info(md_escape(st.session_state.pop(NOTICE)))
    return banner.container()


def _teacher_before(banner) -> None:
    held = teacher()
    rooms = class_store.rooms()
    state = rooms.state(held.code)
    if state is None:
        stop_teaching(f"Class {held.code} has closed (3 hours without activity, or it was ended).")
        return
    st.session_state[ROOM] = state
    banner.caption(f"Teaching class **{held.code}**: {rooms.following(held.code)} following now.")


def _student_before(banner, page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    wanted = st.query_params.get(ROOM_PARAM)
    seat = student()
    kept = st.query_params.get(SEAT_PARAM, "")
    if seat is None and wanted is not None and re.fullmatch("[0-9a-f]{32}", kept):
        st.session_state[SESSION_ID] = kept  # the same tab after a server restart
    if wanted is not None and (seat is None or codes.normalize(wanted) != seat["code"]) and not join(wanted):
        for name in (ROOM_PARAM, SEAT_PARAM):
            if name in st.query_params:
                del st.query_params[name]
    seat = student()
    if seat is None:
        return
    state = class_store.rooms().state(seat["code"])
    if state is None:
        leave()
        notice(f"Class {seat['code']} has ended.")
        return
    st.session_state[ROOM] = state
    with banner:
        _student_banner(seat, state)
    if not seat["following"]:
        return
    st.session_state[PAGES] = {p.url_path: p for p in pages}
    st.session_state[CURRENT_HASH] = _page_hash()
    if seat["applied"] != state.version:
        _take_view(seat, state, page.url_path)
    if state.view.single:
        st.session_state[present.FOLLOW_KEY] = True
    else:
        st.session_state.pop(present.FOLLOW_KEY, None)
    ticking(_poll, POLL_S, "follow_loop")()


def _student_banner(seat: dict, state: RoomState) -> None:
    text, button = st.columns([5, 2], vertical_alignment="center")
    if seat["following"]:
        where = f" · {md_escape(state.view.section)}" if state.view.section and state.view.single else ""
        text.markdown(f"**Following class {seat['code']}**{where}")
        button.button("Stop following", key="class_stop", on_click=stop_following, width="stretch")
    else:
        text.markdown(f"**Class {seat['code']}:** you are exploring alone.")
        button.button("Follow again", key="class_again", on_click=follow_again, type="primary", width="stretch")


def _take_view(seat: dict, state: RoomState, current: str | None) -> None:
    """Go where the teacher is: to the page (``st.switch_page``, which starts a new run) or, when
    this session is on it (url path ``current``; None: switch in any case), to its settings."""
    view = state.view
    seat["applied"] = state.version
    st.session_state[OUTSIDE_KEY] = state.version  # the page's widgets read the URL again
    params = {**dict(view.params), ROOM_PARAM: seat["code"], SEAT_PARAM: session_id()}
    target = st.session_state.get(PAGES, {}).get(view.page)
    if target is None:
        return
    if current is None or view.page != current:
        st.session_state[REPAINT] = True
        st.switch_page(target, query_params=params)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def _poll() -> None:
    """Every POLL_S seconds: has the room moved? Then the whole app reruns, and that run takes
    the teacher's view (a full run first: the browser stops this page's timer as it starts, so
    no late tick of the page left behind reaches the server after the switch)."""
    seat = student()
    if not seat or not seat["following"]:
        return
    try:
        rooms = class_store.rooms()
        version = rooms.version(seat["code"])
        now = time.monotonic()
        if version is not None and now - st.session_state.get(BEAT, 0.0) >= HEARTBEAT_S:
            st.session_state[BEAT] = now
            rooms.heartbeat(seat["code"], session_id())
        if version == seat["applied"] and _page_hash() != st.session_state.get(CURRENT_HASH):
            # The browser lost track of its page: a timer tick of the page left behind was still on
            # its way when the switch ran, and Streamlit ran it after the switch, for the old page,
            # which the browser took for a change of page (it then shows an empty page). Go again.
            state = rooms.state(seat["code"])
            if state is not None:
                _take_view(seat, state, current=None)
    except UnavailableError:
        return  # the next poll tries again; the page stays as it is
    # After a switch of page, the first tick draws the whole page once more: a tick of the page
    # left behind can reach the server after the switch and run under the new page, where the
    # check above cannot tell it from this page's own, and the browser may then have cleared the
    # new page (seen as a blank page under the banner). Ticks reach the server in order, so a full
    # run from this tick comes after any such late one.
    if version != seat["applied"] or st.session_state.pop(REPAINT, False):
        st.rerun(scope="app")


def _page_hash() -> str:
    """The page this run is for, as the request named it (Streamlit's run context; no public API)."""
    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def _after(page: StreamlitPage, slot) -> None:
    try:
        if TEACHER in st.session_state:
            _publish(page)
        elif following():
            _unasked(slot)
    except UnavailableError as err:
        slot.warning(f"{md_escape(str(err))} The class is paused; this page works on its own.")


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
    held = teacher()
    try:
        class_store.rooms().publish(held, view)
    except RefusedError as err:
        stop_teaching(str(err))
        return
    st.session_state[PUBLISHED] = view


def _unasked(slot) -> None:
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
                st.caption("Your teacher asks:")
                class_poll.student_question(class_store.rooms(), seat["code"], session_id(), q, state.is_revealed(q))


# --------------------------------------------------------------------------- ui.quiz in a class


def poll_question(q: Question) -> PollQuestion | None:
    """``q`` as the class's poll question, or None when it cannot be one (too many options)."""
    try:
        return PollQuestion(
            key=q.key,
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
    if TEACHER in st.session_state:
        spec = poll_question(q)
        return None if spec is None else (state, spec)
    spec = state.question(q.key)
    return None if spec is None else (state, spec)


def revealed(q: Question) -> bool | None:
    """Whether the class has seen the answer to ``q``; None when the class does not poll it."""
    found = _room_question(q)
    return None if found is None else found[0].is_revealed(found[1])


def ask(q: Question) -> bool | None:
    """Draw ``q`` as the class's poll; returns whether its answer is revealed, or None when the
    class does not poll it (the page then asks it as usual)."""
    found = _room_question(q)
    if found is None:
        return None
    state, spec = found
    shown = state.is_revealed(spec)
    try:
        rooms = class_store.rooms()
    except UnavailableError:
        return None
    held = teacher()
    if held is not None:
        st.session_state.setdefault(ASKED, []).append(spec)
        class_poll.teacher_question(rooms, held, spec, shown)
    else:
        st.session_state.setdefault(ASKED, []).append(spec.key)
        class_poll.student_question(rooms, state.code, session_id(), spec, shown)
    return shown
