"""Softmax and scaling lab: saturation, why we divide by √d_k, softmax beside sigmoid.

Each section's controls sit at its top; the charts are filled in after every control has
been read, from one attn_core call.
"""

import numpy as np
import streamlit as st

from attn_core import lab_results
from attn_core.figures.lab import grouped_bars, log_x_lines, score_labels
from attn_core.tables import Table
from attn_core.walkthrough import latex_num
from ui import outline, present, quiz
from ui.charts import show_bars, show_figure, show_lines
from ui.common import PRESETS, checked_tokens, fmt_vec, md_escape, sentence_input
from ui.footer import footer
from ui.state import PageState, Param

N_SCORES = 8
MULTIPLIERS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
SECTIONS = ("Large scores saturate the softmax", "Why divide by √d_k", "Softmax makes the scores compete")
STATE = PageState(
    "lab",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("m", 100.0, "choice", choices=MULTIPLIERS),
        Param("T", 8, "int", lo=2, hi=64),
        Param("dk_seed", 0, "int", lo=0, hi=10_000),
        Param("raise", 0, "int", lo=0, hi=N_SCORES - 1),
        Param("delta", 3.0, "float", lo=-10.0, hi=20.0, step=0.5),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(SECTIONS)),
    ),
)
K = STATE.key
OUTCOMES = (
    "They stay about as they are",
    "One key takes almost all the weight",
    "They become about equal",
)


@st.cache_data(show_spinner=False, max_entries=256)
def _lab(seed: int, multiplier: float, T: int, dk_seed: int, index: int, delta: float) -> lab_results.SoftmaxLab:
    """The page's one attn_core call."""
    return lab_results.softmax_lab(
        n_scores=N_SCORES, seed=seed, multiplier=multiplier, T=T, dk_seed=dk_seed, index=index, delta=delta
    )


def _j(jacobian: np.ndarray) -> str:
    """The largest entry of a Jacobian, in LaTeX."""
    return latex_num(float(np.abs(jacobian).max()), 3)


def _outcome(sat) -> int:
    """Which of OUTCOMES describes softmax(m s) against softmax(s), from the numbers."""
    top = float(sat.scaled_weights.max())
    if top > 0.9:
        return 1
    if float(sat.scaled_weights.max() - sat.scaled_weights.min()) < 0.05:
        return 2
    return 0


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(SECTIONS, step_key=K("step"), numbered=True)
outline.steps(deck)
st.title("Softmax and scaling lab")
present.intro(
    "Attention turns scores into weights with a softmax. This page plays with that one step: "
    "what happens when the scores get large, why the scores are divided by √d_k, and why a "
    "softmax (and not a sigmoid) is used."
)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"), label="Sentence (its words label the keys)")
    tokens = checked_tokens(text, what="sentence to label the keys") or []  # empty: the keys are numbered
    labels = score_labels(tokens, N_SCORES)
    st.caption(
        f"One query is compared with {N_SCORES} keys. The keys are labelled with the first words of your "
        "sentence; the scores themselves are random numbers drawn from N(0, 1), fixed by the seed."
    )
    predict = st.toggle("Predict first", key=K("predict"), help="Guess what the ×m does before the charts show it.")
deck.nav()
note = st.container()  # which sections a change changed, filled in once the lab has run
KEEP = {"persist_state": "page"}  # a section's controls keep their values while presenter mode hides them
seed, multiplier = STATE.value("seed"), STATE.value("m")
T, dk_seed = STATE.value("T"), STATE.value("dk_seed")
index, delta = STATE.value("raise"), STATE.value("delta")
if deck.section(0):
    c1, c2 = present.control_columns(2)
    seed = c1.number_input("Seed for the scores", min_value=0, max_value=10_000, step=1, key=K("seed"), **KEEP)
    multiplier = c2.select_slider("Multiplier m", options=MULTIPLIERS, key=K("m"), **KEEP)
section_1 = st.container()
if deck.section(1):
    c1, c2 = present.control_columns(2)
    T = c1.slider("Keys per row T (entropy experiment)", min_value=2, max_value=64, key=K("T"), **KEEP)
    dk_seed = c2.number_input("Seed for q and k", min_value=0, max_value=10_000, step=1, key=K("dk_seed"), **KEEP)
section_2 = st.container()
if deck.section(2, heading="Softmax makes the scores compete; sigmoid does not"):
    c1, c2 = present.control_columns(2)
    index = c1.selectbox(
        "Score to raise", options=list(range(N_SCORES)), format_func=lambda i: labels[i], key=K("raise"), **KEEP
    )
    delta = c2.slider("Raise it by", min_value=-10.0, max_value=20.0, step=0.5, key=K("delta"), **KEEP)
section_3 = st.container()
STATE.sync()

lab = _lab(int(seed), float(multiplier), int(T), int(dk_seed), int(index), float(delta))
outline.changes(
    deck,
    (
        outline.fingerprint(labels, lab.saturation),
        outline.fingerprint(lab.study, lab.max_entropy),
        outline.fingerprint(labels, lab.competition),
    ),
    {
        "Sentence": text,
        "Seed for the scores": seed,
        "Multiplier m": multiplier,
        "Keys per row T": T,
        "Seed for q and k": dk_seed,
        "Score to raise": index,
        "Raise it by": delta,
    },
    fresh=fresh,
    where=note,
)

# --------------------------------------------------------------------------- 1. saturation
question = None
if predict and deck.shows(0):
    sat = lab.saturation
    with section_1, st.container(border=True):
        question = quiz.Question(
            key="lab_quiz",
            prompt=f"What happens to these {N_SCORES} weights when the scores are multiplied by {multiplier:g}? "
            "And how much weight will the largest one get?",
            options=OUTCOMES,
            answer=_outcome(sat),
            value=float(sat.scaled_weights.max()),
            value_label="the largest weight after multiplying",
        )
        quiz.ask(question)
        quiz.score_line()
if deck.shows(0) and (question is None or quiz.revealed(question)):
    with section_1:
        sat = lab.saturation
        w = sat.winner
        st.markdown(
            "The same scores go through the softmax twice: once as they are, once multiplied by m. "
            "Multiplying by a large number stretches the gaps between scores, so the biggest one takes "
            "almost all the weight (the softmax *saturates*) and the entropy drops towards 0 bits."
        )
        present.formula(r"s = " + fmt_vec(sat.scores))
        saturated = (
            ("softmax(s)", "s", sat.weights, sat.entropy, "lab_bars_plain"),
            ("softmax(m·s)", f"{multiplier:g}·s", sat.scaled_weights, sat.scaled_entropy, "lab_bars_scaled"),
        )
        for column, (name, shown, weights, bits, key) in zip(present.chart_columns(2), saturated, strict=True):
            with column:
                show_bars(
                    key, labels, weights, title=f"Weights {name}", y_title="weight", y_range=(0, 1.1), highlight=w
                )
                st.metric(f"Entropy of softmax({shown})", f"{bits:.3f} bits")
        present.formula(
            rf"H(p) = -\sum_i p_i \log_2 p_i:\quad H(\mathrm{{softmax}}(s)) = {sat.entropy:.3f}\ \text{{bits}},\quad "
            rf"H(\mathrm{{softmax}}({multiplier:g}\,s)) = {sat.scaled_entropy:.3f}\ \text{{bits}}"
        )
        st.markdown(
            "Training moves the scores by following the softmax's derivatives, its Jacobian "
            "J_ij = ∂p_i/∂s_j = p_i(δ_ij − p_j). When one weight is close to 1, *every* entry of J is close "
            "to 0, the winner's own slope p_w(1 − p_w) included: the scores hardly move, whichever key "
            f"should have won. Here the winner is key {w} ({md_escape(labels[w])}), highlighted in both charts."
        )
        st.latex(
            rf"\max_{{ij}} |J_{{ij}}|:\ {_j(sat.jacobian)} \text{{ at }} s \ \to\ {_j(sat.scaled_jacobian)}"
            rf"\text{{ at }} {multiplier:g}\,s,\qquad p_w(1 - p_w):\ {latex_num(sat.jacobian[w, w], 3)} \ \to\ "
            rf"{latex_num(sat.scaled_jacobian[w, w], 3)}"
        )

# --------------------------------------------------------------------------- 2. why sqrt(d_k)
if deck.shows(1):
    with section_2:
        study, max_h = lab.study, lab.max_entropy
        st.markdown(
            "Take random q and k whose entries have mean 0 and variance 1. Their dot product q·k is a sum "
            "of d_k such products, so its variance is about d_k: the longer the vectors, the larger the "
            "scores, and the more the softmax saturates. Dividing by √d_k brings the variance back to "
            "about 1 whatever d_k is. It undoes only this growth with d_k: a trained model can still "
            "learn scores large enough to saturate."
        )
        present.formula(
            rf"\mathrm{{Var}}(q\cdot k) \approx d_k:\quad d_k = {study.d_k[-1]}\ \Rightarrow\ "
            rf"{study.var_unscaled[-1]:.1f},\qquad \mathrm{{Var}}\!\left(\dfrac{{q\cdot k}}{{\sqrt{{d_k}}}}\right) "
            rf"= {study.var_scaled[-1]:.3f}"
        )
        left, right = present.chart_columns(2)
        with left:
            series = {"q·k (unscaled)": study.var_unscaled, "q·k / √d_k (scaled)": study.var_scaled}
            title = "Variance of the scores against d_k"
            show_lines(
                "lab_dk_variance",
                study.d_k,
                series,
                title=title,
                x_title="d_k",
                y_title="variance",
                builder=log_x_lines,
                log_y=True,
            )
        with right:
            series = {"unscaled": study.entropy_unscaled, "scaled by 1/√d_k": study.entropy_scaled}
            title = "Mean row entropy of the weights against d_k"
            reference = (f"maximum log2(T) = {max_h:.2f}", max_h)
            show_lines(
                "lab_dk_entropy",
                study.d_k,
                series,
                title=title,
                x_title="d_k",
                y_title="entropy (bits)",
                builder=log_x_lines,
                reference=reference,
            )
        st.markdown(
            f"With T = {T} keys a row of weights can hold at most log₂(T) = {max_h:.2f} bits (all keys equal). "
            f"Unscaled, the mean entropy falls from {study.entropy_unscaled[0]:.2f} bits at d_k = {study.d_k[0]} to "
            f"{study.entropy_unscaled[-1]:.2f} bits at d_k = {study.d_k[-1]}: each query ends up looking at a single "
            f"key. Scaled, it stays near {study.entropy_scaled[-1]:.2f} bits."
        )

# --------------------------------------------------------------------------- 3. softmax vs sigmoid
if deck.shows(2):
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
        for column, (name, before, after, total, key) in zip(present.chart_columns(2), competition, strict=True):
            with column:
                title = f"{name}, before and after raising one score"
                fig = grouped_bars(
                    labels, {"before": before, "after": after}, title=title, y_title="value", y_range=(0, 1.15)
                )
                table = Table(
                    np.vstack([before, after]),
                    ["before", "after"],
                    labels,
                    name=title,
                    kind="bars",
                    row_title="",
                    col_title="key",
                )
                show_figure(fig, key, table=table)
                st.metric(f"Sum of {name.lower()}", f"{total:.4f}")
        present.formula(
            rf"\sum_i \mathrm{{softmax}}(s)_i = {comp.softmax_sum:.4f},\qquad "
            rf"\sum_i \sigma(s_i) = \sum_i \frac{{1}}{{1 + \exp(-s_i)}} = {comp.sigmoid_sum:.4f}"
        )

# --------------------------------------------------------------------------- what it showed


def what_it_showed(lab: lab_results.SoftmaxLab, multiplier: float, hidden: bool) -> list[str]:
    """The footer's lines, from this run's lab (the ×m outcome only once the prediction is revealed)."""
    sat, study, comp = lab.saturation, lab.study, lab.competition
    lines = []
    if not hidden:
        lines.append(
            f"Multiplying the scores by {multiplier:g} took the largest weight from {sat.weights.max():.2f} to "
            f"{sat.scaled_weights.max():.2f} and the entropy from {sat.entropy:.2f} to {sat.scaled_entropy:.2f} bits."
        )
    lines.append(
        f"Unscaled, the variance of q·k grows with d_k (about {study.var_unscaled[-1]:.0f} at d_k = {study.d_k[-1]}); "
        f"divided by √d_k it stays near 1 ({study.var_scaled[-1]:.2f})."
    )
    lines.append(
        f"Softmax weights always add up to 1 ({comp.softmax_sum:.4f} here); sigmoid values need not "
        f"({comp.sigmoid_sum:.4f})."
    )
    return lines


hidden = predict and (question is None or not quiz.revealed(question))  # the ×m outcome waits for the reveal
footer(__file__, what_it_showed(lab, float(multiplier), hidden), deck)
