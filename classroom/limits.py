"""How big a class may get, how long it lives, and how fast anyone may knock.

Rate limits count in this process (one app server); every other limit counts rows in the
database, so it holds across servers sharing one PostgreSQL.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    room_ttl_s: float = 3 * 3600  # a room with no activity for this long is closed, its answers deleted
    max_students: int = 200  # per room
    max_open_rooms: int = 100  # per database (per server, or per group of servers sharing one)
    following_s: float = 15.0  # a student seen this recently is "following now"
    joins_per_minute: int = 10  # per browser session
    failed_joins_per_minute: int = 60  # per server: guessing codes stops here
    rooms_per_hour: int = 10  # new rooms per browser session
    seat_s: float = 1800.0  # a student gone this long no longer holds a seat (a reload is a new student)
    touch_every_s: float = 60.0  # how stale `active_at` may get before a read-only visit refreshes it


class RateLimit:
    """At most ``events`` per ``per_s`` seconds per key (a sliding window)."""

    def __init__(self, events: int, per_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.events, self.per_s, self.clock = events, per_s, clock
        self._seen: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, key: str) -> bool:
        """Whether the window for ``key`` is full (counts nothing)."""
        with self._lock:
            return len(self._window(key, self.clock())) >= self.events

    def allow(self, key: str) -> bool:
        """Count one event for ``key``; False (and not counted) when the window is full."""
        now = self.clock()
        with self._lock:
            window = self._window(key, now)
            if len(window) >= self.events:
                return False
            window.append(now)
            if len(self._seen) > 10_000:  # forget keys whose windows are empty
                self._seen = {k: w for k, w in self._seen.items() if w and w[-1] > now - self.per_s}
            return True

    def _window(self, key: str, now: float) -> collections.deque[float]:
        window = self._seen.setdefault(key, collections.deque())
        while window and window[0] <= now - self.per_s:
            window.popleft()
        return window
