"""Shape manipulation: reshape, transpose, joining, splitting, padding, tiling."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias, cast, overload

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import check_arraylike, convert, promote_dtypes, shape_of
from ._eager import run_compiled
from ._shapes import (
    canonicalize_axis,
    canonicalize_shape,
    documented,
    move_axis_permutation,
    normalize_reduction_axes,
)

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "expand_dims",
    "flip", "hstack", "moveaxis", "ravel", "reshape", "split", "squeeze",
    "stack", "swapaxes", "transpose", "vstack",
]  # fmt: skip

ArraySequence: TypeAlias = Sequence[ArrayLike] | Array | np.ndarray
"""Arrays to join: a sequence of array-likes, or one array split along its first axis."""
IndicesOrSections: TypeAlias = int | np.integer | Sequence[int] | Array | np.ndarray
"""How to split: a number of equal sections, or the indices to split at."""


def _resolve_shape(newshape: Any, size: int, old: tuple[int, ...]) -> tuple[int, ...]:
    entries = list(newshape) if isinstance(newshape, Sequence) else [newshape]
    dims = [operator.index(d) for d in entries]
    if dims.count(-1) > 1:
        raise TypeError(
            f"can only specify one unknown axis size with a `-1` value, got {tuple(dims)}; "
            "give every other axis its size"
        )
    if -1 in dims and 0 in dims:
        # JAX's class: its size of the unknown axis divides by the known ones.
        raise ZeroDivisionError(
            f"cannot reshape array of shape {old} (size {size}) into shape {tuple(dims)}: "
            "the size of the -1 axis is undefined next to a 0-sized axis; give it explicitly"
        )
    if any(d < -1 for d in dims):
        raise TypeError(
            f"cannot reshape array of shape {old} (size {size}) into shape {tuple(dims)}: "
            "sizes must be >= 0, and -1 is the only negative entry allowed (it stands for "
            "the size that fits)"
        )
    known = math.prod(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or size % known:
            raise TypeError(
                f"cannot reshape array of shape {old} (size {size}) into shape {tuple(dims)}"
            )
        dims[dims.index(-1)] = size // known
    out = canonicalize_shape(tuple(dims))
    if math.prod(out) != size:
        raise TypeError(
            f"cannot reshape array of shape {old} (size {size}) into shape {out} "
            f"(size {math.prod(out)})"
        )
    return out


def reshape(
    a: ArrayLike, shape: int | Sequence[int], order: str = "C", *, copy: bool | None = None
) -> Array:
    """Give an array a new shape with the same number of elements.

    Args:
      a: an array-like (not a list).
      shape: the new shape; one entry may be ``-1``.
      order: ``"C"`` (row-major) or ``"F"`` (column-major) element order.
      copy: accepted for the array API (arrays are immutable, so a reshape
        never aliases a buffer that could change).

    Returns:
      The reshaped array (``a`` itself when the shape is unchanged).

    Raises:
      TypeError: the sizes differ, ``shape`` has two ``-1`` entries or an
        entry below ``-1``.
      ZeroDivisionError: ``shape`` has both ``-1`` and ``0`` (JAX's class).

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: reshape(x, (-1, 2)), ShapeDtypeStruct((2, 6), "float32")).shape
    (6, 2)
    """
    del copy
    check_arraylike("reshape", a)
    old = shape_of(a)
    new = _resolve_shape(shape, math.prod(old), old)
    if order == "F":
        t = lax.transpose(a, tuple(reversed(range(len(old))))) if len(old) > 1 else a
        out = lax.reshape(t, tuple(reversed(new)))
        return unchanged(
            lax.transpose(out, tuple(reversed(range(len(new))))) if len(new) > 1 else out
        )
    if order == "A":  # JAX's class
        raise NotImplementedError("reshape: order='A' is not implemented; use 'C' or 'F'")
    if order != "C":
        raise ValueError(f"reshape: order must be 'C' or 'F', got order={order!r}")
    return unchanged(a if new == old else lax.reshape(a, new))


def ravel(a: ArrayLike, order: str = "C") -> Array:
    """Flatten to one dimension.

    Args:
      a: an array-like.
      order: ``"C"`` or ``"F"``.

    Returns:
      The 1-D array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(ravel, ShapeDtypeStruct((2, 3), "float32")).shape
    (6,)
    """
    if order == "K":  # JAX's class
        raise NotImplementedError("ravel: order='K' is not implemented; use 'C' or 'F'")
    out = run_compiled("ravel", ravel, (a,), order)  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    check_arraylike("ravel", a)
    return unchanged(reshape(a, (math.prod(shape_of(a)),), order=order))


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Permute the axes (reverse them when ``axes`` is ``None``).

    Args:
      a: an array-like.
      axes: a permutation of the axes, negative entries allowed.

    Returns:
      The transposed array.

    Raises:
      TypeError: ``axes`` is not a permutation of the axes (JAX's class).

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: transpose(x, (1, 0, 2)), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (3, 2, 4)
    """
    check_arraylike("transpose", a)
    nd = len(shape_of(a))
    perm = (
        tuple(reversed(range(nd)))
        if axes is None
        else tuple(canonicalize_axis(i, nd) for i in axes)
    )
    if sorted(perm) != list(range(nd)):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got permutation "
            f"{perm} for operand shape {shape_of(a)}; name each of the axes "
            f"{tuple(range(nd))} exactly once"
        )
    return lax.transpose(a, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """Exchange two axes.

    Args:
      a: an array-like.
      axis1: the first axis.
      axis2: the second axis.

    Returns:
      The array with the two axes swapped.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: swapaxes(x, 0, 2), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (4, 3, 2)
    """
    check_arraylike("swapaxes", a)
    nd = len(shape_of(a))
    perm = list(range(nd))
    i, j = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, tuple(perm))


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    """Move axes to new positions, keeping the order of the others.

    Args:
      a: an array-like.
      source: the axes to move.
      destination: where they go.

    Returns:
      The array with the axes moved.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: moveaxis(x, 0, -1), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (3, 4, 2)
    """
    check_arraylike("moveaxis", a)
    nd = len(shape_of(a))
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    src_c = tuple(canonicalize_axis(s, nd) for s in src)
    dst_c = tuple(canonicalize_axis(d, nd) for d in dst)
    if len(set(src_c)) != len(src_c):  # JAX's class
        raise TypeError(f"moveaxis: repeated axis in the source argument {src_c}")
    if len(set(dst_c)) != len(dst_c):  # NumPy's class (JAX returns some transpose)
        raise ValueError(f"moveaxis: repeated axis in the destination argument {dst_c}")
    perm = move_axis_permutation(nd, src_c, dst_c)
    return unchanged(a if perm == tuple(range(nd)) else lax.transpose(a, perm))


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """Remove size-1 axes (all of them, or those in ``axis``).

    Args:
      a: an array-like.
      axis: axes to remove; each must have size 1.

    Returns:
      The squeezed array.

    Raises:
      ValueError: a named axis does not have size 1.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(squeeze, ShapeDtypeStruct((1, 3, 1), "float32")).shape
    (3,)
    """
    check_arraylike("squeeze", a)
    shape = shape_of(a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        dims = normalize_reduction_axes(axis, len(shape))
        for d in dims:
            if shape[d] != 1:
                raise ValueError(
                    "cannot select an axis to squeeze out which has size not equal to one, "
                    f"got shape={shape} and dimensions={dims}"
                )
    return unchanged(lax.squeeze(a, dims) if dims else a)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """Insert size-1 axes at the positions ``axis`` of the result.

    Args:
      a: an array-like.
      axis: positions in the result.

    Returns:
      The expanded array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: expand_dims(x, (0, -1)), ShapeDtypeStruct((2, 3), "f4")).shape
    (1, 2, 3, 1)
    """
    check_arraylike("expand_dims", a)
    shape = shape_of(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = len(shape) + len(axes)
    new = normalize_reduction_axes(axes, nd)
    it = iter(shape)
    out_shape = tuple(1 if i in new else next(it) for i in range(nd))
    kept = tuple(i for i in range(nd) if i not in new)
    return lax.broadcast_in_dim(a, out_shape, kept)


def _check_sequence(name: str, arrays: ArraySequence) -> list[ArrayLike]:
    if not isinstance(arrays, Sequence) or isinstance(arrays, str):
        if hasattr(arrays, "shape") and shape_of(arrays):
            return [arrays[i] for i in range(shape_of(arrays)[0])]
        raise TypeError(f"{name} requires a sequence of arrays, got {type(arrays)}")
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike(name, *arrays)
    return list(arrays)


def concatenate(
    arrays: ArraySequence, axis: int | None = 0, dtype: DTypeLike | None = None
) -> Array:
    """Join arrays along an existing axis (the flattened arrays when axis is None).

    Args:
      arrays: a sequence of array-likes.
      axis: the joining axis.
      dtype: dtype of the result.

    Returns:
      The joined array, of the promoted dtype.

    Raises:
      TypeError: the shapes differ off the joining axis.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: concatenate([x, y]), s((2, 3), "f4"), s((4, 3), "f4")).shape
    (6, 3)
    """
    arrs = _check_sequence("concatenate", arrays)
    if axis is None:
        arrs = [ravel(a) for a in arrs]
        axis = 0
    arrs = promote_dtypes(*arrs)
    if dtype is not None:
        arrs = [convert(a, np.dtype(dtype)) for a in arrs]
    nd = len(shape_of(arrs[0]))
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = canonicalize_axis(axis, nd)
    if len(arrs) == 1:
        return unchanged(arrs[0])
    return lax.concatenate(arrs, ax)


def stack(arrays: ArraySequence, axis: int = 0, dtype: DTypeLike | None = None) -> Array:
    """Join arrays of one shape along a new axis.

    Args:
      arrays: a sequence of array-likes of the same shape.
      axis: the position of the new axis in the result.
      dtype: dtype of the result.

    Returns:
      The stacked array.

    Raises:
      ValueError: the shapes differ.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: stack([x, y], -1), s((2, 3), "f4"), s((2, 3), "f4")).shape
    (2, 3, 2)
    """
    arrs = _check_sequence("stack", arrays)
    shape = shape_of(arrs[0])
    if any(shape_of(a) != shape for a in arrs):
        raise ValueError("All input arrays must have the same shape.")
    ax = canonicalize_axis(axis, len(shape) + 1)
    arrs = promote_dtypes(*arrs)
    if dtype is not None:
        arrs = [convert(a, np.dtype(dtype)) for a in arrs]
    return unchanged(lax.stack(arrs, ax))


def _atleast(a: Any, nd: int) -> Any:
    shape = shape_of(a)
    if len(shape) >= nd:
        return a
    if nd == 1:
        return reshape(a, (1,))
    if nd == 2:
        return expand_dims(a, 0) if len(shape) == 1 else expand_dims(a, (0, 1))
    if len(shape) == 2:
        return expand_dims(a, 2)
    return expand_dims(a, (0, 2)) if len(shape) == 1 else expand_dims(a, (0, 1, 2))


class _AtLeast(Protocol):
    @overload
    def __call__(self, ary: ArrayLike, /) -> Array: ...
    @overload
    def __call__(self, ary: ArrayLike, other: ArrayLike, /, *arys: ArrayLike) -> list[Array]: ...


_ATLEAST_DOC = """View inputs as arrays with at least {what}.

    Args:
      *arys: array-likes.

    Returns:
      One array, or a list of arrays for several inputs.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape({name}, ShapeDtypeStruct({shape}, "float32")).shape
    {result}
    """


def _atleast_function(nd: int, what: str, shape: str, result: str) -> _AtLeast:
    # ``atleast_{nd}d``: each input through one staged call of that name.
    name = f"atleast_{nd}d"

    def promote(a: Array) -> Array:
        out: Array = _atleast(a, nd)
        return out

    promote.__name__ = promote.__qualname__ = name
    staged = jit(promote)

    def atleast(*arys: ArrayLike) -> Array | list[Array]:
        check_arraylike(name, *arys)
        out = [staged(a) for a in arys]
        return out[0] if len(out) == 1 else out

    atleast.__name__ = atleast.__qualname__ = name
    atleast.__doc__ = _ATLEAST_DOC.format(what=what, name=name, shape=shape, result=result)
    return cast(_AtLeast, atleast)


atleast_1d = _atleast_function(1, "one dimension", "()", "(1,)")
atleast_2d = _atleast_function(2, "two dimensions (1-D arrays become rows)", "(3,)", "(1, 3)")
atleast_3d = _atleast_function(3, "three dimensions", "(3,)", "(1, 3, 1)")

_STACK_DOC = """Join arrays {how}.

    Args:
      tup: a sequence of array-likes.
      dtype: dtype of the result.

    Returns:
      The joined array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: {name}([x, y]), s((3,), "f4"), s({second}, "f4")).shape
    {result}
    """


@documented(
    _STACK_DOC,
    how="column-wise (along axis 1, or axis 0 for 1-D arrays)",
    second="(2,)",
    result="(5,)",
)
def hstack(tup: ArraySequence, dtype: DTypeLike | None = None) -> Array:
    arrs = [atleast_1d(a) for a in _check_sequence("hstack", tup)]
    return unchanged(concatenate(arrs, axis=0 if len(shape_of(arrs[0])) == 1 else 1, dtype=dtype))


@documented(_STACK_DOC, how="row-wise (1-D arrays become rows)", second="(2, 3)", result="(3, 3)")
def vstack(tup: ArraySequence, dtype: DTypeLike | None = None) -> Array:
    arrs = [atleast_2d(a) for a in _check_sequence("vstack", tup)]
    return unchanged(concatenate(arrs, axis=0, dtype=dtype))


def split(ary: ArrayLike, indices_or_sections: IndicesOrSections, axis: int = 0) -> list[Array]:
    """Split into equal sections, or at the given indices, along an axis.

    Args:
      ary: an array-like.
      indices_or_sections: a number of equal sections, or a sequence of indices.
      axis: the axis to split.

    Returns:
      The list of pieces.

    Raises:
      ValueError: the axis does not divide into equal sections.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> [p.shape for p in eval_shape(lambda x: split(x, [1, 3], axis=1), ShapeDtypeStruct((2, 5), "f4"))]
    [(2, 1), (2, 2), (2, 2)]
    """
    check_arraylike("split", ary)
    shape = shape_of(ary)
    ax = canonicalize_axis(axis, len(shape))
    size = shape[ax]
    if isinstance(indices_or_sections, int | np.integer):
        n = int(indices_or_sections)
        if n == 0:  # JAX's and NumPy's class
            raise ZeroDivisionError("split: indices_or_sections=0 sections; pass at least 1")
        if n < 0 or size % n:
            raise ValueError(
                f"array split does not result in an equal division: rest is {size % n if n else size}"
            )
        bounds = [i * (size // n) for i in range(n + 1)]
    else:
        idx = [min(max(int(i) + (size if int(i) < 0 else 0), 0), size) for i in indices_or_sections]
        bounds = [0, *idx, size]
    # Sizes as NumPy integers, as JAX passes them (they print as np.int64(n)).
    sizes = np.diff(np.asarray(bounds, np.int64))
    return list(lax.split(ary, tuple(sizes), ax))


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """Reverse the order of elements along the given axes (all when None).

    Args:
      m: an array-like.
      axis: axes to reverse.

    Returns:
      The flipped array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: flip(x, 1), ShapeDtypeStruct((2, 3), "float32")).shape
    (2, 3)
    """
    check_arraylike("flip", m)
    nd = len(shape_of(m))
    if isinstance(axis, Sequence):
        canon = [canonicalize_axis(operator.index(ax), nd) for ax in axis]
        if len(set(canon)) != len(canon):  # JAX's class (its rev refuses them)
            raise TypeError(f"flip: axis={tuple(axis)!r} repeats an axis; give each axis once")
    dims = normalize_reduction_axes(axis, nd)
    return unchanged(_flip_jit(m, dims))


def _flip(m: Any, dims: tuple[int, ...]) -> Any:
    return lax.rev(m, dims) if dims else m


_flip_jit = jit(_flip, static_argnums=1)
