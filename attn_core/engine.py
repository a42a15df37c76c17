"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

The NumPy self-attention engine: one small pure function per step.

Shape vocabulary used everywhere: T (T_q, T_k), d_model, d_k, d_v, H.
This module imports numpy and the standard library only.
"""

from __future__ import annotations

import hashlib
import math
import operator
import re
import unicodedata
from dataclasses import dataclass

import numpy as np

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

# --------------------------------------------------------------------------- tokens

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# A word: letters/digits (not CJK), optionally joined by apostrophes ("didn't").
_WORD = rf"[^\W{_CJK}]+(?:['\u2019][^\W{_CJK}]+)*"
# One symbol plus whatever glues onto it: variation selectors, skin tones, combining
# marks, keycaps, and further symbols joined by a zero-width joiner (family emoji).
_GLUE = r"[\ufe0e\ufe0f\u20e3\u0300-\u036f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]"
_SYMBOL = rf"[^\w\s]{_GLUE}*(?:\u200d[^\w\s]{_GLUE}*)*"
_TOKEN_RE = re.compile(rf"{_WORD}|[{_CJK}]|{_SYMBOL}")


def _is_invisible(ch: str) -> bool:
    """Control and format characters (NUL, zero-width space, bidi overrides)."""
    return unicodedata.category(ch) in ("Cc", "Cf") and ch != "\u200d"


def tokenize(text: str, max_tokens: int = 64) -> list[str]:
    """Split text into word and punctuation tokens, keeping case and repeats.

    Control and zero-width characters are dropped; each CJK character and each emoji
    (with its joiners and modifiers) is one token.

    Returns: tokens, a list of at most ``max_tokens`` strings ([] for blank text).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    cleaned = "".join(" " if _is_invisible(ch) else ch for ch in text)
    tokens = []
    for match in _TOKEN_RE.finditer(cleaned):
        token = match.group(0).strip("\u200d")
        if token:
            tokens.append(token)
            if len(tokens) >= max_tokens:
                break
    return tokens


# --------------------------------------------------------------------------- embeddings


def _rng_for(*parts: object) -> np.random.Generator:
    """A generator seeded from a stable digest of ``parts`` (not Python's hash())."""
    digest = hashlib.blake2b(repr(parts).encode("utf-8"), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


def positional_encoding(T: int, d_model: int) -> np.ndarray:
    """Sinusoidal positions: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...).

    Returns: pe (T, d_model)
    """
    _check_positive(d_model=d_model)
    pos = np.arange(T, dtype=np.float64)[:, None]  # (T, 1)
    i = np.arange(d_model)[None, :]  # (1, d_model)
    rate = 1.0 / np.power(10000.0, (2 * (i // 2)) / d_model)
    angle = pos * rate  # (T, d_model)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def embed(tokens: list[str], d_model: int = 16, *, seed: int = 0, positional: bool = True) -> np.ndarray:
    """Token embeddings X: one fixed random N(0, 1) vector per word, plus positions.

    The vector depends only on (word, seed, d_model), so the same word gets the same
    vector in every process.

    Returns: x (T, d_model)
    """
    _check_positive(d_model=d_model)
    rows = [_rng_for("embed", tok, int(seed), d_model).standard_normal(d_model) for tok in tokens]
    x = np.array(rows, dtype=np.float64).reshape(len(tokens), d_model)
    if positional:
        x = x + positional_encoding(len(tokens), d_model)
    return x


# --------------------------------------------------------------------------- weights


def dim(array: str, axis: int) -> property:
    """A read-only property: the size of ``axis`` of the array at attribute path ``array``
    (``dim("w_q", 1)`` is d_k), so a result's sizes are read from its arrays, never kept twice."""
    get = operator.attrgetter(array)
    return property(lambda self: int(get(self).shape[axis]), doc=f"{array}.shape[{axis}]")


@dataclass(frozen=True)
class Weights:
    """Projection matrices of one attention head (biases are optional)."""

    w_q: np.ndarray  # (d_model, d_k)
    w_k: np.ndarray  # (d_model, d_k)
    w_v: np.ndarray  # (d_model, d_v)
    b_q: np.ndarray | None = None  # (d_k,)
    b_k: np.ndarray | None = None  # (d_k,)
    b_v: np.ndarray | None = None  # (d_v,)

    d_model = dim("w_q", 0)
    d_k = dim("w_q", 1)
    d_v = dim("w_v", 1)


def init_weights(d_model: int, d_k: int, d_v: int | None = None, *, seed: int = 0) -> Weights:
    """Seeded random W_q, W_k, W_v with entries N(0, 1/d_model).

    With unit-variance inputs this gives q and k entries of variance about 1, so the
    raw scores q.k have variance about d_k and the scaled ones about 1.

    Returns: Weights with w_q (d_model, d_k), w_k (d_model, d_k), w_v (d_model, d_v)
    """
    d_v = d_k if d_v is None else d_v
    _check_positive(d_model=d_model, d_k=d_k, d_v=d_v)
    rng = _rng_for("weights", int(seed), d_model, d_k, d_v)
    std = 1.0 / math.sqrt(d_model)
    return Weights(
        w_q=rng.normal(0.0, std, (d_model, d_k)),
        w_k=rng.normal(0.0, std, (d_model, d_k)),
        w_v=rng.normal(0.0, std, (d_model, d_v)),
    )


# --------------------------------------------------------------------------- softmax


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically safe softmax along ``axis``.

    Subtracts the maximum first (no overflow for inputs near +-1e6). A slice that is
    entirely -inf (a fully masked row) gives zeros, never NaN.

    Returns: an array of the same shape whose slices sum to 1 (or are all 0)
    """
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    e = np.exp(x - peak)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def entropy(p: np.ndarray, axis: int = -1) -> np.ndarray:
    """Shannon entropy in bits of probability rows (0 log 0 counts as 0).

    Returns: the array with ``axis`` removed
    """
    p = np.asarray(p, dtype=np.float64)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -np.sum(p * logs, axis=axis)


# --------------------------------------------------------------------------- masks


def causal_mask(T: int, T_k: int | None = None) -> np.ndarray:
    """Query i may attend to keys j <= i (True = may attend).

    Returns: mask (T, T_k) bool, T_k defaults to T
    """
    T_k = T if T_k is None else T_k
    return np.tril(np.ones((T, T_k), dtype=bool))


def window_mask(T: int, radius: int) -> np.ndarray:
    """Sliding window: keep |i - j| <= radius.

    Returns: mask (T, T) bool
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    offset = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))  # (T, T)
    return offset <= radius


def dilated_mask(T: int, radius: int, dilation: int) -> np.ndarray:
    """Dilated window: keep offsets |i - j| that are multiples of ``dilation``,
    up to ``radius * dilation``.

    Returns: mask (T, T) bool
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    if dilation < 1:
        raise ValueError(f"dilation must be >= 1, got {dilation}")
    offset = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))  # (T, T)
    return (offset % dilation == 0) & (offset <= radius * dilation)


# --------------------------------------------------------------------------- attention


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate step of one scaled dot-product attention head."""

    x: np.ndarray  # (T_q, d_model) queries come from here
    x_kv: np.ndarray  # (T_k, d_model) keys and values come from here
    q: np.ndarray  # (T_q, d_k)
    k: np.ndarray  # (T_k, d_k)
    v: np.ndarray  # (T_k, d_v)
    scores: np.ndarray  # (T_q, T_k) q @ k.T
    factor: float  # multiplier / sqrt(d_k), or multiplier when unscaled
    scaled: np.ndarray  # (T_q, T_k) scores * factor
    mask: np.ndarray | None  # (T_q, T_k) bool, True = may attend
    masked: np.ndarray  # (T_q, T_k) scaled, -inf where mask is False
    weights: np.ndarray  # (T_q, T_k) softmax(masked), rows sum to 1 (or 0)
    output: np.ndarray  # (T_q, d_v) weights @ v

    d_k = dim("q", 1)


def attention_steps(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    *,
    x_kv: np.ndarray | None = None,
    scale: bool = True,
    multiplier: float = 1.0,
    mask: np.ndarray | str | None = None,
    b_q: np.ndarray | None = None,
    b_k: np.ndarray | None = None,
    b_v: np.ndarray | None = None,
) -> AttentionSteps:
    """softmax(mask(multiplier * Q K^T / sqrt(d_k))) V, keeping every step.

    x (T_q, d_model); w_q, w_k (d_model, d_k); w_v (d_model, d_v);
    x_kv (T_k, d_model) for cross-attention, default x; mask None, "causal" or
    bool (T_q, T_k); optional biases b_q, b_k (d_k,) and b_v (d_v,).

    Returns: AttentionSteps with weights (T_q, T_k) and output (T_q, d_v)
    """
    x = _as_matrix(x, "x", "(T_q, d_model)")
    x_kv = x if x_kv is None else _as_matrix(x_kv, "x_kv", "(T_k, d_model)")
    d_model = x.shape[1]
    if x_kv.shape[1] != d_model:
        raise ValueError(f"x_kv must have shape (T_k, d_model={d_model}), got {x_kv.shape}")
    w_q = _as_matrix(w_q, "w_q", f"(d_model={d_model}, d_k)", rows=d_model)
    d_k = w_q.shape[1]
    w_k = _as_matrix(w_k, "w_k", f"(d_model={d_model}, d_k={d_k})", rows=d_model, cols=d_k)
    w_v = _as_matrix(w_v, "w_v", f"(d_model={d_model}, d_v)", rows=d_model)
    d_v = w_v.shape[1]
    if d_k < 1 or d_v < 1:
        raise ValueError(f"d_k and d_v must be >= 1, got d_k={d_k}, d_v={d_v}")
    multiplier = float(multiplier)
    if not math.isfinite(multiplier):
        raise ValueError(f"multiplier must be finite, got {multiplier}")

    q = x @ w_q + _bias(b_q, d_k, "b_q")  # (T_q, d_model) @ (d_model, d_k) -> (T_q, d_k)
    k = x_kv @ w_k + _bias(b_k, d_k, "b_k")  # (T_k, d_k)
    v = x_kv @ w_v + _bias(b_v, d_v, "b_v")  # (T_k, d_v)
    scores = q @ k.T  # (T_q, d_k) @ (d_k, T_k) -> (T_q, T_k)
    factor = multiplier / math.sqrt(d_k) if scale else multiplier
    scaled = scores * factor
    mask_arr = _resolve_mask(mask, x.shape[0], x_kv.shape[0])
    masked = scaled if mask_arr is None else np.where(mask_arr, scaled, -np.inf)
    weights = softmax(masked, axis=-1)
    output = weights @ v  # (T_q, T_k) @ (T_k, d_v) -> (T_q, d_v)
    return AttentionSteps(
        x=x,
        x_kv=x_kv,
        q=q,
        k=k,
        v=v,
        scores=scores,
        factor=factor,
        scaled=scaled,
        mask=mask_arr,
        masked=masked,
        weights=weights,
        output=output,
    )


# --------------------------------------------------------------------------- multi-head


@dataclass(frozen=True)
class MultiHeadSteps:
    """Every head's steps, their concatenation and the output projection."""

    heads: tuple[AttentionSteps, ...]  # H heads
    concat: np.ndarray  # (T_q, H*d_v)
    w_o: np.ndarray  # (H*d_v, d_model)
    output: np.ndarray  # (T_q, d_model) concat @ w_o


def init_multi_head(d_model: int, n_heads: int, d_k: int, *, seed: int = 0) -> tuple[tuple[Weights, ...], np.ndarray]:
    """H independent seeded heads (d_v = d_k) and an output projection.

    Returns: (heads, w_o) with H Weights and w_o (H*d_k, d_model)
    """
    _check_positive(d_model=d_model, n_heads=n_heads, d_k=d_k)
    heads = tuple(init_weights(d_model, d_k, seed=_head_seed(seed, h)) for h in range(n_heads))
    rng = _rng_for("w_o", int(seed), d_model, n_heads, d_k)
    w_o = rng.normal(0.0, 1.0 / math.sqrt(n_heads * d_k), (n_heads * d_k, d_model))
    return heads, w_o


def _head_seed(seed: int, h: int) -> int:
    digest = hashlib.blake2b(f"head:{int(seed)}:{h}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def multi_head_steps(
    x: np.ndarray,
    heads: tuple[Weights, ...] | list[Weights],
    w_o: np.ndarray,
    *,
    x_kv: np.ndarray | None = None,
    scale: bool = True,
    multiplier: float = 1.0,
    mask: np.ndarray | str | None = None,
) -> MultiHeadSteps:
    """Run each head with ``attention_steps``, concatenate, project with W_O.

    x (T_q, d_model); heads: H Weights; w_o (H*d_v, d_model).

    Returns: MultiHeadSteps with concat (T_q, H*d_v) and output (T_q, d_model)
    """
    if len(heads) == 0:
        raise ValueError("heads must hold at least one Weights (H >= 1)")
    steps = tuple(
        attention_steps(
            x,
            h.w_q,
            h.w_k,
            h.w_v,
            x_kv=x_kv,
            scale=scale,
            multiplier=multiplier,
            mask=mask,
            b_q=h.b_q,
            b_k=h.b_k,
            b_v=h.b_v,
        )
        for h in heads
    )
    concat = np.concatenate([s.output for s in steps], axis=1)  # H x (T_q, d_v) -> (T_q, H*d_v)
    w_o = np.asarray(w_o, dtype=np.float64)
    d_model = steps[0].x.shape[1]
    if w_o.shape != (concat.shape[1], d_model):
        raise ValueError(f"w_o must have shape (H*d_v={concat.shape[1]}, d_model={d_model}), got {w_o.shape}")
    output = concat @ w_o  # (T_q, H*d_v) @ (H*d_v, d_model) -> (T_q, d_model)
    return MultiHeadSteps(heads=steps, concat=concat, w_o=w_o, output=output)


# --------------------------------------------------------------------------- other scores


def additive_scores(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    v_a: np.ndarray,
    *,
    x_kv: np.ndarray | None = None,
) -> np.ndarray:
    """Additive (Bahdanau-style) scores: e_ij = tanh(x_i W_q + x_kv_j W_k) v_a (rows x_i).

    x (T_q, d_model); w_q, w_k (d_model, d_a); v_a (d_a,); x_kv (T_k, d_model).

    Returns: scores (T_q, T_k)
    """
    x = _as_matrix(x, "x", "(T_q, d_model)")
    x_kv = x if x_kv is None else _as_matrix(x_kv, "x_kv", "(T_k, d_model)")
    w_q = _as_matrix(w_q, "w_q", f"(d_model={x.shape[1]}, d_a)", rows=x.shape[1])
    d_a = w_q.shape[1]
    w_k = _as_matrix(w_k, "w_k", f"(d_model={x_kv.shape[1]}, d_a={d_a})", rows=x_kv.shape[1], cols=d_a)
    v_a = np.asarray(v_a, dtype=np.float64)
    if v_a.shape != (d_a,):
        raise ValueError(f"v_a must have shape (d_a={d_a},), got {v_a.shape}")
    q = x @ w_q  # (T_q, d_a)
    k = x_kv @ w_k  # (T_k, d_a)
    hidden = np.tanh(q[:, None, :] + k[None, :, :])  # (T_q, T_k, d_a)
    return hidden @ v_a  # (T_q, T_k, d_a) @ (d_a,) -> (T_q, T_k)


def bilinear_form(w_q: np.ndarray, w_k: np.ndarray) -> np.ndarray:
    """The matrix W_q W_k^T that a dot-product head really applies to pairs of inputs.

    Returns: w_qk (d_model, d_model)
    """
    w_q = _as_matrix(w_q, "w_q", "(d_model, d_k)")
    w_k = _as_matrix(w_k, "w_k", f"(d_model={w_q.shape[0]}, d_k={w_q.shape[1]})", rows=w_q.shape[0], cols=w_q.shape[1])
    return w_q @ w_k.T  # (d_model, d_k) @ (d_k, d_model) -> (d_model, d_model)


def bilinear_scores(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, *, x_kv: np.ndarray | None = None) -> np.ndarray:
    """Scores as a bilinear form: s_ij = x_i W_q W_k^T x_kv_j^T (rows x_i), equal to q_i . k_j.

    Returns: scores (T_q, T_k)
    """
    x = _as_matrix(x, "x", "(T_q, d_model)")
    x_kv = x if x_kv is None else _as_matrix(x_kv, "x_kv", f"(T_k, d_model={x.shape[1]})", cols=x.shape[1])
    w_qk = bilinear_form(w_q, w_k)
    if w_qk.shape[0] != x.shape[1]:
        raise ValueError(f"w_q must have shape (d_model={x.shape[1]}, d_k), got {np.shape(w_q)}")
    return x @ w_qk @ x_kv.T  # (T_q, d_model) @ (d_model, d_model) @ (d_model, T_k)


# --------------------------------------------------------------------------- checks


def _as_matrix(a: object, name: str, expected: str, *, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != 2 or (rows is not None and arr.shape[0] != rows) or (cols is not None and arr.shape[1] != cols):
        raise ValueError(f"{name} must have shape {expected}, got {arr.shape}")
    return arr


def _bias(b: np.ndarray | None, size: int, name: str) -> np.ndarray | float:
    if b is None:
        return 0.0
    arr = np.asarray(b, dtype=np.float64)
    if arr.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {arr.shape}")
    return arr


def _resolve_mask(mask: np.ndarray | str | None, T_q: int, T_k: int) -> np.ndarray | None:
    if mask is None:
        return None
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f'mask must be None, "causal" or a bool array, got {mask!r}')
        return causal_mask(T_q, T_k)
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise ValueError(f"mask must be a bool array of shape (T_q={T_q}, T_k={T_k}), got dtype {arr.dtype}")
    if arr.shape != (T_q, T_k):
        raise ValueError(f"mask must have shape (T_q={T_q}, T_k={T_k}), got {arr.shape}")
    return arr


def _check_positive(**sizes: int) -> None:
    for name, value in sizes.items():
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value}")
