"""The "Copy link" control: every page keeps its settings in the URL (ui.state), so the
address bar is a link to exactly what is on the screen; this button copies it."""

from __future__ import annotations

from pathlib import Path

from ui import scripts

_HTML = """
<div class="copy-link">
  <button type="button">Copy link to this view</button>
  <input type="text" readonly hidden aria-label="Link to this view">
  <span role="status" aria-live="polite"></span>
</div>
"""
# In the page's own colours and font (the sidebar's), whatever the theme.
_CSS = """
.copy-link { display: flex; flex-direction: column; gap: 0.4rem; }
.copy-link button {
  font: inherit; font-size: 1rem; padding: 0.4rem 0.75rem; cursor: pointer; text-align: left;
  color: inherit; background: rgba(128, 128, 128, 0.12);
  border: 1px solid rgba(128, 128, 128, 0.6); border-radius: 0.5rem;
}
.copy-link button:hover { border-color: currentColor; }
.copy-link button:focus-visible { outline: 2px solid currentColor; outline-offset: 2px; }
.copy-link input { font: inherit; font-size: 0.9rem; padding: 0.3rem; color: inherit;
  background: transparent; border: 1px solid rgba(128, 128, 128, 0.6); }
.copy-link span { font-size: 0.9rem; }
"""
_JS = (Path(__file__).resolve().parents[1] / "assets" / "copy_link.js").read_text(encoding="utf-8")


def copy_link() -> None:
    """The button, in the sidebar of every page (app.py)."""
    scripts.run(_JS, key="copy_link", html=f"<style>{_CSS}</style>{_HTML}")
