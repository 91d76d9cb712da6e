"""Products: ``dot``, ``matmul``, ``vdot``, ``inner``, ``outer``, ``tensordot``, ``einsum``.

All contractions bind ``dot_general`` with ``preferred_element_type`` set to
the promoted dtype, as JAX does.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import ArrayOps, EvalTrace, get_current_trace, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.lax import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    full_like,
    outside_traces,
    promote_dtypes,
    select_n,
    shape_of,
)
from ._eager import CONCRETE_TYPES, is_concrete, program_for, run_compiled
from ._einsum_plan import parse_subscripts, plan_contractions
from ._shape_ops import ravel, transpose
from ._shapes import canonicalize_axis
from ._ufuncs import conj, multiply

__all__ = ["dot", "einsum", "inner", "matmul", "outer", "tensordot", "vdot"]


def _dg(
    a: ArrayLike,
    b: ArrayLike,
    contract: tuple[Sequence[int], Sequence[int]],
    batch: tuple[Sequence[int], Sequence[int]] = ((), ()),
    preferred: DTypeLike | None = None,
    precision: PrecisionLike = None,
) -> Array:
    dt = aval_of(a).dtype if preferred is None else preferred
    return lax.dot_general(
        a,
        b,
        ((tuple(contract[0]), tuple(contract[1])), (tuple(batch[0]), tuple(batch[1]))),
        precision=precision,
        preferred_element_type=dt,
    )


def _out(result: Any, dtype: np.dtype[Any], weak: bool) -> Any:
    return convert(result, dtype, weak_type=weak) if weak else result


def _result(a: Any, b: Any) -> tuple[np.dtype[Any], bool]:
    # dot_general takes mixed input dtypes; only the result dtype is promoted.
    if isinstance(a, ArrayOps) and isinstance(b, ArrayOps):
        av, bv = a.aval, b.aval
        if av.dtype == bv.dtype and av.weak_type == bv.weak_type:
            return av.dtype, av.weak_type
    dtype, weak = _dt.result_type(a, b, return_weak_type_flag=True)
    return dtype, weak


def dot(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """NumPy's ``dot``: matrix product for 2-D, sum over the last/second-to-last axes in N-D.

    Args:
      a: an array-like.
      b: an array-like.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      The product.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(dot, s((3, 4), "float32"), s((4,), "float32")).shape
    (3,)
    """
    # On concrete arrays outside any trace: one compiled program, as JAX's jit.
    out = _eagerly(dot, a, b, precision, preferred_element_type)
    if out is not None:
        return unchanged(out)
    check_arraylike("dot", a, b)
    dtype, weak = _result(a, b)
    pref = dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    na, nb = len(shape_of(a)), len(shape_of(b))
    if na == 0 or nb == 0:
        return unchanged(
            _out(_dg(a, b, ((), ()), preferred=pref, precision=precision), dtype, weak)
        )
    cb = 0 if nb == 1 else nb - 2
    return unchanged(
        _out(_dg(a, b, ((na - 1,), (cb,)), preferred=pref, precision=precision), dtype, weak)
    )


def matmul(
    a: ArrayLike,
    b: ArrayLike,
    /,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Matrix product with NumPy's broadcasting of leading batch axes.

    Args:
      a: an array-like of rank >= 1.
      b: an array-like of rank >= 1.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      The product.

    Raises:
      ValueError: a scalar operand.
      TypeError: the contracted sizes differ.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(matmul, s((5, 2, 3), "float32"), s((3, 4), "float32")).shape
    (5, 2, 4)
    """
    default = precision is None and preferred_element_type is None
    if (
        default
        and type(a) in CONCRETE_TYPES
        and type(b) in CONCRETE_TYPES
        and type(get_current_trace()) is EvalTrace
    ):
        program = _FAST_MATMUL.get(None)
        if program is not None:
            result: Array = program(a, b)
            return result
    check_arraylike("matmul", a, b)
    if outside_traces(a, b):
        # Outside any trace: one compiled program per operand signature (and
        # options), as JAX's jitted matmul, not a dispatch per step. An
        # unhashable option takes the traced path, which says what is wrong.
        program = program_for("matmul", _matmul, precision, preferred_element_type)
        if program is not None:
            if default and is_concrete(a) and is_concrete(b):
                _FAST_MATMUL[None] = program
            return unchanged(program(a, b))
    return _matmul(a, b, precision, preferred_element_type)


_FAST_MATMUL: dict[None, Any] = {}
"""The eager program of ``matmul`` with the default options, once made (under ``None``)."""


def _matmul(
    a: ArrayLike, b: ArrayLike, precision: PrecisionLike, preferred_element_type: DTypeLike | None
) -> Array:
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        raise ValueError(
            f"matmul: inputs must have rank >= 1, got shapes {sa} and {sb}; "
            "use multiply for scalars"
        )
    dtype, weak = _result(a, b)
    pref = dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    plan = _matmul_plan(sa, sb)
    if plan.a_squeeze:
        a = lax.squeeze(a, plan.a_squeeze)
    if plan.b_squeeze:
        b = lax.squeeze(b, plan.b_squeeze)
    na, nb = len(shape_of(a)), len(shape_of(b))
    contract = ((na - 1,), (nb - 1 - (len(sb) > 1),))
    out = _dg(a, b, contract, (plan.a_batch, plan.b_batch), preferred=pref, precision=precision)
    if plan.perm != tuple(range(len(plan.perm))):
        out = lax.transpose(out, plan.perm)
    if plan.both_squeezed:
        out = lax.expand_dims(out, plan.both_squeezed)
    return unchanged(_out(out, dtype, weak))


class _MatmulPlan(NamedTuple):
    a_squeeze: tuple[int, ...]
    b_squeeze: tuple[int, ...]
    a_batch: tuple[int, ...]
    b_batch: tuple[int, ...]
    perm: tuple[int, ...]
    both_squeezed: tuple[int, ...]


def _matmul_plan(sa: tuple[int, ...], sb: tuple[int, ...]) -> _MatmulPlan:
    """Classify the leading (batch) axes of a matmul.

    Axes present in only one operand, or of size 1 in one operand, become free
    axes of ``dot_general`` (size-1 ones are squeezed first); equal axes become
    batch axes; size-1 in both are squeezed and restored at the end. A final
    transpose puts the free axes back in broadcast order.
    """
    a_lead = sa[:-2] if len(sa) > 1 else ()
    b_lead = sb[:-2] if len(sb) > 1 else ()
    n = max(len(a_lead), len(b_lead))
    pa: tuple[int | None, ...] = (None,) * (n - len(a_lead)) + a_lead
    pb: tuple[int | None, ...] = (None,) * (n - len(b_lead)) + b_lead
    a_sq: list[int] = []
    b_sq: list[int] = []
    both: list[int] = []
    a_bat: list[int] = []
    b_bat: list[int] = []
    at_batch: list[int] = []
    at_a: list[int] = []
    at_b: list[int] = []
    for i, (da, db) in enumerate(zip(pa, pb, strict=True)):
        a_pos = len(at_batch) + len(at_a) + len(a_sq)
        b_pos = len(at_batch) + len(at_b) + len(b_sq)
        if da is None:
            at_b.append(i)
        elif db is None:
            at_a.append(i)
        elif da == 1 and db == 1:
            a_sq.append(a_pos)
            b_sq.append(b_pos)
            both.append(i)
        elif da == 1:
            at_b.append(i)
            a_sq.append(a_pos)
        elif db == 1:
            at_a.append(i)
            b_sq.append(b_pos)
        elif da == db:
            a_bat.append(len(at_batch) + len(at_a))
            b_bat.append(len(at_batch) + len(at_b))
            at_batch.append(i)
        else:
            raise ValueError(
                f"matmul: batch axes of shapes {sa} and {sb} do not broadcast; "
                "make the leading axes equal or 1"
            )
    if len(sa) > 1:
        at_a.append(n)
    if len(sb) > 1:
        at_b.append(n + (len(sa) > 1))
    order = at_batch + at_a + at_b
    perm = tuple(sorted(range(len(order)), key=order.__getitem__))
    return _MatmulPlan(tuple(a_sq), tuple(b_sq), tuple(a_bat), tuple(b_bat), perm, tuple(both))


def _eagerly(fn: Any, a: Any, b: Any, precision: Any, preferred: Any) -> Any:
    # ``fn(a, b, ...)`` run eagerly as one program, its options static (as
    # JAX's jit makes them); None when the call does not run so.
    if precision is None and preferred is None:
        return run_compiled(fn.__name__, fn, (a, b))
    return run_compiled(fn.__name__, _WITH_OPTIONS[fn], (a, b), precision, preferred)


def _with_options(fn: Any) -> Any:
    def body(a: Any, b: Any, precision: Any, preferred: Any) -> Any:
        return fn(a, b, precision=precision, preferred_element_type=preferred)

    return body


def vdot(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Dot product of the flattened arrays, conjugating the first.

    Args:
      a: an array-like.
      b: an array-like of the same size.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      A scalar.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(vdot, s((2, 3), "float32"), s((6,), "float32")).shape
    ()
    """
    # On concrete arrays outside any trace: one compiled program, as JAX's jit.
    out = _eagerly(vdot, a, b, precision, preferred_element_type)
    if out is not None:
        return unchanged(out)
    check_arraylike("vdot", a, b)
    if _dt.issubdtype(aval_of(a).dtype, np.complexfloating):
        a = conj(a)
    return dot(
        ravel(a), ravel(b), precision=precision, preferred_element_type=preferred_element_type
    )


def inner(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Sum product over the last axes of ``a`` and ``b``.

    Args:
      a: an array-like.
      b: an array-like.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      The product.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(inner, s((2, 3), "float32"), s((4, 3), "float32")).shape
    (2, 4)
    """
    # On concrete arrays outside any trace: one compiled program, as JAX's jit.
    out = _eagerly(inner, a, b, precision, preferred_element_type)
    if out is not None:
        return unchanged(out)
    check_arraylike("inner", a, b)
    if not shape_of(a) or not shape_of(b):
        return unchanged(multiply(a, b))
    return tensordot(
        a, b, (-1, -1), precision=precision, preferred_element_type=preferred_element_type
    )


def outer(a: ArrayLike, b: ArrayLike, /) -> Array:
    """Outer product of the flattened arrays.

    Args:
      a: an array-like.
      b: an array-like.

    Returns:
      The ``(a.size, b.size)`` product.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(outer, s((2, 3), "float32"), s((4,), "int32")).shape
    (6, 4)
    """
    out = run_compiled("outer", outer, (a, b))  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    check_arraylike("outer", a, b)
    a, b = promote_dtypes(a, b)
    ra, rb = ravel(a), ravel(b)
    na, nb = shape_of(ra)[0], shape_of(rb)[0]
    return lax.mul(lax.broadcast_in_dim(ra, (na, 1), (0,)), lax.broadcast_in_dim(rb, (1, nb), (1,)))


def tensordot(
    a: ArrayLike,
    b: ArrayLike,
    /,
    axes: int | Sequence[int] | Sequence[Sequence[int]] = 2,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Contract ``a`` and ``b`` over the given axes.

    Args:
      a: an array-like.
      b: an array-like.
      axes: an int N (last N of ``a`` with first N of ``b``) or a pair of axis
        sequences.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      The product: ``a``'s free axes, then ``b``'s.

    Raises:
      TypeError: ``axes`` is malformed.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: tensordot(x, y, axes=([0], [1])), s((2, 3), "f4"), s((4, 2), "f4")).shape
    (3, 4)
    """
    check_arraylike("tensordot", a, b)
    na, nb = len(shape_of(a)), len(shape_of(b))
    if isinstance(axes, int | np.integer):
        n = int(axes)
        if n > min(na, nb) or n < 0:
            raise TypeError(
                f"tensordot: axes={n} needs operands of rank >= {n}, got ranks {na} and {nb}"
            )
        ca, cb = tuple(range(na - n, na)), tuple(range(n))
    elif isinstance(axes, Sequence) and len(axes) == 2:
        xa, xb = axes
        xa = (xa,) if isinstance(xa, int | np.integer) else tuple(xa)
        xb = (xb,) if isinstance(xb, int | np.integer) else tuple(xb)
        if len(xa) != len(xb):
            raise TypeError(
                f"tensordot: both axes sequences must have the same length, got {xa} and {xb}"
            )
        ca = tuple(canonicalize_axis(i, na) for i in xa)
        cb = tuple(canonicalize_axis(i, nb) for i in xb)
    else:
        raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}")
    dtype, weak = _result(a, b)
    pref = dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    return unchanged(_out(_dg(a, b, (ca, cb), preferred=pref, precision=precision), dtype, weak))


def _sum_axes(x: Any, axes: Sequence[int]) -> Any:
    if not axes:
        return x
    if aval_of(x).dtype == np.bool_:
        return lax.reduce_or(x, tuple(axes))
    return lax.reduce_sum(x, tuple(axes))


def _remove(names: str, drop: Sequence[str]) -> str:
    return "".join(c for c in names if c not in drop)


def _sum_repeats(x: Any, names: str, keep: str) -> tuple[Any, str]:
    counts = collections.Counter(names)
    for name, count in counts.items():
        if count < 2:
            continue
        axes = [i for i, n in enumerate(names) if n == name]
        shape = shape_of(x)
        i32 = np.dtype(np.int32)
        first = lax.broadcasted_iota(i32, shape, axes[0])
        mask = None
        for ax in axes[1:]:
            eq = lax.eq(first, lax.broadcasted_iota(i32, shape, ax))
            mask = eq if mask is None else lax.bitwise_and(mask, eq)
        assert mask is not None  # a repeated name: two axes or more
        x = select_n(mask, full_like(x, 0), x)
        if name in keep:
            x = _sum_axes(x, axes[1:])
            drop = set(axes[1:])
        else:
            x = _sum_axes(x, axes)
            drop = set(axes)
        names = "".join(n for i, n in enumerate(names) if i not in drop)
    return x, names


def _squeeze_singletons(
    x: Any, names: str, other_shape: tuple[int, ...], other: str
) -> tuple[Any, str]:
    shape = shape_of(x)
    drop = [
        i
        for i, n in enumerate(names)
        if shape[i] == 1 and n in other and other_shape[other.index(n)] != 1
    ]
    if not drop:
        return x, names
    return lax.squeeze(x, tuple(drop)), "".join(n for i, n in enumerate(names) if i not in drop)


def einsum(
    subscripts: str,
    /,
    *operands: ArrayLike,
    optimize: str | bool | list[tuple[int, ...]] = "auto",
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Einstein summation over the operands, contracted pairwise left to right.

    Args:
      subscripts: e.g. ``"ij,jk->ik"``; ellipses and implicit outputs allowed.
      *operands: array-likes, one per subscript term.
      optimize: accepted for compatibility; the order is always left to right.
      precision: as for ``lax.dot_general`` (None: the
        ``jax_default_matmul_precision`` flag's value).
      preferred_element_type: the accumulation and result dtype.

    Returns:
      The result.

    Raises:
      ValueError: the subscripts do not match the operands.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: einsum("bij,bjk->bik", x, y), s((5, 2, 3), "f4"), s((5, 3, 4), "f4")).shape
    (5, 2, 4)
    """
    del optimize
    if not isinstance(subscripts, str):
        raise TypeError(
            "einsum: the first argument must be a subscripts string such as 'ij,jk->ik'"
        )
    check_arraylike("einsum", *operands)
    spec = parse_subscripts(subscripts, [shape_of(o) for o in operands])
    dtype, weak = _dt.result_type(*operands, return_weak_type_flag=True)
    pref = dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    work = list(operands)
    for step in plan_contractions(spec):
        ops = [work.pop(i) for i in sorted(step.operands, reverse=True)][::-1]
        result = step.result
        if len(ops) == 1:
            (x,) = ops
            (names,) = step.inputs
            counts = collections.Counter(names)
            uniques = [n for n in sorted(step.contracted) if counts[n] == 1]
            if uniques:
                x = _sum_axes(x, [names.index(n) for n in uniques])
                names = _remove(names, uniques)
            x, names = _sum_repeats(x, names, result)
        else:
            rhs, lhs = ops
            rn, ln = step.inputs
            lhs, ln = _squeeze_singletons(lhs, ln, shape_of(rhs), rn)
            rhs, rn = _squeeze_singletons(rhs, rn, shape_of(lhs), ln)
            lu = [n for n in sorted(step.contracted) if ln.count(n) == 1 and n not in rn]
            if lu:
                lhs = _sum_axes(lhs, [ln.index(n) for n in lu])
                ln = _remove(ln, lu)
            ru = [n for n in sorted(step.contracted) if rn.count(n) == 1 and n not in ln]
            if ru:
                rhs = _sum_axes(rhs, [rn.index(n) for n in ru])
                rn = _remove(rn, ru)
            lhs, ln = _sum_repeats(lhs, ln, result + rn)
            rhs, rn = _sum_repeats(rhs, rn, result + ln)
            contracted = [n for n in sorted(step.contracted) if n in ln and n in rn]
            batch = [n for n in result if n in ln and n in rn]
            gone = "".join(batch) + "".join(contracted)
            lfree, rfree = _remove(ln, gone), _remove(rn, gone)
            cdims = ([ln.index(n) for n in contracted], [rn.index(n) for n in contracted])
            bdims = ([ln.index(n) for n in batch], [rn.index(n) for n in batch])
            names = "".join(batch) + rfree + lfree
            if names == result:
                x = _dg(rhs, lhs, (cdims[1], cdims[0]), (bdims[1], bdims[0]), pref, precision)
            else:
                names = "".join(batch) + lfree + rfree
                x = _dg(lhs, rhs, cdims, bdims, pref, precision)
        if names != result:
            x = transpose(x, [names.index(n) for n in result])
        work.append(x)
    return unchanged(_out(work[0], pref, weak))


# The program bodies of ``dot``, ``vdot`` and ``inner`` given options.
_WITH_OPTIONS = {fn: _with_options(fn) for fn in (dot, vdot, inner)}
