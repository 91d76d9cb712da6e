"""The batching trace: ``BatchTracer``, ``BatchTrace`` and the rule table.

A ``BatchTracer`` carries a value that has one extra axis (its batch
dimension, ``bdim``) compared with what the traced function sees, or no extra
axis at all (``not_mapped``). ``BatchTrace.process_primitive`` looks up the
primitive's batching rule and runs it under the parent trace, on the unwrapped
values and their batch dimensions.

Collectives (``psum``, ``all_gather``, ...) are registered with
:func:`register_collective_batching`: their rules also receive the running
trace's :class:`BatchAxis`, and run even on unbatched operands when that
trace's ``vmap`` owns one of the names they reduce over. The names themselves
are bound by ``vmap`` in the tracer's axis environment
(``tessela_tracer.extend.axis_frame``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from typing import Any, NamedTuple

from tessela_tracer import lax
from tessela_tracer.extend import (
    ClosedJaxpr,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    eval_jaxpr,
    get_aval_of,
    get_current_trace,
    new_trace,
    set_current_trace,
    trace_with_aux,
)
from tessela_tracer.typing import Array, ArrayLike, Value, unchanged

__all__ = [
    "BatchAxis",
    "BatchTrace",
    "BatchTracer",
    "BatchingRule",
    "CollectiveBatchingRule",
    "NotMapped",
    "batch_jaxpr",
    "batch_size",
    "batched_eval",
    "bdim_at_front",
    "broadcast",
    "moveaxis",
    "not_mapped",
    "register_batching",
    "register_collective_batching",
    "rule_axis_name",
]


class NotMapped:
    """The type of :data:`not_mapped`: a value with no batch dimension."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "not_mapped"


not_mapped = NotMapped()
"""Batch dimension of a value that is the same for every batch member."""

BDim = int | NotMapped
BatchingRule = Callable[..., tuple[Any, Any]]

_batching_rules: dict[Primitive, BatchingRule] = {}


def register_batching(prim: Primitive, rule: BatchingRule, /) -> None:
    """Register how ``vmap`` batches a primitive.

    The rule is called as ``rule(batched_args, batch_dims, **params)`` where
    ``batch_dims[i]`` is the axis of ``batched_args[i]`` that is mapped over,
    or ``not_mapped``. It returns ``(out, out_bdim)`` (lists of both for
    primitives with multiple results). At least one argument is batched when
    the rule runs; operations it binds are applied by the enclosing trace.

    Args:
      prim: the primitive.
      rule: the batching rule.

    Returns:
      None.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> twice_p = Primitive("twice_batch_example")
        >>> register_abstract_eval(twice_p, lambda x: x)
        >>> register_batching(twice_p, lambda args, dims: (twice_p.bind(args[0]), dims[0]))
        >>> from tessela_batching import vmap
        >>> make_jaxpr(vmap(twice_p.bind))(np.ones((4, 2), np.float32)).out_avals
        [ShapedArray(float32[4,2])]
    """
    _batching_rules[prim] = rule


class BatchAxis(NamedTuple):
    """The mapped axis of a running batching trace.

    Attributes:
      name: the ``axis_name`` given to ``vmap`` (None when unnamed).
      size: the batch size.
    """

    name: Hashable | None
    size: int


CollectiveBatchingRule = Callable[..., tuple[Any, Any]]

_collectives: set[Primitive] = set()
_running_axis: ContextVar[BatchAxis | None] = ContextVar(
    "tessela_batching_running_axis", default=None
)


def register_collective_batching(prim: Primitive, rule: CollectiveBatchingRule, /) -> None:
    """Register how ``vmap`` batches a collective (a primitive over named axes).

    A collective has an ``axis_name`` parameter, a tuple of axis names. Its
    rule is called as ``rule(axis, batched_args, batch_dims, **params)``,
    ``axis`` being the :class:`BatchAxis` of the running batching trace, and
    returns ``(out, out_bdim)`` as a :func:`register_batching` rule does. It
    runs whenever an operand is batched, and also when none is but
    ``axis.name`` is among ``params["axis_name"]``: that ``vmap`` owns the
    axis, so the rule computes the collective over its batch dimension and
    binds the primitive again for the remaining names. For any other axis the
    rule batches the primitive like an ordinary one.

    Args:
      prim: the primitive.
      rule: the collective batching rule.

    Returns:
      None.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, lax
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> pfirst_p = Primitive("pfirst_example")  # member 0's value, for every member
        >>> register_abstract_eval(pfirst_p, lambda x, *, axis_name: x)
        >>> def pfirst_rule(axis, args, dims, *, axis_name):
        ...     (x,), (d,) = args, dims
        ...     if axis.name not in axis_name:  # another vmap's axis: elementwise
        ...         return pfirst_p.bind(x, axis_name=axis_name), d
        ...     if isinstance(d, NotMapped):
        ...         return x, not_mapped
        ...     return lax.index_in_dim(x, 0, d, keepdims=False), not_mapped
        >>> register_collective_batching(pfirst_p, pfirst_rule)
        >>> from tessela_batching import vmap
        >>> f = vmap(lambda x: pfirst_p.bind(x, axis_name=("i",)), axis_name="i")
        >>> eval_shape(f, np.ones((4, 2), np.float32)).shape
        (4, 2)
    """
    _collectives.add(prim)
    register_batching(prim, functools.partial(_collective_rule, rule))


def _collective_rule(
    rule: CollectiveBatchingRule, args: Sequence[Any], dims: Sequence[Any], /, **params: Any
) -> tuple[Any, Any]:
    axis = _running_axis.get()
    assert axis is not None
    return rule(axis, args, dims, **params)


def rule_axis_name() -> Hashable | None:
    """The axis name of the batching trace whose rule is running (for nested batching)."""
    axis = _running_axis.get()
    return None if axis is None else axis.name


# ----------------------------------------------------------------- helpers


def moveaxis(x: ArrayLike, src: int, dst: int, /) -> Array:
    """Move axis ``src`` of ``x`` to position ``dst`` (a no-op when equal).

    Args:
      x: an array or tracer.
      src: the axis to move.
      dst: where it goes.

    Returns:
      ``x`` transposed.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda x: moveaxis(x, 0, 2), np.ones((2, 3, 4), np.float32)).shape
        (3, 4, 2)
    """
    if src == dst:
        return unchanged(x)
    perm = list(range(get_aval_of(x).ndim))
    perm.remove(src)
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def broadcast(x: ArrayLike, size: int, axis: int, /) -> Array:
    """Insert a new axis of ``size`` at ``axis``, repeating ``x`` along it.

    Args:
      x: an array, tracer or scalar.
      size: the new axis' length.
      axis: its position in the result.

    Returns:
      The broadcast array.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda x: broadcast(x, 5, 1), np.ones((2, 3), np.float32)).shape
        (2, 5, 3)
    """
    shape = list(get_aval_of(x).shape)
    shape.insert(axis, size)
    dims = [i for i in range(len(shape)) if i != axis]
    return lax.broadcast_in_dim(x, shape, dims)


def batch_size(args: Sequence[ArrayLike], dims: Sequence[BDim], /) -> int:
    """The batch size of a rule's operands: the length of the first mapped axis.

    Args:
      args: the operands a batching rule received.
      dims: their batch dimensions (``not_mapped`` for unbatched ones).

    Returns:
      The size of the batch axis.

    Example:
        >>> import numpy as np
        >>> batch_size([np.zeros(3), np.zeros((2, 5))], [not_mapped, 1])
        5
    """
    for x, d in zip(args, dims, strict=True):
        if not isinstance(d, NotMapped):
            return int(get_aval_of(x).shape[d])
    raise ValueError("a batching rule ran with no batched operand")


def bdim_at_front(x: ArrayLike, bdim: BDim, size: int, /) -> Array:
    """Make the batch dimension of ``x`` axis 0, broadcasting unbatched values.

    Args:
      x: the value.
      bdim: its batch dimension or ``not_mapped``.
      size: the batch size.

    Returns:
      ``x`` with the batch at axis 0.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda x: bdim_at_front(x, not_mapped, 4), np.ones(3, np.float32)).shape
        (4, 3)
    """
    if isinstance(bdim, NotMapped):
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


# ----------------------------------------------------------------- trace


class BatchTracer(Tracer):
    """A value seen by the vmapped function: ``val`` with ``batch_dim`` mapped over."""

    __slots__ = ("batch_dim", "val")

    def __init__(self, trace: BatchTrace, val: ArrayLike, batch_dim: BDim) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        """The per-example abstract value (``val``'s without the batch axis)."""
        a = get_aval_of(self.val)
        if isinstance(self.batch_dim, NotMapped):
            return a
        shape = a.shape[: self.batch_dim] + a.shape[self.batch_dim + 1 :]
        return ShapedArray(shape, a.dtype, a.weak_type)


class BatchTrace(Trace):
    """The trace of one ``vmap``: maps every primitive over one axis.

    Attributes:
      axis_name: the name collectives use for this axis, or None.
      axis_size: the batch size.
    """

    __slots__ = ("axis_name", "axis_size")
    tracer_name = "BatchTracer"

    def __init__(
        self, axis_name: Hashable | None, axis_size: int, parent: Trace | None = None
    ) -> None:
        super().__init__(parent if parent is not None else get_current_trace())
        self.axis_name = axis_name
        self.axis_size = axis_size

    def unwrap(self, x: ArrayLike) -> tuple[ArrayLike, BDim]:
        """Split ``x`` into its value and batch dimension for this trace."""
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        return x, not_mapped

    def wrap(self, val: ArrayLike, bdim: BDim) -> BatchTracer:
        """A tracer of this trace for ``val`` batched along ``bdim``."""
        return BatchTracer(self, val, bdim)

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Value | list[Value]:
        vals: list[object] = []
        dims: list[BDim] = []
        for x in args:
            if isinstance(x, BatchTracer) and x._trace is self:
                vals.append(x.val)
                dims.append(x.batch_dim)
            else:
                vals.append(x)
                dims.append(not_mapped)
        assert self.parent is not None
        if all(isinstance(d, NotMapped) for d in dims) and not (
            prim in _collectives and self.axis_name in params["axis_name"]
        ):
            with set_current_trace(self.parent):
                unbatched: Value | list[Value] = prim.bind(*vals, **params)
            return unbatched
        rule = _batching_rules.get(prim)
        if rule is None:
            raise NotImplementedError(
                f"Batching rule for '{prim.name}' not implemented; register one with "
                "tessela_batching.register_batching(prim, rule)."
            )
        token = _running_axis.set(BatchAxis(self.axis_name, self.axis_size))
        try:
            with set_current_trace(self.parent):
                out, out_dim = rule(vals, dims, **params)
        finally:
            _running_axis.reset(token)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim, strict=True)]
        return self.wrap(out, out_dim)


# ----------------------------------------------------------------- jaxprs


def batched_eval(
    closed: ClosedJaxpr,
    axis_size: int,
    axis_name: Hashable | None,
    vals: Sequence[ArrayLike],
    dims: Sequence[BDim],
    /,
) -> tuple[list[ArrayLike], list[BDim]]:
    """Evaluate ``closed`` on batched values under a fresh batching trace.

    Args:
      closed: the per-example program.
      axis_size: the batch size.
      axis_name: the axis name collectives see.
      vals: one value per input.
      dims: their batch dimensions.

    Returns:
      ``(outs, out_dims)``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> cj = make_jaxpr(lax.sin)(np.float32(1))
        >>> from tessela_tracer import eval_shape
        >>> f = lambda x: batched_eval(cj, 3, None, [x], [0])[0][0]
        >>> eval_shape(f, np.ones(3, np.float32)).shape
        (3,)
    """
    trace = BatchTrace(axis_name, axis_size)
    with new_trace(trace):
        ins = [
            v if isinstance(d, NotMapped) else trace.wrap(v, d)
            for v, d in zip(vals, dims, strict=True)
        ]
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        pairs = [trace.unwrap(o) for o in outs]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def batch_jaxpr(
    closed: ClosedJaxpr,
    axis_size: int,
    in_batched: Sequence[bool],
    out_force: Sequence[bool],
    /,
    axis_name: Hashable | None = None,
) -> tuple[ClosedJaxpr, list[ArrayLike], list[bool]]:
    """Build the batched version of a per-example jaxpr.

    Batched inputs and outputs carry the batch at axis 0.

    Args:
      closed: the per-example program.
      axis_size: the batch size.
      in_batched: which inputs are batched.
      out_force: which outputs must come out batched even if they are not.
      axis_name: the axis name collectives see.

    Returns:
      ``(jaxpr, consts, out_batched)``: pass ``consts`` as leading operands.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> cj = make_jaxpr(lax.sin)(np.float32(1))
        >>> j, consts, outs = batch_jaxpr(cj, 3, [True], [False])
        >>> print(j)
        { lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }
    """
    avals = [
        a.update(shape=(axis_size, *a.shape)) if b else a
        for a, b in zip(closed.in_avals, in_batched, strict=True)
    ]

    def fun(*args: ArrayLike) -> tuple[list[ArrayLike], list[bool]]:
        dims: list[BDim] = [0 if b else not_mapped for b in in_batched]
        outs, out_dims = batched_eval(closed, axis_size, axis_name, args, dims)
        res, flags = [], []
        for x, d, force in zip(outs, out_dims, out_force, strict=True):
            if isinstance(d, NotMapped):
                if force:
                    x = broadcast(x, axis_size, 0)
            else:
                x = moveaxis(x, d, 0)
            res.append(x)
            flags.append(force or not isinstance(d, NotMapped))
        return res, flags

    return trace_with_aux(fun, avals)
