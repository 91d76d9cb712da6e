"""More ``jax.numpy`` names composed from the existing ones, with JAX's semantics.

``iscomplex``, ``isreal``, ``isin``, ``rollaxis``, ``vander``, ``trapezoid``,
``resize``, ``unravel_index``, ``ravel_multi_index``, ``fill_diagonal``
(``inplace=False``), ``vecdot``, ``matvec``, ``vecmat`` and the windows
``bartlett``, ``blackman``, ``hamming``, ``hanning``, ``kaiser``. Run eagerly,
``trapezoid``, ``matvec`` and ``vecmat`` are each one compiled program per
signature, as JAX's ``jit`` makes them (JAX does not compile ``vecdot`` whole).

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(lambda x: vander(x, 4), S((3,), "float32")).shape
(3, 4)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import lax
from tessela_tracer.dtypes import canonicalize_dtype, issubdtype, result_type
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arith import divmod as _divmod
from ._arith import power
from ._array_extras import diag_indices
from ._creation import array, asarray, ones, zeros
from ._eager import run_compiled
from ._misc_math import i0
from ._products import matmul
from ._sequences import diff
from ._shape_ops import expand_dims, moveaxis, ravel, reshape
from ._tiling import tile
from ._ufuncs import conj, cos, imag, sqrt
from ._where import clip, where

__all__ = [
    "bartlett", "blackman", "fill_diagonal", "hamming", "hanning", "iscomplex", "isin", "isreal",
    "kaiser", "matvec", "ravel_multi_index", "resize", "rollaxis", "trapezoid",
    "unravel_index", "vander", "vecdot", "vecmat",
]  # fmt: skip


def _imag_test(
    name: str, what: str, compare: Callable[[Array, Array], Array], example: str
) -> Callable[[ArrayLike], Array]:
    # ``compare(imag(x), 0)`` element-wise.
    def test(x: ArrayLike) -> Array:
        i = imag(asarray(x))
        return compare(i, lax.full_like(i, 0))

    test.__name__ = test.__qualname__ = name
    test.__doc__ = f"""Elementwise: {what} imaginary part.

    Args:
        x: an array.

    Returns:
        A boolean array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape({name}, S((2,), "{example}")).dtype
    dtype('bool')
    """
    return test


iscomplex = _imag_test("iscomplex", "a nonzero", lax.ne, "complex64")
isreal = _imag_test("isreal", "a zero", lax.eq, "float32")


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """Move ``axis`` to before ``start`` (prefer ``moveaxis``).

    Args:
        a: an array.
        axis: the axis to move.
        start: the position it is moved before.

    Returns:
        The array with the axis moved.

    Raises:
        ValueError: ``start`` out of range.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: rollaxis(a, 2), S((1, 2, 3), "f4")).shape
    (3, 1, 2)
    """
    a = asarray(a)
    start = operator.index(start)
    ndim = a.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim
    if not -ndim <= start <= ndim:
        raise ValueError(f"start={start} must satisfy {-ndim}<=start<={ndim}")
    if start < 0:
        start += ndim
    if start > axis:
        start -= 1
    return unchanged(moveaxis(a, axis, start))


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:
    """The Vandermonde matrix of ``x``.

    Args:
        x: a 1-D array.
        N: the number of columns (``len(x)`` when None).
        increasing: powers increase left to right.

    Returns:
        An ``(len(x), N)`` array.

    Raises:
        ValueError: ``x`` not 1-D, or a negative ``N``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(vander, S((3,), "int32")).shape
    (3, 3)
    """
    out = run_compiled("vander", vander, (x,), N, increasing)  # eagerly: as JAX's jit
    if out is not None:
        return unchanged(out)
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    exponents = np.arange(n) if increasing else np.arange(n)[::-1]
    return power(x[..., None], asarray(exponents.astype(x.dtype)))


def _inexact(*xs: Any) -> list[Any]:
    arrays = [asarray(x) for x in xs]
    dtype = np.dtype(result_type(*arrays))
    if not issubdtype(dtype, np.inexact):
        dtype = np.dtype(result_type(dtype, np.float32))
    return [x.astype(dtype) for x in arrays]


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """Integrate along ``axis`` with the trapezoidal rule.

    Args:
        y: the samples.
        x: the sample points (spaced by ``dx`` when None).
        dx: the spacing when ``x`` is None.
        axis: the axis to integrate along.

    Returns:
        The integral.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(trapezoid, S((2, 5), "float32")).shape
    (2,)
    """
    if x is None:  # eagerly: one program, as JAX's jit (``dx`` an operand, as there)
        out = run_compiled("trapezoid", _trapezoid_dx, (y, dx), axis)
    else:  # ``dx`` is unused
        out = run_compiled("trapezoid", _trapezoid_x, (y, x), axis)
    if out is not None:
        return unchanged(out)
    if x is None:
        (y_arr,) = _inexact(y)
        dx_array = asarray(dx)
        if np.ndim(dx_array) > 0:
            dx_array = reshape(dx_array, (1,) * (y_arr.ndim - dx_array.ndim) + dx_array.shape)
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        y_arr, x_arr = _inexact(y, x)
        dx_array = diff(x_arr) if x_arr.ndim == 1 else moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if np.ndim(dx_array) == 0 or dx_array.shape[-1] == 1:
        dx_reduced = dx_array if np.ndim(dx_array) == 0 else dx_array[..., 0]
        return unchanged(dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1])))
    return unchanged(0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1))


def _trapezoid_dx(y: Any, dx: Any, axis: Any) -> Array:
    return trapezoid(y, None, dx, axis)


def _trapezoid_x(y: Any, x: Any, axis: Any) -> Array:
    return trapezoid(y, x, 1.0, axis)


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Array:
    """``a`` flattened, repeated and reshaped to ``new_shape``.

    Args:
        a: an array.
        new_shape: the new shape.

    Returns:
        The resized array.

    Raises:
        ValueError: a negative dimension.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: resize(a, (2, 5)), S((3,), "f4")).shape
    (2, 5)
    """
    if isinstance(new_shape, Sequence):
        shape = tuple(operator.index(d) for d in new_shape)
    else:
        shape = (operator.index(new_shape),)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(asarray(a))
    size = math.prod(shape)
    if arr.size == 0 or size == 0:
        return zeros(shape, arr.dtype)
    arr = tile(arr, -(-size // arr.size))[:size]
    return unchanged(reshape(arr, shape))


def unravel_index(indices: ArrayLike, shape: int | Sequence[int]) -> tuple[Array, ...]:
    """Convert flat indices to a tuple of coordinate arrays (out-of-range ones are clipped).

    Args:
        indices: integer flat indices.
        shape: the array shape.

    Returns:
        One index array per dimension.

    Raises:
        ValueError: a shape that is not a scalar or a 1-D sequence.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> len(eval_shape(lambda i: unravel_index(i, (2, 3)), S((4,), "int32")))
    2
    """
    idx = asarray(indices)
    dims: list[Any] = list(shape) if isinstance(shape, Sequence) else [shape]
    if any(np.ndim(s) != 0 for s in dims):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out: list[Any] = [0] * len(dims)
    for i in reversed(range(len(dims))):
        idx, out[i] = _divmod(idx, dims[i])
    oob_pos = idx > 0
    oob_neg = asarray(False) if np.issubdtype(idx.dtype, np.unsignedinteger) else idx < -1
    return tuple(
        where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(dims, out, strict=True)
    )


def ravel_multi_index(
    multi_index: Sequence[ArrayLike],
    dims: Sequence[int],
    mode: str = "raise",
    order: str = "C",
    *,
    dtype: DTypeLike | None = None,
) -> Array:
    """Convert coordinate arrays to flat indices.

    Args:
        multi_index: one integer array per dimension.
        dims: the array shape.
        mode: ``"raise"`` (concrete indices only), ``"wrap"``, ``"clip"`` or ``"ignore"``.
        order: ``"C"`` or ``"F"``.
        dtype: the result's integer dtype (the default integer type when None).

    Returns:
        The flat indices.

    Raises:
        ValueError: an index out of range with ``mode="raise"``, a bad ``mode``
            or ``order``, or a ``dtype`` too narrow.
        TypeError: non-integer indices.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> f = lambda i, j: ravel_multi_index((i, j), (2, 3), mode="clip")
    >>> eval_shape(f, np.array([1]), np.array([2])).shape
    (1,)
    """
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    shape = tuple(operator.index(d) for d in dims)
    arrays = [asarray(i) for i in multi_index]
    out_dtype = np.dtype(
        result_type(int, *arrays) if dtype is None else canonicalize_dtype(np.dtype(dtype))
    )
    if not np.issubdtype(out_dtype, np.integer):
        raise ValueError(f"dtype={out_dtype!r} is not an integer type.")
    if math.prod(shape) - 1 > np.iinfo(out_dtype).max:
        raise ValueError(
            f"jnp.ravel_multi_index: dtype={out_dtype!r} not large enough to hold flattened "
            f"index for dims={shape!r}. Use the dtype argument to pass a suitable dtype."
        )
    for index in arrays:
        if not np.issubdtype(index.dtype, np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        concrete = [np.asarray(i) for i in arrays]
        if any(bool(np.any((i < 0) | (i >= d))) for i, d in zip(concrete, shape, strict=True)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        arrays = [clip(i, 0, d - 1) for i, d in zip(arrays, shape, strict=True)]
    elif mode == "wrap":
        arrays = [i % d for i, d in zip(arrays, shape, strict=True)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1, *shape[:-1]))
    elif order == "C":
        strides = np.cumprod((1, *shape[1:][::-1]))[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=out_dtype)
    for index, stride in zip(arrays, strides, strict=True):
        result = result + index.astype(out_dtype) * int(stride)
    return result


def fill_diagonal(
    a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True
) -> Array:
    """``a`` with its main diagonal set to ``val`` (``inplace=False`` is required).

    Args:
        a: an array of at least two equal-length dimensions.
        val: a scalar, or values repeated along the diagonal.
        wrap: must be False.
        inplace: must be False (arrays are immutable).

    Returns:
        The updated copy.

    Raises:
        NotImplementedError: ``inplace=True`` or ``wrap=True``.
        ValueError: fewer than two dimensions, or unequal ones beyond two.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: fill_diagonal(a, 1.0, inplace=False), S((3, 3), "f4")).shape
    (3, 3)
    """
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = asarray(a), asarray(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    idx = diag_indices(n, a.ndim)
    if np.ndim(val) == 0:
        return unchanged(a.at[idx].set(val))
    flat = ravel(val)
    return unchanged(a.at[idx].set(tile(flat, -(-n // flat.size))[:n]))


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """The conjugated dot product along ``axis``, broadcasting the other axes.

    Args:
        x1: an array (conjugated).
        x2: an array.
        axis: the contracted axis.

    Returns:
        ``sum(conj(x1) * x2, axis)``.

    Raises:
        ValueError: the axis lengths differ.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(vecdot, S((2, 3), "f4"), S((3,), "f4")).shape
    (2,)
    """
    x1, x2 = asarray(x1), asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with axis={axis}")
    a = moveaxis(conj(x1), axis, -1)[..., None, :]
    b = moveaxis(x2, axis, -1)[..., :, None]
    return unchanged(matmul(a, b)[..., 0, 0])


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Batched matrix-vector products: ``(..., n, m), (..., m) -> (..., n)``.

    Args:
        x1: a stack of matrices.
        x2: a stack of vectors.

    Returns:
        The products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(matvec, S((4, 2, 3), "f4"), S((3,), "f4")).shape
    (4, 2)
    """
    out = run_compiled("matvec", matvec, (x1, x2))  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(matmul(asarray(x1), expand_dims(asarray(x2), -1))[..., 0])


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Batched conjugated vector-matrix products: ``(..., m), (..., m, n) -> (..., n)``.

    Args:
        x1: a stack of vectors (conjugated).
        x2: a stack of matrices.

    Returns:
        The products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(vecmat, S((2,), "f4"), S((4, 2, 3), "f4")).shape
    (4, 3)
    """
    out = run_compiled("vecmat", vecmat, (x1, x2))  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(matmul(expand_dims(conj(asarray(x1)), -2), asarray(x2))[..., 0, :])


def _window(m: int, name: str) -> tuple[int, Any]:
    m = operator.index(m)
    return m, np.dtype(canonicalize_dtype(np.float64))


def _iota(m: int, dtype: Any) -> Any:
    return asarray(np.arange(m), dtype=dtype)


_WINDOW_DOC = """The {title} window.

    Args:
        M: the window length.

    Returns:
        ``M`` samples in the default float type.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: {name}(5)).shape
    (5,)
    """


def _window_function(
    name: str, title: str, samples: Callable[[Array, int], Array]
) -> Callable[[int], Array]:
    # A window of ``M`` points: ``samples(n, M)`` of ``n = 0, ..., M - 1``
    # (``ones`` for ``M <= 1``).
    def window(M: int) -> Array:
        m, dtype = _window(M, name)
        if m <= 1:
            return ones(m, dtype)
        return unchanged(samples(_iota(m, dtype), m))

    window.__name__ = window.__qualname__ = name
    window.__doc__ = _WINDOW_DOC.format(title=title, name=name)
    return window


hamming = _window_function(
    "hamming", "Hamming", lambda n, m: 0.54 - 0.46 * cos(2 * np.pi * n / (m - 1))
)
hanning = _window_function("hanning", "Hann", lambda n, m: 0.5 * (1 - cos(2 * np.pi * n / (m - 1))))
blackman = _window_function(
    "blackman",
    "Blackman",
    lambda n, m: 0.42 - 0.5 * cos(2 * np.pi * n / (m - 1)) + 0.08 * cos(4 * np.pi * n / (m - 1)),
)
bartlett = _window_function(
    "bartlett", "Bartlett (triangular)", lambda n, m: 1 - abs(2 * n + 1 - m) / (m - 1)
)


def kaiser(M: int, beta: ArrayLike) -> Array:
    """The Kaiser window.

    Args:
        M: the window length.
        beta: the shape parameter.

    Returns:
        ``M`` samples in the default float type.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: kaiser(5, 3.0)).shape
    (5,)
    """
    m, dtype = _window(M, "kaiser")
    if m <= 1:
        return ones(m, dtype)
    n = _iota(m, dtype)
    alpha = 0.5 * (m - 1)
    return unchanged(i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(asarray(beta, dtype)))


def isin(
    element: ArrayLike,
    test_elements: ArrayLike,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    method: str = "auto",
) -> Array:
    """Elementwise: whether each element of ``element`` is in ``test_elements``.

    Every ``method`` JAX accepts gives the same values; this one compares all
    pairs (JAX's ``"compare_all"``, its default for ``"auto"``).

    Args:
        element: an array.
        test_elements: the values to look for.
        assume_unique: ignored (the result does not depend on it).
        invert: return ``not in`` instead.
        method: ``"auto"``, ``"compare_all"``, ``"binary_search"`` or ``"sort"``.

    Returns:
        A boolean array shaped like ``element``.

    Raises:
        ValueError: an unknown ``method``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(isin, S((2, 3), "int32"), S((4,), "int32")).shape
    (2, 3)
    """
    del assume_unique
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(
            f"method={method!r} is not implemented; options are 'compare_all', "
            "'binary_search', 'sort', and 'auto'"
        )
    out = run_compiled("isin", isin, (element, test_elements), False, invert)  # as JAX's jit
    if out is not None:
        return unchanged(out)
    element, test_elements = asarray(element), asarray(test_elements)
    dtype = result_type(element, test_elements)
    arr1 = ravel(element).astype(dtype)
    arr2 = ravel(test_elements).astype(dtype)
    if arr1.size == 0 or arr2.size == 0:
        flat = (ones if invert else zeros)(arr1.shape, np.bool_)
    elif invert:
        flat = (arr1[:, None] != arr2[None, :]).all(-1)
    else:
        flat = (arr1[:, None] == arr2[None, :]).any(-1)
    return unchanged(reshape(flat, np.shape(element)))
