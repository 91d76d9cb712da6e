"""More of JAX's top-level flag objects: ``jax.no_tracing``, ``jax.legacy_prng_key``, ...

Each is a :class:`~tessela._flag_contexts.FlagContext` over a flag of
:data:`tessela.config`, readable as ``config.jax_<name>`` and set with
``config.update("jax_<name>", value)`` or ``with tessela.<name>(value):``.
What each flag does on Tessela:

- ``no_tracing``: a ``jit`` that traces (a cache miss) raises ``RuntimeError``,
  with JAX's message. Eager operations do not trace on Tessela, so they run.
- ``no_execution``: a jitted call or an eager operation on concrete values
  raises ``RuntimeError``; tracing, lowering and compiling still work.
- ``enable_checks``: every jaxpr that ``jit``, ``make_jaxpr`` and
  ``eval_shape`` trace is type-checked (``check_jaxpr``).
- ``allow_f16_reductions``: ``False`` makes ``reduce_sum`` of float16/bfloat16
  operands over an axis longer than one raise ``ValueError``, as in JAX
  (``numpy.sum`` accumulates in float32 and is unaffected). Changing it clears
  the caches of traced and compiled programs, as JAX keys its traces on it.
- ``softmax_custom_jvp``: ``True`` makes ``nn.softmax`` a ``custom_jvp``
  function (JAX's newer rule); ``False`` (the default) differentiates through
  its operations.
- ``legacy_prng_key``: what ``tessela.random`` does with raw ``uint32`` keys:
  ``"allow"``, ``"warn"`` (``UserWarning``) or ``"error"`` (``ValueError``).
- ``jax2tf_associative_scan_reductions``: picks jax2tf's lowering of cumulative
  reductions; Tessela has no jax2tf, so either value changes nothing.
- ``thread_guard``: checks which thread calls multi-process operations. With
  one process there is nothing to check (as in JAX); ``True`` with several
  processes raises ``NotImplementedError``.
- ``enable_custom_prng``, ``debug_key_reuse``,
  ``remove_size_one_mesh_axis_from_type`` and
  ``array_garbage_collection_guard`` accept their default (``False`` /
  ``None`` / ``"allow"``) and raise ``NotImplementedError`` for the values
  whose behaviour Tessela does not have.

Example:
    >>> import tessela as tx
    >>> f = tx.jit(lambda x: x + 1)
    >>> _ = f(1.0)
    >>> with tx.no_tracing():
    ...     print(f(2.0))
    3.0
    >>> tx.config.jax_legacy_prng_key
    'allow'
"""

from __future__ import annotations

from typing import Any

import tessela_lowering

from ._config import config
from ._flag_contexts import _REQUIRED, FlagContext

__all__ = [
    "allow_f16_reductions", "array_garbage_collection_guard", "debug_key_reuse",
    "enable_checks", "enable_custom_prng", "jax2tf_associative_scan_reductions",
    "legacy_prng_key", "no_execution", "no_tracing", "remove_size_one_mesh_axis_from_type",
    "softmax_custom_jvp", "thread_guard",
]  # fmt: skip

_LEGACY_KEY_STATES = ("allow", "warn", "error")
_GC_GUARD_STATES = ("allow", "log", "fatal")


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, int)):
        raise TypeError(f"config flag {name!r} takes a bool, got {value!r}")
    return bool(value)


def _legacy_prng_key(value: Any) -> str:
    if value not in _LEGACY_KEY_STATES:
        raise ValueError(f"{value!r} is not a valid LegacyPrngKeyState")
    return str(value)


def _gc_guard(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or value not in _GC_GUARD_STATES):
        raise ValueError(
            f"new enum value must be None or in {list(_GC_GUARD_STATES)}, got {value} of type "
            f"{type(value)}."
        )
    if value in ("log", "fatal"):
        raise NotImplementedError(
            f"jax_array_garbage_collection_guard={value!r}: Tessela arrays do not report being "
            "freed by the cycle collector rather than by reference counting; only None and "
            "'allow' are supported."
        )
    return value


def _refusing_true(name: str, reason: str) -> Any:
    def validate(value: Any) -> bool:
        if _bool(name, value):
            raise NotImplementedError(f"{name}=True: {reason}; only False is supported.")
        return False

    return validate


def _thread_guard(value: Any) -> bool:
    flag = _bool("jax_thread_guard", value)
    if flag and tessela_lowering.process_count() > 1:
        raise NotImplementedError(
            "jax_thread_guard=True: Tessela does not check which thread calls multi-process "
            f"operations, and this run has {tessela_lowering.process_count()} processes."
        )
    return flag


def _clear_caches(value: bool) -> None:
    # JAX keys its traces on this flag; Tessela's caches forget what was traced
    # and compiled under the other value, so the next reduction checks again.
    tessela_lowering.clear_caches()


config.state("jax_allow_f16_reductions").on_change = _clear_caches
config.define_bool(
    "jax_softmax_custom_jvp",
    False,
    help="Make nn.softmax a custom_jvp function (JAX's newer differentiation rule).",
)
config.define(
    "jax_legacy_prng_key",
    "allow",
    validator=_legacy_prng_key,
    help="Whether raw uint32 keys in tessela.random are allowed, warned about or refused.",
)
# The flags below read no environment variable (``env=()``); their alias
# ``tessela_<name>`` comes from the naming rule of ``Config.define``.
config.define_bool(
    "jax2tf_associative_scan_reductions",
    False,
    env=(),
    help="jax2tf's lowering of cumulative reductions; Tessela has no jax2tf (no effect).",
)
config.define(
    "jax_enable_custom_prng",
    False,
    env=(),
    validator=_refusing_true(
        "jax_enable_custom_prng",
        "Tessela implements the threefry2x32 PRNG alone, and random functions given raw keys "
        "return raw keys",
    ),
    help="JAX's upgrade for custom PRNG implementations (not available: False only).",
)
config.define(
    "jax_debug_key_reuse",
    False,
    env=(),
    validator=_refusing_true("jax_debug_key_reuse", "Tessela has no checker of PRNG key reuse"),
    help="JAX's experimental key-reuse checker (not available: False only).",
)
config.define(
    "jax_remove_size_one_mesh_axis_from_type",
    False,
    env=(),
    validator=_refusing_true(
        "jax_remove_size_one_mesh_axis_from_type",
        "Tessela's abstract values keep mesh axes of size one in their sharding types",
    ),
    help="Remove mesh axes of size one from sharding types (not available: False only).",
)
config.define(
    "jax_array_garbage_collection_guard",
    None,
    env=(),
    validator=_gc_guard,
    help="What happens when an array is freed by the garbage collector (None/'allow' only).",
)
config.define(
    "jax_thread_guard",
    False,
    env=(),
    validator=_thread_guard,
    help="Check the thread of multi-process operations (nothing to check with one process).",
)

no_tracing = FlagContext("jax_no_tracing")
no_execution = FlagContext("jax_no_execution")
enable_checks = FlagContext("jax_enable_checks")
allow_f16_reductions = FlagContext("jax_allow_f16_reductions")
softmax_custom_jvp = FlagContext("jax_softmax_custom_jvp")
legacy_prng_key = FlagContext("jax_legacy_prng_key", _REQUIRED)
jax2tf_associative_scan_reductions = FlagContext("jax2tf_associative_scan_reductions")
enable_custom_prng = FlagContext("jax_enable_custom_prng")
debug_key_reuse = FlagContext("jax_debug_key_reuse")
remove_size_one_mesh_axis_from_type = FlagContext("jax_remove_size_one_mesh_axis_from_type")
array_garbage_collection_guard = FlagContext("jax_array_garbage_collection_guard", _REQUIRED)
thread_guard = FlagContext("jax_thread_guard")
