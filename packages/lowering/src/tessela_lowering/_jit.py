"""Compiled execution of ``jit``: the tracer's jit backend, installed at import.

``tessela_lowering.jit`` is ``tessela_tracer.jit``: one object type, whose
staging (options, static arguments, tracing, the ``jit_p`` equation under an
enclosing trace) the tracer owns. This module adds what runs a call on
concrete arguments (:func:`set_jit_backend`): a compiled XLA executable per
argument signature, a fast dispatch table in front of it, donation, and the
ahead-of-time stages (``.trace``, ``.lower``, ``.compile``).

A call first builds its fast key: the current trace's type, the default-device
setting, the flags that change tracing (``config.trace_key``: x64, promotion, precision), the number of positional arguments, the keyword names,
the static values and one key per leaf (an :class:`Array`'s signature, a host
value's dtype and shape, a Python scalar's type; see ``leaf_key``). Leaves are
the top-level arguments when none is a container, else the flattened pytree
(whose structure joins the key). One dict lookup finds the cached call, which
moves host values to the device and runs the executable. A miss, or any
failure on the fast path (a deleted buffer, a committed-device conflict),
takes the full path, which reports errors exactly as JAX does, and fills the
table for the next call. Before the key is built, a call of three or more
top-level leaves tries the function's probe (``JitCache.probe``): the entry
the full path last filled for such a call, served when the context, the
call's form and each leaf's key are the same (compared, not hashed); a
function whose calls vary drops it at the first call it does not serve.

Calls on sharded arguments use the same table: a :class:`ShardedArray`'s
signature names its sharding, so the key holds every argument's aval and
sharding, and the cached call runs the SPMD executable the full path compiled
(``_spmd_jit.fast_sharded_call``), its results laid out as that program's
output shardings. So do calls of a jit with ``in_shardings``/``out_shardings``
whose sharded arguments are already laid out as the program takes them
(outside a mesh context; a donating call keeps the full path).
"""

from __future__ import annotations

import contextlib
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_pytree import tree_flatten, tree_unflatten
from tessela_tracer import EvalTrace, Tracer, config, get_aval, get_current_trace, jit
from tessela_tracer.extend import JitCache, JitWrapped, clear_jit_caches, set_jit_backend

from tessela_lowering import _devices, _spmd, _spmd_jit, _xla
from tessela_lowering._aot import Traced
from tessela_lowering._array import PY_SCALAR_TYPES, Array, leaf_key
from tessela_lowering._compile import (
    Executable,
    Plan,
    cached_executable,
    clear_loaded,
    make_plan,
    short_type,
)
from tessela_lowering._dispatch import FastCall, fast_call, outputs, pick_device
from tessela_lowering._dispatch import clear_cache as _clear_eager_cache
from tessela_lowering._flags import check_finite, logger, rerun_deoptimized, state
from tessela_lowering._mesh import NamedSharding
from tessela_lowering._sharded import ShardedArray, any_sharded
from tessela_lowering._xla import Device

__all__ = ["JitWrapped", "clear_caches", "jit"]

_default_device_var = _devices._default_device
MISS = object()  # what a probe returns for a call it does not serve
_LEAF = tree_flatten(0)[1]
_sig_of = operator.attrgetter("_sig")


class _Runtime:
    """Compiled executables and fast calls of one function under one set of options."""

    __slots__ = ("full", "last_key")

    def __init__(self) -> None:
        self.full: dict[Any, Executable] = {}
        self.last_key: Any = None


def _runtime(jitted: JitWrapped) -> _Runtime:
    cache = jitted._cache
    runtime = cache.runtime
    if runtime is None:
        with cache.lock:
            runtime = cache.runtime
            if runtime is None:
                runtime = cache.runtime = _Runtime()
    return runtime  # type: ignore[no-any-return]


def clear_caches() -> None:
    """Drop every compiled executable: those of ``jit`` and of eager operations.

    The next call of each jitted function traces and compiles again, as after
    ``jax.clear_caches()``. The persistent compilation cache on disk is kept.

    Returns:
      None.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import lax
      >>> traces = []
      >>> f = tl.jit(lambda x: traces.append(1) or lax.neg(x))
      >>> _ = f(np.float32(1)); _ = f(np.float32(2)); len(traces)
      1
      >>> tl.clear_caches()
      >>> _ = f(np.float32(3)); len(traces)
      2
    """
    clear_jit_caches()
    _clear_eager_cache()
    _spmd_jit.clear()
    clear_loaded()


# ------------------------------------------------------------------ calling


def _call(jitted: JitWrapped, /, *args: Any, **kwargs: Any) -> Any:
    # ``JitWrapped.__call__`` (``set_jit_backend``). The fast path: the key
    # is the context (trace type, default device, flags), what the call's
    # form fixes (``prefix``: positional count, keyword names and static
    # values; None for positional leaves alone) and one key per leaf: an
    # Array's signature, else ``leaf_key``'s. One or two leaves are keyed
    # spelled out (a NumPy array's key inline), more by ``_leaf_keys`` after
    # the function's probe (``_probe``) missed; ``_general_key`` gives the
    # same keys when the entry is stored, and ``_tree_key`` those of calls
    # with pytrees among them. The probe gets the context ``_call`` read.
    if state.fast:
        leaves: Any = args
        prefix: Any = None
        if kwargs:  # as ``_split``, spelled out
            if len(kwargs) == 1 and not jitted._has_static:
                (prefix,) = kwargs
                leaves = (*args, kwargs[prefix])
            else:
                n = len(args)
                names = tuple(kwargs)
                leaves, prefix = (
                    jitted._kw_splitters.get((n, names)) or jitted._kw_splitter(n, names)
                )(args, kwargs)
        elif jitted._has_static:  # as ``_split``, spelled out
            n = len(args)
            static, dyn = jitted._splitters.get(n) or jitted._splitter(n)
            leaves = dyn(args)
            prefix = (n, static(args))
        trace_type = type(get_current_trace())
        where = _default_device_var.get()
        flags = config.trace_key
        key: Any = None
        try:
            if len(leaves) == 2:
                a, b = leaves
                a_sig = (
                    a._sig
                    if type(a) is Array
                    else (a.dtype, a.shape)
                    if (kind := type(a)) is np.ndarray
                    else kind
                    if kind in PY_SCALAR_TYPES
                    else _host_key(a)
                )
                b_sig = (
                    b._sig
                    if type(b) is Array
                    else (b.dtype, b.shape)
                    if (kind := type(b)) is np.ndarray
                    else kind
                    if kind in PY_SCALAR_TYPES
                    else _host_key(b)
                )
                if a_sig is not None and b_sig is not None:
                    key = (trace_type, where, flags, prefix, a_sig, b_sig)
            elif len(leaves) == 1:
                (a,) = leaves
                a_sig = (
                    a._sig
                    if type(a) is Array
                    else (a.dtype, a.shape)
                    if (kind := type(a)) is np.ndarray
                    else kind
                    if kind in PY_SCALAR_TYPES
                    else _host_key(a)
                )
                if a_sig is not None:
                    key = (trace_type, where, flags, prefix, a_sig)
            else:
                if (probe := jitted._cache.probe) is not None:
                    try:
                        out = probe(leaves, prefix, trace_type, where, flags)
                    except Exception:  # a deleted argument, a static value's ``==``
                        jitted._cache.probe = None
                        return _call_slow(jitted, args, kwargs)
                    if out is not MISS:
                        return out
                keys = _leaf_keys(leaves)
                if keys is not None:
                    key = (trace_type, where, flags, prefix, *keys)
        except (AttributeError, TypeError):  # a custom pytree node, a tracer
            key = None
        if key is None:  # pytrees among the arguments (or a tracer)
            key, leaves = _tree_key((trace_type, where, flags), prefix, leaves)
        try:
            fast = jitted._fast.get(key)
        except TypeError:  # an unhashable static argument: the full path says so
            fast = None
        if fast is not None:
            try:
                return fast(leaves)
            except Exception:  # e.g. a deleted argument: the full path says so
                pass
    return _call_slow(jitted, args, kwargs)


def _split(
    jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], str | tuple[Any, ...]]:
    # A call with keyword or static arguments: its dynamic top-level arguments
    # (positional, then keyword in sorted name order, as the full path
    # flattens them) and the key's prefix. One keyword of a function without
    # static arguments is keyed on its name alone; other keyword calls on the
    # tracer's per-form split (a triple naming the form, keyword order not
    # changing it); positional statics alone give ``(count, values)``, a pair.
    n = len(args)
    if kwargs:
        names = tuple(kwargs)
        if len(names) == 1 and not jitted._has_static:
            return (*args, kwargs[names[0]]), names[0]
        return (jitted._kw_splitters.get((n, names)) or jitted._kw_splitter(n, names))(args, kwargs)
    static, dyn = jitted._splitters.get(n) or jitted._splitter(n)
    return dyn(args), (n, static(args))


_CONTAINERS = frozenset({dict, list, tuple})


def _host_key(x: Any) -> Any:
    # The key of a leaf that is not an Array, a NumPy array or a Python
    # scalar (those are spelled out at the callers): the signature of another
    # array type (a sharded one), else ``leaf_key``; None for a built-in
    # container (a pytree argument, whose key is its structure's: no
    # exception raised for it).
    sig = getattr(x, "_sig", None)
    if sig is not None:
        return sig
    return None if type(x) in _CONTAINERS else leaf_key(x)


def _leaf_keys(leaves: Sequence[Any]) -> tuple[Any, ...] | None:
    # ``map(leaf_key, leaves)`` in one pass: an Array's signature, a NumPy
    # array's and a Python scalar's key spelled out, ``_host_key`` of the
    # others (a sharded array's signature, ``leaf_key``); None for a
    # built-in container (a pytree argument), TypeError for another
    # container or a tracer. (Measured against C-level maps over the leaves
    # with ``operator.call`` or ``getattr``, and against a ``getattr`` map
    # whose misses are then found by ``list.index``: this comprehension is
    # faster for 3 leaves and for 25.) Per leaf, in instructions: testing the
    # exact type first reads an Array's signature as a plain slot (180 less
    # than ``getattr`` with a default), and only a call that reached
    # ``leaf_key`` (``other`` set) scans the keys for None (140 less).
    other: Any = _NO_OTHER
    keys = tuple(
        [
            x._sig
            if type(x) is Array
            else (x.dtype, x.shape)
            if (kind := type(x)) is np.ndarray
            else kind
            if kind in PY_SCALAR_TYPES
            else (other := _host_key(x))
            for x in leaves
        ]
    )
    return None if other is not _NO_OTHER and None in keys else keys


_NO_OTHER = object()  # ``_leaf_keys``: no leaf was keyed by ``leaf_key``


def _fast_key(
    jitted: JitWrapped,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    head: tuple[Any, Any, Any] | None = None,
) -> tuple[Any, Sequence[Any]]:
    # The general key, and the leaves in the order of the full path's flat
    # arguments (``None, []`` for a call the fast path does not take).
    # Top-level leaves key as in ``_call``; pytrees of arguments are flattened,
    # their structure joining the key. ``head``: the current trace's type, the
    # default-device setting, the flags.
    if head is None:
        head = _head()
    return _general_key(head, *_prefixed(jitted, args, kwargs))


def _head() -> tuple[Any, Any, Any]:
    # A call's context: the current trace's type, default device, flags.
    return (type(get_current_trace()), _default_device_var.get(), config.trace_key)


def _prefixed(
    jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Sequence[Any]]:
    # The key's prefix and the call's top-level dynamic arguments (``_split``).
    if kwargs or jitted._has_static:
        leaves, prefix = _split(jitted, args, kwargs)
        return prefix, leaves
    return None, args


def _general_key(
    head: tuple[Any, ...], prefix: Any, leaves: Sequence[Any]
) -> tuple[Any, Sequence[Any]]:
    # The key of top-level leaves (``leaf_key`` of each), else of pytrees.
    try:
        keys = _leaf_keys(leaves)
    except TypeError:  # a custom pytree node (or a tracer) among the arguments
        keys = None
    if keys is None:
        return _tree_key(head, prefix, leaves)
    return (*head, prefix, *keys), leaves


def _tree_key(
    head: tuple[Any, ...], prefix: Any, leaves: Sequence[Any]
) -> tuple[Any, Sequence[Any]]:
    # Top-level arguments with pytrees among them: flattened, their structure
    # joining the key; ``None, []`` when a leaf has no dispatch key (a tracer).
    try:
        flat, tree = tree_flatten(leaves)
        keys = _leaf_keys(flat)
    except TypeError:
        return None, []
    return (None, []) if keys is None else ((*head, prefix, tree, *keys), flat)


def _remember(
    jitted: JitWrapped,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    exe: Executable,
    flat: list[Any],
) -> None:
    # After a full call: the fast path's entry for calls like this one.
    plan = exe.plan
    device = plan.device
    dtypes: list[Any] = []
    shapes: list[Any] = []
    for x, aval in zip(flat, plan.in_avals, strict=True):
        if type(x) is Array:
            if _xla.buffer_device(x._buf) != device:
                return  # the full path copies it
            dtypes.append(None)
            shapes.append(None)
        else:
            dtypes.append(aval.dtype)
            shapes.append(aval.shape)
    head = _head()
    prefix, top = _prefixed(jitted, args, kwargs)
    key, leaves = _general_key(head, prefix, top)
    if key is None or len(leaves) != len(flat):
        return
    out_tree = plan.out_tree
    wrap = None if out_tree == _LEAF else functools.partial(tree_unflatten, out_tree)
    finish = outputs(exe.out_avals, device, plan.committed, wrap)
    donated = jitted._donation(args, kwargs) if jitted._donates else ()
    avals = None if config.x64_enabled else (plan.in_avals, exe.out_avals)
    call = fast_call(
        exe.executable, exe.handlers, finish, exe.kept, dtypes, device, shapes, donated,
        avals=avals,
    )  # fmt: skip
    with contextlib.suppress(TypeError):  # an unhashable static argument
        jitted._fast[key] = call
    if leaves is top and len(leaves) > 2:  # no pytree; one or two leaves key faster
        jitted._cache.probe = _probe(jitted._cache, head, prefix, leaves, call)


def _probe(
    cache: JitCache,
    head: tuple[Any, Any, Any],
    prefix: Any,
    leaves: Sequence[Any],
    run: FastCall,
) -> Callable[..., Any]:
    # The function's probe (``JitCache.probe``): the entry last remembered
    # for three or more top-level leaves (``_call`` keys one or two spelled
    # out, faster than a probe), tried before a call's key is built. A call
    # in the same context (the trace type, default-device setting and flags
    # of ``head``, compared by identity), of the same form (``prefix``: the
    # keyword names and static values, compared with ``==``) whose leaves
    # have the entry's keys (an Array's signature, a NumPy array's dtype and
    # shape, a Python scalar's type, ``leaf_key`` of any other leaf: those of
    # ``_leaf_keys``, compared rather than hashed) is the entry's call. The
    # first call in the same context that it does not serve drops it: the
    # function's calls vary, and each would pay for a probe that misses.
    trace_type, where, flags = head
    ndarray = np.ndarray
    expect = _leaf_keys(leaves)
    n = len(leaves)

    def probe(
        args: Sequence[Any], form: Any, trace_now: Any, where_now: Any, flags_now: Any
    ) -> Any:
        if trace_now is not trace_type:  # staged: not a call like these
            return MISS
        if (
            len(args) == n
            and flags_now is flags
            and where_now is where
            and (form is prefix or form == prefix)
        ):
            for x, e in zip(args, expect):  # type: ignore[arg-type]  # noqa: B905 (equal lengths)
                kind = type(x)
                if kind is Array:
                    if x._sig != e:
                        break
                elif kind is ndarray:
                    if (x.dtype, x.shape) != e:
                        break
                elif kind in PY_SCALAR_TYPES:
                    if kind is not e:
                        break
                elif _host_key(x) != e:  # NumPy scalars, array subclasses, ...: as keyed
                    break
            else:
                return run(args)
        cache.probe = None
        return MISS

    return probe


def _identical(xs: Sequence[Any], ys: Sequence[Any]) -> bool:
    return len(xs) == len(ys) and all(a is b for a, b in zip(xs, ys, strict=True))


def _remember_sharded(
    jitted: JitWrapped,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    flat: list[Any],
    out: Any,
    run: tuple[Any, Any, Sequence[Any], list[Any]],
) -> None:
    # After a full call on sharded arguments: the fast path's entry, when the
    # call's result is exactly the last executable's outputs (nothing ran after
    # it) and every leaf is a ShardedArray that the executable took as it is.
    exe, specs, operands, results = run
    n = len(operands) - len(flat)
    if n < 0 or not _identical(operands[n:], flat):
        return  # another program ran last
    for x, spec in zip(flat, specs[n:], strict=True):
        if type(x) is not ShardedArray or x.sharding != NamedSharding(exe.mesh, spec):
            return  # the full path moves it
    key = _key_of_leaves(jitted, args, kwargs, flat)
    out_leaves, out_tree = tree_flatten(out)
    if key is None or not _identical(out_leaves, results):
        return
    wrap = (
        operator.itemgetter(0) if out_tree == _LEAF else functools.partial(tree_unflatten, out_tree)
    )
    call = _spmd_jit.fast_sharded_call(exe, operands[:n], specs[:n], wrap)
    with contextlib.suppress(TypeError):  # an unhashable static argument
        jitted._fast[key] = call


def _remember_fast(
    jitted: JitWrapped,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    flat: list[Any],
    call: Any,
) -> None:
    # The fast path's entry for calls like this one (a jit with shardings).
    key = _key_of_leaves(jitted, args, kwargs, flat)
    if key is None:
        return
    with contextlib.suppress(TypeError):  # an unhashable static argument
        jitted._fast[key] = call


def _key_of_leaves(
    jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any], flat: list[Any]
) -> Any:
    # The fast key of a call, when the fast path would see the very leaves the
    # full path took; else None.
    key, leaves = _fast_key(jitted, args, kwargs)
    return key if key is not None and _identical(leaves, flat) else None


def _call_slow(jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if state.disable_jit:
        return jitted._fun(*args, **kwargs)
    static, flat, in_tree = jitted._split(args, kwargs)
    if _spmd_jit.wants_mesh(jitted, flat):  # shardings
        remember = None
        if state.fast and not state.check_values and not jitted._donates:
            remember = functools.partial(_remember_fast, jitted, args, kwargs, flat)
        return _spmd_jit.call(jitted, args, kwargs, static, flat, in_tree, remember)
    if type(get_current_trace()) is not EvalTrace or any(isinstance(x, Tracer) for x in flat):
        return jitted._bind(args, kwargs, static, flat, in_tree)
    if any_sharded(flat):  # jit_p's eager run partitions the program over the mesh
        _spmd.last_jit_run()
        out = jitted._bind(args, kwargs, static, flat, in_tree)
        run = _spmd.last_jit_run()
        if run is not None and state.fast and not state.check_values:
            _remember_sharded(jitted, args, kwargs, flat, out, run)
        return out
    runtime = _runtime(jitted)
    exe = _executable(jitted, runtime, args, kwargs, static, flat, in_tree)
    if _spmd_jit.constrained(exe.plan.closed):  # sharding constraints over a mesh
        return _spmd_jit.call(jitted, args, kwargs, static, flat, in_tree)
    res = exe.run(flat)
    if state.check_values:
        _check(jitted, flat, res, args, kwargs)
    elif state.fast and not exe.host_callbacks:
        _remember(jitted, args, kwargs, exe, flat)
    return tree_unflatten(exe.plan.out_tree, res)


def _placement(jitted: JitWrapped, flat: list[Any]) -> tuple[Device, bool]:
    if jitted.device is not None:
        return jitted.device, True
    arrays = [x for x in flat if isinstance(x, Array)]
    device, committed = pick_device(arrays)
    if jitted.backend is not None and not committed:
        return _devices.devices(jitted.backend)[0], True
    return device, committed


def _executable(
    jitted: JitWrapped,
    runtime: _Runtime,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static: Any,
    flat: list[Any],
    in_tree: Any,
) -> Executable:
    avals = tuple(get_aval(x) for x in flat)
    device, committed = _placement(jitted, flat)
    donated = tuple(jitted._donation(args, kwargs)) if jitted._donates else ()
    key = (in_tree, static, avals, device, committed, config.trace_key, donated)

    def on_miss() -> None:
        if state.explain_cache_misses:
            _explain(jitted._name, runtime.last_key, key)
        runtime.last_key = key

    return cached_executable(
        runtime.full, jitted._cache.lock, key, lambda: jitted._trace(args, kwargs),
        jitted._name, avals, donated or (False,) * len(flat), keep_unused=jitted.keep_unused,
        device=device, committed=committed, on_miss=on_miss,
    )  # fmt: skip


def _explain(name: str, last_key: Any, key: Any) -> None:
    if last_key is None:
        logger.warning("TRACING CACHE MISS for %s: first call.", name)
        return
    names = ("pytree structure", "static arguments", "argument types", "device",
             "commitment", "flags that change tracing (x64, promotion, precision)", "donation")  # fmt: skip
    reasons = []
    for what, old, new in zip(names, last_key, key, strict=True):
        if old != new:
            if what == "argument types" and len(old) == len(new):
                diffs = [
                    f"argument {i}: {short_type(a)}{' (weak)' if a.weak_type else ''} "
                    f"instead of {short_type(b)}{' (weak)' if b.weak_type else ''}"
                    for i, (a, b) in enumerate(zip(new, old, strict=True)) if a != b
                ]  # fmt: skip
                reasons.extend(diffs)
            else:
                reasons.append(f"{what} changed from {old} to {new}")
    logger.warning("TRACING CACHE MISS for %s because:\n  %s", name, "\n  ".join(reasons))


def _check(
    jitted: JitWrapped,
    flat: Sequence[Any],
    res: list[Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    try:
        check_finite(f"jit({jitted._name})", res)
    except FloatingPointError as err:
        error = err
    else:
        return
    # Outside the ``except`` block, so that the error of the re-run is not
    # chained to this one and its traceback runs through the user's code.
    rerun_deoptimized(error, jitted._fun, args, kwargs, flat)


# ------------------------------------------------------------------ stages


def _plan(jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Plan, Any]:
    _, flat, in_tree = jitted._split(args, kwargs)
    avals = tuple(get_aval(x) for x in flat)
    device, committed = _placement(jitted, flat)
    jaxpr, consts, out_tree = jitted._trace(args, kwargs)
    plan = make_plan(
        jitted._name, jaxpr, consts, out_tree, avals, jitted._donation(args, kwargs),
        keep_unused=jitted.keep_unused, device=device, committed=committed,
    )  # fmt: skip
    return plan, in_tree


def _trace_stage(jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Traced:
    static, flat, in_tree = jitted._split(args, kwargs)
    spmd = None
    if _spmd_jit.wants_mesh(jitted, flat):  # shardings
        spmd, _ = _spmd_jit.stage(jitted, args, kwargs, static, flat, in_tree)
    plan, in_tree = (spmd.plan, in_tree) if spmd is not None else _plan(jitted, args, kwargs)
    if spmd is None and _spmd_jit.constrained(plan.closed):  # sharding constraints
        spmd, _ = _spmd_jit.stage(jitted, args, kwargs, static, flat, in_tree)
    return Traced(spmd.plan, in_tree, spmd) if spmd is not None else Traced(plan, in_tree)


set_jit_backend(_call, _trace_stage)
