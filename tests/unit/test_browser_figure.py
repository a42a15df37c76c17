"""ui.charts.browser_figure sends a heatmap's rows top-down as a fixed range: with Plotly's
``autorange="reversed"``, Plotly writes the range it found back into the figure, the copy
Streamlit hands it right after mounting reads as a change, and the chart is drawn twice."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attn_core import figures as fg
from ui.charts import browser_figure


def _rows_range(fig: go.Figure, axis: str = "yaxis") -> tuple:
    layout = fig._layout[axis]
    return layout.get("autorange"), layout.get("range")


def test_a_heatmaps_rows_run_top_down_over_exactly_its_rows():
    for n_rows in (1, 3, 16):
        z = np.arange(n_rows * 4, dtype=float).reshape(n_rows, 4)
        rows = [f"r{i}" for i in range(n_rows)]
        fig = browser_figure(fg.heatmap(z, rows=rows, cols=list("abcd"), title="t"))
        assert _rows_range(fig) == (False, [n_rows - 0.5, -0.5])


def test_the_panels_share_their_rows_top_down():
    panels = [(name, np.ones((5, 3))) for name in ("Q", "K", "V")]
    fig = browser_figure(fg.heatmap_panels(panels, rows=list("abcde"), title="t"))
    reversed_axes = [k for k, v in fig._layout.items() if k.startswith("yaxis") and v.get("autorange") == "reversed"]
    assert not reversed_axes
    ranges = {tuple(v["range"]) for k, v in fig._layout.items() if k.startswith("yaxis") and "range" in v}
    assert ranges == {(4.5, -0.5)}


def test_an_axis_that_is_not_all_heatmap_or_is_tied_keeps_plotlys_autorange():
    scatter = go.Figure(go.Scatter(x=[0, 1], y=[3, 7]), layout=dict(yaxis=dict(autorange="reversed")))
    assert _rows_range(browser_figure(scatter)) == ("reversed", None)
    square = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]), layout=dict(yaxis=dict(autorange="reversed", scaleanchor="x")))
    assert _rows_range(browser_figure(square)) == ("reversed", None)


def test_rows_at_given_positions_span_those_positions():
    fig = go.Figure(go.Heatmap(z=[[1], [2], [3]], y=[2, 4, 6]), layout=dict(yaxis=dict(autorange="reversed")))
    assert _rows_range(browser_figure(fig)) == (False, [7.0, 1.0])  # cells 2 apart: edges at 1, 3, 5, 7
