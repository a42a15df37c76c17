"""The words of "The articles, checked": its compute call, every sentence it computes from the
engine's checks, its formulas and tables, and its longer static prose.

Plain Python (no Streamlit): the page wraps the compute call in Streamlit's cache and places
each sentence next to the figure it explains; tests/unit/test_articles_words.py checks every
sentence against the numbers it states. The articles' own words are quoted, never used as results.
"""

from __future__ import annotations

import numpy as np

from attn_core import article_checks as ar
from attn_core.tables import number
from attn_core.walkthrough import latex_num
from ui.markup import md_escape
from ui.reader import Reader

SECTIONS = {
    "dot": "q · k by hand: the 3-number example",
    "causal": "The causal mask table",
    "rows": "Softmax over rows or over columns?",
    "shapes": f"Shapes: Q is {ar.SHAPES_T} × {ar.SHAPES_D_K}",
    "conventions": "Column vectors or row vectors",
    "winner": "Is softmax winner-takes-all?",
}
ROW_OF_FOUR = ("causal", "rows", "winner")  # four charts: on a projector in one row, the text below them
EDITABLE = tuple(name for name in ar.DEFAULT_VECTORS if name != "x_cat")  # x_cat has no W to act on
OURS = tuple(name for name in EDITABLE if name not in ar.GIVEN)
SATURATED = 0.9  # a row whose largest weight is at least this is called saturated
SCALE_LABEL = "Standard deviation s of the q and k entries (mean 0)"

INTRO = (
    "The introductory articles about self-attention that served as source material for this app are mostly "
    "right, but a few of their worked examples are not. This page redoes those examples with "
    "the app's own engine and shows, for each, what the article wrote and what the arithmetic really gives."
)


def lesson(texts: tuple[tuple[str, str], ...], scale: float, seed: int) -> ar.ArticlesLesson:
    """The page's one attn_core call."""
    return ar.articles_lesson(dict(texts), scale=scale, seed=seed)


# --------------------------------------------------------------------------- number formats


def g(value: float) -> str:
    """A number as typed (shortest form), with a real minus sign."""
    return f"{value:.4g}".replace("-", "−")


def vec(values: np.ndarray | tuple[float, ...]) -> str:
    return "[" + ", ".join(g(v) for v in values) + "]"


def _lg(value: float) -> str:
    """A number for LaTeX, shortest form."""
    return f"{value:.4g}"


def _factor(value: float) -> str:
    text = _lg(value)
    return f"({text})" if text.startswith("-") else text


def _paren(value: float, digits: int = 3) -> str:
    text = latex_num(value, digits)
    return f"({text})" if text.startswith("-") else text


def _signed_sum(values: np.ndarray) -> str:
    """'0.15 - 0.12 - 0.16' in LaTeX."""
    out = _lg(values[0])
    for v in values[1:]:
        out += f" - {_lg(-v)}" if v < 0 else f" + {_lg(v)}"
    return out


def _gap(value: float) -> str:
    """A difference that should be 0, for LaTeX: "0" when it is exactly 0."""
    return "0" if value == 0 else latex_num(value, 2)


def n3(value: float, digits: int = 3) -> str:
    return number(value, digits)


def _above(reader: Reader) -> str:
    """Where a section's charts are from its text: above on a projector (the text goes below them)."""
    return "above" if reader.presenting else "below"


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


# --------------------------------------------------------------------------- 3. rows or columns

ROWS_INTRO = (
    "The same notes write the scores in matrix form as S = QKᵀ, and their code normalises them with "
    "softmax(scores, dim=−1), the last axis. Only further down do they pass the scores “through a softmax "
    "function column-wise”. Which way is right depends on the layout. In S = QKᵀ row i holds query i's "
    "scores against every key, and each query's weights must add up to 1, so the softmax runs along each "
    "**row**, as their own code does. “Column-wise” is right only for their table, which puts the queries "
    "in columns."
)


def rows_latex(r: ar.RowsColumns) -> str:
    return (
        r"\max_{ij}\left|\operatorname{softmax}_{\text{columns}}(S^\top)^\top_{ij} - "
        rf"\operatorname{{softmax}}_{{\text{{rows}}}}(S)_{{ij}}\right| = {_gap(r.transposed_gap)}"
    )


def rows_text(r: ar.RowsColumns) -> str:
    """The row and column sums of both normalisations, and which gives each query weights that add to 1."""
    (rows_r, rows_c), (cols_r, cols_c) = r.row_sums, r.column_sums

    def span(a: np.ndarray) -> str:
        return f"from {n3(a.min())} to {n3(a.max())}"

    def adds_up(a: np.ndarray) -> bool:
        return bool(np.all(np.abs(a - 1) < 5e-4))

    which = {
        (True, False): "Only the first gives each query a set of weights that adds up to 1.",
        (True, True): "Here both give each query weights that add up to 1, but only the first does so for any scores.",
        (False, False): "Neither gives each query weights that add up to 1.",
        (False, True): "Only the second gives each query weights that add up to 1.",
    }[adds_up(rows_r), adds_up(rows_c)]
    return (
        "The same scaled scores (the head of section 2, no mask), both ways. Softmax over each row: row sums "
        f"{span(rows_r)}, column sums {span(cols_r)}. Softmax over each column: row sums {span(rows_c)}, column "
        f"sums {span(cols_c)}. {which}"
    )


# --------------------------------------------------------------------------- 4. shapes


def shapes_intro(s: ar.ShapeCheck) -> str:
    (T, d), d_k = s.x.shape, s.w_q.shape[1]
    return (
        f"The notes take an X with {T} rows (one per token) and {d} columns (d = {d}), and a $W^{{(q)}}$ with {d} "
        f"rows and {d_k} columns. They then say that $Q = XW^{{(q)}}$ “will have dimensions 16”, and write "
        r"one entry as $q_{i,j} = x_{i,1} w_{1,j} + x_{i,2} w_{2,j} + x_{i,3} w_{3,j} + x_{i,4} w_{4,j}$."
    )


def shapes_text(s: ar.ShapeCheck) -> str:
    (T, d), d_k, q_shape = s.x.shape, s.w_q.shape[1], s.q.shape
    return (
        f"A ({T} × {d}) matrix times a ({d} × {d_k}) matrix is **{q_shape[0]} × {q_shape[1]}**: one row per "
        f"token, one column per column of $W^{{(q)}}$. And each entry runs over the {d} columns of X, so the "
        f"sum has {d} terms, not {s.article_terms}. Here is $q_{{{s.i + 1},{s.j + 1}}}$ in full, with a random X "
        f"({T} words of the sentence below, d = {d}) and a random $W^{{(q)}}$:"
    )


def shapes_latex(s: ar.ShapeCheck) -> str:
    i, j, d = s.i + 1, s.j + 1, s.x.shape[1]
    terms = [f"{_paren(a)}\\times{_paren(b)}" for a, b in zip(s.x[s.i], s.w_q[:, s.j], strict=True)]
    half = len(terms) // 2
    return (
        r"\begin{aligned}"
        + rf"q_{{{i},{j}}} &= "
        + " + ".join(f"x_{{{i},{n + 1}}} w_{{{n + 1},{j}}}" for n in range(d))
        + r"\\"
        + "&= "
        + " + ".join(terms[:half])
        + r"\\ &\quad + "
        + " + ".join(terms[half:])
        + rf"\\ &= {latex_num(s.value, 4)}"
        + r"\end{aligned}"
    )


def shapes_stop_text(s: ar.ShapeCheck) -> str:
    return (
        f"Stopping after {s.article_terms} terms, as the notes' formula does, gives {n3(s.article_value, 4)} "
        f"instead of {n3(s.value, 4)}."
    )


def shapes_caption(s: ar.ShapeCheck) -> str:
    return f"X's rows: {md_escape(' '.join(s.tokens))}"


def dimensions_text(dm: ar.DimensionCheck) -> str:
    return (
        "The notes also say that queries and keys “typically” share one dimension d_k. For a dot product they "
        f"must: q·k multiplies their entries pair by pair. Give the engine a W_k with {dm.d_k + 1} columns beside "
        f"a W_q with {dm.d_k} and it refuses: “{md_escape(dm.mismatch_error)}”. The values are free: the notes "
        f"rightly say d_v need not equal d_k, and the head of section 2 with d_v = {dm.d_v} gives the same "
        f"weights (max |Δ| = {dm.weights_gap:g}) and an output of shape {dm.output_shape[0]} × "
        f"{dm.output_shape[1]}."
    )


# --------------------------------------------------------------------------- 5. conventions

CONVENTIONS_INTRO = (
    r"This app, like PyTorch, writes each token's vector $x_i$ as a **row**: $q_i = x_i W_q$, $Q = XW_q$ "
    r"is T × d_k and the scores are $QK^\top$. Kumar's article writes each token as a **column**, which in "
    r"this notation is $x_i^\top$: its input is a d × T matrix (64 × T), its query is the column "
    r"$W^q x_i^\top$, and it stacks the query columns into a Q of size 64 × T, so the scores are "
    r"$Q^\top K$ (T × T) and the output is $\operatorname{softmax}(Q^\top K)V^\top$ (T × 64)."
)
CONVENTIONS_CHAIN = (
    r"(W^q x_i^\top)^\top (W^k x_j^\top) = x_i\, (W^q)^\top W^k\, x_j^\top "
    r"= x_i\, W_q W_k^\top x_j^\top = q_i k_j^\top = (QK^\top)_{ij}"
)
CONVENTION_ROWS = ("Q", "K", "V", "scores: QᵀK or QKᵀ", "output: softmax(·)Vᵀ or softmax(·)V")


def conventions_text(cv: ar.Conventions) -> str:
    wr, wc = cv.w_q_shape
    typed = "is defined" if cv.w_q_times_column else "is not defined"
    rows, cols = cv.query_column_shape
    return (
        r"The course notes start with rows, as this app does: their X is T × d and $Q = XW^q$, so their "
        r"$W^q$ is d × d_q. Their bilinear form $(W^q x_i)^\top W^k x_j$ then switches to columns (their $x_i$ "
        r"there is a column, our $x_i^\top$), and there "
        f"$W^q$ has to be read transposed for the product to make sense. With the head of section 2, a $W^q$ "
        f"of {wr} × {wc} times a column of {wr} numbers {typed}; its transpose gives a query column of "
        f"{rows} × {cols}. Read that way, both conventions give the same numbers, with $W^q = W_q^\\top$:"
    )


def conventions_table(cv: ar.Conventions) -> dict[str, list[str]]:
    def shape(a: np.ndarray) -> str:
        return f"{a.shape[0]} × {a.shape[1]}"

    return {
        "columns (Kumar's article)": [shape(a) for a in (cv.q_col, cv.k_col, cv.v_col, cv.scores_col, cv.output_col)],
        "rows (this app)": [shape(a) for a in (cv.q, cv.k, cv.v, cv.scores_row, cv.output_row)],
    }


def conventions_latex(cv: ar.Conventions) -> str:
    return (
        rf"\max_{{ij}}\left|(Q^\top K)_{{\text{{columns}}}} - (QK^\top)_{{\text{{rows}}}}\right| = "
        rf"{_gap(cv.scores_gap)},\qquad \max\left|\text{{output}}_{{\text{{columns}}}} - "
        rf"\text{{output}}_{{\text{{rows}}}}\right| = {_gap(cv.output_gap)}"
    )


def conventions_caption(cv: ar.Conventions) -> str:
    T, d_k = cv.q.shape
    return (
        f"The head of section 2: T = {T}, d_k = {d_k}, d_v = {cv.v.shape[1]}. The scores are unscaled here; both "
        "outputs divide them by √d_k first."
    )


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
