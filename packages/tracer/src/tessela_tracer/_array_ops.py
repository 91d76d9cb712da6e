"""The operator mixin shared by tracers and concrete arrays.

``ArrayOps`` gives every operator dunder, indexing, ``.at``, ``.T`` and the
array methods (``sum``, ``reshape``, ``astype``, ...). Until the NumPy layer is
imported, each one forwards to an entry of one method table, and says what to
install when the entry is missing; :func:`register_array_methods` fills the
table and puts the functions on the class. ``shape``/``dtype``/... come from
the instance's ``.aval``.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

__all__ = ["ARRAY_METHOD_NAMES", "ArrayOps", "register_array_methods", "registered_array_methods"]

_METHODS: dict[str, Callable[..., Any]] = {}

_BINARY = (
    "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
    "rfloordiv", "mod", "rmod", "divmod", "rdivmod", "pow", "rpow", "matmul", "rmatmul",
    "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rlshift", "rshift", "rrshift",
    "eq", "ne", "lt", "le", "gt", "ge",
)  # fmt: skip
_UNARY = ("neg", "pos", "abs", "invert", "round", "iter", "reversed", "complex")
_PROPERTY_NAMES = ("T", "mT", "at", "real", "imag", "flat")
_METHOD_NAMES = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "choose",
    "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal",
    "dot", "flatten", "item", "max", "mean", "min", "nonzero", "prod", "ptp", "ravel",
    "repeat", "reshape", "round", "searchsorted", "sort", "squeeze", "std", "sum",
    "swapaxes", "take", "tolist", "trace", "transpose", "var", "view",
)  # fmt: skip

ARRAY_METHOD_NAMES: frozenset[str] = frozenset(
    [f"__{n}__" for n in _BINARY + _UNARY]
    + ["__getitem__", "__setitem__", "__contains__"]
    + list(_PROPERTY_NAMES)
    + list(_METHOD_NAMES)
)


def _missing(name: str, obj: Any) -> TypeError:
    return TypeError(
        f"{name!r} on a {type(obj).__name__} needs the NumPy layer: "
        "install tessela-numpy and `import tessela_numpy` (or `import tessela`) first"
    )


def register_array_methods(mapping: Mapping[str, Callable[..., Any]], /) -> None:
    """Fill the method table behind the operators of tracers and arrays.

    Args:
      mapping: names from :data:`ARRAY_METHOD_NAMES` (``"__add__"``,
        ``"__getitem__"``, ``"T"``, ``"sum"``, ...) to functions taking the
        array first. Property names (``T``, ``mT``, ``at``, ``real``,
        ``imag``, ``flat``) map to one-argument functions.

    Returns:
      None.

    Raises:
      ValueError: for a name the mixin does not forward.

    Example:
        >>> register_array_methods({"ptp": lambda x, *a, **k: "ptp called"})
        >>> registered_array_methods()["ptp"](None)
        'ptp called'
    """
    unknown = set(mapping) - ARRAY_METHOD_NAMES
    if unknown:
        raise ValueError(
            f"register_array_methods got names the mixin does not forward: {sorted(unknown)}; "
            "use names from tessela_tracer.ARRAY_METHOD_NAMES"
        )
    _METHODS.update(mapping)
    # Install each Python function on the class itself in place of its
    # forwarder: an operator then costs one Python call fewer (about 0.1 us per
    # ``x + y``). Other callables (classes, partials, ...) would not bind the
    # array as ``self``, so they stay behind the forwarder.
    for name, fn in mapping.items():
        if name in _PROPERTY_NAMES:
            setattr(ArrayOps, name, property(fn))
        elif isinstance(fn, types.FunctionType):
            setattr(ArrayOps, name, fn)
        else:
            setattr(ArrayOps, name, _forward(name))


def registered_array_methods() -> Mapping[str, Callable[..., Any]]:
    """Return a read-only view of the current method table.

    Returns:
      A mapping from method name to function.

    Example:
        >>> "ptp" in registered_array_methods() or True
        True
    """
    return dict(_METHODS)


def _forward(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        fn = _METHODS.get(name)
        if fn is None:
            raise _missing(name, self)
        return fn(self, *args, **kwargs)

    method.__name__ = name
    return method


def _forward_property(name: str) -> property:
    def getter(self: Any) -> Any:
        fn = _METHODS.get(name)
        if fn is None:
            raise _missing(name, self)
        return fn(self)

    getter.__name__ = name
    return property(getter)


class ArrayOps:
    """Mixin with NumPy's operators and methods for anything with an ``.aval``.

    Subclasses provide ``aval`` (a ShapedArray); ``shape``, ``dtype``,
    ``ndim``, ``size``, ``weak_type`` and ``len()`` derive from it.
    Operators and methods are the functions given to
    :func:`register_array_methods`; before any are, they forward to its table.
    """

    __slots__ = ()
    __array_priority__ = 100
    aval: Any

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""
        return self.aval.shape  # type: ignore[no-any-return]

    @property
    def dtype(self) -> np.dtype[Any]:
        """The array's dtype."""
        return self.aval.dtype  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return self.aval.size  # type: ignore[no-any-return]

    @property
    def weak_type(self) -> bool:
        """Whether the array is weakly typed."""
        return self.aval.weak_type  # type: ignore[no-any-return]

    def __len__(self) -> int:
        shape = self.aval.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Any]:
        fn = _METHODS.get("__iter__")
        if fn is not None:
            return fn(self)  # type: ignore[no-any-return]
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        raise _missing("__iter__", self)

    def __setitem__(self, index: Any, value: Any) -> None:
        fn = _METHODS.get("__setitem__")
        if fn is not None:
            fn(self, index, value)
            return
        raise TypeError(
            f"{type(self).__name__!r} object does not support item assignment. "
            "Arrays are immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` "
            "or another .at[] method."
        )

    __getitem__ = _forward("__getitem__")
    __contains__ = _forward("__contains__")
    __add__ = _forward("__add__")
    __radd__ = _forward("__radd__")
    __sub__ = _forward("__sub__")
    __rsub__ = _forward("__rsub__")
    __mul__ = _forward("__mul__")
    __rmul__ = _forward("__rmul__")
    __truediv__ = _forward("__truediv__")
    __rtruediv__ = _forward("__rtruediv__")
    __floordiv__ = _forward("__floordiv__")
    __rfloordiv__ = _forward("__rfloordiv__")
    __mod__ = _forward("__mod__")
    __rmod__ = _forward("__rmod__")
    __divmod__ = _forward("__divmod__")
    __rdivmod__ = _forward("__rdivmod__")
    __pow__ = _forward("__pow__")
    __rpow__ = _forward("__rpow__")
    __matmul__ = _forward("__matmul__")
    __rmatmul__ = _forward("__rmatmul__")
    __and__ = _forward("__and__")
    __rand__ = _forward("__rand__")
    __or__ = _forward("__or__")
    __ror__ = _forward("__ror__")
    __xor__ = _forward("__xor__")
    __rxor__ = _forward("__rxor__")
    __lshift__ = _forward("__lshift__")
    __rlshift__ = _forward("__rlshift__")
    __rshift__ = _forward("__rshift__")
    __rrshift__ = _forward("__rrshift__")
    __eq__ = _forward("__eq__")
    __ne__ = _forward("__ne__")
    __lt__ = _forward("__lt__")
    __le__ = _forward("__le__")
    __gt__ = _forward("__gt__")
    __ge__ = _forward("__ge__")
    __neg__ = _forward("__neg__")
    __pos__ = _forward("__pos__")
    __abs__ = _forward("__abs__")
    __invert__ = _forward("__invert__")
    __round__ = _forward("__round__")
    __reversed__ = _forward("__reversed__")
    __hash__ = None  # type: ignore[assignment]

    T = _forward_property("T")
    mT = _forward_property("mT")
    at = _forward_property("at")
    real = _forward_property("real")
    imag = _forward_property("imag")
    flat = _forward_property("flat")

    def __getattr__(self, name: str) -> Any:
        if name in _METHOD_NAMES:
            fn = _METHODS.get(name)
            if fn is None:
                raise _missing(name, self)
            return functools.partial(fn, self)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
