"""Every builder (attn_core.figures and its lab, real_model and context modules) makes its figure from plain
dicts without Plotly's validation (for speed); each builder's output must be exactly what the
validating constructor makes of it. ui.charts.browser_figure then sends it."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import figures as fg
from attn_core.figures import context as cf
from attn_core.figures import lab as lf
from attn_core.figures import real_model as mf
from tests.support.figdata import decode, z_matrix
from ui.charts import COLORWAY, browser_figure

RNG = np.random.default_rng(0)
TOKENS = ["The", "cat", "<b>x</b>", "$x$", "the", "cat", "🐈‍⬛", "猫"]
LONG = [f"w{i}<i>" for i in range(mf.DETAIL_MAX + 4)]  # past DETAIL_MAX: the light heatmap and bars


def _json(fig: go.Figure) -> dict:
    """The figure as the browser receives it (parsed, so key order does not matter)."""
    return json.loads(pio.to_json(fig, validate=False))


def _validated(fig: go.Figure) -> go.Figure:
    return go.Figure(fig.to_dict())  # raises on any invalid property


def _weights(shape: tuple[int, ...]) -> np.ndarray:
    w = RNG.random(shape)
    return w / w.sum(axis=-1, keepdims=True)


def _neuron_view(T: int, d_k: int = 6) -> SimpleNamespace:
    """What neuron_figures reads from a NeuronView: one query's q, every k, q∘k, q·k, softmax."""
    q, k = RNG.normal(size=d_k), RNG.normal(size=(T, d_k))
    scores = k @ q
    weights = np.exp(scores - scores.max())
    weights = weights / weights.sum()
    top = int(np.argmax(weights))
    return SimpleNamespace(query=min(2, T - 1), q=q, k=k, qk=q * k, scores=scores, weights=weights, top=top)


def _cases() -> dict:
    """Every public builder, in every branch that builds a figure differently: name -> a
    function making a fresh figure (browser_figure converts its figure in place)."""
    T = len(TOKENS)
    masked = np.where(np.tril(np.ones((T, T), dtype=bool)), RNG.normal(size=(T, T)), -np.inf)
    cases = {
        "signed": lambda: fg.heatmap(RNG.normal(size=(T, 5)), rows=TOKENS, cols=fg.dim_labels(5), row_title="token"),
        "masked": lambda: fg.heatmap(masked, rows=TOKENS, cols=TOKENS, title="M", show_values=True),
        "masked_marks": lambda: fg.heatmap(masked, rows=TOKENS, cols=TOKENS, title="M", show_values=False),
        "weights": lambda: fg.heatmap(RNG.random((T, T)), rows=TOKENS, cols=TOKENS, kind="weights", show_values=False),
        "wide": lambda: fg.heatmap(RNG.normal(size=(3, 384)), rows=TOKENS[:3], cols=fg.dim_labels(384)),
        "panels": lambda: fg.heatmap_panels(
            [("Q", RNG.normal(size=(T, 4))), ("K", RNG.normal(size=(T, 4)))], rows=TOKENS
        ),
        "panels_numbered": lambda: fg.heatmap_panels([("W_q", RNG.normal(size=(16, 4)))], rows=None, show_values=True),
        "bar": lambda: fg.bar_chart(TOKENS, RNG.random(T), title="row", y_range=(0, 1.1)),
        "bar_highlight": lambda: fg.bar_chart(TOKENS, RNG.random(T), title="row", highlight=2),
        "line": lambda: fg.line_chart(np.arange(5), {"a": RNG.random(5), "b": RNG.random(5)}, log_y=True),
        "grouped_bars": lambda: lf.grouped_bars(
            TOKENS, {"a": RNG.random(T), "b": RNG.random(T)}, title="<b>g</b>", y_range=(0, 1)
        ),
        "log_x_lines": lambda: lf.log_x_lines(
            np.array([1, 2, 4, 8, 16]), {"a": RNG.random(5)}, title="L", log_y=True, reference=("uniform", 0.5)
        ),
        "mask_heatmap": lambda: lf.mask_heatmap(np.tril(np.ones((T, T), dtype=bool)), TOKENS, title="causal"),
        "mask_heatmap_marks": lambda: lf.mask_heatmap(
            np.tril(np.ones((len(LONG),) * 2, dtype=bool)), LONG, title="causal, too many to print"
        ),
        "head_view": lambda: mf.head_view(_weights((3, T, T)), TOKENS, title="<i>hv</i>"),
        "head_view_query": lambda: mf.head_view(_weights((3, T, T)), TOKENS, heads=[0, 2], query=3, max_lines=5),
        "thumbnail_grid": lambda: mf.thumbnail_grid(
            _weights((2, 3, T, T)),
            title="<b>grid</b>",
            row_names=["L0", "L1"],
            col_names=["H0", "H1", "H2"],
            selected=(1, 2),
        ),
        "thumbnail_grid_pooled": lambda: mf.thumbnail_grid(
            _weights((2, 2, 50, 50)), title="g", row_names=["L0", "L1"], col_names=["H0", "H1"], zmax=0.3
        ),
        "attention_heatmap": lambda: mf.attention_heatmap(_weights((T, T)), TOKENS, TOKENS, title="a"),
        "attention_heatmap_light": lambda: mf.attention_heatmap(_weights((len(LONG),) * 2), LONG, LONG, title="<a>"),
        "mask_check": lambda: cf.mask_check(
            np.tril(np.ones((T, T), dtype=bool)).T,
            rows=TOKENS,
            cols=TOKENS,
            cell_text=[["<b>q</b>"] * T] * T,
            wrong=[(5, 3), (5, 4)],
            title="<i>m</i>",
        ),
        "mask_check_right": lambda: cf.mask_check(
            np.ones((2, 3), dtype=bool), rows=TOKENS[:2], cols=TOKENS[:3], cell_text=[["a", "b", "c"]] * 2
        ),
        "block_diagram": lambda: cf.block_diagram(
            [
                ("input", "x", "<x>", (7, 64)),
                ("attention", "heads", "h", (7, 16)),
                ("add", "Add", "x + a", (7, 64)),
                ("norm", "LN", "n", (7, 64)),
                ("ffn", "FFN", "f", (7, 256)),
            ],
            residuals=[(0, 2), (3, 4)],
            title="<b>block</b>",
        ),
    }
    for T_nv in (T, len(LONG)):  # bar_chart and heatmap; the light bars and heatmaps
        tokens = TOKENS if T_nv == T else LONG
        for key in ("q", "k", "qk", "scores", "weights"):
            cases[f"neuron_{key}_T{T_nv}"] = lambda key=key, T_nv=T_nv, tokens=tokens: mf.neuron_figures(
                _neuron_view(T_nv), tokens, layer=1, head=2
            )[key]
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", CASES)
def test_unvalidated_builders_equal_the_validated_figure(name):
    fig = CASES[name]()
    validated = _json(_validated(fig))
    validated["layout"].pop("template", None)  # Plotly's default, which the builders leave out
    assert _json(fig) == validated, name


def _heatmap_scales(fig: go.Figure) -> list:
    spec = fig.to_dict()
    traces = [t for t in spec["data"] if t["type"] == "heatmap" and t.get("name") != "masked"]
    return [t["colorscale"] for t in traces if "colorscale" in t] + [
        axis["colorscale"] for key, axis in spec["layout"].items() if key.startswith("coloraxis")
    ]


@pytest.mark.parametrize("name", CASES)
def test_named_colour_scales_are_sent_as_explicit_lists(name):
    fig = CASES[name]()
    for scale in _heatmap_scales(fig):
        assert scale in (fg._SCALES[fg.SEQUENTIAL], fg._SCALES[fg.DIVERGING]), name


def _colours(fig: go.Figure) -> dict:
    trace = fig.to_dict()["data"][-1]
    return {key: trace.get(key) for key in ("colorscale", "zmin", "zmax", "zmid")}


@pytest.mark.parametrize("z", [RNG.normal(size=(len(LONG), len(LONG))), np.zeros((len(LONG), len(LONG)))])
def test_every_heatmap_takes_its_colours_from_one_rule(z):
    """The light big-matrix heatmap, the thumbnails and the panels colour as heatmap does."""
    rows = LONG[: z.shape[0]]
    signed = _colours(fg.heatmap(z, rows=rows, cols=rows))
    assert _colours(mf.attention_heatmap(z, rows, rows, title="", kind="signed")) == signed
    lim = float(np.abs(z).max()) or 1.0
    assert (signed["zmin"], signed["zmid"], signed["zmax"]) == (-lim, 0.0, lim)
    axis = fg.heatmap_panels([("Z", z)], rows=rows).to_dict()["layout"]["coloraxis"]
    assert (axis["colorscale"], axis["cmin"], axis["cmid"], axis["cmax"]) == (signed["colorscale"], -lim, 0.0, lim)
    w = np.abs(z)
    weights = _colours(fg.heatmap(w, rows=rows, cols=rows, kind="weights", zmax=0.5))
    assert _colours(mf.attention_heatmap(w, rows, rows, title="", zmax=0.5)) == weights
    assert _colours(mf.thumbnail_grid(w[None, None], title="", row_names=["L0"], col_names=["H0"], zmax=0.5)) == weights
    assert (weights["zmin"], weights["zmax"]) == (0.0, 0.5)


# --------------------------------------------------------------------------- ui.charts.browser_figure


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


@pytest.mark.parametrize("name", CASES)
def test_browser_figure_sends_the_same_chart_as_plain_json(name):
    fig = CASES[name]()
    before, after = _sent(go.Figure(fig.to_dict())), _sent(browser_figure(fig))  # before: with a template
    assert "template" in before["layout"] and "template" not in after["layout"], name
    assert after["layout"]["colorway"] == COLORWAY
    # Plain lists, except the float32 arrays the real-model charts keep compact on purpose.
    typed = [(p, v["dtype"]) for p, v in _arrays(after) if isinstance(v, dict)]
    assert all(dtype == "f4" for _, dtype in typed), f"{name}: a typed array other than float32 was sent: {typed}"
    for trace_before, trace_after in zip(before["data"], after["data"], strict=True):
        for key in ("z", "x", "y", "customdata", "text"):
            if key in trace_before:
                want, got = decode(trace_before[key]), decode(trace_after[key])
                if key == "z":
                    assert_allclose(z_matrix(trace_after), z_matrix(trace_before), rtol=0, atol=0, err_msg=name)
                elif want.dtype.kind == "f":
                    assert_array_equal(got, want, err_msg=f"{name}: {key}")  # NaN gaps in the same places
                else:
                    assert np.array_equal(np.asarray(got, dtype=object), np.asarray(want, dtype=object)), (name, key)
    # Everything the builder set is still there (the look only fills in what was not set), except
    # that a heatmap's reversed rows go as a fixed range, top row first (ui.charts._fix_reversed_rows).
    expected = {k: v for k, v in before["layout"].items() if k != "template"}
    for key, axis in after["layout"].items():
        if key.startswith("yaxis") and expected.get(key, {}).get("autorange") == "reversed" and "range" in axis:
            assert axis["autorange"] is False and axis["range"][0] > axis["range"][1], (name, key, axis["range"])
            expected[key] = {**expected[key], "autorange": False}
    assert _contains(after["layout"], expected), name


def _contains(big, small) -> bool:
    """Every value in ``small`` is in ``big`` (dicts compared key by key, recursively)."""
    if isinstance(small, dict):
        return isinstance(big, dict) and all(k in big and _contains(big[k], v) for k, v in small.items())
    return big == small


def test_browser_figure_revision_follows_the_data():
    rows = ["a", "b"]
    z = RNG.normal(size=(2, 2))

    def revision(z, rows=rows):
        return browser_figure(fg.heatmap(z, rows=rows, cols=rows)).layout.datarevision

    assert revision(z) == revision(z.copy())
    assert revision(z) != revision(z + 1e-12)
    assert revision(z) != revision(z, rows=["a", "c"])  # same numbers, other labels


def test_browser_figure_keeps_float32_compact_and_nan_as_null():
    big = mf.attention_heatmap(_weights((len(LONG),) * 2), LONG, LONG, title="big")
    sent = _sent(browser_figure(big))
    assert sent["data"][0]["z"]["dtype"] == "f4"  # the real-model page's big float32 charts stay base64
    masked = fg.heatmap(np.array([[1.0, -np.inf], [0.5, 2.0]]), rows=["a", "b"], cols=["a", "b"])
    z = _sent(browser_figure(masked))["data"][1]["z"]
    assert z[0][1] is None and z[1][0] == 0.5


@pytest.mark.parametrize("show_values", [True, False])
def test_masked_cells_are_marked_by_more_than_their_grey(show_values):
    """Printed values mark a masked cell "−∞"; without them, a "×" sits on every masked cell
    and on no other (colour is never the only carrier)."""
    z = np.where(np.tril(np.ones((4, 4), dtype=bool)), 0.5, -np.inf)
    data = fg.heatmap(z, rows=list("abcd"), cols=list("abcd"), show_values=show_values).to_dict()["data"]
    marks = [t for t in data if t["type"] == "scatter"]
    assert [t.get("name") for t in data] == ["masked", None] + ([] if show_values else ["masked"])
    if show_values:
        assert not marks and data[1]["text"][0][1] == "\u2212\u221e"
        return
    (mark,) = marks
    assert mark["mode"] == "text" and mark["text"] == "\u00d7" and mark["textfont"]["size"] >= 12
    assert sorted(zip(mark["y"], mark["x"], strict=True)) == [(i, j) for i in range(4) for j in range(4) if j > i]


@pytest.mark.parametrize("T", [4, fg.CELL_TEXT_MAX + 6])
def test_forbidden_cells_of_a_mask_are_marked_by_more_than_their_colour(T):
    """A mask's 0/1 values are printed while they fit; past that, a "×" sits on every
    forbidden cell (mask False) and on no allowed one, and the axes stay on the cells."""
    rng = np.random.default_rng(T)
    mask = rng.random((T, T)) < 0.5
    mask[0] = False  # a fully forbidden row
    mask[:, 1] = True  # a fully allowed column
    fig = lf.mask_heatmap(mask, [f"w{i}" for i in range(T)], title="m").to_dict()
    data, layout = fig["data"], fig["layout"]
    assert_array_equal(z_matrix(data[0]), mask.astype(float))
    marks = [t for t in data if t["type"] == "scatter"]
    if "text" in data[0]:
        assert T <= fg.CELL_TEXT_MAX and not marks
        assert np.array_equal(np.array(data[0]["text"]), np.where(mask, "1", "0"))
        return
    (mark,) = marks
    assert mark["mode"] == "text" and mark["text"] == "\u00d7" and mark["textfont"]["size"] >= 12
    marked = sorted(zip(mark["y"], mark["x"], strict=True))
    assert marked == [(int(i), int(j)) for i, j in zip(*np.nonzero(~mask), strict=True)]
    assert layout["xaxis"]["range"] == [-0.5, T - 0.5] and layout["yaxis"]["range"] == [T - 0.5, -0.5]
    assert lf.mask_heatmap(None, [f"w{i}" for i in range(T)], title="global").to_dict()["data"][1:] == []


def test_browser_figure_data_is_not_copied_on_the_way_out():
    from copy import deepcopy

    fig = browser_figure(fg.heatmap(RNG.normal(size=(4, 4)), rows=list("abcd"), cols=list("abcd")))
    z = fig._data[0]["z"]
    assert deepcopy(z) is z and fig.to_dict()["data"][0]["z"] is z


@pytest.mark.parametrize(
    ("T", "fmt", "width", "printed"),
    [
        (8, ".2f", fg.HALF_WIDTH_PX, True),  # the presets in a half-width chart
        (13, ".3f", fg.HALF_WIDTH_PX, False),  # would overlap: 13 five-character numbers in ~17 px cells
        (13, ".3f", fg.FULL_WIDTH_PX, True),
        (14, ".2f", fg.FULL_WIDTH_PX, True),
        (15, ".2f", fg.FULL_WIDTH_PX, False),  # more than CELL_TEXT_MAX
    ],
)
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


def test_heatmap_builders_share_one_set_of_labels():
    """heatmap, heatmap_panels and attention_heatmap take the same label keywords (figures.Labels):
    each lands on the chart, and a misspelt one is an error, not silently ignored."""
    z = RNG.normal(size=(3, 3))
    labels = {"title": "T <b>", "row_title": "query i", "col_title": "key j", "value_name": "score", "fmt": ".4f"}
    for fig in (
        fg.heatmap(z, rows=list("abc"), cols=list("abc"), **labels),
        fg.heatmap_panels([("S", z)], rows=list("abc"), **labels),
        mf.attention_heatmap(z, list("abc"), list("abc"), kind="signed", **labels),
    ):
        layout, trace = fig.layout, fig.data[-1]
        assert layout.title.text == "T &lt;b&gt;"
        assert (layout.yaxis.title.text, layout.xaxis.title.text) == ("query i", "key j")
        assert "score = %{z:.4f}" in trace.hovertemplate
    weights = mf.attention_heatmap(np.eye(3), list("abc"), list("abc"), title="w")  # its own defaults
    assert "weight = %{z:.3f}" in weights.data[-1].hovertemplate and weights.layout.yaxis.title.text == "query"
    with pytest.raises(TypeError, match="titel"):
        fg.heatmap(z, rows=list("abc"), cols=list("abc"), titel="typo")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'value'"):
        fg.heatmap_panels([("S", z)], rows=None, value="typo")


def test_the_light_attention_heatmap_prints_numbers_in_the_asked_format():
    """Past DETAIL_MAX tokens the light heatmap's hover keeps the kind's format, or the one asked for."""
    n = len(LONG)
    weights = mf.attention_heatmap(_weights((n, n)), LONG, LONG, title="w").data[-1].hovertemplate
    signed = mf.attention_heatmap(RNG.normal(size=(n, n)), LONG, LONG, title="s", kind="signed").data[-1]
    asked = mf.attention_heatmap(_weights((n, n)), LONG, LONG, title="f", fmt=".1%").data[-1]
    assert "weight %{z:.3f}" in weights and "%{z:.2f}" in signed.hovertemplate and "%{z:.1%}" in asked.hovertemplate


@pytest.mark.parametrize("builder", ["bar", "grouped"])
def test_bar_charts_draw_no_zero_line_through_the_first_bar(builder):
    """The x axis of a bar chart is numbered from 0, so Plotly's zero line would be a vertical
    line through the middle of the first bar: it is switched off (tests/browser/test_pages.py
    checks that the browser draws none). The y axis keeps its line at 0, for negative bars."""
    T = len(TOKENS)
    if builder == "bar":
        fig = fg.bar_chart(TOKENS, RNG.random(T) - 0.5)
    else:
        fig = lf.grouped_bars(TOKENS, {"a": RNG.random(T), "b": RNG.random(T)}, title="t")
    assert fig.layout.xaxis.zeroline is False
    assert fig.layout.yaxis.zeroline is None  # Plotly's default: drawn


def test_a_bar_chart_highlights_the_chosen_key_by_colour_and_bold_label():
    T = len(TOKENS)
    values = RNG.random(T)
    fig = fg.bar_chart(TOKENS, values, fmt=".2f", highlight=3)
    bar = fig.data[0]
    colours = list(bar.marker.color)
    assert colours[3] == fg.HIGHLIGHT_COLOR and colours.count(fg.HIGHLIGHT_COLOR) == 1
    assert set(colours[:3] + colours[4:]) == {fg.BAR_COLOR}
    text = list(bar.text)
    assert text[3] == f"<b>{values[3]:.2f}</b>" and text[0] == f"{values[0]:.2f}"
    ticks = list(fig.layout.xaxis.ticktext)
    assert ticks[3] == f"<b>{fg.safe_label(TOKENS[3])}</b>" and "<b>" not in "".join(ticks[:3] + ticks[4:])
    plain = fg.bar_chart(TOKENS, values, fmt=".2f")
    assert plain.data[0].marker.color is None and "<b>" not in "".join(plain.layout.xaxis.ticktext)
    with pytest.raises(ValueError, match="highlight must be a position in 0"):
        fg.bar_chart(TOKENS, values, highlight=T)


def test_panels_share_one_column_title_under_the_middle_panel() -> None:
    """Side-by-side panels carry the column title once, under the middle one: three copies ran
    into each other on a 390 px phone (issue #23)."""
    for n in (1, 2, 3):
        panels = [(f"W{p}", RNG.normal(size=(16, 4))) for p in range(n)]
        layout = fg.heatmap_panels(panels, rows=None, col_title="d_k dimension").to_dict()["layout"]
        titles = [(layout[k].get("title") or {}).get("text") for k in sorted(layout) if re.fullmatch(r"xaxis\d*", k)]
        assert len(titles) == n and titles[n // 2] == "d_k dimension", titles
        assert sum(t is not None and t != "" for t in titles) == 1, titles
