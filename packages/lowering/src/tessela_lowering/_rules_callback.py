"""Lowering rules of the host-callback primitives.

Eagerly (outside ``jit``) binding ``debug_callback``, ``debug_print``,
``pure_callback`` or ``io_callback`` runs the tracer's own implementation of
the primitive: a plain Python call on concrete arrays.

Inside a compiled program each such equation becomes a custom call to jaxlib's
Python-callback FFI handler (``xla_ffi_python_cpu_callback`` on CPU,
``xla_ffi_python_gpu_callback`` on CUDA/ROCm) whose ``index`` names the
function in the module's list of host callbacks; that list is handed to the
compiler with the module (see :class:`~tessela_lowering.ModuleContext`).
A program with host callbacks runs synchronously: every callback has run when
the call returns. Ordered callbacks (``ordered=True``) take the module's
ordered-effects token as their first operand and return the next one
(:func:`~tessela_lowering._lowering.ordered_token`), so XLA runs them in
program order, also across ``cond``, loops and nested ``jit`` calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ShapedArray, get_aval
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    FlatCallback,
    call_host_callback,
    format_print_callback,
)
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo, _xla
from tessela_lowering._array import Array
from tessela_lowering._devices import devices, get_default_device
from tessela_lowering._lowering import LoweringRuleContext, ordered_token, register_lowering
from tessela_lowering._xla import Device, HostArray, Value, stablehlo

__all__: list[str] = []


def _callback_device() -> Device:
    # Callbacks compute on the host, as in JAX; without a CPU backend (e.g.
    # TESSELA_PLATFORMS=cuda) their arguments stay on the default device.
    try:
        return devices("cpu")[0]
    except RuntimeError:
        return get_default_device()


def _host_array(x: ArrayLike) -> Array:
    """The value a callback receives for one operand: an uncommitted Array on the CPU."""
    if isinstance(x, Array):
        return x
    aval = get_aval(x)
    host = np.asarray(x, dtype=aval.dtype)
    if isinstance(x, np.ndarray):
        aval = ShapedArray(host.shape, host.dtype)
    return Array(_xla.device_put(host, _callback_device()), aval, False)


def _host_entry(
    callback: Callable[..., Any], result_avals: Sequence[ShapedArray] | None
) -> Callable[..., tuple[HostArray, ...]]:
    """The function jaxlib calls with NumPy operands; returns NumPy results."""

    def entry(*operands: HostArray) -> tuple[HostArray, ...]:
        args = [_host_array(np.asarray(a)) for a in operands]
        if result_avals is None:
            callback(*args)
            return ()
        return tuple(call_host_callback(callback, args, result_avals))

    return entry


def _emit_callback(
    ctx: LoweringRuleContext,
    entry: Callable[..., tuple[HostArray, ...]],
    operands: Sequence[Value],
    *,
    has_side_effect: bool,
    ordered: bool = False,
) -> list[Value]:
    mctx = ctx.module_context
    index = len(mctx.host_callbacks)
    result_types: list[Any] = [_hlo.tensor_type(a.shape, a.dtype) for a in ctx.avals_out]
    if not ordered:
        mctx.host_callbacks.append(entry)
        return _xla.python_callback_op(
            ctx.platform, index, list(operands), result_types, has_side_effect=has_side_effect
        )

    def entry_with_token(token: object, *args: HostArray) -> tuple[object, ...]:
        return (token, *entry(*args))

    mctx.host_callbacks.append(entry_with_token)
    outs = _xla.python_callback_op(
        ctx.platform,
        index,
        [ordered_token(mctx), *operands],
        [stablehlo.TokenType.get(), *result_types],
        has_side_effect=True,
    )
    mctx.token = outs[0]
    return outs[1:]


def _debug_callback_lowering(
    ctx: LoweringRuleContext, *args: Value, callback: FlatCallback, effect: Any, partitioned: bool
) -> list[Value]:
    ordered = bool(getattr(effect, "ordered", False))
    entry = _host_entry(callback, None)
    return _emit_callback(ctx, entry, args, has_side_effect=True, ordered=ordered)


register_lowering(P.debug_callback_p, _debug_callback_lowering)


def _debug_print_lowering(ctx: LoweringRuleContext, *args: Value, **params: Any) -> list[Value]:
    entry = _host_entry(format_print_callback(**params), None)
    return _emit_callback(ctx, entry, args, has_side_effect=True, ordered=bool(params["ordered"]))


register_lowering(P.debug_print_p, _debug_print_lowering)


def _pure_callback_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    callback: FlatCallback,
    result_avals: Sequence[ShapedArray],
    **params: Any,
) -> list[Value]:
    entry = _host_entry(callback, result_avals)
    return _emit_callback(ctx, entry, args, has_side_effect=False)


register_lowering(P.pure_callback_p, _pure_callback_lowering)


def _io_callback_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    callback: FlatCallback,
    result_avals: Sequence[ShapedArray],
    ordered: bool,
    **params: Any,
) -> list[Value]:
    entry = _host_entry(callback, result_avals)
    return _emit_callback(ctx, entry, args, has_side_effect=True, ordered=ordered)


register_lowering(P.io_callback_p, _io_callback_lowering)
