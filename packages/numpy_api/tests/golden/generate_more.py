"""Golden results of the set operations, edits, bit packing, polynomials, N-D histograms,
index tricks and ``linalg`` helpers under JAX 0.10.2 (x32).

Run with the JAX oracle's interpreter from this directory:
``python generate_more.py`` writes ``more.json``. Each case names a function
(``linalg.<name>`` for ``jax.numpy.linalg``; ``r_``, ``c_``, ``mgrid`` and
``ogrid`` take their index as ``args``), its array arguments (nested lists
with a dtype; ``None`` stands for NaN) and keyword arguments; the file records
every output's values, shape and dtype (tuples and lists one entry per element).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
from generate_setops import _arg, _record

A = {"data": [5, 1, 3, 3, 7], "dtype": "int32"}
B = {"data": [3, 9, 1, 1], "dtype": "int32"}
FA = {"data": [2.5, -1.0, 2.5, 0.0], "dtype": "float32"}
X = {"data": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], "dtype": "int32"}
BITS = {"data": [1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0], "dtype": "int32"}
B2 = {"data": [[1, 0, 1], [0, 1, 1]], "dtype": "bool"}
U8 = {"data": [177, 128, 3], "dtype": "uint8"}
PH = {"data": [0.0, 3.0, 6.5, 0.2, 3.3, -3.0], "dtype": "float32"}
SP = {"data": [1.0, -2.0, 0.0, 1e-30, 65504.0], "dtype": "float32"}
XS = {"data": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "dtype": "float32"}
YS = {"data": [1.0, 2.2, 4.8, 10.1, 17.2, 26.0], "dtype": "float32"}
Y2 = {
    "data": [[1.0, 0.0], [2.2, 1.0], [4.8, 3.0], [10.1, 2.0], [17.2, 5.0], [26.0, 4.0]],
    "dtype": "float32",
}
SAMPLE = {
    "data": [
        [0.1, 0.9],
        [0.4, 0.2],
        [0.35, 0.7],
        [0.9, 0.95],
        [0.5, 0.5],
        [0.05, 0.3],
        [0.8, 0.1],
        [0.6, 0.65],
    ],
    "dtype": "float32",
}
M53 = {
    "data": [[1.0, 2.0, 0.5], [0.0, 1.0, -1.0], [3.0, 0.0, 1.0], [1.0, 1.0, 1.0], [-2.0, 0.5, 0.0]],
    "dtype": "float32",
}
R5 = {"data": [1.0, 0.0, 2.0, -1.0, 0.5], "dtype": "float32"}
R52 = {"data": [[1.0, 2.0], [0.0, 1.0], [2.0, 0.0], [-1.0, 1.0], [0.5, 0.5]], "dtype": "float32"}
SQ = {
    "data": [
        [4.0, 1.0, 0.0, 0.0],
        [1.0, 3.0, 0.0, 1.0],
        [0.0, 0.0, 2.0, 0.0],
        [0.0, 1.0, 0.0, 5.0],
    ],
    "dtype": "float32",
}
T4 = {
    "data": [
        [[4.0, 1.0], [0.0, 0.0]],
        [[1.0, 3.0], [0.0, 1.0]],
        [[0.0, 0.0], [2.0, 0.0]],
        [[0.0, 1.0], [0.0, 5.0]],
    ],
    "dtype": "float32",
}
V3 = {"data": [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]], "dtype": "float32"}
W3 = {"data": [0.5, 1.0, -1.0], "dtype": "float32"}
ST = {"data": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float32"}

CASES: list[dict[str, Any]] = [
    {"fn": "intersect1d", "args": [A, B], "kw": {}},
    {"fn": "intersect1d", "args": [A, B], "kw": {"return_indices": True}},
    {"fn": "intersect1d", "args": [A, B], "kw": {"size": 4}},
    {"fn": "intersect1d", "args": [A, B], "kw": {"size": 4, "fill_value": -1}},
    {"fn": "intersect1d", "args": [A, B], "kw": {"size": 3, "return_indices": True}},
    {"fn": "intersect1d", "args": [FA, B], "kw": {}},
    {"fn": "setdiff1d", "args": [A, B], "kw": {}},
    {"fn": "setdiff1d", "args": [A, B], "kw": {"size": 4}},
    {"fn": "setdiff1d", "args": [B, A], "kw": {"size": 3, "fill_value": 42}},
    {"fn": "setxor1d", "args": [A, B], "kw": {}},
    {"fn": "setxor1d", "args": [A, B], "kw": {"size": 6}},
    {"fn": "setxor1d", "args": [A, FA], "kw": {"size": 8, "fill_value": -1}},
    {"fn": "union1d", "args": [A, B], "kw": {}},
    {"fn": "union1d", "args": [A, FA], "kw": {"size": 9}},
    {"fn": "delete", "args": [X, 1], "kw": {"axis": 1}},
    {"fn": "delete", "args": [X, -1], "kw": {}},
    {"fn": "delete", "args": [X, {"data": [0, 2], "dtype": "int32"}], "kw": {"axis": 1}},
    {
        "fn": "delete",
        "args": [X, {"data": [2, 0], "dtype": "int32"}],
        "kw": {"axis": 1, "assume_unique_indices": True},
    },
    {
        "fn": "delete",
        "args": [X, {"data": [True, False, True], "dtype": "bool"}],
        "kw": {"axis": 0},
    },
    {"fn": "insert", "args": [X, 1, 0], "kw": {"axis": 1}},
    {
        "fn": "insert",
        "args": [X, {"data": [1, 3], "dtype": "int32"}, {"data": [7, 8], "dtype": "int32"}],
        "kw": {"axis": 1},
    },
    {
        "fn": "insert",
        "args": [X, -1, {"data": [1.5, 2.5, 3.5, 4.5], "dtype": "float32"}],
        "kw": {"axis": 0},
    },
    {"fn": "insert", "args": [A, 2, 9], "kw": {}},
    {
        "fn": "extract",
        "args": [
            {
                "data": [[True, False, True, True], [False] * 4, [True, False, False, False]],
                "dtype": "bool",
            },
            X,
        ],
        "kw": {},
    },
    {"fn": "extract", "args": [X, X], "kw": {"size": 10, "fill_value": -1}},
    {
        "fn": "place",
        "args": [
            X,
            {
                "data": [[True, False, True, True], [False] * 4, [True, False, False, False]],
                "dtype": "bool",
            },
            {"data": [-1, -2], "dtype": "int32"},
        ],
        "kw": {"inplace": False},
    },
    {"fn": "trim_zeros", "args": [{"data": [0, 0, 1, 2, 0, 3, 0], "dtype": "int32"}], "kw": {}},
    {
        "fn": "trim_zeros",
        "args": [{"data": [0, 0, 1, 2, 0], "dtype": "int32"}],
        "kw": {"trim": "b"},
    },
    {"fn": "packbits", "args": [BITS], "kw": {}},
    {"fn": "packbits", "args": [BITS], "kw": {"bitorder": "little"}},
    {"fn": "packbits", "args": [B2], "kw": {"axis": 0}},
    {"fn": "unpackbits", "args": [U8], "kw": {}},
    {"fn": "unpackbits", "args": [U8], "kw": {"count": 10, "bitorder": "little"}},
    {"fn": "unpackbits", "args": [U8], "kw": {"count": 30}},
    {"fn": "spacing", "args": [SP], "kw": {}},
    {"fn": "spacing", "args": [{"data": [1, -3], "dtype": "int32"}], "kw": {}},
    {"fn": "unwrap", "args": [PH], "kw": {}},
    {"fn": "unwrap", "args": [{"data": [0, 5, 1, 7, 2], "dtype": "int32"}], "kw": {"period": 6}},
    {"fn": "unwrap", "args": [PH], "kw": {"discont": 4.0}},
    {"fn": "sort_complex", "args": [{"data": [3, 1, 2], "dtype": "int32"}], "kw": {}},
    {"fn": "sort_complex", "args": [FA], "kw": {}},
    {"fn": "poly", "args": [{"data": [1.0, 2.0, -3.0], "dtype": "float32"}], "kw": {}},
    {"fn": "poly", "args": [{"data": [1, 2], "dtype": "int32"}], "kw": {}},
    {
        "fn": "polydiv",
        "args": [
            {"data": [1.0, 3.0, 2.0, 5.0], "dtype": "float32"},
            {"data": [2.0, 1.0], "dtype": "float32"},
        ],
        "kw": {},
    },
    {"fn": "polyfit", "args": [XS, YS, 2], "kw": {}},
    {"fn": "polyfit", "args": [XS, Y2, 1], "kw": {}},
    {"fn": "polyfit", "args": [XS, YS, 2], "kw": {"full": True}},
    {"fn": "polyfit", "args": [XS, YS, 1], "kw": {"w": XS}},
    {"fn": "polyfit", "args": [XS, YS, 2], "kw": {"cov": True}},
    {"fn": "histogramdd", "args": [SAMPLE], "kw": {"bins": 3}},
    {"fn": "histogramdd", "args": [SAMPLE], "kw": {"bins": [2, 3], "density": True}},
    {
        "fn": "histogramdd",
        "args": [SAMPLE],
        "kw": {"bins": 2, "range": [(0.0, 1.0), None], "weights": XS | {"data": list(range(8))}},
    },
    {"fn": "histogram2d", "args": [XS, YS], "kw": {"bins": 3}},
    {"fn": "histogram2d", "args": [XS, YS], "kw": {"bins": (2, 4), "density": True}},
    {
        "fn": "r_",
        "args": [],
        "kw": {},
        "index": ["slice(1, 4)", 0, {"data": [7, 8], "dtype": "int32"}],
    },
    {
        "fn": "r_",
        "args": [],
        "kw": {},
        "index": ["'0,2'", {"data": [1, 2], "dtype": "int32"}, {"data": [3, 4], "dtype": "int32"}],
    },
    {"fn": "r_", "args": [], "kw": {}, "index": ["'r'", "slice(0, 1, 5j)"]},
    {
        "fn": "c_",
        "args": [],
        "kw": {},
        "index": [{"data": [1, 2], "dtype": "int32"}, {"data": [3.5, 4], "dtype": "float32"}],
    },
    {"fn": "c_", "args": [], "kw": {}, "index": ["'0,2,0'", {"data": [1, 2], "dtype": "int32"}, 5]},
    {"fn": "mgrid", "args": [], "kw": {}, "index": ["slice(0, 2)", "slice(0, 3)"]},
    {"fn": "mgrid", "args": [], "kw": {}, "index": ["slice(-1, 1, 3j)", "slice(0, 2)"]},
    {"fn": "mgrid", "args": [], "kw": {}, "index": ["slice(0, 4, 2)"]},
    {"fn": "ogrid", "args": [], "kw": {}, "index": ["slice(0, 2)", "slice(1, 4, 0.5)"]},
    {"fn": "linalg.lstsq", "args": [M53, R5], "kw": {}},
    {"fn": "linalg.lstsq", "args": [M53, R52], "kw": {"rcond": 0.5}},
    {"fn": "linalg.matrix_norm", "args": [SQ], "kw": {}},
    {"fn": "linalg.matrix_norm", "args": [T4], "kw": {"ord": 1, "keepdims": True}},
    {"fn": "linalg.matrix_norm", "args": [SQ], "kw": {"ord": "nuc"}},
    {"fn": "linalg.matrix_transpose", "args": [T4], "kw": {}},
    {"fn": "linalg.outer", "args": [W3, R5], "kw": {}},
    {"fn": "linalg.cross", "args": [V3, W3], "kw": {}},
    {"fn": "linalg.trace", "args": [T4], "kw": {"offset": 1}},
    {"fn": "linalg.trace", "args": [X], "kw": {"dtype": "float32"}},
    {"fn": "linalg.vecdot", "args": [V3, W3], "kw": {}},
    {"fn": "linalg.matmul", "args": [V3, M53 | {"data": M53["data"][:3]}], "kw": {}},
    {"fn": "linalg.tensordot", "args": [T4, ST], "kw": {"axes": 2}},
    {"fn": "linalg.tensordot", "args": [V3, W3], "kw": {"axes": ([1], [0])}},
    {"fn": "linalg.tensorinv", "args": [T4], "kw": {"ind": 1}},
    {
        "fn": "linalg.tensorsolve",
        "args": [SQ | {"data": np.reshape(SQ["data"], (2, 2, 4)).tolist()}, ST],
        "kw": {},
    },
    {
        "fn": "linalg.multi_dot",
        "args": [
            [
                W3,
                SQ | {"data": [r[:3] for r in SQ["data"][:3]]},
                V3 | {"data": np.transpose(V3["data"]).tolist()},
            ]
        ],
        "kw": {},
    },
]


def _index(case: dict[str, Any]) -> Any:
    out = []
    for item in case["index"]:
        out.append(eval(item) if isinstance(item, str) else _arg(item))
    return tuple(out) if len(out) > 1 else out[0]


def call(ns: Any, case: dict[str, Any]) -> Any:
    """Run one case against a ``jax.numpy``-like namespace ``ns``."""
    name = case["fn"]
    if "index" in case:
        return getattr(ns, name)[_index(case)]
    target = ns
    for part in name.split("."):
        target = getattr(target, part)
    args = [[_arg(a) for a in x] if isinstance(x, list) else _arg(x) for x in case["args"]]
    return target(*args, **{k: _arg(v) for k, v in case["kw"].items()})


def record(e: Any) -> dict[str, Any]:
    """:func:`generate_setops._record`, complex values as ``[real, imag]`` pairs."""
    value = np.asarray(e)
    if not np.iscomplexobj(value):
        return _record(value)
    pairs = [[float(v.real), float(v.imag)] for v in value.ravel().tolist()]
    return {"value": pairs, "shape": list(value.shape), "dtype": str(value.dtype)}


def main() -> None:
    import jax.numpy as jnp

    out = []
    for case in CASES:
        r = call(jnp, case)
        multi = isinstance(r, tuple | list)
        flat: list[Any] = []
        for e in r if multi else [r]:
            flat.extend(e if isinstance(e, list) else [e])
        out.append({**case, "tuple": multi, "outputs": [record(e) for e in flat]})
    path = pathlib.Path(__file__).parent / "more.json"
    path.write_text(json.dumps({"jax_version": "0.10.2", "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
