"""Every page, in a real Chromium, light and dark: reached through the sidebar, its inputs
changed, its charts redrawn with new data, no exception, no JS error, no text under 12 px.
Screenshots go to tests/artifacts/<page>-light.png / <page>-dark.png (and *-full.png)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.support.browser.checks import MIN_FONT_PX, chart_data, nan_cells, screenshot, small_text, svg_nan_text
from tests.support.browser.session import AppSession
from tests.support.browser.waits import (
    PAGES,
    bump_number,
    fill_text,
    find_by_label,
    nav_titles,
    nudge_slider,
    number_inputs,
    sliders,
    text_inputs,
)

pytestmark = pytest.mark.browser

IDS = [name for _, _, name in PAGES]
# A sentence unlike every preset, with a repeated word (its rows must stay separate).
SENTENCE = "A small dog chased the other dog home"
# Typed instead when a page already shows SENTENCE (the sentence typed on one page carries to
# the next): other words, since some pages read text in lower case.
OTHER = "A big cat followed the other cat out"
DK_LABELS = ("d_k", "dₖ", "d k")

_small_text: dict[str, list[dict]] = {}  # page name -> offenders, measured by test_page_light


@pytest.fixture(scope="module")
def light(browser, server):
    session = AppSession(browser, server)
    yield session
    assert not session.close(), "a page tried to reach the internet"


@pytest.fixture(scope="module")
def dark(browser, server_dark):
    session = AppSession(browser, server_dark)
    yield session
    assert not session.close(), "a page tried to reach the internet"


def _dk_widget(page):
    for widgets in (number_inputs(page), sliders(page)):
        for needle in DK_LABELS:
            w = find_by_label(widgets, needle)
            if w is not None:
                return w
    return None


def _change_inputs(page) -> list[str]:
    """Change the sentence (first text box) and d_k where the page has them; a page with
    neither gets its first number input or slider moved. Returns what was changed."""
    changed = []
    boxes = text_inputs(page)
    if boxes.count():
        box = boxes.first
        text = SENTENCE if box.locator("input, textarea").first.input_value() != SENTENCE else OTHER
        fill_text(page, box, text)
        changed.append("sentence")
    dk = _dk_widget(page)
    if dk is None and not changed:
        dk = number_inputs(page).first if number_inputs(page).count() else None
        dk = dk or (sliders(page).first if sliders(page).count() else None)
    if dk is not None:
        is_slider = dk.get_attribute("data-testid") == "stSlider"
        nudge_slider(page, dk) if is_slider else bump_number(page, dk)
        changed.append("d_k" if _dk_widget(page) is not None else "first numeric input")
    return changed


def test_navigation_lists_every_page(light) -> None:
    assert nav_titles(light.page) == [title for title, _, _ in PAGES]


@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_page_light(light, title: str, path: str, name: str) -> None:
    page = light.page
    light.visit(title)
    assert urlparse(page.url).path.strip("/") == path
    assert not light.problems(), "after opening the page"

    before = chart_data(page)
    changed = _change_inputs(page)
    after = chart_data(page)
    assert not light.problems(), f"after changing {changed}"
    if before and changed:
        assert after != before, f"changing {changed} left every chart's data as it was"
    assert not nan_cells(after), f"NaN/inf in chart data: {nan_cells(after)[:10]}"
    assert not svg_nan_text(page), f"NaN drawn on a chart: {svg_nan_text(page)[:10]}"

    screenshot(page, f"{name}-light")
    _small_text[name] = small_text(page)


@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_page_dark(dark, title: str, path: str, name: str) -> None:
    page = dark.page
    dark.visit(title)
    assert urlparse(page.url).path.strip("/") == path
    background = page.evaluate(
        "() => getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor"
    )
    rgb = [int(c) for c in background[background.index("(") + 1 : background.index(")")].split(",")[:3]]
    assert sum(rgb) / 3 < 100, f"--theme.base dark did not give a dark background: {background}"
    assert not dark.problems()
    charts = chart_data(page)
    assert not nan_cells(charts), f"NaN/inf in chart data: {nan_cells(charts)[:10]}"
    screenshot(page, f"{name}-dark")


@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_no_text_under_12px(light, title: str, path: str, name: str) -> None:
    """Projector rule: no visible text in the main area (HTML, KaTeX or chart SVG) under 12 px
    at 1280x800, in the state test_page_light left the page in."""
    if name not in _small_text:
        light.visit(title)
        _small_text[name] = small_text(light.page)
    offenders = _small_text[name]
    assert not offenders, f"{title}: text under {MIN_FONT_PX:g} px: " + "; ".join(
        f"{o['text']!r} {o['px']} px in {o['where']}" for o in offenders
    )
