"""Drive the Self-Attention Explorer in a real Chromium: start `streamlit run`, wait for
reruns, work the widgets, read the Plotly data back and check the page for errors.

Waiting follows Streamlit's own e2e tests (`[data-test-script-state='notRunning']`), made
race-free by an init script that counts finished script runs, so "wait for the rerun this
action caused" never mistakes the state before the rerun for the state after it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
MIN_FONT_PX = 12.0
RUN_TIMEOUT_MS = 60_000  # one script rerun; the real-model page loads a model on its first run
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}

# The expected navigation, in order: (title, url path, artifact name).
PAGES = [
    ("Home", "", "home"),
    ("Step by step", "step-by-step", "step-by-step"),
    ("Softmax and scaling lab", "softmax-lab", "softmax-lab"),
    ("Multi-head", "multi-head", "multi-head"),
    ("Cross-attention", "cross-attention", "cross-attention"),
    ("Masks and cost", "masks-and-cost", "masks-and-cost"),
    ("Real model", "real-model", "real-model"),
]

# Counts finished script runs, so a wait can ask for "a run that ended after this moment"
# instead of sampling a state that may be stale. The DOM's data-test-script-state alone is
# not enough: when the browser is busy, React batches "running" and "notRunning" into one
# render and the attribute never shows "running". So the init script also listens to the
# app's WebSocket and counts the server's ForwardMsg.script_finished messages (field 6, an
# enum; 2 = FINISHED_EARLY_FOR_RERUN is not counted, a rerun follows it), read straight from
# the protobuf wire format.
RUN_COUNTER_JS = """
(() => {
  window.__stRuns = 0;
  window.__stStates = [];  // "old>new@ms" and "finished:<status>@ms", for failure messages
  const stamp = () => Math.round(performance.now());
  const attr = 'data-test-script-state';
  new MutationObserver(records => {
    for (const r of records) {
      window.__stStates.push(`${r.oldValue}>${r.target.getAttribute(attr)}@${stamp()}`);
    }
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true, attributeFilter: [attr]});

  const FINISHED = 6, EARLY_FOR_RERUN = 2;
  const scriptFinished = bytes => {  // the script_finished status in a ForwardMsg, or -1
    let i = 0;
    const varint = () => {
      let v = 0, shift = 0, b;
      do {
        if (i >= bytes.length) throw new Error('truncated');
        b = bytes[i++]; v += (b & 0x7f) * 2 ** shift; shift += 7;
      } while (b & 0x80);
      return v;
    };
    try {
      while (i < bytes.length) {
        const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
        if (field === FINISHED && wire === 0) return varint();
        if (wire === 0) varint();
        else if (wire === 1) i += 8;
        else if (wire === 2) { const n = varint(); i += n; }
        else if (wire === 5) i += 4;
        else return -1;
      }
    } catch (e) { return -1; }
    return -1;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', ev => {
        if (!(ev.data instanceof ArrayBuffer)) return;
        const status = scriptFinished(new Uint8Array(ev.data));
        if (status < 0) return;
        window.__stStates.push(`finished:${status}@${stamp()}`);
        if (status !== EARLY_FOR_RERUN) { window.__stRuns += 1; window.__stFinishedAt = performance.now(); }
      });
    }
  };
})();
"""

# Where a page stands, for failure messages.
STATE_JS = """
() => {
  const app = document.querySelector("[data-testid='stApp']");
  return {url: location.href, runs: window.__stRuns, now: Math.round(performance.now()),
          script: app && app.getAttribute('data-test-script-state'),
          connection: app && app.getAttribute('data-test-connection-state'),
          transitions: (window.__stStates || []).slice(-8)};
}
"""

_IDLE_JS = """
() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
      && app.getAttribute('data-test-connection-state') === 'CONNECTED';
}
"""

# A run that ended after `since`, rendered: the server said it finished (150 ms ago, time
# for the app to handle the messages queued before it), the app says it is not running,
# no element of the previous run is still shown as stale, and no placeholder waits for a
# lazily loaded widget (Streamlit loads each widget's code on first use).
RAN_SINCE_JS = """
(since) => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && (window.__stRuns || 0) > since
      && performance.now() - (window.__stFinishedAt || 0) > 150  // the app has handled the last messages
      && app.getAttribute('data-test-script-state') === 'notRunning'
      && !document.querySelector("[data-stale='true']")
      && !document.querySelector("[data-testid='stSkeleton']");  // lazily loaded widgets still coming
}
"""

# Every Plotly chart's traces, as plain JSON-able data (typed arrays become lists, NaN
# becomes the string "NaN" so Python can see it).
CHART_DATA_JS = r"""
() => {
  const plain = v => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (ArrayBuffer.isView(v)) return Array.from(v, plain);
    if (Array.isArray(v)) return v.map(plain);
    if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  };
  const axes = l => Object.keys(l || {}).filter(k => /^[xy]axis\d*$/.test(k)).sort()
    .map(k => [k, plain(l[k].ticktext), l[k].title && l[k].title.text]);
  return Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")).map(d => ({
    title: d._fullLayout && d._fullLayout.title ? d._fullLayout.title.text : '',
    axes: axes(d._fullLayout),
    traces: (d._fullData || d.data || []).map(t => ({
      type: t.type, mode: t.mode || '', name: t.name || '',
      z: plain(t.z), x: plain(t.x), y: plain(t.y), text: plain(t.text),
    })),
  }));
}
"""

_CHARTS_READY_JS = """
() => {
  const main = document.querySelector("[data-testid='stMain']");
  if (!main) return false;
  const boxes = main.querySelectorAll("[data-testid='stPlotlyChart']").length;
  const plots = Array.from(main.querySelectorAll('.js-plotly-plot'));
  return plots.length >= boxes && plots.every(p => p._fullLayout && p.querySelector('svg.main-svg'));
}
"""

# Visible text in the main area whose computed font size is under the limit (HTML text,
# KaTeX and the Plotly SVG text alike). Hidden nodes, the screen-reader copy of KaTeX and
# toolbars are ignored.
SMALL_TEXT_JS = """
(minPx) => {
  const root = document.querySelector("[data-testid='stMain']");
  if (!root) return [];
  const skip = "[data-testid='stToolbar'], [data-testid='stElementToolbar'], .katex-mathml, .modebar-container, "
             + "style, script, noscript, template";
  const seen = new Set(), out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || el.closest(skip)) continue;
    if (el.checkVisibility && !el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (!(size < minPx)) continue;
    const owner = el.closest('[data-testid]');
    const where = el.closest('.katex') ? 'katex'
                : el.closest('svg') ? 'plotly-svg' : (owner ? owner.dataset.testid : '?');
    const key = text.slice(0, 40) + '|' + size + '|' + where;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({text: text.slice(0, 40), px: Math.round(size * 10) / 10, where});
  }
  return out;
}
"""

# Elements that would mean user text became markup.
INJECTED_SELECTORS = [
    "img[src='x']",
    "iframe[src^='javascript' i]",
    "a[href^='javascript' i]",
    "[onerror]",
]
_INJECTED_SCRIPT_JS = """
() => Array.from(document.querySelectorAll('script')).filter(s => s.textContent.includes('alert(1)')).length
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class StreamlitServer:
    """`streamlit run app.py` on a free localhost port, in its own process group."""

    theme: str = "light"
    port: int = 0
    proc: subprocess.Popen | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> StreamlitServer:
        self.port = free_port()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"streamlit-{self.theme}.log"
        cmd = [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless", "true",
            "--server.port", str(self.port),
            "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false",
        ]  # fmt: skip
        if self.theme == "dark":
            cmd += ["--theme.base", "dark"]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
        log = open(self.log_path, "wb")  # noqa: SIM115 - the server writes to it until stop()
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"streamlit did not report healthy within {timeout_s:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_tail(self, n_chars: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-n_chars:]


@dataclass
class Watch:
    """What a page did that it should not: JS errors, console errors, dialogs, non-local requests."""

    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", self._dialog)

    def clear(self) -> None:
        """Forget errors and dialogs seen so far (not the non-local requests)."""
        for log in (self.page_errors, self.console_errors, self.dialogs):
            log.clear()

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        with contextlib.suppress(Exception):
            dialog.dismiss()


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.hostname in LOCAL_HOSTS


def offline_context(browser, watch: Watch, **kwargs):
    """A 1280x800 context that aborts (and records) every request that is not to localhost."""
    context = browser.new_context(viewport=VIEWPORT, **kwargs)
    context.set_default_timeout(RUN_TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER_JS)

    def route(r) -> None:
        if is_local(r.request.url):
            r.fallback()
        else:
            watch.blocked.append(r.request.url)
            r.abort()

    def ws_route(ws) -> None:
        watch.blocked.append(ws.url)
        ws.close()

    context.route("**/*", route)
    context.route_web_socket(lambda url: not is_local(url), ws_route)
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


# --- waiting -------------------------------------------------------------------------


def run_count(page) -> int:
    return int(page.evaluate("() => window.__stRuns || 0"))


def wait_idle(page, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    page.wait_for_function(_IDLE_JS, timeout=timeout_ms)


def wait_for_run(page, since: int, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Wait until a script run that ended after `since` (a run_count) has finished."""
    page.wait_for_function(RAN_SINCE_JS, arg=since, timeout=timeout_ms)
    wait_charts(page)


def wait_charts(page, timeout_ms: int = 30_000) -> None:
    page.wait_for_function(_CHARTS_READY_JS, timeout=timeout_ms)


def open_app(page, base_url: str, path: str = "") -> None:
    """Load the app (optionally a page by url path) and wait for its first run to end."""
    page.goto(f"{base_url}/{path}")
    page.wait_for_selector("[data-testid='stApp']", state="attached")
    wait_for_run(page, 0)


def nav_titles(page) -> list[str]:
    """The page titles in the sidebar navigation, in order."""
    spans = page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink'] span[label]")
    return [spans.nth(i).get_attribute("label") or "" for i in range(spans.count())]


def nav_link(page, title: str):
    return page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink']").filter(
        has=page.locator(f"span[label={json.dumps(title)}]")
    )


def go_to(page, title: str) -> None:
    """Open a page through the sidebar navigation, by its title."""
    link = nav_link(page, title)
    if link.count() != 1:
        raise AssertionError(f"no single sidebar link {title!r}; the navigation shows {nav_titles(page)}")
    since = run_count(page)
    link.click()
    wait_for_run(page, since)


# --- widgets -------------------------------------------------------------------------


TEXT_WIDGETS = "[data-testid='stTextInput'], [data-testid='stTextArea']"


def text_inputs(page):
    """Every text box (st.text_input and st.text_area) in the main area and the sidebar."""
    return page.locator(TEXT_WIDGETS)


def widget_label(widget) -> str:
    label = widget.locator("[data-testid='stWidgetLabel']")
    return label.first.inner_text().strip() if label.count() else ""


def fill_text(page, widget, text: str) -> None:
    """Type `text` into a text box, commit it (Enter; Ctrl+Enter in a text area) and wait
    for the rerun when the value changed.

    On a starved machine a rerun can be slow to come, and a box re-rendered in the middle
    of typing loses the text; so if no rerun came within a third of the timeout, the text
    is typed and committed once more before waiting the full timeout.
    """
    box = widget.locator("input, textarea").first
    commit = "Control+Enter" if widget.get_attribute("data-testid") == "stTextArea" else "Enter"
    old = box.input_value()
    since = run_count(page)
    box.fill(text)
    typed = box.input_value()  # what the box kept (max_chars may cut it)
    box.press(commit)
    if typed == old:
        wait_idle(page)
        return
    try:
        wait_for_run(page, since, RUN_TIMEOUT_MS // 3)
    except PlaywrightTimeoutError:
        if box.input_value() != typed:
            box.fill(text)
        box.press(commit)
        wait_for_run(page, since)


def number_inputs(page):
    return page.locator("[data-testid='stNumberInput']")


def sliders(page):
    return page.locator("[data-testid='stSlider']")


def find_by_label(widgets, needle: str):
    """The first widget whose label contains `needle` (case-insensitive), or None."""
    for i in range(widgets.count()):
        w = widgets.nth(i)
        if needle.lower() in widget_label(w).lower():
            return w
    return None


def set_number(page, widget, value: float | int) -> None:
    box = widget.locator("input")
    if box.input_value() == str(value):
        return
    since = run_count(page)
    box.fill(str(value))
    box.press("Enter")
    wait_for_run(page, since)


def bump_number(page, widget) -> None:
    """Step a number input up once (down if it is at its maximum)."""
    box = widget.locator("input")
    old = box.input_value()
    since = run_count(page)
    box.press("ArrowUp")
    if box.input_value() == old:
        box.press("ArrowDown")
    box.press("Enter")
    wait_for_run(page, since)


def nudge_slider(page, widget, key: str = "ArrowRight") -> None:
    """Move a slider one step with the keyboard (the other way if it is at its end).
    Streamlit 1.67's slider thumb is a visually hidden <input type=range>."""
    thumb = widget.locator("input[type='range'], [role='slider']").first
    value = "el => el.value || el.getAttribute('aria-valuenow')"
    old = thumb.evaluate(value)
    since = run_count(page)
    thumb.focus()
    thumb.press(key)
    if thumb.evaluate(value) == old:
        thumb.press("ArrowLeft" if key == "ArrowRight" else "ArrowRight")
    wait_for_run(page, since)


# --- reading the page -----------------------------------------------------------------


def chart_data(page) -> list:
    return page.evaluate(CHART_DATA_JS)


def nan_cells(charts: list) -> list[str]:
    """NaN/inf values in the chart data, except the gaps Plotly figures use on purpose:
    masked heatmap cells drawn by a grey layer named "masked" (figures.heatmap), whole NaN
    rows/columns separating the tiles of a heatmap grid, and single gaps between segments
    of a line trace (one trace drawing many separate lines)."""
    problems = []
    for c, chart in enumerate(charts):
        traces = chart["traces"]
        masked = set()
        for t in traces:
            if t["name"] == "masked" and isinstance(t["z"], list):
                masked |= {(i, j) for i, row in enumerate(t["z"]) for j, v in enumerate(row or []) if v == 1}
        for n, t in enumerate(traces):
            if t["name"] == "masked":
                continue
            where = f"chart {c} ({chart['title'][:40]!r}) trace {n}"
            bad = {axis: _bad_numbers(t[axis], ()) for axis in ("z", "x", "y")}
            bad["z"] = [p for p in bad["z"] if p not in masked and not _grid_line(t["z"], p)]
            if "lines" in t["mode"]:
                for axis in ("x", "y"):
                    bad[axis] = [p for p in bad[axis] if not _segment_gap(t[axis], p)]
            problems += [f"{where} {axis}{p}" for axis, found in bad.items() for p in found]
            problems += [f"{where} text{p}" for p in _bad_text(t["text"], ())]
    return problems


_NOT_FINITE = ("NaN", "Infinity", "-Infinity")


def _bad_numbers(value, where: tuple) -> list[tuple]:
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _bad_numbers(v, (*where, i))]
    return [where] if value in _NOT_FINITE else []


def _grid_line(z: list, where: tuple) -> bool:
    """The cell lies on a row or column that is NaN from end to end: a separator between tiles."""
    if len(where) != 2:
        return False
    i, j = where
    row, col = z[i], [r[j] for r in z if isinstance(r, list) and j < len(r)]
    return all(v in _NOT_FINITE for v in row) or all(v in _NOT_FINITE for v in col)


def _segment_gap(values: list, where: tuple) -> bool:
    """A lone NaN between finite values (or at the end) in a flat line trace: a pen lift."""
    if len(where) != 1:
        return False
    i = where[0]
    neighbours = [values[k] for k in (i - 1, i + 1) if 0 <= k < len(values)]
    return i > 0 and bool(neighbours) and all(v not in _NOT_FINITE for v in neighbours)


def _bad_text(value, where: tuple) -> list[tuple]:
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _bad_text(v, (*where, i))]
    if isinstance(value, str) and value.strip().lower() in ("nan", "inf", "-inf", "infinity"):
        return [where]
    return []


def svg_nan_text(page) -> list[str]:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot text"))
              .map(t => t.textContent).filter(s => /\\bnan\\b|\\binf(inity)?\\b/i.test(s))"""
    )


def small_text(page, min_px: float = MIN_FONT_PX) -> list[dict]:
    return page.evaluate(SMALL_TEXT_JS, min_px)


def injected_elements(page) -> list[str]:
    found = [sel for sel in INJECTED_SELECTORS if page.locator(sel).count()]
    if page.evaluate(_INJECTED_SCRIPT_JS):
        found.append("script containing alert(1)")
    return found


def exceptions(page) -> list[str]:
    return page.locator("[data-testid='stException']").all_inner_texts()


def problems(page, watch: Watch, server: StreamlitServer | None = None) -> list[str]:
    """Everything that went wrong on the page so far, as readable lines (empty = clean)."""
    out = [f"stException: {e[:300]}" for e in exceptions(page)]
    out += [f"page error: {e}" for e in watch.page_errors]
    out += [f"console error: {e}" for e in watch.console_errors]
    out += [f"dialog: {d}" for d in watch.dialogs]
    out += [f"non-local request: {u}" for u in watch.blocked]
    if out and server is not None and "stException" in out[0]:
        out.append("server log tail:\n" + server.log_tail(2500))
    return out


def screenshot(page, name: str) -> tuple[Path, Path]:
    """The first viewport as <name>.png and the whole page as <name>-full.png.

    Streamlit scrolls inside stMain, not the document, so the full page is taken with the
    viewport stretched to the main area's scroll height (capped), then put back.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    first, full = ARTIFACTS / f"{name}.png", ARTIFACTS / f"{name}-full.png"
    page.screenshot(path=first)
    size = page.viewport_size or VIEWPORT
    height = page.evaluate(
        "() => { const m = document.querySelector(\"[data-testid='stMain']\"); return m ? m.scrollHeight : 0; }"
    )
    page.set_viewport_size({"width": size["width"], "height": int(min(max(height, size["height"]), 12_000))})
    try:
        page.wait_for_timeout(300)  # let charts settle after the resize
        page.screenshot(path=full, full_page=True)
    finally:
        page.set_viewport_size(size)
    return first, full
