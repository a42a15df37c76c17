"""How a figure travels to the browser: st.plotly_chart without Streamlit's chart theme,
in a theme-neutral look, with data Plotly can compare cheaply. The builders in attn_core
make the figures; this module only sends them.
"""

from __future__ import annotations

import collections
import hashlib
import io
import pickle
import re
import threading
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attn_core import tables
from attn_core.figures import _Sent
from attn_core.tables import Table
from ui import present, scripts

__all__ = [
    "COLORWAY",
    "PLOTLY_CONFIG",
    "browser_figure",
    "mount_chart_tools",
    "show_chart",
    "show_figure",
    "table_controls",
]

_CHART_TOOLS_JS = (Path(__file__).resolve().parents[1] / "assets" / "chart_tools.js").read_text(encoding="utf-8")


def mount_chart_tools() -> None:
    """Once per run (app.py): accessible names, keyboard and SVG download for every chart, and
    its numbers, title and ticks fitted to the size the browser draws it at (ui.scripts)."""
    scripts.run(_CHART_TOOLS_JS, key="chart_tools")


# A short mode bar: "download as PNG" and Streamlit's fullscreen button (good on a projector).
# Dragging still zooms and a double click resets; every extra button costs redraw time.
PLOTLY_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": [
        "lasso2d",
        "select2d",
        "zoom2d",
        "pan2d",
        "zoomIn2d",
        "zoomOut2d",
        "autoScale2d",
        "resetScale2d",
    ],
}

# Chart text takes the page's colour through assets/charts.css, so these stay neutral and
# every chart reads on Streamlit's light and dark theme alike.
FONT_FAMILY = '"Source Sans", sans-serif'  # Streamlit's own font, bundled with the app
NEUTRAL = "rgba(128, 128, 128, 0.6)"  # axis and zero lines, colour bar outlines
GRID = "rgba(128, 128, 128, 0.25)"
CLEAR = "rgba(0, 0, 0, 0)"
# Okabe & Ito's colour-blind-safe palette, light enough to read on the dark theme too.
COLORWAY = ["#56B4E9", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#0072B2"]
_LOOK = {
    "colorway": COLORWAY,
    "paper_bgcolor": CLEAR,
    "plot_bgcolor": CLEAR,
    "font": {"family": FONT_FAMILY},
    "modebar": {"bgcolor": CLEAR, "color": NEUTRAL, "activecolor": "rgba(128, 128, 128, 0.95)"},
}
# automargin: room for tick labels unless a builder fixed the margins (the heatmaps do).
# A thin frame round every plot, so a white (zero) cell at a matrix's edge still has an edge.
_AXIS_LOOK = {
    "gridcolor": GRID,
    "zerolinecolor": NEUTRAL,
    "linecolor": NEUTRAL,
    "automargin": True,
    "showline": True,
    "mirror": True,
}


Into = present.Stage | DeltaGenerator | None  # where a chart goes: a section's stage, a container, or here


def show_figure(
    fig: go.Figure, key: str, *, table: Table | None = None, focus_row: int | None = None, into: Into = None
) -> None:
    """A chart, drawn once per change (see browser_figure), with what a student can do with it.

    With a ``table`` (the chart's own numbers): its one-sentence description becomes the
    chart's accessible name (assets/chart_tools.js reads layout.meta), a "Show as
    table" switch shows the numbers with their token labels, and CSV and .npy downloads give
    the exact matrix. The chart's toolbar saves it as PNG or SVG either way. In presenter mode
    every font, margin and cell is drawn larger. ``into``: a section's Stage (its chart area,
    filling the stage's height in presenter mode), a container, or None (where the page writes).
    """
    _send(_ready(fig, table, focus_row, _scale()), key, table, into)


SHARED_FIGURES = 64  # ready figures kept for every session: ~45 KB each at 16 tokens, ~0.4 MB at 64


def show_chart(
    key: str, build, *args, table: Table | None = None, focus_row: int | None = None, into: Into = None, **kwargs
) -> None:
    """``show_figure(build(*args, **kwargs), key, ...)``, with the figure built and made ready
    to send once per distinct input and presenter scale for every session: a class on the
    same example shares its charts (a sixth less server time per Step by step run when every
    chart is shared). Inputs that do not pickle are built for this run only."""
    scale = _scale()
    code = getattr(build, "__code__", None)
    try:
        where = (build.__module__, build.__qualname__, code.co_filename, code.co_firstlineno)
        inputs = _content_bytes((where, args, kwargs, table, focus_row, scale))
    except (AttributeError, TypeError, ValueError, pickle.PicklingError):  # ValueError: a cycle, no memo
        show_figure(build(*args, **kwargs), key, table=table, focus_row=focus_row, into=into)
        return
    fingerprint = hashlib.blake2b(inputs, digest_size=16).digest()
    fig = _SHARED.get(fingerprint)
    if fig is None:
        fig = _SHARED.put(fingerprint, _ready(build(*args, **kwargs), table, focus_row, scale, fingerprint[:8].hex()))
    _send(fig, key, table, into)


def _content_bytes(value) -> bytes:
    """``value`` pickled with no memo, so equal inputs give equal bytes. With the memo, an
    array that two arguments share is written once and then referred to, while two equal
    copies are written twice: the same chart got another fingerprint, so another datarevision,
    and the browser drew it again although nothing in it had changed."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True  # no memo (fine here: chart inputs hold no cycles)
    pickler.dump(value)
    return out.getvalue()


class _Shared:
    """The last ``size`` figures made ready to send, by fingerprint, for every session.

    Not st.cache_data: a hit would unpickle a copy, and copying a Figure costs as much as
    building it, so the figure is shared and never copied; nothing may change it after
    browser_figure (st.plotly_chart only reads it: to_dict makes its own copy). Not
    st.cache_resource either: its per-call argument handling (inspect.signature) cost more
    than this whole lookup.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._figures: collections.OrderedDict[bytes, go.Figure] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, fingerprint: bytes) -> go.Figure | None:
        with self._lock:
            fig = self._figures.get(fingerprint)
            if fig is not None:
                self._figures.move_to_end(fingerprint)
            return fig

    def put(self, fingerprint: bytes, fig: go.Figure) -> go.Figure:
        with self._lock:
            self._figures[fingerprint] = fig
            while len(self._figures) > self._size:
                self._figures.popitem(last=False)
        return fig


_SHARED = _Shared(SHARED_FIGURES)  # one per server process: this module is imported once


def _scale() -> float:
    return present.CHART_SCALE if present.on() else 1.0


def _ready(
    fig: go.Figure, table: Table | None, focus_row: int | None, scale: float, revision: str | None = None
) -> go.Figure:
    """``fig`` with its table's description as its accessible name, converted by browser_figure."""
    if table is not None:
        # A plain string, not {"description": ...}: Plotly's react() compares an object-valued
        # layout.meta by reference, so after mounting, when Streamlit hands the chart its measured
        # width in a copied layout, Plotly redrew every chart from scratch (twice per change;
        # tests/browser/test_redraw.py counts the draws).
        fig._layout["meta"] = tables.describe(table, focus_row)
    return browser_figure(fig, scale=scale, revision=revision)


def _send(fig: go.Figure, key: str, table: Table | None, into: Into) -> None:
    """The chart and its table controls ``into`` a section's stage (in presenter mode as tall as
    the room the stage leaves it), a container, or where the page is writing."""
    name = table.name if table is not None else key
    config = {**PLOTLY_CONFIG, "toImageButtonOptions": {"format": "png", "filename": _slug(name), "scale": 2}}
    if isinstance(into, present.Stage):
        where, fill = into.charts, into.fill
    else:
        where, fill = (st if into is None else into), False
    height = "stretch" if fill else "content"
    where.plotly_chart(fig, key=key, config=config, width="stretch", height=height, theme=None)
    if table is not None:
        table_controls(table, key, where)


def show_heatmap(
    key: str,
    z: np.ndarray,
    *,
    rows: list[str],
    cols: list[str],
    title: str,
    kind: str = "signed",
    row_title: str = "row",
    col_title: str = "column",
    focus_row: int | None = None,
    builder=None,
    name: str = "",
    **kwargs,
) -> None:
    """A labelled heatmap (``attn_core.figures.heatmap``, or ``builder`` with the same call) shown
    with its table: the one way the pages draw a matrix. The table is called ``name``, else the
    title without its step number and shape (``table_name``)."""
    from attn_core import figures as fg

    build = builder or fg.heatmap
    table = Table(z, rows, cols, name=name or table_name(title), kind=kind, row_title=row_title, col_title=col_title)
    labels = dict(rows=rows, cols=cols, title=title, kind=kind, row_title=row_title, col_title=col_title)
    show_chart(key, build, z, table=table, focus_row=focus_row, **labels, **kwargs)


def show_attention(key: str, weights: np.ndarray, rows, cols=None, *, title: str, **kwargs) -> None:
    """A (T_q, T_k) matrix of attention weights (queries down, keys across; ``cols`` defaults
    to ``rows``), with its table: ``show_heatmap`` with the labels every attention chart uses."""
    labels = {"row_title": "query", "col_title": "key", "value_name": "weight", **kwargs}
    cols = rows if cols is None else cols
    show_heatmap(key, weights, rows=list(rows), cols=list(cols), title=title, kind="weights", **labels)


def show_scores(key: str, scores: np.ndarray, rows, cols=None, *, title: str, **kwargs) -> None:
    """A (T_q, T_k) matrix of scores (any sign; queries down, keys across), with its table."""
    labels = {"row_title": "query", "col_title": "key", "value_name": "score", **kwargs}
    cols = rows if cols is None else cols
    show_heatmap(key, scores, rows=list(rows), cols=list(cols), title=title, **labels)


def show_mask(
    key: str,
    mask: np.ndarray | None,
    rows,
    cols=None,
    *,
    title: str,
    name: str = "",
    row_title: str = "query",
    col_title: str = "key",
    builder=None,
    **kwargs,
) -> None:
    """A boolean mask (True = may attend; None = all ones) as a 0/1 chart
    (``attn_core.figures.lab.mask_heatmap``, or ``builder`` with the same call), with its table."""
    from attn_core.figures import lab as lf

    cols = rows if cols is None else cols
    allowed = np.ones((len(rows), len(cols))) if mask is None else np.asarray(mask, dtype=np.float64)
    axes = {"row_title": row_title, "col_title": col_title}
    table = Table(allowed, rows, cols, name=name or title, kind="mask", **axes)
    labels = {"rows": list(rows), "cols": list(cols), "title": title, **axes}
    show_chart(key, builder or lf.mask_heatmap, mask, table=table, **labels, **kwargs)


def labels_of(labels: dict) -> dict:
    """The axis titles of a chart's labels, as its Table takes them."""
    return {k: labels[k] for k in ("row_title", "col_title") if k in labels}


def side_by_side(draw, *charts: tuple, into: present.Stage) -> None:
    """``draw(*args, into=column)`` for each chart's arguments, each in a column of its own on
    the section's stage ``into`` (each column a Stage of its own)."""
    for column, args in zip(into.chart_columns(len(charts)), charts, strict=True):
        draw(*args, into=column)


def show_lines(
    key: str,
    x,
    series: dict[str, np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str = "",
    builder=None,
    into: Into = None,
    **kwargs,
) -> None:
    """Lines over a shared x (``attn_core.figures.line_chart``, or ``builder`` with the same call),
    shown with their table: one row per x value, one column per line."""
    from attn_core import figures as fg

    build = builder or fg.line_chart
    fig = build(x, series, title=title, x_title=x_title, y_title=y_title, **kwargs)
    values = np.column_stack([np.asarray(v, dtype=np.float64) for v in series.values()])  # (n, lines)
    rows = [f"{v:g}" for v in np.asarray(x, dtype=np.float64)]
    table = Table(values, rows, list(series), name=title, kind="lines", row_title=x_title, col_title=y_title or "line")
    show_figure(fig, key, table=table, into=into)


def show_bars(
    key: str,
    labels,
    values: np.ndarray,
    *,
    title: str,
    y_title: str = "",
    row: str = "",
    name: str = "",
    row_title: str = "row",
    col_title: str = "",
    **kwargs,
) -> None:
    """Bars at labelled positions (``attn_core.figures.bar_chart``), shown with their table: one
    row (``row``, else the y axis title) with a column per bar, called ``name`` (else the title)."""
    from attn_core import figures as fg

    values = np.asarray(values)
    table = Table(
        values[None, :],
        [row or y_title or "value"],
        labels,
        name=name or title,
        kind="bars",
        row_title=row_title,
        col_title=col_title,
    )
    show_chart(key, fg.bar_chart, list(labels), values, table=table, title=title, y_title=y_title, **kwargs)


def show_panels(
    key: str, panels: list[tuple[str, np.ndarray]], *, rows=None, cols=None, title: str, name: str = "", **kwargs
) -> None:
    """Matrices with the same rows side by side (``attn_core.figures.heatmap_panels``), shown
    with one table that puts their columns next to each other: ``cols`` labels them, else
    "W_q 0", "W_q 1", ... (column title "matrix and column")."""
    from attn_core import figures as fg

    values = np.hstack([z for _, z in panels])  # (n_rows, sum of the panels' widths)
    row_labels = [str(r) for r in range(values.shape[0])] if rows is None else rows
    if cols is None:
        cols = [f"{label} {c}" for label, z in panels for c in range(z.shape[1])]
        titles = {"row_title": kwargs.get("row_title", "row"), "col_title": "matrix and column"}
    else:
        titles = labels_of({"row_title": "row", "col_title": "column", **kwargs})
    table = Table(values, row_labels, cols, name=name or table_name(title), **titles)
    show_chart(
        key, fg.heatmap_panels, panels, table=table, rows=None if rows is None else list(rows), title=title, **kwargs
    )


def table_name(title: str) -> str:
    """A chart title without its step number and its shape: "Step 2: X (7×16)" -> "X",
    "W_O: 16 × 16" -> "W_O"."""
    name = re.sub(r"^Step \d+:\s*", "", title)
    name = re.sub(r"(:\s*\d+\s*×\s*\d+|\s*\(\d+\s*×\s*\d+[^()]*\))\s*$", "", name)
    return name.strip() or title


# A chart's numbers as files: (button label, extension, MIME type, bytes, what the help says).
DOWNLOADS = (
    ("CSV", "csv", "text/csv", tables.to_csv, "as CSV, with the token labels"),
    (".npy", "npy", "application/octet-stream", tables.to_npy, "as a NumPy array"),
)


def table_controls(table: Table, key: str, where=st) -> None:
    """The "Show as table" switch and the CSV and .npy downloads of one chart's numbers, in a
    row under the chart (in ``where``). One horizontal container, not three columns: a page of nine charts
    sends 27 blocks fewer per run (each costs the server time, and the browser a re-render)."""
    stem = _slug(table.name)
    row = where.container(horizontal=True, vertical_alignment="center", gap="medium")
    shown = row.toggle("Show as table", key=f"{key}_table", help="The same numbers, with their labels")
    for label, ext, mime, data, what in DOWNLOADS:
        row.download_button(
            label,
            data=lambda data=data: data(table),
            file_name=f"{stem}.{ext}",
            mime=mime,
            on_click="ignore",
            key=f"{key}_{ext}",
            icon=":material/download:",
            help=f"{table.name} {what}",
        )
    if shown:
        where.table(_frame(table))


def _frame(table: Table):
    """The table as a DataFrame whose labels are unique ("3:the"), numbers as text. st.table
    renders its cells as markdown, so the labels (user text) are escaped to read literally."""
    import pandas as pd  # Streamlit's own dependency; only needed once a table is shown

    from ui.common import md_escape

    def cell(x: float) -> str:
        return "−∞" if np.isneginf(x) else f"{x:.3f}".replace("-", "−")

    body = [[cell(float(x)) for x in row] for row in np.asarray(table.values, dtype=np.float64)]
    rows = [md_escape(label) for label in tables.labelled(table.rows, table.first_row)]
    cols = [md_escape(label) for label in tables.labelled(table.cols)]
    frame = pd.DataFrame(body, index=rows, columns=cols)
    frame.index.name = md_escape(table.row_title)
    return frame


def _slug(name: str) -> str:
    """A file name from a chart name: lowercase letters, digits and dashes."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:60] or "chart"


def browser_figure(fig: go.Figure, scale: float = 1.0, revision: str | None = None) -> go.Figure:
    """The figure as the pages send it: drawn once by the browser, in a theme-neutral look,
    every size multiplied by ``scale`` (presenter mode). ``fig`` itself is converted and returned.
    ``revision`` is its datarevision when the caller already fingerprinted everything the
    figure is made from (show_chart); otherwise a hash of its data and layout is taken.

    Streamlit's own chart theme makes the browser draw every chart twice: right after a chart
    is mounted, the front end hands Plotly a re-themed JSON copy, and Plotly redraws from
    scratch because the copied template object, or any typed array (what numpy arrays are
    sent as), no longer compares equal. So the pages send charts with ``theme=None`` and:
    plain lists instead of typed arrays (float32 arrays, which the real-model page uses to keep
    its big charts small, stay as they are), no template (the look above sets the colorway;
    every colour scale is set by the builders), ``datarevision`` = a hash of the data (so
    Plotly compares the numbers by revision, not by array identity), and a transparent,
    neutral look whose text colour comes from the page (assets/charts.css). Half the drawing work per change;
    tests/browser/test_redraw.py counts the draws.
    """
    # The raw properties, read without a copy (_plain builds new containers): to_dict() would
    # turn arrays into base64, to_plotly_json() deep-copies every label one by one.
    layout = {key: value for key, value in fig._layout.items() if key != "template"}
    if revision is None:
        revision = hashlib.blake2b(_content_bytes((fig._data, layout)), digest_size=8).hexdigest()
    layout = _with_defaults(_plain(layout), _LOOK)
    for key in layout:
        if key.startswith(("xaxis", "yaxis")) and isinstance(layout[key], dict):
            layout[key] = _with_defaults(layout[key], _AXIS_LOOK)
    if isinstance(layout.get("title"), dict) and layout["title"].get("text"):
        # 2 px in from the edge: a first letter such as "A" or "V" reaches a pixel left of its x.
        title = {"x": 0.0, "xanchor": "left", "pad": {"l": 2}, "font": {"weight": 600}}
        layout["title"] = _with_defaults(layout["title"], title)
    layout["datarevision"] = revision
    data = _plain(fig._data)
    _fix_reversed_rows(layout, data)
    if scale != 1.0:
        layout, data = _scaled(layout, scale), [_scaled(trace, scale) for trace in data]
    # In place: building a second Figure costs as much as the first (its Layout objects are
    # made even without validation), and a figure is built for one chart and sent once.
    fig._layout.clear()
    fig._layout.update(layout)
    for props, plain in zip(fig._data, data, strict=True):
        props.clear()
        props.update(plain)
    return fig


def _fix_reversed_rows(layout: dict, data: list[dict]) -> None:
    """A heatmap's rows top-down as a fixed range instead of ``autorange="reversed"``, in place.

    Plotly draws a reversed axis and then writes ``autorange=True`` and the range it found back
    into the figure it was given. Right after mounting a chart Streamlit hands Plotly a fresh
    copy of the figure as sent, whose "reversed" now reads as a change, and Plotly draws the
    whole chart again. Where every trace on the axis is a heatmap (rows at 0, 1, ... or at the
    y values it gives), the range is known here: from its last row's outer edge to its first's.
    An axis tied to another (``scaleanchor``, ``constrain``) keeps its autorange."""
    for key, axis in list(layout.items()):
        if not (key.startswith("yaxis") and isinstance(axis, dict) and axis.get("autorange") == "reversed"):
            continue
        if "scaleanchor" in axis or "constrain" in axis or "range" in axis:
            continue
        ref = "y" + key[len("yaxis") :]
        traces = [t for t in data if (t.get("yaxis") or "y") == ref]
        rows = [_row_span(t) for t in traces]
        if not rows or any(r is None for r in rows):
            continue
        top, bottom = min(r[0] for r in rows), max(r[1] for r in rows)
        layout[key] = {**axis, "autorange": False, "range": [bottom, top]}


def _row_span(trace: dict) -> tuple[float, float] | None:
    """Where a heatmap trace's rows begin and end on its y axis (the outer edges of its first and
    last cells, as Plotly draws them), or None for another trace."""
    if trace.get("type") != "heatmap" or trace.get("z") is None or "y0" in trace or "dy" in trace:
        return None
    y = trace.get("y")
    try:
        ys = sorted(float(v) for v in y) if y is not None else None
    except (TypeError, ValueError):  # category names: placed at 0, 1, ...
        ys = None
    if ys is None:
        n = len(y) if y is not None else len(trace["z"])
        return -0.5, n - 0.5
    if len(ys) < 2:
        return (ys[0] - 0.5, ys[0] + 0.5) if ys else None
    return ys[0] - (ys[1] - ys[0]) / 2, ys[-1] + (ys[-1] - ys[-2]) / 2


_SCALED_KEYS = {"height", "thickness", "l", "r", "t", "b", "pad"}


def _scaled(props: dict, scale: float, in_font: bool = False) -> dict:
    """A copy of ``props`` drawn ``scale`` times larger: font sizes, heights, margins, colour
    bars and markers, in annotations and shapes too. The builders fit margins and cell values
    to their text at scale 1; text widths grow with the font, so everything still fits when it
    all grows together (presenter mode also gives charts a wider page: the sidebar is collapsed)."""
    out = {}
    for key, value in props.items():
        if isinstance(value, dict):
            out[key] = _scaled(value, scale, in_font or "font" in key or key == "marker")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out[key] = [_scaled(v, scale, in_font) for v in value]  # annotations, shapes
        elif (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and ((in_font and key == "size") or key in _SCALED_KEYS)
        ):
            out[key] = round(value * scale, 1)
        else:
            out[key] = value
    return out


def _with_defaults(props: dict, defaults: dict) -> dict:
    """``props`` with ``defaults`` filled in where it says nothing (nested dicts merged)."""
    out = dict(props)
    for key, value in defaults.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _with_defaults(out[key], value)
        else:
            out.setdefault(key, value)
    return out


_ATOMS = (str, int, float, bool, type(None), _Sent)  # what a _Sent list may hold


def _plain(value):
    """Nested dicts/lists with every ndarray but float32 ones turned into (nested) lists;
    NaN and inf -> None. Lists the builders already made ready (attn_core.figures._Sent)
    pass as they are; a list of plain values (tick positions, a colour scale's stops) is
    made one too, so that Streamlit's deep copy of the figure skips it."""
    if isinstance(value, _Sent):
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_plain(v) for v in value]
        return _Sent(items) if all(type(v) in _ATOMS for v in items) else items
    if isinstance(value, np.ndarray):
        if value.dtype == np.float32:
            return value  # the big real-model charts: kept compact (base64 float32), at one redraw more
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return _Sent(np.where(np.isfinite(value), value, None).tolist())
        return _Sent(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value
