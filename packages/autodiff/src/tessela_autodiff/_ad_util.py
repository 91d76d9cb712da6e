"""Values shared by every rule: symbolic zeros, undefined primals, and tangent arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias, cast, final

import numpy as np
from tessela_tracer import EvalTrace, ShapedArray, get_current_trace, lax
from tessela_tracer.dtypes import float0, issubdtype
from tessela_tracer.extend import get_aval_of, tangent_aval
from tessela_tracer.primitives import add_p, broadcast_in_dim_p, convert_element_type_p
from tessela_tracer.typing import Array, ArrayLike, unchanged

__all__ = [
    "Tangent",
    "UndefinedPrimal",
    "Zero",
    "add_tangents",
    "broadcast_to",
    "convert_like",
    "instantiate",
    "is_differentiable",
    "is_undefined",
    "unbroadcast",
    "zeros_like_aval",
]


def is_differentiable(aval: ShapedArray, /) -> bool:
    """Whether values of this type carry tangents (floating or complex dtypes)."""
    return bool(issubdtype(aval.dtype, np.inexact))


@final
class Zero:
    """A symbolic zero tangent (or cotangent) of a given abstract value.

    Rules receive ``Zero`` for operands whose tangent is known to vanish and
    may return it; it is instantiated as an array only when one is needed.
    """

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def from_primal(x: object, /) -> Zero:
        """The zero tangent of a primal value."""
        return Zero(tangent_aval(get_aval_of(x)))

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


Tangent: TypeAlias = ArrayLike | Zero
"""A tangent or cotangent: an array, or a symbolic :class:`Zero`."""


class UndefinedPrimal:
    """Marks a linear operand of an equation being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x: object, /) -> bool:
    """Whether ``x`` is an :class:`UndefinedPrimal` (a linear operand)."""
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval: ShapedArray, /) -> ArrayLike:
    """An array of zeros of ``aval``'s shape and dtype (``float0`` gives a NumPy array)."""
    if aval.dtype == float0:
        return np.zeros(aval.shape, float0)
    zero = np.zeros((), aval.dtype)
    if not aval.shape:
        if type(get_current_trace()) is not EvalTrace:
            return zero  # a literal in the jaxpr being built
        # Eagerly, an array of the backend, as every other gradient is.
        return cast(
            Array,
            convert_element_type_p.bind(
                zero, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=None
            ),
        )
    return cast(
        Array,
        broadcast_in_dim_p.bind(
            zero, shape=tuple(aval.shape), broadcast_dimensions=(), sharding=None
        ),
    )


def instantiate(t: Tangent, /) -> ArrayLike:
    """Turn a symbolic :class:`Zero` into an array of zeros; pass others through."""
    if type(t) is Zero:
        return zeros_like_aval(t.aval)
    return t


def add_tangents(x: Tangent, y: Tangent, /) -> Tangent:
    """Sum two tangents, keeping symbolic zeros symbolic."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return cast(Array, add_p.bind(x, y))


def convert_like(x: ArrayLike, aval: ShapedArray, /) -> Array:
    """Cast ``x`` to ``aval``'s dtype (weak type included) when it differs."""
    xa = get_aval_of(x)
    if xa.dtype == aval.dtype and xa.weak_type == aval.weak_type:
        return unchanged(x)
    return cast(
        Array,
        convert_element_type_p.bind(
            x, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=None
        ),
    )


def unbroadcast(aval: ShapedArray, x: ArrayLike, /) -> Array:
    """Sum ``x`` down to ``aval``'s shape (undo the implicit broadcast of n-ary ops)."""
    xa = get_aval_of(x)
    if tuple(xa.shape) == tuple(aval.shape):
        return unchanged(x)
    if not aval.shape:
        return cast(Array, lax.reduce_sum(x, tuple(range(xa.ndim))))
    axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, xa.shape, strict=True)) if a != b)
    summed = lax.reduce_sum(x, axes)
    return lax.reshape(summed, tuple(aval.shape))


def broadcast_to(x: ArrayLike, shape: Sequence[int], /) -> Array:
    """Broadcast a scalar (or same-shape array) ``x`` to ``shape``."""
    xa = get_aval_of(x)
    if tuple(xa.shape) == tuple(shape):
        return unchanged(x)
    if not xa.shape:
        return cast(
            Array,
            broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=(), sharding=None),
        )
    return cast(
        Array,
        broadcast_in_dim_p.bind(
            x, shape=tuple(shape), broadcast_dimensions=tuple(range(len(shape))), sharding=None
        ),
    )
