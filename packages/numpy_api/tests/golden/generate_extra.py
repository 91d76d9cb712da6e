"""Golden results of the statistics functions under JAX 0.10.2 (x32): values and dtypes.

Run with the JAX oracle's interpreter from this directory:
``python generate_extra.py`` writes ``extra.json``. Each case is a function
name, its array arguments (as nested lists with a dtype) and keyword
arguments; the file records JAX's result value, dtype and weak type.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

X = {"data": [[3.0, None, 1.0, 1.0, 7.5], [2.0, None, 5.0, 0.0, -1.0]], "dtype": "float32"}
INTS = {"data": [3, 1, 1, 2, 5, 8], "dtype": "int32"}
R = {"data": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "dtype": "float32"}

CASES: list[dict[str, Any]] = [
    {"fn": "quantile", "args": [R, 0.5], "kw": {"method": "nearest"}},
    {
        "fn": "quantile",
        "args": [R, {"data": [0.1, 0.3, 0.7, 0.9], "dtype": "float32"}],
        "kw": {"method": "nearest"},
    },
    {"fn": "quantile", "args": [INTS, 0.3], "kw": {"method": "lower"}},
    {"fn": "quantile", "args": [R, 1.3], "kw": {}},
    {"fn": "percentile", "args": [INTS, 30], "kw": {}},
    {
        "fn": "nanquantile",
        "args": [X, {"data": [0.25, 0.5], "dtype": "float32"}],
        "kw": {"axis": 1},
    },
    {
        "fn": "nanpercentile",
        "args": [X, 40.0],
        "kw": {"axis": 1, "method": "midpoint", "keepdims": True},
    },
    {"fn": "quantile", "args": [X, 0.5], "kw": {"axis": 1}},
    {"fn": "median", "args": [INTS], "kw": {}},
    {"fn": "nanmedian", "args": [X], "kw": {"axis": 0}},
    {"fn": "nansum", "args": [INTS], "kw": {}},
    {"fn": "nanmean", "args": [INTS], "kw": {}},
    {"fn": "nanmean", "args": [X], "kw": {"axis": 1}},
    {"fn": "nanvar", "args": [X], "kw": {"axis": 1, "ddof": 1}},
    {"fn": "nanvar", "args": [X], "kw": {"axis": 0, "ddof": 1}},
    {"fn": "nanstd", "args": [X], "kw": {}},
    {"fn": "nanmax", "args": [X], "kw": {"axis": 0}},
    {"fn": "nanmin", "args": [X], "kw": {"axis": 1, "keepdims": True}},
    {"fn": "nancumsum", "args": [X], "kw": {"axis": 1}},
    {"fn": "nancumprod", "args": [INTS], "kw": {}},
    {"fn": "average", "args": [INTS], "kw": {}},
    {"fn": "cov", "args": [{"data": [[0, 1, 2], [2, 1, 0]], "dtype": "int32"}], "kw": {}},
    {"fn": "corrcoef", "args": [R], "kw": {}},
]


def _arg(v: Any) -> Any:
    if isinstance(v, dict):
        data = [
            [np.nan if e is None else e for e in row]
            if isinstance(row, list)
            else (np.nan if row is None else row)
            for row in v["data"]
        ]
        return np.asarray(data, dtype=v["dtype"])
    return v


def main() -> None:
    import jax.numpy as jnp

    out = []
    for case in CASES:
        r = getattr(jnp, case["fn"])(*(_arg(a) for a in case["args"]), **case["kw"])
        value = np.asarray(r)
        out.append(
            {
                **case,
                "value": [None if np.isnan(v) else float(v) for v in value.ravel().tolist()],
                "shape": list(value.shape),
                "dtype": str(value.dtype),
                "weak_type": bool(r.weak_type),
            }
        )
    path = pathlib.Path(__file__).parent / "extra.json"
    path.write_text(json.dumps({"jax_version": "0.10.2", "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
