"""Decoder (causal): a small trained decoder of our own, its causal heads, and the induction
head it learned. NumPy only (attn_core.trained_decoder); the weights ship in assets/decoder/.
Layers and heads are counted from 1, on the page and in its URL (?layer=2&head=1); the words
are in lessons/decoder/words.py.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import numbering as nb
from attn_core import trained_decoder as dc
from attn_core.figures import real_model as mf
from attn_core.tables import head_table, weights_table
from lessons.decoder import words
from ui import outline, present, quiz, sentence
from ui.charts import show_attention, show_bars, show_figure, show_lines, side_by_side
from ui.common import MAX_CHARS, once_per_server, show_tokens
from ui.footer import footer
from ui.present import Deck, Stage
from ui.reader import Reader
from ui.state import PageState, Param, clamp_index

load = once_per_server(st.cache_resource(show_spinner=False))(words.load)
decoder_lesson = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.lesson)
decoder, training, problem = load()
LAYERS, HEADS = (decoder.n_layers, decoder.n_heads) if decoder is not None else (1, 1)  # the pickers' bounds
STATE = PageState(
    "dec",
    (
        Param("text", words.DEFAULT_TEXT, "text", max_chars=MAX_CHARS, shared=True),
        Param("layer", min(2, LAYERS), "int", lo=1, hi=LAYERS),  # layers and heads as shown: from 1
        Param("head", 1, "int", lo=1, hi=HEADS),
        Param("focus", None, "index"),
        Param("seed", 0, "int", lo=0, hi=99_999),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
    ),
)
K = STATE.key
KEEP = {"persist_state": "page"}  # the head pickers keep their values while presenter mode shows another section


def _random(decoder: dc.Decoder) -> None:
    """The button: N_RANDOM random words, then the same words again (a new seed each press)."""
    seed = int(st.session_state.get(K("seed"), 0)) + 1
    st.session_state[K("seed")] = seed
    sentence.set_quietly(K("text"), words.random_text(decoder, seed))  # this page's own


def _scores_chart(key: str, scores: np.ndarray, title: str, into: Stage) -> None:
    """An (L, H) table of head scores as a small heatmap (scores in [0, 1]), with its table."""
    table = head_table(scores, title)
    fig = fg.heatmap(
        scores,
        rows=list(table.rows),
        cols=list(table.cols),
        title=title,
        kind="weights",
        row_title="layer",
        col_title="head",
        value_name="score",
        fmt=".2f",
        height=180,
    )
    show_figure(fig, key, table=table, into=into)


# --------------------------------------------------------------------------- the sections


def every_head(stage: Stage, lesson: dc.DecoderLesson, labels: list[str], look) -> None:
    """Section 2: every head's pattern, and one head (picked here) as a heatmap and a head view."""
    look_hidden = look is not None and not quiz.revealed(look[0])
    row = stage.chart_columns(3) if stage.fill else [stage] * 3  # on a projector the three charts abreast
    st.markdown(words.GRID_TEXT)
    grid = mf.thumbnail_grid(
        lesson.run.attentions,
        title=words.grid_title(decoder),
        row_names=[nb.layer_name(layer) for layer in range(decoder.n_layers)],
        col_names=[nb.head_name(h) for h in range(decoder.n_heads)],
        selected=(nb.layer_index(STATE.value("layer")), nb.head_index(STATE.value("head"))),
        hidden=look[1:] if look_hidden else None,  # its pattern answers section 3's question
    )
    name = "How far back each head looks (mean distance in words)"
    show_figure(grid, "dec_fig_grid", table=head_table(lesson.mean_distance, name), into=row[0])
    st.caption(words.above_diagonal(lesson))
    if look_hidden:
        st.caption(words.hidden_square(*look[1:]))
    c1, c2, c3 = present.input_columns(3) if present.on() else st.columns(3)  # under the charts: the sidebar
    layer = c1.selectbox("Layer", range(1, LAYERS + 1), key=K("layer"), format_func=_layer, **KEEP)
    head = c2.selectbox("Head", range(1, HEADS + 1), key=K("head"), format_func=_head, **KEEP)
    layer, head = nb.layer_index(layer), nb.head_index(head)
    T = lesson.T
    st.session_state[K("focus")] = clamp_index(STATE.value("focus"), T, None)
    focus = c3.selectbox(
        "Focus on a word",
        [None, *range(T)],
        key=K("focus"),
        format_func=lambda n: "all words" if n is None else f"{n}: {labels[n]}",
        placeholder="all words",
        **KEEP,
    )
    if look_hidden and look[1:] == (layer, head):
        st.info(words.HIDDEN_HEAD)
        return
    weights, title = lesson.run.attentions[layer, head], words.head_title(layer, head)
    show_attention(
        "dec_fig_head",
        weights,
        labels,
        title=f"{title}: attention weights",
        width_px=fg.FULL_WIDTH_PX,
        focus_row=focus,
        into=row[1],
    )
    where = f"Head view, {nb.head_label(layer, head)}"
    fig = mf.head_view(lesson.run.attentions[layer], labels, heads=[head], threshold=0.1, query=focus, title=where)
    table = weights_table(weights, labels, name=title)
    show_figure(fig, "dec_fig_head_view", table=table, focus_row=focus, into=row[2])


def _layer(number: int) -> str:
    return nb.layer_name(nb.layer_index(number))  # a picker's value is the shown number


def _head(number: int) -> str:
    return nb.head_name(nb.head_index(number))


def two_kinds(stage: Stage, deck: Deck, lesson: dc.DecoderLesson, look, guess, predict: bool, reader: Reader) -> None:
    """Section 3: the previous-token and induction scores, and where the strongest head looks."""
    row = stage.chart_columns(2) if stage.fill else [stage] * 2  # on a projector the two charts abreast
    if look is not None:
        with st.container(border=True):
            quiz.ask(look[0])
            if guess is None or not deck.shows("guesses"):  # the score goes under the page's last question
                quiz.score_line()
    elif predict:
        st.caption(words.no_look_question())
    st.markdown(words.KINDS_TEXT)
    if lesson.previous_token is not None:
        _scores_chart("dec_fig_prev", lesson.previous_token, words.PREVIOUS_TITLE, row[0])
        st.caption(words.previous_caption(lesson.previous_token))
    if lesson.induction is not None:
        _scores_chart("dec_fig_induction", lesson.induction, words.induction_title(lesson.period), row[1])
        st.caption(words.induction_caption(lesson.induction))
    else:
        st.info(words.no_induction(reader))


def guesses(stage: Stage, lesson: dc.DecoderLesson, labels: list[str], guess, predict: bool) -> None:
    """Section 4: the loss at each position, the top guesses, and what generating costs."""
    if guess is not None:
        with st.container(border=True):
            quiz.ask(guess)
            quiz.score_line()
    elif predict:
        st.caption(words.no_next_question())
    if lesson.T > 1:
        positions = words.loss_positions(lesson)
        labels_ = {"title": words.LOSS_TITLE, "y_title": "loss (nats)", "fmt": ".1f"}
        show_bars("dec_fig_loss", positions, lesson.loss, **labels_, into=stage)
    if text := words.loss_text(lesson):
        st.markdown(text)
    st.markdown(words.kv_cache_text(decoder, lesson.T))
    st.table(words.guess_rows(lesson, labels, hide_last=guess is not None and not quiz.revealed(guess)))


def how_it_learned(stage: Stage) -> None:
    """Section 5: the training record."""
    side_by_side(
        lambda key, series, title, y_title, into: show_lines(
            key, training.steps, series, title=title, x_title="training step", y_title=y_title, into=into
        ),
        (
            "dec_fig_train_loss",
            {"on the words before the repeat": training.loss_first, "on the repeated words": training.loss_repeat},
            "Held-out loss during training",
            "loss (nats)",
        ),
        (
            "dec_fig_train_scores",
            {"best induction score": training.best_induction, "repeat accuracy": training.repeat_accuracy},
            "Induction score and repeat accuracy",
            "",
        ),
        into=stage,
    )
    st.markdown(words.learning_text(training, words.n_words(decoder)))


def sections(deck: Deck, text: str, fresh: bool, reader: Reader) -> None:
    """Every section for these words and the footer, or a note when the box is empty."""
    inputs = present.inputs()  # the note, the expander and the messages, under the box
    with inputs:
        sentence.note(K("text"), words.carried_note(decoder))
    with inputs.expander(f"The {words.n_words(decoder)} words the model knows"):
        st.markdown(" · ".join(decoder.vocab[1:]))
    outline.steps(deck)
    predict = st.sidebar.toggle("Predict first", key=K("predict"), help=words.PREDICT_HELP)
    lesson = decoder_lesson(decoder, text or "")
    if lesson.empty:
        inputs.info(words.empty(reader))
        STATE.sync()
        return
    labels = words.labels(lesson)
    if lesson.truncated:
        inputs.warning(words.truncated(decoder))
    if lesson.unknown:
        inputs.warning(words.unknown_words(lesson))
    look = words.look_question(lesson, labels) if predict else None  # (question, layer, head)
    guess = words.next_question(lesson, labels) if predict else None
    deck.nav()
    run = lesson.run
    prints = {
        "words": outline.fingerprint(run.tokens, lesson.period),
        "heads": outline.fingerprint(run.attentions, lesson.mean_distance),
        "kinds": outline.fingerprint(lesson.previous_token, lesson.induction),
        "guesses": outline.fingerprint(lesson.loss, lesson.top_words, lesson.top_probs),
        "learning": outline.fingerprint(training),
    }
    outline.changes(deck, prints, {"Words": text}, fresh=fresh)
    shown = []  # the stages drawn, in page order
    if stage := deck.section("words"):
        shown.append(stage)
        with stage.side:
            show_tokens(list(run.tokens))
            st.markdown(words.repeat_text(lesson, reader))
    if stage := deck.section("heads", beside=False, heading=words.HEADINGS["heads"]):
        shown.append(stage)
        with stage.side:
            every_head(stage, lesson, labels, look)
    if stage := deck.section("kinds", heading=words.HEADINGS["kinds"]):
        shown.append(stage)
        with stage.side:
            two_kinds(stage, deck, lesson, look, guess, predict, reader)
    if stage := deck.section("guesses", heading=words.HEADINGS["guesses"]):
        shown.append(stage)
        with stage.side:
            guesses(stage, lesson, labels, guess, predict)
    if stage := deck.section("learning"):
        shown.append(stage)
        with stage.side:
            how_it_learned(stage)
    STATE.sync()
    if shown:  # into the last stage's side: on a projector nothing may follow the stage
        with shown[-1].side:
            footer(__file__, words.footer_lines(decoder, lesson, reader), deck)


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
reader = present.reader()
deck = present.Deck(words.SECTIONS, step_key=K("step"), numbered=True)
st.title("Decoder (causal): a model that reads left to right")
present.intro(words.intro(decoder, training))
if decoder is None:
    st.error(words.missing(problem))
else:
    left, right = present.input_columns([3, 1], vertical_alignment="bottom")  # in presenter mode the sidebar
    label = f"Words (from the model's {words.n_words(decoder)}-word vocabulary)"
    text = left.text_input(label, key=K("text"), max_chars=MAX_CHARS)
    right.button(
        "Random sequence, repeated",
        on_click=_random,
        args=(decoder,),
        width="stretch",
        help=f"{words.N_RANDOM} random words from the vocabulary, then the same {words.N_RANDOM} again",
    )
    sections(deck, text, fresh, reader)
