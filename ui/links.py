"""The "Copy link" control: every page keeps its settings in the URL (ui.state), so the
address bar is a link to exactly what is on the screen; this button copies it."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_HTML = """
<div class="copy-link">
  <button type="button">Copy link to this view</button>
  <input type="text" readonly hidden aria-label="Link to this view">
  <span role="status" aria-live="polite"></span>
</div>
"""
_CSS = """
.copy-link { display: flex; flex-direction: column; gap: 0.4rem; font-family: var(--st-font); }
.copy-link button {
  font: inherit; font-size: 1rem; padding: 0.4rem 0.75rem; cursor: pointer; text-align: left;
  color: var(--st-text-color); background: var(--st-secondary-background-color);
  border: 1px solid var(--st-border-color, rgba(128, 128, 128, 0.6)); border-radius: 0.5rem;
}
.copy-link button:hover { border-color: var(--st-primary-color); }
.copy-link button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 2px; }
.copy-link input { font: inherit; font-size: 0.9rem; padding: 0.3rem; color: var(--st-text-color);
  background: var(--st-background-color); border: 1px solid var(--st-border-color, #888); }
.copy-link span { font-size: 0.9rem; color: var(--st-text-color); }
"""
_JS = (Path(__file__).resolve().parents[1] / "assets" / "copy_link.js").read_text(encoding="utf-8")
_COPY_LINK = st.components.v2.component("copy_link", html=_HTML, css=_CSS, js=_JS)


def copy_link() -> None:
    """The button, in the sidebar of every page (app.py)."""
    _COPY_LINK(key="copy_link")
