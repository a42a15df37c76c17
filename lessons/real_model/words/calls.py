"""The page's views and settings (``FirstView``, ``Controls``, the layer and head pickers' names), and
its cached calls as plain functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from attn_core import numbering as nb
from attn_core import tables, views
from attn_core import transformer as tr

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, ModelAttention


VIEWS = {  # the Deck's sections, by the name the URL's ``view`` holds
    "head": "Head view",
    "model": "Model view",
    "neuron": "Neuron view",
    "summaries": "Summaries",
    "reproduce": "Reproduce a head",
}
LAYERS, HEADS = 6, 12  # the embedded model's shape, for clamping URL values before it loads
MAX_CHARS = 6000  # about 512 tokens of English fit comfortably


def share_name(share: float) -> str:
    """ "half" for 0.5, else the percentage ("80%")."""
    return "half" if share == 0.5 else f"{share:.0%}"


def title(label: str) -> str:
    """A label as a chart title starts: "Layer 4, head 8"."""
    return label[:1].upper() + label[1:]


@dataclass(frozen=True)
class FirstView:
    """What the page opens on: the classic "it" sentence, with the head the page suggests for
    "it" (models.it_head) and "it" picked. Without the embedded model: layer 1, every head and
    every token. Layers and heads as the page shows them and the URL holds them, from 1."""

    layer: int = 1
    heads: tuple[int, ...] = tuple(range(1, HEADS + 1))
    focus: int | None = None

    @property
    def head(self) -> int | None:
        """The one head (0-based) when the page opens on one."""
        return nb.head_index(self.heads[0]) if len(self.heads) == 1 else None


def first_view(layer: int, head: int, tokens: list[str]) -> FirstView:
    """The page's first view on the "it" head (0-based layer and head) and the "tired" sentence's tokens."""
    return FirstView(nb.layer_number(layer), (nb.head_number(head),), tokens.index("it"))


@dataclass(frozen=True)
class Controls:
    """The chosen view's own settings, as its widgets show them; head and heads 0-based."""

    heads: tuple[int, ...] = ()
    focus: int | None = None
    region: str = "All"
    hide: bool = False
    threshold: float = 0.05
    head: int = 0
    query: int = 1


def shown_layer(number: int) -> str:
    """A layer picker's option, which is the shown number: "layer 4"."""
    return nb.layer_name(nb.layer_index(number))


def shown_head(number: int) -> str:
    return nb.head_name(nb.head_index(number))


# --------------------------------------------------------------------------- the cached calls


def attend(
    _loaded: LoadedModel, name: str, source: str, sentence_a: str, sentence_b: str | None, max_tokens: int
) -> ModelAttention:
    """The model run on the sentences: attentions (L, H, T, T), queries and keys (``_loaded`` is
    not hashed by the page's cache; ``name`` and ``source`` say which model it is)."""
    from attn_core import models

    return models.extract_attentions(_loaded, sentence_a, sentence_b, max_tokens)


def view_lesson(att: ModelAttention, view: str, layer: int, c: Controls) -> views.ModelLesson:
    """The page's one attn_core call for the view shown: ``layer`` as shown (from 1), ``c`` 0-based."""
    return views.model_lesson(
        att.attentions,
        att.queries,
        att.keys,
        view,
        layer=nb.layer_index(layer),
        head=c.head,
        heads=c.heads,
        focus=c.focus,
        query=c.query,
    )


def npz(att: ModelAttention, name: str, sentence_a: str, sentence_b: str) -> bytes:
    """Every layer's and head's attentions (L, H, T, T) and the tokens, with the model and the sentences."""
    settings = {"model": name, "sentence_a": sentence_a, "sentence_b": sentence_b if sentence_b.strip() else None}
    return tables.to_npz({"attentions": att.attentions, "tokens": np.array(att.tokens, dtype=str)}, settings)


def model_origin() -> str:
    """One sentence on where the embedded model comes from, read from its config.json and model card."""
    return origin_sentence(tr.minilm_shape())


def origin_sentence(shape: tr.ModelShape | None) -> str:
    if shape is None:
        return ""
    trained = (
        ", and its model card, shipped with it, says it was then fine-tuned to make sentence embeddings"
        if shape.fine_tuned
        else ""
    )
    return (
        f" It has BERT's architecture (its config.json: {shape.architecture}, {shape.n_layers} layers of "
        f"{shape.n_heads} heads), but it starts from {shape.base}, a MiniLM distilled from a larger model (Wang et "
        f"al., 2020){trained}. So its heads may not do what papers report for BERT-base's."
    )
