"""Small NumPy experiments behind the softmax lab and the masks-and-cost page."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import _rng_for, causal_mask, dilated_mask, entropy, softmax, window_mask

__all__ = [
    "MASK_KINDS",
    "DkStudy",
    "Saturation",
    "dk_study",
    "make_mask",
    "random_scores",
    "saturation",
    "score_counts",
    "sigmoid",
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


def saturation(scores: np.ndarray, multiplier: float) -> Saturation:
    """Softmax of ``scores`` and of ``scores * multiplier``, with their entropies."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must have shape (n,), got {scores.shape}")
    weights = softmax(scores)
    scaled = scores * float(multiplier)
    scaled_weights = softmax(scaled)
    return Saturation(
        scores=scores, weights=weights, entropy=float(entropy(weights)),
        multiplier=float(multiplier), scaled=scaled, scaled_weights=scaled_weights,
        scaled_entropy=float(entropy(scaled_weights)),
    )  # fmt: skip


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
        d_k=d_ks, var_unscaled=np.array(var_u), var_scaled=np.array(var_s),
        entropy_unscaled=np.array(ent_u), entropy_scaled=np.array(ent_s), T=int(T),
    )  # fmt: skip


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
