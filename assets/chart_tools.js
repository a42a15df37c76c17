// Chart tools, mounted once per run by app.py (st.components.v2, no iframe). For every
// Plotly chart on the page:
// - its one-sentence description (layout.meta, a string computed on the server from the
//   chart's numbers) becomes the accessible name of the drawing: role="img" and aria-label
//   on the chart's main <svg>, so a screen reader says what the chart shows;
// - the mode bar's buttons can be reached with Tab and pressed with Enter or Space, and the
//   mode bar stays visible while one of them has focus (assets/charts.css);
// - next to "download as PNG" sits "download as SVG": it presses Plotly's own button with
//   the format switched to SVG for that one click.
// And for every "Show as table" table (st.table): the box it scrolls in, when it is wider or
// taller than its column, can be focused with Tab and scrolled with the arrow keys, and is
// named after its chart (WCAG 2.1.1; axe-core's scrollable-region-focusable).
export default function () {
  if (window.__chartTools) return;
  window.__chartTools = true;

  const PNG = '[data-title^="Download plot"]';
  const SVG_ICON =
    '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><text x="1" y="16" ' +
    'font-size="10" font-weight="700" fill="currentColor">SVG</text></svg>';

  const label = (plot) => {
    const svg = plot.querySelector('svg.main-svg');
    const meta = plot.layout && plot.layout.meta;
    const text = typeof meta === 'string' ? meta : null;
    if (!svg) return;
    if (text) {
      if (svg.getAttribute('aria-label') !== text) svg.setAttribute('aria-label', text);
      svg.setAttribute('role', 'img');
    }
  };

  const keyboard = (button) => {
    if (button.dataset.keys) return;
    button.dataset.keys = '1';
    button.setAttribute('tabindex', '0');
    button.setAttribute('role', 'button');
    if (button.dataset.title) button.setAttribute('aria-label', button.dataset.title);
    button.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        button.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      }
    });
  };

  const svgButton = (plot) => {
    const png = plot.querySelector(PNG);
    if (!png || png.parentElement.querySelector('[data-svg-download]')) return;
    const svg = png.cloneNode(false);
    svg.removeAttribute('data-keys');
    svg.setAttribute('data-svg-download', '1');
    svg.setAttribute('data-title', 'Download plot as SVG');
    svg.innerHTML = SVG_ICON;
    svg.addEventListener('click', (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      const context = plot._context;
      const before = context.toImageButtonOptions;
      context.toImageButtonOptions = Object.assign({}, before, { format: 'svg', scale: 1 });
      try {
        plot.querySelector(PNG).dispatchEvent(new MouseEvent('click', { bubbles: true }));
      } finally {
        context.toImageButtonOptions = before;
      }
    });
    png.after(svg);
  };

  // The chart a table belongs to: the nearest chart above it (ui.charts.table_controls puts
  // the switch and the table right below their chart).
  const chartTitle = (table) => {
    let item = table.closest('.stElementContainer, [data-testid="stElementContainer"]');
    for (let n = 0; item && n < 4; n++) {
      item = item.previousElementSibling;
      const title = item && item.querySelector('.js-plotly-plot .gtitle');
      if (title) return title.textContent.trim();
    }
    return '';
  };

  const tableBox = (table) => {
    const box = table.firstElementChild;
    if (!box) return;
    if (box.getAttribute('tabindex') !== '0') box.setAttribute('tabindex', '0');
    if (box.getAttribute('role') !== 'region') box.setAttribute('role', 'region');
    const title = chartTitle(table);
    const name = title ? `Table: ${title}` : 'Table';
    if (box.getAttribute('aria-label') !== name) box.setAttribute('aria-label', name);
  };

  const update = () => {
    for (const plot of document.querySelectorAll('.js-plotly-plot')) {
      label(plot);
      svgButton(plot);
      plot.querySelectorAll('.modebar-btn').forEach(keyboard);
    }
    document.querySelectorAll('[data-testid="stTable"]').forEach(tableBox);
  };

  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      update();
    });
  }).observe(document.body, { childList: true, subtree: true });
  update();
}
