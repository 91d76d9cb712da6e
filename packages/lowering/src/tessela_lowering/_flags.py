"""The runtime's flags, defined on the tracer's shared ``config``.

Each flag answers to its JAX name and a ``tessela_`` spelling, and reads the
environment once at import (``JAX_DEBUG_NANS=1`` or ``TESSELA_DEBUG_NANS=1``):

- ``jax_disable_jit``: ``jit`` calls the Python function directly.
- ``jax_debug_nans`` / ``jax_debug_infs``: check every result; on a NaN (or
  inf) out of a jitted function, call the Python function again without that
  level of ``jit`` (nested jitted calls check themselves the same way), so
  that ``FloatingPointError`` names the primitive that produced it and the
  traceback passes through the line of user code that bound it.
- ``jax_log_compiles``: log each compilation at WARNING level.
- ``jax_explain_cache_misses``: log why a jitted function was traced again.
- ``jax_compilation_cache_dir``: a folder where compiled executables are kept
  across processes.
- ``jax_persistent_cache_min_compile_time_secs``: only executables that took at
  least this long to compile (1.0 s by default, as in JAX) are written there.

The hot paths read :data:`state`, which the flags keep current, instead of
the config object.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np
from tessela_tracer import config
from tessela_tracer.typing import ArrayLike

__all__ = ["DEOPTIMIZED_MESSAGE", "check_finite", "logger", "rerun_deoptimized", "state"]

logger = logging.getLogger("tessela_lowering")


class _State:
    __slots__ = (
        "cache_dir",
        "cache_min_compile_secs",
        "check_values",
        "debug_infs",
        "debug_nans",
        "disable_jit",
        "explain_cache_misses",
        "fast",
        "log_compiles",
    )

    def __init__(self) -> None:
        self.disable_jit = False
        self.debug_nans = False
        self.debug_infs = False
        self.check_values = False
        self.log_compiles = False
        self.explain_cache_misses = False
        self.cache_dir: str | None = None
        self.cache_min_compile_secs = 1.0
        self.fast = True


state = _State()
"""Current values of this package's flags (kept in sync by ``config.update``)."""


def _setter(attr: str) -> Callable[[object], None]:
    def on_change(value: object) -> None:
        setattr(state, attr, value)
        state.check_values = state.debug_nans or state.debug_infs
        state.fast = not (state.check_values or state.disable_jit)

    return on_change


def _define_bool(suffix: str, attr: str, help: str) -> None:
    name = f"jax_{suffix}"
    if name in config.flag_names():
        return
    config.define_bool(name, False, help=help, on_change=_setter(attr))
    _setter(attr)(config.read(name))


def _cache_dir(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    raise TypeError(
        f"config flag 'jax_compilation_cache_dir' takes a folder path (str) or None, got "
        f"{value!r}; use config.update('jax_compilation_cache_dir', '/tmp/cache')"
    )


_define_bool("disable_jit", "disable_jit", "Run jitted functions as plain Python.")
_define_bool("debug_nans", "debug_nans", "Raise FloatingPointError on NaN results.")
_define_bool("debug_infs", "debug_infs", "Raise FloatingPointError on inf results.")
_define_bool("log_compiles", "log_compiles", "Log every compilation.")
_define_bool("explain_cache_misses", "explain_cache_misses", "Log why jit traced again.")
if "jax_compilation_cache_dir" not in config.flag_names():
    config.define(
        "jax_compilation_cache_dir",
        None,
        validator=_cache_dir,
        help="A folder keeping compiled executables across processes.",
        on_change=_setter("cache_dir"),
    )
    state.cache_dir = config.read("jax_compilation_cache_dir")


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if seconds >= 0:
            return seconds
    raise ValueError(
        "config flag 'jax_persistent_cache_min_compile_time_secs' takes a number of seconds "
        f">= 0, got {value!r}; use config.update('jax_persistent_cache_min_compile_time_secs', 0)"
        " to write every executable"
    )


if "jax_persistent_cache_min_compile_time_secs" not in config.flag_names():
    config.define(
        "jax_persistent_cache_min_compile_time_secs",
        1.0,
        validator=_seconds,
        help="Write to the persistent cache only executables that took this long to compile.",
        on_change=_setter("cache_min_compile_secs"),
    )
    state.cache_min_compile_secs = config.read("jax_persistent_cache_min_compile_time_secs")


def check_finite(name: str, values: Sequence[ArrayLike]) -> None:
    """Raise ``FloatingPointError`` when a result holds a NaN (or an inf) that is checked for.

    Args:
      name: what produced ``values`` (a primitive's name, or ``jit(f)``).
      values: arrays (anything ``np.asarray`` accepts).

    Returns:
      None.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import config
      >>> from tessela_lowering._flags import check_finite
      >>> config.update("jax_debug_nans", True)
      >>> try:
      ...     check_finite("div", [np.array([np.nan], np.float32)])
      ... except FloatingPointError as e:
      ...     print(e)
      invalid value (nan) encountered in div
      >>> config.update("jax_debug_nans", False)
    """
    for v in values:
        host = np.asarray(v)
        if host.dtype.kind not in "fc" and not str(host.dtype).startswith(("bfloat", "float")):
            continue
        host = host.astype(np.complex128 if host.dtype.kind == "c" else np.float64)
        if state.debug_nans and np.isnan(host).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {name}")
        if state.debug_infs and np.isinf(host).any():
            raise FloatingPointError(f"invalid value (inf) encountered in {name}")


DEOPTIMIZED_MESSAGE = (
    "Invalid value encountered in the output of a jit function. Calling the de-optimized version."
)
"""Printed before a jitted function that produced a NaN (or inf) runs again without ``jit``."""


def rerun_deoptimized(
    error: FloatingPointError,
    fun: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    flat: Sequence[ArrayLike] = (),
) -> NoReturn:
    """Call ``fun`` again without ``jit`` so that the primitive making a NaN raises.

    The compiled function's output held an invalid value (``error``). The
    Python function runs again on the same arguments: its primitives run one
    by one and are checked as they go, and the jitted functions it calls
    check their own outputs and re-run the same way, one level of ``jit`` at
    a time. The ``FloatingPointError`` of the re-run propagates unchanged, so
    its traceback passes through the user's line that produced the value.

    Args:
      error: what the check of the compiled outputs raised.
      fun: the Python function under ``jit`` (static arguments included in
        ``args``/``kwargs``).
      args: the positional arguments of the call.
      kwargs: the keyword arguments of the call.
      flat: the call's flattened array arguments, to tell whether some were
        donated (and so deleted) by the compiled run.

    Returns:
      Never: it raises ``FloatingPointError``.

    Example:
      >>> import numpy as np
      >>> from tessela_lowering._flags import rerun_deoptimized
      >>> def f(x):
      ...     raise FloatingPointError("invalid value (nan) encountered in div")
      >>> try:
      ...     rerun_deoptimized(FloatingPointError("nan in jit(f)"), f, (1.0,), {})
      ... except FloatingPointError as e:
      ...     print(e)
      Invalid value encountered in the output of a jit function. Calling the de-optimized version.
      invalid value (nan) encountered in div
    """
    print(DEOPTIMIZED_MESSAGE)
    donated = [
        x for x in flat if (deleted := getattr(x, "is_deleted", None)) is not None and deleted()
    ]
    if donated:
        raise FloatingPointError(
            f"{error}. The de-optimized function (the function as if the `jit` decorator "
            f"were removed) could not be called to find the primitive that produced it: "
            f"{len(donated)} argument(s) were donated and have been deleted. Call the "
            f"function without donate_argnums/donate_argnames while debugging."
        ) from None
    fun(*args, **kwargs)
    raise FloatingPointError(
        f"{error}. Because jax_debug_nans and/or jax_debug_infs is set, the de-optimized "
        f"function (i.e., the function as if the `jit` decorator were removed) was called "
        f"in an attempt to get a more precise error message. However, the de-optimized "
        f"function did not produce invalid values during its execution. This behavior can "
        f"result from `jit` optimizations causing the invalid value to be produced. It may "
        f"also arise from having nan/inf literals as inputs or outputs, like "
        f"`jit(lambda ...: numpy.nan)(...)`.\n\nIt may be possible to avoid the invalid "
        f"value by removing the `jit` decorator, at the cost of losing optimizations."
    ) from None
