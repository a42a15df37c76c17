"""Class: a teacher starts a class and shows its code, join link and QR code; students join
by the link or by typing the code; a teacher takes a class back with its teacher key.

The rooms are classroom's (plain Python and SQLAlchemy); this session's part in a class
(teacher or student, the banner, following, the poll) is the ui.class_mode package's. The
sentences and the QR code are lessons/class_room/words.py's.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from classroom import RefusedError, UnavailableError
from lessons import pages
from lessons.class_room import words
from ui import present
from ui.class_mode import roles, store, ticker
from ui.class_mode.session import PUBLISHED, STUDENT, TEACHER
from ui.common import md_escape, once_per_server
from ui.state import PageState, Param

CSS = Path(__file__).resolve().parents[2] / "assets" / "class.css"
STATE = PageState("class", (Param("code", "", "text", max_chars=40),))
K = STATE.key
# The QR code's width on screen. A QR code scans from about ten times its width: 460 px of a
# 1280 × 720 projector image 2.5-3 m wide is about 1 m, enough for the back of a classroom.
QR_PX_PRESENT, QR_PX = 460, 260
PAGE_NAMES = {p.url_path: p.title for p in pages.PAGES}  # url path -> title, for "The class sees: …"
qr_png = once_per_server(st.cache_data(show_spinner=False, max_entries=64))(words.qr_png)


# --------------------------------------------------------------------------- actions (callbacks)


def _start() -> None:
    try:
        held = store.rooms().open_room(client=roles.session_id())
    except (RefusedError, UnavailableError) as err:
        roles.notice(str(err))
        return
    roles.become_teacher(held, show_key=True)


def _take_back() -> None:
    code, key = st.session_state.get("class_back_code", ""), st.session_state.get("class_back_key", "")
    st.session_state["class_back_key"] = ""  # the key does not stay in a widget
    try:
        held = store.rooms().take_back(code, key, client=roles.session_id())
    except (RefusedError, UnavailableError) as err:
        roles.notice(str(err))
        return
    roles.become_teacher(held, show_key=False)


def _join() -> None:
    code = st.session_state.get(K("code"), "")
    if code.strip():
        roles.join(code)


def _end() -> None:
    held = roles.teacher()
    try:
        store.rooms().close_room(held)
    except (RefusedError, UnavailableError) as err:
        roles.notice(str(err))
        return
    roles.stop_teaching(words.ended(held.code))


def _hide_key() -> None:
    st.session_state[TEACHER]["show_key"] = False


# --------------------------------------------------------------------------- the page's parts


def literal(text: str, key: str) -> None:
    """``text`` exactly as it is, selectable for copying, in a keyed box (assets/class.css):
    plain text, not code, so no syntax highlighter is loaded for it."""
    st.container(key=key).text(text)


def following_now(code: str) -> None:
    try:
        n = store.rooms().following(code)
    except UnavailableError as err:
        st.warning(md_escape(str(err)))
        return
    st.markdown(words.following_now(n))


def where_the_class_is() -> None:
    view = st.session_state.get(PUBLISHED)
    if view is not None:
        st.caption(words.class_sees(PAGE_NAMES.get(view.page, view.page), view.section))


def keeping_classes() -> None:
    """Where the classes are kept, when that is the default file on this server's disk."""
    if not store.on_default_file():
        return
    st.caption(words.ON_THIS_DISK)
    with st.expander(words.KEEP_TITLE):
        st.markdown(words.KEEP_STEPS)
        literal(words.SECRETS_EXAMPLE, "class_secrets_line")
        st.markdown(words.KEEP_AFTER)


def teacher_panel() -> None:
    held = roles.teacher()
    link = words.join_link(words.app_url(st.context.url), held.code)
    code_col, qr_col = st.columns([3, 2], gap="large")
    with code_col:
        st.markdown("The class code")
        # Not "class_code": that is the join box's key (K("code")), whose label would take the code's size.
        st.container(key="class_shown_code").markdown(f"**{held.code}**")
        st.markdown(words.JOIN_HOW)
        literal(link, "class_join_link")
        ticker.every(2.0, "following_now", following_now, held.code)
        where_the_class_is()
    with qr_col:
        png, width = qr_png(link, QR_PX_PRESENT if present.on() else QR_PX)
        st.image(png, width=width, alt=f"QR code of the join link {link}")
    st.markdown(words.AFTER_START)
    if st.session_state[TEACHER].get("show_key"):
        if present.on():
            st.caption(words.KEY_HIDDEN_PRESENTING)
        else:
            with st.expander("Your teacher key (open it where the class cannot see it)"):
                st.markdown(words.KEY_HOW)
                literal(held.key, "class_teacher_key")
                st.button("I have written it down: hide it", key="class_hide_key", on_click=_hide_key)
    st.button("End the class", key="class_end", on_click=_end, help="Closes the room and deletes its answers.")
    if not present.on():
        keeping_classes()


def student_panel() -> None:
    seat = st.session_state[STUDENT]
    st.markdown(words.in_class(seat["code"], seat["following"]))
    st.button("Leave the class", key="class_leave", on_click=roles.leave)


def join_form() -> None:
    st.subheader("Join a class")
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    left.text_input("Class code", key=K("code"), max_chars=40, on_change=_join, placeholder="e.g. K7XQ2M")
    right.button("Join", key="class_join", on_click=_join, width="stretch")


def teach_form() -> None:
    st.subheader("Teach a class")
    st.markdown(words.TEACH)
    st.button("Start a class", key="class_start", type="primary", on_click=_start)
    with (
        st.expander("Take a class back (after a reload, or on another device)"),
        st.form("class_take_back", border=False),
    ):
        st.text_input("Code of your class", key="class_back_code", max_chars=40)
        st.text_input("Teacher key", key="class_back_key", type="password", max_chars=80)
        st.form_submit_button("Take the class back", on_click=_take_back)
    keeping_classes()


def body() -> None:
    """The page below its title: the teacher's panel, or a student's and the forms."""
    try:
        store.rooms()
    except UnavailableError as err:
        st.error(words.unavailable(str(err)))
        return
    if TEACHER in st.session_state:
        teacher_panel()
        return
    if STUDENT in st.session_state:
        student_panel()
    join_form()
    if STUDENT not in st.session_state:
        teach_form()


# --------------------------------------------------------------------------- the page

STATE.start()
st.title("Class")
present.intro(words.INTRO)
st.html(CSS)
body()
STATE.sync()
