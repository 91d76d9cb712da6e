"""The axis environment: the named axes that enclosing transformations map over.

A transformation that maps over a named axis (``vmap(..., axis_name=...)``
today) binds the name for the code it traces with :func:`axis_frame`; the
collectives (``_prims_collective``) and ``lax.axis_size`` read the bound
sizes here and raise JAX's ``NameError`` for an unbound name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Iterator, Sequence
from contextvars import ContextVar

__all__ = ["AxisName", "axis_frame", "axis_size_of", "bound_axis_sizes"]

AxisName = Hashable | Sequence[Hashable]

# ----------------------------------------------------------------- the axis environment

_axis_env: ContextVar[tuple[tuple[Hashable, int], ...]] = ContextVar("tessela_axis_env", default=())


@contextlib.contextmanager
def axis_frame(name: Hashable | None, size: int, /) -> Iterator[None]:
    """Bind ``name`` to a mapped axis of ``size`` members inside the block.

    Args:
      name: the axis name (``None`` binds nothing).
      size: the number of members.

    Returns:
      A context manager.

    Example:
        >>> with axis_frame("i", 4):
        ...     axis_size_of("i")
        4
        >>> axis_size_of("i") is None
        True
    """
    if name is None:
        yield
        return
    token = _axis_env.set((*_axis_env.get(), (name, int(size))))
    try:
        yield
    finally:
        _axis_env.reset(token)


def axis_size_of(name: Hashable, /) -> int | None:
    """The size of the innermost bound axis called ``name``, or None.

    Args:
      name: an axis name.

    Returns:
      Its size, or None when no enclosing transformation binds it.

    Example:
        >>> axis_size_of("unbound_example") is None
        True
    """
    for n, size in reversed(_axis_env.get()):
        if n == name:
            return size
    return None


def _names(axis_name: AxisName) -> tuple[Hashable, ...]:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def bound_axis_sizes(fn: str, axis_name: AxisName, /) -> tuple[tuple[Hashable, ...], list[int]]:
    """The names in ``axis_name`` and their sizes; JAX's NameError for an unbound one.

    Args:
      fn: the collective's name, for the error message.
      axis_name: one name or a tuple of names.

    Returns:
      ``(names, sizes)``.

    Raises:
      NameError: a name is bound by no enclosing transformation.

    Example:
        >>> with axis_frame("i", 2):
        ...     bound_axis_sizes("psum", "i")
        (('i',), [2])
    """
    names = _names(axis_name)
    sizes = []
    for n in names:
        size = axis_size_of(n)
        if size is None:
            raise NameError(
                f"Found an unbound axis name: {n}. To fix this, call {fn} inside a function "
                f"transformed by vmap(..., axis_name={n!r})."
            )
        sizes.append(size)
    return names, sizes
