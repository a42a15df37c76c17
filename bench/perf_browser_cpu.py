"""browser_cpu_ms: Chromium's CPU time per sentence change, the measure defined once.

    all Chromium processes this bench started (the browser process, its renderers, the GPU
    and utility processes: every process named chromium below this Python process, so no
    other browser on the machine is counted), user + system time, from just before the new
    sentence is typed until SETTLE_S after every chart was redrawn with the new data, minus
    the same processes' idle CPU rate over that window (measured on the open page before the
    changes); the median over CHANGES changes after one warm-up change.

CPU time is read in nanoseconds where Linux gives it (each thread's /proc/<pid>/task/<tid>/schedstat,
summed), not in the 10 ms clock ticks of /proc/<pid>/stat: about six processes each rounded to a
tick put ±30 ms of noise on one change, and on the idle rate (50 ms over IDLE_S) a bias of
several ms per second, which the subtraction carried into every change of a run alike.

The new sentence is filled into the box at once and Enter pressed. ``step_T16_typed`` types it
key by key instead, KEY_DELAY_MS apart, as a student does: every key press re-renders the text
box in the browser, and that costs nearly twice the redraw again (issue #14's 1.6-1.9 s was
measured this way; see the README).

While a change is waited for, the harness checks the page every POLL_MS (browser_ms polls
every 20 ms: each check runs a fingerprint of every chart in the page, and at that rate it
is itself a few per cent of the renderer's CPU).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time

CHANGES = 8
SETTLE_S = 1.0  # after the redraw: Streamlit's clean-up of stale elements, layout, paint
IDLE_S = 4.0
POLL_MS = 200
CHANGE_TIMEOUT_MS = 30_000
LOST_MAX = 3
KEY_DELAY_MS = 100  # step_T16_typed: one key every 0.1 s, a quick typist


class ChromiumCpu:
    """CPU seconds of every Chromium process below this Python process (Playwright's driver
    starts the browser, which starts the rest)."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()

    def processes(self) -> list:
        import psutil

        found = []
        for proc in self.me.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "chrom" in proc.name().lower():
                    found.append(proc)
        return found

    def seconds(self) -> float:
        """CPU seconds so far (``_seconds``: to the nanosecond on Linux). A thread that ends
        between two readings takes its run time with it (``ticks`` reads the same processes the
        coarse way, to compare)."""
        import psutil

        total = 0.0
        for proc in self.processes():
            with contextlib.suppress(psutil.Error):
                total += _seconds(proc)
        return total

    def ticks(self) -> float:
        """CPU seconds so far in clock ticks (user + system of each process and its reaped children)."""
        import psutil

        total = 0.0
        for proc in self.processes():
            with contextlib.suppress(psutil.Error):
                t = proc.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
        return total

    def by_kind(self) -> dict[str, float]:
        """CPU seconds so far by process kind (browser, renderer, gpu-process, utility)."""
        import psutil

        out: dict[str, float] = {}
        for proc in self.processes():
            with contextlib.suppress(psutil.Error):
                kind = next((a.split("=", 1)[1] for a in proc.cmdline() if a.startswith("--type=")), "browser")
                out[kind] = out.get(kind, 0.0) + _seconds(proc)
        return out


def _seconds(proc) -> float:
    """One process's CPU seconds: the sum of its live threads' run times (schedstat), else (no
    schedstat: another OS) user + system in clock ticks."""
    precise = _threads_ns(proc.pid)
    if precise is not None:
        return precise / 1e9
    t = proc.cpu_times()
    return t.user + t.system


def _threads_ns(pid: int) -> int | None:
    """Nanoseconds every live thread of ``pid`` has run (/proc/<pid>/task/*/schedstat), or None
    where Linux's schedstat is missing."""
    if not os.path.exists("/proc/self/schedstat"):
        return None
    total = 0
    with contextlib.suppress(FileNotFoundError):  # the process has ended: nothing more to add
        for tid in os.listdir(f"/proc/{pid}/task"):
            with (
                contextlib.suppress(FileNotFoundError, ProcessLookupError),  # the thread has ended
                open(f"/proc/{pid}/task/{tid}/schedstat") as f,
            ):
                total += int(f.read().split()[0])
    return total


async def idle_rate(cpu: ChromiumCpu, seconds: float = IDLE_S) -> float:
    """CPU seconds per second the open, unchanged page costs."""
    c0, t0 = cpu.seconds(), time.perf_counter()
    await asyncio.sleep(seconds)
    return (cpu.seconds() - c0) / (time.perf_counter() - t0)


async def per_change(
    tab, label: str, texts: list[str], changes: int = CHANGES, key_delay_ms: int | None = None
) -> dict:
    """Chromium CPU ms per sentence change (median, idle subtracted) and its spread; the
    per-process medians (``by_process_ms``) are before the idle is subtracted.

    ``tab`` is a perf_browser.Tab already on the page; ``texts`` are cycled through, so the
    first of them should differ from what the page shows.
    """
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    cpu = ChromiumCpu()
    await asyncio.sleep(SETTLE_S)
    idle = await idle_rate(cpu)
    samples, kinds, lost = [], {}, 0
    whole = (cpu.seconds(), cpu.ticks())  # the run's total read both ways: threads that ended show as a gap
    for n in range(changes + 1 + LOST_MAX):
        if len(samples) == changes:
            break
        before_kind = cpu.by_kind()
        c0, t0 = cpu.seconds(), time.perf_counter()
        try:
            await tab.change(
                label, texts[n % len(texts)], timeout_ms=CHANGE_TIMEOUT_MS, poll_ms=POLL_MS, key_delay_ms=key_delay_ms
            )
        except PlaywrightTimeout:  # an Enter that started no run (see perf_browser._sentence_changes)
            lost += 1
            continue
        await asyncio.sleep(SETTLE_S)
        used = cpu.seconds() - c0 - idle * (time.perf_counter() - t0)
        if n > lost:  # the first change that went through is the warm-up
            samples.append(used)
            for kind, s in cpu.by_kind().items():
                kinds.setdefault(kind, []).append(s - before_kind.get(kind, 0.0))
    if not samples:
        raise RuntimeError(f"no sentence change was redrawn ({lost} lost)")
    return {
        "ms": round(statistics.median(samples) * 1000.0, 1),
        "min_ms": round(min(samples) * 1000.0, 1),
        "max_ms": round(max(samples) * 1000.0, 1),
        "idle_ms_per_s": round(idle * 1000.0, 1),
        "by_process_ms": {k: round(statistics.median(v) * 1000.0, 1) for k, v in sorted(kinds.items())},
        "changes": len(samples),
        "lost_changes": lost,
        "all_changes_ms": round((cpu.seconds() - whole[0]) * 1000.0),
        "all_changes_ticks_ms": round((cpu.ticks() - whole[1]) * 1000.0),
    }
