"""A shared link as the very first request to a freshly started server (started with the dark
theme): no "Page not found" dialog, every widget the link names starts from it, the address keeps
it, a widget changed writes the address back, and the app is dark from its first run.

A folder named pages/ used to put Streamlit in its legacy multipage mode until st.navigation had
run once, so such a first visit showed "Page not found". Every page's link settings are checked
without a browser (tests/app/test_shared_links.py); this is the part only a fresh server and a
real browser show."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest

from tests.app.test_shared_links import LINKS
from tests.support.browser.checks import Watch, link_problems
from tests.support.browser.server import StreamlitServer
from tests.support.browser.session import offline_context
from tests.support.browser.sweep import BACKGROUND_JS, rgb
from tests.support.browser.waits import nudge_slider, wait_for_run

pytestmark = pytest.mark.browser

DIALOG = "[role='dialog'], [data-testid='stDialog']"
# The value a widget shows, found by its accessible name (Streamlit puts the label there):
# a text box's text, a switch's state, a slider's shown value.
WIDGET_VALUE_JS = """
(label) => {
  const input = Array.from(document.querySelectorAll('input[aria-label], textarea[aria-label]'))
    .find(e => e.getAttribute('aria-label') === label);
  if (!input) return null;
  if (input.type === 'checkbox') return input.checked;
  const slider = input.closest("[data-testid='stSlider']");
  if (slider) return Number(slider.querySelector("[data-testid='stSliderThumbValue']").innerText.trim());
  return input.type === 'number' ? Number(input.value) : input.value;
}
"""


@pytest.fixture
def fresh_server() -> Iterator[StreamlitServer]:
    """A server no browser has talked to yet, started with `--theme.base dark`."""
    server = StreamlitServer(theme="dark").start()
    try:
        yield server
    finally:
        server.stop()


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query, keep_blank_values=True)


def test_a_shared_link_opens_cleanly_as_a_fresh_servers_first_request(browser, fresh_server) -> None:
    """Step by step's link of tests/app/test_shared_links.py: its sentence, d_k, causal mask, seed
    and scaling start the widgets; d_model moved one step writes ?d_model=17."""
    link, expected, change = next(p.values for p in LINKS if p.id == "step-by-step")
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
        shown = dict(expected.values())
        assert {label: page.evaluate(WIDGET_VALUE_JS, label) for label in shown} == shown
        sent = _query(f"{fresh_server.url}/{link}")
        assert _query(page.url) == sent, "the address lost a setting of the link"
        red, green, blue = rgb(page.evaluate(BACKGROUND_JS))
        assert max(red, green, blue) < 64, "the app is not dark on its first run"

        slider = page.locator("[data-testid='stSlider']").filter(has=page.locator(f"[aria-label='{change.label}']"))
        nudge_slider(page, slider)
        assert _query(page.url).get(change.param) == [change.url], page.url
        assert not link_problems(page, watch), link_problems(page, watch)
    finally:
        context.close()
    assert not watch.blocked, watch.blocked
