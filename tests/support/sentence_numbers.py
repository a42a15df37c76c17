"""Numbers read back out of the sentences and formulas a words module builds, so that a property
test compares what a sentence states with what it recomputes (never with a copy of the wording)."""

from __future__ import annotations

import re

# 1,234 · −0.25 · 3.0e-05 · 2.0 \times 10^{-15} · 1.23\times10^{-5} · 2{,}048 (LaTeX thousands)
_NUMBER = re.compile(
    r"(?<![\w.])[-−]?\d+(?:(?:,|\{,\})\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?:\s*\\times\s*10\^\{[-−]?\d+\})?"
)


def _value(text: str) -> float:
    text = text.replace("−", "-").replace("{,}", "").replace(",", "")
    if "\\times" in text:
        mantissa, exponent = text.split("\\times")
        return float(mantissa) * 10.0 ** int(re.search(r"\{(-?\d+)\}", exponent).group(1))
    return float(text)


def numbers(text: str) -> list[float]:
    """Every number in ``text``, in order (a real minus sign, thousands separators and LaTeX's
    scientific notation understood)."""
    text = re.sub(r"\\times(?!\s*10\^)", " × ", text)  # 7\times16: a shape, not scientific notation
    return [_value(m.group(0)) for m in _NUMBER.finditer(text)]


def after(text: str, prefix: str) -> float:
    """The first number that follows ``prefix`` in ``text`` (an AssertionError names what is missing)."""
    at = text.find(prefix)
    assert at >= 0, f"{prefix!r} is not in {text!r}"
    found = numbers(text[at + len(prefix) :])
    assert found, f"no number after {prefix!r} in {text!r}"
    return found[0]
