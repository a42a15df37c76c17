"""Issue #14, "Classroom", in a real Chromium: presenter mode on a 1280×720 projector,
predict-then-reveal, the exports (CSV, .npy, .npz, PNG, SVG), "Copy link to this view" and
"Show as table".

Numbers are checked against attn_core, called here with the page's settings, and against
NumPy where the maths is one line; downloads are captured from the browser and parsed back.
Screenshots of presenter mode go to tests/artifacts/classroom-present-*.png.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import parse_qs, quote_plus, urlparse

import numpy as np
import pytest

import attn_core
from attn_core import experiments
from attn_core import walkthrough as wt
from lessons.softmax_lab import words as lab_words
from tests.browser.test_links import WIDGET_VALUE_JS
from tests.support.browser.checks import Watch, chart_data, link_problems, screenshot
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import (
    MAIN,
    PRESENT_PX,
    PROJECTOR,
    answers,
    chart_boxes,
    chart_titles,
    choose,
    click,
    download,
    download_button,
    eventually,
    html_table,
    main_button,
    npy,
    paragraph_px,
    png_size,
    progress_lines,
    read_csv,
    score_lines,
    sidebar,
    slide,
    switch_on,
    tick_labels,
)
from tests.support.browser.waits import open_app, run_count

pytestmark = pytest.mark.browser

SENTENCE = "The cat sat on the mat."  # Step by step's default sentence
TOKENS = tuple(attn_core.tokenize(SENTENCE))  # The cat sat on the mat .
PLAIN_TICK_PX = 13.0  # Plotly's tick labels outside presenter mode
WEIGHTS_TITLE = f"A = softmax(M) ({len(TOKENS)}×{len(TOKENS)})"  # Step 8's chart
WEIGHTS = "query \\ key"  # the corner cell of every attention chart's CSV
# The first chart's drawn width against its box, and the right edge of its drawing.
FIT_JS = """
() => {
  const plot = document.querySelector("[data-testid='stMain'] .js-plotly-plot");
  return {drawn: plot._fullLayout.width, box: plot.getBoundingClientRect().width,
          right: plot.querySelector('svg.main-svg').getBoundingClientRect().right};
}
"""


def sbs_lesson(d_k: int = 4) -> wt.Lesson:
    """What Step by step computes with its defaults (d_model 16, seed 0, positions on)."""
    return wt.lesson(wt.seeded_source(TOKENS, 16, d_k, seed=0, positional=True))


def option(n: int, tokens=TOKENS) -> str:
    return f"{n}: {tokens[n]}"


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query)


def chart_z(page, title: str) -> np.ndarray:
    """The first trace's z of the chart with this title, as the browser holds it."""
    charts = [c for c in chart_data(page) if c["title"] == title]
    assert len(charts) == 1, f"expected one chart {title!r}, got {chart_titles(page)}"
    return np.array(charts[0]["traces"][0]["z"], dtype=np.float64)


@dataclass(frozen=True)
class Matrix:
    """What a chart's CSV and .npy must hold: the engine's values and the chart's labels."""

    values: np.ndarray
    rows: list[str]
    cols: list[str]
    corner: str = WEIGHTS


def check_downloads(page, key: str, expected: Matrix, exact: bool = True) -> bytes:
    """Click the chart's CSV and .npy buttons; both files hold the expected matrix, the CSV
    with the chart's labels on its rows and columns. Returns the CSV's bytes."""
    csv_file = download(page, download_button(page, f"{key}_csv"))
    assert csv_file.name.endswith(".csv"), csv_file.name
    table = read_csv(csv_file.data)
    assert (table.corner, table.rows, table.cols) == (expected.corner, expected.rows, expected.cols)
    want = np.asarray(expected.values, dtype=np.float64)
    assert table.values.shape == want.shape
    if exact:
        assert np.array_equal(table.values, want), f"{key}: the CSV differs from the engine"
    else:
        assert np.allclose(table.values, want, rtol=0, atol=1e-6), f"{key}: the CSV differs from the engine"

    npy_file = download(page, download_button(page, f"{key}_npy"))
    assert npy_file.name.endswith(".npy"), npy_file.name
    saved = npy(npy_file.data)
    assert saved.shape == expected.values.shape and saved.dtype == expected.values.dtype
    if exact:
        assert np.array_equal(saved, expected.values), f"{key}: the .npy differs from the engine"
    else:
        assert np.allclose(saved, expected.values, rtol=0, atol=1e-6), f"{key}: the .npy differs from the engine"
    return csv_file.data


def subheaders(page, prefix: str) -> list[str]:
    return [t for t in page.locator(f"{MAIN} h3").all_inner_texts() if t.startswith(prefix)]


def shows_progress(page, line: str):
    return lambda: progress_lines(page) == [line]


def themed(request, theme: str):
    """The session's server for one theme."""
    return request.getfixturevalue("server" if theme == "light" else "server_dark")


@pytest.fixture(params=["light", "dark"])
def app(request):
    """The app in each theme."""
    return themed(request, request.param)


# --- 1. presenter mode ------------------------------------------------------------------


def test_presenter_mode_shows_one_step_at_a_time(page, watch, app) -> None:
    page.set_viewport_size(PROJECTOR)
    open_app(page, app.url, "step-by-step?present=1")

    assert paragraph_px(page, "The sentence is cut into tokens") >= PRESENT_PX  # step 1 (the intro is left out)
    bar = sidebar(page)
    assert bar["collapsed"] == "true" and bar["right"] <= 0, f"the sidebar is not collapsed: {bar}"
    assert page.get_by_test_id("stExpandSidebarButton").is_visible()
    assert progress_lines(page) == ["Step 1 of 9 · Tokens"]
    assert chart_boxes(page) == 0, "step 1 (the tokens) has no chart"
    assert subheaders(page, "Step ") == [], "the progress line is the section's one heading"
    assert main_button(page, "← Back").is_disabled()

    step2 = "Step 2 of 9 · X, one vector per token"
    click(page, main_button(page, "Next →"), shows_progress(page, step2), step2)
    assert query(page.url).get("step") == ["2"] and query(page.url).get("present") == ["1"]
    assert subheaders(page, "Step ") == []
    assert chart_boxes(page) == 1 and chart_titles(page) == [f"X ({len(TOKENS)}×16)"]
    presented = tick_labels(page)[0]
    assert [t for t, _ in presented] == [str(n) for n in range(16)]
    fit = page.evaluate(FIT_JS)
    assert fit["drawn"] <= fit["box"] and fit["right"] <= PROJECTOR["width"], f"the chart does not fit: {fit}"
    screenshot(page, f"classroom-present-step2-{app.theme}")

    step1 = "Step 1 of 9 · Tokens"
    click(page, main_button(page, "← Back"), shows_progress(page, step1), step1)
    assert query(page.url).get("step", ["1"]) == ["1"]
    assert chart_boxes(page) == 0

    open_app(page, app.url, "step-by-step?present=1&step=8")  # a link straight to one step
    assert progress_lines(page) == ["Step 8 of 9 · Attention weights (softmax)"]
    assert subheaders(page, "Step ") == []
    assert chart_boxes(page) == 1 and chart_titles(page) == [WEIGHTS_TITLE]
    assert np.allclose(chart_z(page, WEIGHTS_TITLE), sbs_lesson().steps.weights, rtol=0, atol=1e-12)
    assert paragraph_px(page, "The softmax turns") >= PRESENT_PX
    screenshot(page, f"classroom-present-step8-{app.theme}")

    # Chart text is drawn 1.5 times larger (test_without_presenter_mode_text_has_its_usual_size: 13 px).
    assert all(px >= 1.45 * PLAIN_TICK_PX for _, px in presented), f"presenter mode ticks: {presented}"
    assert not link_problems(page, watch, app)


def test_presenter_mode_on_other_long_pages(page, watch, server) -> None:
    page.set_viewport_size(PROJECTOR)
    open_app(page, server.url, "masks-and-cost?present=1")
    assert progress_lines(page) == ["Section 1 of 6 · Global mask"]
    assert chart_titles(page) == ["Global mask (1 = may attend)", "Global weights"]
    headers = page.locator(f"{MAIN} :is(h2, h3)").all_inner_texts()
    # One heading per section: the progress line; the page's own "1. Four masks" and "Global" are left out.
    assert [h for h in headers if "mask" in h.lower()] == ["Section 1 of 6 · Global mask"], headers
    causal = "Section 2 of 6 · Causal mask"
    click(page, main_button(page, "Next →"), shows_progress(page, causal), causal)
    assert chart_titles(page) == ["Causal mask (1 = may attend)", "Causal weights"]
    assert query(page.url).get("step") == ["2"]

    open_app(page, server.url, "multi-head?present=1&step=2")
    assert progress_lines(page) == ["Section 2 of 2 · Concatenate, then mix with W_O"]
    titles = chart_titles(page)
    assert titles and titles[0].startswith("Concat(head_1..head_H)"), titles
    assert not [t for t in titles if t.startswith("Head ")], f"section 1's heads are shown too: {titles}"
    assert main_button(page, "Next →").is_disabled()
    assert not link_problems(page, watch, server)


# --- 2. predict, then reveal ----------------------------------------------------------------


PREDICT_CASES = [("light", True, False), ("dark", False, True)]  # theme, a right pick, presenter mode (step 8)


@pytest.mark.parametrize(("theme", "right", "presenting"), PREDICT_CASES, ids=["light-right", "dark-wrong-presenting"])
def test_predict_then_reveal_step_by_step(page, watch, request, theme: str, right: bool, presenting: bool) -> None:
    app = themed(request, theme)
    link = "step-by-step?predict=1&text=The+cat+sat+on+the+mat.&i=3"
    if presenting:
        page.set_viewport_size(PROJECTOR)
    open_app(page, app.url, link + ("&present=1&step=8" if presenting else ""))
    weights = sbs_lesson().steps.weights[3]
    best = int(np.argmax(weights))
    pick = best if right else (best + 1) % len(TOKENS)
    off = abs(0.6 - weights[best])

    titles = chart_titles(page)
    assert WEIGHTS_TITLE not in titles and not [t for t in titles if t.startswith("Z = AV")], titles
    assert page.evaluate(WIDGET_VALUE_JS, "Predict first") is True
    assert page.evaluate(WIDGET_VALUE_JS, "Query token to predict for") == option(3)
    assert not answers(page) and not score_lines(page)
    if presenting:
        assert progress_lines(page) == ["Step 8 of 9 · Attention weights (softmax)"] and chart_boxes(page) == 0

    choose(page, "Your pick", option(pick))
    assert slide(page, "Your estimate of the largest weight in the row", 2) == "0.60"
    click(page, main_button(page, "Reveal"), lambda: len(answers(page)) == 1, "the answer")

    shown = answers(page)
    assert shown[0].startswith(f"The answer: {option(best)}, with the largest weight in the row = {weights[best]:.3f}.")
    verdict = "Your pick was right." if right else f"You picked {option(pick)}."
    assert f"{verdict} Your estimate 0.60 was off by {off:.3f}." in shown[0]
    kind = "stAlertContentSuccess" if right else "stAlertContentInfo"
    assert page.locator(f"{MAIN} [data-testid='{kind}']").filter(has_text="The answer:").count() == 1
    expected_score = f"Your predictions this session: {int(right)} of 1 right, estimates off by {off:.3f} on average."
    assert score_lines(page) == [expected_score]
    assert np.allclose(chart_z(page, WEIGHTS_TITLE), sbs_lesson().steps.weights, rtol=0, atol=1e-12)
    if presenting:
        assert chart_titles(page) == [WEIGHTS_TITLE]
        screenshot(page, f"classroom-present-revealed-{theme}")
    assert main_button(page, "Reveal").is_disabled()

    # Another query token is a new question: the answer and the weights are hidden again.
    choose(page, "Query token to predict for", option(2), until=lambda: not answers(page))
    assert WEIGHTS_TITLE not in chart_titles(page)
    assert main_button(page, "Reveal").is_enabled()
    assert score_lines(page) == [expected_score]
    assert not link_problems(page, watch, app)


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


@pytest.mark.parametrize(("theme", "presenting"), [("light", False), ("dark", True)], ids=["light", "dark-presenting"])
def test_predict_then_reveal_softmax_lab(page, watch, request, theme: str, presenting: bool) -> None:
    app = themed(request, theme)
    open_app(page, app.url, "softmax-lab?predict=1" + ("&present=1" if presenting else ""))
    scores = experiments.random_scores(8, seed=0)
    plain, scaled = softmax(scores), softmax(100.0 * scores)
    assert outcome(plain, scaled) == lab_words.TAKE_ALL  # max > 0.9
    titles = chart_titles(page)
    assert "Weights softmax(m·s)" not in titles and "Weights softmax(s)" not in titles, titles

    choose(page, "Your pick", lab_words.TAKE_ALL)
    assert slide(page, "Your estimate of the largest weight after multiplying", 10) == "1.00"
    click(page, main_button(page, "Reveal"), lambda: len(answers(page)) == 1, "the answer")
    assert answers(page)[0].startswith(
        f"The answer: {lab_words.TAKE_ALL}, with the largest weight after multiplying = "
        f"{scaled.max():.3f}. Your pick was right. Your estimate 1.00 was off by {1 - scaled.max():.3f}."
    )
    assert score_lines(page)[0].startswith("Your predictions this session: 1 of 1 right")
    bars = {c["title"]: np.array(c["traces"][0]["y"], dtype=float) for c in chart_data(page)}
    assert np.allclose(bars["Weights softmax(m·s)"], scaled, rtol=0, atol=1e-12)
    assert np.allclose(bars["Weights softmax(s)"], plain, rtol=0, atol=1e-12)
    if presenting:
        assert progress_lines(page) == ["Section 1 of 3 · Large scores saturate the softmax"]
        assert list(bars) == ["Weights softmax(s)", "Weights softmax(m·s)"], list(bars)

    # m = 1: a new question, its answer hidden; the numbers give another answer.
    assert slide(page, "Multiplier m", -6, until=lambda: not answers(page)) == "1.0"
    assert "Weights softmax(m·s)" not in chart_titles(page)
    click(page, main_button(page, "Reveal"), lambda: len(answers(page)) == 1, "the second answer")
    assert answers(page)[0].startswith(
        f"The answer: {outcome(plain, plain)}, with the largest weight after multiplying = {plain.max():.3f}."
    )
    still_right = outcome(plain, plain) == lab_words.TAKE_ALL  # the pick is kept
    assert score_lines(page)[0].startswith(f"Your predictions this session: {1 + still_right} of 2 right")
    assert not link_problems(page, watch, app)


@pytest.mark.parametrize(("theme", "presenting"), [("light", False), ("dark", True)], ids=["light", "dark-presenting"])
def test_predict_then_reveal_the_sliding_window(page, watch, request, theme: str, presenting: bool) -> None:
    """Masks and cost asks how many scores the window keeps, in the window's own section; its mask
    and weights are not drawn until the reveal, and the drawn mask then holds that many cells."""
    app = themed(request, theme)
    if presenting:
        page.set_viewport_size(PROJECTOR)
    open_app(page, app.url, "masks-and-cost?predict=1&radius=1" + ("&present=1&step=3" if presenting else ""))
    T = len(TOKENS)
    kept = sum(abs(i - j) <= 1 for i in range(T) for j in range(T))  # |i - j| <= r, pair by pair
    assert not [t for t in chart_titles(page) if t.startswith("Sliding window")]
    if presenting:
        assert progress_lines(page) == ["Section 3 of 6 · Sliding window mask"] and chart_boxes(page) == 0

    choose(page, "Your pick", str(kept))
    click(page, main_button(page, "Reveal"), lambda: len(answers(page)) == 1, "the answer")
    assert answers(page)[0].startswith(
        f"The answer: {kept}, with the share of the scores kept = {kept / T**2:.3f}. Your pick was right."
    )
    mask = chart_z(page, "Sliding window mask (1 = may attend)")
    assert mask.shape == (T, T) and mask.sum() == kept
    if presenting:
        screenshot(page, f"classroom-present-window-revealed-{theme}")
    assert not link_problems(page, watch, app)


# --- the real model ------------------------------------------------------------------------

TIRED = "The animal didn't cross the street because it was too tired."
CONGESTED = "The animal didn't cross the street because it was congested."


@pytest.fixture(scope="module")
def model():
    from attn_core import models

    return models.load_model(device="cpu")


@pytest.mark.model
def test_predict_where_it_looks_in_the_real_model(page, watch, server, model) -> None:
    from attn_core import models

    open_app(page, server.url, "real-model?predict=1")
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
    for n in range(2):
        click(page, main_button(page, "Reveal", nth=n), lambda n=n: len(answers(page)) == n + 1, f"answer {n + 1}")
    for text, (tokens, best, top) in zip(answers(page), expected, strict=True):
        assert text.startswith(f"The answer: {option(best, tokens)}, with its weight = {top:.3f}."), text
    right = 1 + int(congested_best == 0)
    lines = score_lines(page)
    assert lines and all(line.startswith(f"Your predictions this session: {right} of 2 right") for line in lines), lines
    assert not link_problems(page, watch, server)


@pytest.mark.model
def test_real_model_npz_holds_every_attention(page, watch, server, model) -> None:
    from attn_core import models

    open_app(page, server.url, "real-model")
    got = download(page, download_button(page, "rm_npz"))
    assert got.name.endswith(".npz")
    saved = np.load(io.BytesIO(got.data), allow_pickle=False)
    ref = models.extract_attentions(model, TIRED)  # the page opens on the "it" sentence alone
    T = len(ref.tokens)
    assert saved["attentions"].shape == (6, 12, T, T)
    assert saved["attentions"].dtype == ref.attentions.dtype
    assert np.allclose(saved["attentions"], ref.attentions, rtol=0, atol=1e-6)
    assert list(saved["tokens"]) == ref.tokens
    assert json.loads(str(saved["settings"])) == {
        "model": models.DEFAULT_MODEL,
        "sentence_a": TIRED,
        "sentence_b": None,
    }
    assert not link_problems(page, watch, server)


# --- 3.-5. on one tab of Step by step with its defaults -------------------------------------


@pytest.fixture(scope="module")
def default_view(browser, server):
    """One tab on Step by step (defaults) for the export, table and copy-link tests, which
    run in this order; it may use the clipboard."""
    watch = Watch()
    context = offline_context(browser, watch)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    watch.attach(page)
    open_app(page, server.url, "step-by-step")
    yield page, watch
    context.close()
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def test_without_presenter_mode_text_has_its_usual_size(default_view) -> None:
    page, _ = default_view
    assert paragraph_px(page, "Type a sentence") < PRESENT_PX
    assert chart_titles(page)[0] == f"X ({len(TOKENS)}×16)" and chart_boxes(page) >= 8
    ticks = tick_labels(page)[0]
    assert [t for t, _ in ticks] == [str(n) for n in range(16)]
    assert all(px == PLAIN_TICK_PX for _, px in ticks), ticks


def test_downloads_are_the_engines_numbers(default_view, server) -> None:
    page, watch = default_view
    lesson = sbs_lesson()
    steps, w = lesson.steps, lesson.source.weights
    tokens = list(TOKENS)
    qkv = np.concatenate([steps.q, steps.k, steps.v], axis=1)  # (T, 3 d_k): the Step 4 chart's panels
    qkv_cols = [f"{m} {c}" for m in ("Q", "K", "V") for c in range(4)]
    check_downloads(page, "sbs_fig_weights", Matrix(steps.weights, tokens, tokens, corner="query i \\ key j"))
    check_downloads(page, "sbs_fig_qkv", Matrix(qkv, tokens, qkv_cols, corner="token \\ matrix and column"))

    got = download(page, download_button(page, "sbs_npz"))
    assert got.name.endswith(".npz")
    saved = np.load(io.BytesIO(got.data), allow_pickle=False)
    names = ("x", "q", "k", "v", "scores", "scaled", "masked", "weights", "output")
    arrays = {name: getattr(steps, name) for name in names} | {"w_q": w.w_q, "w_k": w.w_k, "w_v": w.w_v}
    assert set(saved.files) == {*arrays, "tokens", "settings"}
    for name, value in arrays.items():
        assert np.array_equal(saved[name], value), f"{name} in the .npz differs from the engine"
    assert list(saved["tokens"]) == tokens
    assert json.loads(str(saved["settings"])) == {
        "text": SENTENCE,
        "tokens": tokens,
        "weights": "random",
        "d_model": 16,
        "d_k": 4,
        "seed": 0,
        "scale": True,
        "x100": False,
        "causal": False,
        "pos": True,
    }

    # The chart's own toolbar: PNG (at scale 2) and the added SVG button.
    chart = page.locator(".st-key-sbs_fig_weights .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    width, height = chart.evaluate("p => [p._fullLayout.width, p._fullLayout.height]")
    chart.hover()
    png = download(page, chart.locator(".modebar-btn[data-title^='Download plot']:not([data-svg-download])"))
    assert png.name.endswith(".png")
    assert png_size(png.data) == (2 * width, 2 * height)
    chart.hover()
    svg = download(page, chart.locator(".modebar-btn[data-title='Download plot as SVG']"))
    assert svg.name.endswith(".svg")
    text = svg.data.decode("utf-8")
    assert "<svg" in text
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width") == str(width)
    labels = [e.text for e in root.iter() if e.tag.endswith("text") and e.text]
    assert "cat" in labels and WEIGHTS_TITLE in labels, labels[:20]
    assert not link_problems(page, watch, server)


def test_show_as_table_gives_the_weights_with_token_labels(default_view, server) -> None:
    page, watch = default_view
    tables = page.locator(f"{MAIN} [data-testid='stTable']")
    assert tables.count() == 0
    switch_on(page, "sbs_fig_weights_table", until=lambda: tables.count() == 1)
    assert tables.get_by_role("region").get_attribute("aria-label") == f"Table: {WEIGHTS_TITLE}"
    header, rows = html_table(tables)
    labels = [f"{n}:{t}" for n, t in enumerate(TOKENS)]
    assert header == ["query i", *labels]
    weights = sbs_lesson().steps.weights
    assert rows == [[label, *(f"{x:.3f}" for x in row)] for label, row in zip(labels, weights, strict=True)]
    assert not link_problems(page, watch, server)


def test_copy_link_puts_this_view_on_the_clipboard(default_view, server) -> None:
    page, watch = default_view
    label = "d_k (size of queries and keys)"
    assert slide(page, label, 1, until=lambda: query(page.url).get("d_k") == ["5"]) == "5"
    eventually(
        page,
        lambda: np.allclose(chart_z(page, WEIGHTS_TITLE), sbs_lesson(5).steps.weights, rtol=0, atol=1e-12),
        "the weights for d_k = 5",
    )
    button = page.get_by_role("button", name="Copy link to this view")  # inside the component's shadow root
    assert button.count() == 1
    before = run_count(page)
    button.click()
    status = page.get_by_role("status").filter(has_text="Link copied")
    status.wait_for()
    assert status.inner_text() == "Link copied: paste it anywhere to share this view."
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == page.url and query(link).get("d_k") == ["5"], link
    assert run_count(page) == before, "copying the link reran the page"
    assert not link_problems(page, watch, server)


def test_csv_guards_labels_a_spreadsheet_would_run(page, watch, server) -> None:
    text = "=SUM(A1) -2 @home +x"
    tokens = tuple(attn_core.tokenize(text))
    open_app(page, server.url, f"step-by-step?text={quote_plus(text)}&present=1&step=8")
    got = download(page, download_button(page, "sbs_fig_weights_csv"))
    header = got.data.decode("utf-8").splitlines()[0].split(",")
    guarded = [label for label in header[1:] if label.startswith("'")]
    assert guarded == ["'=", "'-", "'@", "'+"], header
    table = read_csv(got.data)
    assert table.rows == table.cols == list(tokens)
    lesson = wt.lesson(wt.seeded_source(tokens, 16, 4, seed=0, positional=True))
    assert np.array_equal(table.values, lesson.steps.weights)
    assert not link_problems(page, watch, server)


def test_show_as_table_shows_tokens_literally(page, server) -> None:
    open_app(page, server.url, "step-by-step?text=the+__init__+ran&present=1&step=8")
    tables = page.locator(f"{MAIN} [data-testid='stTable']")
    switch_on(page, "sbs_fig_weights_table", until=lambda: tables.count() == 1)
    header, rows = html_table(tables)
    assert header == ["query i", "0:the", "1:__init__", "2:ran"]
    assert [r[0] for r in rows] == ["0:the", "1:__init__", "2:ran"]
