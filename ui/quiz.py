"""Predict, then reveal: a question made from the page's current numbers, the student's
guess, the answer once they ask for it, and a running score for the session.

Questions are built by the pages from the engine's result (never typed-in answers); a new
question (another sentence, row or setting) hides the answer again. Whoever runs the page can
give the quiz a backend that asks first (``asked_by``): in a class, ui.class_mode gives it the
class's poll, so the same call asks the whole class (the teacher's screen shows the answers
coming in and reveals them, each student sends an answer). This module knows nothing of
class mode.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import streamlit as st

from ui.common import PICK_PLACEHOLDER, md_escape
from ui.question import Question

__all__ = ["Backend", "Outcome", "Question", "ask", "asked_by", "judge", "revealed", "score_line"]

SCORE_KEY = "quiz_score"  # {"asked", "right", "error"} for the whole session, every page


@dataclass(frozen=True)
class Outcome:
    """What the student predicted and how it compares with the answer."""

    picked: int
    estimate: float | None
    right: bool
    error: float | None  # |estimate - value|


class Backend(Protocol):
    """Another way to ask a question (class mode's poll). Each method returns None for a
    question it does not take; the quiz then asks it itself."""

    def ask(self, q: Question) -> bool | None:
        """Draw ``q``; whether its answer is shown."""
        ...

    def revealed(self, q: Question) -> bool | None:
        """Whether the answer to ``q`` is shown."""
        ...


_BACKEND: contextvars.ContextVar[Backend | None] = contextvars.ContextVar("quiz_backend", default=None)


@contextlib.contextmanager
def asked_by(backend: Backend) -> Iterator[None]:
    """Questions asked while the block runs (a page's run) go to ``backend`` first, and the
    session's own score line is left out."""
    token = _BACKEND.set(backend)
    try:
        yield
    finally:
        _BACKEND.reset(token)


def _score() -> dict:
    return st.session_state.setdefault(SCORE_KEY, {"asked": 0, "right": 0, "error": 0.0, "estimated": 0})


def _reveal(q: Question) -> None:
    picked = st.session_state.get(f"{q.key}_pick")
    if picked not in range(len(q.options)):  # no pick yet: the button is disabled, so only a forged click
        return
    st.session_state[f"{q.key}_revealed"] = q.signature
    outcome = judge(q, picked, st.session_state.get(f"{q.key}_estimate"))
    score = _score()
    score["asked"] += 1
    score["right"] += int(outcome.right)
    if outcome.error is not None:
        score["estimated"] += 1
        score["error"] += outcome.error


def judge(q: Question, picked: int, estimate: float | None) -> Outcome:
    """Compare a prediction with the question's answer."""
    error = None if q.value is None or estimate is None else abs(float(estimate) - q.value)
    return Outcome(picked=int(picked), estimate=estimate, right=int(picked) == q.answer, error=error)


def revealed(q: Question) -> bool:
    if (backend := _BACKEND.get()) is not None and (shown := backend.revealed(q)) is not None:
        return shown
    return st.session_state.get(f"{q.key}_revealed") == q.signature


def ask(q: Question) -> bool:
    """Draw the question, the guess widgets and the Reveal button; after a reveal, the answer
    and how close the guess was. Returns whether the answer is shown."""
    if (backend := _BACKEND.get()) is not None and (shown := backend.ask(q)) is not None:
        return shown
    st.markdown(f"**Predict first.** {md_escape(q.prompt)}")
    pick_key, est_key = f"{q.key}_pick", f"{q.key}_estimate"
    if st.session_state.get(pick_key) not in range(len(q.options)):
        st.session_state[pick_key] = None  # no pick made for the student: option 0 is sometimes the answer
    st.session_state.setdefault(est_key, 0.5)
    shown = revealed(q)
    cols = st.columns([3, 2, 1], vertical_alignment="bottom")
    picked = cols[0].selectbox(
        "Your pick",
        range(len(q.options)),
        index=None,
        placeholder=PICK_PLACEHOLDER,
        format_func=lambda n: q.options[n],
        key=pick_key,
        disabled=shown,
    )
    estimate = None
    if q.value is not None:
        estimate = cols[1].slider(f"Your estimate of {q.value_label}", 0.0, 1.0, step=0.05, key=est_key, disabled=shown)
    cols[2].button(
        "Reveal",
        key=f"{q.key}_reveal",
        on_click=_reveal,
        args=(q,),
        disabled=shown or picked is None,
        help=None if shown or picked is not None else "Pick an answer first.",
        type="primary",
        width="stretch",
    )
    if shown and picked is not None:
        outcome = judge(q, picked, estimate)
        answer = f"The answer: {md_escape(q.options[q.answer])}"
        if q.value is not None:
            answer += f", with {md_escape(q.value_label)} = {q.value:.3f}"
        verdict = "Your pick was right." if outcome.right else f"You picked {md_escape(q.options[picked])}."
        if outcome.error is not None:
            verdict += f" Your estimate {estimate:.2f} was off by {outcome.error:.3f}."
        (st.success if outcome.right else st.info)(f"{answer}. {verdict} {md_escape(q.explain)}".strip())
    return shown


def score_line() -> None:
    """The session's running score: each page that asks shows it once, after its questions."""
    score = _score()
    if not score["asked"] or _BACKEND.get() is not None:
        return
    text = f"Your predictions this session: {score['right']} of {score['asked']} right"
    if score["estimated"]:
        text += f", estimates off by {score['error'] / score['estimated']:.3f} on average"
    st.caption(text + ".")
