"""Golden cases of sorting, searching, ``take``, ``linalg.norm`` and scalar types.

Appended to ``cases.CASES`` / ``cases.ERRORS`` by ``cases.py``; like it, this
module imports neither JAX nor Tessela.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import Case

SORT_CASES: list[Case] = []
SORT_ERRORS: list[Case] = []


def case(
    name: str,
    build: Callable[[Any], Callable[..., Any]],
    *inputs: str,
    numpy: bool = True,
    jaxpr: bool = True,
) -> None:
    SORT_CASES.append(Case(name, build, inputs, numpy, jaxpr))


def error_case(name: str, build: Callable[[Any], Callable[..., Any]], *inputs: str) -> None:
    SORT_ERRORS.append(Case(name, build, inputs, False, False))


# ----------------------------------------------------------------- sort / argsort
case("sort_last", lambda m: lambda x: m.sort(x), "f32[3,4]")
case("sort_axis0", lambda m: lambda x: m.sort(x, axis=0), "i32[3,4]")
case("sort_none", lambda m: lambda x: m.sort(x, axis=None), "f32[3,4]")
case("sort_desc", lambda m: lambda x: m.sort(x, descending=True), "f32[3,4]", numpy=False)
case("sort_unstable", lambda m: lambda x: m.sort(x, stable=False), "u8[5]", numpy=False)
case("sort_bool", lambda m: lambda x: m.sort(x), "bool[4]")
case("argsort_last", lambda m: lambda x: m.argsort(x), "f32[3,4]")
case("argsort_axis0", lambda m: lambda x: m.argsort(x, axis=0), "i8[3,4]")
case("argsort_none", lambda m: lambda x: m.argsort(x, axis=None), "f32[3,4]")
case("argsort_desc", lambda m: lambda x: m.argsort(x, descending=True), "f32[3,4]", numpy=False)
case(
    "argsort_desc_unstable",
    lambda m: lambda x: m.argsort(x, descending=True, stable=False),
    "f32[5]",
    numpy=False,
)
case("argsort_unstable", lambda m: lambda x: m.argsort(x, stable=False), "f16[5]", numpy=False)
case("argsort_dtype", lambda m: lambda x: m.argsort(x, dtype=m.int8), "f32[5]", numpy=False)

# ----------------------------------------------------------------- take
case("take_flat", lambda m: lambda x, i: m.take(x, i), "f32[3,4]", "i32[2]")
case("take_axis1", lambda m: lambda x, i: m.take(x, i, axis=1), "f32[3,4]", "i32[2]")
case("take_axis_neg", lambda m: lambda x, i: m.take(x, i, axis=-2), "i32[3,4,2]", "i32[2,2]")
case("take_clip", lambda m: lambda x, i: m.take(x, i, axis=1, mode="clip"), "f32[3,4]", "i32[2]")
case(
    "take_fill_value",
    lambda m: lambda x, i: m.take(x, i, axis=0, mode="fill", fill_value=0),
    "f32[3,4]",
    "i32[2,2]",
    numpy=False,
)
case("take_wrap", lambda m: lambda x, i: m.take(x, i, mode="wrap"), "f32[5]", "i32[3]")
case("take_scalar_index", lambda m: lambda x, i: m.take(x, i, axis=1), "f32[3,4]", "i32[]")
case("take_uint_index", lambda m: lambda x, i: m.take(x, i), "u8[5]", "u8[3]")
case(
    "take_along_last",
    lambda m: lambda x, i: m.take_along_axis(x, i, axis=1),
    "f32[3,4]",
    "i32[3,2]",
)
case(
    "take_along_axis0",
    lambda m: lambda x, i: m.take_along_axis(x, i, axis=0),
    "f32[3,4]",
    "i32[2,4]",
)
case(
    "take_along_bcast",
    lambda m: lambda x, i: m.take_along_axis(x, i, axis=1),
    "f32[3,4]",
    "i32[1,2]",
)
case(
    "take_along_none",
    lambda m: lambda x, i: m.take_along_axis(x, i, axis=None),
    "f32[3,4]",
    "i32[5]",
)
case(
    "take_along_clip",
    lambda m: lambda x, i: m.take_along_axis(x, i, axis=-1, mode="clip"),
    "i32[2,3]",
    "u8[2,3]",
    numpy=False,
)
case(
    "take_along_argsort",
    lambda m: lambda x: m.take_along_axis(x, m.argsort(x, axis=0), axis=0),
    "f32[4,3]",
)

# ----------------------------------------------------------------- searchsorted
# JAX's scan binds the total-order comparisons le_to / lt_to, which Tessela
# writes with lt / le / ne: shapes and dtypes are compared, values below.
for _method in ("scan", "scan_unrolled", "sort", "compare_all"):
    for _side in ("left", "right"):
        case(
            f"searchsorted_{_method}_{_side}",
            lambda m, s=_side, me=_method: lambda a, v: m.searchsorted(a, v, side=s, method=me),
            "f32[5]",
            "f32[2,3]",
            numpy=False,
            jaxpr=False,
        )
case(
    "searchsorted_default",
    lambda m: lambda a, v: m.searchsorted(a, v),
    "f32[5]",
    "f32[4]",
    jaxpr=False,
)
case(
    "searchsorted_int_float",
    lambda m: lambda a, v: m.searchsorted(a, v),
    "i32[6]",
    "f32[]",
    jaxpr=False,
)
case(
    "searchsorted_sorter",
    lambda m: lambda a, v, s: m.searchsorted(a, v, sorter=s),
    "f32[5]",
    "f32[3]",
    "i32[5]",
    jaxpr=False,
)

# ----------------------------------------------------------------- nanargmin / nanargmax
case("nanargmin_axis1", lambda m: lambda x: m.nanargmin(x, axis=1), "f32[3,4]")
case("nanargmax_axis1", lambda m: lambda x: m.nanargmax(x, axis=1), "f32[3,4]")
case("nanargmin_none", lambda m: lambda x: m.nanargmin(x), "f16[3,4]")
case("nanargmax_keepdims", lambda m: lambda x: m.nanargmax(x, axis=0, keepdims=True), "f32[3,4]")
case("nanargmin_int", lambda m: lambda x: m.nanargmin(x, axis=0), "i32[3,4]")

# ----------------------------------------------------------------- linalg.norm
case("norm_vector", lambda m: lambda x: m.linalg.norm(x), "f32[3]")
case("norm_any_rank", lambda m: lambda x: m.linalg.norm(x), "f32[2,3,4]")
case("norm_int", lambda m: lambda x: m.linalg.norm(x), "i32[3]")
case("norm_complex", lambda m: lambda x: m.linalg.norm(x, axis=0), "c64[3]")
case("norm_keepdims", lambda m: lambda x: m.linalg.norm(x, keepdims=True), "f32[3,4]")
for _name, _ord in [
    ("inf", np.inf),
    ("ninf", -np.inf),
    ("0", 0),
    ("1", 1),
    ("3", 3),
    ("half", 0.5),
]:
    case(
        f"norm_vec_{_name}",
        lambda m, o=_ord: lambda x: m.linalg.norm(x, ord=o, axis=1),
        "f32[3,4]",
    )
for _name, _ord in [("fro", "fro"), ("1", 1), ("n1", -1), ("inf", np.inf), ("ninf", -np.inf)]:
    case(f"norm_mat_{_name}", lambda m, o=_ord: lambda x: m.linalg.norm(x, ord=o), "f32[3,4]")
case(
    "norm_mat_axes_keepdims",
    lambda m: lambda x: m.linalg.norm(x, ord=1, axis=(2, 0), keepdims=True),
    "f32[2,3,4]",
)
case(
    "norm_mat_inf_axes",
    lambda m: lambda x: m.linalg.norm(x, ord=np.inf, axis=(0, 2)),
    "f32[2,3,4]",
)

# ----------------------------------------------------------------- scalar types
case("scalar_float32_traced", lambda m: lambda x: m.float32(x), "i32[3]")
case("scalar_int32_const", lambda m: lambda: m.int32(3))
case("scalar_float32_add", lambda m: lambda x: x + m.float32(2), "f32[3]")
case("scalar_int8_traced", lambda m: lambda x: m.int8(x), "f32[2]")
case("scalar_bool_traced", lambda m: lambda x: m.bool_(x), "f32[2]")
case("scalar_dtype_arg", lambda m: lambda: m.zeros(3, m.float16))
case("scalar_astype", lambda m: lambda x: x.astype(m.uint8), "f32[2]")

# ----------------------------------------------------------------- errors
error_case("sort_kind", lambda m: lambda x: m.sort(x, kind="stable"), "f32[3]")
error_case("take_raise", lambda m: lambda x, i: m.take(x, i, mode="raise"), "f32[3]", "i32[2]")
error_case("take_bad_mode", lambda m: lambda x, i: m.take(x, i, mode="nope"), "f32[3]", "i32[2]")
error_case(
    "take_along_float", lambda m: lambda x, i: m.take_along_axis(x, i, 0), "f32[3]", "f32[2]"
)
error_case(
    "take_along_rank", lambda m: lambda x, i: m.take_along_axis(x, i, 0), "f32[3,2]", "i32[2]"
)
error_case("searchsorted_2d", lambda m: lambda a, v: m.searchsorted(a, v), "f32[3,2]", "f32[2]")
error_case("norm_bad_matrix_ord", lambda m: lambda x: m.linalg.norm(x, ord=3), "f32[3,3]")
error_case(
    "norm_three_axes", lambda m: lambda x: m.linalg.norm(x, ord=1, axis=(0, 1, 2)), "f32[2,2,2]"
)
