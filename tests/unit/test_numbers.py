"""Extreme numbers: random shapes and magnitudes never give NaN or inf weights."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attn_core as ac
from tests.support.strategies import attention_sizes


@settings(max_examples=150, deadline=None)
@given(
    **attention_sizes(max_T=16, max_d_model=64, max_d_k=64),
    magnitude=st.sampled_from([1e-6, 1.0, 1e3, 1e6]),
    multiplier=st.sampled_from([0.0, 1.0, 100.0, -100.0]),
    data=st.data(),
)
def test_attention_steps_stays_finite(T_q, T_k, d_model, d_k, magnitude, multiplier, scale, cross, data):
    x = data.draw(hnp.arrays(np.float64, (T_q, d_model), elements=st.floats(-1, 1))) * magnitude
    x_kv = data.draw(hnp.arrays(np.float64, (T_k, d_model), elements=st.floats(-1, 1))) * magnitude if cross else None
    T_k = T_k if cross else T_q
    w = ac.init_weights(d_model, d_k, seed=data.draw(st.integers(0, 99)))
    mask = data.draw(st.one_of(st.none(), st.just("causal"), hnp.arrays(bool, (T_q, T_k))))
    s = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, x_kv=x_kv, scale=scale, multiplier=multiplier, mask=mask)
    assert np.isfinite(s.weights).all() and np.isfinite(s.output).all()
    sums = s.weights.sum(-1)
    allowed = np.ones((T_q, T_k), bool) if s.mask is None else s.mask
    empty = ~allowed.any(-1)
    np.testing.assert_allclose(sums[~empty], 1.0, rtol=1e-9)
    assert (s.weights[empty] == 0).all()
    assert (s.weights[~allowed] == 0).all()


def test_extreme_controls_give_finite_weights():
    tokens = ac.tokenize("The animal didn't cross the street because it was too tired.")
    for d_model, d_k, mult in [(64, 1, 1.0), (64, 64, 100.0), (2, 64, 100.0), (64, 1, 100.0)]:
        x = ac.embed(tokens, d_model, seed=3)
        w = ac.init_weights(d_model, d_k, seed=3)
        for mask in (None, "causal", np.zeros((len(tokens), len(tokens)), bool)):
            s = ac.attention_steps(x, w.w_q, w.w_k, w.w_v, multiplier=mult, mask=mask)
            assert np.isfinite(s.weights).all()
