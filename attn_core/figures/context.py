"""Plotly layer: imports plotly, numpy, the standard library and attn_core's NumPy and figure modules.

Plotly builders for the pages "The articles, checked" and "Attention in a transformer".

Results in, figures out; no maths and no Streamlit. Built with ``figures._figure`` from plain
dicts, with the shared colour scales, font sizes and label escaping of ``attn_core.figures``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from . import (
    FONT_SIZE,
    HALF_WIDTH_PX,
    _auto_height,
    _colours,
    _figure,
    _fixed_axes,
    _hover,
    _Sent,
    _ticks,
    _title,
    safe_label,
    token_labels,
)

__all__ = ["MISTAKE_COLOR", "block_diagram", "mask_check"]

MISTAKE_COLOR = "#D55E00"  # Okabe & Ito's vermillion: reads on both themes and on cividis
# Translucent fills: the page's own text colour (light or dark theme) reads on every one.
_GROUP_FILL = {
    "input": "rgba(128, 128, 128, 0.22)",
    "attention": "rgba(86, 180, 233, 0.35)",
    "add": "rgba(0, 158, 115, 0.30)",
    "norm": "rgba(0, 158, 115, 0.30)",
    "ffn": "rgba(230, 159, 0, 0.35)",
}
_LINE = "rgba(128, 128, 128, 0.9)"


def mask_check(
    kept: np.ndarray,
    *,
    rows: list[str],
    cols: list[str],
    cell_text: list[list[str]],
    wrong: Sequence[tuple[int, int]] = (),
    title: str = "",
    row_title: str = "",
    col_title: str = "",
    width_px: float = HALF_WIDTH_PX,
) -> go.Figure:
    """A score table as a 0/1 heatmap (1 = score kept, 0 = set to −∞) with each cell's own
    text (e.g. "q₂ᵀk₁" or "−∞"), and the cells in ``wrong`` ((row, col) pairs) outlined.

    kept (n_rows, n_cols) bool; cell_text n_rows lists of n_cols strings (escaped here).
    """
    z = np.asarray(kept, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(rows), len(cols)):
        raise ValueError(f"kept must have shape (len(rows)={len(rows)}, len(cols)={len(cols)}), got {z.shape}")
    if [len(r) for r in cell_text] != [len(cols)] * len(rows):
        raise ValueError(f"cell_text must hold {len(rows)} rows of {len(cols)} strings")
    row_ticks, col_ticks = token_labels(rows), token_labels(cols)
    x_ticks, y_ticks = _ticks(col_ticks), _ticks(row_ticks)
    margin, x_fixed, y_fixed = _fixed_axes(
        y_ticks["ticktext"], x_ticks["ticktext"], row_title, col_title, top=50, right=20, width=width_px
    )
    text = _Sent([[safe_label(t) for t in row] for row in cell_text])
    traces = [
        dict(
            type="heatmap",
            z=z,
            x=np.arange(z.shape[1]),
            y=np.arange(z.shape[0]),
            showscale=False,
            **_colours("weights"),
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=FONT_SIZE - 1),
            customdata=_hover(row_ticks, col_ticks),
            name="kept (1) or −∞ (0)",
            hovertemplate=(
                f"{row_title or 'row'} %{{y}}: %{{customdata[0]}}<br>{col_title or 'column'} %{{x}}: "
                "%{customdata[1]}<br>%{text}<extra></extra>"
            ),
        )
    ]
    if wrong:
        r, c = zip(*wrong, strict=True)
        traces.append(
            dict(
                type="scatter",
                x=list(c),
                y=list(r),
                mode="markers",
                name="kept, but should be −∞",
                marker=dict(
                    symbol="square-open", size=34, color=MISTAKE_COLOR, line=dict(width=4, color=MISTAKE_COLOR)
                ),
                hoverinfo="skip",
                showlegend=True,
            )
        )
    layout = dict(
        title=_title(title),
        font=dict(size=FONT_SIZE),
        height=_auto_height(z.shape[0]) + margin["b"] + (40 if wrong else 0),
        margin={**margin, "b": margin["b"] + (40 if wrong else 0)},
        xaxis=dict(
            **x_ticks,
            **x_fixed,
            title=dict(text=col_title),
            side="bottom",
            showgrid=False,
            zeroline=False,
            range=[-0.5, z.shape[1] - 0.5],
        ),
        yaxis=dict(
            **y_ticks, **y_fixed, title=dict(text=row_title), autorange="reversed", showgrid=False, zeroline=False
        ),
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, x=0),
        showlegend=bool(wrong),
    )
    return _figure(traces, layout)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ")"


def _arrow(head: tuple[float, float], tail: tuple[float, float]) -> dict:
    """A plain arrow annotation from ``tail`` to ``head`` in data coordinates."""
    return dict(
        x=head[0],
        y=head[1],
        ax=tail[0],
        ay=tail[1],
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        text="",
        showarrow=True,
        arrowhead=2,
        arrowsize=1.2,
        arrowwidth=2,
        arrowcolor=_LINE,
    )


def block_diagram(
    stages: Sequence[tuple[str, str, str, tuple[int, ...]]],
    *,
    residuals: Sequence[tuple[int, int]] = (),
    title: str = "",
    height: int | None = None,
) -> go.Figure:
    """A top-to-bottom flow chart: one box per stage (group, name, formula, shape), an arrow
    between consecutive boxes, and a bypass line for each residual (from stage, to stage).

    group is one of "input", "attention", "add", "norm", "ffn" (it picks the fill); names and
    formulas are fixed text (escaped here); shapes are printed as "(T, d_model)" tuples. All
    text is drawn by text traces (not annotations), so presenter mode scales it with the boxes.
    """
    n = len(stages)
    if n == 0:
        raise ValueError("stages must hold at least one (group, name, formula, shape)")
    y = [-float(i) for i in range(n)]  # top to bottom, one unit apart
    half_h, left, right = 0.36, 0.0, 10.0
    shapes, arrows = [], []
    for i, (group, _, _, _) in enumerate(stages):
        if group not in _GROUP_FILL:
            raise ValueError(f"group must be one of {tuple(_GROUP_FILL)}, got {group!r}")
        shapes.append(
            dict(
                type="rect",
                xref="x",
                yref="y",
                x0=left,
                x1=right,
                y0=y[i] - half_h,
                y1=y[i] + half_h,
                fillcolor=_GROUP_FILL[group],
                line=dict(color=_LINE, width=1),
                layer="below",
            )
        )
        if i > 0:
            arrows.append(_arrow((1.5, y[i] + half_h), (1.5, y[i - 1] - half_h)))
    side_x, side_y = [], []
    for k, (a, b) in enumerate(residuals):
        if not (0 <= a < b < n):
            raise ValueError(f"a residual must go from an earlier stage to a later one in 0..{n - 1}, got {(a, b)}")
        x_side = right + 0.5 + 0.6 * k
        shapes.append(
            dict(
                type="path",
                xref="x",
                yref="y",
                line=dict(color=_LINE, width=2, dash="dot"),
                path=f"M {right},{y[a]} L {x_side},{y[a]} L {x_side},{y[b]}",
            )
        )
        arrows.append(_arrow((right, y[b]), (x_side, y[b])))
        side_x.append(x_side + 0.1)
        side_y.append((y[a] + y[b]) / 2)

    def text(x: list[float], ys: list[float], labels: list[str], position: str, size: int, **more) -> dict:
        return dict(
            type="scatter",
            x=x,
            y=ys,
            mode="text",
            text=labels,
            textposition=position,
            textfont=dict(size=size),
            showlegend=False,
            **more,
        )

    names = [f"<b>{html.escape(s[1])}</b>" for s in stages]
    sizes = [f"<b>{_shape_text(s[3])}</b>" for s in stages]
    traces = [
        text(
            [left + 0.2] * n,
            y,
            names,
            "middle right",
            FONT_SIZE + 1,
            customdata=_Sent([[html.escape(s[1]), html.escape(s[2]), _shape_text(s[3])] for s in stages]),
            hovertemplate="%{customdata[0]}: %{customdata[1]} → %{customdata[2]}<extra></extra>",
        ),
        text([left + 3.0] * n, y, [html.escape(s[2]) for s in stages], "middle right", FONT_SIZE, hoverinfo="skip"),
        text([right - 0.2] * n, y, sizes, "middle left", FONT_SIZE + 1, hoverinfo="skip"),
    ]
    if residuals:
        traces.append(text(side_x, side_y, ["residual"] * len(side_x), "middle right", FONT_SIZE - 1, hoverinfo="skip"))
    x_max = right + 0.5 + 0.6 * max(len(residuals), 1) + 1.6
    layout = dict(
        title=_title(title),
        font=dict(size=FONT_SIZE),
        height=height or int(70 + 56 * n),
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(visible=False, range=[-0.2, x_max], fixedrange=True),
        yaxis=dict(visible=False, range=[y[-1] - 0.6, 0.6], fixedrange=True),
        shapes=shapes,
        annotations=arrows,
        showlegend=False,
    )
    return _figure(traces, layout)
