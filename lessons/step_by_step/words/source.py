"""Where the weights come from: the sidebar's help, and the notes on a missing model, a cut text, the
settings a run keeps, and a trained head's origin.
"""

from __future__ import annotations

import numpy as np

from attn_core import numbering
from attn_core import trained_decoder as dc
from attn_core import transformer as tr
from attn_core import walkthrough as wt
from lessons.step_by_step.words.calls import N_REPEAT, SOURCES, STEPS, TOGGLES, Head
from lessons.step_by_step.words.format import quoted_full, sci
from ui.markup import md_escape
from ui.reader import Reader

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
