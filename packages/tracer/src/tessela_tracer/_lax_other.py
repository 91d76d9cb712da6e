"""``jax.lax`` operations composed of other operations, as JAX composes them.

- ``broadcast_like(arr, like_arr)`` broadcasts to another array's shape.
- ``shape_as_value(shape)`` gives a shape as an integer array.
- ``conv_general_dilated_patches`` extracts the patches a convolution sees, as
  a grouped convolution with an identity kernel; ``conv_general_dilated_local``
  (a locally connected layer: an unshared kernel per output position) is a
  contraction of those patches.
- ``ragged_dot`` / ``ragged_dot_general`` (with
  :class:`RaggedDotDimensionNumbers`) multiply by groups of rows (or of a
  contracted or batch dimension) of sizes ``group_sizes``: the ragged
  operand is expanded to one masked copy per group and contracted with
  ``dot_general``, as JAX's own decomposition does.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import OutSharding
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._lax import bitwise_and, convert_element_type, eq, le, lt, select, sub
from tessela_tracer._lax_conv import conv_dimension_numbers, conv_general_dilated
from tessela_tracer._lax_reduce import cumsum, dot_general
from tessela_tracer._lax_shape import (
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    reshape,
    transpose,
)
from tessela_tracer._prims_conv import (
    ConvGeneralDilatedDimensionNumbers,
    Precision,
    PrecisionLike,
    canonicalize_precision,
)
from tessela_tracer._prims_reduce import DotDimensionNumbers
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

__all__ = [
    "RaggedDotDimensionNumbers",
    "broadcast_like",
    "conv_general_dilated_local",
    "conv_general_dilated_patches",
    "ragged_dot",
    "ragged_dot_general",
    "shape_as_value",
]


def broadcast_like(arr: ArrayLike, like_arr: ArrayLike) -> Array:
    """Broadcast ``arr`` to the shape of ``like_arr`` (NumPy's trailing-axes rule).

    Args:
      arr: the array to broadcast.
      like_arr: an array (or anything with an abstract value) of the target shape.

    Returns:
      ``arr`` broadcast to ``like_arr``'s shape.

    Raises:
      ValueError: the shapes are not compatible.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
        >>> eval_shape(broadcast_like, S((3,), "int32"), S((2, 3), "float32")).shape
        (2, 3)
    """
    aval, shape = _aval(arr), tuple(_aval(like_arr).shape)
    lead = len(shape) - aval.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(aval.shape, shape[lead:], strict=True)):
        raise ValueError(
            f"Incompatible types for broadcasting: input type={aval.str_short()} and "
            f"requested type={aval.update(shape=shape).str_short()}"
        )
    if aval.shape == shape:
        return convert_element_type(arr, aval.dtype)
    return broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def shape_as_value(shape: Sequence[int]) -> np.ndarray:
    """A shape as a 1-D integer array (``int32`` unless a dimension needs ``int64``).

    Args:
      shape: a sequence of non-negative integers.

    Returns:
      A NumPy array of the dimensions (an empty ``int32`` array for ``()``).

    Example:
        >>> shape_as_value((2, 3))
        array([2, 3], dtype=int32)
    """
    dims = [operator.index(d) for d in shape]
    dtype = np.int64 if any(d > np.iinfo(np.int32).max for d in dims) else np.int32
    return np.asarray(dims, dtype=dtype).reshape(len(dims))


def _moveaxis(x: Any, source: Sequence[int], destination: Sequence[int]) -> Array:
    ndim = _aval(x).ndim
    order = [n for n in range(ndim) if n not in source]
    for dest, src in sorted(zip(destination, source, strict=True)):
        order.insert(dest, src)
    return transpose(x, tuple(order))


def conv_general_dilated_patches(
    lhs: ArrayLike,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: str | Precision | None = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """The patches a convolution with a ``filter_shape`` window sees, flattened into channels.

    The output's feature dimension ``C`` holds each patch, ordered ``c`` then
    the window's spatial dimensions in ``rhs_spec`` order; its size is
    ``prod(filter_shape) * channels``.

    Args:
      lhs: a rank ``n+2`` input.
      filter_shape: the ``n`` window sizes, in ``rhs_spec`` order.
      window_strides: the ``n`` strides.
      padding: ``'SAME'``, ``'VALID'`` or ``n`` ``(low, high)`` pairs.
      lhs_dilation: input dilation per spatial dimension.
      rhs_dilation: window dilation per spatial dimension.
      dimension_numbers: as in ``conv_general_dilated`` (default ``NCHW``).
      precision: a precision for the input (the identity kernel is exact).
      preferred_element_type: the accumulation and output type.

    Returns:
      A rank ``n+2`` array of patches.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
        >>> x = S((1, 1, 4, 4), "float32")
        >>> eval_shape(lambda x: conv_general_dilated_patches(x, (2, 2), (2, 2), "VALID"), x).shape
        (1, 4, 2, 2)
    """
    aval = _aval(lhs)
    filter_shape = tuple(operator.index(d) for d in filter_shape)
    dn = conv_dimension_numbers(aval.shape, (1, 1, *filter_shape), dimension_numbers)
    lhs_spec, rhs_spec, _ = dn
    size = math.prod(filter_shape)
    channels = aval.shape[lhs_spec[1]]
    iota0 = broadcasted_iota(np.int32, (size, size), 0)
    eye = convert_element_type(eq(iota0, broadcasted_iota(np.int32, (size, size), 1)), aval.dtype)
    rhs = broadcast_in_dim(eye, (channels, size, size), (1, 2))
    rhs = reshape(rhs, (channels * size, 1, *filter_shape))
    rhs = _moveaxis(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn,
        feature_group_count=channels,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


def conv_general_dilated_local(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: PrecisionLike = None,
) -> Array:
    """A locally connected layer: a convolution with its own kernel at each output position.

    ``rhs``'s spatial dimensions index output positions; its ``I`` dimension
    holds the input channels fused with the window (``c`` then the window's
    spatial dimensions in ``rhs_spec`` order), as
    :func:`conv_general_dilated_patches` lays them out.

    Args:
      lhs: a rank ``n+2`` input.
      rhs: the unshared kernels, rank ``n+2``.
      window_strides: the ``n`` strides.
      padding: ``'SAME'``, ``'VALID'`` or ``n`` ``(low, high)`` pairs.
      filter_shape: the ``n`` window sizes, in ``rhs_spec`` order.
      lhs_dilation: input dilation per spatial dimension.
      rhs_dilation: window dilation per spatial dimension.
      dimension_numbers: as in ``conv_general_dilated`` (default ``NCHW``).
      precision: None, a precision, or a pair (lhs, rhs).

    Returns:
      The unshared convolution.

    Raises:
      ValueError: ``precision`` is a dot algorithm.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
        >>> x, w = S((1, 2, 4, 4), "float32"), S((3, 2 * 3 * 3, 2, 2), "float32")
        >>> eval_shape(lambda x, w: conv_general_dilated_local(x, w, (1, 1), "VALID", (3, 3)), x, w)
        ShapeDtypeStruct(shape=(1, 3, 2, 2), dtype=float32)
    """
    c_precision = canonicalize_precision(precision)
    if c_precision is not None and not isinstance(c_precision, tuple):
        raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers,
        None if c_precision is None else c_precision[0],  # type: ignore[arg-type]
    )  # fmt: skip
    filter_shape = tuple(operator.index(d) for d in filter_shape)
    _, rhs_spec, out_spec = conv_dimension_numbers(
        _aval(lhs).shape, (1, 1, *filter_shape), dimension_numbers
    )
    lhs_b = list(out_spec[2:])
    rhs_b = [rhs_spec[2:][i] for i in sorted(range(len(lhs_b)), key=lambda k: lhs_b[k])]
    dn = (([out_spec[1]], [rhs_spec[1]]), (sorted(lhs_b), rhs_b))
    out = dot_general(patches, rhs, dn, precision=c_precision)
    return _moveaxis(out, (-2 % _aval(out).ndim, _aval(out).ndim - 1), (out_spec[0], out_spec[1]))


class RaggedDotDimensionNumbers:
    """The dimension numbers of :func:`ragged_dot_general` (``lax.RaggedDotDimensionNumbers``).

    Args:
      dot_dimension_numbers: ``((lhs_contracting, rhs_contracting),
        (lhs_batch, rhs_batch))`` as for ``dot_general``.
      lhs_ragged_dimensions: the one ragged dimension of ``lhs``.
      rhs_group_dimensions: the group dimension of ``rhs`` (when the ragged
        dimension is not contracted).

    Example:
        >>> RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
        RaggedDotDimensionNumbers(dot_dimension_numbers=(((1,), (1,)), ((), ())), lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,))
    """

    __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")
    dot_dimension_numbers: tuple[
        tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
    ]
    lhs_ragged_dimensions: tuple[int, ...]
    rhs_group_dimensions: tuple[int, ...]

    def __init__(
        self,
        dot_dimension_numbers: DotDimensionNumbers,
        lhs_ragged_dimensions: Sequence[int],
        rhs_group_dimensions: Sequence[int],
    ) -> None:
        dn = tuple(tuple(tuple(map(int, d)) for d in t) for t in dot_dimension_numbers)
        object.__setattr__(self, "dot_dimension_numbers", dn)
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(map(int, lhs_ragged_dimensions)))
        object.__setattr__(self, "rhs_group_dimensions", tuple(map(int, rhs_group_dimensions)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("RaggedDotDimensionNumbers is immutable")

    def _key(self) -> tuple[Any, ...]:
        return (self.dot_dimension_numbers, self.lhs_ragged_dimensions, self.rhs_group_dimensions)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RaggedDotDimensionNumbers) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers}, "
            f"lhs_ragged_dimensions={self.lhs_ragged_dimensions}, "
            f"rhs_group_dimensions={self.rhs_group_dimensions})"
        )


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _remaining(n: int, *taken: Sequence[int]) -> list[int]:
    used = {d for t in taken for d in t}
    return [d for d in range(n) if d not in used]


def _expand(x: Any, dim: int, gs: Any, axes: Sequence[int]) -> Array:
    """``[g, *x.shape]``: copy ``k`` of ``x`` keeps, along ``dim``, the rows of group ``k``.

    ``gs`` has shape ``[x.shape[a] for a in axes] + [g]``: one set of group
    sizes per position of ``x``'s ``axes``.
    """
    xa, ga = _aval(x), _aval(gs)
    g = ga.shape[-1]
    shape = (g, *xa.shape)
    wide = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    iota = broadcasted_iota(ga.dtype, shape, dim + 1)
    ends = cumsum(gs, axis=ga.ndim - 1)
    starts = sub(ends, gs)
    targets = [a + 1 for a in axes] + [0]
    perm = tuple(int(i) for i in np.argsort(targets))
    dims = tuple(sorted(targets))
    ends_b = broadcast_in_dim(transpose(ends, perm), shape, dims)
    starts_b = broadcast_in_dim(transpose(starts, perm), shape, dims)
    mask = bitwise_and(le(starts_b, iota), lt(iota, ends_b))
    return select(mask, wide, broadcast_in_dim(convert_element_type(0, xa.dtype), shape, ()))


def _incr(dims: Sequence[int]) -> list[int]:
    return [d + 1 for d in dims]


def _prefix(
    mode: str, rank: int, ragged: int, batch: Sequence[int], contract: Sequence[int]
) -> list[int]:
    batch, contract = list(batch), list(contract)
    if mode == "noncontracting":
        noncontract = _remaining(rank, contract, batch)
        return batch + noncontract[: noncontract.index(ragged)]
    if mode == "contracting":
        return batch + contract[: contract.index(ragged)]
    return batch[: batch.index(ragged)]


def ragged_dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    group_sizes: ArrayLike,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    group_offset: ArrayLike | None = None,
    out_sharding: OutSharding = None,
) -> Array:
    """Ragged matrix multiplication with general dimension numbers, as ``lax.ragged_dot_general``.

    With ``g`` groups, three modes, by the kind of ``lhs``'s ragged dimension:
    a non-contracting one (``[m,k] x [g,k,n] -> [m,n]``: each group of rows
    of ``lhs`` uses its own ``rhs``), a contracting one (``[m,k] x [k,n] ->
    [g,m,n]``: one product per group of the contracted dimension) or a batch
    one (a plain batched product).

    Args:
      lhs: the ragged operand.
      rhs: the other operand (with a group dimension in the first mode).
      group_sizes: integer group sizes, ``[g]`` or with leading dimensions.
      ragged_dot_dimension_numbers: the dimension numbers.
      precision: as for ``dot_general``.
      preferred_element_type: as for ``dot_general``.
      group_offset: not supported (as on JAX's CPU and GPU backends).
      out_sharding: accepted for JAX's signature (one device).

    Returns:
      The product, with a leading group dimension in the contracting mode.

    Raises:
      NotImplementedError: ``group_offset`` is given.
      TypeError: the ragged dimension is not one of ``lhs``'s dimensions.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
        >>> lhs, rhs, sizes = S((5, 2), "float32"), S((2, 2, 3), "float32"), S((2,), "int32")
        >>> dn = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
        >>> eval_shape(lambda l, r, g: ragged_dot_general(l, r, g, dn), lhs, rhs, sizes).shape
        (5, 3)
    """
    del out_sharding
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    dn = ragged_dot_dimension_numbers
    la, ra, ga = _aval(lhs), _aval(rhs), _aval(group_sizes)
    if not _dtypes.issubdtype(ga.dtype, np.integer):
        raise TypeError(f"ragged_dot_general requires integer group_sizes, got {ga.dtype}")
    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ragged = dn.lhs_ragged_dimensions[0]
    (l_contract, r_contract), (l_batch, r_batch) = dn.dot_dimension_numbers
    if ragged in _remaining(la.ndim, l_contract, l_batch):
        mode = "noncontracting"
    elif ragged in l_contract:
        mode = "contracting"
    elif ragged in l_batch:
        mode = "batch"
    else:
        raise TypeError(
            f"lhs_ragged_dim {ragged} not found in lhs_noncontracting "
            f"{_remaining(la.ndim, l_contract, l_batch)}, lhs_contracting {list(l_contract)}, or "
            f"lhs_batch {list(l_batch)}."
        )
    l_prefix = _prefix(mode, la.ndim, ragged, l_batch, l_contract)
    if ga.ndim == 1:
        group_sizes = broadcast(group_sizes, [la.shape[i] for i in l_prefix])
    kw: dict[str, Any] = {"precision": precision, "preferred_element_type": preferred_element_type}
    if mode == "noncontracting":
        if len(dn.rhs_group_dimensions) != 1:
            raise TypeError("ragged_dot_general expects exactly one rhs group dimension.")
        expanded = _expand(lhs, ragged, group_sizes, l_prefix)
        dims = (
            ([*_incr(l_contract), 0], [*r_contract, dn.rhs_group_dimensions[0]]),
            (_incr(l_batch), list(r_batch)),
        )
        return dot_general(expanded, rhs, dims, **kw)
    if mode == "contracting":
        r_ragged = r_contract[list(l_contract).index(ragged)]
        r_prefix = _prefix(mode, ra.ndim, r_ragged, r_batch, r_contract)
        dims = (
            (_incr(l_contract), _incr(r_contract)),
            ([0, *_incr(l_batch)], [0, *_incr(r_batch)]),
        )
        return dot_general(
            _expand(lhs, ragged, group_sizes, l_prefix),
            _expand(rhs, r_ragged, group_sizes, r_prefix),
            dims,
            **kw,
        )
    return dot_general(lhs, rhs, dn.dot_dimension_numbers, **kw)


def ragged_dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    group_sizes: ArrayLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    group_offset: ArrayLike | None = None,
    out_sharding: OutSharding = None,
) -> Array:
    """``[m,k] x [g,k,n] -> [m,n]``: rows of ``lhs`` in consecutive groups, each with its own ``rhs``.

    Args:
      lhs: ``(m, k)``.
      rhs: ``(g, k, n)``.
      group_sizes: ``(g,)`` integers summing to at most ``m`` (rows past the
        sum give zeros).
      precision: as for ``dot_general``.
      preferred_element_type: as for ``dot_general``.
      group_offset: not supported (as on JAX's CPU and GPU backends).
      out_sharding: accepted for JAX's signature (one device).

    Returns:
      ``(m, n)``.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
        >>> lhs, rhs, sizes = S((3, 2), "float32"), S((2, 2, 4), "float32"), S((2,), "int32")
        >>> eval_shape(ragged_dot, lhs, rhs, sizes).shape
        (3, 4)
    """
    return ragged_dot_general(
        lhs, rhs, group_sizes, _BASIC, canonicalize_precision(precision), preferred_element_type,
        group_offset, out_sharding,
    )  # fmt: skip
