"""Class: a teacher starts a class and shows its code, join link and QR code; students join
by the link or by typing the code; a teacher takes a class back with its teacher key.

The rooms are classroom's (plain Python and SQLAlchemy); this session's part in a class
(teacher or student, the banner, following, the poll) is ui.class_follow's.
"""

from __future__ import annotations

import io
from pathlib import Path

import segno
import streamlit as st

from classroom import RefusedError, UnavailableError
from lessons import pages
from ui import class_follow, class_store, present
from ui.class_mode import STUDENT, TEACHER, ticking
from ui.common import md_escape, once_per_server
from ui.state import PageState, Param

CSS = Path(__file__).resolve().parents[2] / "assets" / "class.css"
STATE = PageState("class", (Param("code", "", "text", max_chars=40),))
K = STATE.key
# The QR code's width on screen. A QR code scans from about ten times its width: 460 px of a
# 1280 × 720 projector image 2.5-3 m wide is about 1 m, enough for the back of a classroom.
QR_PX_PRESENT, QR_PX = 460, 260
QR_BORDER = 4  # modules of white margin, as the QR standard asks
PAGE_NAMES = {p.url_path: p.title for p in pages.PAGES}  # url path -> title, for "The class sees: …"


@once_per_server(st.cache_data(show_spinner=False, max_entries=64))
def qr_png(link: str, width_px: int) -> tuple[bytes, int]:
    """The join link as a QR code at most ``width_px`` wide: PNG, black on white with the
    standard 4-module margin, a whole number of pixels per module (so the browser shows it
    unscaled, with sharp edges). Returns the PNG and its width."""
    qr = segno.make(link, error="m")
    scale = max(1, width_px // qr.symbol_size(scale=1, border=QR_BORDER)[0])
    out = io.BytesIO()
    qr.save(out, kind="png", scale=scale, border=QR_BORDER, dark="black", light="white")
    return out.getvalue(), qr.symbol_size(scale=scale, border=QR_BORDER)[0]


def app_url() -> str:
    """The app's address as this browser reached it (without this page's path)."""
    url = (st.context.url or "").split("?")[0].rstrip("/")
    if url.endswith("/class"):
        url = url[: -len("/class")]
    return url or "http://localhost:8501"


def join_link(code: str) -> str:
    return f"{app_url()}/?room={code}"


# --------------------------------------------------------------------------- actions (callbacks)


def _start() -> None:
    try:
        held = class_store.rooms().open_room(client=class_follow.session_id())
    except (RefusedError, UnavailableError) as err:
        class_follow.notice(str(err))
        return
    class_follow.become_teacher(held, show_key=True)


def _take_back() -> None:
    code, key = st.session_state.get("class_back_code", ""), st.session_state.get("class_back_key", "")
    st.session_state["class_back_key"] = ""  # the key does not stay in a widget
    try:
        held = class_store.rooms().take_back(code, key, client=class_follow.session_id())
    except (RefusedError, UnavailableError) as err:
        class_follow.notice(str(err))
        return
    class_follow.become_teacher(held, show_key=False)


def _join() -> None:
    code = st.session_state.get(K("code"), "")
    if code.strip():
        class_follow.join(code)


def _end() -> None:
    held = class_follow.teacher()
    try:
        class_store.rooms().close_room(held)
    except (RefusedError, UnavailableError) as err:
        class_follow.notice(str(err))
        return
    class_follow.stop_teaching(f"Class {held.code} has ended: its answers are deleted.")


def _hide_key() -> None:
    st.session_state[TEACHER]["show_key"] = False


# --------------------------------------------------------------------------- the page's parts


def following_now(code: str) -> None:
    try:
        n = class_store.rooms().following(code)
    except UnavailableError as err:
        st.warning(md_escape(str(err)))
        return
    st.markdown(f"Students following now: **{n}**")


def where_the_class_is() -> None:
    view = st.session_state.get(class_follow.PUBLISHED)
    if view is None:
        return
    where = PAGE_NAMES.get(view.page, view.page)
    st.caption(f"The class sees: {md_escape(where)}" + (f" · {md_escape(view.section)}" if view.section else ""))


def teacher_panel() -> None:
    held = class_follow.teacher()
    link = join_link(held.code)
    code_col, qr_col = st.columns([3, 2], gap="large")
    with code_col:
        st.markdown("The class code")
        # Not "class_code": that is the join box's key (K("code")), whose label would take the code's size.
        st.container(key="class_shown_code").markdown(f"**{held.code}**")
        st.markdown("Students join with this link, or type the code on their Class page:")
        st.code(link, language=None, wrap_lines=True)
        ticking(following_now, 2.0, "following_now")(held.code)
        where_the_class_is()
    with qr_col:
        png, width = qr_png(link, QR_PX_PRESENT if present.on() else QR_PX)
        st.image(png, width=width, alt=f"QR code of the join link {link}")
    st.markdown(
        "Now go to any page: the class follows you there, page, settings and (in presenter mode) section. "
        "Switch **Predict first** on where a page has it, and every student gets the question."
    )
    if st.session_state[TEACHER].get("show_key"):
        if present.on():
            st.caption("Your teacher key stays hidden in presenter mode: switch presenter mode off to see it.")
        else:
            with st.expander("Your teacher key (open it where the class cannot see it)"):
                st.markdown(
                    "With this key you can take the class back after a reload or from another device "
                    "(“Take a class back” below). It is shown here once and stored nowhere in clear: "
                    "write it down."
                )
                st.code(held.key, language=None)
                st.button("I have written it down: hide it", key="class_hide_key", on_click=_hide_key)
    st.button("End the class", key="class_end", on_click=_end, help="Closes the room and deletes its answers.")


def student_panel() -> None:
    seat = st.session_state[STUDENT]
    if seat["following"]:
        st.markdown(f"You are in class **{seat['code']}**: your screen follows your teacher's.")
    else:
        st.markdown(f"You are in class **{seat['code']}**, exploring alone. “Follow again” at the top brings you back.")
    st.button("Leave the class", key="class_leave", on_click=class_follow.leave)


def join_form() -> None:
    st.subheader("Join a class")
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    left.text_input("Class code", key=K("code"), max_chars=40, on_change=_join, placeholder="e.g. K7XQ2M")
    right.button("Join", key="class_join", on_click=_join, width="stretch")


def teach_form() -> None:
    st.subheader("Teach a class")
    st.markdown(
        "Start a class, show its code or QR code, and your students' screens follow yours: "
        "the page, its settings and, in presenter mode, the section. Predict-first questions go to every student."
    )
    st.button("Start a class", key="class_start", type="primary", on_click=_start)
    with (
        st.expander("Take a class back (after a reload, or on another device)"),
        st.form("class_take_back", border=False),
    ):
        st.text_input("Code of your class", key="class_back_code", max_chars=40)
        st.text_input("Teacher key", key="class_back_key", type="password", max_chars=80)
        st.form_submit_button("Take the class back", on_click=_take_back)


# --------------------------------------------------------------------------- the page

STATE.start()
st.title("Class")
present.intro(
    "A teacher starts a class here and shows its code; students join it and their screens follow the "
    "teacher's: the same page, the same settings, one section at a time while the teacher presents. "
    "A predict-first question goes to everyone, the teacher sees the answers come in, and reveals them."
)
st.html(CSS)
try:
    class_store.rooms()
except UnavailableError as err:
    st.error(f"Class mode is not available right now. {md_escape(str(err))} Every other page works as usual.")
    STATE.sync()
    st.stop()

if TEACHER in st.session_state:
    teacher_panel()
else:
    if STUDENT in st.session_state:
        student_panel()
    join_form()
    if STUDENT not in st.session_state:
        teach_form()
STATE.sync()
