"""The summaries (the mean over heads and the rollout), and reproducing a head with attn_core."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_core import numbering as nb
from attn_core import views
from attn_core.tables import Table
from lessons.real_model.words.attention_views import layer_names
from lessons.real_model.words.calls import title

if TYPE_CHECKING:
    from attn_core.models import RealLesson


# --------------------------------------------------------------------------- the summaries

SUMMARIES_TITLE = "Per layer: the mean over heads, and the rollout up to that layer"
SUMMARIES_TEXT = (
    "Averaging the heads of a layer shows where that layer as a whole moves information. "
    "**Attention rollout** (Abnar & Zuidema, 2020) follows it through the layers: each layer's "
    "mean is mixed half-and-half with the identity (the residual connection keeps each token's own "
    "vector), and the layers are multiplied, so row i estimates how much each input token has flowed into "
    "token i after that layer. It is a heuristic, not a measurement: it uses the attention weights only and "
    "ignores the values, W_O, the feed-forward networks and LayerNorm."
)
NOT_IMPORTANCE = (
    "The same holds for every chart on this page: an attention weight shows where a head looks, not how much "
    "a token matters to the output. A large weight on a token whose value vector is small changes little."
)


def summary_table(lesson: views.ModelLesson) -> Table:
    """Each layer's share on [CLS], of the mean over heads and of the rollout (2, L)."""
    names = layer_names(lesson.summary_on_cls.shape[1])
    rows, axes = ["mean", "rollout"], {"row_title": "summary", "col_title": "layer"}
    return Table(lesson.summary_on_cls, rows, names, name="Share on [CLS] per layer", kind="signed", **axes)


def mean_title(layer: int) -> str:
    return f"{title(nb.layer_name(layer))}: mean over heads"


def rollout_title(layer: int) -> str:
    return f"Rollout through {nb.layer_name(layer)}"


# --------------------------------------------------------------------------- reproduce a head

METRIC = "max |Δ| between attn_core and the model"


def reproduce_text(layer: int, head: int, d_k: int) -> str:
    return (
        f"The model's own weights for {nb.head_label(layer, head)} go into the same `attention_steps` "
        "function the other pages use: x is the layer's input, W_q, W_k, W_v and their biases are this "
        f"head's slice of the layer, and the scores are divided by √{d_k}. "
        "The result matches the model's attention up to rounding:"
    )


def reproduce_latex(real: RealLesson) -> str:
    steps, x, d_k = real.lesson.steps, real.lesson.source.x, real.lesson.source.weights.d_k
    return (
        rf"\mathrm{{softmax}}\!\left(\frac{{(XW_q+b_q)(XW_k+b_k)^\top}}{{\sqrt{{{d_k}}}}}\right),"
        rf"\quad X \in \mathbb{{R}}^{{{x.shape[0]}\times{x.shape[1]}}},\ "
        rf"\frac{{1}}{{\sqrt{{{d_k}}}}} = {steps.factor:.4f}"
    )
