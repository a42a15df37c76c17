"""The framework's floor for phone.follow_p95_ms_cpu4x (bench/perf_phone.py): a bare Streamlit
app in which a teacher's Next and Back move a shared step and the other sessions follow it by
the means class mode uses, and nothing else. A follower's loop is class mode's own timed fragment
(ui.class_mode.ticker, drawn last, every second as ui.class_mode.follow's); it reads the step (a
value in the server's memory: no database) and, when it moved, reruns the whole page. Each step shows its
progress line ("Step k of 9") and one heatmap made by the app's own code, new for each step (its
d_k is the step's number), as a step of Step by step shows a chart of its own. What a follow
costs here, any Streamlit app whose followers poll and rerun pays.

    ?role=teacher   the teacher: Next and Back, from step 1; every other session follows
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: attn_core, ui

import attn_core as ac
from attn_core import figures as fg
from ui.charts import PLOTLY_CONFIG, browser_figure
from ui.class_mode import ticker

STEPS = 9
POLL_S = 1.0  # as ui.class_mode.follow.POLL_S
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
w = ac.init_weights(16, d_k=step, seed=0)
steps = ac.attention_steps(ac.embed(TOKENS, d_model=16, seed=0), w.w_q, w.w_k, w.w_v)
fig = fg.heatmap(
    steps.weights,
    rows=list(TOKENS),
    cols=list(TOKENS),
    kind="weights",
    title=f"A = softmax(M), d_k = {step}",
    row_title="query i",
    col_title="key j",
    width_px=fg.FULL_WIDTH_PX,
)
st.plotly_chart(browser_figure(fig), config=PLOTLY_CONFIG, width="stretch", theme=None)


def follow() -> None:
    if room()["step"] != st.session_state["shown"]:
        st.rerun(scope="app")


if not teacher:
    ticker.every(POLL_S, "follow_loop", follow, now=False)
