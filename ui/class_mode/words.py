"""The sentences class mode shows on every page, as plain functions of the room's numbers (no
Streamlit): the banner, the poll's count and bars, the answer and a student's verdict.

Every text that comes from outside (a question's prompt, options and explanation, a section's
title, an error message) is escaped here for markdown (ui.markup.md_escape); room codes are
capitals and digits only.
"""

from __future__ import annotations

from classroom import PollQuestion, Tally
from ui.markup import md_escape

YOUR_TEACHER_ASKS = "Your teacher asks:"
NO_ANSWERS = "No answers yet."
PICK_FIRST = "Pick an answer first, then Send."


# --------------------------------------------------------------------------- the banner


def teaching(code: str, following: int) -> str:
    return f"Teaching class **{code}**: {following} following now."


def following(code: str, section: str = "") -> str:
    """A student following: the class, and the teacher's section when the teacher presents."""
    return f"**Following class {code}**" + (f" · {md_escape(section)}" if section else "")


def alone(code: str) -> str:
    return f"**Class {code}:** you are exploring alone."


def paused(reason: str) -> str:
    return f"{md_escape(reason)} The class is paused; this page works on its own."


def closed(code: str, idle_s: float) -> str:
    """The teacher's notice when the room is gone (plain text)."""
    hours = idle_s / 3600
    idle = f"{hours:g} hour{'' if hours == 1 else 's'}"
    return f"Class {code} has closed ({idle} without activity, or it was ended)."


def ended(code: str) -> str:
    """A student's notice when the room is gone (plain text)."""
    return f"Class {code} has ended."


# --------------------------------------------------------------------------- the poll


def prompt(q: PollQuestion) -> str:
    return f"**Predict first.** {md_escape(q.prompt)}"


def answered(tally: Tally, *, revealed: bool = False) -> str:
    """The count "N of M answered" (bold); after the reveal it names the class."""
    return f"**{'The class: ' if revealed else ''}{tally.answered} of {tally.following} answered**"


def picks(count: int) -> str:
    return f"{count} {'pick' if count == 1 else 'picks'}"


def option_label(q: PollQuestion, option: int, revealed: bool) -> str:
    """An option's text; once revealed, the right one is marked."""
    text = md_escape(q.options[option])
    return f"✓ {text} (the answer)" if revealed and option == q.answer else text


def bars(q: PollQuestion, tally: Tally, revealed: bool) -> list[tuple[str, float]]:
    """The poll's bars, in option order: one per option that was picked (and, once revealed,
    the right one), each ("label: N picks", its length as a share of the longest bar)."""
    top = max(max(tally.counts, default=0), 1)
    return [
        (f"{option_label(q, n, revealed)}: {picks(count)}", count / top)
        for n, count in enumerate(tally.counts)
        if count or (revealed and n == q.answer)
    ]


def mean_estimate(q: PollQuestion, tally: Tally) -> str:
    """The class's mean estimate, or "" when nobody estimated (or the question asks for none)."""
    if tally.mean_estimate is None or q.value is None:
        return ""
    return f"Mean estimate of {md_escape(q.value_label)}: {tally.mean_estimate:.2f}."


def answer_line(q: PollQuestion) -> str:
    text = f"The answer: {md_escape(q.options[q.answer])}"
    if q.value is not None:
        text += f", with {md_escape(q.value_label)} = {q.value:.3f}"
    return f"{text}. {md_escape(q.explain)}".strip()


def verdict(q: PollQuestion, mine: tuple[int, float | None]) -> str:
    """A student's own pick against the answer (and their estimate against the value)."""
    picked, estimate = mine
    text = "Your pick was right." if picked == q.answer else f"You picked {md_escape(q.options[picked])}."
    if estimate is not None and q.value is not None:
        text += f" Your estimate {estimate:.2f} was off by {abs(estimate - q.value):.3f}."
    return text


def sent(q: PollQuestion, mine: tuple[int, float | None]) -> str:
    """What a student sent, before the reveal."""
    picked, estimate = mine
    text = f"Sent: {md_escape(q.options[picked])}"
    if estimate is not None:
        text += f", estimate {estimate:.2f}"
    return f"{text}. You can change it until your teacher reveals the answers."
