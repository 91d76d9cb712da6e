"""The jaxpr-building trace, ``trace_to_jaxpr``, ``make_jaxpr`` and ``eval_shape``."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import operator
import warnings
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar, cast

import numpy as np
from tessela_pytree import (
    PyTreeDef,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_map,
    tree_unflatten,
)

from tessela_tracer._avals import ShapedArray, ShapeDtypeStruct, get_aval
from tessela_tracer._config import config
from tessela_tracer._core import (
    Primitive,
    Trace,
    Tracer,
    _current_trace,
    find_impl,
    new_trace,
)
from tessela_tracer._errors import UnexpectedTracerError
from tessela_tracer._jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, check_jaxpr
from tessela_tracer._key_dtypes import is_extended
from tessela_tracer._prims_array import ArrayCopySemantics, device_put_p
from tessela_tracer._prims_elementwise import convert_element_type_p
from tessela_tracer.typing import Array, ArrayLike, unchanged

__all__ = [
    "DebugInfo",
    "JaxprTrace",
    "JitTracer",
    "debug_info_for",
    "eval_shape",
    "flatten_args",
    "make_jaxpr",
    "stage",
    "trace_to_jaxpr",
]

_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True, slots=True)
class DebugInfo:
    """What is being traced, for error messages.

    Attributes:
      traced_for: the transformation, e.g. ``"jit"`` or ``"make_jaxpr"``.
      func_src_info: ``"f at /path/file.py:12"``.
      arg_names: one name per flat input, or None.
    """

    traced_for: str
    func_src_info: str
    arg_names: tuple[str, ...] | None = None


def _fun_src_info(fun: Callable[..., Any]) -> str:
    name = getattr(fun, "__name__", None) or type(fun).__name__
    target = inspect.unwrap(fun) if callable(fun) else fun
    while isinstance(target, functools.partial):
        target = target.func
    code = getattr(target, "__code__", None)
    if code is None:
        return str(name)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _positional_names(fun: Callable[..., Any], nargs: int) -> list[str]:
    """Name each positional argument after its parameter (``args[i]`` for ``*args``)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names: list[str] = []
    for p in params:
        if len(names) == nargs:
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            names.extend(f"{p.name}[{j}]" for j in range(nargs - len(names)))
    names.extend(f"args[{j}]" for j in range(len(names), nargs))
    return names


def debug_info_for(
    traced_for: str,
    fun: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    /,
    static_argnums: Sequence[int] = (),
) -> DebugInfo:
    """Build the :class:`DebugInfo` of tracing ``fun(*args, **kwargs)``.

    Args:
      traced_for: the transformation's name.
      fun: the function.
      args: positional arguments (including static ones).
      kwargs: keyword arguments.
      static_argnums: positions that are not traced.

    Returns:
      A DebugInfo naming each flat traced input after its parameter and its
      path inside that parameter, as in ``x[0]['a']``.

    Example:
        >>> def f(x, n, *rest): return x
        >>> debug_info_for("jit", f, ([{"a": 1.0}], 2, 3.0), {}, (1,)).arg_names
        ("x[0]['a']", 'rest[0]')
    """
    pos_names = _positional_names(fun, len(args))
    flat_names: list[str] = []
    for i, a in enumerate(args):
        if i not in static_argnums:
            flat_names.extend(
                pos_names[i] + keystr(path) for path, _ in tree_flatten_with_path(a)[0]
            )
    for k in sorted(kwargs):
        flat_names.extend(k + keystr(path) for path, _ in tree_flatten_with_path(kwargs[k])[0])
    return DebugInfo(traced_for, _fun_src_info(fun), tuple(flat_names))


class JitTracer(Tracer):
    """The tracer of a jaxpr-building trace; prints as ``JitTracer<float32[3]>``."""

    __slots__ = ("_aval", "_var")

    def __init__(self, trace: JaxprTrace, aval: ShapedArray, var: Var) -> None:
        self._trace = trace
        self._aval = aval
        self._var = var

    @property
    def aval(self) -> ShapedArray:
        """The abstract value."""
        return self._aval


def _is_literal(x: Any, aval: ShapedArray) -> bool:
    return not aval.shape


class JaxprTrace(Trace):
    """A trace that records each primitive application as a jaxpr equation."""

    __slots__ = ("_const_ids", "cache", "consts", "constvars", "debug_info", "eqns", "invars")
    tracer_name = "JitTracer"

    def __init__(self, parent: Trace | None = None, debug_info: DebugInfo | None = None) -> None:
        super().__init__(parent)
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        self._const_ids: dict[int, Var] = {}
        self.debug_info = debug_info
        self.cache: dict[Any, Any] = {}

    def release(self) -> None:
        """Forget the subtraces cached by :func:`cached_trace`: their keys hold
        the user's functions (and their closures), their values constants."""
        self.cache.clear()

    def new_arg(self, aval: ShapedArray) -> JitTracer:
        """Create an input of the jaxpr being built."""
        v = Var(aval)
        self.invars.append(v)
        return JitTracer(self, aval, v)

    def _const_var(self, x: Any, aval: ShapedArray) -> Var:
        v = self._const_ids.get(id(x))
        if v is None:
            v = Var(aval)
            self._const_ids[id(x)] = v
            self.constvars.append(v)
            self.consts.append(x)
        return v

    def to_atom(self, x: object) -> Var | Literal:
        """Return the jaxpr atom standing for ``x`` (var, literal or constvar)."""
        if isinstance(x, Tracer):
            if isinstance(x, JitTracer) and x._trace is self:
                return x._var
            if not x._trace.valid:
                raise UnexpectedTracerError(x)
            return self._const_var(x, x.aval)
        aval = get_aval(x)
        if not aval.shape and not is_extended(aval.dtype):  # a key is a constvar, as in JAX
            return Literal(x, aval)
        return self._const_var(x, aval)

    def stage_value(self, x: object) -> JitTracer:
        """A tracer of this trace standing for ``x`` (what :func:`~tessela_tracer.lax.stage` gives).

        Args:
          x: a constant (a literal for a scalar, a constvar for an array), a
            tracer of an enclosing trace (a constvar) or one of this trace's
            tracers (returned as is).

        Returns:
          The tracer, with ``x``'s abstract value.

        Example:
            >>> with new_trace(JaxprTrace()) as t:
            ...     print(t.stage_value(2.0), t.to_closed_jaxpr([t.stage_value(2.0)]))
            JitTracer<float32[]> { lambda ; . let  in (2.0:f32[],) }
        """
        if type(x) is JitTracer and x._trace is self:
            return x
        atom = self.to_atom(x)
        return JitTracer(self, atom.aval, cast(Var, atom))

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Any:
        if prim in _STAGING_RULES:
            folded = _STAGING_RULES[prim](self, args, params)
            if folded is not None:
                return folded
        invars: list[Var | Literal] = []
        avals: list[ShapedArray] = []
        for x in args:
            if type(x) is JitTracer and x._trace is self:
                invars.append(x._var)
                avals.append(x._aval)
            else:
                a = self.to_atom(x)
                invars.append(a)
                avals.append(a.aval)
        out = prim.abstract_eval(*avals, **params)
        if prim.multiple_results:
            outvars = [Var(a) for a in out]
            self.eqns.append(JaxprEqn(invars, outvars, prim, params))
            return [JitTracer(self, v.aval, v) for v in outvars]
        v = Var(out)
        self.eqns.append(JaxprEqn(invars, [v], prim, params))
        return JitTracer(self, out, v)

    def to_closed_jaxpr(self, outs: Sequence[object]) -> ClosedJaxpr:
        """Finish: the ClosedJaxpr computing ``outs`` from the inputs."""
        outvars = [self.to_atom(x) for x in outs]
        jaxpr = Jaxpr(list(self.constvars), list(self.invars), outvars, self.eqns)
        return ClosedJaxpr(jaxpr, list(self.consts))

    def describe_function(self) -> str:
        d = self.debug_info
        return "" if d is None else f"{d.func_src_info} traced for {d.traced_for}"

    def describe_provenance(self, tracer: Tracer) -> str:
        d = self.debug_info
        if d is None:
            return ""
        msg = f"The error occurred while tracing the function {d.func_src_info} for {d.traced_for}."
        names = d.arg_names
        if names is None or not isinstance(tracer, JitTracer) or tracer._trace is not self:
            return msg
        deps = self._depends_on(tracer._var)
        idx = [i for i, v in enumerate(self.invars) if id(v) in deps]
        if not idx or len(names) != len(self.invars):
            return msg
        chosen = [names[i] for i in idx]
        if len(chosen) == 1:
            return (
                msg + " This concrete value was not available in Python because it depends "
                f"on the value of the argument {chosen[0]}."
            )
        listed = ", ".join(chosen[:-1]) + f" and {chosen[-1]}"
        return (
            msg + " This concrete value was not available in Python because it depends "
            f"on the values of the arguments {listed}."
        )

    def _depends_on(self, var: Var) -> set[int]:
        needed = {id(var)}
        for eqn in reversed(self.eqns):
            if any(id(o) in needed for o in eqn.outvars):
                needed.update(id(a) for a in eqn.invars if isinstance(a, Var))
        return needed


_FOLDABLE = (bool, int, float, builtins.complex, np.generic, np.ndarray)


def _literal_value(trace: JaxprTrace, x: object) -> tuple[Any, ShapedArray] | None:
    """The host value and abstract value of ``x`` when it is a scalar literal of ``trace``."""
    if type(x) is JitTracer:
        atom = x._var
        if x._trace is not trace or not isinstance(atom, Literal):
            return None
        val, aval = atom.val, atom.aval
    elif isinstance(x, Tracer):
        return None
    else:
        val, aval = x, get_aval(x)
    if not isinstance(val, _FOLDABLE) or np.shape(val) or is_extended(aval.dtype):
        return None
    return val, aval


def _fold_convert(trace: JaxprTrace, args: Sequence[object], params: dict[str, Any]) -> Any:
    """``convert_element_type`` of a scalar literal folds to a literal, as JAX's jaxpr
    tracer does: the value, as its dtype, is cast by NumPy (a float out of an
    integer type's range wraps: ``300.0`` to int8 is 44, NaN to int32 the lowest
    int32), so no equation is recorded."""
    new_dtype = params["new_dtype"]
    known = _literal_value(trace, args[0])
    if known is None or params.get("sharding") is not None or is_extended(new_dtype):
        return None
    val, aval = known
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        host = np.asarray(val, dtype=aval.dtype)
        if host.dtype.kind == "c" and np.dtype(new_dtype).kind != "c":
            host = host.real
        folded = host.astype(new_dtype)[()]
    out_aval = ShapedArray((), np.dtype(new_dtype), bool(params["weak_type"]))
    return JitTracer(trace, out_aval, cast(Var, Literal(folded, out_aval)))


# The constant :func:`stage` is placing, while its ``device_put`` runs.
_NOTHING = object()
_staging: ContextVar[object] = ContextVar("tessela_staging", default=_NOTHING)
_REUSE = (ArrayCopySemantics.REUSE_INPUT,)


def _stage_constant(trace: JaxprTrace, args: Sequence[object], params: dict[str, Any]) -> Any:
    if len(args) == 1 and args[0] is _staging.get():
        return [trace.stage_value(args[0])]
    return None  # a device_put of the program: recorded


# Primitives a jaxpr trace answers without recording an equation (when the
# rule returns None the equation is recorded as usual).
_STAGING_RULES: dict[Primitive, Callable[[JaxprTrace, Sequence[object], dict[str, Any]], Any]] = {
    device_put_p: _stage_constant,
    convert_element_type_p: _fold_convert,
}


def stage(x: ArrayLike, /) -> Array:
    """Lift ``x`` into the trace that is running, as ``jax.lax.stage``.

    Under a jaxpr-building trace (``jit``, ``make_jaxpr``) the result is a
    tracer standing for the constant: a literal for a scalar (not a PRNG key),
    a constant input (constvar) for an array, with ``x``'s abstract value
    (Python scalars are weakly typed). A transformation between (``vmap``,
    ``grad``, a plugin) needs nothing for it: ``stage`` binds ``device_put``
    to the default device, which a trace forwards to its parent as any
    primitive whose operands are all constants, and the jaxpr trace answers
    that one binding with the constant's tracer (:meth:`JaxprTrace.stage_value`)
    instead of an equation. Where constants are evaluated (outside every jaxpr
    trace, or under ``ensure_compile_time_eval``) the result is a concrete
    array of the backend; ``x`` itself when no backend is installed. A tracer
    comes back unchanged.

    Args:
      x: a NumPy array or scalar, a Python scalar, a concrete array or a tracer.

    Returns:
      ``x`` as a value of the running transformations.

    Example:
        >>> import numpy as np
        >>> print(make_jaxpr(lambda: stage(2.0))())
        { lambda ; . let  in (2.0:f32[],) }
        >>> print(make_jaxpr(lambda: stage(np.ones(2, np.int32)))())
        { lambda a:i32[2]; . let  in (a,) }
    """
    if isinstance(x, Tracer):
        return x
    trace = _current_trace.get()
    if type(trace) is JaxprTrace:
        return trace.stage_value(x)
    if find_impl(device_put_p) is None:  # no backend: only a jaxpr trace can take it
        above: Trace | None = trace
        while above is not None and not isinstance(above, JaxprTrace):
            above = above.parent
        if above is None:
            return unchanged(x)
    token = _staging.set(x)
    try:
        out: Array = device_put_p.bind(x, devices=(None,), srcs=(None,), copy_semantics=_REUSE)[0]
    finally:
        _staging.reset(token)
    return out


def trace_to_jaxpr(
    fun: Callable[..., Sequence[Any]],
    avals_in: Sequence[ShapedArray],
    /,
    *,
    debug_info: DebugInfo | None = None,
) -> ClosedJaxpr:
    """Trace a flat function on abstract inputs to a ClosedJaxpr.

    The function takes one tracer per aval and returns a sequence of outputs.
    Values it closes over that are tracers of enclosing traces (or non-scalar
    arrays) become constvars, with the values in ``consts``.

    Args:
      fun: ``fun(*tracers) -> sequence of outputs``.
      avals_in: the input abstract values.
      debug_info: what is traced, for error messages.

    Returns:
      The closed jaxpr.

    Example:
        >>> from tessela_tracer import lax
        >>> cj = trace_to_jaxpr(lambda x: [lax.sin(x)], [ShapedArray((), "float32")])
        >>> print(cj)
        { lambda ; a:f32[]. let b:f32[] = sin a in (b,) }
    """
    with new_trace(JaxprTrace(_current_trace.get(), debug_info)) as trace:
        args = [trace.new_arg(a) for a in avals_in]
        outs = fun(*args)
        return trace.to_closed_jaxpr(outs)


def cached_trace(key: object, thunk: Callable[[], _T]) -> _T:
    """Memoize ``thunk()`` for ``key`` within the current jaxpr trace.

    Higher-order wrappers trace the same Python function on the same avals
    once per enclosing trace, so repeated calls share one sub-jaxpr.

    Args:
      key: a hashable key (include the function and the input avals).
      thunk: computes the value on a miss.

    Returns:
      The cached or fresh value.
    """
    trace = _current_trace.get()
    if not isinstance(trace, JaxprTrace):
        return thunk()
    try:
        hit: _T | None = trace.cache.get(key)
    except TypeError:
        return thunk()
    if hit is None:
        hit = trace.cache[key] = thunk()
    return hit


def _abstractify(x: Any) -> ShapedArray:
    return get_aval(x)


def _normalize_argnums(static_argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    out = []
    for i in static_argnums:
        i = operator.index(i)
        out.append(i + nargs if i < 0 else i)
    return tuple(out)


def flatten_args(
    args: Sequence[Any],
    kwargs: dict[str, Any],
    /,
    *,
    static_argnums: int | Sequence[int] = (),
) -> tuple[list[Any], PyTreeDef]:
    """Flatten arguments the way :func:`trace_pytree_fun` does.

    The flat inputs of the jaxpr that ``trace_pytree_fun`` returns are the
    leaves of ``(dynamic_args, kwargs)``: the positional arguments not in
    ``static_argnums`` (negative positions count from the end), as a list,
    then the keyword arguments, as a dict (in sorted key order, like every
    dict pytree).

    Args:
      args: positional arguments, static ones included.
      kwargs: keyword arguments.
      static_argnums: the positions that are not traced.

    Returns:
      ``(flat, in_tree)``: the leaves, and the tree of ``(dynamic_args, kwargs)``.

    Example:
        >>> from tessela_tracer import lax
        >>> def f(x, n, *, y):
        ...     return {"s": lax.add(x[0], y), "n": lax.mul(x[1], float(n))}
        >>> args, kwargs = ((1.0, 2.0), 3), {"y": 4.0}
        >>> closed, out_tree = trace_pytree_fun(f, args, kwargs, traced_for="demo", static_argnums=1)
        >>> flat, in_tree = flatten_args(args, kwargs, static_argnums=1)
        >>> flat, in_tree
        ([1.0, 2.0, 4.0], PyTreeDef(([(*, *)], {'y': *})))
        >>> [v.aval.str_short() for v in closed.jaxpr.invars]
        ['float32[]', 'float32[]', 'float32[]']

        With a backend installed (``import tessela``),
        ``tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts, *flat))``
        is ``f(*args, **kwargs)``.
    """
    static = _normalize_argnums(static_argnums, len(args))
    dyn = [a for i, a in enumerate(args) if i not in static]
    return tree_flatten((dyn, kwargs))


_no_tracing = config.state("jax_no_tracing")
_enable_checks = config.state("jax_enable_checks")


def trace_pytree_fun(
    fun: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    *,
    traced_for: str,
    static_argnums: int | Sequence[int] = (),
) -> tuple[ClosedJaxpr, Any]:
    """Trace ``fun(*args, **kwargs)`` on the avals of its (pytree) arguments.

    The jaxpr's inputs are the leaves that :func:`flatten_args` gives for the
    same ``args``, ``kwargs`` and ``static_argnums``; its outputs are the
    leaves of ``fun``'s result, which ``out_tree`` rebuilds. So
    ``tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts,
    *flatten_args(args, kwargs, static_argnums=...)[0]))`` is ``fun(*args,
    **kwargs)``.

    Args:
      fun: the function.
      args: positional arguments; those at ``static_argnums`` are passed as is.
      kwargs: keyword arguments (traced).
      traced_for: the transformation's name, for error messages.
      static_argnums: static positions.

    Returns:
      ``(closed_jaxpr, out_tree)`` where ``out_tree`` is the output PyTreeDef.

    Raises:
      RuntimeError: ``traced_for`` is ``"jit"`` while ``jax_no_tracing`` is set
        (``with tessela.no_tracing():``), with JAX's message.
      JaxprTypeError: ``jax_enable_checks`` is set and the traced jaxpr is
        ill-typed (``check_jaxpr``).

    Example:
        >>> from tessela_tracer import lax
        >>> closed, out_tree = trace_pytree_fun(lambda p: (lax.sin(p["a"]),), ({"a": 1.0},), {},
        ...                                     traced_for="demo")
        >>> print(closed, out_tree)
        { lambda ; a:f32[]. let b:f32[] = sin a in (b,) } PyTreeDef((*,))
    """
    static = _normalize_argnums(static_argnums, len(args))
    flat, in_tree = flatten_args(args, kwargs, static_argnums=static)
    avals = [_abstractify(x) for x in flat]
    debug = debug_info_for(traced_for, fun, args, kwargs, static)
    if traced_for == "jit" and _no_tracing.value:
        raise RuntimeError(
            f"re-tracing function {debug.func_src_info} for `jit`, but 'no_tracing' is set"
        )
    out_tree_box: list[Any] = []

    def flat_fun(*tracers: Any) -> list[Any]:
        dyn_args, kw = tree_unflatten(in_tree, list(tracers))
        it = iter(dyn_args)
        full = [a if i in static else next(it) for i, a in enumerate(args)]
        out = fun(*full, **kw)
        out_flat, out_tree = tree_flatten(out)
        out_tree_box.append(out_tree)
        return out_flat

    closed = trace_to_jaxpr(flat_fun, avals, debug_info=debug)
    if _enable_checks.value:
        check_jaxpr(closed)
    return closed, out_tree_box[0]


def make_jaxpr(
    fun: Callable[..., Any],
    /,
    static_argnums: int | Sequence[int] = (),
    *,
    return_shape: bool = False,
) -> Callable[..., Any]:
    """Return a function that traces ``fun`` and gives its jaxpr.

    Args:
      fun: the function to trace; arguments and results may be pytrees.
      static_argnums: positions passed to ``fun`` as Python values, not traced.
      return_shape: also return a pytree of ShapeDtypeStruct for the outputs.

    Returns:
      ``wrapped(*args, **kwargs) -> ClosedJaxpr`` (or ``(ClosedJaxpr, shapes)``).

    Example:
        >>> from tessela_tracer import lax
        >>> print(make_jaxpr(lambda x: lax.add(x, 1.0))(2.0))
        { lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }
    """

    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> Any:
        closed, out_tree = trace_pytree_fun(
            fun, args, kwargs, traced_for="make_jaxpr", static_argnums=static_argnums
        )
        if return_shape:
            shapes = [
                ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals
            ]
            return closed, tree_unflatten(out_tree, shapes)
        return closed

    return make_jaxpr_f


def eval_shape(fun: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Compute the output shapes and dtypes of ``fun`` without running it.

    Args:
      fun: the function.
      *args: arrays, ShapeDtypeStructs or anything with ``shape``/``dtype``.
      **kwargs: more such arguments.

    Returns:
      A pytree of ShapeDtypeStruct matching ``fun``'s output.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import lax
        >>> eval_shape(lax.sin, ShapeDtypeStruct((2, 3), np.float32))
        ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """

    def to_struct(x: object) -> object:
        if isinstance(x, (ShapeDtypeStruct, Tracer)) or hasattr(x, "aval"):
            return x
        if (
            hasattr(x, "shape")
            and hasattr(x, "dtype")
            and not isinstance(x, (np.ndarray, np.generic))
        ):
            return ShapeDtypeStruct(x.shape, x.dtype)
        return x

    args = tree_map(to_struct, args)
    kwargs = tree_map(to_struct, kwargs)
    closed, out_tree = trace_pytree_fun(fun, args, kwargs, traced_for="eval_shape")
    shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
    return tree_unflatten(out_tree, shapes)
