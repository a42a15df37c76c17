"""Multi-head attention: H heads on the same sentence, concatenated and mixed by W_O."""

import numpy as np
import streamlit as st

from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from attn_core.figures.lab import concat_labels
from ui import outline, present, quiz
from ui.charts import show_attention, show_heatmap
from ui.common import PRESETS, checked_tokens, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

D_MODELS = (4, 8, 16, 32, 64)
D_KS = (1, 2, 4, 8, 16, 32)
HEAD_COLUMNS = 2
TIE = 0.005  # Predict first asks which head looks back only when the best beats the next by this much
SECTIONS = ("Each head with its own weights", "Concatenate, then mix with W_O")
STATE = PageState(
    "mh",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("heads", 4, "int", lo=1, hi=8),
        Param("d_model", 16, "choice", choices=D_MODELS),
        Param("d_k", 4, "choice", choices=D_KS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("causal", False, "bool"),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(SECTIONS)),
    ),
)
K = STATE.key


@st.cache_data(show_spinner=False, max_entries=256)
def _lesson(tokens: tuple[str, ...], d_model: int, n_heads: int, d_k: int, seed: int, causal: bool):
    """The page's one attn_core call."""
    return lab_results.multi_head_lesson(tokens, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=seed, causal=causal)


def previous_question(lesson: lab_results.MultiHeadLesson) -> quiz.Question | None:
    """Section 1: which head puts the most weight on the token just before? Read from the charts
    (the heads are random, so there is nothing to reason from before seeing them). None with one
    head, one token, or two heads too close to tell apart."""
    share = lesson.previous_token  # (H,) or None
    if share is None or len(share) < 2:
        return None
    first, second = np.sort(share)[::-1][:2]
    if first - second < TIE:
        return None
    return quiz.Question(
        key="mh_quiz_previous",
        prompt="Look at the heads above. Which one puts the most weight on the previous token (the cell just "
        "left of the diagonal), on average over the rows?",
        options=tuple(f"Head {h + 1}" for h in range(len(share))),
        answer=int(np.argmax(share)),
        value=float(share.max()),
        value_label="its mean weight on the previous token",
        explain="A head like this hands every token the word just before it.",
    )


def concat_question(lesson: lab_results.MultiHeadLesson, d_model: int) -> quiz.Question:
    """Section 2: the shape of Concat(head_1, ..., head_H), among the usual wrong guesses (those
    that coincide with the answer at these sizes are left out; at least one always differs)."""
    T, H, d_v = len(lesson.tokens), lesson.n_heads, lesson.d_v
    answer = (T, H * d_v)
    # stacked heads, one head, W_O's output, a weight matrix, one row per head
    guesses = [(H * T, d_v), (T, d_v), (T, d_model), (T, T), (H, T * d_v)]
    shapes = sorted(list(dict.fromkeys([answer, *guesses]))[:4])
    if H == 1:
        heads, concat = f"The one head returns a {T} × {d_v} matrix", "Concat(head_1)"
        explain = "With one head there is nothing to put beside it: the concatenation is that head's output."
    else:
        heads, concat = f"Each of the {H} heads returns a {T} × {d_v} matrix", f"Concat(head_1, …, head_{H})"
        explain = (
            f"The heads are put side by side, not stacked: each token keeps its one row, which now holds "
            f"{H} × {d_v} = {H * d_v} numbers, {d_v} from each head."
        )
    return quiz.Question(
        key="mh_quiz_concat",
        prompt=f"{heads}, one row per token. What shape is {concat}, the matrix that W_O multiplies?",
        options=tuple(f"{rows} × {cols}" for rows, cols in shapes),
        answer=shapes.index(answer),
        explain=explain,
    )


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(SECTIONS, step_key=K("step"), numbered=True)
PRESENTED_COLUMNS = 4  # on a projector the heads stand four abreast, the width of the screen
st.title("Multi-head attention")
present.intro(
    "One head gives each token one way of looking at the others. Multi-head attention runs several "
    "heads side by side, each with its own W_q, W_k and W_v. In a trained model the heads specialise: one "
    "may follow the previous word while another links a pronoun to its noun (the Decoder page measures a "
    "previous-token head of our trained decoder, and the Real model page shows a trained BERT's heads). The "
    "heads here are random, so they show only that different weights give different patterns. Their outputs "
    "are glued together and mixed back to d_model numbers per token by one more matrix, W_O."
)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"))
outline.steps(deck)
with present.inputs():
    tokens = checked_tokens(text)
    if tokens:
        show_tokens(tokens)
c1, c2, c3, c4, c5 = present.input_columns(5)
n_heads = c1.slider("Heads H", min_value=1, max_value=8, key=K("heads"))
d_model = c2.select_slider("d_model", options=D_MODELS, key=K("d_model"))
d_k = c3.select_slider("d_k = d_v", options=D_KS, key=K("d_k"))
seed = c4.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
causal = c5.toggle("Causal mask", key=K("causal"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Ask which head looks at the previous token, and hide the shapes of the concatenation until you "
    "have guessed them.",
)
STATE.sync()
if tokens is None:
    st.stop()

lesson = _lesson(tuple(tokens), int(d_model), int(n_heads), int(d_k), int(seed), bool(causal))
mh, T, d_v = lesson.steps, len(tokens), lesson.d_v
questions = (previous_question(lesson), concat_question(lesson, int(d_model))) if predict else (None, None)
deck.nav()
outline.changes(
    deck,
    (outline.fingerprint(mh.heads), outline.fingerprint(mh.concat, mh.w_o, mh.output)),
    {"Sentence": text, "Heads H": n_heads, "d_model": d_model, "d_k = d_v": d_k, "Seed": seed, "Causal mask": causal},
    fresh=fresh,
)

# --------------------------------------------------------------------------- the heads
if deck.section(0, beside=False, heading=f"{n_heads} head{'s' if n_heads > 1 else ''}, each with its own weights"):
    st.markdown(
        "Every head sees the same embeddings X but projects them with different random matrices, so each "
        "head's weights differ. Each row is one query token and sums to 1."
        + (" With the causal mask a token only looks at itself and the tokens before it." if causal else "")
    )
    width = lesson.heads_width
    relation = "equal to" if width == d_model else ("more than" if width > d_model else "less than")
    usual = (
        f"d_k = {d_model} / {n_heads} = {lesson.usual_d_k}"
        if lesson.usual_d_k is not None
        else f"{d_model} / {n_heads}, which is not a whole number"
    )
    st.markdown(
        "Here d_k has a slider of its own, so you can change it alone. Most models tie it to the others, "
        "d_k = d_model / H, so that the H heads together are exactly d_model wide, with as many weights as one "
        f"head of full width. With d_model = {d_model} and H = {n_heads} that rule gives {usual}; your "
        f"H · d_k = {n_heads} · {lesson.d_k} = {width} is {relation} d_model."
    )
    present.formula(
        rf"\mathrm{{head}}_h = \mathrm{{softmax}}\!\left(\frac{{Q_h K_h^\top}}{{\sqrt{{{d_k}}}}}\right) V_h,"
        rf"\quad Q_h = X W_q^{{(h)}}:\ ({T}\times{d_model})({d_model}\times{d_k}) \to {T}\times{d_k}"
    )
    per_row = PRESENTED_COLUMNS if present.on() else HEAD_COLUMNS
    for start in range(0, n_heads, per_row):
        columns = present.chart_columns(per_row)
        for h in range(start, min(start + per_row, n_heads)):
            with columns[h - start]:
                # On a projector only the last of a row has the colour bar (all share 0 to 1).
                scale = not present.on() or h == min(start + per_row, n_heads) - 1
                show_attention(
                    f"mh_head_{h}", mh.heads[h].weights, tokens, title=f"Head {h + 1} weights", show_scale=scale
                )
    if questions[0] is not None:
        with st.container(border=True):
            quiz.ask(questions[0])
            if not deck.shows(1):  # the score goes under the page's last question
                quiz.score_line()
    elif predict:
        st.caption(
            "Predict first has no question about these heads: it needs two heads, two tokens, and one head "
            f"ahead of the others by {TIE:g} or more."
        )

# --------------------------------------------------------------------------- concat, W_O, output
shapes_hidden = False
if deck.section(1, beside=False):
    if predict:
        with st.container(border=True):
            shapes_hidden = not quiz.ask(questions[1])
            quiz.score_line()
    if shapes_hidden:
        st.info("Hidden until you reveal your prediction (Predict first is on): every shape below gives it away.")
if deck.shows(1) and not shapes_hidden:
    st.markdown(
        f"Each head returns a {T} × {d_v} matrix. Putting them side by side gives one {T} × "
        f"{mh.concat.shape[1]} matrix; W_O ({mh.w_o.shape[0]} × {mh.w_o.shape[1]}) maps it back to d_model = "
        f"{d_model} numbers per token, letting the model combine what the different heads found."
    )
    other = lesson.other_v
    st.markdown(
        f"This page keeps d_v = d_k, as most models do, but only queries and keys must share a width (a dot "
        f"product needs two vectors of one length). The values may have any width: head 1 with a W_v of "
        f"{other.v.shape[1]} columns instead of {d_v} gives the same weights (max |Δ| = {lesson.other_v_gap:g}) "
        f"and an output of shape {other.output.shape[0]} × {other.output.shape[1]}; the concatenation is then "
        "H · d_v wide."
    )
    present.formula(
        r"\mathrm{MultiHead} = \underbrace{\mathrm{Concat}(\mathrm{head}_1, \dots, "
        rf"\mathrm{{head}}_{{{n_heads}}})}}_{{{mh.concat.shape[0]}\times{mh.concat.shape[1]}}}\ "
        rf"\underbrace{{W_O}}_{{{mh.w_o.shape[0]}\times{mh.w_o.shape[1]}}}"
        rf" = \underbrace{{\mathrm{{output}}}}_{{{mh.output.shape[0]}\times{mh.output.shape[1]}}}"
    )
    concat, w_o, output = present.chart_columns(3) if present.on() else (st.container(), *st.columns(2))
    with concat:
        show_heatmap(
            "mh_concat",
            mh.concat,
            rows=tokens,
            cols=concat_labels(n_heads, d_v),
            title=f"Concat(head_1..head_H): {mh.concat.shape[0]} × {mh.concat.shape[1]}",
            row_title="token",
            col_title="head.dimension",
            value_name="value",
            width_px=FULL_WIDTH_PX,
        )
    with w_o:
        show_heatmap(
            "mh_w_o",
            mh.w_o,
            rows=concat_labels(n_heads, d_v),
            cols=dim_labels(d_model),
            title=f"W_O: {mh.w_o.shape[0]} × {mh.w_o.shape[1]}",
            row_title="head.dimension",
            col_title="output dimension",
            value_name="w_o",
        )
    with output:
        show_heatmap(
            "mh_output",
            mh.output,
            rows=tokens,
            cols=dim_labels(d_model),
            title=f"Output: {mh.output.shape[0]} × {mh.output.shape[1]}",
            row_title="token",
            col_title="output dimension",
            value_name="output",
        )
    st.caption("Blue is negative, red is positive, white is 0.")

# --------------------------------------------------------------------------- what it showed
plural = "s" if n_heads > 1 else ""
footer(
    __file__,
    [
        f"{n_heads} head{plural} turned the same {T} tokens into {n_heads} matri{'ces' if n_heads > 1 else 'x'} of "
        f"{T}×{T} weights, each head with its own W_q, W_k and W_v (d_k = {d_k}).",
        f"Side by side the heads' outputs make a {mh.concat.shape[0]}×{mh.concat.shape[1]} matrix, and W_O "
        f"({mh.w_o.shape[0]}×{mh.w_o.shape[1]}) maps it back to {mh.output.shape[0]}×{mh.output.shape[1]}: one "
        "row per token, as wide as the input X."
        if not shapes_hidden  # the shapes are the question's answer
        else "Side by side the heads' outputs are mixed back by W_O; the shapes wait for your prediction.",
    ],
    deck,
)
