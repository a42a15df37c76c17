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


def code_span(text: str) -> str:
    """``text`` as one markdown code span, shown literally whatever it holds.

    Inside a code span markdown, HTML and LaTeX mean nothing; only backticks could end it, so
    the fence is one backtick longer than the longest run of them in ``text``, and a space pads
    a text that starts or ends with a backtick (or with spaces at both ends: CommonMark strips
    one space from each end of a code span whose text has both)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    both_spaces = text.startswith(" ") and text.endswith(" ") and text.strip(" ") != ""
    pad = " " if text.startswith("`") or text.endswith("`") or both_spaces else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def token_list(tokens: Sequence[str]) -> str:
    """The tokens as markdown: ``0:The`` ``1:cat`` ..., each numbered in its own code span, so
    repeated words stay visibly separate and a narrow screen wraps the list between tokens."""
    return " ".join(code_span(f"{i}:{token}") for i, token in enumerate(tokens))
