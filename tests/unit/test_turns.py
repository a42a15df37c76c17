"""ui.turns: page runs take turns, and nobody waits longer than the limit."""

from __future__ import annotations

import threading
import time

import pytest

from ui.turns import arrivals, one_at_a_time


def _wait_while_held(hold_s: float, wait_s: float) -> tuple[bool, float]:
    """Another run holds the turn for ``hold_s``; ask for it, waiting at most ``wait_s``.

    Returns: (whether the turn was had, seconds waited)
    """
    started = threading.Event()

    def hold() -> None:
        with one_at_a_time() as got:
            assert got
            started.set()
            time.sleep(hold_s)

    holder = threading.Thread(target=hold)
    holder.start()
    started.wait(5)
    t0 = time.perf_counter()
    with one_at_a_time(wait_s=wait_s) as got:
        waited = time.perf_counter() - t0
    holder.join()
    return got, waited


def test_a_run_waits_for_the_one_before_it():
    got, waited = _wait_while_held(hold_s=0.3, wait_s=30.0)
    assert got and waited > 0.2  # it waited for the holder, and had the turn when the holder gave it back


def test_a_run_stops_waiting_after_the_limit():
    got, waited = _wait_while_held(hold_s=4.0, wait_s=0.2)
    assert not got and 0.15 < waited < 3.0  # it gave up near its limit, long before the holder finished


def test_the_turn_is_given_back_when_the_run_fails():
    with pytest.raises(RuntimeError), one_at_a_time():
        raise RuntimeError("the page raised")
    with one_at_a_time(wait_s=0.1) as got:
        assert got


def test_runs_take_turns_in_order_and_wait_while_the_line_moves():
    """Five runs of 0.15 s each: they run in the order they arrived, and the last one waits
    about 0.6 s, longer than its 0.25 s limit, because the turn kept changing hands."""
    order, waited = [], {}

    def run(n: int) -> None:
        t0 = time.perf_counter()
        with one_at_a_time(wait_s=0.25) as got:
            waited[n] = (got, time.perf_counter() - t0)
            order.append(n)
            time.sleep(0.15)

    threads = []
    for n in range(5):
        before = arrivals()
        threads.append(threading.Thread(target=run, args=(n,)))
        threads[-1].start()
        deadline = time.monotonic() + 5
        while arrivals() == before and time.monotonic() < deadline:  # this run is in line before the next starts
            time.sleep(0.001)
    for thread in threads:
        thread.join()
    assert order == list(range(5))
    assert all(got for got, _ in waited.values())
    assert waited[4][1] > 0.4
