"""The app's own scripts in the page, through public Streamlit: ``st.html`` with
``unsafe_allow_javascript=True`` (no iframe, no component runtime).

Streamlit's ``st.components.v2`` would do the same, but every v2 component makes the browser load
its component runtime and, with it, Apache Arrow's serialization (about 200 kB before
compression, on every page's first load: docs/performance.md). These scripts keep no state on
the server, so they need none of that.

Streamlit runs such a script once each time the element is mounted (a new page load; a run
that leaves the element as it was does not run it again), so each script guards itself
against a second start. Streamlit sanitizes the HTML with DOMPurify first, which drops a
script whose text holds ``<`` followed by a letter, ``/`` or ``!`` (markup-like text):
``script`` refuses such a script here, where it is easy to see, instead of it silently not
running in the browser.
"""

from __future__ import annotations

import json
import re

import streamlit as st

_MARKUP = re.compile(r"<[/\w!]")


class ScriptError(ValueError):
    """A script that the browser would not run (see the module docstring)."""


def script_tag(js: str) -> str:
    """``js`` as a ``<script>`` element that Streamlit's sanitizer keeps."""
    found = _MARKUP.search(js)
    if found:
        line = js.count("\n", 0, found.start()) + 1
        raise ScriptError(
            f"line {line} holds {found.group(0)!r}: DOMPurify would drop the script; build markup with DOM calls"
        )
    return f"<script>{js}</script>"


def data_json(value) -> str:
    """``value`` as JSON that is safe inside a script (no ``<`` at all)."""
    return json.dumps(value).replace("<", "\\u003c")


def run(js: str, key: str, html: str = "") -> None:
    """Run ``js`` in the page, after ``html`` (markup and styles it works on), in a container
    with class ``st-key-<key>`` where the caller writes. Without ``html`` the container is hidden
    (assets/layout.css), so a script takes no room on the page."""
    with st.container(key=key):
        st.html(html + script_tag(js), unsafe_allow_javascript=True)
