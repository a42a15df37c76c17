"""Read a page back and say what is wrong with it: Plotly chart data and NaN in it, text
under 12 px, markup made from user input, exceptions, JS errors, dialogs and requests that
left localhost; and screenshots for a person to look at."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.browser.server import ARTIFACTS, VIEWPORT, StreamlitServer

MIN_FONT_PX = 12.0

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


# Visible text in the main area whose computed font size is under the limit (HTML text,
# KaTeX and the Plotly SVG text alike). Hidden nodes, the screen-reader copy of KaTeX and
# toolbars are ignored.
SMALL_TEXT_JS = """
(minPx) => {
  const root = document.querySelector("[data-testid='stMain']");
  if (!root) return [];
  // A heatmap's cell numbers are fitted to their cells by assets/chart_tools.js, down to 9 px, and
  // checked against that floor by tests/support/browser/screens.py (cell_problems).
  const skip = "[data-testid='stToolbar'], [data-testid='stElementToolbar'], .katex-mathml, .modebar-container, "
             + ".heatmap-label, style, script, noscript, template";
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


def link_problems(page, watch: Watch, server: StreamlitServer | None = None) -> list[str]:
    """``problems``, less the 404 a deep link causes (Streamlit probes /<page>/_stcore/health)."""
    return [p for p in problems(page, watch, server) if "404" not in p]


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
