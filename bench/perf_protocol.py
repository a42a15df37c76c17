"""load_protocol: the server alone under a class of 30, without 30 browsers on the same cores.

The browser load test runs 30 headless Chromium tabs on the same two cores as the server,
and each tab needs ~0.65 s of CPU per change to redraw the step page (README, Performance),
so what it measures is mostly the load generator. Here each of the 30 "students" is a plain websocket client that
speaks Streamlit's own protocol (the protobuf BackMsg/ForwardMsg the front end uses): it
opens the step page, then makes the same three changes (sentence, d_k, sentence) with every
session at once, and times each change from sending the new widget state until the server
has sent the last delta and `script_finished`. Server work and delivery are timed; the
browser's drawing is not (browser_ms measures that for one tab).
"""

from __future__ import annotations

import asyncio
import time

from perf_inputs import latency_summary, step_sentence

STREAM = "/_stcore/stream"
MIN_DELTAS = 20  # a full rerun of the step page sends this many deltas at least (9 charts, text, formulas)
TIMEOUT_S = 120.0


class ProtocolSession:
    """One browser-less client of a running `streamlit run` server."""

    def __init__(self, ws, page_name: str) -> None:
        self.ws = ws
        self.page_name = page_name
        self.page_hash = ""
        self.widgets: dict[str, str] = {}  # label -> widget id
        self.states: dict[str, object] = {}  # widget id -> WidgetState
        self.not_found = 0  # "page not found" messages seen

    @classmethod
    async def open(cls, base_url: str, page_name: str) -> ProtocolSession:
        import websockets

        ws = await websockets.connect(
            base_url.replace("http", "ws", 1) + STREAM,
            subprotocols=["streamlit"],
            max_size=None,
            open_timeout=TIMEOUT_S,
        )
        session = cls(ws, page_name)
        await session.rerun()
        if not session.page_hash:
            raise RuntimeError("the server did not say which page it ran")
        return session

    async def rerun(self) -> int:
        """Send the widget states, wait for script_finished; returns the deltas received."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page_name
        state.widget_states.widgets.extend(self.states.values())
        await self.ws.send(msg.SerializeToString())
        deltas = 0
        while True:
            fwd = ForwardMsg.FromString(await asyncio.wait_for(self.ws.recv(), TIMEOUT_S))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fwd.new_session.page_script_hash or self.page_hash
            elif kind == "page_info_changed" or kind == "navigation":
                self.page_hash = getattr(fwd.navigation, "page_script_hash", "") or self.page_hash
            elif kind == "delta":
                deltas += 1
                self._note_widget(fwd)
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise RuntimeError("the page failed to compile")
                if fwd.script_finished in (ForwardMsg.FINISHED_SUCCESSFULLY,):
                    return deltas
            elif kind == "page_not_found":  # the first deep link on a fresh server (see README)
                self.not_found += 1

    def _note_widget(self, fwd) -> None:
        delta = fwd.delta
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind in ("text_input", "slider"):
            widget = getattr(element, kind)
            self.widgets[widget.label] = widget.id
        if kind == "exception":
            raise RuntimeError(f"the page raised {element.exception.type}: {element.exception.message[:120]}")

    async def change(self, label: str, *, text: str | None = None, number: float | None = None) -> float:
        """Set one widget like the front end does and rerun; seconds until script_finished."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        widget_id = next(wid for name, wid in self.widgets.items() if name.startswith(label))
        state = WidgetState(id=widget_id)
        if text is not None:
            state.string_value = text
        else:
            state.double_array_value.data.append(float(number))
        self.states[widget_id] = state
        t0 = time.perf_counter()
        deltas = await self.rerun()
        seconds = time.perf_counter() - t0
        if deltas < MIN_DELTAS:
            raise RuntimeError(f"the rerun sent only {deltas} deltas")
        return seconds

    async def close(self) -> None:
        await self.ws.close()


async def _student(
    base_url: str, page_name: str, labels: dict, index: int, start: asyncio.Event, out: dict, same: bool = False
) -> None:
    try:
        session = await ProtocolSession.open(base_url, page_name)
    except Exception as err:
        out["errors"].append(f"session {index} did not open: {type(err).__name__}: {str(err)[:100]}")
        return
    out["opened"] += 1
    await start.wait()
    variant = 0 if same else index  # same: the whole class follows the teacher's example
    changes = [
        ("text", step_sentence(16, variant=variant + 1)),
        ("d_k", 5.0),
        ("text", step_sentence(16, variant=variant + 2)),
    ]
    try:
        for kind, value in changes:
            try:
                if kind == "text":
                    seconds = await session.change(labels["sentence"], text=value)
                else:
                    seconds = await session.change(labels["d_k"], number=value)
                out["ms"].append(seconds * 1000.0)
            except Exception as err:
                out["errors"].append(f"session {index}: {type(err).__name__}: {str(err)[:100]}")
    finally:
        await session.close()


async def load(base_url: str, page_name: str, labels: dict, sessions: int, same: bool = False, server_cpu=None) -> dict:
    """``sessions`` protocol clients open the page, then all change at once (3 changes each):
    each its own sentences, or with ``same`` all the same ones (a class following the teacher).
    With ``server_cpu`` (a function returning the server's CPU seconds so far), the server's
    CPU per change while the class changed is reported too."""
    out: dict = {"ms": [], "errors": [], "opened": 0}
    start = asyncio.Event()
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(_student(base_url, page_name, labels, i, start, out, same)) for i in range(sessions)]
    while out["opened"] + len(out["errors"]) < sessions and time.perf_counter() - t0 < TIMEOUT_S:
        await asyncio.sleep(0.05)
    open_s = time.perf_counter() - t0
    cpu0 = server_cpu() if server_cpu else 0.0
    start.set()
    await asyncio.wait(tasks, timeout=TIMEOUT_S * 2)
    ms = out["ms"]
    if server_cpu and ms:
        out["server_cpu_ms_per_change"] = round((server_cpu() - cpu0) / len(ms) * 1000.0, 1)
    return {
        **({"server_cpu_ms_per_change": out["server_cpu_ms_per_change"]} if "server_cpu_ms_per_change" in out else {}),
        **latency_summary(ms, sessions),
        "errors": sessions * 3 - len(ms),
        "error_samples": out["errors"][:5],
        "open_s": round(open_s, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
