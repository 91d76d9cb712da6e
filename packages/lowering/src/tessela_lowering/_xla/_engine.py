"""jaxlib's compiled-call entry point, for calls that pass host values.

A call of a cached executable with NumPy arrays or Python scalars among its
arguments must move each of them to the device first. From Python the
cheapest route, ``batched_device_put``, costs about 3 µs per value; jaxlib's
own compiled-call object (``_jax.pjit``) moves them in C++ for about 1 µs and
runs the executable in the same call. :func:`engine` wraps one executable in
such an object, fed with ready-made call data, so the dispatch fast paths can
use it for calls with host values.

jaxlib's object keeps its own signature cache in front of the executable: the
first call (and any call whose argument signature jaxlib computes differently)
comes back to Python. The first call runs the executable through the given
``first`` function and hands jaxlib the call data, after checking that jaxlib
sees each host value as the program's input aval; a later miss raises
:class:`EngineMiss` and retires the engine, and the caller takes its Python
route from then on. jaxlib converts host
values under its own x64 state, which Tessela keeps off: engines serve only
programs traced with x64 disabled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from tessela_lowering._xla._jaxlib import (
    AvalLike,
    Buffer,
    Device,
    Executable,
    _ensure_process_state,
    _jax,
)

__all__ = ["Engine", "EngineMiss", "engine"]


class EngineMiss(RuntimeError):
    """A call that the engine's cache does not serve: take the full path."""


class Engine:
    """One executable behind jaxlib's compiled-call object (see :func:`engine`).

    ``call(*args)`` takes device buffers for device arrays and host values as
    they are, and returns the output buffers; it raises :class:`EngineMiss`
    for a call its cache does not serve. ``usable`` turns false when jaxlib
    saw the first call's host values otherwise than the program takes them,
    or keyed a later call otherwise than the first: the caller should then
    stop using it.
    """

    __slots__ = ("call", "usable")

    def __init__(self) -> None:
        self.call: Callable[..., list[Buffer]] = _refuse_resharding
        self.usable = True


class _CallData(NamedTuple):
    # The fields jaxlib's compiled-call object reads after a miss.
    xla_executable: Any
    out_pytree_def: Any
    in_shardings: Sequence[Any]
    out_shardings: Sequence[Any]
    out_avals: Sequence[Any]
    out_committed: Sequence[bool]
    kept_var_bitvec: Sequence[bool]
    in_device_local_layouts: Sequence[Any]
    const_args: Sequence[Any]


_pjit: Any = getattr(_jax, "pjit", None)
_cache_type: Any = getattr(_jax, "PjitFunctionCache", None)
_signature_of: Any = getattr(getattr(_jax, "jax_jit", None), "_ArgSignatureOfValue", None)
_registry: Any = None
_state_lock = threading.Lock()
# None: not tried yet; then whether this jaxlib's compiled-call object works.
_usable: list[bool | None] = [None]


def _refuse_resharding(*args: Any) -> Any:
    # jaxlib asks for this only when an argument sits elsewhere than the
    # program takes it; the fast paths never build such a call.
    del args
    raise EngineMiss("an argument is not laid out as the program takes it")


def _setup() -> bool:
    # Process-wide state jaxlib's compiled-call object reads (set once).
    global _registry
    with _state_lock:
        if _usable[0] is None:
            _usable[0] = False
            if None not in (_pjit, _cache_type, _signature_of):
                _ensure_process_state()
                jit_state = _jax.jax_jit
                try:
                    jit_state.set_disable_jit_state(
                        _jax.config.Config("tessela_disable_jit", False, include_in_jit_key=True)
                    )
                    jit_state.set_post_hook_state(
                        _jax.config.Config("tessela_post_hook", None, include_in_jit_key=False)
                    )
                    _registry = _jax.pytree.PyTreeRegistry()
                    _usable[0] = True
                except (AttributeError, TypeError, ValueError):
                    pass
    return bool(_usable[0])


def _plain(aval: AvalLike) -> bool:
    return isinstance(aval.dtype, np.dtype)


def engine(
    executable: Executable,
    first: Callable[[Sequence[Any]], list[Buffer]],
    avals_in: Sequence[AvalLike],
    avals_out: Sequence[AvalLike],
    kept: Sequence[int],
    host: Sequence[int],
    device: Device,
) -> Engine | None:
    """jaxlib's compiled-call object for one executable on one device.

    Args:
      executable: the compiled program (without host callbacks or donation).
      first: runs the program on the call's arguments the Python way and
        returns its output buffers (used once, for the first call).
      avals_in: every argument's aval (kept or not), in order.
      avals_out: the outputs' avals.
      kept: the arguments the program takes.
      host: the arguments that are host values (NumPy arrays, scalars).
      device: where it runs. Its output buffers are committed to it, as the
        Python route's result handlers make them (the wrapping ``Array``
        carries the call's own commitment).

    Returns:
      The :class:`Engine`; ``None`` where this jaxlib offers no such object
      or an aval is not a plain NumPy dtype.
    """
    if not _setup() or not all(map(_plain, (*avals_in, *avals_out))):
        return None
    placement = _jax.SingleDeviceSharding(device)
    kept_set = set(kept)
    data = _CallData(
        executable,
        _registry.flatten([0] * len(avals_out))[1],
        [placement] * len(avals_in),
        [placement] * len(avals_out),
        list(avals_out),
        [True] * len(avals_out),
        [i in kept_set for i in range(len(avals_in))],
        [None] * len(avals_in),
        [],
    )
    expected = [(avals_in[i].dtype, tuple(avals_in[i].shape), avals_in[i].weak_type) for i in host]
    served = [False]
    result = Engine()

    def miss(*args: Any) -> tuple[list[Buffer], _CallData | None, bool]:
        if served[0]:  # jaxlib keyed this call otherwise: serve nothing more
            result.usable = False
            raise EngineMiss("a call signature the engine was not built for")
        served[0] = True
        outs = first(args)
        seen = [_signature_of(args[i], False) for i in host]
        result.usable = [(s.dtype, tuple(s.shape), s.weak_type) for s in seen] == expected
        return outs, data if result.usable else None, False

    try:
        result.call = _pjit(
            "tessela_call", None, miss, [], [], object(), _registry, _refuse_resharding,
            _cache_type(capacity=1),
        )  # fmt: skip
    except TypeError:  # another jaxlib's signature: the Python route serves
        _usable[0] = False
        return None
    return result
