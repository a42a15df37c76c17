"""browser_ms, startup_s, memory_mb and load: a real `streamlit run app.py` on localhost,
driven by headless Chromium through Playwright's async API.

One fresh server serves the whole phase, in this order: home (startup), the real-model
page's first load (startup, memory), sentence changes on the real-model and step pages
(browser_ms), then N concurrent sessions on the step page (load: every tab changes at the
same instant, then again with a student's pauses between changes) and the memory after it,
then the same N sessions as browser-less protocol clients (load_server, perf_protocol.py).
Every request that is not to 127.0.0.1 is aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import perf_browser_cpu
import perf_protocol
from perf_inputs import (
    ROOT,
    Unavailable,
    bert_sentence,
    bert_tokenizer,
    home_title,
    latency_summary,
    median_ms,
    model_labels,
    percentile,
    step_labels,
    step_sentence,
    url_path,
)
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.support.browser.server import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, free_port
from tests.support.browser.session import async_offline_context
from tests.support.browser.waits import PLOT_DRAWN_JS

LOG = ROOT / "tests" / "artifacts" / "bench-streamlit.log"
FLOOR_REDRAW_APP = ROOT / "bench" / "floor_redraw_app.py"
FLOOR_APP = ROOT / "bench" / "floor_app.py"  # a bare app with one Plotly chart (startup_s.floor_home)
RUN_TIMEOUT_MS = 120_000
LOAD_BUDGET_S = 280.0  # the whole load phase, opening the sessions included
OPEN_BUDGET_S = 150.0  # of which opening the sessions (not timed) may take this long
OPEN_AT_ONCE = 4  # sessions opening at the same time
THINK_S = (2.0, 12.0)  # load, paced: a student's pause before each change, uniform in this range
PACED_BUDGET_S = 120.0
CHANGE_TIMEOUT_MS = 30_000  # one timed change of browser_ms (a quiet machine needs well under 2 s)
LOST_CHANGES_MAX = 3  # changes browser_ms may retry when no run started
PRESENT_STEP = 8  # presenter mode (?present=1) shows one step: the attention weights, one T x T heatmap

# Counts finished script runs, so "the run my change caused" is never confused with an earlier one.
INIT_JS = """
window.__runs = 0;
new MutationObserver(rs => { for (const r of rs) if (r.oldValue === 'running') window.__runs += 1; })
  .observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']});
"""

# A cheap fingerprint of every chart's data: title, tick labels, and per trace its type, length
# and first values (enough to see new tokens or new numbers; cheap enough to poll).
FINGERPRINT_JS = """
() => Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")).map(d => {
  const head = a => {
    if (!a) return '';
    const out = [];
    const take = v => {
      if (out.length >= 8) return;
      if (v && typeof v === 'object' && v.length !== undefined) {
        for (let i = 0; i < v.length && out.length < 8; i++) take(v[i]);
      }
      else out.push(typeof v === 'number' ? v.toFixed(6) : String(v));
    };
    take(a);
    return a.length + ':' + out.join(',');
  };
  const l = d._fullLayout || {};
  const ticks = Object.keys(l).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => head(l[k].ticktext));
  const traces = (d._fullData || []).map(t => [t.type, head(t.z), head(t.y), head(t.text)].join('|'));
  return [l.title ? l.title.text : '', ticks.join('/'), traces.join(';')].join('#');
}).join('\\n')
"""

IDLE_JS = """
(since) => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && (window.__runs || 0) > since && app.getAttribute('data-test-script-state') === 'notRunning';
}
"""

# The run ended, every chart is drawn (at least ``min`` of them), and their data differs from ``before``.
READY_JS = (
    """
([since, before, min]) => {
  if (!(IDLE)(since)) return false;
  const main = document.querySelector("[data-testid='stMain']");
  const boxes = main.querySelectorAll("[data-testid='stPlotlyChart']").length;
  const plots = Array.from(main.querySelectorAll('.js-plotly-plot'));
  if (boxes < min || plots.length < boxes || !plots.every(PLOT_DRAWN))
    return false;
  return before === null || (FINGERPRINT)() !== before;
}
""".replace("IDLE", IDLE_JS.strip())
    .replace("FINGERPRINT", FINGERPRINT_JS.strip())
    .replace("PLOT_DRAWN", PLOT_DRAWN_JS)
)

# Resolves (with whether the box is a text area) once the box's "Press Enter to apply" hint
# shows, or after 2 s. It watches the box's element for changes instead of checking every frame:
# a check per frame keeps the renderer drawing frames, and that CPU is the harness's, not the
# app's (in presenter mode, with the sidebar collapsed, the hint never came and the loop ran its
# whole 2 s on every change: about 120 frames that browser_cpu_ms billed to the app).
DIRTY_JS = """
e => new Promise(resolve => {
  const box = e.closest('.stElementContainer, [data-testid="stElementContainer"]');
  const shown = () => {
    const hint = box && box.querySelector("[data-testid='InputInstructions']");
    return !!hint && /apply/i.test(hint.textContent);
  };
  if (shown()) return resolve(e.tagName === 'TEXTAREA');
  let timer = null;
  const watch = new MutationObserver(() => { if (shown()) done(); });
  const done = () => { watch.disconnect(); clearTimeout(timer); resolve(e.tagName === 'TEXTAREA'); };
  watch.observe(box || document.body, {subtree: true, childList: true, characterData: true});
  timer = setTimeout(done, 2000);
})
"""
DIALOG_JS = "() => Array.from(document.querySelectorAll('[role=dialog]')).map(d => d.innerText.slice(0, 80))"
ERRORS_JS = "() => document.querySelectorAll(\"[data-testid='stException']\").length"


class Server(StreamlitServer):
    """The browser tests' `streamlit run app.py` (same command, process group and stop()),
    started without blocking so its start-up can be timed from the launch."""

    started: float = 0.0

    def start(self) -> None:
        self.port = free_port()
        self.log_path = LOG
        LOG.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        if self.db_url:  # class mode's database (the class section)
            env["CLASS_DB_URL"] = self.db_url
        with open(LOG, "wb") as log:
            self.started = time.perf_counter()
            self.proc = subprocess.Popen(
                self.command(), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    async def healthy(self, timeout_s: float = 90.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}; see {LOG}")
            with contextlib.suppress(OSError):
                if await asyncio.to_thread(self._health):
                    return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"streamlit was not healthy within {timeout_s:.0f} s; see {LOG}")

    def _health(self) -> bool:
        with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
            return r.read().strip() == b"ok"

    def rss_mb(self) -> float:
        import psutil

        proc = psutil.Process(self.proc.pid)
        total = proc.memory_info().rss
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                total += child.memory_info().rss
        return round(total / 2**20, 1)


@dataclass
class Tab:
    """One browser context + page on the app, counting page errors."""

    context: object
    page: object
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    lost_changes: int = 0  # changes that started no run (see _sentence_changes)

    @classmethod
    async def open(cls, browser) -> Tab:
        context = await async_offline_context(browser, INIT_JS, RUN_TIMEOUT_MS)
        page = await context.new_page()
        tab = cls(context, page)
        page.on("pageerror", lambda e: tab.errors.append(str(e)[:200]))
        return tab

    async def goto(self, url: str, timeout_ms: int = RUN_TIMEOUT_MS, min_charts: int = 1) -> float:
        """Open url; seconds until its first run ended and (at least ``min_charts``) charts are drawn.
        A dialog that covers the page (Streamlit's "Page not found") is noted and closed."""
        t0 = time.perf_counter()
        await self.page.goto(url, timeout=timeout_ms)
        await self.page.wait_for_function(READY_JS, arg=[0, None, min_charts], timeout=timeout_ms, polling=20)
        seconds = time.perf_counter() - t0
        dialogs = await self.page.evaluate(DIALOG_JS)
        if dialogs:
            self.dialogs.extend(dialogs)
            await self.page.keyboard.press("Escape")
            await self.page.locator("[role=dialog]").first.wait_for(state="detached", timeout=10_000)
        return seconds

    async def open_sidebar(self) -> None:
        """Open the sidebar, as a teacher in presenter mode does to type (it starts collapsed
        there, and a collapsed sidebar's box is too narrow to show "Press Enter to apply"),
        and wait until the charts are drawn again at the narrower width."""
        button = self.page.get_by_test_id("stExpandSidebarButton")
        if await button.count():
            await button.click()
            await self.page.wait_for_function(
                "() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().x >= 0"
            )
            await asyncio.sleep(1.0)

    async def change(
        self,
        label: str,
        value: str | None = None,
        key: str | None = None,
        timeout_ms: int = RUN_TIMEOUT_MS,
        poll_ms: int = 20,
        key_delay_ms: int | None = None,
    ) -> tuple[float, float]:
        """Type ``value`` into the text box labelled ``label`` (or press ``key`` on that slider),
        checking the page every ``poll_ms``. The box is filled at once, or with ``key_delay_ms``
        emptied and typed key by key, as a student types.

        Returns: seconds from pressing Enter (or the key) until the run ended
        (data-test-script-state notRunning) and until every chart was drawn again with new data.
        """
        page = self.page
        since = await page.evaluate("() => window.__runs || 0")
        before = await page.evaluate(FINGERPRINT_JS)
        if value is not None:
            # A CSS query on Streamlit's aria-label, not get_by_label: Playwright's label lookup
            # walks the whole page (~7,000 nodes) in the renderer, ~70 ms of CPU per change
            # that browser_cpu_ms would count as the app's.
            box = page.locator(f':is(input, textarea)[aria-label="{label}"]')
            if key_delay_ms is None:
                await box.fill(value)
            else:
                await box.fill("")
                await box.press_sequentially(value, delay=key_delay_ms)
            # Enter only once Streamlit has taken in the new value ("Press Enter to apply" shows):
            # an Enter pressed right after fill() is sometimes dropped (no run starts).
            is_area = await box.evaluate(DIRTY_JS)
            t0 = time.perf_counter()
            await box.press("Control+Enter" if is_area else "Enter")
        else:
            t0 = time.perf_counter()
            await page.get_by_role("slider", name=label).press(key)
        await page.wait_for_function(IDLE_JS, arg=since, timeout=timeout_ms, polling=poll_ms)
        script = time.perf_counter() - t0
        await page.wait_for_function(READY_JS, arg=[since, before, 1], timeout=timeout_ms, polling=poll_ms)
        seconds = time.perf_counter() - t0
        if await page.evaluate(ERRORS_JS):
            raise RuntimeError("the page shows an exception")
        return script, seconds

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.context.close()


def _running(command: list[str], script: Path) -> list[str]:
    """A `streamlit run app.py` command that runs ``script`` instead."""
    return [str(script) if part == "app.py" else part for part in command]


class FloorRedrawServer(StreamlitServer):
    """`streamlit run bench/floor_redraw_app.py`: a sentence box and presenter mode's step-8 chart
    alone, made by the app's own code (browser_cpu_ms.floor_T16_present)."""

    def command(self) -> list[str]:
        return _running(super().command(), FLOOR_REDRAW_APP)


class FloorServer(Server):
    """`streamlit run bench/floor_app.py`, started without blocking as the app's Server is, so that
    its start-up is timed the same way (startup_s.floor_home)."""

    def command(self) -> list[str]:
        return _running(super().command(), FLOOR_APP)


async def _floor_startup(browser) -> float:
    """Seconds from launching the bare app's server to its first run shown (its chart's box in
    the page, the script done): what startup_s.home measures, for the framework alone."""
    server = FloorServer()
    try:
        server.start()
        await server.healthy()
        tab = await Tab.open(browser)
        await tab.page.goto(server.url + "/")
        await tab.page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=RUN_TIMEOUT_MS)
        await tab.page.wait_for_function(IDLE_JS, arg=0, timeout=RUN_TIMEOUT_MS)  # the first run has ended
        seconds = round(time.perf_counter() - server.started, 2)
        await tab.close()
        return seconds
    finally:
        server.stop()


async def _floor_per_change(browser, texts: list[str]) -> float:
    """browser_cpu_ms of a sentence change on the floor app, measured as the app's is."""
    server = await asyncio.to_thread(FloorRedrawServer().start)
    try:
        tab = await Tab.open(browser)
        await tab.goto(server.url)
        measured = await perf_browser_cpu.per_change(tab, "Sentence", texts)
        await tab.close()
        return measured["ms"]
    finally:
        server.stop()


async def _launch(pw):
    if not Path(CHROMIUM).exists():
        raise Unavailable(f"no Chromium at {CHROMIUM}")
    return await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


async def _sentence_changes(tab: Tab, label: str, texts: list[str], repeats: int) -> tuple[float, float]:
    """Median ms (until the run ended, until redrawn) over ``repeats`` changes after one warm-up,
    cycling through ``texts``."""
    script, total, lost = [], [], 0
    for n in range(repeats + 1 + LOST_CHANGES_MAX):
        if len(total) == repeats:
            break
        try:
            s_run, s_all = await tab.change(label, texts[n % len(texts)], timeout_ms=CHANGE_TIMEOUT_MS)
        except PlaywrightTimeout:
            # Rarely, Streamlit's text box drops an Enter pressed right after fill(): no run starts.
            # That is the harness, not the app; count it and go on with the next text.
            lost += 1
            continue
        if n > lost:  # the first change that went through is the warm-up
            script.append(s_run)
            total.append(s_all)
    tab.lost_changes += lost
    if not total:
        raise RuntimeError(f"no sentence change was redrawn ({lost} lost)")
    return median_ms(script), median_ms(total)


async def _open_session(browser, url: str, index: int, gate: asyncio.Semaphore, out: dict) -> Tab | None:
    """Open one session on the step page (a few at a time: opening is not what is timed)."""
    tab = None
    try:
        async with gate:
            tab = await Tab.open(browser)
            await tab.goto(url, timeout_ms=int(OPEN_BUDGET_S * 1000))
        return tab
    except Exception as err:
        out["errors"].append(f"session {index} did not open: {type(err).__name__}")
        if tab:
            await tab.close()
        return None


async def _session_changes(
    tab: Tab, labels: dict, index: int, out: dict, think_s: tuple[float, float] | None = None
) -> None:
    """Three changes, each waited for until redrawn: sentence, d_k (one slider step), sentence;
    with ``think_s``, after a pause drawn from that range before each (seeded per session)."""
    changes = [
        ("text", step_sentence(16, variant=index + 1)),
        ("key", "ArrowRight"),
        ("text", step_sentence(16, variant=index + 2)),
    ]
    pauses = random.Random(index)
    for kind, value in changes:
        if think_s:
            await asyncio.sleep(pauses.uniform(*think_s))
        try:
            if kind == "text":
                script, seconds = await tab.change(labels["sentence"], value, timeout_ms=60_000)
            else:
                script, seconds = await tab.change(labels["d_k"], key=value, timeout_ms=60_000)
            out["ms"].append(seconds * 1000.0)
            out["script_ms"].append(script * 1000.0)
        except Exception as err:
            out["errors"].append(f"session {index}: {type(err).__name__}: {str(err)[:120]}")


async def _load(browser, url: str, labels: dict, sessions: int) -> dict:
    """Open ``sessions`` tabs (at most OPEN_BUDGET_S), then make every open tab change at once;
    then the same tabs change again at a student's pace (the ``paced_`` keys)."""
    out: dict = {"ms": [], "script_ms": [], "errors": [], "page_errors": [], "dialogs": []}
    gate = asyncio.Semaphore(OPEN_AT_ONCE)
    t0 = time.perf_counter()
    opening = [asyncio.create_task(_open_session(browser, url, i, gate, out)) for i in range(sessions)]
    _, late = await asyncio.wait(opening, timeout=OPEN_BUDGET_S)
    for task in late:
        task.cancel()
    await asyncio.gather(*late, return_exceptions=True)
    if late:
        out["errors"].append(f"{len(late)} sessions not open after {OPEN_BUDGET_S:.0f} s")
    tabs = [(i, t.result()) for i, t in enumerate(opening) if t not in late and t.result() is not None]
    open_s = time.perf_counter() - t0
    changing = [asyncio.create_task(_session_changes(tab, labels, i, out)) for i, tab in tabs]  # all at once
    if changing:
        _, pending = await asyncio.wait(changing, timeout=max(30.0, LOAD_BUDGET_S - open_s))
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if pending:
            out["errors"].append(f"{len(pending)} sessions still changing at the {LOAD_BUDGET_S:.0f} s limit")
    paced = await _paced(tabs, labels) if tabs else {}
    for _, tab in tabs:
        out["page_errors"].extend(f"page error: {e}" for e in tab.errors)
        out["dialogs"].extend(tab.dialogs)
        await tab.close()
    ms = out["ms"]
    errors = sessions * 3 - len(ms) + len(out["page_errors"])  # every change not redrawn in time, every JS error
    return {
        **latency_summary(ms, sessions),
        "p50_until_notRunning_ms": round(percentile(out["script_ms"], 50), 1) if ms else None,
        "p95_until_notRunning_ms": round(percentile(out["script_ms"], 95), 1) if ms else None,
        "errors": errors,
        "error_samples": (out["errors"] + out["page_errors"])[:5],
        "dialogs": sorted(set(out["dialogs"])),
        "open_s": round(open_s, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
        **paced,
    }


async def _paced(tabs: list, labels: dict) -> dict:
    """The same tabs, three changes each again, but as a class works: every student pauses
    THINK_S seconds before each change, so changes arrive spread out instead of at one instant."""
    await asyncio.sleep(10.0)  # let tabs that were still catching up with the burst finish
    out: dict = {"ms": [], "script_ms": [], "errors": []}
    pacing = [asyncio.create_task(_session_changes(tab, labels, 100 + i, out, THINK_S)) for i, tab in tabs]
    _, pending = await asyncio.wait(pacing, timeout=PACED_BUDGET_S)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    summary = latency_summary(out["ms"], len(tabs))
    return {
        "paced_think_s": list(THINK_S),
        **{f"paced_{key}": summary[key] for key in ("changes_timed", "p50_ms", "p95_ms", "max_ms")},
        "paced_errors": len(tabs) * 3 - len(out["ms"]),
    }


async def _phase(sections: set[str], quick: bool, results: dict, notes: dict) -> None:
    from playwright.async_api import async_playwright

    repeats = 3 if quick else 7
    startup = results.setdefault(
        "startup_s", {"home": None, "floor_home": None, "until_health": None, "model_first_load": None}
    )
    memory = results.setdefault("memory_mb", {"idle": None, "model_loaded": None, "after_load": None})
    browser_ms = results.setdefault(
        "browser_ms",
        dict.fromkeys(
            (
                "step_T16",
                "step_T16_until_notRunning",
                "step_T16_present",
                "step_T16_present_until_notRunning",
                "bert_T128",
                "bert_T128_until_notRunning",
            )
        ),
    )
    if "browser_cpu_ms" in sections:
        results["browser_cpu_ms"] = {
            "step_T16": None,
            "step_T16_present": None,
            "step_T16_typed": None,
            "floor_T16_present": None,
            "details": {},
        }
    step_url = model_url = None
    try:
        step_url = url_path("step_by_step.py")
    except Unavailable as why:
        notes.setdefault("browser_ms", {})["step_T16"] = f"null: {why}"
    try:
        model_url = url_path("real_model.py")
    except Unavailable as why:
        notes.setdefault("browser_ms", {})["bert_T128"] = f"null: {why}"
    async with async_playwright() as pw:
        browser = await _launch(pw)  # before the server, so its start-up is not counted
        server = Server()
        try:
            server.start()
            await server.healthy()
            startup["until_health"] = round(time.perf_counter() - server.started, 2)
            tab = await Tab.open(browser)
            await tab.page.goto(server.url + "/")
            title = home_title()
            await tab.page.get_by_role("heading", name=title).first.wait_for(timeout=RUN_TIMEOUT_MS)
            await tab.page.wait_for_function(IDLE_JS, arg=0, timeout=RUN_TIMEOUT_MS)  # the first run has ended
            startup["home"] = round(time.perf_counter() - server.started, 2)
            await asyncio.sleep(1.0)
            memory["idle"] = server.rss_mb()

            if model_url is not None:
                startup["model_first_load"] = round(await tab.goto(f"{server.url}/{model_url}", 240_000), 2)
                memory["model_loaded"] = server.rss_mb()
                if "browser_ms" in sections:
                    tokenizer = bert_tokenizer()
                    texts = [bert_sentence(tokenizer, 128, v) for v in (1, 2)]
                    label = model_labels()["sentence"]
                    script, total = await _sentence_changes(tab, label, texts, max(3, repeats - 2))
                    browser_ms["bert_T128"], browser_ms["bert_T128_until_notRunning"] = total, script
                    if tab.lost_changes:
                        notes.setdefault("browser_ms", {})["bert_T128"] = f"{tab.lost_changes} change(s) retried"
            else:
                notes.setdefault("startup_s", {})["model_first_load"] = "null: no real-model page"
                notes.setdefault("memory_mb", {})["model_loaded"] = "null: no real-model page"
            seen_dialogs = list(tab.dialogs)
            await tab.close()

            if step_url is not None:
                labels = step_labels()
                if "browser_ms" in sections:
                    tab = await Tab.open(browser)
                    await tab.goto(f"{server.url}/{step_url}")
                    texts = [step_sentence(16, v) for v in (1, 2, 3, 4)]
                    script, total = await _sentence_changes(tab, labels["sentence"], texts, repeats)
                    browser_ms["step_T16"], browser_ms["step_T16_until_notRunning"] = total, script
                    if tab.lost_changes:
                        notes.setdefault("browser_ms", {})["step_T16"] = f"{tab.lost_changes} change(s) retried"
                    seen_dialogs += tab.dialogs
                    await tab.close()
                    tab = await Tab.open(browser)
                    await tab.goto(f"{server.url}/{step_url}?present=1&step={PRESENT_STEP}")
                    await tab.open_sidebar()
                    script, total = await _sentence_changes(tab, labels["sentence"], texts, repeats)
                    browser_ms["step_T16_present"], browser_ms["step_T16_present_until_notRunning"] = total, script
                    await tab.close()
                if "browser_cpu_ms" in sections:
                    texts = [step_sentence(16, v) for v in (1, 2, 3, 4)]
                    cpu = results["browser_cpu_ms"]
                    for key, query, delay in (
                        ("step_T16", "", None),
                        ("step_T16_present", f"?present=1&step={PRESENT_STEP}", None),
                        ("step_T16_typed", "", perf_browser_cpu.KEY_DELAY_MS),
                    ):
                        tab = await Tab.open(browser)
                        await tab.goto(f"{server.url}/{step_url}{query}")
                        if query:
                            await tab.open_sidebar()
                        measured = await perf_browser_cpu.per_change(tab, labels["sentence"], texts, key_delay_ms=delay)
                        cpu[key] = measured.pop("ms")
                        cpu["details"][key] = measured
                        await tab.close()
                    cpu["floor_T16_present"] = await _floor_per_change(browser, texts)
                if "load" in sections:
                    results["load"] = await _load(browser, f"{server.url}/{step_url}", labels, 5 if quick else 30)
                    await asyncio.sleep(1.0)
                    memory["after_load"] = server.rss_mb()
                if "load_server" in sections:
                    results["load_server"] = await perf_protocol.load(server.url, step_url, labels, 5 if quick else 30)
            elif "load" in sections:
                results["load"] = {"sessions": 0, "p50_ms": None, "p95_ms": None, "errors": None}
                notes.setdefault("load", {})["all"] = "null: no step-by-step page"
            server.stop()  # the floor's server starts alone, as the app's did
            startup["floor_home"] = await _floor_startup(browser)
            if seen_dialogs:
                notes.setdefault("browser_ms", {})["dialogs"] = f"closed a dialog that covered the page: {seen_dialogs}"
        finally:
            server.stop()
            await browser.close()


def run(sections: set[str], quick: bool, results: dict, notes: dict) -> None:
    """Fill the browser-side sections named in ``sections`` (startup and memory always come along)."""
    asyncio.run(_phase(sections, quick, results, notes))
