"""Multi-head attention's words: its one compute call, every sentence, title and formula it
computes from the lesson's numbers, its predict-first questions and its longer prose.

Plain Python (no Streamlit): the page places each piece next to its chart, and
tests/unit/test_multi_head_words.py checks each claim against the numbers it is given. Heads
are named by attn_core.numbering: head 1 is the first (``heads[0]``).
"""

from __future__ import annotations

import numpy as np

from attn_core import lab_results
from attn_core.numbering import head_name
from ui.question import Question

D_MODELS = (4, 8, 16, 32, 64)
D_KS = (1, 2, 4, 8, 16, 32)
TIE = 0.005  # Predict first asks which head looks back only when the best beats the next by this much
SECTIONS = {"heads": "Each head with its own weights", "concat": "Concatenate, then mix with W_O"}


def _a(n: int) -> str:
    """The article before a number said aloud: "an 8", "an 11", "an 18", "a 7"."""
    return "an" if str(n).startswith("8") or n in (11, 18) else "a"


def lesson(
    tokens: tuple[str, ...], d_model: int, n_heads: int, d_k: int, seed: int, causal: bool
) -> lab_results.MultiHeadLesson:
    """The page's one attn_core call (the page caches it)."""
    return lab_results.multi_head_lesson(tokens, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=seed, causal=causal)


INTRO = (
    "One head gives each token one way of looking at the others. Multi-head attention runs several "
    "heads side by side, each with its own W_q, W_k and W_v. In a trained model the heads specialise: one "
    "may follow the previous word while another links a pronoun to its noun (the Decoder page measures a "
    "previous-token head of our trained decoder, and the Real model page shows a trained BERT's heads). The "
    "heads here are random, so they show only that different weights give different patterns. Their outputs "
    "are glued together and mixed back to d_model numbers per token by one more matrix, W_O."
)


def _heads(n: int) -> str:
    return f"{n} head{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------- the heads


def heads_heading(n_heads: int) -> str:
    """Section 1's heading: "4 heads, each with its own weights"."""
    return f"{_heads(n_heads)}, each with its own weights"


def head_title(h: int) -> str:
    """The chart title of the 0-based head ``h``: "Head 1 weights" for heads[0]."""
    return f"{head_name(h).capitalize()} weights"


def heads_text(lesson: lab_results.MultiHeadLesson, causal: bool) -> str:
    """What the heads' charts show: the same X, different projections, and whether the weights
    really differ between heads (with one token every row is the token's own 1)."""
    heads = lesson.steps.heads
    if len(heads) == 1:
        differ = ". This page runs one head now: add heads to compare them."
    elif len(lesson.tokens) == 1:
        differ = ". With one token every head can only give it weight 1 on itself, so here the heads cannot differ."
    elif all(np.array_equal(heads[0].weights, head.weights) for head in heads[1:]):
        differ = ", yet here their weights happen to be equal."
    else:
        differ = ", so the heads' weights differ."
    text = (
        "Every head sees the same embeddings X but projects them with its own random W_q, W_k and W_v"
        + differ
        + " Each row is one query token and sums to 1."
    )
    if causal:
        text += " With the causal mask a token only looks at itself and the tokens before it."
    return (
        text + " The heads are numbered from 1, as everywhere in this app (bertviz and TransformerLens number them "
        "from 0: their head 0 is head 1 here)."
    )


def usual_d_k_text(lesson: lab_results.MultiHeadLesson) -> str:
    """d_k = d_model / H, the usual choice, against the H · d_k the sliders give."""
    d_model, H, width = lesson.d_model, lesson.n_heads, lesson.heads_width
    relation = "equal to" if width == d_model else ("more than" if width > d_model else "less than")
    usual = (
        f"d_k = {d_model} / {H} = {lesson.usual_d_k}"
        if lesson.usual_d_k is not None
        else f"{d_model} / {H}, which is not a whole number"
    )
    return (
        "Here d_k has a slider of its own, so you can change it alone. Most models tie it to the others, "
        "d_k = d_model / H, so that the H heads together are exactly d_model wide, with as many weights as one "
        f"head of full width. With d_model = {d_model} and H = {H} that rule gives {usual}; your "
        f"H · d_k = {H} · {lesson.d_k} = {width} is {relation} d_model."
    )


def heads_latex(lesson: lab_results.MultiHeadLesson) -> str:
    """One head's formula with the shapes of Q_h = X W_q^(h)."""
    T, d_model, d_k = len(lesson.tokens), lesson.d_model, lesson.d_k
    return (
        rf"\mathrm{{head}}_h = \mathrm{{softmax}}\!\left(\frac{{Q_h K_h^\top}}{{\sqrt{{{d_k}}}}}\right) V_h,"
        rf"\quad Q_h = X W_q^{{(h)}}:\ ({T}\times{d_model})({d_model}\times{d_k}) \to {T}\times{d_k}"
    )


def previous_question(lesson: lab_results.MultiHeadLesson) -> Question | None:
    """Section 1: which head puts the most weight on the token just before? Read from the charts
    (the heads are random, so there is nothing to reason from before seeing them). None with one
    head, one token, or two heads too close to tell apart (within TIE)."""
    share = lesson.previous_token  # (H,) or None
    if share is None or len(share) < 2:
        return None
    first, second = np.sort(share)[::-1][:2]
    if first - second < TIE:
        return None
    return Question(
        key="mh_quiz_previous",
        prompt="Look at the heads above. Which one puts the most weight on the previous token (the cell just "
        "left of the diagonal), on average over the rows that have one (every row but the first)?",
        options=tuple(head_name(h).capitalize() for h in range(len(share))),
        answer=int(np.argmax(share)),
        value=float(share.max()),
        value_label="its mean weight on the previous token",
        explain="A head like this hands every token the word just before it.",
    )


NO_PREVIOUS_QUESTION = (
    "Predict first has no question about these heads: it needs two heads, two tokens, and one head "
    f"ahead of the others by {TIE:g} or more."
)


# --------------------------------------------------------------------------- concat, W_O, output


def concat_question(lesson: lab_results.MultiHeadLesson) -> Question:
    """Section 2: the shape of Concat(head_1, ..., head_H), among the usual wrong guesses (those
    that coincide with the answer at these sizes are left out; at least one always differs)."""
    T, H, d_v, d_model = len(lesson.tokens), lesson.n_heads, lesson.d_v, lesson.d_model
    answer = (T, H * d_v)
    # stacked heads, one head, W_O's output, a weight matrix, one row per head
    guesses = [(H * T, d_v), (T, d_v), (T, d_model), (T, T), (H, T * d_v)]
    shapes = sorted(list(dict.fromkeys([answer, *guesses]))[:4])
    if H == 1:
        heads, concat = f"The one head returns {_a(T)} {T} × {d_v} matrix", "Concat(head_1)"
        explain = "With one head there is nothing to put beside it: the concatenation is that head's output."
    else:
        heads, concat = f"Each of the {H} heads returns {_a(T)} {T} × {d_v} matrix", f"Concat(head_1, …, head_{H})"
        explain = (
            f"The heads are put side by side, not stacked: each token keeps its one row, which now holds "
            f"{H} × {d_v} = {H * d_v} numbers, {d_v} from each head."
        )
    return Question(
        key="mh_quiz_concat",
        prompt=f"{heads}, one row per token. What shape is {concat}, the matrix that W_O multiplies?",
        options=tuple(f"{rows} × {cols}" for rows, cols in shapes),
        answer=shapes.index(answer),
        explain=explain,
    )


HIDDEN = "Hidden until you reveal your prediction (Predict first is on): every shape below gives it away."


def concat_text(lesson: lab_results.MultiHeadLesson) -> str:
    """The shapes of the heads' outputs, their concatenation, W_O and the output."""
    mh, T, d_v = lesson.steps, len(lesson.tokens), lesson.d_v
    heads = "Each head returns" if lesson.n_heads > 1 else "The one head returns"
    joined = "Putting them side by side gives" if lesson.n_heads > 1 else "On its own it is"
    return (
        f"{heads} {_a(T)} {T} × {d_v} matrix. {joined} one {mh.concat.shape[0]} × {mh.concat.shape[1]} matrix; W_O "
        f"({mh.w_o.shape[0]} × {mh.w_o.shape[1]}) maps it back to d_model = {lesson.d_model} numbers per token, "
        "letting the model combine what the different heads found."
    )


def other_v_text(lesson: lab_results.MultiHeadLesson) -> str:
    """d_v may differ from d_k: head 1 again with a wider W_v, the same weights, a wider output."""
    other = lesson.other_v
    return (
        "This page keeps d_v = d_k, as most models do, but only queries and keys must share a width (a dot "
        f"product needs two vectors of one length). The values may have any width: {head_name(0)} with a W_v of "
        f"{other.v.shape[1]} columns instead of {lesson.d_v} gives the same weights (max |Δ| = "
        f"{lesson.other_v_gap:g}) and an output of shape {other.output.shape[0]} × {other.output.shape[1]}; the "
        "concatenation is then H · d_v wide."
    )


def concat_latex(lesson: lab_results.MultiHeadLesson) -> str:
    """MultiHead = Concat(head_1, ..., head_H) W_O, with every shape."""
    mh = lesson.steps
    return (
        r"\mathrm{MultiHead} = \underbrace{\mathrm{Concat}(\mathrm{head}_1, \dots, "
        rf"\mathrm{{head}}_{{{lesson.n_heads}}})}}_{{{mh.concat.shape[0]}\times{mh.concat.shape[1]}}}\ "
        rf"\underbrace{{W_O}}_{{{mh.w_o.shape[0]}\times{mh.w_o.shape[1]}}}"
        rf" = \underbrace{{\mathrm{{output}}}}_{{{mh.output.shape[0]}\times{mh.output.shape[1]}}}"
    )


def matrix_titles(lesson: lab_results.MultiHeadLesson) -> tuple[str, str, str]:
    """The titles of the concatenation, W_O and output charts, each with its shape."""
    mh = lesson.steps
    return (
        f"Concat(head_1..head_H): {mh.concat.shape[0]} × {mh.concat.shape[1]}",
        f"W_O: {mh.w_o.shape[0]} × {mh.w_o.shape[1]}",
        f"Output: {mh.output.shape[0]} × {mh.output.shape[1]}",
    )


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: lab_results.MultiHeadLesson, shapes_hidden: bool) -> list[str]:
    """The footer's lines (the concatenation's shape only once its question is revealed)."""
    mh, T, H = lesson.steps, len(lesson.tokens), lesson.n_heads
    matrices = f"{H} matri{'ces' if H != 1 else 'x'}"
    lines = [
        f"{_heads(H)} turned the same {T} tokens into {matrices} of {T}×{T} weights, each head with its own "
        f"W_q, W_k and W_v (d_k = {lesson.d_k}).",
    ]
    if shapes_hidden:
        lines.append("Side by side the heads' outputs are mixed back by W_O; the shapes wait for your prediction.")
    else:
        lines.append(
            f"Side by side the heads' outputs make {_a(T)} {mh.concat.shape[0]}×{mh.concat.shape[1]} matrix, and W_O "
            f"({mh.w_o.shape[0]}×{mh.w_o.shape[1]}) maps it back to {mh.output.shape[0]}×{mh.output.shape[1]}: one "
            "row per token, as wide as the input X."
        )
    return lines
