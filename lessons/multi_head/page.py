"""Multi-head attention: H heads on the same sentence, concatenated and mixed by W_O.
The sentences are lessons/multi_head/words.py's."""

import contextlib

import streamlit as st

from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from attn_core.figures.lab import concat_labels
from attn_core.numbering import head_number
from lessons.multi_head import words
from ui import outline, present, quiz
from ui.charts import show_attention, show_heatmap
from ui.common import PRESETS, checked_tokens, once_per_server, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

HEAD_COLUMNS = 2
PRESENTED_COLUMNS = 4  # on a projector the heads stand four abreast, the width of the screen
STATE = PageState(
    "mh",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("heads", 4, "int", lo=1, hi=8),
        Param("d_model", 16, "choice", choices=words.D_MODELS),
        Param("d_k", 4, "choice", choices=words.D_KS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("causal", False, "bool"),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
    ),
)
K = STATE.key
lesson_of = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.lesson)


def show_heads(stage: present.Stage, lesson: lab_results.MultiHeadLesson, causal: bool) -> None:
    """Section 1: every head's weights, rows of HEAD_COLUMNS (four abreast on a projector)."""
    stage.side.markdown(words.heads_text(lesson, causal))
    stage.side.markdown(words.usual_d_k_text(lesson))
    stage.formula(words.heads_latex(lesson))
    n_heads, tokens = lesson.n_heads, list(lesson.tokens)
    per_row = PRESENTED_COLUMNS if present.on() else HEAD_COLUMNS
    for start in range(0, n_heads, per_row):
        columns = stage.chart_columns(per_row)
        last = min(start + per_row, n_heads) - 1
        for h in range(start, last + 1):
            weights = lesson.steps.heads[h].weights
            show_attention(  # on a projector only the last of a row has the colour bar (all share 0 to 1)
                f"mh_head_{head_number(h)}",
                weights,
                tokens,
                title=words.head_title(h),
                show_scale=not present.on() or h == last,
                into=columns[h - start],
            )


def show_matrices(stage: present.Stage, lesson: lab_results.MultiHeadLesson) -> None:
    """Section 2: the concatenation, W_O and the output (all three in a row on a projector)."""
    mh, tokens, n_heads, d_model = lesson.steps, list(lesson.tokens), lesson.n_heads, lesson.d_model
    stage.side.markdown(words.concat_text(lesson))
    stage.side.markdown(words.other_v_text(lesson))
    stage.formula(words.concat_latex(lesson))
    # On a projector the three in a row; else the concatenation across the page, the others under it.
    concat, w_o, output = stage.chart_columns(3) if present.on() else (stage, None, None)
    heads = concat_labels(n_heads, lesson.d_v)
    concat_title, w_o_title, output_title = words.matrix_titles(lesson)
    show_heatmap(
        "mh_concat",
        mh.concat,
        rows=tokens,
        cols=heads,
        title=concat_title,
        row_title="token",
        col_title="head.dimension",
        value_name="value",
        width_px=FULL_WIDTH_PX,
        into=concat,
    )
    if w_o is None:
        w_o, output = stage.chart_columns(2)
    show_heatmap(
        "mh_w_o",
        mh.w_o,
        rows=heads,
        cols=dim_labels(d_model),
        title=w_o_title,
        row_title="head.dimension",
        col_title="output dimension",
        value_name="w_o",
        into=w_o,
    )
    show_heatmap(
        "mh_output",
        mh.output,
        rows=tokens,
        cols=dim_labels(d_model),
        title=output_title,
        row_title="token",
        col_title="output dimension",
        value_name="output",
        into=output,
    )
    stage.side.caption("Blue is negative, red is positive, white is 0.")


def sections(tokens: list[str], text: str, n_heads: int, d_model: int, d_k: int, seed: int, causal: bool) -> None:
    """Everything under the settings, once there is a sentence."""
    lesson = lesson_of(tuple(tokens), d_model, n_heads, d_k, seed, causal)
    previous = words.previous_question(lesson) if predict else None
    concat = words.concat_question(lesson) if predict else None
    deck.nav()
    outline.changes(
        deck,
        {
            "heads": outline.fingerprint(lesson.steps.heads),
            "concat": outline.fingerprint(lesson.steps.concat, lesson.steps.w_o, lesson.steps.output),
        },
        {
            "Sentence": text,
            "Heads H": n_heads,
            "d_model": d_model,
            "d_k = d_v": d_k,
            "Seed": seed,
            "Causal mask": causal,
        },
        fresh=fresh,
    )
    if stage := deck.section("heads", beside=False, heading=words.heads_heading(n_heads)):
        show_heads(stage, lesson, causal)
        if previous is not None:
            with stage.side.container(border=True):
                quiz.ask(previous)
                if not deck.shows("concat"):  # the score goes under the page's last question
                    quiz.score_line()
        elif predict:
            stage.side.caption(words.NO_PREVIOUS_QUESTION)
    shapes_hidden = concat is not None and not quiz.revealed(concat)
    if stage := deck.section("concat", beside=False):
        if concat is not None:
            with stage.side.container(border=True):
                shapes_hidden = not quiz.ask(concat)
                quiz.score_line()
        if shapes_hidden:
            stage.side.info(words.HIDDEN)
        else:
            show_matrices(stage, lesson)
    with stage.side if stage else contextlib.nullcontext():  # on a projector: beside or under the last section
        footer(__file__, words.what_it_showed(lesson, shapes_hidden), deck)


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(words.SECTIONS, step_key=K("step"), numbered=True)
st.title("Multi-head attention")
present.intro(words.INTRO)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"))
outline.steps(deck)
with present.inputs():
    tokens = checked_tokens(text)
    if tokens:
        show_tokens(tokens)
c1, c2, c3, c4, c5 = present.input_columns(5)
n_heads = c1.slider("Heads H", min_value=1, max_value=8, key=K("heads"))
d_model = c2.select_slider("d_model", options=words.D_MODELS, key=K("d_model"))
d_k = c3.select_slider("d_k = d_v", options=words.D_KS, key=K("d_k"))
seed = c4.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
causal = c5.toggle("Causal mask", key=K("causal"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Ask which head looks at the previous token, and hide the shapes of the concatenation until you "
    "have guessed them.",
)
STATE.sync()
if tokens:
    sections(tokens, text, int(n_heads), int(d_model), int(d_k), int(seed), bool(causal))
