"""Pure-Python shape and axis bookkeeping shared by every NumPy-style function.

Nothing here touches an array: these helpers take shapes, axes and Python
values and return normalised shapes, axes and plans. They follow NumPy's
rules, with JAX's error messages and exception classes. :func:`documented`
gives each function of a family the docstring the family shares.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, SupportsIndex, TypeAlias, TypeGuard, TypeVar

import numpy as np
from numpy.exceptions import AxisError

__all__ = [
    "Axis", "IncompatibleShapesError", "NegativeDimensionError", "Shape", "broadcast_shapes",
    "canonicalize_axis", "canonicalize_shape", "check_element_count", "documented",
    "is_python_scalar", "move_axis_permutation", "normalize_reduction_axes", "reduced_shape",
]  # fmt: skip

#: An ``axis`` argument: one axis, several, or ``None`` (all axes).
Axis: TypeAlias = int | Sequence[int] | None
#: A ``shape`` argument: one dimension or a sequence of them.
Shape: TypeAlias = int | Sequence[int]

_F = TypeVar("_F", bound=Callable[..., Any])


def documented(template: str, /, **fields: str) -> Callable[[_F], _F]:
    """A decorator giving a function the docstring its family shares, filled in.

    Args:
      template: the docstring, with ``{name}`` (the function's ``__name__``) and
        the ``fields`` to fill in.
      **fields: the other values.

    Returns:
      The decorator; it returns the function itself with its ``__doc__`` set.

    >>> @documented("The {what} of ``{name}``.", what="docstring")
    ... def f() -> None: ...
    >>> f.__doc__
    'The docstring of ``f``.'
    """

    def document(fn: _F) -> _F:
        fn.__doc__ = template.format(name=fn.__name__, **fields)
        return fn

    return document


_SHAPE_MESSAGE = (
    "Shapes must be 1D sequences of concrete values of integer type, got {}.\n"
    "If using `jit`, try using `static_argnums` or applying `jit` to smaller "
    "subfunctions."
)


_MAX_BYTES = (1 << 63) - 1


def is_python_scalar(x: object, /) -> TypeGuard[bool | int | float | complex]:
    """Whether ``x`` is a Python ``bool``, ``int``, ``float`` or ``complex``.

    Args:
      x: any object.

    Returns:
      ``True`` for Python number types (which are weakly typed in JAX).

    >>> is_python_scalar(1.0), is_python_scalar(np.float32(1))
    (True, False)
    """
    return type(x) in (bool, int, float, complex)


def canonicalize_axis(axis: SupportsIndex, ndim: int, /) -> int:
    """Turn a possibly negative ``axis`` into an index in ``range(ndim)``.

    Args:
      axis: an integer axis, negative counting from the end.
      ndim: the rank of the array the axis refers to.

    Returns:
      The non-negative axis.

    Raises:
      TypeError: ``axis`` is not an integer.
      AxisError: ``axis`` is out of bounds (NumPy's class: both a
        ``ValueError`` and an ``IndexError``, which JAX raises from some
        functions, such as ``argmax``).

    >>> canonicalize_axis(-1, 3)
    2
    """
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(
            f"axis must be a static integer, got {axis!r} of type "
            f"{type(axis).__name__}; pass a Python int such as axis=0."
        ) from None
    if not -ndim <= a < ndim:
        raise AxisError(a, ndim)
    return a + ndim if a < 0 else a


def normalize_reduction_axes(axis: Axis, ndim: int, /) -> tuple[int, ...]:
    """Normalise the ``axis`` argument of a reduction.

    Args:
      axis: ``None`` (all axes), an integer or a sequence of integers.
      ndim: the rank of the reduced array.

    Returns:
      The sorted tuple of non-negative axes.

    Raises:
      ValueError: an axis is out of bounds or repeated.

    >>> normalize_reduction_axes((-1, 0), 3)
    (0, 2)
    >>> normalize_reduction_axes(None, 2)
    (0, 1)
    """
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Sequence) and not isinstance(axis, str):
        axes = [canonicalize_axis(a, ndim) for a in axis]
    else:
        axes = [canonicalize_axis(axis, ndim)]
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(axes))


def reduced_shape(
    shape: Sequence[int], axes: Sequence[int], /, *, keepdims: bool
) -> tuple[int, ...]:
    """The shape of a reduction's result.

    Args:
      shape: the operand's shape.
      axes: normalised reduction axes.
      keepdims: keep reduced axes as size-1 axes.

    Returns:
      The result shape.

    >>> reduced_shape((2, 3, 4), (1,), keepdims=True)
    (2, 1, 4)
    """
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


class NegativeDimensionError(TypeError, ValueError):
    """A shape with a negative entry.

    A ``TypeError`` as JAX raises it, and also a ``ValueError``, the class of
    NumPy (and of Tessela before).
    """


class IncompatibleShapesError(ValueError, TypeError):
    """Shapes that do not broadcast together.

    A ``ValueError`` as in JAX and NumPy, and also a ``TypeError``, the class
    Tessela raised for this before (``except TypeError`` keeps working).
    """


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy's broadcasting of several shapes.

    Args:
      *shapes: shapes to broadcast together.

    Returns:
      The broadcast shape.

    Raises:
      ValueError: the shapes are incompatible.

    >>> broadcast_shapes((3, 1), (4,))
    (3, 4)
    """
    if not shapes:
        return ()
    ndim = max(len(s) for s in shapes)
    result = [1] * ndim
    for s in shapes:
        for i, d in enumerate(s, start=ndim - len(s)):
            if d == result[i] or d == 1:
                continue
            if result[i] == 1:
                result[i] = d
            else:
                raise ValueError(
                    f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
                )
    return tuple(result)


def canonicalize_shape(shape: Shape, /) -> tuple[int, ...]:
    """Turn an integer or sequence of integers into a shape tuple.

    Args:
      shape: an integer or a sequence of concrete integers.

    Returns:
      The shape as a tuple of Python ints.

    Raises:
      TypeError: an entry is not a concrete integer (for instance a traced
        value: make the size a static argument).
      NegativeDimensionError: an entry is negative (a ``TypeError`` as in
        JAX, and a ``ValueError`` as in NumPy).
      ValueError: the shape holds more than ``2**63 - 1`` elements.

    >>> canonicalize_shape(3), canonicalize_shape((2, np.int64(3)))
    ((3,), (2, 3))
    """
    if isinstance(shape, Sequence):
        entries = tuple(shape)
    elif isinstance(shape, np.ndarray) and shape.ndim == 1:
        entries = tuple(shape.tolist())
    else:
        entries = (shape,)
    out = []
    for d in entries:
        if isinstance(d, bool | np.bool_):
            raise TypeError(_SHAPE_MESSAGE.format(entries))
        try:
            out.append(operator.index(d))
        except Exception:
            raise TypeError(_SHAPE_MESSAGE.format(entries)) from None
    for d in out:
        if d < 0:
            raise NegativeDimensionError(
                f"negative dimensions are not allowed, got shape {tuple(out)}; every entry "
                "of a shape must be >= 0"
            )
    check_element_count(out)
    return tuple(out)


def check_element_count(shape: Sequence[int], /, itemsize: int = 1) -> None:
    """Refuse a shape whose byte size does not fit a signed 64-bit integer.

    XLA computes sizes in 64 bits and aborts the process on overflow; NumPy
    raises ``ValueError`` ("array is too big"), and so does this check.

    Args:
      shape: non-negative dimensions.
      itemsize: bytes per element (1 checks the element count alone).

    Returns:
      None.

    Raises:
      ValueError: ``prod(shape) * itemsize`` is 2**63 or more.

    >>> check_element_count((1 << 62, 4))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: array is too big: shape (4611686018427387904, 4) ... use a smaller shape
    """
    total = math.prod(shape) * itemsize
    if total > _MAX_BYTES:
        raise ValueError(
            f"array is too big: shape {tuple(shape)} of {itemsize}-byte elements needs "
            f"{total} bytes, more than 2**63 - 1 (the most XLA can address); use a smaller shape"
        )


def move_axis_permutation(
    ndim: int, source: Sequence[int], destination: Sequence[int], /
) -> tuple[int, ...]:
    """The transpose permutation that moves ``source`` axes to ``destination``.

    Args:
      ndim: the array's rank.
      source: normalised axes to move.
      destination: normalised positions they move to.

    Returns:
      A permutation for ``transpose``.

    Raises:
      ValueError: the two sequences differ in length.

    >>> move_axis_permutation(3, (0,), (2,))
    (1, 2, 0)
    """
    if len(source) != len(destination):
        raise ValueError(
            "Inconsistent number of elements: "
            f"{len(source)} vs {len(destination)}; give source and destination "
            "the same number of axes."
        )
    rest = [i for i in range(ndim) if i not in source]
    perm: list[int] = [-1] * ndim
    for s, d in sorted(zip(destination, source, strict=True)):
        perm[s] = d
    it = iter(rest)
    return tuple(p if p >= 0 else next(it) for p in perm)
