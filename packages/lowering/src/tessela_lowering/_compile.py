"""From a traced function to a loaded executable, and running it.

A :class:`Plan` is everything known after tracing one call of a jitted
function: the jaxpr (constants embedded in the program as JAX embeds them,
unused inputs pruned unless ``keep_unused``), the argument avals, which inputs are donated
and to which outputs, and where it runs. :func:`compile_plan` lowers and
compiles it (through the persistent cache when
``jax_compilation_cache_dir`` is set) into an :class:`Executable` that
:meth:`Executable.run` calls on flat arguments.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, MutableMapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from tessela_pytree import PyTreeDef
from tessela_tracer import ClosedJaxpr, Jaxpr, ShapedArray, get_aval
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _xla
from tessela_lowering._array import INVALID_BUFFER, Array, _deleted_error, _donated_error
from tessela_lowering._flags import logger, state
from tessela_lowering._lowering import jaxpr_to_module
from tessela_lowering._xla import Buffer, Device

__all__ = [
    "Executable",
    "Plan",
    "cached_executable",
    "clear_loaded",
    "compile_plan",
    "compile_text",
    "make_plan",
    "reuse_or_compile",
    "short_type",
]


def short_type(aval: ShapedArray, *, layout: bool = False) -> str:
    """``f32[2,3]`` (with ``{1,0}`` appended when ``layout``), as XLA prints types."""
    text = aval.str_short(short_dtypes=True)
    if layout and aval.ndim:
        text += "{" + ",".join(str(i) for i in reversed(range(aval.ndim))) + "}"
    return text


class Plan:
    """One traced call of a jitted function, ready to lower.

    Attributes:
      name: the function's name.
      closed: the jaxpr; its consts are embedded as constants, its inputs are
        the kept flat args.
      kept: indices of the flat arguments the jaxpr takes.
      in_avals: avals of all flat arguments.
      out_tree: the output pytree structure.
      aliases: per jaxpr input, the output index reusing its buffer.
      device: where it runs; committed: whether its results are committed.
    """

    __slots__ = (
        "aliases", "closed", "committed", "device", "in_avals", "kept", "name",
        "out_tree",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        closed: ClosedJaxpr,
        kept: list[int],
        in_avals: Sequence[ShapedArray],
        out_tree: Any,
        aliases: list[int | None],
        device: Device,
        committed: bool,
    ) -> None:
        self.name = name
        self.closed = closed
        self.kept = kept
        self.in_avals = list(in_avals)
        self.out_tree = out_tree
        self.aliases = aliases
        self.device = device
        self.committed = committed

    def module_text(self) -> str:
        """The StableHLO module of the plan."""
        return self.lower()[0]

    def lower(self) -> tuple[str, list[Callable[..., Any]]]:
        """The StableHLO module of the plan and the host callbacks it calls."""
        callbacks: list[Callable[..., Any]] = []
        text = jaxpr_to_module(
            self.closed,
            platform=_xla.device_platform(self.device),
            name=self.name,
            donated_outputs=self.aliases,
            host_callbacks=callbacks,
        )
        return text, callbacks


def _used_inputs(jaxpr: Jaxpr) -> set[Any]:
    used: set[Any] = set()
    for eqn in jaxpr.eqns:
        used.update(v for v in eqn.invars if not hasattr(v, "val"))
    used.update(v for v in jaxpr.outvars if not hasattr(v, "val"))
    return used


def make_plan(
    name: str,
    closed: ClosedJaxpr,
    consts: Sequence[ArrayLike],
    out_tree: PyTreeDef | None,
    in_avals: Sequence[ShapedArray],
    donated: Sequence[bool],
    *,
    keep_unused: bool,
    device: Device,
    committed: bool,
) -> Plan:
    """Prune unused inputs, pair donated inputs with outputs, warn about the rest.

    Args:
      name: the function's name.
      closed: the traced jaxpr with consts hoisted (inputs: consts, then flat args).
      consts: values of the hoisted consts.
      out_tree: the output structure.
      in_avals: avals of the flat arguments.
      donated: per flat argument, whether the caller donates it.
      keep_unused: keep inputs the function does not use.
      device: where it runs.
      committed: whether its results are committed to ``device``.

    Returns:
      The plan.
    """
    jaxpr = closed.jaxpr
    n_consts = len(consts)
    invars = list(jaxpr.invars)
    used = _used_inputs(jaxpr)
    arg_vars = invars[n_consts:]
    kept = [i for i, v in enumerate(arg_vars) if keep_unused or v in used or donated[i]]
    const_keep = [i for i, v in enumerate(invars[:n_consts]) if v in used]
    # The used consts are embedded in the program as constants (as JAX does), so
    # XLA can fold them; only the kept arguments remain inputs.
    jaxpr = Jaxpr(
        [invars[i] for i in const_keep], [arg_vars[i] for i in kept], jaxpr.outvars, jaxpr.eqns
    )
    closed = ClosedJaxpr(jaxpr, [consts[i] for i in const_keep])
    free = {i: v.aval for i, v in enumerate(jaxpr.outvars)}
    aliases: list[int | None] = []
    unusable: list[str] = []
    for i in kept:
        if not donated[i]:
            aliases.append(None)
            continue
        aval = in_avals[i]
        match = next(
            (o for o, a in free.items() if a.shape == aval.shape and a.dtype == aval.dtype), None
        )
        if match is None:
            unusable.append(short_type(aval, layout=True))
        else:
            del free[match]
        aliases.append(match)
    for i, d in enumerate(donated):
        if d and i not in kept:
            unusable.append(short_type(in_avals[i], layout=True))
    if unusable:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unusable)}.\n"
            "Donation is not implemented for this platform or no output has the same "
            "shape and dtype; drop the argument from donate_argnums to silence this.",
            UserWarning,
            stacklevel=5,
        )
    return Plan(name, closed, kept, in_avals, out_tree, aliases, device, committed)


class Executable:
    """A compiled plan: runs on flat arguments and returns flat :class:`Array` results.

    Attributes:
      plan: what was compiled.
      executable: the loaded XLA executable.
      text: the StableHLO module it was compiled from.
      host_callbacks: the Python functions the program calls; a program with
        any runs synchronously (the call returns after every callback ran).
    """

    __slots__ = (
        "executable", "handlers", "host_callbacks", "kept", "out_avals", "plan",
        "text",
    )  # fmt: skip

    def __init__(
        self,
        plan: Plan,
        text: str,
        executable: Any,
        host_callbacks: Sequence[Callable[..., Any]] = (),
    ) -> None:
        self.plan = plan
        self.text = text
        self.executable = executable
        self.host_callbacks = list(host_callbacks)
        self.out_avals = [v.aval for v in plan.closed.jaxpr.outvars]
        self.handlers = [_xla.result_handler(a, plan.device) for a in self.out_avals]
        self.kept = plan.kept

    def run(self, flat: Sequence[ArrayLike]) -> list[Array]:
        """Run on the flat arguments (Arrays, NumPy values or scalars)."""
        device = self.plan.device
        bufs: list[Buffer] = []
        for i in self.kept:
            x = flat[i]
            if type(x) is Array:
                buf = x._buf
                if _xla.buffer_device(buf) != device:
                    buf = _xla.copy_to_device(x._live_buffer(), device)
            else:
                aval = get_aval(x)
                buf = _xla.device_put(np.asarray(x, dtype=aval.dtype), device)
            bufs.append(buf)
        outs = self.execute(bufs, flat)
        committed = self.plan.committed
        return [Array(b, a, committed) for b, a in zip(outs, self.out_avals, strict=True)]

    def execute(self, bufs: list[Buffer], flat: Sequence[ArrayLike]) -> list[Buffer]:
        """Run on buffers; a deleted (donated) argument raises RuntimeError."""
        try:
            if self.host_callbacks:
                return _xla.execute_and_wait(self.executable, bufs, self.handlers)
            return _xla.execute(self.executable, bufs, self.handlers)
        except Exception as err:
            donates = any(a is not None for a in self.plan.aliases)
            for x in flat:
                if isinstance(x, Array) and x.is_deleted():
                    # As JAX: ValueError from a jit that donates, else RuntimeError.
                    make = _donated_error if donates else _deleted_error
                    raise make(x.aval) from None
            if any(b.is_deleted() for b in bufs):
                raise RuntimeError(
                    f"{INVALID_BUFFER}: an argument's buffer has been deleted (donated to "
                    f"an earlier call). Use the value that call returned, don't donate the "
                    f"argument, or keep a copy (x.copy()) before donating it."
                ) from err
            raise


def _cache_path(text: str, device: Device) -> str | None:
    folder = state.cache_dir
    if not folder:
        return None
    import hashlib  # only the persistent cache needs it: kept out of import time

    digest = hashlib.sha256()
    digest.update(text.encode())
    digest.update(repr((_xla.JAXLIB_VERSION, _xla.device_platform(device))).encode())
    # The executable is bound to the device it was compiled for: its id is in the key.
    digest.update(repr((getattr(device, "device_kind", ""), device.id)).encode())
    return os.path.join(folder, f"tessela-{digest.hexdigest()[:32]}.bin")


def compile_plan(plan: Plan) -> Executable:
    """Lower and compile a plan (reading/writing the persistent cache when enabled).

    Args:
      plan: the plan.

    Returns:
      The executable.
    """
    start = time.perf_counter()
    text, callbacks = plan.lower()
    exe = reuse_or_compile(text, plan.device, callbacks, plan.name, plan.in_avals, start)
    return Executable(plan, text, exe, callbacks)


def reuse_or_compile(
    text: str,
    device: Device,
    callbacks: Sequence[Callable[..., Any]],
    name: str,
    avals_in: Sequence[ShapedArray],
    start: float,
    /,
) -> _xla.Executable:
    """The executable kept for ``text`` (:func:`loaded`), else :func:`compile_text`'s, logged.

    Args:
      text: the module's MLIR text.
      device: the device it runs on.
      callbacks: the host callbacks the module calls (never reused).
      name: the program's name, for ``jax_log_compiles``.
      avals_in: its arguments' avals, for the log.
      start: ``time.perf_counter()`` when lowering began.

    Returns:
      The executable.
    """
    exe = None if callbacks else loaded(text, device)
    if exe is None:
        exe = compile_text(text, device, callbacks)
        log_compile(name, avals_in, start)
    return exe


_LOADED: OrderedDict[tuple[str, Device], _xla.Executable] = OrderedDict()
_loaded_chars = [0]
_loaded_lock = threading.Lock()
LOADED_TEXT_LIMIT = 32 << 20
"""How many characters of module text the in-memory executable cache keeps (oldest dropped)."""


def loaded(text: str, device: Device, /) -> _xla.Executable | None:
    """The executable this process last compiled from ``text`` for ``device``, if kept.

    Eager control flow (``lax.scan``, ``cond``, a ``fori_loop``), a ``jit`` of
    a new function object or a transformed jitted call traces its function
    again on every call, and each trace is a new jaxpr; when it lowers to the
    same module as before, the executable compiled then serves it (the text
    holds every literal and parameter, so equal text is the same program).
    :func:`compile_text` fills this cache; :func:`clear_loaded` empties it.

    Args:
      text: the module's MLIR text.
      device: the device it runs on.

    Returns:
      The executable, or None.
    """
    key = (text, device)
    with _loaded_lock:
        exe = _LOADED.get(key)
        if exe is not None:
            _LOADED.move_to_end(key)
    return exe


def _keep(text: str, device: Device, exe: _xla.Executable) -> None:
    with _loaded_lock:
        if (text, device) in _LOADED:
            return
        _LOADED[(text, device)] = exe
        _loaded_chars[0] += len(text)
        while _loaded_chars[0] > LOADED_TEXT_LIMIT and len(_LOADED) > 1:
            (old, _), _ = _LOADED.popitem(last=False)
            _loaded_chars[0] -= len(old)


def clear_loaded() -> None:
    """Empty the in-memory executable cache of :func:`loaded` (``clear_caches`` does)."""
    with _loaded_lock:
        _LOADED.clear()
        _loaded_chars[0] = 0


def compile_text(
    text: str, device: Device, callbacks: Sequence[Callable[..., Any]] = (), /
) -> _xla.Executable:
    """Compile a module for one device, through the persistent cache when it is on.

    With ``jax_compilation_cache_dir`` set, an executable of the same module
    text, jaxlib, device kind and device is loaded from that folder instead of compiled;
    one compiled in at least ``jax_persistent_cache_min_compile_time_secs`` is
    written there. Programs with Python callbacks cannot be serialized and
    always compile.

    Args:
      text: the module's MLIR text.
      device: the device it runs on.
      callbacks: the host callbacks the module calls.

    Returns:
      The loaded executable.
    """
    path = None if callbacks else _cache_path(text, device)
    if path is not None and os.path.exists(path):
        with open(path, "rb") as fh:
            exe = _xla.deserialize(fh.read(), [device])
    else:
        start = time.perf_counter()
        exe = _xla.compile_module(text, [device], host_callbacks=callbacks)
        if path is not None and time.perf_counter() - start >= state.cache_min_compile_secs:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            # One temporary file per thread: threads compiling the same
            # program at once each write their own, then replace atomically.
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(_xla.serialize(exe))
            os.replace(tmp, path)
    if not callbacks:  # a callback's program is bound to its Python functions
        _keep(text, device, exe)
    return exe


def log_compile(name: str, avals_in: Sequence[ShapedArray], start: float, /) -> None:
    """With ``jax_log_compiles`` on, log (at WARNING) a compilation begun at ``start``.

    Args:
      name: the compiled function's name, shown as ``jit(name)``.
      avals_in: its arguments' avals.
      start: ``time.perf_counter()`` when the compilation began.

    Returns:
      None.
    """
    if state.log_compiles:
        args = ", ".join(short_type(a) for a in avals_in)
        logger.warning(
            "Finished XLA compilation of jit(%s) for arguments (%s) in %.3f sec",
            name, args, time.perf_counter() - start,
        )  # fmt: skip


Traced = tuple[ClosedJaxpr, Sequence[ArrayLike], PyTreeDef | None]
"""What tracing a call gives: the jaxpr (consts hoisted to leading inputs), the consts, the output tree."""


def cached_executable(
    cache: MutableMapping[Hashable, Executable],
    lock: AbstractContextManager[object],
    key: Hashable,
    trace: Callable[[], Traced],
    name: str,
    in_avals: Sequence[ShapedArray],
    donated: Sequence[bool],
    *,
    keep_unused: bool,
    device: Device,
    committed: bool,
    on_miss: Callable[[], None] | None = None,
) -> Executable:
    """The executable cached under ``key``, traced, planned and compiled on a miss.

    ``jit`` calls and donating ``jit_p`` equations evaluated eagerly share this
    one path from a traced function to an executable: the check, the lock
    (so that two threads missing on one key compile once), the plan and the
    compilation.

    Args:
      cache: executables by key.
      lock: held while a missing entry is made.
      key: the cache key; it must determine everything below.
      trace: returns ``(jaxpr, consts, out_tree)``; called only on a miss.
      name: the function's name.
      in_avals: avals of the flat arguments.
      donated: per flat argument, whether the caller donates it.
      keep_unused: keep inputs the function does not use.
      device: where it runs.
      committed: whether its results are committed to ``device``.
      on_miss: called under the lock before tracing (e.g. to explain the miss).

    Returns:
      The executable.

    Example:
      >>> import threading
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import ShapedArray, make_jaxpr, lax
      >>> aval = ShapedArray((), np.float32)
      >>> closed = make_jaxpr(lax.neg)(np.float32(1))
      >>> cache = {}
      >>> exe = cached_executable(
      ...     cache, threading.Lock(), "neg", lambda: (closed, [], None), "neg", [aval],
      ...     [False], keep_unused=False, device=tl.devices()[0], committed=False)
      >>> exe.run([np.float32(2)])
      [Array(-2., dtype=float32)]
      >>> cache["neg"] is exe
      True
    """
    exe = cache.get(key)
    if exe is not None:
        return exe
    with lock:
        exe = cache.get(key)
        if exe is None:
            if on_miss is not None:
                on_miss()
            jaxpr, consts, out_tree = trace()
            plan = make_plan(
                name, jaxpr, consts, out_tree, in_avals, donated, keep_unused=keep_unused,
                device=device, committed=committed,
            )  # fmt: skip
            exe = cache[key] = compile_plan(plan)
    return exe
