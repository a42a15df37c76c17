"""Softmax and scaling lab: saturation, why we divide by √d_k, softmax beside sigmoid.

Each section's controls sit at its top; the charts are filled in after every control has
been read, from one attn_core call. The sentences are lessons/softmax_lab/words.py's.
"""

import contextlib

import numpy as np
import streamlit as st

from attn_core import lab_results
from attn_core.figures.lab import grouped_bars, log_x_lines, score_labels
from attn_core.tables import Table
from lessons.softmax_lab import words
from ui import outline, present, quiz
from ui.charts import show_bars, show_figure, show_lines
from ui.common import PRESETS, checked_tokens, once_per_server, sentence_input
from ui.footer import footer
from ui.state import PageState, Param

STATE = PageState(
    "lab",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("m", 100.0, "choice", choices=words.MULTIPLIERS),
        Param("T", 8, "int", lo=2, hi=64),
        Param("dk_seed", 0, "int", lo=0, hi=10_000),
        Param("raise", 0, "int", lo=0, hi=words.N_SCORES - 1),
        Param("delta", 3.0, "float", lo=-10.0, hi=20.0, step=0.5),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(words.SECTIONS)),
    ),
)
K = STATE.key
KEEP = {"persist_state": "page"}  # a section's controls keep their values while presenter mode hides them
lab_of = once_per_server(st.cache_data(max_entries=256, show_spinner=False))(words.lab)


def show_saturation(
    stage: present.Stage, lab: lab_results.SoftmaxLab, labels: list[str], question: quiz.Question | None
) -> bool:
    """Section 1's question (Predict first) and, once it is revealed, its charts and sentences.
    Returns whether the ×m outcome is still hidden."""
    sat = lab.saturation
    if question is not None:
        with stage.side.container(border=True):
            quiz.ask(question)
            quiz.score_line()
        if not quiz.revealed(question):
            return True
    stage.side.markdown(words.SATURATION)
    stage.formula(words.scores_latex(sat))
    w, m = sat.winner, f"{sat.multiplier:g}"
    saturated = (
        ("softmax(s)", "s", sat.weights, sat.entropy, "lab_bars_plain"),
        ("softmax(m·s)", f"{m}·s", sat.scaled_weights, sat.scaled_entropy, "lab_bars_scaled"),
    )
    for column, (name, shown, weights, bits, key) in zip(stage.chart_columns(2), saturated, strict=True):
        title = f"Weights {name}"
        show_bars(key, labels, weights, title=title, y_title="weight", y_range=(0, 1.1), highlight=w, into=column)
        column.charts.metric(f"Entropy of softmax({shown})", f"{bits:.3f} bits")
    stage.formula(words.entropy_latex(sat))
    stage.side.markdown(words.jacobian_text(sat, labels))
    stage.side.latex(words.jacobian_latex(sat))
    return False


def show_scaling(stage: present.Stage, lab: lab_results.SoftmaxLab) -> None:
    """Section 2: the variance and the entropy of random scores against d_k."""
    study = lab.study
    stage.side.markdown(words.SCALING)
    stage.formula(words.variance_latex(study))
    left, right = stage.chart_columns(2)
    show_lines(
        "lab_dk_variance",
        study.d_k,
        {"q·k (unscaled)": study.var_unscaled, "q·k / √d_k (scaled)": study.var_scaled},
        title="Variance of the scores against d_k",
        x_title="d_k",
        y_title="variance",
        builder=log_x_lines,
        log_y=True,
        into=left,
    )
    show_lines(
        "lab_dk_entropy",
        study.d_k,
        {"unscaled": study.entropy_unscaled, "scaled by 1/√d_k": study.entropy_scaled},
        title="Mean row entropy of the weights against d_k",
        x_title="d_k",
        y_title="entropy (bits)",
        builder=log_x_lines,
        reference=(f"maximum log2(T) = {lab.max_entropy:.2f}", lab.max_entropy),
        into=right,
    )
    stage.side.markdown(words.entropy_text(study, lab.max_entropy))


def show_competition(stage: present.Stage, lab: lab_results.SoftmaxLab, labels: list[str]) -> None:
    """Section 3: one score raised, softmax beside sigmoid."""
    comp = lab.competition
    stage.side.markdown(words.COMPETITION)
    stage.side.caption(words.raise_caption(comp.index, comp.delta, labels))
    competition = (
        ("Softmax weights", comp.softmax_before, comp.softmax_after, comp.softmax_sum, "lab_softmax_compete"),
        ("Sigmoid values", comp.sigmoid_before, comp.sigmoid_after, comp.sigmoid_sum, "lab_sigmoid_compete"),
    )
    for column, (name, before, after, total, key) in zip(stage.chart_columns(2), competition, strict=True):
        title = f"{name}, before and after raising one score"
        fig = grouped_bars(labels, {"before": before, "after": after}, title=title, y_title="value", y_range=(0, 1.15))
        rows = np.vstack([before, after])
        table = Table(rows, ["before", "after"], labels, name=title, kind="bars", row_title="", col_title="key")
        show_figure(fig, key, table=table, into=column)
        column.charts.metric(f"Sum of {name.lower()}", f"{total:.4f}")
    stage.formula(words.sums_latex(comp))


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(words.SECTIONS, step_key=K("step"), numbered=True)
outline.steps(deck)
st.title("Softmax and scaling lab")
present.intro(words.INTRO)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"), label="Sentence (its words label the keys)")
    tokens = checked_tokens(text, what="sentence to label the keys") or []  # empty: the keys are numbered
    labels = score_labels(tokens, words.N_SCORES)
    st.caption(words.INPUTS)
    predict = st.toggle("Predict first", key=K("predict"), help="Guess what the ×m does before the charts show it.")
deck.nav()
note = st.container()  # which sections a change changed, filled in once the lab has run
seed, multiplier = STATE.value("seed"), STATE.value("m")
T, dk_seed = STATE.value("T"), STATE.value("dk_seed")
index, delta = STATE.value("raise"), STATE.value("delta")
if saturation := deck.section("saturation"):
    c1, c2 = saturation.control_columns(2)
    seed = c1.number_input("Seed for the scores", min_value=0, max_value=10_000, step=1, key=K("seed"), **KEEP)
    multiplier = c2.select_slider("Multiplier m", options=words.MULTIPLIERS, key=K("m"), **KEEP)
if scaling := deck.section("scaling"):
    c1, c2 = scaling.control_columns(2)
    T = c1.slider("Keys per row T (entropy experiment)", min_value=2, max_value=64, key=K("T"), **KEEP)
    dk_seed = c2.number_input("Seed for q and k", min_value=0, max_value=10_000, step=1, key=K("dk_seed"), **KEEP)
if competition := deck.section("competition", heading=words.COMPETITION_HEADING):
    c1, c2 = competition.control_columns(2)
    index = c1.selectbox(
        "Score to raise", options=list(range(words.N_SCORES)), format_func=lambda i: labels[i], key=K("raise"), **KEEP
    )
    delta = c2.slider("Raise it by", min_value=-10.0, max_value=20.0, step=0.5, key=K("delta"), **KEEP)
STATE.sync()

lab = lab_of(int(seed), float(multiplier), int(T), int(dk_seed), int(index), float(delta))
outline.changes(
    deck,
    {
        "saturation": outline.fingerprint(labels, lab.saturation),
        "scaling": outline.fingerprint(lab.study, lab.max_entropy),
        "competition": outline.fingerprint(labels, lab.competition),
    },
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
question = words.saturation_question(lab.saturation) if predict else None
hidden = question is not None and not quiz.revealed(question)  # the ×m outcome waits for the reveal
if saturation:
    hidden = show_saturation(saturation, lab, labels, question)
if scaling:
    show_scaling(scaling, lab)
if competition:
    show_competition(competition, lab, labels)
with competition.side if competition else contextlib.nullcontext():  # on a projector: beside or under the last section
    footer(__file__, words.what_it_showed(lab, hidden), deck)
