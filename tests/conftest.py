"""Shared test setup: no network for Hugging Face, the repo root on sys.path, the tiers'
markers, and class mode's databases (an SQLite file and a throwaway PostgreSQL server).

The tiers: ``make check`` runs ``-m "not browser and not model"``. A test under tests/browser/
is marked ``browser`` here; a test that loads the embedded all-MiniLM-L6-v2 model carries
``@pytest.mark.model`` (or a module's ``pytestmark``), and in the fast tier
(``EXPLORER_TIER=check``) loading the model without that mark fails the test, so the mark
cannot silently go missing."""

import os
import sys
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
BROWSER_DIR = ROOT / "tests" / "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A browser test is marked ``browser``. On two workers (``pytest -n 2 --dist loadgroup``,
    as ``make test`` runs), a browser module's tests stay together on one worker, in order, with
    that worker's own servers and Chromium (a test's ``xdist_group`` mark, else its module's)."""
    for item in items:
        if BROWSER_DIR in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)
            if item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(Path(item.path).stem))


@pytest.fixture(autouse=True)
def _model_needs_its_mark(request, monkeypatch):
    """In the fast tier, a test that loads the real model without the ``model`` mark fails."""
    if os.environ.get("EXPLORER_TIER") != "check" or request.node.get_closest_marker("model"):
        yield
        return
    import attn_core.models as models

    load = models.load_model

    def refuse(*args, **kwargs):
        loaded = load(*args, **kwargs)  # a test of load_model's errors raises here, as it should
        if isinstance(loaded, models.LoadedModel):
            pytest.fail(f"{request.node.nodeid} loads the real model: mark it @pytest.mark.model", pytrace=False)
        return loaded

    monkeypatch.setattr(models, "load_model", refuse)
    yield


# --------------------------------------------------------------------------- class mode's databases


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server for the whole test session (tests/support/pg_cluster.py)."""
    from tests.support.pg_cluster import PostgresCluster

    cluster = PostgresCluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh, empty class database: an SQLite file, then a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'class.sqlite3'}"
    return request.getfixturevalue("postgres").new_database()
