"""The theme: Streamlit's own switch, in the app menu (⋮ at the top right: System, Light, Dark).

``client.toolbarMode = "viewer"`` (.streamlit/config.toml) shows that menu without the
developer's items. Streamlit applies the choice at once, in the app and in every chart (their
text takes the page's colour, assets/charts.css), and keeps it in the browser; the compat
module copies it to every page of the app, so a reload on another page keeps it too. A link
carries no theme: nothing public lets the app set the viewer's theme, so a shared link opens
in the theme its reader chose. A server started with a theme of its own (``--theme.base``,
or ``[theme]`` in config.toml) offers no other theme, and nothing here is drawn.
"""

from __future__ import annotations

import streamlit as st

from lessons import pages
from ui import streamlit_internals

KEY = "theme"  # the URL parameter older links carry (the app's own switch set it): dropped
WHERE = "Light or dark: the ⋮ menu at the top right."


def server_theme() -> str | None:
    """The theme the server was started with ("light" or "dark"), or None when the viewer chooses."""
    return st.get_option("theme.base")


def offer() -> None:
    """At the top of every page's sidebar (app.py draws it there): where the theme switch is,
    and the choice kept on every page. An older link's ``?theme=`` is taken out of the address
    bar."""
    if KEY in st.query_params:
        del st.query_params[KEY]
    if server_theme() is not None:
        return
    st.caption(WHERE)
    streamlit_internals.remember_theme_on_every_page([p.url_path for p in pages.PAGES])
