"""The framework's floor for the phone section (bench/perf_phone.py): a bare Streamlit app with
one Plotly chart. What a browser loads for it, every Streamlit app with a chart loads."""

import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Heatmap(z=[[0.2, 0.8], [0.6, 0.4]])))
