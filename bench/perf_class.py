"""class: a teacher and 30 following students as websocket clients of one app server, on
SQLite and on PostgreSQL.

Every client speaks Streamlit's own protocol, as the front end does (tests/support/class_protocol.py:
it reads its websocket all the time, follows switch_page and the address's query string, and
keeps the timers st.fragment(run_every=...) asks for, as the browser does).

Measured, for each database (class.sqlite, class.postgres):
- p95_follow_ms: the teacher clicks Next or Back in presenter mode on Step by step (20 moves);
  from sending the click until every one of the 30 students has finished a run that shows
  the teacher's new progress line ("Step k of 9"). Target <= 1,500 ms.
- p95_follow_ms_cpu1: the same with the server in the Cloud-sized cgroup of perf_cloud
  (1 CPU, 690 MB). Target <= 2,500 ms.
- idle_cpu_pct: the server's CPU time (user + system) over 30 s while the 30 follow a teacher
  who does nothing, as a share of one core. Target <= 20 %. On PostgreSQL the database
  server's own processes are reported beside it (idle_cpu_pct_db_server).
- answers_lost: the teacher asks Step by step's predict-first question, the 30 send an answer
  within one second (each at a random moment in it); 30 minus the answers the database holds
  (target 0), and what the teacher's screen then reads (target "30 of 30 answered").
"""

from __future__ import annotations

import asyncio
import random
import re
import tempfile
import time
from pathlib import Path

import perf_cloud
from perf_browser import Server
from perf_inputs import ROOT, Unavailable, percentile

from tests.support.class_protocol import STUDENTS, Client, join, open_class, present, step_of
from tests.support.pg_cluster import PostgresCluster

MOVES = ["next"] * 8 + ["back"] * 8 + ["next"] * 4  # 20 moves: steps 1 -> 9 -> 1 -> 5
IDLE_S = 30.0
ANSWER_WINDOW_S = 1.0
ANSWERED = re.compile(r"^\*\*(\d+) of (\d+) answered\*\*$")


async def _moves(teacher: Client, students: list[Client], moves: list[str]) -> list[float]:
    """Milliseconds from each click until the last student shows the teacher's new step."""
    out = []
    step = 1
    for move in moves:
        step += 1 if move == "next" else -1
        t0 = await teacher.click("Next →" if move == "next" else "← Back")
        await teacher.wait_run(lambda texts, s=step: step_of(texts) == s, t0)
        shown = await asyncio.gather(*(s.wait_run(lambda texts, k=step: step_of(texts) == k, t0) for s in students))
        out.append((max(shown) - t0) * 1000.0)
        await asyncio.sleep(0.5)
    return out


async def _idle_cpu(pids: list[int], seconds: float = IDLE_S) -> list[float]:
    """CPU time of each process tree over ``seconds`` of an idle teacher, as % of one core."""
    await asyncio.sleep(3.0)  # the last move's runs are over
    before = [perf_cloud.cpu_seconds(pid) for pid in pids]
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    wall = time.perf_counter() - t0
    return [round((perf_cloud.cpu_seconds(pid) - b) / wall * 100.0, 1) for pid, b in zip(pids, before, strict=True)]


async def _answers(teacher: Client, students: list[Client], db_url: str, code: str) -> tuple[int, str]:
    """The 30 answer within ANSWER_WINDOW_S; returns (answers lost, the teacher's count line)."""
    step = 5
    while step < 8:  # the question is on step 8
        step += 1
        t0 = await teacher.click("Next →")
        await teacher.wait_run(lambda texts, s=step: step_of(texts) == s, t0)
    for student in students:
        await student.wait_run(lambda texts, s=student: "Your pick" in s.widgets and step_of(texts) == 8, t0)
    rng = random.Random(26)

    async def answer(student: Client) -> None:
        await asyncio.sleep(rng.uniform(0.0, ANSWER_WINDOW_S))
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        pick_id, fragment = student.widgets["Your pick"]
        slider = next(label for label in student.widgets if label.startswith("Your estimate"))
        send_id, _ = student.widgets["Send"]
        states = [
            WidgetState(id=pick_id, string_value="1: cat"),
            WidgetState(id=student.widgets[slider][0]),
            WidgetState(id=send_id, trigger_value=True),
        ]
        states[1].double_array_value.data.append(0.4)
        sent = await student.send(states, fragment_id=fragment)
        await student.wait_run(lambda texts: True, sent)

    await asyncio.gather(*(answer(s) for s in students))
    await asyncio.sleep(0.5)
    stored = _stored_answers(db_url, code)
    t0 = await teacher.send()  # the teacher's page reruns (its live count also ticks every second)
    when = await teacher.wait_run(lambda texts: any(ANSWERED.match(t) for t in texts), t0)
    texts = next(texts for w, _, texts in teacher.finished if w == when)
    return STUDENTS - stored, next(t.strip("*") for t in texts if ANSWERED.match(t))


def _stored_answers(db_url: str, code: str) -> int:
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from classroom import storage
    from classroom.tables import Answer

    engine = storage.make_engine(db_url)
    try:
        with Session(engine) as s:
            return s.scalar(select(func.count()).select_from(Answer).where(Answer.room == code))
    finally:
        engine.dispose()


async def _session(server: Server, db_url: str, *, idle: bool, answers: bool, db_pid: int | None = None) -> dict:
    await server.healthy(timeout_s=180.0)
    teacher, code = await open_class(server.url)
    students = await join(server.url, code, STUDENTS)
    clients = [teacher, *students]
    try:
        await present(teacher, students)
        follow = await _moves(teacher, students, MOVES)
        out = {"p95_follow_ms": round(percentile(follow, 95), 0), "max_follow_ms": round(max(follow), 0)}
        out["p50_follow_ms"] = round(percentile(follow, 50), 0)
        if idle:
            cpu = await _idle_cpu([server.proc.pid, *([db_pid] if db_pid else [])])
            out["idle_cpu_pct"] = cpu[0]
            if db_pid:
                out["idle_cpu_pct_db_server"] = cpu[1]  # PostgreSQL's own processes, not in idle_cpu_pct
        if answers:
            out["answers_lost"], out["teacher_reads"] = await _answers(teacher, students, db_url, code)
        out["client_errors"] = sum(len(c.errors) for c in clients)
        return out
    finally:
        for client in clients:
            await client.close()


async def _measure(db_url: str, notes: dict, kind: str, db_pid: int | None = None) -> dict:
    server = Server(db_url=db_url)
    server.start()
    try:
        result = await _session(server, db_url, idle=True, answers=True, db_pid=db_pid)
    finally:
        server.stop()
    why = perf_cloud.Cgroup.unavailable()
    if why:
        result["p95_follow_ms_cpu1"] = None
        notes.setdefault("class", {})[f"{kind}.p95_follow_ms_cpu1"] = f"null: {why}"
        return result
    cgroup = perf_cloud.Cgroup(f"{perf_cloud.NAME}-class")
    cloud = perf_cloud.CloudServer(cgroup)
    cloud.db_url = db_url
    try:
        cgroup.limit(1.0, perf_cloud.MEMORY_MB)
        cloud.start()
        limited = await _session(cloud, db_url, idle=False, answers=False)
        result["p95_follow_ms_cpu1"] = limited["p95_follow_ms"]
        result["p50_follow_ms_cpu1"] = limited["p50_follow_ms"]
        result["client_errors"] += limited["client_errors"]
    finally:
        cloud.stop()
        cgroup.remove()
    return result


async def _phase(results: dict, notes: dict) -> None:
    out: dict = {"students": STUDENTS, "moves": len(MOVES)}
    folder = Path(tempfile.mkdtemp(prefix="sae-bench-class-"))
    out["sqlite"] = await _measure(f"sqlite:///{folder / 'class.sqlite3'}", notes, "sqlite")
    try:
        cluster = PostgresCluster().start()
    except RuntimeError as err:
        raise Unavailable(str(err)) from err
    try:
        out["postgres"] = await _measure(cluster.new_database(), notes, "postgres", db_pid=cluster.pid())
    finally:
        cluster.stop()
    results["class"] = out


def run(results: dict, notes: dict) -> None:
    """Fill results['class'] (sqlite and postgres)."""
    if not (ROOT / "lessons" / "class_room" / "page.py").exists():
        raise Unavailable("no Class page")
    asyncio.run(_phase(results, notes))
