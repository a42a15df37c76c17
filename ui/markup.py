"""Text made safe for Streamlit's markdown, as plain Python (no Streamlit), so the lessons'
words modules can escape the user's text where their sentences quote it."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$:])")


def md_escape(text: str) -> str:
    """User text made literal for st.markdown/st.caption: no HTML, markdown or LaTeX."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False))


# Between a token's number and the token, a space that never breaks a line; between tokens, an
# en space, wider than a word space, where a narrow screen breaks the list.
NUMBER_GAP = "\u00a0"
TOKEN_GAP = "\u2003"


def token_list(tokens: Sequence[str]) -> str:
    """The tokens as markdown, each literal after its number in bold: **0** The **1** cat ..., so
    repeated words stay visibly separate and a narrow screen wraps the list between tokens.
    Plain text in the page's own font: a code span would make the browser fetch a monospace
    font for this alone."""
    return TOKEN_GAP.join(f"**{i}**{NUMBER_GAP}{md_escape(token)}" for i, token in enumerate(tokens))
