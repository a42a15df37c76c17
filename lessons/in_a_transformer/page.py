"""Attention in a transformer: what attention adds to a dense layer, how it is split into
heads, the padding mask, one whole encoder block, the encoder's and decoder's masks, why it
replaced recurrence, and one word's meanings in a real model.

Widgets first, then one attn_core call (NumPy) for the first six sections; the last section
runs the real model, loaded lazily, and the rest of the page works without it.
"""

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from attn_core import transformer as tr
from attn_core.figures import bar_chart, heatmap, line_chart
from attn_core.figures.context import block_diagram
from attn_core.figures.lab import log_x_lines
from attn_core.tables import Table
from ui import outline, present, sentence
from ui.charts import show_attention, show_figure, show_mask
from ui.common import MAX_CHARS, checked_tokens, md_escape, num
from ui.footer import footer
from ui.present import Deck
from ui.state import PageState, Param

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, WordSenses

TITLES = (
    "A dense layer's weights are fixed; attention's are computed",
    "d_k = d_model / H",
    "The padding mask",
    "Where attention sits in a block",
    "Encoder and decoder",
    "Why attention replaced recurrence",
    "One word, many meanings (real model)",
    "Where the word looks (real model)",
)
BEARS = tuple(sentence for sentence, _ in tr.WORD_SENSES)  # "bears" in three meanings, always token 2
MEANINGS = dict(tr.WORD_SENSES)  # sentence -> what "bears" means in it (known for these sentences only)
MAX_SENTENCES = 6

state = PageState(
    "tf",
    params=(
        Param("step", 1, "int", lo=1, hi=len(TITLES)),
        Param("a", "The cat sat on the mat.", "text", max_chars=MAX_CHARS, shared=True),
        Param("b", "Le chat était assis sur le tapis.", "text", max_chars=MAX_CHARS),
        Param("d_model", 64, "choice", choices=tr.D_MODELS),
        Param("heads", 4, "choice", choices=tr.HEADS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("sentences", "\n".join(BEARS), "text", max_chars=MAX_CHARS),
        Param("word", "bears", "text", max_chars=40),
        Param("layer", 6, "int", lo=0, hi=24),
    ),
)


@st.cache_data(show_spinner=False, max_entries=256)
def _lesson(a: tuple[str, ...], b: tuple[str, ...], d_model: int, H: int, seed: int) -> tr.TransformerLesson:
    """The page's one NumPy attn_core call."""
    return tr.transformer_lesson(a, b, d_model=d_model, H=H, seed=seed)


@st.cache_data(max_entries=32, show_spinner="Running the model on each sentence…")
def _senses(_loaded: "LoadedModel", name: str, source: str, sentences: tuple[str, ...], word: str) -> "WordSenses":
    """The real-model call (torch is imported only here, when the section is shown)."""
    from attn_core import models

    return models.word_senses(_loaded, list(sentences), word)


def _n(value: float, digits: int = 3) -> str:  # this page's numbers take three decimals
    return num(value, digits)


def _e(value: float) -> str:
    """A difference that should be (about) 0: "0" when exactly 0, else scientific."""
    return "0" if value == 0 else f"{value:.1e}".replace("-", "−")


def _big(n: int) -> str:
    return f"{int(n):,}"


def _q(text: str) -> str:
    return f"“{md_escape(text)}”"


def _layer0_text(senses: "WordSenses") -> str:
    """What layer 0 shows for these sentences, from the tokens followed and their positions."""
    low, high = senses.spread(0)
    tokens, positions = sorted(set(senses.pieces)), sorted(set(senses.positions))
    if len(tokens) == 1 and len(positions) == 1:
        text = (
            f"{_q(senses.word)} is the same token ({_q(tokens[0])}) at the same position ({positions[0]}) in every "
            f"sentence, so at layer 0 its vectors are equal: every pair has cosine {_n(low)}."
        )
    else:
        why = []
        if len(positions) > 1:
            why.append(f"it stands at different positions ({', '.join(str(p) for p in positions)})")
        if len(tokens) > 1:
            why.append(f"it is not the same token everywhere ({', '.join(_q(t) for t in tokens)})")
        text = (
            f"Here the layer-0 vectors already differ, cosines from {_n(low)} to {_n(high)}, before any attention: "
            f"{' and '.join(why)}. Compare like with like: the same word at the same position."
        )
    if senses.layer0_error is not None:
        text += (
            " Layer 0 rebuilt from the model's own tables (token + position + segment, then LayerNorm with its "
            f"learned scale and shift) matches the model's to max |Δ| = {_e(senses.layer0_error)}."
        )
    return text


def _meanings_text(word: str, meanings: tuple[str | None, ...], groups: tr.SenseGroups, layer: int) -> str:
    """Which sentences share a meaning, and whether the vectors at ``layer`` keep the meanings apart."""
    where: dict[str, list[str]] = {}
    for k, meaning in enumerate(meanings):
        if meaning is not None:
            where.setdefault(meaning, []).append(str(k + 1))
    listed = ", ".join(
        f"{meaning} in {('sentences ' if len(ks) > 1 else 'sentence ') if n == 0 else ''}{' and '.join(ks)}"
        for n, (meaning, ks) in enumerate(where.items())
    )
    gap = groups.same - groups.different
    if abs(gap) < 5e-4:
        verdict = "no difference yet."
    elif gap > 0:
        verdict = "the vectors of one meaning stay closer together than those of different meanings."
    else:
        verdict = "by this measure the model does not keep the meanings apart."
    return (
        f"{_q(word)} is {listed}. At layer {layer}, pairs with the same meaning have a mean cosine of "
        f"{_n(groups.same)} and pairs with different meanings {_n(groups.different)}: {verdict}"
    )


# --------------------------------------------------------------------------- widgets

fresh = state.key("a") not in st.session_state  # the page's first run in this visit
state.start()
deck = Deck(TITLES, step_key=state.key("step"), numbered=True)
outline.steps(deck)

st.title("Attention in a transformer")
present.intro(
    "Self-attention is one layer of a bigger machine. This page puts it in its place: what it does that a "
    "plain dense layer cannot, how it is split into heads, how a batch of sentences of different lengths is "
    "handled, what surrounds it in a transformer block, how the encoder and the decoder use it, and why it "
    "replaced recurrent networks. The last section follows one word through a real model."
)
left, right = present.input_columns(2)  # in presenter mode the sidebar
left.text_input("Sentence A (the encoder's source)", key=state.key("a"), max_chars=MAX_CHARS)
right.text_input("Sentence B (the decoder's target)", key=state.key("b"), max_chars=MAX_CHARS)
sentence.note(
    state.key("a"), "Sentence A is your sentence from another page; sentence B is still the example's target."
)
c1, c2, c3 = present.input_columns(3)
c1.select_slider("d_model (width of every token vector)", options=tr.D_MODELS, key=state.key("d_model"))
c2.select_slider("H (attention heads)", options=tr.HEADS, key=state.key("heads"))
c3.number_input("Seed for the random weights", min_value=0, max_value=10_000, step=1, key=state.key("seed"))
tokens_a = checked_tokens(str(state.value("a")), what="sentence A")
tokens_b = checked_tokens(str(state.value("b")), what="sentence B")
deck.nav()

lesson = None
if tokens_a and tokens_b:
    lesson = _lesson(
        tuple(tokens_a),
        tuple(tokens_b),
        int(state.value("d_model")),
        int(state.value("heads")),
        int(state.value("seed")),
    )
elif deck.current < 6:
    st.caption("The sections that use sentences A and B appear once both boxes hold some text.")
ready = lesson is not None  # sections 1 to 6 use sentences A and B
if ready:
    senses_inputs = (state.value("sentences"), state.value("word"), state.value("layer"))  # section 7's only inputs
    outline.changes(
        deck,
        (  # what each section shows (the block's weights, up to 768 × 3072, are left out: its output follows them)
            outline.fingerprint(lesson.dense.dense, [s.weights for s in lesson.dense.attention]),
            outline.fingerprint(lesson.split, lesson.minilm),
            outline.fingerprint(
                lesson.padding.tokens, [s.weights for s in (*lesson.padding.masked, *lesson.padding.unmasked)]
            ),
            outline.fingerprint(lesson.block.stages(), lesson.block.output),
            outline.fingerprint(lesson.masks),
            outline.fingerprint(lesson.cost),
            outline.fingerprint(*senses_inputs),
            outline.fingerprint(*senses_inputs),  # where the word looks: the same sentences and word
        ),
        {
            "Sentence A": state.value("a"),
            "Sentence B": state.value("b"),
            "d_model": state.value("d_model"),
            "H": state.value("heads"),
            "Seed": state.value("seed"),
        },
        fresh=fresh,
    )


# --------------------------------------------------------------------------- 1. dense vs attention
if deck.section(0, ready, beside=False):
    dv = lesson.dense
    (ta, tb), c = dv.tokens, dv.common
    st.markdown(
        "Both a dense layer and attention can make each token's new vector a weighted sum of the tokens' "
        r"values: $\text{output}_i = \sum_j W_{ij} v_j$. The difference is where W comes from. A dense layer that "
        "mixes positions learns one weight per pair of positions; once trained, it applies the same weights to "
        "every sentence, whatever the words. Attention computes its weights from the sentence itself, "
        r"$W_{ij} = \operatorname{softmax}_j(q_i \cdot k_j / \sqrt{d_k})$, so a small weight means these two "
        "words do not match, not that the layer always ignores that position."
    )
    st.markdown(
        f"{'Above' if present.on() else 'Below'}, both sentences go through one dense mixing layer "
        f"and one attention head (random weights, "
        f"d_model = {dv.attention[0].x.shape[1]}, d_k = {dv.attention[0].d_k}). Over the {c} positions both "
        "sentences have:"
    )
    present.formula(
        rf"\max_{{i,j<{c}}} \left|W^{{\text{{dense}}}}_A - W^{{\text{{dense}}}}_B\right| = {_e(dv.dense_gap)},"
        rf"\qquad \max_{{i,j<{c}}} \left|W^{{\text{{attention}}}}_A - W^{{\text{{attention}}}}_B\right| = "
        rf"{_n(dv.attention_gap)}"
    )
    row = present.chart_columns(4) if present.on() else None  # on a projector the four in one row
    for kind, mats, value_kind, zmax in (
        ("Dense layer", dv.dense, "signed", dv.dense_zmax),
        ("Attention", tuple(s.weights for s in dv.attention), "weights", None),
    ):
        cols = (row[:2] if kind == "Dense layer" else row[2:]) if row else st.columns(2)
        for column, name, tokens, w in zip(cols, ("A", "B"), (ta, tb), mats, strict=True):
            with column:
                title = f"{kind} weights, sentence {name}"
                show_figure(
                    heatmap(
                        w,
                        rows=list(tokens),
                        cols=list(tokens),
                        title=title,
                        kind=value_kind,
                        row_title="output",
                        col_title="input",
                        value_name="weight",
                        zmax=zmax,
                    ),
                    key=f"tf_dense_{kind[:5].lower()}_{name}",
                    table=Table(
                        w, rows=tokens, cols=tokens, name=title, kind=value_kind, row_title="output", col_title="input"
                    ),
                )
    st.caption(
        f"The dense weights are one fixed matrix for up to {tr.MAX_POSITIONS} positions; a sentence uses its "
        "first T rows and "
        "columns. Unlike attention's, its rows need not add up to 1 (that is not what makes it different)."
    )

# --------------------------------------------------------------------------- 2. d_k = d_model / H
if deck.section(1, ready):
    sp, mini = lesson.split, lesson.minilm
    st.markdown(
        "Multi-head attention does not make the model wider. The usual rule splits d_model among the H heads: "
        "each head gets queries, keys and values of width d_k = d_model / H, the H outputs are laid side by side "
        "(again d_model wide) and W_O mixes them. H heads then have as many weights, and do as many "
        "multiply-adds, as one head of the full width, but they make H attention matrices of T × T instead of "
        "one: H times as many weights to softmax and to keep (the Masks and cost page counts one such matrix)."
    )
    if mini is not None:
        st.markdown(
            f"In {mini.name}, whose files ship with this app, config.json says hidden_size = {mini.d_model} and "
            f"num_attention_heads = {mini.n_heads}, so each head works in d_k = {mini.d_model} / {mini.n_heads} = "
            f"**{mini.d_k}** dimensions."
        )
        st.latex(rf"d_k = \frac{{d_{{\text{{model}}}}}}{{H}} = \frac{{{mini.d_model}}}{{{mini.n_heads}}} = {mini.d_k}")
    else:
        st.info("The embedded model's config.json was not found, so its sizes cannot be shown here.")
    if sp.divides:
        st.markdown(f"With your choice, d_model = {sp.d_model} and H = {sp.H}:")
    else:
        st.warning(
            f"{sp.d_model} / {sp.H_asked} is not a whole number, so {sp.H_asked} heads cannot share d_model "
            f"evenly. The rest of the page uses H = {sp.H}, the largest number of heads up to {sp.H_asked} that "
            f"divides {sp.d_model}."
        )
    st.latex(
        rf"d_k = \frac{{{sp.d_model}}}{{{sp.H}}} = {sp.d_k},\qquad W_q, W_k, W_v \text{{ over all heads: }} "
        rf"3 \cdot {sp.H} \cdot {sp.d_model} \cdot {sp.d_k} = {_big(sp.qkv_params).replace(',', '{,}')} "
        rf"= 3 \cdot {sp.d_model}^2"
    )
    T_a = lesson.block.x.shape[0]
    same = "exactly as many as" if sp.score_mult_adds(T_a) == sp.score_mult_adds(T_a, wide=True) else "unlike"
    st.markdown(
        f"On sentence A (T = {T_a}) the {sp.H} heads' scores take {sp.H} · {T_a}² · {sp.d_k} = "
        f"{_big(sp.score_mult_adds(T_a))} multiply-adds, {same} one head of width {sp.d_model} "
        f"({T_a}² · {sp.d_model} = {_big(sp.score_mult_adds(T_a, wide=True))}), but they fill "
        f"{_big(sp.score_cells(T_a))} attention weights instead of {_big(sp.score_cells(T_a, wide=True))}."
    )

# --------------------------------------------------------------------------- 3. padding
if deck.section(2, ready, beside=False):
    p = lesson.padding
    T_max = p.T_max
    st.markdown(
        "A model processes sentences in batches, and a batch is one array: every sentence must have the same "
        f"length. The shorter ones are filled up with a padding token {tr.PAD} that means nothing. Attention "
        "must not look at it, or the filler would leak into the real tokens' outputs. The padding mask hides "
        "every padding key (−∞ before the softmax, so weight exactly 0); queries at padding positions still get "
        "an output, which is thrown away."
    )
    st.table(pd.DataFrame([list(t) for t in p.tokens], index=["A", "B"], columns=[str(i) for i in range(T_max)]))
    st.caption(
        f"The batch: {p.x.shape[0]} sentences × {T_max} positions × d_model = {p.x.shape[2]}, as one array "
        f"of shape {p.x.shape}; the mask has shape {p.masks.shape}."
    )
    if p.lengths[0] == p.lengths[1]:
        st.info(
            f"Both sentences have {p.lengths[0]} tokens, so neither needs padding. Make one of them shorter to see "
            "the mask at work."
        )
    b = p.padded
    name = "AB"[b]
    tokens = list(p.tokens[b])
    n_real = p.lengths[b]
    n_pad = T_max - n_real
    if n_pad:
        rounding = " (rounding only)" if p.delta_masked[b] else ""
        st.markdown(
            f"With the mask, the largest weight any query gives a padding key is **{p.pad_weight:g}**, and the "
            f"real tokens of sentence {name} get the same outputs as sentence {name} run alone: max |Δ| = "
            f"**{_e(p.delta_masked[b])}**{rounding}. Without the mask, max |Δ| = **{_n(p.delta_unmasked[b])}**: "
            f"the {n_pad} padding token{'s' if n_pad != 1 else ''} changed the output of "
            f"{p.changed_unmasked[b]} of the {n_real} real tokens."
        )
    row = present.chart_columns(3) if present.on() else None  # on a projector the three in one row
    cols = [*row[:1], st.container()] if row else st.columns(2)
    with cols[0]:
        show_mask("tf_pad_mask", p.masks[b], tokens, title=f"Padding mask, sentence {name}")
    with cols[1]:
        after = "Beside it" if present.on() else "Below"
        st.markdown(
            f"Row i of the mask says which keys query i may look at: 1 for the {n_real} real tokens, 0 for "
            f"{tr.PAD}. Every row is the same, because what is hidden depends only on the key. {after}, the same "
            "head without and with it: without, every real query gives some weight to the padding column."
        )
    cols = row[1:] if row else st.columns(2)
    for column, steps, what in ((cols[0], p.unmasked[b], "without"), (cols[1], p.masked[b], "with")):
        with column:
            show_attention(f"tf_pad_{what}", steps.weights, tokens, title=f"Weights {what} the mask, sentence {name}")

# --------------------------------------------------------------------------- 4. the block
if deck.section(3, ready):
    blk, sp = lesson.block, lesson.split
    T, d_model = blk.x.shape
    d_ff = blk.ffn_hidden.shape[1]
    mean_max, std_mean = blk.output_stats
    st.markdown(
        "An encoder block wraps attention in four more steps. The H heads run side by side and their outputs are "
        "concatenated; W_O mixes them back to d_model. The block's input is added back (the **residual**, so "
        "the block only has to learn a change, and gradients have a short path through many blocks). "
        "**LayerNorm** rescales each token's vector to mean 0 and variance 1, then multiplies each dimension by a "
        "learned scale γ and adds a learned shift β. The **feed-forward network** then "
        f"works on each token alone, widening it to d_ff = 4·d_model = {d_ff} and back, followed by a second "
        "residual and LayerNorm."
    )
    st.markdown(
        f"{'On the left' if present.on() else 'Below'}, one such block really runs on sentence A "
        f"(T = {T}, d_model = {d_model}, H = {sp.H}, "
        f"random weights); every shape is read from the arrays it made. After the last LayerNorm each token's "
        f"vector has mean within {_e(mean_max)} of 0 and a standard deviation of {_n(std_mean, 4)} on average"
        + (
            ", because this block is untrained: every γ is still 1 and every β 0, their values before training."
            if blk.weights.ln_untrained
            else "."
        )
    )
    stages = blk.stages()
    title = f"One encoder block: T = {T}, d_model = {d_model}, H = {sp.H}, d_k = {sp.d_k}"
    show_figure(
        block_diagram(stages, residuals=tr.BlockSteps.RESIDUALS, title=title),
        key="tf_block",
        table=Table(
            np.array([[s[3][0], s[3][1]] for s in stages], dtype=float),
            rows=tuple(f"{s[1]}: {s[2]}" for s in stages),
            cols=("rows", "columns"),
            name="Shapes in one encoder block",
            row_title="step",
            col_title="size",
        ),
    )
    st.caption(
        f"Weights: {sp.H} heads with W_q, W_k, W_v of {d_model} × {sp.d_k} each; W_O {blk.attention.w_o.shape[0]} "
        f"× {blk.attention.w_o.shape[1]}; W_1 {d_model} × {d_ff} and W_2 {d_ff} × {d_model}. This is the "
        "original (post-LayerNorm) order, as in BERT; many newer models put the LayerNorm before attention "
        "and the FFN instead."
    )

# --------------------------------------------------------------------------- 5. encoder and decoder
if deck.section(4, ready, beside=False):
    m = lesson.masks
    src, tgt = list(m.source), list(m.target)
    st.markdown(
        "A translation model has two stacks. The **encoder** reads the whole source sentence at once: full "
        "self-attention, every token sees every token. The **decoder** produces the target, and its "
        "self-attention is **causal**: a token sees itself and the tokens before it. When the model generates, "
        "the later tokens do not exist yet; in training the whole target is fed in at once (teacher forcing), "
        "and the mask is what keeps each token from seeing the ones it has to predict. Each decoder block "
        "then has a **cross-attention** layer: its queries come from the decoder, its keys and values from the "
        "encoder's output, and it may look at every source token."
    )
    st.markdown(
        f"Here sentence A ({len(src)} tokens) is the source and sentence B ({len(tgt)} tokens) the target. "
        f"Allowed pairs: encoder {int(m.encoder_self.sum())} of {m.encoder_self.size}, decoder "
        f"{int(m.decoder_self.sum())} of {m.decoder_self.size}, cross {int(m.cross.sum())} of {m.cross.size}."
    )
    cols = [*present.chart_columns(3), st.container()] if present.on() else [*st.columns(2), *st.columns(2)]
    panels = (
        ("Encoder self-attention", m.encoder_self, src, src, "source query", "source key", "tf_mask_enc"),
        ("Decoder self-attention (causal)", m.decoder_self, tgt, tgt, "target query", "target key", "tf_mask_dec"),
        ("Cross-attention", m.cross, tgt, src, "target query", "source key", "tf_mask_cross"),
    )
    for column, (title, mask, rows, cols_, rt, ct, key) in zip(cols, panels, strict=False):
        with column:
            show_mask(key, mask, rows, cols_, title=title, name=f"{title} mask", row_title=rt, col_title=ct)
    with cols[3]:
        st.markdown(
            f"Read the cross-attention mask as the decoder's {len(tgt)} target tokens (rows) asking the encoder's "
            f"{len(src)} source tokens (columns). It is full: the whole source sentence is known before the "
            "decoder starts, so nothing there is in the future. Only the decoder's own self-attention needs the "
            "causal mask."
        )

# --------------------------------------------------------------------------- 6. recurrence
if deck.section(5, ready):
    co = lesson.cost
    st.markdown(
        "A recurrent network reads a sentence one token at a time: step t needs the result of step t − 1, so "
        "the steps cannot run side by side, and what the first token says reaches the last only after passing "
        "through every step between them. Self-attention computes every position at once, and any two tokens "
        "meet directly, in one step. The price is a score for every pair of tokens."
    )
    rows = pd.DataFrame(
        {
            "self-attention": [
                str(co.attention_sequential),
                str(co.attention_path),
                f"4·{co.T}·{co.d}² + 2·{co.T}²·{co.d} = {_big(co.attention_ops)}",
            ],
            "grows like": ["O(1)", "O(1)", "O(T·d² + T²·d)"],
            "recurrent layer": [
                str(co.recurrent_sequential),
                str(co.recurrent_path),
                f"2·{co.T}·{co.d}² = {_big(co.recurrent_ops)}",
            ],
            "grows like ": ["O(T)", "O(T)", "O(T·d²)"],
        },
        index=pd.Index(
            ["sequential steps", "steps between the first and last token", "multiply-adds per layer"],
            name=f"T = {co.T}, d = {co.d}",
        ),
    )
    st.table(rows)
    more = "more" if co.attention_ops > co.recurrent_ops else "fewer"
    alone = "more" if co.projection_ops > co.recurrent_ops else "less"
    st.markdown(
        f"Count every multiply-add and, for sentence A (T = {co.T}) and d_model = {co.d}, the attention layer "
        f"does **{more}** than a simple recurrent layer of the same width ({_big(co.attention_ops)} against "
        f"{_big(co.recurrent_ops)}). Its four projections W_q, W_k, W_v and W_O alone, 4·T·d² = "
        f"{_big(co.projection_ops)}, cost {alone} than the recurrent layer's 2·T·d² (the step "
        "h_t = tanh(x_t W_x + h_(t−1) W_h) is two d × d products), and the pairs add 2·T²·d = "
        f"{_big(co.score_ops)} on top."
    )
    st.markdown(
        "So attention did not win by doing less arithmetic. It won on the first two rows: its "
        f"{co.T} positions are computed at once instead of in {co.recurrent_sequential} steps one after another, "
        f"which is what lets a GPU train it fast, and any two tokens meet in {co.attention_path} step instead of "
        f"{co.recurrent_path}. The pairwise part grows like T² and overtakes the projections once T > 2·d (from T = "
        f"{_big(co.scores_overtake)} here): that is why very long inputs call for the sparse masks of the Masks "
        "and cost page."
    )
    series = {
        "self-attention 4·T·d² + 2·T²·d": co.attention_curve,
        "its pairs alone 2·T²·d": co.score_curve,
        "recurrent 2·T·d²": co.recurrent_curve,
    }
    show_figure(
        log_x_lines(
            co.T_values,
            series,
            title=f"Multiply-adds per layer against T (d = {co.d})",
            x_title="T (tokens)",
            y_title="multiply-adds",
            log_y=True,
        ),
        key="tf_cost",
        table=Table(
            np.stack(list(series.values()), axis=1).astype(float),
            rows=tuple(str(t) for t in co.T_values),
            cols=tuple(series),
            name="Multiply-adds per layer",
            kind="lines",
            row_title="T",
            col_title="layer",
        ),
    )

# --------------------------------------------------------------------------- 7. the real model
KEEP = {"persist_state": "page"}  # kept while presenter mode shows another section


def _layer_slider(where, L: int) -> None:
    where.slider(
        "Layer (0 = the embeddings, before any attention)", min_value=0, max_value=L, key=state.key("layer"), **KEEP
    )


def _word_senses(loaded: "LoadedModel") -> "WordSenses | None":
    """The word's vectors in every sentence, from the section's inputs (a message where they do not do)."""
    sentences = [s.strip() for s in str(state.value("sentences")).splitlines() if s.strip()][:MAX_SENTENCES]
    word = str(state.value("word")).strip()
    if len(sentences) < 2 or not word:
        st.info("Type at least two sentences, one per line, and a word that appears in them.")
        return None
    try:
        return _senses(loaded, loaded.name, loaded.source, tuple(sentences), word)
    except ValueError as err:
        st.warning(md_escape(str(err)))
        return None


loaded = why = None
if deck.shows(6) or deck.shows(7):
    from ui.model_cache import try_load  # torch loads only when these sections are shown

    loaded, why = try_load()
    if loaded is not None and int(state.value("layer")) > loaded.n_layers:
        st.session_state[state.key("layer")] = loaded.n_layers
if deck.section(6):
    st.markdown(
        "In BERT a word's first vector, at layer 0, is made before any attention: the vector of its token, plus "
        "a vector for its position and one for its segment (sentence A or B), each looked up in a learned table, "
        "then LayerNorm. So at layer 0 it depends on the token and on where it stands, not on the other words. "
        "The attention layers then mix in the words around it. Here is what that does in all-MiniLM-L6-v2: the "
        "word's vector in each sentence, compared layer by layer with cosine similarity (1 = same direction). "
        "The example uses “bears” as an animal, a verb and a team, always as the second word, so every "
        "sentence starts from the same layer-0 vector."
    )
    if loaded is None:
        st.warning(f"The real model is not available, so this section cannot run: {md_escape(why or '')}")
    else:
        left, right = present.control_columns([3, 2])
        left.text_area("Sentences, one per line", key=state.key("sentences"), height=140, max_chars=MAX_CHARS, **KEEP)
        right.text_input(
            "Word to follow",
            key=state.key("word"),
            max_chars=40,
            **KEEP,
            help="Found in any case, with or without a final s: bears, Bears, bear",
        )
        _layer_slider(right, loaded.n_layers)
        layer = int(state.value("layer"))
        senses = _word_senses(loaded)
        if senses is not None:
            word = str(state.value("word")).strip()
            typed = [s.strip() for s in str(state.value("sentences")).splitlines() if s.strip()][:MAX_SENTENCES]
            for n in senses.missing:
                st.caption(f"{_q(word)} is not in sentence {n + 1} ({_q(typed[n])}); it is left out.")
            found = []
            for k, sense in enumerate(senses.senses):
                split = (
                    f", split into {len(sense.pieces)} WordPieces ({', '.join(_q(p) for p in sense.pieces)}): "
                    f"the first is used"
                    if len(sense.pieces) > 1
                    else ""
                )
                found.append(
                    f"{k + 1}. {_q(sense.sentence)}: {_q(sense.word)} is token {sense.index} "
                    f"{_q(sense.tokens[sense.index])}{split}"
                )
            st.markdown("\n".join(found))
            labels = [f"{k + 1}: {s.sentence}" for k, s in enumerate(senses.senses)]
            short = [f"{k + 1}: {s.word}" for k, s in enumerate(senses.senses)]
            st.markdown(_layer0_text(senses))
            mean = senses.mean_similarity
            a, b, hi = senses.pair(layer)
            c, d, lo = senses.pair(layer, most=False)
            last = senses.n_layers
            la, lb, lhi = senses.pair(last)
            lc, ld, llo = senses.pair(last, most=False)
            at_last = (
                ""
                if layer == last
                else f" At the last layer the closest pair is {la + 1} and {lb + 1} ({_n(lhi)}) "
                f"and the farthest {lc + 1} and {ld + 1} ({_n(llo)})."
            )
            st.markdown(
                f"At layer {layer}, the most alike are sentences {a + 1} and {b + 1} (cosine {_n(hi)}), the least "
                f"alike {c + 1} and {d + 1} ({_n(lo)}). The mean over all pairs goes from {_n(mean[0])} at layer "
                f"0 to {_n(mean[-1])} at layer {last}.{at_last}"
            )
            meanings = tuple(MEANINGS.get(s.sentence) for s in senses.senses)
            groups = tr.sense_groups(senses.similarity[layer], meanings)
            if groups is not None:
                st.markdown(_meanings_text(senses.word, meanings, groups, layer))
            left, right = present.chart_columns(2)
            with left:
                sim = senses.similarity[layer]
                show_figure(
                    heatmap(
                        sim,
                        rows=short,
                        cols=short,
                        title=f"Cosine similarity at layer {layer}",
                        kind="signed",
                        zmax=1.0,
                        row_title="sentence",
                        col_title="sentence",
                        value_name="cosine",
                    ),
                    key="tf_sense_sim",
                    table=Table(
                        sim,
                        rows=labels,
                        cols=labels,
                        name=f"Cosine similarity at layer {layer}",
                        row_title="sentence",
                        col_title="sentence",
                    ),
                )
            with right:
                layers = np.arange(last + 1)
                show_figure(
                    line_chart(
                        layers,
                        {"mean over pairs of sentences": mean},
                        title="Mean cross-sentence similarity by layer",
                        x_title="layer",
                        y_title="cosine similarity",
                    ),
                    key="tf_sense_mean",
                    table=Table(
                        mean[:, None],
                        rows=tuple(str(n) for n in layers),
                        cols=("mean cosine",),
                        name="Mean cross-sentence cosine similarity",
                        kind="lines",
                        row_title="layer",
                        col_title="series",
                    ),
                )

# --------------------------------------------------------------------------- 8. where the word looks
IN_SIDEBAR = " (in the sidebar)" if present.on() else ""  # where presenter mode keeps the layer
layer = int(state.value("layer"))
if deck.shows(7) and loaded is None and present.on():
    st.warning(f"The real model is not available, so this section cannot run: {md_escape(why or '')}")
if deck.section(7, loaded is not None, beside=False, heading=f"Where the word looks at layer {layer}"):
    if present.on():  # on a projector this section is shown alone: its layer waits in the sidebar
        _layer_slider(st.sidebar, loaded.n_layers)
        layer = int(state.value("layer"))
    senses = _word_senses(loaded)
    if senses is not None and layer == 0:
        st.info(
            "Layer 0 is the embeddings (token, position and segment vectors, then LayerNorm), before any "
            f"attention. Pick a layer from 1 to {senses.n_layers}{IN_SIDEBAR} to see which tokens the word attends "
            "to."
        )
    elif senses is not None:
        shares = ", ".join(_n(sense.special_share(layer), 2) for sense in senses.senses)
        st.markdown(
            f"The word's row of attention weights in layer {layer}, averaged over the {loaded.n_heads} "
            f"heads. The part that goes to [CLS] and [SEP], sentence by sentence: {shares}. A large share "
            "on these two tokens is usually read as a head parking attention it has no use for (Clark et "
            "al., 2019): it shows where the heads look, not what the word takes from those tokens."
        )
        per_row = len(senses.senses) if present.on() else 2  # on a projector in one row
        cols = present.chart_columns(per_row)
        for k, sense in enumerate(senses.senses):
            row = sense.attention[layer - 1]
            tokens = list(sense.tokens)
            title = f"{k + 1}: {sense.word}, token {sense.index}, layer {layer}"
            with cols[k % per_row]:
                show_figure(
                    bar_chart(tokens, row, title=title, y_title="weight", y_range=(0, 1.05), fmt=".2f", height=280),
                    key=f"tf_sense_row_{k}",
                    table=Table(
                        row[None, :],
                        rows=(sense.tokens[sense.index],),
                        cols=tokens,
                        name=f"Attention of {sense.word} in sentence {k + 1}",
                        kind="bars",
                        row_title="query",
                        col_title="key",
                    ),
                )

state.sync()


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: tr.TransformerLesson) -> list[str]:
    """The footer's lines, from this run's lesson."""
    sp, blk, p = lesson.split, lesson.block, lesson.padding
    lines = [
        f"With d_model = {sp.d_model} and H = {sp.H}, each head works in d_k = {sp.d_k} dimensions, so the {sp.H} "
        f"heads together have {_big(sp.qkv_params)} weights in W_q, W_k and W_v, as many as one head of the full "
        "width.",
        f"One encoder block keeps the shape: sentence A goes in as {blk.x.shape[0]}×{blk.x.shape[1]} and comes out "
        f"as {blk.output.shape[0]}×{blk.output.shape[1]}.",
    ]
    b = p.padded
    if p.lengths[0] != p.lengths[1]:
        lines.append(
            f"With the padding mask the padding keys get weight {p.pad_weight:g}; without it, "
            f"{p.changed_unmasked[b]} of the {p.lengths[b]} real tokens of sentence {'AB'[b]} got other outputs."
        )
    return lines


footer(__file__, what_it_showed(lesson) if lesson is not None else [], deck)
