"""lax functions composed of other lax functions, under JAX's names.

``full``/``full_like``, the one-axis slicing helpers (``slice_in_dim``,
``index_in_dim``, their dynamic and update forms), ``sort_key_val``,
``batch_matmul`` and ``associative_scan``. None binds a primitive of its own:
each stages the equations JAX's function stages.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer import _dtypes
from tessela_tracer import _lax as ew
from tessela_tracer import _lax_reduce as rd
from tessela_tracer import _lax_shape as sh
from tessela_tracer._avals import OutSharding, canonicalize_shape
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._jit import jit
from tessela_tracer._prims_conv import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

__all__ = [
    "associative_scan", "batch_matmul", "dynamic_index_in_dim", "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim", "dynamic_update_slice_in_dim", "full", "full_like",
    "index_in_dim", "slice_in_dim", "sort_key_val",
]  # fmt: skip

_T = TypeVar("_T")

_PY_KIND: dict[str, type] = {"i": int, "u": int, "f": float, "c": complex}


def _axis(axis: int, ndim: int, what: str) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"{what}: axis {axis} is out of bounds for an array of rank {ndim}; "
            f"pass an axis in [{-ndim}, {ndim})."
        )
    return axis % ndim


def full(shape: Sequence[int], fill_value: ArrayLike, dtype: DTypeLike | None = None, *,
         sharding: OutSharding = None) -> Array:  # fmt: skip
    """An array of ``shape`` filled with the scalar ``fill_value``.

    Args:
      shape: the result's shape.
      fill_value: a scalar (array of rank 0).
      dtype: the result's dtype; by default ``fill_value``'s (weakly typed for
        Python scalars, as in JAX).
      sharding: reserved; must be None.

    Returns:
      The filled array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda: lax.full((2, 3), 1.0))())
        { lambda ; . let a:f32[2,3] = broadcast_in_dim 1.0:f32[] in (a,) }
    """
    if sharding is not None:
        raise NotImplementedError("full: sharding is not supported; leave it None.")
    shape = canonicalize_shape(shape)
    if _aval(fill_value).ndim:
        raise TypeError(
            f"full must be called with scalar fill_value, got fill_value.shape "
            f"{_aval(fill_value).shape}; use broadcast_to for arrays."
        )
    if dtype is None:
        value = fill_value
    else:
        value = ew.convert_element_type(fill_value, _dtypes.canonicalize_dtype(dtype))
    return sh.broadcast_in_dim(value, shape, ())


def full_like(x: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike | None = None,
              shape: Sequence[int] | None = None, sharding: OutSharding = None) -> Array:  # fmt: skip
    """An array like ``x`` (its shape and dtype unless given) filled with ``fill_value``.

    Args:
      x: the array whose shape and dtype are taken.
      fill_value: a scalar.
      dtype: the result's dtype; by default ``x``'s (weak when ``x`` is weak).
      shape: the result's shape; by default ``x``'s.
      sharding: reserved; must be None.

    Returns:
      The filled array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> import numpy as np
        >>> make_jaxpr(lambda x: lax.full_like(x, 2))(np.ones(3, np.int32)).out_avals
        [ShapedArray(int32[3])]
    """
    aval = _aval(x)
    out_shape = aval.shape if shape is None else shape
    if dtype is None and aval.weak_type and type(fill_value) in (int, float, complex):
        # A weak ``x`` keeps a Python scalar weak, cast to x's kind.
        value = _PY_KIND[aval.dtype.kind](fill_value)
    elif dtype is None:
        value = ew.convert_element_type(fill_value, aval.dtype)
    else:
        value = ew.convert_element_type(fill_value, _dtypes.canonicalize_dtype(dtype))
    return full(out_shape, value, sharding=sharding)


def slice_in_dim(operand: ArrayLike, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Array:  # fmt: skip
    """``operand[start:limit:stride]`` along one ``axis``.

    Args:
      operand: the array.
      start_index: the first index (negative counts from the end; None: 0).
      limit_index: one past the last index (negative counts from the end;
        None: the axis size).
      stride: the step.
      axis: the axis sliced.

    Returns:
      The slice.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.slice_in_dim(x, 1, None, axis=1),
        ...            ShapeDtypeStruct((2, 3), np.float32)).shape
        (2, 2)
    """
    shape = _aval(operand).shape
    axis = _axis(axis, len(shape), "slice_in_dim")
    size = shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = size if limit_index is None else operator.index(limit_index)
    start = start + size if start < 0 else start
    limit = limit + size if limit < 0 else limit
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, operator.index(stride)
    return sh.slice(operand, starts, limits, strides)


def index_in_dim(operand: ArrayLike, index: int, axis: int = 0, keepdims: bool = True) -> Array:
    """The entry ``index`` along ``axis``, with the axis kept (size 1) or dropped.

    Args:
      operand: the array.
      index: a static index (negative counts from the end).
      axis: the axis.
      keepdims: keep ``axis`` as a size-1 axis.

    Returns:
      The entry.

    Raises:
      IndexError: ``index`` is out of bounds.
    """
    shape = _aval(operand).shape
    axis = _axis(axis, len(shape), "index_in_dim")
    index, size = operator.index(index), shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    out = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else sh.squeeze(out, (axis,))


def dynamic_slice_in_dim(operand: ArrayLike, start_index: ArrayLike, slice_size: int,
                         axis: int = 0, *, allow_negative_indices: bool = True) -> Array:  # fmt: skip
    """``dynamic_slice`` along one axis: ``slice_size`` entries from a traced start.

    Args:
      operand: the array.
      start_index: a scalar start (negative counts from the end; clamped so the
        slice stays in bounds).
      slice_size: the static length of the slice.
      axis: the axis.
      allow_negative_indices: accepted for JAX compatibility; negative starts
        always count from the end here.

    Returns:
      The slice.
    """
    del allow_negative_indices
    shape = _aval(operand).shape
    axis = _axis(axis, len(shape), "dynamic_slice_in_dim")
    starts = [_zero_index(start_index)] * len(shape)
    sizes = list(shape)
    starts[axis], sizes[axis] = start_index, operator.index(slice_size)
    return sh.dynamic_slice(operand, starts, sizes)


def _zero_index(index: Any) -> Any:
    # The other axes' start: 0 in the index's own dtype (start indices share
    # one dtype; a Python 0 beside an int32 index would be int64 under x64).
    if isinstance(index, int):
        return 0
    return _aval(index).dtype.type(0)  # a NumPy scalar: concrete, nothing staged


def _dynamic_index(operand: Any, index: Any, axis: int, keepdims: bool) -> Array:
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else sh.squeeze(out, (axis,))


_dynamic_index.__name__ = _dynamic_index.__qualname__ = "dynamic_index_in_dim"
_dynamic_index_jit = jit(_dynamic_index, static_argnums=(2, 3))


def dynamic_index_in_dim(operand: ArrayLike, index: ArrayLike, axis: int = 0,
                         keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Array:  # fmt: skip
    """The entry at a traced ``index`` along ``axis`` (staged as a ``jit``, as in JAX).

    Args:
      operand: the array.
      index: a scalar index (negative counts from the end; clamped).
      axis: the axis.
      keepdims: keep ``axis`` as a size-1 axis.
      allow_negative_indices: accepted for JAX compatibility.

    Returns:
      The entry.
    """
    del allow_negative_indices
    axis = _axis(axis, _aval(operand).ndim, "dynamic_index_in_dim")
    out: Array = _dynamic_index_jit(operand, index, axis, bool(keepdims))
    return out


def dynamic_update_slice_in_dim(operand: ArrayLike, update: ArrayLike,
                                start_index: ArrayLike, axis: int) -> Array:  # fmt: skip
    """``dynamic_update_slice`` along one axis.

    Args:
      operand: the array updated.
      update: the block written, of ``operand``'s rank.
      start_index: a scalar start along ``axis`` (clamped as in JAX).
      axis: the axis.

    Returns:
      The updated array.
    """
    ndim = _aval(operand).ndim
    axis = _axis(axis, ndim, "dynamic_update_slice_in_dim")
    starts = [_zero_index(start_index)] * ndim
    starts[axis] = start_index
    return sh.dynamic_update_slice(operand, update, starts)


def _dynamic_update_index(operand: Any, update: Any, index: Any, axis: int) -> Array:
    op_aval, up_aval = _aval(operand), _aval(update)
    if up_aval.ndim == op_aval.ndim - 1:
        kept = [d for d in range(op_aval.ndim) if d != axis]
        shape = list(up_aval.shape)
        shape.insert(axis, 1)
        update = sh.broadcast_in_dim(update, shape, kept)
    return dynamic_update_slice_in_dim(operand, update, index, axis)


_dynamic_update_index.__name__ = "dynamic_update_index_in_dim"
_dynamic_update_index.__qualname__ = "dynamic_update_index_in_dim"
_dynamic_update_index_jit = jit(_dynamic_update_index, static_argnums=(3,))


def dynamic_update_index_in_dim(operand: ArrayLike, update: ArrayLike, index: ArrayLike,
                                axis: int) -> Array:  # fmt: skip
    """Write ``update`` at a traced ``index`` along ``axis`` (staged as a ``jit``).

    Args:
      operand: the array updated.
      update: the entry written: ``operand``'s rank, or one less (the axis left out).
      index: a scalar index along ``axis``.
      axis: the axis.

    Returns:
      The updated array.

    Raises:
      TypeError: ``update``'s rank is neither ``operand``'s nor one less.
    """
    op_aval, up_aval = _aval(operand), _aval(update)
    axis = _axis(axis, op_aval.ndim, "dynamic_update_index_in_dim")
    if up_aval.ndim not in (op_aval.ndim, op_aval.ndim - 1):
        raise TypeError(
            "dynamic_update_index_in_dim update rank must be equal to operand rank or one "
            f"less, got update shape {up_aval.shape} for operand shape {op_aval.shape}."
        )
    out: Array = _dynamic_update_index_jit(operand, update, index, axis)
    return out


def sort_key_val(keys: ArrayLike, values: ArrayLike, dimension: int = -1,
                 is_stable: bool = True) -> tuple[Array, Array]:  # fmt: skip
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way.

    Args:
      keys: the sort keys.
      values: an array of ``keys``'s shape.
      dimension: the axis sorted.
      is_stable: keep the order of equal keys.

    Returns:
      ``(sorted_keys, permuted_values)``.
    """
    k, v = rd.sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v


def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None) -> Array:
    """Matrix products over matching leading batch axes: ``(..., m, k) @ (..., k, n)``.

    Args:
      lhs: an array of rank at least 2.
      rhs: an array of ``lhs``'s rank, with the same batch axes.
      precision: as for ``dot_general``.

    Returns:
      The batched product, ``(..., m, n)``.

    Raises:
      ValueError: the ranks differ or are below 2.
    """
    ndim_l, ndim_r = _aval(lhs).ndim, _aval(rhs).ndim
    if min(ndim_l, ndim_r) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {ndim_l}, {ndim_r}")
    if ndim_l != ndim_r:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {ndim_l}, {ndim_r}")
    batch = tuple(range(ndim_l - 2))
    dims = (((ndim_l - 1,), (ndim_r - 2,)), (batch, batch))
    return rd.dot_general(lhs, rhs, dims, precision=precision)


def _interleave(a: Array, b: Array, axis: int) -> Array:
    # a holds the even positions (one more than b when the total is odd): both
    # are spread out with interior zero padding and summed (OR-ed for bools).
    aval = _aval(a)
    extra = aval.shape[axis] == _aval(b).shape[axis]
    zero = np.zeros((), aval.dtype)
    rank = aval.ndim

    def spread(x: Array, low: int, high: int) -> Array:
        config = [(0, 0, 0)] * rank
        config[axis] = (low, high, 1)
        return sh.pad(x, zero, config)

    combine = ew.bitwise_or if aval.dtype == np.bool_ else ew.add
    return combine(spread(a, 0, 1 if extra else 0), spread(b, 1, 0 if extra else 1))


def associative_scan(fn: Callable[[_T, _T], _T], elems: _T, reverse: bool = False,
                     axis: int = 0) -> _T:  # fmt: skip
    """All prefix combinations ``fn`` of ``elems`` along ``axis``, in ``O(log n)`` depth.

    ``fn`` must be associative and act elementwise along ``axis``: it is
    applied to whole slices, pairing neighbours, then recursing on the pairs.

    Args:
      fn: ``fn(a, b)`` combining two pytrees of arrays of equal shapes.
      elems: a pytree of arrays with one length along ``axis``.
      reverse: scan from the end (result ``i`` combines entries ``i..n-1``).
      axis: the scanned axis.

    Returns:
      A pytree like ``elems``: entry ``i`` is ``fn`` over entries ``0..i``.

    Raises:
      ValueError: the leaves' lengths along ``axis`` differ.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import lax, make_jaxpr
        >>> make_jaxpr(lambda x: lax.associative_scan(lax.add, x))(np.ones(5)).out_avals
        [ShapedArray(float32[5])]
    """
    leaves, tree = tree_flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems has no arrays; pass at least one array.")
    ndim = _aval(leaves[0]).ndim
    axis = _axis(axis, ndim, "associative_scan")
    lengths = {_aval(x).shape[axis] for x in leaves}
    if len(lengths) != 1:
        raise ValueError(
            f"Array inputs to associative_scan must have the same first dimension; got "
            f"lengths {sorted(lengths)} along axis {axis}."
        )
    if reverse:
        leaves = [sh.rev(x, (axis,)) for x in leaves]

    def combine(a: list[Array], b: list[Array]) -> list[Array]:
        out, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if out_tree != tree:
            raise TypeError(
                f"associative_scan: fn must return the structure of elems ({tree}), got {out_tree}."
            )
        return out

    def scan(xs: list[Array]) -> list[Array]:
        n = _aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        pairs = combine([slice_in_dim(x, 0, n - 1, 2, axis) for x in xs],
                        [slice_in_dim(x, 1, n, 2, axis) for x in xs])  # fmt: skip
        odd = scan(pairs)
        # Even positions past 0 combine the previous odd result with the entry.
        m = _aval(odd[0]).shape[axis]
        prev = odd if n % 2 else [slice_in_dim(x, 0, m - 1, 1, axis) for x in odd]
        even_tail = combine(prev, [slice_in_dim(x, 2, n, 2, axis) for x in xs])
        even = [sh.concatenate([slice_in_dim(x, 0, 1, 1, axis), e], axis)
                for x, e in zip(xs, even_tail, strict=True)]  # fmt: skip
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    out = scan(list(leaves))
    if reverse:
        out = [sh.rev(x, (axis,)) for x in out]
    result: _T = tree_unflatten(tree, out)
    return result
