"""Section 6: is softmax winner-takes-all? Then what the page showed (its footer)."""

from __future__ import annotations

from attn_core import article_checks as ar
from lessons.articles.words.calls import SATURATED
from lessons.articles.words.format import _above, g, n3
from ui.reader import Reader

# --------------------------------------------------------------------------- 6. winner takes all?

WINNER_INTRO = (
    "Kapoor's article says the softmax was chosen for “its ability to create a winner-takes-all scenario”, "
    "with the lower scores “nearly zeroed out”; the course notes say that dividing by √d_k prevents the "
    "softmax from saturating. Both are only half true."
)
SCALING_TEXT = (
    "**Dividing by √d_k removes only the growth with d_k.** For q and k with independent entries of mean 0 and "
    "standard deviation s, Var(q·k) = d_k·s⁴. Dividing by √d_k leaves s⁴: that is 1 when s = 1, but nothing "
    "stops training from making q and k larger. The slider's larger s are an illustration of that, not values "
    "measured in a trained model."
)


def softmax_text(w: ar.WinnerCheck) -> str:
    """The lab's scores at m = 1 and multiplied: the entropy in bits, against its maximum."""
    lab, n = w.lab, len(w.lab.scores)
    return (
        f"**The softmax alone does not make a winner take all.** Take the softmax lab's own scores ({n} scores "
        f"drawn from N(0, 1), seed 0) at m = 1: the largest weight is {n3(lab.weights.max())} and the entropy is "
        f"**{n3(lab.entropy, 2)} bits** of a possible {n3(w.max_entropy, 2)} (log₂ {n}, every key equal). "
        f"Multiply the same scores by {lab.multiplier:g} and the entropy falls to {n3(lab.scaled_entropy)} bits, "
        f"with a top weight of {n3(lab.scaled_weights.max())}. The winner takes all only when the gaps between "
        "the scores are large."
    )


def winner_latex(w: ar.WinnerCheck) -> str:
    return (
        rf"s = {w.scale:g},\ d_k = {w.d_k}:\quad \mathrm{{Var}}(q\cdot k) = {w.var_raw:.1f}\ "
        rf"(d_k s^4 = {w.expected_raw:g}),\qquad \mathrm{{Var}}\!\left(\frac{{q\cdot k}}{{\sqrt{{d_k}}}}\right) "
        rf"= {w.var_scaled:.2f}\ (s^4 = {w.expected_scaled:g})"
    )


def _scores_named(w: ar.WinnerCheck) -> str:
    return "scores of unit size (s = 1)" if w.scale == 1 else f"larger scores (s = {w.scale:g}, an illustration)"


def saturation_text(w: ar.WinnerCheck, reader: Reader) -> str:
    """The scaled rows' entropy and top weight, and whether the row on the charts saturates."""
    top = float(w.row_weights.max())
    does = "still saturates" if top >= SATURATED else "does not saturate"
    return (
        f"With {_scores_named(w)}, over {w.rows} rows of {len(w.row_scaled)} scaled scores, the mean entropy is "
        f"**{n3(w.mean_entropy, 2)} bits** and the largest weight averages {n3(w.mean_top, 2)}; with s = 1 they "
        f"are {n3(w.unit_mean_entropy, 2)} bits and {n3(w.unit_mean_top, 2)}. The scaled row {_above(reader)} "
        f"{does}: its top weight is {n3(top)} and its entropy {n3(w.row_entropy)} bits."
    )


def key_labels_winner(w: ar.WinnerCheck) -> list[str]:
    return [f"k{k}" for k in range(len(w.row_weights))]


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: ar.ArticlesLesson) -> list[str]:
    """The footer's lines, from this run's checks."""
    d, c, w = lesson.dot, lesson.causal, lesson.winner
    same = abs(d.score_mat - d.article_score) < 5e-3
    top = float(w.row_weights.max())
    return [
        f"The 3-number example: q_cat · k_mat is {g(d.score_mat)}, "
        + (f"the article's {g(d.article_score)}." if same else f"not the article's {g(d.article_score)}."),
        f"The article's causal table keeps {len(c.wrong)} scores that look into the future; the causal mask keeps "
        "only the keys j ≤ i.",
        f"With {_scores_named(w)} the scaled row {'still saturates' if top >= SATURATED else 'does not saturate'}: "
        f"its top weight is {n3(top)}.",
    ]
