"""Typed PRNG keys: ``random_wrap_p``, ``random_unwrap_p`` and the key avals.

A typed key array is an array whose dtype is a key dtype (:data:`key_fry`,
``key<fry>``), as in JAX. Its logical shape counts keys; each key is stored
as ``uint32[2]``. Two primitives cross between the views:

- ``random_wrap_p(data, impl=key_fry)``: ``uint32[..., 2]`` data to
  ``key<fry>[...]`` keys (``jax.random.wrap_key_data``);
- ``random_unwrap_p(keys)``: keys to their ``uint32[..., 2]`` data
  (``jax.random.key_data``).

Both are free: lowered, a key array *is* its data. Every sampler works on the
data, so these two primitives are all that typed keys need from each
transformation; shape operations (reshape, indexing, broadcasting,
concatenation, transposition) accept key operands directly, and the lowering
adds the trailing physical axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._jaxpr import JaxprEqn
from tessela_tracer._key_dtypes import KeyDType, is_extended, key_fry, physical_shape_dtype
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "physical_aval",
    "random_unwrap",
    "random_unwrap_p",
    "random_wrap",
    "random_wrap_p",
]


def physical_aval(aval: ShapedArray, /) -> ShapedArray:
    """The aval of the buffer that holds a value of ``aval``.

    A key array ``key<fry>[3]`` is held as ``uint32[3,2]``; avals with NumPy
    dtypes are their own physical aval.

    Args:
      aval: a logical abstract value.

    Returns:
      The physical abstract value (weak type dropped for extended dtypes).

    Example:
        >>> physical_aval(ShapedArray((3,), key_fry))
        ShapedArray(uint32[3,2])
    """
    if not is_extended(aval.dtype):
        return aval
    shape, dtype = physical_shape_dtype(aval.shape, aval.dtype)
    return ShapedArray(shape, dtype, False)


def _check_impl(impl: Any) -> KeyDType:
    if not isinstance(impl, KeyDType):
        raise TypeError(f"random_wrap: impl must be a key dtype such as key<fry>, got {impl!r}.")
    return impl


def _random_wrap_rule(data: ShapedArray, *, impl: Any) -> ShapedArray:
    impl = _check_impl(impl)
    trailing = impl.physical_shape
    if is_extended(data.dtype):
        raise TypeError(
            f"random_wrap: the key data must be uint32, got a key array of dtype {data.dtype}; "
            "it is a key array already."
        )
    if data.dtype != np.dtype(np.uint32):
        raise TypeError(
            f"random_wrap: the key data must have dtype uint32, got {data.dtype}. "
            "Convert it with data.astype(jnp.uint32) first."
        )
    n = len(trailing)
    if data.shape[len(data.shape) - n :] != trailing or len(data.shape) < n:
        raise TypeError(
            f"random_wrap: the key data of {impl} must have trailing shape {trailing}, got "
            f"shape {data.shape}. Pass uint32 data of shape (..., {', '.join(map(str, trailing))})."
        )
    return ShapedArray(data.shape[: len(data.shape) - n], impl, False)


random_wrap_p = Primitive("random_wrap")
register_abstract_eval(random_wrap_p, _random_wrap_rule)


class _ImplTag:
    """Prints a key dtype's implementation by its tag, as JAX's jaxprs do (``impl=fry``)."""

    __slots__ = ("tag",)

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __repr__(self) -> str:
        return self.tag

    __str__ = __repr__


def _random_wrap_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    impl = eqn.params["impl"]
    tag = impl.name[len("key<") : -1] if isinstance(impl, KeyDType) else str(impl)
    return pp_eqn_default(eqn.replace(params={**eqn.params, "impl": _ImplTag(tag)}), ctx)


register_pp_rule(random_wrap_p, _random_wrap_pp_rule)


def _random_unwrap_rule(keys: ShapedArray) -> ShapedArray:
    if not isinstance(keys.dtype, KeyDType):
        raise TypeError(
            f"random_unwrap: expected a typed key array, got dtype {keys.dtype}. Raw uint32 "
            "keys are their own data."
        )
    return physical_aval(keys)


random_unwrap_p = Primitive("random_unwrap")
register_abstract_eval(random_unwrap_p, _random_unwrap_rule)


def random_wrap(data: ArrayLike, /, *, impl: KeyDType = key_fry) -> Array:
    """Wrap ``uint32[..., 2]`` key data into a typed key array.

    Args:
      data: the key words, trailing axis of size 2.
      impl: the key dtype (default ``key<fry>``).

    Returns:
      A key array of shape ``data.shape[:-1]``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(random_wrap)(np.zeros((3, 2), np.uint32)))
        { lambda ; a:u32[3,2]. let b:key<fry>[3] = random_wrap[impl=fry] a in (b,) }
    """
    out: Array = random_wrap_p.bind(data, impl=impl)
    return out


def random_unwrap(keys: Array, /) -> Array:
    """The ``uint32[..., 2]`` data of a typed key array.

    Args:
      keys: a typed key array.

    Returns:
      Its data, shape ``(*keys.shape, 2)``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> f = lambda d: random_unwrap(random_wrap(d))
        >>> print(make_jaxpr(f)(np.zeros((2,), np.uint32)))
        { lambda ; a:u32[2]. let
            b:key<fry>[] = random_wrap[impl=fry] a
            c:u32[2] = random_unwrap b
          in (c,) }
    """
    out: Array = random_unwrap_p.bind(keys)
    return out
