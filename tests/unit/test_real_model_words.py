"""The Real model page's sentences (lessons/real_model/words/) against the numbers they state.

The sentences need a model's attentions (L, H, T, T): here Hypothesis draws them, rows that sum
to 1 with masked keys at 0, heads of every kind (previous-token, next-token, [CLS] and [SEP]
sinks, even, random), so every threshold is met and missed; one test marked ``model`` runs the
same checks on all-MiniLM-L6-v2 over a few real sentences. Each check recomputes the claim with
loops and plain NumPy (never through attn_core.views) and reads the sentence's numbers back."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_core import tables, views
from lessons.real_model import words
from ui.markup import md_escape
from ui.reader import PROJECTOR, SCREEN

MANY = settings(max_examples=60, deadline=None)
KINDS = ("random", "masked", "previous", "next", "cls", "sep", "even", "peaked")
SENTENCES = {
    "tired": "The animal didn't cross the street because it was too tired.",
    "congested": "The animal didn't cross the street because it was congested.",
}


def _head(kind: str, T: int, rng: np.random.Generator) -> np.ndarray:
    """One head's (T, T) weights of a kind; every row sums to 1."""
    eye = np.eye(T)
    if kind == "previous":
        a = np.roll(eye, -1, axis=1)  # row t -> t - 1 (row 0 -> the last key)
    elif kind == "next":
        a = np.roll(eye, 1, axis=1)
    elif kind in ("cls", "sep"):
        a = np.zeros((T, T))
        a[:, 0 if kind == "cls" else -1] = 1.0
    elif kind == "even":
        a = np.full((T, T), 1.0 / T)
    else:
        scores = rng.normal(size=(T, T)) * (8.0 if kind == "peaked" else rng.uniform(0.1, 3.0))
        if kind == "masked":  # some keys may not be attended to: weight exactly 0
            allowed = rng.random((T, T)) < 0.6
            allowed[np.arange(T), rng.integers(0, T, T)] = True  # every row keeps one key
            scores = np.where(allowed, scores, -np.inf)
        a = np.exp(scores - scores.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)
    mix = rng.uniform(0.0, 0.5) if kind not in ("random", "masked", "peaked") else 0.0  # near the thresholds too
    noise = rng.dirichlet(np.ones(T), size=T)
    return (1 - mix) * a + mix * noise


@st.composite
def attentions(draw) -> np.ndarray:
    L, H, T = draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=L * H, max_size=L * H))
    return np.array([_head(kind, T, rng) for kind in kinds]).reshape(L, H, T, T)


def _lesson(a: np.ndarray, view: str = "model") -> views.ModelLesson:
    L, H, T, _ = a.shape
    qk = np.zeros((L, H, T, 2))
    return views.model_lesson(a, qk, qk, view)


def _named(text: str) -> tuple[int, int]:
    """(layer, head), 0-based, from "layer 2, head 3"."""
    layer, head = re.search(r"[Ll]ayer (\d+), head (\d+)", text).groups()
    return int(layer) - 1, int(head) - 1


# --------------------------------------------------------------------------- the checks (synthetic and real)


def check_sinks(a: np.ndarray, said: str) -> None:
    """ "X of the N heads put more than half of their attention (averaged over the query tokens) on
    [CLS], and Y on the final [SEP]"."""
    L, H, T, _ = a.shape
    on_cls = sum(np.mean([a[i, h, t, 0] for t in range(T)]) > 0.5 for i in range(L) for h in range(H))
    on_sep = sum(np.mean([a[i, h, t, T - 1] for t in range(T)]) > 0.5 for i in range(L) for h in range(H))
    m = re.search(r"(\d+) of the (\d+) heads put more than half .* on \[CLS\], and (\d+) on the final \[SEP\]", said)
    assert m and tuple(map(int, m.groups())) == (on_cls, L * H, on_sep), said


def check_roles(a: np.ndarray, said: str) -> None:
    """Heads on the previous and the next token (more than half of their attention, averaged over the
    queries that have such a key), the strongest previous-token head, and the broad heads: averaged
    over a head's rows, a row's entropy above 80% of log₂ T."""
    L, H, T, _ = a.shape
    prev = np.array([[np.mean([a[i, h, t, t - 1] for t in range(1, T)]) for h in range(H)] for i in range(L)])
    nxt = np.array([[np.mean([a[i, h, t, t + 1] for t in range(T - 1)]) for h in range(H)] for i in range(L)])

    def row_entropy(p: np.ndarray) -> float:
        return -sum(x * math.log2(x) for x in p if x > 0)

    broad = np.array(
        [[np.mean([row_entropy(a[i, h, t]) for t in range(T)]) / math.log2(T) for h in range(H)] for i in range(L)]
    )
    m = re.search(
        r"Here (\d+) heads? puts? more than half of (?:its|their) attention on the previous token \(the most: "
        r"layer (\d+), head (\d+), (\d\.\d\d)\), (\d+) on the next token, and (\d+) spread it widely: "
        r"averaged over a head's rows, the entropy of a row is above 80% of the most it can be, log₂ T",
        said,
    )
    assert m, said
    n_prev, layer, head, best, n_next, n_broad = m.groups()
    assert (
        int(n_prev) == (prev > 0.5).sum() and int(n_next) == (nxt > 0.5).sum() and int(n_broad) == (broad > 0.8).sum()
    )
    assert prev[int(layer) - 1, int(head) - 1] == pytest.approx(prev.max(), abs=1e-12) and best == f"{prev.max():.2f}"
    assert ("1 head puts more than half of its" in said) == (int(n_prev) == 1)


# --------------------------------------------------------------------------- the model view


@MANY
@given(attentions())
def test_the_sink_sentence_counts_the_heads_on_cls_and_sep(a):
    check_sinks(a, words.sinks_text(_lesson(a)))


@MANY
@given(attentions())
def test_heads_differ_counts_previous_next_and_broad_heads_with_the_mean_over_rows(a):
    check_roles(a, words.roles_text(_lesson(a).roles))


@MANY
@given(attentions(), st.sampled_from([None, 32]))
def test_the_model_views_paragraph_holds_both_counts_and_says_when_it_pools(a, pooled_to):
    lesson = _lesson(a)
    said = words.model_view_text(lesson, pooled_to)
    check_roles(a, said)
    check_sinks(a, said)
    assert ("averaged into 32 × 32 blocks" in said) == (pooled_to == 32)


@MANY
@given(attentions())
def test_the_footer_counts_the_cls_heads_and_the_patterns(a):
    L, H, T, _ = a.shape
    (line,) = words.footer_lines(L, H, T, _lesson(a), None)
    on_cls = sum(a[i, h, :, 0].mean() > 0.5 for i in range(L) for h in range(H))
    assert f"{L} layers of {H} heads read your {T} tokens in {L * H} patterns of their own; {on_cls} of" in line


# --------------------------------------------------------------------------- the neuron view


@MANY
@given(
    st.integers(1, 3), st.integers(1, 4), st.integers(2, 30), st.integers(1, 16), st.integers(0, 2**32 - 1), st.data()
)
def test_the_neuron_views_formula_and_caption_name_the_key_the_query_attends_to_most(L, H, T, d_k, seed, data):
    rng = np.random.default_rng(seed)
    queries, keys = rng.normal(size=(2, L, H, T, d_k)) * rng.uniform(0.1, 4.0)
    layer, head, query = (
        data.draw(st.integers(0, L - 1)),
        data.draw(st.integers(0, H - 1)),
        data.draw(st.integers(0, T - 1)),
    )
    nv = views.neuron_view(queries, keys, layer, head, query)
    tokens = [f"t{n}" if n % 3 else "*it*" for n in range(T)]
    scores = np.array(
        [sum(queries[layer, head, query, d] * keys[layer, head, j, d] for d in range(d_k)) for j in range(T)]
    )
    weights = np.exp(scores / math.sqrt(d_k) - (scores / math.sqrt(d_k)).max())
    weights /= weights.sum()
    j = int(re.search(r"attends most to token (\d+)", words.neuron_caption(nv, tokens, True)).group(1))
    assert weights[j] == pytest.approx(weights.max(), abs=1e-12)
    latex = words.neuron_latex(nv)
    m = re.search(
        r"q_\{(\d+)\}\\cdot k_\{(\d+)\} = (-?\d+\.\d+),.*\{\\sqrt\{(\d+)\}\} = (-?\d+\.\d+),.*_\{\d+\} = (\d\.\d+)",
        latex,
    )
    assert m, latex
    q_, k_, s, dk, scaled, w = m.groups()
    assert (int(q_), int(k_), int(dk)) == (query, j, d_k)
    assert float(s) == pytest.approx(scores[j], abs=6e-4) and float(scaled) == pytest.approx(
        scores[j] / math.sqrt(d_k), abs=6e-4
    )
    assert float(w) == pytest.approx(weights[j], abs=6e-4)
    caption = words.neuron_caption(nv, tokens, T <= 24)
    assert f"Token {query} is “{md_escape(tokens[query])}”" in caption and ("highlighted bar" in caption) == (T <= 24)


@MANY
@given(st.integers(1, 12), st.integers(0, 2**32 - 1), st.data())
def test_the_neuron_views_one_row_tables_are_described_by_the_querys_position(T, seed, data):
    """The q chart's description (its screen-reader text) and its table name the query by the number
    the token list gives it (query 1 “the”), not by the row's place in a one-row table."""
    rng = np.random.default_rng(seed)
    d_k = data.draw(st.integers(1, 8))
    q, k = rng.normal(size=(2, 1, 1, T, d_k))
    query = data.draw(st.integers(0, T - 1))
    nv = views.neuron_view(q, k, 0, 0, query)
    tokens = [f"w{n}" for n in range(T)]
    found = words.neuron_tables(nv, tokens, [f"d{i}" for i in range(d_k)])
    assert list(found) == list(words.NEURON_CHARTS)
    described = tables.describe(found["q"])
    assert f"query {query} “w{query}”" in described and (query == 0 or "query 0 " not in described)
    for name in ("q", "scores", "weights"):
        assert tables.labelled(found[name].rows, found[name].first_row) == [f"{query}:w{query}"]
    np.testing.assert_array_equal(found["weights"].values[0], nv.weights)


# --------------------------------------------------------------------------- "it"


@st.composite
def it_rows(draw) -> dict[str, dict]:
    """Rows like models.it_rows: each sentence's tokens and the attention row of "it" (sums to 1)."""
    rows = {}
    for label, text in SENTENCES.items():
        tokens = ["[CLS]", *re.findall(r"\w+|[^\w\s]", text.lower()), "[SEP]"]
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        row = rng.dirichlet(np.full(len(tokens), draw(st.sampled_from([0.05, 0.5, 5.0]))))
        rows[label] = {
            "tokens": tokens,
            "row": row,
            "animal": float(row[tokens.index("animal")]),
            "street": float(row[tokens.index("street")]),
            "top": tokens[int(np.argmax(row))],
        }
    return rows


@MANY
@given(it_rows(), st.integers(0, 5), st.integers(0, 11), st.sampled_from([SCREEN, PROJECTOR]))
def test_the_it_suggestion_states_the_heads_weights_on_animal_and_street(rows, layer, head, reader):
    said = words.it_caption(rows, layer, head, reader)
    assert _named(said) == (layer, head)
    tired, cong = rows["tired"], rows["congested"]
    numbers = [float(x) for x in re.findall(r"(\d\.\d\d) (?:of its weight )?on “(?:animal|street)”", said)]
    assert numbers == [round(float(v), 2) for v in (tired["animal"], tired["street"], cong["animal"], cong["street"])]
    top = cong["tokens"][int(np.argmax(cong["row"]))]
    assert ("“animal” still gets the most weight" in said) == (top == "animal")
    if top != "animal":
        assert f"the most weight now goes to “{md_escape(top)}”" in said
    assert ("(the examples in the sidebar)" in said) == reader.presenting


@MANY
@given(it_rows(), st.integers(0, 5), st.integers(0, 11))
def test_the_it_questions_answers_are_the_rows_largest_weights(rows, layer, head):
    questions = words.it_questions(rows, SENTENCES, layer, head)
    assert [q.key for q in questions] == ["rm_quiz_tired", "rm_quiz_congested"]
    for q, (label, text) in zip(questions, SENTENCES.items(), strict=True):
        row = rows[label]["row"]
        assert _named(q.prompt) == (layer, head) and text in q.prompt
        n, token = q.options[q.answer].split(": ", 1)
        assert row[int(n)] == row.max() and token == rows[label]["tokens"][int(n)]
        assert q.value == pytest.approx(row.max()) and len(q.options) == len(row)
    for said in (words.it_hidden(layer, head), words.waits(layer, head)):
        assert _named(said) == (layer, head)


@MANY
@given(attentions(), it_rows(), st.integers(0, 5), st.integers(0, 11))
def test_the_footer_says_whether_the_last_word_moves_the_it_head(a, rows, layer, head):
    L, H, T, _ = a.shape
    lines = words.footer_lines(L, H, T, _lesson(a), (layer, head, rows))
    tired, cong = rows["tired"]["animal"], rows["congested"]["animal"]
    assert _named(lines[1]) == (layer, head)
    assert f"“animal” {tired:.2f} of its weight in the “tired” sentence and {cong:.2f} in the “congested”" in lines[1]
    assert ("hardly changes" in lines[1]) == (abs(tired - cong) < 0.05)


# --------------------------------------------------------------------------- names and numbering


@MANY
@given(st.integers(1, 12), st.integers(1, 16), st.data())
def test_layers_and_heads_are_named_from_1(n_layers, n_heads, data):
    layer, head = data.draw(st.integers(0, n_layers - 1)), data.draw(st.integers(0, n_heads - 1))
    assert words.weights_title(layer, head) == f"Layer {layer + 1}, head {head + 1}: attention weights"
    assert words.head_view_title(layer) == f"Head view, layer {layer + 1}"
    assert words.mean_title(layer).startswith(f"Layer {layer + 1}:") and words.rollout_title(layer).endswith(
        f"layer {layer + 1}"
    )
    assert words.layer_names(n_layers) == [f"layer {n}" for n in range(1, n_layers + 1)]
    assert words.head_names(n_heads) == [f"h{n}" for n in range(1, n_heads + 1)]
    assert words.shown_layer(layer + 1) == f"layer {layer + 1}" and words.shown_head(head + 1) == f"head {head + 1}"
    assert _named(words.reproduce_text(layer, head, 32)) == (layer, head)
    about = words.about_model("m", n_layers, n_heads, 384, 32, "CPU")
    assert f"layer 1 to layer {n_layers}, head 1 to head {n_heads}" in about
    assert "bertviz and TransformerLens count both from 0" in about
    chosen = tuple(sorted(data.draw(st.sets(st.integers(0, n_heads - 1), min_size=1))))
    name = words.heads_mean_name(layer, chosen, n_heads)
    if len(chosen) < n_heads:
        assert name == f"Layer {layer + 1}, mean of " + ", ".join(str(h + 1) for h in chosen)
    else:
        assert name.endswith("mean of all heads")


BUTTONS = [
    (1, 7, "All 12 heads", list(range(1, 13))),  # fewer than all: every head
    (12, 7, "Only head 8", [8]),  # all: back to the page's own head (0-based 7), shown as 8
    (12, None, "Only head 1", [1]),  # no head of its own (no model): head 1
    (12, 40, "Only head 1", [1]),  # a head this model does not have
]


@pytest.mark.parametrize(("n_chosen", "first", "label", "to"), BUTTONS)
def test_the_heads_button_goes_to_every_head_and_back_to_the_pages_own(n_chosen, first, label, to):
    assert words.heads_button(n_chosen, 12, first) == (label, to)


def test_the_first_view_is_the_it_head_by_its_shown_numbers():
    tokens = ["[CLS]", "the", "animal", "it", "[SEP]"]
    first = words.first_view(3, 7, tokens)
    assert (first.layer, first.heads, first.focus, first.head) == (4, (8,), 3, 7)
    assert words.FirstView().heads == tuple(range(1, 13)) and words.FirstView().head is None


# --------------------------------------------------------------------------- the real model


@pytest.mark.model
def test_the_sentences_hold_on_the_real_model():
    """The same checks on all-MiniLM-L6-v2's own attentions, a few real sentences, and what the page
    keeps: [CLS] is the model's sink, not [SEP], and the "it" head moves with the last word."""
    from attn_core import models

    loaded = models.load_model(device="cpu")
    inputs = [
        (SENTENCES["tired"], None),
        (SENTENCES["congested"], None),
        ("time flies like an arrow", "fruit flies like a banana"),
        ("The cat sat on the mat.", None),
    ]
    for a_text, b_text in inputs:
        att = models.extract_attentions(loaded, a_text, b_text)
        a = att.attentions.astype(np.float64)
        lesson = _lesson(a)
        said = words.model_view_text(lesson, None)
        check_roles(a, said)
        check_sinks(a, said)
        assert lesson.sinks_cls > lesson.sinks_sep, "in all-MiniLM-L6-v2 the sink is [CLS], not [SEP]"
        assert lesson.roles.n_previous > 0, "all-MiniLM-L6-v2 has previous-token heads"
    layer, head = models.it_head(loaded)
    rows = models.it_rows(loaded, layer, head)
    caption = words.it_caption(rows, layer, head, SCREEN)
    for label, text in SENTENCES.items():
        att = models.extract_attentions(loaded, text)
        row = att.attentions[layer, head, att.tokens.index("it")].astype(np.float64)
        for word in ("animal", "street"):
            assert f"{row[att.tokens.index(word)]:.2f}" in caption
        (q,) = [q for q in words.it_questions(rows, SENTENCES, layer, head) if q.key.endswith(label)]
        assert q.options[q.answer] == f"{int(np.argmax(row))}: {att.tokens[int(np.argmax(row))]}"
    assert rows["tired"]["animal"] > rows["congested"]["animal"] + 0.2, "the it head moves with the last word"
    L, H = loaded.n_layers, loaded.n_heads
    lines = words.footer_lines(L, H, 5, _lesson(att.attentions.astype(np.float64)), (layer, head, rows))
    assert "changing the last word changes where a trained head looks" in lines[1]
