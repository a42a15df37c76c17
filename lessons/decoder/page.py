"""Decoder (causal): a small trained decoder of our own, its causal heads, and the induction
head it learned. NumPy only (attn_core.trained_decoder); the weights ship in assets/decoder/.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import trained_decoder as dc
from attn_core.figures import real_model as mf
from attn_core.tables import head_table, weights_table
from ui import outline, present, quiz, sentence
from ui.charts import show_attention, show_bars, show_figure, show_lines, side_by_side
from ui.common import MAX_CHARS, md_escape, show_tokens
from ui.footer import footer
from ui.state import PageState, Param, clamp_index

SECTIONS = ("Your words", "Every head", "Previous-token and induction heads", "Next-word guesses", "How it learned")
DEFAULT_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
N_RANDOM = 20  # the random button: this many words, then the same words again
TIE = 0.001  # Predict first asks only when the right answer beats the next option by this much (3 decimals)


@st.cache_resource(show_spinner=False)
def _decoder() -> tuple[dc.Decoder | None, dc.Training | None, str | None]:
    """The shipped decoder and its training record, once per server (or why they are missing)."""
    try:
        return dc.load_decoder(), dc.load_training(), None
    except dc.DecoderLoadError as err:
        return None, None, str(err)


decoder, training, problem = _decoder()
LAYERS, HEADS = (decoder.n_layers, decoder.n_heads) if decoder is not None else (1, 1)  # the pickers' bounds
STATE = PageState(
    "dec",
    (
        Param("text", DEFAULT_TEXT, "text", max_chars=MAX_CHARS, shared=True),
        Param("layer", min(1, LAYERS - 1), "int", lo=0, hi=LAYERS - 1),
        Param("head", 0, "int", lo=0, hi=HEADS - 1),
        Param("focus", None, "index"),
        Param("seed", 0, "int", lo=0, hi=99_999),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(SECTIONS)),
    ),
)
K = STATE.key
KEEP = {"persist_state": "page"}  # the head pickers keep their values while presenter mode shows another section


@st.cache_data(max_entries=256, show_spinner=False)
def _lesson(_decoder: dc.Decoder, text: str) -> dc.DecoderLesson:
    """The page's one attn_core call."""
    return dc.decoder_lesson(_decoder, text)


def _random(decoder: dc.Decoder) -> None:
    """The button: N_RANDOM random words, then the same words again (a new seed each press)."""
    seed = int(st.session_state.get(K("seed"), 0)) + 1
    st.session_state[K("seed")] = seed
    sentence.set_quietly(K("text"), " ".join(dc.random_repeated(decoder, N_RANDOM, seed=seed)))  # this page's own


def _intro(decoder: dc.Decoder | None, training: dc.Training | None) -> str:
    """The opening paragraph; the model's sizes are read from the loaded decoder, and whether it
    learned an induction head from its training record."""
    if decoder is None:
        return "Everything real on the other pages is an encoder, which looks both ways; this page runs a decoder."
    kind = " attention-only" if decoder.attention_only else ""
    parts = (
        " Each layer only adds its heads' output to the word vectors (the residual stream): there is no "
        "feed-forward network (MLP) and no LayerNorm."
        if decoder.attention_only
        else ""
    )
    return (
        "Everything real on the other pages is an encoder, which looks both ways. This page runs a small "
        f"**decoder** we trained ourselves for this app: an{kind} model with {decoder.n_layers} layers of "
        f"{decoder.n_heads} causal heads (each word sees only itself and the words before it), a vocabulary of "
        f"{len(decoder.vocab) - 1} common English words, and the same sinusoidal positions as Step by step.{parts} "
        "It was trained to guess the next word in random word sequences where a stretch repeats"
        + (
            ", and it learned the famous trick for that: an **induction head**."
            if training is not None and training.formed_at(dc.INDUCTION_THRESHOLD) is not None
            else "; the trick for that is an **induction head**."
        )
    )


def _learning(training: dc.Training, n_words: int) -> str:
    """What the training record shows, every number read from training.json."""
    threshold = dc.INDUCTION_THRESHOLD
    formed = training.formed_at(threshold)
    text = (
        f"The induction head formed around step {formed}: the first evaluation where a head's induction score "
        f"passed {threshold:g}."
        if formed is not None
        else f"No head's induction score passed {threshold:g} during training."
    )
    drop, rise = training.steepest_repeat_drop, training.steepest_induction_rise
    if drop is not None and rise is not None:
        steps, loss, first, best = training.steps, training.loss_repeat, training.loss_first, training.best_induction
        text += (
            f" The loss on the repeated words fell fastest between steps {steps[drop]} and {steps[drop + 1]}, "
            f"from {loss[drop]:.2f} to {loss[drop + 1]:.2f}"
        )
        if drop == rise:
            text += (
                f", in the same stretch where the best induction score rose the most, from {best[rise]:.2f} to "
                f"{best[rise + 1]:.2f}. Meanwhile the loss on the words before the repeat went from "
                f"{first[drop]:.2f} to {first[drop + 1]:.2f}."
            )
        else:
            text += (
                f"; the best induction score rose the most between steps {steps[rise]} and {steps[rise + 1]}, "
                f"from {best[rise]:.2f} to {best[rise + 1]:.2f}."
            )
        lowest, even = float(np.nanmin(first)), float(np.log(n_words))
        if lowest >= even:
            text += (
                f" The words before the repeat are random, so no trick helps there: that loss never went below "
                f"{lowest:.2f}, and an even guess over the {n_words} words scores ln {n_words} = {even:.2f}."
            )
    return (
        f"{text} At the end the best head scores {training.best_induction[-1]:.2f} and the repeat accuracy is "
        f"{training.repeat_accuracy[-1]:.2f} on held-out sequences with period {training.period}."
    )


def _scores_chart(key: str, scores: np.ndarray, title: str) -> None:
    """An (L, H) table of head scores as a small heatmap (scores in [0, 1]), with its table."""
    table = head_table(scores, title, first_layer=1)
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
    show_figure(fig, key, table=table)


def _best(scores: np.ndarray) -> tuple[int, int, float]:
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(layer), int(head), float(scores[layer, head])


def _earlier_copies(lesson: dc.DecoderLesson) -> list[int]:
    """Where the last word (as the model reads it) appeared before, latest first."""
    ids, t = lesson.run.ids, lesson.T - 1
    return [s for s in range(t - 1, -1, -1) if ids[s] == ids[t]]


def look_question(lesson: dc.DecoderLesson, labels: list[str]) -> tuple[quiz.Question, int, int] | None:
    """Section 3: which word does the last word give the most weight in the strongest induction head
    (the strongest previous-token head when the words do not repeat)? With the question, its head
    (layer, head). None for one word, or when the top two weights are within TIE."""
    kind = "induction" if lesson.induction is not None else "previous-token"
    scores = lesson.induction if lesson.induction is not None else lesson.previous_token
    if scores is None:
        return None
    layer, head, _ = _best(scores)
    t = lesson.T - 1
    row = lesson.run.attentions[layer, head, t]  # (T,)
    first, second = np.sort(row)[::-1][:2]
    if first - second < TIE:
        return None
    answer, copies = int(np.argmax(row)), _earlier_copies(lesson)
    guesses = [t - 1, *(s + 1 for s in copies), *copies, t, 0, t - 2]
    positions = sorted(list(dict.fromkeys([answer, *(n for n in guesses if n >= 0)]))[:5])
    if kind == "previous-token" and answer == t - 1:
        explain = "It is the word just before it: what a previous-token head looks at."
    elif answer in (s + 1 for s in copies):
        explain = (
            f"It is the word right after an earlier “{lesson.run.tokens[answer - 1]}” (position {answer - 1}): "
            "what followed this word last time, which is what an induction head looks up."
        )
    elif answer == t - 1:
        explain = "It is the word just before it."
    else:
        explain = ""
    question = quiz.Question(
        key="dec_quiz_look",
        prompt=f"Layer {layer + 1}, head {head} is the strongest {kind} head on these words. Which word does the "
        f"last word, “{labels[t]}” (position {t}), give the most weight?",
        options=tuple(f"{n}: {labels[n]}" for n in positions),
        answer=positions.index(answer),
        value=float(first),
        value_label="its weight",
        explain=explain,
    )
    return question, layer, head


def next_question(lesson: dc.DecoderLesson, labels: list[str]) -> quiz.Question | None:
    """Section 4: the model's top guess for the word after the last one, among its other top guesses
    and the word that followed the last word's earlier copy. None when the top two are within TIE."""
    t = lesson.T - 1
    words, probs = lesson.top_words[t], lesson.top_probs[t]
    if len(probs) > 1 and probs[0] - probs[1] < TIE:
        return None
    copies = _earlier_copies(lesson)
    copied = lesson.run.tokens[copies[0] + 1] if copies else None  # what followed it last time
    options = sorted(set(words) | ({copied} if copied else set()))
    if copied is None:
        explain = f"“{lesson.run.tokens[t]}” has not come before, so there is no earlier copy to follow."
    elif copied == words[0]:
        explain = f"Last time “{lesson.run.tokens[t]}” was followed by “{copied}”, and the model copies that."
    else:
        explain = f"Last time “{lesson.run.tokens[t]}” was followed by “{copied}”, but the model does not copy it here."
    return quiz.Question(
        key="dec_quiz_next",
        prompt=f"What does the model guess comes after the last word, “{labels[t]}”, and how sure is it?",
        options=tuple(options),
        answer=options.index(words[0]),
        value=float(probs[0]),
        value_label="the probability of its top guess",
        explain=explain,
    )


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(SECTIONS, step_key=K("step"), numbered=True)
RANDOM = "“Random sequence, repeated”" + (" (in the sidebar)" if present.on() else "")  # the button, where it is
st.title("Decoder (causal): a model that reads left to right")
present.intro(_intro(decoder, training))
if decoder is None:
    st.error(f"The decoder is not available: {md_escape(problem or 'unknown error')} The other pages keep working.")
    st.stop()

left, right = present.input_columns([3, 1], vertical_alignment="bottom")  # in presenter mode the sidebar
n_words = len(decoder.vocab) - 1  # <unk> is not a word
text = left.text_input(f"Words (from the model's {n_words}-word vocabulary)", key=K("text"), max_chars=MAX_CHARS)
right.button(
    "Random sequence, repeated",
    on_click=_random,
    args=(decoder,),
    width="stretch",
    help=f"{N_RANDOM} random words from the vocabulary, then the same {N_RANDOM} again",
)
inputs = present.inputs()  # the note, the expander and the messages, under the box
with inputs:
    sentence.note(
        K("text"),
        f"These are the words of your sentence from another page. The model knows only its {n_words} words, in "
        "lower case: any other word or mark is read as <unk>, and the note below names them.",
    )
with inputs.expander(f"The {n_words} words the model knows"):
    st.markdown(" · ".join(decoder.vocab[1:]))
outline.steps(deck)
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Guess where a head looks from the last word, and what the model guesses next, before you see it.",
)
lesson = _lesson(decoder, text or "")
if lesson.empty:
    STATE.sync()
    inputs.info(f"Type some words above (the box is empty), or press {RANDOM}.")
    st.stop()
T, run = lesson.T, lesson.run
labels = [f"{w}" if k else f"{w} (<unk>)" for w, k in zip(lesson.words, lesson.known, strict=True)]
if lesson.truncated:
    inputs.warning(
        f"The model was trained on {decoder.max_tokens} words at most; only the first {dc.MAX_TOKENS} are used."
    )
if lesson.unknown:
    shown = ", ".join(f"“{md_escape(w)}”" for w in lesson.unknown[:20])
    inputs.warning(
        f"Not in the model's vocabulary, so read as <unk>: {shown}"
        + (f" and {len(lesson.unknown) - 20} more" if len(lesson.unknown) > 20 else "")
        + ". Capitals do not matter; punctuation and other words become <unk>."
    )
look = look_question(lesson, labels) if predict else None  # (question, layer, head)
guess = next_question(lesson, labels) if predict else None
look_hidden = look is not None and not quiz.revealed(look[0])
HIDDEN = "Hidden until you reveal your prediction{} (Predict first is on): {}"
NO_QUESTION = "Predict first has no question here for these words: {}."
deck.nav()
outline.changes(
    deck,
    (
        outline.fingerprint(run.tokens, lesson.period),
        outline.fingerprint(run.attentions, lesson.mean_distance),
        outline.fingerprint(lesson.previous_token, lesson.induction),
        outline.fingerprint(lesson.loss, lesson.top_words, lesson.top_probs),
        outline.fingerprint(training),
    ),
    {"Words": text},
    fresh=fresh,
)

# --------------------------------------------------------------------------- your words
if deck.section(0):
    show_tokens(list(run.tokens))
    if lesson.period is None:
        st.markdown(
            "These words do not repeat a stretch from the start, so there is nothing for an induction head to "
            f"copy. Press {RANDOM} to see one at work."
        )
    else:
        st.markdown(
            f"From word {lesson.period} on, the words repeat the sequence from the start (period "
            f"{lesson.period}). A model that has learned to copy can predict every repeated word."
        )

# --------------------------------------------------------------------------- every head
if deck.section(1, beside=False, heading="Every head, causal"):
    row = present.chart_columns(3) if present.on() else None  # on a projector the three charts abreast
    st.markdown(
        "Each small square is one head's attention matrix: row i is word i looking back. Everything above the "
        "diagonal is exactly zero, because the causal mask gives those scores −∞ before the softmax."
    )
    grid = mf.thumbnail_grid(
        run.attentions,
        title=f"All {decoder.n_layers * decoder.n_heads} heads: layers (rows) × heads (columns)",
        row_names=[f"layer {layer + 1}" for layer in range(decoder.n_layers)],
        col_names=[f"head {h}" for h in range(decoder.n_heads)],
        selected=(STATE.value("layer"), STATE.value("head")),
        hidden=look[1:] if look_hidden else None,  # its pattern answers section 3's question
    )
    name = "How far back each head looks (mean distance in words)"
    with row[0] if row else st.container():
        show_figure(grid, "dec_fig_grid", table=head_table(lesson.mean_distance, name, first_layer=1))
    st.caption(f"Largest weight above the diagonal in any head: {lesson.max_above_diagonal:g}.")
    if look_hidden:
        st.caption(HIDDEN.format(" in section 3", f"the grey square, layer {look[1] + 1}, head {look[2]}."))
    c1, c2, c3 = present.input_columns(3) if present.on() else st.columns(3)  # under the charts: the sidebar
    layer = c1.selectbox(
        "Layer", range(decoder.n_layers), key=K("layer"), format_func=lambda n: f"layer {n + 1}", **KEEP
    )
    head = c2.selectbox("Head", range(decoder.n_heads), key=K("head"), format_func=lambda n: f"head {n}", **KEEP)
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
        st.info(HIDDEN.format(" in section 3", "this is the head the question asks about."))
    else:
        title = f"Layer {layer + 1}, head {head}: attention weights"
        with row[1] if row else st.container():
            show_attention(
                "dec_fig_head",
                run.attentions[layer, head],
                labels,
                title=title,
                width_px=fg.FULL_WIDTH_PX,
                focus_row=focus,
            )
        fig = mf.head_view(
            run.attentions[layer],
            labels,
            heads=[head],
            threshold=0.1,
            query=focus,
            title=f"Head view, layer {layer + 1}, head {head}",
        )
        with row[2] if row else st.container():
            show_figure(
                fig,
                "dec_fig_head_view",
                table=weights_table(run.attentions[layer, head], labels, name=f"Layer {layer + 1}, head {head}"),
                focus_row=focus,
            )

# --------------------------------------------------------------------------- the two kinds of head
if deck.section(2, heading="Previous-token heads and induction heads"):
    row = present.chart_columns(2) if present.on() else None  # on a projector the two charts abreast
    if look is not None:
        with st.container(border=True):
            quiz.ask(look[0])
            if guess is None or not deck.shows(3):  # the score goes under the page's last question
                quiz.score_line()
    elif predict:
        st.caption(NO_QUESTION.format(f"it needs two words, and one word the head prefers by {TIE:g} or more"))
    st.markdown(
        "A **previous-token head** sends each word's attention to the word just before it. It copies "
        "“which word came before me” into each position's vector. An **induction head** in the next layer "
        "uses that: its query is the current word, and its keys now say “the word before me was …”, so the "
        "current word matches the position *right after* its own earlier occurrence. The head copies the "
        "word it finds there, and that is the prediction: after “… cat sat … cat”, guess “sat”. Neither "
        "head can do this alone; it works because the second layer reads what the first layer wrote."
    )
    if lesson.previous_token is not None:
        with row[0] if row else st.container():
            _scores_chart("dec_fig_prev", lesson.previous_token, "Previous-token score: mean weight on the word before")
        pl, ph, pv = _best(lesson.previous_token)
        st.caption(f"On these words the strongest previous-token head is layer {pl + 1}, head {ph} ({pv:.2f}).")
    if lesson.induction is not None:
        with row[1] if row else st.container():
            _scores_chart(
                "dec_fig_induction",
                lesson.induction,
                f"Induction score: mean weight on the word after the earlier copy (period {lesson.period})",
            )
        il, ih, iv = _best(lesson.induction)
        st.caption(
            f"On these words the strongest induction head is layer {il + 1}, head {ih}: in the repeated part, "
            f"each word puts on average {iv:.2f} of its attention on the word that followed its earlier copy."
        )
    else:
        st.info(f"The induction score needs words that repeat; press {RANDOM}.")

# --------------------------------------------------------------------------- guesses and loss
if deck.section(3, heading="The model's next-word guesses"):
    if guess is not None:
        with st.container(border=True):
            quiz.ask(guess)
            quiz.score_line()
    elif predict:
        st.caption(NO_QUESTION.format(f"its top two guesses after the last word are within {TIE:g} of each other"))
    guess_hidden = guess is not None and not quiz.revealed(guess)
    positions = [f"{t + 1}:{lesson.words[t + 1]}" for t in range(T - 1)]
    if T > 1:
        show_bars(
            "dec_fig_loss",
            positions,
            lesson.loss,
            title="Loss at each position: −ln p(the actual next word)",
            y_title="loss (nats)",
            fmt=".1f",
        )
    if lesson.period is not None and lesson.loss_repeat is not None:
        st.markdown(
            f"Before the repeat (positions 1–{lesson.period}) the model can only guess, with a mean loss of "
            f"{lesson.loss_first:.2f}. In the repeated part the mean loss is {lesson.loss_repeat:.2f} and the "
            f"top guess is right {lesson.accuracy_repeat:.0%} of the time: the model learns from the text "
            "in front of it, without any change to its weights (in-context learning)."
        )
    rows = []
    for t in range(T):
        guesses = "  ".join(f"{w} {p:.2f}" for w, p in zip(lesson.top_words[t], lesson.top_probs[t], strict=True))
        if guess_hidden and t == T - 1:
            guesses = "hidden until you reveal your prediction"
        rows.append(
            {
                "position": t,
                "word": labels[t],
                "actual next": lesson.words[t + 1] if t + 1 < T else "—",
                "top 5 guesses (probability)": guesses,
                "loss": f"{lesson.loss[t]:.2f}" if t + 1 < T else "—",
            }
        )
    st.table(rows)

# --------------------------------------------------------------------------- training
if deck.section(4):
    side_by_side(
        lambda key, series, title, y_title: show_lines(
            key, training.steps, series, title=title, x_title="training step", y_title=y_title
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
    )
    st.markdown(_learning(training, n_words))
STATE.sync()


# --------------------------------------------------------------------------- what it showed


def what_it_showed(decoder: dc.Decoder, lesson: dc.DecoderLesson) -> list[str]:
    """The footer's lines, from this run's lesson."""
    lines = [
        f"All {decoder.n_layers * decoder.n_heads} heads are causal: the largest weight any of them gives a later "
        f"word is {lesson.max_above_diagonal:g}."
    ]
    if lesson.period is not None and lesson.loss_repeat is not None:
        lines.append(
            f"Before the repeat the mean loss was {lesson.loss_first:.2f}; in the repeated part it was "
            f"{lesson.loss_repeat:.2f}, and the top guess was right {lesson.accuracy_repeat:.0%} of the time."
        )
    else:
        lines.append(
            "Your words do not repeat a stretch from the start, so an induction head has nothing to copy; "
            f"{RANDOM} makes words that do."
        )
    if lesson.induction is not None:
        layer, head, value = _best(lesson.induction)
        lines.append(f"The strongest induction head on these words is layer {layer + 1}, head {head} ({value:.2f}).")
    return lines


footer(__file__, what_it_showed(decoder, lesson), deck)
