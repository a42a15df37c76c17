"""What no browser sends: a student's client forges its answer straight over Streamlit's
protocol to a real `streamlit run` (an option that is not in the list, text for an option,
an estimate outside [0, 1], NaN, infinity). Streamlit's own widgets hand the page their
current value instead (the student's last answer), so the class's stored answer does not
change and the page raises nothing; the class's own checks behind them are tested in
tests/unit/test_classroom.py. On SQLite and on PostgreSQL. On the way there, as the student
follows the teacher's steps, it checks what keeps the follower's timer out of the full runs'
way (ui.class_mode.ticker): its fragment is a different one from one full run to the next."""

from __future__ import annotations

import asyncio
import concurrent.futures
import math

from sqlalchemy import select
from sqlalchemy.orm import Session

from classroom import storage
from classroom.tables import Answer
from tests.support.browser.server import StreamlitServer
from tests.support.class_protocol import Client, asked_now, join, open_class, present, step_of
from ui.class_mode import follow
from ui.class_mode import words as class_words

QUESTION_STEP = 8  # Step by step asks its predict-first question on step 8 in presenter mode


def stored(db_url: str, code: str) -> list[tuple[int, float | None]]:
    engine = storage.make_engine(db_url)
    try:
        with Session(engine) as s:
            return [(a.option, a.estimate) for a in s.scalars(select(Answer).where(Answer.room == code))]
    finally:
        engine.dispose()


async def send_answer(student: Client, pick: str, estimate: float, shows: str) -> list[str]:
    """The answer form's fragment rerun with these widget values and Send; the texts of the
    first run after it that shows ``shows`` (other runs, the follower's loop's, finish between)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    pick_id, fragment = student.widgets["Your pick"]
    slider = next(label for label in student.widgets if label.startswith("Your estimate"))
    states = [
        WidgetState(id=pick_id, string_value=pick),
        WidgetState(id=student.widgets[slider][0]),
        WidgetState(id=student.widgets["Send"][0], trigger_value=True),
    ]
    states[1].double_array_value.data.append(estimate)
    sent = await student.send(states, fragment_id=fragment)
    # A run that drew the form's answer counts even if a request that came in meanwhile ended it
    # early (status 2): what it drew stays on the page.
    when = await student.wait_run(lambda texts: shows in texts, sent, statuses=(0, 2, 3))
    return next(texts for w, _, texts in student.finished if w == when)


async def scenario(url: str, db_url: str) -> None:
    teacher, code = await open_class(url)
    (student,) = await join(url, code, n=1)
    clients = [teacher, student]
    try:
        await present(teacher, [student])
        for step in range(2, QUESTION_STEP + 1):
            t0 = await teacher.click("Next →")
            await teacher.wait_run(lambda texts, s=step: step_of(texts) == s, t0)
        await student.wait_run(lambda texts: step_of(texts) == QUESTION_STEP and "Your pick" in student.widgets, 0.0)
        # The follower's loop is drawn at one of two places in turn, so each full run names a
        # fragment the run before did not (ui.class_mode.ticker): two timers' ids, no more.
        # (the interval comes as a float32: 0.8 reads 0.800000011920929)
        loops = {fid for fid, every in student.intervals.items() if math.isclose(every, follow.POLL_S, rel_tol=1e-6)}
        assert len(loops) == 2, student.intervals
        question = asked_now(db_url, code)
        kept = class_words.sent(question, (2, 0.25))
        texts = await send_answer(student, "2: sat", 0.25, kept)
        assert stored(db_url, code) == [(2, 0.25)], texts
        forged = [("99: nowhere", 0.25), ("0", 0.25), ("", 0.25), ("<b>1: cat</b>", 0.25)]
        forged += [("2: sat", 7.5), ("2: sat", -1.0), ("2: sat", float("nan")), ("2: sat", float("inf"))]
        for pick, estimate in forged:
            texts = await send_answer(student, pick, estimate, kept)  # the page keeps the last answer
            assert stored(db_url, code) == [(2, 0.25)], (pick, estimate, texts)  # nothing changed
        await send_answer(student, "1: cat", 0.4, class_words.sent(question, (1, 0.4)))
        assert stored(db_url, code) == [(1, 0.4)]
        assert not student.errors and not teacher.errors, (student.errors, teacher.errors)
    finally:
        for client in clients:
            await client.close()


def test_forged_answers_are_refused_and_change_nothing(db_url) -> None:
    server = StreamlitServer(db_url=db_url).start()
    try:
        # A thread of its own: a browser test earlier in the same run may leave Playwright's sync
        # loop running in this one, and asyncio.run refuses to start beside it.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, scenario(server.url, db_url)).result(timeout=300)
    finally:
        server.stop()
