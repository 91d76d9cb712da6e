"""``vmap``: axis specifications, size checks and the batching trace around a call."""

from __future__ import annotations

import collections
import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from tessela_pytree import (
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from tessela_tracer.extend import axis_frame, get_aval_of, new_trace

from tessela_batching._core import BatchTrace, NotMapped, broadcast, moveaxis

__all__ = ["vmap"]

_SPEC_MSG = (
    "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
    "positional arguments passed to the function"
)


def _check_spec(what: str, axes: Any) -> None:
    for leaf in tree_leaves(axes, is_leaf=lambda x: x is None):
        if leaf is not None and type(leaf) is not int:
            if what == "in_axes":
                raise TypeError(f"{_SPEC_MSG}, but got {axes!r}.")
            raise TypeError(
                f"vmap out_axes must be an int, None, or (nested) container with those types "
                f"as leaves, but got {axes!r}."
            )


def _flatten_axes(what: str, tree: Any, axes: Any) -> list[Any]:
    """One axis spec per leaf of ``tree``, ``axes`` being a tree prefix of it."""
    treedef = tree_structure(tree)
    proxy = tree_unflatten(treedef, list(range(treedef.num_leaves)))
    out: list[Any] = [None] * treedef.num_leaves

    def assign(ax: int | None, sub: Any) -> None:
        for i in tree_leaves(sub):
            out[i] = ax

    try:
        tree_map(assign, axes, proxy, is_leaf=lambda x: x is None)
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(
            f"vmap {what} specification must be a tree prefix of the corresponding value, "
            f"got specification {axes!r} for value tree {treedef}."
        ) from e
    return out


def _arg_names(fun: Callable[..., Any], nargs: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(nargs):
        p = params[i] if i < len(params) else None
        if p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        else:
            names.append(f"args[{i}]")
    return names


def _size_error(
    fun: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], axes: list[Any]
) -> ValueError:
    names = _arg_names(fun, len(args))
    leaves = tree_flatten_with_path((list(args), kwargs))[0]
    entries = []
    for (path, x), ax in zip(leaves, axes, strict=True):
        if ax is None:
            continue
        where, key = path[0], path[1]
        rest = keystr(tuple(path[2:]))
        label = names[key.idx] if where.idx == 0 else key.key
        aval = get_aval_of(x)
        entries.append((aval.shape[ax], f"axis {ax} of argument {label}{rest} of type {aval}"))
    counts = collections.Counter(size for size, _ in entries).most_common()
    example: dict[int, str] = {}
    for size, desc in entries:
        example.setdefault(size, desc)
    lines = []
    for i, (size, ct) in enumerate(counts):
        ex = example[size]
        if ct == 1:
            lines.append(f"  * one axis had size {size}: {ex}")
        elif i == 0:
            lines.append(f"  * most axes ({ct} of them) had size {size}, e.g. {ex}")
        else:
            lines.append(f"  * some axes ({ct} of them) had size {size}, e.g. {ex}")
    return ValueError(
        "vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)
    )


def _normalize_in_axis(x: Any, ax: int) -> int:
    shape = get_aval_of(x).shape
    nd = len(shape)
    if not -nd <= ax < nd:
        raise ValueError(
            f"vmap was requested to map its argument along axis {ax}, which implies that its "
            f"rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only {nd} (its "
            f"shape is {shape})"
        )
    return ax % nd


def vmap(
    fun: Callable[..., Any],
    /,
    in_axes: int | Sequence[Any] | None = 0,
    out_axes: Any = 0,
    *,
    axis_name: Hashable | None = None,
    axis_size: int | None = None,
    spmd_axis_name: Hashable | None = None,
) -> Callable[..., Any]:
    """Vectorize ``fun`` over an axis of its arguments.

    Args:
      fun: the per-example function; arguments and results may be pytrees.
      in_axes: the mapped axis of each positional argument: an int, None
        (not mapped), or a tuple with one entry per argument, each entry an
        int, None or a pytree prefix of that argument. Negative axes count
        from the end. Keyword arguments are always mapped along axis 0.
      out_axes: where the mapped axis goes in each output (a pytree prefix
        of the result); None only for outputs that are not batched.
      axis_name: a name for the mapped axis, for collectives such as
        :func:`psum` inside ``fun``.
      axis_size: the batch size; required when no argument is mapped.
      spmd_axis_name: accepted for signature compatibility; Tessela runs on
        one device, so it changes nothing.

    Returns:
      The batched function.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = vmap(lambda x, y: lax.mul(x, y), in_axes=(0, None))
        >>> print(make_jaxpr(f)(np.ones((5, 3), np.float32), np.ones(3, np.float32)))
        { lambda ; a:f32[5,3] b:f32[3]. let
            c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
            d:f32[5,3] = mul a c
          in (d,) }
    """
    if not callable(fun):
        raise TypeError(f"vmap requires a callable as its first argument, got {fun!r}.")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError(f"{_SPEC_MSG}, but got {in_axes!r}.")
    _check_spec("in_axes", in_axes)
    _check_spec("out_axes", out_axes)
    if axis_size is not None and (type(axis_size) is not int or axis_size < 0):
        raise TypeError(f"vmap axis_size must be a nonnegative int, got {axis_size!r}.")

    @functools.wraps(fun)
    def vmap_f(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                f"{_SPEC_MSG}, but got len(in_axes)={len(in_axes)}, len(args)={len(args)}"
            )
        spec = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
        flat, in_tree = tree_flatten((list(args), kwargs))
        axes = _flatten_axes("in_axes", list(args), list(spec)) + [0] * (
            len(flat) - len(tree_leaves(list(args)))
        )
        axes = [
            None if a is None else _normalize_in_axis(x, a)
            for x, a in zip(flat, axes, strict=False)
        ]
        sizes = {get_aval_of(x).shape[a] for x, a in zip(flat, axes, strict=False) if a is not None}
        if len(sizes) > 1:
            raise _size_error(fun, args, kwargs, axes)
        if not sizes and axis_size is None:
            raise ValueError(
                "vmap must have at least one non-None value in in_axes or axis_size must be "
                "specified"
            )
        size = axis_size if axis_size is not None else sizes.pop()
        if sizes and sizes.pop() != size:
            raise ValueError(
                f"vmap got axis_size={axis_size} but the mapped axes of the arguments have "
                f"another size; pass axis_size equal to the size of the mapped axes."
            )
        trace = BatchTrace(axis_name, size)
        with axis_frame(axis_name, size):
            with new_trace(trace):
                tracers = [
                    x if a is None else trace.wrap(x, a) for x, a in zip(flat, axes, strict=False)
                ]
                fargs, fkwargs = tree_unflatten(in_tree, tracers)
                out = fun(*fargs, **fkwargs)
                out_flat, out_tree = tree_flatten(out)
                pairs = [trace.unwrap(o) for o in out_flat]
            out_spec = _flatten_axes("out_axes", out, out_axes)
            res = [_match_out(v, d, a, size) for (v, d), a in zip(pairs, out_spec, strict=True)]
        return tree_unflatten(out_tree, res)

    return vmap_f


def _match_out(val: Any, bdim: int | NotMapped, dst: int | None, size: int) -> Any:
    if dst is None:
        if isinstance(bdim, NotMapped):
            return val
        raise ValueError(
            f"at vmap out_axes, got axis spec None but output was batched on axis {bdim}"
        )
    nd = get_aval_of(val).ndim + (1 if isinstance(bdim, NotMapped) else 0)
    if not -nd <= dst < nd:
        raise ValueError(f"axis {dst} is out of bounds for array of dimension {nd}")
    dst %= nd
    if isinstance(bdim, NotMapped):
        return broadcast(val, size, dst)
    return moveaxis(val, bdim, dst)
