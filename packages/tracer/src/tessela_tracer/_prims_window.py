"""Windowed reductions: ``reduce_window_{sum,max,min}_p`` and the max/min-pool helpers.

The three reductions take JAX 0.10.2's parameters ``window_dimensions``,
``window_strides``, ``padding`` (``(low, high)`` pairs), ``base_dilation``
and ``window_dilation``. ``select_and_gather_add_p`` (the tangent of a max or
min pool: in each window, the tangent at the operand's chosen element) and
``select_and_scatter_add_p`` (its transpose: each cotangent added at the
chosen element of its window) carry ``select_prim``, ``ge_p`` for a max and
``le_p`` for a min, as JAX's do. ``lax.reduce_window`` picks the reduction
from ``computation`` and ``init_value``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer import _dtypes, _lax
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, Tracer, register_abstract_eval
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._jaxpr import ClosedJaxpr
from tessela_tracer._lax_conv import padtype_to_pads
from tessela_tracer._prims_conv import dilate_shape
from tessela_tracer._staging import DebugInfo, _fun_src_info, trace_to_jaxpr
from tessela_tracer.typing import Array

__all__ = [
    "flat_operands",
    "reduce_window",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_p",
    "reduce_window_sum_p",
    "reduction_jaxpr",
    "select_and_gather_add_p",
    "select_and_scatter_add_p",
]  # fmt: skip


def _check_shapelike(arg_name: str, obj: Any, positive: bool) -> None:
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(
            f"reduce_window {arg_name} must be of type tuple/list/ndarray, got {type(obj)}."
        )
    if not all(isinstance(d, (int, np.integer)) for d in obj):
        raise TypeError(
            f"reduce_window {arg_name} must have every element be an integer type, got "
            f"{tuple(map(type, obj))}."
        )
    low, word = (1, "strictly positive") if positive else (0, "nonnegative")
    if not all(d >= low for d in obj):
        raise TypeError(f"reduce_window {arg_name} must have every element be {word}, got {obj}.")


def window_shape(
    shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int],
    window_dilation: Sequence[int],
) -> tuple[int, ...]:
    """The output shape of a windowed reduction.

    Args:
      shape: the operand's shape.
      window_dimensions: the window sizes.
      window_strides: the strides.
      padding: ``(low, high)`` per dimension.
      base_dilation: operand dilations.
      window_dilation: window dilations.

    Returns:
      One size per dimension: the number of window positions.
    """
    dilated = dilate_shape(shape, base_dilation)
    win = dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(dilated, padding, strict=True)]
    return tuple(
        max(0, (p - w) // s + 1) for p, w, s in zip(padded, win, window_strides, strict=True)
    )


def _common_rule(
    x: ShapedArray,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> ShapedArray:
    _check_shapelike("window_dimensions", window_dimensions, True)
    _check_shapelike("window_strides", window_strides, True)
    _check_shapelike("base_dilation", base_dilation, False)
    _check_shapelike("window_dilation", window_dilation, False)
    wd = window_dimensions
    if x.ndim != len(wd):
        raise TypeError(
            "reduce_window got the wrong number of window_dimensions for operand: got "
            f"operand shape {x.shape} with window_dimensions {wd}."
        )
    for name, vals in (
        ("window_strides", window_strides), ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):  # fmt: skip
        if len(vals) != len(wd):
            raise TypeError(
                f"reduce_window got inconsistent {name} and window_dimensions: got {name} "
                f"{vals} and window_dimensions {wd}."
            )
    if len(padding) != len(wd):
        raise TypeError(
            f"reduce_window got padding {padding} of the wrong length for window_dimensions {wd}."
        )
    shape = window_shape(x.shape, wd, window_strides, padding, base_dilation, window_dilation)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _sum_rule(x: ShapedArray, **params: Any) -> ShapedArray:
    if not _dtypes.issubdtype(x.dtype, np.number):
        raise TypeError(
            f"operand to reduce_window_sum must have a number dtype, got {x.dtype.name}"
        )
    return _common_rule(x, **params)


def _chooser_rule(x: ShapedArray, **params: Any) -> ShapedArray:
    return _common_rule(x, **params)


reduce_window_sum_p = Primitive("reduce_window_sum")
register_abstract_eval(reduce_window_sum_p, _sum_rule)
reduce_window_max_p = Primitive("reduce_window_max")
register_abstract_eval(reduce_window_max_p, _chooser_rule)
reduce_window_min_p = Primitive("reduce_window_min")
register_abstract_eval(reduce_window_min_p, _chooser_rule)


def _generic_rule(*avals: ShapedArray, jaxpr: ClosedJaxpr, **params: Any) -> list[ShapedArray]:
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(ops, inits, strict=True)):
        raise TypeError(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand "
            f"dtypes {[o.dtype for o in ops]} and init_value dtypes {[i.dtype for i in inits]}."
        )
    if any(i.shape for i in inits):
        raise TypeError(
            "reduce_window expected init_values to be scalars but init_values have shapes "
            f"{[i.shape for i in inits]}."
        )
    if any(o.shape != ops[0].shape for o in ops):
        raise TypeError(
            f"reduce_window operands must have the same shape, got {[o.shape for o in ops]}."
        )
    shape = _common_rule(ops[0], **params).shape
    return [ShapedArray(shape, o.dtype, False) for o in ops]


reduce_window_p = Primitive("reduce_window", multiple_results=True)
"""The general windowed reduction: ``jaxpr`` reduces pairs of scalar tuples (JAX's ``reduce_window_p``).

Operands then as many scalar initial values; one result per operand.
"""
register_abstract_eval(reduce_window_p, _generic_rule)


def _gather_rule(
    tangents: ShapedArray, x: ShapedArray, *, select_prim: Primitive, **params: Any
) -> ShapedArray:
    if tangents.shape != x.shape:
        raise TypeError(
            "select_and_gather_add tangents and operand shapes must match, got "
            f"{tangents.shape} and {x.shape}."
        )
    out = _common_rule(x, **params)
    return ShapedArray(out.shape, tangents.dtype, tangents.weak_type)


select_and_gather_add_p = Primitive("select_and_gather_add")
register_abstract_eval(select_and_gather_add_p, _gather_rule)


def _scatter_rule(
    source: ShapedArray,
    x: ShapedArray,
    *,
    select_prim: Primitive,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
) -> ShapedArray:
    ones = (1,) * x.ndim
    expect = _common_rule(x, window_dimensions, window_strides, padding, ones, ones)
    if tuple(source.shape) != tuple(expect.shape):
        raise TypeError(
            f"select_and_scatter_add source shape {source.shape} does not match the window "
            f"positions {expect.shape} of operand shape {x.shape}."
        )
    return ShapedArray(x.shape, source.dtype, source.weak_type)


select_and_scatter_add_p = Primitive("select_and_scatter_add")
register_abstract_eval(select_and_scatter_add_p, _scatter_rule)


def _identity_of(kind: str, dtype: np.dtype[Any]) -> Any:
    if dtype == np.bool_:
        return kind == "min"
    if _dtypes.issubdtype(dtype, np.integer):
        info = _dtypes.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return -np.inf if kind == "max" else np.inf


def _concrete_scalar(v: Any) -> Any:
    if isinstance(v, Tracer):
        v = v.to_concrete_value()
        if v is None:
            return None
    arr = np.asarray(v)
    return arr if arr.shape == () else None


def _pick(computation: Callable[..., Any], init_value: Any, dtype: Any) -> Primitive | None:
    val = _concrete_scalar(init_value)
    if val is None:
        return None
    dt = np.dtype(dtype)
    if computation is _lax.add:
        return reduce_window_sum_p if val == 0 else None
    if computation is _lax.max:
        return reduce_window_max_p if val == _identity_of("max", dt) else None
    if computation is _lax.min:
        return reduce_window_min_p if val == _identity_of("min", dt) else None
    return None


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable[..., Any],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduce each (padded, dilated) window of ``operand`` with ``computation``.

    ``lax.add`` from 0, ``lax.max`` from the dtype's lowest value and
    ``lax.min`` from its highest bind ``reduce_window_{sum,max,min}``; any
    other computation or initial value, and pytrees of operands, bind the
    general ``reduce_window`` with the traced computation. As in XLA, padding
    and base-dilation holes hold the initial value, which should be the
    computation's identity.

    Args:
      operand: an array, or a pytree of arrays of one shape.
      init_value: scalars with ``operand``'s tree structure.
      computation: ``(accumulated, element) -> accumulated`` on pytrees of
        scalars, associative (XLA reorders it).
      window_dimensions: the window size per dimension.
      window_strides: strides, default 1.
      padding: ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or ``(low, high)`` pairs.
      base_dilation: operand dilations, default 1.
      window_dilation: window dilations, default 1.

    Returns:
      The reduced windows (with ``operand``'s tree structure).

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> pool = lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID")
        >>> eval_shape(pool, ShapeDtypeStruct((4, 6), "float32")).shape
        (2, 3)
    """
    flat_ops, op_tree, flat_inits, init_tree = flat_operands(operand, init_value)
    if not flat_ops:
        raise ValueError("reduce_window must have at least one operand.")
    aval = _aval(flat_ops[0])
    wd = tuple(operator.index(d) for d in window_dimensions)
    ws = tuple(operator.index(d) for d in (window_strides or (1,) * len(wd)))
    bd = tuple(operator.index(d) for d in (base_dilation or (1,) * len(wd)))
    wdil = tuple(operator.index(d) for d in (window_dilation or (1,) * len(wd)))
    if isinstance(padding, str):
        pads = tuple(padtype_to_pads(aval.shape, dilate_shape(wd, wdil), ws, padding))
    else:
        pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    params: dict[str, Any] = {
        "window_dimensions": wd, "window_strides": ws, "padding": pads, "base_dilation": bd,
        "window_dilation": wdil,
    }  # fmt: skip
    prim = _pick(computation, flat_inits[0], aval.dtype) if len(flat_ops) == 1 else None
    if prim is None:
        # Any other computation (or initial value): the general reduction of
        # a traced ``computation``, as JAX's ``reduce_window_p``.
        jaxpr, out_tree = reduction_jaxpr(computation, [_aval(v) for v in flat_inits], init_tree)
        if out_tree != op_tree:
            raise ValueError(
                "reduce_window output must have the same tree structure as the operands "
                f"{op_tree} vs. {out_tree}"
            )
        outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr, **params)
        return tree_unflatten(out_tree, outs)
    operand = flat_ops[0]
    out: Array = prim.bind(operand, **params)
    return out


def flat_operands(operands: Any, init_values: Any, /) -> tuple[list[Any], Any, list[Any], Any]:
    """The leaves and trees of a reduction's operands and of its initial values, checked to pair up.

    Raises:
      ValueError: the two trees differ, as JAX's ``reduce``/``reduce_window`` say.
    """
    flat_ops, op_tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {op_tree} vs. {init_tree}"
        )
    if len(flat_ops) != len(flat_inits):
        raise ValueError(
            "Must have same total number of operands as init_values:  "
            f"{len(flat_ops)} vs. {len(flat_inits)}"
        )
    return flat_ops, op_tree, flat_inits, init_tree


def reduction_jaxpr(
    computation: Callable[[Any, Any], Any], avals: list[ShapedArray], tree: Any
) -> tuple[ClosedJaxpr, Any]:
    """The jaxpr of a reduction's ``computation`` on pairs of ``tree``s of ``avals``,
    and the tree of its result."""
    n = len(avals)
    box: list[Any] = []

    def flat(*args: Any) -> list[Any]:
        xs = tree_unflatten(tree, list(args[:n]))
        ys = tree_unflatten(tree, list(args[n:]))
        out, out_tree = tree_flatten(computation(xs, ys))
        box.append(out_tree)
        return out

    closed = trace_to_jaxpr(
        flat, [*avals, *avals], debug_info=DebugInfo("reduce", _fun_src_info(computation))
    )
    if any(isinstance(c, Tracer) for c in closed.consts):
        raise NotImplementedError("Reduction computations can't close over Tracers.")
    return closed, box[0]
