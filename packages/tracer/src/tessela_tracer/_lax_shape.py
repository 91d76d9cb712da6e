"""lax-level wrappers for shape, indexing and reduction primitives."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer import _prims_elementwise as ew
from tessela_tracer import _prims_indexing as ix
from tessela_tracer import _prims_shape as sh
from tessela_tracer._avals import OutSharding, canonicalize_shape
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._prims_indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
)
from tessela_tracer.typing import Array, ArrayLike, DTypeLike
from tessela_tracer.typing import unchanged as _unchanged


def _ints(xs: Sequence[Any]) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


def broadcast_in_dim(
    operand: ArrayLike,
    shape: Sequence[int],
    broadcast_dimensions: Sequence[int],
    *,
    out_sharding: OutSharding = None,
) -> Array:
    """Broadcast ``operand`` into ``shape``, its dims landing at ``broadcast_dimensions``.

    Args:
      operand: the array.
      shape: the target shape.
      broadcast_dimensions: for each operand dim, the target dim it maps to.
      out_sharding: reserved; must be None.

    Returns:
      The broadcast array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2,), ()))(1.0))
        { lambda ; a:f32[]. let b:f32[2] = broadcast_in_dim a in (b,) }
    """
    shape = canonicalize_shape(shape)
    dims = _ints(broadcast_dimensions)
    aval = _aval(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))):
        return _unchanged(operand)
    out: Array = sh.broadcast_in_dim_p.bind(
        operand, shape=shape, broadcast_dimensions=dims, sharding=None
    )
    return out


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Array:
    """Add leading dimensions of the given sizes.

    Args:
      operand: the array.
      sizes: leading sizes to add.

    Returns:
      An array of shape ``(*sizes, *operand.shape)``.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.broadcast(x, (2,)), ShapeDtypeStruct((3,), "float32")).shape
        (2, 3)
    """
    nd = _aval(operand).ndim
    sizes = canonicalize_shape(sizes)
    dims = tuple(range(len(sizes), len(sizes) + nd))
    return broadcast_in_dim(operand, (*sizes, *_aval(operand).shape), dims)


def reshape(
    operand: ArrayLike, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
) -> Array:
    """Reshape (row-major) to ``new_sizes``.

    Args:
      operand: the array.
      new_sizes: the new shape, same total size.
      dimensions: optional transpose applied first.

    Returns:
      The reshaped array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.reshape(x, (3, 2)), ShapeDtypeStruct((2, 3), "float32")).shape
        (3, 2)
    """
    new_sizes = canonicalize_shape(new_sizes)
    dims = (
        None
        if dimensions is None or tuple(dimensions) == tuple(range(len(dimensions)))
        else _ints(dimensions)
    )
    if dims is None and _aval(operand).shape == new_sizes:
        return _unchanged(operand)
    out: Array = sh.reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=None)
    return out


def reshape_axis_into(src: int, dst: int, x: ArrayLike, /) -> Array:
    """Merge axis ``src`` of ``x`` into axis ``dst`` (numbered without ``src``), ``src`` major.

    Args:
      src: the axis that disappears.
      dst: the axis it merges into, counted after removing ``src``.
      x: the array.

    Returns:
      ``x`` with one axis fewer.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda x: reshape_axis_into(0, 1, x), np.ones((2, 3, 4))).shape
        (3, 8)
    """
    shape = _aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return reshape(x, tuple(new_shape), tuple(perm))


def reshape_axis_out_of(src: int, size1: int, x: ArrayLike, /) -> Array:
    """Split axis ``src`` of ``x`` into ``(size1, rest)``; the inverse of :func:`reshape_axis_into`.

    Args:
      src: the axis to split.
      size1: the size of the leading part; must divide the axis.
      x: the array.

    Returns:
      ``x`` with one axis more.

    Raises:
      ValueError: ``size1`` does not divide the axis.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda x: reshape_axis_out_of(1, 2, x), np.ones((3, 8))).shape
        (3, 2, 4)
    """
    shape = list(_aval(x).shape)
    size2, ragged = divmod(shape[src], size1)
    if ragged:
        raise ValueError(f"cannot split an axis of size {shape[src]} into parts of {size1}")
    shape[src : src + 1] = [size1, size2]
    return reshape(x, tuple(shape))


def _axis_in_range(axis: int, ndim: int) -> int:
    """``axis`` in ``[0, ndim)`` (a negative one counts from the end), else JAX's ValueError."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Remove size-1 dimensions.

    Args:
      array: the array.
      dimensions: the dims to remove (negative counts from the end).

    Returns:
      The squeezed array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.squeeze(x, (0,)), ShapeDtypeStruct((1, 3), "float32")).shape
        (3,)
    """
    nd = _aval(array).ndim
    # Sorted but not deduplicated: a repeated axis is an error of the primitive.
    dims = tuple(sorted(_axis_in_range(d, nd) for d in _ints(dimensions)))
    if not dims:
        return _unchanged(array)
    out: Array = sh.squeeze_p.bind(array, dimensions=dims)
    return out


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Insert size-1 dimensions at ``dimensions``.

    Args:
      array: the array.
      dimensions: positions in the result.

    Returns:
      The expanded array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.expand_dims(x, (0,)), ShapeDtypeStruct((3,), "float32")).shape
        (1, 3)
    """
    aval = _aval(array)
    given = _ints(dimensions)
    if len(set(given)) != len(given):
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(given)}")
    ndim_out = aval.ndim + len(given)
    dims = [_axis_in_range(d, ndim_out) for d in given]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    dims.sort()
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    bdims = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim(array, shape, bdims)


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Array:
    """Permute dimensions.

    Args:
      operand: the array.
      permutation: the new order of dimensions.

    Returns:
      The transposed array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.transpose(x, (1, 0)), ShapeDtypeStruct((2, 3), "float32")).shape
        (3, 2)
    """
    perm = _ints(permutation)
    if perm == tuple(range(len(perm))) and len(perm) == _aval(operand).ndim:
        return _unchanged(operand)
    out: Array = sh.transpose_p.bind(operand, permutation=perm)
    return out


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Reverse along ``dimensions``.

    Args:
      operand: the array.
      dimensions: dims to reverse.

    Returns:
      The reversed array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.rev(x, (0,)), ShapeDtypeStruct((2,), "float32")).shape
        (2,)
    """
    out: Array = sh.rev_p.bind(operand, dimensions=_ints(dimensions))
    return out


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Array:
    """Join arrays along ``dimension``.

    Args:
      operands: arrays of one dtype, equal except along ``dimension``.
      dimension: the axis.

    Returns:
      The concatenation.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> s = ShapeDtypeStruct((2,), "float32")
        >>> eval_shape(lambda x: lax.concatenate([x, x], 0), s).shape
        (4,)
    """
    if len(operands) == 1:
        return _unchanged(operands[0])
    out: Array = sh.concatenate_p.bind(*operands, dimension=operator.index(dimension))
    return out


def pad(
    operand: ArrayLike, padding_value: ArrayLike, padding_config: Sequence[tuple[int, int, int]]
) -> Array:
    """Pad with low, high and interior padding per dimension.

    Args:
      operand: the array.
      padding_value: scalar of the same dtype.
      padding_config: ``(low, high, interior)`` per dimension.

    Returns:
      The padded array.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.pad(x, 0.0, [(1, 2, 0)]), ShapeDtypeStruct((3,), "float32")).shape
        (6,)
    """
    cfg = tuple(tuple(_ints(c)) for c in padding_config)
    out: Array = sh.pad_p.bind(operand, padding_value, padding_config=cfg)
    return out


def slice(
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Array:
    """Static slice ``operand[start:limit:stride]`` per dimension.

    Args:
      operand: the array.
      start_indices: starts.
      limit_indices: exclusive ends.
      strides: optional steps.

    Returns:
      The slice.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.slice(x, (1,), (3,)), ShapeDtypeStruct((4,), "float32")).shape
        (2,)
    """
    st = None if strides is None else _ints(strides)
    out: Array = sh.slice_p.bind(
        operand, start_indices=_ints(start_indices), limit_indices=_ints(limit_indices), strides=st
    )
    return out


def _index_operands(idx: Sequence[ArrayLike]) -> list[Any]:
    out: list[Any] = []
    for i in idx:
        # A Python int is an index of the default integer dtype (int32, int64
        # under x64), as in JAX; a NumPy integer keeps its dtype (so that mixing
        # it with indices of another dtype is JAX's TypeError).
        if type(i) is int:
            dt = _dtypes.default_int_dtype()
            info = np.iinfo(dt)
            out.append(dt.type(i) if info.min <= i <= info.max else i)
        else:
            out.append(i)
    return out


def _wrapped_starts(operand: ArrayLike, start_indices: Sequence[ArrayLike]) -> list[Any]:
    """Start indices with negatives counted from the end, as JAX's lax does.

    Concrete integers are wrapped in Python; traced ones get ``i < 0`` /
    ``i + size`` / ``select_n``. ``dynamic_slice`` then clamps into bounds.
    """
    shape = _aval(operand).shape
    if len(start_indices) != len(shape):
        raise ValueError(
            "Length of slice indices must match number of operand dimensions "
            f"({len(start_indices)} vs {tuple(shape)}); pass start_indices with one scalar "
            "index per dimension of the operand"
        )
    out: list[Any] = []
    for i, size in zip(_index_operands(start_indices), shape, strict=True):
        if isinstance(i, (int, np.integer)):
            out.append(i + size if i < 0 else i)
            continue
        aval = _aval(i)
        dt = aval.dtype
        negative = ew.lt_p.bind(i, np.zeros((), dt))
        # A weakly typed index is made strong before the shift, as JAX does.
        base = (ew.convert_element_type_p.bind(i, new_dtype=dt, weak_type=False, sharding=None)
                if aval.weak_type else i)  # fmt: skip
        out.append(ew.select_n_p.bind(negative, i, ew.add_p.bind(base, np.asarray(size, dt))))
    return out


def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike], slice_sizes: Sequence[int]
) -> Array:
    """Slice of static size at traced start indices.

    A negative start counts from the end; then starts are clamped so the slice
    stays in bounds (as in JAX).

    Args:
      operand: the array.
      start_indices: one scalar per dimension.
      slice_sizes: static sizes.

    Returns:
      The slice.

    Raises:
      ValueError: ``start_indices`` does not have one index per dimension.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> import numpy as np
        >>> make_jaxpr(lambda x: lax.dynamic_slice(x, (1,), (2,)))(np.ones(3, np.float32)).out_avals
        [ShapedArray(float32[2])]
    """
    out: Array = ix.dynamic_slice_p.bind(
        operand, *_wrapped_starts(operand, start_indices), slice_sizes=_ints(slice_sizes)
    )
    return out


def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike]
) -> Array:
    """Write ``update`` into ``operand`` at traced start indices.

    Args:
      operand: the array.
      update: the block to write.
      start_indices: one scalar per dimension.

    Returns:
      The updated array.

    Raises:
      ValueError: ``start_indices`` does not have one index per dimension.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> s = ShapeDtypeStruct((4,), "float32")
        >>> eval_shape(lambda x: lax.dynamic_update_slice(x, x, (0,)), s).shape
        (4,)
    """
    out: Array = ix.dynamic_update_slice_p.bind(
        operand, update, *_wrapped_starts(operand, start_indices)
    )
    return out


def iota(dtype: DTypeLike, size: int) -> Array:
    """``[0, 1, ..., size-1]`` of ``dtype``.

    Args:
      dtype: the element type.
      size: the length.

    Returns:
      The array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda: lax.iota("int32", 3))().out_avals
        [ShapedArray(int32[3])]
    """
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype: DTypeLike, shape: Sequence[int], dimension: int) -> Array:
    """Indices along ``dimension`` broadcast to ``shape``.

    Args:
      dtype: the element type.
      shape: the result shape.
      dimension: the varying dimension.

    Returns:
      The array.

    Example:
        >>> from tessela_tracer import eval_shape, lax
        >>> eval_shape(lambda: lax.broadcasted_iota("int32", (2, 3), 1)).shape
        (2, 3)
    """
    dt = _dtypes.canonicalize_dtype(dtype)
    out: Array = sh.iota_p.bind(
        dtype=dt,
        shape=canonicalize_shape(shape),
        dimension=operator.index(dimension),
        sharding=None,
    )
    return out


def gather(
    operand: ArrayLike,
    start_indices: ArrayLike,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """XLA gather (see ``GatherDimensionNumbers``).

    Args:
      operand: the source array.
      start_indices: integer index array, index vectors in the last dim.
      dimension_numbers: the gather's dimension mapping.
      slice_sizes: static slice size per operand dim.
      indices_are_sorted: promise indices are sorted.
      unique_indices: promise indices are unique.
      mode: out-of-bounds handling; default promises in-bounds indices.
      fill_value: value for out-of-bounds reads under ``"fill"``.

    Returns:
      The gathered array.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> dn = lax.GatherDimensionNumbers((1,), (0,), (0,))
        >>> f = lambda x: lax.gather(x, np.zeros((2, 1), np.int32), dn, (1, 3))
        >>> eval_shape(f, ShapeDtypeStruct((2, 3), "float32")).shape
        (2, 3)
    """
    m = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if m == GatherScatterMode.FILL_OR_DROP and fill_value is None:
        dt = _aval(operand).dtype
        if _dtypes.issubdtype(dt, np.inexact):
            fill_value = np.nan
        elif _dtypes.issubdtype(dt, np.signedinteger):
            fill_value = int(_dtypes.iinfo(dt).min)
        elif _dtypes.issubdtype(dt, np.unsignedinteger):
            fill_value = int(_dtypes.iinfo(dt).max)
        else:
            fill_value = True
    out: Array = ix.gather_p.bind(
        operand, start_indices, dimension_numbers=dimension_numbers, slice_sizes=_ints(slice_sizes),
        indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices), mode=m,
        fill_value=fill_value,
    )  # fmt: skip
    return out
