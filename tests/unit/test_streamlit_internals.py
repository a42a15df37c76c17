"""ui/streamlit_internals.py: the version check, and one fast test per workaround that checks
the installed Streamlit still has what the workaround relies on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit

from ui import streamlit_internals as internals

FRONT_END = Path(streamlit.__file__).parent / "static" / "static" / "js"


def test_the_installed_streamlit_is_in_the_tested_range():
    internals.check_version()


@pytest.mark.parametrize("version", ["1.66.0", "1.68.0", "2.0.0", "0.89.1"])
def test_another_streamlit_stops_the_app_with_a_message_naming_both(version):
    with pytest.raises(RuntimeError, match=re.escape(version)) as raised:
        internals.check_version(version)
    assert "1.67" in str(raised.value)


def _front_end_defining(text: str) -> str:
    """The source of the one front-end module that defines ``text``."""
    found = [f for f in FRONT_END.glob("*.js") if text.encode() in f.read_bytes()]
    assert len(found) == 1, f"{text!r} is in {len(found)} front-end modules: {[f.name for f in found]}"
    return found[0].read_text(encoding="utf-8")


def test_the_theme_choice_is_kept_under_the_key_the_copy_writes():
    """remember_theme_on_every_page writes ``stActiveTheme-<path>-v2``: the front end must still
    key the menu's choice by the address the tab was opened at, in that form."""
    source = _front_end_defining(internals.THEME_KEY_PREFIX)
    base = re.search(r"(\w+)=`" + re.escape(internals.THEME_KEY_PREFIX) + r"\$\{window\.location\.pathname\}`", source)
    assert base, "the theme's key is no longer made of the address the tab was opened at"
    version = re.search(r"(\w+)=(\d+),\w+=`" + re.escape(internals.THEME_KEY_PREFIX), source)
    assert version and f"-v{version.group(2)}" == internals.THEME_KEY_SUFFIX, "the key's version changed"
    assert re.search(r"ACTIVE_THEME:`\$\{\w+\}-v\$\{\w+\}`", source), "the key is no longer base + -v + version"
    # The values the menu saves, which the copy passes on unread.
    assert all(f"`{name}`" in source for name in ("System", "Light", "Dark"))
