"""The collective family: communication across the members of a named axis.

``psum``, ``pmax``, ``pmin``, ``all_gather``, ``axis_index``, ``ppermute``,
``psum_scatter`` (``reduce_scatter``) and ``all_to_all`` take an
``axis_name`` parameter (a tuple of names). A transformation that maps over a
named axis (``vmap(..., axis_name=...)`` today) binds the name for the code
it traces with :func:`~tessela_tracer._axis_env.axis_frame`; the wrappers below check that every name
is bound and raise JAX's ``NameError`` otherwise. How a collective is
computed is the business of the transformation that owns the axis (batching
computes it over its batch dimension).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Concatenate, ParamSpec

import numpy as np
from tessela_pytree import tree_map

from tessela_tracer._avals import ShapedArray
from tessela_tracer._axis_env import AxisName, bound_axis_sizes
from tessela_tracer._core import Primitive, get_aval_of, register_abstract_eval
from tessela_tracer._dtypes import issubdtype
from tessela_tracer._lax import convert_element_type, div
from tessela_tracer._lax_shape import expand_dims, squeeze
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "all_gather",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "axis_index",
    "axis_index_p",
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "ppermute",
    "ppermute_p",
    "psum",
    "psum_p",
    "psum_scatter",
    "pswapaxes",
    "reduce_scatter_p",
]

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
        >>> from tessela_tracer.extend import axis_frame
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
        >>> from tessela_tracer.extend import axis_frame
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
        >>> from tessela_tracer.extend import axis_frame
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
        >>> from tessela_tracer.extend import axis_frame
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


@_over_leaves
def all_gather(
    x: ArrayLike, /, axis_name: Hashable, *, axis: int = 0, tiled: bool = False
) -> Array:
    """Stack the values of ``x`` of every member of the mapped axis ``axis_name``.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
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
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 4):
        ...     eval_shape(lambda x: all_gather(x, "i"), np.ones(2, np.float32)).shape
        (4, 2)
    """
    names, (size,) = bound_axis_sizes("all_gather", (axis_name,))
    nd = get_aval_of(x).ndim
    if not 0 <= axis + (nd + 1 if axis < 0 else 0) <= nd:
        raise ValueError(f"all_gather axis {axis} is out of bounds for an array of rank {nd}")
    axis %= nd + 1 if not tiled else max(nd, 1)
    out: Array = all_gather_p.bind(x, axis_name=names, axis_size=size, axis=axis, tiled=tiled)
    return out


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
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 3):
        ...     [e.primitive.name for e in make_jaxpr(lambda x: axis_index("i"))(1.0).eqns]
        ['axis_index']
    """
    names, _ = bound_axis_sizes("axis_index", (axis_name,))
    out: Array = axis_index_p.bind(axis_name=names)
    return out


# ----------------------------------------------------------------- ppermute


def _ppermute_abstract_eval(
    x: ShapedArray, *, axis_name: tuple[Hashable, ...], perm: tuple[tuple[int, int], ...]
) -> ShapedArray:
    return x


ppermute_p = Primitive("ppermute")
"""Sends each member's value to another: ``perm`` is a tuple of ``(source, destination)``
pairs; a member that no pair names as destination receives zeros."""
register_abstract_eval(ppermute_p, _ppermute_abstract_eval)


@_over_leaves
def ppermute(x: ArrayLike, /, axis_name: AxisName, perm: Sequence[tuple[int, int]]) -> Array:
    """Send the value of member ``source`` to member ``destination``, for each pair of ``perm``.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
      axis_name: a bound axis name (or a tuple of names, indexed row-major).
      perm: ``(source, destination)`` pairs; no index appears twice as a
        source or twice as a destination.

    Returns:
      The value each member receives (zeros for a member that receives none).

    Raises:
      ValueError: an index repeats or lies outside the axis.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 2):
        ...     make_jaxpr(lambda x: ppermute(x, "i", [(0, 1), (1, 0)]))(np.float32(1)).eqns[0].params
        {'axis_name': ('i',), 'perm': ((0, 1), (1, 0))}
    """
    names, sizes = bound_axis_sizes("ppermute", axis_name)
    size = int(np.prod(sizes))
    pairs = tuple((int(s), int(d)) for s, d in perm)
    sources = [s for s, _ in pairs]
    dests = [d for _, d in pairs]
    if len(set(sources)) != len(sources) or len(set(dests)) != len(dests):
        raise ValueError(
            f"ppermute sources and destinations must be unique, got {pairs}; each member may "
            "send once and receive once."
        )
    if any(not 0 <= i < size for i in sources + dests):
        raise ValueError(
            f"ppermute perm {pairs} names a member outside the axis of size {size}; use "
            f"indices 0 to {size - 1}."
        )
    out: Array = ppermute_p.bind(x, axis_name=names, perm=pairs)
    return out


# ----------------------------------------------------------------- psum_scatter


def _grouped_members(
    fn: str, axis_name: AxisName, axis_index_groups: Sequence[Sequence[int]] | None
) -> tuple[tuple[Hashable, ...], int]:
    # The bound names and their number of members, for a collective without groups.
    if axis_index_groups is not None:
        raise NotImplementedError(f"{fn}(axis_index_groups=...) is not supported.")
    names, sizes = bound_axis_sizes(fn, axis_name)
    return names, int(np.prod(sizes))


def _blocks_unfit(n: int, size: int, tiled: bool) -> str:
    # What a dimension of ``n`` entries must be to give one block per member ("" if it is).
    if tiled:
        return f"a multiple of {size}" if n % size else ""
    return f"equal to {size}" if n != size else ""


def _reduce_scatter_abstract_eval(
    x: ShapedArray,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    scatter_dimension: int,
    tiled: bool,
) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[scatter_dimension] //= axis_size
    else:
        del shape[scatter_dimension]
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


reduce_scatter_p = Primitive("reduce_scatter")
"""Sums over the members and gives member ``i`` the ``i``-th block along ``scatter_dimension``.
Parameters: ``axis_name``, ``axis_size``, ``scatter_dimension``, ``tiled``."""
register_abstract_eval(reduce_scatter_p, _reduce_scatter_abstract_eval)


@_over_leaves
def psum_scatter(
    x: ArrayLike,
    /,
    axis_name: AxisName,
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
    tiled: bool = False,
) -> Array:
    """Sum ``x`` over the members of ``axis_name`` and give each member its block of the sum.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
      axis_name: a bound axis name (or a tuple of names).
      scatter_dimension: the dimension split among the members.
      axis_index_groups: not supported (``None``).
      tiled: split the dimension into blocks (else its size must equal the
        number of members, and it is removed).

    Returns:
      This member's part of the sum.

    Raises:
      ValueError: the dimension does not match the number of members.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 2):
        ...     eval_shape(lambda x: psum_scatter(x, "i", tiled=True), np.ones(4, np.float32)).shape
        (2,)
    """
    names, size = _grouped_members("psum_scatter", axis_name, axis_index_groups)
    shape = get_aval_of(x).shape
    dim = scatter_dimension % max(len(shape), 1)
    n = shape[dim] if shape else 0
    need = _blocks_unfit(n, size, tiled)
    if need:
        raise ValueError(
            f"psum_scatter: dimension {dim} of the operand has size {n}, which must be {need} "
            f"(the number of members of {names}){'' if tiled else '; or pass tiled=True'}."
        )
    out: Array = reduce_scatter_p.bind(
        x, axis_name=names, axis_size=size, scatter_dimension=dim, tiled=bool(tiled)
    )
    return out


# ----------------------------------------------------------------- all_to_all


def _all_to_all_abstract_eval(
    x: ShapedArray,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    split_axis: int,
    concat_axis: int,
    tiled: bool,
) -> ShapedArray:
    shape = list(x.shape)
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


all_to_all_p = Primitive("all_to_all")
"""Member ``i`` splits its value into blocks along ``split_axis`` and sends block ``j`` to
member ``j``, which concatenates what it receives along ``concat_axis``."""
register_abstract_eval(all_to_all_p, _all_to_all_abstract_eval)


@_over_leaves
def all_to_all(
    x: ArrayLike,
    /,
    axis_name: AxisName,
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
    tiled: bool = False,
) -> Array:
    """Exchange blocks between the members of ``axis_name``, as JAX's ``all_to_all``.

    Args:
      x: an array, or a pytree of arrays (each leaf goes on its own, as in JAX).
      axis_name: a bound axis name (or a tuple of names).
      split_axis: the dimension split into one block per member (its size
        must equal the number of members unless ``tiled``).
      concat_axis: where the received blocks are put together.
      axis_index_groups: not supported (``None``).
      tiled: split into blocks and concatenate (else the split dimension is
        removed and a new one of the members' size inserted at ``concat_axis``).

    Returns:
      The blocks this member receives.

    Raises:
      ValueError: the split dimension does not match the number of members.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 2):
        ...     eval_shape(lambda x: all_to_all(x, "i", 0, 1), np.ones((2, 3), np.float32)).shape
        (3, 2)
    """
    names, size = _grouped_members("all_to_all", axis_name, axis_index_groups)
    nd = get_aval_of(x).ndim
    split_axis %= max(nd, 1)
    concat_axis %= max(nd, 1)
    n = get_aval_of(x).shape[split_axis]
    need = _blocks_unfit(n, size, tiled)
    if need:
        raise ValueError(
            f"all_to_all: the split axis {split_axis} has size {n}, which must be {need} (the "
            f"number of members of {names})."
        )
    if not tiled:
        if split_axis < concat_axis:
            concat_axis += 1
            x = expand_dims(x, (concat_axis,))
        elif concat_axis < split_axis:
            x = expand_dims(x, (concat_axis,))
            split_axis += 1
    out: Array = all_to_all_p.bind(
        x, axis_name=names, axis_size=size, split_axis=split_axis, concat_axis=concat_axis,
        tiled=bool(tiled),
    )  # fmt: skip
    if not tiled and split_axis != concat_axis:
        out = squeeze(out, (split_axis,))
    return out


def pswapaxes(
    x: Any,
    /,
    axis_name: AxisName,
    axis: int,
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Any:
    """Swap the mapped axis ``axis_name`` with dimension ``axis`` of ``x`` (an ``all_to_all``).

    Args:
      x: an array whose dimension ``axis`` has one entry per member (or a
        pytree of such arrays).
      axis_name: a bound axis name.
      axis: the dimension swapped with the mapped axis.
      axis_index_groups: not supported (``None``).

    Returns:
      The swapped array.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_tracer.extend import axis_frame
        >>> with axis_frame("i", 2):
        ...     eval_shape(lambda x: pswapaxes(x, "i", 0), np.ones((2, 3), np.float32)).shape
        (2, 3)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
