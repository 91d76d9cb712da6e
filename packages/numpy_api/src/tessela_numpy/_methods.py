"""The operator and method table given to the tracer's shared array mixin.

Importing :mod:`tessela_numpy` calls :func:`install` once, so tracers (and
concrete arrays) get ``+``, ``x[i]``, ``x.at[i].set(v)``, ``x.sum()``,
``x.reshape(...)``, ``x.T`` and the rest from the functions of this package.
The package also declares :func:`method_table` as the entry point
``numpy`` of the group ``tessela_tracer.array_methods``: the tracer loads it
the first time an operator finds its entry missing, so operators work as soon
as tessela-numpy is installed, even if nothing imported it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from numpy.typing import DTypeLike
from tessela_tracer import register_array_methods
from tessela_tracer.typing import Array, ArrayLike, unchanged

from . import _arith as ar
from . import _array_methods as am
from . import _moments as mom
from . import _reductions as red
from . import _shape_ops as shp
from . import _tiling as til
from . import _ufuncs as uf
from ._arrays import convert, dtype_arg, is_arraylike, shape_of
from ._at import IndexUpdateHelper, setitem_error
from ._creation import place_result
from ._eager import CONCRETE_TYPES
from ._indexing import getitem
from ._products import dot, matmul
from ._where import clip

__all__ = ["astype", "install", "method_table"]


def astype(
    x: ArrayLike, dtype: DTypeLike, /, *, copy: bool = False, device: object | None = None
) -> Array:
    """Convert to ``dtype`` (never weakly typed).

    Args:
      x: an array.
      dtype: the target dtype.
      copy: accepted for NumPy compatibility (arrays are immutable).
      device: the device (or sharding) to place the result on; ``None`` keeps
        the placement.

    Returns:
      The converted array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: astype(x, "int32"), ShapeDtypeStruct((3,), "float32")).dtype
    dtype('int32')
    """
    del copy
    out = convert(x, dtype_arg(dtype))  # type: ignore[arg-type]
    return unchanged(out if device is None else place_result(out, device))


def _defer(op: Callable[[Any, Any], Any], *, swap: bool = False) -> Callable[[Any, Any], Any]:
    def method(self: Array, other: object) -> Array:
        if type(other) not in CONCRETE_TYPES and not is_arraylike(other):
            return unchanged(NotImplemented)
        return unchanged(op(other, self) if swap else op(self, other))

    return method


def _iter(x: Any) -> Iterator[Any]:
    shape = shape_of(x)
    if not shape:
        raise TypeError("iteration over a 0-d array")
    return (getitem(x, i) for i in range(shape[0]))


def _shape_args(args: tuple[Any, ...]) -> Any:
    return args[0] if len(args) == 1 and not isinstance(args[0], int) else args


def _reshape(x: Any, *args: Any, order: str = "C", **kw: Any) -> Any:
    shape = kw.pop("shape", None)
    if kw:
        raise TypeError(f"reshape got unexpected keyword arguments {sorted(kw)}")
    return shp.reshape(x, _shape_args(args) if shape is None else shape, order=order)


def _transpose(x: Any, *args: Any) -> Any:
    if not args or (len(args) == 1 and args[0] is None):
        return shp.transpose(x)
    return shp.transpose(x, _shape_args(args))


def _mT(x: Any) -> Any:
    nd = len(shape_of(x))
    if nd < 2:
        raise ValueError(f"x.mT requires an array of rank >= 2, got rank {nd}")
    return shp.swapaxes(x, -1, -2)


def _no_flat(x: Any) -> Any:
    return shp.ravel(x)


def method_table() -> dict[str, Callable[..., Any]]:
    """The mapping given to ``register_array_methods``.

    Returns:
      Method names (dunders, properties, methods) to functions taking the array first.

    >>> sorted(method_table())[:3]
    ['T', '__abs__', '__add__']
    """
    binary: dict[str, Callable[[Any, Any], Any]] = {
        "add": uf.add, "sub": uf.subtract, "mul": uf.multiply, "truediv": uf.true_divide,
        "floordiv": uf.floor_divide, "mod": uf.remainder, "divmod": ar.divmod,
        "pow": ar.power, "matmul": matmul, "and": uf.bitwise_and, "or": uf.bitwise_or,
        "xor": uf.bitwise_xor, "lshift": uf.left_shift, "rshift": uf.right_shift,
    }  # fmt: skip
    table: dict[str, Callable[..., Any]] = {}
    for name, fn in binary.items():
        table[f"__{name}__"] = _defer(fn)
        table[f"__r{name}__"] = _defer(fn, swap=True)
    for name, fn in {
        "eq": uf.equal,
        "ne": uf.not_equal,
        "lt": uf.less,
        "le": uf.less_equal,
        "gt": uf.greater,
        "ge": uf.greater_equal,
    }.items():
        table[f"__{name}__"] = _defer(fn)
    table.update({
        "__neg__": uf.negative, "__pos__": uf.positive, "__abs__": uf.absolute,
        "__invert__": uf.invert, "__round__": lambda x, nd=None: ar.round(x, nd or 0),
        "__getitem__": getitem, "__setitem__": setitem_error, "__iter__": _iter,
        "__reversed__": lambda x: iter(list(_iter(x))[::-1]),
        "T": lambda x: shp.transpose(x), "mT": _mT, "at": IndexUpdateHelper,
        "real": uf.real, "imag": uf.imag, "flat": _no_flat,
        "all": red.all, "any": red.any, "argmax": red.argmax, "argmin": red.argmin,
        "astype": astype, "clip": clip, "conj": uf.conj, "conjugate": uf.conjugate,
        "copy": lambda x: x, "cumprod": red.cumprod, "cumsum": red.cumsum, "dot": dot,
        "flatten": lambda x, order="C": shp.ravel(x, order), "max": red.max,
        "mean": mom.mean, "min": red.min, "prod": red.prod, "ravel": shp.ravel,
        "repeat": til.repeat, "reshape": _reshape, "round": ar.round,
        "squeeze": shp.squeeze, "std": mom.std, "sum": red.sum, "swapaxes": shp.swapaxes,
        "transpose": _transpose, "var": mom.var,
    })  # fmt: skip
    table.update(am.METHODS)
    return table


def install() -> None:
    """Register :func:`method_table` with the tracer's array mixin.

    Returns:
      None.

    >>> install()
    """
    register_array_methods(method_table())
