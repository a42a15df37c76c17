"""Presenter mode (?present=1), every page once per theme, in a real Chromium: every section
reached with Next, in the order of the page's Deck (tests/support/decks.py), each checked on the
screen it is shown on.

Every section, both themes: its progress line is the deck's and the section's one heading, no
exception, JS error, console error or request that leaves localhost, no NaN in a chart's data or
drawn on it. The first section (and Step by step's step 8): axe-core with the first chart's table
shown (an accessible table, drawn at 22 px or more); the last section: axe-core with "Predict
first" on. Every chart an image named by its description.

Light: each section at 1280×720, 1024×768 and 1920×1080 (a projector: every chart on the first
screen, the largest at least 40 % of its height, body text of 20 px or more), at 1280×800 and on
a 390 px phone (heatmap cell numbers in their cells and apart, chart titles within their charts,
no words running into others, no sideways scrolling): tests/support/browser/screens.py. The
sizes go back and forth (a snake), one resize fewer per section.

What the sections show, on a 1280×720 projector: Step by step's step 1 (the sidebar collapsed,
no chart, Back disabled, body text at presenter size), step 2 (the one chart fits its box, its
tick labels 1.5 times larger than outside presenter mode; Back and Next again) and step 8 (the
weights are attn_core's); Masks and cost's masks, Multi-head's last section, Cross-attention's
and the Decoder's weights against attn_core, and the Real model's views (the head for "it",
the model view, the neuron view and Back). In the dark theme Next and Back are driven from the
keyboard. Screenshots: tests/artifacts/classroom-present-*.png, real-model-present-*.png.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import attn_core as ac
from attn_core import lab_results
from attn_core import trained_decoder as dc
from attn_core import walkthrough as wt
from tests.support import decks
from tests.support.browser import a11y, screens
from tests.support.browser.a11y import axe_violations, tab_to, violations
from tests.support.browser.checks import Watch, link_problems, screenshot
from tests.support.browser.session import offline_context
from tests.support.browser.sweep import nan_problems
from tests.support.browser.teaching import (
    MAIN,
    PRESENT_PX,
    PROJECTOR,
    chart_boxes,
    click,
    main_button,
    sidebar,
    tick_labels,
)
from tests.support.browser.waits import PAGES, open_app, run_count, wait_for_run

pytestmark = pytest.mark.browser

IDS = [name for _, _, name in PAGES]
SIZES = (*screens.PROJECTORS, screens.LAPTOP, screens.PHONE)  # the projectors first
PLAIN_TICK_PX = 13.0  # Plotly's tick labels outside presenter mode
# Sections (0-based) checked with axe-core and a table shown, besides each page's first.
# Plotly's error for a chart drawn in a box without room for its axes (the stage mid-layout on a
# loaded machine); seen on the Softmax lab's log-axis charts in the dark walk under make test.
TRANSIENT_PLOTLY = "Something went wrong with axis scaling"
AXE_LATER = {("step-by-step", 7)}  # the attention weights
FIT_JS = """
() => {
  const plot = document.querySelector("[data-testid='stMain'] .js-plotly-plot");
  return {drawn: plot._fullLayout.width, box: plot.getBoundingClientRect().width,
          right: plot.querySelector('svg.main-svg').getBoundingClientRect().right};
}
"""
# Body text in the main area: paragraphs and list items (captions, labels and buttons left out).
PARAGRAPH_PX_JS = """
() => Array.from(document.querySelectorAll("[data-testid='stMain'] [data-testid='stMarkdownContainer'] :is(p, li)"))
  .filter(p => p.checkVisibility() && p.textContent.trim() && !p.closest("[data-testid='stCaptionContainer'], "
         + "[data-testid='stWidgetLabel'], button, h2, [data-testid='stAlert']"))
  .map(p => [p.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(p).fontSize)])
"""


class Tab:
    """One offline tab for the whole module, with its Watch."""

    def __init__(self, browser, server) -> None:
        self.server, self.watch = server, Watch()
        self.context = offline_context(browser, self.watch)
        self.page = self.context.new_page()
        self.watch.attach(self.page)

    def problems(self, where: str) -> list[str]:
        """Errors so far (less the 404 of the health probe a link to a page makes). Plotly's
        "Something went wrong with axis scaling", thrown when a chart is drawn in a box not yet
        laid out, counts only if some chart is still not drawn at its box's size once the page
        has settled (then the page really shows a broken chart)."""
        found = link_problems(self.page, self.watch, self.server)
        if any(TRANSIENT_PLOTLY in p for p in found):
            screens.settle(self.page)  # raises, naming the charts, if one stays broken
            found = [p for p in found if TRANSIENT_PLOTLY not in p]
        return [f"{where}: {p}" for p in found]

    def close(self) -> list[str]:
        self.context.close()
        return self.watch.blocked


@pytest.fixture(scope="module")
def light(browser, server):
    tab = Tab(browser, server)
    yield tab
    assert not tab.close(), "a page tried to reach the internet"


@pytest.fixture(scope="module")
def dark(browser, server_dark):
    tab = Tab(browser, server_dark)
    yield tab
    assert not tab.close(), "a page tried to reach the internet"


@pytest.mark.xdist_group("presenter-light")
@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_presenter_light(light, title: str, path: str, name: str) -> None:
    _walk(light, title, path, "light")


@pytest.mark.xdist_group("presenter-dark")
@pytest.mark.parametrize(("title", "path", "name"), PAGES, ids=IDS)
def test_presenter_dark(dark, title: str, path: str, name: str) -> None:
    _walk(dark, title, path, "dark")


def _progress(page) -> list[str]:
    """Presenter mode's progress line: the main area's one h2 (none on a page without sections)."""
    return [t.strip() for t in page.locator(f"{MAIN} h2").all_inner_texts()]


def _headings(page) -> list[str]:
    return [t.strip() for t in page.locator(f"{MAIN} :is(h2, h3)").all_inner_texts()]


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _collapse_sidebar(page) -> None:
    """Presenter mode opens with the sidebar collapsed (app.py), but a tab keeps the sidebar its
    user opened on an earlier page (the last page's predict-first check opened it): close it, as
    a teacher opening a presenter link sees the page."""
    if sidebar(page)["collapsed"] == "true":
        return
    page.locator("[data-testid='stSidebar']").hover()
    page.locator("[data-testid='stSidebarCollapseButton'] button").click()
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stSidebar']\").getAttribute('data-collapsed') === 'true'"
    )
    screens.settle(page)


def _walk(tab: Tab, title: str, path: str, theme: str) -> None:
    page, measuring = tab.page, theme == "light"
    page.set_viewport_size(SIZES[0] if measuring else PROJECTOR)
    tab.watch.clear()
    open_app(page, tab.server.url, f"{path}?present=1")
    _collapse_sidebar(page)
    deck, expected = decks.deck(path), decks.progress_lines(path)
    problems, seen, sizes = [], [], list(SIZES)
    while True:
        progress = _progress(page)
        k = expected.index(progress[0]) if progress and progress[0] in expected else len(seen)
        where = f"{title} ({theme}) · {progress[0] if progress else 'presenter mode'}"
        if deck is not None:
            # The progress line is the section's one heading: the page's own heading for it is left out.
            own = {deck.heading(k), deck.titles[k]} if k < len(expected) else set()
            if progress != expected[k : k + 1] or own & set(_headings(page)):
                problems.append(f"{where}: the headings are {_headings(page)}, not the progress line alone")
        seen.append(k)
        if measuring:
            for size in sizes:
                screens.resize(page, size)
                measured = screens.measure(page, f"{where} at {screens.name(size)}")
                problems += screens.problems(measured, projector=size in screens.PROJECTORS)
            sizes.reverse()
        problems += tab.problems(where) + nan_problems(page, where)
        check = SECTIONS.get((path, k))
        if check is not None:
            screens.resize(page, PROJECTOR)
            problems += check(tab, theme)
        if k == 0 or (path, k) in AXE_LATER:
            if measuring:
                screens.resize(page, screens.LAPTOP)
            problems += a11y.with_table(page, where, present_px=PRESENT_PX)
        problems += tab.problems(where)
        tab.watch.clear()
        nxt = main_button(page, "Next →")
        if not nxt.count() or nxt.is_disabled():
            break
        before = _progress(page)
        click(page, nxt, lambda before=before: _progress(page) != before, f"the section after {before}")
        screens.settle(page)
    if expected and sorted(set(seen)) != list(range(len(expected))):
        problems.append(f"{title} ({theme}): the walk saw sections {seen} of {len(expected)}")
    problems += a11y.with_predict_first(page, f"{title} ({theme}, presenter mode, the last section)")
    problems += tab.problems(f"{title} ({theme}), at the end")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- what sections show

Check = Callable[[Tab, str], list[str]]
SBS_TEXT = "The cat sat on the mat."  # Step by step's default sentence
TOKENS = tuple(ac.tokenize(SBS_TEXT))


def _paragraphs_under(page, px: float, where: str) -> list[str]:
    return [
        f"{where}: {text!r} at {size} px, under {px:g} px" for text, size in page.evaluate(PARAGRAPH_PX_JS) if size < px
    ]


def _z(page, key: str) -> np.ndarray:
    """The first trace's z of the chart with this key, as the browser holds it."""
    z = page.evaluate(
        f"""() => {{ const p = document.querySelector(".st-key-{key} .js-plotly-plot");
                    return p ? Array.from(p._fullData[0].z, r => Array.from(r)) : null; }}"""
    )
    assert z is not None, f"no chart {key!r} on the page"
    return np.array(z, dtype=np.float64)


def _move(page, name: str, line: str) -> None:
    click(page, main_button(page, name), lambda: _progress(page) == [line], line)
    screens.settle(page)


def sbs_step_1(tab: Tab, theme: str) -> list[str]:
    """Step 1 on a projector: body text at presenter size, the sidebar collapsed (its button shows),
    no chart, Back disabled. In the dark theme, Tab to Next and press Enter, then Space: steps 2 and
    3; Back with Enter returns to step 2 (axe-core finds nothing on step 2 either)."""
    page, lines = tab.page, decks.progress_lines("step-by-step")
    out = _paragraphs_under(page, PRESENT_PX, "Step by step, step 1")
    bar = sidebar(page)
    if bar["collapsed"] != "true" or bar["right"] > 0 or not page.get_by_test_id("stExpandSidebarButton").is_visible():
        out.append(f"Step by step, step 1: the sidebar is not collapsed: {bar}")
    if chart_boxes(page) or not main_button(page, "← Back").is_disabled():
        out.append("Step by step, step 1: it shows a chart, or Back is enabled")
    if theme != "dark":
        return out

    def press(key: str) -> None:
        since = run_count(page)
        page.keyboard.press(key)
        wait_for_run(page, since)

    def focused() -> str:
        return page.evaluate("() => (document.activeElement.innerText || '').trim()")

    tab_to(page, "Next →")
    press("Enter")
    assert _progress(page) == [lines[1]], _progress(page)
    out += violations("Step by step (presenter mode, dark), step 2", axe_violations(page))
    if focused() != "Next →":
        tab_to(page, "Next →")  # a rerun may have redrawn the button
    press("Space")
    assert _progress(page) == [lines[2]], _progress(page)
    for _ in range(5):  # back from Next to Back, past the progress line
        page.keyboard.press("Shift+Tab")
        if focused() == "← Back":
            break
    press("Enter")
    assert _progress(page) == [lines[1]], _progress(page)
    assert _query(page).get("step") == ["2"], page.url
    _move(page, "← Back", lines[0])  # the walk goes on from step 1
    return out


def sbs_step_2(tab: Tab, theme: str) -> list[str]:
    """Step 2 (reached with Next: its address says so): one chart, X, drawn within its box, its tick
    labels 1.5 times the usual size; Back returns to step 1, without a chart, and Next comes back."""
    page, lines = tab.page, decks.progress_lines("step-by-step")
    out = []
    if _query(page).get("step") != ["2"] or _query(page).get("present") != ["1"]:
        out.append(f"Step by step, step 2: the address is {page.url}")
    ticks = tick_labels(page)
    if chart_boxes(page) != 1 or [t for t, _ in ticks[0]] != [str(n) for n in range(16)]:
        out.append(f"Step by step, step 2: {chart_boxes(page)} charts, ticks {ticks[:1]}")
    if not all(px >= 1.45 * PLAIN_TICK_PX for _, px in ticks[0]):
        out.append(f"Step by step, step 2: presenter mode's tick labels are {ticks[0]}")
    fit = page.evaluate(FIT_JS)
    if fit["drawn"] > fit["box"] or fit["right"] > PROJECTOR["width"]:
        out.append(f"Step by step, step 2: the chart does not fit: {fit}")
    screenshot(page, f"classroom-present-step2-{theme}")
    _move(page, "← Back", lines[0])
    if _query(page).get("step", ["1"]) != ["1"] or chart_boxes(page):
        out.append(f"Step by step, back on step 1: {page.url}, {chart_boxes(page)} charts")
    _move(page, "Next →", lines[1])
    return out


def sbs_step_8(tab: Tab, theme: str) -> list[str]:
    """Step 8: one chart, the attention weights as attn_core computes them, and the text beside it
    at presenter size."""
    page = tab.page
    weights = wt.lesson(wt.seeded_source(TOKENS, 16, 4, seed=0, positional=True)).steps.weights
    out = _paragraphs_under(page, PRESENT_PX, "Step by step, step 8")
    if chart_boxes(page) != 1 or not np.allclose(_z(page, "sbs_fig_weights"), weights, rtol=0, atol=1e-12):
        out.append("Step by step, step 8: not one chart of attn_core's weights")
    screenshot(page, f"classroom-present-step8-{theme}")
    return out


def _mask_z(page, kind: str) -> np.ndarray:
    return _z(page, f"masks_{kind}_mask")


def masks_sections(k: int) -> Check:
    """Masks and cost's first two sections: the global mask (every pair may attend) and the causal
    mask (no key after its query), each with its weights, and nothing else."""

    def check(tab: Tab, theme: str) -> list[str]:
        page, T = tab.page, len(TOKENS)
        kind, want = [("global", np.ones((T, T))), ("causal", np.tril(np.ones((T, T))))][k]
        out = []
        if chart_boxes(page) != 2 or not np.array_equal(_mask_z(page, kind), want):
            out.append(f"Masks and cost, the {kind} mask: {chart_boxes(page)} charts, or not the {kind} mask")
        if k == 1 and _query(page).get("step") != ["2"]:
            out.append(f"Masks and cost, section 2: the address is {page.url}")
        return out

    return check


def multi_head_last(tab: Tab, theme: str) -> list[str]:
    """Multi-head's last section: its charts alone (none of section 1's heads), and Next disabled."""
    page = tab.page
    if not chart_boxes(page) or page.locator("[class*='st-key-mh_head_']").count():
        return ["Multi-head, section 2: no chart, or section 1's heads are shown too"]
    return [] if main_button(page, "Next →").is_disabled() else ["Multi-head, section 2: Next is enabled"]


def cross_sections(k: int) -> Check:
    """Cross-attention: section 1 draws Q, K and V (Back disabled); section 2, reached with Next,
    the scores and the weights, which are attn_core's."""

    def check(tab: Tab, theme: str) -> list[str]:
        page = tab.page
        if k == 0:
            ok = chart_boxes(page) == 3 and main_button(page, "← Back").is_disabled()
            return [] if ok else [f"Cross-attention, section 1: {chart_boxes(page)} charts, or Back enabled"]
        source, target = ac.tokenize("The cat sat on the mat."), ac.tokenize("Le chat s'est assis sur le tapis.")
        lesson = lab_results.cross_lesson(tuple(source), tuple(target), d_model=16, d_k=4, seed=0, swap=False)
        out = []
        if _query(page).get("step") != ["2"] or _query(page).get("present") != ["1"]:
            out.append(f"Cross-attention, section 2: the address is {page.url}")
        if chart_boxes(page) != 2 or not np.array_equal(_z(page, "cross_weights"), lesson.steps.weights):
            out.append("Cross-attention, section 2: not two charts, or the weights are not attn_core's")
        return out

    return check


def decoder_sections(k: int) -> Check:
    """The Decoder: section 1 (the words) has no chart and Back is disabled; section 2 draws every
    head, the chosen head and its head view, the chosen head's weights the model's own."""

    def check(tab: Tab, theme: str) -> list[str]:
        page = tab.page
        if k == 0:
            ok = chart_boxes(page) == 0 and main_button(page, "← Back").is_disabled()
            return [] if ok else ["Decoder, section 1: it shows a chart, or Back is enabled"]
        text = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
        lesson = dc.decoder_lesson(dc.load_decoder(), text)
        out = []
        if _query(page).get("step") != ["2"] or _query(page).get("present") != ["1"]:
            out.append(f"Decoder, section 2: the address is {page.url}")
        if chart_boxes(page) != 3 or not np.array_equal(_z(page, "dec_fig_head"), lesson.run.attentions[1, 0]):
            out.append("Decoder, section 2: not three charts, or layer 2, head 1 is not the model's")
        return out

    return check


def _first_chart_top(page) -> float:
    return page.locator(f"{MAIN} [data-testid='stPlotlyChart']").first.bounding_box()["y"]


def real_model_views(k: int) -> Check:
    """The Real model, one view at a time: the head view opens on the head for "it" (layers counted
    from 1), with no View radio on the stage; the model view replaces it (the address says which);
    each view's chart starts in the top three quarters of the screen, and its text is at presenter
    size. From the neuron view, Back returns to the model view."""

    def check(tab: Tab, theme: str) -> list[str]:
        from attn_core import models

        page, lines, out = tab.page, decks.progress_lines("real-model"), []
        view = ["head", "model", "neuron"][k]
        if _first_chart_top(page) >= PROJECTOR["height"] * 0.75:
            out.append(f"Real model, {view} view: the chart starts below the first screen")
        if k == 0:
            layer, _ = models.it_head(models.load_model(device="cpu"))
            title = page.evaluate(
                "() => document.querySelector('.st-key-rm_head_view .js-plotly-plot')._fullLayout.title.text"
            )
            if f"layer {layer + 1}" not in title:
                out.append(f"Real model, head view: {title!r} is not layer {layer + 1}")
            if page.locator(f"{MAIN} [data-testid='stRadio']").count() or not main_button(page, "← Back").is_disabled():
                out.append("Real model, head view: a View radio on the stage, or Back enabled")
        if k == 1:
            if _query(page) != {"present": ["1"], "view": ["model"]}:
                out.append(f"Real model, model view: the address is {page.url}")
            if page.locator(".st-key-rm_head_view").count() or not page.locator(".st-key-rm_model_view").count():
                out.append("Real model, model view: the head view is still shown, or the model view is not")
            out += _paragraphs_under(page, PRESENT_PX, "Real model, model view")
        if k == 2:
            if not page.locator("[class*='st-key-rm_neuron_'] .js-plotly-plot").count():
                out.append("Real model, neuron view: no neuron chart")
            screenshot(page, f"real-model-present-{view}-{theme}")
            _move(page, "← Back", lines[1])
            if _query(page).get("view") != ["model"]:
                out.append(f"Real model, back from the neuron view: the address is {page.url}")
            _move(page, "Next →", lines[2])
            return out
        screenshot(page, f"real-model-present-{view}-{theme}")
        return out

    return check


SECTIONS: dict[tuple[str, int], Check] = {
    ("step-by-step", 0): sbs_step_1,
    ("step-by-step", 1): sbs_step_2,
    ("step-by-step", 7): sbs_step_8,
    ("masks-and-cost", 0): masks_sections(0),
    ("masks-and-cost", 1): masks_sections(1),
    ("multi-head", 1): multi_head_last,
    ("cross-attention", 0): cross_sections(0),
    ("cross-attention", 1): cross_sections(1),
    ("decoder", 0): decoder_sections(0),
    ("decoder", 1): decoder_sections(1),
    ("real-model", 0): real_model_views(0),
    ("real-model", 1): real_model_views(1),
    ("real-model", 2): real_model_views(2),
}
