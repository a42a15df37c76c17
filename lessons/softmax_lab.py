"""Softmax and scaling lab: saturation, why we divide by √d_k, softmax beside sigmoid.

Each section's controls sit at its top; the charts are filled in after every control has
been read, from one attn_core call.
"""

import numpy as np
import streamlit as st

from attn_core import lessons
from attn_core.figures import bar_chart
from attn_core.lab_figures import grouped_bars, log_x_lines, score_labels
from attn_core.walkthrough import latex_num
from ui.charts import show_figure
from ui.common import checked_tokens, fmt_vec, md_escape, sentence_input

N_SCORES = 8
MULTIPLIERS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


@st.cache_data(show_spinner=False, max_entries=256)
def _lab(seed: int, multiplier: float, T: int, dk_seed: int, index: int, delta: float) -> lessons.SoftmaxLab:
    """The page's one attn_core call."""
    return lessons.softmax_lab(
        n_scores=N_SCORES, seed=seed, multiplier=multiplier, T=T, dk_seed=dk_seed, index=index, delta=delta
    )


def _j(jacobian: np.ndarray) -> str:
    """The largest entry of a Jacobian, in LaTeX."""
    return latex_num(float(np.abs(jacobian).max()), 3)


st.title("Softmax and scaling lab")
st.markdown(
    "Attention turns scores into weights with a softmax. This page plays with that one step: "
    "what happens when the scores get large, why the scores are divided by √d_k, and why a "
    "softmax (and not a sigmoid) is used."
)

text = sentence_input(key="lab_sentence", label="Sentence (its words label the keys)")
tokens = checked_tokens(text, what="sentence to label the keys") or []  # empty: the keys are numbered
labels = score_labels(tokens, N_SCORES)
st.caption(
    f"One query is compared with {N_SCORES} keys. The keys are labelled with the first words of your "
    "sentence; the scores themselves are random numbers drawn from N(0, 1), fixed by the seed."
)

st.header("1. Large scores saturate the softmax")
c1, c2 = st.columns(2)
seed = c1.number_input("Seed for the scores", min_value=0, max_value=10_000, value=0, step=1, key="lab_seed")
multiplier = c2.select_slider("Multiplier m", options=MULTIPLIERS, value=100.0, key="lab_multiplier")
section_1 = st.container()

st.header("2. Why divide by √d_k")
c1, c2 = st.columns(2)
T = c1.slider("Keys per row T (entropy experiment)", min_value=2, max_value=64, value=8, key="lab_T")
dk_seed = c2.number_input("Seed for q and k", min_value=0, max_value=10_000, value=0, step=1, key="lab_dk_seed")
section_2 = st.container()

st.header("3. Softmax makes the scores compete; sigmoid does not")
c1, c2 = st.columns(2)
index = c1.selectbox(
    "Score to raise", options=list(range(N_SCORES)), format_func=lambda i: labels[i], key="lab_raise_index"
)
delta = c2.slider("Raise it by", min_value=-10.0, max_value=20.0, value=3.0, step=0.5, key="lab_raise_delta")
section_3 = st.container()

lab = _lab(int(seed), float(multiplier), int(T), int(dk_seed), int(index), float(delta))

# --------------------------------------------------------------------------- 1. saturation
with section_1:
    sat = lab.saturation
    w = sat.winner
    st.markdown(
        "The same scores go through the softmax twice: once as they are, once multiplied by m. "
        "Multiplying by a large number stretches the gaps between scores, so the biggest one takes "
        "almost all the weight (the softmax *saturates*) and the entropy drops towards 0 bits."
    )
    st.latex(r"s = " + fmt_vec(sat.scores))
    saturated = (
        ("softmax(s)", "s", sat.weights, sat.entropy, "lab_bars_plain"),
        ("softmax(m·s)", f"{multiplier:g}·s", sat.scaled_weights, sat.scaled_entropy, "lab_bars_scaled"),
    )
    for column, (name, shown, weights, bits, key) in zip(st.columns(2), saturated, strict=True):
        with column:
            show_figure(
                bar_chart(labels, weights, title=f"Weights {name}", y_title="weight", y_range=(0, 1.1)), key=key
            )
            st.metric(f"Entropy of softmax({shown})", f"{bits:.3f} bits")
    st.latex(
        rf"H(p) = -\sum_i p_i \log_2 p_i:\quad H(\mathrm{{softmax}}(s)) = {sat.entropy:.3f}\ \text{{bits}},\quad "
        rf"H(\mathrm{{softmax}}({multiplier:g}\,s)) = {sat.scaled_entropy:.3f}\ \text{{bits}}"
    )
    st.markdown(
        "Training moves the scores by following the softmax's derivatives, its Jacobian "
        "J_ij = ∂p_i/∂s_j = p_i(δ_ij − p_j). When one weight is close to 1, *every* entry of J is close "
        "to 0, the winner's own slope p_w(1 − p_w) included: the scores hardly move, whichever key "
        f"should have won. Here the winner is key {w} ({md_escape(labels[w])})."
    )
    st.latex(
        rf"\max_{{ij}} |J_{{ij}}|:\ {_j(sat.jacobian)} \text{{ at }} s \ \to\ {_j(sat.scaled_jacobian)}"
        rf"\text{{ at }} {multiplier:g}\,s,\qquad p_w(1 - p_w):\ {latex_num(sat.jacobian[w, w], 3)} \ \to\ "
        rf"{latex_num(sat.scaled_jacobian[w, w], 3)}"
    )

# --------------------------------------------------------------------------- 2. why sqrt(d_k)
with section_2:
    study, max_h = lab.study, lab.max_entropy
    st.markdown(
        "Take random q and k whose entries have mean 0 and variance 1. Their dot product q·k is a sum "
        "of d_k such products, so its variance is about d_k: the longer the vectors, the larger the "
        "scores, and the more the softmax saturates. Dividing by √d_k brings the variance back to "
        "about 1 whatever d_k is. It undoes only this growth with d_k: a trained model can still "
        "learn scores large enough to saturate."
    )
    st.latex(
        rf"\mathrm{{Var}}(q\cdot k) \approx d_k:\quad d_k = {study.d_k[-1]}\ \Rightarrow\ "
        rf"{study.var_unscaled[-1]:.1f},\qquad \mathrm{{Var}}\!\left(\dfrac{{q\cdot k}}{{\sqrt{{d_k}}}}\right) "
        rf"= {study.var_scaled[-1]:.3f}"
    )
    left, right = st.columns(2)
    with left:
        show_figure(
            log_x_lines(
                study.d_k, {"q·k (unscaled)": study.var_unscaled, "q·k / √d_k (scaled)": study.var_scaled},
                title="Variance of the scores against d_k", x_title="d_k", y_title="variance", log_y=True,
            ),
            key="lab_dk_variance",
        )
    with right:
        show_figure(
            log_x_lines(
                study.d_k, {"unscaled": study.entropy_unscaled, "scaled by 1/√d_k": study.entropy_scaled},
                title="Mean row entropy of the weights against d_k", x_title="d_k", y_title="entropy (bits)",
                reference=(f"maximum log2(T) = {max_h:.2f}", max_h),
            ),
            key="lab_dk_entropy",
        )
    st.markdown(
        f"With T = {T} keys a row of weights can hold at most log₂(T) = {max_h:.2f} bits (all keys equal). "
        f"Unscaled, the mean entropy falls from {study.entropy_unscaled[0]:.2f} bits at d_k = 1 to "
        f"{study.entropy_unscaled[-1]:.2f} bits at d_k = {study.d_k[-1]}: each query ends up looking at a single "
        f"key. Scaled, it stays near {study.entropy_scaled[-1]:.2f} bits."
    )

# --------------------------------------------------------------------------- 3. softmax vs sigmoid
with section_3:
    comp = lab.competition
    st.markdown(
        "Both functions squash scores into (0, 1), but the softmax divides by the sum over all keys, so the "
        "weights always add up to 1: raising one score takes weight away from all the others. A sigmoid "
        "looks at each score alone, so the other values do not move and their sum can be anything."
    )
    st.caption(f"Raising score {int(index)} ({md_escape(labels[int(index)])}) by {delta:g}.")
    competition = (
        ("Softmax weights", comp.softmax_before, comp.softmax_after, comp.softmax_sum, "lab_softmax_compete"),
        ("Sigmoid values", comp.sigmoid_before, comp.sigmoid_after, comp.sigmoid_sum, "lab_sigmoid_compete"),
    )
    for column, (name, before, after, total, key) in zip(st.columns(2), competition, strict=True):
        with column:
            show_figure(
                grouped_bars(
                    labels, {"before": before, "after": after},
                    title=f"{name}, before and after raising one score", y_title="value", y_range=(0, 1.15),
                ),
                key=key,
            )
            st.metric(f"Sum of {name.lower()}", f"{total:.4f}")
    st.latex(
        rf"\sum_i \mathrm{{softmax}}(s)_i = {comp.softmax_sum:.4f},\qquad "
        rf"\sum_i \sigma(s_i) = \sum_i \frac{{1}}{{1 + \exp(-s_i)}} = {comp.sigmoid_sum:.4f}"
    )
