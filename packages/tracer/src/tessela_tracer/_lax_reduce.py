"""lax-level wrappers for reductions, cumulative ops, sort, argmin/argmax and dot."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, overload

from tessela_tracer import _dtypes
from tessela_tracer import _prims_reduce as rd
from tessela_tracer._avals import OutSharding
from tessela_tracer._core import Primitive
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._lax_shape import _axis_in_range
from tessela_tracer._prims_conv import PrecisionLike, canonicalize_precision
from tessela_tracer._prims_reduce import DotDimensionNumbers
from tessela_tracer.typing import Array, ArrayLike, DTypeLike


def _axes(axes: Sequence[int]) -> tuple[int, ...]:
    # As JAX's: the axes are taken as given (a negative one is refused by the
    # primitive's abstract evaluation, as ``jax.lax`` refuses it).
    if type(axes) is tuple and all(type(a) is int for a in axes):
        return axes
    return tuple(map(operator.index, axes))


def _sort_dim(x: ArrayLike, dimension: int) -> int:
    # sort counts a dimension in [-ndim, ndim) from the end when negative, as
    # JAX's does; any other value is left for the abstract evaluation to reject.
    d = operator.index(dimension)
    nd = _aval(x).ndim
    return d + nd if -nd <= d < 0 else d


def _reducer(p: Primitive, extra: dict[str, Any]) -> Any:
    bind = p.bind

    def op(operand: ArrayLike, axes: Sequence[int]) -> Array:
        out: Array = bind(operand, axes=_axes(axes), **extra)
        return out

    op.__name__ = op.__qualname__ = p.name
    op.__doc__ = (
        f"``{p.name}`` over ``axes``.\n\n    Args:\n      operand: the array.\n"
        f"      axes: the dimensions to reduce, each in ``[0, ndim)``: as in\n"
        f"        ``jax.lax``, a negative axis is an error (``ValueError``).\n\n    Returns:\n      The reduced array.\n\n"
        f"    Example:\n        >>> import numpy as np\n"
        f"        >>> from tessela_tracer import make_jaxpr, lax\n"
        f"        >>> x = np.ones(3, np.{'bool_' if p.name in ('reduce_and', 'reduce_or', 'reduce_xor') else 'float32'})\n"
        f"        >>> make_jaxpr(lambda x: lax.{p.name}(x, (0,)))(x).eqns[0].primitive\n"
        f"        {p.name}\n"
    )
    return op


reduce_sum = _reducer(rd.reduce_sum_p, {"out_sharding": None})
reduce_prod = _reducer(rd.reduce_prod_p, {})
reduce_max = _reducer(rd.reduce_max_p, {})
reduce_min = _reducer(rd.reduce_min_p, {})
reduce_and = _reducer(rd.reduce_and_p, {})
reduce_or = _reducer(rd.reduce_or_p, {})
reduce_xor = _reducer(rd.reduce_xor_p, {})


def argmax(operand: ArrayLike, axis: int, index_dtype: DTypeLike) -> Array:
    """Index of the maximum along ``axis``.

    Args:
      operand: the array.
      axis: the axis.
      index_dtype: integer dtype of the result.

    Returns:
      The indices.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.argmax(x, 0, np.int32))(np.ones(3, np.float32)))
        { lambda ; a:f32[3]. let
            b:i32[] = argmax[axes=(0,) index_dtype=int32] a
          in (b,) }
    """
    # As JAX's: the axis is not canonicalized (a negative one is an error).
    out: Array = rd.argmax_p.bind(
        operand, axes=(operator.index(axis),), index_dtype=_dtypes.canonicalize_dtype(index_dtype)
    )
    return out


def argmin(operand: ArrayLike, axis: int, index_dtype: DTypeLike) -> Array:
    """Index of the minimum along ``axis``.

    Args:
      operand: the array.
      axis: the axis.
      index_dtype: integer dtype of the result.

    Returns:
      The indices.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lambda x: lax.argmin(x, 1, np.int32), ShapeDtypeStruct((2, 3), "float32")).shape
        (2,)
    """
    # As JAX's: the axis is not canonicalized (a negative one is an error).
    out: Array = rd.argmin_p.bind(
        operand, axes=(operator.index(axis),), index_dtype=_dtypes.canonicalize_dtype(index_dtype)
    )
    return out


def _cumulative(p: Primitive) -> Any:
    bind = p.bind

    def op(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
        # As JAX's: the axis is not canonicalized (a negative one is an error).
        out: Array = bind(operand, axis=operator.index(axis), reverse=bool(reverse))
        return out

    op.__name__ = op.__qualname__ = p.name
    op.__doc__ = (
        f"``{p.name}`` along ``axis``.\n\n    Args:\n      operand: the array.\n"
        f"      axis: the axis.\n      reverse: accumulate from the end.\n\n"
        f"    Returns:\n      Same shape as ``operand``.\n\n    Example:\n"
        f"        >>> import numpy as np\n        >>> from tessela_tracer import make_jaxpr, lax\n"
        f"        >>> eqn = make_jaxpr(lax.{p.name})(np.ones(3, np.float32)).eqns[0]\n"
        f"        >>> eqn.primitive.name, eqn.params\n"
        f"        ('{p.name}', {{'axis': 0, 'reverse': False}})\n"
    )
    return op


cumsum = _cumulative(rd.cumsum_p)
cumprod = _cumulative(rd.cumprod_p)
cummax = _cumulative(rd.cummax_p)
cummin = _cumulative(rd.cummin_p)
cumlogsumexp = _cumulative(rd.cumlogsumexp_p)


@overload
def sort(
    operand: ArrayLike, dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Array: ...
@overload
def sort(
    operand: list[ArrayLike] | tuple[ArrayLike, ...],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> tuple[Array, ...]: ...
def sort(
    operand: ArrayLike | list[ArrayLike] | tuple[ArrayLike, ...],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> Array | tuple[Array, ...]:
    """Sort one array, or a tuple of arrays by the first ``num_keys`` of them.

    Args:
      operand: an array or a sequence of arrays of one shape.
      dimension: the axis.
      is_stable: keep the order of equal keys.
      num_keys: how many leading operands are keys.

    Returns:
      The sorted array, or a tuple of sorted arrays.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lax.sort)(np.ones(3, np.float32)).eqns[0].params["num_keys"]
        1
    """
    if isinstance(operand, (list, tuple)):
        dim = _sort_dim(operand[0], dimension)
        return tuple(
            rd.sort_p.bind(*operand, dimension=dim, is_stable=bool(is_stable), num_keys=num_keys)
        )
    dim = _sort_dim(operand, dimension)
    out: Array = rd.sort_p.bind(
        operand, dimension=dim, is_stable=bool(is_stable), num_keys=num_keys
    )[0]
    return out


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Array, Array]:
    """The ``k`` largest entries along ``axis`` and their indices.

    Args:
      operand: the array.
      k: how many.
      axis: the axis.

    Returns:
      ``(values, indices)``.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> [s.shape for s in eval_shape(lambda x: lax.top_k(x, 2), ShapeDtypeStruct((5,), "float32"))]
        [(2,), (2,)]
    """
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    ax = _axis_in_range(operator.index(axis), _aval(operand).ndim)
    v, i = rd.top_k_p.bind(operand, k=k, axis=ax)
    return v, i


def dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: DotDimensionNumbers,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    *,
    out_sharding: OutSharding = None,
) -> Array:
    """General tensor contraction with batch dimensions.

    Args:
      lhs: left operand.
      rhs: right operand.
      dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
      precision: None (the ``jax_default_matmul_precision`` flag's value), a
        Precision or its name, or a pair of them.
      preferred_element_type: accumulation/result dtype, or None.
      out_sharding: reserved; must be None.

    Returns:
      The contraction: batch dims, then lhs free dims, then rhs free dims.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> x = np.ones((2, 3), np.float32)
        >>> print(make_jaxpr(lambda a: lax.dot_general(a, a, (((1,), (1,)), ((), ()))))(x))
        { lambda ; a:f32[2,3]. let
            b:f32[2,2] = dot_general[dimension_numbers=(([1], [1]), ([], []))] a a
          in (b,) }
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    pet = (
        None
        if preferred_element_type is None
        else _dtypes.canonicalize_dtype(preferred_element_type)
    )
    out: Array = rd.dot_general_p.bind(
        lhs,
        rhs,
        dimension_numbers=dn,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
        out_sharding=None,
    )
    return out


def dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Vector/matrix product of rank-1 or rank-2 operands.

    Args:
      lhs: left operand.
      rhs: right operand.
      precision: None or a precision hint.
      preferred_element_type: result dtype, or None.

    Returns:
      The product.

    Raises:
      ValueError: the operands are not rank 1 or 2, or their inner sizes differ.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(lax.dot, ShapeDtypeStruct((2, 3), "float32"), ShapeDtypeStruct((3,), "float32")).shape
        (2,)
    """
    lhs_shape, rhs_shape = tuple(_aval(lhs).shape), tuple(_aval(rhs).shape)
    nd = len(lhs_shape)
    if nd not in (1, 2) or len(rhs_shape) not in (1, 2) or lhs_shape[-1] != rhs_shape[0]:
        raise ValueError(
            "lax.dot: dimension_numbers must be specified when not performing simple "
            "un-batched matrix-matrix, matrix-vector, or vector-vector products; got "
            f"lhs_shape={lhs_shape} rhs_shape={rhs_shape}. The last axis of lhs must match "
            "the first axis of rhs (transpose an operand), or use lax.dot_general with "
            "dimension_numbers for other contractions"
        )
    return dot_general(lhs, rhs, (((nd - 1,), (0,)), ((), ())), precision, preferred_element_type)
