"""What leaves the page, in a real Chromium, on one tab of Step by step opened on a sentence with
tokens a spreadsheet would run and one markdown would bold: a real download button's CSV, the
chart toolbar's PNG and SVG, the "Show as table" table, and "Copy link to this view".

- The weights' CSV, captured from the browser, holds attn_core's weights with the token labels
  (those starting a formula guarded by an apostrophe); downloading does not rerun the page.
- "Show as table" shows every weight (3 decimals) under the token labels, read literally, as an
  accessible table named after its chart.
- The chart's PNG is drawn at twice its size; the SVG button gives the chart as SVG, its title and
  tokens as text.
- After a change of d_k, "Copy link to this view" puts the address (with ?d_k=) on the clipboard,
  says so in a status message, and does not rerun the page.

Every page's download contents are checked without a browser (tests/app/test_downloads.py)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import parse_qs, quote_plus, urlparse

import numpy as np
import pytest

import attn_core as ac
from attn_core import walkthrough as wt
from attn_core.tables import labelled
from tests.support.browser.checks import Watch, link_problems
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import (
    MAIN,
    download,
    download_button,
    eventually,
    html_table,
    png_size,
    slide,
    switch_on,
)
from tests.support.browser.waits import open_app, run_count
from tests.support.downloads import CSV_RISKY, Matrix, check_csv

pytestmark = pytest.mark.browser

TEXT = "=SUM(A1) -2 @home +x the __init__ ran"
TOKENS = list(ac.tokenize(TEXT))
CORNER = "query i \\ key j"


def weights(d_k: int = 4) -> np.ndarray:
    """Step by step's weights for TEXT (d_model 16, seed 0, positions on)."""
    return wt.lesson(wt.seeded_source(tuple(TOKENS), 16, d_k, seed=0, positional=True)).steps.weights


@pytest.fixture(scope="module")
def tab(browser, server):
    """Step by step on TEXT, in one tab that may use the clipboard, for both tests (in order)."""
    watch = Watch()
    context = offline_context(browser, watch)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    watch.attach(page)
    open_app(page, server.url, f"step-by-step?text={quote_plus(TEXT)}")
    yield page, watch
    problems = link_problems(page, watch, server)
    context.close()
    assert not problems, problems
    assert not watch.blocked, f"the page tried to reach the internet: {watch.blocked}"


def _chart_title(page) -> str:
    return page.evaluate(
        "() => document.querySelector('.st-key-sbs_fig_weights .js-plotly-plot')._fullLayout.title.text"
    )


def test_the_weights_leave_the_page_as_the_engines_numbers(tab) -> None:
    page, _ = tab
    assert "__init__" in TOKENS and [t for t in TOKENS if t.startswith(CSV_RISKY)], TOKENS

    got = download(page, download_button(page, "sbs_fig_weights_csv"))  # no rerun: checked there
    assert got.name.endswith(".csv"), got.name
    header = got.data.decode("utf-8").splitlines()[0].split(",")
    assert [c for c in header[1:] if c.startswith("'")] == ["'" + t for t in TOKENS if t.startswith(CSV_RISKY)]
    check_csv(got.data, Matrix(weights(), TOKENS, TOKENS, corner=CORNER))

    tables = page.locator(f"{MAIN} [data-testid='stTable']")
    switch_on(page, "sbs_fig_weights_table", until=lambda: tables.count() == 1)
    assert tables.get_by_role("region").get_attribute("aria-label") == f"Table: {_chart_title(page)}"
    head, rows = html_table(tables)
    labels = labelled(tuple(TOKENS))  # "6:__init__", read literally
    assert head == [CORNER.split(" \\ ")[0], *labels]
    assert rows == [[label, *(f"{x:.3f}" for x in row)] for label, row in zip(labels, weights(), strict=True)]

    # The chart's own toolbar: PNG (at scale 2) and the added SVG button.
    chart = page.locator(".st-key-sbs_fig_weights .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    width, height = chart.evaluate("p => [p._fullLayout.width, p._fullLayout.height]")
    chart.hover()
    png = download(page, chart.locator(".modebar-btn[data-title^='Download plot']:not([data-svg-download])"))
    assert png.name.endswith(".png")
    assert png_size(png.data) == (2 * width, 2 * height)
    chart.hover()
    svg = download(page, chart.locator(".modebar-btn[data-svg-download]"))
    assert svg.name.endswith(".svg")
    root = ET.fromstring(svg.data.decode("utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width") == str(width)
    texts = [e.text for e in root.iter() if e.tag.endswith("text") and e.text]
    assert "home" in texts and _chart_title(page) in texts, texts[:20]


def test_copy_link_puts_this_view_on_the_clipboard(tab) -> None:
    page, _ = tab

    def query() -> dict[str, list[str]]:
        return parse_qs(urlparse(page.url).query)

    assert slide(page, "d_k (size of queries and keys)", 1, until=lambda: query().get("d_k") == ["5"]) == "5"
    eventually(page, lambda: np.allclose(_z(page), weights(5), rtol=0, atol=1e-12), "the weights for d_k = 5")
    button = page.get_by_role("button", name="Copy link to this view")  # ui/links.py, through ui.scripts
    assert button.count() == 1
    before = run_count(page)
    button.click()
    said = page.get_by_role("status").filter(has_text=re.compile(r"\S"))  # a polite live region says it was copied
    eventually(page, lambda: said.count() >= 1, "the status message")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == page.url and parse_qs(urlparse(link).query).get("d_k") == ["5"], link
    assert run_count(page) == before, "copying the link reran the page"


def _z(page) -> np.ndarray:
    z = page.evaluate(
        "() => Array.from(document.querySelector('.st-key-sbs_fig_weights .js-plotly-plot')._fullData[0].z,"
        " r => Array.from(r))"
    )
    return np.array(z, dtype=np.float64)
