"""Page runs take turns, so a burst of reruns finishes one by one instead of all at the end.

Streamlit runs each session's script in its own thread, and Python runs one thread at a
time. When a class changes a setting at the same moment, 30 runs share that one core in
slices and all finish together, after about 30 runs' worth of time (plus the cost of
switching between them). Taking turns, the first finishes after one run and the last after
about 30. Measured with 30 protocol clients on the step page (tests/perf/perf_protocol.py):
p95 from about 1.8 s to about 0.9 s. A run waits at most WAIT_S for its turn, so one slow
run (the model's first load, a long text on the real-model page) holds the others up for
no longer than that; after it they run side by side as before.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

WAIT_S = 2.0
_TURN = threading.Lock()  # one per server process: this module is imported once


@contextlib.contextmanager
def one_at_a_time(wait_s: float = WAIT_S) -> Iterator[bool]:
    """Hold the turn while the block runs; yields whether the turn was had (False after
    waiting ``wait_s`` seconds for it)."""
    got = _TURN.acquire(timeout=wait_s)
    try:
        yield got
    finally:
        if got:
            _TURN.release()
