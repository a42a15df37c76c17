"""Presenter mode: the whole app sized for a projector, and long pages shown one section at
a time with Back and Next.

A toggle in the sidebar and ``?present=1`` in the URL switch it on. app.py calls ``start``
before the page runs, so every page (and ui.charts, which draws charts 1.5 times larger)
knows whether it is on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ui.state import Param, first_value

KEY = "present"
PARAM = Param(KEY, False, "bool")
CSS = Path(__file__).resolve().parents[1] / "assets" / "present.css"
CHART_SCALE = 1.5  # every chart size in presenter mode: 14 px chart text becomes 21 px
# Class mode (ui.class_follow): a student following a teacher who presents sees one section at a
# time too, at the student's own screen size; the teacher's progress line goes to the class.
FOLLOW_KEY = "class_follow_single"
SECTION_KEY = "class_section"


def start() -> bool:
    """Read ``?present=`` on the session's first run; returns whether presenter mode is on."""
    if KEY not in st.session_state:
        st.session_state[KEY] = PARAM.parse(first_value(st.query_params.get_all(KEY)))
    return bool(st.session_state[KEY])


def on() -> bool:
    return bool(st.session_state.get(KEY, False))


def following() -> bool:
    """Whether this session is a student following a class whose teacher presents (class mode)."""
    return bool(st.session_state.get(FOLLOW_KEY))


STEPWISE = "one_step_at_a_time"  # a student's switch (ui.outline): long pages one section at a time


def paged() -> bool:
    """Whether a Deck shows one section at a time: in presenter mode, by a student's choice, or
    for a student following a teacher whose screen does (class mode)."""
    return on() or bool(st.session_state.get(STEPWISE, False)) or following()


def toggle() -> None:
    """The sidebar switch; it keeps ``present=1`` in the address bar while it is on."""
    st.sidebar.toggle(
        "Presenter mode",
        key=KEY,
        help="Large text and charts for a projector, one step at a time. Links keep it: ?present=1",
    )
    wanted = PARAM.encode(on())
    if wanted is None and KEY in st.query_params:
        del st.query_params[KEY]
    elif wanted is not None and st.query_params.get(KEY) != wanted:
        st.query_params[KEY] = wanted
    if on():
        st.html(CSS)


def intro(text: str) -> None:
    """A page's opening paragraph: shown normally, left out in presenter mode, where the
    screen height goes to the step being shown (the teacher says it instead), and so for a
    student following a teacher who presents."""
    if not (on() or following()):
        st.markdown(text)


@dataclass(frozen=True)
class Deck:
    """A long page's sections. In presenter mode only the current one is shown, with Back,
    Next and a progress line; otherwise every section is shown.

    ``step_key`` holds the 1-based section number (the page's URL parameter ``step``), or,
    where ``values`` are given, the value of the section shown (the Real model page's ``view``).
    """

    titles: tuple[str, ...]
    step_key: str
    noun: str = "Section"
    counted: int | None = None  # sections past this many are extras: "One cell, worked through (after step 9)"
    values: tuple[str, ...] | None = None  # the state holds values[k] for section k instead of k + 1
    numbered: bool = False  # section() draws "4. Title" as a header instead of "Step 4 · Title" as a subheader

    def __post_init__(self) -> None:
        if self.values is not None and len(self.values) != len(self.titles):
            raise ValueError(f"a Deck needs one value per title: {len(self.values)} values, {len(self.titles)} titles")

    @property
    def current(self) -> int:
        """The 0-based section being shown (clamped)."""
        got = st.session_state.get(self.step_key)
        if self.values is not None:
            return self.values.index(got) if got in self.values else 0
        step = int(got or 1)
        return min(max(step, 1), len(self.titles)) - 1

    def shows(self, index: int) -> bool:
        return not paged() or index == self.current

    def anchor(self, index: int) -> str:
        """The id of section ``index``'s heading, for links to it: "sbs-step-4"."""
        return f"{self.step_key.replace('_', '-')}-{index + 1}"

    def section(self, index: int, ready: bool = True) -> bool:
        """Whether section ``index`` is on the page: ``ready`` (its inputs are usable) and shown
        (as ``shows``). When it is, draws its heading: the subheader "Step 4 · Queries, keys and
        values" (the title alone for an extra past the counted ones), or with ``numbered`` the
        header "4. Queries, keys and values"."""
        if not ready or not self.shows(index):
            return False
        title = self.titles[index]
        if self.numbered:
            st.header(f"{index + 1}. {title}", anchor=self.anchor(index))
        else:
            st.subheader(self.heading(index), anchor=self.anchor(index))
        return True

    def heading(self, index: int) -> str:
        """Section ``index`` as section() titles it: "Step 4 · Queries, keys and values"."""
        counted = self.counted or len(self.titles)
        if self.numbered:
            return f"{index + 1}. {self.titles[index]}"
        return f"{self.noun} {index + 1} · {self.titles[index]}" if index < counted else self.titles[index]

    def _move(self, by: int) -> None:
        k = min(max(self.current + by, 0), len(self.titles) - 1)
        st.session_state[self.step_key] = self.values[k] if self.values is not None else k + 1

    def nav(self) -> None:
        """Back, the progress line and Next (presenter mode, or one step at a time; a student
        following a class gets the line alone)."""
        if not paged():
            return
        n, k = len(self.titles), self.current
        st.session_state[SECTION_KEY] = self.progress(k).replace("**", "")
        if following():
            st.markdown(self.progress(k))
            return
        if self.values is not None:
            # Kept as a plain value: where the state belongs to a widget the page draws only
            # outside presenter mode (the View radio), Streamlit drops it at the end of a run
            # without that widget, and Back or Next would then start from the first section.
            st.session_state[self.step_key] = self.values[k]
        back, line, nxt = st.columns([1, 6, 1], vertical_alignment="center")
        back.button(
            "← Back", key=f"{self.step_key}_back", on_click=self._move, args=(-1,), disabled=k == 0, width="stretch"
        )
        nxt.button(
            "Next →",
            key=f"{self.step_key}_next",
            on_click=self._move,
            args=(1,),
            disabled=k == n - 1,
            width="stretch",
            type="primary",
        )
        line.markdown(self.progress(k))

    def progress(self, k: int) -> str:
        """The progress line for section k, e.g. "**Step 4 of 9** · Queries, keys and values"."""
        counted = self.counted or len(self.titles)
        if k < counted:
            return f"**{self.noun} {k + 1} of {counted}** · {self.titles[k]}"
        return f"**{self.titles[k]}** (after {self.noun.lower()} {counted})"
