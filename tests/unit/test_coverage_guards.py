"""Hand-typed lists of what a test covers must keep up with the code: every page in app.py
has a shared link in tests/app/test_shared_links.py, and every public figure builder is built
by a case of tests/unit/test_figures.py. Fast: importing the test modules runs nothing."""

from __future__ import annotations

import functools
import inspect
import typing
from types import ModuleType

import plotly.graph_objects as go
import pytest

from attn_core import figures
from attn_core.figures import context, lab, real_model
from lessons import pages
from tests.app import test_shared_links
from tests.conftest import ROOT
from tests.unit import test_figures

FIGURE_MODULES = (figures, lab, real_model, context)


# --------------------------------------------------------------------------- pages and links


def app_pages() -> list[tuple[str, str]]:
    """(title, url path) of every page, in the page list's order (lessons/pages.py)."""
    return [(p.title, p.url_path) for p in pages.PAGES]


def test_the_page_list_names_each_page_once():
    """Every page in the one page list has its own script, title and address; Home is the default ("")."""
    paths = [path for _, path in app_pages()]
    assert paths[0] == "" and "step-by-step" in paths and "masks-and-cost" in paths
    assert len(set(paths)) == len(paths)
    assert len({p.script for p in pages.PAGES}) == len({p.title for p in pages.PAGES}) == len(pages.PAGES)
    for info in pages.PAGES:
        assert (ROOT / info.script).is_file(), info.script


def test_every_page_in_app_py_has_a_shared_link_test():
    in_app = {path for _, path in app_pages()}
    linked = [param.values[0].split("?")[0] for param in test_shared_links.LINKS]  # pytest.param(link, ...)
    missing = sorted(in_app - set(linked))
    assert not missing, f"pages in app.py without an entry in tests/app/test_shared_links.py LINKS: {missing}"
    stale = sorted(set(linked) - in_app)
    assert not stale, f"LINKS entries for pages app.py no longer has: {stale}"


# --------------------------------------------------------------------------- figure builders


def _returns_a_figure(fn) -> bool:
    """Whether fn's return annotation is a plotly Figure or holds one (dict[str, Figure], ...)."""
    todo = [typing.get_type_hints(fn).get("return")]
    while todo:
        hint = todo.pop()
        if hint is go.Figure:
            return True
        todo.extend(typing.get_args(hint))
    return False


def _builders(module: ModuleType) -> list[str]:
    """The public functions defined in ``module`` that return a figure."""
    return [
        name
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if fn.__module__ == module.__name__ and not name.startswith("_") and _returns_a_figure(fn)
    ]


BUILDERS = [f"{module.__name__}.{name}" for module in FIGURE_MODULES for name in _builders(module)]


def test_builder_detection_finds_the_known_builders():
    """Detection by return annotation finds builders in every module and skips the helpers."""
    assert {
        "attn_core.figures.heatmap",
        "attn_core.figures.lab.mask_heatmap",
        "attn_core.figures.real_model.neuron_figures",  # dict[str, go.Figure]
        "attn_core.figures.context.block_diagram",
    } <= set(BUILDERS)
    assert "attn_core.figures.token_labels" not in BUILDERS and "attn_core.figures.real_model.pool" not in BUILDERS
    for module in FIGURE_MODULES:
        assert _builders(module), module.__name__
        assert set(_builders(module)) <= set(module.__all__), f"{module.__name__}: a public builder not in __all__"


def _counting(fn, key: str, called: set[str], depth: list[int]):
    """fn, recording ``key`` when a case calls it directly (not from inside another builder)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if depth[0] == 0:
            called.add(key)
        depth[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            depth[0] -= 1

    return wrapper


def test_every_figure_builder_has_a_case_in_test_figures(monkeypatch: pytest.MonkeyPatch):
    called: set[str] = set()
    depth = [0]
    for module in FIGURE_MODULES:
        for name in _builders(module):
            key = f"{module.__name__}.{name}"
            monkeypatch.setattr(module, name, _counting(getattr(module, name), key, called, depth))
    by_case = {}
    for name, case in test_figures.CASES.items():
        called.clear()
        case()
        by_case[name] = set(called)
    blind = sorted(name for name, builders in by_case.items() if not builders)
    assert not blind, f"CASES that call no builder through its module (so this guard cannot see them): {blind}"
    missing = sorted(set(BUILDERS) - set().union(*by_case.values()))
    assert not missing, f"figure builders no case in tests/unit/test_figures.py CASES calls: {missing}"
