"""Issue #14 in a real Chromium, the parts test_teaching_tools.py leaves out: every page's CSV and
.npy export of one main chart parsed back to exactly what its attn_core lesson returns (and a
CSV holding −∞ cells), presenter mode's sections on Cross-attention and the Decoder, and
Home's live sentence box redrawing its heatmap as the student types.

Expected numbers come from attn_core, called here with each page's default inputs, never
from the page's own code; downloads are captured from the browser (classroom.download also
checks that a download does not rerun the page).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import attn_core
from attn_core import article_checks as ar
from attn_core import lab_results
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from attn_core.figures.lab import score_labels
from tests.browser.test_teaching_tools import Matrix, chart_z, check_downloads, query, shows_progress
from tests.support.browser import teaching as cr
from tests.support.browser.checks import chart_data, link_problems
from tests.support.browser.waits import open_app, wait_for_run

pytestmark = pytest.mark.browser

# The pages' default inputs (what a fresh session shows).
PRESET = "The cat sat on the mat."  # the NumPy pages' first example sentence
HOME_TEXT = "The animal didn't cross the street because it was too tired."
HOME_MAX_TOKENS = 16
HOME_TITLE = "Your sentence: one head with random weights"  # lessons/home/words.py LIVE_TITLE
CROSS_SOURCE, CROSS_TARGET = "The cat sat on the mat.", "Le chat s'est assis sur le tapis."
TF_A, TF_B = "The cat sat on the mat.", "Le chat était assis sur le tapis."
DECODER_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"


def tokens(text: str) -> list[str]:
    return list(attn_core.tokenize(text))


def seeded_weights(words: list[str], **kwargs) -> np.ndarray:
    """One seeded head (d_model 16, d_k 4, seed 0, positions on), as Home and Step by step run it."""
    return wt.lesson(wt.seeded_source(tuple(words), 16, 4, seed=0, positional=True), **kwargs).steps.weights


@dataclass(frozen=True)
class Export:
    path: str  # the page's url path (and query)
    key: str  # the chart's key: its downloads are `<key>_csv` and `<key>_npy`
    expected: Callable[[], Matrix]


def home() -> Matrix:
    words = tokens(HOME_TEXT)[:HOME_MAX_TOKENS]
    return Matrix(seeded_weights(words), words, words)


def softmax_lab() -> Matrix:
    lab = lab_results.softmax_lab(n_scores=8, seed=0, multiplier=100.0, T=8, dk_seed=0, index=0, delta=3.0)
    labels = score_labels(tokens(PRESET), 8)  # "0:The" .. "6:.", "key 7": the keys, named by the sentence
    return Matrix(lab.saturation.scaled_weights[None, :], ["weight"], labels, corner="row \\ ")


def multi_head() -> Matrix:
    words = tokens(PRESET)
    mh = lab_results.multi_head_lesson(tuple(words), d_model=16, n_heads=4, d_k=4, seed=0, causal=False)
    return Matrix(mh.steps.heads[1].weights, words, words)  # "Head 2 weights"


def masks() -> Matrix:
    words = tokens(PRESET)
    study = lab_results.mask_study(tuple(words), radius=2, dilation=2, seed=0)
    return Matrix(study.steps("causal").weights, words, words)


def cross() -> Matrix:
    source, target = tokens(CROSS_SOURCE), tokens(CROSS_TARGET)
    lesson = lab_results.cross_lesson(tuple(source), tuple(target), d_model=16, d_k=4, seed=0, swap=False)
    return Matrix(lesson.steps.weights, target, source, corner="query (target) \\ key (source)")  # (T_q, T_k)


def transformer() -> Matrix:
    a, b = tokens(TF_A), tokens(TF_B)
    lesson = tr.transformer_lesson(tuple(a), tuple(b), d_model=64, H=4, seed=0)
    return Matrix(lesson.dense.attention[1].weights, b, b, corner="output \\ input")  # sentence B's head


def decoder() -> Matrix:
    model = dc.load_decoder()
    lesson = dc.decoder_lesson(model, DECODER_TEXT)
    assert lesson.known.all(), "every default word is in the decoder's vocabulary, so no label is marked <unk>"
    words = list(lesson.words)
    return Matrix(lesson.run.attentions[1, 0], words, words)  # layer 2, head 1: the page's default


def articles() -> Matrix:
    causal = ar.articles_lesson(scale=3.0, seed=0).causal
    words = list(causal.tokens)
    return Matrix(causal.steps_correct.weights, words, words)  # "Weights with the causal mask"


EXPORTS = [
    Export("", "home_weights", home),
    Export("softmax-lab", "lab_bars_scaled", softmax_lab),
    Export("multi-head", "mh_head_2", multi_head),
    Export("masks-and-cost", "masks_causal_weights", masks),
    Export("cross-attention", "cross_weights", cross),
    # Presenter mode, section 1: the page's last section (which loads the real model) is not run.
    Export("attention-in-a-transformer?present=1", "tf_dense_atten_B", transformer),
    Export("decoder", "dec_fig_head", decoder),
    Export("articles-checked", "art_causal_w_correct", articles),
]


# --- 1. export on every page --------------------------------------------------------------


@pytest.mark.parametrize("export", EXPORTS, ids=[e.key for e in EXPORTS])
def test_a_charts_csv_and_npy_are_the_engines_numbers(page, watch, server, export: Export) -> None:
    open_app(page, server.url, export.path)
    check_downloads(page, export.key, export.expected())
    assert not link_problems(page, watch, server)


def test_masked_cells_are_minus_inf_in_the_csv(page, watch, server) -> None:
    open_app(page, server.url, "step-by-step?causal=1")
    words = tokens(PRESET)
    masked = wt.lesson(wt.seeded_source(tuple(words), 16, 4, seed=0, positional=True), causal=True).steps.masked
    future = np.triu(np.ones(masked.shape, dtype=bool), 1)  # key j after query i
    assert np.array_equal(np.isneginf(masked), future)  # the engine's causal mask, as the test expects it
    expected = Matrix(masked, words, words, corner="query i \\ key j")
    data = check_downloads(page, "sbs_fig_masked", expected)

    cells = [line.split(",")[1:] for line in data.decode("utf-8").splitlines()[1:]]
    assert [[c == "-inf" for c in row] for row in cells] == future.tolist(), "masked cells are not written as -inf"
    assert np.array_equal(np.isneginf(cr.read_csv(data).values), future)
    assert not link_problems(page, watch, server)


@pytest.mark.model
def test_real_model_head_view_csv_and_npy(page, watch, server) -> None:
    from attn_core import models, views

    open_app(page, server.url, "real-model")
    loaded = models.load_model(device="cpu")
    layer, head = models.it_head(loaded)  # the head view's default: the "it" sentence, the head for "it"
    att = models.extract_attentions(loaded, models.IT_SENTENCES["tired"], None, models.MAX_TOKENS)
    lesson = views.model_lesson(att.attentions, att.queries, att.keys, "head", layer=layer, heads=[head])
    words = list(att.tokens)
    # The server runs the model where models.pick_device() says; on a GPU its numbers differ by rounding.
    on_cpu = models.pick_device() == "cpu"
    check_downloads(page, "rm_head_view", Matrix(lesson.heads_mean, words, words), exact=on_cpu)
    assert not link_problems(page, watch, server)


# --- 2. presenter mode's sections --------------------------------------------------------


def headers(page) -> list[str]:
    return page.locator(f"{cr.MAIN} h2").all_inner_texts()


def test_presenter_mode_sections_on_cross_attention(page, watch, server) -> None:
    open_app(page, server.url, "cross-attention?present=1")
    first = "Section 1 of 3 · Queries from one sentence, keys and values from the other"
    assert cr.progress_lines(page) == [first]
    assert cr.chart_titles(page) == ["Queries Q", "Keys K", "Values V"] and cr.chart_boxes(page) == 3
    assert headers(page) == [first]  # one heading per section: the progress line
    assert cr.main_button(page, "← Back").is_disabled()

    second = "Section 2 of 3 · A rectangular score matrix"
    cr.click(page, cr.main_button(page, "Next →"), shows_progress(page, second), second)
    assert query(page.url).get("step") == ["2"] and query(page.url).get("present") == ["1"]
    weights_title = "Cross-attention weights"
    assert cr.chart_titles(page) == ["Cross-attention scores QKᵀ/√d_k", weights_title] and cr.chart_boxes(page) == 2
    assert headers(page) == [second]
    assert np.array_equal(chart_z(page, weights_title), cross().values)
    assert not link_problems(page, watch, server)


def test_presenter_mode_sections_on_the_decoder(page, watch, server) -> None:
    open_app(page, server.url, "decoder?present=1")
    model = dc.load_decoder()
    assert cr.progress_lines(page) == ["Section 1 of 5 · Your words"]
    assert cr.chart_boxes(page) == 0, "section 1 (the words) has no chart"
    assert cr.main_button(page, "← Back").is_disabled()

    second = "Section 2 of 5 · Every head"
    cr.click(page, cr.main_button(page, "Next →"), shows_progress(page, second), second)
    assert query(page.url).get("step") == ["2"] and query(page.url).get("present") == ["1"]
    head_title = "Layer 2, head 1: attention weights"
    titles = cr.chart_titles(page)
    assert titles[:2] == [f"All {model.n_layers * model.n_heads} heads: layers (rows) × heads (columns)", head_title]
    assert len(titles) == 3 and titles[2].startswith("Head view, layer 2, head 1 ("), titles  # "(44 lines, ...)"
    assert cr.chart_boxes(page) == 3
    assert headers(page) == [second]  # one heading per section: the progress line
    assert np.array_equal(chart_z(page, head_title), decoder().values)
    assert not link_problems(page, watch, server)


# --- 3. Home's live example ----------------------------------------------------------------


def home_z(page) -> np.ndarray | None:
    """The home heatmap's weights as the browser holds them (None while it is not drawn)."""
    charts = [c for c in chart_data(page) if c["title"] == HOME_TITLE]
    return np.array(charts[0]["traces"][0]["z"], dtype=np.float64) if len(charts) == 1 else None


def test_home_heatmap_follows_typing_without_enter(page, watch, server) -> None:
    open_app(page, server.url)
    before = home_z(page)
    assert before is not None and np.array_equal(before, home().values)

    text = "A small dog ran home"
    words = tokens(text)
    expected = seeded_weights(words)
    box = page.locator("[data-testid='stTextInput']").filter(has_text="Try a sentence").locator("input")
    assert box.input_value() == HOME_TEXT
    box.select_text()
    box.press_sequentially(text, delay=40)  # typed key by key; no Enter, no blur

    def shows_new_weights() -> bool:
        z = home_z(page)
        return z is not None and z.shape == expected.shape and np.array_equal(z, expected)

    cr.eventually(page, shows_new_weights, f"the heatmap's weights for {text!r}")
    wait_for_run(page, 0)
    assert box.input_value() == text and box.evaluate("el => el === document.activeElement")
    assert query(page.url).get("text") == [text], page.url
    charts = [c for c in chart_data(page) if c["title"] == HOME_TITLE]
    ticks = {axis: text for axis, text, _ in charts[0]["axes"]}
    assert ticks["xaxis"] == ticks["yaxis"] == words, ticks  # keys across, queries down: the new tokens
    assert np.array_equal(home_z(page), expected)
    assert not link_problems(page, watch, server)
