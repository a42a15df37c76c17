"""Where the class lives: one engine per database URL, the schema and its stored version.

The default is an SQLite file created on first use in the user's state directory (outside
the app's folder), in WAL mode with a busy timeout, so a server restart keeps every room.
``postgresql://`` URLs go through psycopg 3. Writes on SQLite start with BEGIN IMMEDIATE:
a transaction that read first and then wrote would fail at once, not wait, when another
write slipped in between (WAL's snapshot rule), and 30 answers at once would lose some.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session

from classroom.model import UnavailableError
from classroom.tables import SCHEMA_VERSION, Base, Meta

LOG = logging.getLogger(__name__)
BUSY_TIMEOUT_S = 5.0  # SQLite waits this long for a lock before it gives up
CONNECT_TIMEOUT_S = 5  # PostgreSQL
APP_DIR = "self-attention-explorer"
WRITE = {"class_write": True}  # execution option: this transaction will write (SQLite: BEGIN IMMEDIATE)

# Migrations: MIGRATIONS[n](session) turns schema version n into n + 1.
MIGRATIONS: dict[int, object] = {}


def default_url() -> str:
    """``sqlite:///<state dir>/self-attention-explorer/class.sqlite3``: $XDG_STATE_HOME or
    ~/.local/state, else the temporary directory when home is not writable."""
    for base in (os.environ.get("XDG_STATE_HOME"), Path.home() / ".local" / "state", tempfile.gettempdir()):
        if not base:
            continue
        folder = Path(base) / APP_DIR
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return f"sqlite:///{folder / 'class.sqlite3'}"
    raise UnavailableError("There is no writable folder for the class database.")


def normalize_url(url: str) -> URL:
    """The URL as SQLAlchemy reads it; ``postgres://`` and ``postgresql://`` use psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(url: str) -> Engine:
    """An engine for ``url`` with the class's connection settings (create one per URL and keep it)."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            parsed,
            connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
            pool_size=10,
            max_overflow=30,
        )
        _sqlite_setup(engine)
        return engine
    if parsed.get_backend_name() == "postgresql":
        return create_engine(
            parsed,
            pool_pre_ping=True,
            pool_size=5,
            max_overflow=25,
            pool_timeout=10,
            connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
        )
    return create_engine(parsed, pool_pre_ping=True)


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, consistent always
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("class_write") else "BEGIN")


def open_engine(url: str) -> Engine:
    """``make_engine(url)`` with its schema ready; any failure is an UnavailableError in plain words."""
    engine = None
    try:
        engine = make_engine(url)
        prepare(engine)
        return engine
    except (exc.SQLAlchemyError, OSError, ImportError, ValueError, UnavailableError) as err:
        if engine is not None:
            engine.dispose()
        raise unavailable(err) from err


def prepare(engine: Engine) -> None:
    """Create the tables where missing and check (or migrate) the stored schema version.
    Two servers starting at once on one PostgreSQL may race here: the loser tries again."""
    for attempt in range(3):
        try:
            Base.metadata.create_all(engine)
            _check_version(engine)
            return
        except (exc.IntegrityError, exc.ProgrammingError):
            if attempt == 2:
                raise


def _check_version(engine: Engine) -> None:
    with Session(engine.execution_options(**WRITE)) as s, s.begin():
        row = s.get(Meta, "schema_version")
        if row is None:
            s.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
            return
        stored = int(row.value)
        if stored > SCHEMA_VERSION:
            raise UnavailableError(
                f"The class database was made by a newer version of this app (schema {stored}, "
                f"this app knows {SCHEMA_VERSION})."
            )
        while stored < SCHEMA_VERSION:
            MIGRATIONS[stored](s)
            stored += 1
        row.value = str(stored)


def schema_version(engine: Engine) -> int | None:
    with Session(engine) as s, s.begin():
        row = s.get(Meta, "schema_version")
        return None if row is None else int(row.value)


def plain_words(err: BaseException) -> str:
    """What went wrong with the database, for the page (the details go to the log)."""
    if isinstance(err, UnavailableError):
        return str(err)
    text = str(getattr(err, "orig", None) or err).lower()
    if "locked" in text or "busy" in text:
        return "The class database is busy (another program holds a lock on it). Try again in a moment."
    if isinstance(err, OSError) or any(w in text for w in ("unable to open", "readonly", "read-only", "permission")):
        return "The class database file cannot be opened or written."
    if "not a database" in text or "malformed" in text:
        return "The class database file is damaged (it is not a database this app can read)."
    if isinstance(err, exc.ArgumentError | exc.NoSuchModuleError | ImportError):
        return "The class database address (CLASS_DB_URL) is not one this app can use."
    if isinstance(err, exc.OperationalError | exc.InterfaceError | exc.TimeoutError):
        return "The class database cannot be reached."
    return "The class database cannot be used right now."


def unavailable(err: BaseException) -> UnavailableError:
    """``err`` (a database or file error) as an UnavailableError in plain words; logged in full."""
    if isinstance(err, UnavailableError):
        return err
    LOG.warning("class database error: %s: %s", type(err).__name__, err)
    return UnavailableError(plain_words(err))
