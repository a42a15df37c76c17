"""ui.charts fingerprints a chart by its inputs: equal inputs must give equal bytes, however
the arrays in them are shared, or an unchanged chart gets a new datarevision and is drawn again."""

from __future__ import annotations

import numpy as np

from attn_core.tables import Table
from ui.charts import _content_bytes


def test_equal_inputs_give_equal_bytes_whether_or_not_they_share_arrays():
    w = np.arange(12.0).reshape(3, 4)
    table = Table(w, list("abc"), list("wxyz"), name="W")
    shared = _content_bytes(((w,), {"title": "W"}, table))  # the table holds the same array
    copied = _content_bytes(((w.copy(),), {"title": "W"}, Table(w.copy(), list("abc"), list("wxyz"), name="W")))
    assert shared == copied


def test_different_inputs_give_different_bytes():
    w = np.arange(12.0).reshape(3, 4)
    assert _content_bytes((w,)) != _content_bytes((w + 1e-12,))
    assert _content_bytes((w, "title a")) != _content_bytes((w, "title b"))
