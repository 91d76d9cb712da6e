"""``ufunc``: a NumPy-style universal function built from an element-wise Python function.

``ufunc(func, nin, nout)`` (or ``frompyfunc``) gives ``func`` the methods of
NumPy's ufuncs, as ``jax.numpy.ufunc`` does: ``reduce`` and ``reduceat``
(``fori_loop``), ``accumulate`` and ``at`` (``scan``), and ``outer``. Calls
broadcast the arguments and apply ``func`` to whole arrays, so ``func`` must
be element-wise (built from element-wise operations); JAX maps it over
scalars with ``vectorize`` instead, which needs ``vmap``. Each method may be
replaced by a faster implementation passed to the constructor.

>>> import numpy as np
>>> from tessela_tracer import eval_shape
>>> add = frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
>>> eval_shape(lambda x: add.reduce(x), np.ones((3, 4), np.float32)).shape
(4,)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax
from tessela_tracer.typing import Array, ArrayLike

from ._arrays import aval_of, check_arraylike, convert, dtype_arg, dtype_or
from ._creation import asarray, full
from ._shape_ops import expand_dims, moveaxis, reshape
from ._shapes import canonicalize_axis, is_python_scalar
from ._take import take
from ._where import broadcast_arrays, broadcast_to, where

__all__ = ["frompyfunc", "ufunc"]

_AT_INPLACE = (
    "ufunc.at cannot modify arrays in place, because arrays are immutable; pass "
    "inplace=False to get the updated array instead."
)


class ufunc:
    """A universal function: ``func`` with ``reduce``, ``accumulate``, ``at``, ``outer``, ...

    Args:
      func: the element-wise function of ``nin`` arrays.
      nin: the number of inputs.
      nout: the number of outputs.
      name: the name (default ``func.__name__``).
      nargs: the number of arguments (default ``nin``).
      identity: the identity of a binary reduction (``None``: none).
      call, reduce, accumulate, at, reduceat: faster implementations of the
        methods, used instead of the generic loops.

    >>> mul = ufunc(lambda x, y: x * y, 2, 1, name="mul", identity=1)
    >>> mul
    <jnp.ufunc 'mul'>
    """

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: ArrayLike | None = None,
        call: Callable[..., Any] | None = None,
        reduce: Callable[..., Any] | None = None,
        accumulate: Callable[..., Any] | None = None,
        at: Callable[..., Any] | None = None,
        reduceat: Callable[..., Any] | None = None,
    ) -> None:
        self.__doc__ = func.__doc__
        self.__name__: str = name or str(getattr(func, "__name__", "ufunc"))
        self._props: dict[str, Any] = {
            "func": func,
            "nin": operator.index(nin),
            "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin),
            "identity": identity,
            "call": call,
            "reduce": reduce,
            "accumulate": accumulate,
            "at": at,
            "reduceat": reduceat,
        }

    @property
    def nin(self) -> int:
        """The number of inputs."""
        return int(self._props["nin"])

    @property
    def nout(self) -> int:
        """The number of outputs."""
        return int(self._props["nout"])

    @property
    def nargs(self) -> int:
        """The number of arguments."""
        return int(self._props["nargs"])

    @property
    def identity(self) -> ArrayLike | None:
        """The identity of the binary reduction, or ``None``."""
        identity: ArrayLike | None = self._props["identity"]
        return identity

    def _key(self) -> tuple[Any, ...]:
        p = self._props
        return (p["func"], self.__name__, p["identity"], p["nin"], p["nout"], p["nargs"])

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: ArrayLike, out: None = None, where: None = None) -> Any:
        """Apply the function to the broadcast arguments.

        Args:
          *args: ``nin`` array-likes.
          out: unsupported; must be ``None``.
          where: unsupported; must be ``None``.

        Returns:
          The result (a tuple for several outputs).

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(ufunc(lambda x, y: x - y, 2, 1), np.ones(3, np.float32), 2.0).shape
        (3,)
        """
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._props["call"]
        if call is not None:
            return call(*args)
        arrays = broadcast_arrays(*args) if len(args) > 1 else [asarray(a) for a in args]
        return self._props["func"](*arrays)

    def _binary(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, dtype: DTypeLike | None, *args: Any) -> np.dtype[Any]:
        if dtype is not None:
            return dtype_or(dtype, np.dtype(np.float32))
        ones = [a if is_python_scalar(a) else ShapeDtypeStruct((), aval_of(a).dtype) for a in args]
        out: np.dtype[Any] = np.dtype(eval_shape(self._props["func"], *ones).dtype)
        return out

    def reduce(
        self,
        a: ArrayLike,
        axis: int | None = 0,
        dtype: DTypeLike | None = None,
        out: None = None,
        keepdims: bool = False,
        initial: ArrayLike | None = None,
        where: ArrayLike | None = None,
    ) -> Array:
        """Reduce ``a`` along ``axis`` by applying the binary function repeatedly.

        Args:
          a: an array-like.
          axis: the axis (``None``: the flattened array).
          dtype: the accumulation dtype (default: the function's result dtype).
          out: unsupported; must be ``None``.
          keepdims: keep the reduced axis with size one.
          initial: the starting value (default: the identity, else the first entry).
          where: a boolean mask of entries to include.

        Returns:
          The reduction.

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> add = frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
        >>> eval_shape(add.reduce, np.arange(4.0, dtype=np.float32)).shape
        ()
        """
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(
                    f"reduction operation {self.__name__!r} does not have an identity, so to "
                    "use a where mask one has to specify 'initial'."
                )
            if np.dtype(asarray(where).dtype) != np.bool_:
                raise ValueError(
                    f"where argument must have dtype=bool; got dtype={asarray(where).dtype}"
                )
        impl = self._props["reduce"]
        if impl is not None:
            out_v: Array = impl(
                a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where
            )
            return out_v
        return self._reduce_loop(asarray(a), axis, dtype, keepdims, initial, where)

    def _reduce_loop(
        self, arr: Array, axis: Any, dtype: Any, keepdims: bool, initial: Any, mask: Any
    ) -> Array:
        if initial is None:
            initial = self.identity
        dt = self._result_dtype(dtype, arr, arr)
        if mask is not None:
            mask = broadcast_to(asarray(mask), arr.shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final: tuple[int, ...] = (1,) * arr.ndim if keepdims else ()
            arr = reshape(arr, (-1,))
            mask = None if mask is None else reshape(mask, (-1,))
            axis = 0
        else:
            axis = canonicalize_axis(axis, arr.ndim)
            rest = (*arr.shape[:axis], *arr.shape[axis + 1 :])
            final = (*arr.shape[:axis], 1, *arr.shape[axis + 1 :]) if keepdims else rest
        if axis != 0:
            arr = moveaxis(arr, axis, 0)
            mask = None if mask is None else moveaxis(mask, axis, 0)
        if arr.shape[0] == 0:
            if initial is None:
                raise ValueError(
                    f"zero-size array to reduction operation {self.__name__} which has no identity"
                )
            return full(final, initial, dt)

        def body(i: Array, val: Array) -> Array:
            new = self(val, arr[i].astype(dt))
            return new if mask is None else where(mask[i], new, val)

        start, init = (1, arr[0]) if initial is None else (0, initial)
        init = broadcast_to(convert(init, dt), arr.shape[1:])
        result: Array = lax.fori_loop(start, arr.shape[0], body, init)
        return reshape(result, final) if keepdims else result

    def accumulate(
        self, a: ArrayLike, axis: int = 0, dtype: DTypeLike | None = None, out: None = None
    ) -> Array:
        """The running reduction along ``axis``.

        Args:
          a: an array-like.
          axis: the axis.
          dtype: the accumulation dtype (default: the function's result dtype).
          out: unsupported; must be ``None``.

        Returns:
          An array of ``a``'s shape.

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> mul = frompyfunc(lambda x, y: x * y, nin=2, nout=1, identity=1)
        >>> eval_shape(mul.accumulate, np.ones((2, 3), np.float32)).shape
        (2, 3)
        """
        check_arraylike(f"{self.__name__}.accumulate", a)
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        impl = self._props["accumulate"]
        if impl is not None:
            out_v: Array = impl(a, axis=axis, dtype=dtype)
            return out_v
        arr = asarray(a)
        dt = self._result_dtype(dtype, arr, arr)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, arr.ndim)
        if arr.size == 0:
            return full(arr.shape, 0, dt)
        arr = moveaxis(arr, axis, 0)

        def step(carry: Any, _: Any) -> tuple[Any, Any]:
            i, x = carry
            y = where(i == 0, arr[0].astype(dt), self(x.astype(dt), arr[i].astype(dt)))
            return (i + 1, y), y

        _, result = lax.scan(step, (0, arr[0].astype(dt)), None, length=arr.shape[0])
        out_a: Array = moveaxis(result, 0, axis)
        return out_a

    def at(
        self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *, inplace: bool = True
    ) -> Array:
        """``a`` with the function applied at ``indices`` (repeated indices apply repeatedly).

        Args:
          a: an array-like.
          indices: the index (as for ``a[indices]``).
          b: the second operand of a binary function.
          inplace: must be False (arrays are immutable), as in JAX.

        Returns:
          The updated array.

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> add = frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
        >>> f = lambda x: add.at(x, np.array([0, 0, 2]), 1.0, inplace=False)
        >>> eval_shape(f, np.zeros(3, np.float32)).shape
        (3,)
        """
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        impl = self._props["at"]
        if impl is not None:
            out_v: Array = impl(a, indices) if b is None else impl(a, indices, b)
            return out_v
        extra = () if b is None else (b,)
        check_arraylike(f"{self.__name__}.at", a, *extra)
        arrs = [asarray(a), *(asarray(e) for e in extra)]
        dt = self._result_dtype(None, *arrs)
        arr = asarray(convert(arrs[0], dt))
        args = [convert(e, dt) for e in arrs[1:]]
        idx = indices if isinstance(indices, tuple) else (indices,)
        if not idx:
            return arr
        shapes = [np.shape(i) for i in idx if not isinstance(i, slice)]
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        if not shape:
            single: Array = arr.at[idx].set(self(arr.at[idx].get(), *args))
            return single
        n = math.prod(shape)
        if args:
            tail = args[0].shape[len(shape) :]
            args = [reshape(broadcast_to(args[0], (*shape, *tail)), (n, *tail))]
        flat = [i if isinstance(i, slice) else reshape(broadcast_to(i, shape), (-1,)) for i in idx]

        def step(carry: Any, _: Any) -> tuple[Any, Any]:
            i, acc = carry
            where_ = tuple(j if isinstance(j, slice) else take(j, i) for j in flat)
            acc = acc.at[where_].set(
                self(acc.at[where_].get(), *(take(g, i, axis=0) for g in args))
            )
            return (i + 1, acc), None

        (_, result), _ = lax.scan(step, (0, arr), None, length=n)
        return result

    def reduceat(
        self,
        a: ArrayLike,
        indices: ArrayLike,
        axis: int = 0,
        dtype: DTypeLike | None = None,
        out: None = None,
    ) -> Array:
        """Reduce ``a`` over the slices ``indices[i]:indices[i + 1]`` along ``axis``.

        Args:
          a: an array-like of rank one or more.
          indices: 1-D start indices.
          axis: the axis.
          dtype: the result dtype (default ``a``'s).
          out: unsupported; must be ``None``.

        Returns:
          One reduction per index.

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> add = frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
        >>> f = lambda x: add.reduceat(x, np.array([0, 2, 5]))
        >>> eval_shape(f, np.arange(6, dtype=np.float32)).shape
        (3,)
        """
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        impl = self._props["reduceat"]
        if impl is not None:
            out_v: Array = impl(a, indices, axis=axis, dtype=dtype)
            return out_v
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        arr, ind_arr = asarray(a), asarray(indices)
        if arr.ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={arr.shape}")
        if ind_arr.ndim != 1:
            raise ValueError(
                f"reduceat: indices must be one-dimensional, got indices.shape={ind_arr.shape}"
            )
        if axis is None or isinstance(axis, tuple | list):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, arr.ndim)
        if dtype is not None:
            arr = arr.astype(dtype_arg(dtype))
        result = take(arr, ind_arr, axis=axis)
        bounds = np.delete(np.arange(result.ndim), axis)
        ends = lax.concatenate([ind_arr, lax.full((1,), arr.shape[axis], ind_arr.dtype)], 0)
        ends = expand_dims(ends, tuple(int(d) for d in bounds))
        lo = lax.slice_in_dim(ends, 0, ends.shape[axis] - 1, axis=axis)
        hi = lax.slice_in_dim(ends, 1, ends.shape[axis], axis=axis)

        def body(i: Array, acc: Array) -> Array:
            piece = take(arr, expand_dims(i, (0,)), axis=axis)
            return where((i > lo) & (i < hi), self(acc, piece), acc)

        out_r: Array = lax.fori_loop(0, arr.shape[axis], body, result)
        return out_r

    def outer(self, A: ArrayLike, B: ArrayLike, /) -> Array:
        """The function applied to every pair of entries of ``A`` and ``B``.

        Args:
          A: an array-like.
          B: an array-like.

        Returns:
          An array of shape ``A.shape + B.shape``.

        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> sub = frompyfunc(lambda x, y: x - y, nin=2, nout=1)
        >>> eval_shape(sub.outer, np.ones(2, np.float32), np.ones(3, np.float32)).shape
        (2, 3)
        """
        self._binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        a, b = asarray(A), asarray(B)
        flat_a, flat_b = reshape(a, (-1,)), reshape(b, (-1,))
        result: Array = reshape(self(flat_a[:, None], flat_b[None, :]), (*a.shape, *b.shape))
        return result


def frompyfunc(
    func: Callable[..., Any], /, nin: int, nout: int, *, identity: ArrayLike | None = None
) -> ufunc:
    """A :class:`ufunc` from an element-wise Python function.

    Args:
      func: the element-wise function.
      nin: the number of inputs.
      nout: the number of outputs.
      identity: the identity of its binary reduction.

    Returns:
      The ufunc.

    >>> frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
    <jnp.ufunc '<lambda>'>
    """
    return ufunc(func, nin, nout, identity=identity)
