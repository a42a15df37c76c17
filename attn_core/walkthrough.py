"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

The numbers behind the step-by-step page: one run of a head, and one cell worked by hand.

Imports numpy only. The LaTeX helpers at the bottom turn numbers (never user text) into
short formulas; long vectors and rows are shortened to "first few, ..., last" while the
totals they lead to stay exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .engine import AttentionSteps, Weights, attention_steps, embed, init_weights, positional_encoding

__all__ = [
    "CellWalkthrough",
    "Lesson",
    "OrderCheck",
    "Source",
    "StepStats",
    "ValueShares",
    "cell_walkthrough",
    "latex_dot",
    "latex_dot_lines",
    "latex_num",
    "latex_row_table",
    "latex_vec",
    "latex_weighted_sum",
    "lesson",
    "order_check",
    "seeded_source",
    "shown_indices",
    "step_stats",
    "value_shares",
]

SHIFT_ABOVE = 50.0  # write the softmax with the row max subtracted once |max| exceeds this


# --------------------------------------------------------------------------- one run


@dataclass(frozen=True)
class Source:
    """Where a head's inputs come from: the tokens, their vectors X and the weights."""

    tokens: tuple[str, ...]  # T tokens
    x: np.ndarray  # (T, d_model)
    weights: Weights  # w_q, w_k (d_model, d_k), w_v (d_model, d_v)
    pe: np.ndarray | None = None  # (T, d_model) the positions added into x, when the source knows them


def seeded_source(tokens: tuple[str, ...], d_model: int, d_k: int, *, seed: int, positional: bool) -> Source:
    """Seeded random embeddings (plus sinusoidal positions) and seeded random W_q, W_k, W_v.

    Returns: Source with x (T, d_model), pe (T, d_model) or None, and weights of shape (d_model, d_k)
    """
    tokens = tuple(tokens)
    x = embed(list(tokens), d_model, seed=seed, positional=positional)
    pe = positional_encoding(len(tokens), d_model) if positional else None
    return Source(tokens=tokens, x=x, weights=init_weights(d_model, d_k, seed=seed), pe=pe)


@dataclass(frozen=True)
class StepStats:
    """A few live numbers the page quotes in its explanations."""

    scores_std: float  # spread of the raw scores q.k
    scaled_std: float  # spread after multiplying by the factor
    max_abs_score: float  # largest |scaled| among allowed cells (picks the number format)
    n_masked: int  # cells the mask forbids
    n_cells: int  # T_q * T_k
    row_sum_min: float  # the weights' smallest row sum
    row_sum_max: float  # and largest
    x_mean: float  # mean of the entries of X
    x_var: float  # variance of the entries of X (np.var: their mean is subtracted first)
    x_mean_square: float  # mean of X's squared entries: what sets the spread of q, k and the scores
    e_mean_square: float | None  # the same for the word vectors alone, X - PE (None: positions unknown)
    repeats: tuple[tuple[str, tuple[int, ...], bool], ...]  # (token, its positions, rows of X identical?)
    n_zero_weights: int  # weights that are exactly 0 (every masked cell, and any exp that underflows)
    top_not_aligned: int  # rows whose highest score is not on the key that points most nearly along q_i
    longer_key_won: int  # of those, rows where the winning key is longer than the best-aimed one (a positive top score)
    shorter_key_won: int  # and rows where it is shorter: no score of the row is positive, so length made scores worse


def _repeats(tokens: tuple[str, ...], x: np.ndarray) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
    """Each token that occurs more than once (exactly, case included), where, and whether all
    its rows of X are identical."""
    where: dict[str, list[int]] = {}
    for n, token in enumerate(tokens):
        where.setdefault(token, []).append(n)
    return tuple(
        (token, tuple(ns), all(np.array_equal(x[ns[0]], x[n]) for n in ns[1:]))
        for token, ns in where.items()
        if len(ns) > 1
    )


COS_TIE = 1e-9  # two keys whose cosines with a query differ by less than this are equally well aimed


def _length_beat_direction(steps: AttentionSteps) -> tuple[int, int, int]:
    """Rows i where the allowed key with the largest score q_i·k_j = |q_i||k_j| cos θ is not as
    well aimed as the allowed key with the largest cos θ (short of it by more than COS_TIE):
    (those rows, those where the winning key is longer than the best-aimed one, those where it is
    shorter). Where the top score is positive the winner is always the longer; where no score of
    the row is positive a longer key makes a score more negative, and the winner is the shorter."""
    allowed = np.isfinite(steps.masked)  # (T_q, T_k)
    q_len = np.linalg.norm(steps.q, axis=1)[:, None]  # (T_q, 1)
    k_len = np.linalg.norm(steps.k, axis=1)  # (T_k,)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.where(q_len * k_len[None, :] > 0, steps.scores / (q_len * k_len[None, :]), 0.0)  # (T_q, T_k)
    rows = allowed.any(axis=1)
    top_score = np.where(allowed, steps.scores, -np.inf).argmax(axis=1)  # (T_q,)
    aimed = np.where(allowed, cos, -np.inf)  # (T_q, T_k)
    top_cos = aimed.argmax(axis=1)
    # The winner is as well aimed when its cos θ ties the best: a repeated token's keys are the
    # same vector, and their cosines can differ in the last bits of the arithmetic.
    winner_cos = np.take_along_axis(cos, top_score[:, None], axis=1)[:, 0]
    differs = rows & (winner_cos < aimed.max(axis=1) - COS_TIE)
    longer = differs & (k_len[top_score] > k_len[top_cos])
    shorter = differs & (k_len[top_score] < k_len[top_cos])
    return int(np.sum(differs)), int(np.sum(longer)), int(np.sum(shorter))


def value_shares(steps: AttentionSteps) -> ValueShares:
    """What each value row hands on to each output, z_i = Σ_j A_ij v_j, measured by length.

    Returns: ValueShares with value_norms (T_k,), weighted_norms and norm_shares (T_q, T_k)
    """
    value_norms = np.linalg.norm(steps.v, axis=1)  # (T_k,)
    weighted = steps.weights * value_norms[None, :]  # (T_q, T_k) ‖A_ij v_j‖
    totals = weighted.sum(axis=1, keepdims=True)  # (T_q, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(totals > 0, weighted / totals, 0.0)  # (T_q, T_k)
    return ValueShares(value_norms=value_norms, weighted_norms=weighted, norm_shares=shares)


def step_stats(steps: AttentionSteps, tokens: tuple[str, ...] = (), pe: np.ndarray | None = None) -> StepStats:
    """Spreads, masked count, row sums, the spread of X (and of X - pe, pe (T, d_model) when
    given), the repeated tokens, the zero weights and the rows where length beat direction."""
    allowed = np.isfinite(steps.masked)
    row_sums = steps.weights.sum(axis=1)  # (T_q,)
    differs, longer, shorter = _length_beat_direction(steps)
    return StepStats(
        scores_std=float(np.std(steps.scores)),
        scaled_std=float(np.std(steps.scaled)),
        max_abs_score=float(np.max(np.abs(steps.masked[allowed]), initial=0.0)),
        n_masked=int(steps.masked.size - allowed.sum()),
        n_cells=int(steps.masked.size),
        row_sum_min=float(row_sums.min(initial=1.0)),
        row_sum_max=float(row_sums.max(initial=1.0)),
        x_mean=float(np.mean(steps.x)),
        x_var=float(np.var(steps.x)),
        x_mean_square=float(np.mean(steps.x**2)),
        e_mean_square=None if pe is None else float(np.mean((steps.x - pe) ** 2)),
        repeats=_repeats(tuple(tokens), steps.x) if tokens else (),
        n_zero_weights=int(np.sum(steps.weights == 0.0)),
        top_not_aligned=differs,
        longer_key_won=longer,
        shorter_key_won=shorter,
    )


@dataclass(frozen=True)
class ValueShares:
    """A weight is not a share of the output: z_i = Σ_j A_ij v_j adds vectors of different
    lengths. The part A_ij v_j has length A_ij ‖v_j‖; its share of the row's total length is the
    norm-based measure of Kobayashi et al. (2020), here before W_O."""

    value_norms: np.ndarray  # (T_k,) ‖v_j‖
    weighted_norms: np.ndarray  # (T_q, T_k) A_ij ‖v_j‖
    norm_shares: np.ndarray  # (T_q, T_k) A_ij ‖v_j‖ / Σ_l A_il ‖v_l‖: rows add up to 1 (0 where every v_j is 0)


@dataclass(frozen=True)
class OrderCheck:
    """The sentence read backwards, without a mask: what attention alone knows about word order."""

    set_gap: float  # max |output(words reversed) - output reversed|, X without positions: 0 up to rounding
    order_gap: float | None  # the same with the position vectors added (None when the source has none)


def order_check(source: Source, *, scale: bool = True, multiplier: float = 1.0) -> OrderCheck:
    """Reverse the tokens and run the head again, on the word vectors alone (X - pe) and, when
    the source knows its positions, with the positions of the new order added.

    Returns: OrderCheck; set_gap is about 1e-16 since attention without positions (and
    without a mask) gives every token the same output wherever it stands
    """
    w = source.weights

    def output(x: np.ndarray) -> np.ndarray:
        kw = {"b_q": w.b_q, "b_k": w.b_k, "b_v": w.b_v}
        return attention_steps(x, w.w_q, w.w_k, w.w_v, scale=scale, multiplier=multiplier, **kw).output

    words = source.x if source.pe is None else source.x - source.pe  # (T, d_model)
    set_gap = float(np.max(np.abs(output(words[::-1]) - output(words)[::-1])))
    if source.pe is None:
        return OrderCheck(set_gap=set_gap, order_gap=None)
    order_gap = float(np.max(np.abs(output(words[::-1] + source.pe) - output(source.x)[::-1])))
    return OrderCheck(set_gap=set_gap, order_gap=order_gap)


@dataclass(frozen=True)
class Lesson:
    """Everything the step-by-step page shows: its inputs, every step and a few stats."""

    source: Source
    steps: AttentionSteps
    stats: StepStats
    multiplier: float
    scale: bool
    order: OrderCheck  # the sentence reversed: outputs only reorder without positions
    shares: ValueShares  # what each value row hands on to each output, by length

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.source.tokens


def lesson(source: Source, *, scale: bool = True, multiplier: float = 1.0, causal: bool = False) -> Lesson:
    """Run one head on ``source`` and keep every step.

    Returns: Lesson whose steps hold weights (T, T) and output (T, d_v)
    """
    w = source.weights
    steps = attention_steps(
        source.x,
        w.w_q,
        w.w_k,
        w.w_v,
        scale=scale,
        multiplier=multiplier,
        mask="causal" if causal else None,
        b_q=w.b_q,
        b_k=w.b_k,
        b_v=w.b_v,
    )
    stats = step_stats(steps, source.tokens, source.pe)
    order = order_check(source, scale=scale, multiplier=multiplier)
    return Lesson(
        source=source,
        steps=steps,
        stats=stats,
        multiplier=float(multiplier),
        scale=scale,
        order=order,
        shares=value_shares(steps),
    )


# --------------------------------------------------------------------------- one cell


@dataclass(frozen=True)
class CellWalkthrough:
    """Query i against key j, term by term, and how row i becomes z_i."""

    i: int
    j: int
    q_i: np.ndarray  # (d_k,)
    k_j: np.ndarray  # (d_k,)
    products: np.ndarray  # (d_k,) q_i * k_j, term by term
    score: float  # q_i . k_j, the engine's scores[i, j]
    factor: float
    scaled: float  # scores[i, j] * factor
    allowed: bool  # False where the mask forbids j for i
    row: np.ndarray  # (T_k,) masked row i (-inf where forbidden)
    shift: float  # subtracted before exp (0 unless the row's max is large in size)
    exps: np.ndarray  # (T_k,) exp(row - shift), 0 where forbidden
    total: float  # sum of exps
    weights: np.ndarray  # (T_k,) the engine's weights[i]
    row_sum: float  # sum of weights[i]
    v: np.ndarray  # (T_k, d_v)
    contributions: np.ndarray  # (T_k, d_v) weights[i, j] * v_j
    output: np.ndarray  # (d_v,) the engine's output[i]


def cell_walkthrough(steps: AttentionSteps, i: int, j: int) -> CellWalkthrough:
    """The numbers for cell (i, j) of ``steps``; i and j are clamped into range.

    Returns: CellWalkthrough with products (d_k,), exps (T_k,), contributions (T_k, d_v)
    """
    T_q, T_k = steps.weights.shape
    i = min(max(int(i), 0), T_q - 1)
    j = min(max(int(j), 0), T_k - 1)
    q_i, k_j = steps.q[i], steps.k[j]
    row = steps.masked[i]  # (T_k,)
    finite = row[np.isfinite(row)]
    peak = float(finite.max()) if finite.size else 0.0
    shift = peak if abs(peak) > SHIFT_ABOVE else 0.0
    exps = np.exp(row - shift)  # (T_k,) exp(-inf) = 0 where masked
    weights = steps.weights[i]  # (T_k,)
    return CellWalkthrough(
        i=i,
        j=j,
        q_i=q_i,
        k_j=k_j,
        products=q_i * k_j,
        score=float(steps.scores[i, j]),
        factor=float(steps.factor),
        scaled=float(steps.scaled[i, j]),
        allowed=bool(np.isfinite(row[j])),
        row=row,
        shift=shift,
        exps=exps,
        total=float(exps.sum()),
        weights=weights,
        row_sum=float(weights.sum()),
        v=steps.v,
        contributions=weights[:, None] * steps.v,  # (T_k, d_v)
        output=steps.output[i],
    )


# --------------------------------------------------------------------------- LaTeX (numbers only)


def latex_num(value: float, digits: int = 2) -> str:
    """A number for LaTeX: fixed point, scientific when tiny or huge, -inf as -\\infty."""
    value = float(value)
    if math.isnan(value):
        return r"\text{n/a}"
    if math.isinf(value):
        return r"-\infty" if value < 0 else r"\infty"
    size = abs(value)
    if size == 0 or 0.5 * 10.0**-digits <= size < 1e5:
        text = f"{value:.{digits}f}"
        return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return rf"{mantissa}\times10^{{{int(exponent)}}}"


def _paren(value: float, digits: int) -> str:
    text = latex_num(value, digits)
    return f"({text})" if text.startswith("-") else text


def shown_indices(n: int, keep: tuple[int, ...] = (), head: int = 3, tail: int = 1) -> list[int | None]:
    """Indices 0..n-1 to write out: the first ``head``, the last ``tail`` and ``keep``;
    None marks a gap (written as \\cdots). All of them when n is small."""
    if n <= head + tail + 1 + len(keep):
        return list(range(n))
    wanted = sorted({*range(head), *range(n - tail, n), *(k for k in keep if 0 <= k < n)})
    out: list[int | None] = []
    for a, b in zip(wanted, [*wanted[1:], None], strict=True):
        out.append(a)
        if b is not None and b > a + 1:
            out.append(None)
    return out


def _dot_terms(a: np.ndarray, b: np.ndarray, digits: int) -> list[str]:
    """'a_n x b_n' for the indices worth writing, with \\cdots for the gaps."""
    return [
        r"\cdots" if n is None else f"{_paren(a[n], digits)}\\times{_paren(b[n], digits)}"
        for n in shown_indices(len(a))
    ]


def latex_dot(a: np.ndarray, b: np.ndarray, total: float, digits: int = 2) -> str:
    """'a0 x b0 + a1 x b1 + ... = total', shortened for long vectors (total stays exact)."""
    terms = _dot_terms(a, b, digits)
    return " + ".join(terms) + f" = {latex_num(total, digits)}"


def latex_dot_lines(a: np.ndarray, b: np.ndarray, total: float, lhs: str, per_line: int = 3, digits: int = 2) -> str:
    """``latex_dot`` as an aligned block with at most ``per_line`` terms a line, so that a
    long dot product wraps instead of running off a narrow (or projected) page."""
    terms = _dot_terms(a, b, digits)
    chunks = [" + ".join(terms[n : n + per_line]) for n in range(0, len(terms), per_line)]
    lines = [f"{lhs} &= {chunks[0]}", *(rf"&\quad + {c}" for c in chunks[1:]), f"&= {latex_num(total, digits)}"]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def latex_vec(values: np.ndarray, digits: int = 2, head: int = 3, tail: int = 1) -> str:
    """A row vector as a bmatrix, shortened to 'first few, ..., last' when long."""
    shown = shown_indices(len(values), (), head, tail)
    cells = [r"\cdots" if n is None else latex_num(values[n], digits) for n in shown]
    return r"\begin{bmatrix}" + " & ".join(cells) + r"\end{bmatrix}"


def latex_row_table(cell: CellWalkthrough, digits: int = 2) -> str:
    """Row i of the softmax as a table: j, the masked score M (the scaled score, or -inf where
    the mask forbids j), its exponential, the weight."""
    cols = shown_indices(len(cell.row), (cell.j,), head=4, tail=2)
    s_ij = rf"M_{{{cell.i},j}}"  # the masked scores: equal to the scaled ones where nothing is masked
    # exp(...) rather than e^{...}: a subscript inside a superscript is drawn under 12 px.
    exp_name = rf"\exp({s_ij})" if cell.shift == 0 else rf"\exp({s_ij} - m_{{{cell.i}}})"

    def line(name: str, values: np.ndarray | None) -> str:
        cells = [r"\cdots" if n is None else (str(n) if values is None else latex_num(values[n], digits)) for n in cols]
        return name + " & " + " & ".join(cells)

    body = [
        line("j", None),
        line(s_ij, cell.row),
        line(exp_name, cell.exps),
        line(f"A_{{{cell.i},j}}", cell.weights),
    ]
    head = r"\begin{array}{c|" + "c" * len(cols) + "}"
    return head + body[0] + r" \\ \hline " + r" \\ ".join(body[1:]) + r"\end{array}"


def latex_weighted_sum(cell: CellWalkthrough, lhs: str = "", digits: int = 2) -> str:
    """An aligned block, one term per line: 'lhs = w_i0 [v_0] + w_i1 [v_1] + ... = [z_i]',
    shortened for long rows and vectors."""
    terms = [
        r"\cdots" if n is None else latex_num(cell.weights[n], digits) + latex_vec(cell.v[n], digits)
        for n in shown_indices(len(cell.weights), (cell.j,), head=2, tail=1)
    ]
    lines = [f"{lhs} &= {terms[0]}", *(rf"&\quad + {t}" for t in terms[1:]), f"&= {latex_vec(cell.output, digits)}"]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"
