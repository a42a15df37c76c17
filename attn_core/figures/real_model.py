"""Plotly layer: imports plotly, numpy, the standard library and attn_core's NumPy and figure modules.

Plotly figures for the real-model page: head view, model view, neuron view, summaries.

NumPy arrays in, figures out; no torch, no Streamlit. Token labels go through
``figures.safe_label``. Payloads stay small: arrays are float32 (base64 in the JSON),
head-view lines are grouped into a few traces, big matrices are pooled for thumbnails.
Figures are made from plain dicts by ``figures._figure``, colour scales set by ``figures._colours``.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..numbering import head_label, head_name
from . import (
    FONT_SIZE,
    HALF_WIDTH_PX,
    MASKED_COLOR,
    Labels,
    _colours,
    _figure,
    bar_chart,
    dim_labels,
    heatmap,
    safe_label,
    token_labels,
)

__all__ = [
    "BAR_KEYS_MAX",
    "HEAD_COLORS",
    "MAX_LINES",
    "REGIONS",
    "attention_heatmap",
    "head_view",
    "head_view_edges",
    "neuron_figures",
    "pool",
    "thumbnail_grid",
]

# One colour per head (D3's ten plus two), mid-tones that read on light and dark themes.
HEAD_COLORS = (
    "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B",
    "#E377C2", "#7F7F7F", "#BCBD22", "#17BECF", "#FF97FF", "#FECB52",
)  # fmt: skip
N_BUCKETS = 8  # opacity levels per head: at most 8 x H line traces
MAX_LINES = 25_000  # the strongest lines kept, so the chart stays under ~1.5 MB
REGIONS = ("All", "A→A", "B→B", "A→B", "B→A")
DETAIL_MAX = 96  # above this many tokens, big heatmaps drop per-cell labels and hover text
THUMB = 32  # thumbnails larger than THUMB_MAX tokens are pooled to THUMB x THUMB
THUMB_MAX = 40
BAR_KEYS_MAX = 24  # up to this many keys a query's bars are drawn with labels and values (bar_chart)
_COLORBAR = dict(thickness=14, tickfont=dict(size=FONT_SIZE - 1))


# --------------------------------------------------------------------------- head view

EDGE_THRESHOLD = 0.05  # the head view's default: lines fainter than this are not drawn


def head_view_edges(
    weights: np.ndarray,
    *,
    heads: list[int] | None = None,
    threshold: float = EDGE_THRESHOLD,
    query: int | None = None,
    region: str = "All",
    sentence_b_start: int | None = None,
    hide: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lines a head view draws: (head, query i, key j, weight) with weight >= threshold.

    weights (H, T, T); ``query`` keeps one query row; ``region`` keeps one block of a
    sentence pair (A = positions before ``sentence_b_start``); ``hide`` (T,) bool drops
    lines from or to those tokens (weights are not renormalised).

    Returns: head, i, j (int arrays) and w (float array), strongest first
    """
    w = np.asarray(weights)
    if w.ndim != 3 or w.shape[1] != w.shape[2]:
        raise ValueError(f"weights must have shape (H, T, T), got {w.shape}")
    H, T, _ = w.shape
    keep = w >= threshold
    if heads is not None:
        chosen = np.zeros(H, dtype=bool)
        chosen[list(heads)] = True
        keep &= chosen[:, None, None]
    if query is not None:
        rows = np.zeros(T, dtype=bool)
        rows[query] = True
        keep &= rows[None, :, None]
    if region not in REGIONS:
        raise ValueError(f"region must be one of {REGIONS}, got {region!r}")
    if region != "All":
        if sentence_b_start is None:
            raise ValueError(f"region {region!r} needs a sentence pair (sentence_b_start)")
        in_b = np.arange(T) >= sentence_b_start
        q_side, k_side = region.split("→")
        keep &= (in_b == (q_side == "B"))[None, :, None] & (in_b == (k_side == "B"))[None, None, :]
    if hide is not None:
        shown = ~np.asarray(hide, dtype=bool)
        keep &= shown[None, :, None] & shown[None, None, :]
    h, i, j = np.nonzero(keep)
    v = w[h, i, j]
    order = np.argsort(-v, kind="stable")
    return h[order], i[order], j[order], v[order]


def head_view(
    weights: np.ndarray,
    tokens: list[str],
    *,
    title: str = "Head view",
    max_lines: int = MAX_LINES,
    **lines,
) -> go.Figure:
    """bertviz-style head view: queries on the left, keys on the right, one line per weight.

    weights (H, T, T); ``lines`` choose the lines as ``head_view_edges`` does (heads,
    threshold, query, region, sentence_b_start, hide; heads 0-based, named from 1 in the legend:
    "head 1"). Each head has its own colour; a line's opacity is its weight,
    bucketed into N_BUCKETS levels so each head needs at most N_BUCKETS traces. Line
    traces carry meta {"head", "w_min", "w_max"} and the exact weights as customdata.
    """
    h, i, j, w = head_view_edges(weights, **lines)
    query, threshold = lines.get("query"), lines.get("threshold", EDGE_THRESHOLD)
    T = np.shape(weights)[-1]
    if len(tokens) != T:
        raise ValueError(f"tokens must have length T={T}, got {len(tokens)}")
    total = len(w)
    h, i, j, w = h[:max_lines], i[:max_lines], j[:max_lines], w[:max_lines]
    traces = []
    edges = np.linspace(0.0, 1.0, N_BUCKETS + 1)
    bucket = np.clip(np.searchsorted(edges, w, side="left") - 1, 0, N_BUCKETS - 1)
    for head in np.unique(h):
        first = True
        for b in reversed(range(N_BUCKETS)):  # strongest first, so the legend entry is opaque
            sel = (h == head) & (bucket == b)
            if not sel.any():
                continue
            n = int(sel.sum())
            x = np.tile(np.array([0, 1, 0], dtype=np.int8), n)  # the third point is a gap
            y = np.column_stack([i[sel], j[sel], np.full(n, np.nan)]).astype(np.float32).ravel()
            cd = np.repeat(np.round(w[sel], 3).astype(np.float32), 3)
            traces.append(
                dict(
                    type="scatter",
                    x=x,
                    y=y,
                    customdata=cd,
                    mode="lines",
                    connectgaps=False,
                    line=dict(color=HEAD_COLORS[head % len(HEAD_COLORS)], width=2),
                    opacity=float(max(edges[b + 1], 0.15)),
                    name=head_name(head),
                    legendgroup=head_name(head),
                    showlegend=first,
                    meta={"head": int(head), "w_min": float(edges[b]), "w_max": float(edges[b + 1])},
                    hovertemplate=f"{head_name(head)}: weight %{{customdata:.3f}}<extra></extra>",
                )
            )
            first = False
    labels = token_labels(tokens)
    pos = np.arange(T, dtype=np.float32)
    for side, x0, anchor in (("query", 0.0, "middle left"), ("key", 1.0, "middle right")):
        traces.append(
            dict(
                type="scatter",
                x=np.full(T, x0, dtype=np.float32),
                y=pos,
                text=labels,
                mode="text",
                textposition=anchor,
                textfont=dict(size=FONT_SIZE),
                hovertemplate=f"{side} %{{y}}: %{{text}}<extra></extra>",
                showlegend=False,
                name=f"{side} tokens",
            )
        )
    if query is not None:
        traces.append(
            dict(
                type="scatter",
                x=[0.0],
                y=[float(query)],
                mode="markers",
                marker=dict(size=10, symbol="circle"),
                hoverinfo="skip",
                showlegend=False,
                name="focus",
            )
        )
    row = 24 if T <= 48 else 16
    shown = f"{len(w):,} lines" if total <= max_lines else f"the strongest {len(w):,} of {total:,} lines"
    layout = dict(
        title=dict(text=f"{html.escape(title)} ({shown}, weight ≥ {threshold:g})", font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=int(120 + row * T),
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(range=[-0.75, 1.75], visible=False, fixedrange=True),
        yaxis=dict(range=[T - 0.5, -0.5], visible=False),
        legend=dict(orientation="v", x=1.0, xanchor="right", y=1.0, yanchor="top", font=dict(size=FONT_SIZE - 1)),
        hovermode="closest",
    )
    return _figure(traces, layout)


# --------------------------------------------------------------------------- model view


def pool(matrix: np.ndarray, size: int) -> np.ndarray:
    """Block-average a (T, T) matrix down to (size, size); unchanged when T <= size."""
    m = np.asarray(matrix, dtype=np.float64)
    T = m.shape[0]
    if size >= T:
        return m
    starts = np.linspace(0, T, size + 1).astype(int)[:-1]
    counts = np.diff(np.append(starts, T))
    rows = np.add.reduceat(m, starts, axis=0) / counts[:, None]
    return np.add.reduceat(rows, starts, axis=1) / counts[None, :]


def thumbnail_grid(
    matrices: np.ndarray,
    *,
    title: str,
    row_names: list[str],
    col_names: list[str],
    selected: tuple[int, int] | None = None,
    zmax: float = 1.0,
    hidden: tuple[int, int] | None = None,
) -> go.Figure:
    """A grid of small (T, T) heatmaps in one image, e.g. matrices (L, H, T, T).

    Larger than THUMB_MAX tokens, each thumbnail is pooled to THUMB x THUMB; a grey gap
    separates them; ``selected`` (row, col) gets a frame. ``hidden`` (row, col) is drawn as a
    grey square marked "?" (a layer named "masked", like a heatmap's masked cells), its numbers
    left out of the figure: a question's answer that the grid would give away.
    """
    m = np.asarray(matrices)
    if m.ndim != 4 or m.shape[2] != m.shape[3]:
        raise ValueError(f"matrices must have shape (rows, cols, T, T), got {m.shape}")
    n_rows, n_cols, T, _ = m.shape
    s = T if T <= THUMB_MAX else THUMB
    cell = s + 1  # one blank row/column between thumbnails
    image = np.full((n_rows * cell - 1, n_cols * cell - 1), np.nan, dtype=np.float32)
    for r in range(n_rows):
        for c in range(n_cols):
            image[r * cell : r * cell + s, c * cell : c * cell + s] = pool(m[r, c], s)
    cover = None
    if hidden is not None:
        r, c = hidden
        if not (0 <= r < n_rows and 0 <= c < n_cols):
            raise ValueError(f"hidden must be a (row, col) inside the {n_rows} x {n_cols} grid, got {hidden}")
        block = (slice(r * cell, r * cell + s), slice(c * cell, c * cell + s))
        image[block] = np.nan
        cover = np.full(image.shape, np.nan, dtype=np.float32)
        cover[block] = 1.0
    image = np.round(image, 3)
    centres = [k * cell + (s - 1) / 2 for k in range(max(n_rows, n_cols))]
    trace = dict(type="heatmap", z=image, hoverinfo="skip", colorbar=_COLORBAR, **_colours("weights", zmax=zmax))
    traces = [trace]
    if cover is not None:
        grey = dict(
            type="heatmap",
            z=cover,
            colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
            showscale=False,
            hoverinfo="skip",
            name="masked",
        )
        mark = dict(
            type="scatter",
            mode="text",
            x=[centres[hidden[1]]],
            y=[centres[hidden[0]]],
            text="?",
            textfont=dict(size=FONT_SIZE + 6),
            hoverinfo="skip",
            showlegend=False,
            name="masked",
        )
        traces = [grey, trace, mark]
    layout = dict(
        title=dict(text=html.escape(title), font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=int(min(900, max(260, 90 + 62 * n_rows * max(1, 12 // max(n_cols, 1))))),
        margin=dict(l=10, r=10, t=60, b=10),
        xaxis=dict(_centred_ticks(centres[:n_cols], col_names), side="top", constrain="domain"),
        # Square cells: where the chart is narrower than the grid needs (a phone), the rows shrink
        # toward the top, under the column names, rather than spreading into empty space.
        yaxis=dict(
            _centred_ticks(centres[:n_rows], row_names),
            autorange="reversed",
            scaleanchor="x",
            constrain="domain",
            constraintoward="top",
        ),
    )
    if selected is not None:
        r, c = selected
        layout["shapes"] = [
            dict(
                type="rect",
                x0=c * cell - 1,
                x1=c * cell + s,
                y0=r * cell - 1,
                y1=r * cell + s,
                line=dict(color="#D62728", width=3),
            )
        ]
    return _figure(traces, layout)


def _centred_ticks(centres: list[float], names: list[str]) -> dict:
    """An axis labelled at the centre of each thumbnail, without grid or zero line."""
    return dict(tickmode="array", tickvals=centres, ticktext=names, showgrid=False, zeroline=False)


def attention_heatmap(
    matrix: np.ndarray,
    rows: list[str],
    cols: list[str],
    *,
    title: str,
    kind: str = "weights",
    zmax: float | None = None,
    width_px: float = HALF_WIDTH_PX,
    **labels: Any,
) -> go.Figure:
    """``figures.heatmap`` with an attention matrix's labels (queries down, keys across, each
    cell a "weight"; ``labels`` as in ``figures.heatmap``); beyond DETAIL_MAX rows or columns
    a light one (float32 z, every n-th tick, hover by position) so a 512 x 512 matrix stays a
    few MB at most. ``width_px`` as in ``figures.heatmap``."""
    fmt = ".3f" if kind == "weights" else ".2f"
    labels = {"row_title": "query", "col_title": "key", "value_name": "weight", "fmt": fmt, **labels}
    z = np.asarray(matrix, dtype=np.float64)
    if max(z.shape) <= DETAIL_MAX:
        return heatmap(z, rows=rows, cols=cols, title=title, kind=kind, zmax=zmax, width_px=width_px, **labels)
    lab = Labels(**labels)
    trace = dict(
        type="heatmap",
        z=z.astype(np.float32),
        hovertemplate=(
            f"{lab.row_title} %{{y}} · {lab.col_title} %{{x}} · {lab.value_name} %{{z:{lab.fmt}}}<extra></extra>"
        ),
        colorbar=_COLORBAR,
        **_colours(kind, [z], zmax),
    )
    layout = dict(
        title=dict(text=html.escape(title), font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=760,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=_sparse_ticks(cols, lab.col_title),
        yaxis=dict(_sparse_ticks(rows, lab.row_title), autorange="reversed"),
    )
    return _figure([trace], layout)


def _sparse_ticks(labels: list[str], axis_title: str) -> dict:
    step = max(1, int(np.ceil(len(labels) / 40)))
    ticks = list(range(0, len(labels), step))
    return dict(
        tickmode="array",
        tickvals=ticks,
        ticktext=[f"{t}:{safe_label(labels[t], 10)}" for t in ticks],
        title=dict(text=axis_title),
        showgrid=False,
        zeroline=False,
        tickfont=dict(size=FONT_SIZE - 2),
    )


def _bars(
    labels: list[str], values: np.ndarray, *, title: str, y_title: str, fmt: str, highlight: int | None = None
) -> go.Figure:
    """Bars for a query's row; up to BAR_KEYS_MAX keys as bar_chart draws them (``highlight`` in bold)."""
    if len(labels) <= BAR_KEYS_MAX:
        return bar_chart(labels, values, title=title, y_title=y_title, fmt=fmt, highlight=highlight)
    bar = dict(
        type="bar",
        x=np.arange(len(labels)),
        y=np.asarray(values, dtype=np.float32),
        hovertemplate=f"%{{x}}: {y_title} %{{y:{fmt}}}<extra></extra>",
    )
    layout = dict(
        title=dict(text=html.escape(title), font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=320,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=_sparse_ticks(labels, "key"),
        yaxis=dict(title=dict(text=y_title)),
    )
    return _figure([bar], layout)


# --------------------------------------------------------------------------- neuron view


def neuron_figures(nv, tokens: list[str], *, layer: int, head: int) -> dict[str, go.Figure]:
    """The neuron view of one query (a ``NeuronView``): q, k, q∘k, q·k
    and the softmax, keyed "q", "k", "qk", "scores", "weights". ``layer`` and ``head`` are
    0-based; the titles name them as every page does, from 1 ("layer 4, head 8")."""
    d_k = len(nv.q)
    dims = dim_labels(d_k)
    where = f"{head_label(layer, head)}, query {nv.query}"
    lim = float(max(np.abs(nv.q).max(), np.abs(nv.k).max())) or 1.0
    return {
        "q": heatmap(
            nv.q[None, :],
            rows=[tokens[nv.query]],
            cols=dims,
            kind="signed",
            zmax=lim,
            title=f"q: the query vector ({where})",
            col_title="dimension",
            show_values=False,
            height=250,
        ),
        "k": attention_heatmap(
            nv.k,
            tokens,
            dims,
            title=f"k: every key vector ({where})",
            kind="signed",
            row_title="key",
            col_title="dimension",
            value_name="k",
            zmax=lim,
        ),
        "qk": attention_heatmap(
            nv.qk,
            tokens,
            dims,
            title=f"q∘k: elementwise products ({where})",
            kind="signed",
            row_title="key",
            col_title="dimension",
            value_name="q∘k",
        ),
        "scores": _bars(
            tokens,
            nv.scores,
            title=f"q·k: the sum of each row of q∘k ({where})",
            y_title="q·k",
            fmt=".2f",
            highlight=nv.top,
        ),
        "weights": _bars(
            tokens,
            nv.weights,
            title=f"softmax(q·k / √{d_k}): the attention row ({where})",
            y_title="weight",
            fmt=".3f",
            highlight=nv.top,
        ),
    }
