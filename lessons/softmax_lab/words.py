"""The softmax and scaling lab's words: its one compute call, every sentence and formula it
computes from the lab's numbers, its predict-first question and its longer prose.

Plain Python (no Streamlit): the page places each piece next to its chart, and
tests/unit/test_softmax_lab_words.py checks each claim against the numbers it is given.
"""

from __future__ import annotations

import numpy as np

from attn_core import lab_results
from attn_core.experiments import DkStudy, Saturation
from attn_core.walkthrough import latex_num
from ui.markup import md_escape
from ui.question import Question

N_SCORES = 8
MULTIPLIERS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
SECTIONS = {
    "saturation": "Large scores saturate the softmax",
    "scaling": "Why divide by √d_k",
    "competition": "Softmax makes the scores compete",
}
COMPETITION_HEADING = "Softmax makes the scores compete; sigmoid does not"

# What softmax(m·s) does to the weights of softmax(s), and the thresholds that decide it.
STAY, TAKE_ALL, EQUAL, GROWS, SHRINKS = (
    "They stay about as they are",
    "One key takes almost all the weight",
    "They become about equal",
    "The largest grows, but no key takes almost all",
    "The largest shrinks, but they do not become about equal",
)
MOVED = 0.05  # every weight moves by less than this: they stay about as they are
ALMOST_ALL = 0.9  # the largest weight above this: one key takes almost all
EVEN = 0.05  # the largest minus the smallest below this: about equal


def lab(seed: int, multiplier: float, T: int, dk_seed: int, index: int, delta: float) -> lab_results.SoftmaxLab:
    """The page's one attn_core call (the page caches it)."""
    return lab_results.softmax_lab(
        n_scores=N_SCORES, seed=seed, multiplier=multiplier, T=T, dk_seed=dk_seed, index=index, delta=delta
    )


INTRO = (
    "Attention turns scores into weights with a softmax. This page plays with that one step: "
    "what happens when the scores get large, why the scores are divided by √d_k, and why a "
    "softmax (and not a sigmoid) is used."
)
INPUTS = (
    f"One query is compared with {N_SCORES} keys. The keys are labelled with the first words of your "
    "sentence; the scores themselves are random numbers drawn from N(0, 1), fixed by the seed."
)


# --------------------------------------------------------------------------- saturation


def outcomes(multiplier: float) -> tuple[str, ...]:
    """The options of the ×m question: the fourth says what a multiplier of this size does
    short of the extremes (above 1 the largest weight grows, below 1 it shrinks)."""
    return (STAY, TAKE_ALL, EQUAL, GROWS if multiplier >= 1 else SHRINKS)


def outcome(sat: Saturation) -> int:
    """Which of ``outcomes(m)`` describes softmax(m·s) against softmax(s), from the weights."""
    before, after = sat.weights, sat.scaled_weights
    if float(np.abs(after - before).max()) < MOVED:
        return 0
    if float(after.max()) > ALMOST_ALL:
        return 1
    if float(after.max() - after.min()) < EVEN:
        return 2
    return 3


def saturation_question(sat: Saturation) -> Question:
    """Predict first, section 1: what multiplying the scores by m does, and the largest weight after."""
    return Question(
        key="lab_quiz",
        prompt=f"What happens to these {sat.scores.size} weights when the scores are multiplied by "
        f"{sat.multiplier:g}? And how much weight will the largest one get?",
        options=outcomes(sat.multiplier),
        answer=outcome(sat),
        value=float(sat.scaled_weights.max()),
        value_label="the largest weight after multiplying",
        explain=f"“About as they are”: every weight moves by less than {MOVED:g}; “almost all”: above "
        f"{ALMOST_ALL:g}; “about equal”: the largest and the smallest differ by less than {EVEN:g}.",
    )


SATURATION = (
    "The same scores go through the softmax twice: once as they are, once multiplied by m. "
    "Multiplying by a large number stretches the gaps between scores, so the biggest one takes "
    "almost all the weight (the softmax *saturates*) and the entropy drops towards 0 bits."
)


def _vector(values: np.ndarray, digits: int = 2) -> str:
    """A LaTeX row vector of numbers (never user text)."""
    return r"\begin{bmatrix}" + " & ".join(f"{v:.{digits}f}" for v in values) + r"\end{bmatrix}"


def scores_latex(sat: Saturation) -> str:
    """s, the scores both charts start from."""
    return r"s = " + _vector(sat.scores)


def entropy_latex(sat: Saturation) -> str:
    """The entropy of both rows of weights, in bits."""
    m = f"{sat.multiplier:g}"
    return (
        rf"H(p) = -\sum_i p_i \log_2 p_i:\quad H(\mathrm{{softmax}}(s)) = {sat.entropy:.3f}\ \text{{bits}},\quad "
        rf"H(\mathrm{{softmax}}({m}\,s)) = {sat.scaled_entropy:.3f}\ \text{{bits}}"
    )


def jacobian_text(sat: Saturation, labels: list[str]) -> str:
    """Why a saturated softmax stops learning, naming the winning key (the largest score)."""
    w = sat.winner
    return (
        "Training moves the scores by following the softmax's derivatives, its Jacobian "
        "J_ij = ∂p_i/∂s_j = p_i(δ_ij − p_j). No entry of J is larger in size than 1 − p_w, where p_w is the "
        "largest weight, so when one weight is close to 1, *every* entry of J is close to 0, the winner's own "
        "slope p_w(1 − p_w) included: the scores hardly move, whichever key should have won. Here the winner, "
        f"the key with the largest score, is key {w} ({md_escape(labels[w])}), highlighted in both charts."
    )


def jacobian_latex(sat: Saturation) -> str:
    """max |J| and the winner's slope, at s and at m·s."""
    w, m = sat.winner, f"{sat.multiplier:g}"
    before, after = float(np.abs(sat.jacobian).max()), float(np.abs(sat.scaled_jacobian).max())
    return (
        rf"\max_{{ij}} |J_{{ij}}|:\ {latex_num(before, 3)} \text{{ at }} s \ \to\ {latex_num(after, 3)}"
        rf"\text{{ at }} {m}\,s,\qquad p_w(1 - p_w):\ {latex_num(sat.jacobian[w, w], 3)} \ \to\ "
        rf"{latex_num(sat.scaled_jacobian[w, w], 3)}"
    )


# --------------------------------------------------------------------------- why sqrt(d_k)

SCALING = (
    "Take random q and k whose entries have mean 0 and variance 1. Their dot product q·k is a sum "
    "of d_k such products, so its variance is about d_k: the longer the vectors, the larger the "
    "scores, and the more the softmax saturates. Dividing by √d_k brings the variance back to "
    "about 1 whatever d_k is. More generally, for independent entries of mean 0 and standard deviation s, "
    "Var(q·k) = d_k·s⁴, and dividing by √d_k leaves s⁴: the division undoes only the growth with d_k. "
    "Nothing stops a trained model from learning q and k large enough to saturate the softmax anyway."
)


def variance_latex(study: DkStudy) -> str:
    """The variance of q·k with and without the division, at the study's largest d_k."""
    return (
        rf"\mathrm{{Var}}(q\cdot k) \approx d_k:\quad d_k = {study.d_k[-1]}\ \Rightarrow\ "
        rf"{study.var_unscaled[-1]:.1f},\qquad \mathrm{{Var}}\!\left(\dfrac{{q\cdot k}}{{\sqrt{{d_k}}}}\right) "
        rf"= {study.var_scaled[-1]:.3f}"
    )


def entropy_text(study: DkStudy, max_h: float) -> str:
    """How the mean row entropy moves with d_k, unscaled and scaled (T keys a row)."""
    first, last = study.entropy_unscaled[0], study.entropy_unscaled[-1]
    moved = ("falls from", "to") if last < first else ("rises from", "to") if last > first else ("is", "and")
    text = (
        f"With T = {study.T} keys a row of weights can hold at most log₂(T) = {max_h:.2f} bits (all keys equal). "
        f"Unscaled, the mean entropy {moved[0]} {first:.2f} bits at d_k = {study.d_k[0]} {moved[1]} {last:.2f} bits "
        f"at d_k = {study.d_k[-1]}"
    )
    if last < 1 and max_h > 1:
        # -log2(mean top weight) <= mean(-log2 top weight) <= mean entropy < 1 bit
        text += ": below 1 bit, so the largest weight in a row is above 0.5 on average (one key gets most of it)"
    low, high = float(study.entropy_scaled.min()), float(study.entropy_scaled.max())
    return text + f". Scaled, it stays between {low:.2f} and {high:.2f} bits at every d_k."


# --------------------------------------------------------------------------- softmax vs sigmoid

COMPETITION = (
    "Both functions squash scores into (0, 1), but the softmax divides by the sum over all keys, so the "
    "weights always add up to 1: raising one score takes weight away from all the others. A sigmoid "
    "looks at each score alone, so the other values do not move and their sum can be anything."
)


def raise_caption(index: int, delta: float, labels: list[str]) -> str:
    """Which score the charts raise (or lower), and by how much."""
    verb = "Raising" if delta >= 0 else "Lowering"
    return f"{verb} score {int(index)} ({md_escape(labels[int(index)])}) by {abs(delta):g}."


def sums_latex(comp) -> str:
    """The sums of the softmax weights and of the sigmoid values after the raise."""
    return (
        rf"\sum_i \mathrm{{softmax}}(s)_i = {comp.softmax_sum:.4f},\qquad "
        rf"\sum_i \sigma(s_i) = \sum_i \frac{{1}}{{1 + \exp(-s_i)}} = {comp.sigmoid_sum:.4f}"
    )


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lab: lab_results.SoftmaxLab, hidden: bool) -> list[str]:
    """The footer's lines (the ×m outcome only once the prediction is revealed: ``hidden``)."""
    sat, study, comp = lab.saturation, lab.study, lab.competition
    lines = []
    if not hidden:
        lines.append(
            f"Multiplying the scores by {sat.multiplier:g} took the largest weight from {sat.weights.max():.2f} to "
            f"{sat.scaled_weights.max():.2f} and the entropy from {sat.entropy:.2f} to {sat.scaled_entropy:.2f} bits."
        )
    first, last = study.var_unscaled[0], study.var_unscaled[-1]
    moved = "grows" if last > first else "does not grow"
    low, high = float(study.var_scaled.min()), float(study.var_scaled.max())
    lines.append(
        f"Unscaled, the variance of q·k {moved} with d_k ({first:.2f} at d_k = {study.d_k[0]}, "
        f"{last:.{0 if last >= 10 else 2}f} at d_k = {study.d_k[-1]}); divided by √d_k it stays between "
        f"{low:.2f} and {high:.2f}."
    )
    lines.append(
        f"Softmax weights always add up to 1 ({comp.softmax_sum:.4f} here); sigmoid values need not "
        f"({comp.sigmoid_sum:.4f})."
    )
    return lines
