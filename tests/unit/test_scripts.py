"""ui.scripts: the app's scripts reach the browser through st.html, whose sanitizer (DOMPurify)
drops a script with markup-like text; the check refuses such a script before it ships, and every
script the app runs passes it."""

import json

import pytest

from ui import links, scripts, streamlit_internals
from ui.charts import _CHART_TOOLS_JS


@pytest.mark.parametrize("js", ["const a = '<svg>';", "x = '</b>';", "// <!-- note", "if (a<b) {}"])
def test_markup_like_text_is_refused(js) -> None:
    with pytest.raises(scripts.ScriptError, match="DOMPurify"):
        scripts.script_tag(js)


@pytest.mark.parametrize("js", ["if (a < b) {}", "x <= 2", "const s = 'a < b';"])
def test_comparisons_pass(js) -> None:
    assert scripts.script_tag(js) == f"<script>{js}</script>"


def test_every_script_of_the_app_passes() -> None:
    theme = streamlit_internals._THEME_JS.replace(
        "DATA", scripts.data_json({"pages": ["a<b"], "prefix": "p", "suffix": "s"})
    )
    for js in (_CHART_TOOLS_JS, links._JS, theme):
        scripts.script_tag(js)
    assert "<" not in links._CSS and "export " not in _CHART_TOOLS_JS + links._JS


def test_data_is_json_without_a_less_than_sign() -> None:
    data = {"pages": ["</script><b>", "step-by-step"], "n": 1}
    text = scripts.data_json(data)
    assert "<" not in text and json.loads(text) == data
