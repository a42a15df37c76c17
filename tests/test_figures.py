"""attn_core.figures builds figures from plain dicts without Plotly's validation (for speed);
each builder's output must be exactly what the validating constructor makes of it."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from attn_core import figures as fg

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
    assert _json(fig) == _json(_validated(fig)), name


def test_named_colour_scales_are_sent_as_explicit_lists():
    fig = fg.heatmap(RNG.normal(size=(2, 2)), rows=["a", "b"], cols=["a", "b"])
    scale = fig.to_dict()["data"][0]["colorscale"]
    assert scale[0][0] == 0.0 and scale[-1][0] == 1.0 and all(c.startswith("rgb") for _, c in scale)
