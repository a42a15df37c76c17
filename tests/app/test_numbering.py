"""One numbering of layers and heads on every page (attn_core.numbering): counted from 1 in
every sentence, caption, widget label and option, chart title, axis title and tick label, and
description. The check reads everything a page shows, finds every "layer N" and "head N", and
asks that N lies in 1..(the model's count): a "layer 0" or "head 0", or one past the last, is a
page that still counts from 0. Pages run in their default state and in the states that name
layers and heads (a real or a decoder head on Step by step, every Real model view, the decoder)."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from lessons import pages
from tests.conftest import ROOT
from tests.support.lab_checks import page_script

MENTION = re.compile(r"\b(layer|head)s?\s+(\d+)\b", re.IGNORECASE)
# The convention note: "their layer 0, head 0 is layer 1, head 1 here" (bertviz and TransformerLens).
THEIRS = re.compile(r"\btheir (?:layer|head)[^.;]*? is ", re.IGNORECASE)
RANGE = re.compile(r"\b(layer|head)s\s+(\d+)\s*(?:-|–|to)\s*(\d+)\b", re.IGNORECASE)  # "layers 1 to 6"
MAX_HEADS_MULTI = 8  # Multi-head's slider


def _counts() -> tuple[int, int]:
    """The largest layer and head numbers a page may name: the larger of the real model's and
    the decoder's counts, and Multi-head's 8 heads."""
    shape = tr.minilm_shape()
    decoder = dc.load_decoder()
    layers = max(shape.n_layers if shape else 0, decoder.n_layers)
    heads = max(shape.n_heads if shape else 0, decoder.n_heads, MAX_HEADS_MULTI)
    return layers, heads


def _texts(at: AppTest) -> list[str]:
    """Everything the page shows as text: markdown, captions, alerts, headings, LaTeX, widget
    labels and options, and every chart's titles, axis titles, tick labels, hover and description."""
    out: list[str] = []
    for kind in ("markdown", "caption", "info", "success", "warning", "error", "title", "header", "subheader"):
        out += [str(el.value) for el in getattr(at, kind)]
    out += [str(el.value) for el in at.latex]
    for kind in ("selectbox", "radio", "multiselect", "slider", "select_slider", "toggle", "number_input"):
        for el in getattr(at, kind):
            out.append(str(el.label))
            out += [str(o) for o in getattr(el, "options", [])]
    for chart in at.get("plotly_chart"):
        out.append(json.dumps(json.loads(chart.proto.spec), ensure_ascii=False))
    return out


def _bad_mentions(texts: list[str], layers: int, heads: int) -> list[str]:
    bad = []
    for text in texts:
        plain = THEIRS.sub("", text.replace("\\n", " "))
        for kind, low, high in RANGE.findall(plain):
            limit = layers if kind.lower() == "layer" else heads
            if not (1 <= int(low) <= int(high) <= limit):
                bad.append(f"{kind} {low} to {high}: …{plain[:120]}…")
        for kind, number in MENTION.findall(RANGE.sub("", plain)):
            limit = layers if kind.lower() == "layer" else heads
            if not 1 <= int(number) <= limit:
                bad.append(f"{kind} {number}: …{plain[max(0, plain.lower().find(kind.lower()) - 60) :][:160]}…")
    return bad


def _run(script: str, **query: str) -> AppTest:
    """The page run alone; Home through app.py (its page links need the navigation)."""
    path = str(ROOT / "app.py") if script == "home" else page_script(script)
    at = AppTest.from_file(path, default_timeout=120)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


MODEL_PAGES = {"real_model", "in_a_transformer"}  # they load the real model when opened
STATES = [
    *[
        pytest.param(p.lesson, {}, id=p.lesson, marks=[pytest.mark.model] if p.lesson in MODEL_PAGES else [])
        for p in pages.PAGES
        if p.lesson != "class_room"
    ],
    pytest.param("step_by_step", {"weights": "decoder", "layer": "2", "head": "4"}, id="sbs-decoder-head"),
    pytest.param("multi_head", {"heads": "8"}, id="multi-head-8"),
    pytest.param(
        "step_by_step", {"weights": "real", "layer": "6", "head": "12"}, id="sbs-real", marks=pytest.mark.model
    ),
    *[
        pytest.param("real_model", {"view": view}, id=f"real-model-{view}", marks=pytest.mark.model)
        for view in ("model", "neuron", "summaries", "reproduce")
    ],
]


@pytest.mark.parametrize(("script", "query"), STATES)
def test_every_layer_and_head_a_page_names_is_counted_from_one(script: str, query: dict) -> None:
    at = _run(script, **query)
    texts = _texts(at)
    assert MENTION.search(" ".join(texts)) or script not in {"real_model", "decoder"}, "the check saw no mention"
    layers, heads = _counts()
    assert not _bad_mentions(texts, layers, heads)


def test_the_check_catches_a_page_that_counts_from_zero() -> None:
    """The check itself: a zero, one past the last, and a range that starts at 0 are caught."""
    texts = [
        "Layer 0, head 3",
        "head 13 of 12",
        "layers 0 to 5",
        "layer 6, head 12",
        "Layers 1-6",
        "their head 0 is head 1 here",
    ]
    bad = _bad_mentions(texts, 6, 12)
    assert [b.split(":")[0] for b in bad] == ["Layer 0", "head 13", "layer 0 to 5"]
