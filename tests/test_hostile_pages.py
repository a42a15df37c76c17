"""Every text box on every page against the hostile corpus (AppTest, no mocks).

For each input: no exception, no NaN in any chart (a heatmap gap is allowed only where
a grey "masked" layer marks that exact cell), and the text never comes back as markup:
no raw HTML in chart JSON, no live markdown link or LaTeX command in the page text.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.figdata import decode
from tests.hostile_corpus import HOSTILE_INPUTS

# (page, text box label). The real-model page has two boxes; cross-attention too.
FIELDS = [
    ("lessons/step_by_step.py", None),
    ("lessons/softmax_lab.py", None),
    ("lessons/multi_head.py", None),
    ("lessons/cross_attention.py", 0),
    ("lessons/cross_attention.py", 1),
    ("lessons/masks_cost.py", None),
    pytest.param("lessons/real_model.py", "Sentence A", marks=pytest.mark.model),
    pytest.param("lessons/real_model.py", "Sentence B (optional)", marks=pytest.mark.model),
]

RAW_MARKUP = re.compile(r"<\s*/?\s*(script|img|iframe)\b", re.IGNORECASE)  # the corpus's tags
LIVE_LINK = re.compile(r"(?<!\\)\]\((?!\s*https?://)")  # an unescaped "](" that is not a plain web link
LATEX_CMD = re.compile(r"\\(href|url|html|style|class|data)\b")


def _numbers(node, out):
    """Every numeric array in a figure dict (decoded base64 arrays and plain lists)."""
    if isinstance(node, dict):
        if "bdata" in node:
            arr = decode(node)
            if arr.dtype.kind == "f":
                out.append(arr)
            return
        for value in node.values():
            _numbers(value, out)
    elif isinstance(node, list):
        if node and all(isinstance(v, int | float) or v is None for v in node):
            out.append(np.array([np.nan if v is None else v for v in node], dtype=np.float64))
        else:
            for value in node:
                _numbers(value, out)


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _check_figure(spec: str, where: str) -> None:
    fig = json.loads(spec)  # Plotly writes "<" as \u003c, so look at the decoded strings
    raw = [s for s in _strings(fig) if RAW_MARKUP.search(s)]
    assert not raw, f"{where}: raw HTML in chart text {raw[:3]!r}"
    traces = fig.get("data", [])
    masked_cells = [decode(t["z"]) for t in traces if t.get("name") == "masked" and isinstance(t.get("z"), dict)]
    for trace in traces:
        if trace.get("name") == "masked":
            continue
        if trace.get("type") == "heatmap" and isinstance(trace.get("z"), dict):
            z = decode(trace["z"]).astype(np.float64)
            gaps = np.isnan(z)
            if gaps.any():
                assert any(m.shape == z.shape and np.array_equal(gaps, ~np.isnan(m)) for m in masked_cells), (
                    f"{where}: NaN in heatmap {fig.get('layout', {}).get('title')} outside masked cells"
                )
            continue
        arrays: list[np.ndarray] = []
        for key in ("x", "y", "z", "r", "values"):
            if key in trace:
                _numbers(trace[key], arrays)
        for arr in arrays:
            # Line charts may use None/NaN as segment breaks; anything else must be finite.
            if trace.get("type") in ("scatter", "scattergl") and trace.get("mode", "").startswith("lines"):
                arr = arr[~np.isnan(arr)]
            assert np.isfinite(arr).all(), f"{where}: non-finite number in {trace.get('type')} trace"


def _check_text(at: AppTest, where: str) -> None:
    for el in [*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success, *at.title, *at.header,
               *at.subheader]:
        body = str(el.value)
        assert not RAW_MARKUP.search(body.replace("&lt;", "")), f"{where}: raw HTML in {body[:80]!r}"
        assert "javascript:" not in body or not LIVE_LINK.search(body), f"{where}: live link in {body[:80]!r}"
    for el in at.latex:
        assert not LATEX_CMD.search(str(el.value)), f"{where}: LaTeX command from user text in {el.value[:80]!r}"


def _text_box(at: AppTest, field):
    boxes = [*at.text_input, *at.text_area]
    if field is None or isinstance(field, int):
        return boxes[field or 0]
    return next(b for b in boxes if b.label == field)


@pytest.mark.parametrize(("page", "field"), FIELDS)
def test_hostile_text_in_every_box(page, field):
    at = AppTest.from_file(str(ROOT / page), default_timeout=180).run()
    assert not at.exception, f"{page}: default run raised {at.exception}"
    for text in HOSTILE_INPUTS:
        where = f"{page} [{field}] input {text[:30]!r}"
        _text_box(at, field).set_value(text).run()
        assert not at.exception, f"{where}: {[e.value for e in at.exception]}"
        if not text.strip() and "optional" not in str(field):
            assert at.info, f"{where}: blank text should show an info message"
        for el in at.get("plotly_chart"):
            _check_figure(el.proto.spec, where)
        _check_text(at, where)
