"""How this page writes numbers and quoted text."""

from __future__ import annotations

from attn_core.tables import number
from ui.markup import md_escape

# --------------------------------------------------------------------------- number formats


def n3(value: float, digits: int = 3) -> str:
    """This page's numbers take three decimals."""
    return number(value, digits)


def tiny(value: float) -> str:
    """A difference that should be (about) 0: "0" when exactly 0, else scientific."""
    return "0" if value == 0 else f"{value:.1e}".replace("-", "−")


def big(n: int) -> str:
    return f"{int(n):,}"


def quoted(text: str) -> str:
    return f"“{md_escape(text)}”"


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}"
