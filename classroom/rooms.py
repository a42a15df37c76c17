"""Rooms: a teacher opens one, students join it by its code and follow the teacher's view,
answer the teacher's questions, and see the answers once the teacher reveals them.

Every method is one short transaction. Teachers prove their hold with the room's key and
their tab's holder id; students are random ids. Anything a caller may get wrong raises
``RefusedError`` (nothing changed); a database that cannot be used raises ``UnavailableError``.
Followers ask ``version`` (one primary-key read) before anything heavier; ``state`` keeps
the last state read per room as a copy that a new version replaces.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy import Engine, delete, exc, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from classroom import codes
from classroom.limits import Limits, RateLimit
from classroom.model import PollQuestion, RefusedError, RoomState, Tally, Teacher, UnavailableError, View
from classroom.storage import WRITE, unavailable
from classroom.tables import Answer, Member, Question, Room

P = ParamSpec("P")
R = TypeVar("R")
SWEEP_EVERY_S = 60.0  # expired rooms are deleted at most this often per process (and read as closed at once)
STATES_KEPT = 1000


def no_room(code: str) -> str:
    return f"No open class with code {code}." if code else "Type a class code first."


def _view(text: str) -> View:
    """The stored view; a view this app cannot read (written by another version of it) is an
    empty one until the teacher's next move publishes a new one."""
    try:
        return View.from_json(text)
    except (ValueError, KeyError, TypeError):
        return View()


def _guarded(method: Callable[P, R]) -> Callable[P, R]:
    """Database and file errors become UnavailableError; RefusedError passes through unchanged."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except (RefusedError, UnavailableError):
            raise
        except (exc.SQLAlchemyError, OSError) as err:
            raise unavailable(err) from err

    return wrapper


class Classroom:
    """The rooms of one database. Create one per engine and share it between sessions."""

    def __init__(self, engine: Engine, *, clock: Callable[[], float] = time.time, limits: Limits | None = None) -> None:
        self.engine = engine
        self.limits = limits = limits or Limits()
        self.clock = clock
        self._writer = engine.execution_options(**WRITE)
        self._joins = RateLimit(limits.joins_per_minute, 60.0, clock)
        self._failed = RateLimit(limits.failed_joins_per_minute, 60.0, clock)
        self._opens = RateLimit(limits.rooms_per_hour, 3600.0, clock)
        self._states: dict[str, RoomState] = {}
        self._lock = threading.Lock()
        self._swept = -math.inf
        dialect = engine.dialect.name
        self._insert = postgresql.insert if dialect == "postgresql" else sqlite.insert

    # ------------------------------------------------------------------ sessions and helpers

    def _read(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def _write(self) -> Session:
        return Session(self._writer, expire_on_commit=False)

    def _oldest_live(self) -> float:
        return self.clock() - self.limits.room_ttl_s

    def _live_room(self, s: Session, code: str, *, lock: bool = False) -> Room:
        query = select(Room).where(Room.code == code, Room.active_at > self._oldest_live())
        room = s.scalars(query.with_for_update() if lock else query).one_or_none()
        if room is None:
            raise RefusedError(no_room(code))
        return room

    def _teacher_room(self, s: Session, teacher: Teacher, *, lock: bool = True) -> Room:
        """The teacher's open room, its row locked (``lock``) for a change the teacher makes;
        RefusedError when the key or the tab's hold does not match."""
        room = self._live_room(s, teacher.code, lock=lock)
        if not codes.key_matches(teacher.key, room.key_hash):
            raise RefusedError(f"That teacher key does not open class {teacher.code}.")
        if room.holder != teacher.holder:
            raise RefusedError(f"Class {teacher.code} is now run from another tab or device.")
        return room

    def _touch(self, room: Room) -> None:
        now = self.clock()
        if now - room.active_at >= self.limits.touch_every_s:
            room.active_at = now

    # ------------------------------------------------------------------ teachers

    @_guarded
    def open_room(self, client: str) -> Teacher:
        """A new room with a fresh code and key (``client``: the browser session asking, rate-limited)."""
        if not self._opens.allow(client):
            raise RefusedError("You have started many classes in the last hour. Take one back with its teacher key.")
        self.expire()
        now, key, holder = self.clock(), codes.new_key(), codes.new_id()
        for _ in range(8):
            code = codes.new_code()
            try:
                with self._write() as s, s.begin():
                    live = s.scalar(select(func.count()).select_from(Room).where(Room.active_at > self._oldest_live()))
                    if live >= self.limits.max_open_rooms:
                        raise RefusedError(
                            f"This server already has {self.limits.max_open_rooms} open classes, its limit. "
                            "Try again later."
                        )
                    if s.get(Room, code) is not None:
                        continue
                    s.add(Room(code=code, key_hash=codes.hash_key(key), holder=holder, created_at=now, active_at=now))
                return Teacher(code=code, key=key, holder=holder)
            except exc.IntegrityError:  # another server took the same code at the same moment
                continue
        raise UnavailableError("No free class code was found. Try again.")

    @_guarded
    def take_back(self, code: str, key: str, client: str) -> Teacher:
        """Hold room ``code`` again from this tab, with its key; any other tab loses control."""
        code = codes.normalize(code)
        if not self._joins.allow(client):
            raise RefusedError("Too many attempts: wait a minute and try again.")
        holder = codes.new_id()
        with self._write() as s, s.begin():
            room = self._live_room(s, code, lock=True)
            if not codes.key_matches(key, room.key_hash):
                raise RefusedError(f"That teacher key does not open class {code}.")
            room.holder, room.active_at = holder, self.clock()
        return Teacher(code=code, key=key, holder=holder)

    @_guarded
    def publish(self, teacher: Teacher, view: View) -> int:
        """Make ``view`` what the followers see; returns the room's version (unchanged when the
        view is the one already published)."""
        text, poll = view.to_json(), ",".join(view.signatures)
        with self._write() as s, s.begin():
            room = self._teacher_room(s, teacher)
            if room.view == text:
                self._touch(room)
                return room.version
            now = self.clock()
            if view.questions:
                rows = [
                    dict(
                        room=room.code,
                        signature=q.signature,
                        n_options=len(q.options),
                        has_value=q.value is not None,
                        revealed=False,
                        asked_at=now,
                    )
                    for q in view.questions
                ]
                s.execute(self._insert(Question).values(rows).on_conflict_do_nothing())
            room.view, room.poll, room.version, room.active_at = text, poll, room.version + 1, now
            return room.version

    @_guarded
    def reveal(self, teacher: Teacher, question: PollQuestion) -> int:
        """Show the answers to ``question`` (one the room has asked) to everyone; returns the version."""
        with self._write() as s, s.begin():
            room = self._teacher_room(s, teacher)
            row = s.get(Question, (room.code, question.signature))
            if row is None:
                raise RefusedError("That question has not been asked in this class.")
            if not row.revealed:
                row.revealed = True
                room.version, room.active_at = room.version + 1, self.clock()
            return room.version

    @_guarded
    def check(self, teacher: Teacher) -> None:
        """RefusedError unless ``teacher`` still holds an open room; keeps the room alive."""
        with self._write() as s, s.begin():
            self._touch(self._teacher_room(s, teacher))

    @_guarded
    def close_room(self, teacher: Teacher) -> None:
        """End the class: the room, its questions, members and answers are deleted."""
        with self._write() as s, s.begin():
            self._teacher_room(s, teacher)
            self._delete(s, [teacher.code])

    # ------------------------------------------------------------------ students

    @_guarded
    def join(self, code: str, student: str) -> RoomState:
        """Let ``student`` follow room ``code`` (as typed); returns the room's state."""
        code = codes.normalize(code)
        if not self._joins.allow(student) or self._failed.blocked("server"):
            raise RefusedError("Too many attempts: wait a minute and try again.")
        if not codes.is_code(code):
            self._failed.allow("server")
            raise RefusedError(no_room(code[:12]))
        self._sweep()
        now = self.clock()
        try:
            with self._write() as s, s.begin():
                room = self._live_room(s, code)
                member = s.get(Member, (code, student))
                if member is None:
                    seated = s.scalar(
                        select(func.count())
                        .select_from(Member)
                        .where(Member.room == code, Member.seen_at > now - self.limits.seat_s)
                    )
                    if seated >= self.limits.max_students:
                        raise RefusedError(f"Class {code} is full: at most {self.limits.max_students} students.")
                    s.add(Member(room=code, student=student, joined_at=now, seen_at=now))
                else:
                    member.seen_at = now
                self._touch(room)
        except RefusedError as err:
            if str(err) == no_room(code):
                self._failed.allow("server")
            raise
        state = self.state(code)
        if state is None:  # closed in between
            raise RefusedError(no_room(code))
        return state

    @_guarded
    def heartbeat(self, code: str, student: str) -> bool:
        """Mark ``student`` as following now; False when they are not in an open room ``code``."""
        with self._write() as s, s.begin():
            done = s.execute(
                update(Member).where(Member.room == code, Member.student == student).values(seen_at=self.clock())
            )
            return bool(done.rowcount)

    @_guarded
    def answer(self, code: str, student: str, signature: str, option: object, estimate: object = None) -> None:
        """Record (or change) ``student``'s answer to the room's current question ``signature``.

        RefusedError, changing nothing, when the room is closed, the question is not the current
        one or is revealed, ``option`` is not an option's index, or ``estimate`` is not a
        number in [0, 1] (it is required exactly when the question asks for an estimate)."""
        if isinstance(option, bool) or not isinstance(option, int):
            raise RefusedError("That answer is not one of the options.")
        if estimate is not None:
            if isinstance(estimate, bool) or not isinstance(estimate, int | float) or not math.isfinite(estimate):
                raise RefusedError("An estimate must be a number between 0 and 1.")
            if not 0.0 <= float(estimate) <= 1.0:
                raise RefusedError("An estimate must be a number between 0 and 1.")
            estimate = float(estimate)
        with self._write() as s, s.begin():
            room = self._live_room(s, code)
            if not signature or signature not in room.poll.split(","):
                raise RefusedError("That question is no longer open: the teacher has moved on.")
            question = s.get(Question, (code, signature))
            if question is None or question.revealed:
                raise RefusedError("The answers to that question have been revealed: it is closed.")
            if not 0 <= option < question.n_options:
                raise RefusedError("That answer is not one of the options.")
            if question.has_value and estimate is None:
                raise RefusedError("This question also asks for an estimate between 0 and 1.")
            if not question.has_value and estimate is not None:
                raise RefusedError("This question asks for no estimate.")
            member = s.get(Member, (code, student))
            if member is None:
                raise RefusedError(f"You are not in class {code}: join it first.")
            now = self.clock()
            member.seen_at = now
            s.execute(
                self._insert(Answer)
                .values(room=code, signature=signature, student=student, option=option, estimate=estimate, at=now)
                .on_conflict_do_update(
                    index_elements=["room", "signature", "student"],
                    set_={"option": option, "estimate": estimate, "at": now},
                )
            )
            self._touch(room)

    @_guarded
    def my_answer(self, code: str, student: str, signature: str) -> tuple[int, float | None] | None:
        """The answer ``student`` gave to ``signature`` (only ever their own), or None."""
        with self._read() as s, s.begin():
            row = s.get(Answer, (code, signature, student))
            return None if row is None else (row.option, row.estimate)

    # ------------------------------------------------------------------ anyone

    @_guarded
    def version(self, code: str) -> int | None:
        """The room's version, or None when no open room has this code (the followers' cheap read)."""
        with self._read() as s, s.begin():
            return s.scalar(select(Room.version).where(Room.code == code, Room.active_at > self._oldest_live()))

    @_guarded
    def state(self, code: str) -> RoomState | None:
        """The room's state at its current version, or None when it is not open."""
        version = self.version(code)
        with self._lock:
            cached = self._states.get(code)
            if version is None:
                self._states.pop(code, None)
                return None
        if cached is not None and cached.version == version:
            return cached
        with self._read() as s, s.begin():
            room = s.scalars(select(Room).where(Room.code == code, Room.active_at > self._oldest_live())).one_or_none()
            if room is None:
                return None
            revealed = s.scalars(select(Question.signature).where(Question.room == code, Question.revealed))
            state = RoomState(code=code, version=room.version, view=_view(room.view), revealed=frozenset(revealed))
        with self._lock:
            if len(self._states) >= STATES_KEPT:
                self._states.clear()
            known = self._states.get(code)
            if known is None or known.version <= state.version:
                self._states[code] = state
        return state

    @_guarded
    def following(self, code: str) -> int:
        """How many students follow room ``code`` now (seen in the last ``following_s`` seconds)."""
        with self._read() as s, s.begin():
            since = self.clock() - self.limits.following_s
            return s.scalar(select(func.count()).select_from(Member).where(Member.room == code, Member.seen_at > since))

    @_guarded
    def tally(self, code: str, question: PollQuestion, teacher: Teacher | None = None) -> Tally:
        """The answers to ``question``, counted per option. The teacher sees it live; anyone
        else only once it is revealed. Nobody sees who answered what.

        The teacher's screen reads this every second: the key is checked without locking the
        room's row, so the tally never waits for (or holds up) a publish or a reveal."""
        signature = question.signature
        with self._read() as s, s.begin():
            if teacher is not None:
                self._teacher_room(s, teacher, lock=False)
            else:
                self._live_room(s, code)
                row = s.get(Question, (code, signature))
                if row is None or not row.revealed:
                    raise RefusedError("The class's answers are shown after the reveal.")
            counts = [0] * len(question.options)
            rows = s.execute(
                select(Answer.option, func.count())
                .where(Answer.room == code, Answer.signature == signature)
                .group_by(Answer.option)
            )
            for option, n in rows:
                if 0 <= option < len(counts):
                    counts[option] = n
            mean = s.scalar(select(func.avg(Answer.estimate)).where(Answer.room == code, Answer.signature == signature))
            answered = select(Answer.student).where(Answer.room == code, Answer.signature == signature)
            since = self.clock() - self.limits.following_s
            following = s.scalar(
                select(func.count())
                .select_from(Member)
                .where(Member.room == code, or_(Member.seen_at > since, Member.student.in_(answered)))
            )
        return Tally(
            counts=tuple(counts),
            answered=sum(counts),
            following=int(following or 0),
            mean_estimate=None if mean is None else float(mean),
        )

    # ------------------------------------------------------------------ expiry

    def _sweep(self) -> None:
        if self.clock() - self._swept >= SWEEP_EVERY_S:
            self.expire()

    @_guarded
    def expire(self) -> int:
        """Delete every room idle for longer than ``room_ttl_s``, with its questions, members and
        answers; returns how many rooms went."""
        self._swept = self.clock()
        with self._write() as s, s.begin():
            codes_gone = list(s.scalars(select(Room.code).where(Room.active_at <= self._oldest_live())))
            if codes_gone:
                self._delete(s, codes_gone)
        with self._lock:
            for code in codes_gone:
                self._states.pop(code, None)
        return len(codes_gone)

    @staticmethod
    def _delete(s: Session, room_codes: list[str]) -> None:
        for table in (Answer, Member, Question):
            s.execute(delete(table).where(table.room.in_(room_codes)))
        s.execute(delete(Room).where(Room.code.in_(room_codes)))
