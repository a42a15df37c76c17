"""Where "it" looks, the predict-first questions about it, and what the page showed (its footer)."""

from __future__ import annotations

import numpy as np

from attn_core import numbering as nb
from attn_core import views
from lessons.real_model.words.calls import share_name, title
from ui.it_words import it_numbers
from ui.question import Question
from ui.reader import Reader

# --------------------------------------------------------------------------- "it", and predicting first

PREDICT = "**Predict first: where does “it” look?** Each sentence on its own."
PREDICT_HELP = "Guess where “it” looks in the two animal sentences before the model shows it."


def it_caption(rows: dict[str, dict], layer: int, head: int, reader: Reader) -> str:
    """The suggestion for the animal pair (layer and head 0-based), stated from the model's own numbers."""
    where = f" (the examples{reader.in_sidebar})" if reader.presenting else ""
    return (
        f"Try the animal sentences{where} one at a time, focus on “it” and look at "
        f"{nb.head_label(layer, head)}: " + it_numbers(rows)
    )


def it_hidden(layer: int, head: int) -> str:
    return (
        f"Try {nb.head_label(layer, head)} for “it”; its numbers stay hidden until you have revealed your predictions."
    )


def waits(layer: int, head: int) -> str:
    """The view's place while a prediction about the head it draws is still to be revealed."""
    return (
        "This view waits until you have revealed your predictions: it would show the weights of "
        f"{nb.head_label(layer, head)}, the head the questions ask about."
    )


def it_questions(rows: dict[str, dict], sentences: dict[str, str], layer: int, head: int) -> list[Question]:
    """Predict, then reveal: where does "it" look in each animal sentence (``sentences``, by the
    labels of ``rows``), in this layer and head (0-based)? Made from the model's own attention rows."""
    return [
        Question(
            key=f"rm_quiz_{label}",
            prompt=f"{title(nb.head_label(layer, head))}. In “{text}”, which token does “it” give the most weight?",
            options=tuple(f"{n}: {t}" for n, t in enumerate(rows[label]["tokens"])),
            answer=int(np.argmax(rows[label]["row"])),
            value=float(np.max(rows[label]["row"])),
            value_label="its weight",
        )
        for label, text in sentences.items()
    ]


# --------------------------------------------------------------------------- what it showed

CHANGED = 0.05  # the last word "changes where the head looks" when "animal"'s weight moves this much


def footer_lines(
    n_layers: int, n_heads: int, T: int, lesson: views.ModelLesson, it: tuple[int, int, dict[str, dict]] | None
) -> list[str]:
    """The footer's lines, from the model's own numbers; ``it``: the head the page opens on (0-based
    layer and head) with its "it" rows, or None while the predictions about it are hidden."""
    lines = [
        f"{n_layers} layers of {n_heads} heads read your {T} tokens in {lesson.n_heads_total} patterns of their "
        f"own; {lesson.sinks_cls} of the heads put more than {share_name(views.SINK_SHARE)} of their attention on "
        "[CLS]."
    ]
    if it is not None:
        layer, head, rows = it
        tired, congested = rows["tired"]["animal"], rows["congested"]["animal"]
        lines.append(
            f"In {nb.head_label(layer, head)}, the head this page opens on, “it” gives “animal” {tired:.2f} of its "
            f"weight in the “tired” sentence and {congested:.2f} in the “congested” one: "
            + (
                "changing the last word changes where a trained head looks."
                if abs(tired - congested) >= CHANGED
                else "the last word hardly changes where this head looks."
            )
        )
    return lines
