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
