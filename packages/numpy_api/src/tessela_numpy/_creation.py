"""Array creation: ``array``, ``asarray``, ``zeros``, ``full``, ... (``arange`` and
``linspace`` are in ``_ranges``, ``eye`` in ``_matrix_ops``).

Creation binds primitives the way JAX does (``broadcast_in_dim`` of a scalar
literal, ``iota``, ``convert_element_type``), so the same code is traced into
jaxprs and, once a backend registers implementations, runs eagerly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import (
    ArrayCopySemantics,
    ArrayOps,
    EvalTrace,
    get_current_trace,
    lax,
    to_concrete_array,
)
from tessela_tracer import dtypes as _dt
from tessela_tracer.extend import (
    device_put_p,
    random_unwrap,
    random_wrap,
)
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    dtype_arg,
    dtype_is,
    is_arraylike,
    wrap_int,
)
from ._shapes import Shape, canonicalize_shape, check_element_count, is_python_scalar

__all__ = [
    "array", "asarray", "empty", "empty_like", "full", "full_like", "ones", "ones_like",
    "place_result", "zeros", "zeros_like",
]  # fmt: skip


def _default(kind: type) -> np.dtype[Any]:
    return _dt.canonicalize_dtype(
        {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}[kind]
    )


def _leaves(obj: Any) -> list[Any]:
    if isinstance(obj, list | tuple):
        return [leaf for o in obj for leaf in _leaves(o)]
    return [obj]


def _check_int_leaves(leaves: list[Any], dtype: np.dtype[Any]) -> None:
    """Refuse Python integers that ``dtype`` cannot hold, as NumPy and JAX do."""
    if dtype.kind not in "iu":
        return
    info = _dt.iinfo(dtype)
    for leaf in leaves:
        if type(leaf) is int and not info.min <= leaf <= info.max:
            raise OverflowError(
                f"Python integer {leaf} out of bounds for {dtype}; pass a dtype that holds "
                f"it (a wider integer type, or a float type) or reduce it into "
                f"[{info.min}, {info.max}] first"
            )


def _stack_traced(obj: Any, dtype: np.dtype[Any]) -> Any:
    if isinstance(obj, list | tuple):
        parts = []
        for o in obj:
            p = _stack_traced(o, dtype)
            shape = aval_of(p).shape
            parts.append(lax.broadcast_in_dim(p, (1, *shape), tuple(range(1, len(shape) + 1))))
        shapes = {aval_of(p).shape for p in parts}
        if len(shapes) != 1:
            raise ValueError(f"array: nested sequences have inconsistent shapes {sorted(shapes)}")
        return lax.concatenate(parts, 0) if len(parts) > 1 else parts[0]
    if isinstance(obj, ArrayOps):
        aval = aval_of(obj)
        if aval.dtype == dtype and not aval.weak_type:
            return obj
        return lax.convert_element_type(obj, dtype)
    return convert(obj, dtype)


def array(
    object: Any,
    dtype: DTypeLike | None = None,
    copy: bool = True,
    order: str | None = "K",
    ndmin: int = 0,
    *,
    device: object = None,
) -> Array:
    """Create an array from an array, a scalar or (nested) lists of them.

    Args:
      object: an array, tracer, NumPy array, Python scalar, or nested
        lists/tuples of those.
      dtype: the dtype of the result; by default the promoted type of the
        input, with Python scalars weakly typed.
      copy: accepted for NumPy compatibility (arrays are immutable).
      order: only ``"K"``, ``"C"`` or ``None``.
      ndmin: minimum number of dimensions (leading size-1 axes are added).
      device: the device to place the result on.

    Returns:
      The array.

    Raises:
      TypeError: ``object`` holds something that is not array-like.
      OverflowError: a Python integer does not fit the (requested or
        default) integer dtype.

    >>> from tessela_tracer import make_jaxpr
    >>> print(make_jaxpr(lambda x: array([x, 2.0]))(1.0))
    { lambda ; a:f32[]. let
        b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
        c:f32[1] = broadcast_in_dim b
        d:f32[1] = broadcast_in_dim 2.0:f32[]
        e:f32[2] = concatenate[dimension=0] c d
      in (e,) }
    """
    del copy
    if order not in ("K", "C", "A", None):
        raise NotImplementedError(f"array: only C order is supported, got order={order!r}")
    want = dtype_arg(dtype)
    leaves = _leaves(object)
    for leaf in leaves:
        if not is_arraylike(leaf):
            raise TypeError(
                f"array: cannot convert {type(leaf)} to an array; pass numbers, "
                "NumPy arrays or arrays"
            )
    if isinstance(object, list | tuple) and any(isinstance(x, ArrayOps) for x in leaves):
        out_dt = (
            want if want is not None else _dt.result_type(*leaves) if leaves else (_default(float))
        )
        out = _stack_traced(object, np.dtype(out_dt))
    elif isinstance(object, ArrayOps):
        out = object if want is None else convert(object, want)
        if want is None and aval_of(object).weak_type:
            out = convert(object, aval_of(object).dtype)
    else:
        if is_python_scalar(object):
            out_dt = want if want is not None else _default(type(object))
            _check_int_leaves([object], out_dt)  # array(300, int8) raises; add(x, 300) wraps
            out = convert(object, out_dt, weak_type=want is None)
        else:
            if isinstance(object, list | tuple) and leaves:
                _check_int_leaves(leaves, want if want is not None else _dt.result_type(*leaves))
            np_val = np.asarray(object) if want is None else np.asarray(object, dtype=want)
            if np_val.dtype.kind == "O":
                raise TypeError("array: ragged or object input; pass rectangular numeric data")
            out_dt = (
                want
                if want is not None
                else _dt.canonicalize_dtype(
                    np_val.dtype
                    if not (isinstance(object, list | tuple) and np_val.size == 0)
                    else np.float64
                )
            )
            if isinstance(object, list | tuple) and want is None and np_val.size:
                out_dt = _dt.result_type(*leaves)
            out = np.asarray(np_val, dtype=out_dt)
    nd = len(aval_of(out).shape)
    if ndmin > nd:
        shape = aval_of(out).shape
        out = lax.broadcast_in_dim(
            out, (1,) * (ndmin - nd) + shape, tuple(range(ndmin - nd, ndmin))
        )
    # Host data become a concrete array when running eagerly with a backend;
    # under a trace they stay constants (literals or constvars).
    return unchanged(place_result(out, device))


def asarray(
    a: Any,
    dtype: DTypeLike | None = None,
    order: str | None = None,
    *,
    copy: bool | None = None,
    device: object = None,
) -> Array:
    """Convert to an array without copying when nothing changes.

    Args:
      a: an array-like or nested lists of scalars.
      dtype: the dtype of the result.
      order: only ``"C"``, ``"K"`` or ``None``.
      copy: accepted for NumPy compatibility (arrays are immutable, so a
        copy is never needed).
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: asarray(x, dtype="int32"), ShapeDtypeStruct((3,), "f4")).dtype
    dtype('int32')
    """
    if isinstance(a, ArrayOps) and dtype is None and device is None:
        return a
    return array(a, dtype=dtype, order=order or "K", device=device)


def _fill_dtype(fill_value: Any, dtype: Any) -> tuple[np.dtype[Any], bool]:
    if dtype is not None:
        return dtype_arg(dtype), False  # type: ignore[return-value]
    dt, weak = _dt.result_type(fill_value, return_weak_type_flag=True)
    return dt, weak


def full(
    shape: Shape, fill_value: ArrayLike, dtype: DTypeLike | None = None, *, device: object = None
) -> Array:
    """An array of ``shape`` filled with ``fill_value``.

    Args:
      shape: an int or a sequence of concrete ints.
      fill_value: a scalar (or an array broadcastable to ``shape``).
      dtype: the dtype; by default that of ``fill_value`` (Python scalars give
        the default int/float dtype, weakly typed).
      device: the device to place the result on (default: the default device).

    Returns:
      The filled array.

    Raises:
      TypeError: ``shape`` is traced or has a negative entry.
      ValueError: ``fill_value`` does not broadcast to ``shape``, or the
        array would need ``2**63`` bytes or more.

    >>> from tessela_tracer import make_jaxpr
    >>> print(make_jaxpr(lambda: full((2, 3), 7))())
    { lambda ; . let a:i32[2,3] = broadcast_in_dim 7:i32[] in (a,) }
    """
    shape_t = canonicalize_shape(shape)
    check_arraylike("full", fill_value)
    dt, weak = _fill_dtype(fill_value, dtype)
    out = _full(shape_t, fill_value, dt, weak, key_data=dtype is not None)
    return unchanged(place_result(out, device))


def place_result(out: ArrayLike, device: object) -> Array:
    """``out`` as an array: host constants become concrete arrays, on ``device`` if given.

    Args:
      out: a result: an array, a tracer or host data (a literal under a trace).
      device: a device, or ``None`` for the default placement.

    Returns:
      The array (host data stay constants under a trace, as in JAX).

    >>> from tessela_tracer import make_jaxpr
    >>> print(make_jaxpr(lambda: place_result(2.5, None))())
    { lambda ; . let  in (2.5:f32[],) }
    """
    if device is not None:
        placed = device_put_p.bind(
            out, devices=(device,), srcs=(None,), copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
        )
        return unchanged(placed[0])
    if isinstance(out, ArrayOps):
        return unchanged(out)
    trace = get_current_trace()
    if type(trace) is EvalTrace:
        return unchanged(to_concrete_array(out))
    return unchanged(lax.stage(out))


def _full_keys(shape_t: tuple[int, ...], fill_value: Any, dt: Any) -> Any:
    """``full`` of a PRNG key dtype, as JAX's: a scalar fills the key data words."""
    fill_dt = aval_of(fill_value).dtype
    if np.ndim(fill_value) != 0:
        if not _dt.is_key_dtype(fill_dt):
            raise TypeError(
                f"full: a fill_value of dtype {fill_dt} cannot fill an array of key dtype "
                f"{dt}; pass a scalar (each key's data words) or an array of keys"
            )
        return _full(shape_t, fill_value, dt, False, key_data=False)  # keys broadcast
    if _dt.is_key_dtype(fill_dt):
        data = random_unwrap(fill_value)
    else:  # converted as XLA converts: -1 wraps, 1.5 truncates
        data = lax.convert_element_type(fill_value, dt.physical_dtype)
    words = tuple(dt.physical_shape)
    want = (*shape_t, *words)
    if aval_of(data).shape != want:
        ndata = len(aval_of(data).shape)
        data = lax.broadcast_in_dim(data, want, tuple(range(len(want) - ndata, len(want))))
    return random_wrap(data, impl=dt)


def _refuse_key_dtype(fun: str, dtype: Any) -> None:
    if dtype is not None and _dt.is_key_dtype(getattr(dtype, "dtype", dtype)):
        # JAX's *_like functions take a key dtype only from ``a`` itself.
        raise TypeError(
            f"Cannot determine dtype of {dtype}: {fun} takes a key dtype only from its "
            f"argument; call {fun} on an array of keys without dtype=, or use "
            f"{fun.removesuffix('_like')}(shape, dtype={dtype})"
        )


def _full(
    shape_t: tuple[int, ...],
    fill_value: Any,
    dt: np.dtype[Any],
    weak: bool,
    *,
    key_data: bool = True,
) -> Any:
    check_element_count(shape_t, dt.itemsize)
    if key_data and _dt.is_key_dtype(dt):
        # An explicit key dtype fills the key data (keys given without a dtype
        # are broadcast as they are).
        return _full_keys(shape_t, fill_value, dt)
    if weak and isinstance(fill_value, np.ndarray | np.generic) and np.ndim(fill_value) == 0:
        fill_value = fill_value.item()
    if type(fill_value) is int and dtype_is(dt, np.integer):
        # JAX's full reads a Python integer as NumPy's int64, then wraps it
        # into the dtype (full(3, 300, dtype=int8) is 44).
        if not -(2**63) <= fill_value < 2**63:
            raise OverflowError(
                f"full: Python int {fill_value} is too large to convert to int64; pass a "
                "fill_value within the int64 range"
            )
        fill_value = wrap_int(fill_value, dt)
    value = convert(fill_value, dt, weak_type=weak)
    vshape = aval_of(value).shape
    if vshape == shape_t:
        return value
    if len(vshape) > len(shape_t) or any(
        v not in (1, d) for v, d in zip(vshape[::-1], shape_t[::-1], strict=False)
    ):
        vt = aval_of(value).str_short()
        raise ValueError(
            f"Incompatible types for broadcasting: input type={vt} and requested type="
            f"{dt.name}{list(shape_t)}; full needs a fill_value that broadcasts to shape "
            f"{shape_t} (a scalar, or an array whose trailing axes match)"
        )
    lead = len(shape_t) - len(vshape)
    return lax.broadcast_in_dim(value, shape_t, tuple(range(lead, len(shape_t))))


def zeros(shape: Shape, dtype: DTypeLike | None = None, *, device: object = None) -> Array:
    """An array of zeros.

    Args:
      shape: an int or a sequence of concrete ints.
      dtype: the dtype (default float32, or float64 under x64).
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import make_jaxpr
    >>> print(make_jaxpr(lambda: zeros(3))())
    { lambda ; . let a:f32[3] = broadcast_in_dim 0.0:f32[] in (a,) }
    """
    return full(shape, 0, _default(float) if dtype is None else dtype, device=device)


def ones(shape: Shape, dtype: DTypeLike | None = None, *, device: object = None) -> Array:
    """An array of ones.

    Args:
      shape: an int or a sequence of concrete ints.
      dtype: the dtype (default float32).
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda: ones((2, 2), dtype=bool)).dtype
    dtype('bool')
    """
    return full(shape, 1, _default(float) if dtype is None else dtype, device=device)


def empty(shape: Shape, dtype: DTypeLike | None = None, *, device: object = None) -> Array:
    """An array of the given shape; its contents are zeros (arrays are immutable).

    Args:
      shape: an int or a sequence of concrete ints.
      dtype: the dtype (default float32).
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: empty((2, 1))).shape
    (2, 1)
    """
    return zeros(shape, dtype, device=device)


def full_like(
    a: ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: object = None,
) -> Array:
    """An array like ``a`` (shape and dtype) filled with ``fill_value``.

    Args:
      a: an array-like, or any object with ``shape`` and ``dtype`` (such as a
        ``ShapeDtypeStruct``), giving the default shape and dtype.
      fill_value: the value.
      dtype: overrides ``a``'s dtype; without it a weakly typed ``a`` gives a
        weakly typed result.
      shape: overrides ``a``'s shape.
      device: the device to place the result on.

    Returns:
      The filled array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: full_like(x, 3), ShapeDtypeStruct((4,), "float16")).dtype
    dtype('float16')
    >>> eval_shape(lambda: full_like(ShapeDtypeStruct((2,), "int8"), 7)).dtype
    dtype('int8')
    """
    _refuse_key_dtype("full_like", dtype)
    if not is_arraylike(a) and hasattr(a, "shape") and hasattr(a, "dtype"):
        check_arraylike("full_like", fill_value)
        a_shape = tuple(a.shape)
        a_dtype = _dt.canonicalize_dtype(a.dtype)
        a_weak = bool(getattr(a, "weak_type", False))
    else:
        check_arraylike("full_like", a, fill_value)
        aval = aval_of(a)
        a_shape, a_dtype, a_weak = aval.shape, aval.dtype, aval.weak_type
    shape_t = a_shape if shape is None else canonicalize_shape(shape)
    dt = a_dtype if dtype is None else dtype_arg(dtype)
    assert dt is not None
    return unchanged(place_result(_full(shape_t, fill_value, dt, dtype is None and a_weak), device))


def zeros_like(
    a: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: object = None,
) -> Array:
    """Zeros with the shape and dtype of ``a``.

    Args:
      a: an array-like (or an object with ``shape`` and ``dtype``).
      dtype: overrides ``a``'s dtype.
      shape: overrides ``a``'s shape.
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(zeros_like, ShapeDtypeStruct((2, 3), "int32")).shape
    (2, 3)
    """
    _refuse_key_dtype("zeros_like", dtype)
    return full_like(a, 0, dtype, shape, device=device)


def ones_like(
    a: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: object = None,
) -> Array:
    """Ones with the shape and dtype of ``a``.

    Args:
      a: an array-like (or an object with ``shape`` and ``dtype``).
      dtype: overrides ``a``'s dtype.
      shape: overrides ``a``'s shape.
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: ones_like(x, dtype="float32"), ShapeDtypeStruct((2,), "i4")).dtype
    dtype('float32')
    """
    _refuse_key_dtype("ones_like", dtype)
    return full_like(a, 1, dtype, shape, device=device)


def empty_like(
    prototype: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: object = None,
) -> Array:
    """An array like ``prototype``; its contents are zeros.

    Args:
      prototype: an array-like (or an object with ``shape`` and ``dtype``).
      dtype: overrides the dtype.
      shape: overrides the shape.
      device: the device to place the result on.

    Returns:
      The array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(empty_like, ShapeDtypeStruct((2,), "uint8")).dtype
    dtype('uint8')
    """
    _refuse_key_dtype("empty_like", dtype)
    return full_like(prototype, 0, dtype, shape, device=device)
