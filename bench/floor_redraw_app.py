"""The framework's floor for browser_cpu_ms.step_T16_present (bench/perf_browser.py): a bare
Streamlit app with a sentence box and the one chart presenter mode's step 8 shows, made by the
same code (attn_core's engine and heatmap builder, ui.charts.browser_figure at presenter scale,
the same Plotly config), and nothing else: no sidebar, no text, no formula, no chart tools, no
stylesheets. What a sentence change costs the browser here, any page drawing that chart pays."""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: attn_core, ui

import attn_core as ac
from attn_core import figures as fg
from ui.charts import PLOTLY_CONFIG, browser_figure
from ui.present import CHART_SCALE

text = st.text_input("Sentence", "The cat sat on the mat.")
tokens = ac.tokenize(text) or ["."]
w = ac.init_weights(16, d_k=8, seed=0)
steps = ac.attention_steps(ac.embed(tokens, d_model=16, seed=0), w.w_q, w.w_k, w.w_v)
T = len(tokens)
fig = fg.heatmap(
    steps.weights,
    rows=list(tokens),
    cols=list(tokens),
    kind="weights",
    title=f"A = softmax(M) ({T}×{T})",
    row_title="query i",
    col_title="key j",
    width_px=fg.FULL_WIDTH_PX,
)
st.plotly_chart(browser_figure(fig, scale=CHART_SCALE), config=PLOTLY_CONFIG, width="stretch", theme=None)
