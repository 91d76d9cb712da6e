"""The tracer-leak checker behind ``jax_check_tracer_leaks`` / ``checking_leaks``.

When the flag is on, :func:`~tessela_tracer.new_trace` calls
:func:`check_no_leaks` as its block ends without an error. A tracer of the
finished trace is *legitimately* alive only while the code that ran the
block still holds it: the locals of the frame with the ``with new_trace(...)``
statement (its inputs, its outputs before unwrapping) and what the trace
itself keeps. Every other tracer of the trace that survives a garbage
collection was stored somewhere by the traced function (a global, a list, an
attribute, a closure): a leak, reported as JAX reports it, with an
``Exception`` whose text starts with ``Leaked trace``.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any, TypeVar

from tessela_tracer._config import config

_T = TypeVar("_T")

__all__ = ["check_no_leaks", "find_leaked_tracers"]

# Objects the search for legitimate holders never enters: following them would
# reach every module's globals and the user's closures, and with them any
# leaked tracer.
_OPAQUE = (
    types.ModuleType, types.FrameType, types.CodeType, type, types.FunctionType,
    types.MethodType, types.BuiltinFunctionType, types.CellType,
)  # fmt: skip
_MAX_OBJECTS = 100_000
_check_leaks = config.state("jax_check_tracer_leaks")


def _held_by(roots: list[Any]) -> set[int]:
    """The ids of the objects reachable from ``roots`` without passing through a module."""
    seen: set[int] = set()
    stack = list(roots)
    while stack and len(seen) < _MAX_OBJECTS:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return seen


def find_leaked_tracers(
    trace: object, tracer_type: type[_T], frame: types.FrameType | None
) -> list[_T]:
    """The tracers of ``trace`` that something besides ``frame`` and the trace still holds.

    After a garbage collection, a tracer of ``trace`` has leaked when it is
    not reachable from the locals of ``frame`` (the frame that ran the
    ``with new_trace(...)`` block) or from the trace, or when an object outside
    that reachable set refers to it (the list a function appended it to, even
    if the frame also holds it because it is an output).

    Args:
      trace: a finished trace.
      tracer_type: the tracer base class (instances referring to ``trace`` are its tracers).
      frame: the frame that ran the ``with new_trace(...)`` block, or None.

    Returns:
      The leaked tracers (empty when none leaked).

    Example:
        >>> from tessela_tracer import Trace, Tracer
        >>> t = Trace()
        >>> kept = Tracer(t)
        >>> [type(x).__name__ for x in find_leaked_tracers(t, Tracer, None)]
        ['Tracer']
    """
    gc.collect()
    mine = [
        r
        for r in gc.get_referrers(trace)
        if isinstance(r, tracer_type) and getattr(r, "_trace", None) is trace
    ]
    if not mine:
        return []
    local_vars = frame.f_locals if frame is not None else {}
    roots: list[Any] = [trace, *local_vars.values()]
    held = _held_by(roots)
    ignored = {id(mine), id(roots), id(local_vars)}
    live_frames: set[int] = set()
    f: types.FrameType | None = sys._getframe()
    while f is not None:
        live_frames.add(id(f))
        f = f.f_back

    def foreign(r: object) -> bool:
        rid = id(r)
        return rid not in held and rid not in ignored and rid not in live_frames

    return [t for t in mine if id(t) not in held or any(map(foreign, gc.get_referrers(t)))]


def check_no_leaks(trace: object, tracer_type: type[object]) -> None:
    """Raise, with ``jax_check_tracer_leaks`` on, when a tracer of ``trace`` leaked (see the module).

    Called by :func:`~tessela_tracer.new_trace` as its block ends; the frame
    that ran the block is its caller's caller (``contextlib``'s ``__exit__``
    stands between).

    Args:
      trace: a finished trace.
      tracer_type: the tracer base class.

    Returns:
      None.

    Raises:
      Exception: ``Leaked trace <trace>. Leaked tracer(s): ...``, as JAX's text.

    Example:
        >>> from tessela_tracer import Trace, Tracer
        >>> check_no_leaks(Trace(), Tracer)
    """
    if not _check_leaks.value:
        return
    leaked = find_leaked_tracers(trace, tracer_type, sys._getframe(3))
    if not leaked:
        return
    listed = "\n\n".join(
        f"{t}\nThis tracer was still referenced when the transformation that made it returned: "
        "the function stored it outside (a global, a list, an attribute or a closure). Return "
        "it from the function instead."
        for t in leaked
    )
    raise Exception(f"Leaked trace {trace}. Leaked tracer(s):\n\n{listed}\n")  # as JAX raises it
