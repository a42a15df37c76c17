"""Sections 1 to 3: a dense layer against attention, d_k = d_model / H, and the padding mask."""

from __future__ import annotations

from attn_core import transformer as tr
from lessons.in_a_transformer.words.format import big, n3, tiny
from ui.reader import Reader

# --------------------------------------------------------------------------- 1. dense vs attention

DENSE_INTRO = (
    "Both a dense layer and attention can make each token's new vector a weighted sum of the tokens' "
    r"values: $\text{output}_i = \sum_j W_{ij} v_j$. The difference is where W comes from. A dense layer that "
    "mixes positions learns one weight per pair of positions; once trained, it applies the same weights to "
    "every sentence, whatever the words. Attention computes its weights from the sentence itself, "
    r"$W_{ij} = \operatorname{softmax}_j(q_i \cdot k_j / \sqrt{d_k})$, so a small weight means these two "
    "words do not match, not that the layer always ignores that position."
)
DENSE_CAPTION = (
    f"The dense weights are one fixed matrix for up to {tr.MAX_POSITIONS} positions; a sentence uses its first T "
    "rows and columns. Unlike attention's, its rows need not add up to 1 (that is not what makes it different)."
)


def dense_text(dv: tr.DenseVsAttention, reader: Reader) -> str:
    """What the four charts show; on a projector they stand above the text."""
    where = "Above" if reader.presenting else "Below"
    head = dv.attention[0]
    return (
        f"{where}, both sentences go through one dense mixing layer and one attention head (random weights, "
        f"d_model = {head.x.shape[1]}, d_k = {head.d_k}). Over the {dv.common} positions both sentences have:"
    )


def dense_latex(dv: tr.DenseVsAttention) -> str:
    c = dv.common
    return (
        rf"\max_{{i,j<{c}}} \left|W^{{\text{{dense}}}}_A - W^{{\text{{dense}}}}_B\right| = {tiny(dv.dense_gap)},"
        rf"\qquad \max_{{i,j<{c}}} \left|W^{{\text{{attention}}}}_A - W^{{\text{{attention}}}}_B\right| = "
        rf"{n3(dv.attention_gap)}"
    )


# --------------------------------------------------------------------------- 2. d_k = d_model / H

SPLIT_INTRO = (
    "Multi-head attention does not make the model wider. The usual rule splits d_model among the H heads: "
    "each head gets queries, keys and values of width d_k = d_model / H, the H outputs are laid side by side "
    "(again d_model wide) and W_O mixes them. H heads then have as many weights, and do as many "
    "multiply-adds, as one head of the full width, but they make H attention matrices of T × T instead of "
    "one: H times as many weights to softmax and to keep (the Masks and cost page counts one such matrix)."
)
NO_MINILM = "The embedded model's config.json was not found, so its sizes cannot be shown here."
CARRIED_NOTE = "Sentence A is your sentence from another page; sentence B is still the example's target."


def minilm_text(mini: tr.ModelShape) -> str:
    return (
        f"In {mini.name}, whose files ship with this app, config.json says hidden_size = {mini.d_model} and "
        f"num_attention_heads = {mini.n_heads}, so each head works in d_k = {mini.d_model} / {mini.n_heads} = "
        f"**{mini.d_k}** dimensions."
    )


def minilm_latex(mini: tr.ModelShape) -> str:
    return rf"d_k = \frac{{d_{{\text{{model}}}}}}{{H}} = \frac{{{mini.d_model}}}{{{mini.n_heads}}} = {mini.d_k}"


def split_choice(sp: tr.HeadSplit) -> str:
    """The student's sizes, or (a warning) why H was lowered."""
    if sp.divides:
        return f"With your choice, d_model = {sp.d_model} and H = {sp.H}:"
    return (
        f"{sp.d_model} / {sp.H_asked} is not a whole number, so {sp.H_asked} heads cannot share d_model evenly. "
        f"The rest of the page uses H = {sp.H}, the largest number of heads up to {sp.H_asked} that divides "
        f"{sp.d_model}."
    )


def split_latex(sp: tr.HeadSplit) -> str:
    return (
        rf"d_k = \frac{{{sp.d_model}}}{{{sp.H}}} = {sp.d_k},\qquad W_q, W_k, W_v \text{{ over all heads: }} "
        rf"3 \cdot {sp.H} \cdot {sp.d_model} \cdot {sp.d_k} = {big(sp.qkv_params).replace(',', '{,}')} "
        rf"= 3 \cdot {sp.d_model}^2"
    )


def split_cost_text(sp: tr.HeadSplit, T: int) -> str:
    """The heads' score multiply-adds against one wide head's, and the weights they fill."""
    same = "exactly as many as" if sp.score_mult_adds(T) == sp.score_mult_adds(T, wide=True) else "unlike"
    whose = "heads'" if sp.H != 1 else "head's"
    return (
        f"On sentence A (T = {T}) the {sp.H} {whose} scores take {sp.H} · {T}² · {sp.d_k} = "
        f"{big(sp.score_mult_adds(T))} multiply-adds, {same} one head of width {sp.d_model} "
        f"({T}² · {sp.d_model} = {big(sp.score_mult_adds(T, wide=True))}), but they fill "
        f"{big(sp.score_cells(T))} attention weights instead of {big(sp.score_cells(T, wide=True))}."
    )


# --------------------------------------------------------------------------- 3. padding

PADDING_INTRO = (
    "A model processes sentences in batches, and a batch is one array: every sentence must have the same "
    f"length. The shorter ones are filled up with a padding token {tr.PAD} that means nothing. Attention "
    "must not look at it, or the filler would leak into the real tokens' outputs. The padding mask hides "
    "every padding key (−∞ before the softmax, so weight exactly 0); queries at padding positions still get "
    "an output, which is thrown away."
)


def batch_caption(p: tr.Padding) -> str:
    return (
        f"The batch: {p.x.shape[0]} sentences × {p.T_max} positions × d_model = {p.x.shape[2]}, as one array "
        f"of shape {p.x.shape}; the mask has shape {p.masks.shape}."
    )


def no_padding(p: tr.Padding) -> str | None:
    """Said when neither sentence needs padding."""
    if p.lengths[0] != p.lengths[1]:
        return None
    return (
        f"Both sentences have {p.lengths[0]} tokens, so neither needs padding. Make one of them shorter to see "
        "the mask at work."
    )


def padding_text(p: tr.Padding) -> str | None:
    """With and without the mask, for the padded sentence (None when nothing is padded)."""
    b = p.padded
    n_real = p.lengths[b]
    n_pad = p.T_max - n_real
    if not n_pad:
        return None
    name = "AB"[b]
    rounding = " (rounding only)" if p.delta_masked[b] else ""
    return (
        f"With the mask, the largest weight any query gives a padding key is **{p.pad_weight:g}**, and the "
        f"real tokens of sentence {name} get the same outputs as sentence {name} run alone: max |Δ| = "
        f"**{tiny(p.delta_masked[b])}**{rounding}. Without the mask, max |Δ| = **{n3(p.delta_unmasked[b])}**: "
        f"the {n_pad} padding token{'s' if n_pad != 1 else ''} changed the output of "
        f"{p.changed_unmasked[b]} of the {n_real} real tokens."
    )


def padding_mask_text(p: tr.Padding, reader: Reader) -> str:
    """How to read the mask; on a projector the two weight charts stand beside it."""
    after = "Beside it" if reader.presenting else "Below"
    return (
        f"Row i of the mask says which keys query i may look at: 1 for the {p.lengths[p.padded]} real tokens, 0 "
        f"for {tr.PAD}. Every row is the same, because what is hidden depends only on the key. {after}, the same "
        "head without and with it: without, every real query gives some weight to the padding column."
    )
