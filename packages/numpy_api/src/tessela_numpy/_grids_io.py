"""Index tricks (``r_``, ``c_``, ``mgrid``, ``ogrid``), printing options and host I/O.

``r_`` and ``c_`` concatenate slices, scalars and arrays (a leading string
directive ``"axis,ndmin,trans1d"``, ``"r"`` or ``"c"`` as in NumPy);
``mgrid`` and ``ogrid`` build dense and open grids from slices (a complex step
``5j`` means five points, end included). ``frombuffer``, ``fromstring``,
``from_dlpack`` and ``load`` read host data into arrays; ``save``, ``savez``,
``array_repr``, ``array_str`` and the print options call NumPy's, as
``jax.numpy``'s do; ``fromfunction`` calls a function on index grids. ``fromfile`` and ``fromiter`` raise ``NotImplementedError``, as
JAX's do (they may be impure).

>>> import numpy as np
>>> from tessela_tracer import eval_shape
>>> eval_shape(lambda: mgrid[0:2, 0:3]).shape
(2, 2, 3)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO, Any, TypeAlias

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import ArrayOps
from tessela_tracer import dtypes as _dt
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import promote_dtypes
from ._creation import array, asarray
from ._ranges import arange, linspace
from ._sequences import meshgrid
from ._shape_ops import concatenate, expand_dims, stack, transpose
from ._shapes import Shape, canonicalize_shape

__all__ = [
    "array_repr", "array_str", "c_", "from_dlpack", "frombuffer", "fromfile", "fromfunction",
    "fromiter", "fromstring", "get_printoptions", "load", "mgrid", "ogrid", "printoptions", "r_", "save",
    "savez", "set_printoptions",
]  # fmt: skip

FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]
"""A file name or a binary file object."""


def array_repr(
    arr: ArrayLike,
    max_line_width: int | None = None,
    precision: int | None = None,
    suppress_small: bool | None = None,
) -> str:
    """NumPy's ``array_repr`` of the array's values.

    Args:
      arr: an array-like.
      max_line_width: the line width.
      precision: the digits of floats.
      suppress_small: print small floats as zero.

    Returns:
      The text.

    >>> import numpy as np
    >>> array_repr(np.arange(2))
    'array([0, 1])'
    """
    return np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)


def array_str(
    a: ArrayLike,
    max_line_width: int | None = None,
    precision: int | None = None,
    suppress_small: bool | None = None,
) -> str:
    """NumPy's ``array_str`` of the array's values.

    Args:
      a: an array-like.
      max_line_width: the line width.
      precision: the digits of floats.
      suppress_small: print small floats as zero.

    Returns:
      The text.

    >>> import numpy as np
    >>> array_str(np.arange(2))
    '[0 1]'
    """
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def save(file: FileLike, arr: ArrayLike, allow_pickle: bool = True) -> None:
    """Save the array's values in NumPy's ``.npy`` format (``numpy.save``).

    Args:
      file: a file name or binary file object.
      arr: an array-like.
      allow_pickle: passed to ``numpy.save``.

    Returns:
      None.

    >>> import io, numpy as np
    >>> save(io.BytesIO(), np.arange(2))
    """
    np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file: FileLike, *args: ArrayLike, allow_pickle: bool = True, **kwds: ArrayLike) -> None:
    """Save several arrays in one uncompressed ``.npz`` archive (``numpy.savez``).

    Args:
      file: a file name or binary file object.
      *args: arrays, stored as ``arr_0``, ``arr_1``, ...
      allow_pickle: passed to ``numpy.savez``.
      **kwds: arrays stored under their keyword names.

    Returns:
      None.

    >>> import io, numpy as np
    >>> savez(io.BytesIO(), a=np.arange(2))
    """
    host = [np.asarray(a) for a in args]

    named = {k: np.asarray(v) for k, v in kwds.items()}
    np.savez(file, *host, allow_pickle=allow_pickle, **named)


def get_printoptions() -> dict[str, Any]:
    """NumPy's current print options, which arrays print with.

    Returns:
      The options (``numpy.get_printoptions``).

    >>> get_printoptions()["precision"] >= 0
    True
    """
    return dict(np.get_printoptions())


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    """Set NumPy's print options, which arrays print with (``numpy.set_printoptions``).

    Args:
      *args: passed to ``numpy.set_printoptions``.
      **kwargs: passed to ``numpy.set_printoptions``.

    Returns:
      None.

    >>> opts = get_printoptions(); set_printoptions(precision=3); set_printoptions(**opts)
    """
    np.set_printoptions(*args, **kwargs)


def printoptions(*args: Any, **kwargs: Any) -> Any:
    """A context manager that sets NumPy's print options for its block.

    Args:
      *args: passed to ``numpy.printoptions``.
      **kwargs: passed to ``numpy.printoptions``.

    Returns:
      The context manager.

    >>> import numpy as np
    >>> with printoptions(precision=2):
    ...     print(np.array([1 / 3]))
    [0.33]
    """
    return np.printoptions(*args, **kwargs)


def _concrete(v: Any, what: str) -> Any:
    if isinstance(v, ArrayOps):
        try:
            return v.item()
        except Exception:
            raise TypeError(f"{what} must be concrete; got a traced value") from None
    return v


def _grid_1d(s: slice, op_name: str) -> Any:
    start = _concrete(s.start, f"slice start of jnp.{op_name}") or 0
    stop = _concrete(s.stop, f"slice stop of jnp.{op_name}")
    step = _concrete(s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Mgrid:
    """``mgrid[slices]``: the dense grid of the slices' ranges, stacked on a new first axis."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        parts = promote_dtypes(*(_grid_1d(k, "mgrid") for k in key))
        grids = meshgrid(*parts, indexing="ij", sparse=False)
        if not grids:
            return arange(0)
        return stack(grids, 0)


class _Ogrid:
    """``ogrid[slices]``: the open grid of the slices' ranges (arrays that broadcast)."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        parts = promote_dtypes(*(_grid_1d(k, "ogrid") for k in key))
        return meshgrid(*parts, indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """Concatenation by indexing: ``r_[...]`` and ``c_[...]``."""

    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = items[0]
        if isinstance(directive, str):
            items = items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec: list[Any] = directive.split(",")
                vec = vec + params[len(vec) :] if len(vec) < 4 else [*vec[:3], params[-1]]
                try:
                    params = [int(v) for v in vec]
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        out = []
        for item in items:
            if isinstance(item, slice):
                obj, item_ndim = _grid_1d(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                obj = array(item)
                item_ndim = obj.ndim
            obj = array(obj, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = transpose(obj, order[shifts:] + order[:shifts])
            out.append(obj)
        res = concatenate(out, axis=axis)
        if matrix != -1 and res.ndim == 1:
            res = expand_dims(res, matrix)
        return res

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """The class of ``r_``: concatenation along the first axis."""

    axis = 0
    ndmin = 1
    trans1d = -1
    op_name = "r_"


class CClass(_AxisConcat):
    """The class of ``c_``: 1-D pieces become columns, concatenated along the last axis."""

    axis = -1
    ndmin = 2
    trans1d = 0
    op_name = "c_"


r_ = RClass()
c_ = CClass()


def frombuffer(buffer: Any, dtype: DTypeLike = float, count: int = -1, offset: int = 0) -> Array:
    """An array of the values in a bytes-like buffer.

    Args:
      buffer: a bytes-like object.
      dtype: the values' dtype (default float64, stored as float32 without x64).
      count: how many values to read (-1: all).
      offset: the byte offset to start at.

    Returns:
      The 1-D array.

    >>> import numpy as np
    >>> frombuffer(np.arange(3, dtype=np.int16).tobytes(), dtype=np.int16).shape
    (3,)
    """
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromfunction(
    function: Callable[..., Any], shape: Shape, *, dtype: DTypeLike = float, **kwargs: Any
) -> Array:
    """``function`` of the index grids of ``shape``: entry ``[i, j, ...]`` is ``function(i, j, ...)``.

    ``function`` receives whole index arrays (``indices(shape)``), as in
    NumPy, so it must be element-wise; JAX maps it over scalars with ``vmap``,
    which gives the same result for element-wise functions.

    Args:
      function: a function of ``len(shape)`` index arrays.
      shape: the result's shape.
      dtype: the dtype of the index arrays (default float32).
      **kwargs: passed to ``function``.

    Returns:
      What ``function`` returns.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: fromfunction(lambda i, j: i + j, (2, 3), dtype=int)).dtype
    dtype('int32')
    """
    dims = canonicalize_shape(shape)
    grids = meshgrid(*(arange(n, dtype=dtype) for n in dims), indexing="ij")
    return unchanged(function(*grids, **kwargs))


def fromstring(string: str, dtype: DTypeLike = float, count: int = -1, *, sep: str) -> Array:
    """An array of the numbers written in ``string``, separated by ``sep``.

    Args:
      string: the text.
      dtype: the values' dtype.
      count: how many values to read (-1: all).
      sep: the separator (required, as in JAX).

    Returns:
      The 1-D array.

    >>> fromstring("1 2 3", dtype=int, sep=" ").shape
    (3,)
    """
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def from_dlpack(x: Any, /, *, device: object = None, copy: bool | None = None) -> Array:
    """An array from an object that supports the DLPack protocol (on the host).

    Args:
      x: an object with ``__dlpack__``.
      device: the device to place the result on.
      copy: passed to NumPy's ``from_dlpack``.

    Returns:
      The array.

    >>> import numpy as np
    >>> from_dlpack(np.arange(4.0)).shape
    (4,)
    """
    host = np.from_dlpack(x) if copy is None else np.from_dlpack(x, copy=copy)
    return asarray(host, device=device)


def fromfile(*args: Any, **kwargs: Any) -> Array:
    """Not provided, as in JAX: reading a file may be impure.

    Args:
      *args: ignored.
      **kwargs: ignored.

    Returns:
      Never.

    Raises:
      NotImplementedError: always; use ``asarray(numpy.fromfile(...))``.

    >>> fromfile("x.bin")
    Traceback (most recent call last):
    ...
    NotImplementedError: jnp.fromfile() is not implemented because it may be non-pure ...
    """
    del args, kwargs
    raise NotImplementedError(
        "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other transformations. Consider using jnp.asarray(np.fromfile(...)) "
        "instead, outside of transformed functions."
    )


def fromiter(*args: Any, **kwargs: Any) -> Array:
    """Not provided, as in JAX: consuming an iterator may be impure.

    Args:
      *args: ignored.
      **kwargs: ignored.

    Returns:
      Never.

    Raises:
      NotImplementedError: always; use ``asarray(numpy.fromiter(...))``.

    >>> fromiter(iter([1, 2]), int)
    Traceback (most recent call last):
    ...
    NotImplementedError: jnp.fromiter() is not implemented because it may be non-pure ...
    """
    del args, kwargs
    raise NotImplementedError(
        "jnp.fromiter() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other transformations. Consider using jnp.asarray(np.fromiter(...)) "
        "instead, outside of transformed functions."
    )


def load(file: FileLike, *args: Any, **kwargs: Any) -> Any:
    """Load an array saved by ``save`` (``numpy.load``), as an array.

    bfloat16 data, which NumPy stores as two-byte voids, come back as bfloat16.

    Args:
      file: a file name or binary file object.
      *args: passed to ``numpy.load``.
      **kwargs: passed to ``numpy.load``.

    Returns:
      The array (other objects ``numpy.load`` returns come back unchanged).

    >>> import io, numpy as np
    >>> buf = io.BytesIO(); np.save(buf, np.arange(3)); _ = buf.seek(0)
    >>> load(buf).shape
    (3,)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(_dt.bfloat16)
        try:
            return asarray(out)
        except TypeError:
            return unchanged(out)
    return unchanged(out)
