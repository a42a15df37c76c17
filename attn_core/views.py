"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

Views of a model's saved attentions: one query's neuron view, the mean over heads, rollout.

NumPy only, like the engine: a notebook can compute a rollout from attentions saved with
``numpy.save`` (or downloaded from the real-model page as .npz) without torch.

Shapes: L layers, H heads, T tokens, d_k per-head width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .engine import dim, entropy, softmax

__all__ = [
    "HeadRoles",
    "ModelLesson",
    "NeuronView",
    "attention_to",
    "head_mean",
    "head_roles",
    "mean_distance",
    "model_lesson",
    "neuron_view",
    "offset_share",
    "rollout",
    "sink_heads",
    "spread",
]


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

    d_k = dim("q", 0)

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


def offset_share(attentions: np.ndarray, offset: int) -> np.ndarray:
    """How much of each head's attention lands ``offset`` tokens back (1: the previous token,
    -1: the next one), averaged over the queries that have such a key.

    attentions (L, H, T, T) -> Returns: (L, H), each in [0, 1] (zeros when no query has one)
    """
    a = _check_attentions(attentions)
    T = a.shape[-1]
    t = np.arange(max(offset, 0), T + min(offset, 0))  # queries t whose key t - offset exists
    if t.size == 0:
        return np.zeros(a.shape[:2])
    return a[..., t, t - offset].mean(axis=-1)


def spread(attentions: np.ndarray) -> np.ndarray:
    """How evenly each head spreads a query's attention: the entropy of each row over its largest
    possible value, log2 T (1: every key alike, 0: one key takes all), averaged over the queries.

    attentions (L, H, T, T) -> Returns: (L, H), each in [0, 1] (zeros for T = 1)
    """
    a = _check_attentions(attentions)
    T = a.shape[-1]
    if T < 2:
        return np.zeros(a.shape[:2])
    return entropy(a).mean(axis=-1) / math.log2(T)


ROLE_SHARE = 0.5  # a previous- or next-token head puts more than this share on that neighbour
BROAD_SPREAD = 0.8  # a broad head's rows have an entropy above this share of log2 T


@dataclass(frozen=True)
class HeadRoles:
    """What the heads of one input do, counted: previous-token, next-token and broad heads."""

    previous: np.ndarray  # (L, H) share on the previous token
    next: np.ndarray  # (L, H) share on the next token
    spread: np.ndarray  # (L, H) row entropy over log2 T

    @property
    def n_previous(self) -> int:
        return int((self.previous > ROLE_SHARE).sum())

    @property
    def n_next(self) -> int:
        return int((self.next > ROLE_SHARE).sum())

    @property
    def n_broad(self) -> int:
        return int((self.spread > BROAD_SPREAD).sum())

    @property
    def strongest_previous(self) -> tuple[int, int, float]:
        """(layer, head, share) of the head with the largest share on the previous token."""
        layer, head = np.unravel_index(int(np.argmax(self.previous)), self.previous.shape)
        return int(layer), int(head), float(self.previous[layer, head])


def head_roles(attentions: np.ndarray) -> HeadRoles:
    """Each head's share on the previous and the next token, and how evenly it spreads.

    attentions (L, H, T, T) -> Returns: HeadRoles of (L, H) arrays
    """
    return HeadRoles(previous=offset_share(attentions, 1), next=offset_share(attentions, -1), spread=spread(attentions))


MODEL_VIEWS = ("head", "model", "neuron", "summaries", "reproduce")
SINK_SHARE = 0.5  # a head is a "sink" head when more than this share of its attention lands on one key


@dataclass(frozen=True)
class ModelLesson:
    """What the Real model page shows of one input in one view: the settings, clamped into the
    input's range, and the arrays the view draws (None where the view draws nothing of it)."""

    view: str
    layer: int
    head: int  # the model, neuron and reproduce views' head
    heads: tuple[int, ...]  # the head view's heads
    focus: int | None  # the head view's query token (None: every token)
    query: int  # the neuron view's query token
    n_heads_total: int  # L * H
    sinks_cls: int  # heads with more than SINK_SHARE of their attention on [CLS] (key 0)
    sinks_sep: int  # ... on the final [SEP] (key T - 1)
    heads_mean: np.ndarray | None = None  # (T, T) head view: mean of the chosen heads
    on_cls: np.ndarray | None = None  # (L, H) model view: each head's share on [CLS]
    roles: HeadRoles | None = None  # model view: previous-token, next-token and broad heads
    weights: np.ndarray | None = None  # (T, T) model view: the chosen layer and head
    neuron: NeuronView | None = None  # neuron view
    means: np.ndarray | None = None  # (L, T, T) summaries: mean over heads per layer
    rolled: np.ndarray | None = None  # (L, T, T) summaries: rollout through each layer
    summary_on_cls: np.ndarray | None = None  # (2, L) summaries: share on [CLS] of means and rollout


def _clamp(value: int | None, n: int, default: int) -> int:
    return default if value is None else min(max(int(value), 0), n - 1)


def model_lesson(
    attentions: np.ndarray,
    queries: np.ndarray,
    keys: np.ndarray,
    view: str = "head",
    *,
    layer: int = 0,
    head: int = 0,
    heads: tuple[int, ...] | list[int] = (),
    focus: int | None = None,
    query: int = 1,
) -> ModelLesson:
    """The Real model page's one call: every number one view of a model's attentions shows.

    attentions (L, H, T, T) and queries, keys (L, H, T, d_k), as ``attn_core.models.ModelAttention``
    holds them. Settings out of range (a link written for a longer input) are clamped: layer and
    head into the model, focus and query into the input, heads to those the model has.
    """
    a = _check_attentions(attentions)
    L, H, T, _ = a.shape
    if view not in MODEL_VIEWS:
        raise ValueError(f"view must be one of {MODEL_VIEWS}, got {view!r}")
    layer, head = _clamp(layer, L, 0), _clamp(head, H, 0)
    chosen = tuple(sorted({int(h) for h in heads if 0 <= int(h) < H}))
    focus = None if focus is None else _clamp(focus, T, 0)
    query = _clamp(query, T, min(1, T - 1))
    out = dict(
        view=view,
        layer=layer,
        head=head,
        heads=chosen,
        focus=focus,
        query=query,
        n_heads_total=L * H,
        sinks_cls=sink_heads(a, 0, SINK_SHARE),
        sinks_sep=sink_heads(a, T - 1, SINK_SHARE),
    )
    if view == "head" and chosen:
        out["heads_mean"] = a[layer, list(chosen)].mean(axis=0)  # (T, T)
    elif view == "model":
        out["on_cls"] = attention_to(a, 0)
        out["roles"] = head_roles(a)
        out["weights"] = a[layer, head]
    elif view == "neuron":
        out["neuron"] = neuron_view(queries, keys, layer, head, query)
    elif view == "summaries":
        means, rolled = head_mean(a), rollout(a)  # (L, T, T) each
        out.update(
            means=means,
            rolled=rolled,
            summary_on_cls=np.stack([means[:, :, 0].mean(axis=1), rolled[:, :, 0].mean(axis=1)]),
        )
    return ModelLesson(**out)
