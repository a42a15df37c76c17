"""Steps 5 to 7: the scores QKᵀ, their scaling, and the mask."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from attn_core import walkthrough as wt
from lessons.step_by_step.words.calls import ONE_HOT
from ui.reader import SCREEN, Reader

# --------------------------------------------------------------------------- step 5: scores


def aligned_sentence(stats: wt.StepStats, T: int) -> str:
    """Step 5: in how many rows the highest score is not on the best-aimed key, and why: a longer
    key where the top score is positive, a shorter one where no score of the row is positive."""
    n, longer, shorter = stats.top_not_aligned, stats.longer_key_won, stats.shorter_key_won
    if n == 0:
        return (
            f"In this run all {T} rows give their highest score to the key that points most nearly along the "
            "query, but a longer key could win."
        )
    text = (
        f"In this run, in {n} of the {T} rows the highest score goes to a key that is not the one pointing most "
        "nearly along the query"
    )
    parts = []
    if longer:
        parts.append(f"{'there' if longer == n else f'in {longer} of them'} a longer key won")
    if shorter:
        where = "there" if shorter == n else f"in {shorter} of them"
        parts.append(
            f"{where} no score of the row is positive, and a shorter key won: a longer key makes a negative score "
            "more negative"
        )
    return text + (": " + "; ".join(parts) if parts else "") + "."


def scores_text(stats: wt.StepStats, T: int) -> str:
    return (
        "Row i compares token i's query with every key by a dot product, q·k = |q| |k| cos θ: the sign and the "
        "size of the score depend on how nearly the two vectors point the same way (cos θ), and the lengths "
        "scale it, so a longer key makes a positive score larger and a negative one more negative. So it is not "
        "the cosine similarity, which ignores length. " + aligned_sentence(stats, T) + " With random vectors the "
        "scores spread wider as d_k grows."
    )


def scores_latex(stats: wt.StepStats, T: int) -> str:
    return (
        rf"S = QK^\top \in \mathbb{{R}}^{{{T} \times {T}}}, \quad s_{{ij}} = q_i \cdot k_j, "
        rf"\quad \operatorname{{std}}(S) = {wt.latex_num(stats.scores_std)}"
    )


# --------------------------------------------------------------------------- step 6: scaling


def spread_sentence(stats: wt.StepStats, multiplier: float, steps: Mapping[str, int]) -> str:
    """Step 6 on random weights: what sets the spread of the scores, in this run's numbers.

    The weights have mean 0, so a query entry's variance is the mean square of the token's
    entries, not their variance; the sentence splits X's mean square into the word vectors'
    part and what the positions add. The parts are rounded first, so they add up as printed.
    """
    total = round(stats.x_mean_square, 2)
    text = (
        "In plain words: after the division, how widely the scores spread no longer depends on d_k, only on how "
        "large X's entries are"
        + (f" (and on the ×{multiplier:g} switch, on now)" if multiplier != 1 else "")
        + f". In this run std(S̃) = {stats.scaled_std:.2f}. Why: the weights are random with "
        "mean 0, so what sets that spread is the mean square of X's entries (the average of their squares). For "
        "entries of mean 0 and variance 1 it is about 1, and then the scaled scores spread about 1 whatever d_k "
        "is. "
    )
    if stats.e_mean_square is None:
        text += f"Here the word vectors alone make X, and its mean square is {total:.2f}."
    else:
        words = round(stats.e_mean_square, 2)
        added = round(total - words, 2)
        change = f"add {added:.2f}" if added >= 0 else f"take away {-added:.2f}"
        text += f"Here it is {total:.2f}: the word vectors alone give {words:.2f} and the positions {change}."
    if round(stats.x_var, 2) < total:
        text += (
            f" Var(X) in Step {steps['x']} is smaller, {stats.x_var:.2f}, because the variance first subtracts the "
            f"mean of the entries, {stats.x_mean:.2f} here."
        )
    return text


def x100_sentence(lesson: wt.Lesson) -> str:
    """Step 6: what the ×100 switch does to the spread in this run ("" while it is off)."""
    m = lesson.multiplier
    if m == 1:
        return "The ×100 switch shows the opposite, where nearly every row becomes one-hot."
    T = lesson.steps.weights.shape[0]
    without = lesson.stats.scaled_std / m  # std is linear: the same scores without the switch
    one_hot = int(np.sum(lesson.steps.weights.max(axis=1) > ONE_HOT))
    return (
        f"The ×{m:g} switch is on: std(S̃) = {lesson.stats.scaled_std:.2f}, {m:g} times the {without:.2f} it is "
        f"without the switch, and {one_hot} of the {T} rows of weights put more than {ONE_HOT:g} of their weight "
        "on a single key."
    )


def scaled_text(lesson: wt.Lesson, trained: bool, steps: Mapping[str, int]) -> str:
    spread = "Dividing by √d_k undoes the growth of the spread with d_k."
    if not trained:
        spread += " " + spread_sentence(lesson.stats, lesson.multiplier, steps)
    return (
        "Large scores push the softmax towards putting nearly all of a row's weight on one key, and leave training "
        f"almost no gradient. {spread} " + x100_sentence(lesson)
    )


def scaled_latex(lesson: wt.Lesson) -> str:
    """The scaling step with its live factor, e.g. S / sqrt(4) = 0.5 S, and the spread after it."""
    d_k, factor = lesson.steps.d_k, f"{lesson.steps.factor:.4g}"
    top = "S" if lesson.multiplier == 1 else f"{lesson.multiplier:g}\\,S"
    if lesson.scale:
        tex = rf"\tilde S = \frac{{{top}}}{{\sqrt{{d_k}}}} = \frac{{{top}}}{{\sqrt{{{d_k}}}}} = {factor}\,S"
    else:
        tex = rf"\tilde S = {top} \qquad (\text{{not divided by }} \sqrt{{d_k}})"
    return tex + rf", \quad \operatorname{{std}}(\tilde S) = {wt.latex_num(lesson.stats.scaled_std)}"


# --------------------------------------------------------------------------- step 7: the mask


def masked_text(causal: bool, steps: Mapping[str, int], reader: Reader = SCREEN) -> str:
    if causal:
        return (
            "The causal mask stops each token looking at tokens after it. A model that writes text is trained on "
            "whole sentences at once (teacher forcing), so the words after token i are there during training: the "
            "mask is what keeps token i from peeking at the words it must learn to predict. Forbidden cells become "
            "−∞ (grey, marked −∞), so the softmax gives them exactly zero weight."
        )
    return (
        "No mask is on, so every token may look at every token, itself and later ones included, and this matrix "
        "equals the scaled scores. It is shown anyway because masking is a step of its own: "
        + ("with the causal mask on" if reader.following else "switch on the causal mask in the sidebar and")
        + f" this is the first matrix that changes (steps {steps['scores']} and {steps['scaled']} stay as they are)"
        + ("." if reader.following else ", and a note at the top of the page names every step that changed.")
    )


def masked_latex(stats: wt.StepStats, causal: bool) -> str:
    count = rf"{stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}"
    if causal:
        return r"M_{ij} = \begin{cases} \tilde s_{ij} & j \le i \\ -\infty & j > i \end{cases}" + rf"\qquad {count}"
    return rf"M = \tilde S \qquad {count}"
