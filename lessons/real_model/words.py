"""Real model: the page's words. Plain Python, no Streamlit: the page's cached calls as plain
functions (the page wraps them), every sentence it computes from the model's attentions, the
two predict-first questions about "it" and the longer prose. tests/unit/test_real_model_words.py
checks each sentence against the numbers it states, on random attentions and on the model.

Layers and heads are counted from 1 (attn_core.numbering), as on every page; the arrays and
views.ModelLesson stay 0-based, so every function here takes 0-based indices and names them
with the shown numbers. torch is imported only where the model runs (``attend``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from attn_core import numbering as nb
from attn_core import tables, views
from attn_core import transformer as tr
from attn_core.tables import Table
from ui.it_words import it_numbers
from ui.markup import md_escape
from ui.question import Question
from ui.reader import Reader

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, ModelAttention, RealLesson

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


# --------------------------------------------------------------------------- "it", and predicting first

PREDICT = "**Predict first: where does “it” look?** Each sentence on its own."
PREDICT_HELP = "Guess where “it” looks in the two animal sentences before the model shows it."


def it_caption(rows: dict[str, dict], layer: int, head: int, reader: Reader) -> str:
    """The suggestion for the animal pair (layer and head 0-based), stated from the model's own numbers."""
    where = f" (the examples{reader.in_sidebar})" if reader.presenting else ""
    return (
        f"Try the animal sentences{where} one at a time, focus on “it” and look at "
        f"{nb.head_label(layer, head)}: " + it_numbers(rows)
    )


def it_hidden(layer: int, head: int) -> str:
    return (
        f"Try {nb.head_label(layer, head)} for “it”; its numbers stay hidden until you have revealed your predictions."
    )


def waits(layer: int, head: int) -> str:
    """The view's place while a prediction about the head it draws is still to be revealed."""
    return (
        "This view waits until you have revealed your predictions: it would show the weights of "
        f"{nb.head_label(layer, head)}, the head the questions ask about."
    )


def it_questions(rows: dict[str, dict], sentences: dict[str, str], layer: int, head: int) -> list[Question]:
    """Predict, then reveal: where does "it" look in each animal sentence (``sentences``, by the
    labels of ``rows``), in this layer and head (0-based)? Made from the model's own attention rows."""
    return [
        Question(
            key=f"rm_quiz_{label}",
            prompt=f"{title(nb.head_label(layer, head))}. In “{text}”, which token does “it” give the most weight?",
            options=tuple(f"{n}: {t}" for n, t in enumerate(rows[label]["tokens"])),
            answer=int(np.argmax(rows[label]["row"])),
            value=float(np.max(rows[label]["row"])),
            value_label="its weight",
        )
        for label, text in sentences.items()
    ]


# --------------------------------------------------------------------------- what it showed

CHANGED = 0.05  # the last word "changes where the head looks" when "animal"'s weight moves this much


def footer_lines(
    n_layers: int, n_heads: int, T: int, lesson: views.ModelLesson, it: tuple[int, int, dict[str, dict]] | None
) -> list[str]:
    """The footer's lines, from the model's own numbers; ``it``: the head the page opens on (0-based
    layer and head) with its "it" rows, or None while the predictions about it are hidden."""
    lines = [
        f"{n_layers} layers of {n_heads} heads read your {T} tokens in {lesson.n_heads_total} patterns of their "
        f"own; {lesson.sinks_cls} of the heads put more than {share_name(views.SINK_SHARE)} of their attention on "
        "[CLS]."
    ]
    if it is not None:
        layer, head, rows = it
        tired, congested = rows["tired"]["animal"], rows["congested"]["animal"]
        lines.append(
            f"In {nb.head_label(layer, head)}, the head this page opens on, “it” gives “animal” {tired:.2f} of its "
            f"weight in the “tired” sentence and {congested:.2f} in the “congested” one: "
            + (
                "changing the last word changes where a trained head looks."
                if abs(tired - congested) >= CHANGED
                else "the last word hardly changes where this head looks."
            )
        )
    return lines
