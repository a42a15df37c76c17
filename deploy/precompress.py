"""Streamlit's static files (its JS and CSS bundles, fonts, images) copied for Caddy to serve,
each text file beside its compressed copies at the highest levels: name.zst (zstd -19) and
name.gz (gzip -9). Caddy's file_server sends the copy the browser accepts (deploy/Caddyfile),
so nothing is compressed per request, and zstd -19 is about a fifth smaller than what a proxy
compresses on the fly.

Beside them, preload.caddy, which deploy/Caddyfile imports: on the pages a class starts from
(the Class page, and a join link's ?room=), a Link header that tells the browser to fetch and
compile Plotly's bundle at once (rel=modulepreload), so that a student's phone has it ready
before the teacher's first chart instead of fetching it then. Other pages do without: on a slow
connection the 1 MB would compete with the bundles the page's first run needs. Streamlit's
bundles have a content hash in their names, so the header is written here, for the installed
Streamlit.

    .venv/bin/python deploy/precompress.py [FOLDER]     # default: deploy/static

The folder is made again only when the installed Streamlit differs from the one it was made for
(the file STREAMLIT_VERSION inside): run it after every install or upgrade (`make serve` does).
Without the zstd command (Debian's zstd package) only the .gz copies are made.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import streamlit

DEFAULT = Path(__file__).resolve().parent / "static"
TEXT = {".js", ".css", ".svg", ".json", ".html", ".txt"}
STAMP = "STREAMLIT_VERSION"
PRELOAD = "preload.caddy"
EARLY = ("PlotlyChart",)  # lazy bundles every lesson needs at once: its charts


def source() -> Path:
    """The installed Streamlit's static folder, which serves /static/... (its index.html's parent)."""
    return Path(streamlit.__file__).resolve().parent / "static"


def build(out: Path = DEFAULT) -> bool:
    """Make ``out`` for the installed Streamlit; False when it was already made for it."""
    version = metadata.version("streamlit")
    if (out / STAMP).is_file() and (out / STAMP).read_text().strip() == version:
        snippet = preload_snippet(out / "static" / "js", version)
        if (out / PRELOAD).is_file() and (out / PRELOAD).read_text() == snippet:
            return False
        (out / PRELOAD).write_text(snippet)  # the copy is current; only the header changed
        return True
    work = out.with_name(out.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source() / "static", work / "static")
    texts = sorted(p for p in (work / "static").rglob("*") if p.suffix in TEXT and p.stat().st_size >= 512)
    zstd = shutil.which("zstd")
    # zstd in the background (-19: about 1 MB/s a core; -T0 uses every core) while gzip runs here.
    batches = [[str(p) for p in texts[start : start + 64]] for start in range(0, len(texts), 64)] if zstd else []
    running = [subprocess.Popen([zstd, "-19", "-T0", "-q", "-k", "-f", *batch]) for batch in batches]
    for path in texts:
        with open(path, "rb") as raw, gzip.GzipFile(path.with_name(path.name + ".gz"), "wb", 9, mtime=0) as gz:
            shutil.copyfileobj(raw, gz)
    if failed := [p.args for p in running if p.wait() != 0]:
        raise SystemExit(f"zstd failed: {failed[0][:8]}")
    if not zstd:
        print("No zstd command (apt-get install zstd): only gzip copies made.", file=sys.stderr)
    (work / PRELOAD).write_text(preload_snippet(work / "static" / "js", version))
    (work / STAMP).write_text(version + "\n")
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    return True


def preload_snippet(js: Path, version: str) -> str:
    """Caddyfile lines: a Link header naming the EARLY bundles on the pages a class starts from
    (the HTML a browser navigates to), never on other pages, the bundles or the WebSocket."""
    names = sorted(p.name for p in js.glob("*.js") if p.name.split(".")[0] in EARLY)
    links = ", ".join(f"</static/js/{name}>; rel=modulepreload" for name in names)
    return (
        f"# Made by deploy/precompress.py for Streamlit {version}: a class's pages fetch these bundles at once.\n"
        "@class_page {\n\theader Accept *text/html*\n\tpath /class /class/\n}\n"
        "@join_link {\n\theader Accept *text/html*\n\tquery room=*\n}\n"
        f'header @class_page +Link "{links}"\n'
        f'header @join_link +Link "{links}"\n'
    )


if __name__ == "__main__":
    folder = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DEFAULT
    made = build(folder)
    print(f"{'Made' if made else 'Already made'}: {folder} (Streamlit {metadata.version('streamlit')})")
