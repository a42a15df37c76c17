"""Hypothesis strategies shared by the engine's property tests (test_engine, test_numbers)."""

from __future__ import annotations

from hypothesis import strategies as st


def attention_sizes(max_T: int, max_d_model: int, max_d_k: int) -> dict[str, st.SearchStrategy]:
    """Keyword strategies for @given: the sizes of one attention call, each from 1 to its
    maximum (T_q and T_k up to max_T), and its two switches: cross (keys and values from a
    second sequence of T_k tokens) and scale (divide the scores by √d_k)."""
    return {
        "T_q": st.integers(1, max_T),
        "T_k": st.integers(1, max_T),
        "d_model": st.integers(1, max_d_model),
        "d_k": st.integers(1, max_d_k),
        "cross": st.booleans(),
        "scale": st.booleans(),
    }


EXAMPLES = (
    "The cat sat on the mat.",
    "the cat sat on the mat",  # an exact repeat: "the" twice, in the same case
    "The animal didn't cross the street because it was too tired.",
    "Le chat s'est assis sur le tapis.",
    "a",
    "the the the the",
)


def token_lists(min_size: int = 1, max_size: int = 64) -> st.SearchStrategy[tuple[str, ...]]:
    """The tokens of a sentence a student might type, as attn_core.tokenize cuts them: the app's
    examples, the hostile corpus (tests/support/hostile_corpus.py) and any text Hypothesis makes,
    with ``min_size`` to ``max_size`` tokens (repeats, markup, emoji and right-to-left text included)."""
    from attn_core import tokenize
    from tests.support.hostile_corpus import HOSTILE

    texts = st.one_of(
        st.sampled_from(EXAMPLES + tuple(HOSTILE.values())),
        st.text(min_size=1, max_size=120),
        st.lists(st.sampled_from(("the", "cat", "le", "chat", ".", "<b>", "$x$", "🐈")), min_size=1, max_size=70).map(
            " ".join
        ),
    )
    return texts.map(lambda text: tuple(tokenize(text, max_tokens=max_size))).filter(lambda t: len(t) >= min_size)
