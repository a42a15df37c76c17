"""attn_core.views: neuron view, head mean and rollout, from NumPy arrays alone (no torch)."""

from __future__ import annotations

import re
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


def _per_head(a: np.ndarray, f) -> np.ndarray:
    """f(one head's (T, T) weights) for every layer and head, by plain loops: (L, H)."""
    L, H = a.shape[:2]
    return np.array([[f(a[layer, head]) for head in range(H)] for layer in range(L)])


@pytest.mark.parametrize("key", [0, 3, 5, -1, -6])
def test_attention_to_is_the_mean_over_queries_of_one_key_column(key):
    a = _random_attentions(3, 4, 6, seed=2)
    T = 6
    expected = _per_head(a, lambda w: sum(w[i][key % T] for i in range(T)) / T)
    got = views.attention_to(a, key)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert np.all((got >= 0) & (got <= 1))


def test_attention_to_over_every_key_sums_to_one_per_head():
    a = _random_attentions(2, 3, 5, seed=4)
    np.testing.assert_allclose(sum(views.attention_to(a, key) for key in range(5)), 1.0, rtol=1e-13)


@pytest.mark.parametrize("key", [6, 7, -7, 100])
def test_attention_to_rejects_a_key_outside_the_sentence(key):
    with pytest.raises(ValueError, match=r"key must be in 0\.\.5"):
        views.attention_to(_random_attentions(1, 2, 6), key)


@pytest.mark.parametrize("fn", [views.attention_to, views.sink_heads])
@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (1, 2, 3, 4), (1, 1, 2, 3, 3)])
def test_attention_to_and_sink_heads_check_the_shape(fn, shape):
    with pytest.raises(ValueError, match=r"\(L, H, T, T\), got " + re.escape(str(shape))):
        fn(np.full(shape, 0.25), 0)


def _sink_attentions() -> np.ndarray:
    """(2, 3, 4, 4) heads whose rows put a known share on key 0 and the rest on the last key."""
    shares = np.array([[0.9, 0.5, 0.2], [0.75, 0.0, 1.0]])  # per (layer, head), every row alike
    a = np.zeros((2, 3, 4, 4))
    a[..., 0] = shares[:, :, None]
    a[..., -1] += 1 - shares[:, :, None]
    return a


def test_sink_heads_counts_heads_above_the_share():
    a = _sink_attentions()
    np.testing.assert_allclose(a.sum(axis=-1), 1.0)
    assert views.sink_heads(a, 0) == 3  # 0.9, 0.75 and 1.0; exactly 0.5 is not more than half
    assert views.sink_heads(a, 0, share=0.8) == 2
    assert views.sink_heads(a, 0, share=0.1) == 5
    assert views.sink_heads(a, 0, share=1.0) == 0
    assert views.sink_heads(a, -1) == 2  # 1 - share: 0.8 (layer 0, head 2) and 1.0 (layer 1, head 1)
    assert views.sink_heads(a, 3) == views.sink_heads(a, -1)
    assert views.sink_heads(a, 1) == 0
    assert isinstance(views.sink_heads(a, 0), int)


@pytest.mark.parametrize(("seed", "share"), [(0, 0.5), (1, 0.3), (2, 0.15)])
def test_sink_heads_on_random_attentions_against_loops(seed, share):
    a = _random_attentions(4, 6, 5, seed=seed) ** 3  # sharper rows, so some heads pass the share
    a = a / a.sum(axis=-1, keepdims=True)
    counts = []
    for key in (0, -1):
        means = _per_head(a, lambda w, key=key: np.mean([row[key] for row in w]))
        counts.append(views.sink_heads(a, key, share=share))
        assert counts[-1] == int(np.count_nonzero(means > share))
    assert any(0 < n < 4 * 6 for n in counts), counts  # some heads pass, some do not


def test_mean_distance_against_loops():
    a = _random_attentions(2, 3, 7, seed=5)
    T = 7
    expected = _per_head(a, lambda w: np.mean([sum(w[i, j] * abs(i - j) for j in range(T)) for i in range(T)]))
    got = views.mean_distance(a)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize("T", [1, 2, 6])
def test_mean_distance_of_known_heads(T):
    """Looking at itself: 0. The previous token (the first looks at itself): (T - 1) / T.
    The first token from every query: mean of i, (T - 1) / 2. Uniform over all: the mean |i - j|."""
    eye = np.eye(T)
    previous = np.eye(T, k=-1)
    previous[0, 0] = 1.0
    first = np.zeros((T, T))
    first[:, 0] = 1.0
    uniform = np.full((T, T), 1 / T)
    a = np.stack([eye, previous, first, uniform])[None]  # (1, 4, T, T)
    offsets = [abs(i - j) for i in range(T) for j in range(T)]
    np.testing.assert_allclose(
        views.mean_distance(a), [[0.0, (T - 1) / T, (T - 1) / 2, sum(offsets) / T**2]], rtol=1e-13, atol=1e-15
    )


@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (1, 2, 3, 4)])
def test_mean_distance_checks_the_shape(shape):
    with pytest.raises(ValueError, match=r"\(L, H, T, T\), got " + re.escape(str(shape))):
        views.mean_distance(np.full(shape, 0.25))


def test_offset_share_reads_the_neighbour_diagonals():
    rng = np.random.default_rng(4)
    a = rng.random((2, 3, 6, 6))
    a /= a.sum(axis=-1, keepdims=True)
    prev, nxt = views.offset_share(a, 1), views.offset_share(a, -1)
    for layer in range(2):
        for head in range(3):
            assert prev[layer, head] == pytest.approx(np.mean([a[layer, head, t, t - 1] for t in range(1, 6)]))
            assert nxt[layer, head] == pytest.approx(np.mean([a[layer, head, t, t + 1] for t in range(0, 5)]))
    assert views.offset_share(np.ones((1, 1, 1, 1)), 1).tolist() == [[0.0]]  # no query has a previous token


def test_spread_is_one_for_uniform_rows_and_zero_for_one_hot_rows():
    T = 5
    uniform = np.full((1, 1, T, T), 1 / T)
    one_hot = np.broadcast_to(np.eye(T), (1, 1, T, T))
    both = np.concatenate([uniform, one_hot], axis=1)  # (1, 2, T, T)
    np.testing.assert_allclose(views.spread(both), [[1.0, 0.0]], atol=1e-12)
    row = np.array([0.5, 0.25, 0.25, 0.0, 0.0])  # entropy 1.5 bits
    assert views.spread(np.broadcast_to(row, (1, 1, T, T)))[0, 0] == pytest.approx(1.5 / np.log2(T))


def test_head_roles_count_previous_next_and_broad_heads():
    T = 6
    previous = np.eye(T, k=-1)
    previous[0, 0] = 1.0  # the first token has no previous one: it looks at itself
    nxt = np.eye(T, k=1)
    nxt[-1, -1] = 1.0
    uniform = np.full((T, T), 1 / T)
    a = np.stack([previous, nxt, uniform, 0.6 * previous + 0.4 * uniform])[None]  # (1, 4, T, T)
    roles = views.head_roles(a)
    assert (roles.n_previous, roles.n_next, roles.n_broad) == (2, 1, 1)
    assert roles.strongest_previous == (0, 0, 1.0)
