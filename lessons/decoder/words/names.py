"""Names and labels: the model's word count, head titles, the charts' word labels, the random button,
and the strongest head and the last word's earlier copies.
"""

from __future__ import annotations

import numpy as np

from attn_core import numbering as nb
from attn_core import trained_decoder as dc
from ui.reader import Reader

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
