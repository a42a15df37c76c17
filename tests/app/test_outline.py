"""A map of long pages (ui/outline.py): the sidebar's list of sections, "One step at a time",
and the note that names the sections a changed setting changed.

Which sections changed is checked against the engine: the expected list comes from comparing
two runs' arrays here, not from the page's fingerprints."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from lessons.in_a_transformer import words as tf_words
from lessons.step_by_step import words
from tests.conftest import ROOT
from tests.support.figdata import figure_by_title, z_matrix
from ui import outline
from ui.common import PRESETS
from ui.present import Deck

SBS = str(ROOT / "lessons" / "step_by_step" / "page.py")
TRANSFORMER = str(ROOT / "lessons" / "in_a_transformer" / "page.py")
LINK = re.compile(r"\[([^\]]+)\]\(#([a-z0-9-]+)\)")


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _note(at: AppTest) -> str | None:
    notes = [i.value for i in at.info if i.icon == ":material/update:"]
    assert len(notes) <= 1
    return notes[0] if notes else None


def _linked(note: str) -> list[str]:
    """The anchors the note links to, in order."""
    return [anchor for _, anchor in LINK.findall(note)]


# --------------------------------------------------------------------------- the helpers


def test_fingerprints_follow_the_numbers():
    a = np.arange(6.0).reshape(2, 3)
    assert outline.fingerprint(a) == outline.fingerprint(a.copy())
    assert outline.fingerprint(a) != outline.fingerprint(a + 1e-12)
    assert outline.fingerprint(a, "x") != outline.fingerprint(a, "y")
    masked = np.where(np.eye(2, dtype=bool), 1.0, -np.inf)
    assert outline.fingerprint(masked) == outline.fingerprint(masked.copy())


def test_changed_sections_and_settings():
    before, after = (b"a", b"b", b"c"), (b"a", b"B", b"C")
    assert outline.changed_sections(None, after) == []
    assert outline.changed_sections(before, after) == [1, 2]
    assert outline.changed_sections(before, before) == []
    said = outline.changed_settings(
        {"Causal mask": False, "d_k": 4, "Sentence": "The cat sat on the mat.", "Seed": 0},
        {"Causal mask": True, "d_k": 8, "Sentence": "A much longer sentence than before, surely", "Seed": 0},
    )
    assert said == ["Causal mask on", "d_k 4 → 8", "Sentence changed"]


def test_the_note_links_the_changed_sections_by_their_headings():
    deck = Deck({"tokens": "Tokens", "scores": "Scores", "weights": "Weights"}, step_key="x_step", noun="Step")
    text = outline.note_text(deck, [1, 2], ["Causal mask on"])
    assert text == "Causal mask on. Changed: [Step 2 · Scores](#x-scores) and [Step 3 · Weights](#x-weights)."
    assert outline.note_text(deck, [0, 1, 2], []) == "Every section changed."


# --------------------------------------------------------------------------- Step by step


def _sbs_lesson(**flags) -> wt.Lesson:
    tokens = tuple(ac.tokenize(PRESETS[0]))
    source = wt.seeded_source(tokens, 16, 4, seed=0, positional=True)
    return wt.lesson(source, scale=True, multiplier=100.0 if flags.get("x100") else 1.0, causal=flags.get("causal"))


def _steps_that_differ(a: wt.Lesson, b: wt.Lesson, i: int = 2, j: int = 1) -> list[str]:
    """Step by step's sections (by name, in page order) whose numbers differ, by hand."""
    sa, sb = a.steps, b.steps
    parts = {
        "tokens": lambda s: [np.array(a.tokens if s is sa else b.tokens)],
        "x": lambda s: [s.x],
        "weights_matrices": lambda s: [(a if s is sa else b).source.weights.w_q],
        "qkv": lambda s: [s.q, s.k, s.v],
        "scores": lambda s: [s.scores],
        "scaled": lambda s: [s.scaled],
        "masked": lambda s: [s.masked],
        "weights": lambda s: [s.weights],
        "output": lambda s: [s.output],
        "cell": lambda s: [s.masked[i], s.weights[i], s.q[i], s.k[j], s.v],
    }
    assert list(parts) == list(words.STEPS)  # every section of the page, in its order
    return [
        name
        for name, part in parts.items()
        if not all(np.array_equal(x, y) for x, y in zip(part(sa), part(sb), strict=True))
    ]


def _anchor(name: str) -> str:
    return "sbs-" + name.replace("_", "-")


@pytest.mark.parametrize(("switch", "flag"), [("sbs_causal", "causal"), ("sbs_x100", "x100")])
def test_a_switch_names_exactly_the_steps_it_changed(switch, flag):
    expected = _steps_that_differ(_sbs_lesson(), _sbs_lesson(**{flag: True}))
    after_mask = ["masked", "weights", "output", "cell"]
    assert expected == (after_mask if flag == "causal" else ["scaled", *after_mask])  # the scores stay for the mask
    at = _run(AppTest.from_file(SBS, default_timeout=60))
    assert _note(at) is None  # nothing changed yet
    at.toggle(key=switch).set_value(True)
    _run(at)
    note = _note(at)
    label = {"causal": "Causal mask (no looking ahead)", "x100": "Multiply the scores by 100"}[flag]
    assert note.startswith(f"{label} on. Changed: ")
    assert _linked(note) == [_anchor(name) for name in expected]
    _run(at)  # a rerun that changes nothing says nothing
    assert _note(at) is None


def test_step_7_names_the_steps_the_mask_leaves_alone():
    """Without a mask M equals S~ (the charts' numbers), and the text names the two steps the
    causal mask leaves as they are: their headings are the scores' and the scaled scores', and
    switching the mask on changes neither chart."""

    def charts(at: AppTest) -> dict[str, np.ndarray]:
        return {
            t: z_matrix(next(d for d in figure_by_title(at, t)["data"] if d.get("name") != "masked"))
            for t in ("S = QKᵀ", "S̃ (", "M (")
        }

    at = _run(AppTest.from_file(SBS, default_timeout=60))
    before = charts(at)
    np.testing.assert_array_equal(before["M ("], before["S̃ ("])
    said = next(
        re.search(r"steps (\d+) and (\d+) stay as they are", m.value) for m in at.markdown if "stay as" in m.value
    )
    headings = {
        int(h.value.split(" ·")[0].removeprefix("Step ")): h.value for h in at.subheader if h.value.startswith("Step ")
    }
    assert [headings[int(n)] for n in said.groups()] == [
        f"Step {list(words.STEPS).index(name) + 1} · {words.STEPS[name]}" for name in ("scores", "scaled")
    ]
    at.toggle(key="sbs_causal").set_value(True)
    _run(at)
    after = charts(at)
    np.testing.assert_array_equal(after["S = QKᵀ"], before["S = QKᵀ"])
    np.testing.assert_array_equal(after["S̃ ("], before["S̃ ("])
    assert not np.array_equal(np.isnan(after["M ("]), np.isnan(before["M ("]))
    assert not any("stay as they are" in m.value for m in at.markdown)


def test_the_sidebar_lists_every_step_with_a_link_to_its_heading():
    """Anchors by name ("sbs-weights"), so adding a step moves no link."""
    at = _run(AppTest.from_file(SBS, default_timeout=60))
    (listing,) = [m.value for m in at.sidebar.markdown if m.value.startswith("- [")]
    links = LINK.findall(listing)
    assert [anchor for _, anchor in links] == [_anchor(name) for name in words.STEPS]
    headings = [h for h in at.subheader if h.value.startswith("Step ") or h.value == words.STEPS["cell"]]
    assert [h.proto.anchor for h in headings] == [_anchor(name) for name in words.STEPS]
    assert [text.replace("\\", "") for text, _ in links] == [h.value for h in headings]


def test_one_step_at_a_time_shows_one_step_with_back_and_next():
    at = _run(AppTest.from_file(SBS, default_timeout=60))
    at.toggle(key="one_step_at_a_time").set_value(True)
    _run(at)
    assert [h.value for h in at.subheader] == ["Step 1 · Tokens"]
    assert any(m.value.startswith("**Step 1 of 9**") for m in at.markdown)
    at.button(key="sbs_step_next").click()
    _run(at)
    assert [h.value for h in at.subheader] == ["Step 2 · X, one vector per token"]
    at.button(key="sbs_step_go_7").click()  # the sidebar's list: a button per step
    _run(at)
    assert [h.value for h in at.subheader] == ["Step 8 · Attention weights (softmax)"]
    assert at.query_params["step"] == "8"
    at.toggle(key="sbs_causal").set_value(True)  # the changed steps the page does not show: buttons
    _run(at)
    assert [b.label for b in at.main.button if b.key.startswith("sbs_step_changed_")] == [
        "Go to Step 7 · Masked scores",
        "Go to Step 9 · The output Z",
        "Go to One cell, worked through",
    ]
    assert not any(m.value.startswith("**Next lesson**") for m in at.markdown)  # the footer waits for the end
    at.toggle(key="one_step_at_a_time").set_value(False)
    _run(at)
    assert len([h for h in at.subheader if h.value.startswith("Step ")]) == 9


# --------------------------------------------------------------------------- the transformer page


def _transformer_sections_that_differ(a: tr.TransformerLesson, b: tr.TransformerLesson) -> list[int]:
    def arrays(lesson):
        dv, p, blk, m, c = lesson.dense, lesson.padding, lesson.block, lesson.masks, lesson.cost
        return [
            [*dv.dense, *(s.weights for s in dv.attention)],
            [np.array([lesson.split.d_model, lesson.split.H, lesson.split.d_k])],
            [p.x, *(s.weights for s in p.masked), *(s.weights for s in p.unmasked)],
            [blk.x, blk.output],
            [m.encoder_self, m.decoder_self, m.cross],
            [c.attention_curve, c.recurrent_curve],
        ]

    return [
        n
        for n, (x, y) in enumerate(zip(arrays(a), arrays(b), strict=True))
        if len(x) != len(y) or not all(np.array_equal(u, v) for u, v in zip(x, y, strict=True))
    ]


@pytest.mark.model
def test_d_model_reaches_every_section_that_uses_it():
    """The d_model slider at the top changes sections 1 and 3 too (they stayed at 16), and the
    note names each section whose numbers it changed."""
    a, b = (tuple(ac.tokenize(s)) for s in ("The cat sat on the mat.", "Le chat était assis sur le tapis."))
    small, wide = tr.transformer_lesson(a, b, d_model=64, H=4), tr.transformer_lesson(a, b, d_model=32, H=4)
    assert small.dense.attention[0].x.shape[1] == 64 and wide.dense.attention[0].x.shape[1] == 32
    assert wide.dense.attention[0].d_k == 8 and wide.padding.x.shape[2] == 32
    expected = _transformer_sections_that_differ(small, wide)
    assert expected == [0, 1, 2, 3, 5]  # the masks (section 5) do not depend on d_model
    at = _run(AppTest.from_file(TRANSFORMER, default_timeout=120))
    at.select_slider(key="tf_d_model").set_value(32)
    _run(at)
    names = list(tf_words.SECTIONS)
    assert _linked(_note(at)) == [f"tf-{names[n]}".replace("_", "-") for n in expected]
    text = " ".join(m.value for m in at.markdown)
    assert "(random weights, d_model = 32, d_k = 8)" in text
    caption = next(c.value for c in at.caption if c.value.startswith("The batch:"))
    assert "d_model = 32" in caption
