"""attn_core.views: neuron view, head mean and rollout, from NumPy arrays alone (no torch)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import attn_core as ac
from attn_core import views
from tests.conftest import ROOT


def _random_attentions(L: int, H: int, T: int, seed: int = 0) -> np.ndarray:
    return ac.softmax(np.random.default_rng(seed).normal(size=(L, H, T, T)) * 2)


def test_head_mean_and_rollout():
    a = _random_attentions(3, 4, 6)
    np.testing.assert_allclose(views.head_mean(a), a.mean(axis=1))
    r = views.rollout(a)
    assert r.shape == (3, 6, 6)
    np.testing.assert_allclose(r.sum(axis=-1), 1.0)
    step = [(a[layer].mean(axis=0) + np.eye(6)) / 2 for layer in range(3)]
    np.testing.assert_allclose(r[0], step[0])
    np.testing.assert_allclose(r[2], step[2] @ step[1] @ step[0])
    self_only = np.broadcast_to(np.eye(5), (2, 3, 5, 5))
    np.testing.assert_allclose(views.rollout(self_only), np.broadcast_to(np.eye(5), (2, 5, 5)))
    with pytest.raises(ValueError, match=r"\(L, H, T, T\)"):
        views.rollout(a[0])


def test_neuron_view_equals_attention_steps():
    """One query's neuron view is that query's row of a head computed by attention_steps."""
    rng = np.random.default_rng(3)
    L, H, T, d_k = 2, 3, 7, 5
    queries, keys = rng.normal(size=(2, L, H, T, d_k))
    for layer, head, query in [(0, 0, 0), (1, 2, 6), (1, 1, 3)]:
        nv = views.neuron_view(queries, keys, layer, head, query)
        q, k = queries[layer, head], keys[layer, head]
        steps = ac.attention_steps(q, np.eye(d_k), np.eye(d_k), np.eye(d_k), x_kv=k)  # Q = q, K = k
        np.testing.assert_allclose(nv.qk.sum(axis=1), nv.scores)
        np.testing.assert_allclose(nv.scores, steps.scores[query], rtol=1e-12)
        np.testing.assert_allclose(nv.weights, steps.weights[query], rtol=1e-12)
        assert nv.d_k == d_k and nv.factor == pytest.approx(1 / np.sqrt(d_k))
        assert nv.top == int(np.argmax(steps.weights[query]))
    with pytest.raises(ValueError, match="query"):
        views.neuron_view(queries, keys, 0, 0, T)
    with pytest.raises(ValueError, match=r"\(L, H, T, d_k\)"):
        views.neuron_view(queries[0], keys[0], 0, 0, 0)


def test_views_from_saved_attentions_without_torch(tmp_path):
    """A notebook can load attentions saved as .npz and roll them out without importing torch."""
    a = _random_attentions(2, 2, 4, seed=1)
    np.savez(tmp_path / "att.npz", attentions=a)
    code = (
        "import sys, numpy as np; from attn_core import views; "
        f"r = views.rollout(np.load({str(tmp_path / 'att.npz')!r})['attentions']); "
        "assert 'torch' not in sys.modules; print(r.shape)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(2, 4, 4)"
