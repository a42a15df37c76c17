"""Shared test setup: no network for Hugging Face, the repo root on sys.path, and class
mode's databases (an SQLite file and a throwaway PostgreSQL server)."""

import os
import sys
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# --------------------------------------------------------------------------- class mode's databases


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server for the whole test session (tests/pg_cluster.py)."""
    from tests.pg_cluster import PostgresCluster

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
