"""Predict, then reveal, in a real Chromium, driven as a student does (the pick in its select box,
the estimate on its slider, the Reveal button): on Step by step, the Softmax lab, Masks and cost
and the Real model; light, and dark in presenter mode on the section that asks.

Before the reveal the charts that would give the answer are hidden; the revealed answer names
the right option and states the number attn_core computes (the estimate's error too), as a success
for a right pick and a note for a wrong one; the session's score line counts the picks and averages
the errors; a new question hides the answer again. Sentences are read for the numbers they state,
never for their wording (the quiz's own tests: tests/app/test_page_*.py). Screenshots:
tests/artifacts/classroom-present-revealed-dark.png, classroom-present-window-revealed-dark.png."""

from __future__ import annotations

from urllib.parse import quote_plus

import numpy as np
import pytest

import attn_core
from attn_core import experiments
from attn_core import walkthrough as wt
from lessons.softmax_lab import words as lab_words
from tests.support import decks
from tests.support.browser.checks import Watch, link_problems, screenshot
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import (
    MAIN,
    PROJECTOR,
    chart_boxes,
    chart_titles,
    choose,
    click,
    main_button,
    slide,
)
from tests.support.browser.waits import open_app
from tests.support.sentence_numbers import numbers

pytestmark = pytest.mark.browser

SENTENCE = "The cat sat on the mat."  # Step by step's default sentence
TOKENS = tuple(attn_core.tokenize(SENTENCE))
ALERTS = f"{MAIN} [data-testid='stAlert'] [data-testid^='stAlertContent']"
CAPTIONS = f"{MAIN} [data-testid='stCaptionContainer']"
CHANGE_NOTE = "update\n"  # the note that names the sections a change redrew (ui/outline.py), by its icon
HIDDEN = "Hidden until you reveal"  # the note in place of a chart that would give the answer away


@pytest.fixture
def tab(request, browser):
    """A fresh offline tab on the server of the test's theme (``theme`` parameter)."""
    server = request.getfixturevalue("server" if request.node.callspec.params["theme"] == "light" else "server_dark")
    watch = Watch()
    context = offline_context(browser, watch)
    page = context.new_page()
    watch.attach(page)
    yield page, server
    problems = link_problems(page, watch, server)
    context.close()
    assert not problems, problems
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def option(n: int, tokens=TOKENS) -> str:
    return f"{n}: {tokens[n]}"


def alerts(page) -> list[tuple[str, str]]:
    """(kind, text) of every success and info alert in the main area: the revealed answers. The
    notes that stand where a hidden chart would be, and the note that names what a change redrew,
    are left out."""
    shown = page.evaluate(
        "(sel) => Array.from(document.querySelectorAll(sel), e => [e.dataset.testid, e.innerText.trim()])", ALERTS
    )
    return [(kind, text) for kind, text in shown if not text.startswith((HIDDEN, CHANGE_NOTE))]


def score_lines(page, right: int, asked: int, off: float) -> list[str]:
    """The session's score line: the captions that count ``right`` of ``asked`` and state the
    estimates' mean error ``off``."""
    return [c for c in captions(page) if numbers(c)[:2] == [right, asked] and says(c, off)]


def captions(page) -> list[str]:
    return [t.strip() for t in page.locator(CAPTIONS).all_inner_texts()]


def reveal(page, n: int = 0) -> tuple[str, str]:
    """Press the nth Reveal; returns (kind, text) of the answer it shows."""
    before = alerts(page)
    click(page, main_button(page, "Reveal", nth=n), lambda: any(a not in before for a in alerts(page)), "the answer")
    new = [a for a in alerts(page) if a not in before]
    assert len(new) == 1, new
    return new[0]


def says(text: str, *values: float, digits: int = 3) -> bool:
    """Whether the sentence states each value (rounded to ``digits`` decimals)."""
    said = numbers(text)
    return all(any(abs(x - round(v, digits)) < 10**-digits / 2 for x in said) for v in values)


PREDICT_CASES = [("light", True, False), ("dark", False, True)]  # theme, a right pick, presenter mode (step 8)


@pytest.mark.parametrize(("theme", "right", "presenting"), PREDICT_CASES, ids=["light-right", "dark-wrong-presenting"])
def test_predict_then_reveal_step_by_step(tab, theme: str, right: bool, presenting: bool) -> None:
    page, server = tab
    link = f"step-by-step?predict=1&text={quote_plus(SENTENCE)}&i=3"
    if presenting:
        page.set_viewport_size(PROJECTOR)
    open_app(page, server.url, link + ("&present=1&step=8" if presenting else ""))
    weights = wt.lesson(wt.seeded_source(TOKENS, 16, 4, seed=0, positional=True)).steps.weights
    best = int(np.argmax(weights[3]))
    pick = best if right else (best + 1) % len(TOKENS)
    off = abs(0.6 - weights[3, best])

    assert not page.locator(".st-key-sbs_fig_weights").count() and not page.locator(".st-key-sbs_fig_output").count()
    assert page.locator(".st-key-sbs_predict input").is_checked()
    assert page.locator("input[role='combobox'][aria-label='Query token to predict for']").input_value() == option(3)
    assert not alerts(page)
    if presenting:
        assert page.locator(f"{MAIN} h2").all_inner_texts() == [decks.progress_lines("step-by-step")[7]]
        assert chart_boxes(page) == 0

    choose(page, "Your pick", option(pick))
    assert slide(page, "Your estimate of the largest weight in the row", 2) == "0.60"
    kind, answer = reveal(page)
    assert option(best) in answer and says(answer, weights[3, best], 0.6, off), answer
    assert kind == ("stAlertContentSuccess" if right else "stAlertContentInfo")
    assert right or option(pick) in answer
    score = score_lines(page, int(right), 1, off)
    assert len(score) == 1, captions(page)
    assert np.allclose(_z(page, "sbs_fig_weights"), weights, rtol=0, atol=1e-12)
    if presenting:
        assert chart_boxes(page) == 1
        screenshot(page, f"classroom-present-revealed-{theme}")
    assert main_button(page, "Reveal").is_disabled()

    # Another query token is a new question: the answer and the weights are hidden again.
    choose(page, "Query token to predict for", option(2), until=lambda: not alerts(page))
    assert not page.locator(".st-key-sbs_fig_weights").count()
    assert main_button(page, "Reveal").is_enabled()
    assert score[0] in captions(page)


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def outcome(before: np.ndarray, after: np.ndarray) -> str:
    """The right answer for softmax(m·s) against softmax(s), read from the weights (the rule of
    lessons/softmax_lab/words.py, whose property test checks it over many scores)."""
    if np.abs(after - before).max() < lab_words.MOVED:
        return lab_words.STAY
    if after.max() > lab_words.ALMOST_ALL:
        return lab_words.TAKE_ALL
    if after.max() - after.min() < lab_words.EVEN:
        return lab_words.EQUAL
    return lab_words.GROWS if after.max() > before.max() else lab_words.SHRINKS


def _bars(page) -> dict[str, np.ndarray]:
    """The two weight charts' bars by key, as the browser holds them (only the shown ones)."""
    out = {}
    for key in ("lab_bars_plain", "lab_bars_scaled"):
        y = page.evaluate(
            f"""() => {{ const p = document.querySelector(".st-key-{key} .js-plotly-plot");
                        return p ? Array.from(p._fullData[0].y) : null; }}"""
        )
        if y is not None:
            out[key] = np.array(y, dtype=float)
    return out


@pytest.mark.parametrize(("theme", "presenting"), [("light", False), ("dark", True)], ids=["light", "dark-presenting"])
def test_predict_then_reveal_softmax_lab(tab, theme: str, presenting: bool) -> None:
    page, server = tab
    open_app(page, server.url, "softmax-lab?predict=1" + ("&present=1" if presenting else ""))
    scores = experiments.random_scores(8, seed=0)
    plain, scaled = softmax(scores), softmax(100.0 * scores)
    assert outcome(plain, scaled) == lab_words.TAKE_ALL  # max > 0.9
    assert not _bars(page), "the weights are drawn before the reveal"

    choose(page, "Your pick", lab_words.TAKE_ALL)
    assert slide(page, "Your estimate of the largest weight after multiplying", 10) == "1.00"
    kind, answer = reveal(page)
    assert kind == "stAlertContentSuccess" and lab_words.TAKE_ALL in answer
    assert says(answer, scaled.max(), 1.0, 1 - scaled.max()), answer
    assert len(score_lines(page, 1, 1, 1 - scaled.max())) == 1, captions(page)
    bars = _bars(page)
    assert np.allclose(bars["lab_bars_scaled"], scaled, rtol=0, atol=1e-12)
    assert np.allclose(bars["lab_bars_plain"], plain, rtol=0, atol=1e-12)
    if presenting:
        assert page.locator(f"{MAIN} h2").all_inner_texts() == [decks.progress_lines("softmax-lab")[0]]
        assert chart_boxes(page) == 2  # the section's two weight charts alone

    # m = 1: a new question, its answer hidden; the numbers give another answer.
    assert slide(page, "Multiplier m", -6, until=lambda: not alerts(page)) == "1.0"
    assert "lab_bars_scaled" not in _bars(page)
    kind, answer = reveal(page)
    assert outcome(plain, plain) in answer and says(answer, plain.max()), answer
    still_right = outcome(plain, plain) == lab_words.TAKE_ALL  # the pick is kept
    assert any(numbers(c)[:2] == [1 + still_right, 2] for c in captions(page)), captions(page)


@pytest.mark.parametrize(("theme", "presenting"), [("light", False), ("dark", True)], ids=["light", "dark-presenting"])
def test_predict_then_reveal_the_sliding_window(tab, theme: str, presenting: bool) -> None:
    """Masks and cost asks how many scores the window keeps, in the window's own section; its mask
    and weights are not drawn until the reveal, and the drawn mask then holds that many cells."""
    page, server = tab
    if presenting:
        page.set_viewport_size(PROJECTOR)
    open_app(page, server.url, "masks-and-cost?predict=1&radius=1" + ("&present=1&step=3" if presenting else ""))
    T = len(TOKENS)
    kept = sum(abs(i - j) <= 1 for i in range(T) for j in range(T))  # |i - j| <= r, pair by pair
    window = page.locator(".st-key-masks_window_mask")
    assert not window.count()
    if presenting:
        assert page.locator(f"{MAIN} h2").all_inner_texts() == [decks.progress_lines("masks-and-cost")[2]]
        assert chart_boxes(page) == 0

    choose(page, "Your pick", str(kept))
    kind, answer = reveal(page)
    assert kind == "stAlertContentSuccess" and says(answer, kept, kept / T**2), answer
    mask = _z(page, "masks_window_mask")
    assert mask.shape == (T, T) and mask.sum() == kept
    if presenting:
        screenshot(page, f"classroom-present-window-revealed-{theme}")


TIRED = "The animal didn't cross the street because it was too tired."
CONGESTED = "The animal didn't cross the street because it was congested."


@pytest.mark.model
@pytest.mark.parametrize("theme", ["light"])
def test_predict_where_it_looks_in_the_real_model(tab, theme: str) -> None:
    from attn_core import models

    page, server = tab
    open_app(page, server.url, "real-model?predict=1")
    model = models.load_model(device="cpu")
    layer, head = models.it_head(model)  # the page opens on the head it suggests for "it"
    expected = []
    for text in (TIRED, CONGESTED):
        att = models.extract_attentions(model, text)
        row = att.attentions[layer, head, att.tokens.index("it")].astype(np.float64)
        expected.append((att.tokens, int(np.argmax(row)), float(row.max())))
    (tired_tokens, tired_best, _), (congested_tokens, congested_best, _) = expected

    for n in range(2):  # nothing is picked for the student: Reveal waits for a pick
        assert main_button(page, "Reveal", nth=n).is_disabled()
    choose(page, "Your pick", option(tired_best, tired_tokens), nth=0)  # right about "tired"
    choose(page, "Your pick", option(0, congested_tokens), nth=1)  # the first option for "congested"
    shown = [reveal(page, n) for n in range(2)]
    for (_, text), (tokens, best, top) in zip(shown, expected, strict=True):
        assert option(best, tokens) in text and says(text, top), text
    right = 1 + int(congested_best == 0)
    lines = [c for c in captions(page) if numbers(c)[:2] == [right, 2]]
    assert lines, captions(page)


def _z(page, key: str) -> np.ndarray:
    z = page.evaluate(
        f"""() => {{ const p = document.querySelector(".st-key-{key} .js-plotly-plot");
                    return p ? Array.from(p._fullData[0].z, r => Array.from(r)) : null; }}"""
    )
    assert z is not None, f"no chart {key!r}; the page shows {chart_titles(page)}"
    return np.array(z, dtype=np.float64)
