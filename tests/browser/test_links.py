"""Shared links: every page opened from a link as the very first request to a freshly started
server shows no dialog and starts every widget the link names from the URL; changing a widget
writes the URL back, and a value at its default is left out. One link is also opened on a
fresh server in the dark theme, and values outside a widget's range are clamped, not reset.

A folder named pages/ used to put Streamlit in its legacy multipage mode until
st.navigation had run once, so such a first visit showed "Page not found"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.support.browser.checks import Watch, link_problems
from tests.support.browser.server import StreamlitServer
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import choose
from tests.support.browser.waits import (
    PAGES,
    RUN_COUNTER_JS,
    bump_number,
    fill_text,
    nudge_slider,
    run_count,
    wait_for_run,
)

pytestmark = pytest.mark.browser

# The value a widget shows, found by its accessible name (Streamlit puts the label there):
# a text box's text, a switch's or checkbox's state, a slider's shown value, a select box's
# choice, a radio group's chosen option, a multiselect's chosen chips (a list).
WIDGET_VALUE_JS = """
(label) => {
  const named = Array.from(document.querySelectorAll('[aria-label]'))
    .filter(e => e.getAttribute('aria-label') === label);
  const group = named.find(e => e.getAttribute('role') === 'radiogroup');
  if (group) {
    const chosen = group.querySelector("[data-selected='true'] [data-testid='stMarkdownContainer']");
    return chosen ? chosen.innerText.trim() : null;
  }
  const input = named.find(e => e.tagName === 'INPUT' || e.tagName === 'TEXTAREA');
  if (!input) return null;
  if (input.type === 'checkbox') return input.checked;
  const slider = input.closest("[data-testid='stSlider']");
  if (slider) return slider.querySelector("[data-testid='stSliderThumbValue']").innerText.trim();
  const multi = input.closest("[data-testid='stMultiSelect']");
  if (multi) {
    const chips = multi.querySelectorAll("[aria-label='Selected values'] [data-tag]");
    return Array.from(chips, c => c.getAttribute('aria-label'));
  }
  return input.value;
}
"""
DIALOG = "[role='dialog'], [data-testid='stDialog']"
# The app's background colour, "rgb(r, g, b)".
BACKGROUND_JS = "() => getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor"


@dataclass(frozen=True)
class Change:
    """Set the widget labelled ``label`` to another value; then the URL's ``param`` must read
    ``url`` (None: the new value is the default, so the parameter is left out).

    ``to`` is the text to type, or the option to pick in a select box or a radio group; a
    slider moves one step right and a number box one step up."""

    label: str
    param: str
    url: str | None
    to: str | None = None


# Not the page's own sentence (the "tired" one), which a link leaves out like every default.
RM_CONGESTED = "The animal didn't cross the street because it was congested."

# The links, by id: the page's path, and the widget to change once the link is open.
PATHS = {
    "home": ("", Change("Try a sentence", "text", "the bear ate honey", to="the bear ate honey")),
    "step-by-step": ("step-by-step", Change("d_model (size of each token vector)", "d_model", "17")),
    "step-by-step-decoder": ("step-by-step", Change("Head", "head", "3", to="head 3")),
    "softmax-lab": ("softmax-lab", Change("Keys per row T (entropy experiment)", "T", "13")),
    "multi-head": ("multi-head", Change("Heads H", "heads", None)),  # 3 -> 4, the default: left out
    "cross-attention": ("cross-attention", Change("d_k = d_v", "d_k", "16")),
    "masks-and-cost": ("masks-and-cost", Change("Window radius r", "radius", None)),  # 1 -> 2, the default
    "real-model-neuron": ("real-model", Change("Layer", "layer", "5", to="layer 5")),  # layer 4 is the default
    "real-model-head": ("real-model", Change("View", "view", "model", to="Model view")),
    "decoder": ("decoder", Change("Head", "head", "3", to="head 3")),
    "attention-in-a-transformer": ("attention-in-a-transformer", Change("H (attention heads)", "heads", "12")),
    "articles-checked": ("articles-checked", Change("Seed for the random vectors of sections 2 to 5", "seed", "4")),
    # Typing a code and Enter tries to join: no class has this one, and the box keeps it.
    "class": ("class", Change("Class code", "code", "ZZZZZZ", to="ZZZZZZ")),
}
# One row per widget a link is checked on: (link id, URL parameter, its value in the link or None
# where the link leaves it out, label of its widget, value the widget must show). The link's query
# is these values in this order. Every parameter a link sets is here; a parameter at its default
# (None) may be too, to check the widget's starting value.
WIDGETS = [
    ("home", "text", "a red fox jumps", "Try a sentence", "a red fox jumps"),
    ("step-by-step", "text", "the bear ate", "Sentence", "the bear ate"),
    ("step-by-step", "d_k", "8", "d_k (size of queries and keys)", "8"),
    ("step-by-step", "causal", "1", "Causal mask (no looking ahead)", True),
    ("step-by-step", "seed", "5", "Seed (random weights)", "5"),
    ("step-by-step", "scale", "0", "Divide the scores by √d_k", False),
    ("step-by-step", "pos", None, "Add positional encoding", True),
    # Layers and heads as shown, counted from 1: layer 2, head 4 is the decoder's last head.
    ("step-by-step-decoder", "weights", "decoder", "Weights", "A head of our small decoder (causal)"),
    ("step-by-step-decoder", "layer", "2", "Layer", "layer 2"),
    ("step-by-step-decoder", "head", "4", "Head", "head 4"),
    ("step-by-step-decoder", "causal", "1", "Causal mask (no looking ahead)", True),  # the decoder keeps it on
    ("softmax-lab", "text", "a b c d e", "Sentence (its words label the keys)", "a b c d e"),
    ("softmax-lab", "seed", "7", "Seed for the scores", "7"),
    ("softmax-lab", "m", "50", "Multiplier m", "50.0"),
    ("softmax-lab", "T", "12", "Keys per row T (entropy experiment)", "12"),
    ("softmax-lab", "raise", "3", "Score to raise", "3:d"),  # labelled with the link's own sentence
    ("softmax-lab", "delta", "-2.5", "Raise it by", "-2.50"),
    ("softmax-lab", "dk_seed", "2", "Seed for q and k", "2"),
    ("multi-head", "text", "one two three", "Sentence", "one two three"),
    ("multi-head", "heads", "3", "Heads H", "3"),
    ("multi-head", "d_model", "32", "d_model", "32"),
    ("multi-head", "d_k", "8", "d_k = d_v", "8"),
    ("multi-head", "causal", "1", "Causal mask", True),
    ("multi-head", "seed", "7", "Seed", "7"),
    ("cross-attention", "source", "I like tea", "Source sentence (encoder side)", "I like tea"),
    ("cross-attention", "target", "J'aime le thé", "Target sentence (decoder side)", "J'aime le thé"),
    ("cross-attention", "swap", "1", "Queries from the source", True),
    ("cross-attention", "d_model", "32", "d_model", "32"),
    ("cross-attention", "d_k", "8", "d_k = d_v", "8"),
    ("cross-attention", "seed", "6", "Seed", "6"),
    ("masks-and-cost", "text", "a b c d e", "Sentence", "a b c d e"),
    ("masks-and-cost", "radius", "1", "Window radius r", "1"),
    ("masks-and-cost", "dilation", "3", "Dilation", "3"),
    ("masks-and-cost", "seed", "4", "Seed", "4"),
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
    ("real-model-head", "threshold", "0.2", "Hide lines fainter than", "0.20"),
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
    ("attention-in-a-transformer", "d_model", "32", "d_model (width of every token vector)", "32"),
    ("attention-in-a-transformer", "heads", "8", "H (attention heads)", "8"),
    ("attention-in-a-transformer", "seed", "9", "Seed for the random weights", "9"),
    ("articles-checked", "k_mat", "0.3, 0.4, 0.2", "k_mat", "0.3, 0.4, 0.2"),
    ("articles-checked", "seed", "3", "Seed for the random vectors of sections 2 to 5", "3"),
    (
        "articles-checked",
        "scale",
        "2",
        "Standard deviation s of the q and k entries (mean 0)",
        "2.0",
    ),
    ("class", "code", "K7XQ2M", "Class code", "K7XQ2M"),
]


def _link(link_id: str):
    """pytest.param(page path with the link's query, {URL parameter: (label of its widget, value
    the widget must show)}, the Change), from PATHS and WIDGETS."""
    path, change = PATHS[link_id]
    rows = [row[1:] for row in WIDGETS if row[0] == link_id]
    query = urlencode([(param, value) for param, value, _, _ in rows if value is not None], safe=",")
    expected = {param: (label, shown) for param, _, label, shown in rows}
    return pytest.param(f"{path}?{query}", expected, change, id=link_id)


LINKS = [_link(link_id) for link_id in PATHS]


@pytest.fixture
def fresh_server(request) -> Iterator[StreamlitServer]:
    """A server no browser has talked to yet, light unless parametrized with "dark"."""
    server = StreamlitServer(theme=getattr(request, "param", "light")).start()
    try:
        yield server
    finally:
        server.stop()


def _values(page, labels) -> dict:
    return {label: page.evaluate(WIDGET_VALUE_JS, label) for label in labels}


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query, keep_blank_values=True)


def _css_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a CSS string literal: quotes and backslashes escaped


def _change(page, change: Change) -> None:
    """Drive the widget labelled ``change.label`` the way a student would, and wait for the rerun."""
    label = _css_string(change.label)
    group = page.locator(f"[role='radiogroup'][aria-label={label}]")
    box = page.locator(f"input[aria-label={label}], textarea[aria-label={label}]").first
    widget = box.locator(
        "xpath=ancestor::*[@data-testid='stSlider' or @data-testid='stNumberInput' or @data-testid='stSelectbox'"
        " or @data-testid='stTextInput' or @data-testid='stTextArea'][1]"
    )
    kind = "radio" if group.count() else widget.get_attribute("data-testid")
    if kind == "radio":
        since = run_count(page)
        group.get_by_text(change.to, exact=True).click()
        wait_for_run(page, since)
    elif kind == "stSlider":
        nudge_slider(page, widget)
    elif kind == "stNumberInput":
        bump_number(page, widget)
    elif kind == "stSelectbox":
        choose(page, change.label, change.to)
    else:
        fill_text(page, widget, change.to)
    if change.to is not None:
        assert _values(page, [change.label]) == {change.label: change.to}


def _open_link(browser, server: StreamlitServer, link: str, expected: dict, change: Change) -> str:
    """Open ``link`` as the server's first request, check it, change one widget and check the
    URL follows. Returns the app's background colour."""
    watch = Watch()
    context = offline_context(browser, watch)
    try:
        page = context.new_page()
        watch.attach(page)
        page.goto(f"{server.url}/{link}")  # the server's very first request
        page.wait_for_selector("[data-testid='stApp']", state="attached")
        wait_for_run(page, 0)
        page.wait_for_timeout(500)  # a "Page not found" dialog came up right after the first run
        assert page.locator(DIALOG).count() == 0, page.locator(DIALOG).first.inner_text()
        assert "Page not found" not in page.inner_text("body")
        sent = _query(f"{server.url}/{link}")
        assert set(sent) <= set(expected), f"the link sets {sorted(set(sent) - set(expected))}: check their widgets"
        shown = dict(expected.values())
        assert _values(page, shown) == shown
        # Every value the link set is still in the address bar (nothing was reset to its default).
        kept = _query(page.url)
        assert {k: v for k, v in sent.items() if v != [""]} == {k: v for k, v in kept.items() if v != [""]}
        before = kept.get(change.param)
        _change(page, change)
        after = _query(page.url).get(change.param)
        assert after != before, f"changing {change.label!r} did not change ?{change.param}="
        assert after == (None if change.url is None else [change.url]), f"{change.label!r}: ?{change.param}={after}"
        assert not link_problems(page, watch), link_problems(page, watch)
        return page.evaluate(BACKGROUND_JS)
    finally:
        context.close()


@pytest.mark.parametrize(("link", "expected", "change"), LINKS)
def test_a_shared_link_opens_cleanly_on_a_fresh_server(browser, fresh_server, link, expected, change) -> None:
    _open_link(browser, fresh_server, link, expected, change)


@pytest.mark.parametrize("fresh_server", ["dark"], indirect=True)
def test_a_shared_link_opens_cleanly_in_the_dark_theme(browser, fresh_server) -> None:
    """The Step by step link again, as the first request to a fresh server started with the
    dark theme: same widgets, same URL, and the app really is dark."""
    link, expected, change = next(p.values for p in LINKS if p.id == "step-by-step")
    background = _open_link(browser, fresh_server, link, expected, change)
    red, green, blue = (int(c) for c in background[background.index("(") + 1 : -1].split(",")[:3])
    assert max(red, green, blue) < 64, f"the dark theme's background is {background}"


def test_values_out_of_range_are_clamped_not_reset(browser, server) -> None:
    """A hand-edited link: numbers beyond a widget's range are moved to its nearest end, a
    multiplier between the choices to the nearest choice, and unreadable values give the
    default (left out of the URL); the address bar then holds what the widgets show."""
    watch = Watch()
    context = offline_context(browser, watch)
    try:
        page = context.new_page()
        watch.attach(page)
        page.goto(f"{server.url}/softmax-lab?T=999&dk_seed=-5&m=42&delta=2.3&raise=zz&seed=nan")
        wait_for_run(page, 0)
        shown = {
            "Keys per row T (entropy experiment)": "64",
            "Seed for q and k": "0",
            "Multiplier m": "50.0",
            "Raise it by": "2.50",
            "Score to raise": "0:The",
            "Seed for the scores": "0",
        }
        assert _values(page, shown) == shown
        assert _query(page.url) == {"T": ["64"], "m": ["50"], "delta": ["2.5"]}, page.url
        assert not link_problems(page, watch), link_problems(page, watch)
    finally:
        context.close()


def test_defaults_stay_out_of_the_url(browser, server) -> None:
    """Opened with no parameters, a page writes none: every widget is at its default."""
    context = browser.new_context()
    context.add_init_script(RUN_COUNTER_JS)
    try:
        page = context.new_page()
        assert len(PAGES) == 11
        for _title, path, _name in PAGES:
            page.goto(f"{server.url}/{path}")
            wait_for_run(page, 0)
            assert urlparse(page.url).query == "", f"{path or 'home'}: {page.url}"
    finally:
        context.close()
