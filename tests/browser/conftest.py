"""Browser fixtures: one `streamlit run` per theme (light, dark) and one headless Chromium
for the whole session; each test gets its own offline 1280x800 context."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.browser.checks import Watch
from tests.support.browser.server import CHROMIUM, CHROMIUM_ARGS, StreamlitServer
from tests.support.browser.session import offline_context


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"No Chromium at {CHROMIUM}: the browser tests need it and must not be skipped. "
            "Install Debian's package (`apt-get install chromium`, or `make chromium`) or set CHROMIUM=/path.",
            pytrace=False,
        )
    return CHROMIUM


def _server(theme: str) -> Iterator[StreamlitServer]:
    server = StreamlitServer(theme=theme).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def server() -> Iterator[StreamlitServer]:
    """The app in Streamlit's light theme."""
    yield from _server("light")


@pytest.fixture(scope="session")
def server_dark() -> Iterator[StreamlitServer]:
    """The app started with `--theme.base dark`."""
    yield from _server("dark")


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance, chromium_path):
    browser = playwright_instance.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser, watch):
    """A fresh page in an offline context; at the end, no request may have left localhost."""
    context = offline_context(browser, watch)
    page = context.new_page()
    watch.attach(page)
    yield page
    context.close()
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"
