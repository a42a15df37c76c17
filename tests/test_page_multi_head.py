"""AppTest of the multi-head page: one heatmap per head, concat, W_O and output equal the engine's."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attn_core as ac
from attn_core import lab_results
from tests.figdata import figure_by_title, figures, z_matrix
from tests.lab_checks import app, drive

PAGE = "multi_head.py"
DEFAULT = "The cat sat on the mat."


def _engine(text: str, d_model: int, n_heads: int, d_k: int, seed: int, causal: bool) -> ac.MultiHeadSteps:
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    lesson = lab_results.multi_head_lesson(tokens, d_model=d_model, n_heads=n_heads, d_k=d_k, seed=seed, causal=causal)
    return lesson.steps


def _head_figures(at) -> list[dict]:
    return [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Head ")]


def _check(at, text: str, d_model: int, n_heads: int, d_k: int, seed: int, causal: bool) -> None:
    assert not at.exception
    mh = _engine(text, d_model, n_heads, d_k, seed, causal)
    heads = _head_figures(at)
    assert len(heads) == n_heads
    for h, fig in enumerate(heads):
        assert fig["layout"]["title"]["text"] == f"Head {h + 1} weights"
        assert_allclose(z_matrix(fig["data"][0]), mh.heads[h].weights, atol=1e-12)
    T = mh.output.shape[0]
    concat = z_matrix(figure_by_title(at, "Concat(head_1..head_H)")["data"][0])
    assert concat.shape == (T, n_heads * d_k)
    assert_allclose(concat, mh.concat, atol=1e-12)
    assert_allclose(z_matrix(figure_by_title(at, "W_O:")["data"][0]), mh.w_o, atol=1e-12)
    output = z_matrix(figure_by_title(at, "Output:")["data"][0])
    assert output.shape == (T, d_model)
    assert_allclose(output, mh.output, atol=1e-12)


def test_default_run_matches_engine():
    at = app(PAGE).run()
    _check(at, DEFAULT, d_model=16, n_heads=4, d_k=4, seed=0, causal=False)
    # Different heads really look differently.
    heads = _head_figures(at)
    assert not np.allclose(z_matrix(heads[0]["data"][0]), z_matrix(heads[1]["data"][0]))


@pytest.mark.parametrize("n_heads", [1, 3, 8])
def test_number_of_heads(n_heads):
    at = drive(PAGE, mh_heads=n_heads)
    _check(at, DEFAULT, d_model=16, n_heads=n_heads, d_k=4, seed=0, causal=False)


@pytest.mark.parametrize(("d_model", "d_k", "seed", "causal"), [(4, 1, 0, False), (64, 32, 9, True), (8, 16, 3, True)])
def test_sizes_seed_and_causal(d_model, d_k, seed, causal):
    text = "The animal didn't cross the street because it was too tired."
    at = drive(PAGE, mh_text=text, mh_d_model=d_model, mh_d_k=d_k, mh_seed=seed, mh_causal=causal)
    _check(at, text, d_model=d_model, n_heads=4, d_k=d_k, seed=seed, causal=causal)
    if causal:
        for fig in _head_figures(at):
            assert np.all(np.triu(z_matrix(fig["data"][0]), k=1) == 0)
