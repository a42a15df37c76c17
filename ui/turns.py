"""Page runs take turns, so a burst of reruns finishes one by one instead of all at the end.

Streamlit runs each session's script in its own thread, and Python runs one thread at a
time. When a class changes a setting at the same moment, 30 runs share that one core in
slices and all finish together, after about 30 runs' worth of time (plus the cost of
switching between them). Taking turns, the first finishes after one run and the last after
about 30 (bench/perf_protocol.py measures it with 30 protocol clients on the step page).

Runs queue in the order they arrive, and each hands the turn to the next in line. A run
waits as long as the line moves: it stops waiting only when the turn has not changed hands
for WAIT_S seconds while it waited, that is when one slow run (the model's first load, a
long text on the real-model page) holds it, and then runs beside that run, as every run
did before turns. A limit on the whole wait would not do: with half a CPU (Streamlit
Community Cloud's smallest machine) 30 runs in line take longer than 2 s, the runs at the
back all stopped waiting at once, and the class was back to finishing together at the end
(bench/perf_cloud.py, 30 clients at half a CPU: p95 5.9 s with that limit, 5.4 s with
no turns at all, 3.9 s in line).

After a run that imported many modules (the first page, the real model), what is in memory
is there to stay, and Python's full garbage collection would scan it again and again: with
torch loaded each full collection takes hundreds of milliseconds, one or two of them in every
burst of a class. So that run ends with gc.collect() and gc.freeze(), once or twice per server;
the later full collections skip the frozen objects.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import sys
import threading
import time
from collections.abc import Iterator

WAIT_S = 2.0


class _Turns:
    """One turn, handed from run to run in arrival order."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._line: collections.deque[threading.Event] = collections.deque()
        self._busy = False
        self._moved = time.monotonic()  # when the turn last changed hands
        self.arrivals = 0  # how many runs have asked for the turn, ever (a test waits on it)

    def take(self, wait_s: float) -> bool:
        """Wait in line; False once the turn has stood still for ``wait_s`` seconds."""
        with self._guard:
            self.arrivals += 1
            if not self._busy:
                self._busy, self._moved = True, time.monotonic()
                return True
            mine = threading.Event()
            self._line.append(mine)
        arrived = time.monotonic()
        while True:
            with self._guard:
                if mine.is_set():
                    return True
                left = max(arrived, self._moved) + wait_s - time.monotonic()
                if left <= 0:
                    self._line.remove(mine)
                    return False
            if mine.wait(left):
                return True

    def give(self) -> None:
        """Hand the turn to the next run in line, or free it."""
        with self._guard:
            self._moved = time.monotonic()
            if self._line:
                self._line.popleft().set()  # still busy: the turn passes straight on
            else:
                self._busy = False


_TURNS = _Turns()  # one per server process: this module is imported once


def arrivals() -> int:
    """How many runs have asked for the turn in this process: a run counts once it is in line."""
    return _TURNS.arrivals


@contextlib.contextmanager
def one_at_a_time(wait_s: float = WAIT_S) -> Iterator[bool]:
    """Hold the turn while the block runs; yields whether the turn was had (False when it
    did not change hands for ``wait_s`` seconds while this run waited)."""
    got = _TURNS.take(wait_s)
    try:
        yield got
    finally:
        if got:
            _TURNS.give()
        _freeze_after_imports()


NEW_MODULES = 100  # a run that imported more modules than this ends with a freeze
_modules_at_freeze = 0


def _freeze_after_imports() -> None:
    """gc.freeze() what is alive after a run that imported at least NEW_MODULES modules
    (after a full collection, so no garbage is frozen with it)."""
    global _modules_at_freeze
    if len(sys.modules) < _modules_at_freeze + NEW_MODULES:
        return
    _modules_at_freeze = len(sys.modules)
    gc.collect()
    gc.freeze()
