"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

One call per lesson page: each function runs everything its page shows and returns one
frozen result, so the page (and its test) only lays the numbers out.

Step by step has ``walkthrough.lesson``; the real model has ``models``. NumPy only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .engine import (
    AttentionSteps,
    MultiHeadSteps,
    additive_scores,
    attention_steps,
    bilinear_form,
    bilinear_scores,
    embed,
    init_multi_head,
    init_weights,
    multi_head_steps,
)
from .experiments import (
    MASK_KINDS,
    Competition,
    DkStudy,
    Saturation,
    dk_study,
    init_v_a,
    make_mask,
    max_abs_diff,
    max_entropy,
    random_scores,
    saturation,
    score_counts,
    scores_memory_bytes,
    softmax_vs_sigmoid,
)

__all__ = [
    "DK_STEPS",
    "T_VALUES",
    "CrossLesson",
    "MaskStudy",
    "MultiHeadLesson",
    "SoftmaxLab",
    "cross_lesson",
    "mask_study",
    "multi_head_lesson",
    "softmax_lab",
]

DK_STEPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)  # the softmax lab's d_k axis
T_VALUES = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)  # the masks page's cost axis


# --------------------------------------------------------------------------- softmax lab


@dataclass(frozen=True)
class SoftmaxLab:
    """The softmax lab's three experiments on one set of random scores."""

    scores: np.ndarray  # (n,) seeded N(0, 1) scores
    saturation: Saturation  # softmax(s) and softmax(m s)
    study: DkStudy  # variance and entropy against d_k
    max_entropy: float  # log2(T) bits, the entropy experiment's ceiling
    competition: Competition  # one score raised: softmax against sigmoid


@functools.lru_cache(maxsize=32)
def _dk_study(T: int, seed: int) -> DkStudy:
    return dk_study(list(DK_STEPS), T=T, seed=seed)


def softmax_lab(
    *,
    n_scores: int = 8,
    seed: int = 0,
    multiplier: float = 100.0,
    T: int = 8,
    dk_seed: int = 0,
    index: int = 0,
    delta: float = 3.0,
) -> SoftmaxLab:
    """Saturation at ``multiplier``, the d_k study for T keys, and score ``index`` raised by ``delta``.

    Returns: SoftmaxLab with scores (n_scores,)
    """
    scores = random_scores(n_scores, seed=seed)
    return SoftmaxLab(
        scores=scores,
        saturation=saturation(scores, multiplier),
        study=_dk_study(int(T), int(dk_seed)),
        max_entropy=max_entropy(int(T)),
        competition=softmax_vs_sigmoid(scores, int(index), float(delta)),
    )


# --------------------------------------------------------------------------- multi-head


@dataclass(frozen=True)
class MultiHeadLesson:
    """H seeded heads on one sentence, their concatenation and W_O."""

    tokens: tuple[str, ...]  # T tokens
    x: np.ndarray  # (T, d_model) embeddings plus positions
    steps: MultiHeadSteps  # heads[h].weights (T, T), concat (T, H*d_k), output (T, d_model)
    other_v: AttentionSteps  # head 1 again with a W_v of another width: output (T, d_v'), same weights

    @property
    def n_heads(self) -> int:
        return len(self.steps.heads)

    @property
    def d_v(self) -> int:
        return self.steps.heads[0].v.shape[1]

    @property
    def d_k(self) -> int:
        return self.steps.heads[0].d_k

    @property
    def d_model(self) -> int:
        return self.x.shape[1]

    @property
    def usual_d_k(self) -> int | None:
        """d_model / H, the width most models give each head; None when H does not divide d_model."""
        return self.d_model // self.n_heads if self.d_model % self.n_heads == 0 else None

    @property
    def heads_width(self) -> int:
        """H · d_k: the queries (and keys) of all heads side by side."""
        return self.n_heads * self.d_k

    @property
    def other_v_gap(self) -> float:
        """max |weights of head 1 - the same head with the other d_v|: 0, the values play no part in them."""
        return float(np.max(np.abs(self.other_v.weights - self.steps.heads[0].weights)))

    @property
    def previous_token(self) -> np.ndarray | None:
        """Each head's mean weight on the token just before, over rows 1..T-1 (None when T < 2).

        Returns: shares (H,)
        """
        if len(self.tokens) < 2:
            return None
        return np.array([np.diagonal(head.weights, offset=-1).mean() for head in self.steps.heads])


def multi_head_lesson(
    tokens: tuple[str, ...], *, d_model: int = 16, n_heads: int = 4, d_k: int = 4, seed: int = 0, causal: bool = False
) -> MultiHeadLesson:
    """Seeded embeddings, H seeded heads (d_v = d_k) and W_O, every step of every head; and
    head 1 once more with a seeded W_v of width 2·d_k, to show that d_v may differ from d_k.

    Returns: MultiHeadLesson with steps.concat (T, H*d_k) and steps.output (T, d_model)
    """
    tokens = tuple(tokens)
    x = embed(list(tokens), d_model, seed=seed)
    heads, w_o = init_multi_head(d_model, n_heads, d_k, seed=seed)
    mask = "causal" if causal else None
    steps = multi_head_steps(x, heads, w_o, mask=mask)
    w_v = init_weights(d_model, d_k, 2 * d_k, seed=seed).w_v  # (d_model, 2 d_k)
    other_v = attention_steps(x, heads[0].w_q, heads[0].w_k, w_v, mask=mask)
    return MultiHeadLesson(tokens=tokens, x=x, steps=steps, other_v=other_v)


# --------------------------------------------------------------------------- cross-attention


@dataclass(frozen=True)
class CrossLesson:
    """Queries from one sentence, keys and values from the other."""

    q_tokens: tuple[str, ...]  # T_q tokens that ask
    kv_tokens: tuple[str, ...]  # T_k tokens that answer
    q_name: str  # "target" or "source"
    kv_name: str
    steps: AttentionSteps  # weights (T_q, T_k), output (T_q, d_v)


def cross_lesson(
    source: tuple[str, ...],
    target: tuple[str, ...],
    *,
    d_model: int = 16,
    d_k: int = 4,
    seed: int = 0,
    swap: bool = False,
) -> CrossLesson:
    """Target queries against source keys and values (the other way round with ``swap``).

    Both sentences are embedded alike, with positions counted within each sentence, and one
    seeded set of W_q, W_k, W_v serves both sides.

    Returns: CrossLesson with steps.weights (T_q, T_k)
    """
    source, target = tuple(source), tuple(target)
    q_tokens, kv_tokens = (source, target) if swap else (target, source)
    x_q = embed(list(q_tokens), d_model, seed=seed)
    x_kv = embed(list(kv_tokens), d_model, seed=seed)
    w = init_weights(d_model, d_k, seed=seed)
    steps = attention_steps(x_q, w.w_q, w.w_k, w.w_v, x_kv=x_kv)
    names = ("source", "target") if swap else ("target", "source")
    return CrossLesson(q_tokens=q_tokens, kv_tokens=kv_tokens, q_name=names[0], kv_name=names[1], steps=steps)


# --------------------------------------------------------------------------- masks and cost


@dataclass(frozen=True)
class MaskStudy:
    """One sentence under every mask kind, the cost of each kind, and two other score functions."""

    tokens: tuple[str, ...]
    runs: tuple[tuple[str, AttentionSteps], ...]  # (kind, steps) for each of MASK_KINDS
    kept: dict[str, int]  # scores each kind keeps for this sentence
    T_values: np.ndarray  # (n,) lengths of the cost chart
    counts: dict[str, np.ndarray]  # kind -> (n,) scores computed at each length
    memory: np.ndarray  # (n,) bytes of one float32 T x T matrix
    additive: np.ndarray  # (T, T) v_a . tanh(x_i W_q + x_j W_k)
    additive_bound: float  # sum |v_a|: no additive score can be larger in size, whatever d_k is
    dot: np.ndarray  # (T, T) scaled dot-product scores, same W_q, W_k
    top_agree: float  # fraction of rows whose highest-scoring key is the same under both
    top_agree_chance: float  # what that fraction would be by chance: 1 / T
    w_qk: np.ndarray  # (d_model, d_model) the bilinear form W_q W_k^T
    bilinear_diff: float  # max |x_i W_q W_k^T x_j^T - (QK^T)_ij|
    d_model: int
    d_k: int
    kv_step: AttentionSteps  # generating the last token: its query (1, d_k) against every key and value, no mask

    def steps(self, kind: str) -> AttentionSteps:
        return dict(self.runs)[kind]

    @property
    def kv_gap(self) -> float:
        """max |the generation step's weights - the causal weights' last row|: the KV cache needs no mask."""
        return float(np.max(np.abs(self.kv_step.weights[0] - self.steps("causal").weights[-1])))

    @property
    def additive_largest(self) -> float:
        """The largest |additive score| on this sentence: never above additive_bound."""
        return float(np.abs(self.additive).max())

    @property
    def causal_share(self) -> float:
        """Scores the causal mask keeps on this sentence, T(T+1)/2 of T²: a little over half."""
        return self.kept["causal"] / self.kept["global"]

    @property
    def causal_share_longest(self) -> float:
        """The same at the cost chart's longest T."""
        return float(self.counts["causal"][-1] / self.counts["global"][-1])

    def stored_bytes(self, layers: int, heads: int = 1) -> int:
        """float32 bytes of ``layers`` × ``heads`` score matrices at the chart's longest T."""
        return int(layers * heads * self.memory[-1])


@functools.lru_cache(maxsize=64)
def _score_counts(radius: int, dilation: int) -> dict[str, np.ndarray]:
    return score_counts(list(T_VALUES), radius=radius, dilation=dilation)


def mask_study(
    tokens: tuple[str, ...], *, radius: int = 2, dilation: int = 2, seed: int = 0, d_model: int = 16, d_k: int = 4
) -> MaskStudy:
    """Every mask kind on one sentence with one seeded head, the score counts for T up to
    512 (counts only), the additive and bilinear scores with the same W_q, W_k, and the step
    that generates the last token from a KV cache (its query against every key and value).

    Returns: MaskStudy with runs[kind].weights (T, T) and kv_step.weights (1, T)
    """
    tokens = tuple(tokens)
    T = len(tokens)
    x = embed(list(tokens), d_model, seed=seed)
    w = init_weights(d_model, d_k, seed=seed)
    runs = tuple(
        (kind, attention_steps(x, w.w_q, w.w_k, w.w_v, mask=make_mask(kind, T, radius=radius, dilation=dilation)))
        for kind in MASK_KINDS
    )
    here = score_counts([T], radius=radius, dilation=dilation)
    v_a = init_v_a(d_k, seed=seed)
    additive = additive_scores(x, w.w_q, w.w_k, v_a)
    dot = runs[0][1].scaled
    return MaskStudy(
        tokens=tokens,
        runs=runs,
        kept={kind: int(n[0]) for kind, n in here.items()},
        T_values=np.array(T_VALUES),
        counts=_score_counts(int(radius), int(dilation)),
        memory=scores_memory_bytes(list(T_VALUES)),
        additive=additive,
        additive_bound=float(np.abs(v_a).sum()),
        dot=dot,
        top_agree=float(np.mean(additive.argmax(axis=1) == dot.argmax(axis=1))),
        top_agree_chance=1.0 / T,
        w_qk=bilinear_form(w.w_q, w.w_k),
        bilinear_diff=max_abs_diff(bilinear_scores(x, w.w_q, w.w_k), runs[0][1].scores),
        d_model=d_model,
        d_k=d_k,
        kv_step=attention_steps(x[-1:], w.w_q, w.w_k, w.w_v, x_kv=x),  # (1, T): no mask, nothing after it exists
    )
