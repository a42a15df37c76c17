"""Section 4: the model's next-word guesses, their loss, the predict-first question on the next word,
and the KV cache.
"""

from __future__ import annotations

from attn_core import trained_decoder as dc
from lessons.decoder.words.calls import BYTES_PER_NUMBER, TIE
from lessons.decoder.words.heads import NO_QUESTION
from lessons.decoder.words.names import earlier_copies
from ui.question import Question

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
