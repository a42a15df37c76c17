"""Home: a live example first (type, and watch one attention head answer), then the path
through the pages in teaching order. NumPy only: this page never imports torch."""

import streamlit as st

import attn_core as ac
from attn_core import trained_decoder as dc
from attn_core import walkthrough as wt
from lessons import pages
from ui import common, present
from ui.charts import show_attention
from ui.common import MAX_CHARS, md_escape
from ui.state import PageState, Param

EXAMPLE = "The animal didn't cross the street because it was too tired."
MAX_TOKENS = 16  # the live example stays small enough to read every cell
PHRASE = "a big dog sat on my red hat"  # said twice for the trained head: every word in the decoder's vocabulary
STATE = PageState("home", (Param("text", EXAMPLE, "text", max_chars=MAX_CHARS, shared=True),))


@st.cache_resource(show_spinner=False)
def _trained() -> tuple[dc.TrainedHead | None, str | None]:
    """Our decoder's induction head beside a random head on PHRASE said twice (once per
    server: NumPy, a few milliseconds), or why the decoder could not be loaded."""
    try:
        return dc.trained_vs_random(dc.load_decoder(), f"{PHRASE} {PHRASE}"), None
    except dc.DecoderLoadError as err:
        return None, str(err)


def training_sentence(head: dc.TrainedHead) -> str:
    """What training changes, in the numbers of the two heads on the trained chart's words."""
    return (
        f"**What training changes.** Said twice, “{PHRASE}” goes through the head our small decoder learned "
        f"(layer {head.layer + 1}, head {head.head}): once the words repeat, each one puts on average "
        f"**{head.trained_score:.2f}** of its attention on the word that followed its earlier copy (the bright "
        f"stripe), and the decoder guesses {head.accuracy_repeat:.0%} of the repeated words right; a head with "
        f"random weights puts {head.random_score:.2f} there."
    )


@st.cache_data(max_entries=256, show_spinner=False)
def _lesson(tokens: tuple[str, ...]) -> wt.Lesson:
    """The page's one attn_core call: a seeded random head on the typed sentence."""
    return wt.lesson(wt.seeded_source(tokens, 16, 4, seed=0, positional=True))


STATE.start()
st.title("Self-Attention Explorer")
present.intro(
    "Self-attention lets every token in a sentence look at every other token and decide how much of each "
    "one to mix into its own meaning. Type below and watch one attention head decide: row *i* of the chart "
    "says how much token *i* takes from each token, and every row adds up to 1."
)
text = st.text_input(
    "Try a sentence", key=STATE.key("text"), max_chars=MAX_CHARS, live=True, help="The chart follows as you type."
)
STATE.sync()
tokens = tuple(ac.tokenize(text, max_tokens=MAX_TOKENS + 1))
trained, problem = _trained()
stage = present.stage(beside=False)  # on a projector the two charts fill the screen, the rest below them
before, after = stage.chart_columns(2)
with before.charts:
    if not tokens:
        st.info("Type a sentence above (it is empty) to see attention at work.")
    else:
        if len(tokens) > MAX_TOKENS:
            st.caption(
                f"Only the first {MAX_TOKENS} tokens are shown here; Step by step takes up to {common.MAX_TOKENS}."
            )
            tokens = tokens[:MAX_TOKENS]
        lesson = _lesson(tokens)
        title = "Before training: one head with random weights"
        show_attention("home_weights", lesson.steps.weights, tokens, title=title, into=before)
with after.charts:
    if trained is None:
        st.info(f"The trained head cannot be shown: {md_escape(problem or 'unknown error')}")
    else:
        title = f"After training: layer {trained.layer + 1}, head {trained.head} of our decoder"
        show_attention("home_trained", trained.trained, trained.words, title=title, into=after)
if trained is not None:
    stage.side.markdown(training_sentence(trained))
stage.side.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

st.header("Start here")
st.markdown("The pages in teaching order. Each one computes every number it shows, live.")
for number, info in enumerate(pages.LESSONS[1:], start=1):
    left, right = st.columns([1, 3], vertical_alignment="center")
    left.page_link(info.script)  # the page's own title and icon, a real link: Tab reaches it
    right.markdown(f"**{number}.** {info.blurb}")
for info in pages.PAGES:  # the teacher's tools come after the path, without a number
    if not info.on_path:
        left, right = st.columns([1, 3], vertical_alignment="center")
        left.page_link(info.script)
        right.markdown(info.blurb)
st.caption(
    "Every number on these pages is computed by the attn_core Python package, which you can also import in "
    "a notebook. Presenter mode (in the sidebar) sizes everything for a projector."
)
