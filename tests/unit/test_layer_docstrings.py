"""attn_core's three layers, as its modules say them: every module's docstring names its layer
in its first line. Which layer may import what is import-linter's job (pyproject.toml's
contracts, run by `make check`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "attn_core"
FIRST_WORDS = {"numpy": "NumPy layer:", "plotly": "Plotly layer:", "torch": "torch layer:"}
MODULES = sorted(PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return {"figures": "plotly", "models": "torch"}.get(rel[0], "numpy") if len(rel) > 1 else "numpy"


def test_the_three_layers_are_three_places():
    assert {_layer(p) for p in MODULES} == set(FIRST_WORDS)
    assert (PACKAGE / "figures" / "__init__.py").exists() and (PACKAGE / "models" / "__init__.py").exists()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_names_its_layer(path: Path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    if path == PACKAGE / "__init__.py":
        assert doc.startswith("attn_core: self-attention"), doc[:80]
    else:
        assert doc.startswith(FIRST_WORDS[_layer(path)]), f"{path.name}: {doc[:80]!r}"
