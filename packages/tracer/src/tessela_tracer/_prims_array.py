"""Array-placing and array-assembling primitives: ``device_put``, ``stack``,
``unstack``, ``split`` and ``tile``, with their lax wrappers.

``device_put`` moves values to a device. Its eager implementation belongs to
the backend (tessela-lowering registers it); :func:`to_concrete_array` is how
array constructors without a backend dependency (``tessela_numpy.array``)
turn host data into the backend's concrete arrays when running eagerly, while
leaving it a constant under every trace.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import (
    EvalTrace,
    Primitive,
    Tracer,
    find_impl,
    get_aval_of,
    get_current_trace,
    register_abstract_eval,
)
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "ArrayCopySemantics", "device_put_p", "split", "split_p", "stack", "stack_p", "tile",
    "tile_p", "to_concrete_array", "unstack", "unstack_p",
]  # fmt: skip


class ArrayCopySemantics(enum.Enum):
    """How ``device_put`` treats the buffer of an operand already on its target."""

    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self) -> str:
        return f"ArrayCopySemantics.{self.name}"

    __str__ = __repr__


device_put_p = Primitive("device_put", multiple_results=True)


def _device_put_rule(
    *avals: ShapedArray,
    devices: Sequence[Any],
    srcs: Sequence[Any],
    copy_semantics: Sequence[ArrayCopySemantics],
) -> list[ShapedArray]:
    if not len(avals) == len(devices) == len(srcs) == len(copy_semantics):
        raise ValueError(
            "device_put takes one device, one source and one copy semantics per operand; "
            f"got {len(avals)} operands, {len(devices)} devices, {len(srcs)} sources and "
            f"{len(copy_semantics)} copy semantics."
        )
    return list(avals)


register_abstract_eval(device_put_p, _device_put_rule)


def device_put(
    *xs: ArrayLike,
    devices: Sequence[object] | None = None,
    copy_semantics: Sequence[ArrayCopySemantics] | None = None,
) -> list[Array]:
    """Bind ``device_put`` on ``xs``: each goes to its device (``None``: the default one).

    Args:
      xs: arrays, NumPy values or Python scalars.
      devices: one device (or ``None``) per operand; all ``None`` by default.
      copy_semantics: one :class:`ArrayCopySemantics` per operand;
        ``REUSE_INPUT`` by default.

    Returns:
      The placed values, one per operand.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(lambda x: device_put(x)[0])(1.0))
        { lambda ; a:f32[]. let
            b:f32[] = device_put[
              copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
              devices=(None,)
              srcs=(None,)
            ] a
          in (b,) }
    """
    n = len(xs)
    devs = (None,) * n if devices is None else tuple(devices)
    sems = (
        (ArrayCopySemantics.REUSE_INPUT,) * n if copy_semantics is None else tuple(copy_semantics)
    )
    out: list[Any] = device_put_p.bind(*xs, devices=devs, srcs=(None,) * n, copy_semantics=sems)
    return out


def to_concrete_array(x: ArrayLike, /) -> ArrayLike:
    """Host data as a concrete array of the eager backend, when running eagerly.

    Outside every trace, with a backend that registered an implementation of
    ``device_put`` (``import tessela_lowering``), ``x`` goes to the default
    device, uncommitted, keeping its weak type. Under a trace, or with no
    backend, ``x`` comes back unchanged: host data stay constants (literals or
    constvars) of the jaxpr being built.

    Args:
      x: a NumPy array or scalar, or a Python scalar.

    Returns:
      The concrete array, or ``x`` itself.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(lambda: to_concrete_array(np.ones(2, np.float32)))())
        { lambda a:f32[2]; . let  in (a,) }
    """
    if isinstance(x, Tracer) or find_impl(device_put_p) is None:
        return x
    if not isinstance(get_current_trace(), EvalTrace):
        return x
    return device_put(x)[0]


def _canonical_axis(axis: int, ndim: int, what: str) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of bounds for an array of rank {ndim - 1}")
    return axis % ndim


def _stack_rule(*avals: ShapedArray, axis: int) -> ShapedArray:
    if not avals:
        raise ValueError("stack requires at least one operand")
    first = avals[0]
    for a in avals[1:]:
        if a.shape != first.shape or a.dtype != first.dtype:
            raise TypeError(
                "stack operands must have the same shape and dtype; got "
                f"{', '.join(x.str_short() for x in avals)}. Broadcast and convert them first."
            )
    if not 0 <= axis <= first.ndim:
        raise ValueError(f"stack: axis {axis} is out of bounds for rank {first.ndim + 1}")
    shape = (*first.shape[:axis], len(avals), *first.shape[axis:])
    return ShapedArray(shape, first.dtype, all(a.weak_type for a in avals))


stack_p = Primitive("stack")
register_abstract_eval(stack_p, _stack_rule)


def _unstack_rule(x: ShapedArray, *, axis: int) -> list[ShapedArray]:
    if not 0 <= axis < x.ndim:
        raise ValueError(f"unstack: axis {axis} is out of bounds for rank {x.ndim}")
    shape = x.shape[:axis] + x.shape[axis + 1 :]
    return [ShapedArray(shape, x.dtype, x.weak_type)] * x.shape[axis]


unstack_p = Primitive("unstack", multiple_results=True)
register_abstract_eval(unstack_p, _unstack_rule)


def _split_rule(x: ShapedArray, *, sizes: Sequence[int], axis: int) -> list[ShapedArray]:
    if not 0 <= axis < x.ndim:
        raise ValueError(f"split: axis {axis} is out of bounds for rank {x.ndim}")
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != x.shape[axis]:
        raise ValueError(
            f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand "
            f"shape {x.shape}"
        )
    return [
        ShapedArray((*x.shape[:axis], int(s), *x.shape[axis + 1 :]), x.dtype, x.weak_type)
        for s in sizes
    ]


split_p = Primitive("split", multiple_results=True)
register_abstract_eval(split_p, _split_rule)


def _tile_rule(x: ShapedArray, *, reps: Sequence[int]) -> ShapedArray:
    if len(reps) != x.ndim:
        raise ValueError(
            f"tile: len(reps) must equal the operand rank, got reps={tuple(reps)} for shape "
            f"{x.shape}; reshape the operand (or pad reps with 1s) first."
        )
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be nonnegative, got {tuple(reps)}")
    shape = tuple(d * int(r) for d, r in zip(x.shape, reps, strict=True))
    return ShapedArray(shape, x.dtype, x.weak_type)


tile_p = Primitive("tile")
register_abstract_eval(tile_p, _tile_rule)


def stack(operands: Sequence[ArrayLike], axis: int = 0) -> Array:
    """Stack arrays of one shape and dtype along a new axis.

    Args:
      operands: arrays (or scalars) of identical shape and dtype.
      axis: where the new axis goes, in ``[-(ndim + 1), ndim]``.

    Returns:
      The stacked array, with ``len(operands)`` at ``axis``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.stack([x, x], axis=-1))(np.ones(3, np.float32)))
        { lambda ; a:f32[3]. let b:f32[3,2] = stack[axis=1] a a in (b,) }
    """
    if not operands:
        raise ValueError("stack requires at least one operand; pass a non-empty sequence")
    ndim = get_aval_of(operands[0]).ndim
    out: Array = stack_p.bind(*operands, axis=_canonical_axis(axis, ndim + 1, "stack"))
    return out


def unstack(x: ArrayLike, axis: int = 0) -> tuple[Array, ...]:
    """Split an array into its slices along ``axis``, dropping that axis.

    Args:
      x: an array.
      axis: the axis to unstack.

    Returns:
      A tuple of ``x.shape[axis]`` arrays.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.unstack(x, 1))(np.ones((2, 2), np.float32)))
        { lambda ; a:f32[2,2]. let b:f32[2] c:f32[2] = unstack[axis=1] a in (b, c) }
    """
    ndim = get_aval_of(x).ndim
    return tuple(unstack_p.bind(x, axis=_canonical_axis(axis, ndim, "unstack")))


def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> Sequence[Array]:
    """Split ``operand`` along ``axis`` into pieces of the given sizes.

    Args:
      operand: an array.
      sizes: nonnegative sizes summing to ``operand.shape[axis]`` (kept as
        given, so NumPy integers print as JAX prints them).
      axis: the axis to split.

    Returns:
      A list of ``len(sizes)`` arrays.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.split(x, (1, 2), 1))(np.ones((2, 3), np.float32)))
        { lambda ; a:f32[2,3]. let
            b:f32[2,1] c:f32[2,2] = split[axis=1 sizes=(1, 2)] a
          in (b, c) }
    """
    ndim = get_aval_of(operand).ndim
    out: list[Any] = split_p.bind(
        operand, sizes=tuple(sizes), axis=_canonical_axis(axis, ndim, "split")
    )
    return out


def tile(operand: ArrayLike, reps: Sequence[int]) -> Array:
    """Repeat ``operand`` ``reps[i]`` times along each axis ``i``.

    Args:
      operand: an array.
      reps: one nonnegative repetition count per axis of ``operand``.

    Returns:
      The tiled array.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.tile(x, (2,)))(np.ones(3, np.float32)))
        { lambda ; a:f32[3]. let b:f32[6] = tile[reps=(2,)] a in (b,) }
    """
    out: Array = tile_p.bind(operand, reps=tuple(operator.index(r) for r in reps))
    return out
