"""NumPy layer: imports the standard library only.

How the app names layers and heads, the same on every page, chart, slider, sentence and link:
both are counted from 1, as a reader counts ("layer 1" is the first layer the input meets;
all-MiniLM-L6-v2 has layers 1 to 6 of heads 1 to 12). The arrays stay 0-based: a page passes
the index it computes with, and these functions say it. A hidden state is named by the layer
it comes out of: "after layer k", and "the embeddings" before layer 1 (Hugging Face's
``hidden_states[k]``). bertviz and TransformerLens count from 0: their layer 0 is our layer 1.
"""

from __future__ import annotations

FIRST = 1  # what the first layer and the first head are called


def layer_number(layer: int) -> int:
    """The number shown for the 0-based ``layer``."""
    return layer + FIRST


def head_number(head: int) -> int:
    """The number shown for the 0-based ``head``."""
    return head + FIRST


def layer_index(number: int) -> int:
    """The 0-based layer for a shown (or linked) layer number."""
    return number - FIRST


def head_index(number: int) -> int:
    """The 0-based head for a shown (or linked) head number."""
    return number - FIRST


def layer_name(layer: int) -> str:
    """ "layer 3" for the 0-based layer 2."""
    return f"layer {layer_number(layer)}"


def head_name(head: int) -> str:
    """ "head 1" for the 0-based head 0."""
    return f"head {head_number(head)}"


def head_label(layer: int, head: int) -> str:
    """ "layer 3, head 1" for the 0-based (2, 0)."""
    return f"{layer_name(layer)}, {head_name(head)}"


def after_layer(k: int) -> str:
    """A hidden state by Hugging Face's index ``k`` into ``hidden_states`` (0: the embeddings):
    "the embeddings", "after layer 1", ..."""
    return "the embeddings" if k == 0 else f"after layer {k}"
