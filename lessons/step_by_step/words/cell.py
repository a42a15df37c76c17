"""One cell worked through (score, scaling, softmax, output), and what the page showed (its footer)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from attn_core import walkthrough as wt
from lessons.step_by_step.words.format import _plural, option, quoted
from ui.markup import md_escape

# --------------------------------------------------------------------------- the worked cell


def cell_intro(steps: Mapping[str, int]) -> str:
    return (
        "Pick a query token i and a key token j to see where one score, one weight and one output row come from, "
        f"with the real numbers of steps {steps['qkv']} to {steps['output']}."
    )


def cell_query_picked(tokens: tuple[str, ...], i: int) -> str:
    return f"Query token i = {md_escape(option(tokens)(i))}, the one picked for your prediction."


def cell_caption(tokens: tuple[str, ...], i: int, j: int) -> str:
    return f"Query i = {i}: {quoted(tokens[i])} · key j = {j}: {quoted(tokens[j])}"


def cell_score_latex(cell: wt.CellWalkthrough) -> str:
    i, j = cell.i, cell.j
    return wt.latex_dot_lines(cell.q_i, cell.k_j, cell.score, lhs=rf"s_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}}")


def cell_scaled_latex(cell: wt.CellWalkthrough) -> str:
    i, j, num = cell.i, cell.j, wt.latex_num
    return (
        rf"\tilde s_{{{i},{j}}} = s_{{{i},{j}}} \times {cell.factor:.4g} = {num(cell.score)} \times "
        rf"{cell.factor:.4g} = {num(cell.scaled)}"
    )


def cell_shift_latex(cell: wt.CellWalkthrough) -> str:
    return rf"m_{{{cell.i}}} = {wt.latex_num(cell.shift)}"


def cell_masked_latex(cell: wt.CellWalkthrough) -> str:
    return rf"M_{{{cell.i},{cell.j}}} = -\infty \qquad (j = {cell.j} > i = {cell.i}:\ \text{{masked}})"


def cell_softmax_text(i: int) -> str:
    return (
        f"**3 · Softmax of row {i}**: exponentiate every masked score M of the row (the scaled score, or −∞ "
        "where the mask forbids the key), then divide by their sum."
    )


CELL_SCORE_TEXT = "**1 · The score** is the dot product of the two vectors, one term per dimension."
CELL_SCALED_TEXT = "**2 · Scaling** multiplies it by the same factor as every other cell."
CELL_SHIFT_TEXT = (
    "These scores are large, so the row's largest score m_i is subtracted before exponentiating. It cancels in "
    "the fraction, so the weights are unchanged, but e^x no longer overflows."
)


def cell_weight_latex(cell: wt.CellWalkthrough) -> str:
    i, j, num = cell.i, cell.j, wt.latex_num
    minus_m = rf" - m_{{{i}}}" if cell.shift else ""
    return (
        rf"A_{{{i},{j}}} = \frac{{\exp(M_{{{i},{j}}}{minus_m})}}{{\sum_l \exp(M_{{{i},l}}{minus_m})}}"
        rf" = \frac{{{num(cell.exps[j])}}}{{{num(cell.total)}}} = {num(cell.weights[j])},"
        rf"\qquad \sum_j A_{{{i},j}} = {cell.row_sum:.4f}"
    )


def cell_output_text(i: int) -> str:
    return f"**4 · The output z_{i}** adds up the value rows, each scaled by its weight from row {i}."


def cell_output_latex(cell: wt.CellWalkthrough) -> str:
    return wt.latex_weighted_sum(cell, lhs=rf"z_{{{cell.i}}} = \sum_j A_{{{cell.i},j}}\, v_j")


# --------------------------------------------------------------------------- what this page showed


def weight_share_sentence(lesson: wt.Lesson, i: int) -> str:
    """Row i's largest weight, what it means (how much of v_j is mixed into z_i), and why it is
    not a share of z_i: the norm-based share A_ij ‖v_j‖ / Σ_l A_il ‖v_l‖ beside it."""
    s, shares, tokens = lesson.steps, lesson.shares, lesson.tokens
    top = int(np.argmax(s.weights[i]))
    weight = float(s.weights[i, top])
    text = (
        f"Token {i} ({quoted(tokens[i])}) gives its largest weight, {weight:.2f}, to token {top} "
        f"({quoted(tokens[top])}): z_{i} takes in {weight:.2f} × v_{top}."
    )
    total = float(shares.weighted_norms[i].sum())
    if total == 0:
        return text + f" Every value row it mixes is 0 here, so z_{i} is 0."
    share = float(shares.norm_shares[i, top])
    if f"{share:.0%}" == f"{weight:.0%}":
        compare = "about its weight"
    else:
        compare = "less than its weight" if share < weight else "more than its weight"
    return text + (
        f" That is not a share of z_{i}, because value rows differ in length: ‖v_{top}‖ = "
        f"{shares.value_norms[top]:.2f}, while row {i}'s weighted sum of lengths is Σ_l A_{i},l ‖v_l‖ = {total:.2f}. "
        f"Measured by length, A_{i},{top} ‖v_{top}‖ is {share:.0%} of that sum (the norm-based share of Kobayashi "
        f"et al. 2020, before W_O): {compare}."
    )


def what_it_showed(lesson: wt.Lesson, i: int, hidden: bool) -> list[str]:
    """The footer's lines, from this run's numbers (the largest weight only once it is not hidden)."""
    s, tokens = lesson.steps, lesson.tokens
    T, d_v = len(tokens), s.v.shape[1]
    scaled = f"multiplied by {s.factor:.4g}" if lesson.multiplier != 1 or lesson.scale else "not scaled"
    masked = f", {lesson.stats.n_masked} of {T * T} cells masked" if lesson.stats.n_masked else ""
    lines = [
        f"One head turned your {_plural(T, 'token')} into Z ({T}×{d_v}): every query met every key in a {T}×{T} score "
        f"matrix, {scaled}{masked}, and the softmax made each row into weights that add up to 1."
    ]
    if not hidden:
        lines.append(weight_share_sentence(lesson, i))
    return lines
