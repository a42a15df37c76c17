"""The real-model page in a real Chromium: every view (head, model, neuron, summaries,
reproduce) opens without an exception and draws its charts, light and dark; screenshots
go to tests/artifacts/real-model-<view>-light.png / -dark.png."""

from __future__ import annotations

import re

import pytest

from tests.browser.checks import chart_data, nan_cells, screenshot
from tests.browser.session import AppSession
from tests.browser.waits import run_count, wait_for_run

pytestmark = pytest.mark.browser

VIEWS = ["Head view", "Model view", "Neuron view", "Summaries", "Reproduce a head"]


def _slug(view: str) -> str:
    return re.sub(r"[^a-z]+", "-", view.lower()).strip("-")


def _view_radio(page):
    radios = page.locator("[data-testid='stRadio']").filter(
        has=page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(r"^\s*View\s*$"))
    )
    radios.first.wait_for()
    assert radios.count() == 1, "the real-model page shows no single 'View' radio"
    return radios.first


def _show(session: AppSession, view: str) -> None:
    page = session.page
    option = _view_radio(page).get_by_text(view, exact=True)
    assert option.count(), f"no view {view!r} on the real-model page"
    if option.locator("xpath=ancestor::label//input").is_checked():
        return
    since = run_count(page)
    option.click()
    wait_for_run(page, since)


@pytest.fixture(scope="module", params=["light", "dark"])
def real_model(request, browser):
    server = request.getfixturevalue("server" if request.param == "light" else "server_dark")
    session = AppSession(browser, server)
    session.visit("Real model")
    yield request.param, session
    assert not session.close(), "the real-model page tried to reach the internet"


@pytest.mark.parametrize("view", VIEWS)
def test_real_model_view(real_model, view: str) -> None:
    theme, session = real_model
    session.watch.clear()
    _show(session, view)
    page = session.page
    assert not session.problems(), f"{view}: {session.problems()}"
    charts = chart_data(page)
    assert charts, f"{view} draws no chart"
    assert not nan_cells(charts), f"{view}: NaN/inf in chart data: {nan_cells(charts)[:10]}"
    if view == "Reproduce a head":  # attn_core on the model's own weights gives the model's attention
        metric = page.locator("[data-testid='stMetric']").filter(has_text="max |Δ|")
        value = float(metric.locator("[data-testid='stMetricValue']").inner_text().replace("−", "-"))
        assert value < 1e-4, f"attn_core and the model differ by {value}"
    screenshot(page, f"real-model-{_slug(view)}-{theme}")
