"""Each changed chart is drawn once per change, and chart text follows the theme.

Streamlit's own chart theme hands Plotly a re-themed copy of every figure right after it is
mounted, and Plotly then draws the whole chart a second time (see
ui.charts.browser_figure). The pages send charts that Plotly can compare instead.
Plotly draws every heatmap trace into a canvas and reads it back with toDataURL, once per
draw; counting those calls during one sentence change counts the draws.
"""

from __future__ import annotations

import pytest

from tests.support.browser.session import AppSession
from tests.support.browser.waits import fill_text, text_inputs, wait_for_run

pytestmark = pytest.mark.browser

COUNT_DRAWS_JS = """
() => {
  window.__draws = 0;
  const original = HTMLCanvasElement.prototype.toDataURL;
  HTMLCanvasElement.prototype.toDataURL = function (...args) {
    window.__draws += 1;
    return original.apply(this, args);
  };
}
"""
# True once no heatmap has been drawn for 700 ms. On a busy machine Streamlit can mount a
# chart before it has measured the chart's container: Plotly draws it hidden at its own
# width, and draws it again when Streamlit passes the measured width. That happens once,
# when a chart first appears, so the count starts only after the page has settled.
DRAWS_SETTLED_JS = """
() => {
  const now = performance.now();
  if (window.__seen !== window.__draws) {
    window.__seen = window.__draws;
    window.__seenAt = now;
    return false;
  }
  return now - window.__seenAt > 700;
}
"""
# One <image> per heatmap trace, in the main area's charts.
HEATMAP_IMAGES_JS = "() => document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot .hm image\").length"
TEXT_FILL_JS = """
() => {
  const tick = document.querySelector("[data-testid='stMain'] .js-plotly-plot .ytick text");
  const page = getComputedStyle(document.querySelector("[data-testid='stMain']")).color;
  return [getComputedStyle(tick).fill, page];
}
"""


def _session(browser, server) -> AppSession:
    session = AppSession(browser, server)
    session.page.evaluate(COUNT_DRAWS_JS)
    session.visit("Step by step")
    session.page.wait_for_function(DRAWS_SETTLED_JS, polling=100, timeout=30_000)
    return session


def _change_sentence(session: AppSession, text: str) -> int:
    """Heatmap draws during one sentence change."""
    page = session.page
    page.evaluate("() => { window.__draws = 0; }")
    box = text_inputs(page).filter(has=page.get_by_text("Sentence", exact=True)).first
    fill_text(page, box, text)
    page.wait_for_timeout(1000)  # a second draw would come right after the first
    return int(page.evaluate("() => window.__draws"))


def test_a_sentence_change_draws_each_heatmap_once(browser, server):
    session = _session(browser, server)
    try:
        images = int(session.page.evaluate(HEATMAP_IMAGES_JS))
        assert images >= 9, f"expected the step page's heatmaps, found {images} heatmap images"
        draws = _change_sentence(session, "Seven small words are typed in here")
        # Every heatmap but W_q/W_k/W_v (3 traces, unchanged by the sentence) is drawn again, once.
        assert 0 < draws <= images - 3, f"{draws} heatmap draws for {images - 3} changed heatmap traces"
        assert not session.problems()
    finally:
        session.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_chart_text_takes_the_page_text_colour(browser, theme, request):
    server = request.getfixturevalue("server" if theme == "light" else "server_dark")
    session = AppSession(browser, server)
    try:
        session.visit("Step by step")
        wait_for_run(session.page, 0)
        fill, page_colour = session.page.evaluate(TEXT_FILL_JS)
        assert fill == page_colour, f"tick labels are {fill}, the page's text is {page_colour}"
    finally:
        session.close()
