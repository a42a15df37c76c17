"""Checks shared by the pages' AppTests: NaN-free figures, escaped labels, widget driving, and a
page that runs without torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support.figdata import decode, figures, z_matrix

ROOT = Path(__file__).resolve().parents[2]


def page_script(page: str) -> str:
    """The script of a lesson, named by its old file name or its folder: "multi_head.py" or "multi_head"."""
    return str(ROOT / "lessons" / page.removesuffix(".py") / "page.py")


def app(page: str) -> AppTest:
    return AppTest.from_file(page_script(page), default_timeout=60)


def trace_arrays(fig: dict) -> list[np.ndarray]:
    """Every numeric x, y, z array of a figure's traces, as float arrays."""
    out = []
    for trace in fig["data"]:
        if trace.get("name") == "masked":
            continue  # the grey layer under -inf cells is NaN elsewhere by design
        if "z" in trace:
            out.append(z_matrix(trace))
        for axis in ("x", "y"):
            if axis in trace:
                out.append(np.asarray(decode(trace[axis]), dtype=np.float64))
    return out


def assert_finite_figures(at: AppTest) -> None:
    figs = figures(at)
    assert figs, "expected at least one figure"
    for fig in figs:
        for arr in trace_arrays(fig):
            assert np.all(np.isfinite(arr)), f"non-finite data in {fig['layout']['title']['text']!r}"


def ticks(fig: dict, axis: str) -> list[str]:
    """An axis's tick labels, a highlighted key's bold (figures.bar_chart) taken off."""
    return [
        t[3:-4] if t.startswith("<b>") and t.endswith("</b>") else t for t in fig["layout"][f"{axis}axis"]["ticktext"]
    ]


def assert_escaped_ticks(at: AppTest) -> None:
    """No tick label of any figure carries raw HTML or a LaTeX-opening '$'. A bar chart's
    highlighted key (figures.bar_chart) is the one label the app wraps in <b>...</b> itself:
    what is inside must be escaped like every other label."""
    for fig in figures(at):
        bold = 0
        for axis in ("x", "y"):
            for label in fig["layout"].get(f"{axis}axis", {}).get("ticktext", []):
                if label.startswith("<b>") and label.endswith("</b>"):
                    label, bold = label[3:-4], bold + 1
                assert "<" not in label and ">" not in label, label
                assert not label.startswith("$") or label.startswith("$\u200b"), label
        assert bold <= 1, "more than one highlighted label in one chart"


_WIDGETS = ("text_input", "text_area", "slider", "select_slider", "number_input", "selectbox", "toggle")


def widget(at: AppTest, key: str):
    """The widget with this key, whatever its kind."""
    for kind in _WIDGETS:
        for found in getattr(at, kind):
            if found.key == key:
                return found
    raise AssertionError(f"no widget with key {key!r}")


def drive(page: str, **controls: object) -> AppTest:
    """Run ``page``, set each widget (by key) to its value through the widget itself, rerun."""
    at = app(page).run()
    for key, value in controls.items():
        widget(at, key).set_value(value)
    at.run()
    assert not at.exception
    return at


def assert_never_imports_torch(script: str) -> None:
    """A fresh Python runs ``script`` (a page, or app.py for Home) with its defaults: it draws a
    chart, raises nothing, and never imports torch or transformers."""
    code = (
        "import sys; from streamlit.testing.v1 import AppTest; "
        f"at = AppTest.from_file({script!r}, default_timeout=60).run(); "
        "assert not at.exception and at.get('plotly_chart'); "
        "bad = {'torch', 'transformers'} & set(sys.modules); assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)


def read_token_list(markdown: str) -> list[str] | None:
    """The tokens of a token list (ui.markup.token_list) as a CommonMark parser reads them back,
    or None when ``markdown`` is not one: **0** token, **1** token, ... and nothing else."""
    from markdown_it import MarkdownIt

    from ui.markup import NUMBER_GAP, TOKEN_GAP

    blocks = [b for b in MarkdownIt("commonmark").parse(markdown) if b.type == "inline"]
    if len(blocks) != 1 or not blocks[0].children:
        return None
    numbers, texts, bold = [], [], False
    for child in blocks[0].children:
        if child.type in ("strong_open", "strong_close"):
            bold = child.type == "strong_open"
            if bold:
                numbers.append("")
                texts.append("")
        elif child.type == "text" and not numbers:
            if child.content:
                return None
        elif child.type == "text":
            if bold:
                numbers[-1] += child.content
            else:
                texts[-1] += child.content
        else:
            return None
    if numbers != [str(i) for i in range(len(numbers))] or not numbers:
        return None
    tokens = [t.removesuffix(TOKEN_GAP) if k < len(texts) - 1 else t for k, t in enumerate(texts)]
    if not all(t.startswith(NUMBER_GAP) for t in tokens):
        return None
    return [t.removeprefix(NUMBER_GAP) for t in tokens]


def shown_tokens(at: AppTest, nth: int = 0) -> list[str]:
    """The ``nth`` token list the page shows (ui.common.show_tokens), as a list of tokens."""
    lists = [found for m in at.markdown if (found := read_token_list(m.value)) is not None]
    assert len(lists) > nth, f"the page shows {len(lists)} token list(s), not {nth + 1}"
    return lists[nth]
