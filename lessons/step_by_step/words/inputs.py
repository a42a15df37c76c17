"""Steps 1 to 4: the tokens, X and its positions, the weight matrices W_q, W_k, W_v, and Q, K, V."""

from __future__ import annotations

import numpy as np

from attn_core import numbering
from attn_core import walkthrough as wt
from lessons.step_by_step.words.calls import Head
from lessons.step_by_step.words.format import gap, quoted
from ui.reader import Reader

# --------------------------------------------------------------------------- step 1: tokens


def repeats_sentence(stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    """What the page says about repeated words, from the run's own numbers."""
    if not stats.repeats:
        example = "the cat sat on the mat"
        see = (  # a student who follows a teacher has no sentence box: the teacher's screen decides
            f"The example “{example}” has one."
            if reader.following
            else f"Pick the example “{example}”{reader.in_sidebar} to see an exact repeat."
        )
        return (
            "This sentence repeats no word exactly. Case counts here: “The” and “the” are different words "
            f"with different vectors. {see}"
        )
    token, where, identical = stats.repeats[0]
    places = " and ".join(str(n) for n in where)
    if positional:
        return (
            f"{quoted(token)} appears at positions {places}: the same word vector, but a different position "
            "vector is added, so its rows of X differ."
        )
    same = "are identical" if identical else "differ"
    return (
        f"{quoted(token)} appears at positions {places}, and with positions off its rows of X {same}: attention "
        "alone cannot tell where a word stands. (Case counts: “The” and “the” are different words here.)"
    )


def tokens_text(head: Head, stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    if head.kind == "real":
        return (
            "The model's own tokenizer cuts the text: it lowercases it, splits rare words into WordPiece parts "
            "(## marks a part that continues a word), and adds [CLS] at the start and [SEP] at the end. Every "
            f"position is its own token, so a repeated word gets separate rows in every matrix {reader.later}."
        )
    if head.kind == "decoder":
        return (
            f"The decoder reads words from its own {head.vocab_words}-word vocabulary, in lower case; any other "
            f"word or mark becomes <unk>. Every position is its own token, so a repeated word gets separate rows "
            f"{reader.later}."
        )
    return (
        "The sentence is cut into tokens: words and punctuation marks. Every position is its own token, so a word "
        f"that appears twice gets two separate rows in every matrix {reader.later}. "
        + repeats_sentence(stats, positional, reader)
    )


# --------------------------------------------------------------------------- step 2: X


def x_text(head: Head, d_model: int, stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    """What X is, for each source."""
    if head.kind == "real":
        before = (
            "the model's embeddings (a learned vector per token, plus learned position and segment vectors, then "
            "normalised)."
            if head.layer == 0
            else f"the output of {numbering.layer_name(head.layer - 1)}, so every row already carries "
            "information mixed in from other tokens."
        )
        return (
            f"X is what {numbering.layer_name(head.layer)} receives: {before} Each row has d_model = {d_model} numbers."
        )
    if head.kind == "decoder":
        if head.layer == 0:
            before = "each word's learned vector plus the same sinusoidal position vectors as the random pages."
        else:
            earlier = "layer 1's heads" if head.layer == 1 else f"the heads of layers 1 to {head.layer}"
            before = (
                f"the word and position vectors plus everything {earlier} added to them (the residual stream)"
                if head.attention_only
                else f"the output of {numbering.layer_name(head.layer - 1)}, built from the word and position "
                "vectors and everything the layers before added to them"
            ) + ", so every row already carries information from earlier words."
        return (
            f"X is what {numbering.layer_name(head.layer)} of the decoder receives: {before} Each row has "
            f"d_model = {d_model} numbers."
        )
    if positional:
        return (
            "Each word is looked up as a fixed random vector of d_model numbers (the same word always gets the "
            "same vector for this seed). A pattern of sines and cosines that depends only on the position is "
            "added, so the same word at two places ends up with two different rows."
        )
    return (
        "Each word is looked up as a fixed random vector of d_model numbers. Positional encoding is off, so "
        "nothing in X says where a word stands. " + repeats_sentence(stats, False, reader)
    )


def x_latex(head: Head, T: int, d_model: int, stats: wt.StepStats, positional: bool) -> str:
    shape = rf"\in \mathbb{{R}}^{{{T} \times {d_model}}}"
    if head.kind == "real":
        return rf"X = H^{{({head.layer})}} {shape}"
    if head.kind == "decoder":
        return rf"X = x_{{{head.layer}}} {shape}"
    var = rf"\qquad \operatorname{{Var}}(X) = {wt.latex_num(stats.x_var)}"
    return (r"X = E + P " if positional else "X = E ") + shape + var


def pe_latex(d_model: int) -> str:
    """The sinusoidal positions as attn_core.engine.positional_encoding computes them."""
    angle = rf"p / 10000^{{2i/{d_model}}}"
    return rf"P_{{p,\,2i}} = \sin\!\left({angle}\right), \qquad P_{{p,\,2i+1}} = \cos\!\left({angle}\right)"


def pe_sentence(pe: np.ndarray) -> str:
    """The position vectors in this run's numbers: row p is the pattern for position p; each pair
    of columns turns at its own rate, the first by 1 radian per position, the last the slowest."""
    T, d_model = pe.shape
    p = T - 1
    text = (
        "Row p of P is the same for every sentence: column 2i holds the sine and column 2i + 1 the cosine of the "
        f"angle p / 10000^(2i/d_model), so for the last token here, p = {p}, P[{p}, 0] = sin {p} = {pe[p, 0]:.2f}"
        + (f" and P[{p}, 1] = cos {p} = {pe[p, 1]:.2f}" if d_model > 1 else "")
        + "."
    )
    last = (d_model - 1) // 2  # the last pair (a lone sine when d_model is odd)
    if last > 0:
        rate = 1.0 / 10000.0 ** (2 * last / d_model)
        text += (
            f" The first pair turns by 1 radian per position, the last (i = {last}) by only {rate:.2g}, so together "
            "the columns tell near and far positions apart."
        )
    return text


def positions_sentence(order: wt.OrderCheck, T: int) -> str:
    """Step 2 on random weights: what attention knows about word order, from the sentence reversed."""
    if T < 2:
        return ""
    words = "on the word vectors alone, " if order.order_gap is not None else ""
    text = (
        "Without positions, attention treats the sentence as a set of words: read it backwards and every token "
        "gets exactly the output it had, only in reversed order (computed "
        f"{words}without a mask, which would itself carry the order: max |Δ| = {gap(order.set_gap)}, rounding)."
    )
    if order.order_gap is not None:
        text += f" With the positions, reading it backwards changes the outputs by up to {order.order_gap:.2f}."
    return text + (
        " Sines and cosines are one choice: BERT and GPT-2 learn a position vector for each place instead. Many "
        "newer models add nothing to X and use RoPE (Su et al. 2021): each pair of dimensions of q and k is "
        "rotated by an angle proportional to the token's position, every pair at its own frequency, so the score "
        "q_m·k_n depends on the two positions only through their offset m − n."
    )


# --------------------------------------------------------------------------- steps 3 and 4


def w_text(head: Head, d_model: int, d_k: int, biases: bool) -> str:
    if head.kind == "real":
        return (
            f"These are trained numbers: {numbering.head_name(head.head)}'s share of "
            f"{numbering.layer_name(head.layer)}'s query, key and value matrices. The layer's three "
            f"{d_model}×{d_model} matrices are split into {head.n_heads} heads of {d_k} columns each, and every head "
            "also has a bias vector b that is added after the multiplication."
        )
    if head.kind == "decoder":
        return (
            f"These are trained numbers: {numbering.head_name(head.head)}'s query, key and value matrices in "
            f"{numbering.layer_name(head.layer)} of the decoder, which has {head.n_heads} heads of {d_k} columns "
            "each in every layer." + ("" if biases else " Its heads have no biases.")
        )
    return (
        "A head owns three matrices that training would tune. Here they are random, as at the very start of "
        "training. Their entries are drawn with variance 1/d_model, which keeps the spread of the input: a query "
        "or key entry has a variance of about the mean square of X's entries (the average of their squares, "
        "which is their variance when their mean is 0). Each matrix turns a d_model vector into d_k numbers."
    )


def w_latex(head: Head, d_model: int, d_k: int, biases: bool) -> str:
    shape = rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}"
    if biases:
        return shape + rf", \qquad b_q,\ b_k,\ b_v \in \mathbb{{R}}^{{{d_k}}}"
    if head.trained:
        return shape
    return shape + rf", \qquad (W)_{{ab}} \sim \mathcal{{N}}\!\left(0, \tfrac{{1}}{{{d_model}}}\right)"


QKV_TEXT = (
    "Multiplying X by each matrix gives every token three new vectors: a query (what it is looking for), a key "
    "(what it can be found by) and a value (what it hands on). No key is ever chosen: every token mixes in "
    "every value it may see, each in proportion to the weight it gives that token."
)


def qkv_latex(T: int, d_k: int, biases: bool) -> str:
    if biases:
        return rf"Q = XW_q + b_q,\quad K = XW_k + b_k,\quad V = XW_v + b_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}"
    return rf"Q = XW_q,\quad K = XW_k,\quad V = XW_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}"
