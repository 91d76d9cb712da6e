"""The user-facing callbacks: ``debug_callback``, ``debug_print``, ``pure_callback``, ``io_callback``.

Each flattens its arguments, keeps non-array leaves aside as static values and
binds its primitive (see :mod:`tessela_tracer._prims_callback`). Eagerly the
function runs at once; staged, it runs each time the compiled program runs.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from tessela_pytree import tree_flatten, tree_map, tree_unflatten

from tessela_tracer._avals import ShapedArray
from tessela_tracer._dtypes import canonicalize_dtype
from tessela_tracer._prims_callback import (
    FlatCallback,
    _split_args,
    debug_callback_p,
    debug_effect,
    debug_print_p,
    io_callback_p,
    ordered_debug_effect,
    pure_callback_p,
)

__all__ = ["debug_callback", "debug_print", "io_callback", "pure_callback"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None)  # fmt: skip


def _call_or_return(
    name: str,
    impl: Callable[..., None],
    first: object,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Callable[..., None] | None:
    # ``debug_callback(f, x)`` calls at once; the two-call form
    # ``debug_callback(ordered=True)`` returns ``impl`` for the second call.
    if first is not None:
        impl(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(
            f"{name} received unexpected arguments in the two-call form: {args=} "
            f"{kwargs=}; pass them in the second call"
        )
    return impl


def debug_callback(
    callback: Callable[..., Any] | None = None,
    /,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> Callable[..., None] | None:
    """Call ``callback(*args, **kwargs)`` for its side effect, also inside ``jit``.

    Transformations see the call as an effect: it is never dropped because
    nothing uses it, runs once per batch element under ``vmap`` and on primal
    values under differentiation. Array arguments reach ``callback`` as
    concrete arrays.

    Args:
      callback: a Python function returning None. Leave it out for the
        two-call form ``debug_callback(ordered=True)(callback, *args)``.
      *args: positional arguments for ``callback`` (pytrees of arrays; other
        leaves are passed unchanged).
      ordered: keep the order of ordered callbacks (eager only; compiled
        programs raise NotImplementedError).
      partitioned: accepted for JAX compatibility; one device only.
      **kwargs: keyword arguments for ``callback``.

    Returns:
      None, or the callback-taking function in the two-call form.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(lambda x: debug_callback(print, x))(1.0).eqns[0].primitive)
        debug_callback
    """

    def _debug_callback(fun: Callable[..., Any], /, *c_args: Any, **c_kwargs: Any) -> None:
        if not callable(fun):
            raise TypeError(
                "first argument to debug.callback must be callable, but got an object of "
                f"type {type(fun)}; pass the function first, then its arguments"
            )
        in_tree, dyn, static = _split_args(c_args, c_kwargs)
        debug_callback_p.bind(
            *dyn,
            callback=FlatCallback(fun, in_tree, static),
            effect=ordered_debug_effect if ordered else debug_effect,
            partitioned=bool(partitioned),
        )

    return _call_or_return("debug_callback", _debug_callback, callback, args, kwargs)


class _FormatChecker(string.Formatter):
    """Checks a debug_print format string against its arguments without formatting."""

    def format_field(self, value: object, format_spec: str) -> str:
        return ""

    def check_unused_args(
        self, used_args: set[int | str], args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `debug.print`: {unused}")
        if unused_kw:
            raise ValueError(
                f"Unused keyword arguments to `debug.print`: {unused_kw}. You may be passing "
                'an f-string (i.e, `f"{x}"`) into `debug.print` and instead should pass in a '
                "regular string."
            )


_checker = _FormatChecker()


def debug_print(
    fmt: str | None = None,
    /,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs: Any,
) -> Callable[..., None] | None:
    """Print ``fmt.format(*args, **kwargs)`` with the runtime values, also inside ``jit``.

    Formatting is delayed until the values exist, so pass a plain format
    string, not an f-string: ``debug_print("x = {x}", x=x)``. Arrays print as
    NumPy prints them (under the NumPy print options current at the call).

    Args:
      fmt: the format string. Leave it out for the two-call form
        ``debug_print(ordered=True)("{}", x)``.
      *args: positional values for the placeholders.
      ordered: keep the order of ordered prints (eager only; compiled
        programs raise NotImplementedError).
      partitioned: accepted for JAX compatibility; one device only.
      skip_format_check: do not check that every argument is used.
      **kwargs: named values for the placeholders.

    Returns:
      None, or the printing function in the two-call form.

    Example:
        >>> import numpy as np
        >>> debug_print("x = {x}, y = {}", np.arange(3), x=1.5)
        x = 1.5, y = [0 1 2]
    """

    def _debug_print(fmt: str, /, *c_args: Any, **c_kwargs: Any) -> None:
        if not isinstance(fmt, str):
            raise TypeError(f"debug.print: fmt must be a str, got {type(fmt).__name__}")
        if not skip_format_check:
            _checker.format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field is not None
        in_tree, dyn, static = _split_args(c_args, c_kwargs)
        debug_print_p.bind(
            *dyn,
            fmt=fmt,
            has_placeholders=has_placeholders,
            in_tree=in_tree,
            logging_record=None,
            np_printoptions=tuple(np.get_printoptions().items()),
            ordered=bool(ordered),
            partitioned=bool(partitioned),
            static_args=static,
        )

    return _call_or_return("debug_print", _debug_print, fmt, args, kwargs)


def _result_avals(result_shape_dtypes: Any, who: str) -> tuple[tuple[ShapedArray, ...], Any]:
    def to_aval(s: object) -> ShapedArray:
        if not hasattr(s, "shape") or not hasattr(s, "dtype"):
            raise TypeError(
                f"{who}: result_shape_dtypes leaves must have .shape and .dtype, got {s!r}; "
                "use ShapeDtypeStruct(shape, dtype)"
            )
        dt = np.dtype(s.dtype)
        if canonicalize_dtype(dt) != dt:
            raise ValueError(
                "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is "
                "disabled; declare the 32-bit dtype or enable x64"
            )
        return ShapedArray(tuple(s.shape), dt)

    avals, out_tree = tree_flatten(tree_map(to_aval, result_shape_dtypes))
    return tuple(avals), out_tree


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    /,
    *args: Any,
    sharding: None = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """Call a pure Python function on the host, also inside ``jit``.

    The function must have no side effects: an unused result may be dropped,
    and ``vmap`` may call it once per element or on whole batches
    (``vmap_method``). It cannot be differentiated: wrap it in ``custom_jvp``
    or ``custom_vjp``.

    Args:
      callback: maps arrays to a pytree of arrays matching ``result_shape_dtypes``.
      result_shape_dtypes: a pytree of objects with ``shape`` and ``dtype``
        (``ShapeDtypeStruct``).
      *args: arguments for ``callback``.
      sharding: must be None (one device).
      vmap_method: under ``vmap``: "sequential" (one call per element),
        "sequential_unrolled", "expand_dims" (unbatched arguments get a
        leading axis of size 1), "broadcast_all" (they are tiled to the batch
        size) or "legacy_vectorized"; None makes ``vmap`` raise.
      **kwargs: keyword arguments for ``callback``.

    Returns:
      A pytree of arrays with the structure of ``result_shape_dtypes``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import ShapeDtypeStruct
        >>> pure_callback(np.sin, ShapeDtypeStruct((), np.float32), np.float32(0.0))
        array(0., dtype=float32)
    """
    if vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, but got: "
            f"{vmap_method}"
        )
    if sharding is not None:
        raise NotImplementedError("pure_callback: sharding is not supported; pass sharding=None")
    result_avals, out_tree = _result_avals(result_shape_dtypes, "pure_callback")
    in_tree, dyn, static = _split_args(args, kwargs)
    outs = pure_callback_p.bind(
        *dyn,
        callback=FlatCallback(callback, in_tree, static),
        result_avals=result_avals,
        sharding=None,
        vmap_method=vmap_method,
    )
    return tree_unflatten(out_tree, outs)


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    /,
    *args: Any,
    sharding: None = None,
    ordered: bool = False,
    **kwargs: Any,
) -> Any:
    """Call an impure Python function on the host, also inside ``jit``.

    Unlike :func:`pure_callback` the call is an effect: it is never dropped,
    and ``vmap`` calls it once per element. It cannot be differentiated.

    Args:
      callback: maps arrays to a pytree of arrays matching ``result_shape_dtypes``.
      result_shape_dtypes: a pytree of objects with ``shape`` and ``dtype``.
      *args: arguments for ``callback``.
      sharding: must be None (one device).
      ordered: keep the order of ordered callbacks (eager only; compiled
        programs raise NotImplementedError; ``vmap`` raises ValueError).
      **kwargs: keyword arguments for ``callback``.

    Returns:
      A pytree of arrays with the structure of ``result_shape_dtypes``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import ShapeDtypeStruct
        >>> seen = []
        >>> def log(x):
        ...     seen.append(float(x))
        ...     return x
        >>> _ = io_callback(log, ShapeDtypeStruct((), np.float32), np.float32(2.0))
        >>> seen
        [2.0]
    """
    if sharding is not None:
        raise NotImplementedError("io_callback: sharding is not supported; pass sharding=None")
    result_avals, out_tree = _result_avals(result_shape_dtypes, "io_callback")
    in_tree, dyn, static = _split_args(args, kwargs)
    outs = io_callback_p.bind(
        *dyn,
        callback=FlatCallback(callback, in_tree, static),
        ordered=bool(ordered),
        result_avals=result_avals,
        sharding=None,
    )
    return tree_unflatten(out_tree, outs)
