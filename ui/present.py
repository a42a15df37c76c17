"""Presenter mode: the whole app sized for a projector, and long pages shown one section at
a time with Back and Next.

A toggle in the sidebar and ``?present=1`` in the URL switch it on. app.py calls ``start``
before the page runs, so every page (and ui.charts, which draws charts 1.5 times larger)
knows whether it is on.

On a projector a section fits one screen (assets/present.css): Back, Next and the progress
line are the section's one heading; the page's sentence box and settings wait in the sidebar
(``inputs``, ``input_columns``: one click away); and the section is laid out on a *stage*
whose height is the room left under the heading. Its charts fill the stage's chart area
(``ui.charts`` draws them there at the stage's height), and everything else the section writes,
its text, formulas and controls, goes beside them, or below them for a row of charts that needs
the whole width (``Deck.section(..., beside=False)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.reader import Reader
from ui.state import Param, first_value

KEY = "present"
PARAM = Param(KEY, False, "bool")
CSS = Path(__file__).resolve().parents[1] / "assets" / "present.css"
CHART_SCALE = 1.5  # every chart size in presenter mode: 14 px chart text becomes 21 px
NAV_KEY = "present_nav"  # Back, the progress line and Next: class st-key-present_nav (assets/present.css)
# Class mode (ui.class_mode.follow): a student following a teacher who presents sees one section at a
# time too, at the student's own screen size; the teacher's progress line goes to the class.
FOLLOW_KEY = "class_follow_single"
SECTION_KEY = "class_section"


def start() -> bool:
    """Read ``?present=`` on the session's first run; returns whether presenter mode is on.
    Called at the start of every run."""
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


# --------------------------------------------------------------------------- the stage

STAGE_KEY = "present_stage"  # the stage's container: class st-key-present_stage (assets/present.css)
SIDE_SHARE = 0.34  # the side area's share of the width, beside the charts


@dataclass(frozen=True)
class Stage:
    """Where a section writes, passed explicitly: ``charts`` (its charts: give the stage to
    ui.charts' ``into=``), ``side`` (its text and controls: ``with stage.side:`` or
    ``stage.side.markdown(...)``) and ``fill`` (presenter mode: the charts fill the stage's
    height). Outside presenter mode ``charts`` and ``side`` are one container, so the section
    reads top to bottom in the order the page writes it."""

    charts: DeltaGenerator
    side: DeltaGenerator
    fill: bool = False

    def formula(self, tex: str) -> None:
        """The section's formula (st.latex): in presenter mode above the charts, as wide as they
        are, rather than beside them where it would have to shrink."""
        (self.charts if self.fill else self.side).latex(tex)

    def chart_columns(self, spec: int | list[float], **kwargs) -> list[Stage]:
        """Columns for charts side by side, each a Stage whose charts share the stage's height
        in presenter mode; text written to a column's ``side`` still goes beside the charts."""
        return [
            Stage(column, self.side if self.fill else column, self.fill)
            for column in self.charts.columns(spec, **kwargs)
        ]

    def control_columns(self, spec: int | list[float], **kwargs) -> list[DeltaGenerator]:
        """Columns for a section's own controls; in presenter mode one above the other in the
        side area (side by side they would be too narrow there)."""
        if self.fill:
            return [self.side.container() for _ in range(spec if isinstance(spec, int) else len(spec))]
        return self.side.columns(spec, **kwargs)


def _new_stage(beside: bool | float, where: DeltaGenerator | None = None) -> Stage:
    """A section's stage where the page is writing (or in ``where``): in presenter mode a box
    the stage's CSS sizes to the room left on the screen, its charts first and the rest
    ``beside`` them (True, or the side's share of the width) or below them (False)."""
    parent = st if where is None else where
    if not on():
        area = parent.container()
        return Stage(area, area)
    # The stage's box is a child of where the page writes, and (text below) each row of charts is
    # a child of the box: the stage's CSS (assets/present.css) grows those wrappers to the room
    # left on the screen, and a container in between would keep the charts at no height at all.
    box = parent.container(key=STAGE_KEY, border=False)
    if beside:
        share = SIDE_SHARE if beside is True else float(beside)
        charts, side = box.columns([1 - share, share], gap="large")
    else:
        charts, side = box, parent.container(key=f"{STAGE_KEY}_below", border=False)
    return Stage(charts, side, fill=True)


def reader() -> Reader:
    """Where this run's reader is, for the words modules: presenter mode, one section at a
    time, following a class."""
    return Reader(presenting=on(), paged=paged(), following=following())


def stage(beside: bool | float = True) -> Stage:
    """The stage of a page without sections (Home): in presenter mode the charts fill the room
    left on the screen and the rest goes beside (or below) them."""
    return _new_stage(beside)


def inputs() -> DeltaGenerator:
    """Where a page's sentence box and settings go: the sidebar in presenter mode (one click
    away, and off the projector's height), else a container right here."""
    return st.sidebar if on() else st.container()


def input_columns(spec: int | list[float], **kwargs) -> list[DeltaGenerator]:
    """Columns for settings side by side; in presenter mode the sidebar, once per column."""
    if on():
        return [st.sidebar] * (spec if isinstance(spec, int) else len(spec))
    return st.columns(spec, **kwargs)


def toggle() -> None:
    """The switch (app.py draws it at the top of the sidebar); it keeps ``present=1`` in the
    address bar while it is on."""
    st.toggle(
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


Key = int | str  # a section by its name ("weights"), or by its 0-based place (the page map walks them)


@dataclass(frozen=True)
class Deck:
    """A long page's sections, by name. In presenter mode (or one step at a time, or following
    a class) only the current one is shown, with Back, Next and a progress line; otherwise every
    section is shown.

    ``sections`` maps each section's name to its title, in page order. ``step_key`` holds the
    1-based number of the section shown (the page's URL parameter ``step``), or with
    ``by_name`` the section's name (the Real model page's ``view``). The first ``counted``
    sections are numbered ("Step 4 of 9"); later ones are extras ("One cell, worked through").
    """

    sections: Mapping[str, str]
    step_key: str
    noun: str = "Section"
    counted: int | None = None
    by_name: bool = False
    numbered: bool = False  # section() draws "4. Title" as a header instead of "Step 4 · Title" as a subheader

    def __post_init__(self) -> None:
        if not isinstance(self.sections, Mapping) or not self.sections:
            raise ValueError(f"a Deck needs its sections as {{name: title}}, got {self.sections!r}")
        object.__setattr__(self, "sections", dict(self.sections))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.sections)

    @property
    def titles(self) -> tuple[str, ...]:
        return tuple(self.sections.values())

    def index(self, key: Key) -> int:
        """Section ``key``'s 0-based place on the page; a ValueError names the sections there are."""
        if isinstance(key, int):
            if not 0 <= key < len(self.sections):
                raise ValueError(f"no section {key}: the deck has {len(self.sections)}")
            return key
        try:
            return self.names.index(key)
        except ValueError:
            raise ValueError(f"no section named {key!r}: the sections are {self.names}") from None

    @property
    def current(self) -> int:
        """The 0-based section being shown (clamped)."""
        got = st.session_state.get(self.step_key)
        if self.by_name:
            return self.names.index(got) if got in self.names else 0
        try:
            step = int(got or 1)
        except (TypeError, ValueError):
            step = 1
        return min(max(step, 1), len(self.sections)) - 1

    @property
    def current_name(self) -> str:
        return self.names[self.current]

    def shows(self, key: Key) -> bool:
        """Whether section ``key`` is on the screen in this run."""
        return not paged() or self.index(key) == self.current

    def elsewhere(self, key: Key) -> str:
        """Where section ``key`` is for a reader on another one (one section at a time):
        " on step 8", else "" (it is on this page, as everything is)."""
        k = self.index(key)
        if not paged() or k == self.current:
            return ""
        counted = self.counted or len(self.sections)
        return f" on {self.noun.lower()} {k + 1}" if k < counted else f" in “{self.titles[k]}”"

    def anchor(self, key: Key) -> str:
        """The id of a section's heading, for links to it: "sbs-weights"."""
        prefix = self.step_key.split("_")[0]
        return f"{prefix}-{self.names[self.index(key)]}".replace("_", "-")

    def section(
        self,
        key: Key,
        ready: bool = True,
        *,
        beside: bool | float = True,
        heading: str | None = None,
        header: bool = False,
    ) -> Stage | None:
        """Section ``key``'s stage when it is on the page (``ready``: its inputs are usable, and
        shown, as ``shows``), else None. Draws its heading: the subheader "Step 4 · Queries, keys
        and values" (the title alone for an extra past the counted ones), or with ``numbered`` the
        header "4. Queries, keys and values". In presenter mode the progress line is the heading,
        and the section is laid out on the stage: its charts first, the rest ``beside`` them
        (True, or the side's share of the width; False: below them, for charts that need the
        whole width). ``heading`` words the heading otherwise than the title (outside presenter
        mode); ``header``: a deck without numbers draws it as a header, one level up from a
        subheader (a section that stands for a part of the page)."""
        if not ready or not self.shows(key):
            return None
        k = self.index(key)
        if not on():
            if self.numbered:
                st.header(f"{k + 1}. {heading or self.titles[k]}", anchor=self.anchor(key))
            else:
                (st.header if header else st.subheader)(heading or self.heading(k), anchor=self.anchor(key))
        return _new_stage(beside)

    def heading(self, key: Key) -> str:
        """A section's heading: "Step 4 · Queries, keys and values", "4. Queries, …"."""
        k = self.index(key)
        counted = self.counted or len(self.sections)
        if self.numbered:
            return f"{k + 1}. {self.titles[k]}"
        return f"{self.noun} {k + 1} · {self.titles[k]}" if k < counted else self.titles[k]

    def last_shown(self) -> bool:
        """Whether the page's end is on the screen: every section, or the last one alone."""
        return not paged() or self.current == len(self.sections) - 1

    def go(self, key: Key) -> None:
        """Show section ``key`` next (a button's callback)."""
        k = self.index(key)
        st.session_state[self.step_key] = self.names[k] if self.by_name else k + 1

    def _move(self, by: int) -> None:
        self.go(min(max(self.current + by, 0), len(self.sections) - 1))

    def nav(self) -> None:
        """Back, the progress line and Next (presenter mode, or one step at a time; a student
        following a class gets the line alone)."""
        if not paged():
            return
        n, k = len(self.sections), self.current
        st.session_state[SECTION_KEY] = self.progress(k).replace("**", "")
        if following():
            st.markdown(self.progress(k))
            return
        if self.by_name:
            # Kept as a plain value: where the state belongs to a widget the page draws only
            # outside presenter mode (the View radio), Streamlit drops it at the end of a run
            # without that widget, and Back or Next would then start from the first section.
            st.session_state[self.step_key] = self.names[k]
        back, line, nxt = st.container(key=NAV_KEY).columns([1, 6, 1], vertical_alignment="center")
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
        # In presenter mode the progress line is the section's one heading (section() draws none).
        line.markdown(f"## {self.progress(k)}" if on() else self.progress(k))

    def progress(self, key: Key) -> str:
        """The progress line for a section, e.g. "**Step 4 of 9** · Queries, keys and values"."""
        k = self.index(key)
        counted = self.counted or len(self.sections)
        if k < counted:
            return f"**{self.noun} {k + 1} of {counted}** · {self.titles[k]}"
        return f"**{self.titles[k]}** (after {self.noun.lower()} {counted})"
