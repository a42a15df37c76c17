"""Step by step: one attention head on your sentence, from the tokens to the output Z.

Widgets -> one cached attn_core call -> figure builders. Every setting lives in the URL
(?text=...&d_k=8&causal=1&weights=real&layer=3&head=1&i=8&j=2&step=4), validated and
clamped, so a teacher can share a link to exactly this view (and, in presenter mode, to
one step).

The weights are seeded random ones (NumPy only) unless the user picks a real head of the
embedded model; only then are torch and transformers imported, through ui.model_cache.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from attn_core import figures as fg
from attn_core import tables
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from ui import outline, present, quiz
from ui.charts import show_bars, show_heatmap, show_panels
from ui.common import (
    MAX_CHARS,
    MAX_TOKENS,
    PRESETS,
    checked_tokens,
    md_escape,
    once_per_server,
    sentence_input,
    show_tokens,
)
from ui.footer import footer
from ui.model_cache import it_head, it_numbers, it_rows, try_load
from ui.state import PageState, Param, clamp_index

SOURCES = {  # URL value -> label
    "random": "Random (seeded)",
    "real": "A real head of all-MiniLM-L6-v2",
    "decoder": "A head of our small decoder (causal)",
}


@once_per_server(st.cache_resource(show_spinner=False))
def minilm_shape() -> tr.ModelShape | None:
    """The embedded model's sizes from its config.json, once per server (None: the package is missing)."""
    return tr.minilm_shape()


MINILM = minilm_shape()
# The real head's layer and head bounds, for clamping URL values before the model loads. Without the
# package no real head can be shown, and the fallback only keeps the URL bounds sane.
REAL_LAYERS, REAL_HEADS = (MINILM.n_layers, MINILM.n_heads) if MINILM is not None else (6, 12)
N_REPEAT = 20  # the sidebar's induction check: this many random words, then the same again
MULTIPLIER = 100.0  # what the ×100 switch multiplies the scores by
SMALL, SMALL_WIDE, SMALL_PANEL = 14, 16, 6  # print values in cells up to these sizes (full width, panels)
OPTION_CHARS = 24  # tokens longer than this are shortened in selectboxes and captions
SIZES = {"d_model": "d_model (size of each token vector)", "d_k": "d_k (size of queries and keys)"}
TOGGLES = {  # URL name -> label
    "scale": "Divide the scores by √d_k",
    "x100": "Multiply the scores by 100",
    "causal": "Causal mask (no looking ahead)",
    "pos": "Add positional encoding",
}
STEPS = (
    "Tokens",
    "X, one vector per token",
    "The weight matrices W_q, W_k, W_v",
    "Queries, keys and values",
    "The scores QKᵀ",
    "Scaled scores",
    "Masked scores",
    "Attention weights (softmax)",
    "The output Z",
    "One cell, worked through",
)
STATE = PageState(
    "sbs",
    (
        Param("text", PRESETS[0], "text", max_chars=MAX_CHARS, shared=True),
        Param("d_model", 16, "int", lo=2, hi=64),
        Param("d_k", 4, "int", lo=1, hi=64),
        Param("seed", 0, "int", lo=0, hi=9999),
        Param("scale", True, "bool"),
        Param("x100", False, "bool"),
        Param("causal", False, "bool"),
        Param("pos", True, "bool"),
        Param("weights", "random", "choice", choices=tuple(SOURCES)),
        Param("layer", 0, "int", lo=0, hi=REAL_LAYERS - 1),
        Param("head", 0, "int", lo=0, hi=REAL_HEADS - 1),
        Param("i", 2, "index"),
        Param("j", 1, "index"),
        Param("predict", False, "bool"),
        Param("step", 1, "int", lo=1, hi=len(STEPS)),
    ),
)
K = STATE.key


# --------------------------------------------------------------------------- the engine


@once_per_server(st.cache_data(max_entries=256, show_spinner=False))
def compute(
    tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, positional: bool, scale: bool, x100: bool, causal: bool
) -> wt.Lesson:
    """The page's one attn_core call: where (tokens, X, weights) come from, then every step.

    Returns: Lesson with steps.weights (T, T) and steps.output (T, d_k)
    """
    source = wt.seeded_source(tokens, d_model, d_k, seed=seed, positional=positional)  # the weight source
    return wt.lesson(source, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal)


@once_per_server(st.cache_data(max_entries=16, show_spinner="Running the model…"))
def model_run(_loaded, name: str, text: str):
    """One forward pass per text: every layer's input and attention, shared by all heads and
    switches, so picking another head or toggling the mask does not run the model again."""
    from attn_core import models  # torch: only when a real head is asked for

    return models.extract_attentions(_loaded, text, max_tokens=MAX_TOKENS)


@once_per_server(st.cache_resource(show_spinner=False))
def load_decoder() -> tuple[dc.Decoder | None, str | None]:
    """The shipped decoder, once per server; None and the reason when its files are missing."""
    try:
        return dc.load_decoder(), None
    except dc.DecoderLoadError as err:
        return None, str(err)


@once_per_server(st.cache_resource(show_spinner=False))
def decoder_induction(_decoder: dc.Decoder) -> np.ndarray | None:
    """The decoder's induction scores (L, H) on N_REPEAT random words said twice (one per server)."""
    words = dc.random_repeated(_decoder, N_REPEAT, seed=0)
    return dc.decoder_lesson(_decoder, " ".join(words), period=N_REPEAT).induction


@once_per_server(st.cache_data(max_entries=64, show_spinner=False))
def compute_decoder(_decoder: dc.Decoder, text: str, layer: int, head: int, scale: bool, x100: bool) -> dc.HeadLesson:
    """The lesson with a head of the decoder (decoder.head_lesson): always causal.

    Returns: HeadLesson with lesson.steps.weights (T, T) and max_abs_error
    """
    return dc.head_lesson(_decoder, text, layer, head, scale=scale, multiplier=MULTIPLIER if x100 else 1.0)


@once_per_server(st.cache_data(max_entries=64, show_spinner=False))
def compute_real(_loaded, name: str, text: str, layer: int, head: int, scale: bool, x100: bool, causal: bool):
    """The same lesson with a real head (models.real_lesson), on the cached forward pass.

    Returns: RealLesson with lesson.steps.weights (T, T), max_abs_error and truncated
    """
    from attn_core import models

    att = model_run(_loaded, name, text)
    return models.real_lesson(
        _loaded, att, layer, head, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal
    )


def all_steps_npz(lesson: wt.Lesson, settings: dict) -> bytes:
    """Every step of the run as one .npz, with the settings as JSON."""
    s, w = lesson.steps, lesson.source.weights
    names = ("x", "q", "k", "v", "scores", "scaled", "masked", "weights", "output")
    arrays = {name: getattr(s, name) for name in names}
    weights = {"w_q": w.w_q, "w_k": w.w_k, "w_v": w.w_v, "b_q": w.b_q, "b_k": w.b_k, "b_v": w.b_v}
    arrays |= {name: value for name, value in weights.items() if value is not None}
    arrays["tokens"] = np.array(lesson.tokens, dtype=str)
    return tables.to_npz(arrays, settings)


# --------------------------------------------------------------------------- helpers


def _short(token: str) -> str:
    return token if len(token) <= OPTION_CHARS else token[: OPTION_CHARS - 1] + "…"


def _option(tokens: tuple[str, ...]) -> Callable[[int], str]:
    """Selectbox labels like '3: sat', so repeated words differ by their index."""
    return lambda n: f"{n}: {_short(tokens[n])}"


def _dims(n: int) -> list[str]:
    return fg.dim_labels(n, prefix="")


def _matrix(key: str, z, title: str, rows: list[str], cols: list[str], **kwargs) -> None:
    """One labelled heatmap, as wide as the page, with a stable chart key and its table."""
    show_heatmap(f"sbs_fig_{key}", z, rows=rows, cols=cols, title=title, width_px=fg.FULL_WIDTH_PX, **kwargs)


def _panels(key: str, panels: list, title: str, rows: list[str] | None, **kwargs) -> None:
    """Matrices that share their rows, side by side in one chart as wide as the page; their table
    puts the panels side by side too (columns "W_q 0", "W_q 1", ...)."""
    show_panels(f"sbs_fig_{key}", panels, rows=rows, title=title, width_px=fg.FULL_WIDTH_PX, **kwargs)


def _factor_latex(lesson: wt.Lesson) -> str:
    """The scaling step with its live factor, e.g. S / sqrt(4) = 0.5 S."""
    d_k, factor = lesson.steps.d_k, f"{lesson.steps.factor:.4g}"
    top = "S" if lesson.multiplier == 1 else f"{lesson.multiplier:g}\\,S"
    if lesson.scale:
        return rf"\tilde S = \frac{{{top}}}{{\sqrt{{d_k}}}} = \frac{{{top}}}{{\sqrt{{{d_k}}}}} = {factor}\,S"
    return rf"\tilde S = {top} \qquad (\text{{not divided by }} \sqrt{{d_k}})"


def decoder_after_head(decoder: dc.Decoder, layer: int) -> str:
    """Step 9 for a decoder head: what attn_core.trained_decoder.run does with Z next (layer from 0)."""
    H, L = decoder.n_heads, decoder.n_layers
    concat, d_model = decoder.weights.w_o.shape[1:]  # w_o (L, H*d_v, d_model)
    text = (
        f"In the decoder, Z is put side by side with the other {H - 1} heads' outputs of layer {layer + 1} "
        f"({concat} numbers per token), projected by W_O back to {d_model} numbers and added to the token's "
        "own vector (the residual stream)."
    )
    if decoder.attention_only:
        text += " That is all a layer does: this small model has no normalisation and no feed-forward network."
    if layer + 1 < L:
        return text + f" Layer {layer + 2} reads the sum as its X."
    return text + (
        f" Layer {layer + 1} is the last, so the sum goes to the unembedding: multiplied by W_U, plus a bias, it "
        f"gives one score for each of the {len(decoder.vocab)} entries of the vocabulary (<unk> included), "
        "and the highest is the model's guess for the next word."
    )


def spread_sentence(stats: wt.StepStats, multiplier: float = 1.0) -> str:
    """Step 6 on random weights: what sets the spread of the scores, in this run's numbers.

    The weights have mean 0, so a query entry's variance is the mean square of the token's
    entries, not their variance; the sentence splits X's mean square into the word vectors'
    part and what the positions add. The parts are rounded first, so they add up as printed.
    """
    total = round(stats.x_mean_square, 2)
    text = (
        "In plain words: after the division, how widely the scores spread no longer depends on d_k, only on how "
        "large X's entries are"
        + (f" (and on the ×{multiplier:g} switch, on now)" if multiplier != 1 else "")
        + f". In this run std(S̃) = {stats.scaled_std:.2f}. Why: the weights are random with "
        "mean 0, so what sets that spread is the mean square of X's entries (the average of their squares). For "
        "entries of mean 0 and variance 1 it is about 1, and then the scaled scores spread about 1 whatever d_k "
        "is. "
    )
    if stats.e_mean_square is None:
        text += f"Here the word vectors alone make X, and its mean square is {total:.2f}."
    else:
        words = round(stats.e_mean_square, 2)
        added = round(total - words, 2)
        change = f"add {added:.2f}" if added >= 0 else f"take away {-added:.2f}"
        text += f"Here it is {total:.2f}: the word vectors alone give {words:.2f} and the positions {change}."
    if round(stats.x_var, 2) < total:
        text += (
            f" Var(X) in Step 2 is smaller, {stats.x_var:.2f}, because the variance first subtracts the mean of "
            f"the entries, {stats.x_mean:.2f} here."
        )
    return text


def _gap(value: float) -> str:
    """A difference that should be 0: "0", or its size in scientific notation (rounding)."""
    return "0" if value == 0 else f"{value:.1e}".replace("-", "−")


def positions_sentence(order: wt.OrderCheck, T: int) -> str:
    """Step 2 on random weights: what attention knows about word order, from the sentence reversed."""
    if T < 2:
        return ""
    words = "on the word vectors alone, " if order.order_gap is not None else ""
    text = (
        "Without positions, attention treats the sentence as a set of words: read it backwards and every token "
        "gets exactly the output it had, only in reversed order (computed "
        f"{words}without a mask, which would itself carry the order: max |Δ| = {_gap(order.set_gap)}, rounding)."
    )
    if order.order_gap is not None:
        text += f" With the positions, reading it backwards changes the outputs by up to {order.order_gap:.2f}."
    return text + (
        " Sines and cosines are one choice: BERT and GPT-2 learn a position vector for each place instead, and "
        "many newer models add nothing to X but rotate Q and K by an angle that depends on the position (RoPE)."
    )


def aligned_sentence(stats: wt.StepStats, T: int) -> str:
    """Step 5: in how many rows a longer key beat the best-aimed one."""
    n = stats.top_not_aligned
    if n == 0:
        return (
            f"In this run all {T} rows give their highest score to the key that points most nearly along the "
            "query, but a longer key could win."
        )
    return (
        f"In this run, in {n} of the {T} rows the highest score goes to a key that is not the one pointing most "
        "nearly along the query: a longer key won."
    )


def zeros_sentence(stats: wt.StepStats) -> str:
    """Step 8: how many weights are exactly 0, and why."""
    zeros, masked = stats.n_zero_weights, stats.n_masked
    if zeros == 0:
        return f"Here no cell is masked, and none of the {stats.n_cells} weights is 0."
    text = f"Here {zeros} of the {stats.n_cells} weights are exactly 0"
    if zeros == masked:
        return text + ": the masked cells."
    under = zeros - masked
    return text + (
        f": {masked} masked cell{'s' if masked != 1 else ''} and {under} whose exponential is too small for a "
        "float64 (it rounds to 0)."
    )


IN_SIDEBAR = " in the sidebar" if present.on() else ""  # where presenter mode keeps the sentence box
LATER = "in the steps that follow" if present.on() else "below"  # presenter mode shows one step at a time


def _repeats_sentence(stats: wt.StepStats, positional: bool) -> str:
    """What the page says about repeated words, from the run's own numbers."""
    if not stats.repeats:
        return (
            "This sentence repeats no word exactly. Case counts here: “The” and “the” are different words "
            f"with different vectors. Pick the example “the cat sat on the mat”{IN_SIDEBAR} to see an exact repeat."
        )
    token, where, identical = stats.repeats[0]
    places = " and ".join(str(n) for n in where)
    if positional:
        return (
            f"“{md_escape(_short(token))}” appears at positions {places}: the same word vector, but a different "
            "position vector is added, so its rows of X differ."
        )
    same = "are identical" if identical else "differ"
    return (
        f"“{md_escape(_short(token))}” appears at positions {places}, and with positions off its rows of X "
        f"{same}: attention alone cannot tell where a word stands. (Case counts: “The” and “the” are "
        "different words here.)"
    )


def sources_help(shape: tr.ModelShape | None) -> str:
    """The Weights radio's help, with the real model's head count read from its config.json."""
    real = (
        f"one of the {shape.n_layers * shape.n_heads} trained heads ({shape.n_layers} layers of {shape.n_heads}) "
        f"of {shape.name}, a small BERT model"
        if shape is not None
        else "a trained head of all-MiniLM-L6-v2, a small BERT model"
    )
    return (
        f"Random weights are a head before any training. A real head is {real}; it loads the model the first "
        "time (a few seconds). A decoder head comes from the small causal model we trained for the Decoder "
        "page, so the causal mask stays on."
    )


def decoder_hint(induction: np.ndarray | None) -> str:
    """The sidebar's hint for the decoder: which heads are induction heads, from their scores (L, H)."""
    hint = "A decoder head reads only its own word and the words before it, so the causal mask stays on."
    heads = dc.induction_heads(induction) if induction is not None else []
    if not heads:
        return hint + " Try a sequence that repeats (the Decoder page has a button for one)."
    names = "; ".join(f"layer {layer + 1}, head {head}" for layer, head in heads)
    return (
        f"{hint} On {N_REPEAT} random words followed by the same {N_REPEAT} again, {len(heads)} of its "
        f"{induction.size} heads have an induction score above {dc.INDUCTION_THRESHOLD:g}: in the repeated "
        "part they put, on average, more than that share of their attention on the word that followed the "
        f"current word's earlier copy. These are induction heads: {names}. Try one of them on a sequence "
        "that repeats (the Decoder page has a button for one)."
    )


# --------------------------------------------------------------------------- the page

fresh = K("text") not in st.session_state  # the page's first run in this visit: no change to report
STATE.start()
deck = present.Deck(STEPS, step_key=K("step"), noun="Step", counted=9)

st.title("Self-attention, step by step")
present.intro(
    "Type a sentence and follow one attention head through every matrix it computes, from the "
    "token vectors X to the output Z. Change a setting in the sidebar and every number below is "
    "recomputed; the address bar keeps the settings, so you can copy it to share this exact view."
)
with present.inputs():
    text = sentence_input(K("text"))
outline.steps(deck)
with st.sidebar:
    st.header("Settings")
    source_kind = st.radio(
        "Weights",
        list(SOURCES),
        format_func=SOURCES.get,
        key=K("weights"),
        help=sources_help(MINILM),
    )
    real_head, decoder_head = source_kind == "real", source_kind == "decoder"
    decoder, decoder_problem = load_decoder() if decoder_head else (None, None)
    decoder_head = decoder is not None  # without its files the page says why and shows random weights
    if real_head or decoder_head:
        n_layers, n_heads = (REAL_LAYERS, REAL_HEADS) if real_head else (decoder.n_layers, decoder.n_heads)
        first = 0 if real_head else 1  # BERT's layers are numbered from 0 (as bertviz does), the decoder's from 1
        for name, n in (("layer", n_layers), ("head", n_heads)):
            st.session_state[K(name)] = min(STATE.value(name), n - 1)
        layer = st.selectbox("Layer", range(n_layers), format_func=lambda n: f"layer {n + first}", key=K("layer"))
        head = st.selectbox("Head", range(n_heads), format_func=lambda n: f"head {n}", key=K("head"))
        if real_head:
            it_model, _ = try_load()  # without it the page says so below, and shows random weights
            if it_model is not None:
                it_layer, it_h = it_head(it_model, it_model.name)
                st.caption(
                    f"Try layer {it_layer}, head {it_h} with the two animal/street examples, and pick "
                    "“it” as the query token in “One cell, worked through”: "
                    + it_numbers(it_rows(it_model, it_model.name, it_layer, it_h))
                )
        else:
            st.caption(decoder_hint(decoder_induction(decoder)))
    else:
        layer, head = STATE.value("layer"), STATE.value("head")
    trained = real_head or decoder_head
    if trained and (decoder_head or MINILM is not None):
        # The model's own sizes, on sliders that cannot move. The random head's sizes are kept
        # (not drawn, a widget's value would be dropped) for when random weights come back.
        sizes = (
            {"d_model": MINILM.d_model, "d_k": MINILM.d_k}
            if real_head
            else {"d_model": decoder.d_model, "d_k": decoder.d_k}
        )
        d_model, d_k = STATE.value("d_model"), STATE.value("d_k")  # random weights, if the model fails below
        for name, size in sizes.items():
            st.session_state[K(name)] = STATE.value(name)
            st.session_state[K(f"{name}_model")] = size
            st.slider(f"{SIZES[name]} (set by the model)", 1, max(64, size), key=K(f"{name}_model"), disabled=True)
    else:
        d_model = st.slider(SIZES["d_model"], 2, 64, key=K("d_model"), disabled=trained)
        d_k = st.slider(SIZES["d_k"], 1, 64, key=K("d_k"), disabled=trained)
    seed = int(st.number_input("Seed (random weights)", 0, 9999, step=1, key=K("seed"), disabled=trained))
    if decoder_head:
        st.session_state[K("causal")] = True  # the decoder was trained with it: its numbers need it
    flags = {
        name: st.toggle(label, key=K(name), disabled=(trained and name == "pos") or (decoder_head and name == "causal"))
        for name, label in TOGGLES.items()
    }
    predict = st.toggle(
        "Predict first",
        key=K("predict"),
        help="Hide the attention weights until you have guessed which key a token looks at most, and how much.",
    )

checked = checked_tokens(text)
if checked is None:
    STATE.sync()
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
if source_kind == "decoder" and decoder is None:
    st.error(
        f"The decoder is not available ({md_escape(decoder_problem or 'unknown error')}), so this page shows "
        "random weights instead."
    )
if real_head:
    real = compute_real(loaded, loaded.name, text, layer, head, flags["scale"], flags["x100"], flags["causal"])
    lesson, model_error = real.lesson, real.max_abs_error
    if real.truncated:
        st.warning(
            f"The model splits this text into more than {MAX_TOKENS} tokens; only the first {MAX_TOKENS} are used."
        )
    tokens = lesson.tokens
elif decoder_head:
    dec = compute_decoder(decoder, text, layer, head, flags["scale"], flags["x100"])
    lesson, model_error = dec.lesson, dec.max_abs_error
    if dec.truncated and dc.MAX_TOKENS < MAX_TOKENS:  # at the page's own limit checked_tokens has said so
        st.warning(f"The decoder reads at most {dc.MAX_TOKENS} words; only the first {dc.MAX_TOKENS} are used.")
    if dec.unknown:
        st.warning(
            f"Not in the decoder's {len(decoder.vocab) - 1}-word vocabulary, so read as <unk>: "
            + ", ".join(f"“{md_escape(w)}”" for w in dec.unknown[:20])
            + (f" and {len(dec.unknown) - 20} more" if len(dec.unknown) > 20 else "")
            + "."
        )
    tokens = lesson.tokens
else:
    lesson = compute(tokens, d_model, d_k, seed, flags["pos"], flags["scale"], flags["x100"], flags["causal"])
steps, stats = lesson.steps, lesson.stats
T, labels = len(tokens), list(tokens)
d_model, d_k, d_v = steps.x.shape[1], steps.d_k, steps.v.shape[1]
score_fmt = ".2f" if stats.max_abs_score < 100 else ".3g"
biases = lesson.source.weights.b_q is not None
for name, default in (("i", min(2, T - 1)), ("j", min(1, T - 1))):  # token pickers stay inside this sentence
    st.session_state[K(name)] = clamp_index(STATE.value(name), T, default)
STATE.sync()

if decoder_head:
    same = flags["scale"] and not flags["x100"]
    st.success(
        f"Weights: layer {layer + 1}, head {head} of our small decoder, with the causal mask on because the head "
        f"was trained with it: every word reads only the words before it. With the model's own settings attn_core's "
        f"weights match the decoder's attention to max |Δ| = {model_error:.1e}."
        + (
            ""
            if same
            else f" Your switches change this run, so the weights {LATER} differ from the model's on purpose."
        )
    )
if real_head:
    same = flags["scale"] and not flags["x100"] and not flags["causal"]
    st.success(
        f"Weights: layer {layer}, head {head} of all-MiniLM-L6-v2. With the model's own settings (divided by "
        f"√{d_k}, no ×100, no mask) attn_core's weights match the model's attention to max |Δ| = "
        f"{model_error:.1e}."
        + (
            ""
            if same
            else f" Your switches change this run, so the weights {LATER} differ from the model's on purpose."
        )
    )

deck.nav()
i_key, j_key = STATE.value("i"), STATE.value("j")
w = lesson.source.weights
outline.changes(
    deck,
    (
        outline.fingerprint(tokens),
        outline.fingerprint(steps.x),
        outline.fingerprint(w.w_q, w.w_k, w.w_v, w.b_q, w.b_k, w.b_v),
        outline.fingerprint(steps.q, steps.k, steps.v),
        outline.fingerprint(steps.scores),
        outline.fingerprint(steps.scaled),
        outline.fingerprint(steps.masked),
        outline.fingerprint(steps.weights),
        outline.fingerprint(steps.output),
        outline.fingerprint(
            i_key, j_key, steps.masked[i_key], steps.weights[i_key], steps.q[i_key], steps.k[j_key], steps.v
        ),
    ),
    {
        "Sentence": text,
        "Weights": SOURCES[source_kind],
        **({"Layer": layer, "Head": head} if real_head or decoder_head else {"Seed": seed}),
        **({} if real_head or decoder_head else {"d_model": d_model, "d_k": d_k}),
        **{label: bool(flags[name]) for name, label in TOGGLES.items()},
        "Query token i": i_key,
        "Key token j": j_key,
    },
    fresh=fresh,
)

# The question (and its Reveal button) is on step 8; shown one step at a time, the other steps say so.
WHERE = " on step 8" if present.paged() and deck.current != 7 else ""
HIDDEN_NOTE = f"Hidden until you reveal your prediction{WHERE} (Predict first is on)."
HIDDEN_SCORES = (
    f"Hidden until you reveal your prediction{WHERE} (Predict first is on): the softmax keeps each row's "
    "order, so the largest score in a row is also its largest weight, and this matrix would give the answer away."
)


def prediction(qi: int) -> quiz.Question | None:
    """Predict first: which key query ``qi`` weights most, made from this run's weights. Keys that
    tie for the most weight (the same word twice with positions off) make one option; one token
    gives no question (it can only look at itself), nor do keys that all tie."""
    row = steps.weights[qi]
    tied = [int(j) for j in np.flatnonzero(np.isclose(row, row.max(), rtol=0, atol=1e-12))]
    if len(tied) == T:
        return None
    keys = [[j] for j in range(T) if j not in tied[1:]]  # each key alone, the tied ones as one option
    keys[keys.index([tied[0]])] = tied
    return quiz.Question(
        key="sbs_quiz",
        prompt=f"Which key does query {qi} (“{_short(tokens[qi])}”) give the most weight, and how much?",
        options=tuple(" or ".join(_option(tokens)(n) for n in group) for group in keys),
        answer=keys.index(tied),
        value=float(row.max()),
        value_label="the largest weight in the row",
        explain=f"Keys {' and '.join(map(str, tied))} tie for the most weight." if len(tied) > 1 else "",
    )


# The scores, the weights, Z and the worked softmax stay hidden while a prediction waits.
question = prediction(STATE.value("i")) if predict else None
hidden = question is not None and not quiz.revealed(question)

# Step 1 -------------------------------------------------------------------------------
if deck.section(0):
    if real_head:
        st.markdown(
            "The model's own tokenizer cuts the text: it lowercases it, splits rare words into WordPiece parts "
            "(## marks a part that continues a word), and adds [CLS] at the start and [SEP] at the end. Every "
            f"position is its own token, so a repeated word gets separate rows in every matrix {LATER}."
        )
    elif decoder_head:
        st.markdown(
            f"The decoder reads words from its own {len(decoder.vocab) - 1}-word vocabulary, in lower case; any "
            "other word or mark becomes <unk>. Every position is its own token, so a repeated word gets separate "
            f"rows {LATER}."
        )
    else:
        st.markdown(
            "The sentence is cut into tokens: words and punctuation marks. Every position is its own token, so "
            f"a word that appears twice gets two separate rows in every matrix {LATER}. "
            + _repeats_sentence(stats, flags["pos"])
        )
    st.latex(rf"T = {T} \text{{ tokens}}")
    show_tokens(labels)

# Step 2 -------------------------------------------------------------------------------
if deck.section(1):
    if real_head:
        st.markdown(
            f"X is what layer {layer} receives: "
            + (
                "the model's embeddings (a learned vector per token, plus learned position and segment vectors, "
                "then normalised)."
                if layer == 0
                else f"the output of layer {layer - 1}, so every row already "
                "carries information mixed in from other tokens."
            )
            + f" Each row has d_model = {d_model} numbers."
        )
        present.formula(rf"X = H^{{({layer})}} \in \mathbb{{R}}^{{{T} \times {d_model}}}")
    elif decoder_head:
        st.markdown(
            f"X is what layer {layer + 1} of the decoder receives: "
            + (
                "each word's learned vector plus the same sinusoidal position vectors as the random pages."
                if layer == 0
                else (
                    "the word and position vectors plus everything "
                    + ("layer 1's heads" if layer == 1 else f"the heads of layers 1 to {layer}")
                    + " added to them (the residual stream)"
                    if decoder.attention_only
                    else f"the output of layer {layer}, built from the word and position vectors and "
                    "everything the layers before added to them"
                )
                + ", so every row already carries information from earlier words."
            )
            + f" Each row has d_model = {d_model} numbers."
        )
        present.formula(rf"X = x_{{{layer}}} \in \mathbb{{R}}^{{{T} \times {d_model}}}")
    elif flags["pos"]:
        st.markdown(
            "Each word is looked up as a fixed random vector of d_model numbers (the same word always "
            "gets the same vector for this seed). A pattern of sines and cosines that depends only on the "
            "position is added, so the same word at two places ends up with two different rows."
        )
        st.markdown(positions_sentence(lesson.order, T))
        present.formula(
            rf"X = E + P \in \mathbb{{R}}^{{{T} \times {d_model}}}, \qquad \operatorname{{Var}}(X) = "
            rf"{wt.latex_num(stats.x_var)}"
        )
    else:
        st.markdown(
            "Each word is looked up as a fixed random vector of d_model numbers. Positional encoding is "
            "off, so nothing in X says where a word stands. " + _repeats_sentence(stats, False)
        )
        st.markdown(positions_sentence(lesson.order, T))
        present.formula(
            rf"X = E \in \mathbb{{R}}^{{{T} \times {d_model}}}, \qquad \operatorname{{Var}}(X) = "
            rf"{wt.latex_num(stats.x_var)}"
        )
    _matrix(
        "x",
        steps.x,
        f"X ({T}×{d_model})",
        labels,
        _dims(d_model),
        name="X",
        row_title="token",
        col_title="d_model dimension",
        show_values=T <= SMALL and d_model <= SMALL_WIDE,
    )

# Step 3 -------------------------------------------------------------------------------
if deck.section(2):
    if real_head:
        st.markdown(
            f"These are trained numbers: head {head}'s share of layer {layer}'s query, key and value matrices. "
            f"The layer's three {d_model}×{d_model} matrices are split into {loaded.n_heads} heads of {d_k} columns "
            "each, and every head also has a bias vector b that is added after the multiplication."
        )
        present.formula(
            rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}, \qquad "
            rf"b_q,\ b_k,\ b_v \in \mathbb{{R}}^{{{d_k}}}"
        )
    elif decoder_head:
        st.markdown(
            f"These are trained numbers: head {head}'s query, key and value matrices in layer {layer + 1} of the "
            f"decoder, which has {decoder.n_heads} heads of {d_k} columns each in every layer."
            + ("" if biases else " Its heads have no biases.")
        )
        present.formula(rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}")
    else:
        st.markdown(
            "A head owns three matrices that training would tune. Here they are random, as at the very start "
            "of training. Their entries are drawn with variance 1/d_model, which keeps the spread of the "
            "input: a query or key entry has a variance of about the mean square of X's entries (the average of "
            "their squares, which is their variance when their mean is 0). Each matrix turns a d_model "
            "vector into d_k numbers."
        )
        present.formula(
            rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}, \qquad "
            rf"(W)_{{ab}} \sim \mathcal{{N}}\!\left(0, \tfrac{{1}}{{{d_model}}}\right)"
        )
    w = lesson.source.weights
    small = d_model <= SMALL_WIDE and d_k <= SMALL_PANEL
    weights = [("W_q", w.w_q), ("W_k", w.w_k), ("W_v", w.w_v)]
    axes = {"row_title": "d_model dimension", "col_title": "d_k dimension"}
    _panels(
        "w", weights, f"W_q, W_k, W_v ({d_model}×{d_k} each)", None, show_values=small, name="W_q, W_k, W_v", **axes
    )

# Step 4 -------------------------------------------------------------------------------
if deck.section(3):
    st.markdown(
        "Multiplying X by each matrix gives every token three new vectors: a query (what it is looking "
        "for), a key (what it can be found by) and a value (what it hands on when it is chosen)."
    )
    if biases:
        present.formula(
            rf"Q = XW_q + b_q,\quad K = XW_k + b_k,\quad V = XW_v + b_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}"
        )
    else:
        present.formula(rf"Q = XW_q,\quad K = XW_k,\quad V = XW_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}")
    qkv = [("Q", steps.q), ("K", steps.k), ("V", steps.v)]
    _panels("qkv", qkv, f"Q, K, V ({T}×{d_k} each)", labels, row_title="token", col_title="dimension", name="Q, K, V")

# Step 5 -------------------------------------------------------------------------------
if deck.section(4):
    st.markdown(
        "Row i compares token i's query with every key by a dot product, q·k = |q| |k| cos θ: the score grows "
        "with how nearly the two vectors point the same way (cos θ) and with their lengths. So it is not the "
        "cosine similarity, which ignores length. " + aligned_sentence(stats, T) + " With random vectors the "
        "scores spread wider as d_k grows."
    )
    present.formula(
        rf"S = QK^\top \in \mathbb{{R}}^{{{T} \times {T}}}, \quad s_{{ij}} = q_i \cdot k_j, "
        rf"\quad \operatorname{{std}}(S) = {wt.latex_num(stats.scores_std)}"
    )
    if hidden:
        st.info(HIDDEN_SCORES)
    else:
        _matrix(
            "scores",
            steps.scores,
            f"S = QKᵀ ({T}×{T})",
            labels,
            labels,
            name="Scores",
            row_title="query i",
            col_title="key j",
            value_name="score",
        )

# Step 6 -------------------------------------------------------------------------------
if deck.section(5):
    if real_head or decoder_head:
        spread = "Dividing by √d_k undoes the growth of the spread with d_k."
    else:
        spread = "Dividing by √d_k undoes the growth of the spread with d_k. " + spread_sentence(
            stats, lesson.multiplier
        )
    st.markdown(
        "Large scores push the softmax into picking a single token and leave training almost no gradient. "
        f"{spread} The ×100 switch shows the opposite, where nearly every row becomes one-hot."
    )
    present.formula(
        _factor_latex(lesson) + rf", \quad \operatorname{{std}}(\tilde S) = {wt.latex_num(stats.scaled_std)}"
    )
    if hidden:
        st.info(HIDDEN_SCORES)
    else:
        _matrix(
            "scaled",
            steps.scaled,
            f"S̃ ({T}×{T})",
            labels,
            labels,
            name="Scaled scores",
            row_title="query i",
            col_title="key j",
            value_name="scaled score",
            fmt=score_fmt,
        )

# Step 7 -------------------------------------------------------------------------------
if deck.section(6):
    if flags["causal"]:
        st.markdown(
            "The causal mask stops each token looking at tokens after it. A model that writes text is trained "
            "on whole sentences at once (teacher forcing), so the words after token i are there during "
            "training: the mask is what keeps token i from peeking at the words it must learn to predict. "
            "Forbidden cells become −∞ (grey, marked −∞), so the softmax gives them exactly zero weight."
        )
        present.formula(
            r"M_{ij} = \begin{cases} \tilde s_{ij} & j \le i \\ -\infty & j > i \end{cases}"
            rf"\qquad {stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}"
        )
    else:
        st.markdown(
            "No mask is on, so every token may look at every token, itself and later ones included, and "
            "this matrix equals the scaled scores. It is shown anyway because masking is a step of its own: "
            "switch on the causal mask in the sidebar and this is the first matrix that changes (steps 5 and 6 "
            "stay as they are), and a note at the top of the page names every step that changed."
        )
        present.formula(rf"M = \tilde S \qquad {stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}")
    if hidden:
        st.info(HIDDEN_SCORES)
    else:
        _matrix(
            "masked",
            steps.masked,
            f"M ({T}×{T})",
            labels,
            labels,
            name="Masked scores",
            row_title="query i",
            col_title="key j",
            value_name="masked score",
            fmt=score_fmt,
        )

# Step 8 -------------------------------------------------------------------------------
if deck.section(7):
    st.markdown(
        "The softmax turns each row into weights that are never negative and add up to 1: it exponentiates "
        "every masked score and divides by the row's total, so a masked cell (e^−∞ = 0) gets exactly 0. "
        + zeros_sentence(stats)
        + " Row i says how much token i takes from each token."
    )
    present.formula(
        r"A_{ij} = \frac{\exp(M_{ij})}{\sum_{l} \exp(M_{il})}, \qquad \sum_j A_{ij} \in "
        rf"[{stats.row_sum_min:.6f},\ {stats.row_sum_max:.6f}]"
    )
    if question is not None:  # made from this run's weights, before they are shown
        with st.container(border=True):
            st.selectbox("Query token to predict for", range(T), format_func=_option(tokens), key=K("i"))
            hidden = not quiz.ask(question)  # the selectbox's value is STATE.value("i") in this run
            quiz.score_line()
    elif predict and T == 1:
        st.caption("Predict first has no question for one token: it can only look at itself, with weight 1.")
    elif predict:
        st.caption(
            f"Predict first has no question for query {STATE.value('i')}: every key gets the same weight from it. "
            "Pick another query token in “One cell, worked through”."
        )
    if hidden:
        st.info(HIDDEN_NOTE)
    else:
        _matrix(
            "weights",
            steps.weights,
            f"A = softmax(M) ({T}×{T})",
            labels,
            labels,
            name="Attention weights",
            kind="weights",
            row_title="query i",
            col_title="key j",
            value_name="weight",
            focus_row=STATE.value("i"),
        )

# Step 9 -------------------------------------------------------------------------------
if deck.section(8):
    st.markdown(
        "Each output row is a blend of the value rows, mixed in the proportions of that token's row of "
        f"weights. This head's Z is {T}×{d_v}. "
        + (
            decoder_after_head(decoder, layer)
            if decoder_head
            else "In a transformer it is not the end: it is put side by side with the other heads' outputs, "
            "projected by W_O back to d_model numbers, added to the token's own vector (the residual) and "
            "normalised, then passed through a feed-forward network, which has its own residual and "
            "normalisation, before the next layer sees it."
        )
    )
    present.formula(rf"Z = AV \in \mathbb{{R}}^{{{T} \times {d_v}}}, \qquad z_i = \sum_j A_{{ij}}\, v_j")
    if hidden:
        st.info(HIDDEN_NOTE)
    else:
        _matrix(
            "output",
            steps.output,
            f"Z = AV ({T}×{d_v})",
            labels,
            _dims(d_v),
            name="Output Z",
            row_title="token",
            col_title="dimension",
        )


# One cell, worked through ---------------------------------------------------------------


def worked_cell(lesson: wt.Lesson, hidden: bool, pick_query: bool) -> None:
    """Pick query i and key j; follow s_ij, its scaling, row i's softmax and z_i by hand.
    While a prediction is asked, the query is the one picked there."""
    tokens = lesson.tokens
    T = len(tokens)
    left, right = st.columns(2)
    if pick_query:
        i = left.selectbox("Query token i", range(T), format_func=_option(tokens), key=K("i"))
    else:
        i = STATE.value("i")
        left.markdown(f"Query token i = {md_escape(_option(tokens)(i))}, the one picked for your prediction.")
    j = right.selectbox("Key token j", range(T), format_func=_option(tokens), key=K("j"))
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
    if hidden:
        st.info(HIDDEN_NOTE)
        return

    st.markdown(
        f"**3 · Softmax of row {i}**: exponentiate every masked score M of the row (the scaled score, or −∞ "
        "where the mask forbids the key), then divide by their sum."
    )
    if cell.shift:
        st.markdown(
            "These scores are large, so the row's largest score m_i is subtracted before exponentiating. "
            "It cancels in the fraction, so the weights are unchanged, but e^x no longer overflows."
        )
        st.latex(rf"m_{{{i}}} = {num(cell.shift)}")
    minus_m = rf" - m_{{{i}}}" if cell.shift else ""
    st.latex(wt.latex_row_table(cell))
    st.latex(
        rf"A_{{{i},{j}}} = \frac{{\exp(M_{{{i},{j}}}{minus_m})}}{{\sum_l \exp(M_{{{i},l}}{minus_m})}}"
        rf" = \frac{{{num(cell.exps[j])}}}{{{num(cell.total)}}} = {num(cell.weights[j])},"
        rf"\qquad \sum_j A_{{{i},j}} = {cell.row_sum:.4f}"
    )

    st.markdown(f"**4 · The output z_{i}** adds up the value rows, each scaled by its weight from row {i}.")
    st.latex(wt.latex_weighted_sum(cell, lhs=rf"z_{{{i}}} = \sum_j A_{{{i},j}}\, v_j"))
    title = f"Row {i} of A, key {j} highlighted"
    show_bars(
        "sbs_fig_row",
        tokens,
        cell.weights,
        title=title,
        y_title="weight",
        y_range=(0.0, 1.15),
        fmt=".2f",
        row=f"{i}:{tokens[i]}",
        name=f"Row {i} of the attention weights",
        row_title="query",
        col_title="key",
        highlight=j,
    )


if deck.section(9, beside=0.6):  # on a projector the formulas need the width more than the chart
    st.markdown(
        "Pick a query token i and a key token j to see where one score, one weight and one output row "
        "come from, with the real numbers of steps 4 to 9."
    )
    worked_cell(lesson, hidden, pick_query=question is None)

# Every step at once --------------------------------------------------------------------
if not present.on():
    settings = {
        "text": text,
        "tokens": list(tokens),
        "weights": source_kind if real_head or decoder_head else "random",
        "d_model": d_model,
        "d_k": d_k,
        **{name: bool(on) for name, on in flags.items()},
        **(
            {"layer": layer, "head": head, "model": "all-MiniLM-L6-v2" if real_head else "decoder"}
            if real_head or decoder_head
            else {"seed": seed}
        ),
    }
    st.download_button(
        "Download every step (.npz, with the settings as JSON)",
        icon=":material/download:",
        data=lambda: all_steps_npz(lesson, settings),
        file_name="attention-steps.npz",
        mime="application/octet-stream",
        on_click="ignore",
        key="sbs_npz",
        help="X, W_q, W_k, W_v, Q, K, V, the scores, scaled and masked scores, the weights, Z and the tokens; "
        "numpy.load reads it back.",
    )


# What this page showed, and the next lesson --------------------------------------------


def what_it_showed(lesson: wt.Lesson, i: int, hidden: bool) -> list[str]:
    """The footer's lines, from this run's numbers (the largest weight only once it is not hidden)."""
    s, tokens = lesson.steps, lesson.tokens
    T, d_v = len(tokens), s.v.shape[1]
    scaled = f"multiplied by {s.factor:.4g}" if lesson.multiplier != 1 or lesson.scale else "not scaled"
    masked = f", {lesson.stats.n_masked} of {T * T} cells masked" if lesson.stats.n_masked else ""
    lines = [
        f"One head turned your {T} tokens into Z ({T}×{d_v}): every query met every key in a {T}×{T} score "
        f"matrix, {scaled}{masked}, and the softmax made each row into weights that add up to 1."
    ]
    if not hidden:
        top = int(np.argmax(s.weights[i]))
        lines.append(
            f"Token {i} (“{md_escape(_short(tokens[i]))}”) gives its largest weight, {s.weights[i, top]:.2f}, to "
            f"token {top} (“{md_escape(_short(tokens[top]))}”): that token's value row makes up "
            f"{s.weights[i, top]:.0%} of z_{i}."
        )
    return lines


footer(__file__, what_it_showed(lesson, STATE.value("i"), hidden), deck)
