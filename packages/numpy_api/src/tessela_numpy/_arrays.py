"""Array-likes: checking, conversion, dtype promotion and rank promotion.

Every public function starts here: arguments are checked with
:func:`check_arraylike` (lists and tuples are refused, as in JAX), brought to
a common dtype with :func:`promote_dtypes` (JAX's lattice, weak Python
scalars) and to a common rank with :func:`promote_shapes` (NumPy's
broadcasting, realised with ``broadcast_in_dim``).

Constants stay constants: Python scalars are passed to primitives as
literals of the right dtype, NumPy arrays as NumPy arrays; only tracers and
arrays go through ``convert_element_type``.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import numpy.typing as npt
from tessela_tracer import (
    ArrayOps,
    EvalTrace,
    ShapedArray,
    Tracer,
    check_rank_promotion,
    get_aval,
    get_current_trace,
    lax,
)
from tessela_tracer import dtypes as _dt
from tessela_tracer.primitives import convert_element_type_p
from tessela_tracer.typing import Array, ArrayLike, DTypeLike, unchanged

from ._shapes import IncompatibleShapesError, broadcast_shapes, is_python_scalar

__all__ = [
    "aval_of", "check_arraylike", "convert", "dtype_arg", "dtype_is", "dtype_or", "full_like", "is_arraylike",
    "ndim_of", "promote_args", "promote_args_inexact", "promote_dtypes", "promote_dtypes_inexact",
    "promote_dtypes_numeric", "promote_numeric", "promote_shapes", "select_n", "shape_of", "to_inexact_dtype",
]  # fmt: skip

# Object, string, bytes and date-time dtypes: NumPy has them, XLA does not.
_UNSUPPORTED_KINDS = frozenset("OSUMm")
_PY_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def is_arraylike(x: object, /) -> bool:
    """Whether ``x`` is an array, a tracer, a NumPy value or a Python scalar."""
    return isinstance(x, (ArrayOps, np.ndarray, np.generic)) or is_python_scalar(x)


def outside_traces(x: object, y: object = None, /) -> bool:
    """Whether a call on ``x`` (and ``y``) runs eagerly: no trace, no tracer operand.

    NumPy functions that JAX compiles as one program (binary element-wise
    functions, reductions, ``matmul``) run as a cached jitted program then.

    Args:
      x: an operand.
      y: a second operand, if any.

    Returns:
      True outside any transformation, on concrete operands.

    Example:
      >>> import numpy as np
      >>> outside_traces(np.ones(2), 1.0)
      True
    """
    return (
        type(get_current_trace()) is EvalTrace
        and not isinstance(x, Tracer)
        and not isinstance(y, Tracer)
    )


def check_arraylike(fun_name: str, /, *args: object) -> None:
    """Refuse arguments that are not arrays or scalars (lists, tuples, ...).

    Args:
      fun_name: the public function's name, for the message.
      *args: the arguments to check.

    Returns:
      None.

    Raises:
      TypeError: an argument is a list, tuple or other non-array.

    >>> check_arraylike("sum", [1, 2, 3])
    Traceback (most recent call last):
    ...
    TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.
    """
    for pos, arg in enumerate(args):
        if not is_arraylike(arg):
            raise TypeError(
                f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at "
                f"position {pos}."
            )


def aval_of(x: object, /) -> ShapedArray:
    """The abstract value of an array-like (Python scalars are weakly typed)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    return get_aval(x)


def shape_of(x: ArrayLike | npt.ArrayLike, /) -> tuple[int, ...]:
    """The shape of an array-like."""
    return tuple(np.shape(x)) if not isinstance(x, ArrayOps) else x.aval.shape


def ndim_of(x: ArrayLike | npt.ArrayLike, /) -> int:
    """The rank of an array-like."""
    return len(shape_of(x))


def dtype_arg(dtype: DTypeLike | None, /, *, name: str = "dtype") -> np.dtype[Any] | None:
    """Canonicalise a user ``dtype`` argument (``None`` stays ``None``).

    Args:
      dtype: ``None``, a NumPy dtype, a scalar type, a string or Python's
        ``bool``/``int``/``float``/``complex``.
      name: the argument's name, for the message.

    Returns:
      The dtype computations use under the current x64 setting.

    Raises:
      TypeError: ``dtype`` does not name a dtype, or names one arrays cannot
        hold (``object``, ``str``, ``bytes``, date-times).

    >>> dtype_arg(float), dtype_arg("int64")
    (dtype('float32'), dtype('int32'))
    """
    if dtype is None:
        return None
    try:
        if dtype is int:
            return _dt.canonicalize_dtype(np.int64)
        if dtype is float:
            return _dt.canonicalize_dtype(np.float64)
        if dtype is complex:
            return _dt.canonicalize_dtype(np.complex128)
        spec: Any = dtype  # a dtype-like, or an object with a ``dtype``
        if not isinstance(spec, type) and hasattr(spec, "dtype"):
            spec = spec.dtype
        out = _dt.canonicalize_dtype(spec)
    except TypeError:
        raise TypeError(
            f"{name}={dtype!r} is not a data type; pass e.g. {name}=tessela_numpy.float32"
        ) from None
    if out.kind in _UNSUPPORTED_KINDS or out.type is np.void:
        raise TypeError(
            f"Tessela arrays hold only number and bool dtypes, got {name}={dtype!r} "
            f"({out}); pass a numeric dtype such as {name}=tessela_numpy.float32"
        )
    return out


_SUBDTYPE: dict[tuple[np.dtype[Any], type], bool] = {}


def dtype_is(dtype: np.dtype[Any], kind: type, /) -> bool:
    """``dtypes.issubdtype(dtype, kind)``, remembered per (dtype, kind).

    Args:
      dtype: a dtype (extension types such as ``bfloat16`` included).
      kind: an abstract NumPy type (``np.inexact``, ``np.complexfloating``, ...).

    Returns:
      Whether ``dtype`` is of that kind.

    >>> dtype_is(np.dtype("float16"), np.inexact), dtype_is(np.dtype("int8"), np.unsignedinteger)
    (True, False)
    """
    key = (dtype, kind)
    hit = _SUBDTYPE.get(key)
    if hit is None:
        hit = _SUBDTYPE[key] = bool(_dt.issubdtype(dtype, kind))
    return hit


def dtype_or(
    dtype: DTypeLike | None, default: np.dtype[Any], /, *, name: str = "dtype"
) -> np.dtype[Any]:
    """:func:`dtype_arg`, with ``default`` when ``dtype`` is ``None``."""
    out = dtype_arg(dtype, name=name)
    return default if out is None else out


def wrap_int(value: int, dtype: np.dtype[Any], /) -> int:
    """``value`` reduced into an integer ``dtype`` modulo ``2**bits``, as XLA converts.

    Args:
      value: a Python integer.
      dtype: an integer dtype.

    Returns:
      The two's-complement value that ``dtype``'s bits keep.

    >>> wrap_int(300, np.dtype(np.int8)), wrap_int(-1, np.dtype(np.uint8))
    (44, 255)
    """
    info = _dt.iinfo(dtype)
    bits = int(info.bits)
    out = value & ((1 << bits) - 1)
    if int(info.min) < 0 and out >= 1 << (bits - 1):
        out -= 1 << bits
    return out


def _python_int_into(value: int, dtype: np.dtype[Any]) -> int:
    # A weakly typed Python integer meeting an integer dtype, as JAX's: it must
    # fit the default integer type (int32 unless x64 is on), then wraps.
    info = _dt.iinfo(dtype)
    if int(info.min) <= value <= int(info.max):
        return value
    default = _dt.canonicalize_dtype(np.int64)
    wide = _dt.iinfo(default)
    if not int(wide.min) <= value <= int(wide.max):  # JAX's class
        raise OverflowError(
            f"Python int {value} too large to convert to {default}; pass it as an explicit "
            "NumPy array of a wider dtype, or reduce it into the array's range first"
        )
    return wrap_int(value, dtype)


def _literal(value: Any, dtype: np.dtype[Any], weak_type: bool) -> ArrayLike:
    """A constant scalar of ``dtype``; a Python scalar when that keeps it weak."""
    if type(value) is int and dtype_is(dtype, np.integer):
        value = _python_int_into(value, dtype)
    if weak_type:
        py = _PY_KIND.get(dtype.kind)
        if py is not None and aval_of(py(0)).dtype == dtype:
            # The value as ``dtype`` holds it (``pi / 180`` rounded to float32).
            scalar: ArrayLike = py(np.asarray(value, dtype=dtype)[()])
            return scalar
    lit: ArrayLike = np.asarray(value, dtype=dtype)[()]
    return lit


@overload
def convert(x: Array, dtype: np.dtype[Any], /, *, weak_type: bool = False) -> Array: ...
@overload
def convert(x: ArrayLike, dtype: np.dtype[Any], /, *, weak_type: bool = False) -> ArrayLike: ...
def convert(x: ArrayLike, dtype: np.dtype[Any], /, *, weak_type: bool = False) -> ArrayLike:
    """Convert ``x`` to ``dtype`` (and weak-type bit); no-op when unchanged.

    Args:
      x: an array-like.
      dtype: the target dtype (already canonical).
      weak_type: whether the result is weakly typed.

    Returns:
      ``x`` itself when nothing changes, a literal for Python scalars, a NumPy
      array for NumPy constants converted to a strong dtype, else the result
      of ``convert_element_type``.
    """
    if is_python_scalar(x):
        return unchanged(_literal(x, dtype, weak_type))
    if isinstance(x, np.ndarray | np.generic) and not weak_type:
        if x.dtype == dtype:
            return x
        out = np.asarray(x).astype(dtype)
        return out[()] if out.ndim == 0 else out
    aval = aval_of(x)  # a weakly typed result of a NumPy value is an array (NumPy has none)
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return unchanged(x)
    return unchanged(
        convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak_type, sharding=None)
    )


def full_like(
    x: ArrayLike,
    fill_value: ArrayLike,
    /,
    *,
    dtype: npt.DTypeLike | None = None,
    shape: tuple[int, ...] | None = None,
) -> Array:
    """An array of ``x``'s shape and dtype (or the given ones) filled with a scalar.

    Args:
      x: an array-like giving the defaults.
      fill_value: a scalar.
      dtype: the dtype, default ``x``'s.
      shape: the shape, default ``x``'s.

    Returns:
      ``broadcast_in_dim`` of the scalar literal.
    """
    aval = aval_of(x)
    dt = aval.dtype if dtype is None else np.dtype(dtype)
    out_shape = aval.shape if shape is None else tuple(shape)
    return lax.broadcast_in_dim(convert(fill_value, dt), out_shape, ())


def select_n(which: ArrayLike, /, *cases: ArrayLike) -> Array:
    """``lax.select_n`` with scalar cases and predicate broadcast to the common shape.

    Args:
      which: a boolean predicate (``False`` picks ``cases[0]``).
      *cases: same-dtype array-likes.

    Returns:
      The selection.
    """
    shape = broadcast_shapes(shape_of(which), *(shape_of(c) for c in cases))

    def fit(v: ArrayLike) -> Array:
        s = shape_of(v)
        if s == shape:
            return unchanged(v)
        return lax.broadcast_in_dim(v, shape, tuple(range(len(shape) - len(s), len(shape))))

    pred = which if not shape_of(which) else fit(which)
    return lax.select_n(pred, *(fit(c) for c in cases))


@overload
def promote_dtypes(*args: Array) -> list[Array]: ...
@overload
def promote_dtypes(*args: ArrayLike) -> list[ArrayLike]: ...
def promote_dtypes(*args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Convert arguments to their common dtype under JAX's promotion rules.

    Args:
      *args: array-likes.

    Returns:
      The converted arguments (weakly typed when every input was).
    """
    if len(args) < 2:
        return list(args)
    if len(args) == 2:
        fast = _promote_pair_fast(*args)
        if fast is not None:
            return fast
    dtype, weak = _dt.result_type(*args, return_weak_type_flag=True)
    return [_promoted(a, dtype, weak) for a in args]


def _promoted(x: ArrayLike, dtype: np.dtype[Any], weak_type: bool) -> ArrayLike:
    """``x`` converted to the promoted ``dtype``: the one conversion of promotion.

    A Python int operand is weakly typed, as in JAX: it is a value of the
    default integer type (int32, int64 under x64) before it meets the other
    operands, so one outside that type's range raises JAX's ``OverflowError``
    whatever ``dtype`` is (``x_uint32 + 2**31``, ``x_float16 + 2**40``).
    """
    if type(x) is int and not -(2**31) <= x < 2**31:
        get_aval(x)  # the weak default integer: OverflowError outside its range
    return convert(x, dtype, weak_type=weak_type)


# Kind order of the promotion lattice for the common NumPy kinds (bfloat16 and
# other extension types take the general path).
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_PY_RANK = {int: 1, float: 2, complex: 3}


def _promote_pair_fast(a: Any, b: Any) -> list[Any] | None:
    """The common cases of binary promotion, without the general lattice walk."""
    a_arr = isinstance(a, ArrayOps)
    b_arr = isinstance(b, ArrayOps)
    if a_arr and b_arr:
        av, bv = a.aval, b.aval
        if av.dtype == bv.dtype and av.weak_type == bv.weak_type:
            return [a, b]
        return None
    arr, scalar = (a, b) if a_arr else (b, a)
    if not (a_arr or b_arr) or type(scalar) not in _PY_RANK:
        return None
    aval = arr.aval
    rank = _KIND_RANK.get(aval.dtype.kind)
    if aval.weak_type or rank is None or rank < _PY_RANK[type(scalar)] or rank == 0:
        return None
    lit = _promoted(scalar, aval.dtype, False)
    return [arr, lit] if a_arr else [lit, arr]


def promote_numeric(x: ArrayLike, /) -> ArrayLike:
    """``x`` with booleans converted to the default integer dtype (JAX's numeric promotion).

    Functions that compute arithmetic on their operand (``square``,
    ``bitwise_count``, ``power`` by an integer) take booleans as 0 and 1.

    >>> import numpy as np
    >>> promote_numeric(np.array([True, False])).dtype
    dtype('int32')
    """
    if aval_of(x).dtype != np.bool_:
        return x
    return convert(x, _dt.canonicalize_dtype(np.int64))


@overload
def promote_dtypes_numeric(*args: Array) -> list[Array]: ...
@overload
def promote_dtypes_numeric(*args: ArrayLike) -> list[ArrayLike]: ...
def promote_dtypes_numeric(*args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Like :func:`promote_dtypes`, then booleans to the default integer dtype.

    >>> import numpy as np
    >>> [a.dtype for a in promote_dtypes_numeric(np.array([True]), True)]
    [dtype('int32'), dtype('int32')]
    """
    promoted = promote_dtypes(*args)
    if not promoted or aval_of(promoted[0]).dtype != np.bool_:
        return promoted  # one dtype for all: only booleans change
    return [promote_numeric(a) for a in promoted]


def to_inexact_dtype(dtype: np.dtype[Any], /) -> np.dtype[Any]:
    """The floating dtype integers and booleans compute in (``float32`` by default)."""
    if _dt.issubdtype(dtype, np.inexact):
        return dtype
    return _dt.canonicalize_dtype(np.float64)


@overload
def promote_dtypes_inexact(*args: Array) -> list[Array]: ...
@overload
def promote_dtypes_inexact(*args: ArrayLike) -> list[ArrayLike]: ...
def promote_dtypes_inexact(*args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Like :func:`promote_dtypes`, then move integer results to floating point."""
    if len(args) == 1 and isinstance(args[0], ArrayOps):
        kind = args[0].aval.dtype.kind
        if kind in "fc":
            return [args[0]]
    dtype, weak = _dt.result_type(*args, return_weak_type_flag=True)
    dtype = to_inexact_dtype(dtype)
    return [_promoted(a, dtype, weak) for a in args]


@overload
def promote_shapes(fun_name: str, /, *args: Array) -> list[Array]: ...
@overload
def promote_shapes(fun_name: str, /, *args: ArrayLike) -> list[ArrayLike]: ...
def promote_shapes(fun_name: str, /, *args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Bring arguments to a common rank by prepending size-1 axes.

    Args:
      fun_name: the public function's name, for the message.
      *args: array-likes of possibly different ranks.

    Returns:
      The arguments; lower-rank arrays get ``broadcast_in_dim`` to rank-padded
      shapes, scalars are left as they are.

    Raises:
      TypeError: the shapes do not broadcast (for arguments of different
        ranks an ``IncompatibleShapesError``, a ``ValueError`` as in JAX).
    """
    if len(args) < 2:
        return list(args)
    shapes = [shape_of(a) for a in args]
    if all(s == shapes[0] for s in shapes):
        return list(args)
    try:
        broadcast_shapes(*shapes)
    except ValueError:
        # JAX: TypeError from the lax operation for equal ranks, ValueError from
        # the rank promotion otherwise.
        cls = TypeError if len({len(s) for s in shapes}) == 1 else IncompatibleShapesError
        raise cls(
            f"{fun_name} got incompatible shapes for broadcasting: {', '.join(map(str, shapes))}."
            " Counted from the last, each axis needs equal sizes or size 1: reshape or "
            "expand_dims an argument to align them."
        ) from None
    check_rank_promotion(fun_name, shapes)  # the jax_numpy_rank_promotion flag
    nd = max(len(s) for s in shapes)
    out = []
    for a, s in zip(args, shapes, strict=True):
        if len(s) == nd or len(s) == 0:
            out.append(a)
        else:
            pad = nd - len(s)
            out.append(lax.broadcast_in_dim(a, (1,) * pad + s, tuple(range(pad, nd))))
    return out


@overload
def promote_args(fun_name: str, /, *args: Array) -> list[Array]: ...
@overload
def promote_args(fun_name: str, /, *args: ArrayLike) -> list[ArrayLike]: ...
def promote_args(fun_name: str, /, *args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Check, promote dtypes, then promote ranks."""
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


@overload
def promote_args_inexact(fun_name: str, /, *args: Array) -> list[Array]: ...
@overload
def promote_args_inexact(fun_name: str, /, *args: ArrayLike) -> list[ArrayLike]: ...
def promote_args_inexact(fun_name: str, /, *args: ArrayLike) -> list[Array] | list[ArrayLike]:
    """Check, promote to a common inexact dtype, then promote ranks."""
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))
