"""``jit``: trace once per signature, compile with XLA, run the cached executable.

A call first tries a lean fast path: when every argument is a positional,
uncommitted :class:`Array` (the common case), the key is the tuple of their
avals plus the default device, looked up in one dict. Otherwise the full key
is built: the input pytree structure, the static arguments (which must be
hashable), the avals of the flat arguments (weak types included), the device,
the x64 flag and the donation mask. Only a miss traces the function again.

Under an enclosing trace (``grad``, ``vmap``, an outer ``jit``), a jitted call
binds ``jit_p`` with the traced jaxpr instead, and the outer computation lowers
it as a call of a nested function.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import operator
import threading
import weakref
from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any

from tessela_pytree import tree_flatten, tree_map, tree_unflatten
from tessela_tracer import (
    EvalTrace,
    Tracer,
    config,
    get_aval,
    get_current_trace,
    jit_p,
    trace_pytree_fun,
)
from tessela_tracer.extend import hoist_consts

from tessela_lowering import _devices, _xla
from tessela_lowering._aot import Lowered, Traced
from tessela_lowering._array import Array, leaf_key
from tessela_lowering._compile import Executable, Plan, compile_plan, make_plan, short_type
from tessela_lowering._dispatch import FastCall, fast_call, outputs, pick_device
from tessela_lowering._dispatch import clear_cache as _clear_eager_cache
from tessela_lowering._flags import check_finite, logger, rerun_deoptimized, state
from tessela_lowering._xla import Device

__all__ = ["JitWrapped", "jit"]

_default_device_var = _devices._default_device
_LEAF = tree_flatten(0)[1]
_EMPTY: dict[str, Any] = {}
_sig_of = operator.attrgetter("_sig")


def _argnums(value: int | Sequence[int] | None, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, int):
        return (value,)
    try:
        return tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(
            f"jit {what} must be an int or a sequence of ints, got {value!r}; e.g. {what}=(0,)."
        ) from None


def _argnames(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _signature(fun: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _infer_static(
    sig: inspect.Signature | None, nums: tuple[int, ...], names: tuple[str, ...]
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    # Like JAX: positions and names of static arguments imply each other.
    if sig is None:
        return nums, names
    params = [
        p for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]  # fmt: skip
    by_name = {p.name: i for i, p in enumerate(params)}
    out_nums = set(nums) | {by_name[n] for n in names if n in by_name}
    out_names = set(names) | {
        params[i].name for i in nums if 0 <= i < len(params) and params[i].kind != params[i].POSITIONAL_ONLY
    }  # fmt: skip
    return tuple(sorted(out_nums)), tuple(sorted(out_names))


def _check_argnums(
    sig: inspect.Signature | None, nums: tuple[int, ...], names: tuple[str, ...], what: str
) -> None:
    # As JAX, when ``jit`` is created: positions past the function's positional
    # parameters and names it does not take are errors, unless it has
    # ``*args`` (for positions) or ``**kwargs`` (for names).
    if sig is None:
        return
    params = list(sig.parameters.values())
    kinds = {p.kind for p in params}
    if nums and inspect.Parameter.VAR_POSITIONAL not in kinds:
        n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        if any(not -n_pos <= i < n_pos for i in nums):
            raise ValueError(
                f"Jitted function has {what}_argnums={nums}, but only accepts {n_pos} "
                f"positional arguments. Pass positions below {n_pos}, or name the "
                f"arguments in {what}_argnames."
            )
    if names and inspect.Parameter.VAR_KEYWORD not in kinds:
        valid = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        invalid = set(names) - valid
        if invalid:
            raise ValueError(
                f"Jitted function has invalid argnames {invalid} in {what}_argnames. "
                f"Function does not take these args. Use the names of its parameters: "
                f"{sorted(valid)}."
            )


def _hashable(value: Any, where: str) -> Hashable:
    try:
        hash(value)
    except TypeError as err:
        raise ValueError(
            f"Non-hashable static arguments are not supported. An error occurred while "
            f"trying to hash an object of type {type(value)}, {value}, passed as {where}. "
            f"The error was:\nTypeError: {err}\nPass it as a traced argument, or as a "
            f"hashable value (a tuple instead of a list or array)."
        ) from None
    return value  # type: ignore[no-any-return]


class _Caches:
    """Compiled executables of one function under one set of jit options."""

    __slots__ = ("__weakref__", "fast", "full", "last_key", "lock", "traced")

    def __init__(self) -> None:
        self.fast: dict[Any, FastCall] = {}
        self.full: dict[Any, Executable] = {}
        self.traced: dict[Any, tuple[Any, list[Any], Any]] = {}
        self.last_key: Any = None
        self.lock = threading.Lock()


# Like JAX, ``jit(f)`` made twice shares one cache: keyed weakly on ``f``.
_shared: weakref.WeakKeyDictionary[Any, dict[Any, _Caches]] = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()
_every_cache: weakref.WeakSet[_Caches] = weakref.WeakSet()  # for clear_caches


def _caches_for(fun: Callable[..., Any], options: tuple[Any, ...]) -> _Caches:
    try:
        with _shared_lock:
            per_fun = _shared.setdefault(fun, {})
            caches = per_fun.get(options)
            if caches is None:
                caches = per_fun[options] = _Caches()
                _every_cache.add(caches)
            return caches
    except TypeError:  # not weakly referenceable or not hashable: a private cache
        caches = _Caches()
        with _shared_lock:
            _every_cache.add(caches)
        return caches


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
    with _shared_lock:
        every = list(_every_cache)
    for caches in every:
        with caches.lock:
            caches.fast.clear()
            caches.full.clear()
            caches.traced.clear()
            caches.last_key = None
    _clear_eager_cache()


class JitWrapped:
    """A function compiled with XLA on each new argument signature.

    Call it like the function; ``.trace``, ``.lower`` and ``.lower(...).compile()``
    expose the stages. Made by :func:`jit`.
    """

    def __init__(
        self,
        fun: Callable[..., Any],
        *,
        static_argnums: tuple[int, ...],
        static_argnames: tuple[str, ...],
        donate_argnums: tuple[int, ...],
        donate_argnames: tuple[str, ...],
        keep_unused: bool,
        device: Device | None,
        backend: str | None,
        inline: bool,
    ) -> None:
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._name = getattr(fun, "__name__", type(fun).__name__)
        sig = _signature(fun)
        _check_argnums(sig, static_argnums, static_argnames, "static")
        _check_argnums(sig, donate_argnums, donate_argnames, "donate")
        self._static_argnums, self._static_argnames = _infer_static(
            sig, static_argnums, static_argnames
        )
        both = set(self._static_argnames) & set(
            _infer_static(sig, donate_argnums, donate_argnames)[1]
        )
        if both:
            raise ValueError(
                f"static_argnames and donate_argnames cannot intersect. Argument names "
                f"{both} appear in both static_argnames and donate_argnames. An argument "
                f"is either static (a Python value) or donated (an array), not both."
            )
        self._donate_argnums = donate_argnums
        self._donate_argnames = donate_argnames
        self._keep_unused = keep_unused
        self._device = device
        self._backend = backend
        self._inline = inline
        self._static = bool(self._static_argnums or self._static_argnames)
        self._static_set: frozenset[int] | None = (
            frozenset(self._static_argnums) if all(i >= 0 for i in self._static_argnums) else None
        )
        options = (self._static_argnums, self._static_argnames, donate_argnums, donate_argnames,
                   keep_unused, device, backend, inline)  # fmt: skip
        caches = _caches_for(fun, options)
        self._caches = caches
        self._fast = caches.fast
        self._cache = caches.full
        self._traced = caches.traced
        self._lock = caches.lock

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    # ----------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The fast path: one dict lookup keyed on the default-device setting,
        # the x64 flag, the call's structure and static values, and one key per
        # leaf (see ``leaf_key``); ``_remember`` fills the table after a full
        # call. Positional Arrays only (the common case) skip the structure:
        # one and two arguments are spelled out, about 0.3 us cheaper than map().
        if state.fast:
            leaves: Any = args
            try:
                if kwargs or self._static:
                    raise AttributeError
                n = len(args)
                if n == 2:
                    a, b = args
                    key: Any = (_default_device_var.get(), config.x64_enabled, a._sig, b._sig)
                elif n == 1:
                    (a,) = args
                    key = (_default_device_var.get(), config.x64_enabled, a._sig)
                else:
                    key = (_default_device_var.get(), config.x64_enabled, *map(_sig_of, args))
            except AttributeError:  # host values, keywords, statics or pytrees
                key, leaves = self._fast_key(args, kwargs)
            try:
                fast = self._fast.get(key)
            except TypeError:  # an unhashable static argument: the full path says so
                fast = None
            if fast is not None and type(get_current_trace()) is EvalTrace:
                try:
                    return fast(leaves)
                except Exception:  # e.g. a deleted argument: the full path says so
                    pass
        return self._call_slow(args, kwargs)

    def _fast_key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Sequence[Any]]:
        # The general key, and the leaves in the order of the full path's flat
        # arguments. Leaves at the top level (the usual case) need no flatten.
        static: Any = None
        dyn: Any = args
        dyn_kw = kwargs
        if not kwargs and not self._static:
            try:  # positional leaves: the same key as the Arrays-only one
                return (_default_device_var.get(), config.x64_enabled,
                        *map(leaf_key, args)), args  # fmt: skip
            except TypeError:
                pass
        elif self._static:
            n = len(args)
            nums: Collection[int] | None = self._static_set
            if nums is None:  # negative positions: they depend on the count
                nums = {i if i >= 0 else i + n for i in self._static_argnums}
            names = self._static_argnames
            static = (
                tuple([(i, args[i]) for i in sorted(nums) if 0 <= i < n]),
                tuple([(k, kwargs[k]) for k in sorted(kwargs) if k in names]) if kwargs else (),
            )
            dyn = [a for i, a in enumerate(args) if i not in nums]
            if kwargs:
                dyn_kw = {k: v for k, v in kwargs.items() if k not in names}
        try:
            if dyn_kw:
                names_kw = tuple(sorted(dyn_kw))
                leaves = [*dyn, *(dyn_kw[k] for k in names_kw)]
            else:
                names_kw = ()
                leaves = list(dyn)
            key = (_default_device_var.get(), config.x64_enabled, len(dyn), names_kw, static,
                   *map(leaf_key, leaves))  # fmt: skip
        except TypeError:  # a pytree (or a tracer) among the arguments
            try:
                leaves, tree = tree_flatten((list(dyn), dict(dyn_kw)))
                key = (_default_device_var.get(), config.x64_enabled, tree, static,
                       *map(leaf_key, leaves))  # fmt: skip
            except TypeError:
                return None, []
        return key, leaves

    def _remember(self, args: tuple[Any, ...], kwargs: dict[str, Any], exe: Executable,
                  flat: list[Any]) -> None:  # fmt: skip
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
        key, leaves = self._fast_key(args, kwargs)
        if key is None or len(leaves) != len(flat):
            return
        out_tree = plan.out_tree
        wrap = None if out_tree == _LEAF else functools.partial(tree_unflatten, out_tree)
        finish = outputs(exe.out_avals, device, plan.committed, wrap)
        call = fast_call(exe.executable, exe.handlers, finish, exe.kept, dtypes, device, shapes)
        with contextlib.suppress(TypeError):  # an unhashable static argument
            self._fast[key] = call

    def _call_slow(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if state.disable_jit:
            return self._fun(*args, **kwargs)
        static, _dyn, flat, in_tree = self._split(args, kwargs)
        if type(get_current_trace()) is not EvalTrace or any(isinstance(x, Tracer) for x in flat):
            return self._bind(args, kwargs, static, flat, in_tree)
        exe, flat = self._executable(args, kwargs, static, flat, in_tree)
        res = exe.run(flat)
        if state.check_values:
            self._check(flat, res, args, kwargs)
        elif state.fast and not exe.host_callbacks:
            self._remember(args, kwargs, exe, flat)
        return tree_unflatten(exe.plan.out_tree, res)

    def _split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], list[Any], list[Any], Any]:
        nums = [i if i >= 0 else i + len(args) for i in self._static_argnums]
        static_pos = tuple(
            (i, _hashable(args[i], f"argument {i}")) for i in nums if 0 <= i < len(args)
        )
        static_kw = tuple(
            (k, _hashable(kwargs[k], f"argument {k!r}"))
            for k in sorted(kwargs) if k in self._static_argnames
        )  # fmt: skip
        dyn = [a for i, a in enumerate(args) if i not in nums]
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        flat, in_tree = tree_flatten((dyn, dyn_kw))
        return (static_pos, static_kw), dyn, flat, in_tree

    def _static_args(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[int, ...], dict[str, Any]]:
        nums = tuple(i if i >= 0 else i + len(args) for i in self._static_argnums)
        return nums, {k: v for k, v in kwargs.items() if k in self._static_argnames}

    def _trace(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any], Any]:
        nums, static_kw = self._static_args(args, kwargs)
        dyn_kw = {k: v for k, v in kwargs.items() if k not in static_kw}
        fun = functools.partial(self._fun, **static_kw) if static_kw else self._fun
        closed, out_tree = trace_pytree_fun(
            fun, args, dyn_kw, traced_for="jit", static_argnums=nums
        )
        jaxpr, consts = hoist_consts(closed)
        return jaxpr, consts, out_tree

    def _bind(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        static: Any,
        flat: list[Any],
        in_tree: Any,
    ) -> Any:
        key = (in_tree, static, tuple(get_aval(x) for x in flat))
        hit = self._traced.get(key)
        if hit is None:
            hit = self._trace(args, kwargs)
            if not any(isinstance(c, Tracer) for c in hit[1]):
                self._traced[key] = hit
        jaxpr, consts, out_tree = hit
        donated = self._donation(args, kwargs)
        outs = jit_p.bind(
            *consts, *flat, jaxpr=jaxpr, name=self._name,
            donated_invars=(False,) * len(consts) + tuple(donated), keep_unused=self._keep_unused,
            inline=self._inline,
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)

    def _donation(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[bool]:
        nums = {i if i >= 0 else i + len(args) for i in self._donate_argnums}
        static = set(self._static_args(args, kwargs)[0])
        dyn = [tree_map(lambda _, d=i in nums: d, a) for i, a in enumerate(args) if i not in static]
        kw = {
            k: tree_map(lambda _, d=k in self._donate_argnames: d, v)
            for k, v in kwargs.items() if k not in self._static_argnames
        }  # fmt: skip
        flags, _ = tree_flatten((dyn, kw))
        return [bool(f) for f in flags]

    def _placement(self, flat: list[Any]) -> tuple[Device, bool]:
        if self._device is not None:
            return self._device, True
        arrays = [x for x in flat if isinstance(x, Array)]
        device, committed = pick_device(arrays)
        if self._backend is not None and not committed:
            return _devices.devices(self._backend)[0], True
        return device, committed

    def _executable(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        static: Any,
        flat: list[Any],
        in_tree: Any,
    ) -> tuple[Executable, list[Any]]:
        avals = tuple(get_aval(x) for x in flat)
        device, committed = self._placement(flat)
        donated = (
            tuple(self._donation(args, kwargs))
            if self._donate_argnums or self._donate_argnames
            else ()
        )
        key = (in_tree, static, avals, device, committed, config.x64_enabled, donated)
        exe = self._cache.get(key)
        if exe is None:
            with self._lock:
                exe = self._cache.get(key)
                if exe is None:
                    if state.explain_cache_misses:
                        self._explain(key)
                    jaxpr, consts, out_tree = self._trace(args, kwargs)
                    plan = make_plan(
                        self._name, jaxpr, consts, out_tree, avals,
                        donated or (False,) * len(flat), keep_unused=self._keep_unused,
                        device=device, committed=committed,
                    )  # fmt: skip
                    exe = compile_plan(plan)
                    self._cache[key] = exe
                    self._caches.last_key = key
        return exe, flat

    def _explain(self, key: Any) -> None:
        last_key = self._caches.last_key
        if last_key is None:
            logger.warning("TRACING CACHE MISS for %s: first call.", self._name)
            return
        names = ("pytree structure", "static arguments", "argument types", "device",
                 "commitment", "x64 flag", "donation")  # fmt: skip
        reasons = []
        for name, old, new in zip(names, last_key, key, strict=True):
            if old != new:
                if name == "argument types" and len(old) == len(new):
                    diffs = [
                        f"argument {i}: {short_type(a)}{' (weak)' if a.weak_type else ''} "
                        f"instead of {short_type(b)}{' (weak)' if b.weak_type else ''}"
                        for i, (a, b) in enumerate(zip(new, old, strict=True)) if a != b
                    ]  # fmt: skip
                    reasons.extend(diffs)
                else:
                    reasons.append(f"{name} changed from {old} to {new}")
        logger.warning("TRACING CACHE MISS for %s because:\n  %s", self._name, "\n  ".join(reasons))

    def _check(
        self, flat: Sequence[Any], res: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        try:
            check_finite(f"jit({self._name})", res)
        except FloatingPointError as err:
            error = err
        else:
            return
        # Outside the ``except`` block, so that the error of the re-run is not
        # chained to this one and its traceback runs through the user's code.
        rerun_deoptimized(error, self._fun, args, kwargs, flat)

    # ----------------------------------------------------------- stages

    def _plan(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Plan, Any]:
        _, _, flat, _ = self._split(args, kwargs)
        avals = tuple(get_aval(x) for x in flat)
        device, committed = self._placement(flat)
        jaxpr, consts, out_tree = self._trace(args, kwargs)
        plan = make_plan(
            self._name, jaxpr, consts, out_tree, avals, self._donation(args, kwargs),
            keep_unused=self._keep_unused, device=device, committed=committed,
        )  # fmt: skip
        dyn_args = [a for i, a in enumerate(args) if i not in self._static_args(args, kwargs)[0]]
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        _, in_tree = tree_flatten((dyn_args, dyn_kw))
        return plan, in_tree

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Trace for these arguments (values or ``ShapeDtypeStruct``); nothing runs.

        Args:
          *args: positional arguments as in a call.
          **kwargs: keyword arguments as in a call.

        Returns:
          The :class:`Traced` stage (``.jaxpr``, ``.out_info``, ``.lower()``).

        Example:
          >>> import tessela_lowering as tl
          >>> from tessela_tracer import ShapeDtypeStruct, lax
          >>> traced = tl.jit(lax.sin).trace(ShapeDtypeStruct((2,), "float32"))
          >>> print(traced.jaxpr)
          { lambda ; a:f32[2]. let b:f32[2] = sin a in (b,) }
        """
        plan, in_tree = self._plan(args, kwargs)
        return Traced(plan, in_tree)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace and lower for these arguments.

        Args:
          *args: positional arguments as in a call (or ``ShapeDtypeStruct``).
          **kwargs: keyword arguments as in a call.

        Returns:
          The :class:`Lowered` stage (``.as_text()``, ``.compile()``, ...).

        Example:
          >>> import numpy as np
          >>> import tessela_lowering as tl
          >>> from tessela_tracer import lax
          >>> lowered = tl.jit(lax.cos).lower(np.float32(0))
          >>> "stablehlo.cosine" in lowered.as_text()
          True
          >>> lowered.compile()(np.float32(0))
          Array(1., dtype=float32)
        """
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        """The output shapes and dtypes for these arguments, as ``ShapeDtypeStruct``.

        Args:
          *args: positional arguments as in a call.
          **kwargs: keyword arguments as in a call.

        Returns:
          A pytree of ``ShapeDtypeStruct`` like the function's output.

        Example:
          >>> import numpy as np
          >>> import tessela_lowering as tl
          >>> from tessela_tracer import lax
          >>> tl.jit(lambda x: lax.reduce_sum(x, (0,))).eval_shape(np.ones((4, 2))).shape
          (2,)
        """
        return self.trace(*args, **kwargs).out_info

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"


def jit(
    fun: Callable[..., Any],
    /,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    donate_argnames: str | Sequence[str] | None = None,
    keep_unused: bool = False,
    device: Device | None = None,
    backend: str | None = None,
    inline: bool = False,
) -> JitWrapped:
    """Compile ``fun`` with XLA, once per argument signature.

    Args:
      fun: a pure function of arrays (and pytrees of them).
      static_argnums: positions passed as Python values; each new value
        compiles again, so they must be hashable.
      static_argnames: the same, by keyword name.
      donate_argnums: positions whose buffers the computation may reuse for
        its outputs; donated arrays are deleted after the call. Keyword
        arguments are not donated by position.
      donate_argnames: keyword arguments to donate.
      keep_unused: keep arguments the function does not use in the compiled
        program (by default they are pruned).
      device: run on this device and commit the results to it.
      backend: run on this backend's first device ("cpu", "cuda", ...).
      inline: when called inside another traced function, emit the body in
        place instead of a nested call.

    Returns:
      The compiled function, with ``.trace``, ``.lower`` and ``.eval_shape``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import lax
      >>> f = tl.jit(lambda x, y: lax.add(lax.mul(x, 2.0), y))
      >>> f(np.arange(3, dtype=np.float32), np.ones(3, np.float32))
      Array([1., 3., 5.], dtype=float32)
    """
    for what, value in (("static_argnames", static_argnames), ("donate_argnames", donate_argnames)):
        if (
            value is not None
            and not isinstance(value, str)
            and not all(isinstance(v, str) for v in value)
        ):
            raise TypeError(f"jit {what} must be a str or a sequence of str, got {value!r}.")
    if not callable(fun):
        raise TypeError(f"jit expects a callable as its first argument, got {fun!r}.")
    return JitWrapped(
        fun,
        static_argnums=_argnums(static_argnums, "static_argnums"),
        static_argnames=_argnames(static_argnames),
        donate_argnums=_argnums(donate_argnums, "donate_argnums"),
        donate_argnames=_argnames(donate_argnames),
        keep_unused=bool(keep_unused),
        device=device,
        backend=backend,
        inline=bool(inline),
    )
