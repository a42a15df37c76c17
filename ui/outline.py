"""A map of a long page: its sections listed in the sidebar (links that jump to them, or with
"One step at a time" on, buttons that show them one by one with Back and Next, as presenter
mode does), and after a setting changes, a note near the top that names the sections whose
numbers changed, with links to them.

Which sections changed is computed, not written down: the page hands over one fingerprint
per section, made from the engine's results that section shows, and the note compares them
with the page's previous run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Mapping, Sequence

import numpy as np
import streamlit as st

from ui import present
from ui.common import md_escape
from ui.present import Deck


def fingerprint(*values: object) -> bytes:
    """A short digest of ``values`` (arrays, frozen dataclasses of arrays, numbers, text): equal
    numbers give equal digests. Arrays are hashed from their memory, without a copy, so a page
    of 64-token matrices costs well under a millisecond."""
    digest = hashlib.blake2b(digest_size=16)
    _feed(digest, values)
    return digest.digest()


def _feed(digest, value: object) -> None:
    if isinstance(value, np.ndarray):
        digest.update(f"a{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).data)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(type(value).__qualname__.encode())
        for field in dataclasses.fields(value):
            _feed(digest, getattr(value, field.name))
    elif isinstance(value, list | tuple):
        digest.update(b"(")
        for item in value:
            _feed(digest, item)
        digest.update(b")")
    elif isinstance(value, dict):
        _feed(digest, tuple(value.items()))
    else:
        digest.update(pickle.dumps(value, protocol=5))


def steps(deck: Deck, where=None) -> None:
    """The sidebar's list of the page's sections, and the "One step at a time" switch.
    ``where``: a container in the sidebar (so the list can sit above the page's settings).
    Not for a student following a teacher who presents: the teacher picks the section."""
    if present.following():
        return
    box = where if where is not None else st.sidebar
    with box, st.expander("On this page", expanded=True, icon=":material/list:"):
        st.toggle(
            "One step at a time",
            key=present.STEPWISE,
            persist_state="session",
            help="Show one section at a time, with Back and Next, as presenter mode does.",
        )
        if present.paged():
            for k in range(len(deck.titles)):
                st.button(
                    deck.heading(k),
                    key=f"{deck.step_key}_go_{k}",
                    on_click=deck.go,
                    args=(k,),
                    type="primary" if k == deck.current else "tertiary",
                    width="stretch",
                )
        else:
            st.markdown("\n".join(f"- {_link(deck, k)}" for k in range(len(deck.titles))))


def _link(deck: Deck, index: int) -> str:
    return f"[{md_escape(deck.heading(index))}](#{deck.anchor(index)})"


def changed_sections(before: Sequence[bytes] | None, after: Sequence[bytes]) -> list[int]:
    """The sections whose fingerprints differ between two runs (none without an earlier run)."""
    if before is None or len(before) != len(after):
        return []
    return [k for k, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]


def _in_order(deck: Deck, prints: Mapping[str, bytes] | Sequence[bytes]) -> tuple[bytes, ...]:
    """One fingerprint per section of ``deck``, in its order: given by section name (every
    section named once), or (legacy) as a sequence."""
    if not isinstance(prints, Mapping):
        return tuple(prints)
    if set(prints) != set(deck.names):
        raise ValueError(f"one fingerprint per section: {sorted(deck.names)}, got {sorted(prints)}")
    return tuple(prints[name] for name in deck.names)


def changed_settings(before: Mapping[str, object] | None, after: Mapping[str, object]) -> list[str]:
    """What the student changed, as short phrases: "Causal mask (no looking ahead) on", "d_k 4 → 8"."""
    if before is None:
        return []
    out = []
    for label, value in after.items():
        old = before.get(label)
        if old == value:
            continue
        if isinstance(value, bool):
            out.append(f"{label} {'on' if value else 'off'}")
        elif isinstance(value, str) and (len(value) > 24 or len(str(old)) > 24):
            out.append(f"{label} changed")
        else:
            out.append(f"{label} {md_escape(str(old))} → {md_escape(str(value))}")
    return out


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def note_text(deck: Deck, sections: list[int], settings: list[str]) -> str:
    """The note: what changed, then links to the sections whose numbers changed."""
    what = (_join(settings) + ". ") if settings else ""
    if len(sections) == len(deck.titles):
        return what + "Every section changed."
    return what + "Changed: " + _join([_link(deck, k) for k in sections]) + "."


def changes(
    deck: Deck,
    prints: Mapping[str, bytes] | Sequence[bytes],
    settings: Mapping[str, object],
    *,
    fresh: bool,
    where=None,
) -> list[int]:
    """Near the top of the page (or in the container ``where``): after a setting changed,
    which sections it changed, with links to them. ``prints``: section name -> fingerprint of
    what that section shows, for every section of ``deck``; ``settings``: label -> value of the
    page's settings; ``fresh``: the page's first run in this visit (nothing to compare with).
    Returns the changed sections."""
    # The note's place is kept on every run, with or without a note: an element that comes and
    # goes would move every later one, and the browser would build them (and their charts)
    # again, losing the keyboard focus.
    # In presenter mode the note waits in the sidebar, beside the settings that made it: on the
    # projector a note coming and going above the stage would resize every chart (a second draw).
    box = st.sidebar.container() if present.on() else where if where is not None else st.container()
    key = f"{deck.step_key}__outline"
    prints = _in_order(deck, prints)
    before = None if fresh else st.session_state.get(key)
    st.session_state[key] = (prints, dict(settings))
    sections = changed_sections(before[0] if before else None, prints)
    if not sections:
        return []
    said = changed_settings(before[1], settings)
    with box:
        st.info(note_text(deck, sections, said), icon=":material/update:")
        if present.paged():  # a link cannot reach a hidden section: these buttons show it
            row = st.container(horizontal=True, gap="small")
            for k in sections:
                if k != deck.current:
                    row.button(
                        f"Go to {deck.heading(k)}", key=f"{deck.step_key}_changed_{k}", on_click=deck.go, args=(k,)
                    )
    return sections
