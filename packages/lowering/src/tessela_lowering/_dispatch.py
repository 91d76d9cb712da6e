"""Eager execution: each primitive bound outside a trace runs compiled.

Importing this module installs :func:`apply_primitive` as the tracer's eager
backend (``set_eager_backend``), once: a primitive bound on concrete operands
that has no eager implementation of its own (``register_impl``) and has a
lowering rule runs here. The first call of a primitive with given operand
avals, parameters and device lowers that one equation to a module, compiles
it and caches the executable; later calls only move buffers. Placement
follows the data: results land on the device of committed operands;
operands committed to different devices are an error.
"""

from __future__ import annotations

import itertools
import operator
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import (
    ClosedJaxpr,
    Primitive,
    ShapedArray,
    config,
    eval_jaxpr,
    get_aval,
    jit_p,
)
from tessela_tracer import primitives as P
from tessela_tracer.extend import set_eager_backend

from tessela_lowering import _compile as _plans
from tessela_lowering import _devices, _hlo, _xla
from tessela_lowering._array import Array, leaf_key, signature, single_result
from tessela_lowering._devices import get_default_device
from tessela_lowering._flags import check_finite, state
from tessela_lowering._lowering import (
    LoweringRuleContext,
    ModuleContext,
    lowering_rule,
)
from tessela_lowering._lowering import _rules as _lowering_rules
from tessela_lowering._xla import Buffer, Device, Executable, ResultHandler, Value, ir

__all__ = [
    "FastCall",
    "apply_primitive",
    "cache_size",
    "clear_cache",
    "effects_barrier",
    "fast_call",
    "outputs",
    "pick_device",
]


class _Compiled:
    __slots__ = ("executable", "handlers", "host_callbacks", "out_avals")

    def __init__(
        self,
        executable: Executable,
        out_avals: list[ShapedArray],
        handlers: list[ResultHandler],
    ) -> None:
        self.executable = executable
        self.out_avals = out_avals
        self.handlers = handlers
        self.host_callbacks: list[Any] = []


FastCall = Callable[[Sequence[Any]], Any]
"""A cached executable run on the leaves of a call (Arrays, NumPy values, Python scalars)."""


def outputs(
    out_avals: Sequence[ShapedArray],
    device: Device,
    committed: bool,
    wrap: Callable[[list[Array]], Any] | None = None,
) -> Callable[[list[Buffer]], Any]:
    """A function turning an executable's output buffers into the call's result.

    Args:
      out_avals: the outputs' avals.
      device: the device they land on.
      committed: whether they are committed to it.
      wrap: applied to the list of output arrays (e.g. unflattening them);
        ``None`` returns the single output itself when there is one.

    Returns:
      ``finish(buffers)``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> x = tl.device_put(np.float32(1))
      >>> outputs([x.aval], x.device, False, list)([x._buf])
      [Array(1., dtype=float32)]
    """
    if wrap is None and len(out_avals) == 1:
        return single_result(out_avals[0], device, committed)
    avals = list(out_avals)
    sigs = [signature(a, device, committed) for a in avals]
    unwrap: Callable[[list[Array]], Any] = list if wrap is None else wrap
    new = object.__new__
    repeat = itertools.repeat
    n = len(avals)

    def finish(outs: list[Buffer]) -> Any:
        # ``make_array`` of each output, without a call per output: the
        # objects are made in C, then their fields are set.
        arrays: list[Array] = list(map(new, repeat(Array, n)))
        for out, buf, aval, sig in zip(arrays, outs, avals, sigs):  # noqa: B905
            out._buf = buf
            out.aval = aval
            out._committed = committed
            out._npy = None
            out._sig = sig
        return unwrap(arrays)

    return finish


def fast_call(
    executable: Executable,
    handlers: Sequence[ResultHandler],
    finish: Callable[[list[Buffer]], Any],
    kept: Sequence[int],
    dtypes: Sequence[np.dtype[Any] | None],
    device: Device,
    shapes: Sequence[tuple[int, ...] | None] | None = None,
    donated: Sequence[bool] = (),
    *,
    avals: tuple[Sequence[ShapedArray], Sequence[ShapedArray]] | None = None,
) -> FastCall:
    """The fast paths' call of one cached executable on a call's leaves.

    Python scalars (``lr=1e-3``, a step count) are the same few values call
    after call: each position keeps the device buffers of the last
    :data:`SCALAR_MEMO` values it copied (a zero under its sign) and passes them again (device
    arrays are immutable; donated positions copy every time).

    Args:
      executable: the compiled program (without host callbacks).
      handlers: its result handlers.
      finish: makes the result from the output buffers (see :func:`outputs`).
      kept: which leaves the program takes, in order.
      dtypes: per leaf, ``None`` for an :class:`Array` already on ``device``,
        else the dtype a host value (NumPy array or scalar, Python scalar)
        is converted to before it is copied to ``device``.
      device: where the program runs.
      shapes: per leaf, the shape of a host value (``None`` for an Array);
        by default every host value is a scalar.
      donated: per leaf, whether the program donates it (default: none).
      avals: the leaves' and the outputs' avals. Given for a program traced
        with x64 disabled that donates nothing, calls with host values but no
        Python scalar and at most :data:`ENGINE_MAX_ARRAYS` device arrays go
        through jaxlib's compiled-call object (``_xla.engine``), which moves
        them in C++.

    Returns:
      ``call(leaves)``: the result; it raises when a buffer was deleted, and
      the caller then takes its full path, which reports the error.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import lax
      >>> f = tl.jit(lambda a, b: lax.add(a, b))
      >>> f(np.float32(1), 2.0)  # the first call compiles and fills the fast path
      Array(3., dtype=float32)
      >>> f(np.float32(2), 2.0)  # later calls run through fast_call
      Array(4., dtype=float32)
    """
    kept = list(kept)
    if shapes is None:
        shapes = [None if d is None else () for d in dtypes]
    if all(d is None for d in dtypes):
        return _xla.leaves_runner(executable, handlers, finish, kept, len(dtypes))
    run = _xla.runner(executable, handlers, finish)
    # Arrays' buffers are read in C; host values are copied and inserted at
    # their places (in increasing order, so earlier places are filled).
    arrays = [i for i in kept if dtypes[i] is None or shapes[i] is None]
    # The arrays' leaves: a slice when they lead the call (a parameter tree
    # before its batch), else picked out; their buffers read by a
    # comprehension (a specialised slot read per leaf, half the instructions
    # of ``map`` over an attribute getter).
    lead = len(arrays) if arrays == list(range(len(arrays))) else None
    take = operator.itemgetter(*arrays) if len(arrays) > 1 and lead is None else None
    first = arrays[0] if len(arrays) == 1 else None
    steps: list[tuple[int, int, Any, Any, dict[Any, Buffer] | None]] = []
    for place, i in enumerate(kept):
        dtype, shape = dtypes[i], shapes[i]
        if dtype is not None and shape is not None:
            keep = shape == () and not (donated and donated[i])
            memo: dict[Any, Buffer] | None = {} if keep else None
            steps.append((place, i, dtype, _xla.host_putter(device, shape, dtype), memo))
    asarray = np.asarray
    scalars = _PY_SCALARS

    def call(leaves: Sequence[Any]) -> Any:
        if first is not None:
            bufs = [leaves[first]._buf]
        elif lead:
            bufs = [x._buf for x in leaves[:lead]]
        elif take is not None:
            bufs = [x._buf for x in take(leaves)]
        else:
            bufs = []
        for place, i, dtype, put, memo in steps:
            x = leaves[i]
            if memo is None or type(x) not in scalars:
                bufs.insert(place, put(asarray(x, dtype)))
                continue
            # A zero is kept under its text too: 0.0 == -0.0, but they differ.
            key = x if x else (x, repr(x))
            buf = memo.get(key)
            if buf is None:
                buf = put(asarray(x, dtype))
                if len(memo) >= SCALAR_MEMO:
                    memo.clear()
                memo[key] = buf
            bufs.insert(place, buf)
        return run(bufs)

    if avals is None or any(donated) or len(arrays) > ENGINE_MAX_ARRAYS:
        return call

    def first_call(raw: Sequence[Any]) -> list[Buffer]:
        # The engine's first call: host values moved as above, buffers as given.
        bufs = [raw[i] for i in arrays]
        for place, i, dtype, put, _ in steps:
            bufs.insert(place, put(asarray(raw[i], dtype)))
        return _xla.execute(executable, bufs, handlers)

    host = [i for i, d in enumerate(dtypes) if d is not None and shapes[i] is not None]
    if all(avals[0][i].weak_type for i in host):  # Python scalars only: kept copies
        return call  # beat transfers; a NumPy array among them moves faster in C++
    engine = _xla.engine(executable, first_call, avals[0], avals[1], kept, host, device)
    if engine is None:
        return call
    cell: list[Callable[..., list[Buffer]] | None] = [engine.call]
    miss = _xla.EngineMiss
    # Every leaf a host value (the common NumPy-batch call): passed as it is.
    all_host = all(d is not None for d in dtypes)

    def engine_call(leaves: Sequence[Any]) -> Any:
        cpp = cell[0]
        if cpp is None:
            return call(leaves)
        try:
            if all_host:
                return finish(cpp(*leaves))
            return finish(cpp(*map(getattr, leaves, _BUFS, leaves)))
        except miss:
            if not engine.usable:
                cell[0] = None
            return call(leaves)

    return engine_call


ENGINE_MAX_ARRAYS = 10
"""The most device arrays a fast call passes to jaxlib's compiled-call object.

Measured on one CPU device (one NumPy argument beside ``k`` device arrays,
µs per call, compiled-call object / Python route): k=1 8.0/9.2, k=8
18.3/18.9, k=16 30.3/28.8, k=32 52.3/49.0: the object checks every device
array at a cost that outgrows the transfer it saves. A call with more device
arrays (a parameter pytree beside a NumPy batch) moves its host values from
Python, as does a donating call (the Adam row of ``bench_calls.py`` took
232 µs through the object against 204 µs).
"""

EAGER_CACHE_SIZE = 2048
"""How many eager programs (primitive, operand types, parameters) are kept before the tables start again."""

SCALAR_MEMO = 16
"""How many Python-scalar values each argument position of a fast call keeps on device."""
_PY_SCALARS = frozenset({int, float, bool})


_cache: dict[tuple[Any, ...], _Compiled] = {}
# The fast path's table: keyed on (primitive, default-device setting,
# *parameter items, *operand signatures) for Array operands, or on
# (primitive, default-device setting, _HOST, x64 flag, *parameter items,
# *leaf keys) when some operand is a NumPy value or Python scalar; all of
# these hash and compare in C.
_fast: dict[tuple[Any, ...], FastCall] = {}
_HOST = object()
_default_device_var = _devices._default_device
_cache_lock = threading.Lock()
_sig_of = operator.attrgetter("_sig")
_BUFS = itertools.repeat("_buf")  # getattr(leaf, "_buf", leaf): a buffer or the host value


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return value


def pick_device(arrays: Sequence[Array], /) -> tuple[Device, bool]:
    """The device a computation on ``arrays`` runs on, and whether it is committed.

    Raises:
      ValueError: two operands are committed to different devices.
    """
    chosen: Array | None = None
    for i, a in enumerate(arrays):
        if a._committed:
            if chosen is None:
                chosen = a
            elif a.device != chosen.device:
                first = arrays.index(chosen)
                raise ValueError(
                    "Received incompatible devices for the computation: argument "
                    f"{first} is committed to {chosen.device!r} and argument {i} is "
                    f"committed to {a.device!r}. Move them to one device first, e.g. "
                    "with device_put(x, device)."
                )
    if chosen is None:
        return get_default_device(), False
    return chosen.device, True


def _as_array(x: Any, device: Device) -> Array:
    if isinstance(x, Array):
        return x
    aval = get_aval(x)
    return Array(_xla.device_put(np.asarray(x, dtype=aval.dtype), device), aval, False)


def _compile(
    prim: Primitive, avals: tuple[ShapedArray, ...], params: dict[str, Any], device: Device
) -> _Compiled:
    start = time.perf_counter()
    out = prim.abstract_eval(*avals, **params)
    out_avals: list[ShapedArray] = list(out) if prim.multiple_results else [out]
    platform = _xla.device_platform(device)
    rule = lowering_rule(prim, platform)
    if rule is None:
        raise NotImplementedError(
            f"no lowering rule for primitive {prim.name!r} on platform {platform!r}; "
            f"register one with tessela_lowering.register_lowering."
        )

    callbacks: list[Any] = []

    def body(module: ir.Module, args: list[Value]) -> list[Value]:
        mctx = ModuleContext(module, platform, callbacks)
        mctx.unique_name("main")
        ctx = LoweringRuleContext(mctx, prim, avals, out_avals)
        return list(rule(ctx, *args, **params))

    text = _hlo.build_module(
        [_hlo.ArgSpec(a.shape, a.dtype) for a in avals],
        [(a.shape, a.dtype) for a in out_avals],
        body,
        name=prim.name,
    )
    name = params["name"] if prim is jit_p else prim.name
    exe = _plans.reuse_or_compile(text, device, callbacks, name, avals, start)
    handlers = [_xla.result_handler(a, device) for a in out_avals]
    compiled = _Compiled(exe, out_avals, handlers)
    compiled.host_callbacks = callbacks
    return compiled


def apply_primitive(prim: Primitive, args: Sequence[Any], params: dict[str, Any], /) -> Any:
    """Run one primitive on concrete operands through a cached executable.

    This is the tracer's eager backend, with its signature: the root trace
    calls it as is for every primitive that has a lowering rule and no
    eager implementation of its own.

    Args:
      prim: a primitive with an abstract-eval and a lowering rule.
      args: the operands: arrays, NumPy values or Python scalars.
      params: the primitive's parameters.

    Returns:
      An :class:`Array`, or a list of them for ``multiple_results`` primitives.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import primitives as P
      >>> tl.apply_primitive(P.add_p, (np.float32(1.0), np.float32(2.0)), {})
      Array(3., dtype=float32)
    """
    if prim is jit_p and any(params["donated_invars"]):
        return _run_donating_jit(args, params)
    fast_key: tuple[Any, ...] | None = None
    leaves: Sequence[Any] = args
    if state.fast:
        # Unary and binary operations on Arrays without parameters spelled
        # out: about 0.3 us cheaper than the general key.
        n = len(args)
        try:
            if n == 2 and not params:
                a, b = args
                fast_key = (prim, _default_device_var.get(), a._sig, b._sig)
            elif n == 1 and not params:
                (a,) = args
                fast_key = (prim, _default_device_var.get(), a._sig)
            else:
                fast_key = (prim, _default_device_var.get(), *params.items(), *map(_sig_of, args))
        except AttributeError:  # a NumPy value or Python scalar among the operands?
            fast_key = _host_key(prim, args, params)
        try:
            fast = _fast.get(fast_key) if fast_key is not None else None
        except TypeError:  # an unhashable parameter
            fast_key = fast = None
        if fast is not None:
            try:
                return fast(leaves)
            except Exception:
                pass  # e.g. a deleted operand: the slow path below says what went wrong
    if prim is P.slice_p and params["strides"] is None:
        starts = _in_bounds_starts(args[0], params)
        if starts is not None:
            sizes = tuple(hi - lo for lo, hi in zip(starts, params["limit_indices"]))  # noqa: B905
            return apply_primitive(P.dynamic_slice_p, (args[0], *starts), {"slice_sizes": sizes})
    committed_arrays = [a for a in args if isinstance(a, Array)]
    device, committed = pick_device(committed_arrays)
    arrays = [_as_array(a, device) for a in args]
    avals = tuple(a.aval for a in arrays)
    key = (prim, avals, _freeze(params), device)
    entry = _cache.get(key)
    if entry is None:
        entry = _compile(prim, avals, params, device)
        with _cache_lock:
            if len(_cache) >= EAGER_CACHE_SIZE:
                # Eager control flow keys on a new jaxpr at every call: start
                # again rather than grow (the executables stay in ``_plans.loaded``).
                _cache.clear()
                _fast.clear()
            _cache[key] = entry
    if fast_key is not None and not entry.host_callbacks:
        _remember(fast_key, entry, args, avals, device, committed, prim.multiple_results)
    buffers = []
    for a in arrays:
        buf = a._live_buffer()
        if _xla.buffer_device(buf) != device:
            buf = _xla.copy_to_device(buf, device)
        buffers.append(buf)
    run = _xla.execute_and_wait if entry.host_callbacks else _xla.execute
    outs = run(entry.executable, buffers, entry.handlers)
    results = [Array(b, aval, committed) for b, aval in zip(outs, entry.out_avals, strict=True)]
    if state.check_values:
        if prim is jit_p:
            _check_jit_results(results, arrays, params)
        else:
            check_finite(prim.name, results)
    return results if prim.multiple_results else results[0]


def _in_bounds_starts(x: Any, params: dict[str, Any]) -> tuple[int, ...] | None:
    # Op by op, a slice without strides runs as ``dynamic_slice`` with its
    # starts as operands (in bounds, so nothing clamps): one program per
    # result shape instead of one per position, as JAX runs it, so that
    # ``x[i]`` in a Python loop compiles once. Under a trace it stays a static
    # slice. None (the slice's own program) for key arrays and for indices
    # the slice's shape rule refuses.
    aval = get_aval(x)
    starts, limits = params["start_indices"], params["limit_indices"]
    if not isinstance(aval.dtype, np.dtype) or not len(starts) == len(limits) == aval.ndim:
        return None
    for lo, hi, d in zip(starts, limits, aval.shape):  # noqa: B905
        if not 0 <= lo <= hi <= d:
            return None
    return tuple(starts)


_donating: dict[Any, _plans.Executable] = {}
_donating_lock = threading.RLock()  # held while one of them compiles


def _run_donating_jit(args: Sequence[Any], params: dict[str, Any]) -> list[Array]:
    """A ``jit_p`` that donates, evaluated eagerly (a donating jit under ``vmap`` or
    ``grad``): compiled as ``jit`` compiles it, so the donated buffers are reused."""
    device, committed = pick_device([a for a in args if isinstance(a, Array)])
    avals = tuple(get_aval(a) for a in args)
    donated = tuple(params["donated_invars"])
    jaxpr = params["jaxpr"]
    key = (jaxpr, avals, donated, device, committed, config.trace_key)
    exe = _plans.cached_executable(
        _donating, _donating_lock, key, lambda: (jaxpr, [], None), params["name"], avals, donated,
        keep_unused=params["keep_unused"], device=device, committed=committed,
    )  # fmt: skip
    return exe.run(list(args))


def _host_key(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    try:
        if len(args) == 2:  # a binary operation: NumPy arrays' leaf keys spelled out
            a, b = args
            a_key = (a.dtype, a.shape) if type(a) is np.ndarray else leaf_key(a)
            b_key = (b.dtype, b.shape) if type(b) is np.ndarray else leaf_key(b)
            return (prim, _default_device_var.get(), _HOST, config.x64_enabled, *params.items(),
                    a_key, b_key)  # fmt: skip
        return (prim, _default_device_var.get(), _HOST, config.x64_enabled, *params.items(),
                *map(leaf_key, args))  # fmt: skip
    except TypeError:  # an operand the fast path does not move (a tracer, a list)
        return None


def _remember(
    fast_key: Any,
    entry: _Compiled,
    args: Sequence[Any],
    avals: Sequence[ShapedArray],
    device: Device,
    committed: bool,
    multiple_results: bool,
) -> None:
    # Arrays must already be on ``device`` (their signatures, in the key, name
    # their devices); host values are converted to their aval's dtype.
    dtypes: list[np.dtype[Any] | None] = []
    shapes: list[tuple[int, ...] | None] = []
    for x, aval in zip(args, avals, strict=True):
        if type(x) is Array:
            if _xla.buffer_device(x._buf) != device:
                return
            dtypes.append(None)
            shapes.append(None)
        else:
            dtypes.append(aval.dtype)
            shapes.append(aval.shape)
    finish = outputs(entry.out_avals, device, committed, list if multiple_results else None)
    call = fast_call(
        entry.executable, entry.handlers, finish, range(len(args)), dtypes, device, shapes,
        avals=None if config.x64_enabled else (avals, entry.out_avals),
    )  # fmt: skip
    with _cache_lock:
        if len(_fast) >= EAGER_CACHE_SIZE:
            _fast.clear()
        _fast[fast_key] = call


def _check_jit_results(results: list[Array], arrays: list[Array], params: dict[str, Any]) -> None:
    try:
        check_finite(jit_p.name, results)
    except FloatingPointError as err:
        error = err
    else:
        return
    jaxpr = params.get("jaxpr")
    if isinstance(jaxpr, ClosedJaxpr):
        # A jit equation evaluated eagerly (e.g. under grad): run its body op by
        # op, so the error names the primitive inside it; nested jit equations
        # come back here and do the same.
        eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *arrays)
    raise error


def cache_size() -> int:
    """How many primitive executables are cached."""
    return len(_cache)


def clear_cache() -> None:
    """Drop every cached primitive executable."""
    with _cache_lock:
        _cache.clear()
        _fast.clear()
        _donating.clear()


def effects_barrier() -> None:
    """Wait until every host callback of the programs already started has run.

    Programs with host callbacks run synchronously in Tessela, so when a call
    returns its callbacks have run; this function exists so that code written
    for JAX (``jax.effects_barrier()``) ports unchanged.

    Returns:
      None.

    Example:
      >>> from tessela_lowering import effects_barrier
      >>> effects_barrier()
    """
    return None


# ``has_lowering`` as the bound C method of its table: asked on every eager operation.
set_eager_backend(apply_primitive, _lowering_rules.__contains__)
