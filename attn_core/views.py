"""Views of a model's saved attentions: one query's neuron view, the mean over heads, rollout.

NumPy only, like the engine: a notebook can compute a rollout from attentions saved with
``numpy.save`` (or downloaded from the real-model page as .npz) without torch.

Shapes: L layers, H heads, T tokens, d_k per-head width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .engine import softmax

__all__ = ["NeuronView", "attention_to", "head_mean", "mean_distance", "neuron_view", "rollout", "sink_heads"]


@dataclass(frozen=True)
class NeuronView:
    """How one query of one head turns into its attention row."""

    query: int
    q: np.ndarray  # (d_k,)
    k: np.ndarray  # (T, d_k)
    qk: np.ndarray  # (T, d_k) q * k elementwise
    scores: np.ndarray  # (T,) q . k, the row sums of qk
    factor: float  # 1 / sqrt(d_k)
    scaled: np.ndarray  # (T,) scores * factor
    weights: np.ndarray  # (T,) softmax(scaled)

    @property
    def d_k(self) -> int:
        return len(self.q)

    @property
    def top(self) -> int:
        """The key this query attends to most."""
        return int(np.argmax(self.weights))


def neuron_view(queries: np.ndarray, keys: np.ndarray, layer: int, head: int, query: int) -> NeuronView:
    """q, every k, q*k, q.k and the softmax for one query token (float64).

    queries, keys (L, H, T, d_k), as ``attn_core.models.ModelAttention`` holds them.

    Returns: NeuronView with k, qk (T, d_k) and weights (T,)
    """
    queries, keys = np.asarray(queries), np.asarray(keys)
    if queries.ndim != 4 or keys.shape != queries.shape:
        raise ValueError(f"queries and keys must both have shape (L, H, T, d_k), got {queries.shape} and {keys.shape}")
    L, H, T, d_k = queries.shape
    if not 0 <= layer < L:
        raise ValueError(f"layer must be in 0..{L - 1}, got {layer}")
    if not 0 <= head < H:
        raise ValueError(f"head must be in 0..{H - 1}, got {head}")
    if not 0 <= query < T:
        raise ValueError(f"query must be in 0..{T - 1}, got {query}")
    q = queries[layer, head, query].astype(np.float64)  # (d_k,)
    k = keys[layer, head].astype(np.float64)  # (T, d_k)
    qk = q[None, :] * k  # (T, d_k)
    scores = qk.sum(axis=1)  # (T,)
    factor = 1.0 / math.sqrt(d_k)
    scaled = scores * factor
    return NeuronView(
        query=query, q=q, k=k, qk=qk, scores=scores, factor=factor, scaled=scaled, weights=softmax(scaled)
    )


def _check_attentions(attentions: np.ndarray) -> np.ndarray:
    a = np.asarray(attentions, dtype=np.float64)
    if a.ndim != 4 or a.shape[2] != a.shape[3]:
        raise ValueError(f"attentions must have shape (L, H, T, T), got {a.shape}")
    return a


def head_mean(attentions: np.ndarray) -> np.ndarray:
    """The mean over heads for each layer.

    attentions (L, H, T, T) -> Returns: (L, T, T)
    """
    return _check_attentions(attentions).mean(axis=1)


def rollout(attentions: np.ndarray) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020) through each layer.

    Per layer: average the heads, add the identity for the residual path, renormalise the
    rows; then multiply the layers: rollout[l] = A_l @ rollout[l-1].

    attentions (L, H, T, T) -> Returns: (L, T, T), rows sum to 1
    """
    means = head_mean(attentions)  # (L, T, T)
    T = means.shape[-1]
    a = means + np.eye(T)
    a = a / a.sum(axis=-1, keepdims=True)
    out = np.empty_like(a)
    acc = np.eye(T)
    for layer in range(a.shape[0]):
        acc = a[layer] @ acc  # (T, T) @ (T, T)
        out[layer] = acc
    return out


def attention_to(attentions: np.ndarray, key: int) -> np.ndarray:
    """How much of each head's attention lands on one key, averaged over the query tokens.

    attentions (L, H, T, T) -> Returns: (L, H), each in [0, 1]
    """
    a = _check_attentions(attentions)
    if not -a.shape[-1] <= key < a.shape[-1]:
        raise ValueError(f"key must be in 0..{a.shape[-1] - 1}, got {key}")
    return a[..., key].mean(axis=-1)


def sink_heads(attentions: np.ndarray, key: int, share: float = 0.5) -> int:
    """The number of heads that put more than ``share`` of their attention (averaged over the
    queries) on one key, such as [CLS] (key 0) or the last [SEP] (key -1)."""
    return int((attention_to(attentions, key) > share).sum())


def mean_distance(attentions: np.ndarray) -> np.ndarray:
    """How far back (or ahead) each head looks: sum_j A_ij |i - j|, averaged over the queries i.

    A previous-token head scores about 1; a head that looks at itself, 0.
    attentions (L, H, T, T) -> Returns: (L, H)
    """
    a = _check_attentions(attentions)
    T = a.shape[-1]
    offset = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))  # (T, T) |i - j|
    return (a * offset).sum(axis=-1).mean(axis=-1)
