"""Plotly layer: imports plotly, numpy, the standard library and attn_core's NumPy and figure modules.

Plotly builders for the lab pages (softmax lab, multi-head, cross-attention, masks).

Results in, figures out; no maths and no Streamlit. Shared pieces (colour scales, font
size, label escaping, heatmap, line_chart) come from ``attn_core.figures``, and every figure is
made by its one constructor, ``figures._figure``, from plain dicts.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import FONT_SIZE, _figure, _lines, heatmap, token_labels

__all__ = [
    "concat_labels",
    "grouped_bars",
    "log_x_lines",
    "mask_heatmap",
    "score_labels",
]

_DASHED = dict(dash="dash", width=2, color="gray")


def score_labels(tokens: list[str], n: int) -> list[str]:
    """Raw labels for n key positions: "i:token" for the first tokens, "key i" past the end."""
    return [f"{i}:{tokens[i]}" if i < len(tokens) else f"key {i}" for i in range(n)]


def concat_labels(n_heads: int, d_v: int) -> list[str]:
    """Column labels of Concat(head_1..head_H): "h1.0" .. "hH.(d_v-1)" (H*d_v labels)."""
    return [f"h{h + 1}.{j}" for h in range(n_heads) for j in range(d_v)]


def grouped_bars(
    labels: list[str],
    series: dict[str, np.ndarray],
    *,
    title: str,
    y_title: str = "",
    y_range: tuple[float, float] | None = None,
    fmt: str = ".2f",
    height: int = 340,
) -> go.Figure:
    """Side-by-side bars, one colour per named series, at integer positions with escaped labels.

    Every series is (n,) with n = len(labels).
    """
    traces = []
    for name, values in series.items():
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(labels),):
            raise ValueError(f"series {name!r} must have shape ({len(labels)},), got {values.shape}")
        traces.append(dict(type="bar", x=np.arange(len(labels)), y=values, name=name, hovertemplate=f"%{{y:{fmt}}}"))
    layout = dict(
        title=dict(text=title, font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height,
        barmode="group",
        margin=dict(l=10, r=10, t=70, b=10),
        # No zero line on x: at x = 0 it would cross the first group of bars.
        xaxis=dict(tickmode="array", tickvals=list(range(len(labels))), ticktext=token_labels(labels), zeroline=False),
        yaxis=dict(title=dict(text=y_title), **(dict(range=list(y_range)) if y_range else {})),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
    )
    return _figure(traces, layout)


def log_x_lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    log_y: bool = False,
    reference: tuple[str, float] | None = None,
    height: int = 380,
) -> go.Figure:
    """``figures.line_chart`` on a log x axis, with an optional dashed horizontal reference line.

    x (n,); every series (n,); reference is (name, y value), drawn as a last trace.
    """
    x = np.asarray(x)
    traces, layout = _lines(x, series, title=title, x_title=x_title, y_title=y_title, log_y=log_y, height=height)
    # Powers of two as x ticks: Plotly's minor log labels are tiny.
    x_ticks = [2**i for i in range(int(np.log2(max(np.max(x), 1))) + 1)]
    layout["xaxis"].update(type="log", tickmode="array", tickvals=x_ticks, ticktext=[str(t) for t in x_ticks])
    if reference is not None:
        name, value = reference
        traces.append(
            dict(
                type="scatter",
                x=[x.min().item(), x.max().item()],
                y=[float(value)] * 2,
                mode="lines",
                name=name,
                line=_DASHED,
            )
        )
    return _figure(traces, layout)


def mask_heatmap(
    mask: np.ndarray | None,
    rows: list[str],
    cols: list[str] | None = None,
    *,
    title: str,
    row_title: str = "query",
    col_title: str = "key",
) -> go.Figure:
    """A (T_q, T_k) bool mask as a 0/1 heatmap (1 = may attend); None means global: all ones;
    ``cols`` defaults to ``rows``. Where the 0s and 1s are too many to print, a "×" marks each
    forbidden cell, as on a heatmap's masked scores, so colour is not the only thing that tells
    them apart."""
    cols = rows if cols is None else cols
    allowed = np.ones((len(rows), len(cols)), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    labels = {"rows": rows, "cols": cols, "title": title, "row_title": row_title, "col_title": col_title}
    return heatmap(
        allowed.astype(np.float64),
        **labels,
        kind="weights",
        value_name="may attend",
        fmt=".0f",
        show_scale=False,  # two colours, told apart by the printed 0/1 or the "×", and the title
        marks=~allowed,
    )
