"""A student's path through the app, in a real Chromium at 1280x800 (issue #24):

- the Real model page's first screen shows one head (the one models.it_head finds) with "it"
  picked, and its chart starts on that screen;
- a sentence typed on Home is the one Step by step opens on, after the "Start here" link;
- switching on the causal mask names, near the top, the steps it changed, with links that
  scroll to them; the worked cell's bar chart highlights key j and has no zero line on x;
- every page links to the next in the teaching order, and the link works;
- the theme switch (Streamlit's menu) turns the app dark, survives a page change and a reload
  on the other page, passes axe-core in its dark theme, and turns it light again.

Screenshots go to tests/artifacts/path-*.png."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.support.browser.a11y import axe_violations, report
from tests.support.browser.checks import Watch, link_problems, screenshot
from tests.support.browser.session import AppSession, offline_context
from tests.support.browser.teaching import eventually
from tests.support.browser.waits import PAGES, fill_text, go_to, open_app, run_count, text_inputs, wait_for_run

pytestmark = pytest.mark.browser

SENTENCE = "My dog chased the ball into the garden"
BACKGROUND_JS = "() => getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor"
# The head view's lines, as the browser holds them: each trace's head (layer.meta) and its
# (query, key) pairs; and where the chart starts on the screen.
HEAD_VIEW_JS = """
() => {
  const plot = Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot"))
    .find(p => (p._fullLayout.title.text || '').startsWith('Head view'));
  if (!plot) return null;
  const lines = [];
  for (const t of plot._fullData) {  // decoded: the big charts send their lines as float32
    if (!t.meta || t.meta.head === undefined) continue;
    const y = Array.from(t.y || []);
    for (let n = 0; n + 2 < y.length; n += 3) lines.push([t.meta.head, y[n], y[n + 1]]);
  }
  return {title: plot._fullLayout.title.text, top: plot.getBoundingClientRect().top, lines};
}
"""
WIDGET_JS = """
(label) => {
  const input = Array.from(document.querySelectorAll('input[aria-label]'))
    .find(e => e.getAttribute('aria-label') === label);
  if (!input) return null;
  const multi = input.closest("[data-testid='stMultiSelect']");
  if (multi) return Array.from(multi.querySelectorAll("[data-tag]"), c => c.getAttribute('aria-label'));
  return input.value;
}
"""
NOTE = "[data-testid='stMain'] [data-testid='stAlertContentInfo'] [data-testid='stMarkdownContainer']"


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(c) for c in css[css.index("(") + 1 : css.index(")")].split(",")[:3])


def _dark(page) -> bool:
    return sum(_rgb(page.evaluate(BACKGROUND_JS))) / 3 < 100


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


@pytest.fixture
def tab(browser, server):
    """One offline tab on the light server, closed after the test (no request left localhost)."""
    session = AppSession(browser, server)
    yield session
    assert not session.close(), "a page tried to reach the internet"


# --------------------------------------------------------------------------- Real model


def test_the_real_model_page_opens_on_one_head_with_it_picked(tab) -> None:
    from attn_core import models

    loaded = models.load_model(device="cpu")
    layer, head = models.it_head(loaded)
    tokens = models.extract_attentions(loaded, models.IT_SENTENCES["tired"]).tokens
    it = tokens.index("it")
    page = tab.page
    tab.visit("Real model")
    assert page.locator("textarea[aria-label='Sentence A']").input_value() == models.IT_SENTENCES["tired"]
    assert page.evaluate(WIDGET_JS, "Heads") == [f"head {head + 1}"]  # heads and layers counted from 1
    assert page.evaluate(WIDGET_JS, "Focus on a query token") == f"{it}: it"
    view = page.evaluate(HEAD_VIEW_JS)
    assert view["title"].startswith(f"Head view, layer {layer + 1}")
    assert view["lines"] and {h for h, _, _ in view["lines"]} == {head}
    assert {q for _, q, _ in view["lines"]} == {it}, "only the lines from “it” are drawn"
    assert view["top"] < 800, f"the chart starts {view['top']:.0f} px down, below the first screen"
    screenshot(page, "path-real-model-first-screen")
    all_heads = page.get_by_role("button", name="All 12 heads")
    since = run_count(page)
    all_heads.click()
    wait_for_run(page, since)
    assert len(page.evaluate(WIDGET_JS, "Heads")) == 12
    assert not tab.problems()


# --------------------------------------------------------------------------- one sentence


def test_a_sentence_typed_on_home_appears_on_step_by_step(tab) -> None:
    page = tab.page
    fill_text(page, text_inputs(page).first, SENTENCE)
    link = page.locator("[data-testid='stMain'] [data-testid='stPageLink'] a").filter(has_text="Step by step")
    since = run_count(page)
    link.first.click()
    wait_for_run(page, since)
    assert urlparse(page.url).path.strip("/") == "step-by-step"
    assert page.locator("input[aria-label='Sentence']").input_value() == SENTENCE
    assert _query(page).get("text") == [SENTENCE]
    paragraphs = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer'] p")
    tokens = paragraphs.filter(has_text=re.compile("^0\u00a0")).first.inner_text()  # ui.markup.token_list
    assert "1\u00a0dog" in tokens and "7\u00a0garden" in tokens
    assert not tab.problems()


# --------------------------------------------------------------------------- change notes


def test_a_mask_toggle_names_the_steps_it_changed(tab) -> None:
    page = tab.page
    tab.visit("Step by step")
    assert page.locator(NOTE).count() == 0
    switch = page.locator("[data-testid='stSidebar'] [data-testid='stCheckbox']").filter(
        has_text="Causal mask (no looking ahead)"
    )
    since = run_count(page)
    switch.locator("label").first.click()
    wait_for_run(page, since)
    note = page.locator(NOTE)
    assert note.count() == 1
    assert note.inner_text().strip() == (
        "Causal mask (no looking ahead) on. Changed: Step 7 · Masked scores, Step 8 · Attention weights "
        "(softmax), Step 9 · The output Z and One cell, worked through."
    )
    hrefs = [a.get_attribute("href") for a in note.locator("a").all()]
    assert [h.split("#")[1] for h in hrefs] == ["sbs-masked", "sbs-weights", "sbs-output", "sbs-cell"]  # by name
    screenshot(page, "path-change-note")
    note.locator("a").first.click()
    page.wait_for_timeout(800)
    top = page.locator("#sbs-masked").evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < 300, f"the link left Step 7's heading at {top:.0f} px"
    # The worked cell's bars: key j = 1 highlighted, and no zero line drawn down the first bar.
    bars = page.evaluate(
        """() => {
      const plot = Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot"))
        .find(p => /^Row [0-9]+ of A, key [0-9]+ highlighted/.test(p._fullLayout.title.text || ''));
      return {zeroline: plot._fullLayout.xaxis.zeroline, xzl: plot.querySelectorAll('.xzl').length,
              colours: Array.from(plot.querySelectorAll('.trace.bars .point path'), p => p.style.fill)};
    }"""
    )
    assert bars["zeroline"] is False and bars["xzl"] == 0
    assert len(set(bars["colours"])) == 2 and bars["colours"].count(bars["colours"][1]) == 1
    assert not tab.problems()


# --------------------------------------------------------------------------- a way forward


def test_every_page_links_to_the_next(tab) -> None:
    page = tab.page
    lessons = [p for p in PAGES if p[2] != "class"]  # the Class page is a tool, not on the path
    for (title, _, name), (_, next_path, _) in zip(lessons, [*lessons[1:], lessons[0]], strict=True):
        tab.visit(title)
        links = page.locator("[data-testid='stMain'] [data-testid='stPageLink'] a")
        link = links.first if title == "Home" else links.last  # Home: "Start here" begins the path

        def points_at_next(link=link, next_path=next_path) -> bool:
            return urlparse(link.get_attribute("href") or "").path.strip("/") == next_path

        # The page's elements replace the last page's as its run draws them (a fresh-clone run read
        # Home's last link, to Class, on Step by step): wait, at most a run's time, for the next lesson.
        eventually(page, points_at_next, f"{title}'s last link to point at {next_path}")
        if title != "Home":
            assert page.get_by_text("What this page showed", exact=True).count() == 1, title
        if name in ("multi-head", "articles-checked"):  # follow two of them, the last one back home
            since = run_count(page)
            link.click()
            wait_for_run(page, since)
            assert urlparse(page.url).path.strip("/") == next_path
    assert not tab.problems()


# --------------------------------------------------------------------------- the theme


def _choose_theme(page, name: str) -> None:
    """Pick a theme in Streamlit's own menu (⋮, then System, Light or Dark), as a student does,
    and wait until the page shows it."""
    page.get_by_role("button", name="Main menu").click()
    page.get_by_role("menuitemradio", name=name).click()
    want_dark = name == "Dark"
    eventually(page, lambda: _dark(page) == want_dark, f"the app to turn {name.lower()}")
    page.keyboard.press("Escape")  # the menu stays open after a pick
    page.get_by_role("menu").wait_for(state="hidden")


def _chart_title_fill(page) -> str:
    return page.evaluate(
        "() => getComputedStyle(document.querySelector(\"[data-testid='stMain'] .main-svg .gtitle\")).fill"
    )


def test_the_theme_switch_changes_the_theme_and_survives_a_page_change(browser, server) -> None:
    """Streamlit's menu is the switch (ui/theme.py): its choice turns the app and its charts dark,
    lasts through a page change and a reload on the other page (the compat module copies it to
    every page), and turns the app light again. Links carry no theme."""
    watch = Watch()
    context = offline_context(browser, watch, color_scheme="light")
    try:
        page = context.new_page()
        watch.attach(page)
        open_app(page, server.url, "step-by-step")
        assert not _dark(page)
        _choose_theme(page, "Dark")
        eventually(page, lambda: sum(_rgb(_chart_title_fill(page))) / 3 > 150, "chart text in the dark theme's colour")
        assert "theme" not in _query(page)
        screenshot(page, "path-theme-dark-step-by-step")
        go_to(page, "Multi-head")
        assert _dark(page)
        found = axe_violations(page)
        assert not found, "axe-core on Multi-head after switching to dark:\n" + report(found)
        page.reload()
        page.wait_for_selector("[data-testid='stApp']", state="attached")
        wait_for_run(page, 0)
        assert _dark(page), "a reload on another page kept the theme"
        _choose_theme(page, "Light")
        assert not _dark(page) and "theme" not in _query(page)
        assert not link_problems(page, watch), link_problems(page, watch)
    finally:
        context.close()
    assert not watch.blocked, json.dumps(watch.blocked)
