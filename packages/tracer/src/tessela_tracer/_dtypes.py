"""Dtypes: JAX's type-promotion lattice with weak types, x64 canonicalization."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, TypeAlias, overload

import ml_dtypes
import numpy as np
import numpy.typing as npt

from tessela_tracer._config import config
from tessela_tracer._key_dtypes import ExtendedDType, extended

_promotion = config.state("jax_numpy_dtype_promotion")

__all__ = [
    "DTypeLike",
    "KeyPromotionError",
    "TypePromotionError",
    "bfloat16",
    "bool_",
    "canonicalize_dtype",
    "dtype",
    "finfo",
    "float0",
    "iinfo",
    "is_weakly_typed",
    "issubdtype",
    "promote_types",
    "result_type",
    "short_dtype_name",
]

DTypeLike: TypeAlias = npt.DTypeLike | ExtendedDType
"""What names a dtype: a NumPy dtype-like (a string, a scalar type, a dtype, an
object with a ``dtype``) or an extended dtype such as a key dtype."""

bool_ = np.dtype(np.bool_)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float0 = np.dtype([("float0", np.void, 0)])
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e4m3b11fnuz = np.dtype(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fnuz = np.dtype(ml_dtypes.float8_e4m3fnuz)
float8_e5m2fnuz = np.dtype(ml_dtypes.float8_e5m2fnuz)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e3m4 = np.dtype(ml_dtypes.float8_e3m4)
float8_e8m0fnu = np.dtype(ml_dtypes.float8_e8m0fnu)
float6_e2m3fn = np.dtype(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = np.dtype(ml_dtypes.float6_e3m2fn)
float4_e2m1fn = np.dtype(ml_dtypes.float4_e2m1fn)
int1 = np.dtype(ml_dtypes.int1)
uint1 = np.dtype(ml_dtypes.uint1)
int2 = np.dtype(ml_dtypes.int2)
uint2 = np.dtype(ml_dtypes.uint2)
int4 = np.dtype(ml_dtypes.int4)
uint4 = np.dtype(ml_dtypes.uint4)

# The float8 types the F8 dot algorithms take (JAX's list); the newer ones beside.
_FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3b11fnuz, float8_e4m3fnuz, float8_e5m2fnuz)
_FLOAT8_MORE = (float8_e4m3, float8_e3m4, float8_e8m0fnu)
# Floats narrower than a byte (one value per byte on the host, as ml_dtypes stores them).
_SUB_BYTE_FLOATS = (float6_e2m3fn, float6_e3m2fn, float4_e2m1fn)
_SUB_BYTE_BITS = {float6_e2m3fn: 6, float6_e3m2fn: 6, float4_e2m1fn: 4}
_NARROW_FLOATS = (*_FLOAT8, *_FLOAT8_MORE, *_SUB_BYTE_FLOATS)
_CUSTOM_FLOATS = frozenset((bfloat16, *_NARROW_FLOATS))
_NARROW_INTS = (int1, uint1, int2, uint2, int4, uint4)
_CUSTOM_INTS = frozenset(_NARROW_INTS)
_SIGNED_NARROW_INTS = frozenset((int1, int2, int4))


class TypePromotionError(ValueError):
    """Raised when two dtypes have no common type in the promotion lattice."""


class KeyPromotionError(TypePromotionError, TypeError):
    """A key dtype mixed with another dtype: no promotion exists.

    JAX raises ``ValueError`` where such dtypes are promoted (``concatenate``
    of typed and raw keys) and ``TypeError`` from arithmetic on keys; this
    class is both, so code catching either works.
    """


# Lattice nodes are dtypes or the weak categories "i*", "f*", "c*" (the types
# of Python scalars). Edges point to the next wider types. 1/2/4-bit integers
# and 4/6/8-bit floats have no edges up: they never promote implicitly. Without x64,
# uint32 with int32 gives int32, so no 64-bit type forms from 32-bit inputs.
_d = np.dtype
_WEAK_NODES = ("i*", "f*", "c*")


def _lattice(x64: bool) -> dict[Any, tuple[Any, ...]]:
    return {
        bool_: ("i*",),
        "i*": (_d("uint8"), _d("int8"), *_NARROW_INTS),
        **dict.fromkeys(_NARROW_INTS, ()),
        _d("uint8"): (_d("int16"), _d("uint16")),
        _d("uint16"): (_d("int32"), _d("uint32")),
        _d("uint32"): (_d("int64") if x64 else _d("int32"), _d("uint64")),
        _d("uint64"): ("f*",),
        _d("int8"): (_d("int16"),),
        _d("int16"): (_d("int32"),),
        _d("int32"): (_d("int64"),),
        _d("int64"): ("f*",),
        "f*": (*_NARROW_FLOATS, bfloat16, _d("float16"), "c*"),
        **dict.fromkeys(_NARROW_FLOATS, ()),
        bfloat16: (_d("float32"),),
        _d("float16"): (_d("float32"),),
        _d("float32"): (_d("float64"), _d("complex64")),
        _d("float64"): (_d("complex128"),),
        "c*": (_d("complex64"),),
        _d("complex64"): (_d("complex128"),),
        _d("complex128"): (),
    }


def _upper_bounds(lattice: dict[Any, tuple[Any, ...]]) -> dict[Any, frozenset[Any]]:
    out: dict[Any, frozenset[Any]] = {}

    def visit(node: Any) -> frozenset[Any]:
        if node not in out:
            acc = {node}
            for child in lattice[node]:
                acc |= visit(child)
            out[node] = frozenset(acc)
        return out[node]

    for node in lattice:
        visit(node)
    return out


_UB = {x64: _upper_bounds(_lattice(x64)) for x64 in (False, True)}


def _strict_lattice() -> dict[Any, tuple[Any, ...]]:
    # jax_numpy_dtype_promotion='strict': only weak types (Python scalars)
    # promote, each to the types of its kind; two different dtypes never do.
    strong = [n for n in _lattice(True) if not isinstance(n, str)]
    ints = tuple(n for n in strong if n.kind in "iu" or n in _CUSTOM_INTS)
    floats = tuple(n for n in strong if n.kind == "f" or n in _CUSTOM_FLOATS)
    complexes = tuple(n for n in strong if n.kind == "c")
    return {
        **dict.fromkeys(strong, ()),
        "i*": ("f*", *ints),
        "f*": ("c*", *floats),
        "c*": complexes,
    }


_UB_STRICT = _upper_bounds(_strict_lattice())

_X64_TO_32 = {
    _d("int64"): _d("int32"),
    _d("uint64"): _d("uint32"),
    _d("float64"): _d("float32"),
    _d("complex128"): _d("complex64"),
}


def dtype(x: DTypeLike | npt.ArrayLike, /) -> np.dtype[Any]:
    """Return the (uncanonicalized) NumPy dtype of a value or dtype-like.

    Args:
      x: a dtype-like, an array, or a Python scalar.

    Returns:
      The NumPy dtype; Python ``int``/``float``/``complex`` map to the
      64-bit types, as in NumPy.

    Example:
        >>> dtype("bfloat16")
        dtype(bfloat16)
    """
    if x is int:
        return _d("int64")
    if x is float:
        return _d("float64")
    if x is complex:
        return _d("complex128")
    if x is bool:
        return bool_
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return _d("int64")
    if isinstance(x, float):
        return _d("float64")
    if isinstance(x, complex):
        return _d("complex128")
    if isinstance(x, ExtendedDType):
        return x  # type: ignore[return-value]  # extended dtypes stand beside NumPy's
    dt = getattr(x, "dtype", None)
    if isinstance(dt, ExtendedDType) and not isinstance(x, type):
        return dt  # type: ignore[return-value]
    if dt is not None and not isinstance(x, type):
        found: np.dtype[Any] = np.dtype(dt)
        return found
    if isinstance(x, str) and x == "float0":
        return float0
    try:
        parsed: np.dtype[Any] = np.dtype(x)  # type: ignore[arg-type]  # unparsable: TypeError
    except TypeError as err:
        raise TypeError(f"Cannot interpret {x!r} as a data type") from err
    return parsed


@functools.cache
def _canonicalize(dt: np.dtype[Any], x64: bool) -> np.dtype[Any]:
    if x64:
        return dt
    return _X64_TO_32.get(dt, dt)


def canonicalize_dtype(dtype_like: DTypeLike, /) -> np.dtype[Any]:
    """Map a dtype to the type Tessela computes in under the x64 setting.

    Args:
      dtype_like: any dtype-like.

    Returns:
      The dtype, with 64-bit types narrowed to 32 bits unless x64 is enabled.

    Example:
        >>> canonicalize_dtype("float64")
        dtype('float32')
    """
    return _canonicalize(dtype(dtype_like), config.x64_enabled)


def is_weakly_typed(x: object, /) -> bool:
    """Return whether ``x`` is weakly typed (a Python scalar or weak array).

    Args:
      x: any value.

    Returns:
      True for Python ``bool``/``int``/``float``/``complex`` scalars and for
      values whose ``aval.weak_type`` is set.

    Example:
        >>> is_weakly_typed(1.0)
        True
    """
    if type(x) in (int, float, complex):
        return True
    aval = getattr(x, "aval", None)
    return bool(getattr(aval, "weak_type", False))


def _weak_node(dt: np.dtype[Any]) -> Any:
    """The lattice node of a weakly typed value of dtype ``dt``."""
    if dt == bool_:
        return bool_
    if dt in _CUSTOM_FLOATS:
        return "f*"
    if dt in _CUSTOM_INTS:
        return "i*"
    kind = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}.get(dt.kind)
    if kind is None:
        raise TypeError(f"{dt} is not a numeric dtype Tessela can promote")
    return kind


def _node_name(node: Any) -> str:
    return (
        {"i*": "int", "f*": "float", "c*": "complex"}.get(node, str(node))
        if isinstance(node, str)
        else str(node)
    )


def _strict_name(node: Any) -> str:
    return repr(str({"i*": int, "f*": float, "c*": complex}.get(node, node)))


@functools.cache
def _least_upper_bound(nodes: frozenset[Any], x64: bool, strict: bool = False) -> Any:
    ub = _UB_STRICT if strict else _UB[x64]
    for n in nodes:
        if n not in ub:
            raise TypeError(f"{n} is not a valid dtype for type promotion")
    common = frozenset.intersection(*(ub[n] for n in nodes))
    best = (common & nodes) or {c for c in common if common <= ub[c]}
    if len(best) == 1:
        return next(iter(best))
    if strict:
        listed = ", ".join(_strict_name(n) for n in sorted(nodes, key=_node_name))
        raise TypePromotionError(
            f"Input dtypes ({listed}) have no available implicit dtype promotion path when "
            "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
            "output type, or set jax_numpy_dtype_promotion=standard."
        )
    names = tuple(_node_name(n) for n in sorted(nodes, key=_node_name))
    narrow = [n for n in nodes if n in _CUSTOM_FLOATS and n != bfloat16]
    if narrow:
        bits = max(_SUB_BYTE_BITS.get(n, 8) for n in narrow)
        why = f"{bits}-bit floats do not promote implicitly, to avoid unintended promotion"
        fix = "x.astype('float32')"
    elif any(n in _CUSTOM_INTS for n in nodes):
        why = (
            "1-bit, 2-bit and 4-bit integers do not promote implicitly, "
            "to avoid unintended promotion"
        )
        fix = "x.astype('int32')"
    else:
        why = "the promotion lattice has no common type for them"
        fix = "x.astype(...)"
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path: {why}. "
        f"Convert an input explicitly, e.g. with {fix}."
    )


def _default_of_kind(dt: np.dtype[Any], x64: bool) -> np.dtype[Any]:
    if dt in _CUSTOM_FLOATS:
        return _d("float64") if x64 else _d("float32")
    if dt.kind in "iu" or dt in _CUSTOM_INTS:
        return _d("int64") if x64 else _d("int32")
    if dt.kind == "f":
        return _d("float64") if x64 else _d("float32")
    if dt.kind == "c":
        return _d("complex128") if x64 else _d("complex64")
    return dt


_WEAK_DEFAULT_64: dict[Any, np.dtype[Any]] = {
    "i*": _d("int64"),
    "f*": _d("float64"),
    "c*": _d("complex128"),
}


def _type_node(x: DTypeLike) -> Any:
    # Identity, not ==: np.dtype("int64") == int holds.
    for t, node in ((int, "i*"), (float, "f*"), (complex, "c*")):
        if x is t:
            return node
    return dtype(x)


def _dtype_and_weak(x: Any, x64: bool) -> tuple[np.dtype[Any], bool]:
    node = _type_node(x) if isinstance(x, type) else None
    if isinstance(node, str):
        return _canonicalize(_WEAK_DEFAULT_64[node], x64), True
    t = type(x)
    if t is bool:
        return bool_, False
    if t is int:
        return _canonicalize(_d("int64"), x64), True
    if t is float:
        return _canonicalize(_d("float64"), x64), True
    if t is complex:
        return _canonicalize(_d("complex128"), x64), True
    if isinstance(x, np.dtype):
        return _canonicalize(x, x64), False
    aval = getattr(x, "aval", None)
    if aval is not None:
        # Staged values keep their dtype: a 64-bit value formed under x64 stays so.
        return np.dtype(aval.dtype), bool(getattr(aval, "weak_type", False))
    return _canonicalize(dtype(x), x64), False


def _is_extended_arg(x: Any) -> bool:
    if isinstance(x, ExtendedDType):
        return True
    aval = getattr(x, "aval", None)
    dt = getattr(aval if aval is not None else x, "dtype", None)
    return isinstance(dt, ExtendedDType)


def _result_type_impl(args: tuple[Any, ...]) -> tuple[np.dtype[Any], bool]:
    if not args:
        raise ValueError("at least one array or dtype is required")
    x64 = config.x64_enabled
    ext = {dtype(a) for a in args if _is_extended_arg(a)}
    if ext:
        if len(ext) == 1 and all(_is_extended_arg(a) for a in args):
            return ext.pop(), False
        names = ", ".join(sorted({str(dtype(a)) for a in args}, key=str))
        raise KeyPromotionError(
            f"dtype={sorted(map(str, ext))[0]} is not a valid dtype for JAX type promotion "
            f"(got {names}). PRNG key arrays support no arithmetic and mix with no other "
            "dtype; use random.key_data(keys) for their uint32 data."
        )
    pairs = [_dtype_and_weak(a, x64) for a in args]
    dts = {dt for dt, _ in pairs}
    all_weak = all(w for _, w in pairs)
    if len(pairs) == 1:
        out, weak = pairs[0]
    elif len(dts) == 1 and not all_weak:
        out, weak = pairs[0][0], False
    elif all_weak and _promotion.value != "strict":
        out, weak = _least_upper_bound(frozenset(dts), x64), True
    else:
        nodes = frozenset(_weak_node(dt) if w else dt for dt, w in pairs)
        lub = _least_upper_bound(nodes, x64, _promotion.value == "strict")
        weak = isinstance(lub, str)
        out = _canonicalize(_WEAK_DEFAULT_64.get(lub, lub), x64)
    weak = weak and out != bool_
    if weak:
        out = _default_of_kind(out, x64)
    return out, weak


@overload
def result_type(*args: object, return_weak_type_flag: Literal[False] = False) -> np.dtype[Any]: ...
@overload
def result_type(
    *args: object, return_weak_type_flag: Literal[True]
) -> tuple[np.dtype[Any], bool]: ...
@overload
def result_type(
    *args: object, return_weak_type_flag: bool
) -> np.dtype[Any] | tuple[np.dtype[Any], bool]: ...
def result_type(
    *args: object, return_weak_type_flag: bool = False
) -> np.dtype[Any] | tuple[np.dtype[Any], bool]:
    """Apply JAX's promotion rules to arrays, scalars and dtypes.

    Args:
      *args: arrays, Python scalars (weakly typed) or dtype-likes.
      return_weak_type_flag: also return whether the result is weakly typed.

    Returns:
      The canonical result dtype, or ``(dtype, weak_type)``.

    Example:
        >>> result_type(np.int8, 1.0)
        dtype('float32')
    """
    dt, weak = _result_type_impl(
        tuple(np.dtype(dtype(a)) if isinstance(a, str) else a for a in args)
    )
    return (dt, weak) if return_weak_type_flag else dt


def promote_types(a: DTypeLike, b: DTypeLike, /) -> np.dtype[Any]:
    """Return the type both dtypes promote to (no weak types, no canonicalizing).

    Args:
      a: a dtype-like.
      b: a dtype-like.

    Returns:
      The least upper bound of ``a`` and ``b`` in the lattice.

    Example:
        >>> promote_types("int8", "uint8")
        dtype('int16')
    """
    nodes = frozenset((_type_node(a), _type_node(b)))
    out = _least_upper_bound(nodes, config.x64_enabled, _promotion.value == "strict")
    if isinstance(out, str):
        return _WEAK_DEFAULT_64[out]
    found: np.dtype[Any] = out
    return found


_ABSTRACT_KINDS = (
    np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger,
    np.inexact, np.floating, np.complexfloating, np.flexible, np.character,
)  # fmt: skip


def issubdtype(a: DTypeLike, b: DTypeLike, /) -> bool:
    """``np.issubdtype`` that also knows bfloat16/float8 are floating and int4 integer.

    Args:
      a: a dtype-like.
      b: a dtype-like or abstract NumPy type such as ``np.floating``.

    Returns:
      Whether ``a`` is a subtype of ``b``.

    Example:
        >>> issubdtype("bfloat16", np.floating)
        True
    """
    if isinstance(b, type) and issubclass(b, extended):
        kind = getattr(dtype(a), "type", None)
        return isinstance(kind, type) and issubclass(kind, b)
    if isinstance(a, ExtendedDType) or isinstance(getattr(a, "dtype", None), ExtendedDType):
        return isinstance(b, ExtendedDType | str) and dtype(a) == b
    if isinstance(b, ExtendedDType):
        return False
    dt = dtype(a)
    if dt in _CUSTOM_FLOATS or dt in _CUSTOM_INTS:
        if dt in _CUSTOM_FLOATS:
            kinds: tuple[Any, ...] = (np.floating, np.inexact, np.number, np.generic)
        else:
            kinds = (np.integer, np.number, np.generic)
            signed = dt in _SIGNED_NARROW_INTS
            kinds += (np.signedinteger,) if signed else (np.unsignedinteger,)
        if b in kinds:
            return True
        # Another abstract kind (np.integer for a float, ...) is never a match.
        return b not in _ABSTRACT_KINDS and dtype(b) == dt
    if isinstance(b, type) and issubclass(b, np.generic):
        return bool(np.issubdtype(dt, b))
    return bool(np.issubdtype(dt, dtype(b)))


# ml_dtypes ships its limit classes without annotations: give them a type here.
_ml_finfo: Callable[[np.dtype[Any]], np.finfo[Any]] = ml_dtypes.finfo
_ml_iinfo: Callable[[np.dtype[Any]], ml_dtypes.iinfo] = ml_dtypes.iinfo


def finfo(dtype_like: DTypeLike, /) -> np.finfo[Any]:
    """Machine limits for floating types, including bfloat16 and float8.

    Args:
      dtype_like: a floating dtype-like.

    Returns:
      An ``ml_dtypes.finfo`` record (``eps``, ``max``, ``tiny``, ...).

    Example:
        >>> float(finfo("bfloat16").eps)
        0.0078125
    """
    return _ml_finfo(dtype(dtype_like))


def iinfo(dtype_like: DTypeLike, /) -> ml_dtypes.iinfo:
    """Machine limits for integer types, including int4.

    Args:
      dtype_like: an integer dtype-like.

    Returns:
      An ``ml_dtypes.iinfo`` record (``min``, ``max``, ``bits``).

    Example:
        >>> int(iinfo("int8").max)
        127
    """
    return _ml_iinfo(dtype(dtype_like))


def short_dtype_name(dt: np.dtype[Any], /) -> str:
    """The short name used in jaxpr text, e.g. ``f32``, ``i8``, ``bf16``.

    Args:
      dt: a dtype.

    Returns:
      The short name.

    Example:
        >>> short_dtype_name(np.dtype("uint8"))
        'u8'
    """
    if dt == float0:
        return "float0"
    if isinstance(dt, ExtendedDType):
        return dt.name
    return (
        dt.name.replace("float", "f")
        .replace("uint", "u")
        .replace("int", "i")
        .replace("complex", "c")
    )


def default_int_dtype() -> np.dtype[Any]:
    """The canonical default integer dtype (int32, or int64 under x64).

    Returns:
      A dtype.

    Example:
        >>> default_int_dtype()
        dtype('int32')
    """
    return canonicalize_dtype(_d("int64"))


def default_float_dtype() -> np.dtype[Any]:
    """The canonical default floating dtype (float32, or float64 under x64).

    Returns:
      A dtype.

    Example:
        >>> default_float_dtype()
        dtype('float32')
    """
    return canonicalize_dtype(_d("float64"))
