"""The theme (ui/theme.py): Streamlit's own switch in its menu, which config.toml shows to
every viewer; the sidebar says where it is; an older link's ``?theme=`` is dropped; nothing is
drawn where the server fixes the theme. tests/browser/test_theme_switch.py checks in Chromium that the
menu's choice changes the theme and survives a page change and a reload."""

from __future__ import annotations

import tomllib

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui import theme


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _says_where(at: AppTest) -> bool:
    return any(c.value == theme.WHERE for c in at.sidebar.caption)


def test_the_menu_with_its_theme_switch_is_shown_to_every_viewer():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["toolbarMode"] == "viewer"  # "minimal" hides the menu, and its switch


def test_the_sidebar_says_where_the_switch_is():
    at = _app()
    assert _says_where(at)
    assert "theme" not in at.query_params


@pytest.mark.parametrize("raw", ["dark", "light", "purple", ""])
def test_an_older_links_theme_is_dropped(raw):
    at = _app(theme=raw)
    assert "theme" not in at.query_params and _says_where(at)


def test_nothing_is_drawn_where_the_server_sets_the_theme(monkeypatch):
    monkeypatch.setattr(theme, "server_theme", lambda: "dark")
    at = _app()
    assert not _says_where(at)


def test_a_page_that_fails_keeps_the_top_of_the_sidebar(monkeypatch):
    """app.py draws the sidebar's top after the page's run; a page that raises still gets it."""

    def broken(*args, **kwargs):
        raise RuntimeError("a page that fails")

    monkeypatch.setattr("ui.common.checked_tokens", broken)  # Step by step calls it on every run
    at = _app()  # Home, which does not call it
    at.switch_page("lessons/step_by_step/page.py").run()
    assert len(at.exception) == 1 and "a page that fails" in "".join(at.exception[0].stack_trace)
    assert _says_where(at) and at.sidebar.toggle(key="present").value is False
