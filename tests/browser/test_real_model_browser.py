"""The real-model page in a real Chromium: every view (head, model, neuron, summaries,
reproduce) opens without an exception and draws its charts, light and dark; screenshots
go to tests/artifacts/real-model-<view>-light.png / -dark.png. In presenter mode on a
1280×720 projector, Back and Next walk through the views and the chart is on the first screen
(screenshots real-model-present-<view>-<theme>.png)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.support.browser.checks import chart_data, link_problems, nan_cells, screenshot
from tests.support.browser.session import AppSession
from tests.support.browser.teaching import (
    MAIN,
    PRESENT_PX,
    PROJECTOR,
    chart_titles,
    click,
    main_button,
    paragraph_px,
    progress_lines,
)
from tests.support.browser.waits import open_app, run_count, wait_for_run

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


def _first_chart_top(page) -> float:
    return page.locator(f"{MAIN} [data-testid='stPlotlyChart']").first.bounding_box()["y"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_presenter_mode_walks_through_the_views(page, watch, request, theme: str) -> None:
    """?present=1 on a projector: one view at a time with Back, Next and "View k of 5", the
    view in the URL, body text of at least 22 px, and the view's chart starting on the first
    screen (the model, the examples and Predict first wait in the collapsed sidebar)."""
    server = request.getfixturevalue("server" if theme == "light" else "server_dark")
    page.set_viewport_size(PROJECTOR)
    open_app(page, server.url, "real-model?present=1")
    assert progress_lines(page) == ["View 1 of 5 · Head view"]
    assert page.locator(f"{MAIN} [data-testid='stRadio']").filter(has_text="Model view").count() == 0
    from attn_core import models

    layer, _ = models.it_head(models.load_model(device="cpu"))  # the page opens on the head for "it"
    assert chart_titles(page)[0].startswith(f"Head view, layer {layer + 1}")  # counted from 1
    assert _first_chart_top(page) < PROJECTOR["height"] * 0.75, "the head view starts below the first screen"
    assert main_button(page, "← Back").is_disabled()
    screenshot(page, f"real-model-present-head-{theme}")

    model = "View 2 of 5 · Model view"
    click(page, main_button(page, "Next →"), lambda: progress_lines(page) == [model], model)
    assert parse_qs(urlparse(page.url).query) == {"present": ["1"], "view": ["model"]}
    titles = chart_titles(page)
    assert titles[0].startswith("Model view") and not [t for t in titles if t.startswith("Head view")], titles
    assert _first_chart_top(page) < PROJECTOR["height"] * 0.75
    assert paragraph_px(page, "Every small square") >= PRESENT_PX
    screenshot(page, f"real-model-present-model-{theme}")

    open_app(page, server.url, "real-model?present=1&view=neuron&query=3")  # a link straight to one view
    assert progress_lines(page) == ["View 3 of 5 · Neuron view"]
    assert any(t.startswith("softmax(q·k / √32): the attention row") for t in chart_titles(page)), chart_titles(page)
    screenshot(page, f"real-model-present-neuron-{theme}")
    click(page, main_button(page, "← Back"), lambda: progress_lines(page) == [model], model)
    assert parse_qs(urlparse(page.url).query)["view"] == ["model"]
    assert not link_problems(page, watch, server)
