"""Step by step's settings (weight sources, steps, sizes, switches, the page's fixed help), ``Head``, and
the compute calls the page caches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core import numbering, tables
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt

SOURCES = {  # URL value -> label
    "random": "Random (seeded)",
    "real": "A real head of all-MiniLM-L6-v2",
    "decoder": "A head of our small decoder (causal)",
}
STEPS = {  # section name -> title, in page order; the first nine are counted steps
    "tokens": "Tokens",
    "x": "X, one vector per token",
    "weights_matrices": "The weight matrices W_q, W_k, W_v",
    "qkv": "Queries, keys and values",
    "scores": "The scores QKᵀ",
    "scaled": "Scaled scores",
    "masked": "Masked scores",
    "weights": "Attention weights (softmax)",
    "output": "The output Z",
    "cell": "One cell, worked through",
}
COUNTED = 9  # steps 1 to 9; the worked cell comes after them
N_REPEAT = 20  # the sidebar's induction check: this many random words, then the same again
MULTIPLIER = 100.0  # what the ×100 switch multiplies the scores by
OPTION_CHARS = 24  # tokens longer than this are shortened in selectboxes and captions
ONE_HOT = 0.99  # a row "puts nearly all its weight on one key" above this


SIZES = {"d_model": "d_model (size of each token vector)", "d_k": "d_k (size of queries and keys)"}
TOGGLES = {  # URL name -> label
    "scale": "Divide the scores by √d_k",
    "x100": "Multiply the scores by 100",
    "causal": "Causal mask (no looking ahead)",
    "pos": "Add positional encoding",
}
INTRO = (
    "Type a sentence and follow one attention head through every matrix it computes, from the token vectors X "
    "to the output Z. Change a setting in the sidebar and every number below is recomputed; the address bar "
    "keeps the settings, so you can copy it to share this exact view."
)
PREDICT_HELP = "Hide the attention weights until you have guessed which key a token looks at most, and how much."
DOWNLOAD_HELP = (
    "X, W_q, W_k, W_v, Q, K, V, the scores, scaled and masked scores, the weights, Z and the tokens; numpy.load "
    "reads it back."
)


@dataclass(frozen=True)
class Head:
    """Where the page's weights come from: "random", "real" or "decoder", and for a trained head
    which one (0-based, as the arrays) and the model's sizes the sentences name."""

    kind: str = "random"
    layer: int = 0
    head: int = 0
    n_heads: int = 0
    vocab_words: int = 0  # the decoder's vocabulary, <unk> left out
    attention_only: bool = False  # the decoder's layers: attention and the residual add, nothing else

    @property
    def trained(self) -> bool:
        return self.kind != "random"

    @property
    def label(self) -> str:
        """ "layer 4, head 2" (counted from 1)."""
        return numbering.head_label(self.layer, self.head)


# --------------------------------------------------------------------------- the compute calls
# Plain functions; the page caches each (st.cache_data or st.cache_resource, once per server).
# An argument whose name starts with "_" is not hashed by the cache.


def compute(
    tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, positional: bool, scale: bool, x100: bool, causal: bool
) -> wt.Lesson:
    """The page's one attn_core call with random weights: the source, then every step.

    Returns: Lesson with steps.weights (T, T) and steps.output (T, d_k)
    """
    source = wt.seeded_source(tokens, d_model, d_k, seed=seed, positional=positional)
    return wt.lesson(source, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal)


def minilm_shape() -> tr.ModelShape | None:
    """The embedded model's sizes from its config.json (None: the package is missing)."""
    return tr.minilm_shape()


def model_run(_loaded, name: str, text: str, max_tokens: int):
    """One forward pass per text: every layer's input and attention, shared by all heads and
    switches, so picking another head or toggling the mask does not run the model again."""
    from attn_core import models  # torch: only when a real head is asked for

    return models.extract_attentions(_loaded, text, max_tokens=max_tokens)


def compute_real(_loaded, _att, name: str, text: str, layer: int, head: int, scale: bool, x100: bool, causal: bool):
    """The lesson with a real head (models.real_lesson) on the forward pass ``_att`` of ``text``.

    Returns: RealLesson with lesson.steps.weights (T, T), max_abs_error and truncated
    """
    from attn_core import models

    multiplier = MULTIPLIER if x100 else 1.0
    return models.real_lesson(_loaded, _att, layer, head, scale=scale, multiplier=multiplier, causal=causal)


def load_decoder() -> tuple[dc.Decoder | None, str | None]:
    """The shipped decoder; None and the reason when its files are missing."""
    try:
        return dc.load_decoder(), None
    except dc.DecoderLoadError as err:
        return None, str(err)


def decoder_induction(_decoder: dc.Decoder) -> np.ndarray | None:
    """The decoder's induction scores (L, H) on N_REPEAT random words said twice."""
    repeated = dc.random_repeated(_decoder, N_REPEAT, seed=0)
    return dc.decoder_lesson(_decoder, " ".join(repeated), period=N_REPEAT).induction


def decoder_parity(_decoder: dc.Decoder) -> dc.TorchParity | None:
    """How closely the NumPy decoder matches the torch model it was trained as (None without
    its training record)."""
    try:
        return dc.torch_parity(_decoder, dc.load_training())
    except dc.DecoderLoadError:
        return None


def compute_decoder(_decoder: dc.Decoder, text: str, layer: int, head: int, scale: bool, x100: bool) -> dc.HeadLesson:
    """The lesson with a head of the decoder (always causal).

    Returns: HeadLesson with lesson.steps.weights (T, T)
    """
    return dc.head_lesson(_decoder, text, layer, head, scale=scale, multiplier=MULTIPLIER if x100 else 1.0)


def all_steps_npz(lesson: wt.Lesson, settings: dict) -> bytes:
    """Every step of the run as one .npz, with the settings as JSON."""
    s, w = lesson.steps, lesson.source.weights
    names = ("x", "q", "k", "v", "scores", "scaled", "masked", "weights", "output")
    arrays = {name: getattr(s, name) for name in names}
    weights = {"w_q": w.w_q, "w_k": w.w_k, "w_v": w.w_v, "b_q": w.b_q, "b_k": w.b_k, "b_v": w.b_v}
    arrays |= {name: value for name, value in weights.items() if value is not None}
    arrays["tokens"] = np.array(lesson.tokens, dtype=str)
    return tables.to_npz(arrays, settings)
