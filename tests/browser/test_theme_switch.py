"""The theme switch in a real Chromium: Streamlit's own menu (⋮, then System, Light or Dark) is
the switch (ui/theme.py). Its choice turns the app and its charts dark, lasts through a page change
and a reload on the other page (the compat module copies it to every page), passes axe-core in the
dark theme, and turns the app light again. Links carry no theme. Screenshot:
tests/artifacts/path-theme-dark-step-by-step.png."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

from tests.support.browser.a11y import axe_violations, report
from tests.support.browser.checks import Watch, link_problems, screenshot
from tests.support.browser.session import offline_context
from tests.support.browser.sweep import is_dark, rgb
from tests.support.browser.teaching import eventually
from tests.support.browser.waits import go_to, open_app, wait_for_run

pytestmark = pytest.mark.browser


def _choose_theme(page, name: str) -> None:
    """Pick a theme in Streamlit's own menu, as a student does, and wait until the page shows it."""
    page.get_by_role("button", name="Main menu").click()
    page.get_by_role("menuitemradio", name=name).click()
    want_dark = name == "Dark"
    eventually(page, lambda: is_dark(page) == want_dark, f"the app to turn {name.lower()}")
    page.keyboard.press("Escape")  # the menu stays open after a pick
    page.get_by_role("menu").wait_for(state="hidden")


def _chart_title_fill(page) -> str:
    return page.evaluate(
        "() => getComputedStyle(document.querySelector(\"[data-testid='stMain'] .main-svg .gtitle\")).fill"
    )


def test_the_theme_switch_changes_the_theme_and_survives_a_page_change(browser, server) -> None:
    watch = Watch()
    context = offline_context(browser, watch, color_scheme="light")
    try:
        page = context.new_page()
        watch.attach(page)
        open_app(page, server.url, "step-by-step")
        assert not is_dark(page)
        _choose_theme(page, "Dark")
        eventually(page, lambda: sum(rgb(_chart_title_fill(page))) / 3 > 150, "chart text in the dark theme's colour")
        assert "theme" not in parse_qs(urlparse(page.url).query)
        screenshot(page, "path-theme-dark-step-by-step")
        go_to(page, "Multi-head")
        assert is_dark(page)
        found = axe_violations(page)
        assert not found, "axe-core on Multi-head after switching to dark:\n" + report(found)
        page.reload()
        page.wait_for_selector("[data-testid='stApp']", state="attached")
        wait_for_run(page, 0)
        assert is_dark(page), "a reload on another page kept the theme"
        _choose_theme(page, "Light")
        assert not is_dark(page) and "theme" not in parse_qs(urlparse(page.url).query)
        assert not link_problems(page, watch), link_problems(page, watch)
    finally:
        context.close()
    assert not watch.blocked, json.dumps(watch.blocked)
