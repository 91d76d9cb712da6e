"""The array type shared by tracers and concrete arrays.

:class:`Array` (also named ``ArrayOps``, its name as the operator mixin) is
the one abstract array type: every tracer and every concrete array of a
backend (``tessela_lowering``'s device array) derives from it, so
``isinstance(x, Array)`` holds inside and outside transformations, as
``isinstance(x, jax.Array)`` does in JAX; NumPy arrays and Python scalars are
not instances. It gives every operator dunder, indexing, ``.at``, ``.T`` and the
array methods (``sum``, ``reshape``, ``astype``, ...). ``shape``/``dtype``/...
come from the instance's ``.aval``; ``item()``/``tolist()`` are defined here
(a traced value raises :class:`ConcretizationTypeError`). Everything else
forwards to one method table that :func:`register_array_methods` fills, and
that call puts each function on the class itself, so a filled entry costs
nothing more than a plain method.

Where the table comes from: a package declares a method table in the
entry-point group ``tessela_tracer.array_methods`` (tessela-numpy declares
``numpy = "tessela_numpy._methods:method_table"``; the object is a mapping or a
function returning one). The first time an operator or method finds its entry
missing, the mixin loads that group once per process (in a fresh context, so
no trace is active while the providers import) and registers what it finds,
filling only the names nobody registered explicitly. Operators therefore work
as soon as tessela-numpy is installed, whatever was imported.
:func:`load_array_method_entry_points` with ``reload=True`` scans the group
again (after installing a provider at run time). When nothing provides a
name, the error says to install tessela-numpy or to register it with
:func:`register_array_methods`.
"""

from __future__ import annotations

import contextvars
import importlib
import threading
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._errors import ConcretizationTypeError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from tessela_tracer._array_decls import ArrayMethods

    # For the type checker the operators and methods have their types
    # (``x + y`` is an ``Array``); at run time ``Array`` derives from ``object``.
    _ArrayBase = ArrayMethods["Array"]
else:
    _ArrayBase = object

__all__ = [
    "ARRAY_METHOD_NAMES",
    "ENTRY_POINT_GROUP",
    "Array",
    "ArrayOps",
    "load_array_method_entry_points",
    "register_array_methods",
    "registered_array_methods",
]

ENTRY_POINT_GROUP = "tessela_tracer.array_methods"

_METHODS: dict[str, Callable[..., Any]] = {}
# "unloaded" until the entry-point group has been scanned; "loading" while a
# scan runs (a lookup made by a provider's own import then fails fast instead
# of recursing); "loaded" after.
_state = "unloaded"
_lock = threading.RLock()
_load_failures: list[str] = []

_BINARY = (
    "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
    "rfloordiv", "mod", "rmod", "divmod", "rdivmod", "pow", "rpow", "matmul", "rmatmul",
    "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rlshift", "rshift", "rrshift",
    "eq", "ne", "lt", "le", "gt", "ge",
)  # fmt: skip
_UNARY = ("neg", "pos", "abs", "invert", "round", "iter", "reversed", "complex")
_PROPERTY_NAMES = ("T", "mT", "at", "real", "imag", "flat")
_METHOD_NAMES = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap", "choose",
    "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal",
    "dot", "flatten", "item", "max", "mean", "min", "nonzero", "prod", "ptp", "ravel",
    "repeat", "reshape", "round", "searchsorted", "sort", "squeeze", "std", "sum",
    "swapaxes", "take", "to_device", "tolist", "trace", "transpose", "var", "view",
)  # fmt: skip

ARRAY_METHOD_NAMES: frozenset[str] = frozenset(
    [f"__{n}__" for n in _BINARY + _UNARY]
    + ["__getitem__", "__setitem__", "__contains__", "__array_namespace__"]
    + list(_PROPERTY_NAMES)
    + list(_METHOD_NAMES)
)


def _missing(name: str, obj: Any) -> TypeError:
    msg = (
        f"{name!r} on a {type(obj).__name__} needs the NumPy layer, and no installed "
        "package provides it: install tessela-numpy (`pip install tessela-numpy`), which "
        f"declares its method table in the entry-point group {ENTRY_POINT_GROUP!r}; "
        "a plugin provides a method with tessela_tracer.register_array_methods"
        f"({{{name!r}: fn}})."
    )
    if _load_failures:
        msg += " Entry points that failed to load: " + "; ".join(_load_failures)
    return TypeError(msg)


def _install(mapping: Mapping[str, Callable[..., Any]]) -> None:
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
            # Only the summary line: the rest of a provider's docstring (its
            # doctests) would be read as this module's.
            summary = (fn.__doc__ or "").strip().split("\n", 1)[0]
            setattr(Array, name, property(fn, doc=summary or None))
        elif isinstance(fn, types.FunctionType):
            setattr(Array, name, fn)
        else:
            setattr(Array, name, _forward(name))


def register_array_methods(mapping: Mapping[str, Callable[..., Any]], /) -> None:
    """Fill the method table behind the operators of tracers and arrays.

    An explicit registration replaces what was there, and a later load of the
    ``tessela_tracer.array_methods`` entry points never overrides it.

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
        >>> register_array_methods({"frobnicate": len})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: register_array_methods got names the mixin does not forward: ['frobnicate']; ...
    """
    _install(mapping)


def registered_array_methods() -> Mapping[str, Callable[..., Any]]:
    """Return a copy of the current method table.

    Returns:
      A mapping from method name to function.

    Example:
        >>> "frobnicate" in registered_array_methods()
        False
    """
    return dict(_METHODS)


def _entry_points() -> list[EntryPoint]:
    # importlib.metadata is imported by the first scan, not with the tracer:
    # it takes a tenth of `import tessela`, and most processes never scan.
    metadata: Any = importlib.import_module("importlib.metadata")
    found: list[EntryPoint] = sorted(
        metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name
    )
    return found


def _load_one(ep: EntryPoint) -> None:
    obj = ep.load()
    table = obj if isinstance(obj, Mapping) else obj()
    if not isinstance(table, Mapping):
        raise TypeError(f"expected a mapping of method names, got {type(table).__name__}")
    fresh = {name: fn for name, fn in table.items() if name not in _METHODS}
    _install(fresh)


def _scan() -> tuple[str, ...]:
    loaded: list[str] = []
    for ep in _entry_points():
        try:
            _load_one(ep)
        except Exception as exc:  # a broken provider must not break the others
            failure = f"{ep.name} = {ep.value} ({type(exc).__name__}: {exc})"
            _load_failures.append(failure)
            warnings.warn(
                f"tessela_tracer: the {ENTRY_POINT_GROUP!r} entry point {failure} "
                "could not be loaded",
                RuntimeWarning,
                stacklevel=4,
            )
        else:
            loaded.append(ep.name)
    return tuple(loaded)


def load_array_method_entry_points(*, reload: bool = False) -> tuple[str, ...]:
    """Register the method tables declared in the ``tessela_tracer.array_methods`` group.

    Operators call this themselves the first time they find their entry
    missing; the group is scanned at most once per process unless ``reload``
    asks again. Names registered before (explicitly or by an earlier entry
    point, in name order) are kept. Providers import in a fresh
    :mod:`contextvars` context, so no trace is active while they do.

    Args:
      reload: scan the group again even if it was scanned already (after a
        provider was installed while the process runs).

    Returns:
      The names of the entry points loaded by this call (empty when the group
      was already scanned and ``reload`` is false).

    Example:
        >>> load_array_method_entry_points()  # doctest: +ELLIPSIS
        (...)
        >>> load_array_method_entry_points()
        ()
    """
    global _state
    if _state == "loaded" and not reload:
        return ()
    with _lock:
        if _state == "loading" or (_state == "loaded" and not reload):
            return ()
        _state = "loading"
        _load_failures.clear()
        try:
            return contextvars.Context().run(_scan)
        finally:
            _state = "loaded"


def _lookup(name: str) -> Callable[..., Any] | None:
    fn = _METHODS.get(name)
    if fn is None and _state != "loaded":
        load_array_method_entry_points()
        fn = _METHODS.get(name)
    return fn


def _forward(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        fn = _lookup(name)
        if fn is None:
            raise _missing(name, self)
        return fn(self, *args, **kwargs)

    method.__name__ = name
    return method


def _forward_property(name: str) -> property:
    def getter(self: Any) -> Any:
        fn = _lookup(name)
        if fn is None:
            raise _missing(name, self)
        return fn(self)

    getter.__name__ = name
    return property(getter)


def _host_value(x: Any, method: str, *, always_raise: bool) -> Any:
    to_concrete = getattr(x, "to_concrete_value", None)
    if to_concrete is None:  # a concrete array without its own method
        return np.asarray(x)
    value = None if always_raise else to_concrete()
    if value is None:
        raise ConcretizationTypeError(
            x,
            f"The {method}() method was called on a traced array: it needs a concrete "
            f"value, which the array does not have while the function is transformed. "
            f"Return the array from the transformed function and call .{method}() on "
            f"the result, or mark the argument static (static_argnums / static_argnames).",
        )
    return np.asarray(value)


class Array(_ArrayBase):
    """The abstract array type: base of every tracer and every concrete array.

    ``tessela.Array`` (``jax.Array`` under the alias) is this class: an
    instance check against it is true for a backend's concrete arrays and for
    the tracers that stand for arrays inside ``jit``, ``grad``, ``vmap`` and
    every other transformation, and false for NumPy arrays and Python scalars.
    It is not instantiated itself; it also serves as the operator mixin
    (``ArrayOps``).

    Subclasses provide ``aval`` (a ShapedArray); ``shape``, ``dtype``,
    ``ndim``, ``size``, ``weak_type``, ``itemsize``, ``nbytes`` and ``len()``
    derive from it. Operators and methods are the functions given to
    :func:`register_array_methods`; before any are, they forward to its table,
    loading the declared entry points the first time an entry is missing.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> seen = []
        >>> _ = make_jaxpr(lambda x: seen.append(isinstance(x, Array)) or x)(1.0)
        >>> seen, isinstance(np.ones(2), Array)
        ([True], False)
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

    @property
    def itemsize(self) -> int:
        """The size of one element in bytes."""
        return int(_dtypes.dtype(self.aval.dtype).itemsize)  # a key: its two words

    @property
    def nbytes(self) -> int:
        """The number of bytes of all elements: ``size * itemsize``."""
        return int(self.aval.size) * self.itemsize

    def __len__(self) -> int:
        shape = self.aval.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]  # type: ignore[no-any-return]

    def item(self, *args: int) -> bool | int | float | complex:
        """Copy one element to a Python scalar, as ``numpy.ndarray.item`` does.

        A tracer gives its value when its trace knows it and otherwise raises
        :class:`ConcretizationTypeError`, as JAX does.

        Args:
          *args: none for a one-element array, else a flat index or one index
            per axis.

        Returns:
          A Python ``bool``, ``int``, ``float`` or ``complex``.

        Raises:
          ConcretizationTypeError: on a traced value.

        Example:
            >>> from tessela_tracer import make_jaxpr
            >>> from tessela_tracer.errors import ConcretizationTypeError
            >>> try:
            ...     make_jaxpr(lambda x: x.item())(1.0)
            ... except ConcretizationTypeError as e:
            ...     print(str(e).splitlines()[1].split(":")[0])
            The item() method was called on a traced array
        """
        value: bool | int | float | complex = _host_value(self, "item", always_raise=False).item(
            *args
        )
        return value

    def tolist(self) -> Any:
        """The value as nested Python lists of Python scalars.

        A tracer always raises :class:`ConcretizationTypeError`, as JAX's do.

        Returns:
          A Python scalar for a 0-d array, else nested lists.

        Raises:
          ConcretizationTypeError: on a traced value.

        Example:
            >>> from tessela_tracer import make_jaxpr
            >>> from tessela_tracer.errors import ConcretizationTypeError
            >>> try:
            ...     make_jaxpr(lambda x: x.tolist())(1.0)
            ... except ConcretizationTypeError as e:
            ...     print(type(e).__name__)
            ConcretizationTypeError
        """
        return _host_value(self, "tolist", always_raise=True).tolist()

    def __iter__(self) -> Iterator[Array]:
        fn = _lookup("__iter__")
        if fn is not None:
            return fn(self)  # type: ignore[no-any-return]
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        raise _missing("__iter__", self)

    def __setitem__(self, index: Any, value: Any) -> None:
        fn = _lookup("__setitem__")
        if fn is not None:
            fn(self, index, value)
            return
        raise TypeError(
            f"{type(self).__name__!r} object does not support item assignment. "
            "Arrays are immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` "
            "or another .at[] method."
        )

    __hash__ = None  # type: ignore[assignment]

    if not TYPE_CHECKING:  # the typed declarations are ArrayMethods'
        __getitem__ = _forward("__getitem__")
        __contains__ = _forward("__contains__")
        __array_namespace__ = _forward("__array_namespace__")
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
        __complex__ = _forward("__complex__")

        T = _forward_property("T")
        mT = _forward_property("mT")
        at = _forward_property("at")
        real = _forward_property("real")
        imag = _forward_property("imag")
        flat = _forward_property("flat")


# The named methods get forwarders on the class too (hidden from the type
# checker, which sees each of them declared in ArrayMethods), where a
# ``__getattr__`` would look them up: a class defining ``__getattr__`` makes
# every attribute load on its instances (``x._buf``, ``x.aval``) take
# CPython's slow path, about seven times a plain slot's.
for _name in _METHOD_NAMES:
    if _name not in Array.__dict__:
        setattr(Array, _name, _forward(_name))
del _name


ArrayOps = Array
"""The operator mixin's name: the same class as :class:`Array`."""
