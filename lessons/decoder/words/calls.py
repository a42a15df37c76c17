"""The page's sections, headings and settings, and its cached calls as plain functions."""

from __future__ import annotations

from attn_core import trained_decoder as dc

SECTIONS = {
    "words": "Your words",
    "heads": "Every head",
    "kinds": "Previous-token and induction heads",
    "guesses": "Next-word guesses",
    "learning": "How it learned",
}
HEADINGS = {  # a section's heading on the page, where it says more than its title
    "heads": "Every head, causal",
    "kinds": "Previous-token heads and induction heads",
    "guesses": "The model's next-word guesses",
}
DEFAULT_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
N_RANDOM = 20  # the random button: this many words, then the same words again
TIE = 0.001  # Predict first asks only when the right answer beats the next option by this much (3 decimals)
PREDICT_HELP = "Guess where a head looks from the last word, and what the model guesses next, before you see it."
BYTES_PER_NUMBER = 4  # float32, as a cache is usually kept


# --------------------------------------------------------------------------- the cached calls


def load() -> tuple[dc.Decoder | None, dc.Training | None, str | None]:
    """The shipped decoder and its training record (or why they are missing)."""
    try:
        return dc.load_decoder(), dc.load_training(), None
    except dc.DecoderLoadError as err:
        return None, None, str(err)


def lesson(_decoder: dc.Decoder, text: str) -> dc.DecoderLesson:
    """The page's one attn_core call (``_decoder`` is not hashed by the page's cache)."""
    return dc.decoder_lesson(_decoder, text)


def random_text(decoder: dc.Decoder, seed: int) -> str:
    """The random button's text: N_RANDOM random words, then the same words again."""
    return " ".join(dc.random_repeated(decoder, N_RANDOM, seed=seed))
