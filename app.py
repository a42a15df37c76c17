"""Self-Attention Explorer: page config, presenter mode, class mode, and the navigation built
from the one page list (lessons/pages.py). Nothing heavy is imported here.

The page scripts live in lessons/, not pages/: a folder named pages/ beside the entry script
switches Streamlit into its legacy multipage mode until st.navigation has run once, and a
shared link opened as a fresh server's first visit then shows "Page not found".
"""

from pathlib import Path

import streamlit as st

from lessons import pages
from ui import class_mode, install_check, present, theme
from ui.charts import mount_chart_tools
from ui.links import copy_link
from ui.turns import one_at_a_time

HERE = Path(__file__).parent
# A local file: a Material icon here would make the browser fetch it from fonts.gstatic.com.
ICON = HERE / "assets" / "favicon.png"

# One st.Page per entry of the page list, in teaching order.
PAGES = [
    st.Page(p.script, title=p.title, icon=p.icon, **({"url_path": p.url_path} if p.url_path else {"default": True}))
    for p in pages.PAGES
]

install_check.warn_once()  # in the log, once per server: a CUDA build of torch on a machine without a GPU
presenting = present.start()
st.set_page_config(
    page_title="Self-Attention Explorer",
    page_icon=str(ICON),
    layout="wide",
    initial_sidebar_state="collapsed" if presenting else "auto",
)
st.html(HERE / "assets" / "charts.css")  # chart text in the theme's colour
st.html(HERE / "assets" / "a11y.css")  # contrast and focus fixes (WCAG 2.1 AA)
st.html(HERE / "assets" / "layout.css")  # less empty space above the title
mount_chart_tools()


def sidebar_top() -> None:
    """The top of the sidebar: the presenter switch, where the theme switch is, and the share
    button. A student following a teacher who presents gets the theme's note alone: the
    teacher's screen decides what theirs shows (ui.class_mode.follow)."""
    following = present.following()
    if not following:
        present.toggle()
    theme.offer()
    if not following:
        copy_link()


page = st.navigation(PAGES)
top = st.sidebar.container()  # filled after the page's run, which knows whether this student follows
# The page's own container (class st-key-page): the app's stylesheets select what the page shows
# through it, not through Streamlit's inner structure (assets/present.css).
try:
    with one_at_a_time(), st.container(key="page"):  # a burst of reruns (a class at once) finishes in turn
        class_mode.run_page(page, PAGES)  # page.run(), and for a session in a class the class around it
except Exception:
    with top:
        sidebar_top()  # the page failed: its error shows, and the sidebar's switches stay
    raise
with top:
    sidebar_top()
