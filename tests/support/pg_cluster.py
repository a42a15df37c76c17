"""A throwaway PostgreSQL server for the tests: `initdb` into a temporary folder, `pg_ctl
start` on a free localhost port, one fresh database per test, everything removed at the end.

PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user
(`runuser -u postgres -- ...`) and the folder is handed to it; as any other user it runs as
that user. The binaries come from $PG_BIN, else the newest /usr/lib/postgresql/*/bin (Debian's
`postgresql` package, which `make test` installs where it is missing)."""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from sqlalchemy import create_engine, text

SUPERUSER = "postgres"


def pg_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, or None."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresCluster:
    """One PostgreSQL server in a temporary folder."""

    def __init__(self) -> None:
        self.bin = pg_bin()
        if self.bin is None or not (self.bin / "initdb").exists():
            raise RuntimeError(
                "No PostgreSQL server binaries (initdb): install Debian's postgresql package "
                "(`make postgresql`, or `apt-get install postgresql`) or set PG_BIN=/path/to/bin."
            )
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="sae-pg-"))
        self.data, self.socket_dir, self.log = self.root / "data", self.root / "sock", self.root / "server.log"
        self.port = 0
        self._names = itertools.count()

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", SUPERUSER, "--", *cmd]
        return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=timeout)

    def start(self) -> PostgresCluster:
        self.socket_dir.mkdir()
        if self.as_root:
            user = pwd.getpwnam(SUPERUSER)
            for path in (self.root, self.socket_dir):
                os.chown(path, user.pw_uid, user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync")
        for _ in range(5):  # a port found free may be taken before the server binds it
            self.port = _free_port()
            options = (
                f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "-t", "60", "start")
                return self
            except subprocess.CalledProcessError:
                time.sleep(0.5)
        raise RuntimeError(f"PostgreSQL did not start:\n{self.log_tail()}")

    def url(self, database: str = SUPERUSER) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        engine = create_engine(self.url(), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            engine.dispose()
        return self.url(name)

    def pid(self) -> int:
        """The server's main process (its connections are its children)."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        """Stop the server (as a crash would: nothing is kept) and remove the folder."""
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            if self.data.exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self, n_chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-n_chars:]
        return ""
