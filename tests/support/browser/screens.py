"""What a screen shows, measured in the browser (issue #23): where each chart lies against the
viewport, how large the body text is, whether a heatmap's cell numbers stay inside their cells and
apart, whether each chart title lies within its chart, and whether the page scrolls sideways.

``settle`` waits until a resize or a rerun has been drawn: every chart drawn at the size of its
box, and no change on the page for a moment (assets/chart_tools.js fits the numbers and titles
right after Plotly draws, and those changes count too).
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser.waits import PLOT_DRAWN_JS

PROJECTORS = ({"width": 1280, "height": 720}, {"width": 1024, "height": 768}, {"width": 1920, "height": 1080})
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LARGEST_SHARE = 0.40  # the largest chart of a presenter section: at least this share of the screen's height
BODY_PX = 20.0  # body text in presenter mode, at least
QUIET_MS = 300  # no change on the page for this long: the drawing is done

# Every chart drawn at its box's size, and the page quiet (RUN_COUNTER_JS stamps every change).
_SETTLED_JS = """
(quietMs) => {
  const MIN_PLOT_PX = 150;  // Streamlit draws a Plotly chart at least this wide, whatever its column
  const plots = Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot"));
  const drawn = plots.every(p => {
    if (!p.checkVisibility()) return true;
    const box = p.getBoundingClientRect();
    return (PLOT_DRAWN)(p)
      && Math.abs(p._fullLayout.width - Math.max(box.width, MIN_PLOT_PX)) < 2
      && Math.abs(p._fullLayout.height - box.height) < 2;
  });
  const app = document.querySelector("[data-testid='stApp']");
  return drawn && app && app.getAttribute('data-test-script-state') === 'notRunning'
    && performance.now() - (window.__stChangedAt || 0) > quietMs;
}
""".replace("PLOT_DRAWN", PLOT_DRAWN_JS)

# The screen as measured: the viewport, sideways scrolling, every visible chart's box and title,
# the body text's font sizes, and each heatmap's cell numbers against their cells.
_MEASURE_JS = r"""
() => {
  const main = document.querySelector("[data-testid='stMain']");
  const round = r => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height});
  const charts = [], cells = [];
  for (const plot of main.querySelectorAll('.js-plotly-plot')) {
    if (!plot.checkVisibility()) continue;
    const full = plot._fullLayout;
    const svg = plot.querySelector('svg.main-svg').getBoundingClientRect();
    const title = plot.querySelector('.g-gtitle text.gtitle');
    const note = plot.querySelector('text.chart-fit-note');
    const name = (full.title && full.title.text) || '';
    // The chart's own words (its title and the note under it, axis titles, panel names), each
    // box once: none may run into another ("d_k dimensid_k dimension").
    const words = [];
    for (const t of plot.querySelectorAll(
        '.g-gtitle text.gtitle, [class^="g-x"][class$="title"] text, [class^="g-y"][class$="title"] text, '
        + 'g.annotation-text-g text, text.chart-fit-note')) {
      if (!t.textContent.trim() || !t.checkVisibility({visibilityProperty: true})) continue;
      words.push({text: t.textContent.trim().slice(0, 40), box: round(t.getBoundingClientRect())});
    }
    charts.push({name, words, box: round(plot.getBoundingClientRect()), svg: round(svg),
                 title: title && title.textContent.trim() ? round(title.getBoundingClientRect()) : null,
                 note: note ? round(note.getBoundingClientRect()) : null});
    for (const group of plot.querySelectorAll('.heatmaplayer .hm')) {
      const trace = group.__data__ && group.__data__[0] && group.__data__[0].trace;
      if (!trace) continue;
      const xa = full['xaxis' + (trace.xaxis || 'x').slice(1)], ya = full['yaxis' + (trace.yaxis || 'y').slice(1)];
      const w = xa._length / Math.abs(xa.range[1] - xa.range[0]), h = ya._length / Math.abs(ya.range[1] - ya.range[0]);
      const shown = [];
      for (const text of group.querySelectorAll('.heatmap-label text')) {
        if (!text.textContent.trim() || !text.checkVisibility({visibilityProperty: true})) continue;
        const d = text.__data__ || text.parentNode.__data__;
        const x = svg.left + xa._offset + d.x, y = svg.top + ya._offset + d.y;
        shown.push({text: text.textContent, px: parseFloat(getComputedStyle(text).fontSize),
                    box: round(text.getBoundingClientRect()),
                    cell: {left: x - w / 2, right: x + w / 2, top: y - h / 2, bottom: y + h / 2}});
      }
      if (shown.length) cells.push({chart: name, trace: trace.name || '', labels: shown});
    }
  }
  const body = [];
  for (const el of main.querySelectorAll("[data-testid='stMarkdown'] :is(p, li), [data-testid='stCaptionContainer']")) {
    if (!el.checkVisibility() || !el.textContent.trim()) continue;
    if (el.closest("[data-testid='stWidgetLabel'], button")) continue;
    body.push({text: el.textContent.trim().slice(0, 50), px: parseFloat(getComputedStyle(el).fontSize)});
  }
  return {width: innerWidth, height: innerHeight, charts, cells, body,
          sideways: Math.max(document.documentElement.scrollWidth - innerWidth, main.scrollWidth - main.clientWidth)};
}
"""


@dataclass(frozen=True)
class Screen:
    """One screen's measurements (see _MEASURE_JS)."""

    where: str  # page, section and size, for messages
    data: dict

    def charts_off_screen(self) -> list[str]:
        """Charts not fully on the first screen (1 px of rounding allowed)."""
        w, h = self.data["width"], self.data["height"]
        return [
            f"{c['name']!r} at {_box(c['box'])}"
            for c in self.data["charts"]
            if c["box"]["left"] < -1 or c["box"]["top"] < -1 or c["box"]["right"] > w + 1 or c["box"]["bottom"] > h + 1
        ]

    def largest_share(self) -> float:
        """The tallest chart's height as a share of the screen's; for charts in a grid of two rows
        or more, the height of the tallest column of charts (a column of two charts of 36 % fills
        as much of the screen as one of 72 %)."""
        charts = [c["box"] for c in self.data["charts"]]
        columns: dict[int, float] = {}
        for box in charts:
            left = round(box["left"] / 8)  # charts above one another share their left edge
            columns[left] = columns.get(left, 0.0) + box["height"]
        return max(columns.values(), default=0.0) / self.data["height"]

    def small_body_text(self, min_px: float = BODY_PX) -> list[str]:
        return [f"{b['text']!r} at {b['px']} px" for b in self.data["body"] if b["px"] < min_px - 0.01]

    def titles_outside(self) -> list[str]:
        """Chart titles (and the notes under them) that reach past their chart's drawing."""
        out = []
        for c in self.data["charts"]:
            for what in ("title", "note"):
                box, svg = c[what], c["svg"]
                if box and not _inside(box, svg):
                    out.append(f"{what} of {c['name']!r}: {_box(box)} outside {_box(svg)}")
        return out

    def words_overlapping(self) -> list[str]:
        """A chart's title, note, axis titles and panel names that run into one another."""
        out = []
        for c in self.data["charts"]:
            words = c["words"]
            out += [
                f"{c['name']!r}: {a['text']!r} {_box(a['box'])} and {b['text']!r} {_box(b['box'])} overlap"
                for i, a in enumerate(words)
                for b in words[i + 1 :]
                if _words_collide(a["box"], b["box"])
            ]
        return out

    def cell_problems(self) -> list[str]:
        """Heatmap cell numbers that spill out of their cell, overlap another, or are smaller than
        the chart tools allow (9 px: smaller, a number loses digits, then is left out)."""
        least = 9
        out = []
        for trace in self.data["cells"]:
            labels = trace["labels"]
            where = f"{trace['chart']!r} {trace['trace']}".strip()
            out += [f"{where}: {x['text']!r} at {x['px']} px" for x in labels if x["px"] < least - 0.01]
            out += [
                f"{where}: {x['text']!r} {_box(x['box'])} spills out of its cell {_box(x['cell'])}"
                for x in labels
                if not _inside(x["box"], x["cell"])
            ]
            ordered = sorted(labels, key=lambda x: x["box"]["left"])
            for i, a in enumerate(ordered):
                for b in ordered[i + 1 :]:
                    if b["box"]["left"] >= a["box"]["right"]:
                        break
                    if _overlap(a["box"], b["box"]):
                        out.append(f"{where}: {a['text']!r} and {b['text']!r} overlap")
        return out

    def scrolls_sideways(self) -> float:
        """How many pixels the page (or its main area) scrolls sideways."""
        return max(0.0, float(self.data["sideways"]))

    def heatmap_labels(self) -> int:
        return sum(len(t["labels"]) for t in self.data["cells"])


def _inside(box: dict, outer: dict, slack: float = 0.75) -> bool:
    return (
        box["left"] >= outer["left"] - slack
        and box["right"] <= outer["right"] + slack
        and box["top"] >= outer["top"] - slack
        and box["bottom"] <= outer["bottom"] + slack
    )


def _overlap(a: dict, b: dict) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and (
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    )


def _words_collide(a: dict, b: dict) -> bool:
    """Two lines of text drawn into each other. A text's box holds its font's whole line height,
    so a title and the note right under it share a pixel or two of box without touching: they
    collide only when they share over 3 px sideways and a third of the lower one's height."""
    across = min(a["right"], b["right"]) - max(a["left"], b["left"])
    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return across > 3 and down > min(a["height"], b["height"]) / 3


def _box(r: dict) -> str:
    return f"({r['left']:.0f}, {r['top']:.0f})-({r['right']:.0f}, {r['bottom']:.0f})"


def small_targets(page) -> list[str]:
    """Controls too small, or too close together, for a thumb: axe-core's WCAG 2.2 AA rules (its
    target-size rule, 2.5.8: at least 24 × 24 px, or that far from the next control), on the whole
    document, the sidebar's controls too."""
    from tests.support.browser.a11y import axe_violations

    return [f"[{v['id']}] {n['html'][:120]}" for v in axe_violations(page, ("wcag22aa",)) for n in v["nodes"]]


_UNSETTLED_JS = """
() => Array.from(document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot"))
  .filter(p => p.checkVisibility())
  .map(p => {
    const box = p.getBoundingClientRect(), full = p._fullLayout || {};
    const key = (p.closest("[class*='st-key-']") || {className: ''}).className.match(/st-key-\\S+/);
    return {key: key && key[0], drawn: [full.width, full.height], box: [box.width, box.height]};
  })
  .filter(c => !(Math.abs(c.drawn[0] - Math.max(c.box[0], 150)) < 2 && Math.abs(c.drawn[1] - c.box[1]) < 2))
"""


def settle(page, timeout_ms: int = 30_000) -> None:
    """Wait until the script has finished, every visible chart is drawn at its box's size, and
    nothing on the page changed for QUIET_MS."""
    try:
        page.wait_for_function(_SETTLED_JS, arg=QUIET_MS, polling=100, timeout=timeout_ms)
    except PlaywrightTimeout:
        state = page.evaluate("() => document.querySelector(\"[data-testid='stApp']\").dataset.testScriptState")
        raise AssertionError(
            f"the page did not settle in {timeout_ms / 1000:.0f} s at {page.viewport_size}: script {state}, "
            f"charts not drawn at their size: {page.evaluate(_UNSETTLED_JS)}"
        ) from None


def resize(page, size: dict) -> None:
    """Resize the window and wait until every chart has been drawn again at its new size."""
    if page.viewport_size != size:
        page.set_viewport_size(size)
        # The window has its new size before the page has laid itself out again: start the quiet
        # period from now, so that a page still showing the old layout is not taken as settled.
        page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[size["width"], size["height"]])
        page.evaluate("() => { window.__stChangedAt = performance.now(); }")
    settle(page)


def measure(page, where: str) -> Screen:
    return Screen(where, page.evaluate(_MEASURE_JS))


def name(size: dict) -> str:
    return f"{size['width']}×{size['height']}"


def problems(screen: Screen, projector: bool) -> list[str]:
    """What is wrong with one screen: heatmap cell numbers, chart titles and their words, sideways
    scrolling; on a projector (presenter mode), also whether the section fits it: every chart on
    the first screen, the largest at least LARGEST_SHARE of its height, body text of BODY_PX."""
    out = screen.cell_problems() + screen.titles_outside() + screen.words_overlapping()
    if screen.scrolls_sideways() > 1:
        out.append(f"the page scrolls {screen.scrolls_sideways():.0f} px sideways")
    if projector:
        out += [f"not on the first screen: {c}" for c in screen.charts_off_screen()]
        if screen.data["charts"] and screen.largest_share() < LARGEST_SHARE:
            out.append(f"the largest chart is {screen.largest_share():.0%} of the screen's height")
        out += [f"body text under {BODY_PX:g} px: {t}" for t in screen.small_body_text()]
    return [f"{screen.where}: {p}" for p in out]
