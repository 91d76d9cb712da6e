"""Bad inputs for ``lax``, run under JAX (to record) and Tessela (to compare).

Shared by ``generate_rejects.py`` (JAX 0.10.2 only) and ``test_rejects.py``
(Tessela only); it imports neither, only NumPy. A case is a builder taking
the ``lax`` module (``jax.lax`` or ``tessela_tracer.lax``) and returning a
function, plus the input specs (``"f32[2,3]"``) it is traced with by
``make_jaxpr``.

``NAMED`` holds single cases, ``GRIDS`` families recorded on a grid that the
tests sample with hypothesis. The golden file maps each case to ``"ok"``, the
class name JAX raises, or ``"abort"`` (JAX kills the process when it runs the
case eagerly; the generator runs those in a child process).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np

Builder = Callable[[Any], Callable[..., Any]]

_KINDS = {"f32": "float32", "i32": "int32", "u8": "uint8", "b": "bool", "c64": "complex64"}


def parse_input(spec: str) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """``"f32[3,4]"`` -> ``((3, 4), dtype('float32'))``."""
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]", spec)
    assert m, spec
    return tuple(int(d) for d in m.group(2).split(",") if d), np.dtype(_KINDS[m.group(1)])


def spec(shape: tuple[int, ...], kind: str = "f32") -> str:
    """The input spec of a shape."""
    return f"{kind}[{','.join(map(str, shape))}]"


NAMED: dict[str, tuple[Builder, tuple[str, ...]]] = {}


def named(name: str, build: Builder, *inputs: str) -> None:
    NAMED[name] = (build, inputs)


X = "f32[2,3]"
named("dot_same_shapes", lambda lax: lambda x, y: lax.dot(x, y), X, X)
named("dot_vectors_of_different_length", lambda lax: lambda x, y: lax.dot(x, y), "f32[3]", "f32[4]")
named("dot_rank3", lambda lax: lambda x, y: lax.dot(x, y), "f32[2,3,4]", "f32[4]")
named("dynamic_slice_rank", lambda lax: lambda x: lax.dynamic_slice(x, (0,), (1,)), X)
named(
    "dynamic_update_slice_rank",
    lambda lax: lambda x, u: lax.dynamic_update_slice(x, u, (0,)),
    X,
    "f32[1]",
)
named("broadcast_in_dim_negative", lambda lax: lambda: lax.broadcast_in_dim(1.0, (-1,), ()))
named("iota_negative", lambda lax: lambda: lax.iota(np.int32, -1))
named("iota_bool", lambda lax: lambda: lax.iota(np.bool_, 3))
named("full_negative", lambda lax: lambda: lax.full((-1,), 0.0))
named("reshape_negative", lambda lax: lambda x: lax.reshape(x, (-1, 6)), X)
named("transpose_repeated", lambda lax: lambda x: lax.transpose(x, (0, 0)), X)
# Axes and dimensions: JAX canonicalizes some negative axes and refuses others.
named("squeeze_out_of_range", lambda lax: lambda x: lax.squeeze(x, (2,)), "f32[1,3]")
named("squeeze_repeated", lambda lax: lambda x: lax.squeeze(x, (0, -2)), "f32[1,3]")
named("expand_dims_out_of_range", lambda lax: lambda x: lax.expand_dims(x, (4,)), X)
named("expand_dims_repeated", lambda lax: lambda x: lax.expand_dims(x, (1, 1)), X)
named("expand_dims_repeated_after_wrap", lambda lax: lambda x: lax.expand_dims(x, (0, -4)), X)
named("cumsum_negative_axis", lambda lax: lambda x: lax.cumsum(x, axis=-1), X)
named("cumprod_axis_out_of_range", lambda lax: lambda x: lax.cumprod(x, axis=2), X)
named("cummax_bool", lambda lax: lambda x: lax.cummax(x, axis=0), "b[3]")
named("argmax_negative_axis", lambda lax: lambda x: lax.argmax(x, -1, np.int32), X)
named("argmin_empty_axis", lambda lax: lambda x: lax.argmin(x, 0, np.int32), "f32[0,3]")
named("top_k_complex", lambda lax: lambda x: lax.top_k(x, 1), "c64[3]")
named("top_k_scalar", lambda lax: lambda x: lax.top_k(x, 1), "f32[]")
named("top_k_negative_k", lambda lax: lambda x: lax.top_k(x, -1), "f32[3]")
# Dtypes and dimension numbers.
named("integer_pow_negative_of_int", lambda lax: lambda x: lax.integer_pow(x, -2), "i32[3]")
named(
    "dynamic_slice_mixed_index_dtypes",
    lambda lax: lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 1)),
    X,
    "u8[]",
)
named(
    "dynamic_update_slice_mixed_index_dtypes",
    lambda lax: lambda x, u, i: lax.dynamic_update_slice(x, u, (0, i)),
    X,
    "f32[1,1]",
    "u8[]",
)
named("select_n_u8_which", lambda lax: lambda p, a: lax.select_n(p, a, a), "u8[2,3]", X)
named("select_n_f32_which", lambda lax: lambda p, a: lax.select_n(p, a, a), X, X)
named("select_n_no_cases", lambda lax: lambda p: lax.select_n(p), "b[2]")
_MM = (((1,), (0,)), ((), ()))
named(
    "dot_general_mixed_dtypes", lambda lax: lambda x, y: lax.dot_general(x, y, _MM), X, "i32[3,2]"
)
named(
    "dot_general_u8_bool", lambda lax: lambda x, y: lax.dot_general(x, y, _MM), "u8[2,3]", "b[3,2]"
)
named(
    "dot_general_narrower_preferred",
    lambda lax: lambda x, y: lax.dot_general(x, y, _MM, preferred_element_type=np.uint8),
    "i32[2,3]",
    "i32[3,2]",
)
named(
    "dot_general_repeated_contracting",
    lambda lax: lambda x, y: lax.dot_general(x, y, (((1, 1), (0, 0)), ((), ()))),
    X,
    "f32[3,2]",
)
named(
    "dot_general_batch_is_contracting",
    lambda lax: lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((0,), (0,)))),
    X,
    X,
)
_TAKE = {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,)}
named(
    "gather_float_indices",
    lambda lax: lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(**_TAKE), (1, 3)),
    X,
    "f32[4,1]",
)
named(
    "gather_slice_too_big",
    lambda lax: lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(**_TAKE), (1, 4)),
    X,
    "i32[4,1]",
)
named(
    "gather_collapsed_slice_not_one",
    lambda lax: lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(**_TAKE), (2, 3)),
    X,
    "i32[4,1]",
)
named("pad_negative_result", lambda lax: lambda x: lax.pad(x, 0.0, ((-3, 0, 0), (0, 0, 0))), X)
named(
    "pad_nonscalar_value",
    lambda lax: lambda x, v: lax.pad(x, v, ((1, 0, 0), (0, 0, 0))),
    X,
    "f32[1]",
)
named("bitcast_to_bool", lambda lax: lambda x: lax.bitcast_convert_type(x, np.bool_), "u8[3]")
named("bitcast_complex", lambda lax: lambda x: lax.bitcast_convert_type(x, np.float32), "c64[3]")
named(
    "bitcast_wrong_last_dim",
    lambda lax: lambda x: lax.bitcast_convert_type(x, np.float32),
    "u8[3,3]",
)
_CONV = ("f32[1,2,3,3]", "f32[2,2,2,2]")
for _name, _pet in (("bf16", ml_dtypes.bfloat16), ("i32", np.int32), ("c64", np.complex64)):
    named(
        f"conv_preferred_{_name}_for_f32",
        lambda lax, pet=_pet: (
            lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", preferred_element_type=pet)
        ),
        *_CONV,
    )
named(
    "conv_preferred_u32_for_i32",
    lambda lax: (
        lambda x, w: lax.conv_general_dilated(
            x, w, (1, 1), "VALID", preferred_element_type=np.uint32
        )
    ),
    "i32[1,2,3,3]",
    "i32[2,2,2,2]",
)
named(
    "broadcast_in_dim_transposing",
    lambda lax: lambda x: lax.broadcast_in_dim(x, (3, 4, 2), (2, 0)),
    X,
)
named(
    "broadcast_in_dim_repeated_dims",
    lambda lax: lambda x: lax.broadcast_in_dim(x, (2, 2), (0, 0)),
    "f32[2,1]",
)
named("full_too_big", lambda lax: lambda: lax.full((1 << 62, 4), 0.0))
named("iota_too_big", lambda lax: lambda: lax.iota(np.int32, 1 << 62))
named(
    "broadcast_in_dim_too_big",
    lambda lax: lambda: lax.broadcast_in_dim(np.float32(0), (1 << 59, 4), ()),
)

ABORTS = ("full_too_big", "iota_too_big", "broadcast_in_dim_too_big")

DOT_SHAPES = ((), (3,), (4,), (2, 3), (3, 2), (3, 4), (2, 3, 4))
SLICE_SIZES = ((1, 1), (1,), (3, 1), (2, 3), (1, 1, 1), ())
UPDATE_SHAPES = ((1, 1), (1,), (3, 3), (2, 3), (1, 1, 1))
IOTA_DTYPES = ("int32", "float32", "bool", "uint8", "complex64")
BROADCAST_OPERANDS = ((), (1,), (3,), (2, 3))
BROADCAST_TARGETS = ((3,), (2, 3), (-1, 3), (3, 3), (0, 3), (2, 1, 3))


def _dot(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    a, b = key
    return (lambda lax: lambda x, y: lax.dot(x, y)), (spec(a), spec(b))


def _dynamic_slice(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    n_starts, sizes = key
    return (lambda lax: lambda x: lax.dynamic_slice(x, (0,) * n_starts, sizes)), (X,)


def _dynamic_update_slice(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    n_starts, upd = key
    return (lambda lax: lambda x, u: lax.dynamic_update_slice(x, u, (0,) * n_starts)), (
        X,
        spec(upd),
    )


def _iota(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    dtype, size = key
    return (lambda lax: lambda: lax.iota(np.dtype(dtype), size)), ()


def _broadcast_in_dim(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    operand, target, dims = key
    return (lambda lax: lambda x: lax.broadcast_in_dim(x, target, dims)), (spec(operand),)


def _broadcast_points() -> Iterator[tuple[Any, ...]]:
    for operand, target in itertools.product(BROADCAST_OPERANDS, BROADCAST_TARGETS):
        for dims in itertools.product(range(len(target) + 1), repeat=len(operand)):
            yield operand, target, dims


def _transpose(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    (perm,) = key
    return (lambda lax: lambda x: lax.transpose(x, perm)), ("f32[2,3,1]",)


def _reshape(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    (sizes,) = key
    return (lambda lax: lambda x: lax.reshape(x, sizes)), (X,)


def _full(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    (shape,) = key
    return (lambda lax: lambda: lax.full(shape, 0.0)), ()


# The element-wise operations of lax, by arity, against every kind of operand.
UNARY_OPS = [
    "neg",
    "sign",
    "floor",
    "ceil",
    "round",
    "is_finite",
    "exp",
    "exp2",
    "log",
    "expm1",
    "log1p",
    "tanh",
    "logistic",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "real",
    "imag",
    "conj",
    "abs",
    "sqrt",
    "rsqrt",
    "cbrt",
    "square",
    "not",
    "population_count",
    "clz",
    "lgamma",
    "digamma",
    "bessel_i0e",
    "bessel_i1e",
    "erf",
    "erfc",
    "erf_inv",
]
BINARY_OPS = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "atan2",
    "nextafter",
    "complex",
    "and",
    "or",
    "xor",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "eq",
    "ne",
    "ge",
    "gt",
    "le",
    "lt",
    "polygamma",
    "igamma",
    "igammac",
    "zeta",
]
OPERAND_KINDS = ("b", "i32", "u8", "f32", "c64")


def _elementwise(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    name, kind = key
    arity = 1 if name in UNARY_OPS else 2
    return (lambda lax: getattr(lax, name)), (f"{kind}[2]",) * arity


# Reductions against axes in and out of [0, ndim), negative and repeated: lax
# counts no axis from the end. ``reduce_add`` / ``reduce_xor_monoid`` are
# ``lax.reduce`` with a monoid JAX turns into ``reduce_sum`` / ``reduce_xor``;
# ``reduce_general`` is ``lax.reduce`` with a computation of its own.
AXIS_REDUCERS = (
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_and",
    "reduce_or",
    "reduce_xor",
    "reduce_add",
    "reduce_xor_monoid",
    "reduce_general",
    "argmax",
    "argmin",
)
_LOGICAL = ("reduce_and", "reduce_or", "reduce_xor", "reduce_xor_monoid")
REDUCTION_AXES = tuple(range(-3, 3))


def _reduction_points() -> Iterator[tuple[Any, ...]]:
    for name in AXIS_REDUCERS:
        lengths = (1,) if name.startswith("arg") else (0, 1, 2)
        for n in lengths:
            for axes in itertools.product(REDUCTION_AXES, repeat=n):
                yield name, axes


def _reduction(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    name, axes = key

    def build(lax: Any) -> Callable[..., Any]:
        def run(x: Any) -> Any:
            if name.startswith("arg"):
                return getattr(lax, name)(x, axes[0], np.int32)
            if name == "reduce_add":
                return lax.reduce(x, np.float32(0), lax.add, axes)
            if name == "reduce_xor_monoid":
                return lax.reduce(x, np.bool_(False), lax.bitwise_xor, axes)
            if name == "reduce_general":
                sum_of_squares = lambda a, b: lax.add(a, lax.mul(b, b))  # noqa: E731
                return lax.reduce(x, np.float32(0), sum_of_squares, axes)
            return getattr(lax, name)(x, axes)

        return run

    return build, (spec((2, 3), "b" if name in _LOGICAL else "f32"),)


GRIDS: dict[str, tuple[Callable[[], Iterator[tuple[Any, ...]]], Callable[..., Any]]] = {
    "elementwise": (
        lambda: itertools.product((*UNARY_OPS, *BINARY_OPS), OPERAND_KINDS),
        _elementwise,
    ),
    "dot": (lambda: itertools.product(DOT_SHAPES, repeat=2), _dot),
    "dynamic_slice": (lambda: itertools.product(range(4), SLICE_SIZES), _dynamic_slice),
    "dynamic_update_slice": (
        lambda: itertools.product(range(4), UPDATE_SHAPES),
        _dynamic_update_slice,
    ),
    "iota": (lambda: itertools.product(IOTA_DTYPES, (-2, -1, 0, 3)), _iota),
    "broadcast_in_dim": (_broadcast_points, _broadcast_in_dim),
    "transpose": (
        lambda: ((p,) for r in range(4) for p in itertools.product((-1, 0, 1, 2, 3), repeat=r)),
        _transpose,
    ),
    "reshape": (
        lambda: ((s,) for r in (1, 2) for s in itertools.product((-1, 0, 1, 2, 3, 6), repeat=r)),
        _reshape,
    ),
    "full": (
        lambda: ((s,) for r in range(3) for s in itertools.product((-2, -1, 0, 2), repeat=r)),
        _full,
    ),
    "reduction_axes": (_reduction_points, _reduction),
}

EAGER_FAMILIES = ("reduction_axes",)
"""Families also run eagerly under JAX: where ``make_jaxpr`` returns but the
program fails when lowered (a negative or repeated axis of ``reduce_and``),
the golden's ``"eager"`` section records that class, which Tessela raises while
tracing."""


def key_str(key: tuple[Any, ...]) -> str:
    """The golden file's key for a grid point."""
    return repr(key)
