"""Shared links: every page opened from a link as the very first request to a freshly started
server shows no dialog and starts its widgets from the URL; changing a widget writes the
URL back, and a value at its default is left out.

A folder named pages/ used to put Streamlit in its legacy multipage mode until
st.navigation had run once, so such a first visit showed "Page not found"."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.checks import Watch, problems
from tests.browser.server import StreamlitServer
from tests.browser.session import offline_context
from tests.browser.waits import RUN_COUNTER_JS, run_count, wait_for_run

pytestmark = pytest.mark.browser

# The value a widget shows, found by its accessible name (Streamlit puts the label there):
# a text box's text, a switch's state, a slider's shown value, a select box's choice, a
# radio group's chosen option, a multiselect's chosen chips.
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
  return input.value;
}
"""
DIALOG = "[role='dialog'], [data-testid='stDialog']"

# (page path with a link's query, {widget label: value it must show}, (label of a widget to
# change with the keyboard, URL parameter that must then appear or change)).
LINKS = [
    ("?text=a+red+fox+jumps", {"Try a sentence": "a red fox jumps"}, None),
    (
        "step-by-step?text=the+bear+ate&d_k=8&causal=1&seed=5&scale=0",
        {
            "Sentence": "the bear ate",
            "d_k (size of queries and keys)": "8",
            "Causal mask (no looking ahead)": True,
            "Seed (random weights)": "5",
            "Divide the scores by √d_k": False,
            "Add positional encoding": True,
        },
        ("d_model (size of each token vector)", "d_model"),
    ),
    (
        "softmax-lab?m=50&T=12&raise=3&delta=-2.5&dk_seed=2",
        {
            "Multiplier m": "50.0",
            "Keys per row T (entropy experiment)": "12",
            "Raise it by": "-2.50",
            "Seed for q and k": "2",
        },
        ("Keys per row T (entropy experiment)", "T"),
    ),
    (
        "multi-head?text=one+two+three&heads=3&d_model=32&causal=1&seed=7",
        {"Sentence": "one two three", "Heads H": "3", "d_model": "32", "Causal mask": True, "Seed": "7"},
        ("Heads H", "heads"),
    ),
    (
        "cross-attention?source=I+like+tea&target=J%27aime+le+th%C3%A9&swap=1&d_k=8",
        {
            "Source sentence (encoder side)": "I like tea",
            "Target sentence (decoder side)": "J'aime le thé",
            "Swap: queries from the source": True,
            "d_k = d_v": "8",
        },
        ("d_k = d_v", "d_k"),
    ),
    (
        "masks-and-cost?text=a+b+c+d+e&radius=1&dilation=3&seed=4",
        {"Sentence": "a b c d e", "Window radius r": "1", "Dilation": "3", "Seed": "4"},
        ("Window radius r", "radius"),
    ),
    (
        "real-model?a=The+animal+didn%27t+cross+the+street+because+it+was+too+tired.&b=&view=neuron&layer=3"
        "&head=1&query=10",
        {
            "Sentence A": "The animal didn't cross the street because it was too tired.",
            "Sentence B (optional)": "",
            "View": "Neuron view",
            "Layer": "layer 3",
            "Head": "head 1",
            "Query token": "10: it",
        },
        None,
    ),
    (
        "decoder?text=cat+dog+sun+cat+dog+sun&layer=0&head=2&focus=4",
        {
            "Words (from the model's 100-word vocabulary)": "cat dog sun cat dog sun",
            "Layer": "layer 1",
            "Head": "head 2",
            "Focus on a word": "4: dog",
        },
        None,
    ),
    (
        "attention-in-a-transformer?a=one+two+three&d_model=32&heads=8",
        {
            "Sentence A (the encoder's source)": "one two three",
            "d_model (width of every token vector)": "32",
            "H (attention heads)": "8",
        },
        ("H (attention heads)", "heads"),
    ),
    (
        "articles-checked?k_mat=0.3,+0.4,+0.2&seed=3",
        {"k_mat": "0.3, 0.4, 0.2", "Seed for the random vectors of sections 2 to 5": "3"},
        None,
    ),
]


@pytest.fixture
def fresh_server() -> Iterator[StreamlitServer]:
    server = StreamlitServer().start()
    try:
        yield server
    finally:
        server.stop()


def _values(page, labels) -> dict:
    return {label: page.evaluate(WIDGET_VALUE_JS, label) for label in labels}


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query, keep_blank_values=True)


IDS = [link.split("?")[0] or "home" for link, *_ in LINKS]


@pytest.mark.parametrize(("link", "expected", "change"), LINKS, ids=IDS)
def test_a_shared_link_opens_cleanly_on_a_fresh_server(browser, fresh_server, link, expected, change) -> None:
    watch = Watch()
    context = offline_context(browser, watch)
    try:
        page = context.new_page()
        watch.attach(page)
        page.goto(f"{fresh_server.url}/{link}")  # the server's very first request
        page.wait_for_selector("[data-testid='stApp']", state="attached")
        wait_for_run(page, 0)
        page.wait_for_timeout(500)  # a "Page not found" dialog came up right after the first run
        assert page.locator(DIALOG).count() == 0, page.locator(DIALOG).first.inner_text()
        assert "Page not found" not in page.inner_text("body")
        assert _values(page, expected) == expected
        # Every value the link set is still in the address bar (nothing was reset to its default).
        sent, kept = _query(f"{fresh_server.url}/{link}"), _query(page.url)
        assert {k: v for k, v in sent.items() if v != [""]} == {k: v for k, v in kept.items() if v != [""]}
        if change is not None:
            label, param = change
            thumb = page.locator(f"input[aria-label={label!r}]").first
            before = _query(page.url).get(param)
            since = run_count(page)
            thumb.focus()
            thumb.press("ArrowRight")
            wait_for_run(page, since)
            assert _query(page.url).get(param) != before, f"moving {label!r} did not change ?{param}="
        bad = [p for p in problems(page, watch) if "404" not in p]  # a deep link probes /<page>/_stcore/health
        assert not bad, bad
    finally:
        context.close()


def test_defaults_stay_out_of_the_url(browser, server) -> None:
    """Opened with no parameters, a page writes none: every widget is at its default."""
    context = browser.new_context()
    context.add_init_script(RUN_COUNTER_JS)
    try:
        page = context.new_page()
        for path in ("step-by-step", "softmax-lab", "multi-head", "cross-attention", "masks-and-cost"):
            page.goto(f"{server.url}/{path}")
            wait_for_run(page, 0)
            assert urlparse(page.url).query == "", f"{path}: {page.url}"
    finally:
        context.close()
