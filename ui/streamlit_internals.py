"""Everything the app still takes from Streamlit beyond its public API, in one place.

Each workaround below says why no public way does the job, and has one fast test in
tests/unit/test_streamlit_internals.py. ``check_version`` runs when this module is imported:
on a Streamlit outside the range these were written and tested for, the app stops with a
clear message instead of failing silently (a wrong layout, a switch that does nothing).

Upgrading Streamlit: widen ``TESTED`` only after `make test` passes on the new release
(docs/architecture.md has the checklist).

CSS: the app's stylesheets (assets/*.css) select the app's own keyed containers
(``.st-key-…``) and documented classes; the ``data-testid`` rules that remain are listed here:
(none yet).
"""

from __future__ import annotations

from importlib import metadata

TESTED = ((1, 67), (1, 67))  # the (major, minor) releases these workarounds were tested on, inclusive


def _version(text: str) -> tuple[int, int]:
    major, minor, *_ = (int("".join(ch for ch in part if ch.isdigit()) or 0) for part in text.split("."))
    return major, minor


def check_version(installed: str | None = None) -> None:
    """Raise RuntimeError, naming both, when the installed Streamlit is outside ``TESTED``."""
    installed = installed or metadata.version("streamlit")
    low, high = TESTED
    if not low <= _version(installed) <= high:
        raise RuntimeError(
            f"Streamlit {installed} is installed, but ui/streamlit_internals.py was written and tested for "
            f"{low[0]}.{low[1]} to {high[0]}.{high[1]}. Install a release in that range "
            "(requirements.txt pins one), or check each workaround in that module and widen TESTED."
        )


check_version()
