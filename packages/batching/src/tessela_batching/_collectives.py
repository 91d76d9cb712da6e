"""Collectives over named mapped axes: ``psum``, ``pmean``, ``pmax``, ``pmin``,
``all_gather`` and ``axis_index``.

Each is an :class:`AxisPrimitive` whose ``axis_name`` parameter is a tuple of
names. The ``vmap`` whose ``axis_name`` is among them computes it over its
batch axis (``named_rule``) and binds it again for the other names; batching
traces of other axes batch it like an elementwise operation. A name bound by
no enclosing ``vmap`` raises ``NameError`` when the collective is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer.extend import ShapedArray, get_aval_of, register_abstract_eval

from tessela_batching._core import (
    AxisPrimitive,
    NotMapped,
    axis_size_of,
    broadcast,
    moveaxis,
    not_mapped,
    register_batching,
)

__all__ = ["all_gather", "axis_index", "pmax", "pmean", "pmin", "psum"]

AxisName = Any


def _names(axis_name: AxisName) -> tuple[Any, ...]:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _bound_sizes(fn: str, names: Sequence[Any]) -> list[int]:
    sizes = []
    for n in names:
        size = axis_size_of(n)
        if size is None:
            raise NameError(
                f"Found an unbound axis name: {n}. To fix this, call {fn} inside a function "
                f"transformed by vmap(..., axis_name={n!r})."
            )
        sizes.append(size)
    return sizes


def _rest(axis_name: tuple[Any, ...], done: Any) -> tuple[Any, ...]:
    return tuple(n for n in axis_name if n != done)


# ----------------------------------------------------------------- psum / pmax / pmin


def _defreduction(
    name: str, reduce: Callable[[Any, Sequence[int]], Any], unbatched: Callable[[Any, int], Any]
) -> AxisPrimitive:
    def named_rule(
        vals: Sequence[Any], dims: Sequence[Any], axis: Any, size: int, *,
        axis_name: tuple[Any, ...],
    ) -> tuple[Any, Any]:  # fmt: skip
        (x,), (d,) = vals, dims
        out = unbatched(x, size) if isinstance(d, NotMapped) else reduce(x, (d,))
        rest = _rest(axis_name, axis)
        return (prim.bind(out, axis_name=rest) if rest else out), not_mapped

    def reduction_rule(args: Sequence[Any], dims: Sequence[Any], *, axis_name: Any) -> Any:
        return prim.bind(args[0], axis_name=axis_name), dims[0]

    prim = AxisPrimitive(name, named_rule)
    register_abstract_eval(prim, lambda x, *, axis_name: x)
    register_batching(prim, reduction_rule)
    return prim


def _times_size(x: Any, n: int) -> Any:
    return lax.mul(x, lax.convert_element_type(n, get_aval_of(x).dtype))


def _same(x: Any, n: int) -> Any:
    return x


psum_p = _defreduction("psum", lax.reduce_sum, _times_size)
pmax_p = _defreduction("pmax", lax.reduce_max, _same)
pmin_p = _defreduction("pmin", lax.reduce_min, _same)


def psum(x: Any, /, axis_name: AxisName) -> Any:
    """Sum ``x`` over the members of the mapped axis (or axes) ``axis_name``.

    Args:
      x: an array.
      axis_name: a name given to ``vmap(..., axis_name=...)``, or a tuple of names.

    Returns:
      The sum, the same for every member.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_batching import vmap
        >>> f = vmap(lambda x: psum(x, "i"), axis_name="i")
        >>> make_jaxpr(f)(np.ones(4, np.float32)).eqns[0].primitive
        reduce_sum
    """
    names = _names(axis_name)
    _bound_sizes("psum", names)
    return psum_p.bind(x, axis_name=names)


def pmax(x: Any, /, axis_name: AxisName) -> Any:
    """Maximum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name or a tuple of names.

    Returns:
      The maximum, the same for every member.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_batching import vmap
        >>> eval_shape(vmap(lambda x: pmax(x, "i"), axis_name="i"), np.ones((4, 2))).shape
        (4, 2)
    """
    names = _names(axis_name)
    _bound_sizes("pmax", names)
    return pmax_p.bind(x, axis_name=names)


def pmin(x: Any, /, axis_name: AxisName) -> Any:
    """Minimum of ``x`` over the members of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name or a tuple of names.

    Returns:
      The minimum, the same for every member.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_batching import vmap
        >>> eval_shape(vmap(lambda x: pmin(x, "i"), axis_name="i"), np.ones((4, 2))).shape
        (4, 2)
    """
    names = _names(axis_name)
    _bound_sizes("pmin", names)
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
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_batching import vmap
        >>> eval_shape(vmap(lambda x: pmean(x, "i"), axis_name="i"), np.ones(4, np.int32)).dtype
        dtype('float32')
    """
    names = _names(axis_name)
    n = int(np.prod(_bound_sizes("pmean", names)))
    total = psum_p.bind(x, axis_name=names)
    dt = get_aval_of(total).dtype
    if not np.issubdtype(dt, np.inexact):
        total = lax.convert_element_type(total, np.float32)
        dt = np.dtype(np.float32)
    return lax.div(total, lax.convert_element_type(n, dt))


# ----------------------------------------------------------------- all_gather


def _all_gather_abstract_eval(
    x: ShapedArray, *, axis_name: tuple[Any, ...], axis_size: int, axis: int, tiled: bool
) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[axis] *= axis_size
    else:
        shape.insert(axis, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _all_gather_named_rule(
    vals: Sequence[Any], dims: Sequence[Any], axis_name_: Any, size: int, *,
    axis_name: tuple[Any, ...], axis_size: int, axis: int, tiled: bool,
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (d,) = vals, dims
    out = broadcast(x, size, axis) if isinstance(d, NotMapped) else moveaxis(x, d, axis)
    if tiled:
        shape = list(get_aval_of(out).shape)
        shape[axis : axis + 2] = [shape[axis] * shape[axis + 1]]
        out = lax.reshape(out, shape)
    return out, not_mapped


all_gather_p = AxisPrimitive("all_gather", _all_gather_named_rule)
register_abstract_eval(all_gather_p, _all_gather_abstract_eval)


def _all_gather_rule(args: Sequence[Any], dims: Sequence[Any], *, axis: int, **params: Any) -> Any:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return all_gather_p.bind(x, axis=axis + 1, **params), 0


register_batching(all_gather_p, _all_gather_rule)


def all_gather(x: Any, /, axis_name: Any, *, axis: int = 0, tiled: bool = False) -> Any:
    """Stack the values of ``x`` of every member of the mapped axis ``axis_name``.

    Args:
      x: an array.
      axis_name: a bound axis name (one name).
      axis: where the gathered axis goes in the result.
      tiled: concatenate along ``axis`` instead of stacking.

    Returns:
      The gathered array, the same for every member.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_batching import vmap
        >>> eval_shape(vmap(lambda x: all_gather(x, "i"), axis_name="i"), np.ones((4, 2))).shape
        (4, 4, 2)
    """
    (size,) = _bound_sizes("all_gather", (axis_name,))
    nd = get_aval_of(x).ndim
    if not 0 <= axis + (nd + 1 if axis < 0 else 0) <= nd:
        raise ValueError(f"all_gather axis {axis} is out of bounds for an array of rank {nd}")
    axis %= nd + 1 if not tiled else max(nd, 1)
    return all_gather_p.bind(x, axis_name=(axis_name,), axis_size=size, axis=axis, tiled=tiled)


# ----------------------------------------------------------------- axis_index


def _axis_index_named_rule(
    vals: Sequence[Any], dims: Sequence[Any], axis: Any, size: int, *, axis_name: tuple[Any, ...]
) -> tuple[Any, Any]:
    return lax.iota(np.int32, size), 0


axis_index_p = AxisPrimitive("axis_index", _axis_index_named_rule)
register_abstract_eval(axis_index_p, lambda *, axis_name: ShapedArray((), np.int32))


def axis_index(axis_name: Any, /) -> Any:
    """The position of the current member along the mapped axis ``axis_name``.

    Args:
      axis_name: a bound axis name.

    Returns:
      An int32 scalar (per member).

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_batching import vmap
        >>> f = vmap(lambda x: axis_index("i"), axis_name="i")
        >>> make_jaxpr(f)(np.ones(3)).out_avals
        [ShapedArray(int32[3])]
    """
    _bound_sizes("axis_index", (axis_name,))
    return axis_index_p.bind(axis_name=(axis_name,))
