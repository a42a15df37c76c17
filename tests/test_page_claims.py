"""Sentences on the lab pages that state numbers: each is checked against the numbers it
describes, recomputed here from the page's one attn_core call and plain NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attn_core as ac
from attn_core import lab_results
from attn_core.walkthrough import latex_num
from tests.lab_checks import app


def _run(page: str, **query: str) -> AppTest:
    at = app(page)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# --------------------------------------------------------------------------- masks and cost


@pytest.mark.parametrize(
    ("text", "seed"),
    [
        ("The cat sat on the mat.", 0),
        ("The cat, which was black, sat on the mat.", 1),
        ("The animal didn't cross the street because it was too tired.", 1),
    ],
)
def test_masks_page_counts_the_rows_where_both_scores_pick_the_same_key(text, seed):
    at = _run("masks_cost.py", text=text, seed=str(seed))
    tokens = tuple(ac.tokenize(text, max_tokens=64))
    T = len(tokens)
    study = lab_results.mask_study(tokens, radius=2, dilation=2, seed=seed)  # the page's call, its defaults
    agree = int(np.sum(study.additive.argmax(axis=1) == study.dot.argmax(axis=1)))
    assert agree == round(study.top_agree * T)
    sentence = next(m.value for m in at.markdown if "the key that scores highest" in m.value)
    assert f"the same under both in {agree} of {T} rows." in sentence
    assert f"with probability 1/{T} in each row, so in about 1 of the {T} rows" in sentence
    caption = next(c.value for c in at.caption if "such matrices" in c.value)
    layers, heads = (int(w) for w in caption.split("model with ")[1].split(" heads")[0].split(" layers of "))
    assert f"holds {layers * heads} such matrices" in caption


# --------------------------------------------------------------------------- softmax lab


@pytest.mark.parametrize(("seed", "m"), [(0, "100"), (3, "1"), (7, "5")])
def test_softmax_lab_jacobian_numbers_are_the_lessons(seed, m):
    """The saturation section's Jacobian line: max |J| at s and at m·s, and the winner's
    p_w(1 − p_w), against J = diag(p) − p pᵀ built here from the page's own weights."""
    at = _run("softmax_lab.py", seed=str(seed), m=m)
    sat = lab_results.softmax_lab(seed=seed, multiplier=float(m)).saturation
    w = int(np.argmax(sat.scores))
    latex = next(x.value for x in at.latex if r"\max_{ij} |J_{ij}|" in x.value)
    for p, jac in ((sat.weights, sat.jacobian), (sat.scaled_weights, sat.scaled_jacobian)):
        by_hand = np.diag(p) - np.outer(p, p)
        np.testing.assert_allclose(jac, by_hand, atol=1e-15)
        assert by_hand[w, w] == pytest.approx(p[w] * (1 - p[w]), abs=1e-15)
    plain, scaled = np.abs(sat.jacobian).max(), np.abs(sat.scaled_jacobian).max()
    assert f"{latex_num(plain, 3)} \\text{{ at }} s \\ \\to\\ {latex_num(scaled, 3)}" in latex
    assert f"{float(m):g}\\,s" in latex
    assert (
        f"p_w(1 - p_w):\\ {latex_num(sat.weights[w] * (1 - sat.weights[w]), 3)} \\ \\to\\ "
        f"{latex_num(sat.scaled_weights[w] * (1 - sat.scaled_weights[w]), 3)}"
    ) in latex
    assert any(f"Here the winner is key {w} (" in x.value for x in at.markdown)
