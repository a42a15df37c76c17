"""NumPy layer: imports numpy, the standard library and attn_core's other NumPy modules only.

What a chart shows, as numbers: a labelled table, its one-sentence description, and the
bytes of its CSV and .npy downloads.

The description is a chart's text alternative (a screen reader reads it as the chart's
name); the table is the same matrix with token labels, for a screen reader or for a teacher
who wants exact numbers on the projector. NumPy and the standard library only.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from .numbering import head_name, layer_name

__all__ = ["KINDS", "Table", "describe", "head_table", "labelled", "to_csv", "to_npy", "to_npz"]

KINDS = ("weights", "signed", "bars", "lines", "mask")
_CSV_RISKY = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run a cell that starts so


@dataclass(frozen=True)
class Table:
    """A chart's numbers: ``values`` (n_rows, n_cols) with a label per row and per column.

    kind: "weights" (rows of attention weights), "signed" (any matrix), "bars" (one row of
    values, one bar per column), "lines" (one column per line, one row per x value), "mask"
    (1 = may attend). Masked cells are -inf.
    """

    values: np.ndarray
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    name: str  # what the chart shows, e.g. "Attention weights"
    kind: str = "signed"
    row_title: str = "row"
    col_title: str = "column"
    extra: dict = field(default_factory=dict)  # more arrays for the .npz (e.g. tokens), not described
    first_row: int = 0  # the position of the first row: a one-row table cut from a longer matrix (one query)

    def __post_init__(self) -> None:
        values = np.asarray(self.values)
        if values.ndim != 2 or values.shape != (len(self.rows), len(self.cols)):
            raise ValueError(
                f"values must have shape (len(rows)={len(self.rows)}, len(cols)={len(self.cols)}), got {values.shape}"
            )
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "rows", tuple(str(r) for r in self.rows))
        object.__setattr__(self, "cols", tuple(str(c) for c in self.cols))


def weights_table(weights: np.ndarray, rows, cols=None, *, name: str) -> Table:
    """A (T_q, T_k) matrix of attention weights: queries down, keys across (``cols`` defaults to ``rows``)."""
    cols = rows if cols is None else cols
    return Table(weights, tuple(rows), tuple(cols), name=name, kind="weights", row_title="query", col_title="key")


def head_table(values: np.ndarray, name: str) -> Table:
    """One number per head, values (L, H): rows "layer 1", "layer 2", ..., columns "head 1", ...
    (layers and heads counted from 1, as every page names them: attn_core.numbering)."""
    values = np.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"values must have shape (L, H), one number per layer and head, got {values.shape}")
    L, H = values.shape
    rows, cols = [layer_name(layer) for layer in range(L)], [head_name(h) for h in range(H)]
    return Table(values, rows, cols, name=name, row_title="layer", col_title="head")


def _q(label: str, limit: int = 24) -> str:
    label = label if len(label) <= limit else label[: limit - 1] + "…"
    return f"“{label}”"


def number(value: float, digits: int = 2) -> str:
    """A number for a sentence: ``digits`` decimals, a real minus sign, and no "−0.00"."""
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", "−")


def _n(value: float) -> str:
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-3):
        return f"{value:.2e}".replace("-", "−")
    return number(value)


def _at(title: str, index: int, label: str) -> str:
    """Where a row or column is: "query 3 “the”", or just "layer 2" when the label already
    names it by its title (a head table's rows and columns)."""
    if label.startswith(f"{title} "):
        return label
    return f"{title} {index} {_q(label)}"


def _first_up(text: str) -> str:
    return text[:1].upper() + text[1:]  # not str.capitalize, which lowercases the token after it


def describe(table: Table, focus_row: int | None = None) -> str:
    """One or two sentences that say what the chart shows, computed from its numbers.

    For attention weights: the size, and where row ``focus_row`` (or the row holding the
    largest weight) puts most of its weight.
    """
    v = np.asarray(table.values, dtype=np.float64)
    n_rows, n_cols = v.shape
    finite = np.isfinite(v)
    head = f"{table.name}, {n_rows} × {n_cols}"
    if v.size == 0 or not finite.any():
        return f"{head}, with no values to show."
    masked = int(np.isneginf(v).sum())
    masked_text = f" {masked} of {v.size} cells are masked (−∞)." if masked else ""
    if table.kind == "weights":
        tops = np.max(np.where(finite, v, -np.inf), axis=1)  # (n_rows,) each row's largest weight
        if focus_row is not None:
            row = min(max(int(focus_row), 0), n_rows - 1)
        else:  # the most decided row that had a choice (a causal first row can only look at itself)
            choosing = (np.sum(v > 0, axis=1) > 1) & (tops < 1 - 1e-9)
            row = int(np.argmax(np.where(choosing, tops, -np.inf))) if choosing.any() else int(np.argmax(tops))
        col = int(np.argmax(np.where(finite[row], v[row], -np.inf)))
        return (
            f"{head} ({table.row_title} by {table.col_title}). "
            f"{_first_up(_at(table.row_title, row + table.first_row, table.rows[row]))} puts most weight on "
            f"{_at(table.col_title, col, table.cols[col])} "
            f"({_n(v[row, col])}); averaged over the rows, a row's largest weight is {_n(float(np.mean(tops)))}."
            f"{masked_text}"
        )
    if table.kind == "mask":
        allowed = int((v == 1).sum())
        return f"{head}: {allowed} of {v.size} query-key pairs may attend (1), the rest may not (0)."
    if table.kind == "bars":
        parts = []
        for r, values in enumerate(v):
            hi, lo = int(np.nanargmax(values)), int(np.nanargmin(values))
            whose = f"{table.rows[r]}: the" if n_rows > 1 else "The"
            parts.append(
                f"{whose} highest is {_q(table.cols[hi])} ({_n(values[hi])}), the lowest {_q(table.cols[lo])} "
                f"({_n(values[lo])})."
            )
        return f"{table.name}: {n_cols} bars{' per group' if n_rows > 1 else ''}. " + " ".join(parts)
    if table.kind == "lines":
        parts = [f"{_q(name)} goes from {_n(v[0, c])} to {_n(v[-1, c])}" for c, name in enumerate(table.cols)]
        return (
            f"{table.name}: {n_cols} line{'s' if n_cols > 1 else ''} over {table.row_title} from "
            f"{table.rows[0]} to {table.rows[-1]}; " + "; ".join(parts) + "."
        )
    flat = np.where(finite, v, np.nan)
    i, j = np.unravel_index(np.nanargmax(np.abs(flat)), v.shape)
    return (
        f"{head}, values from {_n(np.nanmin(flat))} to {_n(np.nanmax(flat))}. The largest in size is at "
        f"{_at(table.row_title, i + table.first_row, table.rows[i])}, {_at(table.col_title, j, table.cols[j])} "
        f"({_n(v[i, j])})." + masked_text
    )


# Labels that carry their own number, counted from 1 (attn_core.numbering): "layer 3", "head 1",
# "layer 3, head 1", "after layer 2", "the embeddings".
NAMED = re.compile(r"layer \d+(, head \d+)?|head \d+|after layer \d+|the embeddings")


def labelled(labels: tuple[str, ...], start: int = 0) -> list[str]:
    """Labels made unique by their position ("0:the", "4:the"), for a table's header; ``start``:
    the first label's position (a table's ``first_row``). Layers and heads, already unique and
    numbered from 1, keep their own names: a position counted from 0 beside them ("0:layer 1")
    would contradict their number."""
    if labels and len(set(labels)) == len(labels) and all(NAMED.fullmatch(label) for label in labels):
        return list(labels)
    return [f"{n}:{label}" for n, label in enumerate(labels, start)]


def _csv_cell(label: str) -> str:
    """A label as a spreadsheet cell: one that would start a formula gets a leading quote."""
    return "'" + label if label.startswith(_CSV_RISKY) else label


def to_csv(table: Table) -> str:
    """The table as CSV: a header of column labels, then one row per row label. Numbers are
    written with repr, so they parse back to exactly the same float64 (-inf for masked)."""
    out = io.StringIO()
    # "\r\n", as RFC 4180 has it: the writer then quotes any label holding a bare "\r" too.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([f"{table.row_title} \\ {table.col_title}", *map(_csv_cell, table.cols)])
    for label, row in zip(table.rows, np.asarray(table.values, dtype=np.float64), strict=True):
        writer.writerow([_csv_cell(label), *(repr(float(x)) for x in row)])
    return out.getvalue()


def to_npy(table: Table) -> bytes:
    """The matrix alone as a .npy file (numpy.load reads it back)."""
    out = io.BytesIO()
    np.save(out, np.asarray(table.values), allow_pickle=False)
    return out.getvalue()


def to_npz(arrays: dict[str, np.ndarray], settings: dict) -> bytes:
    """Several named arrays in one .npz, with the settings as a JSON string under "settings"."""
    if "settings" in arrays:
        raise ValueError('"settings" is the name of the settings entry; give the array another name')
    out = io.BytesIO()
    plain = {name: np.asarray(a) for name, a in arrays.items()}
    np.savez(out, settings=np.array(json.dumps(settings, sort_keys=True)), **plain)
    return out.getvalue()
