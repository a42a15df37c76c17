"""attn_core.tables: shape checks, each chart kind's one-sentence description computed from
its numbers, and the CSV, .npy and .npz downloads read back by csv and numpy."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from attn_core import tables as tb

RNG = np.random.default_rng(0)


def _num(value: float) -> str:
    """A value as a description prints it in the plain range: 2 decimals, a true minus sign."""
    return f"{value:.2f}".replace("-", "\u2212")


def _weights(T: int, *, causal: bool = False, seed: int = 0) -> np.ndarray:
    """Rows of positive weights summing to 1; with ``causal``, -inf above the diagonal."""
    rng = np.random.default_rng(seed)
    e = np.exp(rng.normal(size=(T, T)) * 2)
    if causal:
        e = np.tril(e)
    w = e / e.sum(axis=1, keepdims=True)
    return np.where(np.tril(np.ones((T, T), dtype=bool)), w, -np.inf) if causal else w


def _attention_table(values: np.ndarray, labels: list[str]) -> tb.Table:
    return tb.Table(
        values, labels, labels, name="Attention weights", kind="weights", row_title="query", col_title="key"
    )


# --------------------------------------------------------------------------- Table


@pytest.mark.parametrize(
    ("values", "rows", "cols"),
    [
        (np.zeros((2, 3)), ["a", "b", "c"], ["x", "y"]),  # transposed
        (np.zeros((2, 3)), ["a", "b"], ["x", "y"]),  # a column short
        (np.zeros(3), ["a"], ["x", "y", "z"]),  # 1-D
        (np.zeros((1, 2, 3)), ["a"], ["x", "y"]),  # 3-D
    ],
)
def test_table_rejects_values_that_do_not_match_the_labels(values, rows, cols):
    expected = f"values must have shape (len(rows)={len(rows)}, len(cols)={len(cols)}), got {values.shape}"
    with pytest.raises(ValueError, match=re.escape(expected)):
        tb.Table(values, rows, cols, name="t")


def test_table_rejects_an_unknown_kind_and_accepts_every_known_one():
    with pytest.raises(ValueError, match=r"kind must be one of .*'heat'"):
        tb.Table(np.zeros((1, 1)), ["a"], ["b"], name="t", kind="heat")
    assert set(tb.KINDS) == {"weights", "signed", "bars", "lines", "mask"}
    for kind in tb.KINDS:
        assert tb.Table(np.ones((1, 1)), ["a"], ["b"], name="t", kind=kind).kind == kind


def test_table_stores_an_array_and_string_labels():
    t = tb.Table([[1, 2], [3, 4]], [0, 1], ("x", 2.5), name="t")
    assert isinstance(t.values, np.ndarray) and t.values.shape == (2, 2)
    assert t.rows == ("0", "1") and t.cols == ("x", "2.5")
    assert t.kind == "signed" and t.row_title == "row" and t.col_title == "column"


# --------------------------------------------------------------------------- describe: weights


def test_describe_weights_hand_made():
    v = np.array([[0.1, 0.6, 0.3], [0.25, 0.25, 0.5], [0.8, 0.15, 0.05]])
    t = _attention_table(v, ["The", "cat", "sat"])
    # Row 2 holds the largest weight (0.80, on key 0); the row maxima average (0.6 + 0.5 + 0.8) / 3.
    assert tb.describe(t) == (
        "Attention weights, 3 × 3 (query by key). Query 2 “sat” puts most weight on key 0 “The” (0.80); "
        "averaged over the rows, a row's largest weight is 0.63."
    )
    assert tb.describe(t, focus_row=1) == (
        "Attention weights, 3 × 3 (query by key). Query 1 “cat” puts most weight on key 2 “sat” (0.50); "
        "averaged over the rows, a row's largest weight is 0.63."
    )


@pytest.mark.parametrize("focus_row", [0, 3, 6])
def test_describe_weights_focus_row_against_numpy(focus_row):
    T = 7
    v = _weights(T, seed=focus_row)
    labels = [f"w{i}" for i in range(T)]
    col = int(np.argmax(v[focus_row]))
    expected = (
        f"Attention weights, {T} × {T} (query by key). Query {focus_row} “w{focus_row}” puts most weight on "
        f"key {col} “w{col}” ({_num(v[focus_row, col])}); averaged over the rows, a row's largest weight is "
        f"{_num(v.max(axis=1).mean())}."
    )
    assert tb.describe(_attention_table(v, labels), focus_row=focus_row) == expected


def test_describe_weights_focus_row_is_clamped_into_the_table():
    v = _weights(4, seed=1)
    t = _attention_table(v, list("abcd"))
    assert tb.describe(t, focus_row=99) == tb.describe(t, focus_row=3)
    assert tb.describe(t, focus_row=-5) == tb.describe(t, focus_row=0)
    assert "Query 3 “d”" in tb.describe(t, focus_row=99) and "Query 0 “a”" in tb.describe(t, focus_row=-5)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_describe_causal_weights_skips_the_first_row_and_counts_masked_cells(seed):
    """The causal first row can only look at itself (weight 1): the description names the most
    decided of the other rows, and says how many cells are -inf."""
    T = 6
    v = _weights(T, causal=True, seed=seed)
    assert v[0, 0] == 1.0 and np.isneginf(v[0, 1:]).all()
    finite = np.where(np.isfinite(v), v, np.nan)
    tops = np.nanmax(finite, axis=1)
    row = 1 + int(np.argmax(tops[1:]))  # rows 1.. have a choice among 2 or more keys
    col = int(np.nanargmax(finite[row]))
    masked = T * (T - 1) // 2
    labels = [f"t{i}" for i in range(T)]
    assert tb.describe(_attention_table(v, labels)) == (
        f"Attention weights, {T} × {T} (query by key). Query {row} “t{row}” puts most weight on key {col} “t{col}” "
        f"({_num(v[row, col])}); averaged over the rows, a row's largest weight is {_num(tops.mean())}. "
        f"{masked} of {T * T} cells are masked (−∞)."
    )


def test_describe_weights_when_no_row_has_a_choice():
    """Every row one-hot: the first row holding the largest weight (1) is named."""
    t = _attention_table(np.eye(3)[[2, 0, 1]], ["a", "b", "c"])
    assert tb.describe(t).startswith(
        "Attention weights, 3 × 3 (query by key). Query 0 “a” puts most weight on key 2 “c”"
    )
    assert "(1.00); averaged over the rows, a row's largest weight is 1.00." in tb.describe(t)


def test_describe_a_masked_cell_is_never_the_focus_rows_choice():
    v = np.array([[0.4, -np.inf, 0.6], [0.5, 0.5, -np.inf]])
    t = tb.Table(v, ["a", "b"], ["x", "y", "z"], name="W", kind="weights", row_title="query", col_title="key")
    assert "Query 1 “b” puts most weight on key 0 “x” (0.50)" in tb.describe(t, focus_row=1)
    assert tb.describe(t).endswith(" 2 of 6 cells are masked (−∞).")


@pytest.mark.parametrize("kind", tb.KINDS)
def test_describe_with_no_finite_value(kind):
    for values in (np.full((2, 3), -np.inf), np.zeros((0, 2))):
        rows, cols = [f"r{i}" for i in range(values.shape[0])], [f"c{j}" for j in range(values.shape[1])]
        t = tb.Table(values, rows, cols, name="Empty", kind=kind)
        assert tb.describe(t) == f"Empty, {values.shape[0]} × {values.shape[1]}, with no values to show."


def test_describe_shortens_long_labels():
    long = "a" * 30
    t = _attention_table(np.array([[1.0]]), [long])
    assert f"“{'a' * 23}…”" in tb.describe(t) and long not in tb.describe(t)


# --------------------------------------------------------------------------- describe: other kinds


@pytest.mark.parametrize("T", [1, 4, 9])
def test_describe_mask_counts_the_allowed_pairs(T):
    mask = np.tril(np.ones((T, T)))
    labels = [str(i) for i in range(T)]
    t = tb.Table(mask, labels, labels, name="Causal mask", kind="mask", row_title="query", col_title="key")
    assert tb.describe(t) == (
        f"Causal mask, {T} × {T}: {T * (T + 1) // 2} of {T * T} query-key pairs may attend (1), the rest may not (0)."
    )


def test_describe_bars_one_row_and_groups():
    one = tb.Table([[0.2, 0.7, -0.4]], ["w"], ["a", "b", "c"], name="Weights", kind="bars")
    assert tb.describe(one) == "Weights: 3 bars. The highest is “b” (0.70), the lowest “c” (−0.40)."
    values = RNG.normal(size=(2, 5))
    labels = [f"k{j}" for j in range(5)]
    t = tb.Table(values, ["before", "after"], labels, name="Softmax", kind="bars")
    parts = []
    for name, row in zip(("before", "after"), values, strict=True):
        hi, lo = int(np.argmax(row)), int(np.argmin(row))
        parts.append(f"{name}: the highest is “k{hi}” ({_num(row[hi])}), the lowest “k{lo}” ({_num(row[lo])}).")
    assert tb.describe(t) == "Softmax: 5 bars per group. " + " ".join(parts)


def test_describe_lines_first_and_last_value_of_each_line():
    x = [1, 2, 4, 8, 16]
    values = RNG.normal(size=(5, 2))
    t = tb.Table(values, x, ["unscaled", "scaled"], name="Variance", kind="lines", row_title="d_k", col_title="line")
    assert tb.describe(t) == (
        f"Variance: 2 lines over d_k from 1 to 16; “unscaled” goes from {_num(values[0, 0])} to {_num(values[-1, 0])}; "
        f"“scaled” goes from {_num(values[0, 1])} to {_num(values[-1, 1])}."
    )
    single = tb.Table([[0.5], [2.0]], ["8", "512"], ["scores"], name="Cost", kind="lines", row_title="T")
    assert tb.describe(single) == "Cost: 1 line over T from 8 to 512; “scores” goes from 0.50 to 2.00."


def test_describe_signed_hand_made_with_scientific_notation():
    t = tb.Table([[1.0, -3.14159], [12345.6, 0.000123]], ["r0", "r1"], ["c0", "c1"], name="S")
    assert tb.describe(t) == (
        "S, 2 × 2, values from −3.14 to 1.23e+04. The largest in size is at row 1 “r1”, column 0 “c0” (1.23e+04)."
    )
    tiny = tb.Table([[0.000123, -0.5]], ["r"], ["a", "b"], name="T")
    assert tb.describe(tiny) == (
        "T, 1 × 2, values from −0.50 to 1.23e−04. The largest in size is at row 0 “r”, column 1 “b” (−0.50)."
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_describe_signed_against_numpy_with_masked_cells(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(5, 4)) * 3
    v[rng.random(v.shape) < 0.3] = -np.inf
    v[0, 0] = 0.5  # at least one finite cell
    finite = v[np.isfinite(v)]
    flat = np.where(np.isfinite(v), np.abs(v), -1.0)
    i, j = divmod(int(np.argmax(flat)), v.shape[1])
    masked = int(np.isneginf(v).sum())
    t = tb.Table(v, list("abcde"), list("wxyz"), name="Scores", row_title="query", col_title="key")
    expected = (
        f"Scores, 5 × 4, values from {_num(finite.min())} to {_num(finite.max())}. The largest in size is at "
        f"query {i} “{'abcde'[i]}”, key {j} “{'wxyz'[j]}” ({_num(v[i, j])})."
    )
    if masked:
        expected += f" {masked} of 20 cells are masked (−∞)."
    assert tb.describe(t) == expected


# --------------------------------------------------------------------------- labels, CSV, .npy, .npz


def test_labelled_numbers_each_label_so_repeats_differ():
    assert tb.labelled(("the", "cat", "the", "")) == ["0:the", "1:cat", "2:the", "3:"]
    assert tb.labelled(()) == []


def test_layers_and_heads_keep_their_own_numbers():
    """A layer or a head is named with its number from 1: no position from 0 is put before it."""
    from attn_core import numbering

    heads = tuple(numbering.head_name(h) for h in range(12))
    assert tb.labelled(heads) == list(heads) and tb.labelled(heads)[0] == "head 1"
    states = tuple(numbering.after_layer(k) for k in range(7))
    assert tb.labelled(states) == list(states)
    pairs = tuple(numbering.head_label(layer, h) for layer in range(2) for h in range(2))
    assert tb.labelled(pairs) == list(pairs)
    # Tokens that merely look like a layer's name, or repeat, are still numbered by position.
    assert tb.labelled(("layer 1", "layer 1")) == ["0:layer 1", "1:layer 1"]
    assert tb.labelled(("layer 1", "cat")) == ["0:layer 1", "1:cat"]


def _read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_to_csv_round_trips_every_float64_exactly():
    values = np.array(
        [
            [0.1 + 0.2, 1 / 3, -np.inf, 5e-324],
            [1e-300, -2.5e300, np.nextafter(1.0, 2.0), -0.0],
            [np.pi, -np.inf, 123456789.123456789, 1.0],
        ]
    )
    rows = ["the", 'say "hi"', "a,b"]
    cols = ["x", "line\nbreak", "ü猫", "4"]
    t = tb.Table(values, rows, cols, name="m", row_title="query", col_title="key")
    header, *body = _read_csv(tb.to_csv(t))
    assert header == ["query \\ key", *cols]
    assert [r[0] for r in body] == rows
    back = np.array([[float(x) for x in r[1:]] for r in body], dtype=np.float64)
    assert back.dtype == values.dtype and back.shape == values.shape
    assert back.tobytes() == values.tobytes()  # bit for bit: -inf, -0.0 and the subnormal too


def test_to_csv_float32_values_come_back_as_the_same_numbers():
    values = RNG.random((3, 3)).astype(np.float32)
    body = _read_csv(tb.to_csv(tb.Table(values, list("abc"), list("xyz"), name="w")))[1:]
    back = np.array([[float(x) for x in r[1:]] for r in body])
    assert_array_equal(back, values.astype(np.float64))


@pytest.mark.parametrize("label", ["=SUM(A1:A2)", "+1", "-2", "@cmd", "\tx", "\rx", "=", "-"])
def test_to_csv_quotes_labels_a_spreadsheet_would_run(label):
    t = tb.Table([[1.0, -2.0]], [label], [label, "ok"], name="m")
    header, row = _read_csv(tb.to_csv(t))
    assert header[1:] == ["'" + label, "ok"]
    assert row[0] == "'" + label
    assert row[1:] == ["1.0", "-2.0"]  # numbers, negative ones too, are written as they are


@pytest.mark.parametrize("label", ["a=b", "1+1", "x-y", "mail@x", " =x", "'=x", "−2", ""])
def test_to_csv_leaves_safe_labels_alone(label):
    header, row = _read_csv(tb.to_csv(tb.Table([[-1.5]], [label], [label], name="m")))
    assert header[1] == label and row[0] == label and row[1] == "-1.5"


@pytest.mark.parametrize("label", ["a\rb", "a\r\nb"])
def test_to_csv_round_trips_a_label_with_a_carriage_return(label):
    text = tb.to_csv(tb.Table([[1.0]], [label], ["k"], name="m"))
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["row \\ column", "k"], [label, "1.0"]]


def test_to_npy_round_trip_keeps_values_and_dtype():
    for values in (_weights(5, causal=True), RNG.normal(size=(2, 7)).astype(np.float32)):
        t = tb.Table(
            values, [str(i) for i in range(values.shape[0])], [str(j) for j in range(values.shape[1])], name="m"
        )
        back = np.load(io.BytesIO(tb.to_npy(t)), allow_pickle=False)
        assert back.dtype == values.dtype and back.shape == values.shape
        assert back.tobytes() == values.tobytes()


def test_to_npz_round_trip_with_settings():
    attentions = RNG.random((2, 3, 4, 4)).astype(np.float32)
    masked = _weights(4, causal=True)
    tokens = np.array(["[CLS]", "the", "猫", "[SEP]"])
    settings = {"model": "all-MiniLM-L6-v2", "layer": 3, "scale": 0.5, "causal": True, "text": 'ü "q"', "heads": [0, 2]}
    data = tb.to_npz({"attentions": attentions, "masked": masked, "tokens": tokens}, settings)
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:  # no pickled objects inside
        assert sorted(npz.files) == ["attentions", "masked", "settings", "tokens"]
        assert json.loads(str(npz["settings"])) == settings
        assert npz["attentions"].dtype == np.float32 and npz["attentions"].tobytes() == attentions.tobytes()
        assert npz["masked"].tobytes() == masked.tobytes()
        assert npz["tokens"].tolist() == tokens.tolist()


# --------------------------------------------------------------------------- head_table


def test_head_table_counts_layers_and_heads_from_1():
    values = RNG.random((3, 4))
    t = tb.head_table(values, "Attention to [CLS]")
    assert t.rows == ("layer 1", "layer 2", "layer 3")
    assert t.cols == ("head 1", "head 2", "head 3", "head 4")
    assert (t.row_title, t.col_title, t.name, t.kind) == ("layer", "head", "Attention to [CLS]", "signed")
    assert_array_equal(t.values, values)


def test_head_table_descriptions_name_layers_and_heads_by_their_labels():
    """A head table's rows are "layer 1", "layer 2" and its columns "head 1", ... (counted from 1):
    the description names the cell by those labels, never by a 0-based position beside them."""
    values = np.array([[0.1, 0.2], [0.9, 0.3]])
    text = tb.describe(tb.head_table(values, "Induction score"))
    assert "at layer 2, head 1 (0.90)" in text and "layer 1 " not in text
    weights = tb.Table(
        np.array([[0.25, 0.75]]), ["It"], ["the", "Cat"], name="w", kind="weights", row_title="query", col_title="key"
    )
    assert "Query 0 “It” puts most weight on key 1 “Cat” (0.75)" in tb.describe(weights)


def test_a_row_cut_from_a_longer_matrix_is_named_by_its_own_position():
    """The neuron view's q is one query's row: a table of one row whose first_row is the query's
    position. Its description and its table's labels say that position, as the token list does."""
    values, dims = np.array([[0.1, -2.0, 0.3]]), ["d0", "d1", "d2"]
    q = tb.Table(values, ["the"], dims, name="q", row_title="query", col_title="dimension", first_row=1)
    assert "at query 1 “the”, dimension 1 “d1” (−2.00)" in tb.describe(q)
    row = tb.Table(np.array([[0.2, 0.8]]), ["it"], ["a", "b"], name="w", kind="weights", row_title="query", first_row=7)
    assert tb.describe(row).split(". ")[1].startswith("Query 7 “it” puts most weight on column 1")
    assert tb.labelled(q.rows, q.first_row) == ["1:the"] and tb.labelled(("a", "b"), 3) == ["3:a", "4:b"]


def test_bad_shapes_and_names_raise_clear_errors():
    with pytest.raises(ValueError, match=r"\(L, H\)"):
        tb.head_table(np.zeros(4), "x")
    with pytest.raises(ValueError, match="settings"):
        tb.to_npz({"settings": np.zeros(2)}, {})


def test_weights_table_labels_queries_and_keys():
    w = np.array([[1.0, 0.0], [0.25, 0.75]])
    t = tb.weights_table(w, ["a", "b"], name="Layer 1, head 0")
    assert (t.kind, t.row_title, t.col_title, t.rows, t.cols) == ("weights", "query", "key", ("a", "b"), ("a", "b"))
    cross = tb.weights_table(w[:, :1], ["a", "b"], ["src"], name="cross")
    assert cross.cols == ("src",) and cross.values.shape == (2, 1)
    with pytest.raises(ValueError, match=r"len\(cols\)=2"):
        tb.weights_table(w[:, :1], ["a", "b"], name="shape")


def test_a_description_never_prints_minus_zero():
    """Values that round to zero are written 0.00, in the chart's accessible name as in the text."""
    t = tb.Table(np.array([[-0.004, -0.002], [-0.003, 0.001]]), ["a", "b"], ["c", "d"], name="tiny")
    text = tb.describe(t)
    assert "−0.00" not in text and "0.00" in text
    assert (tb.number(-0.004), tb.number(-0.25), tb.number(-0.0004, 3)) == ("0.00", "−0.25", "0.000")
