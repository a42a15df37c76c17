"""The sentences of "Attention in a transformer" (lessons/in_a_transformer/words/) against the
numbers they state, over many sentences, sizes, seeds and similarity matrices: each test
recomputes what a sentence claims, independently of the engine where it can, and checks it.
The real model's own "bears" run is in tests/app/test_transformer_lesson.py (marked model)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import attn_core as ac
from attn_core import transformer as tr
from lessons.in_a_transformer import words
from tests.support.hostile_corpus import HOSTILE
from ui.markup import md_escape
from ui.reader import PROJECTOR, SCREEN, Reader

READERS = st.sampled_from([SCREEN, PROJECTOR, Reader(paged=True), Reader(paged=True, following=True)])
WORD = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=10)
SENTENCE = st.lists(WORD, min_size=1, max_size=12).map(lambda w: tuple(ac.tokenize(" ".join(w)))).filter(bool)
NUMBER = r"−?\d+(?:,\d{3})*(?:\.\d+)?(?:e[−+]?\d+)?"
FAST = settings(max_examples=100, deadline=None)


def _num(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def _close(stated: str, value: float, digits: int = 3) -> bool:
    return abs(_num(stated) - value) <= 0.5 * 10**-digits + 1e-12


def _tiny_ok(stated: str, value: float) -> bool:
    """tiny(): "0" only for an exact 0, else two significant digits in scientific notation."""
    if stated == "0":
        return value == 0
    return value != 0 and math.isclose(_num(stated), value, rel_tol=0.06)


# --------------------------------------------------------------------------- 1. dense vs attention


@FAST
@given(SENTENCE, SENTENCE, st.integers(0, 10_000), st.sampled_from([(16, 4), (32, 8), (64, 16)]), READERS)
def test_dense_text_and_its_formula(a, b, seed, sizes, reader):
    d_model, d_k = sizes
    dv = tr.dense_vs_attention(a, b, seed, d_model=d_model, d_k=d_k)
    text = words.dense_text(dv, reader)
    assert text.startswith("Above" if reader.presenting else "Below")  # on a projector the charts stand above
    c = min(len(a), len(b))
    assert f"d_model = {d_model}, d_k = {d_k}). Over the {c} positions" in text
    latex = words.dense_latex(dv)
    dense_gap, attention_gap = re.findall(r"\\right\| = (" + NUMBER + ")", latex)
    w_a, w_b = (s.weights[:c, :c] for s in dv.attention)
    assert _tiny_ok(dense_gap, float(np.max(np.abs(dv.dense[0][:c, :c] - dv.dense[1][:c, :c]))))
    assert dense_gap == "0"  # one fixed matrix: the same weights for both sentences
    assert _close(attention_gap, float(np.max(np.abs(w_a - w_b))))


# --------------------------------------------------------------------------- 2. d_k = d_model / H


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 1024), st.integers(1, 64), st.integers(1, 200))
def test_split_sentences(d_model, H, T):
    sp = tr.head_split(d_model, H)
    choice = words.split_choice(sp)
    if d_model % H == 0:
        assert choice == f"With your choice, d_model = {d_model} and H = {H}:"
    else:
        used = int(re.search(r"uses H = (\d+)", choice).group(1))
        assert d_model % used == 0 and all(d_model % h for h in range(used + 1, H + 1))  # the largest divisor <= H
        assert f"{d_model} / {H} is not a whole number" in choice
    latex = words.split_latex(sp)
    d_k = d_model // sp.H
    assert rf"d_k = \frac{{{d_model}}}{{{sp.H}}} = {d_k}" in latex
    stated = int(re.search(r"= ([\d{,}]+) \s*= 3", latex).group(1).replace("{,}", ""))
    assert stated == 3 * sp.H * d_model * d_k == 3 * d_model**2
    text = words.split_cost_text(sp, T)
    heads, wide = (
        int(n.replace(",", ""))
        for n in re.search(r"scores take .* = ([\d,]+) multiply-adds, .* = ([\d,]+)\), but", text).groups()
    )
    assert heads == sp.H * T * T * d_k and wide == T * T * d_model
    assert ("exactly as many as" in text) == (heads == wide)
    cells, one = (
        int(n.replace(",", ""))
        for n in re.search(r"fill ([\d,]+) attention weights instead of ([\d,]+)", text).groups()
    )
    assert (cells, one) == (sp.H * T * T, T * T)


@given(st.integers(1, 4096), st.integers(1, 64))
def test_minilm_sentences(d_model, n_heads):
    assume(d_model % n_heads == 0)
    mini = tr.ModelShape("m", d_model=d_model, n_heads=n_heads, n_layers=6, d_ff=4 * d_model)
    assert f"= **{d_model // n_heads}** dimensions" in words.minilm_text(mini)
    assert words.minilm_latex(mini).endswith(rf"\frac{{{d_model}}}{{{n_heads}}} = {d_model // n_heads}")


# --------------------------------------------------------------------------- 3. padding


@FAST
@given(SENTENCE, SENTENCE, st.integers(0, 10_000), st.sampled_from([(16, 4), (32, 8)]), READERS)
def test_padding_sentences(a, b, seed, sizes, reader):
    d_model, d_k = sizes
    p = tr.padding(a, b, seed, d_model=d_model, d_k=d_k)
    T_max = max(len(a), len(b))
    assert words.batch_caption(p) == (
        f"The batch: 2 sentences × {T_max} positions × d_model = {d_model}, as one array of shape "
        f"{(2, T_max, d_model)}; the mask has shape {(2, T_max, T_max)}."
    )
    assert (words.no_padding(p) is None) == (len(a) != len(b))
    short = 0 if len(a) <= len(b) else 1
    n_real = (len(a), len(b))[short]
    mask_text = words.padding_mask_text(p, reader)
    assert f"1 for the {n_real} real tokens" in mask_text
    assert (". Beside it," in mask_text) == reader.presenting and (". Below," in mask_text) != reader.presenting
    text = words.padding_text(p)
    if len(a) == len(b):
        assert text is None
        return
    # recomputed: the padded sentence alone, and in the batch with and without the mask
    tokens = (a, b)[short]
    w = ac.init_weights(d_model, d_k, seed=seed)
    alone = ac.attention_steps(ac.embed(list(tokens), d_model, seed=seed), w.w_q, w.w_k, w.w_v).output
    padded = list(tokens) + [tr.PAD] * (T_max - n_real)
    x = ac.embed(padded, d_model, seed=seed)
    keys = np.arange(T_max) < n_real
    masked = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=np.broadcast_to(keys, (T_max, T_max)))
    unmasked = ac.attention_steps(x, w.w_q, w.w_k, w.w_v).output[:n_real]
    m = re.search(
        rf"gives a padding key is \*\*({NUMBER})\*\*, and the real tokens of sentence ([AB]) .* max \|Δ\| = "
        rf"\*\*({NUMBER})\*\*(?: \(rounding only\))?\. Without the mask, max \|Δ\| = \*\*({NUMBER})\*\*: the (\d+) "
        rf"padding tokens? changed the output of (\d+) of the (\d+) real tokens\.",
        text,
    )
    assert m, text
    pad, name, d_masked, d_unmasked, n_pad, changed, real = m.groups()
    assert _num(pad) == 0 == masked.weights[:, ~keys].max()
    assert name == "AB"[short] and int(n_pad) == T_max - n_real and int(real) == n_real
    assert _tiny_ok(d_masked, float(np.max(np.abs(masked.output[:n_real] - alone))))
    moved = np.max(np.abs(unmasked - alone), axis=1)
    assert _close(d_unmasked, float(moved.max())) and int(changed) == int(np.sum(moved > 1e-12))


# --------------------------------------------------------------------------- 4. the block


@FAST
@given(
    SENTENCE, st.sampled_from([16, 32, 48, 64]), st.sampled_from(tr.HEADS), st.integers(0, 1000), READERS, st.booleans()
)
def test_block_sentences(tokens, d_model, H, seed, reader, trained):
    sp = tr.head_split(d_model, H)
    weights = tr.init_block(d_model, sp.H, seed=seed)
    if trained:  # a block whose LayerNorms have learned something
        rng = np.random.default_rng(seed)
        gain, bias = rng.normal(1, 0.3, (2, d_model)), rng.normal(0, 0.3, (2, d_model))
        weights = tr.BlockWeights(**{**weights.__dict__, "ln_gain": gain, "ln_bias": bias})
    blk = tr.encoder_block(ac.embed(list(tokens), d_model, seed=seed), weights)
    T = len(tokens)
    assert f"d_ff = 4·d_model = {4 * d_model} and back" in words.block_intro(blk.ffn_hidden.shape[1])
    text = words.block_text(blk, sp, reader)
    assert text.startswith("On the left" if reader.presenting else "Below")
    assert f"(T = {T}, d_model = {d_model}, H = {sp.H}, random weights)" in text
    mean_within, std = re.search(rf"mean within ({NUMBER}) of 0 and a standard deviation of ({NUMBER})", text).groups()
    out = blk.output
    biggest = float(np.abs(out.mean(axis=1)).max())
    assert _tiny_ok(mean_within, biggest) or (mean_within == "0" and biggest == 0)
    assert _close(std, float(out.std(axis=1).mean()), 4)
    untrained = bool(np.all(weights.ln_gain == 1) and np.all(weights.ln_bias == 0))
    assert ("this block is untrained: every γ is still 1 and every β 0" in text) == untrained == (not trained)
    assert words.block_title(blk, sp) == f"One encoder block: T = {T}, d_model = {d_model}, H = {sp.H}, d_k = {sp.d_k}"
    caption = words.block_caption(blk, sp)
    assert (
        f"W_O {sp.H * sp.d_k} × {d_model}; W_1 {d_model} × {4 * d_model} and W_2 {4 * d_model} × {d_model}" in caption
    )


# --------------------------------------------------------------------------- 5. encoder and decoder


@FAST
@given(SENTENCE, SENTENCE)
def test_mask_counts(source, target):
    m = tr.encoder_decoder_masks(source, target)
    S, T = len(source), len(target)
    text = words.allowed_text(m)
    assert f"encoder {S * S} of {S * S}, decoder {T * (T + 1) // 2} of {T * T}, cross {T * S} of {T * S}." in text
    assert f"sentence A ({S} tokens)" in text and f"sentence B ({T} tokens)" in text
    cross = words.cross_text(m)
    assert f"decoder's {T} target tokens (rows) asking the encoder's {S} source tokens" in cross
    assert "It is full:" in cross  # every target token may read every source token


# --------------------------------------------------------------------------- 6. recurrence


def _ops(T: int, d: int) -> dict[str, int]:
    """Multiply-adds counted from the layers' products: attention's four projections (T × d by d × d)
    and its two pair products (T × d by d × T, T × T by T × d); a tanh RNN's two d × d products a step,
    an LSTM's eight (two for each of four gates)."""
    projections = 4 * (T * d * d)
    pairs = T * d * T + T * T * d
    return {
        "projections": projections,
        "pairs": pairs,
        "attention": projections + pairs,
        "rnn": T * 2 * d * d,
        "lstm": T * 4 * 2 * d * d,
    }


@settings(max_examples=500, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 1024))
def test_cost_sentences(T, d):
    co = tr.cost(T, d)
    ops = _ops(T, d)
    text = words.cost_text(co)
    projections, pairs, rnn, lstm, even = (
        int(n.replace(",", ""))
        for n in re.search(
            r"4·T·d² = ([\d,]+) and its pairs 2·T²·d = ([\d,]+).*2·T·d² = ([\d,]+).*8·T·d² = ([\d,]+)"
            r".*T = 2·d = ([\d,]+)",
            text,
        ).groups()
    )
    assert (projections, pairs, rnn, lstm, even) == (ops["projections"], ops["pairs"], ops["rnn"], ops["lstm"], 2 * d)
    assert f"{ops['attention']:,} in all" in text
    vs_rnn, ratio_rnn, vs_lstm, ratio_lstm = re.search(
        r"attention does \*\*(\w+(?: \w+)*)\*\* \(([\d.]+) times as many\).*attention does \*\*(\w+(?: \w+)*)\*\* "
        r"\(([\d.]+) times as many\)",
        text,
    ).groups()

    def word(a: int, b: int) -> str:
        return "more" if a > b else "fewer" if a < b else "exactly as many"

    assert vs_rnn == word(ops["attention"], ops["rnn"]) == "more"  # always: 4·T·d² alone is twice the RNN's
    assert vs_lstm == word(ops["attention"], ops["lstm"])
    past = T - 2 * d  # how far past the break-even length 2d
    assert (vs_lstm == "fewer") == (past < 0) and (vs_lstm == "more") == (past > 0)  # Vaswani's n < d, counted exactly
    assert _close(ratio_rnn, ops["attention"] / ops["rnn"], 2) and _close(ratio_lstm, ops["attention"] / ops["lstm"], 2)
    side = re.search(r"and T = \d+ is (below|above|at) it", text).group(1)
    assert side == ("below" if past < 0 else "above" if past > 0 else "at")
    why = words.why_text(co)
    at_this = re.search(r"at this length, (more than|less than|as much as) an LSTM", why).group(1)
    assert at_this == {"more": "more than", "fewer": "less than", "exactly as many": "as much as"}[vs_lstm]
    assert f"computed at once instead of in {T} steps" in why and f"meet in 1 step instead of {T - 1}." in why
    overtake = int(re.search(r"from T = ([\d,]+) here", why).group(1).replace(",", ""))
    assert 2 * overtake * overtake * d > 4 * overtake * d * d >= 2 * (overtake - 1) ** 2 * d  # the first T past 2d
    table = words.cost_table(co)
    assert table["self-attention"][2].endswith(f"= {ops['attention']:,}") and table["LSTM"][2].endswith(
        f"= {ops['lstm']:,}"
    )
    assert table["tanh RNN"][:2] == [str(T), str(T - 1)] == table["LSTM"][:2] and table["self-attention"][:2] == [
        "1",
        "1",
    ]
    series = words.cost_series(co)
    t = np.array(tr.COST_T)
    expected = [4 * t * d * d + 2 * t * t * d, 2 * t * t * d, 2 * t * d * d, 8 * t * d * d]
    for got, want in zip(series.values(), expected, strict=True):
        np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------- 7 and 8: one word in many sentences


def _senses(hidden: np.ndarray, tokens_per: list[tuple[str, ...]], index: list[int], word: str = "bears"):
    """WordSenses built from vectors (S, L+1, d) the way attn_core.models builds them."""
    from attn_core import models

    S, L1, _ = hidden.shape
    rng = np.random.default_rng(0)
    senses = []
    for k in range(S):
        T = len(tokens_per[k])
        att = rng.random((L1 - 1, T))
        att /= att.sum(axis=1, keepdims=True)
        special = np.zeros(T, bool)
        special[[0, -1]] = True
        senses.append(
            models.WordSense(
                sentence=f"sentence {k}",
                tokens=tokens_per[k],
                word=word,
                index=index[k],
                pieces=(tokens_per[k][index[k]],),
                attention=att,
                special=special,
            )
        )
    unit = hidden / np.linalg.norm(hidden, axis=-1, keepdims=True)
    return models.WordSenses(
        word=word,
        senses=tuple(senses),
        missing=(),
        hidden=hidden,
        similarity=np.einsum("ald,bld->lab", unit, unit),
        layer0_error=None,
    )


def _cos(h: np.ndarray, layer: int, a: int, b: int) -> float:
    u, v = h[a, layer], h[b, layer]
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


SENSES = st.tuples(st.integers(2, 6), st.integers(1, 6), st.integers(0, 10_000), st.booleans())


def _random_senses(S: int, L: int, seed: int, same_start: bool):
    rng = np.random.default_rng(seed)
    hidden = rng.normal(size=(S, L + 1, 8))
    if same_start:  # like with like: one token at one position, one embedding
        hidden[:, 0] = hidden[0, 0]
    tokens = [("[CLS]", "x", "bears", "y", "[SEP]")] * S
    index = [2] * S if same_start else [int(rng.integers(1, 4)) for _ in range(S)]
    return hidden, _senses(hidden, tokens, index)


@FAST
@given(SENSES, st.data())
def test_similarity_sentence(params, data):
    S, L, seed, same_start = params
    hidden, senses = _random_senses(S, L, seed, same_start)
    layer = data.draw(st.integers(0, L))
    text = words.similarity_text(senses, layer)
    pairs = list(itertools.combinations(range(S), 2))
    cos = {p: _cos(hidden, layer, *p) for p in pairs}
    where = "In the embeddings" if layer == 0 else f"After layer {layer}"
    m = re.match(
        rf"{where}, the most alike are sentences (\d) and (\d) \(cosine ({NUMBER})\), the least alike (\d) and (\d) "
        rf"\(({NUMBER})\)\. The mean over all pairs goes from ({NUMBER}) in the embeddings to ({NUMBER}) after layer "
        rf"{L}\.",
        text,
    )
    assert m, text
    a, b, hi, c, d, lo, first, last = m.groups()
    assert cos[(int(a) - 1, int(b) - 1)] == max(cos.values()) and _close(hi, max(cos.values()))
    assert cos[(int(c) - 1, int(d) - 1)] == min(cos.values()) and _close(lo, min(cos.values()))
    assert _close(first, np.mean([_cos(hidden, 0, *p) for p in pairs]))
    assert _close(last, np.mean([_cos(hidden, L, *p) for p in pairs]))
    assert (f"After layer {L}, the last, the closest pair" in text) == (layer != L)


@FAST
@given(SENSES)
def test_embeddings_sentence(params):
    S, L, seed, same_start = params
    hidden, senses = _random_senses(S, L, seed, same_start)
    text = words.embeddings_text(senses)
    positions = {s.index for s in senses.senses}
    cos = [_cos(hidden, 0, *p) for p in itertools.combinations(range(S), 2)]
    if len(positions) == 1 and min(cos) > 1 - 5e-4:
        assert f"at the same position ({positions.pop()}) in every sentence, so its embeddings are equal" in text
        assert _close(re.search(rf"every pair has cosine ({NUMBER})", text).group(1), min(cos))
    else:
        assert "are equal" not in text
        low, high = re.search(rf"cosines from ({NUMBER}) to ({NUMBER}), before any attention", text).groups()
        assert _close(low, min(cos)) and _close(high, max(cos))
        if len(positions) > 1:
            assert f"different positions ({', '.join(str(p) for p in sorted(positions))})" in text


def _partitions(items: list[int]):
    """Every set partition of ``items`` (as a list of blocks)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _partitions(rest):
        yield [[first], *partition]
        for k in range(len(partition)):
            yield [*partition[:k], [first, *partition[k]], *partition[k + 1 :]]


def _groupings(labels: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every way to split the sentences into groups of the labels' sizes, as a group number per
    sentence: the set partitions whose block sizes are the meanings' counts."""
    sizes = sorted(labels.count(x) for x in set(labels))
    out = []
    for partition in _partitions(list(range(len(labels)))):
        if sorted(len(block) for block in partition) == sizes:
            group = [0] * len(labels)
            for g, block in enumerate(partition):
                for k in block:
                    group[k] = g
            out.append(tuple(group))
    return out


def _gap(sim: np.ndarray, groups: tuple[int, ...]) -> float:
    same = [sim[a, b] for a, b in itertools.combinations(range(len(groups)), 2) if groups[a] == groups[b]]
    other = [sim[a, b] for a, b in itertools.combinations(range(len(groups)), 2) if groups[a] != groups[b]]
    return float(np.mean(same) - np.mean(other))


@FAST
@given(st.integers(3, 6), st.integers(0, 10_000), st.data())
def test_meanings_and_evidence_sentences(S, seed, data):
    labels = tuple(data.draw(st.lists(st.sampled_from(["the animal", "the verb", "the team"]), min_size=S, max_size=S)))
    rng = np.random.default_rng(seed)
    h = (
        rng.normal(size=(S, 8))
        + data.draw(st.floats(0, 3))
        * np.array([{"the animal": 1, "the verb": -1, "the team": 0}[x] for x in labels])[:, None]
    )
    u = h / np.linalg.norm(h, axis=1, keepdims=True)
    sim = u @ u.T
    groups = tr.sense_groups(sim, labels)
    same = [sim[a, b] for a, b in itertools.combinations(range(S), 2) if labels[a] == labels[b]]
    other = [sim[a, b] for a, b in itertools.combinations(range(S), 2) if labels[a] != labels[b]]
    if not same or not other:
        assert groups is None
        return
    layer = data.draw(st.integers(0, 6))
    text = words.meanings_text("bears", labels, groups, layer)
    m = re.search(
        rf"the (\d+) pairs? with the same meaning have a mean cosine of ({NUMBER})(?: \(([^)]*)\))? and the (\d+) "
        rf"pairs with different meanings ({NUMBER}) \(from ({NUMBER}) to ({NUMBER})\): (.*)$",
        text,
    )
    assert m, text
    n_same, mean_same, each, n_other, mean_other, lo, hi, verdict = m.groups()
    assert (int(n_same), int(n_other)) == (len(same), len(other))
    assert _close(mean_same, np.mean(same)) and _close(mean_other, np.mean(other))
    assert _close(lo, min(other)) and _close(hi, max(other))
    if each:
        assert [_num(v) for v in each.split(" and ")] == pytest.approx(same, abs=5e-4)
    gap = np.mean(same) - np.mean(other)
    assert verdict == (
        "no difference yet."
        if abs(gap) < 5e-4
        else "the vectors of one meaning stay closer together than those of different meanings."
        if gap > 0
        else "by this measure the model does not keep the meanings apart."
    )
    assert text.startswith("“bears” is ")
    for meaning in set(labels):  # each meaning names its sentences, from 1
        ks = [str(k + 1) for k, x in enumerate(labels) if x == meaning]
        assert re.search(rf"{meaning} in (?:sentences? )?{' and '.join(ks)}\b", text)
    # the evidence: the exact permutation count, recomputed by brute force over group numbers
    evidence = words.evidence_text(groups, S)
    ways = _groupings(labels)
    as_large = sum(_gap(sim, g) >= gap - 1e-12 for g in ways)
    m = re.search(r"in every one of the (\d+) possible ways: (\d+) of them gives? a gap", evidence)
    assert m and (int(m.group(1)), int(m.group(2))) == (len(ways), as_large), evidence
    assert f"no result could do better than 1 in {len(ways)};" in evidence
    assert f"{len(same)} pair{'s' if len(same) != 1 else ''} with one meaning against {len(other)}" in evidence
    assert ("every pair with one meaning is closer than every pair with two" in evidence) == (min(same) > max(other))


@FAST
@given(SENSES, READERS, st.data())
def test_where_the_word_looks(params, reader, data):
    S, L, seed, same_start = params
    _, senses = _random_senses(S, L, seed, same_start)
    layer = data.draw(st.integers(1, L))
    n_heads = data.draw(st.integers(1, 16))
    text = words.looks_text(senses, layer, n_heads)
    assert f"in layer {layer}, averaged over the {n_heads} heads" in text
    shares = re.search(r"sentence by sentence: ([^.]*(?:\.\d+)*(?:, [^.,]*\.\d+)*)\.", text).group(1).split(", ")
    for stated, sense in zip(shares, senses.senses, strict=True):
        assert _close(stated, float(sense.attention[layer - 1][[0, -1]].sum()), 2)  # [CLS] and [SEP]
    zero = words.looks_embeddings(senses, reader)
    assert f"from 1 to {L}" in zero and (" in the sidebar" in zero) == reader.paged
    assert words.looks_heading(layer) == f"Where the word looks in layer {layer}"
    assert words.bar_title(0, "bears", 2, layer) == f"1: bears, token 2, layer {layer}"


def test_layer_names_count_from_one():
    """Hidden state k is named "after layer k", 0 the embeddings: never "layer 0"."""
    assert words.similarity_title(0) == "Cosine similarity in the embeddings"
    assert words.similarity_title(6) == "Cosine similarity after layer 6"
    assert "layer 0" not in words.SENSES_INTRO and "counted from 1" in words.SENSES_INTRO
    assert "bertviz and TransformerLens count from 0" in words.SENSES_INTRO


@pytest.mark.parametrize("name", list(HOSTILE))
def test_user_text_is_escaped(name):
    text = HOSTILE[name] or "x"
    hidden = np.random.default_rng(0).normal(size=(2, 3, 4))
    senses = _senses(hidden, [("[CLS]", text, "[SEP]")] * 2, [1, 1], word=text)
    for out in (words.found_text(senses), words.missing_text(text, 0, text), words.embeddings_text(senses)):
        assert "<script" not in out and "](" not in out.replace("\\](", "") and "\\href" not in out.replace("\\\\", "")
    assert md_escape(text) in words.missing_text(text, 0, text)


# --------------------------------------------------------------------------- what it showed


@FAST
@given(SENTENCE, SENTENCE, st.sampled_from([16, 32, 64]), st.sampled_from(tr.HEADS), st.integers(0, 100))
def test_what_it_showed(a, b, d_model, H, seed):
    lesson = tr.transformer_lesson(a, b, d_model=d_model, H=H, seed=seed)
    sp = tr.head_split(d_model, H)
    lines = words.what_it_showed(lesson)
    assert (
        f"each head works in d_k = {d_model // sp.H} dimensions, so the {sp.H} heads together have {3 * d_model**2:,}"
        in lines[0]
    )
    assert f"goes in as {len(a)}×{d_model} and comes out as {len(a)}×{d_model}" in lines[0]
    ops = _ops(len(a), d_model)
    assert (
        f"attention does {ops['attention']:,} multiply-adds, a tanh RNN {ops['rnn']:,} and an LSTM {ops['lstm']:,}"
        in lines[1]
    )
    assert (len(lines) == 3) == (len(a) != len(b))


@FAST
@given(st.lists(st.integers(1, 3), min_size=2, max_size=6), st.data())
def test_where_the_word_is(pieces, data):
    """Each sentence's line names the token index and the token at it, and a split word's pieces."""
    from attn_core import models

    base = _senses(np.random.default_rng(0).normal(size=(len(pieces), 2, 4)), [("x",)] * len(pieces), [0] * len(pieces))
    senses = []
    for k, n in enumerate(pieces):
        index = data.draw(st.integers(1, 3))
        tokens = ("[CLS]", "a", "b", "c", *[f"##p{m}" for m in range(n - 1)], "[SEP]")
        tokens = (*tokens[:index], f"w{k}", *tokens[index + 1 :])
        senses.append(
            dataclasses.replace(
                base.senses[k], tokens=tokens, index=index, pieces=(f"w{k}", *[f"##p{m}" for m in range(n - 1)])
            )
        )
    lines = words.found_text(models.WordSenses(**{**base.__dict__, "senses": tuple(senses)})).split("\n")
    for k, (line, sense) in enumerate(zip(lines, senses, strict=True)):
        assert (
            line.startswith(f"{k + 1}. ") and f"is token {sense.index} “{md_escape(sense.tokens[sense.index])}”" in line
        )
        assert (f"split into {len(sense.pieces)} WordPieces" in line) == (len(sense.pieces) > 1)
