"""The collective family: communication across the members of a named axis.

``psum``, ``pmax``, ``pmin``, ``all_gather``, ``axis_index``, ``ppermute``,
``psum_scatter`` (``reduce_scatter``) and ``all_to_all`` take an
``axis_name`` parameter (a tuple of names). A transformation that maps over a
named axis (``vmap(..., axis_name=...)`` today) binds the name for the code
it traces with :func:`axis_frame`; the wrappers check that every name is
bound and raise JAX's ``NameError`` otherwise. How a collective is computed
is the business of the transformation that owns the axis (batching computes
it over its batch dimension).

This module holds the axis environment, the reductions over the members
(``psum``, ``pmax``, ``pmin``, ``pmean``) and ``axis_index``; the collectives
that move blocks between members (``all_gather``, ``ppermute``,
``psum_scatter``, ``all_to_all``, ``pswapaxes``) are in ``_prims_exchange``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, Concatenate, ParamSpec

import numpy as np
from tessela_pytree import tree_map

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, get_aval_of, register_abstract_eval
from tessela_tracer._dtypes import issubdtype
from tessela_tracer._lax import convert_element_type, div
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
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


_P = ParamSpec("_P")


def _over_leaves(
    collective: Callable[Concatenate[ArrayLike, _P], Array],
) -> Callable[Concatenate[Any, _P], Any]:
    """``collective`` of one array, applied to every leaf of a pytree ``x`` (as JAX's are:
    ``pmean(grads, "batch")`` averages every gradient)."""

    @functools.wraps(collective)
    def over_leaves(x: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> Any:
        return tree_map(lambda leaf: collective(leaf, *args, **kwargs), x)

    return over_leaves


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


@_over_leaves
def psum(x: ArrayLike, /, axis_name: AxisName) -> Array:
    """Sum ``x`` over the members of the mapped axis (or axes) ``axis_name``.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
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
    out: Array = psum_p.bind(x, axis_name=names)
    return out


@_over_leaves
def pmax(x: ArrayLike, /, axis_name: AxisName) -> Array:
    """Maximum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
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
    out: Array = pmax_p.bind(x, axis_name=names)
    return out


@_over_leaves
def pmin(x: ArrayLike, /, axis_name: AxisName) -> Array:
    """Minimum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x, axis_name: as :func:`pmax`.

    Returns:
      The minimum, the same for every member.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> with axis_frame("i", 2):
        ...     make_jaxpr(lambda x: pmin(x, "i"))(1.0).eqns[0].params
        {'axis_name': ('i',)}
    """
    names, _ = bound_axis_sizes("pmin", axis_name)
    out: Array = pmin_p.bind(x, axis_name=names)
    return out


@_over_leaves
def pmean(x: ArrayLike, /, axis_name: AxisName) -> Array:
    """Mean of ``x`` over the members of the mapped axis ``axis_name``.

    Integer inputs give a float32 result.

    Args:
      x, axis_name: as :func:`pmax`.

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
    if not issubdtype(dtype, np.inexact):  # bfloat16 stays bfloat16
        dtype = np.dtype(np.float32)
        total = convert_element_type(total, dtype)
    return div(total, np.asarray(int(np.prod(sizes)), dtype))


# ----------------------------------------------------------------- axis_index


def _axis_index_abstract_eval(*, axis_name: tuple[Hashable, ...]) -> ShapedArray:
    return ShapedArray((), np.dtype(np.int32))


axis_index_p = Primitive("axis_index")
"""The int32 position of the current member along ``axis_name`` (a tuple of one name)."""
register_abstract_eval(axis_index_p, _axis_index_abstract_eval)


def axis_index(axis_name: Hashable, /) -> Array:
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
    out: Array = axis_index_p.bind(axis_name=names)
    return out
