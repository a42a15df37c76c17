"""The classroom package against real databases: every test runs on an SQLite file and on a
throwaway PostgreSQL server (tests/conftest.py's ``db_url``). Nothing is mocked; time is
moved with the Classroom's own clock where expiry is tested."""

from __future__ import annotations

import concurrent.futures
import json
import math
import re
import subprocess
import sys
import threading

import pytest
from sqlalchemy import create_engine, event, inspect, select, text
from sqlalchemy.orm import Session

from classroom import Classroom, Limits, PollQuestion, RefusedError, UnavailableError, View, codes, storage
from classroom.tables import SCHEMA_VERSION, Answer, Member, Meta, Question, Room
from tests.conftest import ROOT

Q1 = PollQuestion(
    key="sbs_quiz",
    signature="5b0e7c1d9a3f2e48",  # the app gives each question its signature (ui.question.Question.signature)
    prompt="Which key does query 2 (“sat”) give the most weight, and how much?",
    options=("0: The", "1: cat", "2: sat", "3: on"),
    answer=1,
    value=0.41,
    value_label="the largest weight in the row",
)
Q2 = PollQuestion(
    key="lab_quiz",
    signature="c4d2a8f61e0b7395",
    prompt="What does ×100 do?",
    options=("same", "one wins", "equal"),
    answer=1,
)
STEP_VIEW = View(page="step-by-step", params=(("d_k", "8"), ("step", "8")), section="Step 8 of 9", single=True)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def engine(db_url):
    engine = storage.make_engine(db_url)
    storage.prepare(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def rooms(engine, clock) -> Classroom:
    return Classroom(engine, clock=clock)


def rows(engine) -> dict[str, list[tuple]]:
    """Every row of every class table, sorted: a snapshot to compare before and after."""
    out = {}
    with Session(engine) as s:
        for table in (Room, Question, Member, Answer, Meta):
            columns = [c.name for c in table.__table__.columns]
            out[table.__tablename__] = sorted(
                tuple(getattr(r, c) for c in columns) for r in s.scalars(select(table)).all()
            )
    return out


def with_question(rooms: Classroom, *questions: PollQuestion):
    """A room showing Step by step with ``questions`` asked, and a student in it."""
    teacher = rooms.open_room("teacher-tab")
    rooms.publish(teacher, View(**{**STEP_VIEW.__dict__, "questions": questions}))
    rooms.join(teacher.code, "student-1")
    return teacher


# --------------------------------------------------------------------------- the package


def test_the_package_imports_neither_streamlit_nor_the_app():
    """Importing classroom in a fresh interpreter loads no Streamlit and nothing of the app
    (import-linter checks the imports written in its source)."""
    probe = (
        "import sys, classroom, classroom.storage; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'ui', 'attn_core', 'lessons')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_question_is_named_by_the_signature_the_app_gives_it():
    """The room keys answers and reveals by the signature it is given: 16 hex digits, one per
    question of a view."""
    for bad in ("", "5B0E7C1D9A3F2E48", "5b0e7c1d9a3f2e4", "5b0e7c1d9a3f2e48 ", "x" * 16):
        with pytest.raises(ValueError, match="signature"):
            PollQuestion(**{**Q2.to_dict(), "options": Q2.options, "signature": bad})
    twin = PollQuestion(**{**Q2.to_dict(), "options": Q2.options, "key": "other_quiz"})
    with pytest.raises(ValueError, match="same signature"):
        View(page="softmax-lab", questions=(Q2, twin))
    assert PollQuestion.from_dict(Q1.to_dict()) == Q1


def test_a_view_this_app_cannot_read_is_an_empty_view(rooms, engine):
    """A view written by another version of the app (here: a question without a signature)
    reads as an empty view until the teacher's next move, instead of breaking every follower."""
    teacher = with_question(rooms, Q1)
    older = json.loads(View(page="step-by-step", questions=(Q1,)).to_json())
    del older["questions"][0]["signature"]
    with Session(engine) as s, s.begin():
        room = s.get(Room, teacher.code)
        room.view, room.version = json.dumps(older), room.version + 1
    assert rooms.state(teacher.code).view == View()


# --------------------------------------------------------------------------- codes and keys


def test_codes_use_capitals_and_digits_without_look_alikes():
    assert len(codes.ALPHABET) == len(set(codes.ALPHABET)) == 2**codes.BITS_PER_CHAR
    assert not set("0O1I") & set(codes.ALPHABET)
    assert set(codes.ALPHABET) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    drawn = {codes.new_code() for _ in range(2000)}
    assert all(re.fullmatch(f"[{codes.ALPHABET}]{{6}}", c) for c in drawn)
    assert len(drawn) > 1990  # random: 2000 draws from 32**6 codes almost never repeat
    assert set("".join(drawn)) == set(codes.ALPHABET)  # every symbol is used


def test_teacher_keys_hold_at_least_128_random_bits_and_are_stored_as_a_hash_only():
    key = codes.new_key()
    raw = codes.normalize(key)
    assert len(raw) * codes.BITS_PER_CHAR >= 128 and set(raw) <= set(codes.ALPHABET)
    assert codes.new_key() != key
    assert codes.key_matches(key.lower().replace("-", " "), codes.hash_key(key))  # typed loosely, still matches
    assert not codes.key_matches(codes.new_key(), codes.hash_key(key))
    assert re.fullmatch("[0-9a-f]{64}", codes.hash_key(key))


def test_the_key_never_reaches_the_database(rooms, engine):
    teacher = rooms.open_room("tab")
    rooms.publish(teacher, STEP_VIEW)
    dump = repr(rows(engine))
    assert codes.normalize(teacher.key) not in dump.upper().replace("-", "")
    assert codes.hash_key(teacher.key) in dump


# --------------------------------------------------------------------------- storage


def test_the_schema_is_created_with_its_version(engine):
    assert storage.schema_version(engine) == SCHEMA_VERSION
    tables = set(inspect(engine).get_table_names())
    assert {"class_meta", "class_rooms", "class_questions", "class_members", "class_answers"} <= tables
    storage.prepare(engine)  # a second server starting on the same database changes nothing
    assert storage.schema_version(engine) == SCHEMA_VERSION


def test_a_database_from_a_newer_app_is_refused_in_plain_words(engine):
    with Session(engine) as s, s.begin():
        s.get(Meta, "schema_version").value = str(SCHEMA_VERSION + 1)
    with pytest.raises(UnavailableError, match="newer version of this app"):
        storage.prepare(engine)


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    engine = storage.make_engine(f"sqlite:///{tmp_path / 'sub' / 'class.sqlite3'}")  # the folder is created
    try:
        storage.prepare(engine)
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == int(storage.BUSY_TIMEOUT_S * 1000)
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()


def test_postgres_urls_go_through_psycopg_3():
    assert storage.normalize_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert storage.normalize_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert storage.normalize_url("sqlite:///x.db").drivername == "sqlite"


def test_the_default_database_lives_outside_the_app_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    url = storage.default_url()
    assert url == f"sqlite:///{tmp_path / storage.APP_DIR / 'class.sqlite3'}"
    from tests.conftest import ROOT

    assert str(ROOT) not in url


def test_a_room_and_its_answers_survive_a_restart(db_url, clock):
    """A new engine on the same URL (a restarted app server) finds the room, its view, the
    member and the answers."""
    first = storage.make_engine(db_url)
    storage.prepare(first)
    before = Classroom(first, clock=clock)
    teacher = with_question(before, Q1)
    before.answer(teacher.code, "student-1", Q1.signature, 2, 0.3)
    state = before.state(teacher.code)
    first.dispose()

    second = storage.make_engine(db_url)
    try:
        storage.prepare(second)
        after = Classroom(second, clock=clock)
        assert after.state(teacher.code) == state
        assert after.my_answer(teacher.code, "student-1", Q1.signature) == (2, 0.3)
        assert after.tally(teacher.code, Q1, teacher).counts == (0, 0, 1, 0)
        after.publish(teacher, STEP_VIEW)  # the key and the tab's holder id still work
    finally:
        second.dispose()


def test_two_servers_on_one_database_agree(engine, clock):
    """Two Classroom objects (two app replicas) share only the database: a change made through
    one is what the other reads, even after the other cached the earlier state."""
    a, b = Classroom(engine, clock=clock), Classroom(engine, clock=clock)
    teacher = with_question(a, Q1)
    assert b.state(teacher.code).view.questions == (Q1,)
    a.publish(teacher, View(page="softmax-lab", questions=(Q2,)))
    seen = b.state(teacher.code)
    assert seen.view.page == "softmax-lab" and seen.version == a.version(teacher.code)
    b.join(teacher.code, "student-2")
    b.answer(teacher.code, "student-2", Q2.signature, 0)
    a.reveal(teacher, Q2)
    assert b.state(teacher.code).is_revealed(Q2)
    assert a.tally(teacher.code, Q2).counts == (1, 0, 0)


# --------------------------------------------------------------------------- rooms, views and versions


def test_the_version_moves_on_every_change_and_only_then(rooms):
    teacher = rooms.open_room("tab")
    v0 = rooms.version(teacher.code)
    v1 = rooms.publish(teacher, STEP_VIEW)
    assert v1 == v0 + 1
    assert rooms.publish(teacher, STEP_VIEW) == v1  # the same view again: nothing to follow
    v2 = rooms.publish(teacher, View(page="step-by-step", params=(("d_k", "8"), ("step", "9")), single=True))
    assert v2 == v1 + 1
    v3 = rooms.publish(teacher, View(page="step-by-step", questions=(Q1,)))
    assert rooms.reveal(teacher, Q1) == v3 + 1
    assert rooms.reveal(teacher, Q1) == v3 + 1  # revealed once
    state = rooms.state(teacher.code)
    assert state.version == v3 + 1 and state.is_revealed(Q1) and state.question("sbs_quiz") == Q1


def test_a_student_joins_by_code_as_typed(rooms):
    teacher = rooms.open_room("tab")
    rooms.publish(teacher, STEP_VIEW)
    typed = f" {teacher.code[:3].lower()}-{teacher.code[3:].lower()} "
    state = rooms.join(typed, "student-1")
    assert state.code == teacher.code and state.view == STEP_VIEW
    assert rooms.following(teacher.code) == 1


@pytest.mark.parametrize("code", ["ZZZZZZ", "", "ABC", "0O1I00", "<b>x</b>", "ÅÄÖ123"])
def test_an_unknown_code_is_refused_and_changes_nothing(rooms, engine, code):
    rooms.open_room("tab")
    before = rows(engine)
    with pytest.raises(RefusedError) as err:
        rooms.join(code, "student-1")
    assert str(err.value).startswith("No open class with code") or str(err.value) == "Type a class code first."
    assert rows(engine) == before


def test_students_cannot_move_the_room_or_reveal(rooms, engine):
    teacher = with_question(rooms, Q1)
    before = rows(engine)
    forged = [
        teacher.__class__(code=teacher.code, key=codes.new_key(), holder=teacher.holder),  # a guessed key
        teacher.__class__(code=teacher.code, key="", holder=teacher.holder),
        teacher.__class__(code=teacher.code, key=teacher.code, holder="student-1"),  # the code is not the key
    ]
    for fake in forged:
        with pytest.raises(RefusedError, match="teacher key does not open"):
            rooms.publish(fake, View(page="decoder"))
        with pytest.raises(RefusedError, match="teacher key does not open"):
            rooms.reveal(fake, Q1)
        with pytest.raises(RefusedError, match="teacher key does not open"):
            rooms.tally(teacher.code, Q1, fake)
        with pytest.raises(RefusedError, match="teacher key does not open"):
            rooms.close_room(fake)
    with pytest.raises(RefusedError, match="after the reveal"):
        rooms.tally(teacher.code, Q1)  # no teacher: counts only after the reveal
    assert rows(engine) == before


def test_taking_the_room_back_moves_control_to_the_new_tab(rooms):
    teacher = with_question(rooms, Q1)
    with pytest.raises(RefusedError, match="does not open"):
        rooms.take_back(teacher.code, codes.new_key(), client="other-device")
    again = rooms.take_back(teacher.code.lower(), teacher.key.lower(), client="other-device")
    assert again.code == teacher.code and again.holder != teacher.holder
    rooms.publish(again, View(page="decoder"))
    with pytest.raises(RefusedError, match="another tab or device"):
        rooms.publish(teacher, View(page="multi-head"))
    with pytest.raises(RefusedError, match="another tab or device"):
        rooms.check(teacher)
    rooms.check(again)
    assert rooms.state(teacher.code).view.page == "decoder"


def test_closing_the_class_deletes_everything_of_it(rooms, engine):
    teacher = with_question(rooms, Q1)
    other = with_question(rooms, Q1)
    rooms.answer(teacher.code, "student-1", Q1.signature, 1, 0.5)
    rooms.close_room(teacher)
    assert rooms.state(teacher.code) is None
    left = rows(engine)
    assert teacher.code not in repr({k: v for k, v in left.items() if k != "class_meta"})
    assert rooms.state(other.code) is not None


# --------------------------------------------------------------------------- answers and the poll


def test_answers_can_change_until_the_reveal_and_the_tally_names_no_one(rooms):
    teacher = with_question(rooms, Q1)
    code = teacher.code
    rooms.join(code, "student-2")
    rooms.answer(code, "student-1", Q1.signature, 3, 0.2)
    rooms.answer(code, "student-1", Q1.signature, 1, 0.4)  # changed
    rooms.answer(code, "student-2", Q1.signature, 1, 0.6)
    tally = rooms.tally(code, Q1, teacher)
    assert tally.counts == (0, 2, 0, 0) and tally.answered == 2 and tally.following == 2
    assert math.isclose(tally.mean_estimate, 0.5)
    assert "student" not in repr(tally)
    assert rooms.my_answer(code, "student-1", Q1.signature) == (1, 0.4)
    rooms.reveal(teacher, Q1)
    with pytest.raises(RefusedError, match="revealed"):
        rooms.answer(code, "student-1", Q1.signature, 2, 0.4)
    assert rooms.tally(code, Q1) == tally  # students see the same counts once revealed


def test_following_now_counts_recent_students_and_those_who_answered(rooms, clock):
    teacher = with_question(rooms, Q1)
    rooms.join(teacher.code, "student-2")
    rooms.answer(teacher.code, "student-2", Q1.signature, 0, 0.1)
    clock.now += rooms.limits.following_s + 1  # both went quiet
    rooms.join(teacher.code, "student-3")
    assert rooms.following(teacher.code) == 1
    assert rooms.tally(teacher.code, Q1, teacher).following == 2  # student-3, and student-2 who answered
    assert rooms.heartbeat(teacher.code, "student-1")
    assert not rooms.heartbeat(teacher.code, "never-joined")
    assert rooms.following(teacher.code) == 2


BAD_ANSWERS = [
    pytest.param(-1, 0.5, "not one of the options", id="option-negative"),
    pytest.param(4, 0.5, "not one of the options", id="option-past-the-end"),
    pytest.param(10**9, 0.5, "not one of the options", id="option-huge"),
    pytest.param(True, 0.5, "not one of the options", id="option-bool"),
    pytest.param("1", 0.5, "not one of the options", id="option-text"),
    pytest.param(1.0, 0.5, "not one of the options", id="option-float"),
    pytest.param(None, 0.5, "not one of the options", id="option-none"),
    pytest.param(1, -0.01, "between 0 and 1", id="estimate-negative"),
    pytest.param(1, 1.0001, "between 0 and 1", id="estimate-above-1"),
    pytest.param(1, math.nan, "between 0 and 1", id="estimate-nan"),
    pytest.param(1, math.inf, "between 0 and 1", id="estimate-inf"),
    pytest.param(1, "0.5", "between 0 and 1", id="estimate-text"),
    pytest.param(1, None, "also asks for an estimate", id="estimate-missing"),
]


@pytest.mark.parametrize(("option", "estimate", "message"), BAD_ANSWERS)
def test_out_of_range_answers_are_refused_and_change_nothing(rooms, engine, option, estimate, message):
    teacher = with_question(rooms, Q1)
    rooms.answer(teacher.code, "student-1", Q1.signature, 2, 0.3)
    before = rows(engine)
    with pytest.raises(RefusedError, match=message):
        rooms.answer(teacher.code, "student-1", Q1.signature, option, estimate)
    assert rows(engine) == before
    assert rooms.my_answer(teacher.code, "student-1", Q1.signature) == (2, 0.3)


def test_answers_to_anything_but_the_current_question_are_refused(rooms, engine):
    teacher = with_question(rooms, Q1, Q2)
    code = teacher.code
    rooms.answer(code, "student-1", Q2.signature, 2)  # both questions of the view are open
    with pytest.raises(RefusedError, match="asks for no estimate"):
        rooms.answer(code, "student-1", Q2.signature, 1, 0.5)
    rooms.publish(teacher, View(page="multi-head"))  # the teacher moves on
    before = rows(engine)
    for signature in (Q1.signature, Q2.signature, "0" * 16, "", "x" * 100):
        with pytest.raises(RefusedError, match="no longer open"):
            rooms.answer(code, "student-1", signature, 0, 0.5)
    assert rows(engine) == before
    rooms.publish(teacher, View(page="multi-head", questions=(Q2,)))
    before = rows(engine)
    with pytest.raises(RefusedError, match="not in class"):
        rooms.answer(code, "stranger", Q2.signature, 0)
    with pytest.raises(RefusedError, match="No open class"):
        rooms.answer("ZZZZZZ", "student-1", Q2.signature, 0)
    assert rows(engine) == before


def test_thirty_answers_at_once_are_all_counted(rooms):
    """30 students answer within the same moment, each from its own thread (as 30 Streamlit
    sessions do): no answer is lost and the teacher's count reads 30."""
    teacher = rooms.open_room("tab")
    rooms.publish(teacher, View(page="step-by-step", questions=(Q1,)))
    students = [f"student-{n}" for n in range(30)]
    for student in students:
        rooms.join(teacher.code, student)
    start, errors = threading.Barrier(30), []

    def answer(n: int) -> None:
        start.wait()
        try:
            rooms.answer(teacher.code, students[n], Q1.signature, n % 4, (n % 11) / 10)
        except Exception as err:
            errors.append(f"{type(err).__name__}: {err}")

    threads = [threading.Thread(target=answer, args=(n,)) for n in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    tally = rooms.tally(teacher.code, Q1, teacher)
    assert tally.answered == 30 and tally.counts == tuple(sum(1 for n in range(30) if n % 4 == k) for k in range(4))
    assert math.isclose(tally.mean_estimate, sum((n % 11) / 10 for n in range(30)) / 30)


def test_the_teachers_live_tally_takes_no_lock_on_the_room(rooms, engine):
    """The teacher's screen reads the tally every second: it checks the teacher's key without
    locking the room's row (no SELECT … FOR UPDATE on PostgreSQL, no write transaction on
    SQLite), while a reveal, which changes the room, does lock it."""
    teacher = with_question(rooms, Q1)
    statements: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement.upper())

    lock = "FOR UPDATE" if engine.dialect.name == "postgresql" else "BEGIN IMMEDIATE"
    event.listen(engine, "before_cursor_execute", note)
    try:
        rooms.tally(teacher.code, Q1, teacher)
        tally_sql, statements[:] = list(statements), []
        rooms.reveal(teacher, Q1)
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert any(lock in sql for sql in statements), statements  # what a lock looks like, seen
    assert tally_sql and not any(lock in sql for sql in tally_sql), tally_sql


def test_the_live_tally_does_not_wait_for_a_change_that_holds_the_room(rooms, engine):
    """Another server's publish holds the room's row (locked, mid-transaction): the teacher's
    tally still answers at once, with the counts as they were."""
    teacher = with_question(rooms, Q1)
    rooms.answer(teacher.code, "student-1", Q1.signature, 2, 0.3)
    with (
        Session(engine.execution_options(**storage.WRITE)) as other,
        concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool,
    ):
        other.begin()
        room = other.scalars(select(Room).where(Room.code == teacher.code).with_for_update()).one()
        room.active_at += 1.0
        other.flush()  # the row is changed and locked until this transaction ends
        pending = pool.submit(rooms.tally, teacher.code, Q1, teacher)
        try:
            tally = pending.result(timeout=10)
        finally:
            other.rollback()  # lets a tally that did wait finish, so the test ends either way
    assert tally.counts == (0, 0, 1, 0) and tally.answered == 1


# --------------------------------------------------------------------------- limits and expiry


def test_a_room_takes_at_most_max_students(engine, clock):
    rooms = Classroom(engine, clock=clock, limits=Limits(max_students=3))
    teacher = rooms.open_room("tab")
    for n in range(3):
        rooms.join(teacher.code, f"s{n}")
    before = rows(engine)
    with pytest.raises(RefusedError, match="full: at most 3 students"):
        rooms.join(teacher.code, "s3")
    assert rows(engine) == before
    rooms.join(teacher.code, "s1")  # one already in may come back
    clock.now += rooms.limits.seat_s + 1  # students gone long enough free their seats
    rooms.join(teacher.code, "s3")


def test_a_server_opens_at_most_max_open_rooms(engine, clock):
    rooms = Classroom(engine, clock=clock, limits=Limits(max_open_rooms=2))
    rooms.open_room("a")
    rooms.open_room("b")
    with pytest.raises(RefusedError, match="already has 2 open classes"):
        rooms.open_room("c")
    clock.now += rooms.limits.room_ttl_s + 1  # both expire: their places free up
    rooms.open_room("c")


def test_new_rooms_per_session_are_limited(engine, clock):
    rooms = Classroom(engine, clock=clock, limits=Limits(rooms_per_hour=2))
    rooms.open_room("tab")
    rooms.open_room("tab")
    with pytest.raises(RefusedError, match="many classes in the last hour"):
        rooms.open_room("tab")
    rooms.open_room("another-tab")


def test_joins_are_rate_limited_per_session_and_guessing_per_server(engine, clock):
    rooms = Classroom(engine, clock=clock, limits=Limits(joins_per_minute=3, failed_joins_per_minute=5))
    teacher = rooms.open_room("tab")
    for _ in range(3):
        rooms.join(teacher.code, "eager")
    with pytest.raises(RefusedError, match="Too many attempts"):
        rooms.join(teacher.code, "eager")
    for n in range(5):  # five wrong guesses from five sessions
        with pytest.raises(RefusedError, match="No open class"):
            rooms.join("ZZZZZ" + codes.ALPHABET[n], f"guesser-{n}")
    with pytest.raises(RefusedError, match="Too many attempts"):  # now even the right code waits
        rooms.join(teacher.code, "latecomer")
    clock.now += 61
    rooms.join(teacher.code, "latecomer")
    rooms.join(teacher.code, "eager")


def test_rooms_expire_after_three_idle_hours_with_their_answers(rooms, engine, clock):
    assert rooms.limits.room_ttl_s == 3 * 3600
    teacher = with_question(rooms, Q1)
    rooms.answer(teacher.code, "student-1", Q1.signature, 1, 0.5)
    clock.now += 2.9 * 3600
    rooms.publish(teacher, STEP_VIEW)  # activity: the three hours start again
    clock.now += 2.9 * 3600
    assert rooms.version(teacher.code) is not None
    clock.now += 0.2 * 3600
    assert rooms.version(teacher.code) is None and rooms.state(teacher.code) is None
    with pytest.raises(RefusedError, match="No open class"):
        rooms.join(teacher.code, "student-2")
    rooms.expire()
    left = rows(engine)
    assert all(not left[t] for t in ("class_rooms", "class_questions", "class_members", "class_answers"))


# --------------------------------------------------------------------------- when the database is not there


def test_an_unreachable_database_says_so_in_plain_words(postgres):
    engine = storage.make_engine(f"postgresql://postgres@127.0.0.1:{postgres.port + 1}/nowhere")
    try:
        with pytest.raises(UnavailableError, match="cannot be reached") as err:
            Classroom(engine).version("ABCDEF")
        assert "Traceback" not in str(err.value) and "psycopg" not in str(err.value)
    finally:
        engine.dispose()


def test_a_sqlite_file_that_cannot_be_created_says_so_in_plain_words(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(UnavailableError, match="cannot be opened or written"):
        storage.open_engine(f"sqlite:///{tmp_path / 'a-file' / 'class.sqlite3'}")


def test_a_damaged_sqlite_file_says_so_in_plain_words(tmp_path):
    (tmp_path / "class.sqlite3").write_bytes(b"this is not SQLite " * 100)
    with pytest.raises(UnavailableError, match="damaged"):
        storage.open_engine(f"sqlite:///{tmp_path / 'class.sqlite3'}")


def test_a_locked_sqlite_database_says_so_in_plain_words(tmp_path, monkeypatch):
    monkeypatch.setattr(storage, "BUSY_TIMEOUT_S", 0.2)
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    engine = storage.make_engine(url)
    storage.prepare(engine)
    other = create_engine(url, connect_args={"isolation_level": None})
    try:
        with other.connect() as conn:
            conn.execute(text("BEGIN EXCLUSIVE"))  # another program holds the write lock
            with pytest.raises(UnavailableError, match="busy"):
                Classroom(engine).open_room("tab")
            conn.execute(text("ROLLBACK"))
        Classroom(engine).open_room("tab")  # and once it lets go, all is well
    finally:
        other.dispose()
        engine.dispose()


@pytest.mark.parametrize("url", ["nosuchdb://x", "not a url at all", "mysql+nosuchdriver://u@h/db"])
def test_a_bad_url_says_so_in_plain_words(url):
    with pytest.raises(UnavailableError, match=re.escape("The class database address (CLASS_DB_URL)")):
        storage.open_engine(url)
