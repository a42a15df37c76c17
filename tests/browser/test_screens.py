"""Issue #23, the two screens of a class, measured in Chromium: a projector in presenter mode and
a phone.

- In presenter mode, at 1280×720, 1024×768 and 1920×1080, every section reached with Next on
  every page: each chart lies fully on the first screen, the largest is at least 40 % of the
  screen's height, and the body text is at least 20 px.
- At 390 px and at 1280×800, on every page and in every presenter section: no heatmap cell number
  spills out of its cell or overlaps another (or is drawn under 9 px), every chart title (and the
  note under it) lies within its chart, no title, axis title or panel name runs into another
  ("d_k dimensid_k dimension"), and the page does not scroll sideways. On the phone,
  every control is large enough for a thumb (axe-core's target-size rule, WCAG 2.2's 2.5.8).

One server and one tab: a page is opened once per mode and the window is resized between
measurements (the charts are drawn again at each size; screens.settle waits for that).
"""

from __future__ import annotations

import re

import pytest

from tests.support.browser.checks import link_problems
from tests.support.browser.screens import (
    LAPTOP,
    LARGEST_SHARE,
    PHONE,
    PROJECTORS,
    Screen,
    measure,
    resize,
    settle,
    small_targets,
)
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import MAIN, PROGRESS, click, main_button, progress_lines
from tests.support.browser.waits import PAGES, open_app

pytestmark = pytest.mark.browser

SIZES = (*PROJECTORS, LAPTOP, PHONE)  # a presenter section is measured at each; the projectors first


@pytest.fixture(scope="module")
def tab(browser, server):
    """One tab for the whole module, with its Watch."""
    from tests.support.browser.checks import Watch

    watch = Watch()
    context = offline_context(browser, watch)
    page = context.new_page()
    watch.attach(page)
    yield page, watch
    context.close()
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def _name(size: dict) -> str:
    return f"{size['width']}×{size['height']}"


def _problems(screen: Screen, projector: bool) -> list[str]:
    """What is wrong with one screen; on a projector, also whether the section fits it."""
    out = screen.cell_problems() + screen.titles_outside() + screen.words_overlapping()
    if screen.scrolls_sideways() > 1:
        out.append(f"the page scrolls {screen.scrolls_sideways():.0f} px sideways")
    if projector:
        out += [f"not on the first screen: {c}" for c in screen.charts_off_screen()]
        if screen.data["charts"] and screen.largest_share() < LARGEST_SHARE:
            out.append(f"the largest chart is {screen.largest_share():.0%} of the screen's height")
        out += [f"body text under 20 px: {t}" for t in screen.small_body_text()]
    return [f"{screen.where}: {p}" for p in out]


def test_every_page_reads_on_a_laptop_and_on_a_phone(tab, server) -> None:
    """Every page as a student opens it, at 1280×800, then on a 390 px phone."""
    page, watch = tab
    problems, labels = [], 0
    for title, path, _ in PAGES:
        page.set_viewport_size(LAPTOP)
        open_app(page, server.url, path)
        for size in (LAPTOP, PHONE):
            resize(page, size)
            screen = measure(page, f"{title} at {_name(size)}")
            problems += _problems(screen, projector=False)
            labels += screen.heatmap_labels()
        problems += [f"{title} at {_name(PHONE)}: too small for a thumb: {t}" for t in small_targets(page)]
        problems += [f"{title}: {p}" for p in link_problems(page, watch, server)]
        watch.clear()
    assert labels > 500, f"only {labels} heatmap cell numbers were measured"  # the checks saw numbers
    assert not problems, "\n".join(problems)


def test_every_presenter_section_fits_a_projector_and_reads_on_a_phone(tab, server) -> None:
    """Presenter mode, every page, every section reached with Next, at the three projector sizes,
    1280×800 and 390 px. The sizes go back and forth (a snake), one resize fewer per section."""
    page, watch = tab
    problems, visited = [], {}
    for title, path, _ in PAGES:
        page.set_viewport_size(SIZES[0])
        open_app(page, server.url, f"{path}?present=1")
        sizes, sections = list(SIZES), 0
        while True:
            line = progress_lines(page)
            where = f"{title} · {line[0] if line else 'presenter mode'}"
            for size in sizes:
                resize(page, size)
                problems += _problems(measure(page, f"{where} at {_name(size)}"), projector=size in PROJECTORS)
            sections += 1
            sizes.reverse()
            nxt = main_button(page, "Next →")
            if not nxt.count() or nxt.is_disabled():
                break
            click(page, nxt, lambda line=line: progress_lines(page) != line, f"the section after {line}")
            settle(page)
        visited[title] = (sections, line[0] if line else "")
        problems += [f"{title}: {p}" for p in link_problems(page, watch, server)]
        watch.clear()
    # Every deck was walked to its end: its last progress line counts as many sections as were seen
    # ("Step 9 of 9" and the extra "One cell, worked through" make ten on Step by step).
    for title, (sections, last) in visited.items():
        counted = re.match(PROGRESS, last)
        if counted:
            total = int(re.search(r"of (\d+)", last).group(1))
            assert sections >= total, f"{title}: {sections} sections seen, the deck has {total}"
    assert sum(n for n, _ in visited.values()) >= 45, visited
    assert not problems, "\n".join(problems)


def test_a_sentence_change_in_presenter_mode_draws_the_chart_at_most_twice(tab, server) -> None:
    """The stage sizes the chart in the browser (height="stretch"). Streamlit hands a newly
    mounted chart to Plotly at the figure's own size before it has measured the stage, then at
    the stage's size: two draws, where a wrapper of Plotly.react used to hand the first call the
    stage's size (gone, issue #31; no public hook sizes that first call). Never more than two
    (a chart drawn again for an axis Plotly rewrote, ui.charts._fix_reversed_rows), and the last
    one fills the chart's box (here on Step by step's step 8 on a projector)."""
    from tests.browser.test_redraw import COUNT_DRAWS_JS, DRAWS_SETTLED_JS
    from tests.support.browser.waits import fill_text, text_inputs

    page, _ = tab
    page.set_viewport_size(PROJECTORS[0])
    open_app(page, server.url, "step-by-step?present=1&step=8")
    page.evaluate(COUNT_DRAWS_JS)
    page.locator("[data-testid='stExpandSidebarButton']").click()  # the sentence waits in the sidebar
    settle(page)  # the chart is drawn again, narrower, beside the open sidebar
    page.wait_for_function(DRAWS_SETTLED_JS, polling=100, timeout=30_000)
    box = text_inputs(page).filter(has=page.get_by_text("Sentence", exact=True)).first
    page.evaluate("() => { window.__draws = 0; }")
    fill_text(page, box, "Seven small words are typed in here")
    page.wait_for_timeout(1000)  # a later draw would come right after the others
    settle(page)  # every chart drawn at its box's size
    assert page.locator(f"{MAIN} .js-plotly-plot").count() == 1
    assert 1 <= int(page.evaluate("() => window.__draws")) <= 2
