"""Issue #23 in Chromium: a chart on a projector's stage is drawn at most twice when the sentence
changes. The screens' measurements (every page at 1280×800 and 390 px, every presenter section
at the projector sizes) run in the browser sweep: tests/browser/test_pages.py (test_page_dark)
and tests/browser/test_presenter.py (test_presenter_light), with tests/support/browser/screens.py.
"""

from __future__ import annotations

import pytest

from tests.support.browser.screens import PHONE, PROJECTORS, settle
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import MAIN, click, switch_on
from tests.support.browser.waits import open_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def tab(browser, server):
    """One tab for the whole module, with its Watch."""
    from tests.support.browser.checks import Watch

    watch = Watch()
    context = offline_context(browser, watch)
    page = context.new_page()
    watch.attach(page)
    yield page, watch
    context.close()
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def test_a_sentence_change_in_presenter_mode_draws_the_chart_at_most_twice(tab, server) -> None:
    """The stage sizes the chart in the browser (height="stretch"). Streamlit hands a newly
    mounted chart to Plotly at the figure's own size before it has measured the stage, then at
    the stage's size: two draws, where a wrapper of Plotly.react used to hand the first call the
    stage's size (gone, issue #31; no public hook sizes that first call). Never more than two
    (a chart drawn again for an axis Plotly rewrote, ui.charts._fix_reversed_rows), and the last
    one fills the chart's box (here on Step by step's step 8 on a projector)."""
    from tests.browser.test_redraw import COUNT_DRAWS_JS, DRAWS_SETTLED_JS
    from tests.support.browser.waits import fill_text, text_inputs

    page, _ = tab
    page.set_viewport_size(PROJECTORS[0])
    open_app(page, server.url, "step-by-step?present=1&step=8")
    page.evaluate(COUNT_DRAWS_JS)
    page.locator("[data-testid='stExpandSidebarButton']").click()  # the sentence waits in the sidebar
    settle(page)  # the chart is drawn again, narrower, beside the open sidebar
    page.wait_for_function(DRAWS_SETTLED_JS, polling=100, timeout=30_000)
    box = text_inputs(page).filter(has=page.get_by_text("Sentence", exact=True)).first
    page.evaluate("() => { window.__draws = 0; }")
    fill_text(page, box, "Seven small words are typed in here")
    page.wait_for_timeout(1000)  # a later draw would come right after the others
    settle(page)  # every chart drawn at its box's size
    assert page.locator(f"{MAIN} .js-plotly-plot").count() == 1
    assert 1 <= int(page.evaluate("() => window.__draws")) <= 2


# Each display formula of the main area: its width and that of the element it is in.
FORMULAS_JS = """() => [...document.querySelectorAll("[data-testid='stMain'] .katex-display")].map((box) => ({
  tex: (box.querySelector('annotation') || box).textContent.slice(0, 40),
  width: box.scrollWidth, room: box.closest("[data-testid='stElementContainer']").clientWidth}))"""


def test_a_formula_that_takes_anothers_place_is_fitted_to_a_phone(tab, server) -> None:
    """One step at a time on a phone: going from step 1 to step 8 puts the softmax's formula
    where step 1's was, in an element React keeps. It is drawn smaller to fit the phone's width,
    as on the whole page, not cut at the screen's edge."""
    page, _ = tab
    page.set_viewport_size(PHONE)
    open_app(page, server.url, "step-by-step")
    expand = page.locator("[data-testid='stExpandSidebarButton']")
    if expand.is_visible():  # the tab keeps the sidebar as the test before left it
        expand.click()
    switch_on(page, "one_step_at_a_time", lambda: page.locator(f"{MAIN} h3").count() == 1)
    (first,) = page.evaluate(FORMULAS_JS)
    assert first["tex"].startswith("T = ")
    step8 = page.locator("[data-testid='stSidebar']").get_by_role("button", name="Step 8 · Attention weights (softmax)")
    click(page, step8, lambda: "A_{ij}" in str(page.evaluate(FORMULAS_JS)))
    page.wait_for_timeout(500)  # the fit runs in the frame after the formula is drawn
    (softmax,) = page.evaluate(FORMULAS_JS)
    assert softmax["tex"].startswith("A_{ij}")
    assert softmax["width"] <= softmax["room"] + 1, softmax
