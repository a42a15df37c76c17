"""The one chart of the bench's floor apps (bench/floor_redraw_app.py, bench/floor_follow_app.py):
attention weights of a random head drawn by the app's own code (attn_core's engine and heatmap
builder, ui.charts.browser_figure, the same Plotly config), as Step by step draws its charts."""

import streamlit as st

import attn_core as ac
from attn_core import figures as fg
from ui.charts import PLOTLY_CONFIG, browser_figure


def weights_chart(tokens: list[str], d_k: int, title: str, scale: float = 1.0) -> None:
    """The weights heatmap of ``tokens`` through a random head (d_model 16, seed 0) at ``d_k``."""
    w = ac.init_weights(16, d_k=d_k, seed=0)
    steps = ac.attention_steps(ac.embed(tokens, d_model=16, seed=0), w.w_q, w.w_k, w.w_v)
    fig = fg.heatmap(
        steps.weights,
        rows=list(tokens),
        cols=list(tokens),
        kind="weights",
        title=title,
        row_title="query i",
        col_title="key j",
        width_px=fg.FULL_WIDTH_PX,
    )
    st.plotly_chart(browser_figure(fig, scale=scale), config=PLOTLY_CONFIG, width="stretch", theme=None)
