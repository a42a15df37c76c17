"""Class mode over Streamlit's protocol: a browser-less client of a running `streamlit run`
that speaks Streamlit's own protocol (BackMsg/ForwardMsg protobufs over the websocket) and
keeps what the front end keeps.

bench/perf_protocol.py's ProtocolSession sends a request and reads until its run ends;
here runs also start on the server's side (st.switch_page, st.rerun from a fragment, the
timers of st.fragment(run_every=...)), so the client reads its websocket all the time. Like
the browser it follows the page it is on and the address's query string, drops every
fragment timer when a full run starts and starts one per auto_rerun message, and sends a
fragment's rerun on every tick. The teacher's and the students' first steps in a class
(start a class, join it, present Step by step) follow. Used by class mode's bench
(bench/perf_class.py) and by tests that send what no browser would
(tests/app/test_class_forged.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time

from ui.class_mode import words as class_words

STREAM = "/_stcore/stream"
TIMEOUT_S = 60.0
STUDENTS = 30
CODE = re.compile(r"^\*\*([A-Z2-9]{6})\*\*$")
PROGRESS = re.compile(r"^(?:## )?\*\*Step (\d+) of (\d+)\*\*")  # presenter mode: a heading


class Client:
    """One browser tab's worth of Streamlit protocol, reading its websocket all the time."""

    def __init__(self, ws, name: str) -> None:
        self.ws, self.name = ws, name
        self.page_hash = ""
        self.query = ""
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.widgets: dict[str, tuple[str, str]] = {}  # label -> (widget id, fragment id)
        self.texts: list[str] = []  # markdown, caption and alert bodies of the run in progress
        self.finished: list[tuple[float, int, list[str]]] = []  # (when, status, texts) per finished run
        self.timers: dict[str, asyncio.Task] = {}  # st.fragment(run_every=...): fragment id -> its ticks
        self.intervals: dict[str, float] = {}
        self.changed = asyncio.Condition()
        self.errors: list[str] = []
        self.reader: asyncio.Task | None = None

    @classmethod
    async def open(cls, url: str, name: str, page: str = "", query: str = "") -> Client:
        import websockets

        ws = await websockets.connect(url.replace("http", "ws", 1) + STREAM, subprotocols=["streamlit"], max_size=None)
        client = cls(ws, name)
        client.query = query
        client.reader = asyncio.create_task(client._read())
        await client.send(page_name=page)
        return client

    async def send(self, states=(), fragment_id: str = "", auto: bool = False, page_name: str | None = None) -> float:
        """A rerun request as the front end sends it; returns when it was sent (perf_counter)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        request = msg.rerun_script
        request.query_string = self.query
        request.page_script_hash = self.page_hash
        if page_name is not None and not self.page_hash:
            request.page_name = page_name
        request.widget_states.widgets.extend(states)
        if fragment_id:
            request.fragment_id = fragment_id
            request.is_auto_rerun = auto
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return t0

    async def go(self, url_path: str) -> float:
        """Open another page, as a click in the sidebar does."""
        self.page_hash, self.query = self.pages[url_path], ""
        return await self.send()

    async def click(self, label: str, **value) -> float:
        """Set or click the widget labelled ``label`` (a button when no value is given)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        widget_id, fragment_id = self.widgets[label]
        state = WidgetState(id=widget_id)
        if not value:
            state.trigger_value = True
        for kind, v in value.items():
            if kind == "double_array_value":
                state.double_array_value.data.extend(v)
            else:
                setattr(state, kind, v)
        return await self.send([state], fragment_id=fragment_id)

    async def wait_run(
        self, check, since: float, timeout_s: float = TIMEOUT_S, statuses: tuple[int, ...] = (0, 3)
    ) -> float:
        """When a run that finished after ``since`` (with one of ``statuses``: by default a full
        or a fragment run that ran to its end) first satisfied ``check(texts)``."""
        deadline = time.perf_counter() + timeout_s
        async with self.changed:
            while True:
                for when, status, texts in self.finished:
                    if when >= since and status in statuses and check(texts):
                        return when
                left = deadline - time.perf_counter()
                if left <= 0:
                    runs = [(round(w - since, 2), n, [t[:40] for t in tx[:5]]) for w, n, tx in self.finished]
                    full = [run for run in runs if run[1] != 3]
                    after = [run for run in runs if run[0] >= 0]
                    page = next((p for p, h in self.pages.items() if h == self.page_hash), self.page_hash)
                    raise TimeoutError(
                        f"{self.name} on {page!r} ?{self.query}: no run showed what was awaited; "
                        f"last full runs {full[-3:]}; runs since {after[:8]} ({len(after)}) {self.errors}"
                    )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), left)

    async def close(self) -> None:
        for task in self.timers.values():
            task.cancel()
        if self.reader:
            self.reader.cancel()
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def _tick(self, fragment_id: str, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            with contextlib.suppress(Exception):
                await self.send(fragment_id=fragment_id, auto=True)

    async def _read(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        try:
            async for raw in self.ws:
                fwd = ForwardMsg.FromString(raw)
                kind = fwd.WhichOneof("type")
                if kind == "new_session":
                    self.page_hash = fwd.new_session.page_script_hash or self.page_hash
                    self.texts = []
                    if not fwd.metadata.run.fragment_ids:  # a full run: the browser drops every timer
                        for task in self.timers.values():
                            task.cancel()
                        self.timers.clear()
                elif kind == "navigation":
                    self.pages = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
                    self.page_hash = fwd.navigation.page_script_hash or self.page_hash
                elif kind == "page_info_changed":
                    self.query = fwd.page_info_changed.query_string
                elif kind == "delta":
                    self._note(fwd.delta)
                elif kind == "auto_rerun":  # as the browser: a timer per fragment, kept if its interval is the same
                    fid, interval = fwd.auto_rerun.fragment_id, fwd.auto_rerun.interval
                    known = self.intervals.get(fid)
                    if known != interval or fid not in self.timers:
                        if fid in self.timers:
                            self.timers.pop(fid).cancel()
                        self.intervals[fid] = interval
                        self.timers[fid] = asyncio.create_task(self._tick(fid, interval))
                elif kind == "stop_auto_rerun":
                    for fid in fwd.stop_auto_rerun.fragment_ids:
                        task = self.timers.pop(fid, None)
                        if task:
                            task.cancel()
                elif kind == "script_finished":
                    async with self.changed:
                        self.finished.append((time.perf_counter(), fwd.script_finished, self.texts))
                        self.texts = []
                        self.changed.notify_all()
        except Exception as err:  # the connection closed: the bench ends it, or the server went
            self.errors.append(f"{type(err).__name__}: {str(err)[:100]}")

    def _note(self, delta) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "markdown":
            self.texts.append(element.markdown.body)
        elif kind == "alert":  # st.info, st.warning, ...: their text too
            self.texts.append(element.alert.body)
        elif kind == "exception":
            self.errors.append(f"the page raised {element.exception.type}: {element.exception.message[:100]}")
        elif kind in ("button", "selectbox", "slider", "checkbox", "text_input", "number_input"):
            widget = getattr(element, kind)
            self.widgets[widget.label] = (widget.id, delta.fragment_id)


# --------------------------------------------------------------------------- a class


def asked_now(db_url: str, code: str):
    """The first question room ``code`` asks now (a classroom.PollQuestion), read from the
    teacher's view as the database holds it."""
    from sqlalchemy.orm import Session

    from classroom import View, storage
    from classroom.tables import Room

    engine = storage.make_engine(db_url)
    try:
        with Session(engine) as s:
            return View.from_json(s.get(Room, code).view).questions[0]
    finally:
        engine.dispose()


def step_of(texts: list[str]) -> int | None:
    for text in texts:
        found = PROGRESS.match(text)
        if found:
            return int(found.group(1))
    return None


async def open_class(url: str) -> tuple[Client, str]:
    """The teacher starts a class; returns the teacher's client and the room's code."""
    teacher = await Client.open(url, "teacher", page="class")
    await teacher.wait_run(lambda texts: True, 0.0)
    t0 = await teacher.click("Start a class")
    when = await teacher.wait_run(lambda texts: any(CODE.match(t) for t in texts), t0)
    texts = next(texts for w, _, texts in teacher.finished if w == when)
    return teacher, next(CODE.match(t).group(1) for t in texts if CODE.match(t))


async def join(url: str, code: str, n: int = STUDENTS) -> list[Client]:
    students = []
    for k in range(n):  # the join link, one student after the other (as a class scans the QR code)
        student = await Client.open(url, f"student {k + 1}", page="", query=f"room={code}")
        students.append(student)
    banner = class_words.following(code)
    for student in students:
        await student.wait_run(lambda texts: any(t.startswith(banner) for t in texts), 0.0)
    return students


async def present(teacher: Client, students: list[Client]) -> None:
    """The teacher opens Step by step, switches Predict first and presenter mode on; every student follows."""
    t0 = await teacher.go("step-by-step")
    await teacher.wait_run(lambda texts: True, t0)
    t0 = await teacher.click("Predict first", bool_value=True)
    await teacher.wait_run(lambda texts: True, t0)
    t0 = await teacher.click("Presenter mode", bool_value=True)
    await teacher.wait_run(lambda texts: step_of(texts) == 1, t0)
    for student in students:
        await student.wait_run(lambda texts: step_of(texts) == 1, t0)
