"""attn_core.views.model_lesson: the Real model page's one call, on random attentions (no torch)."""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac
from attn_core import views

L, H, T, D_K = 3, 4, 7, 5


@pytest.fixture(scope="module")
def arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    attentions = ac.softmax(rng.normal(size=(L, H, T, T)) * 3)
    attentions[:, :2, :, 0] += 5.0  # heads 0 and 1 of every layer: a [CLS] sink
    attentions /= attentions.sum(axis=-1, keepdims=True)
    queries, keys = rng.normal(size=(2, L, H, T, D_K))
    return attentions, queries, keys


def test_sinks_are_counted_by_hand(arrays):
    a, q, k = arrays
    lesson = views.model_lesson(a, q, k, "head", heads=[0])
    on_cls = np.array([[a[layer, h, :, 0].mean() for h in range(H)] for layer in range(L)])
    on_sep = np.array([[a[layer, h, :, T - 1].mean() for h in range(H)] for layer in range(L)])
    assert lesson.sinks_cls == int((on_cls > 0.5).sum()) == 2 * L
    assert lesson.sinks_sep == int((on_sep > 0.5).sum())
    assert lesson.n_heads_total == L * H


def test_each_view_holds_what_it_draws(arrays):
    a, q, k = arrays
    head = views.model_lesson(a, q, k, "head", layer=2, heads=[3, 1], focus=4)
    np.testing.assert_allclose(head.heads_mean, (a[2, 1] + a[2, 3]) / 2)
    assert head.heads == (1, 3) and head.focus == 4 and head.neuron is None and head.means is None

    model = views.model_lesson(a, q, k, "model", layer=1, head=2)
    np.testing.assert_allclose(model.on_cls, a[..., 0].mean(axis=-1))
    np.testing.assert_array_equal(model.weights, a[1, 2])

    neuron = views.model_lesson(a, q, k, "neuron", layer=0, head=3, query=2).neuron
    scores = k[0, 3] @ q[0, 3, 2]  # (T,)
    np.testing.assert_allclose(neuron.scores, scores)
    np.testing.assert_allclose(neuron.weights, np.exp(scores / np.sqrt(D_K)) / np.exp(scores / np.sqrt(D_K)).sum())

    summary = views.model_lesson(a, q, k, "summaries")
    np.testing.assert_allclose(summary.means, a.mean(axis=1))
    step = [(a[layer].mean(axis=0) + np.eye(T)) / 2 for layer in range(L)]
    np.testing.assert_allclose(summary.rolled[2], step[2] @ step[1] @ step[0])
    np.testing.assert_allclose(summary.summary_on_cls[0], a.mean(axis=1)[:, :, 0].mean(axis=1))


def test_settings_from_a_link_are_clamped_into_the_input(arrays):
    a, q, k = arrays
    lesson = views.model_lesson(a, q, k, "neuron", layer=99, head=-3, heads=[2, 40, -1], focus=500, query=500)
    assert (lesson.layer, lesson.head, lesson.heads, lesson.focus, lesson.query) == (L - 1, 0, (2,), T - 1, T - 1)
    assert views.model_lesson(a, q, k, "head", focus=None).focus is None
    with pytest.raises(ValueError, match="view must be one of"):
        views.model_lesson(a, q, k, "rollout")
    with pytest.raises(ValueError, match=r"\(L, H, T, T\)"):
        views.model_lesson(a[0], q, k)
