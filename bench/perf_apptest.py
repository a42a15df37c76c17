"""rerun_ms and payload_bytes, server side, with Streamlit's AppTest (no browser): the step
page, the real-model page and (rerun_ms only) the Decoder page.

A rerun is timed as the test client sees it: widget.set_value(...).run() returns once the
script run has finished and its messages were collected. The payload is what one run
sends as chart data: the Plotly figure JSON (element.proto.spec) of every plotly_chart.
"""

from __future__ import annotations

import json
import os

from perf_inputs import (
    DECODER_PAGE,
    MODEL_PAGE,
    STEP_PAGE,
    Unavailable,
    bert_sentence,
    median_ms,
    model_labels,
    step_labels,
    step_sentence,
    timed,
)

from attn_core import numbering

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

STEP_SIZES = (8, 16, 32, 64)  # payload at all; rerun at 8, 32, 64
STEP_RERUN = (8, 32, 64)
BERT_SIZES = (16, 128)
TIMEOUT_S = 180  # the real-model page loads the model on its first run


def _check(at, what: str) -> None:
    if at.exception:
        raise Unavailable(f"{what}: the page raised {at.exception[0].message[:200]!r}")


def _widget(at, kinds: tuple[str, ...], label: str):
    """The first widget of those kinds whose label is ``label`` (else starts with it)."""
    found = [w for kind in kinds for w in getattr(at, kind)]
    for match in (lambda w: w.label == label, lambda w: w.label.lower().startswith(label.lower())):
        hits = [w for w in found if match(w)]
        if hits:
            return hits[0]
    raise Unavailable(f"no {'/'.join(kinds)} labelled {label!r} (have {[w.label for w in found]})")


def chart_bytes(at) -> int:
    return sum(len(el.proto.spec) for el in at.get("plotly_chart"))


def other_bytes(at) -> int:
    """Serialized size of every non-chart element of the run (markdown, LaTeX, code, widgets)."""
    total = 0
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(node, "type", "") != "plotly_chart" and not hasattr(node, "children"):
            total += proto.ByteSize()
    return total


def _walk(node):
    yield node
    children = node.children if hasattr(node, "children") else {}
    for child in children.values():
        yield from _walk(child)


def _figure_bytes(at, title_part: str) -> int | None:
    for el in at.get("plotly_chart"):
        title = json.loads(el.proto.spec).get("layout", {}).get("title", {})
        title = title.get("text", "") if isinstance(title, dict) else str(title)
        if title_part in title:
            return len(el.proto.spec)
    return None


def step_page(repeats: int, rerun: dict, payload: dict) -> None:
    """The step page at T tokens: payload of the default view, then reruns after a d_k change."""
    from streamlit.testing.v1 import AppTest

    labels = step_labels()
    at = AppTest.from_file(str(STEP_PAGE), default_timeout=TIMEOUT_S)
    at.run()
    _check(at, "step page")
    d_k_widget = _widget(at, ("slider", "number_input", "select_slider"), labels["d_k"])
    lo, hi = int(getattr(d_k_widget, "min", 1)), int(getattr(d_k_widget, "max", 64))
    for T in STEP_SIZES:
        _widget(at, ("text_input", "text_area"), labels["sentence"]).set_value(step_sentence(T)).run()
        _check(at, f"step page, T={T}")
        payload[f"step_T{T}"] = chart_bytes(at)
        payload[f"step_T{T}_other_elements"] = other_bytes(at)
        if T not in STEP_RERUN:
            continue
        # A new d_k each time, so st.cache_data misses as it would for a student moving the slider.
        values = [lo + (5 + i) % (hi - lo + 1) for i in range(repeats + 1)]
        samples = []
        for n, value in enumerate(values):
            widget = _widget(at, ("slider", "number_input", "select_slider"), labels["d_k"])
            seconds = timed(lambda w=widget, v=value: w.set_value(v).run())
            _check(at, f"step page, T={T}, d_k={value}")
            if n:  # the first one warms this T
                samples.append(seconds)
        rerun[f"step_T{T}"] = median_ms(samples)


def _load_model():
    from attn_core import models

    try:
        return models.load_model(models.DEFAULT_MODEL)
    except models.ModelLoadError as err:
        raise Unavailable(f"the embedded model cannot be loaded: {err}") from err


def model_page(repeats: int, rerun: dict, payload: dict) -> None:
    """The real-model page at T tokens: payload of the default (head) view, reruns after a layer change."""
    from streamlit.testing.v1 import AppTest

    labels = model_labels()
    loaded = _load_model()
    at = AppTest.from_file(str(MODEL_PAGE), default_timeout=TIMEOUT_S)
    at.run()  # loads the model once (st.cache_resource)
    _check(at, "real-model page")
    for T in BERT_SIZES:
        _widget(at, ("text_area", "text_input"), labels["sentence"]).set_value(bert_sentence(loaded.tokenizer, T))
        at.run()
        _check(at, f"real-model page, T={T}")
        payload[f"bert_T{T}"] = chart_bytes(at)
        payload[f"bert_T{T}_other_elements"] = other_bytes(at)
        if T == 128:
            payload["bert_head_view_T128"] = _figure_bytes(at, "Head view")
        layer = _widget(at, ("selectbox", "slider", "number_input"), labels["layer"])
        # Layers are chosen by their number, counted from 1 (attn_core.numbering).
        n_layers = len(layer.options) if hasattr(layer, "options") else 6
        options = [numbering.layer_number(i) for i in range(n_layers)]
        samples = []
        for n in range(repeats + 1):
            widget = _widget(at, ("selectbox", "slider", "number_input"), labels["layer"])
            value = options[(n + 1) % len(options)]
            seconds = timed(lambda w=widget, v=value: w.set_value(v).run())
            _check(at, f"real-model page, T={T}, layer={value}")
            if n:
                samples.append(seconds)
        rerun[f"bert_T{T}"] = median_ms(samples)


def decoder_text(n_words: int = 20, seed: int = 1) -> str:
    """``n_words`` random vocabulary words, then the same words again (T = 2 * n_words)."""
    from attn_core import trained_decoder as dc

    return " ".join(dc.random_repeated(dc.load_decoder(), n_words, seed=seed))


def decoder_page(repeats: int, rerun: dict) -> None:
    """The Decoder page on 40 words (20 random ones, repeated): reruns after a head change (the
    lesson for the text is cached, every chart of the head is rebuilt), and after a new
    40-word text (the model runs again)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(DECODER_PAGE), default_timeout=TIMEOUT_S)
    at.run()
    _check(at, "decoder page")
    _widget(at, ("text_input", "text_area"), "Words").set_value(decoder_text()).run()
    _check(at, "decoder page, T=40")
    samples = []
    for n in range(repeats + 1):
        widget = _widget(at, ("selectbox",), "Head")
        value = numbering.head_number((n + 1) % len(widget.options))  # heads by their number, from 1
        seconds = timed(lambda w=widget, v=value: w.set_value(v).run())
        _check(at, f"decoder page, T=40, head={value}")
        if n:
            samples.append(seconds)
    rerun["decoder_T40"] = median_ms(samples)
    samples = []
    for n in range(repeats + 1):
        box, text = _widget(at, ("text_input", "text_area"), "Words"), decoder_text(seed=2 + n)
        seconds = timed(lambda w=box, t=text: w.set_value(t).run())
        _check(at, f"decoder page, T=40, text {n}")
        if n:
            samples.append(seconds)
    rerun["decoder_T40_new_text"] = median_ms(samples)


def bertviz_head_view(T: int = 128) -> int:
    """Bytes of bertviz.head_view's HTML for the same model and a T-token input."""
    import torch
    from bertviz import head_view

    loaded = _load_model()
    text = bert_sentence(loaded.tokenizer, T)
    enc = loaded.tokenizer(text, return_tensors="pt")
    with loaded.lock, torch.inference_mode():
        out = loaded.model(**{k: v.to(loaded.device) for k, v in enc.items()}, output_attentions=True)
    attention = tuple(a.cpu() for a in out.attentions)  # L x (1, H, T, T)
    tokens = loaded.tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    if len(tokens) != T:
        raise AssertionError(f"bertviz input has {len(tokens)} tokens, wanted {T}")
    html = head_view(attention, tokens, html_action="return")
    return len(html.data.encode("utf-8"))


def run(sections: set[str], quick: bool, results: dict, notes: dict) -> None:
    """Fill results['rerun_ms'] and/or results['payload_bytes'] (whichever is in ``sections``)."""
    repeats = 3 if quick else 9
    rerun: dict = dict.fromkeys(
        ("step_T8", "step_T32", "step_T64", "bert_T16", "bert_T128", "decoder_T40", "decoder_T40_new_text")
    )
    payload: dict = dict.fromkeys(
        (
            "step_T8",
            "step_T16",
            "step_T32",
            "step_T64",
            "bert_T16",
            "bert_T128",
            "bert_head_view_T128",
            "bertviz_head_view_T128",
        )
    )
    for name, measure in (("step", step_page), ("bert", model_page)):
        try:
            measure(repeats if name == "step" else max(3, repeats - 3), rerun, payload)
        except Unavailable as why:
            for section in ("rerun_ms", "payload_bytes"):
                notes.setdefault(section, {})[name] = f"null: {why}"
    if "rerun_ms" in sections:
        try:
            decoder_page(repeats, rerun)
        except Unavailable as why:
            notes.setdefault("rerun_ms", {})["decoder"] = f"null: {why}"
    if "payload_bytes" in sections:
        try:
            payload["bertviz_head_view_T128"] = bertviz_head_view(128)
        except ImportError as why:
            notes.setdefault("payload_bytes", {})["bertviz"] = f"null: bertviz is not installed ({why})"
        except Unavailable as why:
            notes.setdefault("payload_bytes", {})["bertviz"] = f"null: {why}"
    if "rerun_ms" in sections:
        results["rerun_ms"] = rerun
    if "payload_bytes" in sections:
        results["payload_bytes"] = payload
