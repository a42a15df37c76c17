"""Decoder (causal): the page's words. Plain Python, no Streamlit: the cached calls as plain
functions (the page wraps them), every sentence computed from the decoder's numbers, the two
predict-first questions and the longer prose. tests/unit/test_decoder_words.py checks each
sentence against the numbers it states, over many word sequences.

Layers and heads are counted from 1 (attn_core.numbering); the arrays stay 0-based, so every
function here takes 0-based indices and names them with the shown numbers.
"""

from __future__ import annotations

from lessons.decoder.words.calls import (
    BYTES_PER_NUMBER,
    DEFAULT_TEXT,
    HEADINGS,
    N_RANDOM,
    PREDICT_HELP,
    SECTIONS,
    TIE,
    lesson,
    load,
    random_text,
)
from lessons.decoder.words.guesses import (
    HIDDEN_GUESSES,
    LOSS_TITLE,
    guess_rows,
    kv_cache_text,
    loss_positions,
    loss_text,
    next_question,
    no_next_question,
)
from lessons.decoder.words.heads import (
    GRID_TEXT,
    HIDDEN,
    HIDDEN_HEAD,
    KINDS_TEXT,
    NO_QUESTION,
    PREVIOUS_TITLE,
    above_diagonal,
    grid_title,
    hidden_square,
    induction_caption,
    induction_title,
    look_question,
    no_induction,
    no_look_question,
    previous_caption,
    repeat_text,
)
from lessons.decoder.words.learning import even_guess_text, footer_lines, learning_text
from lessons.decoder.words.names import best, earlier_copies, head_title, labels, n_words, random_button
from lessons.decoder.words.opening import carried_note, empty, intro, missing, truncated, unknown_words

__all__ = [
    "BYTES_PER_NUMBER",
    "DEFAULT_TEXT",
    "GRID_TEXT",
    "HEADINGS",
    "HIDDEN",
    "HIDDEN_GUESSES",
    "HIDDEN_HEAD",
    "KINDS_TEXT",
    "LOSS_TITLE",
    "NO_QUESTION",
    "N_RANDOM",
    "PREDICT_HELP",
    "PREVIOUS_TITLE",
    "SECTIONS",
    "TIE",
    "above_diagonal",
    "best",
    "carried_note",
    "earlier_copies",
    "empty",
    "even_guess_text",
    "footer_lines",
    "grid_title",
    "guess_rows",
    "head_title",
    "hidden_square",
    "induction_caption",
    "induction_title",
    "intro",
    "kv_cache_text",
    "labels",
    "learning_text",
    "lesson",
    "load",
    "look_question",
    "loss_positions",
    "loss_text",
    "missing",
    "n_words",
    "next_question",
    "no_induction",
    "no_look_question",
    "no_next_question",
    "previous_caption",
    "random_button",
    "random_text",
    "repeat_text",
    "truncated",
    "unknown_words",
]
