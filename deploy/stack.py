"""The production recipe on one machine: N app servers (`streamlit run app.py`, as `make run`
starts it, with deploy/app.env) on one class database, behind Caddy (deploy/Caddyfile).

deploy/serve.py starts it from the command line (`make serve`); the proxy's browser test and the
bench's phone section start it from Python:

    with Stack(servers=2, port=free_port()) as stack:
        stack.url            # the proxy: what a browser opens
        stack.apps[1].stop()  # one app server goes down; its browsers move to another

The class database is CLASS_DB_URL when given, else a throwaway PostgreSQL cluster
(tests/support/pg_cluster.py: initdb into a temporary folder, removed at the end).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
APP_ENV = ROOT / "deploy" / "app.env"
STATIC = ROOT / "deploy" / "static"  # deploy/precompress.py's copy of Streamlit's static files
COOKIE = "sae_server"  # the proxy's sticky cookie (deploy/Caddyfile's lb_policy)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_env(path: Path = APP_ENV) -> dict[str, str]:
    """KEY=VALUE lines of an environment file (systemd's EnvironmentFile format, no quoting)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def caddy_binary() -> str:
    found = os.environ.get("CADDY") or shutil.which("caddy")
    if not found:
        raise RuntimeError(
            "No caddy: install Debian's package (`make caddy`, or `apt-get install caddy`) or set CADDY=/path."
        )
    return found


def _get(url: str, timeout_s: float = 2.0) -> bytes | None:
    with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=timeout_s) as r:
        return r.read()
    return None


def _wait(url: str, proc: subprocess.Popen, what: str, log: Path, timeout_s: float) -> None:
    """Poll ``url`` until it answers ``ok``; fail when ``proc`` exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{_tail(log)}")
        if (_get(url) or b"").strip() == b"ok":
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer {url} within {timeout_s:.0f} s:\n{_tail(log)}")


def _tail(path: Path, n_chars: int = 3000) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-n_chars:]
    return ""


def _stop(proc: subprocess.Popen | None) -> None:
    """End a process started in its own session, and everything it started."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@dataclass
class AppServer:
    """One `streamlit run app.py` on 127.0.0.1:``port``, with deploy/app.env and the stack's secrets."""

    port: int
    env: dict[str, str]
    log: Path
    script: str = "app.py"
    proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        """host:port, as the proxy dials it (and names it in its cookie)."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    def launch(self) -> None:
        cmd = [sys.executable, "-m", "streamlit", "run", self.script, "--server.port", str(self.port)]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def wait_healthy(self, timeout_s: float = 120.0) -> None:
        _wait(f"{self.url}/_stcore/health", self.proc, f"the app server on port {self.port}", self.log, timeout_s)

    def start(self, timeout_s: float = 120.0) -> AppServer:
        self.launch()
        self.wait_healthy(timeout_s)
        return self

    def stop(self) -> None:
        _stop(self.proc)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass
class Proxy:
    """Caddy with deploy/Caddyfile, serving plain HTTP on ``port`` in front of ``upstreams``."""

    port: int
    upstreams: list[str]
    secret: str
    folder: Path
    bind: str = "127.0.0.1"
    proc: subprocess.Popen | None = None

    @property
    def log(self) -> Path:
        return self.folder / "caddy.log"

    def env(self) -> dict[str, str]:
        return dict(
            os.environ,
            SITE_ADDRESS=f":{self.port}",
            CADDY_BIND=self.bind,
            CADDY_ADMIN="off",
            APP_UPSTREAMS=" ".join(self.upstreams),
            LB_COOKIE_SECRET=self.secret,
            STREAMLIT_STATIC=str(STATIC),
            XDG_DATA_HOME=str(self.folder / "data"),  # Caddy's own state stays in the stack's folder
            XDG_CONFIG_HOME=str(self.folder / "config"),
        )

    def start(self, timeout_s: float = 30.0) -> Proxy:
        cmd = [caddy_binary(), "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        first = self.bind.split()[0].strip("[]")  # asked on the first address it listens on
        host = "127.0.0.1" if first in ("0.0.0.0", "::") else f"[{first}]" if ":" in first else first
        _wait(f"http://{host}:{self.port}/_stcore/health", self.proc, "caddy", self.log, timeout_s)
        return self

    def stop(self) -> None:
        _stop(self.proc)

    def cookie_for(self, address: str) -> str:
        """The sticky cookie's value that sends a browser to the app server at ``address``:
        Caddy's lb_policy cookie is the hex HMAC-SHA256 of the upstream's dial address."""
        return hmac.new(self.secret.encode(), address.encode(), hashlib.sha256).hexdigest()

    def server_of(self, cookie: str, apps: list[AppServer]) -> AppServer | None:
        """The app server a cookie value sends its browser to (None: no cookie, or a stale one)."""
        return next((a for a in apps if hmac.compare_digest(self.cookie_for(a.address), cookie)), None)


@dataclass
class Stack:
    """N app servers on one class database behind Caddy; a context manager that stops it all."""

    servers: int = 2
    port: int = 8080  # the proxy's
    app_ports: list[int] = field(default_factory=list)  # default: free ports
    db_url: str | None = None  # default: CLASS_DB_URL, else a throwaway PostgreSQL cluster
    bind: str = "127.0.0.1"  # the proxy's interfaces ("0.0.0.0 ::": all)
    script: str = "app.py"  # what the app servers run (the bench also puts its floor app behind the proxy)
    apps: list[AppServer] = field(default_factory=list, init=False)
    proxy: Proxy | None = field(default=None, init=False)
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sae-stack-")))  # logs
    _cluster: object | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def throwaway_database(self) -> bool:
        """Whether the class database is the stack's own throwaway cluster."""
        return self._cluster is not None

    def start(self) -> Stack:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        self.db_url = self.db_url or os.environ.get("CLASS_DB_URL") or self._throwaway_database()
        env = dict(os.environ, **read_env(), PYTHONUNBUFFERED="1", CLASS_DB_URL=self.db_url)
        # One cookie secret for every server: a cookie one of them signed is valid on the others.
        env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
        ports = self.app_ports or [free_port() for _ in range(self.servers)]
        self.apps = [AppServer(p, env, self.folder / f"app-{p}.log", self.script) for p in ports]
        for app in self.apps:  # all start at once; then each is waited for
            app.launch()
        for app in self.apps:
            app.wait_healthy()
        secret = os.environ.get("LB_COOKIE_SECRET") or secrets.token_hex(16)
        self.proxy = Proxy(self.port, [a.address for a in self.apps], secret, self.folder, self.bind).start()

    def _throwaway_database(self) -> str:
        sys.path.insert(0, str(ROOT))
        from tests.support.pg_cluster import PostgresCluster

        self._cluster = PostgresCluster().start()
        return self._cluster.new_database()

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for app in self.apps:
            app.stop()
        if self._cluster is not None:
            self._cluster.stop()
            self._cluster = None

    def remove(self) -> None:
        """Stop, and remove the stack's folder (its logs)."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
