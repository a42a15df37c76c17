"""Sections 3 to 5, on how the matrices are laid out: softmax over rows or columns, the shapes of Q,
and column or row vectors.
"""

from __future__ import annotations

import numpy as np

from attn_core import article_checks as ar
from attn_core.walkthrough import latex_num
from lessons.articles.words.format import _gap, _paren, n3
from ui.markup import md_escape

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
