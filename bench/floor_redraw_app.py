"""The framework's floor for browser_cpu_ms.step_T16_present (bench/perf_browser.py): a bare
Streamlit app with a sentence box and the one chart presenter mode's step 8 shows, made by the
same code (attn_core's engine and heatmap builder, ui.charts.browser_figure at presenter scale,
the same Plotly config), and nothing else: no sidebar, no text, no formula, no chart tools, no
stylesheets. What a sentence change costs the browser here, any page drawing that chart pays."""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: attn_core, ui

from floor_chart import weights_chart  # bench/, the script's own folder

import attn_core as ac
from ui.present import CHART_SCALE

text = st.text_input("Sentence", "The cat sat on the mat.")
tokens = ac.tokenize(text) or ["."]
T = len(tokens)
weights_chart(tokens, 8, f"A = softmax(M) ({T}×{T})", scale=CHART_SCALE)
