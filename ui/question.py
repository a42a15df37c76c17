"""A predict-first question, as plain data (no Streamlit), so a lesson's words module can build
it from the engine's numbers and a unit test can check its answer. ui.quiz asks it; in a class,
class mode turns it into the class's poll (ui.class_mode.backend), under the same signature."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    """One prediction: pick the right option (and, optionally, estimate a value in [0, 1])."""

    key: str  # widget-key prefix
    prompt: str  # the question (escaped here)
    options: tuple[str, ...]  # what the student picks from
    answer: int  # index of the right option
    value: float | None = None  # the number to estimate, e.g. the winning weight
    value_label: str = "its weight"
    explain: str = ""  # a sentence shown with the answer (escaped here)

    @property
    def signature(self) -> str:
        """16 hex digits that name this exact question (another sentence, row or setting gives
        another one): the quiz keeps a reveal under it, and a class stores its answers under it."""
        value = None if self.value is None else round(float(self.value), 9)
        raw = repr((self.key, self.prompt, tuple(self.options), int(self.answer), value))
        return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()
