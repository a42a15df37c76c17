"""`make bench`: speed, payload and memory of the Self-Attention Explorer.

    .venv/bin/python bench/bench.py                    # everything (~10 minutes)
    .venv/bin/python bench/bench.py --quick            # fewer repeats, 5 load sessions
    .venv/bin/python bench/bench.py --only engine,payload
    .venv/bin/python bench/bench.py --only cloud        # the server in a Community Cloud-sized cgroup
    .venv/bin/python bench/bench.py --only class        # class mode: a teacher and 30 students
    .venv/bin/python bench/bench.py --only phone        # phones: first load, Slow 4G, following (deploy/)

Prints a table with PASS/MISS against the targets and writes bench-results.json in the
repo root (with --only, the named sections replace theirs in an existing file). A missed
target is reported, not failed: the exit status is non-zero only when the bench itself
crashed. A measure that cannot be taken (a page not there yet, no Chromium) is null, and
the section's "notes" say why.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(HERE), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

RESULTS = ROOT / "bench-results.json"
SECTIONS = (
    "engine",
    "rerun_ms",
    "payload_bytes",
    "browser_ms",
    "browser_cpu_ms",
    "startup_s",
    "memory_mb",
    "load",
    "load_server",
    "load_cloud",
    "server_cpu_ms",
    "class",
    "phone",
)
ALIASES = {
    "rerun": ("rerun_ms",),
    "payload": ("payload_bytes",),
    "browser": ("browser_ms", "browser_cpu_ms"),
    "browser_cpu": ("browser_cpu_ms",),
    "startup": ("startup_s",),
    "memory": ("memory_mb",),
    "server": ("load_server",),
    "cloud": ("load_cloud", "server_cpu_ms"),  # also fills memory_mb.cloud_peak and cloud_cgroup_peak
}
BROWSER_SIDE = {"browser_ms", "browser_cpu_ms", "startup_s", "memory_mb", "load", "load_server"}
CLOUD = {"load_cloud", "server_cpu_ms"}

CLASS_TARGETS = {"p95_follow_ms": 1500, "p95_follow_ms_cpu1": 2500, "idle_cpu_pct": 20, "answers_lost": 0}
# (section, key) -> (limit, unit); a value passes when it is <= limit.
TARGETS = {
    ("rerun_ms", "step_T32"): 100,
    ("rerun_ms", "decoder_T40"): 100,
    ("browser_ms", "step_T16"): 500,
    ("browser_ms", "step_T16_present"): 300,
    ("browser_cpu_ms", "step_T16_present"): 250,
    ("payload_bytes", "bert_head_view_T128"): 2_000_000,
    ("memory_mb", "model_loaded"): 700,
    ("startup_s", "home"): 3,
    ("load", "p95_ms"): 1500,
    ("load_server", "p95_ms"): 1500,  # not an issue target: the same class without 30 browsers on our cores
    ("load_cloud", "p95_ms_cpu1"): 1500,
    ("load_cloud", "p95_ms_cpu05"): 4000,
    ("memory_mb", "cloud_peak"): 600,
    ("memory_mb", "cloud_cgroup_peak"): 600,  # issue #21: the cgroup's own peak, page cache included
    ("load_cloud", "limit_hits"): 0,  # issue #21: memory.failcnt, at 690 MB
    ("load_cloud", "install_mb"): 2560,  # issue #21: the Cloud install under 2.5 GB
    **{  # class mode, on each database
        ("class", f"{db}.{key}"): limit for db in ("sqlite", "postgres") for key, limit in CLASS_TARGETS.items()
    },
    # issue #33: phones, as `make run` serves the app and through deploy/'s proxy
    ("phone", "first_load_kb_proxy"): 3000,
    ("phone", "script_done_s_slow"): 12,
    ("phone", "charts_s_slow"): 20,
    ("phone", "follow_p95_ms_cpu4x"): 2000,
}
# A target relative to another measure of the same section: (section, key) -> (other key, margin).
RELATIVE_TARGETS = {("phone", "first_load_kb"): ("floor_kb", 1000)}


def machine() -> dict:
    """The machine and the versions measured. torch is asked in a child process: imported here,
    its libraries would stay mapped by this process, and the cloud section's cgroups would never
    be charged for them."""
    import psutil

    probe = "import json, torch as t; c = t.cuda.is_available(); print(json.dumps([c, c and t.cuda.get_device_name()]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    cuda, gpu = json.loads(out)  # gpu: false without CUDA
    model = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "torch": metadata.version("torch"),
        "streamlit": metadata.version("streamlit"),
        "plotly": metadata.version("plotly"),
        "numpy": metadata.version("numpy"),
        "cuda": cuda,
        "gpu": gpu or None,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def parse_sections(only: str | None) -> list[str]:
    if not only:
        return list(SECTIONS)
    chosen = []
    for raw in only.split(","):
        names = ALIASES.get(raw.strip(), (raw.strip(),))
        if any(name not in SECTIONS for name in names):
            raise SystemExit(f"unknown section {raw!r}; choose from {', '.join(SECTIONS)} (or {', '.join(ALIASES)})")
        chosen.extend(names)
    return [s for s in SECTIONS if s in chosen]


def measure(sections: list[str], quick: bool) -> tuple[dict, dict, bool]:
    """Run the chosen sections; returns (results, keys they added to other sections, crashed)
    (the cloud section adds memory_mb.cloud_peak and cloud_cgroup_peak)."""
    results: dict = {}
    notes: dict = {}
    crashed = False
    wanted = set(sections)
    groups = [
        # The cloud section first: the others import torch and load the model in this process,
        # and a library page that any process keeps mapped is never charged to the server's cgroup.
        (CLOUD, lambda: __import__("perf_cloud").run(quick, results, notes)),
        ({"class"}, lambda: __import__("perf_class").run(results, notes)),  # its cgroup too, before torch loads
        ({"phone"}, lambda: __import__("perf_phone").run(results)),  # app servers of its own, before torch loads
        ({"engine"}, lambda: results.update(engine=__import__("perf_engine").run(quick))),
        ({"rerun_ms", "payload_bytes"}, lambda: __import__("perf_apptest").run(wanted, quick, results, notes)),
        (BROWSER_SIDE, lambda: __import__("perf_browser").run(wanted, quick, results, notes)),
    ]
    for names, fn in groups:
        if not names & wanted:
            continue
        t0 = time.perf_counter()
        print(f"-- measuring {', '.join(sorted(names & wanted))} ...", flush=True)
        try:
            fn()
        except Exception as err:
            crashed = True
            traceback.print_exc()
            for name in names & wanted:
                results.setdefault(name, {})["error"] = f"{type(err).__name__}: {err}"[:500]
        print(f"   done in {time.perf_counter() - t0:.0f} s", flush=True)
    for name in sections:
        results.setdefault(name, {})
    for name, why in notes.items():
        if name in results and why:
            results[name]["notes"] = {**results[name].get("notes", {}), **why}
    if "memory_mb" in wanted and "load" not in wanted and results["memory_mb"].get("after_load") is None:
        results["memory_mb"].setdefault("notes", {})["after_load"] = "null: the load section was not run"
    extra = {name: data for name, data in results.items() if name not in sections and name in SECTIONS}
    return {name: results[name] for name in sections}, extra, crashed


def _fmt(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def verdict(section: str, key: str, value, data: dict) -> tuple[str, str]:
    """(target, PASS/MISS/?) of one measure; ("", "") for a measure without a target."""
    limit = TARGETS.get((section, key))
    if (section, key) in RELATIVE_TARGETS:
        other, margin = RELATIVE_TARGETS[(section, key)]
        limit = None if data.get(other) is None else data[other] + margin
    if limit is None:
        return "", ""
    if value is None:
        return f"≤ {limit:,}", "?"
    ok = value <= limit and not (section.startswith("load") and data.get("errors"))
    return f"≤ {limit:,}", "PASS" if ok else "MISS"


def rows(results: dict) -> list[tuple[str, str, str, str]]:
    """Every measure of ``results`` as (measure, value, target, verdict), in the JSON's order."""
    out: list[tuple[str, str, str, str]] = []
    for section, data in results.items():
        if section == "machine" or not isinstance(data, dict):
            continue
        if section == "engine":
            for t_key, row in data.items():
                if isinstance(row, dict) and t_key.startswith("T"):
                    out.extend((f"engine.{t_key}.{k}", _fmt(v), "", "") for k, v in row.items())
            if "error" in data:
                out.append(("engine.error", data["error"][:60], "", ""))
            continue
        flat = {}
        for key, value in data.items():
            if isinstance(value, dict) and key not in ("notes", "details"):  # class.sqlite.p95_follow_ms
                flat.update({f"{key}.{k}": v for k, v in value.items()})
            else:
                flat[key] = value
        for key, value in flat.items():
            if key in ("notes", "error_samples", "details") or key.endswith("_other_elements"):
                continue
            out.append((f"{section}.{key}", _fmt(value), *verdict(section, key, value, data)))
        if section.startswith("load") and data.get("errors"):
            out.append((f"{section}.errors (must be 0)", _fmt(data["errors"]), "0", "MISS"))
    return out


def table(results: dict) -> str:
    """The terminal's table: measure, value, target and verdict, aligned."""
    lines = [("measure", "value", "target"), *((m, v, f"{t}  {ok}".strip()) for m, v, t, ok in rows(results))]
    widths = [max(len(r[i]) for r in lines) for i in range(3)]
    text = [f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]}" for r in lines]
    text.insert(1, "-" * (sum(widths) + 4))
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and 5 load sessions (development)")
    parser.add_argument("--only", metavar="SECTION[,SECTION]", help=f"run only these: {', '.join(SECTIONS)}")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)
    sections = parse_sections(args.only)
    t0 = time.perf_counter()
    info = machine()
    measured, extra, crashed = measure(sections, args.quick)
    results: dict = {}
    if args.only and args.out.is_file():
        try:
            results = json.loads(args.out.read_text())
        except (OSError, ValueError):
            results = {}
    results.update(measured)
    for name, data in extra.items():  # keys a section adds to another one (memory_mb.cloud_peak)
        if isinstance(results.get(name), dict):
            results[name].update({k: v for k, v in data.items() if k != "notes"})
            results[name].setdefault("notes", {}).update(data.get("notes", {}))
        else:
            results[name] = data
    results["machine"] = {**info, "quick": args.quick, "bench_s": round(time.perf_counter() - t0, 1)}
    ordered = {k: results[k] for k in (*SECTIONS, "machine") if k in results}
    args.out.write_text(json.dumps(ordered, indent=2) + "\n")
    m = ordered["machine"]
    print(
        f"\n{m['cpus']} CPUs ({m['cpu_model']}), {m['ram_gb']} GB RAM, Python {m['python']}, torch {m['torch']}, "
        f"streamlit {m['streamlit']}, CUDA: {m['gpu'] or 'none'}{' (quick)' if args.quick else ''}"
    )
    print(table({**measured, **extra}))
    for section, data in {**measured, **extra}.items():
        for key, why in (data.get("notes") or {}).items():
            print(f"note {section}.{key}: {why}")
    print(f"\nwrote {args.out} in {m['bench_s']:.0f} s")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
