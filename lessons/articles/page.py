"""The articles, checked: the reference articles' hand examples redone with the engine, with
the places where their numbers or words go wrong and the right numbers beside them.

Widgets first (each section's controls at its top), then one attn_core call, then the
figures. Every number in the text comes from that call.
"""

import numpy as np
import pandas as pd
import streamlit as st

from attn_core import article_checks as ar
from attn_core.figures import dim_labels
from attn_core.figures.context import mask_check
from attn_core.figures.lab import grouped_bars
from attn_core.tables import Table
from attn_core.walkthrough import latex_num
from ui import outline, present
from ui.charts import (
    show_attention,
    show_bars,
    show_figure,
    show_heatmap,
    show_mask,
    show_panels,
    show_scores,
    side_by_side,
)
from ui.common import md_escape
from ui.common import num as _n
from ui.footer import footer
from ui.present import Deck
from ui.state import PageState, Param

TITLES = (
    "q · k by hand: the 3-number example",
    "The causal mask table",
    "Softmax over rows or over columns?",
    f"Shapes: Q is {ar.SHAPES_T} × {ar.SHAPES_D_K}",
    "Column vectors or row vectors",
    "Is softmax winner-takes-all?",
)
KEEP = {"persist_state": "page"}  # a section's inputs keep their values while presenter mode hides them
EDITABLE = tuple(name for name in ar.DEFAULT_VECTORS if name != "x_cat")  # x_cat has no W to act on
OURS = tuple(name for name in EDITABLE if name not in ar.GIVEN)

state = PageState(
    "art",
    params=(
        Param("step", 1, "int", lo=1, hi=len(TITLES)),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("scale", 3.0, "choice", choices=ar.LEARNED_SCALES),
        *(Param(name, ar.format_vector(ar.DEFAULT_VECTORS[name]), "text", max_chars=120) for name in EDITABLE),
    ),
)


@st.cache_data(show_spinner=False, max_entries=256)
def _lesson(texts: tuple[tuple[str, str], ...], scale: float, seed: int) -> ar.ArticlesLesson:
    """The page's one attn_core call."""
    return ar.articles_lesson(dict(texts), scale=scale, seed=seed)


def _g(value: float) -> str:
    """A number as typed (shortest form), with a real minus sign."""
    return f"{value:.4g}".replace("-", "−")


def _vec(values: np.ndarray) -> str:
    return "[" + ", ".join(_g(v) for v in values) + "]"


def _lg(value: float) -> str:
    """A number for LaTeX, shortest form, negative ones in brackets when they are factors."""
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


def _reset_vectors() -> None:
    for name in EDITABLE:
        st.session_state[state.key(name)] = ar.format_vector(ar.DEFAULT_VECTORS[name])


# --------------------------------------------------------------------------- widgets

fresh = state.key(EDITABLE[0]) not in st.session_state  # the page's first run in this visit
state.start()
deck = Deck(TITLES, step_key=state.key("step"), numbered=True)
ROW_OF_FOUR = (1, 2, 5)  # sections with four charts: on a projector in one row, the text below them
outline.steps(deck)

st.title("The articles, checked")
present.intro(
    "The introductory articles about self-attention that served as source material for this app are mostly "
    "right, but a few of their worked examples are not. This page redoes those examples with "
    "the app's own engine and shows, for each, what the article wrote and what the arithmetic really gives."
)
deck.nav()
note = st.container()  # which sections a change changed, filled in once the checks have run

sections, row = [], None
for n, _title in enumerate(TITLES):
    if not deck.section(n, beside=n not in ROW_OF_FOUR):
        sections.append(None)
        continue
    if present.on() and n in ROW_OF_FOUR:
        row = present.chart_columns(4)
    if n == 0:
        for column, name in zip(present.control_columns(4), [g for g in ar.GIVEN if g != "x_cat"], strict=True):
            column.text_input(name, key=state.key(name), help="Three numbers separated by commas", **KEEP)
        with st.expander("Keys and values of the other words (ours, not the article's)"):
            ours = present.control_columns(4)
            for k, name in enumerate(OURS):
                ours[k % 4].text_input(name, key=state.key(name), help="Three numbers separated by commas", **KEEP)
        st.button("Back to the article's numbers", on_click=_reset_vectors, key=state.key("reset"))
    elif n == 1:
        present.control_columns([1, 2])[0].number_input(
            "Seed for the random vectors of sections 2 to 5",
            min_value=0,
            max_value=10_000,
            step=1,
            key=state.key("seed"),
            **KEEP,
        )
    elif n == 5:
        st.select_slider(
            "Standard deviation s of the learned q and k entries",
            options=ar.LEARNED_SCALES,
            key=state.key("scale"),
            **KEEP,
        )
    sections.append(st.container())

texts = tuple((name, str(state.value(name))) for name in EDITABLE)
lesson = _lesson(texts, float(state.value("scale")), int(state.value("seed")))
outline.changes(
    deck,
    tuple(
        outline.fingerprint(part)
        for part in (lesson.dot, lesson.causal, lesson.rows, lesson.shapes, lesson.conventions, lesson.winner)
    ),
    {
        **{name: value for name, value in texts},
        "Seed": state.value("seed"),
        "Standard deviation s": state.value("scale"),
    },
    fresh=fresh,
    where=note,
)
state.sync()

# --------------------------------------------------------------------------- 1. the 3-number example
if sections[0] is not None:
    with sections[0]:
        d = lesson.dot
        vec = d.vectors
        for name, why in d.problems:
            st.warning(f"{name}: {md_escape(why)}. Using the article's value {_vec(ar.DEFAULT_VECTORS[name])}.")
        st.markdown(
            "Kapoor's article *Global Self-Attention for Transformers* works out one score for the sentence "
            f"“The cat sat on the mat.” It gives “cat” the embedding x_cat = {_vec(vec['x_cat'])}, the query "
            f"q_cat = {_vec(ar.DEFAULT_VECTORS['q_cat'])} and mat's key k_mat = {_vec(ar.DEFAULT_VECTORS['k_mat'])}, "
            f"and then writes: *“For simplicity, let's say this results in a score of {_g(d.article_score)}.”* "
            "A dot product needs no simplifying: multiply the two vectors entry by entry, then add."
        )
        st.latex(
            r"q_{cat} \cdot k_{mat} = "
            + " + ".join(f"{_factor(a)}\\times{_factor(b)}" for a, b in zip(d.q, vec["k_mat"], strict=True))
            + rf" = {_signed_sum(d.terms)} = {_lg(d.score_mat)}"
        )
        if abs(d.score_mat - d.article_score) < 5e-3:
            st.markdown(f"With your numbers the product is {_g(d.score_mat)}, the article's number.")
        else:
            sign = (
                " The score is negative: cat's query points away from mat's key, which the softmax will turn into "
                "a small weight."
                if d.score_mat < 0
                else ""
            )
            st.markdown(
                f"The three terms add up to **{_g(d.score_mat)}**, not the {_g(d.article_score)} the article "
                f"states.{sign}"
            )
        st.caption(
            "The article gives x_cat but no W_q, W_k or W_v, so q_cat, k_cat and v_cat cannot be checked from it; "
            "we take them as given. Edit any vector above to try your own numbers."
        )

        st.subheader("The whole row: from scores to the output of “cat”")
        T = len(d.tokens)
        st.markdown(
            "The article stops at one score, but a softmax needs the scores of every word. The other words' keys "
            "and values are ours (in the box above; both “the” share one key and one value, as there are no "
            f"positions here). Then we follow the formula the article itself states, softmax(QKᵀ/√d_k)V, with "
            f"d_k = {len(d.q)}: each score is multiplied by 1/√{len(d.q)} = {_n(d.factor, 3)}."
        )
        rows = pd.DataFrame(
            {
                "token": list(d.tokens),
                "key k_j": [_vec(k) for k in d.k],
                "q_cat · k_j": [_n(s, 3) for s in d.scores],
                "÷ √d_k": [_n(s, 3) for s in d.scaled],
                "weight": [_n(w, 3) for w in d.weights],
                "value v_j": [_vec(v) for v in d.v],
            },
            index=pd.Index(range(T), name="j"),
        )
        st.table(rows)
        left, right = present.chart_columns(2)
        with left:
            show_bars(
                "art_cat_weights",
                d.tokens,
                d.weights,
                title="Weights of “cat” over the sentence",
                y_title="weight",
                y_range=(0, 1.05),
                row="cat",
                name="Weights of cat",
                row_title="query",
                col_title="key",
            )
        with right:
            show_panels(
                "art_cat_kv",
                [("K", d.k), ("V", d.v)],
                rows=d.tokens,
                cols=(*dim_labels(3, "k"), *dim_labels(3, "v")),
                title="Keys and values",
                row_title="token",
                col_title="entry",
                value_name="value",
            )
        first = [f"{latex_num(w, 3)}\\times{_factor(v)}" for w, v in zip(d.weights, d.v[:, 0], strict=True)]
        st.latex(
            r"\text{output}_{cat} = \sum_j w_j v_j = "
            + r"\begin{bmatrix}"
            + " & ".join(latex_num(o, 3) for o in d.output)
            + r"\end{bmatrix}"
        )
        half = (len(first) + 1) // 2
        st.latex(
            r"\begin{aligned}\text{first entry} &= "
            + " + ".join(first[:half])
            + r"\\ &\quad + "
            + " + ".join(first[half:])
            + rf"\\ &= {latex_num(d.output[0], 3)}\end{{aligned}}"
        )
        m = d.mat
        share = 1.0 / T
        relation = "less" if d.weights[m] < share else "more"
        st.markdown(
            f"“mat” gets weight {_n(d.weights[m], 3)}, {relation} than an even share 1/{T} = {_n(share, 3)}. Had "
            f"the score really been {_g(d.article_score)}, mat's weight would have been "
            f"{_n(d.article_weights[m], 3)}: the article's number changes the result, not just the working."
        )

# --------------------------------------------------------------------------- 2. the causal table
if sections[1] is not None:
    with sections[1]:
        c = lesson.causal
        T = len(c.tokens)
        st.markdown(
            "The course notes *Single-head self-attention* mask the scores of “The hiking trail led us through "
            f"bear country.” with T = {T} (they count the words and leave out the full stop; so do we). Their "
            "table puts the keys k_j in rows and the queries q_i in columns, so cell (k_j, q_i) holds q_iᵀk_j. "
            "A query may look at its own position and the ones before it, so a cell must be −∞ exactly when "
            "j > i: every cell below the diagonal."
        )

        def _cells(kept: np.ndarray) -> list[list[str]]:
            return [["qᵀk" if kept[j, i] else "−∞" for i in range(T)] for j in range(T)]

        keys = [f"k{j + 1} {t}" for j, t in enumerate(c.tokens)]
        queries = [f"q{i + 1}" for i in range(T)]
        wrong_by_row: dict[int, list[int]] = {}
        for j, i in c.wrong:
            wrong_by_row.setdefault(j, []).append(i)
        for j, cols in wrong_by_row.items():
            cells = " and ".join(f"q{i + 1}ᵀk{j + 1}" for i in cols)
            who = " and ".join(f"query {i + 1} (“{md_escape(c.tokens[i])}”)" for i in cols)
            st.markdown(
                f"The notes' row k{j + 1} starts with {int(np.sum(~c.article[j]))} cells of −∞; it needs "
                f"{int(np.sum(~c.correct[j]))}. They leave {cells} in, so {who} could look at key {j + 1} "
                f"(“{md_escape(c.tokens[j])}”), a word that comes after them. Every other row is right."
            )
        tables_ = (
            ("article", c.article, c.wrong, "The notes' table"),
            ("correct", c.correct, (), "The correct table"),
        )
        for column, (name, kept, wrong, title) in zip(row[:2] if row else st.columns(2), tables_, strict=True):
            with column:
                show_mask(
                    f"art_causal_{name}",
                    kept,
                    keys,
                    queries,
                    title=title,
                    name=f"{title} (1 = score kept)",
                    row_title="key",
                    col_title="query",
                    builder=mask_check,
                    cell_text=_cells(kept),
                    wrong=wrong,
                )
        leaks = "; ".join(
            f"“{md_escape(c.tokens[i])}” gives {_n(w, 3)} of its weight to “{md_escape(c.tokens[j])}”"
            for (j, i), w in zip(c.wrong, c.leaked, strict=True)
        )
        x_shape = c.steps_correct.x.shape
        st.markdown(
            f"What the slip does, with one head of random weights (d_model = {x_shape[1]}, d_k = "
            f"{c.steps_correct.d_k}): under the notes' mask, {leaks}. With the correct mask every weight on a "
            f"later word is exactly {c.future_weight:g}: e to the power −∞ is 0, not just close to 0. The "
            f"charts {'above' if present.on() else 'below'} use this app's layout, queries in rows."
        )
        side_by_side(
            lambda key, w, name: show_attention(key, w, c.tokens, title=name),
            ("art_causal_w_article", c.steps_article.weights, "Weights with the notes' mask"),
            ("art_causal_w_correct", c.steps_correct.weights, "Weights with the causal mask"),
            columns=row[2:] if row else None,
        )
        dc = lesson.decoder
        st.markdown(
            "Another article leaves the mask out altogether. Callebaut's *Understanding Transformers (Part 2)* "
            "says that in self-attention each token “attends to all other tokens, including itself”, and that "
            "this is “used in both the encoder and decoder layers”, without a word about the mask. In a decoder "
            "that would let every word see the words after it. Change only the last word "
            f"(“{md_escape(dc.tokens[-1])}” to “{md_escape(dc.changed[-1])}”) and, with the head above and no "
            "mask, the outputs of the "
            f"{len(dc.tokens) - 1} words before it move by up to {_n(dc.unmasked_change, 3)}; with the causal "
            f"mask they move by {dc.causal_change:g}."
        )
        st.caption(
            "A name to read with care: one of the overviews ends by naming “Dilated Attention” as an answer to "
            "the T × T cost. That is LongNet's dilated attention (Ding et al., 2023): the sequence is cut into "
            "segments, each thinned out by a dilation rate, with different rates in different heads. The dilated "
            "mask on the Masks and cost page is a different scheme with a similar name: a sliding window with gaps."
        )

# --------------------------------------------------------------------------- 3. rows or columns
if sections[2] is not None:
    with sections[2]:
        r = lesson.rows
        row_sums, col_sums = r.row_sums, r.column_sums
        st.markdown(
            "The same notes write the scores in matrix form as S = QKᵀ, and their code normalises them with "
            "softmax(scores, dim=−1), the last axis. Only further down do they pass the scores “through a softmax "
            "function column-wise”. Which way is right depends on the layout. In S = QKᵀ row i holds query i's "
            "scores against every key, and each query's weights must add up to 1, so the softmax runs along each "
            "**row**, as their own code does. “Column-wise” is right only for their table, which puts the queries "
            "in columns."
        )
        st.latex(
            r"\max_{ij}\left|\operatorname{softmax}_{\text{columns}}(S^\top)^\top_{ij} - "
            rf"\operatorname{{softmax}}_{{\text{{rows}}}}(S)_{{ij}}\right| = {_gap(r.transposed_gap)}"
        )
        st.markdown(
            f"The same scaled scores (the head of section 2, no mask), both ways. Softmax over each row: row sums "
            f"from {_n(row_sums[0].min(), 3)} to {_n(row_sums[0].max(), 3)}, column sums from "
            f"{_n(col_sums[0].min(), 3)} to {_n(col_sums[0].max(), 3)}. Softmax over each column: row sums from "
            f"{_n(row_sums[1].min(), 3)} to {_n(row_sums[1].max(), 3)}, column sums from "
            f"{_n(col_sums[1].min(), 3)} to {_n(col_sums[1].max(), 3)}. Only the first gives each query a set of "
            "weights that adds up to 1."
        )

        def _sums(key: str, sums: np.ndarray, what: str) -> None:
            series = {"softmax over rows": sums[0], "softmax over columns": sums[1]}
            table = Table(
                np.stack([sums[0], sums[1]], axis=1),
                rows=r.tokens,
                cols=tuple(series),
                name=what,
                kind="lines",
                row_title="token",
                col_title="softmax",
            )
            fig = grouped_bars(list(r.tokens), series, title=what, y_title="sum", fmt=".3f")
            show_figure(fig, key=key, table=table)

        side_by_side(
            lambda key, w, name: show_attention(key, w, r.tokens, title=name),
            ("art_rows", r.by_row, "Softmax over each row (right)"),
            ("art_columns", r.by_column, "Softmax over each column (wrong here)"),
            columns=row[:2] if row else None,
        )
        side_by_side(
            _sums,
            ("art_row_sums", row_sums, "Row sums"),
            ("art_col_sums", col_sums, "Column sums"),
            columns=row[2:] if row else None,
        )

# --------------------------------------------------------------------------- 4. shapes
if sections[3] is not None:
    with sections[3]:
        s = lesson.shapes
        (T, d), (_, d_k), q_shape = s.x.shape, s.w_q.shape, s.q.shape
        i, j = s.i + 1, s.j + 1
        st.markdown(
            f"The notes take an X with {T} rows (one per token) and {d} columns (d = {d}), and a $W^{{(q)}}$ with "
            f"{d} rows and {d_k} columns. They then say that $Q = XW^{{(q)}}$ “will have dimensions 16”, and write "
            r"one entry as $q_{i,j} = x_{i,1} w_{1,j} + x_{i,2} w_{2,j} + x_{i,3} w_{3,j} + x_{i,4} w_{4,j}$."
        )
        st.markdown(
            f"A ({T} × {d}) matrix times a ({d} × {d_k}) matrix is **{q_shape[0]} × {q_shape[1]}**: one row per "
            f"token, one column per column of $W^{{(q)}}$. And each entry runs over the {d} columns of X, so the "
            f"sum has {d} terms, not {s.article_terms}. Here is $q_{{{i},{j}}}$ in full, with a random X ({T} words "
            f"of the sentence below, d = {d}) and a random $W^{{(q)}}$:"
        )
        terms = [f"{_paren(a)}\\times{_paren(b)}" for a, b in zip(s.x[s.i], s.w_q[:, s.j], strict=True)]
        half = len(terms) // 2
        st.latex(
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
        st.markdown(
            f"Stopping after {s.article_terms} terms, as the notes' formula does, gives "
            f"{_n(s.article_value, 4)} instead of {_n(s.value, 4)}."
        )
        st.caption(f"X's rows: {md_escape(' '.join(s.tokens))}")
        left, right = present.chart_columns(2)
        with left:
            show_panels(
                "art_shapes_xq",
                [("X", s.x), ("Q", s.q)],  # not "Q = XW": it ran into "X" on a narrow chart
                rows=s.tokens,
                cols=(*dim_labels(d, "x"), *dim_labels(d_k, "q")),
                title=f"X ({T} × {d}) and Q ({q_shape[0]} × {q_shape[1]})",
                name="X and Q",
                row_title="token",
                col_title="column",
                value_name="value",
                fmt=".1f",
            )
        with right:
            show_heatmap(
                "art_shapes_w",
                s.w_q,
                rows=dim_labels(d),
                cols=dim_labels(d_k, "q"),
                title=f"W_q ({d} × {d_k})",
                value_name="w",
                fmt=".2f",
            )
        dm = lesson.dimensions
        st.markdown(
            f"The notes also say that queries and keys “typically” share one dimension d_k. For a dot product they "
            f"must: q·k multiplies their entries pair by pair. Give the engine a W_k with {dm.d_k + 1} columns "
            f"beside a W_q with {dm.d_k} and it refuses: “{md_escape(dm.mismatch_error)}”. The values are free: "
            f"the notes rightly say d_v need not equal d_k, and the head of section 2 with d_v = {dm.d_v} gives "
            f"the same weights (max |Δ| = {dm.weights_gap:g}) and an output of shape {dm.output_shape[0]} × "
            f"{dm.output_shape[1]}."
        )

# --------------------------------------------------------------------------- 5. conventions
if sections[4] is not None:
    with sections[4]:
        cv = lesson.conventions
        T, d_k = cv.q.shape
        d_v = cv.v.shape[1]
        wr, wc = cv.w_q_shape
        typed = "is defined" if cv.w_q_times_column else "is not defined"
        st.markdown(
            r"This app, like PyTorch, writes each token's vector $x_i$ as a **row**: $q_i = x_i W_q$, $Q = XW_q$ "
            r"is T × d_k and the scores are $QK^\top$. Kumar's article writes each token as a **column**, which in "
            r"this notation is $x_i^\top$: its input is a d × T matrix (64 × T), its query is the column "
            r"$W^q x_i^\top$, and it stacks the query columns into a Q of size 64 × T, so the scores are "
            r"$Q^\top K$ (T × T) and the output is $\operatorname{softmax}(Q^\top K)V^\top$ (T × 64)."
        )
        st.markdown(
            r"The course notes start with rows, as this app does: their X is T × d and $Q = XW^q$, so their "
            r"$W^q$ is d × d_q. Their bilinear form $(W^q x_i)^\top W^k x_j$ then switches to columns (their $x_i$ "
            r"there is a column, our $x_i^\top$), and there "
            f"$W^q$ has to be read transposed for the product to make sense. With the head of section 2, a $W^q$ "
            f"of {wr} × {wc} times a column of {wr} numbers {typed}; its transpose gives a query column of "
            f"{cv.query_column_shape[0]} × {cv.query_column_shape[1]}. Read that way, both conventions give the "
            r"same numbers, with $W^q = W_q^\top$:"
        )
        st.latex(
            r"(W^q x_i^\top)^\top (W^k x_j^\top) = x_i\, (W^q)^\top W^k\, x_j^\top "
            r"= x_i\, W_q W_k^\top x_j^\top = q_i k_j^\top = (QK^\top)_{ij}"
        )
        shapes = pd.DataFrame(
            {
                "columns (Kumar's article)": [
                    f"{a} × {b}"
                    for a, b in (
                        cv.q_col.shape,
                        cv.k_col.shape,
                        cv.v_col.shape,
                        cv.scores_col.shape,
                        cv.output_col.shape,
                    )
                ],
                "rows (this app)": [
                    f"{a} × {b}"
                    for a, b in (cv.q.shape, cv.k.shape, cv.v.shape, cv.scores_row.shape, cv.output_row.shape)
                ],
            },
            index=pd.Index(["Q", "K", "V", "scores: QᵀK or QKᵀ", "output: softmax(·)Vᵀ or softmax(·)V"], name="array"),
        )
        st.table(shapes)
        st.latex(
            rf"\max_{{ij}}\left|(Q^\top K)_{{\text{{columns}}}} - (QK^\top)_{{\text{{rows}}}}\right| = "
            rf"{_gap(cv.scores_gap)},\qquad \max\left|\text{{output}}_{{\text{{columns}}}} - "
            rf"\text{{output}}_{{\text{{rows}}}}\right| = {_gap(cv.output_gap)}"
        )
        st.caption(
            f"The head of section 2: T = {T}, d_k = {d_k}, d_v = {d_v}. The scores are unscaled here; both outputs "
            "divide them by √d_k first."
        )
        side_by_side(
            lambda key, z, name: show_scores(key, z, cv.tokens, title=name),
            ("art_conv_col", cv.scores_col, "QᵀK, token vectors as columns"),
            ("art_conv_row", cv.scores_row, "QKᵀ, token vectors as rows"),
        )

# --------------------------------------------------------------------------- 6. winner takes all?
if sections[5] is not None:
    with sections[5]:
        w = lesson.winner
        lab = w.lab
        n = len(lab.scores)
        st.markdown(
            "Kapoor's article says the softmax was chosen for “its ability to create a winner-takes-all scenario”, "
            "with the lower scores “nearly zeroed out”; the course notes say that dividing by √d_k prevents the "
            "softmax from saturating. Both are only half true."
        )
        st.markdown(
            f"**The softmax alone does not make a winner take all.** Take the softmax lab's own scores ({n} scores "
            f"drawn from N(0, 1), seed 0) at m = 1: the largest weight is {_n(lab.weights.max(), 3)} and the "
            f"entropy is **{_n(lab.entropy, 2)} bits** of a possible {_n(w.max_entropy, 2)} (log₂ {n}, every key "
            f"equal). Multiply the same scores by {lab.multiplier:g} and the entropy falls to "
            f"{_n(lab.scaled_entropy, 3)} bits, with a top weight of {_n(lab.scaled_weights.max(), 3)}. The winner "
            "takes all only when the gaps between the scores are large."
        )
        labels = [f"s{k}" for k in range(n)]
        side_by_side(
            lambda key, w, name: show_bars(
                key, labels, w, title=f"Weights {name}", y_title="weight", y_range=(0, 1.1), col_title="score"
            ),
            ("art_win_m1", lab.weights, "softmax(s), m = 1"),
            ("art_win_m100", lab.scaled_weights, f"softmax({lab.multiplier:g}·s)"),
            columns=row[:2] if row else None,
        )
        st.markdown(
            "**Dividing by √d_k removes only the growth with d_k.** For q and k with independent entries of "
            "standard deviation s, Var(q·k) = d_k·s⁴. Dividing by √d_k leaves s⁴: that is 1 when s = 1, but "
            "nothing stops training from making q and k larger."
        )
        st.latex(
            rf"s = {w.scale:g},\ d_k = {w.d_k}:\quad \mathrm{{Var}}(q\cdot k) = {w.var_raw:.1f}\ "
            rf"(d_k s^4 = {w.expected_raw:g}),\qquad \mathrm{{Var}}\!\left(\frac{{q\cdot k}}{{\sqrt{{d_k}}}}\right) "
            rf"= {w.var_scaled:.2f}\ (s^4 = {w.expected_scaled:g})"
        )
        st.markdown(
            f"Over {w.rows} rows of {len(w.row_scaled)} such scaled scores, the mean entropy is "
            f"**{_n(w.mean_entropy, 2)} bits** and the largest weight averages {_n(w.mean_top, 2)}; with s = 1 "
            f"they are {_n(w.unit_mean_entropy, 2)} bits and {_n(w.unit_mean_top, 2)}. The scaled row "
            f"{'above' if present.on() else 'below'} still "
            f"saturates: its top weight is {_n(w.row_weights.max(), 3)} and its entropy {_n(w.row_entropy, 3)} bits."
        )
        keys = [f"k{k}" for k in range(len(w.row_weights))]
        scores = {
            "title": "One row of scaled scores q·k/√d_k",
            "y_title": "score",
            "fmt": ".1f",
            "name": "Scaled scores",
        }
        weights = {"title": "Its softmax weights", "y_title": "weight", "y_range": (0, 1.1)}
        side_by_side(
            lambda key, values, labels: show_bars(key, keys, values, col_title="key", **labels),
            ("art_win_scores", w.row_scaled, scores),
            ("art_win_weights", w.row_weights, {**weights, "name": "Softmax of the scaled scores"}),
            columns=row[2:] if row else None,
        )


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: ar.ArticlesLesson) -> list[str]:
    """The footer's lines, from this run's checks."""
    d, c, w = lesson.dot, lesson.causal, lesson.winner
    same = abs(d.score_mat - d.article_score) < 5e-3
    return [
        f"The 3-number example: q_cat · k_mat is {_g(d.score_mat)}, "
        + (f"the article's {_g(d.article_score)}." if same else f"not the article's {_g(d.article_score)}."),
        f"The article's causal table keeps {len(c.wrong)} scores that look into the future; the causal mask keeps "
        "only the keys j ≤ i.",
        f"With learned-like scores (s = {w.scale:g}) the scaled row still saturates: its top weight is "
        f"{_n(w.row_weights.max(), 3)}.",
    ]


footer(__file__, what_it_showed(lesson), deck)
