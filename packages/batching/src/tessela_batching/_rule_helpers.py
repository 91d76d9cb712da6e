"""Rule factories and small helpers shared by the ``_rules_<family>`` modules.

- :func:`defvectorized`, :func:`defbroadcasting` and :func:`defreducer` make
  and register the batching rule of a whole kind of primitive (one-operand
  elementwise, n-ary broadcasting elementwise, reductions over ``axes``);
  each family file calls them for its own primitives.
- :func:`bump` renumbers per-example axes as axes of a batched value.
- :func:`all_at_front` moves every operand's batch to axis 0.
- :func:`batched_flags`, :func:`front` and :func:`out_dims` translate between
  batch dimensions and the "batched at axis 0" flags that sub-jaxprs of
  higher-order primitives use (:func:`~tessela_batching.batch_jaxpr`).

This module registers nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    BDim,
    NotMapped,
    batch_size,
    bdim_at_front,
    moveaxis,
    not_mapped,
    register_batching,
)

__all__ = [
    "all_at_front",
    "batched_flags",
    "bump",
    "defbroadcasting",
    "defreducer",
    "defvectorized",
    "front",
    "out_dims",
]


# ----------------------------------------------------------------- rule factories


def defvectorized(prim: Primitive, /) -> None:
    """Batch a one-operand elementwise primitive by applying it as is.

    Args:
      prim: the primitive; its output keeps the operand's batch dimension.

    Returns:
      None.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> from tessela_batching import vmap
        >>> p = Primitive("vectorized_example")
        >>> register_abstract_eval(p, lambda x: x)
        >>> defvectorized(p)
        >>> print(make_jaxpr(vmap(p.bind, in_axes=1, out_axes=1))(np.ones((2, 3), np.float32)))
        { lambda ; a:f32[2,3]. let b:f32[2,3] = vectorized_example a in (b,) }
    """

    def vectorized_rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any
    ) -> tuple[Array, BDim]:
        (x,), (d,) = args, dims
        return prim.bind(x, **params), d

    register_batching(prim, vectorized_rule)


def _handle_broadcasting(args: Sequence[ArrayLike], dims: Sequence[Any]) -> tuple[list[Any], Any]:
    """Align operands of an n-ary lax op: batched ones at axis 0, ranks equalized."""
    shape, dim = next(
        (get_aval_of(x).shape, d)
        for x, d in zip(args, dims, strict=True)
        if not isinstance(d, NotMapped)
    )
    if all(
        get_aval_of(x).shape == shape and d == dim
        for x, d in zip(args, dims, strict=True)
        if get_aval_of(x).ndim
    ):
        return list(args), dim
    ndim = max(
        get_aval_of(x).ndim + isinstance(d, NotMapped) for x, d in zip(args, dims, strict=False)
    )
    out = []
    for x, d in zip(args, dims, strict=True):
        aval = get_aval_of(x)
        if isinstance(d, NotMapped):
            if aval.ndim and aval.ndim < ndim:
                lead = ndim - aval.ndim
                x = lax.broadcast_in_dim(x, (1,) * lead + aval.shape, range(lead, ndim))
        else:
            x = moveaxis(x, d, 0)
            if aval.ndim < ndim:
                rank = get_aval_of(x).shape
                x = lax.broadcast_in_dim(
                    x, rank[:1] + (1,) * (ndim - aval.ndim) + rank[1:],
                    [0, *range(ndim - aval.ndim + 1, ndim)],
                )  # fmt: skip
        out.append(x)
    return out, 0


def defbroadcasting(prim: Primitive, /) -> None:
    """Batch an n-ary elementwise primitive whose operands broadcast (scalars, size 1).

    Batched operands are moved to axis 0; unbatched ones gain leading size-1
    axes so ranks agree (scalars are left alone).

    Args:
      prim: the primitive.

    Returns:
      None.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> from tessela_batching import vmap
        >>> p = Primitive("broadcasting_example")
        >>> register_abstract_eval(p, lambda x, y: x)
        >>> defbroadcasting(p)
        >>> x, y = np.ones((3, 2), np.float32), np.ones(2, np.float32)
        >>> eval_shape(vmap(p.bind, in_axes=(1, None)), x, y).shape
        (2, 3)
    """

    def broadcasting_rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any
    ) -> tuple[Array, BDim]:
        xs, d = _handle_broadcasting(args, dims)
        return prim.bind(*xs, **params), d

    register_batching(prim, broadcasting_rule)


def defreducer(prim: Primitive, /) -> None:
    """Batch a primitive reducing over its ``axes`` parameter.

    Args:
      prim: the primitive (``reduce_sum``, ``argmax``, ...).

    Returns:
      None.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> from tessela_batching import vmap
        >>> p = Primitive("reducer_example")
        >>> register_abstract_eval(
        ...     p, lambda x, *, axes: x.update(shape=tuple(
        ...         n for i, n in enumerate(x.shape) if i not in axes)))
        >>> defreducer(p)
        >>> f = vmap(lambda x: p.bind(x, axes=(1,)), in_axes=1)
        >>> eval_shape(f, np.ones((2, 3, 4), np.float32)).shape
        (3, 2)
    """

    def reducer_rule(
        args: Sequence[ArrayLike], dims: Sequence[int], *, axes: Sequence[int], **params: Any
    ) -> tuple[Array, int]:
        (x,), (d,) = args, dims
        new_axes = bump(axes, d)
        out_d = d - sum(a < d for a in new_axes)
        return prim.bind(x, axes=new_axes, **params), out_d

    register_batching(prim, reducer_rule)


# ----------------------------------------------------------------- axes and flags


def bump(axes: Sequence[int], d: int, /) -> tuple[int, ...]:
    """Renumber per-example axes as axes of the batched value (batch at ``d``).

    Args:
      axes: axes of the per-example value.
      d: the batch dimension of the batched value.

    Returns:
      The same axes numbered in the batched value.

    Example:
        >>> bump((0, 1, 3), 1)
        (0, 2, 4)
    """
    return tuple(a + (a >= d) for a in axes)


def batched_flags(dims: Sequence[BDim], /) -> list[bool]:
    """Which operands are batched.

    Args:
      dims: batch dimensions (``not_mapped`` for unbatched operands).

    Returns:
      One flag per operand.

    Example:
        >>> batched_flags([0, not_mapped, 2])
        [True, False, True]
    """
    return [not isinstance(d, NotMapped) for d in dims]


def all_at_front(args: Sequence[ArrayLike], dims: Sequence[BDim], /) -> list[Array]:
    """Every operand with its batch at axis 0 (an unbatched one broadcast to the batch size).

    Args:
      args: the operands.
      dims: their batch dimensions.

    Returns:
      The operands, all batched at axis 0.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> f = lambda a, b: all_at_front([a, b], [1, not_mapped])
        >>> [x.shape for x in eval_shape(f, np.ones((2, 3)), np.ones(4))]
        [(3, 2), (3, 4)]
    """
    size = batch_size(args, dims)
    return [bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True)]


def front(
    args: Sequence[ArrayLike], dims: Sequence[BDim], force: Sequence[bool], size: int, /
) -> list[ArrayLike]:
    """Batched (or forced) values with the batch at axis 0; the others as they are.

    Args:
      args: the values.
      dims: their batch dimensions.
      force: which values must come out batched even if they are not.
      size: the batch size.

    Returns:
      The values, ready for a jaxpr from :func:`~tessela_batching.batch_jaxpr`.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> f = lambda a, b: front([a, b], [1, not_mapped], [True, True], 3)
        >>> [x.shape for x in eval_shape(f, np.ones((2, 3)), np.ones(3))]
        [(3, 2), (3, 3)]
    """
    return [
        bdim_at_front(x, d, size) if f or not isinstance(d, NotMapped) else x
        for x, d, f in zip(args, dims, force, strict=True)
    ]


def out_dims(flags: Sequence[bool], /, at: int = 0) -> list[BDim]:
    """Batch dimensions of results batched (or not) as ``flags`` say.

    Args:
      flags: which results are batched.
      at: the axis of the batched ones.

    Returns:
      One batch dimension per result.

    Example:
        >>> out_dims([True, False], at=1)
        [1, not_mapped]
    """
    return [at if b else not_mapped for b in flags]
