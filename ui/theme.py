"""The theme switch in the sidebar: Auto (the computer's setting), Light or Dark, kept while
the student moves between pages and in links (``?theme=dark``).

app.py hides Streamlit's own settings menu (``toolbarMode = "minimal"``), so the theme had
no switch a teacher could find. Streamlit 1.67 has no Python call to set the theme; the
small script assets/theme.js applies the choice in the browser, through the same call the
settings menu makes. A server started with a theme of its own (``--theme.base``, or
``[theme]`` in config.toml) offers no other theme, and no switch is drawn.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.state import Param, first_value

KEY = "theme"
NAMES = {"auto": "Auto", "light": "Light", "dark": "Dark"}
PARAM = Param(KEY, "auto", "choice", choices=tuple(NAMES))
_JS = (Path(__file__).resolve().parents[1] / "assets" / "theme.js").read_text(encoding="utf-8")
_APPLY = st.components.v2.component("theme_switch", js=_JS)


def server_theme() -> str | None:
    """The theme the server was started with ("light" or "dark"), or None when the viewer chooses."""
    return st.get_option("theme.base")


def switch() -> None:
    """The switch, in the sidebar of every page (app.py): read ``?theme=`` on the session's
    first run, draw the choice, keep it in the address bar and apply it in the browser."""
    if server_theme() is not None:
        return
    if KEY not in st.session_state:
        st.session_state[KEY] = PARAM.parse(first_value(st.query_params.get_all(KEY)))
    choice = st.sidebar.radio(
        "Theme",
        tuple(NAMES),
        format_func=NAMES.get,
        key=KEY,
        horizontal=True,
        help="Auto follows your computer's setting. Links keep the choice: ?theme=dark",
    )
    wanted = PARAM.encode(choice)
    if wanted is None and KEY in st.query_params:
        del st.query_params[KEY]
    elif wanted is not None and st.query_params.get(KEY) != wanted:
        st.query_params[KEY] = wanted
    with st.sidebar:
        _APPLY(key="theme_apply", data={"theme": choice})
