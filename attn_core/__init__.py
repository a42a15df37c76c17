"""attn_core: self-attention, step by step, in NumPy.

Importing this package imports numpy only. The NumPy modules beside the engine:
``walkthrough`` (the step-by-step lesson), ``lessons`` (one call per lesson page),
``experiments`` (the softmax and mask experiments), ``views`` (neuron view, head mean,
rollout of saved attentions) and ``decoder`` (our small trained decoder). Plotting lives
in ``attn_core.figures`` (plotly) and the real-model adapter in ``attn_core.models``
(torch, transformers); import those explicitly when you need them.

>>> import attn_core as ac
>>> tokens = ac.tokenize("The cat sat on the mat.")
>>> x = ac.embed(tokens, d_model=16)
>>> w = ac.init_weights(16, 4)
>>> steps = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask="causal")
>>> steps.weights.shape
(7, 7)
"""

from . import engine
from .engine import *  # noqa: F403 - the engine's public names are the package's

__all__ = list(engine.__all__)
