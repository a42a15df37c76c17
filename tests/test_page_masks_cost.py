"""AppTest of the masks-and-cost page: masks, masked weights, score counts and the other scores."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import attn_core as ac
from attn_core import experiments as ex
from tests.figdata import decode, figure_by_title, z_matrix
from tests.lab_checks import app, drive

PAGE = "masks_cost.py"
DEFAULT = "The cat sat on the mat."
LONG = "The animal didn't cross the street because it was too tired and it slept."
TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}
D_MODEL, D_K = 16, 4


def _z(at, title: str) -> np.ndarray:
    return z_matrix(figure_by_title(at, title)["data"][0])


def _setup(text: str, seed: int):
    x = ac.embed(ac.tokenize(text, max_tokens=64), D_MODEL, seed=seed)
    return x, ac.init_weights(D_MODEL, D_K, seed=seed)


def _check_masks(at, text: str, radius: int, dilation: int, seed: int = 0) -> None:
    assert not at.exception
    x, w = _setup(text, seed)
    T = x.shape[0]
    for kind, title in TITLES.items():
        mask = ex.make_mask(kind, T, radius=radius, dilation=dilation)
        allowed = np.ones((T, T), dtype=bool) if mask is None else mask
        shown_mask = _z(at, f"{title} mask")
        assert_array_equal(shown_mask, allowed.astype(float), err_msg=kind)
        weights = _z(at, f"{title} weights")
        assert_allclose(weights, ac.attention_steps(x, w.w_q, w.w_k, w.w_v, mask=mask).weights, atol=1e-12)
        assert np.all(weights[~allowed] == 0), kind
        assert_allclose(weights.sum(axis=1), 1.0)  # every mask keeps the diagonal


def test_default_run():
    at = app(PAGE).run()
    _check_masks(at, DEFAULT, radius=2, dilation=2)
    assert not np.all(_z(at, "Causal mask") == 1)  # the masks really differ from global


@pytest.mark.parametrize(("radius", "dilation"), [(0, 1), (1, 3), (3, 2), (8, 4)])
def test_radius_and_dilation(radius, dilation):
    at = drive(PAGE, masks_text=LONG, masks_radius=radius, masks_dilation=dilation)
    _check_masks(at, LONG, radius=radius, dilation=dilation)
    counts_fig = figure_by_title(at, "Scores computed against sequence length T")
    T_values = decode(counts_fig["data"][0]["x"]).astype(int)
    assert T_values[0] == 8 and T_values[-1] == 512
    expected = ex.score_counts(T_values, radius=radius, dilation=dilation)
    for trace, kind in zip(counts_fig["data"], ex.MASK_KINDS, strict=True):
        assert trace["name"] == TITLES[kind]
        assert_array_equal(decode(trace["y"]), expected[kind])
    assert_array_equal(decode(counts_fig["data"][0]["y"]), T_values**2)  # global: T²
    memory = figure_by_title(at, "Memory of one float32 score matrix")["data"][0]
    assert_array_equal(decode(memory["y"]), 4 * T_values.astype(np.int64) ** 2)


@pytest.mark.parametrize("seed", [0, 11])
def test_additive_and_bilinear(seed):
    at = drive(PAGE, masks_seed=seed)
    _check_masks(at, DEFAULT, radius=2, dilation=2, seed=seed)
    x, w = _setup(DEFAULT, seed)
    v_a = ex.init_v_a(D_K, seed=seed)
    hidden = np.tanh((x @ w.w_q)[:, None, :] + (x @ w.w_k)[None, :, :])
    assert_allclose(_z(at, "Additive (tanh) scores"), hidden @ v_a, atol=1e-12)
    assert_allclose(_z(at, "Additive (tanh) scores"), ac.additive_scores(x, w.w_q, w.w_k, v_a), atol=1e-12)
    q, k = x @ w.w_q, x @ w.w_k
    assert_allclose(_z(at, "Scaled dot-product scores"), q @ k.T / np.sqrt(D_K), atol=1e-12)
    assert_allclose(_z(at, "Bilinear form W_q W_k"), w.w_q @ w.w_k.T, atol=1e-12)
    diff = ex.max_abs_diff(ac.bilinear_scores(x, w.w_q, w.w_k), q @ k.T)
    assert diff < 1e-10
    shown = next(m.value for m in at.metric if m.label.startswith("Max |bilinear"))
    assert shown == f"{diff:.2e}"
