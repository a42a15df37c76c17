"""Accessibility checks in a real Chromium: axe-core run on a page, every chart's accessible
name, and what the keyboard focus is on and whether it can be seen.

axe-core is vendored (tests/browser/vendor/axe.min.js, axe-core 4.14.1 from the npm package
`axe-core`, unmodified; licence MPL-2.0, its text in vendor/axe-core-LICENSE; source code at
https://github.com/dequelabs/axe-core). The PyPI package axe-playwright-python 0.1.8 bundles
axe-core 4.12.1, older than the 4.14 the issue was measured with, so the file is injected
here instead. To update it: `npm pack axe-core@4.14.x`, copy package/axe.min.js and LICENSE,
and check its sha256 against package/sri-history.json.
"""

from __future__ import annotations

from pathlib import Path

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
