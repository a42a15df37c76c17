"""Steps 8 and 9: the attention weights, the predict-first question on them, and the output Z."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from attn_core import numbering
from attn_core import trained_decoder as dc
from attn_core import walkthrough as wt
from lessons.step_by_step.words.calls import STEPS, Head
from lessons.step_by_step.words.format import _plural, option, quoted, short
from ui.question import Question

# --------------------------------------------------------------------------- step 8: the weights


def zeros_sentence(stats: wt.StepStats) -> str:
    """Step 8: how many weights are exactly 0, and why."""
    zeros, masked = stats.n_zero_weights, stats.n_masked
    if zeros == 0:
        return f"Here no cell is masked, and none of the {stats.n_cells} weights is 0."
    text = f"Here {zeros} of the {stats.n_cells} weights are exactly 0"
    if zeros == masked:
        return text + ": the masked cells."
    under = zeros - masked
    return text + (
        f": {_plural(masked, 'masked cell')} and {under} whose exponential is too small for a float64 (it rounds to 0)."
    )


def weights_text(stats: wt.StepStats, steps: Mapping[str, int]) -> str:
    return (
        "The softmax turns each row into weights that are never negative and add up to 1: it exponentiates every "
        "masked score and divides by the row's total, so a masked cell (e^−∞ = 0) gets exactly 0. "
        + zeros_sentence(stats)
        + f" A_ij is how much of v_j goes into z_i, not how much token j matters (Step {steps['output']} says why)."
    )


def weights_latex(stats: wt.StepStats) -> str:
    return (
        r"A_{ij} = \frac{\exp(M_{ij})}{\sum_{l} \exp(M_{il})}, \qquad \sum_j A_{ij} \in "
        rf"[{stats.row_sum_min:.6f},\ {stats.row_sum_max:.6f}]"
    )


def hidden_note(where: str) -> str:
    """What a hidden matrix says while a prediction waits; ``where`` is the deck's " on step 8" or ""."""
    return f"Hidden until you reveal your prediction{where} (Predict first is on)."


def hidden_scores_note(where: str) -> str:
    return (
        f"Hidden until you reveal your prediction{where} (Predict first is on): the softmax keeps each row's "
        "order, so the largest score in a row is also its largest weight, and this matrix would give the answer away."
    )


def no_question_note(T: int, i: int) -> str:
    if T == 1:
        return "Predict first has no question for one token: it can only look at itself, with weight 1."
    return (
        f"Predict first has no question for query {i}: every key gets the same weight from it. Pick another query "
        f"token in “{STEPS['cell']}”."
    )


def prediction(lesson: wt.Lesson, qi: int) -> Question | None:
    """Predict first: which key query ``qi`` weights most, made from this run's weights. Keys that
    tie for the most weight (the same word twice with positions off) make one option; one token
    gives no question (it can only look at itself), nor do keys that all tie."""
    tokens, row = lesson.tokens, lesson.steps.weights[qi]
    T = len(tokens)
    tied = [int(j) for j in np.flatnonzero(np.isclose(row, row.max(), rtol=0, atol=1e-12))]
    if len(tied) == T:
        return None
    keys = [[j] for j in range(T) if j not in tied[1:]]  # each key alone, the tied ones as one option
    keys[keys.index([tied[0]])] = tied
    label = option(tokens)
    return Question(
        key="sbs_quiz",
        prompt=f"Which key does query {qi} (“{short(tokens[qi])}”) give the most weight, and how much?",
        options=tuple(" or ".join(label(n) for n in group) for group in keys),
        answer=keys.index(tied),
        value=float(row.max()),
        value_label="the largest weight in the row",
        explain=f"Keys {' and '.join(map(str, tied))} tie for the most weight." if len(tied) > 1 else "",
    )


# --------------------------------------------------------------------------- step 9: the output


def decoder_after_head(decoder: dc.Decoder, layer: int) -> str:
    """Step 9 for a decoder head: what attn_core.trained_decoder.run does with Z next (layer from 0)."""
    H, L = decoder.n_heads, decoder.n_layers
    concat, d_model = decoder.weights.w_o.shape[1:]  # w_o (L, H*d_v, d_model)
    text = (
        f"In the decoder, Z is put side by side with the other {H - 1} heads' outputs of "
        f"{numbering.layer_name(layer)} ({concat} numbers per token), projected by W_O back to {d_model} numbers "
        "and added to the token's own vector (the residual stream)."
    )
    if decoder.attention_only:
        text += " That is all a layer does: this small model has no normalisation and no feed-forward network."
    if layer + 1 < L:
        return text + f" {numbering.layer_name(layer + 1).capitalize()} reads the sum as its X."
    return text + (
        f" {numbering.layer_name(layer).capitalize()} is the last, so the sum goes to the unembedding: multiplied "
        f"by W_U, plus a bias, it gives one score for each of the {len(decoder.vocab)} entries of the vocabulary "
        "(<unk> included), and the highest is the model's guess for the next word."
    )


def transformer_after_head(head: Head) -> str:
    """Step 9 for a random or real head: the residual stream, and where the normalisation goes."""
    ours = " (so does this real head's model, a BERT)" if head.kind == "real" else ""
    return (
        "In a transformer Z is not the end: it is put side by side with the other heads' outputs, projected by "
        "W_O back to d_model numbers and added to the block's input X (the residual stream), so a layer adds to "
        "what each token already carries. Where the normalisation goes differs: the original transformer and "
        f"BERT normalise the sum after the addition (post-LN){ours}; GPT-2 and most newer models normalise the "
        "input of each sub-layer instead (pre-LN). Then a feed-forward network follows, which has its own "
        "residual and normalisation, before the next layer sees it."
    )


def value_lengths_sentence(lesson: wt.Lesson) -> str:
    """Step 9: a weight is not importance, with this run's shortest and longest value rows."""
    norms, tokens = lesson.shares.value_norms, lesson.tokens
    if len(tokens) == 1:
        here = f"here the one value row has ‖v_0‖ = {norms[0]:.2f}"
    else:
        lo, hi = int(np.argmin(norms)), int(np.argmax(norms))
        here = (
            f"here ‖v_j‖ runs from {norms[lo]:.2f} (token {lo}, {quoted(tokens[lo])}) to {norms[hi]:.2f} "
            f"(token {hi}, {quoted(tokens[hi])})"
        )
    return (
        "**A weight is not importance.** A_ij says how much of v_j is mixed into z_i, not how much token j matters "
        f"to what the model does: a short value row hands on little whatever its weight ({here}), W_O and the "
        "layers after this one reweight what arrives, and attention weights can disagree with other measures of "
        "a token's importance (Jain & Wallace 2019; Kobayashi et al. 2020)."
    )


def output_text(head: Head, decoder: dc.Decoder | None, lesson: wt.Lesson) -> str:
    T, d_v = lesson.steps.output.shape
    after = decoder_after_head(decoder, head.layer) if decoder is not None else transformer_after_head(head)
    return (
        "Each output row is a blend of the value rows, mixed in the proportions of that token's row of weights. "
        f"This head's Z is {T}×{d_v}. {after}"
    )


def output_latex(T: int, d_v: int) -> str:
    return rf"Z = AV \in \mathbb{{R}}^{{{T} \times {d_v}}}, \qquad z_i = \sum_j A_{{ij}}\, v_j"
