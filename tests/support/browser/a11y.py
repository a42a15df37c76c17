"""Accessibility checks in a real Chromium: axe-core run on a page (as it is, with a chart's
table shown, with "Predict first" on), every chart's accessible name, the table a "Show as
table" switch shows, what the keyboard focus is on and whether it can be seen, and driving
widgets from the keyboard.

axe-core is vendored (tests/support/browser/vendor/axe.min.js, axe-core 4.14.1 from the npm package
`axe-core`, unmodified; licence MPL-2.0, its text in vendor/axe-core-LICENSE; source code at
https://github.com/dequelabs/axe-core). The PyPI package axe-playwright-python 0.1.8 bundles
axe-core 4.12.1, older than the 4.14 the issue was measured with, so the file is injected
here instead. To update it: `npm pack axe-core@4.14.x`, copy package/axe.min.js and LICENSE,
and check its sha256 against package/sri-history.json.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from attn_core import tables
from tests.support.browser.waits import run_count, wait_for_run

AXE_PATH = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_VERSION = "4.14.1"
# WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

_axe_source: str | None = None


def _source() -> str:
    global _axe_source
    if _axe_source is None:
        _axe_source = AXE_PATH.read_text(encoding="utf-8")
    return _axe_source


_RUN_JS = """
async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return {version: axe.version, violations: result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                              summary: (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 300)})),
  }))};
}
"""


def axe_violations(page, tags: tuple[str, ...] = WCAG_TAGS) -> list[dict]:
    """axe-core's violations of ``tags`` on the page as it is now (injected on first use):
    [{id, impact, help, nodes: [{target, html, summary}]}]."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_source())
    result = page.evaluate(_RUN_JS, list(tags))
    if result["version"] != AXE_VERSION:
        raise AssertionError(f"expected axe-core {AXE_VERSION}, the page ran {result['version']}")
    return result["violations"]


def report(violations: list[dict], max_nodes: int = 4) -> str:
    """Violations as readable lines: rule, impact, help, then a few offending elements."""
    lines = []
    for v in violations:
        lines.append(f"[{v['id']}] ({v['impact']}) {v['help']}: {len(v['nodes'])} element(s)")
        for node in v["nodes"][:max_nodes]:
            lines.append(f"    {node['target']}  {node['html'][:120]}")
            if node["summary"]:
                lines.append(f"      {node['summary'][:240]}")
    return "\n".join(lines)


# Every chart's main <svg> (the first one in each chart): its role and accessible name, and
# the description the server computed (layout.meta, a string).
CHART_NAMES_JS = """
() => Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")).map(plot => {
  const svg = plot.querySelector('svg.main-svg');
  const layout = plot.layout || {};
  return {
    title: plot._fullLayout && plot._fullLayout.title ? plot._fullLayout.title.text : '',
    role: svg ? svg.getAttribute('role') : null,
    label: svg ? svg.getAttribute('aria-label') : null,
    description: typeof layout.meta === 'string' ? layout.meta : null,
  };
})
"""


def chart_names(page) -> list[dict]:
    return page.evaluate(CHART_NAMES_JS)


# Keyboard focus, one Tab stop at a time. `record` notes the focused element (inside shadow
# roots too) and how its widget looks while it has focus; `indicators`, once focus has left,
# says for each recorded stop which visible part of its widget drew an outline or a
# box-shadow only while it had focus: its focus indicator (none = focus cannot be seen).
# A widget is the element's Streamlit element container, or the element alone when it holds
# whole containers (the main area) or sits in none (the sidebar's page links).
FOCUS_JS = r"""
(() => {
  const widget = el => {
    if (el.querySelector('.stElementContainer')) return el;
    return el.closest('.stElementContainer') || el.closest('li') || el;
  };
  const parts = root => {
    const whole = root.querySelector('.stElementContainer');  // the main area: itself, not its contents
    const nodes = whole ? [root] : [root, ...root.querySelectorAll('*')];
    for (let n = root.parentElement, d = 0; n && d < 3; n = n.parentElement, d++) nodes.push(n);
    return nodes;
  };
  const look = node => {
    const s = getComputedStyle(node);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
      ? `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor} ${s.outlineOffset}` : 'none';
    return `${outline}|${s.boxShadow}`;
  };
  // Seen on screen: not transparent or hidden, and neither it nor a box that clips it (a
  // visually hidden wrapper, as round a switch's own checkbox) is under 4 px.
  const visible = node => {
    if (!node.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    for (let n = node; n && n !== document.body; n = n.parentElement) {
      const r = n.getBoundingClientRect(), s = getComputedStyle(n);
      const clips = n === node || s.overflow !== 'visible' || s.clipPath !== 'none' || s.clip !== 'auto';
      if (clips && (r.width < 4 || r.height < 4)) return false;
    }
    return true;
  };
  window.__focusStops = [];
  return {
    async record() {
      let el = document.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      if (!el || el === document.body) return null;
      const root = widget(el);
      const nodes = parts(root);
      // Let the widget's CSS transitions end first: some indicators fade in (a heading's
      // link, a chart's mode bar). Disabling transitions instead would change what focus
      // does: an element shown only while its neighbour has focus would vanish before Tab
      // reached it.
      const mine = new Set(nodes);
      const moving = document.getAnimations()
        .filter(a => a instanceof CSSTransition && a.effect && mine.has(a.effect.target))
        .map(a => a.finished.catch(() => null));
      await Promise.race([Promise.all(moving), new Promise(done => setTimeout(done, 1000))]);
      window.__focusStops.push({el, nodes, looks: nodes.map(look), seen: nodes.map(visible)});
      const owner = el.closest('[data-testid]');
      const text = el.getAttribute('aria-label') || el.innerText || el.value || el.getAttribute('title') || '';
      return {
        index: window.__focusStops.length - 1,
        order: el.dataset.a11yOrder === undefined ? null : Number(el.dataset.a11yOrder),
        tag: el.tagName.toLowerCase(),
        role: el.getAttribute('role'),
        name: text.trim().replace(/\s+/g, ' ').slice(0, 60),
        testid: owner ? owner.getAttribute('data-testid') : null,
        where: el.closest("[data-testid='stSidebar']") ? 'sidebar'
          : el.closest("[data-testid='stMain']") ? 'main' : 'page',
      };
    },
    indicators() {
      return window.__focusStops.map(({nodes, looks, seen}) => {
        const drawn = nodes.map((node, k) => ({node, k})).filter(({node, k}) =>
          node.isConnected && seen[k] && looks[k] !== look(node) && looks[k] !== 'none|none');
        if (!drawn.length) return null;
        const {node} = drawn[0];
        return `${node.tagName.toLowerCase()}${node.dataset.testid ? '[' + node.dataset.testid + ']' : ''}`;
      });
    },
  };
})()
"""


def focus_tracker(page):
    """A JSHandle with record() and indicators() (see FOCUS_JS), made fresh on the page."""
    return page.evaluate_handle(FOCUS_JS)


# --------------------------------------------------------------------------- what a page's states must pass


def switch(page, label: str, scope: str = "body"):
    """The first switch (st.toggle) labelled ``label`` inside ``scope``, or None."""
    found = page.locator(f"{scope} [data-testid='stCheckbox']").filter(
        has=page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    )
    return found.first if found.count() else None


def flip(page, toggle) -> None:
    """Switch it on (click its label, as a student would) and wait for the rerun."""
    since = run_count(page)
    toggle.locator("label").first.click()
    wait_for_run(page, since)
    assert toggle.locator("input").first.is_checked(), "the switch did not turn on"


# The table a "Show as table" switch shows, read from the switch: ui.charts.table_controls
# puts the switch in a row, and the table right after that row.
TABLE_JS = """
(switchBox) => {
  let item = switchBox.closest("[data-testid='stHorizontalBlock']") || switchBox;
  while (item.parentElement && item.parentElement.dataset.testid !== 'stVerticalBlock') item = item.parentElement;
  const next = item.nextElementSibling;
  const box = next && next.querySelector("[data-testid='stTable']");
  const table = box && box.querySelector('table');
  if (!table) return null;
  const region = box.querySelector("[role='region']");
  const px = Array.from(table.querySelectorAll('th, td'), c => parseFloat(getComputedStyle(c).fontSize));
  return {
    cols: Array.from(table.querySelectorAll("thead th[scope='col']"), th => th.innerText.trim()),
    rows: Array.from(table.querySelectorAll("tbody tr"), tr => {
      const head = tr.querySelector("th[scope='row']");
      return [head ? head.innerText.trim() : null, ...Array.from(tr.querySelectorAll('td'), td => td.innerText.trim())];
    }),
    region: region ? [region.getAttribute('tabindex'), region.getAttribute('aria-label')] : null,
    px: px.length ? Math.min(...px) : null,  // the smallest cell's computed font size
  };
}
"""


def shown_table(page, toggle, timeout_s: float = 10.0) -> dict | None:
    """The table below a switched-on "Show as table" (TABLE_JS), once it is drawn and
    assets/chart_tools.js has made its box a region (a run that ended just before the
    switch's own would let wait_for_run return before the table came)."""
    deadline = time.monotonic() + timeout_s
    while ((table := toggle.evaluate(TABLE_JS)) is None or table["region"] is None) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    return table


def _label(text: str) -> bool:
    """A table's label as attn_core.tables.labelled makes it: a token numbered by its position
    ("3:cat"), or a layer or head with its own number from 1 ("layer 2", "head 5")."""
    return bool(re.match(r"^\d+:", text)) or bool(tables.NAMED.fullmatch(text))


def table_problems(table: dict | None) -> list[str]:
    """What keeps a shown table from being an accessible table with token labels."""
    if table is None:
        return ["no <table> was shown"]
    out = []
    labels = table["cols"][1:]  # the first header cell names the row labels' column
    if not labels or not all(_label(c) for c in labels):
        out.append(f"column headers are not the numbered labels: {table['cols'][:6]}")
    if not table["rows"] or any(not r[0] or not _label(r[0]) for r in table["rows"]):
        out.append(f"rows lack a row header: {[r[:2] for r in table['rows'][:3]]}")
    if any(len(r) != len(table["cols"]) for r in table["rows"]):
        out.append("rows and header differ in length")
    if table["region"] is None or table["region"][0] != "0" or not (table["region"][1] or "").startswith("Table"):
        out.append(f"its scroll box is not a named, focusable region: {table['region']}")
    return out


def unnamed_charts(page) -> list[str]:
    """Charts whose drawing is not an image named by its description."""
    bad = []
    for n, chart in enumerate(chart_names(page)):
        label = (chart["label"] or "").strip()
        if chart["role"] != "img" or not label or label != chart["description"]:
            bad.append(f"chart {n} {chart['title']!r}: role={chart['role']!r} aria-label={chart['label']!r}")
    return bad


def on_screen(locator) -> bool:
    return locator.evaluate("el => { const r = el.getBoundingClientRect(); return r.right > 0 && r.left < innerWidth }")


def open_sidebar(page) -> None:
    """Presenter mode starts with the sidebar collapsed: open it with its button."""
    page.locator("[data-testid='stExpandSidebarButton']").click()
    page.wait_for_function("() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().x >= 0")


def violations(where: str, found: list[dict]) -> list[str]:
    """axe-core's violations as one problem line (none when clean)."""
    return [f"{where}: axe-core found WCAG 2.1 A/AA violations\n{report(found)}"] if found else []


def with_table(page, where: str, present_px: float | None = None) -> list[str]:
    """The first chart's "Show as table" switched on (when the page has one), then axe-core on the
    page: the page as it was, plus the table. The shown table must be an accessible table with
    token labels, and in presenter mode (``present_px``) drawn at that size or more."""
    problems = [f"{where}: {p}" for p in unnamed_charts(page)]
    toggle = switch(page, "Show as table", "[data-testid='stMain']")
    if toggle is not None:
        flip(page, toggle)
        table = shown_table(page, toggle)
        problems += [f"{where}, table: {p}" for p in table_problems(table)]
        if present_px is not None and table is not None and (table["px"] or 0) < present_px:
            problems.append(f"{where}, table: its cells are drawn at {table['px']} px, under {present_px} px")
    return problems + violations(f"{where}{' with a table shown' if toggle is not None else ''}", axe_violations(page))


def with_predict_first(page, where: str) -> list[str]:
    """ "Predict first" switched on (when the page has it; opening the sidebar where it waits
    there), then axe-core and the chart names."""
    toggle = switch(page, "Predict first")
    if toggle is None:
        return []
    if not on_screen(toggle):
        open_sidebar(page)
    flip(page, toggle)
    return violations(f"{where} with Predict first on", axe_violations(page)) + [
        f"{where} with Predict first on: {p}" for p in unnamed_charts(page)
    ]


# --------------------------------------------------------------------------- the keyboard


def tab_to(page, label: str, limit: int = 250) -> int:
    """Press Tab until the element with accessible label or text ``label`` has focus;
    returns how many presses it took."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(
            """(label) => { const e = document.activeElement;
                 return !!e && ((e.getAttribute('aria-label') || '').trim() === label
                                || (e.innerText || '').trim() === label); }""",
            label,
        ):
            return n
    raise AssertionError(f"{limit} presses of Tab never reached {label!r}")


def pick_with_keys(page, label: str) -> str:
    """With focus on the select box ``label``: open it with ArrowDown, move one option
    down, choose it with Enter, and wait for the rerun. Returns the value it then shows."""
    box = page.locator(f"input[role='combobox'][aria-label='{label}']")
    before = box.input_value()
    since = run_count(page)
    page.keyboard.press("ArrowDown")
    page.wait_for_selector("[role='listbox'] [role='option']")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait_for_run(page, since)
    after = box.input_value()
    assert after != before, f"{label}: the keyboard left the value at {before!r}"
    return after


# Every element Tab should reach, in page order, each marked with its place (read back by
# the focus tracker's record()): links, buttons, inputs and anything with tabindex >= 0, not
# disabled, not hidden, not inside something hidden from assistive technology. Radio groups
# count once (Tab reaches the checked one; arrows move inside).
ORDER_JS = """
() => {
  const sel = 'a[href], button, input, select, textarea, [tabindex]';
  const all = Array.from(document.querySelectorAll(sel)).filter(el =>
    el.tabIndex >= 0 && !el.disabled && !el.closest('[aria-hidden="true"], [inert]')
    && el.checkVisibility({visibilityProperty: true}));
  return all.map((el, k) => {
    el.dataset.a11yOrder = String(k);
    const owner = el.closest('[data-testid]');
    const text = el.getAttribute('aria-label') || el.innerText || el.value || '';
    return `${el.tagName.toLowerCase()}[${owner ? owner.dataset.testid : ''}] ${text.trim().slice(0, 40)}`;
  });
}
"""

# The checked option of the radio group labelled ``label``.
CHECKED_RADIO_JS = """
(label) => {
  const group = Array.from(document.querySelectorAll("[data-testid='stRadio']")).find(r =>
    (r.querySelector("[data-testid='stWidgetLabel']") || {}).innerText?.trim() === label);
  const input = group && group.querySelector('input:checked');
  return input ? input.closest('label').innerText.trim() : null;
}
"""
