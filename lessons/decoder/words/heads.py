"""Sections 1 to 3: your words, every head, and the two kinds of head (with the predict-first question
on where a head looks).
"""

from __future__ import annotations

import numpy as np

from attn_core import numbering as nb
from attn_core import trained_decoder as dc
from lessons.decoder.words.calls import TIE
from lessons.decoder.words.names import best, earlier_copies, head_title, random_button
from ui.question import Question
from ui.reader import Reader

# --------------------------------------------------------------------------- 1. your words


def repeat_text(lesson: dc.DecoderLesson, reader: Reader) -> str:
    """Whether (and from where) the words repeat their start."""
    if lesson.period is None:
        return (
            "These words do not repeat a stretch from the start, so there is nothing for an induction head to "
            f"copy. Press {random_button(reader)} to see one at work."
        )
    return (
        f"From word {lesson.period} on, the words repeat the sequence from the start (period "
        f"{lesson.period}). A model that has learned to copy can predict every repeated word."
    )


# --------------------------------------------------------------------------- 2. every head

GRID_TEXT = (
    "Each small square is one head's attention matrix: row i is word i looking back. Everything above the "
    "diagonal is exactly zero, because the causal mask gives those scores −∞ before the softmax."
)
HIDDEN = "Hidden until you reveal your prediction{} (Predict first is on): {}"
NO_QUESTION = "Predict first has no question here for these words: {}."


def grid_title(decoder: dc.Decoder) -> str:
    return f"All {decoder.n_layers * decoder.n_heads} heads: layers (rows) × heads (columns)"


def above_diagonal(lesson: dc.DecoderLesson) -> str:
    return f"Largest weight above the diagonal in any head: {lesson.max_above_diagonal:g}."


def hidden_square(layer: int, head: int) -> str:
    """Where the grid hides the asked head (0-based layer and head)."""
    return HIDDEN.format(" in section 3", f"the grey square, {nb.head_label(layer, head)}.")


HIDDEN_HEAD = HIDDEN.format(" in section 3", "this is the head the question asks about.")


# --------------------------------------------------------------------------- 3. the two kinds of head

KINDS_TEXT = (
    "A **previous-token head** sends each word's attention to the word just before it. It copies "
    "“which word came before me” into each position's vector. An **induction head** in the next layer "
    "uses that: its query is the current word, and its keys now say “the word before me was …”, so the "
    "current word matches the position *right after* its own earlier occurrence. The head copies the "
    "word it finds there, and that is the prediction: after “… cat sat … cat”, guess “sat”. Neither "
    "head can do this alone; it works because the second layer reads what the first layer wrote."
)
PREVIOUS_TITLE = "Previous-token score: mean weight on the word before"


def induction_title(period: int) -> str:
    return f"Induction score: mean weight on the word after the earlier copy (period {period})"


def previous_caption(scores: np.ndarray) -> str:
    """The strongest previous-token head, scores (L, H)."""
    layer, head, value = best(scores)
    return f"On these words the strongest previous-token head is {nb.head_label(layer, head)} ({value:.2f})."


def induction_caption(scores: np.ndarray) -> str:
    """The strongest induction head, scores (L, H)."""
    layer, head, value = best(scores)
    return (
        f"On these words the strongest induction head is {nb.head_label(layer, head)}: in the repeated part, "
        f"each word puts on average {value:.2f} of its attention on the word that followed its earlier copy."
    )


def no_induction(reader: Reader) -> str:
    return f"The induction score needs words that repeat; press {random_button(reader)}."


def no_look_question() -> str:
    return NO_QUESTION.format(f"it needs two words, and one word the head prefers by {TIE:g} or more")


def look_question(lesson: dc.DecoderLesson, labels: list[str]) -> tuple[Question, int, int] | None:
    """Section 3: which word does the last word give the most weight in the strongest induction head
    (the strongest previous-token head when the words do not repeat)? With the question, its head
    (layer, head), 0-based. None for one word, or when the top two weights are within TIE."""
    kind = "induction" if lesson.induction is not None else "previous-token"
    scores = lesson.induction if lesson.induction is not None else lesson.previous_token
    if scores is None:
        return None
    layer, head, _ = best(scores)
    t = lesson.T - 1
    row = lesson.run.attentions[layer, head, t]  # (T,)
    first, second = np.sort(row)[::-1][:2]
    if first - second < TIE:
        return None
    answer, copies = int(np.argmax(row)), earlier_copies(lesson)
    guesses = [t - 1, *(s + 1 for s in copies), *copies, t, 0, t - 2]
    positions = sorted(list(dict.fromkeys([answer, *(n for n in guesses if n >= 0)]))[:5])
    if kind == "previous-token" and answer == t - 1:
        explain = "It is the word just before it: what a previous-token head looks at."
    elif answer in (s + 1 for s in copies):
        explain = (
            f"It is the word right after an earlier “{lesson.run.tokens[answer - 1]}” (position {answer - 1}): "
            "what followed this word last time, which is what an induction head looks up."
        )
    elif answer == t - 1:
        explain = "It is the word just before it."
    else:
        explain = ""
    question = Question(
        key="dec_quiz_look",
        prompt=f"{head_title(layer, head)} is the strongest {kind} head on these words. Which word does the "
        f"last word, “{labels[t]}” (position {t}), give the most weight?",
        options=tuple(f"{n}: {labels[n]}" for n in positions),
        answer=positions.index(answer),
        value=float(first),
        value_label="its weight",
        explain=explain,
    )
    return question, layer, head
