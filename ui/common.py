"""Widgets and text helpers shared by several pages (Streamlit only, no maths)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import attn_core as ac
from attn_core.tables import number as num  # noqa: F401  (the pages' number format)
from ui import present
from ui.markup import (
    md_escape,  # also the pages' escape, from here
    token_list,
)
from ui.present import Stage

MAX_TOKENS = 64  # NumPy pages: the token limit, enforced before any heavy work
MAX_CHARS = 2000  # what a text box accepts
PICK_PLACEHOLDER = "Choose an answer"  # a predict-first question's pick, before the student makes one

PRESETS = (
    "The cat sat on the mat.",
    "The animal didn't cross the street because it was too tired.",
    "The animal didn't cross the street because it was congested.",
    "The hiking trail led us through bear country.",
    "The cat, which was black, sat on the mat.",
    "the cat sat on the mat",  # an exact repeat: "the" twice, in the same case
)

_DECORATED: dict[object, Callable] = {}  # code object -> its cached function


def once_per_server(decorator: Callable[[Callable], Callable]) -> Callable[[Callable], Callable]:
    """``decorator`` (an ``st.cache_data(...)`` or ``st.cache_resource(...)``) applied to a
    page's function once per server process instead of on every run of the page.

    A page script runs from the top on every rerun, so the decorators in it run every time,
    and each reads and tokenizes its function's source to name the function's cache: about
    0.4 ms a function, 5 % of a Step by step rerun. Streamlit compiles a page once, so the
    function's code is the same object on every run (and a new one after an edit): the
    function decorated on the first run with that code is kept and returned. As with any
    cached function, what it returns must depend on its arguments only.
    """

    def apply(func: Callable) -> Callable:
        known = _DECORATED.get(func.__code__)
        if known is None:
            known = _DECORATED.setdefault(func.__code__, decorator(func))
        return known

    return apply


def sentence_input(
    key: str,
    label: str = "Sentence",
    presets: tuple[str, ...] = PRESETS,
) -> str:
    """A preset picker plus a free text box that share one value; returns the text.

    ``key`` is the text box's key; the page's PageState gives it its starting value (from
    the URL or the default) before this is called. A student following a teacher who presents
    reads the teacher's sentence instead: the teacher's screen decides it, and the first screen of
    a phone goes to the step."""
    if present.following():
        text = st.session_state.get(key) or ""
        st.caption(f"{label}: {md_escape(text)}" if text.strip() else f"{label}: (empty)")
        return text
    preset_key = f"{key}_preset"

    def _use_preset() -> None:
        if st.session_state.get(preset_key):
            st.session_state[key] = st.session_state[preset_key]

    st.selectbox(
        f"Examples for “{label}”" if label != "Sentence" else "Example sentences",
        presets,
        index=None,
        placeholder="Pick an example…",
        key=preset_key,
        on_change=_use_preset,
    )
    return st.text_input(label, key=key, max_chars=MAX_CHARS) or ""


def checked_tokens(text: str, max_tokens: int = MAX_TOKENS, *, what: str = "sentence") -> list[str] | None:
    """Tokenize; on blank text show an info message and return None, on long text say that
    it was cut. The page stops only after drawing all its widgets, so an empty box never
    hides another input."""
    tokens = ac.tokenize(text[: MAX_CHARS * 4], max_tokens=max_tokens + 1)
    if not tokens:
        if present.following():  # no box on a follower's page: the teacher's is empty
            st.info(f"Your teacher's {what} is empty; this part of the page waits for your teacher to type one.")
        else:
            st.info(f"Type a {what} above (it is empty), or pick an example, to see attention at work.")
        return None
    if len(tokens) > max_tokens:
        st.warning(f"The {what} has more than {max_tokens} tokens; only the first {max_tokens} are used.")
        tokens = tokens[:max_tokens]
    return tokens


def show_tokens(tokens: Sequence[str], into: Stage | DeltaGenerator | None = None) -> None:
    """The token list as literal text, numbered, so repeated words are visibly separate
    (ui.markup.token_list). Markdown, which every page loads anyway: st.code would make the
    browser fetch a 1.5 MB syntax highlighter for plain text. ``into``: a Stage or a container
    (None: where the page is)."""
    target = into.side if isinstance(into, Stage) else (into or st)
    target.markdown(token_list(tokens))


def fmt_vec(values: np.ndarray, digits: int = 2) -> str:
    """A short LaTeX row vector of numbers (numbers only, never user text)."""
    return r"\begin{bmatrix}" + " & ".join(f"{v:.{digits}f}" for v in values) + r"\end{bmatrix}"
