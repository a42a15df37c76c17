"""attn_core: self-attention, step by step, in NumPy.

Three layers, each with its own dependency (every module's docstring names its layer):

- NumPy (this folder's modules; ``import attn_core`` imports numpy only): ``engine`` (every
  step of attention), ``walkthrough`` (Step by step's one call), ``lab_results`` (one call per
  lab page: softmax lab, multi-head, masks, cross-attention), ``experiments``, ``views``
  (neuron view, head mean, rollout of saved attentions), ``tables`` (a chart's numbers),
  ``transformer``, ``article_checks`` (the reference articles' examples, checked) and
  ``trained_decoder`` (our small trained decoder, run in NumPy).
- Plotly, ``attn_core.figures``: the figure builders (``figures.lab``, ``figures.real_model``,
  ``figures.context`` beside the shared helpers in ``figures`` itself).
- torch, ``attn_core.models``: the real-model adapter, and ``models.train_decoder``, which
  trains the decoder. Import the last two explicitly when you need them.

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
