"""The README stays one screen and agrees with the code: its pages table is the page list, its
first commands are the two a fresh machine needs, and every file it or docs/ links to exists."""

from __future__ import annotations

import re
from pathlib import Path

from lessons import pages

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}


def test_the_readme_is_one_screen_with_the_five_documents_beside_it() -> None:
    assert len(README.splitlines()) <= 150
    assert {"teaching.md", "class-mode.md", "deploying.md", "architecture.md", "performance.md"} <= set(DOCS)


def test_the_first_commands_are_make_run_and_make_test() -> None:
    block = re.search(r"```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    assert (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1].strip().endswith("make test")


def test_the_pages_table_is_the_page_list() -> None:
    rows = re.findall(r"^\| (?!page |---)(.+?) \| (.+?) \|$", README, re.M)
    assert rows == [(p.title, p.blurb) for p in pages.PAGES]


def test_every_local_link_points_at_a_file() -> None:
    texts = {ROOT / "README.md": README, **{ROOT / "docs" / n: t for n, t in DOCS.items()}}
    missing = []
    for where, text in texts.items():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) + re.findall(r'src="([^"]+)"', text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (where.parent / target).exists():
                missing.append(f"{where.relative_to(ROOT)} -> {target}")
    assert not missing, missing


def test_every_test_file_the_docs_name_exists() -> None:
    named = set(re.findall(r"tests/[\w/]+\.py", README + "".join(DOCS.values())))
    assert named, "the docs name no test file"
    assert not [n for n in sorted(named) if not (ROOT / n).exists()]
