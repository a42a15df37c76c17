"""The framework's floor for phone.follow_p95_ms_cpu4x (bench/perf_phone.py): a bare Streamlit
app in which a teacher's Next and Back move a shared step and the other sessions follow it by
the means class mode uses, and nothing else. A follower's loop is class mode's own timed fragment
(ui.class_mode.ticker, drawn last, every POLL_S seconds as ui.class_mode.follow's); it reads the step (a
value in the server's memory: no database), holds for a move as class mode's does
(ui.class_mode.follow.held) and, when the step moved, reruns the whole page. Each step shows its
progress line ("Step k of 9") and one heatmap made by the app's own code, new for each step (its
d_k is the step's number), as a step of Step by step shows a chart of its own. What a follow
costs here, any Streamlit app whose followers poll and rerun pays.

    ?role=teacher   the teacher: Next and Back, from step 1; every other session follows
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: attn_core, ui

from floor_chart import weights_chart  # bench/, the script's own folder

import attn_core as ac
from ui.class_mode import ticker
from ui.class_mode.follow import POLL_S, held

STEPS = 9
TOKENS = ac.tokenize("The cat sat on the mat.")


@st.cache_resource
def room() -> dict:
    """The one room of this server: the teacher's step."""
    return {"step": 1}


def move(by: int) -> None:
    room()["step"] = min(max(room()["step"] + by, 1), STEPS)


teacher = st.query_params.get("role") == "teacher"
if teacher and "started" not in st.session_state:  # a teacher's new session starts at step 1
    st.session_state["started"] = True
    room()["step"] = 1
step = room()["step"]
st.session_state["shown"] = step
if teacher:
    back, nxt = st.columns(2)
    back.button("← Back", on_click=move, args=(-1,), disabled=step == 1)
    nxt.button("Next →", on_click=move, args=(1,), disabled=step == STEPS, type="primary")
st.markdown(f"**Step {step} of {STEPS}** · a heatmap")
weights_chart(TOKENS, step, f"A = softmax(M), d_k = {step}")


def follow() -> None:
    shown = st.session_state["shown"]
    if held(lambda _: room()["step"], "", shown, room()["step"]) != shown:
        st.rerun(scope="app")


if not teacher:
    ticker.every(POLL_S, "follow_loop", follow, now=False)
