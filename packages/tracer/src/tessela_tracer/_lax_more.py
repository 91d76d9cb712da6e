"""More ``jax.lax`` names: shape helpers, scatter variants, approximate top-k and type names.

``scatter_sub`` binds its own primitive (``scatter_sub_p``); ``scatter_apply``
is a ``scatter`` whose update computation applies a function, as in JAX;
``approx_max_k``/``approx_min_k`` return the exact top ``k`` (a valid answer
for any recall target); ``empty`` returns zeros (its values are unspecified).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Hashable, Sequence

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer import _prims_elementwise as ew
from tessela_tracer import _prims_indexing as ix
from tessela_tracer._avals import OutSharding, ShapedArray
from tessela_tracer._axis_env import axis_size_of
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._custom import _scatter
from tessela_tracer._lax import add, lt, neg, rem, select
from tessela_tracer._lax_composite import full
from tessela_tracer._lax_conv import (
    _conv_transpose_padding,
    conv_general_permutations,
    padtype_to_pads,
)
from tessela_tracer._lax_reduce import top_k
from tessela_tracer._lax_shape import broadcast_in_dim, concatenate, expand_dims, gather
from tessela_tracer._prims_conv import (
    ConvGeneralDilatedDimensionNumbers,
    PrecisionLike,
    dilate_shape,
)
from tessela_tracer._prims_indexing import GatherDimensionNumbers, GatherScatterMode
from tessela_tracer._prims_reduce import DotDimensionNumbers
from tessela_tracer._staging import trace_to_jaxpr
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

__all__ = [
    "ConvGeneralDilatedDimensionNumbers", "DotDimensionNumbers", "PrecisionLike",
    "approx_max_k", "approx_min_k", "axis_size", "conv_general_shape_tuple",
    "conv_shape_tuple", "conv_transpose_shape_tuple", "empty", "index_take",
    "reduce_window_shape_tuple", "scatter_apply", "scatter_sub",
]  # fmt: skip

scatter_sub = _scatter(ix.scatter_sub_p, ew.sub_p)


def _stride_dim(padded: int, window: int, stride: int) -> int:
    return max(0, (int(padded) - int(window)) // int(stride) + 1)


def axis_size(axis_name: Hashable | tuple[Hashable, ...]) -> int:
    """The size of a named mapped axis (the product of the sizes for a tuple of names).

    Args:
      axis_name: an axis name bound by an enclosing ``vmap(..., axis_name=...)``, or
        a tuple of them.

    Returns:
      The size.

    Raises:
      NameError: no enclosing transformation binds the name (JAX's text).

    Example:
        >>> axis_size("unbound")
        Traceback (most recent call last):
        ...
        NameError: unbound axis name: unbound
    """
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    sizes = []
    for name in names:
        size = axis_size_of(name)
        if size is None:
            raise NameError(f"unbound axis name: {name}")
        sizes.append(size)
    return math.prod(sizes)


def empty(
    shape: int | Sequence[int], dtype: DTypeLike, *, out_sharding: OutSharding = None
) -> Array:
    """An array whose values are unspecified (zeros here), as ``jax.lax.empty``.

    Args:
      shape: an int or a sequence of ints.
      dtype: the dtype.
      out_sharding: reserved; must be None.

    Returns:
      The array.

    Example:
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda: empty((2, 3), "int32"))
        ShapeDtypeStruct(shape=(2, 3), dtype=int32)
    """
    if out_sharding is not None:
        raise NotImplementedError("lax.empty: out_sharding is not supported; pass None")
    dims = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(map(int, shape))  # type: ignore[arg-type]
    return full(dims, 0, _dtypes.canonicalize_dtype(dtype))


def scatter_apply(
    operand: ArrayLike,
    scatter_indices: ArrayLike,
    func: Callable[[Array], ArrayLike],
    dimension_numbers: ix.ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Array:
    """Apply the elementwise ``func`` to the entries of ``operand`` the scatter selects.

    Args:
      operand: the array.
      scatter_indices: integer indices, as for ``scatter``.
      func: a unary elementwise function.
      dimension_numbers: a ScatterDimensionNumbers.
      update_shape: the shape of the updates the dimension numbers describe.
      indices_are_sorted: promise sorted indices.
      unique_indices: promise unique indices.
      mode: out-of-bounds handling (default drops).

    Returns:
      ``operand`` with ``func`` applied at the selected entries (once per index).

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> f = lambda x: scatter_apply(x, np.array([[1]]), lax.neg, dn, update_shape=(1,))
        >>> make_jaxpr(f)(np.ones(3, np.float32)).eqns[-1].primitive
        scatter
    """
    dtype = _aval(operand).dtype
    scalar = ShapedArray((), dtype)
    closed = trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar])
    unused = full(tuple(update_shape), 0, dtype)
    out: Array = ix.scatter_p.bind(
        operand, scatter_indices, unused, dimension_numbers=dimension_numbers,
        indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
        mode=GatherScatterMode.from_any(mode), update_jaxpr=closed.jaxpr,
        update_consts=tuple(closed.consts),
    )  # fmt: skip
    return out


def index_take(src: ArrayLike, idxs: Sequence[ArrayLike], axes: Sequence[int]) -> Array:
    """Take ``src`` at one index array per axis in ``axes`` (indices wrap around), as JAX.

    Args:
      src: the array.
      idxs: one integer array per axis of ``axes``, all of one shape.
      axes: the axes they index.

    Returns:
      The gathered array: the index shape, then the axes not in ``axes``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct as S
        >>> f = lambda x: index_take(x, [np.array([0, 2, 5])], (1,))
        >>> eval_shape(f, S((2, 3), "float32")).shape
        (3, 2)
    """
    shape = _aval(src).shape
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    iaval = _aval(indices)
    sizes = np.array([shape[ax] for ax in axes], dtype=iaval.dtype)
    bound = broadcast_in_dim(sizes, iaval.shape, (iaval.ndim - 1,))
    wrapped = rem(indices, bound)  # then Python's modulo: negative indices count from the end
    indices = select(lt(wrapped, full(iaval.shape, 0, iaval.dtype)), add(wrapped, bound), wrapped)
    slice_sizes = [1 if d in axes else s for d, s in enumerate(shape)]
    offset_dims = tuple(range(1, len(shape) - _aval(indices).shape[1] + 1))
    dnums = GatherDimensionNumbers(
        offset_dims=offset_dims, collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes)
    )
    return gather(src, indices, dnums, tuple(slice_sizes))


def _top_k_along(operand: ArrayLike, k: int, dim: int) -> tuple[Array, Array]:
    aval = _aval(operand)
    if not _dtypes.issubdtype(aval.dtype, np.floating):
        raise ValueError("operand must be a floating type")
    nd = aval.ndim
    dim = operator.index(dim) % nd if nd else 0
    return top_k(operand, k, axis=dim)


def approx_max_k(
    operand: ArrayLike,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Array, Array]:
    """The ``k`` largest values along ``reduction_dimension`` and their indices.

    Exact here: the result meets every ``recall_target``.

    Args:
      operand: a floating array.
      k: how many.
      reduction_dimension: the axis.
      recall_target: accepted for JAX's signature.
      reduction_input_size_override: accepted for JAX's signature.
      aggregate_to_topk: accepted for JAX's signature.

    Returns:
      ``(values, indices)``, values in descending order.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct as S
        >>> [o.shape for o in eval_shape(lambda x: approx_max_k(x, 2), S((2, 5), "float32"))]
        [(2, 2), (2, 2)]
    """
    return _top_k_along(operand, k, reduction_dimension)


def approx_min_k(
    operand: ArrayLike,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Array, Array]:
    """The ``k`` smallest values along ``reduction_dimension`` and their indices.

    Exact here, as :func:`approx_max_k`.

    Args:
      operand, k, reduction_dimension, recall_target, reduction_input_size_override,
        aggregate_to_topk: as :func:`approx_max_k`.

    Returns:
      ``(values, indices)``, values in ascending order.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct as S
        >>> [o.shape for o in eval_shape(lambda x: approx_min_k(x, 1, 0), S((2, 5), "float32"))]
        [(1, 5), (1, 5)]
    """
    values, indices = _top_k_along(neg(operand), k, reduction_dimension)
    return neg(values), indices


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The output shape of a convolution of shapes in ``NC...``/``OI...`` order.

    Args:
      lhs_shape: the input's shape (batch, feature, spatial...).
      rhs_shape: the kernel's shape (out feature, in feature, spatial...).
      strides: the window strides.
      pads: ``"SAME"``/``"VALID"``/``"SAME_LOWER"`` or one ``(low, high)`` pair per spatial axis.
      batch_group_count: the batch group count.

    Returns:
      The output shape.

    Raises:
      TypeError: the number of pads is wrong.
      ValueError: a negative padding exceeds its dimension.

    Example:
        >>> conv_shape_tuple((1, 3, 10, 10), (4, 3, 3, 3), (2, 1), "SAME")
        (1, 4, 5, 10)
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, "
            f"got {len(pads)}."
        )
    padded = [int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if any(p < 0 for p in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: got "
            f"padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = tuple(map(_stride_dim, padded, rhs_shape[2:], strides))
    batch = int(lhs_shape[0]) // batch_group_count if batch_group_count > 1 else int(lhs_shape[0])
    return (batch, int(rhs_shape[0]), *space)


def _take(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[p]) for p in perm)


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(range(len(perm)), key=lambda i: perm[i]))


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Sequence[str],
) -> tuple[int, ...]:
    """The output shape of ``conv_general_dilated`` with string dimension numbers.

    Args:
      lhs_shape: the input's shape.
      rhs_shape: the kernel's shape.
      window_strides: the strides.
      padding: a padding name or pairs.
      dimension_numbers: e.g. ``("NHWC", "HWIO", "NHWC")``.

    Returns:
      The output shape, in the output's layout.

    Example:
        >>> conv_general_shape_tuple((1, 10, 10, 3), (3, 3, 3, 4), (2, 2), "VALID",
        ...                          ("NHWC", "HWIO", "NHWC"))
        (1, 4, 4, 4)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(
        _take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm), window_strides, padding
    )
    return _take(out, _inverse(out_perm))


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Sequence[str],
) -> tuple[int, ...]:
    """The output shape of ``conv_transpose`` with string dimension numbers.

    Args:
      lhs_shape, rhs_shape, window_strides, dimension_numbers: as
        :func:`conv_general_shape_tuple`.
      padding: ``"SAME"``/``"VALID"`` or the forward convolution's pairs.

    Returns:
      The output shape, in the output's layout.

    Example:
        >>> conv_transpose_shape_tuple((1, 10, 10, 3), (3, 3, 3, 4), (2, 2), "SAME",
        ...                            ("NHWC", "HWIO", "NHWC"))
        (1, 20, 20, 4)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = _take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        pads = [
            _conv_transpose_padding(k, s, padding)
            for k, s in zip(rhs_t[2:], window_strides, strict=True)
        ]
    else:
        pads = list(padding)
    space = [
        (i - 1) * s - k + 2 + lo + hi
        for i, k, s, (lo, hi) in zip(lhs_t[2:], rhs_t[2:], window_strides, pads, strict=True)
    ]
    return _take((lhs_t[0], rhs_t[0], *space), _inverse(out_perm))


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The output shape of ``reduce_window``.

    Args:
      operand_shape: the operand's shape.
      window_dimensions: the window.
      window_strides: the strides.
      padding: one ``(low, high)`` pair per axis.
      base_dilation: the operand's dilation, or None.
      window_dilation: the window's dilation, or None.

    Returns:
      The output shape.

    Example:
        >>> reduce_window_shape_tuple((10, 12), (3, 2), (2, 2), [(1, 1), (0, 1)])
        (5, 6)
    """
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = [
        int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(operand_shape, padding, strict=True)
    ]
    return tuple(map(_stride_dim, padded, window_dimensions, window_strides))
