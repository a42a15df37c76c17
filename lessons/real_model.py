"""Real model: the attention heads of a real BERT model (all-MiniLM-L6-v2), offline.

Head, model and neuron views in the spirit of bertviz, drawn with Plotly only.
"""

from __future__ import annotations

import logging

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import model_figures as mf
from attn_core import models, views
from ui.charts import show_figure
from ui.common import md_escape, show_tokens
from ui.model_cache import try_load

log = logging.getLogger(__name__)

PAIRS = {
    "time flies like an arrow / fruit flies like a banana": ("time flies like an arrow", "fruit flies like a banana"),
    "The animal … too tired. / The animal … congested.": (
        "The animal didn't cross the street because it was too tired.",
        "The animal didn't cross the street because it was congested.",
    ),
    "One sentence: The animal … too tired.": ("The animal didn't cross the street because it was too tired.", ""),
    "One sentence: The cat sat on the mat.": ("The cat sat on the mat.", ""),
}
VIEWS = ("Head view", "Model view", "Neuron view", "Summaries", "Reproduce a head")
MAX_CHARS = 6000  # about 512 tokens of English fit comfortably
BIG_T = 128  # above this, the head view starts with a higher threshold


# --------------------------------------------------------------------------- running the model (cached)


@st.cache_data(max_entries=16, show_spinner="Running the model…")
def _attend(
    _loaded: models.LoadedModel, name: str, source: str, sentence_a: str, sentence_b: str | None
) -> models.ModelAttention:
    return models.extract_attentions(_loaded, sentence_a, sentence_b, models.MAX_TOKENS)


# --------------------------------------------------------------------------- widgets


def _valid_state(key: str, allowed: list) -> None:
    """Forget a widget value that the new input no longer offers (e.g. token 40 of 12)."""
    if key not in st.session_state:
        return
    value = st.session_state[key]
    if isinstance(value, list):
        if any(v not in allowed for v in value):
            st.session_state[key] = [v for v in value if v in allowed]
    elif value not in allowed:
        del st.session_state[key]


def _pick_index(label: str, n: int, key: str, fmt, *, default: int = 0) -> int:
    """A selectbox of 0..n-1 whose choice survives views that do not show it."""
    _valid_state(key, list(range(n)))
    kept = st.session_state.get(f"{key}_kept", default)
    index = kept if 0 <= kept < n else min(default, n - 1)
    value = st.selectbox(label, list(range(n)), index=index, key=key, format_func=fmt)
    st.session_state[f"{key}_kept"] = value
    return value


def _token_name(tokens: list[str]):
    return lambda i: "all tokens" if i is None else f"{i}: {tokens[i]}"


def _sentences() -> tuple[str, str]:
    if "rm_a" not in st.session_state:
        st.session_state["rm_a"], st.session_state["rm_b"] = next(iter(PAIRS.values()))

    def _use_preset() -> None:
        choice = st.session_state.get("rm_preset")
        if choice:
            st.session_state["rm_a"], st.session_state["rm_b"] = PAIRS[choice]

    st.selectbox(
        "Examples", list(PAIRS), index=None, placeholder="Pick an example…", key="rm_preset", on_change=_use_preset
    )
    st.caption(
        "Try the animal pair: in the head view, focus on the token “it” and compare where it looks when the "
        "street is congested and when the animal is tired (layers 4 and 5 are a good place to start)."
    )
    col_a, col_b = st.columns(2)
    with col_a:
        a = st.text_area("Sentence A", key="rm_a", max_chars=MAX_CHARS, height=90)
    with col_b:
        b = st.text_area("Sentence B (optional)", key="rm_b", max_chars=MAX_CHARS, height=90)
    return a or "", b or ""


# --------------------------------------------------------------------------- the views


def head_view(att: models.ModelAttention, layer: int, pickers: list) -> None:
    T, H = att.T, att.n_heads
    c1, c2 = pickers[1], pickers[2]
    with c1:
        _valid_state("rm_heads", list(range(H)))
        heads = st.multiselect(
            "Heads", list(range(H)), default=list(range(H)), key="rm_heads", format_func=lambda h: f"head {h}"
        )
    with c2:
        _valid_state("rm_focus", [None, *range(T)])
        query = st.selectbox("Focus on a query token", [None, *range(T)], key="rm_focus",
                             format_func=_token_name(att.tokens))  # fmt: skip
    c3, c4, c5 = st.columns([2, 1, 2])
    with c3:
        if att.sentence_b_start is not None:
            region = st.radio("Which lines", mf.REGIONS, horizontal=True, key="rm_region",
                              help="A→B: queries in sentence A attending to keys in sentence B.")  # fmt: skip
        else:
            region = "All"
            st.caption("Add a sentence B to filter lines by A→A, B→B, A→B or B→A.")
    with c4:
        hide_special = st.checkbox("Hide [CLS] and [SEP]", key="rm_hide")
    with c5:
        threshold = st.slider("Hide lines fainter than", 0.01, 1.0, 0.05 if T <= BIG_T else 0.2, 0.01,
                              key="rm_threshold")  # fmt: skip
    if not heads:
        st.info("Pick at least one head to draw its lines.")
        return
    fig = mf.head_view(
        att.attentions[layer], att.tokens, heads=heads, threshold=threshold, query=query, region=region,
        sentence_b_start=att.sentence_b_start, hide=att.special if hide_special else None,
        title=f"Head view, layer {layer}",
    )  # fmt: skip
    show_figure(fig, key="rm_head_view")
    st.markdown(
        "Each line joins a token on the left (the **query**, doing the looking) to a token on the right "
        "(the **key**, being looked at). The darker the line, the larger the attention weight; every "
        "head has its own colour. Each left token's lines in one head add up to 1, so a token that "
        "sends all its attention to one place draws one dark line."
    )
    if hide_special:
        st.caption(
            "Lines to and from [CLS] and [SEP] are hidden, not renormalised: the remaining lines keep the "
            "model's own weights, so a row's visible lines may add up to less than 1."
        )


def model_view(att: models.ModelAttention, layer: int, pickers: list) -> None:
    with pickers[1]:
        head = _pick_index("Head", att.n_heads, "rm_head", lambda h: f"head {h}")
    grid = mf.thumbnail_grid(
        att.attentions, title="Model view: every head, layers (rows) × heads (columns)",
        row_names=[f"layer {i}" for i in range(att.n_layers)], col_names=[f"h{h}" for h in range(att.n_heads)],
        selected=(layer, head),
    )  # fmt: skip
    show_figure(grid, key="rm_model_view")
    pooled = " (larger inputs are averaged into 32 × 32 blocks)" if att.T > mf.THUMB_MAX else ""
    st.markdown(
        "Every small square is one head's full attention matrix: rows are queries, columns are keys, "
        f"bright cells are large weights{pooled}. Heads differ: some look at the previous or the next "
        "token, some at [SEP], some spread their attention over the whole sentence."
    )
    big = mf.attention_heatmap(att.attentions[layer, head], att.tokens, att.tokens, width_px=fg.FULL_WIDTH_PX,
                               title=f"Layer {layer}, head {head}: attention weights")  # fmt: skip
    show_figure(big, key="rm_model_big")


def neuron_view(att: models.ModelAttention, layer: int, pickers: list) -> None:
    with pickers[1]:
        head = _pick_index("Head", att.n_heads, "rm_head", lambda h: f"head {h}")
    with pickers[2]:
        query = _pick_index("Query token", att.T, "rm_query", _token_name(att.tokens), default=1)
    nv = views.neuron_view(att.queries, att.keys, layer, head, query)
    figs = mf.neuron_figures(nv, att.tokens, layer=layer, head=head)
    st.markdown(
        f"How one query becomes one row of attention. The query vector **q** of token {query} "
        f"(d_k = {att.d_k} numbers) is compared with the key vector **k** of every token: "
        "multiply them number by number (q∘k), add up each row (q·k), divide by √d_k and take the softmax."
    )
    for name in ("q", "k", "qk", "scores", "weights"):
        show_figure(figs[name], key=f"rm_neuron_{name}")
    j = nv.top
    st.latex(
        rf"q_{{{query}}}\cdot k_{{{j}}} = {nv.scores[j]:.3f},\quad "
        rf"\frac{{{nv.scores[j]:.3f}}}{{\sqrt{{{att.d_k}}}}} = {nv.scaled[j]:.3f},\quad "
        rf"\mathrm{{softmax}}_{{{j}}} = {nv.weights[j]:.3f}"
    )
    st.caption(f"Token {query} is “{md_escape(att.tokens[query])}”; it attends most to token {j}, "
               f"“{md_escape(att.tokens[j])}”.")  # fmt: skip


def summaries(att: models.ModelAttention, layer: int) -> None:
    means = views.head_mean(att.attentions)  # (L, T, T)
    rolled = views.rollout(att.attentions)  # (L, T, T)
    names = [f"layer {i}" for i in range(att.n_layers)]
    grid = mf.thumbnail_grid(
        np.stack([means, rolled]), title="Per layer: the mean over heads, and the rollout up to that layer",
        row_names=["mean", "rollout"], col_names=names, selected=(0, layer),
    )  # fmt: skip
    show_figure(grid, key="rm_means")
    st.markdown(
        "Averaging the heads of a layer shows where that layer as a whole moves information. "
        "**Attention rollout** (Abnar & Zuidema, 2020) follows it through the layers: each layer's "
        "mean is mixed half-and-half with the identity (the residual connection keeps each token's own "
        "vector), and the layers are multiplied, so row i says how much each input token contributes to "
        "token i after that layer."
    )
    c1, c2 = st.columns(2)
    with c1:
        show_figure(mf.attention_heatmap(means[layer], att.tokens, att.tokens,
                                         title=f"Layer {layer}: mean over heads"), key="rm_mean_big")  # fmt: skip
    with c2:
        show_figure(mf.attention_heatmap(rolled[layer], att.tokens, att.tokens,
                                         title=f"Rollout through layer {layer}"), key="rm_rollout_big")  # fmt: skip


def reproduce(loaded: models.LoadedModel, att: models.ModelAttention, layer: int, pickers: list) -> None:
    with pickers[1]:
        head = _pick_index("Head", att.n_heads, "rm_head", lambda h: f"head {h}")
    real = models.real_head(att, models.head_weights(loaded, layer, head), layer, head)
    steps = models.reproduce(real)
    err = models.reproduction_error(real, steps)
    st.markdown(
        f"The model's own weights for layer {layer}, head {head} go into the same `attention_steps` "
        "function the other pages use: x is the layer's input, W_q, W_k, W_v and their biases are this "
        f"head's slice of the layer, and the scores are divided by √{real.weights.d_k}. "
        "The result matches the model's attention up to rounding:"
    )
    st.metric("max |Δ| between attn_core and the model", f"{err:.1e}")
    st.latex(
        rf"\mathrm{{softmax}}\!\left(\frac{{(XW_q+b_q)(XW_k+b_k)^\top}}{{\sqrt{{{real.weights.d_k}}}}}\right),"
        rf"\quad X \in \mathbb{{R}}^{{{real.x.shape[0]}\times{real.x.shape[1]}}},\ "
        rf"\frac{{1}}{{\sqrt{{{real.weights.d_k}}}}} = {steps.factor:.4f}"
    )
    c1, c2 = st.columns(2)
    with c1:
        show_figure(mf.attention_heatmap(steps.weights, att.tokens, att.tokens,
                                         title="attn_core, float64"), key="rm_repro_ours")  # fmt: skip
    with c2:
        show_figure(mf.attention_heatmap(real.model_weights, att.tokens, att.tokens,
                                         title="The model's own attention"), key="rm_repro_model")  # fmt: skip


# --------------------------------------------------------------------------- the page

st.title("Real model: the attention heads of BERT")
st.markdown(
    "Everything so far used small random weights. Here the weights come from a trained model, "
    "all-MiniLM-L6-v2 (a small BERT with 6 layers of 12 heads), which runs on this computer with no "
    "network. Type one or two sentences and look at its heads from several angles."
)

name = st.selectbox(
    "Model", models.ALLOWED_MODELS, key="rm_model",
    format_func=lambda n: f"{n} (embedded)" if n == models.DEFAULT_MODEL else f"{n} (Hugging Face cache)",
)  # fmt: skip
loaded, problem = try_load(name)
if problem and name != models.DEFAULT_MODEL:
    st.error(f"{md_escape(problem)} Showing the embedded model instead.")
    loaded, problem = try_load(models.DEFAULT_MODEL)
if loaded is None:
    st.error(
        f"The real model is not available: {md_escape(problem or 'unknown error')} "
        "The other pages do not need it and keep working."
    )
    st.stop()
st.caption(
    f"Model {md_escape(loaded.name)}: {loaded.n_layers} layers × {loaded.n_heads} heads, d_model = {loaded.d_model}, "
    f"d_k = {loaded.d_k}. Running on **{models.device_label(loaded)}**."
)
if loaded.fallback:
    st.warning(md_escape(loaded.fallback))

text_a, text_b = _sentences()
if not text_a.strip():
    st.info("Type a sentence A above (it is empty), or pick an example, to see the model's attention.")
    st.stop()
sentence_b = text_b if text_b.strip() else None
try:
    att = _attend(loaded, loaded.name, loaded.source, text_a, sentence_b)
except ValueError as err:
    st.error(md_escape(str(err)))
    st.stop()
except Exception as err:
    log.exception("the model failed on this input")
    st.error(f"The model failed on this input ({type(err).__name__}); try a shorter text.")
    st.stop()
if att.fallback:
    st.warning(md_escape(att.fallback))
if att.truncated:
    st.warning(
        f"The input is longer than {models.MAX_TOKENS} tokens, the most this model reads; only the first "
        f"{models.MAX_TOKENS} are used (a sentence pair is trimmed from the longer sentence)."
    )

st.markdown(f"**{att.T} tokens** as the model sees them:")
show_tokens(att.tokens)
st.caption(
    "This tokenizer lowercases the text and splits rare words into WordPiece parts (## marks a part "
    "that continues a word). It adds [CLS] at the start and [SEP] after each sentence; characters "
    "outside its vocabulary become [UNK]."
    + (" Some of this input became [UNK]." if "[UNK]" in att.tokens else "")
)

view = st.radio("View", VIEWS, horizontal=True, key="rm_view")
pickers = st.columns(3)
with pickers[0]:
    layer = _pick_index("Layer", att.n_layers, "rm_layer", lambda i: f"layer {i}")
if view == "Head view":
    head_view(att, layer, pickers)
elif view == "Model view":
    model_view(att, layer, pickers)
elif view == "Neuron view":
    neuron_view(att, layer, pickers)
elif view == "Summaries":
    summaries(att, layer)
else:
    reproduce(loaded, att, layer, pickers)
