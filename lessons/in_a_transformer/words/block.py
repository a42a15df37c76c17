"""Sections 4 to 6: where attention sits in a block, encoder and decoder, and why attention replaced
recurrence.
"""

from __future__ import annotations

import numpy as np

from attn_core import transformer as tr
from lessons.in_a_transformer.words.format import _ratio, big, n3, tiny
from ui.reader import Reader

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
