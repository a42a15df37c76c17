"""Drivers and readers for the classroom features (issue #14) in a real Chromium: presenter
mode's progress line and sizes, the predict-then-reveal widgets, downloads captured from the
browser (tests/support/downloads.py reads them back), and the "Show as table" HTML table.

Every driver that changes a widget waits for the rerun it caused (waits.wait_for_run).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.browser.checks import chart_data
from tests.support.browser.waits import RUN_TIMEOUT_MS, run_count, wait_for_run

PROJECTOR = {"width": 1280, "height": 720}  # a 720p classroom projector
PRESENT_PX = 22.0  # body text in presenter mode, as issue #14 asks (assets/present.css)
MAIN = "[data-testid='stMain']"
PROGRESS = re.compile(r"^(Step|Section|View) \d+ of \d+")

# The computed font size (px) of the first main-area paragraph starting with `start`.
_PARAGRAPH_PX_JS = """
(start) => {
  const ps = Array.from(document.querySelectorAll("[data-testid='stMain'] [data-testid='stMarkdownContainer'] p"));
  const p = ps.find(e => e.textContent.trim().startsWith(start));
  return p ? parseFloat(getComputedStyle(p).fontSize) : null;
}
"""

# Every chart's x tick labels in the main area, with the computed font size of each, as Plotly drew them.
_TICKS_JS = """
() => Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")).map(plot =>
  Array.from(plot.querySelectorAll('.xtick text')).map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize)]))
"""

# The sidebar as the browser shows it: Streamlit's collapsed flag and where the panel lies.
_SIDEBAR_JS = """
() => {
  const s = document.querySelector("[data-testid='stSidebar']");
  if (!s) return null;
  const r = s.getBoundingClientRect();
  return {collapsed: s.getAttribute('data-collapsed'), right: r.right, width: r.width};
}
"""

_NOT_RUNNING_JS = """
() => document.querySelector("[data-testid='stApp']")?.getAttribute('data-test-script-state') === 'notRunning'
"""

# An st.table as text: the header row's cells, then each body row's cells (row label first).
_TABLE_JS = """
(table) => ({
  header: Array.from(table.querySelectorAll('thead tr:last-child th')).map(c => c.innerText.trim()),
  rows: Array.from(table.querySelectorAll('tbody tr'))
    .map(tr => Array.from(tr.querySelectorAll('th, td')).map(c => c.innerText.trim())),
})
"""


# --- what the page shows ---------------------------------------------------------------


def chart_titles(page) -> list[str]:
    """The titles of the Plotly charts in the main area, top to bottom."""
    return [chart["title"] for chart in chart_data(page)]


def chart_boxes(page) -> int:
    """How many st.plotly_chart elements the main area holds (drawn or not)."""
    return page.locator(f"{MAIN} [data-testid='stPlotlyChart']").count()


def paragraph_px(page, start: str) -> float | None:
    return page.evaluate(_PARAGRAPH_PX_JS, start)


def tick_labels(page) -> list[list[tuple[str, float]]]:
    """Per chart, its x tick labels and their computed font sizes in px."""
    return [[(text, float(px)) for text, px in chart] for chart in page.evaluate(_TICKS_JS)]


def sidebar(page) -> dict:
    return page.evaluate(_SIDEBAR_JS)


def progress_lines(page) -> list[str]:
    """Presenter mode's progress line(s), e.g. ["Step 4 of 9 · Queries, keys and values"]."""
    lines = page.locator(f"{MAIN} [data-testid='stMarkdownContainer'] :is(p, h2)").filter(has_text=PROGRESS)
    return [t.strip() for t in lines.all_inner_texts() if PROGRESS.match(t.strip())]


def alerts(page) -> list[str]:
    return [t.strip() for t in page.locator(f"{MAIN} [data-testid='stAlert']").all_inner_texts()]


def answers(page) -> list[str]:
    """The revealed answers ("The answer: ..."), top to bottom."""
    return [t for t in alerts(page) if t.startswith("The answer:")]


def score_lines(page) -> list[str]:
    return [
        t.strip()
        for t in page.locator(f"{MAIN} [data-testid='stCaptionContainer']").all_inner_texts()
        if t.strip().startswith("Your predictions this session:")
    ]


# --- driving widgets ---------------------------------------------------------------------
#
# A rerun's "script finished" message reaches the test's WebSocket listener before the app
# has drawn that run: on a loaded machine the app can lag seconds behind, still showing the
# previous run, not running and with nothing stale (waits.RAN_SINCE_JS's 150 ms grace is
# not enough). So an action that changes what the page shows waits first for that change
# (`until`, checked on what the browser shows), and only then for the run to end: once the
# app shows the new run's content, its script state and stale marks describe that run.

Check = Callable[[], bool]


def eventually(page, check: Check, what: str, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Poll `check` until it holds; fail saying `what` was awaited."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_ms / 1000:.0f} s waiting for {what}")
        page.wait_for_timeout(100)


def act(page, action: Callable[[], None], until: Check | None, what: str) -> None:
    """Do `action`, wait until the page shows its effect (`until`), then for its run to end.
    Without `until` (an action that changes nothing the page shows), wait for the run and
    then until no further run ends for a while."""
    since = run_count(page)
    action()
    if until is not None:
        eventually(page, until, what)
    wait_for_run(page, since)
    if until is None:
        settle(page)


def settle(page, quiet_ms: int = 600) -> None:
    """Wait until the app is idle and no further script run finishes within `quiet_ms`."""
    while True:
        runs = run_count(page)
        page.wait_for_timeout(quiet_ms)
        if run_count(page) == runs and page.evaluate(_NOT_RUNNING_JS):
            return
        wait_for_run(page, runs)


def click(page, locator, until: Check | None, what: str = "the click's rerun") -> None:
    """Click a button; wait until the page shows `until` and the run has ended."""
    act(page, locator.click, until, what)


def main_button(page, name: str, nth: int = 0):
    return page.locator(MAIN).get_by_role("button", name=name, exact=True).nth(nth)


def _labelled(page, testid: str, label: str, nth: int):
    exact = re.compile(rf"^\s*{re.escape(label)}\s*$")
    return (
        page.locator(f"[data-testid='{testid}']")
        .filter(has=page.locator("[data-testid='stWidgetLabel']", has_text=exact))
        .nth(nth)
    )


def choose(page, label: str, option: str, until: Check | None = None, nth: int = 0) -> None:
    """Pick `option` in the select box labelled `label` (the nth of that name). Streamlit
    1.67's select box is a react-aria combo box: the arrow key opens its list. A box in a
    form runs nothing: its value goes with the form's submit button, so nothing is awaited."""
    box = _labelled(page, "stSelectbox", label, nth)
    in_form = box.locator("xpath=ancestor::*[@data-testid='stForm']").count() > 0
    field = box.locator("input")
    if field.input_value() == option:
        return
    listed = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):  # a key press that lands while the box re-renders is lost: press again
        field.focus()
        field.press("ArrowDown")
        try:
            listed.wait_for(timeout=3000)
            break
        except PlaywrightTimeoutError:
            field.press("Escape")
    if in_form:
        listed.click()
    else:
        act(page, listed.click, until, f"the page after picking {option!r} in {label!r}")
    assert field.input_value() == option, f"{label!r} shows {field.input_value()!r}, not {option!r}"


def slide(page, label: str, presses: int, until: Check | None = None, nth: int = 0) -> str:
    """Move the slider labelled `label` by `presses` arrow keys (negative: left); returns
    the value it then shows."""
    widget = _labelled(page, "stSlider", label, nth)
    thumb = widget.locator("input[type='range']").first

    def press() -> None:
        thumb.focus()
        for _ in range(abs(presses)):
            thumb.press("ArrowRight" if presses > 0 else "ArrowLeft")

    act(page, press, until, f"the page after moving {label!r}")
    return widget.locator("[data-testid='stSliderThumbValue']").inner_text().strip()


def switch_on(page, key: str, until: Check) -> None:
    """Turn on the st.toggle with widget key `key`."""
    toggle = page.locator(f".st-key-{key}")
    box = toggle.locator("input[type='checkbox']")
    if box.is_checked():
        return
    click(page, toggle.locator("label"), until, f"the page after switching on {key!r}")
    assert box.is_checked(), f"the switch {key!r} did not turn on"


# --- downloads ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Download:
    name: str  # the file name the browser was told
    data: bytes


def download(page, locator, settle_ms: int = 800) -> Download:
    """Click a download control, capture the file the browser saves, and check the click
    caused no script rerun (st.download_button(on_click="ignore"), chart toolbar buttons)."""
    before = run_count(page)
    with page.expect_download() as info:
        locator.click()
    got = info.value
    path = got.path()
    assert got.failure() is None, f"{got.suggested_filename}: {got.failure()}"
    with open(path, "rb") as f:
        data = f.read()
    page.wait_for_timeout(settle_ms)  # a rerun the click caused would have finished by now
    assert run_count(page) == before, f"downloading {got.suggested_filename} reran the page"
    return Download(got.suggested_filename, data)


def download_button(page, key: str):
    """The visible button of the st.download_button with widget key `key` (Streamlit also
    renders a hidden copy to measure it)."""
    return page.locator(f".st-key-{key} button:visible")


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG: {data[:8]!r}"
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


# --- tables ------------------------------------------------------------------------------


def html_table(locator) -> tuple[list[str], list[list[str]]]:
    """An st.table's header cells and body rows as the browser shows them."""
    table = locator.evaluate(_TABLE_JS)
    return table["header"], table["rows"]
