"""Plotly figure builders: engine results in, figures out. No maths, no Streamlit.

Every label that can hold user text goes through ``safe_label`` so it is shown
literally: Plotly renders a small HTML subset (<b>, <a href>, <br>) and treats
text wrapped in $...$ as LaTeX, so both are neutralised here.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

__all__ = [
    "DIVERGING",
    "FONT_SIZE",
    "SEQUENTIAL",
    "bar_chart",
    "dim_labels",
    "heatmap",
    "line_chart",
    "safe_label",
    "token_labels",
]

# Colour-blind-safe scales: a blue-white-red diverging scale centred on 0 for signed
# matrices, and cividis (designed for colour-vision deficiency) for weights in [0, 1].
DIVERGING = "RdBu_r"
SEQUENTIAL = "Cividis"
MASKED_COLOR = "rgba(128, 128, 128, 0.55)"
FONT_SIZE = 14  # projector-readable; nothing on a chart is drawn under 12 px
CELL_TEXT_MAX = 14  # print values in cells when both sides are at most this long
LABEL_MAX_CHARS = 18


def safe_label(text: str, max_chars: int = LABEL_MAX_CHARS) -> str:
    """User text as a literal Plotly label: HTML-escaped, no LaTeX, shortened.

    Plotly decodes HTML entities, so ``&lt;script&gt;`` is drawn as ``<script>``.
    A leading '$' would switch on LaTeX mode; a zero-width joiner after it stops that
    without changing what is drawn.
    """
    text = str(text)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "\u2026"
    text = html.escape(text, quote=True)
    if text.startswith("$"):
        text = "$\u200b" + text[1:]
    return text


def token_labels(tokens: list[str]) -> list[str]:
    """Escaped tick labels, one per position (repeats stay separate positions)."""
    return [safe_label(t) for t in tokens]


def dim_labels(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def _format_cell(value: float, fmt: str) -> str:
    if np.isneginf(value):
        return "\u2212\u221e"
    if not np.isfinite(value):
        return ""
    return format(value, fmt)


def heatmap(
    z: np.ndarray,
    *,
    rows: list[str],
    cols: list[str],
    title: str = "",
    kind: str = "signed",
    row_title: str = "",
    col_title: str = "",
    value_name: str = "value",
    fmt: str = ".2f",
    show_values: bool | None = None,
    zmax: float | None = None,
    height: int | None = None,
) -> go.Figure:
    """A labelled heatmap of a (rows, cols) matrix.

    ``rows``/``cols`` are raw labels (escaped here); cells sit at integer positions, so
    repeated labels stay separate rows and columns. ``kind`` is "signed" (diverging,
    centred on 0) or "weights" (sequential, 0..1). -inf cells (masked scores) are drawn
    grey and marked with the minus-infinity sign.
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(rows), len(cols)):
        raise ValueError(f"z must have shape (len(rows)={len(rows)}, len(cols)={len(cols)}), got {z.shape}")
    n_rows, n_cols = z.shape
    masked = np.isneginf(z)
    shown = np.where(np.isfinite(z), z, np.nan)  # JSON has no inf: masked cells become gaps
    row_ticks, col_ticks = token_labels(rows), token_labels(cols)
    if show_values is None:
        show_values = max(n_rows, n_cols) <= CELL_TEXT_MAX
    if kind == "weights":
        colour = dict(colorscale=SEQUENTIAL, zmin=0.0, zmax=1.0 if zmax is None else zmax)
    elif kind == "signed":
        finite = np.abs(shown[np.isfinite(shown)])
        lim = zmax if zmax is not None else (float(finite.max()) if finite.size else 1.0)
        lim = lim if lim > 0 else 1.0
        colour = dict(colorscale=DIVERGING, zmid=0.0, zmin=-lim, zmax=lim)
    else:
        raise ValueError(f'kind must be "signed" or "weights", got {kind!r}')

    hover_rows = np.array(row_ticks, dtype=object)[:, None].repeat(n_cols, axis=1)
    hover_cols = np.array(col_ticks, dtype=object)[None, :].repeat(n_rows, axis=0)
    customdata = np.stack([hover_rows, hover_cols], axis=-1)  # (rows, cols, 2)
    trace = go.Heatmap(
        z=shown,
        x=np.arange(n_cols),
        y=np.arange(n_rows),
        customdata=customdata,
        hovertemplate=(
            f"{row_title or 'row'} %{{y}}: %{{customdata[0]}}<br>"
            f"{col_title or 'column'} %{{x}}: %{{customdata[1]}}<br>"
            f"{value_name} = %{{z:{fmt}}}<extra></extra>"
        ),
        colorbar=dict(thickness=14, tickfont=dict(size=FONT_SIZE - 1)),
        xgap=1,
        ygap=1,
        **colour,
    )
    if show_values:
        trace.text = [[_format_cell(v, fmt) for v in row] for row in z]
        trace.texttemplate = "%{text}"
        trace.textfont = dict(size=max(12, FONT_SIZE - max(n_rows, n_cols) // 5))
    fig = go.Figure(trace)
    if masked.any():
        # Masked cells: a grey rectangle behind the gap, so they read as "not allowed".
        fig.add_trace(
            go.Heatmap(
                z=np.where(masked, 1.0, np.nan),
                x=np.arange(n_cols),
                y=np.arange(n_rows),
                colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
                showscale=False,
                hoverinfo="skip",
                xgap=1,
                ygap=1,
                name="masked",
            )
        )
        fig.data = (fig.data[1], fig.data[0])  # grey layer underneath
    cell = 34 if n_rows <= 16 else max(10, 560 // max(n_rows, 1))
    fig.update_layout(
        title=dict(text=html.escape(title), font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height or int(min(760, max(240, 110 + cell * n_rows))),
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(
            tickmode="array", tickvals=list(range(n_cols)), ticktext=col_ticks,
            title=dict(text=col_title), side="bottom", tickfont=dict(size=FONT_SIZE - 1),
            showgrid=False, zeroline=False,
        ),
        yaxis=dict(
            tickmode="array", tickvals=list(range(n_rows)), ticktext=row_ticks,
            title=dict(text=row_title), autorange="reversed", tickfont=dict(size=FONT_SIZE - 1),
            showgrid=False, zeroline=False,
        ),
    )
    return fig


def line_chart(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    *,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    log_y: bool = False,
    height: int = 360,
) -> go.Figure:
    """One line per named series over a shared x."""
    fig = go.Figure()
    for name, y in series.items():
        fig.add_trace(go.Scatter(x=np.asarray(x), y=np.asarray(y, dtype=np.float64), mode="lines+markers", name=name))
    fig.update_layout(
        title=dict(text=title, font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear"),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
    )
    return fig


def bar_chart(
    labels: list[str],
    values: np.ndarray,
    *,
    title: str = "",
    y_title: str = "",
    y_range: tuple[float, float] | None = None,
    fmt: str = ".3f",
    height: int = 320,
) -> go.Figure:
    """Bars at integer positions with escaped labels and the value printed on each."""
    values = np.asarray(values, dtype=np.float64)
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(labels)),
            y=values,
            text=[format(v, fmt) for v in values],
            textposition="outside",
            textfont=dict(size=FONT_SIZE - 1),
            cliponaxis=False,
        )
    )
    fig.update_layout(
        title=dict(text=title, font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(tickmode="array", tickvals=list(range(len(labels))), ticktext=token_labels(labels)),
        yaxis=dict(title=dict(text=y_title), range=list(y_range) if y_range else None),
    )
    return fig
