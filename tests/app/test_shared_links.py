"""Shared links, page by page (AppTest): a link's settings start every widget it names, and the
address keeps them; changing a widget writes the address back, a value at its default left out;
values outside a widget's range are clamped, not reset; a page opened without settings writes
none. One row per widget a link sets (every page has a link: tests/unit/test_coverage_guards.py).

The browser opens one such link as a fresh server's very first request
(tests/browser/test_deep_link.py); what the widgets start from is the same code path, so the
table of every page's settings runs here, without a browser."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

import pytest
from streamlit.testing.v1 import AppTest

from lessons import pages
from tests.conftest import ROOT

TIMEOUT = 120
KINDS = (
    "text_input",
    "text_area",
    "slider",
    "select_slider",
    "number_input",
    "selectbox",
    "multiselect",
    "radio",
    "toggle",
    "checkbox",
)
MODEL_LINKS = ("real-model-neuron", "real-model-head", "attention-in-a-transformer")  # pages that load the model


@dataclass(frozen=True)
class Change:
    """Set the widget labelled ``label`` to ``to`` (its value; a choice's value, not its text);
    then the address's ``param`` must read ``url`` (None: ``to`` is the default, left out)."""

    label: str
    param: str
    url: str | None
    to: object


# Not the page's own sentence (the "tired" one), which a link leaves out like every default.
RM_CONGESTED = "The animal didn't cross the street because it was congested."

# The links, by id: the page's url path, and the widget to change once the link is open.
PATHS = {
    "home": ("", Change("Try a sentence", "text", "the bear ate honey", to="the bear ate honey")),
    "step-by-step": ("step-by-step", Change("d_model (size of each token vector)", "d_model", "17", to=17)),
    "step-by-step-decoder": ("step-by-step", Change("Head", "head", "3", to=3)),
    "softmax-lab": ("softmax-lab", Change("Keys per row T (entropy experiment)", "T", "13", to=13)),
    "multi-head": ("multi-head", Change("Heads H", "heads", None, to=4)),  # 3 -> 4, the default: left out
    "cross-attention": ("cross-attention", Change("d_k = d_v", "d_k", "16", to=16)),
    "masks-and-cost": ("masks-and-cost", Change("Window radius r", "radius", None, to=2)),  # 1 -> 2, the default
    "real-model-neuron": ("real-model", Change("Layer", "layer", "5", to=5)),  # layer 4 is the default
    "real-model-head": ("real-model", Change("View", "view", "model", to="model")),
    "decoder": ("decoder", Change("Head", "head", "3", to=3)),
    "attention-in-a-transformer": ("attention-in-a-transformer", Change("H (attention heads)", "heads", "12", to=12)),
    "articles-checked": (
        "articles-checked",
        Change("Seed for the random vectors of sections 2 to 5", "seed", "4", to=4),
    ),
    # A code no class has: the page keeps it in the box and in the address.
    "class": ("class", Change("Class code", "code", "ZZZZZZ", to="ZZZZZZ")),
}
# One row per widget a link is checked on: (link id, URL parameter, its value in the link or None
# where the link leaves it out, label of its widget, what the widget must hold: a text, a switch's
# state, a number, or a choice as the page shows it). The link's query is these values in this
# order. Every parameter a link sets is here; a parameter at its default (None) may be too, to
# check the widget's starting value.
WIDGETS = [
    ("home", "text", "a red fox jumps", "Try a sentence", "a red fox jumps"),
    ("step-by-step", "text", "the bear ate", "Sentence", "the bear ate"),
    ("step-by-step", "d_k", "8", "d_k (size of queries and keys)", 8),
    ("step-by-step", "causal", "1", "Causal mask (no looking ahead)", True),
    ("step-by-step", "seed", "5", "Seed (random weights)", 5),
    ("step-by-step", "scale", "0", "Divide the scores by √d_k", False),
    ("step-by-step", "pos", None, "Add positional encoding", True),
    # Layers and heads as shown, counted from 1: layer 2, head 4 is the decoder's last head.
    ("step-by-step-decoder", "weights", "decoder", "Weights", "A head of our small decoder (causal)"),
    ("step-by-step-decoder", "layer", "2", "Layer", "layer 2"),
    ("step-by-step-decoder", "head", "4", "Head", "head 4"),
    ("step-by-step-decoder", "causal", "1", "Causal mask (no looking ahead)", True),  # the decoder keeps it on
    ("softmax-lab", "text", "a b c d e", "Sentence (its words label the keys)", "a b c d e"),
    ("softmax-lab", "seed", "7", "Seed for the scores", 7),
    ("softmax-lab", "m", "50", "Multiplier m", 50.0),
    ("softmax-lab", "T", "12", "Keys per row T (entropy experiment)", 12),
    ("softmax-lab", "raise", "3", "Score to raise", "3:d"),  # labelled with the link's own sentence
    ("softmax-lab", "delta", "-2.5", "Raise it by", -2.5),
    ("softmax-lab", "dk_seed", "2", "Seed for q and k", 2),
    ("multi-head", "text", "one two three", "Sentence", "one two three"),
    ("multi-head", "heads", "3", "Heads H", 3),
    ("multi-head", "d_model", "32", "d_model", 32),
    ("multi-head", "d_k", "8", "d_k = d_v", 8),
    ("multi-head", "causal", "1", "Causal mask", True),
    ("multi-head", "seed", "7", "Seed", 7),
    ("cross-attention", "source", "I like tea", "Source sentence (encoder side)", "I like tea"),
    ("cross-attention", "target", "J'aime le thé", "Target sentence (decoder side)", "J'aime le thé"),
    ("cross-attention", "swap", "1", "Queries from the source", True),
    ("cross-attention", "d_model", "32", "d_model", 32),
    ("cross-attention", "d_k", "8", "d_k = d_v", 8),
    ("cross-attention", "seed", "6", "Seed", 6),
    ("masks-and-cost", "text", "a b c d e", "Sentence", "a b c d e"),
    ("masks-and-cost", "radius", "1", "Window radius r", 1),
    ("masks-and-cost", "dilation", "3", "Dilation", 3),
    ("masks-and-cost", "seed", "4", "Seed", 4),
    ("masks-and-cost", "predict", "1", "Predict first", True),
    ("real-model-neuron", "a", RM_CONGESTED, "Sentence A", RM_CONGESTED),
    ("real-model-neuron", "b", None, "Sentence B (optional)", ""),
    ("real-model-neuron", "view", "neuron", "View", "Neuron view"),
    ("real-model-neuron", "layer", "2", "Layer", "layer 2"),
    ("real-model-neuron", "head", "2", "Head", "head 2"),  # head 1 is the default: left out of a link
    ("real-model-neuron", "query", "10", "Query token", "10: it"),
    ("real-model-head", "a", "The cat sat.", "Sentence A", "The cat sat."),
    ("real-model-head", "b", "It was tired.", "Sentence B (optional)", "It was tired."),
    ("real-model-head", "view", None, "View", "Head view"),
    ("real-model-head", "layer", "2", "Layer", "layer 2"),
    ("real-model-head", "heads", "1,5,12", "Heads", ["head 1", "head 5", "head 12"]),  # counted from 1
    ("real-model-head", "focus", "3", "Focus on a query token", "3: sat"),  # [CLS] the cat sat
    ("real-model-head", "region", "A→B", "Which lines", "A→B"),
    ("real-model-head", "hide", "1", "Hide [CLS] and [SEP]", True),
    ("real-model-head", "threshold", "0.2", "Hide lines fainter than", 0.2),
    (
        "decoder",
        "text",
        "cat dog sun cat dog sun",
        "Words (from the model's 100-word vocabulary)",
        "cat dog sun cat dog sun",
    ),
    ("decoder", "layer", "1", "Layer", "layer 1"),
    ("decoder", "head", "2", "Head", "head 2"),
    ("decoder", "focus", "4", "Focus on a word", "4: dog"),
    ("decoder", "predict", None, "Predict first", False),
    ("attention-in-a-transformer", "a", "one two three", "Sentence A (the encoder's source)", "one two three"),
    ("attention-in-a-transformer", "b", "un deux trois", "Sentence B (the decoder's target)", "un deux trois"),
    ("attention-in-a-transformer", "d_model", "32", "d_model (width of every token vector)", 32),
    ("attention-in-a-transformer", "heads", "8", "H (attention heads)", 8),
    ("attention-in-a-transformer", "seed", "9", "Seed for the random weights", 9),
    ("articles-checked", "k_mat", "0.3, 0.4, 0.2", "k_mat", "0.3, 0.4, 0.2"),
    ("articles-checked", "seed", "3", "Seed for the random vectors of sections 2 to 5", 3),
    ("articles-checked", "scale", "2", "Standard deviation s of the q and k entries (mean 0)", 2.0),
    ("class", "code", "K7XQ2M", "Class code", "K7XQ2M"),
]


def _link(link_id: str):
    """pytest.param(page path with the link's query, {URL parameter: (label of its widget, what the
    widget must hold)}, the Change), from PATHS and WIDGETS."""
    path, change = PATHS[link_id]
    rows = [row[1:] for row in WIDGETS if row[0] == link_id]
    query = urlencode([(param, value) for param, value, _, _ in rows if value is not None], safe=",")
    expected = {param: (label, shown) for param, _, label, shown in rows}
    marks = [pytest.mark.model] if link_id in MODEL_LINKS else []
    return pytest.param(f"{path}?{query}", expected, change, id=link_id, marks=marks)


LINKS = [_link(link_id) for link_id in PATHS]


# --------------------------------------------------------------------------- opening a page


def script(path: str) -> str:
    """The script AppTest runs for a url path: app.py for Home (its page links need the
    navigation), else the page's own script."""
    info = next(p for p in pages.PAGES if p.url_path == path)
    return str(ROOT / ("app.py" if info is pages.HOME else info.script))


def open_page(path: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(script(path), default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(autouse=True)
def _class_database(monkeypatch, tmp_path) -> None:
    """The Class page reads its database address from the environment: a file of this test's own."""
    monkeypatch.setenv("CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.sqlite3'}")


def widget_by_label(at: AppTest, label: str):
    found = [w for kind in KINDS for w in getattr(at, kind) if w.label == label]
    assert len(found) == 1, f"{len(found)} widgets labelled {label!r}"
    return found[0]


def shown(w) -> object:
    """What a widget holds as the page shows it: a choice by its option's text (a list of them for a
    multiselect), anything else by its value."""
    if w.type == "multiselect":
        return [w.options[i] for i in w.indices]
    if w.type in ("selectbox", "radio"):
        return None if w.index is None else w.options[w.index]
    return w.value


def values(at: AppTest, labels) -> dict:
    return {label: shown(widget_by_label(at, label)) for label in labels}


# --------------------------------------------------------------------------- the table


@pytest.mark.parametrize(("link", "expected", "change"), LINKS)
def test_a_shared_link_starts_every_widget_it_names(link: str, expected: dict, change: Change) -> None:
    path, query = link.split("?", 1)
    sent = dict(parse_qsl(query, keep_blank_values=True))
    assert set(sent) <= set(expected), f"the link sets {sorted(set(sent) - set(expected))}: check their widgets"
    at = open_page(path, sent)
    want = dict(expected.values())
    assert values(at, want) == want
    # Every value the link set is still in the address (nothing was reset to its default).
    assert {k: v for k, v in at.query_params.items() if v} == {k: v for k, v in sent.items() if v}

    before = at.query_params.get(change.param)
    widget_by_label(at, change.label).set_value(change.to).run()
    assert not at.exception, [e.value for e in at.exception]
    after = at.query_params.get(change.param)
    assert after != before, f"changing {change.label!r} did not change ?{change.param}="
    assert after == change.url, f"{change.label!r}: ?{change.param}={after}"


def test_values_out_of_range_are_clamped_not_reset() -> None:
    """A hand-edited link: numbers beyond a widget's range are moved to its nearest end, a
    multiplier between the choices to the nearest choice, and unreadable values give the
    default (left out of the address); the address then holds what the widgets show."""
    at = open_page(
        "softmax-lab", {"T": "999", "dk_seed": "-5", "m": "42", "delta": "2.3", "raise": "zz", "seed": "nan"}
    )
    want = {
        "Keys per row T (entropy experiment)": 64,
        "Seed for q and k": 0,
        "Multiplier m": 50.0,
        "Raise it by": 2.5,
        "Score to raise": "0:The",
        "Seed for the scores": 0,
    }
    assert values(at, want) == want
    assert dict(at.query_params) == {"T": "64", "m": "50", "delta": "2.5"}


MODEL_PAGES = ("real_model", "in_a_transformer")  # lessons whose page loads the real model
PAGE_PATHS = [
    pytest.param(p.url_path, id=p.url_path or "home", marks=[pytest.mark.model] if p.lesson in MODEL_PAGES else [])
    for p in pages.PAGES
]


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_defaults_stay_out_of_the_url(path: str) -> None:
    """Opened with no parameters, a page writes none: every widget is at its default."""
    at = open_page(path, {})
    assert dict(at.query_params) == {}
