"""Lowering rules and eager implementations of the typed-key primitives.

A key array ``key<fry>[...]`` is lowered to its data, ``uint32[..., 2]``
(:func:`tessela_lowering._hlo.tensor_type` maps the aval), so
``random_wrap`` and ``random_unwrap`` lower to nothing: the value passes
through. Eagerly they run without XLA: a concrete key :class:`Array` holds
the ``uint32`` buffer of its data and reports the key aval, so wrapping and
unwrapping share the buffer under the other aval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import primitives as P
from tessela_tracer.extend import physical_aval
from tessela_tracer.extend import register_impl as _register_impl

from tessela_lowering._array import Array, device_put
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value

__all__: list[str] = []


def _identity_lowering(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


register_lowering(P.random_wrap_p, _identity_lowering)
register_lowering(P.random_unwrap_p, _identity_lowering)


def _as_array(x: Any) -> Array:
    if isinstance(x, Array):
        return x
    out: Array = device_put(np.asarray(x))
    return out


def _random_wrap_impl(data: Any, *, impl: Any) -> Array:
    arr = _as_array(data)
    aval = P.random_wrap_p.abstract_eval(arr.aval, impl=impl)
    return Array(arr._live_buffer(), aval, arr.committed)


_register_impl(P.random_wrap_p, _random_wrap_impl)


def _random_unwrap_impl(keys: Any) -> Array:
    arr = _as_array(keys)
    aval = P.random_unwrap_p.abstract_eval(arr.aval)
    return Array(arr._live_buffer(), physical_aval(aval), arr.committed)


_register_impl(P.random_unwrap_p, _random_unwrap_impl)
