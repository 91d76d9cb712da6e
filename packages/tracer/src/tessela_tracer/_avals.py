"""Abstract values: ``ShapedArray``, ``ShapeDtypeStruct`` and ``get_aval``."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, SupportsIndex, TypeAlias

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._abstract_sharding import NamedSharding, PartitionSpec, unsharded
from tessela_tracer._config import config
from tessela_tracer._dtypes import DTypeLike
from tessela_tracer._key_dtypes import ExtendedDType

__all__ = [
    "AbstractToken",
    "OutSharding",
    "ShapeDtypeStruct",
    "ShapedArray",
    "Token",
    "abstract_token",
    "canonicalize_shape",
    "get_aval",
    "register_aval_handler",
    "tangent_aval",
]

OutSharding: TypeAlias = NamedSharding | PartitionSpec | None
"""An ``out_sharding`` argument: a sharding, a partition spec, or None."""


class ShapedArray:
    """The abstract value of an array: a shape, a dtype and a weak-type bit.

    Instances are immutable and compare by value; the ``str`` form is JAX's
    (``float32[3,4]``) and ``str_short(short_dtypes=True)`` gives the jaxpr
    form (``f32[3,4]``).

    Example:
        >>> import numpy as np
        >>> ShapedArray((3, 4), np.float32)
        ShapedArray(float32[3,4])
    """

    __slots__ = ("_hash", "dtype", "shape", "weak_type")
    _hash: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    weak_type: bool

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False) -> None:
        object.__setattr__(self, "shape", tuple(shape))
        # Extended dtypes (typed PRNG keys) are kept as they are.
        object.__setattr__(
            self, "dtype", dtype if isinstance(dtype, ExtendedDType) else np.dtype(dtype)
        )
        object.__setattr__(self, "weak_type", bool(weak_type))
        object.__setattr__(self, "_hash", hash((self.shape, self.dtype, self.weak_type)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ShapedArray is immutable; use .update(...) for a changed copy")

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def sharding(self) -> NamedSharding:
        """How the array is laid out: unsplit, over the empty abstract mesh (as JAX's ``typeof``).

        Example:
            >>> ShapedArray((3, 4), np.float32).sharding
            NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))
        """
        return unsharded(len(self.shape))

    def update(
        self,
        shape: Sequence[int] | None = None,
        dtype: DTypeLike | None = None,
        weak_type: bool | None = None,
    ) -> ShapedArray:
        """Return a copy with some fields replaced.

        Args:
          shape: new shape, or None to keep.
          dtype: new dtype, or None to keep.
          weak_type: new weak-type bit, or None to keep.

        Returns:
          A new ShapedArray.
        """
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self) -> int:
        return self._hash

    def strip_weak_type(self) -> ShapedArray:
        """Return the same aval without the weak-type bit."""
        return self if not self.weak_type else ShapedArray(self.shape, self.dtype, False)

    def str_short(self, short_dtypes: bool = False) -> str:
        """``float32[3,4]``, or ``f32[3,4]`` with ``short_dtypes``."""
        name = _dtypes.short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        if self.dtype == _dtypes.float0:
            name = "float0"
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __str__(self) -> str:
        return self.str_short()

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ShapedArray, (self.shape, self.dtype, self.weak_type))


class AbstractToken(ShapedArray):
    """The abstract value of a token (JAX's ``AbstractToken``), printed ``Tok`` in jaxprs.

    A token carries no data: it only orders side effects. Its value is held
    in an empty ``bool[0]`` buffer (as JAX's ``Token`` holds one), which is
    why this class derives from :class:`ShapedArray` with that shape; it
    equals only another ``AbstractToken``.

    Example:
        >>> abstract_token, abstract_token.str_short(short_dtypes=True)
        (AbstractToken(), 'Tok')
        >>> abstract_token == ShapedArray((0,), bool)
        False
    """

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((0,), np.bool_, False)

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractToken

    def __hash__(self) -> int:
        return hash(AbstractToken)

    def str_short(self, short_dtypes: bool = False) -> str:
        """``Tok``, as JAX prints a token."""
        return "Tok"

    def __repr__(self) -> str:
        return "AbstractToken()"

    def __reduce__(self) -> tuple[Any, ...]:
        return (AbstractToken, ())


abstract_token = AbstractToken()


class Token:
    """A concrete token: what ``lax.create_token()`` returns outside ``jit``.

    It holds no data; as an argument of a jitted function it travels as an
    empty ``bool[0]`` buffer.

    Example:
        >>> get_aval(Token())
        AbstractToken()
    """

    __slots__ = ()

    @property
    def aval(self) -> AbstractToken:
        """Its abstract value, :data:`abstract_token`."""
        return abstract_token

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.zeros((0,), np.bool_)

    def block_until_ready(self) -> Token:
        """Return the token itself (it has nothing to wait for)."""
        return self

    def __repr__(self) -> str:
        return "Token()"


class ShapeDtypeStruct:
    """A shape and dtype standing for an array, for ``eval_shape`` and friends.

    Example:
        >>> import numpy as np
        >>> ShapeDtypeStruct((2,), np.int32)
        ShapeDtypeStruct(shape=(2,), dtype=int32)
    """

    __slots__ = ("dtype", "shape", "weak_type")

    def __init__(self, shape: Sequence[int], dtype: Any, *, weak_type: bool = False) -> None:
        self.shape = tuple(operator.index(d) for d in shape)
        self.dtype = dtype if isinstance(dtype, ExtendedDType) else np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == (
            other.shape,
            other.dtype,
            other.weak_type,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


_HANDLERS: dict[type, Callable[[Any], ShapedArray]] = {}


def register_aval_handler(cls: type, handler: Callable[[Any], ShapedArray], /) -> None:
    """Teach :func:`get_aval` the abstract value of instances of ``cls``.

    Args:
      cls: the exact type.
      handler: maps an instance to its ShapedArray.

    Returns:
      None.

    Example:
        >>> register_aval_handler(range, lambda r: ShapedArray((len(r),), "int32"))
        >>> get_aval(range(3))
        ShapedArray(int32[3])
    """
    _HANDLERS[cls] = handler


def _scalar_aval(dt: str) -> Callable[[Any], ShapedArray]:
    cache: dict[bool, ShapedArray] = {}

    def handler(x: Any) -> ShapedArray:
        x64 = config.x64_enabled
        aval = cache.get(x64)
        if aval is None:
            weak = dt != "bool"
            aval = cache[x64] = ShapedArray((), _dtypes.canonicalize_dtype(dt), weak)
        return aval

    return handler


def _int_aval(x: int) -> ShapedArray:
    aval = _scalar_aval("int64")(x)
    info = np.iinfo(aval.dtype)
    if not info.min <= x <= info.max:
        raise OverflowError(
            f"Python int {x} too large to convert to {aval.dtype.name}: a Python int "
            f"operand is weakly typed, a value of the default integer type "
            f"({'int32; int64 with' if aval.dtype.itemsize == 4 else 'int64 with'} "
            "jax_enable_x64) whatever the other operands' dtype. Pass it as a Python "
            "float, or as a NumPy scalar or array of the dtype it should have"
        )
    return aval


def _np_aval(x: Any) -> ShapedArray:
    return ShapedArray(x.shape, _dtypes.canonicalize_dtype(x.dtype), False)


register_aval_handler(bool, _scalar_aval("bool"))
register_aval_handler(int, _int_aval)
register_aval_handler(float, _scalar_aval("float64"))
register_aval_handler(complex, _scalar_aval("complex128"))
register_aval_handler(np.ndarray, _np_aval)
register_aval_handler(Token, lambda t: abstract_token)
for _t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
):  # fmt: skip
    register_aval_handler(_t, _np_aval)
for _dt in (_dtypes.bfloat16, *_dtypes._NARROW_FLOATS, *_dtypes._NARROW_INTS):
    register_aval_handler(_dt.type, _np_aval)


def get_aval(x: object, /) -> ShapedArray:
    """Return the abstract value of an array-like.

    Args:
      x: a NumPy array or scalar, a Python scalar (weakly typed), a tracer, a
        ShapeDtypeStruct, or any object exposing ``.aval``.

    Returns:
      Its ShapedArray, with dtype canonicalized under the x64 setting.

    Raises:
      TypeError: for values that are not arrays, naming the value's type.

    Example:
        >>> get_aval(1.0)
        ShapedArray(float32[], weak_type=True)
    """
    handler = _HANDLERS.get(type(x))
    if handler is not None:
        return handler(x)
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, _dtypes.canonicalize_dtype(x.dtype), x.weak_type)
    if isinstance(x, np.generic):
        return _np_aval(x)
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")


def canonicalize_shape(
    shape: SupportsIndex | Sequence[SupportsIndex], context: str = ""
) -> tuple[int, ...]:
    """Check that ``shape`` is a sequence of concrete non-negative integers.

    Args:
      shape: an int or a sequence of ints.
      context: extra text appended to the error message.

    Returns:
      The shape as a tuple of Python ints.

    Example:
        >>> canonicalize_shape([2, np.int64(3)])
        (2, 3)
    """
    # Checked at run time: a caller's dimension may be anything (a tracer, None).
    dims: Sequence[Any] = shape if isinstance(shape, (tuple, list)) else (shape,)
    try:
        return tuple(operator.index(d) for d in dims)
    except TypeError:
        pass
    msg = f"Shapes must be 1D sequences of concrete values of integer type, got {tuple(dims)}."
    if any(hasattr(d, "_trace") for d in dims):
        msg += "\nIf using `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions."
    raise TypeError(msg + context)


def tangent_aval(aval: ShapedArray, /) -> ShapedArray:
    """The type of the tangents (and cotangents) of values of type ``aval``.

    Inexact dtypes are their own tangent type, weak type included (as in JAX:
    the tangent of a Python float is a weakly typed float); other dtypes have
    ``float0`` tangents, never weak.

    Args:
      aval: the primal's abstract value.

    Returns:
      The tangent's abstract value.

    Example:
        >>> tangent_aval(ShapedArray((2,), np.float32, weak_type=True))
        ShapedArray(float32[2], weak_type=True)
        >>> tangent_aval(ShapedArray((2,), np.int32)).dtype == _dtypes.float0
        True
    """
    # The tracer's issubdtype: NumPy's does not count bfloat16 and the float8
    # types as inexact.
    if not isinstance(aval.dtype, ExtendedDType) and _dtypes.issubdtype(aval.dtype, np.inexact):
        return aval
    return ShapedArray(tuple(aval.shape), _dtypes.float0, False)
