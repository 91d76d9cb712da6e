"""The one list of NumPy-API cases shared by the golden generator and the tests.

Each case builds a function from a NumPy-like namespace ``m`` (``jax.numpy``
under the generator, ``tessela_numpy`` in the tests, ``numpy`` for the shape
cross-check) and names the abstract inputs it is traced with, as short
strings such as ``"f32[3,4]"``. This module imports neither JAX nor Tessela.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

DTYPES = {
    "bool": "bool",
    "i8": "int8",
    "i32": "int32",
    "u8": "uint8",
    "u32": "uint32",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "c64": "complex64",
}


class Case(NamedTuple):
    name: str
    build: Callable[[Any], Callable[..., Any]]
    inputs: tuple[str, ...]
    numpy: bool = True  # whether ``build(numpy)`` gives NumPy's shapes
    jaxpr: bool = True  # whether the jaxpr text is compared too


def parse_input(spec: str) -> tuple[tuple[int, ...], str]:
    """``"f32[3,4]"`` -> ``((3, 4), "float32")``."""
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]", spec)
    assert m, spec
    dims = tuple(int(d) for d in m.group(2).split(",") if d)
    return dims, DTYPES[m.group(1)]


CASES: list[Case] = []


def case(
    name: str,
    build: Callable[[Any], Callable[..., Any]],
    *inputs: str,
    numpy: bool = True,
    jaxpr: bool = True,
) -> None:
    CASES.append(Case(name, build, inputs, numpy, jaxpr))


# ----------------------------------------------------------------- creation
case("zeros", lambda m: lambda: m.zeros(3))
case("zeros_shape_dtype", lambda m: lambda: m.zeros((2, 3), dtype=m.int32))
case("ones", lambda m: lambda: m.ones((2, 2)))
case("ones_bool", lambda m: lambda: m.ones(4, dtype=bool))
case("full_int", lambda m: lambda: m.full((2, 3), 7))
case("full_float", lambda m: lambda: m.full(3, 1.5))
case("full_dtype", lambda m: lambda: m.full(3, 2, dtype=m.float16))
case("full_traced", lambda m: lambda v: m.full((2, 3), v), "f32[]")
case("empty", lambda m: lambda: m.empty((2, 1)))
case("zeros_like", lambda m: lambda x: m.zeros_like(x), "i32[2,3]")
case("ones_like_dtype", lambda m: lambda x: m.ones_like(x, dtype=m.float32), "i32[2,3]")
case("full_like", lambda m: lambda x: m.full_like(x, 3), "f16[4]")
case("empty_like", lambda m: lambda x: m.empty_like(x), "u8[2]")
case("arange_int", lambda m: lambda: m.arange(10))
case("arange_float", lambda m: lambda: m.arange(10.0))
case("arange_start_stop_step", lambda m: lambda: m.arange(2, 11, 3))
case("arange_float_step", lambda m: lambda: m.arange(0, 1, 0.25))
case("arange_dtype", lambda m: lambda: m.arange(5, dtype=m.float32))
case("linspace", lambda m: lambda: m.linspace(0, 10, 5))
case("linspace_noend", lambda m: lambda: m.linspace(0.0, 1.0, 4, endpoint=False))
case("eye", lambda m: lambda: m.eye(3))
case("eye_rect_k", lambda m: lambda: m.eye(2, 4, k=1, dtype=m.int32))
case("identity", lambda m: lambda: m.identity(4))
case("array_scalar_float", lambda m: lambda: m.array(1.0))
case("array_scalar_int", lambda m: lambda: m.asarray(3))
case("array_list", lambda m: lambda: m.array([1, 2, 3]))
case("array_nested_float", lambda m: lambda: m.array([[1.0, 2.0], [3.0, 4.0]]))
case("array_dtype", lambda m: lambda: m.array([1, 2], dtype=m.float32))
case("array_numpy", lambda m: lambda: m.asarray(np.arange(3.0)))
case("array_numpy_int_dtype", lambda m: lambda: m.array(np.arange(4), dtype=m.float32))
case("array_of_tracer", lambda m: lambda x: m.array(x), "f32[3]")
case("asarray_dtype", lambda m: lambda x: m.asarray(x, dtype=m.int32), "f32[3]")

# ----------------------------------------------------------------- ufuncs
# The unary functions traced on float32 (``kinds_cases.py`` runs them, and more,
# on every operand kind).
UNARY_F32 = [
    "negative",
    "positive",
    "abs",
    "absolute",
    "sign",
    "floor",
    "ceil",
    "round",
    "rint",
    "trunc",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sqrt",
    "cbrt",
    "square",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "deg2rad",
    "rad2deg",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "logical_not",
    "conj",
    "real",
    "imag",
    "fabs",
    "sinc",
]
for _u in UNARY_F32:
    case(
        f"u_{_u}_f32",
        lambda m, _u=_u: lambda x: getattr(m, _u)(x),
        "f32[3]",
    )
for _u in [
    "negative",
    "abs",
    "sign",
    "square",
    "sqrt",
    "exp",
    "logical_not",
    "invert",
    "floor",
    "isnan",
]:
    case(
        f"u_{_u}_i32",
        lambda m, _u=_u: lambda x: getattr(m, _u)(x),
        "i32[2,2]",
    )
for _u in ["sqrt", "abs", "exp", "real", "imag", "conj"]:
    case(f"u_{_u}_c64", lambda m, _u=_u: lambda x: getattr(m, _u)(x), "c64[2]")
case("u_invert_bool", lambda m: lambda x: m.invert(x), "bool[3]")
case("u_sin_bf16", lambda m: lambda x: m.sin(x), "bf16[3]", numpy=False)
case("u_exp_u8", lambda m: lambda x: m.exp(x), "u8[3]")
case("u_abs_i8", lambda m: lambda x: m.abs(x), "i8[3]")

for _b in [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "power",
    "float_power",
    "mod",
    "remainder",
    "fmod",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "arctan2",
    "hypot",
    "copysign",
    "nextafter",
    "logaddexp",
    "logaddexp2",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "heaviside",
    "ldexp",
]:
    if _b == "ldexp":
        case("b_ldexp", lambda m: lambda x, y: m.ldexp(x, y), "f32[3]", "i32[3]")
        continue
    case(
        f"b_{_b}_ff",
        lambda m, _b=_b: lambda x, y: getattr(m, _b)(x, y),
        "f32[2,3]",
        "f32[3]",
    )
for _b in [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "power",
    "mod",
    "maximum",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "equal",
    "logical_and",
    "gcd",
    "lcm",
]:
    case(
        f"b_{_b}_ii",
        lambda m, _b=_b: lambda x, y: getattr(m, _b)(x, y),
        "i32[4,1]",
        "i32[3]",
    )
# Promotion across the lattice and with weak Python scalars.
for _x, _y in [
    ("i32", "f32"),
    ("u8", "i8"),
    ("u32", "i32"),
    ("bool", "i32"),
    ("f16", "f32"),
    ("i8", "f16"),
    ("u8", "bf16"),
    ("f32", "c64"),
    ("bool", "bool"),
    ("bf16", "f16"),
]:
    case(
        f"promote_{_x}_{_y}",
        lambda m: lambda x, y: m.add(x, y),
        f"{_x}[2]",
        f"{_y}[2]",
        numpy=False,
    )
for _s_name, _s in [("int", 2), ("float", 2.5), ("bool", True), ("complex", 1j)]:
    for _t in ["i8", "u8", "i32", "f16", "bf16", "f32", "bool"]:
        case(
            f"weak_{_s_name}_{_t}",
            lambda m, _s=_s: lambda x: m.multiply(x, _s),
            f"{_t}[2]",
            numpy=False,
        )
case("weak_scalar_ops", lambda m: lambda x: 2 * x + 1.0 - x / 3, "i32[3]", numpy=False)
case("op_rsub_rpow", lambda m: lambda x: (1 - x) ** 2, "f32[3]")
case("op_matmul", lambda m: lambda x, y: x @ y, "f32[2,3]", "f32[3,4]")
case("op_compare_chain", lambda m: lambda x: (x > 0) & (x < 1), "f32[3]")
case("op_neg_abs_invert", lambda m: lambda x: ~(-abs(x)), "i32[3]")
case("op_floordiv_mod", lambda m: lambda x: (x // 3, x % 3), "i32[3]")
case("op_divmod", lambda m: lambda x, y: m.divmod(x, y), "f32[3]", "f32[3]")
case(
    "where3",
    lambda m: lambda c, x, y: m.where(c, x, y),
    "bool[3,1]",
    "f32[3]",
    "i32[1,3]",
)
case("where_scalar", lambda m: lambda x: m.where(x > 0, x, 0), "f32[2,3]")
case("where_both_weak", lambda m: lambda c: m.where(c, 1.0, 2), "bool[3]", numpy=False)
case("clip", lambda m: lambda x: m.clip(x, 0, 1), "f32[2,3]")
case("clip_int_arrays", lambda m: lambda x, lo: m.clip(x, lo, 5), "i32[3]", "i32[3]")
case("clip_max_only", lambda m: lambda x: m.clip(x, max=2.0), "f32[3]")

# ----------------------------------------------------------------- reductions
for _r in ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any", "argmax", "argmin"]:
    case(
        f"r_{_r}_all",
        lambda m, _r=_r: lambda x: getattr(m, _r)(x),
        "f32[3,4]",
    )
    case(
        f"r_{_r}_axis1",
        lambda m, _r=_r: lambda x: getattr(m, _r)(x, axis=1),
        "f32[2,3,4]",
    )
    case(f"r_{_r}_neg_axis_int", lambda m, _r=_r: lambda x: getattr(m, _r)(x, axis=-1), "i32[2,3]")
    case(f"r_{_r}_bool", lambda m, _r=_r: lambda x: getattr(m, _r)(x, axis=0), "bool[2,3]")
for _r in ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any"]:
    case(
        f"r_{_r}_axes_keepdims",
        lambda m, _r=_r: lambda x: getattr(m, _r)(x, axis=(0, 2), keepdims=True),
        "f32[2,3,4]",
    )
    case(f"r_{_r}_u8", lambda m, _r=_r: lambda x: getattr(m, _r)(x, axis=0), "u8[3,2]")
    case(f"r_{_r}_f16", lambda m, _r=_r: lambda x: getattr(m, _r)(x), "f16[5]")
for _r in ["sum", "prod", "mean"]:
    case(f"r_{_r}_dtype", lambda m, _r=_r: lambda x: getattr(m, _r)(x, dtype=m.float32), "i32[3]")
for _r in ["sum", "prod", "max", "min", "mean", "all", "any"]:
    case(
        f"r_{_r}_where",
        lambda m, _r=_r: (
            lambda x, w: getattr(m, _r)(
                x, axis=0, where=w, **({"initial": 0} if _r in ("max", "min") else {})
            )
        ),
        "f32[3,4]",
        "bool[3,4]",
    )
case("r_argmax_keepdims", lambda m: lambda x: m.argmax(x, axis=0, keepdims=True), "f32[3,4]")
case("r_var_ddof", lambda m: lambda x: m.var(x, axis=0, ddof=1), "f32[3,4]")
case("r_std_int", lambda m: lambda x: m.std(x), "i32[4]")
case("r_mean_c64", lambda m: lambda x: m.mean(x), "c64[3]")
case("r_sum_c64", lambda m: lambda x: m.sum(x, axis=0), "c64[3]")
case("r_max_initial", lambda m: lambda x: m.max(x, initial=0.0), "f32[3]")
for _c in ["cumsum", "cumprod"]:
    case(f"c_{_c}_axis", lambda m, _c=_c: lambda x: getattr(m, _c)(x, axis=1), "f32[2,3]")
    case(f"c_{_c}_flat", lambda m, _c=_c: lambda x: getattr(m, _c)(x), "f32[2,3]")
    case(f"c_{_c}_bool", lambda m, _c=_c: lambda x: getattr(m, _c)(x, axis=0), "bool[3]")
    case(f"c_{_c}_u8", lambda m, _c=_c: lambda x: getattr(m, _c)(x, axis=0), "u8[3]")
    case(
        f"c_{_c}_dtype",
        lambda m, _c=_c: lambda x: getattr(m, _c)(x, axis=0, dtype=m.float32),
        "i32[3]",
    )
case("m_sum_method", lambda m: lambda x: x.sum(axis=0), "f32[2,3]")
case("m_mean_method", lambda m: lambda x: x.mean(0), "f32[2,3]")
case("m_std_method", lambda m: lambda x: x.std(0), "f32[2,3]")
case("m_argmax_method", lambda m: lambda x: x.argmax(), "f32[2,3]")
case("m_max_method", lambda m: lambda x: x.max(axis=1, keepdims=True), "i32[2,3]")

# ----------------------------------------------------------------- shapes
case("reshape", lambda m: lambda x: m.reshape(x, (3, 4)), "f32[2,6]")
case("reshape_minus1", lambda m: lambda x: m.reshape(x, (-1, 2)), "f32[2,6]")
case("reshape_method_args", lambda m: lambda x: x.reshape(4, 3), "f32[2,6]")
case("reshape_order_f", lambda m: lambda x: m.reshape(x, (3, 2), order="F"), "i32[2,3]")
case("ravel", lambda m: lambda x: m.ravel(x), "f32[2,3]")
case("ravel_method", lambda m: lambda x: x.ravel(), "f32[2,3]")
case("flatten_method", lambda m: lambda x: x.flatten(), "f32[2,3]")
case("transpose", lambda m: lambda x: m.transpose(x), "f32[2,3,4]")
case("transpose_axes", lambda m: lambda x: m.transpose(x, (1, 0, 2)), "f32[2,3,4]")
case("T_property", lambda m: lambda x: x.T, "f32[2,3]")
case("transpose_method", lambda m: lambda x: x.transpose(2, 0, 1), "f32[2,3,4]")
case("swapaxes", lambda m: lambda x: m.swapaxes(x, 0, 2), "f32[2,3,4]")
case("moveaxis", lambda m: lambda x: m.moveaxis(x, 0, -1), "f32[2,3,4]")
case("moveaxis_multi", lambda m: lambda x: m.moveaxis(x, (0, 1), (2, 0)), "f32[2,3,4]")
case("squeeze_all", lambda m: lambda x: m.squeeze(x), "f32[1,3,1]")
case("squeeze_axis", lambda m: lambda x: m.squeeze(x, axis=2), "f32[1,3,1]")
case("expand_dims", lambda m: lambda x: m.expand_dims(x, 1), "f32[2,3]")
case("expand_dims_multi", lambda m: lambda x: m.expand_dims(x, (0, -1)), "f32[2,3]")
case("broadcast_to", lambda m: lambda x: m.broadcast_to(x, (4, 2, 3)), "f32[2,1]")
case("broadcast_arrays", lambda m: lambda x, y: m.broadcast_arrays(x, y), "f32[2,1]", "i32[3]")
case("concatenate", lambda m: lambda x, y: m.concatenate([x, y]), "f32[2,3]", "f32[4,3]")
case(
    "concatenate_axis1_promote",
    lambda m: lambda x, y: m.concatenate((x, y), axis=1),
    "f32[2,3]",
    "i32[2,1]",
)
case(
    "concatenate_none",
    lambda m: lambda x, y: m.concatenate([x, y], axis=None),
    "f32[2,3]",
    "f32[4]",
)
case("stack", lambda m: lambda x, y: m.stack([x, y]), "f32[2,3]", "f32[2,3]")
case("stack_axis", lambda m: lambda x, y: m.stack([x, y], axis=-1), "f32[2,3]", "i32[2,3]")
case("hstack", lambda m: lambda x, y: m.hstack([x, y]), "f32[2,3]", "f32[2,1]")
case("hstack_1d", lambda m: lambda x, y: m.hstack([x, y]), "f32[3]", "f32[2]")
case("vstack", lambda m: lambda x, y: m.vstack([x, y]), "f32[3]", "f32[2,3]")
case("split_n", lambda m: lambda x: m.split(x, 3), "f32[6,2]")
case("split_indices", lambda m: lambda x: m.split(x, [1, 3], axis=1), "f32[2,5]")
case("flip", lambda m: lambda x: m.flip(x), "f32[2,3]")
case("flip_axis", lambda m: lambda x: m.flip(x, 1), "f32[2,3]")
case("roll", lambda m: lambda x: m.roll(x, 2), "f32[2,3]")
case("roll_axis", lambda m: lambda x: m.roll(x, -1, axis=1), "f32[2,3]")
case("pad_const", lambda m: lambda x: m.pad(x, 1), "f32[2,3]")
case(
    "pad_pairs_value", lambda m: lambda x: m.pad(x, ((1, 0), (0, 2)), constant_values=3), "i32[2,3]"
)
case("pad_edge", lambda m: lambda x: m.pad(x, (2, 1), mode="edge"), "f32[3]")
case("pad_reflect", lambda m: lambda x: m.pad(x, 2, mode="reflect"), "f32[4]")
case("pad_wrap", lambda m: lambda x: m.pad(x, 1, mode="wrap"), "f32[3,2]")
case("tile", lambda m: lambda x: m.tile(x, (2, 3)), "f32[2,3]")
case("tile_int", lambda m: lambda x: m.tile(x, 2), "f32[3]")
case("repeat_int", lambda m: lambda x: m.repeat(x, 2), "f32[2,3]")
case("repeat_axis", lambda m: lambda x: m.repeat(x, 3, axis=1), "f32[2,3]")
case(
    "repeat_list",
    lambda m: lambda x: m.repeat(x, m.array([1, 2]), axis=0, total_repeat_length=3),
    "f32[2,3]",
    numpy=False,
)
case("astype", lambda m: lambda x: x.astype(m.int32), "f32[3]")
case("astype_bool", lambda m: lambda x: x.astype(bool), "f32[3]")

# ----------------------------------------------------------------- products
case("dot_mv", lambda m: lambda x, y: m.dot(x, y), "f32[3,4]", "f32[4]")
case("dot_mm", lambda m: lambda x, y: m.dot(x, y), "f32[3,4]", "f32[4,5]")
case("dot_vv", lambda m: lambda x, y: m.dot(x, y), "f32[4]", "f32[4]")
case("dot_scalar", lambda m: lambda x, y: m.dot(x, y), "f32[]", "f32[3]")
case("dot_nd", lambda m: lambda x, y: m.dot(x, y), "f32[2,3,4]", "f32[5,4,6]")
case("dot_int_float", lambda m: lambda x, y: m.dot(x, y), "i32[3]", "f32[3]")
case("matmul_batched", lambda m: lambda x, y: m.matmul(x, y), "f32[5,2,3]", "f32[3,4]")
case("matmul_vec", lambda m: lambda x, y: m.matmul(x, y), "f32[3]", "f32[2,3,4]")
case("matmul_mat_vec", lambda m: lambda x, y: m.matmul(x, y), "f32[2,3]", "f32[3]")
case("matmul_bcast", lambda m: lambda x, y: m.matmul(x, y), "f32[2,1,2,3]", "f32[5,3,4]")
case("vdot", lambda m: lambda x, y: m.vdot(x, y), "f32[2,3]", "f32[6]")
case("vdot_complex", lambda m: lambda x, y: m.vdot(x, y), "c64[3]", "c64[3]")
case("inner", lambda m: lambda x, y: m.inner(x, y), "f32[2,3]", "f32[4,3]")
case("outer", lambda m: lambda x, y: m.outer(x, y), "f32[2,3]", "i32[4]")
case("tensordot_int", lambda m: lambda x, y: m.tensordot(x, y), "f32[2,3,4]", "f32[3,4,5]")
case(
    "tensordot_axes",
    lambda m: lambda x, y: m.tensordot(x, y, axes=([0], [1])),
    "f32[2,3]",
    "f32[4,2]",
)
case("tensordot_zero", lambda m: lambda x, y: m.tensordot(x, y, 0), "f32[2]", "f32[3]")
case(
    "einsum_mm",
    lambda m: lambda x, y: m.einsum("ij,jk->ik", x, y),
    "f32[2,3]",
    "f32[3,4]",
)
case("einsum_mv", lambda m: lambda x, y: m.einsum("ij,j->i", x, y), "f32[3,4]", "f32[4]")
case("einsum_trace", lambda m: lambda x: m.einsum("ii", x), "f32[3,3]")
case("einsum_diag", lambda m: lambda x: m.einsum("ii->i", x), "f32[3,3]")
case("einsum_transpose", lambda m: lambda x: m.einsum("ij->ji", x), "f32[2,3]")
case("einsum_sum", lambda m: lambda x: m.einsum("ij->", x), "f32[2,3]")
case(
    "einsum_batch",
    lambda m: lambda x, y: m.einsum("bij,bjk->bik", x, y),
    "f32[5,2,3]",
    "f32[5,3,4]",
)
case("einsum_outer", lambda m: lambda x, y: m.einsum("i,j->ij", x, y), "f32[2]", "f32[3]")
case(
    "einsum_ellipsis",
    lambda m: lambda x, y: m.einsum("...ij,jk->...ik", x, y),
    "f32[5,2,3]",
    "f32[3,4]",
)
case(
    "einsum_chain",
    lambda m: lambda x, y, z: m.einsum("ij,jk,kl->il", x, y, z),
    "f32[2,3]",
    "f32[3,4]",
    "f32[4,5]",
)
case("einsum_implicit", lambda m: lambda x, y: m.einsum("ij,jk", x, y), "i32[2,3]", "i32[3,4]")

# ----------------------------------------------------------------- indexing
case("ix_int", lambda m: lambda x: x[0], "f32[3,4]")
case("ix_neg_int", lambda m: lambda x: x[-1, 2], "f32[3,4]")
case("ix_slices", lambda m: lambda x: x[1:3, ::2], "f32[3,4]")
case("ix_newaxis", lambda m: lambda x: x[:, None, -1], "f32[3,4]")
case("ix_ellipsis", lambda m: lambda x: x[..., 1], "f32[2,3,4]")
case("ix_reverse", lambda m: lambda x: x[::-1], "f32[3,4]")
case("ix_neg_step", lambda m: lambda x: x[3:0:-2], "f32[5]")
case("ix_full", lambda m: lambda x: x[:], "f32[3,4]")
case("ix_oob_int", lambda m: lambda x: x[11], "i32[10]", numpy=False)
case("ix_traced_scalar", lambda m: lambda x, i: x[i], "f32[3,4]", "i32[]", numpy=False)
case(
    "ix_traced_scalar_pair",
    lambda m: lambda x, i: x[i, 2],
    "f32[3,4]",
    "i32[]",
    numpy=False,
)
case("ix_int_array", lambda m: lambda x, i: x[i], "f32[3,4]", "i32[5]", numpy=False)
case(
    "ix_int_array_slice",
    lambda m: lambda x, i: x[i, 1:],
    "f32[3,4]",
    "i32[3]",
    numpy=False,
)
case(
    "ix_int_array_2d",
    lambda m: lambda x, i: x[:, i],
    "f32[3,4]",
    "i32[2,2]",
    numpy=False,
)
case(
    "ix_two_arrays",
    lambda m: lambda x, i, j: x[i, j],
    "f32[3,4]",
    "i32[2,1]",
    "i32[5]",
    numpy=False,
)
case(
    "ix_separated_arrays",
    lambda m: lambda x, i, j: x[i, :, j],
    "f32[3,4,5]",
    "i32[2]",
    "i32[2]",
    numpy=False,
)
case(
    "ix_array_newaxis",
    lambda m: lambda x, i: x[None, i, ::2],
    "f32[3,4]",
    "i32[2]",
    numpy=False,
)
case("ix_uint_array", lambda m: lambda x, i: x[i], "f32[3]", "u8[2]", numpy=False)
case("ix_concrete_list", lambda m: lambda x: x[..., m.array([0, 2])], "f32[3,4]")
case("ix_concrete_bool_numpy", lambda m: lambda x: x[np.array([True, False, True])], "f32[3,4]")
case("ix_scalar_bool", lambda m: lambda x: x[True], "f32[3]")
case("at_get", lambda m: lambda x: x.at[1].get(), "f32[10]", numpy=False)
case(
    "at_get_fill",
    lambda m: lambda x: x.at[11].get(mode="fill", fill_value=m.nan),
    "f32[10]",
    numpy=False,
)
case(
    "at_get_array_clip",
    lambda m: lambda x, i: x.at[i].get(mode="clip"),
    "f32[10]",
    "i32[3]",
    numpy=False,
)
case("at_set_row", lambda m: lambda x: x.at[1, :].set(1.0), "f32[3,4]", numpy=False)
case(
    "at_add_strided",
    lambda m: lambda x: x.at[::2, 3:].add(7.0),
    "f32[5,6]",
    numpy=False,
)
case("at_multiply", lambda m: lambda x: x.at[1].multiply(2), "f32[10]", numpy=False)
case("at_divide", lambda m: lambda x: x.at[1].divide(2), "f32[10]", numpy=False)
case("at_power", lambda m: lambda x: x.at[1].power(2), "f32[10]", numpy=False)
case("at_min", lambda m: lambda x, v: x.at[2:].min(v), "f32[10]", "f32[8]", numpy=False)
case(
    "at_max",
    lambda m: lambda x, i, v: x.at[i].max(v),
    "i32[10]",
    "i32[3]",
    "i32[3]",
    numpy=False,
)
case("at_apply", lambda m: lambda x: x.at[1].apply(m.sin), "f32[10]", numpy=False)
case(
    "at_set_array_drop",
    lambda m: lambda x, i, v: x.at[i].set(v, mode="drop"),
    "f32[4,3]",
    "i32[2]",
    "f32[2,3]",
    numpy=False,
)
case(
    "at_set_clip",
    lambda m: lambda x, i: x.at[i].set(0, mode="clip"),
    "i32[4]",
    "i32[2]",
    numpy=False,
)
case("at_set_int_value", lambda m: lambda x: x.at[0].set(10), "i32[10]", numpy=False)
case("at_add_promote", lambda m: lambda x, v: x.at[0].add(v), "f16[3]", "f32[]", numpy=False)

# ------------------------------------------------- linalg: eigen and singular values
case("linalg_eigh", lambda m: m.linalg.eigh, "f32[2,3,3]", numpy=False)
case("linalg_eigh_upper", lambda m: lambda a: m.linalg.eigh(a, UPLO="U"), "c64[3,3]",
     numpy=False)  # fmt: skip
case("linalg_eigvalsh", lambda m: m.linalg.eigvalsh, "f32[4,4]")
case("linalg_svd", lambda m: m.linalg.svd, "f32[5,3]")
case("linalg_svd_reduced", lambda m: lambda a: m.linalg.svd(a, full_matrices=False), "c64[2,3,5]")
case("linalg_svd_values", lambda m: lambda a: m.linalg.svd(a, compute_uv=False), "f32[4,6]")
case("linalg_svd_hermitian", lambda m: lambda a: m.linalg.svd(a, hermitian=True), "f32[3,3]",
     numpy=False)  # fmt: skip
case("linalg_svdvals", lambda m: m.linalg.svdvals, "f32[3,4]", numpy=False)
case("linalg_norm_2", lambda m: lambda a: m.linalg.norm(a, 2), "f32[3,4]")
case("linalg_norm_nuc_axes", lambda m: lambda a: m.linalg.norm(a, "nuc", axis=(0, 2)),
     "f32[3,2,4]")  # fmt: skip
case("linalg_norm_neg2_keepdims",
     lambda m: lambda a: m.linalg.norm(a, -2, axis=(1, 0), keepdims=True), "f32[3,4,2]")  # fmt: skip
# pinv: same values and shapes; its jaxpr names the staged function differently.
case("linalg_pinv", lambda m: m.linalg.pinv, "f32[4,3]", jaxpr=False)
case("linalg_matrix_rank", lambda m: m.linalg.matrix_rank, "f32[4,3]")
case("linalg_cond", lambda m: m.linalg.cond, "f32[3,3]")
# cond(a, 1) goes through inv, whose LU solve is staged differently from JAX's.
case("linalg_cond_1", lambda m: lambda a: m.linalg.cond(a, 1), "f32[2,3,3]", jaxpr=False)

# ----------------------------------------------------------------- convolve / correlate
case("convolve_full", lambda m: m.convolve, "f32[5]", "f32[3]")
case(
    "convolve_same_short_first", lambda m: lambda a, v: m.convolve(a, v, "same"), "f32[2]", "f32[4]"
)
case("convolve_valid_ints", lambda m: lambda a, v: m.convolve(a, v, "valid"), "i32[6]", "i32[3]")
case("correlate_valid", lambda m: m.correlate, "f32[6]", "f32[3]")
case("correlate_same_long_v", lambda m: lambda a, v: m.correlate(a, v, "same"), "f32[2]", "f32[3]")
case("correlate_full_complex", lambda m: lambda a, v: m.correlate(a, v, "full"), "c64[4]", "c64[3]")

# ----------------------------------------------------------------- programs
case(
    "mlp",
    lambda m: lambda w1, b1, w2, x: m.dot(m.tanh(m.dot(x, w1) + b1), w2).sum(),
    "f32[4,8]",
    "f32[8]",
    "f32[8,2]",
    "f32[5,4]",
)
case("normalize_rows", lambda m: lambda x: (x - x.mean(0)) / x.std(0), "f32[10,3]")
case(
    "seed_dot_plus_one",
    lambda m: lambda x, y: m.dot(x + 1, y + 1),
    "f32[3,4]",
    "f32[4]",
)
case("logistic_sum", lambda m: lambda x: m.sum(1.0 / (1.0 + m.exp(-x))), "f32[3]")
case("nansum_where", lambda m: lambda x: m.where(~m.isnan(x), x, 0).sum(), "f32[5]")
case(
    "softmax",
    lambda m: (
        lambda x: (
            m.exp(x - x.max(-1, keepdims=True))
            / m.sum(m.exp(x - x.max(-1, keepdims=True)), -1, keepdims=True)
        )
    ),
    "f32[2,5]",
)

# ----------------------------------------------------------------- errors
ERRORS: list[Case] = []


def error_case(name: str, build: Callable[[Any], Callable[..., Any]], *inputs: str) -> None:
    ERRORS.append(Case(name, build, inputs, False, False))


error_case("list_to_sum", lambda m: lambda: m.sum([1, 2, 3]))
error_case("list_to_add", lambda m: lambda x: m.add(x, [1, 2, 3]), "f32[3]")
error_case("tuple_to_reshape", lambda m: lambda: m.reshape((1, 2), (2, 1)))
error_case("list_to_dot", lambda m: lambda x: m.dot([1.0, 2.0], x), "f32[2]")
error_case("list_index", lambda m: lambda x: x[[0, slice(None)]], "f32[3,4]")
error_case("traced_bool_index", lambda m: lambda x: x[x < 0], "f32[5]")
error_case("traced_shape", lambda m: lambda n: m.ones((n,)), "i32[]")
error_case("item_assignment", lambda m: lambda x: x.__setitem__(0, 1.0), "f32[3]")
error_case("float_index", lambda m: lambda x: x[1.5], "f32[3]")
error_case("too_many_indices", lambda m: lambda x: x[0, 0, 0], "f32[3,4]")
error_case("bad_axis", lambda m: lambda x: m.sum(x, axis=2), "f32[3,4]")
error_case("bad_reshape", lambda m: lambda x: m.reshape(x, (5,)), "f32[3,4]")
error_case("bad_broadcast", lambda m: lambda x, y: x + y, "f32[3]", "f32[4]")
error_case("bad_matmul", lambda m: lambda x, y: m.matmul(x, y), "f32[2,3]", "f32[4,2]")
error_case("bad_concatenate", lambda m: lambda x, y: m.concatenate([x, y]), "f32[2,3]", "f32[2,4]")
error_case("bad_split", lambda m: lambda x: m.split(x, 4), "f32[6]")
error_case("at_bad_mode", lambda m: lambda x: x.at[0].set(1.0, mode="wrap"), "f32[3]")

# ----------------------------------------------------------------- sorting and more
from cases_sorting import SORT_CASES, SORT_ERRORS  # noqa: E402

CASES.extend(SORT_CASES)
ERRORS.extend(SORT_ERRORS)
