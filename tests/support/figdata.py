"""Read chart data back from Plotly figure JSON, as Streamlit sends it to the browser."""

from __future__ import annotations

import base64
import json

import numpy as np

_DTYPES = {
    "f8": np.float64,
    "f4": np.float32,
    "i1": np.int8,
    "u1": np.uint8,
    "i2": np.int16,
    "u2": np.uint16,
    "i4": np.int32,
    "u4": np.uint32,
    "i8": np.int64,
    "u8": np.uint64,
}


def decode(value):
    """A Plotly array, plain list or base64 typed array ({'dtype', 'bdata', 'shape'}), as ndarray."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=_DTYPES[value["dtype"]])
        if "shape" in value:
            shape = value["shape"]
            shape = [int(s) for s in shape.split(",")] if isinstance(shape, str) else shape
            arr = arr.reshape(shape)
        return arr
    if isinstance(value, list):
        return np.array([np.nan if v is None else v for v in value], dtype=object if _ragged(value) else None)
    return np.asarray(value)


def _ragged(value):
    return any(isinstance(v, list | dict) for v in value)


def z_matrix(trace: dict) -> np.ndarray:
    """A heatmap trace's z as a float matrix (null -> nan)."""
    z = trace["z"]
    if isinstance(z, dict):
        return decode(z).astype(np.float64)
    return np.array(
        [[np.nan if v is None else v for v in (decode(r) if isinstance(r, dict) else r)] for r in z], dtype=np.float64
    )


def figures(at) -> list[dict]:
    """Every plotly chart of an AppTest run, as parsed figure dicts, in page order."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def figure_by_title(at, text: str) -> dict:
    """The first figure whose title contains ``text``."""
    for fig in figures(at):
        title = fig.get("layout", {}).get("title", {})
        title = title.get("text", "") if isinstance(title, dict) else str(title)
        if text in title:
            return fig
    raise AssertionError(f"no figure titled {text!r}")
