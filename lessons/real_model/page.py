"""Real model: the attention heads of a real BERT model (all-MiniLM-L6-v2), offline.

Head, model and neuron views in the spirit of bertviz, drawn with Plotly only. Every
setting lives in the URL (?a=...&b=...&view=neuron&layer=3&head=1&query=10).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import models, tables, views
from attn_core import transformer as tr
from attn_core.figures import real_model as mf
from attn_core.tables import Table, head_table, weights_table
from ui import present, quiz, sentence
from ui.charts import show_attention, show_figure, side_by_side
from ui.common import md_escape, show_tokens
from ui.footer import footer
from ui.model_cache import it_head, it_numbers, it_rows, try_load
from ui.state import PageState, Param, clamp_index

log = logging.getLogger(__name__)

TIRED, CONGESTED = models.IT_SENTENCES["tired"], models.IT_SENTENCES["congested"]
PAIRS = {
    "time flies like an arrow / fruit flies like a banana": ("time flies like an arrow", "fruit flies like a banana"),
    "The animal … too tired. / The animal … congested.": (TIRED, CONGESTED),
    "One sentence: The animal … too tired.": (TIRED, ""),
    "One sentence: The cat sat on the mat.": ("The cat sat on the mat.", ""),
}
VIEW_NAMES = {
    "head": "Head view",
    "model": "Model view",
    "neuron": "Neuron view",
    "summaries": "Summaries",
    "reproduce": "Reproduce a head",
}
MAX_CHARS = 6000  # about 512 tokens of English fit comfortably
LAYERS, HEADS = 6, 12  # the embedded model's shape, for clamping URL values before it loads


@dataclass(frozen=True)
class FirstView:
    """What the page opens on: the classic "it" sentence, with the head the page suggests for
    "it" (found by models.it_head) and "it" picked. Without the embedded model: layer 0, every
    head and every token."""

    layer: int = 0
    heads: tuple[int, ...] = tuple(range(HEADS))
    focus: int | None = None

    @property
    def head(self) -> int | None:
        return self.heads[0] if len(self.heads) == 1 else None


def first_view() -> FirstView:
    loaded, _ = try_load()
    if loaded is None:
        return FirstView()
    layer, head = it_head(loaded, loaded.name)
    tokens = it_rows(loaded, loaded.name, layer, head)["tired"]["tokens"]
    return FirstView(layer, (head,), tokens.index("it"))


FIRST = first_view()
STATE = PageState(
    "rm",
    (
        Param("model", models.DEFAULT_MODEL, "choice", choices=models.ALLOWED_MODELS),
        Param("a", TIRED, "text", max_chars=MAX_CHARS, shared=True),
        Param("b", "", "text", max_chars=MAX_CHARS, allow_empty=True),
        Param("view", "head", "choice", choices=tuple(VIEW_NAMES)),
        Param("layer", FIRST.layer, "int", lo=0, hi=LAYERS - 1),
        Param("heads", list(FIRST.heads), "ints", lo=0, hi=HEADS - 1),
        Param("focus", FIRST.focus, "index"),
        Param("region", "All", "choice", choices=mf.REGIONS),
        Param("hide", False, "bool"),
        Param("threshold", 0.05, "float", lo=0.01, hi=1.0, step=0.01),
        Param("head", 0, "int", lo=0, hi=HEADS - 1),
        Param("query", 1, "index"),
        Param("predict", False, "bool"),
    ),
)
K = STATE.key
BIG = mf.attention_heatmap  # stays light for long inputs (no per-cell text above 96 tokens)
FULL = fg.FULL_WIDTH_PX
KEEP = {"persist_state": "page"}  # a view's pickers keep their values while another view is shown


# --------------------------------------------------------------------------- running the model (cached)


@st.cache_data(max_entries=16, show_spinner="Running the model…")
def _attend(
    _loaded: models.LoadedModel, name: str, source: str, sentence_a: str, sentence_b: str | None
) -> models.ModelAttention:
    return models.extract_attentions(_loaded, sentence_a, sentence_b, models.MAX_TOKENS)


IN_SIDEBAR = " (the examples in the sidebar)" if present.on() else ""  # where presenter mode keeps them


def it_caption(rows: dict[str, dict], layer: int, head: int) -> str:
    """The suggestion for the animal pair, stated from the model's own numbers."""
    return (
        f"Try the animal sentences{IN_SIDEBAR} one at a time, focus on “it” and look at layer {layer}, head {head}: "
        + it_numbers(rows)
    )


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
    with col_a:
        a = st.text_area("Sentence A", key=K("a"), max_chars=MAX_CHARS, height=height, on_change=_new_sentence)
    with col_b:
        b = st.text_area(
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


def heads_button(heads: list[int], n_heads: int, off: bool) -> None:
    """One click between one head and all of them: "All 12 heads" while fewer are drawn, else
    back to the head the page suggests for "it" (head 0 without the embedded model)."""
    if len(heads) < n_heads:
        label, to = f"All {n_heads} heads", list(range(n_heads))
    else:
        one = FIRST.head if FIRST.head is not None and FIRST.head < n_heads else 0
        label, to = f"Only head {one}", [one]
    st.button(label, key=K("heads_button"), on_click=_set_heads, args=(to,), disabled=off, width="stretch")


@dataclass(frozen=True)
class Controls:
    """The chosen view's own settings, as its widgets show them."""

    heads: tuple[int, ...] = ()
    focus: int | None = None
    region: str = "All"
    hide: bool = False
    threshold: float = 0.05
    head: int = 0
    query: int = 1


def view_controls(view: str, pickers: list, tokens: list[str] | None, n_heads: int, has_b: bool) -> Controls:
    """The widgets of ``view``, drawn whether or not there is a usable sentence yet (disabled
    without one), so an empty box never takes another input off the page."""
    off = tokens is None
    if view in ("model", "neuron", "reproduce"):
        with pickers[1]:
            head = st.selectbox(
                "Head", range(n_heads), key=K("head"), format_func=lambda h: f"head {h}", disabled=off, **KEEP
            )
        query = 1
        if view == "neuron":
            with pickers[3]:
                options = _token_options("query", tokens, allow_none=False)
                query = st.selectbox(
                    "Query token", options, key=K("query"), format_func=_token_name(tokens), disabled=off, **KEEP
                )
        return Controls(head=head, query=query)
    if view != "head":
        return Controls()
    with pickers[1]:
        st.session_state[K("heads")] = [h for h in STATE.value("heads") if h < n_heads]
        heads = st.multiselect(
            "Heads", list(range(n_heads)), key=K("heads"), format_func=lambda h: f"head {h}", disabled=off, **KEEP
        )
    with pickers[2]:
        heads_button(heads, n_heads, off)
    with pickers[3]:
        options = _token_options("focus", tokens, allow_none=True)
        focus = st.selectbox(
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
    with c3:
        if has_b:
            region = st.radio(
                "Which lines",
                mf.REGIONS,
                horizontal=True,
                key=K("region"),
                disabled=off,
                **KEEP,
                help="A→B: queries in sentence A attending to keys in sentence B.",
            )
        else:
            region = "All"
            st.caption("With a sentence B, lines can be filtered: A→A, B→B, A→B, B→A.")
    with c4:
        hide = st.checkbox("Hide [CLS] and [SEP]", key=K("hide"), disabled=off, **KEEP)
    with c5:
        threshold = st.slider("Hide lines fainter than", 0.01, 1.0, step=0.01, key=K("threshold"), disabled=off, **KEEP)
    return Controls(heads=tuple(heads), focus=focus, region=region, hide=hide, threshold=threshold)


# --------------------------------------------------------------------------- the views


def head_view(att: models.ModelAttention, lesson: views.ModelLesson, c: Controls) -> None:
    if not lesson.heads:
        st.info("Pick at least one head to draw its lines.")
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
        title=f"Head view, layer {layer}",
    )
    names = ", ".join(str(h) for h in heads) if len(heads) < att.n_heads else "all heads"
    table = weights_table(lesson.heads_mean, att.tokens, name=f"Layer {layer}, mean of {names}")
    show_figure(fig, "rm_head_view", table=table, focus_row=lesson.focus)
    st.markdown(
        "Each line joins a token on the left (the **query**, doing the looking) to a token on the right "
        "(the **key**, being looked at). The darker the line, the larger the attention weight; every "
        "head has its own colour. Each left token's lines in one head add up to 1, so a token that "
        "sends all its attention to one place draws one dark line. The table under the chart holds the "
        "mean of the chosen heads."
    )
    if c.hide:
        st.caption(
            "Lines to and from [CLS] and [SEP] are hidden, not renormalised: the remaining lines keep the "
            "model's own weights, so a row's visible lines may add up to less than 1."
        )


def sinks_text(lesson: views.ModelLesson) -> str:
    """What the model's heads do with [CLS] and [SEP] on this input, counted from its attentions."""
    share = f"{views.SINK_SHARE:.0%}".replace("50%", "half")
    return (
        f"On this input, {lesson.sinks_cls} of the {lesson.n_heads_total} heads put more than {share} of their "
        f"attention (averaged over the query tokens) on [CLS], and {lesson.sinks_sep} on the final [SEP]. Such a "
        "“sink” is usually read as the place a head puts its weight when nothing in the sentence is what it "
        "looks for (Clark et al., 2019, on BERT); a reading, not something these numbers prove."
    )


def roles_text(roles: views.HeadRoles) -> str:
    """How the heads differ on this input, counted from their attentions."""
    share, broad = f"{views.ROLE_SHARE:.0%}".replace("50%", "half"), f"{views.BROAD_SPREAD:.0%}"
    layer, head, best = roles.strongest_previous
    heads = f"{roles.n_previous} head puts" if roles.n_previous == 1 else f"{roles.n_previous} heads put"
    return (
        f"Heads differ. Here {heads} more than {share} of their attention on the previous token (the most: "
        f"layer {layer}, head {head}, {best:.2f}), {roles.n_next} on the next token, and {roles.n_broad} spread it "
        f"widely (each row's entropy above {broad} of the most it can be, log₂ T)."
    )


def model_view(att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    layer, head = lesson.layer, lesson.head
    grid = mf.thumbnail_grid(
        att.attentions,
        title="Model view: every head, layers (rows) × heads (columns)",
        row_names=[f"layer {i}" for i in range(att.n_layers)],
        col_names=[f"h{h}" for h in range(att.n_heads)],
        selected=(layer, head),
    )
    table = head_table(lesson.on_cls, "Share of each head's attention on [CLS]")
    row = present.chart_columns(2) if present.on() else None  # abreast on a projector
    with row[0] if row else st.container():
        show_figure(grid, "rm_model_view", table=table)
    pooled = " (larger inputs are averaged into 32 × 32 blocks)" if att.T > mf.THUMB_MAX else ""
    st.markdown(
        "Every small square is one head's full attention matrix: rows are queries, columns are keys, "
        f"bright cells are large weights{pooled}. "
        + roles_text(lesson.roles)
        + " "
        + sinks_text(lesson)
        + " The table under the chart gives each head's share on [CLS]."
    )
    title = f"Layer {layer}, head {head}: attention weights"
    with row[1] if row else st.container():
        show_attention("rm_model_big", lesson.weights, att.tokens, title=title, builder=BIG, width_px=FULL)


def _query_row(values: np.ndarray, query: str, tokens: list[str], name: str) -> Table:
    """One query's numbers over every key (T,), as the table under a bar chart."""
    return Table(values[None, :], [query], tokens, name=name, kind="bars", row_title="query", col_title="key")


def neuron_view(att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    nv, layer, head, query = lesson.neuron, lesson.layer, lesson.head, lesson.query
    figs = mf.neuron_figures(nv, att.tokens, layer=layer, head=head)
    dims = fg.dim_labels(nv.d_k)
    token = att.tokens[query]
    st.markdown(
        f"How one query becomes one row of attention. The query vector **q** of token {query} "
        f"(d_k = {nv.d_k} numbers) is compared with the key vector **k** of every token: "
        "multiply them number by number (q∘k), add up each row (q·k), divide by √d_k and take the softmax."
    )
    tables_ = {
        "q": Table(nv.q[None, :], [token], dims, name="q, the query vector", row_title="query", col_title="dimension"),
        "k": Table(nv.k, att.tokens, dims, name="k, every key vector", row_title="key", col_title="dimension"),
        "qk": Table(nv.qk, att.tokens, dims, name="q∘k, elementwise products", row_title="key", col_title="dimension"),
        "scores": _query_row(nv.scores, token, att.tokens, "q·k for every key"),
        "weights": _query_row(nv.weights, token, att.tokens, "The attention row"),
    }
    names = ("q", "k", "qk", "scores", "weights")
    row = present.chart_columns(len(names)) if present.on() else [st.container()] * len(names)  # one row there
    for column, name in zip(row, names, strict=True):
        with column:
            show_figure(figs[name], f"rm_neuron_{name}", table=tables_[name])
    j = nv.top
    st.latex(
        rf"q_{{{query}}}\cdot k_{{{j}}} = {nv.scores[j]:.3f},\quad "
        rf"\frac{{{nv.scores[j]:.3f}}}{{\sqrt{{{nv.d_k}}}}} = {nv.scaled[j]:.3f},\quad "
        rf"\mathrm{{softmax}}_{{{j}}} = {nv.weights[j]:.3f}"
    )
    st.caption(
        f"Token {query} is “{md_escape(token)}”; it attends most to token {j}, “{md_escape(att.tokens[j])}”"
        + (" (the highlighted bar, its label in bold)." if att.T <= mf.BAR_KEYS_MAX else ".")
    )


def summaries(att: models.ModelAttention, lesson: views.ModelLesson) -> None:
    layer, names = lesson.layer, [f"layer {i}" for i in range(att.n_layers)]
    row = present.chart_columns(3) if present.on() else None  # on a projector the three charts abreast
    grid = mf.thumbnail_grid(
        np.stack([lesson.means, lesson.rolled]),
        title="Per layer: the mean over heads, and the rollout up to that layer",
        row_names=["mean", "rollout"],
        col_names=names,
        selected=(0, layer),
    )
    with row[0] if row else st.container():
        show_figure(
            grid,
            "rm_means",
            table=Table(
                lesson.summary_on_cls,
                ["mean", "rollout"],
                names,
                name="Share on [CLS] per layer",
                kind="signed",
                row_title="summary",
                col_title="layer",
            ),
        )
    st.markdown(
        "Averaging the heads of a layer shows where that layer as a whole moves information. "
        "**Attention rollout** (Abnar & Zuidema, 2020) follows it through the layers: each layer's "
        "mean is mixed half-and-half with the identity (the residual connection keeps each token's own "
        "vector), and the layers are multiplied, so row i estimates how much each input token has flowed into "
        "token i after that layer. It is a heuristic, not a measurement: it uses the attention weights only and "
        "ignores the values, W_O, the feed-forward networks and LayerNorm."
    )
    st.markdown(
        "The same holds for every chart on this page: an attention weight shows where a head looks, not how much "
        "a token matters to the output. A large weight on a token whose value vector is small changes little."
    )
    charts = (
        ("rm_mean_big", lesson.means[layer], f"Layer {layer}: mean over heads"),
        ("rm_rollout_big", lesson.rolled[layer], f"Rollout through layer {layer}"),
    )
    if row:
        for column, (key, w, title) in zip(row[1:], charts, strict=True):
            with column:
                show_attention(key, w, att.tokens, title=title, builder=BIG)
    else:
        _weights_side_by_side(att, *charts)


def _weights_side_by_side(att: models.ModelAttention, *charts: tuple[str, np.ndarray, str]) -> None:
    """(key, (T, T) weights, title) charts in columns, each with its table."""
    side_by_side(lambda key, w, title: show_attention(key, w, att.tokens, title=title, builder=BIG), *charts)


def reproduce(loaded: models.LoadedModel, att: models.ModelAttention, layer: int, head: int) -> None:
    real = models.real_lesson(loaded, att, layer, head)  # the model's settings: scaled, no x100, no mask
    steps, x, d_k = real.lesson.steps, real.lesson.source.x, real.lesson.source.weights.d_k
    st.markdown(
        f"The model's own weights for layer {layer}, head {head} go into the same `attention_steps` "
        "function the other pages use: x is the layer's input, W_q, W_k, W_v and their biases are this "
        f"head's slice of the layer, and the scores are divided by √{d_k}. "
        "The result matches the model's attention up to rounding:"
    )
    st.metric("max |Δ| between attn_core and the model", f"{real.max_abs_error:.1e}")
    st.latex(
        rf"\mathrm{{softmax}}\!\left(\frac{{(XW_q+b_q)(XW_k+b_k)^\top}}{{\sqrt{{{d_k}}}}}\right),"
        rf"\quad X \in \mathbb{{R}}^{{{x.shape[0]}\times{x.shape[1]}}},\ "
        rf"\frac{{1}}{{\sqrt{{{d_k}}}}} = {steps.factor:.4f}"
    )
    _weights_side_by_side(
        att,
        ("rm_repro_ours", steps.weights, "attn_core, float64"),
        ("rm_repro_model", att.attentions[layer, head].astype(np.float64), "The model's own attention"),
    )


def it_questions(loaded: models.LoadedModel, layer: int, head: int) -> list[quiz.Question]:
    """Predict, then reveal: where does "it" look in each animal sentence, in this layer and head?
    Made from the model's own attention rows."""
    rows = it_rows(loaded, loaded.name, layer, head)
    return [
        quiz.Question(
            key=f"rm_quiz_{label}",
            prompt=f"Layer {layer}, head {head}. In “{text}”, which token does “it” give the most weight?",
            options=tuple(f"{n}: {t}" for n, t in enumerate(rows[label]["tokens"])),
            answer=int(np.argmax(rows[label]["row"])),
            value=float(rows[label]["row"].max()),
            value_label="its weight",
        )
        for label, text in models.IT_SENTENCES.items()
    ]


def answers_hidden(questions: list[quiz.Question]) -> bool:
    """Whether a prediction is still to be revealed (what would answer it stays hidden)."""
    return bool(questions) and not all(quiz.revealed(q) for q in questions)


def predict_it(questions: list[quiz.Question]) -> None:
    st.markdown("**Predict first: where does “it” look?** Each sentence on its own.")
    for q in questions:
        with st.container(border=True):
            quiz.ask(q)
    quiz.score_line()


def suggestion(loaded: models.LoadedModel, questions: list[quiz.Question]) -> None:
    """The head to try for "it" (models.it_head) and what it does there, from the model's numbers."""
    if loaded.name != models.DEFAULT_MODEL:  # the animal sentences are checked on the embedded model
        return
    layer, head = it_head(loaded, loaded.name)
    if answers_hidden(questions):  # its numbers could give answers away
        st.caption(
            f"Try layer {layer}, head {head} for “it”; its numbers stay hidden until you have revealed your "
            "predictions."
        )
    else:
        st.caption(it_caption(it_rows(loaded, loaded.name, layer, head), layer, head))


def about_the_input(loaded: models.LoadedModel, att: models.ModelAttention, text_a: str, text_b: str) -> None:
    """The model, the tokens as the model reads them, and the download."""
    st.caption(
        f"Model {md_escape(loaded.name)}: {loaded.n_layers} layers × {loaded.n_heads} heads, "
        f"d_model = {loaded.d_model}, d_k = {loaded.d_k}. Running on **{models.device_label(loaded)}**."
    )
    st.markdown(f"**{att.T} tokens** as the model sees them:")
    show_tokens(att.tokens)
    st.caption(
        "This tokenizer lowercases the text and splits rare words into WordPiece parts (## marks a part "
        "that continues a word). It adds [CLS] at the start and [SEP] after each sentence; characters "
        "outside its vocabulary become [UNK]." + (" Some of this input became [UNK]." if "[UNK]" in att.tokens else "")
    )
    st.download_button(
        "Download the attentions (.npz: every layer and head, L × H × T × T, and the tokens)",
        icon=":material/download:",
        data=lambda: tables.to_npz(
            {"attentions": att.attentions, "tokens": np.array(att.tokens, dtype=str)},
            {"model": loaded.name, "sentence_a": text_a, "sentence_b": text_b if text_b.strip() else None},
        ),
        file_name="attentions.npz",
        mime="application/octet-stream",
        on_click="ignore",
        key="rm_npz",
    )


# --------------------------------------------------------------------------- the page


@st.cache_resource(show_spinner=False)
def what_the_model_is() -> str:
    """One sentence on where the embedded model comes from, read from its config.json and model card."""
    shape = tr.minilm_shape()
    if shape is None:
        return ""
    trained = (
        ", and its model card, shipped with it, says it was then fine-tuned to make sentence embeddings"
        if shape.fine_tuned
        else ""
    )
    return (
        f" It has BERT's architecture (its config.json: {shape.architecture}, {shape.n_layers} layers of "
        f"{shape.n_heads} heads), but it starts from {shape.base}, a MiniLM distilled from a larger model (Wang et "
        f"al., 2020){trained}. So its heads may not do what papers report for BERT-base's."
    )


fresh = K("a") not in st.session_state  # the page's first run in this visit
STATE.start()
if fresh and sentence.carried(K("a")):
    st.session_state[PICK_IT] = True  # a sentence from another page: "it" there, if it has one
st.title("Real model: the attention heads of BERT")
present.intro(
    "Most pages use small random weights, so that every number stays easy to follow. Here every weight "
    "comes from a trained model, all-MiniLM-L6-v2, a small BERT that runs on this computer with no network "
    "(Step by step can borrow one of its heads, and the Decoder page shows a trained model of our own)."
    + what_the_model_is()
    + " Type one or two sentences and look at its heads from several angles."
)

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
if present.on() or present.following():
    deck = present.Deck(tuple(VIEW_NAMES.values()), step_key=K("view"), noun="View", values=tuple(VIEW_NAMES))
    deck.nav()
    view = deck.values[deck.current]
    # The view on the stage: its charts as tall as the screen allows, its pickers and text beside
    # them (or, for a row of charts that needs the width, below them).
    beside = view in ("head", "reproduce")
    deck.section(deck.current, beside=beside)
    where = st.sidebar
else:
    view_column, where = st.columns([4, 1], vertical_alignment="bottom")
    with view_column:
        view = st.radio("View", list(VIEW_NAMES), format_func=VIEW_NAMES.get, horizontal=True, key=K("view"))
with where:
    predict = st.toggle(
        "Predict first",
        key=K("predict"),
        help="Guess where “it” looks in the two animal sentences before the model shows it.",
    )
if not present.on():
    pickers = st.columns([4, 4, 2, 4], vertical_alignment="bottom")  # layer, heads, "all heads", token
else:  # beside the view's chart, or (for a row of charts that takes the width) in the sidebar
    pickers = present.control_columns(4) if beside else present.input_columns(4)
with pickers[0]:
    layer = st.selectbox("Layer", range(LAYERS), key=K("layer"), format_func=lambda i: f"layer {i}")

# The model and its run on this input; what goes wrong is said below the view's own inputs.
problem_text, att = None, None
loaded, problem = try_load(name)
if problem and name != models.DEFAULT_MODEL:
    st.error(f"{md_escape(problem)} Showing the embedded model instead.")
    loaded, problem = try_load(models.DEFAULT_MODEL)
if loaded is None:
    problem_text = (
        f"The real model is not available: {md_escape(problem or 'unknown error')} "
        "The other pages do not need it and keep working."
    )
elif not text_a.strip():
    place = "in the sidebar" if present.on() else "above"  # where presenter mode keeps the sentences
    problem_text = f"Type a sentence A {place} (it is empty), or pick an example, to see the model's attention."
else:
    try:
        att = _attend(loaded, loaded.name, loaded.source, text_a, text_b if text_b.strip() else None)
    except ValueError as err:
        problem_text = md_escape(str(err))
    except Exception as err:
        log.exception("the model failed on this input")
        problem_text = f"The model failed on this input ({type(err).__name__}); try a shorter text."

n_heads = loaded.n_heads if loaded is not None else HEADS
if att is not None:
    pick_it(list(att.tokens))
has_b = att.sentence_b_start is not None if att is not None else bool(text_b.strip())
controls = view_controls(view, pickers, None if att is None else list(att.tokens), n_heads, has_b)
lesson = None
if att is not None:
    lesson = views.model_lesson(
        att.attentions,
        att.queries,
        att.keys,
        view,
        layer=layer,
        head=controls.head,
        heads=controls.heads,
        focus=controls.focus,
        query=controls.query,
    )
    # Each view writes back the token it clamped; the other view's token stays as it was.
    STATE.sync({"focus": lesson.focus} if view == "head" else {"query": lesson.query} if view == "neuron" else {})
else:
    STATE.sync()

if problem_text is not None:
    (st.info if loaded is not None and not text_a.strip() else st.error)(problem_text)
    st.stop()

if loaded.fallback:
    st.warning(md_escape(loaded.fallback))
# The question's head: the view's own head, or in the head view the first head chosen.
questions = []
if predict:
    q_head = (lesson.layer, lesson.head if view != "head" else (lesson.heads[0] if lesson.heads else 0))
    questions = it_questions(loaded, *q_head)
if att.fallback:
    st.warning(md_escape(att.fallback))
if att.truncated:
    st.warning(
        f"The input is longer than {models.MAX_TOKENS} tokens, the most this model reads; only the first "
        f"{models.MAX_TOKENS} are used (a sentence pair is trimmed from the longer sentence)."
    )
if questions:
    predict_it(questions)
if answers_hidden(questions):  # every view draws the asked head's weights, so each would answer it
    st.info(
        f"This view waits until you have revealed your predictions: it would show the weights of layer {q_head[0]}, "
        f"head {q_head[1]}, the head the questions ask about."
    )
elif view == "head":
    head_view(att, lesson, controls)
elif view == "model":
    model_view(att, lesson)
elif view == "neuron":
    neuron_view(att, lesson)
elif view == "summaries":
    summaries(att, lesson)
else:
    reproduce(loaded, att, lesson.layer, lesson.head)
suggestion(loaded, questions)  # under the view, which comes first on a laptop and a projector alike
about_the_input(loaded, att, text_a, text_b)


# --------------------------------------------------------------------------- what it showed


def what_it_showed(
    loaded: models.LoadedModel, att: models.ModelAttention, lesson: views.ModelLesson, questions: list[quiz.Question]
) -> list[str]:
    """The footer's lines, from the model's own numbers (the "it" head's only once predictions are revealed)."""
    share = f"{views.SINK_SHARE:.0%}".replace("50%", "half")
    lines = [
        f"{loaded.n_layers} layers of {loaded.n_heads} heads read your {att.T} tokens in {lesson.n_heads_total} "
        f"patterns of their own; {lesson.sinks_cls} of the heads put more than {share} of their attention on [CLS]."
    ]
    if loaded.name == models.DEFAULT_MODEL and not answers_hidden(questions):
        layer, head = it_head(loaded, loaded.name)
        rows = it_rows(loaded, loaded.name, layer, head)
        tired, congested = rows["tired"]["animal"], rows["congested"]["animal"]
        lines.append(
            f"In layer {layer}, head {head}, the head this page opens on, “it” gives “animal” {tired:.2f} of its "
            f"weight in the “tired” sentence and {congested:.2f} in the “congested” one: "
            + (
                "changing the last word changes where a trained head looks."
                if abs(tired - congested) >= 0.05
                else "the last word hardly changes where this head looks."
            )
        )
    return lines


footer(__file__, what_it_showed(loaded, att, lesson, questions))
