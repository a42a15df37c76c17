"""Start the production recipe on this machine for a try-out: `make serve` (or this script).

    .venv/bin/python deploy/serve.py                  # 2 app servers behind Caddy on port 8080
    .venv/bin/python deploy/serve.py --servers 3 --port 8000
    CLASS_DB_URL=postgresql+psycopg://... .venv/bin/python deploy/serve.py   # an existing database

Without CLASS_DB_URL the class database is a throwaway PostgreSQL cluster, removed on exit.
The app servers listen on 127.0.0.1 only; Caddy on every interface (--bind to narrow it), so the
class reaches it at http://<this machine's address>:8080. Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deploy.stack import Stack


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=2, help="how many app servers (default 2)")
    parser.add_argument("--port", type=int, default=8080, help="the proxy's port (default 8080)")
    parser.add_argument("--first-app-port", type=int, default=8501, help="app servers on this port and up")
    parser.add_argument("--bind", default="0.0.0.0 ::", help="the proxy's interfaces (default: all)")
    args = parser.parse_args(argv)
    stack = Stack(
        servers=args.servers,
        port=args.port,
        app_ports=[args.first_app_port + i for i in range(args.servers)],
        bind=args.bind,
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"Starting {args.servers} app servers and Caddy (logs in {stack.folder}) ...", flush=True)
    try:
        stack.start()
        database = "a throwaway PostgreSQL cluster" if stack.throwaway_database else "CLASS_DB_URL"
        print(
            f"Serving http://127.0.0.1:{args.port} (and this machine's other addresses): "
            f"{', '.join(a.address for a in stack.apps)} behind Caddy, class database: {database}. "
            "Ctrl-C stops it all.",
            flush=True,
        )
        down: set[int] = set()
        while any(a.running for a in stack.apps) and stack.proxy.proc.poll() is None:
            for app in stack.apps:
                if not app.running and app.port not in down:
                    down.add(app.port)
                    print(
                        f"The app server on port {app.port} stopped (see {app.log}); "
                        "Caddy sends its browsers to the others."
                    )
            time.sleep(1.0)
        print("Caddy or every app server stopped; stopping the rest.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
