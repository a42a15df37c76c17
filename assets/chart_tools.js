// Chart tools, run once per page load by app.py (ui.scripts: st.html, no iframe). For every
// Plotly chart on the page, after each time Plotly draws it (its own plotly_afterplot and
// plotly_relayout events, on the chart's graph div; Plotly's functions are left as they are),
// in the next task (see `later`):
// - its one-sentence description (layout.meta, a string computed on the server from the
//   chart's numbers) becomes the accessible name of the drawing: role="img" and aria-label
//   on the chart's main svg element, so a screen reader says what the chart shows;
// - the mode bar's buttons can be reached with Tab and pressed with Enter or Space, and the
//   mode bar stays visible while one of them has focus (assets/charts.css);
// - next to "download as PNG" sits "download as SVG": it presses Plotly's own button with
//   the format switched to SVG for that one click;
// - what the server cannot know, since it never sees the browser's width: the heatmap's cell
//   numbers, the title and the tick labels are fitted to the chart as drawn (see fitChart).
// And for every "Show as table" table (st.table): the box it scrolls in, when it is wider or
// taller than its column, can be focused with Tab and scrolled with the arrow keys, and is
// named after its chart (WCAG 2.1.1; axe-core's scrollable-region-focusable). A formula wider
// than its column is drawn smaller (see fitFormula).
// New charts, tables and formulas are found once per frame in which the page changed.
(function () {
  if (window.__chartTools) return;
  window.__chartTools = true;

  const PNG = '[data-title^="Download plot"]';
  // The SVG button's icon, the letters "SVG", built with DOM calls (ui/scripts.py: no markup in
  // a script's text).
  const svgIcon = () => {
    const ns = 'http://www.w3.org/2000/svg';
    const icon = document.createElementNS(ns, 'svg');
    const attrs = { viewBox: '0 0 24 24', width: '16', height: '16', 'aria-hidden': 'true' };
    Object.entries(attrs).forEach(([k, v]) => icon.setAttribute(k, v));
    const text = document.createElementNS(ns, 'text');
    const textAttrs = { x: '1', y: '16', 'font-size': '10', 'font-weight': '700', fill: 'currentColor' };
    Object.entries(textAttrs).forEach(([k, v]) => text.setAttribute(k, v));
    text.textContent = 'SVG';
    icon.appendChild(text);
    return icon;
  };

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
    svg.replaceChildren(svgIcon());
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

  // --- Fitting. The server sizes every chart for a nominal width; the browser draws it at the
  // width it has: a phone's 390 px, a third of a projector, the sidebar open or not. Right after
  // Plotly draws, nothing is redrawn: the drawn text itself is resized, rounded or emptied, so a
  // chart is still drawn once per change. Everything the fit reads from the page (boxes of tick
  // labels, of a legend or panel names) is read before it writes anything, so the page is laid
  // out once for it.
  const MIN_CELL_PX = 9; // a cell's number is never smaller: fewer digits, then none
  const MIN_NOTE_PX = 12; // the note a chart gets when its numbers are rounded or left out
  const CELL_PAD = 2; // px kept free between a number and its cell's edges
  const GLYPH_H = 1.31; // the height of a line of text, in em, as the browser boxes it
  const BASELINE = 0.35; // Plotly puts a cell number's baseline 0.35 em below the cell's centre
  const LINE_H = 1.2; // the spacing of a wrapped title's lines, in em
  const measure = document.createElement('canvas').getContext('2d');
  const widths = new Map(); // "font|text" -> its width: a chart's numbers repeat from draw to draw

  const textWidth = (text, style, px) => {
    const font = `${style.fontWeight || 'normal'} ${px}px ${style.fontFamily || 'sans-serif'}`;
    const key = `${font}|${text}`;
    let width = widths.get(key);
    if (width === undefined) {
      if (measure.font !== font) measure.font = font;
      width = measure.measureText(text).width;
      if (widths.size > 20000) widths.clear();
      widths.set(key, width);
    }
    return width;
  };

  // "−1.48" -> "−1.5", one decimal at least (a "0" for 0.04 would say too little); anything else
  // (−∞, "1.2e+03", a blank) stays as it is.
  const shorter = (text) => {
    const m = /^([−-]?)(\d+)\.(\d\d+)$/.exec(text);
    if (!m) return text;
    const sign = m[1];
    const digits = m[3].length - 1;
    const value = Number(`${m[2]}.${m[3]}`).toFixed(digits);
    return Number(value) === 0 ? value : sign + value;
  };

  // Set a numeric attribute only when it differs (a write that changes nothing still costs a
  // style and layout pass).
  const setNumber = (el, name, value) => {
    if (!(Math.abs(parseFloat(el.getAttribute(name)) - value) <= 0.01)) el.setAttribute(name, value);
  };

  const axisOf = (full, name, letter) => full[`${letter}axis${(name || letter).slice(1)}`];

  // One heatmap trace's numbers (Plotly's g.hm, whose data names its trace), fitted to its cells:
  // the font shrinks (not under MIN_CELL_PX), then numbers lose digits, then they are left out
  // ("−∞" becomes "×"). Returns what the chart must say: '' (all shown as sent), 'rounded' or 'blank'.
  const fitCells = (full, group) => {
    const labels = Array.from(group.querySelectorAll('.heatmap-label text'));
    const trace = group.__data__ && group.__data__[0] && group.__data__[0].trace;
    if (!labels.length || !trace) return '';
    const xa = axisOf(full, trace.xaxis, 'x');
    const ya = axisOf(full, trace.yaxis, 'y');
    if (!xa || !ya || !xa._length || !ya._length) return '';
    const cellW = xa._length / Math.abs(xa.range[1] - xa.range[0]); // each cell is one unit wide
    const cellH = ya._length / Math.abs(ya.range[1] - ya.range[0]);
    const data = labels.map((t) => t.__data__ || t.parentNode.__data__ || {});
    const sent = data.map((d, i) => (d.t !== undefined ? String(d.t) : labels[i].textContent));
    const style = labels[0].style;
    const base = (trace.textfont && trace.textfont.size) || parseFloat(style.fontSize) || 12;
    const sizeFor = (texts) => {
      let widest = 0;
      for (const t of new Set(texts)) widest = Math.max(widest, textWidth(t, style, base));
      const byWidth = widest > 0 ? ((cellW - 2 * CELL_PAD) * base) / widest : base;
      const byHeight = (cellH - 2 * CELL_PAD) / GLYPH_H;
      return Math.min(base, Math.floor(Math.min(byWidth, byHeight) * 2) / 2);
    };
    let texts = sent;
    let size = sizeFor(texts);
    let how = '';
    while (size < MIN_CELL_PX) {
      const fewer = texts.map(shorter);
      if (fewer.every((t, i) => t === texts[i])) break;
      texts = fewer;
      size = sizeFor(texts);
      how = 'rounded';
    }
    if (size < MIN_CELL_PX) {
      texts = sent.map((t) => (t === '−∞' ? '×' : ''));
      size = sizeFor(texts.filter((t) => t));
      if (size < MIN_CELL_PX) texts = texts.map(() => '');
      how = 'blank';
    }
    const px = `${size}px`;
    labels.forEach((label, i) => {
      if (label.textContent !== texts[i]) label.textContent = texts[i];
      if (label.style.fontSize !== px) label.style.fontSize = px;
      const y = data[i].y + BASELINE * size;
      if (Number.isFinite(y)) setNumber(label, 'y', y);
    });
    return how;
  };

  const NOTES = {
    rounded: 'Numbers rounded to fit: hover a cell for more digits.',
    blank: 'Numbers left out to fit: hover a cell for its value.',
  };

  const words = (text) => text.split(/\s+/).filter((w) => w);

  const wrap = (text, style, px, width) => {
    const lines = [];
    for (const word of words(text)) {
      const last = lines.length ? `${lines[lines.length - 1]} ${word}` : null;
      if (last !== null && textWidth(last, style, px) <= width) lines[lines.length - 1] = last;
      else lines.push(word);
    }
    return lines;
  };

  // The room for the title and the note: the top margin, less what else Plotly drew in it (a
  // legend, panel names, column labels on top). Read before anything is written.
  const titleRoom = (plot, full) => {
    let room = (full.margin && full.margin.t) || 40;
    const top0 = plot.getBoundingClientRect().top;
    for (const el of plot.querySelectorAll('.infolayer .legend, .infolayer .annotation, .xaxislayer-above text')) {
      const top = el.getBoundingClientRect().top - top0;
      if (top > 0 && top < room) room = top - 2;
    }
    return room;
  };

  // The title, wrapped onto as many lines as the chart's width needs, and under it the note,
  // both inside the room above the plot (the title's font shrinks, down to MIN_NOTE_PX, where they
  // would not fit). A title that fits on one line, with no note, is left exactly as Plotly drew it.
  const fitTitle = (plot, full, note, room) => {
    const title = plot.querySelector('.g-gtitle text.gtitle');
    const layer = plot.querySelector('.infolayer');
    let old = plot.querySelector('text.chart-fit-note');
    if (!note && old) old.remove();
    if (!title && !note) return;
    const style = title ? title.style : { fontFamily: '"Source Sans", sans-serif' };
    const fitted = title && title.querySelector('tspan[data-fit]');
    const text = title ? (fitted ? title.dataset.fitText : title.textContent) : '';
    const base = title ? parseFloat(title.dataset.fitPx || style.fontSize) || 16 : 0;
    const x = title ? parseFloat(title.getAttribute('x')) || 0 : 2;
    const width = full.width - x - 4;
    const notePx = note ? Math.max(MIN_NOTE_PX, Math.round((base || 16) * 0.75)) : 0;
    const noteLines = note ? wrap(note, style, notePx, width) : [];
    const noteH = noteLines.length * notePx * LINE_H;
    let px = base;
    let lines = title ? wrap(text, style, px, width) : [];
    while (px > MIN_NOTE_PX && lines.length * px * LINE_H + noteH + 4 > room) {
      px -= 1;
      lines = wrap(text, style, px, width);
    }
    const top = Math.max(2, (room - lines.length * px * LINE_H - noteH) / 2);
    if (title) {
      const plain = lines.length <= 1 && px === base && !note;
      if (plain && fitted) {
        title.textContent = text; // back to one line (a wider chart after a resize)
        title.style.fontSize = `${base}px`;
        title.setAttribute('y', title.dataset.fitY);
      } else if (!plain) {
        if (!fitted) {
          title.dataset.fitText = text;
          title.dataset.fitPx = String(base);
          title.dataset.fitY = title.getAttribute('y');
        }
        const y = top + px * 0.9;
        const same =
          fitted &&
          title.style.fontSize === `${px}px` &&
          Math.abs(parseFloat(title.getAttribute('y')) - y) < 0.01 &&
          Array.from(title.querySelectorAll('tspan[data-fit]'))
            .map((t) => t.textContent)
            .join('\n') === lines.join('\n');
        if (!same) {
          title.textContent = '';
          title.style.fontSize = `${px}px`;
          title.setAttribute('y', y);
          lines.forEach((line, i) => {
            const span = document.createElementNS('http://www.w3.org/2000/svg', 'tspan');
            span.dataset.fit = '1';
            span.setAttribute('x', x);
            if (i) span.setAttribute('dy', `${LINE_H}em`);
            span.textContent = line;
            title.appendChild(span);
          });
        }
      }
    }
    if (!note || !layer) return;
    if (!old) {
      old = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      old.setAttribute('class', 'chart-fit-note');
      layer.appendChild(old);
    }
    const spans = Array.from(old.children);
    if (spans.map((t) => t.textContent).join('\n') !== noteLines.join('\n')) {
      old.textContent = '';
      noteLines.forEach((line, i) => {
        const span = document.createElementNS('http://www.w3.org/2000/svg', 'tspan');
        if (i) span.setAttribute('dy', `${LINE_H}em`);
        span.textContent = line;
        old.appendChild(span);
      });
    }
    Array.from(old.children).forEach((span) => setNumber(span, 'x', x));
    setNumber(old, 'y', top + lines.length * px * LINE_H + notePx * 0.95);
    const font = `font-size: ${notePx}px; font-family: ${style.fontFamily || 'sans-serif'};`;
    if (old.getAttribute('style') !== font) old.setAttribute('style', font);
  };

  // Tick labels that would run into each other (a narrower chart than the server planned for):
  // every k-th is kept, the smallest k that leaves a gap; the others are hidden (their names stay
  // in the hover). Labels turned 45 degrees need 1.3 em between them along the axis. Returns,
  // read now, what to hide; the caller hides it once everything has been read.
  const tickPlan = (plot) => {
    const plan = [];
    for (const layer of plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
      const labels = Array.from(layer.querySelectorAll(':scope > .xtick > text, :scope > .ytick > text'));
      if (labels.length < 2) continue;
      const across = layer.classList.contains('xaxislayer-above');
      const boxes = labels.map((t) => t.getBoundingClientRect());
      const px = parseFloat(labels[0].style.fontSize) || 12;
      const turned = across && /rotate\(\s*-?[1-9]/.test(labels[0].getAttribute('transform') || '');
      const at = (b) => (across ? b.left + b.width / 2 : b.top + b.height / 2);
      const size = (b) => (turned ? 1.3 * px : across ? b.width : b.height);
      const clear = (i, j) => Math.abs(at(boxes[j]) - at(boxes[i])) >= (size(boxes[i]) + size(boxes[j])) / 2 + 2;
      let k = 1;
      while (k < labels.length && !labels.every((_, i) => i % k || i + k >= labels.length || clear(i, i + k))) k += 1;
      plan.push([labels, k]);
    }
    return plan;
  };

  const hideTicks = (plan) => {
    for (const [labels, k] of plan) {
      labels.forEach((t, i) => {
        const want = i % k ? 'hidden' : '';
        if (t.style.visibility !== want) t.style.visibility = want;
      });
    }
  };

  const fitChart = (plot) => {
    const full = plot._fullLayout;
    if (!full || !full.width || !plot.isConnected) return;
    // Reads: the page is laid out once, for all of them (hidden tick labels keep their boxes).
    const ticks = tickPlan(plot);
    const room = titleRoom(plot, full);
    // Writes.
    hideTicks(ticks);
    let how = '';
    for (const group of plot.querySelectorAll('.heatmaplayer .hm')) {
      const got = fitCells(full, group);
      if (got === 'blank' || (got === 'rounded' && !how)) how = got;
    }
    fitTitle(plot, full, NOTES[how] || '', room);
  };

  // After each draw of a chart: its name, its mode bar's keys and SVG button, its fitted text.
  const drawn = (plot) => {
    if (!plot._fullLayout || !plot.querySelector('svg.main-svg')) return;
    label(plot);
    svgButton(plot);
    plot.querySelectorAll('.modebar-btn').forEach(keyboard);
    fitChart(plot);
  };

  // The work after a draw runs in a task of its own, so the browser can paint first: Streamlit
  // draws a new chart in the same task as the rest of the run, and the step's text and chart show
  // that much sooner on a slow phone (bench: phone.follow_p95_ms_cpu4x). Until it has run, the
  // chart's data-fitting attribute hides its cell numbers (assets/charts.css), which Plotly drew
  // at the size the server planned for; the tests' and the bench's "drawn" waits for it to go.
  const pending = new WeakSet();
  const later = (plot) => {
    if (plot.dataset.fitting !== '1') plot.dataset.fitting = '1';
    if (pending.has(plot)) return;
    pending.add(plot);
    setTimeout(() => {
      pending.delete(plot);
      try {
        drawn(plot);
      } finally {
        delete plot.dataset.fitting;
      }
    }, 0);
  };

  // A chart's graph div, the first time it is seen: Plotly has drawn it (Streamlit mounts a
  // new one for every new figure) and draws it again on every size or data change, a zoom or a
  // reset. Both events are Plotly's own, on this chart alone.
  const charts = new WeakSet();
  const watchChart = (plot) => {
    charts.add(plot);
    if (typeof plot.on === 'function') {
      plot.on('plotly_afterplot', () => later(plot));
      plot.on('plotly_relayout', () => later(plot));
    }
    later(plot);
  };

  // A display formula wider than the element it is in is drawn smaller, down to 60 %, instead of
  // being scrolled or cut: fitted again when that element changes width or KaTeX draws anew.
  // (The formula's own box shrinks with it, so the width is the element's, not the box's.)
  // element -> [its .katex, the formula's TeX, the width and the fonts it was fitted with]. React
  // keeps a .katex element when the element it is in shows another formula (a deck's next
  // section in the same place), so the TeX tells a new formula from the one fitted.
  const formulas = new WeakMap();
  let fontsLoaded = 0; // KaTeX's fonts arrive after its first drawing, and widen it
  const holderOf = (box) => box.closest('.stElementContainer, [data-testid="stElementContainer"]') || box.parentElement;
  const formulaOf = (holder) => {
    const box = holder.querySelector('.katex-display');
    const katex = box && box.querySelector(':scope > .katex');
    return [box, katex, katex ? (katex.querySelector('annotation') || katex).textContent : ''];
  };
  // Whether the holder shows another formula than the one fitted: read without a layout (its
  // width is the ResizeObserver's to watch, the fonts are 'loadingdone''s).
  const otherFormula = (holder) => {
    const [, katex, tex] = formulaOf(holder);
    const seen = formulas.get(holder);
    return !seen || seen[0] !== katex || seen[1] !== tex;
  };
  const fitFormula = (holder) => {
    const [box, katex, tex] = formulaOf(holder);
    const width = holder.clientWidth;
    const fitted = [katex, tex, width, fontsLoaded];
    const seen = formulas.get(holder);
    if (!katex || !width || (seen && seen.every((value, n) => value === fitted[n]))) return;
    formulas.set(holder, fitted);
    if (katex.style.fontSize) katex.style.fontSize = '';
    const ratio = width / box.scrollWidth;
    const px = parseFloat(getComputedStyle(katex).fontSize);
    if (ratio < 0.995) katex.style.fontSize = `${(px * Math.max(0.6, ratio * 0.98)).toFixed(1)}px`;
    // Still wider at 60 %: the box scrolls sideways, so Tab must reach it and the arrow keys scroll
    // it (WCAG 2.1.1, as for a table's box above).
    if (box.scrollWidth > box.clientWidth + 1) {
      box.setAttribute('tabindex', '0');
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', 'Formula, scrolls sideways');
    } else if (box.hasAttribute('tabindex')) {
      ['tabindex', 'role', 'aria-label'].forEach((name) => box.removeAttribute(name));
    }
  };
  const formulaHolders = new ResizeObserver((entries) => entries.forEach((e) => fitFormula(e.target)));
  const displays = document.getElementsByClassName('katex-display'); // live: no query per frame
  document.fonts.addEventListener('loadingdone', () => {
    fontsLoaded += 1;
    for (const box of displays) fitFormula(holderOf(box));
  });

  const plots = document.getElementsByClassName('js-plotly-plot');
  const update = () => {
    for (const plot of plots) if (!charts.has(plot)) watchChart(plot);
    for (const box of displays) {
      const holder = holderOf(box);
      if (!formulas.has(holder)) formulaHolders.observe(holder); // its first report fits it
      else if (otherFormula(holder)) fitFormula(holder); // no layout read in a frame that changed no formula
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
})();
