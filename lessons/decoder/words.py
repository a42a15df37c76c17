"""Decoder (causal): the page's words. Plain Python, no Streamlit: the cached calls as plain
functions (the page wraps them), every sentence computed from the decoder's numbers, the two
predict-first questions and the longer prose. tests/unit/test_decoder_words.py checks each
sentence against the numbers it states, over many word sequences.

Layers and heads are counted from 1 (attn_core.numbering); the arrays stay 0-based, so every
function here takes 0-based indices and names them with the shown numbers.
"""

from __future__ import annotations

import math

import numpy as np

from attn_core import numbering as nb
from attn_core import trained_decoder as dc
from ui.markup import md_escape
from ui.question import Question
from ui.reader import Reader

SECTIONS = {
    "words": "Your words",
    "heads": "Every head",
    "kinds": "Previous-token and induction heads",
    "guesses": "Next-word guesses",
    "learning": "How it learned",
}
HEADINGS = {  # a section's heading on the page, where it says more than its title
    "heads": "Every head, causal",
    "kinds": "Previous-token heads and induction heads",
    "guesses": "The model's next-word guesses",
}
DEFAULT_TEXT = "the cat sat on the mat with a red ball and the cat sat on the mat with a red ball"
N_RANDOM = 20  # the random button: this many words, then the same words again
TIE = 0.001  # Predict first asks only when the right answer beats the next option by this much (3 decimals)
PREDICT_HELP = "Guess where a head looks from the last word, and what the model guesses next, before you see it."
BYTES_PER_NUMBER = 4  # float32, as a cache is usually kept


# --------------------------------------------------------------------------- the cached calls


def load() -> tuple[dc.Decoder | None, dc.Training | None, str | None]:
    """The shipped decoder and its training record (or why they are missing)."""
    try:
        return dc.load_decoder(), dc.load_training(), None
    except dc.DecoderLoadError as err:
        return None, None, str(err)


def lesson(_decoder: dc.Decoder, text: str) -> dc.DecoderLesson:
    """The page's one attn_core call (``_decoder`` is not hashed by the page's cache)."""
    return dc.decoder_lesson(_decoder, text)


def random_text(decoder: dc.Decoder, seed: int) -> str:
    """The random button's text: N_RANDOM random words, then the same words again."""
    return " ".join(dc.random_repeated(decoder, N_RANDOM, seed=seed))


# --------------------------------------------------------------------------- names and labels


def n_words(decoder: dc.Decoder) -> int:
    """The words the model knows (<unk> is not a word)."""
    return len(decoder.vocab) - 1


def head_title(layer: int, head: int) -> str:
    """ "Layer 2, head 1" for the 0-based (1, 0), as a chart title starts."""
    label = nb.head_label(layer, head)
    return label[:1].upper() + label[1:]


def labels(lesson: dc.DecoderLesson) -> list[str]:
    """Each word as the charts label it, "(<unk>)" after a word the model does not know."""
    return [w if k else f"{w} (<unk>)" for w, k in zip(lesson.words, lesson.known, strict=True)]


def random_button(reader: Reader) -> str:
    """The random button, named where it is."""
    return "“Random sequence, repeated”" + (" (in the sidebar)" if reader.presenting else "")


def best(scores: np.ndarray) -> tuple[int, int, float]:
    """(layer, head, score) of the head with the largest score, 0-based."""
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(layer), int(head), float(scores[layer, head])


def earlier_copies(lesson: dc.DecoderLesson) -> list[int]:
    """Where the last word (as the model reads it) appeared before, latest first."""
    ids, t = lesson.run.ids, lesson.T - 1
    return [s for s in range(t - 1, -1, -1) if ids[s] == ids[t]]


# --------------------------------------------------------------------------- the opening and the input


def intro(decoder: dc.Decoder | None, training: dc.Training | None) -> str:
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
    learned = training is not None and training.formed_at(dc.INDUCTION_THRESHOLD) is not None
    return (
        "Everything real on the other pages is an encoder, which looks both ways. This page runs a small "
        f"**decoder** we trained ourselves for this app: an{kind} model with {decoder.n_layers} layers of "
        f"{decoder.n_heads} causal heads (each word sees only itself and the words before it), a vocabulary of "
        f"{n_words(decoder)} common English words, and the same sinusoidal positions as Step by step.{parts} "
        "It was trained to guess the next word in random word sequences where a stretch repeats"
        + (
            ", and it learned the famous trick for that: an **induction head**."
            if learned
            else "; the trick for that is an **induction head**."
        )
    )


def missing(problem: str | None) -> str:
    return f"The decoder is not available: {md_escape(problem or 'unknown error')} The other pages keep working."


def carried_note(decoder: dc.Decoder) -> str:
    return (
        f"These are the words of your sentence from another page. The model knows only its {n_words(decoder)} "
        "words, in lower case: any other word or mark is read as <unk>, and the note below names them."
    )


def empty(reader: Reader) -> str:
    return f"Type some words above (the box is empty), or press {random_button(reader)}."


def truncated(decoder: dc.Decoder) -> str:
    return f"The model was trained on {decoder.max_tokens} words at most; only the first {dc.MAX_TOKENS} are used."


def unknown_words(lesson: dc.DecoderLesson, shown: int = 20) -> str:
    """The words read as <unk>, escaped (the user's own text), the first ``shown`` of them."""
    names = ", ".join(f"“{md_escape(w)}”" for w in lesson.unknown[:shown])
    more = f" and {len(lesson.unknown) - shown} more" if len(lesson.unknown) > shown else ""
    return (
        f"Not in the model's vocabulary, so read as <unk>: {names}{more}. Capitals do not matter; punctuation "
        "and other words become <unk>."
    )


# --------------------------------------------------------------------------- 1. your words


def repeat_text(lesson: dc.DecoderLesson, reader: Reader) -> str:
    """Whether (and from where) the words repeat their start."""
    if lesson.period is None:
        return (
            "These words do not repeat a stretch from the start, so there is nothing for an induction head to "
            f"copy. Press {random_button(reader)} to see one at work."
        )
    return (
        f"From word {lesson.period} on, the words repeat the sequence from the start (period "
        f"{lesson.period}). A model that has learned to copy can predict every repeated word."
    )


# --------------------------------------------------------------------------- 2. every head

GRID_TEXT = (
    "Each small square is one head's attention matrix: row i is word i looking back. Everything above the "
    "diagonal is exactly zero, because the causal mask gives those scores −∞ before the softmax."
)
HIDDEN = "Hidden until you reveal your prediction{} (Predict first is on): {}"
NO_QUESTION = "Predict first has no question here for these words: {}."


def grid_title(decoder: dc.Decoder) -> str:
    return f"All {decoder.n_layers * decoder.n_heads} heads: layers (rows) × heads (columns)"


def above_diagonal(lesson: dc.DecoderLesson) -> str:
    return f"Largest weight above the diagonal in any head: {lesson.max_above_diagonal:g}."


def hidden_square(layer: int, head: int) -> str:
    """Where the grid hides the asked head (0-based layer and head)."""
    return HIDDEN.format(" in section 3", f"the grey square, {nb.head_label(layer, head)}.")


HIDDEN_HEAD = HIDDEN.format(" in section 3", "this is the head the question asks about.")


# --------------------------------------------------------------------------- 3. the two kinds of head

KINDS_TEXT = (
    "A **previous-token head** sends each word's attention to the word just before it. It copies "
    "“which word came before me” into each position's vector. An **induction head** in the next layer "
    "uses that: its query is the current word, and its keys now say “the word before me was …”, so the "
    "current word matches the position *right after* its own earlier occurrence. The head copies the "
    "word it finds there, and that is the prediction: after “… cat sat … cat”, guess “sat”. Neither "
    "head can do this alone; it works because the second layer reads what the first layer wrote."
)
PREVIOUS_TITLE = "Previous-token score: mean weight on the word before"


def induction_title(period: int) -> str:
    return f"Induction score: mean weight on the word after the earlier copy (period {period})"


def previous_caption(scores: np.ndarray) -> str:
    """The strongest previous-token head, scores (L, H)."""
    layer, head, value = best(scores)
    return f"On these words the strongest previous-token head is {nb.head_label(layer, head)} ({value:.2f})."


def induction_caption(scores: np.ndarray) -> str:
    """The strongest induction head, scores (L, H)."""
    layer, head, value = best(scores)
    return (
        f"On these words the strongest induction head is {nb.head_label(layer, head)}: in the repeated part, "
        f"each word puts on average {value:.2f} of its attention on the word that followed its earlier copy."
    )


def no_induction(reader: Reader) -> str:
    return f"The induction score needs words that repeat; press {random_button(reader)}."


def no_look_question() -> str:
    return NO_QUESTION.format(f"it needs two words, and one word the head prefers by {TIE:g} or more")


def look_question(lesson: dc.DecoderLesson, labels: list[str]) -> tuple[Question, int, int] | None:
    """Section 3: which word does the last word give the most weight in the strongest induction head
    (the strongest previous-token head when the words do not repeat)? With the question, its head
    (layer, head), 0-based. None for one word, or when the top two weights are within TIE."""
    kind = "induction" if lesson.induction is not None else "previous-token"
    scores = lesson.induction if lesson.induction is not None else lesson.previous_token
    if scores is None:
        return None
    layer, head, _ = best(scores)
    t = lesson.T - 1
    row = lesson.run.attentions[layer, head, t]  # (T,)
    first, second = np.sort(row)[::-1][:2]
    if first - second < TIE:
        return None
    answer, copies = int(np.argmax(row)), earlier_copies(lesson)
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
    question = Question(
        key="dec_quiz_look",
        prompt=f"{head_title(layer, head)} is the strongest {kind} head on these words. Which word does the "
        f"last word, “{labels[t]}” (position {t}), give the most weight?",
        options=tuple(f"{n}: {labels[n]}" for n in positions),
        answer=positions.index(answer),
        value=float(first),
        value_label="its weight",
        explain=explain,
    )
    return question, layer, head


# --------------------------------------------------------------------------- 4. guesses and loss

LOSS_TITLE = "Loss at each position: −ln p(the actual next word)"
HIDDEN_GUESSES = "hidden until you reveal your prediction"


def no_next_question() -> str:
    return NO_QUESTION.format(f"its top two guesses after the last word are within {TIE:g} of each other")


def next_question(lesson: dc.DecoderLesson, labels: list[str]) -> Question | None:
    """Section 4: the model's top guess for the word after the last one, among its other top guesses
    and the word that followed the last word's earlier copy. None when the top two are within TIE."""
    t = lesson.T - 1
    words, probs = lesson.top_words[t], lesson.top_probs[t]
    if len(probs) > 1 and probs[0] - probs[1] < TIE:
        return None
    copies = earlier_copies(lesson)
    copied = lesson.run.tokens[copies[0] + 1] if copies else None  # what followed it last time
    options = sorted(set(words) | ({copied} if copied else set()))
    if copied is None:
        explain = f"“{lesson.run.tokens[t]}” has not come before, so there is no earlier copy to follow."
    elif copied == words[0]:
        explain = f"Last time “{lesson.run.tokens[t]}” was followed by “{copied}”, and the model copies that."
    else:
        explain = f"Last time “{lesson.run.tokens[t]}” was followed by “{copied}”, but the model does not copy it here."
    return Question(
        key="dec_quiz_next",
        prompt=f"What does the model guess comes after the last word, “{labels[t]}”, and how sure is it?",
        options=tuple(options),
        answer=options.index(words[0]),
        value=float(probs[0]),
        value_label="the probability of its top guess",
        explain=explain,
    )


def loss_positions(lesson: dc.DecoderLesson) -> list[str]:
    """The loss chart's bars: the position and the word each one guesses."""
    return [f"{t + 1}:{lesson.words[t + 1]}" for t in range(lesson.T - 1)]


def loss_text(lesson: dc.DecoderLesson) -> str:
    """The mean loss before and in the repeat, and the top guess's accuracy there ("" without a repeat)."""
    if lesson.period is None or lesson.loss_repeat is None:
        return ""
    return (
        f"Before the repeat (positions 1–{lesson.period}) the model can only guess, with a mean loss of "
        f"{lesson.loss_first:.2f}. In the repeated part the mean loss is {lesson.loss_repeat:.2f} and the "
        f"top guess is right {lesson.accuracy_repeat:.0%} of the time: the model learns from the text "
        "in front of it, without any change to its weights (in-context learning)."
    )


def guess_rows(lesson: dc.DecoderLesson, labels: list[str], hide_last: bool) -> list[dict[str, object]]:
    """The table of guesses: each word, the actual next word, the top 5 guesses and the loss."""
    T, rows = lesson.T, []
    for t in range(T):
        guesses = "  ".join(f"{w} {p:.2f}" for w, p in zip(lesson.top_words[t], lesson.top_probs[t], strict=True))
        rows.append(
            {
                "position": t,
                "word": labels[t],
                "actual next": lesson.words[t + 1] if t + 1 < T else "—",
                "top 5 guesses (probability)": HIDDEN_GUESSES if hide_last and t == T - 1 else guesses,
                "loss": f"{lesson.loss[t]:.2f}" if t + 1 < T else "—",
            }
        )
    return rows


def kv_cache_text(decoder: dc.Decoder, T: int) -> str:
    """Generating with a KV cache, costed for this decoder's sizes: what one new word's step costs in
    attention, and how large the cache is after ``T`` words and at the most the model reads."""
    L, H, d_k, d_v, T_max = decoder.n_layers, decoder.n_heads, decoder.d_k, decoder.d_v, decoder.max_tokens
    per_word = L * H * (d_k + d_v)  # numbers cached per word: a key and a value per head and layer
    step = per_word * T  # a new word's query against T keys, then T values mixed: per head and layer
    at_max = per_word * T_max
    recompute = per_word * T * (T + 1) // 2  # every word's causal row again: 1 + 2 + ... + T keys per head
    return (
        "**Generating text.** To write, the model guesses a word, appends it and runs again, one word at a "
        "time. It need not recompute the earlier words: their keys and values were computed when they were "
        "read and are kept, the **KV cache**. The new word's query is compared with every cached key (its "
        "own included) and mixes the cached values, and no mask is needed: the words after it do not "
        f"exist yet. So a step costs about T·d multiply-adds in attention: here {L} layers × {H} heads × "
        f"(d_k + d_v = {d_k + d_v}) × T = {per_word:,}·T, which is {step:,} at your T = {T} (the new word's "
        "own projections come on top, the same at every T). Without the cache each step would redo every "
        f"earlier word as well: {per_word:,}·T(T + 1)/2 = {recompute:,} at your T. The cache grows "
        f"like T, by {per_word:,} numbers for each word: {step:,} for your {T} words, {at_max:,} "
        f"({at_max * BYTES_PER_NUMBER / 1024:g} KB in float32) at the {T_max} words this model reads."
    )


# --------------------------------------------------------------------------- 5. training


def learning_text(training: dc.Training, n_words: int) -> str:
    """What the training record shows, every number read from training.json; ``n_words`` is the
    vocabulary the held-out words are drawn from (<unk> left out)."""
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
        steps, loss, first, best_ = training.steps, training.loss_repeat, training.loss_first, training.best_induction
        text += (
            f" The loss on the repeated words fell fastest between steps {steps[drop]} and {steps[drop + 1]}, "
            f"from {loss[drop]:.2f} to {loss[drop + 1]:.2f}"
        )
        if drop == rise:
            text += (
                f", in the same stretch where the best induction score rose the most, from {best_[rise]:.2f} to "
                f"{best_[rise + 1]:.2f}. Meanwhile the loss on the words before the repeat went from "
                f"{first[drop]:.2f} to {first[drop + 1]:.2f}."
            )
        else:
            text += (
                f"; the best induction score rose the most between steps {steps[rise]} and {steps[rise + 1]}, "
                f"from {best_[rise]:.2f} to {best_[rise + 1]:.2f}."
            )
    if np.isfinite(training.loss_first).any():
        text += " " + even_guess_text(training, n_words)
    return (
        f"{text} At the end the best head scores {training.best_induction[-1]:.2f} and the repeat accuracy is "
        f"{training.repeat_accuracy[-1]:.2f} on held-out sequences with period {training.period}."
    )


def even_guess_text(training: dc.Training, n_words: int) -> str:
    """The words before the repeat are drawn at random: no model can expect to beat an even guess
    there, ln n_words; how close the model came (its lowest held-out loss there, and at which step)."""
    even = math.log(n_words)
    k = int(np.nanargmin(training.loss_first))
    lowest, step = float(training.loss_first[k]), int(training.steps[k])
    said = (
        f"The words before the repeat are drawn at random, each of the {n_words} words equally likely, so "
        f"on average nothing can beat an even guess there: it scores ln {n_words} = {even:.2f} nats per word, "
        "and a better score would need a pattern where there is none."
    )
    if lowest >= even:
        return (
            f"{said} The model stays slightly worse: its lowest loss there was {lowest:.2f} (at step {step}), "
            f"{lowest - even:.2f} above the even guess."
        )
    return (
        f"{said} Its lowest loss there, {lowest:.2f} at step {step}, is {even - lowest:.2f} below ln {n_words}: "
        "on a finite held-out batch that is luck, not skill."
    )


# --------------------------------------------------------------------------- what it showed


def footer_lines(decoder: dc.Decoder, lesson: dc.DecoderLesson, reader: Reader) -> list[str]:
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
            f"{random_button(reader)} makes words that do."
        )
    if lesson.induction is not None:
        layer, head, value = best(lesson.induction)
        lines.append(f"The strongest induction head on these words is {nb.head_label(layer, head)} ({value:.2f}).")
    return lines
