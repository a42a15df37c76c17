"""Step by step: one attention head on your sentence, from the tokens to the output Z.

Widgets -> one cached attn_core call -> figure builders. The settings can come from the
URL (?text=...&d_model=16&d_k=4&seed=0&scale=1&x100=0&causal=0&pos=1&weights=random&layer=0
&head=0), so a teacher can share a link; every value read from it is validated and clamped,
and garbage gives the defaults. The page writes its current settings back into the URL.

The weights are seeded random ones (NumPy only) unless the user picks a real head of the
embedded model; only then are torch and transformers imported, through ui.model_cache.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attn_core import figures as fg
from attn_core import walkthrough as wt
from ui.charts import show_figure
from ui.common import (
    MAX_CHARS,
    MAX_TOKENS,
    PRESETS,
    checked_tokens,
    md_escape,
    sentence_input,
    show_tokens,
)
from ui.model_cache import try_load

KEY = "sbs"  # prefix of every widget and chart key on this page
D_MODEL = (2, 64, 16)  # (min, max, default)
D_K = (1, 64, 4)
SEED = (0, 9999, 0)
TOGGLES = {  # URL name -> (label, default)
    "scale": ("Divide the scores by √d_k", True),
    "x100": ("Multiply the scores by 100", False),
    "causal": ("Causal mask (no looking ahead)", False),
    "pos": ("Add positional encoding", True),
}
SOURCES = {"random": "Random (seeded)", "real": "A real head of all-MiniLM-L6-v2"}  # URL value -> label
REAL_LAYERS, REAL_HEADS = 6, 12  # the embedded model's shape, for clamping URL values before it loads
MULTIPLIER = 100.0  # what the ×100 switch multiplies the scores by
SMALL, SMALL_WIDE, SMALL_PANEL = 14, 16, 6  # print values in cells up to these sizes (full width, panels)
OPTION_CHARS = 24  # tokens longer than this are shortened in selectboxes and captions
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


# --------------------------------------------------------------------------- the URL


def _int_param(name: str, lo: int, hi: int, default: int) -> int:
    """An integer from the URL, clamped into [lo, hi]; the default when it is not one."""
    try:
        return min(max(int(str(st.query_params.get(name)).strip()), lo), hi)
    except (TypeError, ValueError):
        return default


def _bool_param(name: str, default: bool) -> bool:
    raw = str(st.query_params.get(name, "")).strip().lower()
    return True if raw in _TRUE else False if raw in _FALSE else default


def _start_from_url() -> None:
    """On a session's first run, start the widgets from the URL (validated and clamped)."""
    state = st.session_state
    text = str(st.query_params.get("text", ""))[:MAX_CHARS]
    state.setdefault(f"{KEY}_sentence_text", text if text.strip() else PRESETS[0])
    state.setdefault(f"{KEY}_d_model", _int_param("d_model", *D_MODEL))
    state.setdefault(f"{KEY}_d_k", _int_param("d_k", *D_K))
    state.setdefault(f"{KEY}_seed", _int_param("seed", *SEED))
    for name, (_, default) in TOGGLES.items():
        state.setdefault(f"{KEY}_{name}", _bool_param(name, default))
    source = str(st.query_params.get("weights", "")).strip().lower()
    state.setdefault(f"{KEY}_weights", source if source in SOURCES else "random")
    state.setdefault(f"{KEY}_layer", _int_param("layer", 0, REAL_LAYERS - 1, 0))
    state.setdefault(f"{KEY}_head", _int_param("head", 0, REAL_HEADS - 1, 0))


def _write_url(values: dict[str, str]) -> None:
    """Keep the address bar in step with the widgets, so it can be copied and shared."""
    for name, value in values.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


# --------------------------------------------------------------------------- the engine


@st.cache_data(max_entries=256, show_spinner=False)
def compute(
    tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, positional: bool, scale: bool, x100: bool, causal: bool
) -> wt.Lesson:
    """The page's one attn_core call: where (tokens, X, weights) come from, then every step.

    Returns: Lesson with steps.weights (T, T) and steps.output (T, d_k)
    """
    source = wt.seeded_source(tokens, d_model, d_k, seed=seed, positional=positional)  # the weight source
    return wt.lesson(source, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal)


@st.cache_data(max_entries=16, show_spinner="Running the model…")
def model_run(_loaded, name: str, text: str):
    """One forward pass per text: every layer's input and attention, shared by all heads and
    switches, so picking another head or toggling the mask does not run the model again."""
    from attn_core import models  # torch: only when a real head is asked for

    return models.extract_attentions(_loaded, text, max_tokens=MAX_TOKENS)


@st.cache_data(max_entries=64, show_spinner=False)
def compute_real(_loaded, name: str, text: str, layer: int, head: int, scale: bool, x100: bool, causal: bool):
    """The same lesson with a real head (models.real_lesson), on the cached forward pass.

    Returns: RealLesson with lesson.steps.weights (T, T), max_abs_error and truncated
    """
    from attn_core import models

    att = model_run(_loaded, name, text)
    return models.real_lesson(
        _loaded, att, layer, head, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal
    )


# --------------------------------------------------------------------------- helpers


def _short(token: str) -> str:
    return token if len(token) <= OPTION_CHARS else token[: OPTION_CHARS - 1] + "…"


def _option(tokens: tuple[str, ...]) -> Callable[[int], str]:
    """Selectbox labels like '3: sat', so repeated words differ by their index."""
    return lambda n: f"{n}: {_short(tokens[n])}"


def _dims(n: int) -> list[str]:
    return fg.dim_labels(n, prefix="")


def _matrix(name: str, z, title: str, rows: list[str], cols: list[str], **kwargs) -> None:
    """One labelled heatmap with a stable chart key."""
    show_figure(fg.heatmap(z, rows=rows, cols=cols, title=title, width_px=fg.FULL_WIDTH_PX, **kwargs),
                key=f"{KEY}_fig_{name}")


def _panels(name: str, panels: list, title: str, rows: list[str] | None, **kwargs) -> None:
    """Matrices that share their rows, side by side in one chart with a stable key."""
    show_figure(fg.heatmap_panels(panels, rows=rows, title=title, width_px=fg.FULL_WIDTH_PX, **kwargs),
                key=f"{KEY}_fig_{name}")


def _factor_latex(lesson: wt.Lesson) -> str:
    """The scaling step with its live factor, e.g. S / sqrt(4) = 0.5 S."""
    d_k, factor = lesson.steps.d_k, f"{lesson.steps.factor:.4g}"
    top = "S" if lesson.multiplier == 1 else f"{lesson.multiplier:g}\\,S"
    if lesson.scale:
        return rf"\tilde S = \frac{{{top}}}{{\sqrt{{d_k}}}} = \frac{{{top}}}{{\sqrt{{{d_k}}}}} = {factor}\,S"
    return rf"\tilde S = {top} \qquad (\text{{not divided by }} \sqrt{{d_k}})"


# --------------------------------------------------------------------------- the page

st.title("Self-attention, step by step")
st.markdown(
    "Type a sentence and follow one attention head through every matrix it computes, from the "
    "token vectors X to the output Z. Change a setting in the sidebar and every number below is "
    "recomputed; the address bar keeps the settings, so you can copy it to share this exact view."
)

_start_from_url()
text = sentence_input(key=f"{KEY}_sentence")
with st.sidebar:
    st.header("Settings")
    source_kind = st.radio(
        "Weights", list(SOURCES), format_func=SOURCES.get, key=f"{KEY}_weights",
        help="Random weights are a head before any training. A real head is one of the 72 trained heads of a "
        "small BERT model; it loads the model the first time (a few seconds).",
    )  # fmt: skip
    real_head = source_kind == "real"
    if real_head:
        layer = st.selectbox("Layer", range(REAL_LAYERS), format_func=lambda n: f"layer {n}", key=f"{KEY}_layer")
        head = st.selectbox("Head", range(REAL_HEADS), format_func=lambda n: f"head {n}", key=f"{KEY}_head")
        st.caption(
            "Try layer 3, head 1 with the two animal/street examples, and pick “it” as the query token in "
            "“One cell, worked through”: with “tired”, “it” looks mostly at “animal”; with “congested”, "
            "much less so, and more at “street”."
        )
    else:
        layer, head = st.session_state[f"{KEY}_layer"], st.session_state[f"{KEY}_head"]
    fixed = " (set by the model while a real head is shown)" if real_head else ""
    d_model = st.slider(f"d_model (size of each token vector){fixed}", D_MODEL[0], D_MODEL[1], key=f"{KEY}_d_model",
                        disabled=real_head)  # fmt: skip
    d_k = st.slider(f"d_k (size of queries and keys){fixed}", D_K[0], D_K[1], key=f"{KEY}_d_k", disabled=real_head)
    seed = int(st.number_input("Seed (random weights)", SEED[0], SEED[1], step=1, key=f"{KEY}_seed",
                               disabled=real_head))  # fmt: skip
    flags = {
        name: st.toggle(label, key=f"{KEY}_{name}", disabled=real_head and name == "pos")
        for name, (label, _) in TOGGLES.items()
    }

_write_url({
    "text": text, "d_model": str(d_model), "d_k": str(d_k), "seed": str(seed),
    **{name: str(int(on)) for name, on in flags.items()},
    "weights": source_kind, "layer": str(layer), "head": str(head),
})  # fmt: skip

checked = checked_tokens(text)
if checked is None:
    st.stop()  # after the sidebar: an empty box hides no other input
tokens = tuple(checked)
model_error = None
if real_head:
    loaded, problem = try_load()
    if loaded is None:
        st.error(
            f"The real model is not available ({md_escape(problem or 'unknown error')}), so this page shows "
            "random weights instead. Every other setting keeps working."
        )
        real_head = False
if real_head:
    real = compute_real(loaded, loaded.name, text, layer, head, flags["scale"], flags["x100"], flags["causal"])
    lesson, model_error = real.lesson, real.max_abs_error
    if real.truncated:
        st.warning(f"The model splits this text into more than {MAX_TOKENS} tokens; only the first {MAX_TOKENS} "
                   "are used.")  # fmt: skip
    tokens = lesson.tokens
else:
    lesson = compute(tokens, d_model, d_k, seed, flags["pos"], flags["scale"], flags["x100"], flags["causal"])
steps, stats = lesson.steps, lesson.stats
T, labels = len(tokens), list(tokens)
d_model, d_k = steps.x.shape[1], steps.d_k
score_fmt = ".2f" if stats.max_abs_score < 100 else ".3g"
biases = lesson.source.weights.b_q is not None

if real_head:
    same = flags["scale"] and not flags["x100"] and not flags["causal"]
    st.success(
        f"Weights: layer {layer}, head {head} of all-MiniLM-L6-v2. With the model's own settings (divided by "
        f"√{d_k}, no ×100, no mask) attn_core's weights match the model's attention to max |Δ| = "
        f"{model_error:.1e}." + ("" if same else " Your switches change this run, so the weights below differ "
                                 "from the model's on purpose.")
    )  # fmt: skip

# Step 1 -------------------------------------------------------------------------------
st.subheader("Step 1 · Tokens")
if real_head:
    st.markdown(
        "The model's own tokenizer cuts the text: it lowercases it, splits rare words into WordPiece parts "
        "(## marks a part that continues a word), and adds [CLS] at the start and [SEP] at the end. Every "
        "position is its own token, so a repeated word gets separate rows in every matrix below."
    )
else:
    st.markdown(
        "The sentence is cut into tokens: words and punctuation marks. Every position is its own "
        "token, so a word that appears twice (like *the*) gets two separate rows in every matrix below."
    )
st.latex(rf"T = {T} \text{{ tokens}}")
show_tokens(labels)

# Step 2 -------------------------------------------------------------------------------
st.subheader("Step 2 · X, one vector per token")
if real_head:
    st.markdown(
        f"X is what layer {layer} receives: "
        + ("the model's embeddings (a learned vector per token, plus learned position and segment vectors, "
           "then normalised)." if layer == 0 else f"the output of layer {layer - 1}, so every row already "
           "carries information mixed in from other tokens.")
        + f" Each row has d_model = {d_model} numbers."
    )  # fmt: skip
    st.latex(rf"X = H^{{({layer})}} \in \mathbb{{R}}^{{{T} \times {d_model}}}")
elif flags["pos"]:
    st.markdown(
        "Each word is looked up as a fixed random vector of d_model numbers (the same word always "
        "gets the same vector for this seed). A pattern of sines and cosines that depends only on the "
        "position P is added, so the same word at two places ends up with two different rows."
    )
    st.latex(rf"X = E + P \in \mathbb{{R}}^{{{T} \times {d_model}}}")
else:
    st.markdown(
        "Each word is looked up as a fixed random vector of d_model numbers. Positional encoding is "
        "off, so a repeated word gets identical rows: attention alone cannot tell where a word stands."
    )
    st.latex(rf"X = E \in \mathbb{{R}}^{{{T} \times {d_model}}}")
_matrix("x", steps.x, f"Step 2: X ({T}×{d_model})", labels, _dims(d_model), row_title="token",
        col_title="d_model dimension", show_values=T <= SMALL and d_model <= SMALL_WIDE)  # fmt: skip

# Step 3 -------------------------------------------------------------------------------
st.subheader("Step 3 · The weight matrices W_q, W_k, W_v")
if real_head:
    st.markdown(
        f"These are trained numbers: head {head}'s share of layer {layer}'s query, key and value matrices. "
        f"The layer's three {d_model}×{d_model} matrices are split into {REAL_HEADS} heads of {d_k} columns "
        "each, and every head also has a bias vector b that is added after the multiplication."
    )
    st.latex(
        rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}, \qquad "
        rf"b_q,\ b_k,\ b_v \in \mathbb{{R}}^{{{d_k}}}"
    )
else:
    st.markdown(
        "A head owns three matrices that training would tune. Here they are random, as at the very start "
        "of training, with entries drawn so that the queries and keys come out with a spread of about 1. "
        "Each one turns a d_model vector into d_k numbers."
    )
    st.latex(
        rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}, \qquad "
        rf"(W)_{{ab}} \sim \mathcal{{N}}\!\left(0, \tfrac{{1}}{{{d_model}}}\right)"
    )
w = lesson.source.weights
_panels("w", [("W_q", w.w_q), ("W_k", w.w_k), ("W_v", w.w_v)], f"Step 3: W_q, W_k, W_v ({d_model}×{d_k} each)",
        None, row_title="d_model dimension", col_title="d_k dimension",
        show_values=d_model <= SMALL_WIDE and d_k <= SMALL_PANEL)  # fmt: skip

# Step 4 -------------------------------------------------------------------------------
st.subheader("Step 4 · Queries, keys and values")
st.markdown(
    "Multiplying X by each matrix gives every token three new vectors: a query (what it is looking "
    "for), a key (what it can be found by) and a value (what it hands on when it is chosen)."
)
if biases:
    st.latex(rf"Q = XW_q + b_q,\quad K = XW_k + b_k,\quad V = XW_v + b_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}")
else:
    st.latex(rf"Q = XW_q,\quad K = XW_k,\quad V = XW_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}")
_panels("qkv", [("Q", steps.q), ("K", steps.k), ("V", steps.v)], f"Step 4: Q, K, V ({T}×{d_k} each)", labels,
        row_title="token", col_title="dimension")  # fmt: skip

# Step 5 -------------------------------------------------------------------------------
st.subheader("Step 5 · The scores QKᵀ")
st.markdown(
    "Row i compares token i's query with every key by a dot product: the more the two vectors point "
    "the same way, the larger the score. With random vectors the scores spread wider as d_k grows."
)
st.latex(
    rf"S = QK^\top \in \mathbb{{R}}^{{{T} \times {T}}}, \quad s_{{ij}} = q_i \cdot k_j, "
    rf"\quad \operatorname{{std}}(S) = {wt.latex_num(stats.scores_std)}"
)
_matrix("scores", steps.scores, "Step 5: scores QKᵀ", labels, labels, row_title="query i",
        col_title="key j", value_name="score")  # fmt: skip

# Step 6 -------------------------------------------------------------------------------
st.subheader("Step 6 · Scaled scores")
st.markdown(
    "Large scores push the softmax into picking a single token and starve the others of gradient. "
    "Dividing by √d_k brings the spread back to about 1 whatever d_k is; the ×100 switch shows the "
    "opposite, where nearly every row becomes one-hot."
)
st.latex(_factor_latex(lesson) + rf", \quad \operatorname{{std}}(\tilde S) = {wt.latex_num(stats.scaled_std)}")
_matrix("scaled", steps.scaled, "Step 6: scaled scores", labels, labels, row_title="query i",
        col_title="key j", value_name="scaled score", fmt=score_fmt)  # fmt: skip

# Step 7 -------------------------------------------------------------------------------
st.subheader("Step 7 · Masked scores")
if flags["causal"]:
    st.markdown(
        "The causal mask stops each token looking at tokens after it, as a text generator must. "
        "Forbidden cells become −∞, so the softmax gives them exactly zero weight."
    )
    st.latex(
        r"M_{ij} = \begin{cases} \tilde s_{ij} & j \le i \\ -\infty & j > i \end{cases}"
        rf"\qquad {stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}"
    )
else:
    st.markdown(
        "No mask is on, so every token may look at every token, itself and later ones included, and "
        "this matrix equals the scaled scores. Switch on the causal mask to forbid looking ahead."
    )
    st.latex(rf"M = \tilde S \qquad {stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}")
_matrix("masked", steps.masked, "Step 7: masked scores", labels, labels, row_title="query i",
        col_title="key j", value_name="masked score", fmt=score_fmt)  # fmt: skip

# Step 8 -------------------------------------------------------------------------------
st.subheader("Step 8 · Attention weights (softmax)")
st.markdown(
    "The softmax turns each row into positive weights that add up to 1: it exponentiates every "
    "score and divides by the row's total. Row i says how much token i takes from each token."
)
st.latex(
    r"A_{ij} = \frac{\exp(M_{ij})}{\sum_{l} \exp(M_{il})}, \qquad \sum_j A_{ij} \in "
    rf"[{stats.row_sum_min:.6f},\ {stats.row_sum_max:.6f}]"
)
_matrix("weights", steps.weights, "Step 8: attention weights", labels, labels, kind="weights",
        row_title="query i", col_title="key j", value_name="weight")  # fmt: skip

# Step 9 -------------------------------------------------------------------------------
st.subheader("Step 9 · The output Z")
st.markdown(
    "Each output row is a blend of the value rows, mixed in the proportions of that token's row of "
    "weights. This is the token's new, context-aware vector, which the next layer builds on."
)
st.latex(rf"Z = AV \in \mathbb{{R}}^{{{T} \times {steps.v.shape[1]}}}, \qquad z_i = \sum_j A_{{ij}}\, v_j")
_matrix("output", steps.output, f"Step 9: output Z ({T}×{steps.v.shape[1]})", labels, _dims(steps.v.shape[1]),
        row_title="token", col_title="dimension")  # fmt: skip


# One cell, worked through ---------------------------------------------------------------


@st.fragment
def worked_cell(lesson: wt.Lesson) -> None:
    """Pick query i and key j; follow s_ij, its scaling, row i's softmax and z_i by hand."""
    tokens, T = lesson.tokens, len(lesson.tokens)
    for name, default in (("i", min(2, T - 1)), ("j", min(1, T - 1))):
        if st.session_state.get(f"{KEY}_{name}") not in range(T):
            st.session_state[f"{KEY}_{name}"] = default
    left, right = st.columns(2)
    i = left.selectbox("Query token i", range(T), format_func=_option(tokens), key=f"{KEY}_i")
    j = right.selectbox("Key token j", range(T), format_func=_option(tokens), key=f"{KEY}_j")
    cell = wt.cell_walkthrough(lesson.steps, i, j)
    num = wt.latex_num
    st.caption(f"Query i = {i}: “{md_escape(_short(tokens[i]))}” · key j = {j}: “{md_escape(_short(tokens[j]))}”")

    st.markdown("**1 · The score** is the dot product of the two vectors, one term per dimension.")
    st.latex(wt.latex_dot_lines(cell.q_i, cell.k_j, cell.score, lhs=rf"s_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}}"))

    st.markdown("**2 · Scaling** multiplies it by the same factor as every other cell.")
    st.latex(
        rf"\tilde s_{{{i},{j}}} = s_{{{i},{j}}} \times {cell.factor:.4g} = {num(cell.score)} \times "
        rf"{cell.factor:.4g} = {num(cell.scaled)}"
    )
    if not cell.allowed:
        st.latex(rf"M_{{{i},{j}}} = -\infty \qquad (j = {j} > i = {i}:\ \text{{masked}})")

    st.markdown(f"**3 · Softmax of row {i}**: exponentiate every score of the row, then divide by their sum.")
    if cell.shift:
        st.markdown(
            "These scores are large, so the row's largest score m_i is subtracted before exponentiating. "
            "It cancels in the fraction, so the weights are unchanged, but e^x no longer overflows."
        )
        st.latex(rf"m_{{{i}}} = {num(cell.shift)}")
    minus_m = rf" - m_{{{i}}}" if cell.shift else ""
    st.latex(wt.latex_row_table(cell))
    st.latex(
        rf"A_{{{i},{j}}} = \frac{{\exp(\tilde s_{{{i},{j}}}{minus_m})}}{{\sum_l \exp(\tilde s_{{{i},l}}{minus_m})}}"
        rf" = \frac{{{num(cell.exps[j])}}}{{{num(cell.total)}}} = {num(cell.weights[j])},"
        rf"\qquad \sum_j A_{{{i},j}} = {cell.row_sum:.4f}"
    )

    st.markdown(f"**4 · The output z_{i}** adds up the value rows, each scaled by its weight from row {i}.")
    st.latex(wt.latex_weighted_sum(cell, lhs=rf"z_{{{i}}} = \sum_j A_{{{i},j}}\, v_j"))
    show_figure(
        fg.bar_chart(list(tokens), cell.weights, title="Worked cell: row i of the attention weights",
                     y_title="weight", y_range=(0.0, 1.15), fmt=".2f"),
        key=f"{KEY}_fig_row",
    )  # fmt: skip


st.subheader("One cell, worked through")
st.markdown(
    "Pick a query token i and a key token j to see where one score, one weight and one output row "
    "come from, with the real numbers of the matrices above."
)
worked_cell(lesson)
