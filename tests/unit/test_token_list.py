"""The token list (ui.markup.token_list), read back by a CommonMark parser: every token comes back
literally, in order and numbered, whatever it holds (markdown, HTML, LaTeX, Streamlit's own
:directives:)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import attn_core as ac
from tests.support.hostile_corpus import HOSTILE
from tests.support.lab_checks import read_token_list
from ui.markup import token_list

# Tokens as the tokenizers make them: no white space (it separates tokens) and no control characters
# (ac.tokenize drops them); anything else.
TOKEN = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=12)
MARKUP = st.text(st.sampled_from("`*_$<>&[]():#\\!|~a1"), min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)  # the first call imports markdown-it
@given(st.lists(TOKEN, min_size=1, max_size=20))
def test_every_token_comes_back_literally_and_numbered(tokens: list[str]) -> None:
    assert read_token_list(token_list(tokens)) == tokens


@settings(deadline=None)
@given(st.lists(MARKUP, min_size=1, max_size=8))
def test_markup_characters_stay_literal(tokens: list[str]) -> None:
    assert read_token_list(token_list(tokens)) == tokens


def test_the_hostile_sentences_tokens_come_back_as_typed() -> None:
    for name, text in HOSTILE.items():
        tokens = ac.tokenize(text, max_tokens=64)
        if tokens:
            assert read_token_list(token_list(tokens)) == tokens, name


def test_repeated_words_are_separate_numbered_items() -> None:
    tokens = ac.tokenize("the cat sat on the mat")
    assert read_token_list(token_list(tokens)) == ["the", "cat", "sat", "on", "the", "mat"]
    shown = token_list(tokens)
    assert "**0**\u00a0the" in shown and "**4**\u00a0the" in shown
