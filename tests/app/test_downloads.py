"""What the download buttons hand out, page by page (AppTest): one main chart's CSV and .npy on
every page parsed back to exactly what its attn_core lesson returns, with the chart's token labels;
a CSV with masked cells (−∞) and one with labels a spreadsheet would run; Step by step's .npz of
every step and the real model's .npz of every attention, with their settings.

The expected numbers come from attn_core, called here with each page's default inputs, never from
the page's own code. The files are made the way the buttons make them (ui.charts.DOWNLOADS from the
table the page hands its chart's controls, a page button's own data function); the browser clicks
one real button and reads the file (tests/browser/test_exports.py), and attn_core.tables' own
round trips are unit tests (tests/unit/test_tables.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import attn_core
from attn_core import article_checks as ar
from attn_core import lab_results
from attn_core import tables as tb
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from attn_core.figures.lab import score_labels
from tests.app.test_shared_links import script
from tests.support.downloads import Matrix, check_csv, check_npy, npz
from ui import charts

# The pages' default inputs (what a fresh session shows).
PRESET = "The cat sat on the mat."  # the NumPy pages' first example sentence
HOME_TEXT = "The animal didn't cross the street because it was too tired."
HOME_MAX_TOKENS = 16
CROSS_SOURCE, CROSS_TARGET = "The cat sat on the mat.", "Le chat s'est assis sur le tapis."
TF_A, TF_B = "The cat sat on the mat.", "Le chat était assis sur le tapis."
DECODER_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"


def tokens(text: str) -> list[str]:
    return list(attn_core.tokenize(text))


def seeded_lesson(words, **kwargs) -> wt.Lesson:
    """One seeded head (d_model 16, d_k 4, seed 0, positions on), as Home and Step by step run it."""
    return wt.lesson(wt.seeded_source(tuple(words), 16, 4, seed=0, positional=True), **kwargs)


# --------------------------------------------------------------------------- what a run hands out


@dataclass
class Handed:
    """The tables a run handed its charts' download buttons (by chart key) and the data functions
    of its page-level download buttons (by widget key)."""

    tables: dict[str, tb.Table] = field(default_factory=dict)
    files: dict[str, Callable[[], bytes]] = field(default_factory=dict)

    def chart_files(self, key: str) -> dict[str, bytes]:
        """The chart's files as its buttons make them: {"csv": ..., "npy": ...}."""
        assert key in self.tables, f"no chart {key!r} with downloads; the page has {sorted(self.tables)}"
        out = {}
        for _label, ext, _mime, make, _what in charts.DOWNLOADS:
            data = make(self.tables[key])
            out[ext] = data.encode("utf-8") if isinstance(data, str) else data  # as st.download_button sends it
        return out


@pytest.fixture
def handed(monkeypatch) -> Handed:
    found = Handed()
    controls = charts.table_controls

    def record_table(table, key, *args, **kwargs):
        found.tables[key] = table
        return controls(table, key, *args, **kwargs)

    button = st.download_button

    def record_button(label, data=None, *args, key=None, **kwargs):
        found.files[key] = data
        return button(label, data, *args, key=key, **kwargs)

    monkeypatch.setattr(charts, "table_controls", record_table)
    monkeypatch.setattr(st, "download_button", record_button)
    return found


def run(link: str) -> AppTest:
    path, _, query = link.partition("?")
    at = AppTest.from_file(script(path), default_timeout=120)
    at.query_params.update(dict(parse_qsl(query)))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# --------------------------------------------------------------------------- one chart per page


def home() -> Matrix:
    words = tokens(HOME_TEXT)[:HOME_MAX_TOKENS]
    return Matrix(seeded_lesson(words).steps.weights, words, words)


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
    lesson = dc.decoder_lesson(dc.load_decoder(), DECODER_TEXT)
    assert lesson.known.all(), "every default word is in the decoder's vocabulary, so no label is marked <unk>"
    words = list(lesson.words)
    return Matrix(lesson.run.attentions[1, 0], words, words)  # layer 2, head 1: the page's default


def articles() -> Matrix:
    causal = ar.articles_lesson(scale=3.0, seed=0).causal
    words = list(causal.tokens)
    return Matrix(causal.steps_correct.weights, words, words)  # "Weights with the causal mask"


def step_by_step() -> Matrix:
    words = tokens(PRESET)
    return Matrix(seeded_lesson(words).steps.weights, words, words, corner="query i \\ key j")


# (link, chart key, expected): the chart's downloads are `<key>_csv` and `<key>_npy`.
EXPORTS = [
    ("", "home_weights", home),
    ("step-by-step", "sbs_fig_weights", step_by_step),
    ("softmax-lab", "lab_bars_scaled", softmax_lab),
    ("multi-head", "mh_head_2", multi_head),
    ("masks-and-cost", "masks_causal_weights", masks),
    ("cross-attention", "cross_weights", cross),
    # Presenter mode, section 1: the page's last section (which loads the real model) is not run.
    ("attention-in-a-transformer?present=1", "tf_dense_atten_B", transformer),
    ("decoder", "dec_fig_head", decoder),
    ("articles-checked", "art_causal_w_correct", articles),
]


@pytest.mark.parametrize(("link", "key", "expected"), EXPORTS, ids=[key for _, key, _ in EXPORTS])
def test_a_charts_csv_and_npy_are_the_engines_numbers(
    handed: Handed, monkeypatch, link: str, key: str, expected
) -> None:
    # No chart here needs the real model: a page that would load it for a later section goes without.
    monkeypatch.setattr("ui.model_cache.try_load", lambda name=None: (None, "switched off for this test"))
    run(link)
    files = handed.chart_files(key)
    want = expected()
    check_csv(files["csv"], want)
    check_npy(files["npy"], want)


def test_masked_cells_are_minus_inf_in_the_csv(handed: Handed) -> None:
    run("step-by-step?causal=1")
    words = tokens(PRESET)
    masked = seeded_lesson(words, causal=True).steps.masked
    future = np.triu(np.ones(masked.shape, dtype=bool), 1)  # key j after query i
    assert np.array_equal(np.isneginf(masked), future)  # the engine's causal mask, as the test expects it
    files = handed.chart_files("sbs_fig_masked")
    table = check_csv(files["csv"], Matrix(masked, words, words, corner="query i \\ key j"))
    cells = [line.split(",")[1:] for line in files["csv"].decode("utf-8").splitlines()[1:]]
    assert [[c == "-inf" for c in row] for row in cells] == future.tolist(), "masked cells are not written as -inf"
    assert np.array_equal(np.isneginf(table.values), future)


def test_the_csv_guards_labels_a_spreadsheet_would_run(handed: Handed) -> None:
    """Tokens that start a formula ("=", "-", "@", "+") get an apostrophe in the CSV's header and
    row labels; read back without it, they are the tokens, and the numbers are the engine's."""
    text = "=SUM(A1) -2 @home +x"
    words = tokens(text)
    run(f"step-by-step?text={text.replace('+', '%2B')}")
    data = handed.chart_files("sbs_fig_weights")["csv"]
    header = data.decode("utf-8").splitlines()[0].split(",")
    guarded = [label for label in header[1:] if label.startswith("'")]
    assert guarded == ["'" + w for w in words if w.startswith(("=", "-", "@", "+"))]
    assert len(guarded) == 4, header
    check_csv(data, Matrix(seeded_lesson(words).steps.weights, words, words, corner="query i \\ key j"))


def test_step_by_steps_npz_holds_every_step_and_the_settings(handed: Handed) -> None:
    run("step-by-step")
    lesson = seeded_lesson(tokens(PRESET))
    steps, w = lesson.steps, lesson.source.weights
    saved = npz(handed.files["sbs_npz"]())
    names = ("x", "q", "k", "v", "scores", "scaled", "masked", "weights", "output")
    arrays = {name: getattr(steps, name) for name in names} | {"w_q": w.w_q, "w_k": w.w_k, "w_v": w.w_v}
    assert set(saved) == {*arrays, "tokens", "settings"}
    for name, value in arrays.items():
        assert np.array_equal(saved[name], value), f"{name} in the .npz differs from the engine"
    assert list(saved["tokens"]) == tokens(PRESET)
    assert json.loads(str(saved["settings"])) == {
        "text": PRESET,
        "tokens": tokens(PRESET),
        "weights": "random",
        "d_model": 16,
        "d_k": 4,
        "seed": 0,
        "scale": True,
        "x100": False,
        "causal": False,
        "pos": True,
    }


# --------------------------------------------------------------------------- the real model


TIRED = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module")
def model():
    from attn_core import models

    return models.load_model(device="cpu")


@pytest.mark.model
def test_real_model_head_view_csv_and_npy(handed: Handed, model) -> None:
    from attn_core import models, views

    run("real-model")
    layer, head = models.it_head(model)  # the head view's default: the "it" sentence, the head for "it"
    att = models.extract_attentions(model, models.IT_SENTENCES["tired"], None, models.MAX_TOKENS)
    lesson = views.model_lesson(att.attentions, att.queries, att.keys, "head", layer=layer, heads=[head])
    words = list(att.tokens)
    files = handed.chart_files("rm_head_view")
    check_csv(files["csv"], Matrix(lesson.heads_mean, words, words))
    check_npy(files["npy"], Matrix(lesson.heads_mean, words, words))


@pytest.mark.model
def test_real_model_npz_holds_every_attention(handed: Handed, model) -> None:
    from attn_core import models

    run("real-model")
    saved = npz(handed.files["rm_npz"]())
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
