"""A page's settings in the address bar, so a teacher can share exactly what is on screen.

Each page declares its URL parameters once (name, default, allowed values). On a session's
first run of the page, the widgets start from the URL: every value is validated and clamped
into range, and anything unreadable gives the default. After the widgets are drawn the page
writes its settings back, leaving out every value that equals its default so links stay
short. Parameters the page does not own (``present``, another page's) are left alone.

A page's sentence (a Param with ``shared=True``) also carries to the other pages: see
ui.sentence for how it and a link's own sentence interact.

Streamlit's own ``bind="query-params"`` resets an out-of-range value to the default instead
of clamping it, and names the parameter after the widget key; this module clamps, and keeps
the widget keys page-prefixed while the URL names stay short.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui import sentence

# Set to a new value when something outside the page replaced this session's URL (a class's
# teacher, ui.class_mode.follow): every page then reads its widgets from the URL again.
OUTSIDE_KEY = "url_replaced"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class Param:
    """One URL parameter: its name, its default, and what values it may take.

    kind: "int" and "float" are clamped into [lo, hi]; "choice" must be one of ``choices``
    (a number is moved to the nearest choice); "bool" reads 1/0, true/false, yes/no, on/off;
    "text" is cut to ``max_chars``; "ints" is a comma-separated list of ints in [lo, hi]
    (a multiselect); "index" is an int >= 0 or none (a token picked later, clamped by the page).
    """

    name: str
    default: Any
    kind: str = "int"
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    max_chars: int = 2000
    step: float | None = None  # a "float" is moved to the nearest multiple of step (from lo)
    allow_empty: bool = False  # "text": an empty value is a value (an optional second sentence)
    shared: bool = False  # "text": the page's sentence, carried across pages (ui.sentence)

    def parse(self, raw: str | None, *, keep_empty: bool = False) -> Any:
        """The value ``raw`` (from the URL) stands for, or the default. A blank text gives the
        default (a link with ``text=`` opens on the example) unless the parameter allows an empty
        value or ``keep_empty`` (a teacher's address, followed exactly)."""
        if raw is None:
            return self.default
        raw = str(raw)
        try:
            return self._parse(raw.strip() if self.kind != "text" else raw, keep_empty)
        except (TypeError, ValueError, OverflowError):
            return self.default

    def _parse(self, raw: str, keep_empty: bool = False) -> Any:
        if self.kind == "text":
            return raw[: self.max_chars] if raw.strip() or self.allow_empty or keep_empty else self.default
        if self.kind == "bool":
            low = raw.lower()
            return True if low in _TRUE else False if low in _FALSE else self.default
        if self.kind == "int":
            return int(self._clamp(int(raw)))
        if self.kind == "float":
            value = float(raw)
            if not math.isfinite(value):
                return self.default
            if self.step:
                base = self.lo or 0.0
                value = base + round((value - base) / self.step) * self.step
            return float(self._clamp(value))
        if self.kind == "choice":
            if raw in map(str, self.choices):
                return next(c for c in self.choices if str(c) == raw)
            value = float(raw)  # a number between the choices: the nearest one
            numeric = [c for c in self.choices if isinstance(c, int | float)]
            if not numeric or not math.isfinite(value):
                return self.default
            return min(numeric, key=lambda c: abs(c - value))
        if self.kind == "ints":
            values = sorted({int(self._clamp(int(v))) for v in raw.split(",") if v.strip()})
            return values
        if self.kind == "index":
            if raw.lower() in ("", "none", "all"):
                return None
            return max(0, int(raw))
        raise ValueError(f"unknown Param kind {self.kind!r}")

    def _clamp(self, value: float) -> float:
        if self.lo is not None:
            value = max(value, self.lo)
        if self.hi is not None:
            value = min(value, self.hi)
        return value

    def encode(self, value: Any) -> str | None:
        """The value as the URL writes it; None when it equals the default (left out)."""
        if value == self.default:
            return None
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "ints":
            return ",".join(str(v) for v in value)
        if self.kind == "index":
            return "none" if value is None else str(int(value))
        if self.kind == "float" or isinstance(value, float):
            return f"{float(value):g}"
        return str(value)


@dataclass(frozen=True)
class PageState:
    """The URL parameters of one page; widget keys are ``<prefix>_<name>``."""

    prefix: str
    params: tuple[Param, ...]

    def key(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def start(self) -> None:
        """Give every widget its starting value from the URL, once per session and page visit
        (a widget that was drawn in the previous run keeps what the student set), and again
        after the URL was replaced from outside (OUTSIDE_KEY)."""
        outside, seen = st.session_state.get(OUTSIDE_KEY), self.key("_url_replaced")
        again = outside is not None and st.session_state.get(seen) != outside
        if again:
            st.session_state[seen] = outside
        for p in self.params:
            key = self.key(p.name)
            if again or key not in st.session_state:
                raw = first_value(st.query_params.get_all(p.name))
                if again:  # a teacher's URL is followed exactly: the sentence, and an empty box too
                    st.session_state[key] = p.parse(raw, keep_empty=True)
                elif p.shared:
                    st.session_state[key] = sentence.start(key, p.parse, raw, p.default)
                else:
                    st.session_state[key] = p.parse(raw)

    def value(self, name: str) -> Any:
        return st.session_state.get(self.key(name), self.param(name).default)

    def sync(self, values: dict[str, Any] | None = None) -> None:
        """Write the page's settings into the address bar (only those that differ from their
        defaults). ``values`` overrides what session_state holds (a value the page clamped)."""
        values = values or {}
        for p in self.params:
            value = values.get(p.name, self.value(p.name))
            if p.shared:
                sentence.publish(self.key(p.name), value)
            wanted = p.encode(value)
            current = first_value(st.query_params.get_all(p.name))
            if wanted is None and p.name in st.query_params:
                del st.query_params[p.name]
            elif wanted is not None and current != wanted:
                st.query_params[p.name] = wanted


def first_value(values: Sequence[str]) -> str | None:
    """The first value of a repeated URL parameter, or None when it is absent."""
    return values[0] if values else None


def clamp_index(value: int | None, n: int, default: int | None = 0) -> int | None:
    """A token index picked from the URL or earlier, kept inside 0..n-1. None ("none", "all"
    or nothing in a link) gives ``default``: None where the picker allows "all tokens", a
    token where it must name one."""
    if value is None:
        return default
    if n <= 0:
        return default
    return min(max(int(value), 0), n - 1)
