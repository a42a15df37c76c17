"""The end of a lesson page: two or three lines on what it showed (each page computes them
from its own results) and a link to the next lesson in the teaching order.

ORDER is app.py's list of pages (lessons/home.py's "Start here" follows it too);
tests/test_footer.py checks the three agree.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui import present
from ui.present import Deck

ORDER = (  # the teaching order: app.py's PAGES
    "lessons/home.py",
    "lessons/step_by_step.py",
    "lessons/softmax_lab.py",
    "lessons/multi_head.py",
    "lessons/masks_cost.py",
    "lessons/cross_attention.py",
    "lessons/in_a_transformer.py",
    "lessons/real_model.py",
    "lessons/decoder.py",
    "lessons/articles.py",
)


def next_page(script: str) -> str | None:
    """The lesson after ``script`` (a path or file name) in ORDER; None after the last one."""
    names = [Path(s).name for s in ORDER]
    k = names.index(Path(script).name)
    return ORDER[k + 1] if k + 1 < len(ORDER) else None


def _link(script: str, label: str | None = None) -> None:
    """st.page_link to a page of the app. A page script run on its own (a test's AppTest of one
    page) has no navigation to link into: it names the page instead."""
    try:
        st.page_link(script, label=label, icon=":material/arrow_forward:")  # the page's title unless a label is given
    except StreamlitPageNotFoundError:
        st.markdown(f"{label or 'Next'}: {Path(script).stem.replace('_', ' ')}")


def footer(script: str, lines: list[str], deck: Deck | None = None) -> None:
    """What the page showed, then the next lesson. ``script`` is the page's ``__file__``;
    ``lines`` are two or three short sentences, every number in them computed by the page.
    With a ``deck`` shown one section at a time, the footer waits for the last section."""
    if deck is not None and present.paged() and deck.current != len(deck.titles) - 1:
        return
    st.divider()
    if lines:
        st.subheader("What this page showed", anchor="what-this-page-showed")
        st.markdown("\n".join(f"- {line}" for line in lines))
    after = next_page(script)
    with st.container(border=True, horizontal=True, vertical_alignment="center"):
        if after is None:
            st.markdown("**That is the end of the path.**")
            _link(ORDER[0], label="Home: type a sentence and start again")
        else:
            st.markdown("**Next lesson**")
            _link(after)
