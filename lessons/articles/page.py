"""The articles, checked: the reference articles' hand examples redone with the engine, with
the places where their numbers or words go wrong and the right numbers beside them.

Each section's controls first (at its top), then one attn_core call, then each section's text,
formulas and figures. Every sentence comes from lessons/articles/words.py, every number in it
from that call.
"""

import numpy as np
import pandas as pd
import streamlit as st

from attn_core import article_checks as ar
from attn_core.figures import dim_labels
from attn_core.figures.context import mask_check
from attn_core.figures.lab import grouped_bars
from attn_core.tables import Table
from lessons.articles import words
from ui import outline, present
from ui.charts import show_attention, show_bars, show_figure, show_heatmap, show_mask, show_panels, show_scores
from ui.common import once_per_server
from ui.footer import footer
from ui.present import Deck, Stage
from ui.reader import Reader
from ui.state import PageState, Param

KEEP = {"persist_state": "page"}  # a section's inputs keep their values while presenter mode hides them
VECTOR_HELP = "Three numbers separated by commas"

state = PageState(
    "art",
    params=(
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("scale", 3.0, "choice", choices=ar.LEARNED_SCALES),
        *(Param(name, ar.format_vector(ar.DEFAULT_VECTORS[name]), "text", max_chars=120) for name in words.EDITABLE),
    ),
)
compute = once_per_server(st.cache_data(show_spinner=False, max_entries=256))(words.lesson)


def _reset_vectors() -> None:
    for name in words.EDITABLE:
        st.session_state[state.key(name)] = ar.format_vector(ar.DEFAULT_VECTORS[name])


def pair(stage: Stage, row: list[Stage] | None, first: bool) -> list[Stage]:
    """Two charts side by side: on a projector half of the section's row of four, else a row of two."""
    return (row[:2] if first else row[2:]) if row else stage.chart_columns(2)


# --------------------------------------------------------------------------- each section's controls


def controls(stages: dict[str, Stage | None]) -> None:
    if stage := stages["dot"]:
        given = [g for g in ar.GIVEN if g != "x_cat"]
        for column, name in zip(stage.control_columns(4), given, strict=True):
            column.text_input(name, key=state.key(name), help=VECTOR_HELP, **KEEP)
        box = stage.side.expander("Keys and values of the other words (ours, not the article's)")
        ours = [box] * 4 if stage.fill else box.columns(4)
        for k, name in enumerate(words.OURS):
            ours[k % 4].text_input(name, key=state.key(name), help=VECTOR_HELP, **KEEP)
        stage.side.button("Back to the article's numbers", on_click=_reset_vectors, key=state.key("reset"))
    if stage := stages["causal"]:
        stage.control_columns([1, 2])[0].number_input(
            "Seed for the random vectors of sections 2 to 5",
            min_value=0,
            max_value=10_000,
            step=1,
            key=state.key("seed"),
            **KEEP,
        )
    if stage := stages["winner"]:
        stage.side.select_slider(words.SCALE_LABEL, options=ar.LEARNED_SCALES, key=state.key("scale"), **KEEP)


# --------------------------------------------------------------------------- the sections


def dot(stage: Stage, lesson: ar.ArticlesLesson) -> None:
    d = lesson.dot
    for name, why in d.problems:
        stage.side.warning(words.problem_text(name, why))
    stage.side.markdown(words.dot_intro(d))
    stage.side.latex(words.dot_latex(d))
    stage.side.markdown(words.dot_result(d))
    stage.side.caption(words.DOT_CAPTION)
    stage.side.subheader("The whole row: from scores to the output of “cat”")
    stage.side.markdown(words.row_intro(d))
    stage.side.table(pd.DataFrame(words.row_table(d), index=pd.Index(range(len(d.tokens)), name="j")))
    left, right = stage.chart_columns(2)
    show_bars(
        "art_cat_weights",
        d.tokens,
        d.weights,
        title="Weights of “cat” over the sentence",
        y_title="weight",
        y_range=(0, 1.05),
        row="cat",
        name="Weights of cat",
        row_title="query",
        col_title="key",
        into=left,
    )
    show_panels(
        "art_cat_kv",
        [("K", d.k), ("V", d.v)],
        rows=d.tokens,
        cols=(*dim_labels(3, "k"), *dim_labels(3, "v")),
        title="Keys and values",
        row_title="token",
        col_title="entry",
        value_name="value",
        into=right,
    )
    stage.side.latex(words.output_latex(d))
    stage.side.latex(words.first_entry_latex(d))
    stage.side.markdown(words.mat_text(d))


def causal(stage: Stage, lesson: ar.ArticlesLesson, reader: Reader) -> None:
    c = lesson.causal
    row = stage.chart_columns(4) if stage.fill else None
    stage.side.markdown(words.causal_intro(c))
    for text in words.wrong_rows(c):
        stage.side.markdown(text)
    keys, queries = words.key_labels(c), words.query_labels(c)
    tables = (("article", c.article, c.wrong, "The notes' table"), ("correct", c.correct, (), "The correct table"))
    for column, (name, kept, wrong, title) in zip(pair(stage, row, True), tables, strict=True):
        show_mask(
            f"art_causal_{name}",
            kept,
            keys,
            queries,
            title=title,
            name=f"{title} (1 = score kept)",
            row_title="key",
            col_title="query",
            builder=mask_check,
            cell_text=words.cell_text(kept),
            wrong=wrong,
            into=column,
        )
    stage.side.markdown(words.leak_text(c, reader))
    weights = (
        ("article", c.steps_article, "Weights with the notes' mask"),
        ("correct", c.steps_correct, "Weights with the causal mask"),
    )
    for column, (name, steps, title) in zip(pair(stage, row, False), weights, strict=True):
        show_attention(f"art_causal_w_{name}", steps.weights, c.tokens, title=title, into=column)
    stage.side.markdown(words.callebaut_text(lesson.decoder))
    stage.side.caption(words.longnet_caption())


def rows(stage: Stage, lesson: ar.ArticlesLesson) -> None:
    r = lesson.rows
    row = stage.chart_columns(4) if stage.fill else None
    stage.side.markdown(words.ROWS_INTRO)
    stage.side.latex(words.rows_latex(r))
    stage.side.markdown(words.rows_text(r))
    ways = (
        ("art_rows", r.by_row, "Softmax over each row (right)"),
        ("art_columns", r.by_column, "Softmax over each column (wrong here)"),
    )
    for column, (key, w, title) in zip(pair(stage, row, True), ways, strict=True):
        show_attention(key, w, r.tokens, title=title, into=column)
    for column, (key, sums, what) in zip(
        pair(stage, row, False),
        (("art_row_sums", r.row_sums, "Row sums"), ("art_col_sums", r.column_sums, "Column sums")),
        strict=True,
    ):
        series = {"softmax over rows": sums[0], "softmax over columns": sums[1]}
        table = Table(
            np.stack([sums[0], sums[1]], axis=1),
            rows=r.tokens,
            cols=tuple(series),
            name=what,
            kind="lines",
            row_title="token",
            col_title="softmax",
        )
        show_figure(
            grouped_bars(list(r.tokens), series, title=what, y_title="sum", fmt=".3f"),
            key=key,
            table=table,
            into=column,
        )


def shapes(stage: Stage, lesson: ar.ArticlesLesson) -> None:
    s = lesson.shapes
    (T, d), d_k, q_shape = s.x.shape, s.w_q.shape[1], s.q.shape
    stage.side.markdown(words.shapes_intro(s))
    stage.side.markdown(words.shapes_text(s))
    stage.side.latex(words.shapes_latex(s))
    stage.side.markdown(words.shapes_stop_text(s))
    stage.side.caption(words.shapes_caption(s))
    left, right = stage.chart_columns(2)
    show_panels(
        "art_shapes_xq",
        [("X", s.x), ("Q", s.q)],  # not "Q = XW": it ran into "X" on a narrow chart
        rows=s.tokens,
        cols=(*dim_labels(d, "x"), *dim_labels(d_k, "q")),
        title=f"X ({T} × {d}) and Q ({q_shape[0]} × {q_shape[1]})",
        name="X and Q",
        row_title="token",
        col_title="column",
        value_name="value",
        fmt=".1f",
        into=left,
    )
    show_heatmap(
        "art_shapes_w",
        s.w_q,
        rows=dim_labels(d),
        cols=dim_labels(d_k, "q"),
        title=f"W_q ({d} × {d_k})",
        value_name="w",
        fmt=".2f",
        into=right,
    )
    stage.side.markdown(words.dimensions_text(lesson.dimensions))


def conventions(stage: Stage, lesson: ar.ArticlesLesson) -> None:
    cv = lesson.conventions
    stage.side.markdown(words.CONVENTIONS_INTRO)
    stage.side.markdown(words.conventions_text(cv))
    stage.side.latex(words.CONVENTIONS_CHAIN)
    stage.side.table(pd.DataFrame(words.conventions_table(cv), index=pd.Index(words.CONVENTION_ROWS, name="array")))
    stage.side.latex(words.conventions_latex(cv))
    stage.side.caption(words.conventions_caption(cv))
    left, right = stage.chart_columns(2)
    show_scores("art_conv_col", cv.scores_col, cv.tokens, title="QᵀK, token vectors as columns", into=left)
    show_scores("art_conv_row", cv.scores_row, cv.tokens, title="QKᵀ, token vectors as rows", into=right)


def winner(stage: Stage, lesson: ar.ArticlesLesson, reader: Reader) -> None:
    w, lab = lesson.winner, lesson.winner.lab
    row = stage.chart_columns(4) if stage.fill else None
    stage.side.markdown(words.WINNER_INTRO)
    stage.side.markdown(words.softmax_text(w))
    labels = [f"s{k}" for k in range(len(lab.scores))]
    charts = (
        ("art_win_m1", lab.weights, "softmax(s), m = 1"),
        ("art_win_m100", lab.scaled_weights, f"softmax({lab.multiplier:g}·s)"),
    )
    for column, (key, weights, name) in zip(pair(stage, row, True), charts, strict=True):
        show_bars(
            key,
            labels,
            weights,
            title=f"Weights {name}",
            y_title="weight",
            y_range=(0, 1.1),
            col_title="score",
            into=column,
        )
    stage.side.markdown(words.SCALING_TEXT)
    stage.side.latex(words.winner_latex(w))
    stage.side.markdown(words.saturation_text(w, reader))
    keys = words.key_labels_winner(w)
    left, right = pair(stage, row, False)
    show_bars(
        "art_win_scores",
        keys,
        w.row_scaled,
        title="One row of scaled scores q·k/√d_k",
        y_title="score",
        fmt=".1f",
        name="Scaled scores",
        col_title="key",
        into=left,
    )
    show_bars(
        "art_win_weights",
        keys,
        w.row_weights,
        title="Its softmax weights",
        y_title="weight",
        y_range=(0, 1.1),
        name="Softmax of the scaled scores",
        col_title="key",
        into=right,
    )


# --------------------------------------------------------------------------- the page

fresh = state.key(words.EDITABLE[0]) not in st.session_state  # the page's first run in this visit
state.start()
deck = Deck(words.SECTIONS, step_key=state.key("step"), numbered=True)
reader = present.reader()
outline.steps(deck)

st.title("The articles, checked")
present.intro(words.INTRO)
deck.nav()
note = st.container()  # which sections a change changed, filled in once the checks have run
stages = {name: deck.section(name, beside=name not in words.ROW_OF_FOUR) for name in deck.names}
controls(stages)

texts = tuple((name, str(state.value(name))) for name in words.EDITABLE)
lesson = compute(texts, float(state.value("scale")), int(state.value("seed")))
outline.changes(
    deck,
    {
        "dot": outline.fingerprint(lesson.dot),
        "causal": outline.fingerprint(lesson.causal),
        "rows": outline.fingerprint(lesson.rows),
        "shapes": outline.fingerprint(lesson.shapes),
        "conventions": outline.fingerprint(lesson.conventions),
        "winner": outline.fingerprint(lesson.winner),
    },
    {**dict(texts), "Seed": state.value("seed"), "Standard deviation s": state.value("scale")},
    fresh=fresh,
    where=note,
)
state.sync()

if stage := stages["dot"]:
    dot(stage, lesson)
if stage := stages["causal"]:
    causal(stage, lesson, reader)
if stage := stages["rows"]:
    rows(stage, lesson)
if stage := stages["shapes"]:
    shapes(stage, lesson)
if stage := stages["conventions"]:
    conventions(stage, lesson)
if stage := stages["winner"]:
    winner(stage, lesson, reader)

shown = next((s for s in stages.values() if s is not None and s.fill), None)  # on a projector, the one section
with shown.side if shown is not None else st.container():  # the footer after the section's text, not over it
    footer(__file__, words.what_it_showed(lesson), deck)
