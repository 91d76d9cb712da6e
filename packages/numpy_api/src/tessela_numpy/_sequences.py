"""Joining, splitting, grids and differences: ``dstack`` ... ``dsplit``, ``meshgrid``,
``logspace``, ``geomspace``, ``diff``, ``ediff1d``, ``gradient``.

Everything here is a composition of the shape functions of :mod:`._shape_ops`
and element-wise functions; sizes and split points are static.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from tessela_tracer import dtypes as _dt
from tessela_tracer.typing import Array, ArrayLike, DTypeLike, unchanged

from ._arith import power
from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    dtype_or,
    promote_dtypes,
    promote_dtypes_inexact,
    shape_of,
)
from ._eager import run_compiled
from ._indexing import getitem
from ._ranges import linspace
from ._shape_ops import (
    ArraySequence,
    IndicesOrSections,
    _check_sequence,
    atleast_3d,
    concatenate,
    ravel,
    reshape,
    split,
)
from ._shapes import canonicalize_axis, documented
from ._ufuncs import log10, multiply, not_equal, sign, subtract, true_divide
from ._where import broadcast_to

__all__ = [
    "array_split", "column_stack", "diff", "dsplit", "dstack", "ediff1d", "geomspace", "gradient",
    "hsplit", "logspace", "meshgrid", "vsplit",
]  # fmt: skip


def dstack(tup: ArraySequence, dtype: npt.DTypeLike | None = None) -> Array:
    """Join arrays along the third axis (1-D and 2-D inputs become ``(1, n, 1)``/``(m, n, 1)``).

    Args:
      tup: a sequence of array-likes.
      dtype: the dtype of the result.

    Returns:
      The joined array of at least three dimensions.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: dstack([np.ones(3), np.zeros(3)])).shape
    (1, 3, 2)
    """
    arrs = _check_sequence("dstack", tup)
    arrs = [atleast_3d(a) for a in arrs]
    return unchanged(concatenate(arrs, axis=2, dtype=dtype))


def column_stack(tup: ArraySequence) -> Array:
    """Join 1-D arrays as columns (and 2-D arrays as they are) into a 2-D array.

    Args:
      tup: a sequence of array-likes.

    Returns:
      The 2-D array.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: column_stack([np.arange(3), np.ones((3, 2))])).shape
    (3, 3)
    """
    arrs = _check_sequence("column_stack", tup)
    cols = [reshape(a, (-1, 1)) if len(shape_of(a)) < 2 else a for a in arrs]
    return unchanged(concatenate(cols, axis=1))


def array_split(
    ary: ArrayLike, indices_or_sections: IndicesOrSections, axis: int = 0
) -> list[Array]:
    """Split into ``n`` nearly equal sections (the first ones one longer), or at indices.

    Args:
      ary: an array-like.
      indices_or_sections: a number of sections, or a sequence of split indices.
      axis: the axis to split.

    Returns:
      The list of pieces.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [p.shape for p in eval_shape(lambda: array_split(np.arange(7), 3))]
    [(3,), (2,), (2,)]
    """
    check_arraylike("array_split", ary)
    if isinstance(indices_or_sections, int | np.integer):
        shape = shape_of(ary)
        size = shape[canonicalize_axis(axis, len(shape))]
        n = int(indices_or_sections)
        if n == 0:  # JAX's class
            raise ZeroDivisionError("array_split: indices_or_sections=0 sections; pass at least 1")
        if n < 0:
            raise ValueError(f"array_split: number of sections must be positive, got {n}")
        each, extra = divmod(size, n)
        sizes = [each + 1] * extra + [each] * (n - extra)
        points = list(np.cumsum(sizes[:-1]).astype(int))
        return split(ary, points, axis=axis)
    return split(ary, [operator.index(i) for i in indices_or_sections], axis=axis)


def _split_n(
    name: str, ary: ArrayLike, indices_or_sections: IndicesOrSections, axis: int, min_nd: int
) -> list[Array]:
    check_arraylike(name, ary)
    nd = len(shape_of(ary))
    if nd < min_nd:
        raise ValueError(f"{name} only works on arrays of {min_nd} or more dimensions, got {nd}")
    if not isinstance(indices_or_sections, int | np.integer):
        indices_or_sections = [operator.index(i) for i in indices_or_sections]
    return split(ary, indices_or_sections, axis=axis)


_F = TypeVar("_F", bound=Callable[..., Any])

_SPLIT_DOC = """Split {how} into equal sections or at indices.

    Args:
      ary: an array of at least {dims}.
      indices_or_sections: a number of equal sections, or split indices.

    Returns:
      The list of pieces.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [p.shape for p in eval_shape(lambda: {name}({example}))]
    {shapes}
    """


def _split_doc(how: str, dims: str, example: str, shapes: str) -> Callable[[_F], _F]:
    return documented(_SPLIT_DOC, how=how, dims=dims, example=example, shapes=shapes)


@_split_doc(
    "column-wise (axis 1; axis 0 for 1-D arrays)",
    "one dimension",
    "np.ones((2, 4)), 2",
    "[(2, 2), (2, 2)]",
)
def hsplit(ary: ArrayLike, indices_or_sections: IndicesOrSections) -> list[Array]:
    nd = len(shape_of(ary)) if hasattr(ary, "shape") or np.isscalar(ary) else 0
    return _split_n("hsplit", ary, indices_or_sections, 0 if nd == 1 else 1, 1)


@_split_doc("row-wise (axis 0)", "two dimensions", "np.ones((4, 2)), [1]", "[(1, 2), (3, 2)]")
def vsplit(ary: ArrayLike, indices_or_sections: IndicesOrSections) -> list[Array]:
    return _split_n("vsplit", ary, indices_or_sections, 0, 2)


@_split_doc(
    "depth-wise (axis 2)", "three dimensions", "np.ones((1, 2, 4)), 2", "[(1, 2, 2), (1, 2, 2)]"
)
def dsplit(ary: ArrayLike, indices_or_sections: IndicesOrSections) -> list[Array]:
    return _split_n("dsplit", ary, indices_or_sections, 2, 3)


def meshgrid(
    *xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
) -> list[Array]:
    """Coordinate grids from 1-D coordinate vectors.

    Args:
      *xi: 1-D array-likes.
      copy: ignored (arrays are immutable).
      sparse: return broadcastable arrays with size-1 axes instead of full grids.
      indexing: ``"xy"`` (Cartesian: the first two axes swapped) or ``"ij"`` (matrix).

    Returns:
      One array per input.

    Raises:
      ValueError: an input is not 1-D, or ``indexing`` is neither ``"xy"`` nor ``"ij"``.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [g.shape for g in eval_shape(lambda: meshgrid(np.arange(2), np.arange(3)))]
    [(3, 2), (3, 2)]
    """
    check_arraylike("meshgrid", *xi)
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    for x in xi:
        if len(shape_of(x)) != 1:
            raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape {shape_of(x)}")
    n = len(xi)
    sizes = [shape_of(x)[0] for x in xi]
    axes = list(range(n))
    if indexing == "xy" and n >= 2:
        axes[0], axes[1] = 1, 0
    full = [0] * n
    for x_pos, ax in enumerate(axes):
        full[ax] = sizes[x_pos]
    out = []
    for x, ax in zip(xi, axes, strict=True):
        shape = [1] * n
        shape[ax] = full[ax]
        v = reshape(x, tuple(shape))
        out.append(v if sparse else broadcast_to(v, tuple(full)))
    return out


def _sample_dtypes(
    start: ArrayLike, stop: ArrayLike, dtype: DTypeLike | None
) -> tuple[np.dtype[Any], np.dtype[Any]]:
    # The result dtype (``dtype`` or the promoted floating one) and the dtype
    # to compute in (the result's if inexact, else the default float).
    out_dt = dtype_or(dtype, _dt.result_type(start, stop, float))
    comp = out_dt if _dt.issubdtype(out_dt, np.inexact) else _dt.canonicalize_dtype(np.float64)
    return out_dt, comp


def logspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    base: ArrayLike = 10.0,
    dtype: DTypeLike | None = None,
    axis: int = 0,
) -> Array:
    """``base`` raised to ``num`` evenly spaced exponents from ``start`` to ``stop``.

    Args:
      start: the first exponent (a scalar).
      stop: the last exponent (included when ``endpoint``).
      num: the number of samples.
      endpoint: whether ``base ** stop`` is the last sample.
      base: the base of the powers.
      dtype: the result dtype (default the promoted floating dtype).
      axis: where the samples go (only 0, as for :func:`linspace`).

    Returns:
      The 1-D array of samples.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: logspace(0, 2, 3)).shape
    (3,)
    """
    check_arraylike("logspace", start, stop, base)
    out_dt, comp = _sample_dtypes(start, stop, dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, dtype=comp, axis=axis)
    return unchanged(convert(power(convert(base, comp), lin), out_dt))


def geomspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    dtype: DTypeLike | None = None,
    axis: int = 0,
) -> Array:
    """``num`` samples from ``start`` to ``stop`` spaced evenly on a log scale.

    Args:
      start: the first sample (non-zero; its sign is kept).
      stop: the last sample (same sign as ``start``).
      num: the number of samples.
      endpoint: whether ``stop`` is the last sample.
      dtype: the result dtype (default the promoted floating dtype).
      axis: where the samples go (only 0).

    Returns:
      The 1-D array of samples.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: geomspace(1, 1000, 4)).shape
    (4,)
    """
    check_arraylike("geomspace", start, stop)
    out_dt, comp = _sample_dtypes(start, stop, dtype)
    start_c, stop_c = convert(start, comp), convert(stop, comp)
    sgn = sign(start_c)
    lo, hi = log10(true_divide(start_c, sgn)), log10(true_divide(stop_c, sgn))
    res = multiply(sgn, logspace(lo, hi, num, endpoint=endpoint, base=10.0, dtype=comp, axis=axis))
    return unchanged(convert(res, out_dt))


def _edge(value: Any, shape: tuple[int, ...], ax: int) -> Any:
    if len(shape_of(value)) == 0:
        edge_shape = list(shape)
        edge_shape[ax] = 1
        return broadcast_to(value, tuple(edge_shape))
    return value


def diff(
    a: ArrayLike,
    n: int = 1,
    axis: int = -1,
    prepend: ArrayLike | None = None,
    append: ArrayLike | None = None,
) -> Array:
    """The ``n``-th discrete difference along an axis (``not_equal`` for booleans).

    Args:
      a: an array of at least one dimension.
      n: how many times to difference.
      axis: the axis.
      prepend: values joined before ``a`` along ``axis`` first (scalars are broadcast).
      append: values joined after ``a`` along ``axis`` first.

    Returns:
      An array with ``n`` fewer entries along ``axis`` (after joining).

    Raises:
      ValueError: ``n`` is negative or ``a`` is 0-d.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: diff(np.array([1, 4, 9, 16]), n=2)).shape
    (2,)
    """
    if prepend is None and append is None:
        out = run_compiled("diff", diff, (a,), n, axis)  # eagerly: one program, as JAX's jit
        if out is not None:
            return unchanged(out)
    check_arraylike("diff", a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return unchanged(a)
    shape = shape_of(a)
    if not shape:
        raise ValueError("diff requires input that is at least one dimensional; got a 0-d array")
    ax = canonicalize_axis(axis, len(shape))
    parts = []
    if prepend is not None:
        check_arraylike("diff", prepend)
        parts.append(_edge(prepend, shape, ax))
    parts.append(a)
    if append is not None:
        check_arraylike("diff", append)
        parts.append(_edge(append, shape, ax))
    if len(parts) > 1:
        parts = promote_dtypes(*parts)
        a = concatenate(parts, axis=ax)
    is_bool = aval_of(a).dtype == np.bool_
    for _ in range(n):
        length = shape_of(a)[ax]
        hi = tuple(slice(1, None) if i == ax else slice(None) for i in range(len(shape)))
        lo = tuple(slice(None, length - 1) if i == ax else slice(None) for i in range(len(shape)))
        op = not_equal if is_bool else subtract
        a = op(getitem(a, hi), getitem(a, lo))
    return unchanged(a)


def ediff1d(
    ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None
) -> Array:
    """Differences of consecutive elements of the flattened array.

    Args:
      ary: an array-like.
      to_end: values appended to the differences (cast to their dtype).
      to_begin: values prepended to the differences (cast to their dtype).

    Returns:
      A 1-D array.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: ediff1d(np.array([1, 2, 4, 7]), to_begin=np.array([0]))).shape
    (4,)
    """
    # Eagerly: one program, as JAX's jit (both extras given, or neither).
    operands = (ary,) if to_end is None and to_begin is None else (ary, to_end, to_begin)
    out = run_compiled("ediff1d", ediff1d, operands)
    if out is not None:
        return unchanged(out)
    check_arraylike("ediff1d", ary)
    flat = ravel(ary)
    result = subtract(getitem(flat, slice(1, None)), getitem(flat, slice(None, -1)))
    dt = aval_of(result).dtype
    parts = [result]
    if to_begin is not None:
        check_arraylike("ediff1d", to_begin)
        parts.insert(0, convert(ravel(to_begin), dt))
    if to_end is not None:
        check_arraylike("ediff1d", to_end)
        parts.append(convert(ravel(to_end), dt))
    return unchanged(concatenate(parts) if len(parts) > 1 else result)


def _axis_gradient(f: Any, spacing: Any, ax: int) -> Any:
    """One axis of :func:`gradient`: central differences, one-sided at the ends."""
    n = aval_of(f).shape[ax]

    def part(start: int, stop: int) -> Array:
        index: list[Any] = [slice(None)] * aval_of(f).ndim
        index[ax] = slice(start, stop)
        return getitem(f, tuple(index))

    if aval_of(spacing).ndim == 0:
        inner = true_divide(subtract(part(2, n), part(0, n - 2)), multiply(spacing, 2))
        first = true_divide(subtract(part(1, 2), part(0, 1)), spacing)
        last = true_divide(subtract(part(n - 1, n), part(n - 2, n - 1)), spacing)
        return concatenate([first, inner, last], axis=ax)
    if aval_of(spacing).shape != (n,):
        raise ValueError(
            f"gradient: the coordinates along axis {ax} must be 1-D of length {n} (the axis "
            f"length), got shape {aval_of(spacing).shape}."
        )
    dx = diff(spacing)
    shape = [1] * aval_of(f).ndim
    shape[ax] = n - 2

    def along(v: ArrayLike) -> Array:
        return reshape(v, shape)

    dx1, dx2 = getitem(dx, slice(0, n - 2)), getitem(dx, slice(1, n - 1))
    total = multiply(dx1, dx1 + dx2)
    a = along(true_divide(-dx2, total))
    b = along(true_divide(dx2 - dx1, multiply(dx1, dx2)))
    c = along(true_divide(dx1, multiply(dx2, dx1 + dx2)))
    inner = a * part(0, n - 2) + b * part(1, n - 1) + c * part(2, n)
    first = true_divide(subtract(part(1, 2), part(0, 1)), getitem(dx, 0))
    last = true_divide(subtract(part(n - 1, n), part(n - 2, n - 1)), getitem(dx, n - 2))
    return concatenate([first, inner, last], axis=ax)


def gradient(
    f: ArrayLike,
    *varargs: ArrayLike,
    axis: int | Sequence[int] | None = None,
    edge_order: int | None = None,
) -> Array | list[Array]:
    """The gradient of sampled values: central differences inside, one-sided at the ends.

    Args:
      f: the samples.
      *varargs: the spacing: nothing (1), one scalar for every axis, or one
        scalar or 1-D coordinate array per axis.
      axis: the axes differentiated (by default all).
      edge_order: unsupported, as in JAX; must be None.

    Returns:
      One array when one axis is differentiated, else a list, one array per axis.

    Raises:
      NotImplementedError: ``edge_order`` is given.
      ValueError: an axis has fewer than two samples.
      TypeError: the number of spacings matches neither one nor the axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [g.shape for g in eval_shape(gradient, S((3, 4), "float32"))]
    [(3, 4), (3, 4)]
    """
    if edge_order is None:  # eagerly: one program, as JAX's jit
        out = run_compiled("gradient", _gradient_program, (f, *varargs), axis)
        if out is not None:
            return unchanged(out)
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    (f,) = promote_dtypes_inexact(f)
    ndim = aval_of(f).ndim
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, int):
        axes = (canonicalize_axis(axis, ndim),)
    else:
        axes = tuple(canonicalize_axis(ax, ndim) for ax in axis)
    if any(aval_of(f).shape[ax] < 2 for ax in axes):
        raise ValueError(
            "Shape of array too small to calculate a numerical gradient, at least 2 elements "
            "are required."
        )
    if not varargs:
        spacings: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1 and aval_of(varargs[0]).ndim == 0:
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError(
            f"gradient: got {len(varargs)} spacings for {len(axes)} axes; pass none, one "
            "scalar, or one per axis."
        )
    grads = [_axis_gradient(f, h, ax) for h, ax in zip(spacings, axes, strict=True)]
    return grads[0] if len(grads) == 1 else grads


def _gradient_program(f: Any, *rest: Any) -> Any:
    # gradient's program body: the samples, the spacings, then ``axis``.
    return gradient(f, *rest[:-1], axis=rest[-1])
