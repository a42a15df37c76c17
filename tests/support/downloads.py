"""Download files read back: a chart's CSV (a labelled matrix) and .npy, and what they must hold.
Plain Python, shared by the AppTest download table (tests/app/test_downloads.py) and the browser
test that clicks a real download button (tests/browser/test_exports.py)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

CSV_RISKY = ("=", "+", "-", "@", "\t", "\r")  # labels a CSV cell guards with a leading apostrophe
WEIGHTS = "query \\ key"  # the corner cell of every attention chart's CSV


@dataclass(frozen=True)
class Matrix:
    """What a chart's CSV and .npy must hold: the engine's values and the chart's labels."""

    values: np.ndarray
    rows: list[str]
    cols: list[str]
    corner: str = WEIGHTS


@dataclass(frozen=True)
class CsvTable:
    corner: str
    cols: list[str]
    rows: list[str]
    values: np.ndarray  # (len(rows), len(cols)) float64


def unguard(label: str) -> str:
    """A CSV label without the apostrophe that keeps a spreadsheet from running it."""
    return label[1:] if label.startswith("'") and label[1:].startswith(CSV_RISKY) else label


def read_csv(data: bytes) -> CsvTable:
    """A labelled matrix from CSV: a corner cell and the column labels, then one row per
    label; numbers parsed with float()."""
    lines = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    header, body = lines[0], lines[1:]
    assert all(len(line) == len(header) for line in body), "ragged CSV"
    return CsvTable(
        corner=header[0],
        cols=[unguard(c) for c in header[1:]],
        rows=[unguard(line[0]) for line in body],
        values=np.array([[float(x) for x in line[1:]] for line in body], dtype=np.float64),
    )


def npy(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


def npz(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:  # no pickled objects inside
        return {name: saved[name] for name in saved.files}


def check_csv(data: bytes, expected: Matrix, exact: bool = True) -> CsvTable:
    """The CSV holds the expected matrix, with the chart's labels on its rows and columns."""
    table = read_csv(data)
    assert (table.corner, table.rows, table.cols) == (expected.corner, expected.rows, expected.cols)
    want = np.asarray(expected.values, dtype=np.float64)
    assert table.values.shape == want.shape
    if exact:
        assert np.array_equal(table.values, want), "the CSV differs from the engine"
    else:
        assert np.allclose(table.values, want, rtol=0, atol=1e-6), "the CSV differs from the engine"
    return table


def check_npy(data: bytes, expected: Matrix, exact: bool = True) -> None:
    """The .npy is the expected matrix, in the engine's own dtype."""
    saved = npy(data)
    assert saved.shape == expected.values.shape and saved.dtype == expected.values.dtype
    if exact:
        assert np.array_equal(saved, expected.values), "the .npy differs from the engine"
    else:
        assert np.allclose(saved, expected.values, rtol=0, atol=1e-6), "the .npy differs from the engine"
