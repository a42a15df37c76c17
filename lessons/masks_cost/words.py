"""Masks and cost's words: its one compute call, every sentence and formula it computes from the
study's numbers, its predict-first question and its longer prose.

Plain Python (no Streamlit): the page places each piece next to its chart, and
tests/unit/test_masks_cost_words.py checks each claim against the numbers it is given.
"""

from __future__ import annotations

from attn_core import lab_results
from ui.markup import md_escape
from ui.question import Question

MASK_TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}
SECTIONS = {
    **{kind: f"{title} mask" for kind, title in MASK_TITLES.items()},
    "cost": "The cost of global attention",
    "scores": "Where the dot product fits",
}
MASKS_HEADER = "1. Four masks on your sentence"  # the page's parts, when every section is shown
COST_HEADER = "2. The cost of global attention grows like T²"
SCORES_HEADER = "3. Where the dot product fits"
BASE_LAYERS, BASE_HEADS, BASE_D_K = 12, 12, 64  # an example model's size (BERT-base's) for the cost captions


def _a(n: int) -> str:
    """The article before a number said aloud: "an 8", "an 11", "an 18", "a 7"."""
    return "an" if str(n).startswith("8") or n in (11, 18) else "a"


def study(tokens: tuple[str, ...], radius: int, dilation: int, seed: int) -> lab_results.MaskStudy:
    """The page's one attn_core call (the page caches it): every mask, the cost table and the other scores."""
    return lab_results.mask_study(tokens, radius=radius, dilation=dilation, seed=seed)


def _big(n: int) -> str:
    """An integer with LaTeX-safe thousands separators."""
    return f"{int(n):,}".replace(",", "{,}")


def _sci(value: float) -> str:
    """A small number in LaTeX scientific notation, e.g. 2.0 \\times 10^{-15}."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def _gap(value: float) -> str:
    """A difference that is zero or rounding: "0", else "1.4e-17"."""
    return "0" if value == 0 else f"{value:.1e}"


INTRO = (
    "A mask decides which keys each query is allowed to see. Masked pairs get a score of −∞ before the softmax, "
    "so their weight is exactly 0 and the remaining weights in the row still add up to 1."
)
MASKED = (
    r"\mathrm{masked}_{ij} = \begin{cases}\mathrm{scaled}_{ij} & \text{if } i \text{ may attend to } j\\"
    r"-\infty & \text{otherwise}\end{cases}"
)

# --------------------------------------------------------------------------- 1. the masks

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
        "dilated sliding window: every row uses the same offsets around its own token."
    ),
}


def kept_latex(study: lab_results.MaskStudy, kind: str, radius: int, dilation: int) -> str:
    """How many of the T × T scores a mask keeps on the sentence."""
    T, kept = len(study.tokens), study.kept[kind]
    return (
        rf"T = {T}:\ {kept} \text{{ of }} {T}\times{T} = {T * T} \text{{ scores kept}}"
        + (rf",\ r = {radius}" if kind in ("window", "dilated") else "")
        + (rf",\ \text{{dilation}} = {dilation}" if kind == "dilated" else "")
    )


def kv_cache_text(study: lab_results.MaskStudy) -> str:
    """Generating with a KV cache: no mask, one query against T cached keys, a cache that grows like T."""
    T, d_k = len(study.tokens), study.d_k
    d_v = study.kv_step.v.shape[1]
    last = study.tokens[-1]
    return (
        "While a model generates, no mask is needed: each new token's query meets only the keys and values "
        "already there, those the earlier tokens left in a *KV cache* and its own, because no later token exists "
        f"yet. On your sentence, when the last token, “{md_escape(last)}” (token {T - 1}), comes in, its one query "
        f"meets {T} keys: {T} × {d_k} = {T * d_k} multiply-adds for its scores and {T} × {d_v} = "
        f"{T * d_v} to mix the values, about T·d each, where recomputing the whole {T} × {T} score matrix would "
        f"take {T} × {T} × {d_k} = {T * T * d_k}. Its weights are the causal weights' last row (largest "
        f"difference {_gap(study.kv_gap)}). The cache holds one key and one value per token so far, "
        f"{T} × ({d_k} + {d_v}) = {T * (d_k + d_v)} numbers for this head: it grows like T, and so does the cost "
        "of each step."
    )


def longnet_text(T: int, dilation: int) -> str:
    """LongNet's dilated attention (Ding et al., 2023, §2.3) against this page's dilated window, with
    its offsets worked out on the sentence's T tokens taken as one segment, rate r = the dilation."""
    r = int(dilation)
    text = (
        "The “Dilated Attention” of the articles this app checks is probably LongNet's (Ding et al., 2023), which "
        "works differently. LongNet cuts the sequence into segments of length w and keeps every r-th position of "
        "each segment, so each segment becomes a short dense attention; it runs several (w, r) pairs at once and "
        "adds their outputs, weighted by their softmax denominators; and its heads do not get different rates: "
        "they share each (w, r) and start at different offsets, s_j = j mod r for head j, so that together they "
        "cover every position. "
    )
    if r == 1:
        return text + f"With r = 1, as the dilation is here, every offset is 0 and each head keeps all {T} tokens."
    kept = [list(range(s, T, r)) for s in range(r)]
    parts = [f"offset {s} keeps {_positions(p)}" for s, p in enumerate(kept)]
    covered = sum(len(p) for p in kept)
    return (
        text + f"Take your {T} tokens as one segment with r = {r}: " + "; ".join(parts) + f". Together the {r} "
        f"offsets keep {covered} of the {T} positions, each once."
    )


def _positions(p: list[int]) -> str:
    if not p:
        return "no position"
    if len(p) == 1:
        return f"position {p[0]}"
    shown = ", ".join(map(str, p)) if len(p) <= 5 else f"{p[0]}, {p[1]}, {p[2]}, …, {p[-1]}"
    return f"positions {shown} ({len(p)})"


def window_question(T: int, radius: int, kept: int) -> Question | None:
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
    return Question(
        key="masks_quiz_window",
        prompt=f"A sliding window of radius r = {radius} on these T = {T} tokens: how many of the {T} × {T} = "
        f"{total} scores does it keep?",
        options=tuple(str(n) for n in counts),
        answer=counts.index(kept),
        value=kept / total,
        value_label="the share of the scores kept",
        explain=explain,
    )


NO_WINDOW_QUESTION = "Predict first has no question for one token: its window keeps its one score."


def window_hidden_note() -> str:
    return (
        "Hidden until you reveal your prediction (Predict first is on): the count, the mask and the weights would "
        "give it away."
    )


def dilated_hidden_note(elsewhere: str) -> str:
    """The dilated mask equals the window's (radius 0 or dilation 1), so it waits too; ``elsewhere``:
    where the question is for a reader on another section (Deck.elsewhere), else it is above."""
    return (
        f"Hidden until you reveal your prediction{elsewhere or ' above'} (Predict first is on): at these settings "
        "this mask is the sliding window's."
    )


# --------------------------------------------------------------------------- 2. cost


def cost_text(study: lab_results.MaskStudy) -> str:
    """T² scores, and what the causal mask saves: on the sentence, at the chart's longest T, and only with
    a kernel that skips the masked blocks."""
    T_max = int(study.T_values[-1])
    return (
        "Global attention computes one score for every pair of tokens: double the length and there are four "
        f"times as many scores. Causal attention keeps T(T+1)/2 of the T² scores: {study.kept['causal']} of "
        f"{study.kept['global']} on your sentence, so it saves {1 - study.causal_share:.1%}, and at T = "
        f"{T_max} it saves {1 - study.causal_share_longest:.1%}: slightly less than half. And only with a "
        "kernel that skips the masked blocks; a plain implementation computes every score and then masks it. "
        "Window and dilated masks keep a fixed number per row, so their cost grows in step with T (again only "
        "when just the kept scores are computed)."
    )


def cost_latex(study: lab_results.MaskStudy) -> str:
    """The longest T's bill: global and window scores, and one float32 score matrix in bytes."""
    T_max, counts = int(study.T_values[-1]), study.counts
    return (  # two lines: one is wider than the page at 1280 px
        rf"\begin{{gathered}} T = {T_max}:\ \text{{global}} = {T_max}^2 = "
        rf"{_big(counts['global'][-1])}\ \text{{scores}},\quad \text{{window}} = {_big(counts['window'][-1])} \\ "
        rf"\text{{float32 memory}} = 4 \times {T_max}^2 = {_big(study.memory[-1])}\ \text{{bytes}} \end{{gathered}}"
    )


def memory_caption(study: lab_results.MaskStudy) -> str:
    """Who stores the T × T matrices: plain training (every one), inference (one layer's), FlashAttention (none)."""
    T_max = int(study.T_values[-1])
    L, H = BASE_LAYERS, BASE_HEADS
    return (
        f"That is per head and per layer. A model with {L} layers of {H} heads holds {L * H} such matrices only if "
        f"it stores every one, as plain training does for the backward pass: {study.stored_bytes(L, H):,} bytes "
        f"for one sentence of {T_max} tokens. At inference the layers run one after another, so one layer's {H} "
        f"({study.stored_bytes(1, H):,} bytes) are enough. Fused kernels such as FlashAttention never store the "
        "T × T matrix at all: they compute it tile by tile, so the memory grows like T while the computation "
        "still grows like T²."
    )


def kv_cache_caption(study: lab_results.MaskStudy) -> str:
    """The same example model's KV cache at the chart's longest T, in float32."""
    T_max = int(study.T_values[-1])
    L, H, d_k = BASE_LAYERS, BASE_HEADS, BASE_D_K
    numbers = 2 * L * H * d_k * T_max
    return (
        f"A model that generates text keeps a KV cache instead (see “{SECTIONS['causal']}”): with "
        f"d_k = {d_k}, one key and one value per token, head and layer make 2 × {L} × {H} × {d_k} × {T_max} = "
        f"{numbers:,} numbers, {4 * numbers:,} bytes in float32 at T = {T_max}, growing like T."
    )


# --------------------------------------------------------------------------- 3. other scores

SCORES_INTRO = (
    "The scaled dot product is one way to score a query against a key. Bahdanau-style attention (Bahdanau et "
    "al., 2015) used an *additive* score: add the projected query and key, squash with tanh, and read the "
    "result along a learned vector v_a. Luong et al. (2015) already tried dot-product and bilinear scores. "
    "Vaswani et al. chose the dot product because its cost in theory is about the same, but it runs as one "
    "matrix product, which is much faster in practice. They also gave their reason for scaling it: for small "
    "d_k the two scores do about as well, but for large d_k additive attention beats the dot product without "
    "scaling (they cite Britz et al., 2017), and they suspected that large dot products push the softmax into "
    "regions with tiny gradients. Dividing by √d_k is their fix (the Softmax and scaling lab shows both effects)."
)


def additive_text(study: lab_results.MaskStudy) -> str:
    """The additive score's cap, Σ|v_a|, and the largest one on the sentence."""
    return (
        "The additive score cannot grow like that: tanh keeps every term between −1 and 1, so no score is larger in "
        f"size than Σ|v_a| = {study.additive_bound:.3f}, whatever d_k is (on your sentence the largest is "
        f"{study.additive_largest:.3f}). A dot product of d_k terms has no such cap."
    )


def agree_text(study: lab_results.MaskStudy) -> str:
    """In how many rows the two scores pick the same best key, against chance."""
    T = len(study.tokens)
    agree = round(study.top_agree * T)  # rows whose best key is the same under both scores
    by_chance = study.top_agree_chance * T  # rows two unrelated scores would share on average
    return (
        "With the same W_q and W_k the two scores are different functions, not two ways of computing one. On "
        f"your sentence, the key that scores highest is the same under both in {agree} of {T} rows. Two scores "
        f"with nothing in common would pick the same key with probability 1/{T} in each row, so in about "
        f"{by_chance:.2g} of the {T} rows on average."
    )


def scores_latex(study: lab_results.MaskStudy) -> str:
    """Both score functions, with their first cell."""
    return (
        r"e^{\mathrm{additive}}_{ij} = \tanh(x_i W_q + x_j W_k)\, v_a,\qquad "
        rf"e^{{\mathrm{{dot}}}}_{{ij}} = \frac{{(x_i W_q)(x_j W_k)^\top}}{{\sqrt{{{study.d_k}}}}},\qquad "
        rf"e^{{\mathrm{{additive}}}}_{{00}} = {study.additive[0, 0]:.3f},\ "
        rf"e^{{\mathrm{{dot}}}}_{{00}} = {study.dot[0, 0]:.3f}"
    )


def bilinear_text(study: lab_results.MaskStudy) -> str:
    """q·k as one d_model × d_model matrix between two embeddings."""
    return (
        "The dot product of a query and a key is really one matrix sandwiched between two embeddings: "
        f"W_q W_kᵀ is {_a(study.d_model)} {study.d_model} × {study.d_model} matrix (of rank at most d_k = "
        f"{study.d_k}) that says which directions of one token's embedding should match which directions of "
        "another's. Token vectors are rows here, as everywhere in this app, so the key's embedding is transposed on "
        "the right."
    )


def bilinear_latex(study: lab_results.MaskStudy) -> str:
    return (
        r"q_i \cdot k_j = (x_i W_q)(x_j W_k)^\top = x_i\, W_q W_k^\top\, x_j^\top,\qquad "
        rf"\max_{{ij}} \left| x_i W_q W_k^\top x_j^\top - (QK^\top)_{{ij}} \right| = {_sci(study.bilinear_diff)}"
    )


# --------------------------------------------------------------------------- what it showed


def what_it_showed(study: lab_results.MaskStudy, radius: int, window_hidden: bool) -> list[str]:
    """The footer's lines (the window's count only once its question is revealed)."""
    T, kept, counts, T_max = len(study.tokens), study.kept, study.counts, int(study.T_values[-1])
    agree = round(study.top_agree * T)
    if window_hidden:  # the window's count is the question's answer
        masks = (
            f"On your {T} tokens the causal mask keeps {kept['causal']} of {T * T} scores; a masked score "
            "becomes −∞, so its weight is exactly 0."
        )
    else:
        masks = (
            f"On your {T} tokens the causal mask keeps {kept['causal']} of {T * T} scores, the window (r = {radius}) "
            f"{kept['window']} and the dilated mask {kept['dilated']}; a masked score becomes −∞, so its weight is "
            "exactly 0."
        )
    cost = f"Global attention computes T² scores: {counts['global'][-1]:,} at T = {T_max}" + (
        f", against {counts['window'][-1]:,} for the window." if not window_hidden else "."
    )
    return [masks, cost, f"The additive and the dot-product scores pick the same best key in {agree} of your {T} rows."]
