"""Hostile text in every text box of the pages that take text, in a real Chromium: no
dialog, no markup made from the input, no exception, no NaN on a chart."""

from __future__ import annotations

import pytest

from tests.support.browser.checks import chart_data, injected_elements, nan_cells, svg_nan_text
from tests.support.browser.session import AppSession
from tests.support.browser.waits import PAGES, fill_text, text_inputs, widget_label
from tests.support.hostile_corpus import HOSTILE

pytestmark = pytest.mark.browser

TEXT_PAGES = ["Step by step", "Cross-attention", "Real model"]
assert set(TEXT_PAGES) <= {title for title, _, _ in PAGES}
NORMAL = "The cat sat on the mat."
CASES = [(title, name) for title in TEXT_PAGES for name in HOSTILE]


def _case_id(case: tuple[str, str]) -> str:
    title, name = case
    return f"{title.lower().replace(' ', '-')}-{name}"


@pytest.fixture(scope="module")
def sessions(browser, server):
    """One tab per page, reused for every input on that page."""
    opened: dict[str, AppSession] = {}

    def get(title: str) -> AppSession:
        if title not in opened:
            session = AppSession(browser, server)
            session.visit(title)
            session.n_boxes = text_inputs(session.page).count()  # with the page's own defaults
            opened[title] = session
        return opened[title]

    yield get
    blocked = [url for s in opened.values() for url in s.close()]
    assert not blocked, f"a page tried to reach the internet: {blocked}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_hostile_text(sessions, case: tuple[str, str]) -> None:
    title, name = case
    text = HOSTILE[name]
    session = sessions(title)
    page = session.page
    assert session.n_boxes, f"{title} shows no text input"
    session.watch.clear()
    for b in range(session.n_boxes):
        if text_inputs(page).count() <= b:  # an earlier box's hostile text stopped the page before this box
            for earlier in range(b):
                fill_text(page, text_inputs(page).nth(earlier), NORMAL)
        box = text_inputs(page).nth(b)
        where = f"{title}, box {widget_label(box)!r}, input {text[:40]!r}"
        fill_text(page, box, text)
        assert not session.watch.dialogs, f"{where}: a dialog fired: {session.watch.dialogs}"
        assert not injected_elements(page), f"{where}: the input became markup: {injected_elements(page)}"
        assert not session.problems(), f"{where}: {session.problems()}"
        charts = chart_data(page)
        assert not nan_cells(charts), f"{where}: NaN/inf in chart data: {nan_cells(charts)[:10]}"
        assert not svg_nan_text(page), f"{where}: NaN drawn on a chart: {svg_nan_text(page)[:10]}"
