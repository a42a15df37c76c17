"""The Real model page, driven through AppTest with the real embedded model (no mocks,
except where a test breaks the model path or the hub on purpose)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attn_core import models
from attn_core import transformer as tr
from lessons.real_model import words
from tests.support.figdata import decode, figure_by_title, figures, z_matrix
from tests.support.lab_checks import read_token_list, shown_tokens
from tests.unit.test_real_model_words import check_roles, check_sinks
from ui.common import md_escape

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "lessons" / "real_model" / "page.py")
PAIR_PRESET = "time flies like an arrow / fruit flies like a banana"
TIRED = "The animal didn't cross the street because it was too tired."
CONGESTED = "The animal didn't cross the street because it was congested."
TIMEOUT = 120


@pytest.fixture(scope="module")
def loaded() -> models.LoadedModel:
    """The test's own copy of the model, for computing expected numbers independently."""
    return models.load_model(device="cpu")


def _page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=TIMEOUT)


def _pair_page(**query: str) -> AppTest:
    """The page on the "time flies / fruit flies" pair, layer 1, every head and every token
    (by link: the page itself opens on the "it" sentence and one head). Layers and heads as shown, from 1."""
    at = _page()
    a, b = PAIR_PRESET.split(" / ")
    heads = ",".join(map(str, range(1, 13)))
    at.query_params.update({"a": a, "b": b, "layer": "1", "heads": heads, "focus": "none"})
    at.query_params.update(query)
    return at


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _lines(fig: dict) -> dict[tuple[int, int, int], float]:
    """Head-view lines read back from the figure: (head, i, j) -> weight shown."""
    out = {}
    for trace in fig["data"]:
        meta = trace.get("meta")
        if not isinstance(meta, dict) or "head" not in meta:
            continue
        y = decode(trace["y"]).astype(np.float64).reshape(-1, 3)
        w = decode(trace["customdata"]).astype(np.float64).reshape(-1, 3)[:, 0]
        assert ((w >= meta["w_min"]) & (w <= meta["w_max"] + 1e-3)).all()
        for (i, j, _), weight in zip(y, w, strict=True):
            out[(meta["head"], int(i), int(j))] = weight
    return out


def _code_tokens(at: AppTest) -> list[str]:
    return shown_tokens(at)


def test_sentence_pair_head_view_filters(loaded):
    at = _run(_page())
    at.selectbox(key="rm_preset").set_value(PAIR_PRESET)
    at.multiselect(key="rm_heads").set_value(list(range(1, 13)))  # heads 1 to 12
    at.selectbox(key="rm_layer").set_value(3)  # layer 3: the arrays' [2]
    at.slider(key="rm_threshold").set_value(0.1)
    _run(at)
    att = models.extract_attentions(loaded, *PAIR_PRESET.split(" / "))
    assert _code_tokens(at) == att.tokens
    a, b = att.attentions[2], att.sentence_b_start
    assert b == 7
    in_b = np.arange(att.T) >= b
    wanted = {
        "All": (None, None),
        "A→A": (False, False),
        "B→B": (True, True),
        "A→B": (False, True),
        "B→A": (True, False),
    }
    for region, (q_b, k_b) in wanted.items():
        at.radio(key="rm_region").set_value(region)
        _run(at)
        shown = _lines(figure_by_title(at, "Head view, layer 3"))
        keep = a >= 0.1
        if q_b is not None:
            keep &= (in_b == q_b)[None, :, None] & (in_b == k_b)[None, None, :]
        expected = {tuple(int(v) for v in idx) for idx in zip(*np.nonzero(keep), strict=True)}
        assert set(shown) == expected and expected, region
        for (h, i, j), weight in shown.items():
            assert weight == pytest.approx(a[h, i, j], abs=1e-3)


def test_focus_heads_and_hidden_special_tokens(loaded):
    at = _run(_pair_page())
    att = models.extract_attentions(loaded, *PAIR_PRESET.split(" / "))
    at.multiselect(key="rm_heads").set_value([1, 5])  # heads 1 and 5: the arrays' 0 and 4
    at.selectbox(key="rm_focus").set_value(3)
    at.checkbox(key="rm_hide").check()
    _run(at)
    view = figure_by_title(at, "Head view, layer 1")
    assert {t["name"] for t in view["data"] if isinstance(t.get("meta"), dict)} == {"head 1", "head 5"}
    shown = _lines(view)
    a = att.attentions[0]
    expected = {(h, 3, j) for h in (0, 4) for j in range(att.T) if a[h, 3, j] >= 0.05 and not att.special[j]}
    assert set(shown) == expected and expected
    assert words.HIDDEN_LINES in [c.value for c in at.caption]  # the page says the lines are hidden, not renormalised
    at.multiselect(key="rm_heads").set_value([])
    _run(at)
    assert not figures(at) and words.NO_HEADS in [i.value for i in at.info]


def test_views_switch_and_show_the_models_numbers(loaded):
    at = _run(_pair_page())
    att = models.extract_attentions(loaded, *PAIR_PRESET.split(" / "))
    at.selectbox(key="rm_layer").set_value(5)  # layer 5, head 8: the arrays' [4, 7]
    at.radio(key="rm_view").set_value("model")
    _run(at)
    at.selectbox(key="rm_head").set_value(8)
    _run(at)
    assert (at.query_params["layer"], at.query_params["head"]) == ("5", "8")
    grid = figure_by_title(at, "Model view")
    assert z_matrix(grid["data"][0]).shape == (6 * (att.T + 1) - 1, 12 * (att.T + 1) - 1)
    assert list(grid["layout"]["yaxis"]["ticktext"]) == [f"layer {n}" for n in range(1, 7)]
    assert list(grid["layout"]["xaxis"]["ticktext"]) == [f"h{n}" for n in range(1, 13)]
    big = figure_by_title(at, "Layer 5, head 8")
    np.testing.assert_allclose(z_matrix(big["data"][0]), att.attentions[4, 7], atol=1e-6)

    at.radio(key="rm_view").set_value("neuron")
    _run(at)
    assert at.selectbox(key="rm_head").value == 8 and at.selectbox(key="rm_layer").value == 5
    at.selectbox(key="rm_query").set_value(2)
    _run(at)
    soft = figure_by_title(at, "softmax")
    assert "(layer 5, head 8, query 2)" in soft["layout"]["title"]["text"]
    q_chart = figure_by_title(at, "q: the query vector")  # its screen-reader text names the query as the tokens do
    assert f"query 2 “{att.tokens[2]}”" in q_chart["layout"]["meta"] and "query 0 " not in q_chart["layout"]["meta"]
    np.testing.assert_allclose(decode(soft["data"][0]["y"]).astype(float), att.attentions[4, 7, 2], atol=1e-6)
    qdotk = figure_by_title(at, "q·k")
    expected_scores = att.keys[4, 7].astype(float) @ att.queries[4, 7, 2].astype(float)
    np.testing.assert_allclose(decode(qdotk["data"][0]["y"]).astype(float), expected_scores, rtol=1e-4)

    at.radio(key="rm_view").set_value("summaries")
    _run(at)
    mean = figure_by_title(at, "Layer 5: mean over heads")
    np.testing.assert_allclose(z_matrix(mean["data"][0]), att.attentions[4].mean(axis=0), atol=1e-6)
    roll = z_matrix(figure_by_title(at, "Rollout through layer 5")["data"][0])
    np.testing.assert_allclose(roll.sum(axis=1), 1.0, atol=1e-5)

    at.radio(key="rm_view").set_value("reproduce")
    _run(at)
    error = float(at.metric[0].value)
    assert 0 <= error < 1e-4
    ours = z_matrix(figure_by_title(at, "attn_core")["data"][0])
    np.testing.assert_allclose(ours, att.attentions[4, 7], atol=1e-4)


def test_hostile_text_is_shown_literally():
    hostile = "<script>alert(1)</script> **bold** $\\href{http://x.io}{y}$ 😀 漢字 שלום [link](http://x.io)"
    at = _page()
    at.session_state["rm_a"] = hostile
    at.session_state["rm_b"] = "<img src=x onerror=alert(1)>"
    _run(at)
    tokens = _code_tokens(at)
    assert "<" in tokens and "script" in tokens and "[CLS]" in tokens
    labels = [t for f in figures(at) for tr in f["data"] if tr.get("mode") == "text" for t in tr["text"]]
    assert "&lt;" in labels and "<" not in labels
    for md in [*at.markdown, *at.caption]:
        assert "<script" not in md.value and "<img" not in md.value
    for view in ("model", "neuron", "summaries", "reproduce"):
        at.radio(key="rm_view").set_value(view)
        _run(at)
        for fig in figures(at):
            assert "<script" not in str(fig) and "<img" not in str(fig)


def test_empty_text_shows_a_hint_and_no_charts():
    at = _page()
    at.session_state["rm_a"] = "   "
    _run(at)
    assert any("empty" in i.value for i in at.info)
    assert not figures(at)


def _inputs(at: AppTest) -> set[str]:
    """The page's own widgets (a chart's table switch goes with its chart, a quiz with its question)."""
    kinds = ("text_area", "toggle", "slider", "selectbox", "multiselect", "radio", "checkbox")
    return {w.key for kind in kinds for w in getattr(at, kind) if w.key and not w.key.endswith("_table")}


@pytest.mark.parametrize("view", ["head", "model", "neuron", "summaries", "reproduce"])
def test_an_empty_sentence_hides_no_other_input(view):
    """Clearing sentence A (to type a new one) shows its message, and every input of the view
    stays on the page, disabled where it needs the sentence's tokens; typing again restores them."""
    at = _page()
    at.session_state["rm_a"], at.session_state["rm_b"] = TIRED, "It was late."
    at.session_state["rm_view"] = view
    _run(at)
    keys = _inputs(at)
    at.text_area(key="rm_a").set_value("")
    _run(at)
    assert any("empty" in i.value for i in at.info)
    assert not figures(at)
    assert _inputs(at) == keys
    token_pickers = {"head": ["rm_focus"], "neuron": ["rm_query"]}.get(view, [])
    for key in token_pickers:
        assert at.selectbox(key=key).disabled
    at.text_area(key="rm_a").set_value(CONGESTED)
    _run(at)
    assert _inputs(at) == keys and figures(at)
    for key in token_pickers:
        assert not at.selectbox(key=key).disabled


def test_link_values_are_clamped_before_they_are_written_back():
    """A link made for a longer input (focus token 999, query 500, head 40, heads 3 and 99, layer 9)
    opens on this input clamped, layers to 1..6 and heads to 1..12 as the page counts them, and the
    address bar says so on the very first run."""
    at = _page()
    at.query_params.update({"focus": "999", "head": "40", "heads": "3,99", "layer": "9"})
    _run(at)
    T = len(at.selectbox(key="rm_focus").options) - 1  # [None, 0 .. T-1]
    assert at.selectbox(key="rm_focus").value == T - 1
    assert at.query_params["focus"] == str(T - 1)
    assert at.query_params["layer"] == "6" and at.selectbox(key="rm_layer").value == 6
    assert at.multiselect(key="rm_heads").value == [3, 12]
    assert at.query_params["heads"] == "3,12"
    at0 = _page()
    at0.query_params.update({"layer": "0", "heads": "0"})  # bertviz's layer 0 is the page's layer 1
    _run(at0)
    assert at0.selectbox(key="rm_layer").value == 1 and at0.multiselect(key="rm_heads").value == [1]
    at2 = _page()
    at2.query_params.update({"view": "neuron", "query": "500"})
    _run(at2)
    T = len(at2.selectbox(key="rm_query").options)
    assert at2.selectbox(key="rm_query").value == T - 1 and at2.query_params["query"] == str(T - 1)


def test_long_input_is_truncated_and_stays_light():
    at = _page()
    at.session_state["rm_a"] = "the cat sat on the mat and the dog ran to its bed. " * 60
    at.session_state["rm_b"] = ""
    _run(at)
    assert any("only the first 512" in w.value for w in at.warning)
    assert len(_code_tokens(at)) == 512
    at.slider(key="rm_threshold").set_value(0.01)  # the faintest lines the slider allows
    _run(at)
    specs = [len(el.proto.spec) for el in at.get("plotly_chart")]
    assert specs and max(specs) < 2_000_000
    for view in ("model", "summaries"):
        at.radio(key="rm_view").set_value(view)
        _run(at)
        assert max(len(el.proto.spec) for el in at.get("plotly_chart")) < 2_000_000


def test_head_view_at_128_tokens_sends_under_2_mb():
    at = _page()
    at.session_state["rm_a"] = " ".join(["the cat sat on a mat and dog ran to its bed"] * 11)[: 126 * 4]
    _run(at)
    at.slider(key="rm_threshold").set_value(0.01)
    _run(at)
    assert 100 <= len(_code_tokens(at)) <= 140
    (spec,) = [el.proto.spec for el in at.get("plotly_chart")]
    assert len(spec) < 2_000_000


def test_offline_hub_model_shows_a_message_and_the_default_keeps_working(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = _run(_page())
    at.selectbox(key="rm_model").set_value("bert-base-uncased")
    _run(at)
    assert any("offline" in e.value and "embedded model instead" in e.value for e in at.error)
    assert figures(at)  # the head view of the embedded model
    assert any("running on" in c.value.lower() and "CPU" in c.value for c in at.caption)


def test_missing_model_files_leave_a_clear_message(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "default_model_dir", lambda: tmp_path)
    at = _run(_page())
    assert len(at.error) == 1 and "not available" in at.error[0].value and "pip install" in at.error[0].value
    assert "Traceback" not in at.error[0].value
    assert not figures(at)
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()  # the app opens on Home
    assert not home.exception and home.title


def _it_head_by_hand(loaded) -> tuple[int, int]:
    """The head in which "it" gives "animal" the most weight in the "tired" sentence, found
    here from the model's attentions (not through models.it_head)."""
    att = models.extract_attentions(loaded, TIRED)
    on_animal = att.attentions[:, :, att.tokens.index("it"), att.tokens.index("animal")]
    layer, head = np.unravel_index(np.argmax(on_animal), on_animal.shape)
    return int(layer), int(head)


def test_the_it_head_suggestion_states_the_models_own_numbers(loaded):
    """The caption about the suggested head is computed; here the head and its numbers are
    checked against the model run on each animal sentence alone, by hand."""
    at = _run(_page())
    layer, head = _it_head_by_hand(loaded)
    assert models.it_head(loaded) == (layer, head)
    numbers = {}
    for label, text in (("tired", TIRED), ("congested", CONGESTED)):
        att = models.extract_attentions(loaded, text)
        row = att.attentions[layer, head, att.tokens.index("it")]
        numbers[label] = (row[att.tokens.index("animal")], row[att.tokens.index("street")], att.tokens[row.argmax()])
    caption = next(c.value for c in at.caption if f"layer {layer + 1}, head {head + 1}:" in c.value)
    (ta, ts, _), (ca, cs, ctop) = numbers["tired"], numbers["congested"]
    assert f"puts {ta:.2f} of its weight on “animal” ({ts:.2f} on “street”)" in caption
    assert f"{ca:.2f} on “animal” and {cs:.2f} on “street”" in caption
    assert ta > ca + 0.2, "the suggested head should visibly change between the two sentences"
    assert ctop == "animal" and "still gets the most weight" in caption


def test_the_intro_says_what_the_model_is_from_its_own_files(loaded):
    """BERT's architecture, but a MiniLM starting point and a fine-tuning for sentence embeddings:
    each part read from the shipped config.json and model card, checked here against them."""
    import json

    folder = models.default_model_dir()
    config = json.loads((folder / "config.json").read_text())
    card = (folder / "README.md").read_text()
    at = _run(_page())
    intro = at.markdown[0].value
    assert intro == words.intro(words.origin_sentence(tr.minilm_shape(folder)))
    assert f"(its config.json: {config['architectures'][0]}, " in intro
    assert f"{config['num_hidden_layers']} layers of {config['num_attention_heads']} heads" in intro
    assert f"it starts from {config['_name_or_path']}, a MiniLM" in intro
    assert type(loaded.model).__name__ == config["architectures"][0] == "BertModel"
    assert ("fine-tune" in card.lower()) == ("fine-tuned" in intro)


def test_the_summaries_say_rollout_and_weights_are_not_attributions(loaded):
    at = _page()
    at.query_params["view"] = "summaries"
    _run(at)
    text = [m.value for m in at.markdown]
    assert words.SUMMARIES_TEXT in text and words.NOT_IMPORTANCE in text


def test_the_model_view_counts_the_sinks_and_how_the_heads_differ(loaded):
    """The model view's paragraph: the [CLS] and [SEP] sinks and the previous-token, next-token and
    broad heads, each count recomputed from the model's attentions (tests/unit/test_real_model_words)."""
    at = _run(_pair_page(view="model"))
    a = models.extract_attentions(loaded, *PAIR_PRESET.split(" / ")).attentions.astype(np.float64)
    text = next(m.value for m in at.markdown if m.value.startswith("Every small square"))
    check_sinks(a, text)
    check_roles(a, text)
    on_cls, on_sep = (a[..., key].mean(axis=-1) > 0.5 for key in (0, -1))  # (L, H) each
    assert on_cls.sum() > on_sep.sum(), "in all-MiniLM-L6-v2 the sink is [CLS], not [SEP]"


def test_predict_first_asks_about_the_shown_head_and_hides_the_it_numbers(loaded):
    """With "Predict first" on, the two "it" questions are about the view's own layer and head,
    their answers are the model's argmax and weight, and the it-head caption and the view's
    chart (which draws that head's weights) wait until both answers are revealed."""
    layer, head = _it_head_by_hand(loaded)
    where = f"layer {layer + 1}, head {head + 1}"
    at = _page()
    at.query_params.update({"view": "model", "layer": str(layer + 1), "head": str(head + 1), "predict": "1"})
    _run(at)
    assert not any("puts" in c.value and where in c.value for c in at.caption)
    assert any("stay hidden" in c.value or "stays hidden" in c.value for c in at.caption)
    assert not any("“animal”" in m.value for m in at.markdown if m.value.startswith("- "))  # nor the footer
    waits = words.waits(layer, head)
    assert where in waits
    for label, text in (("tired", TIRED), ("congested", CONGESTED)):
        assert not figures(at) and any(i.value == waits for i in at.info), [i.value for i in at.info]
        att = models.extract_attentions(loaded, text)
        row = att.attentions[layer, head, att.tokens.index("it")].astype(np.float64)
        at.selectbox(key=f"rm_quiz_{label}_pick").select_index(0)  # any pick: Reveal waits for one
        _run(at)
        at.button(key=f"rm_quiz_{label}_reveal").click()
        _run(at)
        shown = " ".join(s.value for s in [*at.success, *at.info] if "The answer" in s.value)
        assert md_escape(f"{row.argmax()}: {att.tokens[row.argmax()]}") in shown
        assert f"{row.max():.3f}" in shown
    assert any("puts" in c.value and where in c.value for c in at.caption)
    assert figures(at) and not any(i.value == waits for i in at.info)  # the view, drawn at last


def test_presenter_mode_steps_through_the_views(loaded):
    """Presenter mode (?present=1): Back and Next replace the View radio and walk through the five
    views in the URL's ``view``; the model, the examples and Predict first move to the sidebar;
    the chart comes straight after the view's pickers, the tokens and the download below it."""
    at = _pair_page(view="model", layer="3", head="6")  # the arrays' [2, 5]
    at.session_state["present"] = True
    _run(at)
    assert not [r for r in at.radio if r.key == "rm_view"], "the View radio is drawn in presenter mode"
    progress = [m.value for m in at.markdown if m.value.startswith("## **View ")]
    assert progress == ["## **View 2 of 5** · Model view"]
    assert {w.key for w in at.sidebar.selectbox} >= {"rm_model", "rm_preset"}
    assert [t.key for t in at.sidebar.toggle] == ["rm_predict"]
    att = models.extract_attentions(loaded, *PAIR_PRESET.split(" / "))
    big = figure_by_title(at, "Layer 3, head 6")
    np.testing.assert_allclose(z_matrix(big["data"][0]), att.attentions[2, 5], atol=1e-6)
    nodes = list(at.main)  # the main area top to bottom
    order = [node.type for node in nodes]
    npz = len(order) - 1 - order[::-1].index("download_button")  # the .npz: the last download on the page
    tokens = next(i for i, n in enumerate(nodes) if n.type == "markdown" and read_token_list(n.value) is not None)
    assert order.index("plotly_chart") < tokens < npz
    assert set(order[npz + 1 :]) <= {"divider", "subheader", "markdown", "flex_container"}  # only the footer

    at.button(key="rm_view_next").click()
    _run(at)
    assert at.session_state["rm_view"] == "neuron" and at.query_params["view"] == "neuron"
    assert [m.value for m in at.markdown if m.value.startswith("## **View ")] == ["## **View 3 of 5** · Neuron view"]
    assert figure_by_title(at, "softmax") and not [f for f in figures(at) if "Model view" in str(f["layout"])]
    for _ in range(2):  # to the last view; Next is then disabled
        at.button(key="rm_view_next").click()
        _run(at)
    assert at.session_state["rm_view"] == "reproduce" and at.button(key="rm_view_next").disabled
    at.button(key="rm_view_back").click()
    _run(at)
    assert at.session_state["rm_view"] == "summaries"
    for _ in range(3):  # neuron, model, head
        at.button(key="rm_view_back").click()
        _run(at)
    assert at.session_state["rm_view"] == "head" and "view" not in at.query_params
    assert at.button(key="rm_view_back").disabled
    # The head view's line filters wait in the sidebar too; its pickers stay above the chart.
    assert [c.key for c in at.sidebar.checkbox] == ["rm_hide"] and [s.key for s in at.sidebar.slider] == [
        "rm_threshold"
    ]
    assert [m.key for m in at.main.multiselect] == ["rm_heads"] and not list(at.main.slider)


def test_switching_presenter_mode_keeps_the_view():
    """The View radio and presenter mode's Back and Next hold the same setting: a view chosen in
    one mode is the one shown after switching to the other, both ways."""
    at = _run(_pair_page())
    at.radio(key="rm_view").set_value("neuron")
    _run(at)
    at.session_state["present"] = True
    _run(at)
    assert [m.value for m in at.markdown if m.value.startswith("## **View ")] == ["## **View 3 of 5** · Neuron view"]
    at.button(key="rm_view_next").click()
    _run(at)
    assert at.query_params["view"] == "summaries"
    at.session_state["present"] = False
    _run(at)
    assert at.radio(key="rm_view").value == "summaries"
    assert figure_by_title(at, "Rollout through layer 1")


def test_the_page_opens_on_one_head_with_it_picked(loaded):
    """No link, no sentence from another page: the "it" sentence alone, the head the page
    suggests for "it" (found here by hand), "it" picked, and only that head's lines from "it";
    every one of these is a default, so the address bar stays empty. "All 12 heads" is one
    click away, and one more click comes back."""
    layer, head = _it_head_by_hand(loaded)
    at = _run(_page())
    att = models.extract_attentions(loaded, TIRED)
    it = att.tokens.index("it")
    assert (at.text_area(key="rm_a").value, at.text_area(key="rm_b").value) == (TIRED, "")
    assert at.selectbox(key="rm_layer").value == layer + 1 and at.multiselect(key="rm_heads").value == [head + 1]
    assert at.selectbox(key="rm_focus").value == it and at.radio(key="rm_view").value == "head"
    assert dict(at.query_params) == {}
    size = (loaded.n_layers, loaded.n_heads, loaded.d_model, loaded.d_k, models.device_label(loaded))
    assert [c.value for c in at.caption].count(words.about_model(loaded.name, *size)) == 1  # numbered from 1, once
    shown = _lines(figure_by_title(at, f"Head view, layer {layer + 1}"))
    expected = {(head, it, j) for j in range(att.T) if att.attentions[layer, head, it, j] >= 0.05}
    assert set(shown) == expected and expected
    at.button(key="rm_heads_button").click()
    _run(at)
    assert at.multiselect(key="rm_heads").value == list(range(1, 13))
    assert {h for h, _, _ in _lines(figure_by_title(at, f"Head view, layer {layer + 1}"))} == {
        h for h in range(12) if (att.attentions[layer, h, it] >= 0.05).any()
    }
    assert at.button(key="rm_heads_button").label == f"Only head {head + 1}"
    at.button(key="rm_heads_button").click()
    _run(at)
    assert at.multiselect(key="rm_heads").value == [head + 1]


def test_a_sentence_from_another_page_opens_with_its_it_picked(loaded):
    """The app's sentence (typed on another page) becomes sentence A, with its own "it" picked;
    a sentence without "it" shows every token. A link's own sentence still wins."""
    at = _page()
    at.session_state["app_sentence"] = "My dog sat down because it was tired"
    _run(at)
    tokens = models.extract_attentions(loaded, "My dog sat down because it was tired").tokens
    assert at.text_area(key="rm_a").value == "My dog sat down because it was tired"
    assert at.selectbox(key="rm_focus").value == tokens.index("it")
    assert any(c.value == "Sentence A is your sentence from another page." for c in at.caption)
    at.text_area(key="rm_a").set_value("The cat sat on the mat.")
    _run(at)
    assert at.selectbox(key="rm_focus").value is None and at.query_params["focus"] == "none"
    assert not any("from another page" in c.value for c in at.caption)
    link = _page()
    link.session_state["app_sentence"] = "My dog sat down because it was tired"
    link.query_params["a"] = "Time flies."
    _run(link)
    assert link.text_area(key="rm_a").value == "Time flies."


def test_the_footer_states_the_models_numbers_and_links_to_the_decoder(loaded):
    layer, head = _it_head_by_hand(loaded)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    app.switch_page("lessons/real_model/page.py").run()
    assert not app.exception
    lines = next(m.value for m in app.markdown if m.value.startswith("- ") and "patterns" in m.value)
    att = models.extract_attentions(loaded, TIRED)
    on_cls = int((att.attentions[..., 0].astype(np.float64).mean(axis=-1) > 0.5).sum())
    assert f"read your {att.T} tokens in 72 patterns of their own; {on_cls} of the heads" in lines
    rows = {label: models.extract_attentions(loaded, text) for label, text in (("t", TIRED), ("c", CONGESTED))}
    weights = [r.attentions[layer, head, r.tokens.index("it"), r.tokens.index("animal")] for r in rows.values()]
    where = f"layer {layer + 1}, head {head + 1}"
    assert f"In {where}, the head this page opens on, “it” gives “animal” {weights[0]:.2f}" in lines
    assert f"and {weights[1]:.2f} in the “congested” one" in lines
    assert [(el.proto.label, el.proto.page) for el in app.get("page_link")][-1] == ("Decoder (causal)", "decoder")
