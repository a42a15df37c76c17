"""Every text box on every page against the hostile corpus (AppTest, no mocks): one test,
parametrised over (page, text box) x input.

For each input: no exception; blank text gives an info message that names the box (and, where
the sentence is all the page draws, no chart); no NaN in any chart (a heatmap gap is allowed only
where a grey "masked" layer marks that exact cell); tick labels are the escaped tokens; more than
64 tokens give a note; the text never comes back as markup: no raw HTML in chart JSON or tick
labels, no live markdown link or LaTeX command in the page text; and a page's own checks (Step by
step: every matrix is the engine's for the text as typed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core.figures import token_labels
from attn_core.figures.lab import score_labels
from tests.app.test_page_step_by_step import assert_matches_engine
from tests.conftest import ROOT
from tests.support.figdata import decode, figure_by_title, figures
from tests.support.hostile_corpus import HOSTILE
from tests.support.lab_checks import assert_escaped_ticks, assert_finite_figures, page_script, ticks, widget
from ui.common import MAX_CHARS

MAX_TOKENS = 64
N_SCORES = 8  # the softmax lab's keys
MASK_TITLES = ("Global", "Causal", "Sliding window", "Dilated")


@dataclass(frozen=True)
class Box:
    """One text box, and what its page must show for the tokens typed into it."""

    page: str  # the script in lessons/
    key: str  # the text widget's key
    setup: tuple[tuple[str, object], ...] = ()  # other widgets set first: (key, value)
    ticks: tuple[tuple[str, str], ...] = ()  # (chart title, axis) whose tick labels are the tokens
    labels: Callable[[list[str]], list[str]] = token_labels  # tokens -> the expected tick labels
    count: tuple[str, int] | None = None  # (title prefix, n): the page shows n charts so titled
    blank_hides_charts: bool = True  # False: the charts stay without the sentence (keys numbered)
    fixed: str = ""  # part of the titles of charts that do not read the box (Home's two heads), kept when it is blank
    optional: bool = False  # blank is a valid answer: no message asked for
    own_tokenizer: bool = False  # a real model's WordPiece tokens: attn_core's token checks do not apply
    max_tokens: int = MAX_TOKENS  # the page uses this many tokens and says so when it cuts
    what: str = ""  # how the info message on blank text names the box ("sentence A")
    model: bool = False  # the page needs the real model (marked model); else the model is switched off
    check: Callable[[AppTest, str], None] | None = None  # the page's own checks of a sentence it drew

    @property
    def script(self) -> str:
        """app.py for Home (its page links need the navigation), else the page's own script."""
        return str(ROOT / self.page) if self.page == "app.py" else page_script(self.page)

    def fixed_charts(self, at: AppTest) -> list[dict]:
        """The page's charts that do not read this box (``fixed``): they stay when it is blank."""
        return [f for f in figures(at) if self.fixed and self.fixed in str(f["layout"].get("title", ""))]


def _step_by_step_is_the_engine(at: AppTest, text: str) -> None:
    """The box keeps the text as typed (up to the 2,000 characters it takes), and every matrix the
    page draws is the engine's for that text."""
    assert at.text_input(key="sbs_text").value == text[:MAX_CHARS]
    assert_matches_engine(at, text=text[:MAX_CHARS])


BOXES = {
    "home": Box("app.py", "home_text", ticks=(("Your sentence", "y"),), max_tokens=16, fixed=" training: "),
    "step_by_step": Box(
        "step_by_step.py",
        "sbs_text",
        ticks=(("S = QKᵀ", "y"), ("A = softmax(M)", "x")),
        check=_step_by_step_is_the_engine,
    ),
    "softmax_lab": Box(
        "softmax_lab.py",
        "lab_text",
        ticks=(("Weights softmax(s)", "x"),),
        labels=lambda tokens: token_labels(score_labels(tokens, N_SCORES)),
        blank_hides_charts=False,
    ),
    "multi_head": Box(
        "multi_head.py",
        "mh_text",
        setup=(("mh_heads", 8),),
        ticks=(("Head 1 weights", "y"), ("Head 1 weights", "x")),
        count=("Head ", 8),
    ),
    "cross_source": Box(
        "cross_attention.py", "cross_source", ticks=(("Cross-attention weights", "x"),), what="source sentence"
    ),
    "cross_target": Box(
        "cross_attention.py", "cross_target", ticks=(("Cross-attention weights", "y"),), what="target sentence"
    ),
    "masks_cost": Box(
        "masks_cost.py",
        "masks_text",
        setup=(("masks_radius", 8), ("masks_dilation", 4)),
        ticks=tuple((f"{t} weights", "y") for t in MASK_TITLES) + tuple((f"{t} mask", "x") for t in MASK_TITLES),
    ),
    "decoder": Box("decoder.py", "dec_text", own_tokenizer=True),
    # Sentences A and B never reach the page's last section (the real model's "bears", checked with
    # hostile text in test_transformer_lesson), so the model is off here and blank text leaves no chart.
    "transformer_a": Box(
        "in_a_transformer.py", "tf_a", ticks=(("Attention weights, sentence A", "x"),), what="sentence A"
    ),
    "transformer_b": Box(
        "in_a_transformer.py", "tf_b", ticks=(("Attention weights, sentence B", "y"),), what="sentence B"
    ),
    "real_model_a": Box("real_model.py", "rm_a", own_tokenizer=True, model=True, what="sentence A"),
    "real_model_b": Box(
        "real_model.py", "rm_b", own_tokenizer=True, optional=True, blank_hides_charts=False, model=True
    ),
}
BOX_PARAMS = [pytest.param(box, id=name, marks=[pytest.mark.model] if box.model else []) for name, box in BOXES.items()]

RAW_MARKUP = re.compile(r"<\s*/?\s*(script|img|iframe)\b", re.IGNORECASE)  # the corpus's tags
LIVE_LINK = re.compile(r"(?<!\\)\]\((?!\s*https?://)")  # an unescaped "](" that is not a plain web link
LATEX_CMD = re.compile(r"\\(href|url|html|style|class|data)\b")


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.parametrize("box", BOX_PARAMS)
def test_hostile_text(box: Box, name: str, monkeypatch) -> None:
    text = HOSTILE[name]
    if not box.model:  # as on a machine without it
        monkeypatch.setattr("ui.model_cache.try_load", lambda name=None: (None, "switched off for this test"))
    at = AppTest.from_file(box.script, default_timeout=180).run()
    assert not at.exception, f"{box.page}: default run raised {[e.value for e in at.exception]}"
    for key, value in box.setup:
        widget(at, key).set_value(value)
    widget(at, box.key).set_value(text)
    at.run()
    where = f"{box.page} [{box.key}] {name}"
    assert not at.exception, f"{where}: {[e.value for e in at.exception]}"

    tokens = [] if box.own_tokenizer else ac.tokenize(text, max_tokens=box.max_tokens)
    blank = not text.strip() if box.own_tokenizer else not tokens
    if blank and not box.optional:
        infos = [el.value for el in at.info if "empty" in el.value and box.what in el.value]
        assert infos, f"{where}: blank text should show an info message naming the {box.what or 'box'}"
    if blank and box.blank_hides_charts:
        drawn = [f for f in figures(at) if f not in box.fixed_charts(at)]
        assert not drawn, f"{where}: blank text should draw no chart"
    elif not box.own_tokenizer:  # the real model's head view lifts the pen with NaN, checked below
        assert_finite_figures(at)
    assert_escaped_ticks(at)
    for el in at.get("plotly_chart"):
        _check_figure(el.proto.spec, where)
    _check_text(at, where)
    if box.own_tokenizer or not [f for f in figures(at) if f not in box.fixed_charts(at)]:
        return

    if len(ac.tokenize(text, max_tokens=box.max_tokens + 1)) > box.max_tokens:
        notes = [el.value.lower() for el in [*at.warning, *at.caption]]
        assert any(f"only the first {box.max_tokens}" in n for n in notes), f"{where}: no truncation note"
    for title, axis in box.ticks:
        assert ticks(figure_by_title(at, title), axis) == box.labels(tokens), f"{where}: {title} {axis} ticks"
    if box.count:
        prefix, n = box.count
        assert sum(f["layout"]["title"]["text"].startswith(prefix) for f in figures(at)) == n, where
    if box.check:
        box.check(at, text)


def _numbers(node, out: list[np.ndarray]) -> None:
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
    """No raw HTML in any string of the chart; no NaN except the cells a "masked" layer marks,
    the gaps between thumbnails and the pen lifts of a line trace."""
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
            if z.ndim == 2:  # a grid of thumbnails (model view) is separated by all-NaN rows and columns
                gaps &= ~(gaps.all(axis=1, keepdims=True) | gaps.all(axis=0, keepdims=True))
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
    """The page's own text: no raw HTML, no live link, no LaTeX command made from user text."""
    for el in [
        *at.markdown,
        *at.caption,
        *at.info,
        *at.warning,
        *at.error,
        *at.success,
        *at.title,
        *at.header,
        *at.subheader,
        *at.latex,
    ]:
        body = str(el.value)
        assert not RAW_MARKUP.search(body.replace("&lt;", "")), f"{where}: raw HTML in {body[:80]!r}"
        assert "javascript:" not in body or not LIVE_LINK.search(body), f"{where}: live link in {body[:80]!r}"
    for el in at.latex:
        assert not LATEX_CMD.search(str(el.value)), f"{where}: LaTeX command from user text in {el.value[:80]!r}"
