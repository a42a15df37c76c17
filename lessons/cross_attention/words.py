"""Cross-attention's words: its one compute call, every sentence and formula it computes from the
lesson's numbers, its predict-first question and its longer prose.

Plain Python (no Streamlit): the page places each piece next to its chart, and
tests/unit/test_cross_attention_words.py checks each claim against the numbers it is given.
"""

from __future__ import annotations

from attn_core import lab_results
from ui.markup import md_escape
from ui.question import Question

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
SECTIONS = {
    "qkv": "Queries from one sentence, keys and values from the other",
    "scores": "A rectangular score matrix",
    "output": "The output: one row per query",
}


def _a(n: int) -> str:
    """The article before a number said aloud: "an 8", "an 11", "an 18", "a 7"."""
    return "an" if str(n).startswith("8") or n in (11, 18) else "a"


def lesson(
    source: tuple[str, ...], target: tuple[str, ...], d_model: int, d_k: int, seed: int, swap: bool
) -> lab_results.CrossLesson:
    """The page's one attn_core call (the page caches it)."""
    return lab_results.cross_lesson(source, target, d_model=d_model, d_k=d_k, seed=seed, swap=swap)


INTRO = (
    "In self-attention one sentence asks and answers its own questions. In cross-attention, as in a "
    "translation model, the sentence being written (the target, on the decoder side) asks the questions, "
    "and the sentence being translated (the source, on the encoder side) supplies the keys and values. "
    "Each target word can then pull in the source words it needs."
)
SOURCE_NOTE = (
    "The source is your sentence from another page. The target is still the example's, so type a "
    "translation of yours to make a pair."
)


# --------------------------------------------------------------------------- where Q, K and V come from


def setup_caption(lesson: lab_results.CrossLesson) -> str:
    """Which sentence asks and which answers, with their lengths."""
    T_q, T_k = lesson.steps.weights.shape
    return (
        f"Queries come from the {lesson.q_name} sentence ({T_q} tokens), keys and values from the "
        f"{lesson.kv_name} sentence ({T_k} tokens). Both are embedded with the same seed and d_model; positions "
        "are counted within each sentence."
    )


SIMPLIFIED = (
    "For simplicity this page applies one random set of W_q, W_k and W_v straight to the two sentences' "
    "embeddings. A trained translation model does not. Its cross-attention layer has a W_q, W_k and W_v of its "
    "own, separate from its self-attention; its queries come from the decoder's previous sub-layer, each target "
    "token after the masked self-attention that let it read the target words before it (with the residual "
    "connection and the normalisation around it), not from the target embeddings; and its keys and values come "
    "from the encoder's final output, after every encoder layer has mixed the source sentence."
)


def qkv_text(lesson: lab_results.CrossLesson) -> str:
    """Section 1: which matrix meets which sentence here, and what a real decoder feeds them."""
    here = (
        f"On this page W_q is applied to the {lesson.q_name} sentence's embeddings and W_k, W_v to the "
        f"{lesson.kv_name} sentence's"
    )
    if lesson.q_name == "target":
        here += (
            " (in a real decoder the queries come from the decoder's previous sub-layer, after its masked "
            "self-attention, not from the raw embeddings)"
        )
    else:
        here += " (the other way round from a translation model, where the target asks)"
    return (
        here + ". The two sentences may have different lengths; only the width d_k has to match so that every "
        "query can be compared with every key."
    )


def qkv_latex(lesson: lab_results.CrossLesson) -> str:
    """The shapes of Q, K and V."""
    steps = lesson.steps
    T_q, T_k, d_k, d_v = steps.q.shape[0], steps.k.shape[0], steps.q.shape[1], steps.v.shape[1]
    return (
        rf"Q = X_q W_q:\ {T_q}\times{d_k},\qquad K = X_{{kv}} W_k:\ {T_k}\times{d_k},\qquad "
        rf"V = X_{{kv}} W_v:\ {T_k}\times{d_v}"
    )


# --------------------------------------------------------------------------- scores and weights


def shape_question(lesson: lab_results.CrossLesson) -> Question | None:
    """Section 2: the shape of the weight matrix, among its transpose, the two squares and Q's shape
    (those that coincide with it at these lengths are left out); None when nothing else is left."""
    T_q, T_k = lesson.steps.weights.shape
    d_k = lesson.steps.q.shape[1]
    answer = (T_q, T_k)
    shapes = sorted(list(dict.fromkeys([answer, (T_k, T_q), (T_q, T_q), (T_k, T_k), (T_q, d_k), (1, T_k)]))[:4])
    if len(shapes) < 2:
        return None
    q_name, kv_name = lesson.q_name, lesson.kv_name
    return Question(
        key="cross_quiz_shape",
        prompt=f"Queries come from the {q_name} sentence ({T_q} tokens), keys and values from the {kv_name} "
        f"sentence ({T_k} tokens), with d_k = {d_k}. What shape is the matrix of attention weights (rows × columns)?",
        options=tuple(f"{rows} × {cols}" for rows, cols in shapes),
        answer=shapes.index(answer),
        explain=f"One row per query ({q_name} token) and one column per key ({kv_name} token): each {q_name} "
        f"token spreads one unit of weight over the {T_k} {kv_name} tokens. d_k is summed away in QKᵀ.",
    )


NO_QUESTION = "Predict first has no question at these sizes: every shape to choose from would be 1 × 1."


def hidden_note(elsewhere: str = "") -> str:
    """Section 2's question hides what would answer it; ``elsewhere``: where the question is when
    the reader sees another section (Deck.elsewhere: " on section 2"), else ""."""
    return f"Hidden until you reveal your prediction{elsewhere} (Predict first is on): every shape here gives it away."


def scores_text(lesson: lab_results.CrossLesson) -> str:
    """The rectangle of scores and the softmax along its rows."""
    T_q, T_k = lesson.steps.scores.shape
    q_name, kv_name = lesson.q_name, lesson.kv_name
    shape = (
        f"{_a(T_q)} {T_q} × {T_k} rectangle instead of a square"
        if T_q != T_k
        else f"{_a(T_q)} {T_q} × {T_k} matrix, square here only because both sentences have {T_q} tokens"
    )
    return (
        f"Every {q_name} token (a row) is compared with every {kv_name} token (a column), so the scores form "
        f"{shape}. The softmax runs along each row: each {q_name} token spreads one unit of attention over the "
        f"{kv_name} tokens."
    )


def scores_latex(lesson: lab_results.CrossLesson) -> str:
    """weights = softmax(QKᵀ/√d_k) with its shapes and the factor."""
    steps = lesson.steps
    T_q, T_k = steps.scores.shape
    d_k = steps.q.shape[1]
    return (
        rf"\mathrm{{weights}} = \mathrm{{softmax}}\!\left(\frac{{Q K^\top}}{{\sqrt{{{d_k}}}}}\right):\ "
        rf"({T_q}\times{d_k})({d_k}\times{T_k}) \to {T_q}\times{T_k},\qquad "
        rf"\frac{{1}}{{\sqrt{{{d_k}}}}} = {steps.factor:.3f}"
    )


def weights_caption(lesson: lab_results.CrossLesson) -> str:
    """Row 0 of the weights, named by its token, and what its weights add up to."""
    row = lesson.steps.weights[0]
    return (
        f"Row 0 is query 0 ({md_escape(lesson.q_tokens[0])}); its {row.size} weights add up to {row.sum():.0f}. "
        "These weights are random until a model is trained; a trained translation model learns to line up words "
        "that mean the same thing."
    )


# --------------------------------------------------------------------------- output


def output_text(lesson: lab_results.CrossLesson) -> str:
    return (
        f"Each row of the output is a weighted mix of the {lesson.kv_name} values, so the output has one row per "
        f"{lesson.q_name} token. In a translation model this is how the words being written read the source sentence."
    )


def output_latex(lesson: lab_results.CrossLesson) -> str:
    steps = lesson.steps
    T_q, T_k = steps.weights.shape
    return (
        rf"\mathrm{{output}} = \mathrm{{weights}}\, V:\ ({T_q}\times{T_k})({T_k}\times{steps.v.shape[1]}) \to "
        rf"{steps.output.shape[0]}\times{steps.output.shape[1]}"
    )


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: lab_results.CrossLesson, hidden: bool) -> list[str]:
    """The footer's lines (the shapes only once the question is revealed: ``hidden``)."""
    steps, q_name, kv_name = lesson.steps, lesson.q_name, lesson.kv_name
    T_q, T_k = steps.scores.shape
    if hidden:
        return [
            f"Queries from the {q_name} sentence met keys from the {kv_name} sentence, and each row of weights adds "
            "up to 1; the shapes wait for your prediction."
        ]
    return [
        f"{T_q} queries from the {q_name} sentence met {T_k} keys from the {kv_name} sentence: the scores form a "
        f"{T_q}×{T_k} {'rectangle' if T_q != T_k else 'matrix'}, and after the softmax each row of weights adds "
        "up to 1.",
        f"The output has one row per {q_name} token ({steps.output.shape[0]}×{steps.output.shape[1]}), each a mix "
        f"of the {kv_name} sentence's values.",
    ]
