"""The performance table in docs/performance.md is bench/report.py's output for the published
run (bench/results.json), never typed by hand; and each verdict in it agrees with the value and
the target it stands beside."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import report  # noqa: E402

import bench  # noqa: E402  (bench/ is a folder of scripts)

RESULTS = json.loads((ROOT / "bench" / "results.json").read_text())


def _between_markers(doc: str) -> str:
    return doc[doc.index(report.BEGIN) + len(report.BEGIN) : doc.index(report.END)].strip()


def test_the_docs_table_is_the_report_of_the_published_run() -> None:
    doc = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert _between_markers(doc) == report.markdown(RESULTS).strip(), "run bench/report.py after publishing a run"


def test_rewrite_replaces_only_the_table() -> None:
    doc = f"before\n{report.BEGIN}\nold table\n{report.END}\nafter\n"
    out = report.rewrite(doc, RESULTS)
    assert out.startswith(f"before\n{report.BEGIN}\n") and out.endswith(f"{report.END}\nafter\n")
    assert "old table" not in out and report.rewrite(out, RESULTS) == out


def _number(text: str) -> float:
    return float(re.sub(r"[^\d.\-]", "", text))


def test_every_verdict_agrees_with_its_value_and_target() -> None:
    checked = 0
    for measure, value, target, verdict in bench.rows(RESULTS):
        if not verdict or not target or value in ("", "null", "None"):
            continue
        section = measure.split(".")[0]
        if section.startswith("load") and RESULTS[section].get("errors"):
            continue  # a load run with errors misses whatever its times say
        bound = target.lstrip("≤<>= ")
        if not re.fullmatch(r"[\d,.]+", bound) or not re.fullmatch(r"-?[\d,.]+", value):
            continue
        ok = _number(value) >= _number(bound) if target.startswith("≥") else _number(value) <= _number(bound)
        assert verdict == ("PASS" if ok else "MISS"), (measure, value, target, verdict)
        checked += 1
    assert checked >= 5, "the published run has too few measures with targets"
