"""A browser tab on the app that may reach localhost only: offline contexts (sync and
async) that abort and record every other request, and AppSession, one tab kept open across
several tests with its Watch."""

from __future__ import annotations

from urllib.parse import urlparse

from tests.support.browser.checks import Watch, problems
from tests.support.browser.server import VIEWPORT, StreamlitServer
from tests.support.browser.waits import RUN_COUNTER_JS, RUN_TIMEOUT_MS, go_to, open_app

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.hostname in LOCAL_HOSTS


def offline_context(browser, watch: Watch, **kwargs):
    """A 1280x800 context that aborts (and records) every request that is not to localhost, and
    records every WebSocket that is not."""
    context = browser.new_context(viewport=VIEWPORT, **kwargs)
    context.set_default_timeout(RUN_TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER_JS)

    def route(r) -> None:
        if is_local(r.request.url):
            r.fallback()
        else:
            watch.blocked.append(r.request.url)
            r.abort()

    def watch_sockets(page) -> None:
        page.on("websocket", lambda ws: None if is_local(ws.url) else watch.blocked.append(ws.url))

    context.route("**/*", route)
    # WebSockets are recorded, not routed: routing any of them makes Playwright pass every frame
    # of the app's own WebSocket through its script in the page, which cost Chromium's renderer
    # about a fifth of its CPU in the presenter walk. A recorded one fails the test.
    context.on("page", watch_sockets)
    return context


async def async_offline_context(browser, init_js: str, timeout_ms: int, blocked: list[str] | None = None):
    """The async API's twin of ``offline_context``: a 1280x800 context running ``init_js``
    that aborts every request not to localhost (recorded in ``blocked`` when given)."""
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(timeout_ms)
    await context.add_init_script(init_js)

    async def route(r) -> None:
        if is_local(r.request.url):
            await r.fallback()
        else:
            if blocked is not None:
                blocked.append(r.request.url)
            await r.abort()

    await context.route("**/*", route)
    return context


class AppSession:
    """One offline browser tab on the app, kept open across several tests (as a student
    would), with its Watch."""

    def __init__(self, browser, server: StreamlitServer) -> None:
        self.watch = Watch()
        self.server = server
        self.context = offline_context(browser, self.watch)
        self.page = self.context.new_page()
        self.watch.attach(self.page)
        open_app(self.page, server.url)

    def visit(self, title: str) -> None:
        """Forget earlier errors, then open a page through the sidebar."""
        self.watch.clear()
        go_to(self.page, title)

    def problems(self) -> list[str]:
        return problems(self.page, self.watch, self.server)

    def close(self) -> list[str]:
        """Close the tab; returns the non-local requests it tried."""
        self.context.close()
        return self.watch.blocked
