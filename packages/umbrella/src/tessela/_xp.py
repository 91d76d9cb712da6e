"""An array-API view of Tessela values, for code written against the standard.

``tessela_prng`` samples through the namespace its key data reports with
``__array_namespace__()``. Tessela's arrays and tracers do not report one, so
this module gives them a thin box that does: :class:`Boxed` holds a Tessela
value and forwards every operator to it; :data:`namespace` maps the standard
names onto ``tessela_numpy`` and ``tessela_tracer.lax``, unboxing arguments
and boxing results. The PRNG's backend ops for the namespace are XLA's own
(``erf_inv``, ``erf``, ``lgamma``, ``while_loop``, ``sort``), so traced
sampling compiles to the same operations JAX emits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tessela_numpy as tnp
import tessela_prng
from numpy.typing import DTypeLike
from tessela_tracer import lax
from tessela_tracer.typing import Array

__all__ = ["Boxed", "box", "namespace", "unbox"]

_BINARY = (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
    "and", "or", "xor", "lshift", "rshift",
)  # fmt: skip
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_UNARY = ("neg", "pos", "abs", "invert")


class Boxed:
    """A Tessela array or tracer seen through the array API standard.

    Example:
        >>> import tessela_numpy as tnp
        >>> b = Boxed(tnp.arange(3))
        >>> (b + 1).value.tolist()
        [1, 2, 3]
    """

    __slots__ = ("value",)
    __array_ufunc__ = None
    __hash__ = None  # type: ignore[assignment]

    value: Array | np.ndarray[Any, Any]

    def __init__(self, value: Array | np.ndarray[Any, Any], /) -> None:
        self.value = value

    def __array_namespace__(self, /, *, api_version: str | None = None) -> _Namespace:
        return namespace

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.value.dtype

    @property
    def ndim(self) -> int:
        return int(self.value.ndim)

    @property
    def size(self) -> int:
        return int(self.value.size)

    @property
    def T(self) -> Boxed:
        return Boxed(self.value.T)

    @property
    def mT(self) -> Boxed:
        return Boxed(tnp.swapaxes(self.value, -1, -2))

    def __getitem__(self, index: Any) -> Boxed:
        return Boxed(self.value[unbox(index)])

    def __len__(self) -> int:
        return len(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __array__(
        self, dtype: DTypeLike | None = None, copy: bool | None = None
    ) -> np.ndarray[Any, Any]:
        return np.asarray(self.value, dtype=dtype)

    def __repr__(self) -> str:
        return repr(self.value)


def _binary(name: str) -> Callable[[Boxed, Any], Any]:
    def op(self: Boxed, other: Any) -> Any:
        return box(getattr(self.value, name)(unbox(other)))

    op.__name__ = name
    return op


def _unary(name: str) -> Callable[[Boxed], Any]:
    def op(self: Boxed) -> Any:
        return box(getattr(self.value, name)())

    op.__name__ = name
    return op


for _n in _BINARY:
    setattr(Boxed, f"__{_n}__", _binary(f"__{_n}__"))
    setattr(Boxed, f"__r{_n}__", _binary(f"__r{_n}__"))
for _n in _COMPARE:
    setattr(Boxed, f"__{_n}__", _binary(f"__{_n}__"))
for _n in _UNARY:
    setattr(Boxed, f"__{_n}__", _unary(f"__{_n}__"))


def box(x: Any, /) -> Any:
    """Box Tessela values inside tuples and lists; leave everything else.

    Args:
        x: a value, or a tuple/list of values.

    Returns:
        The same structure with array-like leaves boxed.

    Example:
        >>> import tessela_numpy as tnp
        >>> type(box((tnp.zeros(2), 3))[0]).__name__
        'Boxed'
    """
    if isinstance(x, Boxed):
        return x
    if isinstance(x, tuple):
        return tuple(box(v) for v in x)
    if isinstance(x, list):
        return [box(v) for v in x]
    if hasattr(x, "aval") or isinstance(x, np.ndarray):
        return Boxed(x)
    return x


def unbox(x: Any, /) -> Any:
    """Undo :func:`box` (through tuples, lists and dicts).

    Args:
        x: a value, possibly boxed, or a container of them.

    Returns:
        The same structure with boxes replaced by their values.

    Example:
        >>> unbox([Boxed(1), 2])
        [1, 2]
    """
    if isinstance(x, Boxed):
        return x.value
    if isinstance(x, tuple):
        return tuple(unbox(v) for v in x)
    if isinstance(x, list):
        return [unbox(v) for v in x]
    if isinstance(x, dict):
        return {k: unbox(v) for k, v in x.items()}
    return x


def _boxing(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return box(fn(*unbox(args), **unbox(kwargs)))

    wrapped.__name__ = getattr(fn, "__name__", "op")
    return wrapped


def _as_dtype(kind: Any) -> np.dtype[Any] | None:
    try:
        the_dtype: np.dtype[Any] = np.dtype(kind)
    except TypeError:
        return None
    return the_dtype


def _isdtype(dtype: DTypeLike, kind: Any, /) -> bool:
    """``tessela_numpy.isdtype`` with JAX's answers on the edges where it parts from them.

    JAX checks every kind of a tuple before answering (an unknown name raises
    even after a match), and its kind names leave out timedelta64, which
    NumPy's type hierarchy files under ``signedinteger``: only an equal dtype
    matches it.
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    hits = [tnp.isdtype(dtype, (one,)) for one in kinds]
    the_dtype = np.dtype(dtype)
    if the_dtype.kind == "m":
        return any(_as_dtype(one) == the_dtype for one in kinds)
    return any(hits)


_OVERRIDES: dict[str, Any] = {
    "concat": tnp.concatenate,
    "bitwise_left_shift": tnp.left_shift,
    "bitwise_right_shift": tnp.right_shift,
    "bitwise_invert": tnp.invert,
    "cumulative_sum": tnp.cumsum,
    "matrix_transpose": lambda x, /: tnp.swapaxes(x, -1, -2),
}
_DTYPES = {
    name: getattr(np, name)
    for name in (
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
    )
}  # fmt: skip
_DTYPES["bool"] = np.bool_


class _Namespace:
    """``tessela_numpy`` under the array API names, boxing its results."""

    __name__ = "tessela.numpy"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _DTYPES:
            return _DTYPES[name]
        if name == "isdtype":
            return _isdtype
        if name == "linalg":
            return _linalg
        target = _OVERRIDES.get(name)
        if target is None:
            target = getattr(tnp, name, None)
        if target is None:
            raise AttributeError(f"tessela.numpy has no array API function {name!r}")
        return _boxing(target) if callable(target) and not isinstance(target, type) else target


namespace = _Namespace()


class _LinalgNamespace:
    """``tessela_numpy.linalg`` under the array API names (``qr``, ``cholesky``, ``eigh``, ...)."""

    __name__ = "tessela.numpy.linalg"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        target = getattr(tnp.linalg, name, None)
        if target is None:
            raise AttributeError(f"tessela.numpy.linalg has no array API function {name!r}")
        return _boxing(target)


_linalg: Any = _LinalgNamespace()


def _while_loop(
    cond: Callable[[tuple[Any, ...]], Any],
    body: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    init: tuple[Any, ...],
) -> tuple[Any, ...]:
    def cond_fun(state: Any) -> Any:
        return unbox(cond(box(tuple(state))))

    def body_fun(state: Any) -> Any:
        return tuple(unbox(body(box(tuple(state)))))

    return tuple(box(tuple(lax.while_loop(cond_fun, body_fun, tuple(unbox(init))))))


def _sort_key_val(keys: Any, values: Any) -> Any:
    _, out = lax.sort((unbox(keys), unbox(values)), dimension=-1, num_keys=1)
    return box(out)


tessela_prng.register_backend_ops(
    namespace,
    erf_inv=_boxing(lax.erf_inv),
    erf=_boxing(lax.erf),
    lgamma=_boxing(lax.lgamma),
    while_loop=_while_loop,
    sort_key_val=_sort_key_val,
)
