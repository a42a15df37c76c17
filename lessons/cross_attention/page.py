"""Cross-attention: queries from one sentence, keys and values from another."""

import streamlit as st

from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from ui import outline, present, quiz, sentence
from ui.charts import show_attention, show_heatmap
from ui.common import checked_tokens, md_escape, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

# Translation pairs: the i-th source goes with the i-th target.
SOURCES = (
    "The cat sat on the mat.",
    "I like green tea.",
    "Where is the train station?",
)
TARGETS = (
    "Le chat s'est assis sur le tapis.",
    "J'aime le thé vert.",
    "Où est la gare ?",
)
D_MODELS = (4, 8, 16, 32, 64)
D_KS = (1, 2, 4, 8, 16, 32)
SECTIONS = (
    "Queries from one sentence, keys and values from the other",
    "A rectangular score matrix",
    "The output: one row per query",
)
STATE = PageState(
    "cross",
    (
        Param("source", SOURCES[0], "text", shared=True),
        Param("target", TARGETS[0], "text"),
        Param("swap", False, "bool"),
        Param("d_model", 16, "choice", choices=D_MODELS),
        Param("d_k", 4, "choice", choices=D_KS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(SECTIONS)),
    ),
)
K = STATE.key


@st.cache_data(show_spinner=False, max_entries=256)
def _lesson(source: tuple[str, ...], target: tuple[str, ...], d_model: int, d_k: int, seed: int, swap: bool):
    """The page's one attn_core call."""
    return lab_results.cross_lesson(source, target, d_model=d_model, d_k=d_k, seed=seed, swap=swap)


def shape_question(lesson: lab_results.CrossLesson, d_k: int) -> quiz.Question | None:
    """Section 2: the shape of the weight matrix, among its transpose, the two squares and Q's shape
    (those that coincide with it at these lengths are left out); None when nothing else is left."""
    T_q, T_k = lesson.steps.weights.shape
    answer = (T_q, T_k)
    shapes = sorted(list(dict.fromkeys([answer, (T_k, T_q), (T_q, T_q), (T_k, T_k), (T_q, d_k), (1, T_k)]))[:4])
    if len(shapes) < 2:
        return None
    q_name, kv_name = lesson.q_name, lesson.kv_name
    return quiz.Question(
        key="cross_quiz_shape",
        prompt=f"Queries come from the {q_name} sentence ({T_q} tokens), keys and values from the {kv_name} "
        f"sentence ({T_k} tokens), with d_k = {d_k}. What shape is the matrix of attention weights (rows × columns)?",
        options=tuple(f"{rows} × {cols}" for rows, cols in shapes),
        answer=shapes.index(answer),
        explain=f"One row per query ({q_name} token) and one column per key ({kv_name} token): each {q_name} "
        f"token spreads one unit of weight over the {T_k} {kv_name} tokens. d_k is summed away in QKᵀ.",
    )


fresh = K("source") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(SECTIONS, step_key=K("step"), numbered=True)
outline.steps(deck)
st.title("Cross-attention")
present.intro(
    "In self-attention one sentence asks and answers its own questions. In cross-attention, as in a "
    "translation model, the sentence being written (the target, on the decoder side) asks the questions, "
    "and the sentence being translated (the source, on the encoder side) supplies the keys and values. "
    "Each target word can then pull in the source words it needs."
)

left, right = present.input_columns(2)  # in presenter mode the sidebar
with left:
    source = sentence_input(K("source"), label="Source sentence (encoder side)", presets=SOURCES)
    sentence.note(
        K("source"),
        "The source is your sentence from another page. The target is still the example's, so type a "
        "translation of yours to make a pair.",
    )
    source_tokens = checked_tokens(source, what="source sentence")
    if source_tokens:
        show_tokens(source_tokens)
with right:
    target = sentence_input(K("target"), label="Target sentence (decoder side)", presets=TARGETS)
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
d_model = c2.select_slider("d_model", options=D_MODELS, key=K("d_model"))
d_k = c3.select_slider("d_k = d_v", options=D_KS, key=K("d_k"))
seed = c4.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Guess the shape of the weight matrix before the scores, the weights and the output are shown.",
)
STATE.sync()

if source_tokens is None or target_tokens is None:
    st.stop()  # the message sits under the empty box; every widget above stays on the page
lesson = _lesson(tuple(source_tokens), tuple(target_tokens), int(d_model), int(d_k), int(seed), bool(swap))
steps, q_tokens, kv_tokens = lesson.steps, list(lesson.q_tokens), list(lesson.kv_tokens)
q_name, kv_name = lesson.q_name, lesson.kv_name
T_q, T_k = steps.scores.shape
question = shape_question(lesson, int(d_k)) if predict else None
hidden = question is not None and not quiz.revealed(question)  # section 3's shape gives the answer away too
HIDDEN = "Hidden until you reveal your prediction{} (Predict first is on): every shape here gives it away."


def setup() -> None:
    """Where the queries, keys and values come from (in presenter mode, under section 1's charts)."""
    st.caption(
        f"Queries come from the {q_name} sentence ({T_q} tokens), keys and values from the {kv_name} sentence "
        f"({T_k} tokens). Both are embedded with the same seed and d_model; positions are counted within each "
        "sentence."
    )
    st.markdown(
        "For simplicity this page uses one random set of W_q, W_k and W_v, applied to the sentences' own "
        "embeddings. In a trained translation model the cross-attention layer has its own W_q, W_k and W_v, "
        "separate from its self-attention, and its keys and values come from the encoder's final output, "
        "after every encoder layer has mixed the source sentence, not from the source embeddings."
    )


if not present.on():
    setup()
deck.nav()
outline.changes(
    deck,
    (
        outline.fingerprint(steps.q, steps.k, steps.v),
        outline.fingerprint(steps.scaled, steps.weights),
        outline.fingerprint(steps.output),
    ),
    {
        "Source sentence": source,
        "Target sentence": target,
        "Queries from the source": swap,
        "d_model": d_model,
        "d_k = d_v": d_k,
        "Seed": seed,
    },
    fresh=fresh,
)

# --------------------------------------------------------------------------- Q, K, V
if deck.section(0, beside=False):
    st.markdown(
        f"W_q is applied to the {q_name} embeddings and W_k, W_v to the {kv_name} embeddings. The two "
        "sentences may have different lengths; only the width d_k has to match so that every query can be "
        "compared with every key."
    )
    present.formula(
        rf"Q = X_q W_q:\ {T_q}\times{d_k},\qquad K = X_{{kv}} W_k:\ {T_k}\times{d_k},\qquad "
        rf"V = X_{{kv}} W_v:\ {T_k}\times{steps.v.shape[1]}"
    )
    parts = (
        ("q", "Queries Q", steps.q, q_tokens, q_name),
        ("k", "Keys K", steps.k, kv_tokens, kv_name),
        ("v", "Values V", steps.v, kv_tokens, kv_name),
    )
    for col, (name, title, matrix, rows, who) in zip(present.chart_columns(3), parts, strict=True):
        with col:
            show_heatmap(
                f"cross_{name}",
                matrix,
                rows=rows,
                cols=dim_labels(matrix.shape[1]),
                title=title,
                row_title=f"{who} token",
                col_title="dimension",
                value_name=name,
            )
    if present.on():
        setup()

# --------------------------------------------------------------------------- scores and weights
if deck.section(1):
    if question is not None:
        with st.container(border=True):
            hidden = not quiz.ask(question)
            quiz.score_line()
    elif predict:
        st.caption("Predict first has no question at these sizes: every shape to choose from would be 1 × 1.")
    if hidden:
        st.info(HIDDEN.format(""))
if deck.shows(1) and not hidden:
    st.markdown(
        f"Every {q_name} token (a row) is compared with every {kv_name} token (a column), so the scores form a "
        f"{T_q} × {T_k} rectangle instead of a square. The softmax runs along each row: each {q_name} token "
        f"spreads one unit of attention over the {kv_name} tokens."
    )
    present.formula(
        rf"\mathrm{{weights}} = \mathrm{{softmax}}\!\left(\frac{{Q K^\top}}{{\sqrt{{{d_k}}}}}\right):\ "
        rf"({T_q}\times{d_k})({d_k}\times{T_k}) \to {T_q}\times{T_k},\qquad "
        rf"\frac{{1}}{{\sqrt{{{d_k}}}}} = {steps.factor:.3f}"
    )
    left, right = present.chart_columns(2)
    with left:
        show_heatmap(
            "cross_scores",
            steps.scaled,
            rows=q_tokens,
            cols=kv_tokens,
            title="Cross-attention scores QKᵀ/√d_k",
            row_title=f"query ({q_name})",
            col_title=f"key ({kv_name})",
            value_name="score",
        )
    with right:
        show_attention(
            "cross_weights",
            steps.weights,
            q_tokens,
            kv_tokens,
            title="Cross-attention weights",
            row_title=f"query ({q_name})",
            col_title=f"key ({kv_name})",
        )
    st.caption(
        f"Row 0 is query 0 ({md_escape(q_tokens[0])}); its {T_k} weights add up to 1. These weights are random "
        "until a model is trained; a trained translation model learns to line up words that mean the same thing."
    )

# --------------------------------------------------------------------------- output
if deck.section(2) and hidden:  # the heading (or, in presenter mode, the stage) comes first
    st.info(HIDDEN.format(" in section 2" if present.paged() else ""))
if deck.shows(2) and not hidden:
    st.markdown(
        f"Each row of the output is a weighted mix of the {kv_name} values, so the output has one row per "
        f"{q_name} token. In a translation model this is how the words being written read the source sentence."
    )
    present.formula(
        rf"\mathrm{{output}} = \mathrm{{weights}}\, V:\ ({T_q}\times{T_k})({T_k}\times{steps.v.shape[1]}) \to "
        rf"{steps.output.shape[0]}\times{steps.output.shape[1]}"
    )
    show_heatmap(
        "cross_output",
        steps.output,
        rows=q_tokens,
        cols=dim_labels(steps.output.shape[1]),
        title="Cross-attention output",
        row_title=f"query ({q_name})",
        col_title="dimension",
        value_name="output",
        width_px=FULL_WIDTH_PX,
    )

# --------------------------------------------------------------------------- what it showed
footer(
    __file__,
    [
        f"{T_q} queries from the {q_name} sentence met {T_k} keys from the {kv_name} sentence: the scores form a "
        f"{T_q}×{T_k} rectangle, and after the softmax each row of weights adds up to 1.",
        f"The output has one row per {q_name} token ({steps.output.shape[0]}×{steps.output.shape[1]}), each a mix "
        f"of the {kv_name} sentence's values.",
    ]
    if not hidden  # the shapes are the question's answer
    else [
        f"Queries from the {q_name} sentence met keys from the {kv_name} sentence, and each row of weights adds "
        "up to 1; the shapes wait for your prediction."
    ],
    deck,
)
