"""Masks and cost: global, causal, sliding-window and dilated attention, the T² bill,
and where the scaled dot product sits beside the older additive score."""

import numpy as np
import streamlit as st

import attn_core as ac
from attn_core import experiments as ex
from attn_core.figures import FULL_WIDTH_PX, dim_labels, heatmap, line_chart
from attn_core.lab_figures import mask_heatmap
from ui.common import sentence_input, show_figure, show_tokens, tokens_or_stop

D_MODEL = 16
D_K = 4
T_VALUES = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
MASK_TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}


@st.cache_data(show_spinner=False)
def _masked_runs(tokens: tuple[str, ...], radius: int, dilation: int, seed: int) -> dict:
    """One attention run per mask kind on the same sentence and weights."""
    x = ac.embed(list(tokens), D_MODEL, seed=seed)
    w = ac.init_weights(D_MODEL, D_K, seed=seed)
    runs = {}
    for kind in ex.MASK_KINDS:
        mask = ex.make_mask(kind, len(tokens), radius=radius, dilation=dilation)
        runs[kind] = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=mask)
    return runs


@st.cache_data(show_spinner=False)
def _costs(radius: int, dilation: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    return ex.score_counts(list(T_VALUES), radius=radius, dilation=dilation), ex.scores_memory_bytes(list(T_VALUES))


@st.cache_data(show_spinner=False)
def _other_scores(tokens: tuple[str, ...], seed: int) -> dict:
    """Additive (tanh) scores and the bilinear view, with the same W_q, W_k as the dot product."""
    x = ac.embed(list(tokens), D_MODEL, seed=seed)
    w = ac.init_weights(D_MODEL, D_K, seed=seed)
    steps = ac.attention_steps(x, w.w_q, w.w_k, w.w_v)
    bilinear = ac.bilinear_scores(x, w.w_q, w.w_k)
    return {
        "additive": ac.additive_scores(x, w.w_q, w.w_k, ex.init_v_a(D_K, seed=seed)),
        "dot": steps.scaled,
        "w_qk": ac.bilinear_form(w.w_q, w.w_k),
        "bilinear": bilinear,
        "diff": ex.max_abs_diff(bilinear, steps.scores),
    }


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
        "at a time (GPT) need this: while writing word i, the words after it do not exist yet."
    ),
    "window": (
        "A token looks only at neighbours at most r positions away, on both sides. Each row then holds at most "
        "2r + 1 scores, so the cost grows like T instead of T²; long-range links have to travel over several layers."
    ),
    "dilated": (
        "Like the window, but with gaps: a token looks at the neighbours whose distance is a multiple of the "
        "dilation, up to r steps of that size. The same number of scores per row now reaches further."
    ),
}

st.title("Masks and cost")
st.markdown(
    "A mask decides which keys each query is allowed to see. Masked pairs get a score of −∞ before the softmax, "
    "so their weight is exactly 0 and the remaining weights in the row still add up to 1."
)
st.latex(r"\mathrm{masked}_{ij} = \begin{cases}\mathrm{scaled}_{ij} & \text{if } i \text{ may attend to } j\\"
         r"-\infty & \text{otherwise}\end{cases}")

text = sentence_input(key="masks_sentence")
tokens = tokens_or_stop(text)
show_tokens(tokens)
T = len(tokens)

c1, c2, c3 = st.columns(3)
radius = c1.slider("Window radius r", min_value=0, max_value=8, value=2, key="masks_radius")
dilation = c2.slider("Dilation", min_value=1, max_value=4, value=2, key="masks_dilation")
seed = c3.number_input("Seed", min_value=0, max_value=10_000, value=0, step=1, key="masks_seed")
runs = _masked_runs(tuple(tokens), int(radius), int(dilation), int(seed))
counts_here = ex.score_counts([T], radius=int(radius), dilation=int(dilation))

# --------------------------------------------------------------------------- 1. the masks
st.header("1. Four masks on your sentence")
for kind in ex.MASK_KINDS:
    title = MASK_TITLES[kind]
    steps = runs[kind]
    st.subheader(title)
    st.markdown(EXPLAIN[kind])
    kept, total = int(counts_here[kind][0]), int(counts_here["global"][0])
    st.latex(
        rf"T = {T}:\ {kept} \text{{ of }} {T}\times{T} = {total} \text{{ scores kept}}"
        + (rf",\ r = {radius}" if kind in ("window", "dilated") else "")
        + (rf",\ \text{{dilation}} = {dilation}" if kind == "dilated" else "")
    )
    left, right = st.columns(2)
    with left:
        show_figure(mask_heatmap(steps.mask, tokens, title=f"{title} mask (1 = may attend)"), key=f"masks_{kind}_mask")
    with right:
        show_figure(
            heatmap(
                steps.weights, rows=tokens, cols=tokens, title=f"{title} weights", kind="weights",
                row_title="query", col_title="key", value_name="weight",
            ),
            key=f"masks_{kind}_weights",
        )  # fmt: skip

# --------------------------------------------------------------------------- 2. cost
st.header("2. The cost of global attention grows like T²")
counts, memory = _costs(int(radius), int(dilation))
st.markdown(
    "Global attention computes one score for every pair of tokens: double the length and there are four times "
    "as many scores. Causal attention saves only half of them; window and dilated masks keep a fixed number "
    "per row, so their cost grows in step with T (when only the kept scores are computed)."
)
st.latex(  # two lines: one is wider than the page at 1280 px
    rf"\begin{{gathered}} T = {T_VALUES[-1]}:\ \text{{global}} = {T_VALUES[-1]}^2 = {_big(counts['global'][-1])}"
    rf"\ \text{{scores}},\quad \text{{window}} = {_big(counts['window'][-1])} \\ "
    rf"\text{{float32 memory}} = 4 \times {T_VALUES[-1]}^2 = {_big(memory[-1])}\ \text{{bytes}} \end{{gathered}}"
)
left, right = st.columns(2)
with left:
    show_figure(
        line_chart(
            list(T_VALUES), {MASK_TITLES[kind]: counts[kind] for kind in ex.MASK_KINDS},
            title="Scores computed against sequence length T", x_title="T (tokens)", y_title="scores",
        ),
        key="masks_cost_counts",
    )  # fmt: skip
with right:
    show_figure(
        line_chart(
            list(T_VALUES), {"one T × T score matrix": memory},
            title="Memory of one float32 score matrix", x_title="T (tokens)", y_title="bytes", log_y=True,
        ),
        key="masks_cost_memory",
    )  # fmt: skip
st.caption("That is per head and per layer: a model with 12 layers of 12 heads holds 144 such matrices.")

# --------------------------------------------------------------------------- 3. other scores
st.header("3. Where the dot product fits")
other = _other_scores(tuple(tokens), int(seed))
st.markdown(
    "Before the Transformer, attention in translation models used an additive score: add the projected query "
    "and key, squash with tanh, and read the result along a learned vector v_a. The scaled dot product gives "
    "similar rankings with a single matrix product, which is much faster on modern hardware."
)
st.latex(
    r"e^{\mathrm{additive}}_{ij} = v_a^\top \tanh(x_i W_q + x_j W_k),\qquad "
    rf"e^{{\mathrm{{dot}}}}_{{ij}} = \frac{{(x_i W_q)\cdot(x_j W_k)}}{{\sqrt{{{D_K}}}}},\qquad "
    rf"e^{{\mathrm{{additive}}}}_{{00}} = {other['additive'][0, 0]:.3f},\ "
    rf"e^{{\mathrm{{dot}}}}_{{00}} = {other['dot'][0, 0]:.3f}"
)
for column, (name, title) in zip(
    st.columns(2), (("additive", "Additive (tanh) scores"), ("dot", "Scaled dot-product scores")), strict=True
):
    with column:
        show_figure(
            heatmap(other[name], rows=tokens, cols=tokens, title=title, row_title="query", col_title="key",
                    value_name="score"),
            key=f"masks_{name}",
        )

st.markdown(
    "The dot product of a query and a key is really one matrix sandwiched between two embeddings: "
    f"W_q W_kᵀ is a {D_MODEL} × {D_MODEL} matrix (of rank at most d_k = {D_K}) that says which directions of "
    "one token's embedding should match which directions of another's."
)
st.latex(
    r"q_i \cdot k_j = (x_i W_q)(x_j W_k)^\top = x_i^\top\, (W_q W_k^\top)\, x_j,\qquad "
    rf"\max_{{ij}} \left| x_i^\top W_q W_k^\top x_j - (QK^\top)_{{ij}} \right| = {_sci(other['diff'])}"
)
show_figure(
    heatmap(
        other["w_qk"], rows=dim_labels(D_MODEL), cols=dim_labels(D_MODEL), title="Bilinear form W_q W_kᵀ",
        row_title="query-side dimension", col_title="key-side dimension", value_name="w_qk", width_px=FULL_WIDTH_PX,
    ),
    key="masks_bilinear",
)  # fmt: skip
st.metric("Max |bilinear scores − QKᵀ|", f"{other['diff']:.2e}")
