"""Step by step: one attention head on your sentence, from the tokens to the output Z.

Widgets -> one cached attn_core call -> figure builders. Every setting lives in the URL
(?text=...&d_k=8&causal=1&weights=real&layer=4&head=2&i=8&j=2&step=4), validated and
clamped, so a teacher can share a link to exactly this view (and, in presenter mode, to
one step). Layers and heads are counted from 1, in the sidebar and in the link alike.

The weights are seeded random ones (NumPy only) unless the user picks a real head of the
embedded model; only then are torch and transformers imported, through ui.model_cache.
The sentences the page shows come from lessons/step_by_step/words.py (plain Python).
"""

from __future__ import annotations

import streamlit as st

from attn_core import figures as fg
from attn_core import numbering
from attn_core import trained_decoder as dc
from attn_core import walkthrough as wt
from lessons.step_by_step import words
from ui import outline, present, quiz
from ui.charts import show_bars, show_heatmap, show_panels
from ui.common import (
    MAX_CHARS,
    MAX_TOKENS,
    PRESETS,
    checked_tokens,
    once_per_server,
    sentence_input,
    show_tokens,
)
from ui.footer import footer
from ui.it_words import it_numbers
from ui.model_cache import it_head, it_rows, try_load
from ui.present import Stage
from ui.reader import Reader
from ui.state import PageState, Param, clamp_index

minilm_shape = once_per_server(st.cache_resource(show_spinner=False))(words.minilm_shape)
compute = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.compute)
model_run = once_per_server(st.cache_data(max_entries=16, show_spinner="Running the model…"))(words.model_run)
compute_real = once_per_server(st.cache_data(max_entries=64, show_spinner=False))(words.compute_real)
load_decoder = once_per_server(st.cache_resource(show_spinner=False))(words.load_decoder)
decoder_induction = once_per_server(st.cache_resource(show_spinner=False))(words.decoder_induction)
decoder_parity = once_per_server(st.cache_resource(show_spinner=False))(words.decoder_parity)
compute_decoder = once_per_server(st.cache_data(max_entries=64, show_spinner=False))(words.compute_decoder)

MINILM = minilm_shape()
# The real head's layer and head bounds, for clamping URL values before the model loads. Without the
# package no real head can be shown, and the fallback only keeps the URL bounds sane.
REAL_LAYERS, REAL_HEADS = (MINILM.n_layers, MINILM.n_heads) if MINILM is not None else (6, 12)
SMALL, SMALL_WIDE, SMALL_PANEL = 14, 16, 6  # print values in cells up to these sizes (full width, panels)
SCORE_CHARTS = {  # step: the chart's symbol, its table's name, the name of its values
    "scores": ("S = QKᵀ", "Scores", "score"),
    "scaled": ("S̃", "Scaled scores", "scaled score"),
    "masked": ("M", "Masked scores", "masked score"),
}
STATE = PageState(
    "sbs",
    (
        Param("text", PRESETS[0], "text", max_chars=MAX_CHARS, shared=True),
        Param("d_model", 16, "int", lo=2, hi=64),
        Param("d_k", 4, "int", lo=1, hi=64),
        Param("seed", 0, "int", lo=0, hi=9999),
        Param("scale", True, "bool"),
        Param("x100", False, "bool"),
        Param("causal", False, "bool"),
        Param("pos", True, "bool"),
        Param("weights", "random", "choice", choices=tuple(words.SOURCES)),
        Param("layer", 1, "int", lo=1, hi=REAL_LAYERS),  # as shown: counted from 1
        Param("head", 1, "int", lo=1, hi=REAL_HEADS),
        Param("i", 2, "index"),
        Param("j", 1, "index"),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.STEPS)),
    ),
)
K = STATE.key


def _by_dims(into: Stage, key: str, z, title: str, rows: list[str], **kwargs) -> None:
    """A matrix with a row per token and a column per dimension, as wide as the page, and its table."""
    cols = fg.dim_labels(z.shape[1], prefix="")
    show_heatmap(f"sbs_fig_{key}", z, rows=rows, cols=cols, title=title, width_px=fg.FULL_WIDTH_PX, into=into, **kwargs)


def _panels(into: Stage, key: str, panels: list, title: str, rows: list[str] | None, **kwargs) -> None:
    """Matrices that share their rows, side by side in one chart as wide as the page, and one table."""
    name = ", ".join(label for label, _ in panels)
    show_panels(
        f"sbs_fig_{key}", panels, rows=rows, title=title, width_px=fg.FULL_WIDTH_PX, name=name, into=into, **kwargs
    )


def _scores(into: Stage, key: str, z, title: str, labels: list[str], **kwargs) -> None:
    """A (T, T) matrix of scores or weights, queries down and keys across, and its table."""
    cols = {"rows": labels, "cols": labels, "row_title": "query i", "col_title": "key j"}
    show_heatmap(f"sbs_fig_{key}", z, title=title, width_px=fg.FULL_WIDTH_PX, into=into, **cols, **kwargs)


# --------------------------------------------------------------------------- the sidebar


def sidebar() -> tuple[str, dc.Decoder | None, str | None, int, int]:
    """The settings; returns the weights source, the decoder (None: not asked for, or missing) and
    why it is missing, and the layer and head (0-based). The rest is read through STATE."""
    kind = st.radio(
        "Weights", list(words.SOURCES), format_func=words.SOURCES.get, key=K("weights"), help=words.sources_help(MINILM)
    )
    decoder, problem, sizes = weights_source(kind)
    trained = sizes is not None
    layer, head = numbering.layer_index(STATE.value("layer")), numbering.head_index(STATE.value("head"))
    if trained:
        n_layers, n_heads = sizes
        for name, value in zip(("layer", "head"), within(sizes), strict=True):
            st.session_state[K(name)] = value  # as shown, 1..n
        shown = [
            st.selectbox(
                name.title(), range(1, n + 1), format_func=f"{name} {{}}".format, key=K(name), help=words.NUMBERING_HELP
            )
            for name, n in (("layer", n_layers), ("head", n_heads))
        ]
        layer, head = numbering.layer_index(shown[0]), numbering.head_index(shown[1])
        if decoder is not None:
            st.caption(words.decoder_hint(decoder_induction(decoder)))
        elif (it_model := try_load()[0]) is not None:  # without it the page says so below, with random weights
            it_layer, it_h = it_head(it_model, it_model.name)
            st.caption(words.it_hint(it_layer, it_h, it_numbers(it_rows(it_model, it_model.name, it_layer, it_h))))
    model = MINILM if kind == "real" else decoder
    if trained and model is not None:
        # The model's own sizes, on sliders that cannot move. The random head's sizes are kept
        # (not drawn, a widget's value would be dropped) for when random weights come back.
        for name, label in words.SIZES.items():
            size = getattr(model, name)
            st.session_state[K(name)] = STATE.value(name)
            st.session_state[K(f"{name}_model")] = size
            st.slider(f"{label} (set by the model)", 1, max(64, size), key=K(f"{name}_model"), disabled=True)
    else:
        st.slider(words.SIZES["d_model"], 2, 64, key=K("d_model"), disabled=trained)
        st.slider(words.SIZES["d_k"], 1, 64, key=K("d_k"), disabled=trained)
    st.number_input("Seed (random weights)", 0, 9999, step=1, key=K("seed"), disabled=trained)
    for name, label in words.TOGGLES.items():
        st.toggle(
            label, key=K(name), disabled=(trained and name == "pos") or (decoder is not None and name == "causal")
        )
    st.toggle("Predict first", key=K("predict"), help=words.PREDICT_HELP)
    return kind, decoder, problem, layer, head


def followed() -> tuple[str, dc.Decoder | None, str | None, int, int]:
    """A student following a teacher who presents: the settings ``sidebar`` returns, read from
    the teacher's address without drawing them (the teacher's screen decides them)."""
    kind = STATE.value("weights")
    decoder, problem, sizes = weights_source(kind)
    layer, head = within(sizes) if sizes is not None else (STATE.value("layer"), STATE.value("head"))
    return kind, decoder, problem, numbering.layer_index(layer), numbering.head_index(head)


def weights_source(kind: str) -> tuple[dc.Decoder | None, str | None, tuple[int, int] | None]:
    """For the weights ``kind``: the decoder and why it is missing (load_decoder; None, None when
    not asked for), and the trained model's (layers, heads), None for random weights. With the
    decoder the causal mask is on: it was trained with it, and its numbers need it."""
    decoder, problem = load_decoder() if kind == "decoder" else (None, None)
    if decoder is not None:
        st.session_state[K("causal")] = True
        return decoder, problem, (decoder.n_layers, decoder.n_heads)
    return decoder, problem, (REAL_LAYERS, REAL_HEADS) if kind == "real" else None


def within(sizes: tuple[int, int]) -> tuple[int, int]:
    """The layer and head as the page numbers them (from 1), within the model's (layers, heads)."""
    return min(STATE.value("layer"), sizes[0]), min(STATE.value("head"), sizes[1])


# --------------------------------------------------------------------------- the run


def run_lesson(text: str, tokens: tuple[str, ...], kind: str, decoder, layer: int, head: int, reader: Reader):
    """The one attn_core call for these settings, with the notes on where the weights come from.

    Returns: (Lesson, words.Head) for the weights actually used
    """
    flags = {name: STATE.value(name) for name in words.TOGGLES}
    scale, x100, causal = flags["scale"], flags["x100"], flags["causal"]
    loaded, problem = try_load() if kind == "real" else (None, None)
    if kind == "real" and loaded is None:
        st.error(words.model_missing(problem))
    if kind == "real" and loaded is not None:
        source = words.Head("real", layer, head, n_heads=loaded.n_heads)
        att = model_run(loaded, loaded.name, text, MAX_TOKENS)
        got = compute_real(loaded, att, loaded.name, text, layer, head, scale, x100, causal)
        if got.truncated:
            st.warning(words.cut_note("real", MAX_TOKENS))
        own = scale and not x100 and not causal
        st.success(words.real_head_note(source, got.lesson.steps.d_k, got.max_abs_error, own, reader))
        return got.lesson, source
    if decoder is not None:
        vocab_words = len(decoder.vocab) - 1
        source = words.Head("decoder", layer, head, decoder.n_heads, vocab_words, decoder.attention_only)
        got = compute_decoder(decoder, text, layer, head, scale, x100)
        if got.truncated and dc.MAX_TOKENS < MAX_TOKENS:  # at the page's own limit checked_tokens has said so
            st.warning(words.cut_note("decoder", dc.MAX_TOKENS))
        if got.unknown:
            st.warning(words.unknown_words_note(got.unknown, vocab_words))
        st.success(words.decoder_head_note(source, scale and not x100, reader))
        return got.lesson, source
    d_model, d_k, seed = STATE.value("d_model"), STATE.value("d_k"), STATE.value("seed")
    return compute(tokens, d_model, d_k, seed, flags["pos"], scale, x100, causal), words.Head()


# --------------------------------------------------------------------------- the page


def page() -> None:
    fresh = K("text") not in st.session_state  # the page's first run in this visit: no change to report
    STATE.start()
    deck = present.Deck(words.STEPS, step_key=K("step"), noun="Step", counted=words.COUNTED)
    reader = present.reader()
    st.title("Self-attention, step by step")
    present.intro(words.INTRO)
    with present.inputs():
        text = sentence_input(K("text"))
    outline.steps(deck)
    if present.following():  # the teacher's settings, from the address: no controls to change them
        kind, decoder, problem, layer, head = followed()
    else:
        with st.sidebar:
            st.header("Settings")
            kind, decoder, problem, layer, head = sidebar()
    checked = checked_tokens(text)
    if checked is None:  # after the sidebar: an empty box hides no other input
        STATE.sync()
        return
    if kind == "decoder" and decoder is None:
        st.error(words.decoder_missing(problem))
    lesson, source = run_lesson(text, tuple(checked), kind, decoder, layer, head, reader)
    T = len(lesson.tokens)
    for name, default in (("i", min(2, T - 1)), ("j", min(1, T - 1))):  # token pickers stay inside this sentence
        st.session_state[K(name)] = clamp_index(STATE.value(name), T, default)
    STATE.sync()
    deck.nav()
    sections(deck, lesson, source, decoder, reader, text, kind, fresh)


def sections(deck, lesson: wt.Lesson, head: words.Head, decoder, reader: Reader, text: str, kind: str, fresh: bool):
    """Every step, each with its text, formula and chart, the worked cell, and the footer."""
    steps, stats, tokens = lesson.steps, lesson.stats, lesson.tokens
    flags = {name: STATE.value(name) for name in words.TOGGLES}
    T, labels, i_key, j_key = len(tokens), list(tokens), STATE.value("i"), STATE.value("j")
    d_model, d_k, d_v = steps.x.shape[1], steps.d_k, steps.v.shape[1]
    score_fmt = ".2f" if stats.max_abs_score < 100 else ".3g"
    w, numbers = lesson.source.weights, {name: deck.index(name) + 1 for name in deck.names}  # the steps' numbers
    biases = w.b_q is not None
    seed, random_sizes = STATE.value("seed"), (STATE.value("d_model"), STATE.value("d_k"))
    fp = outline.fingerprint
    prints = {
        "tokens": fp(tokens),
        "x": fp(steps.x),
        "weights_matrices": fp(w.w_q, w.w_k, w.w_v, w.b_q, w.b_k, w.b_v),
        "qkv": fp(steps.q, steps.k, steps.v),
        "scores": fp(steps.scores),
        "scaled": fp(steps.scaled),
        "masked": fp(steps.masked),
        "weights": fp(steps.weights),
        "output": fp(steps.output),
        "cell": fp(i_key, j_key, steps.masked[i_key], steps.weights[i_key], steps.q[i_key], steps.k[j_key], steps.v),
    }
    settings = words.note_settings(text, kind, head, seed, *random_sizes, flags, i_key, j_key)
    outline.changes(deck, prints, settings, fresh=fresh)
    # The question (and its Reveal button) is on the weights' step; shown one step at a time, the others say so.
    where = deck.elsewhere("weights")
    question = words.prediction(lesson, i_key) if STATE.value("predict") else None
    hidden = question is not None and not quiz.revealed(question)  # scores, weights, Z and the softmax wait

    if stage := deck.section("tokens"):
        stage.side.markdown(words.tokens_text(head, stats, flags["pos"], reader))
        stage.side.latex(rf"T = {T} \text{{ tokens}}")
        with stage.side:
            show_tokens(labels)

    if stage := deck.section("x"):
        stage.side.markdown(words.x_text(head, d_model, stats, flags["pos"], reader))
        if not head.trained:
            stage.side.markdown(words.positions_sentence(lesson.order, T))
        if not head.trained and lesson.source.pe is not None:
            stage.side.markdown(words.pe_sentence(lesson.source.pe))
            stage.side.latex(words.pe_latex(d_model))
        stage.formula(words.x_latex(head, T, d_model, stats, flags["pos"]))
        small = T <= SMALL and d_model <= SMALL_WIDE
        axes = {"row_title": "token", "col_title": "d_model dimension"}
        _by_dims(stage, "x", steps.x, f"X ({T}×{d_model})", labels, name="X", show_values=small, **axes)

    if stage := deck.section("weights_matrices"):
        parity = words.parity_sentence(decoder_parity(decoder)) if head.kind == "decoder" else ""
        stage.side.markdown(words.w_text(head, d_model, d_k, biases) + (" " + parity if parity else ""))
        stage.formula(words.w_latex(head, d_model, d_k, biases))
        panels, title = [("W_q", w.w_q), ("W_k", w.w_k), ("W_v", w.w_v)], f"W_q, W_k, W_v ({d_model}×{d_k} each)"
        small = d_model <= SMALL_WIDE and d_k <= SMALL_PANEL
        axes = {"row_title": "d_model dimension", "col_title": "d_k dimension"}
        _panels(stage, "w", panels, title, None, show_values=small, **axes)

    if stage := deck.section("qkv"):
        stage.side.markdown(words.QKV_TEXT)
        stage.formula(words.qkv_latex(T, d_k, biases))
        panels, title = [("Q", steps.q), ("K", steps.k), ("V", steps.v)], f"Q, K, V ({T}×{d_k} each)"
        _panels(stage, "qkv", panels, title, labels, row_title="token", col_title="dimension")

    score_words = {  # the three score steps: text and formula
        "scores": (words.scores_text(stats, T), words.scores_latex(stats, T)),
        "scaled": (words.scaled_text(lesson, head.trained, numbers), words.scaled_latex(lesson)),
        "masked": (words.masked_text(flags["causal"], numbers, reader), words.masked_latex(stats, flags["causal"])),
    }
    for name, (text_, tex) in score_words.items():
        if stage := deck.section(name):
            stage.side.markdown(text_)
            stage.formula(tex)
            if hidden:
                stage.side.info(words.hidden_scores_note(where))
            else:
                symbol, table, value_name = SCORE_CHARTS[name]
                fmt = {} if name == "scores" else {"fmt": score_fmt}
                title = f"{symbol} ({T}×{T})"
                _scores(stage, name, getattr(steps, name), title, labels, name=table, value_name=value_name, **fmt)

    if stage := deck.section("weights"):
        stage.side.markdown(words.weights_text(stats, numbers))
        stage.formula(words.weights_latex(stats))
        if question is not None:  # made from this run's weights, before they are shown
            with stage.side.container(border=True):
                st.selectbox("Query token to predict for", range(T), format_func=words.option(tokens), key=K("i"))
                hidden = not quiz.ask(question)  # the selectbox's value is STATE.value("i") in this run
                quiz.score_line()
        elif STATE.value("predict"):
            stage.side.caption(words.no_question_note(T, i_key))
        if hidden:
            stage.side.info(words.hidden_note(where))
        else:
            title = f"A = softmax(M) ({T}×{T})"
            _scores(
                stage,
                "weights",
                steps.weights,
                title,
                labels,
                name="Attention weights",
                kind="weights",
                value_name="weight",
                focus_row=i_key,
            )

    if stage := deck.section("output"):
        stage.side.markdown(words.output_text(head, decoder if head.kind == "decoder" else None, lesson))
        stage.side.markdown(words.value_lengths_sentence(lesson))
        stage.formula(words.output_latex(T, d_v))
        if hidden:
            stage.side.info(words.hidden_note(where))
        else:
            axes = {"row_title": "token", "col_title": "dimension"}
            _by_dims(stage, "output", steps.output, f"Z = AV ({T}×{d_v})", labels, name="Output Z", **axes)

    last = None
    if stage := deck.section("cell", beside=0.6):  # on a projector the formulas need the width more than the chart
        stage.side.markdown(words.cell_intro(numbers))
        worked_cell(stage, lesson, hidden, where, pick_query=question is None)
        last = stage
    if not present.on():
        st.download_button(
            "Download every step (.npz, with the settings as JSON)",
            icon=":material/download:",
            data=lambda: words.all_steps_npz(lesson, words.npz_settings(lesson, text, head, seed, flags)),
            file_name="attention-steps.npz",
            mime="application/octet-stream",
            on_click="ignore",
            key="sbs_npz",
            help=words.DOWNLOAD_HELP,
        )
    with last.side if last is not None and present.on() else st.container():  # on a projector: beside the cell
        footer(__file__, words.what_it_showed(lesson, STATE.value("i"), hidden), deck)


def worked_cell(stage: Stage, lesson: wt.Lesson, hidden: bool, where: str, pick_query: bool) -> None:
    """Pick query i and key j; follow s_ij, its scaling, row i's softmax and z_i by hand.
    While a prediction is asked, the query is the one picked there."""
    tokens = lesson.tokens
    T, side = len(tokens), stage.side
    left, right = side.columns(2)
    if pick_query:
        i = left.selectbox("Query token i", range(T), format_func=words.option(tokens), key=K("i"))
    else:
        i = STATE.value("i")
        left.markdown(words.cell_query_picked(tokens, i))
    j = right.selectbox("Key token j", range(T), format_func=words.option(tokens), key=K("j"))
    cell = wt.cell_walkthrough(lesson.steps, i, j)
    side.caption(words.cell_caption(tokens, i, j))
    side.markdown(words.CELL_SCORE_TEXT)
    side.latex(words.cell_score_latex(cell))
    side.markdown(words.CELL_SCALED_TEXT)
    side.latex(words.cell_scaled_latex(cell))
    if not cell.allowed:
        side.latex(words.cell_masked_latex(cell))
    if hidden:
        side.info(words.hidden_note(where))
        return
    side.markdown(words.cell_softmax_text(i))
    if cell.shift:
        side.markdown(words.CELL_SHIFT_TEXT)
        side.latex(words.cell_shift_latex(cell))
    side.latex(wt.latex_row_table(cell))
    side.latex(words.cell_weight_latex(cell))
    side.markdown(words.cell_output_text(i))
    side.latex(words.cell_output_latex(cell))
    title, row_name = f"Row {i} of A, key {j} highlighted", f"Row {i} of the attention weights"
    show_bars(
        "sbs_fig_row",
        tokens,
        cell.weights,
        title=title,
        y_title="weight",
        y_range=(0.0, 1.15),
        fmt=".2f",
        row=f"{i}:{tokens[i]}",
        name=row_name,
        row_title="query",
        col_title="key",
        highlight=j,
        into=stage,
    )


page()
