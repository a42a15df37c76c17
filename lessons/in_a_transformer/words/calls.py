"""The page's sections, the example sentences for "bears", and the compute calls: the NumPy lesson
and the real model's word senses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_core import transformer as tr

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, WordSenses


SECTIONS = {
    "dense": "A dense layer's weights are fixed; attention's are computed",
    "split": "d_k = d_model / H",
    "padding": "The padding mask",
    "block": "Where attention sits in a block",
    "enc_dec": "Encoder and decoder",
    "recurrence": "Why attention replaced recurrence",
    "senses": "One word, many meanings (real model)",
    "looks": "Where the word looks (real model)",
}
USES_AB = ("dense", "split", "padding", "block", "enc_dec", "recurrence")  # the sections of sentences A and B
BEARS = tuple(sentence for sentence, _ in tr.WORD_SENSES)  # "bears" in three meanings, always token 2
MEANINGS = dict(tr.WORD_SENSES)  # sentence -> what "bears" means in it (known for these sentences only)
MAX_SENTENCES = 6


# --------------------------------------------------------------------------- compute


def lesson(a: tuple[str, ...], b: tuple[str, ...], d_model: int, H: int, seed: int) -> tr.TransformerLesson:
    """The page's one NumPy attn_core call."""
    return tr.transformer_lesson(a, b, d_model=d_model, H=H, seed=seed)


def senses(_loaded: LoadedModel, name: str, source: str, sentences: tuple[str, ...], word: str) -> WordSenses:
    """The real-model call (torch is imported here, when the section is shown). ``_loaded`` is
    not hashed by the page's cache: the model's name and source stand for it."""
    from attn_core import models

    return models.word_senses(_loaded, list(sentences), word)


def typed_sentences(text: str) -> list[str]:
    """The section's sentences box: one sentence a line, blank lines left out, at most MAX_SENTENCES."""
    return [s.strip() for s in str(text).splitlines() if s.strip()][:MAX_SENTENCES]
