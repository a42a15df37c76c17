"""Home's words: its compute calls and the sentences it computes from their numbers.

Plain Python (no Streamlit): the page wraps the compute calls in Streamlit's caches and places
each sentence beside the chart it explains; tests/unit/test_home_words.py checks every sentence
against the numbers it states.

Two things are on Home. The live example: one head with random weights on the sentence the
student types (the page's first chart). And what training changes: one phrase said twice, read
by a head with random weights and by the induction head our small decoder learned, both causal
and of the same size, so the two charts differ in their weights alone.
"""

from __future__ import annotations

import numpy as np

import attn_core as ac
from attn_core import numbering
from attn_core import trained_decoder as dc
from attn_core import walkthrough as wt
from attn_core.tables import number
from ui.markup import md_escape

EXAMPLE = "The animal didn't cross the street because it was too tired."
MAX_TOKENS = 16  # the live example stays small enough to read every cell
LIVE_D_MODEL, LIVE_D_K, LIVE_SEED = 16, 4, 0
PHRASE = "a big dog sat on my red hat"  # said twice for the trained head: every word in the decoder's vocabulary

INTRO = (
    "Self-attention lets every token in a sentence look at every other token and decide how much of each "
    "one to mix into its own meaning. Type below and watch one attention head decide: row *i* of the chart "
    "says how much token *i* takes from each token, and every row adds up to 1."
)
FORMULA = r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
LIVE_TITLE = "Your sentence: one head with random weights"
RANDOM_TITLE = "Before training: a head with random weights"


# --------------------------------------------------------------------------- compute


def tokens_of(text: str) -> tuple[str, ...]:
    """The typed text's tokens, one more than the live example shows (so the page knows it cut)."""
    return tuple(ac.tokenize(text, max_tokens=MAX_TOKENS + 1))


def live_lesson(tokens: tuple[str, ...]) -> wt.Lesson:
    """The live example: a seeded random head (positions on, no mask) on the typed tokens."""
    return wt.lesson(wt.seeded_source(tokens, LIVE_D_MODEL, LIVE_D_K, seed=LIVE_SEED, positional=True))


def trained() -> tuple[dc.TrainedHead | None, str | None]:
    """Our decoder's best induction head beside a random head of the same size, both causal, on
    PHRASE said twice (NumPy, a few milliseconds), or why the decoder could not be loaded."""
    try:
        return dc.trained_vs_random(dc.load_decoder(), f"{PHRASE} {PHRASE}"), None
    except dc.DecoderLoadError as err:
        return None, str(err)


# --------------------------------------------------------------------------- titles


def trained_title(head: dc.TrainedHead) -> str:
    """The trained head on the phrase, named as every page names heads (from 1)."""
    return f"After training: {numbering.head_label(head.layer, head.head)} of our decoder"


# --------------------------------------------------------------------------- sentences


def live_text(weights: np.ndarray, tokens: tuple[str, ...]) -> str:
    """What the live chart shows, from its weights (T, T): the largest weight and where it sits,
    against an even share 1/T, and that a random head's pattern is chance."""
    T = len(tokens)
    i, j = (int(n) for n in np.unravel_index(int(np.argmax(weights)), weights.shape))
    return (
        f"This head's weights are random numbers (d_model = {LIVE_D_MODEL}, d_k = {LIVE_D_K}, no mask), so "
        f"whatever pattern you see is chance, not meaning. The largest weight on your sentence is "
        f"**{number(weights[i, j])}**: token {i} (“{md_escape(tokens[i])}”) on token {j} "
        f"(“{md_escape(tokens[j])}”), against an even share of 1/{T} = {number(1 / T)}."
    )


def even_share(head: dc.TrainedHead) -> float:
    """The stripe's score of a head that spreads each repeated word's attention evenly over the
    words it may see (causal: word t sees t + 1 words)."""
    T = len(head.words)
    return float(np.mean([1 / (t + 1) for t in range(head.period, T)]))


def training_text(head: dc.TrainedHead) -> str:
    """What training changes, in the numbers of the two heads on the screen: the same phrase, the
    same causal mask, the same sizes; only the weights differ."""
    phrase = md_escape(" ".join(head.words[: head.period]))
    even = even_share(head)
    than = "less" if head.random_score < even else "more"
    return (
        f"**What training changes.** The two charts below read the same {len(head.words)} words, “{phrase}” "
        f"said twice, with the same causal mask and heads of the same size (d_model = {head.d_model}, "
        f"d_k = {head.d_k}); only the weights differ. The first is a head with random weights on random word "
        f"vectors, the second {numbering.head_label(head.layer, head.head)} of our small decoder, trained to guess "
        f"the next word. Once the words repeat, the trained head puts on average **{number(head.trained_score)}** of "
        f"each word's attention on the word that followed its earlier copy (the bright stripe); the random "
        f"head puts {number(head.random_score)} there, {than} than the {number(even)} an even spread over the "
        f"words each one can see would give. The whole decoder, this head in it, guesses "
        f"{head.accuracy_repeat:.0%} of the repeated words right."
    )
