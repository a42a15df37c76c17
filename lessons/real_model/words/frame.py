"""The page's frame: the opening, a missing model, a failed or cut input, the model's sizes and tokens."""

from __future__ import annotations

from attn_core import numbering as nb
from ui.markup import md_escape
from ui.reader import Reader

# --------------------------------------------------------------------------- the page's frame


def intro(origin: str) -> str:
    return (
        "Most pages use small random weights, so that every number stays easy to follow. Here every weight "
        "comes from a trained model, all-MiniLM-L6-v2, a small BERT that runs on this computer with no network "
        "(Step by step can borrow one of its heads, and the Decoder page shows a trained model of our own)."
        + origin
        + " Type one or two sentences and look at its heads from several angles."
    )


def unavailable(problem: str | None) -> str:
    return (
        f"The real model is not available: {md_escape(problem or 'unknown error')} "
        "The other pages do not need it and keep working."
    )


def empty(reader: Reader) -> str:
    place = "in the sidebar" if reader.presenting else "above"  # where presenter mode keeps the sentences
    return f"Type a sentence A {place} (it is empty), or pick an example, to see the model's attention."


def failed(error: str) -> str:
    return f"The model failed on this input ({error}); try a shorter text."


def truncated(max_tokens: int) -> str:
    return (
        f"The input is longer than {max_tokens} tokens, the most this model reads; only the first "
        f"{max_tokens} are used (a sentence pair is trimmed from the longer sentence)."
    )


def about_model(name: str, n_layers: int, n_heads: int, d_model: int, d_k: int, device: str) -> str:
    """The model's sizes, and the page's one word on how layers and heads are numbered."""
    return (
        f"Model {md_escape(name)}: {n_layers} layers × {n_heads} heads, d_model = {d_model}, d_k = {d_k}. "
        f"Running on **{device}**. Layers and heads are counted from 1 here, as on every page of this app "
        f"({nb.layer_name(0)} to {nb.layer_name(n_layers - 1)}, {nb.head_name(0)} to {nb.head_name(n_heads - 1)}); "
        "bertviz and TransformerLens count both from 0, so their layer 0, head 0 is layer 1, head 1 here."
    )


def tokens_heading(T: int) -> str:
    return f"**{T} tokens** as the model sees them:"


def tokenizer_note(tokens: list[str]) -> str:
    return (
        "This tokenizer lowercases the text and splits rare words into WordPiece parts (## marks a part "
        "that continues a word). It adds [CLS] at the start and [SEP] after each sentence; characters "
        "outside its vocabulary become [UNK]." + (" Some of this input became [UNK]." if "[UNK]" in tokens else "")
    )


CARRIED_NOTE = "Sentence A is your sentence from another page."
DOWNLOAD = "Download the attentions (.npz: every layer and head, L × H × T × T, and the tokens)"
