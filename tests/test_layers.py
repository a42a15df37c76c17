"""attn_core's three layers: every module's docstring names its layer in its first line, and
its imports stay inside what that layer may import (read from the source, so a lazy import
inside a function counts too)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "attn_core"
# layer: (the docstring's first words, the third-party packages it may import, the attn_core
# subpackages it may import besides the NumPy modules)
LAYERS = {
    "numpy": ("NumPy layer:", {"numpy"}, set()),
    "plotly": ("Plotly layer:", {"numpy", "plotly"}, {"figures"}),
    "torch": ("torch layer:", {"numpy", "torch", "transformers"}, {"models"}),
}
MODULES = sorted(PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return {"figures": "plotly", "models": "torch"}.get(rel[0], "numpy") if len(rel) > 1 else "numpy"


def _imports(path: Path) -> set[str]:
    """Every module path the file imports, relative ones made absolute (attn_core.x.y)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(("attn_core", *path.relative_to(PACKAGE).parts[:-1]))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                found.add(mod)
                if not node.module:  # from . import engine
                    found.update(f"{mod}.{alias.name}" for alias in node.names)
            else:
                found.add(node.module or "")
    return found


def test_the_three_layers_are_three_places():
    assert {_layer(p) for p in MODULES} == set(LAYERS)
    assert (PACKAGE / "figures" / "__init__.py").exists() and (PACKAGE / "models" / "__init__.py").exists()


def test_no_module_name_stands_for_two_things():
    """A module's name is not also a page script's name unless the page is its face, and no
    attn_core module is called like the page-script folder."""
    names = [p.stem for p in MODULES if p.stem != "__init__"]
    assert "lessons" not in names
    assert len(names) == len(set(names))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_names_its_layer_and_imports_only_that(path: Path):
    layer = _layer(path)
    first_words, third_party, subpackages = LAYERS[layer]
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    if path == PACKAGE / "__init__.py":
        assert doc.startswith("attn_core: self-attention"), doc[:80]
    else:
        assert doc.startswith(first_words), f"{path.name}: first line should start {first_words!r}: {doc[:80]!r}"
    allowed_ours = {"attn_core"} | {f"attn_core.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    allowed_ours |= {f"attn_core.{sub}" for sub in subpackages}
    bad = []
    for mod in _imports(path):
        top = mod.split(".")[0]
        if top == "attn_core":
            if mod not in allowed_ours and ".".join(mod.split(".")[:2]) not in allowed_ours:
                bad.append(mod)
        elif top not in sys.stdlib_module_names and top != "__future__" and top not in third_party:
            bad.append(mod)
    assert not bad, f"{path.name} ({layer} layer) imports {bad}"


def test_layer_check_catches_a_wrong_import():
    """The check itself: a NumPy module that imported plotly or the figures would be caught."""
    fake = PACKAGE / "_layer_probe.py"
    try:
        fake.write_text('"""NumPy layer: probe."""\nimport plotly\nfrom .figures import lab\n', encoding="utf-8")
        assert {"plotly", "attn_core.figures"} <= _imports(fake)
        with pytest.raises(AssertionError, match="imports"):
            test_module_names_its_layer_and_imports_only_that(fake)
    finally:
        fake.unlink()
