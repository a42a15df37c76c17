"""pages.turns: page runs take turns, and nobody waits longer than the limit."""

from __future__ import annotations

import threading
import time

import pytest

from pages.turns import one_at_a_time


def _hold(seconds: float, started: threading.Event) -> threading.Thread:
    def run() -> None:
        with one_at_a_time() as got:
            assert got
            started.set()
            time.sleep(seconds)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_run_waits_for_the_one_before_it():
    started = threading.Event()
    holder = _hold(0.3, started)
    started.wait(5)
    t0 = time.perf_counter()
    with one_at_a_time(wait_s=5.0) as got:
        waited = time.perf_counter() - t0
    holder.join()
    assert got and 0.2 < waited < 2.0


def test_a_run_stops_waiting_after_the_limit():
    started = threading.Event()
    holder = _hold(1.5, started)
    started.wait(5)
    t0 = time.perf_counter()
    with one_at_a_time(wait_s=0.2) as got:
        waited = time.perf_counter() - t0
    holder.join()
    assert not got and 0.15 < waited < 1.0


def test_the_turn_is_given_back_when_the_run_fails():
    with pytest.raises(RuntimeError), one_at_a_time():
        raise RuntimeError("the page raised")
    with one_at_a_time(wait_s=0.1) as got:
        assert got
