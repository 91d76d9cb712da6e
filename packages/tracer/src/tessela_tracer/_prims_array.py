"""Array-placing and array-assembling primitives: ``device_put``.

``device_put`` moves values to a device. Its eager implementation belongs to
the backend (tessela-lowering registers it); :func:`to_concrete_array` is how
array constructors without a backend dependency (``tessela_numpy.array``)
turn host data into the backend's concrete arrays when running eagerly, while
leaving it a constant under every trace.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import (
    EvalTrace,
    Primitive,
    Tracer,
    find_impl,
    get_current_trace,
    register_abstract_eval,
)

__all__ = ["ArrayCopySemantics", "device_put_p", "to_concrete_array"]


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
    *xs: Any,
    devices: Sequence[Any] | None = None,
    copy_semantics: Sequence[ArrayCopySemantics] | None = None,
) -> list[Any]:
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


def to_concrete_array(x: Any, /) -> Any:
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
