"""The collective family: communication across the members of a named axis.

``psum``, ``pmax``, ``pmin``, ``all_gather`` and ``axis_index`` take an
``axis_name`` parameter (a tuple of names). A transformation that maps over a
named axis (``vmap(..., axis_name=...)`` today) binds the name for the code
it traces with :func:`axis_frame`; the wrappers below check that every name
is bound and raise JAX's ``NameError`` otherwise. How a collective is
computed is the business of the transformation that owns the axis (batching
computes it over its batch dimension).
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, get_aval_of, register_abstract_eval
from tessela_tracer._lax import convert_element_type, div

__all__ = [
    "all_gather",
    "all_gather_p",
    "axis_frame",
    "axis_index",
    "axis_index_p",
    "axis_size_of",
    "bound_axis_sizes",
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "psum",
    "psum_p",
]

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


# ----------------------------------------------------------------- psum / pmax / pmin


def _same_aval(x: ShapedArray, *, axis_name: tuple[Hashable, ...]) -> ShapedArray:
    return x


psum_p = Primitive("psum")
"""Sum over the members of the named axes ``axis_name`` (a tuple)."""
register_abstract_eval(psum_p, _same_aval)
pmax_p = Primitive("pmax")
"""Maximum over the members of the named axes ``axis_name``."""
register_abstract_eval(pmax_p, _same_aval)
pmin_p = Primitive("pmin")
"""Minimum over the members of the named axes ``axis_name``."""
register_abstract_eval(pmin_p, _same_aval)


def psum(x: Any, /, axis_name: AxisName) -> Any:
    """Sum ``x`` over the members of the mapped axis (or axes) ``axis_name``.

    Args:
      x: an array.
      axis_name: a name bound by an enclosing ``vmap(..., axis_name=...)``, or a
        tuple of names.

    Returns:
      The sum, the same for every member.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 4):
        ...     print(make_jaxpr(lambda x: psum(x, "i"))(1.0))
        { lambda ; a:f32[]. let b:f32[] = psum[axis_name=('i',)] a in (b,) }
    """
    names, _ = bound_axis_sizes("psum", axis_name)
    return psum_p.bind(x, axis_name=names)


def pmax(x: Any, /, axis_name: AxisName) -> Any:
    """Maximum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name or a tuple of names.

    Returns:
      The maximum, the same for every member.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 4):
        ...     [e.primitive.name for e in make_jaxpr(lambda x: pmax(x, "i"))(1.0).eqns]
        ['pmax']
    """
    names, _ = bound_axis_sizes("pmax", axis_name)
    return pmax_p.bind(x, axis_name=names)


def pmin(x: Any, /, axis_name: AxisName) -> Any:
    """Minimum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name or a tuple of names.

    Returns:
      The minimum, the same for every member.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 4):
        ...     [e.primitive.name for e in make_jaxpr(lambda x: pmin(x, "i"))(1.0).eqns]
        ['pmin']
    """
    names, _ = bound_axis_sizes("pmin", axis_name)
    return pmin_p.bind(x, axis_name=names)


def pmean(x: Any, /, axis_name: AxisName) -> Any:
    """Mean of ``x`` over the members of the mapped axis ``axis_name``.

    Integer inputs give a float32 result.

    Args:
      x: an array.
      axis_name: a bound axis name or a tuple of names.

    Returns:
      The mean, the same for every member.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 4):
        ...     [e.primitive.name for e in make_jaxpr(lambda x: pmean(x, "i"))(1.0).eqns]
        ['psum', 'div']
    """
    names, sizes = bound_axis_sizes("pmean", axis_name)
    total = psum_p.bind(x, axis_name=names)
    dtype = get_aval_of(total).dtype
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.dtype(np.float32)
        total = convert_element_type(total, dtype)
    return div(total, np.asarray(int(np.prod(sizes)), dtype))


# ----------------------------------------------------------------- all_gather


def _all_gather_abstract_eval(
    x: ShapedArray, *, axis_name: tuple[Hashable, ...], axis_size: int, axis: int, tiled: bool
) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[axis] *= axis_size
    else:
        shape.insert(axis, axis_size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


all_gather_p = Primitive("all_gather")
"""Gathers the members' values along a new (or, ``tiled``, an existing) axis.
Parameters: ``axis_name`` (a tuple of one name), ``axis_size``, ``axis``, ``tiled``."""
register_abstract_eval(all_gather_p, _all_gather_abstract_eval)


def all_gather(x: Any, /, axis_name: Hashable, *, axis: int = 0, tiled: bool = False) -> Any:
    """Stack the values of ``x`` of every member of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name (one name).
      axis: where the gathered axis goes in the result.
      tiled: concatenate along ``axis`` instead of stacking.

    Returns:
      The gathered array, the same for every member.

    Raises:
      ValueError: ``axis`` is out of bounds.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> with axis_frame("i", 4):
        ...     eval_shape(lambda x: all_gather(x, "i"), np.ones(2, np.float32)).shape
        (4, 2)
    """
    names, (size,) = bound_axis_sizes("all_gather", (axis_name,))
    nd = get_aval_of(x).ndim
    if not 0 <= axis + (nd + 1 if axis < 0 else 0) <= nd:
        raise ValueError(f"all_gather axis {axis} is out of bounds for an array of rank {nd}")
    axis %= nd + 1 if not tiled else max(nd, 1)
    return all_gather_p.bind(x, axis_name=names, axis_size=size, axis=axis, tiled=tiled)


# ----------------------------------------------------------------- axis_index


def _axis_index_abstract_eval(*, axis_name: tuple[Hashable, ...]) -> ShapedArray:
    return ShapedArray((), np.dtype(np.int32))


axis_index_p = Primitive("axis_index")
"""The int32 position of the current member along ``axis_name`` (a tuple of one name)."""
register_abstract_eval(axis_index_p, _axis_index_abstract_eval)


def axis_index(axis_name: Hashable, /) -> Any:
    """The position of the current member along the mapped axis ``axis_name``.

    Args:
      axis_name: a bound axis name.

    Returns:
      An int32 scalar (per member).

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 3):
        ...     [e.primitive.name for e in make_jaxpr(lambda x: axis_index("i"))(1.0).eqns]
        ['axis_index']
    """
    names, _ = bound_axis_sizes("axis_index", (axis_name,))
    return axis_index_p.bind(axis_name=names)
