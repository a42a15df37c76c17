"""Masks and cost: global, causal, sliding-window and dilated attention, the T² bill,
and where the scaled dot product sits beside the older additive score."""

import numpy as np
import streamlit as st

from attn_core import experiments as ex
from attn_core import lab_results
from attn_core.figures import FULL_WIDTH_PX, dim_labels
from ui import outline, present, quiz
from ui.charts import show_attention, show_heatmap, show_lines, show_mask, show_scores
from ui.common import PRESETS, checked_tokens, sentence_input, show_tokens
from ui.footer import footer
from ui.state import PageState, Param

MASK_TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}
SECTIONS = (
    *(f"{title} mask" for title in MASK_TITLES.values()),
    "The cost of global attention",
    "Where the dot product fits",
)
STATE = PageState(
    "masks",
    (
        Param("text", PRESETS[0], "text", shared=True),
        Param("radius", 2, "int", lo=0, hi=8),
        Param("dilation", 2, "int", lo=1, hi=4),
        Param("seed", 0, "int", lo=0, hi=10_000),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(SECTIONS)),
    ),
)
K = STATE.key
BASE_LAYERS, BASE_HEADS = 12, 12  # an example model size for the caption under the cost charts


@st.cache_data(show_spinner=False, max_entries=256)
def _study(tokens: tuple[str, ...], radius: int, dilation: int, seed: int) -> lab_results.MaskStudy:
    """The page's one attn_core call: every mask, the cost table and the other scores."""
    return lab_results.mask_study(tokens, radius=radius, dilation=dilation, seed=seed)


def _big(n: int) -> str:
    """An integer with LaTeX-safe thousands separators."""
    return f"{int(n):,}".replace(",", "{,}")


def _sci(value: float) -> str:
    """A small number in LaTeX scientific notation, e.g. 2.0 \\times 10^{-15}."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


EXPLAIN = {
    "global": (
        "Every token may look at every token, itself included. This is what an encoder such as BERT does; "
        "it sees the whole sentence at once, at the price of T × T scores."
    ),
    "causal": (
        "A token may look only at itself and the tokens before it, never ahead. Models that write text one word "
        "at a time (GPT) are trained this way. During training the whole sentence is there at once (teacher "
        "forcing), so the mask is what stops a token from peeking at the words it must learn to predict; while "
        "generating, the words after it do not exist yet."
    ),
    "window": (
        "A token looks only at neighbours at most r positions away, on both sides. Each row then holds at most "
        "2r + 1 scores, so the cost grows like T instead of T²; long-range links have to travel over several layers."
    ),
    "dilated": (
        "Like the window, but with gaps: a token looks at the neighbours whose distance is a multiple of the "
        "dilation, up to r steps of that size. The same number of scores per row now reaches further. This is a "
        "dilated sliding window; LongNet's “dilated attention” shares the name but is a different scheme: it cuts "
        "the sequence into segments and gives different heads different dilation rates."
    ),
}


def window_question(T: int, radius: int, kept: int) -> quiz.Question | None:
    """The sliding window's section: how many of the T² scores does radius r keep? Among the usual
    wrong counts (every row a full 2r + 1, all of them, the causal triangle, one row, one side);
    None when there is nothing to choose between (one token)."""
    total, row = T * T, 2 * radius + 1
    guesses = (T * row, total, T * (T + 1) // 2, row, T * (radius + 1))
    counts = sorted(list(dict.fromkeys([kept, *(n for n in guesses if 0 < n <= total)]))[:4])
    if len(counts) < 2:
        return None
    if radius == 0:
        explain = "Radius 0 keeps only the diagonal: each token looks at itself alone, one score per row."
    elif kept == total:
        explain = (
            f"With r = {radius} ≥ T − 1 = {T - 1} the window reaches every token from every row: it keeps them all."
        )
    else:
        explain = (
            f"A row keeps itself and up to r = {radius} neighbours on each side, at most 2r + 1 = {row}, but the "
            f"rows near either end have fewer neighbours: {kept}, not T(2r + 1) = {T * row}."
        )
    return quiz.Question(
        key="masks_quiz_window",
        prompt=f"A sliding window of radius r = {radius} on these T = {T} tokens: how many of the {T} × {T} = "
        f"{total} scores does it keep?",
        options=tuple(str(n) for n in counts),
        answer=counts.index(kept),
        value=kept / total,
        value_label="the share of the scores kept",
        explain=explain,
    )


fresh = K("text") not in st.session_state  # the page's first run in this visit
STATE.start()
deck = present.Deck(SECTIONS, step_key=K("step"))
st.title("Masks and cost")
present.intro(
    "A mask decides which keys each query is allowed to see. Masked pairs get a score of −∞ before the softmax, "
    "so their weight is exactly 0 and the remaining weights in the row still add up to 1."
)
MASKED = (
    r"\mathrm{masked}_{ij} = \begin{cases}\mathrm{scaled}_{ij} & \text{if } i \text{ may attend to } j\\"
    r"-\infty & \text{otherwise}\end{cases}"
)
if not present.on():  # on a projector each mask's section shows it above its charts
    st.latex(MASKED)

with present.inputs():  # in presenter mode the sidebar
    text = sentence_input(K("text"))
outline.steps(deck)
with present.inputs():
    tokens = checked_tokens(text)
    if tokens:
        show_tokens(tokens)
c1, c2, c3 = present.input_columns(3)
radius = c1.slider("Window radius r", min_value=0, max_value=8, key=K("radius"))
dilation = c2.slider("Dilation", min_value=1, max_value=4, key=K("dilation"))
seed = c3.number_input("Seed", min_value=0, max_value=10_000, step=1, key=K("seed"))
predict = st.sidebar.toggle(
    "Predict first",
    key=K("predict"),
    help="Guess how many scores the sliding window keeps before its mask and count are shown.",
)
STATE.sync()
if tokens is None:
    st.stop()
T = len(tokens)
study = _study(tuple(tokens), int(radius), int(dilation), int(seed))
T_VALUES, counts, memory = study.T_values, study.counts, study.memory
question = window_question(T, int(radius), study.kept["window"]) if predict else None  # the window's section
window_hidden = question is not None and not quiz.revealed(question)
same_as_window = np.array_equal(study.steps("dilated").mask, study.steps("window").mask)  # radius 0 or dilation 1
HIDDEN = "Hidden until you reveal your prediction{} (Predict first is on): {}"

deck.nav()
outline.changes(
    deck,
    (
        *(outline.fingerprint(study.steps(kind), study.kept[kind]) for kind in ex.MASK_KINDS),
        outline.fingerprint(T, T_VALUES, counts, memory),
        outline.fingerprint(study.additive, study.dot, study.w_qk, study.top_agree),
    ),
    {"Sentence": text, "Window radius r": radius, "Dilation": dilation, "Seed": seed},
    fresh=fresh,
)

# --------------------------------------------------------------------------- 1. the masks
for n, kind in enumerate(ex.MASK_KINDS):
    if not deck.shows(n):
        continue
    title = MASK_TITLES[kind]
    steps = study.steps(kind)
    if present.on():  # the progress line, "Section 2 of 6 · Causal mask", is the heading
        deck.section(n)
        present.formula(MASKED)
    elif present.paged():
        st.header(f"{title} mask", anchor=deck.anchor(n))
    else:
        if n == 0:
            st.header("1. Four masks on your sentence")
        st.subheader(title, anchor=deck.anchor(n))
    st.markdown(EXPLAIN[kind])
    if kind == "window" and predict and question is None:
        st.caption("Predict first has no question for one token: its window keeps its one score.")
    elif kind == "window" and predict:
        with st.container(border=True):
            window_hidden = not quiz.ask(question)
            quiz.score_line()
    if window_hidden and kind == "window":
        st.info(HIDDEN.format("", "the count, the mask and the weights would give it away."))
        continue
    if window_hidden and kind == "dilated" and same_as_window:
        where = f" in section {SECTIONS.index('Sliding window mask') + 1}" if present.paged() else " above"
        st.info(HIDDEN.format(where, "at these settings this mask is the sliding window's."))
        continue
    kept, total = study.kept[kind], study.kept["global"]
    st.latex(
        rf"T = {T}:\ {kept} \text{{ of }} {T}\times{T} = {total} \text{{ scores kept}}"
        + (rf",\ r = {radius}" if kind in ("window", "dilated") else "")
        + (rf",\ \text{{dilation}} = {dilation}" if kind == "dilated" else "")
    )
    left, right = present.chart_columns(2)
    with left:
        show_mask(
            f"masks_{kind}_mask", steps.mask, tokens, title=f"{title} mask (1 = may attend)", name=f"{title} mask"
        )
    with right:
        show_attention(f"masks_{kind}_weights", steps.weights, tokens, title=f"{title} weights")

# --------------------------------------------------------------------------- 2. cost
if deck.shows(4):
    if present.on():
        deck.section(4)
    else:
        st.header("2. The cost of global attention grows like T²", anchor=deck.anchor(4))
    st.markdown(
        "Global attention computes one score for every pair of tokens: double the length and there are four "
        f"times as many scores. Causal attention keeps T(T+1)/2 of the T² scores: {study.kept['causal']} of "
        f"{study.kept['global']} on your sentence, so it saves {1 - study.causal_share:.1%}, and at T = "
        f"{T_VALUES[-1]} it saves {1 - study.causal_share_longest:.1%}: slightly less than half. And only with a "
        "kernel that skips the masked blocks; a plain implementation computes every score and then masks it. "
        "Window and dilated masks keep a fixed number per row, so their cost grows in step with T (again only "
        "when just the kept scores are computed)."
    )
    present.formula(  # two lines: one is wider than the page at 1280 px
        rf"\begin{{gathered}} T = {T_VALUES[-1]}:\ \text{{global}} = {T_VALUES[-1]}^2 = "
        rf"{_big(counts['global'][-1])}\ \text{{scores}},\quad \text{{window}} = {_big(counts['window'][-1])} \\ "
        rf"\text{{float32 memory}} = 4 \times {T_VALUES[-1]}^2 = {_big(memory[-1])}\ \text{{bytes}} \end{{gathered}}"
    )
    left, right = present.chart_columns(2)
    with left:
        show_lines(
            "masks_cost_counts",
            T_VALUES,
            {MASK_TITLES[kind]: counts[kind] for kind in ex.MASK_KINDS},
            title="Scores computed against sequence length T",
            x_title="T (tokens)",
            y_title="scores",
        )
    with right:
        show_lines(
            "masks_cost_memory",
            T_VALUES,
            {"one T × T score matrix": memory},
            title="Memory of one float32 score matrix",
            x_title="T (tokens)",
            y_title="bytes",
            log_y=True,
        )
    st.caption(
        f"That is per head and per layer. A model with {BASE_LAYERS} layers of {BASE_HEADS} heads holds "
        f"{BASE_LAYERS * BASE_HEADS} such matrices only if it stores every one, as plain training does for the "
        f"backward pass: {study.stored_bytes(BASE_LAYERS, BASE_HEADS):,} bytes for one sentence of "
        f"{T_VALUES[-1]} tokens. At inference the layers run one after another, so one layer's {BASE_HEADS} "
        f"({study.stored_bytes(1, BASE_HEADS):,} bytes) are enough. Fused kernels such as FlashAttention never "
        "store the T × T matrix at all: they compute it tile by tile, so the memory grows like T while the "
        "computation still grows like T²."
    )

# --------------------------------------------------------------------------- 3. other scores
if not deck.shows(5):
    st.stop()
if present.on():  # on a projector the three charts stand in one row, the text below them
    deck.section(5, beside=False)
    scores_row = present.chart_columns(3)
else:
    st.header("3. Where the dot product fits", anchor=deck.anchor(5))
agree = round(study.top_agree * T)  # rows whose best key is the same under both scores
by_chance = study.top_agree_chance * T  # rows two unrelated scores would share on average
st.markdown(
    "The scaled dot product is one way to score a query against a key. Bahdanau-style attention (Bahdanau et "
    "al., 2015) used an *additive* score: add the projected query and key, squash with tanh, and read the "
    "result along a learned vector v_a. Luong et al. (2015) already tried dot-product and bilinear scores. "
    "Vaswani et al. chose the dot product because its cost in theory is about the same, but it runs as one "
    "matrix product, which is much faster in practice. They also gave their reason for scaling it: for small "
    "d_k the two scores do about as well, but for large d_k additive attention beats the dot product without "
    "scaling (they cite Britz et al., 2017), and they suspected that large dot products push the softmax into "
    "regions with tiny gradients. Dividing by √d_k is their fix (the Softmax and scaling lab shows both effects)."
)
st.markdown(
    f"The additive score cannot grow like that: tanh keeps every term between −1 and 1, so no score is larger in "
    f"size than Σ|v_a| = {study.additive_bound:.3f}, whatever d_k is (on your sentence the largest is "
    f"{study.additive_largest:.3f}). A dot product of d_k terms has no such cap."
)
st.markdown(
    f"With the same W_q and W_k the two scores are different functions, not two ways of computing one. On "
    f"your sentence, the key that scores highest is the same under both in {agree} of {T} rows. Two scores "
    f"with nothing in common would pick the same key with probability 1/{T} in each row, so in about "
    f"{by_chance:.2g} of the {T} rows on average."
)
present.formula(
    r"e^{\mathrm{additive}}_{ij} = \tanh(x_i W_q + x_j W_k)\, v_a,\qquad "
    rf"e^{{\mathrm{{dot}}}}_{{ij}} = \frac{{(x_i W_q)(x_j W_k)^\top}}{{\sqrt{{{study.d_k}}}}},\qquad "
    rf"e^{{\mathrm{{additive}}}}_{{00}} = {study.additive[0, 0]:.3f},\ "
    rf"e^{{\mathrm{{dot}}}}_{{00}} = {study.dot[0, 0]:.3f}"
)
for column, (scores, name, title) in zip(
    scores_row[:2] if present.on() else st.columns(2),
    ((study.additive, "additive", "Additive (tanh) scores"), (study.dot, "dot", "Scaled dot-product scores")),
    strict=True,
):
    with column:
        show_scores(f"masks_{name}", scores, tokens, title=title)

st.markdown(
    "The dot product of a query and a key is really one matrix sandwiched between two embeddings: "
    f"W_q W_kᵀ is a {study.d_model} × {study.d_model} matrix (of rank at most d_k = {study.d_k}) that says which "
    "directions of one token's embedding should match which directions of another's. Token vectors are rows "
    "here, as everywhere in this app, so the key's embedding is transposed on the right."
)
st.latex(
    r"q_i \cdot k_j = (x_i W_q)(x_j W_k)^\top = x_i\, W_q W_k^\top\, x_j^\top,\qquad "
    rf"\max_{{ij}} \left| x_i W_q W_k^\top x_j^\top - (QK^\top)_{{ij}} \right| = {_sci(study.bilinear_diff)}"
)
with scores_row[2] if present.on() else st.container():
    show_heatmap(
        "masks_bilinear",
        study.w_qk,
        rows=dim_labels(study.d_model),
        cols=dim_labels(study.d_model),
        title="Bilinear form W_q W_kᵀ",
        row_title="query-side dimension",
        col_title="key-side dimension",
        value_name="w_qk",
        width_px=FULL_WIDTH_PX,
    )
st.metric("Max |bilinear scores − QKᵀ|", f"{study.bilinear_diff:.2e}")

# --------------------------------------------------------------------------- what it showed
kept = study.kept
footer(
    __file__,
    [
        (
            f"On your {T} tokens the causal mask keeps {kept['causal']} of {T * T} scores, the window (r = {radius}) "
            f"{kept['window']} and the dilated mask {kept['dilated']}; a masked score becomes −∞, so its weight is "
            "exactly 0."
            if not window_hidden  # the window's count is the question's answer
            else f"On your {T} tokens the causal mask keeps {kept['causal']} of {T * T} scores; a masked score "
            "becomes −∞, so its weight is exactly 0."
        ),
        f"Global attention computes T² scores: {counts['global'][-1]:,} at T = {T_VALUES[-1]}"
        + (f", against {counts['window'][-1]:,} for the window." if not window_hidden else "."),
        f"The additive and the dot-product scores pick the same best key in {agree} of your {T} rows.",
    ],
    deck,
)
