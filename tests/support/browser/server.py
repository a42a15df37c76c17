"""The app under test and the browser that opens it: `streamlit run app.py` on a free
localhost port, in its own process group, polled on `/_stcore/health` until it is up; the
Chromium binary, its flags and the window size."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class StreamlitServer:
    """`streamlit run app.py` on a free localhost port, in its own process group."""

    theme: str = "light"
    port: int = 0
    proc: subprocess.Popen | None = None
    log_path: Path | None = None
    db_url: str | None = None  # class mode's database (CLASS_DB_URL); None: an SQLite file in ARTIFACTS

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        """`streamlit run app.py` headless on this server's port (and theme), on localhost only."""
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
        cmd += ["--server.port", str(self.port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        return cmd + (["--theme.base", "dark"] if self.theme == "dark" else [])

    def start(self, timeout_s: float = 60.0, port: int | None = None) -> StreamlitServer:
        """Start the server (on ``port``, else a free one) and wait until it is healthy."""
        self.port = port or free_port()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        # One log per server: two test workers (pytest -n 2) each start their own servers.
        self.log_path = (
            ARTIFACTS / f"streamlit-{self.theme}-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{self.port}.log"
        )
        self.db_url = self.db_url or f"sqlite:///{ARTIFACTS / f'class-{os.getpid()}-{self.port}.sqlite3'}"
        cmd = self.command()
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
        env["CLASS_DB_URL"] = self.db_url
        log = open(self.log_path, "ab" if port else "wb")  # noqa: SIM115 - the server writes to it until stop()
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"streamlit did not report healthy within {timeout_s:.0f} s:\n{self.log_tail()}")

    def restart(self, timeout_s: float = 60.0) -> StreamlitServer:
        """Stop the server and start a new one on the same port and database (its tabs reconnect)."""
        self.stop()
        return self.start(timeout_s, port=self.port)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_tail(self, n_chars: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-n_chars:]
