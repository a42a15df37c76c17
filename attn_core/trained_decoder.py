"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

A tiny trained decoder (causal, GPT-style) of our own, run in NumPy.

The model: 2 layers of 4 causal attention heads each, d_model = 64, d_k = d_v = 16,
attention-only (no MLP, no LayerNorm, no biases inside the heads), token embeddings plus
the engine's sinusoidal positions, and a linear unembedding with a bias:

    x_0 = W_E[ids] + PE                                   (T, d_model)
    x_{l+1} = x_l + concat_h(attention(x_l, head h)) W_O  (T, d_model)
    logits = x_L W_U + b_U                                (T, V)

Each head is ``engine.attention_steps(x_l, w_q, w_k, w_v, mask="causal")`` with
``x_l = run.layer_inputs[l]``, so any head is a plain Step-by-step source. Trained on
random word sequences that repeat earlier stretches (``python -m attn_core.models.train_decoder``),
it forms an induction head in layer 2: on a repeat it looks from each word to the word that
followed that word's earlier occurrence, and predicts it.

This module imports numpy and the standard library only (never torch).
Shapes: L layers, H heads, T tokens, V vocabulary words, d_model, d_k.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .engine import Weights, _rng_for, attention_steps, dim, positional_encoding, softmax, tokenize
from .views import mean_distance
from .walkthrough import Lesson, Source, lesson, seeded_source

__all__ = [
    "INDUCTION_THRESHOLD",
    "MAX_TOKENS",
    "UNK",
    "VOCAB",
    "Decoder",
    "DecoderLesson",
    "DecoderLoadError",
    "DecoderRun",
    "DecoderWeights",
    "HeadLesson",
    "TorchParity",
    "Training",
    "decoder_lesson",
    "default_decoder_dir",
    "detect_period",
    "encode",
    "head_lesson",
    "head_source",
    "head_weights",
    "held_out_ids",
    "induction_heads",
    "induction_scores",
    "load_decoder",
    "load_training",
    "previous_token_scores",
    "random_repeated",
    "run",
    "torch_parity",
    "weight_shapes",
]

UNK = "<unk>"
MAX_TOKENS = 64  # the training length; sinusoidal positions beyond it were never seen
TOP_K = 5
INDUCTION_THRESHOLD = 0.5  # a head counts as an induction head once its induction score passes this
HELD_OUT_ROWS = 128  # the training script's held-out batch (train_decoder.EVAL_BATCH): this many sequences
RECORD_DECIMALS = 5  # training.json keeps the head scores rounded to this many decimals

# 100 common English words (lowercase, no two alike) after <unk>, so tokens read as words.
VOCAB: tuple[str, ...] = (
    UNK,
    "the", "a", "and", "of", "to", "in", "on", "at", "with", "for",
    "is", "was", "are", "it", "he", "she", "they", "we", "you", "i",
    "my", "his", "her", "this", "that", "big", "small", "red", "blue", "green",
    "old", "new", "good", "bad", "happy", "sad", "fast", "slow", "hot", "cold",
    "cat", "dog", "bird", "fish", "horse", "cow", "mouse", "house", "tree", "car",
    "boat", "book", "ball", "door", "road", "river", "sun", "moon", "star", "rain",
    "snow", "water", "bread", "milk", "apple", "cake", "tea", "man", "woman", "boy",
    "girl", "king", "queen", "friend", "teacher", "run", "walk", "jump", "sit", "eat",
    "drink", "see", "sing", "play", "read", "write", "sleep", "swim", "fly", "day",
    "night", "morning", "city", "school", "garden", "park", "sat", "mat", "hat", "bed",
)  # fmt: skip


def weight_shapes(V: int, L: int, H: int, d_model: int, d_k: int) -> dict[str, tuple[int, ...]]:
    """The shape of every array in weights.npz, by name."""
    return {
        "w_e": (V, d_model),  # token embeddings
        "w_q": (L, H, d_model, d_k),
        "w_k": (L, H, d_model, d_k),
        "w_v": (L, H, d_model, d_k),  # d_v = d_k
        "w_o": (L, H * d_k, d_model),
        "w_u": (d_model, V),  # unembedding
        "b_u": (V,),
    }


class DecoderLoadError(RuntimeError):
    """The decoder's files could not be loaded; the message says why in plain words."""


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class DecoderWeights:
    """Every trained array, float64."""

    w_e: np.ndarray  # (V, d_model)
    w_q: np.ndarray  # (L, H, d_model, d_k)
    w_k: np.ndarray  # (L, H, d_model, d_k)
    w_v: np.ndarray  # (L, H, d_model, d_v)
    w_o: np.ndarray  # (L, H*d_v, d_model)
    w_u: np.ndarray  # (d_model, V)
    b_u: np.ndarray  # (V,)


@dataclass(frozen=True)
class Decoder:
    """The vocabulary, the training config (config.json) and the weights."""

    vocab: tuple[str, ...]  # V words, vocab[0] == "<unk>" (a tuple: the loaded decoder is shared by every session)
    config: dict[str, Any]
    weights: DecoderWeights

    n_layers = dim("weights.w_q", 0)  # w_q is (L, H, d_model, d_k)
    n_heads = dim("weights.w_q", 1)
    d_model = dim("weights.w_q", 2)
    d_k = dim("weights.w_q", 3)
    d_v = dim("weights.w_v", 3)  # w_v is (L, H, d_model, d_v)

    @property
    def max_tokens(self) -> int:
        return int(self.config.get("train_length", MAX_TOKENS))

    @property
    def attention_only(self) -> bool:
        """config.json says the layers hold attention only: no MLP and no LayerNorm."""
        layers = str(self.config.get("layers", ""))
        return layers.startswith("attention-only") and "no MLP" in layers and "no LayerNorm" in layers


def default_decoder_dir() -> Path:
    """assets/decoder/ in the repository (found from this file)."""
    return Path(__file__).resolve().parents[1] / "assets" / "decoder"


def load_decoder(path: str | Path | None = None) -> Decoder:
    """Load weights.npz and config.json from ``path`` (default: the shipped assets/decoder/).

    Raises DecoderLoadError when a file is missing, unreadable or has the wrong shapes.
    """
    folder = default_decoder_dir() if path is None else Path(path)
    retrain = "Rebuild them with: python -m attn_core.models.train_decoder"
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        with np.load(folder / "weights.npz", allow_pickle=False) as npz:
            arrays = {name: np.asarray(npz[name], dtype=np.float64) for name in npz.files}
    except FileNotFoundError as exc:
        raise DecoderLoadError(
            f"The trained decoder's files were not found: {exc.filename} is missing. {retrain}"
        ) from exc
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise DecoderLoadError(f"The trained decoder's files in {folder} could not be read ({exc}). {retrain}") from exc
    vocab = config.get("vocab") if isinstance(config, dict) else None
    if not isinstance(vocab, list) or not vocab or vocab[0] != UNK or not all(isinstance(w, str) for w in vocab):
        raise DecoderLoadError(f"config.json in {folder} has no usable vocabulary (a list starting with {UNK}).")
    try:
        expected = weight_shapes(len(vocab), config["n_layers"], config["n_heads"], config["d_model"], config["d_k"])
    except (KeyError, TypeError) as exc:
        raise DecoderLoadError(f"config.json in {folder} lacks the model sizes ({exc}).") from exc
    for name, shape in expected.items():
        if name not in arrays:
            raise DecoderLoadError(f"weights.npz in {folder} has no array {name!r}. {retrain}")
        if arrays[name].shape != shape:
            raise DecoderLoadError(
                f"weights.npz in {folder}: {name} has shape {arrays[name].shape}, expected {shape}. {retrain}"
            )
        if not np.all(np.isfinite(arrays[name])):
            raise DecoderLoadError(f"weights.npz in {folder}: {name} holds NaN or infinite values. {retrain}")
    weights = DecoderWeights(**{name: arrays[name] for name in expected})
    return Decoder(vocab=tuple(vocab), config=config, weights=weights)


def encode(decoder: Decoder, words: list[str] | tuple[str, ...]) -> list[int]:
    """Word ids; matching ignores case ("The" is "the"), unknown words map to <unk> (id 0).

    Returns: ids, a list of T ints
    """
    index = {w: i for i, w in enumerate(decoder.vocab)}
    return [index.get(str(w).lower(), 0) for w in words]


@dataclass(frozen=True)
class DecoderRun:
    """One forward pass, every attention pattern and the next-word logits."""

    ids: np.ndarray  # (T,) int
    tokens: tuple[str, ...]  # T vocabulary words (unknown words read "<unk>")
    layer_inputs: np.ndarray  # (L, T, d_model) the residual stream each layer's heads read
    attentions: np.ndarray  # (L, H, T, T) causal: exactly 0 above the diagonal
    logits: np.ndarray  # (T, V) logits[t] scores the word at t + 1

    @property
    def T(self) -> int:
        return len(self.tokens)


def run(decoder: Decoder, ids: list[int] | np.ndarray) -> DecoderRun:
    """The forward pass in float64; every head is ``attention_steps(..., mask="causal")``.

    ids (T,) with 0 <= id < V and T <= the training length (64); T = 0 gives empty arrays.

    Returns: DecoderRun with layer_inputs (L, T, d_model), attentions (L, H, T, T), logits (T, V)
    """
    w = decoder.weights
    V, L, H, d_model = len(decoder.vocab), decoder.n_layers, decoder.n_heads, decoder.d_model
    arr = np.asarray(ids)
    if arr.size == 0:
        arr = arr.reshape(0).astype(np.int64)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"ids must be a 1-D integer array of shape (T,), got shape {arr.shape} dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= V):
        raise ValueError(f"ids must lie in 0..{V - 1} (V={V} words), got {arr.min()}..{arr.max()}")
    if len(arr) > decoder.max_tokens:
        raise ValueError(f"ids must have shape (T,) with T <= {decoder.max_tokens}, got T={len(arr)}")
    T = len(arr)
    tokens = tuple(decoder.vocab[i] for i in arr)
    if T == 0:
        return DecoderRun(
            ids=arr,
            tokens=(),
            layer_inputs=np.zeros((L, 0, d_model)),
            attentions=np.zeros((L, H, 0, 0)),
            logits=np.zeros((0, V)),
        )

    x = w.w_e[arr] + positional_encoding(T, d_model)  # (T, d_model)
    layer_inputs, attentions = [], []
    for layer in range(L):
        layer_inputs.append(x)
        heads = [attention_steps(x, w.w_q[layer, h], w.w_k[layer, h], w.w_v[layer, h], mask="causal") for h in range(H)]
        attentions.append(np.stack([s.weights for s in heads]))  # H x (T, T) -> (H, T, T)
        concat = np.concatenate([s.output for s in heads], axis=1)  # H x (T, d_v) -> (T, H*d_v)
        x = x + concat @ w.w_o[layer]  # (T, H*d_v) @ (H*d_v, d_model) -> (T, d_model)
    logits = x @ w.w_u + w.b_u  # (T, d_model) @ (d_model, V) -> (T, V)
    return DecoderRun(
        ids=arr, tokens=tokens, layer_inputs=np.stack(layer_inputs), attentions=np.stack(attentions), logits=logits
    )


def head_weights(decoder: Decoder, layer: int, head: int) -> Weights:
    """One head's projections (no biases).

    Returns: Weights with w_q, w_k, w_v (d_model, d_k)
    """
    _check_layer_head(decoder, layer, head)
    w = decoder.weights
    return Weights(w_q=w.w_q[layer, head], w_k=w.w_k[layer, head], w_v=w.w_v[layer, head])


def head_source(decoder: Decoder, decoder_run: DecoderRun, layer: int, head: int) -> Source:
    """A Step-by-step source for one head: x = the layer's input, and the head's weights.

    ``walkthrough.lesson(source, causal=True)`` then reproduces ``run.attentions[layer, head]``.

    Returns: Source with x (T, d_model) and weights (d_model, d_k)
    """
    _check_layer_head(decoder, layer, head)
    return Source(
        tokens=decoder_run.tokens, x=decoder_run.layer_inputs[layer], weights=head_weights(decoder, layer, head)
    )


@dataclass(frozen=True)
class HeadLesson:
    """Step by step with a head of the decoder: the lesson, and how closely it matches the model."""

    lesson: Lesson  # every step, the causal mask on (the head was trained with it)
    max_abs_error: float  # max |weights - run.attentions[layer, head]| with the model's own settings
    unknown: tuple[str, ...]  # words read as <unk>
    truncated: bool  # more than MAX_TOKENS words; the rest was cut


def head_lesson(
    decoder: Decoder, text: str, layer: int, head: int, *, scale: bool = True, multiplier: float = 1.0
) -> HeadLesson:
    """One decoder head on ``text`` as the step-by-step lesson (always causal).

    Returns: HeadLesson whose lesson.steps.weights is (T, T), zero above the diagonal
    """
    lesson_ = decoder_lesson(decoder, text)
    source = head_source(decoder, lesson_.run, layer, head)
    own = lesson(source, causal=True)  # the model's own settings
    error = float(np.max(np.abs(own.steps.weights - lesson_.run.attentions[layer, head]), initial=0.0))
    shown = own if scale and multiplier == 1.0 else lesson(source, scale=scale, multiplier=multiplier, causal=True)
    return HeadLesson(lesson=shown, max_abs_error=error, unknown=lesson_.unknown, truncated=lesson_.truncated)


def _check_layer_head(decoder: Decoder, layer: int, head: int) -> None:
    if not (0 <= layer < decoder.n_layers and 0 <= head < decoder.n_heads):
        raise ValueError(
            f"layer must be in 0..{decoder.n_layers - 1} and head in 0..{decoder.n_heads - 1}, got ({layer}, {head})"
        )


# --------------------------------------------------------------------------- head scores


def induction_scores(decoder_run: DecoderRun, period: int) -> np.ndarray:
    """Each head's mean attention from t to t - period + 1 (the word after the earlier
    occurrence), over the repeated part t >= period. Needs 1 <= period < T.

    Returns: scores (L, H)
    """
    return copy_score(decoder_run.attentions, period)


def copy_score(weights: np.ndarray, period: int) -> np.ndarray:
    """The induction score of any attention weights (..., T, T) on a text that repeats with this
    period: the mean weight from t to t - period + 1 over t >= period. Needs 1 <= period < T.

    Returns: scores (...)
    """
    T = np.shape(weights)[-1]
    if not 1 <= period < T:
        raise ValueError(f"period must be in 1..T-1 = 1..{T - 1} for T={T} tokens, got {period}")
    return _offset_mean(np.asarray(weights), offset=period - 1, start=period)


def previous_token_scores(decoder_run: DecoderRun) -> np.ndarray:
    """Each head's mean attention from t to t - 1, over t >= 1. Needs T >= 2.

    Returns: scores (L, H)
    """
    if decoder_run.T < 2:
        raise ValueError(f"previous-token scores need at least 2 tokens, got T={decoder_run.T}")
    return _offset_mean(decoder_run.attentions, offset=1, start=1)


def induction_heads(scores: np.ndarray, threshold: float = INDUCTION_THRESHOLD) -> list[tuple[int, int]]:
    """(layer, head) of every head whose score passed ``threshold``, layer by layer.

    scores (L, H), e.g. from ``induction_scores``.
    """
    return [(int(layer), int(head)) for layer, head in np.argwhere(np.asarray(scores) > threshold)]


def _offset_mean(attentions: np.ndarray, offset: int, start: int) -> np.ndarray:
    """Mean of attentions[..., t, t - offset] over t >= start.  (..., T, T) -> (...)"""
    T = attentions.shape[-1]
    t = np.arange(start, T)
    return attentions[..., t, t - offset].mean(axis=-1)


def detect_period(words: list[str] | tuple[str, ...]) -> int | None:
    """The shortest p with words[t] == words[t - p] for every t >= p and at least two
    repeated words (p <= T - 2), else None: the text repeats its start from word p on.

    "a b c a b" has period 3; "a b c" and "a b a" have none.
    """
    T = len(words)
    for p in range(1, T - 1):
        if all(words[t] == words[t - p] for t in range(p, T)):
            return p
    return None


# --------------------------------------------------------------------------- the lesson


@dataclass(frozen=True)
class DecoderLesson:
    """Everything the decoder page shows for one text."""

    words: tuple[str, ...]  # T words as typed, lowercased (the model reads tokens)
    known: np.ndarray  # (T,) bool, False where the word became <unk>
    unknown: tuple[str, ...]  # the distinct unknown words, in order of first appearance
    truncated: bool  # the text had more than max_tokens words; the rest was cut
    run: DecoderRun  # tokens, layer_inputs (L, T, d_model), attentions (L, H, T, T), logits (T, V)
    period: int | None  # the repeat's period (detected or given), None if the text does not repeat
    induction: np.ndarray | None  # (L, H) induction scores for ``period``, None without one
    previous_token: np.ndarray | None  # (L, H), None when T < 2
    probs: np.ndarray  # (T, V) softmax(logits): the next-word distribution at each position
    top_ids: np.ndarray  # (T, k) int, the k = 5 likeliest next words, best first
    top_words: tuple[tuple[str, ...], ...]  # T rows of k words
    top_probs: np.ndarray  # (T, k)
    loss: np.ndarray  # (T - 1,) loss[t] = -ln p(word t + 1 | words 0..t); the last word has no next
    correct: np.ndarray  # (T - 1,) bool, top_ids[t, 0] == ids[t + 1]
    loss_first: float | None  # mean loss[t] for t < period (before the repeat can help)
    loss_repeat: float | None  # mean loss[t] for t >= period (the repeat predicts the word)
    accuracy_repeat: float | None  # mean correct[t] for t >= period

    @property
    def T(self) -> int:
        return len(self.words)

    @property
    def empty(self) -> bool:
        """No words at all: the page should say so instead of drawing."""
        return self.T == 0

    @property
    def mean_distance(self) -> np.ndarray:
        """(L, H) how far back each head looks, in words (``views.mean_distance``)."""
        return mean_distance(self.run.attentions)

    @property
    def max_above_diagonal(self) -> float:
        """The largest weight any head puts on a later word: exactly 0 under the causal mask."""
        above = np.triu(np.ones((self.T, self.T), dtype=bool), 1)  # (T, T) j > i
        return float(np.abs(self.run.attentions[..., above]).max(initial=0.0))


def decoder_lesson(
    decoder: Decoder, text: str, max_tokens: int = MAX_TOKENS, period: int | None = None
) -> DecoderLesson:
    """Split ``text`` into words, run the decoder and score its heads and guesses.

    Words are ``engine.tokenize`` tokens, lowercased (punctuation, emoji and CJK characters
    are tokens too, and become <unk>). More than ``max_tokens`` words: the rest is cut and
    ``truncated`` set. ``period`` None: detected (see ``detect_period``); a given period >= T
    leaves ``period`` None. Blank text gives an empty lesson (``lesson.empty``) with 0-length
    arrays.

    Returns: DecoderLesson with attentions (L, H, T, T), top_probs (T, 5) and loss (T - 1,)
    """
    if not 1 <= max_tokens <= decoder.max_tokens:
        raise ValueError(f"max_tokens must be in 1..{decoder.max_tokens} (the training length), got {max_tokens}")
    tokens = tokenize(text, max_tokens=max_tokens + 1)
    truncated = len(tokens) > max_tokens
    words = tuple(t.lower() for t in tokens[:max_tokens])
    ids = np.array(encode(decoder, words), dtype=np.int64)
    known = ids != 0
    unknown = tuple(dict.fromkeys(w for w, k in zip(words, known, strict=True) if not k))
    decoder_run = run(decoder, ids)
    T = len(words)

    if period is None:
        period = detect_period(words)
    elif period < 1:
        raise ValueError(f"period must be >= 1, got {period}")
    elif period >= T:
        period = None  # too short a text to repeat with this period
    probs = softmax(decoder_run.logits, axis=-1)  # (T, V)
    k = min(TOP_K, len(decoder.vocab))
    top_ids = np.argsort(-probs, axis=-1, kind="stable")[:, :k]  # (T, k)
    top_probs = np.take_along_axis(probs, top_ids, axis=-1)  # (T, k)
    top_words = tuple(tuple(decoder.vocab[i] for i in row) for row in top_ids)
    nxt = ids[1:]  # (T - 1,) the word each position should predict
    p_next = probs[np.arange(T - 1), nxt] if T > 1 else np.zeros(0)  # (T - 1,)
    loss = -np.log(np.maximum(p_next, np.finfo(np.float64).tiny))
    correct = top_ids[:-1, 0] == nxt if T > 1 else np.zeros(0, dtype=bool)

    def mean(a: np.ndarray) -> float | None:
        return float(a.mean()) if a.size else None

    return DecoderLesson(
        words=words,
        known=known,
        unknown=unknown,
        truncated=truncated,
        run=decoder_run,
        period=period,
        induction=None if period is None else induction_scores(decoder_run, period),
        previous_token=previous_token_scores(decoder_run) if T >= 2 else None,
        probs=probs,
        top_ids=top_ids,
        top_words=top_words,
        top_probs=top_probs,
        loss=loss,
        correct=correct,
        loss_first=None if period is None else mean(loss[:period]),
        loss_repeat=None if period is None else mean(loss[period:]),
        accuracy_repeat=None if period is None else mean(correct[period:].astype(np.float64)),
    )


@dataclass(frozen=True)
class TrainedHead:
    """What training changes (Home): the decoder's best induction head beside a head with
    random weights of the same shape, on the same words that repeat."""

    words: tuple[str, ...]  # T words, lowercased
    period: int  # the words repeat from here on
    layer: int  # the trained head, from 0
    head: int
    trained: np.ndarray  # (T, T) its attention weights
    random: np.ndarray  # (T, T) a seeded random head's (d_model, d_k as the decoder's; causal, positions on)
    trained_score: float  # copy_score of each: the mean weight on the word after the earlier copy
    random_score: float
    accuracy_repeat: float  # how often the decoder's top guess is the next word, in the repeated part
    d_model: int = 0  # both heads' sizes (the decoder's)
    d_k: int = 0


def trained_vs_random(decoder: Decoder, text: str, seed: int = 0) -> TrainedHead:
    """The head with the highest induction score on ``text`` (which must repeat: see
    ``detect_period``) and a random head (``walkthrough.seeded_source`` with ``seed``) on the
    same words, both causal.

    Returns: TrainedHead with trained and random (T, T)
    """
    taught = decoder_lesson(decoder, text)
    if taught.period is None or taught.induction is None or taught.accuracy_repeat is None:
        raise ValueError(f"the text must repeat its start to show an induction head, got {text!r}")
    layer, head = (int(n) for n in np.unravel_index(int(np.argmax(taught.induction)), taught.induction.shape))
    source = seeded_source(taught.words, decoder.d_model, decoder.d_k, seed=seed, positional=True)
    random = lesson(source, causal=True).steps.weights  # (T, T)
    return TrainedHead(
        words=taught.words,
        period=taught.period,
        layer=layer,
        head=head,
        trained=taught.run.attentions[layer, head],
        random=random,
        trained_score=float(taught.induction[layer, head]),
        random_score=float(copy_score(random, taught.period)),
        accuracy_repeat=float(taught.accuracy_repeat),
        d_model=int(decoder.d_model),
        d_k=int(decoder.d_k),
    )


def random_repeated(decoder: Decoder, n_words: int = 20, seed: int = 0, *, replace: bool = True) -> list[str]:
    """``n_words`` random vocabulary words (never <unk>), then the same words again.

    ``replace`` False draws distinct words. The stream is seeded from
    ("random_repeated", seed, replace), never the one training used. 1 <= n_words <= 32.

    Returns: words, a list of 2 * n_words strings
    """
    words = decoder.vocab[1:]
    if not 1 <= n_words <= decoder.max_tokens // 2:
        raise ValueError(f"n_words must be in 1..{decoder.max_tokens // 2} (twice that fills the model), got {n_words}")
    rng = _rng_for("random_repeated", int(seed), bool(replace))
    picks = rng.choice(len(words), size=n_words, replace=replace)
    first = [words[i] for i in picks]
    return first + first


# --------------------------------------------------------------------------- the training record


@dataclass(frozen=True)
class Training:
    """How the shipped decoder learned: its held-out loss and head scores as training went."""

    steps: np.ndarray  # (n,) training step of each evaluation
    loss: np.ndarray  # (n,) held-out loss (nats per word)
    loss_first: np.ndarray  # (n,) on the words before the repeat
    loss_repeat: np.ndarray  # (n,) on the repeated words
    repeat_accuracy: np.ndarray  # (n,) top-1 accuracy on the repeated words
    induction: np.ndarray  # (n, L, H) induction score of every head
    previous_token: np.ndarray  # (n, L, H) previous-token score of every head
    period: int  # the held-out batch's repeat period

    @property
    def best_induction(self) -> np.ndarray:
        """(n,) the best head's induction score at each evaluation."""
        return self.induction.reshape(len(self.steps), -1).max(axis=1)

    def formed_at(self, threshold: float = INDUCTION_THRESHOLD) -> int | None:
        """The first evaluated step at which some head's induction score passed ``threshold``."""
        above = np.nonzero(self.best_induction > threshold)[0]
        return int(self.steps[above[0]]) if above.size else None

    @property
    def steepest_repeat_drop(self) -> int | None:
        """i where loss_repeat fell the most between evaluations i and i + 1 (None for < 2)."""
        return int(np.argmin(np.diff(self.loss_repeat))) if len(self.steps) > 1 else None

    @property
    def steepest_induction_rise(self) -> int | None:
        """i where best_induction rose the most between evaluations i and i + 1 (None for < 2)."""
        return int(np.argmax(np.diff(self.best_induction))) if len(self.steps) > 1 else None


def load_training(path: str | Path | None = None) -> Training:
    """The training record written next to the weights (training.json)."""
    folder = Path(path) if path is not None else default_decoder_dir()
    try:
        record = json.loads((folder / "training.json").read_text(encoding="utf-8"))
        history = record["history"]

        def col(name: str) -> np.ndarray:
            return np.array([np.nan if h[name] is None else h[name] for h in history], dtype=np.float64)

        return Training(
            steps=np.array([h["step"] for h in history], dtype=np.int64),
            loss=col("loss"),
            loss_first=col("loss_first"),
            loss_repeat=col("loss_repeat"),
            repeat_accuracy=col("repeat_accuracy"),
            induction=np.array([h["induction_score"] for h in history], dtype=np.float64),
            previous_token=np.array([h["previous_token_score"] for h in history], dtype=np.float64),
            period=int(record["eval_period"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise DecoderLoadError(f"The decoder's training record could not be read from {folder}: {err}") from err


# --------------------------------------------------------------------------- parity with torch


def held_out_ids(seed: int, rows: int = HELD_OUT_ROWS, period: int = 32, V: int = len(VOCAB)) -> np.ndarray:
    """The training script's held-out batch (train_decoder.eval_batch), rebuilt without torch:
    ``period`` random words (never <unk>) then the same again, per row.

    Returns: ids (rows, 2 * period) int64
    """
    rng = np.random.default_rng([seed, 1])  # training draws from [seed, 0]
    first = rng.integers(1, V, size=(rows, period))
    return np.concatenate([first, first], axis=1).astype(np.int64)


@dataclass(frozen=True)
class TorchParity:
    """The NumPy pass against the torch model it was trained as: the training script's own
    held-out evaluation (recorded by torch, in float32, in training.json's last entry) done
    again here in NumPy on the shipped weights."""

    rows: int  # held-out sequences
    T: int  # words in each
    loss: float  # the NumPy pass's mean held-out loss (nats per word)
    torch_loss: float  # the one torch recorded
    loss_gap: float  # |loss - torch_loss|
    score_gap: float  # max |Δ| over every head's induction and previous-token scores (the record keeps 5 decimals)


def torch_parity(decoder: Decoder, training: Training) -> TorchParity:
    """Evaluate the shipped decoder in NumPy on the held-out batch its training record was
    measured on (config seed, ``training.period``) and compare with the record's last entry.

    Returns: TorchParity with the two losses and the largest gap in the head scores
    """
    ids = held_out_ids(int(decoder.config.get("seed", 0)), HELD_OUT_ROWS, training.period, len(decoder.vocab))
    rows, T = ids.shape
    losses, attentions = [], []
    for row in ids:
        out = run(decoder, row)
        probs = softmax(out.logits[:-1], axis=-1)  # (T - 1, V)
        losses.append(-np.log(probs[np.arange(T - 1), row[1:]]))  # (T - 1,)
        attentions.append(out.attentions)
    att = np.stack(attentions)  # rows x (L, H, T, T) -> (rows, L, H, T, T)
    induction = copy_score(att, training.period).mean(axis=0)  # (rows, L, H) -> (L, H)
    previous = _offset_mean(att, offset=1, start=1).mean(axis=0)  # (L, H)
    loss = float(np.mean(losses))
    gaps = np.concatenate(
        [np.abs(induction - training.induction[-1]).ravel(), np.abs(previous - training.previous_token[-1]).ravel()]
    )
    return TorchParity(
        rows=rows,
        T=T,
        loss=loss,
        torch_loss=float(training.loss[-1]),
        loss_gap=abs(loss - float(training.loss[-1])),
        score_gap=float(gaps.max()),
    )
