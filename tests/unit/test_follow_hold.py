"""A follower's tick that finds no move holds on the server for a moment (ui.class_mode.follow.held):
it reads the room's version again until the teacher moves, the room is gone, or the hold is over.
That the hold ends before the browser shows its "Running" sign is checked in a browser
(tests/browser/test_class_mode.py). The clock here is a fake one that only sleeping moves, so no
test depends on how busy the machine is."""

from __future__ import annotations

import pytest

from ui.class_mode import follow


class Clock:
    """time.monotonic and time.sleep for follow: sleeping moves the clock, nothing else does."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(follow.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(follow.time, "sleep", fake.sleep)
    follow._READS.clear()
    return fake


class Versions:
    """A room's version as successive reads see it: ``values`` in turn, then the last one."""

    def __init__(self, *values: int | None) -> None:
        self.values = list(values)
        self.reads = 0

    def __call__(self, code: str) -> int | None:
        assert code == "ABC123"
        self.reads += 1
        return self.values[min(self.reads, len(self.values)) - 1]


def test_a_move_during_the_hold_is_taken_at_the_next_read(clock):
    read = Versions(3, 4)  # the teacher moves between the first and the second read of the hold
    start = clock.now
    assert follow.held(read, "ABC123", applied=3, version=3) == 4
    assert read.reads == 2
    assert clock.now - start == pytest.approx(2 * follow.HOLD_STEP_S)


def test_without_a_move_the_hold_ends_in_time_with_a_bounded_number_of_reads(clock):
    read = Versions(3)
    start = clock.now
    assert follow.held(read, "ABC123", applied=3, version=3) == 3
    assert read.reads == round(follow.HOLD_S / follow.HOLD_STEP_S)
    assert clock.now - start == pytest.approx(follow.HOLD_S)


@pytest.mark.parametrize(("applied", "version"), [(3, 4), (3, None), (None, 2)])
def test_a_tick_that_already_sees_a_move_or_no_room_does_not_wait(clock, applied, version):
    read = Versions(99)
    start = clock.now
    assert follow.held(read, "ABC123", applied=applied, version=version) == version
    assert read.reads == 0 and clock.now == start


def test_a_room_that_closes_during_the_hold_ends_it(clock):
    read = Versions(None)
    assert follow.held(read, "ABC123", applied=3, version=3) is None
    assert read.reads == 1


def test_followers_on_one_server_share_a_fresh_read_of_the_version(clock):
    read = Versions(3, 4)
    assert [follow._version(read, "ABC123") for _ in range(5)] == [3] * 5  # within SHARED_S: one read
    assert read.reads == 1
    clock.sleep(follow.SHARED_S * 0.9)
    assert follow._version(read, "ABC123") == 3 and read.reads == 1
    clock.sleep(follow.SHARED_S * 0.2)
    assert follow._version(read, "ABC123") == 4  # older than SHARED_S: read again
    assert read.reads == 2


def test_a_failed_read_is_not_kept(clock):
    def unavailable(code: str) -> int | None:
        raise follow.UnavailableError("the database is away")

    with pytest.raises(follow.UnavailableError):
        follow._version(unavailable, "ABC123")
    assert "ABC123" not in follow._READS
