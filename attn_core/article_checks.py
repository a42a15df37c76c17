"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

The reference articles' hand examples, redone with the engine: one call for the page
"The articles, checked".

Each part holds what the article wrote (``ARTICLE_*``: quoted, never used as a result) and
what the arithmetic really gives. NumPy and the standard library only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .engine import AttentionSteps, _rng_for, attention_steps, causal_mask, embed, entropy, init_weights, softmax
from .experiments import Saturation, max_entropy, random_scores, saturation

__all__ = [
    "ARTICLE_CAUSAL_LEAD",
    "ARTICLE_SCORE",
    "CAT_TOKENS",
    "DEFAULT_VECTORS",
    "GIVEN",
    "LEARNED_SCALES",
    "ArticlesLesson",
    "CausalCheck",
    "Conventions",
    "DecoderCheck",
    "DimensionCheck",
    "DotExample",
    "RowsColumns",
    "ShapeCheck",
    "WinnerCheck",
    "article_causal_mask",
    "articles_lesson",
    "causal_check",
    "conventions",
    "decoder_check",
    "dimension_check",
    "dot_example",
    "format_vector",
    "longnet_rows",
    "parse_vector",
    "rows_columns",
    "shape_check",
    "winner_check",
]

# --------------------------------------------------------------------------- what the articles wrote

# Kapoor, "Global Self-Attention for Transformers": q_cat . k_mat, "For simplicity, let's say
# this results in a score of 0.24."
ARTICLE_SCORE = 0.24
# "The hiking trail led us through bear country." (T = 8): the masked score table, rows k_1..k_8,
# columns q_1..q_8. Entry j is how many -inf cells row k_j starts with; row k_6 has 3, not 5.
ARTICLE_CAUSAL_LEAD = (0, 1, 2, 3, 4, 3, 6, 7)
ARTICLE_SENTENCE = "The hiking trail led us through bear country."
# A 16-token X for the shapes example (the article's X is 16 x 8 and its W^(q) is 8 x 4).
SHAPES_SENTENCE = "The hiking trail led us through bear country and we saw two bears near the river"
SHAPES_T, SHAPES_D, SHAPES_D_K = 16, 8, 4

# --------------------------------------------------------------------------- the 3-number example

DIM = 3
CAT_TOKENS = ("the", "cat", "sat", "on", "the", "mat")
QUERY = 1  # "cat" asks
# The article gives x_cat, q_cat, k_cat, v_cat and k_mat; the rest are ours, so that "cat" has a
# whole sentence to look at. Both "the" share one key and one value (no positions here).
GIVEN = ("x_cat", "q_cat", "k_cat", "v_cat", "k_mat")
DEFAULT_VECTORS: dict[str, tuple[float, ...]] = {
    "x_cat": (0.2, -0.1, 0.9),
    "q_cat": (0.5, -0.3, 0.8),
    "k_the": (0.05, 0.0, 0.1),
    "k_cat": (0.1, 0.2, -0.1),
    "k_sat": (0.4, -0.2, 0.6),
    "k_on": (-0.3, 0.1, 0.1),
    "k_mat": (0.3, 0.4, -0.2),
    "v_the": (0.0, 0.2, 0.1),
    "v_cat": (1.0, 0.1, 0.5),
    "v_sat": (0.2, 0.9, -0.3),
    "v_on": (-0.1, 0.3, 0.4),
    "v_mat": (0.6, -0.4, 0.8),
}
LEARNED_SCALES = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0)  # std of the q and k entries: 1, then larger, an illustration
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def format_vector(values: tuple[float, ...] | np.ndarray) -> str:
    """A vector as the text box shows it: "0.5, -0.3, 0.8"."""
    return ", ".join(f"{float(v):g}" for v in values)


def parse_vector(text: str, n: int = DIM) -> np.ndarray:
    """Numbers typed as "0.5, -0.3, 0.8" (commas or spaces, brackets and the sign − allowed).

    Returns: vector (n,). Raises ValueError naming what was wrong.
    """
    cleaned = str(text).replace("\u2212", "-").replace("[", " ").replace("]", " ")
    parts = [p for p in re.split(r"[\s,;]+", cleaned.strip()) if p]
    if len(parts) != n or not all(_NUMBER.fullmatch(p) for p in parts):
        raise ValueError(f"expected {n} numbers separated by commas, e.g. 0.5, -0.3, 0.8")
    values = np.array([float(p) for p in parts])
    if not np.all(np.isfinite(values)) or np.any(np.abs(values) > 1e6):
        raise ValueError("every number must be finite and at most 1e6 in size")
    return values


@dataclass(frozen=True)
class DotExample:
    """ "cat" asks every word of "the cat sat on the mat": one query row, every step."""

    tokens: tuple[str, ...]  # T = 6
    vectors: dict[str, np.ndarray]  # name -> (3,), the values used (the user's where valid)
    problems: tuple[tuple[str, str], ...]  # (name, why) for each text that fell back to the default
    q: np.ndarray  # (d_k,) q_cat
    k: np.ndarray  # (T, d_k)
    v: np.ndarray  # (T, d_v)
    terms: np.ndarray  # (d_k,) q_cat * k_mat, element by element
    score_mat: float  # q_cat . k_mat
    article_score: float  # the article's 0.24
    scores: np.ndarray  # (T,) k @ q
    factor: float  # 1 / sqrt(d_k)
    scaled: np.ndarray  # (T,)
    weights: np.ndarray  # (T,) softmax(scaled)
    output: np.ndarray  # (d_v,) weights @ v
    article_weights: np.ndarray  # (T,) the same row with mat's score replaced by the article's

    @property
    def mat(self) -> int:
        return self.tokens.index("mat")


def _vectors(texts: dict[str, str] | None) -> tuple[dict[str, np.ndarray], tuple[tuple[str, str], ...]]:
    vectors, problems = {}, []
    for name, default in DEFAULT_VECTORS.items():
        text = (texts or {}).get(name)
        try:
            vectors[name] = parse_vector(text) if text is not None else np.array(default)
        except ValueError as err:
            problems.append((name, str(err)))
            vectors[name] = np.array(default)
    return vectors, tuple(problems)


def dot_example(texts: dict[str, str] | None = None) -> DotExample:
    """The article's numbers (or the user's ``texts``, name -> "a, b, c") through one query row.

    Returns: DotExample with weights (T,) and output (d_v,)
    """
    vectors, problems = _vectors(texts)
    q = vectors["q_cat"]
    k = np.stack([vectors[f"k_{t}"] for t in CAT_TOKENS])  # (T, d_k)
    v = np.stack([vectors[f"v_{t}"] for t in CAT_TOKENS])  # (T, d_v)
    scores = k @ q  # (T, d_k) @ (d_k,) -> (T,)
    factor = 1.0 / math.sqrt(DIM)
    weights = softmax(scores * factor)
    mat = CAT_TOKENS.index("mat")
    article_scores = np.where(np.arange(len(CAT_TOKENS)) == mat, ARTICLE_SCORE, scores)
    terms = q * vectors["k_mat"]
    return DotExample(
        tokens=CAT_TOKENS,
        vectors=vectors,
        problems=problems,
        q=q,
        k=k,
        v=v,
        terms=terms,
        score_mat=float(np.sum(terms)),
        article_score=ARTICLE_SCORE,
        scores=scores,
        factor=factor,
        scaled=scores * factor,
        weights=weights,
        output=weights @ v,  # (T,) @ (T, d_v) -> (d_v,)
        article_weights=softmax(article_scores * factor),
    )


# --------------------------------------------------------------------------- the causal table


def _words(text: str) -> tuple[str, ...]:
    """The article's counting: words only, no punctuation."""
    return tuple(re.findall(r"\w+", text))


def article_causal_mask(lead: tuple[int, ...] = ARTICLE_CAUSAL_LEAD) -> np.ndarray:
    """The article's masked table as a bool matrix in its own layout: rows keys k_j, columns
    queries q_i, True where the article left a score (not -inf).

    Returns: mask (T, T), [key j, query i]
    """
    T = len(lead)
    return np.arange(T)[None, :] >= np.asarray(lead)[:, None]  # (1, T) >= (T, 1) -> (T, T)


@dataclass(frozen=True)
class CausalCheck:
    """The article's causal table against the correct one, and what its mistake lets through."""

    tokens: tuple[str, ...]  # T = 8
    article: np.ndarray  # (T, T) bool [key j, query i], True = score kept
    correct: np.ndarray  # (T, T) bool [key j, query i], True iff j <= i
    wrong: tuple[tuple[int, int], ...]  # (key j, query i), 0-based, kept by the article but in i's future
    steps_article: AttentionSteps  # the article's mask (transposed into our [query, key] layout)
    steps_correct: AttentionSteps  # mask="causal"

    @property
    def leaked(self) -> np.ndarray:
        """(n_wrong,) weight each wrong cell hands a future key under the article's mask."""
        return np.array([self.steps_article.weights[i, j] for j, i in self.wrong])

    @property
    def future_weight(self) -> float:
        """The largest weight any query gives a later key under the correct mask: exactly 0."""
        steps = self.steps_correct
        return float(np.max(np.where(steps.mask, 0.0, steps.weights)))


def causal_check(seed: int = 0, d_model: int = SHAPES_D, d_k: int = SHAPES_D_K) -> CausalCheck:
    """The article's 8-token table against the causal mask, on a seeded head.

    Returns: CausalCheck with the masks (T, T) in the article's [key, query] layout
    """
    tokens = _words(ARTICLE_SENTENCE)
    article = article_causal_mask()
    if article.shape[0] != len(tokens):
        raise ValueError(f"the article's table must have shape (T={len(tokens)}, T), got {article.shape}")
    correct = causal_mask(len(tokens)).T  # ours is [query, key]; the article's table is [key, query]
    wrong = tuple((int(j), int(i)) for j, i in zip(*np.nonzero(article & ~correct), strict=True))
    x = embed(list(tokens), d_model, seed=seed)
    w = init_weights(d_model, d_k, seed=seed)
    return CausalCheck(
        tokens=tokens,
        article=article,
        correct=correct,
        wrong=wrong,
        steps_article=attention_steps(x, w.w_q, w.w_k, w.w_v, mask=article.T),
        steps_correct=attention_steps(x, w.w_q, w.w_k, w.w_v, mask="causal"),
    )


# --------------------------------------------------------------------------- rows or columns


@dataclass(frozen=True)
class RowsColumns:
    """One score matrix S = QKᵀ / √d_k normalised along its rows and along its columns."""

    tokens: tuple[str, ...]
    scaled: np.ndarray  # (T_q, T_k) rows are queries
    by_row: np.ndarray  # (T_q, T_k) softmax over each row: what attention does
    by_column: np.ndarray  # (T_q, T_k) softmax over each column
    transposed_gap: float  # max |softmax(Sᵀ) column-wise, transposed back - by_row|: 0

    @property
    def row_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """(T_q,) row sums of by_row and of by_column."""
        return self.by_row.sum(axis=1), self.by_column.sum(axis=1)

    @property
    def column_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """(T_k,) column sums of by_row and of by_column."""
        return self.by_row.sum(axis=0), self.by_column.sum(axis=0)


def rows_columns(steps: AttentionSteps, tokens: tuple[str, ...]) -> RowsColumns:
    """Both normalisations of ``steps.scaled`` (unmasked scores, queries as rows)."""
    s = steps.scaled
    by_row = softmax(s, axis=-1)
    article_table = s.T  # the article's layout: keys as rows, queries as columns
    return RowsColumns(
        tokens=tuple(tokens),
        scaled=s,
        by_row=by_row,
        by_column=softmax(s, axis=0),
        transposed_gap=float(np.max(np.abs(softmax(article_table, axis=0).T - by_row))),
    )


# --------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class ShapeCheck:
    """Q = X W^(q) with the article's sizes, and one entry of Q written out in full."""

    tokens: tuple[str, ...]  # T = 16
    x: np.ndarray  # (T, d) d = 8
    w_q: np.ndarray  # (d, d_k) d_k = 4
    q: np.ndarray  # (T, d_k)
    i: int  # the entry written out, 0-based
    j: int
    terms: np.ndarray  # (d,) x[i, :] * w_q[:, j]
    article_terms: int  # how many terms the article's sum has (4)

    @property
    def value(self) -> float:
        """q_ij as the sum of all d terms."""
        return float(np.sum(self.terms))

    @property
    def article_value(self) -> float:
        """What the article's sum gives when it stops after ``article_terms`` terms."""
        return float(np.sum(self.terms[: self.article_terms]))


def shape_check(seed: int = 0, i: int = 0, j: int = 0) -> ShapeCheck:
    """A seeded 16 x 8 X (16 words, d = 8) and 8 x 4 W^(q).

    Returns: ShapeCheck with q (16, 4)
    """
    tokens = _words(SHAPES_SENTENCE)
    if len(tokens) != SHAPES_T:
        raise ValueError(f"SHAPES_SENTENCE must have {SHAPES_T} words, got {len(tokens)}")
    x = embed(list(tokens), SHAPES_D, seed=seed)
    w_q = init_weights(SHAPES_D, SHAPES_D_K, seed=seed).w_q
    q = x @ w_q  # (16, 8) @ (8, 4) -> (16, 4)
    return ShapeCheck(tokens=tokens, x=x, w_q=w_q, q=q, i=i, j=j, terms=x[i, :] * w_q[:, j], article_terms=4)


# --------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class Conventions:
    """The same head with token vectors as columns (the articles) and as rows (this app)."""

    tokens: tuple[str, ...]
    q: np.ndarray  # (T, d_k) rows: Q = X W_q
    k: np.ndarray  # (T, d_k)
    v: np.ndarray  # (T, d_v)
    q_col: np.ndarray  # (d_k, T) columns: Q = W^q X, with W^q = W_qᵀ and X = Xᵀ
    k_col: np.ndarray  # (d_k, T)
    v_col: np.ndarray  # (d_v, T)
    scores_row: np.ndarray  # (T, T) Q Kᵀ
    scores_col: np.ndarray  # (T, T) Qᵀ K in the column convention
    output_row: np.ndarray  # (T, d_v) softmax(QKᵀ/√d_k) V
    output_col: np.ndarray  # (T, d_v) softmax(QᵀK/√d_k) Vᵀ, as the column-convention article writes it
    scores_gap: float  # max |scores_col - scores_row|
    output_gap: float  # max |output_col - output_row|
    w_q_shape: tuple[int, int]  # (d_model, d_k): the W^q of Q = XW^q, as the notes first define it
    w_q_times_column: bool  # whether that W^q times a column x_i (d_model numbers) is defined

    @property
    def query_column_shape(self) -> tuple[int, int]:
        """(d_k, 1): W_qᵀ times one column x_i, the query the notes' bilinear form needs."""
        return (self.q_col.shape[0], 1)


def conventions(
    steps: AttentionSteps, tokens: tuple[str, ...], w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray
) -> Conventions:
    """Redo ``steps`` (unmasked, scaled) in the column convention."""
    x_col = steps.x.T  # (T, d_model) -> (d_model, T)
    q_col, k_col, v_col = w_q.T @ x_col, w_k.T @ x_col, w_v.T @ x_col  # (d_k, d_model) @ (d_model, T) -> (d_k, T)
    scores_col = q_col.T @ k_col  # (T, d_k) @ (d_k, T) -> (T, T)
    output_col = softmax(scores_col * steps.factor, axis=-1) @ v_col.T  # (T, T) @ (T, d_v) -> (T, d_v)
    return Conventions(
        tokens=tuple(tokens),
        q=steps.q,
        k=steps.k,
        v=steps.v,
        q_col=q_col,
        k_col=k_col,
        v_col=v_col,
        scores_row=steps.scores,
        scores_col=scores_col,
        output_row=steps.output,
        output_col=output_col,
        scores_gap=float(np.max(np.abs(scores_col - steps.scores))),
        output_gap=float(np.max(np.abs(output_col - steps.output))),
        w_q_shape=(int(w_q.shape[0]), int(w_q.shape[1])),
        w_q_times_column=bool(w_q.shape[1] == x_col.shape[0]),  # (d_model, d_k) @ (d_model, 1) needs d_k = d_model
    )


# --------------------------------------------------------------------------- winner takes all?


@dataclass(frozen=True)
class WinnerCheck:
    """Softmax alone is not winner-takes-all; √d_k does not stop larger scores saturating."""

    lab: Saturation  # the softmax lab's default scores (n = 8, seed 0) at m = 1 and m = 100
    max_entropy: float  # log2(n) bits
    d_k: int
    scale: float  # std of the q and k entries (mean 0): larger than 1 is an illustration, not measured
    rows: int  # rows of T scores sampled
    row_scaled: np.ndarray  # (T,) one row of q.k / √d_k with that scale
    row_weights: np.ndarray  # (T,) its softmax
    row_entropy: float  # bits
    var_raw: float  # variance of q.k over many rows: about d_k · scale⁴
    var_scaled: float  # after / √d_k: about scale⁴, whatever d_k is
    mean_entropy: float  # mean row entropy over those rows, bits
    mean_top: float  # mean largest weight per row
    unit_mean_entropy: float  # the same with unit-variance q and k (scale 1)
    unit_mean_top: float

    @property
    def expected_raw(self) -> float:
        """Var(q.k) for independent entries of std ``scale``: d_k · scale⁴."""
        return self.d_k * self.scale**4

    @property
    def expected_scaled(self) -> float:
        """Var(q.k / √d_k) = scale⁴, whatever d_k is."""
        return self.scale**4


def _learned_rows(scale: float, d_k: int, T: int, rows: int, seed: int) -> np.ndarray:
    rng = _rng_for("learned", int(seed), float(scale), d_k, T)
    q = rng.normal(0.0, scale, (rows, d_k))
    k = rng.normal(0.0, scale, (rows, T, d_k))
    return np.einsum("nd,ntd->nt", q, k)  # (rows, d_k), (rows, T, d_k) -> (rows, T)


def winner_check(scale: float = 3.0, *, d_k: int = 64, T: int = 8, rows: int = 2000, seed: int = 0) -> WinnerCheck:
    """The lab's scores at m = 1, and ``rows`` scaled rows of q.k whose entries have std ``scale``.

    Returns: WinnerCheck with row_weights (T,)
    """
    if not (math.isfinite(scale) and 0 < scale <= 10):
        raise ValueError(f"scale must be in (0, 10], got {scale}")
    scores = random_scores(8, seed=0)  # the softmax lab's defaults: attn_core.lab_results.softmax_lab()
    raw = _learned_rows(scale, d_k, T, rows, seed)
    scaled = raw / math.sqrt(d_k)
    weights = softmax(scaled)
    unit = softmax(_learned_rows(1.0, d_k, T, rows, seed) / math.sqrt(d_k))
    return WinnerCheck(
        lab=saturation(scores, 100.0),
        max_entropy=max_entropy(len(scores)),
        d_k=d_k,
        scale=float(scale),
        rows=rows,
        row_scaled=scaled[0],
        row_weights=weights[0],
        row_entropy=float(entropy(weights[0])),
        var_raw=float(raw.var()),
        var_scaled=float(scaled.var()),
        mean_entropy=float(entropy(weights).mean()),
        mean_top=float(weights.max(axis=1).mean()),
        unit_mean_entropy=float(entropy(unit).mean()),
        unit_mean_top=float(unit.max(axis=1).mean()),
    )


# --------------------------------------------------------------------------- LongNet's dilated attention


def longnet_rows(segment: int, rate: int, head: int, start: int = 0) -> tuple[int, ...]:
    """The positions one head of LongNet's dilated attention keeps in the segment of ``segment``
    tokens that starts at ``start`` (Ding et al., 2023, §2.2-2.3): every ``rate``-th, from the
    head's offset s_j = j mod r (``head`` j counted from 0, as the paper does).

    Returns: positions, 0-based, in order
    """
    if segment < 1 or rate < 1 or head < 0 or start < 0:
        raise ValueError(f"segment and rate must be >= 1, head and start >= 0, got {segment}, {rate}, {head}, {start}")
    return tuple(range(start + head % rate, start + segment, rate))


# --------------------------------------------------------------------------- the decoder's mask


DECODER_OTHER_WORD = "forest"  # replaces the sentence's last word


@dataclass(frozen=True)
class DecoderCheck:
    """Change only the last word: without a mask every earlier output moves, with the causal mask none does."""

    tokens: tuple[str, ...]  # T words
    changed: tuple[str, ...]  # the same with the last word replaced
    unmasked_change: float  # max |output change| of the first T - 1 tokens, no mask
    causal_change: float  # the same with the causal mask: exactly 0


def decoder_check(seed: int = 0, d_model: int = SHAPES_D, d_k: int = SHAPES_D_K) -> DecoderCheck:
    """The 8-word sentence and the same with its last word replaced, through one seeded head."""
    tokens = _words(ARTICLE_SENTENCE)
    changed = (*tokens[:-1], DECODER_OTHER_WORD)
    w = init_weights(d_model, d_k, seed=seed)
    moved = []
    for mask in (None, "causal"):
        a, b = (
            attention_steps(embed(list(t), d_model, seed=seed), w.w_q, w.w_k, w.w_v, mask=mask)
            for t in (tokens, changed)
        )
        moved.append(float(np.max(np.abs(a.output[:-1] - b.output[:-1]))))
    return DecoderCheck(tokens=tokens, changed=changed, unmasked_change=moved[0], causal_change=moved[1])


# --------------------------------------------------------------------------- query, key and value sizes


@dataclass(frozen=True)
class DimensionCheck:
    """Queries and keys must share d_k; values may have another width d_v."""

    d_k: int
    mismatch_error: str  # what the engine says to a W_k one column wider than W_q
    d_v: int  # another width for the values
    weights_gap: float  # max |weights with d_v - weights with d_v = d_k|: 0
    output_shape: tuple[int, int]  # (T, d_v)


def dimension_check(seed: int = 0, d_model: int = SHAPES_D, d_k: int = SHAPES_D_K) -> DimensionCheck:
    """The section-2 head with a W_k of d_k + 1 columns (refused) and a W_v of 2·d_k (fine)."""
    x = embed(list(_words(ARTICLE_SENTENCE)), d_model, seed=seed)
    w = init_weights(d_model, d_k, seed=seed)
    wide = init_weights(d_model, d_k + 1, 2 * d_k, seed=seed)  # W_k (d_model, d_k + 1), W_v (d_model, 2 d_k)
    try:
        attention_steps(x, w.w_q, wide.w_k, w.w_v)
        error = ""
    except ValueError as err:
        error = str(err)
    base = attention_steps(x, w.w_q, w.w_k, w.w_v)
    other = attention_steps(x, w.w_q, w.w_k, wide.w_v)
    return DimensionCheck(
        d_k=d_k,
        mismatch_error=error,
        d_v=int(wide.w_v.shape[1]),
        weights_gap=float(np.max(np.abs(other.weights - base.weights))),
        output_shape=(int(other.output.shape[0]), int(other.output.shape[1])),
    )


# --------------------------------------------------------------------------- the lesson


@dataclass(frozen=True)
class ArticlesLesson:
    """Every check of the page "The articles, checked"."""

    dot: DotExample
    causal: CausalCheck
    rows: RowsColumns
    shapes: ShapeCheck
    conventions: Conventions
    winner: WinnerCheck
    decoder: DecoderCheck
    dimensions: DimensionCheck


def articles_lesson(texts: dict[str, str] | None = None, *, scale: float = 3.0, seed: int = 0) -> ArticlesLesson:
    """The whole page: the 3-number example with ``texts`` (name -> "a, b, c"), the 8-token
    causal table, rows or columns, the shapes, the two conventions (one seeded head, d = 8,
    d_k = 4) and the winner-takes-all check with q and k entries of std ``scale``.
    """
    causal = causal_check(seed)
    tokens = causal.tokens
    w = init_weights(SHAPES_D, SHAPES_D_K, seed=seed)
    steps = attention_steps(causal.steps_correct.x, w.w_q, w.w_k, w.w_v)  # unmasked, same x and head
    return ArticlesLesson(
        dot=dot_example(texts),
        causal=causal,
        rows=rows_columns(steps, tokens),
        shapes=shape_check(seed),
        conventions=conventions(steps, tokens, w.w_q, w.w_k, w.w_v),
        winner=winner_check(scale, seed=seed),
        decoder=decoder_check(seed),
        dimensions=dimension_check(seed),
    )
