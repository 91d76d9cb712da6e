"""Selecting by a condition or by an index array: ``compress`` and ``choose``.

``compress`` keeps the slices along an axis where a 1-D condition is true;
the number kept depends on the values, so under ``jit`` it needs a static
``size`` (JAX's padding: the kept slices first, then ``fill_value``).
``choose`` picks, at each position, the element of ``choices[a]``; the
default ``mode="raise"`` checks the indices and so needs a concrete ``a``
(``"wrap"`` and ``"clip"`` work under ``jit``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.errors import ConcretizationTypeError
from tessela_tracer.typing import Array, ArrayLike

from ._arrays import aval_of, check_arraylike, convert, shape_of
from ._creation import array, asarray
from ._indexing import getitem
from ._reductions import any as _any
from ._setops import host_value
from ._shape_ops import moveaxis, ravel, reshape
from ._sorting import argsort
from ._ufuncs import remainder
from ._where import broadcast_arrays, clip, where

__all__ = ["choose", "compress"]


def compress(
    condition: ArrayLike,
    a: ArrayLike,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike = 0,
    out: None = None,
) -> Array:
    """The slices of ``a`` along ``axis`` where ``condition`` is true.

    Args:
      condition: a 1-D array, read as booleans; entries past the length of
        the axis must be false.
      a: the array.
      axis: the axis to select along; ``None`` selects from ``ravel(a)``.
      size: the static number of slices to return (required under ``jit``):
        the selected slices first, then slices of ``fill_value``.
      fill_value: the padding value when ``size`` exceeds the count.
      out: unsupported; must be ``None``.

    Returns:
      ``a`` with the axis shortened to the selected slices (or ``size``).

    Raises:
      ValueError: ``condition`` is not 1-D, selects past the axis, or
        ``size`` is out of range.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda c, a: compress(c, a, axis=1, size=2), S((3,), bool), S((2, 3), "f4"))
    ShapeDtypeStruct(shape=(2, 2), dtype=float32)
    """
    check_arraylike("compress", condition, a, fill_value)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = convert(condition, np.dtype(bool))
    if len(shape_of(cond)) != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis = 0
        arr = ravel(a)
    else:
        axis = operator.index(axis)
        arr = moveaxis(a, axis, 0)
    n = shape_of(arr)[0]
    extra = getitem(cond, slice(n, None))
    cond = getitem(cond, slice(None, n))
    arr = getitem(arr, slice(None, shape_of(cond)[0]))
    if size is None:
        if shape_of(extra)[0] and _any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = getitem(arr, cond)
    else:
        size = operator.index(size)
        length = shape_of(arr)[0]
        if not 0 <= size <= length:
            raise ValueError(
                "size must be positive and not greater than the size of the array axis;"
                f" got size={size} for a.shape[axis]={length}"
            )
        rank = len(shape_of(arr))
        mask = reshape(cond, (length,) + (1,) * (rank - 1))
        arr = where(mask, arr, asarray(fill_value, dtype=aval_of(arr).dtype))
        order = argsort(cond, stable=True, descending=True)
        result = getitem(getitem(arr, order), slice(None, size))
    return moveaxis(result, 0, axis)


def choose(
    a: ArrayLike, choices: Sequence[ArrayLike], out: None = None, mode: str = "raise"
) -> Array:
    """At each position, the element of ``choices[a]``.

    Args:
      a: an integer array: which choice each element comes from.
      choices: a sequence of arrays broadcastable with ``a`` and each other.
      out: unsupported; must be ``None``.
      mode: ``"raise"`` (indices must lie in ``[0, len(choices))``; needs a
        concrete ``a``), ``"wrap"`` (modulo) or ``"clip"`` (clamped).

    Returns:
      The broadcast shape, in the promoted dtype of the choices.

    Raises:
      ValueError: ``a`` is not integer, an index is out of range with
        ``mode="raise"``, or ``mode`` is unknown.
      ConcretizationTypeError: ``a`` is traced and ``mode="raise"``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: choose(a, [b, 2 * b], mode="clip"), S((2, 1), "int32"), S((3,), "f4"))
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    choices = list(choices)
    check_arraylike("choose", a, *choices)
    if not _dt.issubdtype(aval_of(a).dtype, np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        host = host_value(a)
        if host is None:
            raise ConcretizationTypeError(
                a,
                "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
                "Use mode='wrap' or mode='clip' instead.",
            )
        if np.any((host < 0) | (host >= n)):
            raise ValueError("invalid entry in choice array")
        idx = asarray(a)
    elif mode == "wrap":
        idx = remainder(asarray(a), n)
    elif mode == "clip":
        idx = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    idx, *choices = broadcast_arrays(idx, *choices)
    shape = shape_of(idx)
    idt = aval_of(idx).dtype
    grids = tuple(
        lax.broadcasted_iota(idt, tuple(d if i == k else 1 for i, d in enumerate(shape)), k)
        for k in range(len(shape))
    )
    return getitem(array(choices), (idx, *grids))
