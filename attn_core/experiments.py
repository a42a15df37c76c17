"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

Small NumPy experiments behind the softmax lab and the masks-and-cost page."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import _rng_for, causal_mask, dilated_mask, entropy, softmax, window_mask

__all__ = [
    "MASK_KINDS",
    "Competition",
    "DkStudy",
    "Saturation",
    "dk_study",
    "init_v_a",
    "make_mask",
    "max_abs_diff",
    "max_entropy",
    "random_scores",
    "saturation",
    "score_counts",
    "scores_memory_bytes",
    "sigmoid",
    "softmax_jacobian",
    "softmax_vs_sigmoid",
]

MASK_KINDS = ("global", "causal", "window", "dilated")


def random_scores(n: int = 8, *, seed: int = 0) -> np.ndarray:
    """A seeded vector of n scores drawn from N(0, 1).

    Returns: scores (n,)
    """
    return _rng_for("scores", int(seed), int(n)).standard_normal(int(n))


@dataclass(frozen=True)
class Saturation:
    """A score vector, its softmax, and the softmax after multiplying it."""

    scores: np.ndarray  # (n,)
    weights: np.ndarray  # (n,) softmax(scores)
    entropy: float  # bits
    multiplier: float
    scaled: np.ndarray  # (n,) scores * multiplier
    scaled_weights: np.ndarray  # (n,) softmax(scaled)
    scaled_entropy: float  # bits
    jacobian: np.ndarray  # (n, n) d softmax(s)_i / d s_j = p_i (delta_ij - p_j)
    scaled_jacobian: np.ndarray  # (n, n) the same at scores * multiplier

    @property
    def winner(self) -> int:
        """The key with the largest score."""
        return int(np.argmax(self.scores))


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """The softmax's Jacobian at weights p: J_ij = d p_i / d s_j = p_i (delta_ij - p_j).

    p (n,) -> Returns: (n, n)
    """
    p = np.asarray(p, dtype=np.float64)
    return np.diag(p) - np.outer(p, p)


def saturation(scores: np.ndarray, multiplier: float) -> Saturation:
    """Softmax of ``scores`` and of ``scores * multiplier``, with their entropies and Jacobians."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must have shape (n,), got {scores.shape}")
    weights = softmax(scores)
    scaled = scores * float(multiplier)
    scaled_weights = softmax(scaled)
    return Saturation(
        scores=scores,
        weights=weights,
        entropy=float(entropy(weights)),
        multiplier=float(multiplier),
        scaled=scaled,
        scaled_weights=scaled_weights,
        scaled_entropy=float(entropy(scaled_weights)),
        jacobian=softmax_jacobian(weights),
        scaled_jacobian=softmax_jacobian(scaled_weights),
    )


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Elementwise logistic 1 / (1 + e^-x), safe for large |x|."""
    x = np.asarray(x, dtype=np.float64)
    return np.exp(-np.logaddexp(0.0, -x))


@dataclass(frozen=True)
class DkStudy:
    """How random dot products behave as d_k grows (q, k entries ~ N(0, 1))."""

    d_k: np.ndarray  # (n,)
    var_unscaled: np.ndarray  # (n,) variance of q.k
    var_scaled: np.ndarray  # (n,) variance of q.k / sqrt(d_k)
    entropy_unscaled: np.ndarray  # (n,) mean row entropy of softmax(QK^T), bits
    entropy_scaled: np.ndarray  # (n,) mean row entropy of softmax(QK^T / sqrt(d_k)), bits
    T: int  # keys per row in the entropy experiment


def dk_study(d_ks: list[int] | np.ndarray, *, samples: int = 4000, T: int = 8, seed: int = 0) -> DkStudy:
    """Measure, for each d_k, the variance of q.k and the mean row entropy of the weights.

    ``samples`` random (q, k) pairs per d_k for the variance; ``samples // T`` random
    (T x T) score matrices for the entropy.
    """
    d_ks = np.asarray(d_ks, dtype=int)
    if d_ks.ndim != 1 or d_ks.size == 0 or np.any(d_ks < 1):
        raise ValueError(f"d_ks must be a non-empty 1-D list of positive ints, got {d_ks!r}")
    n_mats = max(1, samples // T)
    var_u, var_s, ent_u, ent_s = [], [], [], []
    for d_k in d_ks:
        rng = _rng_for("dk_study", int(seed), int(d_k))
        q = rng.standard_normal((samples, d_k))
        k = rng.standard_normal((samples, d_k))
        dots = np.einsum("nd,nd->n", q, k)  # (samples,)
        var_u.append(dots.var())
        var_s.append((dots / np.sqrt(d_k)).var())
        qm = rng.standard_normal((n_mats, T, d_k))
        km = rng.standard_normal((n_mats, T, d_k))
        s = qm @ km.transpose(0, 2, 1)  # (n, T, d_k) @ (n, d_k, T) -> (n, T, T)
        ent_u.append(entropy(softmax(s)).mean())
        ent_s.append(entropy(softmax(s / np.sqrt(d_k))).mean())
    return DkStudy(
        d_k=d_ks,
        var_unscaled=np.array(var_u),
        var_scaled=np.array(var_s),
        entropy_unscaled=np.array(ent_u),
        entropy_scaled=np.array(ent_s),
        T=int(T),
    )


def make_mask(kind: str, T: int, *, radius: int = 2, dilation: int = 2) -> np.ndarray | None:
    """The bool (T, T) mask for one of MASK_KINDS; None for global attention."""
    if kind == "global":
        return None
    if kind == "causal":
        return causal_mask(T)
    if kind == "window":
        return window_mask(T, radius)
    if kind == "dilated":
        return dilated_mask(T, radius, dilation)
    raise ValueError(f"mask kind must be one of {MASK_KINDS}, got {kind!r}")


def score_counts(T_values: list[int] | np.ndarray, *, radius: int = 2, dilation: int = 2) -> dict[str, np.ndarray]:
    """How many query-key scores each mask kind computes, for each sequence length T.

    Returns: {kind: counts (n,)} for every kind in MASK_KINDS
    """
    T_values = np.asarray(T_values, dtype=int)
    out = {}
    for kind in MASK_KINDS:
        counts = []
        for T in T_values:
            mask = make_mask(kind, int(T), radius=radius, dilation=dilation)
            counts.append(int(T) * int(T) if mask is None else int(mask.sum()))
        out[kind] = np.array(counts, dtype=np.int64)
    return out


@dataclass(frozen=True)
class Competition:
    """One score raised by ``delta``: softmax makes the others fall, sigmoid does not."""

    scores: np.ndarray  # (n,) before
    raised: np.ndarray  # (n,) scores with scores[index] + delta
    index: int
    delta: float
    softmax_before: np.ndarray  # (n,)
    softmax_after: np.ndarray  # (n,) sums to 1
    sigmoid_before: np.ndarray  # (n,)
    sigmoid_after: np.ndarray  # (n,) each in (0, 1), any sum
    softmax_sum: float  # sum of softmax_after
    sigmoid_sum: float  # sum of sigmoid_after


def softmax_vs_sigmoid(scores: np.ndarray, index: int, delta: float) -> Competition:
    """Softmax and sigmoid of ``scores`` before and after adding ``delta`` to one score.

    scores (n,); 0 <= index < n.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must have shape (n,), got {scores.shape}")
    if not 0 <= index < scores.size:
        raise ValueError(f"index must be in [0, {scores.size}), got {index}")
    raised = scores.copy()
    raised[index] += float(delta)
    softmax_after = softmax(raised)
    sigmoid_after = sigmoid(raised)
    return Competition(
        scores=scores,
        raised=raised,
        index=int(index),
        delta=float(delta),
        softmax_before=softmax(scores),
        softmax_after=softmax_after,
        sigmoid_before=sigmoid(scores),
        sigmoid_after=sigmoid_after,
        softmax_sum=float(softmax_after.sum()),
        sigmoid_sum=float(sigmoid_after.sum()),
    )


def max_entropy(T: int) -> float:
    """The largest possible entropy of a row of T weights (all equal): log2(T) bits."""
    if T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    return float(np.log2(T))


def scores_memory_bytes(T_values: list[int] | np.ndarray, *, itemsize: int = 4) -> np.ndarray:
    """Bytes of one dense (T, T) score matrix per T (float32: itemsize 4).

    Returns: bytes (n,)
    """
    T_values = np.asarray(T_values, dtype=np.int64)
    return T_values * T_values * int(itemsize)


def init_v_a(d_a: int, *, seed: int = 0) -> np.ndarray:
    """The seeded vector v_a of an additive (tanh) score, entries N(0, 1/d_a).

    Returns: v_a (d_a,)
    """
    if d_a < 1:
        raise ValueError(f"d_a must be >= 1, got {d_a}")
    return _rng_for("v_a", int(seed), int(d_a)).normal(0.0, 1.0 / np.sqrt(d_a), int(d_a))


def max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b| over all entries of two arrays of the same shape."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    return float(np.max(np.abs(a - b))) if a.size else 0.0
