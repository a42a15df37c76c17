"""Section 1: q · k by hand, the articles' 3-number example."""

from __future__ import annotations

from attn_core import article_checks as ar
from attn_core.walkthrough import latex_num
from lessons.articles.words.format import _factor, _lg, _signed_sum, g, n3, vec
from ui.markup import md_escape

# --------------------------------------------------------------------------- 1. the 3-number example


def problem_text(name: str, why: str) -> str:
    """A vector the student typed that could not be read, and the article's value used instead."""
    return f"{name}: {md_escape(why)}. Using the article's value {vec(ar.DEFAULT_VECTORS[name])}."


def dot_intro(d: ar.DotExample) -> str:
    return (
        "Kapoor's article *Global Self-Attention for Transformers* works out one score for the sentence "
        f"“The cat sat on the mat.” It gives “cat” the embedding x_cat = {vec(d.vectors['x_cat'])}, the query "
        f"q_cat = {vec(ar.DEFAULT_VECTORS['q_cat'])} and mat's key k_mat = {vec(ar.DEFAULT_VECTORS['k_mat'])}, "
        f"and then writes: *“For simplicity, let's say this results in a score of {g(d.article_score)}.”* "
        "A dot product needs no simplifying: multiply the two vectors entry by entry, then add."
    )


def dot_latex(d: ar.DotExample) -> str:
    products = " + ".join(f"{_factor(a)}\\times{_factor(b)}" for a, b in zip(d.q, d.vectors["k_mat"], strict=True))
    return rf"q_{{cat}} \cdot k_{{mat}} = {products} = {_signed_sum(d.terms)} = {_lg(d.score_mat)}"


def dot_result(d: ar.DotExample) -> str:
    """The product against the article's 0.24."""
    if abs(d.score_mat - d.article_score) < 5e-3:
        return f"With your numbers the product is {g(d.score_mat)}, the article's number."
    sign = (
        " The score is negative: cat's query points away from mat's key, which the softmax will turn into a small "
        "weight."
        if d.score_mat < 0
        else ""
    )
    return f"The three terms add up to **{g(d.score_mat)}**, not the {g(d.article_score)} the article states.{sign}"


DOT_CAPTION = (
    "The article gives x_cat but no W_q, W_k or W_v, so q_cat, k_cat and v_cat cannot be checked from it; we take "
    "them as given. Edit any vector above to try your own numbers."
)


def row_intro(d: ar.DotExample) -> str:
    return (
        "The article stops at one score, but a softmax needs the scores of every word. The other words' keys "
        "and values are ours (in the box above; both “the” share one key and one value, as there are no "
        "positions here). Then we follow the formula the article itself states, softmax(QKᵀ/√d_k)V, with "
        f"d_k = {len(d.q)}: each score is multiplied by 1/√{len(d.q)} = {n3(d.factor)}."
    )


def row_table(d: ar.DotExample) -> dict[str, list[str]]:
    """The whole row, one column per step (the page indexes it by j)."""
    return {
        "token": list(d.tokens),
        "key k_j": [vec(k) for k in d.k],
        "q_cat · k_j": [n3(s) for s in d.scores],
        "÷ √d_k": [n3(s) for s in d.scaled],
        "weight": [n3(w) for w in d.weights],
        "value v_j": [vec(v) for v in d.v],
    }


def output_latex(d: ar.DotExample) -> str:
    row = " & ".join(latex_num(o, 3) for o in d.output)
    return r"\text{output}_{cat} = \sum_j w_j v_j = \begin{bmatrix}" + row + r"\end{bmatrix}"


def first_entry_latex(d: ar.DotExample) -> str:
    first = [f"{latex_num(w, 3)}\\times{_factor(v)}" for w, v in zip(d.weights, d.v[:, 0], strict=True)]
    half = (len(first) + 1) // 2
    return (
        r"\begin{aligned}\text{first entry} &= "
        + " + ".join(first[:half])
        + r"\\ &\quad + "
        + " + ".join(first[half:])
        + rf"\\ &= {latex_num(d.output[0], 3)}\end{{aligned}}"
    )


def mat_text(d: ar.DotExample) -> str:
    """Mat's weight against an even share, and what the article's score would have made it."""
    m, T = d.mat, len(d.tokens)
    share = 1.0 / T
    relation = "less" if d.weights[m] < share else "more" if d.weights[m] > share else "exactly as much"
    changes = (
        "the article's number changes the result, not just the working."
        if abs(d.article_weights[m] - d.weights[m]) >= 5e-4
        else "with your numbers the article's score changes nothing you can see."
    )
    return (
        f"“mat” gets weight {n3(d.weights[m])}, {relation} than an even share 1/{T} = {n3(share)}. Had the score "
        f"really been {g(d.article_score)}, mat's weight would have been {n3(d.article_weights[m])}: {changes}"
    )
