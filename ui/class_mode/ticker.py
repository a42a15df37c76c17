"""A fragment that reruns on a timer (``st.fragment(run_every=...)``) and stays safe across the
full runs around it. Class mode has three: a follower's loop, the teacher's live poll, and the
Class page's count of students following.

The browser sends a timed rerun ("tick") of such a fragment until it hears that a full run has
started. A tick sent just before that, or one that comes due just as a full run ends, can reach
the server after the full run's script has finished but before the server has sent all of it.
Streamlit (1.67) then starts a new script runner for the tick, and what the full run had not
sent yet (its last elements, its "finished") is dropped: in the browser test, about every
second run left a student's page empty under the banner. Two things keep a tick out of that
gap, both through public API:

- Streamlit ignores a tick for a fragment that the last full run did not draw, and a fragment
  is named by where it is drawn (two call sites of one fragment function are two fragments;
  the docs of ``st.fragment``'s ``key`` say so). So each time a session draws a ticking
  fragment it draws it one container deeper than the time before, or not, in turn: a late
  tick of the timer before names a fragment that is gone, and is dropped.
- A tick of the new timer comes ``seconds`` after the browser heard of the fragment. The
  follower's loop is drawn last in its run (ui.class_mode.follow), when nothing is left to
  send, and its first call, in the full run itself, can be left out (``now=False``).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

DRAWN = "class_ticks_drawn"  # name -> how many times this session has drawn that ticking fragment


def every(seconds: float, name: str, func: Callable[..., None], *args: object, now: bool = True) -> None:
    """Call ``func(*args)`` as a fragment every ``seconds`` from now until the next full run
    (and at once, in this run, unless ``now`` is False). ``name`` names this place in the
    session's runs: one name per ticking fragment that a run draws."""
    drawn = st.session_state.setdefault(DRAWN, {})
    turn = drawn[name] = drawn.get(name, 0) + 1
    first = [not now]  # a new list each time it is drawn: the full run's own call, when it is left out

    def tick(*tick_args: object) -> None:
        if first[0]:
            first[0] = False
            return
        func(*tick_args)

    fragment = st.fragment(run_every=seconds)(tick)
    with st.container():
        if turn % 2:
            with st.container():
                fragment(*args)
        else:
            fragment(*args)
