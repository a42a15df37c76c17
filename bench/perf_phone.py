"""phone: what a phone downloads and waits for, served as `make run` serves the app and through
the production recipe (deploy/: Caddy in front of two app servers on one PostgreSQL).

Every page is opened in a fresh Chromium context (an empty cache) with a phone's viewport
(390 x 844); every request that is not to 127.0.0.1 is aborted.

- floor_kb: the bare app (bench/floor_app.py: one Plotly chart), as `streamlit run` serves it:
  the bodies of every HTTP response until its chart is drawn, as received (uncompressed:
  Streamlit sends its bundles so).
- first_load_kb: the same for Step by step (/step-by-step) of `make run`'s app.
  Target: <= floor_kb + 1,000.
- first_load_kb_proxy: Step by step through the proxy, every byte the browser receives
  (HTTP headers and bodies, the WebSocket's frames), counted on the TCP connections
  between the browser and Caddy. Target <= 3,000.
- script_done_s_slow, charts_s_slow: Step by step through the proxy on a Lighthouse-style
  phone: 4x CPU slowdown and "Slow 4G" (150 ms latency, 1.6 Mbit/s down, 750 kbit/s up), both
  through Chromium's DevTools protocol; seconds from the navigation until the first script run
  has finished, and until every chart on the page is drawn. Targets <= 12 and <= 20.
- follow_p95_ms_cpu4x: class mode through the proxy: a teacher at full speed and three phones
  at 4x CPU slowdown that joined on the Class page; the teacher opens Step by step in presenter
  mode and clicks Next (8 times) and Back (4 times); from each click until each phone shows the
  teacher's new progress line ("Step k of 9"), p95 over the phones and moves. Target <= 2,000.
  Each phone notes the moment itself (RECORD_JS: the frame that draws the line), so a phone that
  is busy drawing does not delay the reading of the others, as reading them in turn did.

``details``: the JS and CSS bundles Step by step loads beyond the floor's, with their size (kB);
the same follow on bench/floor_follow_app.py through the proxy, the framework's floor for it
(floor_follow_*: a teacher's Next and Back, followers by class mode's timed fragment, one chart a
step, nothing else);
the floor app's slow load through the proxy (floor_script_done_s_slow, floor_charts_s_slow);
the seconds Slow 4G needs for the proxy's bytes alone (wire_s_slow_4g); Step by step at 4x CPU
without the network's limits; every follow sample; the same follow with the phones at full
speed (follow_*_cpu1x, follow_samples_cpu1x); and the same follow, app and floor, with one phone
at 4x (*_one_phone): the bench machine's cores are shared by the three slowed phones, which all
draw each step at the same moment, where a real phone has a CPU of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from perf_inputs import Unavailable, percentile

from deploy.stack import Stack, free_port
from tests.support.browser.checks import Watch
from tests.support.browser.server import CHROMIUM, CHROMIUM_ARGS, StreamlitServer
from tests.support.browser.session import offline_context
from tests.support.browser.waits import PLOT_DRAWN_JS

HERE = Path(__file__).resolve().parent
FLOOR_APP = HERE / "floor_app.py"
FLOOR_FOLLOW_APP = HERE / "floor_follow_app.py"
PHONE = {"width": 390, "height": 844}
CPU_SLOWDOWN = 4
SLOW_4G = {"latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8}
STEP_PATH = "step-by-step"
LOAD_TIMEOUT_MS = 180_000
FOLLOW_MOVES = ["next"] * 8 + ["back"] * 4
FOLLOW_TIMEOUT_S = 60.0
PHONES = 3

# Done: the first script run has finished (waits.RUN_COUNTER_JS counts them) and the app is idle.
DONE_JS = """
() => {
  const app = document.querySelector("[data-testid='stApp']");
  return (window.__stRuns || 0) > 0 && !!app && app.getAttribute('data-test-script-state') === 'notRunning';
}
"""
# Every chart in the main area is drawn, its text fitted (assets/chart_tools.js), at least one.
CHARTS_JS = """
() => {
  const main = document.querySelector("[data-testid='stMain']");
  if (!main) return false;
  const boxes = main.querySelectorAll("[data-testid='stPlotlyChart']").length;
  const plots = Array.from(main.querySelectorAll('.js-plotly-plot'));
  return boxes > 0 && plots.length >= boxes
    && plots.every(PLOT_DRAWN);
}
""".replace("PLOT_DRAWN", PLOT_DRAWN_JS)
PROGRESS_JS = """
() => Array.from(document.querySelectorAll(
    "[data-testid='stMain'] [data-testid='stMarkdownContainer'] :is(p, h2)"))
  .map(e => e.innerText.trim()).filter(t => /^(Step|Section|View) \\d+ of \\d+/.test(t))
"""
# A phone's own record of what it showed: each time the page changed, in the next frame (just
# before it is painted), the progress lines shown then, with the time (Date.now(), the clock the
# bench reads too). The phone records for itself, so a busy phone does not hold up the reading
# of another, as polling each phone in turn from the bench would.
RECORD_JS = (
    """
() => {
  if (window.__shown) return;
  window.__shown = [];
  const lines = """
    + PROGRESS_JS.strip()
    + """;
  let queued = false, last = '';
  const look = () => {
    queued = false;
    const now = lines().join('\\n');
    if (now !== last) { last = now; window.__shown.push([Date.now(), lines()]); }
  };
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(look); } })
    .observe(document.body, { childList: true, subtree: true, characterData: true });
  look();
}
"""
)


class FloorServer(StreamlitServer):
    """`streamlit run bench/floor_app.py`, started as the tests start the app."""

    def command(self) -> list[str]:
        return [str(FLOOR_APP) if part == "app.py" else part for part in super().command()]


class WireCounter:
    """A TCP relay on a free localhost port in front of ``target_port`` that counts the bytes
    sent to the client: what the browser receives, headers and WebSocket frames included."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.down = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> WireCounter:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _shutdown(self) -> None:
        self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop.stop()

    async def _client(self, reader, writer) -> None:
        with contextlib.suppress(asyncio.CancelledError, OSError):  # cancelled: the counter is shutting down
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            await asyncio.gather(self._pipe(reader, up_writer, False), self._pipe(up_reader, writer, True))

    async def _pipe(self, reader, writer, counted: bool) -> None:
        try:
            while data := await reader.read(65536):
                if counted:
                    self.down += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()


def _context(browser):
    """A fresh offline context (an empty cache; waits.RUN_COUNTER_JS counts its runs). It records
    WebSockets rather than routing them, so no frame of the app's WebSocket passes through
    Playwright's script in the page, a cost no real phone has."""
    return offline_context(browser, Watch())


def _open(browser, url: str, slow: dict | None = None) -> dict:
    """Load ``url`` in a fresh phone context until its charts are drawn; returns the seconds until
    the first run ended and until the charts were drawn, and every response's body size by name."""
    context = _context(browser)
    page = context.new_page()
    page.set_viewport_size(PHONE)
    bodies: dict[str, int] = {}

    def finished(request) -> None:
        with contextlib.suppress(Exception):
            name = request.url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] or "(page)"
            bodies[name] = bodies.get(name, 0) + request.sizes()["responseBodySize"]

    page.on("requestfinished", finished)
    if slow:
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": slow["cpu"]})
        if slow.get("network"):
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {"offline": False, **slow["network"]})
    try:
        t0 = time.perf_counter()
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        page.wait_for_function(DONE_JS, timeout=LOAD_TIMEOUT_MS, polling=100)
        done_s = time.perf_counter() - t0
        page.wait_for_function(CHARTS_JS, timeout=LOAD_TIMEOUT_MS, polling=100)
        charts_s = time.perf_counter() - t0
        page.wait_for_timeout(1500)  # anything the charts still fetch
        return {"done_s": done_s, "charts_s": charts_s, "bodies": dict(bodies)}
    finally:
        context.close()


def _kb(n_bytes: float) -> float:
    return round(n_bytes / 1000.0, 1)


def _bundles(bodies: dict[str, int], floor: dict[str, int]) -> dict[str, float]:
    """The JS and CSS files a load fetched beyond the floor's, largest first (kB)."""
    extra = {k: v for k, v in bodies.items() if k.endswith((".js", ".css")) and k not in floor}
    return {k: _kb(v) for k, v in sorted(extra.items(), key=lambda kv: -kv[1])}


def _phones(browser, url: str, path: str, slowdown: float, count: int = PHONES) -> list:
    """``count`` fresh phone contexts at ``slowdown`` times less CPU (1: full speed), each with a
    page open at ``url``/``path``: [(context, page)]."""
    from tests.support.browser.waits import open_app

    phones = []
    for _ in range(count):
        context = _context(browser)
        page = context.new_page()
        page.set_viewport_size(PHONE)
        if slowdown > 1:
            context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
        open_app(page, url, path)
        phones.append((context, page))
    return phones


def _shown(page, line: str, since_ms: float | None = None) -> float | None:
    """When ``page`` first showed ``line`` at or after ``since_ms`` (epoch ms; None: ever)."""
    page.evaluate(RECORD_JS)  # again after a reload (none is expected): it records from then on
    for at, lines in page.evaluate("() => window.__shown"):
        if line in lines and (since_ms is None or at >= since_ms):
            return at
    return None


def _moves(teacher, phones: list) -> dict:
    """The teacher's FOLLOW_MOVES from the progress line it shows now, each followed until every
    phone showed the new line: the p95, p50 and max (ms) and every sample. Closes the phones."""
    from tests.support.browser.teaching import main_button, progress_lines
    from tests.support.browser.waits import run_count, wait_for_run

    first = progress_lines(teacher)[0]
    for _, page in phones:
        _wait(lambda page=page: _shown(page, first) is not None, f"the phones to show {first!r}")
    samples: list[float] = []
    step = int(first.split()[1])
    for move in FOLLOW_MOVES:
        step += 1 if move == "next" else -1
        since = run_count(teacher)
        button = main_button(teacher, "Next →" if move == "next" else "← Back")
        clicked_ms = time.time() * 1000.0
        button.click()
        heading = f"Step {step} of"
        _wait(lambda h=heading: (lines := progress_lines(teacher)) and lines[0].startswith(h), f"step {step}")
        line = progress_lines(teacher)[0]
        for _, page in phones:
            _wait(lambda p=page, s=line, t=clicked_ms: _shown(p, s, t) is not None, f"a phone to show step {step}")
            samples.append(_shown(page, line, clicked_ms) - clicked_ms)
        wait_for_run(teacher, since)
        time.sleep(0.5)
    for context, _ in phones:
        context.close()
    return {
        "p95": round(percentile(samples, 95), 0),
        "p50": round(percentile(samples, 50), 0),
        "max": round(max(samples), 0),
        "samples": [round(s) for s in samples],
    }


def _follow(browser, stack: Stack, slowdown: float = CPU_SLOWDOWN, count: int = PHONES) -> dict:
    """Class mode through the proxy: a teacher on Step by step in presenter mode and ``count``
    phones at ``slowdown`` times less CPU that joined by the link; see _moves."""
    from tests.browser.test_class_mode import start_class
    from tests.support.browser.teaching import PROJECTOR, progress_lines, switch_on
    from tests.support.browser.waits import go_to, open_app

    teacher_ctx = _context(browser)
    teacher = teacher_ctx.new_page()
    open_app(teacher, stack.url, "class")

    class _Tab:  # what start_class reads
        def __init__(self, page) -> None:
            self.page = page

    code, _, _ = start_class(_Tab(teacher))
    phones = _phones(browser, stack.url, f"?room={code}", slowdown, count)
    _wait(lambda: all(p.locator(".st-key-class_banner").count() for _, p in phones), "the phones to join the class")
    for _, page in phones:
        page.evaluate(RECORD_JS)
    go_to(teacher, "Step by step")
    teacher.set_viewport_size(PROJECTOR)
    switch_on(teacher, "present", lambda: bool(progress_lines(teacher)))
    try:
        return _moves(teacher, phones)
    finally:
        teacher_ctx.close()


def _follow_floor(browser, url: str, slowdown: float = CPU_SLOWDOWN, count: int = PHONES) -> dict:
    """The same follow on bench/floor_follow_app.py (the framework's floor): a teacher with Next
    and Back, ``count`` phones following by class mode's timed fragment, one chart a step."""
    from tests.support.browser.teaching import PROJECTOR
    from tests.support.browser.waits import open_app

    teacher_ctx = _context(browser)
    teacher = teacher_ctx.new_page()
    teacher.set_viewport_size(PROJECTOR)
    open_app(teacher, url, "?role=teacher")
    phones = _phones(browser, url, "", slowdown, count)
    for _, page in phones:
        page.evaluate(RECORD_JS)
    try:
        return _moves(teacher, phones)
    finally:
        teacher_ctx.close()


@contextlib.contextmanager
def _stack(**kwargs) -> Iterator[Stack]:
    """deploy/'s stack on a free port, removed (its logs too) at the end."""
    stack = Stack(port=free_port(), **kwargs)
    try:
        yield stack.start()
    finally:
        stack.remove()


def _wait(check, what: str, timeout_s: float = FOLLOW_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.1)


def run(results: dict) -> None:
    """Fill results['phone'] (what was measured stays there when a later measure fails)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise Unavailable(f"no Chromium at {CHROMIUM}")
    out: dict = results.setdefault("phone", {})
    details: dict = out.setdefault("details", {})
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            floor_server = FloorServer().start()
            try:
                floor = _open(browser, floor_server.url)
            finally:
                floor_server.stop()
            out["floor_kb"] = _kb(sum(floor["bodies"].values()))
            # The floor through the proxy on the slow phone: what any Streamlit app with a chart waits.
            with _stack(servers=1, db_url="sqlite://", script=str(FLOOR_APP)) as floor_stack:
                _open(browser, floor_stack.url)
                slow = _open(browser, floor_stack.url, {"cpu": CPU_SLOWDOWN, "network": SLOW_4G})
                details["floor_script_done_s_slow"] = round(slow["done_s"], 2)
                details["floor_charts_s_slow"] = round(slow["charts_s"], 2)
            app = StreamlitServer().start()
            try:
                _open(browser, f"{app.url}/{STEP_PATH}")  # the server's first run of the page: imports, caches
                step = _open(browser, f"{app.url}/{STEP_PATH}")
            finally:
                app.stop()
            out["first_load_kb"] = _kb(sum(step["bodies"].values()))
            details["beyond_floor_kb"] = _bundles(step["bodies"], floor["bodies"])
            with _stack(servers=2) as stack:
                _open(browser, f"{stack.url}/{STEP_PATH}")  # each app server's first run, out of the timing
                _open(browser, f"{stack.url}/{STEP_PATH}")
                with WireCounter(stack.port) as wire:
                    _open(browser, f"http://127.0.0.1:{wire.port}/{STEP_PATH}")
                    out["first_load_kb_proxy"] = _kb(wire.down)
                # At Slow 4G's 1.6 Mbit/s the bytes alone take this long: the wire's floor.
                details["wire_s_slow_4g"] = round(wire.down / SLOW_4G["downloadThroughput"], 1)
                slow = _open(browser, f"{stack.url}/{STEP_PATH}", {"cpu": CPU_SLOWDOWN, "network": SLOW_4G})
                out["script_done_s_slow"] = round(slow["done_s"], 2)
                out["charts_s_slow"] = round(slow["charts_s"], 2)
                cpu = _open(browser, f"{stack.url}/{STEP_PATH}", {"cpu": CPU_SLOWDOWN})
                details["script_done_s_cpu4x"] = round(cpu["done_s"], 2)
                details["charts_s_cpu4x"] = round(cpu["charts_s"], 2)
                slowed = _follow(browser, stack)
                out["follow_p95_ms_cpu4x"] = slowed["p95"]
                details.update(follow_p50_ms_cpu4x=slowed["p50"], follow_max_ms_cpu4x=slowed["max"])
                details["follow_samples"] = slowed["samples"]
                # The same follow with the phones at full speed: what the 4x slowdown adds.
                full = _follow(browser, stack, slowdown=1)
                details.update(follow_p95_ms_cpu1x=full["p95"], follow_p50_ms_cpu1x=full["p50"])
                details.update(follow_max_ms_cpu1x=full["max"], follow_samples_cpu1x=full["samples"])
                # One phone at 4x: the same follow without three slowed phones drawing each step at
                # the same moment on the bench machine's cores (a real phone has a CPU of its own).
                alone = _follow(browser, stack, count=1)
                details.update(follow_p95_ms_cpu4x_one_phone=alone["p95"], follow_p50_ms_cpu4x_one_phone=alone["p50"])
                details["follow_samples_one_phone"] = alone["samples"]
            # The framework's floor for the follow: class mode's loop and one chart a step, no more.
            with _stack(servers=1, db_url="sqlite://", script=str(FLOOR_FOLLOW_APP)) as floor_stack:
                _open(browser, floor_stack.url)  # the server's first run, out of the timing
                floor_follow = _follow_floor(browser, floor_stack.url)
                details["floor_follow_p95_ms_cpu4x"] = floor_follow["p95"]
                details["floor_follow_p50_ms_cpu4x"] = floor_follow["p50"]
                details["floor_follow_samples"] = floor_follow["samples"]
                floor_alone = _follow_floor(browser, floor_stack.url, count=1)
                details["floor_follow_p95_ms_cpu4x_one_phone"] = floor_alone["p95"]
                details["floor_follow_p50_ms_cpu4x_one_phone"] = floor_alone["p50"]
        finally:
            browser.close()
