"""Sections 7 and 8, on the real model: one word's meanings and where the word looks; then what the
page showed (its footer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_core import numbering
from attn_core import transformer as tr
from attn_core.tables import number
from lessons.in_a_transformer.words.calls import MEANINGS
from lessons.in_a_transformer.words.format import big, n3, quoted, tiny
from ui.reader import Reader

if TYPE_CHECKING:
    from attn_core.models import WordSenses

# --------------------------------------------------------------------------- 7. one word, many meanings

SENSES_INTRO = (
    "In BERT a word's first vector, its embedding, is made before any attention: the vector of its token, plus "
    "a vector for its position and one for its segment (sentence A or B), each looked up in a learned table, "
    "then LayerNorm. So the embedding depends on the token and on where it stands, not on the other words. "
    "Each layer's attention then mixes in the words around it. Here is what that does in all-MiniLM-L6-v2 "
    "(layers 1 to 6, counted from 1 on every page; bertviz and TransformerLens count from 0): the word's "
    "vector in each sentence, the embedding and after each layer, compared with cosine similarity (1 = same "
    "direction). The example uses “bears” as an animal, a verb and a team, always as the second word, so every "
    "sentence starts from the same embedding."
)
NEED_SENTENCES = "Type at least two sentences, one per line, and a word that appears in them."
LAYER_LABEL = "After layer (0 = the embeddings, before any attention)"


def at_layer(k: int) -> str:
    """Where the vectors of hidden state k are: "in the embeddings", "after layer 3"."""
    return "in the embeddings" if k == 0 else numbering.after_layer(k)


def _first_up(text: str) -> str:
    return text[:1].upper() + text[1:]


def missing_text(word: str, n: int, sentence: str) -> str:
    return f"{quoted(word)} is not in sentence {n + 1} ({quoted(sentence)}); it is left out."


def found_text(senses: WordSenses) -> str:
    """Where the word is in each sentence: its token, and its WordPieces when it is split."""
    lines = []
    for k, sense in enumerate(senses.senses):
        split = (
            f", split into {len(sense.pieces)} WordPieces ({', '.join(quoted(p) for p in sense.pieces)}): the first "
            "is used"
            if len(sense.pieces) > 1
            else ""
        )
        lines.append(
            f"{k + 1}. {quoted(sense.sentence)}: {quoted(sense.word)} is token {sense.index} "
            f"{quoted(sense.tokens[sense.index])}{split}"
        )
    return "\n".join(lines)


def embeddings_text(senses: WordSenses) -> str:
    """Whether the word's embeddings are equal, from their cosines, and why, from the tokens
    followed and their positions."""
    low, high = senses.spread(0)
    tokens, positions = sorted(set(senses.pieces)), sorted(set(senses.positions))
    alike = len(tokens) == 1 and len(positions) == 1
    if alike and low > 1 - 5e-4:
        text = (
            f"{quoted(senses.word)} is the same token ({quoted(tokens[0])}) at the same position ({positions[0]}) "
            f"in every sentence, so its embeddings are equal: every pair has cosine {n3(low)}."
        )
    elif alike:
        text = (
            f"{quoted(senses.word)} is the same token ({quoted(tokens[0])}) at the same position ({positions[0]}) "
            f"in every sentence, yet its embeddings differ, cosines from {n3(low)} to {n3(high)}, before any "
            "attention: something else that goes into them (the segment) differs."
        )
    else:
        why = []
        if len(positions) > 1:
            why.append(f"it stands at different positions ({', '.join(str(p) for p in positions)})")
        if len(tokens) > 1:
            why.append(f"it is not the same token everywhere ({', '.join(quoted(t) for t in tokens)})")
        text = (
            f"Here the embeddings already differ, cosines from {n3(low)} to {n3(high)}, before any attention: "
            f"{' and '.join(why)}. Compare like with like: the same word at the same position."
        )
    if senses.layer0_error is not None:
        text += (
            " The embedding rebuilt from the model's own tables (token + position + segment, then LayerNorm with "
            f"its learned scale and shift) matches the model's to max |Δ| = {tiny(senses.layer0_error)}."
        )
    return text


def similarity_text(senses: WordSenses, layer: int) -> str:
    """The closest and farthest pair at hidden state ``layer``, and the mean over pairs."""
    mean = senses.mean_similarity
    a, b, hi = senses.pair(layer)
    c, d, lo = senses.pair(layer, most=False)
    last = senses.n_layers
    at_last = ""
    if layer != last:
        la, lb, lhi = senses.pair(last)
        lc, ld, llo = senses.pair(last, most=False)
        at_last = (
            f" {_first_up(at_layer(last))}, the last, the closest pair is {la + 1} and {lb + 1} ({n3(lhi)}) "
            f"and the farthest {lc + 1} and {ld + 1} ({n3(llo)})."
        )
    return (
        f"{_first_up(at_layer(layer))}, the most alike are sentences {a + 1} and {b + 1} (cosine {n3(hi)}), the "
        f"least alike {c + 1} and {d + 1} ({n3(lo)}). The mean over all pairs goes from {n3(mean[0])} in the "
        f"embeddings to {n3(mean[-1])} {at_layer(last)}.{at_last}"
    )


def meanings_of(senses: WordSenses) -> tuple[str | None, ...]:
    """What the word means in each sentence, where the page knows it (its own examples)."""
    return tuple(MEANINGS.get(s.sentence) for s in senses.senses)


def meanings_text(word: str, meanings: tuple[str | None, ...], groups: tr.SenseGroups, layer: int) -> str:
    """Which sentences share a meaning, whether the vectors at ``layer`` keep the meanings apart,
    and why a handful of sentences is an illustration, not evidence (with the numbers)."""
    where: dict[str, list[str]] = {}
    for k, meaning in enumerate(meanings):
        if meaning is not None:
            where.setdefault(meaning, []).append(str(k + 1))
    listed = ", ".join(
        f"{meaning} in {('sentences ' if len(ks) > 1 else 'sentence ') if n == 0 else ''}{' and '.join(ks)}"
        for n, (meaning, ks) in enumerate(where.items())
    )
    if abs(groups.gap) < 5e-4:
        verdict = "no difference yet."
    elif groups.gap > 0:
        verdict = "the vectors of one meaning stay closer together than those of different meanings."
    else:
        verdict = "by this measure the model does not keep the meanings apart."
    each = " and ".join(n3(v) for v in groups.same_values) if groups.n_same <= 3 else ""
    return (
        f"{quoted(word)} is {listed}. {_first_up(at_layer(layer))}, the {groups.n_same} "
        f"pair{'s' if groups.n_same != 1 else ''} with the same meaning have a mean cosine of {n3(groups.same)}"
        f"{f' ({each})' if each else ''} and the {groups.n_different} pairs with different meanings "
        f"{n3(groups.different)} (from {n3(min(groups.different_values))} to {n3(max(groups.different_values))}): "
        f"{verdict}"
    )


def evidence_text(groups: tr.SenseGroups, n_sentences: int) -> str:
    """Why these few sentences illustrate and do not prove: the exact permutation count."""
    overlap = (
        "every pair with one meaning is closer than every pair with two"
        if min(groups.same_values) > max(groups.different_values)
        else "the two kinds of pairs overlap"
    )
    give = "gives" if groups.as_large == 1 else "give"
    return (
        f"That is an illustration, not evidence: {groups.n_same} pair{'s' if groups.n_same != 1 else ''} with one "
        f"meaning against {groups.n_different}, from {n_sentences} sentences picked by hand, and here {overlap}. "
        f"Split the same {n_sentences} sentences into groups of the same sizes in every one of the "
        f"{groups.groupings} possible ways: {groups.as_large} of them {give} a gap between the two means at least "
        f"as large as the real meanings do. With so few sentences no result could do better than 1 in "
        f"{groups.groupings}; a claim about the model would need many sentences for each meaning."
    )


def similarity_title(layer: int) -> str:
    return f"Cosine similarity {at_layer(layer)}"


# --------------------------------------------------------------------------- 8. where the word looks


def looks_heading(layer: int) -> str:
    return f"Where the word looks in layer {layer}" if layer else "Where the word looks"


def looks_embeddings(senses: WordSenses, reader: Reader) -> str:
    """Said for hidden state 0, which no attention made. One section at a time, the layer slider
    waits in the sidebar; otherwise it is with the sentences, above."""
    where = " in the sidebar" if reader.paged else " above"
    return (
        "0 is the embeddings (token, position and segment vectors, then LayerNorm): no layer has looked at "
        f"the other tokens yet. Pick a layer from 1 to {senses.n_layers}{where} to see which tokens the word "
        "attends to in it."
    )


def looks_text(senses: WordSenses, layer: int, n_heads: int) -> str:
    """The word's attention row in ``layer`` (1..L), and the part of it on [CLS] and [SEP]."""
    shares = ", ".join(number(sense.special_share(layer), 2) for sense in senses.senses)
    return (
        f"The word's row of attention weights in layer {layer}, averaged over the {n_heads} heads. The part that "
        f"goes to [CLS] and [SEP], sentence by sentence: {shares}. A large share on these two tokens is usually "
        "read as a head parking attention it has no use for (Clark et al., 2019): it shows where the heads look, "
        "not what the word takes from those tokens."
    )


def bar_title(k: int, word: str, index: int, layer: int) -> str:
    return f"{k + 1}: {word}, token {index}, layer {layer}"


# --------------------------------------------------------------------------- what it showed


def what_it_showed(lesson: tr.TransformerLesson) -> list[str]:
    """The footer's lines, from this run's lesson."""
    sp, blk, p, co = lesson.split, lesson.block, lesson.padding, lesson.cost
    lines = [
        f"With d_model = {sp.d_model} and H = {sp.H}, each head works in d_k = {sp.d_k} dimensions, so the {sp.H} "
        f"heads together have {big(sp.qkv_params)} weights in W_q, W_k and W_v, as many as one head of the full "
        f"width; one encoder block keeps the shape: sentence A goes in as {blk.x.shape[0]}×{blk.x.shape[1]} and "
        f"comes out as {blk.output.shape[0]}×{blk.output.shape[1]}.",
        f"For T = {co.T} and d = {co.d}, attention does {big(co.attention_ops)} multiply-adds, a tanh RNN "
        f"{big(co.recurrent_ops)} and an LSTM {big(co.lstm_ops)}; what set attention apart is its "
        f"{co.attention_sequential} sequential step against {co.recurrent_sequential}.",
    ]
    b = p.padded
    if p.lengths[0] != p.lengths[1]:
        lines.append(
            f"With the padding mask the padding keys get weight {p.pad_weight:g}; without it, "
            f"{p.changed_unmasked[b]} of the {p.lengths[b]} real tokens of sentence {'AB'[b]} got other outputs."
        )
    return lines
