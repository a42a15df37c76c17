"""What a class holds, as frozen values: the teacher's view, a poll question, a room's state,
a question's tally; and the two errors a caller handles (``RefusedError``, ``UnavailableError``)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

MAX_OPTIONS = 64  # Step by step asks about one of up to 64 tokens
MAX_QUESTIONS = 8  # questions in one poll (the Real model page asks two at once)
MAX_TEXT = 2000  # a prompt or an explanation
MAX_OPTION_TEXT = 200
MAX_PARAMS = 64
MAX_PARAM_TEXT = 6100  # the Real model page takes 6,000 characters per sentence
MAX_VIEW_BYTES = 256_000
SIGNATURE = re.compile(r"[0-9a-f]{16}")  # a question's signature: 16 hex digits (ui.question.Question.signature)


class RefusedError(ValueError):
    """A request the class does not accept (unknown code, a full room, an answer out of range):
    nothing changed, and ``str(err)`` says why in plain words."""


class UnavailableError(RuntimeError):
    """The class database cannot be used right now (missing, locked, unreachable, or newer than
    this app); ``str(err)`` says so in plain words."""


@dataclass(frozen=True)
class PollQuestion:
    """One predict-first question as the class sees it: pick an option (and maybe estimate a
    value in [0, 1]). The app makes it from its own question type, whose ``signature`` names
    this exact question (another sentence, row or setting gives another one): the room stores
    answers and reveals under it."""

    key: str  # which question of the page this is (the page's widget key, e.g. "sbs_quiz")
    signature: str
    prompt: str
    options: tuple[str, ...]
    answer: int  # index of the right option
    value: float | None = None
    value_label: str = ""
    explain: str = ""

    def __post_init__(self) -> None:
        if not SIGNATURE.fullmatch(self.signature):
            raise ValueError(f"a question's signature is 16 hex digits, got {self.signature[:40]!r}")
        if not 1 <= len(self.options) <= MAX_OPTIONS:
            raise ValueError(f"a question needs 1 to {MAX_OPTIONS} options, got {len(self.options)}")
        if not 0 <= self.answer < len(self.options):
            raise ValueError(f"answer {self.answer} is not an option index (0..{len(self.options) - 1})")
        if self.value is not None and not (math.isfinite(self.value) and 0.0 <= self.value <= 1.0):
            raise ValueError(f"the value to estimate must be in [0, 1], got {self.value}")
        texts = (self.key, self.prompt, self.value_label, self.explain)
        if any(len(t) > MAX_TEXT for t in texts) or any(len(o) > MAX_OPTION_TEXT for o in self.options):
            raise ValueError("a question's text is too long")

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "signature": self.signature,
            "prompt": self.prompt,
            "options": list(self.options),
            "answer": self.answer,
            "value": self.value,
            "value_label": self.value_label,
            "explain": self.explain,
        }

    @classmethod
    def from_dict(cls, data: dict) -> PollQuestion:
        return cls(**{**data, "options": tuple(data["options"])})


@dataclass(frozen=True)
class View:
    """What the teacher's screen shows: the page (its URL path, "" for Home), its settings (the
    URL's query parameters), the section's progress line, whether one section is shown at a time
    (presenter mode), and the predict-first questions asked there."""

    page: str = ""
    params: tuple[tuple[str, str], ...] = ()
    section: str = ""
    single: bool = False
    questions: tuple[PollQuestion, ...] = ()

    def __post_init__(self) -> None:
        if len(self.params) > MAX_PARAMS or any(len(k) > 100 or len(v) > MAX_PARAM_TEXT for k, v in self.params):
            raise ValueError("too many or too long settings")
        if len(self.page) > 200 or len(self.section) > MAX_TEXT:
            raise ValueError("page or section name too long")
        if len(self.questions) > MAX_QUESTIONS:
            raise ValueError(f"at most {MAX_QUESTIONS} questions at once")
        if len(set(self.signatures)) != len(self.questions):
            raise ValueError("two questions of one view have the same signature")

    def question(self, key: str) -> PollQuestion | None:
        return next((q for q in self.questions if q.key == key), None)

    @property
    def signatures(self) -> tuple[str, ...]:
        return tuple(q.signature for q in self.questions)

    def to_json(self) -> str:
        data = {
            "page": self.page,
            "params": [list(p) for p in self.params],
            "section": self.section,
            "single": self.single,
            "questions": [q.to_dict() for q in self.questions],
        }
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        if len(text.encode()) > MAX_VIEW_BYTES:
            raise ValueError("the view is too large to share")
        return text

    @classmethod
    def from_json(cls, text: str) -> View:
        if not text:
            return cls()
        data = json.loads(text)
        return cls(
            page=data["page"],
            params=tuple((str(k), str(v)) for k, v in data["params"]),
            section=data["section"],
            single=bool(data["single"]),
            questions=tuple(PollQuestion.from_dict(q) for q in data["questions"]),
        )


@dataclass(frozen=True)
class Teacher:
    """The teacher's hold on a room: its code, the key, and this tab's id (taking the room back
    from another tab or device gives a new one, and the old tab loses control)."""

    code: str
    key: str = field(repr=False)
    holder: str


@dataclass(frozen=True)
class RoomState:
    """A room as its followers see it, at one version."""

    code: str
    version: int
    view: View
    revealed: frozenset[str]  # signatures of the questions whose answers are revealed

    def question(self, key: str) -> PollQuestion | None:
        return self.view.question(key)

    def is_revealed(self, question: PollQuestion) -> bool:
        return question.signature in self.revealed


@dataclass(frozen=True)
class Tally:
    """One question's answers, counted: no student is named."""

    counts: tuple[int, ...]  # picks per option
    answered: int  # N: students who answered
    following: int  # M: students following now, or who answered
    mean_estimate: float | None  # over the answers that gave one
