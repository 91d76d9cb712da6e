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
With concrete arguments (the eager case) the NumPy implementation runs, bit
for bit the standalone package, and the results move to the default device;
keys it returns are wrapped again. When a key or any argument is a tracer
(inside ``jit``, ``vmap``, ``grad``, ...) the same sampling code runs on the
traced values through the array-API view of :mod:`tessela._xp`, so it is
staged, batched and compiled like any other Tessela program.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

import numpy as np
import tessela_lowering
import tessela_prng
from tessela_prng import KeyArray
from tessela_tracer import Tracer
from tessela_tracer.extend import random_unwrap, random_wrap

from ._prng_keys import is_typed_key
from ._xp import Boxed, unbox

__all__ = ["KeyArray", "is_typed_key", "wrap_sampler"]

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


def wrap_sampler(fn: Callable[_P, Any], /) -> Callable[_P, Any]:
    """Make a ``tessela_prng`` function run on Tessela arrays and tracers.

    Args:
        fn: a function of ``tessela_prng`` (``normal``, ``split``, ...).

    Returns:
        A function with the same signature: NumPy bits for concrete
        arguments, returned as Tessela arrays; staged sampling for traced ones.

    Example:
        >>> import tessela_prng
        >>> normal = wrap_sampler(tessela_prng.normal)
        >>> print(normal(tessela_prng.key(43)))
        0.07520543
    """

    @functools.wraps(fn)
    def sampler(*args: _P.args, **kwargs: _P.kwargs) -> Any:
        args = tuple(_unwrap_keys(a) for a in args)  # type: ignore[assignment]
        kwargs = {k: _unwrap_keys(v) for k, v in kwargs.items()}  # type: ignore[assignment]
        if any(_is_traced(a) for a in args) or any(_is_traced(v) for v in kwargs.values()):
            boxed_args = [_to_boxed(a) for a in args]
            boxed_kwargs = {k: _to_boxed(v) for k, v in kwargs.items()}
            return _from_boxed(fn(*boxed_args, **boxed_kwargs))
        np_args = [_to_numpy(a) for a in args]
        np_kwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
        return _to_device(fn(*np_args, **np_kwargs))

    sampler.__module__ = "tessela.random"
    return sampler


PRNGKey = wrap_sampler(tessela_prng.PRNGKey)
key = wrap_sampler(tessela_prng.key)
key_impl = tessela_prng.key_impl
bits = wrap_sampler(tessela_prng.bits)
clone = wrap_sampler(tessela_prng.clone)
fold_in = wrap_sampler(tessela_prng.fold_in)
split = wrap_sampler(tessela_prng.split)
wrap_key_data = wrap_sampler(tessela_prng.wrap_key_data)
ball = wrap_sampler(tessela_prng.ball)
bernoulli = wrap_sampler(tessela_prng.bernoulli)
beta = wrap_sampler(tessela_prng.beta)
binomial = wrap_sampler(tessela_prng.binomial)
categorical = wrap_sampler(tessela_prng.categorical)
cauchy = wrap_sampler(tessela_prng.cauchy)
chisquare = wrap_sampler(tessela_prng.chisquare)
choice = wrap_sampler(tessela_prng.choice)
dirichlet = wrap_sampler(tessela_prng.dirichlet)
double_sided_maxwell = wrap_sampler(tessela_prng.double_sided_maxwell)
exponential = wrap_sampler(tessela_prng.exponential)
f = wrap_sampler(tessela_prng.f)
gamma = wrap_sampler(tessela_prng.gamma)
generalized_normal = wrap_sampler(tessela_prng.generalized_normal)
geometric = wrap_sampler(tessela_prng.geometric)
gumbel = wrap_sampler(tessela_prng.gumbel)
laplace = wrap_sampler(tessela_prng.laplace)
loggamma = wrap_sampler(tessela_prng.loggamma)
logistic = wrap_sampler(tessela_prng.logistic)
lognormal = wrap_sampler(tessela_prng.lognormal)
maxwell = wrap_sampler(tessela_prng.maxwell)
multinomial = wrap_sampler(tessela_prng.multinomial)
multivariate_normal = wrap_sampler(tessela_prng.multivariate_normal)
normal = wrap_sampler(tessela_prng.normal)
orthogonal = wrap_sampler(tessela_prng.orthogonal)
pareto = wrap_sampler(tessela_prng.pareto)
permutation = wrap_sampler(tessela_prng.permutation)
poisson = wrap_sampler(tessela_prng.poisson)
rademacher = wrap_sampler(tessela_prng.rademacher)
randint = wrap_sampler(tessela_prng.randint)
rayleigh = wrap_sampler(tessela_prng.rayleigh)
t = wrap_sampler(tessela_prng.t)
triangular = wrap_sampler(tessela_prng.triangular)
truncated_normal = wrap_sampler(tessela_prng.truncated_normal)
uniform = wrap_sampler(tessela_prng.uniform)
wald = wrap_sampler(tessela_prng.wald)
weibull_min = wrap_sampler(tessela_prng.weibull_min)


def key_data_of(keys: Any, /) -> Any:
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
    if isinstance(keys, KeyArray):
        data = tessela_prng.key_data(keys)
        return data if _is_traced(data) else tessela_lowering.device_put(np.asarray(data))
    return tessela_prng.key_data(keys) if isinstance(keys, np.ndarray) else keys
