"""``tessela.random``: the PRNG of ``tessela_prng`` on Tessela arrays.

Typed keys are Tessela arrays, as in JAX: ``key(0)`` is an :class:`Array`
whose dtype is the key dtype ``key<fry>`` (``dtypes.issubdtype(k.dtype,
dtypes.prng_key)``), shape ``()`` for one key, held on the device as its
``uint32[2]`` data. They are pytree leaves, so they pass through ``jit``,
``vmap``, ``grad`` (as non-differentiable inputs), ``lax.scan`` carries and
``device_put`` like any array; ``key_data`` and ``wrap_key_data`` cross to
and from the data (the ``random_unwrap`` / ``random_wrap`` primitives).

Every sampler of ``tessela_prng`` is wrapped once. Key arguments are
unwrapped to their data and handed to ``tessela_prng`` as its own typed keys.
When a key or any argument is a tracer (inside ``jit``, ``vmap``, ``grad``,
...) the sampling code runs on the traced values through the array-API view
of :mod:`tessela._xp`, so it is staged, batched and compiled like any other
Tessela program. Called eagerly, a sampler runs that same code as a compiled
program (see :func:`wrap_sampler`), so eager and jitted results agree bit for
bit; keys are made on the host by the NumPy implementation.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, cast

import numpy as np
import tessela_lowering
import tessela_prng
import tessela_tracer
from tessela_lowering.sharding import AbstractMesh, NamedSharding, PartitionSpec, get_mesh
from tessela_prng import KeyArray
from tessela_tracer import Tracer
from tessela_tracer.dtypes import KeyDType, key_fry
from tessela_tracer.extend import get_aval_of, random_unwrap, random_wrap
from tessela_tracer.typing import Array, ArrayLike

from ._flags import legacy_prng_key
from ._prng_keys import is_typed_key
from ._xp import Boxed, unbox

__all__ = [
    "KeyArray", "check_legacy_key", "is_typed_key", "place_sampled", "wrap_sampler",
    "wrap_sharded_sampler",
]  # fmt: skip

_P = ParamSpec("_P")


def _unwrap_keys(x: Any) -> Any:
    # A typed key array becomes tessela_prng's key array over its data.
    return KeyArray(random_unwrap(x)) if is_typed_key(x) else x


def _is_traced(x: Any) -> bool:
    if isinstance(x, KeyArray):
        x = tessela_prng.key_data(x)
    return isinstance(x, Tracer)


def _to_boxed(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(_to_boxed(tessela_prng.key_data(x)))
    if isinstance(x, (Tracer, tessela_lowering.Array)):
        return Boxed(x)
    if isinstance(x, np.ndarray):
        return Boxed(tessela_lowering.device_put(x))
    return x


def _from_boxed(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return random_wrap(unbox(tessela_prng.key_data(x)))
    if isinstance(x, tuple):
        return tuple(_from_boxed(v) for v in x)
    if isinstance(x, list):
        return [_from_boxed(v) for v in x]
    return unbox(x)


def _to_numpy(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(_to_numpy(tessela_prng.key_data(x)))
    if isinstance(x, tessela_lowering.Array):
        return np.asarray(x)
    return x


def _to_device(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return random_wrap(_to_device(tessela_prng.key_data(x)))
    if isinstance(x, (np.ndarray, np.generic)):
        return tessela_lowering.device_put(x)
    if isinstance(x, tuple):
        return tuple(_to_device(v) for v in x)
    if isinstance(x, list):
        return [_to_device(v) for v in x]
    return x


_LEGACY_KEY_MESSAGE = (
    "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
    'jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key="allow".'
)


def check_legacy_key(key: object, /) -> None:
    """Apply ``jax_legacy_prng_key`` to the key argument of a random function.

    A raw key (a ``uint32`` array, not a typed key) is accepted under
    ``"allow"`` (the default), accepted with a ``UserWarning`` under ``"warn"``
    and refused under ``"error"``, with JAX's text.

    Args:
        key: the key argument.

    Returns:
        None.

    Raises:
        ValueError: a raw key while the flag is ``"error"``.

    Example:
        >>> import tessela as tx
        >>> with tx.legacy_prng_key("error"):
        ...     check_legacy_key(key(0))
        ...     try:
        ...         check_legacy_key(PRNGKey(0))
        ...     except ValueError as e:
        ...         print(str(e).split(".")[0])
        Legacy uint32 key array passed as key to jax
    """
    mode = legacy_prng_key.value
    if mode == "allow" or is_typed_key(key) or isinstance(key, KeyArray):
        return
    if not isinstance(key, (np.ndarray, tessela_lowering.Array, Tracer)):
        return
    if mode == "error":
        raise ValueError(_LEGACY_KEY_MESSAGE)
    warnings.warn(_LEGACY_KEY_MESSAGE, UserWarning, stacklevel=3)


# Parameters whose Python numbers are traced by the staged eager samplers, as
# JAX's samplers trace them (a new value reuses the compiled sampler): those
# annotated as arrays in ``tessela_prng``, and these. All others are static.
_ARRAY_ANNOTATIONS = ("ArrayLike", "SupportsArray", "KeyLike")
_ALSO_TRACED = {"ball": ("p",), "generalized_normal": ("p",)}
# An integer ``n`` here means ``arange(n)``: its value sets the shape, so it is static.
_COUNT_PARAMETER = {"choice": "a", "permutation": "x"}
_INT32 = range(-(2**31), 2**31)


def _traced_names(fn: Callable[..., Any], signature: inspect.Signature) -> frozenset[str]:
    names = {
        name
        for name, p in signature.parameters.items()
        if any(a in str(p.annotation) for a in _ARRAY_ANNOTATIONS)
    }
    return frozenset(names.union(_ALSO_TRACED.get(fn.__name__, ())))


def _split_arguments(
    arguments: dict[str, Any], traced_names: frozenset[str], count: str | None
) -> tuple[tuple[tuple[str, Any], ...], dict[str, Any]] | None:
    """``(static, traced)`` for the staged sampler, or None where the host path must run."""
    static: list[tuple[str, Any]] = []
    traced: dict[str, Any] = {}
    for name, value in arguments.items():
        typ = type(value)
        array_parameter = name in traced_names
        if isinstance(value, (tessela_lowering.Array, np.ndarray)):
            if not array_parameter or (name == count and np.ndim(value) == 0):
                return None  # a value the program's shape depends on
            traced[name] = value
            continue
        if (
            array_parameter
            and name != count
            and (
                typ is float
                or typ is complex
                or isinstance(value, np.generic)
                or ((typ is int or typ is bool) and value in _INT32)
            )
        ):
            traced[name] = value
            continue
        if typ is list:
            if array_parameter:
                return None
            value = tuple(value)  # a shape given as a list
        elif isinstance(value, KeyArray):
            return None
        static.append((name, value))
    out = tuple(static)
    try:
        hash(out)
    except TypeError:
        return None
    return out, traced


def _sample_traced(fn: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """Run ``fn`` on traced (or boxed) values through the array-API view."""
    boxed_args = [_to_boxed(a) for a in args]
    boxed_kwargs = {k: _to_boxed(v) for k, v in kwargs.items()}
    return _from_boxed(fn(*boxed_args, **boxed_kwargs))


def wrap_sampler(fn: Callable[_P, Any], /, *, takes_key: bool = True) -> Callable[_P, Any]:
    """Make a ``tessela_prng`` function run on Tessela arrays and tracers.

    Traced arguments (inside ``jit``, ``vmap``, ``grad``, ...) stage the
    sampling code. A sampler that takes a key, called eagerly, runs as a
    compiled program too, as JAX's samplers do: shapes, dtypes and the other
    configuration are static (each new value compiles once), arrays and the
    Python numbers of array parameters are its arguments. Eager results are
    therefore bit for bit those of the same call inside ``jit``. Arguments it
    cannot take (a ``tessela_prng`` key, an array where a static value goes)
    run the NumPy implementation on the host instead, as do ``key``,
    ``PRNGKey``, ``clone`` and ``wrap_key_data``.

    Args:
        fn: a function of ``tessela_prng`` (``normal``, ``split``, ...).
        takes_key: whether its first argument (or ``key=``) is a key that
            ``jax_legacy_prng_key`` applies to (:func:`check_legacy_key`).

    Returns:
        A function with the same signature, returning Tessela arrays.

    Example:
        >>> import tessela_prng
        >>> normal = wrap_sampler(tessela_prng.normal)
        >>> print(normal(tessela_prng.key(43)))
        0.07520543
    """
    signature = inspect.signature(fn)
    traced_names = _traced_names(fn, signature)
    count = _COUNT_PARAMETER.get(fn.__name__)

    def staged_body(static: tuple[tuple[str, Any], ...], traced: dict[str, Any]) -> Any:
        arguments = {k: _unwrap_keys(v) for k, v in traced.items()}
        arguments.update(static)
        bound = inspect.BoundArguments(signature, arguments)
        return _sample_traced(fn, bound.args, bound.kwargs)

    staged_body.__name__ = staged_body.__qualname__ = fn.__name__  # jit(normal) in logs
    staged = tessela_tracer.jit(staged_body, static_argnums=(0,))

    names = tuple(signature.parameters)
    keywords = frozenset(
        n for n, p in signature.parameters.items() if p.kind is not p.POSITIONAL_ONLY
    )

    def arguments_of(args: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        # ``signature.bind`` without its cost when the call is well formed.
        arguments = dict(zip(names, args, strict=False))
        if len(args) > len(names) or any(k in arguments or k not in keywords for k in kwargs):
            return dict(signature.bind(*args, **kwargs).arguments)  # raises TypeError
        arguments.update(kwargs)
        return arguments

    @functools.wraps(fn)
    def sampler(*args: _P.args, **kwargs: _P.kwargs) -> Any:
        if takes_key and (args or "key" in kwargs):
            check_legacy_key(args[0] if args else kwargs["key"])
        if any(_is_traced(a) for a in args) or any(_is_traced(v) for v in kwargs.values()):
            return _sample_traced(
                fn, [_unwrap_keys(a) for a in args], {k: _unwrap_keys(v) for k, v in kwargs.items()}
            )
        if takes_key:
            split = _split_arguments(arguments_of(args, kwargs), traced_names, count)
            if split is not None:
                return staged(*split)
        np_args = [_to_numpy(_unwrap_keys(a)) for a in args]
        np_kwargs = {k: _to_numpy(_unwrap_keys(v)) for k, v in kwargs.items()}
        return _to_device(fn(*np_args, **np_kwargs))

    sampler.__module__ = "tessela.random"
    return sampler


def _named_sharding(out_sharding: Any, name: str) -> NamedSharding | None:
    """``out_sharding`` as a sharding over a mesh of devices, or None when it changes nothing."""
    if out_sharding is None:
        return None
    if isinstance(out_sharding, PartitionSpec):
        if get_mesh().empty:
            raise ValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. "
                "Please pass a NamedSharding instance or enter into a mesh context via "
                f"`tessela.set_mesh`. Got {out_sharding!r}"
            )
        out_sharding = NamedSharding(get_mesh(), out_sharding)
    if not isinstance(out_sharding, NamedSharding):
        raise TypeError(
            f"`out_sharding` argument of {name} only supports instances of `NamedSharding` or "
            f"`PartitionSpec`. Got {out_sharding!r} of type: {type(out_sharding)}"
        )
    sharding: NamedSharding = out_sharding
    if isinstance(sharding.mesh, AbstractMesh):
        if sharding.mesh.size <= 1:
            return None  # the empty abstract mesh (``typeof(x).sharding``): one device
        current = get_mesh()
        if current.abstract_mesh != sharding.mesh:
            raise ValueError(
                f"`out_sharding` of {name} is over {sharding.mesh!r}, but the current mesh is "
                f"{current}; use a NamedSharding over a Mesh, or set the mesh with "
                "tessela.sharding.set_mesh(mesh)."
            )
        sharding = NamedSharding(current, sharding.spec)
    return sharding


def place_sampled(value: Array, out_sharding: Any, name: str) -> Array:
    """Lay a sampler's result out as ``out_sharding`` asks (``jax.random``'s ``out_sharding=``).

    ``None``, and shardings over the empty abstract mesh (what
    ``typeof(x).sharding`` reports for an unsplit value) change nothing. A
    ``NamedSharding`` over a mesh of devices (or a ``PartitionSpec`` over the
    current mesh) places the concrete result with ``device_put``. Inside a
    transformation a mesh of one device changes nothing, and a larger one
    raises ``NotImplementedError`` (there is no sharding constraint to stage).

    Args:
        value: the sampled array (or tracer).
        out_sharding: ``None``, a ``NamedSharding`` or a ``PartitionSpec``.
        name: the sampler's name, for the messages.

    Returns:
        ``value``, placed.

    Raises:
        TypeError: ``out_sharding`` is another kind of sharding (as JAX).
        NotImplementedError: a multi-device sharding of a traced result.

    Example:
        >>> import tessela
        >>> x = normal(key(0), (2,))
        >>> place_sampled(x, tessela.typeof(x).sharding, "normal") is x
        True
    """
    sharding = _named_sharding(out_sharding, name)
    if sharding is None:
        return value
    spec, ndim = sharding.spec, len(get_aval_of(value).shape)
    if len(spec) < ndim:  # JAX reports the spec padded to the rank
        padded = (*spec, *(None,) * (ndim - len(spec)))
        spec = PartitionSpec(*padded, unreduced=spec.unreduced, reduced=spec.reduced)
        sharding = NamedSharding(sharding.mesh, spec, memory_kind=sharding.memory_kind)
    if isinstance(value, Tracer):
        if sharding.num_devices <= 1:
            return value
        raise NotImplementedError(
            f"{name}: out_sharding={sharding!r} over {sharding.num_devices} devices is not "
            "supported inside a transformation (jit, vmap, grad, ...); sample outside it, or "
            "device_put the result after the transformation."
        )
    return cast(Array, tessela_lowering.device_put(value, sharding))


def wrap_sharded_sampler(fn: Callable[_P, Any], /) -> Callable[..., Any]:
    """:func:`wrap_sampler` plus JAX's keyword-only ``out_sharding=None`` (see :func:`place_sampled`).

    Args:
        fn: a sampler of ``tessela_prng`` (``normal``, ``uniform``, ...).

    Returns:
        The wrapped sampler; its signature ends with ``*, out_sharding=None``.

    Example:
        >>> import inspect, tessela_prng
        >>> normal = wrap_sharded_sampler(tessela_prng.normal)
        >>> "out_sharding" in inspect.signature(normal).parameters
        True
    """
    sampler = wrap_sampler(fn)
    name = fn.__name__

    @functools.wraps(sampler)
    def sharded(*args: Any, out_sharding: Any = None, **kwargs: Any) -> Any:
        _named_sharding(out_sharding, name)  # a wrong sharding fails before sampling
        return place_sampled(sampler(*args, **kwargs), out_sharding, name)

    signature = inspect.signature(fn)
    extra = inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)
    sharded.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), extra]
    )
    return sharded


PRNGKey = wrap_sampler(tessela_prng.PRNGKey, takes_key=False)
key = wrap_sampler(tessela_prng.key, takes_key=False)


def key_impl(keys: tessela_prng.KeyLike, /) -> str:
    """The name of the PRNG implementation of ``keys``, as ``jax.random.key_impl``.

    Args:
        keys: typed keys, or raw ``uint32`` keys (see :func:`check_legacy_key`).

    Returns:
        ``"threefry2x32"``.

    Example:
        >>> key_impl(key(0))
        'threefry2x32'
    """
    check_legacy_key(keys)
    return tessela_prng.key_impl(keys)


def key_dtype(impl_spec: Any = None) -> KeyDType:
    """The dtype of typed keys of a PRNG implementation, as ``jax.random.key_dtype``.

    Args:
        impl_spec: None (the default implementation), its name
            ``"threefry2x32"``, what :func:`key_impl` returns, or a key dtype.

    Returns:
        The key dtype (``key<fry>``), the dtype of ``key(seed, impl=impl_spec)``.

    Raises:
        ValueError: the name of an implementation Tessela does not provide.
        TypeError: an argument of another type.

    Example:
        >>> print(key_dtype(), key_dtype() == key(0).dtype)
        key<fry> True
    """
    if isinstance(impl_spec, KeyDType) or impl_spec is None or impl_spec == key_fry.impl:
        return impl_spec if isinstance(impl_spec, KeyDType) else key_fry
    if isinstance(impl_spec, str):
        raise ValueError(
            f'key_dtype: unrecognized PRNG implementation "{impl_spec}". Did you mean one of: '
            f'"{key_fry.impl}"?'
        )
    raise TypeError(
        f"key_dtype: unrecognized type {type(impl_spec).__name__} for specifying PRNG "
        f'implementation; pass "{key_fry.impl}" or None.'
    )


bits = wrap_sharded_sampler(tessela_prng.bits)
clone = wrap_sampler(tessela_prng.clone, takes_key=False)
fold_in = wrap_sampler(tessela_prng.fold_in)
split = wrap_sampler(tessela_prng.split)
wrap_key_data = wrap_sampler(tessela_prng.wrap_key_data, takes_key=False)
ball = wrap_sharded_sampler(tessela_prng.ball)
bernoulli = wrap_sharded_sampler(tessela_prng.bernoulli)
beta = wrap_sharded_sampler(tessela_prng.beta)
binomial = wrap_sampler(tessela_prng.binomial)
categorical = wrap_sharded_sampler(tessela_prng.categorical)
cauchy = wrap_sharded_sampler(tessela_prng.cauchy)
chisquare = wrap_sharded_sampler(tessela_prng.chisquare)
choice = wrap_sampler(tessela_prng.choice)
dirichlet = wrap_sharded_sampler(tessela_prng.dirichlet)
double_sided_maxwell = wrap_sampler(tessela_prng.double_sided_maxwell)
exponential = wrap_sharded_sampler(tessela_prng.exponential)
f = wrap_sharded_sampler(tessela_prng.f)
gamma = wrap_sharded_sampler(tessela_prng.gamma)
generalized_normal = wrap_sharded_sampler(tessela_prng.generalized_normal)
geometric = wrap_sharded_sampler(tessela_prng.geometric)
gumbel = wrap_sharded_sampler(tessela_prng.gumbel)
laplace = wrap_sharded_sampler(tessela_prng.laplace)
loggamma = wrap_sharded_sampler(tessela_prng.loggamma)
logistic = wrap_sharded_sampler(tessela_prng.logistic)
lognormal = wrap_sharded_sampler(tessela_prng.lognormal)
maxwell = wrap_sharded_sampler(tessela_prng.maxwell)
multinomial = wrap_sampler(tessela_prng.multinomial)
multivariate_normal = wrap_sharded_sampler(tessela_prng.multivariate_normal)
normal = wrap_sharded_sampler(tessela_prng.normal)
orthogonal = wrap_sharded_sampler(tessela_prng.orthogonal)
pareto = wrap_sharded_sampler(tessela_prng.pareto)
permutation = wrap_sharded_sampler(tessela_prng.permutation)
poisson = wrap_sharded_sampler(tessela_prng.poisson)
rademacher = wrap_sharded_sampler(tessela_prng.rademacher)
randint = wrap_sharded_sampler(tessela_prng.randint)
rayleigh = wrap_sharded_sampler(tessela_prng.rayleigh)
t = wrap_sharded_sampler(tessela_prng.t)
triangular = wrap_sharded_sampler(tessela_prng.triangular)
truncated_normal = wrap_sharded_sampler(tessela_prng.truncated_normal)
uniform = wrap_sharded_sampler(tessela_prng.uniform)
wald = wrap_sharded_sampler(tessela_prng.wald)
weibull_min = wrap_sampler(tessela_prng.weibull_min)


def key_data_of(keys: ArrayLike | KeyArray, /) -> ArrayLike:
    """Return the ``uint32`` data under typed keys (raw keys pass through).

    Args:
        keys: a typed key array or a raw ``uint32[..., 2]`` key.

    Returns:
        The key data as a Tessela array (or tracer), shape ``(*keys.shape, 2)``.

    Example:
        >>> key_data_of(key(0)).tolist()
        [0, 0]
    """
    if is_typed_key(keys):
        return random_unwrap(keys)
    check_legacy_key(keys)
    if isinstance(keys, KeyArray):
        data = tessela_prng.key_data(keys)
        out = data if _is_traced(data) else tessela_lowering.device_put(np.asarray(data))
        return cast(ArrayLike, out)
    return cast(ArrayLike, tessela_prng.key_data(keys) if isinstance(keys, np.ndarray) else keys)
