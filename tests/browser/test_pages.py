"""Every page, once per theme, in a real Chromium: the light server and the `--theme.base dark`
server, one tab each, every page reached through the sidebar (or the link the last page
followed), and on that one load everything a student's screen must pass.

Both themes, on every page: no exception, JS error, console error or dialog, no request that
leaves localhost, no NaN in a chart's data or drawn on it, no text under 12 px; axe-core (WCAG 2.0
and 2.1, A and AA) with the first chart's "Show as table" on (the page plus the table: an
accessible table with token labels) and again with "Predict first" on; every chart an image named
by its description. Screenshots go to tests/artifacts/<page>-light.png and <page>-dark.png.

Light: the inputs changed (the sentence, d_k) redraw the charts with new data; on the pages
that take text, every hostile text of tests/support/hostile_corpus.py in every text box
(no dialog, no markup made of it, no error, no NaN). Home's sentence box redraws its heatmap
as the student types, without Enter, and "Start here" takes the sentence to Step by step;
Step by step's causal mask names, near the top, the steps it changed, with links to them.

Dark: the app is dark and writes nothing into the address; the screen fits at 1280×800 and on a
390 px phone (tests/support/browser/screens.py); every lesson links to the next one, and two of
those links are followed. Step by step from the keyboard: Tab reaches every control in order
with visible focus, the worked cell's pickers work with arrow keys, and the weights chart's
name states the engine's argmax. The Real model page's first screen shows the head for "it"
with "it" picked; its focus token works from the keyboard.

The Real model page, in both themes, shows each of its five views (the Reproduce view's
attn_core agrees with the model), each checked as above.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import attn_core as ac
from attn_core import walkthrough as wt
from lessons import pages
from lessons.home import words as home_words
from lessons.real_model import words as rm_words
from lessons.step_by_step import words as sbs_words
from tests.support import decks
from tests.support.browser import a11y, screens
from tests.support.browser.a11y import (
    CHECKED_RADIO_JS,
    ORDER_JS,
    flip,
    focus_tracker,
    pick_with_keys,
    shown_table,
    tab_to,
    table_problems,
)
from tests.support.browser.checks import chart_data, exceptions, screenshot
from tests.support.browser.session import AppSession
from tests.support.browser.sweep import (
    SENTENCE,
    change_inputs,
    errors,
    hostile_problems,
    is_dark,
    nan_problems,
    screen_problems,
    small_text_problems,
)
from tests.support.browser.teaching import MAIN, PRESENT_PX, chart_titles, eventually, tick_labels
from tests.support.browser.waits import PAGES, follow, nav_titles, run_count, wait_drawn, wait_for_run
from tests.support.sentence_numbers import numbers
from ui import outline
from ui.markup import NUMBER_GAP

pytestmark = pytest.mark.browser

IDS = [name for _, _, name in PAGES]
TEXT_PAGES = {"step-by-step", "cross-attention", "real-model"}  # the hostile texts go in their boxes
FOLLOWED = {"multi-head", "articles-checked"}  # their link to the next lesson is followed (dark)
PLAIN_TICK_PX = 13.0  # Plotly's tick labels outside presenter mode
LINKS = "[data-testid='stMain'] [data-testid='stPageLink'] a"

_labels: dict[str, int] = {}  # heatmap cell numbers measured on each page (dark)


@pytest.fixture(scope="module")
def light(browser, server):
    session = AppSession(browser, server)
    yield session
    assert not session.close(), "a page tried to reach the internet"


@pytest.fixture(scope="module")
def dark(browser, server_dark):
    session = AppSession(browser, server_dark)
    yield session
    assert not session.close(), "a page tried to reach the internet"


def _path(page) -> str:
    return urlparse(page.url).path.strip("/")


def arrive(session: AppSession, title: str, path: str) -> None:
    """Open the page through the sidebar, unless the last page's link already brought the tab here."""
    if _path(session.page) != path:
        session.visit(title)
    else:
        session.watch.clear()
        wait_drawn(session.page)
    assert _path(session.page) == path


def _info(path: str) -> pages.PageInfo:
    return next(p for p in pages.PAGES if p.url_path == path)


def _tokens(text: str) -> list[str]:
    return list(ac.tokenize(text))


def _seeded_weights(words, d_k: int = 4) -> np.ndarray:
    """One seeded head (d_model 16, d_k 4, seed 0, positions on), as Home and Step by step run it."""
    return wt.lesson(wt.seeded_source(tuple(words), 16, d_k, seed=0, positional=True)).steps.weights


def test_navigation_lists_every_page(light) -> None:
    assert nav_titles(light.page) == [title for title, _, _ in PAGES]


# --------------------------------------------------------------------------- light


@pytest.mark.xdist_group("pages-light")
@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_page_light(light, title: str, path: str, name: str) -> None:
    session, page = light, light.page
    arrive(session, title, path)
    where = f"{title} (light)"
    problems = errors(session, f"{where}, as opened") + nan_problems(page, f"{where}, as opened")

    if path == "":
        problems += _home_follows_typing(session)
    else:
        before = chart_data(page)
        changed = change_inputs(page)
        if before and changed and chart_data(page) == before:
            problems.append(f"{where}: changing {changed} left every chart's data as it was")
    problems += errors(session, f"{where}, inputs changed") + nan_problems(page, f"{where}, inputs changed")
    problems += small_text_problems(page, where)
    screenshot(page, f"{name}-light")

    if path in TEXT_PAGES:
        problems += hostile_problems(session, title)
    if path == "step-by-step":
        problems += _mask_note(session)
    if path == "real-model":
        problems += _real_model_views(session, "light")
    else:
        problems += a11y.with_table(page, where)
    problems += a11y.with_predict_first(page, where)
    problems += errors(session, f"{where}, at the end")
    assert not problems, "\n".join(problems)

    if path == "":
        _start_here_takes_the_sentence(session)


def _home_z(page) -> np.ndarray | None:
    """The home heatmap's weights as the browser holds them (None while it is not drawn)."""
    found = page.evaluate(
        """() => { const p = document.querySelector(".st-key-home_weights .js-plotly-plot");
                   return p && p._fullData ? Array.from(p._fullData[0].z, r => Array.from(r)) : null; }"""
    )
    return None if found is None else np.array(found, dtype=np.float64)


def _home_follows_typing(session: AppSession) -> list[str]:
    """Home's heatmap holds the engine's weights for its own sentence; typed key by key, without
    Enter, a new sentence redraws it with the weights for the new tokens (queries down, keys
    across), the box keeps the focus, and the address holds the sentence."""
    page = session.page
    box = page.locator(".st-key-home_text input")

    def weights(words) -> np.ndarray:
        h = home_words
        source = wt.seeded_source(tuple(words), h.LIVE_D_MODEL, h.LIVE_D_K, seed=h.LIVE_SEED, positional=True)
        return wt.lesson(source).steps.weights

    own = _tokens(box.input_value())[: home_words.MAX_TOKENS]
    if not np.array_equal(_home_z(page), weights(own)):
        return ["Home: the heatmap does not hold the engine's weights for the page's own sentence"]
    words = _tokens(SENTENCE)
    expected = weights(words)
    box.select_text()
    box.press_sequentially(SENTENCE, delay=40)  # typed key by key; no Enter, no blur

    def shows_new_weights() -> bool:
        z = _home_z(page)
        return z is not None and z.shape == expected.shape and np.array_equal(z, expected)

    eventually(page, shows_new_weights, f"the heatmap's weights for {SENTENCE!r}")
    wait_for_run(page, 0)
    out = []
    if box.input_value() != SENTENCE or not box.evaluate("el => el === document.activeElement"):
        out.append("Home: the sentence box lost its text or its focus while the heatmap was redrawn")
    if parse_qs(urlparse(page.url).query).get("text") != [SENTENCE]:
        out.append(f"Home: the address does not hold the typed sentence: {page.url}")
    axes = page.evaluate(
        """() => { const l = document.querySelector(".st-key-home_weights .js-plotly-plot")._fullLayout;
                   return [Array.from(l.xaxis.ticktext), Array.from(l.yaxis.ticktext)]; }"""
    )
    if axes != [words, words]:
        out.append(f"Home: the heatmap's axes are not the new tokens: {axes}")
    return out


def _start_here_takes_the_sentence(session: AppSession) -> None:
    """Home's first link ("Start here") opens Step by step on the sentence typed on Home: in its
    box, in its address, and in its token list."""
    page = session.page
    follow(page, page.locator(LINKS).first, "step-by-step")
    assert page.locator(".st-key-sbs_text input").input_value() == SENTENCE
    assert parse_qs(urlparse(page.url).query).get("text") == [SENTENCE]
    listed = page.locator(f"{MAIN} [data-testid='stMarkdownContainer'] p").filter(
        has_text=re.compile(f"^0{NUMBER_GAP}")
    )
    text = listed.first.inner_text()
    missing = [t for n, t in enumerate(_tokens(SENTENCE)) if f"{n}{NUMBER_GAP}{t}" not in text]
    assert not missing, f"the token list {text!r} lacks {missing}"
    assert not session.problems(), session.problems()


def _unmarkdown(text: str) -> str:
    """Markdown as it reads on the page: a link as its text, escapes undone."""
    text = re.sub(r"\[((?:\\.|[^\]])*)\]\(#[\w-]+\)", r"\1", text)
    return re.sub(r"\\(.)", r"\1", text)


def _mask_note(session: AppSession) -> list[str]:
    """Switching on the causal mask puts a note near the top that names the setting and links to
    the steps it changed, by name (the masked scores, the weights, the output and the worked cell);
    its first link scrolls to that step. The worked cell's bars highlight key j alone, with no zero
    line drawn down the first bar."""
    page = session.page
    deck = decks.deck("step-by-step")
    switch = page.locator("[data-testid='stSidebar'] .st-key-sbs_causal")
    label = switch.locator("[data-testid='stWidgetLabel']").inner_text().strip()
    changed = ["masked", "weights", "output", "cell"]
    since = run_count(page)
    switch.locator("label").first.click()
    wait_for_run(page, since)
    note = page.locator(f"{MAIN} [data-testid='stAlertContentInfo'] [data-testid='stMarkdownContainer']").filter(
        has=page.locator("a[href*='#sbs-']")
    )
    if note.count() != 1:
        return [f"Step by step: {note.count()} notes of changed steps after switching on {label!r}"]
    said = outline.changed_settings({label: False}, {label: True})
    expected = _unmarkdown(outline.note_text(deck, [deck.index(n) for n in changed], said))
    out = []
    if note.inner_text().strip() != expected:
        out.append(f"Step by step: the note reads {note.inner_text()!r}, not {expected!r}")
    hrefs = [a.get_attribute("href").split("#")[1] for a in note.locator("a").all()]
    if hrefs != [deck.anchor(n) for n in changed]:
        out.append(f"Step by step: the note links to {hrefs}")
    screenshot(page, "path-change-note")
    note.locator("a").first.click()
    first = page.locator(f"#{deck.anchor(changed[0])}")
    eventually(page, lambda: 0 <= first.evaluate("el => el.getBoundingClientRect().top") < 300, "the scroll to step 7")
    bars = page.evaluate(
        """() => {
      const plot = document.querySelector(".st-key-sbs_fig_row .js-plotly-plot");
      return {zeroline: plot._fullLayout.xaxis.zeroline, xzl: plot.querySelectorAll('.xzl').length,
              colours: Array.from(plot.querySelectorAll('.trace.bars .point path'), p => p.style.fill)};
    }"""
    )
    if bars["zeroline"] is not False or bars["xzl"]:
        out.append("Step by step: the worked cell's bars have a zero line")
    colours = bars["colours"]
    if len(set(colours)) != 2 or colours.count(colours[1]) != 1:
        out.append(f"Step by step: the worked cell's bars do not highlight key j alone: {colours}")
    return out


# --------------------------------------------------------------------------- the Real model's views


def _real_model_views(session: AppSession, theme: str) -> list[str]:
    """Each view in turn through the View radio: that view is the one checked, it draws charts, no
    error, no NaN (the Reproduce view: attn_core on the model's own weights gives the model's
    attention), a screenshot (real-model-<view>-<theme>.png), then axe-core with its first
    chart's table shown."""
    page, out = session.page, []
    radio = page.locator("[data-testid='stRadio']").filter(
        has=page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(r"^\s*View\s*$"))
    )
    for view, label in rm_words.VIEWS.items():
        where = f"Real model, {label} ({theme})"
        session.watch.clear()
        option = radio.get_by_text(label, exact=True)
        if not option.locator("xpath=ancestor::label//input").is_checked():
            since = run_count(page)
            option.click()
            wait_for_run(page, since)
        if page.evaluate(CHECKED_RADIO_JS, "View") != label:
            out.append(f"{where}: the View radio shows {page.evaluate(CHECKED_RADIO_JS, 'View')!r}")
        if not chart_data(page):
            out.append(f"{where}: no chart")
        out += errors(session, where) + nan_problems(page, where)
        if view == "reproduce":
            metric = page.locator("[data-testid='stMetric']").filter(has_text=rm_words.METRIC)
            value = float(metric.locator("[data-testid='stMetricValue']").inner_text().replace("−", "-"))
            if not value < 1e-4:
                out.append(f"{where}: attn_core and the model differ by {value}")
        screenshot(page, f"real-model-{view}-{theme}")
        out += a11y.with_table(page, where)
    return out


# --------------------------------------------------------------------------- dark


@pytest.mark.xdist_group("pages-dark")
@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_page_dark(dark, title: str, path: str, name: str) -> None:
    session, page = dark, dark.page
    arrive(session, title, path)
    where = f"{title} (dark)"
    assert is_dark(page), f"--theme.base dark did not give a dark background on {title}"
    assert urlparse(page.url).query == "", f"{title} opened with no settings wrote some: {page.url}"
    problems = errors(session, where) + nan_problems(page, where) + small_text_problems(page, where)
    screenshot(page, f"{name}-dark")
    measured, _labels[name] = screen_problems(page, title)
    problems += measured

    if path == "step-by-step":
        problems += _step_by_step_keyboard(session)
    if path == "real-model":
        problems += _real_model_first_screen(session)
    problems += _link_to_the_next_lesson(session, path)
    if path == "real-model":
        problems += _real_model_views(session, "dark")
    else:
        problems += a11y.with_table(page, where)
    problems += a11y.with_predict_first(page, where)
    problems += errors(session, f"{where}, at the end")
    assert not problems, "\n".join(problems)

    if path in FOLLOWED:
        nxt = pages.next_lesson(_info(path).script) or pages.HOME
        follow(page, page.locator(LINKS).last, nxt.url_path)


@pytest.mark.xdist_group("pages-dark")
def test_the_screens_measured_the_heatmaps_numbers() -> None:
    """The screen checks saw numbers: over the pages, hundreds of heatmap cell numbers measured."""
    if set(_labels) != set(IDS):
        pytest.skip("only some pages were measured in this run")
    assert sum(_labels.values()) > 500, _labels


def _link_to_the_next_lesson(session: AppSession, path: str) -> list[str]:
    """A lesson ends with what it showed and a link to the next lesson (the last one: to Home);
    Home's first link ("Start here") begins the path."""
    info, page = _info(path), session.page
    if not info.on_path:
        return []
    nxt = pages.next_lesson(info.script) or pages.HOME
    links = page.locator(LINKS)
    link = links.first if info is pages.HOME else links.last

    def points_at_next() -> bool:
        return urlparse(link.get_attribute("href") or "").path.strip("/") == nxt.url_path

    # The page's elements replace the last page's as its run draws them: wait, at most a run's time.
    eventually(page, points_at_next, f"{info.title}'s last link to point at {nxt.url_path or 'Home'}")
    if info is not pages.HOME and page.locator("#what-this-page-showed").count() != 1:
        return [f"{info.title}: no “what this page showed” heading above the link"]
    return []


def _step_by_step_keyboard(session: AppSession) -> list[str]:
    """Step by step as opened, outside presenter mode: body text and tick labels at their usual
    sizes; then Tab from the top visits every control in page order, each with a visible focus
    indicator; then the worked cell's pickers from the keyboard, the weights chart's name and
    table against attn_core's own weights."""
    page, out = session.page, []
    tokens = _tokens(page.locator(".st-key-sbs_text input").input_value())
    T = len(tokens)
    body = screens.measure(page, "Step by step").data["body"]
    out += [
        f"Step by step: {b['text']!r} at {b['px']} px, presenter mode's size" for b in body if b["px"] >= PRESENT_PX
    ]
    if chart_titles(page)[0] != f"X ({T}×16)":
        out.append(f"Step by step: the first chart is {chart_titles(page)[0]!r}")
    ticks = tick_labels(page)[0]
    if [t for t, _ in ticks] != [str(n) for n in range(16)] or any(px != PLAIN_TICK_PX for _, px in ticks):
        out.append(f"Step by step: X's tick labels are {ticks}")
    out += _tab_order(page)
    return out + _pickers_from_the_keyboard(page, tokens)


# Moves the keyboard's starting point to the top of the document, as on a page just opened: a
# placeholder at the start of the body takes the focus and goes, leaving nothing focused there.
FROM_THE_TOP_JS = """
() => {
  const mark = document.createElement('span');
  mark.tabIndex = -1;
  document.body.prepend(mark);
  mark.focus();
  mark.remove();
}
"""


def _tab_order(page) -> list[str]:
    page.locator(MAIN).evaluate("el => el.scrollTo(0, 0)")
    page.evaluate(FROM_THE_TOP_JS)
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

    def name(stop) -> str:
        return f"{stop['where']} {stop['tag']}[{stop['testid']}] {stop['name']!r}"

    out = []
    orders = [s["order"] for s in stops if s["order"] is not None]
    missed = [expected[k] for k in range(len(expected)) if k not in set(orders)]
    if missed:
        out.append(f"Step by step: Tab never reached {len(missed)} of {len(expected)} controls: {missed[:10]}")
    if orders != sorted(orders):
        out.append("Step by step: Tab visits the controls out of page order: " + ", ".join(name(s) for s in stops[:60]))
    unseen = [s for s, ind in zip(stops, indicators, strict=True) if ind is None]
    if unseen:
        out.append(
            f"Step by step: focus is not visible on {len(unseen)} of {len(stops)} stops: "
            f"{[name(s) for s in unseen[:5]]}"
        )
    if len(stops) < 40:
        out.append(f"Step by step: only {len(stops)} Tab stops: {[name(s) for s in stops]}")
    return out


def _weights_name_problems(page, tokens: list[str], weights: np.ndarray, i: int) -> list[str]:
    """The weights chart's accessible name states where query i puts most weight, as attn_core
    computed it: query i, the argmax key j and its token, the weight to 2 decimals."""
    label = page.locator(".st-key-sbs_fig_weights svg.main-svg").first.get_attribute("aria-label") or ""
    j = int(np.argmax(weights[i]))
    said = numbers(label)
    claim = [i, j, round(float(weights[i, j]), 2)]  # "query i, its token, ... key j, its token (weight)"
    stated = any(said[k : k + 3] == claim for k in range(len(said)))
    if not (stated and f"“{tokens[i]}”" in label and f"“{tokens[j]}”" in label):
        return [f"Step by step: the weights chart's name {label!r} does not say query {i} puts most weight on key {j}"]
    return []


def _pickers_from_the_keyboard(page, tokens: list[str]) -> list[str]:
    """Tab to "Key token j", open it, move down, Enter: the page reruns with the new key (the
    caption and the address say so). The same for "Query token i", after which the weights chart's
    name speaks about the new query. Last, the weights' table shows every weight (3 decimals)
    under the token labels, as an accessible table named after the chart."""
    weights = _seeded_weights(tokens)
    i0 = int(page.locator("input[role='combobox'][aria-label='Query token i']").input_value().split(":")[0])
    out = _weights_name_problems(page, tokens, weights, i0)

    tab_to(page, "Key token j")
    j = int(pick_with_keys(page, "Key token j").split(":")[0])
    i = i0
    captions = " ".join(page.locator(f"{MAIN} [data-testid='stCaptionContainer']").all_inner_texts())
    if f"j={j}" not in page.url or _unmarkdown(sbs_words.cell_caption(tuple(tokens), i, j)) not in captions:
        out.append(f"Step by step: picking key j = {j} by keyboard did not show it (address {page.url})")

    page.keyboard.press("Shift+Tab")  # the query picker sits just before it
    i = int(pick_with_keys(page, "Query token i").split(":")[0])
    if i == i0 or f"i={i}" not in page.url:
        out.append(f"Step by step: picking query i by keyboard gave {i} (address {page.url})")
    out += _weights_name_problems(page, tokens, weights, i)

    switch = page.locator(".st-key-sbs_fig_weights_table")
    flip(page, switch)
    table = shown_table(page, switch)
    out += [f"Step by step, weights table: {p}" for p in table_problems(table)]
    if table is not None:
        labels = [f"{n}:{t}" for n, t in enumerate(tokens)]
        rows = [[label, *(f"{x:.3f}" for x in row)] for label, row in zip(labels, weights, strict=True)]
        title = page.evaluate(
            "() => document.querySelector('.st-key-sbs_fig_weights .js-plotly-plot')._fullLayout.title.text"
        )
        if table["cols"][1:] != labels or table["rows"] != rows:
            out.append(f"Step by step: the weights table is not attn_core's weights: {table['rows'][:2]}")
        if table["region"][1] != f"Table: {title}":
            out.append(f"Step by step: the weights table's region is named {table['region'][1]!r}")
    return out


def _real_model_first_screen(session: AppSession) -> list[str]:
    """The Real model page as opened: sentence A is the page's "tired" sentence, one head is
    chosen (the one models.it_head finds, counted from 1), "it" is the focus token, the head view
    draws only that head's lines from "it", and the chart starts on the first screen. Then the
    focus token from the keyboard (arrow keys and Enter: the address keeps it), and the button
    that chooses all 12 heads."""
    from attn_core import models

    page, out = session.page, []
    loaded = models.load_model(device="cpu")
    layer, head = models.it_head(loaded)
    tokens = models.extract_attentions(loaded, models.IT_SENTENCES["tired"]).tokens
    it = tokens.index("it")
    chosen = page.evaluate(
        """() => Array.from(document.querySelectorAll("[data-testid='stMultiSelect'] [data-tag]"),
                            c => c.getAttribute('aria-label'))"""
    )
    if page.locator("textarea[aria-label='Sentence A']").input_value() != models.IT_SENTENCES["tired"]:
        out.append("Real model: sentence A is not the page's own sentence")
    if chosen != [f"head {head + 1}"]:
        out.append(f"Real model: the heads chosen are {chosen}, not head {head + 1}")
    focus = page.locator("input[role='combobox'][aria-label='Focus on a query token']").input_value()
    if focus != f"{it}: it":
        out.append(f"Real model: the focus token is {focus!r}")
    view = page.evaluate(
        """() => {
      const plot = document.querySelector(".st-key-rm_head_view .js-plotly-plot");
      const lines = [];
      for (const t of plot._fullData) {  // decoded: the big charts send their lines as float32
        if (!t.meta || t.meta.head === undefined) continue;
        const y = Array.from(t.y || []);
        for (let n = 0; n + 2 < y.length; n += 3) lines.push([t.meta.head, y[n], y[n + 1]]);
      }
      return {title: plot._fullLayout.title.text, top: plot.getBoundingClientRect().top, lines};
    }"""
    )
    if f"layer {layer + 1}" not in view["title"] or not view["lines"] or {h for h, _, _ in view["lines"]} != {head}:
        out.append(f"Real model: the head view is not layer {layer + 1}, head {head + 1}: {view['title']!r}")
    if {q for _, q, _ in view["lines"]} != {it}:
        out.append("Real model: the head view draws lines from other tokens than “it”")
    if view["top"] >= screens.LAPTOP["height"]:
        out.append(f"Real model: the head view starts {view['top']:.0f} px down, below the first screen")
    screenshot(page, "path-real-model-first-screen")

    tab_to(page, "Focus on a query token", limit=400)
    picked = pick_with_keys(page, "Focus on a query token")
    if not re.match(r"^\d+: ", picked) or f"focus={picked.split(':')[0]}" not in page.url:
        out.append(f"Real model: the focus token picked by keyboard, {picked!r}, is not in the address {page.url}")
    out += [f"Real model: stException {e[:200]}" for e in exceptions(page)]

    all_heads = page.get_by_role("button", name=f"All {rm_words.HEADS} heads")
    since = run_count(page)
    all_heads.click()
    wait_for_run(page, since)
    n = page.locator("[data-testid='stMultiSelect'] [data-tag]").count()
    if n != rm_words.HEADS:
        out.append(f"Real model: “All heads” chose {n} heads")
    return out
