"""How Step by step's sentences write tokens and numbers: shortened, quoted, in scientific notation."""

from __future__ import annotations

from collections.abc import Callable

from lessons.step_by_step.words.calls import OPTION_CHARS
from ui.markup import md_escape

# --------------------------------------------------------------------------- small helpers


def short(token: str) -> str:
    return token if len(token) <= OPTION_CHARS else token[: OPTION_CHARS - 1] + "…"


def option(tokens: tuple[str, ...]) -> Callable[[int], str]:
    """Selectbox labels like '3: sat', so repeated words differ by their index."""
    return lambda n: f"{n}: {short(tokens[n])}"


def quoted(token: str) -> str:
    """A token in a sentence: shortened, escaped, in quotes."""
    return f"“{md_escape(short(token))}”"


def quoted_full(token: str) -> str:
    """A token in a sentence in full, escaped, in quotes."""
    return f"“{md_escape(token)}”"


def sci(value: float) -> str:
    """A small number in scientific notation with a minus sign (U+2212), which a line does not break
    after as it does after a hyphen: "7.5e−08"."""
    return f"{value:.1e}".replace("-", "−")


def gap(value: float) -> str:
    """A difference that should be 0: "0", or its size in scientific notation (rounding)."""
    return "0" if value == 0 else sci(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
