"""Section 5: how the decoder learned, from its training record; then what the page showed (its footer)."""

from __future__ import annotations

import math

import numpy as np

from attn_core import numbering as nb
from attn_core import trained_decoder as dc
from lessons.decoder.words.names import best, random_button
from ui.reader import Reader

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
