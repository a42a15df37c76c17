"""Real model: the attention heads of a real BERT model (all-MiniLM-L6-v2), offline.

Head, model and neuron views in the spirit of bertviz, drawn with Plotly only. Every
setting lives in the URL (?a=...&b=...&view=neuron&layer=4&head=2&query=10); layers and heads
are counted from 1 there as on the page. The words are in lessons/real_model/words.py.
"""

from __future__ import annotations

import logging

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import models, views
from attn_core import numbering as nb
from attn_core.figures import real_model as mf
from attn_core.tables import head_table, weights_table
from lessons.real_model import words
from ui import present, quiz, sentence
from ui.charts import show_attention, show_figure, side_by_side
from ui.common import md_escape, once_per_server, show_tokens
from ui.footer import footer
from ui.model_cache import it_head, it_rows, try_load
from ui.present import Stage
from ui.reader import Reader
from ui.state import PageState, Param, clamp_index

log = logging.getLogger(__name__)

TIRED, CONGESTED = models.IT_SENTENCES["tired"], models.IT_SENTENCES["congested"]
PAIRS = {
    "time flies like an arrow / fruit flies like a banana": ("time flies like an arrow", "fruit flies like a banana"),
    "The animal … too tired. / The animal … congested.": (TIRED, CONGESTED),
    "One sentence: The animal … too tired.": (TIRED, ""),
    "One sentence: The cat sat on the mat.": ("The cat sat on the mat.", ""),
}
LAYERS, HEADS, MAX_CHARS = words.LAYERS, words.HEADS, words.MAX_CHARS
attend = once_per_server(st.cache_data(max_entries=16, show_spinner="Running the model…"))(words.attend)
model_origin = once_per_server(st.cache_resource(show_spinner=False))(words.model_origin)


def first_view() -> words.FirstView:
    loaded, _ = try_load()
    if loaded is None:
        return words.FirstView()
    layer, head = it_head(loaded, loaded.name)
    return words.first_view(layer, head, it_rows(loaded, loaded.name, layer, head)["tired"]["tokens"])


FIRST = first_view()
STATE = PageState(
    "rm",
    (
        Param("model", models.DEFAULT_MODEL, "choice", choices=models.ALLOWED_MODELS),
        Param("a", TIRED, "text", max_chars=MAX_CHARS, shared=True),
        Param("b", "", "text", max_chars=MAX_CHARS, allow_empty=True),
        Param("view", "head", "choice", choices=tuple(words.VIEWS)),
        Param("layer", FIRST.layer, "int", lo=1, hi=LAYERS),  # layers and heads as shown: from 1
        Param("heads", list(FIRST.heads), "ints", lo=1, hi=HEADS),
        Param("focus", FIRST.focus, "index"),
        Param("region", "All", "choice", choices=mf.REGIONS),
        Param("hide", False, "bool"),
        Param("threshold", 0.05, "float", lo=0.01, hi=1.0, step=0.01),
        Param("head", 1, "int", lo=1, hi=HEADS),
        Param("query", 1, "index"),
        Param("predict", False, "bool"),
    ),
)
K = STATE.key
BIG = mf.attention_heatmap  # stays light for long inputs (no per-cell text above 96 tokens)
FULL = fg.FULL_WIDTH_PX
KEEP = {"persist_state": "page"}  # a view's pickers keep their values while another view is shown


# --------------------------------------------------------------------------- widgets


PICK_IT = "rm_pick_it"  # True: once the model has run, focus on the new sentence's first "it" (or every token)


def _new_sentence() -> None:
    st.session_state[PICK_IT] = True


def _examples() -> None:
    def _use_preset() -> None:
        choice = st.session_state.get("rm_preset")
        if choice:
            st.session_state[K("a")], st.session_state[K("b")] = PAIRS[choice]
            _new_sentence()

    st.selectbox(
        "Examples", list(PAIRS), index=None, placeholder="Pick an example…", key="rm_preset", on_change=_use_preset
    )


def _sentences() -> tuple[str, str]:
    height = 68  # one line, so the chart starts on the first screen
    col_a, col_b = present.input_columns(2)  # in presenter mode the sidebar
    a = col_a.text_area("Sentence A", key=K("a"), max_chars=MAX_CHARS, height=height, on_change=_new_sentence)
    b = col_b.text_area(
        "Sentence B (optional)", key=K("b"), max_chars=MAX_CHARS, height=height, on_change=_new_sentence
    )
    sentence.note(K("a"), "Sentence A is your sentence from another page.")
    return a or "", b or ""


def pick_it(tokens: list[str]) -> None:
    """After a new sentence: focus on its first "it", as on the page's first view, or on every token."""
    if st.session_state.pop(PICK_IT, False):
        st.session_state[K("focus")] = tokens.index("it") if "it" in tokens else None


def _token_name(tokens: list[str] | None):
    if tokens is None:
        return lambda i: "all tokens" if i is None else f"token {i}"
    return lambda i: "all tokens" if i is None else f"{i}: {tokens[i]}"


def _token_options(key: str, tokens: list[str] | None, *, allow_none: bool) -> list:
    """A token picker's options. Without tokens (no usable sentence yet) the picker keeps the
    value it has, from the URL or from before, and is drawn disabled."""
    value = STATE.value(key)
    if tokens is None:
        return [value]
    T = len(tokens)
    st.session_state[K(key)] = clamp_index(value, T, None if allow_none else min(1, T - 1))
    return [None, *range(T)] if allow_none else list(range(T))


def _set_heads(heads: list[int]) -> None:
    st.session_state[K("heads")] = heads


def view_controls(view: str, pickers: list, tokens: list[str] | None, n_heads: int, has_b: bool) -> words.Controls:
    """The widgets of ``view``, drawn whether or not there is a usable sentence yet (disabled
    without one), so an empty box never takes another input off the page."""
    off, numbers = tokens is None, list(range(1, n_heads + 1))  # heads as shown, from 1
    if view in ("model", "neuron", "reproduce"):
        head = pickers[1].selectbox("Head", numbers, key=K("head"), format_func=words.shown_head, disabled=off, **KEEP)
        query = 1
        if view == "neuron":
            options = _token_options("query", tokens, allow_none=False)
            query = pickers[3].selectbox(
                "Query token", options, key=K("query"), format_func=_token_name(tokens), disabled=off, **KEEP
            )
        return words.Controls(head=nb.head_index(head), query=query)
    if view != "head":
        return words.Controls()
    st.session_state[K("heads")] = [h for h in STATE.value("heads") if h <= n_heads]
    heads = pickers[1].multiselect("Heads", numbers, key=K("heads"), format_func=words.shown_head, disabled=off, **KEEP)
    label, to = words.heads_button(len(heads), n_heads, FIRST.head)
    pickers[2].button(label, key=K("heads_button"), on_click=_set_heads, args=(to,), disabled=off, width="stretch")
    options = _token_options("focus", tokens, allow_none=True)
    focus = pickers[3].selectbox(
        "Focus on a query token",
        options,
        key=K("focus"),
        format_func=_token_name(tokens),
        placeholder="all tokens",
        disabled=off,
        **KEEP,
    )
    # The line filters: under the pickers, or in presenter mode in the sidebar, out of the chart's way.
    c3, c4, c5 = [st.sidebar] * 3 if present.on() else st.columns([2, 1, 2])
    if has_b:
        help_ = "A→B: queries in sentence A attending to keys in sentence B."
        region = c3.radio("Which lines", mf.REGIONS, horizontal=True, key=K("region"), disabled=off, help=help_, **KEEP)
    else:
        region = "All"
        c3.caption(words.PAIR_ONLY)
    hide = c4.checkbox("Hide [CLS] and [SEP]", key=K("hide"), disabled=off, **KEEP)
    threshold = c5.slider("Hide lines fainter than", 0.01, 1.0, step=0.01, key=K("threshold"), disabled=off, **KEEP)
    heads = tuple(nb.head_index(h) for h in heads)
    return words.Controls(heads=heads, focus=focus, region=region, hide=hide, threshold=threshold)


# --------------------------------------------------------------------------- the views


def head_view(stage: Stage, att: models.ModelAttention, lesson: views.ModelLesson, c: words.Controls) -> None:
    if not lesson.heads:
        st.info(words.NO_HEADS)
        return
    layer, heads = lesson.layer, list(lesson.heads)
    fig = mf.head_view(
        att.attentions[layer],
        att.tokens,
        heads=heads,
        threshold=c.threshold,
        query=lesson.focus,
        region=c.region,
        sentence_b_start=att.sentence_b_start,
        hide=att.special if c.hide else None,
        title=words.head_view_title(layer),
    )
    name = words.heads_mean_name(layer, lesson.heads, att.n_heads)
    table = weights_table(lesson.heads_mean, att.tokens, name=name)
    show_figure(fig, "rm_head_view", table=table, focus_row=lesson.focus, into=stage)
    st.markdown(words.HEAD_VIEW_TEXT)
    if c.hide:
        st.caption(words.HIDDEN_LINES)


def model_view(stage: Stage, att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    layer, head = lesson.layer, lesson.head
    grid = mf.thumbnail_grid(
        att.attentions,
        title=words.GRID_TITLE,
        row_names=words.layer_names(att.n_layers),
        col_names=words.head_names(att.n_heads),
        selected=(layer, head),
    )
    left, right = stage.chart_columns(2) if stage.fill else (stage, stage)  # abreast on a projector
    show_figure(grid, "rm_model_view", table=head_table(lesson.on_cls, words.ON_CLS), into=left)
    st.markdown(words.model_view_text(lesson, mf.THUMB if att.T > mf.THUMB_MAX else None))
    title = words.weights_title(layer, head)
    show_attention("rm_model_big", lesson.weights, att.tokens, title=title, builder=BIG, width_px=FULL, into=right)


def neuron_view(stage: Stage, att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    nv, query = lesson.neuron, lesson.query
    figs = mf.neuron_figures(nv, att.tokens, layer=lesson.layer, head=lesson.head)
    st.markdown(words.neuron_intro(query, nv.d_k))
    tables_, names = words.neuron_tables(nv, att.tokens, fg.dim_labels(nv.d_k)), words.NEURON_CHARTS
    row = stage.chart_columns(len(names)) if stage.fill else [stage] * len(names)  # one row on a projector
    for column, name in zip(row, names, strict=True):
        show_figure(figs[name], f"rm_neuron_{name}", table=tables_[name], into=column)
    st.latex(words.neuron_latex(nv))
    st.caption(words.neuron_caption(nv, att.tokens, att.T <= mf.BAR_KEYS_MAX))


def summaries(stage: Stage, att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    layer, names = lesson.layer, words.layer_names(att.n_layers)
    row = stage.chart_columns(3) if stage.fill else None  # on a projector the three charts abreast
    grid = mf.thumbnail_grid(
        np.stack([lesson.means, lesson.rolled]),
        title=words.SUMMARIES_TITLE,
        row_names=["mean", "rollout"],
        col_names=names,
        selected=(0, layer),
    )
    show_figure(grid, "rm_means", table=words.summary_table(lesson), into=row[0] if row else stage)
    st.markdown(words.SUMMARIES_TEXT)
    st.markdown(words.NOT_IMPORTANCE)
    charts = (
        ("rm_mean_big", lesson.means[layer], words.mean_title(layer)),
        ("rm_rollout_big", lesson.rolled[layer], words.rollout_title(layer)),
    )
    if row:
        for column, (key, w, title) in zip(row[1:], charts, strict=True):
            show_attention(key, w, att.tokens, title=title, builder=BIG, into=column)
    else:
        _weights_side_by_side(stage, att, *charts)


def _weights_side_by_side(stage: Stage, att: models.ModelAttention, *charts: tuple[str, np.ndarray, str]) -> None:
    """(key, (T, T) weights, title) charts in columns, each with its table."""

    def draw(key: str, w: np.ndarray, title: str, into: Stage) -> None:
        show_attention(key, w, att.tokens, title=title, builder=BIG, into=into)

    side_by_side(draw, *charts, into=stage)


def reproduce(stage: Stage, loaded: models.LoadedModel, att: models.ModelAttention, layer: int, head: int) -> None:
    real = models.real_lesson(loaded, att, layer, head)  # the model's settings: scaled, no x100, no mask
    st.markdown(words.reproduce_text(layer, head, real.lesson.source.weights.d_k))
    st.metric(words.METRIC, f"{real.max_abs_error:.1e}")
    st.latex(words.reproduce_latex(real))
    _weights_side_by_side(
        stage,
        att,
        ("rm_repro_ours", real.lesson.steps.weights, "attn_core, float64"),
        ("rm_repro_model", att.attentions[layer, head].astype(np.float64), "The model's own attention"),
    )


def it_questions(loaded: models.LoadedModel, layer: int, head: int) -> list[quiz.Question]:
    """Predict, then reveal: where does "it" look in each animal sentence, in this layer and head?"""
    return words.it_questions(it_rows(loaded, loaded.name, layer, head), models.IT_SENTENCES, layer, head)


def answers_hidden(questions: list[quiz.Question]) -> bool:
    """Whether a prediction is still to be revealed (what would answer it stays hidden)."""
    return bool(questions) and not all(quiz.revealed(q) for q in questions)


def suggestion(loaded: models.LoadedModel, questions: list[quiz.Question], reader: Reader) -> None:
    """The head to try for "it" (models.it_head) and what it does there, from the model's numbers."""
    if loaded.name != models.DEFAULT_MODEL:  # the animal sentences are checked on the embedded model
        return
    layer, head = it_head(loaded, loaded.name)
    if answers_hidden(questions):  # its numbers could give answers away
        st.caption(words.it_hidden(layer, head))
    else:
        st.caption(words.it_caption(it_rows(loaded, loaded.name, layer, head), layer, head, reader))


def about_the_input(loaded: models.LoadedModel, att: models.ModelAttention, text_a: str, text_b: str) -> None:
    """The model, the tokens as the model reads them, and the download."""
    size = (loaded.n_layers, loaded.n_heads, loaded.d_model, loaded.d_k)
    st.caption(words.about_model(loaded.name, *size, models.device_label(loaded)))
    st.markdown(words.tokens_heading(att.T))
    show_tokens(att.tokens)
    st.caption(words.tokenizer_note(att.tokens))
    st.download_button(
        words.DOWNLOAD,
        icon=":material/download:",
        data=lambda: words.npz(att, loaded.name, text_a, text_b),
        file_name="attentions.npz",
        mime="application/octet-stream",
        on_click="ignore",
        key="rm_npz",
    )


# --------------------------------------------------------------------------- the page


def run_model(name: str, text_a: str, text_b: str) -> tuple[models.LoadedModel | None, object, str | None]:
    """The model and its run on this input, or what went wrong (said below the view's own inputs)."""
    loaded, problem = try_load(name)
    if problem and name != models.DEFAULT_MODEL:
        st.error(f"{md_escape(problem)} Showing the embedded model instead.")
        loaded, problem = try_load(models.DEFAULT_MODEL)
    if loaded is None:
        return None, None, words.unavailable(problem)
    if not text_a.strip():
        return loaded, None, words.empty(reader)
    try:
        b = text_b if text_b.strip() else None
        return loaded, attend(loaded, loaded.name, loaded.source, text_a, b, models.MAX_TOKENS), None
    except ValueError as err:
        return loaded, None, md_escape(str(err))
    except Exception as err:
        log.exception("the model failed on this input")
        return loaded, None, words.failed(type(err).__name__)


def show_view(stage: Stage, view: str, loaded, att, lesson: views.ModelLesson, controls: words.Controls, predict: bool):
    """The view and what goes with it, under the view's own inputs; returns the footer's lines."""
    if loaded.fallback:
        st.warning(md_escape(loaded.fallback))
    # The question's head: the view's own head, or in the head view the first head chosen.
    q_layer, q_head = lesson.layer, lesson.head if view != "head" else (lesson.heads[0] if lesson.heads else 0)
    questions = it_questions(loaded, q_layer, q_head) if predict else []
    if att.fallback:
        st.warning(md_escape(att.fallback))
    if att.truncated:
        st.warning(words.truncated(models.MAX_TOKENS))
    if questions:
        st.markdown(words.PREDICT)
        for q in questions:
            with st.container(border=True):
                quiz.ask(q)
        quiz.score_line()
    if answers_hidden(questions):  # every view draws the asked head's weights, so each would answer it
        st.info(words.waits(q_layer, q_head))
    elif view == "head":
        head_view(stage, att, lesson, controls)
    elif view == "model":
        model_view(stage, att, lesson)
    elif view == "neuron":
        neuron_view(stage, att, lesson)
    elif view == "summaries":
        summaries(stage, att, lesson)
    else:
        reproduce(stage, loaded, att, lesson.layer, lesson.head)
    suggestion(loaded, questions, reader)  # under the view, which comes first on a laptop and a projector alike
    about_the_input(loaded, att, text_a, text_b)
    it = None
    if loaded.name == models.DEFAULT_MODEL and not answers_hidden(questions):
        layer, head = it_head(loaded, loaded.name)
        it = (layer, head, it_rows(loaded, loaded.name, layer, head))
    return words.footer_lines(loaded.n_layers, loaded.n_heads, att.T, lesson, it)


fresh = K("a") not in st.session_state  # the page's first run in this visit
STATE.start()
if fresh and sentence.carried(K("a")):
    st.session_state[PICK_IT] = True  # a sentence from another page: "it" there, if it has one
reader = present.reader()
st.title("Real model: the attention heads of BERT")
present.intro(words.intro(model_origin()))

# The model and the examples wait in the sidebar, so the chart starts on the first screen; in
# presenter mode the Predict switch does too, and Back and Next step through the views.
with st.sidebar:
    name = st.selectbox(
        "Model",
        models.ALLOWED_MODELS,
        key=K("model"),
        format_func=lambda n: f"{n} (embedded)" if n == models.DEFAULT_MODEL else f"{n} (Hugging Face cache)",
    )
    _examples()
text_a, text_b = _sentences()
deck = present.Deck(words.VIEWS, step_key=K("view"), noun="View", by_name=True)
stepping = present.on() or present.following()
if stepping:
    deck.nav()
    where = st.sidebar
else:
    view_column, where = st.columns([4, 1], vertical_alignment="bottom")
    view_column.radio("View", list(words.VIEWS), format_func=words.VIEWS.get, horizontal=True, key=K("view"))
view = deck.current_name
predict = where.toggle("Predict first", key=K("predict"), help=words.PREDICT_HELP)
# The view on the stage: its charts as tall as the screen allows, its pickers and text beside them
# (or, for a row of charts that needs the width, below them, the pickers in the sidebar).
beside = view in ("head", "reproduce")
stage = deck.section(view, beside=beside) if stepping else present.stage(beside=False)
with stage.side:
    if not present.on():
        pickers = st.columns([4, 4, 2, 4], vertical_alignment="bottom")  # layer, heads, "all heads", token
    else:
        pickers = stage.control_columns(4) if beside else present.input_columns(4)
    layer = pickers[0].selectbox("Layer", range(1, LAYERS + 1), key=K("layer"), format_func=words.shown_layer)
    loaded, att, problem_text = run_model(name, text_a, text_b)
    n_heads = loaded.n_heads if loaded is not None else HEADS
    if att is not None:
        pick_it(list(att.tokens))
    has_b = att.sentence_b_start is not None if att is not None else bool(text_b.strip())
    controls = view_controls(view, pickers, None if att is None else list(att.tokens), n_heads, has_b)
    lesson = None
    if att is not None:
        lesson = words.view_lesson(att, view, layer, controls)
        # Each view writes back the token it clamped; the other view's token stays as it was.
        STATE.sync({"focus": lesson.focus} if view == "head" else {"query": lesson.query} if view == "neuron" else {})
    else:
        STATE.sync()
    if problem_text is not None:
        (st.info if loaded is not None and not text_a.strip() else st.error)(problem_text)
    else:  # the footer too goes into the stage's side: on a projector nothing may follow the stage
        footer(__file__, show_view(stage, view, loaded, att, lesson, controls, predict))
