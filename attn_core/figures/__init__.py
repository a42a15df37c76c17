"""Plotly layer: imports plotly, numpy, the standard library and attn_core's NumPy and figure modules.

Plotly figure builders: engine results in, figures out. No maths, no Streamlit.

Every label that can hold user text goes through ``safe_label`` so it is shown
literally: Plotly renders a small HTML subset (<b>, <a href>, <br>) and treats
text wrapped in $...$ as LaTeX, so both are neutralised here.
"""

from __future__ import annotations

import functools
import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

__all__ = [
    "DIVERGING",
    "FONT_SIZE",
    "SEQUENTIAL",
    "Labels",
    "bar_chart",
    "dim_labels",
    "heatmap",
    "heatmap_panels",
    "line_chart",
    "safe_label",
    "token_labels",
]

# Colour-blind-safe scales: a blue-white-red diverging scale centred on 0 for signed
# matrices, and cividis (designed for colour-vision deficiency) for weights in [0, 1].
# Every heatmap takes its colours from _colours.
DIVERGING = "RdBu_r"
SEQUENTIAL = "Cividis"
MASKED_COLOR = "rgba(128, 128, 128, 0.55)"
MASKED_MARK_SIZE = 12  # the "×" on masked cells too small for printed values (no chart text under 12 px)
FONT_SIZE = 14  # projector-readable; nothing on a chart is drawn under 12 px
CELL_TEXT_MAX = 14  # print values in cells when both sides are at most this long
LABEL_MAX_CHARS = 18
TICK_SIZE = FONT_SIZE - 1
HALF_WIDTH_PX = 400  # a chart in one of two columns at 1280x800 with the sidebar open
FULL_WIDTH_PX = 800  # a chart as wide as the page at 1280x800 with the sidebar open
LABEL_SLACK = 0.9  # column labels must not overlap at 90 % of that width (the window may be narrower)
CELL_PAD_PX = 4  # room a printed value leaves in its cell
# Drawn width of a character in ems: digits are narrower than letters, CJK wider (see _text_px).
_CHAR_EM = {**dict.fromkeys("0123456789", 0.55), ".": 0.28, ",": 0.28, "-": 0.6, "\u2212": 0.6, "\u221e": 0.8}
# A bar chart's bars, and the one it highlights (Okabe & Ito, as ui.charts' colourway).
BAR_COLOR, HIGHLIGHT_COLOR = "#56B4E9", "#D55E00"
# A thin colour bar just right of the plot (6 px off its edge, not 2 % of its width), so that
# on a phone the cells keep most of the width; the right margin holds it and its numbers.
COLORBAR = dict(
    thickness=10, x=1.0, xanchor="left", xpad=6, tickfont=dict(size=TICK_SIZE), ticklabeloverflow="allow", nticks=6
)
COLORBAR_PX = 90  # the right margin for a colour bar whose numbers are not known (the widest case)
TITLE_PX = 56  # a heatmap's top margin: room for its title on two lines, or one line and a note
TICKS_MAX = 64  # an axis with more positions than this (a 384-wide X) labels every few only


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


def _ticks(labels: list[str]) -> dict:
    """Tick values and texts for integer positions; thinned out when there are very many."""
    step = 1 if len(labels) <= TICKS_MAX else -(-len(labels) // (TICKS_MAX // 2))
    vals = range(0, len(labels), step)
    return dict(tickmode="array", tickvals=_Sent(vals), ticktext=_Sent([labels[v] for v in vals]))


def _text_px(text: str, size: int = TICK_SIZE) -> float:
    """About how wide a label is drawn, so margins can be set without Plotly measuring every
    label in the browser (auto-margins and auto-angles cost ~40 % of a redraw)."""
    text = html.unescape(text)
    return sum(size * _CHAR_EM.get(ch, 1.05 if unicodedata.east_asian_width(ch) in "WF" else 0.62) for ch in text)


def _fixed_axes(
    row_ticks: list[str],
    col_ticks: list[str],
    row_title: str,
    col_title: str,
    *,
    top: int,
    right: int = COLORBAR_PX,
    width: float = HALF_WIDTH_PX,
) -> tuple[dict, dict, dict]:
    """Margins and axis settings that fit the tick labels, worked out here instead of by
    Plotly's automargin. Column labels turn 45 degrees when they would overlap in a chart
    ``width`` wide (judged with LABEL_SLACK).

    Returns: (margin, xaxis extras, yaxis extras)
    """
    col_px = max((_text_px(t) for t in col_ticks), default=0.0)
    row_px = max((_text_px(t) for t in row_ticks), default=0.0)
    flat = col_px + 8 <= width * LABEL_SLACK / max(len(col_ticks), 1)
    label_h = TICK_SIZE * 1.4 if flat else (col_px + TICK_SIZE) * 0.72
    title_h = TICK_SIZE * 2.2 if col_title else 0
    title_w = TICK_SIZE * 2.2 if row_title else 0
    margin = dict(l=int(14 + row_px + title_w), r=right, t=top, b=int(12 + label_h + title_h), autoexpand=False)
    fixed = dict(automargin=False, ticklabeloverflow="allow", tickfont=dict(size=TICK_SIZE))
    return margin, dict(fixed, tickangle=0 if flat else -45), dict(fixed, tickangle=0)


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """A Figure from plain dicts, without Plotly's per-property validation and without a
    template (Plotly.py would add its default one, which ui.charts.browser_figure drops again).
    Every builder here, in figures.lab, figures.real_model and figures.context makes its figure with this, and
    only with this: no go.Heatmap, no add_trace or update_layout after the fact.

    Validation was most of a rerun's server time (~8 ms a heatmap), adding the template
    most of what was left; tests/unit/test_figures.py checks that every builder's output equals
    what the validating constructor makes, template aside.
    """
    fig = go.Figure(data=traces, layout={**layout, "template": {}}, _validate=False)  # {}: nothing to add
    fig._layout.pop("template")
    return fig


class _Sent(list):
    """An array already converted for sending: copying it hands back the same object.

    Plotly.py deep-copies figure data twice on its way out (Figure() and to_dict()); for
    nested lists of floats that is most of a rerun's server time, for these it is free.
    Nothing changes them once built; ui.charts.browser_figure sends them as they are.
    """

    __slots__ = ()

    def __deepcopy__(self, memo):
        return self


# As explicit [pos, colour] lists, ready to send: every heatmap shares them, uncopied.
_SCALES = {name: _Sent(_Sent(stop) for stop in get_colorscale(name)) for name in (DIVERGING, SEQUENTIAL)}


def _colours(kind: str, mats: Sequence[np.ndarray] = (), zmax: float | None = None, *, axis: bool = False) -> dict:
    """A heatmap's colour settings. "weights": sequential, 0 to ``zmax`` (1 when None).
    "signed": diverging, centred on 0, from -lim to lim with lim = ``zmax``, or when None
    the largest finite |value| in ``mats``; 1 when lim is not above 0.

    Returns: colorscale, zmin, zmax (and zmid) for a trace; cmin, cmax, cmid for a
    colour axis shared by several traces (``axis``)
    """
    if kind == "weights":
        colour = dict(colorscale=_SCALES[SEQUENTIAL], zmin=0.0, zmax=1.0 if zmax is None else zmax)
    elif kind == "signed":
        if zmax is None:
            finite = [np.abs(z[np.isfinite(z)]) for z in mats]
            zmax = max((float(f.max()) for f in finite if f.size), default=1.0)
        lim = zmax if zmax > 0 else 1.0
        colour = dict(colorscale=_SCALES[DIVERGING], zmid=0.0, zmin=-lim, zmax=lim)
    else:
        raise ValueError(f'kind must be "signed" or "weights", got {kind!r}')
    if axis:
        return {("c" + key[1:] if key.startswith("z") else key): value for key, value in colour.items()}
    return colour


def _colorbar_px(colour: dict) -> int:
    """The right margin that holds COLORBAR and its numbers, for a trace's colour settings
    (``_colours``): the bar, its gaps and about the widest tick label Plotly writes on it
    ("0.8" for weights; "−0.5", "−50", "−500" or "−1.5k" for signed values)."""
    low, high = (float(colour.get(k, colour.get("c" + k[1:], 0.0))) for k in ("zmin", "zmax"))
    top = max(abs(low), abs(high))
    if low >= 0 and top <= 1:
        label = "0.8"
    else:
        label = "0.5" if top < 10 else "5" * len(str(int(top))) if top < 1000 else "1.5k"
        label = ("\u2212" if low < 0 else "") + label
    return int(COLORBAR["xpad"] + COLORBAR["thickness"] + 4 + _text_px(label) + 8)


def _format_cell(value: float, fmt: str) -> str:
    if np.isneginf(value):
        return "\u2212\u221e"
    if not np.isfinite(value):
        return ""
    return format(value, fmt)


def _hover(row_ticks: list[str], col_ticks: list[str]) -> list:
    """Per-cell hover labels, customdata (rows, cols, 2): each cell's row and column label."""
    return _hover_grid(tuple(row_ticks), tuple(col_ticks))


@functools.lru_cache(maxsize=16)
def _hover_grid(row_ticks: tuple[str, ...], col_ticks: tuple[str, ...]) -> list:
    """_hover's grid, made once per pair of label lists: a sentence's T x T charts (scores,
    scaled, masked, weights) share one, and so do reruns on the same sentence. Building T * T
    small lists was the builders' largest cost (8 % of a Step by step rerun at T = 16)."""
    return _Sent([[[row, col] for col in col_ticks] for row in row_ticks])


def _cell_font(n: int) -> int:
    """The size of values printed in the cells: a little smaller for bigger matrices."""
    return max(12, FONT_SIZE - n // 5)


def _values_fit(mats: list[np.ndarray], fmt: str, cell_px: float) -> bool:
    """Whether to print the values of ``mats`` in their cells: no side longer than
    CELL_TEXT_MAX, and every value, printed with ``fmt``, fits a cell ``cell_px`` wide."""
    longest = max(max(z.shape) for z in mats)
    if longest > CELL_TEXT_MAX:
        return False
    size = _cell_font(longest)
    widest = max((_text_px(_format_cell(v, fmt), size) for z in mats for v in z.ravel()), default=0.0)
    return widest + CELL_PAD_PX <= cell_px


def _cell_text(z: np.ndarray, fmt: str) -> dict:
    """Values printed in the cells."""
    return dict(
        text=_Sent([[_format_cell(v, fmt) for v in row] for row in z]),
        texttemplate="%{text}",
        textfont=dict(size=_cell_font(max(z.shape))),
    )


def _auto_height(n_rows: int) -> int:
    cell = 34 if n_rows <= 16 else max(10, 560 // max(n_rows, 1))
    return int(min(760, max(240, 110 + cell * n_rows)))


def _title(text: str) -> dict:
    return dict(text=html.escape(text), font=dict(size=FONT_SIZE + 2))


@dataclass(frozen=True)
class Labels:
    """The words on a heatmap and how its numbers print, the same for ``heatmap`` and
    ``heatmap_panels``: the chart's title, the two axis titles, what a cell's number is called
    in its hover text, and its format. The title is escaped where it is drawn; the other labels
    are words the code chooses, never user text."""

    title: str = ""
    row_title: str = ""
    col_title: str = ""
    value_name: str = "value"
    fmt: str = ".2f"


def heatmap(
    z: np.ndarray,
    *,
    rows: list[str],
    cols: list[str],
    kind: str = "signed",
    show_values: bool | None = None,
    show_scale: bool = True,
    zmax: float | None = None,
    height: int | None = None,
    width_px: float = HALF_WIDTH_PX,
    marks: np.ndarray | None = None,
    **labels: Any,
) -> go.Figure:
    """A labelled heatmap of a (rows, cols) matrix; ``labels`` are the fields of ``Labels``
    (title, row_title, col_title, value_name, fmt).

    ``rows``/``cols`` are raw labels (escaped here); cells sit at integer positions, so
    repeated labels stay separate rows and columns. ``kind`` is "signed" (diverging,
    centred on 0) or "weights" (sequential, 0..1). -inf cells (masked scores) are drawn
    grey and marked with the minus-infinity sign, or with a small "×" where the values are
    not printed. Values are printed in the cells (unless
    ``show_values`` says otherwise) when there are few and they fit a chart ``width_px``
    wide: half the page by default, FULL_WIDTH_PX for a chart as wide as the page. The same
    width decides whether the column labels lie flat or turn 45 degrees. ``show_scale``
    False leaves out the colour bar. ``marks`` (rows, cols) bool names the cells that get
    the "×" when values are not printed: the -inf cells when None (a 0/1 mask passes its
    forbidden cells, figures.lab.mask_heatmap).
    """
    lab = Labels(**labels)
    title, row_title, col_title, value_name, fmt = lab.title, lab.row_title, lab.col_title, lab.value_name, lab.fmt
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(rows), len(cols)):
        raise ValueError(f"z must have shape (len(rows)={len(rows)}, len(cols)={len(cols)}), got {z.shape}")
    n_rows, n_cols = z.shape
    masked = np.isneginf(z)
    marks = masked if marks is None else np.asarray(marks, dtype=bool)
    if marks.shape != z.shape:
        raise ValueError(f"marks must have the shape of z, {z.shape}, got {marks.shape}")
    shown = np.where(np.isfinite(z), z, np.nan)  # JSON has no inf: masked cells become gaps
    row_ticks, col_ticks = token_labels(rows), token_labels(cols)
    x_ticks, y_ticks = _ticks(col_ticks), _ticks(row_ticks)
    colour = _colours(kind, [z], zmax)
    right = _colorbar_px(colour) if show_scale else 16
    margin, x_fixed, y_fixed = _fixed_axes(
        y_ticks["ticktext"], x_ticks["ticktext"], row_title, col_title, top=TITLE_PX, right=right, width=width_px
    )
    if show_values is None:
        plot_px = width_px - margin["l"] - margin["r"]
        show_values = _values_fit([z], fmt, plot_px / max(n_cols, 1))
    marked = bool(marks.any()) and not show_values  # no "−∞" (or 0) printed: a "×" on each marked cell

    trace = dict(
        type="heatmap",
        z=shown,
        x=np.arange(n_cols),
        y=np.arange(n_rows),
        customdata=_hover(row_ticks, col_ticks),
        hovertemplate=(
            f"{row_title or 'row'} %{{y}}: %{{customdata[0]}}<br>"
            f"{col_title or 'column'} %{{x}}: %{{customdata[1]}}<br>"
            f"{value_name} = %{{z:{fmt}}}<extra></extra>"
        ),
        colorbar=COLORBAR,
        **colour,
        **({} if show_scale else dict(showscale=False)),
        **(_cell_text(z, fmt) if show_values else {}),
    )
    traces = [trace]
    if masked.any():
        # Masked cells: grey underneath, showing through where the scores are empty (NaN).
        grey = dict(
            type="heatmap",
            z=np.where(masked, 1.0, np.nan),
            x=np.arange(n_cols),
            y=np.arange(n_rows),
            colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
            showscale=False,
            hoverinfo="skip",
            name="masked",
        )
        traces = [grey, trace]  # grey layer underneath
    if marked:
        traces.append(_masked_marks(marks))
    # The "×"s are text, which would pad the axes' automatic range past the cells: fix it to them.
    x_range = dict(range=[-0.5, n_cols - 0.5]) if marked else {}
    y_range = dict(range=[n_rows - 0.5, -0.5], autorange=False) if marked else dict(autorange="reversed")
    layout = dict(
        title=_title(title),
        font=dict(size=FONT_SIZE),
        height=(height or _auto_height(n_rows)) + margin["b"] - 10,
        margin=margin,
        xaxis=dict(
            **x_ticks, **x_fixed, **x_range, title=dict(text=col_title), side="bottom", showgrid=False, zeroline=False
        ),
        yaxis=dict(**y_ticks, **y_fixed, **y_range, title=dict(text=row_title), showgrid=False, zeroline=False),
    )
    return _figure(traces, layout)


def _masked_marks(masked: np.ndarray) -> dict:
    """A small "×" on every masked cell of a heatmap whose values are not printed, so a masked
    cell differs from a cell of another colour by more than its grey (WCAG 1.4.1). Text, not
    a marker: chart text takes the page's text colour (assets/charts.css), so the × reads on
    the grey in the light and the dark theme. Named "masked" like the grey layer."""
    i, j = np.nonzero(masked)  # (n_masked,) row and column of each masked cell
    return dict(
        type="scatter",
        mode="text",
        x=_Sent(j.tolist()),
        y=_Sent(i.tolist()),
        text="\u00d7",  # one string for every point: the payload grows by two short int lists
        textfont=dict(size=MASKED_MARK_SIZE),
        textposition="middle center",
        hoverinfo="skip",
        showlegend=False,
        cliponaxis=True,
        name="masked",
    )


PANEL_GAP = 0.05  # fraction of the width between side-by-side panels


def heatmap_panels(
    panels: list[tuple[str, np.ndarray]],
    *,
    rows: list[str] | None,
    show_values: bool | None = None,
    height: int | None = None,
    width_px: float = HALF_WIDTH_PX,
    **labels: Any,
) -> go.Figure:
    """Signed matrices that share their rows (Q, K and V; or W_q, W_k and W_v) side by side,
    on one diverging colour scale centred on 0, so equal colours mean equal numbers;
    ``labels`` as in ``heatmap``.

    ``panels`` holds (name, z) pairs, z (n_rows, n_cols_p); the names are fixed text (each
    trace is named after its panel). ``rows`` are raw row labels (escaped here, integer
    positions as in ``heatmap``), or None to number the rows; columns are numbered.
    """
    lab = Labels(**labels)
    title, row_title, col_title, value_name, fmt = lab.title, lab.row_title, lab.col_title, lab.value_name, lab.fmt
    if not panels:
        raise ValueError("panels must hold at least one (name, z) pair")
    mats = [np.asarray(z, dtype=np.float64) for _, z in panels]
    n_rows = len(rows) if rows is not None else int(np.shape(mats[0])[0]) if mats[0].ndim else 0
    for (name, _), z in zip(panels, mats, strict=True):
        if z.ndim != 2 or z.shape[0] != n_rows:
            raise ValueError(f"panel {name!r} must have shape (n_rows={n_rows}, n_cols), got {z.shape}")
    row_ticks = token_labels(rows) if rows is not None else None
    # Panel widths follow their column counts, so cells are the same size in every panel.
    widths = np.array([z.shape[1] for z in mats], dtype=np.float64)
    widths = widths / widths.sum() * (1.0 - PANEL_GAP * (len(mats) - 1))
    y_ticks = _ticks(row_ticks) if rows is not None else {}
    # Columns (and unlabelled rows) are numbered by Plotly; the widest number sets the margin.
    colour = _colours("signed", mats, axis=True)
    margin, x_fixed, y_fixed = _fixed_axes(
        y_ticks.get("ticktext", [str(n_rows - 1)]),
        ["00"],
        row_title,
        col_title,
        top=80,
        right=_colorbar_px(colour),
        width=width_px,
    )
    if show_values is None:  # as in heatmap; ``width_px`` too
        cell_px = (
            (width_px - margin["l"] - margin["r"]) * (1.0 - PANEL_GAP * (len(mats) - 1)) / sum(z.shape[1] for z in mats)
        )
        show_values = _values_fit(mats, fmt, cell_px)
    traces, layout = (
        [],
        dict(
            title=_title(title),
            font=dict(size=FONT_SIZE),
            height=(height or _auto_height(n_rows)) + margin["b"] - 10,
            margin=margin,
            coloraxis=dict(**colour, colorbar=COLORBAR),
            yaxis=dict(
                **y_ticks, **y_fixed, title=dict(text=row_title), autorange="reversed", showgrid=False, zeroline=False
            ),
            annotations=[],
        ),
    )
    left = 0.0
    for p, ((name, _), z, width) in enumerate(zip(panels, mats, widths, strict=True)):
        axis = "x" if p == 0 else f"x{p + 1}"
        row_hover = "%{customdata}" if rows is not None else ""
        trace = dict(
            type="heatmap",
            z=np.where(np.isfinite(z), z, np.nan),
            x=np.arange(z.shape[1]),
            y=np.arange(n_rows),
            xaxis=axis,
            yaxis="y",
            coloraxis="coloraxis",
            name=name,
            customdata=None if rows is None else _Sent([[label] * z.shape[1] for label in row_ticks]),
            hovertemplate=(
                f"{row_title or 'row'} %{{y}}: {row_hover}<br>{html.escape(name)}, {col_title or 'column'} %{{x}}<br>"
                f"{value_name} = %{{z:{fmt}}}<extra></extra>"
            ),
            **(_cell_text(z, fmt) if show_values else {}),
        )
        traces.append(trace)
        layout["xaxis" if p == 0 else f"xaxis{p + 1}"] = dict(
            **x_fixed,
            domain=[left, left + width],
            anchor="y",
            # One column title, under the middle panel: the panels share it, and three copies
            # side by side run into each other on a phone ("d_k dimensid_k dimension").
            title=dict(text=col_title if p == len(mats) // 2 else ""),
            showgrid=False,
            zeroline=False,
        )
        layout["annotations"].append(
            dict(
                text=f"<b>{html.escape(name)}</b>",
                xref=f"{axis} domain",
                yref="paper",
                x=0.5,
                y=1.0,
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=FONT_SIZE + 1),
            )
        )
        left += width + PANEL_GAP
    return _figure(traces, layout)


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
    return _figure(*_lines(x, series, title=title, x_title=x_title, y_title=y_title, log_y=log_y, height=height))


def _lines(
    x: np.ndarray, series: dict[str, np.ndarray], *, title: str, x_title: str, y_title: str, log_y: bool, height: int
) -> tuple[list[dict], dict]:
    """line_chart's traces and layout, for builders that add to them (figures.lab.log_x_lines)."""
    traces = [
        dict(type="scatter", x=np.asarray(x), y=np.asarray(y, dtype=np.float64), mode="lines+markers", name=name)
        for name, y in series.items()
    ]
    layout = dict(
        title=dict(text=title, font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(title=dict(text=x_title)),
        # On a log axis, label whole decades only: Plotly's in-between labels (2, 5) are tiny.
        yaxis=dict(title=dict(text=y_title), type="log", dtick=1) if log_y else dict(title=dict(text=y_title)),
        # Under everything, at the bottom of the figure: above the plot it ran into the title.
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, x=0),
    )
    return traces, layout


def bar_chart(
    labels: list[str],
    values: np.ndarray,
    *,
    title: str = "",
    y_title: str = "",
    y_range: tuple[float, float] | None = None,
    fmt: str = ".3f",
    height: int = 320,
    highlight: int | None = None,
) -> go.Figure:
    """Bars at integer positions with escaped labels and the value printed on each.

    ``highlight`` (a position) draws that bar in a second colour with its label and value in
    bold, so the chosen key stands out by more than its colour. The x axis has no zero line:
    at x = 0 it would be drawn through the middle of the first bar.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(labels)
    if highlight is not None and not 0 <= highlight < n:
        raise ValueError(f"highlight must be a position in 0..{n - 1}, got {highlight}")
    text = [format(v, fmt) for v in values]
    ticks = token_labels(labels)
    bar = dict(
        type="bar",
        x=np.arange(n),
        y=values,
        textposition="outside",
        textfont=dict(size=FONT_SIZE - 1),
        cliponaxis=False,
    )
    if highlight is not None:
        text[highlight] = f"<b>{text[highlight]}</b>"
        bar["marker"] = dict(color=[HIGHLIGHT_COLOR if i == highlight else BAR_COLOR for i in range(n)])
    bar["text"] = text
    x_ticks = _ticks(ticks)
    margin, x_fixed, y_fixed = _fixed_axes(
        [format(float(np.max(values, initial=0.0)), fmt)], x_ticks["ticktext"], y_title, "", top=50, right=10
    )
    if highlight is not None and highlight in x_ticks["tickvals"]:
        shown = list(x_ticks["ticktext"])
        shown[list(x_ticks["tickvals"]).index(highlight)] = f"<b>{ticks[highlight]}</b>"
        x_ticks["ticktext"] = _Sent(shown)
    layout = dict(
        title=dict(text=title, font=dict(size=FONT_SIZE + 2)),
        font=dict(size=FONT_SIZE),
        height=height + margin["b"] - 10,
        margin=margin,
        xaxis=dict(**x_ticks, **x_fixed, zeroline=False),
        yaxis=dict(**y_fixed, title=dict(text=y_title), **(dict(range=list(y_range)) if y_range else {})),
    )
    return _figure([bar], layout)
