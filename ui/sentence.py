"""One sentence for the whole app: the sentence a student last typed or picked on any page
carries to every other page that takes a sentence.

How a page's sentence starts, on its first run in a visit (ui.state.PageState.start, for
a Param with ``shared=True``):

1. a link that names the sentence (``?text=``, ``?a=``, ``?source=``) opens exactly that,
   and that sentence becomes the app's sentence, so the next page starts on it too;
2. otherwise the app's sentence, when the student has typed or picked one;
3. otherwise the page's own example.

A sentence the student types or picks becomes the app's sentence (PageState.sync); blank
text does not. Every page writes its sentence into the address bar like any setting (left
out when it is the page's own example), so a link is still exactly what is on the screen.
The app's sentence lives in the browser session only: a new tab starts on the examples.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

KEY = "app_sentence"  # session_state: the app's sentence, or absent


def current() -> str | None:
    """The app's sentence, or None before the student has typed or picked one."""
    return st.session_state.get(KEY)


def _seen(key: str) -> str:
    return f"{key}__seen"  # the value the page started with, or last published


def _carried(key: str) -> str:
    return f"{key}__carried"  # True while the page shows a sentence carried from another page


def start(key: str, parse, raw: str | None, default: Any) -> Any:
    """The starting value of the sentence widget ``key`` (rules 1 to 3 above); ``parse``
    turns a raw text into a valid value (Param.parse), ``raw`` is the link's value or None."""
    carried = False
    if raw is not None:
        value = parse(raw)
        if str(value).strip():
            st.session_state[KEY] = value
    elif current() is not None and parse(current()) != default:
        value, carried = parse(current()), True
    else:
        value = default
    st.session_state[_seen(key)] = value
    st.session_state[_carried(key)] = carried
    return value


def publish(key: str, value: Any) -> None:
    """After the page's widgets ran: a sentence the student changed becomes the app's."""
    if value == st.session_state.get(_seen(key)):
        return
    st.session_state[_seen(key)] = value
    st.session_state[_carried(key)] = False
    if str(value).strip():
        st.session_state[KEY] = value


def set_quietly(key: str, value: Any) -> None:
    """Put ``value`` in the box ``key`` (in a callback) without making it the app's sentence:
    the decoder's random sequence belongs to that page only."""
    st.session_state[key] = value
    st.session_state[_seen(key)] = value
    st.session_state[_carried(key)] = False


def carried(key: str) -> bool:
    """Whether the box ``key`` shows, unchanged, a sentence carried from another page (so the
    page can say what it did with it)."""
    return bool(st.session_state.get(_carried(key), False)) and st.session_state.get(key) == st.session_state.get(
        _seen(key)
    )


def note(key: str, text: str) -> None:
    """``text`` as a caption while the box ``key`` shows a sentence carried from another page.
    Its place is kept when it is not shown, so nothing after it moves (the browser would build
    every later element again, charts included, and lose the keyboard focus)."""
    slot = st.empty()
    if carried(key):
        slot.caption(text)
