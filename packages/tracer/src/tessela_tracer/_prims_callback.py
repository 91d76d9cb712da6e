"""Host callbacks and the effects that keep them alive.

Four primitives call Python from a staged program, as in JAX:

- ``debug_callback`` and ``debug_print`` (``tessela.debug.callback`` /
  ``tessela.debug.print``) have the ``Debug`` effect and no outputs;
- ``io_callback`` has the ``IO`` effect and outputs;
- ``pure_callback`` has no effect: a pass that drops equations whose outputs
  are unused may drop it, as JAX does.

An *effect* is a named tag that an equation carries (through its primitive's
:func:`register_effects` rule, or through the equations of its sub-jaxprs).
Passes that remove equations (dead-code elimination, partial evaluation of
``checkpoint``) must keep every equation for which :func:`has_effects` holds.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from tessela_pytree import tree_flatten, tree_leaves, tree_unflatten

from tessela_tracer._avals import ShapedArray, get_aval
from tessela_tracer._core import Primitive, Tracer, register_abstract_eval, register_impl
from tessela_tracer._dtypes import canonicalize_dtype
from tessela_tracer._jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, subjaxprs
from tessela_tracer._prims_array import to_concrete_array

__all__ = [
    "DebugEffect",
    "Effect",
    "FlatCallback",
    "OrderedDebugEffect",
    "call_host_callback",
    "debug_callback_p",
    "debug_effect",
    "debug_print_p",
    "eqn_effects",
    "has_effects",
    "io_callback_p",
    "io_effect",
    "jaxpr_effects",
    "ordered_debug_effect",
    "ordered_io_effect",
    "pure_callback_p",
    "register_effects",
]

# ------------------------------------------------------------------ effects


class Effect:
    """A side effect an equation has; prints as its name (``Debug``, ``IO``)."""

    __slots__ = ("name", "ordered")

    def __init__(self, name: str, *, ordered: bool = False) -> None:
        self.name = name
        self.ordered = ordered

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class DebugEffect(Effect):
    """The effect of ``debug.callback`` and ``debug.print`` (JAX's ``jax.debug.DebugEffect``)."""

    __slots__ = ()

    def __init__(self, name: str = "Debug", *, ordered: bool = False) -> None:
        super().__init__(name, ordered=ordered)


class OrderedDebugEffect(Effect):
    """The effect of ordered debug callbacks (JAX's ``jax.debug.OrderedDebugEffect``)."""

    __slots__ = ()

    def __init__(self, name: str = "OrderedDebug", *, ordered: bool = True) -> None:
        super().__init__(name, ordered=ordered)


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
io_effect = Effect("IO")
ordered_io_effect = Effect("OrderedIO", ordered=True)

EffectsRule = Callable[..., Collection[Effect]]
_effects_rules: dict[Primitive, EffectsRule] = {}
_jaxpr_effects_cache: weakref.WeakKeyDictionary[Jaxpr, frozenset[Effect]] = (
    weakref.WeakKeyDictionary()
)


def register_effects(prim: Primitive, rule: EffectsRule, /) -> None:
    """Declare the effects of a primitive's equations.

    Args:
      prim: the primitive.
      rule: ``rule(**params)`` returning the effects of one equation.

    Returns:
      None.

    Example:
        >>> p = Primitive("log_to_disk_example")
        >>> register_effects(p, lambda **params: {io_effect})
        >>> from tessela_tracer import make_jaxpr, register_abstract_eval
        >>> register_abstract_eval(p, lambda x: x)
        >>> has_effects(make_jaxpr(lambda x: p.bind(x))(1.0).eqns[0])
        True
    """
    _effects_rules[prim] = rule


def eqn_effects(eqn: JaxprEqn, /) -> frozenset[Effect]:
    """The effects of one equation: its primitive's and those of its sub-jaxprs.

    Args:
      eqn: any equation.

    Returns:
      The set of effects (empty for pure equations).

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> eqn_effects(make_jaxpr(lax.sin)(1.0).eqns[0])
        frozenset()
    """
    rule = _effects_rules.get(eqn.primitive)
    own = frozenset(rule(**eqn.params)) if rule is not None else frozenset()
    for sub in subjaxprs(eqn):
        own |= jaxpr_effects(sub)
    return own


def jaxpr_effects(jaxpr: Jaxpr | ClosedJaxpr, /) -> frozenset[Effect]:
    """The effects of every equation of a jaxpr (sub-jaxprs included).

    Args:
      jaxpr: a Jaxpr or ClosedJaxpr.

    Returns:
      The union of its equations' effects.

    Example:
        >>> from tessela_tracer import debug_print, make_jaxpr
        >>> sorted(map(str, jaxpr_effects(make_jaxpr(lambda x: debug_print("{}", x))(1.0))))
        ['Debug']
    """
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    hit = _jaxpr_effects_cache.get(jaxpr)
    if hit is None:
        hit = frozenset().union(*(eqn_effects(e) for e in jaxpr.eqns))
        _jaxpr_effects_cache[jaxpr] = hit
    return hit


def has_effects(eqn: JaxprEqn, /) -> bool:
    """Whether a pass must keep ``eqn`` even when none of its outputs is used.

    Args:
      eqn: any equation.

    Returns:
      True when the equation (or one of its sub-jaxprs) has an effect.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> has_effects(make_jaxpr(lax.cos)(1.0).eqns[0])
        False
    """
    return bool(eqn_effects(eqn))


# ------------------------------------------------------------------ flat callbacks


class FlatCallback:
    """A user function called with flat array arguments (a primitive's ``callback``).

    The user's pytree arguments were flattened with ``in_tree``; leaves that
    are not arrays (strings, ...) are kept aside in ``static_args`` (flat
    position, value). Two FlatCallbacks of the same function, tree and static
    arguments are equal, so re-tracing gives equal parameters.
    """

    __slots__ = ("callback_func", "in_tree", "static_args")

    def __init__(
        self,
        callback_func: Callable[..., Any],
        in_tree: Any,
        static_args: tuple[tuple[int, Any], ...] = (),
    ) -> None:
        self.callback_func = callback_func
        self.in_tree = in_tree
        self.static_args = static_args

    def __call__(self, *flat_args: Any) -> list[Any]:
        static = dict(self.static_args)
        dyn = iter(flat_args)
        leaves = [
            static[i] if i in static else next(dyn) for i in range(len(static) + len(flat_args))
        ]
        args, kwargs = tree_unflatten(self.in_tree, leaves)
        return tree_leaves(self.callback_func(*args, **kwargs))

    def _key(self) -> tuple[Any, ...]:
        return (self.callback_func, str(self.in_tree), self.static_args)

    def __eq__(self, other: object) -> bool:
        return type(other) is FlatCallback and self._key() == other._key()

    def __hash__(self) -> int:
        try:
            return hash(self._key())
        except TypeError:  # an unhashable static argument
            return hash((self.callback_func, str(self.in_tree)))

    def __repr__(self) -> str:
        return f"_FlatCallback(callback_func={self.callback_func!r}, in_tree={self.in_tree!r})"


def _split_args(
    args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[Any, list[Any], tuple[tuple[int, Any], ...]]:
    flat, in_tree = tree_flatten((tuple(args), kwargs))
    dyn: list[Any] = []
    static: list[tuple[int, Any]] = []
    for i, leaf in enumerate(flat):
        if isinstance(leaf, Tracer):
            dyn.append(leaf)
            continue
        try:
            get_aval(leaf)
        except TypeError:
            static.append((i, leaf))
        else:
            dyn.append(leaf)
    return in_tree, dyn, tuple(static)


def call_host_callback(
    callback: Callable[..., Sequence[Any]],
    args: Sequence[Any],
    result_avals: Sequence[ShapedArray],
    /,
) -> list[np.ndarray[Any, Any]]:
    """Call a flat callback and check its results against ``result_avals``.

    Args:
      callback: the flat callback (a :class:`FlatCallback`).
      args: its flat arguments.
      result_avals: the declared shapes and dtypes of its results.

    Returns:
      One NumPy array per result, of the declared dtype.

    Raises:
      RuntimeError: the number, a shape or a dtype of the results differs
        from ``result_avals``.

    Example:
        >>> from tessela_pytree import tree_flatten
        >>> cb = FlatCallback(lambda x: x + 1, tree_flatten(((0,), {}))[1])
        >>> call_host_callback(cb, [np.float32(1)], [ShapedArray((), np.float32)])
        [array(2., dtype=float32)]
    """
    outs = list(callback(*args))
    if len(outs) != len(result_avals):
        raise RuntimeError(
            "Mismatched number of outputs from callback. "
            f"Expected: {len(result_avals)}, Actual: {len(outs)}"
        )
    checked = []
    for i, (out, aval) in enumerate(zip(outs, result_avals, strict=True)):
        val = np.asarray(out)
        val = val.astype(canonicalize_dtype(val.dtype), copy=False)
        if val.shape != aval.shape:
            raise RuntimeError(
                f"Incorrect output shape for return value #{i}: "
                f"Expected: {aval.shape}, Actual: {val.shape}"
            )
        if val.dtype != aval.dtype:
            raise RuntimeError(
                f"Incorrect output dtype for return value #{i}: "
                f"Expected: {aval.dtype}, Actual: {val.dtype}"
            )
        checked.append(val)
    return checked


# ------------------------------------------------------------------ primitives

debug_callback_p = Primitive("debug_callback", multiple_results=True)
"""Calls ``callback`` on its operands for its effect; no outputs.

Parameters: ``callback`` (a :class:`FlatCallback`), ``effect`` (``Debug`` or
``OrderedDebug``), ``partitioned`` (bool).
"""


def _no_outputs_abstract_eval(*avals_in: ShapedArray, **params: Any) -> list[ShapedArray]:
    return []


register_abstract_eval(debug_callback_p, _no_outputs_abstract_eval)
register_effects(debug_callback_p, lambda *, effect, **_: {effect})


def _debug_callback_impl(
    *args: Any, callback: Callable[..., Any], effect: Effect, partitioned: bool
) -> list[Any]:
    callback(*map(to_concrete_array, args))
    return []


register_impl(debug_callback_p, _debug_callback_impl)

debug_print_p = Primitive("debug_print", multiple_results=True)
"""Formats its operands into ``fmt`` and prints the line; no outputs.

Parameters as in JAX: ``fmt``, ``has_placeholders``, ``in_tree``,
``logging_record`` (always None), ``np_printoptions``, ``ordered``,
``partitioned``, ``static_args``.
"""

register_abstract_eval(debug_print_p, _no_outputs_abstract_eval)
register_effects(
    debug_print_p, lambda *, ordered, **_: {ordered_debug_effect if ordered else debug_effect}
)


def format_print_callback(
    *,
    fmt: str,
    has_placeholders: bool,
    in_tree: Any,
    np_printoptions: tuple[tuple[str, Any], ...],
    static_args: tuple[tuple[int, Any], ...],
    **_: Any,
) -> FlatCallback:
    """The flat callback that prints what a ``debug_print`` equation says.

    Args:
      fmt: the format string.
      has_placeholders: whether ``fmt`` has replacement fields; without them the
        arguments are appended, separated by spaces.
      in_tree: the structure of ``(args, kwargs)`` of the print.
      np_printoptions: NumPy print options in force while formatting.
      static_args: ``(flat position, value)`` of the non-array leaves.
      **_: the equation's other parameters (ignored).

    Returns:
      A :class:`FlatCallback` taking the flat array arguments.

    Example:
        >>> from tessela_pytree import tree_flatten
        >>> tree = tree_flatten(((0,), {}))[1]
        >>> cb = format_print_callback(fmt="v={}", has_placeholders=True, in_tree=tree,
        ...                            np_printoptions=(), static_args=())
        >>> cb(np.arange(2))
        v=[0 1]
        []
    """

    def write(*args: Any, **kwargs: Any) -> None:
        if has_placeholders:
            with np.printoptions(**dict(np_printoptions)):
                msg = fmt.format(*args, **kwargs)
        else:
            msg = " ".join((fmt, *(str(a) for a in args)))
        print(msg, flush=True)

    return FlatCallback(write, in_tree, static_args)


def _debug_print_impl(*args: Any, **params: Any) -> list[Any]:
    format_print_callback(**params)(*map(to_concrete_array, args))
    return []


register_impl(debug_print_p, _debug_print_impl)

pure_callback_p = Primitive("pure_callback", multiple_results=True)
"""Calls a pure function on the host. Parameters: ``callback``,
``result_avals`` (tuple of ShapedArray), ``sharding`` (None), ``vmap_method``."""

io_callback_p = Primitive("io_callback", multiple_results=True)
"""Calls an impure function on the host. Parameters: ``callback``,
``ordered``, ``result_avals``, ``sharding`` (None)."""


def _result_avals_abstract_eval(
    *avals_in: ShapedArray, result_avals: tuple[ShapedArray, ...], **params: Any
) -> list[ShapedArray]:
    return list(result_avals)


def _host_callback_impl(
    *args: Any, callback: Callable[..., Any], result_avals: tuple[ShapedArray, ...], **params: Any
) -> list[Any]:
    outs = call_host_callback(callback, list(map(to_concrete_array, args)), result_avals)
    return list(map(to_concrete_array, outs))


for _p in (pure_callback_p, io_callback_p):
    register_abstract_eval(_p, _result_avals_abstract_eval)
    register_impl(_p, _host_callback_impl)
register_effects(
    io_callback_p, lambda *, ordered, **_: {ordered_io_effect if ordered else io_effect}
)
