"""AppTest of the "Step by step" page: drive its real widgets and URL, read the figure JSON
back and compare every number with the engine run independently here."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import walkthrough as wt
from attn_core.figures import safe_label
from lessons.step_by_step import words
from tests.conftest import ROOT
from tests.support.figdata import decode, figure_by_title, figures, z_matrix
from tests.support.hostile_corpus import HOSTILE
from tests.support.quiz_checks import asked, options, reveal
from tests.unit.test_step_by_step_words import (
    check_aligned,
    check_first_line,
    check_share,
    check_value_lengths,
    check_x100,
    check_zeros,
)
from ui.common import PICK_PLACEHOLDER, PRESETS

PAGE = str(ROOT / "lessons" / "step_by_step" / "page.py")
DEFAULTS = dict(text=PRESETS[0], d_model=16, d_k=4, seed=0, scale=True, x100=False, causal=False, pos=True)
TWO_THE = "the cat saw the dog"


# --------------------------------------------------------------------------- helpers


def run_page(**query: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def engine(**overrides):
    """The reference run: attn_core called directly, not through the page's helpers."""
    p = {**DEFAULTS, **overrides}
    tokens = ac.tokenize(p["text"], max_tokens=64)
    x = ac.embed(tokens, p["d_model"], seed=p["seed"], positional=p["pos"])
    w = ac.init_weights(p["d_model"], p["d_k"], seed=p["seed"])
    steps = ac.attention_steps(
        x,
        w.w_q,
        w.w_k,
        w.w_v,
        scale=p["scale"],
        multiplier=100.0 if p["x100"] else 1.0,
        mask="causal" if p["causal"] else None,
    )
    return tokens, w, steps


# How each step's chart title starts: the matrix and its shape (the step's name is its heading).
STEP_TITLES = {4: "Q, K, V (", 5: "S = QKᵀ (", 6: "S̃ (", 7: "M (", 8: "A = softmax(M) (", 9: "Z = AV ("}


def trace_z(at: AppTest, title: str, name: str | None = None) -> np.ndarray:
    """z of the value trace of the figure titled ``title`` (the grey mask layer skipped)."""
    traces = [t for t in figure_by_title(at, title)["data"] if t.get("name") != "masked"]
    if name is not None:
        traces = [t for t in traces if t.get("name") == name]
    assert len(traces) == 1, f"{title!r}/{name!r}: {len(traces)} traces"
    return z_matrix(traces[0])


def page_matrices(at: AppTest) -> dict[str, np.ndarray]:
    return {
        "x": trace_z(at, "X ("),
        **{n: trace_z(at, "W_q, W_k, W_v (", n) for n in ("W_q", "W_k", "W_v")},
        **{n: trace_z(at, "Q, K, V (", n) for n in ("Q", "K", "V")},
        "scores": trace_z(at, "S = QKᵀ"),
        "scaled": trace_z(at, "S̃ ("),
        "masked": trace_z(at, "M ("),
        "weights": trace_z(at, "A = softmax(M)"),
        "output": trace_z(at, "Z = AV"),
    }


def assert_matches_engine(at: AppTest, **overrides) -> dict[str, np.ndarray]:
    tokens, w, steps = engine(**overrides)
    got = page_matrices(at)
    expected = {
        "x": steps.x,
        "W_q": w.w_q,
        "W_k": w.w_k,
        "W_v": w.w_v,
        "Q": steps.q,
        "K": steps.k,
        "V": steps.v,
        "scores": steps.scores,
        "scaled": steps.scaled,
        "masked": np.where(np.isfinite(steps.masked), steps.masked, np.nan),  # -inf travels as null
        "weights": steps.weights,
        "output": steps.output,
    }
    for name, want in expected.items():
        np.testing.assert_allclose(got[name], want, rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(got["weights"].sum(axis=1), 1.0, rtol=1e-12)
    fig = figure_by_title(at, "A = softmax(M)")
    assert fig["layout"]["yaxis"]["ticktext"] == [safe_label(t) for t in tokens]
    return got


def latex_bodies(at: AppTest) -> list[str]:
    return [el.value.strip().removeprefix("$$").removesuffix("$$").strip() for el in at.latex]


def fmt2(value: float) -> str:
    """The page's fixed-point form for numbers of ordinary size (0.005 <= |v| < 1e5)."""
    assert 0.005 <= abs(value) < 1e5, f"pick another cell: {value} is printed in scientific form"
    return f"{value:.2f}"


def all_z(at: AppTest) -> list[np.ndarray]:
    return [z_matrix(t) for fig in figures(at) for t in fig["data"] if t.get("type") == "heatmap"]


# --------------------------------------------------------------------------- the default view


def test_default_run_matches_the_engine_step_by_step():
    at = run_page()
    assert_matches_engine(at)
    titles = [fig["layout"]["title"]["text"] for fig in figures(at)]
    assert len(titles) == len(set(titles)) == 9  # 8 step figures + the worked cell's bar chart
    # Every step in order, each with its formula and live shapes.
    steps_in_order = [h.value for h in at.subheader if h.value.startswith("Step")]
    assert [s.split(" ·")[0] for s in steps_in_order] == [f"Step {n}" for n in range(1, 10)]
    bodies = latex_bodies(at)
    assert any(r"X = E + P \in \mathbb{R}^{7 \times 16}" in b for b in bodies)
    assert any(r"\sqrt{4}} = 0.5\,S" in b for b in bodies)
    # W matrices: d_model rows x d_k columns.
    assert trace_z(at, "W_q, W_k, W_v (", "W_q").shape == (16, 4)
    # Values printed in the cells for a short sentence.
    scores = next(t for t in figure_by_title(at, "S = QKᵀ")["data"])
    _tokens, _, steps = engine()
    assert scores["text"][2][1] == f"{steps.scores[2, 1]:.2f}"


def test_repeated_words_stay_separate_rows_and_columns():
    at = run_page(text=TWO_THE)
    tokens, _, _steps = engine(text=TWO_THE)
    for title in ("X (", "S = QKᵀ", "A = softmax(M)", "Z = AV"):
        ticks = figure_by_title(at, title)["layout"]["yaxis"]["ticktext"]
        assert len(ticks) == len(tokens) == 5 and ticks.count("the") == 2
    cols = figure_by_title(at, "A = softmax(M)")["layout"]["xaxis"]["ticktext"]
    assert cols.count("the") == 2
    x = trace_z(at, "X (")
    assert not np.allclose(x[0], x[3])  # positions make the two "the" differ
    at.toggle(key="sbs_pos").set_value(False)
    rerun(at)
    x = trace_z(at, "X (")
    np.testing.assert_allclose(x[0], x[3])  # without positions they are the same vector, still two rows
    assert x.shape[0] == 5
    assert_matches_engine(at, text=TWO_THE, pos=False)


# --------------------------------------------------------------------------- every control


CONTROLS = [
    ("d_model", lambda at: at.slider(key="sbs_d_model").set_value(8), dict(d_model=8)),
    ("d_k", lambda at: at.slider(key="sbs_d_k").set_value(7), dict(d_k=7)),
    ("seed", lambda at: at.number_input(key="sbs_seed").set_value(5), dict(seed=5)),
    ("scale", lambda at: at.toggle(key="sbs_scale").set_value(False), dict(scale=False)),
    ("x100", lambda at: at.toggle(key="sbs_x100").set_value(True), dict(x100=True)),
    ("causal", lambda at: at.toggle(key="sbs_causal").set_value(True), dict(causal=True)),
    ("pos", lambda at: at.toggle(key="sbs_pos").set_value(False), dict(pos=False)),
    ("sentence", lambda at: at.text_input(key="sbs_text").input(TWO_THE), dict(text=TWO_THE)),
    ("preset", lambda at: at.selectbox(key="sbs_text_preset").select(PRESETS[1]), dict(text=PRESETS[1])),
]


@pytest.mark.parametrize(("name", "change", "overrides"), CONTROLS, ids=[c[0] for c in CONTROLS])
def test_each_control_changes_the_charts_as_the_engine_says(name, change, overrides):
    at = run_page()
    before = page_matrices(at)
    change(at)
    rerun(at)
    after = assert_matches_engine(at, **overrides)
    changed = [
        k for k in before if before[k].shape != after[k].shape or not np.allclose(before[k], after[k], equal_nan=True)
    ]
    assert changed, f"{name} changed nothing"
    # The address bar follows the widgets, so the view can be shared.
    key, value = next(iter(overrides.items()))
    assert at.query_params[key] == (str(int(value)) if isinstance(value, bool) else str(value))


def test_causal_mask_gives_null_cells_grey_minus_infinity_and_zero_weights():
    at = run_page(causal="1")
    tokens, _, _steps = engine(causal=True)
    masked_fig = figure_by_title(at, "M (")
    masked = trace_z(at, "M (")
    allowed = ac.causal_mask(len(tokens))
    assert np.all(np.isnan(masked[~allowed])) and np.all(np.isfinite(masked[allowed]))
    grey = [t for t in masked_fig["data"] if t.get("name") == "masked"]
    assert len(grey) == 1 and np.array_equal(~np.isnan(z_matrix(grey[0])), ~allowed)
    text = next(t for t in masked_fig["data"] if t.get("name") != "masked")["text"]
    assert text[0][1] == "\u2212\u221e" and text[1][0] != "\u2212\u221e"
    weights = trace_z(at, "A = softmax(M)")
    assert np.all(weights[~allowed] == 0.0)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)
    assert any(f"{int((~allowed).sum())} \\text{{ of }} {allowed.size}" in b for b in latex_bodies(at))


# --------------------------------------------------------------------------- the worked cell


def test_worked_cell_writes_out_the_real_numbers():
    at = run_page(text=TWO_THE)
    tokens, _, steps = engine(text=TWO_THE)
    i_box, j_box = at.selectbox(key="sbs_i"), at.selectbox(key="sbs_j")
    assert i_box.options == [f"{n}: {t}" for n, t in enumerate(tokens)]  # the two "the" differ by index
    i, j = 3, 1
    i_box.set_value(i)
    j_box.set_value(j)
    rerun(at)
    bodies = latex_bodies(at)
    dot = next(b for b in bodies if rf"s_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}}" in b)
    score = float(steps.q[i] @ steps.k[j])
    assert dot.removesuffix(r"\end{aligned}").endswith(f"&= {fmt2(score)}")
    assert dot.count(r"\times") == steps.q.shape[1]  # d_k = 4 terms, all written out
    for a, b in zip(steps.q[i], steps.k[j], strict=True):
        if min(abs(a), abs(b)) >= 0.005:
            assert f"{_paren(a)}\\times{_paren(b)}" in dot
    scaled = score / np.sqrt(4)
    assert any(rf"\times 0.5 = {fmt2(scaled)}" in b for b in bodies)
    weight = np.exp(steps.scaled[i, j]) / np.exp(steps.scaled[i]).sum()
    assert any(f"= {fmt2(weight)}," in b and r"\frac" in b for b in bodies)
    z_block = next(b for b in bodies if b.startswith(r"\begin{aligned}z_{3}"))
    z_i = steps.weights[i] @ steps.v
    tail = z_block.split("&= ")[-1]
    for value in z_i:
        assert fmt2(value) in tail
    bar = figure_by_title(at, f"Row {i} of A, key {j} highlighted")
    np.testing.assert_allclose(decode(bar["data"][0]["y"]), steps.weights[i], rtol=1e-12)
    colours = bar["data"][0]["marker"]["color"]  # key j in the highlight colour, every other bar alike
    assert [n for n, c in enumerate(colours) if c != colours[0 if j else 1]] == [j]
    assert bar["layout"]["xaxis"]["ticktext"][j].startswith("<b>")
    assert any(c.value.startswith("Query i = 3:") for c in at.caption)


def _paren(value: float) -> str:
    return f"({fmt2(value)})" if value < 0 else fmt2(value)


def test_worked_cell_shows_a_masked_cell_and_shortens_long_sums():
    at = run_page(text=PRESETS[1], causal="1", d_k="64", x100="1")
    _tokens, _, steps = engine(text=PRESETS[1], causal=True, d_k=64, x100=True)
    at.selectbox(key="sbs_i").set_value(1)
    at.selectbox(key="sbs_j").set_value(5)
    rerun(at)
    bodies = latex_bodies(at)
    assert any(r"M_{1,5} = -\infty" in b for b in bodies)
    dot = next(b for b in bodies if r"s_{1,5} = q_{1} \cdot k_{5}" in b)
    assert r"\cdots" in dot and dot.count(r"\times") == 4  # 64 terms shortened to 3 ... 1
    score = float(steps.q[1] @ steps.k[5])
    assert dot.removesuffix(r"\end{aligned}").endswith(f"&= {fmt2(score)}")  # the total stays exact
    assert not any("nan" in b.lower() for b in bodies)
    # x100 makes the scores large: the softmax is written with the row max subtracted.
    assert any(r"- m_{1}" in b for b in bodies)


def test_worked_cell_selection_survives_a_shorter_sentence():
    at = run_page(text=PRESETS[1])
    at.selectbox(key="sbs_i").set_value(10)
    rerun(at)
    at.text_input(key="sbs_text").input("Hi there")
    rerun(at)
    assert at.selectbox(key="sbs_i").value in (0, 1)


# --------------------------------------------------------------------------- bad input


# Every hostile text typed into the box, and the checks every page shares, are in
# tests/app/test_bad_sentences.py (which also checks this page's matrices against the engine).


def test_a_link_longer_than_the_box_is_cut_at_2000_characters():
    text = HOSTILE["10k_chars"]
    at = run_page(text=text)  # the text box takes 2,000 characters; a link can carry more
    assert at.text_input(key="sbs_text").value == text[:2000]
    assert_matches_engine(at, text=text[:2000])
    assert all(np.all(np.isfinite(z)) for z in all_z(at))  # no mask: no gap, no NaN anywhere
    assert at.warning and "only the first 64" in at.warning[0].value


def test_hostile_text_is_shown_literally_everywhere():
    """Markup of every kind in one sentence, and the worked cell on its first token, "<"."""
    text = " ".join(HOSTILE[name] for name in ("html_script", "markdown", "md_link", "latex"))
    at = run_page()
    at.text_input(key="sbs_text").input(text)
    rerun(at)
    at.selectbox(key="sbs_i").set_value(0)  # "<"
    rerun(at)
    tokens = ac.tokenize(text)
    ticks = figure_by_title(at, "S = QKᵀ")["layout"]["yaxis"]["ticktext"]
    assert "&lt;" in ticks and "script" in ticks and "$\u200b" in ticks
    for fig in figures(at):
        spec = json.dumps(fig, ensure_ascii=False)
        assert not re.search(r"<\s*/?\s*(script|img|a\b)", spec, re.IGNORECASE)
        hover = json.dumps([t.get("customdata") for t in fig["data"]], ensure_ascii=False)
        labels = "".join(t for axis in ("xaxis", "yaxis") for t in fig["layout"][axis].get("ticktext", []))
        labels = labels.replace("<b>", "", 1).replace("</b>", "", 1)  # the highlighted key's label: our own bold
        assert not any(ch in hover or ch in labels for ch in "<>")  # escaped as &lt; &gt;
    # No user text inside LaTeX; markdown and captions escape it.
    for body in latex_bodies(at):
        assert not any(word in body for word in ("script", "javascript", "href", "alert"))
    for el in [*at.caption, *at.markdown]:
        assert "<script" not in el.value and "](javascript" not in el.value
    assert at.caption[0].value.startswith("Query i = 0: “&lt;”")
    assert len(ticks) == len(tokens)


def test_tags_in_one_token_are_escaped_in_tick_labels():
    text = "x<script>y"
    at = run_page(text=text)
    ticks = figure_by_title(at, "S = QKᵀ")["layout"]["yaxis"]["ticktext"]
    tokens = ac.tokenize(text)
    assert "&lt;" in ticks and len(ticks) == len(tokens)
    assert all("<" not in t for t in ticks)
    hover = next(t for t in figure_by_title(at, "S = QKᵀ")["data"])["customdata"]
    assert "<" not in json.dumps(hover)


def test_long_text_is_truncated_with_a_visible_note():
    text = " ".join(f"w{n}" for n in range(80))
    at = run_page(text=text)
    assert at.warning and "only the first 64" in at.warning[0].value
    assert trace_z(at, "A = softmax(M)").shape == (64, 64)
    assert_matches_engine(at, text=text)


@pytest.mark.parametrize(
    "query",
    [dict(d_k="1"), dict(d_k="64", d_model="64", x100="1"), dict(d_k="64", d_model="2", x100="1", scale="0")],
    ids=["d_k=1", "d_k=64,d_model=64,x100", "d_k=64,d_model=2,x100,unscaled"],
)
def test_extreme_settings_give_finite_weights(query):
    at = run_page(text=PRESETS[1], **query)
    parsed = {k: (int(v) if k in ("d_k", "d_model") else v == "1") for k, v in query.items()}
    got = assert_matches_engine(at, text=PRESETS[1], **parsed)
    assert np.all(np.isfinite(got["weights"])) and np.all(np.isfinite(got["output"]))
    assert not any("nan" in b.lower() or "inf" in b.replace(r"\infty", "") for b in latex_bodies(at))


# --------------------------------------------------------------------------- the URL


def test_query_params_set_every_control():
    query = dict(text=TWO_THE, d_model="8", d_k="2", seed="3", scale="0", x100="1", causal="1", pos="0")
    at = run_page(**query)
    assert at.text_input(key="sbs_text").value == TWO_THE
    assert at.slider(key="sbs_d_model").value == 8 and at.slider(key="sbs_d_k").value == 2
    assert at.number_input(key="sbs_seed").value == 3
    assert [at.toggle(key=f"sbs_{n}").value for n in ("scale", "x100", "causal", "pos")] == [False, True, True, False]
    assert_matches_engine(at, text=TWO_THE, d_model=8, d_k=2, seed=3, scale=False, x100=True, causal=True, pos=False)


GARBAGE = [
    (dict(d_k="abc"), dict(d_k=4)),
    (dict(d_k="-5"), dict(d_k=1)),
    (dict(d_k="99999"), dict(d_k=64)),
    (dict(d_k="4.5", d_model="1e3"), dict(d_k=4, d_model=16)),
    (dict(d_model="1", seed="-7"), dict(d_model=2, seed=0)),
    (dict(seed="9" * 5000), dict(seed=0)),
    (dict(d_k=" 12 ", d_model="+8"), dict(d_k=12, d_model=8)),
    (dict(scale="maybe", causal="perhaps", x100="", pos="2"), dict()),
    (dict(scale="FALSE", causal="yes", x100="on", pos="no"), dict(scale=False, causal=True, x100=True, pos=False)),
    (dict(text=""), dict()),
    (dict(text="   "), dict()),
    (dict(text="x" * 50_000), dict(text="x" * 2000)),
]


@pytest.mark.parametrize(("query", "expected"), GARBAGE, ids=[str(q)[:40] for q, _ in GARBAGE])
def test_query_params_are_validated_and_clamped(query, expected):
    at = run_page(**query)
    want = {**DEFAULTS, **expected}
    assert at.slider(key="sbs_d_model").value == want["d_model"]
    assert at.slider(key="sbs_d_k").value == want["d_k"]
    assert at.number_input(key="sbs_seed").value == want["seed"]
    for name in ("scale", "x100", "causal", "pos"):
        assert at.toggle(key=f"sbs_{name}").value == want[name], name
    assert at.text_input(key="sbs_text").value == want["text"]
    assert_matches_engine(at, **expected)


def test_repeated_words_and_case_claims_match_the_numbers():
    """With positions off, an exact repeat has identical rows of X and the page says so; "The"
    and "the" are different words with different rows, and the page says that too."""
    at = run_page(text="the cat sat on the mat", pos="0")
    _, _, steps = engine(text="the cat sat on the mat", pos=False)
    np.testing.assert_array_equal(steps.x[0], steps.x[4])
    text = " ".join(m.value for m in at.markdown)
    assert "positions 0 and 4, and with positions off its rows of X are identical" in text
    at = run_page(text="The cat sat on the mat.", pos="0")
    _, _, steps = engine(text="The cat sat on the mat.", pos=False)
    assert not np.array_equal(steps.x[0], steps.x[4])  # "The" and "the"
    assert "“The” and “the” are different words" in " ".join(m.value for m in at.markdown)


def _step6(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Large scores push the softmax"))


@pytest.mark.parametrize(
    "query",
    [{}, dict(text=PRESETS[1], d_model="64"), dict(text=TWO_THE, d_model="2", seed="4"), dict(pos="0")],
    ids=["default", "long,d_model=64", "d_model=2", "positions-off"],
)
def test_the_spread_sentence_is_the_pages_own_x(query):
    """Step 6 splits X's mean square into the word vectors' part and what the positions add:
    every number is the page's own X (read back from its chart), and the parts add up as
    printed. Var(X) and std(S~) are the page's too, and the lesson is the one the page shows."""
    at = run_page(**query)
    x = trace_z(at, "X (")
    tokens = ac.tokenize(query.get("text", PRESETS[0]), max_tokens=64)
    d_model, positions = int(query.get("d_model", 16)), query.get("pos", "1") == "1"
    lesson = wt.lesson(
        wt.seeded_source(tuple(tokens), d_model, 4, seed=int(query.get("seed", 0)), positional=positions)
    )
    np.testing.assert_allclose(x, lesson.steps.x, rtol=1e-12, atol=1e-12)
    text = _step6(at)
    total = f"{np.mean(x**2):.2f}"
    if positions:
        words = np.mean((x - ac.positional_encoding(len(tokens), d_model)) ** 2)
        found = re.search(
            r"Here it is (\S+): the word vectors alone give (\S+) and the positions (add|take away) (\S+)\.", text
        )
        assert found, text
        shown_total, shown_words, sign, shown_added = found.groups()
        assert shown_total == total and shown_words == f"{words:.2f}"
        added = float(shown_added) * (1 if sign == "add" else -1)
        assert float(shown_words) + added == pytest.approx(float(shown_total), abs=1e-9)  # adds up as printed
        assert added == pytest.approx(np.mean(x**2) - words, abs=0.011)  # what the positions really add
    else:
        assert f"Here the word vectors alone make X, and its mean square is {total}." in text
    if f"{np.var(x):.2f}" != total:
        assert f"Var(X) in Step 2 is smaller, {np.var(x):.2f}, because the variance first subtracts the mean" in text
        assert f"the entries, {np.mean(x):.2f} here." in text
        assert any(rf"\operatorname{{Var}}(X) = {np.var(x):.2f}" in b for b in latex_bodies(at))
    assert f"In this run std(S̃) = {np.std(trace_z(at, 'S̃ (')):.2f}." in text
    assert lesson.stats.x_mean_square == pytest.approx(np.mean(x**2))


@pytest.mark.parametrize("query", [{}, {"x100": "1"}, {"x100": "1", "causal": "1", "text": PRESETS[1]}])
def test_step6_states_this_runs_spread_and_what_x100_does_to_it(query):
    """The spread sentence gives std(S~) before the split of X's mean square; with ×100 on, the
    page's std(S~) is 100 times the one it has with the switch off (that run recomputed here), and
    it counts the rows that put nearly all their weight on one key."""
    at = run_page(**query)
    text = _step6(at)
    assert text.index("In this run std(S̃) =") < text.index("Here it is ")
    overrides = {"text": query.get("text", PRESETS[0]), "causal": "causal" in query}
    on, off = wt_lesson(**overrides, x100="x100" in query), wt_lesson(**overrides, x100=False)
    np.testing.assert_allclose(trace_z(at, "S̃ ("), on.steps.scaled, rtol=1e-12)
    check_x100(on, text, off)


def wt_lesson(**overrides) -> wt.Lesson:
    """The lesson for these settings, built from attn_core's walkthrough (not the page's words)."""
    p = {**DEFAULTS, **overrides}
    source = wt.seeded_source(
        tuple(ac.tokenize(p["text"])), p["d_model"], p["d_k"], seed=p["seed"], positional=p["pos"]
    )
    return wt.lesson(source, scale=p["scale"], multiplier=100.0 if p["x100"] else 1.0, causal=p["causal"])


def _markdown(at: AppTest, start: str) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(start))


@pytest.mark.parametrize("pos", ["1", "0"])
def test_step2_says_attention_alone_sees_a_set(pos):
    """Reverse the sentence: without positions every output is only reordered; with them the
    outputs change. Both numbers are recomputed here by embedding the reversed words; with the
    positions on, the sentence about P and its formula are the engine's positional_encoding."""
    at = run_page(pos=pos)
    tokens = ac.tokenize(PRESETS[0], max_tokens=64)
    w = ac.init_weights(16, 4, seed=0)

    def out(words: list[str], positional: bool) -> np.ndarray:
        return ac.attention_steps(ac.embed(words, 16, seed=0, positional=positional), w.w_q, w.w_k, w.w_v).output

    set_gap = np.max(np.abs(out(tokens[::-1], False) - out(tokens, False)[::-1]))
    text = _markdown(at, "Without positions, attention treats the sentence as a set of words")
    assert set_gap < 1e-14 and re.search(r"max \|Δ\| = (0|\d\.\de−1[4-7]), rounding\)", text), text
    if pos == "1":
        moved = np.max(np.abs(out(tokens[::-1], True) - out(tokens, True)[::-1]))
        assert f"reading it backwards changes the outputs by up to {moved:.2f}." in text
        pe = ac.positional_encoding(7, 16)
        about_p = _markdown(at, "Row p of P")
        assert f"P[6, 0] = sin 6 = {pe[6, 0]:.2f} and P[6, 1] = cos 6 = {pe[6, 1]:.2f}" in about_p
        assert any(r"\sin\!\left(p / 10000^{2i/16}\right)" in b for b in latex_bodies(at))
    else:
        assert "reading it backwards changes" not in text
        assert not [m for m in at.markdown if m.value.startswith("Row p of P")]


@pytest.mark.parametrize(
    "query",
    [{}, {"causal": "1"}, {"text": PRESETS[1], "d_k": "8"}, {"seed": "5"}, {"seed": "5", "causal": "1", "d_k": "2"}],
)
def test_step5_says_which_key_won_and_why(query):
    """The page's step 5 sentence against the page's own Q and K: where the winner is not the
    best-aimed key, a longer key won only on a positive score, a shorter one where no score is
    positive (?seed=5, row 1)."""
    at = run_page(**query)
    overrides = {"text": query.get("text", PRESETS[0]), "causal": query.get("causal") == "1"}
    overrides |= {"d_k": int(query.get("d_k", 4)), "seed": int(query.get("seed", 0))}
    lesson = wt_lesson(**overrides)
    np.testing.assert_allclose(trace_z(at, "Q, K, V (", "Q"), lesson.steps.q, atol=1e-12)
    np.testing.assert_allclose(trace_z(at, "Q, K, V (", "K"), lesson.steps.k, atol=1e-12)
    text = _markdown(at, "Row i compares token i's query")
    check_aligned(lesson, text)
    if query == {"seed": "5"}:
        assert "a shorter key won" in text


@pytest.mark.parametrize(
    "query",
    [{}, {"causal": "1"}, {"text": PRESETS[1], "causal": "1", "x100": "1", "d_k": "16"}],
    ids=["no-mask", "causal", "underflow"],
)
def test_step8_counts_the_zero_weights(query):
    """The zeros, the masked cells and (×100 on a long causal sentence) a weight that underflows."""
    at = run_page(**query)
    overrides = {"text": query.get("text", PRESETS[0]), "causal": "causal" in query, "x100": "x100" in query}
    lesson = wt_lesson(**overrides, d_k=int(query.get("d_k", 4)))
    weights = trace_z(at, "A = softmax(M)")
    np.testing.assert_array_equal(weights == 0, lesson.steps.weights == 0)
    assert weights.min() >= 0
    check_zeros(lesson, _markdown(at, "The softmax turns each row into weights"), overrides["causal"])
    if "x100" in query:
        assert int((weights == 0).sum()) > int((~lesson.steps.mask).sum())  # one allowed weight rounds to 0


def test_step9_and_the_footer_say_what_a_weight_is():
    """Step 9 names this run's shortest and longest value rows; the footer's largest weight is
    what it is (how much of v_j goes into z_i), beside the norm-based share, all from the page's
    own V and weights."""
    at = run_page(i="3")
    lesson = wt_lesson()
    np.testing.assert_allclose(trace_z(at, "Q, K, V (", "V"), lesson.steps.v, atol=1e-12)
    check_value_lengths(lesson, _markdown(at, "**A weight is not importance.**"))
    footer = next(m.value for m in at.markdown if m.value.startswith("- One head turned your"))
    first, share = (line.removeprefix("- ") for line in footer.split("\n"))
    check_first_line(lesson, first, causal=False)
    check_share(lesson, share, 3)


def test_mean_square_inputs_give_scaled_scores_of_about_their_mean_square():
    """The general claims of Step 6: with mean-0 random weights, the mean square of X's
    entries is what sets the spread (unit-variance inputs: std(S~) about 1), and the
    sinusoidal positions have a mean square of exactly 1/2 (sin² + cos² = 1 per pair)."""
    spreads = {1.0: [], 2.0: []}
    for seed in range(40):
        w = ac.init_weights(16, 4, seed=seed)
        for ms in spreads:
            x = np.random.default_rng(seed).standard_normal((16, 16)) * np.sqrt(ms)
            spreads[ms].append(np.std(ac.attention_steps(x, w.w_q, w.w_k, w.w_v).scaled))
    assert abs(np.mean(spreads[1.0]) - 1.0) < 0.15
    assert abs(np.mean(spreads[2.0]) - 2.0) < 0.3  # it grows with the mean square
    for T, d in ((7, 16), (64, 64), (3, 2)):
        assert np.mean(ac.positional_encoding(T, d) ** 2) == pytest.approx(0.5)
    # Step 3: a query entry's variance (over the random weights) is about X's mean square, not its
    # variance; here X has mean 1, so the two differ by a factor of 2.
    x = 1.0 + np.random.default_rng(1).standard_normal((8, 16))
    q = np.stack([x @ ac.init_weights(16, 4, seed=s).w_q for s in range(300)])  # (seeds, T, d_k)
    assert np.mean(q**2) == pytest.approx(np.mean(x**2), rel=0.1)
    assert abs(np.mean(q**2) - np.var(x)) > 0.5


def test_the_weights_help_counts_the_real_models_heads_from_its_config():
    from attn_core import transformer as tr

    at = run_page()
    help_text = at.radio(key="sbs_weights").help
    folder = tr.minilm_dir()
    if folder is None:
        assert "a trained head of all-MiniLM-L6-v2" in help_text
        return
    config = json.loads((folder / "config.json").read_text())
    L, H = config["num_hidden_layers"], config["num_attention_heads"]
    assert f"one of the {L * H} trained heads ({L} layers of {H}) of all-MiniLM-L6-v2" in help_text


def test_the_worked_softmax_table_names_the_masked_scores_m():
    """With the causal mask on, row i of the softmax table is labelled M_{i,j}: the scaled
    score where j <= i, -inf after it, then exp(M) and A; the numbers are the engine's."""
    at = run_page(text=TWO_THE, causal="1")
    _, _, steps = engine(text=TWO_THE, causal=True)
    i = 2
    at.selectbox(key="sbs_i").set_value(i)
    rerun(at)
    table = next(b for b in latex_bodies(at) if b.startswith(r"\begin{array}"))
    rows = table.removesuffix(r"\end{array}").replace(r"\hline ", "").split(r" \\ ")
    head, m_row, exp_row, a_row = (r.split(" & ") for r in rows)
    assert head[0].endswith("j") and head[1:] == [str(j) for j in range(len(steps.masked))]
    assert m_row[0] == rf"M_{{{i},j}}" and exp_row[0] == rf"\exp(M_{{{i},j}})" and a_row[0] == rf"A_{{{i},j}}"
    for j, cell in enumerate(m_row[1:]):
        assert cell == (r"-\infty" if j > i else wt.latex_num(steps.scaled[i, j]))
        assert a_row[1 + j] == wt.latex_num(steps.weights[i, j])
    assert [exp_row[1 + j] for j in range(i + 1, len(steps.masked))] == ["0.00"] * (len(steps.masked) - i - 1)


@pytest.mark.parametrize("raw", ["none", "all", ""])
def test_a_link_without_a_token_for_the_worked_cell_picks_one(raw):
    """i and j must name a token: a link with ?i=none (or all, or nothing) opens on the
    default cell and writes that back, instead of failing."""
    at = AppTest.from_file(str(ROOT / "lessons" / "step_by_step" / "page.py"), default_timeout=60)
    at.query_params.update({"i": raw, "j": raw})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["sbs_i"] == 2 and at.session_state["sbs_j"] == 1
    assert "i" not in at.query_params and "j" not in at.query_params


def test_predict_first_hides_every_matrix_that_gives_the_answer_away():
    """The softmax keeps each row's order, so the scores, scaled and masked scores show the
    answer as well as the weights do: with "Predict first" on, all of them wait for the reveal,
    and the revealed answer is the engine's argmax and weight for the chosen query."""
    at = AppTest.from_file(str(ROOT / "lessons" / "step_by_step" / "page.py"), default_timeout=60)
    at.query_params.update({"predict": "1", "i": "3"})
    at.run()
    assert not at.exception
    titles = " | ".join(str(f["layout"].get("title")) for f in figures(at))
    for hidden in (STEP_TITLES[n] for n in (5, 6, 7, 8, 9)):
        assert hidden not in titles, f"{hidden} is shown before the reveal"
    assert STEP_TITLES[4] in titles  # what does not give the answer away stays
    tokens = tuple(ac.tokenize(at.text_input(key="sbs_text").value))
    source = wt.seeded_source(tokens, 16, 4, seed=0, positional=True)
    weights = wt.lesson(source, scale=True, multiplier=1.0, causal=False).steps.weights
    at.selectbox(key="sbs_quiz_pick").select_index(0).run()  # any pick: Reveal waits for one
    at.button(key="sbs_quiz_reveal").click().run()
    answer = " ".join(s.value for s in [*at.success, *at.info] if "The answer" in s.value)
    assert f"{weights[3].max():.3f}" in answer and tokens[int(weights[3].argmax())] in answer
    titles = " | ".join(str(f["layout"].get("title")) for f in figures(at))
    for shown in (STEP_TITLES[n] for n in (5, 6, 7, 8)):
        assert shown in titles, f"{shown} is still hidden after the reveal"


def test_a_question_starts_with_no_pick_and_reveal_waits_for_one():
    """Nothing is picked for the student (option 0 is sometimes the answer): Reveal is disabled
    until a pick (AppTest, like a browser, cannot click it then), and nothing is scored."""
    at = AppTest.from_file(str(ROOT / "lessons" / "step_by_step" / "page.py"), default_timeout=60)
    at.query_params.update({"predict": "1", "i": "3"})
    at.run()
    pick, reveal = at.selectbox(key="sbs_quiz_pick"), at.button(key="sbs_quiz_reveal")
    assert pick.value is None and pick.placeholder == PICK_PLACEHOLDER
    assert reveal.disabled
    assert not [s for s in [*at.success, *at.info] if "The answer" in s.value]
    assert at.session_state["quiz_score"]["asked"] == 0
    at.selectbox(key="sbs_quiz_pick").select_index(1).run()
    assert not at.button(key="sbs_quiz_reveal").disabled
    at.button(key="sbs_quiz_reveal").click().run()
    assert [s for s in [*at.success, *at.info] if "The answer" in s.value]
    assert at.session_state["quiz_score"]["asked"] == 1


def test_predict_first_in_presenter_mode_says_where_the_question_is():
    """Presenter mode shows one step: steps 5 to 7 hide their scores and point to step 8, where
    the question and its Reveal button are."""
    at = AppTest.from_file(str(ROOT / "lessons" / "step_by_step" / "page.py"), default_timeout=60)
    at.session_state["present"] = True
    at.query_params.update({"predict": "1", "step": "5"})
    at.run()
    assert not at.exception
    assert any(f"Hidden until you reveal your prediction on step {WEIGHTS_STEP}" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "sbs_quiz_reveal"]
    at2 = AppTest.from_file(str(ROOT / "lessons" / "step_by_step" / "page.py"), default_timeout=60)
    at2.session_state["present"] = True
    at2.query_params.update({"predict": "1", "step": "8"})
    at2.run()
    assert [b.key for b in at2.main.button if b.key == "sbs_quiz_reveal"] == ["sbs_quiz_reveal"]
    assert not any(f"on step {WEIGHTS_STEP}" in i.value for i in at2.info)


WEIGHTS_STEP = list(words.STEPS).index("weights") + 1  # where the question is: ?step=8 opens it
STEP_8 = f"Step {WEIGHTS_STEP} · {words.STEPS['weights']}"


def test_predict_first_is_asked_in_step_8():
    """The question lives in step 8's section (under its heading, before step 9's), so presenter
    mode shows it there and only there; steps 9 and the worked cell point back to step 8."""
    assert asked(run_page(predict="1")) == {"sbs_quiz": STEP_8}
    assert asked(run_page()) == {}
    for step in ("9", "10"):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.session_state["present"] = True
        at = rerun_with(at, predict="1", step=step)
        assert asked(at) == {}
        assert at.info and all(
            f"Hidden until you reveal your prediction on step {WEIGHTS_STEP}" in i.value for i in at.info
        )


def rerun_with(at: AppTest, **query: str) -> AppTest:
    at.query_params.update(query)
    return rerun(at)


@pytest.mark.parametrize(
    ("text", "query", "i"),
    [("Hi there", {}, 1), ("the cat the", {"pos": "0"}, 1), ("the the cat", {"pos": "0", "causal": "1"}, 1)],
    ids=["two-tokens", "repeated-words-no-positions", "causal-repeat"],
)
def test_predict_first_with_two_tokens_and_tied_repeats(text, query, i):
    """Repeated words without positions have equal keys, so their weights tie exactly: the tied keys
    are one option, and that option is the answer. Options are always distinct."""
    at = run_page(predict="1", text=text, i=str(i), **query)
    overrides = {"text": text, "pos": query.get("pos") != "0", "causal": query.get("causal") == "1"}
    tokens, _, steps = engine(**overrides)
    row = steps.weights[i]
    tied = [j for j in range(len(tokens)) if row[j] == row.max()]
    label = " or ".join(f"{j}: {tokens[j]}" for j in tied)
    assert label in options(at, "sbs_quiz")
    assert len(options(at, "sbs_quiz")) == len(tokens) - len(tied) + 1
    answer = reveal(at, "sbs_quiz", label)
    assert f"the largest weight in the row = {row.max():.3f}" in answer
    assert ("tie for the most weight" in answer) == (len(tied) > 1)
    assert len(tied) == (1 if text == "Hi there" else 2)  # the tie is really there


def test_predict_first_has_no_question_where_every_key_ties():
    """Three equal keys (one word three times, no positions) tie in every row: nothing to ask, the page
    says so, and the weights are shown."""
    at = run_page(predict="1", text="the the the", pos="0")
    assert asked(at) == {}
    assert any(c.value.startswith("Predict first has no question for query 2") for c in at.caption)
    np.testing.assert_allclose(trace_z(at, "A = softmax(M)"), np.full((3, 3), 1 / 3))


def test_predict_first_has_no_question_for_one_token():
    at = run_page(predict="1", text="Hi")
    assert asked(at) == {}
    assert any(c.value.startswith("Predict first has no question for one token") for c in at.caption)
    assert any(f["layout"]["title"]["text"].startswith("A = softmax(M)") for f in figures(at))  # nothing hidden
