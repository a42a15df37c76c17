"""attn_core.figures builds figures from plain dicts without Plotly's validation (for speed);
each builder's output must be exactly what the validating constructor makes of it."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from numpy.testing import assert_allclose

from attn_core import figures as fg
from tests.figdata import decode, z_matrix

RNG = np.random.default_rng(0)
TOKENS = ["The", "cat", "<b>x</b>", "$x$", "the", "cat", "🐈‍⬛", "猫"]


def _json(fig: go.Figure) -> dict:
    """The figure as the browser receives it (parsed, so key order does not matter)."""
    return json.loads(pio.to_json(fig, validate=False))


def _validated(fig: go.Figure) -> go.Figure:
    return go.Figure(fig.to_dict())  # raises on any invalid property


def _cases():
    T = len(TOKENS)
    masked = np.where(np.tril(np.ones((T, T), dtype=bool)), RNG.normal(size=(T, T)), -np.inf)
    yield "signed", fg.heatmap(RNG.normal(size=(T, 5)), rows=TOKENS, cols=fg.dim_labels(5), row_title="token")
    yield "masked", fg.heatmap(masked, rows=TOKENS, cols=TOKENS, title="M", show_values=True)
    yield "weights", fg.heatmap(RNG.random((T, T)), rows=TOKENS, cols=TOKENS, kind="weights", show_values=False)
    yield "wide", fg.heatmap(RNG.normal(size=(3, 384)), rows=TOKENS[:3], cols=fg.dim_labels(384))
    yield "panels", fg.heatmap_panels([("Q", RNG.normal(size=(T, 4))), ("K", RNG.normal(size=(T, 4)))], rows=TOKENS)
    yield "panels_numbered", fg.heatmap_panels([("W_q", RNG.normal(size=(16, 4)))], rows=None, show_values=True)
    yield "bar", fg.bar_chart(TOKENS, RNG.random(T), title="row")
    yield "line", fg.line_chart(np.arange(5), {"a": RNG.random(5), "b": RNG.random(5)}, log_y=True)


@pytest.mark.parametrize(("name", "fig"), list(_cases()), ids=[n for n, _ in _cases()])
def test_unvalidated_builders_equal_the_validated_figure(name, fig):
    validated = _json(_validated(fig))
    validated["layout"].pop("template", None)  # Plotly's default, which the builders leave out
    assert _json(fig) == validated, name


def test_named_colour_scales_are_sent_as_explicit_lists():
    fig = fg.heatmap(RNG.normal(size=(2, 2)), rows=["a", "b"], cols=["a", "b"])
    scale = fig.to_dict()["data"][0]["colorscale"]
    assert scale[0][0] == 0.0 and scale[-1][0] == 1.0 and all(c.startswith("rgb") for _, c in scale)


# --------------------------------------------------------------------------- browser_figure


def _sent(fig: go.Figure) -> dict:
    """What Streamlit sends for a figure (st.plotly_chart: to_dict, then to_json)."""
    return json.loads(pio.to_json(fig.to_dict(), validate=False))


def _arrays(node, path=()):
    """Every (path, value) in a figure spec whose value is a list or a base64 typed array."""
    if isinstance(node, dict):
        if "bdata" in node:
            yield path, node
            return
        for key, value in node.items():
            yield from _arrays(value, (*path, key))
    elif isinstance(node, list):
        yield path, node


@pytest.mark.parametrize(("name", "fig"), list(_cases()), ids=[n for n, _ in _cases()])
def test_browser_figure_sends_the_same_chart_as_plain_json(name, fig):
    import streamlit  # noqa: F401 - registers the "streamlit" default template, as in the app

    before, after = _sent(go.Figure(fig.to_dict())), _sent(fg.browser_figure(fig))  # before: with a template
    assert "template" in before["layout"] and "template" not in after["layout"], name
    assert after["layout"]["colorway"] == fg.COLORWAY
    assert not [p for p, v in _arrays(after) if isinstance(v, dict)], f"{name}: a typed array was sent"
    for trace_before, trace_after in zip(before["data"], after["data"], strict=True):
        for key in ("z", "x", "y", "customdata", "text"):
            if key in trace_before:
                want, got = decode(trace_before[key]), decode(trace_after[key])
                if key == "z":
                    assert_allclose(z_matrix(trace_after), z_matrix(trace_before), rtol=0, atol=0, err_msg=name)
                else:
                    assert np.array_equal(np.asarray(got, dtype=object), np.asarray(want, dtype=object)), (name, key)
    # Everything the builder set is still there (the look only fills in what was not set).
    assert _contains(after["layout"], {k: v for k, v in before["layout"].items() if k != "template"}), name


def _contains(big, small) -> bool:
    """Every value in ``small`` is in ``big`` (dicts compared key by key, recursively)."""
    if isinstance(small, dict):
        return isinstance(big, dict) and all(k in big and _contains(big[k], v) for k, v in small.items())
    return big == small


def test_browser_figure_revision_follows_the_data():
    rows = ["a", "b"]
    z = RNG.normal(size=(2, 2))

    def revision(z, rows=rows):
        return fg.browser_figure(fg.heatmap(z, rows=rows, cols=rows)).layout.datarevision

    assert revision(z) == revision(z.copy())
    assert revision(z) != revision(z + 1e-12)
    assert revision(z) != revision(z, rows=["a", "c"])  # same numbers, other labels


def test_browser_figure_keeps_float32_compact_and_nan_as_null():
    fig = go.Figure(go.Heatmap(z=np.arange(4, dtype=np.float32).reshape(2, 2)), layout=dict(height=300))
    sent = _sent(fg.browser_figure(fig))
    assert "bdata" in sent["data"][0]["z"]  # the real-model page's big float32 charts stay base64
    masked = fg.heatmap(np.array([[1.0, -np.inf], [0.5, 2.0]]), rows=["a", "b"], cols=["a", "b"])
    z = _sent(fg.browser_figure(masked))["data"][1]["z"]
    assert z[0][1] is None and z[1][0] == 0.5


def test_browser_figure_data_is_not_copied_on_the_way_out():
    from copy import deepcopy

    fig = fg.browser_figure(fg.heatmap(RNG.normal(size=(4, 4)), rows=list("abcd"), cols=list("abcd")))
    z = fig._data[0]["z"]
    assert deepcopy(z) is z and fig.to_dict()["data"][0]["z"] is z


@pytest.mark.parametrize(("T", "fmt", "width", "printed"), [
    (8, ".2f", fg.HALF_WIDTH_PX, True),  # the presets in a half-width chart
    (13, ".3f", fg.HALF_WIDTH_PX, False),  # would overlap: 13 five-character numbers in ~17 px cells
    (13, ".3f", fg.FULL_WIDTH_PX, True),
    (14, ".2f", fg.FULL_WIDTH_PX, True),
    (15, ".2f", fg.FULL_WIDTH_PX, False),  # more than CELL_TEXT_MAX
])  # fmt: skip
def test_values_are_printed_only_where_they_fit(T, fmt, width, printed):
    labels = [f"w{i}" for i in range(T)]
    fig = fg.heatmap(RNG.random((T, T)), rows=labels, cols=labels, kind="weights", fmt=fmt, width_px=width)
    assert ("text" in fig.to_dict()["data"][0]) is printed


def test_panel_values_are_printed_only_where_they_fit():
    panels = [("Q", RNG.normal(size=(8, 4))), ("K", RNG.normal(size=(8, 4))), ("V", RNG.normal(size=(8, 4)))]
    rows = [f"w{i}" for i in range(8)]
    full = fg.heatmap_panels(panels, rows=rows, width_px=fg.FULL_WIDTH_PX).to_dict()["data"]
    narrow = fg.heatmap_panels(panels, rows=rows, width_px=200).to_dict()["data"]
    assert all("text" in trace for trace in full) and not any("text" in trace for trace in narrow)
