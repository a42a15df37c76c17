"""Home: a live example first (type, and watch one attention head answer), what training
changes (one phrase through a random head and a trained one), then the path through the pages
in teaching order. NumPy only: this page never imports torch."""

import streamlit as st

from lessons import pages
from lessons.home import words
from ui import common, present
from ui.charts import show_attention
from ui.common import MAX_CHARS, md_escape, once_per_server
from ui.state import PageState, Param

STATE = PageState("home", (Param("text", words.EXAMPLE, "text", max_chars=MAX_CHARS, shared=True),))
live_lesson = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.live_lesson)
trained = once_per_server(st.cache_resource(show_spinner=False))(words.trained)  # once per server

STATE.start()
st.title("Self-Attention Explorer")
present.intro(words.INTRO)
text = st.text_input(
    "Try a sentence", key=STATE.key("text"), max_chars=MAX_CHARS, live=True, help="The chart follows as you type."
)
STATE.sync()
tokens = words.tokens_of(text)
head, problem = trained()

# On a projector the three charts fill the screen in one row, the text below them; on a screen the
# live example and its text side by side, then the random and the trained head side by side.
stage = present.stage(beside=False)
if stage.fill:
    live, before, after = stage.chart_columns(3)
    notes = stage.side
else:
    live, beside = stage.chart_columns(2)
    before, after = stage.chart_columns(2)
    notes = beside.side
if not tokens:
    live.charts.info("Type a sentence above (it is empty) to see attention at work.")
else:
    if len(tokens) > words.MAX_TOKENS:
        live.charts.caption(
            f"Only the first {words.MAX_TOKENS} tokens are shown here; Step by step takes up to {common.MAX_TOKENS}."
        )
        tokens = tokens[: words.MAX_TOKENS]
    weights = live_lesson(tokens).steps.weights
    show_attention("home_weights", weights, tokens, title=words.LIVE_TITLE, into=live)
    notes.markdown(words.live_text(weights, tokens))
if head is None:
    notes.info(f"The trained head cannot be shown: {md_escape(problem or 'unknown error')}")
else:
    notes.markdown(words.training_text(head))
    show_attention("home_random", head.random, head.words, title=words.RANDOM_TITLE, into=before)
    show_attention("home_trained", head.trained, head.words, title=words.trained_title(head), into=after)
notes.latex(words.FORMULA)

path = stage.side  # on a projector below the charts, with the text (the charts take the first screen)
path.header("Start here")
path.markdown("The pages in teaching order. Each one computes every number it shows, live.")
for number, info in enumerate(pages.LESSONS[1:], start=1):
    left, right = path.columns([1, 3], vertical_alignment="center")
    left.page_link(info.script)  # the page's own title and icon, a real link: Tab reaches it
    right.markdown(f"**{number}.** {info.blurb}")
for info in pages.PAGES:  # the teacher's tools come after the path, without a number
    if not info.on_path:
        left, right = path.columns([1, 3], vertical_alignment="center")
        left.page_link(info.script)
        right.markdown(info.blurb)
path.caption(
    "Every number on these pages is computed by the attn_core Python package, which you can also import in "
    "a notebook. Presenter mode (in the sidebar) sizes everything for a projector."
)
