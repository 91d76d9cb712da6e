"""Golden results of the data-dependent-size and histogram functions under JAX 0.10.2 (x32).

Run with the JAX oracle's interpreter from this directory:
``python generate_setops.py`` writes ``setops.json``. Each case is a function
name, its array arguments (nested lists with a dtype; ``None`` stands for NaN)
and keyword arguments; the file records every output's values, shape and dtype
(a function returning a tuple records one entry per element).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

F = {"data": [3.0, 1.0, None, 1.0, None, 2.0, -0.0, 0.0], "dtype": "float32"}
I2 = {"data": [[0, 3, 0], [2, 0, 1]], "dtype": "int32"}
ROWS = {"data": [[1.0, 2.0], [1.0, 2.0], [0.0, None], [0.0, None], [0.0, 5.0]], "dtype": "float32"}
B = {"data": [1, 1, 3, 0, 7, 3], "dtype": "int32"}
W = {"data": [0.5, 1.0, 2.0, 0.25, 1.0, 3.0], "dtype": "float32"}
X = {"data": [-1.0, 0.0, 0.5, 2.0, 2.5, 3.0, 9.0], "dtype": "float32"}
XP = {"data": [0.0, 1.0, 2.0, 3.0], "dtype": "float32"}
FP = {"data": [1.0, 3.0, 2.0, 5.0], "dtype": "float32"}
P = {"data": [[5, 1, 4, 1, 3], [2, 2, 0, 9, 7]], "dtype": "int32"}

CASES: list[dict[str, Any]] = [
    {"fn": "nonzero", "args": [I2], "kw": {}},
    {"fn": "nonzero", "args": [I2], "kw": {"size": 5, "fill_value": -1}},
    {"fn": "nonzero", "args": [I2], "kw": {"size": 2}},
    {"fn": "argwhere", "args": [I2], "kw": {"size": 4}},
    {"fn": "flatnonzero", "args": [F], "kw": {"size": 9, "fill_value": 99}},
    {"fn": "unique", "args": [F], "kw": {}},
    {"fn": "unique", "args": [F], "kw": {"equal_nan": False}},
    {
        "fn": "unique",
        "args": [F],
        "kw": {"return_index": True, "return_inverse": True, "return_counts": True, "size": 7},
    },
    {
        "fn": "unique",
        "args": [F],
        "kw": {"return_index": True, "return_counts": True, "size": 8, "fill_value": 42.0},
    },
    {"fn": "unique", "args": [F], "kw": {"return_counts": True, "size": 2}},
    {
        "fn": "unique",
        "args": [ROWS],
        "kw": {"axis": 0, "return_inverse": True, "return_counts": True},
    },
    {"fn": "unique", "args": [ROWS], "kw": {"axis": 0, "size": 5, "fill_value": 9.0}},
    {"fn": "unique", "args": [I2], "kw": {"return_inverse": True}},
    {"fn": "unique_all", "args": [F], "kw": {}},
    {"fn": "unique_counts", "args": [F], "kw": {"size": 8}},
    {"fn": "unique_inverse", "args": [I2], "kw": {}},
    {"fn": "unique_values", "args": [F], "kw": {}},
    {"fn": "bincount", "args": [B], "kw": {}},
    {"fn": "bincount", "args": [B, W], "kw": {"minlength": 10}},
    {"fn": "bincount", "args": [B], "kw": {"length": 4}},
    {"fn": "digitize", "args": [X, XP], "kw": {}},
    {"fn": "digitize", "args": [X, XP], "kw": {"right": True}},
    {"fn": "histogram", "args": [X], "kw": {"bins": 4}},
    {"fn": "histogram", "args": [B], "kw": {"bins": 3, "range": (0, 6), "density": True}},
    {"fn": "histogram_bin_edges", "args": [B], "kw": {"bins": 5}},
    {"fn": "interp", "args": [X, XP, FP], "kw": {}},
    {"fn": "interp", "args": [X, XP, FP], "kw": {"left": -5.0, "right": "extrapolate"}},
    {"fn": "interp", "args": [X, XP, FP], "kw": {"period": 2.5}},
    {"fn": "polyval", "args": [FP, X], "kw": {}},
    {"fn": "partition", "args": [P, 2], "kw": {}},
    {"fn": "argpartition", "args": [P, 1], "kw": {"axis": 0}},
    {"fn": "argpartition", "args": [P, -2], "kw": {}},
    {"fn": "lexsort", "args": [P], "kw": {}},
    {"fn": "put", "args": [P, B, 9], "kw": {"inplace": False}},
    {"fn": "put", "args": [P, B, -1], "kw": {"mode": "wrap", "inplace": False}},
]


def _arg(v: Any) -> Any:
    if isinstance(v, dict):

        def fix(e: Any) -> Any:
            if isinstance(e, list):
                return [fix(i) for i in e]
            return np.nan if e is None else e

        return np.asarray(fix(v["data"]), dtype=v["dtype"])
    return v


def _record(r: Any) -> dict[str, Any]:
    value = np.asarray(r)
    flat = value.ravel().tolist()
    return {
        "value": [None if isinstance(v, float) and np.isnan(v) else v for v in flat],
        "shape": list(value.shape),
        "dtype": str(value.dtype),
    }


def main() -> None:
    import jax.numpy as jnp

    out = []
    for case in CASES:
        r = getattr(jnp, case["fn"])(*(_arg(a) for a in case["args"]), **case["kw"])
        outs = [_record(e) for e in r] if isinstance(r, tuple) else [_record(r)]
        out.append({**case, "tuple": isinstance(r, tuple), "outputs": outs})
    path = pathlib.Path(__file__).parent / "setops.json"
    path.write_text(json.dumps({"jax_version": "0.10.2", "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
