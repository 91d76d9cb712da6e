"""``tessela.debug``: print and call back from inside transformed functions, as ``jax.debug``.

``print`` formats runtime values (``str.format`` with NumPy-style arrays) and
``callback`` calls any Python function for its side effect; both work eagerly,
under ``jit`` (every time the compiled program runs), once per element under
``vmap``, and with primal values under ``grad``. They are effects, so unused
calls are never dropped. ``inspect_array_sharding``, ``visualize_array_sharding``
and ``visualize_sharding`` show where arrays live (``tessela._debug_sharding``);
``breakpoint`` opens JAX's ``(jdb)`` debugger on the runtime values
(``tessela._debugger``, imported the first time ``breakpoint`` is read, so
that ``tessela.debug.print`` does not load the debugger's ``cmd`` and
``pprint``).

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> @tx.jit
    ... def f(x):
    ...     tx.debug.print("x = {x}", x=x)
    ...     return x * 2
    >>> _ = f(tnp.arange(3.0))
    x = [0. 1. 2.]
"""

import importlib
import logging
import string
import sys
from typing import TYPE_CHECKING, Any

import numpy as np
from tessela_tracer import debug_callback as callback
from tessela_tracer import debug_print as print
from tessela_tracer.extend import DebugEffect, OrderedDebugEffect

from ._debug_sharding import inspect_array_sharding, visualize_array_sharding, visualize_sharding

if TYPE_CHECKING:
    from ._debugger import breakpoint

__all__ = [
    "DebugEffect", "OrderedDebugEffect", "breakpoint", "callback", "inspect_array_sharding", "log", "print",
    "visualize_array_sharding", "visualize_sharding",
]  # fmt: skip

_logger = logging.getLogger("tessela.debug")


def __getattr__(name: str) -> Any:
    """Imports the debugger the first time ``breakpoint`` is read (PEP 562).

    Args:
      name: the attribute read on the module.

    Returns:
      ``breakpoint`` from ``tessela._debugger``, then bound on this module, so
      that later reads do not come here.

    Raises:
      AttributeError: for any other name the module does not define.

    Example:
      >>> import tessela.debug
      >>> tessela.debug.breakpoint.__module__
      'tessela._debugger'
    """
    if name == "breakpoint":
        value = importlib.import_module(f"{__package__}._debugger").breakpoint
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, ``breakpoint`` included before it is imported.

    Returns:
      The sorted names.

    Example:
      >>> import tessela.debug
      >>> "breakpoint" in dir(tessela.debug)
      True
    """
    return sorted({*globals(), "breakpoint"})


def _record(level: int) -> logging.LogRecord:
    """A log record naming the caller of ``log`` (its file and line)."""
    frame = sys._getframe(2)
    return _logger.makeRecord(
        _logger.name, level, frame.f_code.co_filename, frame.f_lineno, "", (), None,
        func=frame.f_code.co_name,
    )  # fmt: skip


def log(
    fmt: str, *args: Any, ordered: bool = False, partitioned: bool = False, **kwargs: Any
) -> None:
    """Log ``fmt.format(*args, **kwargs)`` with the runtime values, also inside ``jit``.

    Like ``print``, but the message goes to the ``tessela.debug`` logger at
    level INFO (as ``jax.debug.log`` logs), with the file and line of the
    call, when the values exist.

    Args:
      fmt: a ``str.format`` string (not an f-string).
      *args: positional values to format.
      ordered: keep the order among ordered debug calls.
      partitioned: accepted for JAX compatibility (one device here).
      **kwargs: keyword values to format.

    Example:
        >>> import logging, sys
        >>> import tessela as tx
        >>> logger = logging.getLogger("tessela.debug")
        >>> handler = logging.StreamHandler(sys.stdout)
        >>> logger.addHandler(handler)
        >>> logger.setLevel(logging.INFO)
        >>> tx.jit(lambda x: tx.debug.log("x = {}", x))(1.5)
        x = 1.5
        >>> logger.removeHandler(handler)
    """
    del partitioned
    record = _record(logging.INFO)
    options = np.get_printoptions()
    fields = [f for _, f, _, _ in string.Formatter().parse(fmt) if f is not None]

    def emit(*values: Any, **named: Any) -> None:
        with np.printoptions(**options):
            if fields:
                message = fmt.format(*values, **named)
            else:
                message = " ".join((fmt, *(str(v) for v in values)))
        out = logging.makeLogRecord(record.__dict__)
        out.msg = message
        _logger.handle(out)

    callback(emit, *args, ordered=ordered, **kwargs)
