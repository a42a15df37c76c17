"""Cross-attention: queries from one sentence, keys and values from another.
The sentences are lessons/cross_attention/words.py's."""

import contextlib

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from lessons.cross_attention import words
from ui import outline, present, quiz, sentence
from ui.charts import show_attention, show_heatmap
from ui.common import checked_tokens, once_per_server, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

STATE = PageState(
    "cross",
    (
        Param("source", words.SOURCES[0], "text", shared=True),
        Param("target", words.TARGETS[0], "text"),
        Param("swap", False, "bool"),
        Param("d_model", 16, "choice", choices=words.D_MODELS),
        Param("d_k", 4, "choice", choices=words.D_KS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
    ),
)
K = STATE.key
lesson_of = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.lesson)


def setup(where: DeltaGenerator, lesson: lab_results.CrossLesson) -> None:
    """Where the queries, keys and values come from (in presenter mode, under section 1's charts)."""
    where.caption(words.setup_caption(lesson))
    where.markdown(words.SIMPLIFIED)


def show_qkv(stage: present.Stage, lesson: lab_results.CrossLesson) -> None:
    """Section 1: Q from one sentence, K and V from the other."""
    steps, q_tokens, kv_tokens = lesson.steps, list(lesson.q_tokens), list(lesson.kv_tokens)
    stage.side.markdown(words.qkv_text(lesson))
    stage.formula(words.qkv_latex(lesson))
    parts = (
        ("q", "Queries Q", steps.q, q_tokens, lesson.q_name),
        ("k", "Keys K", steps.k, kv_tokens, lesson.kv_name),
        ("v", "Values V", steps.v, kv_tokens, lesson.kv_name),
    )
    for column, (name, title, matrix, rows, who) in zip(stage.chart_columns(3), parts, strict=True):
        show_heatmap(
            f"cross_{name}",
            matrix,
            rows=rows,
            cols=dim_labels(matrix.shape[1]),
            title=title,
            row_title=f"{who} token",
            col_title="dimension",
            value_name=name,
            into=column,
        )
    if present.on():
        setup(stage.side, lesson)


def show_scores(stage: present.Stage, lesson: lab_results.CrossLesson) -> None:
    """Section 2: the T_q × T_k scores and weights."""
    steps, q_tokens, kv_tokens = lesson.steps, list(lesson.q_tokens), list(lesson.kv_tokens)
    q_name, kv_name = lesson.q_name, lesson.kv_name
    stage.side.markdown(words.scores_text(lesson))
    stage.formula(words.scores_latex(lesson))
    left, right = stage.chart_columns(2)
    show_heatmap(
        "cross_scores",
        steps.scaled,
        rows=q_tokens,
        cols=kv_tokens,
        title="Cross-attention scores QKᵀ/√d_k",
        row_title=f"query ({q_name})",
        col_title=f"key ({kv_name})",
        value_name="score",
        into=left,
    )
    show_attention(
        "cross_weights",
        steps.weights,
        q_tokens,
        kv_tokens,
        title="Cross-attention weights",
        row_title=f"query ({q_name})",
        col_title=f"key ({kv_name})",
        into=right,
    )
    stage.side.caption(words.weights_caption(lesson))


def show_output(stage: present.Stage, lesson: lab_results.CrossLesson) -> None:
    """Section 3: one output row per query."""
    stage.side.markdown(words.output_text(lesson))
    stage.formula(words.output_latex(lesson))
    show_heatmap(
        "cross_output",
        lesson.steps.output,
        rows=list(lesson.q_tokens),
        cols=dim_labels(lesson.steps.output.shape[1]),
        title="Cross-attention output",
        row_title=f"query ({lesson.q_name})",
        col_title="dimension",
        value_name="output",
        width_px=FULL_WIDTH_PX,
        into=stage,
    )


def sections(source: list[str], target: list[str], sizes: tuple[int, int, int, bool], settings: dict) -> None:
    """Everything under the settings, once both sentences have tokens: ``sizes`` are d_model, d_k,
    the seed and the swap; ``settings`` the page's settings by label, for the outline's note."""
    d_model, d_k, seed, swap = sizes
    lesson = lesson_of(tuple(source), tuple(target), d_model, d_k, seed, swap)
    question = words.shape_question(lesson) if predict else None
    hidden = question is not None and not quiz.revealed(question)  # section 3's shape gives the answer away too
    if not present.on():
        setup(st.container(), lesson)
    deck.nav()
    steps = lesson.steps
    outline.changes(
        deck,
        {
            "qkv": outline.fingerprint(steps.q, steps.k, steps.v),
            "scores": outline.fingerprint(steps.scaled, steps.weights),
            "output": outline.fingerprint(steps.output),
        },
        settings,
        fresh=fresh,
    )
    if stage := deck.section("qkv", beside=False):
        show_qkv(stage, lesson)
    if stage := deck.section("scores"):
        if question is not None:
            with stage.side.container(border=True):
                hidden = not quiz.ask(question)
                quiz.score_line()
        elif predict:
            stage.side.caption(words.NO_QUESTION)
        if hidden:
            stage.side.info(words.hidden_note())
        else:
            show_scores(stage, lesson)
    if stage := deck.section("output"):
        if hidden:
            stage.side.info(words.hidden_note(deck.elsewhere("scores")))
        else:
            show_output(stage, lesson)
    with stage.side if stage else contextlib.nullcontext():  # on a projector: beside or under the last section
        footer(__file__, words.what_it_showed(lesson, hidden), deck)


fresh = K("source") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(words.SECTIONS, step_key=K("step"), numbered=True)
outline.steps(deck)
st.title("Cross-attention")
present.intro(words.INTRO)

left, right = present.input_columns(2)  # in presenter mode the sidebar
with left:
    source = sentence_input(K("source"), label="Source sentence (encoder side)", presets=words.SOURCES)
    sentence.note(K("source"), words.SOURCE_NOTE)
    source_tokens = checked_tokens(source, what="source sentence")
    if source_tokens:
        show_tokens(source_tokens)
with right:
    target = sentence_input(K("target"), label="Target sentence (decoder side)", presets=words.TARGETS)
    target_tokens = checked_tokens(target, what="target sentence")
    if target_tokens:
        show_tokens(target_tokens)

c1, c2, c3, c4 = present.input_columns([4, 3, 3, 2])
swap = c1.toggle(
    "Queries from the source",  # short enough for a quarter of a projector's width at 22 px
    key=K("swap"),
    help="Off: queries from the target sentence, keys and values from the source, as in a translation model. "
    "On: the other way round.",
)
d_model = c2.select_slider("d_model", options=words.D_MODELS, key=K("d_model"))
d_k = c3.select_slider("d_k = d_v", options=words.D_KS, key=K("d_k"))
seed = c4.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Guess the shape of the weight matrix before the scores, the weights and the output are shown.",
)
STATE.sync()
settings = {
    "Source sentence": source,
    "Target sentence": target,
    "Queries from the source": swap,
    "d_model": d_model,
    "d_k = d_v": d_k,
    "Seed": seed,
}
if source_tokens and target_tokens:  # else each empty box's message sits under it; every widget stays
    sections(source_tokens, target_tokens, (int(d_model), int(d_k), int(seed), bool(swap)), settings)
