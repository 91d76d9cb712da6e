"""Bad inputs for the NumPy API, run under JAX (to record) and Tessela (to compare).

Shared by ``generate_rejects.py`` (JAX 0.10.2 only) and ``test_rejects.py``
(Tessela only); it imports neither. A case is a builder taking the NumPy
module (``jax.numpy`` or ``tessela_numpy``) and returning a function, plus the
input specs it is traced with (``make_jaxpr``, so no backend is needed).

Two kinds of cases:

- ``NAMED``: one input each, the inputs a new user tries first.
- ``GRIDS``: families of inputs (shapes, axes, values, dtypes), recorded on a
  grid; the tests draw from the grid with hypothesis.

The golden file maps each case to ``"ok"`` (JAX returns a value), the name of
the exception class JAX raises, or ``"abort"`` (JAX kills the process; the
generator runs those in a child process).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

Builder = Callable[[Any], Callable[..., Any]]

# ---------------------------------------------------------------------------- named cases
NAMED: dict[str, tuple[Builder, tuple[str, ...]]] = {}


def named(name: str, build: Builder, *inputs: str) -> None:
    NAMED[name] = (build, inputs)


named("array_uint8_300", lambda m: lambda: m.array([300], dtype=m.uint8))
named("array_uint8_minus1", lambda m: lambda: m.array([-1], dtype=m.uint8))
named("asarray_uint8_300", lambda m: lambda: m.asarray([300], dtype=m.uint8))
named("array_nested_int8", lambda m: lambda: m.array([[-129]], dtype=m.int8))
named("array_int_too_big", lambda m: lambda: m.array([2**70]))
named("array_int32_overflow", lambda m: lambda: m.array([2**40]))
named("array_of_str", lambda m: lambda: m.array(["a"]))
named("zeros_object", lambda m: lambda: m.zeros(3, dtype=object))
named("zeros_str", lambda m: lambda: m.zeros(3, dtype=str))
named("ones_bytes", lambda m: lambda: m.ones(3, dtype=bytes))
named("astype_object", lambda m: lambda x: x.astype(object), "f32[3]")
named("add_rank_mismatch", lambda m: lambda x: x + m.ones(4), "f32[2,3]")
named("add_same_rank", lambda m: lambda x: x + m.ones(4), "f32[3]")
named("full_bad_fill", lambda m: lambda: m.full((2,), m.ones(3)))
named("zeros_negative", lambda m: lambda: m.zeros((-1, 2)))
named("reshape_two_unknowns", lambda m: lambda x: m.reshape(x, (-1, -1)), "f32[2,3]")
named("reshape_minus2", lambda m: lambda x: m.reshape(x, (-2, 3)), "f32[2,3]")
named("transpose_repeated", lambda m: lambda x: m.transpose(x, (0, 0)), "f32[2,3]")
named("transpose_missing", lambda m: lambda x: m.transpose(x, (0,)), "f32[2,3]")
named("eye_negative", lambda m: lambda: m.eye(-1))
named("eye_negative_m", lambda m: lambda: m.eye(2, -1))
named("repeat_negative", lambda m: lambda x: m.repeat(x, -1), "f32[2,3]")
named("arange_zero_step", lambda m: lambda: m.arange(0, 10, 0))
named("arange_traced_stop", lambda m: lambda n: m.arange(n), "i32[]")
named("argmax_bad_axis", lambda m: lambda x: m.argmax(x, axis=3), "f32[2,3]")
named("sum_bad_axis", lambda m: lambda x: m.sum(x, axis=3), "f32[2,3]")
named("item_of_tracer", lambda m: lambda x: x.item(), "f32[]")
named("linspace_negative_num", lambda m: lambda: m.linspace(0, 1, -1))
named("broadcast_to_negative", lambda m: lambda x: m.broadcast_to(x, (-1, 3)), "f32[2,3]")
named("zeros_too_big", lambda m: lambda: m.zeros((1 << 62, 4)))
named("zeros_bytes_overflow", lambda m: lambda: m.zeros((1 << 59, 4)))
named("ones_too_big_int8", lambda m: lambda: m.ones((1 << 60, 8), dtype=m.int8))
named("arange_too_big", lambda m: lambda: m.arange(1 << 62))

# Cases that JAX answers by killing the process: the generator runs them in a
# child process and records "abort"; Tessela raises a ValueError instead.
ABORTS = ("zeros_too_big", "zeros_bytes_overflow", "ones_too_big_int8", "arange_too_big")

# --------------------------------------------------------------------------- grid cases
SIZES = (-2, -1, 0, 1, 3)
BROADCAST_SHAPES = ((), (1,), (3,), (4,), (2, 1), (1, 3), (2, 3), (4, 3), (2, 2, 3), (3, 1, 1))
INT_VALUES = (
    -(2**63) - 1, -(2**63), -(2**31) - 1, -(2**31), -129, -128, -1, 0,
    127, 128, 255, 256, 2**15, 2**16, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63,
)  # fmt: skip
INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "bool_", None)
BAD_DTYPES = (
    "object", "str", "bytes", "datetime64[s]", "timedelta64[s]", "U3", "S2",
    "float32", "int8", "bool_", "complex64",
)  # fmt: skip
AXES = tuple(range(-4, 5))
REDUCTIONS = ("sum", "argmax", "argmin", "max", "mean", "cumsum", "expand_dims", "squeeze")


def _dtype(m: Any, name: str | None) -> Any:
    if name in (None, "object", "datetime64[s]", "timedelta64[s]", "U3", "S2"):
        return name
    if name == "str":
        return str
    if name == "bytes":
        return bytes
    return getattr(m, name)


def _creation(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    fn, shape = key
    if fn == "full":
        return (lambda m: lambda: m.full(shape, 1.0)), ()
    return (lambda m: lambda: getattr(m, fn)(shape)), ()


def _reshape(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    (shape,) = key
    return (lambda m: lambda x: m.reshape(x, shape)), ("f32[2,3]",)


def _transpose(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    (axes,) = key
    return (lambda m: lambda x: m.transpose(x, axes)), ("f32[2,3,1]",)


def _broadcast(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    a, b = key
    spec = lambda s: "f32[" + ",".join(map(str, s)) + "]"  # noqa: E731
    return (lambda m: lambda x, y: m.add(x, y)), (spec(a), spec(b))


def _full_fill(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    shape, fill = key
    spec = "f32[" + ",".join(map(str, fill)) + "]"
    return (lambda m: lambda v: m.full(shape, v)), (spec,)


def _int_value(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    value, dtype = key
    return (lambda m: lambda: m.array([value], dtype=_dtype(m, dtype))), ()


def _bad_dtype(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    fn, dtype = key
    calls: dict[str, Callable[[Any, Any], Callable[..., Any]]] = {
        "zeros": lambda m, d: lambda: m.zeros(3, dtype=d),
        "ones": lambda m, d: lambda: m.ones(3, dtype=d),
        "full": lambda m, d: lambda: m.full(3, 1, dtype=d),
        "arange": lambda m, d: lambda: m.arange(3, dtype=d),
        "eye": lambda m, d: lambda: m.eye(2, dtype=d),
        "astype": lambda m, d: lambda x: x.astype(d),
    }
    call = calls[fn]
    return (lambda m: call(m, _dtype(m, dtype))), ("f32[3]",) if fn == "astype" else ()


def _axis(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    fn, axis = key
    return (lambda m: lambda x: getattr(m, fn)(x, axis)), ("f32[2,1,3]",)


def _eye(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    n, mm, k = key
    return (lambda m: lambda: m.eye(n, mm, k)), ()


def _arange(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    start, stop, step = key
    return (lambda m: lambda: m.arange(start, stop, step)), ()


def _repeat(key: tuple[Any, ...]) -> tuple[Builder, tuple[str, ...]]:
    repeats, axis = key
    return (lambda m: lambda x: m.repeat(x, repeats, axis=axis)), ("f32[2,3]",)


def _shapes(sizes: tuple[int, ...], max_rank: int) -> Iterator[tuple[int, ...]]:
    for rank in range(max_rank + 1):
        yield from itertools.product(sizes, repeat=rank)


GRIDS: dict[str, tuple[Callable[[], Iterator[tuple[Any, ...]]], Callable[..., Any]]] = {
    "creation_shape": (
        lambda: ((f, s) for f in ("zeros", "ones", "empty", "full") for s in _shapes(SIZES, 3)),
        _creation,
    ),
    "reshape": (
        lambda: (
            (s,) for r in (1, 2, 3) for s in itertools.product((-2, -1, 0, 1, 2, 3, 6), repeat=r)
        ),
        _reshape,
    ),
    "transpose": (
        lambda: ((a,) for r in (0, 1, 2, 3) for a in itertools.product((-1, 0, 1, 2, 3), repeat=r)),
        _transpose,
    ),
    "broadcast": (lambda: itertools.product(BROADCAST_SHAPES, repeat=2), _broadcast),
    "full_fill": (
        lambda: itertools.product(((2,), (2, 3), (3,), ()), BROADCAST_SHAPES[:8]),
        _full_fill,
    ),
    "int_value": (lambda: itertools.product(INT_VALUES, INT_DTYPES), _int_value),
    "bad_dtype": (
        lambda: itertools.product(("zeros", "ones", "full", "arange", "eye", "astype"), BAD_DTYPES),
        _bad_dtype,
    ),
    "axis": (lambda: itertools.product(REDUCTIONS, AXES), _axis),
    "eye": (lambda: itertools.product((-2, -1, 0, 2), (None, -1, 0, 3), (-3, 0, 1)), _eye),
    "arange": (
        lambda: itertools.product((0, 5, -2, 0.5), (10, -3, 0), (0, 1, -1, 2, 0.5)),
        _arange,
    ),
    "repeat": (lambda: itertools.product((-2, -1, 0, 2), (None, 0, 1, 2, -3)), _repeat),
}


def key_str(key: tuple[Any, ...]) -> str:
    """The golden file's key for a grid point."""
    return repr(key)
