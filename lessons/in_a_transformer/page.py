"""Attention in a transformer: what attention adds to a dense layer, how it is split into
heads, the padding mask, one whole encoder block, the encoder's and decoder's masks, why it
replaced recurrence, and one word's meanings in a real model.

Widgets first, then one attn_core call (NumPy) for the first six sections; the last two run the
real model, loaded lazily, and the rest of the page works without it. Every sentence comes from
lessons/in_a_transformer/words.py.
"""

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from attn_core import transformer as tr
from attn_core.figures import bar_chart, heatmap, line_chart
from attn_core.figures.context import block_diagram
from attn_core.figures.lab import log_x_lines
from attn_core.tables import Table
from lessons.in_a_transformer import words
from ui import outline, present, sentence
from ui.charts import show_attention, show_figure, show_mask
from ui.common import MAX_CHARS, checked_tokens, md_escape, once_per_server
from ui.footer import footer
from ui.present import Deck, Stage
from ui.reader import Reader
from ui.state import PageState, Param

if TYPE_CHECKING:
    from attn_core.models import LoadedModel, WordSenses

state = PageState(
    "tf",
    params=(
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
        Param("a", "The cat sat on the mat.", "text", max_chars=MAX_CHARS, shared=True),
        Param("b", "Le chat était assis sur le tapis.", "text", max_chars=MAX_CHARS),
        Param("d_model", 64, "choice", choices=tr.D_MODELS),
        Param("heads", 4, "choice", choices=tr.HEADS),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("sentences", "\n".join(words.BEARS), "text", max_chars=MAX_CHARS),
        Param("word", "bears", "text", max_chars=40),
        Param("layer", 6, "int", lo=0, hi=24),  # the hidden state: 0 the embeddings, k after layer k
    ),
)
compute = once_per_server(st.cache_data(show_spinner=False, max_entries=256))(words.lesson)
word_senses = once_per_server(st.cache_data(max_entries=32, show_spinner="Running the model on each sentence…"))(
    words.senses
)
KEEP = {"persist_state": "page"}  # kept while presenter mode shows another section


# --------------------------------------------------------------------------- sections 1 to 6


def dense(stage: Stage, lesson: tr.TransformerLesson, reader: Reader) -> None:
    dv = lesson.dense
    stage.side.markdown(words.DENSE_INTRO)
    stage.side.markdown(words.dense_text(dv, reader))
    stage.formula(words.dense_latex(dv))
    row = stage.chart_columns(4) if stage.fill else None  # on a projector the four in one row
    for kind, mats, value_kind, zmax in (
        ("Dense layer", dv.dense, "signed", dv.dense_zmax),
        ("Attention", tuple(s.weights for s in dv.attention), "weights", None),
    ):
        cols = (row[:2] if kind == "Dense layer" else row[2:]) if row else stage.chart_columns(2)
        for column, name, tokens, w in zip(cols, ("A", "B"), dv.tokens, mats, strict=True):
            title = f"{kind} weights, sentence {name}"
            labels = {"rows": list(tokens), "cols": list(tokens), "title": title, "kind": value_kind}
            show_figure(
                heatmap(w, **labels, row_title="output", col_title="input", value_name="weight", zmax=zmax),
                key=f"tf_dense_{kind[:5].lower()}_{name}",
                table=Table(w, tokens, tokens, name=title, kind=value_kind, row_title="output", col_title="input"),
                into=column,
            )
    stage.side.caption(words.DENSE_CAPTION)


def split(stage: Stage, lesson: tr.TransformerLesson) -> None:
    sp, mini = lesson.split, lesson.minilm
    stage.side.markdown(words.SPLIT_INTRO)
    if mini is not None:
        stage.side.markdown(words.minilm_text(mini))
        stage.side.latex(words.minilm_latex(mini))
    else:
        stage.side.info(words.NO_MINILM)
    (stage.side.markdown if sp.divides else stage.side.warning)(words.split_choice(sp))
    stage.side.latex(words.split_latex(sp))
    stage.side.markdown(words.split_cost_text(sp, lesson.block.x.shape[0]))


def padding(stage: Stage, lesson: tr.TransformerLesson, reader: Reader) -> None:
    p = lesson.padding
    stage.side.markdown(words.PADDING_INTRO)
    stage.side.table(
        pd.DataFrame([list(t) for t in p.tokens], index=["A", "B"], columns=list(map(str, range(p.T_max))))
    )
    stage.side.caption(words.batch_caption(p))
    if note := words.no_padding(p):
        stage.side.info(note)
    if text := words.padding_text(p):
        stage.side.markdown(text)
    b = p.padded
    name, tokens = "AB"[b], list(p.tokens[b])
    if stage.fill:  # on a projector the three in one row, the text beside them
        mask, without, with_ = stage.chart_columns(3)
        stage.side.markdown(words.padding_mask_text(p, reader))
    else:
        mask, text = stage.chart_columns(2)
        text.side.markdown(words.padding_mask_text(p, reader))
        without, with_ = stage.chart_columns(2)
    show_mask("tf_pad_mask", p.masks[b], tokens, title=f"Padding mask, sentence {name}", into=mask)
    for column, steps, what in ((without, p.unmasked[b], "without"), (with_, p.masked[b], "with")):
        title = f"Weights {what} the mask, sentence {name}"
        show_attention(f"tf_pad_{what}", steps.weights, tokens, title=title, into=column)


def block(stage: Stage, lesson: tr.TransformerLesson, reader: Reader) -> None:
    blk, sp = lesson.block, lesson.split
    stage.side.markdown(words.block_intro(blk.ffn_hidden.shape[1]))
    stage.side.markdown(words.block_text(blk, sp, reader))
    stages = blk.stages()
    show_figure(
        block_diagram(stages, residuals=tr.BlockSteps.RESIDUALS, title=words.block_title(blk, sp)),
        key="tf_block",
        table=Table(
            np.array([[s[3][0], s[3][1]] for s in stages], dtype=float),
            rows=tuple(f"{s[1]}: {s[2]}" for s in stages),
            cols=("rows", "columns"),
            name="Shapes in one encoder block",
            row_title="step",
            col_title="size",
        ),
        into=stage,
    )
    stage.side.caption(words.block_caption(blk, sp))


def enc_dec(stage: Stage, lesson: tr.TransformerLesson) -> None:
    m = lesson.masks
    src, tgt = list(m.source), list(m.target)
    stage.side.markdown(words.ENC_DEC_INTRO)
    stage.side.markdown(words.allowed_text(m))
    # on a projector the three in one row, the text below them; on a screen two rows of two
    cols = [*stage.chart_columns(3), stage] if stage.fill else [*stage.chart_columns(2), *stage.chart_columns(2)]
    panels = (
        ("Encoder self-attention", m.encoder_self, src, src, "source query", "source key", "tf_mask_enc"),
        ("Decoder self-attention (causal)", m.decoder_self, tgt, tgt, "target query", "target key", "tf_mask_dec"),
        ("Cross-attention", m.cross, tgt, src, "target query", "source key", "tf_mask_cross"),
    )
    for column, (title, mask, rows, cols_, rt, ct, key) in zip(cols, panels, strict=False):
        show_mask(key, mask, rows, cols_, title=title, name=f"{title} mask", row_title=rt, col_title=ct, into=column)
    cols[3].side.markdown(words.cross_text(m))


def recurrence(stage: Stage, lesson: tr.TransformerLesson) -> None:
    co = lesson.cost
    stage.side.markdown(words.RECURRENCE_INTRO)
    index = pd.Index(words.COST_ROWS, name=f"T = {co.T}, d = {co.d}")
    stage.side.table(pd.DataFrame(words.cost_table(co), index=index))
    stage.side.markdown(words.cost_text(co))
    stage.side.markdown(words.why_text(co))
    series = words.cost_series(co)
    show_figure(
        log_x_lines(
            co.T_values,
            series,
            title=f"Multiply-adds per layer against T (d = {co.d})",
            x_title="T (tokens)",
            y_title="multiply-adds",
            log_y=True,
        ),
        key="tf_cost",
        table=Table(
            np.stack(list(series.values()), axis=1).astype(float),
            rows=tuple(str(t) for t in co.T_values),
            cols=tuple(series),
            name="Multiply-adds per layer",
            kind="lines",
            row_title="T",
            col_title="layer",
        ),
        into=stage,
    )


# --------------------------------------------------------------------------- 7 and 8: the real model


def layer_slider(where, L: int) -> int:
    where.slider(words.LAYER_LABEL, min_value=0, max_value=L, key=state.key("layer"), **KEEP)
    return int(state.value("layer"))


def read_senses(where, loaded: "LoadedModel") -> "WordSenses | None":
    """The word's vectors in every sentence, from the section's inputs (a message where they do not do)."""
    sentences, word = words.typed_sentences(state.value("sentences")), str(state.value("word")).strip()
    if len(sentences) < 2 or not word:
        where.info(words.NEED_SENTENCES)
        return None
    try:
        return word_senses(loaded, loaded.name, loaded.source, tuple(sentences), word)
    except ValueError as err:
        where.warning(md_escape(str(err)))
        return None


def senses_section(stage: Stage, loaded: "LoadedModel") -> None:
    left, right = stage.control_columns([3, 2])
    left.text_area("Sentences, one per line", key=state.key("sentences"), height=140, max_chars=MAX_CHARS, **KEEP)
    right.text_input(
        "Word to follow",
        key=state.key("word"),
        max_chars=40,
        help="Found in any case, with or without a final s: bears, Bears, bear",
        **KEEP,
    )
    layer = layer_slider(right, loaded.n_layers)
    senses = read_senses(stage.side, loaded)
    if senses is None:
        return
    typed = words.typed_sentences(state.value("sentences"))
    for n in senses.missing:
        stage.side.caption(words.missing_text(str(state.value("word")).strip(), n, typed[n]))
    stage.side.markdown(words.found_text(senses))
    stage.side.markdown(words.embeddings_text(senses))
    stage.side.markdown(words.similarity_text(senses, layer))
    meanings = words.meanings_of(senses)
    if (groups := tr.sense_groups(senses.similarity[layer], meanings)) is not None:
        stage.side.markdown(words.meanings_text(senses.word, meanings, groups, layer))
        stage.side.markdown(words.evidence_text(groups, sum(m is not None for m in meanings)))
    labels = [f"{k + 1}: {s.sentence}" for k, s in enumerate(senses.senses)]
    short = [f"{k + 1}: {s.word}" for k, s in enumerate(senses.senses)]
    left, right = stage.chart_columns(2)
    sim, title = senses.similarity[layer], words.similarity_title(layer)
    show_figure(
        heatmap(
            sim,
            rows=short,
            cols=short,
            title=title,
            kind="signed",
            zmax=1.0,
            row_title="sentence",
            col_title="sentence",
            value_name="cosine",
        ),
        key="tf_sense_sim",
        table=Table(sim, rows=labels, cols=labels, name=title, row_title="sentence", col_title="sentence"),
        into=left,
    )
    after = np.arange(senses.n_layers + 1)
    show_figure(
        line_chart(
            after,
            {"mean over pairs of sentences": senses.mean_similarity},
            title="Mean cross-sentence similarity by layer (0: the embeddings)",
            x_title="after layer",
            y_title="cosine similarity",
        ),
        key="tf_sense_mean",
        table=Table(
            senses.mean_similarity[:, None],
            rows=tuple(map(str, after)),
            cols=("mean cosine",),
            name="Mean cross-sentence cosine similarity",
            kind="lines",
            row_title="after layer",
            col_title="series",
        ),
        into=right,
    )


def looks_section(stage: Stage, loaded: "LoadedModel", layer: int, reader: Reader) -> None:
    senses = read_senses(stage.side, loaded)
    if senses is None:
        return
    if layer == 0:
        stage.side.info(words.looks_embeddings(senses, reader))
        return
    stage.side.markdown(words.looks_text(senses, layer, loaded.n_heads))
    per_row = len(senses.senses) if stage.fill else 2  # on a projector in one row
    cols = stage.chart_columns(per_row)
    for k, sense in enumerate(senses.senses):
        row, tokens = sense.attention[layer - 1], list(sense.tokens)
        title = words.bar_title(k, sense.word, sense.index, layer)
        show_figure(
            bar_chart(tokens, row, title=title, y_title="weight", y_range=(0, 1.05), fmt=".2f", height=280),
            key=f"tf_sense_row_{k}",
            table=Table(
                row[None, :],
                rows=(sense.tokens[sense.index],),
                cols=tokens,
                name=f"Attention of {sense.word} in sentence {k + 1}",
                kind="bars",
                row_title="query",
                col_title="key",
            ),
            into=cols[k % per_row],
        )


# --------------------------------------------------------------------------- the page

fresh = state.key("a") not in st.session_state  # the page's first run in this visit
state.start()
deck = Deck(words.SECTIONS, step_key=state.key("step"), numbered=True)
reader = present.reader()
outline.steps(deck)

st.title("Attention in a transformer")
present.intro(
    "Self-attention is one layer of a bigger machine. This page puts it in its place: what it does that a "
    "plain dense layer cannot, how it is split into heads, how a batch of sentences of different lengths is "
    "handled, what surrounds it in a transformer block, how the encoder and the decoder use it, and why it "
    "replaced recurrent networks. The last sections follow one word through a real model."
)
left, right = present.input_columns(2)  # in presenter mode the sidebar
left.text_input("Sentence A (the encoder's source)", key=state.key("a"), max_chars=MAX_CHARS)
right.text_input("Sentence B (the decoder's target)", key=state.key("b"), max_chars=MAX_CHARS)
sentence.note(
    state.key("a"), "Sentence A is your sentence from another page; sentence B is still the example's target."
)
c1, c2, c3 = present.input_columns(3)
c1.select_slider("d_model (width of every token vector)", options=tr.D_MODELS, key=state.key("d_model"))
c2.select_slider("H (attention heads)", options=tr.HEADS, key=state.key("heads"))
c3.number_input("Seed for the random weights", min_value=0, max_value=10_000, step=1, key=state.key("seed"))
tokens_a = checked_tokens(str(state.value("a")), what="sentence A")
tokens_b = checked_tokens(str(state.value("b")), what="sentence B")
deck.nav()

lesson = None
if tokens_a and tokens_b:
    settings = (int(state.value("d_model")), int(state.value("heads")), int(state.value("seed")))
    lesson = compute(tuple(tokens_a), tuple(tokens_b), *settings)
    model_inputs = outline.fingerprint(state.value("sentences"), state.value("word"), state.value("layer"))
    outline.changes(
        deck,
        {  # what each section shows (the block's weights, up to 768 × 3072, are left out: its output follows them)
            "dense": outline.fingerprint(lesson.dense.dense, [s.weights for s in lesson.dense.attention]),
            "split": outline.fingerprint(lesson.split, lesson.minilm),
            "padding": outline.fingerprint(
                lesson.padding.tokens, [s.weights for s in (*lesson.padding.masked, *lesson.padding.unmasked)]
            ),
            "block": outline.fingerprint(lesson.block.stages(), lesson.block.output),
            "enc_dec": outline.fingerprint(lesson.masks),
            "recurrence": outline.fingerprint(lesson.cost),
            "senses": model_inputs,
            "looks": model_inputs,  # where the word looks: the same sentences and word
        },
        {
            "Sentence A": state.value("a"),
            "Sentence B": state.value("b"),
            "d_model": state.value("d_model"),
            "H": state.value("heads"),
            "Seed": state.value("seed"),
        },
        fresh=fresh,
    )
elif any(deck.shows(name) for name in words.USES_AB):
    st.caption("The sections that use sentences A and B appear once both boxes hold some text.")

ready = lesson is not None
shown: Stage | None = None  # the last section's stage: on a projector the footer goes with its text
if stage := deck.section("dense", ready, beside=False):
    dense(shown := stage, lesson, reader)
if stage := deck.section("split", ready):
    split(shown := stage, lesson)
if stage := deck.section("padding", ready, beside=False):
    padding(shown := stage, lesson, reader)
if stage := deck.section("block", ready):
    block(shown := stage, lesson, reader)
if stage := deck.section("enc_dec", ready, beside=False):
    enc_dec(shown := stage, lesson)
if stage := deck.section("recurrence", ready):
    recurrence(shown := stage, lesson)

loaded = why = None
if deck.shows("senses") or deck.shows("looks"):
    from ui.model_cache import try_load  # torch loads only when these sections are shown

    loaded, why = try_load()
    if loaded is not None and int(state.value("layer")) > loaded.n_layers:
        st.session_state[state.key("layer")] = loaded.n_layers
unavailable = f"The real model is not available, so this section cannot run: {md_escape(why or '')}"
if stage := deck.section("senses"):
    shown = stage
    stage.side.markdown(words.SENSES_INTRO)
    if loaded is None:
        stage.side.warning(unavailable)
    else:
        senses_section(stage, loaded)
layer = int(state.value("layer"))
if deck.shows("looks") and loaded is None and reader.paged:
    st.warning(unavailable)
if stage := deck.section("looks", loaded is not None, beside=False, heading=words.looks_heading(layer)):
    if not deck.shows("senses"):  # one section at a time: its layer waits in the sidebar
        layer = layer_slider(st.sidebar, loaded.n_layers)
    looks_section(shown := stage, loaded, layer, reader)

state.sync()
with shown.side if shown is not None and shown.fill else st.container():  # after the text, not over it
    footer(__file__, words.what_it_showed(lesson) if lesson is not None else [], deck)
