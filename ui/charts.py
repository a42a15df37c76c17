"""How a figure travels to the browser: st.plotly_chart without Streamlit's chart theme,
in a theme-neutral look, with data Plotly can compare cheaply. The builders in attn_core
make the figures; this module only sends them.
"""

from __future__ import annotations

import hashlib
import pickle

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from attn_core.figures import _Sent

__all__ = ["COLORWAY", "PLOTLY_CONFIG", "browser_figure", "show_figure"]

# A short mode bar: "download as PNG" and Streamlit's fullscreen button (good on a projector).
# Dragging still zooms and a double click resets; every extra button costs redraw time.
PLOTLY_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["lasso2d", "select2d", "zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d",
                               "resetScale2d"],
}  # fmt: skip

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
_AXIS_LOOK = {"gridcolor": GRID, "zerolinecolor": NEUTRAL, "linecolor": NEUTRAL, "automargin": True,
              "showline": True, "mirror": True}  # fmt: skip


def show_figure(fig: go.Figure, key: str) -> None:
    """A chart, drawn once per change: see browser_figure (and assets/charts.css for its text
    colour, which is why Streamlit's own chart theme is off)."""
    st.plotly_chart(browser_figure(fig), key=key, config=PLOTLY_CONFIG, width="stretch", theme=None)


def browser_figure(fig: go.Figure) -> go.Figure:
    """The figure as the pages send it: drawn once by the browser, in a theme-neutral look.
    ``fig`` itself is converted and returned.

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
    revision = hashlib.blake2b(pickle.dumps((fig._data, layout), protocol=5), digest_size=8).hexdigest()
    layout = _with_defaults(_plain(layout), _LOOK)
    for key in layout:
        if key.startswith(("xaxis", "yaxis")) and isinstance(layout[key], dict):
            layout[key] = _with_defaults(layout[key], _AXIS_LOOK)
    if isinstance(layout.get("title"), dict) and layout["title"].get("text"):
        layout["title"] = _with_defaults(layout["title"], {"x": 0.0, "xanchor": "left", "font": {"weight": 600}})
    layout["datarevision"] = revision
    data = _plain(fig._data)
    # In place: building a second Figure costs as much as the first (its Layout objects are
    # made even without validation), and a figure is built for one chart and sent once.
    fig._layout.clear()
    fig._layout.update(layout)
    for props, plain in zip(fig._data, data, strict=True):
        props.clear()
        props.update(plain)
    return fig


def _with_defaults(props: dict, defaults: dict) -> dict:
    """``props`` with ``defaults`` filled in where it says nothing (nested dicts merged)."""
    out = dict(props)
    for key, value in defaults.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _with_defaults(out[key], value)
        else:
            out.setdefault(key, value)
    return out


def _plain(value):
    """Nested dicts/lists with every ndarray but float32 ones turned into (nested) lists;
    NaN and inf -> None. Lists the builders already made ready (attn_core.figures._Sent)
    pass as they are."""
    if isinstance(value, _Sent):
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if all(type(v) is str for v in value):
            return _Sent(value)
        return [_plain(v) for v in value]
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
