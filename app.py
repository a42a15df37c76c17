"""Self-Attention Explorer: page config, presenter mode, class mode and the list of pages.
Nothing heavy is imported here.

The page scripts live in lessons/, not pages/: a folder named pages/ beside the entry script
switches Streamlit into its legacy multipage mode until st.navigation has run once, and a
shared link opened as a fresh server's first visit then shows "Page not found".
"""

from pathlib import Path

import streamlit as st

from ui import class_mode, present, theme
from ui.charts import mount_chart_tools
from ui.links import copy_link
from ui.turns import one_at_a_time

HERE = Path(__file__).parent
# A local file: a Material icon here would make the browser fetch it from fonts.gstatic.com.
ICON = HERE / "assets" / "favicon.png"

# In teaching order (lessons/home.py's "Start here" follows it).
PAGES = [
    st.Page("lessons/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("lessons/step_by_step.py", title="Step by step", icon=":material/stairs:", url_path="step-by-step"),
    st.Page(
        "lessons/softmax_lab.py", title="Softmax and scaling lab", icon=":material/science:", url_path="softmax-lab"
    ),
    st.Page("lessons/multi_head.py", title="Multi-head", icon=":material/view_column:", url_path="multi-head"),
    st.Page("lessons/masks_cost.py", title="Masks and cost", icon=":material/grid_on:", url_path="masks-and-cost"),
    st.Page(
        "lessons/cross_attention.py", title="Cross-attention", icon=":material/swap_horiz:", url_path="cross-attention"
    ),
    st.Page(
        "lessons/in_a_transformer.py",
        title="Attention in a transformer",
        icon=":material/account_tree:",
        url_path="attention-in-a-transformer",
    ),
    st.Page("lessons/real_model.py", title="Real model", icon=":material/memory:", url_path="real-model"),
    st.Page("lessons/decoder.py", title="Decoder (causal)", icon=":material/east:", url_path="decoder"),
    st.Page(
        "lessons/articles.py", title="The articles, checked", icon=":material/fact_check:", url_path="articles-checked"
    ),
    st.Page("lessons/class_room.py", title="Class", icon=":material/groups:", url_path="class"),
]

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
page = st.navigation(PAGES)
present.toggle()
theme.switch()
with st.sidebar:
    copy_link()
with one_at_a_time():  # a burst of reruns (a class at once) finishes in turn: see ui/turns.py
    try:
        class_mode.run_page(page, PAGES)  # page.run(), and for a session in a class the class around it
    finally:
        present.close()  # a presenter section's layout ends with the run
