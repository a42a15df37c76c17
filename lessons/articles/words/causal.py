"""Section 2: the causal mask table, an article that leaves the mask out, and LongNet's dilated attention."""

from __future__ import annotations

import numpy as np

from attn_core import article_checks as ar
from lessons.articles.words.format import _above, n3
from ui.markup import md_escape
from ui.reader import Reader

# --------------------------------------------------------------------------- 2. the causal table


def causal_intro(c: ar.CausalCheck) -> str:
    return (
        "The course notes *Single-head self-attention* mask the scores of “The hiking trail led us through "
        f"bear country.” with T = {len(c.tokens)} (they count the words and leave out the full stop; so do we). "
        "Their table puts the keys k_j in rows and the queries q_i in columns, so cell (k_j, q_i) holds q_iᵀk_j. "
        "A query may look at its own position and the ones before it, so a cell must be −∞ exactly when "
        "j > i: every cell below the diagonal."
    )


def wrong_rows(c: ar.CausalCheck) -> list[str]:
    """One sentence per row of the notes' table that keeps a score from the future."""
    by_row: dict[int, list[int]] = {}
    for j, i in c.wrong:
        by_row.setdefault(j, []).append(i)
    out = []
    for j, cols in by_row.items():
        cells = " and ".join(f"q{i + 1}ᵀk{j + 1}" for i in cols)
        who = " and ".join(f"query {i + 1} (“{md_escape(c.tokens[i])}”)" for i in cols)
        out.append(
            f"The notes' row k{j + 1} starts with {int(np.sum(~c.article[j]))} cells of −∞; it needs "
            f"{int(np.sum(~c.correct[j]))}. They leave {cells} in, so {who} could look at key {j + 1} "
            f"(“{md_escape(c.tokens[j])}”), a word that comes after them. Every other row is right."
        )
    return out


def key_labels(c: ar.CausalCheck) -> list[str]:
    return [f"k{j + 1} {t}" for j, t in enumerate(c.tokens)]


def query_labels(c: ar.CausalCheck) -> list[str]:
    return [f"q{i + 1}" for i in range(len(c.tokens))]


def cell_text(kept: np.ndarray) -> list[list[str]]:
    """The table's cells as the notes write them, in their [key, query] layout."""
    T = kept.shape[0]
    return [["qᵀk" if kept[j, i] else "−∞" for i in range(T)] for j in range(T)]


def leak_text(c: ar.CausalCheck, reader: Reader) -> str:
    """What the notes' slip lets through, with one random head, against the correct mask."""
    leaks = "; ".join(
        f"“{md_escape(c.tokens[i])}” gives {n3(w)} of its weight to “{md_escape(c.tokens[j])}”"
        for (j, i), w in zip(c.wrong, c.leaked, strict=True)
    )
    x_shape = c.steps_correct.x.shape
    return (
        f"What the slip does, with one head of random weights (d_model = {x_shape[1]}, d_k = "
        f"{c.steps_correct.d_k}): under the notes' mask, {leaks}. With the correct mask every weight on a later "
        f"word is exactly {c.future_weight:g}: e to the power −∞ is 0, not just close to 0. The charts "
        f"{_above(reader)} use this app's layout, queries in rows."
    )


def callebaut_text(dc: ar.DecoderCheck) -> str:
    return (
        "Another article leaves the mask out altogether. Callebaut's *Understanding Transformers (Part 2)* "
        "says that in self-attention each token “attends to all other tokens, including itself”, and that "
        "this is “used in both the encoder and decoder layers”, without a word about the mask. In a decoder "
        "that would let every word see the words after it. Change only the last word "
        f"(“{md_escape(dc.tokens[-1])}” to “{md_escape(dc.changed[-1])}”) and, with the head above and no mask, "
        f"the outputs of the {len(dc.tokens) - 1} words before it move by up to {n3(dc.unmasked_change)}; with "
        f"the causal mask they move by {dc.causal_change:g}."
    )


LONGNET_SEGMENT, LONGNET_RATE = 8, 2  # the example the caption works out


def longnet_caption(segment: int = LONGNET_SEGMENT, rate: int = LONGNET_RATE) -> str:
    """What LongNet's dilated attention is (Ding et al., 2023, §2.2-2.3), with one segment worked out."""
    heads = [ar.longnet_rows(segment, rate, j) for j in range(rate)]
    kept = "; ".join(
        f"heads {', '.join(str(h + 1) for h in range(j, 3 * rate, rate))}, … keep its tokens "
        + ", ".join(str(p + 1) for p in rows)
        for j, rows in enumerate(heads)
    )
    return (
        "A name to read with care: one of the overviews ends by naming “Dilated Attention” as an answer to the "
        "T × T cost, without saying whose. It is probably LongNet's dilated attention (Ding et al., 2023): the "
        "sequence is cut into segments of w tokens, and each segment keeps only every r-th of them (the dilation "
        "rate r); several such (w, r) pairs, short segments kept densely and long ones thinly, are computed and "
        "mixed, each weighted by its softmax denominator. The heads do not get different rates: the paper's "
        f"head j starts at its own offset, s_j = j mod r (§2.3). With w = {segment} and r = {rate}, {kept}, so "
        "together the heads cover every token. The dilated mask on the Masks and cost page is a different scheme "
        "with a similar name: a sliding window with gaps."
    )
