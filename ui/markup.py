"""Text made safe for Streamlit's markdown, as plain Python (no Streamlit), so the lessons'
words modules can escape the user's text where their sentences quote it."""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$:])")


def md_escape(text: str) -> str:
    """User text made literal for st.markdown/st.caption: no HTML, markdown or LaTeX."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False))
