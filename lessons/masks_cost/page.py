"""Masks and cost: global, causal, sliding-window and dilated attention, the T² bill,
and where the scaled dot product sits beside the older additive score.
The sentences are lessons/masks_cost/words.py's."""

import contextlib

import numpy as np
import streamlit as st

from attn_core import experiments as ex
from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from lessons.masks_cost import words
from ui import outline, present, quiz
from ui.charts import show_attention, show_heatmap, show_lines, show_mask, show_scores
from ui.common import PRESETS, checked_tokens, once_per_server, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

STATE = PageState(
    "masks",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("radius", 2, "int", lo=0, hi=8),
        Param("dilation", 2, "int", lo=1, hi=4),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
    ),
)
K = STATE.key
study_of = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.study)


def mask_section(kind: str) -> present.Stage | None:
    """A mask's section, headed as the page has it: a subheader under "1. Four masks on your
    sentence" when every section is shown, a header of its own one at a time, and on a projector
    the progress line with the masking rule above the charts."""
    if present.on():
        stage = deck.section(kind)
        if stage:
            stage.formula(words.MASKED)
        return stage
    if present.paged():
        return deck.section(kind, header=True)
    if kind == "global":  # the first mask: the part's header above it
        st.header(words.MASKS_HEADER)
    return deck.section(kind, heading=words.MASK_TITLES[kind])


def show_mask_charts(stage: present.Stage, study: lab_results.MaskStudy, kind: str, radius: int, dilation: int) -> None:
    """A mask's count, its 0/1 chart and the weights it leaves."""
    title, steps, tokens = words.MASK_TITLES[kind], study.steps(kind), list(study.tokens)
    stage.side.latex(words.kept_latex(study, kind, radius, dilation))
    left, right = stage.chart_columns(2)
    mask_title = f"{title} mask (1 = may attend)"
    show_mask(f"masks_{kind}_mask", steps.mask, tokens, title=mask_title, name=f"{title} mask", into=left)
    show_attention(f"masks_{kind}_weights", steps.weights, tokens, title=f"{title} weights", into=right)


def show_cost(stage: present.Stage, study: lab_results.MaskStudy) -> None:
    """Section 5: scores and memory against T."""
    stage.side.markdown(words.cost_text(study))
    stage.formula(words.cost_latex(study))
    left, right = stage.chart_columns(2)
    show_lines(
        "masks_cost_counts",
        study.T_values,
        {words.MASK_TITLES[kind]: study.counts[kind] for kind in ex.MASK_KINDS},
        title="Scores computed against sequence length T",
        x_title="T (tokens)",
        y_title="scores",
        into=left,
    )
    show_lines(
        "masks_cost_memory",
        study.T_values,
        {"one T × T score matrix": study.memory},
        title="Memory of one float32 score matrix",
        x_title="T (tokens)",
        y_title="bytes",
        log_y=True,
        into=right,
    )
    stage.side.caption(words.memory_caption(study))
    stage.side.caption(words.kv_cache_caption(study))


def show_other_scores(stage: present.Stage, study: lab_results.MaskStudy) -> None:
    """Section 6: the additive score, the dot product and the bilinear form (on a projector the
    three charts in one row, the text below them)."""
    tokens = list(study.tokens)
    row = stage.chart_columns(3) if present.on() else None
    stage.side.markdown(words.SCORES_INTRO)
    stage.side.markdown(words.additive_text(study))
    stage.side.markdown(words.agree_text(study))
    stage.formula(words.scores_latex(study))
    additive, dot = row[:2] if row else stage.chart_columns(2)
    show_scores("masks_additive", study.additive, tokens, title="Additive (tanh) scores", into=additive)
    show_scores("masks_dot", study.dot, tokens, title="Scaled dot-product scores", into=dot)
    stage.side.markdown(words.bilinear_text(study))
    stage.side.latex(words.bilinear_latex(study))
    show_heatmap(
        "masks_bilinear",
        study.w_qk,
        rows=dim_labels(study.d_model),
        cols=dim_labels(study.d_model),
        title="Bilinear form W_q W_kᵀ",
        row_title="query-side dimension",
        col_title="key-side dimension",
        value_name="w_qk",
        width_px=FULL_WIDTH_PX,
        into=row[2] if row else stage,
    )
    stage.side.metric("Max |bilinear scores − QKᵀ|", f"{study.bilinear_diff:.2e}")


def sections(tokens: list[str], text: str, radius: int, dilation: int, seed: int) -> None:
    """Everything under the settings, once there is a sentence."""
    T = len(tokens)
    study = study_of(tuple(tokens), radius, dilation, seed)
    question = words.window_question(T, radius, study.kept["window"]) if predict else None
    window_hidden = question is not None and not quiz.revealed(question)
    same_as_window = np.array_equal(study.steps("dilated").mask, study.steps("window").mask)  # radius 0 or dilation 1
    deck.nav()
    prints = {kind: outline.fingerprint(study.steps(kind), study.kept[kind]) for kind in ex.MASK_KINDS}
    prints["cost"] = outline.fingerprint(T, study.T_values, study.counts, study.memory)
    prints["scores"] = outline.fingerprint(study.additive, study.dot, study.w_qk, study.top_agree)
    settings = {"Sentence": text, "Window radius r": radius, "Dilation": dilation, "Seed": seed}
    outline.changes(deck, prints, settings, fresh=fresh)

    for kind in ex.MASK_KINDS:
        if not (stage := mask_section(kind)):
            continue
        stage.side.markdown(words.EXPLAIN[kind])
        if kind == "window" and predict and question is None:
            stage.side.caption(words.NO_WINDOW_QUESTION)
        elif kind == "window" and predict:
            with stage.side.container(border=True):
                window_hidden = not quiz.ask(question)
                quiz.score_line()
        if window_hidden and kind == "window":
            stage.side.info(words.window_hidden_note())
        elif window_hidden and kind == "dilated" and same_as_window:
            stage.side.info(words.dilated_hidden_note(deck.elsewhere("window")))
        else:
            show_mask_charts(stage, study, kind, radius, dilation)
        if kind == "causal":
            stage.side.markdown(words.kv_cache_text(study))
        if kind == "dilated":
            stage.side.markdown(words.longnet_text(T, dilation))
    if stage := deck.section("cost", heading=words.COST_HEADER, header=True):
        show_cost(stage, study)
    if stage := deck.section("scores", beside=False, heading=words.SCORES_HEADER, header=True):
        show_other_scores(stage, study)
    with stage.side if stage else contextlib.nullcontext():  # on a projector: beside or under the last section
        footer(__file__, words.what_it_showed(study, radius, window_hidden), deck)


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(words.SECTIONS, step_key=K("step"))
st.title("Masks and cost")
present.intro(words.INTRO)
if not present.on():  # on a projector each mask's section shows it above its charts
    st.latex(words.MASKED)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"))
outline.steps(deck)
with present.inputs():
    tokens = checked_tokens(text)
    if tokens:
        show_tokens(tokens)
c1, c2, c3 = present.input_columns(3)
radius = c1.slider("Window radius r", min_value=0, max_value=8, key=K("radius"))
dilation = c2.slider("Dilation", min_value=1, max_value=4, key=K("dilation"))
seed = c3.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Guess how many scores the sliding window keeps before its mask and count are shown.",
)
STATE.sync()
if tokens:
    sections(tokens, text, int(radius), int(dilation), int(seed))
