"""AppTest of the masks-and-cost page: masks, masked weights, score counts and the other scores,
each chart equal to the field of lab_results.mask_study that it shows (the page's one call; its
numbers are checked against explicit masks, formulas and torch in tests/test_lab_results.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import attn_core as ac
from attn_core import experiments as ex
from attn_core import lab_results
from tests.figdata import decode, figure_by_title, z_matrix
from tests.lab_checks import app, drive

PAGE = "masks_cost.py"
DEFAULT = "The cat sat on the mat."
LONG = "The animal didn't cross the street because it was too tired and it slept."
TITLES = {"global": "Global", "causal": "Causal", "window": "Sliding window", "dilated": "Dilated"}


def _z(at, title: str) -> np.ndarray:
    return z_matrix(figure_by_title(at, title)["data"][0])


def _study(text: str, radius: int = 2, dilation: int = 2, seed: int = 0) -> lab_results.MaskStudy:
    """The page's one call, with the page's arguments."""
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    return lab_results.mask_study(tokens, radius=radius, dilation=dilation, seed=seed)


def _check_masks(at, study: lab_results.MaskStudy) -> None:
    assert not at.exception
    T = len(study.tokens)
    assert [kind for kind, _ in study.runs] == list(TITLES)
    for kind, title in TITLES.items():
        steps = study.steps(kind)
        allowed = np.ones((T, T), dtype=bool) if steps.mask is None else steps.mask
        shown_mask = _z(at, f"{title} mask")
        assert_array_equal(shown_mask, allowed.astype(float), err_msg=kind)
        weights = _z(at, f"{title} weights")
        assert_allclose(weights, steps.weights, atol=1e-12)
        assert np.all(weights[~allowed] == 0), kind
        assert_allclose(weights.sum(axis=1), 1.0)  # every mask keeps the diagonal


def test_default_run():
    at = app(PAGE).run()
    _check_masks(at, _study(DEFAULT, radius=2, dilation=2))
    assert not np.all(_z(at, "Causal mask") == 1)  # the masks really differ from global


@pytest.mark.parametrize(("radius", "dilation"), [(0, 1), (1, 3), (3, 2), (8, 4)])
def test_radius_and_dilation(radius, dilation):
    at = drive(PAGE, masks_text=LONG, masks_radius=radius, masks_dilation=dilation)
    study = _study(LONG, radius=radius, dilation=dilation)
    _check_masks(at, study)
    counts_fig = figure_by_title(at, "Scores computed against sequence length T")
    T_values = decode(counts_fig["data"][0]["x"]).astype(int)
    assert T_values[0] == 8 and T_values[-1] == 512
    assert_array_equal(T_values, study.T_values)
    for trace, kind in zip(counts_fig["data"], ex.MASK_KINDS, strict=True):
        assert trace["name"] == TITLES[kind]
        assert_array_equal(decode(trace["x"]), study.T_values)
        assert_array_equal(decode(trace["y"]), study.counts[kind])
    assert_array_equal(decode(counts_fig["data"][0]["y"]), T_values**2)  # global: T²
    memory = figure_by_title(at, "Memory of one float32 score matrix")["data"][0]
    assert_array_equal(decode(memory["y"]), study.memory)
    assert_array_equal(decode(memory["y"]), 4 * T_values.astype(np.int64) ** 2)


@pytest.mark.parametrize("seed", [0, 11])
def test_additive_and_bilinear(seed):
    at = drive(PAGE, masks_seed=seed)
    study = _study(DEFAULT, radius=2, dilation=2, seed=seed)
    _check_masks(at, study)
    assert_allclose(_z(at, "Additive (tanh) scores"), study.additive, atol=1e-12)
    assert_allclose(_z(at, "Scaled dot-product scores"), study.dot, atol=1e-12)
    assert_allclose(_z(at, "Bilinear form W_q W_k"), study.w_qk, atol=1e-12)
    assert study.bilinear_diff < 1e-10
    shown = next(m.value for m in at.metric if m.label.startswith("Max |bilinear"))
    assert shown == f"{study.bilinear_diff:.2e}"
