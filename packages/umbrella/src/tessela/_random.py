"""``tessela.random``: the PRNG of ``tessela_prng`` on Tessela arrays.

Every sampler of ``tessela_prng`` is wrapped once. With concrete keys (the
eager case) the wrapper runs the NumPy implementation, which is bit for bit
the standalone package, and moves the results to the default device as
Tessela arrays. When the key or any argument is a tracer (inside ``jit``,
``vmap``, ``grad``, ...) the same sampling code runs on the traced values
through the array-API view of :mod:`tessela._xp`, so it is staged, batched
and compiled like any other Tessela program. Key arrays are pytrees whose
only leaf is their ``uint32`` data, so they cross transformation boundaries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

import numpy as np
import tessela_lowering
import tessela_prng
from tessela_prng import KeyArray, key_data
from tessela_pytree import register_pytree_node
from tessela_tracer import Tracer

from ._xp import Boxed, unbox

__all__ = ["KeyArray", "wrap_sampler"]

_P = ParamSpec("_P")


def _flatten_key(k: KeyArray) -> tuple[tuple[Any], None]:
    return (key_data(k),), None


def _unflatten_key(_aux: None, children: Any) -> KeyArray:
    return KeyArray(children[0])


register_pytree_node(KeyArray, _flatten_key, _unflatten_key)


def _is_traced(x: Any) -> bool:
    if isinstance(x, KeyArray):
        x = key_data(x)
    return isinstance(x, Tracer)


def _to_boxed(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(_to_boxed(key_data(x)))
    if isinstance(x, (Tracer, tessela_lowering.Array)):
        return Boxed(x)
    if isinstance(x, np.ndarray):
        return Boxed(tessela_lowering.device_put(x))
    return x


def _from_boxed(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(unbox(key_data(x)))
    if isinstance(x, tuple):
        return tuple(_from_boxed(v) for v in x)
    if isinstance(x, list):
        return [_from_boxed(v) for v in x]
    return unbox(x)


def _to_numpy(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(_to_numpy(key_data(x)))
    if isinstance(x, tessela_lowering.Array):
        return np.asarray(x)
    return x


def _to_device(x: Any) -> Any:
    if isinstance(x, KeyArray):
        return KeyArray(_to_device(key_data(x)))
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
    if isinstance(keys, KeyArray):
        data = key_data(keys)
        return data if _is_traced(data) else tessela_lowering.device_put(np.asarray(data))
    return keys
