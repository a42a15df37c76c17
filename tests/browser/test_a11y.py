"""Accessibility in a real Chromium (issue #15: WCAG 2.1 AA on every page, every chart
readable without sight, every control usable from the keyboard).

- axe-core 4.14 (tests/support/browser/a11y.py) finds no WCAG 2.0/2.1 A or AA violation on any page
  listed in app.py, in the light and the dark theme, and in presenter mode (?present=1) in
  both themes: in the page's first state, with a chart's "Show as table" switched on, and
  with "Predict first" on where the page has it. The same on presenter mode's later sections
  (PRESENT_LATER: Step by step's attention weights, step 8) and on the Real model page's
  other views (?view=model|neuron|summaries|reproduce; its head view is the page's first
  state). In presenter mode the shown table's cells are drawn at 22 px or more.
- Every chart's drawing (its first svg.main-svg) is an image named by its one-sentence
  description, and the table a "Show as table" switch shows is an HTML table with header
  cells for the token labels; on Step by step the attention-weights chart's name states the
  engine's own argmax and weight.
- Tab reaches every control of Step by step in page order, each with a visible focus
  indicator; the worked cell's pickers, the real model's focus token and presenter mode's
  Next and Back work with the keyboard alone.
"""

from __future__ import annotations

import re
import time
from collections import Counter

import numpy as np
import pytest

import attn_core as ac
from attn_core import walkthrough as wt
from lessons import pages
from tests.support.browser.a11y import axe_violations, chart_names, focus_tracker, report
from tests.support.browser.checks import Watch, exceptions
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import PRESENT_PX
from tests.support.browser.waits import open_app, run_count, wait_for_run

pytestmark = pytest.mark.browser


def app_pages() -> list[tuple[str, str]]:
    """(title, url path) of every page, in the page list's order (lessons/pages.py)."""
    return [(p.title, p.url_path) for p in pages.PAGES]


PAGES = app_pages()
PAGE_IDS = [path or "home" for _, path in PAGES]
# Presenter mode's later sections, opened by link: (url path, query after present=1).
PRESENT_LATER = [("step-by-step", "step=8")]  # the attention weights, with their table
# The Real model page's views other than its first, the head view (lessons/real_model/page.py VIEW_NAMES).
REAL_MODEL_VIEWS = {
    "model": "Model view",
    "neuron": "Neuron view",
    "summaries": "Summaries",
    "reproduce": "Reproduce a head",
}

# Step by step's defaults (lessons/step_by_step/page.py): the first preset, d_model 16, d_k 4,
# seed 0, positions on, scaled, no ×100, no mask; query i = 2 and key j = 1.
SBS_TEXT = "The cat sat on the mat."
SBS_I = 2


# --------------------------------------------------------------------------- helpers


def _open(browser, server, path: str, query: str = ""):
    """A fresh offline tab on ``path`` after its first run; returns (context, page, watch)."""
    watch = Watch()
    context = offline_context(browser, watch)
    page = context.new_page()
    watch.attach(page)
    open_app(page, server.url, f"{path}?{query}" if query else path)
    return context, page, watch


def _close(context, watch: Watch) -> None:
    context.close()
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def _switch(page, label: str, scope: str = "body"):
    """The first switch (st.toggle) labelled ``label`` inside ``scope``, or None."""
    switches = page.locator(f"{scope} [data-testid='stCheckbox']").filter(
        has=page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    )
    return switches.first if switches.count() else None


def _flip(page, switch) -> None:
    """Switch it on (click its label, as a student would) and wait for the rerun."""
    since = run_count(page)
    switch.locator("label").first.click()
    wait_for_run(page, since)
    assert switch.locator("input").first.is_checked(), "the switch did not turn on"


def _shown_table(page, switch, timeout_s: float = 10.0) -> dict | None:
    """The table below a switched-on "Show as table" (TABLE_JS), once it is drawn and
    assets/chart_tools.js has made its box a region (a run that ended just before the
    switch's own would let wait_for_run return before the table came)."""
    deadline = time.monotonic() + timeout_s
    while ((table := switch.evaluate(TABLE_JS)) is None or table["region"] is None) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    return table


def _on_screen(locator) -> bool:
    return locator.evaluate("el => { const r = el.getBoundingClientRect(); return r.right > 0 && r.left < innerWidth }")


def _open_sidebar(page) -> None:
    """Presenter mode starts with the sidebar collapsed: open it with its button."""
    page.locator("[data-testid='stExpandSidebarButton']").click()
    page.wait_for_function("() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().x >= 0")


def _unnamed_charts(page) -> list[str]:
    """Charts whose drawing is not an image named by its description."""
    bad = []
    for n, chart in enumerate(chart_names(page)):
        label = (chart["label"] or "").strip()
        if chart["role"] != "img" or not label or label != chart["description"]:
            bad.append(f"chart {n} {chart['title']!r}: role={chart['role']!r} aria-label={chart['label']!r}")
    return bad


# The table a "Show as table" switch shows, read from the switch: ui.charts.table_controls
# puts the switch in a row of columns, and the table right after that row.
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


def _table_problems(table: dict | None) -> list[str]:
    """What keeps a shown table from being an accessible table with token labels."""
    if table is None:
        return ["no <table> was shown"]
    out = []
    labels = table["cols"][1:]  # the first header cell names the row labels' column
    if not labels or not all(re.match(r"^\d+:", c) for c in labels):
        out.append(f"column headers are not the numbered labels: {table['cols'][:6]}")
    if not table["rows"] or any(not r[0] or not re.match(r"^\d+:", r[0]) for r in table["rows"]):
        out.append(f"rows lack a row header: {[r[:2] for r in table['rows'][:3]]}")
    if any(len(r) != len(table["cols"]) for r in table["rows"]):
        out.append("rows and header differ in length")
    if table["region"] is None or table["region"][0] != "0" or not (table["region"][1] or "").startswith("Table"):
        out.append(f"its scroll box is not a named, focusable region: {table['region']}")
    return out


def _tab_to(page, label: str, limit: int = 250) -> int:
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


def _pick_with_keys(page, label: str) -> str:
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


def _sbs_weights() -> tuple[list[str], np.ndarray]:
    """Step by step's default attention weights, from attn_core directly."""
    tokens = tuple(ac.tokenize(SBS_TEXT))
    source = wt.seeded_source(tokens, 16, 4, seed=0, positional=True)
    return list(tokens), wt.lesson(source, scale=True, multiplier=1.0, causal=False).steps.weights


# --------------------------------------------------------------------------- axe-core


def _axe_states(page, *, presenting: bool) -> tuple[dict[str, list], list[str]]:
    """axe-core on the page as opened, with its first chart's table shown, and with
    "Predict first" on (when the page has it). Returns violations by state and the other
    problems found on the way (unnamed charts, a table that is not an accessible table, and
    in presenter mode a table drawn smaller than PRESENT_PX)."""
    found, problems = {"as opened": axe_violations(page)}, []
    problems += _unnamed_charts(page)
    main = "[data-testid='stMain']"
    switch = _switch(page, "Show as table", main)
    if switch is not None:
        _flip(page, switch)
        table = _shown_table(page, switch)
        problems += [f"table: {p}" for p in _table_problems(table)]
        if presenting and table is not None and (table["px"] or 0) < PRESENT_PX:
            problems.append(f"table: its cells are drawn at {table['px']} px, under {PRESENT_PX} px")
        found["with a table shown"] = axe_violations(page)
    predict = _switch(page, "Predict first")
    if predict is not None:
        if presenting and not _on_screen(predict):
            _open_sidebar(page)
        _flip(page, predict)
        found["with Predict first on"] = axe_violations(page)
        problems += _unnamed_charts(page)
    problems += [f"stException: {e[:200]}" for e in exceptions(page)]
    return found, problems


def _assert_clean(where: str, found: dict[str, list], problems: list[str]) -> None:
    failed = {state: v for state, v in found.items() if v}
    text = "\n".join(f"-- {state}:\n{report(v)}" for state, v in failed.items())
    assert not failed, f"{where}: axe-core found WCAG 2.1 A/AA violations\n{text}"
    assert not problems, f"{where}:\n" + "\n".join(problems)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("title", "path"), PAGES, ids=PAGE_IDS)
def test_axe_finds_no_violation(request, browser, theme: str, title: str, path: str) -> None:
    server = request.getfixturevalue("server" if theme == "light" else "server_dark")
    context, page, watch = _open(browser, server, path)
    try:
        found, problems = _axe_states(page, presenting=False)
    finally:
        _close(context, watch)
    _assert_clean(f"{title} ({theme})", found, problems)


def _check_page(request, browser, theme: str, path: str, query: str, where: str, first=None) -> None:
    """Open ``path?query`` in ``theme`` (presenter mode when the query says so), run ``first``
    (checks of what the page should show) and then every accessibility check of _axe_states."""
    server = request.getfixturevalue("server" if theme == "light" else "server_dark")
    context, page, watch = _open(browser, server, path, query)
    try:
        if first is not None:
            first(page)
        found, problems = _axe_states(page, presenting="present=1" in query)
    finally:
        _close(context, watch)
    _assert_clean(where, found, problems)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("title", "path"), PAGES, ids=PAGE_IDS)
def test_axe_finds_no_violation_in_presenter_mode(request, browser, theme: str, title: str, path: str) -> None:
    """Presenter mode, each page's first section, in both themes."""
    _check_page(request, browser, theme, path, "present=1", f"{title} (presenter mode, {theme})")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("path", "query"), PRESENT_LATER, ids=[f"{p}-{q}" for p, q in PRESENT_LATER])
def test_axe_finds_no_violation_in_presenter_mode_later_sections(request, browser, theme, path, query) -> None:
    """Presenter mode on a section after the first, opened by link: the progress line says
    which section is shown, it has a chart, and the checks above pass."""

    def shows_the_section(page) -> None:
        step = int(query.split("=")[1])
        line = page.locator("[data-testid='stMain'] h2").filter(has_text=re.compile(r"^\s*\w+ \d+ of \d+"))
        assert re.match(rf"\w+ {step} of \d+", line.first.inner_text()), line.first.inner_text()
        assert chart_names(page), f"{path}?{query}: no chart in this section"

    where = f"{path}?present=1&{query} ({theme})"
    _check_page(request, browser, theme, path, f"present=1&{query}", where, shows_the_section)


# The checked option of the radio group labelled ``label``.
CHECKED_RADIO_JS = """
(label) => {
  const group = Array.from(document.querySelectorAll("[data-testid='stRadio']")).find(r =>
    (r.querySelector("[data-testid='stWidgetLabel']") || {}).innerText?.trim() === label);
  const input = group && group.querySelector('input:checked');
  return input ? input.closest('label').innerText.trim() : null;
}
"""


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("view", REAL_MODEL_VIEWS)
def test_axe_finds_no_violation_on_the_real_models_other_views(request, browser, theme: str, view: str) -> None:
    """The Real model page opened on each view but the head view (which
    test_axe_finds_no_violation sees): that view is the one shown, it has a chart, and
    axe-core, the chart names and the table check find nothing."""

    def shows_the_view(page) -> None:
        assert page.evaluate(CHECKED_RADIO_JS, "View") == REAL_MODEL_VIEWS[view]
        assert chart_names(page), f"the {view} view shows no chart"

    where = f"Real model, {REAL_MODEL_VIEWS[view]} ({theme})"
    _check_page(request, browser, theme, "real-model", f"view={view}", where, shows_the_view)


# --------------------------------------------------------------------- Tab order and visible focus


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


def test_tab_reaches_every_control_in_order_with_visible_focus(browser, server) -> None:
    """From the top of Step by step, Tab visits every interactive element of the page in
    page order, and at every stop some part of the focused widget draws an outline or a
    box-shadow that it does not draw without focus."""
    context, page, watch = _open(browser, server, "step-by-step")
    try:
        expected = page.evaluate(ORDER_JS)
        tracker = focus_tracker(page)
        stops = []
        for _ in range(len(expected) + 40):
            page.keyboard.press("Tab")
            stop = tracker.evaluate("t => t.record()")
            if stop is None or (stops and stop["order"] is not None and stop["order"] == stops[0]["order"]):
                break  # focus left the page, or came round to the first stop again
            stops.append(stop)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        indicators = tracker.evaluate("t => t.indicators()")
    finally:
        _close(context, watch)

    def name(stop) -> str:
        return f"{stop['where']} {stop['tag']}[{stop['testid']}] {stop['name']!r}"

    orders = [s["order"] for s in stops if s["order"] is not None]
    missed = [expected[k] for k in range(len(expected)) if k not in set(orders)]
    assert not missed, f"Tab never reached {len(missed)} of {len(expected)} controls: {missed[:10]}"
    assert orders == sorted(orders), "Tab visits the controls out of page order: " + ", ".join(
        name(s) for s in stops[:60]
    )
    unseen = [s for s, ind in zip(stops, indicators, strict=True) if ind is None]
    kinds = Counter(f"{s['where']} {s['tag']}[{s['testid']}]" for s in unseen)
    assert not unseen, (
        f"focus is not visible on {len(unseen)} of {len(stops)} stops: {dict(kinds)}; "
        f"first: {[name(s) for s in unseen[:5]]}"
    )
    assert len(stops) >= 40, f"only {len(stops)} Tab stops on Step by step: {[name(s) for s in stops]}"


# ------------------------------------------------- a chart name against the engine; widgets driven by keys


def _weights_label(page) -> str:
    T = len(ac.tokenize(SBS_TEXT))
    return {c["title"]: c["label"] for c in chart_names(page)}[f"A = softmax(M) ({T}×{T})"]


def _says_argmax(label: str, tokens: list[str], weights: np.ndarray, i: int) -> str | None:
    """None if the chart name says where query i puts most weight, as attn_core computed it."""
    j = int(np.argmax(weights[i]))
    expected = f"Query i {i} “{tokens[i]}” puts most weight on key j {j} “{tokens[j]}” ({weights[i, j]:.2f})"
    return None if expected in label else f"{label!r} does not say {expected!r}"


def test_weights_chart_speaks_the_engines_numbers_and_the_pickers_work_from_the_keyboard(browser, server) -> None:
    """Step by step, with attn_core's own weights beside it: Step 8's chart name states where
    the worked cell's query puts most weight (argmax key, weight to 2 decimals). Then, with
    the keyboard alone: Tab to "Key token j", open it, move down, Enter; the page reruns with
    the new key (caption and address bar). The same for "Query token i", after which the
    chart name speaks about the new query. Last, Step 8's table shows every weight under the
    token labels, as an accessible table."""
    tokens, weights = _sbs_weights()
    context, page, watch = _open(browser, server, "step-by-step")
    try:
        wrong = _says_argmax(_weights_label(page), tokens, weights, SBS_I)
        assert wrong is None, wrong

        _tab_to(page, "Key token j")
        j = int(_pick_with_keys(page, "Key token j").split(":")[0])
        assert f"j={j}" in page.url
        caption = page.locator("[data-testid='stCaptionContainer']").filter(has_text="key j =").inner_text()
        assert f"key j = {j}: “{tokens[j]}”" in caption

        page.keyboard.press("Shift+Tab")  # the query picker sits just before it
        i = int(_pick_with_keys(page, "Query token i").split(":")[0])
        assert i != SBS_I and f"i={i}" in page.url
        wrong = _says_argmax(_weights_label(page), tokens, weights, i)
        assert wrong is None, wrong

        switch = page.locator(".st-key-sbs_fig_weights_table")
        _flip(page, switch)
        table = _shown_table(page, switch)
        assert not _table_problems(table), _table_problems(table)
        labels = [f"{n}:{t}" for n, t in enumerate(tokens)]
        assert table["cols"] == ["query i", *labels] and [r[0] for r in table["rows"]] == labels
        shown = np.array([[float(x) for x in r[1:]] for r in table["rows"]])
        np.testing.assert_allclose(shown, weights, atol=5e-4)  # printed with 3 decimals
        T = len(tokens)
        assert table["region"][1] == f"Table: A = softmax(M) ({T}×{T})"
    finally:
        _close(context, watch)


def test_presenter_next_and_back_work_from_the_keyboard(browser, server_dark) -> None:
    """In presenter mode (dark theme), Tab to Next and press Enter, then Space: the progress
    line moves to step 2, then 3; Back with Enter returns to step 2. axe-core finds nothing
    on steps 1 and 2."""
    context, page, watch = _open(browser, server_dark, "step-by-step", "present=1")

    def progress() -> str:
        line = page.locator("[data-testid='stMain'] h2").filter(has_text=re.compile(r"Step \d+ of \d+"))
        return line.first.inner_text()

    def press(key: str) -> None:
        since = run_count(page)
        page.keyboard.press(key)
        wait_for_run(page, since)

    try:
        assert progress().startswith("Step 1 of 9")
        found = {"step 1": axe_violations(page)}
        _tab_to(page, "Next →")
        press("Enter")
        assert progress().startswith("Step 2 of 9"), progress()
        found["step 2"] = axe_violations(page)
        _assert_clean("Step by step (presenter mode, dark)", found, _unnamed_charts(page))
        if page.evaluate("() => (document.activeElement.innerText || '').trim()") != "Next →":
            _tab_to(page, "Next →")  # a rerun may have redrawn the button
        press("Space")
        assert progress().startswith("Step 3 of 9"), progress()
        for _ in range(5):  # back from Next to Back, past the progress line
            page.keyboard.press("Shift+Tab")
            if page.evaluate("() => (document.activeElement.innerText || '').trim()") == "← Back":
                break
        press("Enter")
        assert progress().startswith("Step 2 of 9"), progress()
        assert "step=2" in page.url
    finally:
        _close(context, watch)


def test_head_view_focus_token_works_from_the_keyboard(browser, server) -> None:
    """Real model: Tab to "Focus on a query token", choose a token with the arrow keys and
    Enter: the page reruns with that focus (the address bar keeps it)."""
    context, page, watch = _open(browser, server, "real-model")
    try:
        _tab_to(page, "Focus on a query token", limit=400)
        chosen = _pick_with_keys(page, "Focus on a query token")
        assert re.match(r"^\d+: ", chosen), chosen
        assert f"focus={chosen.split(':')[0]}" in page.url
        assert not exceptions(page)
    finally:
        _close(context, watch)
