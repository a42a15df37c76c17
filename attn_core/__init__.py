"""attn_core: self-attention, step by step, in NumPy.

Importing this package imports numpy only. Plotting lives in ``attn_core.figures``
(plotly) and the real-model adapter in ``attn_core.models`` (torch, transformers);
import those explicitly when you need them.

>>> import attn_core as ac
>>> tokens = ac.tokenize("The cat sat on the mat.")
>>> x = ac.embed(tokens, d_model=16)
>>> w = ac.init_weights(16, 4)
>>> steps = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask="causal")
>>> steps.weights.shape
(7, 7)
"""

from .engine import (
    AttentionSteps,
    MultiHeadSteps,
    Weights,
    additive_scores,
    attention_steps,
    bilinear_form,
    bilinear_scores,
    causal_mask,
    dilated_mask,
    embed,
    entropy,
    init_multi_head,
    init_weights,
    multi_head_steps,
    positional_encoding,
    softmax,
    tokenize,
    window_mask,
)

__all__ = [
    "AttentionSteps",
    "MultiHeadSteps",
    "Weights",
    "additive_scores",
    "attention_steps",
    "bilinear_form",
    "bilinear_scores",
    "causal_mask",
    "dilated_mask",
    "embed",
    "entropy",
    "init_multi_head",
    "init_weights",
    "multi_head_steps",
    "positional_encoding",
    "softmax",
    "tokenize",
    "window_mask",
]
