"""How this page writes numbers and vectors, in text and in LaTeX."""

from __future__ import annotations

import numpy as np

from attn_core.tables import number
from attn_core.walkthrough import latex_num
from ui.reader import Reader

# --------------------------------------------------------------------------- number formats


def g(value: float) -> str:
    """A number as typed (shortest form), with a real minus sign."""
    return f"{value:.4g}".replace("-", "−")


def vec(values: np.ndarray | tuple[float, ...]) -> str:
    return "[" + ", ".join(g(v) for v in values) + "]"


def _lg(value: float) -> str:
    """A number for LaTeX, shortest form."""
    return f"{value:.4g}"


def _factor(value: float) -> str:
    text = _lg(value)
    return f"({text})" if text.startswith("-") else text


def _paren(value: float, digits: int = 3) -> str:
    text = latex_num(value, digits)
    return f"({text})" if text.startswith("-") else text


def _signed_sum(values: np.ndarray) -> str:
    """'0.15 - 0.12 - 0.16' in LaTeX."""
    out = _lg(values[0])
    for v in values[1:]:
        out += f" - {_lg(-v)}" if v < 0 else f" + {_lg(v)}"
    return out


def _gap(value: float) -> str:
    """A difference that should be 0, for LaTeX: "0" when it is exactly 0."""
    return "0" if value == 0 else latex_num(value, 2)


def n3(value: float, digits: int = 3) -> str:
    return number(value, digits)


def _above(reader: Reader) -> str:
    """Where a section's charts are from its text: above on a projector (the text goes below them)."""
    return "above" if reader.presenting else "below"
