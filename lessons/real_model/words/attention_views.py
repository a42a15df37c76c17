"""The head view, the model view and the neuron view."""

from __future__ import annotations

import numpy as np

from attn_core import numbering as nb
from attn_core import views
from attn_core.tables import Table
from lessons.real_model.words.calls import share_name, title
from ui.markup import md_escape

# --------------------------------------------------------------------------- the head view

HEAD_VIEW_TEXT = (
    "Each line joins a token on the left (the **query**, doing the looking) to a token on the right "
    "(the **key**, being looked at). The darker the line, the larger the attention weight; every "
    "head has its own colour. Each left token's lines in one head add up to 1, so a token that "
    "sends all its attention to one place draws one dark line. The table under the chart holds the "
    "mean of the chosen heads."
)
HIDDEN_LINES = (
    "Lines to and from [CLS] and [SEP] are hidden, not renormalised: the remaining lines keep the "
    "model's own weights, so a row's visible lines may add up to less than 1."
)
NO_HEADS = "Pick at least one head to draw its lines."
PAIR_ONLY = "With a sentence B, lines can be filtered: A→A, B→B, A→B, B→A."


def head_view_title(layer: int) -> str:
    return f"Head view, {nb.layer_name(layer)}"


def heads_mean_name(layer: int, heads: tuple[int, ...], n_heads: int) -> str:
    """The head view's table: the mean of the chosen heads (0-based), named from 1."""
    names = ", ".join(str(nb.head_number(h)) for h in heads) if len(heads) < n_heads else "all heads"
    return f"{title(nb.layer_name(layer))}, mean of {names}"


def heads_button(n_chosen: int, n_heads: int, first_head: int | None) -> tuple[str, list[int]]:
    """The one-click switch between one head and every head: its label, and the head numbers
    (from 1) it chooses. Back to ``first_head`` (0-based; head 1 without one, or out of range)."""
    if n_chosen < n_heads:
        return f"All {n_heads} heads", [nb.head_number(h) for h in range(n_heads)]
    one = first_head if first_head is not None and first_head < n_heads else 0
    return f"Only {nb.head_name(one)}", [nb.head_number(one)]


# --------------------------------------------------------------------------- the model view

GRID_TITLE = "Model view: every head, layers (rows) × heads (columns)"
ON_CLS = "Share of each head's attention on [CLS]"


def layer_names(n_layers: int) -> list[str]:
    return [nb.layer_name(layer) for layer in range(n_layers)]


def head_names(n_heads: int) -> list[str]:
    """The grid's column names, "h1" to "h12" (short: twelve of them share a row)."""
    return [f"h{nb.head_number(h)}" for h in range(n_heads)]


def weights_title(layer: int, head: int) -> str:
    return f"{title(nb.head_label(layer, head))}: attention weights"


def sinks_text(lesson: views.ModelLesson) -> str:
    """What the model's heads do with [CLS] and [SEP] on this input, counted from its attentions."""
    return (
        f"On this input, {lesson.sinks_cls} of the {lesson.n_heads_total} heads put more than "
        f"{share_name(views.SINK_SHARE)} of their attention (averaged over the query tokens) on [CLS], and "
        f"{lesson.sinks_sep} on the final [SEP]. Such a “sink” is usually read as the place a head puts its weight "
        "when nothing in the sentence is what it looks for (Clark et al., 2019, on BERT); a reading, not "
        "something these numbers prove."
    )


def roles_text(roles: views.HeadRoles) -> str:
    """How the heads differ on this input, counted from their attentions. A broad head is one whose
    rows' entropy, averaged over its rows, is above BROAD_SPREAD of log₂ T (views.spread)."""
    layer, head, best = roles.strongest_previous
    heads = f"{roles.n_previous} head puts" if roles.n_previous == 1 else f"{roles.n_previous} heads put"
    whose = "its" if roles.n_previous == 1 else "their"
    return (
        f"Heads differ. Here {heads} more than {share_name(views.ROLE_SHARE)} of {whose} attention on the previous "
        f"token (the most: {nb.head_label(layer, head)}, {best:.2f}), {roles.n_next} on the next token, and "
        f"{roles.n_broad} spread it widely: averaged over a head's rows, the entropy of a row is above "
        f"{share_name(views.BROAD_SPREAD)} of the most it can be, log₂ T."
    )


def model_view_text(lesson: views.ModelLesson, pooled_to: int | None) -> str:
    """The paragraph beside the grid: what it shows, how the heads differ, the sinks.
    ``pooled_to``: the thumbnails' size when a long input is block-averaged, else None."""
    pooled = f" (larger inputs are averaged into {pooled_to} × {pooled_to} blocks)" if pooled_to else ""
    return (
        "Every small square is one head's full attention matrix: rows are queries, columns are keys, "
        f"bright cells are large weights{pooled}. "
        + roles_text(lesson.roles)
        + " "
        + sinks_text(lesson)
        + " The table under the chart gives each head's share on [CLS]."
    )


# --------------------------------------------------------------------------- the neuron view


def neuron_intro(query: int, d_k: int) -> str:
    return (
        f"How one query becomes one row of attention. The query vector **q** of token {query} "
        f"(d_k = {d_k} numbers) is compared with the key vector **k** of every token: "
        "multiply them number by number (q∘k), add up each row (q·k), divide by √d_k and take the softmax."
    )


def query_row(values: np.ndarray, query: int, tokens: list[str], name: str, cols: list[str] | None = None) -> Table:
    """One query's numbers over every key (the table under a bar chart), or over the dimensions
    ``cols`` of q: one row, which keeps the query's position (``first_row``) for its description."""
    kind, col_title = ("bars", "key") if cols is None else ("signed", "dimension")
    return Table(
        values[None, :],
        [tokens[query]],
        tokens if cols is None else cols,
        name=name,
        kind=kind,
        row_title="query",
        col_title=col_title,
        first_row=query,
    )


NEURON_CHARTS = ("q", "k", "qk", "scores", "weights")


def neuron_tables(nv: views.NeuronView, tokens: list[str], dims: list[str]) -> dict[str, Table]:
    """The neuron view's numbers, one table per chart (NEURON_CHARTS), ``dims`` naming q's dimensions."""
    keys = {"row_title": "key", "col_title": "dimension"}
    return {
        "q": query_row(nv.q, nv.query, tokens, "q, the query vector", cols=dims),
        "k": Table(nv.k, tokens, dims, name="k, every key vector", **keys),
        "qk": Table(nv.qk, tokens, dims, name="q∘k, elementwise products", **keys),
        "scores": query_row(nv.scores, nv.query, tokens, "q·k for every key"),
        "weights": query_row(nv.weights, nv.query, tokens, "The attention row"),
    }


def neuron_latex(nv: views.NeuronView) -> str:
    """The winning key's score, scaled score and weight, as the formula under the bars."""
    query, j = nv.query, nv.top
    return (
        rf"q_{{{query}}}\cdot k_{{{j}}} = {nv.scores[j]:.3f},\quad "
        rf"\frac{{{nv.scores[j]:.3f}}}{{\sqrt{{{nv.d_k}}}}} = {nv.scaled[j]:.3f},\quad "
        rf"\mathrm{{softmax}}_{{{j}}} = {nv.weights[j]:.3f}"
    )


def neuron_caption(nv: views.NeuronView, tokens: list[str], highlighted: bool) -> str:
    """Which key the query attends to most (``highlighted``: the bars mark it)."""
    j = nv.top
    return (
        f"Token {nv.query} is “{md_escape(tokens[nv.query])}”; it attends most to token {j}, "
        f"“{md_escape(tokens[j])}”" + (" (the highlighted bar, its label in bold)." if highlighted else ".")
    )
