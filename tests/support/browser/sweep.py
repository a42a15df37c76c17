"""What the browser sweep checks on one load of a page (tests/browser/test_pages.py and
test_presenter.py): each check returns readable problem lines (none: clean), so that a page's
test reports every problem of its load at once, each line saying where it was seen."""

from __future__ import annotations

from tests.support.browser import screens
from tests.support.browser.checks import (
    MIN_FONT_PX,
    chart_data,
    injected_elements,
    nan_cells,
    small_text,
    svg_nan_text,
)
from tests.support.browser.session import AppSession
from tests.support.browser.waits import (
    bump_number,
    fill_text,
    find_by_label,
    nudge_slider,
    number_inputs,
    sliders,
    text_inputs,
    widget_label,
)
from tests.support.hostile_corpus import HOSTILE

BACKGROUND_JS = "() => getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor"
# A sentence unlike every preset, with a repeated word (its rows must stay separate).
SENTENCE = "A small dog chased the other dog home"
# Typed instead when a page already shows SENTENCE (the sentence typed on one page carries to
# the next): other words, since some pages read text in lower case.
OTHER = "A big cat followed the other cat out"
# Typed back after the hostile texts, so that the next page starts from an ordinary sentence.
NORMAL = "The cat sat on the mat."
DK_LABELS = ("d_k", "dₖ", "d k")


def rgb(css: str) -> tuple[int, ...]:
    return tuple(int(c) for c in css[css.index("(") + 1 : css.index(")")].split(",")[:3])


def is_dark(page) -> bool:
    return sum(rgb(page.evaluate(BACKGROUND_JS))) / 3 < 100


def errors(session: AppSession, where: str) -> list[str]:
    """Exceptions, JS errors, console errors, dialogs and requests that left localhost, so far."""
    return [f"{where}: {p}" for p in session.problems()]


def nan_problems(page, where: str) -> list[str]:
    """NaN or infinity in any chart's data (past the gaps the figures leave on purpose) or drawn."""
    out = [f"{where}: NaN/inf in chart data: {p}" for p in nan_cells(chart_data(page))[:10]]
    return out + [f"{where}: NaN drawn on a chart: {t!r}" for t in svg_nan_text(page)[:10]]


def small_text_problems(page, where: str) -> list[str]:
    """Projector rule: no visible text in the main area (HTML, KaTeX or chart SVG) under 12 px."""
    return [
        f"{where}: text under {MIN_FONT_PX:g} px: {o['text']!r} {o['px']} px in {o['where']}" for o in small_text(page)
    ]


def screen_problems(page, title: str) -> tuple[list[str], int]:
    """The page as it is, at 1280×800 and on a 390 px phone (then back): heatmap cell numbers,
    chart titles and their words, sideways scrolling, and on the phone controls large enough for
    a thumb. Returns the problems and how many heatmap cell numbers were measured."""
    out, labels = [], 0
    for size in (screens.LAPTOP, screens.PHONE):
        screens.resize(page, size)
        screen = screens.measure(page, f"{title} at {screens.name(size)}")
        out += screens.problems(screen, projector=False)
        labels += screen.heatmap_labels()
    out += [
        f"{title} at {screens.name(screens.PHONE)}: too small for a thumb: {t}" for t in screens.small_targets(page)
    ]
    screens.resize(page, screens.LAPTOP)
    expand = page.locator("[data-testid='stExpandSidebarButton']")
    if expand.count() and expand.is_visible():  # the phone collapsed the sidebar: the sweep navigates with it
        expand.click()
        page.wait_for_function(
            "() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().x >= 0"
        )
        screens.settle(page)
    return out, labels


# --------------------------------------------------------------------------- changing the inputs


def _dk_widget(page):
    for widgets in (number_inputs(page), sliders(page)):
        for needle in DK_LABELS:
            w = find_by_label(widgets, needle)
            if w is not None:
                return w
    return None


def change_inputs(page) -> list[str]:
    """Change the sentence (first text box) and d_k where the page has them; a page with
    neither gets its first number input or slider moved. Returns what was changed."""
    changed = []
    boxes = text_inputs(page)
    if boxes.count():
        box = boxes.first
        text = SENTENCE if box.locator("input, textarea").first.input_value() != SENTENCE else OTHER
        fill_text(page, box, text)
        changed.append("sentence")
    dk = _dk_widget(page)
    if dk is None and not changed:
        dk = number_inputs(page).first if number_inputs(page).count() else None
        dk = dk or (sliders(page).first if sliders(page).count() else None)
    if dk is not None:
        is_slider = dk.get_attribute("data-testid") == "stSlider"
        nudge_slider(page, dk) if is_slider else bump_number(page, dk)
        changed.append("d_k" if _dk_widget(page) is not None else "first numeric input")
    return changed


def hostile_problems(session: AppSession, title: str) -> list[str]:
    """Every hostile text in every text box of the page, one at a time: no dialog, no markup
    made from the input, no exception or error, no NaN on a chart. Then every box gets an
    ordinary sentence back."""
    page, out = session.page, []
    n_boxes = text_inputs(page).count()
    if not n_boxes:
        return [f"{title} shows no text input"]
    for name, text in HOSTILE.items():
        session.watch.clear()
        for b in range(n_boxes):
            if text_inputs(page).count() <= b:  # an earlier box's hostile text stopped the page before this box
                for earlier in range(b):
                    fill_text(page, text_inputs(page).nth(earlier), NORMAL)
            box = text_inputs(page).nth(b)
            where = f"{title}, box {widget_label(box)!r}, input {name} {text[:40]!r}"
            fill_text(page, box, text)
            out += [f"{where}: a dialog fired: {d}" for d in session.watch.dialogs]
            out += [f"{where}: the input became markup: {e}" for e in injected_elements(page)]
            out += errors(session, where) + nan_problems(page, where)
    for b in range(n_boxes):
        fill_text(page, text_inputs(page).nth(b), NORMAL)
    session.watch.clear()
    return out
