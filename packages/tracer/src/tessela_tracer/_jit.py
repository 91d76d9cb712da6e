"""``jit``: the one jitted-function object, its staging, and its execution hook.

``jit(f)`` returns a :class:`JitWrapped`. The tracer owns everything about
staging: checking the options when the object is made (out-of-range
``static_argnums``, unknown ``static_argnames`` and static arguments that are
also donated raise ValueError, as in JAX), splitting a call into static
values and traced leaves, tracing ``f`` to a jaxpr (cached per argument
signature) and binding one ``jit_p`` equation under an enclosing trace.

Running a call on concrete arguments is the job of the *jit backend*. The
default one, used when nothing else is installed, stages the call and
evaluates it equation by equation (``eval_jaxpr``) with the eager
implementations (``register_impl``, else :func:`set_eager_backend`), so that
``jit`` works with the tracer alone. tessela-lowering installs its own with
:func:`set_jit_backend` when imported: the same objects then compile with
XLA, keep a fast dispatch table per function, donate buffers and expose the
ahead-of-time stages. There is one ``jit`` object type whichever backend runs.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import operator
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from tessela_pytree import tree_flatten, tree_map, tree_unflatten

from tessela_tracer._avals import ShapeDtypeStruct, get_aval
from tessela_tracer._config import config
from tessela_tracer._core import EvalTrace, Tracer, get_current_trace
from tessela_tracer._jaxpr import ClosedJaxpr, eval_jaxpr
from tessela_tracer._jit_shardings import (
    UNSPECIFIED,
    PytreeLeaf,
    check_sharding_tree,
    constrain,
    sharding_leaves,
)
from tessela_tracer._prims_control import hoist_consts, jit_p
from tessela_tracer._staging import trace_pytree_fun

__all__ = [
    "UNSPECIFIED",
    "JitCache",
    "JitWrapped",
    "Traced",
    "clear_jit_caches",
    "jit",
    "set_jit_backend",
]

JitCall = Callable[..., Any]
"""``call(jitted, /, *args, **kwargs)``: runs one call of a jitted function.

It becomes ``JitWrapped.__call__`` itself, so a call reaches it with no
Python frame in between."""
JitTrace = Callable[["JitWrapped", tuple[Any, ...], dict[str, Any]], "Traced"]
"""``trace(jitted, args, kwargs)``: the traced stage of a jitted function."""


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


def _argnames(value: str | Sequence[str] | None, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"jit {what} must be a str or a sequence of str, got {value!r}.")
    return tuple(value)


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


class JitCache:
    """The caches of one function under one set of jit options.

    ``jit(f)`` made twice with the same options shares one (as in JAX).

    Attributes:
      traced: staged jaxprs, keyed on the argument structure, static values
        and avals (used under enclosing traces).
      fast: the backend's dispatch table for concrete calls (its keys, its
        calls); empty without a backend.
      probe: the backend's guess for the next concrete call, tried before
        ``fast`` is keyed: a callable of the backend's own making (``None``
        when it has none).
      runtime: the jit backend's own state for this function (``None`` until
        the backend makes it, and again after :func:`clear_jit_caches`).
      lock: serializes tracing and compiling for this function.
    """

    __slots__ = ("__weakref__", "fast", "lock", "probe", "runtime", "traced")

    def __init__(self) -> None:
        self.traced: dict[Any, tuple[ClosedJaxpr, list[Any], Any]] = {}
        self.fast: dict[Any, Callable[[Sequence[Any]], Any]] = {}
        self.probe: Callable[..., Any] | None = None
        self.runtime: Any = None
        self.lock = threading.Lock()


_shared: weakref.WeakKeyDictionary[Any, dict[Any, JitCache]] = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()
_every_cache: weakref.WeakSet[JitCache] = weakref.WeakSet()


def _cache_for(fun: Callable[..., Any], options: tuple[Any, ...]) -> JitCache:
    try:
        with _shared_lock:
            per_fun = _shared.setdefault(fun, {})
            cache = per_fun.get(options)
            if cache is None:
                cache = per_fun[options] = JitCache()
                _every_cache.add(cache)
            return cache
    except TypeError:  # not weakly referenceable or not hashable: a private cache
        cache = JitCache()
        with _shared_lock:
            _every_cache.add(cache)
        return cache


def clear_jit_caches() -> None:
    """Forget every staged jaxpr and every backend state of every jitted function.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import lax, make_jaxpr
        >>> f = jit(lax.sin)
        >>> _ = make_jaxpr(f)(1.0)
        >>> len(f._cache.traced)
        1
        >>> clear_jit_caches()
        >>> len(f._cache.traced)
        0
    """
    with _shared_lock:
        every = list(_every_cache)
    for cache in every:
        with cache.lock:
            cache.traced.clear()
            cache.fast.clear()
            cache.probe = None
            cache.runtime = None


class Traced:
    """A jitted function traced for given argument types.

    Attributes:
      jaxpr: the traced program.
      out_info: the output pytree of ``ShapeDtypeStruct``.
    """

    def __init__(self, jaxpr: ClosedJaxpr, out_tree: Any) -> None:
        self.jaxpr = jaxpr
        outs = [ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in jaxpr.jaxpr.outvars]
        self.out_info = tree_unflatten(out_tree, outs)

    def lower(self) -> Any:
        """The lowered stage: needs a compiling jit backend (tessela-lowering).

        Raises:
          NotImplementedError: no compiling backend is installed.
        """
        raise NotImplementedError(
            "lowering a jitted function needs a compiler: install tessela-lowering and "
            "`import tessela_lowering` (or `import tessela`)."
        )


def _getter(positions: list[int]) -> Callable[[Any], tuple[Any, ...]]:
    # A C-level ``args -> tuple(args[i] for i in positions)``.
    if not positions:
        return operator.itemgetter(slice(0, 0))
    if positions == list(range(positions[0], positions[-1] + 1)):
        return operator.itemgetter(slice(positions[0], positions[-1] + 1))
    return operator.itemgetter(*positions)


def _no_values(kwargs: dict[str, Any]) -> tuple[()]:
    return ()


# ``split(args, kwargs) -> (dynamic values, key prefix)``: see ``JitWrapped._kw_splitter``.
_KwSplit = Callable[[tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], tuple[Any, ...]]]
# One number per call form (positional count, sorted keyword names), shared by
# every function: a key prefix names its form by it. Numbers come from a
# counter (atomic under the GIL), so two forms never share one.
_FORMS: dict[tuple[int, tuple[str, ...]], int] = {}
_form_numbers = itertools.count()


class JitWrapped:
    """A function staged as one ``jit`` call, and compiled by the installed backend.

    Call it like the function; ``.trace``, ``.lower`` and ``.eval_shape`` expose
    the stages. Made by :func:`jit`. The backend (:func:`set_jit_backend`)
    reads the options below and uses ``_split``, ``_trace``, ``_bind`` and
    ``_donation`` to stage a call.

    Attributes:
      static_argnums, static_argnames: static positions and names (each
        implying the other where the signature allows).
      donate_argnums, donate_argnames: donated positions and names.
      keep_unused, device, backend, inline: the options given to :func:`jit`.
      in_shardings, out_shardings: as given to :func:`jit` (``UNSPECIFIED``
        when not given); ``_in_sharding_leaves`` and ``_out_sharding_leaves``
        spread them over a call's flat arguments and outputs.
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
        device: Any,
        backend: str | None,
        inline: bool,
        in_shardings: Any = UNSPECIFIED,
        out_shardings: Any = UNSPECIFIED,
    ) -> None:
        functools.update_wrapper(self, fun)
        self._fun = fun
        sig = _signature(fun)
        _check_argnums(sig, static_argnums, static_argnames, "static")
        _check_argnums(sig, donate_argnums, donate_argnames, "donate")
        self.static_argnums, self.static_argnames = _infer_static(
            sig, static_argnums, static_argnames
        )
        both = set(self.static_argnames) & set(
            _infer_static(sig, donate_argnums, donate_argnames)[1]
        )
        if both:
            raise ValueError(
                f"static_argnames and donate_argnames cannot intersect. Argument names "
                f"{both} appear in both static_argnames and donate_argnames. An argument "
                f"is either static (a Python value) or donated (an array), not both."
            )
        self.donate_argnums = donate_argnums
        self.donate_argnames = donate_argnames
        self.keep_unused = keep_unused
        self.device = device
        self.backend = backend
        self.inline = inline
        check_sharding_tree(in_shardings, "in_shardings")
        check_sharding_tree(out_shardings, "out_shardings")
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self._has_shardings = in_shardings is not UNSPECIFIED or out_shardings is not UNSPECIFIED
        self._has_static = bool(self.static_argnums or self.static_argnames)
        self._donates = bool(donate_argnums or donate_argnames)
        options: tuple[Any, ...] = (
            self.static_argnums, self.static_argnames, donate_argnums, donate_argnames,
            keep_unused, device, backend, inline,
        )  # fmt: skip
        if self._has_shardings:
            options = (*options, in_shardings, out_shardings)
        self._cache = _cache_for(fun, options)
        self._fast = self._cache.fast
        self._splitters: dict[int, tuple[Callable[[Any], tuple[Any, ...]], ...]] = {}
        self._kw_splitters: dict[tuple[int, tuple[str, ...]], _KwSplit] = {}

    @property
    def _name(self) -> str:
        # Read on each use: a function may be renamed after it was jitted.
        return getattr(self._fun, "__name__", type(self._fun).__name__)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    # ``__call__`` is the installed backend's call (``set_jit_backend``),
    # assigned to the class below.
    __call__: JitCall

    # ----------------------------------------------------------- staging

    def _static_positions(self, n_args: int) -> tuple[int, ...]:
        return tuple(i if i >= 0 else i + n_args for i in self.static_argnums)

    def _splitter(self, n_args: int) -> tuple[Callable[[Any], tuple[Any, ...]], ...]:
        """``(static, dynamic)``: each takes the positional arguments (``n_args``
        of them) and returns the tuple of the static ones or of the others."""
        hit = self._splitters.get(n_args)
        if hit is None:
            nums = set(self._static_positions(n_args))
            static = [i for i in sorted(nums) if 0 <= i < n_args]
            dyn = [i for i in range(n_args) if i not in nums]
            hit = self._splitters[n_args] = (_getter(static), _getter(dyn))
        return hit

    def _kw_splitter(self, n_args: int, names: tuple[str, ...]) -> _KwSplit:
        """``split(args, kwargs)`` for calls with ``n_args`` positional arguments
        and the keyword arguments ``names`` (in call order), cached per form.

        ``split`` returns the dynamic values (positional, then keyword in
        sorted name order, as ``_split`` flattens them) and a hashable key
        prefix, ``(form, static positional values, static keyword values)``:
        ``form`` numbers the call's positional count and sorted names, so the
        order of the keywords does not change the prefix, and no other form's
        prefix equals it."""
        hit = self._kw_splitters.get((n_args, names))
        if hit is None:
            static, dyn = self._splitter(n_args)
            ordered = tuple(sorted(names))
            form = _FORMS.setdefault((n_args, ordered), next(_form_numbers))
            static_names = [k for k in ordered if k in self.static_argnames]
            dyn_names = tuple(k for k in ordered if k not in self.static_argnames)
            values = operator.itemgetter(*static_names) if static_names else _no_values
            positional = any(0 <= i < n_args for i in self._static_positions(n_args))
            if not positional and not dyn_names:  # ``f(x, training=True)``

                def split(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                    return args, (form, (), values(kwargs))

            elif not positional and not static_names:  # keywords, none static
                prefix = (form, (), ())

                def split(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                    return (*args, *map(kwargs.__getitem__, dyn_names)), prefix

            else:

                def split(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                    leaves = (*dyn(args), *map(kwargs.__getitem__, dyn_names))
                    return leaves, (form, static(args), values(kwargs))

            hit = self._kw_splitters[(n_args, names)] = split
        return hit

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any], Any]:
        # (static values, flat traced leaves, their structure).
        nums = self._static_positions(len(args))
        names = self.static_argnames
        static_pos = tuple(
            (i, _hashable(args[i], f"argument {i}")) for i in nums if 0 <= i < len(args)
        )
        static_kw = tuple(
            (k, _hashable(kwargs[k], f"argument {k!r}")) for k in sorted(kwargs) if k in names
        )
        dyn = [a for i, a in enumerate(args) if i not in nums]
        dyn_kw = {k: v for k, v in kwargs.items() if k not in names}
        flat, in_tree = tree_flatten((dyn, dyn_kw))
        return (static_pos, static_kw), flat, in_tree

    def _in_sharding_leaves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        # Per flat traced leaf: its in_sharding (a PartitionSpec resolved against the
        # mesh in context), or None where unspecified.
        _, flat, _ = self._split(args, kwargs)
        if self.in_shardings is UNSPECIFIED:
            return [None] * len(flat)
        nums = set(self._static_positions(len(args)))
        dyn = tuple(a for i, a in enumerate(args) if i not in nums)
        if any(k not in self.static_argnames for k in kwargs):
            raise ValueError(
                "pjit does not support kwargs when in_shardings is specified. Pass the "
                "arguments positionally, or drop in_shardings."
            )
        return sharding_leaves(self.in_shardings, dyn, "in_shardings")

    def _out_sharding_leaves(self, out_tree: Any) -> list[Any]:
        # Per flat output: its out_sharding, or None where unspecified.
        n = out_tree.num_leaves
        if self.out_shardings is UNSPECIFIED:
            return [None] * n
        outs = tree_unflatten(out_tree, [PytreeLeaf() for _ in range(n)])
        return sharding_leaves(self.out_shardings, outs, "out_shardings")

    def _trace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], *, constrained: bool = False
    ) -> tuple[ClosedJaxpr, list[Any], Any]:
        # (jaxpr with consts hoisted to leading inputs, the consts, out_tree). With
        # ``constrained``, the in/out shardings become sharding constraints of the
        # program's inputs and outputs (how a jit with shardings nests in a trace).
        nums = self._static_positions(len(args))
        static_kw = {k: v for k, v in kwargs.items() if k in self.static_argnames}
        dyn_kw = {k: v for k, v in kwargs.items() if k not in static_kw}
        fun = functools.partial(self._fun, **static_kw) if static_kw else self._fun
        if constrained and self._has_shardings:
            fun = constrain(self, fun, self._in_sharding_leaves(args, kwargs), nums)
        closed, out_tree = trace_pytree_fun(
            fun, args, dyn_kw, traced_for="jit", static_argnums=nums
        )
        jaxpr, consts = hoist_consts(closed)
        return jaxpr, consts, out_tree

    def _donation(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[bool]:
        # Per flat traced leaf, whether it is donated.
        if not self._donates:
            return [False] * len(self._split(args, kwargs)[1])
        nums = {i if i >= 0 else i + len(args) for i in self.donate_argnums}
        static = set(self._static_positions(len(args)))
        dyn = [tree_map(lambda _, d=i in nums: d, a) for i, a in enumerate(args) if i not in static]
        kw = {
            k: tree_map(lambda _, d=k in self.donate_argnames: d, v)
            for k, v in kwargs.items() if k not in self.static_argnames
        }  # fmt: skip
        flags, _ = tree_flatten((dyn, kw))
        return [bool(f) for f in flags]

    def _staged(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], static: Any, flat: list[Any],
        in_tree: Any,
    ) -> tuple[ClosedJaxpr, list[Any], Any]:  # fmt: skip
        # ``_trace``, cached on the structure, static values and avals.
        key = (in_tree, static, config.trace_key, tuple(get_aval(x) for x in flat))
        hit = self._cache.traced.get(key)
        if hit is None:
            hit = self._trace(args, kwargs, constrained=True)
            if not any(isinstance(c, Tracer) for c in hit[1]):
                self._cache.traced[key] = hit
        return hit

    def _bind(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], static: Any, flat: list[Any],
        in_tree: Any,
    ) -> Any:  # fmt: skip
        # One ``jit_p`` equation: recorded by an enclosing trace, else evaluated.
        jaxpr, consts, out_tree = self._staged(args, kwargs, static, flat, in_tree)
        donated = self._donation(args, kwargs) if self._donates else [False] * len(flat)
        outs = jit_p.bind(
            *consts, *flat, jaxpr=jaxpr, name=self._name,
            donated_invars=(False,) * len(consts) + tuple(donated), keep_unused=self.keep_unused,
            inline=self.inline,
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)

    # ----------------------------------------------------------- stages

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Trace for these arguments (values or ``ShapeDtypeStruct``); nothing runs.

        Args:
          *args: positional arguments as in a call.
          **kwargs: keyword arguments as in a call.

        Returns:
          The :class:`Traced` stage (``.jaxpr``, ``.out_info``, ``.lower()``).

        Example:
            >>> from tessela_tracer import ShapeDtypeStruct, lax
            >>> traced = jit(lax.sin).trace(ShapeDtypeStruct((2,), "float32"))
            >>> traced.out_info.shape
            (2,)
        """
        traced: Traced = _backend[1](self, args, kwargs)
        return traced

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """Trace and lower for these arguments (needs a compiling backend).

        Args:
          *args: positional arguments as in a call (or ``ShapeDtypeStruct``).
          **kwargs: keyword arguments as in a call.

        Returns:
          The backend's lowered stage (``.as_text()``, ``.compile()``, ...).

        Example:
            >>> from tessela_tracer import lax
            >>> try:
            ...     lowered = jit(lax.sin).lower(1.0)
            ... except NotImplementedError:  # no compiler installed
            ...     lowered = None
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
            >>> from tessela_tracer import lax
            >>> jit(lambda x: lax.reduce_sum(x, (0,))).eval_shape(np.ones((4, 2))).shape
            (2,)
        """
        return self.trace(*args, **kwargs).out_info

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"


def _staged_call(jitted: JitWrapped, /, *args: Any, **kwargs: Any) -> Any:
    # Without a backend: under a trace, one ``jit_p`` equation; on concrete
    # values, the staged program evaluated equation by equation with the
    # eager implementations (``register_impl``, else the eager backend).
    static, flat, in_tree = jitted._split(args, kwargs)
    if type(get_current_trace()) is not EvalTrace or any(isinstance(x, Tracer) for x in flat):
        return jitted._bind(args, kwargs, static, flat, in_tree)
    jaxpr, consts, out_tree = jitted._staged(args, kwargs, static, flat, in_tree)
    outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *flat)
    return tree_unflatten(out_tree, outs)


def _staged_trace(jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Traced:
    jaxpr, _, out_tree = jitted._trace(args, kwargs)
    return Traced(jaxpr, out_tree)


def install_call(call: JitCall, /) -> None:
    # The backend's call, as ``_backend[0]`` and as the class's ``__call__``
    # (set as an attribute: the class declares it, the backend defines it).
    _backend[0] = call
    setattr(JitWrapped, "__call__", call)  # noqa: B010


_backend: list[Any] = [_staged_call, _staged_trace]
install_call(_staged_call)


def set_jit_backend(call: JitCall, trace: JitTrace, /) -> None:
    """Install what runs jitted functions on concrete arguments, and their stages.

    tessela-lowering installs XLA here when imported (as it installs the eager
    backend with :func:`set_eager_backend`). Without it, a call under a trace
    stages one ``jit_p`` equation, and a call on concrete values evaluates the
    staged program equation by equation.

    Args:
      call: ``call(jitted, /, *args, **kwargs)``, the result of one call
        (installed as ``JitWrapped.__call__``). Under an
        enclosing trace it must stage, e.g. with ``jitted._bind``.
      trace: ``trace(jitted, args, kwargs)``, a :class:`Traced` stage whose
        ``lower()`` the backend provides.

    Returns:
      None.
    """
    install_call(call)
    _backend[1] = trace


def jit(
    fun: Callable[..., Any],
    /,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    donate_argnames: str | Sequence[str] | None = None,
    keep_unused: bool = False,
    device: Any = None,
    backend: str | None = None,
    inline: bool = False,
    in_shardings: Any = UNSPECIFIED,
    out_shardings: Any = UNSPECIFIED,
) -> JitWrapped:
    """Stage ``fun`` as one ``jit`` call; compiled with XLA when tessela-lowering is imported.

    Args:
      fun: a pure function of arrays (and pytrees of them).
      static_argnums: positions passed as Python values; each new value
        traces again, so they must be hashable.
      static_argnames: the same, by keyword name.
      donate_argnums: positions whose buffers the computation may reuse for
        its outputs; donated arrays are deleted after the call.
      donate_argnames: keyword arguments to donate.
      keep_unused: keep arguments the function does not use in the compiled
        program (by default they are pruned).
      device: run on this device and commit the results to it.
      backend: run on this backend's first device ("cpu", "cuda", ...).
      inline: when called inside another traced function, emit the body in
        place instead of a nested call.
      in_shardings: how the positional arguments are laid out over devices: a
        ``Sharding`` or ``PartitionSpec`` (over the mesh of ``set_mesh``), or a
        pytree prefix of the positional arguments of them; ``None`` leaves an
        argument's layout to the partitioner. Uncommitted arguments are moved
        there; a committed one laid out otherwise is a ValueError.
      out_shardings: the same for the outputs (a prefix of the output pytree).

    Returns:
      The jitted function, with ``.trace``, ``.lower`` and ``.eval_shape``.

    Raises:
      ValueError: a static position is out of range, a static name is not a
        parameter, or an argument is both static and donated.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(jit(lax.sin))(1.0).eqns[0].params["name"]
        'sin'
    """
    if not callable(fun):
        raise TypeError(f"jit expects a callable as its first argument, got {fun!r}.")
    return JitWrapped(
        fun,
        static_argnums=_argnums(static_argnums, "static_argnums"),
        static_argnames=_argnames(static_argnames, "static_argnames"),
        donate_argnums=_argnums(donate_argnums, "donate_argnums"),
        donate_argnames=_argnames(donate_argnames, "donate_argnames"),
        keep_unused=bool(keep_unused),
        device=device,
        backend=backend,
        inline=bool(inline),
        in_shardings=in_shardings,
        out_shardings=out_shardings,
    )
