"""Step by step's words: the page's compute calls, and every sentence it computes from the
numbers, as plain Python (no Streamlit), so that a unit test can check each sentence against
the numbers it states (tests/unit/test_step_by_step_words.py).

Each builder takes the engine's result (a ``walkthrough.Lesson``, its ``StepStats``, a decoder's
``TorchParity``) and, where it names a place on the screen, the ``Reader``; it returns markdown
with the user's text escaped. Layers and heads arrive 0-based, as the arrays are, and are named
from 1 (``attn_core.numbering``). Steps are named by their section ("weights"); a sentence that
points to another step gets its number from the page's deck (``steps``: name -> number).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from attn_core import numbering, tables
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from ui.markup import md_escape
from ui.question import Question
from ui.reader import Reader

SOURCES = {  # URL value -> label
    "random": "Random (seeded)",
    "real": "A real head of all-MiniLM-L6-v2",
    "decoder": "A head of our small decoder (causal)",
}
STEPS = {  # section name -> title, in page order; the first nine are counted steps
    "tokens": "Tokens",
    "x": "X, one vector per token",
    "weights_matrices": "The weight matrices W_q, W_k, W_v",
    "qkv": "Queries, keys and values",
    "scores": "The scores QKᵀ",
    "scaled": "Scaled scores",
    "masked": "Masked scores",
    "weights": "Attention weights (softmax)",
    "output": "The output Z",
    "cell": "One cell, worked through",
}
COUNTED = 9  # steps 1 to 9; the worked cell comes after them
N_REPEAT = 20  # the sidebar's induction check: this many random words, then the same again
MULTIPLIER = 100.0  # what the ×100 switch multiplies the scores by
OPTION_CHARS = 24  # tokens longer than this are shortened in selectboxes and captions
ONE_HOT = 0.99  # a row "puts nearly all its weight on one key" above this


SIZES = {"d_model": "d_model (size of each token vector)", "d_k": "d_k (size of queries and keys)"}
TOGGLES = {  # URL name -> label
    "scale": "Divide the scores by √d_k",
    "x100": "Multiply the scores by 100",
    "causal": "Causal mask (no looking ahead)",
    "pos": "Add positional encoding",
}
INTRO = (
    "Type a sentence and follow one attention head through every matrix it computes, from the token vectors X "
    "to the output Z. Change a setting in the sidebar and every number below is recomputed; the address bar "
    "keeps the settings, so you can copy it to share this exact view."
)
PREDICT_HELP = "Hide the attention weights until you have guessed which key a token looks at most, and how much."
DOWNLOAD_HELP = (
    "X, W_q, W_k, W_v, Q, K, V, the scores, scaled and masked scores, the weights, Z and the tokens; numpy.load "
    "reads it back."
)


@dataclass(frozen=True)
class Head:
    """Where the page's weights come from: "random", "real" or "decoder", and for a trained head
    which one (0-based, as the arrays) and the model's sizes the sentences name."""

    kind: str = "random"
    layer: int = 0
    head: int = 0
    n_heads: int = 0
    vocab_words: int = 0  # the decoder's vocabulary, <unk> left out
    attention_only: bool = False  # the decoder's layers: attention and the residual add, nothing else

    @property
    def trained(self) -> bool:
        return self.kind != "random"

    @property
    def label(self) -> str:
        """ "layer 4, head 2" (counted from 1)."""
        return numbering.head_label(self.layer, self.head)


# --------------------------------------------------------------------------- the compute calls
# Plain functions; the page caches each (st.cache_data or st.cache_resource, once per server).
# An argument whose name starts with "_" is not hashed by the cache.


def compute(
    tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, positional: bool, scale: bool, x100: bool, causal: bool
) -> wt.Lesson:
    """The page's one attn_core call with random weights: the source, then every step.

    Returns: Lesson with steps.weights (T, T) and steps.output (T, d_k)
    """
    source = wt.seeded_source(tokens, d_model, d_k, seed=seed, positional=positional)
    return wt.lesson(source, scale=scale, multiplier=MULTIPLIER if x100 else 1.0, causal=causal)


def minilm_shape() -> tr.ModelShape | None:
    """The embedded model's sizes from its config.json (None: the package is missing)."""
    return tr.minilm_shape()


def model_run(_loaded, name: str, text: str, max_tokens: int):
    """One forward pass per text: every layer's input and attention, shared by all heads and
    switches, so picking another head or toggling the mask does not run the model again."""
    from attn_core import models  # torch: only when a real head is asked for

    return models.extract_attentions(_loaded, text, max_tokens=max_tokens)


def compute_real(_loaded, _att, name: str, text: str, layer: int, head: int, scale: bool, x100: bool, causal: bool):
    """The lesson with a real head (models.real_lesson) on the forward pass ``_att`` of ``text``.

    Returns: RealLesson with lesson.steps.weights (T, T), max_abs_error and truncated
    """
    from attn_core import models

    multiplier = MULTIPLIER if x100 else 1.0
    return models.real_lesson(_loaded, _att, layer, head, scale=scale, multiplier=multiplier, causal=causal)


def load_decoder() -> tuple[dc.Decoder | None, str | None]:
    """The shipped decoder; None and the reason when its files are missing."""
    try:
        return dc.load_decoder(), None
    except dc.DecoderLoadError as err:
        return None, str(err)


def decoder_induction(_decoder: dc.Decoder) -> np.ndarray | None:
    """The decoder's induction scores (L, H) on N_REPEAT random words said twice."""
    repeated = dc.random_repeated(_decoder, N_REPEAT, seed=0)
    return dc.decoder_lesson(_decoder, " ".join(repeated), period=N_REPEAT).induction


def decoder_parity(_decoder: dc.Decoder) -> dc.TorchParity | None:
    """How closely the NumPy decoder matches the torch model it was trained as (None without
    its training record)."""
    try:
        return dc.torch_parity(_decoder, dc.load_training())
    except dc.DecoderLoadError:
        return None


def compute_decoder(_decoder: dc.Decoder, text: str, layer: int, head: int, scale: bool, x100: bool) -> dc.HeadLesson:
    """The lesson with a head of the decoder (always causal).

    Returns: HeadLesson with lesson.steps.weights (T, T)
    """
    return dc.head_lesson(_decoder, text, layer, head, scale=scale, multiplier=MULTIPLIER if x100 else 1.0)


def all_steps_npz(lesson: wt.Lesson, settings: dict) -> bytes:
    """Every step of the run as one .npz, with the settings as JSON."""
    s, w = lesson.steps, lesson.source.weights
    names = ("x", "q", "k", "v", "scores", "scaled", "masked", "weights", "output")
    arrays = {name: getattr(s, name) for name in names}
    weights = {"w_q": w.w_q, "w_k": w.w_k, "w_v": w.w_v, "b_q": w.b_q, "b_k": w.b_k, "b_v": w.b_v}
    arrays |= {name: value for name, value in weights.items() if value is not None}
    arrays["tokens"] = np.array(lesson.tokens, dtype=str)
    return tables.to_npz(arrays, settings)


# --------------------------------------------------------------------------- small helpers


def short(token: str) -> str:
    return token if len(token) <= OPTION_CHARS else token[: OPTION_CHARS - 1] + "…"


def option(tokens: tuple[str, ...]) -> Callable[[int], str]:
    """Selectbox labels like '3: sat', so repeated words differ by their index."""
    return lambda n: f"{n}: {short(tokens[n])}"


def quoted(token: str) -> str:
    """A token in a sentence: shortened, escaped, in quotes."""
    return f"“{md_escape(short(token))}”"


def quoted_full(token: str) -> str:
    """A token in a sentence in full, escaped, in quotes."""
    return f"“{md_escape(token)}”"


def sci(value: float) -> str:
    """A small number in scientific notation with a minus sign (U+2212), which a line does not break
    after as it does after a hyphen: "7.5e−08"."""
    return f"{value:.1e}".replace("-", "−")


def gap(value: float) -> str:
    """A difference that should be 0: "0", or its size in scientific notation (rounding)."""
    return "0" if value == 0 else sci(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- the sidebar


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


NUMBERING_HELP = "Counted from 1, as everywhere in this app (bertviz and TransformerLens count from 0)."


def it_hint(layer: int, head: int, numbers: str) -> str:
    """The sidebar's suggestion of the real head that follows "it" (layer, head 0-based)."""
    return (
        f"Try {numbering.head_label(layer, head)} with the two animal/street examples, and pick “it” as the "
        f"query token in “{STEPS['cell']}”: " + numbers
    )


def decoder_hint(induction: np.ndarray | None) -> str:
    """The sidebar's hint for the decoder: which heads are induction heads, from their scores (L, H)."""
    hint = "A decoder head reads only its own word and the words before it, so the causal mask stays on."
    heads = dc.induction_heads(induction) if induction is not None else []
    if not heads:
        return hint + " Try a sequence that repeats (the Decoder page has a button for one)."
    names = "; ".join(numbering.head_label(layer, head) for layer, head in heads)
    return (
        f"{hint} On {N_REPEAT} random words followed by the same {N_REPEAT} again, {len(heads)} of its "
        f"{induction.size} heads have an induction score above {dc.INDUCTION_THRESHOLD:g}: in the repeated "
        "part they put, on average, more than that share of their attention on the word that followed the "
        f"current word's earlier copy. These are induction heads: {names}. Try one of them on a sequence "
        "that repeats (the Decoder page has a button for one)."
    )


# --------------------------------------------------------------------------- notes on the source


def model_missing(problem: str | None) -> str:
    return (
        f"The real model is not available ({md_escape(problem or 'unknown error')}), so this page shows random "
        "weights instead. Every other setting keeps working."
    )


def decoder_missing(problem: str | None) -> str:
    return (
        f"The decoder is not available ({md_escape(problem or 'unknown error')}), so this page shows random "
        "weights instead."
    )


def cut_note(kind: str, limit: int) -> str:
    """A text cut at the real model's token limit ("real") or the decoder's word limit."""
    if kind == "real":
        return f"The model splits this text into more than {limit} tokens; only the first {limit} are used."
    return f"The decoder reads at most {limit} words; only the first {limit} are used."


def unknown_words_note(unknown: tuple[str, ...], vocab_words: int, shown: int = 20) -> str:
    """The words the decoder reads as <unk>, the first ``shown`` of them by name."""
    more = f" and {len(unknown) - shown} more" if len(unknown) > shown else ""
    names = ", ".join(quoted_full(w) for w in unknown[:shown])
    return f"Not in the decoder's {vocab_words}-word vocabulary, so read as <unk>: {names}{more}."


def note_settings(text: str, kind: str, head: Head, seed: int, d_model: int, d_k: int, flags: dict, i, j) -> dict:
    """The settings the page's change note compares between runs, by label."""
    layer_head = {"Layer": numbering.layer_number(head.layer), "Head": numbering.head_number(head.head)}
    sizes = {"Seed": seed, "d_model": d_model, "d_k": d_k}
    toggles = {label: bool(flags[name]) for name, label in TOGGLES.items()}
    chosen = {"Query token i": i, "Key token j": j}
    return {"Sentence": text, "Weights": SOURCES[kind], **(layer_head if head.trained else sizes), **toggles, **chosen}


def npz_settings(lesson: wt.Lesson, text: str, head: Head, seed: int, flags: dict) -> dict:
    """The settings saved with every step (.npz): enough to make the run again."""
    source = (
        {"layer": numbering.layer_number(head.layer), "head": numbering.head_number(head.head)}
        | {"model": "all-MiniLM-L6-v2" if head.kind == "real" else "decoder"}
        if head.trained
        else {"seed": seed}
    )
    sizes = {"d_model": int(lesson.steps.x.shape[1]), "d_k": int(lesson.steps.d_k)}
    switches = {name: bool(on) for name, on in flags.items()}
    return {"text": text, "tokens": list(lesson.tokens), "weights": head.kind, **sizes, **switches, **source}


def real_head_note(head: Head, d_k: int, error: float, own_settings: bool, reader: Reader) -> str:
    """Which real head this is, and how closely attn_core reproduces the model's attention."""
    text = (
        f"Weights: {head.label} of all-MiniLM-L6-v2. With the model's own settings (divided by √{d_k}, no ×100, "
        f"no mask) attn_core's weights match the model's attention to max |Δ| = {sci(error)}."
    )
    if not own_settings:
        text += f" Your switches change this run, so the weights {reader.later} differ from the model's on purpose."
    return text


def decoder_head_note(head: Head, own_settings: bool, reader: Reader) -> str:
    """Which decoder head this is, and that its weights are the decoder's own: attn_core runs the
    decoder in NumPy through these same steps (how closely that matches torch: ``parity_sentence``)."""
    text = (
        f"Weights: {head.label} of our small decoder, with the causal mask on because the head was trained with "
        "it: every word reads only the words before it. "
    )
    if own_settings:
        return text + "These are the decoder's own weights: it runs in NumPy through these same steps."
    return text + (
        "With its own settings (divided by √d_k, no ×100) these steps give the decoder's own weights; your "
        f"switches change this run, so the weights {reader.later} differ from the model's on purpose."
    )


def parity_sentence(parity: dc.TorchParity | None) -> str:
    """Step 3 for a decoder head: how closely the NumPy decoder matches the torch model it was
    trained as, on the training script's own held-out batch ("" without the training record)."""
    if parity is None:
        return ""
    return (
        f"The decoder was trained in torch and runs here in NumPy, and the two agree: on the training script's "
        f"{parity.rows} held-out sequences of {parity.T} words the NumPy pass gives a loss of {parity.loss:.6f} "
        f"against the {parity.torch_loss:.6f} torch recorded (|Δ| = {sci(parity.loss_gap)}), and every head's "
        f"induction and previous-token scores agree to {sci(parity.score_gap)} (the record keeps "
        f"{dc.RECORD_DECIMALS} decimals)."
    )


# --------------------------------------------------------------------------- step 1: tokens


def repeats_sentence(stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    """What the page says about repeated words, from the run's own numbers."""
    if not stats.repeats:
        return (
            "This sentence repeats no word exactly. Case counts here: “The” and “the” are different words "
            f"with different vectors. Pick the example “the cat sat on the mat”{reader.in_sidebar} to see an "
            "exact repeat."
        )
    token, where, identical = stats.repeats[0]
    places = " and ".join(str(n) for n in where)
    if positional:
        return (
            f"{quoted(token)} appears at positions {places}: the same word vector, but a different position "
            "vector is added, so its rows of X differ."
        )
    same = "are identical" if identical else "differ"
    return (
        f"{quoted(token)} appears at positions {places}, and with positions off its rows of X {same}: attention "
        "alone cannot tell where a word stands. (Case counts: “The” and “the” are different words here.)"
    )


def tokens_text(head: Head, stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    if head.kind == "real":
        return (
            "The model's own tokenizer cuts the text: it lowercases it, splits rare words into WordPiece parts "
            "(## marks a part that continues a word), and adds [CLS] at the start and [SEP] at the end. Every "
            f"position is its own token, so a repeated word gets separate rows in every matrix {reader.later}."
        )
    if head.kind == "decoder":
        return (
            f"The decoder reads words from its own {head.vocab_words}-word vocabulary, in lower case; any other "
            f"word or mark becomes <unk>. Every position is its own token, so a repeated word gets separate rows "
            f"{reader.later}."
        )
    return (
        "The sentence is cut into tokens: words and punctuation marks. Every position is its own token, so a word "
        f"that appears twice gets two separate rows in every matrix {reader.later}. "
        + repeats_sentence(stats, positional, reader)
    )


# --------------------------------------------------------------------------- step 2: X


def x_text(head: Head, d_model: int, stats: wt.StepStats, positional: bool, reader: Reader) -> str:
    """What X is, for each source."""
    if head.kind == "real":
        before = (
            "the model's embeddings (a learned vector per token, plus learned position and segment vectors, then "
            "normalised)."
            if head.layer == 0
            else f"the output of {numbering.layer_name(head.layer - 1)}, so every row already carries "
            "information mixed in from other tokens."
        )
        return (
            f"X is what {numbering.layer_name(head.layer)} receives: {before} Each row has d_model = {d_model} numbers."
        )
    if head.kind == "decoder":
        if head.layer == 0:
            before = "each word's learned vector plus the same sinusoidal position vectors as the random pages."
        else:
            earlier = "layer 1's heads" if head.layer == 1 else f"the heads of layers 1 to {head.layer}"
            before = (
                f"the word and position vectors plus everything {earlier} added to them (the residual stream)"
                if head.attention_only
                else f"the output of {numbering.layer_name(head.layer - 1)}, built from the word and position "
                "vectors and everything the layers before added to them"
            ) + ", so every row already carries information from earlier words."
        return (
            f"X is what {numbering.layer_name(head.layer)} of the decoder receives: {before} Each row has "
            f"d_model = {d_model} numbers."
        )
    if positional:
        return (
            "Each word is looked up as a fixed random vector of d_model numbers (the same word always gets the "
            "same vector for this seed). A pattern of sines and cosines that depends only on the position is "
            "added, so the same word at two places ends up with two different rows."
        )
    return (
        "Each word is looked up as a fixed random vector of d_model numbers. Positional encoding is off, so "
        "nothing in X says where a word stands. " + repeats_sentence(stats, False, reader)
    )


def x_latex(head: Head, T: int, d_model: int, stats: wt.StepStats, positional: bool) -> str:
    shape = rf"\in \mathbb{{R}}^{{{T} \times {d_model}}}"
    if head.kind == "real":
        return rf"X = H^{{({head.layer})}} {shape}"
    if head.kind == "decoder":
        return rf"X = x_{{{head.layer}}} {shape}"
    var = rf"\qquad \operatorname{{Var}}(X) = {wt.latex_num(stats.x_var)}"
    return (r"X = E + P " if positional else "X = E ") + shape + var


def pe_latex(d_model: int) -> str:
    """The sinusoidal positions as attn_core.engine.positional_encoding computes them."""
    angle = rf"p / 10000^{{2i/{d_model}}}"
    return rf"P_{{p,\,2i}} = \sin\!\left({angle}\right), \qquad P_{{p,\,2i+1}} = \cos\!\left({angle}\right)"


def pe_sentence(pe: np.ndarray) -> str:
    """The position vectors in this run's numbers: row p is the pattern for position p; each pair
    of columns turns at its own rate, the first by 1 radian per position, the last the slowest."""
    T, d_model = pe.shape
    p = T - 1
    text = (
        "Row p of P is the same for every sentence: column 2i holds the sine and column 2i + 1 the cosine of the "
        f"angle p / 10000^(2i/d_model), so for the last token here, p = {p}, P[{p}, 0] = sin {p} = {pe[p, 0]:.2f}"
        + (f" and P[{p}, 1] = cos {p} = {pe[p, 1]:.2f}" if d_model > 1 else "")
        + "."
    )
    last = (d_model - 1) // 2  # the last pair (a lone sine when d_model is odd)
    if last > 0:
        rate = 1.0 / 10000.0 ** (2 * last / d_model)
        text += (
            f" The first pair turns by 1 radian per position, the last (i = {last}) by only {rate:.2g}, so together "
            "the columns tell near and far positions apart."
        )
    return text


def positions_sentence(order: wt.OrderCheck, T: int) -> str:
    """Step 2 on random weights: what attention knows about word order, from the sentence reversed."""
    if T < 2:
        return ""
    words = "on the word vectors alone, " if order.order_gap is not None else ""
    text = (
        "Without positions, attention treats the sentence as a set of words: read it backwards and every token "
        "gets exactly the output it had, only in reversed order (computed "
        f"{words}without a mask, which would itself carry the order: max |Δ| = {gap(order.set_gap)}, rounding)."
    )
    if order.order_gap is not None:
        text += f" With the positions, reading it backwards changes the outputs by up to {order.order_gap:.2f}."
    return text + (
        " Sines and cosines are one choice: BERT and GPT-2 learn a position vector for each place instead. Many "
        "newer models add nothing to X and use RoPE (Su et al. 2021): each pair of dimensions of q and k is "
        "rotated by an angle proportional to the token's position, every pair at its own frequency, so the score "
        "q_m·k_n depends on the two positions only through their offset m − n."
    )


# --------------------------------------------------------------------------- steps 3 and 4


def w_text(head: Head, d_model: int, d_k: int, biases: bool) -> str:
    if head.kind == "real":
        return (
            f"These are trained numbers: {numbering.head_name(head.head)}'s share of "
            f"{numbering.layer_name(head.layer)}'s query, key and value matrices. The layer's three "
            f"{d_model}×{d_model} matrices are split into {head.n_heads} heads of {d_k} columns each, and every head "
            "also has a bias vector b that is added after the multiplication."
        )
    if head.kind == "decoder":
        return (
            f"These are trained numbers: {numbering.head_name(head.head)}'s query, key and value matrices in "
            f"{numbering.layer_name(head.layer)} of the decoder, which has {head.n_heads} heads of {d_k} columns "
            "each in every layer." + ("" if biases else " Its heads have no biases.")
        )
    return (
        "A head owns three matrices that training would tune. Here they are random, as at the very start of "
        "training. Their entries are drawn with variance 1/d_model, which keeps the spread of the input: a query "
        "or key entry has a variance of about the mean square of X's entries (the average of their squares, "
        "which is their variance when their mean is 0). Each matrix turns a d_model vector into d_k numbers."
    )


def w_latex(head: Head, d_model: int, d_k: int, biases: bool) -> str:
    shape = rf"W_q,\ W_k,\ W_v \in \mathbb{{R}}^{{{d_model} \times {d_k}}}"
    if biases:
        return shape + rf", \qquad b_q,\ b_k,\ b_v \in \mathbb{{R}}^{{{d_k}}}"
    if head.trained:
        return shape
    return shape + rf", \qquad (W)_{{ab}} \sim \mathcal{{N}}\!\left(0, \tfrac{{1}}{{{d_model}}}\right)"


QKV_TEXT = (
    "Multiplying X by each matrix gives every token three new vectors: a query (what it is looking for), a key "
    "(what it can be found by) and a value (what it hands on). No key is ever chosen: every token mixes in "
    "every value it may see, each in proportion to the weight it gives that token."
)


def qkv_latex(T: int, d_k: int, biases: bool) -> str:
    if biases:
        return rf"Q = XW_q + b_q,\quad K = XW_k + b_k,\quad V = XW_v + b_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}"
    return rf"Q = XW_q,\quad K = XW_k,\quad V = XW_v \;\in \mathbb{{R}}^{{{T} \times {d_k}}}"


# --------------------------------------------------------------------------- step 5: scores


def aligned_sentence(stats: wt.StepStats, T: int) -> str:
    """Step 5: in how many rows the highest score is not on the best-aimed key, and why: a longer
    key where the top score is positive, a shorter one where no score of the row is positive."""
    n, longer, shorter = stats.top_not_aligned, stats.longer_key_won, stats.shorter_key_won
    if n == 0:
        return (
            f"In this run all {T} rows give their highest score to the key that points most nearly along the "
            "query, but a longer key could win."
        )
    text = (
        f"In this run, in {n} of the {T} rows the highest score goes to a key that is not the one pointing most "
        "nearly along the query"
    )
    parts = []
    if longer:
        parts.append(f"{'there' if longer == n else f'in {longer} of them'} a longer key won")
    if shorter:
        where = "there" if shorter == n else f"in {shorter} of them"
        parts.append(
            f"{where} no score of the row is positive, and a shorter key won: a longer key makes a negative score "
            "more negative"
        )
    return text + (": " + "; ".join(parts) if parts else "") + "."


def scores_text(stats: wt.StepStats, T: int) -> str:
    return (
        "Row i compares token i's query with every key by a dot product, q·k = |q| |k| cos θ: the sign and the "
        "size of the score depend on how nearly the two vectors point the same way (cos θ), and the lengths "
        "scale it, so a longer key makes a positive score larger and a negative one more negative. So it is not "
        "the cosine similarity, which ignores length. " + aligned_sentence(stats, T) + " With random vectors the "
        "scores spread wider as d_k grows."
    )


def scores_latex(stats: wt.StepStats, T: int) -> str:
    return (
        rf"S = QK^\top \in \mathbb{{R}}^{{{T} \times {T}}}, \quad s_{{ij}} = q_i \cdot k_j, "
        rf"\quad \operatorname{{std}}(S) = {wt.latex_num(stats.scores_std)}"
    )


# --------------------------------------------------------------------------- step 6: scaling


def spread_sentence(stats: wt.StepStats, multiplier: float, steps: Mapping[str, int]) -> str:
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
            f" Var(X) in Step {steps['x']} is smaller, {stats.x_var:.2f}, because the variance first subtracts the "
            f"mean of the entries, {stats.x_mean:.2f} here."
        )
    return text


def x100_sentence(lesson: wt.Lesson) -> str:
    """Step 6: what the ×100 switch does to the spread in this run ("" while it is off)."""
    m = lesson.multiplier
    if m == 1:
        return "The ×100 switch shows the opposite, where nearly every row becomes one-hot."
    T = lesson.steps.weights.shape[0]
    without = lesson.stats.scaled_std / m  # std is linear: the same scores without the switch
    one_hot = int(np.sum(lesson.steps.weights.max(axis=1) > ONE_HOT))
    return (
        f"The ×{m:g} switch is on: std(S̃) = {lesson.stats.scaled_std:.2f}, {m:g} times the {without:.2f} it is "
        f"without the switch, and {one_hot} of the {T} rows of weights put more than {ONE_HOT:g} of their weight "
        "on a single key."
    )


def scaled_text(lesson: wt.Lesson, trained: bool, steps: Mapping[str, int]) -> str:
    spread = "Dividing by √d_k undoes the growth of the spread with d_k."
    if not trained:
        spread += " " + spread_sentence(lesson.stats, lesson.multiplier, steps)
    return (
        "Large scores push the softmax towards putting nearly all of a row's weight on one key, and leave training "
        f"almost no gradient. {spread} " + x100_sentence(lesson)
    )


def scaled_latex(lesson: wt.Lesson) -> str:
    """The scaling step with its live factor, e.g. S / sqrt(4) = 0.5 S, and the spread after it."""
    d_k, factor = lesson.steps.d_k, f"{lesson.steps.factor:.4g}"
    top = "S" if lesson.multiplier == 1 else f"{lesson.multiplier:g}\\,S"
    if lesson.scale:
        tex = rf"\tilde S = \frac{{{top}}}{{\sqrt{{d_k}}}} = \frac{{{top}}}{{\sqrt{{{d_k}}}}} = {factor}\,S"
    else:
        tex = rf"\tilde S = {top} \qquad (\text{{not divided by }} \sqrt{{d_k}})"
    return tex + rf", \quad \operatorname{{std}}(\tilde S) = {wt.latex_num(lesson.stats.scaled_std)}"


# --------------------------------------------------------------------------- step 7: the mask


def masked_text(causal: bool, steps: Mapping[str, int]) -> str:
    if causal:
        return (
            "The causal mask stops each token looking at tokens after it. A model that writes text is trained on "
            "whole sentences at once (teacher forcing), so the words after token i are there during training: the "
            "mask is what keeps token i from peeking at the words it must learn to predict. Forbidden cells become "
            "−∞ (grey, marked −∞), so the softmax gives them exactly zero weight."
        )
    return (
        "No mask is on, so every token may look at every token, itself and later ones included, and this matrix "
        "equals the scaled scores. It is shown anyway because masking is a step of its own: switch on the causal "
        f"mask in the sidebar and this is the first matrix that changes (steps {steps['scores']} and "
        f"{steps['scaled']} stay as they are), and a note at the top of the page names every step that changed."
    )


def masked_latex(stats: wt.StepStats, causal: bool) -> str:
    count = rf"{stats.n_masked} \text{{ of }} {stats.n_cells} \text{{ cells masked}}"
    if causal:
        return r"M_{ij} = \begin{cases} \tilde s_{ij} & j \le i \\ -\infty & j > i \end{cases}" + rf"\qquad {count}"
    return rf"M = \tilde S \qquad {count}"


# --------------------------------------------------------------------------- step 8: the weights


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
        f": {_plural(masked, 'masked cell')} and {under} whose exponential is too small for a float64 (it rounds to 0)."
    )


def weights_text(stats: wt.StepStats, steps: Mapping[str, int]) -> str:
    return (
        "The softmax turns each row into weights that are never negative and add up to 1: it exponentiates every "
        "masked score and divides by the row's total, so a masked cell (e^−∞ = 0) gets exactly 0. "
        + zeros_sentence(stats)
        + f" A_ij is how much of v_j goes into z_i, not how much token j matters (Step {steps['output']} says why)."
    )


def weights_latex(stats: wt.StepStats) -> str:
    return (
        r"A_{ij} = \frac{\exp(M_{ij})}{\sum_{l} \exp(M_{il})}, \qquad \sum_j A_{ij} \in "
        rf"[{stats.row_sum_min:.6f},\ {stats.row_sum_max:.6f}]"
    )


def hidden_note(where: str) -> str:
    """What a hidden matrix says while a prediction waits; ``where`` is the deck's " on step 8" or ""."""
    return f"Hidden until you reveal your prediction{where} (Predict first is on)."


def hidden_scores_note(where: str) -> str:
    return (
        f"Hidden until you reveal your prediction{where} (Predict first is on): the softmax keeps each row's "
        "order, so the largest score in a row is also its largest weight, and this matrix would give the answer away."
    )


def no_question_note(T: int, i: int) -> str:
    if T == 1:
        return "Predict first has no question for one token: it can only look at itself, with weight 1."
    return (
        f"Predict first has no question for query {i}: every key gets the same weight from it. Pick another query "
        f"token in “{STEPS['cell']}”."
    )


def prediction(lesson: wt.Lesson, qi: int) -> Question | None:
    """Predict first: which key query ``qi`` weights most, made from this run's weights. Keys that
    tie for the most weight (the same word twice with positions off) make one option; one token
    gives no question (it can only look at itself), nor do keys that all tie."""
    tokens, row = lesson.tokens, lesson.steps.weights[qi]
    T = len(tokens)
    tied = [int(j) for j in np.flatnonzero(np.isclose(row, row.max(), rtol=0, atol=1e-12))]
    if len(tied) == T:
        return None
    keys = [[j] for j in range(T) if j not in tied[1:]]  # each key alone, the tied ones as one option
    keys[keys.index([tied[0]])] = tied
    label = option(tokens)
    return Question(
        key="sbs_quiz",
        prompt=f"Which key does query {qi} (“{short(tokens[qi])}”) give the most weight, and how much?",
        options=tuple(" or ".join(label(n) for n in group) for group in keys),
        answer=keys.index(tied),
        value=float(row.max()),
        value_label="the largest weight in the row",
        explain=f"Keys {' and '.join(map(str, tied))} tie for the most weight." if len(tied) > 1 else "",
    )


# --------------------------------------------------------------------------- step 9: the output


def decoder_after_head(decoder: dc.Decoder, layer: int) -> str:
    """Step 9 for a decoder head: what attn_core.trained_decoder.run does with Z next (layer from 0)."""
    H, L = decoder.n_heads, decoder.n_layers
    concat, d_model = decoder.weights.w_o.shape[1:]  # w_o (L, H*d_v, d_model)
    text = (
        f"In the decoder, Z is put side by side with the other {H - 1} heads' outputs of "
        f"{numbering.layer_name(layer)} ({concat} numbers per token), projected by W_O back to {d_model} numbers "
        "and added to the token's own vector (the residual stream)."
    )
    if decoder.attention_only:
        text += " That is all a layer does: this small model has no normalisation and no feed-forward network."
    if layer + 1 < L:
        return text + f" {numbering.layer_name(layer + 1).capitalize()} reads the sum as its X."
    return text + (
        f" {numbering.layer_name(layer).capitalize()} is the last, so the sum goes to the unembedding: multiplied "
        f"by W_U, plus a bias, it gives one score for each of the {len(decoder.vocab)} entries of the vocabulary "
        "(<unk> included), and the highest is the model's guess for the next word."
    )


def transformer_after_head(head: Head) -> str:
    """Step 9 for a random or real head: the residual stream, and where the normalisation goes."""
    ours = " (so does this real head's model, a BERT)" if head.kind == "real" else ""
    return (
        "In a transformer Z is not the end: it is put side by side with the other heads' outputs, projected by "
        "W_O back to d_model numbers and added to the block's input X (the residual stream), so a layer adds to "
        "what each token already carries. Where the normalisation goes differs: the original transformer and "
        f"BERT normalise the sum after the addition (post-LN){ours}; GPT-2 and most newer models normalise the "
        "input of each sub-layer instead (pre-LN). Then a feed-forward network follows, which has its own "
        "residual and normalisation, before the next layer sees it."
    )


def value_lengths_sentence(lesson: wt.Lesson) -> str:
    """Step 9: a weight is not importance, with this run's shortest and longest value rows."""
    norms, tokens = lesson.shares.value_norms, lesson.tokens
    if len(tokens) == 1:
        here = f"here the one value row has ‖v_0‖ = {norms[0]:.2f}"
    else:
        lo, hi = int(np.argmin(norms)), int(np.argmax(norms))
        here = (
            f"here ‖v_j‖ runs from {norms[lo]:.2f} (token {lo}, {quoted(tokens[lo])}) to {norms[hi]:.2f} "
            f"(token {hi}, {quoted(tokens[hi])})"
        )
    return (
        "**A weight is not importance.** A_ij says how much of v_j is mixed into z_i, not how much token j matters "
        f"to what the model does: a short value row hands on little whatever its weight ({here}), W_O and the "
        "layers after this one reweight what arrives, and attention weights can disagree with other measures of "
        "a token's importance (Jain & Wallace 2019; Kobayashi et al. 2020)."
    )


def output_text(head: Head, decoder: dc.Decoder | None, lesson: wt.Lesson) -> str:
    T, d_v = lesson.steps.output.shape
    after = decoder_after_head(decoder, head.layer) if decoder is not None else transformer_after_head(head)
    return (
        "Each output row is a blend of the value rows, mixed in the proportions of that token's row of weights. "
        f"This head's Z is {T}×{d_v}. {after}"
    )


def output_latex(T: int, d_v: int) -> str:
    return rf"Z = AV \in \mathbb{{R}}^{{{T} \times {d_v}}}, \qquad z_i = \sum_j A_{{ij}}\, v_j"


# --------------------------------------------------------------------------- the worked cell


def cell_intro(steps: Mapping[str, int]) -> str:
    return (
        "Pick a query token i and a key token j to see where one score, one weight and one output row come from, "
        f"with the real numbers of steps {steps['qkv']} to {steps['output']}."
    )


def cell_query_picked(tokens: tuple[str, ...], i: int) -> str:
    return f"Query token i = {md_escape(option(tokens)(i))}, the one picked for your prediction."


def cell_caption(tokens: tuple[str, ...], i: int, j: int) -> str:
    return f"Query i = {i}: {quoted(tokens[i])} · key j = {j}: {quoted(tokens[j])}"


def cell_score_latex(cell: wt.CellWalkthrough) -> str:
    i, j = cell.i, cell.j
    return wt.latex_dot_lines(cell.q_i, cell.k_j, cell.score, lhs=rf"s_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}}")


def cell_scaled_latex(cell: wt.CellWalkthrough) -> str:
    i, j, num = cell.i, cell.j, wt.latex_num
    return (
        rf"\tilde s_{{{i},{j}}} = s_{{{i},{j}}} \times {cell.factor:.4g} = {num(cell.score)} \times "
        rf"{cell.factor:.4g} = {num(cell.scaled)}"
    )


def cell_shift_latex(cell: wt.CellWalkthrough) -> str:
    return rf"m_{{{cell.i}}} = {wt.latex_num(cell.shift)}"


def cell_masked_latex(cell: wt.CellWalkthrough) -> str:
    return rf"M_{{{cell.i},{cell.j}}} = -\infty \qquad (j = {cell.j} > i = {cell.i}:\ \text{{masked}})"


def cell_softmax_text(i: int) -> str:
    return (
        f"**3 · Softmax of row {i}**: exponentiate every masked score M of the row (the scaled score, or −∞ "
        "where the mask forbids the key), then divide by their sum."
    )


CELL_SCORE_TEXT = "**1 · The score** is the dot product of the two vectors, one term per dimension."
CELL_SCALED_TEXT = "**2 · Scaling** multiplies it by the same factor as every other cell."
CELL_SHIFT_TEXT = (
    "These scores are large, so the row's largest score m_i is subtracted before exponentiating. It cancels in "
    "the fraction, so the weights are unchanged, but e^x no longer overflows."
)


def cell_weight_latex(cell: wt.CellWalkthrough) -> str:
    i, j, num = cell.i, cell.j, wt.latex_num
    minus_m = rf" - m_{{{i}}}" if cell.shift else ""
    return (
        rf"A_{{{i},{j}}} = \frac{{\exp(M_{{{i},{j}}}{minus_m})}}{{\sum_l \exp(M_{{{i},l}}{minus_m})}}"
        rf" = \frac{{{num(cell.exps[j])}}}{{{num(cell.total)}}} = {num(cell.weights[j])},"
        rf"\qquad \sum_j A_{{{i},j}} = {cell.row_sum:.4f}"
    )


def cell_output_text(i: int) -> str:
    return f"**4 · The output z_{i}** adds up the value rows, each scaled by its weight from row {i}."


def cell_output_latex(cell: wt.CellWalkthrough) -> str:
    return wt.latex_weighted_sum(cell, lhs=rf"z_{{{cell.i}}} = \sum_j A_{{{cell.i},j}}\, v_j")


# --------------------------------------------------------------------------- what this page showed


def weight_share_sentence(lesson: wt.Lesson, i: int) -> str:
    """Row i's largest weight, what it means (how much of v_j is mixed into z_i), and why it is
    not a share of z_i: the norm-based share A_ij ‖v_j‖ / Σ_l A_il ‖v_l‖ beside it."""
    s, shares, tokens = lesson.steps, lesson.shares, lesson.tokens
    top = int(np.argmax(s.weights[i]))
    weight = float(s.weights[i, top])
    text = (
        f"Token {i} ({quoted(tokens[i])}) gives its largest weight, {weight:.2f}, to token {top} "
        f"({quoted(tokens[top])}): z_{i} takes in {weight:.2f} × v_{top}."
    )
    total = float(shares.weighted_norms[i].sum())
    if total == 0:
        return text + f" Every value row it mixes is 0 here, so z_{i} is 0."
    share = float(shares.norm_shares[i, top])
    if f"{share:.0%}" == f"{weight:.0%}":
        compare = "about its weight"
    else:
        compare = "less than its weight" if share < weight else "more than its weight"
    return text + (
        f" That is not a share of z_{i}, because value rows differ in length: ‖v_{top}‖ = "
        f"{shares.value_norms[top]:.2f}, while row {i}'s weighted sum of lengths is Σ_l A_{i},l ‖v_l‖ = {total:.2f}. "
        f"Measured by length, A_{i},{top} ‖v_{top}‖ is {share:.0%} of that sum (the norm-based share of Kobayashi "
        f"et al. 2020, before W_O): {compare}."
    )


def what_it_showed(lesson: wt.Lesson, i: int, hidden: bool) -> list[str]:
    """The footer's lines, from this run's numbers (the largest weight only once it is not hidden)."""
    s, tokens = lesson.steps, lesson.tokens
    T, d_v = len(tokens), s.v.shape[1]
    scaled = f"multiplied by {s.factor:.4g}" if lesson.multiplier != 1 or lesson.scale else "not scaled"
    masked = f", {lesson.stats.n_masked} of {T * T} cells masked" if lesson.stats.n_masked else ""
    lines = [
        f"One head turned your {_plural(T, 'token')} into Z ({T}×{d_v}): every query met every key in a {T}×{T} score "
        f"matrix, {scaled}{masked}, and the softmax made each row into weights that add up to 1."
    ]
    if not hidden:
        lines.append(weight_share_sentence(lesson, i))
    return lines
