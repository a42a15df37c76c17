"""The theme switch (ui/theme.py): in the sidebar of every page, read from and kept in the
address bar, left out at its default, and not drawn where the server fixes the theme.
tests/browser/test_path.py checks that the browser really changes theme."""

from __future__ import annotations

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


def _switch(at: AppTest):
    (radio,) = [r for r in at.sidebar.radio if r.key == theme.KEY]
    return radio


def test_the_switch_starts_on_auto_and_leaves_the_link_alone():
    at = _app()
    radio = _switch(at)
    assert radio.label == "Theme" and radio.options == ["Auto", "Light", "Dark"] and radio.value == "auto"
    assert "theme" not in at.query_params


def test_a_choice_goes_into_the_link_and_survives_a_page_change():
    at = _app()
    _switch(at).set_value("dark").run()
    assert at.query_params["theme"] == "dark"
    at.switch_page("lessons/multi_head/page.py")
    at.query_params.clear()  # the browser starts each page with an empty address bar
    at.run()
    assert _switch(at).value == "dark" and at.query_params["theme"] == "dark"
    _switch(at).set_value("auto").run()
    assert "theme" not in at.query_params


@pytest.mark.parametrize(("raw", "shown"), [("dark", "dark"), ("light", "light"), ("purple", "auto"), ("", "auto")])
def test_a_link_opens_in_its_theme(raw, shown):
    at = _app(theme=raw)
    assert _switch(at).value == shown
    assert at.query_params.get("theme") == (None if shown == "auto" else shown)


def test_no_switch_where_the_server_sets_the_theme(monkeypatch):
    monkeypatch.setattr(theme, "server_theme", lambda: "dark")
    at = _app(theme="light")
    assert not [r for r in at.sidebar.radio if r.key == theme.KEY]
