"""The opening paragraph and the notes on the input: a missing decoder, carried or empty text, a cut
text, unknown words.
"""

from __future__ import annotations

from attn_core import trained_decoder as dc
from lessons.decoder.words.names import n_words, random_button
from ui.markup import md_escape
from ui.reader import Reader

# --------------------------------------------------------------------------- the opening and the input


def intro(decoder: dc.Decoder | None, training: dc.Training | None) -> str:
    """The opening paragraph; the model's sizes are read from the loaded decoder, and whether it
    learned an induction head from its training record."""
    if decoder is None:
        return "Everything real on the other pages is an encoder, which looks both ways; this page runs a decoder."
    kind = " attention-only" if decoder.attention_only else ""
    parts = (
        " Each layer only adds its heads' output to the word vectors (the residual stream): there is no "
        "feed-forward network (MLP) and no LayerNorm."
        if decoder.attention_only
        else ""
    )
    learned = training is not None and training.formed_at(dc.INDUCTION_THRESHOLD) is not None
    return (
        "Everything real on the other pages is an encoder, which looks both ways. This page runs a small "
        f"**decoder** we trained ourselves for this app: an{kind} model with {decoder.n_layers} layers of "
        f"{decoder.n_heads} causal heads (each word sees only itself and the words before it), a vocabulary of "
        f"{n_words(decoder)} common English words, and the same sinusoidal positions as Step by step.{parts} "
        "It was trained to guess the next word in random word sequences where a stretch repeats"
        + (
            ", and it learned the famous trick for that: an **induction head**."
            if learned
            else "; the trick for that is an **induction head**."
        )
    )


def missing(problem: str | None) -> str:
    return f"The decoder is not available: {md_escape(problem or 'unknown error')} The other pages keep working."


def carried_note(decoder: dc.Decoder) -> str:
    return (
        f"These are the words of your sentence from another page. The model knows only its {n_words(decoder)} "
        "words, in lower case: any other word or mark is read as <unk>, and the note below names them."
    )


def empty(reader: Reader) -> str:
    return f"Type some words above (the box is empty), or press {random_button(reader)}."


def truncated(decoder: dc.Decoder) -> str:
    return f"The model was trained on {decoder.max_tokens} words at most; only the first {dc.MAX_TOKENS} are used."


def unknown_words(lesson: dc.DecoderLesson, shown: int = 20) -> str:
    """The words read as <unk>, escaped (the user's own text), the first ``shown`` of them."""
    names = ", ".join(f"“{md_escape(w)}”" for w in lesson.unknown[:shown])
    more = f" and {len(lesson.unknown) - shown} more" if len(lesson.unknown) > shown else ""
    return (
        f"Not in the model's vocabulary, so read as <unk>: {names}{more}. Capitals do not matter; punctuation "
        "and other words become <unk>."
    )
