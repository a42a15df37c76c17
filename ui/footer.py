"""The end of a lesson page: two or three lines on what it showed (each page computes them
from its own results) and a link to the next lesson in the teaching order.

The order is the student's path in the one page list (lessons/pages.py), which Home's
"Start here" follows too.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from lessons import pages
from ui.present import Deck


def _link(page: pages.PageInfo, label: str | None = None) -> None:
    """st.page_link to a page of the app. A page script run on its own (a test's AppTest of one
    page) has no navigation to link into: it names the page instead."""
    try:
        st.page_link(page.script, label=label, icon=":material/arrow_forward:")  # its title unless a label is given
    except StreamlitPageNotFoundError:
        st.markdown(f"{label or 'Next'}: {page.title}")


def footer(script: str, lines: list[str], deck: Deck | None = None) -> None:
    """What the page showed, then the next lesson. ``script`` is the page's ``__file__``;
    ``lines`` are two or three short sentences, every number in them computed by the page.
    With a ``deck`` shown one section at a time, the footer waits for the last section."""
    if deck is not None and not deck.last_shown():
        return
    st.divider()
    if lines:
        st.subheader("What this page showed", anchor="what-this-page-showed")
        st.markdown("\n".join(f"- {line}" for line in lines))
    after = pages.next_lesson(script)
    with st.container(border=True, horizontal=True, vertical_alignment="center"):
        if after is None:
            st.markdown("**That is the end of the path.**")
            _link(pages.HOME, label="Home: type a sentence and start again")
        else:
            st.markdown("**Next lesson**")
            _link(after)
