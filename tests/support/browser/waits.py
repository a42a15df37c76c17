"""Wait for what a Streamlit page shows, and drive the navigation and the widgets that rerun it.

Waits follow what a user sees where that is enough: the page drawn (Streamlit's own
``[data-test-script-state='notRunning']``, as its e2e tests wait for it, with nothing stale,
no widget still loading, every chart drawn and the page quiet for a moment), a page's first
run (``open_app``: the main area shows the page), and a change of page (``go_to``: the address
and the page's title are the new page's).

Where nothing visible can tell that a rerun happened, the run counter stays: a widget's driver
(``fill_text``, ``set_number``, ``bump_number``, ``nudge_slider``) cannot know what its rerun
changes on the page (often nothing it can name, sometimes nothing at all), and a test that
checks an action did *not* rerun the page (copying a link, a download) has nothing to look at.
An init script counts finished script runs from the app's WebSocket (the server's
ForwardMsg.script_finished, read from the protobuf wire format), because the DOM's
data-test-script-state alone misses runs: when the browser is busy, React batches "running"
and "notRunning" into one render and the attribute never shows "running". ``wait_for_run``
(since a ``run_count``) is what those drivers wait with.
"""

from __future__ import annotations

import json

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from lessons import pages

RUN_TIMEOUT_MS = 60_000  # one script rerun; the real-model page loads a model on its first run

# The navigation, in order: (title, url path, artifact name), from the one page list.
PAGES = [(p.title, p.url_path, p.url_path or "home") for p in pages.PAGES]

# Counts finished script runs (see the module docstring), and stamps every change of the page
# (window.__stChangedAt), so that a wait can also ask for a quiet page.
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
  // When the page last changed: under load the app draws a run's messages well after the
  // last one arrived, so a wait also asks for a quiet page (see DRAWN_JS).
  window.__stChangedAt = 0;
  new MutationObserver(() => { window.__stChangedAt = performance.now(); })
    .observe(document, {subtree: true, childList: true, characterData: true});

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

# One chart drawn: Plotly has drawn it and the chart tools have fitted its text (assets/chart_tools.js
# sets data-fitting when Plotly draws and clears it a task later). Every wait for a drawn chart asks
# this, here, in screens.py and in the bench (perf_browser, perf_phone).
PLOT_DRAWN_JS = "(p => !!p._fullLayout && !!p.querySelector('svg.main-svg') && !p.dataset.fitting)"

# What a user sees once a run has been drawn: the app connected and not running, its main area
# showing elements, none of them stale (left from the run before), no placeholder waiting for a
# lazily loaded widget (Streamlit loads each widget's code on first use), every chart drawn and its
# text fitted (assets/chart_tools.js: data-fitting gone), and
# nothing on the page changed for 150 ms (under load the app draws a run's messages seconds after
# they arrive).
DRAWN_JS = """
() => {
  const app = document.querySelector("[data-testid='stApp']");
  const main = document.querySelector("[data-testid='stMain']");
  if (!app || !main) return false;
  const quiet = Math.max(window.__stFinishedAt || 0, window.__stChangedAt || 0);
  const boxes = main.querySelectorAll("[data-testid='stPlotlyChart']").length;
  const plots = Array.from(main.querySelectorAll('.js-plotly-plot'));
  return app.getAttribute('data-test-script-state') === 'notRunning'
      && app.getAttribute('data-test-connection-state') === 'CONNECTED'
      && !!main.querySelector("[data-testid='stElementContainer']")
      && !document.querySelector("[data-stale='true']")
      && !document.querySelector("[data-testid='stSkeleton']")
      && plots.length >= boxes
      && plots.every(PLOT_DRAWN)
      && performance.now() - quiet > 150;
}
""".replace("PLOT_DRAWN", PLOT_DRAWN_JS)

# A run that ended after `since` (a run count), drawn (DRAWN_JS).
RAN_SINCE_JS = """
(since) => (window.__stRuns || 0) > since && (DRAWN)()
""".replace("DRAWN", DRAWN_JS.strip())

# The page's title as the reader sees it (the first heading in the main area), and its address.
_WHERE_JS = """
() => {
  const h1 = document.querySelector("[data-testid='stMain'] h1");
  return [location.pathname, h1 ? h1.textContent.trim() : ''];
}
"""

# Another page drawn: the address is `path`, and the main area's title is no longer `old`.
_ARRIVED_JS = """
([path, old]) => {
  const h1 = document.querySelector("[data-testid='stMain'] h1");
  const title = h1 ? h1.textContent.trim() : '';
  return location.pathname.replace(/\\/+$/, '').endsWith(path) && !!title && title !== old && (DRAWN)();
}
""".replace("DRAWN", DRAWN_JS.strip())


# --- waiting and navigation ---------------------------------------------------------


def run_count(page) -> int:
    """Script runs finished so far (see the module docstring: only where nothing visible tells)."""
    return int(page.evaluate("() => window.__stRuns || 0"))


def wait_idle(page, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    page.wait_for_function(_IDLE_JS, timeout=timeout_ms)


def wait_drawn(page, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Wait until the page shows a finished run, drawn (DRAWN_JS)."""
    page.wait_for_function(DRAWN_JS, timeout=timeout_ms)


def wait_for_run(page, since: int, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Wait until a script run that ended after `since` (a run_count) has been drawn. With
    ``since=0`` on a page just opened, that is its first run: the page drawn is enough."""
    if since == 0:
        wait_drawn(page, timeout_ms)
        return
    page.wait_for_function(RAN_SINCE_JS, arg=since, timeout=timeout_ms)


def wait_charts(page, timeout_ms: int = 30_000) -> None:
    wait_drawn(page, timeout_ms)


def open_app(page, base_url: str, path: str = "") -> None:
    """Load the app (optionally a page by url path) and wait until it shows that page."""
    page.goto(f"{base_url}/{path}")
    page.wait_for_selector("[data-testid='stApp']", state="attached")
    wait_drawn(page)


def nav_titles(page) -> list[str]:
    """The page titles in the sidebar navigation, in order."""
    spans = page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink'] span[label]")
    return [spans.nth(i).get_attribute("label") or "" for i in range(spans.count())]


def nav_link(page, title: str):
    return page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink']").filter(
        has=page.locator(f"span[label={json.dumps(title)}]")
    )


def go_to(page, title: str) -> None:
    """Open a page through the sidebar navigation, by its title, and wait until it is shown:
    its address, a title other than the last page's, drawn."""
    link = nav_link(page, title)
    if link.count() != 1:
        raise AssertionError(f"no single sidebar link {title!r}; the navigation shows {nav_titles(page)}")
    path = next((p for t, p, _ in PAGES if t == title), None)
    _, old = page.evaluate(_WHERE_JS)
    link.click()
    if path is None:  # not in the page list: the address cannot tell, a run must
        wait_drawn(page)
        return
    page.wait_for_function(_ARRIVED_JS, arg=["/" + path if path else "", old], timeout=RUN_TIMEOUT_MS)


def follow(page, link, path: str) -> None:
    """Click a link to another page of the app (st.page_link) and wait until that page, at url
    path ``path``, is shown: its address, a title other than this page's, drawn."""
    _, old = page.evaluate(_WHERE_JS)
    link.click()
    page.wait_for_function(_ARRIVED_JS, arg=["/" + path if path else "", old], timeout=RUN_TIMEOUT_MS)


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
