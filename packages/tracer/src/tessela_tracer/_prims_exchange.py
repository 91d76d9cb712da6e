"""The collectives that move blocks between the members of a named axis.

``all_gather`` stacks (or, ``tiled``, concatenates) every member's value;
``ppermute`` sends each member's value to another; ``psum_scatter``
(``reduce_scatter``) sums over the members and hands each member its block;
``all_to_all`` (and ``pswapaxes``, built on it) exchanges blocks. Each takes
a pytree and goes leaf by leaf, as JAX's do. The axis environment they check
their names against, and the reductions over the members, are in
``_prims_collective``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, get_aval_of, register_abstract_eval
from tessela_tracer._lax_shape import expand_dims, squeeze
from tessela_tracer._prims_collective import (
    AxisName,
    _over_leaves,
    bound_axis_sizes,
)
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "all_gather",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "ppermute",
    "ppermute_p",
    "psum_scatter",
    "pswapaxes",
    "reduce_scatter_p",
]

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
