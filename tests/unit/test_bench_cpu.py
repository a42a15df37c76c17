"""browser_cpu_ms reads CPU time to the nanosecond (bench/perf_browser_cpu.py): the sum of a
process's threads' schedstat run times agrees with the kernel's own CPU clock for the process,
and a thread that ends is no longer counted."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import perf_browser_cpu as cpu  # noqa: E402  (bench/ is a folder of scripts)

pytestmark = pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="Linux's schedstat only")


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_the_threads_run_time_is_the_process_cpu_clock() -> None:
    for work in (0.02, 0.15):
        ns0, t0 = cpu._threads_ns(os.getpid()), time.process_time()
        _spin(work)
        ns1, t1 = cpu._threads_ns(os.getpid()), time.process_time()
        measured, reference = (ns1 - ns0) / 1e9, t1 - t0
        assert reference >= work
        assert abs(measured - reference) < 0.005, (measured, reference)  # clock ticks would be off by up to 10 ms


def test_a_thread_counts_while_it_lives_and_takes_its_time_when_it_ends() -> None:
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            _spin(0.01)

    worker = threading.Thread(target=busy)
    before = cpu._threads_ns(os.getpid())
    worker.start()
    deadline = time.monotonic() + 10.0  # a loaded machine gives the worker its 100 ms late, not never
    while (during := cpu._threads_ns(os.getpid())) - before < 100_000_000 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    worker.join()
    gone = Path(f"/proc/self/task/{worker.native_id}")
    deadline = time.monotonic() + 10.0  # join() returns before the kernel has removed the thread
    while gone.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    after = cpu._threads_ns(os.getpid())
    assert (during - before) / 1e9 >= 0.1  # the worker's run time counted while it lived
    assert after < during  # its run time left with it (perf_browser_cpu compares with clock ticks)


def test_a_process_that_has_ended_adds_nothing() -> None:
    no_such_pid = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    assert cpu._threads_ns(no_such_pid) == 0
