"""The words of "Attention in a transformer": its compute calls, and every sentence it computes
from their numbers, with its longer static prose.

Plain Python (no Streamlit): the page wraps the compute calls in Streamlit's cache and places
each sentence next to the figure it explains; tests/unit/test_in_a_transformer_words.py checks
every sentence against the numbers it states. The real model's results (``WordSenses``) are
only named here for type hints: torch is imported when the page's last sections run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from attn_core import numbering
from attn_core import transformer as tr
from attn_core.tables import number
from ui.markup import md_escape
from ui.reader import Reader

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, WordSenses

SECTIONS = {
    "dense": "A dense layer's weights are fixed; attention's are computed",
    "split": "d_k = d_model / H",
    "padding": "The padding mask",
    "block": "Where attention sits in a block",
    "enc_dec": "Encoder and decoder",
    "recurrence": "Why attention replaced recurrence",
    "senses": "One word, many meanings (real model)",
    "looks": "Where the word looks (real model)",
}
USES_AB = ("dense", "split", "padding", "block", "enc_dec", "recurrence")  # the sections of sentences A and B
BEARS = tuple(sentence for sentence, _ in tr.WORD_SENSES)  # "bears" in three meanings, always token 2
MEANINGS = dict(tr.WORD_SENSES)  # sentence -> what "bears" means in it (known for these sentences only)
MAX_SENTENCES = 6


# --------------------------------------------------------------------------- compute


def lesson(a: tuple[str, ...], b: tuple[str, ...], d_model: int, H: int, seed: int) -> tr.TransformerLesson:
    """The page's one NumPy attn_core call."""
    return tr.transformer_lesson(a, b, d_model=d_model, H=H, seed=seed)


def senses(_loaded: LoadedModel, name: str, source: str, sentences: tuple[str, ...], word: str) -> WordSenses:
    """The real-model call (torch is imported here, when the section is shown). ``_loaded`` is
    not hashed by the page's cache: the model's name and source stand for it."""
    from attn_core import models

    return models.word_senses(_loaded, list(sentences), word)


def typed_sentences(text: str) -> list[str]:
    """The section's sentences box: one sentence a line, blank lines left out, at most MAX_SENTENCES."""
    return [s.strip() for s in str(text).splitlines() if s.strip()][:MAX_SENTENCES]


# --------------------------------------------------------------------------- number formats


def n3(value: float, digits: int = 3) -> str:
    """This page's numbers take three decimals."""
    return number(value, digits)


def tiny(value: float) -> str:
    """A difference that should be (about) 0: "0" when exactly 0, else scientific."""
    return "0" if value == 0 else f"{value:.1e}".replace("-", "−")


def big(n: int) -> str:
    return f"{int(n):,}"


def quoted(text: str) -> str:
    return f"“{md_escape(text)}”"


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}"


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


# --------------------------------------------------------------------------- 4. the block


def block_intro(d_ff: int) -> str:
    return (
        "An encoder block wraps attention in four more steps. The H heads run side by side and their outputs are "
        "concatenated; W_O mixes them back to d_model. The block's input is added back (the **residual**, so "
        "the block only has to learn a change, and gradients have a short path through many blocks). "
        "**LayerNorm** rescales each token's vector to mean 0 and variance 1, then multiplies each dimension by a "
        "learned scale γ and adds a learned shift β. The **feed-forward network** then "
        f"works on each token alone, widening it to d_ff = 4·d_model = {d_ff} and back, followed by a second "
        "residual and LayerNorm."
    )


def block_text(blk: tr.BlockSteps, sp: tr.HeadSplit, reader: Reader) -> str:
    """The block that runs, and its output's mean and spread (from the arrays)."""
    T, d_model = blk.x.shape
    mean_max, std_mean = blk.output_stats
    why = (
        ", because this block is untrained: every γ is still 1 and every β 0, their values before training."
        if blk.weights.ln_untrained
        else "."
    )
    return (
        f"{'On the left' if reader.presenting else 'Below'}, one such block really runs on sentence A "
        f"(T = {T}, d_model = {d_model}, H = {sp.H}, random weights); every shape is read from the arrays it "
        f"made. After the last LayerNorm each token's vector has mean within {tiny(mean_max)} of 0 and a "
        f"standard deviation of {n3(std_mean, 4)} on average{why}"
    )


def block_title(blk: tr.BlockSteps, sp: tr.HeadSplit) -> str:
    T, d_model = blk.x.shape
    return f"One encoder block: T = {T}, d_model = {d_model}, H = {sp.H}, d_k = {sp.d_k}"


def block_caption(blk: tr.BlockSteps, sp: tr.HeadSplit) -> str:
    d_model, d_ff = blk.x.shape[1], blk.ffn_hidden.shape[1]
    w_o = blk.attention.w_o.shape
    return (
        f"Weights: {sp.H} heads with W_q, W_k, W_v of {d_model} × {sp.d_k} each; W_O {w_o[0]} × {w_o[1]}; "
        f"W_1 {d_model} × {d_ff} and W_2 {d_ff} × {d_model}. This is the original (post-LayerNorm) order, as in "
        "BERT; many newer models put the LayerNorm before attention and the FFN instead."
    )


# --------------------------------------------------------------------------- 5. encoder and decoder

ENC_DEC_INTRO = (
    "A translation model has two stacks. The **encoder** reads the whole source sentence at once: full "
    "self-attention, every token sees every token. The **decoder** produces the target, and its "
    "self-attention is **causal**: a token sees itself and the tokens before it. When the model generates, "
    "the later tokens do not exist yet; in training the whole target is fed in at once (teacher forcing), "
    "and the mask is what keeps each token from seeing the ones it has to predict. Each decoder block "
    "then has a **cross-attention** layer: its queries come from the decoder, its keys and values from the "
    "encoder's output, and it may look at every source token."
)


def allowed_text(m: tr.EncoderDecoderMasks) -> str:
    """How many pairs each mask allows, counted from the masks."""
    return (
        f"Here sentence A ({len(m.source)} tokens) is the source and sentence B ({len(m.target)} tokens) the "
        f"target. Allowed pairs: encoder {int(m.encoder_self.sum())} of {m.encoder_self.size}, decoder "
        f"{int(m.decoder_self.sum())} of {m.decoder_self.size}, cross {int(m.cross.sum())} of {m.cross.size}."
    )


def cross_text(m: tr.EncoderDecoderMasks) -> str:
    full = "It is full" if bool(m.cross.all()) else "It is not full"
    return (
        f"Read the cross-attention mask as the decoder's {len(m.target)} target tokens (rows) asking the "
        f"encoder's {len(m.source)} source tokens (columns). {full}: the whole source sentence is known before "
        "the decoder starts, so nothing there is in the future. Only the decoder's own self-attention needs the "
        "causal mask."
    )


# --------------------------------------------------------------------------- 6. recurrence

RECURRENCE_INTRO = (
    "A recurrent network reads a sentence one token at a time: step t needs the result of step t − 1, so "
    "the steps cannot run side by side, and what the first token says reaches the last only after passing "
    "through every step between them. Self-attention computes every position at once, and any two tokens "
    "meet directly, in one step. The price is a score for every pair of tokens."
)
COST_ROWS = ("sequential steps", "steps between the first and last token", "multiply-adds per layer")


def cost_table(co: tr.Cost) -> dict[str, list[str]]:
    """The comparison table's columns (the page makes it a table with COST_ROWS as its rows)."""
    T, d = co.T, co.d
    return {
        "self-attention": [
            str(co.attention_sequential),
            str(co.attention_path),
            f"4·{T}·{d}² + 2·{T}²·{d} = {big(co.attention_ops)}",
        ],
        "grows like": ["O(1)", "O(1)", "O(T·d² + T²·d)"],
        "tanh RNN": [str(co.recurrent_sequential), str(co.recurrent_path), f"2·{T}·{d}² = {big(co.recurrent_ops)}"],
        "LSTM": [str(co.recurrent_sequential), str(co.recurrent_path), f"8·{T}·{d}² = {big(co.lstm_ops)}"],
        "grows like ": ["O(T)", "O(T)", "O(T·d²)"],
    }


def _against(ops: int, other: int) -> str:
    return "more" if ops > other else "fewer" if ops < other else "exactly as many"


def cost_text(co: tr.Cost) -> str:
    """Attention's multiply-adds against both recurrent baselines, for the page's T and d."""
    rnn, lstm = _against(co.attention_ops, co.recurrent_ops), _against(co.attention_ops, co.lstm_ops)
    T, d, even = co.T, co.d, co.lstm_break_even
    past = co.T - co.lstm_break_even
    side = "below" if past < 0 else "above" if past > 0 else "at"
    return (
        f"Count every multiply-add for sentence A (T = {T}) and d_model = {d}. The attention layer's four "
        f"projections W_q, W_k, W_v and W_O take 4·T·d² = {big(co.projection_ops)} and its pairs 2·T²·d = "
        f"{big(co.score_ops)}: {big(co.attention_ops)} in all. A plain recurrent layer, h_t = tanh(x_t W_x + "
        f"h_(t−1) W_h), does two d × d products a step, 2·T·d² = {big(co.recurrent_ops)}: attention does "
        f"**{rnn}** ({_ratio(co.attention_ops, co.recurrent_ops)} times as many). But what the transformer "
        f"replaced was the LSTM, whose four gates each do those two products, 8·T·d² = {big(co.lstm_ops)}: "
        f"against an LSTM, attention does **{lstm}** ({_ratio(co.attention_ops, co.lstm_ops)} times as many). "
        f"The two break even at T = 2·d = {big(even)}, and T = {T} is {side} it: below it attention does fewer "
        "multiply-adds than an LSTM, above it more. Vaswani et al. (§4, table 1) compare the same costs by how "
        "they grow, T²·d against T·d², and note that sentences are usually shorter than the width."
    )


def why_text(co: tr.Cost) -> str:
    """What decided it: the sequential steps and the path, not the arithmetic."""
    lstm = _against(co.attention_ops, co.lstm_ops)
    at_this = {"more": "more than", "fewer": "less than", "exactly as many": "as much as"}[lstm]
    return (
        "So the arithmetic alone does not decide it: attention costs more than the simplest recurrent layer and, "
        f"at this length, {at_this} an LSTM. The decisive gains are the first two rows: its {co.T} positions are "
        f"computed at once instead of in {co.recurrent_sequential} steps one after another, which is what lets a "
        f"GPU train it fast, and any two tokens meet in {co.attention_path} step instead of {co.recurrent_path}. "
        "The pairwise part grows like T² and overtakes the projections once T > 2·d (from T = "
        f"{big(co.scores_overtake)} here), where attention also starts to cost more than an LSTM: that is why "
        "very long inputs call for the sparse masks of the Masks and cost page."
    )


def cost_series(co: tr.Cost) -> dict[str, np.ndarray]:
    """The chart's lines, by name."""
    return {
        "self-attention 4·T·d² + 2·T²·d": co.attention_curve,
        "its pairs alone 2·T²·d": co.score_curve,
        "tanh RNN 2·T·d²": co.recurrent_curve,
        "LSTM 8·T·d²": co.lstm_curve,
    }


# --------------------------------------------------------------------------- 7. one word, many meanings

SENSES_INTRO = (
    "In BERT a word's first vector, its embedding, is made before any attention: the vector of its token, plus "
    "a vector for its position and one for its segment (sentence A or B), each looked up in a learned table, "
    "then LayerNorm. So the embedding depends on the token and on where it stands, not on the other words. "
    "Each layer's attention then mixes in the words around it. Here is what that does in all-MiniLM-L6-v2 "
    "(layers 1 to 6, counted from 1 on every page; bertviz and TransformerLens count from 0): the word's "
    "vector in each sentence, the embedding and after each layer, compared with cosine similarity (1 = same "
    "direction). The example uses “bears” as an animal, a verb and a team, always as the second word, so every "
    "sentence starts from the same embedding."
)
NEED_SENTENCES = "Type at least two sentences, one per line, and a word that appears in them."
LAYER_LABEL = "After layer (0 = the embeddings, before any attention)"


def at_layer(k: int) -> str:
    """Where the vectors of hidden state k are: "in the embeddings", "after layer 3"."""
    return "in the embeddings" if k == 0 else numbering.after_layer(k)


def _first_up(text: str) -> str:
    return text[:1].upper() + text[1:]


def missing_text(word: str, n: int, sentence: str) -> str:
    return f"{quoted(word)} is not in sentence {n + 1} ({quoted(sentence)}); it is left out."


def found_text(senses: WordSenses) -> str:
    """Where the word is in each sentence: its token, and its WordPieces when it is split."""
    lines = []
    for k, sense in enumerate(senses.senses):
        split = (
            f", split into {len(sense.pieces)} WordPieces ({', '.join(quoted(p) for p in sense.pieces)}): the first "
            "is used"
            if len(sense.pieces) > 1
            else ""
        )
        lines.append(
            f"{k + 1}. {quoted(sense.sentence)}: {quoted(sense.word)} is token {sense.index} "
            f"{quoted(sense.tokens[sense.index])}{split}"
        )
    return "\n".join(lines)


def embeddings_text(senses: WordSenses) -> str:
    """Whether the word's embeddings are equal, from their cosines, and why, from the tokens
    followed and their positions."""
    low, high = senses.spread(0)
    tokens, positions = sorted(set(senses.pieces)), sorted(set(senses.positions))
    alike = len(tokens) == 1 and len(positions) == 1
    if alike and low > 1 - 5e-4:
        text = (
            f"{quoted(senses.word)} is the same token ({quoted(tokens[0])}) at the same position ({positions[0]}) "
            f"in every sentence, so its embeddings are equal: every pair has cosine {n3(low)}."
        )
    elif alike:
        text = (
            f"{quoted(senses.word)} is the same token ({quoted(tokens[0])}) at the same position ({positions[0]}) "
            f"in every sentence, yet its embeddings differ, cosines from {n3(low)} to {n3(high)}, before any "
            "attention: something else that goes into them (the segment) differs."
        )
    else:
        why = []
        if len(positions) > 1:
            why.append(f"it stands at different positions ({', '.join(str(p) for p in positions)})")
        if len(tokens) > 1:
            why.append(f"it is not the same token everywhere ({', '.join(quoted(t) for t in tokens)})")
        text = (
            f"Here the embeddings already differ, cosines from {n3(low)} to {n3(high)}, before any attention: "
            f"{' and '.join(why)}. Compare like with like: the same word at the same position."
        )
    if senses.layer0_error is not None:
        text += (
            " The embedding rebuilt from the model's own tables (token + position + segment, then LayerNorm with "
            f"its learned scale and shift) matches the model's to max |Δ| = {tiny(senses.layer0_error)}."
        )
    return text


def similarity_text(senses: WordSenses, layer: int) -> str:
    """The closest and farthest pair at hidden state ``layer``, and the mean over pairs."""
    mean = senses.mean_similarity
    a, b, hi = senses.pair(layer)
    c, d, lo = senses.pair(layer, most=False)
    last = senses.n_layers
    at_last = ""
    if layer != last:
        la, lb, lhi = senses.pair(last)
        lc, ld, llo = senses.pair(last, most=False)
        at_last = (
            f" {_first_up(at_layer(last))}, the last, the closest pair is {la + 1} and {lb + 1} ({n3(lhi)}) "
            f"and the farthest {lc + 1} and {ld + 1} ({n3(llo)})."
        )
    return (
        f"{_first_up(at_layer(layer))}, the most alike are sentences {a + 1} and {b + 1} (cosine {n3(hi)}), the "
        f"least alike {c + 1} and {d + 1} ({n3(lo)}). The mean over all pairs goes from {n3(mean[0])} in the "
        f"embeddings to {n3(mean[-1])} {at_layer(last)}.{at_last}"
    )


def meanings_of(senses: WordSenses) -> tuple[str | None, ...]:
    """What the word means in each sentence, where the page knows it (its own examples)."""
    return tuple(MEANINGS.get(s.sentence) for s in senses.senses)


def meanings_text(word: str, meanings: tuple[str | None, ...], groups: tr.SenseGroups, layer: int) -> str:
    """Which sentences share a meaning, whether the vectors at ``layer`` keep the meanings apart,
    and why a handful of sentences is an illustration, not evidence (with the numbers)."""
    where: dict[str, list[str]] = {}
    for k, meaning in enumerate(meanings):
        if meaning is not None:
            where.setdefault(meaning, []).append(str(k + 1))
    listed = ", ".join(
        f"{meaning} in {('sentences ' if len(ks) > 1 else 'sentence ') if n == 0 else ''}{' and '.join(ks)}"
        for n, (meaning, ks) in enumerate(where.items())
    )
    if abs(groups.gap) < 5e-4:
        verdict = "no difference yet."
    elif groups.gap > 0:
        verdict = "the vectors of one meaning stay closer together than those of different meanings."
    else:
        verdict = "by this measure the model does not keep the meanings apart."
    each = " and ".join(n3(v) for v in groups.same_values) if groups.n_same <= 3 else ""
    return (
        f"{quoted(word)} is {listed}. {_first_up(at_layer(layer))}, the {groups.n_same} "
        f"pair{'s' if groups.n_same != 1 else ''} with the same meaning have a mean cosine of {n3(groups.same)}"
        f"{f' ({each})' if each else ''} and the {groups.n_different} pairs with different meanings "
        f"{n3(groups.different)} (from {n3(min(groups.different_values))} to {n3(max(groups.different_values))}): "
        f"{verdict}"
    )


def evidence_text(groups: tr.SenseGroups, n_sentences: int) -> str:
    """Why these few sentences illustrate and do not prove: the exact permutation count."""
    overlap = (
        "every pair with one meaning is closer than every pair with two"
        if min(groups.same_values) > max(groups.different_values)
        else "the two kinds of pairs overlap"
    )
    give = "gives" if groups.as_large == 1 else "give"
    return (
        f"That is an illustration, not evidence: {groups.n_same} pair{'s' if groups.n_same != 1 else ''} with one "
        f"meaning against {groups.n_different}, from {n_sentences} sentences picked by hand, and here {overlap}. "
        f"Split the same {n_sentences} sentences into groups of the same sizes in every one of the "
        f"{groups.groupings} possible ways: {groups.as_large} of them {give} a gap between the two means at least "
        f"as large as the real meanings do. With so few sentences no result could do better than 1 in "
        f"{groups.groupings}; a claim about the model would need many sentences for each meaning."
    )


def similarity_title(layer: int) -> str:
    return f"Cosine similarity {at_layer(layer)}"


# --------------------------------------------------------------------------- 8. where the word looks


def looks_heading(layer: int) -> str:
    return f"Where the word looks in layer {layer}" if layer else "Where the word looks"


def looks_embeddings(senses: WordSenses, reader: Reader) -> str:
    """Said for hidden state 0, which no attention made. One section at a time, the layer slider
    waits in the sidebar; otherwise it is with the sentences, above."""
    where = " in the sidebar" if reader.paged else " above"
    return (
        "0 is the embeddings (token, position and segment vectors, then LayerNorm): no layer has looked at "
        f"the other tokens yet. Pick a layer from 1 to {senses.n_layers}{where} to see which tokens the word "
        "attends to in it."
    )


def looks_text(senses: WordSenses, layer: int, n_heads: int) -> str:
    """The word's attention row in ``layer`` (1..L), and the part of it on [CLS] and [SEP]."""
    shares = ", ".join(number(sense.special_share(layer), 2) for sense in senses.senses)
    return (
        f"The word's row of attention weights in layer {layer}, averaged over the {n_heads} heads. The part that "
        f"goes to [CLS] and [SEP], sentence by sentence: {shares}. A large share on these two tokens is usually "
        "read as a head parking attention it has no use for (Clark et al., 2019): it shows where the heads look, "
        "not what the word takes from those tokens."
    )


def bar_title(k: int, word: str, index: int, layer: int) -> str:
    return f"{k + 1}: {word}, token {index}, layer {layer}"


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: tr.TransformerLesson) -> list[str]:
    """The footer's lines, from this run's lesson."""
    sp, blk, p, co = lesson.split, lesson.block, lesson.padding, lesson.cost
    lines = [
        f"With d_model = {sp.d_model} and H = {sp.H}, each head works in d_k = {sp.d_k} dimensions, so the {sp.H} "
        f"heads together have {big(sp.qkv_params)} weights in W_q, W_k and W_v, as many as one head of the full "
        f"width; one encoder block keeps the shape: sentence A goes in as {blk.x.shape[0]}×{blk.x.shape[1]} and "
        f"comes out as {blk.output.shape[0]}×{blk.output.shape[1]}.",
        f"For T = {co.T} and d = {co.d}, attention does {big(co.attention_ops)} multiply-adds, a tanh RNN "
        f"{big(co.recurrent_ops)} and an LSTM {big(co.lstm_ops)}; what set attention apart is its "
        f"{co.attention_sequential} sequential step against {co.recurrent_sequential}.",
    ]
    b = p.padded
    if p.lengths[0] != p.lengths[1]:
        lines.append(
            f"With the padding mask the padding keys get weight {p.pad_weight:g}; without it, "
            f"{p.changed_unmasked[b]} of the {p.lengths[b]} real tokens of sentence {'AB'[b]} got other outputs."
        )
    return lines
