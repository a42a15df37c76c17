"""Class mode's database for this app server: where it is, and one Classroom per address.

The address is ``CLASS_DB_URL`` from the environment, else from ``.streamlit/secrets.toml``,
else an SQLite file in the user's state folder (``classroom.storage.default_url``). The
engine is made once per address and server (``st.cache_resource``) and its schema made
ready then. A database that cannot be opened is tried again at most every RETRY_S seconds,
so a class of followers does not queue on a server that is down.
"""

from __future__ import annotations

import os
import threading
import time

import streamlit as st

from classroom import Classroom, UnavailableError, storage

URL_NAME = "CLASS_DB_URL"
RETRY_S = 10.0
_failures: dict[str, tuple[float, UnavailableError]] = {}
_lock = threading.Lock()


def configured_url() -> str:
    """``CLASS_DB_URL`` from the environment, else from the app's secrets; "" when neither has it."""
    url = os.environ.get(URL_NAME, "").strip()
    if url:
        return url
    try:
        return str(st.secrets.get(URL_NAME, "") or "").strip()
    except Exception:  # no secrets file, or one that does not parse: no address given
        return ""


def db_url() -> str:
    """The class database's address (see the module docstring)."""
    return configured_url() or storage.default_url()


def on_default_file() -> bool:
    """Whether the classes live in the default SQLite file on this server's own disk (no
    ``CLASS_DB_URL`` given), which a host such as Streamlit Community Cloud does not keep
    across a reboot or a redeploy."""
    return not configured_url()


@st.cache_resource(show_spinner=False, max_entries=4)
def _classroom(url: str) -> Classroom:
    return Classroom(storage.open_engine(url))


def rooms() -> Classroom:
    """This server's Classroom; raises UnavailableError, in plain words, when the database
    cannot be used."""
    url = db_url()
    with _lock:
        failed = _failures.get(url)
    if failed is not None and time.monotonic() - failed[0] < RETRY_S:
        raise failed[1]
    try:
        return _classroom(url)
    except UnavailableError as err:
        with _lock:
            _failures[url] = (time.monotonic(), err)
        raise
